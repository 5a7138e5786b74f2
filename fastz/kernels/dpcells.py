"""Undecorated y-drop DP recurrences shared by the CPU twins and the GPU kernels.

The functions here carry no numba decorator.  ``compile_cells(jit)`` compiles
them for one target: ``numba.njit`` for the CPU twins, ``cuda.jit(device=True)``
for the GPU; a function that calls another one is rebuilt with its globals
pointing at the callee compiled for the same target (a cuda kernel must never
call an njit dispatcher).  Called from plain Python they are readable oracles.

They compute LASTZ's *unbounded* one-sided y-drop extension: the same sweep as
``fastz.kernels.ydrop.one_sided`` with no earlier alignments (lseg = rseg =
alist = NONE), on fixed-size work buffers (a GPU cannot grow arrays).  Exactness
with respect to LASTZ's bounded extension is restored on the host by
``fastz.kernels.gpu.resolve`` (docs/gpu.md).

Buffers (all 1-D, so one global array serves a whole batch of extensions):

* ``cc``/``dd`` int32 work row of C and D values, ``width`` cells from ``w0``
  (the row is updated in place: cell ``col`` of this row is written at
  ``col - LY`` while the previous row is read at ``col - prev_ly``).
* ``tb`` uint8 traceback links, dense: cell (r, c) at ``t0 + r * tw + c`` for
  ``r < trows`` and ``c < tw``; other cells are not stored.
* ``rows`` int32 per-row record (running best at the row start, right bound
  after the row) at ``r0 + 2 * row``, for ``row < rcap``.

Mirrors LASTZ 1.04.22 gapped_extend.c ydrop_one_sided_align (no bounding).
"""
from __future__ import annotations

import numpy as np

from .twins import compile_twins

NEG = -1_932_735_283          # LASTZ's "negative infinity" for DP cells
FROM_C = 0                    # traceback link: bits 0-1 say where C came from,
FROM_I = 1
FROM_D = 2
I_EXT = 4                     # ... bit 2 / 3: the gap leaving the cell extends
D_EXT = 8
EAGER = 16                    # side of the eager traceback corner

# side status bits (O_STATUS)
ST_OVERFLOW = 1        # a row did not fit the work buffer: extend on the CPU
ST_TRUNCATED = 2       # LASTZ's traceback allocation would run out: the CPU reports it

# per-side result fields
O_STATUS, O_SCORE, O_END_R, O_END_C, O_CELLS, O_LAST_ROW, O_MAX_RY, O_NOPS = range(8)
N_OUT = 8
EAGER_CELLS = EAGER * EAGER    # eager traceback bytes per side
EAGER_STRIDE = EAGER_CELLS + 4  # a side's corner in shared memory: the 4-byte pad puts
                               # the same cell of neighbouring threads in different banks
EAGER_OPS = 2 * EAGER          # eager ops per side (end_r + end_c < 2 * EAGER)


def gap_cell(d, i, E):
    """A gap beats the diagonal (strictly): the cell's C (the larger gap, D preferred on
    ties), the D and I leaving it and its link.  No gap opens from a gap-derived C: both
    extend."""
    if d >= i:
        return d, d - E, i - E, FROM_D | I_EXT | D_EXT
    return i, d - E, i - E, FROM_I | I_EXT | D_EXT


def diag_cell(c, d, i, E, OE):
    """The diagonal wins with C = c: the D and I leaving the cell and its link (a gap
    that can extend is preferred to one that opens, on ties)."""
    c_open = c - OE
    de = d - E
    ie = i - E
    link = FROM_C
    if c_open > de:
        dn = c_open
    else:
        dn = de
        link = D_EXT
    if c_open > ie:
        ni = c_open
    else:
        ni = ie
        link |= I_EXT
    return dn, ni, link


