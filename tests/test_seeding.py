"""Stage 1: seed patterns, the target index and raw seed hits (vs oracles and lastz)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastz.errors import OptionsError
from fastz.kernels import seeding as kseed
from fastz.kernels.reference import reference_hits
from fastz.pipeline.filtering import find_hsps
from fastz.pipeline.seeding import build_index, parse_seed
from fastz.scoring import build_scoreset

from seedharness import lastz_rows, make_target, read_fasta, run_fastz_hsps

SS = build_scoreset()

# --- Seed patterns -----------------------------------------------------------------------


def test_named_seeds_and_pattern_normalisation():
    s = parse_seed("12of19")
    assert s.pattern == "1110100110010101111" and s.length == 19 and s.weight == 24
    assert parse_seed("14of22").weight == 28
    assert parse_seed("match8").pattern == "11111111"
    assert parse_seed("half6").pattern == "TTTTTT" and parse_seed("half6").halfweight
    # leading/trailing don't-cares (0 or x) are dropped, spaces ignored, t == T
    s = parse_seed("00x1 1t0x1x0")
    assert s.pattern == "11T001" and s.length == 6
    assert list(s.care_off) == [5, 4, 3, 0] and list(s.care_bits) == [2, 2, 1, 2]


def test_flip_order_is_rightmost_one_first():
    s = parse_seed("1T01")
    # key = [b0 (2 bits)][T (1 bit)][b3 (2 bits)]; flips toggle each '1''s high bit
    assert list(s.flips) == [1 << 1, 1 << 4]


def test_overweight_demotes_rightmost_ones():
    s = parse_seed("111010011101", word=12)     # 16 bits -> 4 resolved
    assert s.weight == 12 and s.pattern == "1110100TTT0T"
    assert list(s.resolve_off) == [4, 3, 2, 0]
    assert len(s.flips) == 4
    assert not parse_seed("12of19", word=28).overweight
    assert parse_seed("match15").overweight          # 30 bits > 28


@pytest.mark.parametrize("bad", ["", "000", "1102", "1" * 32, "T" * 64])
def test_bad_seeds_raise(bad):
    with pytest.raises(OptionsError):
        parse_seed(bad)


# --- The index ---------------------------------------------------------------------------


def _brute_index(chars, spec, step):
    """key -> window ends (descending), by computing every window's key directly."""
    codes = kseed.char_codes(chars)
    out = {}
    for e in range(spec.length, len(chars) + 1):
        if e % step or (codes[e - spec.length:e] < 0).any():
            continue
        key = 0
        for off, bits in zip(spec.care_off, spec.care_bits):
            c = int(codes[e - 1 - off])
            key = (key << 2) | c if bits == 2 else (key << 1) | (c & 1)
        out.setdefault(key, []).append(e)
    return {k: sorted(v, reverse=True) for k, v in out.items()}


seqs = st.text(alphabet="ACGTACGTACGTacgtNn", min_size=0, max_size=400)


@settings(max_examples=60, deadline=None)
@given(text=seqs, seed=st.sampled_from(["match4", "1T01", "11011", "TTT0T", "12of19", "110101",
                                        "T0T" + "0" * 30 + "TT"]),   # too long to pack
       step=st.integers(1, 5), word=st.sampled_from([28, 4, 6]))
def test_index_matches_brute_force(text, seed, step, word):
    try:
        spec = parse_seed(seed, word)
    except OptionsError:
        return
    chars = np.frombuffer(text.encode(), np.uint8)
    idx = build_index(chars, spec, step)
    want = _brute_index(chars, spec, step)
    assert len(idx) == sum(len(v) for v in want.values())
    for key, ends in want.items():
        assert idx.positions_of(key).tolist() == ends
    assert idx.positions_of((1 << spec.weight) - 1).tolist() == want.get((1 << spec.weight) - 1, [])


@pytest.mark.parametrize("seed", ["12of19", "14of22", "T0TT0T", "11T0111", "1T0101T1"])
def test_packed_window_keys_are_window_keys(seed):
    """The index's rolling packed window gives every window the key ``window_key`` does."""
    spec = parse_seed(seed)
    shift, mask, out = kseed.packed_runs(spec.care_off, spec.care_bits)
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, 300).astype(np.int8)
    packed = 0
    for end in range(1, codes.shape[0] + 1):
        packed = ((packed << 2) | int(codes[end - 1])) & ((1 << 2 * spec.length) - 1)
        if end >= spec.length:
            assert kseed.packed_key(packed, shift, mask, out) == kseed.window_key(
                codes, end, spec.care_off, spec.care_bits)


