"""The seed-hit processors other than LASTZ's default (CPU kernel).

``kernels.filtering.search_strand`` is the fast path for the default processor.  This
module runs the same seed-hit enumeration (query ends ascending; per end the exact key,
then the transition flips in LASTZ's order; target ends descending) into any of LASTZ's
hit processors, with any gap-free extender and the seed-hit filter.  Mirrors LASTZ
``seed_search.c``: ``process_for_plain_hit``, ``process_for_simple_hit``,
``process_for_recoverable_hit`` (``--recoverseeds``), ``process_for_twin_hit``
(``--twins``, the seed-hit-queue version), ``filter_seed_hit_by_subs`` (``--filter``),
``xdrop_extend_seed_hit``, ``match_extend_seed_hit`` (``--exact``) and
``mismatch_extend_seed_hit`` (``--mismatch``); ``diag_hash.c`` ``_enqueue_seed_hit``.

The per-hit arithmetic lives in ``kernels/cells.py``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import cells
from .arrays import grow, segment_rows
from .cells import DIAG_HASH_MASK, DIAG_HASH_SIZE
from .filtering import (AHEAD_DIR, NO_KEYS, NO_LIMIT, RING, _extend_stops, _hit_excluded,
                        _segment_score, _xdrop_hsp, contiguous_mask, has_key, new_ring,
                        ring_ahead_inline)
from .norefs import no_refcount
from .seeding import lookup

_counts = no_refcount(cells.seed_hit_counts)
_exact = no_refcount(cells.exact_extend)
_mismatch = no_refcount(cells.mismatch_extend)

#: Hit processors (LASTZ ``set_up_hit_processor``).
PROC_PLAIN = 0     # every hit (--nogfextend --nogapped)
PROC_SIMPLE = 1    # one hit per diagonal-hash extent (the default)
PROC_RECOVER = 2   # --recoverseeds: a hash collision starts a fresh hit
PROC_TWIN = 3      # --twins: two hits on one diagonal within a span

#: Gap-free extenders (LASTZ ``gfExtend``).
EXT_NONE = 0       # --nogfextend
EXT_XDROP = 1      # x-drop (the default)
EXT_EXACT = 2      # --exact=<len>
EXT_MISMATCH = 3   # --mismatch=<M>,<len>



@no_refcount
def _below_partitioned(p1, p2, off1, off2, len2):
    """LASTZ ``seed_hit_below_diagonal`` for opposite strands of a partitioned
    sequence: by partition index first, then within the partition, with the query
    position reflected through that partition's two separators."""
    i1 = np.searchsorted(off1, p1, side="right") - 1
    i2 = np.searchsorted(off2, p2, side="right") - 1
    if i1 != i2:
        return i1 >= i2
    return p1 >= (off2[i2] - 1) + (off2[i2] + len2[i2]) - p2


@no_refcount
def _enqueue(qprev, qblock, qpos2, qdiag, last, state, pos1, pos2, is_block, columns):
    """Append a seed hit (or an extension block) to the cyclic seed-hit queue.

    ``state[0]`` is the number of the newest entry (entry numbers start past the queue
    size), ``state[1..2]`` the first position where an unexpired seed hit was
    overwritten (LASTZ's one-time "seed hit queue shortfall" warning), -1 if none.
    """
    size = qprev.shape[0]
    diag = pos1 - pos2
    h = diag & DIAG_HASH_MASK
    num = state[0] + 1
    state[0] = num
    k = num % size
    if num > 2 * size and state[1] < 0 and not qblock[k]:
        d = pos2 - qpos2[k]
        if 0 <= d <= columns:
            state[1] = pos1
            state[2] = pos2
    if last[h] <= num - size:
        qprev[k] = 0
    else:
        qprev[k] = last[h]
    last[h] = num
    qblock[k] = is_block
    qpos2[k] = pos2
    qdiag[k] = diag


