"""Each move's search in the records: the `search` columns, checked by the one schema, shown
by replay, given by load_records, ignored by ratings; records without them stay valid."""
import json

import pytest

import ludo_flow
from agents.cli import main
from agents.movelog import search_entry
from agents.records import (PV_MOVES, RecordError, check_record, load_records, move_search, parse_record,
                            replay_states, without_times)
from agents.tournament import Tournament


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("search") / "ab.jsonl"
    Tournament("flow", ["alphabeta:depth=2", "random"], games=2, openings="random:plies=2", out=out,
               workers=0, progress=False).run()
    return out, load_records(out)


def test_each_move_of_a_searching_agent_has_its_search_aligned_with_the_moves(played):
    _, records = played
    for record in records:
        columns = record["search"]
        assert set(columns) == {"score", "depth", "nodes", "time", "pv"}
        assert all(len(c) == record["plies"] for c in columns.values())
        movers = [state.current_player() for _, _, state in replay_states(record)][:-1]
        for move, entry, mover in zip(record["moves"], move_search(record), movers):
            if record[("white", "black")[mover]] == "random":
                assert entry == {}  # random reports nothing
            elif "pv" in entry:
                assert entry["pv"][0] == move and len(entry["pv"]) <= PV_MOVES
                assert entry["nodes"] >= 0 and entry["time"] >= 0
                assert "score" not in entry or entry["depth"] >= 1  # a forced move: no search
    assert without_times(records[0])["search"].keys() == {"score", "depth", "nodes", "pv"}
    assert "time_white" not in without_times(records[0])


def test_replay_shows_the_search_beside_the_moves_and_ratings_ignore_it(played, capsys):
    out, records = played
    assert main(["replay", str(out), "--game", records[0]["id"]]) == 0
    text = capsys.readouterr().out
    assert "{" in text and "n " in text and " pv " in text
    assert main(["ratings", str(out)]) == 0


def test_records_without_search_stay_valid_and_bad_columns_are_refused():
    old = {"white": "a", "black": "b", "result": "1-0", "moves": ["a3-a4", "h6-h5"], "plies": 2}
    assert check_record(dict(old)) == old
    good = dict(old, search={"score": [0.5, None], "pv": [["a3-a4", "b6-b5"], None]})
    assert move_search(check_record(good)) == [{"score": 0.5, "pv": ["a3-a4", "b6-b5"]}, {}]
    for search in ({"score": [0.5]}, {"score": ["high", None]}, {"depth": [-1, None]},
                   {"pv": [["a3-a4"] * (PV_MOVES + 1), None]}, {"colour": [1, 2]}, [1, 2],
                   {"time": [1e300, None]}):
        with pytest.raises(RecordError, match="search"):
            parse_record(json.dumps(dict(old, search=search)))


def test_what_an_agent_reports_is_read_with_care():
    state = ludo_flow.load_game("flow").new_initial_state()
    legal = state.legal_actions()
    assert search_entry(state, None) == {} and search_entry(state, {"legal_actions": 3}) == {}
    junk = {"score": float("nan"), "depth": "deep", "nodes": True, "pv": [legal[0], -5], "time": -1}
    assert search_entry(state, junk) == {"pv": [state.action_to_string(legal[0])]}
    entry = search_entry(state, {"score": 0.123456789, "depth": 3, "simulations": 10, "time": 0.5})
    assert entry == {"score": 0.12346, "depth": 3, "simulations": 10, "time": 0.5}
