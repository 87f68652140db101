"""Correctness of the search agents on both games: wins in one, defences, exact values, budgets.

Test positions are found by seeded random play (so they are the same on every run) and
checked by brute force written here, independently of the agents' code.
"""
import random

import numpy as np
import pytest
from numba import njit

import ludo_flow
from agents import make_agent
from agents.alphabeta import WIN, AlphaBetaAgent
from ludo_flow import dispatch

EVALUATION = dispatch.EVALUATIONS[AlphaBetaAgent.settings["eval"].default]  # what the agent uses

# ---------------------------------------------------------------- brute force references

@njit
def minimax(game, state, depth, ply):
    """Plain minimax (no pruning, no table) with the alpha-beta agent's leaf and end scores."""
    player = dispatch.current_player(game, state)
    if depth <= 0:
        code = dispatch.result(game, state)
        if code != dispatch.ONGOING:
            if code == dispatch.DRAW:
                return 0.0
            winner = 0 if code == dispatch.WHITE_WINS else 1
            return 1000.0 - ply if winner == player else -(1000.0 - ply)
        v = dispatch.evaluate(game, state, EVALUATION)
        return -v if player == 1 else v
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    n = dispatch.legal_actions(game, state, buf)
    if n == 0:
        code = dispatch.result(game, state)
        if code == dispatch.DRAW:
            return 0.0
        winner = 0 if code == dispatch.WHITE_WINS else 1
        return 1000.0 - ply if winner == player else -(1000.0 - ply)
    best = -1.0e9
    child = np.empty_like(state)
    for i in range(n):
        dispatch.apply(game, state, buf[i], child)
        v = minimax(game, child, depth - 1, ply + 1)
        if dispatch.current_player(game, child) != player:
            v = -v
        if v > best:
            best = v
    return best


def winning_actions(state):
    """Return the actions after which the game is over, won by the player who made them."""
    me = state.current_player()
    wins = []
    for a in state.legal_actions():
        child = state.child(a)
        if child.is_terminal() and child.returns()[me] == 1:
            wins.append(a)
    return wins


def opponent_can_win_next(state, me):
    """Return True if, whatever `me` does with its remaining decisions of this turn, the
    opponent then has an immediate win (or `me` has already lost)."""
    if state.is_terminal():
        return state.returns()[me] < 0
    if state.current_player() != me:
        return bool(winning_actions(state))
    return all(opponent_can_win_next(state.child(a), me) for a in state.legal_actions())


def own_plies_left(state, me):
    """Return the most decisions `me` can still make before the opponent moves."""
    if state.is_terminal() or state.current_player() != me:
        return 0
    return 1 + max(own_plies_left(state.child(a), me) for a in state.legal_actions())


def random_states(game, seed, count, max_plies=400):
    """Yield `count` non-final states met in seeded uniformly random games."""
    rng = random.Random(seed)
    found = 0
    while True:
        state = game.new_initial_state()
        for _ in range(max_plies):
            if state.is_terminal():
                break
            yield state.clone()
            found += 1
            if found >= count:
                return
            state.apply(rng.choice(state.legal_actions()))


GAMES = {
    "flow-fountain": lambda: ludo_flow.load_game("flow", "fountain"),
    "flow-stones": lambda: ludo_flow.load_game("flow", "stones"),
    "flow-standard": lambda: ludo_flow.load_game("flow"),
    "tolkuchka": lambda: ludo_flow.load_game("tolkuchka"),
}


def win_in_one_positions(game, seed, count):
    """Return positions where some but not most actions win at once."""
    out = []
    for s in random_states(game, seed, 4000):
        wins = winning_actions(s)
        legal = s.legal_actions()
        if wins and len(wins) * 3 <= len(legal):
            out.append(s)
            if len(out) == count:
                break
    return out


SEARCHERS = ["alphabeta:depth=2", "mcts:simulations=300,seed=1",
             "mcts:simulations=300,policy=uct,seed=1"]


@pytest.mark.parametrize("name", ["flow-stones", "flow-standard", "tolkuchka"])
@pytest.mark.parametrize("spec", SEARCHERS)
def test_every_search_agent_takes_a_win_in_one(name, spec):
    game = GAMES[name]()
    positions = win_in_one_positions(game, seed=11, count=4)
    assert len(positions) >= 3
    for s in positions:
        agent = make_agent(spec, game)
        before = s.clone()
        action = agent.select_action(s)
        assert s == before
        assert action in winning_actions(s), (s, s.action_to_string(action))


