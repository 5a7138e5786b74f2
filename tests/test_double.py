"""fastz_D against lastz_D: LASTZ's double-score build (Debian ships it as /usr/bin/lastz_D).

lastz_D keeps the fraction of every entropy-adjusted HSP score (lastz truncates it), takes
fractional thresholds, drops and chain penalties, and prints scores as %le / %lf.  The
whole outputs of ``lastz_D`` and ``python -m fastz.double`` (the ``fastz_D`` command) must
be equal; the kernels that compute the double scores are checked against the reference.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from conftest import drop_version
from parity_cases import fastz_env

LASTZ_D = shutil.which("lastz_D")

# (pair, words): the pair's target.fa and query.fa ([multiple] for mlc_testdata_pair)
# a search stopped on a count of HSPs, with a fractional threshold that the kernels
# round down: an HSP scoring 7549 passes theirs, not lastz_D's, and is not counted
# (counted, fastz_D stopped one HSP early and missed lastz_D's "exceeded" line)
_STOP_7549 = ("--nogapped", "--noentropy", "--hspthresh=7549.5",
             "--format=general:score,zstart1,zstart2")

CASES = [
    ("mito_human_orang", ()),
    ("mito_human_orang", (*_STOP_7549, "--stopafter=5")),
    ("mito_human_orang", (*_STOP_7549, "--queryhsplimit=keep,nowarn:6")),
    ("mito_human_orang", (*_STOP_7549, "--recoverseeds", "--stopafter=3")),
    ("mito_human_orang", ("--noentropy", "--hspthresh=7549.5", "--queryhsplimit=3")),
    ("mito_human_orang", ("--format=lav+",)),
    ("mito_human_orang", ("--nogapped",)),                       # fractional HSP scores
    ("mito_human_orang", ("--nogapped", "--format=lavscore")),
    ("mito_human_mouse", ("--nogapped", "--format=segments")),
    ("mito_human_orang", ("--format=maf",)),
    ("mito_human_orang", ("--format=axt",)),
    ("mito_human_orang", ("--format=cigar",)),
    ("mito_human_orang", ("--format=text",)),
    ("mito_human_orang", ("--format=gfa",)),
    ("mito_human_orang", ("--format=blastn",)),                 # bit score, e-value
    ("mito_human_orang", ("--format=paf",)),                    # AS:i: with %le
    ("mito_human_orang", ("--show=defaults", "--format=axt")),
    ("mito_human_orang", ("--twins=10..50", "--nogapped", "--format=general")),
    ("mito_human_orang", ("--exact=20", "--nogapped", "--format=general")),
    ("mito_human_orang", ("--nogfextend", "--format=general")),
    ("mito_human_orang", ("--inner=1000", "--format=general")),
    ("mito_human_mouse", ("--chain", "--format=general")),
    ("mito_human_mouse", ("--chain=100.5,20.25", "--format=general")),
    ("mito_human_mouse", ("--hspthresh=2500.5", "--nogapped", "--format=general")),
    ("mito_human_mouse", ("--xdrop=500.7", "--nogapped", "--format=general")),
    ("mito_human_mouse", ("--ydrop=3000.5", "--format=general")),
    ("mito_human_mouse", ("--gappedthresh=4000.5", "--format=general")),
    ("dengue1_vs_dengue2", ("--match=1,5", "--gap=6,1", "--format=general")),  # X = 22.36
    ("human_vs_mouse_cgp", ("--nogapped", "--format=general")),
    ("human_vs_mouse_cgp", ("--format=general",)),
    ("mlc_testdata_pair", ("--nogapped", "--format=general")),
    ("hpylori_26695_vs_J99_Eslice", ("--nogapped", "--chain", "--format=general")),
    ("mers_ref_vs_46isolates", ("--nogapped", "--format=general")),
    # adaptive thresholds and --queryhspbest: the table orders the double scores
    ("mito_human_mouse", ("--hspthresh=top50", "--nogapped", "--format=general")),
    ("human_vs_mouse_cgp", ("--hspthresh=top3000", "--nogapped", "--format=general")),
    ("human_vs_mouse_cgp", ("--hspthresh=top20%", "--format=general")),
    ("mers_ref_vs_46isolates", ("--queryhspbest=3", "--nogapped", "--format=general")),
    ("mers_ref_vs_46isolates", ("--hspthresh=top2%", "--gappedthresh=top1%",
                                "--format=general")),
    ("mlc_testdata_pair", ("--hspthresh=top10%", "--nogapped", "--format=general")),
    ("mito_human_orang", ("--self", "--nogapped", "--format=general:name1,zstart1,end1,"
                          "name2,strand2,zstart2+,end2+,score")),
]


def _argv(program: str) -> list[str]:
    if program == "lastz_D":
        if LASTZ_D is None:
            pytest.fail("lastz_D is not installed (apt-get install lastz): "
                        "fastz_D cannot be compared with it")
        return [LASTZ_D]
    return [sys.executable, "-m", "fastz.double"]


def _run(program: str, words, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*_argv(program), *words], cwd=cwd, capture_output=True,
                          timeout=900, env=fastz_env())


def _ends(pair: str, words) -> list[str]:
    target = "target.fa[multiple]" if pair == "mlc_testdata_pair" else "target.fa"
    return [target] if "--self" in words else [target, "query.fa"]


def _assert_same(words, cwd: Path) -> None:
    # lastz_D runs in a thread while fastz_D runs here (two cores)
    with ThreadPoolExecutor(max_workers=1) as pool:
        want_job = pool.submit(_run, "lastz_D", words, cwd)
        got = _run("fastz_D", words, cwd)
        want = want_job.result()
    assert want.returncode == 0, want.stderr.decode()[-500:]
    assert got.returncode == 0, f"fastz_D failed: {got.stderr.decode()[-500:]}"
    assert want.stdout, "lastz_D printed nothing: the case would test nothing"
    a, b = drop_version(want.stdout).splitlines(), drop_version(got.stdout).splitlines()
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    assert a == b, (f"first difference at line {first + 1} (lastz_D {len(a)} lines, fastz_D "
                    f"{len(b)}):\nlastz_D: {a[first:first + 2]}\nfastz_D: {b[first:first + 2]}")
    assert drop_version(got.stderr) == drop_version(want.stderr)


@pytest.mark.parametrize("pair,words", [pytest.param(p, w, id=f"{p}-{'_'.join(w) or 'default'}")
                                        for p, w in CASES])
def test_fastz_D_matches_lastz_D(pair, words, shared_pairs):
    _assert_same([*_ends(pair, words), *words], shared_pairs / pair)


def test_segments_file_with_fractional_scores(shared_pairs, tmp_path):
    """A --segments file written by lastz_D holds fractional scores (%le); fastz_D reads
    them as doubles, which order the anchors."""
    cwd = shared_pairs / "mito_human_mouse"
    res = _run("lastz_D", ["target.fa", "query.fa", "--nogapped", "--format=segments"], cwd)
    assert res.returncode == 0, res.stderr.decode()[-300:]
    segs = tmp_path / "hsps.segments"
    segs.write_bytes(res.stdout)
    scores = [float(line.split()[7]) for line in res.stdout.decode().splitlines()
              if line and not line.startswith("#")]
    assert any(not s.is_integer() for s in scores), "no fractional score: nothing is tested"
    _assert_same(["target.fa", "query.fa", f"--segments={segs}", "--format=general"], cwd)


SCORES_FILE = """\
hsp_threshold = 2500.5
gapped_threshold = 3000.25
x_drop = 800.5
y_drop = 5000.75
     A     C     G     T
