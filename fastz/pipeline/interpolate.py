"""Interpolation (``--inner=S`` / ``H=S``): alignments between alignments.

Mirrors LASTZ ``tweener.c``: ``tweener_interpolate`` (which gaps between the strand's
alignments are searched), ``try_bounded_align`` (splitting a rectangle at partition
boundaries), ``bounded_align`` (one rectangle: 7-mer exact seeds, x-drop HSPs scoring at
least S, chaining, gapped extension with threshold S, all on copies of the two
sub-sequences) and ``merge_align`` (the result stays ordered by target start).

Rectangles are searched in isolation: the outer alignments do not bound the inner ones.
Coordinates follow LASTZ: rectangles are 1-based inclusive ``(b1, e1, b2, e2)``; the
alignments (``records.Alignments``) are 0-based, end exclusive.
"""
from __future__ import annotations

import numpy as np

from ..records import Alignments, Sequence
from .anchors import anchors_from_hsps
from .chain import chain_segments
from .filtering import _strand_length, find_hsps
from .parallel import free_cores, map_in_threads
from .seeding import build_index, parse_seed

WINDOW = 20000                 # LASTZ innerWindow (rounded up to even: round_up_2)
INNER_WORD = 7                 # LASTZ innerWordSize: the inner seed is an exact 7-mer


