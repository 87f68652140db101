"""The PettingZoo adapter: PettingZoo's own api_test and seed_test, random games checked move by
move against our State objects, truncation apart from termination, consecutive turns of one
agent, and both render modes (skipped without the `pettingzoo` extra)."""
import pickle
import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import ludo_flow  # noqa: E402
from ludo_flow import render  # noqa: E402
from ludo_flow.adapters import pettingzoo as adapter  # noqa: E402
from ludo_flow.adapters import raster  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

# (game, variant, parameters): short limits keep games short and make draws by a limit common.
CASES = [("flow", "fountain", {"max_turns": 10}), ("flow", "standard", {"max_turns": 20}),
         ("flow", "stones", {"max_turns": 10}), ("tolkuchka", "standard", {"quiet_plies": 50, "max_plies": 300})]
IDS = [f"{g}-{v}" for g, v, _ in CASES]


# api_test warns of a dict observation and of a non-Box observation space unless the environment
# is one of PettingZoo's own, which it lists by name; the action mask needs the dict.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.parametrize("game,variant,params", CASES, ids=IDS)
def test_pettingzoo_api_and_seed_tests_pass(game, variant, params):
    api_test(adapter.env(game, variant=variant, render_mode="ansi", **params), num_cycles=200)
    seed_test(lambda: adapter.env(game, variant=variant, **params), num_cycles=100)


