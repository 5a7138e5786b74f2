"""Options: LASTZ spellings -> fields, derived defaults vs `lastz --help=defaults`, errors.

The oracle is the real lastz: ``lastz x.fa <options> --help=defaults`` parses the options,
builds the scoring set, derives every default and prints them (``show_scoring_defaults``)
without reading any sequence.  fastz must print the same bytes.
"""
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import drop_version
from parity_cases import fastz_env

from fastz.errors import FastzError, OptionsError
from fastz.lastz_args import HelpRequested, parse_lastz_argv, show_defaults_text
from fastz.options import SEED_12OF19, SEED_14OF22, Options, normalize_seed, seed_display
from fastz.scoring import scoreset_from_options

LASTZ = shutil.which("lastz")

SCORES_A = """\
# a small scores file: every setting LASTZ reads, then a labelled matrix
bad_score = X:-500
fill_score = -50
gap_open_penalty = 300
gap_extend_penalty = 20
hsp_threshold = 2500
x_drop = 700

    A    C    G    T
A  100 -100  -50 -100
C -100  100 -100  -50
G  -50 -100  100 -100
T -100  -50 -100  100
"""
SCORES_B = """\
y_drop = 5000
gapped_threshold = 4000
step = 3
T = 4
     A    C    G    T    N
    91 -114  -31 -123  -10
  -114  100 -125  -31  -10
   -31 -125  100 -114  -10
  -123  -31 -114   91  -10
   -10  -10  -10  -10  -10
"""
SCORES_C = """\
  T   G   C   A
A  5  -4  -4  -4
C -4  5  -4  -4
G -4  -4  5  -4
T -4  -4  -4  5
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("opts")
    (d / "a.scores").write_text(SCORES_A)
    (d / "b.scores").write_text(SCORES_B)
    (d / "c.scores").write_text(SCORES_C)
    (d / "inc.txt").write_text("K=5000 --step=3\n\n--seed=match8\n")
    return d


def lastz_help_defaults(words, cwd):
    """(stdout, first stderr line) of `lastz x.fa <words> --help=defaults`."""
    if LASTZ is None:
        pytest.fail("lastz is not installed; parity tests need it")
    res = subprocess.run([LASTZ, "x.fa", *words, "--help=defaults"], cwd=cwd,
                         capture_output=True, text=True, timeout=60)
    err = res.stderr.splitlines()[0] if res.stderr else ""
    return res.stdout, err.removeprefix("FAILURE: ")


def fastz_help_defaults(words, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    opts = Options.from_argv(["x.fa", *words, "--help=defaults"])
    scores = scoreset_from_options(opts)
    resolved = opts.resolved(scores)
    resolved.validate()
    assert resolved.resolved(scores) == resolved            # idempotent
    return show_defaults_text(resolved, scores)


# --- Derived defaults: byte-identical to lastz --help=defaults ------------------------

DEFAULT_COMBOS = [
    "", "--match=1,5", "--gap=600,60", "--nogfextend", "--scores=a.scores",
    "--ambiguous=n,60",
    # more derivations
    "--match=3", "--match=2,7 --gap=600,60", "--gap=50", "--nogfextend --match=1,5",
    "--nogfextend --nogapped", "--justhits", "--exact=20", "--mismatch=2,30", "--3mismatch=40",
    "--scores=b.scores", "--scores=c.scores", "--scores=a.scores --gap=100,10 K=100",
    "--scores=b.scores --seed=12of19", "--scores=b.scores Z=5", "--unitscores", "U=2,3",
    "AC:-50 GT:7 ac:-60", "--match=1,5 AC:3",
    # seeds and transitions
    "--seed=match12", "--seed=match12 --transition", "--transition --seed=match12",
    "--seed=match(9)", "W=8", "--seed=half10", "--seed=half(12)", "--seed=0011x0110100",
    "--seed=111T0111", "--seed=1111,110011", "--seed=match15", "--seed=1111111111111111",
    "--word=20", "--word=20 --seed=14of22", "T=1", "T=2", "T=3", "T=4", "T=0",
    "--notransition", "--transition=2", "--notransition --transition=2",
    # thresholds and drops
    "--hspthresh=top10", "--hspthresh=top5%", "--hspthresh=top2.25%", "--gappedthresh=top3",
    "K=4000 L=5000", "K=2.5K", "K=3.6", "X=500 Y=2000", "--xdrop=1000 --ydrop=1",
    "--nogfextend --xdrop=5",
    # the rest of the table
    "--strand=plus", "--minus", "B=0", "B=-1", "--self", "--step=7", "--inner=2000", "H=300",
    "--masking=5", "M=254", "--allocate:traceback=1.5M", "m=200K", "--noentropy", "P=0", "P=2",
    "--entropy=report", "--ambiguous=iupac,1,2", "C=1", "C=2", "C=3", "--chain=10,20",
    "--yasra95", "--yasra95:1.02.40", "--yasra85short", "--filter=2,15", "--filter=12",
    "--include=inc.txt", "--action:target=1..100", "--format=segments",
    "--format=maf --output=out.maf --markend --identity=90..100",
    "--filter=cares:3,10", "--twins=5..20", "--recoverseeds", "--queryhsplimit=nowarn:100",
    "--masking=3 --outputmasking=m.txt", "--census=c.txt", "c=1", "--census",
    "--format=sam --readgroup=ID:x", "--action1=[1..5]", "--format=general:diff.:x--X",
    "--format=general-:name1,,score", "--filter=nmatch:5%", "--identity=90..",
    "--identity=90%..95%", "--continuity=50..60", "--0mismatch=20", "W=12abc",
    "--seed=match(12x)", "--ambiguousn",
    "--yasra98:2.0", "--format=gfa", "--nomirror --self",
    # C's number syntax, as lastz's sscanf reads it: hexadecimal, an exponent with no
    # digits (fastz refused the first, crashed on a NaN)
    "--hspthresh=0x10", "X=0x1p5 Y=3e", "K=3000e+", "--hspthresh=top0x1p1%",
    "--identity=0x50", "--xdrop=0x1.8p10", "--gap=0x190,30", "--inner=0xBB8",
]


@pytest.mark.parametrize("combo", DEFAULT_COMBOS)
def test_resolved_defaults_match_lastz(combo, workdir, monkeypatch):
    words = shlex.split(combo)
    expected, err = lastz_help_defaults(words, workdir)
    assert expected, f"lastz refused {combo!r}: {err}"
    assert fastz_help_defaults(words, workdir, monkeypatch) == expected


@pytest.mark.parametrize("combo", ["", "--match=1,5 --format=axt", "--nogfextend --strand=minus",
                                   "--format=maf", "--format=general", "--format=text",
                                   "--format=sam", "--output=out.txt",
                                   "--show=defaults:stderr --format=axt"])
def test_show_defaults_in_a_run_matches_lastz(combo, workdir):
    """--show=defaults during a real run: LASTZ prints the settings inside the format's
    comment (a LAV d stanza, "#" lines, bare lines; MAF, SAM and CIGAR also warn on
    stderr), then the output; the settings text goes to stdout (or stderr) even when
    the alignments go to --output.  The whole stdout, stderr and output file of fastz
    must be lastz's."""
    if LASTZ is None:
        pytest.fail("lastz is not installed; parity tests need it")
    (workdir / "t.fa").write_text(">t\nACGTACGTACGTAAAAGGGC\n")
    (workdir / "q.fa").write_text(">q\nACGTACGTACGTAAAAGGGC\n")
    words = ["t.fa", "q.fa", "--show=defaults", *shlex.split(combo)]
    got = {}
    for name, argv in (("lastz", [LASTZ]), ("fastz", [sys.executable, "-m", "fastz"])):
        res = subprocess.run([*argv, *words], cwd=workdir, capture_output=True, timeout=300,
                             env=fastz_env())
        assert res.returncode == 0, res.stderr.decode()[-300:]
        out = workdir / "out.txt"
        got[name] = [drop_version(res.stdout), drop_version(res.stderr),
                     drop_version(out.read_bytes()) if out.exists() else None]
        out.unlink(missing_ok=True)
    assert b"target file spec = t.fa" in got["lastz"][0] + got["lastz"][1]
    assert got["fastz"] == got["lastz"]


