"""Undecorated scalar recurrences: the single source of truth for per-item kernel work.

Nothing here carries a numba decorator.  ``kernels/filtering.py`` compiles these with
``numba.njit``; a numba-cuda twin can compile the same functions with
``cuda.jit(device=True)``.  Called from plain Python they double as readable oracles.

Only scalars, 1-D uint8 sequence buffers and the 256x256 int32 score table are used,
so the same code is valid on both targets.
"""
from __future__ import annotations

import math

# --- Gap-free x-drop extension --------------------------------------------------------


def xdrop_extend(t, q, e1, diag, left_stop, right_stop, xdrop, table):
    """Gap-free x-drop extension of one seed hit, in both directions along its diagonal.

    Parameters
    ----------
    t, q : uint8 arrays
        Target and query strand buffers (ASCII bytes, case kept).
    e1 : int
        Target position just past the seed hit (the hit's exclusive end).
    diag : int
        ``e1 - e2`` (target minus query position).
    left_stop : int
        Lowest target position the left extension may read (inclusive).
    right_stop : int
        Target position the right extension may not read (exclusive).
    xdrop : int
        Extension in a direction stops once the running score is more than
        ``xdrop`` below that direction's best.
    table : int32[256, 256]
        Substitution scores (the masked table for LASTZ's gap-free stage).

    Returns
    -------
    (left, right, block, score)
        The segment is target ``[left, right)``; ``block`` is the first target
        position the right extension did not examine; ``score`` is the sum of the
        best left and best right scores.

    Notes
    -----
    Mirrors LASTZ ``seed_search.c`` ``xdrop_extend_seed_hit``: the left pass starts at
    the hit's right end and walks left through the seed; each pass keeps the
    first-reached maximum (strictly greater updates it).
    """
    # left: from e1 down to left_stop
    p = e1
    run = 0
    best_left = 0
    left = e1
    while p > left_stop and run >= best_left - xdrop:
        p -= 1
        run += table[t[p], q[p - diag]]
        if run > best_left:
            best_left = run
            left = p
    # right: from e1 up to right_stop
    p = e1
    run = 0
    best_right = 0
    right = e1
    while p < right_stop and run >= best_right - xdrop:
        run += table[t[p], q[p - diag]]
        p += 1
        if run > best_right:
            best_right = run
            right = p
    return left, right, p, best_left + best_right


def segment_score(t, q, pos1, pos2, length, table):
    """Sum of ``table`` scores over a gap-free segment (LASTZ ``score_segments``)."""
    s = 0
    for k in range(length):
        s += table[t[pos1 + k], q[pos2 + k]]
    return s


# --- Entropy ---------------------------------------------------------------------------

_LOG4 = math.log(4.0)


def entropy(t, q, pos1, pos2, length):
    """Entropy factor of a gap-free segment pair, in [0, 1].

    Counts the columns whose two bytes are identical *and* upper-case A, C, G or T
    (case-sensitive); fewer than 20 such columns gives 1.0.  Frequencies are divided
    by the whole segment length.  Mirrors LASTZ ``dna_utilities.c`` ``entropy``
    (double precision; the four terms are summed in A, C, G, T order).
    """
    ca = 0
    cc = 0
    cg = 0
    ct = 0
    for k in range(length):
        a = t[pos1 + k]
        if a == q[pos2 + k]:
            if a == 65:
                ca += 1
            elif a == 67:
                cc += 1
            elif a == 71:
                cg += 1
            elif a == 84:
                ct += 1
    if ca + cc + cg + ct < 20:
        return 1.0
    n = float(length)
    pa = ca / n
    pc = cc / n
    pg = cg / n
    pt = ct / n
    qa = math.log(pa) if ca != 0 else 0.0
    qc = math.log(pc) if cc != 0 else 0.0
    qg = math.log(pg) if cg != 0 else 0.0
    qt = math.log(pt) if ct != 0 else 0.0
    return -(pa * qa + pc * qc + pg * qg + pt * qt) / _LOG4


# --- Anchor peak -----------------------------------------------------------------------

PEAK_WINDOW = 31


def segment_peak(t, q, pos1, pos2, length, table):
    """Offset of an HSP's anchor point (LASTZ ``gapped_extend.c`` ``segment_peak``).

    Segments of at most 31 columns use their midpoint ``length // 2``; longer ones
    the centre of the first best-scoring 31-column window (strictly greater wins).
    """
    if length <= PEAK_WINDOW:
        return length // 2
    s = 0
    for k in range(PEAK_WINDOW):
        s += table[t[pos1 + k], q[pos2 + k]]
    best = s
    peak = PEAK_WINDOW // 2
    for k in range(PEAK_WINDOW, length):
        s += table[t[pos1 + k], q[pos2 + k]] - table[t[pos1 + k - PEAK_WINDOW], q[pos2 + k - PEAK_WINDOW]]
        if s > best:
            best = s
            peak = k - PEAK_WINDOW // 2
    return peak
