"""The rest of LASTZ (issue 6), each compared with the real lastz on whole outputs (after
`drop_version`): chaining, interpolation, adaptive thresholds, GFA output, --justhits with
overweight seeds, dynamic masking and the census, --self with mirroring, --anchors, nib input
and the remaining output formats; plus `fastz dotplot`.

fastz runs in this process (one numba load for the whole module, `--workers=1`, which LASTZ's
argument string never shows) while lastz runs beside it in a thread.
"""
from __future__ import annotations

import contextlib
import io
import random
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from conftest import drop_version, run_lastz

CAT, PIG = "pseudocat.fa", "pseudopig.fa"
HUMAN, COW = "aglobin.2bit/human", "aglobin.2bit/cow"
APPLE, ORANGE = "fake_apple.fa", "fake_orange_reads.fa"
TQ = ("target.fa", "query.fa")
MLC = "mlc_testdata_pair"
SELF_FIELDS = "--format=general:score,name1,strand1,start1,end1,name2,strand2,start2,end2," \
              "identity,cigar"      # lastz's general format fails on --self (no true lengths)
FILTERED = "general:score,name1,name2,identity,coverage,continuity,ngap,cgap,nmatch,nmismatch"


def fastz_output(words, cwd: Path, monkeypatch) -> bytes:
    """fastz's stdout for `words` run in `cwd` (in this process)."""
    from fastz.options import Options
    from fastz.pipeline import run

    buf = io.StringIO()
    with monkeypatch.context() as m:
        m.chdir(cwd)
        with contextlib.redirect_stdout(buf):
            assert run(Options.from_argv([*words, "--workers=1"])) == 0
    return buf.getvalue().encode("utf-8", "surrogateescape")


def assert_same(words, cwd: Path, monkeypatch, extra_files=()):
    """lastz and fastz give the same bytes (and write the same `extra_files`, named in the
    words relative to `cwd`; the programs then run one after the other)."""
    if extra_files:
        want = run_lastz(list(words), cwd)
        written = {name: (cwd / name).read_bytes() for name in extra_files}
        for name in extra_files:
            (cwd / name).unlink()
        got = fastz_output(list(words), cwd, monkeypatch)
    else:
        with ThreadPoolExecutor(max_workers=1) as pool:
            want_job = pool.submit(run_lastz, list(words), cwd)
            got = fastz_output(list(words), cwd, monkeypatch)
            want = want_job.result()
    assert want, "lastz printed nothing: the case would test nothing"
    want, got = drop_version(want), drop_version(got)
    if got != want:
        a, b = want.splitlines(), got.splitlines()
        n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        pytest.fail(f"first difference at line {n + 1} (lastz {len(a)}, fastz {len(b)} lines):\n"
                    f"lastz: {a[n:n + 2]}\nfastz: {b[n:n + 2]}")
    for name in extra_files:
        assert (cwd / name).read_bytes() == written[name], name


@pytest.fixture(scope="module")
def data(lastz_data: Path, tmp_path_factory) -> Path:
    """LASTZ's regression data plus a synthetic palindromic sequence, in a scratch copy
    (the masking/census cases write files beside the inputs)."""
    import shutil
    out = tmp_path_factory.mktemp("extras")
    for src in lastz_data.iterdir():
        shutil.copy(src, out / src.name)
    rng = random.Random(5)
    rnd = lambda n: "".join(rng.choice("ACGT") for _ in range(n))  # noqa: E731
    rc = lambda s: s.translate(str.maketrans("ACGT", "TGCA"))[::-1]  # noqa: E731

    def mutate(s, p=0.05):
        out = []
        for c in s:
            r = rng.random()
            out.append(rng.choice("ACGT") if r < p else "" if r < 1.2 * p else
                       c + rng.choice("ACGT") if r < 1.4 * p else c)
        return "".join(out)
    a = rnd(800)
    pal = (rnd(2000) + a + rc(mutate(a)) + rnd(1500) + a[:300] + rnd(7) + rc(mutate(a[:300]))
           + rnd(1000) + a + rnd(3) + rc(a) + rnd(500))
    (out / "palindromes.fa").write_text(f">pal\n{pal}\n")
    # a target with five exact copies of a repeat (its seed words occur 5 times) and a
    # query whose plus strand masks the unique part, whose minus strand holds the repeat
    rep, uniq = rnd(400), rnd(3000)
    (out / "repeats.fa").write_text(
        ">rep\n" + rnd(1000) + uniq + rnd(500) + "".join(rep + rnd(300) for _ in range(5))
        + rnd(1000) + "\n")
    (out / "repeat_probe.fa").write_text(
        ">probe\n" + rnd(200) + mutate(uniq) + rnd(300) + rc(mutate(rep)) + rnd(200) + "\n")
    return out


@pytest.fixture(scope="module")
def pair(shared_pairs: Path):
    return lambda name: shared_pairs / name


# --- 1. chaining (--chain, --chain=G,P, C=1/C=2) -------------------------------------------

