"""The first run says on stderr that it compiles; a cached start is silent (ludo_flow.cache).

The command-line checks run `ludo-flow` on a copy of the package in a temporary folder with a new
cache folder, so other edits to the tree under test cannot change the cache's key between the
two processes. No test asserts on time.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from agents import warmup
from ludo_flow import compiling

pytestmark = pytest.mark.slow  # compiles or starts processes: outside the fast lane

REPO = Path(__file__).resolve().parents[2]


def ludo_flow_command(root, base, *args):
    """Run `ludo-flow ARGS` on the copy in `root`, caching under `base`; return the finished process."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(root), LUDO_FLOW_CACHE_DIR=str(base))
    done = subprocess.run([sys.executable, "-m", "agents.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return done


def test_perft_announces_its_first_compile_and_a_cached_start_is_silent(tmp_path):
    root = tmp_path / "package"
    for name in ("ludo_flow", "agents"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    base = tmp_path / "cache"
    # depth 1 counts the legal actions: the move generator alone; depth 2 plays them
    first = ludo_flow_command(root, base, "perft", "flow", "--depth", "1")
    assert first.stdout.strip() == "41"
    lines = first.stderr.splitlines()
    assert "compiling the Flow move generator" in lines[0], first.stderr
    assert "happens once" in lines[0] and "about" in lines[0] and str(base) in lines[0]
    assert lines[-1].startswith("ludo-flow: compiled the Flow move generator in ")
    second = ludo_flow_command(root, base, "perft", "flow", "--depth", "1")
    assert second.stdout.strip() == "41"
    assert second.stderr == ""
    deeper = ludo_flow_command(root, base, "perft", "flow", "--depth", "2")
    assert deeper.stdout.strip() == "1509"
    lines = deeper.stderr.splitlines()
    assert "compiling the Flow engine and perft" in lines[0], deeper.stderr
    assert lines[-1].startswith("ludo-flow: compiled the Flow engine and perft in ")
    assert ludo_flow_command(root, base, "perft", "flow", "--depth", "2").stderr == ""
    warmed = ludo_flow_command(root, base, "warmup", "flow", "--entry", "perft")
    assert warmed.stderr == ""
    assert warmed.stdout.splitlines()[0].startswith(f"# cache: {base}{os.sep}ludo_flow-")
    assert warmed.stdout.splitlines()[1].split()[:5] == ["flow", "perft", "loaded", "from", "the"]


def test_a_warm_up_of_the_move_generator_alone_takes_no_perft_or_agents():
    import ludo_flow
    game = ludo_flow.load_game("tolkuchka")
    (words, _, functions), = warmup._parts(game, False, (), moves_only=True)
    assert words == "the Tolkuchka move generator"
    assert functions == [game.kernels.legal_actions]
    for kwargs in ({"perft": True}, {"specs": ("random",)}):
        with pytest.raises(ValueError, match="move generator alone"):
            warmup.warm(game, moves_only=True, **kwargs)


def test_the_random_agents_part_is_their_jitted_game_loop():
    # two random agents play a game in one jitted loop, which a first run compiles: the warm-up
    # names "the random agent" when that loop is not in the cache (it named only the engine)
    import ludo_flow
    for name in ("flow", "tolkuchka"):
        game = ludo_flow.load_game(name)
        (_, _, engine), (words, _, functions) = warmup._parts(game, False, ("random", "random"))
        assert words == "the random agent" and functions == [game.kernels.random_game]


def test_a_perft_start_imports_neither_the_searches_nor_xml():
    # each costs a cached start about 0.1 s (the searches pull in scipy where it is installed)
    script = ("import sys; from ludo_flow import load_game; from agents import cli, warmup; "
              "warmup._parts(load_game('flow'), True, ()); "
              "print([m for m in ('agents.registry', 'agents.mcts', 'agents.alphabeta', 'xml.sax') "
              "if m in sys.modules])")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=dict(env, PYTHONPATH=str(REPO)),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# ---- the notice itself, without numba -----------------------------------------------------------
def not_cached(tmp_path):
    """Return a stand-in for a jitted function that numba's cache does not hold."""
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(
        _index_path=str(tmp_path / "missing.nbi"))))


def test_a_function_missing_from_the_cache_is_announced_at_once(tmp_path):
    out = io.StringIO()
    with compiling.compiling("the Flow engine", 12, functions=[not_cached(tmp_path)], stream=out) as info:
        assert out.getvalue().startswith("ludo-flow: compiling the Flow engine for this machine; "
                                         "this happens once (about 10 s)")
    assert info.announced
    assert out.getvalue().splitlines()[-1].startswith("ludo-flow: compiled the Flow engine in ")


def test_the_announced_wait_follows_the_measured_first_runs():
    # benchmarks/bench_compile_versions.py on the idle 2-core VM (docs/benchmarks.md): Flow's
    # tournament 16-20 s, Tolkuchka's 13-14 s, the searches beside each other; Flow's perft 5-7 s.
    flow, tolkuchka = warmup.AGENT_SECONDS["flow"], warmup.AGENT_SECONDS["tolkuchka"]
    assert 16 <= warmup.wait_seconds(warmup.ENGINE_SECONDS["flow"],
                                    [flow["mcts"], flow["alphabeta"]], True) <= 22
    assert 11 <= warmup.wait_seconds(warmup.ENGINE_SECONDS["tolkuchka"],
                                    [tolkuchka["mcts"], tolkuchka["alphabeta"]], True) <= 17
    assert 5 <= warmup.ENGINE_SECONDS["flow"] <= 7
    assert warmup.wait_seconds(12, [], True) == 12
    assert warmup.wait_seconds(12, [30, 28], False) == 12 + 58


def test_a_quick_block_is_silent_and_a_slow_one_is_announced_while_it_runs(tmp_path):
    cached = tmp_path / "cached.nbi"
    cached.write_bytes(b"")
    present = SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(cached))))
    out = io.StringIO()
    with compiling.compiling("the MCTS search", 15, functions=[present], stream=out) as info:
        pass
    assert out.getvalue() == "" and not info.announced
    with compiling.compiling("the MCTS search", 15, delay=0.05, stream=out) as info:
        deadline = time.monotonic() + 30
        while not out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    assert info.announced
    text = out.getvalue().splitlines()
    assert text[0].startswith("ludo-flow: compiling the MCTS search") and "about 15 s" in text[0]
    assert text[-1].startswith("ludo-flow: compiled the MCTS search in ")


