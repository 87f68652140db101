"""Match statistics and joint ratings for agents: Elo, nElo, SPRT and Bradley-Terry.

Small pure functions on numbers and plain Python containers, so that results written by any
program (a list of dicts with ``white``, ``black`` and ``result``) can be rated.

Two-agent statistics follow fishtest (``server/fishtest/stats/LLRcalc.py``, ``stat_util.py``) and
fastchess (``matchmaking/elo``, ``matchmaking/sprt/sprt.cpp``):

* counts of length 3 are ``(losses, draws, wins)`` of the first agent, one entry per game;
* counts of length 5 are pentanomial: game pairs (one opening, colours swapped) scored
  ``LL, LD, WL+DD, WD, WW`` = 0, 1/4, 1/2, 3/4, 1 of the pair's two points;
* a zero count is replaced by 1e-3 (fishtest's ``regularize``) so that nothing divides by zero
  or takes ``log(0)``; the published test vectors contain no zeros except where the reference
  programs regularize the same way.

    >>> elo, err, los = match_elo([96, 111, 136])     # L, D, W
    >>> f"{elo:.2f} +/- {err:.2f}, LOS {100 * los:.2f} %"
    '40.70 +/- 30.43, LOS 99.60 %'
    >>> round(sprt_llr([36027, 68692, 36433], 0, 2, "normalized"), 2)
    0.92

Joint ratings (:func:`bradley_terry`) fit ONE logistic (Elo-scale) Bradley-Terry model to all
games at once, with a fitted first-move (White) advantage; see its docstring for the prior used
when an agent won or lost every game.
"""
from __future__ import annotations

import math
from collections import OrderedDict, defaultdict

import numpy as np

__all__ = [
    "match_elo", "normalized_elo", "sprt_llr", "sprt_bounds", "sprt_decision",
    "game_counts", "pair_counts", "bradley_terry", "crosstable",
    "format_ratings_table", "format_crosstable", "rate_records", "ratings_json",
    "elo_to_score", "score_to_elo", "RESULT_SCORES",
]

#: z such that P(|N(0,1)| < z) = 0.95, the value fishtest (Phi_inv(0.975)) and fastchess use.
Z95 = 1.959963984540054
#: normalized Elo per unit of t = (score - 1/2) / sigma (fishtest's ``nelo_divided_by_nt``).
NELO_PER_T = 800.0 / math.log(10.0)
#: d(score)/d(Elo) scale of the logistic curve: score = 1 / (1 + exp(-K * elo)).
K = math.log(10.0) / 400.0
#: What a zero count becomes before any statistic is computed (fishtest and fastchess).
REGULARIZE = 1e-3
#: PGN result of a game -> White's score; any other result (such as "*") is not rated.
RESULT_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------

def _phi(x):
    """Return the standard normal cumulative distribution function at x."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def elo_to_score(elo):
    """Return the expected score 1 / (1 + 10^(-elo/400)) of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-float(elo) / 400.0))


def score_to_elo(score):
    """Return the logistic Elo difference -400 log10(1/s - 1), s clamped to [1e-3, 1 - 1e-3] as fishtest."""
    s = min(max(float(score), REGULARIZE), 1.0 - REGULARIZE)
    return -400.0 * math.log10(1.0 / s - 1.0)


def _counts(counts):
    """Return counts as a list of floats after checking length (3 or 5), sign and finiteness."""
    if isinstance(counts, (str, bytes)):
        raise ValueError("counts must be a sequence of 3 (L, D, W) or 5 (LL, LD, WL+DD, WD, WW) numbers")
    try:
        values = [float(c) for c in counts]
    except (TypeError, ValueError):
        raise ValueError(f"counts must be a sequence of numbers, got {counts!r}") from None
    if len(values) not in (3, 5):
        raise ValueError(f"counts must have length 3 (L, D, W) or 5 (LL, LD, WL+DD, WD, WW), got {len(values)}")
    for v in values:
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"counts must be finite and non-negative, got {values}")
    return values