@pytest.mark.parametrize("words", [
    (CAT, PIG, "C=1", "W=8", "T=0"),
    (CAT, PIG, "C=2", "W=8", "T=0", "--format=maf"),
    (CAT, PIG, "--chain=100,50", "--nogapped"),
    (CAT, PIG, "--chain=3000,20"),
    (CAT, PIG, "--chain", "--nogfextend", "--nogapped"),
    (HUMAN, COW, "--chain=7,3", "W=8", "T=0", "--nogapped", "--format=general"),
    (HUMAN, "shorties.fa[multiple]", "--chain", "K=2000", "--format=general"),
], ids=lambda w: " ".join(w[2:]))
def test_chain(words, data, monkeypatch):
    assert_same(words, data, monkeypatch)


@pytest.mark.parametrize("words", [
    (*TQ, "--chain=1000,3", "W=10", "--nogapped", "--format=general"),
    (*TQ, "--chain=1,1000", "W=10", "--nogapped", "--format=general"),
], ids=lambda w: " ".join(w[2:]))
def test_chain_penalties_hpylori(words, pair, monkeypatch):
    """Large G or P: the k-d tree search prunes (and, in LASTZ, mixes up axes)."""
    assert_same(words, pair("hpylori_26695_vs_J99_Eslice"), monkeypatch)


def test_chain_partitioned_both(pair, monkeypatch):
    assert_same(("target.fa[multiple]", "query.fa[multiple]", "--chain=5,5", "--nogapped",
                 "--format=general"), pair(MLC), monkeypatch)


def test_chain_kernel_reduces_to_best_chain():
    """A tiny case by hand: with a diagonal penalty the two collinear segments win over
    a chain through the higher-scoring segment far off their diagonal."""
    from fastz.kernels.chain import reduce_to_chain
    pos1 = np.array([0, 100, 50], np.int64)
    pos2 = np.array([0, 100, 500], np.int64)
    length = np.array([20, 20, 20], np.int64)
    score = np.array([1000, 1000, 1500], np.int64)
    order = np.argsort(pos1, kind="stable")
    keep = reduce_to_chain(pos1[order], pos2[order], length[order], score[order], 1000, 0, 100,
                           91)
    assert sorted(pos1[order][keep].tolist()) == [0, 100]
    keep = reduce_to_chain(pos1[order], pos2[order], length[order], score[order], 0, 0, 100, 91)
    assert sorted(pos1[order][keep].tolist()) == [0, 50]          # no penalty: A then C


# --- 2. interpolation (--inner / H=) --------------------------------------------------------

def test_make_lastz_chains_command(pair, monkeypatch):
    """make_lastz_chains' exact lastz command."""
    assert_same(("target.fa[multiple]", "query.fa", "K=2400", "H=2000", "L=3000", "Y=9400",
                 "--format=axt+"), pair(MLC), monkeypatch)


@pytest.mark.parametrize("words", [
    (CAT, PIG, "C=2", "W=8", "T=0", "H=2200"),
    (CAT, PIG, "H=2000", "--format=general"),
    (HUMAN, "shorties.fa[multiple]", "H=1000", "K=2000", "--format=general"),
], ids=lambda w: " ".join(w[2:]))
def test_inner(words, data, monkeypatch):
    assert_same(words, data, monkeypatch)


def test_inner_partitioned_both(pair, monkeypatch):
    assert_same(("target.fa[multiple]", "query.fa[multiple]", "H=2000", "--format=general"),
                pair(MLC), monkeypatch)


def test_inner_real_pair(pair, monkeypatch):
    assert_same((*TQ, "H=1500", "--format=general"), pair("dmel2R_vs_dpse_contigs"), monkeypatch)


# --- 3. adaptive thresholds, --gfa, --justhits, overweight seeds ---------------------------

@pytest.mark.parametrize("words", [
    (HUMAN, COW, "C=3", "W=8", "T=0", "--noentropy", "K=top50%", "--gfa"),
    (HUMAN, COW, "C=3", "W=8", "T=0", "K=top50%"),
    (CAT, PIG, "K=top2000"),
    (CAT, PIG, "K=top5%", "--strand=plus"),
    (CAT, PIG, "K=top20%", "--strand=minus", "--nogapped"),
    (CAT, PIG, "K=top1%", "L=top2%", "--format=maf+"),
    (CAT, PIG, "K=top1%", "L=4000", "--format=axt+"),
    (CAT, PIG, "K=top3%", "--chain"),
    (APPLE, ORANGE, "K=top3%"),                   # plus strand HSPs rescored before extension
    (APPLE, ORANGE, "K=top3%", "--masking=2"),
    # the count is a u32 (a negative one keeps every HSP) from a C int (its least
    # value needs no suffix check)
    (CAT, PIG, "K=top-1", "--nogapped", "--format=general"),
    (CAT, PIG, "K=top-2147483648", "--nogapped", "--format=general"),
], ids=lambda w: " ".join(w[2:]))
def test_adaptive(words, data, monkeypatch):
    assert_same(words, data, monkeypatch)


