"""Command line: drop-in and `align` forms, help text, errors, `compare` wiring."""
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import fastz.pipeline
from fastz import cli
from fastz.errors import InputError
from fastz.options import Options

LASTZ = shutil.which("lastz")


@pytest.fixture
def captured_run(monkeypatch):
    """Replace fastz.pipeline.run; collect the Options it is given."""
    seen = []

    def fake_run(opts):
        seen.append(opts)
        return 0

    monkeypatch.setattr(fastz.pipeline, "run", fake_run, raising=False)
    return seen


def test_bare_and_align_forms_reach_run_with_equal_options(captured_run):
    words = ["t.fa", "q.fa[1..500]", "--format=maf", "K=4000", "--strand=plus",
             "--workers=2", "--ambiguous=n"]
    assert cli.main(words) == 0
    assert cli.main(["align", *words]) == 0
    bare, aligned = captured_run
    assert bare == aligned == Options.from_argv(words)
    assert bare.format == "maf" and bare.hspthresh == 4000 and bare.strand == "plus"
    assert bare.workers == 2 and bare.query == "q.fa[1..500]"
    assert bare.args == "--format=maf K=4000 --strand=plus --ambiguous=n "


def test_words_reach_the_parser_untouched(captured_run):
    """click must not eat option-like words (e.g. -h-like, --, or values)."""
    cli.main(["t.fa", "--seed=match12", "--transition", "B=0", "-x.fa"])
    (opts,) = captured_run
    assert opts.query == "-x.fa" and opts.transition == 1 and opts.strand == "plus"


def test_run_exit_code_is_returned(monkeypatch):
    monkeypatch.setattr(fastz.pipeline, "run", lambda opts: 3, raising=False)
    assert cli.main(["t.fa", "q.fa"]) == 3


