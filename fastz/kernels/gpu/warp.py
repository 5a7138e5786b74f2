"""Row-parallel inspector: one warp per extension, the 32 lanes split each DP row.

Same inputs and outputs as ``extension.inspect_gpu`` (its CPU twin is
``extension.inspect_cpu``).  LASTZ's y-drop sweep is row by row, so a warp can
apply its row-wise pruning exactly (spec section 12.5).  Each row is cut into
chunks of 32 columns; in a chunk every lane owns one cell:

* the diagonal input comes from the previous row (the left neighbour's value
  through a lane exchange), the vertical one (D) from the previous row too;
* the horizontal-gap value I entering lane j is the composition of the lanes
  before it, each a max-plus map ``i -> max(a, i + m)``: ``(c - OE, -E)`` for a
  diagonal-derived cell, ``(-inf, -E)`` for a gap-derived one, and a reset to
  NEG for a pruned one; an exclusive max-plus scan gives every lane its I;
* the running best a cell is pruned against is the prefix maximum of the
  diagonal-derived cells before it (a gap-derived cell never raises it);
* which cells are pruned depends on I and I on which cells are pruned: the
  lanes iterate from a guess until the pruned set is stable.  Lane 0's values
  are exact at once and each pass fixes at least the next lane, so the fixed
  point is the sequential one; one or two passes are usual.

Rows live in a ring of ``width`` cells (a power of two) indexed by column, so
lanes read and write only their own cell.  Lane exchange is behind small
helpers with two versions: warp shuffles on a device, shared memory plus
``syncthreads`` under the simulator (which has no shuffles) or when
``FASTZ_WARP_EXCHANGE=shared``; the shared version runs one warp per block.
Only LASTZ's default trimming (``trim``) is handled; the caller uses the
thread mapping for --noytrim.
"""
from __future__ import annotations

import os

from numba import cuda, int64, uint8

from .. import dpcells
from ..device import simulated
from ..dpcells import EAGER, EAGER_STRIDE, O_END_C, O_END_R, ST_OVERFLOW, ST_TRUNCATED
from ..ydrop import FROM_I, NEG

WARP = 32
FULL = 0xFFFFFFFF
BIG = 1 << 40                 # "minus infinity" for the max-plus scan (far below NEG)
SHARED = simulated() or os.environ.get("FASTZ_WARP_EXCHANGE", "") == "shared"
WARPS_PER_BLOCK = 1 if SHARED else 4
CORNERS = WARPS_PER_BLOCK * EAGER_STRIDE    # shared bytes of a block's eager corners

_gpu = dpcells.compile_cells(cuda.jit(device=True))
_side_operands = _gpu.side_operands
_side_tail = _gpu.side_tail
_trace_dense = _gpu.trace_dense
_record_inspection = _gpu.record_inspection
_gap_cell = _gpu.gap_cell           # one cell's recurrence, as the CPU twins compute it
_diag_cell = _gpu.diag_cell


# --- lane exchange ----------------------------------------------------------------------
# Every helper takes the warp's shared scratch ``sh`` (NSLOT x 5 x 32 int64) and a
# slot; the shared-memory versions write, pass ONE barrier and read, so two
# consecutive exchanges must use different slots (then a slot is never rewritten
# before every lane has read it).  The shuffle versions ignore sh and slot.

NSLOT = 3


@cuda.jit(device=True)
def _sh_nbr(x, lane, sh, s):
    """(x of lane - 1 (own x on lane 0), x of lane 31)."""
    sh[s, 0, lane] = x
    cuda.syncthreads()
    if lane == 0:
        return x, sh[s, 0, WARP - 1]
    return sh[s, 0, lane - 1], sh[s, 0, WARP - 1]


@cuda.jit(device=True)
def _sh_allmax(x, lane, sh, s):
    sh[s, 0, lane] = x
    cuda.syncthreads()
    m = sh[s, 0, 0]
    for j in range(1, WARP):
        if sh[s, 0, j] > m:
            m = sh[s, 0, j]
    return m


@cuda.jit(device=True)
def _sh_exclmax(x, ident, lane, sh, s):
    sh[s, 0, lane] = x
    cuda.syncthreads()
    m = ident
    for j in range(lane):
        if sh[s, 0, j] > m:
            m = sh[s, 0, j]
    return m


