"""The SIMD-pass row sweep (kernels.rowvec) against the scalar one (kernels.dpcells).

Row by row on random inputs, then whole extensions.  Everything ``sweep_row`` returns
or writes must be equal, with one documented exception: the I_EXT bit of a cell whose
outgoing I lies below the y-drop floor (the passes carry I without resetting it at
pruned cells).  A traceback never reads such a bit, which the extension-level tests
check by comparing whole tracebacks.
"""
import functools

import numpy as np
import pytest

from fastz.kernels import rowvec
from fastz.kernels.dpcells import I_EXT, NEG, sweep_row
from fastz.kernels.gapped import new_state, new_work
from fastz.kernels.bounds import NONE
from fastz.kernels.ydrop import MODE_FULL, MODE_INSPECT, one_sided, padded, traceback
from fastz.scoring import build_scoreset

SUB = build_scoreset().sub
STAMP = 7
_scalar = rowvec.scalar_row


def outgoing_i(dg_in, d_in, masked, best, Y, E, OE):
    """Per cell: (I leaving it, its floor), as sweep_row carries them (plain Python)."""
    i = NEG
    out = []
    for dg, d, m in zip(dg_in, d_in, masked):
        floor = best - Y
        gap = d > dg or i > dg
        c = (d if d >= i else i) if gap else dg
        if m or c < floor:
            i = NEG
        elif gap:
            i -= E
        else:
            if c >= best:
                best = c
            i = max(i - E, c - OE)
        out.append((i, floor))
    return out


def random_row(rng):
    """Arguments of one sweep_row call with a row above of mixed live / pruned cells."""
    n = int(rng.choice([int(rng.integers(1, rowvec.MIN_CELLS)), int(rng.integers(1, 400))]))
    best = int(rng.integers(0, 6000))
    Y = int(rng.choice([300, 1000, 9400, int(rng.integers(50, 20000))]))
    E = int(rng.integers(1, 60))
    OE = E + int(rng.integers(0, 600))
    w0 = int(rng.integers(0, 4))
    shift = int(rng.integers(0, 4))               # lo - prev_ly
    lo = int(rng.integers(0, 50))
    prev_ly = lo - shift
    width = w0 + shift + n + 8
    kind = rng.random(width)
    live = rng.integers(best - Y - 800, best + 300, width)
    cc = np.where(kind < 0.15, NEG, live).astype(np.int32)
    dd = np.where(kind < 0.15, NEG, live - rng.integers(OE, OE + 3000, width))
    dd = np.where(kind > 0.95, NEG - E * rng.integers(1, 5, width), dd).astype(np.int32)
    if rng.random() < 0.2:                        # a dead stretch inside the row
        a = int(rng.integers(0, width))
        cc[a:a + int(rng.integers(1, 40))] = NEG
    B = rng.choice(np.frombuffer(b"ACGTNacgt", np.uint8), lo + n + 8)
    B[rng.random(B.size) < 0.01] = 0              # NUL: LASTZ's "very bad" score
    a = np.uint8(rng.choice(np.frombuffer(b"ACGTNa", np.uint8)))
    t0 = int(rng.integers(0, 5))
    tw = int(rng.choice([0, lo + n, lo + int(rng.integers(0, n + 1)), lo + n + 5]))
    # cells on earlier alignments: mk[col - prev_ly] == STAMP (diagonal ones single,
    # horizontal ones in runs), in half the rows
    mk = np.zeros(width, np.int64)
    masked = bool(rng.random() < 0.5)
    if masked:
        mk[rng.random(width) < rng.choice([0.01, 0.05, 0.3])] = STAMP
        for _ in range(int(rng.integers(0, 3))):
            a0 = int(rng.integers(0, width))
            mk[a0:a0 + int(rng.integers(1, 30))] = STAMP
        mk[rng.random(width) < 0.1] = STAMP - 1          # an older row's stamp
    return dict(cc=cc, dd=dd, w0=w0, B=B, b0=0, a=a, col=lo, hi=lo + n, prev_ly=prev_ly,
                LY=lo, best=best, Y=Y, E=E, OE=OE, t0=t0, tw=tw, n=n, mk=mk, masked=masked)


