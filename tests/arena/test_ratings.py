"""Tests of agents.ratings (match statistics, SPRT, joint Bradley-Terry ratings) and agents.plots.

Published vectors: fastchess app/tests/elo_test.cpp and app/tests/sprt_test.cpp. fastchess's
Stats(w, l, d) is wins, losses, draws and Stats(ll, ld, wl, dd, wd, ww) the six pair outcomes;
here counts are (L, D, W) and (LL, LD, WL+DD, WD, WW).
"""
import math

import numpy as np
import pytest

from agents import ratings
from agents.ratings import (bradley_terry, crosstable, format_crosstable, format_ratings_table,
                            game_counts, match_elo, normalized_elo, pair_counts, rate_records,
                            sprt_bounds, sprt_decision, sprt_llr)

K = math.log(10) / 400


def wdl(w, l, d):
    """fastchess Stats(wins, losses, draws) -> (L, D, W)."""
    return [l, d, w]


def penta(ll, ld, wl, dd, wd, ww):
    """fastchess Stats(ll, ld, wl, dd, wd, ww) -> (LL, LD, WL+DD, WD, WW)."""
    return [ll, ld, wl + dd, wd, ww]


# ---------------------------------------------------------------------------------------------
# two-agent Elo, nElo, LOS
# ---------------------------------------------------------------------------------------------

def test_match_elo_published_trinomial_vector():
    elo, err, los = match_elo(wdl(136, 96, 111))
    assert f"{elo:.2f} +/- {err:.2f}" == "40.70 +/- 30.43"
    assert f"{100 * los:.2f}" == "99.60"
    # the (W - L) / sqrt(W + L) definition would not reproduce the published 99.60 %
    assert f"{100 * ratings.match._phi(40 / math.sqrt(232)):.2f}" == "99.57"
    nelo, nerr = normalized_elo(wdl(136, 96, 111))
    assert (round(nelo, 2), round(nerr, 2)) == (49.77, 36.77)


def test_match_elo_other_fastchess_vectors():
    nelo, nerr = normalized_elo(wdl(76, 89, 123))
    assert (round(nelo, 2), round(nerr, 2)) == (-20.76, 40.13)
    assert f"{100 * match_elo(wdl(76, 89, 123))[2]:.2f}" == "15.53"
    # D = 0 is regularized to 1e-3 draws as in fishtest; fastchess does not, hence 0.01 slack
    nelo, nerr = normalized_elo(wdl(34, 356, 0))
    assert nelo == pytest.approx(-508.44, abs=0.01) and nerr == pytest.approx(34.48, abs=0.01)


@pytest.mark.parametrize("stats, nelo, nerr, elo, err, los", [
    (penta(34, 54, 31, 32, 64, 75), 57.94, 28.28, 55.58, 27.65, "100.00"),
    (penta(332, 433, 457, 41, 333, 334), -9.17, 10.96, -8.64, 10.33, "5.05"),
    (penta(7895, 8757, 5485, 200, 568, 9999), -19.01, 2.65, -21.04, 2.95, None),
])
def test_match_elo_pentanomial_fastchess_vectors(stats, nelo, nerr, elo, err, los):
    e, h, p = match_elo(stats)
    n, nh = normalized_elo(stats)
    assert (round(e, 2), round(h, 2), round(n, 2), round(nh, 2)) == (elo, err, nelo, nerr)
    if los is not None:
        assert f"{100 * p:.2f}" == los


def test_match_elo_is_antisymmetric_and_pairs_are_tighter():
    counts = [30, 50, 70]
    elo, err, los = match_elo(counts)
    elo_r, err_r, los_r = match_elo(counts[::-1])
    assert elo_r == pytest.approx(-elo) and err_r == pytest.approx(err) and los_r == pytest.approx(1 - los)
    assert match_elo([10, 20, 40, 20, 10]) == pytest.approx((0.0, match_elo([10, 20, 40, 20, 10])[1], 0.5))
    # same per-game score, but pairs with anti-correlated games have less variance
    e3, h3, _ = match_elo([100, 100, 200])                   # score 0.625
    e5, h5, _ = match_elo([0, 50, 50, 50, 50])                # score 0.625 per game, 200 pairs
    assert e3 == pytest.approx(e5, abs=0.01)                  # 0.01: the LL = 0 count becomes 1e-3
    assert h5 < h3


