"""fastz_D with fractional scores against lastz_D: a scores file, gap penalties, --match
and ambiguity scores with fractions, and ``--infer`` (alignment with the inferred scores).

Such scores make every table float64 and the gapped engine sum doubles in LASTZ's order
(``kernels.scorewords``); whole outputs are compared with lastz_D's on real pairs, in
every output format that prints scores and through the stages that compute them (seed
processors, chaining, interpolation, back-end filters, masking, adaptive thresholds).
"""
from __future__ import annotations

import numpy as np
import pytest

from test_double import _assert_same, _run

# HOXD70 and its gap penalties, each value moved by a fraction
FRACTIONAL = """\
gap_open_penalty = 400.5
gap_extend_penalty = 30.25
        A       C       G       T
A    91.3    -114.7  -31.1   -123.2
C    -114.7  100.5   -125.3  -31.1
G    -31.1   -125.3  100.5   -114.7
T    -123.2  -31.1   -114.7   91.3
"""

# the control files' settings that decide the scoring set lastz_D aligns with: the
# number of rounds (the set it returns alternates), the scale, thresholds as ratios
CONTROLS = {
    "four": "max_sub_iterations=4\n",
    "three": "max_sub_iterations=3\n",
    "unscaled": "inference_scale=none\nhsp_threshold=30\n",
}

CAT = "lastz_pseudocat_vs_pseudopig"       # soft-masked repeats, two query sequences
MITO = "mito_human_orang"

# (pair, words): {frac} is the scores file above, {ctl:NAME} a control file
CASES = [
    (CAT, ("--scores={frac}",)),
    (CAT, ("--scores={frac}", "--format=maf")),
    (CAT, ("--scores={frac}", "--format=axt")),
    (CAT, ("--scores={frac}", "--format=sam")),
    (CAT, ("--scores={frac}", "--format=text")),
    (CAT, ("--scores={frac}", "--format=cigar")),
    (CAT, ("--scores={frac}", "--format=rdotplot+score")),
    (CAT, ("--scores={frac}", "--format=genseg:name1,zstart1,end1,name2,zstart2,end2,score")),
    (CAT, ("--scores={frac}", "--chain", "--format=general")),
    (CAT, ("--scores={frac}", "--nogfextend", "--format=general")),
    (CAT, ("--scores={frac}", "--nogapped", "--format=general")),
    (CAT, ("--scores={frac}", "--noytrim", "--format=general")),
    (CAT, ("--scores={frac}", "--inner=1000", "--format=general")),
    (CAT, ("--scores={frac}", "--twins=5", "--format=general")),
    (CAT, ("--scores={frac}", "--masking=3", "--format=general")),
    (CAT, ("--scores={frac}", "--ambiguous=iupac,2.5,1.5", "--format=general")),
    (CAT, ("--scores={frac}", "--gappedthresh=2000.5", "--ydrop=3000.25", "--format=general")),
    (CAT, ("--scores={frac}", "--hspthresh=top20%", "--format=general")),
    (CAT, ("--gap=350.5,25.75", "--format=general")),
    (CAT, ("--match=2.5,3.75", "--format=general")),      # (ints in lastz_D too: 2, 3)
    (MITO, ("--match=1,1", "--format=general")),           # derived gaps 3.25, 0.24375
    ("mers_ref_vs_46isolates", ("--scores={frac}", "--identity=90", "--format=general")),
    # searches that stop on a count of HSPs, which lastz_D counts after the entropy
    # adjustment (stopped at the kernels' count, fastz_D lost three of lastz_D's
    # alignments with keep,nowarn:8)
    (CAT, ("--scores={frac}", "--queryhsplimit=keep,nowarn:8")),
    (CAT, ("--scores={frac}", "--queryhsplimit=3")),            # (its warnings compared)
    (CAT, ("--scores={frac}", "--queryhsplimit+=warn:5")),
    (CAT, ("--scores={frac}", "--anyornone")),
    (CAT, ("--scores={frac}", "--stopafter=3", "--format=general")),
    (CAT, ("--scores={frac}", "--stopafter=5", "--nogapped")),
    (CAT, ("--scores={frac}", "--twins=5", "--queryhsplimit=keep,nowarn:6")),
    (CAT, ("--scores={frac}", "--nogfextend", "--queryhsplimit=keep,nowarn:40")),
    ("mers_ref_vs_46isolates", ("--scores={frac}", "--queryhsplimit=keep,nowarn:2")),
    (MITO, ("--match=1,1", "--queryhsplimit=keep,nowarn:3")),
    ("mlc_testdata_pair", ("--scores={frac}", "--format=general")),
    # --infer: the scoring file on stdout, then the alignments with those scores
    (MITO, ("--infer",)),
    (MITO, ("--infer", "--format=maf")),
    (CAT, ("--infer",)),
    (CAT, ("--infer={ctl:four}", "--format=general")),
    (CAT, ("--infer={ctl:three}", "--format=general")),
    ("dengue1_vs_dengue2", ("--infer={ctl:unscaled}", "--format=general")),
    ("mers_ref_vs_46isolates", ("--infer", "--format=general")),
]