@njit(cache=True, nogil=True)
def search_strand_general(dir_, low, pos, low_bits,
                          seed_len, care_off, care_bits, flips, resolve_off, trans,
                          t, q, qcodes, len1, len2, table, bits,
                          proc, ext, mismatches, xdrop, hspthresh, ent_lo, ent_hi,
                          min_matches, max_transversions, care,
                          twin_min, twin_max, queue_size, self_mode,
                          part1_off, part2_off, part2_len, stop_after,
                          t_lo, t_hi, q_lo, q_hi, diag_end, diag_actual, used, used_list,
                          report=0):
    """Seed hits of one query strand through any LASTZ hit processor.

    Parameters as ``kernels.filtering.search_strand``, plus:

    bits : int8[256]
        LASTZ ``nuc_to_bits`` (case-insensitive ACGT codes, -1 otherwise).
    proc, ext : int
        ``PROC_*`` and ``EXT_*``; ``mismatches`` is M for ``EXT_MISMATCH``.
    hspthresh : int
        Score threshold (x-drop) or length threshold (exact / mismatch).
    min_matches, max_transversions : int
        ``--filter``: a hit needs at least ``min_matches`` matches and at most
        ``max_transversions`` transversions (-1: no limit); ``min_matches < 0`` is off.
    care : uint8 array
        ``--filter=cares:``: the seed's care flags (empty: every column counts).
    twin_min, twin_max, queue_size : int
        ``--twins`` spans (from the first hit's start to the second's end) and the
        seed-hit queue length (``--seedqueue``).
    self_mode : int
        As ``search_strand``, plus 3: ``--self``, opposite strands of a partitioned
        sequence, whose partitions (``part1_off`` in the target; ``part2_off``,
        ``part2_len`` in the query) were reverse-complemented one by one.
    stop_after : int
        As ``search_strand`` (never used with ``PROC_TWIN``, which LASTZ never stops).
    t_lo, t_hi, q_lo, q_hi : int
        As ``search_strand`` (``--chores``): every processor drops a seed hit outside
        them first.
    diag_end, diag_actual, used, used_list : scratch
        int64[DIAG_HASH_SIZE] twice, uint8 and int64[DIAG_HASH_SIZE // 16]: all zero
        on entry, and left so on return (only the 16-bucket blocks a hit touched,
        listed in ``used_list``, are cleared: a short read touches a few, and the
        caller keeps one set of tables instead of zeroing 1 MB per strand).
    report : int
        1 for ``--entropy=report`` (x-drop, integer scores): as ``kernels.filtering.
        process_hits``, an HSP the entropy adjustment takes below the threshold is kept
        as a row (pos1, pos2, -1 - length, diagonal-hash end before its extension), in
        search order, and does not count towards ``stop_after``.

    Returns
    -------
    (rows, n_raw, shortfall)
        ``rows[:, 0..3]`` = pos1, pos2, length, score in report order (int64; float64
        with a float ``table``, the inference's fractional scores, where ``xdrop`` and
        ``hspthresh`` are floats too); ``n_raw`` the seed hits enumerated;
        ``shortfall`` (pos1, pos2, rows before it, with ``report``) of the first
        seed-hit-queue overflow, or (-1, -1, -1).
    """
    state, scratch = new_scratch(proc, queue_size, mismatches, flips.shape[0])
    out = segment_rows(table, 1024)
    n = 0
    fresh = True
    # (resumed with a larger table where it filled; search_strands_general repeats
    # this loop: a shared helper called per strand would count references again)
    while True:
        n, need = _search_into(
            dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips, resolve_off,
            trans, t, q, qcodes, len1, len2, table, bits, proc, ext, mismatches, xdrop,
            hspthresh, ent_lo, ent_hi, min_matches, max_transversions, care, twin_min,
            twin_max, self_mode, part1_off, part2_off, part2_len, stop_after,
            t_lo, t_hi, q_lo, q_hi, diag_end, diag_actual, used, used_list, state, scratch,
            out, n, fresh, NO_KEYS, report)
        if need == 0:
            break
        out = grow(out, need)
        fresh = False
    return out[:n], state[S_RAW], np.array([state[S_SHORT1], state[S_SHORT2],
                                            state[S_SHORT_AT]], np.int64)