def test_zero_counts_do_not_crash():
    for counts in ([0, 0, 0], [0, 0, 10], [10, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 7]):
        elo, err, los = match_elo(counts)
        nelo, nerr = normalized_elo(counts)
        assert all(math.isfinite(x) for x in (elo, err, los, nelo, nerr))
    assert match_elo([0, 0, 10])[0] > 1000 and match_elo([10, 0, 0])[0] < -1000


@pytest.mark.parametrize("bad", [[1, 2], [1, 2, 3, 4], [1, -2, 3], [1, float("nan"), 3], "abc", [1, "x", 2], 5])
def test_bad_counts_raise(bad):
    with pytest.raises(ValueError):
        match_elo(bad)
    with pytest.raises(ValueError):
        normalized_elo(bad)
    with pytest.raises(ValueError):
        sprt_llr(bad, 0, 2, "logistic")


# ---------------------------------------------------------------------------------------------
# SPRT
# ---------------------------------------------------------------------------------------------

# every vector of fastchess app/tests/sprt_test.cpp except the "bayesian" model (not offered
# here) and the all-wins / all-draws ones, whose value is set by how zeros are regularized and
# which changed between fastchess versions (see test_sprt_degenerate_counts)
@pytest.mark.parametrize("counts, elo0, elo1, model, llr", [
    (wdl(36433, 36027, 68692), 0, 2, "normalized", 0.92),
    (wdl(10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
    (wdl(21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
    (wdl(57433, 57030, 106593), 0, 2, "logistic", -2.59),
    ([365, 16618, 36229, 16974, 390], 0, 2, "normalized", 2.25),
    (penta(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    (penta(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    (penta(871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
])
def test_sprt_llr_fastchess_vectors(counts, elo0, elo1, model, llr):
    assert round(sprt_llr(counts, elo0, elo1, model), 2) == llr


def test_sprt_pentanomial_order_is_ll_first():
    forward = sprt_llr([365, 16618, 36229, 16974, 390], 0, 2, "normalized")
    backward = sprt_llr([390, 16974, 36229, 16618, 365], 0, 2, "normalized")
    assert round(forward, 2) == 2.25 and backward < -5


def test_sprt_llr_agrees_with_the_brownian_approximation():
    # fishtest's LLR_alt2: N (s1 - s0) (2 s - s0 - s1) / (2 var), accurate for small elo bounds
    rng = np.random.default_rng(5)
    for _ in range(5):
        delta = rng.uniform(-0.004, 0.004)                  # within a few Elo of the bounds
        counts = rng.multinomial(20000, [0.3 - delta, 0.4, 0.3 + delta]).tolist()
        n = sum(counts)
        s = (counts[1] / 2 + counts[2]) / n
        var = (counts[0] * s ** 2 + counts[1] * (0.5 - s) ** 2 + counts[2] * (1 - s) ** 2) / n
        s0, s1 = ratings.elo_to_score(-1), ratings.elo_to_score(1)
        approx = n * (s1 - s0) * (2 * s - s0 - s1) / var / 2
        assert sprt_llr(counts, -1, 1, "logistic") == pytest.approx(approx, rel=0.005, abs=0.005)


def test_sprt_llr_is_zero_for_equal_distributions_and_antisymmetric_in_bounds():
    counts = [1000, 2000, 1000]
    assert sprt_llr(counts, -2, 2, "logistic") == pytest.approx(0.0, abs=1e-9)
    assert sprt_llr(counts, -2, 2, "normalized") == pytest.approx(0.0, abs=1e-9)
    a = sprt_llr([900, 2000, 1100], 0, 3, "normalized")
    b = sprt_llr([1100, 2000, 900], -3, 0, "normalized")
    assert a == pytest.approx(-b, rel=1e-7)


def test_sprt_degenerate_counts():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert sprt_llr([0, 0, 500], 0, 5, "logistic") > upper
    assert sprt_llr([500, 0, 0], 0, 5, "logistic") < lower
    assert sprt_llr([0, 0, 0, 0, 104], 0, 5, "normalized") > 0
    all_draws = sprt_llr([0, 16700, 0], 0, 5, "normalized")
    assert math.isfinite(all_draws) and all_draws < 0           # score exactly 1/2: favours H0
    assert sprt_llr([0, 0, 0], 0, 5, "logistic") == pytest.approx(0.0, abs=1e-6)


def test_sprt_argument_errors():
    with pytest.raises(ValueError, match="elo0"):
        sprt_llr([1, 2, 3], 2, 2, "logistic")
    with pytest.raises(ValueError, match="elo0"):
        sprt_llr([1, 2, 3], 3, 2, "normalized")
    with pytest.raises(ValueError, match="model"):
        sprt_llr([1, 2, 3], 0, 2, "bayesian")
    for alpha, beta in ((0, 0.05), (0.05, 1), (0.6, 0.5), (-1, 0.1)):
        with pytest.raises(ValueError):
            sprt_bounds(alpha, beta)
    with pytest.raises(ValueError):
        sprt_decision(float("nan"))


def test_sprt_bounds_and_decision():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    lower, upper = sprt_bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.95)) and upper == pytest.approx(math.log(0.9 / 0.05))
    assert sprt_decision(3.0) == "H1"
    assert sprt_decision(-3.0) == "H0"
    assert sprt_decision(2.9) is None and sprt_decision(-2.9) is None
    assert sprt_decision(2.5, alpha=0.1, beta=0.1) == "H1"


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------

def test_game_and_pair_counts():
    assert game_counts([1, 0.5, 0, 1, 1]) == (1, 1, 3)
    results = [(7, 1), (7, 1), (8, 0.5), (8, 0), (9, 1), (9, 0), ("x", 0.5), ("x", 0.5), (3, 0.5), (3, 1)]
    assert pair_counts(results) == [0, 1, 2, 1, 1]
    with pytest.raises(ValueError, match="pair 4"):
        pair_counts([(4, 1)])
    assert pair_counts([(4, 1), (5, 0), (5, 0)], skip_incomplete=True) == [1, 0, 0, 0, 0]
    with pytest.raises(ValueError):
        game_counts([0.25])
    with pytest.raises(ValueError):
        pair_counts([(1, 2, 3)])


# ---------------------------------------------------------------------------------------------
# Bradley-Terry
# ---------------------------------------------------------------------------------------------

TRUE = np.array([-200.0, -50.0, 0.0, 100.0, 300.0])
NAMES = ["random", "alphabeta:depth=2", "mcts:simulations=300", "mcts:simulations=3000", "alphabeta:depth=6"]
WHITE_ADVANTAGE = 30.0


def simulate(rng, n_games, true=TRUE, names=NAMES, h=WHITE_ADVANTAGE, draw=0.6, pairs=False):
    """Random games from the logistic model with draws; with pairs=True, colour-swapped pairs."""
    n = len(true)
    if pairs:
        a = rng.integers(0, n, n_games // 2)
        b = (a + rng.integers(1, n, n_games // 2)) % n
        white = np.stack([a, b], axis=1).ravel()
        black = np.stack([b, a], axis=1).ravel()
    else:
        white = rng.integers(0, n, n_games)
        black = (white + rng.integers(1, n, n_games)) % n
    expected = 1.0 / (1.0 + np.exp(-K * (true[white] - true[black] + h)))
    draws = draw * 2 * np.minimum(expected, 1 - expected)
    u = rng.random(len(white))
    score = np.where(u < expected - draws / 2, 1.0, np.where(u < expected + draws / 2, 0.5, 0.0))
    games = [(names[w], names[b], float(s)) for w, b, s in zip(white, black, score)]
    if pairs:
        games = [g + (k // 2,) for k, g in enumerate(games)]
    return games


def as_dict(result):
    return {e.agent: e for e in result.ratings}


def test_bradley_terry_recovers_known_ratings():
    games = simulate(np.random.default_rng(11), 4000)
    result = bradley_terry(games)
    entries = as_dict(result)
    centred = TRUE - TRUE.mean()
    for name, truth in zip(NAMES, centred):
        e = entries[name]
        assert e.low <= truth <= e.high, (name, truth, e)
        assert e.high - e.low < 60
        assert e.low < e.elo < e.high
    assert sum(e.elo for e in result.ratings) == pytest.approx(0.0, abs=1e-6)
    assert result.agents == tuple(NAMES[::-1])             # best first
    fma = result.first_move_advantage
    assert fma.fitted and fma.low <= WHITE_ADVANTAGE <= fma.high and fma.high - fma.low < 40
    assert result.games == 4000 and result.interval == "hessian"
    assert sum(e.games for e in result.ratings) == 8000
    # scores: points over games, and the points of all agents add up to the number of games
    assert sum(e.score * e.games for e in result.ratings) == pytest.approx(4000)


def test_interval_coverage_and_calibration():
    rng = np.random.default_rng(2024)
    centred = TRUE - TRUE.mean()
    hits = {"hessian": 0, "sandwich": 0}
    fma_hits = 0
    estimates, half_widths = [], []
    reps = 40
    for _ in range(reps):
        games = simulate(rng, 1500)
        for errors in hits:
            result = bradley_terry(games, errors=errors)
            e = as_dict(result)
            hits[errors] += sum(e[n].low <= t <= e[n].high for n, t in zip(NAMES, centred))
            if errors == "sandwich":
                estimates.append([e[n].elo for n in NAMES])
                half_widths.append([(e[n].high - e[n].low) / 2 for n in NAMES])
                fma = result.first_move_advantage
                fma_hits += fma.low <= WHITE_ADVANTAGE <= fma.high
    coverage = {k: v / (5 * reps) for k, v in hits.items()}
    # the Hessian treats a game as a Bernoulli trial: with draws it is conservative
    assert coverage["hessian"] >= 0.93
    assert 0.87 <= coverage["sandwich"] <= 0.995
    assert fma_hits >= 0.85 * reps
    # the sandwich width matches the spread of the estimates over repeated tournaments
    spread = np.std(np.array(estimates), axis=0, ddof=1) * ratings.Z95
    mean_half = np.mean(np.array(half_widths), axis=0)
    assert np.all(np.abs(mean_half / spread - 1) < 0.35), (mean_half, spread)
    # and the estimates are unbiased within a few Elo
    assert np.all(np.abs(np.mean(estimates, axis=0) - centred) < 8)


def test_sandwich_is_narrower_than_hessian_with_many_draws_and_equal_without():
    games = simulate(np.random.default_rng(3), 3000, draw=0.9)
    h = as_dict(bradley_terry(games, errors="hessian"))
    s = as_dict(bradley_terry(games, errors="sandwich"))
    assert all(s[n].high - s[n].low < 0.8 * (h[n].high - h[n].low) for n in NAMES)
    games = simulate(np.random.default_rng(3), 3000, draw=0.0)
    h = as_dict(bradley_terry(games, errors="hessian"))
    s = as_dict(bradley_terry(games, errors="sandwich"))
    assert all(abs((s[n].high - s[n].low) / (h[n].high - h[n].low) - 1) < 0.15 for n in NAMES)


def test_anchor_and_mean_zero_give_the_same_differences():
    games = simulate(np.random.default_rng(4), 2000)
    mean0 = bradley_terry(games)
    anchored = bradley_terry(games, anchor="mcts:simulations=300")
    a, m = as_dict(anchored), as_dict(mean0)
    assert a["mcts:simulations=300"].elo == 0.0
    assert a["mcts:simulations=300"].low == 0.0 == a["mcts:simulations=300"].high
    shift = m["mcts:simulations=300"].elo
    for n in NAMES:
        assert a[n].elo == pytest.approx(m[n].elo - shift, abs=1e-6)
    # anchored intervals are about the difference to the anchor: wider than about the pool mean
    assert a["alphabeta:depth=6"].high - a["alphabeta:depth=6"].low > \
        m["alphabeta:depth=6"].high - m["alphabeta:depth=6"].low
    # LOS depends only on differences, so it does not depend on the reference
    assert np.allclose(anchored.los, mean0.los, atol=1e-9)
    assert anchored.first_move_advantage.as_dict() == pytest.approx(mean0.first_move_advantage.as_dict())
    assert anchored.anchor == "mcts:simulations=300" and mean0.anchor is None


def test_los_matrix():
    games = simulate(np.random.default_rng(6), 600, true=np.array([0.0, 10.0, 300.0]), names=["a", "b", "c"])
    result = bradley_terry(games)
    los = np.array(result.los)
    assert result.agents[0] == "c"
    assert np.allclose(los + los.T, 1.0) and np.allclose(np.diag(los), 0.5)
    assert los[0, 1] > 0.999 and los[0, 2] > 0.999                  # c is clearly the best
    assert 0.05 < los[1, 2] < 0.999                                 # a and b are 10 Elo apart: unsure
    assert np.all(los[np.triu_indices(3, 1)] >= 0.5)                # sorted best first


def test_two_agents_without_prior_equals_the_match_elo():
    rng = np.random.default_rng(8)
    scores = rng.choice([0.0, 0.5, 1.0], size=301, p=[0.3, 0.3, 0.4])
    games = [("A", "B", s) if k % 2 == 0 else ("B", "A", 1 - s) for k, s in enumerate(scores)]
    result = bradley_terry(games, prior_draws=0, first_move=False)
    e = as_dict(result)
    elo, _, _ = match_elo(game_counts(scores))
    assert e["A"].elo - e["B"].elo == pytest.approx(elo, abs=1e-6)
    assert e["A"].score == pytest.approx(scores.mean())
    assert result.first_move_advantage == ratings.FirstMoveAdvantage(0.0, 0.0, 0.0, False)


def test_first_move_advantage_from_colour_balanced_pairs():
    # equal agents; White scores 0.6 by construction
    rng = np.random.default_rng(9)
    games = simulate(rng, 4000, true=np.zeros(3), names=["x", "y", "z"], h=70.0, pairs=True)
    fma = bradley_terry(games).first_move_advantage
    assert fma.low <= 70 <= fma.high
    assert fma.low > 40


def test_perfect_winner_and_loser_stay_finite():
    rng = np.random.default_rng(10)
    games = simulate(rng, 200, true=np.array([0.0, 50.0]), names=["p", "q"])
    games += [("champ", "p", 1.0), ("q", "champ", 0.0)] * 10 + [("p", "dud", 1.0), ("dud", "q", 0.0)] * 10
    result = bradley_terry(games)
    e = as_dict(result)
    for entry in result.ratings:
        assert all(math.isfinite(x) for x in (entry.elo, entry.low, entry.high))
    assert result.agents[0] == "champ" and result.agents[-1] == "dud"
    # 20/20 with one virtual draw: about the performance of 20/21 against p and q
    assert 350 < e["champ"].elo - (e["p"].elo + e["q"].elo) / 2 < 800
    assert e["champ"].score == 1.0 and e["dud"].score == 0.0
    assert np.all(np.isfinite(result.los))
    with pytest.raises(ValueError, match="diverge"):
        bradley_terry(games, prior_draws=0)
    # a two-agent whitewash too, with and without first-move advantage
    for first_move in (True, False):
        whitewash = bradley_terry([("a", "b", 1.0), ("b", "a", 0.0)] * 5, first_move=first_move)
        assert all(math.isfinite(x.elo) for x in whitewash.ratings)
    # every game won by White: the first-move advantage is large but finite
    white_wins = bradley_terry([("a", "b", 1.0), ("b", "a", 1.0)] * 5)
    assert math.isfinite(white_wins.first_move_advantage.elo)
    assert white_wins.first_move_advantage.elo > 200


def test_disconnected_games_raise():
    games = [("a", "b", 1.0), ("b", "a", 0.5), ("c", "d", 0.0), ("d", "c", 1.0)]
    with pytest.raises(ValueError, match="disconnected"):
        bradley_terry(games)


@pytest.mark.parametrize("games, message", [
    ([], "no games"),
    ([("a", "a", 1.0)], "itself"),
    ([("a", "b", 1.5)], r"\[0, 1\]"),
    ([("a", "b")], "expected"),
    ([("a", "b", "win")], "white_score"),
    (["ab1"], "expected"),
])
def test_bradley_terry_bad_games(games, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry(games)


def test_bradley_terry_bad_options():
    games = [("a", "b", 1.0), ("b", "a", 0.5)]
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry(games, anchor="zz")
    with pytest.raises(ValueError, match="bootstrap"):
        bradley_terry(games, bootstrap=-1)
    with pytest.raises(ValueError, match="errors"):
        bradley_terry(games, errors="jackknife")
    with pytest.raises(ValueError, match="prior_draws"):
        bradley_terry(games, prior_draws=-1)


def test_bootstrap_over_pairs():
    games = simulate(np.random.default_rng(12), 2000, pairs=True)
    boot = bradley_terry(games, bootstrap=150, seed=1)
    again = bradley_terry(games, bootstrap=150, seed=1)
    assert boot == again                                            # seeded
    sandwich = bradley_terry(games, errors="sandwich")
    b, s = as_dict(boot), as_dict(sandwich)
    assert boot.interval == "bootstrap" and boot.bootstrap == 150
    centred = TRUE - TRUE.mean()
    for name, truth in zip(NAMES, centred):
        assert b[name].elo == s[name].elo                     # same point estimate
        assert b[name].low < b[name].elo < b[name].high
        ratio = (b[name].high - b[name].low) / (s[name].high - s[name].low)
        assert 0.7 < ratio < 1.4, (name, ratio)
        assert abs(b[name].elo - truth) < b[name].high - b[name].low     # within ~4 sd
    fma = boot.first_move_advantage
    assert fma.low < fma.elo < fma.high
    los = np.array(boot.los)
    assert np.allclose(los + los.T, 1.0)


def test_crosstable_and_text_tables():
    games = [("mcts:simulations=300", "random", 1.0), ("random", "mcts:simulations=300", 0.5),
             ("alphabeta:depth=4", "random", 1.0), ("random", "alphabeta:depth=4", 0.0),
             ("alphabeta:depth=4", "mcts:simulations=300", 0.5), ("mcts:simulations=300", "alphabeta:depth=4", 0.0)]
    table = crosstable(games)
    assert table.agents == ("alphabeta:depth=4", "mcts:simulations=300", "random")
    assert table.points["mcts:simulations=300"]["random"] == 1.5
    assert table.points["random"]["mcts:simulations=300"] == 0.5
    assert table.games["alphabeta:depth=4"]["mcts:simulations=300"] == 2
    assert table.points["alphabeta:depth=4"]["mcts:simulations=300"] == 1.5
    text = format_crosstable(table)
    lines = text.splitlines()
    assert len(lines) == 5
    assert "1.5/2" in lines[2] and "0.5/2" in lines[4]
    # columns aligned: every cell of the "score" column ends where its header ends
    end = lines[0].index("score") + len("score")
    assert [line[end - 1] for line in lines[2:]] == ["%"] * 3

    result = bradley_terry(games)
    text = format_ratings_table(result)
    lines = text.splitlines()
    header = lines[0]
    assert header.split() == ["#", "agent", "Elo", "-95%", "+95%", "games", "score", "LOS", "next"]
    games_end = header.index("games") + len("games")
    for line, entry in zip(lines[2:5], result.ratings):
        assert entry.agent in line
        assert line[:games_end].endswith(str(entry.games))
        assert line[:games_end].rstrip() == line[:games_end]
    assert "first-move advantage" in text and "mean of the agents = 0" in text
    anchored = format_ratings_table(bradley_terry(games, anchor="random"))
    assert "anchor random = 0" in anchored
    with pytest.raises(ValueError):
        format_ratings_table({"x": 1})
    with pytest.raises(ValueError):
        format_crosstable({"x": 1})


def records_from_counts(w, l, d):
    """A W/L/D match of A against B, alternating colours, as result records."""
    records = []
    for k, score in enumerate([1.0] * w + [0.0] * l + [0.5] * d):
        a_white = k % 2 == 0
        white_score = score if a_white else 1.0 - score
        result = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}[white_score]
        records.append({"white": "A" if a_white else "B", "black": "B" if a_white else "A", "result": result})
    return records


def test_rate_records_two_agents_reproduces_the_published_match():
    records = records_from_counts(136, 96, 111)
    records.insert(3, {"white": "A", "black": "B", "result": "*"})
    out = rate_records(records)
    assert out.games == 343 and out.skipped == 1
    match = out.match
    assert match.agent == "A" and match.opponent == "B"
    g = match.per_game
    assert g.counts == (96, 111, 136)
    assert f"{g.elo:.2f} +/- {g.error:.2f} {100 * g.los:.2f}" == "40.70 +/- 30.43 99.60"
    assert (round(g.nelo, 2), round(g.nelo_error, 2)) == (49.77, 36.77)
    assert match.per_pair is None
    assert out.crosstable.points["A"]["B"] == 136 + 111 / 2
    e = as_dict(out.ratings)
    assert e["A"].elo - e["B"].elo == pytest.approx(40.7, abs=3)   # prior and White term move it a little


def test_rate_records_with_pairs():
    rng = np.random.default_rng(13)
    records = []
    pair_scores = []
    for pair in range(150):
        s1, s2 = rng.choice([0.0, 0.5, 1.0], 2, p=[0.25, 0.35, 0.4])
        records.append({"white": "new", "black": "old", "result": {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[s1],
                        "pair": pair})
        records.append({"white": "old", "black": "new", "result": {0.0: "1-0", 0.5: "1/2-1/2", 1.0: "0-1"}[s2],
                        "pair": pair})
        pair_scores += [(pair, s1), (pair, s2)]
    records.append({"white": "new", "black": "old", "result": "1-0", "pair": 150})   # pair cut short
    records.append({"white": "old", "black": "new", "result": "*", "pair": 150})
    out = rate_records(records, anchor="old", bootstrap=50)
    match = out.match
    assert match.incomplete_pairs == 1
    expected = pair_counts(pair_scores)
    assert match.per_pair.counts == tuple(expected) and sum(expected) == 150
    assert match.per_pair.elo == pytest.approx(match_elo(expected)[0])
    assert match.per_game.counts == game_counts([s for _, s in pair_scores] + [1.0])
    assert out.ratings.anchor == "old" and out.ratings.interval == "bootstrap"


def test_rate_records_many_agents_and_bad_records():
    games = simulate(np.random.default_rng(14), 500)
    records = [{"white": w, "black": b, "result": {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[s], "extra": 1}
               for w, b, s in games]
    out = rate_records(records)
    assert out.match is None and len(out.ratings.ratings) == 5
    assert out.ratings.agents == tuple(a.agent for a in bradley_terry(games).ratings)
    with pytest.raises(ValueError, match="result"):
        rate_records([{"white": "a", "black": "b"}])
    with pytest.raises(ValueError, match="no rated games"):
        rate_records([{"white": "a", "black": "b", "result": "*"}])
    with pytest.raises(ValueError):
        rate_records(["1-0"])


def test_ratings_json_round_trips():
    import json

    records = records_from_counts(20, 15, 10)
    records += [{"white": 3, "black": "A", "result": "1-0"}, {"white": "A", "black": 3, "result": "0-1"}]
    out = rate_records(records)
    clean = ratings.ratings_json(out)
    assert json.loads(json.dumps(clean, allow_nan=False)) == clean
    assert clean["crosstable"]["points"]["3"]["A"] == 2.0            # non-string names become keys
    assert clean["ratings"]["ratings"][0]["elo"] == pytest.approx(out.ratings.ratings[0].elo)
    assert ratings.ratings_json({"x": float("inf"), "y": np.float64(1.5), "z": (np.int64(2),)}) == \
        {"x": None, "y": 1.5, "z": [2]}


# ---------------------------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------------------------

def test_plots_write_pngs(tmp_path):
    pytest.importorskip("matplotlib")
    from agents import plots

    games = simulate(np.random.default_rng(15), 300)
    out = rate_records([{"white": w, "black": b, "result": {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[s]}
                        for w, b, s in games])
    for path in (plots.plot_ratings(out, tmp_path / "ratings.png"),
                 plots.plot_ratings(out.ratings, tmp_path / "ratings2.png"),
                 plots.plot_score_matrix(out.crosstable, tmp_path / "scores.png")):
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError):
        plots.plot_ratings({"nope": 1}, tmp_path / "x.png")


def test_plots_without_matplotlib_name_the_extra(monkeypatch):
    import builtins

    from agents import plots

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    table = crosstable([("a", "b", 1.0)])
    with pytest.raises(ImportError, match="plots"):
        plots.plot_score_matrix(table, "never.png")


def test_rate_records_orders_the_crosstable_by_rating_not_by_score():
    # A beats B narrowly, B beats C; D only ever met C and beat it often: D's raw score is the
    # best, but the joint fit puts A and B above D.
    records = []
    def add(w, b, result, n):
        records.extend({"white": w, "black": b, "result": result} for _ in range(n))
    add("A", "B", "1-0", 6); add("B", "A", "1-0", 4)
    add("B", "C", "1-0", 18); add("C", "B", "1-0", 2)
    add("C", "D", "1-0", 4); add("D", "C", "1-0", 16)
    out = rate_records(records)
    assert out.crosstable.agents == tuple(r.agent for r in out.ratings.ratings)
    assert crosstable([(r["white"], r["black"], 1.0 if r["result"] == "1-0" else 0.0)
                       for r in records]).agents[0] == "D"