@pytest.mark.parametrize("name", ["flow-stones", "flow-fountain", "tolkuchka"])
@pytest.mark.parametrize("kind", ["alphabeta", "mcts"])
def test_search_agents_avoid_a_loss_in_one_when_a_defence_exists(name, kind):
    game = GAMES[name]()
    checked = 0
    for s in random_states(game, seed=5, count=3000):
        me = s.current_player()
        legal = s.legal_actions()
        if len(legal) > 24 or winning_actions(s):
            continue
        doomed = [opponent_can_win_next(s.child(a), me) for a in legal]
        if not any(doomed) or all(doomed):
            continue
        # Deep enough to see every own decision left in this turn, then the opponent's move.
        depth = max(own_plies_left(s.child(a), me) for a in legal) + 2
        # The informed MCTS (the default) proves the losing moves lost with its solver.
        agent = AlphaBetaAgent(depth=depth) if kind == "alphabeta" else \
            make_agent("mcts:simulations=3000,seed=2", game)
        action = agent.select_action(s)
        assert not opponent_can_win_next(s.child(action), me), (s, s.action_to_string(action))
        checked += 1
        if checked == 5:
            break
    assert checked >= 3


@pytest.mark.parametrize("name,depth,count", [("flow-fountain", 4, 6), ("flow-stones", 3, 5),
                                              ("tolkuchka", 4, 6)])
def test_alphabeta_with_table_equals_plain_minimax(name, depth, count):
    game = GAMES[name]()
    agent = AlphaBetaAgent(depth=depth)  # one agent: its table carries over between positions
    rng = random.Random(3)
    states = list(random_states(game, seed=17, count=300))
    for s in rng.sample(states, count):
        if len(s.legal_actions()) < 2:
            continue
        agent.select_action(s)
        expected = minimax(game.game_id, s.array.copy(), depth, 0)
        assert agent.last_stats["score"] == pytest.approx(expected, abs=1e-12), s
        untabled = AlphaBetaAgent(depth=depth, tt=0)
        untabled.select_action(s)
        assert untabled.last_stats["score"] == pytest.approx(expected, abs=1e-12), s


def test_alphabeta_exact_values_near_the_end_prefer_faster_wins():
    # Few turns left: the whole tree fits in the horizon, so values are exact game results.
    game = ludo_flow.load_game("flow", "fountain", max_turns=6)
    seen = 0
    checked = 0
    for s in random_states(game, seed=23, count=400):
        if s.turns < 4 or len(s.legal_actions()) < 2:
            continue
        checked += 1
        if checked > 12:
            break
        exact = minimax(game.game_id, s.array.copy(), 12, 0)
        agent = AlphaBetaAgent(depth=12)
        agent.select_action(s)
        assert agent.last_stats["score"] == pytest.approx(exact, abs=1e-12)
        if abs(exact) > WIN / 2:
            seen += 1
    assert seen >= 1


def test_tt_key_decides_legal_actions_and_result():
    """Reachable states with the same table key have the same legal actions and result."""
    for name in ("flow-stones", "flow-fountain", "tolkuchka"):
        game = GAMES[name]()
        table = {}
        for s in random_states(game, seed=31, count=3000):
            key = int(dispatch.hash_key(game.game_id, s.array))
            facts = (tuple(sorted(s.legal_actions())), s.result_string(), s.current_player())
            assert table.setdefault(key, facts) == facts


def test_tt_key_sees_every_field_that_matters():
    flow = ludo_flow.load_game("flow")
    s = flow.new_initial_state().apply_sequence("b2-b3")  # a choose phase
    K = flow.kernels
    base = int(K.hash_key(s.array))
    for slot, value in ((K.SIDE, 1), (K.STEP, 2), (K.FIRST, 9), (K.TURNS, 5), (K.PHASE, 0)):
        changed = s.array.copy()
        changed[slot] = value
        assert int(K.hash_key(changed)) != base, slot
    changed = s.array.copy()
    changed[K.HIST] ^= np.uint64(1)  # another arrangement in the loop-rule history
    assert int(K.hash_key(changed)) != base
    tolk = ludo_flow.load_game("tolkuchka")
    t = tolk.new_initial_state().apply_sequence("b4-d6")  # a knock: the ko is set
    T = tolk.kernels
    base = int(T.hash_key(t.array))
    for slot in (T.SIDE, T.KO, T.QUIET, T.PLIES):
        changed = t.array.copy()
        changed[slot] = 0 if changed[slot] else 1
        assert int(T.hash_key(changed)) != base, slot