class _Tweener:
    """State shared by one strand's interpolation (LASTZ's tweener globals)."""

    def __init__(self, target: Sequence, query: Sequence, opts, scores, threads: int = 1):
        self.target = target
        self.query = query
        self.opts = opts
        self.scores = scores
        self.threads = threads
        self.window = (WINDOW + 1) & ~1
        self.len1 = _strand_length(target.chars)
        self.len2 = _strand_length(query.chars)
        self.seed = parse_seed("1" * INNER_WORD, 28)
        self.rects: list[tuple[int, int, int, int]] = []   # rectangles, in LASTZ's order
        self.pieces: list[Alignments] = []     # inner alignments, shifted to the strand
        self.inner: list[tuple[int, int]] = []  # merged inner list: (beg1, piece/row id)
        self.truncations: list[np.ndarray] = []

    # --- one rectangle ---------------------------------------------------------------

    def bounded_align(self, b1: int, e1: int, b2: int, e2: int) -> None:
        """LASTZ bounded_align, deferred: the rectangle target[b1..e1] x query[b2..e2]
        (1-based, inclusive) joins the list ``run`` aligns (the walk never reads what
        a rectangle found, so the rectangles can be aligned at once, in threads)."""
        self.rects.append((b1, e1, b2, e2))

    def align_rect(self, rect) -> tuple[Alignments | None, np.ndarray | None]:
        """One rectangle's inner alignments (shifted to the strand, or None) and its
        truncation reports (or None)."""
        from .gapped import gapped_extend

        b1, e1, b2, e2 = rect
        o, sc = self.opts, self.scores
        t = np.ascontiguousarray(self.target.chars[b1 - 1:e1])
        q = np.ascontiguousarray(self.query.chars[b2 - 1:e2])
        sub1 = Sequence(chars=t, name="", header="", filename="")
        sub2 = Sequence(chars=q, name="", header="", filename="")
        index = build_index(t, self.seed, 1)
        hsps = find_hsps(index, t, q, None, 0, sc.masked, o.xdrop, o.inner, False,
                         gfextend=True, gapped=True, double=o.double_scores)
        hsps = chain_segments(hsps, o.chain_diag or 0, o.chain_anti or 0, sc.aa,
                              double=o.double_scores)
        if hsps.shape[0] == 0:
            return None, None
        anchors = anchors_from_hsps(hsps, t, q, sc.sub)
        alns, trunc, _ = gapped_extend(sub1, sub2, "+", anchors, sc, o.ydrop, o.inner,
                                       trim=o.ytrim, notrivial=o.notrivial,
                                       allgappedbounds=o.allgappedbounds,
                                       traceback_bytes=o.traceback_bytes)
        if trunc is not None and not trunc.shape[0]:
            trunc = None
        if len(alns) == 0:
            return None, trunc
        shift1, shift2 = b1 - 1, b2 - 1
        alns = Alignments(alns.beg1 + shift1, alns.end1 + shift1, alns.beg2 + shift2,
                          alns.end2 + shift2, alns.score, alns.ops_start, alns.ops, alns.kind)
        return alns, trunc

    def add_rect(self, alns: Alignments | None, trunc: np.ndarray | None) -> None:
        """A rectangle's result into the merged inner list, in LASTZ's order."""
        if trunc is not None:
            self.truncations.append(trunc)
        if alns is None:
            return
        pid = len(self.pieces)
        self.pieces.append(alns)
        new = [(int(b), (pid, k)) for k, b in enumerate(alns.beg1.tolist())]
        self.inner = _merge(new, self.inner)

    # --- partitions -------------------------------------------------------------------

    def try_bounded_align(self, b1: int, e1: int, b2: int, e2: int) -> None:
        """LASTZ try_bounded_align: skip empty rectangles, split at partition edges."""
        if b1 == e1 or b2 == e2:
            return
        tp, qp = self.target.partitions, self.query.partitions
        if tp is None and qp is None:
            self.bounded_align(b1, e1, b2, e2)
            return
        split1 = split2 = False
        e1left, b1right, e2left, b2right = e1, b1, e2, b2
        mid1 = mid2 = None
        if tp is not None:
            b1, e1 = _off_separators(self.target.chars, b1, e1)
            if b1 >= e1:
                return
            k1, k2 = int(tp.locate(b1 - 1)), int(tp.locate(e1 - 1))
            if k1 != k2:
                e1left = int(tp.offset[k1] + tp.length[k1])
                b1right = int(tp.offset[k2]) + 1
                split1 = True
                if k2 - k1 > 1:
                    mid1 = range(k1 + 1, k2)
        if qp is not None:
            b2, e2 = _off_separators(self.query.chars, b2, e2)
            if b2 >= e2:
                return
            k1, k2 = int(qp.locate(b2 - 1)), int(qp.locate(e2 - 1))
            if k1 != k2:
                e2left = int(qp.offset[k1] + qp.length[k1])
                b2right = int(qp.offset[k2]) + 1
                split2 = True
                if k2 - k1 > 1:
                    mid2 = range(k1 + 1, k2)
        if not split1 and not split2:
            self.bounded_align(b1, e1, b2, e2)
            return
        self.bounded_align(b1, e1left, b2, e2left)
        self.bounded_align(b1right, e1, b2right, e2)

        def whole(p, k):
            return int(p.offset[k]) + 1, int(p.offset[k] + p.length[k])

        if mid1 is not None and mid2 is None:
            for k in mid1:
                x, y = whole(tp, k)
                self.bounded_align(x, y, b2, e2left)
        elif mid1 is None and mid2 is not None:
            for k in mid2:
                x, y = whole(qp, k)
                self.bounded_align(b1, e1left, x, y)
        elif mid1 is not None and mid2 is not None:
            for k in mid1:
                for j in mid2:
                    x1, y1 = whole(tp, k)
                    x2, y2 = whole(qp, j)
                    self.bounded_align(x1, y1, x2, y2)

    # --- the walk over the outer alignments --------------------------------------------

    def run(self, outer: Alignments) -> Alignments:
        """LASTZ tweener_interpolate over ``outer`` (ordered by target start)."""
        w = self.window
        half = w // 2
        beg1 = (outer.beg1 + 1).tolist()
        beg2 = (outer.beg2 + 1).tolist()
        end1 = outer.end1.tolist()
        end2 = outer.end2.tolist()
        active: list[list] = []               # [alignment index, is_right_end], head first

        def dismiss(c):
            if c[1]:
                b1, b2 = end1[c[0]], end2[c[0]]
                self.try_bounded_align(b1, min(b1 + half, self.len1), b2, min(b2 + half, self.len2))

        for a in range(len(outer)):
            a1, a2 = beg1[a], beg2[a]
            a1_lft = 0 if a1 - 1 < w else a1 - w
            # dismiss alignments that ended too far before A (head run first, then others)
            while active and end1[active[0][0]] < a1_lft:
                dismiss(active.pop(0))
            k = 0
            while k + 1 < len(active):
                if a1_lft > end1[active[k + 1][0]]:
                    dismiss(active.pop(k + 1))
                else:
                    k += 1
            # an active alignment B overlapping A (B's end near A's start diagonal)?
            has_overlap = False
            broke = False
            for c in active:
                b1, b2 = end1[c[0]], end2[c[0]]
                dist_d = abs((b2 - b1) - (a2 - a1))
                if dist_d <= w and (b1 >= a1 or b2 >= a2):
                    has_overlap = True
                    if b1 < end1[a] and b2 < end2[a]:
                        c[1] = False
                    else:
                        broke = True
                        break
            if has_overlap:
                active.insert(0, [a, not broke])
                continue
            # the closest chain end B before A in both sequences, within the window
            best, best_dist, is_left_end = None, 3 * w, True
            for c in active:
                b1, b2 = end1[c[0]], end2[c[0]]
                if b1 < a1 and b2 < a2 and a2 < b2 + w:
                    is_left_end = False
                    if c[1]:
                        dist = (a1 - b1) + (a2 - b2)
                        if dist < best_dist:
                            best, best_dist = c[0], dist
                    c[1] = False
            if best is not None:
                self.try_bounded_align(end1[best], a1, end2[best], a2)
            elif is_left_end:
                b1 = 1 if a1 <= half else a1 - half
                b2 = 1 if a2 <= half else a2 - half
                self.try_bounded_align(b1, a1, b2, a2)
            active.insert(0, [a, True])
        while active:
            dismiss(active.pop(0))
        # the rectangles in up to ``threads`` threads (their share of the cores, round
        # by round), merged in the order LASTZ aligns them
        for alns, trunc in map_in_threads(self.align_rect, self.rects, self.threads,
                                          free_cores):
            self.add_rect(alns, trunc)
        return self.merged(outer)

    def merged(self, outer: Alignments) -> Alignments:
        """merge_align(outer, inner): by target start, outer first on ties."""
        if not self.inner:
            return outer
        outer_list = [(int(b), (-1, k)) for k, b in enumerate(outer.beg1.tolist())]
        order = _merge(outer_list, self.inner)
        pieces = [outer] + self.pieces
        return _gather(pieces, [(pid + 1, k) for _, (pid, k) in order])


