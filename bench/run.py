#!/usr/bin/env python3
"""Side-by-side benchmark: fastz vs lastz on the same pair, same options, same machine.

Each tool runs ``--runs`` times, alternating; the medians of wall time, CPU time
(user + sys of the process and its children) and the peak RSS of the largest
process are reported with the ratio lastz/fastz, and whether the outputs are
identical (``fastz compare``).  A row is appended to docs/benchmarks.md.

    python bench/run.py ecoli_K12_vs_salmonella_LT2
    python bench/run.py dmel2R_vs_dpse_contigs --opts="--nogfextend" --runs 3
    python bench/run.py startup          # tiny-input start-up (warm numba cache)
    python bench/run.py all              # the issue's standard set
    python bench/run.py ecoli_K12_vs_salmonella_LT2 --double   # fastz_D vs lastz_D
    python bench/run.py synthetic120     # a 120 Mb synthetic target (bench/synthetic.py)
    python bench/run.py synthetic20x360  # chromosome against chromosome: 20 Mb, 360 pieces

Pairs live in ../shared/data/pairs/<name>/{target,query}.fa; ``synthetic<N>[x<P>]`` is
written once by bench/synthetic.py (an N Mb target, a query of P diverged 50 kb pieces
of it, 40 by default) under ~/.cache/fastz/bench/.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAIRS = REPO.parent / "shared" / "data" / "pairs"
LOG = REPO / "docs" / "benchmarks.md"

STANDARD = [
    ("ecoli_K12_vs_salmonella_LT2", ""),
    ("dmel2R_vs_dpse_contigs", "--nogfextend"),
    ("mito_human_orang", "--nogfextend"),
    ("lastz_pseudocat_vs_pseudopig", "--nogfextend"),
    ("startup", ""),
]


def _measure(cmd: list[str], cwd: Path, out: Path) -> tuple[float, float, int, int]:
    """(wall s, cpu s, peak RSS KB, exit code) of one run, stdout to ``out``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(out, "wb") as f:
        proc = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss, proc.returncode


