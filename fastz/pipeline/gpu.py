"""Stage 3 on a GPU: speculative device extensions, resolved exactly on the host.

For one query strand (same inputs and outputs as
``fastz.kernels.gapped.extend_anchors``):

1. choose the anchors to extend speculatively (``resolve.speculate_mask``: not
   those close to an earlier chosen one, which LASTZ will most likely skip);
2. inspector on the device for both sides of each chosen anchor, unbounded
   (scores only, the eager 16x16 traceback, per-row records); batches are
   split over several streams;
3. size bins by the inspector's end cell (<= 512, 2048, 8192, 32768 rows and
   columns; larger or unfinished sides are left to the CPU); each bin gets an
   exact dense traceback allocation (prefix sums of (end_r+1)(end_c+1)) and
   runs the pruned executor + traceback;
4. ``resolve.resolve_from`` walks the anchors in LASTZ's order on the CPU: skip
   test, device result if provably exact, else an exact bounded CPU extension.

``engine="twin"`` runs the same stages with the kernels' CPU twins (numpy
arrays, numba on the CPU): a way to exercise this path without a device.
docs/gpu.md describes the design.
"""
from __future__ import annotations

import functools
import os

import numpy as np

from ..kernels.dpcells import (
    EAGER_CELLS, EAGER_OPS, N_OUT, O_CELLS, O_END_C, O_END_R, O_NOPS, O_STATUS,
)
from ..kernels.ydrop import padded_query

WIDTH = 4096                       # work-row cells per extension (power of two)
ROW_CAP = 32768                    # rows kept by the inspector for the executor
BINS = (512, 2048, 8192, 32768)    # executor size bins (rows and columns, inclusive)
BATCH = 8192                       # sides per inspector launch batch
STREAMS = 4                        # inspector streams per batch
TB_BUDGET = 1 << 31                # traceback bytes per executor launch
SIM_BATCH = 64                     # smaller batches under the CUDA simulator
RESIDENT_ARRAYS = 8                # device copies kept (Engine.resident), least recent out
_RESIDENT: dict = {}               # (engine kind, id(host array)) -> (host array, copy)
ROUND_DIAG = 300                   # rounds: an anchor this close (diagonals, target
ROUND_POS = 50_000                 # positions) to a chosen one waits for the next round
MAX_ROUNDS = 64                    # then the CPU extends the rest


class _Engine:
    """Array module + kernels for one execution target."""

    def __init__(self, kind: str, mapping: tuple[str, str]):
        from ..kernels import device
        from ..kernels.gpu import extension
        self.kind = kind
        self.device = device
        self.retries = 0                   # batches halved after an out-of-memory error
        self.rings = 1                     # work rows per side (two for "diag")
        self.strip_stats = None            # "diag": [strips, passes] swept so far
        if kind == "twin":
            self.xp = np
            self.inspect = extension.inspect_cpu
            self.execute = extension.execute_cpu
            self.to_dev = self.to_host = lambda a: a
            self.streams = [None]
            self.batch = BATCH
        else:
            self.xp = device.xp()
            self.to_dev = device.to_device
            self.to_host = device.to_host
            from ..kernels.gpu import antidiag, warp
            inspector, executor = mapping
            self.inspect = {"warp": warp.inspect_warp_gpu,
                            "diag": antidiag.inspect_diag_gpu}.get(inspector,
                                                                  extension.inspect_gpu)
            if inspector == "diag":
                self.rings = 2
                self.strip_stats = np.zeros(2, np.int64)
            self.execute = (warp.execute_warp_gpu if executor == "warp"
                            else extension.execute_gpu)
            self.streams = device.streams(STREAMS)
            self.batch = SIM_BATCH if device.simulated() else BATCH

    def resident(self, a):
        """Device copy of host array ``a`` (or of each of a tuple of them): the
        sequences stay on the device across rounds, and the padded target (the same
        arrays for every strand) across strands."""
        if isinstance(a, tuple):
            return tuple(self.resident(x) for x in a)
        key = (self.kind, id(a))
        hit = _RESIDENT.pop(key, None)
        if hit is None or hit[0] is not a:
            hit = (a, self.to_dev(a))
        _RESIDENT[key] = hit                    # (most recently used last)
        while len(_RESIDENT) > RESIDENT_ARRAYS:
            _RESIDENT.pop(next(iter(_RESIDENT)))
        return hit[1]

    def launch(self, fn, args, stream):
        if self.kind == "twin":
            fn(*args)
        elif self.device.simulated():
            fn(*args, stream=stream)
        else:
            fn(*args, stream=stream[1])

    def sync(self):
        if self.kind != "twin":
            self.device.synchronize()

    def release(self):
        """Give the memory pool's free blocks back before a retry."""
        if self.kind != "twin":
            self.device.release_memory()