@cuda.jit(device=True)
def _sh_scan(a, m, lane, sh, s):
    """Exclusive max-plus scan: the maps of lanes < lane composed, as (A, M)."""
    sh[s, 0, lane] = a
    sh[s, 1, lane] = m
    cuda.syncthreads()
    A = -BIG
    Mv = int64(0)
    for j in range(lane):
        t = A + sh[s, 1, j]
        A = sh[s, 0, j] if sh[s, 0, j] > t else t
        Mv += sh[s, 1, j]
    return A, Mv


@cuda.jit(device=True)
def _sh_tail(x, e1, e2, e3, e4, lane, sh, s):
    """(x of lane 31, max of e1, e2, e3, e4 over the lanes)."""
    sh[s, 0, lane] = e1
    sh[s, 1, lane] = e2
    sh[s, 2, lane] = e3
    sh[s, 3, lane] = e4
    sh[s, 4, lane] = x
    cuda.syncthreads()
    m1 = sh[s, 0, 0]
    m2 = sh[s, 1, 0]
    m3 = sh[s, 2, 0]
    m4 = sh[s, 3, 0]
    for j in range(1, WARP):
        if sh[s, 0, j] > m1:
            m1 = sh[s, 0, j]
        if sh[s, 1, j] > m2:
            m2 = sh[s, 1, j]
        if sh[s, 2, j] > m3:
            m3 = sh[s, 2, j]
        if sh[s, 3, j] > m4:
            m4 = sh[s, 3, j]
    return sh[s, 4, WARP - 1], m1, m2, m3, m4


@cuda.jit(device=True)
def _sh_up4(a, b, c, d, lane, sh, s):
    """(a, b, c, d) of lane - 1 (lane 0 gets its own)."""
    sh[s, 0, lane] = a
    sh[s, 1, lane] = b
    sh[s, 2, lane] = c
    sh[s, 3, lane] = d
    cuda.syncthreads()
    j = lane - 1 if lane > 0 else 0
    return sh[s, 0, j], sh[s, 1, j], sh[s, 2, j], sh[s, 3, j]


@cuda.jit(device=True)
def _sh_all(p, lane, sh, s):
    """True when p holds on every lane."""
    sh[s, 0, lane] = 1 if p else 0
    cuda.syncthreads()
    for j in range(WARP):
        if sh[s, 0, j] == 0:
            return False
    return True


@cuda.jit(device=True)
def _sh_sync():
    cuda.syncthreads()


@cuda.jit(device=True)
def _sf_allmax(x, lane, sh, s):
    d = 16
    while d > 0:
        y = cuda.shfl_xor_sync(FULL, x, d)
        if y > x:
            x = y
        d >>= 1
    return x


@cuda.jit(device=True)
def _sf_nbr(x, lane, sh, s):
    y = cuda.shfl_up_sync(FULL, x, 1)
    z = cuda.shfl_sync(FULL, x, WARP - 1)
    if lane == 0:
        return x, z
    return y, z


@cuda.jit(device=True)
def _sf_exclmax(x, ident, lane, sh, s):
    d = 1
    while d < WARP:
        y = cuda.shfl_up_sync(FULL, x, d)
        if lane >= d and y > x:
            x = y
        d <<= 1
    y = cuda.shfl_up_sync(FULL, x, 1)
    if lane == 0:
        return ident
    return y


@cuda.jit(device=True)
def _sf_scan(a, m, lane, sh, s):
    d = 1
    while d < WARP:
        pa = cuda.shfl_up_sync(FULL, a, d)
        pm = cuda.shfl_up_sync(FULL, m, d)
        if lane >= d:
            t = pa + m
            if t > a:
                a = t
            m = pm + m
        d <<= 1
    pa = cuda.shfl_up_sync(FULL, a, 1)
    pm = cuda.shfl_up_sync(FULL, m, 1)
    if lane == 0:
        return -BIG, int64(0)
    return pa, pm


@cuda.jit(device=True)
def _sf_tail(x, e1, e2, e3, e4, lane, sh, s):
    return (cuda.shfl_sync(FULL, x, WARP - 1), _sf_allmax(e1, lane, sh, s),
            _sf_allmax(e2, lane, sh, s), _sf_allmax(e3, lane, sh, s),
            _sf_allmax(e4, lane, sh, s))


