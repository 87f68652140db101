"""ludo_flow.specialize: a function bound to a game (and to settings) compiles only their branches."""
import numpy as np
import pytest
from numba import njit
from numba.core import config

from ludo_flow.dispatch import FLOW, HAND, TUNED
from ludo_flow.specialize import for_game, game_jit

pytestmark = pytest.mark.skipif(config.DISABLE_JIT, reason="counts numba's compiled signatures")


@njit
def _hand(x):
    return x + 1


@njit
def _tuned(x):
    return x + 2


@njit
def _flow_part(x):
    return x * 10


@njit
def _tolkuchka_part(x):
    return x * 100


@game_jit()
def _scored(game, evaluation, x):
    # Compared with constants of this module, as in ludo_flow.dispatch: numba prunes a branch
    # only on a comparison of constants (not on an attribute such as TUNED).
    if evaluation == TUNED:
        y = _tuned(x)
    else:
        y = _hand(x)
    if game == FLOW:
        return _flow_part(y)
    return _tolkuchka_part(y)


def test_a_bound_game_and_setting_compile_only_their_branches(monkeypatch, tmp_path):
    # The generated entries cache under specialize.py's name and stamp, which an edit to this
    # file does not change: an empty cache folder of their own, so they are compiled here.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # numba re-reads it before compiling
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    bound = for_game(_scored, "flow", evaluation=TUNED)
    assert bound(np.int64(1)) == 30
    assert _tuned.signatures and not _hand.signatures
    assert _flow_part.signatures and not _tolkuchka_part.signatures
    assert for_game(_scored, "flow", evaluation=TUNED) is bound  # made once
    assert for_game(_scored, "tolkuchka", evaluation=HAND)(np.int64(1)) == 200
    assert _hand.signatures and _tolkuchka_part.signatures


def test_binding_an_argument_the_function_lacks_is_refused():
    with pytest.raises(TypeError, match="no argument 'depth'"):
        for_game(_scored, "flow", depth=3)
