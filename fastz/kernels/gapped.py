"""The gapped stage for one query strand: anchors in order -> accepted alignments.

Mirrors LASTZ 1.04.22 gapped_extend.c gapped_extend / ydrop_align /
format_alignment: each anchor is skipped if it lies on an accepted alignment,
otherwise extended left (reverse) and right (forward) with the bounded y-drop
DP, trimmed of leading/trailing indels, cut into segments, and accepted if it
scores at least the gapped threshold.  Accepted alignments bound later ones.

The work is split so it can also run speculatively in parallel
(``fastz.pipeline.speculate``): ``extend_pair`` extends one anchor against the
alignments accepted so far without changing them (safe to run in many threads
at once), ``accept`` records a result, and ``conflicts`` says whether alignments
accepted after a speculative extension started could have changed it.

``two_pass`` selects FastZ's inspector (+ eager 16x16 traceback) and pruned
executor instead of one pass with a full traceback; both give the same bytes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bounds import (
    A_END1, A_END2, A_FIELDS, A_FIRST, A_LAST, A_NEXT, A_OPS0, A_OPSN, A_POS1, A_POS2,
    A_SCORE, A_TRIV, ACT_FIELDS, DIAG, HORZ, NONE, S_ALN, S_B1, S_B2, S_E1, S_E2,
    S_FIELDS, S_NEXT, S_PREV, S_TYPE, VERT,
)
from .arrays import grow
from .norefs import no_refcount
from .scorewords import dp_row, from_word, to_word, worst_score
from .rowindex import (above_below, clear_index, insert, neighbours, new_index, skip_test,
                       touching)
from .ydrop import (
    EAGER, MODE_EXECUTE, MODE_FULL, MODE_INSPECT, ROW_FIELDS, one_sided,
    padded, padded_query, traceback,
)

# statistics slots
ST_ANCHORS, ST_SKIPPED, ST_SIDES, ST_EAGER, ST_CELLS_INSPECT, ST_CELLS_EXECUTE, \
    ST_ACCEPTED, ST_TRUNCATED, ST_EMPTY, ST_REDONE = range(10)
N_STATS = 10

# engine state counters (an int64 array, updated in place)
M_NAL, M_NSEG, M_NOPS, M_HEAD_S, M_HEAD_E = range(5)
N_META = 5

# extend_pair result fields
(R_STATUS, R_START1, R_START2, R_STOP1, R_STOP2, R_SCORE, R_FIRST, R_NRUNS,
 R_LSEG, R_RSEG, R_LROWS, R_LMAXRY, R_RROWS, R_RMAXRY,
 R_LTRUNC, R_LEND1, R_LEND2, R_RTRUNC, R_REND1, R_REND2) = range(20)
N_RESULT = 20
SKIPPED, EMPTY, EXTENDED = 0, 1, 2

# (LASTZ's worstPossibleScore, the score of an alignment of indels only, is
# ``scorewords.worst_score``)

# ``conflicts`` scans this many newest alignments directly, more through the row index
RECENT = 32


@njit(cache=True)
def new_work(sub):
    """Scratch buffers for one extension with table ``sub``: (cc, dd, mk, act, rows, tb,
    tbrow, lbuf, rbuf, runs)."""
    return (dp_row(1024, sub), dp_row(1024, sub), np.zeros(1024, np.int64),
            np.zeros((8, ACT_FIELDS), np.int64), np.zeros((1024, ROW_FIELDS), np.int64),
            np.zeros(4096, np.uint8), np.zeros(1024, np.int64), np.zeros(256, np.int64),
            np.zeros(256, np.int64), np.zeros((64, 2), np.int64))


@njit(cache=True)
def new_state(capacity, target_len=0):
    """(al, sg, ops, meta, ix): empty stores of accepted alignments, segments and edit
    runs, and their row index (``kernels.rowindex``) over target rows ``[0, target_len]``."""
    al = np.full((max(capacity, 1), A_FIELDS), NONE, np.int64)
    sg = np.zeros((64, S_FIELDS), np.int64)
    ops = np.zeros((64, 2), np.int64)
    meta = np.zeros(N_META, np.int64)
    meta[M_HEAD_S] = NONE
    meta[M_HEAD_E] = NONE
    return al, sg, ops, meta, new_index(target_len, capacity)


@njit(cache=True)
def clear_state(meta, ix):
    """Empty ``new_state``'s stores for another strand: no alignment, segment or edit
    run held (their rows are written afresh as they are taken), an empty row index."""
    meta[:] = 0
    meta[M_HEAD_S] = NONE
    meta[M_HEAD_E] = NONE
    clear_index(ix)


@njit(cache=True, nogil=True)
def _extend_side(seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim,
                 tb_cells, al, sg, lseg, laln, rseg, raln, alist, work, stamp,
                 two_pass, opbuf, stats):
    """One side: (score, end_r, end_c, truncated, rows, max_ry, nops, work, opbuf).

    The traced ops are in ``opbuf[:nops]``, far end first.
    """
    cc, dd, mk, act, rows, tb, tbrow = work
    mode = MODE_INSPECT if two_pass else MODE_FULL
    (score, er, ec, trunc, cells, last_row, max_ry, cc, dd, mk, act, rows, tb,
     tbrow) = one_sided(seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop,
                        trim, tb_cells, al, sg, lseg, laln, rseg, raln, alist, cc, dd,
                        mk, act, stamp, mode, rows, tb, tbrow, 0, 0)
    stats[ST_CELLS_INSPECT] += cells
    if two_pass:
        if er < EAGER and ec < EAGER:
            stats[ST_EAGER] += 1
        else:
            (_s, _r, _c, _t, xcells, _lr, _mr, cc, dd, mk, act, rows, tb,
             tbrow) = one_sided(seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend,
                                ydrop, trim, tb_cells, al, sg, lseg, laln, rseg, raln,
                                alist, cc, dd, mk, act, stamp + (1 << 31), MODE_EXECUTE,
                                rows, tb, tbrow, er, ec)
            stats[ST_CELLS_EXECUTE] += xcells
    nops, opbuf = traceback(er, ec, tb, tbrow, opbuf)
    return (score, er, ec, trunc, last_row, max_ry, nops,
            (cc, dd, mk, act, rows, tb, tbrow), opbuf)


@no_refcount
def _rescore(T, Q, p1, p2, runs, first, last, sub, gap_open, gap_extend):
    """LASTZ score_alignment over edit-script runs[first:last] of (op, length)."""
    s = 0
    for k in range(first, last):
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


@njit(cache=True, nogil=True)
def assemble_pair(T, Q, a1, a2, sl, el1, el2, sr, er1, er2, lops, lo, nl, rops, ro, nr,
                  sub, gap_open, gap_extend, runs, res):
    """Two traced sides -> the alignment's edit script, extent and score (ydrop_align).

    ``lops[lo:lo+nl]`` are the left side's ops in sequence order, ``rops[ro:ro+nr]``
    the right side's far end first.  Equal neighbours merge (also across the
    anchor); leading / trailing indels are lopped and the alignment rescored, as
    LASTZ's lop_initial_indels / lop_final_indels.  Fills the extent, score, run
    range and status fields of ``res``; returns the (possibly grown) runs.
    """
    start1 = a1 + 1 - el1
    start2 = a2 + 1 - el2
    stop1 = a1 + er1
    stop2 = a2 + er2
    score = sl + sr
    runs = grow(runs, nl + nr + 1)
    nruns = 0
    for j in range(nl + nr):
        op = lops[lo + j] if j < nl else rops[ro + nr - 1 - (j - nl)]
        if nruns > 0 and runs[nruns - 1, 0] == op:
            runs[nruns - 1, 1] += 1
        else:
            runs[nruns, 0] = op
            runs[nruns, 1] = 1
            nruns += 1
    first = 0
    if nruns > 0 and runs[0, 0] != 0:
        while first < nruns and runs[first, 0] != 0:
            if runs[first, 0] == 1:
                start2 += runs[first, 1]
            else:
                start1 += runs[first, 1]
            first += 1
        if first == nruns:
            score = worst_score(sub)
            first = 0
            start1 = a1 + 1 - el1
            start2 = a2 + 1 - el2
        else:
            score = _rescore(T, Q, start1, start2, runs, first, nruns, sub, gap_open,
                             gap_extend)
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
            score = worst_score(sub)
        else:
            stop1 = p1
            stop2 = p2
            nruns = last
            score = _rescore(T, Q, start1, start2, runs, first, nruns, sub, gap_open,
                             gap_extend)
    res[R_START1] = start1
    res[R_START2] = start2
    res[R_STOP1] = stop1
    res[R_STOP2] = stop2
    res[R_SCORE] = to_word(score)
    res[R_FIRST] = first
    res[R_NRUNS] = nruns
    res[R_LEND1] = el1
    res[R_LEND2] = el2
    res[R_REND1] = er1
    res[R_REND2] = er2
    res[R_STATUS] = EXTENDED if (stop1 >= start1 or stop2 >= start2) else EMPTY
    return runs


@njit(cache=True, nogil=True)
def extend_pair(seqs, T, Q, a1, a2, lo1, hi1, lo2, hi2, sub, gap_open, gap_extend, ydrop,
                trim, tb_cells, two_pass, al, sg, meta, ix, stamp, work, stats, res):
    """Skip test and two-sided extension of one anchor against the accepted set.

    Reads the stores, never changes them.  Fills ``res`` (R_* fields); the edit
    script is ``runs[res[R_FIRST]:res[R_NRUNS]]`` of the returned work buffers.
    Mirrors ydrop_align: left/reverse side first, then right/forward, then
    ``assemble_pair``.
    """
    cc, dd, mk, act, rows, tb, tbrow, lbuf, rbuf, runs = work
    skip, lseg, laln, rseg, raln = skip_test(al, sg, ix, a1, a2)
    res[R_LSEG] = lseg
    res[R_RSEG] = rseg
    if skip:
        res[R_STATUS] = SKIPPED
        return work
    below, above = above_below(al, meta[M_HEAD_S], meta[M_HEAD_E], ix, a1)
    side = (cc, dd, mk, act, rows, tb, tbrow)
    sl, el1, el2, tl, lrows, lmax, nl, side, lbuf = _extend_side(
        seqs, True, a1, a2, a1 + 1 - lo1, a2 + 1 - lo2, sub, gap_open, gap_extend, ydrop,
        trim, tb_cells, al, sg, lseg, laln, rseg, raln, below, side, stamp, two_pass,
        lbuf, stats)
    sr, er1, er2, tr, rrows, rmax, nr, side, rbuf = _extend_side(
        seqs, False, a1, a2, hi1 - (a1 + 1), hi2 - (a2 + 1), sub, gap_open, gap_extend,
        ydrop, trim, tb_cells, al, sg, lseg, laln, rseg, raln, above, side,
        stamp + (1 << 32), two_pass, rbuf, stats)
    cc, dd, mk, act, rows, tb, tbrow = side
    stats[ST_SIDES] += 2
    res[R_LROWS] = lrows
    res[R_LMAXRY] = lmax
    res[R_RROWS] = rrows
    res[R_RMAXRY] = rmax
    res[R_LTRUNC] = tl
    res[R_RTRUNC] = tr

    runs = assemble_pair(T, Q, a1, a2, sl, el1, el2, sr, er1, er2, lbuf, 0, nl, rbuf, 0,
                         nr, sub, gap_open, gap_extend, runs, res)
    return (cc, dd, mk, act, rows, tb, tbrow, lbuf, rbuf, runs)


@njit(cache=True)
def _add_segment(sg, nseg, al, m, b1, b2, e1, e2):
    """LASTZ save_seg: append a diagonal segment, with a connector before it."""
    if al[m, A_FIRST] == NONE:
        sg = grow(sg, nseg + 1)
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
    sg = grow(sg, nseg + 2)
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
def accept(al, sg, ops, meta, ix, res, runs, trivial):
    """Record an alignment (LASTZ format_alignment + align_left_right + insert_align).

    ``res`` holds start/stop (inclusive), score and the run range; ``trivial``
    marks a trivial self-alignment (no neighbours computed, as in LASTZ).
    Returns the (possibly grown) stores (al, sg, ops, ix).
    """
    m = meta[M_NAL]
    al = grow(al, m + 1)
    al[m] = NONE
    meta[M_NAL] = m + 1
    start1 = res[R_START1]
    start2 = res[R_START2]
    height = res[R_STOP1] - start1 + 1
    width = res[R_STOP2] - start2 + 1
    first = res[R_FIRST]
    nruns = res[R_NRUNS]
    al[m, A_POS1] = start1
    al[m, A_POS2] = start2
    al[m, A_END1] = res[R_STOP1]
    al[m, A_END2] = res[R_STOP2]
    al[m, A_SCORE] = res[R_SCORE]
    al[m, A_TRIV] = 1 if trivial else 0
    al[m, A_FIRST] = NONE
    nseg = meta[M_NSEG]
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
    meta[M_NSEG] = nseg
    nops = meta[M_NOPS]
    ops = grow(ops, nops + nruns - first)
    al[m, A_OPS0] = nops
    al[m, A_OPSN] = nruns - first
    for q in range(first, nruns):
        ops[nops, 0] = runs[q, 0]
        ops[nops, 1] = runs[q, 1]
        nops += 1
    meta[M_NOPS] = nops
    if not trivial:
        neighbours(al, sg, ix, m)
    meta[M_HEAD_S], meta[M_HEAD_E], ix = insert(al, meta[M_HEAD_S], meta[M_HEAD_E], ix, m)
    return al, sg, ops, ix


@no_refcount
def _seg_hits_box(sg, s, r0, r1, c0, c1):
    """Does segment s share a cell with rows [r0, r1] x columns [c0, c1]?"""
    b1 = sg[s, S_B1]
    b2 = sg[s, S_B2]
    e1 = sg[s, S_E1]
    e2 = sg[s, S_E2]
    if sg[s, S_TYPE] == DIAG:
        n = e1 - b1
        lo = max(0, r0 - b1, c0 - b2)
        hi = min(n, r1 - b1, c1 - b2)
        return lo <= hi
    # connectors: treat as their bounding box, one row/column wider
    return not (max(b1, e1) + 1 < r0 or min(b1, e1) - 1 > r1
                or max(b2, e2) + 1 < c0 or min(b2, e2) - 1 > c1)


@njit(cache=True, nogil=True)
def conflicts(al, sg, ix, since, meta, res, a1, a2):
    """Could alignments accepted at or after index ``since`` change this extension?

    An alignment accepted later can act on an extension only through the skip
    test's bounding segments (checked by the caller) or through cells inside
    the region the extension swept (masks); so a speculative result stays exact
    unless a newer alignment has a cell in that region, widened by two columns.
    """
    # left side: rows a1+1-lrows .. a1 (row r = target a1 + 1 - r), columns
    # a2+1-c for c in [0, maxry); right side: rows a1 .. a1+rrows, columns a2+c
    lr0 = a1 + 1 - res[R_LROWS]
    lr1 = a1 + 1
    lc0 = a2 + 1 - (res[R_LMAXRY] + 2)
    lc1 = a2 + 1 + 2
    rr0 = a1
    rr1 = a1 + res[R_RROWS]
    rc0 = a2 - 2
    rc1 = a2 + res[R_RMAXRY] + 2
    if meta[M_NAL] - since <= RECENT:
        near = np.arange(since, meta[M_NAL])
        nnear = near.shape[0]
    else:
        near, nnear = touching(al, ix, lr0 - 1, rr1 + 1, since, np.empty(64, np.int64))
    for i in range(nnear):
        g = near[i]
        if al[g, A_END1] < lr0 - 1 or al[g, A_POS1] > rr1 + 1:
            continue
        s = al[g, A_FIRST]
        while s != NONE:
            if _seg_hits_box(sg, s, lr0 - 1, lr1 + 1, lc0, lc1):
                return True
            if _seg_hits_box(sg, s, rr0 - 1, rr1 + 1, rc0, rc1):
                return True
            s = sg[s, S_NEXT]
    return False


@njit(cache=True, nogil=True)
def _note_truncation(trunc, ntrunc, res, a1, a2, nal):
    """Add the anchor's truncation reports (``extend_anchors``'s ``trunc`` rows); ``nal``
    is the number of alignments accepted before this anchor (``--querydepth`` drops
    the reports of anchors LASTZ never reaches)."""
    for side in range(2):
        flag = res[R_LTRUNC] if side == 0 else res[R_RTRUNC]
        if flag:
            trunc = grow(trunc, ntrunc + 1)
            trunc[ntrunc, 0] = 1 - side
            trunc[ntrunc, 1] = res[R_LEND1] if side == 0 else res[R_REND1]
            trunc[ntrunc, 2] = res[R_LEND2] if side == 0 else res[R_REND2]
            trunc[ntrunc, 3] = a1
            trunc[ntrunc, 4] = a2
            trunc[ntrunc, 5] = nal
            ntrunc += 1
    return trunc, ntrunc


@njit(cache=True)
def add_trivial(al, sg, ops, meta, ix, trivial):
    """Insert LASTZ's trivial self-alignment(s) before any anchor is extended."""
    res = np.zeros(N_RESULT, np.int64)
    runs = np.zeros((1, 2), np.int64)
    for t in range(trivial.shape[0]):
        res[R_START1] = trivial[t, 0]
        res[R_START2] = trivial[t, 1]
        res[R_STOP1] = trivial[t, 2]
        res[R_STOP2] = trivial[t, 3]
        res[R_SCORE] = trivial[t, 4]
        res[R_FIRST] = 0
        res[R_NRUNS] = 1
        runs[0, 0] = 0
        runs[0, 1] = trivial[t, 2] - trivial[t, 0] + 1
        al, sg, ops, ix = accept(al, sg, ops, meta, ix, res, runs, True)
    return al, sg, ops, ix


