"""Writers: every output format, byte-identical to lastz 1.04.22 (program token aside).

Method: the real lastz aligns a pair once with
``--format=general-:name1,zstart1,end1,name2,strand2,zstart2,end2,score,cigar``; those
rows are rebuilt into ``Alignments`` per query strand (LASTZ's output order), the
sequences are loaded by the small loader in ``formats_support.py``, and every format
is rendered by ``fastz.io.formats.make_writer`` and compared, whole file, with lastz's
own output for that format on the same inputs, e.g.::

    lastz pseudocat.fa pseudopig.fa --format=maf+
"""
from __future__ import annotations

import io
import random
import shutil

import pytest

from conftest import drop_version, run_lastz
from fastz.errors import InputError, OptionsError
from fastz.io.alignview import COMPLEMENT
from fastz.io.formats import make_writer, parse_format
from fastz.options import Options
from fastz.records import StrandResult
from fastz.scoring import build_scoreset
from formats_support import GENERAL_FIELDS, args_string, load, strand_results

ALL_FIELDS = ("general:score,name1,number1,strand1,size1,start1,zstart1,end1,length1,name2,"
              "number2,strand2,size2,start2,zstart2,start2+,zstart2+,end2,end2+,length2,nmatch,"
              "nmismatch,npair,ncolumn,ngap,cgap,cigar,cigar-,cigarx,cigarx-,cigarx1,cigarx1-,"
              "diagonal,shingle,identity,idfrac,id%,blastid%,coverage,covfrac,cov%,continuity,"
              "confrac,con%,gaprate,number,znumber,chore,phash,NA,qalign1,qalign2")
TEXT_FIELDS = "general-:text1,text2,align1,align2,diff,nucs2,,n1,s2+,e2+,~,ahash,diffabcdef"
BASIC = ["lav", "lav+", "axt", "axt+", "maf", "maf+", "maf-", "general", "general-",
         "mapping", "cigar", "sam", "sam-", "paf", "paf:minimap2", "paf:wfmash", "blastn",
         "differences", "differences-", "text", "ztext", "lav+text", ALL_FIELDS, TEXT_FIELDS]
EXTRA = ["softsam", "softsam-", "rdotplot", "rdotplot+score", "blastn-", "mapping-",
         "genseg", "mafsegments+", "axt:size2", "~maf", "lavscore", "general-:score,cigarx1-",
         "general:name1,,score,~,name2,NA,~,~", "general:,name1,,", "gen:~,s,id", "identity"]

