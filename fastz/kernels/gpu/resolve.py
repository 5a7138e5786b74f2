"""Exact resolution of speculative (device) extensions, in LASTZ's anchor order.

The device extends anchors *unbounded*: as if no alignment had been accepted.
LASTZ extends them one at a time, each bounded by the alignments accepted
before it.  ``resolve`` replays LASTZ's loop on the host (numba, CPU):

1. the skip test against the alignments accepted so far; skipped anchors are
   dropped, whatever the device computed;
2. the device result is used only if it is provably what the bounded
   extension gives: both sides finished on the device, no accepted alignment
   has a cell in the region either side swept (``gapped.conflicts`` with
   since=0: rows swept x columns [0, max_ry), one row and two columns wider),
   and, when the skip test found bounding segments, neither side's sweep
   reached the end of the query (column N);
3. otherwise the anchor is extended now, bounded and exact, with
   ``gapped.extend_pair`` (the CPU engine).

docs/gpu.md explains why (2) is sufficient.  Mirrors the loop of
``gapped.extend_anchors`` (LASTZ gapped_extend.c gapped_extend).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..bounds import NONE, skip_test
from ..dpcells import O_LAST_ROW, O_MAX_RY, O_NOPS, O_SCORE, O_STATUS, O_END_C, O_END_R
from ..gapped import (
    EMPTY, EXTENDED, M_HEAD_S, M_NAL, M_NOPS, N_RESULT, N_STATS, R_FIRST, R_LEND1, R_LEND2,
    R_LMAXRY, R_LROWS, R_LSEG, R_LTRUNC, R_NRUNS, R_REND1, R_REND2, R_RMAXRY, R_RROWS,
    R_RSEG, R_RTRUNC, R_SCORE, R_START1, R_START2, R_STATUS, R_STOP1, R_STOP2, SKIPPED,
    ST_ACCEPTED, ST_ANCHORS, ST_EMPTY, ST_REDONE, ST_SKIPPED, ST_TRUNCATED, WORST_SCORE,
    _note_truncation, _rescore, accept, add_trivial, conflicts, extend_pair, new_state,
    new_work, output_order,
)
from ..ydrop import _grow2, padded

# device-path counters (gstats)
G_SPECULATED, G_USED, G_REDONE_CONFLICT, G_REDONE_DEVICE, G_CPU, G_SKIPPED_SPEC = range(6)
N_GSTATS = 6
GSTAT_NAMES = ("gpu_anchors_speculated", "gpu_results_used", "gpu_redone_conflict",
               "gpu_redone_unfinished", "gpu_cpu_not_speculated", "gpu_speculated_skipped")

# anchors this close (diagonal, target position) to an earlier speculated anchor
# are likely to end up on its alignment (then LASTZ skips them): not speculated
NEAR_DIAG = 0          # 0: speculate every anchor (FASTZ_GPU_NEAR overrides)
NEAR_POS = 0


@njit(cache=True)
def speculate_mask(anc1, anc2, near_diag, near_pos):
    """Which anchors to extend on the device: those with no earlier chosen anchor
    within ``near_diag`` diagonals and ``near_pos`` target positions."""
    n = anc1.shape[0]
    mask = np.zeros(n, np.bool_)
    nxt = np.full(n, -1, np.int64)
    heads = dict()
    heads[np.int64(0)] = np.int64(-1)
    for j in range(n):
        dg = anc1[j] - anc2[j]
        b = dg // near_diag
        near = False
        for bb in (b - 1, b, b + 1):
            h = heads[bb] if bb in heads else np.int64(-1)
            while h >= 0:
                if abs((anc1[h] - anc2[h]) - dg) < near_diag and abs(anc1[h] - anc1[j]) < near_pos:
                    near = True
                    break
                h = nxt[h]
            if near:
                break
        if not near:
            mask[j] = True
            nxt[j] = heads[b] if b in heads else np.int64(-1)
            heads[b] = np.int64(j)
    return mask


@njit(cache=True, nogil=True)
def _assemble(T, Q, a1, a2, sl, el1, el2, sr, er1, er2, sops, lo, nl, ro, nr, sub, gap_open,
              gap_extend, runs, res):
    """Two device sides -> edit script and result (the tail of ``gapped.extend_pair``).

    Left ops are in sequence order, right ops reversed; equal neighbours merge;
    leading / trailing indels are lopped and the alignment rescored, as LASTZ's
    lop_initial_indels / lop_final_indels.  Returns the (possibly grown) runs.
    """
    start1 = a1 + 1 - el1
    start2 = a2 + 1 - el2
    stop1 = a1 + er1
    stop2 = a2 + er2
    score = sl + sr
    runs = _grow2(runs, nl + nr + 1)
    nruns = 0
    for j in range(nl + nr):
        op = sops[lo + j] if j < nl else sops[ro + nr - 1 - (j - nl)]
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
            score = WORST_SCORE
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
            score = WORST_SCORE
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
    res[R_SCORE] = score
    res[R_FIRST] = first
    res[R_NRUNS] = nruns
    res[R_LTRUNC] = 0
    res[R_RTRUNC] = 0
    res[R_LEND1] = el1
    res[R_LEND2] = el2
    res[R_REND1] = er1
    res[R_REND2] = er2
    res[R_STATUS] = EXTENDED if (stop1 >= start1 or stop2 >= start2) else EMPTY
    return runs


@njit(cache=True)
def device_result_usable(al, sg, meta, res, a1, a2, lseg, rseg, nl, nr):
    """Is the unbounded result in ``res`` exactly LASTZ's bounded one (docs/gpu.md)?

    ``res`` carries R_LROWS/R_LMAXRY/R_RROWS/R_RMAXRY of the two sides; nl, nr
    are the sides' column counts N.  The anchor must not be skipped (checked
    by the caller).
    """
    if conflicts(al, sg, 0, meta, res, a1, a2):
        return False
    if (lseg != NONE or rseg != NONE) and (res[R_LMAXRY] > nl or res[R_RMAXRY] > nr):
        return False
    return True


@njit(cache=True)
def resolve(T, Q, anc1, anc2, lo1, hi1, lo2, hi2, sub, gap_open, gap_extend, ydrop, trim,
            tb_cells, thresh, allbounds, trivial, two_pass, pair, sout, sops, soff):
    """LASTZ's sequential loop over anchors, taking device results where exact.

    ``pair[k]`` is p when anchor k's sides were extended on the device (left
    side 2p, right side 2p + 1), else -1.  ``sout[s]`` holds side s's results
    (``dpcells`` O_* fields) and its ops are ``sops[soff[s]:][:sout[s, O_NOPS]]``
    (O_NOPS < 0: the side did not finish on the device).

    Returns ``gapped.extend_anchors``'s (order, al, ops, stats, trunc) plus
    gstats (G_* counters).
    """
    n = anc1.shape[0]
    al, sg, ops, meta = new_state(n + trivial.shape[0] + 1)
    al, sg, ops = add_trivial(al, sg, ops, meta, trivial)
    stats = np.zeros(N_STATS, np.int64)
    gstats = np.zeros(N_GSTATS, np.int64)
    trunc = np.zeros((0, 5), np.int64)
    ntrunc = 0
    work = new_work()
    runs = np.zeros((64, 2), np.int64)
    res = np.zeros(N_RESULT, np.int64)
    seqs = padded(T, Q)
    for k in range(n):
        stats[ST_ANCHORS] += 1
        a1 = anc1[k]
        a2 = anc2[k]
        p = pair[k]
        if p >= 0:
            gstats[G_SPECULATED] += 1
        use = False
        skipped = False
        lseg = NONE
        rseg = NONE
        if p >= 0:
            skip, lseg, _laln, rseg, _raln = skip_test(al, sg, meta[M_HEAD_S], a1, a2)
            if skip:
                skipped = True
                gstats[G_SKIPPED_SPEC] += 1
            else:
                L = 2 * p
                R = 2 * p + 1
                if (sout[L, O_STATUS] == 0 and sout[R, O_STATUS] == 0
                        and sout[L, O_NOPS] >= 0 and sout[R, O_NOPS] >= 0):
                    res[R_LROWS] = sout[L, O_LAST_ROW]
                    res[R_LMAXRY] = sout[L, O_MAX_RY]
                    res[R_RROWS] = sout[R, O_LAST_ROW]
                    res[R_RMAXRY] = sout[R, O_MAX_RY]
                    nl = a2 + 1 - lo2[k]
                    nr = hi2[k] - (a2 + 1)
                    if device_result_usable(al, sg, meta, res, a1, a2, lseg, rseg, nl, nr):
                        use = True
                    else:
                        gstats[G_REDONE_CONFLICT] += 1
                else:
                    gstats[G_REDONE_DEVICE] += 1
        if skipped:
            stats[ST_SKIPPED] += 1
            continue
        if use:
            gstats[G_USED] += 1
            L = 2 * p
            R = 2 * p + 1
            res[R_LSEG] = lseg
            res[R_RSEG] = rseg
            runs = _assemble(T, Q, a1, a2, sout[L, O_SCORE], sout[L, O_END_R],
                             sout[L, O_END_C], sout[R, O_SCORE], sout[R, O_END_R],
                             sout[R, O_END_C], sops, soff[L], sout[L, O_NOPS], soff[R],
                             sout[R, O_NOPS], sub, gap_open, gap_extend, runs, res)
            cur = runs
        else:
            if p >= 0:
                stats[ST_REDONE] += 1
            work = extend_pair(seqs, T, Q, a1, a2, lo1[k], hi1[k], lo2[k], hi2[k], sub,
                               gap_open, gap_extend, ydrop, trim, tb_cells, two_pass, al, sg,
                               meta, (2 * k + 2) << 32, work, stats, res)
            cur = work[9]
            if res[R_STATUS] == SKIPPED:
                stats[ST_SKIPPED] += 1
                continue
            if p < 0:
                gstats[G_CPU] += 1
        trunc, ntrunc = _note_truncation(trunc, ntrunc, res, a1, a2)
        if res[R_LTRUNC] or res[R_RTRUNC]:
            stats[ST_TRUNCATED] += 1
        if res[R_STATUS] == EMPTY:
            stats[ST_EMPTY] += 1
            continue
        if (not allbounds) and res[R_SCORE] < thresh:
            continue
        al, sg, ops = accept(al, sg, ops, meta, res, cur, False)
        stats[ST_ACCEPTED] += 1
    return (output_order(al, meta, thresh), al[:meta[M_NAL]], ops[:meta[M_NOPS]], stats,
            trunc[:ntrunc], gstats)


__all__ = ["resolve", "speculate_mask", "device_result_usable", "GSTAT_NAMES", "NEAR_DIAG",
           "NEAR_POS"]
