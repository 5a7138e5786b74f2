"""A row index over the accepted alignments, so the gapped stage never walks them all.

LASTZ finds what bounds a new extension by walking its two alignment lists from
the head (``bounds.skip_test``, ``above_below``, ``neighbours``, ``insert``): every
anchor and every accepted alignment costs a walk over all earlier alignments.  On a
whole chromosome (a million alignments per strand) those walks, each a chain of
cache misses, would outweigh the DP.  This index gives the same answers from a few
blocks of target rows:

* ``blk[b]`` for block ``b`` (rows ``b << shift`` .. ): the first and last alignment,
  in start-list order, that starts in the block, the same for the end list and the
  block's ends, and the head of the block's *registry*: every alignment whose rows
  touch the block;
* ``bits``: which blocks hold a start (an end), two levels of bitmaps, so the nearest
  such block is found in a few word reads;
* ``reg``: the registry entries (next, alignment).

The lists themselves (``A_NEXT`` by start, ``A_PREV`` by end) are kept as LASTZ
keeps them: the sweep walks them row by row (``bounds.active_update``).  Where LASTZ
takes the first alignment in start order among equals, the registry, which is not in
that order, compares start-list positions (``_precedes``): start row ascending, and
among equal starts the later accepted first (``insert`` puts a new alignment before
its equals).  ``tests/test_rowindex.py`` checks every answer against the walks.

``ix = (info, blk, bits, reg)``; ``info`` holds the block shift, the block count,
the bitmap word counts and the registry size.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from .bounds import (
    A_END1, A_END2, A_FIRST, A_LA1, A_LA2, A_LAST, A_LS1, A_LS2, A_NEXT, A_POS1, A_POS2,
    A_PREV, A_RA1, A_RA2, A_RS1, A_RS2, DIAG, HORZ, NONE, S_B1, S_B2, S_E1, S_TYPE,
    _column_at,
)

# info slots
I_SHIFT, I_NB, I_W1, I_W2, I_NREG = range(5)
# block fields
B_FS, B_LS, B_FE, B_LE, B_REG = range(5)
# smallest block (rows): alignments span a few blocks, not hundreds
MIN_SHIFT = 10
# most blocks per strand (the tables are sized by the anchors, up to this)
MAX_BLOCKS = 1 << 20


@njit(cache=True)
def new_index(target_len, capacity):
    """An empty index for alignments in rows ``[0, target_len]``, sized for about
    ``capacity`` of them (few anchors, few blocks: the tables cost what they hold)."""
    want = 64
    while want < 4 * capacity and want < MAX_BLOCKS:
        want *= 2
    shift = MIN_SHIFT
    while ((target_len + 1) >> shift) + 1 > want:
        shift += 1
    nb = ((target_len + 1) >> shift) + 1
    w1 = (nb + 63) >> 6
    w2 = (w1 + 63) >> 6
    info = np.zeros(8, np.int64)
    info[I_SHIFT] = shift
    info[I_NB] = nb
    info[I_W1] = w1
    info[I_W2] = w2
    return (info, np.full((nb, 5), NONE, np.int64), np.zeros(2 * (w1 + w2), np.int64),
            np.empty((max(16, 2 * capacity), 2), np.int64))


@njit(cache=True, nogil=True)
def _block(info, p):
    b = p >> info[I_SHIFT]
    if b < 0:
        return np.int64(0)
    if b >= info[I_NB]:
        return info[I_NB] - 1
    return b


# --- bitmaps: level 1 has a bit per block, level 2 a bit per level-1 word ---------------
# ``side`` 0: blocks holding a start; 1: blocks holding an end.

@njit(cache=True, nogil=True)
def _offsets(info, side):
    o1 = side * (info[I_W1] + info[I_W2])
    return o1, o1 + info[I_W1]


@njit(cache=True)
def _mark(info, bits, side, b):
    o1, o2 = _offsets(info, side)
    w = b >> 6
    bits[o1 + w] |= np.int64(1) << (b & 63)
    bits[o2 + (w >> 6)] |= np.int64(1) << (w & 63)


@njit(cache=True, nogil=True)
def _low(x):
    """Index of the lowest set bit of a non-zero word."""
    return np.int64(trailing_zeros(np.uint64(x)))


@njit(cache=True, nogil=True)
def _high(x):
    """Index of the highest set bit of a non-zero word."""
    return np.int64(63 - leading_zeros(np.uint64(x)))


@njit(cache=True, nogil=True)
def _up_from(r):
    """Mask of bits r..63."""
    return np.int64(-1) << r


@njit(cache=True, nogil=True)
def _down_to(r):
    """Mask of bits 0..r."""
    return np.int64(-1) if r == 63 else (np.int64(1) << (r + 1)) - 1


@njit(cache=True, nogil=True)
def _next_marked(info, bits, side, b):
    """Smallest marked block >= b, or -1."""
    if b >= info[I_NB]:
        return np.int64(-1)
    o1, o2 = _offsets(info, side)
    w = b >> 6
    x = bits[o1 + w] & _up_from(b & 63)
    if x != 0:
        return (w << 6) + _low(x)
    w += 1
    if w >= info[I_W1]:
        return np.int64(-1)
    v = w >> 6
    y = bits[o2 + v] & _up_from(w & 63)
    while y == 0:
        v += 1
        if v >= info[I_W2]:
            return np.int64(-1)
        y = bits[o2 + v]
    w = (v << 6) + _low(y)
    return (w << 6) + _low(bits[o1 + w])


@njit(cache=True, nogil=True)
def _prev_marked(info, bits, side, b):
    """Largest marked block <= b, or -1."""
    if b < 0:
        return np.int64(-1)
    o1, o2 = _offsets(info, side)
    w = b >> 6
    x = bits[o1 + w] & _down_to(b & 63)
    if x != 0:
        return (w << 6) + _high(x)
    w -= 1
    if w < 0:
        return np.int64(-1)
    v = w >> 6
    y = bits[o2 + v] & _down_to(w & 63)
    while y == 0:
        v -= 1
        if v < 0:
            return np.int64(-1)
        y = bits[o2 + v]
    w = (v << 6) + _high(y)
    return (w << 6) + _high(bits[o1 + w])


# --- the two lists ---------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _start_pred(al, ix, p):
    """Last alignment in start order that starts before row p (NONE if none)."""
    info, blk, bits, _reg = ix
    b = _block(info, p)
    q = blk[b, B_FS]
    if q != NONE and al[q, A_POS1] < p:
        k = al[q, A_NEXT]
        while k != NONE and al[k, A_POS1] < p:
            q = k
            k = al[k, A_NEXT]
        return q
    b = _prev_marked(info, bits, 0, b - 1)
    return blk[b, B_LS] if b >= 0 else NONE


@njit(cache=True, nogil=True)
def _end_pred(al, ix, e):
    """Last alignment in end order (ends descending) that ends after row e."""
    info, blk, bits, _reg = ix
    b = _block(info, e)
    q = blk[b, B_FE]
    if q != NONE and al[q, A_END1] > e:
        k = al[q, A_PREV]
        while k != NONE and al[k, A_END1] > e:
            q = k
            k = al[k, A_PREV]
        return q
    b = _next_marked(info, bits, 1, b + 1)
    return blk[b, B_LE] if b >= 0 else NONE


@njit(cache=True, nogil=True)
def above_below(al, head_start, head_end, ix, a1):
    """``bounds.above_below``: (first alignment ending below row a1 in end order,
    first starting above it in start order)."""
    q = _end_pred(al, ix, a1 - 1)           # row -1 falls in block 0: nothing is below it
    below = head_end if q == NONE else al[q, A_PREV]
    q = _start_pred(al, ix, a1 + 1)
    above = head_start if q == NONE else al[q, A_NEXT]
    return below, above


@njit(cache=True)
def insert(al, head_start, head_end, ix, m):
    """``bounds.insert`` (link m into both lists; new heads) and m into the index.
    Returns (head_start, head_end, ix)."""
    info, blk, bits, reg = ix
    p = al[m, A_POS1]
    b = _block(info, p)
    q = _start_pred(al, ix, p)
    if q == NONE:
        al[m, A_NEXT] = head_start
        head_start = m
    else:
        al[m, A_NEXT] = al[q, A_NEXT]
        al[q, A_NEXT] = m
    if q == NONE or _block(info, al[q, A_POS1]) != b:
        blk[b, B_FS] = m
    k = al[m, A_NEXT]
    if k == NONE or _block(info, al[k, A_POS1]) != b:
        blk[b, B_LS] = m
    _mark(info, bits, 0, b)

    e = al[m, A_END1]
    b = _block(info, e)
    q = _end_pred(al, ix, e)
    if q == NONE:
        al[m, A_PREV] = head_end
        head_end = m
    else:
        al[m, A_PREV] = al[q, A_PREV]
        al[q, A_PREV] = m
    if q == NONE or _block(info, al[q, A_END1]) != b:
        blk[b, B_FE] = m
    k = al[m, A_PREV]
    if k == NONE or _block(info, al[k, A_END1]) != b:
        blk[b, B_LE] = m
    _mark(info, bits, 1, b)

    lo = _block(info, min(p, e))
    hi = _block(info, max(p, e))
    n = info[I_NREG]
    if n + hi - lo + 1 > reg.shape[0]:
        bigger = np.empty((2 * reg.shape[0] + hi - lo + 1, 2), np.int64)
        bigger[:n] = reg[:n]
        reg = bigger
    for b in range(lo, hi + 1):
        reg[n, 0] = blk[b, B_REG]
        reg[n, 1] = m
        blk[b, B_REG] = n
        n += 1
    info[I_NREG] = n
    return head_start, head_end, (info, blk, bits, reg)


# --- alignments touching rows ------------------------------------------------------------

@njit(cache=True, nogil=True)
def _first_reg_block(info, al, k):
    return _block(info, min(al[k, A_POS1], al[k, A_END1]))


@njit(cache=True, nogil=True)
def _precedes(al, c, d):
    """Does alignment c come before d in the start list?"""
    if al[c, A_POS1] != al[d, A_POS1]:
        return al[c, A_POS1] < al[d, A_POS1]
    return c > d


@njit(cache=True, nogil=True)
def segment_at(al, sg, k, row):
    """First segment of alignment k whose end row is at or above ``row`` (NONE if
    none): the walk from its first segment, as a binary search (an alignment's
    segments are consecutive rows of ``sg``, their end rows never decrease)."""
    lo = al[k, A_FIRST]
    hi = al[k, A_LAST] + 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if sg[mid, S_E1] < row:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo <= al[k, A_LAST] else NONE


@njit(cache=True, nogil=True)
def skip_test(al, sg, ix, a1, a2):
    """``bounds.skip_test``: is the anchor on an accepted alignment, else the nearest
    segments left and right of it on row a1 (ties: the first in start order)."""
    info, blk, _bits, reg = ix
    right = -1
    left = -1
    lseg = NONE
    laln = NONE
    rseg = NONE
    raln = NONE
    e = blk[_block(info, a1), B_REG]
    while e != NONE:
        k = reg[e, 1]
        e = reg[e, 0]
        if al[k, A_POS1] > a1 or al[k, A_END1] < a1:
            continue
        s = segment_at(al, sg, k, a1)
        if s == NONE:
            continue
        if sg[s, S_TYPE] == DIAG:
            x = (sg[s, S_B2] - a2) + (a1 - sg[s, S_B1])
        else:
            x = sg[s, S_B2] - a2
        if x == 0:
            return True, NONE, NONE, NONE, NONE
        if x > 0:
            if right < 0 or x < right or (x == right and _precedes(al, k, raln)):
                right = x
                raln = k
                rseg = s
        elif left < 0 or -x < left or (-x == left and _precedes(al, k, laln)):
            left = -x
            laln = k
            lseg = s
    return False, lseg, laln, rseg, raln


@njit(cache=True, nogil=True)
def _diagonal_from(sg, k_last, s):
    """The first non-horizontal segment at or after s (NONE past the last)."""
    while s != NONE and s <= k_last and sg[s, S_TYPE] == HORZ:
        s += 1
    return s if s != NONE and s <= k_last else NONE


@njit(cache=True)
def neighbours(al, sg, ix, m):
    """``bounds.neighbours``: nearest alignments left/right of m's bottom and top rows."""
    info, blk, _bits, reg = ix
    p1 = al[m, A_POS1]
    p2 = al[m, A_POS2]
    e1 = al[m, A_END1]
    e2 = al[m, A_END2]
    rb = -1
    lb = -1
    rt = -1
    lt = -1
    al[m, A_LA1] = NONE
    al[m, A_LS1] = NONE
    al[m, A_RA1] = NONE
    al[m, A_RS1] = NONE
    al[m, A_LA2] = NONE
    al[m, A_LS2] = NONE
    al[m, A_RA2] = NONE
    al[m, A_RS2] = NONE
    b0 = _block(info, min(p1, e1))
    for b in range(b0, _block(info, max(p1, e1)) + 1):
        e = blk[b, B_REG]
        while e != NONE:
            k = reg[e, 1]
            e = reg[e, 0]
            if max(_first_reg_block(info, al, k), b0) != b:
                continue                       # met in an earlier block
            if al[k, A_POS1] > e1 or al[k, A_END1] < p1:
                continue
            last = al[k, A_LAST]
            s = _diagonal_from(sg, last, segment_at(al, sg, k, p1))
            if s != NONE and sg[s, S_B1] <= p1:
                x = _column_at(sg, s, p1, p2)
                if x > 0:
                    if rb < 0 or x < rb or (x == rb and _precedes(al, k, al[m, A_RA1])):
                        rb = x
                        al[m, A_RA1] = k
                        al[m, A_RS1] = s
                elif x < 0 and (lb < 0 or -x < lb
                                or (-x == lb and _precedes(al, k, al[m, A_LA1]))):
                    lb = -x
                    al[m, A_LA1] = k
                    al[m, A_LS1] = s
            if s != NONE:
                t = segment_at(al, sg, k, e1)
                s = NONE if t == NONE else _diagonal_from(sg, last, max(s, t))
            if s != NONE:
                x = _column_at(sg, s, e1, e2)
                if x > 0:
                    if rt < 0 or x < rt or (x == rt and _precedes(al, k, al[m, A_RA2])):
                        rt = x
                        al[m, A_RA2] = k
                        al[m, A_RS2] = s
                elif x < 0 and (lt < 0 or -x < lt
                                or (-x == lt and _precedes(al, k, al[m, A_LA2]))):
                    lt = -x
                    al[m, A_LA2] = k
                    al[m, A_LS2] = s


@njit(cache=True, nogil=True)
def touching(al, ix, r0, r1, since, out):
    """Alignments numbered ``since`` or later whose rows meet ``[r0, r1]``, each once,
    into ``out`` (grown as needed); returns (out, count)."""
    info, blk, _bits, reg = ix
    n = 0
    b0 = _block(info, r0)
    for b in range(b0, _block(info, r1) + 1):
        e = blk[b, B_REG]
        while e != NONE:
            k = reg[e, 1]
            e = reg[e, 0]
            if k < since or max(_first_reg_block(info, al, k), b0) != b:
                continue
            if al[k, A_END1] < r0 or al[k, A_POS1] > r1:
                continue
            if n == out.shape[0]:
                bigger = np.empty(2 * n + 16, np.int64)
                bigger[:n] = out[:n]
                out = bigger
            out[n] = k
            n += 1
    return out, n
