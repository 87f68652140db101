"""The Ray backend's driver loop, without Ray: `run_ray` against a stand-in for `ray` that runs
each task here when its result is asked for, and loses the tasks it is told to lose (as Ray
does once its retries are spent). The games of a lost chunk are played again, one a task, and
written once; the driver keeps a bounded number of chunks in flight; a game lost three times
stops the run, and is the one named; the records equal those of the runner alone."""
from collections import deque
from types import SimpleNamespace

import pytest

import ludo_flow
from agents.records import load_records, without_times
from agents.tournament import Tournament, ray_runner
from agents.tournament.config import TournamentError
from agents.tournament.workers import PREFETCH

FAST = ["random", "random:seed=1"]


class LostTask(Exception):
    """What the stand-in raises for a lost task (a ray.exceptions.RayError)."""


class FakeRay:
    """Enough of `ray` for `run_ray`: tasks run at `get`; `lose(slot ids)` says which chunks
    fail (a chunk holding one of those ids fails, and the id is forgotten unless `always`);
    the games of `other_code` come back as a node with other sources would return them."""

    def __init__(self, cpus, lose=(), always=False, other_code=()):
        self.cpus = cpus
        self.other_code = set(other_code)  # slot ids played by a node that runs other sources
        self.lose = set(lose)
        self.always = always
        self.refs = {}
        self.chunks = []
        self.most_in_flight = 0
        self.exceptions = SimpleNamespace(RayError=LostTask)

    def cluster_resources(self):
        return {"CPU": float(self.cpus)}

    def remote(self, **options):
        def wrap(function):
            def submit(game_spec, slots, move_limit):
                ref = object()
                self.refs[ref] = (function, game_spec, list(slots), move_limit)
                self.chunks.append([slot["id"] for slot in slots])
                self.most_in_flight = max(self.most_in_flight, len(self.refs))
                return ref
            return SimpleNamespace(remote=submit)
        return wrap

    def wait(self, refs, num_returns=1, timeout=None):
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        function, game_spec, slots, move_limit = self.refs.pop(ref)
        lost = self.lose & {slot["id"] for slot in slots}
        if lost:
            if not self.always:
                self.lose -= lost
            raise LostTask(f"the node playing {sorted(lost)} died")
        results, seconds, _ = function(game_spec, slots, move_limit)
        for slot_id, fields in results:
            if slot_id in self.other_code:
                fields["sources"] = "ludo_flow-0.1.0-0123456789abcdef"
        return results, seconds, "10.0.0.7"

    def cancel(self, ref, force=False):
        self.refs.pop(ref, None)


def run_with(fake, tmp_path, monkeypatch, games):
    """Play a tournament's slots through run_ray on `fake`; return (the tournament, what was written)."""
    monkeypatch.setattr(ray_runner, "_import_ray", lambda: fake)
    monkeypatch.setattr(ray_runner, "connect", lambda config, num_cpus=None: False)
    t = Tournament("flow", FAST, games=games, variant="fountain", seed=2, openings="random:plies=2",
                   out=tmp_path / "unused.jsonl", progress=False)
    written = []  # the games run_ray handed the runner to write
    run = SimpleNamespace(config=t.config, game=t.game, workers=2)
    ray_runner.run_ray(run, deque(t.schedule()), lambda results: written.extend(results) and False)
    return t, written


def test_a_lost_chunk_is_played_again_and_written_once(tmp_path, monkeypatch):
    games = 400
    fake = FakeRay(cpus=2, lose=["p0-o20-0", "p0-o50-1"])
    t, written = run_with(fake, tmp_path, monkeypatch, games)
    ids = [slot["id"] for slot, _ in written]
    assert sorted(ids) == sorted(slot["id"] for slot in t.schedule()) and len(set(ids)) == games
    lost_chunks = [chunk for chunk in fake.chunks if {"p0-o20-0", "p0-o50-1"} & set(chunk) and len(chunk) > 1]
    replayed = sum(len(chunk) for chunk in lost_chunks)  # played again one a task
    assert max(len(chunk) for chunk in fake.chunks) > 1, fake.chunks
    assert len(fake.chunks) - replayed < games // 4, fake.chunks
    for lost in ("p0-o20-0", "p0-o50-1"):  # its chunk's games were given again, one a task
        given = [i for i, chunk in enumerate(fake.chunks) if lost in chunk]
        assert len(given) == 2 and fake.chunks[given[1]] == [lost], [fake.chunks[i] for i in given]
        first = fake.chunks[given[0]]
        assert all(fake.chunks.count([slot_id]) >= 1 for slot_id in first), first
    assert fake.most_in_flight <= 2 * PREFETCH and not fake.refs
    here = Tournament("flow", FAST, games=games, variant="fountain", seed=2, openings="random:plies=2",
                      out=tmp_path / "here.jsonl", workers=0, progress=False).run()
    order = {slot["id"]: i for i, slot in enumerate(t.schedule())}
    mine = [without_times(t._record(slot, fields)) for slot, fields in sorted(written, key=lambda w: order[w[0]["id"]])]
    assert mine == [without_times(r) for r in here.records] == [without_times(r) for r in
                                                                 sorted(load_records(here.out), key=lambda r: order[r["id"]])]


def test_a_game_lost_three_times_stops_the_run(tmp_path, monkeypatch):
    fake = FakeRay(cpus=1, lose=["p0-o3-1"], always=True)
    with pytest.raises(TournamentError, match="game p0-o3-1 failed 3 times on Ray"):
        run_with(fake, tmp_path, monkeypatch, games=40)
    assert not fake.refs  # the chunks still in flight were cancelled


def test_a_node_running_other_sources_stops_the_run_in_one_line_keeping_what_was_written(tmp_path, monkeypatch):
    fake = FakeRay(cpus=1, other_code=["p0-o30-1"])
    written = []
    monkeypatch.setattr(ray_runner, "_import_ray", lambda: fake)
    monkeypatch.setattr(ray_runner, "connect", lambda config, num_cpus=None: False)
    t = Tournament("flow", FAST, games=200, variant="fountain", seed=2, out=tmp_path / "unused.jsonl",
                   progress=False)
    run = SimpleNamespace(config=t.config, game=t.game, workers=1)
    with pytest.raises(TournamentError) as refused:
        ray_runner.run_ray(run, deque(t.schedule()), lambda results: written.extend(results) and False)
    message = str(refused.value)
    assert "\n" not in message and "10.0.0.7" in message and "ludo_flow-0.1.0-0123456789abcdef" in message
    assert ludo_flow.cache.sources_id() in message and "--resume" in message
    ids = [slot["id"] for slot, _ in written]
    assert ids and "p0-o30-1" not in ids and len(ids) < 200  # the games of other code are not written
    assert all(fields["sources"] == ludo_flow.cache.sources_id() for _, fields in written)
    assert not fake.refs  # the chunks still in flight were cancelled
