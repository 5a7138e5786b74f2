"""Runs where a query's two strands are searched before either is finished: adaptive
HSP thresholds (``--hspthresh=top<n>`` / ``top<p>%``, ``K=top...``), ``--queryhspbest``
and ``--queryhsplimit`` (LASTZ's ``collectHspsFromBoth``).

Mirrors the adaptive branch of LASTZ ``lastz.c`` ``main`` (``collectHspsFromBoth``):
for each query, every gap-free extension of both strands goes into one table that keeps
only the best-scoring HSPs covering ``n`` target bases (``p`` percent of the target
length); the table is then split by strand, the minus strand is finished (and printed)
first, then the plus strand.  Unless ``--gappedthresh`` is a plain score, the gapped
threshold becomes the lowest score left in either strand's table (``finish_one_strand``'s
``lowAnchorScore``).  The plus strand's HSPs, moved to a fresh table by the split, are
rescored before gapped extension or chaining (the fresh table does not claim to hold
scores).  The table itself is ``fastz.kernels.segtable``.

``--queryhspbest=N`` takes the same path with a plain threshold (LASTZ's
``numBestHsps``): both strands' HSPs go into one table, which keeps the N best and
every one tied with the N-th (``choose_best_anchors``), then it is split and finished
as above (the two combine: K=top with --queryhspbest chooses from the adaptive table).
LASTZ chooses only after searching the minus strand, so a single-strand run
(``--strand=plus`` or ``minus``) keeps every HSP.  Un-extended seed hits
(``--nogfextend``) sit in the table with score 0 and are scored when finished.

``--queryhsplimit=N`` keeps each strand's HSPs in its own table (``collectHspsSeparately``):
a query whose strands together have more than N is dropped (with the keep forms, a
stopped search keeps what it found), the others are finished minus strand first, with
no rescoring (the plus strand's table is the one it was found in).

In all three, --twins/--recoverseeds HSPs are merged only when a strand is finished,
after the table chose or counted them, as LASTZ's ``finish_one_strand`` does.
"""
from __future__ import annotations

from dataclasses import replace
import numpy as np

from ..cscan import as_int32, float_value, to_u32
from ..kernels import filtering as kfilt
from ..kernels import segtable as kst
from ..records import HSP_DOUBLE_DTYPE, HSP_DTYPE, Alignments
from .anchors import merge_segments
from .filtering import SearchReport, _strand_length
from .mirror import mirror_images


def coverage_limit(top: str, target_len: int) -> int:
    """LASTZ ``resolve_score_thresh``: ``top<n>`` -> n, ``top<p>%`` -> p% of the target."""
    body = top[3:]
    if body.endswith("%"):
        p = float_value(body[:-1]) / 100.0
        return to_u32(p * target_len + 0.5)
    return to_u32(int(body))                # (a u32: "top-1" keeps every HSP)


def _as_hsps(seg: np.ndarray, state: np.ndarray, double: bool) -> np.ndarray:
    n = int(state[kst.S_LEN])
    out = np.empty(n, HSP_DOUBLE_DTYPE if double else HSP_DTYPE)
    out["pos1"] = seg[:n, kst.F_POS1]
    out["pos2"] = seg[:n, kst.F_POS2]
    out["length"] = seg[:n, kst.F_LEN]
    out["score"] = _scores(seg[:n, kst.F_SCORE], double)
    return out


def _scores(column: np.ndarray, double: bool) -> np.ndarray:
    """The table's scores as numbers (lastz_D's are kept as ``kst.score_keys``)."""
    return kst.key_scores(column) if double else column


def _finish_shared(aligner, bufs, seg, state, sid, strands, fixed_gapped=True):
    """Split a query's shared HSP table by strand and finish the minus strand, then the
    plus strand (``collectHspsFromBoth`` in LASTZ's main)."""
    o = aligner.opts
    d = o.double_scores
    segments = aligner.segments is not None
    worst = kst.worst_score(d)
    if len(strands) == 2:
        other, ostate = kst.split_table(seg, state, sid["-"], worst)
        tables = [("-", seg, state), ("+", other, ostate)]
        low = min(int(state[kst.S_LOW]), int(ostate[kst.S_LOW]))
    else:
        # the second table exists but stays empty: its low score is the worst possible
        tables = [(strands[0], seg, state)]
        low = min(int(state[kst.S_LOW]), worst)
    low = _scores(np.array([low], np.int64), d)[0].item()
    for s, tseg, tstate in tables:
        # LASTZ merges --twins/--recoverseeds HSPs when it finishes the strand
        hsps = aligner.finish_hsps(bufs[s], _as_hsps(tseg, tstate, d))
        if segments:
            hsps = merge_segments(hsps)         # (LASTZ merges a segments file's anchors)
        if ((len(strands) == 2 and s == "+" or not (o.gfextend or segments))
                and (o.gapped or o.chain) and hsps.shape[0]):
            # the plus strand's HSPs were moved to a fresh table, which no longer
            # says it holds scores (nor do un-extended seed hits): finish_one_strand
            # rescores them (masked table, no entropy), after the minus strand was
            # written (and masked)
            q = np.ascontiguousarray(bufs[s].chars, np.uint8)
            hsps["score"] = kfilt.score_segments(
                np.ascontiguousarray(aligner.target.chars, np.uint8), q,
                np.ascontiguousarray(hsps["pos1"]), np.ascontiguousarray(hsps["pos2"]),
                np.ascontiguousarray(hsps["length"]), aligner.scores.masked)
        yield aligner.strand(bufs[s], s, hsps=hsps,
                             gappedthresh=None if fixed_gapped else low,
                             mirrored=True)