def _mapping(trim: bool) -> tuple[str, str]:
    """(inspector, executor) mapping: "thread" (one extension per thread), "warp" (one
    warp per extension, row-parallel) or, for the inspector only, "diag" (one warp per
    extension along anti-diagonals; its executor defaults to "warp").  The warp
    mappings implement LASTZ's default trimming only."""
    if not trim:
        return "thread", "thread"
    inspector = os.environ.get("FASTZ_GPU_MAPPING", "thread")
    inspector = inspector if inspector in ("thread", "warp", "diag") else "thread"
    own = "warp" if inspector == "diag" else inspector
    executor = os.environ.get("FASTZ_GPU_EXECUTOR", own)
    return inspector, executor if executor in ("thread", "warp") else own


def run_sides(eng: _Engine, seqs, rev, a1, a2, Mv, Nv, sub, E, OE, Y, trim, tb_cells):
    """Inspector + binned executor for all sides; returns host (sout, sops, soff).

    ``sout[s]`` holds the O_* fields; side s's ops (far end first) are
    ``sops[soff[s]:soff[s] + sout[s, O_NOPS]]``; O_NOPS < 0 leaves it to the CPU.
    """
    n = rev.shape[0]
    sout = np.zeros((n, N_OUT), np.int64)
    parts = []                           # (side indices, nops, flat ops) pieces
    dseqs = eng.resident(seqs)
    dsub = eng.resident(sub)
    # a batch the device has no memory for is halved and run again (every batch is
    # independent and its results land by side index, so the output is unchanged)
    size = eng.batch
    b0 = 0
    while b0 < n:
        b1 = min(n, b0 + size)
        mark = len(parts)
        try:
            _run_batch(eng, dseqs, dsub, rev, a1, a2, Mv, Nv, E, OE, Y, trim, tb_cells,
                       b0, b1, sout, parts)
        except Exception as exc:               # noqa: BLE001 - only OOM is retried
            if b1 - b0 == 1 or not eng.device.out_of_memory(exc):
                raise
            del parts[mark:]
            eng.release()
            size = max(1, (b1 - b0) // 2)
            eng.retries += 1
            continue
        b0 = b1
    # --- flatten the ops of every finished side --------------------------------------
    nops = np.maximum(sout[:, O_NOPS], 0)
    soff = np.zeros(n, np.int64)
    if n:
        np.cumsum(nops[:-1], out=soff[1:])
    sops = np.zeros(max(1, int(nops.sum())), np.uint8)
    for idx, cnt, src, src_off in parts:
        cnt = cnt.astype(np.int64)
        total = int(cnt.sum())
        if total == 0:
            continue
        start = np.zeros(cnt.size, np.int64)
        np.cumsum(cnt[:-1], out=start[1:])
        step = np.arange(total, dtype=np.int64) - np.repeat(start, cnt)
        sops[np.repeat(soff[idx], cnt) + step] = src[np.repeat(src_off, cnt) + step]
    return sout, sops, soff



def _run_batch(eng, dseqs, dsub, rev, a1, a2, Mv, Nv, E, OE, Y, trim, tb_cells, b0, b1,
               sout, parts):
    """Inspector and binned executor for sides b0..b1-1: fills ``sout[b0:b1]`` and
    appends (side indices, op counts, ops, offsets) pieces to ``parts``."""
    xp = eng.xp
    m = b1 - b0
    rcap = np.minimum(Mv[b0:b1], ROW_CAP) + 1
    roff = np.zeros(m, np.int64)
    np.cumsum(2 * rcap[:-1], out=roff[1:])
    d = {name: eng.to_dev(np.ascontiguousarray(a[b0:b1])) for name, a in
         (("rev", rev), ("a1", a1), ("a2", a2), ("M", Mv), ("N", Nv))}
    drcap = eng.to_dev(rcap)
    droff = eng.to_dev(roff)
    rows = xp.zeros(int(2 * rcap.sum()), np.int32)
    ring = eng.rings * WIDTH                     # work cells per side
    cc = xp.zeros(m * ring, np.int32)
    dd = xp.zeros(m * ring, np.int32)
    tbe = xp.zeros(m * EAGER_CELLS, np.uint8)     # the CPU twins' eager corners (the
                                                   # device keeps them in shared memory)
    eops = xp.zeros(m * EAGER_OPS, np.uint8)
    out = xp.zeros((m, N_OUT), np.int64)
    strips = None if eng.strip_stats is None else xp.zeros((m, 2), np.int64)
    # --- inspector, the batch split over the streams ---------------------------
    ns = len(eng.streams)
    step = max(1, -(-m // ns))
    for si, s0 in enumerate(range(0, m, step)):
        s1 = min(m, s0 + step)
        args = (*dseqs, d["rev"][s0:s1], d["a1"][s0:s1], d["a2"][s0:s1], d["M"][s0:s1],
                d["N"][s0:s1], dsub, E, OE, Y, trim, tb_cells,
                cc[s0 * ring:s1 * ring], dd[s0 * ring:s1 * ring], WIDTH,
                tbe[s0 * EAGER_CELLS:s1 * EAGER_CELLS], eops[s0 * EAGER_OPS:s1 * EAGER_OPS],
                rows, droff[s0:s1], drcap[s0:s1], out[s0:s1])
        fn = (eng.inspect if strips is None
              else functools.partial(eng.inspect, stats=strips[s0:s1]))
        eng.launch(fn, args, eng.streams[si % ns])
    eng.sync()
    hout = np.array(eng.to_host(out))
    if strips is not None:
        eng.strip_stats += np.array(eng.to_host(strips)).sum(axis=0)
    sout[b0:b1] = hout
    eager = np.nonzero(hout[:, O_NOPS] >= 0)[0]
    if eager.size:
        parts.append((b0 + eager, hout[eager, O_NOPS], np.array(eng.to_host(eops)),
                      eager * EAGER_OPS))
    # --- executor, one launch per size bin (and memory budget) -------------------
    er = hout[:, O_END_R]
    ec = hout[:, O_END_C]
    big = np.maximum(er, ec)
    todo = (hout[:, O_STATUS] == 0) & (hout[:, O_NOPS] < 0) & (er < rcap)
    lo = -1
    for hi in BINS:
        sel_all = np.nonzero(todo & (big > lo) & (big <= hi))[0]
        lo = hi
        size = (er[sel_all] + 1) * (ec[sel_all] + 1)
        j0 = 0
        while j0 < sel_all.size:
            # as many as fit the traceback budget (at least one)
            csum = np.cumsum(size[j0:])
            j1 = j0 + max(1, int(np.searchsorted(csum, TB_BUDGET, side="right")))
            j1 = min(j1, j0 + eng.batch)
            sel = sel_all[j0:j1]
            k = sel.size
            sz = size[j0:j1]
            toff = np.zeros(k, np.int64)
            np.cumsum(sz[:-1], out=toff[1:])
            nops = er[sel] + ec[sel]
            xoff = np.zeros(k, np.int64)
            np.cumsum(nops[:-1], out=xoff[1:])
            tb = xp.zeros(int(sz.sum()), np.uint8)
            xops = xp.zeros(max(1, int(nops.sum())), np.uint8)
            xn = xp.zeros(k, np.int64)
            xcc = xp.zeros(k * WIDTH, np.int32)
            xdd = xp.zeros(k * WIDTH, np.int32)
            args = (eng.to_dev(sel.astype(np.int64)), *dseqs, d["rev"], d["a1"], d["a2"],
                    d["M"], d["N"], dsub, E, OE, Y, trim, xcc, xdd, WIDTH, tb,
                    eng.to_dev(toff), rows, droff, drcap, out, xops, eng.to_dev(xoff), xn)
            eng.launch(eng.execute, args, eng.streams[0])
            eng.sync()
            hxn = np.array(eng.to_host(xn))
            hx = np.array(eng.to_host(xops))
            sout[b0 + sel, O_NOPS] = hxn
            parts.append((b0 + sel, hxn, hx, xoff))
            j0 = j1


def _sides(idx, anc1, anc2, lo1, hi1, lo2, hi2):
    """(rev, a1, a2, M, N) of both sides of the anchors ``idx`` (left side first)."""
    rev = np.tile(np.array([1, 0], np.uint8), idx.size)
    s1 = np.repeat(anc1[idx], 2).astype(np.int64)
    s2 = np.repeat(anc2[idx], 2).astype(np.int64)
    l1 = np.repeat(lo1[idx], 2)
    h1 = np.repeat(hi1[idx], 2)
    l2 = np.repeat(lo2[idx], 2)
    h2 = np.repeat(hi2[idx], 2)
    Mv = np.where(rev == 1, s1 + 1 - l1, h1 - (s1 + 1)).astype(np.int64)
    Nv = np.where(rev == 1, s2 + 1 - l2, h2 - (s2 + 1)).astype(np.int64)
    return rev, s1, s2, Mv, Nv


def extend_anchors_gpu(T, Q, anc1, anc2, lo1, hi1, lo2, hi2, sub, gap_open, gap_extend,
                       ydrop, trim, tb_cells, thresh, allbounds, trivial, two_pass, tpads,
                       engine: str = "gpu", stats: dict | None = None, rounds: bool = False):
    """``kernels.gapped.extend_anchors`` with the extensions speculated on the device.

    Same inputs and outputs (identical results); ``engine`` is "gpu" (numba-cuda
    kernels, or the simulator) or "twin" (their CPU twins).

    ``rounds`` (for HSP anchors, where many anchors lie on one alignment):
    speculate in rounds.  Each round extends on the device the anchors not yet
    skipped that have no earlier chosen anchor nearby (``speculate_mask``), then
    resolves in LASTZ's order until the first anchor that is neither skipped nor
    speculated; the next round starts there with the accepted alignments carried
    over.  That anchor is always chosen, so every round makes progress; after
    ``MAX_ROUNDS`` the CPU extends what is left.  Without ``rounds`` every anchor
    is speculated at once (seed-hit anchors: most extensions are short and
    independent).
    """
    from ..kernels import device
    from ..kernels.gpu.resolve import (
        GSTAT_NAMES, NEAR_DIAG, NEAR_POS, pending, resolve_from, resolve_state,
        speculate_mask,
    )
    from ..kernels.gapped import M_NAL, M_NOPS, output_order

    n = anc1.shape[0]
    if device.twin():
        engine = "twin"
    if os.environ.get("FASTZ_GPU_ROUNDS") == "0":   # developer knob: all in one round
        rounds = False
    mapping = _mapping(trim)
    near_diag, near_pos = NEAR_DIAG, NEAR_POS
    if os.environ.get("FASTZ_GPU_NEAR"):          # developer knob: "diag,pos" (0,0 = all)
        near_diag, near_pos = (int(v) for v in os.environ["FASTZ_GPU_NEAR"].split(","))
    seqs = padded_query(tpads, Q)
    E = int(gap_extend)
    OE = int(gap_open) + int(gap_extend)
    al, sg, ops, meta, ix, st, gst, trunc, ntrunc = resolve_state(n, trivial, T.shape[0])
    with device.device_errors():
        eng = _Engine(engine, mapping)
    k0 = 0
    nrounds = 0
    sides = cells = eager = 0
    # device results of every round so far: an unbounded extension does not depend on
    # what was accepted, so a result a round did not reach stays valid for the next
    pair = np.full(n, -1, np.int64)
    sout = np.zeros((0, N_OUT), np.int64)
    sops = np.zeros(1, np.uint8)
    soff = np.zeros(0, np.int64)
    while True:
        nrounds += 1
        if rounds:
            cand = k0 + np.flatnonzero(pending(al, sg, ix, anc1, anc2, k0))
            cand = cand[pair[cand] < 0]
            idx = cand[speculate_mask(anc1[cand], anc2[cand], ROUND_DIAG, ROUND_POS)]
            last = nrounds >= MAX_ROUNDS
        else:
            mask = (speculate_mask(anc1, anc2, near_diag, near_pos) if n and near_diag > 0
                    else np.ones(n, bool))
            idx = np.nonzero(mask)[0]
            last = True
        rev, s1, s2, Mv, Nv = _sides(idx, anc1, anc2, lo1, hi1, lo2, hi2)
        with device.device_errors():
            rout, rops, roff = run_sides(eng, seqs, rev, s1, s2, Mv, Nv, sub, E, OE,
                                         int(ydrop), bool(trim), int(tb_cells))
        pair[idx] = sout.shape[0] // 2 + np.arange(idx.size)
        soff = np.concatenate([soff, roff + sops.shape[0]])
        sops = np.concatenate([sops, rops])
        sout = np.concatenate([sout, rout])
        sides += int(rev.size)
        cells += int(rout[:, O_CELLS].sum())
        eager += int(((rout[:, O_END_R] < 16) & (rout[:, O_END_C] < 16)
                      & (rout[:, O_STATUS] == 0)).sum())
        k0, al, sg, ops, meta, ix, trunc, ntrunc = resolve_from(
            k0, not last, seqs, T, Q, anc1, anc2, lo1, hi1, lo2, hi2, sub, gap_open,
            gap_extend, ydrop, trim, tb_cells, thresh, allbounds, two_pass, pair, sout, sops,
            soff, al, sg, ops, meta, ix, st, gst, trunc, ntrunc)
        if k0 >= n:
            break
    order = output_order(al, meta, thresh, sub)
    if stats is not None:
        for name, v in zip(GSTAT_NAMES, gst.tolist()):
            stats[name] = stats.get(name, 0) + v
        stats["gpu_sides"] = stats.get("gpu_sides", 0) + sides
        stats["gpu_cells_inspector"] = stats.get("gpu_cells_inspector", 0) + cells
        stats["gpu_sides_eager"] = stats.get("gpu_sides_eager", 0) + eager
        stats["gpu_rounds"] = stats.get("gpu_rounds", 0) + nrounds
        stats["gpu_mapping"] = f"{engine}/{'/'.join(mapping)}"
        stats["gpu_batches_halved"] = stats.get("gpu_batches_halved", 0) + eng.retries
        if eng.strip_stats is not None:         # anti-diagonal inspector: strips, passes
            for name, v in zip(("gpu_diag_strips", "gpu_diag_passes"), eng.strip_stats):
                stats[name] = stats.get(name, 0) + int(v)
    return order, al[:meta[M_NAL]], ops[:meta[M_NOPS]], st, trunc[:ntrunc]


__all__ = ["extend_anchors_gpu", "run_sides", "WIDTH", "ROW_CAP", "BINS"]