#: ``_search_into``'s state (``new_scratch``'s int64 array), kept across a resumption:
#: the seed-hit queue's newest entry number, the first shortfall (pos1, pos2), the
#: run of valid bases, the hash blocks used, the seed hits counted, the next position,
#: the rows the entropy adjustment failed (--entropy=report) and the rows before the
#: shortfall (where LASTZ warns of it among its report lines)
S_QNUM, S_SHORT1, S_SHORT2, S_RUN, S_USED, S_RAW, S_NEXT, S_FAILED, S_SHORT_AT = range(9)


@njit(cache=True)
def new_scratch(proc, queue_size, mismatches, nf):
    """(state, scratch): ``_search_into``'s state (the S_* entries) and working
    arrays, made once for many strands: the seed-hit queue (``PROC_TWIN``'s, else one
    entry) and its diagonal-hash heads (all zero), the mismatch extender's buffer and
    the look-ahead ring (``filtering.new_ring``)."""
    qsize = queue_size if proc == PROC_TWIN else 1
    los, his, ring_keys, ring_allow, ring_n = new_ring(nf)
    return np.zeros(S_SHORT_AT + 1, np.int64), (
        np.zeros(qsize, np.int64), np.zeros(qsize, np.bool_), np.zeros(qsize, np.int64),
        np.zeros(qsize, np.int64), np.zeros(DIAG_HASH_SIZE if proc == PROC_TWIN else 1,
                                            np.int64),
        np.empty(max(mismatches, 0) + 1, np.int64), los, his, ring_keys, ring_allow, ring_n)


