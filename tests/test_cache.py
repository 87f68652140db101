"""A second process finds every search function in numba's cache (compile once, load after).

The same script runs twice in fresh processes sharing one new NUMBA_CACHE_DIR: the first run
compiles and writes the cache, the second must load every entry point the agents call from
Python (cache hits, no misses). A closure or a function passed as an argument would miss here.
"""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = r"""
import json
import ludo_flow
from agents import make_agent
from agents import alphabeta, mcts
from ludo_flow import dispatch

for name in ("flow", "tolkuchka"):
    game = ludo_flow.load_game(name)
    state = game.new_initial_state()
    make_agent("alphabeta:depth=2,time=10", game).select_action(state)
    agent = make_agent("mcts:simulations=50,reuse=1,time=10", game)
    action = agent.select_action(state)
    state.apply(action)
    agent.select_action(state)
    buf = __import__("numpy").empty(dispatch.MAX_ACTIONS, dtype="int32")
    dispatch.legal_actions(game.game_id, state.array, buf)
    dispatch.hash_key(game.game_id, state.array)

functions = {
    "alphabeta.search": alphabeta.search,
    "mcts.init_root": mcts.init_root,
    "mcts.run": mcts.run,
    "mcts.best_child": mcts.best_child,
    "mcts.find_node": mcts.find_node,
    "mcts.keep_subtree": mcts.keep_subtree,
    "dispatch.legal_actions": dispatch.legal_actions,
    "dispatch.hash_key": dispatch.hash_key,
}
print(json.dumps({k: [sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values())]
                  for k, f in functions.items()}))
"""


def run_once(cache_dir):
    """Return {function: [cache hits, cache misses]} from one fresh process."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_loads_every_search_function_from_the_cache():
    with tempfile.TemporaryDirectory(prefix="ludo_flow_cache_test_") as cache_dir:
        first = run_once(cache_dir)
        assert all(misses > 0 for _, misses in first.values()), first
        second = run_once(cache_dir)
        for name, (hits, misses) in second.items():
            assert hits > 0 and misses == 0, (name, second)
