"""The gapped stage for one query strand: anchors in order -> accepted alignments.

Mirrors LASTZ 1.04.22 gapped_extend.c gapped_extend / ydrop_align /
format_alignment: each anchor is skipped if it lies on an accepted alignment,
otherwise extended left (reverse) and right (forward) with the bounded y-drop
DP, trimmed of leading/trailing indels, cut into segments, and accepted if it
scores at least the gapped threshold.  Accepted alignments bound later ones.

``two_pass`` selects FastZ's inspector (+ eager 16x16 traceback) and pruned
executor instead of one pass with a full traceback; both give the same bytes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bounds import (
    A_END1, A_END2, A_FIELDS, A_FIRST, A_LAST, A_NEXT, A_OPS0, A_OPSN, A_POS1, A_POS2,
    A_PREV, A_SCORE, A_TRIV, ACT_FIELDS, DIAG, HORZ, NONE, S_ALN, S_B1, S_B2, S_E1,
    S_E2, S_FIELDS, S_NEXT, S_PREV, S_TYPE, VERT, above_below, insert, neighbours,
    skip_test,
)
from .ydrop import (
    EAGER, MODE_EXECUTE, MODE_FULL, MODE_INSPECT, ROW_FIELDS, _grow2, one_sided, padded,
    traceback,
)

# statistics slots
ST_ANCHORS, ST_SKIPPED, ST_SIDES, ST_EAGER, ST_CELLS_INSPECT, ST_CELLS_EXECUTE, \
    ST_ACCEPTED, ST_TRUNCATED, ST_EMPTY = range(9)
N_STATS = 9

WORST_SCORE = -2147483648    # LASTZ's worstPossibleScore (alignment of indels only)


@njit(cache=True)
def _extend_side(seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim,
                 tb_cells, al, sg, lseg, laln, rseg, raln, alist, work, stamp,
                 two_pass, opbuf, stats):
    """One side of an extension: (score, end_r, end_c, truncated, nops, work, opbuf).

    ``work`` = (cc, dd, mk, act, rows, tb, tbrow) scratch buffers, returned because
    they may have grown.  The traced ops are in ``opbuf[:nops]``, far end first.
    """
    cc, dd, mk, act, rows, tb, tbrow = work
    mode = MODE_INSPECT if two_pass else MODE_FULL
    score, er, ec, trunc, cells, cc, dd, mk, act, rows, tb, tbrow = one_sided(
        seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim, tb_cells,
        al, sg, lseg, laln, rseg, raln, alist, cc, dd, mk, act, stamp, mode,
        rows, tb, tbrow, 0, 0)
    stats[ST_CELLS_INSPECT] += cells
    if two_pass:
        if er < EAGER and ec < EAGER:
            stats[ST_EAGER] += 1
        else:
            _s, _r, _c, _t, cells, cc, dd, mk, act, rows, tb, tbrow = one_sided(
                seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim,
                tb_cells, al, sg, lseg, laln, rseg, raln, alist, cc, dd, mk, act,
                stamp + (1 << 31), MODE_EXECUTE, rows, tb, tbrow, er, ec)
            stats[ST_CELLS_EXECUTE] += cells
    nops, opbuf = traceback(er, ec, tb, tbrow, opbuf)
    return score, er, ec, trunc, nops, (cc, dd, mk, act, rows, tb, tbrow), opbuf


@njit(cache=True)
def _new_work():
    """Scratch buffers for one_sided: (cc, dd, mk, act, rows, tb, tbrow)."""
    return (np.zeros(1024, np.int32), np.zeros(1024, np.int32), np.zeros(1024, np.int64),
            np.zeros((8, ACT_FIELDS), np.int64), np.zeros((1024, ROW_FIELDS), np.int64),
            np.zeros(4096, np.uint8), np.zeros(1024, np.int64))


@njit(cache=True)
def _rescore(T, Q, p1, p2, runs, nruns, sub, gap_open, gap_extend):
    """LASTZ score_alignment over an edit script of (op, length) runs."""
    s = 0
    for k in range(nruns):
        op = runs[k, 0]
        n = runs[k, 1]
        if op == 0:
            for j in range(n):
                s += sub[T[p1 + j], Q[p2 + j]]
            p1 += n
            p2 += n
        elif op == 1:
            s -= gap_open + n * gap_extend
            p2 += n
        else:
            s -= gap_open + n * gap_extend
            p1 += n
    return s


@njit(cache=True)
def _add_segment(sg, nseg, al, m, b1, b2, e1, e2):
    """LASTZ save_seg: append a diagonal segment, with a connector before it."""
    if al[m, A_FIRST] == NONE:
        sg = _grow2(sg, nseg + 1)
        sg[nseg, S_TYPE] = DIAG
        sg[nseg, S_B1] = b1
        sg[nseg, S_B2] = b2
        sg[nseg, S_E1] = e1
        sg[nseg, S_E2] = e2
        sg[nseg, S_NEXT] = NONE
        sg[nseg, S_PREV] = NONE
        sg[nseg, S_ALN] = m
        al[m, A_FIRST] = nseg
        al[m, A_LAST] = nseg
        return sg, nseg + 1
    sg = _grow2(sg, nseg + 2)
    tail = al[m, A_LAST]
    q = nseg
    sg[q, S_TYPE] = HORZ if b1 == sg[tail, S_E1] + 1 else VERT
    sg[q, S_B1] = sg[tail, S_E1] + 1
    sg[q, S_B2] = sg[tail, S_E2] + 1
    sg[q, S_E1] = b1 - 1
    sg[q, S_E2] = b2 - 1
    sg[q, S_PREV] = tail
    sg[q, S_NEXT] = q + 1
    sg[q, S_ALN] = m
    sg[tail, S_NEXT] = q
    p = q + 1
    sg[p, S_TYPE] = DIAG
    sg[p, S_B1] = b1
    sg[p, S_B2] = b2
    sg[p, S_E1] = e1
    sg[p, S_E2] = e2
    sg[p, S_PREV] = q
    sg[p, S_NEXT] = NONE
    sg[p, S_ALN] = m
    al[m, A_LAST] = p
    return sg, nseg + 2


@njit(cache=True)
def extend_anchors(T, Q, anc1, anc2, lo1, hi1, lo2, hi2, sub, gap_open, gap_extend,
                   ydrop, trim, tb_cells, thresh, allbounds, trivial, two_pass):
    """Process one strand's anchors (already in LASTZ's order).

    Parameters
    ----------
    T, Q : uint8 target and query-strand buffers.
    anc1, anc2 : int64 anchor positions.
    lo1, hi1, lo2, hi2 : int64 per-anchor limits (partition containing the anchor;
        0 and the sequence length when unpartitioned).
    trivial : int64[k, 5] alignments inserted before any anchor (pos1, pos2, end1,
        end2, score), LASTZ's trivial self-alignment(s).
    two_pass : use the inspector/executor instead of a single full pass.

    Returns
    -------
    (order, al, ops, stats, trunc)
        order : accepted alignment rows in output (by-start) order.
        al : alignment table (A_* fields; ends inclusive).
        ops : int64[n, 2] (op, length) runs; alignment k uses rows
            ops[al[k, A_OPS0] : al[k, A_OPS0] + al[k, A_OPSN]].
        stats : int64[N_STATS].
        trunc : int64[t, 5] truncation reports (reverse, row, col, a1, a2).
    """
    n = anc1.shape[0]
    cap = n + trivial.shape[0] + 1
    al = np.full((cap, A_FIELDS), NONE, np.int64)
    sg = np.zeros((64, S_FIELDS), np.int64)
    nseg = 0
    ops = np.zeros((64, 2), np.int64)
    nops_all = 0
    stats = np.zeros(N_STATS, np.int64)
    trunc = np.zeros((0, 5), np.int64)
    ntrunc = 0
    work = _new_work()
    lbuf = np.zeros(256, np.int64)
    rbuf = np.zeros(256, np.int64)
    runs = np.zeros((64, 2), np.int64)
    seqs = padded(T, Q)
    head_s = NONE
    head_e = NONE
    nal = 0
    stamp = 0

    for t in range(trivial.shape[0]):
        m = nal
        nal += 1
        al[m, A_POS1] = trivial[t, 0]
        al[m, A_POS2] = trivial[t, 1]
        al[m, A_END1] = trivial[t, 2]
        al[m, A_END2] = trivial[t, 3]
        al[m, A_SCORE] = trivial[t, 4]
        al[m, A_TRIV] = 1
        al[m, A_FIRST] = NONE
        sg, nseg = _add_segment(sg, nseg, al, m, trivial[t, 0], trivial[t, 1],
                                trivial[t, 2], trivial[t, 3])
        ops = _grow2(ops, nops_all + 1)
        ops[nops_all, 0] = 0
        ops[nops_all, 1] = trivial[t, 2] - trivial[t, 0] + 1
        al[m, A_OPS0] = nops_all
        al[m, A_OPSN] = 1
        nops_all += 1
        head_s, head_e = insert(al, head_s, head_e, m)

    for k in range(n):
        a1 = anc1[k]
        a2 = anc2[k]
        stats[ST_ANCHORS] += 1
        skip, lseg, laln, rseg, raln = skip_test(al, sg, head_s, a1, a2)
        if skip:
            stats[ST_SKIPPED] += 1
            continue
        below, above = above_below(al, head_s, head_e, a1)

        # left (reverse) then right (forward), as ydrop_align does
        stamp += 1 << 32
        sl, el1, el2, tl, nl, work, lbuf = _extend_side(
            seqs, True, a1, a2, a1 + 1 - lo1[k], a2 + 1 - lo2[k], sub, gap_open,
            gap_extend, ydrop, trim, tb_cells, al, sg, lseg, laln, rseg, raln, below,
            work, stamp, two_pass, lbuf, stats)
        stamp += 1 << 32
        sr, er1, er2, tr, nr, work, rbuf = _extend_side(
            seqs, False, a1, a2, hi1[k] - (a1 + 1), hi2[k] - (a2 + 1), sub, gap_open,
            gap_extend, ydrop, trim, tb_cells, al, sg, lseg, laln, rseg, raln, above,
            work, stamp, two_pass, rbuf, stats)
        stats[ST_SIDES] += 2
        if tl or tr:
            stats[ST_TRUNCATED] += 1
            if tl:
                trunc = _grow2(trunc, ntrunc + 1)
                trunc[ntrunc, 0] = 1
                trunc[ntrunc, 1] = el1
                trunc[ntrunc, 2] = el2
                trunc[ntrunc, 3] = a1
                trunc[ntrunc, 4] = a2
                ntrunc += 1
            if tr:
                trunc = _grow2(trunc, ntrunc + 1)
                trunc[ntrunc, 0] = 0
                trunc[ntrunc, 1] = er1
                trunc[ntrunc, 2] = er2
                trunc[ntrunc, 3] = a1
                trunc[ntrunc, 4] = a2
                ntrunc += 1

        start1 = a1 + 1 - el1
        start2 = a2 + 1 - el2
        stop1 = a1 + er1
        stop2 = a2 + er2
        score = sl + sr

        # edit script: left ops are already in sequence order, right ops reversed
        runs = _grow2(runs, nl + nr + 1)
        nruns = 0
        for j in range(nl + nr):
            op = lbuf[j] if j < nl else rbuf[nr - 1 - (j - nl)]
            if nruns > 0 and runs[nruns - 1, 0] == op:
                runs[nruns - 1, 1] += 1
            else:
                runs[nruns, 0] = op
                runs[nruns, 1] = 1
                nruns += 1
        first = 0
        if nruns > 0 and runs[0, 0] != 0:
            # LASTZ lop_initial_indels: drop leading indels and rescore
            while first < nruns and runs[first, 0] != 0:
                if runs[first, 0] == 1:
                    start2 += runs[first, 1]
                else:
                    start1 += runs[first, 1]
                first += 1
            if first == nruns:
                score = WORST_SCORE
                first = 0
            else:
                score = _rescore(T, Q, start1, start2, runs[first:], nruns - first,
                                 sub, gap_open, gap_extend)
        if nruns - first > 0 and runs[nruns - 1, 0] != 0:
            last = nruns
            p1 = stop1
            p2 = stop2
            while last > first and runs[last - 1, 0] != 0:
                if runs[last - 1, 0] == 1:
                    p2 -= runs[last - 1, 1]
                else:
                    p1 -= runs[last - 1, 1]
                last -= 1
            if last == first:
                score = WORST_SCORE
            else:
                stop1 = p1
                stop2 = p2
                nruns = last
                score = _rescore(T, Q, start1, start2, runs[first:], nruns - first,
                                 sub, gap_open, gap_extend)

        height = stop1 - start1 + 1
        width = stop2 - start2 + 1
        if height <= 0 and width <= 0:
            stats[ST_EMPTY] += 1
            continue
        if (not allbounds) and score < thresh:
            continue

        # accept: segments (LASTZ format_alignment), neighbours, list insertion
        m = nal
        nal += 1
        al[m, A_POS1] = start1
        al[m, A_POS2] = start2
        al[m, A_END1] = stop1
        al[m, A_END2] = stop2
        al[m, A_SCORE] = score
        al[m, A_TRIV] = 0
        al[m, A_FIRST] = NONE
        i = 0
        j = 0
        r = first
        while i < height or j < width:
            si = i
            sj = j
            while r < nruns and runs[r, 0] == 0:
                i += runs[r, 1]
                j += runs[r, 1]
                r += 1
            sg, nseg = _add_segment(sg, nseg, al, m, start1 + si, start2 + sj,
                                    start1 + i - 1, start2 + j - 1)
            if (i < height or j < width) and r < nruns:
                if runs[r, 0] == 1:
                    j += runs[r, 1]
                else:
                    i += runs[r, 1]
                r += 1
        ops = _grow2(ops, nops_all + nruns - first)
        al[m, A_OPS0] = nops_all
        al[m, A_OPSN] = nruns - first
        for q in range(first, nruns):
            ops[nops_all, 0] = runs[q, 0]
            ops[nops_all, 1] = runs[q, 1]
            nops_all += 1
        neighbours(al, sg, head_s, m)
        head_s, head_e = insert(al, head_s, head_e, m)
        stats[ST_ACCEPTED] += 1

    order = np.empty(nal, np.int64)
    cnt = 0
    q = head_s
    while q != NONE:
        if al[q, A_SCORE] >= thresh:
            order[cnt] = q
            cnt += 1
        q = al[q, A_NEXT]
    return order[:cnt], al[:nal], ops[:nops_all], stats, trunc[:ntrunc]


@njit(cache=True)
def extend_one_side(T, Q, a1, a2, reverse, sub, gap_open, gap_extend, ydrop, trim,
                    tb_cells, two_pass):
    """One unbounded one-sided extension (no earlier alignments): for tests.

    Returns (score, end_row, end_col, truncated, ops, stats) with ops in DP order
    from the anchor outwards (0 sub, 1 ins, 2 del).
    """
    al = np.full((1, A_FIELDS), NONE, np.int64)
    sg = np.zeros((1, S_FIELDS), np.int64)
    stats = np.zeros(N_STATS, np.int64)
    if reverse:
        M = a1 + 1
        N = a2 + 1
    else:
        M = T.shape[0] - (a1 + 1)
        N = Q.shape[0] - (a2 + 1)
    score, er, ec, trunc, nops, work, buf = _extend_side(
        padded(T, Q), reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim,
        tb_cells, al, sg, NONE, NONE, NONE, NONE, NONE, _new_work(), 0, two_pass,
        np.zeros(16, np.int64), stats)
    return score, er, ec, trunc, buf[:nops][::-1].copy(), stats