@no_refcount
def _search_into(dir_, low, pos, low_bits,
                 seed_len, care_off, care_bits, flips, resolve_off, trans,
                 t, q, qcodes, len1, len2, table, bits,
                 proc, ext, mismatches, xdrop, hspthresh, ent_lo, ent_hi,
                 min_matches, max_transversions, care,
                 twin_min, twin_max, self_mode,
                 part1_off, part2_off, part2_len, stop_after,
                 t_lo, t_hi, q_lo, q_hi, diag_end, diag_actual, used, used_list,
                 qstate, scratch, out, n, fresh, present, report):
    """``search_strand_general``'s work: its rows written to ``out`` from row ``n``,
    with the working arrays of ``new_scratch``, which it leaves ready for the next
    strand (as the diagonal tables).  ``fresh``: a new strand (else the resumption of
    the last one).  Returns (rows in all, need): ``need`` is 0 once the strand is
    done, else the rows its next query position may add, which ``out`` lacks: the
    caller gives a table of at least that many rows and resumes (what it needs, the
    seed hits counted and the shortfall among them, is in ``qstate``).  ``present``:
    the table's keys as a bitmap (``seeding.present_keys``), or empty.  ``report``: as
    ``search_strand_general``.

    It counts no references (``norefs``): called once a strand, the counting around
    its arrays was 29 % of a read batch's search."""
    qprev, qblock, qpos2, qdiag, last, mm, los, his, ring_keys, ring_allow, ring_n = scratch
    qsize = qprev.shape[0]
    if fresh:
        qstate[S_QNUM] = qsize
        qstate[S_SHORT1] = -1
        qstate[S_SHORT2] = -1
        qstate[S_RUN] = 0
        qstate[S_USED] = 0
        qstate[S_RAW] = 0
        qstate[S_NEXT] = -AHEAD_DIR
        qstate[S_FAILED] = 0
        qstate[S_SHORT_AT] = -1
        for r in range(ring_n.shape[0]):
            ring_n[r] = 0
    nused = qstate[S_USED]
    columns = twin_max - seed_len
    filtering = min_matches >= 0
    n_raw = qstate[S_RAW]
    failed = qstate[S_FAILED]
    # each window's keys are computed ahead into a ring while their memory is fetched
    # (kernels.filtering.ring_ahead: for a short read every lookup is a cache miss)
    run = qstate[S_RUN]
    bitmap = present.shape[0] > 0
    first = qstate[S_NEXT]
    roll_mask = contiguous_mask(seed_len, care_off, care_bits)
    for i in range(first, len2):
        ring_ahead_inline(i, len2, seed_len, qcodes, care_off, care_bits, trans, flips,
                          ring_keys, ring_allow, ring_n, dir_, low, pos, low_bits, present,
                          roll_mask, first)
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
        hits = 0
        for kk in range(nk):
            key = ring_keys[s0, kk]
            if bitmap and not has_key(present, key):
                los[kk] = 0
                his[kk] = 0
                continue
            lo, hi = lookup(dir_, low, low_bits, key)
            los[kk] = lo
            his[kk] = hi
            hits += hi - lo
        if n + hits > out.shape[0]:
            # a hit adds a row at most: stop before this position (redone on resuming,
            # ring_ahead's look-ahead included, which is the same again)
            qstate[S_RUN] = run - 1
            qstate[S_USED] = nused
            qstate[S_RAW] = n_raw
            qstate[S_NEXT] = i
            qstate[S_FAILED] = failed
            return n, n + hits
        for kk in range(nk):
            for j in range(los[kk], his[kk]):
                e1 = np.int64(pos[j])
                if self_mode == 3 and _below_partitioned(e1 - seed_len, e2 - seed_len,
                                                         part1_off, part2_off, part2_len):
                    continue
                if _hit_excluded(t, q, e1, e2, seed_len, len2, self_mode, resolve_off,
                                     ring_allow[s0, kk]):
                    continue
                n_raw += 1
                if (e1 - seed_len < t_lo or e1 > t_hi or e2 - seed_len < q_lo
                        or e2 > q_hi):
                    continue
                if report != 0 and qstate[S_SHORT_AT] < 0 and qstate[S_SHORT1] >= 0:
                    qstate[S_SHORT_AT] = n           # (the last hit overflowed the queue)
                diag = e1 - e2
                h = diag & DIAG_HASH_MASK
                start2 = e2 - seed_len
                length = seed_len
                if used[h >> 4] == 0:
                    used[h >> 4] = 1
                    used_list[nused] = h >> 4
                    nused += 1

                # --- the processor decides whether (and over what span) to extend ---
                if proc == PROC_PLAIN:
                    if filtering:
                        m, tv = _counts(t, q, bits, e1, diag, seed_len, care)
                        if m < min_matches or (max_transversions >= 0 and tv > max_transversions):
                            continue
                    out[n, 0] = e1 - seed_len
                    out[n, 1] = start2
                    out[n, 2] = seed_len
                    out[n, 3] = 0
                    n += 1
                    continue
                if proc == PROC_SIMPLE:
                    if diag_end[h] > start2:
                        continue
                    if filtering:
                        m, tv = _counts(t, q, bits, e1, diag, seed_len, care)
                        if m < min_matches or (max_transversions >= 0 and tv > max_transversions):
                            continue
                    block = diag_end[h]
                elif proc == PROC_RECOVER:
                    if diag == diag_actual[h] and start2 < diag_end[h]:
                        if e2 > diag_end[h]:
                            diag_end[h] = e2
                        continue
                    diag_actual[h] = diag
                    if filtering:
                        m, tv = _counts(t, q, bits, e1, diag, seed_len, care)
                        if m < min_matches or (max_transversions >= 0 and tv > max_transversions):
                            if e2 > diag_end[h]:
                                diag_end[h] = e2
                            continue
                    block = 0
                else:                                          # PROC_TWIN
                    if filtering:
                        m, tv = _counts(t, q, bits, e1, diag, seed_len, care)
                        if m < min_matches or (max_transversions >= 0 and tv > max_transversions):
                            continue
                    twin = False
                    blocked = False
                    num = last[h]
                    while num > qstate[0] - qsize:
                        k = num % qsize
                        span = e2 - (qpos2[k] - seed_len)
                        if span < 0 or span > twin_max:        # (unsigned in LASTZ)
                            break
                        if qdiag[k] == diag:
                            if qblock[k]:
                                blocked = start2 <= qpos2[k]
                                break
                            if span >= twin_min:
                                twin = True
                                length = span
                                break
                        num = qprev[k]
                    if blocked:
                        continue
                    if not twin:
                        _enqueue(qprev, qblock, qpos2, qdiag, last, qstate, e1, e2, False,
                                 columns)
                        continue
                    block = diag_end[h]

                # --- the extender ---
                if ext == EXT_NONE:
                    if proc == PROC_SIMPLE:
                        diag_end[h] = e2
                    elif proc == PROC_RECOVER:
                        if e2 > diag_end[h]:
                            diag_end[h] = e2
                    else:
                        diag_end[h] = e2
                        _enqueue(qprev, qblock, qpos2, qdiag, last, qstate, e1, e2, True,
                                 columns)
                    out[n, 0] = e1 - length
                    out[n, 1] = e2 - length
                    out[n, 2] = length
                    out[n, 3] = 0
                    n += 1
                    continue
                old_end = diag_end[h]
                left_stop, right_stop = _extend_stops(block, diag, len1, len2)
                if ext == EXT_XDROP:
                    left, length, score, extent = _xdrop_hsp(
                        t, q, e1, diag, block, len1, len2, xdrop, table, ent_lo, ent_hi)
                    keep = score >= hspthresh
                    if (not keep and report != 0
                            and _segment_score(t, q, left, left - diag, length,
                                               table) >= hspthresh):
                        # failed by the entropy adjustment: LASTZ says so at once
                        out[n, 0] = left
                        out[n, 1] = left - diag
                        out[n, 2] = -1 - length
                        out[n, 3] = block
                        n += 1
                        failed += 1
                elif ext == EXT_EXACT:
                    keep, left, right, extent = _exact(t, q, bits, e1, diag, length, left_stop,
                                                       right_stop, len1, len2, hspthresh)
                    length = right - left
                    score = length
                else:
                    keep, left, right, extent = _mismatch(t, q, bits, mismatches, e1, diag,
                                                          length, left_stop, right_stop,
                                                          len1, len2, hspthresh, mm)
                    length = right - left
                    score = length
                if extent > diag_end[h]:
                    diag_end[h] = extent
                    diag_actual[h] = diag
                if proc == PROC_TWIN and diag_end[h] != old_end:
                    _enqueue(qprev, qblock, qpos2, qdiag, last, qstate, diag + diag_end[h],
                             diag_end[h], True, columns)
                    if not keep and ext != EXT_XDROP:
                        _enqueue(qprev, qblock, qpos2, qdiag, last, qstate, e1, e2, False,
                                 columns)
                if not keep:
                    continue
                out[n, 0] = left
                out[n, 1] = left - diag
                out[n, 2] = length
                out[n, 3] = score
                n += 1
        if 0 <= stop_after < n - failed:
            break
    if report != 0 and qstate[S_SHORT_AT] < 0 and qstate[S_SHORT1] >= 0:
        qstate[S_SHORT_AT] = n
    # (loops, not slices: a slice is a view whose references are counted)
    twin_heads = last.shape[0] > 1
    for i in range(nused):
        b = used_list[i]
        used[b] = 0
        for h in range(b << 4, (b + 1) << 4):
            diag_end[h] = 0
            diag_actual[h] = 0
            if twin_heads:
                last[h] = 0
    qstate[S_RAW] = n_raw
    return n, 0