# id: (target, query, extra args, alignment kind, strands, option overrides, formats)
CASES = {
    "default": ("pseudocat.fa", "pseudopig.fa", [], "gapped", ("+", "-"), {}, BASIC + EXTRA),
    "hsp": ("pseudocat.fa", "pseudopig.fa", ["--nogapped"], "hsp", ("+", "-"), {},
            BASIC + ["segments", "softsam", "rdotplot", "lavscore", "identity"]),
    "hits": ("pseudocat.fa", "pseudopig.fa", ["W=8", "T=0", "--plus", "--nogfextend", "--nogapped"],
             "hit", ("+",), {"seed": "11111111", "transition": 0, "hspthresh": 0},
             ["lav", "general", "maf+", "segments"]),
    "subrange": ("aglobin.2bit/human[10000,60000]", "aglobin.2bit/cow[15000#40000]", [], "gapped",
                 ("+", "-"), {}, ["lav", "axt+", "maf+", ALL_FIELDS, TEXT_FIELDS, "cigar", "sam",
                                  "blastn", "rdotplot", "differences-", "lav+text"]),
    "subrange_hsp": ("aglobin.2bit/human[10000,60000]", "aglobin.2bit/cow[15000#40000]",
                     ["--nogapped"], "hsp", ("+", "-"), {},
                     ["lav", "maf+", ALL_FIELDS, "text", "differences"]),
    "shorties": ("aglobin.2bit/human", "shorties.fa[subset=shorties.names]", [], "gapped",
                 ("+", "-"), {}, ["maf-", "general", "lav", "sam", "axt"]),
    "minus": ("mito_t.fa", "mito_rc.fa", [], "gapped", ("+", "-"), {},
              ["lav", "axt", "maf+", "general", ALL_FIELDS, TEXT_FIELDS, "mapping", "cigar",
               "sam", "softsam", "paf", "paf:wfmash", "blastn", "differences-", "text",
               "lav+text", "rdotplot", "identity"]),
    "query_revcomp": ("mito_t.fa", "mito_q.fa-", [], "gapped", ("+", "-"), {},
                      ["lav", "maf", "general", ALL_FIELDS, "cigar", "sam", "text"]),
    "target_revcomp": ("pseudocat.fa[101..5000]-", "pseudopig.fa", [], "gapped", ("+", "-"), {},
                       ["lav", "lav+", "maf+", ALL_FIELDS, TEXT_FIELDS, "cigar", "paf", "blastn",
                        "differences", "text"]),
    "multiple": ("mlc_t.fa[multiple]", "mlc_q.fa", [], "gapped", ("+", "-"), {},
                 ["axt+", "maf+", ALL_FIELDS + ",nucs1", "sam", "rdotplot", "text", "identity"]),
    "query_multiple": ("pseudocat.fa", "pseudopig.fa[multiple]", [], "gapped", ("+", "-"), {},
                       ["lav", "axt", "maf+", ALL_FIELDS + ",nucs2", TEXT_FIELDS, "sam", "softsam",
                        "cigar", "text", "differences", "blastn", "rdotplot", "paf"]),
    "ambiguous_n": ("aglobin.2bit/human", "aglobin.2bit/cow", ["--ambiguous=n"], "gapped",
                    ("+", "-"), {"ambiguous_n": True}, ["differences-", "general:diff,cigarx",
                                                        "identity"]),
    "noname": ("noname.fa", "pseudopig.fa", [], "gapped", ("+", "-"), {},
               ["lav", "sam", "general", "rdotplot", "blastn", "maf"]),
    "empty": ("rand1.fa", "rand2.fa", [], "gapped", ("+", "-"), {},
              BASIC + EXTRA + ["segments", "none"]),    # (identity: 0.999 and 1.000)
}
PARAMS = [pytest.param(case, fmt, id=f"{case}-{fmt[:40]}") for case, spec in CASES.items()
          for fmt in spec[6]]


@pytest.fixture(scope="session")
def workdir(lastz_data, shared_pairs):
    """lastz's test data plus a few shared pairs and synthetic files, in one directory."""
    d = lastz_data
    for src, dst in (("mito_human_orang/target.fa", "mito_t.fa"),
                     ("mito_human_orang/query.fa", "mito_q.fa"),
                     ("mlc_testdata_pair/target.fa", "mlc_t.fa"),
                     ("mlc_testdata_pair/query.fa", "mlc_q.fa")):
        if not (d / dst).exists():
            shutil.copy(shared_pairs / src, d / dst)
    if not (d / "mito_rc.fa").exists():
        lines = (d / "mito_q.fa").read_bytes().split(b"\n")
        seq = b"".join(ln.strip() for ln in lines[1:])
        rc = COMPLEMENT[__import__("numpy").frombuffer(seq, "uint8")[::-1]].tobytes()
        (d / "mito_rc.fa").write_bytes(lines[0] + b"\n" + rc + b"\n")
    if not (d / "noname.fa").exists():      # a header without a name: printed as seq1
        body = (d / "pseudocat.fa").read_bytes().split(b"\n", 1)[1]
        (d / "noname.fa").write_bytes(b">\n" + body)
    rng = random.Random(7)
    for name, recs in (("rand1.fa", [("r1", 3000)]), ("rand2.fa", [("r2 x", 2000), ("r3", 500)])):
        if not (d / name).exists():
            text = "".join(f">{h}\n" + "".join(rng.choice("ACGT") for _ in range(n)) + "\n"
                           for h, n in recs)
            (d / name).write_text(text)
    return d


