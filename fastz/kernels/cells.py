"""Undecorated scalar recurrences: the single source of truth for per-item kernel work.

Nothing here carries a numba decorator.  ``kernels/filtering.py`` compiles these with
``numba.njit``; a numba-cuda twin can compile the same functions with
``cuda.jit(device=True)``.  Called from plain Python they double as readable oracles.

Only scalars, 1-D uint8 sequence buffers and the 256x256 int32 score table are used,
so the same code is valid on both targets.
"""
from __future__ import annotations

import math

from numpy import uint64 as _u

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
    # left: from e1 down to left_stop.  The stops keep every index in range, so the
    # indexes are unsigned: numba then emits no negative-index fix-up per access,
    # which in this loop of a few instructions cost a third of its time (measured)
    p = e1
    run = 0
    best_left = 0
    left = e1
    while p > left_stop and run >= best_left - xdrop:
        p -= 1
        run += table[_u(t[_u(p)]), _u(q[_u(p - diag)])]
        if run > best_left:
            best_left = run
            left = p
    # right: from e1 up to right_stop
    p = e1
    run = 0
    best_right = 0
    right = e1
    while p < right_stop and run >= best_right - xdrop:
        run += table[_u(t[_u(p)]), _u(q[_u(p - diag)])]
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
        # (the column leaving, then the one entering: lastz_D's doubles round so)
        s -= table[t[pos1 + k - PEAK_WINDOW], q[pos2 + k - PEAK_WINDOW]]
        s += table[t[pos1 + k], q[pos2 + k]]
        if s > best:
            best = s
            peak = k - PEAK_WINDOW // 2
    return peak


# --- LASTZ's per-hit processing, shared by every hit processor -----------------------
#
# The CPU search (``kernels/filtering.py``), the general processors
# (``kernels/hitproc.py``) and the device's bucket kernel (``kernels/gpu/seedhits.py``)
# all call these, so the three cannot drift apart.

DIAG_HASH_SIZE = 65536        # LASTZ diagHashSize
DIAG_HASH_MASK = DIAG_HASH_SIZE - 1


def hit_excluded(t, q, e1, e2, seed_len, len2, self_mode, resolve_off, allowed):
    """True when a seed hit (target end ``e1``, query end ``e2``) is not a hit at all.

    ``--self`` (``self_mode`` 1: same strand, hits on or above the main diagonal;
    2: the opposite strand of an unpartitioned sequence, LASTZ
    ``seed_hit_below_diagonal``), then an overweight seed's demoted positions
    (``resolve_off``): more than ``allowed`` mismatches there and the key did not
    really match.
    """
    if self_mode == 1 and e1 >= e2:
        return True
    if self_mode == 2 and e1 - seed_len >= (len2 - 1) - (e2 - seed_len):
        return True
    nres = resolve_off.shape[0]
    if nres > 0:
        mism = 0
        for r in range(nres):
            if t[e1 - 1 - resolve_off[r]] != q[e2 - 1 - resolve_off[r]]:
                mism += 1
        if mism > allowed:
            return True
    return False


def extend_stops(block, diag, len1, len2):
    """(left_stop, right_stop): how far a gap-free extension on ``diag`` may reach,
    given the diagonal hash's ``block`` (the end of the last extension there)."""
    left_stop = block + diag
    if left_stop < 0:
        left_stop = 0
    right_stop = len2 + diag
    if right_stop > len1:
        right_stop = len1
    return left_stop, right_stop


def xdrop_hsp(t, q, e1, diag, block, len1, len2, xdrop, table, ent_lo, ent_hi):
    """LASTZ ``xdrop_extend_seed_hit``: (left, length, score, extent) of one hit.

    The x-drop extension between the stops, its score entropy-adjusted when in
    ``[ent_lo, ent_hi]`` (C's ``int *= double``: truncated); ``extent`` is the new
    diagonal-hash end for the caller to keep.
    """
    left_stop, right_stop = extend_stops(block, diag, len1, len2)
    left, right, rblock, score = xdrop_extend(t, q, e1, diag, left_stop, right_stop,
                                              xdrop, table)
    length = right - left
    if score >= ent_lo and score <= ent_hi:
        score = int(score * entropy(t, q, left, left - diag, length))
    return left, length, score, rblock - diag


# --- Seed-hit filter and the alternative gap-free extenders ---------------------------
#
# ``bits`` below is LASTZ's ``nuc_to_bits`` as an int8[256] table: A/a=0, C/c=1, G/g=2,
# T/t=3, anything else -1 (case-insensitive, unlike seed words).  A column "matches"
# when both bytes map to the same code >= 0.  Target columns at or beyond ``len1`` and
# query columns at or beyond ``len2`` read as NUL (LASTZ's buffers end in one); the
# column tests are written out inline so that numba (or numba-cuda) can compile each
# function on its own.


