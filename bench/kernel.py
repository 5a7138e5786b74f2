#!/usr/bin/env python3
"""DP cells per second of the CPU y-drop kernel (``kernels.ydrop.one_sided``).

Three workloads, each timed as the best of several repeats (these shared machines are
noisy; compare figures from one run only):

* ``ecoli``: the top E. coli K-12 / Salmonella LT2 alignment (52 kb, 86 % identity),
  extended forward from its first cell, as in the default-mode benchmark;
* ``homolog``: a 100 kb random sequence and a copy with 12 % substitutions, 2 % indels;
* ``tails``: 200 extensions between unrelated random 3 kb sequences, the y-drop
  tails that dominate ``--nogfextend`` runs (most seed hits fail).

Modes: ``single`` (one pass, traceback byte per cell, LASTZ's way), ``inspector``
(scores only, FastZ's first pass) and ``scalar`` (``single`` with ``--noytrim``, whose
rows take the cell-by-cell ``dpcells.sweep_row`` instead of the SIMD passes: the loop
the GPU thread mapping runs).

    python bench/kernel.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PAIR = REPO.parent / "shared" / "data" / "pairs" / "ecoli_K12_vs_salmonella_LT2"


def _first_record(path: Path) -> np.ndarray:
    text = path.read_bytes().split(b"\n>")[0].split(b"\n", 1)[1]
    return np.frombuffer(text.replace(b"\n", b""), np.uint8)


def workloads(rng):
    sys.path.insert(0, str(REPO / "tests"))
    from test_ydrop import make_pair
    out = {}
    if PAIR.is_dir():
        t = _first_record(PAIR / "target.fa")[4137016:4200000].copy()
        q = _first_record(PAIR / "query.fa")[4321810:4385000].copy()
        out["ecoli"] = [(t, q)]
    t, q = make_pair(11, 100_000, rate_sub=0.12, rate_indel=0.02)
    out["homolog"] = [(np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8))]
    acgt = np.frombuffer(b"ACGT", np.uint8)
    out["tails"] = [(rng.choice(acgt, 3000), rng.choice(acgt, 3000)) for _ in range(200)]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    from fastz.kernels.bounds import NONE
    from fastz.kernels.gapped import new_state, new_work
    from fastz.kernels.ydrop import MODE_FULL, MODE_INSPECT, one_sided, padded
    from fastz.scoring import build_scoreset
    sub = build_scoreset().sub
    al, sg, _ops, _meta, _ix = new_state(1)
    buf = list(new_work(sub)[:7])

    def run(pairs, mode, trim=True):
        cells = 0
        for t, q in pairs:
            r = one_sided(padded(t, q), False, 0, 0, len(t) - 1, len(q) - 1, sub, 400, 30,
                          9400, trim, 1 << 40, al, sg, NONE, NONE, NONE, NONE, NONE, *buf[:4],
                          0, mode, *buf[4:], 0, 0)
            buf[:] = r[7:14]
            cells += r[4]
        return cells

    print("| workload | mode | DP cells | Mcells/s |\n|---|---|---|---|")
    for name, pairs in workloads(np.random.default_rng(5)).items():
        for label, mode, trim in (("single", MODE_FULL, True),
                                  ("inspector", MODE_INSPECT, True),
                                  ("scalar", MODE_FULL, False)):
            run(pairs[:1], mode, trim)                 # compile, grow the buffers
            best = float("inf")
            for _ in range(a.repeats):
                t0 = time.perf_counter()
                cells = run(pairs, mode, trim)
                best = min(best, time.perf_counter() - t0)
            print(f"| {name} | {label} | {cells:,} | {cells / best / 1e6:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
