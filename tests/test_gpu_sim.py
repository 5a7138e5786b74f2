"""GPU backend: every device kernel against its CPU twin under numba's CUDA simulator,
the twins against the CPU engine, the resolution claim, and end-to-end parity.

conftest.py sets NUMBA_ENABLE_CUDASIM=1 before numba is imported (unless
FASTZ_TEST_REAL_GPU=1), so the cuda kernels run on the CPU, one Python thread per
CUDA thread: inputs stay tiny.  Tests marked ``gpu`` need a real device.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
import sys

import numpy as np
import pytest

from conftest import drop_version, run_lastz
from test_ydrop import SUB, make_pair

pytest.importorskip("numba_cuda")

from fastz import cli                                    # noqa: E402
from fastz.errors import BackendUnavailable             # noqa: E402
from fastz.kernels import device                        # noqa: E402
from fastz.kernels.dpcells import (                     # noqa: E402
    EAGER_CELLS, EAGER_OPS, N_OUT, O_END_C, O_END_R, O_NOPS, O_SCORE, O_STATUS, ST_OVERFLOW,
    ST_TRUNCATED,
)
from fastz.kernels.gapped import extend_one_side        # noqa: E402
from fastz.kernels.gpu import extension as X            # noqa: E402
from fastz.kernels.ydrop import padded                  # noqa: E402

REAL = os.environ.get("FASTZ_TEST_REAL_GPU") == "1"
needs_sim = pytest.mark.skipif(REAL, reason="simulator-only test")
pytestmark = pytest.mark.usefixtures("short_switches")
OPS = "MID"


# --- helpers ------------------------------------------------------------------------------

class Batch:
    """Host arrays for one inspector batch of sides (rev, a1, a2) on sequences T, Q."""

    def __init__(self, T, Q, sides, width=1024, rowcap=32768, rings=1):
        n = len(sides)
        self.seqs = padded(T, Q)
        self.rev = np.array([s[0] for s in sides], np.uint8)
        self.a1 = np.array([s[1] for s in sides], np.int64)
        self.a2 = np.array([s[2] for s in sides], np.int64)
        self.M = np.where(self.rev == 1, self.a1 + 1, len(T) - (self.a1 + 1)).astype(np.int64)
        self.N = np.where(self.rev == 1, self.a2 + 1, len(Q) - (self.a2 + 1)).astype(np.int64)
        self.rcap = np.minimum(self.M, rowcap) + 1
        self.roff = np.zeros(n, np.int64)
        np.cumsum(2 * self.rcap[:-1], out=self.roff[1:])
        self.rows = np.zeros(int(2 * self.rcap.sum()), np.int32)
        self.width = width
        self.cc = np.zeros(rings * n * width, np.int32)    # the anti-diagonal mapping
        self.dd = np.zeros(rings * n * width, np.int32)    # has two rings per side
        self.tbe = np.zeros(n * EAGER_CELLS, np.uint8)
        self.eops = np.zeros(n * EAGER_OPS, np.uint8)
        self.out = np.zeros((n, N_OUT), np.int64)

    def inspect(self, fn, Y=9400, trim=True, tb_cells=1 << 40, E=30, OE=430, sub=SUB, **kw):
        fn(*self.seqs, self.rev, self.a1, self.a2, self.M, self.N, sub, E, OE, Y, trim,
           tb_cells, self.cc, self.dd, self.width, self.tbe, self.eops, self.rows, self.roff,
           self.rcap, self.out, **kw)
        return self

    def execute(self, fn, Y=9400, trim=True, E=30, OE=430, **kw):
        """Executor over every side the eager corner did not finish; returns {side: ops}."""
        out = self.out
        sel = np.nonzero((out[:, O_NOPS] < 0) & (out[:, O_STATUS] == 0))[0].astype(np.int64)
        er, ec = out[sel, O_END_R], out[sel, O_END_C]
        size = (er + 1) * (ec + 1)
        toff = np.zeros(sel.size, np.int64)
        np.cumsum(size[:-1], out=toff[1:])
        xoff = np.zeros(sel.size, np.int64)
        np.cumsum((er + ec)[:-1], out=xoff[1:])
        tb = np.zeros(max(1, int(size.sum())), np.uint8)
        xops = np.zeros(max(1, int((er + ec).sum())), np.uint8)
        xn = np.zeros(sel.size, np.int64)
        cc = np.zeros(sel.size * self.width, np.int32)
        dd = np.zeros(sel.size * self.width, np.int32)
        fn(sel, *self.seqs, self.rev, self.a1, self.a2, self.M, self.N, SUB, E, OE, Y, trim,
           cc, dd, self.width, tb, toff, self.rows, self.roff, self.rcap, out, xops, xoff, xn,
           **kw)
        return {int(k): xops[xoff[j]:xoff[j] + xn[j]].tolist() for j, k in enumerate(sel)}, tb

    def ops(self, k, executed):
        """Ops of side k in sequence order from the anchor (as extend_one_side)."""
        n = self.out[k, O_NOPS]
        ops = (self.eops[k * EAGER_OPS:k * EAGER_OPS + n].tolist() if n >= 0
               else executed.get(k))
        return None if ops is None else ops[::-1]


def random_sides(rng, t, q, n):
    return [(int(rng.integers(0, 2)), int(rng.integers(0, len(t))), int(rng.integers(0, len(q))))
            for _ in range(n)]


def same_batches(a: Batch, b: Batch):
    """CPU twin ``a`` == device kernel ``b``; the device kept the eager corners in shared
    memory, so it left the global ``tbe`` the twin uses untouched."""
    for name in ("out", "eops", "rows"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert not np.asarray(b.tbe).any()


# --- 1. the CPU twins equal the CPU engine (ydrop.one_sided, no bounds) --------------------

@pytest.mark.parametrize("trim", [True, False])
def test_twins_match_one_sided(trim):
    """Inspector (+ eager) and executor twins == one_sided's full pass and two-pass modes."""
    rng = np.random.default_rng(11)
    checked = executed = eager = 0
    for seed in range(90):
        n = int(rng.integers(1, 600))
        t, q = make_pair(seed, n, rate_indel=(0.0, 0.03, 0.15)[seed % 3], soft=seed % 2 == 0,
                         ns=seed % 5 == 0)
        if not q:
            continue
        T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
        Y = (300, 1000, 9400)[seed % 3]
        sides = random_sides(rng, t, q, 3) + [(0, 0, 0), (1, len(t) - 1, len(q) - 1)]
        b = Batch(T, Q, sides).inspect(X.inspect_cpu, Y=Y, trim=trim)
        ex, _ = b.execute(X.execute_cpu, Y=Y, trim=trim)
        for k, (rev, a1, a2) in enumerate(sides):
            for two_pass in (False, True):
                s, er, ec, trunc, ops, _ = extend_one_side(T, Q, a1, a2, bool(rev), SUB, 400, 30,
                                                           Y, trim, 1 << 40, two_pass)
                want = (int(s), int(er), int(ec), ops.tolist())
                got = (int(b.out[k, O_SCORE]), int(b.out[k, O_END_R]), int(b.out[k, O_END_C]),
                       b.ops(k, ex))
                assert got == want, (seed, rev, a1, a2, two_pass)
                assert b.out[k, O_STATUS] == 0
            checked += 1
            executed += k in ex
            eager += b.out[k, O_NOPS] >= 0
    assert checked > 300 and executed > 50 and eager > 50