def sweep_span(ccr, ddr, ccw, ddw, Bk, srow, mkk, tbk, k, n, ntb, lo, nw, c, i, best,
               np_col, end_col, at_boundary, boundary, Y, E, OE, stamp, masked, check):
    """Cells k..n-1 of ``sweep_row``'s row (its views and loop state, see there);
    ``check``: every one of them is a boundary cell (--noytrim).  ``sweep_row``
    passes ``check`` as a constant, so each inlined copy of the loop carries only its
    own case: tested in every cell, the boundary kept the loop's values beyond x86's
    sixteen registers, and the best score, the floor and the end went through memory
    at each cell (cell-by-cell rows 10-15 % faster without; constants for the masked
    and the link-storing cases too made the SIMD rows' code 12 % slower).  For the
    same reason the loop carries as little as it can: the floor is the best less Y,
    the row's first stored column (LY) follows from the cells stored (``nw``), and
    outside the boundary cells ``at_boundary`` only ever turns false with a new end,
    so it is settled after the loop."""
    end_in = end_col
    while k < n:
        u = np.uint64(k)
        d = ddr[u]
        c_next = ccr[u] + srow[Bk[u]]
        pruned = False
        link = 0
        if masked and mkk[u] == stamp:
            pruned = True
        elif d > c or i > c:           # a gap beats the diagonal (strictly)
            c, dn, ni, link = gap_cell(d, i, E)
            if c < best - Y:
                pruned = True
            else:
                i = ni
                ddw[np.uint64(nw)] = dn
                ccw[np.uint64(nw)] = c
                np_col = lo + k
        elif c < best - Y:
            pruned = True
        else:
            if c >= best:              # ties move the end forward
                best = c
                end_col = lo + k
                if check:
                    at_boundary = False
            if check and c >= boundary:
                boundary = c
                end_col = lo + k
                at_boundary = True
            dn, i, link = diag_cell(c, d, i, E, OE)
            ddw[np.uint64(nw)] = dn
            ccw[np.uint64(nw)] = c
            np_col = lo + k
        if pruned:
            link = 0
            if nw != 0:                # (nothing stored for a leading pruned cell)
                ccw[np.uint64(nw)] = NEG
                ddw[np.uint64(nw)] = NEG
                i = NEG
                nw += 1
        else:
            nw += 1
        if k < ntb:
            tbk[u] = link
        c = c_next
        k += 1
    if not check and end_col != end_in:
        at_boundary = False
    return nw, c, i, best, np_col, end_col, at_boundary, boundary


def sweep_row(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE, row, M, N,
              trim, boundary, tb, t0, tw, mk, masked, stamp):
    """One DP row over columns [col, hi): the hot loop of every y-drop sweep.

    cc/dd hold C and D of the previous row at ``w0 + col - prev_ly`` and receive
    this row's at ``w0 + col - LY`` (LY only grows, so writes never overtake
    reads).  ``B[b0 + c]`` is the query character of column c + 1, ``a`` the
    target character of this row.  Links of columns below ``tw`` go to
    ``tb[t0 + c]``.  With ``masked``, a cell whose ``mk[col - prev_ly]`` equals
    ``stamp`` lies on an earlier alignment and is pruned (LASTZ's active
    segments; the unbounded GPU sweep passes masked=False).  The sweep starts at
    the row's left bound: ``col == LY``.
    Returns (col, LY, np_col, i, best, end_col, at_boundary, boundary); end_col
    is -1 when no cell of this row became the end.

    Branches as LASTZ does: when the diagonal wins (the common case) the carried
    I value depends only on the diagonal proposal, known a cell ahead, so the
    loop-carried dependency stays short.  The arrays are viewed from the row's
    first column and indexed with unsigned integers: numba then emits no
    negative-index fix-up per access, and fewer live values spill (measured
    +25-40 % cells/s; a select-based, branch-free body was slower).  The loop is
    ``sweep_span``: the row is swept in spans, so that only --noytrim's boundary
    cells (every cell of the last row, or column N) are tested as such.
    """
    i = NEG
    c = NEG
    np_col = col
    end_col = -1
    at_boundary = False
    # views that start at the row's first column, indexed without sign checks:
    # reads of the previous row at k, writes of this row at nw (LY only grows)
    lo = col
    ccr = cc[w0 + lo - prev_ly:]
    ddr = dd[w0 + lo - prev_ly:]
    ccw = cc[w0:]
    ddw = dd[w0:]
    Bk = B[b0 + lo:]
    srow = sub[a]
    mkk = mk[lo - prev_ly:] if masked else mk
    tbk = tb[t0 + lo:] if tw > lo else tb
    ntb = tw - lo
    n = hi - lo
    # --noytrim's boundary cells, tested as such apart: every cell of the last row,
    # or column N (the row's last cell when it reaches it)
    if (not trim) and row == M:
        nw, c, i, best, np_col, end_col, at_boundary, boundary = sweep_span(
            ccr, ddr, ccw, ddw, Bk, srow, mkk, tbk, 0, n, ntb, lo, 0, c, i, best, np_col,
            end_col, at_boundary, boundary, Y, E, OE, stamp, masked, True)
    else:
        bnd_k = N - lo if not trim else n
        cut = bnd_k if 0 <= bnd_k < n else n
        nw, c, i, best, np_col, end_col, at_boundary, boundary = sweep_span(
            ccr, ddr, ccw, ddw, Bk, srow, mkk, tbk, 0, cut, ntb, lo, 0, c, i, best, np_col,
            end_col, at_boundary, boundary, Y, E, OE, stamp, masked, False)
        if cut < n:
            nw, c, i, best, np_col, end_col, at_boundary, boundary = sweep_span(
                ccr, ddr, ccw, ddw, Bk, srow, mkk, tbk, cut, cut + 1, ntb, lo, nw, c, i,
                best, np_col, end_col, at_boundary, boundary, Y, E, OE, stamp, masked,
                True)
            nw, c, i, best, np_col, end_col, at_boundary, boundary = sweep_span(
                ccr, ddr, ccw, ddw, Bk, srow, mkk, tbk, cut + 1, n, ntb, lo, nw, c, i,
                best, np_col, end_col, at_boundary, boundary, Y, E, OE, stamp, masked,
                False)
    # the row starts at its first stored cell: every cell after it is stored
    # (the callers start the sweep at LY: col == LY)
    LY += n - nw
    col = lo + n if n > 0 else col
    return col, LY, np_col, i, best, end_col, at_boundary, boundary


