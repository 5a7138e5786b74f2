"""Where the alignments go, so that a failed or interrupted run never leaves output
that looks complete (LASTZ writes straight into ``--output``/stdout and leaves
whatever it had written when it dies).

* ``--output=FILE``: written to a temporary file ``.fastz-*.tmp`` beside FILE (same
  directory, so the final rename is atomic) and renamed over FILE only when the run
  succeeds.  On an error or a signal the temporary file is removed and an existing
  FILE is left as it was.  A symlink is followed; FILE gets the permissions a plain
  ``open()`` would give it (or keeps those of the file it replaces); a path that is
  not a regular file (``/dev/null``, a FIFO, ``/dev/stdout``) is written directly,
  never replaced.
* stdout is streamed (LASTZ users pipe it).  If stdout is a regular file
  (``fastz ... > out.maf``) a failed run cuts it back to where the run started; a
  pipe cannot be taken back: the run then exits non-zero with its message on stderr
  and without the format's end-of-file line (docs/hardening.md).

Write failures (disk full, I/O error) become one-line errors naming the output.
"""
from __future__ import annotations

import fcntl
import io
import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from typing import Iterator, TextIO

from ..errors import FastzError, InputError

#: what to undo if the process must stop at once (a signal): id -> function
_ON_ABORT: dict[int, object] = {}


def abort_cleanup() -> None:
    """Remove this run's temporary output file and cut a regular-file stdout back (the
    CLI calls this from its signal handler, just before ``os._exit``)."""
    for undo in list(_ON_ABORT.values()):
        try:
            undo()
        except Exception:       # noqa: BLE001 (best effort while stopping)
            pass


class OutputError(FastzError, OSError):
    """The output could not be written (disk full, I/O error)."""


class _Sink:
    """A text stream whose write failures become :class:`OutputError` (a broken pipe
    stays a BrokenPipeError: the CLI exits quietly with 141 then)."""

    def __init__(self, out: TextIO, name: str):
        self.out = out
        self.name = name

    def _fail(self, exc: OSError):
        return OutputError(f"can't write {self.name}: {exc.strerror or exc}")

    def write(self, text: str) -> int:
        try:
            return self.out.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._fail(exc) from None

    def flush(self) -> None:
        try:
            self.out.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._fail(exc) from None

    def __getattr__(self, name):
        return getattr(self.out, name)


def _stdout_rollback():
    """A function that cuts stdout back to its current end, when stdout is a regular
    file (else a function that does nothing)."""
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return lambda: None
        start = (os.fstat(fd).st_size if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND
                 else os.lseek(fd, 0, os.SEEK_CUR))
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return lambda: None

    def rollback(flush: bool = True) -> None:
        if flush:
            try:
                sys.stdout.flush()
            except (OSError, ValueError):
                pass
        try:
            os.ftruncate(fd, start)
            os.lseek(fd, start, os.SEEK_SET)
        except OSError:
            pass
    return rollback


def _buffer_stdout():
    """Gathers stdout's text into blocks for the run (as LASTZ's stdio does), when
    PYTHONUNBUFFERED or ``python -u`` made it write each call through (a system call
    per query of a reads file); returns the function that puts it back."""
    if not getattr(sys.stdout, "write_through", False):
        return lambda: None
    try:
        sys.stdout.reconfigure(write_through=False)
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return lambda: None

    def restore() -> None:
        try:
            sys.stdout.flush()
            sys.stdout.reconfigure(write_through=True)
        except (OSError, ValueError):
            pass
    return restore


def _new_file_mode(path: str) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextmanager
def output_stream(path: str | None, binary: bool = False) -> Iterator[TextIO]:
    """The output text stream (stdout for None); see the module docstring.
    ``binary``: a byte stream to the file ``path`` (a target capsule)."""
    text = {} if binary else {"encoding": "utf-8", "errors": "surrogateescape",
                              "newline": ""}
    how = "wb" if binary else "w"
    if path is None:
        rollback = _stdout_rollback()
        _ON_ABORT[id(rollback)] = lambda: rollback(flush=False)
        unbuffer = _buffer_stdout()
        try:
            sink = _Sink(sys.stdout, "stdout")
            yield sink
            sink.flush()
        except BaseException:
            rollback()
            raise
        finally:
            unbuffer()
            _ON_ABORT.pop(id(rollback), None)
        return
    real = os.path.realpath(path)
    try:
        mode = os.stat(real).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"can't open output file {path}: Is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        # a device or FIFO: nothing to rename over (never replace /dev/null)
        try:
            fh = open(real, how, **text)
        except OSError as exc:
            raise InputError(f"can't open output file {path}: {exc.strerror}") from None
        with fh:
            yield _Sink(fh, path)
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".fastz-", suffix=".tmp",
                                   dir=os.path.dirname(real))
    except OSError as exc:
        raise InputError(f"can't open output file {path}: {exc.strerror}") from None
    _ON_ABORT[id(tmp)] = lambda: remove_temp_file(tmp)
    ok = False
    try:
        with os.fdopen(fd, how, **text) as fh:
            sink = _Sink(fh, path)
            yield sink
            sink.flush()
        try:
            os.chmod(tmp, _new_file_mode(real))
            os.replace(tmp, real)
        except OSError as exc:
            raise OutputError(f"can't write {path}: {exc.strerror}") from None
        ok = True
    finally:
        if not ok:
            remove_temp_file(tmp)
        _ON_ABORT.pop(id(tmp), None)


def remove_temp_file(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
