"""Where numba caches fastz's compiled kernels, keyed by the kernels' source.

numba's own cache checks only the file of each cached function: a kernel that
calls (and inlines) a function from another module keeps its stale machine code
when only that other module changed (editing ``kernels/dpcells.py`` left
``kernels/ydrop.one_sided`` running the old row loop).  So the cache lives in a
directory named after a digest of every source file of the package (sizes and
modification times: a stat per file, no reading), and any change starts a fresh
one.  Being outside site-packages it also works for read-only installs.  A
``NUMBA_CACHE_DIR`` set by the user wins.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STALE_S = 30 * 86400
NOTICE = ("fastz: compiling the kernels for this machine (the first run after an "
          "install or upgrade; about a minute)\n")

#: no kernel compiled for these sources yet: this run compiles them (``configure``)
cold = False


def source_digest() -> str:
    h = hashlib.sha1()
    for path in sorted(PACKAGE.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(PACKAGE)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastz" / "numba"


def configure() -> None:
    """Point numba's cache at this source tree's directory (unless the user chose one)."""
    global cold
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = cache_root()
    here = root / source_digest()
    try:
        here.mkdir(parents=True, exist_ok=True)
        # (numba makes its folders before compiling anything: look for an index file)
        cold = next(here.rglob("*.nbi"), None) is None
    except OSError:
        return                                  # unwritable home: numba's default
    os.utime(here)                              # in use: keep it
    for old in root.iterdir():                  # caches of sources unused for 30 days
        try:
            if old != here and time.time() - old.stat().st_mtime > STALE_S:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
    os.environ["NUMBA_CACHE_DIR"] = str(here)
    if "numba" in sys.modules:                  # numba read its config already
        sys.modules["numba"].config.CACHE_DIR = str(here)


def first_run_notice(stream) -> None:
    """Tell someone watching a terminal why the first run pauses for a minute (never
    into a pipe or file: what a run writes there is what lastz writes)."""
    if cold and stream.isatty():
        stream.write(NOTICE)
        stream.flush()