@cuda.jit(device=True)
def _sf_up4(a, b, c, d, lane, sh, s):
    pa = cuda.shfl_up_sync(FULL, a, 1)
    pb = cuda.shfl_up_sync(FULL, b, 1)
    pc = cuda.shfl_up_sync(FULL, c, 1)
    pd = cuda.shfl_up_sync(FULL, d, 1)
    if lane == 0:
        return a, b, c, d
    return pa, pb, pc, pd


@cuda.jit(device=True)
def _sf_all(p, lane, sh, s):
    return cuda.all_sync(FULL, p) != 0


@cuda.jit(device=True)
def _sf_sync():
    cuda.syncwarp()


if SHARED:
    _nbr, _allmax, _exclmax, _scan, _tail, _sync, _up4, _all = (
        _sh_nbr, _sh_allmax, _sh_exclmax, _sh_scan, _sh_tail, _sh_sync, _sh_up4, _sh_all)
else:                                             # pragma: no cover - needs a device
    _nbr, _allmax, _exclmax, _scan, _tail, _sync, _up4, _all = (
        _sf_nbr, _sf_allmax, _sf_exclmax, _sf_scan, _sf_tail, _sf_sync, _sf_up4, _sf_all)


# --- row 0 ------------------------------------------------------------------------------

@cuda.jit(device=True)
def _row0(lane, N, E, OE, Y, clip, cc, dd, w0, mask, tb, t0, tw, trows):
    """Row 0 by the lanes of a warp: a run of insertions from the anchor while the
    previous value is >= -Y (``dpcells.one_side``'s loop in closed form), columns below
    ``clip``, into the ring at ``w0``; links of columns below ``tw`` to ``tb[t0:]``.
    Returns the last column written."""
    if Y < OE:
        lim = 1
    elif E > 0:
        lim = (Y - OE) // E + 2
    else:
        lim = N
    n0 = N if N < lim else lim
    if n0 > clip - 1:
        n0 = clip - 1
    for col in range(lane, n0 + 1, WARP):
        if col == 0:
            cc[w0] = 0
            dd[w0] = -OE
            if tw > 0 and trows > 0:
                tb[t0] = 0
        else:
            v = -OE - (col - 1) * E
            cc[w0 + (col & mask)] = v
            dd[w0 + (col & mask)] = v - OE
            if col < tw and trows > 0:
                tb[t0 + col] = FROM_I
    return n0


# --- one row chunk ---------------------------------------------------------------------

@cuda.jit(device=True)
def _chunk(lane, sh, col, act, c, d, i_in, best, Y, E, OE):
    """Solve one chunk: (pruned, gap, v, i_at, best_before) for this lane's cell."""
    floor_in = best - Y
    mx = c if c > d else d
    pr = act and mx < floor_in
    while True:
        if not act:
            a = -BIG
            m = int64(0)
        elif pr:
            a = int64(NEG)
            m = -BIG
        elif c >= d:
            a = c - OE
            m = -E
        else:
            a = -BIG
            m = -E
        A, Mv = _scan(a, m, lane, sh, 1)
        t = i_in + Mv
        ij = A if A > t else t
        gap = d > c or ij > c
        v = c
        if gap:
            v, _, _, _ = _gap_cell(d, ij, E)
        dg = act and not gap
        pb = _exclmax(c if dg else -BIG, -BIG, lane, sh, 2)
        bj = best if best > pb else pb
        npr = act and v < bj - Y
        changed = _allmax(1 if npr != pr else 0, lane, sh, 0)
        pr = npr
        if changed == 0:
            return pr, gap, v, ij, bj


