"""Simulated short reads (for the read-set tests and ``bench/reads.py``).

Reads are drawn from a FASTA record at random positions, half of them
reverse-complemented, each base replaced by a random one with probability ``error``;
the same seed gives the same reads.
"""
from __future__ import annotations

import random
from pathlib import Path

_COMPLEMENT = str.maketrans("ACGTacgt", "TGCAtgca")


def first_record(path: Path) -> str:
    """The bases of the first record of a FASTA file."""
    lines = []
    with open(path) as f:
        next(f)
        for line in f:
            if line.startswith(">"):
                break
            lines.append(line.strip())
    return "".join(lines)


def simulate_reads(source: str, n: int, length: int, error: float = 0.01, seed: int = 1,
                   lengths: tuple[int, int] | None = None) -> str:
    """FASTA text of ``n`` reads named read0, read1, ...; ``lengths`` (lo, hi) draws
    each read's length uniformly instead of ``length``."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        size = rng.randint(*lengths) if lengths else length
        start = rng.randrange(len(source) - size)
        read = source[start:start + size]
        if rng.random() < 0.5:
            read = read.translate(_COMPLEMENT)[::-1]
        read = "".join(rng.choice("ACGT") if rng.random() < error else ch for ch in read)
        out.append(f">read{i}\n{read}\n")
    return "".join(out)


def as_fastq(text: str, rng: random.Random, quals: tuple[int, int] = (33, 126),
             plus_header: float = 0.0) -> str:
    """``simulate_reads``' FASTA text (one line a record) as FASTQ: random qualities
    (bytes in ``quals``), the '+' line repeating the header for a share
    ``plus_header`` of the records (drawn before each record's qualities)."""
    lines = text.split("\n")
    out = []
    for h, b in zip(lines[0::2], lines[1::2]):
        if not h:
            continue
        plus = h[1:] if plus_header and rng.random() < plus_header else ""
        q = "".join(chr(rng.randint(*quals)) for _ in b)
        out.append(f"@{h[1:]}\n{b}\n+{plus}\n{q}\n")
    return "".join(out)