def run_twice_on_a_copy(tmp_path, script, **env_vars):
    """Run `python -c script` twice on a copy of the package with a new cache folder (and the
    variables `env_vars`); return the JSON each run printed last."""
    root = tmp_path / "package"
    for name in ("ludo_flow", "agents"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(root), LUDO_FLOW_CACHE_DIR=str(tmp_path / "cache"), **env_vars)
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", script], cwd=root, env=env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


# Tolkuchka's legal_actions, apply and perft as `compiling.compile_counts` names them (module and name).
KERNEL_NAMES = ("ludo_flow.tolkuchka.kernels.moves.legal_actions", "ludo_flow.tolkuchka.kernels.rules.apply",
                "ludo_flow.tolkuchka.kernels.perft")


def test_a_first_run_compiled_in_helper_processes_leaves_a_complete_cache(tmp_path):
    # Two helpers compile the engine's two roots at once, each into a private copy of the
    # cache that is merged; this process then compiles only perft, and a second process
    # compiles nothing at all.
    script = ("import io, json, ludo_flow; from ludo_flow import compiling; from agents import warmup; "
              "game = ludo_flow.load_game('tolkuchka'); "
              "tasks = [{'kernels': [['legal_actions', 'state', 'int32[]']]}, "
              "{'kernels': [['apply', 'state', 'int64', 'state']]}]; "
              "helped = warmup.compile_in_helpers(game, tasks, jobs=2) "
              "if not compiling.is_cached(game.kernels.apply) else {}; "
              "info = warmup.warm(game, perft=True, stream=io.StringIO()); "
              "print(json.dumps([sorted(helped), sorted(info.compiled)]))")
    (helped, first), (helped_again, second) = run_twice_on_a_copy(
        tmp_path, script, LUDO_FLOW_COMPILE_JOBS="2")
    legal, apply, perft = KERNEL_NAMES
    assert legal in helped and apply in helped
    assert legal not in first and apply not in first
    assert perft in first
    assert helped_again == [] and second == []