@cuda.jit(device=True)
def _warp_sweep(lane, sh, A, s1, B, b0, M, N, sub, E, OE, Y, tb_cells, cc, dd, w0, width,
                tb, t0, tw, trows, rows, r0, rc, execute, exec_r, exec_c):
    """``dpcells.one_side`` (trim only) by one warp: inspector or pruned executor.

    Same arguments and results as ``one_side``, on every lane.  Links of row r < trows,
    column c < tw go to ``tb[t0 + r * tw + c]``: the lanes of a chunk own consecutive
    columns, so the executor's dense traceback is written 32 bytes at a time (FastZ's
    coalesced traceback writes), where one thread per side writes one byte at a time.
    """
    if M <= 0 or N <= 0:
        return 0, int64(0), 0, 0, 0, 0, 0
    tail = _side_tail(E, Y, N)
    if tail + 2 > width:
        return ST_OVERFLOW, int64(0), 0, 0, 0, 0, 0
    mask = width - 1
    if execute:
        clip = exec_c + 1
        row_end = exec_r
    else:
        clip = N + 2
        row_end = M
    n0 = _row0(lane, N, E, OE, Y, clip, cc, dd, w0, mask, tb, t0, tw, trows)
    used = n0 + 1
    cells = used
    if execute:
        RY = int64(rows[r0 + 1])
    else:
        RY = n0 + 1
        if rc > 0 and lane == 0:
            rows[r0] = 0
            rows[r0 + 1] = RY
    LY = 0
    max_ry = RY
    last_row = 0
    end1 = 0
    end2 = 0
    best = int64(0)
    status = 0
    _sync()
    row = 1
    while row <= row_end:
        prev_ly = LY
        if execute:
            best = int64(rows[r0 + 2 * row])
        if RY - prev_ly + tail + 2 > width:
            status |= ST_OVERFLOW
            break
        if RY < LY:
            RY = LY
        if not execute:
            if used + (RY - LY) + tail >= tb_cells:
                status |= ST_TRUNCATED
                break
            if row < rc and lane == 0:
                rows[r0 + 2 * row] = best
        tw_row = tw if row < trows else 0
        tbase = t0 + row * tw
        a = A[s1 + row]
        hi = RY if RY < clip else clip
        ly0 = LY
        i = int64(NEG)
        np_col = ly0
        end_col = -1
        lead = True
        carry = int64(NEG)
        base = ly0
        while base < hi:
            col = base + lane
            act = col < hi
            d = int64(NEG)
            cn = int64(NEG)
            if act:
                slot = w0 + (col & mask)
                d = int64(dd[slot])
                cn = cc[slot] + sub[a, B[b0 + col]]     # diagonal input of column col + 1
            up, last_cn = _nbr(cn, lane, sh, 0)
            c = carry if lane == 0 else up
            carry = last_cn
            pr, gap, v, ij, bj = _chunk(lane, sh, col, act, c, d, i, best, Y, E, OE)
            before = _exclmax(0 if pr else 1, 0, lane, sh, 1)    # any unpruned lane before?
            ld = pr and lead and before == 0
            link = 0
            if act:
                slot = w0 + (col & mask)
                if pr:
                    if not ld:
                        cc[slot] = NEG
                        dd[slot] = NEG
                    ia = ij if ld else int64(NEG)
                elif gap:
                    v, dn, ia, link = _gap_cell(d, ij, E)
                    cc[slot] = v
                    dd[slot] = dn
                else:
                    dn, ia, link = _diag_cell(c, d, ij, E, OE)
                    cc[slot] = c
                    dd[slot] = dn
                if col < tw_row:
                    tb[tbase + col] = link
            else:
                ia = ij
            live = act and not pr
            dgl = live and not gap
            i, ev, top, npc, nld = _tail(ia, col if (dgl and c >= bj) else -1,
                                         c if dgl else -BIG, col if live else -1,
                                         lane + 1 if ld else 0, lane, sh, 2)
            if ev >= 0:
                end_col = ev
            if top > best:
                best = top
            if npc >= 0:
                np_col = npc
            LY += nld
            if nld < WARP:
                lead = False
            base += WARP
        if hi > ly0:
            cells += hi - ly0
            used += hi - ly0
        if end_col >= 0:
            end1 = row
            end2 = end_col
        last_row = row
        if LY >= RY:
            break
        if execute and RY > clip:
            # the sweep was cut at the executor's region: the inspector's bound
            RY = int64(rows[r0 + 2 * row + 1])
        else:
            if RY > np_col + 1:
                RY = np_col + 1
            else:
                # prolong the row with insertions for the overhang of the row above
                nprol = 0
                if i >= best - Y and RY <= N:
                    room = N - RY + 1
                    if E > 0:
                        nprol = (i - (best - Y)) // E + 1
                        if nprol > room:
                            nprol = room
                    else:
                        nprol = room
                for t in range(lane, nprol, WARP):
                    col = RY + t
                    v = i - t * E
                    slot = w0 + (col & mask)
                    cc[slot] = v
                    dd[slot] = v - OE
                    if col < tw_row:
                        tb[tbase + col] = FROM_I
                i -= nprol * E
                used += nprol
                RY += nprol
            if RY <= N:
                if lane == 0:
                    slot = w0 + (RY & mask)
                    cc[slot] = NEG
                    dd[slot] = NEG
                RY += 1
            if not execute and row < rc and lane == 0:
                rows[r0 + 2 * row + 1] = RY
            if RY > max_ry:
                max_ry = RY
        _sync()
        row += 1
    _sync()
    if execute:
        end1 = exec_r
        end2 = exec_c
    return status, best, end1, end2, cells, last_row, max_ry


