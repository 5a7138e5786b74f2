"""fastz_D --inferonly against lastz_D --inferonly: LASTZ's scoring inference.

The scoring file is compared whole (stdout, or the --infscores file) with lastz_D's on
real pairs, under control files that exercise each setting: unscaled and fractional
output (which prints every double to six places), identity percentiles, thresholds as
ratios, entropy off, the back-end filters (which make LASTZ count plus-strand HSPs
only).  The pieces (the fractional x-drop search, the binned counts, the percentile
cut, the log-odds) are checked against plain references.
"""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from parity_cases import fastz_env

LASTZ_D = shutil.which("lastz_D")

CONTROLS = {
    "none": None,
    "unscaled": "inference_scale=none\nhsp_threshold=30\n",
    "fractional": "inference_scale=100.0\n",
    "percentiles": "min_identity=25%\nmax_identity=75%\n",
    "mixed": "inference_scale=50.0\nmin_identity=10%\nmax_identity=90%\nentropy=off\n",
    "identity": "min_identity=80\nmax_identity=99\n",
    "ratios": ("# thresholds and penalties relative to the scores\n"
               "hsp_threshold = 25*inference_scale\n"
               "gap_open_penalty = 4*worst_substitution\n"
               "gap_extend_penalty = 0.1*gap_open_penalty\n"
               "max_sub_iterations = 3\n"),
    "step": "step=3\nmax_nmismatch=40\n",
    "pct_match": "min_match_count=0.01%\nmax_sub_iterations=4\n",
    "four": "max_sub_iterations=4\n",
}

# (pair, control, words)
CASES = [
    ("dengue1_vs_dengue2", "none", ()),
    ("dengue1_vs_dengue2", "unscaled", ()),
    ("mito_human_orang", "fractional", ()),
    ("mito_human_orang", "percentiles", ()),
    ("mito_human_mouse", "mixed", ()),
    ("mito_human_mouse", "ratios", ()),
    # one query sequence, minus strand: LASTZ's rounds alternate its strands
    ("hpylori_26695_vs_J99_Eslice", "ratios", ("--strand=minus",)),
    ("mers_ref_vs_46isolates", "fractional", ("--identity=90",)),
    ("hpylori_26695_vs_J99_Eslice", "none", ()),
    ("hpylori_26695_vs_J99_Eslice", "identity", ()),
    ("hpylori_26695_vs_J99_Eslice", "fractional", ("--identity=50..100",)),
    ("hpylori_26695_vs_J99_Eslice", "step", ("--seed=match12", "--notransition")),
    ("human_vs_mouse_cgp", "fractional", ("--hspthresh=2500",)),
    # a match count as a percentage becomes a count during a round: from the second
    # round on, LASTZ filters (and counts plus strands only)
    ("hpylori_26695_vs_J99_Eslice", "pct_match", ()),
    ("hpylori_26695_vs_J99_Eslice", "four", ("--filter=nmatch:0.05%",)),
    # the other seed-hit processors, in the general kernel compiled for the float
    # table; twins, recovered hits and --queryhspbest make LASTZ collect (and merge)
    # the HSPs, so that only plus strands count
    ("hpylori_26695_vs_J99_Eslice", "four", ("--twins=10",)),
    ("hpylori_26695_vs_J99_Eslice", "none", ("--twins=0..30", "--seed=match12")),
    ("hpylori_26695_vs_J99_Eslice", "four", ("--recoverseeds", "--strand=minus")),
    ("hpylori_26695_vs_J99_Eslice", "none", ("--queryhspbest=3",)),
    ("hpylori_26695_vs_J99_Eslice", "fractional", ("--filter=1,16", "--identity=60..95")),
    ("mito_human_orang", "fractional", ("--mismatch=2,30",)),
    ("dengue1_vs_dengue2", "none", ("--nogfextend",)),
    ("lastz_pseudocat_vs_pseudopig", "none", ("--filter=cares:2,10",)),
]


def _run(program: str, words, cwd: Path) -> subprocess.CompletedProcess:
    if program == "lastz_D":
        if LASTZ_D is None:
            pytest.fail("lastz_D is not installed (apt-get install lastz): fastz_D's "
                        "inference cannot be compared with it")
        argv = [LASTZ_D]
    else:
        argv = [sys.executable, "-m", "fastz.double"]
    return subprocess.run([*argv, *words], cwd=cwd, capture_output=True, timeout=900,
                          env=fastz_env())


def _both(words, cwd: Path):
    with ThreadPoolExecutor(max_workers=1) as pool:
        want = pool.submit(_run, "lastz_D", words, cwd)
        got = _run("fastz_D", words, cwd)
        return want.result(), got


