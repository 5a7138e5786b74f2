"""``--anyornone`` and ``--stopafter=N`` / ``--limitperquery=N``: LASTZ's "HSP immediate"
mode (``gapped_extend.c`` ``gappily_extend_hsps``).

Each HSP is gapped-extended the moment the seed search finds it, from its peak and
with no earlier alignment to bound it, so every extension is independent of the
others.  An alignment that passes the score threshold and the back-end filters is
printed at once, unless it repeats one already seen for this query (``--stopafter=N``
remembers the first N; a repeat is one with the same ends on the same strands, where
LASTZ compares 32-bit hashes of them) or N have been printed: the query's output is
its first N distinct alignments in discovery order, plus strand first.  LASTZ then
stops the search; nothing it would still find is printed.  With ``--anyornone``
(N = 1) only the first alignment is printed.  In the formats that print gap-free
segments (rdotplot, genseg, mafsegments) the cap counts segments (``output.c``'s
``printedForQuery``), so the N-th segment ends the query's output.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from ..records import Alignments, StrandResult
from .adaptive import _query_strands


def immediate_results(aligner, limit: int) -> Iterator[StrandResult]:
    """Every query strand's result in HSP-immediate mode (see the module docstring)."""
    from ..io.formats import degapified
    from ..records import HSP_DTYPE
    from .anchors import anchors_from_hsps

    o = aligner.opts
    segments = degapified(o)
    no_hsps = np.zeros(0, HSP_DTYPE)
    for strands, bufs, _sid in _query_strands(aligner):
        cap = _Cap(limit, segments)
        seen: set[tuple[str, int, int, int, int]] = set()
        found = {}
        for s in strands:
            query = bufs[s]
            hsps = aligner.find_hsps(query, s, unmerged=True)
            kept, truncs = [], []
            for k in range(hsps.shape[0]):
                if cap.left <= 0 or len(seen) >= limit:
                    break                            # LASTZ's search has stopped
                anchor = anchors_from_hsps(hsps[k:k + 1], aligner.target.chars,
                                           query.chars, aligner.scores.sub)
                alns = _extend(aligner, query, s, anchor, truncs, with_trivial=False)
                if len(alns) == 0:
                    continue
                key = (s, int(alns.beg1[0]), int(alns.end1[0]), int(alns.beg2[0]),
                       int(alns.end2[0]))
                if limit > 1:                        # (LASTZ keeps no list for one)
                    if key in seen:
                        continue
                    seen.add(key)
                kept.append(cap.take(alns, aligner, query, whole=False))
            found[s] = (kept, truncs)
        # then LASTZ finishes each strand with no anchors left: that prints the trivial
        # self-alignment of a query identical to the target (unless --notrivial); the
        # minus strand is finished with its search, the plus strand last, on its own
        empty = anchors_from_hsps(no_hsps, aligner.target.chars, bufs[strands[0]].chars,
                                  aligner.scores.sub)
        finished = {}
        for s in strands[::-1]:
            truncs = found[s][1]
            finished[s] = cap.take(_extend(aligner, bufs[s], s, empty, truncs), aligner,
                                   bufs[s], whole=True)
        if "+" in strands:
            kept, truncs = found["+"]
            yield _result(bufs["+"], "+", kept, truncs)
        if "-" in strands:
            kept, truncs = found["-"]
            yield _result(bufs["-"], "-", kept + [finished["-"]], truncs)
        if "+" in strands:
            yield _result(bufs["+"], "+", [finished["+"]], [])


def _extend(aligner, query, strand, anchors, truncs, with_trivial=True) -> Alignments:
    """The anchors' gapped extension with nothing accepted before, filtered."""
    from .backend_filters import filter_alignments
    from .gapped import gapped_extend

    o = aligner.opts
    alns, trunc, _ = gapped_extend(
        aligner.target, query, strand, anchors, aligner.scores, o.ydrop, o.gappedthresh,
        trim=o.ytrim, notrivial=o.notrivial, traceback_bytes=o.traceback_bytes,
        stats=aligner.stats, with_trivial=with_trivial)
    if trunc is not None and trunc.shape[0]:
        truncs.append(trunc)
    return filter_alignments(alns, aligner.target, query, o)


class _Cap:
    """LASTZ's per-query print limit (``printedForQuery``): a printed list of
    alignments counts one, or, in the gap-free-segment formats, each segment does."""

    def __init__(self, limit: int, segments: bool):
        self.left, self.segments = limit, segments

    def take(self, alns: Alignments, aligner, query, whole: bool) -> Alignments:
        """What is printed of ``alns`` (one list when ``whole``, else one alignment)."""
        from ..io.alignview import degapify
        if len(alns) == 0:
            return alns
        if self.segments:
            alns = degapify(alns, aligner.target.chars, query.chars, aligner.scores.sub)
            keep = min(len(alns), max(self.left, 0))
            self.left -= keep
        else:
            keep = len(alns) if self.left > 0 else 0
            self.left -= 1
        return alns if keep == len(alns) else alns.subset(np.arange(keep))


def _result(query, strand, parts, truncs) -> StrandResult:
    res = StrandResult(query, strand, _concat([a for a in parts if len(a)]))
    if truncs:
        res.stats["truncations"] = np.concatenate(truncs)
    return res


def _concat(parts: list[Alignments]) -> Alignments:
    """One strand's alignments, in the order given."""
    if not parts:
        return Alignments.empty()
    counts = np.concatenate([np.diff(a.ops_start) for a in parts])
    starts = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    cat = lambda name: np.concatenate([getattr(a, name) for a in parts])  # noqa: E731
    return Alignments(cat("beg1"), cat("end1"), cat("beg2"), cat("end2"), cat("score"),
                      starts, cat("ops").astype(np.uint64), parts[0].kind)