def exhaustive_value(game, state):
    """Return the exact result (+1 win, 0 draw, -1 loss) for the player to move."""
    v = minimax(game.game_id, state.array.copy(), 40, 0)
    return 1 if v > WIN / 2 else (-1 if v < -WIN / 2 else 0)


def value_after(game, state, action):
    """Return the exact result (+1, 0, -1) of `action` for the player who makes it."""
    me = state.current_player()
    child = state.child(action)
    if child.is_terminal():
        return int(child.returns()[me])
    v = exhaustive_value(game, child)
    return v if child.current_player() == me else -v


def test_mcts_finds_the_winning_move_of_a_solved_position():
    # Two turns left before the turn-limit draw: small enough to solve exactly here.
    game = ludo_flow.load_game("flow", "fountain", max_turns=6)
    found = 0
    for s in random_states(game, seed=41, count=1500):
        if s.turns < 4 or winning_actions(s) or len(s.legal_actions()) < 4:
            continue
        if exhaustive_value(game, s) != 1:
            continue
        good = [a for a in s.legal_actions() if value_after(game, s, a) == 1]
        if len(good) * 2 > len(s.legal_actions()):
            continue  # too easy: most moves win
        agent = make_agent("mcts:simulations=4000,seed=3", game)
        action = agent.select_action(s)
        assert action in good, (s, s.action_to_string(action))
        found += 1
        if found == 3:
            break
    assert found >= 1


@pytest.mark.parametrize("name", ["flow-standard", "tolkuchka"])
@pytest.mark.parametrize("spec", ["alphabeta:depth=3,seed=5", "alphabeta:nodes=3000,depth=30,seed=5",
                                  "mcts:simulations=400,seed=9", "mcts:simulations=300,reuse=1,seed=9",
                                  "mcts:simulations=400,policy=uct,seed=9", "mcts:simulations=400,cutoff=3,seed=9"])
def test_same_seed_same_budget_same_action_and_state_unchanged(name, spec):
    game = GAMES[name]()
    for s in list(random_states(game, seed=2, count=60))[::20]:
        before = s.clone()
        first = make_agent(spec, game).select_action(s)
        again = make_agent(spec, game).select_action(s)
        assert first == again
        assert s == before
        assert first in s.legal_actions()


@pytest.mark.parametrize("name", ["flow-stones", "tolkuchka"])
@pytest.mark.parametrize("spec", ["alphabeta:depth=2,seed=4", "mcts:simulations=60,reuse=1,seed=4",
                                  "random:seed=4"])
def test_agents_play_whole_games_with_legal_actions(name, spec):
    from agents.play import play_game
    game = GAMES[name]()
    record = play_game(game.new_initial_state(), make_agent(spec, game),
                       make_agent("random", game), seed=8)
    assert record["result"] in ("1-0", "0-1", "1/2-1/2")


@pytest.mark.parametrize("name", ["flow-standard", "tolkuchka"])
def test_informed_mcts_beats_random(name):
    from agents.play import play_game
    game = GAMES[name]()
    for seed in range(2):
        mcts, rand = make_agent("mcts:simulations=200,seed=1", game), make_agent("random", game)
        white, black = (mcts, rand) if seed == 0 else (rand, mcts)
        record = play_game(game.new_initial_state(), white, black, seed=seed)
        assert record["result"] == ("1-0" if seed == 0 else "0-1"), record["termination"]


def _tree_snapshot(tree):
    """Return copies of the tree arrays a proven-node check reads."""
    n = int(tree.ctl[0])
    return {k: getattr(tree, k)[:n].copy() for k in
            ("visits", "proven", "parent", "first_child", "n_tried", "player", "mover", "minimax",
             "term")}


