"""GPU plumbing: device detection, the array module, launch sizes, error wrapping.

The only module that imports cupy, and only when a real device is in use.
Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set by the tests)
the GPU kernels run on the CPU, one Python thread per CUDA thread, on plain
numpy arrays: ``xp()`` is numpy and no cupy is needed.

Importing this module imports nothing GPU-related; ``probe()`` does, lazily.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

from ..errors import BackendUnavailable

_PROBE: tuple[bool, str] | None = None


def simulated() -> bool:
    """True when numba's CUDA simulator stands in for a device (tests)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


_SHARED_LOCK = None


def lock_simulator_shared_arrays() -> None:
    """Make the simulator's ``cuda.shared.array`` give every thread of a block the same
    array.  numba-cuda's simulator keys a block's shared arrays by the calling line in
    a dict it fills without a lock: a thread preempted between its look-up and its
    store lets the next thread create a second array.  Lanes that then exchange through
    different arrays read uninitialised memory, diverge and can loop for ever (a CI run
    hung in the warp inspector's test).  Same key (file, line), now under a lock."""
    global _SHARED_LOCK
    if _SHARED_LOCK is not None:
        return
    import threading
    import numpy as np
    try:
        from numba.core import types
        from numba.cuda.simulator import kernelapi
        from numba.np import numpy_support
    except ImportError:                          # pragma: no cover - no simulator here
        return
    _SHARED_LOCK = lock = threading.Lock()
    unlocked = kernelapi.FakeCUDAShared.array

    def array(self, shape, dtype, alignment=None):
        if shape == 0 or alignment is not None:      # dynamic shared memory: no key
            return unlocked(self, shape, dtype, alignment)
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        with lock:
            res = self._allocations.get(key)
            if res is None:
                res = self._allocations[key] = np.empty(shape, dtype)
        return res

    kernelapi.FakeCUDAShared.array = array


def twin() -> bool:
    """True when FASTZ_GPU_ENGINE=twin: the GPU path runs its kernels' CPU twins."""
    return os.environ.get("FASTZ_GPU_ENGINE", "") == "twin"


def probe() -> tuple[bool, str]:
    """(usable, why): can the GPU backend run here?  Cached after the first call.

    Usable means numba-cuda imports and either the simulator is on or numba-cuda
    finds a device and cupy imports.  ``why`` says what was found or missing.
    """
    global _PROBE
    if _PROBE is not None:
        return _PROBE
    if twin():
        _PROBE = (True, "CPU twins of the GPU kernels (FASTZ_GPU_ENGINE=twin)")
        return _PROBE
    if not simulated() and not _driver_present():
        _PROBE = (False, "no NVIDIA driver (libcuda) found")
        return _PROBE
    try:
        from numba import cuda
        import numba_cuda  # noqa: F401  (the maintained CUDA target, not numba's old one)
    except Exception as exc:                     # pragma: no cover - depends on install
        _PROBE = (False, f"numba-cuda is not installed ({type(exc).__name__})")
        return _PROBE
    if simulated():
        _PROBE = (True, "numba CUDA simulator")
        return _PROBE
    try:
        ok = cuda.is_available()
    except Exception as exc:                     # pragma: no cover
        ok = False
        why = f"CUDA driver error: {exc}".splitlines()[0]
    else:
        why = "no CUDA device found"
    if not ok:
        _PROBE = (False, why)
        return _PROBE
    try:
        import cupy  # noqa: F401
    except Exception as exc:                     # pragma: no cover
        _PROBE = (False, f"cupy is not importable ({type(exc).__name__}: {exc})".splitlines()[0])
        return _PROBE
    try:
        name = cuda.get_current_device().name
        if isinstance(name, bytes):
            name = name.decode()
    except Exception:                            # pragma: no cover
        name = "CUDA device"
    _PROBE = (True, str(name))
    return _PROBE


