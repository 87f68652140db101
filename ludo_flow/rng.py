"""A tiny seeded random generator for kernels: splitmix64 over a one-word uint64 array.

Every playout and search takes an `rng` array (`new_rng(seed)`) and advances it in place, so
the same seed gives the same game on every machine and in every process.
"""
import numpy as np
from numba import njit, uint64

_GOLDEN = uint64(0x9E3779B97F4A7C15)
_MIX1 = uint64(0xBF58476D1CE4E5B9)
_MIX2 = uint64(0x94D049BB133111EB)


def new_rng(seed=0):
    """Return a fresh generator state (uint64[1]) for the given integer seed."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return np.array([int(seed) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)


@njit(cache=True, inline="always")  # tiny and hot: a call would cost two atomic refcounts
def next_u64(rng):
    """Return the next 64-bit random word and advance the generator."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> uint64(30))) * _MIX1
    z = (z ^ (z >> uint64(27))) * _MIX2
    return z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def rand_below(rng, n):
    """Return an exactly uniform integer in [0, n) for 1 <= n < 2**32 (rejection sampling)."""
    bound = uint64(n)
    limit = (uint64(1) << uint64(32)) // bound * bound
    while True:
        x = next_u64(rng) >> uint64(32)
        if x < limit:
            return np.int64(x % bound)


@njit(cache=True, inline="always")
def rand_float(rng):
    """Return a uniform float in [0, 1) with 53 random bits."""
    return (next_u64(rng) >> uint64(11)) * (1.0 / 9007199254740992.0)
