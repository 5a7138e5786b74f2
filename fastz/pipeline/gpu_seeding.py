"""Stages 1-2 on a GPU: seed hits and gap-free x-drop for one query strand.

Host side of ``fastz.kernels.gpu.seedhits`` (the design is in its docstring and in
docs/gpu.md).  Same inputs and outputs as ``kernels.filtering.search_strand``:
the rows (pos1, pos2, length, score) in LASTZ's discovery order and the number of
seed hits enumerated.

Memory stays bounded: the query is walked in windows of window ends (hits
counted per end, prefix-summed), each window cut into chunks of at most
``HIT_CAP`` hits (a single end with more hits is a chunk of its own); only one
chunk's hits exist at a time.  Chunks run in query order and the diagonal-hash
state stays on the device between them.
"""
from __future__ import annotations

import numpy as np

from ..kernels.filtering import DIAG_HASH_SIZE

WINDOW = 1 << 20              # query window ends counted per launch
HIT_CAP = 1 << 24             # hits per chunk on a device
TWIN_CAP = 1 << 22            # ... with the CPU twins
SIM_WINDOW = 1 << 10          # the CUDA simulator runs a Python thread per CUDA thread
SIM_CAP = 1 << 12


class _SeedEngine:
    """Array module and kernels for one target (the GPU, the simulator or the twins)."""

    def __init__(self, kind: str):
        from ..kernels import device
        from ..kernels.gpu import seedhits
        self.kind = kind
        self.device = device
        if kind == "twin":
            self.xp = np
            self.to_dev = self.to_host = lambda a: a
            self.count, self.fill, self.bucket = (seedhits.count_cpu, seedhits.fill_cpu,
                                                  seedhits.bucket_cpu)
            self.window, self.cap = WINDOW, TWIN_CAP
        else:
            self.xp = device.xp()
            self.to_dev, self.to_host = device.to_device, device.to_host
            self.count, self.fill, self.bucket = (seedhits.count_gpu, seedhits.fill_gpu,
                                                  seedhits.bucket_gpu)
            sim = device.simulated()
            self.window = SIM_WINDOW if sim else WINDOW
            self.cap = SIM_CAP if sim else HIT_CAP


# device copies of the target index, kept while the same index is searched
_INDEX_CACHE: dict = {}


def _device_index(eng, index):
    key = (eng.kind, id(index))
    hit = _INDEX_CACHE.get(key)
    if hit is None or hit[0] is not index:
        _INDEX_CACHE.clear()
        low = index.low if index.low.shape[0] else np.zeros(1, np.uint8)
        hit = (index, eng.to_dev(index.dir_), eng.to_dev(low), eng.to_dev(index.pos))
        _INDEX_CACHE[key] = hit
    return hit[1:]


def _chunks(csum: np.ndarray, cap: int):
    """Cut window ends [0, n) into runs of at most ``cap`` hits: (k0, k1, first, total)."""
    n = csum.shape[0]
    k0 = 0
    while k0 < n:
        base = int(csum[k0 - 1]) if k0 else 0
        k1 = int(np.searchsorted(csum, base + cap, side="right"))
        k1 = max(k1, k0 + 1)
        yield k0, k1, base, int(csum[k1 - 1]) - base
        k0 = k1


def search_strand_device(index, t, q, qcodes, len1, len2, table, xdrop, hspthresh,
                         ent_lo, ent_hi, mode, self_mode, trans, engine: str = "gpu",
                         stats: dict | None = None):
    """``kernels.filtering.search_strand`` with the seed hits and x-drop on the device.

    ``engine`` is "gpu" (numba-cuda kernels, or the simulator) or "twin" (their CPU
    twins).  Returns (rows, n_raw) as the CPU search does.
    """
    from ..kernels.gpu.seedhits import H_KEPT, H_RAW

    eng = _SeedEngine(engine)
    xp = eng.xp
    spec = index.spec
    seed_len = spec.length
    dir_, low, pos = _device_index(eng, index)
    care_off = eng.to_dev(np.ascontiguousarray(spec.care_off, np.int64))
    care_bits = eng.to_dev(np.ascontiguousarray(spec.care_bits, np.int64))
    flips = eng.to_dev(np.ascontiguousarray(spec.flips, np.int64))
    resolve_off = eng.to_dev(np.ascontiguousarray(spec.resolve_off, np.int64))
    dt, dq, dcodes, dtable = (eng.to_dev(t), eng.to_dev(q), eng.to_dev(qcodes),
                              eng.to_dev(table))
    diag_end = xp.zeros(DIAG_HASH_SIZE, np.int64)
    low_bits = int(index.low_bits)
    pieces = []
    n_raw = 0
    n_chunks = 0
    first_end = seed_len                     # window ends run seed_len .. len2
    n_ends = len2 - seed_len + 1
    for w0 in range(0, max(n_ends, 0), eng.window):
        nw = min(eng.window, n_ends - w0)
        e2_0 = first_end + w0
        counts = xp.zeros(nw, np.int64)
        eng.count(e2_0, dcodes, seed_len, care_off, care_bits, flips, trans, dir_, low,
                  low_bits, pos, counts)
        dsum = xp.cumsum(counts)
        csum = np.asarray(eng.to_host(dsum))
        if csum[-1] == 0:
            continue
        for k0, k1, base, nh in _chunks(csum, eng.cap):
            if nh == 0:
                continue
            n_chunks += 1
            offs = dsum[k0:k1] - counts[k0:k1] - base      # exclusive prefix sums
            he1 = xp.empty(nh, np.int64)
            he2 = xp.empty(nh, np.int64)
            hallow = xp.empty(nh, np.int8)
            eng.fill(e2_0 + k0, dcodes, seed_len, care_off, care_bits, flips, trans, dir_,
                     low, low_bits, pos, offs, he1, he2, hallow)
            # hits by (bucket, discovery index): unique keys, so any sort is stable
            bucket = (he1 - he2) & (DIAG_HASH_SIZE - 1)
            order = xp.argsort((bucket << 40) | xp.arange(nh, dtype=np.int64))
            sb = bucket[order]
            cut = xp.flatnonzero(sb[1:] != sb[:-1]) + 1
            bstart = xp.concatenate((xp.zeros(1, np.int64), cut.astype(np.int64),
                                     xp.full(1, nh, np.int64)))
            status = xp.zeros(nh, np.int8)
            rows = xp.empty((nh, 4), np.int64)
            eng.bucket(bstart, order, he1, he2, hallow, diag_end, seed_len, resolve_off, dt,
                       dq, len1, len2, dtable, xdrop, hspthresh, ent_lo, ent_hi, mode,
                       self_mode, status, rows)
            kept = xp.flatnonzero(status == H_KEPT)
            n_raw += int((status >= H_RAW).sum())
            if kept.shape[0]:
                pieces.append(np.asarray(eng.to_host(rows[kept])))
    if stats is not None:
        stats["gpu_seed_chunks"] = stats.get("gpu_seed_chunks", 0) + n_chunks
    rows = np.concatenate(pieces) if pieces else np.zeros((0, 4), np.int64)
    return rows, n_raw


__all__ = ["search_strand_device", "WINDOW", "HIT_CAP"]
