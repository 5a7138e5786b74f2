"""Anchors: HSP peaks and sort order; HSPs read from --segments files (vs oracles and lastz)."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastz.errors import InputError
from fastz.kernels.reference import reference_anchors, reference_peak
from fastz.kernels.filtering import segment_peaks
from fastz.pipeline.anchors import (SegmentsReader, anchors_from_hsps, merge_segments,
                                    read_segments_file)
from fastz.records import ANCHOR_DTYPE, HSP_DTYPE, Partitions, Sequence
from fastz.scoring import build_scoreset

from conftest import LASTZ, drop_version
from parity_cases import run_program
from seedharness import (GENERAL_FIELDS, fastz_anchor_trace, lastz_anchor_trace, make_target,
                         read_fasta, revcomp)

SS = build_scoreset()
ACGT = np.frombuffer(b"ACGT", np.uint8)


def _hsps(rows):
    out = np.empty(len(rows), HSP_DTYPE)
    for k, r in enumerate(rows):
        out[k] = r
    return out


# --- Peaks and order vs the reference -------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(rs=st.integers(0, 2**31), n=st.integers(0, 30))
def test_anchors_match_reference(rs, n):
    rng = np.random.default_rng(rs)
    t = rng.choice(np.frombuffer(b"ACGTacgtN", np.uint8), 500)
    q = rng.choice(np.frombuffer(b"ACGTacgtN", np.uint8), 400)
    rows = []
    for _ in range(n):
        length = int(rng.integers(0, 120))
        p1, p2 = int(rng.integers(0, 500 - length + 1)), int(rng.integers(0, 400 - length + 1))
        if rng.random() < 0.5:                         # make it a real match
            q[p2:p2 + length] = t[p1:p1 + length]
        rows.append((p1, p2, length, int(rng.integers(0, 4)) * 1000))   # ties in score
    hsps = _hsps(rows)
    got = anchors_from_hsps(hsps, t, q, SS.sub)
    assert got.dtype == ANCHOR_DTYPE
    assert [tuple(r) for r in got.tolist()] == reference_anchors(rows, t, q, SS.sub)
    for p1, p2, length, _ in rows:
        assert segment_peaks(t, q, np.array([p1]), np.array([p2]), np.array([length]), SS.sub)[0] \
            == reference_peak(t, q, p1, p2, length, SS.sub)


def test_peak_window_rule():
    t = np.frombuffer(b"A" * 100, np.uint8)
    q = t.copy()
    assert reference_peak(t, q, 0, 0, 31, SS.sub) == 15          # short: midpoint
    assert segment_peaks(t, q, np.array([0]), np.array([0]), np.array([31]), SS.sub)[0] == 15
    assert segment_peaks(t, q, np.array([0]), np.array([0]), np.array([100]), SS.sub)[0] == 15
    q2 = q.copy()
    q2[:40] = ord("C")                                          # best window starts at 40
    assert segment_peaks(t, q2, np.array([0]), np.array([0]), np.array([100]), SS.sub)[0] == 55


# --- Against lastz's own anchor trace (--debug=anchors) ------------------------------------------


@pytest.mark.parametrize("lastz_args, kw", [
    ([], {}),
    # --nogfextend with gapped extension: diagonal-filtered seed hits, scored with the
    # masked table over the seed window
    (["--nogfextend"], dict(gfextend=False, hspthresh=0, entropy=False)),
    (["--nogfextend", "W=8", "T=0"], dict(seed="match8", transition=0, gfextend=False,
                                          hspthresh=0, entropy=False)),
])
def test_anchor_trace_matches_lastz_pseudocat(lastz_data, lastz_args, kw):
    cat, pig = str(lastz_data / "pseudocat.fa"), str(lastz_data / "pseudopig.fa")
    mine = fastz_anchor_trace(make_target(read_fasta(cat)), read_fasta(pig), **kw)
    assert mine == lastz_anchor_trace([cat, pig, *lastz_args])


@pytest.mark.parametrize("pair", ["mito_human_orang", "dengue1_vs_dengue2"])
def test_anchor_trace_matches_lastz_nogfextend_pairs(shared_pairs, pair):
    tpath, qpath = str(shared_pairs / pair / "target.fa"), str(shared_pairs / pair / "query.fa")
    kw = dict(gfextend=False, hspthresh=0, entropy=False)
    mine = fastz_anchor_trace(make_target(read_fasta(tpath)), read_fasta(qpath), **kw)
    assert mine == lastz_anchor_trace([tpath, qpath, "--nogfextend"])


# --- Segments files --------------------------------------------------------------------------------


def _seq(chars, name, names=None, offsets=None):
    parts = None
    if names is not None:
        length = np.diff(np.append(offsets, len(chars))) - 1
        parts = Partitions(offset=np.asarray(offsets), length=length, start=np.zeros(len(length), np.int64),
                           true_length=length, contig=np.arange(1, len(length) + 1),
                           names=list(names), headers=list(names))
    return Sequence(chars=chars, name=name, header=name, filename=name, true_length=len(chars),
                    partitions=parts)


def _segments_trace(seg_path, target, queries, sequential):
    """(pos1, pos2, length, score, anchor1, anchor2) for every strand, from a segments file."""
    ts = _seq(target.chars, target.names[0],
              target.names if target.chars[0] == 0 else None, target.offsets)
    reader = SegmentsReader(str(seg_path)) if sequential else None
    out = []
    for rec in queries:
        for strand in "+-":
            q = rec.chars if strand == "+" else revcomp(rec.chars)
            qs = _seq(q, rec.name)
            h = read_segments_file(str(seg_path), ts, qs, strand, reader=reader)
            pk = segment_peaks(target.chars, q, h["pos1"].copy(), h["pos2"].copy(),
                               h["length"].copy(), SS.sub)
            out += [(int(a), int(b), int(c), int(d), int(a + k), int(b + k))
                    for (a, b, c, d), k in zip(h.tolist(), pk.tolist())]
    if reader is not None:
        reader.finish()
    return out


@pytest.mark.parametrize("pair, multiple", [("lastz_pseudocat_vs_pseudopig", False),
                                            ("mlc_testdata_pair", True)])
@pytest.mark.parametrize("sequential", [True, False])
def test_segments_round_trip(shared_pairs, lastz_runner, tmp_path, pair, multiple, sequential):
    """lastz --nogapped --format=segments, read back: the anchors lastz builds from the
    same file with --segments (merged, diagonal order, then peaks)."""
    tpath, qpath = str(shared_pairs / pair / "target.fa"), str(shared_pairs / pair / "query.fa")
    tspec = tpath + ("[multiple]" if multiple else "")
    seg = tmp_path / "hsps.segments"
    seg.write_bytes(lastz_runner([tspec, qpath, "--nogapped", "--format=segments"]))
    mine = _segments_trace(seg, make_target(read_fasta(tpath), multiple), read_fasta(qpath), sequential)
    assert mine == lastz_anchor_trace([tspec, qpath, f"--segments={seg}"])


def test_segments_overlaps_are_merged(lastz_data, lastz_runner, tmp_path):
    """Overlapping segments on one diagonal merge (max score); output in diagonal order."""
    cat, pig = str(lastz_data / "pseudocat.fa"), str(lastz_data / "pseudopig.fa")
    seg = tmp_path / "s.segments"
    seg.write_text("# comment\n"
                   "cat 4938 5024 pig1 21347 21433 + 3719\n"
                   "cat 4990 5100 pig1 21399 21509 + 5000  # overlaps the first\n"
                   "cat 5101 5150 pig1 21510 21559 +\n"            # adjoins: not merged
                   "* 100 200 pig1 300 400 + 17\n"
                   "cat 183 280 pig1 198 295 - 3131\n"
                   "\n"
                   "cat 9656 9742 pig2 6954 7040 - 3140\n")
    want = lastz_runner([cat, pig, f"--segments={seg}", "--nogapped",
                         f"--format=general-:{GENERAL_FIELDS}"]).decode().splitlines()
    want = [w for w in want if not w.startswith("#")]
    target = make_target(read_fasta(cat))
    ts = _seq(target.chars, "cat")
    reader = SegmentsReader(str(seg))
    mine = []
    for rec in read_fasta(pig):
        for strand in "+-":
            q = rec.chars if strand == "+" else revcomp(rec.chars)
            for p1, p2, n, s in reader.take(ts, _seq(q, rec.name), strand).tolist():
                mine.append(f"{s}\tcat\t{p1}\t{p1 + n}\t{rec.name}\t{strand}\t{p2}\t{p2 + n}")
    reader.finish()
    assert mine == want
    assert mine[0].split("\t")[:4] == ["5000", "cat", "4937", "5100"]


def test_merge_segments_unit():
    h = _hsps([(10, 5, 10, 7), (12, 7, 3, 9), (30, 25, 5, 1), (3, 50, 4, 2), (20, 15, 5, 0),
               (14, 9, 2, 4)])
    got = merge_segments(h).tolist()
    assert got == [(3, 50, 4, 2), (10, 5, 10, 9), (20, 15, 5, 0), (30, 25, 5, 1)]


def test_segments_reader_errors_and_rewind(tmp_path):
    t = _seq(np.frombuffer(b"ACGT" * 50, np.uint8), "t")
    q = _seq(np.frombuffer(b"ACGT" * 30, np.uint8), "q")
    f = tmp_path / "a.segments"
    f.write_text("t 1 10 q 1 10 + 5\nt 1 10 q 1 10 + 6\n")
    rd = SegmentsReader(str(f))
    assert rd.take(t, q, "+")["score"].tolist() == [6]          # identical rows merge
    rd.finish()
    # segments for a strand that never comes are left over -> error
    f.write_text("t 1 10 q 1 10 - 5\nt 1 10 q 1 10 + 5\n")
    rd = SegmentsReader(str(f))
    assert len(rd.take(t, q, "+")) == 0
    assert len(rd.take(t, q, "-")) == 1
    with pytest.raises(InputError, match="extra segments"):
        rd.finish()
    # rewind: every strand reads the file from the top
    f.write_text("t 1 10 q 1 10 + 5\nrewind\n")
    rd = SegmentsReader(str(f))
    assert len(rd.take(t, q, "+")) == 1
    assert len(rd.take(t, q, "-")) == 0
    rd.finish()
    for bad, msg in [("t 1 10 q 1 11 + 5", "different lengths"), ("t 1 10 q 1 10 x 5", "bad strand"),
                     ("t 1 10 q 1", "too few"), ("t 0 9 q 1 10 + 5", "out of range"),
                     ("t 1 10 q 171 180 + 5", "out of range"), ("t 1 1x q 1 10 + 5", "bad field")]:
        f.write_text(bad + "\n")
        with pytest.raises(InputError, match=msg):
            SegmentsReader(str(f)).take(t, q, "+")


# --- --queryhspbest with --segments, against lastz -------------------------------------------


@pytest.fixture(scope="module")
def hspbest_segments(shared_pairs, tmp_path_factory):
    """hpylori's segments as lastz writes them (both strands), and the file's + and -
    rows alone; mers' (46 queries)."""
    where = tmp_path_factory.mktemp("hspbest")
    for name, pair in (("hp", "hpylori_26695_vs_J99_Eslice"), ("mers", "mers_ref_vs_46isolates")):
        p = shared_pairs / pair
        text = subprocess.run([LASTZ, str(p / "target.fa"), str(p / "query.fa"),
                               "--format=segments"], capture_output=True, check=True,
                              text=True).stdout
        (where / f"{name}.txt").write_text(text)
        head, *rows = text.splitlines(keepends=True)
        for strand in "+-":
            picked = [r for r in rows if r.split("\t")[6] == strand]
            (where / f"{name}{strand}.txt").write_text(head + "".join(picked))
    return where