def shared_table_query(best: int | None, aligner, strands, bufs, sid):
    """One query's strand results, in LASTZ's order, when its two strands share one HSP
    table: adaptive thresholds (``K=top...``) and/or ``--queryhspbest=best``.  Returns
    (results, notes) as ``Aligner.by_query`` wants (no notes here)."""
    o = aligner.opts
    t = np.ascontiguousarray(aligner.target.chars, np.uint8)
    adaptive = o.hspthresh_top is not None
    limit = coverage_limit(o.hspthresh_top, _strand_length(t)) if adaptive else 0
    if not adaptive and len(strands) == 1:
        # a single strand with a plain threshold: LASTZ never chooses
        return [aligner.strand(bufs[strands[0]], strands[0])], []
    segments = aligner.segments is not None
    # (--entropy=report: lastz says its lines as the searches go, both strands' before
    # either is finished; none for K=top, whose score threshold is 0)
    report = SearchReport() if o.entropy_report and not adaptive else None
    seg, state = kst.new_table(double=o.double_scores)
    for s in strands:
        q = np.ascontiguousarray(bufs[s].chars, np.uint8)
        if segments:
            # --segments: the file's segments as read, scores and all
            raw = aligner.segments.take(aligner.target, bufs[s], s, merged=False)
        else:
            # with K=top every x-drop extension is offered to the table, which keeps
            # the best
            raw = aligner.find_hsps(bufs[s], s, unmerged=True, every=adaptive,
                                    entropy_failures=report)
        if not adaptive and not o.gfextend and not segments:
            # LASTZ's table holds un-extended seed hits with score 0 (scored only
            # when the strand is finished)
            raw = raw.copy()
            raw["score"] = 0
        image = np.zeros(raw.shape[0], np.bool_)
        if o.mirrors_hsps:
            # LASTZ puts each HSP's mirror image in the table right after it
            raw, image = mirror_images(raw, _strand_length(t), _strand_length(q), s == "+")
        score = kst.score_keys(raw["score"]) if o.double_scores else raw["score"]
        rows = np.stack([raw["pos1"], raw["pos2"], raw["length"], score], axis=1)
        # (a segments file's rows carry their strand character as id, as LASTZ's
        # read_segment_table gives them, which no strand's id matches: LASTZ 1.04.22
        # then finishes the minus strand with none of them, and the plus strand with
        # all the chosen ones, minus rows where they lie in the minus strand's buffer)
        seg_id = ord(s) if segments else sid[s]
        seg = kst.collect_adaptive(seg, state, limit, t, q, rows.astype(np.int64),
                                   seg_id, adaptive and bool(o.entropy), image,
                                   o.double_scores)
    if best is not None and len(strands) == 2:
        # LASTZ chooses after searching the minus strand only
        kst.choose_best(seg, state, best)
    # (finished lazily: --masking masks the target between the strands)
    results = _finish_shared(aligner, bufs, seg, state, sid, strands,
                             fixed_gapped=not adaptive or o.gappedthresh_top is None)
    return (_reported_first(results, report) if report else results), []


def _reported_first(results, lines: list):
    """``results``, the first carrying the query's --entropy=report lines."""
    for k, res in enumerate(results):
        if k == 0:
            res.stats["entropy_report"] = lines
        yield res


