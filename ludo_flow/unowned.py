"""Unowned array views: numba arrays that skip reference counting in hot search loops.

Every array numba creates or receives carries a reference-counted memory block, and each
array view taken or passed to a (non-inlined) jitted call costs an atomic increment and
decrement of that count. A search that takes `states[ply]` and calls a kernel with it a few
times per node spends a large share of its time in those atomics. `unowned(a)` returns a view
of the same memory with no memory block behind it, so the counting becomes a null check.

The caller must keep the real array alive while the view is in use: pass arrays owned by
the Python caller (they live for the whole call), never a temporary made inside the jitted
function (numba frees a variable after its last use).
"""
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _void_pointer(typingctx, address):
    """Return the integer `address` as a void pointer."""
    sig = types.voidptr(address)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@njit(cache=True, inline="always")
def unowned(a):
    """Return a view of the C-contiguous array `a` that holds no reference to its memory."""
    return carray(_void_pointer(a.ctypes.data), a.shape, a.dtype)
