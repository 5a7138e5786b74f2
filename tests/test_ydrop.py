"""Gapped y-drop kernels: full pass and inspector/eager/executor vs the plain reference."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastz.kernels.gapped import extend_one_side
from fastz.kernels.reference_dp import one_sided_reference
from fastz.scoring import build_scoreset

SUB = build_scoreset().sub
OPS = "MID"


def _rand(rng, n, alphabet=b"ACGT") -> bytes:
    return np.array(rng.choice(list(alphabet), n), dtype=np.uint8).tobytes()


def mutate(rng, seq: bytes, rate_sub, rate_indel, alphabet=b"ACGT") -> bytes:
    """Copy seq with substitutions and short indels (a plausible homolog)."""
    out = bytearray()
    for ch in seq:
        x = rng.random()
        if x < rate_indel / 2:
            continue                                   # deletion
        if x < rate_indel:
            out += _rand(rng, int(rng.integers(1, 4)), alphabet)  # insertion
        out.append(int(rng.choice(list(alphabet))) if rng.random() < rate_sub else ch)
    return bytes(out)


def make_pair(seed, n, rate_sub=0.1, rate_indel=0.03, soft=False, ns=False):
    rng = np.random.default_rng(seed)
    t = _rand(rng, n)
    q = mutate(rng, t, rate_sub, rate_indel)
    if soft:                                           # soft-mask a stretch
        k = int(rng.integers(0, n // 2 + 1))
        t = t[:k] + t[k:k + n // 4].lower() + t[k + n // 4:]
    if ns:                                             # sprinkle Ns / a run of Ns
        qa = bytearray(q)
        for p in rng.integers(0, max(len(qa), 1), len(qa) // 20):
            qa[p] = ord("N")
        q = bytes(qa)
    return t, q


def check(t: bytes, q: bytes, a1: int, a2: int, reverse: bool, ydrop=9400, gap=(400, 30),
          trim=True, sub=SUB):
    if reverse:
        A, B = t[:a1 + 1][::-1], q[:a2 + 1][::-1]
    else:
        A, B = t[a1 + 1:], q[a2 + 1:]
    want = one_sided_reference(A, B, sub, gap[0], gap[1], ydrop, trim)
    T = np.frombuffer(t, np.uint8)
    Q = np.frombuffer(q, np.uint8)
    score = float if sub.dtype.kind == "f" else int
    for two_pass in (False, True):
        s, er, ec, trunc, ops, _st = extend_one_side(T, Q, a1, a2, reverse, sub, gap[0], gap[1],
                                                ydrop, trim, 1 << 40, two_pass)
        got = (score(s), int(er), int(ec), "".join(OPS[o] for o in ops))
        assert got == want, f"two_pass={two_pass} reverse={reverse}"
        assert not trunc
    return want


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), reverse=st.booleans(),
       soft=st.booleans(), ns=st.booleans(), ydrop=st.sampled_from([300, 1000, 9400]),
       indel=st.sampled_from([0.0, 0.03, 0.15]))
def test_kernel_matches_reference(seed, n, reverse, soft, ns, ydrop, indel):
    t, q = make_pair(seed, n, rate_indel=indel, soft=soft, ns=ns)
    rng = np.random.default_rng(seed + 1)
    a1 = int(rng.integers(0, len(t)))
    a2 = min(int(rng.integers(0, len(q))), len(q) - 1) if q else 0
    if not q:
        return
    check(t, q, a1, a2, reverse, ydrop=ydrop)


def fractional_table(rng):
    """lastz_D's scores with fractions: HOXD70's table as doubles, its ACGT cells (both
    cases) replaced by random values with many decimals (sums of them round)."""
    sub = SUB.astype(np.float64)
    cells = rng.normal(-60, 60, (4, 4)) + np.diag(rng.uniform(90, 110, 4))
    for i, a in enumerate(b"ACGT"):
        for j, b in enumerate(b"ACGT"):
            for x in (a, a | 32):
                for y in (b, b | 32):
                    sub[x, y] = cells[i, j]
    return sub


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), reverse=st.booleans(),
       trim=st.booleans(), indel=st.sampled_from([0.0, 0.03, 0.15]))
def test_fractional_scores_match_reference(seed, n, reverse, trim, indel):
    """lastz_D's fractional scores: the float64 engine (score words, float work rows,
    the scalar row sweep) against the reference computing every double as LASTZ
    does; scores equal as doubles, not merely close."""
    rng = np.random.default_rng(seed)
    t, q = make_pair(seed, n, rate_indel=indel, soft=bool(seed & 1), ns=bool(seed & 2))
    if not q:
        return
    sub = fractional_table(rng)
    gap = (float(rng.uniform(100, 500)), float(rng.uniform(5, 40)))
    ydrop = float(rng.uniform(200, 9500))
    a1 = int(rng.integers(0, len(t)))
    a2 = int(rng.integers(0, len(q)))
    check(t, q, a1, a2, reverse, ydrop=ydrop, gap=gap, trim=trim, sub=sub)


@pytest.mark.parametrize("two_pass", [False, True])
def test_float_engine_on_whole_scores_equals_integer_engine(two_pass):
    """The engine compiled for a float64 table (fastz_D's fractional scores) gives the
    integer engine's alignments when the scores are whole numbers: bounds from earlier
    alignments, skipped anchors, rescoring, output order, every table equal."""
    from fastz.kernels.bounds import A_SCORE
    from fastz.kernels.gapped import extend_anchors
    from fastz.kernels.ydrop import pad_target
    rng = np.random.default_rng(5)
    t = _rand(rng, 6000)
    q = mutate(rng, t[1000:3000], 0.12, 0.04) + mutate(rng, t[3500:5500], 0.2, 0.04)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    n = 40
    a2 = np.sort(rng.integers(0, len(q), n)).astype(np.int64)
    a1 = np.where(a2 < 2000, a2 + 1000, a2 + 1500).clip(0, len(t) - 1).astype(np.int64)
    a1, a2 = np.repeat(a1, 2), np.repeat(a2, 2)      # (an anchor again: skipped)
    n *= 2
    lo, hi1, hi2 = np.zeros(n, np.int64), np.full(n, len(t), np.int64), np.full(n, len(q),
                                                                                np.int64)
    none = np.zeros((0, 5), np.int64)
    got = []
    for sub, go, ge, y, th in ((SUB, 400, 30, 9400, 3000),
                               (SUB.astype(np.float64), 400.0, 30.0, 9400.0, 3000.0)):
        got.append(extend_anchors(T, Q, a1, a2, lo, hi1, lo, hi2, sub, go, ge, y, True,
                                  1 << 40, th, False, none, two_pass, pad_target(T)))
    (oi, ali, opsi, sti, tri), (of, alf, opsf, stf, trf) = got
    assert len(oi) >= 2 and sti[1] > 0                        # several alignments, skips
    assert np.array_equal(ali[:, A_SCORE].astype(np.float64), alf[:, A_SCORE].view(np.float64))
    ali, alf = ali.copy(), alf.copy()
    ali[:, A_SCORE] = alf[:, A_SCORE] = 0
    for x, y in ((oi, of), (ali, alf), (opsi, opsf), (sti, stf), (tri, trf)):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("trim", [True, False])
def test_long_extension_uses_executor_and_matches(trim):
    """A 3 kb homolog: the best cell lies far outside the eager corner."""
    t, q = make_pair(7, 3000, rate_sub=0.08, rate_indel=0.02)
    score, er, ec, ops = check(t, q, 0, 0, False, trim=trim)
    assert er > 16 and ec > 16 and score > 10000


def test_eager_corner_short_extension():
    """Identical 10 bp then junk: the best cell is inside the 16x16 corner."""
    t = b"ACGTACGTAC" + b"T" * 200
    q = b"ACGTACGTAC" + b"G" * 200
    score, er, ec, ops = check(t, q, -1 + 1, 0, False)
    assert er < 16 and ec < 16


def test_rescored_ops_equal_score():
    """Rescoring the traced path with affine gaps gives the DP score."""
    for seed in range(20):
        t, q = make_pair(seed, 600, rate_indel=0.05)
        score, er, ec, ops = check(t, q, 0, 0, False)
        s, i, j, k = 0, 1, 1, 0
        while k < len(ops):
            run = len(ops[k:]) - len(ops[k:].lstrip(ops[k]))
            if ops[k] == "M":
                for _ in range(run):
                    s += SUB[t[i]][q[j]]
                    i += 1
                    j += 1
            else:
                s -= 400 + 30 * run
                if ops[k] == "I":
                    j += run
                else:
                    i += run
            k += run
        assert s == score


def test_truncation_limits_traceback_cells():
    """With a tiny traceback budget the extension stops early, as lastz's does."""
    t, q = make_pair(3, 3000, rate_sub=0.02, rate_indel=0.0)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    full = extend_one_side(T, Q, 0, 0, False, SUB, 400, 30, 9400, True, 1 << 40, False)
    for two_pass in (False, True):
        cut = extend_one_side(T, Q, 0, 0, False, SUB, 400, 30, 9400, True, 100_000, two_pass)
        assert cut[3] and cut[1] < full[1]
    a = extend_one_side(T, Q, 0, 0, False, SUB, 400, 30, 9400, True, 100_000, False)
    b = extend_one_side(T, Q, 0, 0, False, SUB, 400, 30, 9400, True, 100_000, True)
    assert a[:3] == b[:3] and list(a[4]) == list(b[4])


@pytest.mark.parametrize("reverse", [False, True])
def test_horizontal_segment_left_of_the_anchor_masks_nothing(reverse):
    """LASTZ's build_active_seg keeps the segment's column unsigned: a horizontal
    segment starting left of the anchor's column wraps to a huge column and masks
    no cell (fastz masked from LY, which ended one ce2 chrX alignment early)."""
    from fastz.kernels.bounds import HORZ, S_B1, S_B2, S_E1, S_E2, S_FIELDS, S_TYPE, \
        _build_active
    a1, a2, LY, RY, stamp = 100, 50, 0, 40, 7

    def masked(b2, e2):
        sg = np.zeros((1, S_FIELDS), np.int64)
        sg[0, S_TYPE], sg[0, S_B1], sg[0, S_E1] = HORZ, 90, 90
        # the same query interval seen from either side of the anchor
        sg[0, S_B2], sg[0, S_E2] = (b2, e2) if not reverse else (2 * a2 - e2, 2 * a2 - b2)
        act = np.zeros((1, 4), np.int64)
        mk = np.zeros(64, np.int64)
        _build_active(reverse, act, 0, sg, mk, 0, stamp, a1, a2, LY, RY)
        return np.flatnonzero(mk == stamp).tolist()

    assert masked(a2 - 3, a2 + 5) == []                   # starts left: nothing
    assert masked(a2 + 2, a2 + 5) == [2, 3, 4, 5]         # starts right: its cells


def _one_sided_all_modes(t: bytes, q: bytes, size: int):
    """(full pass, inspector, executor) of one forward extension whose scratch buffers
    start with ``size`` entries: scalars, links traced back, inspector row records."""
    from fastz.kernels.bounds import ACT_FIELDS, NONE
    from fastz.kernels.gapped import new_state
    from fastz.kernels.ydrop import (MODE_EXECUTE, MODE_FULL, MODE_INSPECT, ROW_FIELDS,
                                     one_sided, padded, traceback)
    al, sg, _ops, _meta, _ix = new_state(1)
    T, Q = np.frombuffer(t, np.uint8), np.frombuffer(q, np.uint8)
    seqs = padded(T, Q)

    def run(mode, rows, er=0, ec=0):
        bufs = (np.zeros(size, np.int32), np.zeros(size, np.int32), np.zeros(size, np.int64),
                np.zeros((1, ACT_FIELDS), np.int64))
        tb, tbrow = np.zeros(size, np.uint8), np.zeros(size, np.int64)
        return one_sided(seqs, False, 0, 0, len(t) - 1, len(q) - 1, SUB, 400, 30, 9400,
                         True, 1 << 40, al, sg, NONE, NONE, NONE, NONE, NONE, *bufs, 0,
                         mode, rows, tb, tbrow, er, ec)

    def path(r):
        n, ops = traceback(r[1], r[2], r[12], r[13], np.zeros(16, np.int64))
        return ops[:n].tolist()

    full = run(MODE_FULL, np.zeros((size, ROW_FIELDS), np.int64))
    insp = run(MODE_INSPECT, np.zeros((size, ROW_FIELDS), np.int64))
    rows = insp[11][:insp[5] + 1].copy()
    exe = run(MODE_EXECUTE, insp[11], insp[1], insp[2])
    return ([int(x) for x in full[:7]], path(full), [int(x) for x in insp[:7]],
            rows.tolist(), [int(x) for x in exe[:7]], path(exe))


def test_buffers_growing_mid_sweep_change_nothing():
    """one_sided grows its buffers between rows and re-enters the sweep at the same
    row: starting from one-entry buffers (every buffer grows, at many rows, in every
    mode) gives exactly what buffers large enough from the start give."""
    t, q = make_pair(21, 4000, rate_sub=0.1, rate_indel=0.03)
    tiny = _one_sided_all_modes(t, q, 1)
    roomy = _one_sided_all_modes(t, q, 1 << 22)
    assert tiny == roomy
    assert tiny[0][4] > 100_000 and len(tiny[1]) > 3000       # a real extension


@pytest.mark.parametrize("two_pass", [False, True])
def test_a_batch_of_strands_extends_as_each_strand_alone(two_pass):
    """``extend_strands`` empties one set of stores and work buffers between its strands
    (and its mask stamps count on across them): each strand's alignments, edit runs,
    truncations and statistics must be those of ``extend_anchors`` on it alone,
    whatever strand came before (several alignments per strand, so that a strand
    leaves alignments, segments and index entries behind)."""
    from fastz.kernels.bounds import A_END1, A_END2, A_OPS0, A_OPSN, A_POS1, A_POS2, A_SCORE
    from fastz.kernels.gapped import (X_BEG1, X_BEG2, X_END1, X_END2, X_NOPS, X_SCORE,
                                      X_STRAND, extend_anchors, extend_strands)
    from fastz.kernels.ydrop import pad_target
    from fastz.records import concat_buffers
    rng = np.random.default_rng(11)
    t = _rand(rng, 30_000)
    T = np.frombuffer(t, np.uint8)
    strands, anchors = [], []
    for s in range(14):
        if s % 5 == 4:                         # a strand with no anchor
            strands.append(_rand(rng, 200))
            anchors.append([])
            continue
        # pieces of the target, mutated and joined: one alignment per piece
        pieces, marks = [], []
        for _ in range(int(rng.integers(1, 4))):
            p = int(rng.integers(0, len(t) - 400))
            n = int(rng.integers(120, 400))
            marks.append((p, sum(map(len, pieces))))
            pieces.append(mutate(rng, t[p:p + n], 0.06, 0.02) + _rand(rng, 60))
        strands.append(b"".join(pieces))
        anchors.append([(p + 10 + d, q + 10 + d) for p, q in marks for d in (0, 40)])
    Q, qoff = concat_buffers([np.frombuffer(x, np.uint8) for x in strands])
    aoff = np.cumsum([0] + [len(a) for a in anchors]).astype(np.int64)
    flat = [a for a_s in anchors for a in a_s]
    anc1 = np.array([a for a, _ in flat], np.int64)
    anc2 = np.array([b for _, b in flat], np.int64)
    lo1 = np.zeros(len(flat), np.int64)
    hi1 = np.full(len(flat), len(t), np.int64)
    tpads = pad_target(T)
    args = (SUB, 400, 30, 9400, True, 1 << 40, 3000, False)
    rows, enc, stats, truncs = extend_strands(T, Q, qoff, anc1, anc2, aoff, lo1, hi1, *args,
                                              two_pass, tpads)
    want_rows, want_enc, want_stats = [], [], np.zeros_like(stats)
    for s, a_s in enumerate(anchors):
        if not a_s:
            continue
        Qs = Q[qoff[s]:qoff[s + 1]].copy()
        k = len(a_s)
        order, al, ops, st, trunc = extend_anchors(
            T, Qs, anc1[aoff[s]:aoff[s + 1]].copy(), anc2[aoff[s]:aoff[s + 1]].copy(),
            lo1[:k].copy(), hi1[:k].copy(), np.zeros(k, np.int64),
            np.full(k, len(Qs), np.int64), *args, np.zeros((0, 5), np.int64), two_pass,
            tpads)
        want_stats += st
        assert trunc.shape[0] == 0
        for m in order:
            want_rows.append([s, al[m, A_POS1], al[m, A_END1] + 1, al[m, A_POS2],
                              al[m, A_END2] + 1, al[m, A_SCORE]])
            o0, no = al[m, A_OPS0], al[m, A_OPSN]
            want_enc += [(int(ops[j, 1]) << 4) | int(ops[j, 0]) for j in range(o0, o0 + no)]
    fields = [X_STRAND, X_BEG1, X_END1, X_BEG2, X_END2, X_SCORE]
    assert rows[:, fields].tolist() == want_rows
    assert rows[:, X_NOPS].sum() == len(want_enc)
    assert enc.tolist() == want_enc
    assert stats.tolist() == want_stats.tolist()
    assert truncs.shape[0] == 0
    # the strands did leave stores behind: several alignments in a strand, most pieces found
    per_strand = np.bincount(rows[:, X_STRAND])
    assert per_strand.max() >= 2 and len(want_rows) >= 15
