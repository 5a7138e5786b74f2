"""Per-alignment views shared by every output writer.

LASTZ's writers all walk an alignment's edit script the same way (a run of
substitutions, then at most one indel operation, repeated until both sequences
are used up) and all place an alignment on its source sequence the same way
(partition lookup, subrange offset, strand).  This module does that walking and
placing once, in numpy where it is easy, so the format modules only format.

Mirrors, in spirit: ``edit_script.c`` (``edit_script_run_of_subs``,
``edit_script_indel_len``), ``identity_dist.c`` (``alignment_identity``,
``count_substitutions``), ``coverage_dist.c`` (``alignment_coverage``),
``continuity_dist.c`` (``alignment_continuity``), ``sequences.c``
(``percent_identical``, ``score_match``, ``lookup_partition``).
"""
from __future__ import annotations

from collections import abc
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..records import OP_DEL, OP_INS, OP_MATCH, Alignments, Sequence
from ..scoring import run_score

# --- Byte tables -------------------------------------------------------------------

#: ACGT (either case) -> 0..3, everything else -> -1 (LASTZ's nuc_to_bits)
BITS = np.full(256, -1, np.int8)
for _i, _c in enumerate(b"ACGT"):
    BITS[_c] = _i
    BITS[_c + 32] = _i

#: a-z -> A-Z, everything else unchanged
UPPER = np.arange(256, dtype=np.uint8)
UPPER[ord("a"):ord("z") + 1] -= 32
#: A-Z -> a-z, everything else unchanged
LOWER = np.arange(256, dtype=np.uint8)
LOWER[ord("A"):ord("Z") + 1] += 32
#: bytes outside 0x20..0x7E print as '*'
PRINTABLE = np.arange(256, dtype=np.uint8)
PRINTABLE[:0x20] = ord("*")
PRINTABLE[0x7F:] = ord("*")

#: nucleotide complement keeping case, IUPAC letters complemented, others unchanged
COMPLEMENT = np.arange(256, dtype=np.uint8)
for _a, _b in zip(b"ACGTBDHKMRVY", b"TGCAVHDMKYBR"):
    COMPLEMENT[_a] = _b
    COMPLEMENT[_a + 32] = _b + 32
# S, W and N are their own complements

GAP = ord("-")


# --- Where an alignment sits on its source sequence ---------------------------------


@dataclass(frozen=True)
class Place:
    """One (sub-)sequence as LASTZ's writers see it (``seq`` or one ``partition``)."""

    name: str            # short name printed by the writers
    offset: int          # buffer index of the first base (LASTZ: sepBefore + 1; 0 if whole)
    start_loc: int       # 1-based position of the loaded subrange in the source record
    length: int          # loaded length
    true_len: int        # length of the whole source record
    contig: int          # 1-based record index in its file
    invert: int          # LASTZ's seqInvert (true length, or sepBefore + sepAfter + 1)
    header: str          # full header
    partitioned: bool

    def start(self, pos0: int, rev: bool) -> int:
        """1-based start on the printed strand of the base at buffer index ``pos0``."""
        if not rev:
            return pos0 - self.offset + self.start_loc
        return pos0 - self.offset + self.true_len + 2 - (self.start_loc + self.length)


def whole_true_length(seq: Sequence) -> int:
    """The true length of an unpartitioned sequence's record (LASTZ's trueLen)."""
    return int(seq.true_length) if seq.true_length else int(seq.start) + len(seq)