@pytest.mark.parametrize("seg, opts", [
    ("hp", "--queryhspbest=1"),
    ("hp", "--queryhspbest=10"),                # a minus row among the chosen
    ("hp", "--queryhspbest=50 --format=maf"),
    ("hp", "--queryhspbest=5 --nogapped"),
    ("hp", "--queryhspbest=7 --masking=2"),
    ("hp-", "--queryhspbest=5"),                # minus rows only: lastz aligns none
    ("hp-", "--queryhspbest=5 --strand=minus"), # one strand: nothing chosen
    ("hp+", "--queryhspbest=4 --nogfextend"),
    ("mers", "--queryhspbest=2"),
])
def test_queryhspbest_with_segments_as_lastz(shared_pairs, hspbest_segments, seg, opts):
    """LASTZ 1.04.22 keeps each segments-file row's strand character as its id, which
    the split of the shared table by strand never matches: with both strands the minus
    strand is finished with no anchors and the plus strand with every chosen row (the
    minus ones where they lie in the minus strand's buffer).  fastz does the same."""
    pair = "mers_ref_vs_46isolates" if seg == "mers" else "hpylori_26695_vs_J99_Eslice"
    p = shared_pairs / pair
    args = [str(p / "target.fa"), str(p / "query.fa"),
            f"--segments={hspbest_segments / (seg + '.txt')}", *opts.split(),
            *(["--format=general:name1,start1,end1,name2,start2,end2,strand2,score"]
              if "--format" not in opts else [])]
    lz = subprocess.run([LASTZ, *args], capture_output=True, timeout=600)
    fz = subprocess.run([sys.executable, "-m", "fastz", *args], capture_output=True,
                        timeout=600)
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr


