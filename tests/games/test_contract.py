"""The contract every registered game keeps, in every variant (as pgx's api_test holds every
environment to one API): the cases come from `ludo_flow.registry` and each Game class's
`variants`, so a new game or variant is held to it without editing this file.

Each case plays a few seeded random games to the end through the State layer, with the kernels
and the dispatch asked the same questions on the same arrays, and checks every state met; the
game's own test files keep only the game's own rules. The last part checks that the registry
and the jitted dispatch agree, and that an unknown game id is an error.
"""
import functools
import inspect
import random
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

import ludo_flow
from ludo_flow import dispatch, registry
from ludo_flow.rng import new_rng
from walks import random_walk

CASES = [(entry.name, variant) for entry in registry.ENTRIES for variant in entry.game_class.variants]
GAMES_PER_CASE = 4
RESULT_STRINGS = {dispatch.WHITE_WINS: "1-0", dispatch.BLACK_WINS: "0-1", dispatch.DRAW: "1/2-1/2"}


@pytest.fixture(params=CASES, ids=[f"{name}-{variant}" for name, variant in CASES])
def case(request):
    """Return (registry entry, Game) of one registered game and variant, default parameters."""
    name, variant = request.param
    return registry.BY_NAME[name], ludo_flow.load_game(name, variant)


@functools.lru_cache(maxsize=None)
def _played(name, variant):
    """Return the games of a case: lists of (state, action taken or None at the end), seeded.

    Played through the State layer; the kernels and the dispatch follow on their own arrays
    and must agree with it at every ply."""
    entry = registry.BY_NAME[name]
    game = ludo_flow.load_game(name, variant)
    k = entry.kernels
    buf = np.empty(entry.max_actions, dtype=np.int32)
    games = []
    for seed in range(GAMES_PER_CASE):
        rng = random.Random(f"{name}-{variant}-{seed}")
        state = game.new_initial_state()
        array = state.array.copy()
        record = []
        while True:
            legal = state.legal_actions()
            n = k.legal_actions(array, buf)
            assert sorted(buf[:n].tolist()) == sorted(legal)
            assert int(dispatch.legal_actions(entry.game_id, array, buf)) == n
            if not legal:
                record.append((state.clone(), None))
                break
            action = rng.choice(legal)
            record.append((state.clone(), action))
            state.apply(action)
            k.apply(array, action, array)
            assert np.array_equal(array, state.array)
        games.append(record)
    return games


def states_of(game):
    """Return every state met in the case's random games, the final ones included."""
    return [s for record in _played(game.name, game.variant) for s, _ in record]


# --- playing ---------------------------------------------------------------------------------

def test_random_games_end_through_the_state_layer_and_the_kernels(case):
    entry, game = case
    for record in _played(game.name, game.variant):
        last, none = record[-1]
        assert none is None and last.is_terminal() and last.legal_actions() == []
        assert entry.kernels.result(last.array) != dispatch.ONGOING
        assert all(not s.is_terminal() for s, _ in record[:-1])
    start = game.new_initial_state().array
    before = start.copy()
    values = [entry.kernels.playout_with_length(start, new_rng(9)) for _ in range(2)]
    assert values[0] == values[1] and values[0][0] in (-1.0, 0.0, 1.0) and values[0][1] > 0
    assert np.array_equal(start, before)
    rng = new_rng(5)
    for _ in range(20):
        scratch = start.copy()
        code = dispatch.playout_in_place(entry.game_id, scratch, rng, -1)
        assert code != dispatch.ONGOING and code == entry.kernels.result(scratch)
        assert game.from_array(scratch).is_terminal()


def test_a_states_legal_actions_are_its_arrays_whatever_was_asked_before(case):
    # The State keeps its legal actions once generated; they must follow apply, clone and
    # child, and a caller changing the list it was given must not change the state's.
    entry, game = case
    buf = np.empty(entry.kernels.MAX_ACTIONS, dtype=np.int32)

    def kernel_legal(state):
        return buf[:entry.kernels.legal_actions(state.array, buf)].tolist()

    for record in _played(game.name, game.variant):
        state = record[0][0].clone()
        for _, action in record[:-1]:
            given = state.legal_actions()
            assert given == kernel_legal(state)
            given.append(-1)
            given.clear()
            copy = state.clone()
            assert copy.legal_actions() == state.legal_actions() == kernel_legal(state)
            assert not state.is_terminal() and not state.is_legal(-1)
            child = state.child(action)
            state.apply(action)
            assert state.legal_actions() == child.legal_actions() == kernel_legal(state)
            assert copy.legal_actions() == kernel_legal(copy) and copy.is_legal(action)
        assert state.is_terminal() and state.legal_actions() == []
        assert entry.kernels.result(state.array) != dispatch.ONGOING


