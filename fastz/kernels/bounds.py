"""Accepted alignments and how they bound later gapped extensions.

LASTZ keeps accepted alignments in two linked lists (by start row ascending,
by end row descending) and, per alignment, a doubly linked list of segments
(diagonal runs and the horizontal/vertical connectors between them).  Here
both live in plain int64 tables so numba can walk them:

``al[k]``  one row per alignment (fields A_*), links are row numbers, NONE = -1.
``sg[s]``  one row per segment (fields S_*), 0-based inclusive coordinates.

Mirrors gapped_extend.c: msp_left_right, get_above_below, align_left_right,
insert_align, update_LR_bounds, next_sweep_seg, prev_sweep_seg,
update_active_segs, build_active_seg.
"""
from __future__ import annotations

from .norefs import no_refcount

NONE = -1

DIAG = 0
HORZ = 1       # query advanced alone (insertion)
VERT = 2       # target advanced alone (deletion)

# segment fields
S_TYPE, S_B1, S_B2, S_E1, S_E2, S_NEXT, S_PREV, S_ALN = range(8)
S_FIELDS = 8

# alignment fields
(A_POS1, A_POS2, A_END1, A_END2, A_SCORE, A_FIRST, A_LAST, A_NEXT, A_PREV,
 A_LA1, A_LS1, A_RA1, A_RS1, A_LA2, A_LS2, A_RA2, A_RS2,
 A_OPS0, A_OPSN, A_TRIV) = range(20)
A_FIELDS = 20

# active segment fields
ACT_SEG, ACT_TYPE, ACT_X, ACT_LAST = range(4)
ACT_FIELDS = 4


@no_refcount
def skip_test(al, sg, head, a1, a2):
    """LASTZ msp_left_right: is the anchor on an accepted alignment?

    Returns (skip, lseg, laln, rseg, raln): the nearest segments crossing row a1
    to the left and right of the anchor (ties keep the earlier in start order).
    """
    right = -1
    left = -1
    lseg = NONE
    laln = NONE
    rseg = NONE
    raln = NONE
    k = head
    while k != NONE and al[k, A_POS1] <= a1:
        if al[k, A_END1] >= a1:
            s = al[k, A_FIRST]
            while s != NONE and sg[s, S_E1] < a1:
                s = sg[s, S_NEXT]
            if s != NONE:
                if sg[s, S_TYPE] == DIAG:
                    x = (sg[s, S_B2] - a2) + (a1 - sg[s, S_B1])
                else:
                    x = sg[s, S_B2] - a2
                if x == 0:
                    return True, NONE, NONE, NONE, NONE
                if x > 0 and (right < 0 or x < right):
                    right = x
                    raln = k
                    rseg = s
                elif x < 0 and (left < 0 or -x < left):
                    left = -x
                    laln = k
                    lseg = s
        k = al[k, A_NEXT]
    return False, lseg, laln, rseg, raln


@no_refcount
def above_below(al, head_start, head_end, a1):
    """LASTZ get_above_below: first alignment ending below / starting above row a1."""
    k = head_end
    while k != NONE and al[k, A_END1] >= a1:
        k = al[k, A_PREV]
    below = k
    k = head_start
    while k != NONE and al[k, A_POS1] <= a1:
        k = al[k, A_NEXT]
    return below, k


@no_refcount
def _column_at(sg, s, p1, p2):
    if sg[s, S_TYPE] == DIAG:
        return (sg[s, S_B2] - p2) + (p1 - sg[s, S_B1])
    return sg[s, S_B2] - p2


@no_refcount
def clear_neighbours(al, m):
    """No neighbour yet on either side of m's bottom and top rows."""
    for f in (A_LA1, A_LS1, A_RA1, A_RS1, A_LA2, A_LS2, A_RA2, A_RS2):
        al[m, f] = NONE