@no_refcount
def _strands_into(dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips,
                  resolve_off, trans, t, qcat, codes, offsets, len1, table, bits, proc, ext,
                  mismatches, xdrop, hspthresh, ent_lo, ent_hi, min_matches,
                  max_transversions, care, twin_min, twin_max, diag_end, diag_actual,
                  used, used_list, present, state, scratch, counts, raw, shortfall, out,
                  k0, n, m, resume):
    """``search_strands_general``'s loop over strands from ``k0`` (rows so far: ``n``;
    ``resume``: strand ``k0`` goes on from where it stopped, with ``m`` rows).  Returns
    (k, n, m, need): ``need`` > 0 where strand ``k`` must go on with ``out`` grown to
    that many rows."""
    for k in range(k0, offsets.shape[0] - 1):
        a, b = offsets[k], offsets[k + 1]
        len2 = b - a
        if len2 > 0 and qcat[b - 1] == 0:          # (records.strand_length)
            len2 -= 1
        if len2 < seed_len:
            continue
        fresh = not (resume and k == k0)
        if fresh:
            m = n
        m, need = _search_into(
            dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips,
            resolve_off, trans, t, qcat[a:b], codes[a:b], len1, len2, table, bits,
            proc, ext, mismatches, xdrop, hspthresh, ent_lo, ent_hi,
            min_matches, max_transversions, care, twin_min, twin_max, 0,
            NO_KEYS, NO_KEYS, NO_KEYS, -1, 0, NO_LIMIT, 0, NO_LIMIT,
            diag_end, diag_actual, used, used_list, state, scratch, out, m, fresh,
            present, 0)
        if need != 0:
            return k, n, m, need
        raw[k] = state[S_RAW]
        if state[S_SHORT1] >= 0 and shortfall[0] < 0:
            shortfall[0] = k
            shortfall[1] = state[S_SHORT1]
            shortfall[2] = state[S_SHORT2]
        counts[k] = m - n
        n = m
    return offsets.shape[0] - 1, n, n, 0


