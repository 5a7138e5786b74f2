"""Slow, plain reference for the one-sided y-drop DP (test oracle only).

Written for readability, not speed: whole-matrix dictionaries C, D, I and a
link per cell, no buffer reuse, no earlier-alignment bounds (the bounds are
tested end to end against lastz).  The rules are LASTZ's (spec section 6.3):
rows are swept left to right between LY and RY; a cell is pruned when its value
falls more than ydrop below the best score seen so far (row-major order); ties
prefer the diagonal, then D over I, and extending a gap over opening one; a row
whose right end was not pruned is prolonged with insertions.
"""
from __future__ import annotations

NEG = -1_932_735_283


def one_sided_reference(A: bytes, B: bytes, sub, gap_open: int, gap_extend: int,
                        ydrop: int, trim: bool = True):
    """Extend from the origin over A (rows) and B (columns), 1-based as in LASTZ.

    ``A[r-1]`` is the character of row r, ``B[c-1]`` of column c; reading past
    the end of B yields NUL (score from ``sub[a][0]``).

    Returns (score, end_row, end_col, ops) with ops as a string over 'M', 'I'
    (query base against a gap) and 'D' (target base against a gap) in sequence
    order from the origin outwards.

    Every sum is formed as LASTZ forms it, so with float scores (lastz_D's) the
    values are its doubles, rounding included.
    """
    M, N = len(A), len(B)
    if M == 0 or N == 0:
        return 0, 0, 0, ""
    E, OE, Y = gap_extend, gap_open + gap_extend, ydrop

    def b_at(c):                       # B(c), 1-based; NUL past the end
        return B[c - 1] if 1 <= c <= N else 0

    C, D, link = {}, {}, {}
    # row 0: insertions from the origin while the last stored value is >= -Y
    C[0, 0] = 0
    D[1, 0] = -OE
    link[0, 0] = 0
    col, last, c = 1, 0, -OE
    while col <= N and last >= -Y:
        C[0, col] = last = c           # a running sum, as LASTZ's (exact for doubles too)
        D[1, col] = C[0, col] - OE
        c -= E
        link[0, col] = 1
        col += 1
    LY, RY = 0, col
    best, end = 0, (0, 0)
    boundary, end_is_boundary = NEG, False
    for r in range(1, M + 1):
        a = A[r - 1]
        i = NEG                        # I value carried along the row
        c = NEG                        # diagonal proposal for the current column
        np_col = LY
        col = LY
        while col < RY:
            d = D.get((r, col), NEG)
            nxt = C.get((r - 1, col), NEG) + sub[a][b_at(col + 1)]
            if d > c or i > c:         # a gap beats the diagonal (strictly)
                if d >= i:
                    c, lk = d, 2 | 4 | 8
                else:
                    c, lk = i, 1 | 4 | 8
                if c < best - Y:
                    pruned = True
                else:
                    pruned = False
                    i -= E             # no gap opens from a gap-derived C
                    D[r + 1, col] = d - E
            else:
                if c < best - Y:
                    pruned = True
                else:
                    pruned = False
                    if c >= best:
                        best, end, end_is_boundary = c, (r, col), False
                    if not trim and c >= boundary and (r == M or col == N):
                        boundary, end, end_is_boundary = c, (r, col), True
                    c_open = c - OE
                    if c_open > d - E:
                        D[r + 1, col], lk = c_open, 0
                    else:
                        D[r + 1, col], lk = d - E, 8
                    if c_open > i - E:
                        i = c_open
                    else:
                        i, lk = i - E, lk | 4
            if pruned:
                link[r, col] = 0
                if col == LY:
                    LY += 1            # nothing stored for a leading pruned cell
                else:
                    C[r, col] = D[r + 1, col] = NEG
                    i = NEG
            else:
                np_col = col
                C[r, col] = c
                link[r, col] = lk
            c = nxt
            col += 1
        if LY >= RY:
            break
        if RY > np_col + 1:
            RY = np_col + 1
        else:
            while i >= best - Y and RY <= N:
                C[r, RY] = i
                D[r + 1, RY] = i - OE
                link[r, RY] = 1
                i -= E
                RY += 1
        if RY <= N:
            C[r, RY] = D[r + 1, RY] = NEG
            RY += 1
    score = boundary if end_is_boundary else best
    r, c = end
    ops = []
    prev = 0
    while r >= 1 or c > 0:
        lk = link[r, c]
        op = lk & 3
        if prev == 1 and lk & 4:
            op = 1
        if prev == 2 and lk & 8:
            op = 2
        if op == 1:
            c -= 1
            ops.append("I")
        elif op == 2:
            r -= 1
            ops.append("D")
        else:
            r -= 1
            c -= 1
            ops.append("M")
        prev = op
    return score, end[0], end[1], "".join(reversed(ops))
