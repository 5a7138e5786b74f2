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
from .arrays import grow, score_column
from .norefs import no_refcount
from .prefetch import prefetch
from .seeding import lookup, query_keys, window_key
from .twins import compile_twins

# the per-hit bodies, compiled for the CPU (the device compiles the same source)
_hit = compile_twins(vars(cells), ("xdrop_extend", "entropy", "extend_stops", "xdrop_hsp",
                                   "hit_excluded", "segment_score", "segment_peak"),
                     no_refcount)
_hit_excluded = _hit.hit_excluded
_xdrop_hsp = _hit.xdrop_hsp
_extend_stops = _hit.extend_stops
_segment_score = _hit.segment_score
_segment_peak = _hit.segment_peak
_entropy = _hit.entropy

#: Hit processors.
MODE_XDROP = 0     # process_for_simple_hit + xdrop_extend_seed_hit (default)
MODE_NOEXTEND = 1  # process_for_simple_hit with --nogfextend: diagonal filter only
MODE_PLAIN = 2     # process_for_plain_hit (--nogfextend --nogapped): every hit


#: How many query positions ahead the enumeration asks for the memory a window will
#: need: its keys' directory entries, then the start of their position lists, then
#: (overweight seeds only) the target bytes that decide a hit.  A query position takes
#: about a microsecond, so even 6 positions cover a memory miss; longer distances let
#: the fetched lines leave L1 before use (ecoli, Zen 3: 64/32/16 6 % slower than
#: 24/12/6, 128/64/32 10 % slower).
AHEAD_DIR = 24
AHEAD_POS = 12
AHEAD_TARGET = 6
#: Hits per key whose target bytes are fetched ahead.
AHEAD_HITS = 8
#: Slots of the ring of looked-ahead keys (a window's stay there, plus room).
RING = 2 * AHEAD_DIR
#: How many hits ahead the processing fetches a hit's target bytes and hash bucket.
AHEAD_PROCESS = 16
#: Seed hits one enumeration gathers before it stops at a query position's end: what
#: bounds the search's memory (24 bytes a hit), whatever the repeats.
BLOCK_HITS = 1 << 20
#: The same where the search may stop early (``stop_after``).
STOP_BLOCK_HITS = 1 << 14
#: No bitmap of the table's keys (``ring_ahead``)
NO_KEYS = np.zeros(0, np.int64)
#: No end to a window of positions (``search_strand``'s ``t_hi``, ``q_hi``).
NO_LIMIT = 1 << 62


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
                  stop_after=-1, block_hits=BLOCK_HITS, t_lo=0, t_hi=NO_LIMIT, q_lo=0,
                  q_hi=NO_LIMIT, report=0):
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
    block_hits : int
        Hits enumerated at a time (``BLOCK_HITS``).
    t_lo, t_hi, q_lo, q_hi : int
        ``--chores``: only seed hits lying wholly in target ``[t_lo, t_hi)`` and query
        ``[q_lo, q_hi)`` are processed (LASTZ ``filter_seed_hit_by_pos``); the others
        are as if never found.
    report : int
        1 for ``--entropy=report``: an HSP that the entropy adjustment takes below the
        threshold is kept as a marked row (``process_hits``).

    Returns
    -------
    (rows, n_raw)
        ``rows[:, 0..3]`` = pos1, pos2, length, score of each HSP/hit in discovery
        order; ``n_raw`` = number of seed hits processed.

    The search runs in blocks of query positions, each in two stages: the block's
    hits are enumerated (``enumerate_hits``), then processed (``process_hits``).
    ``pipeline.filtering.search_parts`` runs the same stages in threads.
    """
    out = np.empty((1024, 4), np.int64)
    n = 0
    n_raw = 0
    if stop_after >= 0:                        # what is enumerated past the stop is lost
        block_hits = min(block_hits, STOP_BLOCK_HITS)
    # (a hit's seed ends at query position i + 1: its start must be q_lo or later)
    i = max(0, q_lo + seed_len - 1)
    end = min(len2, q_hi)
    buf = new_hits()
    while i < end:
        hits, bounds, i, buf, _ = enumerate_hits(
            dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips, resolve_off,
            trans, t, q, qcodes, len2, self_mode, i, end, 1, block_hits, t_lo, t_hi, buf,
            buf)
        out, n, raw, stopped = process_hits(hits, 0, hits.shape[0], t, q, len1, len2,
                                            seed_len, table, xdrop, hspthresh, ent_lo,
                                            ent_hi, mode, diag_end, stop_after, out, n,
                                            report)
        n_raw += raw
        if stopped:
            break
    return out[:n], n_raw


@njit(cache=True, nogil=True)
def new_ring(nf):
    """(los, his, ring_keys, ring_allow, ring_n): the per-key slice bounds of one window
    and ``ring_ahead``'s ring, for a seed with ``nf`` transition flips."""
    nkmax = 1 + nf + nf * nf
    return (np.empty(nkmax, np.int64), np.empty(nkmax, np.int64),
            np.empty((RING, nkmax), np.int64), np.empty((RING, nkmax), np.int64),
            np.zeros(RING, np.int64))


