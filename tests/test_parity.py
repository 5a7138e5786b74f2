"""Whole-output parity with the real lastz: every case of tests/parity_cases.py runs lastz and
fastz (as a subprocess, same words, same directory, same stdin) and compares the complete
outputs after `drop_version`; nothing else is normalised.

Cases with `stderr_grep` also compare the stderr lines holding that text (truncation notes).
Known mismatches are strict xfails (a fixed one fails the suite until its mark is removed);
`slow` cases are measured separately (see docs/parity.md).
"""
from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import LASTZ, drop_version
from parity_cases import (CASES, Case, case_dir, fastz_env, grep_lines, prepare, program_argv,
                          stdin_bytes)


def run_fastz(args, cwd, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run `python -m fastz ARGS` in `cwd`; return the completed process (bytes)."""
    return subprocess.run([*program_argv("fastz"), *args], cwd=cwd, input=stdin,
                          capture_output=True, timeout=600, env=fastz_env())


def _first_difference(want: bytes, got: bytes, context: int = 2) -> str:
    """A short excerpt around the first differing line (for assertion messages)."""
    a, b = want.splitlines(), got.splitlines()
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(0, n - context)
    show = lambda lines: "\n".join(f"  {i + 1}: {ln.decode(errors='replace')[:120]}"  # noqa: E731
                                   for i, ln in enumerate(lines[lo:n + context + 1], lo))
    return (f"first difference at line {n + 1} (lastz {len(a)} lines, fastz {len(b)} lines)\n"
            f"lastz:\n{show(a)}\nfastz:\n{show(b)}")


def _param(case: Case):
    marks = []
    if case.slow:
        marks.append(pytest.mark.slow)
    if case.xfail:
        marks.append(pytest.mark.xfail(strict=True, reason=case.xfail))
    return pytest.param(case, id=case.id, marks=marks)


def _run_lastz_full(words, cwd, stdin):
    """lastz with its stderr kept (for the stderr comparisons)."""
    res = subprocess.run([LASTZ, *words], cwd=cwd, input=stdin, capture_output=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr.decode()[-500:]
    return res.stdout, res.stderr


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_parity(case: Case, lastz_data: Path, shared_pairs: Path, lastz_runner, tmp_path):
    cwd = case_dir(case, lastz_data, shared_pairs)
    segments = prepare(case, cwd, tmp_path)
    words = case.words(segments)
    feed = stdin_bytes(case, cwd)

    # lastz runs in a thread while fastz runs here: two cores, half the wall time.
    with ThreadPoolExecutor(max_workers=1) as pool:
        if case.stderr_grep:
            want_job = pool.submit(_run_lastz_full, words, cwd, feed)
        else:
            want_job = pool.submit(lambda: (lastz_runner(words, cwd=cwd, stdin=feed), b""))
        got = run_fastz(words, cwd, feed)
        want, want_err = want_job.result()

    assert got.returncode == 0, f"fastz failed: {got.stderr.decode()[-500:]}"
    want, have = drop_version(want), drop_version(got.stdout)
    assert want, "lastz printed nothing: the case would test nothing"
    assert have == want, _first_difference(want, have)
    if case.stderr_grep:
        want_lines = grep_lines(want_err, case.stderr_grep)
        assert want_lines, f"lastz printed no '{case.stderr_grep}' lines"
        assert grep_lines(got.stderr, case.stderr_grep) == want_lines, _first_difference(
            b"\n".join(want_lines), b"\n".join(grep_lines(got.stderr, case.stderr_grep)))



# --- A synthetic chromosome: soft-masked interspersed repeats, diverged pieces ---------

SYNTHETIC_OPTIONS = [[], ["--format=general"], ["--format=maf", "--step=3"],
                     ["--format=axt", "--ambiguous=iupac"],
                     ["--format=general", "--strand=minus", "--hspthresh=4000"],
                     ["--format=cigar", "--gfextend", "--chain"]]


@pytest.fixture(scope="module")
def synthetic_pair(tmp_path_factory) -> Path:
    """bench/synthetic.py's pair at 2 Mb (the benchmark writes it at 120 Mb)."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from synthetic import write_pair
    where = tmp_path_factory.mktemp("synthetic")
    write_pair(where, 2, pieces=4)
    return where


@pytest.mark.parametrize("opts", SYNTHETIC_OPTIONS, ids=lambda o: " ".join(o) or "default")
def test_synthetic_chromosome(opts, synthetic_pair: Path, lastz_runner):
    words = ["target.fa", "query.fa", *opts]
    with ThreadPoolExecutor(max_workers=1) as pool:
        want_job = pool.submit(lastz_runner, words, cwd=synthetic_pair)
        got = run_fastz(words, synthetic_pair)
        want = drop_version(want_job.result())
    assert got.returncode == 0, f"fastz failed: {got.stderr.decode()[-500:]}"
    assert want.count(b"\n") >= 2, "lastz found nothing: the case would test nothing"
    assert drop_version(got.stdout) == want, _first_difference(want, drop_version(got.stdout))
