"""numba's cache: compiled once and loaded after, never stale, pruned (ludo_flow.cache).

Compile once, load after: the same script runs twice in fresh processes sharing one new cache
folder; the first run compiles and writes the cache, the second must load every entry point the
agents call from Python (cache hits, no misses). A closure or a function passed as an argument
would miss here.

Never stale: numba checks only the file a function is defined in, and alpha-beta's search
(agents/alphabeta.py) has Flow's `evaluate` (ludo_flow/flow/kernels.py) inlined. The library keys
its cache folder on a hash of all its sources, so after an edit to `evaluate` in place the next
process compiles a search that sees the edit. These run on a copy of the package in a temporary
folder (PYTHONPATH, with the copy as working directory), so the edit never touches the tree under
test and other edits to the tree cannot change the hash half way.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agents import warmup
from ludo_flow import cache, compiling

pytestmark = pytest.mark.slow  # compiles in subprocesses: outside the fast lane

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, sys
import numpy as np
import ludo_flow
import agents
from agents import make_agent
from agents import alphabeta, mcts
from ludo_flow import cache, dispatch
from ludo_flow.flow import kernels as flow_kernels
from ludo_flow.specialize import for_game

full = sys.argv[1] == "full"
score = None
for name in ("flow", "tolkuchka") if full else ("flow",):
    game = ludo_flow.load_game(name)
    state = game.new_initial_state()
    agent = make_agent("alphabeta:depth=2,time=10,eval=hand", game)  # the search over the edited evaluate
    agent.select_action(state)
    if name == "flow":
        score = agent.last_stats["score"]
    if not full:
        continue
    agent = make_agent("mcts:simulations=50,reuse=1,time=10", game)
    action = agent.select_action(state)
    state.apply(action)
    agent.select_action(state)
    buf = np.empty(dispatch.MAX_ACTIONS, dtype="int32")
    dispatch.legal_actions(game.game_id, state.array, buf)
    dispatch.hash_key(game.game_id, state.array)

# A search is compiled per game: its entries are what Python calls (ludo_flow.specialize).
functions = {"alphabeta.search": alphabeta.search_for("flow", "hand")}
if full:
    functions.update({
        "alphabeta.search (tolkuchka)": alphabeta.search_for("tolkuchka", "hand"),
        # the searches the MCTS above ran: its default evaluation, no playouts
        "mcts.init_root": for_game(mcts.init_root, "flow"),
        "mcts.run": make_agent("mcts").search_functions("flow")[1],
        "mcts.run (tolkuchka)": make_agent("mcts").search_functions("tolkuchka")[1],
        "mcts.best_child": mcts.best_child,
        "mcts.find_node": mcts.find_node,
        "mcts.keep_subtree": mcts.keep_subtree,
        "dispatch.legal_actions": dispatch.legal_actions,
        "dispatch.hash_key": dispatch.hash_key,
    })
start = ludo_flow.load_game("flow").new_initial_state().array
print(json.dumps({
    "files": [ludo_flow.__file__, agents.__file__],
    "cache_dir": str(cache.cache_dir()),
    "score": score,
    "evaluate": float(flow_kernels.evaluate(start)),
    "functions": {k: [sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values())]
                  for k, f in functions.items()}}))
"""