def _regularized_pdf(counts):
    """Return (total, scores, probabilities) of the regularized counts (zeros become 1e-3)."""
    values = [c if c > 0 else REGULARIZE for c in counts]
    total = sum(values)
    n = len(values)
    scores = [i / (n - 1) for i in range(n)]
    return total, scores, [v / total for v in values]


def _mean_var(scores, probs):
    """Return the mean and variance of a discrete distribution."""
    mu = sum(p * a for a, p in zip(scores, probs))
    return mu, sum(p * (a - mu) ** 2 for a, p in zip(scores, probs))


# ---------------------------------------------------------------------------------------------
# two-agent match statistics
# ---------------------------------------------------------------------------------------------

def match_elo(counts):
    """Return (elo, half_width_95, los) of the first agent from trinomial or pentanomial counts.

    Score mean and variance come from the multinomial; Elo = -400 log10(1/s - 1); the 95 %
    interval is s +/- 1.96 sd(s) mapped through that function and the half width is
    (hi - lo) / 2, as fastchess prints it; LOS = Phi((s - 1/2) / sd(s)) (fishtest's
    ``get_elo``; for W=136 L=96 D=111 this gives fastchess's published 99.60 %, whereas
    Phi((W - L) / sqrt(W + L)) would give 99.57 %).
    """
    total, scores, probs = _regularized_pdf(_counts(counts))
    s, var = _mean_var(scores, probs)
    sd = math.sqrt(var / total)
    elo = score_to_elo(s)
    half = (score_to_elo(s + Z95 * sd) - score_to_elo(s - Z95 * sd)) / 2.0
    return elo, half, _phi((s - 0.5) / sd)


def normalized_elo(counts):
    """Return (nelo, half_width_95) of the first agent from trinomial or pentanomial counts.

    nElo = (s - 1/2) / sigma * 800 / ln 10 with sigma the per-game standard deviation
    (for pairs sigma = sqrt(2 * pair variance), as fishtest and fastchess); the half width maps
    s +/- 1.96 sd(s) the same way.
    """
    values = _counts(counts)
    total, scores, probs = _regularized_pdf(values)
    s, var = _mean_var(scores, probs)
    sigma = math.sqrt(var if len(values) == 3 else 2.0 * var)
    sd = math.sqrt(var / total)
    return (s - 0.5) / sigma * NELO_PER_T, Z95 * sd / sigma * NELO_PER_T


def _secular(a, p):
    """Return x solving sum_i p_i a_i / (1 + x a_i) = 0 on (-1/max a, -1/min a) by bisection."""
    lo_a, hi_a = min(a), max(a)
    if not (lo_a < 0.0 < hi_a):
        raise ValueError("no maximum likelihood distribution with this constraint "
                         "(the SPRT bound is outside what the results can express)")
    lo, hi = -1.0 / hi_a, -1.0 / lo_a          # f(lo+) = +inf, f(hi-) = -inf, f decreasing

    def f(x):
        return sum(pi * ai / (1.0 + x * ai) for ai, pi in zip(a, p))

    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _mle_expected(scores, probs, s):
    """Return the MLE distribution on `scores` with mean s given the empirical `probs`."""
    shifted = [a - s for a in scores]
    x = _secular(shifted, probs)
    return [p / (1.0 + x * a) for a, p in zip(shifted, probs)]


def _mle_t_value(scores, probs, ref, t):
    """Return the MLE distribution on `scores` with (mean - ref) / sd = t given the empirical `probs`."""
    q = [1.0 / len(scores)] * len(scores)
    for _ in range(200):
        mu, var = _mean_var(scores, q)
        sigma = math.sqrt(var)
        phi = [a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in scores]
        x = _secular(phi, probs)
        new = [p / (1.0 + x * f) for f, p in zip(phi, probs)]
        done = max(abs(u - v) for u, v in zip(new, q)) < 1e-12
        q = new
        if done:
            break
    return q


