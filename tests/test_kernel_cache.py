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


def test_cold_means_no_compiled_kernel_yet(tmp_path, monkeypatch):
    pkg = _tree(tmp_path)
    monkeypatch.setattr(kc, "PACKAGE", pkg)
    monkeypatch.setattr(kc, "cold", False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    import numba
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)   # restored after
    kc.configure()
    assert kc.cold                                       # a fresh directory
    here = Path(os.environ["NUMBA_CACHE_DIR"])
    (here / "kernels_x").mkdir()                         # numba's folders alone: still cold
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    kc.configure()
    assert kc.cold
    (here / "kernels_x" / "ydrop.one_sided-79.py311.nbi").write_bytes(b"")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    kc.configure()
    assert not kc.cold


class _Stream:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_first_run_notice_goes_to_a_terminal_only(monkeypatch):
    for cold, tty, said in ((True, True, kc.NOTICE), (True, False, ""), (False, True, "")):
        monkeypatch.setattr(kc, "cold", cold)
        s = _Stream(tty)
        kc.first_run_notice(s)
        assert s.text == said


def _run_on_a_terminal(args, env):
    """stderr of ``args`` run with a pseudo-terminal as its stderr."""
    import pty
    master, slave = pty.openpty()
    try:
        subprocess.run(args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=slave, timeout=120)
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            got = os.read(master, 4096)
        except OSError:                                  # (EIO: the terminal closed)
            break
        if not got:
            break
        chunks.append(got)
    os.close(master)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_a_cold_run_says_why_it_pauses_at_a_terminal_not_into_a_pipe(tmp_path):
    """The alignment command with no compiled kernels: at a terminal one line says the
    first run compiles them; into a pipe stderr holds only what lastz would write (the
    target is missing here, so the run ends before compiling anything)."""
    repo = Path(__file__).resolve().parents[1]
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    args = [sys.executable, "-m", "fastz", str(tmp_path / "missing.fa"),
            str(repo / "data" / "human_mt.fa")]
    piped = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 1
    assert piped.stderr.count("\n") == 1 and "missing.fa" in piped.stderr
    seen = _run_on_a_terminal(args, env)
    assert seen.startswith(kc.NOTICE) and "missing.fa" in seen.split("\n")[1]
