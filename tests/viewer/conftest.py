"""Shared by the viewer tests: small recorded games of every game and variant, one headless
Chromium for all browser tests (Debian's `chromium`, driven by playwright)."""
import os

import pytest

import ludo_flow
from agents.play import play_game
from agents.random_agent import RandomAgent

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VARIANTS = [("flow", "standard"), ("flow", "stones"), ("flow", "fountain"), ("tolkuchka", None)]


def make_record(game_name, variant, seed, opening=2, game_id=None, **params):
    """Return the record of a random game (two random opening moves, then random agents)."""
    game = ludo_flow.load_game(game_name, variant, **params)
    state = game.new_initial_state()
    start = state.to_string()
    words = []
    rng = RandomAgent(seed=seed + 1000)
    for _ in range(opening):
        action = rng.select_action(state)
        words.append(state.action_to_string(action))
        state.apply(action)
    fields = play_game(state, RandomAgent(), RandomAgent(), seed=seed)
    return {"id": game_id or f"{game_name}-{variant}-{seed}", "game": game_name, "variant": game.variant,
            "params": dict(game.params), "start": start, "opening": words, "white": "random",
            "black": f"random:seed={seed}", **fields}


@pytest.fixture(scope="session")
def records():
    """One random game of each game and variant (short limits keep them short)."""
    out = []
    for i, (name, variant) in enumerate(VARIANTS):
        params = {"max_turns": 40} if name == "flow" else {"max_plies": 80}
        out.append(make_record(name, variant, seed=i, **params))
    return out


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test of the session."""
    if not os.path.exists(CHROMIUM):
        pytest.fail("the browser tests need Debian's chromium (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
