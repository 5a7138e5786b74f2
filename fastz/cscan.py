"""C's number syntax, as LASTZ's parsers read it (glibc ``sscanf``'s ``%d``/``%u``
and ``%f``/``%lf``, ``strtod``): the one place fastz spells it.

``%f`` takes more than Python's ``float``: hexadecimal numbers (``0x10`` is 16,
``0x1.8p3`` is 12), and less: no ``_`` between digits.  LASTZ reads most numeric
option values through ``%f`` somewhere (``string_to_unitized_int`` tries ``%d``
first, then ``%f``), so ``--hspthresh=0x10`` is 16 to lastz.
"""
from __future__ import annotations

import math
import re

import numpy as np

_SPACE = r"[ \t\n\v\f\r]*"

#: a leading ``%d``: optional space and sign, decimal digits (group 1: the number)
INT = re.compile(_SPACE + r"([+-]?[0-9]+)")

#: a leading ``%f``: decimal or hexadecimal, with an exponent, or inf/infinity/nan,
#: any case (group 1: the number).  glibc's scanf cannot give back what it read, so
#: an exponent's letter and sign with no digits after them are taken too (``3e`` is 3)
FLOAT = re.compile(_SPACE + r"([+-]?(?:"
                   r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]*)?"
                   r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]*)?"
                   r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN]))")

_HEX = re.compile(r"[+-]?0[xX]")
_DANGLING = {True: re.compile(r"[pP][+-]?$"), False: re.compile(r"[eE][+-]?$")}


def float_value(text: str) -> float:
    """The double a ``FLOAT`` match's text stands for."""
    s = text.strip(" \t\n\v\f\r")
    hexadecimal = _HEX.match(s) is not None
    s = _DANGLING[hexadecimal].sub("", s)                 # (an exponent with no digits)
    return float.fromhex(s) if hexadecimal else float(s)


def to_u32(x) -> int:
    """C's conversion to a u32 as LASTZ's x86-64 build makes it: an int wraps; a
    double is truncated through a 64-bit int, so a NaN, an infinity or a value past
    2^63 gives 0 and a negative one wraps."""
    if isinstance(x, (float, np.floating)):
        x = int(x) if math.isfinite(x) and abs(x) < 2.0**63 else 0
    return int(x) & 0xFFFFFFFF


def to_int(x: float) -> int:
    """C's ``(int)`` of a double on x86-64: truncated; a NaN, an infinity or a value
    past an int gives -2^31 (the processor's "integer indefinite")."""
    return int(x) if math.isfinite(x) and -2.0**31 < x < 2.0**31 else -2**31


def as_int32(v: int) -> int:
    """A 32-bit value (a u32 LASTZ keeps) as C's signed int reads it."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v