def sprt_llr(counts, elo0, elo1, model="logistic"):
    """Return the generalized SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0).

    As fishtest's ``LLR_logistic`` / ``LLR_normalized``: the maximum-likelihood multinomial under
    each hypothesis (score = L(elo) for "logistic"; t = nelo / (800 / ln 10), times sqrt 2 for
    pairs, for "normalized"), then N * sum p_i log(q1_i / q0_i).
    """
    values = _counts(counts)
    if model not in ("logistic", "normalized"):
        raise ValueError(f"unknown SPRT model {model!r}: use 'logistic' or 'normalized'")
    elo0, elo1 = float(elo0), float(elo1)
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError("elo0 and elo1 must be finite")
    if elo0 >= elo1:
        raise ValueError(f"elo0 must be less than elo1, got [{elo0}, {elo1}]")
    total, scores, probs = _regularized_pdf(values)
    if model == "logistic":
        q0, q1 = (_mle_expected(scores, probs, elo_to_score(e)) for e in (elo0, elo1))
    else:
        scale = 1.0 if len(values) == 3 else math.sqrt(2.0)
        q0, q1 = (_mle_t_value(scores, probs, 0.5, scale * e / NELO_PER_T) for e in (elo0, elo1))
    return total * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, q0, q1))


def _check_alpha_beta(alpha, beta):
    alpha, beta = float(alpha), float(beta)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must be between 0 and 1, got {beta}")
    if alpha + beta >= 1.0:
        raise ValueError(f"alpha + beta must be less than 1, got {alpha + beta}")
    return alpha, beta


def sprt_bounds(alpha=0.05, beta=0.05):
    """Return the SPRT stopping bounds (ln(beta / (1 - alpha)), ln((1 - beta) / alpha))."""
    alpha, beta = _check_alpha_beta(alpha, beta)
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_decision(llr, alpha=0.05, beta=0.05):
    """Return "H1" if llr reached the upper bound, "H0" if it reached the lower one, else None."""
    lower, upper = sprt_bounds(alpha, beta)
    llr = float(llr)
    if math.isnan(llr):
        raise ValueError("llr is NaN")
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


def game_counts(scores):
    """Return (losses, draws, wins) counted from per-game scores in {0, 0.5, 1}."""
    out = [0, 0, 0]
    for s in scores:
        try:
            index = {0.0: 0, 0.5: 1, 1.0: 2}[float(s)]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"a game score must be 0, 0.5 or 1, got {s!r}") from None
        out[index] += 1
    return tuple(out)


def pair_counts(results, skip_incomplete=False):
    """Return the pentanomial counts [LL, LD, WL+DD, WD, WW] from (pair_id, score_of_A) games.

    Each pair id must occur exactly twice (the two games of one opening); with
    ``skip_incomplete=True`` pairs with another number of games are left out instead.
    """
    pairs = defaultdict(list)
    for item in results:
        try:
            pair_id, score = item
        except (TypeError, ValueError):
            raise ValueError(f"each result must be (pair_id, score_of_A), got {item!r}") from None
        pairs[pair_id].append(score)
    out = [0] * 5
    for pair_id, scores in pairs.items():
        if len(scores) != 2:
            if skip_incomplete:
                continue
            raise ValueError(f"pair {pair_id!r} has {len(scores)} game(s), a pair needs exactly 2")
        losses, draws, wins = game_counts(scores)
        out[draws + 2 * wins] += 1
    return out


# ---------------------------------------------------------------------------------------------
# joint Bradley-Terry ratings
# ---------------------------------------------------------------------------------------------

