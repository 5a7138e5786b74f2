#!/usr/bin/env python3
"""The seed search of one query strand in bucket-range parts (``filtering.search_parts``)
against the single search, side by side: median seconds of ``--repeats`` runs each,
and whether the rows are identical.

The pair is the first record of each side of E. coli K-12 / Salmonella LT2 (default
seed 12of19 with one transition, x-drop, entropy, as in a default run).

    python bench/seed_parts.py [--threads 1 2 4] [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PAIR = REPO.parent / "shared" / "data" / "pairs" / "ecoli_K12_vs_salmonella_LT2"


def first_record(path: Path) -> np.ndarray:
    """The first record's characters (``kernel.py``'s reader), upper case, with LASTZ's
    NUL at each end."""
    from kernel import _first_record
    chars = _first_record(path)
    out = np.zeros(chars.shape[0] + 2, np.uint8)
    out[1:-1] = np.frombuffer(chars.tobytes().upper(), np.uint8)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from fastz.pipeline.filtering import find_hsps
    from fastz.pipeline.seeding import build_index
    from fastz.scoring import build_scoreset
    t, q = first_record(PAIR / "target.fa"), first_record(PAIR / "query.fa")
    masked = build_scoreset().masked
    index = build_index(t, "12of19", 1)

    def search(threads):
        st = {}
        h = find_hsps(index, t, q, None, 1, masked, 910, 3000, True, stats=st, threads=threads)
        return h, st

    for n in a.threads:                      # compile, warm the caches
        search(n)
    times = {n: [] for n in a.threads}
    rows = {}
    for _ in range(a.repeats):               # interleaved: the machine's drift hits all
        for n in a.threads:
            t0 = time.perf_counter()
            rows[n], st = search(n)
            times[n].append(time.perf_counter() - t0)
    base = statistics.median(times[a.threads[0]])
    print(f"query {len(q) - 2:,} bp, target {len(t) - 2:,} bp, {st['raw_hits']:,} seed hits, "
          f"{rows[a.threads[0]].shape[0]:,} HSPs; medians of {a.repeats}")
    print("| threads | seconds | speed-up | identical |\n|---|---|---|---|")
    for n in a.threads:
        med = statistics.median(times[n])
        same = np.array_equal(rows[n], rows[a.threads[0]])
        print(f"| {n} | {med:.2f} | {base / med:.2f}x | {'yes' if same else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
