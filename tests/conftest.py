"""Shared fixtures: LASTZ's regression data, the shared genome pairs, running real lastz."""
import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

# GPU twins run on the CUDA simulator unless a real device is asked for; this must be
# set before anything imports numba.
if os.environ.get("FASTZ_TEST_REAL_GPU") != "1":
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest

REPO = Path(__file__).resolve().parents[1]
LASTZ_EXAMPLES = Path("/usr/share/doc/lastz/examples/test_data")
SHARED = REPO.parent / "shared"
PAIRS = SHARED / "data" / "pairs"
LASTZ = shutil.which("lastz")


def _require_lastz():
    if LASTZ is None:
        pytest.fail("lastz is not installed (apt-get install lastz lastz-examples); "
                    "parity tests cannot run without it")


@pytest.fixture
def short_switches():
    """numba's CUDA simulator runs a Python thread per CUDA thread and its barriers poll
    them: switch threads every 0.1 ms (not 5) during the test, then put it back."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(before)


@pytest.fixture(scope="session")
def lastz_data(tmp_path_factory) -> Path:
    """LASTZ's regression data (Debian lastz-examples), unpacked into a temp dir."""
    if not LASTZ_EXAMPLES.is_dir():
        pytest.fail(f"{LASTZ_EXAMPLES} missing: apt-get install lastz-examples")
    out = tmp_path_factory.mktemp("lastz_test_data")
    for src in LASTZ_EXAMPLES.iterdir():
        if src.suffix == ".gz":
            with gzip.open(src, "rb") as fin, open(out / src.stem, "wb") as fout:
                shutil.copyfileobj(fin, fout)
        else:
            shutil.copy(src, out / src.name)
    return out


@pytest.fixture(scope="session")
def shared_pairs() -> Path:
    """../shared/data/pairs: real genome pairs (target.fa, query.fa)."""
    if not PAIRS.is_dir():
        pytest.fail(f"{PAIRS} missing: the shared data directory must sit beside the repo")
    return PAIRS


def run_lastz(args, cwd=None, stdin=None) -> bytes:
    """Run the real lastz; return stdout bytes (raises on non-zero exit)."""
    _require_lastz()
    res = subprocess.run([LASTZ, *args], cwd=cwd, input=stdin, capture_output=True, timeout=600)
    if res.returncode != 0:
        raise AssertionError(f"lastz {' '.join(args)} failed: {res.stderr.decode()[-500:]}")
    return res.stdout


@pytest.fixture(scope="session")
def lastz_runner():
    return run_lastz


import re as _re

_VERSION_TOKEN = _re.compile(rb"(?:lastz|fastz)\.v[0-9][0-9A-Za-z.\-]*")


def drop_version(text: bytes) -> bytes:
    """Replace the program/version token (lastz.v1.04.22, fastz.v0.1.0) by a fixed word."""
    return _VERSION_TOKEN.sub(b"PROGRAM", text)