def _ring_ahead(i, end, seed_len, qcodes, care_off, care_bits, trans, flips,
               ring_keys, ring_allow, ring_n, dir_, low, pos, low_bits, present,
               roll_mask=0, first=0):
    """The look-ahead of a seed search at query position ``i`` (the window ending at
    ``i + 1`` is looked up next): the keys of the window ending AHEAD_DIR positions
    later go into its ring slot (``window end % RING``) and their directory entries
    are fetched; the position lists of the keys AHEAD_POS positions ahead are fetched
    too.  Windows up to ``end`` only; a window with a non-ACGT base gets junk keys,
    which only ever reach a prefetch (the search skips such windows).

    With a bitmap of the keys in the table (``present``, ``seeding.present_keys``;
    empty: none) its words are fetched first, and a key's directory entry only where
    its bit is set: where most keys are missing (reads against a sampled table) most
    windows then cost one bit test.

    A contiguous seed (``roll_mask``: its keys' mask, from ``contiguous_mask``; 0:
    another seed) rolls its key on from the window before, in the ring when ``i`` is
    past ``first``, the search's first position: a base's two bits in, the oldest's
    out.  (Its junk keys differ from ``window_key``'s: non-negative.)"""
    nb = dir_.shape[0] - 1
    ahead = i + 1 + AHEAD_DIR
    sa = ahead % RING
    ring_n[sa] = 0
    bitmap = present.shape[0] > 0
    if seed_len <= ahead <= end:
        if roll_mask == 0:
            key = window_key(qcodes, ahead, care_off, care_bits)
        elif i > first and ahead > seed_len:
            key = ((ring_keys[(ahead - 1) % RING, 0] << 2) | (qcodes[ahead - 1] & 3)) & roll_mask
        else:
            key = 0
            for j in range(ahead - seed_len, ahead):
                key = (key << 2) | (qcodes[j] & 3)
        ring_n[sa] = query_keys(key, trans, flips, ring_keys[sa], ring_allow[sa])
        for kk in range(ring_n[sa]):
            key = ring_keys[sa, kk]
            if bitmap:
                if 0 <= key and (key >> 6) < present.shape[0]:
                    prefetch(present, key >> 6)
            elif 0 <= key >> low_bits < nb:
                prefetch(dir_, key >> low_bits)
    sp = (i + 1 + AHEAD_POS) % RING
    for kk in range(ring_n[sp]):
        key = ring_keys[sp, kk]
        b = key >> low_bits
        if bitmap:
            if has_key(present, key):
                prefetch(dir_, b)
        elif 0 <= b < nb and dir_[b] < dir_[b + 1]:
            prefetch(pos, dir_[b])
            if low_bits > 0:
                prefetch(low, dir_[b])


@njit(cache=True)
def contiguous_mask(seed_len, care_off, care_bits):
    """``ring_ahead``'s ``roll_mask`` for a seed: the mask of its keys' bits where every
    position of it counts whole (``match<n>``), else 0."""
    if care_off.shape[0] != seed_len or seed_len > 31:
        return 0
    for k in range(seed_len):
        if care_bits[k] != 2 or care_off[k] != seed_len - 1 - k:
            return 0
    return (np.int64(1) << (2 * seed_len)) - 1


