"""One-sided y-drop DP (LASTZ's ``ydrop_one_sided_align``) with FastZ's structure.

The DP sweeps rows r = 1..M (target axis) from left to right over columns
[LY, RY) (query axis), keeping one row of C (best) and D (vertical gap) values;
I (horizontal gap) is carried along the row.  Row bounds come from y-drop
pruning and from earlier accepted alignments (``fastz.kernels.bounds``).

Three modes share one sweep, so they cannot drift apart:

``MODE_FULL``     one pass storing a traceback byte per cell (LASTZ's way).
``MODE_INSPECT``  FastZ's inspector: scores only, no traceback, except for the
                  first 16 rows (the "eager" traceback: when the best cell lies
                  in the 16x16 corner the alignment is finished at once).  It
                  also records, per row, the running best score at the row start
                  and the row's final right bound: all the executor needs to
                  replay the sweep exactly inside a smaller region.
``MODE_EXECUTE``  FastZ's pruned executor: recomputes only rows <= the
                  inspector's best cell and columns <= its column, storing the
                  traceback for that region only.

Traceback byte (one per cell, as in LASTZ): bits 0-1 say where C came from
(0 diagonal, 1 I, 2 D); bit 2 (I_EXT) and bit 3 (D_EXT) say the gap leaving this
cell extends rather than opens.  Links are stored row by row in a band:
``tb[tbrow[r] + c]`` is the link of cell (r, c).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .arrays import grow
from .bounds import ACT_FIELDS, NONE, active_update, lr_update
from .dpcells import D_EXT, EAGER, FROM_C, FROM_D, FROM_I, I_EXT, NEG
from .norefs import no_refcount
from .scorewords import from_word, neg_word, to_word, ydrop_tail
# the row loop is dpcells.sweep_row (also compiled for the GPU); on the CPU its long
# rows run as SIMD-friendly passes with the same results (kernels.rowvec), its short
# ones inline in the loop (a call passing two dozen arrays costs a short row ~13 %)
from .rowvec import row_passes, scalar_row, scratch, vector_row

MODE_FULL = 0
MODE_INSPECT = 1
MODE_EXECUTE = 2

# Row record kept by the inspector (one row per DP row).
ROW_BEST = 0                  # running best score at the start of the row (a score word)
ROW_RY = 1                    # right bound after the row was finished
ROW_FIELDS = 2


@njit(cache=True)
def pad_target(T):
    """(Tf, Tr): the target with a NUL at both ends, and its reverse.

    LASTZ's sequences carry NUL terminators that score "very bad"; the DP reads
    one column past its last one, which lands on such a NUL.  Made once per target
    (copying a genome for every query strand cost more than aligning a short read).
    """
    Tf = np.zeros(T.shape[0] + 2, np.uint8)
    Tf[1:-1] = T
    return Tf, Tf[::-1].copy()


@njit(cache=True)
def padded_query(tpads, Q):
    """(Tf, Tr, Qf, Qr): ``pad_target``'s pair and the query padded the same way."""
    Qf = np.zeros(Q.shape[0] + 2, np.uint8)
    Qf[1:-1] = Q
    return tpads[0], tpads[1], Qf, Qf[::-1].copy()


@njit(cache=True)
def padded(T, Q):
    """(Tf, Tr, Qf, Qr) of a target and a query (see ``pad_target``)."""
    return padded_query(pad_target(T), Q)