def run_row(fn, r, extra=()):
    cc = r["cc"].copy()
    dd = r["dd"].copy()
    tb = np.full(r["t0"] + r["hi"] + 16, 0xEE, np.uint8)
    mk = r.get("mk", np.zeros(cc.size, np.int64))
    res = fn(cc, dd, r["w0"], r["B"], r["b0"], SUB, r["a"], r["col"], r["hi"], r["prev_ly"],
             r["LY"], r["best"], r["Y"], r["E"], r["OE"], 5, 10**6, 10**6, True, NEG, tb,
             r["t0"], r["tw"], mk, r.get("masked", False), STAMP, *extra)
    return tuple(int(x) for x in res), cc, dd, tb


def check_row(r, seed):
    """sweep_row_vec against sweep_row on one row: every result and value written."""
    ws, wl = rowvec.scratch(r["n"])
    want, cc0, dd0, tb0 = run_row(_scalar, r)
    got, cc1, dd1, tb1 = run_row(rowvec.sweep_row_vec, r, (ws, wl))
    # (col, LY, np_col, i, best, end_col, at_boundary, boundary); I after the row
    # may differ only below the final floor, where the caller ignores it
    assert got[:3] == want[:3] and got[4:] == want[4:]
    floor = want[4] - r["Y"]
    assert got[3] == want[3] or (want[3] < floor and got[3] == NEG)
    stored = want[0] - want[1]                  # cells written from w0
    w0 = r["w0"]
    assert np.array_equal(cc1[w0:w0 + stored], cc0[w0:w0 + stored])
    assert np.array_equal(dd1[w0:w0 + stored], dd0[w0:w0 + stored])
    # everything else of the work rows is the row above, untouched by both
    assert np.array_equal(cc1[w0 + stored:], cc0[w0 + stored:])
    diff = np.nonzero(tb1 != tb0)[0]
    if diff.size:
        lo = r["col"]
        rb = w0 + lo - r["prev_ly"]
        dg = [NEG] + [max(int(r["cc"][rb + k - 1]) + int(SUB[r["a"], r["B"][lo + k - 1]]),
                          NEG) for k in range(1, r["n"])]
        d_in = [int(r["dd"][rb + k]) for k in range(r["n"])]
        on = [r["masked"] and r["mk"][lo - r["prev_ly"] + k] == STAMP for k in range(r["n"])]
        carried = outgoing_i(dg, d_in, on, r["best"], r["Y"], r["E"], r["OE"])
        for p in diff:
            k = p - r["t0"] - lo
            assert tb1[p] ^ tb0[p] == I_EXT, (seed, p)
            i_out, fl = carried[k]
            assert i_out < fl, (seed, k)


@pytest.mark.parametrize("seed", range(8))
def test_rows_match_the_scalar_sweep(seed):
    rng = np.random.default_rng(seed)
    vec_rows = masked_rows = 0
    for _ in range(250):
        r = random_row(rng)
        check_row(r, seed)
        vec = r["n"] >= rowvec.MIN_CELLS
        vec_rows += vec
        masked_rows += vec and r["masked"] and bool(
            (r["mk"][r["col"] - r["prev_ly"]:][:r["n"]] == STAMP).any())
    assert vec_rows > 100 and masked_rows > 40      # the passes really ran, masks too


def test_masked_cells_end_the_row_and_lead_it():
    """Masked cells at the row's start (LY moves past them), in runs, and at its end
    (no I leaves the row), on rows long enough for the passes."""
    rng = np.random.default_rng(23)
    for trial in range(300):
        r = random_row(rng)
        while r["n"] < rowvec.MIN_CELLS:
            r = random_row(rng)
        r["masked"] = True
        base = r["col"] - r["prev_ly"]
        n = r["n"]
        where = trial % 3
        if where == 0:
            r["mk"][base:base + int(rng.integers(1, 20))] = STAMP
        elif where == 1:
            r["mk"][base + n - int(rng.integers(1, 12)):base + n] = STAMP
        else:                                       # every eighth cell: no chunk is free
            r["mk"][base + int(rng.integers(0, 8)):base + n:8] = STAMP
        check_row(r, trial)


def test_masked_rows_with_huge_scores_take_the_scalar_sweep():
    """A masked cell's floor is set from _UNREACHED; rows whose best could reach it go
    to sweep_row (decided by vector_row, so the results are exactly sweep_row's)."""
    assert not rowvec.vector_row(100, True, rowvec.MAX_BEST, True, 9400, 30, 430)
    assert rowvec.vector_row(100, False, rowvec.MAX_BEST, True, 9400, 30, 430)
    assert rowvec.vector_row(100, True, rowvec.MAX_BEST - 1, True, 9400, 30, 430)
    assert rowvec._UNREACHED - rowvec.MAX_Y > rowvec.MAX_BEST