@pytest.mark.parametrize("seed,step", [("12of19", 1), ("14of22", 3), ("T0TT0T0TTT", 1),
                                       ("T" + "0" * 40 + "TTT", 2)])
def test_threads_build_the_same_index(seed, step):
    """Threads share the passes by bucket range; any count builds the same arrays
    (3 Mb: up to three threads, one a megabase)."""
    rng = np.random.default_rng(11)
    chars = rng.choice(np.frombuffer(b"ACGTACGTacgN", np.uint8), 3_000_000)
    one = build_index(chars, seed, step)
    for threads in (2, 3):
        other = build_index(chars, seed, step, threads=threads)
        assert one.low_bits == other.low_bits
        for name in ("dir_", "pos", "low"):
            assert np.array_equal(getattr(one, name), getattr(other, name)), (threads, name)
    want = _brute_index(chars[:20_000], parse_seed(seed), step)
    head = build_index(chars[:20_000], seed, step, threads=2)
    assert len(head) == sum(len(v) for v in want.values())


def test_index_low_bits_and_directory_buckets():
    rng = np.random.default_rng(5)
    chars = rng.choice(np.frombuffer(b"ACGT", np.uint8), 5000)
    spec = parse_seed("14of22")
    idx = build_index(chars, spec, 1)
    assert idx.low_bits > 0 and idx.pos.dtype == np.int32
    want = _brute_index(chars, spec, 1)
    for key, ends in list(want.items())[:500]:
        assert idx.positions_of(key).tolist() == ends


# --- Raw hits -----------------------------------------------------------------------------


def _random_pair(rng, n, masked=0.05, ns=0.02):
    t = rng.choice(np.frombuffer(b"ACGT", np.uint8), n)
    q = t[rng.integers(0, n // 3): rng.integers(2 * n // 3, n)].copy()
    mut = rng.random(q.shape[0]) < 0.08
    q[mut] = rng.choice(np.frombuffer(b"ACGT", np.uint8), int(mut.sum()))
    for arr in (t, q):
        low = rng.random(arr.shape[0]) < masked
        arr[low] = arr[low] | 0x20
        arr[rng.random(arr.shape[0]) < ns] = ord("N")
    return t, q


@settings(max_examples=40, deadline=None)
@given(seed=st.sampled_from(["match5", "1T011", "110T11", "TTTTTTTT", "11101"]),
       trans=st.integers(0, 2), step=st.integers(1, 3), word=st.sampled_from([28, 8]),
       rs=st.integers(0, 2**31))
def test_plain_hits_match_reference_order(seed, trans, step, word, rs):
    """--nogfextend --nogapped: every seed hit, in LASTZ's order."""
    try:
        spec = parse_seed(seed, word)
    except OptionsError:
        return
    t, q = _random_pair(np.random.default_rng(rs), 300)
    idx = build_index(t, spec, step)
    got = find_hsps(idx, t, q, None, trans, SS.masked, 0, 0, False, gfextend=False, gapped=False)
    want = reference_hits(t, q, parse_seed(seed, 0).pattern, trans, step, word)
    L = spec.length
    assert list(zip((got["pos1"] + L).tolist(), (got["pos2"] + L).tolist())) == want
    assert (got["length"] == L).all() and (got["score"] == 0).all()


# --- Against lastz ----------------------------------------------------------------------------


@pytest.mark.parametrize("lastz_args, kw", [
    # lastz pseudocat.fa pseudopig.fa W=8 T=0 --plus --nogfextend --nogapped  (base_test_hits)
    (["W=8", "T=0", "--plus", "--nogfextend"],
     dict(seed="match8", transition=0, strand="plus", gfextend=False, hspthresh=0, entropy=False)),
    # overweight seed, transitions resolved by direct comparison
    (["--seed=111010011101", "--word=12", "--nogfextend"],
     dict(seed="111010011101", word=12, gfextend=False, hspthresh=0, entropy=False)),
    (["--seed=TTT0T0T0TTT00T0T", "--step=5", "--nogfextend"],
     dict(seed="TTT0T0T0TTT00T0T", transition=0, step=5, gfextend=False, hspthresh=0, entropy=False)),
])
def test_raw_hits_match_lastz(lastz_data, lastz_runner, lastz_args, kw):
    cat, pig = str(lastz_data / "pseudocat.fa"), str(lastz_data / "pseudopig.fa")
    mine = run_fastz_hsps(make_target(read_fasta(cat)), read_fasta(pig), **kw)
    assert mine == lastz_rows(lastz_runner, [cat, pig, *lastz_args])