def _driver_present() -> bool:
    """Cheap check before importing numba.cuda (which costs about half a second)."""
    import ctypes.util
    import glob
    if glob.glob("/dev/nvidia*") or os.environ.get("NUMBA_CUDA_DRIVER"):
        return True
    return ctypes.util.find_library("cuda") is not None


def reset_probe() -> None:
    """Forget the cached probe (tests monkeypatch the environment)."""
    global _PROBE
    _PROBE = None


def select_backend(name: str, quiet: bool = False) -> str:
    """Resolve --backend=auto|cpu|gpu to "cpu" or "gpu".

    ``gpu`` without a usable device raises BackendUnavailable (one line);
    ``auto`` uses a real device when there is one, else the CPU, saying why on
    stderr unless ``quiet`` (the simulator is never chosen by ``auto``).
    """
    if name == "cpu" or (name == "auto" and (simulated() or twin())):
        return "cpu"                   # auto never picks the simulator or the twins
    ok, why = probe()
    if name == "gpu":
        if not ok:
            raise BackendUnavailable(f"--backend=gpu: no usable GPU ({why})")
        return "gpu"
    if ok:
        return "gpu"
    # say why only to users who installed the GPU stack (fastz-align[gpu]): a
    # CPU-only install must keep lastz's silent stderr (pipelines scan it)
    if not quiet and _gpu_stack_installed():
        sys.stderr.write(f"fastz: using the CPU backend ({why})\n")
    return "cpu"


def _gpu_stack_installed() -> bool:
    from importlib.util import find_spec
    return find_spec("numba_cuda") is not None and find_spec("cupy") is not None


def xp():
    """The array module for device arrays: cupy on a device, numpy on the simulator."""
    if simulated():
        import numpy
        return numpy
    import cupy
    return cupy


def to_device(a):
    """A device copy of host array ``a`` (the array itself under the simulator)."""
    if simulated():
        return a
    import cupy
    return cupy.asarray(a)


def to_host(a):
    """A host (numpy) copy of device array ``a``."""
    if simulated():
        return a
    return a.get()


def blocks(n: int, threads: int) -> int:
    """Blocks of ``threads`` needed for ``n`` work items (at least 1)."""
    return max(1, (n + threads - 1) // threads)


def streams(n: int):
    """``n`` numba launch streams (cupy streams on a device; simulator streams otherwise)."""
    from numba import cuda
    if simulated():
        return [cuda.stream() for _ in range(n)]
    import cupy
    out = []
    for _ in range(n):
        s = cupy.cuda.Stream(non_blocking=True)
        out.append((s, cuda.external_stream(s.ptr)))
    return out


def synchronize() -> None:
    """Wait for every stream of the device."""
    if simulated():
        return
    import cupy
    cupy.cuda.Device().synchronize()


def out_of_memory(exc: BaseException) -> bool:
    """Is ``exc`` the device running out of memory (cupy's OutOfMemoryError, or a
    CUDA driver call failing with CUDA_ERROR_OUT_OF_MEMORY)?"""
    return "OutOfMemory" in type(exc).__name__ or "OUT_OF_MEMORY" in str(exc)


def release_memory() -> None:
    """Return cupy's cached free blocks to the device (before retrying smaller)."""
    if simulated():
        return
    import cupy
    cupy.get_default_memory_pool().free_all_blocks()


@contextmanager
def device_errors():
    """Turn CUDA / cupy failures (out of memory, launch errors) into one-line FastzErrors."""
    try:
        yield
    except BackendUnavailable:
        raise
    except Exception as exc:
        if os.environ.get("FASTZ_GPU_DEBUG") == "1":   # keep the traceback
            raise
        mod = type(exc).__module__ or ""
        if mod.startswith(("cupy", "numba.cuda", "numba_cuda", "cuda")):
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise BackendUnavailable(f"GPU error: {type(exc).__name__}: {msg}") from exc
        raise


__all__ = ["simulated", "twin", "probe", "select_backend", "xp", "to_device", "to_host", "blocks",
           "streams", "synchronize", "device_errors", "reset_probe", "out_of_memory",
           "release_memory"]