def test_brief_examples_field_values(workdir, monkeypatch):
    """The derived numbers themselves (spec §1.5)."""
    monkeypatch.chdir(workdir)
    r = Options.from_argv(["t", "--match=1,5"]).resolved()
    assert (r.gap_open, r.gap_extend, r.hspthresh, r.gappedthresh, r.xdrop, r.ydrop) == \
        (17, 2, 30, 30, 23, 46)
    r = Options.from_argv(["t", "--gap=600,60"]).resolved()
    assert (r.ydrop, r.xdrop, r.hspthresh) == (18600, 910, 3000)
    r = Options.from_argv(["t", "--nogfextend"]).resolved()
    assert (r.hspthresh, r.gappedthresh, r.entropy, r.xdrop, r.gfextend) == \
        (0, 3000, False, 910, False)
    r = Options.from_argv(["t", "--scores=a.scores"]).resolved()
    assert (r.gap_open, r.gap_extend, r.hspthresh, r.gappedthresh, r.xdrop, r.ydrop) == \
        (300, 20, 2500, 2500, 700, 300 + 300 * 20)
    r = Options.from_argv(["t", "--scores=b.scores", "--transition"]).resolved()
    assert (r.seed, r.transition, r.step, r.ydrop, r.gappedthresh) == \
        (SEED_14OF22, 0, 3, 5000, 4000)
    r = Options(target="t").resolved()
    assert (r.xdrop, r.ydrop, r.hspthresh, r.gappedthresh, r.gap_open, r.gap_extend) == \
        (910, 9400, 3000, 3000, 400, 30)
    assert r.seed_name == SEED_12OF19 and r.derived


