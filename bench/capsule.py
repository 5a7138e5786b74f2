#!/usr/bin/env python3
"""Target capsules side by side: a small query against a large target, aligned from
the target file (load and index it) and from a capsule (map it), by lastz and fastz.

Each program writes its own capsule of the pair's target once; then the four runs
(lastz plain, lastz capsule, fastz plain, fastz capsule) alternate ``--runs`` times.
Medians of wall seconds are printed with the ratios, and whether lastz's and fastz's
capsule runs gave the same bytes (program tokens dropped).

    python bench/capsule.py                                   # ecoli, a 30 kb query
    python bench/capsule.py --pair ecoli_K12_vs_salmonella_LT2 --query-range 1..30000
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAIRS = REPO.parent / "shared" / "data" / "pairs"
TOKEN = re.compile(rb"(?:lastz|fastz)\.v[0-9][0-9A-Za-z.\-]*")


def _timed(cmd: list[str], cwd: Path) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    run = subprocess.run(cmd, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - t0, run.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", default="ecoli_K12_vs_salmonella_LT2")
    ap.add_argument("--query-range", default="1..30000", help="of the pair's query file")
    ap.add_argument("--opts", default="--format=maf", help="options of the aligning runs")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    pair = PAIRS / a.pair
    query = f"{pair / 'query.fa'}[{a.query_range}]"
    opts = a.opts.split()
    fastz = [sys.executable, "-m", "fastz"]
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        for prog, name in (("lastz", "l.cap"), ("fastz", "f.cap")):
            cmd = ["lastz"] if prog == "lastz" else fastz
            subprocess.run([*cmd, str(pair / "target.fa"), f"--writecapsule={name}"],
                           cwd=where, capture_output=True, check=True)
        cases = {
            "lastz": ["lastz", str(pair / "target.fa"), query, *opts],
            "lastz capsule": ["lastz", "--targetcapsule=l.cap", query, *opts],
            "fastz": [*fastz, str(pair / "target.fa"), query, *opts],
            "fastz capsule": [*fastz, "--targetcapsule=f.cap", query, *opts],
        }
        times: dict[str, list[float]] = {k: [] for k in cases}
        outs: dict[str, bytes] = {}
        for _ in range(a.runs):
            for name, cmd in cases.items():
                secs, out = _timed(cmd, where)
                times[name].append(secs)
                outs[name] = TOKEN.sub(b"PROGRAM", out).replace(b"l.cap", b"CAP").replace(
                    b"f.cap", b"CAP")
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"pair {a.pair}, query {a.query_range}, options {a.opts!r}, "
              f"medians of {a.runs} runs (wall s)")
        for name in cases:
            print(f"  {name:14s} {med[name]:7.2f}")
        print(f"  lastz / lastz capsule  {med['lastz'] / med['lastz capsule']:.2f}x")
        print(f"  fastz / fastz capsule  {med['fastz'] / med['fastz capsule']:.2f}x")
        print(f"  lastz capsule / fastz capsule  "
              f"{med['lastz capsule'] / med['fastz capsule']:.2f}x")
        same = outs["lastz capsule"] == outs["fastz capsule"]
        print(f"  capsule runs identical: {'yes' if same else 'NO'}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