def test_apply_in_place_equals_apply_into_a_new_array(case):
    entry, game = case
    for state in states_of(game):
        for action in state.legal_actions():
            array = state.array.copy()
            out = np.empty_like(array)
            entry.kernels.apply(array, action, out)
            assert np.array_equal(array, state.array)           # the input is left alone
            entry.kernels.apply(array, action, array)
            assert np.array_equal(array, out)
            assert np.array_equal(out, state.child(action).array)


def _child_outcome_by_apply(entry, state, action, evaluation):
    """Return (result, value) of a child as `dispatch.child_outcome` defines it, from `apply`."""
    child = state.child(action).array
    code = int(entry.kernels.result(child))
    if code in (dispatch.WHITE_WINS, dispatch.BLACK_WINS):
        return code, 1.0 if code == dispatch.WHITE_WINS else -1.0
    return code, float(dispatch.evaluate(entry.game_id, child, evaluation))


def test_child_outcome_equals_apply_then_result_and_evaluate(case):
    entry, game = case
    scratch = np.empty(entry.state_size, dtype=np.uint64)
    codes = set()
    for state in states_of(game):
        for action in state.legal_actions():
            for evaluation in (dispatch.HAND, dispatch.TUNED):
                got = dispatch.child_outcome(entry.game_id, state.array, action, evaluation, scratch)
                assert (int(got[0]), float(got[1])) == _child_outcome_by_apply(
                    entry, state, action, evaluation), (state.to_string(), action)
                codes.add(int(got[0]))
    # the games end, so the children met include ending ones (every game's last action)
    assert dispatch.ONGOING in codes and codes - {dispatch.ONGOING}


def test_drop_transposed_drops_only_positions_the_other_order_reaches(case):
    # A search drops these inside its tree (MCTS turn_order=1): each dropped action c after the
    # same player's decision a from `before` must be reached by the other order, c then a.
    entry, game = case
    gid = entry.game_id
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    for before in states_of(game)[::2]:
        for a in before.legal_actions():
            after = before.child(a)
            if after.is_terminal() or after.current_player() != before.current_player():
                continue
            legal = after.legal_actions()
            buf[:len(legal)] = legal
            kept = int(dispatch.drop_transposed(gid, before.array, after.array, a, buf, len(legal)))
            assert 0 < kept <= len(legal)
            assert buf[:kept].tolist() == [c for c in legal if c in set(buf[:kept].tolist())]
            for c in set(legal) - set(buf[:kept].tolist()):
                other = before.child(c)
                assert a in other.legal_actions()
                assert other.child(a).to_string() == after.child(c).to_string()


@njit(cache=True)
def _is_candidate_over_every_id(game, state, listed, action_space):
    """Return (ids reported that are not candidates, candidates reported) over every action id
    in [-1, action_space], given the candidate ids as a boolean table."""
    false_reports = 0
    found = 0
    for a in range(-1, action_space + 1):
        if dispatch.is_candidate(game, state, a):
            if a < 0 or a >= action_space or not listed[a]:
                false_reports += 1
            else:
                found += 1
    return false_reports, found


def test_legal_actions_are_exactly_the_confirmed_candidates(case):
    """Candidates hold every legal action and `is_legal_candidate` keeps exactly those;
    `is_candidate` reports no id that is not a candidate, and in each position either every
    candidate or none (a game may leave a whole kind of position to generation, as Flow does
    with its choose phase, never part of one)."""
    entry, game = case
    buf = np.empty(entry.max_actions, dtype=np.int32)
    complete = 0
    for state in states_of(game):
        array = state.array
        n = int(dispatch.candidate_actions(entry.game_id, array, buf))
        assert 0 <= n <= entry.max_actions
        candidates = buf[:n].tolist()
        assert len(set(candidates)) == n and all(0 <= a < entry.action_space for a in candidates)
        confirmed = [a for a in candidates if dispatch.is_legal_candidate(entry.game_id, array, a)]
        assert sorted(confirmed) == sorted(state.legal_actions())
        listed = np.zeros(entry.action_space, dtype=np.bool_)
        listed[candidates] = True
        false_reports, found = _is_candidate_over_every_id(entry.game_id, array, listed, entry.action_space)
        assert false_reports == 0
        assert found in (0, n)
        complete += n > 0 and found == n
    assert complete > 0  # is_candidate is not simply always False