def _parse_games(games):
    """Return a list of (white, black, score, pair_id) after validating every game."""
    rows = []
    for k, game in enumerate(games):
        if isinstance(game, (str, bytes)) or not hasattr(game, "__len__") or len(game) not in (3, 4):
            raise ValueError(f"game {k}: expected (white, black, white_score[, pair_id]), got {game!r}")
        white, black, score = game[0], game[1], game[2]
        pair = game[3] if len(game) == 4 else None
        if white == black:
            raise ValueError(f"game {k}: agent {white!r} plays itself")
        try:
            score = float(score)
        except (TypeError, ValueError):
            raise ValueError(f"game {k}: white_score must be a number in [0, 1], got {score!r}") from None
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"game {k}: white_score must be in [0, 1], got {score}")
        rows.append((white, black, score, pair))
    if not rows:
        raise ValueError("no games to rate")
    return rows


def _components(n, edges):
    """Return the connected components (lists of vertex indices) of an undirected graph."""
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
    groups = OrderedDict()
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _log_sigmoid(z):
    return -np.logaddexp(0.0, -z)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


class _Model:
    """The aggregated data of a fit: one row per ordered (white, black) pair that met."""

    def __init__(self, n, white, black, ref, fit_first_move):
        self.n = n
        design = np.zeros((len(white), n + 1))
        rows = np.arange(len(white))
        design[rows, white] = 1.0
        design[rows, black] = -1.0
        design[:, n] = 1.0
        self.free = [i for i in range(n) if i != ref] + ([n] if fit_first_move else [])
        self.design = design[:, self.free]        # rows: ordered pairs, columns: free parameters

    def loglik(self, theta, weight, points):
        z = K * (self.design @ theta)
        return float(np.sum(points * _log_sigmoid(z) + (weight - points) * _log_sigmoid(-z)))

    def fit(self, weight, points, theta=None, max_iter=200):
        """Newton's method with step halving; return (theta, information matrix) or raise ValueError."""
        a = self.design
        theta = np.zeros(a.shape[1]) if theta is None else theta.copy()
        current = self.loglik(theta, weight, points)
        for _ in range(max_iter):
            p = _sigmoid(K * (a @ theta))
            grad = K * (a.T @ (points - weight * p))
            info = (K * K) * (a.T * (weight * p * (1.0 - p))) @ a
            try:
                step = np.linalg.solve(info, grad)
            except np.linalg.LinAlgError:
                break
            t = 1.0
            while True:
                trial = theta + t * step
                value = self.loglik(trial, weight, points)
                if value >= current - 1e-12 * abs(current) or t < 1e-10:
                    break
                t *= 0.5
            theta, current = trial, value
            if np.max(np.abs(t * step)) < 1e-9:
                p = _sigmoid(K * (a @ theta))
                info = (K * K) * (a.T * (weight * p * (1.0 - p))) @ a
                if np.all(np.isfinite(theta)) and np.max(np.abs(theta)) < 1e5:
                    return theta, info
                break
        raise ValueError("the maximum-likelihood ratings diverge (an agent, or a group of agents, won or "
                         "lost every game against the others); use prior_draws > 0")