def _peak_rss(cmd: list[str], cwd: Path) -> int:
    """Peak RSS (KB) of the largest process of one run, via GNU time if present."""
    gtime = shutil.which("time") or "/usr/bin/time"
    if not os.path.exists(gtime):
        return 0
    with tempfile.NamedTemporaryFile("r") as tf:
        subprocess.run([gtime, "-f", "%M", "-o", tf.name, *cmd], cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = Path(tf.name).read_text().strip().splitlines()
    return int(text[-1]) if text and text[-1].isdigit() else 0


def pair_dir(pair: str) -> Path:
    """Where a pair's target.fa and query.fa are (a synthetic one is written first)."""
    size = re.fullmatch(r"synthetic(\d+)(?:x(\d+))?", pair)
    if not size:
        return PAIRS / pair
    where = Path.home() / ".cache" / "fastz" / "bench" / pair
    if not (where / "query.fa").exists():
        sys.path.insert(0, str(REPO / "bench"))
        from synthetic import PIECES, write_pair
        write_pair(where, int(size.group(1)), int(size.group(2) or PIECES))
    return where


def bench(pair: str, opts: str, runs: int, fastz_extra: str, double: bool = False) -> dict:
    if pair == "startup":
        cwd = PAIRS / "mito_human_orang"
        args = ["target.fa[1..2000]", "query.fa[1..2000]"]
    else:
        cwd = pair_dir(pair)
        args = ["target.fa[multiple]" if pair == "mlc_testdata_pair" else "target.fa", "query.fa"]
    args += shlex.split(opts)
    name = "lastz_D" if double else "lastz"
    lastz = [shutil.which(name) or name, *args]
    fastz = [sys.executable, "-m", "fastz.double" if double else "fastz", *args,
             *shlex.split(fastz_extra)]
    tmp = Path(tempfile.mkdtemp(prefix="fastz-bench-"))
    res = {"lastz": [], "fastz": []}
    # one untimed fastz run so the numba cache is warm (cold start is measured apart)
    subprocess.run(fastz, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(runs):
        for name, cmd in (("lastz", lastz), ("fastz", fastz)):
            wall, cpu, _rss, rc = _measure(cmd, cwd, tmp / f"{name}.out")
            if rc != 0:
                raise SystemExit(f"{name} failed (exit {rc}): {' '.join(cmd)}")
            res[name].append((wall, cpu))
    rss = {name: _peak_rss(cmd, cwd) for name, cmd in (("lastz", lastz), ("fastz", fastz))}
    same = subprocess.run([sys.executable, "-m", "fastz", "compare", str(tmp / "lastz.out"),
                           str(tmp / "fastz.out")], capture_output=True, text=True)
    row = {
        "pair": pair, "opts": opts, "fastz_extra": fastz_extra, "runs": runs, "double": double,
        "lastz_wall": statistics.median(w for w, _ in res["lastz"]),
        "fastz_wall": statistics.median(w for w, _ in res["fastz"]),
        "lastz_cpu": statistics.median(c for _, c in res["lastz"]),
        "fastz_cpu": statistics.median(c for _, c in res["fastz"]),
        "lastz_rss": rss["lastz"], "fastz_rss": rss["fastz"],
        "identical": same.returncode == 0,
    }
    row["ratio"] = row["lastz_wall"] / row["fastz_wall"]
    shutil.rmtree(tmp, ignore_errors=True)
    return row


def cold_start(runs: int) -> tuple[float, float]:
    """Median wall time of a tiny run with an empty numba cache, and with a warm one."""
    cwd = PAIRS / "mito_human_orang"
    cmd = [sys.executable, "-m", "fastz", "target.fa[1..2000]", "query.fa[1..2000]"]
    cold = []
    for _ in range(max(1, runs // 2)):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            t0 = time.perf_counter()
            subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
            cold.append(time.perf_counter() - t0)
    warm = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL)
        warm.append(time.perf_counter() - t0)
    return statistics.median(cold), statistics.median(warm)


def machine() -> str:
    cpus = os.cpu_count()
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()} ({cpus} cores, {model})"


HEADER = ("| date | pair / options | lastz s | fastz s | lastz/fastz | lastz cpu s | "
          "fastz cpu s | lastz MB | fastz MB | identical | runs | command |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|\n")


def log_row(row: dict) -> str:
    LOG.parent.mkdir(exist_ok=True)
    if not LOG.exists():
        LOG.write_text("# Benchmarks\n\n")
    lines = [ln for ln in LOG.read_text().splitlines() if ln.strip()]
    # a new header unless the file ends with this table (header, rule or a dated row)
    if not lines or not re.match(r"\| (date |-|\d{4}-)", lines[-1]):
        with open(LOG, "a") as f:
            f.write(f"\nMachine: {machine()}; medians of the runs; times in seconds, RSS in MB "
                    "(largest process).\n\n" + HEADER)
    cmd = f"python bench/run.py {row['pair']}"
    if row["opts"]:
        cmd += f" --opts='{row['opts']}'"
    if row["fastz_extra"]:
        cmd += f" --fastz='{row['fastz_extra']}'"
    if row["double"]:
        cmd += " --double"
    what = " (lastz_D vs fastz_D)" if row["double"] else ""
    line = (f"| {datetime.date.today()} | {row['pair']} {row['opts']} {row['fastz_extra']}{what} | "
            f"{row['lastz_wall']:.2f} | {row['fastz_wall']:.2f} | **{row['ratio']:.2f}x** | "
            f"{row['lastz_cpu']:.2f} | {row['fastz_cpu']:.2f} | "
            f"{row['lastz_rss'] // 1024} | {row['fastz_rss'] // 1024} | "
            f"{'yes' if row['identical'] else 'NO'} | {row['runs']} | `{cmd}` |\n")
    with open(LOG, "a") as f:
        f.write(line)
    return line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pair", help="pair name under ../shared/data/pairs, synthetic<Mb>[x<pieces>], 'startup', or 'all'")
    ap.add_argument("--opts", default="", help="options given to both lastz and fastz")
    ap.add_argument("--fastz", default="", help="extra options for fastz only (e.g. --workers=1)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-log", action="store_true", help="do not append to docs/benchmarks.md")
    ap.add_argument("--double", action="store_true",
                    help="lastz_D against fastz_D (double scores)")
    a = ap.parse_args(argv)
    jobs = STANDARD if a.pair == "all" else [(a.pair, a.opts)]
    print(f"machine: {machine()}")
    print(HEADER, end="")
    for pair, opts in jobs:
        row = bench(pair, opts, a.runs, a.fastz, a.double)
        line = log_row(row) if not a.no_log else str(row)
        print(line.rstrip())
    if a.pair in ("startup", "all"):
        cold, warm = cold_start(a.runs)
        msg = f"start-up (tiny input): cold numba cache {cold:.2f} s, warm {warm:.2f} s"
        print(msg)
        if not a.no_log:
            with open(LOG, "a") as f:
                f.write(f"\n{datetime.date.today()}: {msg} (`python bench/run.py startup`)\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
