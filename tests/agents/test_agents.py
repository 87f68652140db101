"""The agent interface: registry and spec strings, the random agent, the human agent, the
evaluation functions, the dispatch, and the `bestmove` / `play` commands."""
import io
import math
from collections import Counter

import numpy as np
import pytest

import agents
import ludo_flow
from agents import AGENTS, Agent, AgentError, make_agent, parse_spec
from agents.human import HumanAgent
from ludo_flow import dispatch
from agents.cli import main as cli_main
from ludo_flow.rng import new_rng


@pytest.fixture(params=["flow", "tolkuchka"])
def game(request):
    return ludo_flow.load_game(request.param)


def test_registry_names_every_agent():
    assert set(AGENTS) == {"random", "alphabeta", "mcts", "human", "openspiel"}
    for name in ("random", "alphabeta", "mcts"):
        agent = make_agent(name)
        assert isinstance(agent, Agent)
        assert agent.name == name


def test_spec_strings_set_settings():
    agent = make_agent("mcts:simulations=2000,c=1.4,seed=7")
    assert isinstance(agent, agents.MCTSAgent)
    assert agent.options["simulations"] == 2000 and agent.options["c"] == 1.4
    assert agent.name == "mcts:simulations=2000,c=1.4,seed=7"
    assert make_agent(agent.name).options == agent.options
    assert parse_spec(" alphabeta : depth=3 , tt=0 ") == ("alphabeta", {"depth": "3", "tt": "0"})
    assert make_agent("alphabeta:depth=3", ludo_flow.load_game("flow"), depth=5).options["depth"] == 5


@pytest.mark.parametrize("spec,words", [
    ("minimax", ["unknown agent", "random, alphabeta, mcts, human"]),
    ("mcts:sims=10", ["unknown setting 'sims'", "did you mean 'simulations'", "ludo-flow agents"]),
    ("alphabeta:depth=x", ["depth must be int"]),
    ("alphabeta:depth=0", ["depth must be >= 1"]),
    ("alphabeta:tt=1000", ["power of two"]),
    ("mcts:simulations=0", ["give a budget"]),
    ("mcts:seed", ["key=value"]),
    ("random:seed=1,seed=2", ["given twice"]),
    ("", ["agent spec"]),
    ("mcts:c=nan", ["c must be a finite number", "'nan'"]),
    ("mcts:draw_eval=-inf", ["draw_eval must be a finite number"]),
    ("alphabeta:time=inf", ["time must be a finite number"]),
    ("mcts:time=1e999", ["time must be a finite number"]),
    ("alphabeta:tt=1099511627776", ["tt=1099511627776 would take 35.2 TB (35184372350976 bytes)",
                                    "this machine has"]),
    ("mcts:memory=99999999999", ["memory=99999999999 would take", "bytes", "this machine has"]),
    ("mcts:policy=uct,cutoff=4", ["policy=uct fixes cutoff, minimax, priors, expand, solver, draw_eval, eval, turn_order",
                                  "drop cutoff="]),
    ("mcts:policy=uct,eval=texel", ["drop eval="]),
    ("mcts:policy=uct,turn_order=0", ["drop turn_order="]),
    ("mcts:turn_order=2", ["turn_order must be <= 1"]),
    ("mcts:policy=minimax", ["policy must be one of informed, uct", "'minimax'"]),
    ("mcts:cutoff=-2", ["cutoff must be >= -1"]),
    ("mcts:minimax=1.5", ["minimax must be <= 1.0"]),
    ("mcts:solver=2", ["solver must be <= 1"]),
])
def test_bad_specs_raise_clear_value_errors(spec, words):
    with pytest.raises(ValueError) as info:
        make_agent(spec)
    assert isinstance(info.value, AgentError)
    for word in words:
        assert word in str(info.value)


def test_agents_refuse_finished_games_and_non_states():
    game = ludo_flow.load_game("flow", "fountain")
    s = game.new_initial_state()
    with pytest.raises(AgentError):
        make_agent("random").select_action(s.array)
    final = s.clone()
    rng = np.random.default_rng(0)
    while not final.is_terminal():
        final.apply(int(rng.choice(final.legal_actions())))
    for spec in ("random", "alphabeta:depth=1", "mcts:simulations=10"):
        with pytest.raises(AgentError, match="game is over"):
            make_agent(spec).select_action(final)