def _play(env, seed):
    """Play a seeded game through `env`, checking it against our State move by move; return
    (our final state, the agents selected in order, the final infos)."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    raw = env.unwrapped
    state = raw.game.new_initial_state()
    selected, infos = [], None
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        assert np.array_equal(obs["observation"], state.observation())
        assert env.observation_space(agent).contains(obs)
        if termination or truncation:
            infos = info
            env.step(None)
            continue
        assert agent == adapter.AGENTS[state.current_player()] and reward == 0
        legal = state.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal)
        other = adapter.AGENTS[1 - state.current_player()]
        assert not env.observe(other)["action_mask"].any()
        selected.append(agent)
        action = rng.choice(legal)
        env.step(action)
        state.apply(action)
        assert np.array_equal(raw.game_state.array, state.array)
    assert state.is_terminal() and env.agents == []
    return state, selected, infos


@pytest.mark.parametrize("game,variant,params", CASES, ids=IDS)
def test_random_games_agree_move_by_move_with_our_states(game, variant, params):
    seen = set()
    for seed in range(6):
        env = adapter.env(game, variant=variant, **params)
        state, selected, info = _play(env, seed)
        outcome = state.outcome()
        assert info == {"termination": outcome.termination.value, "result": outcome.result}
        seen.add(outcome.termination in adapter.TRUNCATIONS)
        if game == "flow":  # two steps a turn: one agent decides twice in a row
            assert any(a == b for a, b in zip(selected, selected[1:]))
    assert seen == {True, False}  # both a truncated and a terminated game among the seeds


def test_an_environment_pickles_mid_game():
    env = adapter.env("flow", variant="fountain", render_mode="ansi")
    env.reset(seed=2)
    env.step(env.unwrapped.game_state.parse_action("a2-b2"))
    copy = pickle.loads(pickle.dumps(env))  # vectorised and multiprocess trainers pickle environments
    assert copy.agent_selection == env.agent_selection and copy.render() == env.render()
    action = env.unwrapped.game_state.legal_actions()[0]
    env.step(action)
    copy.step(action)
    assert np.array_equal(copy.unwrapped.game_state.array, env.unwrapped.game_state.array)


def test_rewards_terminations_and_truncations_at_the_end():
    env = adapter.raw_env("tolkuchka", quiet_plies=1)
    env.reset()
    env.step(env.game_state.parse_action("e2-e4"))  # quiet: the limit of 1 quiet ply is reached
    assert env.truncations == {"player_0": True, "player_1": True}
    assert env.terminations == {"player_0": False, "player_1": False}
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert env.infos["player_0"] == {"termination": "quiet_plies", "result": "1/2-1/2"}
    env = adapter.raw_env("flow", position="p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0")
    env.reset()
    state = env.game_state.clone()
    while not state.is_terminal():  # White runs a pawn up the c file, Black shuffles
        env.step(state.legal_actions()[0] if state.current_player() else _advance(state))
        state = env.game_state
    outcome = state.outcome()
    assert outcome.termination not in adapter.TRUNCATIONS and env.terminations["player_0"]
    winner = adapter.AGENTS[outcome.winner]
    assert env._cumulative_rewards[winner] == 1 and env._cumulative_rewards[adapter.AGENTS[1 - outcome.winner]] == -1


def _advance(state):
    """Return the legal step that moves a White piece furthest up the board."""
    return max(state.legal_actions(), key=lambda a: ((a & 63) >> 3) - ((a >> 6) >> 3))


def _pixel(image, height, sq, dx=0.0, dy=0.0):
    """Return the colour of the pixel (dx, dy) from the centre of square `sq` of a raster."""
    x, y = render.square_origin(sq, height)
    return tuple(int(v) for v in image[int(y + render.CELL / 2 + dy), int(x + render.CELL / 2 + dx)])


def _tinted(square_colour, tint):
    colour, opacity = tint
    mixed = (1 - opacity) * np.array(raster.rgb(square_colour)) + opacity * np.array(raster.rgb(colour))
    return tuple(int(v) for v in np.rint(mixed))


def test_ansi_and_rgb_rendering():
    env = adapter.env("flow", render_mode="ansi")
    env.reset()
    assert env.render() == str(env.unwrapped.game_state)
    env = adapter.env("flow", render_mode="rgb_array", max_turns=20)
    env.reset()
    start = env.render()
    assert start.shape == (render.PAD + 8 * render.CELL + render.LABEL_BAND,
                           render.LABEL_BAND + 8 * render.CELL + render.PAD, 3) and start.dtype == np.uint8
    dark, light = raster.rgb(render.DARK_SQUARE), raster.rgb(render.LIGHT_SQUARE)
    assert _pixel(start, 8, 0, 15, 15) == dark and _pixel(start, 8, 8, 15, 15) == light   # a1, a2
    assert _pixel(start, 8, 18, -8) == raster.rgb(render.WHITE_PIECE[0])                 # c3: a White pawn
    assert _pixel(start, 8, 41, -8) == raster.rgb(render.BLACK_PIECE[0])                 # b6: a Black pawn
    assert _pixel(start, 8, 28, 15, 15) == light                                         # e4: empty
    env.step(env.unwrapped.game_state.parse_action("b2-b3"))  # a choose phase: ~a3 and ~b3 ringed
    image = env.render()
    red = raster.rgb(render.MARK_COLOUR)
    assert _pixel(image, 8, 16, 18) == red and _pixel(image, 8, 17, 18) == red and _pixel(image, 8, 18, 18) != red
    assert _pixel(image, 8, 9, 15, 15) == _tinted(render.DARK_SQUARE, render.LAST_MOVE_TINT)   # b2, b3: the step
    assert _pixel(image, 8, 17, 17, 17) == _tinted(render.LIGHT_SQUARE, render.LAST_MOVE_TINT)
    env.step(env.unwrapped.game_state.parse_action("~a3"))  # a3 floats down to a2
    image = env.render()
    assert _pixel(image, 8, 16, 15, 15) == _tinted(render.DARK_SQUARE, render.LAST_MOVE_TINT)  # a3: the choice
    assert _pixel(image, 8, 8, 15, 15) == _tinted(render.LIGHT_SQUARE, render.CHANGED_TINT)    # a2: moved by it
    assert _pixel(image, 8, 16, 18) != red
    small = raster.board_rgb(ludo_flow.load_game("flow", "fountain").new_initial_state())
    assert small.shape == (render.PAD + 5 * render.CELL + render.LABEL_BAND,
                           render.LABEL_BAND + 5 * render.CELL + render.PAD, 3)
    tk = ludo_flow.load_game("tolkuchka").new_initial_state()
    tk.apply_sequence("b4-d6")  # knocks d6 over e7 to f8: the ko bars d6-b4 knocks
    ko = raster.board_rgb(tk)
    assert _pixel(ko, 8, 25) == red and _pixel(ko, 8, 25, 2, -2) == red    # the dashed line starts at b4
    assert _pixel(ko, 8, 25, -15, -15) == _tinted(render.DARK_SQUARE, render.LAST_MOVE_TINT)
    assert _pixel(ko, 8, 61, 15, 15) == _tinted(render.DARK_SQUARE, render.CHANGED_TINT)     # f8: knocked there
    env = adapter.env("flow")
    env.reset()
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert env.render() is None


def test_bad_parameters_and_actions_raise_clear_errors():
    with pytest.raises(ludo_flow.ParameterError, match="unknown game 'chess'"):
        adapter.env("chess")
    with pytest.raises(ludo_flow.ParameterError, match="render_mode must be one of ansi, rgb_array"):
        adapter.env("flow", render_mode="human")
    with pytest.raises(ludo_flow.ParameterError, match="unknown flow variant"):
        adapter.env("flow", variant="nope")
    with pytest.raises(ludo_flow.ParameterError, match="unknown tolkuchka parameter"):
        adapter.env("tolkuchka", max_turns=3)
    with pytest.raises(ludo_flow.PositionError):
        adapter.env("flow", position="nonsense")
    env = adapter.env("flow", variant="fountain")
    env.reset()
    with pytest.raises(ludo_flow.ActionError, match="illegal here"):
        env.step(5)
    with pytest.raises(ludo_flow.ActionError, match="an action is an int"):
        env.step("a1-b1")
    with pytest.raises(TypeError, match="no board picture"):
        raster.board_rgb("not a state")
