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

from ..bounds import NONE
from ..rowindex import skip_test
from ..scorewords import from_word
from ..dpcells import O_LAST_ROW, O_MAX_RY, O_NOPS, O_SCORE, O_STATUS, O_END_C, O_END_R
from ..gapped import (
    EMPTY, M_NAL, N_RESULT, N_STATS, R_LMAXRY, R_LROWS, R_LSEG,
    R_LTRUNC, R_RMAXRY, R_RROWS, R_RSEG, R_RTRUNC, R_SCORE, R_STATUS, SKIPPED,
    ST_ACCEPTED, ST_ANCHORS, ST_EMPTY, ST_REDONE, ST_SKIPPED, ST_TRUNCATED,
    _note_truncation, accept, add_trivial, assemble_pair, conflicts, extend_pair,
    new_state, new_work,
)

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


@njit(cache=True)
def device_result_usable(al, sg, ix, meta, res, a1, a2, lseg, rseg, nl, nr):
    """Is the unbounded result in ``res`` exactly LASTZ's bounded one (docs/gpu.md)?

    ``res`` carries R_LROWS/R_LMAXRY/R_RROWS/R_RMAXRY of the two sides; nl, nr
    are the sides' column counts N.  The anchor must not be skipped (checked
    by the caller).
    """
    if conflicts(al, sg, ix, 0, meta, res, a1, a2):
        return False
    if (lseg != NONE or rseg != NONE) and (res[R_LMAXRY] > nl or res[R_RMAXRY] > nr):
        return False
    return True


@njit(cache=True)
def resolve_state(n, trivial, target_len):
    """Empty resolution state for ``n`` anchors: (al, sg, ops, meta, ix, stats, gstats,
    trunc, ntrunc), the trivial self-alignment already accepted."""
    al, sg, ops, meta, ix = new_state(n + trivial.shape[0] + 1, target_len)
    al, sg, ops, ix = add_trivial(al, sg, ops, meta, ix, trivial)
    return (al, sg, ops, meta, ix, np.zeros(N_STATS, np.int64),
            np.zeros(N_GSTATS, np.int64), np.zeros((0, 6), np.int64), 0)


@njit(cache=True)
def pending(al, sg, ix, anc1, anc2, k0):
    """Anchors k >= k0 that the alignments accepted so far do not skip (candidates
    for the next round of speculation; later acceptances may still skip them)."""
    out = np.zeros(anc1.shape[0] - k0, np.bool_)
    for k in range(k0, anc1.shape[0]):
        skip, _l, _la, _r, _ra = skip_test(al, sg, ix, anc1[k], anc2[k])
        out[k - k0] = not skip
    return out


@njit(cache=True)
def resolve_from(k0, stop_missing, seqs, T, Q, anc1, anc2, lo1, hi1, lo2, hi2, sub,
                 gap_open, gap_extend, ydrop, trim, tb_cells, thresh, allbounds, two_pass,
                 pair, sout, sops, soff, al, sg, ops, meta, ix, stats, gstats, trunc,
                 ntrunc):
    """LASTZ's sequential loop over anchors k0, k0 + 1, ..., taking device results where
    exact.

    ``pair[k]`` is p when anchor k's sides were extended on the device (left
    side 2p, right side 2p + 1), else -1.  ``sout[s]`` holds side s's results
    (``dpcells`` O_* fields) and its ops are ``sops[soff[s]:][:sout[s, O_NOPS]]``
    (O_NOPS < 0: the side did not finish on the device).  With ``stop_missing``
    the loop stops at the first anchor that has no device result and is not
    skipped (the caller speculates again from there), else the CPU extends it.

    Returns (k, al, sg, ops, meta, ix, trunc, ntrunc): k is where the loop stopped
    (len(anc1) when done); stats and gstats (G_* counters) are updated in place.
    """
    n = anc1.shape[0]
    work = new_work(sub)
    runs = np.zeros((64, 2), np.int64)
    res = np.zeros(N_RESULT, np.int64)
    for k in range(k0, n):
        a1 = anc1[k]
        a2 = anc2[k]
        p = pair[k]
        if p < 0 and stop_missing:
            skip, _l, _la, _r, _ra = skip_test(al, sg, ix, a1, a2)
            if not skip:
                return k, al, sg, ops, meta, ix, trunc, ntrunc
            stats[ST_ANCHORS] += 1
            stats[ST_SKIPPED] += 1
            continue
        stats[ST_ANCHORS] += 1
        if p >= 0:
            gstats[G_SPECULATED] += 1
        use = False
        skipped = False
        lseg = NONE
        rseg = NONE
        if p >= 0:
            skip, lseg, _laln, rseg, _raln = skip_test(al, sg, ix, a1, a2)
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
                    if device_result_usable(al, sg, ix, meta, res, a1, a2, lseg, rseg, nl,
                                            nr):
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
            res[R_LTRUNC] = 0
            res[R_RTRUNC] = 0
            runs = assemble_pair(T, Q, a1, a2, sout[L, O_SCORE], sout[L, O_END_R],
                                 sout[L, O_END_C], sout[R, O_SCORE], sout[R, O_END_R],
                                 sout[R, O_END_C], sops, soff[L], sout[L, O_NOPS], sops,
                                 soff[R], sout[R, O_NOPS], sub, gap_open, gap_extend, runs,
                                 res)
            cur = runs
        else:
            if p >= 0:
                stats[ST_REDONE] += 1
            work = extend_pair(seqs, T, Q, a1, a2, lo1[k], hi1[k], lo2[k], hi2[k], sub,
                               gap_open, gap_extend, ydrop, trim, tb_cells, two_pass, al, sg,
                               meta, ix, (2 * k + 2) << 32, work, stats, res)
            cur = work[9]
            if res[R_STATUS] == SKIPPED:
                stats[ST_SKIPPED] += 1
                continue
            if p < 0:
                gstats[G_CPU] += 1
        trunc, ntrunc = _note_truncation(trunc, ntrunc, res, a1, a2, meta[M_NAL])
        if res[R_LTRUNC] or res[R_RTRUNC]:
            stats[ST_TRUNCATED] += 1
        if res[R_STATUS] == EMPTY:
            stats[ST_EMPTY] += 1
            continue
        if (not allbounds) and from_word(res[R_SCORE], sub) < thresh:
            continue
        al, sg, ops, ix = accept(al, sg, ops, meta, ix, res, cur, False)
        stats[ST_ACCEPTED] += 1
    return n, al, sg, ops, meta, ix, trunc, ntrunc


__all__ = ["resolve_state", "resolve_from", "pending", "speculate_mask", "device_result_usable", "GSTAT_NAMES", "NEAR_DIAG",
           "NEAR_POS"]
