"""Memory helpers for hot search loops: unowned array views and a cache prefetch.

Unowned views. Every array numba creates or receives carries a reference-counted memory block, and each
array view taken or passed to a (non-inlined) jitted call costs an atomic increment and
decrement of that count. A search that takes `states[ply]` and calls a kernel with it a few
times per node spends a large share of its time in those atomics. `unowned(a)` returns a view
of the same memory with no memory block behind it, so the counting becomes a null check.

The caller must keep the real array alive while the view is in use: pass arrays owned by
the Python caller (they live for the whole call), never a temporary made inside the jitted
function (numba frees a variable after its last use).

Prefetch. `prefetch_row(table, row)` asks the CPU to start loading a row of a large table
(a transposition table) into its cache, so that work done in between hides the latency of
the cache miss the later read would otherwise wait for. It changes no value.
"""
from llvmlite import ir
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


@intrinsic
def prefetch_row(typingctx, table, row):
    """Hint the CPU to load row `row` of the C-contiguous 2-d array `table` (no bounds check:
    a prefetch of a bad address is ignored by the CPU, never a fault)."""
    sig = types.void(table, row)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        pointer = cgutils.get_item_pointer2(
            context, builder, data=array.data, shape=cgutils.unpack_tuple(builder, array.shape),
            strides=cgutils.unpack_tuple(builder, array.strides), layout=array_type.layout,
            inds=[index, context.get_constant(types.intp, 0)])
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32]),
            "llvm.prefetch.p0")
        # read (0), keep in all cache levels (3), data cache (1)
        builder.call(prefetch, [builder.bitcast(pointer, byte_pointer), ir.Constant(int32, 0),
                                ir.Constant(int32, 3), ir.Constant(int32, 1)])
        return context.get_dummy_value()

    return sig, codegen