def test_random_agent_is_uniform_seeded_and_leaves_the_state_alone(game):
    s = game.new_initial_state()
    legal = s.legal_actions()
    agent = make_agent("random:seed=3")
    before = s.clone()
    picks = Counter(agent.select_action(s) for _ in range(200 * len(legal)))
    assert s == before
    assert set(picks) == set(legal)
    # Chi-square against uniform, df = len(legal) - 1; 3x df is far beyond chance here.
    expected = 200
    chi2 = sum((n - expected) ** 2 / expected for n in picks.values())
    assert chi2 < 3 * len(legal)
    one = make_agent("random:seed=3")
    two = make_agent("random:seed=3")
    assert [one.select_action(s) for _ in range(20)] == [two.select_action(s) for _ in range(20)]
    one.reset(9)
    two.reset(9)
    assert [one.select_action(s) for _ in range(20)] == [two.select_action(s) for _ in range(20)]


def test_dispatch_matches_each_games_kernels(game):
    k = game.kernels
    s = game.new_initial_state()
    rng = np.random.default_rng(1)
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    for _ in range(40):
        if s.is_terminal():
            break
        a = s.array
        n = dispatch.legal_actions(game.game_id, a, buf)
        assert sorted(buf[:n].tolist()) == sorted(s.legal_actions())
        assert dispatch.result(game.game_id, a) == k.result(a)
        assert dispatch.current_player(game.game_id, a) == k.current_player(a)
        assert dispatch.hash_key(game.game_id, a) == k.hash_key(a)
        assert dispatch.evaluate(game.game_id, a, dispatch.HAND) == k.evaluate(a)
        action = int(rng.choice(s.legal_actions()))
        out = np.empty_like(a)
        dispatch.apply(game.game_id, a, action, out)
        s.apply(action)
        assert np.array_equal(out, s.array)
    with pytest.raises(ValueError):
        dispatch.kernels_of(7)


def test_dispatch_random_actions_are_legal_and_playouts_end(game):
    rng = new_rng(4)
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    s = game.new_initial_state()
    for _ in range(30):
        a = dispatch.random_action(game.game_id, s.array, rng, buf)
        assert a in s.legal_actions()
        s.apply(int(a))
        if s.is_terminal():
            break
    start = game.new_initial_state()
    scratch = start.array.copy()
    code = dispatch.playout_in_place(game.game_id, scratch, rng, -1)
    assert code in (1, 2, 3) and code == game.kernels.result(scratch)
    scratch = start.array.copy()
    assert dispatch.playout_in_place(game.game_id, scratch, rng, 3) == 0  # cut off after 3 plies


def test_flow_tanh_is_tanh_and_odd():
    from numba import njit

    from ludo_flow.bits import odd_tanh
    tanh = njit(lambda x: odd_tanh(x))
    for x in np.concatenate([np.linspace(-25.0, 25.0, 5001), [0.0, 1e-300, 5e-324, 1e-9, 710.0]]):
        assert abs(tanh(x) - math.tanh(x)) <= 2.5e-16
        assert tanh(-x) == -tanh(x)
    assert tanh(1e6) == 1.0 and tanh(-np.inf) == -1.0


