"""The solved rule of adjudication: a Flow game ends once df-pn proves its value within a node
budget; the recorded result is the solver's value, rated and replayed as any other; bad input."""
import re

import pytest

from clitext import messages
from agents.adjudication import adjudicate_record, parse_adjudication
from agents.cli import main
from agents.records import load_records, state_at
from agents.tournament import Tournament, TournamentError
from ludo_flow.solve import solve

FOUR_BY_FOUR = "p1p1/p1p1/P1P1/P1P1 w 1 - 0"   # White wins in 7 turns (experiments/solved)
PLAYERS = ["random", "alphabeta:depth=1"]


def expected_result(record):
    """Return the result df-pn (a fresh table, no node budget) gives the record's last position."""
    state = state_at(record)
    value = solve(state, memory=16 << 20)[0].value
    if value == "draw":
        return "1/2-1/2"
    winner = state.current_player() if value == "win" else 1 - state.current_player()
    return ("1-0", "0-1")[winner]


def tournament(tmp_path, name, max_turns, rules=("solved",), **extra):
    common = dict(games=4, openings="random:plies=3", seed=5, workers=0, progress=False,
                  position=FOUR_BY_FOUR, params={"max_turns": max_turns})
    common.update(extra)
    return Tournament("flow", PLAYERS, out=tmp_path / name, adjudicate=list(rules), **common).run()


@pytest.mark.parametrize("max_turns,results", [(7, {"1-0", "0-1"}), (3, {"1/2-1/2"})])
def test_games_end_with_the_solvers_value(tmp_path, capsys, max_turns, results):
    """Wins (7 turns) and draws (3) alike end with the termination `solved`."""
    run = tournament(tmp_path, "cut.jsonl", max_turns)
    assert run.finished == 4 and run.ratings.crosstable  # adjudicated results are rated
    records = load_records(tmp_path / "cut.jsonl")
    assert {r["termination"] for r in records} == {"solved"}  # its own, for wins and draws
    assert {r["result"] for r in records} & results
    for record in records:
        judged = record["adjudication"]
        assert judged["rule"] == "solved" and judged["ply"] == record["plies"] and judged["nodes"] >= 1
        assert record["result"] == expected_result(record)
        assert record["settings"]["adjudicate"] == parse_adjudication(["solved"])
    assert main(["ratings", str(tmp_path / "cut.jsonl")]) == 0
    assert main(["replay", str(tmp_path / "cut.jsonl"), "--game", records[0]["id"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3].startswith("# adjudicated by the solved rule at ply") and lines[-2:] == [
        "# solved", records[0]["result"]]


def test_a_budget_too_small_lets_games_run_and_predictions_match(tmp_path):
    """With one node a search nothing deep is proven: games run on and end by the rules (or when
    the end is one decision away); `adjudicate_record` predicts every cut from the full game."""
    tournament(tmp_path, "full.jsonl", 7, rules=("max-plies=1000",))
    tournament(tmp_path, "cut.jsonl", 7, rules=("solved,nodes=1",))
    by_id = {r["id"]: r for r in load_records(tmp_path / "full.jsonl")}
    cut = load_records(tmp_path / "cut.jsonl")
    assert {r["termination"] == "solved" for r in cut} == {True, False}
    for record in cut:
        whole = by_id[record["id"]]
        assert record["moves"] == whole["moves"][:record["plies"]]
        predicted = adjudicate_record(whole, ["solved,nodes=1"])
        if record["termination"] == "solved":
            assert (predicted["ply"], predicted["result"]) == (record["plies"], record["result"])
            assert record["result"] == expected_result(record)
        else:
            assert predicted is None and record["result"] == whole["result"]


def test_the_rule_round_trips_and_resumes(tmp_path):
    rules = parse_adjudication(["solved,nodes=500", "max-plies=40"])
    assert rules == {"solved": {"nodes": 500}, "max_plies": 40}
    assert parse_adjudication(rules) == rules
    assert parse_adjudication("solved") == {"solved": {"nodes": 20_000}}
    tournament(tmp_path, "a.jsonl", 7, games=2)
    again = tournament(tmp_path, "a.jsonl", 7, games=2, resume=True)
    assert again.finished == 2
    with pytest.raises(TournamentError, match="adjudicate"):
        tournament(tmp_path, "a.jsonl", 7, rules=("solved,nodes=99",), games=2, resume=True)


def test_records_of_the_solved_rule_written_before_its_termination_still_work(tmp_path, capsys):
    """Such records say adjudicated_win / adjudicated_draw with the rule solved: they read, rate,
    replay, show in the viewer and resume, beside new ones."""
    from agents.records import record_line
    from agents.viewer.frames import page_data
    tournament(tmp_path, "a.jsonl", 7, games=4)
    old = load_records(tmp_path / "a.jsonl")[:2]  # the other two are played again on resume
    for record in old:
        record["termination"] = "adjudicated_draw" if record["result"] == "1/2-1/2" else "adjudicated_win"
    (tmp_path / "a.jsonl").write_text("".join(record_line(r) for r in old))
    again = tournament(tmp_path, "a.jsonl", 7, games=4, resume=True)
    assert again.finished == 4 and again.ratings.crosstable
    records = load_records(tmp_path / "a.jsonl")
    assert [r["termination"] for r in records] == ["adjudicated_win"] * 2 + ["solved"] * 2
    assert all(r["adjudication"]["rule"] == "solved" for r in records)
    assert main(["ratings", str(tmp_path / "a.jsonl")]) == 0
    assert "random" in capsys.readouterr().out
    assert main(["replay", str(tmp_path / "a.jsonl"), "--game", records[0]["id"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3].startswith("# adjudicated by the solved rule") and lines[-2] == "# adjudicated_win"
    assert {g["info"]["termination"] for g in page_data(records)["games"]} == {"adjudicated_win", "solved"}


def test_tolkuchka_is_refused(tmp_path):
    with pytest.raises(TournamentError, match="needs the Flow solver; tolkuchka has none"):
        Tournament("tolkuchka", PLAYERS, games=2, out=tmp_path / "t.jsonl", adjudicate=["solved"])


@pytest.mark.parametrize("game,words,message", [
    ("flow", ["solved=3"], "takes no value"),
    ("flow", ["solved,nodes=0"], r"in \[1,"),
    ("flow", ["solved,nodes=many"], "whole number"),
    ("flow", ["solved,depth=3"], "unknown setting 'depth'"),
    ("flow", ["solved,nodes=5,nodes=6"], "given twice"),
    ("flow", ["solved", "solved,nodes=9"], "given twice"),
    ("tolkuchka", ["solved"], "needs the Flow solver"),
])
def test_bad_input_is_one_line_exit_2(game, words, message, capsys):
    status = main(["tournament", game, "--agents", *PLAYERS, "--games", "2", "--quiet",
                   "--workers", "0", "--out", "/nonexistent/never.jsonl", "--adjudicate", *words])
    err = capsys.readouterr().err
    assert status == 2 and len(messages(err)) == 1
    assert re.search(message, err), err


def test_the_command_line_adjudicates_solved(tmp_path, capsys):
    out = tmp_path / "cli.jsonl"
    status = main(["tournament", "flow", "--agents", *PLAYERS, "--games", "2", "--quiet", "--workers", "0",
                   "--position", FOUR_BY_FOUR, "--param", "max_turns=7", "--adjudicate", "solved,nodes=5000",
                   "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    for record in load_records(out):
        assert record["adjudication"]["rule"] == "solved"
        assert record["result"] == expected_result(record)