def bradley_terry(games, anchor=None, bootstrap=0, seed=0, *, prior_draws=1.0, first_move=True,
                  errors="hessian"):
    """Return joint Elo ratings with 95 % intervals, first-move advantage and a LOS matrix.

    ``games``: iterable of ``(white, black, white_score)`` or ``(white, black, white_score,
    pair_id)``, white_score in [0, 1] (1, 0.5, 0 for a win, draw, loss).

    Model: P(White scores) = 1 / (1 + 10^(-(r_white - r_black + h) / 400)); the likelihood is
    score-weighted (a draw counts as half a win and half a loss), maximised jointly over all
    ratings r and the first-move advantage h (``first_move=False`` fixes h = 0) by Newton's method.
    Ratings are reported with ``anchor`` at 0, or with mean 0 when ``anchor`` is None.

    Prior (so the fit never diverges): every pair of agents that met gets ``prior_draws``
    virtual drawn games (default 1: half a draw with each agent as White), the BayesElo-style
    prior on rating differences (BayesElo uses 2). An agent that won every game therefore gets a
    large but finite rating, about what one draw among its games would give (Ordo's "floor" for
    perfect winners). ``prior_draws=0`` gives the plain MLE and raises ValueError if it diverges.

    Intervals: ``errors="hessian"`` (default) uses the inverse of the observed information (of
    the posterior with the prior above), which treats every game as a Bernoulli trial and so is
    conservative when there are draws; ``errors="sandwich"`` uses the robust H^-1 J H^-1, with
    games of one pair (same pair id and agents) as one cluster; ``bootstrap=n > 0`` refits on n
    resamples of the games (of whole pairs where pair ids are given) and reports percentile
    intervals, with the LOS matrix from the bootstrap covariance. The mean-0 or anchor constraint
    is applied to the covariance by the linear map from the fitted parameters (so the anchor's
    interval is [0, 0] and mean-0 intervals are relative to the pool mean, as in Ordo).

    Returns a dict: ``ratings`` (list, best first, of ``{"agent", "elo", "low", "high", "games",
    "score"}``, score = points / games), ``agents`` (names in that order), ``los`` (``los[i][j]`` =
    P(r_i > r_j) in that order, normal approximation; 0.5 on the diagonal),
    ``first_move_advantage`` (``{"elo", "low", "high", "fitted"}``), ``anchor``, ``interval``
    ("hessian", "sandwich" or "bootstrap"), ``bootstrap``, ``prior_draws``, ``games``,
    ``log_likelihood``. Raises ValueError if the games split into groups that never met.
    """
    rows = _parse_games(games)
    if errors not in ("hessian", "sandwich"):
        raise ValueError(f"errors must be 'hessian' or 'sandwich', got {errors!r}")
    try:
        bootstrap = int(bootstrap)
    except (TypeError, ValueError):
        raise ValueError(f"bootstrap must be a non-negative integer, got {bootstrap!r}") from None
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be a non-negative integer, got {bootstrap}")
    prior_draws = float(prior_draws)
    if not (math.isfinite(prior_draws) and prior_draws >= 0):
        raise ValueError(f"prior_draws must be a finite number >= 0, got {prior_draws}")

    names = list(OrderedDict.fromkeys(x for r in rows for x in r[:2]))
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor {anchor!r} played no game; agents are {names}")

    groups = _components(n, [(index[w], index[b]) for w, b, _, _ in rows])
    if len(groups) > 1:
        described = "; ".join("{" + ", ".join(str(names[i]) for i in g) + "}" for g in groups)
        raise ValueError(f"the games are disconnected: {len(groups)} groups of agents never play "
                         f"each other, so their ratings cannot be compared: {described}")

    # ordered (white, black) pairs, both orientations of every pair that met
    pair_of = {}
    for w, b, _, _ in rows:
        for key in ((index[w], index[b]), (index[b], index[w])):
            pair_of.setdefault(key, len(pair_of))
    white = np.array([k[0] for k in pair_of], dtype=np.intp)
    black = np.array([k[1] for k in pair_of], dtype=np.intp)
    game_pair = np.array([pair_of[(index[w], index[b])] for w, b, _, _ in rows], dtype=np.intp)
    game_score = np.array([r[2] for r in rows])
    m = len(pair_of)
    prior_weight = np.full(m, prior_draws / 2.0)
    prior_points = np.full(m, prior_draws / 4.0)

    ref = index[anchor] if anchor is not None else 0
    model = _Model(n, white, black, ref, first_move)

    def totals(game_weight):
        weight = np.bincount(game_pair, weights=game_weight, minlength=m) + prior_weight
        points = np.bincount(game_pair, weights=game_weight * game_score, minlength=m) + prior_points
        return weight, points

    weight, points = totals(np.ones(len(rows)))
    theta, info = model.fit(weight, points)

    # linear map from the free parameters to reported ratings (anchor or mean 0) and h
    embed = np.zeros((n + 1, len(model.free)))
    embed[model.free, np.arange(len(model.free))] = 1.0
    gauge = np.eye(n) - (np.outer(np.ones(n), np.eye(n)[index[anchor]]) if anchor is not None
                         else np.full((n, n), 1.0 / n))
    to_out = np.zeros((n + 1, n + 1))
    to_out[:n, :n] = gauge
    to_out[n, n] = 1.0
    transform = to_out @ embed                                   # (n + 1) x free
    estimate = transform @ theta

    # clusters for the sandwich and the bootstrap: one per (pair id, agents), else one per game
    cluster_key = {}
    cluster = np.empty(len(rows), dtype=np.intp)
    for g, (w, b, _, pid) in enumerate(rows):
        key = ("pair", pid, frozenset((w, b))) if pid is not None else ("game", g)
        cluster[g] = cluster_key.setdefault(key, len(cluster_key))
    n_clusters = len(cluster_key)

    info_inv = np.linalg.inv(info)
    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        samples = np.empty((bootstrap, n + 1))
        for b in range(bootstrap):
            multiplicity = np.bincount(rng.integers(0, n_clusters, n_clusters), minlength=n_clusters)
            w_b, p_b = totals(multiplicity[cluster].astype(float))
            theta_b, _ = model.fit(w_b, p_b, theta)
            samples[b] = transform @ theta_b
        cov = np.cov(samples, rowvar=False)
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
        interval = "bootstrap"
    else:
        if errors == "sandwich":
            p = _sigmoid(K * (model.design @ theta))
            residual = K * (game_score - p[game_pair])
            per_game = model.design[game_pair] * residual[:, None]
            per_cluster = np.zeros((n_clusters, per_game.shape[1]))
            np.add.at(per_cluster, cluster, per_game)
            cov_free = info_inv @ (per_cluster.T @ per_cluster) @ info_inv
        else:
            cov_free = info_inv
        cov = transform @ cov_free @ transform.T
        half = Z95 * np.sqrt(np.maximum(np.diag(cov), 0.0))
        low, high = estimate - half, estimate + half
        interval = errors

    games_played = np.zeros(n)
    points_won = np.zeros(n)
    for w, b, s, _ in rows:
        games_played[index[w]] += 1
        games_played[index[b]] += 1
        points_won[index[w]] += s
        points_won[index[b]] += 1.0 - s

    order = sorted(range(n), key=lambda i: (-estimate[i], str(names[i])))
    ratings = [{"agent": names[i], "elo": float(estimate[i]), "low": float(low[i]), "high": float(high[i]),
                "games": int(games_played[i]), "score": float(points_won[i] / games_played[i])}
               for i in order]
    los = []
    for i in order:
        line = []
        for j in order:
            if i == j:
                line.append(0.5)
                continue
            var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
            diff = estimate[i] - estimate[j]
            line.append(float(_phi(diff / math.sqrt(var))) if var > 0 else (0.5 if diff == 0 else float(diff > 0)))
        los.append(line)
    if first_move:
        fma = {"elo": float(estimate[n]), "low": float(low[n]), "high": float(high[n]), "fitted": True}
    else:
        fma = {"elo": 0.0, "low": 0.0, "high": 0.0, "fitted": False}
    return {
        "ratings": ratings,
        "agents": [names[i] for i in order],
        "los": los,
        "first_move_advantage": fma,
        "anchor": anchor,
        "interval": interval,
        "bootstrap": bootstrap,
        "prior_draws": prior_draws,
        "games": len(rows),
        "log_likelihood": model.loglik(theta, weight - prior_weight, points - prior_points),
    }