@pytest.mark.parametrize("name", ["flow-fountain", "tolkuchka"])
def test_mcts_never_samples_a_proven_node_again_and_backs_up_minimax(name):
    game = GAMES[name]()
    checked = 0
    for s in list(random_states(game, seed=7, count=400))[::5]:
        if len(s.legal_actions()) < 2:
            continue
        agent = make_agent("mcts:simulations=3000,reuse=1,seed=1", game)
        agent.select_action(s)
        if agent.last_stats["proven"] is not None:
            continue
        first = _tree_snapshot(agent._tree)
        proven = np.flatnonzero(first["proven"] != 0)
        if proven.size == 0:
            continue
        agent.select_action(s)  # the same position: the whole tree is kept and searched on
        assert agent.last_stats["reused_nodes"] == first["visits"].size
        after = _tree_snapshot(agent._tree)
        assert after["visits"][0] > first["visits"][0]
        # A proven node, and so everything under it, is never selected again.
        assert (after["visits"][proven] == first["visits"][proven]).all()
        # Implicit minimax: each expanded node holds the max (White to move) or min of its
        # tried children's values (White's view), a proven child counting as its result.
        for x in range(after["visits"].size):
            f, k = after["first_child"][x], after["n_tried"][x]
            if f < 0 or k == 0:
                continue
            values = [(1.0 if (after["proven"][c] == 1) == (after["mover"][c] == 0) else -1.0)
                      if after["proven"][c] else after["minimax"][c] for c in range(f, f + k)]
            best = max(values) if after["player"][x] == 0 else min(values)
            assert after["minimax"][x] == best
        checked += 1
        if checked == 2:
            break
    assert checked >= 1


def test_mcts_path_stop_is_not_taken_for_a_full_tree():
    # A selection path at its length limit stops the search with its own reason: the tree is
    # not grown (that would not lengthen the path) and the move comes from what was searched.
    game = ludo_flow.load_game("flow")
    agent = make_agent("mcts:simulations=200,seed=1", game)
    s = game.new_initial_state()
    agent.select_action(s)
    nodes = agent._tree.max_nodes
    agent._path = np.zeros(3, dtype=np.int64)  # room for the root and two plies below it
    action = agent.select_action(s)
    assert action in s.legal_actions()
    assert agent.last_stats["stopped"] == "path too deep"
    assert agent.last_stats["depth"] <= 2
    assert agent._tree.max_nodes == nodes


def test_mcts_stops_cleanly_when_the_tree_is_full():
    game = ludo_flow.load_game("flow")
    agent = make_agent("mcts:simulations=100000,memory=2000,seed=1", game)
    s = game.new_initial_state()
    action = agent.select_action(s)
    assert action in s.legal_actions()
    assert agent.last_stats["stopped"] == "memory full"
    assert agent.last_stats["nodes"] <= 2000
    assert 0 < agent.last_stats["simulations"] < 100000


@pytest.mark.parametrize("name", ["flow", "tolkuchka"])
def test_mcts_tree_grows_when_full_and_searches_on_as_if_it_had_been_big(name, monkeypatch):
    import agents.mcts as mcts
    game = ludo_flow.load_game(name)
    s = next(x for x in random_states(game, seed=3, count=40) if len(x.legal_actions()) > 3)
    results = []
    for first in (4096, 1 << 20):  # grows four times or never
        monkeypatch.setattr(mcts.tree, "INITIAL_NODES", first)
        agent = make_agent("mcts:simulations=3000,expand=1,seed=5", game)
        action = agent.select_action(s)
        stats = {k: v for k, v in agent.last_stats.items() if k not in ("time", "simulations_per_second")}
        results.append((action, stats, agent._tree.max_nodes))
    (a1, stats1, size1), (a2, stats2, size2) = results
    assert size1 > 4096 and size2 == 1 << 20 and stats1["nodes"] > 4096
    assert (a1, stats1) == (a2, stats2)
    assert stats1["stopped"] == "simulations"


def test_mcts_does_not_grow_its_tree_when_growing_would_overrun_the_moves_time(monkeypatch):
    # A doubling of a few million nodes took up to 0.35 s and overran a 0.6 s move by half its
    # time. Here each doubling takes 0.25 s: the agent times the first and, with 0.5 s a move,
    # does not start a second that would end after the move's time.
    import time

    import agents.mcts as mcts
    from agents.mcts import agent as mcts_agent
    game = ludo_flow.load_game("flow")
    s = next(x for x in random_states(game, seed=3, count=40) if len(x.legal_actions()) > 3)
    make_agent("mcts:simulations=50,seed=1", game).select_action(s)  # compiled before the clock
    real_grown, doublings = mcts_agent.grown, []

    def slow_grown(tree, size):
        doublings.append(size)
        time.sleep(0.25)
        return real_grown(tree, size)

    monkeypatch.setattr(mcts.tree, "INITIAL_NODES", 1024)
    monkeypatch.setattr(mcts_agent, "grown", slow_grown)
    agent = make_agent("mcts:time=0.5,simulations=0,seed=1", game)
    action = agent.select_action(s)
    assert action in s.legal_actions() and agent.last_stats["stopped"] == "time"
    assert doublings == [2048]  # the old rule grew again at 0.25 s