#: ``_ring_ahead`` called (the genome search: inlined there, it was 3-5 % slower) and
#: inlined (the reads' search, 20 % faster: its 15 arguments went through the stack)
ring_ahead = no_refcount(_ring_ahead)
ring_ahead_inline = njit(cache=True, nogil=True, _nrt=False, inline="always")(_ring_ahead)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def has_key(present, key):
    """Whether ``key``'s bit is set in the bitmap ``present`` (``seeding.present_keys``)."""
    return 0 <= key and (key >> 6) < present.shape[0] and (present[key >> 6] >> (key & 63)) & 1 == 1


@njit(cache=True, nogil=True)
def new_hits():
    """An empty buffer for ``enumerate_hits`` (it grows to what a block needs)."""
    return np.empty((1 << 16, 3), np.int64)


@njit(cache=True, nogil=True)
def enumerate_hits(dir_, low, pos, low_bits,
                   seed_len, care_off, care_bits, flips, resolve_off, trans,
                   t, q, qcodes, len2, self_mode, start, end, parts, block_hits,
                   t_lo, t_hi, hits, spare):
    """Stage 1 of the search: the seed hits of the query windows ending at positions
    ``start + 1 .. end``, in LASTZ's order (query position, then its keys in try order,
    then target ends descending), without the ones ``cells.hit_excluded`` rejects and
    those whose seed leaves target ``[t_lo, t_hi)`` (``--chores``).

    Stops early, at the end of a query position, once ``block_hits`` hits are held.
    ``parts`` > 1 groups the hits by diagonal-hash range (``search_parts``), each
    group in LASTZ's order.  Other parameters as ``search_strand``.

    ``hits`` and ``spare`` (int64[:, 3], any number of rows) are the buffers the
    hits are gathered and grouped in, kept by the caller from block to block and
    returned (grown where they had to): a block's hits, made afresh and grown by
    doubling, were up to 48 MB of new pages each time for the kernel to clear.

    Returns
    -------
    (found, bounds, stop, hits, spare)
        ``found[:, 0..2]`` = target end, query end and the hit's rank among its query
        end's hits (the discovery order, for merging parts), a view of one of the
        buffers; range ``p``'s hits are rows ``bounds[p]:bounds[p + 1]``; ``stop``:
        the first query position not enumerated (``end`` unless stopped early).
    """
    los, his, ring_keys, ring_allow, ring_n = new_ring(flips.shape[0])
    n = 0
    stop = start
    while True:
        # (the buffer grows here, between calls of the loop, which rebinds no
        # array: numba would count references at every hit stored)
        n, stop, need = _gather_hits(dir_, low, pos, low_bits, seed_len, care_off,
                                     care_bits, flips, resolve_off, trans, t, q, qcodes,
                                     len2, self_mode, stop, end, block_hits, t_lo, t_hi,
                                     hits, n, los, his, ring_keys, ring_allow, ring_n)
        if need == 0:
            break
        hits = grow(hits, need)
    bounds = np.zeros(parts + 1, np.int64)
    if parts == 1:
        bounds[1] = n
        return hits[:n], bounds, stop, hits, spare
    # group by diagonal-hash range, each group in order (a counting sort)
    for k in range(n):
        bounds[_hash_range(hits[k, 0], hits[k, 1], parts) + 1] += 1
    for p in range(parts):
        bounds[p + 1] += bounds[p]
    fill = bounds[:parts].copy()
    spare = grow(spare, n)
    for k in range(n):
        p = _hash_range(hits[k, 0], hits[k, 1], parts)
        f = fill[p]
        spare[f, 0] = hits[k, 0]
        spare[f, 1] = hits[k, 1]
        spare[f, 2] = hits[k, 2]
        fill[p] = f + 1
    return spare[:n], bounds, stop, hits, spare


@njit(cache=True, nogil=True, inline="always")
def _hash_range(e1, e2, parts):
    """Which of ``parts`` equal ranges of the diagonal hash a hit's bucket is in."""
    return (((e1 - e2) & DIAG_HASH_MASK) * parts) // DIAG_HASH_SIZE