# ---------------------------------------------------------------------------------------------
# cross table, text tables and records
# ---------------------------------------------------------------------------------------------

def crosstable(games):
    """Return {"agents", "points", "games"}: points[a][b] and games[a][b] of a against b, both colours.

    ``agents`` is sorted by overall score (best first, then by name); pairs that never met have
    no entry. ``games`` are (white, black, white_score[, pair_id]) tuples as for bradley_terry.
    """
    rows = _parse_games(games)
    points = defaultdict(lambda: defaultdict(float))
    played = defaultdict(lambda: defaultdict(int))
    for w, b, s, _ in rows:
        points[w][b] += s
        points[b][w] += 1.0 - s
        played[w][b] += 1
        played[b][w] += 1
    names = list(OrderedDict.fromkeys(x for r in rows for x in r[:2]))

    def total(a):
        return sum(points[a].values()) / sum(played[a].values())

    agents = sorted(names, key=lambda a: (-total(a), str(a)))
    return {"agents": agents,
            "points": {a: dict(points[a]) for a in agents},
            "games": {a: dict(played[a]) for a in agents}}


def _ratings_part(result):
    """Accept a bradley_terry result or a rate_records result."""
    if isinstance(result, dict) and "crosstable" in result and isinstance(result.get("ratings"), dict):
        return result["ratings"]
    if not isinstance(result, dict) or "ratings" not in result:
        raise ValueError("expected the dict returned by bradley_terry or rate_records")
    return result


