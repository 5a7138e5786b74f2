"""Stage 3 host side: anchors of one query strand -> gapped alignments.

Sets up what the numba engine (``fastz.kernels.gapped.extend_anchors``) needs:
partition limits per anchor, LASTZ's trivial self-alignment, and afterwards
converts its tables into ``records.Alignments`` in output order, drops trivial
self-alignments when asked (--notrivial / --self) and reports truncations as
lastz does.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..cscan import as_int32
from ..errors import OptionsError
from ..io.alignview import BITS
from ..kernels.alnstats import identity_counts_all
from ..kernels.bounds import (
    A_END1, A_END2, A_FIRST, A_LAST, A_OPS0, A_OPSN, A_POS1, A_POS2, A_SCORE, A_TRIV,
)
from ..kernels.gapped import (
    ST_ANCHORS, ST_SKIPPED, X_BEG1, X_BEG2, X_END1, X_END2, X_NOPS, X_SCORE, X_STRAND,
    extend_anchors, extend_strands,
)
from ..kernels.scorewords import fractional, scores_of, to_word, ydrop_tail
from ..kernels.ydrop import pad_target
from ..records import Alignments, Sequence, concat_buffers
from ..scoring import BEST_POSSIBLE, ScoreSet, run_score

STAT_NAMES = ("anchors", "anchors_skipped", "extensions", "eager", "cells_inspector",
              "cells_executor", "alignments", "truncated", "empty", "redone")

_UPPER = np.arange(256, dtype=np.uint8)
_UPPER[ord("a"):ord("z") + 1] -= 32


class _Truncation:
    """LASTZ prints the hint about --allocate:traceback once per run."""
    hinted = False


def _identical_score(a: np.ndarray, b: np.ndarray, sub: np.ndarray) -> int | None:
    """Score of a gap-free alignment of two sequences equal ignoring case, else None.

    Mirrors identical_sequences(): positive sums saturate at 2^31-1.
    """
    if a.shape != b.shape or not np.array_equal(_UPPER[a], _UPPER[b]):
        return None
    ua = _UPPER[a]
    if fractional(sub):
        return run_score(sub, ua, ua)       # (lastz_D's double sum: it cannot saturate)
    s = sub[ua, ua].astype(np.int64)
    if s.size == 0:
        return 0
    if (s > 0).any() and np.cumsum(s).max() >= BEST_POSSIBLE:
        total = 0
        for v in s.tolist():            # rare: saturating sum as LASTZ does it
            if total == BEST_POSSIBLE:
                continue
            total = total + v if (v <= 0 or total < BEST_POSSIBLE - v) else BEST_POSSIBLE
        return total
    return int(s.sum())


#: Query strands shorter than this extend their anchors in one thread: a short read's
#: extensions take microseconds, less than starting the speculative threads
SPECULATE_MIN_QUERY = 4096


def _partition_bounds(seq: Sequence, pos: np.ndarray):
    """Per-position [lo, hi) of the partition holding it (whole buffer if unpartitioned)."""
    if seq.partitions is None:
        return np.zeros(pos.shape[0], np.int64), np.full(pos.shape[0], len(seq), np.int64)
    p = seq.partitions
    k = p.locate(pos)
    return p.offset[k].astype(np.int64), (p.offset[k] + p.length[k]).astype(np.int64)


def _trivial(target: Sequence, query: Sequence, strand: str, sub, thresh: int) -> np.ndarray:
    """LASTZ's trivial self-alignment(s), inserted before any anchor is extended."""
    rows = []
    query_flags = query.revcomp != (strand == "-")
    if target.revcomp != query_flags:
        return np.zeros((0, 5), np.int64)
    tp, qp = target.partitions, query.partitions
    if tp is None and qp is None:
        s = _identical_score(target.chars, query.chars, sub)
        if s is not None and len(target) > 0:
            n = len(target)
            rows.append((0, 0, n - 1, n - 1, max(s, thresh)))
    elif tp is not None and qp is None:
        for k in np.flatnonzero(tp.length == len(query)).tolist():   # (same length)
            lo, n = int(tp.offset[k]), int(tp.length[k])
            s = _identical_score(target.chars[lo:lo + n], query.chars, sub)
            if s is not None:
                rows.append((lo, 0, lo + n - 1, n - 1, max(s, thresh)))
                break
    elif tp is not None and qp is not None and len(tp.offset) == len(qp.offset):
        parts = []
        for k in range(len(tp.offset)):
            lo1, n1 = int(tp.offset[k]), int(tp.length[k])
            lo2, n2 = int(qp.offset[k]), int(qp.length[k])
            if n1 != n2 or not np.array_equal(_UPPER[target.chars[lo1:lo1 + n1]],
                                              _UPPER[query.chars[lo2:lo2 + n2]]):
                parts = []
                break
            s = _identical_score(target.chars[lo1:lo1 + n1], query.chars[lo2:lo2 + n2], sub)
            parts.append((lo1, lo2, lo1 + n1 - 1, lo2 + n2 - 1, max(s, thresh)))
        rows = parts
    # (the score as the engine's word: ``kernels.scorewords``)
    return np.array([r[:4] + (to_word(r[4]),) for r in rows], np.int64).reshape(-1, 5)