# --- Spellings -> fields --------------------------------------------------------------

SPELLINGS = [
    ("--both", {"strand": "both"}), ("--plus", {"strand": "plus"}),
    ("--minus", {"strand": "minus"}), ("--strand=+", {"strand": "plus"}),
    ("--strand=reverse", {"strand": "minus"}), ("B=0", {"strand": "plus"}),
    ("B=5", {"strand": "both"}), ("--ungapped", {"gapped": False}),
    ("--nogapped", {"gapped": False}), ("--gapped", {"gapped": True}),
    ("--transition=2", {"transition": 2}), ("--notransition", {"transition": 0}),
    ("--notrans", {"transition": 0}), ("--trans", {"transition": 1}),
    ("--seed=12of19", {"seed": SEED_12OF19}), ("--seed=14of22", {"seed": SEED_14OF22}),
    ("--seed=match12", {"seed": "1" * 12, "transition": 0}),
    ("--seed=match(7)", {"seed": "1" * 7, "transition": 0}),
    ("--seed=half9", {"seed": "T" * 9}),
    ("--seed=x0110x1T00", {"seed": "11001T"}),
    ("W=8", {"seed": "1" * 8, "transition": 0}),
    ("T=2", {"seed": SEED_12OF19, "transition": 0}),
    ("T=3", {"seed": SEED_14OF22, "transition": 1}),
    ("--step=5", {"step": 5}), ("Z=3", {"step": 3}), ("--word=24", {"word": 24}),
    ("--nogfextend", {"gfextend": False}), ("--gfextend", {"gfextend": True}),
    ("--justhits", {"gfextend": False, "gapped": False}),
    ("--xdrop=100", {"xdrop": 100}), ("X=100", {"xdrop": 100}),
    ("--hspthresh=2500", {"hspthresh": 2500}), ("K=3K", {"hspthresh": 3000}),
    ("--hspthresh=top5%", {"hspthresh": None, "hspthresh_top": "top5%"}),
    ("--hspthresh=top1K", {"hspthresh_top": "top1000"}),
    ("--entropy", {"entropy": True}), ("--noentropy", {"entropy": False}),
    ("P=0", {"entropy": False}), ("--entropy=report", {"entropy": True, "entropy_report": True}),
    ("P=3", {"entropy_report": True}),
    ("--chain", {"chain": True}), ("--chain=10,20", {"chain": True, "chain_diag": 10,
                                                     "chain_anti": 20}),
    ("--gap=600,60", {"gap_open": 600, "gap_extend": 60}), ("--gap=50", {"gap_extend": 50}),
    ("O=10", {"gap_open": 10}), ("E=2", {"gap_extend": 2}),
    ("--ydrop=500", {"ydrop": 500}), ("Y=500", {"ydrop": 500}), ("--noytrim", {"ytrim": False}),
    ("--gappedthresh=4000", {"gappedthresh": 4000}), ("L=top3", {"gappedthresh_top": "top3"}),
    ("--allgappedbounds", {"allgappedbounds": True}),
    ("--scores=m.txt", {"scores_file": "m.txt"}), ("Q=m.txt", {"scores_file": "m.txt"}),
    ("--match=2,7", {"match_reward": 2, "match_penalty": 7}),
    ("--match=3", {"match_reward": 3, "match_penalty": 3}),
    ("--unitscores", {"match_reward": 1, "match_penalty": 1}), ("U=1", {"match_reward": 1}),
    ("--ambiguous=n", {"ambiguous_n": True, "ambiguous_iupac": False}),
    ("--ambiguous=n,60", {"ambiguous_n": True, "ambiguous_reward": 0, "ambiguous_penalty": 60}),
    ("--ambig=iupac,5,60", {"ambiguous_n": True, "ambiguous_iupac": True,
                            "ambiguous_reward": 5, "ambiguous_penalty": 60}),
    ("--inner=2000", {"inner": 2000}), ("H=300", {"inner": 300}),
    ("--masking=3", {"masking": 3}), ("M=3", {"masking": 3}),
    ("--identity=95", {"identity_min": 95.0, "identity_max": 100.0}),
    ("--identity=90..99.5", {"identity_min": 90.0, "identity_max": 99.5}),
    ("--filter=identity:..80%", {"identity_min": 0.0, "identity_max": 80.0}),
    ("--coverage=50..", {"coverage_min": 50.0, "coverage_max": 100.0}),
    ("--continuity=10..20", {"continuity_min": 10.0, "continuity_max": 20.0}),
    ("--filter=nmatch:50", {"filter_nmatch": 50}),
    ("--filter=nmatch:50%", {"filter_nmatch_pct": 50.0}),
    ("--filter=nmismatch:0..5", {"filter_nmismatch": 5}), ("--filter=ngap:..2", {"filter_ngap": 2}),
    ("--filter=cgap:0..7", {"filter_cgap": 7}),
    ("--filter=3,15", {"seed_filter_transversions": 3, "seed_filter_matches": 15}),
    ("--notrivial", {"notrivial": True}),
    ("--self", {"self_compare": True, "notrivial": True, "query": "t.fa"}),
    ("--nomirror", {"mirror": False}),
    ("--output=o.txt", {"output": "o.txt"}), ("--markend", {"markend": True}),
    ("--format=axt", {"format": "axt"}), ("--axt+", {"format": "axt+"}),
    ("--format=MAF", {"format": "maf"}), ("--format=maf-", {"format": "maf-"}),
    ("--format=general", {"format": "general", "format_fields": ()}),
    ("--format=general-:name1,z1,e2+,cigar,,id%", {"format": "general-", "format_fields": (
        "name1", "zstart1", "end2+", "cigar", "", "id%")}),
    ("--format=mapping", {"format": "mapping"}), ("--format=segments", {"format": "segments"}),
    ("--format=PAF:wfmash", {"format": "paf:wfmash"}), ("--format=paf", {"format": "paf"}),
    ("--format=softsam-", {"format": "softsam-"}), ("--format=lav+text", {"format": "lav+text"}),
    ("--format=mafsegments", {"format": "maf", "degapify": True}),
    ("--format=~maf+", {"format": "maf+", "maf_distinguish_names": True}),
    ("--format=differences", {"format": "differences"}), ("--format=none", {"format": "none"}),
    ("--format=rdotplot", {"format": "rdotplot"}), ("--format=blastn", {"format": "blastn"}),
    ("--format=text", {"format": "text"}), ("--format=cigar", {"format": "cigar"}),
    ("--allocate:traceback=200M", {"traceback_bytes": 200 * 1024 * 1024}),
    ("m=1.5M", {"traceback_bytes": 1572864}),
    ("--segments=s.txt", {"segments_file": "s.txt"}),
    ("--anchors=s.txt", {"segments_file": "s.txt"}),
    ("--show=defaults", {"show_defaults": "stdout"}),
    ("--workers=8", {"workers": 8}), ("--backend=gpu", {"backend": "gpu"}),
    ("--quiet", {"quiet": True}), ("--stats", {"stats": "-"}),
    ("--stats=s.txt", {"stats": "s.txt"}),
    ("AC:-50", {"special_subs": (("A", "C", -50),)}),
]


