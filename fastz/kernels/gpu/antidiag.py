"""Anti-diagonal inspector (FastZ's mapping), exact: one warp per extension.

Same inputs and outputs as ``extension.inspect_gpu`` (CPU twin:
``extension.inspect_cpu``), except that ``cc``/``dd`` hold two rings of ``width``
cells per side.  The rows are taken 32 at a time (a strip): lane k sweeps row
R0 + k one cell per step, one column behind lane k - 1, so the C and D values a
cell needs from the row above arrive by one shuffle from the lane above and live
in registers.  Lane 0 reads the row above the strip from a ring, lane 31 writes
the strip's last row to the other ring (FastZ's circular use-and-discard buffer).

LASTZ's sweep needs two facts a trailing lane does not have yet (docs/gpu.md,
"The anti-diagonal mapping"): the running best over the *whole* row above (the
y-drop floor) and where the row above ends (its sweep bound RY, which decides
between a swept cell and a prolonged insertion, with different D values).  So
each lane starts from assumptions, a best ``Ba`` and a bound ``RYa`` of the row
above, and a strip is swept in passes:

* pass 1 assumes the best at the strip start and an open bound (a lane stops
  only when the lane above reports its row finished);
* after a pass every lane derives the true best before its row (prefix maximum
  over the lanes above) and the true bound (the lane above's RY) and checks
  that its row is what LASTZ computes from the row above: the true floor prunes
  the same cells (no live cell below it, no cell pruned only because ``Ba`` was
  too high), and no live cell was swept at or past the true bound (dead cells
  there are where LASTZ's prolongation stops);
* if a lane fails, the strip is swept again with the derived values.

A lane settles how its row ends (truncated or prolonged) at its last swept column,
one step early, so that the lane below learns the bound before sweeping past it.

A row computed from exact rows under exact assumptions is exact and lane 0's
assumptions are the committed state, so every pass makes at least one more row
exact: at most 33 passes (34 with other first guesses), two in the common case
(a best that grows along the alignment moves the floor of the rows below).
Counts, records and LASTZ's stops (work buffer overflow, traceback budget, a
dead row, the last row) are settled from the checked strip with lane scans.
Only LASTZ's default trimming is handled, as in the row-parallel mapping.
"""
from __future__ import annotations

from numba import cuda, int64, uint8

from ..dpcells import EAGER, EAGER_STRIDE, ST_OVERFLOW, ST_TRUNCATED
from ..ydrop import FROM_I, NEG
from .warp import (BIG, CORNERS, NSLOT, WARP, WARPS_PER_BLOCK, _all, _allmax, _diag_cell,
                   _exclmax, _gap_cell, _launch, _nbr, _record_inspection, _row0, _scan,
                   _side_operands, _side_tail, _sync, _up4)

OPEN = 1 << 40              # a row's bound not known yet / a row not finished yet
GONE = -1                   # lane state: no row (past M, or a row above was dead)
DEAD = -2                   # lane state: its row was swept and every cell pruned
LOW32 = (1 << 32) - 1


@cuda.jit(device=True)
def _sweep_end(hi, LYr, np_col, N):
    """LASTZ's decision when a row's sweep ends before column hi, as (phase, state):
    every cell pruned (finished, DEAD), truncated after the last live cell (finished,
    the row's RY) or prolonged with insertions (phase 2, not finished)."""
    if LYr >= hi:
        return 3, int64(DEAD)
    if hi > np_col + 1:
        return 3, np_col + 2 if np_col + 1 <= N else np_col + 1
    return 2, int64(OPEN)