def side_tail(E, Y, N):
    """Columns a row may be prolonged by (LASTZ's allocation margin)."""
    if E != 0:
        return Y // E + 6
    if N < 500_000:
        return N + 1
    return 500_000


def one_side(A, s1, B, b0, M, N, sub, E, OE, Y, trim, tb_cells, cc, dd, w0, width,
             tb, t0, tw, trows, rows, r0, rcap, execute, exec_r, exec_c):
    """Unbounded one-sided y-drop extension: inspector or pruned executor.

    ``A[s1 + r]`` is the target character of row r; ``B[b0 + c]`` the query
    character of column c + 1; M, N rows / columns available.  In inspector
    mode (``execute`` false) the per-row record is written for rows below
    ``rcap``; in executor mode it is read, only rows <= exec_r and columns
    <= exec_c are computed, and every link of that region is stored
    (tw = exec_c + 1, trows = exec_r + 1).

    Returns (status, score, end_r, end_c, cells, last_row, max_ry) as
    ``ydrop.one_sided``; status has ST_OVERFLOW when a row did not fit
    ``width`` and ST_TRUNCATED when LASTZ would have run out of traceback
    cells (``tb_cells``); either way the result must come from the CPU.
    """
    if M <= 0 or N <= 0:
        return 0, 0, 0, 0, 0, 0, 0
    tail = side_tail(E, Y, N)
    if tail + 2 > width:
        return ST_OVERFLOW, 0, 0, 0, 0, 0, 0
    if execute:
        clip = exec_c + 1
        row_end = exec_r
    else:
        clip = N + 2
        row_end = M
    # --- row 0: a run of insertions from the anchor ---------------------------
    cc[w0] = 0
    dd[w0] = -OE
    if tw > 0 and trows > 0:
        tb[t0] = 0
    c = -OE
    last = 0
    col = 1
    while col <= N and last >= -Y and col < clip:
        cc[w0 + col] = c
        last = c
        dd[w0 + col] = c - OE
        c -= E
        if col < tw and trows > 0:
            tb[t0 + col] = FROM_I
        col += 1
    used = col
    cells = col
    LY = 0
    if execute:
        RY = rows[r0 + 1]
    else:
        RY = col
        if rcap > 0:
            rows[r0] = 0
            rows[r0 + 1] = RY
    max_ry = RY
    last_row = 0
    end1 = 0
    end2 = 0
    best = 0
    boundary = NEG
    at_boundary = False
    status = 0
    row = 1
    while row <= row_end:
        prev_ly = LY
        if execute:
            best = rows[r0 + 2 * row]
        if RY - prev_ly + tail + 2 > width:
            status |= ST_OVERFLOW
            break
        if RY < LY:
            RY = LY
        if not execute:
            if used + (RY - LY) + tail >= tb_cells:
                status |= ST_TRUNCATED
                break
            if row < rcap:
                rows[r0 + 2 * row] = best
        tw_row = tw if row < trows else 0
        tbase = t0 + row * tw
        hi = RY if RY < clip else clip
        swept_from = LY
        col, LY, np_col, i, best, end_col, at_b, boundary = sweep_row(
            cc, dd, w0, B, b0, sub, A[s1 + row], LY, hi, prev_ly, LY, best, Y, E, OE,
            row, M, N, trim, boundary, tb, tbase, tw_row, cc, False, 0)
        if end_col >= 0:
            end1 = row
            end2 = end_col
            at_boundary = at_b
        cells += col - swept_from
        used += col - swept_from
        last_row = row
        if LY >= RY:
            break
        if execute and RY > clip:
            # the sweep was cut at the executor's region: the inspector's bound
            RY = rows[r0 + 2 * row + 1]
            row += 1
            continue
        if RY > np_col + 1:
            RY = np_col + 1
        else:
            # prolong the row with insertions for the overhang of the row above
            while i >= best - Y and RY <= N:
                w = w0 + RY - LY
                cc[w] = i
                dd[w] = i - OE
                i -= E
                if RY < tw_row:
                    tb[tbase + RY] = FROM_I
                used += 1
                RY += 1
        if RY <= N:
            w = w0 + RY - LY
            cc[w] = NEG
            dd[w] = NEG
            RY += 1
        if not execute and row < rcap:
            rows[r0 + 2 * row + 1] = RY
        if RY > max_ry:
            max_ry = RY
        row += 1
    if execute:
        end1 = exec_r
        end2 = exec_c
    score = boundary if at_boundary else best
    return status, score, end1, end2, cells, last_row, max_ry