_CACHE: dict = {}


def case_data(case: str, workdir):
    """(target, queries, strand results) of a case, computed once per session."""
    if case not in _CACHE:
        tspec, qspec, extra, kind, strands, _over, _fmts = CASES[case]
        target = load(tspec, workdir, as_target=True)[0]
        queries = load(qspec, workdir)
        rows = run_lastz([tspec, qspec, *extra, "--format=general-:" + GENERAL_FIELDS], cwd=workdir)
        _CACHE[case] = (target, queries, strand_results(rows, target, queries, strands, kind))
    return _CACHE[case]


def options_for(case: str, fmt: str, argv: list[str], **more) -> Options:
    over = dict(CASES[case][5])
    base = dict(format=fmt, args=args_string(argv), hspthresh=3000, gappedthresh=3000,
                xdrop=910, ydrop=9400, gap_open=400, gap_extend=30)
    base.update(over)
    base.update(more)
    return Options(**base)


def render(opts: Options, target, queries, results) -> bytes:
    out = io.StringIO()
    w = make_writer(opts, build_scoreset(), target, queries[0].filename, out)
    w.header()
    for r in results:
        w.write(r)
    w.footer()
    return out.getvalue().encode("latin-1")


def lastz_or_none(argv, cwd) -> bytes | None:
    """lastz's output, or None when lastz refuses (non-zero exit)."""
    try:
        return run_lastz(argv, cwd=cwd)
    except AssertionError:
        return None


@pytest.mark.parametrize("case,fmt", PARAMS)
def test_format_matches_lastz(case, fmt, workdir):
    tspec, qspec, extra, *_ = CASES[case]
    argv = [tspec, qspec, *extra, f"--format={fmt}"]
    target, queries, results = case_data(case, workdir)
    opts = options_for(case, fmt, argv)
    expected = lastz_or_none(argv, workdir)
    if expected is None:
        # lastz refuses (e.g. AXT/SAM with a reverse-complemented target): so must we
        with pytest.raises((InputError, OptionsError)):
            render(opts, target, queries, results)
        return
    got = render(opts, target, queries, results)
    assert drop_version(got) == drop_version(expected)


def test_markend_and_empty_strands(workdir):
    argv = ["pseudocat.fa", "pseudopig.fa", "--strand=plus", "--markend"]
    target, queries, results = case_data("default", workdir)
    plus = [r for r in results if r.strand == "+"]
    got = render(options_for("default", "lav", argv, markend=True), target, queries, plus)
    assert drop_version(got) == drop_version(run_lastz(argv, cwd=workdir))
    assert got.endswith(b"#:eof\n# lastz end-of-file\n")


def test_text_newline_goes_to_stdout_with_output_file(workdir, tmp_path, capsys):
    # lastz prints the newline after each text alignment with printf, i.e. to stdout
    argv = ["pseudocat.fa", "pseudopig.fa", "--format=text", f"--output={tmp_path / 'o.txt'}"]
    run_lastz(argv, cwd=workdir)
    expected = (tmp_path / "o.txt").read_bytes()
    target, queries, results = case_data("default", workdir)
    got = render(options_for("default", "text", argv, output=str(tmp_path / "o.txt")),
                 target, queries, results)
    assert drop_version(got) == drop_version(expected)
    assert capsys.readouterr().out == "\n" * sum(len(r.alignments) for r in results)