@cuda.jit(device=True)
def _strip_pass(lane, sh, r, exists, a, B, b0, N, sub, E, OE, Y, cc, dd, rin, rout, mask,
                LY, RY, Ba, RYa, tb, t0):
    """One pass over a strip: lane ``lane`` sweeps row r under the assumptions
    (Ba, RYa).  Returns (state, LYr, lystart, hi, np_col, rowmax, rowmax_col,
    minalive, maxpruned, prol): state is the row's RY when it finished, DEAD or GONE;
    minalive is the lowest live cell, maxpruned the highest cell pruned by a floor
    above the row's own running best less Y (so pruned because of Ba)."""
    phase = 0 if exists else 3          # 0 wait, 1 sweep, 2 prolong, 3 finished,
                                        # 4 prolong from the next column
    state = int64(OPEN) if exists else int64(GONE)
    LYr = LY
    lystart = LY
    hi = LY
    i = int64(NEG)
    c = int64(NEG)
    rbest = Ba
    np_col = int64(-1)
    rowmax = int64(-BIG)
    rowmax_col = int64(-1)
    minalive = int64(BIG)
    maxpruned = int64(-BIG)
    prol = int64(0)
    oc = int64(NEG)
    od = int64(NEG)
    oly = LY
    t = 0
    while True:
        col = LY + t - lane
        if phase == 4:
            phase = 2
        # the lane above's outputs of the last step: C, D of this column, its LY so far,
        # its state after this column
        uc, ud, uly, ust = _up4(oc, od, oly, state, lane, sh, 0)
        if lane == 0:
            uly = LY
            ust = RY
            if col >= LY and col < RY:
                uc = int64(cc[rin + (col & mask)])
                ud = int64(dd[rin + (col & mask)])
            else:
                uc = int64(NEG)
                ud = int64(NEG)
        oc = int64(NEG)
        od = int64(NEG)
        emit = False
        if phase == 0:
            if ust < 0:
                phase = 3
                state = GONE
            elif col >= uly:          # the row above's first live cell: start here
                phase = 1
                LYr = col
                lystart = col
            else:
                oly = uly
        if phase == 1:
            emit = True
            if col >= RYa or ust <= col or col > N:
                hi = col              # the sweep ends before this column
                phase, state = _sweep_end(col, LYr, np_col, N)
            else:
                d = ud
                floor = rbest - Y
                pruned = False
                link = 0
                v = c
                if d > c or i > c:                # a gap beats the diagonal (strictly)
                    v, dn, ni, link = _gap_cell(d, i, E)
                    if v < floor:
                        pruned = True
                    else:
                        i = ni
                        od = dn
                        oc = v
                        np_col = col
                        if v < minalive:
                            minalive = v
                elif c < floor:
                    pruned = True
                else:
                    if c >= rbest:
                        rbest = c
                    if c >= rowmax:           # the last column holding the row's best
                        rowmax = c
                        rowmax_col = col
                    od, i, link = _diag_cell(c, d, i, E, OE)
                    oc = c
                    np_col = col
                    if c < minalive:
                        minalive = c
                if pruned:
                    if v > maxpruned and v >= rowmax - Y:
                        maxpruned = v
                    link = 0
                    if LYr == col:
                        LYr += 1              # nothing stored for a leading pruned cell
                    else:
                        i = int64(NEG)
                if r < EAGER and col < EAGER:
                    tb[t0 + r * EAGER + col] = link
                c = uc + sub[a, B[b0 + col]]  # diagonal input of column col + 1
                nxt = col + 1
                if nxt >= RYa or ust <= nxt or nxt > N:
                    # the last swept column: end the sweep now, so that the lane below
                    # learns this row's bound before it sweeps past it
                    hi = nxt
                    phase, state = _sweep_end(nxt, LYr, np_col, N)
                    if phase == 2:
                        phase = 4     # prolong from the next column
        if phase == 2:
            emit = True
            if i >= rbest - Y and col <= N:   # prolong with insertions
                oc = i
                od = i - OE
                if i < minalive:
                    minalive = i
                if r < EAGER and col < EAGER:
                    tb[t0 + r * EAGER + col] = FROM_I
                i -= E
                prol += 1
            else:
                if col <= N and i > maxpruned and i >= rowmax - Y:
                    maxpruned = i
                phase = 3
                state = col + 1 if col <= N else col
        if phase != 0:
            oly = LYr
        if emit and lane == WARP - 1:
            cc[rout + (col & mask)] = oc
            dd[rout + (col & mask)] = od
        t += 1
        if _all(phase == 3, lane, sh, 1):
            return (state, LYr, lystart, hi, np_col, rowmax, rowmax_col, minalive, maxpruned,
                    prol)