@njit(cache=True)
def one_sided(seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim,
              tb_cells, al, sg, lseg0, laln0, rseg0, raln0, alist0,
              cc, dd, mk, act, stamp0, mode, rows, tb, tbrow, exec_r, exec_c):
    """Extend from anchor (a1, a2) in one direction.

    Parameters
    ----------
    seqs : (Tf, Tr, Qf, Qr) from ``padded``: target and query-strand buffers with
        a NUL at each end, forwards and reversed, so no access needs a check.
    reverse : bool; True = towards lower positions (includes the anchor pair).
    M, N : rows / columns available (sequence lengths in this direction).
    sub : int32[256, 256] unmasked substitution scores (float64 for lastz_D's
        fractional ones: the work rows are then float64 and the scores in ``rows``
        and the state are score words, ``kernels.scorewords``).
    tb_cells : traceback capacity in cells (LASTZ --allocate:traceback).
    al, sg : accepted-alignment and segment stores (see fastz.kernels.bounds).
    lseg0, laln0, rseg0, raln0 : bounding segments/alignments from the skip test.
    alist0 : first alignment above (forward) / below (reverse) the anchor row.
    cc, dd : work rows (C, D), int32 or float64 as ``scorewords.dp_row``; mk : int64
        mask stamps (a cell is masked when its stamp equals this row's); act :
        active-segment table.
    stamp0 : unique stamp base for masks of this call (mask = stamp0 + row).
    mode : MODE_FULL, MODE_INSPECT or MODE_EXECUTE.
    rows : int64[n, ROW_FIELDS] per-row record (written by the inspector, read by
        the executor).  tb, tbrow : banded traceback links and row offsets.
    exec_r, exec_c : the inspector's end cell (execute mode only).

    Returns
    -------
    (score, end_r, end_c, truncated, cells, last_row, max_ry, cc, dd, mk, act, rows,
    tb, tbrow).  Rows 0..last_row were swept, columns below max_ry touched: the
    region where an alignment accepted meanwhile could have changed the result.
    The traceback itself is read with ``traceback`` from tb/tbrow.

    Notes
    -----
    Mirrors LASTZ 1.04.22 gapped_extend.c ydrop_one_sided_align, including its
    pruning, tie-breaks, row prolongation and bounding quirks.
    """
    if M <= 0 or N <= 0:
        return 0, 0, 0, False, 0, 0, 0, cc, dd, mk, act, rows, tb, tbrow
    inspect = mode == MODE_INSPECT
    execute = mode == MODE_EXECUTE
    E = gap_extend
    OE = gap_open + gap_extend
    Y = ydrop
    tail = ydrop_tail(Y, E, N)
    Tf, Tr, Qf, Qr = seqs
    if reverse:
        A = Tr
        B = Qr
        s1 = Tr.shape[0] - 3 - a1      # A[s1 + r] = T[a1 + 1 - r]
        s2 = Qr.shape[0] - 3 - a2      # B[s2 + c] = Q[a2 + 1 - c]
    else:
        A = Tf
        B = Qf
        s1 = a1 + 1                    # A[s1 + r] = T[a1 + r]
        s2 = a2 + 1                    # B[s2 + c] = Q[a2 + c]
    Bv = B[s2 + 1:]                    # Bv[c] = B(c + 1), the column after c
    clip = exec_c + 1 if execute else N + 2
    row_end = exec_r if execute else M

    # --- initial left/right bounds from the skip test's segments ------------
    L = 0
    R = N + 1
    if lseg0 != NONE:
        L = sg[lseg0, 2] - a2
        if sg[lseg0, 0] == 0:
            L -= sg[lseg0, 1] - a1
    if rseg0 != NONE:
        R = sg[rseg0, 2] - a2
        if sg[rseg0, 0] == 0:
            R -= sg[rseg0, 1] - a1
    if reverse:
        if lseg0 == NONE and rseg0 != NONE:
            L = -R + 1
            R = N + 1
        elif lseg0 != NONE and rseg0 == NONE:
            R = -L - 1
            L = 0
        elif lseg0 != NONE and rseg0 != NONE:
            tmp = -L - 1
            L = -R + 1
            R = tmp
    lseg, laln, rseg, raln = lseg0, laln0, rseg0, raln0
    ws, wl = scratch(1024)                         # scratch of the row passes
    alist = alist0
    nact = 0

    # --- row 0: a run of insertions from the anchor --------------------------
    cc = grow(cc, tail + 2)
    dd = grow(dd, tail + 2)
    tb = grow(tb, tail + 2)
    tbrow = grow(tbrow, 1)
    tbrow[0] = 0
    cc[0] = 0
    dd[0] = -OE
    tb[0] = 0
    c = -OE
    last = 0
    col = 1
    while col <= N and last >= -Y and col < clip:
        cc[col] = c
        last = c
        dd[col] = c - OE
        c -= E
        tb[col] = FROM_I
        col += 1
    used = col                 # traceback cells LASTZ would have used so far
    stored = col               # traceback cells stored here
    cells = col
    LY = 0
    RY = rows[0, ROW_RY] if execute else col
    max_ry = RY
    if inspect:
        rows = grow(rows, 2)
        rows[0, ROW_BEST] = 0                       # (the word of 0 and of 0.0)
        rows[0, ROW_RY] = RY

    # every alignment may be active at once: sized here, act never grows in the loop
    # (doubling, should the table outgrow its first size)
    if act.shape[0] < al.shape[0]:
        act = np.zeros((max(al.shape[0], 2 * act.shape[0]), ACT_FIELDS), np.int64)
    # the sweep's running state, kept in one small array between calls of the row loop
    sv = np.zeros(N_SV, np.int64)
    sv[V_ROW] = 1
    sv[V_STORE] = 1
    sv[V_PREVLY] = LY
    sv[V_LY] = LY
    sv[V_RY] = RY
    sv[V_L] = L
    sv[V_R] = R
    sv[V_LSEG] = lseg
    sv[V_LALN] = laln
    sv[V_RSEG] = rseg
    sv[V_RALN] = raln
    sv[V_NACT] = nact
    sv[V_ALIST] = alist
    sv[V_USED] = used
    sv[V_STORED] = stored
    sv[V_CELLS] = cells
    sv[V_MAXRY] = max_ry
    sv[V_BOUNDARY] = neg_word(sub)      # (best, the row ends and flags start at 0)
    while True:
        # Buffers grow only here, outside the row loop (``_rows``, which counts no
        # references: numba updates the atomic reference counts of the arrays a
        # loop passes to a call or may rebind, on every pass, and that cost a third
        # of a short read's DP time)
        if sv[V_PENDING]:
            need = sv[V_NEED]
            row = sv[V_ROW]
            cc = grow(cc, need)
            dd = grow(dd, need)
            mk = grow(mk, need)
            if sv[V_STORE]:
                tb = grow(tb, sv[V_TBNEED])
                tbrow = grow(tbrow, row + 1)
            if inspect:
                rows = grow(rows, row + 2)
            if need > wl.shape[0]:
                ws, wl = scratch(2 * need)
        _rows(sv, reverse, inspect, execute, a1, a2, M, N, sub, Y, E, OE, trim, tb_cells,
              tail, clip, row_end, stamp0, A, s1, Bv, sg, al, act, cc, dd, mk, rows, tb,
              tbrow, ws, wl)
        if not sv[V_PENDING]:
            break
    end1 = sv[V_END1]
    end2 = sv[V_END2]
    best = from_word(sv[V_BEST], sub)
    boundary = from_word(sv[V_BOUNDARY], sub)
    at_boundary = sv[V_ATB] != 0
    truncated = sv[V_TRUNC] != 0
    cells = sv[V_CELLS]
    last_row = sv[V_LASTROW]
    max_ry = sv[V_MAXRY]

    if execute:
        end1 = exec_r
        end2 = exec_c
    score = boundary if at_boundary else best
    return (score, end1, end2, truncated, cells, last_row, max_ry, cc, dd, mk, act, rows,
            tb, tbrow)