def test_choose_best_keeps_the_n_best_and_their_ties():
    """segtable.choose_best against a plain reference: sort by (score down, length, pos2,
    pos1, id up), keep the first n and every segment tied with the n-th."""
    from fastz.kernels import segtable as kst

    rng = np.random.default_rng(3)
    for trial in range(300):
        m = int(rng.integers(0, 40))
        rows = [(int(rng.integers(0, 50)), int(rng.integers(0, 50)), int(rng.integers(1, 6)),
                 int(rng.integers(0, 8)) * 100, int(rng.choice([0, 3]))) for _ in range(m)]
        seg, state = kst.new_table()
        for p1, p2, ln, sc, sid in rows:
            seg = kst.add_segment(seg, state, 0, p1, p2, ln, sc, sid)
        n = int(rng.integers(1, 12))
        kst.choose_best(seg, state, n)
        got = [tuple(r) for r in seg[:state[kst.S_LEN], :5].tolist()]
        if m <= n:
            want = rows                                  # untouched, discovery order
        else:
            ranked = sorted(rows, key=lambda r: (-r[3], r[2], r[1], r[0], r[4]))
            want = [r for r in ranked if r[3] >= ranked[n - 1][3]]
        assert got == want, trial


@pytest.mark.parametrize("words", [
    (CAT, PIG, "--gfa"),
    (CAT, PIG, "--format=gfanoscore", "--markend"),
    (CAT, PIG, "--gfa", "--nogapped", "--strand=minus"),
    (CAT, PIG, "--justhits", "--seed=111010011101", "--word=12", "--gfa"),
    (CAT, PIG, "--justhits"),
    (CAT, PIG, "--seed=111010011101", "--word=12", "--format=lav+"),
], ids=lambda w: " ".join(w[2:]))
def test_gfa_justhits_word(words, data, monkeypatch):
    assert_same(words, data, monkeypatch)


# --- 4. dynamic masking and the census -----------------------------------------------------

@pytest.mark.parametrize("words", [
    (APPLE, ORANGE, "--masking=3"),
    (APPLE, ORANGE, "--masking=3", "--format=maf+"),
    (APPLE, ORANGE, "--masking=2", "--gfa"),
    (APPLE, ORANGE, "--masking=300", "--census"),
    (APPLE, ORANGE, "--masking=2", "H=2000", "--chain", "--format=lav+"),
    (CAT, PIG, "--census"),
    (CAT, PIG, "--masking=1", "--nogapped"),
    # words --maxwordcount dropped stay dropped when masking rebuilds the index (lastz
    # finds the repeat only if they come back)
    ("repeats.fa", "repeat_probe.fa", "--maxwordcount=2", "--masking=1", "--format=general"),
    ("repeats.fa", "repeat_probe.fa", "--maxwordcount=2,100", "--masking=1"),
], ids=lambda w: " ".join(w[2:]))
def test_masking(words, data, monkeypatch):
    assert_same(words, data, monkeypatch)


@pytest.mark.parametrize("after", [(), ("--census",), ("--nocensus", "--census"),
                                   ("c=0", "c=1")], ids=" ".join)
def test_census_file(after, data, monkeypatch):
    """The census file once named stays named while later words turn the census off
    and on (fastz had dropped it, then refused a --census with no file there)."""
    assert_same((APPLE, ORANGE, "--masking=2", "--census=apple.census", *after,
                 "--format=axt+"), data, monkeypatch, extra_files=["apple.census"])


def test_outputmasking_files(data, monkeypatch):
    assert_same((APPLE, ORANGE, "--masking=3", "--outputmasking+=apple.dyn",
                 "--outputmasking:soft=apple.soft", "--markend"), data, monkeypatch,
                extra_files=["apple.dyn", "apple.soft"])


def test_census_file_partitioned(pair, tmp_path, monkeypatch):
    cwd = tmp_path
    for name in TQ:
        (cwd / name).symlink_to(pair(MLC) / name)
    assert_same(("target.fa[multiple]", "query.fa", "--masking=2", "--census=mlc.census",
                 "--format=general"), cwd, monkeypatch, extra_files=["mlc.census"])


# --- 5. --self, --anchors, nib, lav+text, other formats ------------------------------------

@pytest.mark.parametrize("words", [
    (HUMAN, "--self", SELF_FIELDS),
    (HUMAN, "--self", "--nomirror", SELF_FIELDS),
    (HUMAN, "--self", "--nogapped", "W=8", "T=0", SELF_FIELDS),
    (HUMAN, "--self", "--nogapped", "--chain"),
    ("palindromes.fa", "--self"),
    ("palindromes.fa", "--self", "--nogapped", SELF_FIELDS),
    ("palindromes.fa", "--self", "--strand=minus", "--format=maf"),
], ids=lambda w: " ".join(w[1:]))
def test_self(words, data, monkeypatch):
    assert_same(words, data, monkeypatch)


