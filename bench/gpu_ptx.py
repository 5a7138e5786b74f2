#!/usr/bin/env python3
"""Compile every GPU kernel to PTX for an H100/H200 (sm_90), without a GPU.

The CUDA simulator runs the kernels as Python, so it cannot catch what only the CUDA
compiler sees (typing of the device code, unsupported constructs).  numba-cuda can
compile to PTX with no device and no driver when NVVM (a CUDA toolkit's libnvvm) and
NVRTC (the ``nvidia-cuda-nvrtc`` wheel) are present.  Prints one line per kernel and
exits 0, or exits 1 with the compiler's error; exits 2 when the toolkit is missing.

    python bench/gpu_ptx.py
"""
from __future__ import annotations

import os
import sys
import types

os.environ["NUMBA_ENABLE_CUDASIM"] = "0"       # real compilation, not the simulator

import numpy as np                             # noqa: E402

CC = (9, 0)


def _args():
    from fastz.kernels.ydrop import padded
    from fastz.scoring import build_scoreset
    sub = build_scoreset().sub
    t = np.frombuffer(b"ACGT" * 50, np.uint8)
    seqs = padded(t, t.copy())
    i64 = np.zeros(2, np.int64)
    i32 = np.zeros(100, np.int32)
    u8 = np.zeros(512, np.uint8)
    out = np.zeros((2, 8), np.int64)
    inspect = (*seqs, u8[:2], i64, i64, i64, i64, sub, 30, 430, 9400, True, 1 << 40,
               i32, i32, 1024, u8, u8, i32, i64, i64, out)
    execute = (i64, *seqs, u8[:2], i64, i64, i64, i64, sub, 30, 430, 9400, True, i32, i32,
               1024, u8, i64, i32, i64, i64, out, u8, i64, i64)
    return inspect, execute, (*inspect, out, 0, -1)   # + stats, bias, reach


def _seed_args():
    from fastz.pipeline.seeding import parse_seed
    from fastz.scoring import build_scoreset
    spec = parse_seed("12of19", 28)
    i64 = np.zeros(4, np.int64)
    i8 = np.zeros(4, np.int8)
    u8 = np.zeros(64, np.uint8)
    i32 = np.zeros(4, np.int32)         # directory and positions (targets < 2 Gbp)
    table = build_scoreset().masked
    care = np.asarray(spec.care_off, np.int64)
    count = (19, i8, 19, care, care, care, 1, i32, u8, 0, i32, i64)
    fill = (19, i8, 19, care, care, care, 1, i32, u8, 0, i32, i64, i64, i64, i8)
    bucket = (i64, i64, i64, i64, i8, i64, 19, i64, u8, u8, 60, 60, table, 910, 3000, 0,
              9000, 0, 0, i8, np.zeros((4, 4), np.int64))
    return count, fill, bucket


def main() -> int:
    try:
        from numba import cuda, typeof
        from numba.cuda.cudadrv import nvvm
        nvvm.NVVM()                             # loads libnvvm or raises
        from cuda.bindings import nvrtc
        nvrtc.nvrtcVersion()                    # loads libnvrtc or raises
    except Exception as exc:                    # noqa: BLE001 - any missing piece
        print(f"no CUDA toolkit to compile with: {exc}".splitlines()[0])
        return 2
    # device functions are compiled for the current device's compute capability;
    # there is none here, so name the one we build for
    dispatcher = sys.modules[cuda.dispatcher.__name__]
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=CC)
    from fastz.kernels.gpu import antidiag, extension, seedhits, warp
    inspect, execute, inspect_diag = _args()
    count, fill, bucket = _seed_args()
    kernels = [("inspector, one extension per thread", extension._inspect_kernel, inspect),
               ("pruned executor", extension._execute_kernel, execute),
               ("inspector, one warp per extension", warp._inspect_warp_kernel, inspect),
               ("pruned executor, one warp per extension", warp._execute_warp_kernel,
                execute),
               ("inspector, one warp per extension along anti-diagonals",
                antidiag._inspect_diag_kernel, inspect_diag),
               ("seed hits: count per query position", seedhits._count_kernel, count),
               ("seed hits: fill", seedhits._fill_kernel, fill),
               ("seed hits: x-drop per diagonal bucket", seedhits._bucket_kernel, bucket)]
    for name, kernel, args in kernels:
        try:
            ptx, _ = cuda.compile_ptx(kernel.py_func, tuple(typeof(a) for a in args), cc=CC)
        except Exception as exc:                # noqa: BLE001 - report, then fail
            print(f"{name}: {type(exc).__name__}: {exc}")
            return 1
        print(f"{name}: {len(ptx):,} bytes of PTX for sm_{CC[0]}{CC[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