def _control(tmp_path: Path, name: str) -> str:
    text = CONTROLS[name]
    if text is None:
        return "--inferonly"
    path = tmp_path / f"{name}.ctl"
    path.write_text(text)
    return f"--inferonly={path}"


@pytest.mark.parametrize("pair,control,words",
                         [pytest.param(*c, id=f"{c[0]}-{c[1]}-{'_'.join(c[2]) or 'plain'}")
                          for c in CASES])
def test_inferred_scores_match_lastz_D(pair, control, words, shared_pairs, tmp_path):
    cwd = shared_pairs / pair
    argv = ["target.fa", "query.fa", _control(tmp_path, control), *words]
    want, got = _both(argv, cwd)
    assert want.returncode == 0, want.stderr.decode()[-500:]
    assert got.returncode == 0, f"fastz_D failed: {got.stderr.decode()[-500:]}"
    assert want.stdout.startswith(b"# (a LASTZ scoring set"), want.stdout[:200]
    assert got.stdout == want.stdout
    assert got.stderr == want.stderr


def test_markend_goes_to_the_output(shared_pairs, tmp_path):
    """--markend: lastz_D's end line follows the scores on stdout, or is all --output
    holds when the scores go to --infscores."""
    cwd = shared_pairs / "dengue1_vs_dengue2"
    want, got = _both(["target.fa", "query.fa", "--inferonly", "--markend"], cwd)
    assert want.returncode == 0 and got.returncode == 0, got.stderr
    assert want.stdout.endswith(b"\n# lastz end-of-file\n") and got.stdout == want.stdout
    files = {}
    for program in ("lastz_D", "fastz_D"):
        d = tmp_path / program
        d.mkdir()
        res = _run(program, ["target.fa", "query.fa", "--inferonly", "--markend",
                             f"--infscores={d / 'sc.txt'}", f"--output={d / 'o'}"], cwd)
        assert res.returncode == 0 and res.stdout == b"", res.stderr
        files[program] = ((d / "o").read_bytes(), (d / "sc.txt").read_bytes())
    assert files["fastz_D"] == files["lastz_D"]
    assert files["lastz_D"][0] == b"# lastz end-of-file\n"


def test_infscores_file_and_output_file(shared_pairs, tmp_path):
    """--infscores=FILE gets the scoring set and stdout nothing; --output is created
    empty, as lastz_D does."""
    cwd = shared_pairs / "mito_human_orang"
    runs = {}
    for program in ("lastz_D", "fastz_D"):
        d = tmp_path / program
        d.mkdir()
        res = _run(program, ["target.fa", "query.fa", "--inferonly",
                             f"--infscores={d / 'scores.txt'}", f"--output={d / 'out'}"], cwd)
        assert res.returncode == 0, res.stderr.decode()
        assert res.stdout == b""
        assert (d / "out").read_bytes() == b""
        runs[program] = (d / "scores.txt").read_bytes()
    assert runs["fastz_D"] == runs["lastz_D"]
    assert runs["lastz_D"].count(b"\n") == 12


def test_infscores_with_round_files(shared_pairs, tmp_path):
    """--infscores=NAME with %s: each round's starting scores in NAME with s000, s001,
    ... (unrounded, with the round's threshold and x-drop), the result in NAME without
    "_%s"; the same files as lastz_D's."""
    cwd = shared_pairs / "hpylori_26695_vs_J99_Eslice"
    ctl = tmp_path / "four.ctl"
    ctl.write_text(CONTROLS["four"])
    files = {}
    for program in ("lastz_D", "fastz_D"):
        d = tmp_path / program
        d.mkdir()
        res = _run(program, ["target.fa", "query.fa", f"--inferonly={ctl}",
                             f"--infscores={d / 'sc_%s.txt'}"], cwd)
        assert res.returncode == 0, res.stderr.decode()
        files[program] = {p.name: p.read_bytes() for p in sorted(d.iterdir())}
    assert sorted(files["lastz_D"]) == ["sc.txt", "sc_s000.txt", "sc_s001.txt",
                                        "sc_s002.txt", "sc_s003.txt"]
    assert files["fastz_D"] == files["lastz_D"]