@pytest.mark.parametrize("words", [
    (HUMAN, COW, "C=0", "--format=maf-", "--anchors=base_test.anchors.anchors"),
    (HUMAN, "shorties.fa[subset=shorties.names]", "C=0", "--format=maf-",
     "--anchors=base_test.anchors_multi.anchors"),
    ("pseudopig2.nib", CAT),
    ("pseudocat.nib", PIG, "--format=axt"),
    (CAT, PIG, "--format=lav+text"),
    # --expand=N: N more aligned bases of context at each end in the text formats
    (CAT, PIG, "--format=text", "--expand=30"),
    (CAT, PIG, "--format=ztext", "--expand=999"),           # runs into the sequence ends
    (CAT, PIG, "--format=lav+text", "--expand=7", "--nogapped"),
    ("pseudopig.fa[multiple]", CAT, "--format=text", "--expand=60"),
    (CAT, PIG, "--format=maf", "--expand=3"),                # no effect outside text
    # --queryhspbest=N: both strands' HSPs of a query in one table, the N best kept (and
    # all tied with the N-th), minus strand finished first, the plus strand rescored
    (CAT, PIG, "--queryhspbest=2"),
    (CAT, PIG, "--queryhspbest=3", "--nogapped"),           # printed in score order
    (CAT, PIG, "--queryhspbest=2", "--chain", "--format=general"),
    (CAT, PIG, "--queryhspbest=2", "--strand=plus"),        # one strand: nothing chosen
    ("pseudopig.fa[multiple]", CAT, "--queryhspbest=2", "--format=maf"),
    (APPLE, ORANGE, "--queryhspbest=3"),
    # with an adaptive threshold the table keeps the best HSPs covering the target
    # count (and does entropy) before the N best are chosen: differs from either alone
    (CAT, PIG, "K=top30%", "--queryhspbest=20", "--format=general"),
    # the seed-hit filter changes which HSPs there are, not how they are chosen
    (CAT, PIG, "--queryhspbest=4", "--filter=2,8", "--nogapped"),
    (CAT, PIG, "--hspthresh=top20%", "--filter=cares:1,12", "--format=general"),
    (CAT, PIG, "K=top5", "--filter=2,8", "--nogapped"),
    (CAT, PIG, "K=top3000", "--filter=1,9", "--queryhspbest=4", "--format=axt"),
    # --twins/--recoverseeds HSPs are merged only when the strand is finished: after
    # the table chose or counted them (merged first, the order or the count differs)
    (CAT, PIG, "--queryhspbest=4", "--recoverseeds", "--nogapped"),
    # un-extended seed hits sit in the table with score 0 (all tie: all kept), and are
    # scored when their strand is finished
    (CAT, PIG, "--queryhspbest=5", "--nogfextend"),
    (CAT, PIG, "--queryhspbest=50", "--nogfextend", "--chain", "--format=general"),
    (CAT, PIG, "--queryhsplimit=5000", "--nogfextend", "--format=general"),
    (CAT, PIG, "--queryhspbest=3", "--twins=0..50", "--format=general"),
    (CAT, PIG, "K=top5", "--recoverseeds", "--format=general"),
    (CAT, PIG, "K=top20%", "--twins=1..60", "--nogapped"),
    (CAT, PIG, "--queryhsplimit=40", "--twins=5..80"),
    (CAT, PIG, "--queryhsplimit=nowarn:100", "--recoverseeds", "--format=rdotplot"),
    (CAT, PIG, "--queryhspbest=3", "--filter=0,11", "--chain", "--format=maf"),
    (CAT, PIG, "--queryhsplimit=nowarn:60", "--filter=1,9", "--nogapped"),
    (CAT, PIG, "K=top3000", "--queryhspbest=4", "--gappedthresh=top2000", "--format=axt"),
    # --queryhsplimit=N: a query with more than N HSPs (both strands) is dropped; the
    # others are finished minus strand first
    (CAT, PIG, "--queryhsplimit=8", "--format=general"),
    (CAT, PIG, "--queryhsplimit=9", "--masking=1"),
    (CAT, PIG, "--queryhsplimit=nowarn:3", "--strand=plus", "--format=maf"),
    (CAT, PIG, "--queryhsplimit=warn:50", "--nogapped"),
    # the keep forms: a strand's search stops after the query position where it found
    # more than the HSPs left to it, and keeps what it found (nothing is dropped)
    (CAT, PIG, "--queryhsplimit+=5"),
    (CAT, PIG, "--queryhsplimit=keep,nowarn:3", "--nogapped"),
    (CAT, PIG, "--queryhsplimit+=nowarn:10", "--recoverseeds", "--format=maf"),
    (CAT, PIG, "--queryhsplimit+=10", "--filter=2,8", "--format=general"),
    (CAT, PIG, "--queryhsplimit+=30", "--nogfextend", "--nogapped", "--format=general"),
    ("pseudopig.fa[multiple]", CAT, "--queryhsplimit+=warn:2", "--format=general"),
    # --anyornone / --stopafter=N: each HSP gapped-extended as it is found, the first N
    # distinct alignments of a query printed (segments counted in the segment formats)
    (CAT, PIG, "--anyornone"),
    (CAT, PIG, "--stopafter=3", "--format=general"),
    (CAT, PIG, "--stopafter=10", "--format=maf"),
    (CAT, PIG, "--anyornone", "--format=rdotplot"),
    (CAT, PIG, "--stopafter=5", "--format=genseg"),
    (CAT, PIG, "--limitperquery=4", "--identity=80", "--format=axt"),
    (CAT, PIG, "--stopafter=3", "--nogfextend", "--format=general"),
    # a query identical to the target: the extension, then the trivial self-alignment
    # LASTZ adds when it finishes the strand (so it prints the alignment twice)
    (CAT, CAT, "--stopafter=3"),
    (CAT, CAT, "--stopafter=3", "--notrivial", "--format=general"),
    # lastz then prints at most N gap-free segments per query (cut mid-alignment)
    (CAT, PIG, "--queryhsplimit=nowarn:46", "--format=rdotplot"),
    (CAT, PIG, "--queryhsplimit=nowarn:20", "--format=genseg"),
    (CAT, PIG, "--format=differences"),
    (CAT, PIG, "--format=blastn"),
    (CAT, PIG, "--format=paf:wfmash"),
    (CAT, PIG, "--format=rdotplot"),
    (CAT, PIG, "--format=rdotplot+score", "--markend"),
    # the identity distribution (identity_dist.c): its bins, at the end of the run
    (CAT, PIG, "--format=identity", "--markend", "--runtime"),
    (CAT, PIG, "--format=identity", "--nogapped", "--stopafter=30"),
    (CAT, PIG, "--format=mafsegments", "--format=identity", "--rdotplot=/dev/null"),
    ("pseudopig.fa[multiple]", CAT, "--format=identity", "--identity=70"),
    (CAT, PIG, "--format=maf", "--markend"),
    # the back-end filters (tested on the whole table at once), each keeping some
    (CAT, PIG, "--identity=61..66", "--coverage=2..15", "--format=" + FILTERED),
    # (bounds that lastz's own counts meet exactly: 19 gaps, 55 gap columns, ...)
    (CAT, PIG, "--continuity=88..95", "--filter=ngap:..19", "--format=" + FILTERED),
    (CAT, PIG, "--filter=cgap:..55", "--filter=nmatch:332", "--filter=nmismatch:0..198",
     "--format=" + FILTERED),
    (APPLE, ORANGE, "--coverage=90", "--identity=93", "--format=" + FILTERED),
    (CAT, PIG, "--nogapped", "--identity=70", "--filter=nmatch:20", "--format=" + FILTERED),
    ("pseudopig.fa[multiple]", CAT, "--coverage=10", "--format=" + FILTERED),
], ids=lambda w: " ".join(w[2:]))
def test_more(words, data, monkeypatch):
    assert_same(words, data, monkeypatch)


