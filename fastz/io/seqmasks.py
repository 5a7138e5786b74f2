"""Masking, separating and reverse-complementing loaded sequence buffers.

Mirrors LASTZ's ``sequences.c`` ``mask_sequence`` / ``mask_sequence_keep`` (interval
files, 1-based closed, relative to the original sequence), ``upper_sequence``,
``separate_sequence`` and ``rev_comp_sequence`` (each partition on its own), all as
whole-array numpy operations.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import InputError

#: LASTZ's nuc_to_complement: A<->T, C<->G, IUPAC letters complemented, case kept,
#: every other byte (N, X, digits, NUL, ...) unchanged.
COMPLEMENT = np.arange(256, dtype=np.uint8)
for _a, _b in ("AT", "CG", "BV", "DH", "KM", "RY", "SS", "WW", "NN"):
    for _x, _y in ((_a, _b), (_b, _a), (_a.lower(), _b.lower()), (_b.lower(), _a.lower())):
        COMPLEMENT[ord(_x)] = ord(_y)
_COMPLEMENT_BYTES = COMPLEMENT.tobytes()

_TO_LOWER = np.arange(256, dtype=np.uint8)
_TO_LOWER[ord("A"):ord("Z") + 1] += 32
_TO_UPPER = np.arange(256, dtype=np.uint8)
_TO_UPPER[ord("a"):ord("z") + 1] -= 32

# sscanf("%u %u%c"): two numbers, then nothing or a blank and anything
_INTERVAL = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)(?![0-9])[ \t\n\v\f\r]*"
                       r"([+-]?[0-9]+)(?![0-9])(?:[ \t].*)?$", re.S)


def upper(chars: np.ndarray) -> np.ndarray:
    """``[unmask]`` for text formats: every a-z becomes A-Z."""
    return _TO_UPPER[chars]


def read_intervals(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of a mask file as int64 arrays (begin, end), 1-based closed."""
    try:
        with open(path, "rb") as fh:
            lines = fh.read().split(b"\n")
    except OSError as exc:
        raise InputError(f'failed to open "{path}" for "rt" ({exc.strerror})') from None
    if lines and lines[-1] == b"":
        lines.pop()
    begins, ends = [], []
    for number, raw in enumerate(lines, 1):
        line = raw[:511].decode("latin-1")
        hash_at = line.find("#")
        if hash_at >= 0:
            line = line[:hash_at]
        line = line.strip(" \t\n")              # (LASTZ's trim_string: blanks and LF only)
        if not line:
            continue
        m = _INTERVAL.match(line)
        if m is None:
            words = len(line.split())
            hint = ("; three-column masking intervals are not supported for this operation"
                    if words == 3 else "")
            raise InputError(f'bad interval (in {path}, line {number}): "{line}"{hint}')
        begins.append(int(m.group(1)) % (1 << 32))
        ends.append(int(m.group(2)) % (1 << 32))
    return np.array(begins, np.int64), np.array(ends, np.int64)


def apply_mask(chars: np.ndarray, spans: list[tuple[int, int]], path: str, start_loc: int,
               how: str, keep: bool) -> None:
    """Mask ``chars`` in place from an interval file (``mask_sequence[_keep]``).

    ``spans`` are the (offset, length) pieces of the buffer the intervals apply to (one
    per partition; each interval is applied relative to every piece).  ``how`` is
    'lower', 'X' or 'N'.
    """
    b, e = read_intervals(path)
    live = e >= start_loc
    b, e = np.maximum(b[live], start_loc) - start_loc, e[live] - (start_loc - 1)
    n = chars.shape[0]
    depth = np.zeros(n + 1, np.int64)
    for offset, length in spans:
        pb, pe = b, np.minimum(e, length)
        ok = (pb < length) & (pe > pb)
        if ok.any():
            depth += np.bincount(pb[ok] + offset, minlength=n + 1)[:n + 1]
            depth -= np.bincount(pe[ok] + offset, minlength=n + 1)[:n + 1]
    covered = np.cumsum(depth[:n]) > 0
    if keep:
        covered = ~covered & (chars != 0)
    if how == "lower":
        chars[covered] = _TO_LOWER[chars[covered]]
    else:
        chars[covered] = ord(how)


def separate(chars: np.ndarray, parts: dict, sep: str) -> dict:
    """Split every partition at runs of ``sep`` (``separate_sequence``), in place.

    ``parts`` holds per-partition arrays: offset, length, start (0-based), and the
    per-record fields copied to each piece (true_length, contig, name index).
    Separator bytes become NUL; empty pieces disappear.
    """
    code = ord(sep)
    offsets, lengths = parts["offset"], parts["length"]
    n = chars.shape[0]
    kept = np.concatenate(([0], np.cumsum(chars != code)))
    if np.any(kept[offsets + lengths] - kept[offsets] == 0):
        raise InputError("internal error in separate_sequence "
                         "(a sequence is empty or contains only separators)")
    inside = np.cumsum(np.bincount(offsets, minlength=n + 1)
                       - np.bincount(offsets + lengths, minlength=n + 1))[:n] > 0
    is_sep = inside & (chars == code)
    chars[is_sep] = 0
    base = inside & ~is_sep                       # bases that stay in some piece
    prev = np.concatenate(([False], base[:-1]))
    nxt = np.concatenate((base[1:], [False]))
    first = np.flatnonzero(base & ~prev)
    last = np.flatnonzero(base & ~nxt)
    owner = np.searchsorted(offsets, first, side="right") - 1
    out = {key: np.asarray(val)[owner] for key, val in parts.items()
           if key not in ("offset", "length", "start")}
    out["offset"] = first
    out["length"] = last + 1 - first
    out["start"] = parts["start"][owner] + (first - offsets[owner])
    return out


def reverse_complement(chars: np.ndarray) -> np.ndarray:
    """Reverse complement of a uint8 ASCII buffer, case kept (``revcomp_in_place``).
    A short one (a read) goes through ``bytes.translate``, at half the cost of numpy's
    indexing, whose one pass a long one keeps (the bytes route makes three copies)."""
    chars = np.asarray(chars, np.uint8)
    if chars.shape[0] > 1 << 16:
        return COMPLEMENT[chars[::-1]]
    # (bytes reversed by slicing: half the cost of copying out numpy's reversed view)
    data = chars.tobytes()[::-1].translate(_COMPLEMENT_BYTES)
    return np.frombuffer(bytearray(data), np.uint8)


def reverse_complement_pieces(chars: np.ndarray, offsets: np.ndarray,
                              lengths: np.ndarray) -> np.ndarray:
    """Reverse-complement each piece [offset, offset+length) in its own place.

    Bytes outside the pieces (the NUL separators) stay where they are.
    """
    return COMPLEMENT[chars[_pieces_reversed(chars.shape[0], offsets, lengths)]]


def reverse_pieces(values: np.ndarray, offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each piece [offset, offset+length) reversed in its own place (a partitioned
    sequence's qualities, as LASTZ's ``rev_comp_sequence`` reverses them)."""
    return values[_pieces_reversed(values.shape[0], offsets, lengths)]


def _pieces_reversed(n: int, offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indexes of n bytes with each piece's reversed and the others kept."""
    src = np.arange(n, dtype=np.int64)
    total = int(lengths.sum())
    if total:
        piece_start = np.repeat(offsets, lengths)
        run_start = np.repeat(np.cumsum(lengths) - lengths, lengths)
        pos = piece_start + (np.arange(total) - run_start)
        src[pos] = np.repeat(2 * offsets + lengths - 1, lengths) - pos
    return src
