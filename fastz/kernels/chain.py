"""Highest-scoring chain of gap-free segments (CPU kernel).

Mirrors LASTZ ``chain.c`` ``reduce_to_chain`` with its helpers ``build_kd_tree``,
``partition_segments``, ``best_predecessor`` and ``propagate_max_score``, and the
connection penalty ``lastz.c`` ``chain_connect_penalty``.

Segments arrive sorted by target start (LASTZ's ``qSegmentsByPos1``).  For each segment,
in that order, a 2-d tree over (diagonal, query start) finds the predecessor chain that
gains most when joined to it; the best chain is recovered by backtracking.  The tree is
walked exactly as LASTZ walks it, including one quirk that changes results with non-zero
chain penalties: below a node split by query position, LASTZ hands the children the
current lower bound (truncated to an int) as the *axis* and 1 - axis = 0 as the lower
bound, so a child may be searched as if split along the other axis.  Recursion is
replaced by an explicit stack that visits nodes in LASTZ's order.

Scores are doubles (LASTZ's ``bigscore``); penalties are 32-bit ints computed with C's
wrap-around arithmetic, as the C code does.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..scoring import BEST_POSSIBLE     # (bestPossibleScore, integer scores)
from .norefs import no_refcount

BUCKET_SIZE = 3               # LASTZ bucketSize: most segments in a leaf
NO_PRED = -1                  # LASTZ noPred
FLT_MAX = 3.4028234663852886e38   # lastz_D's bestPossibleScore
INT_MIN = -2147483648


@njit(cache=True, inline="always")
def _wrap32(v):
    """C signed 32-bit arithmetic result (two's complement wrap-around)."""
    v = v & 0xFFFFFFFF
    if v >= 0x80000000:
        v -= 0x100000000
    return v


@njit(cache=True, inline="always")
def _double_to_int(x):
    """C's (int) of a double on x86-64: truncation; NaN or out of range -> INT_MIN."""
    if not (x > -2147483649.0 and x < 2147483648.0):
        return INT_MIN
    return int(x)


@njit(cache=True, inline="always")
def _proj(perm, pos1, pos2, i, axis):
    """Position of segment perm[i] along an axis (0 = diagonal pos1-pos2, 1 = pos2)."""
    k = perm[i]
    if axis == 0:
        return pos1[k] - pos2[k]
    return pos2[k]


@no_refcount
def _partition(perm, pos1, pos2, lo, hi, axis):
    """LASTZ partition_segments: median-of-three pivot, Hoare split; returns the cut."""
    while True:
        m = (lo + hi) // 2
        a = _proj(perm, pos1, pos2, lo, axis)
        b = _proj(perm, pos1, pos2, m, axis)
        c = _proj(perm, pos1, pos2, hi, axis)
        if (a <= b and b <= c) or (c <= b and b <= a):
            perm[lo], perm[m] = perm[m], perm[lo]
            pivot = b
        elif (a <= c and c <= b) or (b <= c and c <= a):
            perm[lo], perm[hi] = perm[hi], perm[lo]
            pivot = c
        else:
            pivot = a
        i = lo
        j = hi + 1
        while i < j:
            i += 1
            while i <= hi and _proj(perm, pos1, pos2, i, axis) <= pivot:
                i += 1
            j -= 1
            while j >= lo and _proj(perm, pos1, pos2, j, axis) > pivot:
                j -= 1
            perm[i], perm[j] = perm[j], perm[i]   # perm has a spare slot for i == hi+1
        perm[i], perm[j] = perm[j], perm[i]       # undo the last swap
        perm[lo], perm[j] = perm[j], perm[lo]     # pivot into place
        if j < hi:
            return j
        if hi - lo == 2:
            return hi - 1
        hi -= 1


@njit(cache=True)
def _build_tree(perm, pos1, pos2, n):
    """LASTZ build_kd_tree over perm[0:n]; node 0 is the root (split by pos2).

    Returns per-node arrays: is_bucket, lo_ix, hi_ix, cut, lo_son, hi_son.
    """
    cap = 2 * n + 1
    is_bucket = np.zeros(cap, np.bool_)
    lo_ix = np.zeros(cap, np.int64)
    hi_ix = np.zeros(cap, np.int64)
    cut = np.zeros(cap, np.int64)
    lo_son = np.full(cap, -1, np.int64)
    hi_son = np.full(cap, -1, np.int64)
    stack = np.empty((cap, 4), np.int64)      # node, lo, hi, axis
    nodes = 1
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, 0, n - 1, 1
    top = 1
    while top > 0:
        top -= 1
        node, lo, hi, axis = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if hi + 1 - lo <= BUCKET_SIZE:
            is_bucket[node] = True
            lo_ix[node] = lo
            hi_ix[node] = hi
            continue
        m = _partition(perm, pos1, pos2, lo, hi, axis)
        cut[node] = _proj(perm, pos1, pos2, m, axis)
        hi_ix[node] = m
        lo_son[node] = nodes
        hi_son[node] = nodes + 1
        nodes += 2
        # the children's ranges are disjoint, so the order they are built in is free
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = lo_son[node], lo, m, 1 - axis
        top += 1
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = hi_son[node], m + 1, hi, 1 - axis
        top += 1
    return is_bucket[:nodes], lo_ix[:nodes], hi_ix[:nodes], cut[:nodes], lo_son[:nodes], hi_son[:nodes]


@no_refcount
def connect_penalty(p1a, p2a, lena, p1b, p2b, diag_pen, anti_pen, scale, aa, double):
    """LASTZ chain_connect_penalty: cost of joining segment a to a later segment b.

    Distance between diagonals times ``diag_pen`` plus the bases between the segments in
    the lagging sequence times ``anti_pen``; when they overlap, ``scale * aa`` per
    overlapping base instead.  Clipped to the best possible score.  lastz computes the
    products in 32-bit ints and returns an int; lastz_D (``double``) keeps doubles.
    """
    x_end = p1a + lena - 1
    y_end = p2a + lena - 1
    diff = (p1b - p2b) - (p1a - p2a)
    if diff >= 0:
        subs = p2b - y_end - 1
    else:
        subs = p1b - x_end - 1
        diff = -diff
    if double:
        penalty = float(_wrap32(diff)) * diag_pen
        if subs >= 0:
            penalty += float(_wrap32(subs)) * anti_pen
        else:
            penalty += float(_wrap32(-subs * scale)) * aa
        return FLT_MAX if penalty > FLT_MAX else penalty
    penalty = float(_wrap32(diff * int(diag_pen)))      # (int(): typed for both builds)
    if subs >= 0:
        penalty += float(_wrap32(subs * int(anti_pen)))
    else:
        penalty += float(_wrap32(_wrap32(-subs * scale) * int(aa)))
    if penalty > float(BEST_POSSIBLE):
        return float(BEST_POSSIBLE)
    return float(_double_to_int(penalty))


@njit(cache=True, nogil=True)
def reduce_to_chain(pos1, pos2, length, score, diag_pen, anti_pen, scale, aa, double=False):
    """Indices (ascending) of the segments on the highest-scoring chain.

    Parameters
    ----------
    pos1, pos2, length, score : int64 arrays (fastz_D: score may be float64)
        Segments already sorted as LASTZ ``qSegmentsByPos1`` sorts them.
    diag_pen, anti_pen : int (fastz_D: float)
        ``--chain=G,P`` penalties (already scaled, as LASTZ takes them).
    scale : int
        Segment scores are multiplied by this (LASTZ chainScale, 100).
    aa : int
        sub[first row char][first column char] of the scoring matrix (overlap charge).
    double : bool
        lastz_D's penalty arithmetic (``connect_penalty``).

    Returns
    -------
    int64 array: the kept segments, in input order (empty if no chain scores above 0).
    """
    n = pos1.shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    perm = np.empty(n + 1, np.int64)
    for i in range(n):
        perm[i] = i
    perm[n] = n                                   # spare slot (see _partition)
    is_bucket, lo_ix, hi_ix, cut, lo_son, hi_son = _build_tree(perm, pos1, pos2, n)
    inv = np.empty(n, np.int64)
    for i in range(n):
        inv[perm[i]] = i
    nodes = is_bucket.shape[0]
    max_score = np.zeros(nodes, np.float64)
    chain_score = np.zeros(n, np.float64)
    chain = np.full(n, NO_PRED, np.int64)
    st_node = np.empty(2 * nodes + 2, np.int64)
    st_axis = np.empty(2 * nodes + 2, np.int64)
    st_lb = np.empty(2 * nodes + 2, np.float64)
    best = 0.0
    best_end = NO_PRED
    for i in range(n):
        x = pos1[i]
        y = pos2[i]
        diag = x - y
        bp_num = NO_PRED
        bp_contrib = 0.0
        top = 0
        st_node[0], st_axis[0], st_lb[0] = 0, 1, 0.0
        top = 1
        while top > 0:
            top -= 1
            node, axis, lower = st_node[top], st_axis[top], st_lb[top]
            if bp_contrib >= max_score[node] - lower:
                continue
            if is_bucket[node]:
                for ix in range(lo_ix[node], hi_ix[node] + 1):
                    j = perm[ix]
                    if pos1[j] >= x or pos2[j] >= y:
                        continue
                    pred = chain_score[j] - connect_penalty(
                        pos1[j], pos2[j], length[j], x, y, diag_pen, anti_pen, scale, aa, double)
                    if pred > bp_contrib:
                        bp_contrib = pred
                        bp_num = j
            elif axis == 1:
                # LASTZ passes (lowerBound, 1 - axis) in swapped positions here
                child_axis = _double_to_int(lower)
                # pushed in reverse: the high son (when searched) is visited first
                st_node[top], st_axis[top], st_lb[top] = lo_son[node], child_axis, 0.0
                top += 1
                if y >= cut[node]:
                    st_node[top], st_axis[top], st_lb[top] = hi_son[node], child_axis, 0.0
                    top += 1
            else:
                d = float(_wrap32(diag - cut[node]))
                child_axis = _wrap32(1 - axis)
                if d >= 0:
                    st_node[top], st_axis[top], st_lb[top] = lo_son[node], child_axis, d * diag_pen
                    top += 1
                    st_node[top], st_axis[top], st_lb[top] = hi_son[node], child_axis, lower
                    top += 1
                else:
                    st_node[top], st_axis[top], st_lb[top] = hi_son[node], child_axis, -d * anti_pen
                    top += 1
                    st_node[top], st_axis[top], st_lb[top] = lo_son[node], child_axis, lower
                    top += 1
        chain_score[i] = float(score[i]) * float(scale) + bp_contrib
        if chain_score[i] > best:
            best = chain_score[i]
            best_end = i
        chain[i] = bp_num
        # propagate_max_score
        node = 0
        ix = inv[i]
        while node >= 0:
            if chain_score[i] > max_score[node]:
                max_score[node] = chain_score[i]
            if is_bucket[node]:
                break
            node = lo_son[node] if ix <= hi_ix[node] else hi_son[node]
    keep = np.zeros(n, np.bool_)
    k = best_end
    while k != NO_PRED:
        keep[k] = True
        k = chain[k]
    return np.nonzero(keep)[0].astype(np.int64)
