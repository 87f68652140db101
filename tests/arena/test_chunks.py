"""Workers play chunks of slots and the runner writes batches: the chunk sizes, and a worker
killed in the middle of a chunk (its unsent games played again, none recorded twice)."""
import pytest

from agents.records import ReadReport, load_records
from agents.tournament import Tournament
from agents.tournament.workers import ChunkSizer


def test_chunks_hold_one_game_until_timed_then_about_the_target_time_growing_at_most_twofold():
    sizer = ChunkSizer(seconds=0.1, largest=50)
    assert sizer.size() == 1
    sizer.note(1, 0.001)  # fast games: the chunk doubles towards 0.1 s of play, capped at 50
    assert [sizer.size() for _ in range(7)] == [2, 4, 8, 16, 32, 50, 50]
    slow = ChunkSizer(seconds=0.1)
    slow.note(2, 1.0)  # games longer than a chunk's time: one game a chunk
    assert slow.size() == 1
    slow.note(0, 0.0)  # an empty chunk changes nothing
    assert slow.size() == 1


def test_the_in_process_runner_writes_every_game_once_in_batches(tmp_path):
    out = tmp_path / "b.jsonl"
    result = Tournament("flow", ["random", "random:seed=1"], games=60, openings="random:plies=2",
                        seed=3, out=out, workers=0, progress=False).run()
    report = ReadReport()
    records = load_records(out, report=report)
    assert not report.describe() and result.finished == 60
    assert len({r["id"] for r in records}) == 60


@pytest.mark.slow
def test_a_worker_killed_in_a_chunk_loses_no_game_and_records_none_twice(tmp_path, monkeypatch):
    marker = tmp_path / "died"
    monkeypatch.setenv("LUDO_FLOW_TEST_DIES_ONCE", str(marker))
    agents = ["py:own_agents:DiesOnce", "random"]
    settings = dict(games=160, openings="random:plies=2", seed=2, progress=False)
    played = Tournament("flow", agents, out=tmp_path / "w.jsonl", workers=2, **settings).run()
    assert marker.exists()  # a worker died at its 30th game, inside a chunk of several
    report = ReadReport()
    records = load_records(tmp_path / "w.jsonl", report=report)
    assert not report.describe() and played.finished == 160 and len({r["id"] for r in records}) == 160
    assert all(r["termination"] != "forfeit" for r in records)
    # the games played again are the games an uninterrupted run plays
    here = Tournament("flow", agents, out=tmp_path / "h.jsonl", workers=0, **settings).run()
    game = lambda r: (r["moves"], r["result"])  # noqa: E731
    assert {r["id"]: game(r) for r in records} == {r["id"]: game(r) for r in here.records}