# --- Segments with query actions, against lastz --------------------------------------------

# (pair, query spec, segments: "lastz" for lastz's own --format=segments of the pair
# (query.fa, or query.fa[multiple] when the spec partitions it), else the file's text;
# more words)
_SEG_ACTION_CASES = [
    # [revcomp]: LASTZ's first pass over the query is its - strand, so it takes the
    # file's - rows first (fastz had taken + rows: no alignment at all)
    ("dmel2R_vs_dpse_contigs", "query.fa[revcomp]", "lastz", "--format=sam-"),
    ("dmel2R_vs_dpse_contigs", "query.fa[revcomp]", "lastz", "--nogapped"),
    ("dmel2R_vs_dpse_contigs", "query.fa[revcomp]", "lastz", "--strand=plus --format=axt"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[revcomp]", "lastz", "--format=axt"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[multiple][revcomp]", "lastz", "--format=axt"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[multiple]", "lastz",
     "--format=axt --strand=minus"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[multiple][revcomp]",
     "cat\t183\t280\tpig2\t1\t98\t+\t3131\ncat\t183\t280\tpig1\t1\t98\t-\t3131\n", "--format=axt"),
    # the failures' details, as LASTZ words them (a - strand's subrange; unsigned)
    ("lastz_pseudocat_vs_pseudopig", "query.fa[1000..5000]", "lastz", "--format=axt"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[10000..20000]",
     "cat\t183\t280\tpig1\t198\t295\t-\t3131\n", ""),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[10000..20000]",
     "cat\t183\t280\tpig1\t15000\t15097\t-\t3131\n", ""),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[multiple]",
     "cat\t183\t280\tpig2\t99000\t99097\t-\t3131\n", "--format=axt"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[multiple][1000..20000]",
     "cat\t183\t280\tpig1\t15000\t15097\t-\t3131\n", "--format=axt"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa[multiple]",
     "cat\t100\t30000\tpig1\t1\t29901\t+\t3131\n", "--format=axt"),
]