@no_refcount
def neighbours(al, sg, head, m):
    """LASTZ align_left_right: nearest alignments left/right of m's bottom and top rows."""
    p1 = al[m, A_POS1]
    p2 = al[m, A_POS2]
    e1 = al[m, A_END1]
    e2 = al[m, A_END2]
    rb = -1
    lb = -1
    rt = -1
    lt = -1
    clear_neighbours(al, m)
    k = head
    while k != NONE:
        if al[k, A_POS1] > e1 or al[k, A_END1] < p1:
            k = al[k, A_NEXT]
            continue
        s = al[k, A_FIRST]
        while s != NONE and not (sg[s, S_TYPE] != HORZ and sg[s, S_E1] >= p1):
            s = sg[s, S_NEXT]
        if s != NONE and sg[s, S_B1] <= p1:
            x = _column_at(sg, s, p1, p2)
            if x > 0 and (rb < 0 or x < rb):
                rb = x
                al[m, A_RA1] = k
                al[m, A_RS1] = s
            elif x < 0 and (lb < 0 or -x < lb):
                lb = -x
                al[m, A_LA1] = k
                al[m, A_LS1] = s
        while s != NONE and not (sg[s, S_TYPE] != HORZ and sg[s, S_E1] >= e1):
            s = sg[s, S_NEXT]
        if s != NONE:
            x = _column_at(sg, s, e1, e2)
            if x > 0 and (rt < 0 or x < rt):
                rt = x
                al[m, A_RA2] = k
                al[m, A_RS2] = s
            elif x < 0 and (lt < 0 or -x < lt):
                lt = -x
                al[m, A_LA2] = k
                al[m, A_LS2] = s
        k = al[k, A_NEXT]


@no_refcount
def insert(al, head_start, head_end, m):
    """LASTZ insert_align: link m into the by-start and by-end lists; new heads."""
    q = NONE
    k = head_start
    while k != NONE and al[k, A_POS1] < al[m, A_POS1]:
        q = k
        k = al[k, A_NEXT]
    al[m, A_NEXT] = k
    if q != NONE:
        al[q, A_NEXT] = m
    else:
        head_start = m
    q = NONE
    k = head_end
    while k != NONE and al[k, A_END1] > al[m, A_END1]:
        q = k
        k = al[k, A_PREV]
    al[m, A_PREV] = k
    if q != NONE:
        al[q, A_PREV] = m
    else:
        head_end = m
    return head_start, head_end


# --- bounds during a sweep ---------------------------------------------------------


@no_refcount
def _next_seg(look_right, s, k, row, a1, a2, sg, al):
    """LASTZ next_sweep_seg: move a forward-sweep bounding chain upwards."""
    s = sg[s, S_NEXT]
    if s != NONE:
        if sg[s, S_TYPE] == HORZ:
            s = sg[s, S_NEXT]
        return sg[s, S_B2] - a2, s, k
    if look_right:
        s = al[k, A_RS2]
        k = al[k, A_RA2]
    else:
        s = al[k, A_LS2]
        k = al[k, A_LA2]
    if s == NONE:
        return 0, s, k
    if sg[s, S_TYPE] == DIAG:
        return row + (sg[s, S_B2] - a2) - (sg[s, S_B1] - a1), s, k
    return sg[s, S_B2] - a2, s, k


@no_refcount
def _prev_seg(look_right, s, k, row, a1, a2, sg, al):
    """LASTZ prev_sweep_seg: move a reverse-sweep bounding chain downwards."""
    s = sg[s, S_PREV]
    if s != NONE:
        if sg[s, S_TYPE] == HORZ:
            s = sg[s, S_PREV]
        return a2 - sg[s, S_E2], s, k
    if look_right:
        s = al[k, A_RS1]
        k = al[k, A_RA1]
    else:
        s = al[k, A_LS1]
        k = al[k, A_LA1]
    if s == NONE:
        return 0, s, k
    if sg[s, S_TYPE] == DIAG:
        return row + (a2 - sg[s, S_E2]) - (a1 - sg[s, S_E1]), s, k
    return a2 - sg[s, S_E2], s, k


@no_refcount
def _special_min(RY, R):
    if R <= 0:
        return 0
    if R < RY:
        return R
    return RY


