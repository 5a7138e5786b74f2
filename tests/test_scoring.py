"""Scoring sets: table entries, scores files, --match / --ambiguous patching, header text.

Oracles: ``lastz x.fa --debug=scorematrix --help=defaults <options>`` dumps both of
LASTZ's tables (rows and columns ``ACGTacgtNnBbXF``) to stderr; LASTZ's AXT/LAV headers
print the matrix as ``ScoreSet.format_matrix`` must.
"""
import shlex
import shutil
import subprocess

import numpy as np
import pytest

from fastz.errors import FastzError, OptionsError
from fastz.options import Options
from fastz.scoring import (BAD_SCORE, FILL_SCORE, VERY_BAD_SCORE, build_scoreset,
                           load_scores_file, scoreset_from_options, string_to_int,
                           string_to_score, string_to_unitized_int)

LASTZ = shutil.which("lastz")
DUMP_CHARS = "ACGTacgtNnBbXF"

FILES = {
    "a.scores": """\
bad_score = X:-500
fill_score = -50
gap_open_penalty = 300
gap_extend_penalty = 20
    A    C    G    T
A  100 -100  -50 -100
C -100  100 -100  -50
G  -50 -100  100 -100
T -100  -50 -100  100
""",
    "n.scores": """\
T = 4   # settings may carry comments
     A    C    G    T    N
    91 -114  -31 -123  -10
  -114  100 -125  -31  -10
   -31 -125  100 -114  -10
  -123  -31 -114   91  -10
   -10  -10  -10  -10  -10
""",
    "rev.scores": """\
  T   G   C   A
A  5  -4  -4  -4
C -4  5  -4  -4
G -4  -4  5  -4
T -4  -4  -4  5
""",
    "badchar.scores": """\
bad_score = F:-777
fill_score = -33
    A    C    G    T
A  100 -100  -50 -100
C -100  100 -100  -50
G  -50 -100  100 -100
T -100  -50 -100  100
""",
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("scoring")
    for name, text in FILES.items():
        (d / name).write_text(text)
    (d / "t.fa").write_text(">t\nACGTACGTACGTAAAA\n")
    (d / "q.fa").write_text(">q\nACGTACGTACGTAAAA\n")
    return d


def _need_lastz():
    if LASTZ is None:
        pytest.fail("lastz is not installed; parity tests need it")


def lastz_tables(words, cwd):
    """LASTZ's (scoring, maskedScoring) over DUMP_CHARS x DUMP_CHARS."""
    _need_lastz()
    res = subprocess.run([LASTZ, "x.fa", "--debug=scorematrix", "--help=defaults", *words],
                         cwd=cwd, capture_output=True, text=True, timeout=60)
    tables, cur = [], None
    for line in res.stderr.splitlines():
        if line.startswith("lzParams->"):
            cur = []
            tables.append(cur)
            continue
        parts = line.split()
        if cur is not None and len(parts) == 2 + len(DUMP_CHARS) and parts[1].endswith(":"):
            cur.append([int(x) for x in parts[2:]])
    assert len(tables) == 2, res.stderr[-300:]
    return [np.array(t) for t in tables]


TABLE_COMBOS = [
    "", "--match=1,5", "--match=3", "--ambiguous=n", "--ambiguous=n,60", "--ambiguous=n,7,60",
    "--ambiguous=iupac", "--ambiguous=iupac,1,2", "--ambiguous=iupac,30", "--scores=a.scores",
    "--scores=n.scores", "--scores=rev.scores", "--scores=badchar.scores",
    "--scores=n.scores --ambiguous=n,5,9", "--scores=n.scores --ambiguous=iupac,5,9",
    "--scores=rev.scores --ambiguous=iupac,5,9", "AC:-50", "AC:-50 GT:7 ac:-60",
    "--match=1,5 AC:3", "--scores=a.scores AC:3 --ambiguous=n,1,2", "--match=2,3 --ambiguous=iupac",
]


@pytest.mark.parametrize("combo", TABLE_COMBOS)
def test_tables_match_lastz(combo, workdir, monkeypatch):
    words = shlex.split(combo)
    expected_sub, expected_masked = lastz_tables(words, workdir)
    monkeypatch.chdir(workdir)
    ss = scoreset_from_options(Options.from_argv(["x.fa", *words]))
    idx = [ord(c) for c in DUMP_CHARS]
    np.testing.assert_array_equal(ss.sub[np.ix_(idx, idx)], expected_sub)
    np.testing.assert_array_equal(ss.masked[np.ix_(idx, idx)], expected_masked)


def test_hoxd70_representative_entries():
    ss = build_scoreset()
    sub, masked = ss.sub, ss.masked
    b = ord
    assert sub.dtype == np.int32 and sub.shape == (256, 256)
    assert sub[b("A"), b("A")] == 91 and sub[b("a"), b("C")] == -114 and sub[b("t"), b("t")] == 91
    assert sub[b("N"), b("A")] == FILL_SCORE and sub[b("5"), b("g")] == FILL_SCORE
    assert sub[b("R"), b("R")] == FILL_SCORE
    assert sub[b("X"), b("A")] == BAD_SCORE and sub[b("c"), b("x")] == BAD_SCORE
    # X and x override the NUL (separator) score, which is "very bad" everywhere else
    assert sub[0, b("X")] == BAD_SCORE and sub[b("x"), 0] == BAD_SCORE
    assert sub[0, b("A")] == VERY_BAD_SCORE and sub[b("N"), 0] == VERY_BAD_SCORE
    assert sub[0, 0] == VERY_BAD_SCORE
    # masked: lower case a/c/g/t, N, n, X score bad; IUPAC (either case) keeps fill
    assert masked[b("A"), b("A")] == 91 and masked[b("a"), b("A")] == BAD_SCORE
    assert masked[b("A"), b("g")] == BAD_SCORE and masked[b("N"), b("N")] == BAD_SCORE
    assert masked[b("B"), b("A")] == FILL_SCORE and masked[b("b"), b("A")] == FILL_SCORE
    assert masked[b("b"), b("a")] == BAD_SCORE
    # ... and row/column 0 are left alone
    assert masked[b("n"), 0] == VERY_BAD_SCORE and masked[0, b("a")] == VERY_BAD_SCORE
    assert masked[b("x"), 0] == BAD_SCORE
    assert ss.aa == 91 and (ss.gap_open, ss.gap_extend) == (400, 30)


def test_ambiguous_patches_both_tables():
    ss = scoreset_from_options(Options(target="t", ambiguous_n=True, ambiguous_penalty=60))
    b = ord
    assert ss.sub[b("N"), b("n")] == 0 and ss.sub[b("N"), b("a")] == -60
    assert ss.masked[b("N"), b("N")] == 0 and ss.masked[b("a"), b("n")] == -60
    assert ss.masked[b("a"), b("a")] == BAD_SCORE          # lower case stays masked
    ss = scoreset_from_options(Options(target="t", ambiguous_n=True, ambiguous_iupac=True,
                                       ambiguous_reward=2, ambiguous_penalty=5))
    assert ss.sub[b("R"), b("r")] == 2 and ss.sub[b("R"), b("Y")] == -5
    assert ss.sub[b("w"), b("C")] == -5 and ss.masked[b("K"), b("g")] == -5


def test_scores_file_tables_and_settings(workdir):
    st = load_scores_file(str(workdir / "a.scores"))
    assert st.labels == ("ACGT", "ACGT")
    assert st.settings == {"bad_col": ord("X"), "bad_row": ord("X"), "bad_score": -500,
                           "fill_score": -50, "gap_open": 300, "gap_extend": 20}
    assert st.matrix[0].tolist() == [100, -100, -50, -100]
    ss = scoreset_from_options(Options(target="t", scores_file=str(workdir / "a.scores")))
    b = ord
    # scores files differ from built-in sets: only X is bad, x is fill, NUL is very bad
    assert ss.sub[b("X"), b("a")] == -500 and ss.sub[b("x"), b("a")] == -50
    assert ss.sub[0, b("X")] == VERY_BAD_SCORE
    assert ss.masked[b("c"), b("A")] == -500
    assert (ss.gap_open, ss.gap_extend, ss.aa) == (300, 20, 100)
    n = scoreset_from_options(Options(target="t", scores_file=str(workdir / "n.scores")))
    assert n.labels == "ACGTN" and n.settings["seed"] == "T=4"
    assert n.masked[b("N"), b("A")] == -10 and n.masked[b("n"), b("A")] == BAD_SCORE


@pytest.mark.parametrize("text,message", [
    ("bogus = 3\n A C G T\n", "invalid name in assignment"),
    ("step = 0\n A C G T\n", "invalid step"),
    ("x_drop = -1\n A C G T\n", "invalid x-drop"),
    ("gap_open_penalty = -40\n A C G T\n" + "1 2 3 4\n" * 4, "not a valid gap open penalty"),
    (" A C G T\n1 2 3\n", "wrong number of score columns"),
    (" A C G T\n1 2 3 4\n1 2 3\n", "inconsistent number"),
    (" A C G T\n", "contains no score rows"),
    (" A C G A\n", "duplicate character code"),
    (" A~T C~G G~C T~A\n", "quantum"),
    (" 01 02 03 04\n1 2 3 4\n1 2 3 4\n1 2 3 4\n1 2 3 4\n", "quantum"),
])
def test_scores_file_errors(tmp_path, text, message):
    path = tmp_path / "bad.scores"
    path.write_text(text)
    with pytest.raises(OptionsError, match=message):
        load_scores_file(str(path))


def test_missing_scores_file_is_a_fastz_error(tmp_path):
    with pytest.raises(FastzError, match="nonexistent"):
        scoreset_from_options(Options(target="t", scores_file=str(tmp_path / "nonexistent")))


@pytest.mark.parametrize("words,fmt", [
    ([], "axt"), (["--match=1,5"], "maf"), (["--scores=n.scores"], "axt"),
    (["--scores=rev.scores", "--gap=10,2"], "maf"),
])
def test_format_matrix_with_extras_matches_axt_maf_header(words, fmt, workdir, monkeypatch):
    """AXT and MAF headers: gap penalties, then the labelled matrix, each line '# '."""
    _need_lastz()
    res = subprocess.run([LASTZ, "t.fa", "q.fa", f"--format={fmt}", *words], cwd=workdir,
                         capture_output=True, text=True, timeout=60)
    lines = res.stdout.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if "gap_open_penalty" in line)
    stop = next(i for i in range(start, len(lines)) if not lines[i].startswith("#"))
    monkeypatch.chdir(workdir)
    ss = scoreset_from_options(Options.from_argv(["t.fa", "q.fa", *words]))
    assert ss.format_matrix(with_extras=True, prefix="# ") == "".join(lines[start:stop])