def test_equal_hash_keys_mean_equal_legal_actions_and_result(case):
    """Over the states of the random games and every position a few plies from the start
    (where move orders transpose)."""
    entry, game = case
    states = states_of(game)
    frontier = [game.new_initial_state()]
    while frontier and len(states) < 3000:
        frontier = [s.child(a) for s in frontier for a in s.legal_actions()]
        states += frontier
    seen = {}
    for state in states:
        key = int(entry.kernels.hash_key(state.array))
        assert key == int(dispatch.hash_key(entry.game_id, state.array))
        facts = (sorted(state.legal_actions()), int(entry.kernels.result(state.array)))
        assert seen.setdefault(key, facts) == facts, state
    assert len(seen) > 1


def _check_round_trips(entry, game, state):
    """Check the array and string round trips of one state; return True if it has a string."""
    again = game.from_array(state.array)
    assert again == state and again.array is not state.array
    try:
        text = state.to_string()
    except ludo_flow.PositionError:
        return False
    try:
        parsed = game.from_string(text)
    except ludo_flow.PositionError:
        assert state.is_terminal(), text
        return True
    assert parsed.to_string() == text
    assert parsed.result_string() == state.result_string(), text
    if not state.is_terminal():
        assert int(entry.kernels.hash_key(parsed.array)) == int(entry.kernels.hash_key(state.array)), text
        assert sorted(parsed.legal_actions()) == sorted(state.legal_actions()), text
    return True


def test_string_and_array_round_trips(case):
    """`from_array(state.array)` gives the same state; a position string, where the state has one
    (`to_string` raises PositionError where it has none, as in Flow's choose phase), reads back
    to the same string, hash key, legal actions and result; a finished game's string may be
    refused (Flow refuses a won position)."""
    entry, game = case
    assert sum(_check_round_trips(entry, game, state) for state in states_of(game)) > 0
    start = game.new_initial_state()
    assert start.to_string() == game.variants[game.variant]
    assert game.from_string(game.variants[game.variant]) == start




@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6))
def test_round_trips_on_more_random_walks(case, seed):
    entry, game = case
    for state in random_walk(game, seed, 80):
        _check_round_trips(entry, game, state)


def test_evaluation_is_bounded_and_from_whites_side(case):
    """Both evaluations in (-1, 1) on every ongoing state met; from White's side: at the end
    of seeded random playouts the hand one is, on average, positive where White won and
    negative where Black won."""
    entry, game = case
    for state in states_of(game):
        for evaluate, evaluation in ((entry.kernels.evaluate, dispatch.HAND),
                                     (entry.kernels.evaluate_tuned, dispatch.TUNED)):
            value = float(evaluate(state.array))
            assert value == float(dispatch.evaluate(entry.game_id, state.array, evaluation))
            assert -1.0 <= value <= 1.0
            if not state.is_terminal():
                assert -1.0 < value < 1.0
    start = game.new_initial_state().array
    rng = new_rng(1)
    finals = {dispatch.WHITE_WINS: [], dispatch.BLACK_WINS: []}
    for _ in range(200):
        scratch = start.copy()
        code = int(dispatch.playout_in_place(entry.game_id, scratch, rng, -1))
        if code in finals:
            finals[code].append(float(entry.kernels.evaluate(scratch)))
    assert min(len(v) for v in finals.values()) >= 10, {c: len(v) for c, v in finals.items()}
    assert np.mean(finals[dispatch.WHITE_WINS]) > 0.0 > np.mean(finals[dispatch.BLACK_WINS])


def test_perft_one_is_the_number_of_legal_actions(case):
    entry, game = case
    for state in states_of(game):
        n = len(state.legal_actions())
        assert int(entry.kernels.perft(state.array, 1)) == n
        assert int(dispatch.perft(entry.game_id, state.array, 1)) == n
        assert int(entry.kernels.perft(state.array, 0)) == 1
    start = game.new_initial_state()
    assert int(entry.kernels.perft(start.array, 2)) == sum(
        len(start.child(a).legal_actions()) for a in start.legal_actions())