def test_twin_flags_overflow_and_truncation():
    """Rows wider than the work buffer, or LASTZ's traceback budget exhausted: flagged."""
    t, q = make_pair(3, 3000, rate_sub=0.02, rate_indel=0.0)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    b = Batch(T, Q, [(0, 0, 0)], width=128).inspect(X.inspect_cpu, Y=9400)
    assert b.out[0, O_STATUS] & ST_OVERFLOW            # tail 319 > 128 cells
    b = Batch(T, Q, [(0, 0, 0)]).inspect(X.inspect_cpu, tb_cells=100_000)
    assert b.out[0, O_STATUS] & ST_TRUNCATED
    full = extend_one_side(T, Q, 0, 0, False, SUB, 400, 30, 9400, True, 100_000, True)
    assert full[3]                                    # the CPU engine truncates too


# --- 2. GPU kernels equal their CPU twins (simulator) -------------------------------------

@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(X, "THREADS", 4)              # several blocks on a tiny batch


def _small_case(seed, n, k, Y):
    t, q = make_pair(seed, n, rate_indel=0.08, ns=True, soft=True)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    rng = np.random.default_rng(seed)
    sides = [(0, 0, 0), (1, len(t) - 1, len(q) - 1)] + random_sides(rng, t, q, k)
    return T, Q, sides, Y


