"""The tournament runner: schedules, records, reproducibility, resume after kills, faults, SPRT, Ray."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import ludo_flow
from agents import registry
from agents.base import BaseAgent
from agents.play import play_game
from agents.records import ReadReport, load_records, replay_states, state_at, without_times


def read_records(path):
    """Return (records, numbers of cut last lines) of a file."""
    report = ReadReport()
    return load_records(path, report=report), [n for _, n in report.cut]
from agents.tournament import DEFAULT_OPENINGS, Tournament, derive_seed, parse_sprt, random_opening

FAST = ["random", "random:seed=1"]


def strip_times(records):
    """Return the records without the thinking times (which differ run to run)."""
    return [without_times(r) for r in records]


# ---- schedules ----------------------------------------------------------------------------
def test_round_robin_schedule_is_complete_and_balanced(tmp_path):
    agents = ["random", "mcts:simulations=10", "alphabeta:depth=1"]
    t = Tournament("flow", agents, games=6, openings="random:plies=3", seed=4,
                   out=tmp_path / "x.jsonl", workers=0, progress=False)
    slots = t.schedule()
    assert len(slots) == 3 * 6 and len({s["id"] for s in slots}) == len(slots)
    for a in agents:
        for b in agents:
            if a == b:
                continue
            games = [s for s in slots if s["white"] == a and s["black"] == b]
            assert len(games) == 3, (a, b)  # half the pairing's games with each colour
    pairs = {}
    for s in slots:
        pairs.setdefault(s["pair"], []).append(s)
    assert len(pairs) == 3 * 3
    for two in pairs.values():
        first, second = two
        assert (first["white"], first["black"]) == (second["black"], second["white"])
        assert first["opening"] == second["opening"] and len(first["opening"]) == 3
    assert len({tuple(s["opening"]) for s in slots}) == 3  # three different openings
    # The same opening is used by every pairing in its round.
    assert {tuple(s["opening"]) for s in slots if s["id"].endswith("-o0-0")} == {tuple(slots[0]["opening"])}


def test_gauntlet_schedule_pairs_one_agent_with_each_other(tmp_path):
    t = Tournament("tolkuchka", ["random", "mcts:simulations=10"], gauntlet="alphabeta:depth=1",
                   games=2, out=tmp_path / "x.jsonl", workers=0, progress=False)
    assert t.pairings() == [("alphabeta:depth=1", "random"), ("alphabeta:depth=1", "mcts:simulations=10")]
    slots = t.schedule()
    assert len(slots) == 4
    assert all("alphabeta:depth=1" in (s["white"], s["black"]) for s in slots)
    # Without openings every game starts from the start, and the agents' seeds differ per game.
    assert all(s["opening"] == [] for s in slots)
    assert len({(s["seed_white"], s["seed_black"]) for s in slots}) == 4


def test_same_seed_same_schedule_other_seed_other_openings(tmp_path):
    def slots(seed):
        return Tournament("flow", FAST, games=4, openings="random:plies=4", seed=seed,
                          out=tmp_path / "x.jsonl", workers=0, progress=False).schedule()
    assert list(slots(3)) == list(slots(3))
    assert [s["opening"] for s in slots(3)] != [s["opening"] for s in slots(4)]


@pytest.mark.parametrize("game", ["flow", "tolkuchka"])
def test_random_turns_give_each_side_the_same_number_of_whole_turns(game):
    g = ludo_flow.load_game(game)
    for k in range(20):
        for turns in (1, 2):
            words = random_opening(g.new_initial_state(), turns, derive_seed(k), "turns")
            state = g.new_initial_state()
            movers = []
            for word in words:
                movers.append(state.current_player())
                state.apply(state.parse_action(word))
            # The player to move changed exactly 2 x turns times, and the starting player's
            # turn begins where the opening ends.
            changes = sum(a != b for a, b in zip(movers, movers[1:] + [state.current_player()]))
            assert changes == 2 * turns and state.current_player() == movers[0], (k, words)
            assert not state.is_terminal()
    # Tolkuchka's turn is one decision: turns=K is plies=2K, move for move.
    if game == "tolkuchka":
        start = g.new_initial_state()
        assert random_opening(start, 1, 7, "turns") == random_opening(start, 2, 7, "plies")
    with pytest.raises(ValueError, match="plies or turns"):
        random_opening(g.new_initial_state(), 1, 7, "moves")


def test_default_openings_are_one_random_turn_each(tmp_path):
    t = Tournament("flow", FAST, games=8, openings=DEFAULT_OPENINGS, seed=3,
                   out=tmp_path / "x.jsonl", workers=0, progress=False)
    lengths = {len(s["opening"]) for s in t.schedule()}
    assert DEFAULT_OPENINGS == "random:turns=1" and max(lengths) >= 4  # two steps a turn in Flow
    assert t.settings()["openings"] == "random:turns=1"


@pytest.mark.parametrize("kwargs, words", [
    (dict(games=3), "even"),
    (dict(games=0), "even"),
    (dict(agents=["random"]), "two agents"),
    (dict(agents=["random", "human"]), "human"),
    (dict(agents=["random", "random:seed=0"]), "same agent"),
    (dict(agents=["random", "nosuch"]), "unknown agent"),
    (dict(agents=["random", "mcts:c=oops"]), "float"),
    (dict(openings="random:moves=3"), "random:plies=K or random:turns=K"),
    (dict(openings="random:turns"), "random:turns=K"),
    (dict(openings="random:plies=-1"), "0 <= K"),
    (dict(openings="random:turns=x"), "integer"),
    (dict(openings="random:turns=101"), "0 <= K <= 100"),
    (dict(openings="/no/such/file"), "cannot read"),
    (dict(agents=["random", "random:seed=1", "random:seed=2"], sprt="elo0=0,elo1=5"), "two agents"),
    (dict(sprt="elo0=5,elo1=0"), "elo0 < elo1"),
    (dict(sprt="elo0=0"), "elo1"),
    (dict(sprt="elo0=0,elo1=5,alpha=0.7"), "alpha"),
    (dict(sprt="elo0=0,elo1=5,model=bayes"), "model"),
    (dict(move_limit=0), "move limit"),
    (dict(move_limit=float("nan")), "move limit"),
    (dict(workers=-1), "workers"),
    (dict(backend="mpi"), "backend"),
    (dict(address="127.0.0.1:6379"), "--backend ray"),
    (dict(backend="ray", address="nonsense::"), "HOST:PORT"),
    (dict(backend="ray", address="127.0.0.1:99999"), "HOST:PORT"),
    (dict(seed=-2), "seed"),
    (dict(variant="nosuch"), "variant"),
    (dict(position="8/8/8 w 1 - 0"), "ranks"),
])
def test_bad_settings_raise_a_clear_value_error(tmp_path, kwargs, words):
    options = dict(agents=FAST, games=2, out=tmp_path / "x.jsonl", workers=0, progress=False)
    options.update(kwargs)
    with pytest.raises(ValueError, match=words):
        Tournament("flow", **options)


def test_openings_file_is_read_checked_and_reused(tmp_path):
    game = ludo_flow.load_game("flow")
    state = game.new_initial_state()
    state.apply_sequence("b2-b3 ~a3")
    lines = ["# two openings", game.new_initial_state().to_string(), "", state.to_string()]
    path = tmp_path / "openings.txt"
    path.write_text("\n".join(lines) + "\n")
    t = Tournament("flow", FAST, games=6, openings=str(path), out=tmp_path / "x.jsonl",
                   workers=0, progress=False)
    starts = [s["start"] for s in t.schedule()]
    assert starts == [lines[1]] * 2 + [lines[3]] * 2 + [lines[1]] * 2
    assert t.settings()["openings"].startswith("file sha256:")
    path.write_text("not a position\n")
    with pytest.raises(ValueError, match="openings.txt:1"):
        Tournament("flow", FAST, games=2, openings=str(path), out=tmp_path / "y.jsonl", workers=0)


# ---- records ------------------------------------------------------------------------------
def test_records_are_whole_reproducible_and_load_back_into_states(tmp_path):
    def run(name):
        t = Tournament("flow", ["random", "mcts:simulations=20"], games=4, openings="random:plies=2",
                       seed=9, out=tmp_path / name, workers=0, progress=False)
        return t.run()
    first, second = run("a.jsonl"), run("b.jsonl")
    assert len(first.records) == 4
    assert strip_times(first.records) == strip_times(second.records)
    on_disk, bad = read_records(tmp_path / "a.jsonl")
    assert bad == [] and strip_times(on_disk) == strip_times(first.records)
    keys = {"id", "pair", "version", "game", "variant", "params", "start", "opening", "white",
            "black", "seed_white", "seed_black", "moves", "result", "termination", "plies",
            "time_white", "time_black", "forfeit", "settings", "sources"}
    for record in on_disk:
        assert keys <= set(record)
        assert record["sources"] == ludo_flow.cache.sources_id()
        final = state_at(record)
        outcome = final.outcome()
        assert outcome.result == record["result"]
        assert outcome.termination.value == record["termination"]
        assert record["plies"] == len(record["moves"])
        states = list(replay_states(record))
        assert len(states) == record["plies"] + 1 and states[-1][2] == final
        assert state_at(record, 0) == states[0][2]
    with pytest.raises(ValueError, match="ply"):
        state_at(on_disk[0], len(on_disk[0]["moves"]) + 1)


def test_a_finished_file_is_not_overwritten_and_resume_refuses_other_settings(tmp_path):
    out = tmp_path / "t.jsonl"
    Tournament("flow", FAST, games=2, out=out, workers=0, progress=False).run()
    with pytest.raises(ValueError, match="--resume"):
        Tournament("flow", FAST, games=2, out=out, workers=0, progress=False).run()
    for change in (dict(agents=["random", "random:seed=2"]), dict(games=4), dict(seed=1),
                   dict(variant="fountain")):
        options = dict(agents=FAST, games=2, out=out, workers=0, progress=False, resume=True)
        options.update(change)
        with pytest.raises(ValueError, match="other settings"):
            Tournament("flow", **options).run()
    again = Tournament("flow", FAST, games=2, out=out, workers=0, progress=False, resume=True).run()
    assert len(again.records) == 2 and len(read_records(out)[0]) == 2


def test_a_resume_over_records_of_other_sources_says_so_and_ratings_warn_of_mixed_sources(tmp_path, capsys):
    from agents.cli import main as cli_main
    out = tmp_path / "t.jsonl"
    Tournament("flow", FAST, games=4, out=out, workers=0, progress=False).run()
    current = ludo_flow.cache.sources_id()
    assert current.startswith(f"ludo_flow-{ludo_flow.__version__}-")
    capsys.readouterr()
    Tournament("flow", FAST, games=4, out=out, workers=0, progress=False, resume=True).run()
    assert "other sources" not in capsys.readouterr().err
    assert cli_main(["ratings", str(out)]) == 0
    assert "versions of the sources" not in capsys.readouterr().err
    records = read_records(out)[0]
    records[0]["sources"] = "ludo_flow-0.0.1-0123456789abcdef"  # as if played before an edit
    del records[1]["sources"]  # as if written before records named their sources
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    Tournament("flow", FAST, games=4, out=out, workers=0, progress=False, resume=True).run()
    err = capsys.readouterr().err
    assert "2 of the 4 records" in err and "other sources" in err
    assert "ludo_flow-0.0.1-0123456789abcdef (1 game), no id (1 game)" in err and current in err
    assert cli_main(["ratings", str(out)]) == 0
    err = capsys.readouterr().err
    assert "3 versions of the sources" in err and f"{current} (2 games)" in err


def test_a_truncated_last_line_is_dropped_and_its_game_replayed(tmp_path):
    out = tmp_path / "t.jsonl"
    full = Tournament("tolkuchka", FAST, games=4, out=out, workers=0, progress=False).run()
    data = out.read_bytes()
    out.write_bytes(data[: len(data) - 40])  # the last record cut mid-line
    assert len(read_records(out)[0]) == 3
    resumed = Tournament("tolkuchka", FAST, games=4, out=out, workers=0, progress=False,
                         resume=True).run()
    records, bad = read_records(out)
    assert bad == [] and len(records) == 4 and len({r["id"] for r in records}) == 4
    assert strip_times(resumed.records) == strip_times(full.records)


def test_pair_ids_differ_between_tournaments_so_merged_files_keep_their_pairs(tmp_path):
    a = Tournament("flow", FAST, games=4, seed=1, out=tmp_path / "a.jsonl", workers=0, progress=False).run()
    b = Tournament("flow", FAST, games=4, seed=2, out=tmp_path / "b.jsonl", workers=0, progress=False).run()
    assert not {r["pair"] for r in a.records} & {r["pair"] for r in b.records}
    from agents.ratings import rate_records
    match = rate_records(a.records + b.records).match
    assert match.incomplete_pairs == 0 and sum(match.per_pair.counts) == 4


def test_a_worker_warms_each_agent_up_once_before_its_clock_runs(monkeypatch):
    from agents.tournament import games as tournament
    calls = []
    monkeypatch.setattr(tournament, "_warmed", set())
    monkeypatch.setattr(tournament, "warm_up", lambda game, start, specs: calls.append(list(specs)))
    t = Tournament("flow", ["random", "mcts:simulations=10"], games=2, workers=0, progress=False,
                   out="unused.jsonl")
    for slot in t.schedule():
        tournament.play_slot(t.game.spec(), slot, 60.0)
    assert calls == [["random", "mcts:simulations=10"]] or calls == [["mcts:simulations=10", "random"]]


# ---- faults -------------------------------------------------------------------------------
class _Raises(BaseAgent):
    """Raises on its first move."""
    agent_name = "test_raises"
    settings = {}

    def reset(self, seed=None):
        pass

    def select_action(self, state):
        raise RuntimeError("boom")


class _Illegal(BaseAgent):
    """Returns an action that is never legal."""
    agent_name = "test_illegal"
    settings = {}

    def reset(self, seed=None):
        pass

    def select_action(self, state):
        return 99999


@pytest.fixture
def faulty_agents(monkeypatch):
    for cls in (_Raises, _Illegal):
        monkeypatch.setitem(registry.AGENTS, cls.agent_name, cls)


def test_an_agent_that_raises_or_plays_illegally_forfeits(tmp_path, faulty_agents):
    t = Tournament("flow", ["random", "test_raises", "test_illegal"], games=2, out=tmp_path / "f.jsonl",
                   workers=0, progress=False)
    records = t.run().records
    assert len(records) == 6
    for r in records:
        bad = [s for s in ("white", "black") if r[s].startswith("test_")]
        assert r["termination"] == "forfeit"
        loser = r["forfeit"]["side"]
        assert loser in bad and r["result"] == ("0-1" if loser == "white" else "1-0")
        expected = "RuntimeError: boom" if r[loser] == "test_raises" else "illegal action 99999"
        assert expected in r["forfeit"]["reason"]


def test_play_game_without_forfeits_raises_as_before(faulty_agents):
    game = ludo_flow.load_game("flow")
    with pytest.raises(ValueError, match="illegal"):
        play_game(game.new_initial_state(), _Illegal(), _Illegal())


def test_a_move_over_the_limit_forfeits_the_game(tmp_path):
    # the limit is far above a random move even on a loaded machine, far below 100,000 simulations
    t = Tournament("flow", ["mcts:simulations=100000", "random"], games=2, out=tmp_path / "m.jsonl",
                   workers=0, move_limit=0.15, progress=False)
    for r in t.run().records:
        assert r["termination"] == "forfeit" and r[r["forfeit"]["side"]] == "mcts:simulations=100000"
        assert r["forfeit"]["reason"].startswith("move limit: thought")
        assert r["result"] == ("0-1" if r["forfeit"]["side"] == "white" else "1-0")


@pytest.mark.slow
def test_a_search_that_never_returns_is_stopped_and_forfeited(tmp_path):
    # Alpha-beta at depth 40 would not return for hours, and jitted code cannot be interrupted:
    # the runner kills its worker, records the forfeit, and goes on with a new worker.
    t = Tournament("flow", ["alphabeta:depth=40", "random"], games=4, out=tmp_path / "m.jsonl",
                   workers=2, move_limit=0.3, progress=False)
    records = t.run().records
    assert len(records) == 4
    # Played in workers or forfeited by the runner, every record names the sources.
    assert {r["sources"] for r in records} == {ludo_flow.cache.sources_id()}
    # (A game can still end normally: once random blunders, alpha-beta proves a win quickly.)
    forfeits = [r for r in records if r["termination"] == "forfeit"]
    assert len(forfeits) >= 2
    for r in forfeits:
        assert r[r["forfeit"]["side"]] == "alphabeta:depth=40"
        # a search that proves a win just after the limit returns late instead of never
        assert r["forfeit"]["reason"].startswith(("move limit: no move after", "move limit: thought"))
    assert any(r["forfeit"]["reason"].startswith("move limit: no move after") for r in forfeits)


# ---- SPRT ---------------------------------------------------------------------------------
def test_parse_sprt_defaults():
    assert parse_sprt("elo0=0,elo1=10") == {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05,
                                            "model": "normalized"}


def test_sprt_stops_early_on_a_clear_case_and_goes_on_on_a_close_one(tmp_path):
    clear = Tournament("flow", ["alphabeta:depth=2", "random"], games=400, openings="random:plies=2",
                       sprt="elo0=0,elo1=100,alpha=0.05,beta=0.05", out=tmp_path / "c.jsonl",
                       workers=0, progress=False).run()
    assert clear.sprt["decision"] == "H1" and clear.sprt["llr"] >= clear.sprt["upper"]
    assert len(clear.records) < 100
    from agents.ratings import RESULT_SCORES, pair_counts
    first = "alphabeta:depth=2"
    scores = [(r["pair"], RESULT_SCORES[r["result"]] if r["white"] == first else 1 - RESULT_SCORES[r["result"]])
              for r in clear.records]
    assert clear.sprt["pairs"] == pair_counts(scores, skip_incomplete=True)
    report = clear.report()  # the README's promise: the two-agent match beside the SPRT
    assert "alphabeta:depth=2 against random:" in report and "per pair:" in report and "nElo" in report
    close = Tournament("flow", FAST, games=10, sprt="elo0=0,elo1=100", out=tmp_path / "e.jsonl",
                       workers=0, progress=False).run()
    assert close.sprt["decision"] is None and len(close.records) == 10
    assert "SPRT" in close.report()
    # A resumed file whose SPRT was decided plays nothing more.
    again = Tournament("flow", ["alphabeta:depth=2", "random"], games=400, openings="random:plies=2",
                       sprt="elo0=0,elo1=100,alpha=0.05,beta=0.05", out=tmp_path / "c.jsonl",
                       workers=0, progress=False, resume=True).run()
    assert len(again.records) == len(clear.records) and again.sprt["decision"] == "H1"


# ---- worker processes, kills and resume ------------------------------------------------------
def _cli(*args):
    return [sys.executable, "-m", "agents.cli", *args]


def _workers_of(pid):
    """Return the pids of the worker processes of runner `pid` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    cmdline = fh.read()
            except OSError:
                continue
            if int(fields[1]) == pid and b"spawn_main" in cmdline:
                out.append(int(entry))
    return out