def test_every_state_renders_as_text_and_svg(case):
    _, game = case
    for state in states_of(game):
        text = str(state)
        assert isinstance(text, str) and text.strip()
        assert repr(state).startswith("<")
        root = ET.fromstring(state._repr_svg_())               # well-formed XML
        assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg")


def test_outcome_agrees_with_returns_and_result_string(case):
    entry, game = case
    terminations = set(game.terminations.values())
    for state in states_of(game):
        outcome = state.outcome()
        code = int(entry.kernels.result(state.array))
        if outcome is None:
            assert code == dispatch.ONGOING and not state.is_terminal()
            assert state.result_string() == "*" and state.returns() == [0.0, 0.0]
            continue
        assert state.is_terminal() and state.legal_actions() == []
        assert outcome.termination in terminations
        assert outcome.result == state.result_string() == RESULT_STRINGS[code]
        assert state.returns() == {0: [1.0, -1.0], 1: [-1.0, 1.0], None: [0.0, 0.0]}[outcome.winner]


# --- bad input -------------------------------------------------------------------------------

def _raises(error, func, *args, **kwargs):
    """Assert that func(*args, **kwargs) raises `error`, a LudoFlowError (and so a ValueError)."""
    assert issubclass(error, ludo_flow.LudoFlowError) and issubclass(error, ValueError)
    with pytest.raises(error):
        func(*args, **kwargs)


def test_bad_input_raises_the_librarys_errors(case):
    entry, game = case
    name = entry.name
    _raises(ludo_flow.ParameterError, ludo_flow.load_game, "no-such-game")
    _raises(ludo_flow.ParameterError, ludo_flow.load_game, name, "no-such-variant")
    _raises(ludo_flow.ParameterError, ludo_flow.load_game, name, no_such_parameter=1)
    for key, (_, low, high) in game.param_ranges.items():
        for value in (low - 1, high + 1, "many", 1.5, True):
            _raises(ludo_flow.ParameterError, ludo_flow.load_game, name, game.variant, **{key: value})
    for text in ("", "garbage", "8/8/8 w", game.variants[game.variant] + " extra", 42, None):
        _raises(ludo_flow.PositionError, game.from_string, text)
    state = game.new_initial_state()
    legal = state.legal_actions()
    illegal = next(a for a in range(entry.action_space) if a not in legal)
    for action in (-1, entry.action_space, 10**9, illegal, 1.5, None, True, "a1-a2"):
        _raises(ludo_flow.ActionError, state.apply, action)
        _raises(ludo_flow.ActionError, state.child, action)
    for action in (-1, entry.action_space, 10**9):
        _raises(ludo_flow.ActionError, state.action_to_string, action)
    for text in ("", "zz", "a1-", "~", "a9-a1", "??", 7, None):
        _raises(ludo_flow.ActionError, state.parse_action, text)
    start_names = {state.action_to_string(a) for a in legal}
    later = next(t for s in states_of(game) for t in map(s.action_to_string, s.legal_actions())
                 if t not in start_names)
    with pytest.raises(ludo_flow.ActionError, match="not a legal action"):
        state.parse_action(later)  # well-formed, but not legal here
    _raises(ludo_flow.ActionError, state.apply_sequence, "zz")
    array = state.array
    for junk in (array[:-1], np.append(array, array[:1]), array.reshape(1, -1), "text", [1.5] * array.size,
                 [-1] * array.size, None):
        _raises(ludo_flow.PositionError, game.from_array, junk)
    assert state.legal_actions() == legal  # nothing above changed the state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=12), pick=st.integers(0, 10**6))
def test_fuzzed_notation_is_a_legal_action_or_an_action_error(case, text, pick):
    _, game = case
    states = states_of(game)
    state = states[pick % len(states)]
    try:
        action = state.parse_action(text)
    except ludo_flow.ActionError:
        return
    assert action in state.legal_actions() and state.action_to_string(action) == text.strip()


# --- the registry and the dispatch -----------------------------------------------------------