@needs_sim
def test_simulator_gives_a_block_one_shared_array_per_line():
    """numba-cuda's simulator fills a block's shared arrays into a dict without a lock:
    a thread preempted between look-up and store let the next one make a second array,
    and lanes exchanging through different arrays diverged (a CI run hung in the warp
    inspector's test).  fastz locks it (device.lock_simulator_shared_arrays): threads
    released together must all get the one array of each line, and two lines two."""
    import threading
    from numba.cuda.simulator import kernelapi
    sys.setswitchinterval(1e-6)                      # preempt often (short_switches restores)
    split = 0
    for _ in range(200):
        sh = kernelapi.FakeCUDAShared(0)
        got = [None] * 16
        gate = threading.Barrier(16)

        def lane(i):
            gate.wait()
            a = sh.array((4, 32), np.int64)
            b = sh.array(8, np.uint8)
            got[i] = (a, b)

        threads = [threading.Thread(target=lane, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        split += len({id(a) for a, _ in got}) + len({id(b) for _, b in got}) > 2
        assert got[0][0].shape == (4, 32) and got[0][1].shape == (8,)
    assert split == 0


@pytest.mark.parametrize("trim", [True, False])
def test_thread_inspector_and_executor_match_twins(small_blocks, trim):
    T, Q, sides, Y = _small_case(5, 160, 4, 9400)
    cpu = Batch(T, Q, sides).inspect(X.inspect_cpu, Y=Y, trim=trim)
    gpu = Batch(T, Q, sides).inspect(X.inspect_gpu, Y=Y, trim=trim)
    same_batches(cpu, gpu)
    assert (cpu.out[:, O_NOPS] < 0).sum() >= 2 and (cpu.out[:, O_NOPS] >= 0).sum() >= 1
    ex_cpu, tb_cpu = cpu.execute(X.execute_cpu, Y=Y, trim=trim)
    ex_gpu, tb_gpu = gpu.execute(X.execute_gpu, Y=Y, trim=trim)
    assert ex_cpu == ex_gpu
    np.testing.assert_array_equal(tb_cpu, tb_gpu)


def test_thread_inspector_flags_match_twins(small_blocks):
    T, Q, sides, Y = _small_case(9, 300, 1, 9400)
    flagged = 0
    for kw in (dict(tb_cells=2_000), dict(width=330)):
        width = kw.pop("width", 1024)
        cpu = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, **kw)
        gpu = Batch(T, Q, sides, width=width).inspect(X.inspect_gpu, **kw)
        same_batches(cpu, gpu)
        flagged |= int(np.bitwise_or.reduce(cpu.out[:, O_STATUS]))
    assert flagged == ST_OVERFLOW | ST_TRUNCATED


@needs_sim
@pytest.mark.parametrize("seed,n,Y,width", [(3, 22, 9400, 1024), (7, 70, 300, 1024),
                                            (13, 40, 1000, 1024), (21, 50, 1200, 256)])
def test_warp_inspector_matches_twin(seed, n, Y, width):
    """Row-parallel mapping (max-plus scan, prefix-max pruning) == the sequential sweep."""
    from fastz.kernels.gpu import warp
    T, Q, sides, Y = _small_case(seed, n, 2, Y)
    cpu = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, Y=Y)
    gpu = Batch(T, Q, sides, width=width).inspect(warp.inspect_warp_gpu, Y=Y)
    same_batches(cpu, gpu)


@needs_sim
def test_warp_inspector_flags_match_twin():
    from fastz.kernels.gpu import warp
    T, Q, sides, _ = _small_case(4, 40, 0, 600)
    flagged = 0
    for kw in (dict(tb_cells=150), dict(width=32), dict()):
        width = kw.pop("width", 64)
        cpu = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, Y=600, **kw)
        gpu = Batch(T, Q, sides, width=width).inspect(warp.inspect_warp_gpu, Y=600, **kw)
        same_batches(cpu, gpu)
        flagged |= int(np.bitwise_or.reduce(cpu.out[:, O_STATUS]))
    assert flagged == ST_OVERFLOW | ST_TRUNCATED


# (seed, length, ydrop, width): one strip, several strips, small ydrops (many pruned
# cells, rows ending in pruned cells), a narrow work buffer
DIAG_CASES = [(3, 22, 9400, 1024), (7, 70, 300, 1024), (13, 40, 1000, 1024),
              (21, 50, 1200, 256), (9, 120, 600, 128), (14, 119, 9400, 1024)]