@njit(cache=True, nogil=True)
def search_strands_general(dir_, low, pos, low_bits,
                           seed_len, care_off, care_bits, flips, resolve_off, trans,
                           t, qcat, codes, offsets, len1, table, bits,
                           proc, ext, mismatches, xdrop, hspthresh, ent_lo, ent_hi,
                           min_matches, max_transversions, care,
                           twin_min, twin_max, queue_size,
                           diag_end, diag_actual, used, used_list, present=NO_KEYS):
    """``search_strand_general`` on many short query strands (reads) in one call.

    Strand k is ``qcat[offsets[k]:offsets[k + 1]]`` (its seed codes the same slice of
    ``codes``), searched exactly as one call per strand would (no ``--self``, no
    ``--chores`` window, no stop, no ``--entropy=report``).  A call from Python costs
    microseconds (dozens of arguments to check), a 150 bp read's search about as much:
    here it is paid once per batch.  ``present``: the table's keys as a bitmap
    (``seeding.present_keys``), or empty: the same rows either way.

    Returns
    -------
    (rows, counts, n_raw, shortfall)
        The strands' rows one after another (``counts[k]`` of them for strand k), the
        seed hits each enumerated, and the first seed-hit-queue shortfall (strand,
        pos1, pos2), or (-1, -1, -1).
    """
    n_strands = offsets.shape[0] - 1
    counts = np.zeros(n_strands, np.int64)
    raw = np.zeros(n_strands, np.int64)
    shortfall = np.full(3, -1, np.int64)
    out = np.empty((1024, 4), np.int64)
    # (one set of working arrays for every strand: a read's search costs about what
    # making them did)
    state, scratch = new_scratch(proc, queue_size, mismatches, flips.shape[0])
    k = 0
    n = 0
    m = 0
    need = 0
    while True:
        # (the table grows here, between calls of the strand loop, which counts no
        # references: here, numba counted them around every strand's call)
        k, n, m, need = _strands_into(
            dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips, resolve_off,
            trans, t, qcat, codes, offsets, len1, table, bits, proc, ext, mismatches,
            xdrop, hspthresh, ent_lo, ent_hi, min_matches, max_transversions, care,
            twin_min, twin_max, diag_end, diag_actual, used, used_list, present, state,
            scratch, counts, raw, shortfall, out, k, n, m, need > 0)
        if need == 0:
            break
        out = grow(out, need)
    return out[:n], counts, raw, shortfall