@no_refcount
def lr_update(reverse, sg, al, lseg, laln, rseg, raln, row, a1, a2, L, R, LY, RY):
    """LASTZ update_LR_bounds for one new sweep row."""
    if not reverse:
        if lseg != NONE:
            if sg[lseg, S_E1] >= row + a1:
                if sg[lseg, S_TYPE] == DIAG:
                    L += 1
            else:
                col, lseg, laln = _next_seg(False, lseg, laln, row, a1, a2, sg, al)
                L = col + 1
        if lseg != NONE and L > LY:
            LY = L
        if rseg != NONE:
            if sg[rseg, S_E1] >= row + a1:
                if sg[rseg, S_TYPE] == DIAG:
                    R += 1
            else:
                col, rseg, raln = _next_seg(True, rseg, raln, row, a1, a2, sg, al)
                R = col - 1
        if rseg != NONE:
            RY = _special_min(RY, R)
    else:
        # C compares against an unsigned (anchor1 - row), which wraps below zero
        lim = a1 - row
        if rseg != NONE:
            if lim < 0 or sg[rseg, S_B1] <= lim:
                if sg[rseg, S_TYPE] == DIAG:
                    L += 1
            else:
                col, rseg, raln = _prev_seg(True, rseg, raln, row, a1, a2, sg, al)
                L = col + 1
        if rseg != NONE and L > LY:
            LY = L
        if lseg != NONE:
            if lim < 0 or sg[lseg, S_B1] <= lim:
                if sg[lseg, S_TYPE] == DIAG:
                    R += 1
            else:
                col, lseg, laln = _prev_seg(False, lseg, laln, row, a1, a2, sg, al)
                R = col - 1
        if lseg != NONE:
            RY = _special_min(RY, R)
    return L, R, LY, RY, lseg, laln, rseg, raln


@no_refcount
def _build_active(reverse, act, j, sg, mk, prev_ly, stamp, a1, a2, LY, RY):
    """LASTZ build_active_seg: (re)initialise active entry j and mask its cells."""
    s = act[j, ACT_SEG]
    t = sg[s, S_TYPE]
    act[j, ACT_TYPE] = t
    if not reverse:
        x = sg[s, S_B2] - a2
        act[j, ACT_LAST] = sg[s, S_E1] - a1
    else:
        x = a2 - sg[s, S_E2]
        act[j, ACT_LAST] = a1 - sg[s, S_B1]
    act[j, ACT_X] = x
    if t != HORZ:
        if LY <= x <= RY:
            mk[x - prev_ly] = stamp
    elif x >= 0:
        # LASTZ's x is unsigned: a horizontal segment that starts left of the
        # anchor's column wraps to a huge x and masks nothing
        if not reverse:
            hend = sg[s, S_E2] - a2
        else:
            hend = a2 - sg[s, S_B2]
        lo = LY if LY > x else x
        hi = RY if RY < hend else hend
        for col in range(lo, hi + 1):
            mk[col - prev_ly] = stamp


@no_refcount
def active_update(reverse, act, nact, alist, al, sg, mk, prev_ly, stamp, row, a1, a2, LY, RY):
    """LASTZ update_active_segs: advance active segments, add newly reached alignments.

    Masked cells get ``mk[col - prev_ly] = stamp``.  ``act`` must have a row for
    every alignment (the caller sizes it once, so it is never rebound in the row
    loop).  Returns (nact, alist).
    """
    keep = 0
    for j in range(nact):
        if act[j, ACT_LAST] >= row:
            if act[j, ACT_TYPE] == DIAG:
                act[j, ACT_X] += 1
            x = act[j, ACT_X]
            if LY <= x <= RY:
                mk[x - prev_ly] = stamp
        else:
            s = act[j, ACT_SEG]
            s = sg[s, S_PREV] if reverse else sg[s, S_NEXT]
            if s == NONE:
                continue                       # passed the end of this alignment
            act[j, ACT_SEG] = s
            _build_active(reverse, act, j, sg, mk, prev_ly, stamp, a1, a2, LY, RY)
            if act[j, ACT_TYPE] == HORZ:
                s = sg[s, S_PREV] if reverse else sg[s, S_NEXT]
                act[j, ACT_SEG] = s
                _build_active(reverse, act, j, sg, mk, prev_ly, stamp, a1, a2, LY, RY)
        if keep != j:
            for f in range(ACT_FIELDS):         # (a row copy would need a temporary)
                act[keep, f] = act[j, f]
        keep += 1
    nact = keep
    if not reverse:
        while alist != NONE and al[alist, A_POS1] - a1 == row:
            act[nact, ACT_SEG] = al[alist, A_FIRST]
            _build_active(reverse, act, nact, sg, mk, prev_ly, stamp, a1, a2, LY, RY)
            nact += 1
            alist = al[alist, A_NEXT]
    else:
        while alist != NONE and a1 - al[alist, A_END1] == row:
            act[nact, ACT_SEG] = al[alist, A_LAST]
            _build_active(reverse, act, nact, sg, mk, prev_ly, stamp, a1, a2, LY, RY)
            nact += 1
            alist = al[alist, A_PREV]
    return nact, alist