def test_the_registry_lists_each_game_once_and_everything_reads_it():
    entries = registry.ENTRIES
    assert len({e.name for e in entries}) == len({e.game_id for e in entries}) == len(entries)
    assert ludo_flow.GAMES == {e.name: e.game_class for e in entries}
    for e in entries:
        assert registry.entry_of(e.name) is registry.entry_of(e.game_id) is registry.entry_of(e.game_class) is e
        game = ludo_flow.load_game(e.name)
        assert isinstance(game, e.game_class)
        assert (game.name, game.game_id, game.kernels) == (e.name, e.game_id, e.kernels)
        assert (e.game_class.name, e.game_class.game_id) == (e.name, e.game_id)
        assert e.kernels.MAX_ACTIONS == e.max_actions and e.kernels.STATE_SIZE == e.state_size
        assert e.kernels.ACTION_SPACE == e.action_space
        for variant in e.game_class.variants:
            assert ludo_flow.load_game(e.name, variant).new_initial_state().array.size <= e.state_size
        assert dispatch.kernels_of(e.game_id) is e.kernels
    assert dispatch.GAME_IDS == tuple(e.game_id for e in entries)
    assert dispatch.MAX_ACTIONS == max(e.max_actions for e in entries)
    assert dispatch.ACTION_SPACE == max(e.action_space for e in entries)
    assert (dispatch.FLOW, dispatch.TOLKUCHKA) == (registry.BY_NAME["flow"].game_id,
                                                   registry.BY_NAME["tolkuchka"].game_id)
    for bad in (7, -1, "chess", None, True, 1.0):
        with pytest.raises(ValueError):
            registry.entry_of(bad)
    with pytest.raises(ValueError):
        dispatch.kernels_of(7)


def test_each_registered_id_dispatches_to_its_own_kernels(case):
    entry, game = case
    k = entry.kernels
    gid = entry.game_id
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    rng = new_rng(2)
    for state in states_of(game)[::3]:
        a = state.array
        n = int(dispatch.legal_actions(gid, a, buf))
        assert sorted(buf[:n].tolist()) == sorted(state.legal_actions())
        assert dispatch.result(gid, a) == k.result(a)
        assert dispatch.current_player(gid, a) == k.current_player(a) == state.current_player()
        assert dispatch.hash_key(gid, a) == k.hash_key(a)
        assert dispatch.evaluate(gid, a, dispatch.HAND) == k.evaluate(a)
        assert dispatch.perft(gid, a, 2) == k.perft(a, 2)
        action = int(dispatch.random_action(gid, a, rng, buf))
        assert action in state.legal_actions() if n else action == -1
        for action in state.legal_actions()[:4]:
            out = np.empty_like(a)
            dispatch.apply(gid, a, action, out)
            assert np.array_equal(out, state.child(action).array)


def _dispatch_functions():
    """Return {name: jitted function} of every dispatch function taking a game id first."""
    found = {}
    for name, func in vars(dispatch).items():
        py = getattr(func, "py_func", None)
        if py is not None and list(inspect.signature(py).parameters)[:1] == ["game"]:
            found[name] = func
    return found


def test_the_unknown_id_test_finds_the_dispatch_functions():
    assert {"legal_actions", "candidate_actions", "is_candidate", "is_legal_candidate", "apply", "result",
            "current_player", "hash_key", "evaluate", "child_outcome", "random_action",
            "playout_in_place", "perft"} <= set(_dispatch_functions())


@pytest.mark.parametrize("name", sorted(_dispatch_functions()))
def test_an_unknown_game_id_is_an_error_not_another_games_kernels(name):
    func = _dispatch_functions()[name]
    entry = registry.ENTRIES[-1]  # a real array: the fall-through used to run the last game on it
    state = entry.game_class().new_initial_state().array.copy()
    values = {"state": state, "out": np.empty(dispatch.MAX_ACTIONS, dtype=np.int32), "action": 0,
              "rng": new_rng(1), "buf": np.empty(dispatch.MAX_ACTIONS, dtype=np.int32), "max_plies": 1,
              "depth": 1, "evaluation": dispatch.HAND, "before": state.copy(),
              "actions": np.zeros(dispatch.MAX_ACTIONS, dtype=np.int32), "n": 1}
    params = list(inspect.signature(func.py_func).parameters)[1:]
    if name in ("apply", "child_outcome"):
        values["out"] = state.copy()
    if name == "observation":
        values["out"] = np.empty(entry.observation_shape, dtype=np.float32)
    for game_id in (max(dispatch.GAME_IDS) + 1, -1, 7):
        with pytest.raises(ValueError, match="unknown game id"):
            func(game_id, *(values[p] for p in params))
    assert func(entry.game_id, *(values[p] for p in params)) is not None or name in ("apply", "observation")