# the row loop's state (``_rows``), one int64 each
(V_ROW, V_PENDING, V_NEED, V_TBNEED, V_STORE, V_PREVLY, V_LY, V_RY, V_L, V_R, V_LSEG,
 V_LALN, V_RSEG, V_RALN, V_NACT, V_ALIST, V_USED, V_STORED, V_CELLS, V_LASTROW, V_MAXRY,
 V_END1, V_END2, V_BEST, V_BOUNDARY, V_ATB, V_TRUNC) = range(27)
N_SV = 27


@no_refcount
def _rows(sv, reverse, inspect, execute, a1, a2, M, N, sub, Y, E, OE, trim, tb_cells,
          tail, clip, row_end, stamp0, A, s1, Bv, sg, al, act, cc, dd, mk, rows, tb, tbrow,
          ws, wl):
    """``one_sided``'s rows from ``sv[V_ROW]`` until the last, or until a row's buffers
    must grow first (``sv[V_PENDING]``, with what they need), or the traceback would
    run out.  The state in ``sv`` is read at entry and written back at exit."""
    row = sv[V_ROW]
    pending = sv[V_PENDING] != 0   # this row's bounds are set; its buffers had to grow
    store = sv[V_STORE] != 0
    prev_ly = sv[V_PREVLY]
    LY = sv[V_LY]
    RY = sv[V_RY]
    L = sv[V_L]
    R = sv[V_R]
    lseg = sv[V_LSEG]
    laln = sv[V_LALN]
    rseg = sv[V_RSEG]
    raln = sv[V_RALN]
    nact = sv[V_NACT]
    alist = sv[V_ALIST]
    used = sv[V_USED]
    stored = sv[V_STORED]
    cells = sv[V_CELLS]
    last_row = sv[V_LASTROW]
    max_ry = sv[V_MAXRY]
    end1 = sv[V_END1]
    end2 = sv[V_END2]
    best = from_word(sv[V_BEST], sub)
    boundary = from_word(sv[V_BOUNDARY], sub)
    at_boundary = sv[V_ATB] != 0
    truncated = sv[V_TRUNC] != 0
    need = 0
    tb_need = 0
    while row <= row_end:
        if not pending:
            prev_ly = LY
            if execute:
                best = from_word(rows[row, ROW_BEST], sub)
            # bounds from earlier alignments (left/right chains, then masked cells)
            L, R, LY, RY, lseg, laln, rseg, raln = lr_update(
                reverse, sg, al, lseg, laln, rseg, raln, row, a1, a2, L, R, LY, RY)
        pending = False
        store = not inspect or row < EAGER
        # room for the row, its prolongation (< tail cells) and its links
        need = RY - prev_ly + tail + 2
        tb_need = stored + (RY - LY if RY > LY else 0) + tail + 2 if store else 0
        if (need > cc.shape[0] or need > mk.shape[0] or need > wl.shape[0]
                or tb_need > tb.shape[0] or (store and row + 1 > tbrow.shape[0])
                or (inspect and row + 2 > rows.shape[0])):
            pending = True
            break
        stamp = stamp0 + row
        if nact > 0 or alist != NONE:
            nact, alist = active_update(
                reverse, act, nact, alist, al, sg, mk, prev_ly, stamp, row, a1, a2, LY, RY)
        if RY < LY:
            RY = LY
        if not execute and used + (RY - LY) + tail >= tb_cells:
            truncated = True
            break
        if inspect:
            rows[row, ROW_BEST] = to_word(best)
        if store:
            tbrow[row] = stored - LY
        tbase = stored - LY
        hi = RY if RY < clip else clip
        swept_from = LY
        if vector_row(hi - LY, nact > 0, best, trim, Y, E, OE):
            col, LY, np_col, i, best, end_col, at_b, boundary = row_passes(
                cc, dd, 0, Bv, 0, sub, A[s1 + row], LY, hi, prev_ly, LY, best, Y, E, OE,
                row, M, N, trim, boundary, tb, tbase, hi if store else 0, mk, nact > 0,
                stamp, ws, wl)
        else:                          # (short rows: inlined, no call)
            col, LY, np_col, i, best, end_col, at_b, boundary = scalar_row(
                cc, dd, 0, Bv, 0, sub, A[s1 + row], LY, hi, prev_ly, LY, best, Y, E, OE,
                row, M, N, trim, boundary, tb, tbase, hi if store else 0, mk, nact > 0,
                stamp)
        if end_col >= 0:
            end1 = row
            end2 = end_col
            at_boundary = at_b
        cells += col - swept_from
        used += col - swept_from
        last_row = row
        if store:
            stored += col - swept_from
        if LY >= RY:
            break
        if execute and RY > clip:
            # the sweep was cut at the executor's region: take the right bound
            # the inspector found for this row
            RY = rows[row, ROW_RY]
            row += 1
            continue
        if rseg != NONE and R > 0:
            NN = R - 1
        else:
            NN = N
        if RY > np_col + 1:
            RY = np_col + 1
        else:
            # prolong the row with insertions for the overhang of the row above
            # (fewer than tail cells, as need and tb_need assume: i < best, and
            # each step lowers it by E)
            while i >= best - Y and RY <= NN:
                w = RY - LY
                cc[w] = i
                dd[w] = i - OE
                i -= E
                if store:
                    tb[tbase + RY] = FROM_I
                    stored += 1
                used += 1
                RY += 1
        if RY <= NN:
            w = RY - LY
            cc[w] = NEG
            dd[w] = NEG
            RY += 1
        if inspect:
            rows[row, ROW_RY] = RY
        if RY > max_ry:
            max_ry = RY
        row += 1
    sv[V_ROW] = row
    sv[V_PENDING] = pending
    sv[V_NEED] = need
    sv[V_TBNEED] = tb_need
    sv[V_STORE] = store
    sv[V_PREVLY] = prev_ly
    sv[V_LY] = LY
    sv[V_RY] = RY
    sv[V_L] = L
    sv[V_R] = R
    sv[V_LSEG] = lseg
    sv[V_LALN] = laln
    sv[V_RSEG] = rseg
    sv[V_RALN] = raln
    sv[V_NACT] = nact
    sv[V_ALIST] = alist
    sv[V_USED] = used
    sv[V_STORED] = stored
    sv[V_CELLS] = cells
    sv[V_LASTROW] = last_row
    sv[V_MAXRY] = max_ry
    sv[V_END1] = end1
    sv[V_END2] = end2
    sv[V_BEST] = to_word(best)
    sv[V_BOUNDARY] = to_word(boundary)
    sv[V_ATB] = at_boundary
    sv[V_TRUNC] = truncated


@njit(cache=True)
def traceback(end_r, end_c, tb, tbrow, out):
    """Walk links back from (end_r, end_c) to (0, 0).

    Writes one op code per step into ``out`` (0 sub, 1 ins = query base vs gap,
    2 del = target base vs gap) in traceback order (far end first) and returns
    (count, out).  ``out`` grows once, to the most steps the walk can take, so the
    walk itself (``_walk``) holds no array it could rebind: numba would count the
    references of such an array at every step.
    """
    out = grow(out, end_r + end_c + 1)
    return _walk(end_r, end_c, tb, tbrow, out), out


@no_refcount
def _walk(end_r, end_c, tb, tbrow, out):
    r = end_r
    c = end_c
    prev = FROM_C
    n = 0
    while r >= 1 or c > 0:
        link = tb[tbrow[r] + c]
        op = link & 3
        if prev == FROM_I and (link & I_EXT) != 0:
            op = FROM_I
        if prev == FROM_D and (link & D_EXT) != 0:
            op = FROM_D
        if op == FROM_I:
            c -= 1
            out[n] = 1
        elif op == FROM_D:
            r -= 1
            out[n] = 2
        else:
            r -= 1
            c -= 1
            out[n] = 0
        n += 1
        prev = op
    return n