class SeqInfo:
    """Naming and coordinate information for a target or query strand buffer."""

    def __init__(self, seq: Sequence, rev: bool, default_name: str):
        self.seq = seq
        self.rev = bool(rev)
        self.chars = seq.chars
        self.parts = seq.partitions
        self.default_name = default_name
        if self.parts is None:
            name = seq.name or default_name
            true_len = whole_true_length(seq)
            self._whole = Place(name, 0, int(seq.start) + 1, len(seq), true_len,
                                int(seq.contig), true_len, seq.header, False)
        else:
            self._whole = None
            self._cache: dict[int, Place] = {}

    @property
    def partitioned(self) -> bool:
        return self.parts is not None

    @property
    def whole(self) -> Place:
        """The unpartitioned sequence (only for unpartitioned sequences)."""
        return self._whole

    def part(self, idx: int) -> Place:
        p = self._cache.get(idx)
        if p is None:
            parts = self.parts
            offset = int(parts.offset[idx])
            length = int(parts.length[idx])
            name = parts.names[idx] if idx < len(parts.names) else ""
            header = parts.headers[idx] if idx < len(parts.headers) else name
            p = Place(name or self.default_name, offset, int(parts.start[idx]) + 1, length,
                      int(parts.true_length[idx]), int(parts.contig[idx]),
                      2 * offset + length, header, True)
            self._cache[idx] = p
        return p

    def place(self, pos0: int) -> Place:
        """The (sub-)sequence holding buffer index ``pos0`` (LASTZ's lookup_partition)."""
        if self.parts is None:
            return self._whole
        return self.part(self.parts.locate(pos0))

    def true_lengths(self, pos0: np.ndarray) -> np.ndarray:
        """``place(p).true_len`` of each buffer index in ``pos0``."""
        if self.parts is None:
            return np.full(len(pos0), self._whole.true_len, np.int64)
        return np.asarray(self.parts.true_length, np.int64)[self.parts.locate(pos0)]

    def all_places(self) -> list[Place]:
        if self.parts is None:
            return [self._whole]
        return [self.part(i) for i in range(len(self.parts.offset))]


# --- One alignment ------------------------------------------------------------------