@pytest.mark.parametrize("pair, query, segments, words", _SEG_ACTION_CASES)
def test_segments_with_query_actions_as_lastz(shared_pairs, tmp_path, pair, query, segments,
                                              words):
    """--segments with a reverse-complemented, partitioned or sliced query: the same
    alignments as lastz, or the same failure (lastz's lines on one line)."""
    cwd = shared_pairs / pair
    seg = tmp_path / "s.segments"
    if segments == "lastz":
        base = "query.fa[multiple]" if "[multiple]" in query else "query.fa"
        seg.write_bytes(subprocess.run([LASTZ, "target.fa", base, "--format=segments"],
                                       cwd=cwd, capture_output=True, check=True).stdout)
    else:
        seg.write_text(segments)
    argv = ["target.fa", query, f"--segments={seg}", *words.split()]
    want, got = (run_program(p, argv, cwd, timeout=300) for p in ("lastz", "fastz"))
    assert got.returncode == want.returncode
    if want.returncode == 0:
        assert drop_version(got.stdout) == drop_version(want.stdout)
        assert got.stdout.count(b"\n") > 3
    else:
        said = " ".join(want.stderr.decode().removeprefix("FAILURE: ").splitlines())
        assert got.stderr.decode() == f"fastz: {said}\n"


@pytest.mark.parametrize("target", ["target.fa[revcomp]", "target.fa-",
                                    "target.fa[5000,2000]", "target.fa[multiple][revcomp]",
                                    "target.fa[revcomp][revcomp]"])