@pytest.mark.parametrize("word,expected", SPELLINGS, ids=[w for w, _ in SPELLINGS])
def test_spelling(word, expected):
    opts = parse_lastz_argv(["t.fa", "q.fa", word] if word != "--self" else ["t.fa", word])
    for name, value in expected.items():
        assert getattr(opts, name) == value, name


def test_target_query_and_args_string():
    opts = parse_lastz_argv(["--strand=plus", "t.fa", "K=4000", "q.fa[1..100]",
                             "--workers=4", "--output=o.txt", "--scores=s.txt", "--backend=cpu"])
    assert opts.target == "t.fa" and opts.query == "q.fa[1..100]"
    # file names are erased, option values kept; fastz-only options are never recorded
    assert opts.args == "--strand=plus K=4000 --output=o.txt --scores=s.txt "
    assert opts.workers == 4 and opts.backend == "cpu"
    assert parse_lastz_argv(["t.fa"]).query is None and parse_lastz_argv(["t.fa"]).args == ""


def test_nostats_is_lastz_s_word_too(tmp_path):
    """--nostats turns fastz's --stats off and, being lastz's word as well, stays in the
    arguments the output echoes (fastz had dropped it: a different lav header)."""
    opts = parse_lastz_argv(["t.fa", "q.fa", "--stats=s.txt", "--nostats", "--step=2"])
    assert opts.stats is None and opts.args == "--nostats --step=2 "
    words = ["pseudocat.fa", "pseudopig.fa", "--nostats"]
    data = Path(__file__).resolve().parents[1] / "data"
    lz = subprocess.run([shutil.which("lastz") or "lastz", *words], cwd=data,
                        capture_output=True, timeout=120)
    fz = subprocess.run([sys.executable, "-m", "fastz", *words], cwd=data,
                        capture_output=True, timeout=300, env=fastz_env())
    assert lz.returncode == fz.returncode == 0 and b"--nostats" in lz.stdout
    assert drop_version(fz.stdout) == drop_version(lz.stdout)