def copy_package(root):
    """Copy the ludo_flow and agents packages (sources only) into `root`; return `root`."""
    for name in ("ludo_flow", "agents"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def child_env(root, base):
    """Return the environment of a process that imports the copy in `root`, caching under `base`."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(root), LUDO_FLOW_CACHE_DIR=str(base))
    return env


def run_script(root, base, mode):
    """Run SCRIPT on the copy in `root` with the cache under `base`; return what it printed."""
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], env=child_env(root, base),
                          cwd=root, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(Path(f).resolve().is_relative_to(root.resolve()) for f in result["files"]), result["files"]
    return result


def edit_evaluate(root):
    """Make Flow's `evaluate` in the copy return 0.5 on every position (an edit in place)."""
    path = root / "ludo_flow" / "flow" / "kernels.py"
    text = path.read_text()
    found = re.search(r"\n(@njit\([^\n]*\))\ndef evaluate\(state\):", text)
    assert found, "Flow's evaluate not found"
    text = text.replace("\ndef evaluate(state):", "\ndef _evaluate_before_the_edit(state):", 1)
    text += (f"\n\n{found.group(1)}\ndef evaluate(state):\n"
             f'    """Return 0.5 (a test\'s edit)."""\n    return 0.5\n')
    path.write_text(text)


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """A copy of the package, a cache base, and two runs of the full script on it."""
    root = copy_package(tmp_path_factory.mktemp("package"))
    base = tmp_path_factory.mktemp("cache")
    first = run_script(root, base, "full")
    second = run_script(root, base, "full")
    return root, base, first, second


def test_second_process_loads_every_search_function_from_the_cache(package):
    _, _, first, second = package
    assert all(misses > 0 for _, misses in first["functions"].values()), first
    for name, (hits, misses) in second["functions"].items():
        assert hits > 0 and misses == 0, (name, second)
    assert second["score"] == first["score"]
    assert second["cache_dir"] == first["cache_dir"]


def test_an_edit_to_a_kernel_is_seen_by_the_search_that_inlines_it_in_the_next_process(package):
    root, base, first, _ = package
    assert first["evaluate"] != 0.5
    edit_evaluate(root)
    third = run_script(root, base, "alphabeta")
    assert third["evaluate"] == 0.5
    assert third["cache_dir"] != first["cache_dir"]  # a new folder: nothing compiled before the edit
    hits, misses = third["functions"]["alphabeta.search"]
    assert hits == 0 and misses > 0
    assert third["score"] != first["score"]
    assert Path(first["cache_dir"]).is_dir()  # the old folder is kept a while (another process may use it)


# ---- where the cache lives, without compiling ---------------------------------------------------
def test_numba_caches_every_function_of_the_package_in_the_keyed_folder():
    import numba

    import agents  # noqa: F401 - every module with jitted functions
    import agents.tournament  # noqa: F401
    import agents.cli  # noqa: F401
    here = cache.cache_dir()
    assert re.fullmatch(r"ludo_flow-[^/]+-[0-9a-f]{16}", here.name)
    assert numba.config.CACHE_DIR == str(here) == os.environ["NUMBA_CACHE_DIR"]
    found = compiling.dispatchers()
    assert any(name.startswith("agents.alphabeta.") for name in found)
    for name, function in found.items():
        assert Path(function._cache._cache_path).is_relative_to(here), name


def test_the_key_covers_every_source_file_of_both_packages():
    files = [rel for rel, _ in cache.source_files()]
    assert "ludo_flow/flow/kernels.py" in files and "agents/alphabeta.py" in files
    assert all(f.endswith(".py") and "__pycache__" not in f for f in files)
    assert cache.source_hash()[0] == __import__("ludo_flow").__version__


def test_the_cache_base_follows_the_environment(monkeypatch, tmp_path):
    for name in ("LUDO_FLOW_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert cache.cache_base() == tmp_path / "xdg" / "ludo_flow"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert cache.cache_base() == tmp_path / "numba"
    keyed = tmp_path / "numba" / "ludo_flow-0.1.0-0123456789abcdef"  # a parent process's folder
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(keyed))
    assert cache.cache_base() == tmp_path / "numba"
    monkeypatch.setenv("LUDO_FLOW_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.cache_base() == tmp_path / "mine"


# ---- pruning ----------------------------------------------------------------------------------
def make_entries(base, count, age_hours=1.0):
    """Create `count` fake cache folders under base, the first the most recently used; return names."""
    names = [f"ludo_flow-0.1.0-{i:016x}" for i in range(count)]
    now = time.time()
    for i, name in enumerate(names):
        folder = base / name / "flow_abc"
        folder.mkdir(parents=True)
        (folder / "kernels.perft-1.py311.nbi").write_bytes(b"x" * 100)
        stamp = now - 3600 * age_hours * (i + 1)
        os.utime(base / name, (stamp, stamp))
    return names


def test_prune_keeps_the_current_folder_and_the_two_most_recently_used_others(tmp_path):
    names = make_entries(tmp_path, 6)
    (tmp_path / "someone-elses-folder").mkdir()
    removed = cache.prune(tmp_path, keep=names[5])
    assert sorted(p.name for p in removed) == names[2:5]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [names[0], names[1], names[5], "someone-elses-folder"])


def test_prune_never_deletes_a_folder_used_in_the_last_minutes(tmp_path):
    names = make_entries(tmp_path, 5, age_hours=0.0)  # all just used
    assert cache.prune(tmp_path, keep="ludo_flow-0.1.0-ffffffffffffffff") == []
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_processes_pruning_at_once_delete_each_folder_once_without_errors(tmp_path):
    names = make_entries(tmp_path, 30)
    results, errors = [], []

    def prune():
        try:
            results.append(cache.prune(tmp_path, keep=names[-1]))
        except Exception as err:  # noqa: BLE001 - the test reports it
            errors.append(err)

    threads = [threading.Thread(target=prune) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    removed = [p.name for r in results for p in r]
    assert sorted(removed) == sorted(names[2:-1])  # each exactly once
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([names[0], names[1], names[-1]])


def test_importing_the_package_prunes_and_the_cache_command_clears(tmp_path):
    root = copy_package(tmp_path / "package")
    legacy = root / "ludo_flow" / "flow" / "__pycache__" / "kernels.perft-1.py311.nbi"
    legacy.parent.mkdir()
    legacy.write_bytes(b"old")  # written next to the sources by versions before the keyed folder
    base = tmp_path / "cache"
    base.mkdir()
    names = make_entries(base, 4)
    (base / "someone-elses-folder").mkdir()
    done = subprocess.run([sys.executable, "-m", "agents.cli", "cache"], cwd=root,
                          env=child_env(root, base), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    here = Path(done.stdout.strip())
    assert here.parent == base and here.is_dir()
    assert sorted(p.name for p in base.iterdir()) == sorted(
        names[:2] + [here.name, "someone-elses-folder"])
    done = subprocess.run([sys.executable, "-m", "agents.cli", "cache", "--clear"], cwd=root,
                          env=child_env(root, base), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in base.iterdir()] == ["someone-elses-folder"]
    assert not legacy.exists()


# ---- helper processes compile into private folders, merged afterwards ---------------------------
TWICE = r"""
import json, sys
from twice import twice
value = float(sys.argv[1]) if "." in sys.argv[1] else int(sys.argv[1])
twice(value)
print(json.dumps([sum(twice.stats.cache_hits.values()), sum(twice.stats.cache_misses.values())]))
"""


def run_twice(folder, cache_folder, *values):
    """Call the toy `twice` with each value in one new process caching in `cache_folder`;
    return [(cache hits, misses)]."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(folder), NUMBA_CACHE_DIR=str(cache_folder))
    found = []
    for value in values:
        done = subprocess.run([sys.executable, "-c", TWICE, value], env=env, cwd=folder,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        found.append(tuple(json.loads(done.stdout.strip().splitlines()[-1])))
    return found


def test_merging_caches_keeps_every_signature_of_a_function_compiled_in_separate_folders(tmp_path):
    # What two processes compiling different signatures of one function into ONE folder at
    # once can lose (numba rewrites the index with its own entry only), compiled apart and
    # merged keeps: both signatures load in a later process.
    (tmp_path / "twice.py").write_text("from numba import njit\n\n\n@njit(cache=True)\n"
                                       "def twice(x):\n    return 2 * x\n")
    ints, floats, merged = tmp_path / "ints", tmp_path / "floats", tmp_path / "merged"
    assert run_twice(tmp_path, ints, "3") == [(0, 1)]
    assert run_twice(tmp_path, floats, "3.5") == [(0, 1)]
    assert warmup.merge_cache(ints, merged) == 1
    assert warmup.merge_cache(floats, merged) == 1
    assert warmup.merge_cache(floats, merged) == 0  # already there
    assert run_twice(tmp_path, merged, "3", "3.5") == [(1, 0), (1, 0)]
