"""``--tableonly`` and ``--showtable``: the target's seed-word table as text.

LASTZ writes it after building (and ``--maxwordcount``-limiting) the table and before
any query is read (``lastz.c``; ``pos_table.c`` ``dump_position_table``,
``position_table_count_distribution``):

* ``table``: ``KEY/WORD: p1,p2,...`` per word present, window ends (exclusive,
  0-based, in the target buffer) descending;
* ``count``: ``KEY/WORD: n``; ``andcount``: ``KEY/WORD: n p1,p2,...``;
* ``distribution``: ``count words`` lines, counts ascending.

``KEY`` is the word packed as LASTZ packs it, and the lines go by it: LASTZ moves the
seed's bits into place with a few masked shifts (``seeds.c``, built greedily), so its
key is a permutation of the bits of fastz's own (``kernels.seeding``).  Each but the
distribution is followed by an empty line written to stdout, even when ``--output``
names a file (LASTZ's ``printf``).
"""
from __future__ import annotations

from typing import TextIO

import numpy as np

from ..kernels import seeding as kseed

_TITLES = {"table": "seed-word positions table", "count": "seed-word counts table",
           "andcount": "seed-word counts and positions table",
           "distribution": "seed-word counts distribution table"}

#: Words formatted per chunk: bounds the text held in memory at once.
CHUNK_WORDS = 1 << 18

#: Bytes a number takes at most in the table's text (a u64 in decimal).
_NUMBER_BYTES = 20


def write_seed_table(out: TextIO, index, filename: str, mode: str, stdout: TextIO) -> None:
    """Write the table of ``index`` (a ``pipeline.seeding.SeedIndex``) in ``mode``;
    the closing empty line goes to ``stdout`` (``formats.stdout_for_quirks``)."""
    out.write(f"{_TITLES[mode]} for {filename}:\n")
    keys, starts, counts = index_words(index)
    if mode == "distribution":
        values, words = np.unique(counts, return_counts=True)
        out.write("".join(f"{c} {w}\n" for c, w in zip(values.tolist(), words.tolist())))
        return
    spec = index.spec
    pattern = pattern_bits(spec.pattern)
    shown = lastz_keys(keys, spec.pattern, spec.halfweight)
    order = np.argsort(shown, kind="stable")
    hex_digits = (spec.weight + 3) // 4
    word_bytes = hex_digits + len(spec.pattern) + 4 + _NUMBER_BYTES
    for a in range(0, order.shape[0], CHUNK_WORDS):
        w = order[a:a + CHUNK_WORDS]
        size = w.shape[0] * word_bytes + int(counts[w].sum()) * (_NUMBER_BYTES + 1)
        buf = np.empty(size, np.uint8)
        n = kseed.seed_table_text(keys[w], shown[w], starts[w], counts[w], index.pos,
                                  pattern, hex_digits, mode != "table", mode != "count", buf)
        out.write(buf[:n].tobytes().decode("ascii"))
    stdout.write("\n")


def index_words(index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, first entry, number of entries) of each word in ``index``, keys
    ascending."""
    bounds = kseed.word_bounds(index.dir_, index.low, index.low_bits)
    starts = bounds[:-1]
    keys = (np.searchsorted(index.dir_, starts, side="right") - 1).astype(np.int64)
    if index.low_bits > 0:
        keys = (keys << index.low_bits) | index.low[starts]
    return keys, starts, np.diff(bounds)


def pattern_bits(pattern: str) -> np.ndarray:
    """Key bits of each seed position: 2 for a ``1``, 1 for a ``T``, 0 for a ``0``."""
    return np.array([{"1": 2, "T": 1}.get(ch, 0) for ch in pattern], np.int64)


def lastz_packing(pattern: str, halfweight: bool) -> list[tuple[int, int]]:
    """LASTZ's (right shift, mask) pairs that pack a seed's bits into its key.

    The word holds 2 bits per position (1 for a half-weight seed), the first position
    most significant; a ``1`` position uses both, a ``T`` position its low bit.  The
    bits already in the key's range stay put; then, until every key bit is filled,
    the shift that brings the most seed bits into unfilled places is taken (the
    smallest such shift on a tie).
    """
    per = 1 if halfweight else 2
    seed_bits = 0
    for bits in pattern_bits(pattern).tolist():      # (a half-weight seed has no '1')
        seed_bits = (seed_bits << per) | ((1 << bits) - 1)
    full = (1 << bin(seed_bits).count("1")) - 1
    covered = seed_bits & full
    rest = seed_bits - covered
    parts = [(0, covered)]
    while covered != full:
        open_bits = ~covered & full
        best, shift = -1, 0
        for s in range(rest.bit_length()):
            gain = bin((rest >> s) & open_bits).count("1")
            if gain > best:
                best, shift = gain, s
        mask = (rest >> shift) & open_bits
        covered |= mask
        rest -= mask << shift
        parts.append((shift, mask))
    return parts


def lastz_keys(keys: np.ndarray, pattern: str, halfweight: bool) -> np.ndarray:
    """LASTZ's key of each of fastz's keys (``pattern`` over ``1``/``T``/``0``)."""
    per = 1 if halfweight else 2
    widths = pattern_bits(pattern).tolist()
    # unpack: each care position's bits back to its place in the word
    word = np.zeros_like(keys)
    key_shift = sum(widths)
    for i, bits in enumerate(widths):
        if bits == 0:
            continue
        key_shift -= bits
        word |= ((keys >> key_shift) & ((1 << bits) - 1)) << (per * (len(pattern) - 1 - i))
    packed = np.zeros_like(keys)
    for shift, mask in lastz_packing(pattern, halfweight):
        packed |= (word >> shift) & mask
    return packed
