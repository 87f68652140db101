"""Adjudication: the rules (resign, draw, max-plies) from the agents' scores, in the runner, in
the records and in the ratings, and their bad input."""
import pytest

from clitext import messages
from agents.adjudication import Adjudicator, adjudicate_record, parse_adjudication
from agents.cli import main
from agents.records import load_records
from agents.tournament import Tournament, TournamentError

PLAYERS = ["alphabeta:depth=1", "py:own_agents:Greedy"]  # both report scores


def feed(rules, moves):
    """Return the verdict of (side, score) moves, and the ply it came at."""
    judge = Adjudicator(parse_adjudication(rules))
    for ply, (side, score) in enumerate(moves, 1):
        verdict = judge.add(side, score, ply)
        if verdict is not None:
            return verdict
    return None


def test_the_rules_follow_fastchess():
    losing = [(0, 0.1), (1, 0.1), (0, -0.95), (1, 0.9), (0, None), (0, -0.97), (1, 0.2)]
    verdict = feed("resign=0.9,moves=2", losing)  # White's own scores, a forced move skipped
    assert verdict["result"] == "0-1" and verdict["termination"] == "adjudicated_win"
    assert verdict["ply"] == 6 and verdict["scores"]["white"] == [-0.95, -0.97]
    assert feed("resign=0.9,moves=2,twosided", losing) is None  # Black did not agree twice
    assert feed("resign=0.9,moves=2,twosided", losing + [(1, 0.95), (1, 0.95)])["ply"] == 9
    level = [(i % 2, 0.01) for i in range(8)]
    assert feed("draw=0.05,moves=3", level)["ply"] == 6
    assert feed("draw=0.05,moves=3,after=7", level)["ply"] == 7
    assert feed("draw=0.05,moves=3", level[:5] + [(1, 0.3)] + level[6:]) is None
    verdict = feed(["max-plies=4", "draw=0.05,moves=9"], level)
    assert verdict["rule"] == "max_plies" and verdict["result"] == "1/2-1/2" and verdict["ply"] == 4


@pytest.mark.parametrize("words, message", [
    (["resign=abc,moves=3"], "must be a number"),
    (["resign=0.9"], "needs moves=N"),
    (["resign=-1,moves=2"], "must be >= 0"),
    (["draw=0.1,moves=0"], r"in \[1,"),
    (["draw=0.1,moves=2,twosided"], "unknown setting"),
    (["max-plies=ten"], "whole number"),
    (["surrender=1"], "unknown rule"),
    (["max-plies=9", "max-plies=10"], "given twice"),
])
def test_bad_rules_are_one_line_exit_2(words, message, capsys):
    status = main(["tournament", "flow", "--agents", *PLAYERS, "--games", "2", "--quiet",
                   "--workers", "0", "--out", "/nonexistent/never.jsonl", "--adjudicate", *words])
    err = capsys.readouterr().err
    assert status == 2 and len(messages(err)) == 1
    assert __import__("re").search(message, err)


def test_rules_that_read_scores_need_agents_that_report_them(tmp_path):
    with pytest.raises(TournamentError, match="random reports none"):
        Tournament("flow", ["alphabeta:depth=1", "random"], games=2, out=tmp_path / "x.jsonl",
                   adjudicate="draw=0.1,moves=2")
    Tournament("flow", ["alphabeta:depth=1", "random"], games=2, out=tmp_path / "y.jsonl",
               adjudicate=["resign=0.9,moves=2", "max-plies=50"])  # one side's scores are enough


def test_adjudicated_games_are_recorded_rated_and_predicted_from_full_games(tmp_path):
    rules = ["resign=0.3,moves=2", "max-plies=16"]
    common = dict(games=4, openings="random:plies=2", seed=3, workers=0, progress=False)
    Tournament("flow", PLAYERS, out=tmp_path / "full.jsonl", **common).run()
    cut = Tournament("flow", PLAYERS, out=tmp_path / "cut.jsonl", adjudicate=rules, **common).run()
    assert cut.finished == 4 and cut.ratings.crosstable  # adjudicated results are rated
    by_id = {r["id"]: r for r in load_records(tmp_path / "full.jsonl")}
    adjudicated = 0
    for record in load_records(tmp_path / "cut.jsonl"):
        assert record["settings"]["adjudicate"] == parse_adjudication(rules)
        whole = by_id[record["id"]]
        assert record["moves"] == whole["moves"][:record["plies"]]
        predicted = adjudicate_record(whole, rules)
        if record["termination"].startswith("adjudicated_"):
            adjudicated += 1
            assert predicted["ply"] == record["plies"] == record["adjudication"]["ply"]
            assert predicted["result"] == record["result"]
        else:
            assert predicted is None and record["result"] == whole["result"]
    assert adjudicated
    with pytest.raises(TournamentError, match="adjudicate"):  # a resume must match the rules
        Tournament("flow", PLAYERS, out=tmp_path / "cut.jsonl", adjudicate=["max-plies=17"],
                   resume=True, **common).run()