def _table(header, rows, right):
    """Return aligned plain-text lines: columns padded to the widest cell, right-aligned where asked."""
    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(len(header))]

    def line(r):
        cells = [str(v).rjust(w) if right[c] else str(v).ljust(w) for c, (v, w) in enumerate(zip(r, widths))]
        return "  ".join(cells).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def format_ratings_table(result):
    """Return a plain-text table of a bradley_terry (or rate_records) result, best agent first.

    Columns: rank, agent, Elo, the 95 % interval as -/+ distances, games, score %, and
    LOS = P(this agent is stronger than the next one down).
    """
    bt = _ratings_part(result)
    rows = []
    entries = bt["ratings"]
    for k, e in enumerate(entries):
        los_next = f"{100 * bt['los'][k][k + 1]:.1f}%" if k + 1 < len(entries) else ""
        minus, plus = max(e["elo"] - e["low"], 0.0), max(e["high"] - e["elo"], 0.0)
        bars = ["-", "-"] if minus == plus == 0.0 else [f"-{minus:.1f}", f"+{plus:.1f}"]
        rows.append([k + 1, e["agent"], f"{e['elo'] + 0.0:.1f}", *bars, e["games"],
                     f"{100 * e['score']:.1f}%", los_next])
    header = ["#", "agent", "Elo", "-95%", "+95%", "games", "score", "LOS next"]
    lines = _table(header, rows, [True, False, True, True, True, True, True, True])
    fma = bt["first_move_advantage"]
    if fma.get("fitted", True):
        lines.append(f"first-move advantage: {fma['elo']:.1f} Elo (95%: {fma['low']:.1f} .. {fma['high']:.1f})")
    else:
        lines.append("first-move advantage: not fitted (fixed at 0)")
    reference = f"anchor {bt['anchor']} = 0" if bt.get("anchor") is not None else "mean of the agents = 0"
    method = bt.get("interval", "hessian")
    if method == "bootstrap":
        method = f"bootstrap, {bt.get('bootstrap')} resamples"
    lines.append(f"{bt.get('games')} games; ratings relative to {reference}; intervals: {method}; "
                 f"prior: {bt.get('prior_draws', 0):g} virtual draw(s) per pair that met")
    return "\n".join(lines)


def _fmt_points(x):
    return f"{x:.2f}".rstrip("0").rstrip(".")


def format_crosstable(table):
    """Return a plain-text cross table: row agent's points / games against each numbered column agent."""
    if not isinstance(table, dict) or "agents" not in table:
        raise ValueError("expected the dict returned by crosstable")
    agents = table["agents"]
    rows = []
    for k, a in enumerate(agents):
        pts = sum(table["points"].get(a, {}).values())
        n = sum(table["games"].get(a, {}).values())
        row = [k + 1, a, f"{_fmt_points(pts)}/{n}", f"{100 * pts / n:.1f}%" if n else ""]
        for b in agents:
            if b == a:
                row.append("-")
            elif b in table["games"].get(a, {}):
                row.append(f"{_fmt_points(table['points'][a][b])}/{table['games'][a][b]}")
            else:
                row.append("")
        rows.append(row)
    header = ["#", "agent", "points", "score"] + [str(k + 1) for k in range(len(agents))]
    return "\n".join(_table(header, rows, [True, False, True, True] + [True] * len(agents)))


