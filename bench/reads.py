#!/usr/bin/env python3
"""Many short queries side by side: simulated reads against a genome, lastz vs fastz.

Reads (``--reads`` of ``--length`` bp, 1 % substitutions, half reverse-complemented,
seeded) are drawn from the pair's query and aligned to its target with LASTZ's
read-mapping options (``--mode=map``, as in LASTZ's documentation: a match12 seed
every 10 target bases, exact-match filtering, identity and coverage filters) or its
defaults (``--mode=default``).  The runs alternate ``--runs`` times; medians of wall
seconds are printed with the ratio, and whether the outputs were identical.

    python bench/reads.py                                  # 20,000 reads of 150 bp, map
    python bench/reads.py --mode=default --reads 5000
    python bench/reads.py --fastz-opts=--workers=1
    python bench/reads.py --source=target                  # reads that all map
    python bench/reads.py --source=target --format=sam     # SAM instead of general
    python bench/reads.py --fastq --gzip                   # FASTQ, gzip'd for fastz
    python bench/reads.py --pipe                           # both read /dev/stdin, piped
    PYTHONPATH=/other/checkout python bench/reads.py       # that checkout's fastz
"""
from __future__ import annotations

import argparse
import gzip
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from readsim import as_fastq, first_record, simulate_reads  # noqa: E402

PAIRS = REPO.parent / "shared" / "data" / "pairs"
TOKEN = re.compile(rb"(?:lastz|fastz)\.v[0-9][0-9A-Za-z.\-]*")
MODES = {
    "map": "--step=10 --seed=match12 --notransition --exact=20 --noytrim --match=1,5 "
           "--ambiguous=n --coverage=80 --identity=90 "
           "--format=general:name1,zstart1,end1,name2,strand2,zstart2+,end2+,identity",
    "default": "--format=general",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", default="ecoli_K12_vs_salmonella_LT2")
    ap.add_argument("--reads", type=int, default=20000)
    ap.add_argument("--length", type=int, default=150)
    ap.add_argument("--mode", choices=sorted(MODES), default="map")
    ap.add_argument("--source", choices=("query", "target"), default="query",
                    help="the sequence the reads are drawn from: the pair's query "
                         "(another species: few map) or its target (all map)")
    ap.add_argument("--format", help="output format in place of the mode's (sam, axt, ...)")
    ap.add_argument("--fastq", action="store_true",
                    help="the reads as FASTQ (random qualities, which SAM prints)")
    ap.add_argument("--gzip", action="store_true",
                    help="fastz reads the reads file gzip'd (lastz, which reads no gzip, "
                         "the file itself)")
    ap.add_argument("--pipe", action="store_true",
                    help="both programs read the reads through a pipe (/dev/stdin)")
    ap.add_argument("--fastz-opts", default="", help="extra fastz options (--workers=1)")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    pair = PAIRS / a.pair
    opts = MODES[a.mode].split()
    if a.format:
        opts = [w for w in opts if not w.startswith("--format=")] + [f"--format={a.format}"]
    with tempfile.TemporaryDirectory() as tmp:
        reads = Path(tmp) / ("reads.fq" if a.fastq else "reads.fa")
        text = simulate_reads(first_record(pair / f"{a.source}.fa"), a.reads, a.length)
        if a.fastq:
            text = as_fastq(text, random.Random(a.reads), quals=(33, 74))
        reads.write_text(text)
        fastz_reads = reads
        if a.gzip:
            fastz_reads = reads.with_name(reads.name + ".gz")
            fastz_reads.write_bytes(gzip.compress(reads.read_bytes()))
        target = f"{pair / 'target.fa'}[multiple]"
        feed = {"lastz": reads, "fastz": fastz_reads}
        if a.pipe:
            reads = fastz_reads = "/dev/stdin"
        cases = {"lastz": ["lastz", target, str(reads), *opts],
                 "fastz": [sys.executable, "-m", "fastz", target, str(fastz_reads), *opts,
                           *a.fastz_opts.split()]}
        times: dict[str, list[float]] = {k: [] for k in cases}
        outs = {}
        for _ in range(a.runs):
            for name, cmd in cases.items():
                t0 = time.perf_counter()
                # (run from the scratch folder: a repo as the working directory would
                # shadow the fastz that PYTHONPATH names, for before/after runs)
                given = feed[name].read_bytes() if a.pipe else None
                out = subprocess.run(cmd, capture_output=True, check=True, cwd=tmp,
                                     input=given).stdout
                times[name].append(time.perf_counter() - t0)
                outs[name] = TOKEN.sub(b"PROGRAM", out)
    med = {k: statistics.median(v) for k, v in times.items()}
    same = outs["lastz"] == outs["fastz"]
    lines = outs["lastz"].count(b"\n") - 1
    kind = ("FASTQ" if a.fastq else "FASTA") + (" gzip'd for fastz" if a.gzip else "") + \
        (" piped" if a.pipe else "")
    print(f"{a.reads} {kind} reads of {a.length} bp on {a.pair}, mode {a.mode} "
          f"{'--format=' + a.format if a.format else ''} "
          f"{a.fastz_opts}, medians of {a.runs} runs (wall s)")
    print(f"  lastz {med['lastz']:7.2f}   fastz {med['fastz']:7.2f}   "
          f"lastz/fastz {med['lastz'] / med['fastz']:.2f}x   "
          f"alignments {lines}   identical {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