@pytest.mark.parametrize("words,shown", [
    (("--format=lav+text", "--runtime"), True),
    (("--format=maf+", "--runtime", "--markend"), True),
    (("--format=axt+", "--runtime"), True),
    (("--format=lav+", "--runtime", "--markend"), True),
    (("--format=maf+", "--runtime", "--noruntime"), False),
    (("--format=maf", "--runtime"), False),          # formats without comments: nothing
    (("--format=general", "--runtime"), False),
], ids=lambda w: " ".join(w) if isinstance(w, tuple) else str(w))
def test_runtime_line_where_lastz_writes_it(words, shown, data, monkeypatch):
    """--runtime ends the output with LASTZ's ``runtime=`` comment (before --markend's
    line) in the formats that carry comments; the seconds themselves differ."""
    argv = [CAT, PIG, *words]
    want = run_lastz(argv, data)
    got = fastz_output(argv, data, monkeypatch)

    def blank(text):
        return re.sub(rb"runtime=\d+\.\d{3}\n", b"runtime=T\n", drop_version(text))

    assert blank(got) == blank(want)
    assert (b"runtime=T\n" in blank(want)) == shown


@pytest.mark.parametrize("words", [
    ("--nolaj",), ("--laj", "--nolaj"), ("--nolaj", "--laj"), ("--nolaj", "--format=lav+"),
    ("--nolaj", "--format=gfa"),
], ids=" ".join)
def test_nolaj_drops_the_fasta_arrow(words, data, tmp_path, monkeypatch):
    """--nolaj: FASTA headers are read without their '>' (and the blanks after it), as
    lav's h stanza and gfa then print them; lastz's default (--laj) keeps both."""
    (tmp_path / "t.fa").write_text(">  seqA  first one\n" + "ACGTACGTTAGCTAGCTAGGCTAGCATCGATC" * 3
                                   + "\n")
    (tmp_path / "q.fa").write_text(">\tseqB second\n" + "ACGTACGTTAGCTAGCTAGGCTAGCATCGATC" * 3
                                   + "\n")
    assert_same(("t.fa", "q.fa", *words), tmp_path, monkeypatch)
    assert_same((CAT, PIG, *words), data, monkeypatch)


# --- 6. fastz dotplot --------------------------------------------------------------------------