def test_mcts_memory_default_fits_the_machine(monkeypatch):
    from agents import base
    from agents.mcts import INITIAL_NODES, MAX_DEFAULT_NODES, default_memory, tree_bytes
    monkeypatch.setattr(base, "machine_memory", lambda: 1 << 40)
    assert default_memory() == MAX_DEFAULT_NODES
    monkeypatch.setattr(base, "machine_memory", lambda: 1 << 30)  # 1 GiB: a quarter is 256 MiB
    nodes = default_memory()
    assert tree_bytes(nodes) <= 1 << 28 < tree_bytes(2 * nodes) and nodes >= INITIAL_NODES
    assert make_agent("mcts").memory_cap() == nodes
    assert make_agent("mcts:memory=5000").memory_cap() == 5000


def test_time_budgets_stop_the_searches():
    game = ludo_flow.load_game("flow")
    s = game.new_initial_state()
    mcts = make_agent("mcts:simulations=0,time=0.05", game)
    assert mcts.select_action(s) in s.legal_actions()
    assert mcts.last_stats["stopped"] == "time"
    ab = make_agent("alphabeta:depth=60,time=0.05", game)
    assert ab.select_action(s) in s.legal_actions()
    assert ab.last_stats["stopped"] == "time"


def test_node_budget_stops_alphabeta():
    game = ludo_flow.load_game("flow")
    s = game.new_initial_state()
    ab = make_agent("alphabeta:depth=60,nodes=5000", game)
    assert ab.select_action(s) in s.legal_actions()
    assert ab.last_stats["stopped"] == "nodes"
    assert ab.last_stats["nodes"] == 5000
    assert ab.last_stats["depth"] >= 2


def test_mcts_reuses_its_tree_and_counts_same_player_moves_right():
    game = ludo_flow.load_game("flow", "stones")
    agent = make_agent("mcts:simulations=500,reuse=1,seed=2", game)
    s = game.new_initial_state()
    agent.select_action(s)
    assert agent.last_stats["reused_nodes"] == 0
    s.apply(s.legal_actions()[0])  # White's first step: White moves again
    agent.select_action(s)
    assert agent.last_stats["reused_nodes"] > 1
    # The stats' values are from the mover's view: all in [-1, 1].
    assert all(-1 <= q <= 1 for _, _, q in agent.last_stats["visits"])


def test_mcts_kept_subtree_with_a_proven_win_stops_at_once():
    # A root proven won through a child of the same mover (Flow's first step, then the
    # winning second step): the kept subtree's root is decided by its kept children, so the
    # next search stops before its first simulation and plays the proven win.
    game = ludo_flow.load_game("flow")
    checked = 0
    for s in random_states(game, seed=11, count=3000):
        if checked >= 3:
            break
        agent = make_agent("mcts:simulations=2000,reuse=1,seed=3", game)
        action = agent.select_action(s)
        if agent.last_stats["proven"] != "win":
            continue
        after = s.child(action)
        if after.is_terminal() or after.current_player() != s.current_player():
            continue
        second = agent.select_action(after)
        stats = agent.last_stats
        assert stats["reused_nodes"] > 1
        assert stats["stopped"] == "root proven" and stats["simulations"] == 0
        assert stats["proven"] == "win"
        # The proof holds: the mover's next decisions (a wash choice may follow) win.
        final = after.child(second)
        for _ in range(8):
            if final.is_terminal() or final.current_player() != s.current_player():
                break
            final = final.child(agent.select_action(final))
            assert agent.last_stats["stopped"] in ("root proven", "single legal action")
        assert final.is_terminal() and final.returns()[s.current_player()] > 0
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("name, simulations, turn_order",
                         [("flow", 2000, 0), ("flow", 2000, 1), ("tolkuchka", 5000, 1)])