# (control file text or None, words): lastz_D fails with one message; fastz_D gives the
# same message on one line, and exit status 1
FAILURES = [
    ("foo=1\n", ()),
    ("step\n", ()),
    ("#" + "x" * 199 + "\nstep=1\n", ()),              # 201 bytes with its newline
    ("step=1\n#" + "x" * 200, ()),                      # 201 bytes, no newline
    ("entropy=maybe\n", ()),
    ("min_identity=20%\nmax_identity=90\n", ()),
    ("step=0\n", ()),
    ("step=\n", ()),
    ("max_gap_iterations=2\n", ()),
    ("min_coverage=50\n", ()),
    ("gapped_threshold=top5\n", ()),
    ("inference_scale=none\n", ()),                      # no HSP: n1[A] is zero
    ("inference_scale=none\nmin_identity=25%\nmax_identity=75%\n", ()),
    (None, ("--format=axt",)),
    (None, ("--masking=3",)),
    (None, ("--scores=none.txt",)),
    (None, ("--gap=400,30",)),
    (None, ("--exact=15",)),                             # no mismatch: s[A][C] = -inf
    # LASTZ's HSP-immediate mode and search limit (found by bench/fuzz_options.py
    # --double once fractional scores followed --stopafter: fastz_D then ran)
    (None, ("--anyornone",)),
    (None, ("--stopafter=2",)),
    (None, ("--limitperquery=3", "--queryhsplimit=5")),
    (None, ("--queryhsplimit=5",)),
]


def test_what_fastz_D_does_not_follow_is_refused(shared_pairs, tmp_path):
    """--show=defaults with --inferonly crashes lastz_D: fastz_D refuses it."""
    res = _run("fastz_D", [str(shared_pairs / "dengue1_vs_dengue2" / f)
                           for f in ("target.fa", "query.fa")]
               + ["--inferonly", "--show=defaults"], tmp_path)
    err = res.stderr.decode()
    assert res.returncode == 1 and err.count("\n") == 1, err
    assert "not yet supported by fastz_D" in err and "crashes" in err, err


@pytest.mark.parametrize("pair,words", [
    ("lastz_pseudocat_vs_pseudopig", ("--rdotplot=plot.txt",)),
    # 46 queries: the names line again each time the query changes, round after round
    ("mers_ref_vs_46isolates", ("--rdotplot+score=plot.txt", "--identity=90")),
    ("hpylori_26695_vs_J99_Eslice", ("--rdotplot=plot.txt", "--strand=minus")),
    ("mito_human_mouse", ("--rdotplot+score=plot.txt", "--nogfextend")),
])
def test_dot_plot_of_every_round_matches_lastz_D(pair, words, shared_pairs, tmp_path):
    """--rdotplot with --inferonly: lastz_D plots each HSP it counts, round after
    round, both strands (or the plus strand alone where it collects); the same file."""
    plots = {}
    for program in ("lastz_D", "fastz_D"):
        d = tmp_path / program
        d.mkdir()
        res = _run(program, [str(shared_pairs / pair / f) for f in ("target.fa", "query.fa")]
                   + ["--inferonly", *words], d)
        assert res.returncode == 0, res.stderr.decode()
        plots[program] = (res.stdout, (d / "plot.txt").read_bytes())
    assert plots["lastz_D"][1].count(b"\nNA\tNA") > 20
    assert plots["fastz_D"] == plots["lastz_D"]


@pytest.mark.parametrize("text,words", FAILURES)
def test_failures_match_lastz_D(text, words, shared_pairs, tmp_path):
    inferonly = "--inferonly"
    if text is not None:
        (tmp_path / "bad.ctl").write_text(text)
        inferonly = f"--inferonly={tmp_path / 'bad.ctl'}"
    argv = [str(shared_pairs / "dengue1_vs_dengue2" / f) for f in ("target.fa", "query.fa")]
    want, got = _both([*argv, inferonly, *words], tmp_path)
    assert want.returncode == 1 and got.returncode == 1, (want.stderr, got.stderr)
    message = want.stderr.decode().splitlines()[0].removeprefix("FAILURE: ")
    err = got.stderr.decode()
    assert err.count("\n") == 1 and message in err, (message, err)
    assert got.stdout == b""


# --- the pieces against plain references ------------------------------------------------


def _real_strands(shared_pairs, pair="mito_human_mouse"):
    def first_record(path):
        body = path.read_bytes().split(b">", 2)[1]
        return np.frombuffer(b"".join(body.split(b"\n")[1:]), np.uint8).copy()
    d = shared_pairs / pair
    return first_record(d / "target.fa"), first_record(d / "query.fa")


