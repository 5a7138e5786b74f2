#!/usr/bin/env python3
"""A chromosome-sized synthetic pair, for checking fastz at 100 Mb+ against lastz.

The shared pairs stop at a few megabases; a demanding user aligns chromosomes.  This
writes, from a fixed random seed, a target of ``--target-mb`` megabases and a query of
diverged pieces of it:

* the target is random DNA with interspersed repeats covering about 5 % of it: 20
  families of 300 bp, copied at 10 % divergence (1,000 copies each in 120 Mb),
  soft-masked (lower case) as RepeatMasker leaves a real genome, except one copy in
  50, left in upper case so that some repeats do seed;
* the query is ``--pieces`` pieces of 50 kb taken from the target, each with 12 %
  substitutions and 1 % deletions, every other one reverse-complemented, separated by
  5 kb of random DNA.

    python bench/synthetic.py DIR [--target-mb 120] [--pieces 40]
    python bench/run.py synthetic120      # writes the pair once, then times both tools

Writes DIR/target.fa and DIR/query.fa (60 bases a line).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

BASES = np.frombuffer(b"ACGT", dtype=np.uint8)
FAMILIES, FAMILY_LEN, BASES_PER_COPY, UNMASKED_ONE_IN = 20, 300, 6_000, 50
PIECE, SPACER, PIECES = 50_000, 5_000, 40


def _complement_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint8)
    table[np.frombuffer(b"ACGTacgt", np.uint8)] = np.frombuffer(b"TGCAtgca", np.uint8)
    return table


def _random_dna(rng, n: int) -> np.ndarray:
    return BASES[rng.integers(0, 4, n)]


def _mutate(rng, seq: np.ndarray, rate: float) -> np.ndarray:
    seq = seq.copy()
    hit = rng.random(len(seq)) < rate
    seq[hit] = _random_dna(rng, int(hit.sum()))
    return seq


def make_pair(target_len: int, pieces: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """(target, query) as uint8 ASCII arrays."""
    rng = np.random.default_rng(seed)
    target = _random_dna(rng, target_len)
    families = [_random_dna(rng, FAMILY_LEN) for _ in range(FAMILIES)]
    copies = max(FAMILIES, target_len // BASES_PER_COPY)
    for i in range(copies):
        copy = _mutate(rng, families[i % FAMILIES], 0.10)
        at = rng.integers(0, target_len - FAMILY_LEN)
        # ASCII upper + 32 = lower case: soft-masked
        target[at:at + FAMILY_LEN] = copy if i < copies // UNMASKED_ONE_IN else copy + 32
    complement = _complement_table()
    parts = []
    for i in range(pieces):
        at = rng.integers(0, target_len - PIECE)
        piece = _mutate(rng, target[at:at + PIECE], 0.12)
        piece = piece[rng.random(len(piece)) > 0.01]
        parts += [complement[piece[::-1]] if i % 2 else piece, _random_dna(rng, SPACER)]
    return target, np.concatenate(parts)


def write_fasta(path: Path, name: str, seq: np.ndarray, width: int = 60) -> None:
    pad = (-len(seq)) % width
    rows = np.concatenate([seq, np.full(pad, ord("\n"), np.uint8)]).reshape(-1, width)
    text = np.hstack([rows, np.full((len(rows), 1), ord("\n"), np.uint8)]).tobytes()
    if pad:                          # the last row's padding newlines, all but one
        text = text[:-pad]
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(b">" + name.encode() + b"\n" + text)
    tmp.rename(path)


def write_pair(out: Path, target_mb: float, pieces: int = PIECES) -> None:
    out.mkdir(parents=True, exist_ok=True)
    target, query = make_pair(int(target_mb * 1_000_000), pieces)
    write_fasta(out / "target.fa", "chrSynth", target)
    write_fasta(out / "query.fa", "pieces", query)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--target-mb", type=float, default=120)
    ap.add_argument("--pieces", type=int, default=PIECES)
    a = ap.parse_args(argv)
    write_pair(a.out, a.target_mb, a.pieces)
    return 0


if __name__ == "__main__":
    sys.exit(main())
