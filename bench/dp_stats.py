#!/usr/bin/env python3
"""How FastZ's inspector/executor split behaves on the shared pairs (counts, not times).

For each pair, runs ``fastz --dp=split --stats=FILE`` and tabulates: anchors, anchors
skipped, one-sided extensions, the fraction finished by the eager 16x16 traceback,
DP cells evaluated by the inspector and by the executor.  Counts are deterministic,
so they need no repetition.  Prints a markdown table; ``--log`` appends it to
docs/benchmarks.md.

    python bench/dp_stats.py [--log] [--slow]
"""
from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAIRS = REPO.parent / "shared" / "data" / "pairs"

CASES = [
    ("mito_human_orang", ""), ("mito_human_mouse", ""), ("dengue1_vs_dengue2", ""),
    ("dwv_vs_vdv1", ""), ("dmel2R_vs_dpse_contigs", ""), ("human_vs_mouse_cgp", ""),
    ("hpylori_26695_vs_J99_Eslice", ""), ("mlc_testdata_pair", ""),
    ("mers_ref_vs_46isolates", ""),
    ("dwv_vs_vdv1", "--nogfextend"), ("dengue1_vs_dengue2", "--nogfextend"),
    ("lastz_pseudocat_vs_pseudopig", "--nogfextend"),
]
SLOW = [("ecoli_K12_vs_salmonella_LT2", ""), ("dmel2R_vs_dpse_contigs", "--nogfextend"),
        ("mito_human_orang", "--nogfextend")]

LABELS = {
    "anchors": "anchors", "anchors skipped (on an earlier alignment)": "skipped", "one-sided gapped extensions": "ext",
    "extensions finished by the eager 16x16 traceback": "eager",
    "DP cells, inspector / single pass": "cells_i", "DP cells, executor": "cells_x",
}


def stats_for(pair: str, opts: str) -> dict:
    target = "target.fa[multiple]" if pair == "mlc_testdata_pair" else "target.fa"
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as tf:
        subprocess.run([sys.executable, "-m", "fastz", target, "query.fa", *opts.split(),
                        "--dp=split", f"--stats={tf.name}", "--format=none", "--quiet"],
                       cwd=PAIRS / pair, check=True, stdout=subprocess.DEVNULL)
        out = {}
        for line in Path(tf.name).read_text().splitlines():
            label, _, value = line.rpartition(" ")
            key = LABELS.get(label.strip())
            if key:
                out[key] = int(value.replace(",", ""))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--log", action="store_true")
    ap.add_argument("--slow", action="store_true", help="include the large cases")
    a = ap.parse_args(argv)
    rows = ["| pair | options | anchors | skipped | one-sided extensions | eager (16x16) | "
            "inspector cells | executor cells | executor / inspector |",
            "|---|---|---|---|---|---|---|---|---|"]
    for pair, opts in CASES + (SLOW if a.slow else []):
        s = stats_for(pair, opts)
        ext = max(s.get("ext", 0), 1)
        ci, cx = s.get("cells_i", 0), s.get("cells_x", 0)
        rows.append(f"| {pair} | {opts or 'default'} | {s.get('anchors', 0):,} | "
                    f"{s.get('skipped', 0):,} | {s.get('ext', 0):,} | "
                    f"{100.0 * s.get('eager', 0) / ext:.1f} % | {ci:,} | {cx:,} | "
                    f"{100.0 * cx / max(ci, 1):.1f} % |")
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    if a.log:
        with open(REPO / "docs" / "benchmarks.md", "a") as f:
            f.write(f"\n### Inspector/executor counts ({datetime.date.today()}, "
                    f"`python bench/dp_stats.py{' --slow' if a.slow else ''}`)\n\n{table}")
    else:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
