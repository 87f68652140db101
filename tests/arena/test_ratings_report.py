"""Tests of the ratings reports: what `ludo-flow ratings` and a tournament print, and what they refuse.

The text report holds what the README promises (with two agents: Elo +/- per game and per pair,
LOS and nElo), never prints a negative zero or a raw control character, and says what it
skipped; bad records, an unknown anchor, groups that never met, records of different games and
a --plots folder that cannot be made are refused in one line with exit status 2.
"""
import dataclasses
import json
import math
import re
import warnings

import pytest

from agents import ratings
from agents.cli import main
from agents.ratings import RatingsError, format_report, rate_records
from agents.tournament import TournamentResult

NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(\.0+)?(?![\d.])")
RESULT = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}


def match_records(seq, a="A", b="B", **fields):
    """Records of a two-agent match: game k has `a` as White when k is even; pairs of two games."""
    out = []
    for k, result in enumerate(seq):
        white, black = (a, b) if k % 2 == 0 else (b, a)
        out.append({"white": white, "black": black, "result": result, "pair": f"p{k // 2}", **fields})
    return out


def golden_records():
    """A fixed two-agent match with pairs, three games against a third agent and an unfinished one."""
    seq = "1-0 0-1 1/2-1/2 1-0 1-0 1/2-1/2 0-1 1-0 1/2-1/2 1-0 0-1 1-0".split()
    records = match_records(seq)
    records += [{"white": "B", "black": "C", "result": r} for r in ("1-0", "1/2-1/2", "0-1", "0-1")]
    records += [{"white": "A", "black": "B", "result": "*", "pair": "p9"}]
    return records


def write(path, records):
    """Write records as a JSON Lines file; return its name."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def run(capsys, *argv):
    """Return (exit status, stdout, stderr) of `ludo-flow ARGV`."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys, *argv):
    """Return the one error line of a command that must exit 2 with it (and print nothing else)."""
    status, out, err = run(capsys, *argv)
    assert status == 2, (status, out, err)
    assert out == "" and err.startswith("ludo-flow: error: ") and err.count("\n") == 1, err
    return err


