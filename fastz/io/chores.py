"""``--chores=FILE`` (or the query action ``[chores=FILE]``): LASTZ's alignment chores.

Each line names a target interval and a query interval (and optionally one query
strand and a tag); the query is aligned once per chore, and a chore sees only the
seed hits lying wholly inside both intervals; NUL fences just outside them stop its
gap-free extensions (``fenced``), and its gapped extensions stop at their ends (LASTZ
``lastz.c``: ``resolve_chore_target``, ``resolve_chore_query``, ``start_one_strand``;
``sequences.c``: ``read_chore``, ``fence_sequence_interval``).

Chores name their queries in query-file order.  LASTZ 1.04.22 looks for the next
chore's query past the record it last loaded, even when the chore names that very
record again, so in a FASTA or FASTQ file two chores in a row on one query fail ("does
not contain (or contains out of order)"), or, on the file's last record, end the run
quietly; a 2bit file re-uses the record.  fastz does the same.
"""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Iterator

from ..errors import InputError
from ..records import ChoreWindow, Sequence, strand_length
from .seqnames import _comment_at

#: LASTZ's chore line buffer (fgets into 512 bytes), name and tag sizes.
_LINE_BYTES = 511
_NAME_BYTES = 255
_TAG_BYTES = 15


@dataclass(frozen=True)
class Chore:
    """One line of a chores file, as written (positions origin-one, closed)."""

    target: str | None           # None: the wildcard '*'
    t_range: tuple[int, int] | None
    query: str
    q_range: tuple[int, int] | None
    strand: str                  # "+", "-" or "" (both)
    tag: str


def _number(field: str, path: str, line_no: int) -> int:
    """``sscanf("%u")`` that must use the whole field (LASTZ's bad_field otherwise)."""
    text = field[1:] if field[:1] in "+-" else field
    if not text.isdigit() or not text.isascii():
        raise InputError(f'bad chore field (in {path}, line {line_no}): "{field}"')
    value = int(text) % (1 << 32)
    return (-value) % (1 << 32) if field[0] == "-" else value


def _is_strand(word: str | None) -> bool:
    return word in ("+", "-")