@njit(cache=True, nogil=True)
def extend_anchors(T, Q, anc1, anc2, lo1, hi1, lo2, hi2, sub, gap_open, gap_extend,
                   ydrop, trim, tb_cells, thresh, allbounds, trivial, two_pass, tpads):
    """Process one strand's anchors (already in LASTZ's order), sequentially.

    Parameters
    ----------
    T, Q : uint8 target and query-strand buffers.
    anc1, anc2 : int64 anchor positions.
    lo1, hi1, lo2, hi2 : int64 per-anchor limits (partition containing the anchor;
        0 and the sequence length when unpartitioned).
    trivial : int64[k, 5] alignments inserted before any anchor (pos1, pos2, end1,
        end2, score), LASTZ's trivial self-alignment(s).
    two_pass : use the inspector/executor instead of a single full pass.
    tpads : ``ydrop.pad_target(T)``, made once per target.

    Returns
    -------
    (order, al, ops, stats, trunc)
        order : accepted alignment rows in output (by-start) order.
        al : alignment table (A_* fields; ends inclusive).
        ops : int64[n, 2] (op, length) runs; alignment k uses rows
            ops[al[k, A_OPS0] : al[k, A_OPS0] + al[k, A_OPSN]].
        stats : int64[N_STATS].
        trunc : int64[t, 6] truncation reports (reverse, row, col, a1, a2, number of
            alignments accepted before the anchor).
    """
    n = anc1.shape[0]
    al, sg, ops, meta, ix = new_state(n + trivial.shape[0] + 1, T.shape[0])
    al, sg, ops, ix = add_trivial(al, sg, ops, meta, ix, trivial)
    stats = np.zeros(N_STATS, np.int64)
    al, sg, ops, ix, _work, trunc, ntrunc = _extend_range(
        padded_query(tpads, Q), T, Q, anc1, anc2, lo1, hi1, lo2, hi2, 0, n, sub, gap_open,
        gap_extend, ydrop, trim, tb_cells, thresh, allbounds, two_pass, al, sg, ops, meta,
        ix, new_work(sub), np.zeros(N_RESULT, np.int64), stats, np.zeros((0, 6), np.int64))
    return output_order(al, meta, thresh, sub), al[:meta[M_NAL]], ops[:meta[M_NOPS]], stats, \
        trunc[:ntrunc]