@cuda.jit(device=True)
def _diag_sweep(lane, sh, A, s1, B, b0, M, N, sub, E, OE, Y, tb_cells, cc, dd, w0, width,
                tb, t0, rows, r0, rc, bias, reach):
    """``dpcells.one_side`` (inspector, trim only) by one warp along anti-diagonals.

    Pass 1 of a strip assumes the best at the strip start plus ``bias`` and, when
    ``reach`` >= 0, a bound of the row above ``reach`` columns past the strip's top
    bound (else none).  Any guess gives the same result (the checks correct it); the
    defaults (0, -1) are the cheap one.  Returns ``one_side``'s (status, score, end_r,
    end_c, cells, last_row, max_ry) on every lane, plus the strips and passes swept."""
    if M <= 0 or N <= 0:
        return 0, int64(0), 0, 0, 0, 0, 0, 0, 0
    tail = _side_tail(E, Y, N)
    if tail + 2 > width:
        return ST_OVERFLOW, int64(0), 0, 0, 0, 0, 0, 0, 0
    mask = width - 1
    n0 = _row0(lane, N, E, OE, Y, N + 2, cc, dd, w0, mask, tb, t0, EAGER, EAGER)  # ring 0
    used = int64(n0 + 1)
    cells = used
    RY = int64(n0 + 1)
    LY = int64(0)
    if rc > 0 and lane == 0:
        rows[r0] = 0
        rows[r0 + 1] = RY
    max_ry = RY
    last_row = int64(0)
    end1 = int64(0)
    end2 = int64(0)
    best = int64(0)
    status = 0
    strips = 0
    passes = 0
    rin = w0
    rout = w0 + width
    _sync()
    R0 = int64(1)
    while R0 <= M:
        strips += 1
        r = R0 + lane
        exists = r <= M
        a = A[s1 + r] if exists else A[s1]
        Ba = best + bias                        # assumed best before row r
        RYa = int64(OPEN) if reach < 0 else RY + reach * lane  # ... bound of row r - 1
        if lane == 0:
            RYa = RY
        npass = 0
        while True:
            npass += 1
            (state, LYr, lystart, hi, np_col, rowmax, rowmax_col, minalive, maxpruned,
             prol) = _strip_pass(lane, sh, r, exists, a, B, b0, N, sub, E, OE, Y, cc, dd,
                                 rin, rout, mask, LY, RY, Ba, RYa, tb, t0)
            above, _ = _nbr(state, lane, sh, 2)
            ryprev = RY if lane == 0 else above               # the true bound
            Bk = _exclmax(rowmax, int64(-BIG), lane, sh, 0)   # the true best before row r
            if best > Bk:
                Bk = best
            # the row is LASTZ's row r: the true floor prunes the same cells, and no live
            # cell was swept at or past the true bound
            ok = (state == GONE or (minalive >= Bk - Y and maxpruned < Bk - Y
                                    and hi >= ryprev and np_col < ryprev))
            if _allmax(0 if ok else 1, lane, sh, 1) == 0:
                break
            if npass > WARP + 1:                 # cannot happen; the CPU would redo it
                status |= ST_OVERFLOW
                break
            Ba = Bk
            if lane > 0 and ryprev >= 0:
                RYa = ryprev
        passes += npass
        if status != 0:
            break
        # --- settle the strip: LASTZ's checks before each row, then its counts ----------
        gone = state == GONE
        swept = ryprev - lystart if (not gone and ryprev > lystart) else int64(0)
        _, before = _scan(int64(-BIG), swept + prol if not gone else int64(0), lane, sh, 2)
        ryfix = ryprev if ryprev > lystart else lystart
        code = 0
        if not gone:
            if ryprev - lystart + tail + 2 > width:
                code = 2
            elif used + before + (ryfix - lystart) + tail >= tb_cells:
                code = 1
        key = _allmax((WARP - lane) * 4 + code if code else 0, lane, sh, 0)
        first_stop = WARP - key // 4 if key else WARP
        first_dead = WARP - _allmax(WARP - lane if state == DEAD else 0, lane, sh, 1)
        proc = (not gone) and lane < first_stop and lane <= first_dead
        if proc and r < rc:
            rows[r0 + 2 * r] = Bk
            if state != DEAD:
                rows[r0 + 2 * r + 1] = state
        _, n_cells = _scan(int64(-BIG), swept if proc else int64(0), lane, sh, 2)
        _, tot_cells = _nbr(n_cells + (swept if proc else 0), lane, sh, 0)
        _, n_used = _scan(int64(-BIG), swept + prol if proc else int64(0), lane, sh, 1)
        _, tot_used = _nbr(n_used + (swept + prol if proc else 0), lane, sh, 2)
        cells += tot_cells
        used += tot_used
        lr = _allmax(r if proc else int64(-1), lane, sh, 0)
        if lr >= 0:
            last_row = lr
        ekey = _allmax((r << 32) + rowmax_col if (proc and rowmax >= Bk) else int64(-1),
                       lane, sh, 1)
        if ekey >= 0:
            end1 = ekey >> 32
            end2 = ekey & LOW32
        top = _allmax(rowmax if proc else int64(-BIG), lane, sh, 2)
        if top > best:
            best = top
        mry = _allmax(state if (proc and state != DEAD) else int64(-1), lane, sh, 0)
        if mry > max_ry:
            max_ry = mry
        if key:
            status |= ST_OVERFLOW if key % 4 == 2 else ST_TRUNCATED
        if first_stop < WARP or first_dead < WARP or R0 + WARP > M:
            break
        _, LY = _nbr(LYr, lane, sh, 1)          # the strip's last row: the next one's top
        _, RY = _nbr(state, lane, sh, 2)
        rin, rout = rout, rin
        R0 += WARP
    _sync()
    return status, best, end1, end2, cells, last_row, max_ry, strips, passes