@cuda.jit
def _inspect_warp_kernel(Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                         cc, dd, width, tbe, eops, rows, roff, rcap, out):
    sh_all = cuda.shared.array((WARPS_PER_BLOCK, NSLOT, 5, WARP), int64)
    corner = cuda.shared.array(CORNERS, uint8)       # eager links
    tid = cuda.threadIdx.x
    lane = tid % WARP
    wid = tid // WARP
    k = cuda.blockIdx.x * WARPS_PER_BLOCK + wid
    te = wid * EAGER_STRIDE
    if k < rev.shape[0]:
        A, s1, B, b0 = _side_operands(rev[k], a1[k], a2[k], Tf, Tr, Qf, Qr)
        st, score, er, ec, cells, last_row, max_ry = _warp_sweep(
            lane, sh_all[wid], A, s1, B, b0, Mv[k], Nv[k], sub, E, OE, Y, tb_cells, cc, dd,
            k * width, width, corner, te, EAGER, EAGER, rows, roff[k], rcap[k],
            False, 0, 0)
        if lane == 0:
            _record_inspection(k, out, st, score, er, ec, cells, last_row, max_ry, corner,
                               te, eops)


@cuda.jit
def _execute_warp_kernel(sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc,
                         dd, width, tb, toff, rows, roff, rcap, out, xops, xoff, xn):
    sh_all = cuda.shared.array((WARPS_PER_BLOCK, NSLOT, 5, WARP), int64)
    tid = cuda.threadIdx.x
    lane = tid % WARP
    wid = tid // WARP
    j = cuda.blockIdx.x * WARPS_PER_BLOCK + wid
    if j < sel.shape[0]:
        k = sel[j]
        er = out[k, O_END_R]
        ec = out[k, O_END_C]
        A, s1, B, b0 = _side_operands(rev[k], a1[k], a2[k], Tf, Tr, Qf, Qr)
        _warp_sweep(lane, sh_all[wid], A, s1, B, b0, Mv[k], Nv[k], sub, E, OE, Y,
                    int64(1) << 62, cc, dd, j * width, width, tb, toff[j], ec + 1, er + 1,
                    rows, roff[k], rcap[k], True, er, ec)
        if lane == 0:
            xn[j] = _trace_dense(tb, toff[j], ec + 1, er, ec, xops, xoff[j])


def _launch(kernel, n, width, trim, stream, args):
    """``kernel`` over n sides, one warp each (nothing to do for n = 0)."""
    if n == 0:
        return
    if width & (width - 1):
        raise ValueError("the warp mapping needs a power-of-two work width")
    if not trim:
        raise ValueError("the warp mapping implements LASTZ's default trimming only")
    nb = (n + WARPS_PER_BLOCK - 1) // WARPS_PER_BLOCK
    kernel[nb, WARP * WARPS_PER_BLOCK, stream](*args)


def inspect_warp_gpu(Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                     cc, dd, width, tbe, eops, rows, roff, rcap, out, stream=0):
    """``extension.inspect_cpu`` on the device, one warp per extension.

    ``width`` must be a power of two; ``trim`` must be true (LASTZ's default).  The
    eager corner lives in shared memory (``tbe`` is unused).
    """
    _launch(_inspect_warp_kernel, rev.shape[0], width, trim, stream,
            (Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells, cc, dd, width,
             tbe, eops, rows, roff, rcap, out))


def execute_warp_gpu(sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc, dd,
                     width, tb, toff, rows, roff, rcap, out, xops, xoff, xn, stream=0):
    """``extension.execute_cpu`` on the device, one warp per extension: the lanes write
    a row's links 32 consecutive bytes at a time.  Same constraints as the inspector."""
    _launch(_execute_warp_kernel, sel.shape[0], width, trim, stream,
            (sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc, dd, width, tb,
             toff, rows, roff, rcap, out, xops, xoff, xn))


__all__ = ["inspect_warp_gpu", "execute_warp_gpu", "WARPS_PER_BLOCK", "SHARED"]
