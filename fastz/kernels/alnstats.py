"""Per-alignment statistics the writers and back-end filters print or test, computed
straight from the edit script (``io.alignview.AlnView`` has the column-by-column
reference: ``pairs``)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..records import OP_DEL, OP_MATCH


@njit(cache=True, nogil=True)
def identity_counts(ops, beg1, beg2, t, q, bits):
    """(matches, ACGT pairs) over the substitution columns of one alignment: ``ops``
    its BAM-style runs from target ``t[beg1]`` and query ``q[beg2]``; ``bits`` maps a
    byte to 0..3 for ACGT in either case, -1 otherwise (a pair with a -1 is not
    counted)."""
    i = beg1
    j = beg2
    m = 0
    d = 0
    for k in range(ops.shape[0]):
        v = np.int64(ops[k])
        op = v & 0xF
        n = v >> 4
        if op == OP_MATCH:
            for x in range(n):
                b1 = bits[t[i + x]]
                b2 = bits[q[j + x]]
                if b1 >= 0 and b2 >= 0:
                    d += 1
                    if b1 == b2:
                        m += 1
            i += n
            j += n
        elif op == OP_DEL:
            i += n
        else:
            j += n
    return m, d


@njit(cache=True, nogil=True)
def identity_counts_all(ops, ops_start, beg1, beg2, t, q, bits):
    """``identity_counts`` of every alignment of a strand's table at once: alignment k
    has the runs ``ops[ops_start[k]:ops_start[k + 1]]``.  Returns (matches, pairs)."""
    n = beg1.shape[0]
    m = np.zeros(n, np.int64)
    d = np.zeros(n, np.int64)
    for k in range(n):
        m[k], d[k] = identity_counts(ops[ops_start[k]:ops_start[k + 1]], beg1[k], beg2[k],
                                     t, q, bits)
    return m, d


#: LASTZ ``numIdentityBins``: identities are binned in thousandths
IDENTITY_BINS = 1000


@njit(cache=True, nogil=True)
def binned_substitutions(pos1, pos2, length, t, q, bits, subs, coverage):
    """Scoring inference's statistics of gap-free segments (LASTZ ``infer_scores.c``
    ``gather_stats_from_match``): segment k's ACGT pairs, counted by (target base,
    query base), are added to ``subs[b]`` (int64[IDENTITY_BINS + 1, 4, 4]) and their
    number to ``coverage[b]``, where ``b`` is the segment's identity in thousandths,
    rounded half up (LASTZ ``identity_bin``).  ``bits`` as ``identity_counts``."""
    counts = np.zeros((4, 4), np.int64)
    for k in range(pos1.shape[0]):
        counts[:, :] = 0
        d = 0
        m = 0
        for x in range(length[k]):
            b1 = bits[t[pos1[k] + x]]
            b2 = bits[q[pos2[k] + x]]
            if b1 >= 0 and b2 >= 0:
                counts[b1, b2] += 1
                d += 1
                if b1 == b2:
                    m += 1
        if d == 0:              # (no ACGT pair: no positive score, so never an HSP)
            continue
        b = (2 * m * IDENTITY_BINS + d) // (2 * d)
        subs[b] += counts
        coverage[b] += d


@njit(cache=True, nogil=True)
def seed_discoveries(t, q, beg1, beg2, length, seed_len, care_off, care_bits, with_trans,
                     step, bits, folded):
    """LASTZ's ``discovery_probability`` numerator for a gap-free segment of ``length``
    from target ``t[beg1]`` and query ``q[beg2]``: how many of the ``step`` phases hold
    a seed word that hits (the seed's care positions ``care_off``/``care_bits`` as in
    ``pipeline.seeding.SeedSpec``; or up to ``with_trans`` transitions at its '1's,
    none of them a transversion, looking only at the last 16 bases).  Walked as LASTZ
    walks it: a byte that ``bits`` maps to -1 restarts the word, and one in the target
    does so without stepping the query (``folded``: ``step`` bytes of scratch)."""
    for i in range(step):
        folded[i] = 0
    a = beg1
    b = beg2
    stop = beg1 + length
    found = 0
    au = 0
    bu = 0
    mask = (1 << 62) - 1                  # (a seed is at most 31 bases: 62 bits)
    n = 0                                 # columns of the current word so far
    while a < stop:
        aa = bits[t[a]]
        a += 1
        if aa < 0:
            n = 0
            continue
        bb = bits[q[b]]
        b += 1
        if bb < 0:
            n = 0
            continue
        au = ((au << 2) | aa) & mask
        bu = ((bu << 2) | bb) & mask
        n += 1
        if n < seed_len:
            continue
        same = True
        transversion = False
        transitions = 0
        for k in range(care_off.shape[0]):
            diff = ((au ^ bu) >> (2 * care_off[k])) & 3
            if care_bits[k] == 2:
                if diff != 0:
                    same = False
                # (LASTZ keeps the transition test's bits in a u32: a '1' 16 or more
                # bases from the word's end is not looked at there)
                if care_off[k] < 16:
                    if diff & 1:
                        transversion = True
                    elif diff & 2:
                        transitions += 1
            elif diff & 1:
                same = False
        if same or (with_trans != 0 and not transversion and transitions <= with_trans):
            phase = (a - (beg1 + seed_len)) % step
            if folded[phase] == 0:
                folded[phase] = 1
                found += 1
    return found
