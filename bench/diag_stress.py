#!/usr/bin/env python3
"""Random check of the anti-diagonal inspector against its CPU twin, under the simulator.

Each trial makes a random homolog pair (5-130 bp, 0-20 % indels, some N and soft-masked
runs), a random ydrop (200-9400), work width (64-1024) and traceback budget, and four
sides (both corners and two random anchors); it runs ``extension.inspect_cpu`` and
``antidiag.inspect_diag_gpu`` on numba's CUDA simulator and compares every output
field, per-row record and eager op.  Prints one line per trial (the CPU twin's status
per side, then [strips, passes] per side) and a total; exits 1 on any mismatch.

    python bench/diag_stress.py --seed 1 --trials 60 [--harsh]

With MUTDIR=<a copy of the repo> it imports fastz and the tests from there (to check
that a mutated kernel is caught).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
ROOT = Path(__file__).resolve().parents[1]
ROOT = Path(os.environ.get("MUTDIR", ROOT))
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import numpy as np                                              # noqa: E402

from test_gpu_sim import Batch, X, random_sides, same_batches   # noqa: E402
from test_ydrop import SUB, make_pair                           # noqa: E402

from fastz.kernels.gpu import antidiag                          # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--harsh", action="store_true",
                    help="mismatches (and N) score -600: deletions then beat the diagonal, "
                         "so LASTZ's D values of prolonged insertions matter")
    a = ap.parse_args()
    sys.setswitchinterval(1e-4)                 # simulator barriers poll threads
    rng = np.random.default_rng(a.seed)
    sub = np.where(SUB > 0, SUB, -600).astype(SUB.dtype) if a.harsh else SUB
    bad = 0
    total = np.zeros(2, np.int64)
    for trial in range(a.trials):
        seed = int(rng.integers(0, 10**6))
        n = int(rng.integers(5, 130))
        t, q = make_pair(seed, n, rate_indel=(0.0, 0.03, 0.1, 0.2)[trial % 4],
                         ns=trial % 3 == 0, soft=trial % 2 == 0)
        if not q:
            continue
        T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
        Y = int(rng.choice([200, 300, 600, 1000, 2000, 9400]))
        width = int(rng.choice([64, 128, 256, 1024]))
        tb = int(rng.choice([1 << 40, 1 << 40, 500, 3000]))
        sides = [(0, 0, 0), (1, len(t) - 1, len(q) - 1)] + random_sides(rng, t, q, 2)
        cpu = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, Y=Y, tb_cells=tb,
                                                      sub=sub)
        stats = np.zeros((len(sides), 2), np.int64)
        gpu = Batch(T, Q, sides, width=width, rings=2).inspect(
            antidiag.inspect_diag_gpu, Y=Y, tb_cells=tb, sub=sub, stats=stats)
        total += stats.sum(axis=0)
        try:
            same_batches(cpu, gpu)
        except AssertionError as exc:
            bad += 1
            print(f"MISMATCH trial {trial}: pair seed {seed}, n {n}, Y {Y}, width {width}, "
                  f"tb_cells {tb}, sides {sides}: {str(exc)[:300]}", flush=True)
        print(trial, f"n={n} Y={Y} width={width} tb_cells={tb}",
              "status", cpu.out[:, 0].tolist(), "strips,passes", stats.tolist(), flush=True)
    print(f"mismatches {bad}; strips {total[0]}, passes {total[1]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
