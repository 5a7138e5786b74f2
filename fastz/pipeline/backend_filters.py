"""Back-end filters (--identity, --coverage, --continuity, --filter=nmatch/nmismatch/ngap/cgap).

Applied per strand in LASTZ's order (spec section 7): identity, coverage,
continuity, nmatch, nmismatch, ngap, cgap.  Ratios are compared in single
precision, as LASTZ compares an unsigned count with ``denom * (float) min``.
For ``--nogapped`` HSPs only identity, coverage, nmatch and nmismatch apply
(lastz.c finish_one_strand: filter_segments_by_*).
"""
from __future__ import annotations


import numpy as np

from ..cscan import to_u32
from ..io.alignview import BITS, SeqInfo, views, whole_true_length
from ..kernels.alnstats import identity_counts_all
from ..options import Options
from ..records import Alignments, Sequence

f32 = np.float32


def _ratios_ok(numer: np.ndarray, denom: np.ndarray, lo: float | None, hi: float | None,
               zero_fails: bool) -> np.ndarray:
    """Per alignment: numer/denom within [lo, hi] percent, as LASTZ compares them."""
    lo32 = f32(0.0 if lo is None else lo / 100.0)
    hi32 = f32(1.0 if hi is None else hi / 100.0)
    n, d = numer.astype(f32), denom.astype(f32)
    ok = ~((n < d * lo32) | (n > d * hi32))
    return ok & (denom != 0) if zero_fails else ok


def filter_alignments(alns: Alignments, target: Sequence, query: Sequence,
                      opts: Options) -> Alignments:
    """The alignments that pass every requested back-end filter, order kept."""
    keep = passing(alns, target, query, opts)
    return alns if keep.all() else alns.subset(keep)


def passing(alns: Alignments, target: Sequence, query: Sequence,
            opts: Options) -> np.ndarray:
    """Which alignments pass every requested back-end filter (a mask).

    Identity, coverage, nmatch and nmismatch are tested on the whole table at once;
    continuity and the gap counts, per alignment of what passed those."""
    gapped = alns.kind == "gapped"
    each = gapped and per_alignment(opts)
    if not len(alns) or not (_table_filters(opts) or each):
        return np.ones(len(alns), bool)
    keep = _strand_keep(alns, target, query, opts)
    if each:
        idx = np.flatnonzero(keep)
        every = views(alns, target.chars, query.chars, not gapped)
        vs = [every[k] for k in idx.tolist()]
        con = np.array([v.continuity for v in vs], np.int64).reshape(-1, 2)
        if opts.continuity_min is not None or opts.continuity_max is not None:
            keep[idx] &= _ratios_ok(con[:, 0], con[:, 1], opts.continuity_min,
                                    opts.continuity_max, False)
        if opts.filter_ngap is not None:
            keep[idx] &= np.array([v.ngaps() for v in vs], np.int64) <= opts.filter_ngap
        if opts.filter_cgap is not None:
            keep[idx] &= (con[:, 1] != 0) & (con[:, 1] - con[:, 0] <= opts.filter_cgap)
    return keep


def filter_hsps(hsps: np.ndarray, target: Sequence, query: Sequence,
                opts: Options) -> np.ndarray:
    """The gap-free HSPs (HSP rows) that pass the back-end filters, order kept: what
    LASTZ does to them before chaining them (``finish_one_strand``)."""
    if not hsps.shape[0] or not _table_filters(opts):
        return hsps
    return hsps[_strand_keep(Alignments.from_hsps(hsps), target, query, opts)]


def _strand_keep(alns: Alignments, target: Sequence, query: Sequence,
                 opts: Options) -> np.ndarray:
    """Per alignment of one query strand: whether identity, coverage, nmatch and
    nmismatch pass (``_table_keep``)."""
    keep = np.ones(len(alns), bool)
    _table_keep(keep, alns, target, query.chars, None,
                SeqInfo(query, query.revcomp, "seq2").true_lengths(alns.beg2)
                if _wants_coverage(opts) else None, opts, min_match_count(opts, query))
    return keep


def per_alignment(opts: Options) -> bool:
    """Whether a filter is asked for that goes alignment by alignment (continuity, gap
    counts: gapped alignments are then filtered per strand, ``filter_alignments``)."""
    return (opts.continuity_min is not None or opts.continuity_max is not None
            or opts.filter_ngap is not None or opts.filter_cgap is not None)


def strands_mask(alns: Alignments, strand: np.ndarray, qcat: np.ndarray, qoff: np.ndarray,
                 target: Sequence, queries: list, opts: Options) -> np.ndarray:
    """``filter_alignments`` of many unpartitioned query strands' gapped alignments in
    one table (alignment k of ``queries[strand[k]]``, whose buffer is
    ``qcat[qoff[s]:qoff[s + 1]]``), as a mask; not where ``per_alignment``."""
    keep = np.ones(len(alns), bool)
    if len(alns) and _table_filters(opts):
        len2 = (np.array([whole_true_length(q) for q in queries], np.int64)[strand]
                if _wants_coverage(opts) else None)
        nmatch = (np.array([min_match_count(opts, q) for q in queries], np.int64)[strand]
                  if opts.filter_nmatch_pct is not None else min_match_count(opts, None))
        _table_keep(keep, alns, target, qcat, qoff[strand], len2, opts, nmatch)
    return keep