def _delayed_trivial(target: Sequence, query: Sequence, al, m, first_is_last: bool) -> bool:
    """LASTZ's late test for a trivial alignment of partitioned sequences."""
    if not first_is_last:
        return False
    p1, e1, p2 = int(al[m, A_POS1]), int(al[m, A_END1]), int(al[m, A_POS2])
    if target.partitions is None:
        name1, len1 = target.header.lstrip(">").lstrip(), target.true_length
    else:
        k = int(target.partitions.locate(p1))
        name1, len1 = target.partitions.headers[k], int(target.partitions.true_length[k])
    if query.partitions is None:
        name2, len2 = query.header.lstrip(">").lstrip(), query.true_length
    else:
        k = int(query.partitions.locate(p2))
        name2, len2 = query.partitions.headers[k], int(query.partitions.true_length[k])
    if len1 != len2 or e1 + 1 - p1 != len1 or name1 != name2:
        return False
    return bool(np.array_equal(target.chars[p1:e1 + 1], query.chars[p2:p2 + e1 + 1 - p1]))


def truncations_reported(opts) -> bool:
    """Whether extensions cut short by --allocate:traceback are said on stderr."""
    return "notruncationreport" not in (opts.extra or {})


def report_truncations(trunc: np.ndarray) -> None:
    """LASTZ's stderr lines for extensions cut short by --allocate:traceback."""
    for rev, er, ec, a1, a2, _ in trunc.tolist():
        if rev:
            msg = f"truncating alignment starting at ({a1 + 2 - er},{a2 + 2 - ec});"
        else:
            msg = f"truncating alignment ending at ({er + a1 + 1},{ec + a2 + 1});"
        sys.stderr.write(f"{msg}  anchor at ({a1},{a2})\n")
        if not _Truncation.hinted:
            _Truncation.hinted = True
            sys.stderr.write("truncation can be reduced by using --allocate:traceback"
                             " to increase traceback memory\n")