@pytest.mark.parametrize("span", [rowvec.MAX_SPAN - 50_000, rowvec.MAX_SPAN + 50_000])
def test_huge_gap_penalties_do_not_wrap_the_int32_lanes(span):
    """The passes compute in wrapping int32 (kernels.lanes); rows whose gap penalties
    could carry a value below the int32 minimum must give sweep_row's results too
    (just under MAX_SPAN they take the passes, just over it the scalar sweep)."""
    rng = np.random.default_rng(span)
    for _ in range(40):
        r = random_row(rng)
        n = r["n"] = 300
        r["hi"] = r["col"] + n
        r["Y"] = rowvec.MAX_Y
        r["E"] = span // (n + 2)
        r["OE"] = span - r["E"] * n                 # gap open >= E: a real penalty
        width = r["w0"] + r["col"] - r["prev_ly"] + n + 8
        r["cc"] = np.resize(r["cc"], width)
        r["dd"] = np.where(rng.random(width) < 0.5, NEG,
                           r["cc"].astype(np.int64) - r["OE"]).astype(np.int32)
        if rng.random() < 0.5:
            # a long start where D beats every diagonal: no I opens, the carried J
            # stays at NEG while u * E grows (what would wrap without the limit)
            k = int(rng.integers(100, 250))
            r["cc"][:k] = NEG
            r["dd"][:k] = rng.integers(-5000, 5000, k)
        r["B"] = np.resize(r["B"], r["col"] + n + 8)
        check_row(r, span)


def test_huge_negative_scores_do_not_wrap_the_int32_lanes(monkeypatch):
    """The passes add C and the score in int32: next to a NEG cell a score this low
    would wrap a plain int32 sum; the proposals must still be sweep_row's."""
    sub = SUB.copy()
    sub[:, ord("T")] = -2 * rowvec.MAX_SPAN          # NEG + this wraps in int32
    monkeypatch.setitem(globals(), "SUB", sub)
    rng = np.random.default_rng(17)
    for _ in range(60):
        r = random_row(rng)
        r["cc"][rng.random(r["cc"].size) < 0.3] = NEG
        check_row(r, 17)


def test_wrapping_int32_arithmetic():
    from numba import njit
    from fastz.kernels.lanes import add32, mul32, sub32

    @njit
    def ops(a, b):
        return add32(a, b), sub32(a, b), mul32(a, b)

    top = np.int32(2**31 - 1)
    assert ops(top, np.int32(1)) == (-2**31, 2**31 - 2, top)
    assert ops(np.int64(-7), np.int64(3)) == (-4, -10, -21)
    assert ops(np.int32(1 << 16), np.int32(1 << 16))[2] == 0       # wraps as C's int does


def test_noytrim_rows_take_the_scalar_sweep():
    rng = np.random.default_rng(99)
    r = random_row(rng)
    while r["n"] < rowvec.MIN_CELLS:
        r = random_row(rng)
    ws, wl = rowvec.scratch(r["n"])
    mask = np.where(rng.random(r["cc"].size) < 0.3, 7, 0).astype(np.int64)
    for masked, trim in ((True, False), (False, False)):
        outs = []
        for fn, extra in ((_scalar, ()), (rowvec.sweep_row_vec, (ws, wl))):
            cc = r["cc"].copy()
            dd = r["dd"].copy()
            tb = np.zeros(r["t0"] + r["hi"] + 16, np.uint8)
            mk = mask.copy()
            res = fn(cc, dd, r["w0"], r["B"], 0, SUB, r["a"], r["col"], r["hi"], r["prev_ly"],
                     r["LY"], r["best"], r["Y"], r["E"], r["OE"], 5, 10**6, r["hi"] - 3, trim,
                     NEG, tb, r["t0"], r["tw"], mk, masked, 7, *extra)
            outs.append((res, cc.tobytes(), dd.tobytes(), tb.tobytes()))
        assert outs[0] == outs[1]


def test_the_scalar_sweep_is_the_plain_python_one():
    """The reference above is dpcells.sweep_row itself, compiled: check it on a row."""
    r = random_row(np.random.default_rng(5))
    want = run_row(_scalar, r)
    got = run_row(sweep_row, r)
    assert want[0] == got[0] and all(np.array_equal(a, b) for a, b in zip(want[1:], got[1:]))


