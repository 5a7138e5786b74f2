"""Stage 2: x-drop extension, entropy, diagonal hash and HSPs (vs oracles and lastz)."""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastz.kernels import cells
from fastz.kernels.filtering import _hit
from fastz.kernels.reference import reference_entropy, reference_find_hsps, reference_xdrop
from fastz.pipeline.filtering import find_hsps
from fastz.pipeline.seeding import build_index, parse_seed
from fastz.scoring import build_scoreset

from seedharness import (Rec, Target, lastz_rows, make_target, read_2bit, read_fasta, revcomp,
                         run_fastz_hsps)

SS = build_scoreset()
ACGT = np.frombuffer(b"ACGT", np.uint8)


def _b(s):
    return np.frombuffer(s.encode(), np.uint8)


# --- Cells -----------------------------------------------------------------------------------


def test_xdrop_hand_case():
    # 10 matches, a masked base, 5 matches: the masked column (-1000) stops it (X=910)
    t = _b("ACGTACGTAC" + "a" + "ACGTA")
    q = _b("ACGTACGTAC" + "A" + "ACGTA")
    left, right, block, score = cells.xdrop_extend(t, q, 5, 0, 0, len(t), 910, SS.masked)
    assert (left, right) == (0, 10) and score == 3 * 91 + 3 * 100 + 2 * 100 + 2 * 91
    assert block == 11              # the masked column was examined, then the drop stopped it
    # the same through the compiled twin, and a left stop (diagonal block) at 3
    assert _hit.xdrop_extend(t, q, 5, 0, 3, len(t), 910, SS.masked)[0] == 3


def test_entropy_of_ac20_is_one_half():
    s = _b("AC" * 20)
    assert cells.entropy(s, s, 0, 0, 40) == pytest.approx(0.5, abs=1e-15)
    assert _hit.entropy(s, s, 0, 0, 40) == cells.entropy(s, s, 0, 0, 40)
    # lower-case matches do not count: fewer than 20 counted -> 1.0
    lo = _b("ac" * 20)
    assert cells.entropy(lo, lo, 0, 0, 40) == 1.0


@settings(max_examples=200, deadline=None)
@given(a=st.text("ACGTacgtN", min_size=1, max_size=120), rs=st.integers(0, 2**31))
def test_entropy_matches_reference(a, rs):
    t = _b(a)
    rng = np.random.default_rng(rs)
    q = t.copy()
    flip = rng.random(len(q)) < 0.2
    q[flip] = rng.choice(ACGT, int(flip.sum()))
    got = _hit.entropy(t, q, 0, 0, len(t))
    assert got == reference_entropy(t, q, 0, 0, len(t))
    assert 0.0 <= got <= 1.0 + 1e-12


@settings(max_examples=200, deadline=None)
@given(a=st.text("ACGTACGTacgtN", min_size=2, max_size=200), rs=st.integers(0, 2**31),
       xdrop=st.sampled_from([50, 200, 910, 5000]))
def test_xdrop_matches_reference(a, rs, xdrop):
    t = _b(a)
    rng = np.random.default_rng(rs)
    q = t.copy()
    flip = rng.random(len(q)) < 0.15
    q[flip] = rng.choice(ACGT, int(flip.sum()))
    e = int(rng.integers(1, len(t) + 1))
    block = int(rng.integers(0, e))
    got = _hit.xdrop_extend(t, q, e, 0, block, len(t), xdrop, SS.masked)
    assert tuple(got) == reference_xdrop(t, q, e, e, block, xdrop, SS.masked)


# --- The search against the slow oracle --------------------------------------------------------