def read_chores(path: str) -> Iterator[Chore]:
    """The chores of ``path`` in file order; a bad line raises LASTZ's message when it
    is reached."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InputError(f'failed to open "{path}" for "rt" ({exc.strerror})') from None
    with fh:
        line_no = 0
        while True:
            raw = fh.readline(_LINE_BYTES)
            if not raw:
                return
            line_no += 1
            if not raw.endswith(b"\n"):
                fh.readline()                  # (the rest of a long line is dropped)
            line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
            cut = _comment_at(line)
            if cut >= 0:
                line = line[:cut]
            line = line.strip(" \t\n")         # (LASTZ's trim_string: blanks and LF)
            if line:
                yield _parse(line, path, line_no)


def _parse(line: str, path: str, line_no: int) -> Chore:
    where = f"(in {path}, line {line_no})"
    words = line.split()
    if len(words) < 4:
        raise InputError(f'bad chore {where}: "{line}"\nnot enough fields in line')
    t_name, t_start, t_end, q_name = words[:4]
    rest = words[4:]
    q_start = q_end = None
    if rest and not _is_strand(rest[0]) and not rest[0].startswith("id="):
        if len(rest) < 2:
            raise InputError(f'bad chore {where}: "{line}"\n'
                             "has start of query subrange but not end")
        q_start, q_end = rest[:2]
        rest = rest[2:]
    strand = ""
    if rest and _is_strand(rest[0]):
        strand = rest.pop(0)
    tag = ""
    if rest and rest[0].startswith("id="):
        tag = rest.pop(0)[3:]
    if rest:
        extra = line[_offset_of(line, words, len(words) - len(rest)):]
        raise InputError(f'bad chore {where}: "{line}"\nextra fields in line: "{extra}"')
    t_range = _interval(t_start, t_end, "target", where, path, line_no)
    q_range = None
    if q_start is not None:
        q_range = _interval(q_start, q_end, "query", where, path, line_no)
    if len(t_name.encode()) > _NAME_BYTES:
        raise InputError(f'chore target name too long {where}: "{t_name}"')
    if len(q_name.encode()) > _NAME_BYTES:
        raise InputError(f'chore query name too long {where}: "{q_name}"')
    if len(tag.encode()) > _TAG_BYTES:
        raise InputError(f"chore id tag too long, allowed length is {_TAG_BYTES} "
                         f'{where}: "{tag}"')
    return Chore(None if t_name == "*" else t_name, t_range, q_name, q_range, strand, tag)


def _offset_of(line: str, words: list[str], k: int) -> int:
    """Where the ``k``-th blank-separated word of ``line`` starts."""
    at = 0
    for i, word in enumerate(words):
        at = line.index(word, at)
        if i == k:
            return at
        at += len(word)
    return len(line)


def _interval(start: str, end: str, which: str, where: str, path: str, line_no: int):
    """(start, end) origin-one closed, or None for ``* *`` (LASTZ's checks, in its
    order; a query interval's end is never compared with its start)."""
    lo = None
    if start != "*":
        lo = _number(start, path, line_no)
        if lo == 0:
            raise InputError(f"bad chore {which} interval {where}\nstart cannot be zero")
    if end == "*":
        if lo is not None:
            raise InputError(f"bad chore {which} interval {where}: {lo} *\n"
                             "can't wildcard end and not start")
        return None
    hi = _number(end, path, line_no)
    if lo is None:
        raise InputError(f"bad chore {which} interval {where}: * {hi}\n"
                         "can't wildcard start and not end")
    if which == "target" and hi <= lo:
        raise InputError(f"bad chore target interval {where}: {lo}>={hi}")
    return lo, hi


# --- a chore's intervals in the sequence buffers ------------------------------------


def target_interval(chore: Chore, target: Sequence) -> tuple[int, int]:
    """[lo, hi) of the chore's target interval in the target buffer (LASTZ
    ``resolve_chore_target``)."""
    fname = target.filename
    parts = target.partitions
    if parts is None:
        if chore.target is not None and chore.target != target.name:
            raise InputError(f"chore target {chore.target} is mismatch for "
                             f"{target.header} in target file ({fname})")
        n = strand_length(target.chars)
        if chore.t_range is None:
            return 0, n
        return _inside("target", chore.target, chore.t_range, target.start, n, 0)
    if chore.target is None:
        raise InputError("wildcard target in chore can't be used with a multiple sequence "
                         f"target file ({fname})")
    if chore.target not in parts.names:
        raise InputError(f"chore target {chore.target} does not exist in target file "
                         f"({fname})")
    if chore.t_range is None:
        first = parts.names.index(chore.target)
        return int(parts.offset[first]), int(parts.offset[first] + parts.length[first])
    # the piece of that name holding the interval's first base (a record split by
    # separators, or given twice, has several)
    k = parts.named_at(chore.target, chore.t_range[0])
    if k is None:
        raise InputError(f"bad chore target name/position: {chore.target} "
                         f"{chore.t_range[0]}")
    return _inside("target", chore.target, chore.t_range, int(parts.start[k]),
                   int(parts.length[k]), int(parts.offset[k]))


def _inside(which: str, name, rng, seq_start: int, length: int,
            offset: int) -> tuple[int, int]:
    """Buffer [lo, hi) of the origin-one closed ``rng`` in a piece of ``length`` bases
    loaded from ``seq_start`` and placed at ``offset``, or LASTZ's range error."""
    lo, hi = rng[0] - 1, rng[1]
    if lo < seq_start:
        raise InputError(f"chore {which} interval out of range on {name} "
                         f"({lo + 1}<{seq_start + 1})")
    if hi > seq_start + length:
        raise InputError(f"chore {which} interval out of range on {name} "
                         f"({hi}>{seq_start + length})")
    return offset + lo - seq_start, offset + hi - seq_start


def query_interval(chore: Chore, query: Sequence, minus: bool) -> tuple[int, int]:
    """[lo, hi) of the chore's query interval in the query's strand buffer (LASTZ
    ``resolve_chore_query``; ``minus``: the reverse strand's buffer).  An interval
    whose start is past its end is empty."""
    n = strand_length(query.chars)
    if chore.q_range is None:
        return 0, n
    lo, hi = _inside("query", chore.query, chore.q_range, query.start, n, 0)
    return (n - hi, n - lo) if minus else (lo, hi)


def chore_windows(chore: Chore, target: Sequence, query: Sequence,
                  stages: int) -> list[ChoreWindow]:
    """The windows of the chore's first ``stages`` strand stages (LASTZ's checks
    first): LASTZ resolves the query interval on the plus strand for the first stage
    (whichever strand ``--strand`` makes it) and on the minus strand for the second."""
    t_lo, t_hi = target_interval(chore, target)
    return [ChoreWindow(t_lo, t_hi, *query_interval(chore, query, minus=k == 1), chore.tag,
                        chore.strand)
            for k in range(stages)]


def fenced(target: Sequence, query: Sequence):
    """While a chore's seed search runs, LASTZ writes a NUL just outside each of its
    intervals (``fence_sequence_interval``), so no gap-free extension crosses them;
    the bytes are put back afterwards.  A no-op for a query with no chore (a plain
    ``nullcontext``: every read's strand passes here)."""
    return nullcontext() if query.chore is None else _fenced(target, query, query.chore)


@contextmanager
def _fenced(target: Sequence, query: Sequence, window):
    saved = []
    for chars, lo, hi in ((target.chars, window.t_lo, window.t_hi),
                          (query.chars, window.q_lo, window.q_hi)):
        for at in (lo - 1, hi):
            if 0 <= at < chars.shape[0]:
                saved.append((chars, at, int(chars[at])))
                chars[at] = 0
    try:
        yield
    finally:
        for chars, at, byte in reversed(saved):
            chars[at] = byte
