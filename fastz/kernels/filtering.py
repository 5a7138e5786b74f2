"""Seed search with immediate gap-free x-drop filtering (CPU kernels).

One sequential loop per query strand, because LASTZ's 65,536-bucket diagonal hash
makes each hit's fate depend on the hits before it.  Mirrors LASTZ ``seed_search.c``:
``private_hit_search`` / ``private_hit_search_resolve`` (query scan and key order),
``find_table_matches`` (target ends descending), ``process_for_simple_hit`` and
``process_for_plain_hit`` (the hit processors) and ``xdrop_extend_seed_hit``.

The per-hit arithmetic (x-drop, entropy, peak) is in ``kernels/cells.py``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import cells
from .cells import DIAG_HASH_MASK, DIAG_HASH_SIZE
from .prefetch import prefetch
from .seeding import lookup, query_keys, window_key
from .twins import compile_twins

# the per-hit bodies, compiled for the CPU (the device compiles the same source)
_hit = compile_twins(vars(cells), ("xdrop_extend", "entropy", "extend_stops", "xdrop_hsp",
                                   "hit_excluded", "segment_score", "segment_peak"),
                     njit(cache=True))
_hit_excluded = _hit.hit_excluded
_xdrop_hsp = _hit.xdrop_hsp
_extend_stops = _hit.extend_stops
_segment_score = _hit.segment_score
_segment_peak = _hit.segment_peak

#: Hit processors.
MODE_XDROP = 0     # process_for_simple_hit + xdrop_extend_seed_hit (default)
MODE_NOEXTEND = 1  # process_for_simple_hit with --nogfextend: diagonal filter only
MODE_PLAIN = 2     # process_for_plain_hit (--nogfextend --nogapped): every hit


#: How many query positions ahead the search asks for the memory a window will need:
#: its keys' directory entries, then the start of their position lists, then the
#: target around their hits (each stage reads what the one before fetched).  A query
#: position takes about a microsecond, so even 6 positions cover a memory miss;
#: longer distances let the fetched lines leave L1 before use (ecoli, Zen 3: 64/32/16
#: 6 % slower than 24/12/6, 128/64/32 10 % slower).
AHEAD_DIR = 24
AHEAD_POS = 12
AHEAD_TARGET = 6
#: Hits per key whose target bytes are fetched ahead.
AHEAD_HITS = 8
#: Slots of the ring of looked-ahead keys (a window's stay there, plus room).
RING = 2 * AHEAD_DIR


@njit(cache=True)
def _grow(out, n):
    """``out`` with room for at least one more row (doubling)."""
    if n < out.shape[0]:
        return out
    bigger = np.empty((2 * out.shape[0], out.shape[1]), out.dtype)
    bigger[:n] = out[:n]
    return bigger


def diag_hash(len2):
    """LASTZ's diagonal hash for a query strand of ``len2`` bases: the end (query
    position) of the last extension per bucket.  int32 when the positions fit: the
    hash is read at a random bucket for every seed hit, and at half the size it
    stays in the L2 cache (ecoli's seed search: 19 % faster)."""
    return np.zeros(DIAG_HASH_SIZE, np.int32 if len2 < 2**31 - 1 else np.int64)


@njit(cache=True, nogil=True)
def search_strand(dir_, low, pos, low_bits,
                  seed_len, care_off, care_bits, flips, resolve_off, trans,
                  t, q, qcodes, len1, len2,
                  table, xdrop, hspthresh, ent_lo, ent_hi, mode, diag_end, self_mode=0,
                  stop_after=-1, parts=1, part=0):
    """Seed hits of one query strand, processed in LASTZ's order.

    Parameters
    ----------
    dir_, low, pos, low_bits
        The target index (``kernels.seeding.build_index_arrays``).
    seed_len, care_off, care_bits, flips, resolve_off
        The seed (``pipeline.seeding.SeedSpec``); ``flips`` in LASTZ's try order.
    trans : int
        Transitions allowed in a hit (0, 1 or 2).
    t, q : uint8 arrays
        Target and query strand buffers.
    qcodes : int8 array
        Seed codes of ``q``.
    len1, len2 : int
        Lengths of ``t`` and ``q`` as LASTZ counts them (no trailing NUL).
    table : int32[256, 256]
        Masked substitution scores.
    xdrop, hspthresh : int
        X-drop and (fixed) HSP score threshold (inclusive).
    ent_lo, ent_hi : int
        Entropy-adjust scores in ``[ent_lo, ent_hi]``; pass ``ent_lo > ent_hi`` for off.
    mode : int
        ``MODE_XDROP``, ``MODE_NOEXTEND`` or ``MODE_PLAIN``.
    diag_end : int array
        ``diag_hash(len2)``: the diagonal hash, all zero.
    self_mode : int
        ``--self``: 0 off; 1 same strand (hits with ``e1 >= e2`` dropped); 2 opposite
        strand of an unpartitioned sequence (LASTZ ``seed_hit_below_diagonal``).
    stop_after : int
        ``--queryhsplimit`` with keep: stop after the first query position where more
        than this many rows were emitted (LASTZ's ``searchToGo`` check); -1 never.

    parts, part : int
        Process only the hits whose diagonal-hash bucket lies in the ``part``-th of
        ``parts`` equal ranges (``search_parts``): no hit's fate depends on a hit of
        another range, so the ranges can be searched at once.

    Returns
    -------
    (rows, n_raw)
        ``rows[:, 0..3]`` = pos1, pos2, length, score of each HSP/hit in discovery
        order; with ``parts`` > 1 also ``rows[:, 4..5]`` = its query window end and
        its rank among that end's hits (the discovery order, for merging parts).
        ``n_raw`` = number of seed hits enumerated.
    """
    out = np.empty((1024, 4 if parts == 1 else 6), np.int64)   # (--nogapped: every hit)
    n = 0
    n_raw = 0
    nf = flips.shape[0]
    nkmax = 1 + nf + nf * nf
    los = np.empty(nkmax, np.int64)
    his = np.empty(nkmax, np.int64)
    # Each window's keys are computed once, AHEAD_DIR positions early, into a ring
    # (slot = window end mod RING); while they wait there, the memory they will read
    # is fetched (a hint, same answer without it): their directory entries at once,
    # the start of their position lists AHEAD_POS positions early, the target around
    # their hits and their diagonal-hash entries AHEAD_TARGET early.  The loop starts
    # AHEAD_DIR early to fill the ring.
    ring_keys = np.empty((RING, nkmax), np.int64)
    ring_allow = np.empty((RING, nkmax), np.int64)
    ring_n = np.zeros(RING, np.int64)
    nb = dir_.shape[0] - 1
    run = 0
    for i in range(-AHEAD_DIR, len2):
        ahead = i + 1 + AHEAD_DIR
        sa = ahead % RING
        ring_n[sa] = 0
        if seed_len <= ahead <= len2:
            ring_n[sa] = query_keys(window_key(qcodes, ahead, care_off, care_bits), trans,
                                    flips, ring_keys[sa], ring_allow[sa])
            for kk in range(ring_n[sa]):
                b = ring_keys[sa, kk] >> low_bits
                if 0 <= b < nb:                # a window with a non-ACGT base: junk
                    prefetch(dir_, b)
        sp = (i + 1 + AHEAD_POS) % RING
        for kk in range(ring_n[sp]):
            b = ring_keys[sp, kk] >> low_bits
            if 0 <= b < nb and dir_[b] < dir_[b + 1]:
                prefetch(pos, dir_[b])
                if low_bits > 0:
                    prefetch(low, dir_[b])
        st = (i + 1 + AHEAD_TARGET) % RING
        for kk in range(ring_n[st]):
            b = ring_keys[st, kk] >> low_bits
            if 0 <= b < nb:
                for j in range(dir_[b], min(dir_[b + 1], dir_[b] + AHEAD_HITS)):
                    e1 = pos[j]                # the x-drop reads bytes either side
                    prefetch(t, e1)
                    prefetch(diag_end, (e1 - (i + 1 + AHEAD_TARGET)) & DIAG_HASH_MASK)
                    prefetch(t, e1 - 32)
                    prefetch(t, e1 + 32)
        if i < 0:
            continue
        if qcodes[i] < 0:
            run = 0
            continue
        run += 1
        if run < seed_len:
            continue
        e2 = i + 1
        s0 = e2 % RING
        nk = ring_n[s0]
        # look every key up first (independent loads overlap), then walk the hits
        for kk in range(nk):
            lo, hi = lookup(dir_, low, low_bits, ring_keys[s0, kk])
            los[kk] = lo
            his[kk] = hi
        rank = -1
        for kk in range(nk):
            for j in range(los[kk], his[kk]):
                e1 = np.int64(pos[j])
                rank += 1
                if parts > 1 and (((e1 - e2) & DIAG_HASH_MASK) * parts) // DIAG_HASH_SIZE != part:
                    continue
                if _hit_excluded(t, q, e1, e2, seed_len, len2, self_mode, resolve_off,
                                     ring_allow[s0, kk]):
                    continue
                n_raw += 1
                # the row to emit: the hit itself, or its HSP (one emission site, so
                # the growable output is rebound in one place only)
                r1 = e1 - seed_len
                r2 = e2 - seed_len
                length = seed_len
                score = 0
                if mode != MODE_PLAIN:
                    diag = e1 - e2
                    bucket = diag & DIAG_HASH_MASK
                    if diag_end[bucket] > e2 - seed_len:
                        continue
                    if mode == MODE_NOEXTEND:
                        diag_end[bucket] = e2
                    else:
                        left, length, score, extent = _xdrop_hsp(
                            t, q, e1, diag, diag_end[bucket], len1, len2, xdrop, table,
                            ent_lo, ent_hi)
                        if extent > diag_end[bucket]:
                            diag_end[bucket] = extent
                        if score < hspthresh:
                            continue
                        r1 = left
                        r2 = left - diag
                out = _grow(out, n)
                out[n, 0] = r1
                out[n, 1] = r2
                out[n, 2] = length
                out[n, 3] = score
                if parts > 1:
                    out[n, 4] = e2
                    out[n, 5] = rank
                n += 1
        if 0 <= stop_after < n:
            break
    return out[:n], n_raw


@njit(cache=True)
def score_segments(t, q, pos1, pos2, length, table):
    """Score every segment with ``table`` (LASTZ ``segment.c`` ``score_segments``)."""
    out = np.empty(pos1.shape[0], np.int64)
    for k in range(pos1.shape[0]):
        out[k] = _segment_score(t, q, pos1[k], pos2[k], length[k], table)
    return out


@njit(cache=True)
def segment_peaks(t, q, pos1, pos2, length, table):
    """Anchor offset of every segment (LASTZ ``gapped_extend.c`` ``reduce_to_points``)."""
    out = np.empty(pos1.shape[0], np.int64)
    for k in range(pos1.shape[0]):
        out[k] = _segment_peak(t, q, pos1[k], pos2[k], length[k], table)
    return out


@njit(cache=True)
def merge_sorted_segments(pos1, pos2, length, score):
    """Merge overlapping segments of a diagonal-sorted table (LASTZ ``merge_segments``).

    Input is sorted by (diagonal, pos2, ...).  A segment on the same diagonal that
    starts before the running end of the current one is absorbed (ends extended,
    best score kept); adjoining segments are not merged.  Returns the merged rows as
    an int64 array (pos1, pos2, length, score).
    """
    n = pos1.shape[0]
    out = np.empty((n, 4), np.int64)
    if n == 0:
        return out
    m = 0
    cur_diag = pos1[0] - pos2[0]
    cur2 = pos2[0]
    end2 = pos2[0] + length[0]
    s = score[0]
    for k in range(1, n):
        d = pos1[k] - pos2[k]
        if d == cur_diag and pos2[k] < end2:
            if pos2[k] + length[k] > end2:
                end2 = pos2[k] + length[k]
            if score[k] > s:
                s = score[k]
            continue
        out[m, 0] = cur_diag + cur2
        out[m, 1] = cur2
        out[m, 2] = end2 - cur2
        out[m, 3] = s
        m += 1
        cur_diag = d
        cur2 = pos2[k]
        end2 = pos2[k] + length[k]
        s = score[k]
    out[m, 0] = cur_diag + cur2
    out[m, 1] = cur2
    out[m, 2] = end2 - cur2
    out[m, 3] = s
    return out[:m + 1]
