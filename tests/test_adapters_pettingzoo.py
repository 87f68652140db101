"""The PettingZoo adapter: PettingZoo's own api_test and seed_test, random games checked move by
move against our State objects, truncation apart from termination, consecutive turns of one
agent, and both render modes (skipped without the `pettingzoo` extra)."""
import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import ludo_flow  # noqa: E402
from ludo_flow import registry  # noqa: E402
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
    entry = registry.BY_NAME[raw.game.name]
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


def test_ansi_and_rgb_rendering():
    env = adapter.env("flow", render_mode="ansi")
    env.reset()
    assert env.render() == str(env.unwrapped.game_state)
    env = adapter.env("flow", render_mode="rgb_array", max_turns=20)
    env.reset()
    env.step(env.unwrapped.game_state.parse_action("b2-b3"))  # a choose phase: ~a3 and ~b3 ringed
    image = env.render()
    assert image.shape == (8 * 40 + 18, 8 * 40 + 18, 3) and image.dtype == np.uint8

    def pixel(sq, dx=0.0, dy=0.0):
        return tuple(image[int((7 - (sq >> 3)) * 40 + 20 + dy), int(18 + (sq & 7) * 40 + 20 + dx)])

    assert pixel(0, 15, 15) == raster._rgb(raster.DARK) and pixel(8, 15, 15) == raster._rgb(raster.LIGHT)
    assert pixel(18, -8) == raster._rgb(raster.WHITE_PIECE[0])   # c3: a White pawn
    assert pixel(41, -8) == raster._rgb(raster.BLACK_PIECE[0])   # b6: a Black pawn
    assert pixel(16, 18) == raster._rgb(raster.MARK) and pixel(17, 18) == raster._rgb(raster.MARK)
    assert pixel(18, 18) != raster._rgb(raster.MARK)
    assert pixel(28, 15, 15) == raster._rgb(raster.LIGHT)         # e4: empty
    small = raster.board_rgb(ludo_flow.load_game("flow", "fountain").new_initial_state(), cell=20)
    assert small.shape == (5 * 20 + 18, 5 * 20 + 18, 3)
    tk = ludo_flow.load_game("tolkuchka").new_initial_state()
    tk.apply_sequence("b4-d6")
    ko = raster.board_rgb(tk)
    assert tuple(ko[int(2 * 40 + 20), int(18 + 3 * 40 + 20 + 18)]) == raster._rgb(raster.MARK)  # d6 ringed
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
    with pytest.raises(ValueError):
        raster.board_rgb(env.unwrapped.game_state, cell=3)