def gapped_extend(target: Sequence, query: Sequence, strand: str, anchors: np.ndarray,
                  scores: ScoreSet, ydrop: int, gappedthresh: int, *, trim: bool = True,
                  notrivial: bool = False, allgappedbounds: bool = False,
                  traceback_bytes: int = 83_886_080, two_pass: bool = False,
                  threads: int = 1, hsp_anchors: bool = True, stats: dict | None = None,
                  backend: str = "cpu", max_paired: int = 0,
                  paired_keep: bool = False, with_trivial: bool = True,
                  window: tuple[int, int, int, int] | None = None, target_pads=None
                  ) -> tuple[Alignments, np.ndarray, bool]:
    """Gapped alignments of one query strand, in LASTZ's output order.

    ``anchors`` is an ANCHOR_DTYPE array already sorted in LASTZ's processing order.
    Also returns the truncation reports (see ``report_truncations``), which the
    caller prints when it writes this strand, so stderr keeps LASTZ's order, and
    whether the strand went over ``max_paired`` paired bases (``--querydepth``).
    ``with_trivial=False``: no trivial self-alignment is inserted (LASTZ's HSP-immediate
    extensions never see one).  ``window`` (t_lo, t_hi, q_lo, q_hi): ``--chores``, no
    extension leaves those intervals (LASTZ narrows each anchor's partition limits).
    ``target_pads``: ``kernels.ydrop.pad_target(target.chars)``, when the caller keeps it.
    fastz_D's ``ydrop`` and ``gappedthresh`` may have fractions: every DP score is whole,
    so ``c < best - Y`` is ``c < best - floor(Y)`` and ``s >= L`` is ``s >= ceil(L)``.
    """
    ydrop, gappedthresh = _engine_thresholds(ydrop, gappedthresh, scores)
    trivial = (_trivial(target, query, strand, scores.sub, gappedthresh) if with_trivial
               else np.zeros((0, 5), np.int64))
    if anchors.shape[0] == 0 and trivial.shape[0] == 0:
        # nothing to extend (most short reads' strands): skip the kernel's set-up
        if stats is not None:
            for name in STAT_NAMES:
                stats[name] = stats.get(name, 0)
        return Alignments.empty("gapped"), np.zeros((0, 6), np.int64), False
    a1 = np.ascontiguousarray(anchors["pos1"], dtype=np.int64)
    a2 = np.ascontiguousarray(anchors["pos2"], dtype=np.int64)
    lo1, hi1 = _partition_bounds(target, a1)
    lo2, hi2 = _partition_bounds(query, a2)
    if window is not None:
        t_lo, t_hi, q_lo, q_hi = window
        # (the fenced seed search leaves every anchor inside the chore's intervals)
        lo1, hi1 = np.maximum(lo1, t_lo), np.minimum(hi1, t_hi)
        lo2, hi2 = np.maximum(lo2, q_lo), np.minimum(hi2, q_hi)
    # LASTZ's tback holds (bytes - 8) + 1 one-byte cells after its header
    tb_cells = traceback_bytes - 7
    args = (target.chars, query.chars, a1, a2, lo1, hi1, lo2, hi2, scores.sub,
            scores.gap_open, scores.gap_extend, ydrop, trim, tb_cells, gappedthresh,
            allgappedbounds, trivial, two_pass,
            target_pads if target_pads is not None else pad_target(target.chars))
    if backend in ("gpu", "twin"):
        from .gpu import extend_anchors_gpu
        order, al, ops, st, trunc = extend_anchors_gpu(*args, engine=backend, stats=stats,
                                                       rounds=hsp_anchors)
    elif threads > 1 and a1.shape[0] > 1 and len(query) >= SPECULATE_MIN_QUERY:
        from .parallel import free_cores
        from .speculate import extend_anchors_parallel
        order, al, ops, st, trunc = extend_anchors_parallel(*args, threads, cores=free_cores,
                                                            near=hsp_anchors)
    else:
        order, al, ops, st, trunc = extend_anchors(*args)
    if stats is not None:
        for name, v in zip(STAT_NAMES, st.tolist()):
            stats[name] = stats.get(name, 0) + v
    # (the sides' lengths count only where the gap extension is 0)
    longest = 0 if scores.gap_extend else max(int((a2 + 1 - lo2).max(initial=0)),
                                              int((hi2 - a2 - 1).max(initial=0)))
    refuse_short_traceback(st, ydrop, scores.gap_extend, tb_cells, longest)
    over = False
    if max_paired > 0:
        order, over, cut = _depth_cut(al, ops, order, max_paired, paired_keep)
        if over:
            # LASTZ stops at the anchor whose alignment went over: no later reports
            trunc = trunc[trunc[:, 5] <= cut]
    keep = []
    partitioned = target.partitions is not None or query.partitions is not None
    delayed = notrivial and partitioned and trivial.shape[0] == 0
    for m in order.tolist():
        if notrivial and al[m, A_TRIV]:
            continue
        if delayed and _delayed_trivial(target, query, al, m, al[m, A_FIRST] == al[m, A_LAST]):
            continue
        keep.append(m)
    keep = np.array(keep, np.int64)
    n = keep.shape[0]
    counts = al[keep, A_OPSN] if n else np.zeros(0, np.int64)
    starts = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    if n:
        idx = np.concatenate([np.arange(al[m, A_OPS0], al[m, A_OPS0] + al[m, A_OPSN]) for m in keep])
        enc = ((ops[idx, 1].astype(np.uint64) << np.uint64(4)) | ops[idx, 0].astype(np.uint64))
    else:
        enc = np.zeros(0, np.uint64)
    alns = Alignments(
        beg1=al[keep, A_POS1].copy(), end1=al[keep, A_END1] + 1,
        beg2=al[keep, A_POS2].copy(), end2=al[keep, A_END2] + 1,
        score=scores_of(al[keep, A_SCORE], scores.sub), ops_start=starts, ops=enc.astype(np.uint64),
        kind="gapped")
    scores.check_sums(alns.score, len(target), len(query), "a gapped alignment")
    return alns, trunc, over


