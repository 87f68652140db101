"""The observation tensor (docs/adapters.md): one kernel per game, read through the State layer,
the dispatch and both adapters alike. Each plane is checked against what the State layer says of
the same position, on seeded random walks of every registered game and variant."""
import numpy as np
import pytest

import ludo_flow
from ludo_flow import dispatch, registry
from ludo_flow.flow import kernels as FK
from ludo_flow.tolkuchka import kernels as TK
from walks import random_walk

CASES = [(entry.name, variant) for entry in registry.ENTRIES for variant in entry.game_class.variants]


def _board(plane):
    """Return the set of squares (rank * 8 + file) where an 8 x 8 plane is 1."""
    return {int(r) * 8 + int(f) for r, f in np.argwhere(plane == 1.0)}


def _constant(plane, value):
    return bool(np.all(plane == np.float32(value)))


def _check_flow(state, obs):
    pieces = state.pieces()
    kinds = {"P": 0, "R": 1, "N": 1, "p": 2, "r": 3, "n": 3}
    for plane in range(4):
        assert _board(obs[plane]) == {sq for sq, c in pieces.items() if kinds[c] == plane}
    assert _board(obs[FK.OBS_KNIGHTS]) == {sq for sq, c in pieces.items() if c in "Nn"}
    assert _board(obs[FK.OBS_ON_BOARD]) == {r * 8 + f for r in range(state.height) for f in range(state.width)}
    assert _constant(obs[FK.OBS_BLACK_TO_MOVE], state.current_player())
    assert _constant(obs[FK.OBS_STEP_TWO], state.step == 2)
    assert _constant(obs[FK.OBS_CHOOSING], state.choosing)
    first = int(state.array[FK.FIRST])
    moved = {first} if first != FK.NO_SQUARE and (state.step == 2 or state.choosing) else set()
    assert _board(obs[FK.OBS_FIRST_MOVED]) == moved
    assert _board(obs[FK.OBS_WASH_CANDIDATES]) == (set(state.wash_candidates()) if state.choosing else set())
    assert _constant(obs[FK.OBS_TURNS], state.turns / state.game.params["max_turns"])


def _check_tolkuchka(state, obs):
    checkers = state.checkers()
    assert _board(obs[TK.OBS_WHITE]) == {sq for sq, c in checkers.items() if c == "W"}
    assert _board(obs[TK.OBS_BLACK]) == {sq for sq, c in checkers.items() if c == "B"}
    assert _constant(obs[TK.OBS_BLACK_TO_MOVE], state.current_player())
    ko = state.ko
    assert _board(obs[TK.OBS_KO_TAIL]) == ({ko[0]} if ko else set())
    assert _board(obs[TK.OBS_KO_LANDING]) == ({ko[1]} if ko else set())
    if ko:  # the line through the tail and the landing square, to both edges
        tail, landing = ko
        df, dr = np.sign((landing & 7) - (tail & 7)), np.sign((landing >> 3) - (tail >> 3))
        line = set()
        for sign in (1, -1):
            f, r = tail & 7, tail >> 3
            while 0 <= f < 8 and 0 <= r < 8:
                line.add(r * 8 + f)
                f, r = f + sign * df, r + sign * dr
        assert _board(obs[TK.OBS_KO_LINE]) == line
    else:
        assert not obs[TK.OBS_KO_LINE].any()
    p = state.game.params
    assert _constant(obs[TK.OBS_QUIET], state.quiet / p["quiet_plies"])
    assert _constant(obs[TK.OBS_PLIES], state.plies / p["max_plies"])


CHECKS = {"flow": _check_flow, "tolkuchka": _check_tolkuchka}


@pytest.mark.parametrize("name,variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_every_plane_says_what_the_state_says(name, variant):
    game = ludo_flow.load_game(name, variant)
    entry = registry.BY_NAME[name]
    assert game.observation_shape == entry.observation_shape == entry.kernels.OBSERVATION_SHAPE
    choosing = 0
    for seed in range(3):
        for state in random_walk(game, f"obs-{name}-{variant}-{seed}", 400):
            before = state.array.copy()
            obs = state.observation()
            assert obs.shape == entry.observation_shape and obs.dtype == np.float32
            assert np.array_equal(state.array, before)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            CHECKS[name](state, obs)
            out = np.full(entry.observation_shape, 7.0, dtype=np.float32)  # every plane is written
            dispatch.observation(entry.game_id, state.array, out)
            assert np.array_equal(out, obs)
            choosing += getattr(state, "choosing", False)
    assert name != "flow" or variant == "stones" or choosing  # the walks reach choose phases


def test_flow_planes_of_a_choose_phase_and_a_second_step():
    state = ludo_flow.load_game("flow", max_turns=40).new_initial_state()
    state.apply_sequence("b2-b3")  # a wall of three at the edge: choose ~a3 or ~b3
    obs = state.observation()
    assert _board(obs[FK.OBS_WASH_CANDIDATES]) == {16, 17} and _constant(obs[FK.OBS_CHOOSING], 1)
    assert _board(obs[FK.OBS_FIRST_MOVED]) == {17} and _constant(obs[FK.OBS_STEP_TWO], 0)
    state.apply_sequence("~a3")
    obs = state.observation()
    assert _constant(obs[FK.OBS_STEP_TWO], 1) and _constant(obs[FK.OBS_CHOOSING], 0)
    assert _board(obs[FK.OBS_FIRST_MOVED]) == {17} and not obs[FK.OBS_WASH_CANDIDATES].any()
    state.apply_sequence("e1-e2")
    obs = state.observation()
    assert _constant(obs[FK.OBS_BLACK_TO_MOVE], 1) and _constant(obs[FK.OBS_TURNS], 1 / 40)


def test_tolkuchka_planes_of_a_knock():
    state = ludo_flow.load_game("tolkuchka", quiet_plies=10, max_plies=20).new_initial_state()
    state.apply_sequence("b4-d6")  # knocks d6 over e7 to f8
    obs = state.observation()
    assert _board(obs[TK.OBS_KO_TAIL]) == {25} and _board(obs[TK.OBS_KO_LANDING]) == {43}
    assert _board(obs[TK.OBS_KO_LINE]) == {16, 25, 34, 43, 52, 61}  # a3 b4 c5 d6 e7 f8
    assert _constant(obs[TK.OBS_QUIET], 0) and _constant(obs[TK.OBS_PLIES], 1 / 20)


def test_the_counter_planes_stop_at_1_past_their_limit():
    flow = ludo_flow.load_game("flow", "fountain", max_turns=5).from_string("p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 9")
    assert _constant(flow.observation()[FK.OBS_TURNS], 1)
    tk = ludo_flow.load_game("tolkuchka", quiet_plies=50, max_plies=60).from_string(
        "8/2BBB3/1W1B4/W1W1B1B1/1W1W1B1B/4W1B1/3WWW2/8 w - 80 70")
    obs = tk.observation()
    assert _constant(obs[TK.OBS_QUIET], 1) and _constant(obs[TK.OBS_PLIES], 1)


def test_importing_the_library_imports_no_optional_extra():
    import subprocess
    import sys
    code = ("import sys, ludo_flow, agents, agents.tournament, ludo_flow.adapters, ludo_flow.adapters.raster; "
            "s = ludo_flow.load_game('flow').new_initial_state(); s.observation(); "
            "print(sorted(m for m in ('pyspiel', 'open_spiel', 'pettingzoo', 'gymnasium') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