def close(a, b):
    """Return whether two JSON values are equal, floats to 1e-9 relative."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and not isinstance(b, bool):
        return isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


# ---------------------------------------------------------------------------------------------
# what the README promises
# ---------------------------------------------------------------------------------------------

def test_the_text_report_of_two_agents_shows_elo_los_and_nelo_per_game_and_per_pair(tmp_path, capsys):
    path = write(tmp_path / "m.jsonl", [r for r in golden_records() if "C" not in (r["white"], r["black"])])
    status, out, _ = run(capsys, "ratings", path)
    assert status == 0
    assert "A against B:" in out
    assert "per game: 3 won, 3 drawn, 6 lost: Elo -88.7 +/- 196.1, LOS 14.8%, nElo -104.8 +/- 196.6" in out
    assert ("per pair: 6 pairs (LL 2, LD 2, WL+DD 0, WD 1, WW 1): Elo -88.7 +/- 281.7, LOS 20.7%, "
            "nElo -81.9 +/- 196.6") in out
    # the same block as the JSON's match
    status, text, _ = run(capsys, "ratings", path, "--json")
    match = json.loads(text)["match"]
    assert f"+/- {match['per_pair']['error']:.1f}" in out and f"LOS {100 * match['per_game']['los']:.1f}%" in out


def test_a_two_agent_tournament_report_shows_the_match_with_its_sprt(tmp_path):
    records = match_records(["1-0", "0-1", "1-0", "1/2-1/2"], a="alphabeta:depth=2", b="random")
    sprt = {"elo0": 0.0, "elo1": 100.0, "alpha": 0.05, "beta": 0.05, "model": "normalized",
            "llr": 0.4, "lower": -2.944, "upper": 2.944, "pairs": [0, 1, 0, 1, 0], "decision": None}
    result = TournamentResult(ratings=rate_records(records), sprt=sprt, out="t.jsonl", total=10, finished=len(records))
    text = result.report()
    assert text.startswith(format_report(rate_records(records)))   # one report, both commands
    assert "alphabeta:depth=2 against random:" in text
    assert "per game: 3 won, 1 drawn, 0 lost: Elo" in text and "per pair: 2 pairs" in text
    assert "SPRT [0, 100] (normalized, pairs [0, 1, 0, 1, 0]): LLR 0.400" in text
    assert text.endswith("4 of 10 games recorded in t.jsonl")


def test_records_written_before_rate_to_the_same_json():
    # `ludo-flow ratings --json` of these records, computed before ratings became a package
    before = json.loads(
        '{"ratings": [{"agent": "C", "elo": 114.24178084963859, "low": -131.55595641575152, "high": '
        '360.0395181150287, "games": 4, "score": 0.625}, {"agent": "B", "elo": -14.595532408587912, '
        '"low": -146.61525835279093, "high": 117.42419353561512, "games": 16, "score": 0.5625}, {"agent": '
        '"A", "elo": -99.64624844105063, "low": -280.0253151036228, "high": 80.73281822152157, "games": 12, '
        '"score": 0.375}], "first_move_advantage": {"elo": 71.15959622163638, "low": -117.18772701112576, '
        '"high": 259.5069194543985, "fitted": true}, "anchor": null, "los": {"agents": ["C", "B", "A"], '
        '"matrix": [[0.5, 0.7641004718458492, 0.8464498776089808], [0.23589952815415083, 0.5, '
        '0.7991474818564402], [0.1535501223910192, 0.20085251814355973, 0.5]]}, "crosstable": {"agents": '
        '["C", "B", "A"], "points": {"C": {"B": 2.5}, "B": {"A": 7.5, "C": 1.5}, "A": {"B": 4.5}}, "games": '
        '{"C": {"B": 4}, "B": {"A": 12, "C": 4}, "A": {"B": 12}}}, "match": null, "games": 16, "skipped": 1}')
    assert close(before, ratings.report_json(rate_records(golden_records())))


# ---------------------------------------------------------------------------------------------
# the typed results
# ---------------------------------------------------------------------------------------------

def test_results_are_frozen_dataclasses_and_dict_reading_is_deprecated():
    rated = rate_records(golden_records())
    fit = rated.ratings
    assert isinstance(fit, ratings.BradleyTerryFit) and isinstance(fit.ratings[0], ratings.AgentRating)
    assert fit.ratings[0].agent == "C" and fit.agents == ("C", "B", "A") and fit.games == 16
    assert isinstance(fit.first_move_advantage, ratings.FirstMoveAdvantage) and fit.first_move_advantage.fitted
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.ratings[0].elo = 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        rated.games = 0
    with pytest.warns(DeprecationWarning, match=r"\.ratings"):
        old_style = fit["ratings"]
    assert old_style[0] == fit.ratings[0].as_dict() == dataclasses.asdict(fit.ratings[0])
    with pytest.warns(DeprecationWarning):
        assert "crosstable" in rated
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rated.as_dict()["skipped_results"] == {"*": 1}


# ---------------------------------------------------------------------------------------------
# never a negative zero
# ---------------------------------------------------------------------------------------------

def test_no_negative_zero_in_any_report(tmp_path, capsys):
    # these four games fit a first-move advantage of -1.8e-14 Elo, printed "-0.0" before
    records = [{"white": "a", "black": "b", "result": r} for r in ("1-0", "1/2-1/2")]
    records += [{"white": "b", "black": "a", "result": r} for r in ("1/2-1/2", "0-1")]
    records = [records[0], records[2], records[1], records[3]]
    assert -0.05 < rate_records(records).ratings.first_move_advantage.elo < 0
    status, out, _ = run(capsys, "ratings", write(tmp_path / "z.jsonl", records))
    assert status == 0 and "first-move advantage: 0.0 Elo" in out
    assert not NEGATIVE_ZERO.search(out), out
    sprt = {"elo0": -0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "model": "normalized",
            "llr": -0.0001, "lower": -2.944, "upper": 2.944, "pairs": [0, 0, 1, 0, 0], "decision": None}
    text = TournamentResult(ratings=rate_records(records), sprt=sprt, out="z.jsonl", total=4, finished=len(records)).report()
    assert "SPRT [0, 5]" in text and "LLR 0.000 in" in text
    assert not NEGATIVE_ZERO.search(text), text
    # equal agents: every match statistic is about zero
    even = match_records(["1-0", "0-1", "1/2-1/2", "1/2-1/2"])
    assert not NEGATIVE_ZERO.search(format_report(rate_records(even)))


def test_fixed_never_returns_a_negative_zero():
    assert [ratings.fixed(x) for x in (-0.0, -1e-14, -0.04, -0.05, 0.04, -1.25)] == \
        ["0.0", "0.0", "0.0", "-0.1", "0.0", "-1.2"]
    assert ratings.fixed(-0.0004, 3) == "0.000" and ratings.fixed(float("nan")) == "nan"


# ---------------------------------------------------------------------------------------------
# control characters
# ---------------------------------------------------------------------------------------------

def test_control_characters_in_names_and_results_are_printed_escaped(tmp_path, capsys):
    evil = "\x1b]0;TITLE\x07"
    records = match_records(["1-0", "0-1", "1/2-1/2", "1-0"], a=evil, b="ok\u202etxt")
    records.append({"white": evil, "black": "ok\u202etxt", "result": "\x1b[2J", "pair": "p9",
                    "sources": "ludo_flow-\x1b[31m"})
    path = write(tmp_path / "e.jsonl", records)
    status, out, err = run(capsys, "ratings", path)
    assert status == 0
    for text in (out, err):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b]0;TITLE\\x07" in out and "ok\\u202etxt" in out
    assert out.count("\\x1b]0;TITLE\\x07") >= 3            # crosstable, ratings table, match block
    assert "'\\x1b[2J'" in out                              # the skipped result
    assert "\\x1b[31m" in err                               # the sources named on stderr
    err = refused(capsys, "ratings", write(tmp_path / "f.jsonl", records[:4]), "--anchor", "\x1bX")
    assert "\x1b" not in err and "\\x1b]0;TITLE\\x07" in err
    report = TournamentResult(ratings=rate_records(records), sprt=None, out="e.jsonl", total=5, finished=len(records)).report()
    assert "\x1b" not in report and "\u202e" not in report


# ---------------------------------------------------------------------------------------------
# what the report skipped
# ---------------------------------------------------------------------------------------------

def test_the_text_report_says_what_it_skipped_and_why(tmp_path, capsys):
    records = match_records(["1-0", "0-1", "*", "1/2-1/2", "2-0", "*"])
    path = write(tmp_path / "s.jsonl", records)
    status, out, _ = run(capsys, "ratings", path)
    assert status == 0
    assert ("3 record(s) skipped, not a finished game (results must be 1-0, 0-1 or 1/2-1/2): "
            "2 with result '*', 1 with result '2-0'") in out
    status, text, _ = run(capsys, "ratings", path, "--json")
    assert json.loads(text)["skipped"] == 3
    status, out, _ = run(capsys, "ratings", write(tmp_path / "t.jsonl", records[:2]))
    assert "skipped" not in out


# ---------------------------------------------------------------------------------------------
# refused in one line
# ---------------------------------------------------------------------------------------------

def test_an_unknown_anchor_is_refused_naming_the_agents(tmp_path, capsys):
    path = write(tmp_path / "a.jsonl", golden_records())
    err = refused(capsys, "ratings", path, "--anchor", "zz")
    assert "anchor 'zz' played no game; the agents are A, B, C" in err
    with pytest.raises(RatingsError, match="the agents are A, B, C"):
        rate_records(golden_records(), anchor=["unhashable"])


def test_groups_that_never_met_are_refused_naming_the_groups(tmp_path, capsys):
    records = match_records(["1-0", "0-1"]) + match_records(["1-0", "1/2-1/2"], a="C", b="D")
    err = refused(capsys, "ratings", write(tmp_path / "d.jsonl", records))
    assert "2 groups of agents never play each other" in err and "{A, B}; {C, D}" in err
    assert "rate each group apart" in err


def test_records_of_different_games_or_variants_are_never_pooled(tmp_path, capsys):
    flow = match_records(["1-0", "0-1"], game="flow", variant="standard", params={"max_turns": 200})
    stones = match_records(["1-0", "0-1"], game="flow", variant="stones", params={"max_turns": 200})
    tolkuchka = match_records(["1-0", "0-1"], game="tolkuchka", variant="standard",
                              params={"max_plies": 400, "quiet_plies": 50})
    longer = match_records(["1-0", "0-1"], game="flow", variant="standard", params={"max_turns": 300})
    a = write(tmp_path / "a.jsonl", flow)
    for other, label in ((tolkuchka, "tolkuchka standard max_plies=400 quiet_plies=50"),
                         (stones, "flow stones max_turns=200"), (longer, "flow standard max_turns=300")):
        b = write(tmp_path / "b.jsonl", other)
        err = refused(capsys, "ratings", a, b)
        assert f"{a}: flow standard max_turns=200 (2 records)" in err and f"{b}: {label} (2 records)" in err
        # one file that mixes them
        err = refused(capsys, "ratings", write(tmp_path / "mixed.jsonl", flow + other))
        assert "the records mix 2 games or rule sets" in err and label in err
    assert run(capsys, "ratings", a, a)[0] == 0            # two files of one game pool


def test_a_plots_folder_that_cannot_be_made_is_refused(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = write(tmp_path / "p.jsonl", golden_records())
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    for folder in (a_file, a_file / "sub"):
        err = refused(capsys, "ratings", path, "--plots", str(folder))
        assert "--plots" in err and str(folder) in err
    assert a_file.read_text() == "not a folder"
    # a tournament refuses it before any game: no records file is made
    out = tmp_path / "t.jsonl"
    err = refused(capsys, "tournament", "flow", "--agents", "random", "random:seed=1", "--games", "2",
                  "--workers", "0", "--quiet", "--out", str(out), "--plots", str(a_file))
    assert "--plots" in err and not out.exists()


@pytest.mark.parametrize("record, message", [
    ("1-0", "record 1 is a string, not an object"),
    ({"white": "A", "black": "B"}, "record 1 has no result"),
    ({"white": None, "black": "B", "result": "1-0"}, "record 1: white must be an agent's name"),
    ({"white": "A", "black": {"x": 1}, "result": "1-0"}, "record 1: black must be an agent's name"),
    ({"white": ["A"], "black": "B", "result": "1-0"}, "record 1: white must be an agent's name"),
    ({"white": 10 ** 5000, "black": "B", "result": "1-0"}, "record 1: white"),
    ({"white": True, "black": "B", "result": "1-0"}, "record 1: white"),
    ({"white": "A", "black": "A", "result": "1-0"}, "record 1: agent 'A' plays itself"),
    ({"white": "A", "black": "B", "result": 5}, "record 1: result must be a string"),
    ({"white": "A", "black": "B", "result": float("nan")}, "record 1: result must be a string"),
    ({"white": "A", "black": "B", "result": ["1-0"]}, "record 1: result must be a string"),
    ({"white": "A", "black": "B", "result": "1-0", "pair": [1]}, "record 1: pair must be"),
])
def test_a_malformed_record_is_refused_naming_its_index(record, message):
    good = {"white": "B", "black": "A", "result": "0-1"}
    with pytest.raises(RatingsError, match=re.escape(message)):
        rate_records([good, record])


def test_a_malformed_record_in_a_file_is_refused_in_one_line(tmp_path, capsys):
    for bad in ({"white": None, "black": "B", "result": "1-0"}, {"white": {"a": 1}, "black": "B", "result": "1-0"},
                {"white": "A", "black": "B", "result": [1]}):
        path = write(tmp_path / "bad.jsonl", match_records(["1-0", "0-1"]) + [bad])
        err = refused(capsys, "ratings", path)
        assert "bad.jsonl:3:" in err  # the records file's line (the schema of agents.records)


def test_statistics_refuse_what_is_not_a_number_with_a_ratings_error():
    for call in (lambda: ratings.sprt_llr([1, 2, 3], "x", 2), lambda: ratings.sprt_bounds(10 ** 400, 0.1),
                 lambda: ratings.match_elo([10 ** 400, 1, 1]), lambda: ratings.game_counts([10 ** 400]),
                 lambda: ratings.bradley_terry([("a", "b", 10 ** 400)]),
                 lambda: ratings.bradley_terry([("a", {}, 1.0)]),
                 lambda: ratings.bradley_terry([("a", "b", 1.0)], bootstrap=float("inf"))):
        with pytest.raises(RatingsError):
            call()
    assert ratings.elo_to_score(-10 ** 6) == 0.0 and ratings.elo_to_score(10 ** 6) == 1.0