def test_unicode_hyphens_and_actions():
    opts = parse_lastz_argv(["t.fa", "q.fa", "\u2011\u2011format=axt", "--action:query=5..9",
                             "--action:target=[unmask]"])
    assert opts.format == "axt" and opts.args.startswith("--format=axt ")
    assert opts.query == "q.fa[5..9]" and opts.target == "t.fa[unmask]"


def test_order_dependent_words():
    # --seed=match<n> turns transitions off unless a --transition came first ...
    assert parse_lastz_argv(["t", "--seed=match12"]).transition == 0
    assert parse_lastz_argv(["t", "--transition", "--seed=match12"]).transition == 1
    # ... and a later --transition wins
    assert parse_lastz_argv(["t", "--seed=match12", "--transition"]).transition == 1
    # --xdrop after --nogfextend switches x-drop extension back on
    assert parse_lastz_argv(["t", "--nogfextend", "--xdrop=5"]).gfextend is True
    with pytest.raises(OptionsError, match="--xdrop requires --gfextend"):
        parse_lastz_argv(["t", "--xdrop=5", "--nogfextend"])
    # repeated options: the last one wins, except seeds and files
    assert parse_lastz_argv(["t", "K=10", "K=20"]).hspthresh == 20
    with pytest.raises(OptionsError, match="Duplicated or conflicting"):
        parse_lastz_argv(["t", "--scores=a", "--scores=b"])