def limited_hsp_query(limit: int, keep: bool, aligner, strands, bufs, sid):
    """One query's strand results with ``--queryhsplimit=limit`` (LASTZ's searchLimit),
    and as notes the strands searched, each with its name where its search went over
    the limit (see ``hsp_limit_warnings``).

    LASTZ stops a strand's seed search once it has more HSPs than the limit left to it
    (the limit less the plus strand's count; 1 when that count is the limit) and warns;
    the query is dropped whole when the two strands together have more than ``limit``.
    An unstopped search is a complete one, so counting complete searches decides the
    same.  LASTZ's twin hit processor never stops a search (nor warns), it only drops.
    HSPs are counted before --twins/--recoverseeds merge them, and with --self
    --nogapped together with their mirror images (``_table_rows``).  With ``keep``
    (``--queryhsplimit+=``, ``=keep,nowarn:``) nothing is dropped: a stopped strand
    keeps the HSPs found up to the query position where it stopped.  A kept query is
    finished minus strand first (collectHspsSeparately)."""
    stops = aligner.searches_stop
    report = aligner.opts.entropy_report
    found, searched = {}, []
    prev = 0
    for s in strands:
        left = limit if prev == 0 else (limit - prev if prev < limit else 1)
        # (--entropy=report: the lines of the search up to where LASTZ stops it; a
        # stopped search over the limit decides as a complete one would)
        lines = SearchReport() if report else None
        hsps = aligner.find_hsps(bufs[s], s, unmerged=True,
                                 stop_after=left if (keep or report) and stops else -1,
                                 entropy_failures=lines)
        # (over the limit, LASTZ's search stops here)
        searched.append((s, bufs[s].name if stops and hsps.shape[0] > left else None,
                         lines or []))
        n = _table_rows(aligner, bufs[s], s, hsps)
        if prev + n > limit and not keep:
            return [], searched
        found[s] = hsps
        prev += n
    return _finish_limited(aligner, limit, strands, bufs, found), searched


def _table_rows(aligner, query, strand, hsps) -> int:
    """How many rows a strand's HSPs fill in LASTZ's anchor table, which the query's
    limit counts: with --self --nogapped each HSP is followed by its mirror image
    there (collect_hsps; the search's own stop counts the HSPs alone)."""
    if not aligner.opts.mirrors_hsps:
        return hsps.shape[0]
    from .filtering import _strand_length
    from .mirror import mirror_hsps
    return mirror_hsps(hsps, _strand_length(aligner.target.chars),
                       _strand_length(query.chars), strand == "+").shape[0]


def _finish_limited(aligner, limit, strands, bufs, found):
    """A kept query's strands, minus strand first (a generator: --masking masks the
    target between them)."""
    cap = PrintCap(aligner, limit)
    for s in strands[::-1]:
        res = aligner.strand(bufs[s], s, hsps=aligner.finish_hsps(bufs[s], found[s]))
        yield replace(res, alignments=cap.take(res.alignments, bufs[s]))


def hsp_limit_warnings(limit: int, warn: bool, aligner, searched) -> None:
    """LASTZ's stderr lines for a query's strand searches, ``searched`` as (strand,
    the query's name where that search went over --queryhsplimit, else None[, the
    search's --entropy=report lines]) in search order: each search's --verbosity line,
    its report, then its warning (the explanation once per run); those over are
    counted for the end-of-run total."""
    import sys

    from .filtering import say_report
    for strand, name, *said in searched:
        aligner.say_search(strand)
        if said:
            say_report(said[0])
        if name is None:
            continue
        aligner.limit_exceeded += 1
        if warn:
            sys.stderr.write(f'WARNING. Query "{name}" contains more than {limit:,} HSPs.\n')
            if aligner.limit_exceeded == 1:
                sys.stderr.write("All HSPs for this query are discarded and the "
                                 "query is not processed further.\n")


class PrintCap:
    """LASTZ prints at most ``limit`` things per query when a per-query limit is set
    (output.c's ``printedForQuery``): a printed list of gapped alignments counts one,
    and so does each HSP or, in the formats that print gapped alignments as their
    gap-free segments (rdotplot, genseg, mafsegments), each segment; the N-th ends
    the query's output, mid-alignment if it falls there."""

    def __init__(self, aligner, limit: int):
        from ..io.formats import degapified
        self.aligner, self.left = aligner, limit
        self.segments = degapified(aligner.opts)

    def take(self, alns: Alignments, query) -> Alignments:
        """What is printed of the list ``alns`` (of the strand buffer ``query``)."""
        from ..io.alignview import degapify
        if len(alns) == 0:
            return alns
        if alns.kind == "gapped" and self.segments:
            alns = degapify(alns, self.aligner.target.chars, query.chars,
                            self.aligner.scores.sub)
        if alns.kind == "gapped":
            keep = len(alns) if self.left > 0 else 0
            self.left -= 1
        else:
            keep = min(len(alns), max(self.left, 0))
            self.left -= keep
        return alns if keep == len(alns) else alns.subset(np.arange(keep))


def resolve_thresholds(opts, target):
    """Options with ``top<p>%`` thresholds turned into ``top<count>`` (LASTZ
    ``resolve_score_thresh``, applied before any header is printed)."""
    n = _strand_length(target.chars)
    changes = {}
    for name in ("hspthresh_top", "gappedthresh_top"):
        top = getattr(opts, name)
        if top is not None and top.endswith("%"):
            # (a u32 LASTZ prints as an int)
            changes[name] = f"top{as_int32(coverage_limit(top, n))}"
    return replace(opts, **changes) if changes else opts