@cuda.jit
def _inspect_diag_kernel(Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                         cc, dd, width, tbe, eops, rows, roff, rcap, out, stats, bias, reach):
    sh_all = cuda.shared.array((WARPS_PER_BLOCK, NSLOT, 5, WARP), int64)
    corner = cuda.shared.array(CORNERS, uint8)       # eager links
    tid = cuda.threadIdx.x
    lane = tid % WARP
    wid = tid // WARP
    k = cuda.blockIdx.x * WARPS_PER_BLOCK + wid
    te = wid * EAGER_STRIDE
    if k < rev.shape[0]:
        A, s1, B, b0 = _side_operands(rev[k], a1[k], a2[k], Tf, Tr, Qf, Qr)
        st, score, er, ec, cells, last_row, max_ry, strips, passes = _diag_sweep(
            lane, sh_all[wid], A, s1, B, b0, Mv[k], Nv[k], sub, E, OE, Y, tb_cells, cc, dd,
            k * 2 * width, width, corner, te, rows, roff[k], rcap[k], bias, reach)
        if lane == 0:
            _record_inspection(k, out, st, score, er, ec, cells, last_row, max_ry, corner,
                               te, eops)
            if k < stats.shape[0]:
                stats[k, 0] = strips
                stats[k, 1] = passes


def inspect_diag_gpu(Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                     cc, dd, width, tbe, eops, rows, roff, rcap, out, stream=0, stats=None,
                     bias=0, reach=-1):
    """``extension.inspect_cpu`` on the device along anti-diagonals, one warp per side.

    ``cc`` and ``dd`` need ``2 * width`` cells per side (two rings); ``width`` must be a
    power of two and ``trim`` true.  ``stats`` (optional, n x 2 int64) receives each
    side's strips and passes.  ``bias`` and ``reach`` change pass 1's guesses (for the
    tests: the result must not depend on them).  The eager corner lives in shared
    memory.
    """
    n = rev.shape[0]
    if cc.shape[0] < 2 * n * width or dd.shape[0] < 2 * n * width:
        raise ValueError("the anti-diagonal mapping needs two rings of width cells per side")
    _launch(_inspect_diag_kernel, n, width, trim, stream,
            (Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells, cc, dd, width,
             tbe, eops, rows, roff, rcap, out, out[:0] if stats is None else stats, bias,
             reach))


__all__ = ["inspect_diag_gpu"]