@njit(cache=True)
def _extend_range(seqs, T, Q, anc1, anc2, lo1, hi1, lo2, hi2, a0, a9, sub, gap_open,
                  gap_extend, ydrop, trim, tb_cells, thresh, allbounds, two_pass, al, sg,
                  ops, meta, ix, work, res, stats, trunc):
    """``extend_anchors``'s loop over anchors ``a0 .. a9 - 1`` of one strand, into the
    stores and work buffers given; returns them (grown) with the truncation reports
    and their count.  The mask stamps count from the anchor's index, so buffers
    reused for another strand's anchors (``extend_strands``) never hold a stamp of
    the current one."""
    ntrunc = 0
    for k in range(a0, a9):
        stats[ST_ANCHORS] += 1
        work = extend_pair(seqs, T, Q, anc1[k], anc2[k], lo1[k], hi1[k], lo2[k], hi2[k],
                           sub, gap_open, gap_extend, ydrop, trim, tb_cells, two_pass,
                           al, sg, meta, ix, (2 * k + 2) << 32, work, stats, res)
        status = res[R_STATUS]
        if status == SKIPPED:
            stats[ST_SKIPPED] += 1
            continue
        trunc, ntrunc = _note_truncation(trunc, ntrunc, res, anc1[k], anc2[k], meta[M_NAL])
        if res[R_LTRUNC] or res[R_RTRUNC]:
            stats[ST_TRUNCATED] += 1
        if status == EMPTY:
            stats[ST_EMPTY] += 1
            continue
        if (not allbounds) and from_word(res[R_SCORE], sub) < thresh:
            continue
        al, sg, ops, ix = accept(al, sg, ops, meta, ix, res, work[9], False)
        stats[ST_ACCEPTED] += 1
    return al, sg, ops, ix, work, trunc, ntrunc