def test_identity_distribution_refuses_an_alignment_without_acgt_pairs():
    """--format=identity bins an alignment by matches / A,C,G,T pairs; where it has no
    such pair lastz's identity_bin divides by zero and the run dies of the fault:
    fastz says so in one line (a gap-free segment of Ns with positive N scores)."""
    import numpy as np
    from fastz.records import HSP_DTYPE, Alignments, Sequence

    hsps = np.zeros(2, HSP_DTYPE)
    hsps["pos1"], hsps["pos2"], hsps["length"], hsps["score"] = (0, 20), (0, 20), 20, 100
    chars = np.frombuffer(b"ACGTACGTACGTACGTACGT" + b"N" * 20, np.uint8).copy()
    target = Sequence(chars, "t", "> t", "t.fa", true_length=40)
    query = Sequence(chars.copy(), "q", "> q", "q.fa", true_length=40)
    opts = Options(format="identity")
    w = make_writer(opts, build_scoreset(), target, "q.fa", io.StringIO())
    w.header()
    alns = Alignments.from_hsps(hsps[:1])          # (20 A/C/G/T pairs: bin 1.000)
    w.write(StrandResult(query, "+", alns))
    w.footer()
    assert w.out.getvalue() == "0.999\t0\t0\n1.000\t1\t20\n"
    w = make_writer(opts, build_scoreset(), target, "q.fa", io.StringIO())
    w.header()
    with pytest.raises(InputError, match="no A, C, G or T pairs"):
        w.write(StrandResult(query, "+", Alignments.from_hsps(hsps)))


def test_lav_refuses_partitioned_target(workdir):
    target, queries, _ = case_data("multiple", workdir)
    with pytest.raises(OptionsError, match="multiple action cannot be used with --lav"):
        make_writer(Options(format="lav"), build_scoreset(), target, "q.fa", io.StringIO())


@pytest.mark.parametrize("words", [
    ("target.fa", "query.fa[multiple]"),
    ("target.fa", "query.fa[separator=X]"),      # (no X in it: a separator all the same)
    ("target.fa[separator=N]", "query.fa[separator=N]", "--format=lav+"),
    ("target.fa", "query.fa[multiple]", "--format=gfa"),
    # every alignment of the query would be dropped over the limit: refused all the same
    ("target.fa", "query.fa[multiple]", "--queryhsplimit=4"),
    # the interval files that print no sequence name (even --outputmasking+'s)
    ("target.fa[multiple]", "query.fa", "--masking=2", "--outputmasking={tmp}/m",
     "--format=axt"),
    ("target.fa[multiple]", "query.fa", "--masking=2", "--outputmasking+={tmp}/m",
     "--format=axt"),
    ("target.fa[multiple]", "query.fa", "--outputmasking:soft={tmp}/m", "--format=maf"),
])
def test_partitioned_sequences_refused_up_front(words, shared_pairs, tmp_path):
    """LASTZ refuses a partitioned target or query in lav and gfa, and a partitioned
    target with the masking files that cannot name its sequences, before aligning
    anything, naming the action (on one to three lines; fastz says the first, or the
    first two, in one)."""
    from parity_cases import run_program
    cwd = shared_pairs / "lastz_pseudocat_vs_pseudopig"
    words = [w.format(tmp=tmp_path) for w in words]
    want = run_program("lastz", words, cwd, timeout=300)
    got = run_program("fastz", words, cwd, timeout=300)
    assert want.returncode == got.returncode == 1
    assert want.stdout == got.stdout == b""
    said = want.stderr.decode().removeprefix("FAILURE: ").splitlines()
    assert "cannot be used with" in said[0]
    assert got.stderr.decode() in (f"fastz: {said[0]}\n", f"fastz: {'; '.join(said)}\n")
    assert not (tmp_path / "m").exists()


def test_quals_fields_need_qualities(workdir):
    target, _queries, _ = case_data("default", workdir)
    with pytest.raises(InputError, match="no base-call qualities"):
        make_writer(Options(format="general:name1,quals1"), build_scoreset(), target, "q",
                    io.StringIO())