def _diag_inspect(T, Q, sides, width, Y=9400, **kw):
    """The anti-diagonal inspector on a batch; returns (batch, per-side strips, passes)."""
    from fastz.kernels.gpu import antidiag
    stats = np.zeros((len(sides), 2), np.int64)
    b = Batch(T, Q, sides, width=width, rings=2).inspect(antidiag.inspect_diag_gpu, Y=Y,
                                                         stats=stats, **kw)
    return b, stats


@needs_sim
def test_diag_inspector_matches_twin():
    """Anti-diagonal mapping (32-row strips swept in checked passes) == the sequential
    sweep: every output field, per-row record and eager op.  The cases must make the
    checks reject passes (a strip swept more than once) and cross strips."""
    strips = passes = 0
    for seed, n, Y, width in DIAG_CASES:
        T, Q, sides, Y = _small_case(seed, n, 2, Y)
        cpu = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, Y=Y)
        gpu, st = _diag_inspect(T, Q, sides, width, Y)
        same_batches(cpu, gpu)
        strips += int(st[:, 0].sum())
        passes += int(st[:, 1].sum())
        assert (st[:, 0] <= st[:, 1]).all() and (st[:, 1] <= 33 * st[:, 0]).all()
    assert strips >= 40 and passes >= strips + 10, (strips, passes)


@needs_sim
@pytest.mark.parametrize("bias,reach", [(400, -1), (-3000, -1), (150, 2)])
def test_diag_result_does_not_depend_on_the_first_guess(bias, reach):
    """Pass 1 guessing the best too high or too low, or the rows' bounds too short: the
    checks must reject every wrong row (cells pruned by a floor that is too high, live
    cells under the true floor, rows stopped before the true bound) and the passes
    must converge to the sequential sweep."""
    wrong = 0
    for seed, n, Y, width in DIAG_CASES[1:5]:
        T, Q, sides, Y = _small_case(seed, n, 2, Y)
        cpu = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, Y=Y)
        gpu, st = _diag_inspect(T, Q, sides, width, Y, bias=bias, reach=reach)
        same_batches(cpu, gpu)
        wrong += int((st[:, 1] > st[:, 0]).sum())
    assert wrong >= 4


@needs_sim
def test_diag_prolonged_insertions_keep_lastz_d_values():
    """Mismatches at -600 make deletions beat the diagonal, so the rows below read the D
    value LASTZ gives a prolonged insertion (C - OE, not that of a swept cell): a lane
    that swept live cells past the true bound of the row above must be rejected.  (The
    case was found by ``bench/diag_stress.py --harsh --seed 7`` with that check removed.)"""
    harsh = np.where(SUB > 0, SUB, -600).astype(SUB.dtype)
    t, q = make_pair(995500, 105, rate_indel=0.2, ns=True)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    sides = [(0, 0, 0), (1, 104, 106), (0, 103, 49), (0, 88, 17)]
    kw = dict(Y=2000, tb_cells=500, sub=harsh)
    cpu = Batch(T, Q, sides, width=256).inspect(X.inspect_cpu, **kw)
    gpu, st = _diag_inspect(T, Q, sides, 256, **kw)
    same_batches(cpu, gpu)
    assert (st[:, 1] > st[:, 0]).any()


@needs_sim
def test_diag_inspector_flags_match_twin():
    """Work buffer overflow and LASTZ's traceback budget, found at a row inside a strip."""
    T, Q, sides, _ = _small_case(4, 40, 0, 600)
    flagged = 0
    for kw in (dict(tb_cells=150), dict(tb_cells=700), dict(width=32), dict()):
        width = kw.pop("width", 64)
        cpu = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, Y=600, **kw)
        gpu, _ = _diag_inspect(T, Q, sides, width, 600, **kw)
        same_batches(cpu, gpu)
        flagged |= int(np.bitwise_or.reduce(cpu.out[:, O_STATUS]))
    assert flagged == ST_OVERFLOW | ST_TRUNCATED