def _wait_for_lines(path, n, proc, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {n} lines")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_the_runner_and_a_worker_then_resume_loses_and_duplicates_nothing(tmp_path):
    out = tmp_path / "k.jsonl"
    # 48 games of MCTS at 2,000 simulations: long enough that both kills land mid-run
    args = ["tournament", "tolkuchka", "--agents", "random", "mcts:simulations=2000", "--games", "48",
            "--openings", "random:plies=2", "--workers", "2", "--seed", "5", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _wait_for_lines(out, 3, proc)
        workers = _workers_of(proc.pid)
        assert workers
        for pid in workers:  # kill -9 a worker mid-game: it is replaced, its game played again
            os.kill(pid, signal.SIGKILL)
        before = out.read_text().count("\n")
        _wait_for_lines(out, before + 3, proc)
        os.killpg(proc.pid, signal.SIGKILL)  # kill -9 the runner and all its workers
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    killed_at = read_records(out)[0]
    assert 0 < len(killed_at) < 48 and len({r["id"] for r in killed_at}) == len(killed_at)
    with open(out, "a") as fh:  # as if the kill had cut a write short
        fh.write('{"id":"p0-o9-1","pair":')
    done = subprocess.run(_cli(*args, "--resume"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    records, bad = read_records(out)
    assert bad == []
    ids = [r["id"] for r in records]
    assert len(ids) == 48 and len(set(ids)) == 48
    assert {r["id"]: r["moves"] for r in killed_at}.items() <= {r["id"]: r["moves"] for r in records}.items()
    assert "48 of 48 games recorded" in done.stdout


@pytest.mark.slow
def test_ctrl_c_keeps_finished_games_and_says_how_to_resume(tmp_path):
    out = tmp_path / "i.jsonl"
    args = ["tournament", "flow", "--agents", "random", "mcts:simulations=300", "--games", "40",
            "--workers", "1", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _wait_for_lines(out, 2, proc)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "--resume" in stderr
    records, bad = read_records(out)
    assert bad == [] and 2 <= len(records) < 40


# ---- command line -------------------------------------------------------------------------
def test_cli_tournament_replay_and_ratings(tmp_path, capsys):
    from agents.cli import main
    out = tmp_path / "c.jsonl"
    assert main(["tournament", "flow", "--variant", "fountain", "--agents", "random",
                 "alphabeta:depth=1", "mcts:simulations=30", "--games", "2", "--workers", "0",
                 "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "alphabeta:depth=1" in text and "6 of 6 games recorded" in text
    records = read_records(out)[0]
    assert main(["replay", str(out), "--game", records[0]["id"]]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == records[0]["result"] and lines[-2] == f"# {records[0]['termination']}"
    assert main(["ratings", str(out), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert {r["agent"] for r in table["ratings"]} == {"random", "alphabeta:depth=1", "mcts:simulations=30"}
    assert main(["replay", str(out), "--game", "nosuch"]) == 2
    assert "no game with id" in capsys.readouterr().err
    assert main(["tournament", "flow", "--agents", "random", "--games", "2", "--out", str(out)]) == 2
    assert "two agents" in capsys.readouterr().err


def test_cli_ratings_anchor_plots_and_merged_files(tmp_path, capsys):
    from agents.cli import main
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    Tournament("flow", ["random", "mcts:simulations=30"], games=4, out=a, workers=0, progress=False).run()
    Tournament("flow", ["mcts:simulations=30", "alphabeta:depth=1"], games=4, out=b, workers=0,
               progress=False).run()
    assert main(["ratings", str(a), str(b), "--anchor", "random", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    elo = {r["agent"]: r for r in table["ratings"]}
    assert set(elo) == {"random", "mcts:simulations=30", "alphabeta:depth=1"}
    assert elo["random"]["elo"] == 0 and table["games"] == 8
    assert {"elo", "low", "high"} <= set(table["first_move_advantage"])
    assert main(["ratings", str(a)]) == 0  # two agents: the match statistics too
    out = capsys.readouterr().out
    assert "per game:" in out and "per pair:" in out and "LOS" in out and "nElo" in out
    pytest.importorskip("matplotlib")
    assert main(["ratings", str(a), str(b), "--plots", str(tmp_path / "plots")]) == 0
    assert (tmp_path / "plots" / "ratings.png").stat().st_size > 0
    assert (tmp_path / "plots" / "scores.png").stat().st_size > 0


@pytest.mark.slow
def test_the_default_tournament_runs_with_no_arguments(tmp_path, capsys, monkeypatch):
    import agents.tournament as tournament
    from agents.cli import main
    monkeypatch.setattr(tournament, "DEFAULT_GAMES", 2)  # the real default plays 60 a pairing
    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "flow", "--workers", "0", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "the default tournament" in captured.err
    files = list(tmp_path.glob("tournament-flow-*.jsonl"))
    assert len(files) == 1 and len(read_records(files[0])[0]) == 20
    for spec in tournament.DEFAULT_AGENTS:
        assert spec in captured.out
