"""Kernel arrays from anywhere: `Game.from_array` refuses an array with PositionError, or the state
is over or has a legal action, and the State layer, the kernels and the agents run on it and on
every child without error (both games, every variant). Arrays that play reaches are all accepted."""
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ludo_flow
from agents.registry import make_agent
from ludo_flow import dispatch, registry
from ludo_flow.flow import kernels as FK
from ludo_flow.rng import new_rng
from ludo_flow.tolkuchka import kernels as TK
from walks import random_walk

CASES = [(entry.name, variant) for entry in registry.ENTRIES for variant in entry.game_class.variants]
IDS = [f"{name}-{variant}" for name, variant in CASES]
AGENT_SPECS = ("random", "alphabeta:depth=2", "mcts:simulations=20")


@functools.lru_cache(maxsize=None)
def _reachable(case):
    """Return kernel arrays play reaches in a case: seeded random walks through the State layer
    (choose phases, second steps, ko positions, finished games) and the ends of random playouts."""
    game = ludo_flow.load_game(*case)
    arrays = []
    for seed in range(6):
        walk = random_walk(game, seed, 250)
        arrays += [s.array.copy() for s in walk]
        for s in walk[::5]:  # and every choose phase one decision away: a walk meets few
            arrays += [c.array.copy() for c in map(s.child, s.legal_actions()) if getattr(c, "choosing", False)]
        for s in walk[::25]:
            scratch = s.array.copy()
            dispatch.playout_in_place(game.game_id, scratch, new_rng(seed), -1)
            arrays.append(scratch)
    return arrays


def _exercise(game, state, seed=0):
    """Run the State layer, the kernels and the agents on an accepted state and its children."""
    k = game.kernels
    legal = state.legal_actions()
    terminal = state.is_terminal()
    assert terminal == (not legal), "over, or a legal action: never both, never neither"
    assert (state.outcome() is None) == (not terminal)
    assert abs(state.returns()[0]) == (1.0 if terminal and state.outcome().winner is not None else 0.0)
    assert state.current_player() in (0, 1)
    assert float(k.evaluate(state.array)) == float(k.evaluate(state.array))  # not NaN
    assert -1.0 < float(k.evaluate_tuned(state.array)) < 1.0
    k.hash_key(state.array)
    state.observation()
    state.result_string()
    str(state), repr(state), state._repr_svg_()
    try:
        text = state.to_string()
    except ludo_flow.PositionError:
        assert getattr(state, "choosing", False)  # only a Flow choose phase has no string
    else:
        assert isinstance(text, str)
    for action in legal:
        assert state.parse_action(state.action_to_string(action)) == action
        child = state.child(action)
        child.outcome()
        assert game.from_array(child.array) == child  # play never leaves an accepted array
    if not terminal:
        k.playout_with_length(state.array, new_rng(seed))
        for spec in AGENT_SPECS:
            assert make_agent(spec, game, seed=seed).select_action(state) in legal


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_arrays_play_reaches_are_accepted(case):
    game = ludo_flow.load_game(*case)
    arrays = _reachable(case)
    states = [game.from_array(a) for a in arrays]
    assert all(np.array_equal(s.array, a) for s, a in zip(states, arrays))
    kinds = {(s.is_terminal(), getattr(s, "choosing", False)) for s in states}
    assert (True, False) in kinds and (False, False) in kinds
    if case[0] == "flow":
        assert (False, True) in kinds  # the walks meet choose phases
    for i, state in enumerate(states[::7]):
        _exercise(game, state, seed=i)


# Words that are fields' edges or anything: small values, limits of the counters, any 64 bits.
WORDS = st.one_of(st.integers(0, 70), st.integers(0, 2**64 - 1),
                  st.sampled_from([2**64 - 1, 2**63, 2**32 - 1, 2**32, 65535, 65536, 4096, 4097, 200, 400, 50]))


def _fix_history(a, n):
    """Make a Flow array's current history end, after `n` keys, with its arrangement's key."""
    a[FK.NHIST] = n
    a[FK.HIST + n - 1] = FK.arrangement_key(a[FK.WHITE], a[FK.BLACK], a[FK.DAMES])