def test_unknown_option_one_line_error(capsys):
    assert cli.main(["t.fa", "q.fa", "--frobnicate"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == 'fastz: Can\'t understand "--frobnicate"\n'
    assert "Traceback" not in err


def test_fastz_error_from_pipeline_is_one_line(monkeypatch, capsys):
    def failing(opts):
        raise InputError("target file t.fa contains more than one sequence\n(use [multiple])")

    monkeypatch.setattr(fastz.pipeline, "run", failing, raising=False)
    assert cli.main(["t.fa", "q.fa"]) == 1
    err = capsys.readouterr().err
    assert err == "fastz: target file t.fa contains more than one sequence (use [multiple])\n"


def test_help_shows_groups_and_live_defaults(capsys):
    for argv in (["--help"], ["-h"], ["align", "--help"], ["t.fa", "--help"]):
        assert cli.main(argv) == 0
        out = capsys.readouterr().out
        for group in ("Sequences:", "Seeding:", "Filtering", "Gapped extension:", "Scoring:",
                      "Output:", "System"):
            assert group in out
        assert "--xdrop=<score>" in out and "[10*sub[A][A] = 910]" in out
        assert "[open+300*extend = 9400]" in out and "[1110100110010101111]" in out
        assert max(map(len, out.splitlines())) < 80
    # defaults are read from Options(), so the help follows them
    d = Options()
    text = cli.help_text()
    for spelling, value in [("--word=<bits>", d.word), ("--step=<n>", d.step),
                            ("--workers=<n>", d.workers), ("--format=<format>", d.format)]:
        block = text[text.index("\n  " + spelling):]
        block = block[:block.index("\n  -", 3)]
        assert f"[{value}]" in block, spelling


def test_help_topics_and_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("fastz ")
    assert cli.main(["t.fa", "--help=formats"]) == 0
    out = capsys.readouterr().out
    assert "paf:wfmash" in out and "cigarx-" in out
    assert cli.main(["t.fa", "--help=shortcuts"]) == 0
    assert "K=<n>" in capsys.readouterr().out
    assert cli.main([]) == 1                       # no target: usage, like lastz
    assert "usage:" in capsys.readouterr().out


def test_help_defaults_matches_lastz(tmp_path, monkeypatch, capsys):
    if LASTZ is None:
        pytest.fail("lastz is not installed; parity tests need it")
    words = ["t.fa", "--help=defaults", "--match=2,7", "--strand=minus", "--seed=match14"]
    expected = subprocess.run([LASTZ, *words], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60).stdout
    monkeypatch.chdir(tmp_path)
    assert cli.main(words) == 0
    assert capsys.readouterr().out == expected


def test_compare_subcommand_is_wired(monkeypatch):
    calls = []
    fake = types.ModuleType("fastz.compare")
    fake.main = lambda a, b, fmt=None: calls.append((a, b, fmt)) or 0
    monkeypatch.setitem(sys.modules, "fastz.compare", fake)
    assert cli.main(["compare", "x.maf", "y.maf"]) == 0
    assert cli.main(["compare", "x.maf", "y.maf", "--format", "maf"]) == 0
    assert calls == [("x.maf", "y.maf", None), ("x.maf", "y.maf", "maf")]
    fake.main = lambda a, b, fmt=None: 1
    assert cli.main(["compare", "x", "y"]) == 1


def test_python_dash_m(tmp_path):
    res = subprocess.run([sys.executable, "-m", "fastz", "t.fa", "--nosuchoption"],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         env={"PYTHONPATH": str(__import__("pathlib").Path(cli.__file__)
                                                .parents[1]), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 1
    assert res.stderr == 'fastz: Can\'t understand "--nosuchoption"\n'
    res = subprocess.run([sys.executable, "-m", "fastz", "--version"], capture_output=True,
                         text=True, timeout=60, cwd=tmp_path,
                         env={"PYTHONPATH": str(__import__("pathlib").Path(cli.__file__)
                                                .parents[1]), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0 and res.stdout.startswith("fastz ")


def test_quick_exit_flushes_the_whole_output(tmp_path):
    """After an alignment run the process leaves without the interpreter's teardown
    (``cli._exit``): what it wrote to a pipe is complete, byte for byte the --output
    file's, and a reader that goes away early gives exit status 141, no traceback."""
    from conftest import PAIRS
    cwd = PAIRS / "mito_human_orang"
    args = [sys.executable, "-m", "fastz", "target.fa", "query.fa", "--nogfextend", "--nogapped",
            "--format=maf-"]                    # 0.8 MB, more than a pipe holds
    piped = subprocess.run(args, cwd=cwd, capture_output=True)
    assert piped.returncode == 0, piped.stderr.decode()
    out = tmp_path / "out.maf"
    to_file = subprocess.run([*args, f"--output={out}"], cwd=cwd, capture_output=True)
    assert to_file.returncode == 0 and to_file.stdout == b""
    assert len(piped.stdout) > 500_000 and piped.stdout == out.read_bytes()
    # a reader that takes the first bytes and closes the pipe
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and "Traceback" not in err


DATA = Path(__file__).resolve().parents[1] / "data"


def lastz_and_fastz(args):
    """Run lastz and ``python -m fastz`` on the same words; both must succeed and write
    the same stdout (version strings dropped).  Returns both completed processes."""
    from conftest import LASTZ, drop_version

    lz = subprocess.run([LASTZ, *args], capture_output=True, timeout=300)
    fz = subprocess.run([sys.executable, "-m", "fastz", *args], capture_output=True,
                        timeout=300)
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    return lz, fz


def test_notruncationreport_silences_the_truncation_lines_as_in_lastz(shared_pairs):
    """--notruncationreport: lastz drops its "truncating alignment ..." stderr lines and
    writes the same alignments; fastz too (and it does print them without the flag)."""
    p = shared_pairs / "mito_human_orang"
    args = [f"{p}/target.fa[1..6000]", f"{p}/query.fa[1..6000]", "--allocate:traceback=200K",
            "--format=general"]

    def both(extra):
        lz, fz = lastz_and_fastz([*args, *extra])
        return lz.stderr.count(b"truncat"), fz.stderr.count(b"truncat")

    assert both([]) == (9, 9)
    assert both(["--notruncationreport"]) == (0, 0)


@pytest.mark.parametrize("limit,spec", [("--queryhsplimit=1", ""),
                                        ("--queryhsplimit=nowarn:5", ""),
                                        ("--queryhsplimit=3", ""), ("--queryhsplimit=14", ""),
                                        ("--queryhsplimit=3", "[multiple]"),
                                        ("--queryhsplimit+=3", ""),
                                        ("--queryhsplimit+=warn:1", "[multiple]")])
def test_queryhsplimit_output_and_warnings_as_lastz(limit, spec):
    """Dropped queries, the per-strand warnings, the one-time explanation and the
    end-of-run count on stderr: byte for byte lastz's."""
    lz, fz = lastz_and_fastz([str(DATA / "pseudocat.fa"), str(DATA / "pseudopig.fa") + spec,
                              limit, "--format=general"])
    assert fz.stderr == lz.stderr
    assert (b"exceeded the HSP limit" in lz.stderr) == (limit != "--queryhsplimit=14")


@pytest.mark.parametrize("limit", ["--queryhsplimit=3", "--queryhsplimit=10"])
def test_queryhsplimit_with_twins_as_lastz(limit):
    """LASTZ's twin hit processor never stops a search: no warning, no count, the
    query is only dropped (or kept) by its HSPs counted before merging."""
    lz, fz = lastz_and_fastz([str(DATA / "pseudocat.fa"), str(DATA / "pseudopig.fa"),
                              limit, "--twins=5..80", "--format=general"])
    assert fz.stderr == lz.stderr == b""


@pytest.mark.parametrize("words", [
    ["--querydepth=0.2"], ["--querydepth=keep:0.2"], ["--querydepth=nowarn:0.05"],
    ["--querydepth=keep,nowarn:0.05"], ["--querydepth=discard:0.5"],
    ["--querydepth=keep:0.15", "--allgappedbounds"],
    ["--querydepth=keep:0.1", "[multiple]"], ["--querydepth=0.03", "[multiple]"],
    ["--querydepth=keep:0.1", "-"],
    # (LASTZ's depth is a C float, times the length in float: 0.125169 x 22,929 bases
    # is 2,870.000001, whose ceil is 2,871 in doubles and 2,870 in floats, as lastz says)
    ["--querydepth=0.125169"], ["--querydepth=keep:0.251690"],
], ids=" ".join)
def test_querydepth_output_and_warnings_as_lastz(words):
    """--querydepth: a query strand whose accepted alignments pair more than depth x its
    length in bases is dropped (or, with keep, cut at that alignment), with LASTZ's
    warnings; stdout and stderr byte for byte lastz's ("seq2" names a [multiple] query)."""
    from conftest import LASTZ, drop_version

    query = str(DATA / "pseudopig.fa") + "".join(w for w in words if w in ("[multiple]", "-"))
    args = [str(DATA / "pseudocat.fa"), query, "--format=general",
            *(w for w in words if w.startswith("--"))]
    lz, fz = lastz_and_fastz(args)
    assert fz.stderr == lz.stderr
    # the option changed lastz's output (else the case would test nothing)
    full = subprocess.run([LASTZ, *args[:3]], capture_output=True, timeout=300)
    assert drop_version(full.stdout) != drop_version(lz.stdout) or "discard:0.5" in words[0]


def test_querydepth_past_16_mb_rounds_the_length_as_lastz(tmp_path):
    """LASTZ multiplies its float depth by the query's length in float, so past 2^24
    bases the length itself rounds: 0.0001 x 20,000,001 bases is 2,000 paired bases in
    lastz's warning, where doubles would make it 2,001."""
    pig = "".join((DATA / "pseudopig.fa").read_text().split(">")[1].splitlines()[1:])
    query = tmp_path / "big.fa"
    query.write_text(">big\n" + "N" * (20_000_001 - len(pig)) + pig + "\n")
    lz, fz = lastz_and_fastz([str(DATA / "pseudocat.fa"), str(query), "--format=general",
                              "--querydepth=0.0001"])
    assert fz.stderr == lz.stderr and b"more than 2,000 paired bases" in lz.stderr


def test_paired_base_limit_edges():
    """The limit is 0 (none) where LASTZ's float product is 0, infinite or past 64 bits;
    a depth below a float's range is 0 there (lastz: 1e-45 warns, 1e-46 does not)."""
    from fastz.options import paired_base_limit

    assert paired_base_limit(0.125169, 22_929) == 2_870
    assert paired_base_limit(1e-45, 4_000) == 1
    assert paired_base_limit(1e-46, 4_000) == 0
    assert paired_base_limit(0.0, 4_000) == 0
    for depth in (float("inf"), float("nan"), 1e39, 1e30):
        assert paired_base_limit(depth, 4_000) == 0


def test_querydepth_same_with_workers_and_the_gpu_path(monkeypatch):
    """The depth cut walks the alignments in acceptance order on every engine."""
    args = [str(DATA / "pseudocat.fa"), str(DATA / "pseudopig.fa"), "--querydepth=keep:0.1",
            "--format=general"]
    runs = []
    for extra, env in ((["--workers=1"], {}), (["--workers=2"], {}),
                       (["--backend=gpu"], {"FASTZ_GPU_ENGINE": "twin"})):
        res = subprocess.run([sys.executable, "-m", "fastz", *args, *extra],
                             capture_output=True, timeout=600,
                             env={**__import__("os").environ, **env})
        assert res.returncode == 0, res.stderr.decode()[-300:]
        runs.append((res.stdout, res.stderr))
    assert runs[0] == runs[1] == runs[2] and runs[0][1].count(b"WARNING") == 3


@pytest.mark.parametrize("engine", [["--workers=1"], ["--workers=2"], ["--backend=gpu"]],
                         ids=" ".join)
@pytest.mark.parametrize("depth", ["--querydepth=keep:0.1", "--querydepth=0.05"])
def test_querydepth_drops_the_truncation_reports_after_the_cut(depth, engine, monkeypatch):
    """With --querydepth LASTZ stops a strand at the alignment that went over, so it never
    extends (nor reports truncating) the later anchors: stderr byte for byte lastz's on
    every engine (the GPU path with its CPU twins)."""
    monkeypatch.setenv("FASTZ_GPU_ENGINE", "twin")
    args = [str(DATA / "pseudocat.fa"), str(DATA / "pseudopig.fa"), depth,
            "--allocate:traceback=100K", "--nogfextend", "--format=general"]
    lz = subprocess.run([LASTZ, *args], capture_output=True, timeout=600)
    fz = subprocess.run([sys.executable, "-m", "fastz", *args, *engine], capture_output=True,
                        timeout=600)
    assert fz.returncode == lz.returncode == 0 and fz.stdout == lz.stdout
    assert fz.stderr == lz.stderr and lz.stderr.count(b"truncating") > 300


def _times_dropped(stderr: bytes) -> bytes:
    """--progress lines with their clock readings blanked (the one part that differs)."""
    import re
    return re.sub(rb"^((?:=+ )?)\([0-9hms.]+\) ", rb"\1(T) ", stderr, flags=re.M)


@pytest.mark.parametrize("words", [
    ["--progress"], ["--progress=2"], ["--progress=1k"], ["--progress=0"], ["--progress=-1"],
    ["--progress+masking", "--masking=1"], ["--progress+masking=2", "--progress"],
    ["--debug=queryprogress=2", "--debug=progressprefix"], ["--progress", "[nameparse=full]"],
    ["--progress", "--queryhspbest=3"], ["--progress", "--anyornone"],
    ["--progress", "--workers=1", "--allocate:traceback=100K", "--nogfextend"],
], ids=" ".join)
def test_progress_lines_as_lastz(words):
    """--progress[=N][+masking]: LASTZ's "(time) processing query K: name[, masked ...]"
    on stderr for every N-th query, in its place among the other stderr lines; byte for
    byte lastz's but for the clock readings."""
    query = str(DATA / "pseudopig.fa") + "".join(w for w in words if w.startswith("["))
    args = [str(DATA / "pseudocat.fa"), query, "--format=axt",
            *(w for w in words if w.startswith("--") and w != "--workers=1")]
    lz, _ = lastz_and_fastz(args)
    fz = subprocess.run([sys.executable, "-m", "fastz", *args,
                         *(w for w in words if w == "--workers=1")], capture_output=True,
                        timeout=300)
    assert _times_dropped(fz.stderr) == _times_dropped(lz.stderr)
    assert (b"processing query 1:" in lz.stderr) == (words[0] not in ("--progress=0",
                                                                         "--progress=-1"))


def test_progress_counts_empty_queries(tmp_path):
    """An empty query is counted and reported (after LASTZ's warning about it)."""
    (tmp_path / "t.fa").write_text(">t\nGGGGACGTACGTAGCTAGCTAGCATCGATCGACTAGCTAGCATCGAC\n")
    (tmp_path / "q.fa").write_text(">a\nACGTACGTAGCTAGCTAGCATCGATCGACTAGCTAGCATCGAC\n>e1\n"
                                   ">b\nACGTACGTAGCTAGCTAGCATCGATCGACTAGCTAGCATCGAC\n>e2\n")
    lz, fz = lastz_and_fastz([str(tmp_path / "t.fa"), str(tmp_path / "q.fa"), "--progress"])
    assert _times_dropped(fz.stderr) == _times_dropped(lz.stderr)
    assert b"processing query 4: e2" in lz.stderr


@pytest.mark.parametrize("words,warned", [
    (["--anyornone", "--queryhsplimit=1"], True), (["--stopafter=2", "--queryhsplimit=1"], True),
    (["--queryhsplimit=1", "--anyornone"], False),
    (["--anyornone", "--queryhsplimit=nowarn:1"], False), (["--stopafter=2", "--anyornone"], False),
    (["--anyornone", "--queryhsplimit+=warn:1", "--format=rdotplot"], True),
    (["--anyornone", "--querydepth=0.001"], False),
    (["--stopafter=3", "--querydepth=keep:0.01"], False),
    # a --queryhspbest before them has no effect (its table stays empty in this mode)
    (["--queryhspbest=3", "--anyornone"], False),
    (["--queryhspbest=1", "--stopafter=3", "--nogapped"], False),
], ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_immediate_mode_search_limit_words_as_lastz(words, warned):
    """LASTZ keeps one search limit: --anyornone/--stopafter replace an earlier
    --queryhsplimit, a later --queryhsplimit sets the HSP-immediate limit and its
    warnings (a strand whose count of alignments passes the limit); --querydepth has
    no effect in that mode.  stdout and stderr byte for byte lastz's."""
    fmt = [] if any(w.startswith("--format") for w in words) else ["--format=general"]
    lz, fz = lastz_and_fastz([str(DATA / "pseudocat.fa"), str(DATA / "pseudopig.fa"),
                              *words, *fmt])
    assert fz.stderr == lz.stderr
    assert (b"exceeded the limit of qualifying alignments" in lz.stderr) == warned


@pytest.mark.parametrize("words", [
    ["--anyornone", "--nogapped"], ["--stopafter=3", "--nogapped"],
    ["--stopafter=5", "--nogapped", "--queryhsplimit=3"],
    ["--stopafter=40", "--nogapped", "--identity=99.5"],
    # LASTZ tests mismatches against --filter=nmatch's count here (0 when not given)
    ["--stopafter=4", "--nogapped", "--filter=nmismatch:0..3"],
    ["--stopafter=4", "--nogapped", "--filter=nmismatch:0..3", "--filter=nmatch:200"],
    ["--stopafter=6", "--nogapped", "--nogfextend"],
    ["--stopafter=3", "--nogapped", "--recoverseeds"],            # reported unmerged
    ["--stopafter=3", "--nogapped", "--twins=5..100", "--queryhsplimit=2"],  # never stops
    ["--stopafter=2", "--nogapped", "--strand=minus"],
    ["--stopafter=2", "--nogapped", "--format=rdotplot"],
], ids=" ".join)
@pytest.mark.parametrize("multiple", [False, True], ids=["queries", "multiple"])
def test_immediate_mode_without_gapped_extension_as_lastz(shared_pairs, words, multiple):
    """--anyornone/--stopafter with --nogapped: each HSP that passes the back-end
    filters is printed as the seed search finds it, at most N per query, and a strand
    whose search finds more is counted over the HSP limit (end-of-run line always,
    per-query warnings with a --queryhsplimit after them).  46 MERS genomes as 46
    queries, and as one ([multiple]).  stdout and stderr byte for byte lastz's."""
    p = shared_pairs / "mers_ref_vs_46isolates"
    fmt = [] if any(w.startswith("--format") for w in words) else ["--format=general"]
    lz, fz = lastz_and_fastz([str(p / "target.fa"),
                              str(p / "query.fa") + ("[multiple]" if multiple else ""),
                              *words, *fmt])
    assert fz.stderr == lz.stderr
    # (the MERS isolates have no HSP on their minus strands)
    assert lz.stdout.count(b"\n") > (0 if "--strand=minus" in words else 1)


@pytest.mark.parametrize("words", [
    ["--anyornone", "--masking=1"], ["--stopafter=3", "--masking=1", "--format=maf"],
    ["--anyornone", "--census"], ["--stopafter=2", "--queryhsplimit=1", "--masking=2"],
    ["--anyornone", "--masking=1", "--progress+masking", "--format=axt"],
    ["--stopafter=3", "--nogapped", "--masking=1"],
    ["--anyornone", "--nogapped", "--masking=1", "--strand=minus"],
    ["--stopafter=3", "--nogapped", "--census"],
], ids=" ".join)
def test_immediate_mode_with_dynamic_masking_as_lastz(shared_pairs, words):
    """--anyornone/--stopafter with --masking/--census: LASTZ's census counts only what
    finishing a strand finds (printed or not), never the immediate alignments, so of
    the 46 MERS isolates only the one identical to the reference masks the target
    (its trivial self-alignment, after which nothing aligns); without gapped extension
    nothing is counted, and each strand's x stanza (n 0) follows the query's last HSP,
    the minus strand's first.  stdout and stderr as lastz's (clock readings blanked)."""
    p = shared_pairs / "mers_ref_vs_46isolates"
    lz, fz = lastz_and_fastz([str(p / "target.fa"), str(p / "query.fa"), *words])
    assert _times_dropped(fz.stderr) == _times_dropped(lz.stderr)
    if words == ["--anyornone", "--masking=1"]:
        assert b"x {\n  n 30111\n}" in lz.stdout      # (the identical isolate's)


def test_immediate_mode_limit_two_warnings_as_lastz(shared_pairs):
    """A limit above one: LASTZ remembers that many distinct alignments per query and
    counts one more before the strand's search stops (dmel2R: 3 stderr lines)."""
    p = shared_pairs / "dmel2R_vs_dpse_contigs"
    lz, fz = lastz_and_fastz([str(p / "target.fa"), str(p / "query.fa"), "--anyornone",
                              "--queryhsplimit=2", "--format=general"])
    assert fz.stderr == lz.stderr and lz.stderr.count(b"\n") == 3


@pytest.fixture(scope="module")
def ce2_200kb(tmp_path_factory):
    """The first 200 kb of ce2 chrX as its own record: repeats to align with itself."""
    import gzip

    from conftest import SHARED
    with gzip.open(SHARED / "data" / "genomes" / "ce2_chrX.fa.gz", "rb") as fh:
        seq = b"".join(fh.read(260_000).split(b"\n")[1:])[:200_000]
    path = tmp_path_factory.mktemp("ce2") / "ce2s.fa"
    path.write_bytes(b">chrXs\n" + b"\n".join(seq[i:i + 60] for i in range(0, len(seq), 60))
                     + b"\n")
    return path


@pytest.mark.parametrize("words", [
    ["--hspthresh=top5000"], ["--queryhspbest=20"], ["--queryhsplimit+=4000"],
    ["--queryhspbest=5", "--nogapped"], ["--hspthresh=top20000", "--nogapped"],
    ["--queryhsplimit=2000", "--strand=minus"],
    # without gapped extension the limit counts each HSP's mirror image too (the
    # plus strand fills 6,834 rows of LASTZ's table, the minus strand 2,662)
    ["--queryhsplimit=9496", "--nogapped"], ["--queryhsplimit=nowarn:9495", "--nogapped"],
    ["--queryhsplimit=5000", "--nogapped"], ["--queryhsplimit=keep,nowarn:3000", "--nogapped"],
    ["--queryhsplimit+=5000", "--nogapped"], ["--queryhsplimit=+6833", "--nogapped"],
    # the HSP-immediate mode: gap-free, each HSP is printed with its mirror image, which
    # the print cap counts too
    ["--stopafter=5", "--nogapped"], ["--anyornone", "--nogapped", "--strand=minus"],
    ["--stopafter=6", "--nogapped", "--identity=90", "--queryhsplimit=3"],
    ["--stopafter=30", "--nogapped", "--masking=1"], ["--stopafter=3"],
    ["--stopafter=3", "--nomirror"], ["--anyornone", "--notrivial"],
], ids=" ".join)
def test_self_with_per_query_tables_as_lastz(ce2_200kb, words):
    """--self with K=top, --queryhspbest and --queryhsplimit: the plus strand searches
    above the diagonal only (also for K=top's table), and without gapped extension each
    HSP's mirror image enters the table right after it (LASTZ collect_hsps).  stdout
    and stderr byte for byte lastz's."""
    lz, fz = lastz_and_fastz([str(ce2_200kb), "--self", *words, "--format=axt"])
    assert fz.stderr == lz.stderr
    # (the case prints alignments, or drops the query for its HSP count)
    assert b" chrXs " in lz.stdout or "--nogapped" in words and b"chrXs" not in fz.stdout


def test_the_command_line_keeps_openblas_to_one_thread():
    """numpy's OpenBLAS would start a spinning thread per core at import (fastz calls
    no BLAS); a user's own setting is kept."""
    import os
    import subprocess
    import sys
    code = "import fastz.cli, os; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "1"
    out = subprocess.run([sys.executable, "-c", code],
                         env=dict(env, OPENBLAS_NUM_THREADS="3"), capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "3"


def test_a_run_freezes_its_set_up_for_the_collector_and_gives_it_back(tmp_path,
                                                                     monkeypatch):
    """A run freezes what its set-up made (``gc.freeze``: the collector stops scanning
    numba's objects) and unfreezes it at the end, even when the run fails, so that a
    process running fastz again collects as before."""
    import gc

    import fastz.pipeline as pipeline
    repo = Path(__file__).resolve().parents[1]
    seen = []
    real_align = pipeline._align

    def align(aligner, out):
        seen.append(gc.get_freeze_count())
        return real_align(aligner, out)

    monkeypatch.setattr(pipeline, "_align", align)
    words = [str(repo / "data" / "human_mt.fa"), str(repo / "data" / "orangutan_mt.fa"),
             f"--output={tmp_path / 'out'}", "--workers=1"]
    assert cli.main(words) == 0
    assert seen[0] > 0 and gc.get_freeze_count() == 0

    def failing(aligner, out):
        seen.append(gc.get_freeze_count())
        raise InputError("bad record")

    monkeypatch.setattr(pipeline, "_align", failing)
    assert cli.main(words) == 1
    assert seen[1] > 0 and gc.get_freeze_count() == 0