def _executor_case(seed):
    """A random pair of 30-90 bp and four sides (the corners and two random ones)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 90))
    t, q = make_pair(seed, n, rate_indel=(0.03, 0.08, 0.15)[seed % 3], ns=True, soft=True)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    return T, Q, [(0, 0, 0), (1, len(t) - 1, len(q) - 1)] + random_sides(rng, t, q, 2)


@needs_sim
@pytest.mark.parametrize("seed,Y,width", [(43, 600, 256), (2, 1200, 128), (31, 600, 1024),
                                          (3, 9400, 1024)])
def test_warp_executor_matches_twin(seed, Y, width):
    """Row-parallel pruned executor (coalesced link writes) == the thread executor twin:
    every link byte of the dense region and the traced ops.  The first three cases
    have rows the inspector swept past the end column, where the executor must take
    the row's right bound from the inspector's record: ignoring the record changes
    link bytes in each of them (checked with a mutated twin)."""
    from fastz.kernels.gpu import warp
    T, Q, sides = _executor_case(seed)
    b = Batch(T, Q, sides, width=width).inspect(X.inspect_cpu, Y=Y)
    ex_cpu, tb_cpu = b.execute(X.execute_cpu, Y=Y)
    ex_gpu, tb_gpu = b.execute(warp.execute_warp_gpu, Y=Y)
    assert len(ex_cpu) >= 1                         # sides past the eager corner
    cut = 0                          # rows the inspector swept past the end column
    for k in ex_cpu:
        er, ec, r0 = b.out[k, O_END_R], b.out[k, O_END_C], b.roff[k]
        cut += int((b.rows[r0 + 1:r0 + 2 * er + 1:2] > ec + 1).sum())
    assert cut > 0 or Y == 9400
    assert ex_cpu == ex_gpu
    np.testing.assert_array_equal(tb_cpu, tb_gpu)

# --- 3. the resolution claim ---------------------------------------------------------------

def _captured_strands(argv, monkeypatch, capsys):
    """[(target chars, query strand chars, anchors, gapped threshold)] of a CLI run."""
    import fastz.pipeline.gapped as pg
    seen = []
    orig = pg.gapped_extend

    def spy(target, query, strand, anchors, scores, ydrop, gappedthresh, **kw):
        seen.append((target.chars, query.chars, anchors.copy(), gappedthresh))
        return orig(target, query, strand, anchors, scores, ydrop, gappedthresh, **kw)

    monkeypatch.setattr(pg, "gapped_extend", spy)
    # (every strand through gapped_extend: none extended in a batch of short strands)
    from fastz.pipeline import Aligner
    monkeypatch.setattr(Aligner, "_extend_batch", lambda self, units, found, threads: {})
    _run_fastz([*argv, "--workers=1", "--backend=cpu"], capsys)
    return seen


def test_unbounded_result_exact_when_usable(shared_pairs, monkeypatch, capsys):
    """Whenever resolve would take the unbounded (device) result, it equals the bounded one.

    Replays LASTZ's anchor loop with the CPU engine on a real pair's anchors;
    before each anchor the same extension is also computed against an empty set
    of alignments (what the device computes) and, when ``device_result_usable``
    accepts it, compared with the bounded one.
    """
    from fastz.kernels.gapped import (
        N_RESULT, N_STATS, R_FIRST, R_NRUNS, R_SCORE, R_STATUS, SKIPPED, accept,
        extend_pair, new_state, new_work,
    )
    from fastz.kernels.gpu.resolve import device_result_usable
    from fastz.kernels.rowindex import skip_test
    p = shared_pairs / "lastz_pseudocat_vs_pseudopig"
    strands = _captured_strands([f"{p}/target.fa", f"{p}/query.fa", "--nogfextend",
                                 "--strand=minus"], monkeypatch, capsys)
    sub = SUB
    compared = conflicted = 0
    for T, Q, anchors, thresh in strands:
        seqs = padded(T, Q)
        n = anchors.shape[0]
        al, sg, ops, meta, ix = new_state(n + 1, len(T))
        e_al, e_sg, _e_ops, e_meta, e_ix = new_state(1, len(T))
        work, ework = new_work(sub), new_work(sub)
        st = np.zeros(N_STATS, np.int64)
        for k in range(n):
            a1, a2 = int(anchors["pos1"][k]), int(anchors["pos2"][k])
            args = (seqs, T, Q, a1, a2, 0, len(T), 0, len(Q), sub, 400, 30, 9400, True,
                    83_886_080 - 7, True)
            res = np.zeros(N_RESULT, np.int64)
            work = extend_pair(*args, al, sg, meta, ix, (2 * k + 2) << 32, work, st, res)
            if res[R_STATUS] == SKIPPED:
                continue
            ures = np.zeros(N_RESULT, np.int64)
            ework = extend_pair(*args, e_al, e_sg, e_meta, e_ix, 1 << 40, ework, st, ures)
            _skip, lseg, _la, rseg, _ra = skip_test(al, sg, ix, a1, a2)
            if device_result_usable(al, sg, ix, meta, ures, a1, a2, lseg, rseg, a2 + 1,
                                    len(Q) - a2 - 1):
                compared += 1
                assert ures[1:6].tolist() == res[1:6].tolist(), k    # start, stop, score
                assert (ework[9][ures[R_FIRST]:ures[R_NRUNS]].tolist()
                        == work[9][res[R_FIRST]:res[R_NRUNS]].tolist()), k
            else:
                conflicted += 1
            if res[R_SCORE] >= thresh:
                al, sg, ops, ix = accept(al, sg, ops, meta, ix, res, work[9], False)
    assert compared > 150 and conflicted > 10


def test_speculate_mask_shadows_near_anchors():
    from fastz.kernels.gpu.resolve import speculate_mask
    a1 = np.array([1000, 1010, 1000, 90_000, 5000], np.int64)
    a2 = np.array([1000, 1005, 500, 90_000, 5000 - 299], np.int64)
    assert speculate_mask(a1, a2, 300, 50_000).tolist() == [True, False, True, True, False]


# --- 4. end to end --------------------------------------------------------------------------

def _run_fastz(argv, capsys):
    capsys.readouterr()
    assert cli.main(argv) == 0
    return capsys.readouterr().out.encode()


def test_gpu_backend_end_to_end_matches_cpu_and_lastz(shared_pairs, capsys):
    """--backend=gpu on the simulator == --backend=cpu == lastz (a tiny slice, small ydrop)."""
    p = shared_pairs / "mito_human_orang"
    args = [f"{p}/target.fa[1..800]", f"{p}/query.fa[1..800]", "--ydrop=1500", "--nogfextend",
            "--format=general"]
    cpu = _run_fastz([*args, "--backend=cpu"], capsys)
    gpu = _run_fastz([*args, "--backend=gpu", "--stats=-"], capsys)
    assert gpu == cpu
    assert cpu.count(b"\n") >= 2
    assert drop_version(run_lastz(args)) == drop_version(cpu)


@needs_sim
@pytest.mark.parametrize("mapping", ["warp", "diag"])
def test_gpu_backend_warp_mapping_end_to_end(tmp_path, capsys, monkeypatch, mapping):
    """The warp mappings (row-parallel inspector and executor; anti-diagonal inspector with
    the row-parallel executor) through the whole --backend=gpu path, on a 120 bp homolog
    pair: sides past the eager corner go through the warp executor."""
    monkeypatch.setenv("FASTZ_GPU_MAPPING", mapping)
    t, q = make_pair(17, 120, rate_sub=0.04, rate_indel=0.01)
    (tmp_path / "t.fa").write_bytes(b">t\n" + t + b"\n")
    (tmp_path / "q.fa").write_bytes(b">q\n" + q + b"\n")
    args = [str(tmp_path / "t.fa"), str(tmp_path / "q.fa"), "--ydrop=600", "--format=general",
            "--strand=plus"]
    cpu = _run_fastz([*args, "--backend=cpu"], capsys)
    gpu, st = _twin_run(args, capsys, tmp_path, mapping)
    assert gpu == cpu and cpu.count(b"\n") >= 2
    assert drop_version(run_lastz(args)) == drop_version(cpu)
    assert st["gpu_mapping"] == f"gpu/{mapping}/warp"
    if mapping == "diag":
        assert int(st["gpu_diag_passes"]) >= int(st["gpu_diag_strips"]) > 0
    assert int(st["gpu_sides_eager"]) < int(st["gpu_sides"])


def test_gpu_path_with_cpu_twins_matches_cpu(shared_pairs, capsys, monkeypatch):
    """The whole device path (resolution with conflicts and redos) on a real pair, run
    with the kernels' CPU twins (FASTZ_GPU_ENGINE=twin) at CPU speed."""
    monkeypatch.setenv("FASTZ_GPU_ENGINE", "twin")
    device.reset_probe()
    try:
        p = shared_pairs / "lastz_pseudocat_vs_pseudopig"
        args = [f"{p}/target.fa", f"{p}/query.fa", "--nogfextend", "--strand=minus",
                "--format=general"]
        cpu = _run_fastz([*args, "--backend=cpu"], capsys)
        twin = _run_fastz([*args, "--backend=gpu", "--stats=-"], capsys)
    finally:
        device.reset_probe()
    assert twin == cpu
    assert drop_version(run_lastz(args)) == drop_version(cpu)


