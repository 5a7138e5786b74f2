"""Records passed between stages: plain numpy arrays, no per-item objects.

Coordinates are 0-based offsets into a loaded sequence buffer (``Sequence.chars``);
for the query's minus strand they are offsets into the reverse-complemented buffer,
as in LASTZ.  Only the writers in ``fastz.io.formats`` convert to 1-based or to
original-sequence coordinates.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

# --- Sequences -----------------------------------------------------------------


@dataclass
class Partitions:
    """Sub-sequences of a partitioned sequence (``[multiple]``), one entry each.

    The buffer holds a NUL byte before the first sub-sequence, between each pair and
    after the last, as LASTZ lays it out, so no extension can cross a boundary.
    """

    offset: np.ndarray            # int64: index in Sequence.chars of the sub-sequence's first base
    length: np.ndarray            # int64: loaded length of each sub-sequence
    start: np.ndarray             # int64: 0-based start of the loaded subrange in the source record
    true_length: np.ndarray       # int64: full length of the source record
    contig: np.ndarray            # int64: 1-based index of the record in its file
    names: list[str]              # short names (AXT/MAF/general/...)
    headers: list[str]            # full headers (LAV h stanza)
    # ``offset`` as a list, made on the first scalar ``locate``
    _offsets: list | None = field(default=None, init=False, repr=False, compare=False)

    def locate(self, pos: np.ndarray | int) -> np.ndarray | int:
        """Index of the sub-sequence holding buffer position(s) ``pos``."""
        if isinstance(pos, (int, np.integer)):
            # (a writer asks once per alignment: searchsorted costs microseconds a
            # scalar, bisect on a list a fraction of one)
            if self._offsets is None:
                self._offsets = self.offset.tolist()
            return bisect.bisect_right(self._offsets, pos) - 1
        return np.searchsorted(self.offset, pos, side="right") - 1

    def named_at(self, name: str, pos1based: int) -> int | None:
        """Index of the sub-sequence named ``name`` whose source range holds
        ``pos1based`` (LASTZ ``lookup_partition_seq_pos``), or None."""
        for k, nm in enumerate(self.names):
            lo = int(self.start[k]) + 1
            if nm == name and lo <= pos1based < lo + int(self.length[k]):
                return k
        return None


@dataclass(frozen=True)
class ChoreWindow:
    """A ``--chores`` line as one query strand buffer sees it (``fastz.io.chores``):
    seed hits must lie in target ``[t_lo, t_hi)`` and query ``[q_lo, q_hi)``, and
    gapped extension stays inside them."""

    t_lo: int
    t_hi: int
    q_lo: int
    q_hi: int
    tag: str                      # id=<tag> ("" without one)
    strand: str = ""              # the chore's strand: "+", "-" or "" (both)

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        return self.t_lo, self.t_hi, self.q_lo, self.q_hi


@dataclass
class Sequence:
    """One loaded sequence (or one partitioned group of sequences)."""

    chars: np.ndarray             # uint8 ASCII bytes as LASTZ stores them (case kept), after
                                  # subrange extraction, masking and reverse complement
    name: str                     # short name (LASTZ's name parsing, section 2.2 of the spec)
    header: str                   # full header as LAV prints it (e.g. "> cat")
    filename: str                 # file name as LAV's s stanza prints it ("(stdin)" for stdin)
    contig: int = 1               # 1-based index of the record in its file
    start: int = 0                # 0-based start of the loaded subrange in the source record
    true_length: int = 0          # length of the whole source record
    revcomp: bool = False         # loaded reverse-complemented (trailing '-' / revcomp action)
    partitions: Partitions | None = None   # set for [multiple] / separator sequences
    chore: ChoreWindow | None = None       # --chores: the chore this strand buffer is for
    quals: np.ndarray | None = None        # FASTQ base-call qualities (uint8), index for
                                           # index with ``chars`` (reversed with it, 0 at
                                           # separators); None: the file has none

    def __len__(self) -> int:
        return int(self.chars.shape[0])


def strand_length(chars: np.ndarray) -> int:
    """Length LASTZ uses for a buffer: a trailing NUL (partition terminator) is not counted."""
    n = int(chars.shape[0])
    if n > 0 and chars[n - 1] == 0:
        n -= 1
    return n


# --- Stage boundaries -----------------------------------------------------------------

#: HSPs / seed hits, in discovery order.  pos = start of the gap-free segment.
HSP_DTYPE = np.dtype([
    ("pos1", np.int64),      # 0-based start in the target buffer
    ("pos2", np.int64),      # 0-based start in the query strand buffer
    ("length", np.int64),    # number of aligned columns
    ("score", np.int64),     # (entropy-adjusted) score
])

#: fastz_D's HSPs (lastz_D): the same with a double score, whose entropy adjustment
#: keeps its fraction.
HSP_DOUBLE_DTYPE = np.dtype([(name, np.float64 if name == "score" else np.int64)
                             for name in HSP_DTYPE.names])

#: Anchor points in processing order (score desc, pos2 asc, pos1 asc).
ANCHOR_DTYPE = np.dtype([
    ("pos1", np.int64),      # 0-based target position of the anchor base pair
    ("pos2", np.int64),      # 0-based query (strand buffer) position
    ("score", np.int64),     # score of the HSP the anchor came from
])

# CIGAR-like edit operations, BAM encoded as (run_length << 4) | op.
OP_MATCH = 0      # substitution run: target and query both advance
OP_INS = 1        # query base against a gap (query advances): LASTZ's "insertion"
OP_DEL = 2        # target base against a gap (target advances): LASTZ's "deletion"


_EMPTY: dict = {}          # Alignments.empty's instances


def concat_buffers(bufs: list) -> tuple[np.ndarray, np.ndarray]:
    """Many strand buffers as one: (uint8 concatenation, int64 offsets), buffer s
    being ``cat[offsets[s]:offsets[s + 1]]`` (the batched kernels' input)."""
    qs = [np.ascontiguousarray(b, dtype=np.uint8) for b in bufs]
    offsets = np.zeros(len(qs) + 1, np.int64)
    np.cumsum([q.shape[0] for q in qs], out=offsets[1:])
    return (np.concatenate(qs) if qs else np.zeros(0, np.uint8)), offsets


def concat_records(arrays: list, dtype: np.dtype) -> np.ndarray:
    """``np.concatenate`` of contiguous 1-D arrays of one structured ``dtype``, as
    bytes: numpy promotes a structured dtype's fields once per array (5 us each,
    and a batch of reads has tens of thousands of small HSP tables)."""
    if not arrays:
        return np.zeros(0, dtype)
    if any(a.dtype != dtype for a in arrays):
        return np.concatenate(arrays)               # (mixed: numpy's promotion)
    return np.concatenate([np.ascontiguousarray(a).view(np.uint8) for a in arrays]).view(dtype)


@dataclass
class Alignments:
    """Alignments of one query strand against the target, in output order."""

    beg1: np.ndarray              # int64: 0-based target start
    end1: np.ndarray              # int64: target end, exclusive
    beg2: np.ndarray              # int64: 0-based query start (strand buffer)
    end2: np.ndarray              # int64: query end, exclusive
    score: np.ndarray             # int64 (fastz_D's HSPs: float64)
    ops_start: np.ndarray         # int64[n+1]: ops of alignment k are ops[ops_start[k]:ops_start[k+1]]
    ops: np.ndarray               # uint64: (run_length << 4) | OP_*
    kind: str = "gapped"          # "gapped" | "hsp" | "hit": LAV percent identity differs
    # (matches, ACGT pairs) per alignment (AlnView.identity), where counted with the
    # table; a new table made from this one (subset, concat, ...) counts them again
    identity: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return int(self.beg1.shape[0])

    @classmethod
    def empty(cls, kind: str = "gapped") -> "Alignments":
        """No alignments: one shared instance per kind, its arrays read-only (most
        reads' strands have none, and making them cost a microsecond each)."""
        made = _EMPTY.get(kind)
        if made is None:
            z = np.zeros(0, np.int64)
            arrays = [z, np.zeros(1, np.int64), np.zeros(0, np.uint64)]
            for a in arrays:
                a.flags.writeable = False
            made = _EMPTY[kind] = cls(z, z, z, z, z, *arrays[1:], kind)
        return made

    @classmethod
    def from_hsps(cls, hsps: np.ndarray, kind: str = "hsp") -> "Alignments":
        """Gap-free segments (HSP_DTYPE rows) as alignments with a single match run."""
        n = hsps.shape[0]
        length = hsps["length"].astype(np.int64)
        return cls(
            beg1=hsps["pos1"].astype(np.int64),
            end1=(hsps["pos1"] + length).astype(np.int64),
            beg2=hsps["pos2"].astype(np.int64),
            end2=(hsps["pos2"] + length).astype(np.int64),
            score=hsps["score"].astype(np.float64 if hsps["score"].dtype.kind == "f"
                                       else np.int64),
            ops_start=np.arange(n + 1, dtype=np.int64),
            ops=((length.astype(np.uint64) << np.uint64(4)) | np.uint64(OP_MATCH)).astype(np.uint64),
            kind=kind,
        )

    def cigar(self, k: int) -> list[tuple[int, int]]:
        """Edit script of alignment k as [(op, run_length), ...]."""
        run = self.ops[self.ops_start[k]:self.ops_start[k + 1]]
        return [(int(x) & 0xF, int(x) >> 4) for x in run]

    @classmethod
    def concat(cls, parts: list["Alignments"]) -> "Alignments":
        """The alignments of ``parts`` (all of one kind), in the order given."""
        if not parts:
            return cls.empty()
        counts = np.concatenate([np.diff(a.ops_start) for a in parts])
        starts = np.zeros(counts.shape[0] + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        cat = lambda name: np.concatenate([getattr(a, name) for a in parts])  # noqa: E731
        return cls(cat("beg1"), cat("end1"), cat("beg2"), cat("end2"), cat("score"),
                   starts, cat("ops").astype(np.uint64), parts[0].kind)

    def subset(self, keep: np.ndarray) -> "Alignments":
        """Alignments selected by a boolean mask or index array, order kept."""
        idx = np.arange(len(self))[keep]
        counts = np.diff(self.ops_start)[idx]
        starts = np.zeros(idx.shape[0] + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        # each kept alignment's runs, gathered at once: run j of the result comes
        # from ops_start[k] + (j - starts[k's rank])
        src = np.repeat(self.ops_start[idx] - starts[:-1], counts) + np.arange(starts[-1])
        ops = self.ops[src]
        return Alignments(self.beg1[idx], self.end1[idx], self.beg2[idx], self.end2[idx],
                          self.score[idx], starts, ops.astype(np.uint64), self.kind)


@dataclass
class StrandResult:
    """What one query strand produced, ready for the writers."""

    query: Sequence               # the strand buffer (reverse-complemented for '-')
    strand: str                   # "+" or "-"
    alignments: Alignments
    stats: dict = field(default_factory=dict)
    text: str | None = None       # the strand's output, when a worker rendered it
    count: int | None = None      # the alignments in ``text`` when their arrays stayed
                                  # in the worker (``alignments`` is then empty)

    def n_alignments(self) -> int:
        return len(self.alignments) if self.count is None else self.count
