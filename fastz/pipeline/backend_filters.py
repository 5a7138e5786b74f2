"""Back-end filters (--identity, --coverage, --continuity, --filter=nmatch/nmismatch/ngap/cgap).

Applied per strand in LASTZ's order (spec section 7): identity, coverage,
continuity, nmatch, nmismatch, ngap, cgap.  Ratios are compared in single
precision, as LASTZ compares an unsigned count with ``denom * (float) min``.
For ``--nogapped`` HSPs only identity, coverage, nmatch and nmismatch apply
(lastz.c finish_one_strand: filter_segments_by_*).
"""
from __future__ import annotations

import numpy as np

from ..io.alignview import SeqInfo, coverage, views
from ..options import Options
from ..records import Alignments, Sequence

f32 = np.float32


def _ratio_ok(numer: int, denom: int, lo: float | None, hi: float | None,
              zero_fails: bool) -> bool:
    if zero_fails and denom == 0:
        return False
    lo32 = f32(0.0 if lo is None else lo / 100.0)
    hi32 = f32(1.0 if hi is None else hi / 100.0)
    n, d = f32(numer), f32(denom)
    return not (n < d * lo32 or n > d * hi32)


def filter_alignments(alns: Alignments, target: Sequence, query: Sequence,
                      opts: Options) -> Alignments:
    """The alignments that pass every requested back-end filter, order kept."""
    want_id = opts.identity_min is not None or opts.identity_max is not None
    want_cov = opts.coverage_min is not None or opts.coverage_max is not None
    gapped = alns.kind == "gapped"
    want_con = gapped and (opts.continuity_min is not None or opts.continuity_max is not None)
    want_ngap = gapped and opts.filter_ngap is not None
    want_cgap = gapped and opts.filter_cgap is not None
    if not len(alns) or not (want_id or want_cov or want_con or opts.filter_nmatch is not None
                             or opts.filter_nmismatch is not None or want_ngap or want_cgap):
        return alns
    tinfo = SeqInfo(target, target.revcomp, "seq1")
    qinfo = SeqInfo(query, query.revcomp, "seq2")
    keep = np.ones(len(alns), bool)
    for k, v in enumerate(views(alns, target.chars, query.chars, not gapped)):
        m, d = v.identity
        if want_id and not _ratio_ok(m, d, opts.identity_min, opts.identity_max, True):
            keep[k] = False
            continue
        if want_cov:
            n, dd = coverage(v, tinfo.place(v.beg1), qinfo.place(v.beg2))
            if not _ratio_ok(n, dd, opts.coverage_min, opts.coverage_max, False):
                keep[k] = False
                continue
        if want_con:
            n, dd = v.continuity
            if not _ratio_ok(n, dd, opts.continuity_min, opts.continuity_max, False):
                keep[k] = False
                continue
        if opts.filter_nmatch is not None and (d == 0 or m < opts.filter_nmatch):
            keep[k] = False
            continue
        if opts.filter_nmismatch is not None and (d == 0 or d - m > opts.filter_nmismatch):
            keep[k] = False
            continue
        if want_ngap and v.ngaps() > opts.filter_ngap:
            keep[k] = False
            continue
        if want_cgap:
            n, dd = v.continuity
            if dd == 0 or dd - n > opts.filter_cgap:
                keep[k] = False
    return alns if keep.all() else alns.subset(keep)