def refuse_short_traceback(st: np.ndarray, ydrop, gap_extend, tb_cells: int,
                           longest_side: int) -> None:
    """LASTZ's one-sided extension fails at once where its traceback space (an int of
    ``tb_cells``: negative past 2^31 - 1) is less than the y-drop's tail (``yDropTail``:
    ``ydrop / gap_extend + 6``; a gap extension of 0 gives the side's length, at most
    500,000), which does not depend on the data: the run fails on the first anchor it
    extends (``st``: the kernel's counts).  With a gap extension of 0 the longest side
    of any anchor (``longest_side``) stands for the side lastz fails on."""
    if st[ST_ANCHORS] - st[ST_SKIPPED] <= 0:
        return
    tail = ydrop_tail(ydrop, gap_extend, longest_side)
    if tail > as_int32(tb_cells):
        raise OptionsError("not enough space in trace_back array")


def _engine_thresholds(ydrop, gappedthresh, scores: ScoreSet):
    """The y-drop and gapped threshold as the engine takes them: whole scores for an
    integer table (see ``gapped_extend``), doubles for lastz_D's fractional one."""
    if fractional(scores.sub):
        return float(ydrop), float(gappedthresh)
    # (an empty adaptive table's low score is lastz_D's -FLT_MAX: clamped, it still
    # lets every alignment through)
    return math.floor(ydrop), max(math.ceil(gappedthresh), -(1 << 62))



