"""A software prefetch for numba CPU kernels (LLVM's ``llvm.prefetch``).

The seed search is bound by memory latency: every query window looks up a dozen
random keys in a directory far larger than the cache, then reads the target where
each hit lands.  Those addresses are known a few dozen query positions ahead, so
asking for them early lets the misses overlap instead of queueing one after another.
A prefetch is only a hint: it never faults and never changes a result.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, arr, idx):
    """Hint that ``arr[idx]`` will be read soon (no bounds check: a hint cannot fault)."""
    if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(idx, types.Integer):
        return None
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]],
                                       wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, high temporal locality (keep in all cache levels), data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