def _off_separators(chars: np.ndarray, b: int, e: int) -> tuple[int, int]:
    """try_bounded_align's nudging of a 1-based interval off partition separators."""
    if chars[b - 1] == 0:
        b += 1
    elif chars[b] == 0:
        b += 2
    if chars[e - 1] == 0:
        e -= 1
    return b, e


def _merge(a: list, b: list) -> list:
    """LASTZ merge_align on lists of (beg1, id): stable, ``a`` first on ties."""
    if not b:
        return a
    if not a:
        return b
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][0] <= b[j][0]:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    out.extend(a[i:])
    out.extend(b[j:])
    return out


def _gather(pieces: list[Alignments], order: list[tuple[int, int]]) -> Alignments:
    """One Alignments holding ``pieces[p][k]`` for each (p, k) of ``order``."""
    cols = {name: [] for name in ("beg1", "end1", "beg2", "end2", "score")}
    ops, counts = [], []
    for p, k in order:
        al = pieces[p]
        for name in cols:
            cols[name].append(getattr(al, name)[k].item())
        run = al.ops[al.ops_start[k]:al.ops_start[k + 1]]
        ops.append(run)
        counts.append(run.shape[0])
    starts = np.zeros(len(order) + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    # (scores stay doubles where fastz_D's fractional scores made them so)
    fractional = any(p.score.dtype.kind == "f" for p in pieces)
    arr = {name: np.array(v, np.float64 if name == "score" and fractional else np.int64)
           for name, v in cols.items()}
    return Alignments(arr["beg1"], arr["end1"], arr["beg2"], arr["end2"], arr["score"], starts,
                      np.concatenate(ops).astype(np.uint64) if ops else np.zeros(0, np.uint64),
                      pieces[0].kind)


def interpolate(alns: Alignments, target: Sequence, query: Sequence, opts, scores,
                threads: int = 1) -> tuple[Alignments, np.ndarray | None]:
    """The strand's alignments plus the inner alignments found between them.

    Returns the merged alignments (ordered by target start) and the truncation
    reports of the inner extensions (``gapped.report_truncations``), or None.
    """
    if len(alns) == 0 or opts.inner <= 0:
        return alns, None
    tw = _Tweener(target, query, opts, scores, threads)
    out = tw.run(alns)
    trunc = np.concatenate(tw.truncations) if tw.truncations else None
    return out, trunc
