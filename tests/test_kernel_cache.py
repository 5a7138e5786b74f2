"""numba's kernel cache is keyed by the whole package's source (fastz/_kernel_cache.py):
numba itself re-checks only each cached function's own file, so a kernel that inlines
a function from another module would keep stale machine code after an edit there."""
import os
import subprocess
import sys
from pathlib import Path

from fastz import _kernel_cache as kc


def _tree(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "kernels").mkdir(parents=True)
    (pkg / "kernels" / "dpcells.py").write_text("x = 1\n")
    (pkg / "kernels" / "ydrop.py").write_text("y = 2\n")
    return pkg


def test_digest_changes_when_any_source_file_changes(tmp_path, monkeypatch):
    pkg = _tree(tmp_path)
    monkeypatch.setattr(kc, "PACKAGE", pkg)
    before = kc.source_digest()
    assert kc.source_digest() == before                  # stable
    callee = pkg / "kernels" / "dpcells.py"
    st = callee.stat()
    os.utime(callee, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert kc.source_digest() != before                  # an edit of the callee's file


def test_configure_uses_a_directory_per_source_and_respects_the_user(tmp_path, monkeypatch):
    pkg = _tree(tmp_path)
    monkeypatch.setattr(kc, "PACKAGE", pkg)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    import numba
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)   # restored after
    stale = tmp_path / "cache" / "fastz" / "numba" / "old"
    stale.mkdir(parents=True)
    os.utime(stale, (0, 0))                              # unused for decades
    kc.configure()
    here = Path(os.environ["NUMBA_CACHE_DIR"])
    assert here == tmp_path / "cache" / "fastz" / "numba" / kc.source_digest()
    assert here.is_dir() and not stale.exists()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    kc.configure()
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_the_cli_compiles_into_that_directory(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env.pop("NUMBA_CACHE_DIR", None)
    code = "import fastz, os, numba; print(os.environ['NUMBA_CACHE_DIR'], numba.config.CACHE_DIR)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[0] == out[1] and out[0].startswith(str(tmp_path / "fastz" / "numba"))