class AlnView:
    """One alignment of a strand, with lazily computed columns and statistics.

    Coordinates ``beg1``/``end1``/``beg2``/``end2`` are 0-based, end exclusive, in
    the target buffer and the query strand buffer.  ``is_hsp`` marks gap-free
    segments printed through LASTZ's ``print_match`` path (``--nogapped`` HSPs,
    seed hits, de-gapified segments), whose output differs in a few places.
    """

    __slots__ = ("t", "q", "beg1", "end1", "beg2", "end2", "score", "ops", "is_hsp",
                 "__dict__")

    def __init__(self, t: np.ndarray, q: np.ndarray, beg1: int, end1: int, beg2: int,
                 end2: int, score: int, ops: np.ndarray, is_hsp: bool):
        self.t = t
        self.q = q
        self.beg1 = int(beg1)
        self.end1 = int(end1)
        self.beg2 = int(beg2)
        self.end2 = int(end2)
        # (a numpy scalar becomes int, or float: fastz_D's HSP scores may be fractional)
        self.score = score.item() if hasattr(score, "item") else score
        self.ops = ops
        self.is_hsp = is_hsp

    @property
    def height(self) -> int:
        return self.end1 - self.beg1

    @property
    def width(self) -> int:
        return self.end2 - self.beg2

    # --- the edit-script walk ---

    @cached_property
    def walk(self) -> list[tuple[int, int, int, int, int]]:
        """LASTZ's script walk: [(i0, j0, run, indel_op, indel_len), ...].

        Each step is a (possibly empty) run of substitutions starting at offsets
        (i0, j0) from the alignment start, followed by at most one indel operation
        (indel_op is -1 when there is none).  Consecutive substitution operations
        merge into one run; indel operations are taken one at a time, so an
        insertion next to a deletion gives a step with run 0.
        """
        # (a read's script is a run or a few: list arithmetic, not numpy calls)
        vals = self.ops.tolist()
        kinds = [x & 0xF for x in vals]
        lens = [x >> 4 for x in vals]
        n = len(kinds)
        h, w = self.height, self.width
        steps = []
        i = j = idx = 0
        while i < h or j < w:
            run = 0
            while idx < n and kinds[idx] == OP_MATCH:
                run += lens[idx]
                idx += 1
            i0, j0 = i, j
            i += run
            j += run
            gop, glen = -1, 0
            if (i < h or j < w):
                if idx >= n:
                    steps.append((i0, j0, run, gop, glen))
                    break           # inconsistent script: LASTZ would loop; stop here
                gop, glen = kinds[idx], lens[idx]
                idx += 1
                if gop == OP_INS:
                    j += glen
                elif gop == OP_DEL:
                    i += glen
            steps.append((i0, j0, run, gop, glen))
        return steps

    @cached_property
    def _colmasks(self) -> tuple[np.ndarray, np.ndarray]:
        ops = self.ops
        kinds = (ops & 0xF).astype(np.int64)
        lens = (ops >> 4).astype(np.int64)
        t_adv = np.repeat(kinds != OP_INS, lens)
        q_adv = np.repeat(kinds != OP_DEL, lens)
        return t_adv, q_adv

    @cached_property
    def columns(self) -> tuple[np.ndarray, np.ndarray]:
        """Per alignment column, the target and query buffer index (-1 for a gap)."""
        t_adv, q_adv = self._colmasks
        tpos = self.beg1 + np.cumsum(t_adv) - t_adv
        qpos = self.beg2 + np.cumsum(q_adv) - q_adv
        return np.where(t_adv, tpos, -1), np.where(q_adv, qpos, -1)

    @cached_property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Bytes of the substitution (non-gap) columns, in order: (target, query)."""
        tcol, qcol = self.columns
        both = (tcol >= 0) & (qcol >= 0)
        return self.t[tcol[both]], self.q[qcol[both]]

    # --- texts ---

    def _text(self, chars: np.ndarray, col: np.ndarray, gap: int = GAP) -> str:
        out = np.full(col.shape[0], gap, np.uint8)
        ok = col >= 0
        out[ok] = PRINTABLE[chars[col[ok]]]
        return out.tobytes().decode("latin-1")

    @cached_property
    def text1(self) -> str:
        """Gapped target text (original case, '-' for gaps)."""
        return self._text(self.t, self.columns[0])

    @cached_property
    def text2(self) -> str:
        """Gapped query text."""
        return self._text(self.q, self.columns[1])

    # --- statistics ---

    @cached_property
    def identity(self) -> tuple[int, int]:
        """(matches, ACGT pairs) over substitution columns, case ignored (§7)."""
        from ..kernels.alnstats import identity_counts
        m, d = identity_counts(self.ops, self.beg1, self.beg2, self.t, self.q, BITS)
        return int(m), int(d)

    def identity_by_columns(self) -> tuple[int, int]:
        """``identity`` from the substitution columns (``pairs``): the reference."""
        a, b = self.pairs
        b1 = BITS[a]
        b2 = BITS[b]
        ok = (b1 >= 0) & (b2 >= 0)
        d = int(ok.sum())
        if d == 0:
            return 0, 0
        return int((ok & (b1 == b2)).sum()), d

    @cached_property
    def continuity(self) -> tuple[int, int]:
        """(non-gap columns, all columns); (0, 0) when there are no substitutions."""
        nsub = sum(s[2] for s in self.walk)
        if nsub == 0:
            return 0, 0
        gaps = (self.height - nsub) + (self.width - nsub)
        return nsub, nsub + gaps

    @cached_property
    def run_matches(self) -> list[int]:
        """Per walk step, the number of case-insensitively equal pairs (LAV pct)."""
        a, b = self.pairs
        eq = UPPER[a] == UPPER[b]
        cs = np.zeros(eq.shape[0] + 1, np.int64)
        np.cumsum(eq, out=cs[1:])
        bounds = np.cumsum([0] + [s[2] for s in self.walk])
        return (cs[bounds[1:]] - cs[bounds[:-1]]).tolist()

    def percent_identical(self) -> int:
        """LASTZ's percent_identical over a gap-free segment (ACGT pairs only)."""
        m, d = self.identity
        if d == 0:
            return 0
        return (200 * m + d) // (2 * d)

    def ngaps(self) -> int:
        """Number of indel operations (each op counts once)."""
        return sum(1 for s in self.walk if s[3] >= 0)

    def cigar_mid(self, lower: bool = False) -> str:
        """CIGAR with M/D/I (D = target-only, I = query-only); runs of 0 are skipped."""
        m, d, i = ("m", "d", "i") if lower else ("M", "D", "I")
        out = []
        for _i0, _j0, run, gop, glen in self.walk:
            if run > 0:
                out.append(f"{run}{m}")
            if gop == OP_DEL:
                out.append(f"{glen}{d}")
            elif gop == OP_INS:
                out.append(f"{glen}{i}")
        return "".join(out)

    def cigar_eqx(self, hide_singles: bool, lower: bool = False, letter_after: bool = True) -> str:
        """CIGAR marking matches '=' and mismatches 'X' (LASTZ print_cigar_align)."""
        chx, chd, chi = ("x", "d", "i") if lower else ("X", "D", "I")
        a, b = self.pairs
        b1 = BITS[a]
        b2 = BITS[b]
        match = (b1 == b2) & (b1 >= 0)
        out = []
        pos = 0
        for _i0, _j0, run, gop, glen in self.walk:
            if run > 0:
                out.append(mismatch_runs(match[pos:pos + run], chx, hide_singles, letter_after))
                pos += run
            for op, ch in ((OP_DEL, chd), (OP_INS, chi)):
                if gop == op:
                    if not letter_after:
                        out.append(f" {ch} {glen}")
                    elif hide_singles and glen == 1:
                        out.append(ch)
                    else:
                        out.append(f"{glen}{ch}")
        return "".join(out)


