"""Stages 1-2 on the device: seed-hit enumeration and gap-free x-drop filtering.

LASTZ processes seed hits one at a time, but the only state a hit's fate depends on
is its diagonal-hash bucket's ``diagEnd`` (spec 12.1).  So the work splits into
three data-parallel kernels per query chunk (host side: ``fastz.pipeline.gpu_seeding``):

1. ``count``: one thread per query window end; the number of target window ends
   its keys (exact, then the transition flips in LASTZ's order) look up;
2. ``fill``: the same walk again, writing every hit (target end, query end, the
   mismatches its key allows) at the position's prefix-sum offset, so the hit
   array is in LASTZ's discovery order;
3. ``bucket``: after a sort of the hits by (bucket, discovery index), one thread
   per diagonal-hash bucket runs LASTZ's hit processor over that bucket's hits in
   order: ``--self`` and overweight-seed filters, the diagonal test, x-drop,
   entropy, the score threshold.  ``diag_end`` persists across chunks, which run
   in query order, so every bucket sees its hits exactly as LASTZ does.

The result of a hit lands at its discovery index, so the kept ones, compacted in
index order, are ``kernels.filtering.search_strand``'s rows in its order.

Each kernel body is plain Python, compiled twice (``fastz.kernels.twins``): the
CPU twins (``*_cpu``, ``prange``) and the GPU kernels (``*_gpu``, one item per
thread).  The per-hit arithmetic is ``kernels/cells.py``'s, the key and look-up
code ``kernels/seeding.py``'s: the device cannot drift from the CPU search.
"""
from __future__ import annotations

from numba import cuda, njit, prange

from ..cells import (DIAG_HASH_MASK, entropy, extend_stops, hit_excluded,  # noqa: F401
                     xdrop_extend, xdrop_hsp)                   # (compiled below)
from ..device import blocks
from ..filtering import MODE_NOEXTEND, MODE_PLAIN
from ..seeding import lookup, window_key                       # noqa: F401 (compiled below)
from ..twins import compile_twins

THREADS = 128                 # threads per block (tests patch it)

# per-hit status written by the bucket kernel
H_DROPPED = 0                 # removed by --self or an overweight seed's resolve test
H_RAW = 1                     # a seed hit LASTZ counts, no segment kept
H_KEPT = 2                    # kept: its row holds (pos1, pos2, length, score)


def key_hits(key, allow, dir_, low, low_bits, pos, e2, write, o, he1, he2, hallow):
    """Target ends holding ``key`` (LASTZ's order); written from ``o`` when ``write``."""
    lo, hi = lookup(dir_, low, low_bits, key)
    if write:
        for j in range(lo, hi):
            he1[o + j - lo] = pos[j]
            he2[o + j - lo] = e2
            hallow[o + j - lo] = allow
    return hi - lo


def position_hits(e2, qcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
                  low_bits, pos, write, o, he1, he2, hallow):
    """Every hit of query window end ``e2``: the exact key, then the flips in LASTZ's
    order (``kernels.filtering.search_strand``).  Returns the count."""
    for k in range(seed_len):
        if qcodes[e2 - 1 - k] < 0:
            return 0
    key = window_key(qcodes, e2, care_off, care_bits)
    n = key_hits(key, trans, dir_, low, low_bits, pos, e2, write, o, he1, he2, hallow)
    nf = flips.shape[0]
    if trans == 1:
        for a in range(nf):
            n += key_hits(key ^ flips[a], 0, dir_, low, low_bits, pos, e2, write, o + n,
                          he1, he2, hallow)
    elif trans >= 2:
        for a in range(nf):
            n += key_hits(key ^ flips[a], 1, dir_, low, low_bits, pos, e2, write, o + n,
                          he1, he2, hallow)
            for b in range(a + 1, nf):
                n += key_hits(key ^ flips[a] ^ flips[b], 0, dir_, low, low_bits, pos, e2,
                              write, o + n, he1, he2, hallow)
    return n


def count_one(k, e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
              low_bits, pos, counts):
    """counts[k] = hits of query window end e2_0 + k."""
    counts[k] = position_hits(e2_0 + k, qcodes, seed_len, care_off, care_bits, flips,
                              trans, dir_, low, low_bits, pos, False, 0, counts, counts,
                              counts)


def fill_one(k, e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
             low_bits, pos, offs, he1, he2, hallow):
    """Hits of query window end e2_0 + k, written from ``offs[k]``."""
    position_hits(e2_0 + k, qcodes, seed_len, care_off, care_bits, flips, trans, dir_,
                  low, low_bits, pos, True, offs[k], he1, he2, hallow)