def test_masking_stanzas_from_pipeline_data(workdir):
    # --masking: the pipeline supplies num_masked per strand and the census intervals
    argv = ["pseudocat.fa", "pseudopig.fa", "--masking=1"]
    target = load(argv[0], workdir, as_target=True)[0]
    queries = load(argv[1], workdir)
    rows = run_lastz([*argv, "--format=general-:" + GENERAL_FIELDS], cwd=workdir)
    results = strand_results(rows, target, queries, ("+", "-"), "gapped")
    expected = drop_version(run_lastz(argv, cwd=workdir))
    out = io.StringIO()
    w = make_writer(options_for("default", "lav", argv, masking=1), build_scoreset(), target,
                    queries[0].filename, out)
    w.header()
    masked = iter(int(x.split(b"\n")[0]) for x in expected.split(b"x {\n  n ")[1:])
    for r in results:
        stats = {"num_masked": next(masked)} if len(r.alignments) else {}
        w.write(StrandResult(r.query, r.strand, r.alignments, stats))
    tail = expected.split(b"m {\n")[1].split(b"\n  n ")[0].decode().split("\n")
    w.census_intervals = [tuple(int(v) for v in ln.split()[1:]) for ln in tail]
    w.footer()
    assert drop_version(out.getvalue().encode()) == expected


@pytest.mark.parametrize("spec,family,variant", [
    ("LAV", "lav", ""), ("lav+", "lav", "+"), ("text+lav", "lav", "text"), ("MAF-", "maf", "-"),
    ("general-:name1,score", "genpaf", "nohdr"), ("GEN:name1", "genpaf", "general"),
    ("PAF:wfmash", "genpaf", "paf"), ("diffs-", "diffs", "noblocks"), ("zerotext", "text", "ztext"),
])
def test_parse_format_spellings(spec, family, variant):
    f = parse_format(spec)
    assert (f.family, f.variant) == (family, variant)


def test_parse_format_fields_separately():
    spelled = parse_format("general:name1,score")
    assert parse_format("general", ("name1", "score")).keys == spelled.keys


@pytest.mark.parametrize("spec,msg", [("bogus", "can't understand"), ("general:", "empty keys"),
                                      ("general:name1,nope", "unrecognized field"),
                                      ("general:diffabcdef,diffghijkl", "duplicate field"),
                                      ("istats", "not supported")])
def test_parse_format_errors(spec, msg):
    with pytest.raises(OptionsError, match=msg):
        parse_format(spec)


def test_sam_readgroup(workdir):
    argv = ["pseudocat.fa", "pseudopig.fa", "--format=sam", "--readgroup=ID:xyz\tSM:abc"]
    target, queries, results = case_data("default", workdir)
    got = render(options_for("default", "sam", argv, readgroup="ID:xyz\tSM:abc"),
                 target, queries, results)
    assert got == run_lastz(argv, cwd=workdir)
    assert b"\t*\tID:xyz\n" in got


@pytest.mark.parametrize("case,flag", [("default", "--rdotplot"), ("hsp", "--rdotplot+score")])
def test_rdotplot_side_file(workdir, tmp_path, case, flag):
    tspec, qspec, extra, *_ = CASES[case]
    mine, theirs = tmp_path / "mine.txt", tmp_path / "theirs.txt"
    argv = [tspec, qspec, *extra, "--format=general", f"{flag}={theirs}"]
    expected = run_lastz(argv, cwd=workdir)
    target, queries, results = case_data(case, workdir)
    opts = options_for(case, "general", argv, rdotplot=str(mine),
                       extra={"rdotplot_score": flag.endswith("score")})
    got = render(opts, target, queries, results)
    assert drop_version(got) == drop_version(expected)
    assert mine.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("pair,words", [
    # gapped: each strand's records, then its alignments' segments in the dot plot
    ("dmel2R_vs_dpse_contigs", ("--format=general:number,znumber,name2,strand2,score",)),
    ("dmel2R_vs_dpse_contigs", ("--chain", "--format=general-:number,score,strand2")),
    # gap-free: each HSP's record, then its dot
    ("mito_human_orang", ("--nogapped", "--format=general:znumber,score,strand2")),
])
def test_rdotplot_file_takes_record_numbers(pair, words, shared_pairs, tmp_path):
    """LASTZ counts general's records and the --rdotplot file's segments with one
    counter, so the numbers general prints skip the dot plot's."""
    from parity_cases import run_program
    cwd = shared_pairs / pair
    argv = ["target.fa", "query.fa", *words, f"--rdotplot={tmp_path / 'plot.txt'}"]
    want = run_program("lastz", argv, cwd, timeout=600)
    (tmp_path / "plot.txt").rename(tmp_path / "lastz.txt")
    got = run_program("fastz", argv, cwd, timeout=600)
    assert want.returncode == got.returncode == 0
    assert drop_version(got.stdout) == drop_version(want.stdout)
    assert (tmp_path / "plot.txt").read_bytes() == (tmp_path / "lastz.txt").read_bytes()
    numbers = [int(line.split(b"\t")[0]) for line in want.stdout.splitlines()
               if line[:1].isdigit()]
    assert numbers != list(range(numbers[0], numbers[0] + len(numbers)))   # (skips)