def test_a_split_first_run_compiles_one_half_here_and_leaves_a_complete_cache(tmp_path):
    # warm() with the engine split (forced for Tolkuchka's short engine, to keep the test
    # quick): apply compiles in this process while a helper compiles legal_actions into a
    # private cache that is merged; this process then loads legal_actions and compiles perft,
    # and a second process compiles nothing at all.
    script = ("import io, json, ludo_flow; from ludo_flow import compiling; from agents import warmup; "
              "game = ludo_flow.load_game('tolkuchka'); "
              "warmup.ENGINE_SECONDS['tolkuchka'] = warmup.SPLIT_ENGINE_SECONDS; "
              "stages = warmup.helper_stages(game, (), warmup._parts(game, True, ())); "
              "info = warmup.warm(game, perft=True, stream=io.StringIO(), jobs=2); "
              "here = sorted(n for n, (_, made) in compiling.compile_counts().items() if made); "
              "print(json.dumps([len(stages), sorted(info.compiled), here]))")
    (stages, compiled, here), (stages_again, compiled_again, here_again) = run_twice_on_a_copy(
        tmp_path, script)
    legal, apply, perft = KERNEL_NAMES
    assert stages == 1  # one stage of two tasks
    assert {legal, apply, perft} <= set(compiled)
    assert apply in here and perft in here
    assert legal not in here  # the helper's, loaded from the merged cache
    assert stages_again == 0 and compiled_again == [] and here_again == []


def test_helpers_compile_search_kernels_beside_the_engine_then_the_searches_side_by_side(monkeypatch):
    # First the engine and the end-of-game kernels here and beside them, in a helper, the
    # searches' evaluations and alpha-beta's candidate generation (with evaluations alone the
    # helper takes the end-of-game kernels); then the longest search here and the other kinds
    # in helpers. Nothing to do side by side: everything here.
    import ludo_flow
    game = ludo_flow.load_game("flow")
    monkeypatch.setattr(warmup, "is_cached", lambda function: False)  # as on a first run
    specs = ("random", "mcts:simulations=300", "alphabeta:depth=3", "alphabeta:depth=5")
    absent = warmup._parts(game, True, specs)
    (engine, beside), searches = warmup.helper_stages(game, specs, absent)
    assert [k[0] for k in engine["kernels"]] == [
        "legal_actions", "apply", "is_terminal", "termination", "result"]
    assert [k[0] for k in beside["kernels"]] == ["evaluate_tuned", "candidate_actions"]
    assert warmup.AGENT_SECONDS["flow"]["alphabeta"] > warmup.AGENT_SECONDS["flow"]["mcts"]
    assert [task["specs"] for task in searches] == [list(specs[2:]), [specs[1]]]  # longest first
    # A search scoring by the hand-set evaluation has it compiled beside the engine too.
    mixed = specs + ("mcts:eval=hand",)
    (_, beside), _ = warmup.helper_stages(game, mixed, warmup._parts(game, True, mixed))
    assert [k[0] for k in beside["kernels"]] == ["evaluate_tuned", "evaluate", "candidate_actions"]
    # One kind of search: its evaluation and the end-of-game kernels beside the engine, then
    # the search here alone; MCTS generates no candidates.
    one = warmup.helper_stages(game, specs[:2], warmup._parts(game, True, specs[:2]))
    assert [[list(t) for t in stage] for stage in one] == [[["kernels"], ["kernels"]], [["specs"]]]
    assert [k[0] for k in one[0][0]["kernels"]] == ["legal_actions", "apply"]
    assert [k[0] for k in one[0][1]["kernels"]] == [
        "evaluate_tuned", "is_terminal", "termination", "result"]
    # Random agents only: nothing beside the engine, so Flow's long engine is split as for
    # perft, the end-of-game kernels here with `apply`; Tolkuchka's short one compiles here
    # with the end-of-game kernels in the helper.
    (here, helper), = warmup.helper_stages(game, ("random",), warmup._parts(game, False, ("random",)))
    assert [k[0] for k in here["kernels"]] == ["apply", "is_terminal", "termination", "result"]
    assert [k[0] for k in helper["kernels"]] == ["legal_actions"]
    short = ludo_flow.load_game("tolkuchka")
    (here, helper), = warmup.helper_stages(short, ("random",), warmup._parts(short, False, ("random",)))
    assert [k[0] for k in here["kernels"]] == ["legal_actions", "apply"]
    assert [k[0] for k in helper["kernels"]] == ["is_terminal", "termination", "result"]
    # The engine in the cache, the end-of-game kernels not: they compile here.
    monkeypatch.setattr(warmup, "is_cached", lambda function: function.__name__ not in (
        "is_terminal", "termination", "result", "evaluate_tuned", "candidate_actions"))
    (here, helper), searches = warmup.helper_stages(game, specs, warmup._parts(game, False, specs)[1:])
    assert [k[0] for k in here["kernels"]] == ["is_terminal", "termination", "result"]
    assert [k[0] for k in helper["kernels"]] == ["evaluate_tuned", "candidate_actions"]
    assert [task["specs"] for task in searches] == [list(specs[2:]), [specs[1]]]
    # Everything in the cache: nothing to do.
    monkeypatch.setattr(warmup, "is_cached", lambda function: True)
    assert warmup.helper_stages(game, specs, []) == []