def seed_hit_counts(t, q, bits, e1, diag, length, care):
    """(matches, transversions) in the hit ``[e1 - length, e1)`` on diagonal ``diag``.

    A column with a non-ACGT byte on either side counts as a transversion.  With a
    non-empty ``care`` (uint8 flags, one per hit column, left to right) only flagged
    columns count.  Mirrors LASTZ ``seed_search.c`` ``filter_seed_hit_by_subs``.
    """
    matches = 0
    transversions = 0
    use_care = care.shape[0] > 0
    for k in range(length):
        if use_care and care[k] == 0:
            continue
        c = e1 - length + k
        b1 = bits[t[c]]
        b2 = bits[q[c - diag]]
        if b1 < 0 or b2 < 0:
            transversions += 1
        elif b1 == b2:
            matches += 1
        elif ((b1 ^ b2) & 1) == 1:
            transversions += 1
    return matches, transversions


def exact_extend(t, q, bits, e1, diag, length, left_stop, right_stop, len1, len2, thresh):
    """Exact-match extension of the hit ``[e1 - length, e1)`` (LASTZ ``--exact``).

    Returns ``(keep, start, end, extent)``: the maximal run of matches through the hit
    is target ``[start, end)``; ``keep`` is ``end - start >= thresh``; ``extent`` is
    the query position to record in the diagonal hash.  A hit that is not itself an
    exact match is rejected, with ``extent`` at its rightmost mismatch.  The left
    walk reads no further left than ``left_stop`` (target), the right walk stops at
    ``right_stop``.  Mirrors LASTZ ``seed_search.c`` ``match_extend_seed_hit``.
    """
    for k in range(length):
        c = e1 - 1 - k
        if not (c < len1 and c - diag < len2 and bits[t[c]] >= 0
                and bits[t[c]] == bits[q[c - diag]]):
            return False, 0, 0, c - diag
    h = e1 - length
    if h <= left_stop:
        left = h - 1
    else:
        c = h - 1
        while True:
            if not (c < len1 and c - diag < len2 and bits[t[c]] >= 0
                    and bits[t[c]] == bits[q[c - diag]]):
                left = c
                break
            if c == left_stop:
                left = c - 1
                break
            c -= 1
    c = e1
    while (c < right_stop and c - diag < len2 and bits[t[c]] >= 0
           and bits[t[c]] == bits[q[c - diag]]):
        c += 1
    right = c
    return right - left - 1 >= thresh, left + 1, right, right - diag


def mismatch_extend(t, q, bits, m, e1, diag, length, left_stop, right_stop, len1, len2,
                    thresh, mm):
    """M-mismatch extension of the hit ``[e1 - length, e1)`` (LASTZ ``--<M>mismatch``).

    The longest segment through the hit with at most ``m`` mismatches (the leftmost of
    equals), found as LASTZ does: walk left collecting up to ``m + 1 - E`` mismatches
    (``E`` in the hit; a NUL or the stop counts as one), then walk right pairing each
    further mismatch with a left end.  ``mm`` is scratch of at least ``m + 1`` ints.
    Returns ``(keep, start, end, extent)`` as ``exact_extend``.  Mirrors LASTZ
    ``seed_search.c`` ``mismatch_extend_seed_hit``, including the diagonal extent it
    records (the (E+1)-th rightmost mismatch of a hit with too many, else past the
    right end of a long-enough segment, else the leftmost mismatch of the hit, else
    the first mismatch right of it).
    """
    extent = -1
    e = 0
    for k in range(length):
        c = e1 - 1 - k
        if not (c < len1 and c - diag < len2 and bits[t[c]] >= 0
                and bits[t[c]] == bits[q[c - diag]]):
            extent = c - diag
            e += 1
            if e > m:
                return False, 0, 0, extent
    # left: mismatch positions fill mm[stop_ix - 1] down to mm[0]
    stop_ix = m + 1 - e
    scan = stop_ix
    h = e1 - length
    if h <= left_stop:
        c = h - 1
    else:
        c = h
        while True:
            if c == left_stop:
                c -= 1
                break
            c -= 1
            if c >= len1 or c - diag >= len2 or t[c] == 0 or q[c - diag] == 0:
                break
            if not (c < len1 and c - diag < len2 and bits[t[c]] >= 0
                    and bits[t[c]] == bits[q[c - diag]]):
                scan -= 1
                mm[scan] = c
                if scan == 0:
                    break
    if scan > 0:
        scan -= 1
        mm[scan] = c
    shortfall = scan
    # right: each further mismatch closes the interval opened at mm[scan]
    best = 0
    left = 0
    right = 0
    c = e1 - 1
    while c < right_stop:
        c += 1
        if c >= len1 or c - diag >= len2 or t[c] == 0 or q[c - diag] == 0:
            break
        if not (c < len1 and c - diag < len2 and bits[t[c]] >= 0
                and bits[t[c]] == bits[q[c - diag]]):
            if extent == -1:
                extent = c - diag
            if shortfall > 0:
                shortfall -= 1
                continue
            span = c - mm[scan]
            if span > best:
                best = span
                left = mm[scan]
                right = c
            scan += 1
            if scan == stop_ix:
                break
    if scan < stop_ix:
        if extent == -1:
            extent = c - diag
        span = c - mm[scan]
        if span > best:              # (always true when none was found)
            left = mm[scan]
            right = c
    n = right - left - 1
    if n >= thresh:
        extent = right + 1 - diag
    return n >= thresh, left + 1, right, extent