def test_extras_and_help_words():
    opts = parse_lastz_argv(["t", "--queryhspbest=5", "--census", "--progress=10",
                             "--debug=hsps"])
    assert opts.extra == {"queryhspbest": "5", "census": True, "progress": (10, False),
                          "debug": ["--debug=hsps"]}
    for words, want in [(["--progress"], (1, False)), (["--progress=2k"], (2000, False)),
                        (["--progress+masking=3", "--progress"], (1, True)),
                        (["--debug=queryprogress+masking"], (1, True))]:
        assert parse_lastz_argv(["t", *words]).extra["progress"] == want
    with pytest.raises(OptionsError, match='"x" is not an integer'):
        parse_lastz_argv(["t", "--progress=x"])
    with pytest.raises(OptionsError, match="lastz_D"):
        parse_lastz_argv(["t", "--infer=ctl"])
    for word, kind in [("--help", "all"), ("-h", "all"), ("--help=formats", "formats"),
                       ("--help=shortcuts", "shortcuts"), ("--version", "version")]:
        with pytest.raises(HelpRequested) as info:
            parse_lastz_argv(["t", word])
        assert info.value.kind == kind


# --- Errors ---------------------------------------------------------------------------

BAD_COMBOS = [
    "--seed=half10 --transition", "--seed=match16", "--seed=abc", "--seed=00000",
    "--seed=12of19 T=1", "T=1 W=8", "--xdrop=0", "--ydrop=-5", "--step=0", "--match=0",
    "--match=2,0", "--gap=-5", "--gap=10,-20", "--gap=-50,20", "K=abc", "--chain=5", "G=5",
    "--format=foo", "--format=general:foo", "--format=general:", "--identity=101",
    "--identity=90..80", "--ambiguous=n,-1", "--allocate:traceback=10K", "--word=5",
    "--masking=-1", "--noxtrim", "--mirror", "--match=1,5 --scores=a.scores",
    "--format=segments --gapped", "--nogapped --gap=1,2", "--nogapped --ydrop=10",
    "--nogapped --noytrim", "--nogfextend --entropy", "--exact=20 --nogfextend",
    "--hspthresh=10 --exact=20", "--exact=20 --hspthresh=10", "--segments=s --chain",
    "--segments=s --hspthresh=5", "--seed=1111111111111111111111111111111111",
    "--foo", "q.fa extra.fa", "--filter=2,30", "--filter=25", "--rawhits", "--ball=5",
    "--outputmasking=m.txt", "--census --format=axt", "--readgroup=ID:x",
    # (LASTZ names the format from a table out of step with its formats)
    "--census --format=general", "--census --format=mapping", "--census --format=sam",
    "--census --format=softsam-", "--census --format=text", "--census --format=PAF",
    "--census --format=paf:wfmash", "--census --format=rdotplot", "--census --format=maf+",
    "--format=rdotplot --rdotplot=x", "--format=general:diff;:x--X", "--filter=nmatch:x%",
    "--identity=90...100", "--seed=1111111111111111111111111111111", "--51mismatch=60",
    "--2mismatch=1", "--seed=match(12x",
    "--seed=half1", "W=12 T=1", "P=-1", "--gap=1,2,3", "--word=32", "--yasra95:",
    "--yasra95:abc", "--segments=a --segments=b",
    # one search limit or --queryhspbest: the later word is the one named
    "--queryhsplimit=3 --queryhspbest=2", "--queryhspbest=2 --queryhsplimit=nowarn:3",
    "--queryhspbest=2 --queryhsplimit+=3", "--anyornone --queryhspbest=2",
    "--stopafter=4 --queryhspbest=2", "--stopafter=4 --queryhspbest=0",
    "--queryhsplimit=+warn:5", "--queryhsplimit=keep:5", "--queryhsplimit+=keep,nowarn:5",
    # a bad value fails where it is given, though a later word replaces it
    "--queryhspbest=0 --queryhspbest=3", "--querydepth=x --querydepth=2",
    "--maxwordcount=0 --maxwordcount=5", "--expand=-1 --expand=2",
    "--queryhsplimit=x --queryhsplimit=5", "--stopafter=0 --stopafter=3",
    "--anyornone --queryhsplimit=0 --queryhsplimit=2", "--queryhsplimit=-1 --stopafter=3",
    "--stopafter=2k --stopafter=3",
    # one census file: named again (even after --nocensus) is a duplicate
    "--census=a --census=b", "--census=a --nocensus --census32=b",
]