def test_out_of_memory_halves_the_batch_and_gives_the_same_output(shared_pairs, capsys,
                                                                 monkeypatch):
    """A device that runs out of memory for batches of more than 5 sides: each batch
    is halved and run again until it fits; the output does not change."""
    from fastz.kernels.gpu import extension
    monkeypatch.setenv("FASTZ_GPU_ENGINE", "twin")
    device.reset_probe()

    class OutOfMemoryError(Exception):          # the name cupy's error has
        pass

    real = extension.inspect_cpu

    def small_device(*args, **kw):
        if args[4].shape[0] > 5:                # rev: one entry per side
            raise OutOfMemoryError("out of memory allocating 1,073,741,824 bytes")
        return real(*args, **kw)

    monkeypatch.setattr(extension, "inspect_cpu", small_device)
    try:
        p = shared_pairs / "lastz_pseudocat_vs_pseudopig"
        args = [f"{p}/target.fa[1..6000]", f"{p}/query.fa[1..20000]", "--nogfextend",
                "--strand=plus", "--format=general"]
        cpu = _run_fastz([*args, "--backend=cpu"], capsys)
        stats = Path(os.environ.get("TMPDIR", "/tmp")) / f"fastz-oom-{os.getpid()}.txt"
        twin = _run_fastz([*args, "--backend=gpu", f"--stats={stats}"], capsys)
        text = stats.read_text()
        stats.unlink()
    finally:
        device.reset_probe()
    assert twin == cpu and cpu.count(b"\n") >= 2
    halved = [ln for ln in text.splitlines() if "halved" in ln]
    assert halved and int(halved[0].split()[-1].replace(",", "")) > 0, text


