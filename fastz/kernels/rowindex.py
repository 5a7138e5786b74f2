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

from .arrays import grow
from .bounds import (
    A_END1, A_END2, A_FIRST, A_LA1, A_LA2, A_LAST, A_LS1, A_LS2, A_NEXT, A_POS1, A_POS2,
    A_PREV, A_RA1, A_RA2, A_RS1, A_RS2, DIAG, HORZ, NONE, S_B1, S_B2, S_E1, S_TYPE,
    _column_at, clear_neighbours,
)
from .norefs import no_refcount

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


@njit(cache=True)
def clear_index(ix):
    """``new_index``'s index emptied in place (its block size and count kept)."""
    info, blk, bits, _reg = ix
    blk[:] = NONE
    bits[:] = 0
    info[I_NREG] = 0


@no_refcount
def _block(info, p):
    b = p >> info[I_SHIFT]
    if b < 0:
        return np.int64(0)
    if b >= info[I_NB]:
        return info[I_NB] - 1
    return b


# --- bitmaps: level 1 has a bit per block, level 2 a bit per level-1 word ---------------
# ``side`` 0: blocks holding a start; 1: blocks holding an end.

@no_refcount
def _offsets(info, side):
    o1 = side * (info[I_W1] + info[I_W2])
    return o1, o1 + info[I_W1]


@no_refcount
def _mark(info, bits, side, b):
    o1, o2 = _offsets(info, side)
    w = b >> 6
    bits[o1 + w] |= np.int64(1) << (b & 63)
    bits[o2 + (w >> 6)] |= np.int64(1) << (w & 63)


@no_refcount
def _low(x):
    """Index of the lowest set bit of a non-zero word."""
    return np.int64(trailing_zeros(np.uint64(x)))


@no_refcount
def _high(x):
    """Index of the highest set bit of a non-zero word."""
    return np.int64(63 - leading_zeros(np.uint64(x)))


@no_refcount
def _up_from(r):
    """Mask of bits r..63."""
    return np.int64(-1) << r


@no_refcount
def _down_to(r):
    """Mask of bits 0..r."""
    return np.int64(-1) if r == 63 else (np.int64(1) << (r + 1)) - 1


@no_refcount
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


@no_refcount
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

# side 0 is the start list (by start row ascending, linked through A_NEXT), side 1 the
# end list (by end row descending, through A_PREV); among equals the later accepted
# comes first in both

@no_refcount
def _fields(side):
    """(row column, link column, block's first, block's last) of a list."""
    if side == 0:
        return A_POS1, A_NEXT, B_FS, B_LS
    return A_END1, A_PREV, B_FE, B_LE


@no_refcount
def _ahead(side, row, v):
    """Does a list entry at ``row`` come before every entry at ``v``?"""
    return row < v if side == 0 else row > v


@no_refcount
def _pred(al, ix, side, v):
    """The last alignment of the list ahead of row v: for the start list the last one
    that starts before v, for the end list the last one that ends after v (NONE if
    none).  Walks one block at most."""
    info, blk, bits, _reg = ix
    key, link, first, last = _fields(side)
    b = _block(info, v)
    q = blk[b, first]
    if q != NONE and _ahead(side, al[q, key], v):
        k = al[q, link]
        while k != NONE and _ahead(side, al[k, key], v):
            q = k
            k = al[k, link]
        return q
    # v's block holds none of them: the last entry of the nearest block ahead
    b = _prev_marked(info, bits, 0, b - 1) if side == 0 else _next_marked(info, bits, 1, b + 1)
    return blk[b, last] if b >= 0 else NONE


@no_refcount
def _link(al, ix, side, head, m):
    """Link m into one list and that list's blocks; returns the list's head."""
    info, blk, bits, _reg = ix
    key, link, first, last = _fields(side)
    b = _block(info, al[m, key])
    q = _pred(al, ix, side, al[m, key])
    if q == NONE:
        al[m, link] = head
        head = m
    else:
        al[m, link] = al[q, link]
        al[q, link] = m
    if q == NONE or _block(info, al[q, key]) != b:
        blk[b, first] = m
    k = al[m, link]
    if k == NONE or _block(info, al[k, key]) != b:
        blk[b, last] = m
    _mark(info, bits, side, b)
    return head


