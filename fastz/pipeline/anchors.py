"""HSPs -> anchors, and HSPs read from a ``--segments=FILE``.

Mirrors LASTZ ``gapped_extend.c`` ``reduce_to_points`` / ``segment_peak`` and the
``qSegmentsByDecreasingScore`` order used by ``gapped_extend``, and ``segment.c``
``read_segment_table`` (the segments file format).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, OptionsError
from ..kernels import filtering as kfilt
from ..records import ANCHOR_DTYPE, HSP_DOUBLE_DTYPE, HSP_DTYPE, Sequence, concat_records
from ..scoring import string_to_double, whole_if_integral

# --- Anchors ------------------------------------------------------------------------------


def anchors_from_hsps(hsps: np.ndarray, target_chars: np.ndarray, query_chars: np.ndarray,
                      sub: np.ndarray) -> np.ndarray:
    """Reduce each HSP to its peak point and sort into gapped-extension order.

    Parameters
    ----------
    hsps : HSP_DTYPE array
        One query strand's HSPs (any order).
    target_chars, query_chars : uint8 arrays
        The target buffer and the query strand buffer the HSPs refer to.
    sub : int32[256, 256]
        The *unmasked* substitution table (``ScoreSet.sub``).

    Returns
    -------
    ANCHOR_DTYPE array sorted by score descending, then query position, then target
    position (ascending).  Anchors equal in all three keys are identical.
    """
    n = hsps.shape[0]
    out = np.empty(n, dtype=ANCHOR_DTYPE)
    if n == 0:
        return out
    out["pos1"], out["pos2"], out["score"] = _peaks_in_order(hsps, target_chars,
                                                             query_chars, sub)
    return out


def anchors_of_strands(hsp_sets: list, target_chars: np.ndarray, qcat: np.ndarray,
                       qoff: np.ndarray, sub: np.ndarray):
    """``anchors_from_hsps`` of many query strands at once: strand s is
    ``qcat[qoff[s]:qoff[s + 1]]`` with the HSPs ``hsp_sets[s]``.  Returns (pos1, pos2,
    aoff): strand s's anchors, in order, are ``[aoff[s], aoff[s + 1])``, their query
    positions relative to its own buffer."""
    counts = np.array([h.shape[0] for h in hsp_sets], np.int64)
    aoff = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=aoff[1:])
    strand = np.repeat(np.arange(counts.shape[0]), counts)
    hsps = concat_records(hsp_sets, hsp_sets[0].dtype if hsp_sets else HSP_DTYPE)
    a1, a2, _ = _peaks_in_order(hsps, target_chars, qcat, sub, strand, qoff[strand])
    return a1, a2, aoff


def _peaks_in_order(hsps, target_chars, query_chars, sub, group=None, shift=None):
    """The HSPs' peak points (pos1, pos2, score) in LASTZ's order: score descending,
    then query position, then target position (within each ``group``, groups in
    order); query positions in ``query_chars`` are ``pos2 + shift``."""
    pos1 = np.ascontiguousarray(hsps["pos1"], dtype=np.int64)
    pos2 = np.ascontiguousarray(hsps["pos2"], dtype=np.int64)
    length = np.ascontiguousarray(hsps["length"], dtype=np.int64)
    peak = kfilt.segment_peaks(np.ascontiguousarray(target_chars, dtype=np.uint8),
                               np.ascontiguousarray(query_chars, dtype=np.uint8),
                               pos1, pos2 if shift is None else pos2 + shift, length,
                               np.ascontiguousarray(sub))   # (int32, or fastz_D's float64)
    a1 = pos1 + peak
    a2 = pos2 + peak
    score = hsps["score"]             # (fastz_D: doubles, whose fractions order ties)
    keys = (a1, a2, -score) if group is None else (a1, a2, -score, group)
    order = np.lexsort(keys)
    return a1[order], a2[order], score[order]


def merge_segments(hsps: np.ndarray) -> np.ndarray:
    """Sort segments by diagonal and merge overlapping ones (LASTZ ``segment.c``
    ``merge_segments``, applied to every table read from ``--segments``).

    Order: diagonal (pos1 - pos2), then pos2, length, score, all ascending.  A
    merged segment keeps the highest score of its parts.
    """
    if hsps.shape[0] < 2:
        return hsps.copy()
    p1 = hsps["pos1"].astype(np.int64)
    p2 = hsps["pos2"].astype(np.int64)
    ln = hsps["length"].astype(np.int64)
    sc = hsps["score"]
    order = np.lexsort((sc, ln, p2, p1 - p2))
    rows, best = kfilt.merge_sorted_segments(p1[order], p2[order], ln[order],
                                             np.ascontiguousarray(sc[order]))
    out = np.empty(rows.shape[0], dtype=hsps.dtype)
    out["pos1"], out["pos2"], out["length"] = rows.T
    out["score"] = best
    return out


# --- Segments files -------------------------------------------------------------------------


@dataclass
class _Line:
    number: int
    tname: str
    tstart: int
    tend: int
    qname: str
    qstart: int
    qend: int
    strand: str
    score: int | float


def _parse_line(text: str, number: int, fname: str, double: bool = False) -> _Line | None:
    text = text.split("#", 1)[0].strip()
    if not text:
        return None
    f = text.split()
    if len(f) < 7:
        raise InputError(f"line has too few fields ({fname}: line {number})")
    if len(f) > 8:
        raise InputError(f"line has too many fields ({fname}: line {number})")

    def num(s):
        if not s.isdigit():
            raise InputError(f"bad field ({fname}: line {number}, {s})")
        return int(s)

    ts, te, qs, qe = num(f[1]), num(f[2]), num(f[4]), num(f[5])
    if te < ts:
        raise InputError(f"bad target interval ({fname}: line {number}, {ts}>{te})")
    if qe < qs:
        raise InputError(f"bad query interval ({fname}: line {number}, {qs}>{qe})")
    if qe - qs != te - ts:
        raise InputError(f"intervals have different lengths ({fname}: line {number}, "
                         f"{te + 1 - ts} vs. {qe + 1 - qs})")
    if f[6] not in ("+", "-"):
        raise InputError(f"bad {'field' if len(f[6]) != 1 else 'strand'} ({fname}: line {number}, {f[6]})")
    score = 0
    if len(f) == 8:
        try:
            score = whole_if_integral(string_to_double(f[7])) if double else int(f[7])
        except (ValueError, OptionsError):
            raise InputError(f"bad field ({fname}: line {number}, {f[7]})") from None
    return _Line(number, f[0], ts, te, f[3], qs, qe, f[6], score)


@dataclass
class SegmentsReader:
    """Reads a ``--segments`` file one query strand at a time, as LASTZ does.

    Lines are consumed in file order: each call takes the run of lines that name the
    current query (or ``*``) on the current strand; the first line that does not
    stays pending for the next call.  A line ``rewind`` ends the run and makes the
    next call start again at the top of the file.  ``finish()`` fails if segments
    are left over.  ``double``: scores are lastz_D's doubles (fastz_D).
    """

    path: str
    double: bool = False
    _lines: list = field(default_factory=list, init=False)
    _at: int = field(default=0, init=False)                 # next unread line
    _pending_rewind: bool = field(default=False, init=False)
    _pending_after_rewind: bool = field(default=False, init=False)
    _partitioned: bool = field(default=False, init=False)    # the last query taken

    def __post_init__(self):
        try:
            with open(self.path, errors="surrogateescape") as fh:
                self._lines = fh.read().splitlines()
        except OSError as exc:
            raise InputError(f"can't open {self.path}: {exc.strerror}") from None

    def _peek(self):
        """Next non-blank line at or after ``_at``: ("seg", _Line), ("rewind", None) or None."""
        while self._at < len(self._lines):
            text = self._lines[self._at]
            if text.split("#", 1)[0].strip() == "rewind":
                return "rewind", None
            parsed = _parse_line(text, self._at + 1, self.path, self.double)
            if parsed is not None:
                return "seg", parsed
            self._at += 1
        return None

    def take(self, target: Sequence, query: Sequence, strand: str,
             merged: bool = True) -> np.ndarray:
        """HSPs for ``query`` on ``strand`` ('+' or '-'), as HSP_DTYPE rows in
        the target buffer and the query *strand* buffer; ``merged=False``: as read,
        before ``merge_segments`` (LASTZ merges when it finishes the strand, after
        --queryhspbest chose from both strands' segments)."""
        self._partitioned = query.partitions is not None
        if query.revcomp:
            # LASTZ names a strand by its buffer's orientation to the file's sequence:
            # a query loaded with [revcomp] is the - strand in its first pass
            strand = "+" if strand == "-" else "-"
        after_rewind = self._pending_after_rewind
        if self._pending_rewind:
            self._at = 0
            self._pending_rewind = False
            after_rewind = True
        self._pending_after_rewind = False
        rows = []
        while True:
            item = self._peek()
            if item is None:
                break
            kind, ln = item
            if kind == "rewind":
                self._pending_rewind = True
                self._at += 1
                break
            if not _names_query(ln, query, strand):
                self._pending_after_rewind = after_rewind     # stays pending
                break
            rows.extend(_resolve(self.path, ln, target, query, strand))
            self._at += 1
        rows = _hsp_rows(rows)
        return merge_segments(rows) if merged else rows

    def finish(self) -> None:
        """Fail if segments remain unread (LASTZ's final ``read_segment_table`` call)."""
        self._pending_rewind = False
        item = self._peek()
        if item is not None and item[0] == "seg" and self._pending_after_rewind:
            self._at += 1                       # a pending first-after-rewind line is fine
            item = self._peek()
        if item is not None and item[0] == "seg":
            ln = item[1]
            why = ("(for this usage all + strand segments must appear before all - strand "
                   "segments)" if self._partitioned else
                   "(for this usage segments must appear in the same order as the query file, "
                   "with\nall + strand segments before all - strand segments for each query)")
            raise InputError(f"extra segments in file ({self.path}: line {ln.number}, "
                             f"{ln.tname}/{ln.qname}{ln.strand})\n{why}")


def _names_query(ln: _Line, query: Sequence, strand: str) -> bool:
    """Whether a line belongs to this query strand (else it ends the strand's run)."""
    if ln.strand != strand:
        return False
    if query.partitions is not None or ln.qname == "*" or not query.name:
        return True
    return ln.qname == query.name


def _hsp_rows(rows: list) -> np.ndarray:
    double = any(isinstance(r[3], float) for r in rows)
    out = np.empty(len(rows), dtype=HSP_DOUBLE_DTYPE if double else HSP_DTYPE)
    if rows:
        for k, name in enumerate(("pos1", "pos2", "length", "score")):
            out[name] = [r[k] for r in rows]
    return out


def _resolve(fname: str, ln: _Line, target: Sequence, query: Sequence, strand: str) -> list:
    """Buffer coordinates (pos1, pos2, length, score) of one segment line."""
    if query.partitions is None:
        q_seq_start = query.start
        q_off = 0
        q_seq_end = q_seq_start + len(query)
        if strand == "-":
            true_len = query.true_length or len(query)
            q_seq_start, q_seq_end = true_len - q_seq_end, true_len - q_seq_start
        if ln.qstart <= q_seq_start:
            _out_of_range(fname, ln, f"{ln.qstart}<{q_seq_start + 1}", strand, q_seq_start, q_seq_end)
        if ln.qend > q_seq_end:
            _out_of_range(fname, ln, f"{ln.qend}>{q_seq_end}", strand, q_seq_start, q_seq_end)
    else:
        qp = query.partitions
        if ln.qname == "*":
            raise InputError(f"bad query sequence name ({fname}: line {ln.number}, *)\n"
                             "wildcard segment name (*) is not supported for queries with [multi]")
        if ln.qname not in qp.names:
            raise InputError(f"bad query sequence name ({fname}: line {ln.number}, {ln.qname})")
        probe = ln.qstart
        if strand == "-":
            probe = int(qp.true_length[qp.names.index(ln.qname)]) + 1 - ln.qend
        k = qp.named_at(ln.qname, probe)
        if k is None:
            raise InputError(f"bad query sequence name/position ({fname}: line {ln.number}, "
                             f"{ln.qname}:{ln.qstart})"
                             + (f"\n{probe % (1 << 32)} on forward strand"      # (LASTZ's unsigned)
                                if strand == "-" else ""))
        q_off = int(qp.offset[k])
        q_len = int(qp.length[k])
        if strand == "+":
            q_seq_start = int(qp.start[k])
            if ln.qend > q_seq_start + q_len:
                _out_of_range(fname, ln, f"{ln.qend}>{q_seq_start + q_len}")
        else:
            q_seq_start = int(qp.true_length[k]) - int(qp.start[k]) - q_len
            if ln.qstart <= q_seq_start:
                _out_of_range(fname, ln, f"{ln.qstart}<{q_seq_start + 1}", strand,
                              q_seq_start, q_seq_start + q_len)
    seg_len = ln.tend + 1 - ln.tstart
    q_pos = q_off + (ln.qstart - 1) - q_seq_start
    return [(t_off + (ln.tstart - 1) - t_seq_start, q_pos, seg_len, ln.score)
            for t_off, t_seq_start in _target_places(fname, target, ln)]


def _out_of_range(fname: str, ln: _Line, detail: str, strand: str = "+",
                  start: int = 0, end: int = 0) -> None:
    """LASTZ's failure for a query interval outside the loaded sequence (a - strand's
    is placed on that strand: ``start``/``end`` origin zero, half open)."""
    extra = f"\nminus strand subrange is {start + 1}..{end}" if strand == "-" else ""
    raise InputError(f"query interval out of range ({fname}: line {ln.number}, {detail})"
                     + extra)


def _target_places(fname: str, target: Sequence, ln: _Line) -> list:
    """(buffer offset, source start) of each target piece a line refers to."""
    if target.partitions is None:
        t_seq_start = target.start
        if ln.tstart <= t_seq_start:
            raise InputError(f"target interval out of range ({fname}: line {ln.number}, "
                             f"{ln.tstart}<{t_seq_start + 1})")
        if ln.tend > t_seq_start + len(target):
            raise InputError(f"target interval out of range ({fname}: line {ln.number}, "
                             f"{ln.tend}>{t_seq_start + len(target)})")
        return [(0, t_seq_start)]
    tp = target.partitions
    names = [ln.tname] if ln.tname != "*" else list(dict.fromkeys(tp.names))
    places = []
    for nm in names:
        if nm not in tp.names:
            raise InputError(f"bad target sequence name ({fname}: line {ln.number}, {nm})")
        k = tp.named_at(nm, ln.tstart)
        if k is None:
            raise InputError(f"bad target sequence name/position ({fname}: line {ln.number}, "
                             f"{nm}:{ln.tstart})")
        if ln.tend > int(tp.start[k]) + int(tp.length[k]):
            raise InputError(f"target interval out of range ({fname}: line {ln.number}, "
                             f"{ln.tend}>{int(tp.start[k]) + int(tp.length[k])})")
        places.append((int(tp.offset[k]), int(tp.start[k])))
    return places


def read_segments_file(path: str, target: Sequence, query: Sequence, strand: str = "+",
                       reader: SegmentsReader | None = None) -> np.ndarray:
    """HSPs of ``--segments=FILE`` for one query strand, merged and in diagonal order
    (``merge_segments``), as LASTZ holds them before anchors are made.

    Pass the same ``reader`` (a ``SegmentsReader(path)``) for every query strand in
    processing order to get LASTZ's sequential semantics (then call
    ``reader.finish()``); without one, every line naming this query (or ``*``) and
    strand is taken, which is what a file written by ``lastz --format=segments``
    needs.
    """
    if reader is not None:
        return reader.take(target, query, strand)
    try:
        with open(path, errors="surrogateescape") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise InputError(f"can't open {path}: {exc.strerror}") from None
    rows = []
    for number, text in enumerate(lines, 1):
        if text.split("#", 1)[0].strip() == "rewind":
            continue
        ln = _parse_line(text, number, path)
        if ln is not None and _names_query(ln, query, strand):
            rows.extend(_resolve(path, ln, target, query, strand))
    return merge_segments(_hsp_rows(rows))