def _words(words, tmp_path):
    out = []
    for w in words:
        if "{frac}" in w:
            path = tmp_path / "fractional.scores"
            path.write_text(FRACTIONAL)
            w = w.replace("{frac}", str(path))
        if "{ctl:" in w:
            name = w.split("{ctl:")[1].rstrip("}")
            path = tmp_path / f"{name}.ctl"
            path.write_text(CONTROLS[name])
            w = w.split("{ctl:")[0] + str(path)
        out.append(w)
    return out


@pytest.mark.parametrize("pair,words", [pytest.param(p, w, id=f"{p}-{'_'.join(w)}")
                                        for p, w in CASES])
def test_fractional_scores_match_lastz_D(pair, words, shared_pairs, tmp_path):
    target = "target.fa[multiple]" if pair == "mlc_testdata_pair" else "target.fa"
    _assert_same([target, "query.fa", *_words(words, tmp_path)], shared_pairs / pair)


def test_whole_number_doubles_take_the_integer_tables():
    """lastz_D's tables are built as doubles; when every value is whole they go to the
    integer kernels (exact sums: nothing changes), a fraction anywhere keeps them
    float64 and the penalties floats."""
    from fastz.options import Options
    from fastz.scoring import score_type, scoreset_from_options
    with score_type("D"):
        whole = scoreset_from_options(Options(target="t", query="q", double_scores=True))
        frac = scoreset_from_options(Options(target="t", query="q", double_scores=True,
                                             gap_open=400.5))
    assert whole.sub.dtype == np.int32 and whole.masked.dtype == np.int32
    assert type(whole.gap_open) is int and whole.aa == 91
    assert frac.sub.dtype == np.float64 and frac.masked.dtype == np.float64
    assert frac.gap_open == 400.5 and isinstance(frac.gap_extend, float)
    assert np.array_equal(frac.sub, whole.sub) and np.array_equal(frac.masked, whole.masked)


def test_score_words_round_trip():
    """Scores in the engine's int64 tables (``kernels.scorewords``): the Python and the
    compiled conversions agree, and a double keeps every bit."""
    from numba import njit

    from fastz.kernels.scorewords import from_word, to_word
    fsub, isub = np.zeros((2, 2)), np.zeros((2, 2), np.int32)

    @njit
    def both(v, sub):
        w = to_word(v)
        return w, from_word(w, sub)

    for v in (0.0, -0.0, 1234.5678, -3.4028234663852886e38, 0.1 + 0.2, 5e-324):
        w, back = both(v, fsub)
        assert w == to_word(v) and from_word(w, fsub) == v and back == v
        assert np.float64(back).tobytes() == np.float64(v).tobytes()
    for v in (0, -2147483648, 123456789):
        assert both(v, isub) == (v, v) and to_word(v) == v and from_word(v, isub) == v