def min_match_count(opts: Options, query: Sequence | None) -> int:
    """LASTZ's ``minMatchCount`` for one query: --filter=nmatch's count, or its
    percentage of the query's true length (of all its records, when partitioned)
    rounded up, computed per query as LASTZ does; 0 for no match-count filter."""
    if opts.filter_nmatch_pct is None:
        return opts.filter_nmatch or 0
    if reported_at_once(opts):
        return 0
    true = (int(np.sum(query.partitions.true_length)) if query.partitions is not None
            else whole_true_length(query))
    # (LASTZ's count is a u32 converted from the double: a negative percentage of one
    # base or more wraps to a count past any alignment's, so nothing passes)
    return to_u32(float(np.ceil(true * (opts.filter_nmatch_pct / 100.0))))


def reported_at_once(opts: Options) -> bool:
    """Whether LASTZ prints the gap-free HSPs as its seed search finds them
    (``set_up_hit_processor`` picks ``report_hsps``): when nothing needs them collected
    first, no back-end filter among them.  Its match-count percentage is then never
    applied: it becomes a count for each query only after that choice is made."""
    x = opts.extra or {}
    return (not opts.gapped and not opts.chain and opts.hspthresh_top is None
            and opts.segments_file is None and opts.twins_max is None
            and not opts.recover_seeds and opts.masking == 0
            and not any(k in x for k in ("census", "queryhsplimit", "queryhspbest",
                                         "anyornone", "limitperquery"))
            and not collects_hsps(opts))


def collects_hsps(opts: Options) -> bool:
    """LASTZ's ``filtering`` (``set_up_hit_processor``): a back-end filter is set that
    makes it collect gap-free HSPs before printing them: an identity, coverage or
    continuity range narrower than 0..100 (as C floats), a match count above 0, or a
    mismatch or gap limit (a match count as a percentage is not one yet)."""
    return (_narrower(opts.identity_min, opts.identity_max)
            or _narrower(opts.coverage_min, opts.coverage_max)
            or _narrower(opts.continuity_min, opts.continuity_max)
            or (opts.filter_nmatch or 0) > 0
            or any(v is not None and v >= 0
                   for v in (opts.filter_nmismatch, opts.filter_ngap, opts.filter_cgap)))


def _narrower(lo: float | None, hi: float | None) -> bool:
    """LASTZ's ``min > 0 || max < 1`` on a percent range kept as C float fractions."""
    return ((lo is not None and f32(lo / 100.0) > 0)
            or (hi is not None and f32(hi / 100.0) < 1))


def _wants_identity(opts: Options) -> bool:
    return opts.identity_min is not None or opts.identity_max is not None


def _wants_counts(opts: Options) -> bool:
    """Whether a filter needs each alignment's match and pair counts."""
    return (_wants_identity(opts) or opts.filter_nmatch is not None
            or opts.filter_nmatch_pct is not None or opts.filter_nmismatch is not None)


def _wants_coverage(opts: Options) -> bool:
    return opts.coverage_min is not None or opts.coverage_max is not None


def _table_filters(opts: Options) -> bool:
    return _wants_counts(opts) or _wants_coverage(opts)


def _table_keep(keep: np.ndarray, alns: Alignments, target: Sequence, q: np.ndarray,
                qshift: np.ndarray | None, len2: np.ndarray | None, opts: Options,
                nmatch) -> None:
    """Clear ``keep`` where identity, coverage, nmatch or nmismatch fails; alignment
    k's query starts at ``q[beg2[k] + qshift[k]]``, its query's true length is
    ``len2[k]`` (given where coverage is filtered) and ``nmatch`` (or ``nmatch[k]``)
    its least match count (``min_match_count``; 0: none)."""
    if _wants_counts(opts):
        beg2 = alns.beg2 if qshift is None else alns.beg2 + qshift
        m, d = identity_counts_all(alns.ops, alns.ops_start, alns.beg1, beg2,
                                   target.chars, q, BITS)
        if _wants_identity(opts):
            keep &= _ratios_ok(m, d, opts.identity_min, opts.identity_max, True)
        if opts.filter_nmatch is not None or opts.filter_nmatch_pct is not None:
            keep &= (nmatch <= 0) | ((d != 0) & (m >= nmatch))
        if opts.filter_nmismatch is not None:
            keep &= (d != 0) & (d - m <= opts.filter_nmismatch)
    if _wants_coverage(opts):
        # LASTZ's alignment_coverage: the span over the shorter sequence's true length
        len1 = SeqInfo(target, target.revcomp, "seq1").true_lengths(alns.beg1)
        first = len1 < len2
        keep &= _ratios_ok(np.where(first, alns.end1 - alns.beg1, alns.end2 - alns.beg2),
                           np.where(first, len1, len2), opts.coverage_min,
                           opts.coverage_max, False)
