"""Scores of the gapped engine in its int64 tables: *score words*.

The engine keeps scores in int64 tables beside positions and links (the accepted
alignments ``al``, an extension's result ``res``, the inspector's row record, the
sweep's state).  With LASTZ's integer scores a word is the score itself.  lastz_D's
scores may have fractions (``--infer``, a scores file with fractions): its
substitution table is float64 then, and a word holds the float64's bits, so that one
engine serves both and a fractional score is never rounded on its way through.
Which of the two is decided at compile time by the substitution table's dtype.

The DP's work rows follow the table too: int32 cells (the SIMD row passes) for
integer scores, float64 for fractional ones, summed in LASTZ's order.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from .dpcells import NEG

INT_MIN = -2147483648                 # C's INT_MIN, lastz's worstPossibleScore
FLT_MAX = 3.4028234663852886e+38      # C's FLT_MAX (lastz_D's is -FLT_MAX)


def fractional(sub) -> bool:
    """Does this substitution table carry fractional (float64) scores?"""
    return sub.dtype.kind == "f"


def to_word(v):
    """A score as the int64 word the engine's tables hold."""
    if isinstance(v, (float, np.floating)):
        return int(np.float64(v).view(np.int64))
    return int(v)


def from_word(w, sub):
    """The score an int64 word holds, for the engine running with table ``sub``."""
    if fractional(sub):
        return float(np.int64(w).view(np.float64))
    return int(w)


def scores_of(words: np.ndarray, sub) -> np.ndarray:
    """A column of words as scores: int64, or float64 for a fractional table."""
    words = np.ascontiguousarray(words, dtype=np.int64)
    return words.view(np.float64) if fractional(sub) else words


def neg_word(sub):
    """The word of LASTZ's "negative infinity" for DP cells (``dpcells.NEG``) in the
    score type of ``sub``."""
    return to_word(float(NEG)) if fractional(sub) else NEG


def worst_score(sub):
    """LASTZ's ``worstPossibleScore`` (an alignment of indels only): INT_MIN, or lastz_D's
    -FLT_MAX."""
    return -FLT_MAX if fractional(sub) else INT_MIN


def dp_row(n, sub):
    """A DP work row (C or D values) of ``n`` cells for table ``sub``."""
    return np.zeros(n, np.float64 if fractional(sub) else np.int32)


def ydrop_tail(Y, E, N):
    """LASTZ's ``yDropTail``: the most cells a row may be prolonged by (``(yDrop/gapE) + 6``
    in the build's score type, converted to int)."""
    if E != 0:
        if isinstance(E, float) or isinstance(Y, float):
            return int(Y / E + 6)
        return Y // E + 6
    return N + 1 if N < 500_000 else 500_000


def _bitcast(kind, source, target, target_ir):
    """An intrinsic reinterpreting the 64 bits of a ``kind`` value (cast to ``source``
    first) as ``target``."""
    def typer(typingctx, x):
        if not isinstance(x, kind):
            return None

        def codegen(context, builder, signature, args):
            v = context.cast(builder, args[0], signature.args[0], source)
            return builder.bitcast(v, target_ir)
        return target(x), codegen
    return intrinsic(typer)


_bits = _bitcast(types.Float, types.float64, types.int64, ir.IntType(64))
_float = _bitcast(types.Integer, types.int64, types.float64, ir.DoubleType())


def _is_float_table(sub):
    return isinstance(sub, types.Array) and isinstance(sub.dtype, types.Float)


@overload(to_word)
def _to_word(v):
    if isinstance(v, types.Float):
        return lambda v: _bits(v)
    return lambda v: np.int64(v)


@overload(from_word)
def _from_word(w, sub):
    if _is_float_table(sub):
        return lambda w, sub: _float(w)
    return lambda w, sub: w


@overload(neg_word)
def _neg_word(sub):
    if _is_float_table(sub):
        word = to_word(float(NEG))
        return lambda sub: np.int64(word)
    return lambda sub: np.int64(NEG)


@overload(worst_score)
def _worst_score(sub):
    if _is_float_table(sub):
        return lambda sub: -FLT_MAX
    return lambda sub: INT_MIN


@overload(dp_row)
def _dp_row(n, sub):
    dtype = np.float64 if _is_float_table(sub) else np.int32
    return lambda n, sub: np.zeros(n, dtype)


@overload(ydrop_tail)
def _ydrop_tail(Y, E, N):
    floats = isinstance(Y, types.Float) or isinstance(E, types.Float)

    def impl(Y, E, N):
        if E != 0:
            if floats:
                return np.int64(Y / E + 6)
            return np.int64(Y // E + 6)
        return N + 1 if N < 500_000 else 500_000
    return impl


__all__ = ["fractional", "to_word", "from_word", "scores_of", "neg_word", "worst_score",
           "dp_row",
           "ydrop_tail"]