def test_fractional_search_finds_what_the_integer_search_finds(shared_pairs):
    """With whole-number scores in a float table, search_strand_double's extensions are
    the integer kernel's, one for one, with the same (unadjusted) scores."""
    from fastz.kernels import filtering as kfilt
    from fastz.kernels import seeding as kseed
    from fastz.pipeline.infer import unit_tables
    from fastz.pipeline.seeding import build_index
    t, q = _real_strands(shared_pairs)
    _, masked = unit_tables(100.0)
    masked = np.maximum(masked, -1e9)       # (lastz_D's -1.7e39 has no int32 twin)
    idx = build_index(t, "1110100110010101111", 1)
    s = idx.spec
    common = (idx.dir_, idx.low, idx.pos, idx.low_bits, s.length, s.care_off, s.care_bits,
              s.flips, s.resolve_off, 1, t, q, kseed.char_codes(q), len(t), len(q))
    whole, _ = kfilt.search_strand(*common, masked.astype(np.int32), 1000, -(1 << 40), 1, 0,
                                   kfilt.MODE_XDROP, kfilt.diag_hash(len(q)))
    frac = kfilt.search_strand_double(*common, masked, 1000.0, -1e300,
                                      kfilt.diag_hash(len(q)))
    assert whole.shape[0] > 500
    assert np.array_equal(frac, whole.astype(np.float64))


@pytest.mark.parametrize("words", [("--twins=10",), ("--recoverseeds",), ("--nogfextend",),
                                   ("--filter=1,16",), ("--mismatch=2,30",),
                                   ("--exact=15",)])
def test_general_search_on_a_float_table_finds_what_the_integer_one_finds(words,
                                                                          shared_pairs):
    """kernels.hitproc.search_strand_general compiled for a float table (the inference's
    other processors) returns float64 rows; with whole-number scores they are the
    integer compilation's, one for one."""
    from fastz.kernels import filtering as kfilt
    from fastz.kernels import hitproc as khit
    from fastz.kernels import seeding as kseed
    from fastz.lastz_args import parse_lastz_argv
    from fastz.pipeline.filtering import (NUC_BITS, _general_setup, default_processor,
                                          hit_processor)
    from fastz.pipeline.infer import unit_tables
    from fastz.pipeline.seeding import build_index
    t, q = _real_strands(shared_pairs)
    _, masked = unit_tables(100.0)
    masked = np.maximum(masked, -1e9)
    opts = parse_lastz_argv(["t.fa", "q.fa", "--nogapped", *words])
    hp = hit_processor(opts) or default_processor(False, False)
    idx = build_index(t, "1110100110010101111", 1)
    s = idx.spec
    _, care = _general_setup(s, hp, 0, False)
    none = np.zeros(0, np.int64)
    thresh = opts.hspthresh if hp.ext in (khit.EXT_EXACT, khit.EXT_MISMATCH) else 3000

    def search(table, xdrop, hspthresh):
        blocks = kfilt.DIAG_HASH_SIZE // 16
        return khit.search_strand_general(
            idx.dir_, idx.low, idx.pos, idx.low_bits, s.length, s.care_off, s.care_bits,
            s.flips, s.resolve_off, 1, t, q, kseed.char_codes(q), len(t), len(q), table,
            NUC_BITS, hp.proc, hp.ext, hp.mismatches, xdrop, hspthresh, 1, 0,
            hp.min_matches, hp.max_transversions, care, hp.twin_min, hp.twin_max,
            hp.queue_size, 0, none, none, none, -1, 0, kfilt.NO_LIMIT, 0, kfilt.NO_LIMIT,
            np.zeros(kfilt.DIAG_HASH_SIZE, np.int64), np.zeros(kfilt.DIAG_HASH_SIZE, np.int64),
            np.zeros(blocks, np.uint8), np.zeros(blocks, np.int64))[0]

    whole = search(masked.astype(np.int32), 1000, int(thresh))
    frac = search(masked, 1000.0, float(thresh))
    assert whole.dtype == np.int64 and frac.dtype == np.float64
    assert whole.shape[0] > 20
    assert np.array_equal(frac, whole.astype(np.float64))


def test_fractional_search_sums_as_lastz_D():
    """A hand-made diagonal whose x-drop stops on a fractional margin: the score is the
    double sum of the best left and best right runs, summed outwards from the seed's
    end (as lastz_D adds them), not the segment's left-to-right sum."""
    from fastz.kernels import cells
    table = np.full((256, 256), -1.1)
    for c in b"ACGT":
        table[c, c] = 0.7
    table[ord("A"), ord("C")] = -0.3
    t = np.frombuffer(b"TTGACGTACGAAAACCGTAGCAT", np.uint8)
    q = t.copy()
    q[5] = ord("A")
    q[17] = ord("C")
    left, right, _, score = cells.xdrop_extend(t, q, 12, 0, 0, len(t), 1.05, table)
    run, best_l, lo = 0.0, 0.0, 12
    for p in range(11, -1, -1):
        run += table[t[p], q[p]]
        if run > best_l:
            best_l, lo = run, p
        if run < best_l - 1.05:
            break
    run, best_r, hi = 0.0, 0.0, 12
    for p in range(12, len(t)):
        run += table[t[p], q[p]]
        if run > best_r:
            best_r, hi = run, p + 1
        if run < best_r - 1.05:
            break
    assert (left, right) == (lo, hi)
    assert score == best_l + best_r


