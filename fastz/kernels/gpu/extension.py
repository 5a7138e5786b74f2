"""Gapped-extension kernels: inspector and pruned executor, CPU twins and GPU kernels.

Each kernel is a thin loop over ``fastz.kernels.dpcells`` bodies compiled twice:
``*_cpu`` (``numba.njit``, ``prange`` over extensions) and ``*_gpu`` (a
``cuda.jit`` kernel, one extension per thread).  Twins take the same arrays in
the same order; the GPU launchers add only the launch size.

FastZ (SC'21) structure: the inspector sweeps the whole y-drop region keeping
scores only, plus the eager 16x16 traceback corner; the executor recomputes
only rows <= end row and columns <= end column of extensions whose end lies
outside the corner, with a dense 1-byte traceback allocated exactly per size
bin (``fastz.pipeline.gpu``).
"""
from __future__ import annotations

from numba import cuda, njit, prange, uint8

from .. import dpcells
from ..device import blocks
from ..dpcells import EAGER_CELLS, EAGER_STRIDE

THREADS = 64                     # threads per block (tests patch it)
MAX_THREADS = 64                 # the shared eager corners are sized for this many
CORNERS = MAX_THREADS * EAGER_STRIDE    # shared bytes of a block's eager corners

_cpu = dpcells.compile_cells(njit(cache=True, nogil=True))
_gpu = dpcells.compile_cells(cuda.jit(device=True))
# kernels must see plain globals (numba cannot type a namespace object)
_inspect_one_cpu = _cpu.inspect_one
_execute_one_cpu = _cpu.execute_one
_inspect_one_gpu = _gpu.inspect_one
_execute_one_gpu = _gpu.execute_one


# --- CPU twins ------------------------------------------------------------------------

@njit(parallel=True, nogil=True, cache=True)
def inspect_cpu(Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                cc, dd, width, tbe, eops, rows, roff, rcap, out):
    """Inspector over every side of a batch (see ``dpcells.inspect_one``); side k's
    eager corner is ``tbe[k * EAGER_CELLS:]`` (the device kernels leave ``tbe`` alone
    and keep the corner in shared memory)."""
    for k in prange(rev.shape[0]):
        _inspect_one_cpu(k, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim,
                         tb_cells, cc, dd, width, tbe, k * EAGER_CELLS, eops, rows, roff,
                         rcap, out)


@njit(parallel=True, nogil=True, cache=True)
def execute_cpu(sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc, dd,
                width, tb, toff, rows, roff, rcap, out, xops, xoff, xn):
    """Pruned executor + traceback over the sides ``sel`` of one size bin."""
    for j in prange(sel.shape[0]):
        _execute_one_cpu(j, sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim,
                         cc, dd, width, tb, toff, rows, roff, rcap, out, xops, xoff, xn)


# --- GPU kernels ----------------------------------------------------------------------

@cuda.jit
def _inspect_kernel(Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                    cc, dd, width, tbe, eops, rows, roff, rcap, out):
    # FastZ: the eager corner's links live in shared memory (a padded slot per thread)
    corner = cuda.shared.array(CORNERS, uint8)
    k = cuda.grid(1)
    if k < rev.shape[0]:
        _inspect_one_gpu(k, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim,
                         tb_cells, cc, dd, width, corner, cuda.threadIdx.x * EAGER_STRIDE,
                         eops, rows, roff, rcap, out)


@cuda.jit
def _execute_kernel(sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc, dd,
                    width, tb, toff, rows, roff, rcap, out, xops, xoff, xn):
    j = cuda.grid(1)
    if j < sel.shape[0]:
        _execute_one_gpu(j, sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim,
                         cc, dd, width, tb, toff, rows, roff, rcap, out, xops, xoff, xn)


def inspect_gpu(Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                cc, dd, width, tbe, eops, rows, roff, rcap, out, stream=0, threads=None):
    """``inspect_cpu`` on the device: one extension per thread (``tbe`` unused)."""
    n = rev.shape[0]
    if n == 0:
        return
    t = threads or THREADS
    if t > MAX_THREADS:
        raise ValueError(f"at most {MAX_THREADS} threads per inspector block")
    _inspect_kernel[blocks(n, t), t, stream](
        Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells, cc, dd, width,
        tbe, eops, rows, roff, rcap, out)


def execute_gpu(sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc, dd,
                width, tb, toff, rows, roff, rcap, out, xops, xoff, xn, stream=0,
                threads=None):
    """``execute_cpu`` on the device: one extension per thread."""
    n = sel.shape[0]
    if n == 0:
        return
    t = threads or THREADS
    _execute_kernel[blocks(n, t), t, stream](
        sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc, dd, width, tb,
        toff, rows, roff, rcap, out, xops, xoff, xn)


__all__ = ["inspect_cpu", "execute_cpu", "inspect_gpu", "execute_gpu", "THREADS"]