def test_softsam_clips_bases_a_query_subrange_did_not_load(shared_pairs):
    """softsam prints the whole query record, clipped bases in lower case.  Where a
    subrange left some unloaded, lastz prints whatever memory lies outside its buffer
    (NULs, stray bytes, even newlines: no output to match); fastz prints "n" there, so
    SEQ is as long as the CIGAR's query length.  The fields before SEQ are lastz's, and
    the aligned bases are those of lastz's hard-clipped sam."""
    import re
    import subprocess
    import sys
    cwd = shared_pairs / "dwv_vs_vdv1"
    args = ["target.fa[2000..9000]", "query.fa[1000..8000]"]
    fz = subprocess.run([sys.executable, "-m", "fastz", *args, "--format=softsam-"], cwd=cwd,
                        capture_output=True, timeout=300)
    soft = run_lastz([*args, "--format=softsam-"], cwd=cwd)
    hard = run_lastz([*args, "--format=sam-"], cwd=cwd).splitlines()
    rows = fz.stdout.splitlines()
    assert len(rows) == len(hard) == 1
    row = rows[0].split(b"\t")
    cigar, seq = row[5].decode(), row[9]
    assert row[:9] == soft.split(b"\t")[:9]
    assert len(seq) == sum(int(n) for n in re.findall(r"(\d+)[MIS=X]", cigar))
    assert re.fullmatch(rb"n+[acgtn]+[ACGTN]+[acgtn]+n+", seq)
    lead = int(re.match(r"(\d+)S", cigar).group(1))
    core = re.search(rb"[ACGTN]+", seq)
    assert core.start() == lead and core.group() == hard[0].split(b"\t")[9]


def test_views_are_made_one_at_a_time():
    """A strand's views are made when asked for and not kept: each caches its walk and
    columns (kilobytes for a long gapped alignment), and a whole chromosome's strand
    has hundreds of thousands of them."""
    import numpy as np
    from fastz.io.alignview import AlnView, views
    from fastz.records import Alignments
    hsps = np.zeros(3, dtype=[("pos1", np.int64), ("pos2", np.int64), ("length", np.int64),
                              ("score", np.int64)])
    hsps["pos1"], hsps["pos2"], hsps["length"], hsps["score"] = [0, 5, 9], [1, 2, 3], 2, 7
    t = np.frombuffer(b"ACGTACGTACGTAC", np.uint8)
    vs = views(Alignments.from_hsps(hsps), t, t, True)
    assert len(vs) == 3 and [v.beg1 for v in vs] == [0, 5, 9] and vs[-1].end2 == 5
    assert vs[0] is not vs[0]                       # made afresh, never stored
    assert not any(isinstance(x, AlnView) for x in vars(vs).values())
    with pytest.raises(IndexError):
        vs[3]