# one row per alignment of ``extend_strands``
(X_STRAND, X_BEG1, X_END1, X_BEG2, X_END2, X_SCORE, X_NOPS) = range(7)


@njit(cache=True, nogil=True)
def extend_strands(T, Q, qoff, anc1, anc2, aoff, lo1, hi1, sub, gap_open, gap_extend,
                   ydrop, trim, tb_cells, thresh, allbounds, two_pass, tpads):
    """``extend_anchors`` of many short query strands in one call (a read's extension
    costs about what a call from Python does).

    Strand s is ``Q[qoff[s]:qoff[s + 1]]`` (unpartitioned, no trivial self-alignment
    possible), its anchors ``anc1/anc2[aoff[s]:aoff[s + 1]]`` in LASTZ's order, query
    positions relative to its own buffer; ``lo1/hi1`` per anchor as in
    ``extend_anchors``.  Returns (rows, ops, stats, trunc): the alignments in output
    order, strand after strand, as int64 rows (X_* fields; ends exclusive), their edit
    runs BAM-encoded ((length << 4) | op) one alignment after another, the statistics
    summed, and the truncation reports with the strand prepended.
    """
    rows = np.empty((64, 7), np.int64)
    enc = np.empty(256, np.uint64)
    truncs = np.empty((0, 7), np.int64)
    nrow = 0
    nenc = 0
    ntrunc = 0
    stats = np.zeros(N_STATS, np.int64)
    # one set of stores and work buffers serves every strand, emptied between them
    # (made afresh, a 150 bp read's cost two dozen allocations and 40 KB cleared:
    # 4-8 % of a one-worker read-mapping run); the row index is sized for the
    # busiest strand
    nanc = anc1.shape[0]
    most = 0
    lo2 = np.zeros(nanc, np.int64)
    hi2 = np.empty(nanc, np.int64)
    for s in range(qoff.shape[0] - 1):
        most = max(most, aoff[s + 1] - aoff[s])
        hi2[aoff[s]:aoff[s + 1]] = qoff[s + 1] - qoff[s]
    al, sg, ops, meta, ix = new_state(most + 1, T.shape[0])
    work = new_work(sub)
    res = np.zeros(N_RESULT, np.int64)
    trunc = np.zeros((0, 6), np.int64)
    for s in range(qoff.shape[0] - 1):
        a0 = aoff[s]
        a9 = aoff[s + 1]
        if a0 == a9:
            continue
        Qs = Q[qoff[s]:qoff[s + 1]].copy()
        clear_state(meta, ix)
        al, sg, ops, ix, work, trunc, nt = _extend_range(
            padded_query(tpads, Qs), T, Qs, anc1, anc2, lo1, hi1, lo2, hi2, a0, a9, sub,
            gap_open, gap_extend, ydrop, trim, tb_cells, thresh, allbounds, two_pass, al,
            sg, ops, meta, ix, work, res, stats, trunc)
        order = output_order(al, meta, thresh, sub)
        rows = grow(rows, nrow + order.shape[0])
        for m in order:
            o0 = al[m, A_OPS0]
            no = al[m, A_OPSN]
            rows[nrow, X_STRAND] = s
            rows[nrow, X_BEG1] = al[m, A_POS1]
            rows[nrow, X_END1] = al[m, A_END1] + 1
            rows[nrow, X_BEG2] = al[m, A_POS2]
            rows[nrow, X_END2] = al[m, A_END2] + 1
            rows[nrow, X_SCORE] = al[m, A_SCORE]
            rows[nrow, X_NOPS] = no
            nrow += 1
            enc = grow(enc, nenc + no)
            for k in range(o0, o0 + no):
                enc[nenc] = (np.uint64(ops[k, 1]) << np.uint64(4)) | np.uint64(ops[k, 0])
                nenc += 1
        truncs = grow(truncs, ntrunc + nt)
        for k in range(nt):
            truncs[ntrunc, 0] = s
            truncs[ntrunc, 1:] = trunc[k]
            ntrunc += 1
    return rows[:nrow], enc[:nenc], stats, truncs[:ntrunc]