@functools.lru_cache(maxsize=None)
def _choose_phases(case):
    """Return the Flow choose phases among the case's reachable arrays."""
    return [a for a in _reachable(case) if a[FK.PHASE] == FK.PHASE_CHOOSE]


@st.composite
def fuzzed_arrays(draw, case):
    """Return a uint64 array of the case's state size: random words, or an array play reaches
    with one to three words replaced, bit-flipped or taken from another such array. A Flow
    array then may get a step phase's empty history, or become a choose phase (made from one,
    its boards mutated) whose history ends with its arrangement's key, as a choose phase's does."""
    name, _ = case
    size = registry.BY_NAME[name].state_size
    if draw(st.integers(0, 9)) == 0:
        return np.array(draw(st.lists(WORDS, min_size=size, max_size=size)), dtype=np.uint64)
    pool = _reachable(case)
    repair = draw(st.sampled_from(["none", "at rest", "choose"])) if name == "flow" else "none"
    bases = _choose_phases(case) if repair == "choose" else pool
    a = bases[draw(st.integers(0, len(bases) - 1))].copy()
    fields = min(size, FK.HIST)  # the words before Flow's history (all of Tolkuchka's)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.one_of(st.integers(0, fields - 1), st.integers(0, size - 1)))
        how = draw(st.sampled_from(["set", "flip", "other"]))
        if how == "set":
            a[i] = draw(WORDS)
        elif how == "flip":
            a[i] ^= np.uint64(1 << draw(st.integers(0, 63)))
        else:
            a[i] = pool[draw(st.integers(0, len(pool) - 1))][i]
    if repair == "at rest":
        a[FK.NHIST] = 0
    elif repair == "choose":
        a[FK.PHASE], a[FK.RESULT] = FK.PHASE_CHOOSE, FK.ONGOING
        _fix_history(a, draw(st.one_of(st.integers(1, 3), st.integers(1, FK.MAX_WASHES + 1))))
    return a


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_arrays_are_refused_or_over_or_have_a_legal_action(case, data):
    game = ludo_flow.load_game(*case)
    array = data.draw(fuzzed_arrays(case))
    try:
        state = game.from_array(array)
    except ludo_flow.PositionError:
        return
    _exercise(game, state)


def _flow_array(text, **words):
    """Return the array of a Flow position string with some words set (slot name -> value)."""
    a = ludo_flow.load_game("flow").from_string(text).array.copy()
    for slot, value in words.items():
        a[getattr(FK, slot)] = value
    return a


def _choose_phase():
    """Return a Flow state in a choose phase (b2-b3 makes a wall with two candidates)."""
    state = ludo_flow.load_game("flow").new_initial_state()
    state.apply(state.parse_action("b2-b3"))
    assert state.choosing and len(state.legal_actions()) == 2
    return state


def test_choose_phase_without_candidates_is_refused():
    """The start position with words 6 and 7 (step 2, choose phase) set: no wash candidate, so
    no legal action, yet not over; the agents then crashed (random divided by zero)."""
    game = ludo_flow.load_game("flow")
    array = game.new_initial_state().array.copy()
    array[6], array[7] = 2, 1
    with pytest.raises(ludo_flow.PositionError, match="wash candidates"):
        game.from_array(array)