def _random_pair(rng, n, masked=0.05, ns=0.02):
    t = rng.choice(ACGT, n)
    q = np.concatenate([rng.choice(ACGT, int(rng.integers(0, 40))),
                        t[rng.integers(0, n // 3): rng.integers(2 * n // 3, n)],
                        rng.choice(ACGT, int(rng.integers(0, 40)))])
    mut = rng.random(q.shape[0]) < 0.06
    q[mut] = rng.choice(ACGT, int(mut.sum()))
    if rng.random() < 0.5:                            # a low-complexity stretch in both
        rep = np.frombuffer(b"AC" * 20, np.uint8)
        t[10:50] = rep
        q[5:45] = rep
    for arr in (t, q):
        low = rng.random(arr.shape[0]) < masked
        arr[low] = arr[low] | 0x20
        arr[rng.random(arr.shape[0]) < ns] = ord("N")
    return t, q


@settings(max_examples=60, deadline=None)
@given(seed=st.sampled_from(["match6", "1T0111", "110101101", "12of19", "TTTT0TTTTT"]),
       trans=st.integers(0, 2), step=st.integers(1, 2), xdrop=st.sampled_from([100, 400, 910]),
       thresh=st.sampled_from([0, 300, 800, 2000]), entropy=st.booleans(),
       gf=st.sampled_from([(True, True), (False, True), (False, False)]),
       rs=st.integers(0, 2**31))
def test_find_hsps_matches_reference(seed, trans, step, xdrop, thresh, entropy, gf, rs):
    gfextend, gapped = gf
    t, q = _random_pair(np.random.default_rng(rs), 400)
    spec = parse_seed(seed)
    got = find_hsps(build_index(t, spec, step), t, q, None, trans, SS.masked, xdrop, thresh,
                    entropy, gfextend=gfextend, gapped=gapped)
    want = reference_find_hsps(t, q, spec.pattern, trans, SS.masked, xdrop, thresh, entropy,
                               step, 28, gfextend, gapped)
    assert [tuple(r) for r in got.tolist()] == want


# --- Against lastz: regression data ------------------------------------------------------------


@pytest.mark.parametrize("lastz_args, kw", [
    ([], {}),                                                      # 22 HSPs, discovery order
    (["C=3", "W=8", "T=0"], dict(seed="match8", transition=0)),    # base_test_hsp
    (["--seed=111010011101"], dict(seed="111010011101")),          # base_test_seeded
    (["--seed=TTT0T0T0TTT00T0T"], dict(seed="TTT0T0T0TTT00T0T", transition=0)),  # base_test_hw_seeded
    (["--seed=match15", "--transition"], dict(seed="match15")),   # overweight by default
])
def test_hsps_match_lastz_pseudocat(lastz_data, lastz_runner, lastz_args, kw):
    cat, pig = str(lastz_data / "pseudocat.fa"), str(lastz_data / "pseudopig.fa")
    mine = run_fastz_hsps(make_target(read_fasta(cat)), read_fasta(pig), **kw)
    assert mine == lastz_rows(lastz_runner, [cat, pig, *lastz_args])


def test_hsps_match_lastz_aglobin(lastz_data, lastz_runner):
    # lastz aglobin.2bit/human aglobin.2bit/cow --nogapped: 109 HSPs
    tb = lastz_data / "aglobin.2bit"
    human = read_2bit(tb, "human")
    mine = run_fastz_hsps(Target(human.chars, np.array([0]), ["human"]), [read_2bit(tb, "cow")])
    want = lastz_rows(lastz_runner, [f"{tb}/human", f"{tb}/cow"])
    assert len(want) == 109 and mine == want


# --- Against lastz: real pairs and option variants -----------------------------------------------

VARIANTS = {
    "default": ([], {}),
    "plus": (["--strand=plus"], dict(strand="plus")),
    "minus": (["--strand=minus"], dict(strand="minus")),
    "notransition": (["--notransition"], dict(transition=0)),
    "transition2": (["--transition=2"], dict(transition=2)),
    "14of22": (["--seed=14of22"], dict(seed="14of22")),
    "step2": (["--step=2"], dict(step=2)),
    "step25": (["--step=25"], dict(step=25)),
    "noentropy": (["--noentropy"], dict(entropy=False)),
    "x300k1500": (["--xdrop=300", "--hspthresh=1500"], dict(xdrop=300, hspthresh=1500)),
    "x2000k5000": (["--xdrop=2000", "--hspthresh=5000"], dict(xdrop=2000, hspthresh=5000)),
}

SMALL_PAIRS = ["mito_human_orang", "mito_human_mouse", "dengue1_vs_dengue2", "dwv_vs_vdv1",
               "human_vs_mouse_cgp"]


def _pair_case(pairs_dir, lastz_runner, pair, variant):
    largs, kw = VARIANTS[variant]
    tpath, qpath = str(pairs_dir / pair / "target.fa"), str(pairs_dir / pair / "query.fa")
    mine = run_fastz_hsps(make_target(read_fasta(tpath)), read_fasta(qpath), **kw)
    assert mine == lastz_rows(lastz_runner, [tpath, qpath, *largs])


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("pair", SMALL_PAIRS)
def test_hsps_match_lastz_pairs(shared_pairs, lastz_runner, pair, variant):
    _pair_case(shared_pairs, lastz_runner, pair, variant)


@pytest.mark.parametrize("pair, variant", [
    ("hpylori_26695_vs_J99_Eslice", "default"),
    ("hpylori_26695_vs_J99_Eslice", "x300k1500"),
    ("mers_ref_vs_46isolates", "default"),
    ("dmel2R_vs_dpse_contigs", "transition2"),
])
def test_hsps_match_lastz_larger_pairs(shared_pairs, lastz_runner, pair, variant):
    _pair_case(shared_pairs, lastz_runner, pair, variant)


@pytest.mark.parametrize("lastz_args, kw", [
    ([], {}),
    (["--xdrop=300", "--hspthresh=1000", "--noentropy"], dict(xdrop=300, hspthresh=1000, entropy=False)),
])
def test_hsps_match_lastz_multiple_target(shared_pairs, lastz_runner, lastz_args, kw):
    """target.fa[multiple]: NUL separators stop every extension."""
    d = shared_pairs / "mlc_testdata_pair"
    tpath, qpath = str(d / "target.fa"), str(d / "query.fa")
    mine = run_fastz_hsps(make_target(read_fasta(tpath), multiple=True), read_fasta(qpath), **kw)
    assert mine == lastz_rows(lastz_runner, [tpath + "[multiple]", qpath, *lastz_args])


# --- Experiments from the spec (11.3 hash collision, 11.5 entropy) --------------------------------


def _write_fasta(path, name, chars):
    path.write_bytes(b">" + name.encode() + b"\n" + bytes(chars) + b"\n")


@pytest.mark.parametrize("spacing, n_hsps", [(65536, 1), (65537, 2)])
def test_diagonal_hash_collision(tmp_path, lastz_runner, spacing, n_hsps):
    """A segment twice in the target, 65,536 apart: both copies share a hash bucket, and
    only the copy at the higher target position (enumerated first) survives."""
    rng = np.random.default_rng(11)
    t = rng.choice(ACGT, 140_000)
    seg = rng.choice(ACGT, 300)
    t[10_000:10_300] = seg
    t[10_000 + spacing:10_300 + spacing] = seg
    q = np.concatenate([rng.choice(ACGT, 200), seg, rng.choice(ACGT, 200)])
    _write_fasta(tmp_path / "t.fa", "t", t)
    _write_fasta(tmp_path / "q.fa", "q", q)
    mine = run_fastz_hsps(Target(t, np.array([0]), ["t"]), [Rec("q", q)], strand="plus")
    want = lastz_rows(lastz_runner, [str(tmp_path / "t.fa"), str(tmp_path / "q.fa"), "--strand=plus"])
    assert mine == want and len(want) == n_hsps
    f = want[0].split("\t")
    assert int(f[2]) - int(f[6]) == 10_000 + spacing - 200     # on the higher copy's diagonal


@pytest.mark.parametrize("lastz_args, kw", [([], {}), (["--noentropy"], dict(entropy=False))])
def test_entropy_low_complexity(tmp_path, lastz_runner, lastz_args, kw):
    """(AC)20 in random flanks: the entropy adjustment drops the repeat-only HSPs."""
    rng = np.random.default_rng(3)
    rep = np.frombuffer(b"AC" * 20, np.uint8)
    t = np.concatenate([rng.choice(ACGT, 300), rep, rng.choice(ACGT, 300)])
    q = np.concatenate([rng.choice(ACGT, 250), rep, rng.choice(ACGT, 250)])
    _write_fasta(tmp_path / "t.fa", "t", t)
    _write_fasta(tmp_path / "q.fa", "q", q)
    mine = run_fastz_hsps(Target(t, np.array([0]), ["t"]), [Rec("q", q)], **kw)
    want = lastz_rows(lastz_runner, [str(tmp_path / "t.fa"), str(tmp_path / "q.fa"), *lastz_args])
    assert mine == want
    if kw:                                   # --noentropy: HSPs on several offset diagonals
        assert len(want) > 3
    else:                                    # entropy 0.5 halves the repeat-only scores
        assert len(want) == 0


# --- Through fastz's own sequence loaders -------------------------------------------------------


@pytest.mark.parametrize("pair, tsuffix", [("mlc_testdata_pair", "[multiple]"),
                                           ("lastz_pseudocat_vs_pseudopig", "")])
def test_hsps_via_fastz_loaders(shared_pairs, lastz_runner, pair, tsuffix):
    """The buffers fastz.io builds (trailing NUL after a partitioned target, minus strands
    from reverse_complement_sequence) give lastz's HSPs."""
    seqio = pytest.importorskip("fastz.io.sequences")
    from fastz.options import Options
    tpath, qpath = str(shared_pairs / pair / "target.fa") + tsuffix, str(shared_pairs / pair / "query.fa")
    target = seqio.load_target(tpath, Options())
    index = build_index(target.chars, "12of19", 1)
    rows = []
    for query in seqio.iter_queries(qpath, Options()):
        for strand in "+-":
            buf = query if strand == "+" else seqio.reverse_complement_sequence(query)
            h = find_hsps(index, target.chars, buf.chars, "12of19", 1, SS.masked, 910, 3000, True)
            for p1, p2, n, s in h.tolist():
                if target.partitions is not None:
                    k = int(target.partitions.locate(p1))
                    name1, p1 = target.partitions.names[k], p1 - int(target.partitions.offset[k])
                else:
                    name1 = target.name
                rows.append(f"{s}\t{name1}\t{p1}\t{p1 + n}\t{query.name}\t{strand}\t{p2}\t{p2 + n}")
    assert rows == lastz_rows(lastz_runner, [tpath, qpath])


def test_self_comparison_drops_hits_below_diagonal(tmp_path, lastz_runner):
    """--self: hits on or below the main diagonal are not searched (LASTZ then prints each
    HSP and its mirror image, rebuilt here)."""
    rng = np.random.default_rng(7)
    seg, seg2 = rng.choice(ACGT, 400), rng.choice(ACGT, 300)
    t = np.concatenate([rng.choice(ACGT, 1000), seg, rng.choice(ACGT, 700), revcomp(seg),
                        rng.choice(ACGT, 500), seg, seg2, rng.choice(ACGT, 100), revcomp(seg2),
                        rng.choice(ACGT, 300)])
    _write_fasta(tmp_path / "s.fa", "s", t)
    index = build_index(t, "12of19", 1)
    n, rows = len(t), []
    for strand in "+-":
        q = t if strand == "+" else revcomp(t)
        h = find_hsps(index, t, q, None, 1, SS.masked, 910, 3000, True, self_strand=strand)
        for p1, p2, L, s in h.tolist():
            rows.append(f"{s}\ts\t{p1}\t{p1 + L}\ts\t{strand}\t{p2}\t{p2 + L}")
            if strand == "+":
                m1, m2 = p2, p1
            else:
                m1, m2 = n - p2 - L, n - p1 - L
                if (m1, m2) == (p1, p2):
                    continue
            rows.append(f"{s}\ts\t{m1}\t{m1 + L}\ts\t{strand}\t{m2}\t{m2 + L}")
    want = lastz_rows(lastz_runner, [str(tmp_path / "s.fa"), "--self"])
    assert rows == want and len(want) == 8


def test_prefetch_is_a_harmless_hint():
    """The prefetch intrinsic compiles to LLVM's prefetch, never faults (an address far
    outside the array is only a hint), and the seed search really issues it."""
    from numba import njit

    from fastz.kernels import filtering
    from fastz.kernels.prefetch import prefetch

    @njit
    def hint_then_sum(a, far):
        prefetch(a, far)
        prefetch(a, -far)
        return a.sum()

    a = np.arange(10, dtype=np.int64)
    assert hint_then_sum(a, 1 << 40) == 45
    assert "@llvm.prefetch" in hint_then_sum.inspect_llvm(hint_then_sum.signatures[0])
    # the search kernel, compiled afresh (a kernel loaded from numba's cache has no IR)
    if not filtering.search_strand.signatures:
        t = np.frombuffer(b"ACGTACGTTGCAACGTAGCTAGCTAGGATCCAGT" * 4 + b"\0", np.uint8)
        find_hsps(build_index(t, parse_seed("12of19")), t, t, masked_sub=SS.masked)
    fresh = njit(filtering.search_strand.py_func)
    sig = filtering.search_strand.signatures[0]
    fresh.compile(sig)
    assert "@llvm.prefetch" in fresh.inspect_llvm(sig)


def test_diagonal_hash_width_does_not_change_the_hsps():
    """The diagonal hash is int32 unless a query strand's positions need int64
    (``diag_hash``); both widths give the same HSPs, in the same order."""
    from fastz.kernels import filtering
    from fastz.kernels.seeding import char_codes

    assert filtering.diag_hash(10_000).dtype == np.int32
    assert filtering.diag_hash(2**31 - 1).dtype == np.int64
    rng = np.random.default_rng(7)
    t = rng.choice(ACGT, 60_000)
    # the query: 30 pieces of the target with 10 % substitutions between random spacers
    pieces = []
    for start in rng.integers(0, 59_000, 30):
        piece = t[start:start + 600].copy()
        sub = rng.random(piece.shape[0]) < 0.1
        piece[sub] = rng.choice(ACGT, int(sub.sum()))
        pieces += [piece, rng.choice(ACGT, 300)]
    q = np.concatenate(pieces)
    t, q = np.append(t, 0).astype(np.uint8), np.append(q, 0).astype(np.uint8)
    index = build_index(t, parse_seed("12of19"))
    s = index.spec
    args = (index.dir_, index.low, index.pos, index.low_bits, s.length, s.care_off,
            s.care_bits, s.flips, s.resolve_off, 1, t, q, char_codes(q),
            t.shape[0] - 1, q.shape[0] - 1, SS.masked, 910, 3000, 3000, 9000,
            filtering.MODE_XDROP)
    rows32, raw32 = filtering.search_strand(*args, filtering.diag_hash(q.shape[0]))
    rows64, raw64 = filtering.search_strand(*args, np.zeros(filtering.DIAG_HASH_SIZE, np.int64))
    assert rows32.shape[0] > 10 and raw32 == raw64
    assert np.array_equal(rows32, rows64)


# --- The search in blocks, and in parts (threads) --------------------------------------------

# (seed, transitions, gfextend, gapped, self strand): x-drop, --nogfextend (diagonal filter
# only), --nogfextend --nogapped (every hit), two transitions, --self on both strands, and
# an overweight seed (hits checked against the target's bytes)
PART_CASES = [
    ("12of19", 1, True, True, None),
    ("12of19", 0, False, True, None),
    ("14of22", 2, False, False, None),
    ("12of19", 2, True, True, None),
    ("12of19", 1, True, True, "+"),
    ("12of19", 1, True, True, "-"),
    ("match15", 1, True, True, None),
]


def _part_case(case, shared_pairs):
    """(index, target, query strands) of a PART_CASES case on hpylori."""
    seed, trans, gf, gp, self_strand = case
    p = shared_pairs / "hpylori_26695_vs_J99_Eslice"
    t = read_fasta(p / "target.fa")[0].chars
    q = read_fasta(p / "query.fa")[0].chars
    index = build_index(t, seed, 1)
    strands = ([t if self_strand == "+" else revcomp(t)] if self_strand else [q, revcomp(q)])
    return index, t, strands


@pytest.mark.parametrize("case", PART_CASES, ids=lambda c: "-".join(map(str, c)))
def test_search_in_blocks_equals_one_block(case, shared_pairs):
    """The search enumerates and processes its hits a block at a time; blocks of any
    size (down to one hit: a block ends at a query position's end) give the rows and
    raw-hit count of one block over the whole strand, with and without an early stop
    (--queryhsplimit's keep rule, which stops at a query position's end too)."""
    from fastz.kernels import filtering as kfilt
    from fastz.kernels.seeding import char_codes
    from fastz.pipeline import filtering as pfilt
    seed, trans, gf, gp, self_strand = case
    index, t, strands = _part_case(case, shared_pairs)
    s = index.spec
    mode = kfilt.MODE_XDROP if gf else kfilt.MODE_NOEXTEND if gp else kfilt.MODE_PLAIN
    ent = (3000, 9000) if gf else (1, 0)
    self_mode = {None: 0, "+": 1, "-": 2}[self_strand]
    assert s.resolve_off.shape[0] > 0 or seed != "match15"
    for qs in strands:
        len1, len2 = pfilt._strand_length(t), pfilt._strand_length(qs)
        args = (index.dir_, index.low, index.pos, index.low_bits, s.length, s.care_off,
                s.care_bits, s.flips, s.resolve_off, 0 if s.halfweight else trans, t, qs,
                char_codes(qs), len1, len2, SS.masked, 910, 3000, *ent, mode)
        for stop in (-1, 0, 40):
            def search(block):
                return kfilt.search_strand(*args, kfilt.diag_hash(len2), self_mode, stop,
                                           block)
            want, raw = search(1 << 40)
            assert want.shape[0] > 0
            for block in (1, 97, 5000):
                got, got_raw = search(block)
                assert got_raw == raw and np.array_equal(got, want), (stop, block)


def test_reported_rows_do_not_count_toward_a_stop(shared_pairs):
    """--entropy=report keeps the HSPs the entropy adjustment drops as marked rows; a
    search that stops on a count (--queryhsplimit) counts HSPs only, as LASTZ's
    searchToGo: its HSPs are those of the unreported search with the same stop, in any
    block size, and the marked rows lie among them."""
    from fastz.kernels import filtering as kfilt
    from fastz.kernels.seeding import char_codes
    from fastz.pipeline import filtering as pfilt
    index, t, strands = _part_case(("12of19", 1, True, True, None), shared_pairs)
    s = index.spec
    failed = 0
    for qs in strands:
        len1, len2 = pfilt._strand_length(t), pfilt._strand_length(qs)
        args = (index.dir_, index.low, index.pos, index.low_bits, s.length, s.care_off,
                s.care_bits, s.flips, s.resolve_off, 1, t, qs, char_codes(qs), len1, len2,
                SS.masked, 910, 3000, 3000, 9000, kfilt.MODE_XDROP)
        for stop in (-1, 0, 3, 40):
            want, _ = kfilt.search_strand(*args, kfilt.diag_hash(len2), 0, stop)
            for block in (1, 97, 1 << 40):
                got, _ = kfilt.search_strand(*args, kfilt.diag_hash(len2), 0, stop, block,
                                             0, kfilt.NO_LIMIT, 0, kfilt.NO_LIMIT, 1)
                marked = got[:, 2] < 0
                assert np.array_equal(got[~marked], want), (stop, block)
                failed += int(marked.sum())
    assert failed > 0


@pytest.mark.parametrize("which", ["simple", "recover", "twins", "filter"])
def test_general_kernel_reports_without_changing_its_rows(which, shared_pairs):
    """The general kernel's --entropy=report rows (the other seed-hit processors): its
    HSPs are those of the unreported search, with or without a stop (which counts HSPs
    only), the marked rows lie among them in search order, each the default kernel's
    marked row where the processor is the default one, and a twin search's shortfall
    says how many rows came before it."""
    from dataclasses import replace

    from fastz.kernels import filtering as kfilt
    from fastz.kernels import hitproc as khit
    from fastz.kernels.seeding import char_codes
    from fastz.pipeline import filtering as pfilt
    index, t, strands = _part_case(("12of19", 1, True, True, None), shared_pairs)
    hp = pfilt.default_processor(True, True)
    hp = {"simple": hp, "recover": replace(hp, proc=khit.PROC_RECOVER),
          "twins": replace(hp, proc=khit.PROC_TWIN, twin_min=38, twin_max=200,
                           queue_size=400),
          "filter": replace(hp, min_matches=10)}[which]
    failed = 0
    for qs in strands:
        len1, len2 = pfilt._strand_length(t), pfilt._strand_length(qs)
        stops = (-1,) if which == "twins" else (-1, 0, 3, 40)
        for stop in stops:
            def search(report):
                return pfilt.general_search(index, t, qs, char_codes(qs), len1, len2,
                                            SS.masked, 1, 910, 3000, True, hp,
                                            stop_after=stop, report=report)
            want, raw, short = search(False)
            got, got_raw, got_short = search(True)
            marked = got[:, 2] < 0
            assert np.array_equal(got[~marked], want) and got_raw == raw, (which, stop)
            failed += int(marked.sum())
            assert tuple(got_short[:2]) == tuple(short[:2])
            if got_short[0] >= 0:
                assert 0 <= got_short[2] <= got.shape[0] and short[2] == -1
            if which == "simple":
                args = (index.dir_, index.low, index.pos, index.low_bits, index.spec.length,
                        index.spec.care_off, index.spec.care_bits, index.spec.flips,
                        index.spec.resolve_off, 1, t, qs, char_codes(qs), len1, len2,
                        SS.masked, 910, 3000, 3000, 9000, kfilt.MODE_XDROP)
                rows, _ = kfilt.search_strand(*args, kfilt.diag_hash(len2), 0, stop,
                                              kfilt.BLOCK_HITS, 0, kfilt.NO_LIMIT, 0,
                                              kfilt.NO_LIMIT, 1)
                assert np.array_equal(rows, got), stop
    assert failed > 0


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("block", [1 << 40, 5000])
def test_hits_gathered_in_any_buffers(parts, block, shared_pairs):
    """``enumerate_hits`` gathers a block's hits (and groups them by range) in buffers
    the caller keeps, growing them between calls of its gathering loop where a query
    position's hits might not fit: buffers of one row, which grow again and again, a
    fresh ``new_hits`` pair, and the grown pair passed back in (reused as it is) give
    the same hits, ranges and stop."""
    from fastz.kernels import filtering as kfilt
    from fastz.kernels.seeding import char_codes
    index, t, strands = _part_case(("12of19", 1, True, True, None), shared_pairs)
    s = index.spec
    for qs in strands:
        def enumerate_from(hits, spare):
            return kfilt.enumerate_hits(
                index.dir_, index.low, index.pos, index.low_bits, s.length, s.care_off,
                s.care_bits, s.flips, s.resolve_off, 1, t, qs, char_codes(qs), qs.shape[0],
                0, s.length - 1, qs.shape[0], parts, block, 0, kfilt.NO_LIMIT, hits, spare)
        want, bounds, stop, hits, spare = enumerate_from(kfilt.new_hits(), kfilt.new_hits())
        assert want.shape[0] > 1 << 16 if block > 5000 else want.shape[0] >= 5000
        assert hits.shape[0] > 1 << 16 or block == 5000
        want = want.copy()
        tiny = np.empty((1, 3), np.int64)
        for again in (enumerate_from(tiny, tiny.copy()), enumerate_from(hits, spare)):
            got, got_bounds, got_stop = again[:3]
            assert got_stop == stop and np.array_equal(got_bounds, bounds)
            assert np.array_equal(got, want)
        # the grown buffers came back: the hits are in them
        assert np.shares_memory(again[3], hits)
        assert parts == 1 or np.shares_memory(again[4], spare)


@pytest.mark.parametrize("case", PART_CASES, ids=lambda c: "-".join(map(str, c)))
def test_search_in_parts_equals_one_search(case, shared_pairs, monkeypatch):
    """Any number of bucket ranges searched at once gives the single search's rows, in
    its order, and its raw-hit count, on both strands of a real pair (whose diagonals
    collide in the 65,536-bucket hash: a range keeps a bucket's hits together); also
    with small blocks, some of which fill their batch of hits and stop early (the
    round then ends with that block and the next round starts where it stopped), and
    with a thread count that changes from round to round (``cores``: the ranges of
    one round are not those of the last, the diagonal hash carries over)."""
    from fastz.kernels import filtering as kfilt
    from fastz.pipeline import filtering as pfilt
    seed, trans, gf, gp, self_strand = case
    index, t, strands = _part_case(case, shared_pairs)
    monkeypatch.setattr(pfilt, "PARTS_MIN_QUERY", 0)
    for qs in strands:
        runs = []
        for threads, block, batch, now in ((1, None, None, None), (2, None, None, None),
                                           (3, 20_000, 1 << 20, None),
                                           (7, 20_000, 1 << 20, None),
                                           (2, 20_000, 9_000, None), (3, 1_000, 700, None),
                                           (4, 20_000, 9_000, [1, 3, 2, 4, 1, 1, 5]),
                                           (6, 3_000, 2_000, [2, 1, 6, 3])):
            if block:
                monkeypatch.setattr(pfilt, "BLOCK_POSITIONS", block)
                monkeypatch.setattr(kfilt, "BLOCK_HITS", batch)
            rounds = iter(now * 1000) if now else None
            st = {}
            h = find_hsps(index, t, qs, None, trans, SS.masked, 910, 3000, True, gfextend=gf,
                          gapped=gp, self_strand=self_strand, stats=st, threads=threads,
                          cores=rounds.__next__ if rounds else None)
            assert st.get("seed_parts", 1) == (min(threads, max(now)) if now else threads)
            runs.append((h, st["raw_hits"]))
        (want, raw), rest = runs[0], runs[1:]
        assert want.shape[0] > 5
        for got, got_raw in rest:
            assert got_raw == raw
            assert got.dtype == want.dtype and np.array_equal(got, want)


def test_search_in_parts_only_where_it_pays(monkeypatch):
    """Short strands, and --queryhsplimit's early stop, keep the single search."""
    from fastz.pipeline import filtering as pfilt
    rng = np.random.default_rng(3)
    t = np.append(rng.choice(ACGT, 5000), 0).astype(np.uint8)
    q = np.append(t[:4000], 0).astype(np.uint8)
    index = build_index(t, "12of19", 1)
    for floor, stop, parts in ((1 << 20, -1, None), (0, 5, None), (0, -1, 4)):
        monkeypatch.setattr(pfilt, "PARTS_MIN_QUERY", floor)
        st = {}
        find_hsps(index, t, q, None, 1, SS.masked, 910, 3000, True, stats=st, threads=4,
                  stop_after=stop)
        assert st.get("seed_parts") == parts


_NO_REFCOUNT_CHECK = """
import sys
from numba import types
from numba.core.registry import CPUDispatcher
from fastz.lastz_args import parse_lastz_argv
from fastz.pipeline import Aligner

data = sys.argv[1]
found = 0
for extra in ([], ["--nogfextend"], ["--exact=20"]):
    al = Aligner(parse_lastz_argv([data + "/pseudocat.fa", data + "/pseudopig.fa", *extra]))
    found += sum(r.n_alignments() for r in al.results())
assert found > 0

def arrays(ty):
    if isinstance(ty, types.Array):
        return True
    return isinstance(ty, types.BaseTuple) and any(arrays(t) for t in ty.types)

for name, mod in list(sys.modules.items()):
    if name.startswith("fastz.kernels"):
        for obj in list(vars(mod).values()):
            if isinstance(obj, CPUDispatcher) and obj.targetoptions.get("_nrt") is False:
                for sig in obj.nopython_signatures:
                    print(obj.py_func.__qualname__, arrays(sig.return_type))
"""


def test_helpers_without_reference_counts_return_no_arrays(tmp_path):
    """The hot helpers compiled without reference counting (``kernels.norefs``) must
    never return an array: its caller would release it once too often (numba refuses
    a view, not an argument).  Each one a default, a --nogfextend and an --exact run
    compile is checked, compiled afresh (from the numba cache, a callee is never
    typed)."""
    import os
    import subprocess
    import sys
    data = Path(__file__).resolve().parents[1] / "data"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", _NO_REFCOUNT_CHECK, str(data)], env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = dict(line.rsplit(" ", 1) for line in out.stdout.splitlines())
    assert [name for name, returns_array in seen.items() if returns_array == "True"] == []
    # the per-strand (its per-window look-ahead inlined), per-hit and per-row helpers
    # were among them
    assert {"_search_into", "xdrop_hsp", "exact_extend", "sweep_row_vec", "skip_test",
            "lr_update"} <= set(seen), seen


@pytest.mark.parametrize("gf,gp", [(False, False), (True, True)])
def test_general_kernel_resumes_where_its_table_fills(gf, gp, shared_pairs):
    """The general kernel (``hitproc``) with the processor that does what the default
    kernel does gives the default kernel's rows and raw-hit count on both strands of
    a real pair.  Its row table starts at 1,024 rows and the strand's search stops
    before a query position whose hits might not fit, and resumes there in a larger
    table: with every seed hit a row (--nogfextend --nogapped) it does so many times."""
    from fastz.pipeline.filtering import default_processor
    index, t, strands = _part_case(("12of19", 1, gf, gp, None), shared_pairs)
    for qs in strands:
        runs = []
        for processor in (None, default_processor(gf, gp)):
            st = {}
            h = find_hsps(index, t, qs, None, 1, SS.masked, 910, 3000, True, gfextend=gf,
                          gapped=gp, stats=st, processor=processor)
            runs.append((h, st["raw_hits"]))
        (want, raw), (got, got_raw) = runs
        assert got_raw == raw and np.array_equal(got, want)
        if not gf:
            assert want.shape[0] > 16 * 1024
