"""``--anyornone`` and ``--stopafter=N`` / ``--limitperquery=N``: LASTZ's "HSP immediate"
mode (``gapped_extend.c`` ``gappily_extend_hsps``).

Each HSP is gapped-extended the moment the seed search finds it, from its peak and
with no earlier alignment to bound it, so every extension is independent of the
others.  An alignment that passes the score threshold and the back-end filters is
printed at once, unless it repeats one already seen for this query (``--stopafter=N``
remembers the first N; a repeat is one with the same ends on the same strands, where
LASTZ compares 32-bit hashes of them) or N have been printed: the query's output is
its first N distinct alignments in discovery order, plus strand first.  LASTZ then
goes on extending what it finds until one more distinct alignment counts (N + 1: the
search stops) -- never, on a strand after the N-th, where nothing counts any more --
and prints none of it; but those extensions' truncation reports (``--allocate:
traceback``) reach stderr, so fastz extends them too unless ``--notruncationreport``.
With ``--anyornone`` (N = 1) only the first alignment is printed.  In the formats that print gap-free
segments (rdotplot, genseg, mafsegments) the cap counts segments (``output.c``'s
``printedForQuery``), so the N-th segment ends the query's output.

Without gapped extension (``--nogapped``) each HSP that passes the back-end filters is
printed as it is found (``immediate_gapfree_query``).
"""
from __future__ import annotations

import numpy as np

from ..records import ANCHOR_DTYPE, Alignments, StrandResult
from .adaptive import PrintCap
from .filtering import SearchReport


def immediate_query(limit: int, warn: bool, aligner, strands, bufs, sid):
    """One query's strand results in HSP-immediate mode (see the module docstring), as
    (results, notes) for ``Aligner.by_query``.  With ``warn`` (a ``--queryhsplimit``
    given after ``--anyornone``/``--stopafter``) the notes name the strands whose search
    LASTZ stops over the limit (see ``_Search``), as ``hsp_limit_warnings`` wants."""
    from .anchors import anchors_from_hsps
    from .gapped import truncations_reported

    no_anchors = np.zeros(0, ANCHOR_DTYPE)
    results, searched = [], []
    cap = PrintCap(aligner, limit)
    search = _Search(limit)
    # LASTZ's search goes on after the last alignment it can print (until one more
    # counts), extending every HSP it finds: only the truncation reports of those
    # extensions reach stderr, and the search's own --entropy=report lines, so without
    # them there is nothing left to do
    reported = truncations_reported(aligner.opts)
    said_by_search = aligner.opts.entropy_report
    silent_after_cap = not warn and not reported and not said_by_search
    found = {}
    for s in strands:
        query = bufs[s]
        report = SearchReport() if said_by_search else None
        hsps = aligner.find_hsps(query, s, unmerged=True, entropy_failures=report)
        # what the strand's search says, in LASTZ's order: its report's lines, and the
        # truncations of each HSP's extension where the HSP was found
        said, heard = [], 0
        truncs = said if reported else []
        kept = []
        search.start_strand()
        name = None
        end, stopped = hsps.shape[0], False
        for k in range(hsps.shape[0]):
            if k >= end or silent_after_cap and (cap.left <= 0 or search.full()):
                break                # nothing more can be printed, nor need be counted
            while report is not None and heard < len(report) and report.at[heard] <= k:
                said.append(report[heard])
                heard += 1
            anchor = anchors_from_hsps(hsps[k:k + 1], aligner.target.chars,
                                       query.chars, aligner.scores.sub)
            alns = _extend(aligner, query, s, anchor, truncs, with_trivial=False)
            if len(alns) == 0 or stopped:
                continue
            key = (s, int(alns.beg1[0]), int(alns.end1[0]), int(alns.beg2[0]),
                   int(alns.end2[0]))
            if search.offer(key):
                kept.append(cap.take(alns, query))     # printed as found, one by one
            if search.stopped() and aligner.searches_stop:
                stopped = True
                name = query.name                      # LASTZ's search stops here,
                # once its query position is done: the position's later HSPs are
                # extended too, printed nowhere, but their truncations reported (and
                # with --twins every later HSP, as the search goes on)
                if reported or said_by_search:
                    # (the stopped search says the first of what the whole one did)
                    report = SearchReport() if said_by_search else None
                    end = aligner.find_hsps(query, s, unmerged=True, stop_after=k,
                                            entropy_failures=report).shape[0]
                else:
                    end = k + 1
        said.extend(report[heard:] if report is not None else ())
        searched.append((s, name, said))
        found[s] = (kept, [])
    # then LASTZ finishes each strand with no anchors left: that prints the trivial
    # self-alignment of a query identical to the target (unless --notrivial); the
    # minus strand is finished with its search, the plus strand last, on its own
    finished, printed = {}, {}
    census = aligner.census is not None              # (--masking, --census)
    for s in strands[::-1]:
        finished[s] = _extend(aligner, bufs[s], s, no_anchors, found[s][1])
        printed[s] = cap.take(finished[s], bufs[s])
    if "+" in strands:
        kept, truncs = found["+"]
        results.append(_result(bufs["+"], "+", kept, truncs, [] if census else None))
    if "-" in strands:
        kept, truncs = found["-"]
        results.append(_result(bufs["-"], "-", kept + [printed["-"]], truncs,
                               [finished["-"]] if census else None))
    if "+" in strands:
        results.append(_result(bufs["+"], "+", [printed["+"]], [],
                               [finished["+"]] if census else None))
    return results, searched