def test_evaluations_are_bounded_and_antisymmetric():
    flow = ludo_flow.load_game("flow")
    s = flow.new_initial_state()
    k = flow.kernels
    assert k.evaluate(s.array) == pytest.approx(0.0)  # the start is symmetric
    advanced = flow.from_string("1r1n1n1r/p1p1p1p1/1p1p1p1p/P7/8/2P1P1P1/1P1P1P1P/R1N1N1R1 b 1 - 1")
    assert 0 < k.evaluate(advanced.array) < 1  # White's pawn on a5 is nearer its goal
    # Mirror ranks and swap colours: the value changes sign.
    mirrored = advanced.array.copy()
    flip = lambda b: int.from_bytes(int(b).to_bytes(8, "little")[::-1], "little")
    mirrored[k.WHITE], mirrored[k.BLACK] = flip(advanced.array[k.BLACK]), flip(advanced.array[k.WHITE])
    mirrored[k.DAMES] = flip(advanced.array[k.DAMES])
    assert k.evaluate(mirrored) == pytest.approx(-k.evaluate(advanced.array))
    tolk = ludo_flow.load_game("tolkuchka")
    t = tolk.new_initial_state()
    T = tolk.kernels
    assert T.evaluate(t.array) == pytest.approx(0.0)
    up = tolk.from_string("WW6/8/8/8/8/8/8/BB4WW w - 0 0")  # four White checkers, two Black
    assert 0 < T.evaluate(up.array) < 1
    swapped = up.array.copy()
    swapped[T.WHITE], swapped[T.BLACK] = up.array[T.BLACK], up.array[T.WHITE]
    assert T.evaluate(swapped) == pytest.approx(-T.evaluate(up.array))
    for g in (flow, tolk):
        st = g.new_initial_state()
        rng = np.random.default_rng(2)
        while not st.is_terminal():
            assert -1 < g.kernels.evaluate(st.array) < 1
            st.apply(int(rng.choice(st.legal_actions())))


def test_human_agent_asks_again_until_the_move_is_legal():
    game = ludo_flow.load_game("flow", "fountain")
    s = game.new_initial_state()
    answers = iter(["", "z9-z9", "a1-a3", "a2-b2"])
    out = io.StringIO()
    agent = HumanAgent(input_fn=lambda prompt: next(answers), output=out)
    assert agent.select_action(s) == s.parse_action("a2-b2")
    text = out.getvalue()
    assert "legal:" in text and "a2-b2" in text
    assert text.count("try again") == 3


