"""Speculative parallel gapped extension, resolved in LASTZ's order (exact).

LASTZ extends anchors one at a time; each accepted alignment can skip or bound
later extensions.  Here a window of the next anchors is extended at once in
threads (the numba kernels release the GIL), each against the alignments
accepted before the window.  Then the window is resolved strictly in anchor
order:

* an anchor that now lies on an alignment accepted meanwhile is skipped, as
  LASTZ would have skipped it (its speculative work is wasted);
* an anchor whose bounding segments changed, or whose swept region contains a
  cell of an alignment accepted meanwhile, is extended again, now, against the
  current alignments (``kernels.gapped.conflicts`` explains why that test is
  sufficient);
* every other speculative result is exactly what the sequential run computes.

So the output is byte-identical to the sequential engine for any thread count
and window size; only the amount of wasted and redone work varies.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..kernels.gapped import (
    EMPTY, M_NAL, M_NOPS, N_RESULT, N_STATS, R_LSEG, R_LTRUNC,
    R_NRUNS, R_RSEG, R_RTRUNC, R_SCORE, R_STATUS, SKIPPED, ST_ACCEPTED, ST_ANCHORS,
    ST_EMPTY, ST_REDONE, ST_SKIPPED, ST_TRUNCATED, _note_truncation, accept,
    add_trivial, conflicts, extend_pair, new_state, new_work, output_order,
)
from ..kernels.rowindex import skip_test
from ..kernels.scorewords import from_word
from ..kernels.ydrop import padded_query
from .parallel import usable


# HSP anchors this close (diagonal, target position) to one being extended in the same
# window are likely to end up on its alignment: they are not extended speculatively.
# Seed-hit anchors (--nogfextend) are all speculated: most of their extensions are
# rejected (below the threshold), so they change nothing and the speculation holds
# (mito_human_orang --nogfextend on 2 cores: 14.0 s with the filter, 11.8 s without)
NEAR_DIAG = 300
NEAR_POS = 50_000


def extend_anchors_parallel(T, Q, anc1, anc2, lo1, hi1, lo2, hi2, sub, gap_open,
                            gap_extend, ydrop, trim, tb_cells, thresh, allbounds, trivial,
                            two_pass, tpads, threads, window=None, cores=None, near=True):
    """Same inputs and outputs as ``kernels.gapped.extend_anchors``, in up to
    ``threads`` threads.

    ``near`` turns on the filter above (for HSP anchors).  ``cores()``, when given,
    says how many threads may run now (the parallel driver counts the strands being
    aligned in other workers): a window is extended in that many threads, or strictly
    in order, without speculation, when it is one.  So a strand that outlives the
    others takes over their cores.
    """
    n = anc1.shape[0]
    seqs = padded_query(tpads, Q)
    al, sg, ops, meta, ix = new_state(n + trivial.shape[0] + 1, T.shape[0])
    al, sg, ops, ix = add_trivial(al, sg, ops, meta, ix, trivial)
    stats = np.zeros(N_STATS, np.int64)
    trunc = np.zeros((0, 6), np.int64)
    ntrunc = 0
    local = threading.local()

    def extend(k, al, sg, meta, ix, work=None):
        """Extend anchor k against the given state; returns (res, runs, stats)."""
        own = work is None
        if own:
            work = getattr(local, "work", None) or new_work(sub)
        res = np.zeros(N_RESULT, np.int64)
        st = np.zeros(N_STATS, np.int64)
        work = extend_pair(seqs, T, Q, anc1[k], anc2[k], lo1[k], hi1[k], lo2[k], hi2[k],
                           sub, gap_open, gap_extend, ydrop, trim, tb_cells, two_pass,
                           al, sg, meta, ix, (2 * k + 2) << 32, work, st, res)
        if own:
            local.work = work
        runs = work[9][:res[R_NRUNS]].copy()
        return res, runs, st

    main_work = new_work(sub)
    diag = anc1.astype(np.int64) - anc2.astype(np.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        k = 0
        while k < n:
            now = usable(threads, cores)
            if now == 1:
                # one core to use: the next anchors in order, as the sequential engine
                for j in range(k, min(n, k + 32)):
                    stats[ST_ANCHORS] += 1
                    res, runs, st = extend(j, al, sg, meta, ix, main_work)
                    stats += st
                    al, sg, ops, ix, trunc, ntrunc = _record(
                        al, sg, ops, meta, ix, stats, trunc, ntrunc, res, runs, anc1[j],
                        anc2[j], thresh, allbounds, sub)
                k = min(n, k + 32)
                continue
            size = window or 4 * now
            # Window: the next anchors in order.  Only anchors far from every one
            # already chosen are extended speculatively; a nearby one is likely to
            # be covered by that one's alignment (then LASTZ skips it), so it is
            # left for the in-order pass below, which extends it only if needed.
            chosen, spec = [], []
            j = k
            while j < n and len(chosen) < size and j - k < 8 * size:
                close = False
                for i in (spec if near else ()):
                    if abs(diag[j] - diag[i]) < NEAR_DIAG and abs(anc1[j] - anc1[i]) < NEAR_POS:
                        close = True
                        break
                if not close:
                    spec.append(j)
                chosen.append(j)
                j += 1
            snap = int(meta[M_NAL])
            # ``now`` tasks, each extending its share of the window in turn against
            # the alignments accepted so far; the stores are read-only until all
            # are done (the resolve loop below links new alignments in)
            def share(part, al=al, sg=sg, meta=meta, ix=ix):
                return {i: extend(i, al, sg, meta, ix) for i in part}
            tasks = [pool.submit(share, spec[t::now]) for t in range(now)]
            done = {}
            for task in tasks:
                done.update(task.result())
            for j in chosen:
                stats[ST_ANCHORS] += 1
                if j not in done:
                    res, runs, st = extend(j, al, sg, meta, ix, main_work)
                    stats += st
                else:
                    res, runs, st = done.pop(j)
                    stats += st
                    if res[R_STATUS] != SKIPPED and meta[M_NAL] > snap:
                        skip, lseg, _la, rseg, _ra = skip_test(al, sg, ix, anc1[j],
                                                               anc2[j])
                        if skip:
                            res[R_STATUS] = SKIPPED
                        elif (lseg != res[R_LSEG] or rseg != res[R_RSEG]
                              or conflicts(al, sg, ix, snap, meta, res, anc1[j], anc2[j])):
                            res, runs, st = extend(j, al, sg, meta, ix, main_work)
                            stats += st
                            stats[ST_REDONE] += 1
                al, sg, ops, ix, trunc, ntrunc = _record(
                    al, sg, ops, meta, ix, stats, trunc, ntrunc, res, runs, anc1[j],
                    anc2[j], thresh, allbounds, sub)
            k = chosen[-1] + 1
    return (output_order(al, meta, thresh, sub), al[:meta[M_NAL]], ops[:meta[M_NOPS]], stats,
            trunc[:ntrunc])


def _record(al, sg, ops, meta, ix, stats, trunc, ntrunc, res, runs, a1, a2, thresh,
            allbounds, sub):
    """Count one anchor's outcome and accept its alignment if it qualifies
    (the tail of ``kernels.gapped.extend_anchors``'s loop)."""
    if res[R_STATUS] == SKIPPED:
        stats[ST_SKIPPED] += 1
        return al, sg, ops, ix, trunc, ntrunc
    trunc, ntrunc = _note_truncation(trunc, ntrunc, res, a1, a2, meta[M_NAL])
    if res[R_LTRUNC] or res[R_RTRUNC]:
        stats[ST_TRUNCATED] += 1
    if res[R_STATUS] == EMPTY:
        stats[ST_EMPTY] += 1
    elif allbounds or from_word(res[R_SCORE], sub) >= thresh:
        al, sg, ops, ix = accept(al, sg, ops, meta, ix, res, runs, False)
        stats[ST_ACCEPTED] += 1
    return al, sg, ops, ix, trunc, ntrunc
