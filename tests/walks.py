"""Seeded random walks through the State layer, shared by the test files."""
import random


def random_walk(game, seed, plies):
    """Return the states of a seeded uniformly random walk of up to `plies` decisions from the
    start of `game` (the start included; it stops early when the game ends)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    for _ in range(plies):
        legal = state.legal_actions()
        if not legal:
            break
        state.apply(rng.choice(legal))
        states.append(state.clone())
    return states
