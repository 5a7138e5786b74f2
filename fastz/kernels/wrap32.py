"""int32 arithmetic for numba CPU kernels that stays int32 (it wraps, as C's does).

Numba widens int32 operands of ``+``, ``-`` and ``*`` to int64, and a comparison of
widened values cannot be narrowed back by LLVM.  On AVX2 that halves the SIMD lanes
and emulates 64-bit multiplies and maxima (``kernels/rowvec.py``'s cell pass ran
1.5x slower for it).  These take two integers, cast both to int32 and return the
int32 result; the caller must know the true result fits (nothing here checks).
"""
from __future__ import annotations

from numba import types
from numba.extending import intrinsic


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
