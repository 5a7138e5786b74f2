"""The GPU kernels compile for a real device (sm_90 PTX), checked without a GPU.

The simulator tests (test_gpu_sim.py) run the kernels as Python; this runs the CUDA
compiler over them (bench/gpu_ptx.py, in a subprocess because conftest.py turns the
simulator on for this process).  It needs a CUDA toolkit's libnvvm and the NVRTC wheel
(`.ci/run` installs `nvidia-cuda-nvrtc`); where either is missing there is nothing to
compile with and the test says so.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba_cuda")

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "gpu_ptx.py"


def test_gpu_kernels_compile_to_ptx():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    res = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                         env=env, timeout=900)
    if res.returncode == 2:
        pytest.skip(res.stdout.strip())
    assert res.returncode == 0, res.stdout + res.stderr[-3000:]
    assert res.stdout.count("bytes of PTX") == 8, res.stdout