@no_refcount
def above_below(al, head_start, head_end, ix, a1):
    """``bounds.above_below``: (first alignment ending below row a1 in end order,
    first starting above it in start order)."""
    q = _pred(al, ix, 1, a1 - 1)            # row -1 falls in block 0: nothing is below it
    below = head_end if q == NONE else al[q, A_PREV]
    q = _pred(al, ix, 0, a1 + 1)
    above = head_start if q == NONE else al[q, A_NEXT]
    return below, above


@njit(cache=True)
def insert(al, head_start, head_end, ix, m):
    """``bounds.insert`` (link m into both lists; new heads) and m into the index.
    Returns (head_start, head_end, ix)."""
    head_start = _link(al, ix, 0, head_start, m)
    head_end = _link(al, ix, 1, head_end, m)
    info, blk, bits, reg = ix
    p = al[m, A_POS1]
    e = al[m, A_END1]
    lo = _block(info, min(p, e))
    hi = _block(info, max(p, e))
    n = info[I_NREG]
    if n + hi - lo + 1 > reg.shape[0]:
        reg = grow(reg, n + hi - lo + 1)
    for b in range(lo, hi + 1):
        reg[n, 0] = blk[b, B_REG]
        reg[n, 1] = m
        blk[b, B_REG] = n
        n += 1
    info[I_NREG] = n
    return head_start, head_end, (info, blk, bits, reg)


# --- alignments touching rows ------------------------------------------------------------

@no_refcount
def _first_reg_block(info, al, k):
    return _block(info, min(al[k, A_POS1], al[k, A_END1]))


@no_refcount
def _precedes(al, c, d):
    """Does alignment c come before d in the start list?"""
    if al[c, A_POS1] != al[d, A_POS1]:
        return al[c, A_POS1] < al[d, A_POS1]
    return c > d


@no_refcount
def _nearer(al, d, best, k, holder):
    """Is alignment k, d columns away, nearer than ``holder`` at ``best`` (best < 0:
    none yet)?  Ties go to the first in start order, the one LASTZ's walk meets first."""
    return best < 0 or d < best or (d == best and _precedes(al, k, holder))


@no_refcount
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


@no_refcount
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
            if _nearer(al, x, right, k, raln):
                right = x
                raln = k
                rseg = s
        elif _nearer(al, -x, left, k, laln):
            left = -x
            laln = k
            lseg = s
    return False, lseg, laln, rseg, raln


@no_refcount
def _diagonal_from(sg, k_last, s):
    """The first non-horizontal segment at or after s (NONE past the last)."""
    while s != NONE and s <= k_last and sg[s, S_TYPE] == HORZ:
        s += 1
    return s if s != NONE and s <= k_last else NONE


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
                out = grow(out, n + 1)
            out[n] = k
            n += 1
    return out, n


@no_refcount
def _offer(al, m, k, s, x, right, left, ra, rs, la, ls):
    """Alignment k's segment s, x columns from m's row: keep it in m's fields
    ``ra``/``rs`` (right) or ``la``/``ls`` (left) if nearer; returns the distances."""
    if x > 0 and _nearer(al, x, right, k, al[m, ra]):
        al[m, ra] = k
        al[m, rs] = s
        return x, left
    if x < 0 and _nearer(al, -x, left, k, al[m, la]):
        al[m, la] = k
        al[m, ls] = s
        return right, -x
    return right, left


@njit(cache=True)
def neighbours(al, sg, ix, m):
    """``bounds.neighbours``: nearest alignments left/right of m's bottom and top rows."""
    p1 = al[m, A_POS1]
    p2 = al[m, A_POS2]
    e1 = al[m, A_END1]
    e2 = al[m, A_END2]
    rb = -1
    lb = -1
    rt = -1
    lt = -1
    clear_neighbours(al, m)
    # m is not in the index yet: the alignments meeting its rows are the others
    near, n = touching(al, ix, p1, e1, 0, np.empty(16, np.int64))
    for i in range(n):
        k = near[i]
        last = al[k, A_LAST]
        s = _diagonal_from(sg, last, segment_at(al, sg, k, p1))
        if s != NONE and sg[s, S_B1] <= p1:
            rb, lb = _offer(al, m, k, s, _column_at(sg, s, p1, p2), rb, lb,
                            A_RA1, A_RS1, A_LA1, A_LS1)
        if s != NONE:
            t = segment_at(al, sg, k, e1)
            s = NONE if t == NONE else _diagonal_from(sg, last, max(s, t))
        if s != NONE:
            rt, lt = _offer(al, m, k, s, _column_at(sg, s, e1, e2), rt, lt,
                            A_RA2, A_RS2, A_LA2, A_LS2)
