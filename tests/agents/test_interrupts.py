"""Ctrl-C (SIGINT) during a search: the jitted searches stop, `select_action` raises
SearchInterrupted with the best action so far and leaves state and agent usable, the previous
handler is restored, and `ludo-flow bestmove` / `play` exit with status 130.

The signals here are real: `os.kill` of this process from a timer thread, and SIGINT sent to
a `ludo-flow` subprocess once its search runs. No test asserts a tight timing."""
import os
import resource
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import ludo_flow
from agents import make_agent
from agents.base import SearchInterrupted
from agents.clock import Interrupts

pytestmark = pytest.mark.slow  # compiles or starts processes: outside the fast lane

# Hang guards only: an interrupt that fails to stop a search ends it here instead of never.
GUARD = "time=120"
SEARCHES = {"alphabeta": f"alphabeta:depth=40,{GUARD}",
            "mcts": f"mcts:simulations=100000000,memory=8388608,{GUARD}"}
WARM = {"alphabeta": "alphabeta:depth=2", "mcts": "mcts:simulations=20"}
SHORT = {"alphabeta": {"depth": 3, "time": 0.0}, "mcts": {"simulations": 200, "time": 0.0}}


@pytest.fixture
def default_sigint():
    """Python's own SIGINT handler for the test (pytest may run with SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupt_after(seconds):
    """Start a timer thread that sends SIGINT to this process after `seconds`."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.mark.parametrize("kind", ["alphabeta", "mcts"])
@pytest.mark.parametrize("reuse", [0, 1])
def test_ctrl_c_stops_a_search_and_leaves_state_and_agent_usable(kind, reuse, default_sigint):
    if kind == "alphabeta" and reuse:
        pytest.skip("reuse is an MCTS setting")
    game = ludo_flow.load_game("flow")
    state = game.new_initial_state().apply_sequence("b2-b3")
    make_agent(WARM[kind], game).select_action(state)  # compile (or load) first
    spec = SEARCHES[kind] + (",reuse=1" if reuse else "")
    agent = make_agent(spec, game)
    before = state.array.copy()
    text = str(state)
    timer = _interrupt_after(0.5)
    start = time.perf_counter()
    with pytest.raises(SearchInterrupted) as info:
        agent.select_action(state)
    took = time.perf_counter() - start
    timer.join()
    assert took < 60  # stopped by the interrupt, long before the hang guard
    assert isinstance(info.value, KeyboardInterrupt)
    assert info.value.action in state.legal_actions()
    assert info.value.stats is agent.last_stats
    assert agent.last_stats["stopped"] == "interrupted"
    assert set(agent.last_stats) == set(type(agent).STATS_KEYS)
    assert "search interrupted" in str(info.value)
    assert np.array_equal(state.array, before) and str(state) == text
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    # The same agent (its table or tree kept) searches again, here with a short budget.
    agent.options.update(SHORT[kind])
    action = agent.select_action(state)
    assert action in state.legal_actions()
    assert agent.last_stats["stopped"] != "interrupted"
    assert np.array_equal(state.array, before)


@pytest.mark.parametrize("kind", ["alphabeta", "mcts"])
def test_ctrl_c_stops_a_search_that_reports_its_progress(kind, default_sigint):
    # Alpha-beta then returns to Python between depths and MCTS between slices: a Ctrl-C in
    # the search or in the report is still a SearchInterrupted with the move so far.
    game = ludo_flow.load_game("flow")
    state = game.new_initial_state().apply_sequence("b2-b3")
    make_agent(WARM[kind], game).select_action(state)
    agent = make_agent(SEARCHES[kind], game)
    reports = []
    timer = _interrupt_after(0.5)
    with pytest.raises(SearchInterrupted) as info:
        agent.select_action(state, on_progress=reports.append)
    timer.join()
    assert reports and info.value.action in state.legal_actions()
    assert agent.last_stats["stopped"] == "interrupted"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_custom_handler_is_called_once_and_the_search_answers(default_sigint):
    game = ludo_flow.load_game("flow")
    state = game.new_initial_state()
    make_agent(WARM["alphabeta"], game).select_action(state)
    calls = []

    def mine(signum, frame):
        calls.append(signum)

    signal.signal(signal.SIGINT, mine)
    agent = make_agent(SEARCHES["alphabeta"], game)
    timer = _interrupt_after(0.5)
    action = agent.select_action(state)  # the handler does not raise: the move so far
    timer.join()
    assert calls == [signal.SIGINT]
    assert action in state.legal_actions()
    assert agent.last_stats["stopped"] == "interrupted"
    assert signal.getsignal(signal.SIGINT) is mine