def bucket_one(b, bstart, order, he1, he2, hallow, diag_end, seed_len, resolve_off, t, q,
               len1, len2, table, xdrop, hspthresh, ent_lo, ent_hi, mode, self_mode,
               status, rows):
    """LASTZ's hit processor over the hits of one diagonal-hash bucket, in order.

    The hits are ``order[bstart[b]:bstart[b + 1]]`` (discovery indices); each gets
    ``status`` and, when kept, its ``rows`` entry.  Mirrors the per-hit body of
    ``kernels.filtering.search_strand``.
    """
    for j in range(bstart[b], bstart[b + 1]):
        h = order[j]
        e1 = he1[h]
        e2 = he2[h]
        status[h] = H_DROPPED
        if hit_excluded(t, q, e1, e2, seed_len, len2, self_mode, resolve_off, hallow[h]):
            continue
        status[h] = H_RAW
        diag = e1 - e2
        bucket = diag & DIAG_HASH_MASK
        if mode == MODE_PLAIN or mode == MODE_NOEXTEND:
            if mode == MODE_NOEXTEND:
                if diag_end[bucket] > e2 - seed_len:
                    continue
                diag_end[bucket] = e2
            rows[h, 0] = e1 - seed_len
            rows[h, 1] = e2 - seed_len
            rows[h, 2] = seed_len
            rows[h, 3] = 0
            status[h] = H_KEPT
            continue
        if diag_end[bucket] > e2 - seed_len:
            continue
        left, length, score, extent = xdrop_hsp(t, q, e1, diag, diag_end[bucket], len1, len2,
                                                xdrop, table, ent_lo, ent_hi)
        if extent > diag_end[bucket]:
            diag_end[bucket] = extent
        if score < hspthresh:
            continue
        rows[h, 0] = left
        rows[h, 1] = left - diag
        rows[h, 2] = length
        rows[h, 3] = score
        status[h] = H_KEPT


_ORDER = ("lookup", "window_key", "xdrop_extend", "entropy", "extend_stops", "xdrop_hsp",
          "hit_excluded", "key_hits", "position_hits", "count_one", "fill_one", "bucket_one")
_cpu = compile_twins(globals(), _ORDER, njit(cache=True, nogil=True))
_gpu = compile_twins(globals(), _ORDER, cuda.jit(device=True))
_count_one_cpu, _fill_one_cpu, _bucket_one_cpu = _cpu.count_one, _cpu.fill_one, _cpu.bucket_one
_count_one_gpu, _fill_one_gpu, _bucket_one_gpu = _gpu.count_one, _gpu.fill_one, _gpu.bucket_one


# --- CPU twins ------------------------------------------------------------------------

@njit(parallel=True, nogil=True, cache=True)
def count_cpu(e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
              low_bits, pos, counts):
    """Hits per query window end e2_0 + k, for k < len(counts)."""
    for k in prange(counts.shape[0]):
        _count_one_cpu(k, e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_,
                       low, low_bits, pos, counts)


@njit(parallel=True, nogil=True, cache=True)
def fill_cpu(e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
             low_bits, pos, offs, he1, he2, hallow):
    """Every hit of the window ends e2_0 + k, k < len(offs), at offsets ``offs``."""
    for k in prange(offs.shape[0]):
        _fill_one_cpu(k, e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_,
                      low, low_bits, pos, offs, he1, he2, hallow)


@njit(parallel=True, nogil=True, cache=True)
def bucket_cpu(bstart, order, he1, he2, hallow, diag_end, seed_len, resolve_off, t, q,
               len1, len2, table, xdrop, hspthresh, ent_lo, ent_hi, mode, self_mode,
               status, rows):
    """The hit processor over every bucket (len(bstart) - 1 of them)."""
    for b in prange(bstart.shape[0] - 1):
        _bucket_one_cpu(b, bstart, order, he1, he2, hallow, diag_end, seed_len,
                        resolve_off, t, q, len1, len2, table, xdrop, hspthresh, ent_lo,
                        ent_hi, mode, self_mode, status, rows)


# --- GPU kernels ----------------------------------------------------------------------

@cuda.jit
def _count_kernel(e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
                  low_bits, pos, counts):
    k = cuda.grid(1)
    if k < counts.shape[0]:
        _count_one_gpu(k, e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_,
                       low, low_bits, pos, counts)


@cuda.jit
def _fill_kernel(e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
                 low_bits, pos, offs, he1, he2, hallow):
    k = cuda.grid(1)
    if k < offs.shape[0]:
        _fill_one_gpu(k, e2_0, qcodes, seed_len, care_off, care_bits, flips, trans, dir_,
                      low, low_bits, pos, offs, he1, he2, hallow)


@cuda.jit
def _bucket_kernel(bstart, order, he1, he2, hallow, diag_end, seed_len, resolve_off, t, q,
                   len1, len2, table, xdrop, hspthresh, ent_lo, ent_hi, mode, self_mode,
                   status, rows):
    b = cuda.grid(1)
    if b < bstart.shape[0] - 1:
        _bucket_one_gpu(b, bstart, order, he1, he2, hallow, diag_end, seed_len,
                        resolve_off, t, q, len1, len2, table, xdrop, hspthresh, ent_lo,
                        ent_hi, mode, self_mode, status, rows)


def count_gpu(*args, stream=0, threads=None):
    """``count_cpu`` on the device: one query window end per thread."""
    n = args[-1].shape[0]
    if n:
        t = threads or THREADS
        _count_kernel[blocks(n, t), t, stream](*args)


def fill_gpu(*args, stream=0, threads=None):
    """``fill_cpu`` on the device: one query window end per thread."""
    n = args[11].shape[0]
    if n:
        t = threads or THREADS
        _fill_kernel[blocks(n, t), t, stream](*args)


def bucket_gpu(*args, stream=0, threads=None):
    """``bucket_cpu`` on the device: one diagonal-hash bucket per thread."""
    n = args[0].shape[0] - 1
    if n > 0:
        t = threads or THREADS
        _bucket_kernel[blocks(n, t), t, stream](*args)


__all__ = ["count_cpu", "fill_cpu", "bucket_cpu", "count_gpu", "fill_gpu", "bucket_gpu",
           "H_DROPPED", "H_RAW", "H_KEPT", "THREADS"]
