"""The y-drop row sweep split into passes that the CPU can run in SIMD lanes.

``kernels.dpcells.sweep_row`` computes a row cell by cell with branches: every
cell waits for the horizontal-gap value I of the cell before it.  Only two values
really travel along a row, I and the running best score, and both can be carried
as running maxima (docs/design.md); everything else about a cell is a function of
its inputs once those two are known.  So the row is swept in four passes:

1. *diagonals*: C of the row above plus the substitution score per column, and
   the I each would open (independent cells);
2. *carry*: two running maxima, recording per cell the I (as J = I + k*E) and the
   best score it is entered with, eight cells at a time in vector lanes
   (``lanes.running_max8``: LLVM does not vectorise a scan);
3. *cells*: C, D for the next row and the traceback link of every cell, from its
   inputs, its entering I and its floor: branch-free int32 arithmetic that LLVM
   turns into AVX-512 / AVX2 lanes;
4. *store*: leading pruned cells are dropped (LASTZ's LY moves right) and the
   row is copied into the in-place work row.

The results and the values written are ``sweep_row``'s, except the I_EXT link bit
of a cell whose outgoing I lies below the floor (the carry does not reset I at
pruned cells), a bit no traceback reads (``tests/test_rowvec.py`` checks both).
Cells masked by earlier alignments (LASTZ's active segments) are pruned cells
that also end the I travelling along the row: the carry restarts I there, and
enters such a cell with no I and a best score no cell can reach, so that the
cell pass prunes it like any other.  Rows with LASTZ's ``--noytrim`` boundary
rule, zero gap costs, huge y-drops or scores and very short rows go to
``sweep_row``.  Values are clamped at NEG where they are stored as int32: any
value that low lies below every floor, so no decision changes.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from .dpcells import D_EXT, FROM_D, FROM_I, I_EXT, NEG, compile_cells
from .lanes import LANES, add32, mul32, running_max8, sub32
from .norefs import no_refcount

MIN_CELLS = 24              # shorter rows: the scalar sweep costs less than four passes
N_LANES = 6                 # int32 scratch rows: diagonal, opener, J in, best in, C, D
MAX_Y = 1 << 28             # larger y-drops put floors below NEG: the scalar sweep
MAX_SPAN = 1 << 27          # n * E + OE below this: no int32 lane value wraps (NEG lies
                            # 2^31 + NEG = 214,748,365 above the int32 minimum)
MAX_BEST = 1 << 30          # a masked row's best below this: its cells' scores cannot
_UNREACHED = np.int32(2**31 - 1)   # reach _UNREACHED - MAX_Y, a masked cell's floor

scalar_row = compile_cells(njit(cache=True, inline="always")).sweep_row

_NEG32 = np.int32(NEG)
_Z8 = np.uint8(0)


@njit(cache=True, inline="always")
def _diagonals(cc, dd, rb, B, bb, sub, a, ws, un, E, OE):
    """Per cell: the diagonal proposal (``ws[0]``) and the I it would open (``ws[1]``).

    Row above at ``cc/dd[rb + k]``, query characters at ``B[bb + k]``.  ``ws[0, k]``
    = C(row above, column k - 1) + sub(a, column k), NEG for k = 0 (clamped at NEG);
    ``ws[1, k]`` = that proposal - OE + (k + 1) * E when D does not beat it (a
    D-derived cell opens no gap), else NEG: I in the shifted form J = I + k * E,
    whose recurrence along the row is a plain running maximum.  (NEG stands for "no
    I": where it wins the maximum, the real I lies below NEG too and both clamp to
    NEG in ``_cells``.)  int32 arithmetic throughout, so that AVX2 runs 8 lanes:
    ``sweep_row_vec`` keeps n * E + OE small enough that nothing wraps, and the
    proposal is clamped before the score is added, so no score can wrap it either.
    """
    one = np.uint64(1)
    for u in range(one, un):                  # the table look-up: scalar
        ws[0, u] = sub[a, B[bb + u - one]]
    E32 = np.int32(E)
    OE32 = np.int32(OE)
    ws[0, 0] = _NEG32
    ws[1, 0] = sub32(_NEG32, sub32(OE32, E32)) if NEG >= dd[rb] else _NEG32
    for u in range(one, un):                  # independent cells: SIMD lanes
        # max(C above + score, NEG) as max(C above, NEG - score) + score: for a
        # negative score NEG - score is at most 2^31 + NEG, so neither step wraps
        sc = ws[0, u]
        dg = add32(max(cc[rb + u - one], sub32(_NEG32, min(sc, np.int32(0)))), sc)
        ws[0, u] = dg
        o = add32(sub32(dg, OE32), mul32(add32(u, 1), E32))
        ws[1, u] = o if dg >= dd[rb + u] else _NEG32


@njit(cache=True, inline="always")
def _carry(ws, un, best):
    """The sequential part: two running maxima, the best score and I (as J).

    Stores, per cell, the J (``ws[2]``) and the best score (``ws[3]``) it is
    entered with; returns both after the row.  With OE > 0 a gap-derived value is
    at most best - OE, so only a diagonal proposal can raise the best: a plain
    maximum over ``ws[0]``.  Eight cells at a time in vector lanes
    (``lanes.running_max8``), the last few one by one.
    """
    J = _NEG32
    bst = np.int32(best)
    u = np.uint64(0)
    step = np.uint64(LANES)
    while u + step <= un:
        J = running_max8(ws, 1, 2, u, J)
        bst = running_max8(ws, 0, 3, u, bst)
        u += step
    while u < un:
        J, bst = _carry_cell(ws, u, J, bst)
        u += np.uint64(1)
    return np.int64(J), np.int64(bst)


@njit(cache=True, inline="always")
def _carry_cell(ws, u, J, bst):
    """One cell of the carry on its own: stores the J and best it is entered with,
    returns both after it."""
    ws[2, u] = J
    ws[3, u] = bst
    o = ws[1, u]
    dg = ws[0, u]
    return (o if o > J else J), (dg if dg > bst else bst)


@njit(cache=True, inline="always")
def _carry_masked(ws, un, best, mk, mb, stamp):
    """``_carry`` for a row with cells masked (``mk[mb + k] == stamp``).

    A masked cell is pruned whatever its inputs, and the I leaving it is none: it
    gets no diagonal, is entered with no I and the best ``_UNREACHED`` (so
    ``_cells`` prunes it: its D, below the row's entering best, is its only
    value), raises no best, and restarts the running J.  Eight cells without a
    masked one take the vector lanes; the few with one go cell by cell.  (Kept
    apart from ``_carry``: one carry testing a ``masked`` flag made the gapped
    stage 7 % slower, measured on UCSC's settings.)
    """
    J = _NEG32
    bst = np.int32(best)
    u = np.uint64(0)
    step = np.uint64(LANES)
    one = np.uint64(1)
    while u < un:
        if u + step <= un:
            hit = False
            for k in range(step):
                hit |= mk[mb + u + k] == stamp
            if not hit:
                J = running_max8(ws, 1, 2, u, J)
                bst = running_max8(ws, 0, 3, u, bst)
                u += step
                continue
            stop = u + step
        else:
            stop = un
        while u < stop:
            if mk[mb + u] == stamp:
                ws[0, u] = _NEG32
                ws[2, u] = _NEG32
                ws[3, u] = _UNREACHED
                J = _NEG32
            else:
                J, bst = _carry_cell(ws, u, J, bst)
            u += one
    return np.int64(J), np.int64(bst)


@njit(cache=True, inline="always")
def _cells(ws, dd, rb, lw, lb, un, Y, E, OE, links):
    """C (``ws[4]``), next-row D (``ws[5]``) and, with ``links`` (a constant at each
    call, so the unused half compiles away), the link (``lw[lb + k]``) of every cell
    (pruned: NEG, NEG, 0), without branches, in int32 lanes.

    Returns the last cell whose diagonal reached the best it was entered with
    (``sweep_row``'s ``c >= best``: ties move the end forward), or -1.
    """
    E32 = np.int32(E)
    OE32 = np.int32(OE)
    Y32 = np.int32(Y)
    end = np.int32(-1)
    for u in range(un):
        u32 = np.int32(u)
        dg = ws[0, u]
        d = dd[rb + u]
        i = max(sub32(ws[2, u], mul32(u32, E32)), _NEG32)
        bst = ws[3, u]
        s = max(max(dg, d), i)
        alive = s >= sub32(bst, Y32)
        end = max(end, u32 if dg >= bst else np.int32(-1))
        gd = (d > dg) | (i > dg)
        c_open = sub32(s, OE32)
        de = sub32(d, E32)
        dn = de if gd else max(c_open, de)
        lk = _Z8
        if links:
            lk_c = (np.uint8(D_EXT) if c_open <= de else _Z8) | \
                (np.uint8(I_EXT) if c_open <= sub32(i, E32) else _Z8)
            lk_g = (np.uint8(FROM_D) if d >= i else np.uint8(FROM_I)) | \
                np.uint8(I_EXT | D_EXT)
            lk = lk_g if gd else lk_c
        ws[4, u] = s if alive else _NEG32
        ws[5, u] = dn if alive else _NEG32
        if links:
            lw[lb + u] = lk if alive else _Z8
    return np.int64(end)


@njit(cache=True)
def scratch(n):
    """(ws, wl): scratch of the passes for rows of up to ``n`` cells.

    The rows of ``ws`` are read and written together, so they must not lie a
    multiple of 4 KiB apart: such rows share L1 sets and alias in the load/store
    unit (measured 6-15 % slower on the AMD EPYC VM).  The stride is a whole number
    of 64-byte lines plus 96 bytes.
    """
    stride = (n + 15) // 16 * 16 + 24
    return np.empty((N_LANES, stride), np.int32), np.empty(stride, np.uint8)


@njit(cache=True, inline="always")
def vector_row(n, masked, best, trim, Y, E, OE):
    """Whether a row of ``n`` cells goes through the passes (else ``sweep_row``)."""
    return not (not trim or n < MIN_CELLS or Y > MAX_Y or OE <= 0 or E < 0
                or n * E + OE >= MAX_SPAN or (masked and best >= MAX_BEST))


@no_refcount
def sweep_row_vec(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE, row, M,
                  N, trim, boundary, tb, t0, tw, mk, masked, stamp, ws, wl):
    """``dpcells.sweep_row`` with the same arguments and results, in passes.

    ``ws`` (int32[N_LANES, > hi - col]) and ``wl`` (uint8[>= hi - col]) are scratch.
    No array views are taken: each would cost two atomic reference-count updates
    per row, which in a row of a few hundred cells is not negligible (measured).
    """
    n = hi - col
    if not vector_row(n, masked, best, trim, Y, E, OE):
        return scalar_row(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE,
                       row, M, N, trim, boundary, tb, t0, tw, mk, masked, stamp)
    lo = col
    un = np.uint64(n)
    rb = np.uint64(w0 + lo - prev_ly)          # the row above, from this row's first column
    _diagonals(cc, dd, rb, B, np.uint64(b0 + lo), sub, a, ws, un, E, OE)
    if masked:
        J, best = _carry_masked(ws, un, best, mk, np.uint64(lo - prev_ly), stamp)
    else:
        J, best = _carry(ws, un, best)
    ntb = tw - lo
    if ntb >= n:                               # links straight into the band
        end = _cells(ws, dd, rb, tb, np.uint64(t0 + lo), un, Y, E, OE, True)
    elif ntb > 0:
        end = _cells(ws, dd, rb, wl, np.uint64(0), un, Y, E, OE, True)
        for u in range(np.uint64(ntb)):
            tb[np.uint64(t0 + lo) + u] = wl[u]
    else:                                      # no links wanted (the inspector's rows)
        end = _cells(ws, dd, rb, wl, np.uint64(0), un, Y, E, OE, False)
    # the row's first and last live cells
    first = np.int64(n)
    for u in range(un):
        if ws[4, u] != _NEG32:
            first = np.int64(u)
            break
    last = np.int64(-1)
    k = n - 1
    while k >= first:
        if ws[4, k] != _NEG32:
            last = k
            break
        k -= 1
    # leading pruned cells are not stored: the row starts at its first live cell
    uf = np.uint64(first)
    uw = np.uint64(w0)
    for u in range(uf, un):
        cc[uw + u - uf] = ws[4, u]
        dd[uw + u - uf] = ws[5, u]
    # I after the row: only compared with the floor (row prolongation), and where
    # it differs from sweep_row's it lies below the floor there too
    i = J - np.int64(n) * E
    if last != n - 1 or i < best - Y:
        i = NEG
    np_col = lo + last if last >= 0 else col
    end_col = lo + end if end >= 0 else -1
    return lo + n, LY + first, np_col, i, best, end_col, False, boundary


def row_passes(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE, row, M, N,
               trim, boundary, tb, t0, tw, mk, masked, stamp, ws, wl):
    """A long row: ``sweep_row_vec`` for int32 work rows; the passes are int32 lanes, so
    float64 rows (lastz_D's fractional scores) take ``sweep_row`` (chosen at compile
    time)."""
    if cc.dtype.kind == "f":
        return scalar_row(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE,
                          row, M, N, trim, boundary, tb, t0, tw, mk, masked, stamp)
    return sweep_row_vec(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE,
                         row, M, N, trim, boundary, tb, t0, tw, mk, masked, stamp, ws, wl)


@overload(row_passes, inline="always")
def _row_passes(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE, row, M, N,
                trim, boundary, tb, t0, tw, mk, masked, stamp, ws, wl):
    if isinstance(cc.dtype, types.Float):
        def impl(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE, row, M,
                 N, trim, boundary, tb, t0, tw, mk, masked, stamp, ws, wl):
            return scalar_row(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E,
                              OE, row, M, N, trim, boundary, tb, t0, tw, mk, masked, stamp)
    else:
        def impl(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y, E, OE, row, M,
                 N, trim, boundary, tb, t0, tw, mk, masked, stamp, ws, wl):
            return sweep_row_vec(cc, dd, w0, B, b0, sub, a, col, hi, prev_ly, LY, best, Y,
                                 E, OE, row, M, N, trim, boundary, tb, t0, tw, mk, masked,
                                 stamp, ws, wl)
    return impl
