"""Batched games (ludo_flow.batch) against the single-State layer, game by game."""
import numpy as np
import pytest

from ludo_flow import load_game
from ludo_flow.batch import BatchedGames
from ludo_flow.errors import ActionError, ParameterError
from ludo_flow.outcome import LIMIT_DRAWS

pytestmark = pytest.mark.slow  # the first run compiles the batch kernels, serial and parallel, for both games

# Each case's random games reach the ends named last (Tolkuchka's random games rarely lose all checkers).
CASES = [("flow", "fountain", {"max_turns": 6}, ("terminated", "truncated")),
         ("tolkuchka", "standard", {"quiet_plies": 6, "max_plies": 30}, ("truncated",))]


def _expected(state):
    """Return (observation, mask, player) of a State as the batch writes them."""
    mask = np.zeros(state.kernels.ACTION_SPACE, dtype=bool)
    mask[state.legal_actions()] = True
    return state.observation(), mask, state.current_player()


@pytest.mark.parametrize("name,variant,params,reached", CASES)
def test_batch_matches_states(name, variant, params, reached):
    game = load_game(name, variant, **params)
    n = 5
    batch = BatchedGames(game, n, seed=3, parallel=name == "flow")
    out = batch.reset()
    states = [game.new_initial_state() for _ in range(n)]
    ends = {"terminated": 0, "truncated": 0}
    for _ in range(60):
        for i, st in enumerate(states):
            obs, mask, player = _expected(st)
            assert np.array_equal(out.observation[i], obs)
            assert np.array_equal(out.legal_mask[i], mask)
            assert out.current_player[i] == player
        actions = batch.random_actions()
        assert all(out.legal_mask[i, a] for i, a in enumerate(actions))
        out = batch.step(actions)
        for i, st in enumerate(states):
            st.apply(int(actions[i]))
            outcome = st.outcome()
            assert list(out.rewards[i]) == (st.returns() if outcome else [0.0, 0.0])
            truncated = outcome is not None and outcome.termination in LIMIT_DRAWS
            assert out.truncated[i] == truncated
            assert out.terminated[i] == (outcome is not None and not truncated)
            if outcome is not None:
                ends["truncated" if truncated else "terminated"] += 1
                states[i] = game.new_initial_state()
    assert all(ends[kind] for kind in reached)  # the ends and the resets after them were checked


@pytest.mark.parametrize("name", ["flow", "tolkuchka"])
def test_threads_and_seeds_give_the_same_games(name):
    game = load_game(name)
    a, b = BatchedGames(game, 4, seed=9, parallel=True), BatchedGames(game, 4, seed=9, parallel=False)
    for _ in range(10):
        acts = a.random_actions()
        assert np.array_equal(acts, b.random_actions())
        a.step(acts)
        b.step(acts)
    assert np.array_equal(a.states, b.states)
    out = a.reset()
    start = game.new_initial_state()
    assert all(np.array_equal(out.observation[i], start.observation()) for i in range(4))
    assert not out.rewards.any() and not out.terminated.any()


def test_bad_actions_name_the_game():
    game = load_game("flow", "fountain")
    batch = BatchedGames(game, 3)
    mask = batch.reset().legal_mask
    before = batch.states.copy()
    good = batch.random_actions()
    bad = good.copy()
    bad[1] = 5000
    with pytest.raises(ActionError, match="game 1 of the batch: action 5000 is out of range"):
        batch.step(bad)
    bad[1] = -1
    with pytest.raises(ActionError, match="game 1 of the batch"):
        batch.step(bad)
    bad = good.copy()
    bad[2] = next(a for a in range(4096) if not mask[2, a])
    with pytest.raises(ActionError, match="game 2 of the batch: action .* is illegal"):
        batch.step(bad)
    with pytest.raises(ActionError, match="shape"):
        batch.step(good[:2])
    with pytest.raises(ActionError, match="integers"):
        batch.step(good.astype(np.float64))
    with pytest.raises(ActionError, match="numpy array"):
        batch.step(list(good))
    assert np.array_equal(batch.states, before)  # nothing was played
    with pytest.raises(ParameterError):
        BatchedGames(game, 0)