def mismatch_runs(match: np.ndarray, chx: str, hide_singles: bool, letter_after: bool) -> str:
    """Run-length encode a match/mismatch flag array as '=' / 'X' runs."""
    n = match.shape[0]
    if n == 0:
        return ""
    change = np.flatnonzero(match[1:] != match[:-1]) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [n]))
    out = []
    for s, e in zip(starts.tolist(), ends.tolist()):
        ch = "=" if match[s] else chx
        ln = e - s
        if not letter_after:
            out.append(f" {ch} {ln}")
        elif hide_singles and ln == 1:
            out.append(ch)
        else:
            out.append(f"{ln}{ch}")
    return "".join(out)


def expand_view(v: AlnView, expand: int) -> AlnView:
    """LASTZ ``--expand=N`` (text formats): ``v`` with N more aligned bases at each end,
    as many as both sequences have (``text_align.c``'s expand_segment); the score stays."""
    left = min(expand, v.beg1, v.beg2)
    right = min(expand, len(v.t) - v.end1, len(v.q) - v.end2)
    if left <= 0 and right <= 0:
        return v
    run = lambda n: np.array([(n << 4) | OP_MATCH], np.uint64)   # noqa: E731
    ops = np.concatenate([run(left)] * (left > 0) + [v.ops] + [run(right)] * (right > 0))
    return AlnView(v.t, v.q, v.beg1 - left, v.end1 + right, v.beg2 - left, v.end2 + right,
                   v.score, ops.astype(np.uint64), v.is_hsp)