A   91  -114   -31  -123
C -114   100  -125   -31
G  -31  -125   100  -114
T -123   -31  -114    91
"""


@pytest.mark.parametrize("words", [("--format=general",), ("--nogapped", "--format=general"),
                                   ("--show=defaults", "--format=axt")])
def test_scores_file_with_fractional_settings(words, shared_pairs, tmp_path):
    """A scores file's thresholds and drops are doubles under lastz_D."""
    scores = tmp_path / "fractions.scores"
    scores.write_text(SCORES_FILE)
    _assert_same(["target.fa", "query.fa", f"--scores={scores}", *words],
                 shared_pairs / "mito_human_mouse")


def test_inference_needs_the_double_build(shared_pairs):
    """lastz refuses --infer (integer scores) and names lastz_D; so does fastz, naming
    fastz_D (which infers and aligns: ``tests/test_fractional.py``)."""
    argv = [sys.executable, "-m", "fastz", "target.fa", "query.fa", "--infer"]
    res = subprocess.run(argv, cwd=shared_pairs / "mito_human_orang", capture_output=True,
                         timeout=300, env=fastz_env())
    err = res.stderr.decode()
    assert res.returncode == 1 and err.count("\n") == 1 and "use lastz_D (fastz_D)" in err, err


def test_double_score_parsing():
    from fastz.errors import OptionsError
    from fastz.scoring import score_type, string_to_score
    assert string_to_score("3k") == 3000 and string_to_score("2500.5") == 2501
    with score_type("D"):
        assert string_to_score("2500.5") == 2500.5
        assert string_to_score("3e3") == 3000 and isinstance(string_to_score("3e3"), int)
        with pytest.raises(OptionsError, match="not a number"):
            string_to_score("3k")                  # lastz_D takes no K/M/G suffix
    assert string_to_score("3k") == 3000           # (the score type is restored)


def test_version_names_the_build():
    import io
    from contextlib import redirect_stdout

    from fastz.cli import main, main_D
    for fn, want in ((main, "drop-in for lastz 1"), (main_D, "drop-in for lastz_D 1")):
        buf = io.StringIO()
        with redirect_stdout(buf):
            assert fn(["--version"]) == 0
        assert want in buf.getvalue()