def test_dotplot_writes_png(data, tmp_path):
    pytest.importorskip("matplotlib")
    from parity_cases import fastz_env, program_argv
    rdp = tmp_path / "cat_pig.rdotplot"
    rdp.write_bytes(run_lastz([CAT, PIG, "--format=rdotplot"], cwd=data))
    png = tmp_path / "cat_pig.png"
    res = subprocess.run([*program_argv("fastz"), "dotplot", str(rdp), "-o", str(png)],
                         capture_output=True, timeout=300, env=fastz_env())
    assert res.returncode == 0, res.stderr.decode()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 5000


def test_dotplot_reads_segments(data, tmp_path):
    from fastz.io.dotplot import read_rdotplot
    rdp = tmp_path / "x.rdotplot"
    rdp.write_bytes(run_lastz([HUMAN, "shorties.fa", "K=2500", "--format=rdotplot+score"],
                              cwd=data))
    d = read_rdotplot(rdp)
    assert len(d.names) == len(d.segments) > 1
    assert all(s.shape[1] == 4 for s in d.segments)
    lines = rdp.read_text().splitlines()
    assert sum(s.shape[0] for s in d.segments) == sum(1 for ln in lines if ln.startswith("NA"))


@pytest.mark.parametrize("limit", [["--stopafter=6"], ["--anyornone"],
                                   ["--queryhspbest=13", "--stopafter=6"],
                                   ["--stopafter=6", "--notruncationreport"]],
                         ids=" ".join)
def test_immediate_extensions_after_the_last_printed_one_still_report(limit, shared_pairs):
    """--anyornone/--stopafter: lastz goes on extending the HSPs it finds after the last
    alignment it can print (until one more distinct alignment counts); none is printed,
    but their truncation reports are on stderr, whole, as fastz's."""
    from parity_cases import run_program
    words = ["target.fa", "query.fa", *limit, "--allocate:traceback=200k"]
    cwd = shared_pairs / "hpylori_26695_vs_J99_Eslice"
    lz, fz = (run_program(p, words, cwd) for p in ("lastz", "fastz"))
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    printable = 1 if "--anyornone" in limit else 6
    if "--notruncationreport" not in limit:     # (two lines an alignment truncated)
        assert lz.stderr.count(b"truncating") > 2 * printable, "none after the last printed"


@pytest.fixture(scope="module")
def three_copies(shared_pairs, tmp_path_factory):
    """A target holding the human mitochondrion three times between random spacers:
    each query seed hits three places at one query position."""
    import random
    where = tmp_path_factory.mktemp("three")
    mito = "".join(ln.strip() for ln in
                   (shared_pairs / "mito_human_orang" / "target.fa").read_text().splitlines()
                   if not ln.startswith(">"))
    rng = random.Random(5)
    spacer = lambda: "".join(rng.choice("ACGT") for _ in range(3000))  # noqa: E731
    seq = spacer() + mito + spacer() + mito + spacer() + mito + spacer()
    (where / "t3.fa").write_text(">t3\n" + "\n".join(seq[i:i + 60]
                                                   for i in range(0, len(seq), 60)) + "\n")
    (where / "q.fa").write_bytes((shared_pairs / "mito_human_orang" / "query.fa").read_bytes())
    return where


@pytest.mark.parametrize("limit", [["--anyornone"], ["--stopafter=1"], ["--stopafter=2"],
                                   ["--anyornone", "--twins=1..100"]], ids=" ".join)
def test_immediate_search_stops_after_its_query_position(limit, three_copies):
    """The search stops once a query position is done: the position's HSPs after the one
    that passes the limit are extended too, printed nowhere, their truncations reported
    (fastz had stopped at that HSP); a --twins search never stops, and every later HSP
    is extended (29,515 lines of lastz's)."""
    from parity_cases import run_program
    words = ["t3.fa", "q.fa", *limit, "--allocate:traceback=200k"]
    lz, fz = (run_program(p, words, three_copies) for p in ("lastz", "fastz"))
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    assert lz.stderr.count(b"truncating") >= 3


@pytest.mark.parametrize("words", [("--queryhsplimit=2",), ("--verbosity=1",)],
                         ids=" ".join)
def test_immediate_truncations_said_before_the_next_search(words, shared_pairs):
    """HSP-immediate mode: lastz reports a strand's truncations as its search extends the
    HSPs, so they come before the strand's over-the-limit warning and before the next
    strand's --verbosity line (fastz had said those first)."""
    from parity_cases import run_program
    argv = [*TQ, "--stopafter=3", "--allocate:traceback=200k", *words]
    cwd = shared_pairs / "mito_human_orang"
    lz, fz = (run_program(p, argv, cwd) for p in ("lastz", "fastz"))
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    later = b"WARNING" if "--queryhsplimit=2" in words else b"(reverse strand)"
    assert 0 <= lz.stderr.find(b"truncating") < lz.stderr.find(later)