def ratings_json(result):
    """Return a copy of any result of this module made of JSON types only (str keys, finite floats or None)."""
    def clean(x):
        if isinstance(x, dict):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, (bool, np.bool_)) or x is None or isinstance(x, str):
            return bool(x) if isinstance(x, np.bool_) else x
        if isinstance(x, (int, np.integer)):
            return int(x)
        if isinstance(x, (float, np.floating)):
            return float(x) if math.isfinite(x) else None
        return str(x)

    return clean(result)


def _match_stats(counts):
    elo, err, los = match_elo(counts)
    nelo, nerr = normalized_elo(counts)
    return {"counts": [int(c) for c in counts], "elo": elo, "error": err, "los": los,
            "nelo": nelo, "nelo_error": nerr}


def rate_records(records, anchor=None, **options):
    """Return {"ratings", "crosstable", "match", "games", "skipped"} for result records.

    Each record is a dict with ``white``, ``black`` and ``result`` ("1-0", "0-1", "1/2-1/2"; any
    other result, such as "*", is skipped and counted) and optionally ``pair`` (the id shared by
    the two games of one opening). ``ratings`` is the :func:`bradley_terry` result (``options``
    are passed on to it), ``crosstable`` the :func:`crosstable` one with its agents in rating
    order. With exactly two agents, ``match`` holds the statistics of the first agent to appear (as White of the first rated
    record) against the other: ``{"agent", "opponent", "per_game": {...}, "per_pair": {...} or
    None, "incomplete_pairs"}``, each stats dict ``{"counts", "elo", "error", "los", "nelo",
    "nelo_error"}`` (per_pair from the pairs whose two games both finished with colours swapped);
    otherwise ``match`` is None.
    """
    games, skipped = [], 0
    for k, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise ValueError(f"record {k} is not a dict: {rec!r}")
        missing = [key for key in ("white", "black", "result") if key not in rec]
        if missing:
            raise ValueError(f"record {k} has no {', '.join(missing)}")
        score = RESULT_SCORES.get(str(rec["result"]).strip())
        if score is None:
            skipped += 1
            continue
        pair = rec.get("pair")
        games.append((rec["white"], rec["black"], score) + ((pair,) if pair is not None else ()))
    if not games:
        raise ValueError(f"no rated games among {skipped} record(s) (results must be 1-0, 0-1 or 1/2-1/2)")
    fit = bradley_terry(games, anchor=anchor, **options)
    table = crosstable(games)
    # Rows in rating order: in a sparse schedule the raw score says little about strength.
    table["agents"] = [entry["agent"] for entry in fit["ratings"]]
    out = {"ratings": fit, "crosstable": table, "match": None, "games": len(games), "skipped": skipped}
    names = list(OrderedDict.fromkeys(x for g in games for x in g[:2]))
    if len(names) == 2:
        a, b = names
        per_game = [game_counts([g[2] if g[0] == a else 1.0 - g[2] for g in games])[i] for i in range(3)]
        by_pair = defaultdict(list)
        for g in games:
            if len(g) == 4:
                by_pair[g[3]].append(g)
        complete = [(pid, g[2] if g[0] == a else 1.0 - g[2])
                    for pid, gs in by_pair.items() if len(gs) == 2 and {gs[0][0], gs[1][0]} == {a, b}
                    for g in gs]
        n_complete = len(complete) // 2
        incomplete = len(by_pair) - n_complete
        out["match"] = {"agent": a, "opponent": b, "per_game": _match_stats(per_game),
                        "per_pair": _match_stats(pair_counts(complete)) if complete else None,
                        "incomplete_pairs": incomplete}
    return out
