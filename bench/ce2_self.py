#!/usr/bin/env python3
"""The ce2 chrX self-alignment (issue 8's limit test): time, memory, alignments.

C. elegans chromosome X (17.7 Mb, unmasked, repeat-rich: ../shared/data/genomes/
ce2_chrX.fa.gz) aligned to itself with ``--notrivial``, whole or a region of it:

    python bench/ce2_self.py                        # the whole chromosome (about 1 h here)
    python bench/ce2_self.py --region 1..2000000 --lastz   # and lastz beside it, compared

Runs under GNU time and prints one markdown row: wall and CPU seconds, peak RSS of
the largest process, alignments, DP cells, and (with ``--lastz``, which runs after
fastz on the same machine) lastz's figures and whether the two outputs are identical
(``fastz compare``: whole LAV files, version token hidden).
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENOME = REPO.parent / "shared" / "data" / "genomes" / "ce2_chrX.fa.gz"


def _timed(cmd: list[str], out: Path, err: Path) -> dict:
    """Run ``cmd`` under GNU time -v: wall, cpu (s), peak RSS (MB), exit code."""
    gtime = shutil.which("time") or "/usr/bin/time"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        rc = subprocess.run([gtime, "-v", *cmd], stdout=fo, stderr=fe).returncode
    text = err.read_text(errors="replace")
    def field(name):
        m = re.search(rf"{re.escape(name)}: (.+)", text)
        return m.group(1).strip() if m else "0"
    parts = [float(p) for p in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")]
    wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return {"wall": wall, "cpu": cpu, "rss": int(field("Maximum resident set size (kbytes)")) / 1024,
            "rc": rc}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--region", default="", help="e.g. 1..2000000 (1-based, LASTZ's syntax)")
    ap.add_argument("--workers", default="", help="fastz --workers (default: all cores)")
    ap.add_argument("--lastz", action="store_true", help="also run lastz and compare")
    ap.add_argument("--dir", default="/tmp/fastz-ce2", help="work folder (outputs, logs)")
    a = ap.parse_args(argv)

    work = Path(a.dir)
    work.mkdir(parents=True, exist_ok=True)
    fasta = work / "chrX.fa"
    if not fasta.exists():
        with gzip.open(GENOME, "rb") as src, open(fasta, "wb") as dst:
            shutil.copyfileobj(src, dst)
    spec = f"{fasta}[{a.region}]" if a.region else str(fasta)
    args = [spec, spec, "--notrivial"]
    extra = [f"--workers={a.workers}"] if a.workers else []
    stats = work / "fastz.stats"
    fz = _timed([sys.executable, "-m", "fastz", *args, *extra, f"--stats={stats}"],
                work / "fastz.lav", work / "fastz.time")
    cells = re.search(r"DP cells, inspector / single pass\s+([\d,]+)", stats.read_text()
                      if stats.exists() else "")
    n_fz = sum(1 for ln in open(work / "fastz.lav", "rb") if ln.startswith(b"a {"))
    row = (f"| {datetime.date.today()} | ce2 chrX{'[' + a.region + ']' if a.region else ''} "
           f"self --notrivial {' '.join(extra)} | {fz['wall']:.0f} | {fz['cpu']:.0f} | "
           f"{fz['rss']:.0f} | {n_fz:,} | {cells.group(1) if cells else '?'} |")
    if a.lastz:
        lz = _timed(["lastz", *args], work / "lastz.lav", work / "lastz.time")
        from fastz.compare import compare          # whole files, version token hidden
        same = compare(work / "fastz.lav", work / "lastz.lav").identical
        row += (f" {lz['wall']:.0f} | {lz['cpu']:.0f} | {lz['rss']:.0f} | "
                f"{'yes' if same else 'NO'} |")
    print(f"machine: {platform.node()}, {platform.processor() or platform.machine()}; "
          f"fastz exit {fz['rc']}")
    print("| date | run | fastz wall s | fastz cpu s | fastz MB | alignments | DP cells |"
          + (" lastz wall s | lastz cpu s | lastz MB | identical |" if a.lastz else ""))
    print(row)
    return fz["rc"]


if __name__ == "__main__":
    sys.exit(main())