@pytest.mark.parametrize("combo", BAD_COMBOS)
def test_bad_options_rejected_like_lastz(combo, workdir, monkeypatch):
    words = shlex.split(combo)
    out, err = lastz_help_defaults(words, workdir)
    assert "target file spec" not in out and err, f"lastz accepted {combo!r}"
    with pytest.raises(FastzError) as info:
        fastz_help_defaults(words, workdir, monkeypatch)
    # lastz's message, on one line (LASTZ's "(my guess)" hints follow on the same line)
    assert str(info.value).startswith(err.rstrip()), (str(info.value), err)
    assert "\n" not in str(info.value)


def test_options_error_is_a_value_error_naming_the_flag():
    with pytest.raises(ValueError, match="--step"):
        parse_lastz_argv(["t", "--step=-1"])
    with pytest.raises(OptionsError, match="target"):
        parse_lastz_argv(["--format=axt"])


def test_validate_programmatic_options():
    Options(target="t").validate()
    Options(target="t").resolved().validate()
    with pytest.raises(OptionsError, match="--gap .*requires --gapped"):
        Options(target="t", gapped=False, gap_open=10, gap_extend=1).validate()
    with pytest.raises(OptionsError, match="--backend"):
        Options(target="t", backend="tpu").validate()
    with pytest.raises(OptionsError, match="strict seeds"):
        Options(target="t", seed="TTTTTTTT", transition=2).validate()
    # a half-weight seed quietly drops the default transition (create_seed_structure)
    assert Options(target="t", seed="TTTTTTTT").resolved().transition == 0
    with pytest.raises(OptionsError, match="unrecognized field name"):
        Options(target="t", format="general", format_fields=("name1", "bogus")).validate()


def test_seed_helpers():
    assert normalize_seed("12of19") == SEED_12OF19
    assert normalize_seed("xx1t0 1x0") == "1T01"
    assert seed_display("1" * 15) == "1111111111111TT/RR"
    assert seed_display(SEED_12OF19, word=20) == "111010011001010TTTT/RRRR"
    assert seed_display(SEED_12OF19) == SEED_12OF19
    with pytest.raises(OptionsError, match="illegal character"):
        normalize_seed("11a1")
    # a list holds patterns only, and a bad one is named with the rest of the list
    # (lastz 1.04.22: "seed string 12of19,11 contains illegal character 2")
    assert normalize_seed("1101,x1T1x") == "1101,1T1"
    with pytest.raises(OptionsError, match=r"^seed string 12of19,11 contains illegal "
                                           r"character 2$"):
        normalize_seed("1101,12of19,11")
    with pytest.raises(OptionsError, match=r"^seed string 12of19,14of22 contains"):
        normalize_seed("12of19,14of22")


def test_thresh_text():
    assert Options(target="t", hspthresh_top="top2.25%").hspthresh_text == "top2.2%"
    assert Options(target="t", hspthresh=3000).hspthresh_text == "3000"
