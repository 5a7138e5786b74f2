"""LLVM-level helpers that keep the CPU row passes (``kernels/rowvec.py``) in int32 lanes.

* ``add32``, ``sub32``, ``mul32``: int32 arithmetic that stays int32 (it wraps, as
  C's does).  Numba widens int32 operands of ``+``, ``-`` and ``*`` to int64, and a
  comparison of widened values cannot be narrowed back by LLVM.  On AVX2 that halves
  the SIMD lanes and emulates 64-bit multiplies and maxima (the cell pass ran 1.5x
  slower for it).  The caller must know the true result fits; nothing here checks.
* ``running_max8``: eight steps of a running maximum at once, in one vector register
  (a log-step scan: shift by 1, 2 and 4 lanes, take maxima).  LLVM does not
  vectorise a scan, and as a scalar loop of compare-and-move the row's two running
  maxima cost more than the rest of the row (measured: the row passes 1.15-1.4x
  faster with it).
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 8


def _binop(name):
    def typer(typingctx, a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None
        sig = types.int32(a, b)

        def codegen(context, builder, signature, args):
            x = context.cast(builder, args[0], signature.args[0], types.int32)
            y = context.cast(builder, args[1], signature.args[1], types.int32)
            return getattr(builder, name)(x, y)

        return sig, codegen

    typer.__name__ = f"{name}32"
    typer.__doc__ = f"``int32(a) {dict(add='+', sub='-', mul='*')[name]} int32(b)`` as int32."
    return intrinsic(typer)


add32 = _binop("add")
sub32 = _binop("sub")
mul32 = _binop("mul")


@intrinsic
def running_max8(typingctx, ws, src, dst, u, carry):
    """Eight cells of a running maximum over row ``src`` of the int32 2-D ``ws``.

    Writes ``ws[dst, u + k] = max(carry, ws[src, u], ..., ws[src, u + k - 1])`` (the
    maximum each cell is entered with) for k = 0..8 and returns the maximum after
    the eighth cell, ``max(carry, ws[src, u:u + 8])`` (the ninth value written: what
    the next eight cells enter with), as int32.  No bounds check: ``u + 9`` must not
    pass the end of the rows.
    """
    if not (isinstance(ws, types.Array) and ws.ndim == 2 and ws.dtype == types.int32
            and all(isinstance(t, types.Integer) for t in (src, dst, u, carry))):
        return None
    sig = types.int32(ws, src, dst, u, carry)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        src_p = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], args[3]],
                                         wraparound=False)
        dst_p = cgutils.get_item_pointer(context, builder, aryty, ary, [args[2], args[3]],
                                         wraparound=False)
        i32 = ir.IntType(32)
        vec = ir.VectorType(i32, LANES)

        def mask(idx):
            return ir.Constant(vec, idx)

        def vmax(a, b):
            return builder.select(builder.icmp_signed(">", a, b), a, b)

        x = builder.load(builder.bitcast(src_p, vec.as_pointer()), align=4)
        lowest = ir.Constant(vec, [-(1 << 31)] * LANES)
        for k in (1, 2, 4):            # inclusive scan: lane j = max(x[0..j])
            shifted = builder.shuffle_vector(x, lowest,
                                             mask([LANES] * k + list(range(LANES - k))))
            x = vmax(x, shifted)
        c = context.cast(builder, args[4], signature.args[4], types.int32)
        cv = builder.insert_element(ir.Constant(vec, ir.Undefined), c, i32(0))
        cv = builder.shuffle_vector(cv, cv, mask([0] * LANES))
        incl = vmax(x, cv)
        # entered-with values: the carry, then the inclusive scan one cell on (a
        # store one lane later, not a shuffle: these shuffles bound the loop)
        builder.store(c, dst_p, align=4)
        after = builder.gep(dst_p, [i32(1)])
        builder.store(incl, builder.bitcast(after, vec.as_pointer()), align=4)
        # the maximum after the eighth cell as max(the scan's last lane, carry): a
        # scalar compare, where the last lane of ``incl`` put the broadcast, the
        # vector maximum and two extractions between one carry and the next
        return vmax(builder.extract_element(x, i32(LANES - 1)), c)

    return sig, codegen