# --- 5. backend selection -------------------------------------------------------------------

@pytest.fixture
def no_device(monkeypatch):
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "0")
    monkeypatch.delenv("FASTZ_GPU_ENGINE", raising=False)
    monkeypatch.setattr(device, "_driver_present", lambda: False)
    device.reset_probe()
    yield
    device.reset_probe()


def test_gpu_without_device_is_one_line_error(no_device, capsys, shared_pairs):
    with pytest.raises(BackendUnavailable, match="--backend=gpu"):
        device.select_backend("gpu")
    p = shared_pairs / "dwv_vs_vdv1"
    assert cli.main([f"{p}/target.fa", f"{p}/query.fa", "--backend=gpu"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fastz: --backend=gpu: no usable GPU") and err.count("\n") == 1


def test_auto_falls_back_to_cpu_and_says_why(no_device, capsys, monkeypatch):
    monkeypatch.setattr(device, "_gpu_stack_installed", lambda: True)
    assert device.select_backend("auto") == "cpu"
    err = capsys.readouterr().err
    assert "using the CPU backend" in err and err.count("\n") == 1
    assert device.select_backend("auto", quiet=True) == "cpu"
    assert capsys.readouterr().err == ""
    assert device.select_backend("cpu") == "cpu"


def test_auto_is_silent_without_the_gpu_stack(no_device, capsys, monkeypatch):
    """A CPU-only install keeps lastz's empty stderr (pipelines scan stderr)."""
    monkeypatch.setattr(device, "_gpu_stack_installed", lambda: False)
    assert device.select_backend("auto") == "cpu"
    assert capsys.readouterr().err == ""


def test_simulator_counts_as_device_for_gpu_only():
    if REAL:
        pytest.skip("simulator-only")
    device.reset_probe()
    assert device.simulated() and device.probe()[0]
    assert device.select_backend("gpu") == "gpu"
    assert device.select_backend("auto") == "cpu"


def test_importing_fastz_needs_no_gpu_stack():
    code = ("import sys, fastz, fastz.pipeline, fastz.cli, fastz.kernels.device;"
            "bad = [m for m in ('cupy', 'numba.cuda', 'numba_cuda') if m in sys.modules];"
            "print(bad)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert out.strip() == "[]"


# --- 6. real device (FASTZ_TEST_REAL_GPU=1) ---------------------------------------------------

def on_device(fn):
    """``fn`` run on device copies of its array arguments, which are copied back after."""
    def run(*args):
        dev = [device.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        fn(*dev)
        device.synchronize()
        for a, d in zip(args, dev):
            if isinstance(a, np.ndarray) and d is not a:
                a[...] = device.to_host(d)
    return run


@pytest.mark.gpu
@pytest.mark.skipif(not REAL, reason="needs FASTZ_TEST_REAL_GPU=1 and a CUDA device")
@pytest.mark.parametrize("mapping", ["thread", "warp", "diag"])
def test_real_device_kernels_match_twins(mapping):
    """Inspector and executor of each mapping on the device == the CPU twins (the
    anti-diagonal mapping has an inspector only: its executor is the warp one)."""
    from fastz.kernels.gpu import antidiag, warp
    assert device.probe()[0], device.probe()[1]
    rng = np.random.default_rng(5)
    t, q = make_pair(1, 4000, rate_indel=0.05)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    sides = random_sides(rng, t, q, 300) + [(0, 0, 0), (1, len(t) - 1, len(q) - 1)]
    inspect, execute = {"warp": (warp.inspect_warp_gpu, warp.execute_warp_gpu),
                        "diag": (antidiag.inspect_diag_gpu, warp.execute_warp_gpu)}.get(
                            mapping, (X.inspect_gpu, X.execute_gpu))
    cpu = Batch(T, Q, sides, width=4096).inspect(X.inspect_cpu)
    gpu = Batch(T, Q, sides, width=4096, rings=1 + (mapping == "diag")).inspect(
        on_device(inspect))
    same_batches(cpu, gpu)
    ex_cpu, tb_cpu = cpu.execute(X.execute_cpu)
    ex_gpu, tb_gpu = cpu.execute(on_device(execute))
    assert len(ex_cpu) > 10 and ex_cpu == ex_gpu
    np.testing.assert_array_equal(tb_cpu, tb_gpu)


@pytest.mark.gpu
@pytest.mark.skipif(not REAL, reason="needs FASTZ_TEST_REAL_GPU=1 and a CUDA device")
def test_real_device_end_to_end(shared_pairs, capsys):
    p = shared_pairs / "lastz_pseudocat_vs_pseudopig"
    args = [f"{p}/target.fa", f"{p}/query.fa", "--nogfextend", "--format=general"]
    cpu = _run_fastz([*args, "--backend=cpu"], capsys)
    gpu = _run_fastz([*args, "--backend=gpu"], capsys)
    assert gpu == cpu


def _twin_run(args, capsys, tmp_path, name):
    stats = tmp_path / f"{name}.stats"
    out = _run_fastz([*args, "--backend=gpu", f"--stats={stats}"], capsys)
    got = {}
    for line in stats.read_text().splitlines():
        parts = line.rsplit(None, 1)
        if len(parts) == 2 and parts[0].startswith("gpu_"):
            got[parts[0]] = parts[1].replace(",", "")
    return out, got


def test_rounds_of_speculation_in_default_mode(shared_pairs, capsys, monkeypatch, tmp_path):
    """HSP anchors are speculated in rounds (the next round starts at the first anchor
    neither skipped nor speculated, results of earlier rounds kept): same output as the
    CPU and lastz, several rounds, and far fewer device sides than one round of every
    anchor; with the round limit reached the CPU finishes, still the same output."""
    from fastz.pipeline import gpu as pgpu
    monkeypatch.setenv("FASTZ_GPU_ENGINE", "twin")
    device.reset_probe()
    try:
        p = shared_pairs / "hpylori_26695_vs_J99_Eslice"
        args = [f"{p}/target.fa", f"{p}/query.fa", "--format=general"]
        cpu = _run_fastz([*args, "--backend=cpu"], capsys)
        rounds, st = _twin_run(args, capsys, tmp_path, "rounds")
        monkeypatch.setenv("FASTZ_GPU_ROUNDS", "0")
        one, st1 = _twin_run(args, capsys, tmp_path, "one")
        monkeypatch.delenv("FASTZ_GPU_ROUNDS")
        monkeypatch.setattr(pgpu, "MAX_ROUNDS", 2)
        capped, st2 = _twin_run(args, capsys, tmp_path, "capped")
    finally:
        device.reset_probe()
    assert rounds == cpu == one == capped and cpu.count(b"\n") > 30
    assert drop_version(run_lastz(args)) == drop_version(cpu)
    assert int(st["gpu_rounds"]) > 10 and int(st1["gpu_rounds"]) == 2     # 2 strands
    assert 3 * int(st["gpu_sides"]) < int(st1["gpu_sides"])
    assert int(st["gpu_cpu_not_speculated"]) == 0 < int(st2["gpu_cpu_not_speculated"])