def _binned_reference(pos1, pos2, length, t, q):
    bits = {c: i for i, c in enumerate(b"ACGT")} | {c: i for i, c in enumerate(b"acgt")}
    subs = np.zeros((1001, 4, 4), np.int64)
    cov = np.zeros(1001, np.int64)
    for a, b, n in zip(pos1, pos2, length):
        pairs = [(bits[x], bits[y]) for x, y in zip(t[a:a + n], q[b:b + n])
                 if x in bits and y in bits]
        if not pairs:
            continue
        m = sum(x == y for x, y in pairs)
        k = (2 * m * 1000 + len(pairs)) // (2 * len(pairs))
        for x, y in pairs:
            subs[k, x, y] += 1
        cov[k] += len(pairs)
    return subs, cov


def test_binned_substitutions_match_the_reference():
    from fastz.kernels.alnstats import binned_substitutions
    from fastz.pipeline.filtering import NUC_BITS
    rng = np.random.default_rng(7)
    alphabet = np.frombuffer(b"ACGTacgtNNRX", np.uint8)
    t = alphabet[rng.integers(0, alphabet.size, 5000)]
    q = t.copy()
    flip = rng.random(5000) < 0.2
    q[flip] = alphabet[rng.integers(0, alphabet.size, int(flip.sum()))]
    n = 300
    length = rng.integers(1, 200, n)
    pos1 = rng.integers(0, 4800, n)
    pos2 = np.minimum(pos1 + rng.integers(-3, 4, n), 4800).clip(0)
    length = np.minimum(length, 5000 - np.maximum(pos1, pos2))
    subs = np.zeros((1001, 4, 4), np.int64)
    cov = np.zeros(1001, np.int64)
    binned_substitutions(pos1, pos2, length, t, q, NUC_BITS, subs, cov)
    want_subs, want_cov = _binned_reference(pos1.tolist(), pos2.tolist(), length.tolist(),
                                            t.tolist(), q.tolist())
    assert np.array_equal(cov, want_cov) and np.array_equal(subs, want_subs)
    assert cov.sum() > 10000


def test_percentile_cut_empties_the_ends():
    """LASTZ's cut always empties the highest and the lowest bin holding pairs, then as
    many more as reach the percentile."""
    from fastz.pipeline.infer import percentile_cut
    cov = np.zeros(1001, np.int64)
    cov[[500, 600, 700, 800, 900]] = [10, 20, 40, 20, 10]
    subs = np.zeros((1001, 4, 4), np.int64)
    subs[cov > 0, 0, 0] = cov[cov > 0]
    percentile_cut(subs, cov, 0.25, 0.75)
    assert np.flatnonzero(cov).tolist() == [700]
    assert subs[700, 0, 0] == 40 and subs.sum() == 40
    cov = np.zeros(1001, np.int64)
    cov[[500, 900]] = [50, 50]
    with pytest.raises(Exception, match="no alignments remain after filtering"):
        percentile_cut(np.zeros((1001, 4, 4), np.int64), cov, 0.0, 1.0)


def test_log_odds_follow_the_formula():
    """The symmetrised counts' log2 odds, scaled so the best is the scale."""
    from fastz.pipeline.infer import log_odds
    counts = np.array([[900, 30, 80, 20], [25, 950, 15, 70], [90, 10, 940, 30],
                       [15, 60, 25, 880]])
    got = log_odds(counts, 100.0)
    comp = [3, 2, 1, 0]
    m = np.zeros((4, 4))
    for x in range(4):
        for y in range(4):
            n = counts[x, y]
            m[x, y] += n
            m[comp[x], comp[y]] += n
            m[y, x] += n
            m[comp[y], comp[x]] += n
    p = m / m.sum()
    s = np.log2(p / np.outer(p.sum(1), p.sum(0)))
    assert np.allclose(got, s * (100.0 / s.max()), rtol=1e-12)
    assert np.allclose(got, got.T) and got.max() == pytest.approx(100.0)
    assert math.isclose(got[0, 0], got[3, 3]) and math.isclose(got[1, 1], got[2, 2])