def trace_dense(tb, t0, tw, end_r, end_c, ops, o0):
    """Walk links back from (end_r, end_c) to (0, 0) over a dense traceback.

    Writes one op per step at ``ops[o0 + k]`` (0 sub, 1 ins = query base vs
    gap, 2 del = target base vs gap), far end first, as ``ydrop.traceback``;
    returns the count.  ``ops`` needs end_r + end_c cells from ``o0``.
    """
    r = end_r
    c = end_c
    prev = FROM_C
    n = 0
    while r >= 1 or c > 0:
        link = tb[t0 + r * tw + c]
        op = link & 3
        if prev == FROM_I and (link & I_EXT) != 0:
            op = FROM_I
        if prev == FROM_D and (link & D_EXT) != 0:
            op = FROM_D
        if op == FROM_I:
            c -= 1
            ops[o0 + n] = 1
        elif op == FROM_D:
            r -= 1
            ops[o0 + n] = 2
        else:
            r -= 1
            c -= 1
            ops[o0 + n] = 0
        n += 1
        prev = op
    return n


def side_setup(rev, a1, a2, lenTf, lenQf):
    """(s1, b0) offsets into the padded forward or reversed buffers.

    Forward: row r reads T[a1 + r], column c reads Q[a2 + c]; reverse: row r
    reads T[a1 + 1 - r], column c reads Q[a2 + 1 - c] (``ydrop.padded``).
    """
    if rev:
        return lenTf - 3 - a1, lenQf - 3 - a2 + 1
    return a1 + 1, a2 + 2


def side_operands(rev, a1, a2, Tf, Tr, Qf, Qr):
    """(A, s1, B, b0) of one side of an anchor: the forward or reversed buffers and the
    offsets of its row 0 and column 0 in them."""
    s1, b0 = side_setup(rev, a1, a2, Tf.shape[0], Qf.shape[0])
    if rev:
        return Tr, s1, Qr, b0
    return Tf, s1, Qf, b0


def extend_side(Tf, Tr, Qf, Qr, rev, a1, a2, M, N, sub, E, OE, Y, trim, tb_cells, cc, dd,
                w0, width, tb, t0, tw, trows, rows, r0, rcap, execute, exec_r, exec_c):
    """``one_side`` for one side of an anchor, picking the forward or reversed buffers."""
    A, s1, B, b0 = side_operands(rev, a1, a2, Tf, Tr, Qf, Qr)
    return one_side(A, s1, B, b0, M, N, sub, E, OE, Y, trim, tb_cells, cc, dd, w0, width,
                    tb, t0, tw, trows, rows, r0, rcap, execute, exec_r, exec_c)


