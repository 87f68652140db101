"""Bit tricks on 64-bit boards shared by every kernel (square = rank * 8 + file), and the
evaluations' squashing function."""
import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


# popcount, lsb, msb and bit are plain calls, not `inline="always"`: numba inlines by copying
# a callee's IR into each caller and typing it again there, at hundreds of call sites, while
# LLVM inlines these one-instruction functions into their callers anyway. Compiled once each,
# they compile faster at unchanged speed (paired runs of benchmarks/bench_versions.py;
# docs/benchmarks.md, "Compile time").
@njit(cache=True)
def popcount(x):
    """Return the number of set bits of a uint64 board."""
    return _ctpop(x)


@njit(cache=True)
def lsb(x):
    """Return the index of the lowest set bit of a non-zero uint64 board."""
    return np.int64(trailing_zeros(x))


@njit(cache=True)
def msb(x):
    """Return the index of the highest set bit of a non-zero uint64 board."""
    return np.int64(63 - leading_zeros(x))


@njit(cache=True)
def bit(sq):
    """Return the uint64 board with only square `sq` set."""
    return types.uint64(1) << types.uint64(sq)


@njit(cache=True, inline="always")
def odd_tanh(x):
    """Return tanh(x) within 2.3e-16, as 1 - 2 / (exp(2|x|) + 1) with x's sign.

    libm's tanh took 9% of alpha-beta's time at Flow's horizon; exp costs a third of it.
    Odd by construction, so a position and its colour-swapped mirror still evaluate to
    exact opposites."""
    v = 1.0 - 2.0 / (np.exp(2.0 * abs(x)) + 1.0)
    return v if x >= 0.0 else -v


@njit(cache=True, inline="always")
def squashed_logit(weights, terms, bound):
    """Return tanh(logit / 2) of logit = weights . terms (two tuples of floats), clipped to
    +-bound: the expected score 2 p - 1 of a logistic model, strictly inside (-1, 1)."""
    logit = 0.0
    for i in range(len(weights)):
        logit += weights[i] * terms[i]
    return min(max(odd_tanh(logit / 2.0), -bound), bound)