def test_fractional_scores_on_the_device_are_refused(shared_pairs, tmp_path):
    """Refused in one line, naming the option, with nothing on stdout: the device
    kernels score in integers."""
    res = _run("fastz_D", ["target.fa", "query.fa", *_words(["--scores={frac}"], tmp_path),
                           "--backend=gpu"], shared_pairs / CAT)
    err = res.stderr.decode()
    assert res.returncode == 1 and err.count("\n") == 1, err
    assert "fractional scores with --backend=gpu" in err and res.stdout == b""


@pytest.mark.parametrize("where", ["--output", "--infscores"])
def test_infer_scores_and_alignments_go_where_lastz_D_puts_them(where, shared_pairs,
                                                                 tmp_path):
    """--infer: the scoring file on stdout and the alignments in --output's file; or the
    scoring file in --infscores' and the alignments on stdout."""
    from conftest import drop_version
    cwd = shared_pairs / MITO
    got = {}
    for program in ("lastz_D", "fastz_D"):
        path = tmp_path / f"{program}.out"
        res = _run(program, ["target.fa", "query.fa", "--infer", "--format=general",
                             f"{where}={path}"], cwd)
        assert res.returncode == 0, res.stderr.decode()[-300:]
        got[program] = (drop_version(res.stdout), drop_version(path.read_bytes()))
    assert got["fastz_D"] == got["lastz_D"]
    scores, alignments = got["lastz_D"] if where == "--output" else got["lastz_D"][::-1]
    assert scores.startswith(b"# (a LASTZ scoring set") and alignments.startswith(b"#score")


def _peak_lastz_order(t, q, p1, p2, n, table, leave_first=True):
    """segment_peak as lastz_D computes it: the column leaving subtracted, then the one
    entering added, in doubles (``leave_first=False``: their difference added in one
    step, the order fastz once used)."""
    w = 31
    if n <= w:
        return n // 2
    s = 0.0
    for k in range(w):
        s += float(table[t[p1 + k], q[p2 + k]])
    best, peak = s, w // 2
    for k in range(w, n):
        old = float(table[t[p1 + k - w], q[p2 + k - w]])
        new = float(table[t[p1 + k], q[p2 + k]])
        if leave_first:
            s -= old
            s += new
        else:
            s += new - old
        if s > best:
            best, peak = s, k - w // 2
    return peak


def test_anchor_peaks_sum_doubles_in_lastz_order():
    """The anchor inside an HSP is the centre of its best 31-column window; with
    fractional scores the running window sum must round as lastz_D's does (one E. coli
    alignment in 4,048 moved its anchor, and with it its gaps, when fastz added the
    difference of the two columns in one step).  Sequences over two letters make equal
    windows common, where the rounding decides."""
    from fastz.kernels.filtering import segment_peaks
    from fastz.scoring import score_type, scoreset_from_options
    from fastz.options import Options
    rng = np.random.default_rng(11)
    with score_type("D"):
        table = scoreset_from_options(Options(target="t", query="q", double_scores=True,
                                              gap_open=400.5)).sub.copy()
    ac = np.frombuffer(b"AC", np.uint8)
    table[np.ix_(ac, ac)] = [[91.3, -114.7], [-114.7, 100.1]]
    n, length = 400, 300
    t = ac[rng.integers(0, 2, length * n)]
    q = np.where(rng.random(t.size) < 0.1, ac[rng.integers(0, 2, t.size)], t)
    pos = np.arange(n, dtype=np.int64) * length
    lengths = np.full(n, length, np.int64)
    got = segment_peaks(t, q, pos, pos, lengths, table)
    want = [_peak_lastz_order(t, q, p, p, length, table) for p in pos.tolist()]
    other = [_peak_lastz_order(t, q, p, p, length, table, False) for p in pos.tolist()]
    assert got.tolist() == want
    assert want != other, "no window where the order matters: the test tests nothing"