@pytest.mark.slow
def test_cli_bestmove_prints_stats_then_the_move(capsys):
    assert cli_main(["bestmove", "flow", "--variant", "fountain", "--after", "a2-b2",
                     "--agent", "alphabeta:depth=3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    s = ludo_flow.load_game("flow", "fountain").new_initial_state().apply_sequence("a2-b2")
    assert s.parse_action(lines[-1]) in s.legal_actions()
    assert any(line.startswith("nodes: ") for line in lines[:-1])
    assert any(line.startswith("pv: " + lines[-1]) for line in lines[:-1])
    assert cli_main(["bestmove", "tolkuchka", "--agent", "mcts:simulations=50"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] in [ludo_flow.load_game("tolkuchka").new_initial_state().action_to_string(a)
                         for a in ludo_flow.load_game("tolkuchka").new_initial_state().legal_actions()]
    assert any(line.startswith("visits: ") for line in lines)


def test_cli_reports_bad_agent_specs_on_one_line(capsys):
    assert cli_main(["bestmove", "flow", "--agent", "mcts:sims=3"]) == 2
    err = capsys.readouterr().err
    assert "unknown setting 'sims'" in err and len(err.strip().splitlines()) == 1


def test_cli_play_prints_moves_and_ends_with_the_result(capsys):
    assert cli_main(["play", "flow", "--variant", "stones", "--white", "alphabeta:depth=2",
                     "--black", "random", "--seed", "5"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] in ("1-0", "0-1", "1/2-1/2")
    assert lines[0].startswith("1. White ")
    # Replaying the printed moves gives the printed result.
    s = ludo_flow.load_game("flow", "stones").new_initial_state()
    for line in lines[:-1]:
        s.apply(s.parse_action(line.split()[-1]))
    assert s.result_string() == lines[-1]
    assert cli_main(["play", "tolkuchka", "--white", "random", "--black", "random", "--seed", "1",
                     "--param", "quiet_plies=10"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] in ("1-0", "0-1", "1/2-1/2")


def test_cli_play_with_a_human(monkeypatch, capsys):
    answers = iter(["nonsense", "b4-d6"] + ["quit"] * 10)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code = cli_main(["play", "tolkuchka", "--white", "human", "--black", "random",
                     "--param", "max_plies=2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "1. White b4-d6" in out and out.strip().splitlines()[-1] == "1/2-1/2"


def test_flow_fast_playout_plays_legal_actions_and_the_kernels_result():
    """Replaying every action of the kernel's `random_ply` through the State layer gives the same game."""
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    rng = new_rng(21)
    for variant in ("standard", "stones", "fountain"):
        game = ludo_flow.load_game("flow", variant, max_turns=40)
        k = game.kernels
        for _ in range(40):
            fast = game.new_initial_state().array.copy()
            kernel = game.new_initial_state()
            while fast[k.RESULT] == k.ONGOING:
                a = k.random_ply(fast, rng, buf)
                if a >= 0:
                    assert kernel.is_legal(int(a))
                    kernel.apply(int(a))
            assert kernel.result_string() == {1: "1-0", 2: "0-1", 3: "1/2-1/2"}[int(fast[k.RESULT])]
            assert np.array_equal(fast[:k.MASK], kernel.array[:k.MASK])


@pytest.mark.parametrize("after", ["", "b2-b3", "e3-e4", "e3-e4 c3-c4"])
def test_flow_fast_playout_draws_uniformly(after):
    game = ludo_flow.load_game("flow")
    s = game.new_initial_state().apply_sequence(after)
    legal = s.legal_actions()
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    rng = new_rng(8)
    draws = 150 * len(legal)
    picks = Counter()
    for _ in range(draws):
        picks[int(game.kernels.random_ply(s.array.copy(), rng, buf))] += 1
    assert set(picks) == set(legal)
    chi2 = sum((n - 150) ** 2 / 150 for n in picks.values())
    assert chi2 < 3 * len(legal)


def test_mcts_exploration_defaults_to_the_policys_constant_unless_given():
    from agents.mcts import INFORMED_C, UCT_C
    assert INFORMED_C != UCT_C
    assert make_agent("mcts").exploration() == INFORMED_C
    assert make_agent("mcts:policy=uct").exploration() == UCT_C
    for spec in ("mcts:c=1.0", f"mcts:c={INFORMED_C}", f"mcts:c={INFORMED_C},policy=uct"):
        agent = make_agent(spec)
        assert agent.exploration() == float(spec.split("c=")[1].split(",")[0])
        assert agent.name == spec  # a given c stays in the spec: it may differ from a default
    assert make_agent("mcts").name == "mcts"


# ---- settings the machine cannot hold, and numbers that are not finite ----------------------
def test_float_settings_must_be_finite_from_python_too():
    for value in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(AgentError, match="finite"):
            make_agent("mcts", c=value)
        with pytest.raises(AgentError, match="finite"):
            agents.AlphaBetaAgent(time=value)
    assert make_agent("mcts", c=1e300).options["c"] == 1e300


def test_memory_settings_are_bounded_by_the_machines_memory(monkeypatch):
    from agents import base
    from agents.alphabeta import table_bytes
    from agents.mcts import tree_bytes
    assert base.machine_memory() > 0
    monkeypatch.setattr(base, "machine_memory", lambda: 1 << 30)  # a 1 GiB machine
    assert table_bytes(1 << 24) < 1 << 30 < table_bytes(1 << 25)
    assert make_agent("alphabeta:tt=16777216").options["tt"] == 1 << 24
    with pytest.raises(AgentError) as info:
        make_agent("alphabeta:tt=33554432")
    assert f"({table_bytes(1 << 25)} bytes)" in str(info.value)
    assert "this machine has 1.1 GB (1073741824 bytes)" in str(info.value)
    eight = tree_bytes(1024) - tree_bytes(1016)  # bytes of 8 more nodes (above 512 nodes)
    nodes = (1 << 30) // eight * 8
    assert tree_bytes(nodes) <= 1 << 30 < tree_bytes(nodes + 8)
    make_agent(f"mcts:memory={nodes}")
    with pytest.raises(AgentError, match="would take"):
        make_agent(f"mcts:memory={nodes + 8}")


def test_machine_memory_falls_back_to_a_fixed_cap(monkeypatch):
    from agents import base

    def no_sysconf(name):
        raise ValueError(name)

    monkeypatch.setattr(base.os, "sysconf", no_sysconf)
    assert base.machine_memory() == base.FALLBACK_MEMORY_BYTES


def test_an_allocation_that_fails_is_an_agent_error(monkeypatch):
    import agents.alphabeta
    import agents.mcts
    state = ludo_flow.load_game("flow").new_initial_state()
    monkeypatch.setattr(agents.alphabeta, "table_rows", lambda entries: 1 << 40)  # 32 TiB
    with pytest.raises(AgentError, match="setting tt=1048576"):
        make_agent("alphabeta:depth=1").select_action(state)

    def no_tree(*args):
        raise MemoryError

    monkeypatch.setattr(agents.mcts.agent, "tree_arrays", no_tree)  # numpy could not allocate
    with pytest.raises(AgentError, match="could not be allocated"):
        make_agent("mcts:simulations=10").select_action(state)


# ---- last_stats: one schema per agent, the same keys on every path ---------------------------
STATS_TYPES = {
    "alphabeta": {"nodes": int, "depth": int, "seldepth": int, "score": (float, type(None)),
                  "pv": list, "time": float, "nodes_per_second": float, "tt_hits": int,
                  "stopped": str},
    "mcts": {"simulations": int, "nodes": int, "depth": int, "time": float,
             "simulations_per_second": float, "root_visits": int, "visits": list,
             "proven": (str, type(None)), "score": (float, type(None)), "pv": list,
             "reused_nodes": int, "stopped": str},
    "random": {"legal_actions": int},
    "human": {},
    "openspiel": {"legal_actions": int, "time": float},
}
# Flow "fountain" positions: Black's only legal action (a second step), and a forced result.
SINGLE_ACTION = "5/3p1/1pP1P/1PP2/5 b 2 d4 7"
FORCED = "3p1/3p1/1p3/4P/3P1 b 1 - 15"


def _check_stats(agent, stopped=None):
    stats = agent.last_stats
    assert tuple(stats) == type(agent).STATS_KEYS
    for key, kind in STATS_TYPES[agent.agent_name].items():
        assert isinstance(stats[key], kind), (key, stats[key])
    if stopped is not None:
        assert stats["stopped"] == stopped


def test_the_documented_stats_keys_are_the_classes_keys():
    assert {name: tuple(types) for name, types in STATS_TYPES.items()} == {
        name: cls.STATS_KEYS for name, cls in AGENTS.items()}
    for name, cls in AGENTS.items():
        for key in cls.STATS_KEYS:
            assert f"`{key}`" in cls.__doc__, (name, key)


@pytest.mark.parametrize("spec,position,stopped", [
    ("alphabeta:depth=2", None, "depth"),
    ("alphabeta:depth=4", FORCED, "forced result"),
    ("alphabeta:depth=60,nodes=5000", None, "nodes"),
    ("alphabeta:depth=60,time=0.05", None, "time"),
    ("alphabeta:depth=3", SINGLE_ACTION, "single legal action"),
    ("mcts:simulations=300", None, "simulations"),
    ("mcts:simulations=0,time=0.05", None, "time"),
    ("mcts:simulations=100000,memory=2000", None, "memory full"),
    ("mcts:simulations=5000", FORCED, "root proven"),
    ("mcts:simulations=300", SINGLE_ACTION, "single legal action"),
    ("mcts:simulations=300,reuse=1", None, "simulations"),
    ("mcts:simulations=300,policy=uct", None, "simulations"),
    ("mcts:simulations=5000,policy=uct", FORCED, "simulations"),  # no solver: nothing proven
    ("random", None, None),
    ("random", SINGLE_ACTION, None),
])
def test_last_stats_has_the_same_keys_on_every_path(spec, position, stopped):
    game = ludo_flow.load_game("flow", "fountain")
    state = game.new_initial_state() if position is None else game.from_string(position)
    if position == SINGLE_ACTION:
        assert len(state.legal_actions()) == 1
    agent = make_agent(spec, game)
    for _ in range(2):  # a second move too (tables and trees kept)
        assert agent.select_action(state) in state.legal_actions()
        _check_stats(agent, stopped)


def test_human_stats_are_empty():
    s = ludo_flow.load_game("tolkuchka").new_initial_state()
    agent = HumanAgent(input_fn=lambda prompt: "b4-d6", output=io.StringIO())
    agent.select_action(s)
    _check_stats(agent)