def test_ctrl_c_outside_the_jitted_search_raises_at_once(default_sigint):
    """Before the search runs (e.g. while numba compiles) the previous handler acts at once."""
    ctl = np.zeros(2, dtype=np.int64)
    with pytest.raises(KeyboardInterrupt) as info:
        with Interrupts(ctl, 0, 1):
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                time.sleep(0.01)
    assert not isinstance(info.value, SearchInterrupted)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ignored_sigint_and_other_threads_are_left_alone():
    ctl = np.zeros(2, dtype=np.int64)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with Interrupts(ctl, 0, 1) as guard:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert not guard.installed and not guard.interrupted
    finally:
        signal.signal(signal.SIGINT, previous)
    # A search in another thread installs nothing (signal.signal works only in the main thread).
    game = ludo_flow.load_game("flow")
    state = game.new_initial_state()
    out = {}

    def search():
        for spec in ("alphabeta:depth=2", "mcts:simulations=50"):
            agent = make_agent(spec, game)
            out[spec] = (agent.select_action(state), agent.last_stats["stopped"])

    handler = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(target=search)
    thread.start()
    thread.join()
    assert signal.getsignal(signal.SIGINT) is handler
    assert {stopped for _, stopped in out.values()} <= {"depth", "simulations"}
    assert all(a in state.legal_actions() for a, _ in out.values())


# ---- the command line, in a subprocess --------------------------------------------------------
def _cli(*args):
    return [sys.executable, "-m", "agents.cli", *args]


def _default_sigint_in_child():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # not inherited as ignored from a background shell


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_seconds(pid):
    """Return the CPU seconds process `pid` has used (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _interrupted_run(warm_args, args, searching=1.0):
    """Run `warm_args` to the end twice (it compiles or loads what `args` needs; the second
    run's CPU time is a cached start), then start `args`, wait until it has used `searching`
    CPU seconds more than that (its search runs), send it SIGINT and return (exit status,
    stdout, stderr)."""
    for _ in range(2):
        before = _children_cpu()
        started = time.perf_counter()
        warm = subprocess.run(_cli(*warm_args), capture_output=True, text=True, timeout=900)
        assert warm.returncode == 0, warm.stderr
        warm_cpu = _children_cpu() - before
        warm_wall = time.perf_counter() - started
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_default_sigint_in_child)
    try:
        deadline = time.perf_counter() + 120
        while time.perf_counter() < deadline and proc.poll() is None:
            cpu = _cpu_seconds(proc.pid)
            if cpu is None:  # no /proc: wait as long as the warm run took, and more
                time.sleep(warm_wall + 3 * searching)
                break
            if cpu > warm_cpu + searching:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)  # generous: it stops within a second
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


def _interrupted_search(warm_args, args, attempts=3):
    """`_interrupted_run` until the SIGINT came during the search (stdout not empty): a run
    that had to compile (the sources changed since the warm runs, so the cache folder did)
    may be interrupted before its search starts, and then it rightly prints nothing."""
    for _ in range(attempts):
        code, out, err = _interrupted_run(warm_args, args)
        if out.strip() or code != 130:
            break
    return code, out, err


@pytest.mark.parametrize("kind", ["alphabeta", "mcts"])
def test_bestmove_prints_the_best_move_so_far_and_exits_130(kind):
    spec = {"alphabeta": "alphabeta:depth=40",
            "mcts": "mcts:simulations=100000000,memory=8388608"}[kind]
    code, out, err = _interrupted_search(["bestmove", "flow", "--agent", WARM[kind]],
                                         ["bestmove", "flow", "--agent", spec])
    assert code == 130, (out, err)
    lines = out.strip().splitlines()
    state = ludo_flow.load_game("flow").new_initial_state()
    assert state.parse_action(lines[-1]) in state.legal_actions()
    assert "stopped: interrupted" in lines
    assert "interrupted" in err and "Traceback" not in err


@pytest.mark.parametrize("divide", [False, True])
def test_ctrl_c_ends_a_perft_that_would_never_end(divide):
    # the perft kernel cannot poll a clock: Ctrl-C waited for it, for ever at depth 30
    extra = ["--divide"] if divide else []
    code, out, err = _interrupted_run(["perft", "flow", "--depth", "2"],
                                      ["perft", "flow", "--depth", "30", *extra])
    assert code == -signal.SIGINT, (code, out, err)  # ended by the signal: the shell says 130
    assert "Traceback" not in err


def test_play_exits_130_on_ctrl_c():
    code, out, err = _interrupted_run(
        ["play", "flow", "--white", "alphabeta:depth=2", "--black", "random", "--param",
         "max_turns=2"],
        ["play", "flow", "--white", "alphabeta:depth=40", "--black", "random"])
    assert code == 130, (out, err)
    assert "interrupted" in err and "Traceback" not in err


def test_solve_prints_what_is_known_and_exits_130_on_ctrl_c():
    args = ["solve", "flow", "--variant", "fountain", "--max-turns", "14", "--memory", "16M"]
    code, out, err = _interrupted_search([*args, "--time", "0.1"], args)
    assert code == 130, (out, err)
    lines = out.strip().splitlines()
    assert lines[0] == "value: unknown for White to move (max_turns 14)", lines
    nodes = int(next(line for line in lines if line.startswith("nodes: ")).split()[1])
    seconds = float(next(line for line in lines if line.startswith("time: ")).split()[1])
    assert nodes > 0 and seconds > 0 and not any(line.startswith("proof size") for line in lines)
    assert "ludo-flow: interrupted: solve stopped before the value was known" in err
    assert "Traceback" not in err