@njit(cache=True)
def output_order(al, meta, thresh, sub):
    """Accepted alignments in LASTZ's output order (by-start list), above threshold
    (``sub``: the table the scores were found with, see ``kernels.scorewords``)."""
    order = np.empty(meta[M_NAL], np.int64)
    cnt = 0
    q = meta[M_HEAD_S]
    while q != NONE:
        if from_word(al[q, A_SCORE], sub) >= thresh:
            order[cnt] = q
            cnt += 1
        q = al[q, A_NEXT]
    return order[:cnt]


@njit(cache=True)
def extend_one_side(T, Q, a1, a2, reverse, sub, gap_open, gap_extend, ydrop, trim,
                    tb_cells, two_pass):
    """One unbounded one-sided extension (no earlier alignments): for tests.

    Returns (score, end_row, end_col, truncated, ops, stats) with ops in DP order
    from the anchor outwards (0 sub, 1 ins, 2 del).
    """
    al, sg, _ops, _meta, _ix = new_state(1)
    stats = np.zeros(N_STATS, np.int64)
    if reverse:
        M = a1 + 1
        N = a2 + 1
    else:
        M = T.shape[0] - (a1 + 1)
        N = Q.shape[0] - (a2 + 1)
    w = new_work(sub)
    score, er, ec, trunc, _rows, _maxry, nops, side, buf = _extend_side(
        padded(T, Q), reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim,
        tb_cells, al, sg, NONE, NONE, NONE, NONE, NONE, w[:7], 0, two_pass, w[7], stats)
    return score, er, ec, trunc, buf[:nops][::-1].copy(), stats