def test_mcts_kept_tree_holds_the_right_states_move_after_move(name, simulations, turn_order):
    # keep_subtree once moved the kept states down in the order of the nodes' indices, which
    # is not the order their pool slots were handed out in, and so overwrote states not yet
    # moved: the old code failed this within four plies in both games. With turn_order=1 a
    # kept root at a turn's second step lacked the steps its expansion dropped: the root has
    # every legal action.
    game = ludo_flow.load_game(name)
    players = [make_agent(f"mcts:simulations={simulations},reuse=1,turn_order={turn_order},"
                          f"seed={seed}", game) for seed in (1, 2)]
    s = game.new_initial_state()
    out = np.empty_like(s.array)
    reused = 0
    for _ in range(12):
        if s.is_terminal():
            break
        agent = players[s.current_player()]
        action = agent.select_action(s)
        reused += agent.last_stats["reused_nodes"]
        t = agent._tree
        assert (t.pool[t.slot[0]] == s.array).all()
        f0, n0 = t.first_child[0], t.n_children[0]
        assert sorted(t.action[f0:f0 + n0].tolist()) == sorted(s.legal_actions())
        for x in range(int(t.ctl[0])):
            f = t.first_child[x]
            if f < 0:
                continue
            assert t.n_children[x] > 0 and f + t.n_children[x] <= t.ctl[0]
            for ch in range(f, f + t.n_children[x]):
                assert t.parent[ch] == x
                if t.slot[ch] >= 0:
                    game.kernels.apply(t.pool[t.slot[x]], np.int32(t.action[ch]), out)
                    assert (out == t.pool[t.slot[ch]]).all(), (x, ch)
        s.apply(action)
    assert reused > 0


def test_mcts_turn_order_drops_transposed_steps_inside_the_tree_only():
    # turn_order=1: an inner node at a turn's second step has the children
    # dispatch.drop_transposed keeps; the root has every legal action, whatever its step.
    game = ludo_flow.load_game("flow")
    out = np.empty(ludo_flow.flow.kernels.STATE_SIZE, dtype=np.uint64)
    buf = np.zeros(dispatch.MAX_ACTIONS, dtype=np.int32)
    dropped = roots = 0
    for s in random_states(game, seed=5, count=60):
        if s.is_terminal() or len(s.legal_actions()) < 2:
            continue
        agent = make_agent("mcts:simulations=1500,turn_order=1,seed=4", game)
        agent.select_action(s)
        t = agent._tree
        f0, n0 = t.first_child[0], t.n_children[0]
        assert sorted(t.action[f0:f0 + n0].tolist()) == sorted(s.legal_actions())
        roots += s.step == 2
        for x in range(f0, f0 + n0):
            if t.first_child[x] < 0 or t.player[x] != t.player[0]:
                continue
            game.kernels.apply(s.array, np.int32(t.action[x]), out)
            n = dispatch.legal_actions(game.game_id, out, buf)
            kept = dispatch.drop_transposed(game.game_id, s.array, out, t.action[x], buf, n)
            f, k = t.first_child[x], t.n_children[x]
            assert sorted(t.action[f:f + k].tolist()) == sorted(buf[:kept].tolist())
            dropped += n - kept
    assert dropped > 100 and roots > 5


def test_alphabeta_pv_starts_with_the_move_and_is_legal():
    game = ludo_flow.load_game("flow", "fountain")
    s = game.new_initial_state()
    ab = make_agent("alphabeta:depth=5", game)
    action = ab.select_action(s)
    pv = ab.last_stats["pv"]
    assert pv[0] == action
    line = s.clone()
    for a in pv:
        assert line.is_legal(a)
        line.apply(a)


def test_alphabeta_starts_a_fresh_table_on_another_board():
    # The table key leaves out the board size: one agent moving between boards must not
    # take a table move from the other board (it could be illegal there).
    agent = AlphaBetaAgent(depth=3)
    for variant in ("fountain", "stones", "fountain", "standard"):
        s = ludo_flow.load_game("flow", variant).new_initial_state()
        tables = agent._tables
        assert agent.select_action(s) in s.legal_actions()
        assert agent._tables is not tables
    same = ludo_flow.load_game("flow", "standard").new_initial_state().apply_sequence("e3-e4")
    tables = agent._tables
    agent.select_action(same)
    assert agent._tables is tables


@pytest.mark.parametrize("setup", ["8/1B6/1BB5/8/4W3/3WW3/8/8 w - 0 0",
                                   "8/2B5/2BB4/2B5/8/3W4/3WW3/4W3 b - 0 0"])
def test_alphabeta_equals_plain_minimax_on_small_tolkuchka_setups(setup):
    game = ludo_flow.load_game("tolkuchka", quiet_plies=12)
    rng = random.Random(6)
    s = game.from_string(setup)
    agent = AlphaBetaAgent(depth=6)
    checked = 0
    while not s.is_terminal() and checked < 6:
        if len(s.legal_actions()) > 1:
            agent.select_action(s)
            expected = minimax(game.game_id, s.array.copy(), 6, 0)
            assert agent.last_stats["score"] == pytest.approx(expected, abs=1e-12), s
            checked += 1
        s.apply(rng.choice(s.legal_actions()))
    assert checked >= 3
