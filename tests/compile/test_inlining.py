"""ludo_flow.inlining: the per-node kernels are copied into marked search loops only."""
from types import SimpleNamespace

import numpy as np
from numba import njit

from agents import alphabeta
from ludo_flow.inlining import into_search_loops, search_loop


@njit(inline=into_search_loops)
def _weighted_sum(a):
    total = 0
    for i in range(a.shape[0]):
        total += a[i] * (i + 3)
    return total


@njit
@search_loop
def _marked(a):
    return _weighted_sum(a) + 1


@njit
def _unmarked(a):
    return _weighted_sum(a) + 2


def test_a_kernel_is_inlined_into_marked_loops_and_called_elsewhere():
    a = np.arange(5, dtype=np.int64)
    expected = sum(int(x) * (i + 3) for i, x in enumerate(a))
    assert _marked(a) == expected + 1
    # Copied into the marked loop: numba never compiled the kernel as a function of its own.
    assert _weighted_sum.signatures == []
    assert _unmarked(a) == expected + 2
    assert len(_weighted_sum.signatures) == 1  # a call from the unmarked function


def test_the_cost_model_answers_by_the_function_being_compiled():
    def ir_of(module, name):
        return SimpleNamespace(func_id=SimpleNamespace(modname=module, func_qualname=name))

    kernel = ir_of("ludo_flow.flow.kernels", "apply")
    assert into_search_loops(None, ir_of(alphabeta.__name__, "negamax"), kernel)
    assert not into_search_loops(None, ir_of(alphabeta.__name__, "search"), kernel)
    assert not into_search_loops(None, ir_of("agents.mcts", "run"), kernel)