def _flow_cases():
    """Return (array, words of the refusal) of Flow arrays that are neither over nor have a legal action,
    or whose fields disagree."""
    start = "1r1n1n1r/p1p1p1p1/1p1p1p1p/8/8/P1P1P1P1/1P1P1P1P/R1N1N1R1 w 1 - 0"
    lone = "8/8/8/3p4/8/8/3P4/8 w 1 - 0"
    chosen = _choose_phase().array
    looped = chosen.copy()
    _fix_history(looped, FK.MAX_WASHES + 1)  # a current at the cascade cap: no wash is legal
    no_key = chosen.copy()
    no_key[FK.HIST + int(chosen[FK.NHIST]) - 1] ^= np.uint64(1)
    won = chosen.copy()
    won[FK.RESULT] = FK.WHITE_WINS
    return [
        (_flow_array(lone, STEP=2, FIRST=11), "legal step"),            # d2 moved first and is alone
        (looped, "legal wash"),
        (no_key, "history"),
        (won, "finished game"),
        (_flow_array(lone, NHIST=3), "history"),
        (_flow_array(lone, WHITE=0b11), "wall"),                        # a1 b1: a1 is a candidate
        (_flow_array(lone, WHITE=1 << 59), "far edge"),
        (_flow_array(lone, FIRST=11), "step 1"),
        (_flow_array(lone, FIRST=35), "first-moved"),                   # d5 is Black's
        (_flow_array(lone, RESULT=FK.DRAW), "drawn"),
        (_flow_array(lone, RESULT=FK.BLACK_WINS), "won"),               # White can step
        (_flow_array(lone, TURNS=2**64 - 1), "turns"),
        (_flow_array(lone, TURNS=65536), "turns"),
        (_flow_array(lone, MAX_TURNS=0), "max_turns"),
        (_flow_array(start, MAX_TURNS=50), "max_turns"),
    ]


def _tolkuchka_array(text, **words):
    """Return the array of a Tolkuchka position string with some words set (slot name -> value)."""
    a = ludo_flow.load_game("tolkuchka").from_string(text).array.copy()
    for slot, value in words.items():
        a[getattr(TK, slot)] = value
    return a


def _tolkuchka_cases():
    """Return (array, words of the refusal) of Tolkuchka arrays whose fields disagree."""
    knocked = "5B2/2BBB3/1W1W4/W1W1B1B1/3W1B1B/4W1B1/3WWW2/8 b b4-d6 0 1"
    start = "8/2BBB3/1W1B4/W1W1B1B1/1W1W1B1B/4W1B1/3WWW2/8 w - 0 0"
    return [
        (_tolkuchka_array(start, WHITE=int(TK.STANDARD_WHITE) | 1 << 7), "single"),
        (_tolkuchka_array(start, BLACK=0, SIDE=0), "no checkers"),      # Black moved last
        (_tolkuchka_array(knocked, QUIET=3), "quiet plies must be 0"),
        (_tolkuchka_array(knocked, KO=int(TK.ko_word(43, 25))), "ko move"),   # d6-b4: d6 is not empty
        (_tolkuchka_array(start, PLIES=2**40), "plies"),
        (_tolkuchka_array(start, QUIET=2**64 - 1), "quiet"),
        (_tolkuchka_array(start, QUIET_PLIES=0), "quiet_plies"),
        (_tolkuchka_array(start, MAX_PLIES=7), "max_plies"),
    ]


@pytest.mark.parametrize("name, cases", [("flow", _flow_cases), ("tolkuchka", _tolkuchka_cases)])
def test_inconsistent_arrays_are_refused(name, cases):
    """Each array here was accepted, though its fields disagree as play never leaves them."""
    game = ludo_flow.load_game(name)
    for array, words in cases():
        with pytest.raises(ludo_flow.PositionError, match=words):
            game.from_array(array)


def test_a_playout_cut_off_at_a_second_step_without_one_is_refused():
    """A Flow playout cut off after a first step stops where random_ply's fast path left step 2
    without asking for a legal second step (the next random_ply would end the turn): here White's
    only piece has stepped, so that array is neither over nor has a legal action."""
    game = ludo_flow.load_game("flow")
    array = game.from_string("8/8/8/3p4/8/8/3P4/8 w 1 - 0").array.copy()
    assert dispatch.playout_in_place(game.game_id, array, new_rng(0), 1) == dispatch.ONGOING
    assert array[FK.STEP] == 2 and not game.kernels.legal_actions(array, np.empty(FK.MAX_ACTIONS, np.int32))
    with pytest.raises(ludo_flow.PositionError, match="legal step"):
        game.from_array(array)