class AlnViews(abc.Sequence):
    """One AlnView per alignment, in the given order, each made when asked for.

    A view caches its columns and walk (several KB for a long gapped alignment), so a
    list of them for a whole chromosome's strand would hold gigabytes; made one at a
    time, each is garbage once written."""

    def __init__(self, alns: Alignments, t: np.ndarray, q: np.ndarray, is_hsp: bool):
        self.alns, self.t, self.q, self.is_hsp = alns, t, q, is_hsp
        self._identity = None

    def __len__(self) -> int:
        return len(self.alns)

    def with_identity(self) -> "AlnViews":
        """The same views, each given its ``identity`` from the counts that came with
        the table, or from one kernel call over the whole table (for a short read's
        alignment a call per view costs several times the counting); returns self."""
        a = self.alns
        if self._identity is None and len(a):
            if a.identity is not None:
                m, d = a.identity
            else:
                from ..kernels.alnstats import identity_counts_all
                m, d = identity_counts_all(a.ops, a.ops_start, a.beg1, a.beg2, self.t,
                                           self.q, BITS)
            self._identity = list(zip(m.tolist(), d.tolist()))
        return self

    def _view(self, k: int, b1, e1, b2, e2, score, ops) -> AlnView:
        v = AlnView(self.t, self.q, b1, e1, b2, e2, score, ops, self.is_hsp)
        if self._identity is not None:
            v.__dict__["identity"] = self._identity[k]      # (cached_property's slot)
        return v

    def __getitem__(self, k: int) -> AlnView:
        a = self.alns
        if not -len(a) <= k < len(a):
            raise IndexError(k)
        k %= len(a)
        ops = a.ops[a.ops_start[k]:a.ops_start[k + 1]].astype(np.uint64)
        return self._view(k, a.beg1[k], a.end1[k], a.beg2[k], a.end2[k], a.score[k], ops)

    def __iter__(self):
        # (the columns as lists once: indexing numpy arrays per view cost more than the
        # rest of making it; the edit scripts are slices of one uint64 array)
        a = self.alns
        ops = np.asarray(a.ops, np.uint64)
        starts = a.ops_start.tolist()
        cols = zip(a.beg1.tolist(), a.end1.tolist(), a.beg2.tolist(), a.end2.tolist(),
                   a.score.tolist(), starts[:-1], starts[1:])
        for k, (b1, e1, b2, e2, score, o0, o1) in enumerate(cols):
            yield self._view(k, b1, e1, b2, e2, score, ops[o0:o1])


def views(alns: Alignments, t: np.ndarray, q: np.ndarray, is_hsp: bool) -> AlnViews:
    """The alignments as AlnViews, in the given order (made one at a time)."""
    return AlnViews(alns, t, q, is_hsp)


def degapify(alns: Alignments, t: np.ndarray, q: np.ndarray, sub: np.ndarray) -> Alignments:
    """Split gapped alignments into their gap-free runs (LASTZ print_align_list_segments).

    Each run (including empty runs between back-to-back indels) becomes a segment
    scored by summing ``sub`` over its pairs (LASTZ ``score_match``).
    """
    beg1, beg2, length, score = [], [], [], []
    for v in views(alns, t, q, False):
        for i0, j0, run, _gop, _glen in v.walk:
            p1 = v.beg1 + i0
            p2 = v.beg2 + j0
            beg1.append(p1)
            beg2.append(p2)
            length.append(run)
            if run:
                score.append(run_score(sub, t[p1:p1 + run], q[p2:p2 + run]))
            else:
                score.append(0)
    b1 = np.asarray(beg1, np.int64)
    b2 = np.asarray(beg2, np.int64)
    ln = np.asarray(length, np.int64)
    n = b1.shape[0]
    return Alignments(b1, b1 + ln, b2, b2 + ln,
                      np.asarray(score, np.float64 if sub.dtype.kind == "f" else np.int64),
                      np.arange(n + 1, dtype=np.int64),
                      (ln.astype(np.uint64) << np.uint64(4)) | np.uint64(OP_MATCH),
                      "hsp")


def coverage(v: AlnView, p1: Place, p2: Place) -> tuple[int, int]:
    """LASTZ alignment_coverage: span over the shorter sequence's true length."""
    if p1.true_len < p2.true_len:
        return v.height, p1.true_len
    return v.width, p2.true_len


def pct1(numer: int, denom: int) -> str:
    """'%.1f%%' of numer/denom as LASTZ prints it (caller handles denom == 0)."""
    return "%.1f%%" % ((100.0 * numer) / denom)

