"""One-sided y-drop DP (LASTZ's ``ydrop_one_sided_align``) with FastZ's structure.

The DP sweeps rows r = 1..M (target axis) from left to right over columns
[LY, RY) (query axis), keeping one row of C (best) and D (vertical gap) values;
I (horizontal gap) is carried along the row.  Row bounds come from y-drop
pruning and from earlier accepted alignments (``fastz.kernels.bounds``).

Three modes share one sweep, so they cannot drift apart:

``MODE_FULL``     one pass storing a traceback byte per cell (LASTZ's way).
``MODE_INSPECT``  FastZ's inspector: scores only, no traceback, except the
                  16x16 corner nearest the anchor ("eager" traceback).  It also
                  records, per row, the running best score at the row start and
                  the row's final right bound, which is all the executor needs
                  to replay the sweep exactly inside a smaller rectangle.
``MODE_EXECUTE``  FastZ's pruned executor: recomputes only columns <= the
                  inspector's best cell, rows <= its row, with a 1-byte-per-cell
                  traceback sized exactly to that rectangle.

Traceback byte (one per cell, as in LASTZ): bits 0-1 say where C came from
(0 diagonal, 1 I, 2 D); bit 2 (I_EXT) and bit 3 (D_EXT) say the gap leaving this
cell extends rather than opens.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bounds import (
    ACT_FIELDS, NONE, active_update, lr_update,
)

NEG = -1_932_735_283          # LASTZ's "negative infinity" for DP cells
FROM_C = 0
FROM_I = 1
FROM_D = 2
I_EXT = 4
D_EXT = 8

MODE_FULL = 0
MODE_INSPECT = 1
MODE_EXECUTE = 2

EAGER = 16                    # side of the eager traceback corner

# Row record kept by the inspector (one row per DP row).
ROW_BEST = 0                  # running best score at the start of the row
ROW_RY = 1                    # right bound after the row was finished
ROW_FIELDS = 2


@njit(cache=True)
def padded(T, Q):
    """(Tf, Tr, Qf, Qr): each buffer with a NUL at both ends, and its reverse.

    LASTZ's sequences carry NUL terminators that score "very bad"; the DP reads
    one column past its last one, which lands on such a NUL.
    """
    Tf = np.zeros(T.shape[0] + 2, np.uint8)
    Tf[1:-1] = T
    Qf = np.zeros(Q.shape[0] + 2, np.uint8)
    Qf[1:-1] = Q
    return Tf, Tf[::-1].copy(), Qf, Qf[::-1].copy()


@njit(cache=True)
def _grow1(a, need):
    if a.shape[0] >= need:
        return a
    n = max(need, 2 * a.shape[0])
    b = np.zeros(n, a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _grow2(a, need):
    if a.shape[0] >= need:
        return a
    n = max(need, 2 * a.shape[0])
    b = np.zeros((n, a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b


def _make_one_sided(mode):
    """Compile the sweep for one mode (a compile-time constant, so the
    per-cell mode tests vanish from the inner loop)."""
    full = mode == MODE_FULL
    inspect = mode == MODE_INSPECT
    execute = mode == MODE_EXECUTE

    @njit(cache=True)
    def one_sided(seqs, reverse, a1, a2, M, N, sub, gap_open, gap_extend, ydrop, trim,
                  tb_cells, al, sg, lseg0, laln0, rseg0, raln0, alist0,
                  ws, mk, act, stamp0, rows, eager, tb, tbrow, exec_r, exec_c):
        """Extend from anchor (a1, a2) in one direction.

        Parameters
        ----------
        seqs : (Tf, Tr, Qf, Qr) from ``padded``: target and query-strand buffers with
            a NUL at each end, forwards and reversed, so no access needs a check.
        reverse : bool; True = towards lower positions (includes the anchor pair).
        M, N : rows / columns available (sequence lengths in this direction).
        sub : int32[256, 256] unmasked substitution scores.
        tb_cells : traceback capacity in cells (LASTZ --allocate:traceback).
        al, sg : accepted-alignment and segment stores (see fastz.kernels.bounds).
        lseg0, laln0, rseg0, raln0 : bounding segments/alignments from the skip test.
        alist0 : first alignment above (forward) / below (reverse) the anchor row.
        ws : int32[n, 2] work row (C, D); mk : int64[n] mask stamps (a cell is masked
            when its stamp equals this row's); act : active-segment table.
        stamp0 : unique stamp base for masks of this call (mask = stamp0 + row).
        rows : int64[n, ROW_FIELDS] per-row record (written by the inspector, read by
            the executor).  eager : uint8[16, 16].  tb, tbrow : traceback buffer and
            per-row offsets (full mode) or the rectangle buffer (execute mode).
        exec_r, exec_c : the inspector's end cell (execute mode only).

        Returns
        -------
        (score, end_r, end_c, truncated, cells, ws, mk, act, rows, tb, tbrow)
        The traceback itself is read with ``traceback`` from tb/eager.

        Notes
        -----
        Mirrors LASTZ 1.04.22 gapped_extend.c ydrop_one_sided_align, including its
        pruning, tie-breaks, row prolongation and bounding quirks.
        """
        if M <= 0 or N <= 0:
            return 0, 0, 0, False, 0, ws, mk, act, rows, tb, tbrow
        E = gap_extend
        OE = gap_open + gap_extend
        Y = ydrop
        if E != 0:
            tail = Y // E + 6
        else:
            tail = N + 1 if N < 500_000 else 500_000
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
        clip = exec_c + 1 if execute else N + 2
        row_end = exec_r if execute else M
        rect_w = exec_c + 1

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
        alist = alist0
        nact = 0

        # --- row 0: a run of insertions from the anchor --------------------------
        ws = _grow2(ws, tail + 2)
        ws[0, 0] = 0
        ws[0, 1] = -OE
        used = 1
        if full:
            tbrow = _grow1(tbrow, 1)
            tbrow[0] = 0
            tb = _grow1(tb, tail + 2)
            tb[0] = 0
        elif inspect:
            eager[0, 0] = 0
        elif execute:
            tb = _grow1(tb, (exec_r + 1) * rect_w)
            tb[0] = 0
        c = -OE
        last = 0
        col = 1
        while col <= N and last >= -Y:
            if execute and col >= clip:
                break
            ws[col, 0] = c
            last = c
            ws[col, 1] = c - OE
            c -= E
            if full:
                tb[col] = FROM_I
            elif inspect:
                if col < EAGER:
                    eager[0, col] = FROM_I
            else:
                tb[col] = FROM_I
            col += 1
        used = col
        cells = col
        LY = 0
        RY = col
        if execute:
            RY = rows[0, ROW_RY]

        end1 = 0
        end2 = 0
        best = 0
        boundary = NEG
        end_is_boundary = False
        truncated = False
        if inspect:
            rows = _grow2(rows, 2)
            rows[0, ROW_BEST] = 0
            rows[0, ROW_RY] = RY

        row = 1
        while row <= row_end:
            prev_ly = LY
            if execute:
                best = rows[row, ROW_BEST]
            # bounds from earlier alignments (left/right chains, then masked cells)
            L, R, LY, RY, lseg, laln, rseg, raln = lr_update(
                reverse, sg, al, lseg, laln, rseg, raln, row, a1, a2, L, R, LY, RY)
            need = RY - prev_ly + tail + 2
            if need > ws.shape[0]:
                ws = _grow2(ws, need)
            if need > mk.shape[0]:
                mk = _grow1(mk, need)
            stamp = stamp0 + row
            if nact > 0 or alist != NONE:
                nact, alist, act = active_update(
                    reverse, act, nact, alist, al, sg, mk, prev_ly, stamp, row, a1, a2, LY, RY)
            if RY < LY:
                RY = LY
            if not execute and used + (RY - LY) + tail >= tb_cells:
                truncated = True
                break
            if inspect:
                rows = _grow2(rows, row + 2)
                rows[row, ROW_BEST] = best
            if full:
                tbrow = _grow1(tbrow, row + 1)
                tbrow[row] = used - LY
                tb = _grow1(tb, used + (RY - LY) + tail + 2)
            tbase = used - LY
            ach = A[s1 + row]
            subrow = sub[ach]
            col = LY
            swept_from = LY
            np_col = col
            i = NEG
            c = NEG
            hi = RY if RY < clip else clip
            while col < hi:
                rd = col - prev_ly
                d = ws[rd, 1]
                link = 0
                pruned = False
                if nact > 0 and mk[rd] == stamp:
                    pruned = True
                elif d > c or i > c:
                    if d >= i:
                        c = d
                        link = FROM_D | I_EXT | D_EXT
                    else:
                        c = i
                        link = FROM_I | I_EXT | D_EXT
                    if c < best - Y:
                        pruned = True
                    else:
                        i -= E
                        ws[col - LY, 1] = d - E
                else:
                    if c < best - Y:
                        pruned = True
                    else:
                        if c >= best:
                            best = c
                            end1 = row
                            end2 = col
                            end_is_boundary = False
                        if (not trim) and c >= boundary and (row == M or col == N):
                            boundary = c
                            end1 = row
                            end2 = col
                            end_is_boundary = True
                        c_open = c - OE
                        d -= E
                        if c_open > d:
                            ws[col - LY, 1] = c_open
                            link = FROM_C
                        else:
                            ws[col - LY, 1] = d
                            link = FROM_C | D_EXT
                        i -= E
                        if c_open > i:
                            i = c_open
                        else:
                            link |= I_EXT
                c_next = ws[rd, 0] + subrow[B[s2 + col + 1]]
                if pruned:
                    link = 0
                    if col == LY:
                        LY += 1
                    else:
                        w = col - LY
                        ws[w, 0] = NEG
                        ws[w, 1] = NEG
                        i = NEG
                else:
                    np_col = col
                    ws[col - LY, 0] = c
                c = c_next
                if full:
                    tb[tbase + col] = link
                elif inspect:
                    if row < EAGER and col < EAGER:
                        eager[row, col] = link
                else:
                    tb[row * rect_w + col] = link
                col += 1
            cells += col - swept_from
            used += col - swept_from
            if LY >= RY:
                break
            if execute and RY > clip:
                # the sweep was cut at the rectangle: take the right bound the
                # inspector found for this row
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
                while i >= best - Y and RY <= NN:
                    w = RY - LY
                    ws[w, 0] = i
                    ws[w, 1] = i - OE
                    i -= E
                    if full:
                        tb = _grow1(tb, tbase + RY + 1)
                        tb[tbase + RY] = FROM_I
                    elif inspect:
                        if row < EAGER and RY < EAGER:
                            eager[row, RY] = FROM_I
                    elif RY < rect_w:
                        tb[row * rect_w + RY] = FROM_I
                    used += 1
                    RY += 1
            if RY <= NN:
                w = RY - LY
                ws[w, 0] = NEG
                ws[w, 1] = NEG
                RY += 1
            if inspect:
                rows[row, ROW_RY] = RY
            row += 1

        if execute:
            end1 = exec_r
            end2 = exec_c
        score = boundary if end_is_boundary else best
        return score, end1, end2, truncated, cells, ws, mk, act, rows, tb, tbrow

    return one_sided


one_sided_full = _make_one_sided(MODE_FULL)
one_sided_inspect = _make_one_sided(MODE_INSPECT)
one_sided_execute = _make_one_sided(MODE_EXECUTE)


@njit(cache=True)
def traceback(mode, end_r, end_c, tb, tbrow, eager, rect_w, out):
    """Walk links back from (end_r, end_c) to (0, 0).

    Writes one op code per step into ``out`` (0 sub, 1 ins = query base vs gap,
    2 del = target base vs gap) in traceback order (far end first) and returns
    (count, out).
    """
    r = end_r
    c = end_c
    prev = FROM_C
    n = 0
    while r >= 1 or c > 0:
        if mode == MODE_FULL:
            link = tb[tbrow[r] + c]
        elif mode == MODE_INSPECT:
            link = eager[r, c]
        else:
            link = tb[r * rect_w + c]
        op = link & 3
        if prev == FROM_I and (link & I_EXT) != 0:
            op = FROM_I
        if prev == FROM_D and (link & D_EXT) != 0:
            op = FROM_D
        if n >= out.shape[0]:
            out = _grow1(out, 2 * n + 16)
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
    return n, out