@pytest.mark.parametrize("words", [[], ["--match=2,7"], ["--scores=rev.scores"],
                                   ["--scores=n.scores"]])
def test_format_matrix_plain_matches_lav_header(words, workdir, monkeypatch):
    """LAV d stanza: unlabelled rows between the "lastz... line and the O = line."""
    _need_lastz()
    res = subprocess.run([LASTZ, "t.fa", "q.fa", *words], cwd=workdir, capture_output=True,
                         text=True, timeout=60)
    lines = res.stdout.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith('  "lastz')) + 1
    stop = next(i for i, line in enumerate(lines) if line.startswith("  O = "))
    monkeypatch.chdir(workdir)
    ss = scoreset_from_options(Options.from_argv(["t.fa", "q.fa", *words]))
    assert ss.format_matrix() == "".join(lines[start:stop])


def test_scores_file_warning_matches_lastz(workdir, monkeypatch):
    _need_lastz()
    res = subprocess.run([LASTZ, "t.fa", "q.fa", "--scores=rev.scores"], cwd=workdir,
                         capture_output=True, text=True, timeout=60)
    monkeypatch.chdir(workdir)
    opts = Options.from_argv(["t.fa", "q.fa", "--scores=rev.scores"])
    assert opts.scores_warning(scoreset_from_options(opts)) == res.stderr
    opts = Options.from_argv(["t.fa", "q.fa", "--scores=n.scores"])
    assert opts.scores_warning(scoreset_from_options(opts)) is None


def test_number_parsing():
    assert string_to_score("2.5K") == 2500 and string_to_score("3k") == 3000
    assert string_to_score("3.6") == 4 and string_to_score("-3.5") == -3
    assert string_to_score("+12") == 12
    assert string_to_unitized_int("1.5M", by_thousands=False) == 1572864
    assert string_to_unitized_int("80M", by_thousands=False) == 83886080
    assert string_to_int(" 7") == 7
    for bad in ("abc", "12x", "", "1_000"):
        with pytest.raises(OptionsError):
            string_to_score(bad)
    with pytest.raises(OptionsError, match="not an integer"):
        string_to_int("1.5")
