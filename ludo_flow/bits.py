"""Bit tricks on 64-bit boards shared by every kernel (square = rank * 8 + file)."""
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


@njit(cache=True, inline="always")
def popcount(x):
    """Return the number of set bits of a uint64 board."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lsb(x):
    """Return the index of the lowest set bit of a non-zero uint64 board."""
    return np.int64(trailing_zeros(x))


@njit(cache=True, inline="always")
def msb(x):
    """Return the index of the highest set bit of a non-zero uint64 board."""
    return np.int64(63 - leading_zeros(x))


@njit(cache=True, inline="always")
def bit(sq):
    """Return the uint64 board with only square `sq` set."""
    return types.uint64(1) << types.uint64(sq)