def immediate_gapfree_query(limit: int, warn: bool, aligner, strands, bufs, sid):
    """One query's strand results in HSP-immediate mode without gapped extension
    (``--nogapped``; LASTZ ``collect_filtered_hsps``): each HSP that passes the
    back-end filters is printed as the seed search finds it and counts one, so the
    query's output is its first N such HSPs in discovery order, plus strand first.  A
    strand's search stops, over the limit, after the query position where its count
    passes N (each strand counts from zero; a --twins search never stops).  As
    (results, notes) for ``Aligner.by_query``; the notes name the strands over the
    limit, as ``hsp_limit_warnings`` wants."""
    from dataclasses import replace

    from .backend_filters import min_match_count, passing

    o = aligner.opts
    filtered = any(v is not None for v in (o.identity_min, o.identity_max, o.coverage_min,
                                            o.coverage_max, o.filter_nmatch,
                                            o.filter_nmatch_pct, o.filter_nmismatch))
    kind = "hsp" if o.gfextend else "hit"
    cap = PrintCap(aligner, limit)
    results, searched = [], []
    for s in strands:
        query = bufs[s]
        # unfiltered, the first N + 1 HSPs decide everything: stop the search there
        said = SearchReport() if o.entropy_report else None
        hsps = aligner.find_hsps(query, s, unmerged=True,
                                 stop_after=-1 if filtered else limit,
                                 entropy_failures=said)
        # LASTZ tests a segment's mismatches against --filter=nmatch's count here (0
        # when not given; the query's own count for a percentage), not against
        # --filter=nmismatch's
        checks = (o if o.filter_nmismatch is None
                  else replace(o, filter_nmismatch=min_match_count(o, query)))
        alns = Alignments.from_hsps(hsps, kind)
        keep = passing(alns, aligner.target, query, checks)
        alns = alns.subset(keep)
        over = len(alns) > limit and aligner.searches_stop
        if over and filtered and said is not None:
            # --entropy=report: the lines of the search up to where it stops, after
            # the HSP that passes the limit (the filters decide as the search goes)
            said = SearchReport()
            aligner.find_hsps(query, s, unmerged=True,
                              stop_after=int(np.flatnonzero(keep)[limit]),
                              entropy_failures=said)
        searched.append((s, query.name if over else None, said or []))
        if o.mirrors_hsps:
            # --self: each HSP is printed with its mirror image, which the print cap
            # counts too (the search's count does not)
            alns = Alignments.from_hsps(_mirrored(aligner, query, s, alns), kind)
        results.append(StrandResult(query, s, cap.take(alns, query)))
    if aligner.census is not None:
        # --masking/--census count none of them; each strand is finished with nothing
        # to count after the query's search, minus strand first, which writes its x
        # stanza (n 0) after the query's last HSP
        for res in results:
            res.stats["census"] = None
        results[-1].stats["census"] = Alignments.empty(kind)
        if len(strands) == 2:
            plus = StrandResult(bufs["+"], "+", Alignments.empty(kind))
            plus.stats["census"] = Alignments.empty(kind)
            results.append(plus)
    return results, searched