def gapped_extend_batch(target: Sequence, queries: list, hsp_sets: list, scores: ScoreSet,
                        ydrop: int, gappedthresh: int, *, trim: bool = True,
                        allgappedbounds: bool = False, traceback_bytes: int = 83_886_080,
                        two_pass: bool = False, stats: dict | None = None,
                        target_pads=None, keep=None, count_identity: bool = False) -> list:
    """``gapped_extend`` of many short query strands from their HSPs, in one kernel call
    (``kernels.gapped.extend_strands``): for each strand, (alignments, truncation
    reports).  Only for strands that are unpartitioned, have no chore window and
    cannot hold a trivial self-alignment, on the CPU in one thread; the results are
    ``gapped_extend``'s.  ``keep(alignments, strand, qcat, qoff)``: a mask over the
    alignments of all strands in one table (alignment k of strand ``strand[k]``, whose
    buffer is ``qcat[qoff[s]:qoff[s + 1]]``), the back-end filters.  ``count_identity``:
    each strand's alignments come with their identity counts (``Alignments.identity``),
    counted for the batch in one call (a call per read's strand cost more than the
    counting)."""
    from .anchors import anchors_of_strands
    ydrop, gappedthresh = _engine_thresholds(ydrop, gappedthresh, scores)
    qcat, qoff = concat_buffers([q.chars for q in queries])
    a1, a2, aoff = anchors_of_strands(hsp_sets, target.chars, qcat, qoff, scores.sub)
    lo1, hi1 = _partition_bounds(target, a1)
    rows, enc, st, trunc = extend_strands(
        target.chars, qcat, qoff, a1, a2, aoff, lo1, hi1, scores.sub, scores.gap_open,
        scores.gap_extend, ydrop, trim, traceback_bytes - 7, gappedthresh, allgappedbounds,
        two_pass, target_pads if target_pads is not None else pad_target(target.chars))
    if stats is not None:
        for name, v in zip(STAT_NAMES, st.tolist()):
            stats[name] = stats.get(name, 0) + v
    refuse_short_traceback(st, ydrop, scores.gap_extend, traceback_bytes - 7,
                           int(np.diff(qoff).max(initial=0)))
    cols = np.ascontiguousarray(rows.T)            # (contiguous per-field slices)
    ostart = np.zeros(rows.shape[0] + 1, np.int64)
    np.cumsum(cols[X_NOPS], out=ostart[1:])
    table = Alignments(beg1=cols[X_BEG1], end1=cols[X_END1], beg2=cols[X_BEG2],
                       end2=cols[X_END2], score=scores_of(cols[X_SCORE], scores.sub),
                       ops_start=ostart, ops=enc,
                       kind="gapped")
    scores.check_sums(table.score, len(target), int(np.diff(qoff).max(initial=0)),
                      "a gapped alignment")
    strand = cols[X_STRAND]
    if keep is not None:
        mask = keep(table, strand, qcat, qoff)
        if not mask.all():
            table, strand = table.subset(mask), strand[mask]
    counts = None
    if count_identity:
        counts = identity_counts_all(table.ops, table.ops_start, table.beg1,
                                     table.beg2 + qoff[strand], target.chars, qcat, BITS)
    ns = len(queries)
    rstart = np.searchsorted(strand, np.arange(ns + 1))
    tstart = np.searchsorted(trunc[:, 0], np.arange(ns + 1))
    ostart = table.ops_start
    out = []
    # (most reads' strands end with no alignment: they share one empty result)
    nothing = (Alignments.empty("gapped"), trunc[:0, 1:])
    for r0, r1, t0, t1 in zip(rstart[:-1].tolist(), rstart[1:].tolist(),
                              tstart[:-1].tolist(), tstart[1:].tolist()):
        if r0 == r1 and t0 == t1:
            out.append(nothing)
            continue
        o0 = ostart[r0]
        alns = Alignments(beg1=table.beg1[r0:r1], end1=table.end1[r0:r1],
                          beg2=table.beg2[r0:r1], end2=table.end2[r0:r1],
                          score=table.score[r0:r1], ops_start=ostart[r0:r1 + 1] - o0,
                          ops=table.ops[o0:ostart[r1]], kind="gapped",
                          identity=None if counts is None else (counts[0][r0:r1],
                                                                counts[1][r0:r1]))
        out.append((alns, trunc[t0:t1, 1:]))
    return out


def _depth_cut(al, ops, order, max_paired, keep):
    """LASTZ's paired-bases limit (``--querydepth``): walking the accepted alignments in
    acceptance order, the first one that takes their matched columns past
    ``max_paired`` stops the strand; with ``keep`` the alignments up to it stay, else
    none.  LASTZ stops extending there; the later alignments found here are dropped,
    and those before it are the same (an alignment depends only on earlier ones).
    Returns (output order, went over, the alignment that went over)."""
    n = al.shape[0]
    if n == 0:
        return order, False, -1
    # each alignment's runs are stored contiguously, in acceptance order
    owner = np.searchsorted(al[:, A_OPS0], np.arange(ops.shape[0]), side="right") - 1
    matched = np.where(ops[:, 0] == 0, ops[:, 1], 0)
    paired = np.bincount(owner, weights=matched, minlength=n)[:n].astype(np.int64)
    paired[al[:, A_TRIV] != 0] = 0          # the trivial self-alignment is not counted
    over = np.nonzero(np.cumsum(paired) > max_paired)[0]
    if over.size == 0:
        return order, False, -1
    return (order[order <= over[0]] if keep else order[:0]), True, int(over[0])