@functools.lru_cache(maxsize=None)
def _twin():
    """The scalar CPU twin of the GPU kernels (compiled once per test session)."""
    from numba import njit
    from fastz.kernels import dpcells
    return dpcells.compile_cells(njit(cache=True))


def _extend(t, q, mode, Y=9400, O=400, E=30):
    al, sg, _ops, _meta, _ix = new_state(1)
    buf = list(new_work(SUB)[:7])
    r = one_sided(padded(t, q), False, 0, 0, len(t) - 1, len(q) - 1, SUB, O, E, Y, True,
                  1 << 40, al, sg, NONE, NONE, NONE, NONE, NONE, *buf[:4], 0, mode, *buf[4:],
                  0, 0)
    out = tuple(int(x) for x in r[:7])
    if mode == MODE_FULL:
        n, ops = traceback(r[1], r[2], r[12], r[13], np.zeros(16, np.int8))
        out += (ops[:n].tobytes(),)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_extensions_match_the_scalar_twin(seed):
    """Whole extensions (scores, ends, cells, tracebacks) against dpcells.one_side, the
    scalar CPU twin of the GPU kernels, which never uses the passes."""
    from test_ydrop import make_pair
    twin = _twin()
    rng = np.random.default_rng(seed)
    t, q = make_pair(seed, int(rng.integers(500, 4000)), rate_sub=float(rng.uniform(0.05, 0.3)),
                     rate_indel=float(rng.uniform(0.0, 0.06)))
    t = np.frombuffer(t, np.uint8)
    q = np.frombuffer(q, np.uint8)
    Y, O, E = [(9400, 400, 30), (3000, 200, 10), (600, 100, 50)][seed % 3]
    got = _extend(t, q, MODE_FULL, Y, O, E)
    assert _extend(t, q, MODE_INSPECT, Y, O, E)[:3] == got[:3]
    M, N = len(t) - 1, len(q) - 1
    width = N + Y // E + 64
    cc = np.zeros(width, np.int32)
    dd = np.zeros(width, np.int32)
    tw = got[2] + 1
    tbw = np.zeros((got[1] + 1) * tw, np.uint8)
    rows = np.zeros(2 * (M + 2), np.int32)
    Tf, Tr, Qf, Qr = padded(t, q)
    st, score, er, ec, cells, last_row, max_ry = twin.extend_side(
        Tf, Tr, Qf, Qr, False, 0, 0, M, N, SUB, E, O + E, Y, True, 1 << 40, cc, dd, 0, width,
        tbw, 0, tw, got[1] + 1, rows, 0, M + 2, False, 0, 0)
    assert st == 0
    assert (score, er, ec, cells, last_row, max_ry) == got[:3] + got[4:7]
    ops = np.zeros(er + ec + 1, np.int8)
    nops = twin.trace_dense(tbw, 0, tw, er, ec, ops, 0)
    assert ops[:nops].tobytes() == got[7]


def test_running_max8_is_a_running_maximum():
    """The vector-lane scan against a plain Python running maximum, on extreme values
    (the int32 minimum is its shift filler) and on rows with many ties."""
    from numba import njit
    from fastz.kernels.lanes import LANES, running_max8

    @njit
    def scan(ws, n, carry):
        c = np.int32(carry)
        for u in range(0, n, LANES):
            c = running_max8(ws, 1, 2, np.uint64(u), c)
        return c

    rng = np.random.default_rng(8)
    for trial in range(200):
        n = LANES * int(rng.integers(1, 30))
        ws = rng.integers(-2**31, 2**31, (4, n + 5), dtype=np.int64).astype(np.int32)
        if trial % 2:
            ws[1] = rng.integers(-3, 3, n + 5)
        if trial % 5 == 0:
            ws[1, :n // 2] = -2**31
        before = ws.copy()
        carry = int(rng.choice([-2**31, 2**31 - 1, int(rng.integers(-5, 5))]))
        got = scan(ws, n, carry)
        run, entered = carry, []
        for u in range(n):
            entered.append(run)
            run = max(run, int(before[1, u]))
        assert got == run
        assert ws[2, :n + 1].tolist() == entered + [run]
        # nothing else written: the source row, the other rows, past the end
        assert np.array_equal(ws[[0, 1, 3]], before[[0, 1, 3]])
        assert np.array_equal(ws[2, n + 1:], before[2, n + 1:])