def test_score_formats():
    from fastz.scoring import score_plain, score_text
    assert (score_text(5643, False), score_plain(5643, False)) == ("5643", "5643")
    assert (score_text(5643, True), score_plain(5643, True)) == ("5.643000e+03", "5643.000000")
    assert score_text(81368.54, True) == "8.136854e+04"


# --- the double-score kernels against their references -----------------------------------

def _random_pair(rng, n):
    alphabet = np.frombuffer(b"ACGTACGTACGTACGTACGTACGTACGTN", np.uint8)
    t = rng.choice(alphabet, n).astype(np.uint8)
    q = t.copy()
    flip = rng.random(n) < 0.25
    q[flip] = rng.choice(alphabet, int(flip.sum()))
    return t, q


def test_double_hsp_scores_match_the_reference():
    from fastz.kernels.filtering import double_hsp_scores
    from fastz.kernels.reference import reference_double_score
    from fastz.scoring import build_scoreset
    table = build_scoreset().masked
    rng = np.random.default_rng(7)
    t, q = _random_pair(rng, 4000)
    k = 300
    length = rng.integers(1, 200, k).astype(np.int64)
    pos1 = rng.integers(0, 3800, k).astype(np.int64)
    pos2 = pos1.copy()
    fractions = 0
    for thresh in (3000, 0, 1500.5):
        for entropy in (True, False):
            ent = (max(0.0, thresh), 3.0 * thresh) if entropy else (1.0, 0.0)
            got = double_hsp_scores(t, q, pos1, pos2, length, table, *ent)
            want = [reference_double_score(t, q, a, b, n, table, thresh, entropy)
                    for a, b, n in zip(pos1.tolist(), pos2.tolist(), length.tolist())]
            assert got.tolist() == want
            fractions += sum(not x.is_integer() for x in want)
    assert fractions, "no fraction: nothing is tested"


def test_double_hsps_truncate_to_lastz_scores(shared_pairs):
    """The same search with double scores gives the same HSPs, and each double score
    truncates to lastz's integer score (C's ``int *= double``)."""
    from seedharness import read_fasta

    from fastz.options import SEED_12OF19
    from fastz.pipeline.filtering import find_hsps
    from fastz.pipeline.seeding import build_index
    from fastz.scoring import build_scoreset
    d = shared_pairs / "mito_human_mouse"
    t = read_fasta(d / "target.fa")[0].chars
    q = read_fasta(d / "query.fa")[0].chars
    masked = build_scoreset().masked
    index = build_index(t, SEED_12OF19, 1)
    ints = find_hsps(index, t, q, None, 1, masked)
    doubles = find_hsps(index, t, q, None, 1, masked, double=True)
    assert doubles.dtype["score"] == np.float64 and ints.shape[0] > 5
    for name in ("pos1", "pos2", "length"):
        assert doubles[name].tolist() == ints[name].tolist()
    assert doubles["score"].astype(np.int64).tolist() == ints["score"].tolist()
    assert (doubles["score"] != ints["score"]).any(), "no fraction: nothing is tested"


def test_chain_double_arithmetic_agrees_on_whole_numbers():
    """lastz_D's chaining (doubles, no 32-bit products) picks the same chain as lastz's
    when every score and penalty is a whole number that fits 32 bits."""
    from fastz.kernels.chain import reduce_to_chain
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = 60
        pos1 = np.sort(rng.integers(0, 5000, n)).astype(np.int64)
        pos2 = rng.integers(0, 5000, n).astype(np.int64)
        length = rng.integers(5, 60, n).astype(np.int64)
        score = rng.integers(100, 5000, n).astype(np.int64)
        pen = (int(rng.integers(0, 50)), int(rng.integers(0, 50)))
        want = reduce_to_chain(pos1, pos2, length, score, *pen, 100, 91)
        got = reduce_to_chain(pos1, pos2, length, score.astype(np.float64),
                              float(pen[0]), float(pen[1]), 100, 91, True)
        assert got.tolist() == want.tolist()


def test_score_keys_order_and_tie_as_the_doubles():
    """The adaptive table keeps lastz_D's scores as int64 keys: the keys must sort, tie
    and convert back exactly as the doubles do, in Python and in the kernels."""
    from fastz.kernels import segtable as kst
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.normal(0, 5000, 500), rng.integers(-50, 50, 200).astype(float),
                        [0.0, -0.0, kst.FLT_MAX, -kst.FLT_MAX, 3000.5, 3000.25]])
    keys = kst.score_keys(x)
    assert keys.dtype == np.int64
    assert np.array_equal(np.argsort(keys, kind="stable"), np.argsort(x, kind="stable"))
    same = x[:, None] == x[None, :]
    assert np.array_equal(keys[:, None] == keys[None, :], same)
    assert np.array_equal(kst.key_scores(keys), x + 0.0)
    assert kst.WORST_KEY == kst.score_keys(np.array([-kst.FLT_MAX]))[0] == keys.min()
    assert [kst._key(v) for v in x.tolist()] == keys.tolist()
    assert [kst._unkey(k) for k in keys.tolist()] == (x + 0.0).tolist()