@pytest.mark.parametrize("pair, query, words", [
    ("lastz_pseudocat_vs_pseudopig", "query.fa", "--filter=nmatch:5% --yasra75 --anyornone"),
    ("lastz_pseudocat_vs_pseudopig", "query.fa",
     "--filter=nmatch:1% --filter=nmatch:200 --stopafter=5"),
    ("mito_human_orang", "target.fa", "--filter=nmatch:100% --stopafter=3"),
])
def test_immediate_extensions_ignore_a_match_count_percentage(pair, query, words,
                                                              shared_pairs):
    """lastz's HSP-immediate extensions filter with what it set up before reading any
    query, where a --filter=nmatch percentage of the query's length is still 0: an
    alignment with 115 matches of a 22,929 bp query is printed under nmatch:5%
    (fastz had dropped it); a count given too is applied, and the strand's finish (the
    trivial self-alignment) applies the query's own count."""
    from parity_cases import run_program
    argv = ["target.fa", query, *words.split(),
            "--format=general:name2,zstart2,end2,score,nmatch"]
    cwd = shared_pairs / pair
    lz, fz = (run_program(p, argv, cwd) for p in ("lastz", "fastz"))
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()[-300:]
    assert fz.stdout == lz.stdout and fz.stderr == lz.stderr
    assert lz.stdout.count(b"\n") >= 2


def test_immediate_twin_search_never_warns(shared_pairs):
    """--anyornone with --twins and a --queryhsplimit: lastz's twin search never stops,
    so no query is "over the limit" (fastz had warned and counted two)."""
    from parity_cases import run_program
    words = ["target.fa", "query.fa", "--anyornone", "--twins=1..100", "--queryhsplimit=2"]
    cwd = shared_pairs / "lastz_pseudocat_vs_pseudopig"
    lz, fz = (run_program(p, words, cwd) for p in ("lastz", "fastz"))
    assert lz.returncode == fz.returncode == 0
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr == b""
    assert fz.stdout.count(b"\ns {") >= 2


# --- --entropy=report: LASTZ's stderr line for each HSP the entropy adjustment drops ---

@pytest.mark.parametrize("pair,words", [
    ("hpylori_26695_vs_J99_Eslice", ("--nogapped", "--entropy=report", "--format=general")),
    ("mito_human_orang", ("P=2", "--format=general")),
    ("human_vs_mouse_cgp", ("--entropy=report", "--strand=minus", "--format=maf")),
    ("dwv_vs_vdv1", ("--entropy=report", "--nogapped", "--chain")),
    # --queryhspbest: both strands' lines, then both strands' truncation reports
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--queryhspbest=5",
                                      "--allocate:traceback=200k")),
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--queryhspbest=5", "--masking=2",
                                      "--format=axt")),
    # --queryhsplimit: each search's lines up to where lastz stops it, before its warning
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--queryhsplimit=3")),
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--queryhsplimit=keep,nowarn:5",
                                      "--format=axt")),
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--queryhsplimit=1",
                                      "--verbosity=1", "--format=general")),
    ("dwv_vs_vdv1", ("--entropy=report", "--queryhsplimit=5")),
    # --chores: the searches fenced by each chore's intervals
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--chores={chores}")),
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--chores={chores}",
                                      "--strand=minus", "--format=maf")),
    # the other seed-hit processors: the lines come from their x-drop extensions; a
    # twin search's seed-hit queue shortfall (once a run) falls among them (line 30 of
    # 36 here)
    ("mito_human_orang", ("--entropy=report", "--twins=10..100", "--format=general")),
    ("dwv_vs_vdv1", ("--entropy=report", "--twins=10..200", "--seedqueue=70",
                     "--format=general")),
    ("mito_human_orang", ("--entropy=report", "--recoverseeds")),
    ("mito_human_orang", ("--entropy=report", "--filter=2,10")),
    ("dwv_vs_vdv1", ("--entropy=report", "--recoverseeds", "--queryhsplimit=5")),
    # HSP-immediate mode: the lines of the search up to its stop, each where the search
    # said it, between the truncation reports of the extensions around it
    ("hpylori_26695_vs_J99_Eslice", ("--entropy=report", "--stopafter=3",
                                     "--allocate:traceback=200k", "--format=general")),
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--stopafter=20", "--verbosity=1",
                                      "--queryhsplimit=5", "--allocate:traceback=200k")),
    ("lastz_pseudocat_vs_pseudopig", ("--entropy=report", "--anyornone", "--nogapped")),
    ("hpylori_26695_vs_J99_Eslice", ("--entropy=report", "--stopafter=4", "--nogapped",
                                     "--filter=identity:80", "--queryhsplimit=1")),
])
def test_entropy_report_lines(pair, words, shared_pairs, tmp_path):
    """The report lines (raw score, segment, diagonal, the diagonal hash's block, the
    factor), strand after strand, the alignments unchanged."""
    import sys

    from parity_cases import fastz_env
    cwd = shared_pairs / pair
    chores = tmp_path / "chores.txt"
    chores.write_text("* 1 18000 pig1 1 20000\n* 1 18000 pig2 1 7000 -\ncat 2000 18000 pig3\n")
    words = tuple(w.format(chores=chores) for w in words)
    want = subprocess.run(["lastz", *TQ, *words], cwd=cwd, capture_output=True, timeout=600)
    got = subprocess.run([sys.executable, "-m", "fastz", *TQ, *words], cwd=cwd,
                         capture_output=True, timeout=600, env=fastz_env())
    assert want.returncode == 0 and got.returncode == 0, got.stderr.decode()[-300:]
    assert want.stderr.count(b"fails entropy filter") >= 1
    assert got.stderr == want.stderr
    assert drop_version(got.stdout) == drop_version(want.stdout)