@no_refcount
def _gather_hits(dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips,
                 resolve_off, trans, t, q, qcodes, len2, self_mode, start, end, block_hits,
                 t_lo, t_hi, hits, n, los, his, ring_keys, ring_allow, ring_n):
    """``enumerate_hits``' loop over query positions from ``start``, appending to
    ``hits[:n]``; returns (n, stop, need): ``need`` > 0 where the hits of position
    ``stop`` might not fit (the caller grows the buffer to ``need`` rows and calls
    again from there), else ``stop`` is where the block ends."""
    # Each window's keys are computed once, AHEAD_DIR positions early, into a ring
    # (slot = window end mod RING); while they wait there, the memory they will read
    # is fetched (a hint, same answer without it): their directory entries at once,
    # the start of their position lists AHEAD_POS positions early and, where an
    # overweight seed's hits must be checked, the target AHEAD_TARGET early.  The
    # loop starts AHEAD_DIR early to fill the ring.
    nb = dir_.shape[0] - 1
    check_target = resolve_off.shape[0] > 0
    run = 0                                    # valid bases before ``start``, up to a seed
    while run < seed_len and start - 1 - run >= 0 and qcodes[start - 1 - run] >= 0:
        run += 1
    for i in range(start - AHEAD_DIR, end):
        ring_ahead(i, end, seed_len, qcodes, care_off, care_bits, trans, flips,
                   ring_keys, ring_allow, ring_n, dir_, low, pos, low_bits, NO_KEYS)
        if check_target:
            st = (i + 1 + AHEAD_TARGET) % RING
            for kk in range(ring_n[st]):
                b = ring_keys[st, kk] >> low_bits
                if 0 <= b < nb:
                    for j in range(dir_[b], min(dir_[b + 1], dir_[b] + AHEAD_HITS)):
                        prefetch(t, pos[j] - 1)
        if i < start:
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
        most = n
        for kk in range(nk):
            lo, hi = lookup(dir_, low, low_bits, ring_keys[s0, kk])
            los[kk] = lo
            his[kk] = hi
            most += hi - lo
        if most > hits.shape[0]:
            return n, i, most
        rank = -1
        for kk in range(nk):
            for j in range(los[kk], his[kk]):
                e1 = np.int64(pos[j])
                rank += 1
                if e1 - seed_len < t_lo or e1 > t_hi:
                    continue
                if _hit_excluded(t, q, e1, e2, seed_len, len2, self_mode, resolve_off,
                                 ring_allow[s0, kk]):
                    continue
                hits[n, 0] = e1
                hits[n, 1] = e2
                hits[n, 2] = rank
                n += 1
        if n >= block_hits:
            return n, i + 1, 0
    return n, end, 0


@njit(cache=True, nogil=True)
def process_hits(hits, lo, hi, t, q, len1, len2, seed_len,
                 table, xdrop, hspthresh, ent_lo, ent_hi, mode, diag_end, stop_after,
                 out, n, report=0):
    """Stage 2 of the search: hits ``lo:hi`` of ``enumerate_hits`` through LASTZ's hit
    processor, in order, against the diagonal hash ``diag_end``; the rows are appended
    to ``out`` from row ``n`` (with 6 columns, each row also gets its hit's query end
    and rank).  Other parameters as ``search_strand``.

    ``report`` 1 (``--entropy=report``, integer scores, 4 columns): an HSP whose score
    passed the threshold before its entropy adjustment and not after is kept too, as a
    row (pos1, pos2, -1 - length, diagonal-hash end before its extension), for
    ``pipeline.filtering.entropy_failures`` to report and drop.

    Returns (out, n, n_raw, stopped): ``stopped`` once a query position ended with
    more than ``stop_after`` (>= 0) rows (a reported row does not count: LASTZ counts
    HSPs).
    """
    n_raw = 0
    tagged = out.shape[1] == 6
    failed = 0                                 # reported rows among out[:n]
    if report != 0 and stop_after >= 0:
        for r in range(n):
            if out[r, 2] < 0:
                failed += 1
    for k in range(lo, hi):
        ka = k + AHEAD_PROCESS
        if ka < hi:                            # the x-drop reads bytes either side
            e1a = hits[ka, 0]
            prefetch(t, e1a)
            prefetch(diag_end, (e1a - hits[ka, 1]) & DIAG_HASH_MASK)
            prefetch(t, e1a - 32)
            prefetch(t, e1a + 32)
        e1 = hits[k, 0]
        e2 = hits[k, 1]
        if 0 <= stop_after < n - failed and k > lo and e2 != hits[k - 1, 1]:
            return out, n, n_raw, True
        n_raw += 1
        # the row to emit: the hit itself, or its HSP (one emission site, so the
        # growable output is rebound in one place only)
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
                block = diag_end[bucket]
                left, length, score, extent = _xdrop_hsp(
                    t, q, e1, diag, block, len1, len2, xdrop, table, ent_lo, ent_hi)
                if extent > diag_end[bucket]:
                    diag_end[bucket] = extent
                r1 = left
                r2 = left - diag
                if score < hspthresh:
                    if report == 0 or _segment_score(t, q, r1, r2, length, table) < hspthresh:
                        continue
                    length = -1 - length            # (failed by the entropy adjustment)
                    score = block
                    failed += 1
        if n == out.shape[0]:
            out = grow(out, n + 1)
        out[n, 0] = r1
        out[n, 1] = r2
        out[n, 2] = length
        out[n, 3] = score
        if tagged:
            out[n, 4] = e2
            out[n, 5] = hits[k, 2]
        n += 1
    return out, n, n_raw, 0 <= stop_after < n - failed