def test_perft_splits_a_long_engine_between_this_process_and_a_helper(monkeypatch):
    # Flow's engine (ENGINE_SECONDS 6, the split's figure) is split: apply (the longer half, with the current)
    # here, legal_actions in a helper.
    # Tolkuchka's short one compiles here alone: a helper's start-up would eat the gain.
    import ludo_flow
    monkeypatch.setattr(warmup, "is_cached", lambda function: False)
    flow, tolkuchka = ludo_flow.load_game("flow"), ludo_flow.load_game("tolkuchka")
    seconds = warmup.ENGINE_SECONDS
    assert seconds["flow"] >= warmup.SPLIT_ENGINE_SECONDS > seconds["tolkuchka"]
    assert warmup.helper_stages(flow, (), warmup._parts(flow, True, ())) == [
        [{"kernels": [["apply", "state", "int64", "state"]]},
         {"kernels": [["legal_actions", "state", "int32[]"]]}]]
    assert warmup.helper_stages(tolkuchka, (), warmup._parts(tolkuchka, True, ())) == []


def test_evaluation_kernels_name_what_the_searches_score_by():
    import ludo_flow
    from ludo_flow import dispatch
    from ludo_flow.specialize import constants_of, for_game
    game = ludo_flow.load_game("tolkuchka")
    assert warmup.evaluation_kernels(game, ("random", "alphabeta:eval=hand")) == ["evaluate"]
    assert warmup.evaluation_kernels(game, ("mcts", "alphabeta")) == ["evaluate_tuned"]
    assert warmup.evaluation_kernels(game, ("random",)) == []
    assert all(hasattr(game.kernels, name) for name in dispatch.EVALUATION_KERNELS.values())
    from agents.alphabeta import search
    entry = for_game(search, "tolkuchka", evaluation=dispatch.HAND)
    assert constants_of(entry) == {"game": game.game_id, "evaluation": dispatch.HAND}
    assert constants_of(search) == {}


def test_the_console_script_exits_with_the_status_of_main():
    # `ludo-flow` runs cli.command (main, then a quick shutdown); -m agents.cli too.
    from importlib.metadata import entry_points
    scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
    assert scripts["ludo-flow"] == "agents.cli:command"
    done = subprocess.run([sys.executable, "-m", "agents.cli", "perft", "flow", "--depth", "-1"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "--depth must be >= 0" in done.stderr