def test_segments_with_a_reverse_complemented_target_as_lastz(shared_pairs, tmp_path,
                                                              target):
    """lastz refuses a segments file (forward target positions) once the target is
    reverse-complemented, by '-', [revcomp] or a backward subrange; twice is forward
    again.  fastz had aligned the file's segments to the reversed target."""
    cwd = shared_pairs / "dengue1_vs_dengue2"
    seg = tmp_path / "s.segments"
    seg.write_bytes(subprocess.run([LASTZ, "target.fa", "query.fa", "--format=segments"],
                                   cwd=cwd, capture_output=True, check=True).stdout)
    argv = [target, "query.fa", f"--segments={seg}", "--format=general"]
    want, got = (run_program(p, argv, cwd, timeout=300) for p in ("lastz", "fastz"))
    assert got.returncode == want.returncode
    if want.returncode == 0:
        assert got.stdout == want.stdout and got.stdout.count(b"\n") >= 2
    else:
        said = want.stderr.decode().removeprefix("FAILURE: ")
        assert "reverse-complement of target" in said
        assert got.stderr.decode() == f"fastz: {said}"


@pytest.mark.parametrize("words", ["--masking=6 --format=general", "--masking=3 --format=maf"])
def test_masking_with_segments_goes_on_where_lastz_crashes(shared_pairs, tmp_path, words):
    """lastz 1.04.22 dies of a segmentation fault once --masking masks a target interval
    while --segments supplies the anchors (it removes the interval's seeds from a
    position table it never built: remove_interval_seeds with pt NULL).  fastz goes
    on: up to the crash the same bytes, then the later queries aligned to the masked
    target (what lastz prints with that one call guarded: docs/hardening.md)."""
    cwd = shared_pairs / "mers_ref_vs_46isolates"
    seg = tmp_path / "s.segments"
    seg.write_bytes(subprocess.run([LASTZ, "target.fa", "query.fa", "--format=segments"],
                                   cwd=cwd, capture_output=True, check=True).stdout)
    argv = ["target.fa", "query.fa", f"--segments={seg}", *words.split()]
    want, got = (run_program(p, argv, cwd, timeout=300) for p in ("lastz", "fastz"))
    assert want.returncode == -11 and got.returncode == 0, got.stderr
    lz, fz = drop_version(want.stdout), drop_version(got.stdout)
    # (lastz's stdout is a pipe: it lost what it had buffered, whole lines or not)
    assert lz.count(b"\n") > 5 and fz.startswith(lz[:lz.rfind(b"\n") + 1])
    assert fz.count(b"\n") > lz.count(b"\n") + 2
