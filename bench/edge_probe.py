#!/usr/bin/env python3
"""Every edge value in every numeric option form, fastz against the real lastz.

Where ``bench/fuzz_options.py --odd`` draws one or two edge values at random, this
tries them all: each form of ``ODD_OPTIONS`` with each value of ``ODD_NUMBERS`` (and
``--values``), a two-value form also with one of them a plain 10.  Each run is
compared: lastz's failure message against fastz's one line, or the two outputs and
stderrs where both run.  Only the differences are printed, one line each.

    python bench/edge_probe.py                                   # ~2,100 runs, ~8 min
    python bench/edge_probe.py --double --values nan inf 1e-320   # fastz_D vs lastz_D
    python bench/edge_probe.py --pair mito_human_orang --base "target.fa query.fa"
    python bench/edge_probe.py --only=--gap --values 0x10 nan   # a few forms and values

Timings on stderr (``--progress``) differ by nature and are listed; refusals of
values lastz wraps ("out of range") are listed too: read the list, do not count it.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

from conftest import PAIRS, drop_version  # noqa: E402
from fuzz_options import ODD_NUMBERS, ODD_OPTIONS  # noqa: E402
from parity_cases import run_program  # noqa: E402


def words_to_try(values: list[str], only: str = "") -> list[str]:
    out = set()
    for form in ODD_OPTIONS:
        if "{v}" not in form or only not in form:
            continue
        for v in values:
            out.add(form.replace("{v}", v))
            if form.count("{v}") == 2:
                out.add(form.replace("{v}", v, 1).replace("{v}", "10"))
                out.add(form.replace("{v}", "10", 1).replace("{v}", v))
    return sorted(out)


def last_line(err: bytes, prefix: str) -> str:
    lines = err.decode(errors="replace").rstrip("\n").split("\n")
    return lines[-1].removeprefix(prefix)


def compare(word: str, base: list[str], cwd: Path, double: bool) -> str | None:
    """None where both agree, else what differs."""
    words = [*base, word]
    try:
        lz = run_program("lastz_D" if double else "lastz", words, cwd, timeout=60)
        fz = run_program("fastz_D" if double else "fastz", [*words, "--workers=1"], cwd,
                         timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    said = last_line(fz.stderr, "fastz: ")
    if b"Traceback" in fz.stderr or fz.returncode not in (0, 1):
        return f"FASTZ CRASHED (exit {fz.returncode}): {said}"
    if lz.returncode != 0:
        if fz.returncode == 0:
            return f"lastz failed, fastz ran | lastz: {last_line(lz.stderr, 'FAILURE: ')}"
        if last_line(lz.stderr, "FAILURE: ") != said:
            return f"messages | lastz: {last_line(lz.stderr, 'FAILURE: ')} | fastz: {said}"
        return None
    if fz.returncode != 0:
        return f"fastz failed, lastz ran | fastz: {said}"
    if drop_version(lz.stdout) != drop_version(fz.stdout):
        return "stdout"
    if lz.stderr != fz.stderr:
        return f"stderr | lastz: {lz.stderr[:120]!r} | fastz: {fz.stderr[:120]!r}"
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", default="dwv_vs_vdv1")
    ap.add_argument("--base", default="target.fa[1..4000] query.fa[1..4000] --format=general",
                    help="the words every run starts with")
    ap.add_argument("--values", nargs="*", default=None,
                    help="values in place of the fuzzer's ODD_NUMBERS")
    ap.add_argument("--double", action="store_true", help="fastz_D against lastz_D")
    ap.add_argument("--only", default="", help="only the forms holding this text")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    cases = words_to_try(args.values if args.values is not None else ODD_NUMBERS, args.only)
    cwd = PAIRS / args.pair
    base = args.base.split()
    differ = 0
    with ThreadPoolExecutor(args.jobs) as ex:
        for word, what in zip(cases, ex.map(lambda w: compare(w, base, cwd, args.double),
                                            cases)):
            if what is not None:
                differ += 1
                print(f"{word}\t{what}", flush=True)
    print(f"# {differ} of {len(cases)} runs differ", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