def record_inspection(k, out, st, score, er, ec, cells, last_row, max_ry, tbe, te, eops):
    """Write side k's inspector results to ``out[k, :]``; when the end cell lies in the
    eager corner (links at ``tbe[te:]``) trace it back at once into
    ``eops[k * EAGER_OPS:]`` (else O_NOPS is -1 and the executor must run)."""
    out[k, O_STATUS] = st
    out[k, O_SCORE] = score
    out[k, O_END_R] = er
    out[k, O_END_C] = ec
    out[k, O_CELLS] = cells
    out[k, O_LAST_ROW] = last_row
    out[k, O_MAX_RY] = max_ry
    out[k, O_NOPS] = -1
    if st == 0 and er < EAGER and ec < EAGER:
        out[k, O_NOPS] = trace_dense(tbe, te, EAGER, er, ec, eops, k * EAGER_OPS)


def inspect_one(k, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells,
                cc, dd, width, tbe, te, eops, rows, roff, rcap, out):
    """The inspector for side k of a batch (body of both inspector kernels).

    The links of the eager 16x16 corner go to ``tbe[te:]`` (global memory for the
    CPU twin, the thread's slot of shared memory on the device); the results go to
    ``out[k, :]`` (``record_inspection``).
    """
    st, score, er, ec, cells, last_row, max_ry = extend_side(
        Tf, Tr, Qf, Qr, rev[k], a1[k], a2[k], Mv[k], Nv[k], sub, E, OE, Y, trim, tb_cells,
        cc, dd, k * width, width, tbe, te, EAGER, EAGER, rows, roff[k], rcap[k],
        False, 0, 0)
    record_inspection(k, out, st, score, er, ec, cells, last_row, max_ry, tbe, te, eops)


def execute_one(j, sel, Tf, Tr, Qf, Qr, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, cc, dd,
                width, tb, toff, rows, roff, rcap, out, xops, xoff, xn):
    """The pruned executor for the j-th side of a size bin (side ``sel[j]``).

    Replays the sweep over rows <= the inspector's end row and columns <= its
    end column, storing every link of that rectangle at ``tb[toff[j]:]``
    (row stride end_c + 1), then traces back into ``xops[xoff[j]:]``;
    ``xn[j]`` gets the op count.
    """
    k = sel[j]
    er = out[k, O_END_R]
    ec = out[k, O_END_C]
    extend_side(Tf, Tr, Qf, Qr, rev[k], a1[k], a2[k], Mv[k], Nv[k], sub, E, OE, Y, trim,
                1 << 62, cc, dd, j * width, width, tb, toff[j], ec + 1, er + 1, rows, roff[k],
                rcap[k], True, er, ec)
    xn[j] = trace_dense(tb, toff[j], ec + 1, er, ec, xops, xoff[j])


# --- compiling the twins ----------------------------------------------------------------

# callee before caller: each is compiled with the ones before it in scope
_ORDER = ("gap_cell", "diag_cell", "sweep_span", "sweep_row", "side_tail", "one_side", "trace_dense",
          "side_setup", "side_operands", "extend_side", "record_inspection", "inspect_one",
          "execute_one")


def compile_cells(jit):
    """Compile every cell function with ``jit`` (e.g. ``numba.njit(inline="always")``
    or ``cuda.jit(device=True)``); returns a namespace of the results, so the CPU
    and GPU twins share one source and cannot drift (``fastz.kernels.twins``)."""
    return compile_twins(globals(), _ORDER, jit)


__all__ = ["gap_cell", "diag_cell", "sweep_row", "one_side", "trace_dense", "side_setup", "extend_side", "inspect_one", "EAGER_CELLS", "EAGER_OPS", "O_STATUS", "O_SCORE", "O_END_R", "O_END_C", "O_CELLS", "O_LAST_ROW", "O_MAX_RY", "O_NOPS",
           "execute_one",
           "compile_cells", "EAGER", "EAGER_STRIDE", "N_OUT", "ST_OVERFLOW", "ST_TRUNCATED"]