def _mirrored(aligner, query, strand, alns):
    """Gap-free ``alns`` as HSP rows, each followed by its mirror image (--self)."""
    from .filtering import _as_hsps, _strand_length
    from .mirror import mirror_hsps

    hsps = _as_hsps(np.stack([alns.beg1, alns.beg2, alns.end1 - alns.beg1, alns.score], 1))
    return mirror_hsps(hsps, _strand_length(aligner.target.chars),
                       _strand_length(query.chars), strand == "+")


class _Search:
    """LASTZ's count of a query's immediate alignments (``gappily_extend_hsps`` and the
    seed search's ``searchToGo``).  With a limit N > 1 it remembers the first N distinct
    alignments of the query; each new one is printed and counts one, and so does the
    first distinct one after those (not printed); then nothing counts.  With N = 1 it
    keeps no list and every alignment counts (the print cap leaves one printed).  A
    strand's search stops, over the limit, once its count passes N."""

    def __init__(self, limit: int):
        self.limit = limit
        self.seen: set = set()
        self.past_full = False
        self.count = 0

    def start_strand(self) -> None:
        self.count = 0

    def full(self) -> bool:
        return self.limit > 1 and len(self.seen) >= self.limit

    def offer(self, key) -> bool:
        """Count an alignment; whether it is printed (subject to the print cap)."""
        if self.limit <= 1:
            self.count += 1
            return True
        if self.past_full or key in self.seen:
            return False
        self.count += 1
        if len(self.seen) >= self.limit:
            self.past_full = True
            return False
        self.seen.add(key)
        return True

    def stopped(self) -> bool:
        return self.count > self.limit


def _extend(aligner, query, strand, anchors, truncs, with_trivial=True) -> Alignments:
    """The anchors' gapped extension with nothing accepted before, filtered.
    ``with_trivial=False``: an extension during the search (``gappily_extend_hsps``),
    which never sees the trivial self-alignment and filters as LASTZ set it up before
    reading any query: a --filter=nmatch percentage of the query's length, not yet
    worked out then, is not applied (the strand's finish applies it)."""
    from dataclasses import replace

    from .backend_filters import filter_alignments
    from .gapped import gapped_extend

    aligner.refuse_unresolved_gapped("gapped_extend" if with_trivial
                                     else "gappily_extend_hsps")
    o = aligner.opts
    if not with_trivial and o.filter_nmatch_pct is not None:
        o = replace(o, filter_nmatch_pct=None)
    alns, trunc, _ = gapped_extend(
        aligner.target, query, strand, anchors, aligner.scores, o.ydrop, o.gappedthresh,
        trim=o.ytrim, notrivial=o.notrivial, traceback_bytes=o.traceback_bytes,
        stats=aligner.stats, with_trivial=with_trivial, target_pads=aligner.padded_target())
    if trunc is not None and trunc.shape[0]:
        truncs.append(trunc)
    return filter_alignments(alns, aligner.target, query, o)


def _result(query, strand, parts, truncs, census=None) -> StrandResult:
    """A strand's result; ``census``: the alignments (of those finishing it found,
    printed or not) that --masking/--census count (``masking.masked_results``), where
    they are counted."""
    res = StrandResult(query, strand, Alignments.concat([a for a in parts if len(a)]))
    if truncs:
        res.stats["truncations"] = np.concatenate(truncs)
    if census is not None:
        res.stats["census"] = Alignments.concat([a for a in census if len(a)])
    return res