@pytest.mark.parametrize("pair, words", [
    ("mito_human_orang", ("--exact=20",)),
    ("lastz_pseudocat_vs_pseudopig", ("--mismatch=2,20", "--gappedthresh=1000")),
    ("lastz_pseudocat_vs_pseudopig", ("--hspthresh=top5",)),
    ("lastz_pseudocat_vs_pseudopig", ("--hspthresh=top3%", "--queryhspbest=3")),
    ("lastz_pseudocat_vs_pseudopig", ("--segments",)),
])
def test_entropy_report_silent_where_lastz_is(pair, words, shared_pairs, tmp_path):
    """lastz says its lines inside the x-drop seed extension only when the threshold is
    a score: with the --exact/--mismatch extensions, an adaptive threshold (K=top,
    whose score threshold is 0) or a segments file it says none, though the same pair
    has lines with the default search; fastz runs these (it once refused them)."""
    from parity_cases import run_program
    cwd = shared_pairs / pair
    if words == ("--segments",):
        seg = tmp_path / "s.segments"
        seg.write_bytes(subprocess.run(["lastz", *TQ, "--format=segments"], cwd=cwd,
                                       capture_output=True, check=True).stdout)
        words = (f"--segments={seg}",)
    argv = [*TQ, "--entropy=report", *words]
    want, got = (run_program(p, argv, cwd, timeout=600) for p in ("lastz", "fastz"))
    plain = subprocess.run(["lastz", *TQ, "--entropy=report"], cwd=cwd, capture_output=True,
                           timeout=600)
    assert plain.stderr.count(b"fails entropy filter") >= 1
    assert want.returncode == 0 and got.returncode == 0, got.stderr.decode()[-300:]
    assert got.stderr == want.stderr == b""
    assert drop_version(got.stdout) == drop_version(want.stdout)
    assert got.stdout.count(b"\ns {") >= 1                  # (alignments, in lav)


@pytest.mark.parametrize("words", [(), ("--strand=minus",), ("--twins=10..100",)],
                         ids=" ".join)
def test_entropy_report_lines_self_partitioned(words, shared_pairs):
    """--self on a [multiple] target: the opposite strand's search goes through the
    general kernel, whose report lines are lastz's too (fastz once refused this)."""
    from parity_cases import run_program
    argv = ["target.fa[multiple]", "--self", "--entropy=report", *words,
            "--format=general:name1,start1,name2,start2,score"]
    want, got = (run_program(p, argv, shared_pairs / MLC, timeout=600)
                 for p in ("lastz", "fastz"))
    assert want.returncode == 0 and got.returncode == 0, got.stderr.decode()[-300:]
    assert want.stderr.count(b"fails entropy filter") >= 1
    assert got.stderr == want.stderr
    assert got.stdout == want.stdout


@pytest.mark.parametrize("pair, words", [
    ("hpylori_26695_vs_J99_Eslice", ()),
    ("mito_human_orang", ("--twins=10..100", "--format=general")),
    ("hpylori_26695_vs_J99_Eslice", ("--stopafter=3", "--allocate:traceback=200k")),
    ("lastz_pseudocat_vs_pseudopig", ("--nogapped", "--format=general")),
], ids=str)
def test_entropy_report_lines_double(pair, words, shared_pairs):
    """fastz_D says lastz_D's lines (the raw score as a double) where its scores and
    threshold are whole: the integer kernels then decide as lastz_D's doubles do."""
    from parity_cases import run_program
    argv = [*TQ, "--entropy=report", *words]
    want, got = (run_program(p, argv, shared_pairs / pair, timeout=600)
                 for p in ("lastz_D", "fastz_D"))
    assert want.returncode == 0 and got.returncode == 0, got.stderr.decode()[-300:]
    assert want.stderr.count(b".000000 at ") >= 1
    assert got.stderr == want.stderr
    assert drop_version(got.stdout) == drop_version(want.stdout)


def test_entropy_report_where_fastz_cannot_say_it_is_refused(shared_pairs):
    """With fractions in lastz_D's scores or threshold fastz_D does not produce the
    lines: it says so in one line rather than stay silent."""
    from parity_cases import REPO, run_program
    fractional = REPO / "bench" / "hoxd70_fractional.q"
    for words in (("--hspthresh=2500.5",), (f"--scores={fractional}",)):
        res = run_program("fastz_D", [*TQ, "--entropy=report", *words],
                          shared_pairs / "mito_human_orang", timeout=600)
        err = res.stderr.decode()
        assert res.returncode == 1 and err.count("\n") == 1, err
        assert "not yet supported by fastz" in err and "--entropy=report" in err