@njit(cache=True)
def score_segments(t, q, pos1, pos2, length, table):
    """Score every segment with ``table`` (LASTZ ``segment.c`` ``score_segments``; float64
    scores for a fractional table)."""
    out = score_column(table, pos1.shape[0])
    for k in range(pos1.shape[0]):
        out[k] = _segment_score(t, q, pos1[k], pos2[k], length[k], table)
    return out


@njit(cache=True)
def double_hsp_scores(t, q, pos1, pos2, length, table, ent_lo, ent_hi):
    """lastz_D's HSP scores: each segment's score, times its entropy factor when the
    score is in ``[ent_lo, ent_hi]``, kept as a double (``xdrop_hsp`` truncates the
    product to an integer, as lastz does)."""
    raw = score_segments(t, q, pos1, pos2, length, table).astype(np.float64)
    return entropy_adjusted(t, q, pos1, pos2, length, raw, ent_lo, ent_hi)


@njit(cache=True)
def entropy_adjusted(t, q, pos1, pos2, length, raw, ent_lo, ent_hi):
    """lastz_D's entropy adjustment of segment scores ``raw`` (float64): a score in
    ``[ent_lo, ent_hi]`` times its segment's entropy factor, the product kept whole."""
    out = raw.copy()
    for k in range(pos1.shape[0]):
        s = raw[k]
        if s >= ent_lo and s <= ent_hi:
            out[k] = s * _entropy(t, q, pos1[k], pos2[k], length[k])
    return out


@njit(cache=True, nogil=True)
def search_strand_double(dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips,
                         resolve_off, trans, t, q, qcodes, len1, len2, table, xdrop,
                         hspthresh, diag_end):
    """``search_strand`` with lastz_D's fractional scores (scoring inference): ``table``,
    ``xdrop`` and ``hspthresh`` are float64, and the x-drop extensions scoring at least
    ``hspthresh`` are returned as float64 rows (pos1, pos2, length, score), the score
    being the double sum lastz_D forms (best left plus best right) before its entropy
    adjustment (``entropy_adjusted``; the caller then applies the threshold again: the
    adjustment only lowers a score, so nothing below it here could pass).  The integer
    kernels are untouched: numba compiles the shared per-hit code again for the float
    table."""
    out = np.empty((1024, 4), np.float64)
    n = 0
    i = seed_len - 1
    buf = new_hits()
    while i < len2:
        hits, bounds, i, buf, _ = enumerate_hits(
            dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips, resolve_off,
            trans, t, q, qcodes, len2, 0, i, len2, 1, BLOCK_HITS, 0, NO_LIMIT, buf, buf)
        out, n, raw, stopped = process_hits(hits, 0, hits.shape[0], t, q, len1, len2,
                                            seed_len, table, xdrop, hspthresh, 1.0, 0.0,
                                            MODE_XDROP, diag_end, -1, out, n)
    return out[:n]


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
    an int64 array (pos1, pos2, length) and their scores (``score``'s dtype: fastz_D's
    are doubles).
    """
    n = pos1.shape[0]
    out = np.empty((n, 3), np.int64)
    best = np.empty(n, score.dtype)
    if n == 0:
        return out, best
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
        best[m] = s
        m += 1
        cur_diag = d
        cur2 = pos2[k]
        end2 = pos2[k] + length[k]
        s = score[k]
    out[m, 0] = cur_diag + cur2
    out[m, 1] = cur2
    out[m, 2] = end2 - cur2
    best[m] = s
    return out[:m + 1], best[:m + 1]
