"""LASTZ's own regression Makefile (Debian lastz-examples test_data/Makefile.gz), run with
fastz in place of lastz: one test per Makefile target.

The Makefile is used verbatim except for the program: its `/usr/bin/lastz`, `/usr/bin/lastz_D`
(Debian's spelling) and `./lastz` become `./lastz` and `./lastz_D`, two shim scripts that exec
`python -m fastz` and `python -m fastz.double` (fastz_D), and the `sed` that strips lastz's version token from the d-stanza strips
fastz's instead. It runs in a scratch tree laid out as the Makefile expects:

    <tmp>/src/Makefile, src/lastz, src/lastz_D     (make runs here)
    <tmp>/test_data/   LASTZ's regression data (the `lastz_data` fixture)
    <tmp>/test_results/
    <tmp>/tools/       lav_compare.py, axt_compare.py, gfa_compare.py, maf_sort.py (lastz-examples)

Targets for features not implemented yet are strict xfails with the reason, so they turn into
failures (unexpected passes) once the feature lands and the mark must be removed.
"""
from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import LASTZ_EXAMPLES
from parity_cases import fastz_env

TOOLS = LASTZ_EXAMPLES.parent / "tools"
MAKEFILE = LASTZ_EXAMPLES / "Makefile.gz"


# Every target of the Makefile that runs a comparison, with the reason when fastz cannot
# pass it yet (None = must pass).
TARGETS: dict[str, str | None] = {
    "test": None,
    "base_test_default": None,
    "base_test_axt": None,
    "base_test_2bit1": None,
    "base_test_2bit2": None,
    "base_test_stdin2": None,
    "base_test_subrange": None,
    "base_test_mask": None,
    "base_test_coi": None,
    "base_test_multi": None,
    "base_test_multi_subrange": None,
    "base_test_segments": None,
    "base_test_seeded": None,
    "base_test_hw_seeded": None,
    "base_test_hits": None,
    "base_test_hsp": None,
    "base_test_chained": None,
    "base_test_extended": None,
    "base_test_interpolated": None,
    "base_test_float": None,            # lastz_D: fastz_D
    "base_test_ow_seeded": None,
    "base_test_adaptive_k": None,
    "base_test_masking": None,
    "base_test_anchors": None,          # an extra, but --anchors= already works
    "base_test_anchors_multi": None,
    "base_test_nib1": None,
}


def makefile_text() -> str:
    """The Makefile with the program replaced by the shims (see the module docstring)."""
    text = gzip.decompress(MAKEFILE.read_bytes()).decode()
    text = text.replace("/usr/bin/lastz", "./lastz")            # also makes ./lastz_D
    assert "/usr/bin/" not in text
    return text.replace(r'"s/\"lastz\.', r'"s/\"fastz\.')


def makefile_targets(text: str) -> set[str]:
    """Targets whose recipe compares something (lav/axt/gfa compare or diff)."""
    found, current = set(), None
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_0-9]+):", line)
        if m:
            current = m.group(1)
        elif current and re.search(r"Compare\}|@diff", line):
            found.add(current)
    return found


@pytest.fixture(scope="module")
def regression_tree(tmp_path_factory, lastz_data: Path) -> Path:
    """The scratch tree of the module docstring; returns its src/ directory."""
    if shutil.which("make") is None:
        pytest.fail("make is not installed: the regression Makefile cannot run")
    if not MAKEFILE.is_file() or not TOOLS.is_dir():
        pytest.fail(f"{MAKEFILE} or {TOOLS} missing: apt-get install lastz-examples")
    root = tmp_path_factory.mktemp("lastz_regression")
    shutil.copytree(lastz_data, root / "test_data")
    (root / "test_results").mkdir()
    tools = root / "tools"
    tools.mkdir()
    for src in TOOLS.iterdir():
        dest = tools / (src.stem if src.suffix == ".gz" else src.name)
        dest.write_bytes(gzip.decompress(src.read_bytes()) if src.suffix == ".gz"
                         else src.read_bytes())
        dest.chmod(0o755)
    run = root / "src"
    run.mkdir()
    (run / "Makefile").write_text(makefile_text())
    for name, module in (("lastz", "fastz"), ("lastz_D", "fastz.double")):
        shim = run / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {module} "$@"\n')
        shim.chmod(0o755)
    return run


def test_target_table_matches_makefile():
    """Every comparing target of the Makefile has a test here (and nothing else does)."""
    assert makefile_targets(makefile_text()) == set(TARGETS)


def _param(target: str, reason: str | None):
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(target, id=target, marks=marks)


@pytest.mark.parametrize("target", [_param(t, r) for t, r in TARGETS.items()])
def test_makefile_target(target: str, regression_tree: Path):
    res = subprocess.run(["make", "-s", target], cwd=regression_tree, capture_output=True,
                         timeout=600, env=fastz_env())
    assert res.returncode == 0, (f"make {target} failed (exit {res.returncode}):\n"
                                 f"{res.stdout.decode()[-1500:]}{res.stderr.decode()[-1500:]}")
    assert b"FAILURE" not in res.stderr
