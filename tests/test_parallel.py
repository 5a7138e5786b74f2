"""Parallel paths: any number of workers/threads gives lastz's exact output."""
import itertools
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import PAIRS, drop_version, run_lastz
from fastz.io.sequences import iter_queries, reverse_complement_sequence
from fastz.options import Options
from fastz.pipeline import Aligner
from fastz.pipeline.anchors import anchors_from_hsps
from fastz.pipeline.filtering import find_hsps
from fastz.pipeline.gapped import gapped_extend


def _fastz(args, cwd):
    res = subprocess.run([sys.executable, "-m", "fastz", *args], cwd=cwd, capture_output=True)
    assert res.returncode == 0, res.stderr.decode()
    return res.stdout


CASES = [
    ("hpylori_26695_vs_J99_Eslice", ["target.fa", "query.fa", "--format=general"]),
    ("mlc_testdata_pair", ["target.fa[multiple]", "query.fa", "--format=axt"]),
    ("mers_ref_vs_46isolates", ["target.fa", "query.fa", "--format=maf", "--strand=minus"]),
    ("dwv_vs_vdv1", ["target.fa", "query.fa", "--nogfextend", "--format=general"]),
    # formats the workers render themselves (Writer.strands_apart)
    ("mers_ref_vs_46isolates", ["target.fa", "query.fa"]),
    ("dwv_vs_vdv1", ["target.fa", "query.fa", "--format=cigar"]),
    # ... numbering their records through the run, or with a header said once: the
    # parent fills in the numbers, and says the header before the first alignment
    ("mers_ref_vs_46isolates", ["target.fa", "query.fa", "--format=axt"]),
    ("mers_ref_vs_46isolates", ["target.fa", "query.fa", "--format=sam"]),
    ("mers_ref_vs_46isolates", ["target.fa", "query.fa",
                                "--format=general:number,znumber,name2,strand2,score"]),
    ("mers_ref_vs_46isolates", ["target.fa", "query.fa", "--format=rdotplot"]),
    # interpolation: a strand's rectangles aligned in threads (workers=4: two each)
    ("dmel2R_vs_dpse_contigs", ["target.fa", "query.fa", "H=1500", "--format=general"]),
]


@pytest.mark.parametrize("pair,args", CASES, ids=[c[0] for c in CASES])
def test_workers_give_lastz_output(pair, args):
    cwd = PAIRS / pair
    want = drop_version(run_lastz(args, cwd=cwd))
    for workers in (1, 2, 4):
        got = drop_version(_fastz([*args, f"--workers={workers}"], cwd))
        assert got == want, f"--workers={workers}"


@pytest.mark.parametrize("fmt,apart", [
    ("lav", True), ("maf", True), ("cigar", True), ("general", True),
    ("general:name1,zstart1,end1,name2,strand2,identity", True), ("mapping", True),
    ("general:name1,number,score", True), ("rdotplot", True),
    ("axt", True), ("lav+text", False), ("sam", True), ("softsam-", True),
    ("differences", True), ("gfa", True), ("text", False)])
def test_workers_format_strands_where_the_format_allows(fmt, apart):
    """lav, maf, cigar, axt, sam and general text depends on its strand alone but
    for the run's alignment numbers, SAM's @SQ lines and rdotplot's names lines: the
    workers format it, the numbers as placeholders, and the parent fills them in,
    says those headers and writes it; the alignments' arrays stay in the worker
    (their count comes back).  lav+text and text (whose lines may go to stdout too)
    are formatted in the parent, from the arrays."""
    from fastz.pipeline.parallel import parallel_results
    cwd = os.getcwd()
    os.chdir(PAIRS / "mers_ref_vs_46isolates")
    try:
        al = Aligner(Options.from_argv(["target.fa", "query.fa", f"--format={fmt}"]))
        units = []
        for q in itertools.islice(iter_queries(al.opts.query, al.opts), 2):
            units += [(q, "+"), (reverse_complement_sequence(q), "-")]
        got = list(parallel_results(al, iter(units), 2))
        plain = al.strands(units)
        assert [(r.query.name, r.strand) for r in got] == [(q.name, s) for q, s in units]
        assert sum(r.n_alignments() for r in got) > 0
        writer = al.strand_renderer()
        assert (writer is not None) == apart
        for r, p in zip(got, plain):
            assert r.n_alignments() == len(p.alignments)
            assert (r.text is not None) == apart
            if apart:
                assert len(r.alignments) == 0
                assert r.text == writer.render(p)
            else:
                assert r.alignments.beg1.tolist() == p.alignments.beg1.tolist()
                assert r.alignments.ops.tolist() == p.alignments.ops.tolist()
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("fmt", ["axt", "sam", "general", "differences", "maf"])
def test_what_a_rendered_format_refuses_fails_the_run_as_lastz(fmt):
    """HSPs of a reversed target cannot be printed in these formats: the worker that
    renders the strand raises it, and the run fails with lastz's words, as with one
    process."""
    cwd = PAIRS / "mers_ref_vs_46isolates"
    args = ["target.fa-", "query.fa", "--nogapped", f"--format={fmt}"]
    lz = subprocess.run(["lastz", *args], cwd=cwd, capture_output=True)
    assert lz.returncode != 0
    want = lz.stderr.decode().strip().splitlines()[-1].removeprefix("FAILURE: ")
    for workers in (1, 2):
        res = subprocess.run([sys.executable, "-m", "fastz", *args, f"--workers={workers}"],
                             cwd=cwd, capture_output=True)
        assert res.returncode == 1
        assert res.stderr.decode() == f"fastz: {want}\n", workers


def test_rendered_numbers_are_filled_in_by_the_parent():
    """A worker's axt text carries placeholders counted from its strand's start; the
    parent's writer numbers them on from the strands before.  A name holding the
    placeholder's mark cannot be rendered (None): the parent formats that strand."""
    import dataclasses
    import io

    from fastz.io.formats import NUMBER_MARK, make_writer
    cwd = os.getcwd()
    os.chdir(PAIRS / "mers_ref_vs_46isolates")
    try:
        al = Aligner(Options.from_argv(["target.fa", "query.fa", "--format=axt"]))
        queries = list(itertools.islice(iter_queries(al.opts.query, al.opts), 2))
        plain = al.strands([(q, "+") for q in queries])
        assert all(len(r.alignments) for r in plain)
        direct, out = io.StringIO(), io.StringIO()
        for dest, rendered in ((direct, False), (out, True)):
            w = make_writer(al.opts, al.scores, al.target, "query.fa", dest)
            w.header()
            for r in plain:
                if rendered:
                    r = dataclasses.replace(r, stats={})
                    text = al.strand_renderer().render(r)
                    assert text.startswith(f"{NUMBER_MARK}0{NUMBER_MARK} ")
                    r = dataclasses.replace(r, text=text)
                w.write(r)
        assert out.getvalue() == direct.getvalue()
        assert "\n1 " in direct.getvalue()                   # numbered on, not from 0
        odd = dataclasses.replace(queries[0], name=f"a{NUMBER_MARK}b")
        res = dataclasses.replace(plain[0], query=odd, stats={})
        assert al.strand_renderer().render(res) is None
    finally:
        os.chdir(cwd)


def _strand_inputs(pair, argv):
    os.chdir(PAIRS / pair)
    al = Aligner(Options.from_argv(argv))
    o = al.opts
    for q in iter_queries(o.query, o):
        for strand in "+-":
            qq = q if strand == "+" else reverse_complement_sequence(q)
            hsps = find_hsps(al.index, al.target.chars, qq.chars, o.seed, o.transition,
                             al.scores.masked, o.xdrop, o.hspthresh, o.entropy,
                             gfextend=o.gfextend, gapped=True)
            yield al, qq, strand, anchors_from_hsps(hsps, al.target.chars, qq.chars,
                                                    al.scores.sub)


def _alignment_tuple(alns):
    return [x.tolist() for x in (alns.beg1, alns.end1, alns.beg2, alns.end2, alns.score,
                                 alns.ops, alns.ops_start)]


@pytest.mark.parametrize("pair,argv", [
    ("hpylori_26695_vs_J99_Eslice", ["target.fa", "query.fa"]),
    ("human_vs_mouse_cgp", ["target.fa", "query.fa"]),
    ("mito_human_orang", ["target.fa[1..6000]", "query.fa[1..6000]", "--nogfextend"]),
])
def test_speculative_engine_equals_sequential(pair, argv, monkeypatch):
    """Threads, window sizes and the near-anchor rule change work, never results."""
    import fastz.pipeline.speculate as spec
    cwd = os.getcwd()
    try:
        for al, q, strand, anchors in _strand_inputs(pair, argv):
            o = al.opts
            ref, _, _ = gapped_extend(al.target, q, strand, anchors, al.scores, o.ydrop,
                                   o.gappedthresh, two_pass=al.two_pass, threads=1)
            for threads, near in ((2, 300), (4, 300), (3, 0)):
                # near=0 extends every anchor speculatively: the most conflicts
                monkeypatch.setattr(spec, "NEAR_DIAG", near)
                st = {}
                got, _, _ = gapped_extend(al.target, q, strand, anchors, al.scores, o.ydrop,
                                       o.gappedthresh, two_pass=al.two_pass,
                                       threads=threads, stats=st)
                assert _alignment_tuple(got) == _alignment_tuple(ref), (strand, threads)
            # the cores left free by other workers' strands come and go: windows
            # alternate between in-order and speculative, with and without the filter
            import itertools
            import fastz.pipeline.parallel as par
            monkeypatch.setattr(spec, "NEAR_DIAG", 300)
            for hsp_anchors in (True, False):
                monkeypatch.setattr(par, "free_cores", itertools.cycle([1, 2, 2, 1, 3]).__next__)
                got, _, _ = gapped_extend(al.target, q, strand, anchors, al.scores, o.ydrop,
                                       o.gappedthresh, two_pass=al.two_pass, threads=3,
                                       hsp_anchors=hsp_anchors)
                assert _alignment_tuple(got) == _alignment_tuple(ref), (strand, hsp_anchors)
    finally:
        os.chdir(cwd)


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def test_killed_worker_fails_cleanly(tmp_path):
    """A worker killed mid-run: non-zero exit, a clear message, no output file."""
    out = tmp_path / "out.txt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastz", "target.fa", "query.fa", "--nogfextend",
         "--workers=2", f"--output={out}"],
        cwd=PAIRS / "dmel2R_vs_dpse_contigs", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    victims = []
    while time.time() < deadline and not victims:
        time.sleep(0.2)
        victims = _children(proc.pid)
        if proc.poll() is not None:
            break
    assert victims, "no worker process appeared"
    time.sleep(1.0)
    os.kill(victims[-1], signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode != 0
    lines = err.decode().strip().splitlines()
    assert lines and lines[-1].startswith("fastz: ") and "worker" in lines[-1]
    assert "Traceback" not in err.decode()
    assert not out.exists()
    assert not any(p.name.startswith(".fastz-") for p in tmp_path.iterdir())


def test_querydepth_cut_same_on_every_engine():
    """--querydepth's cut walks the accepted alignments in acceptance order: the
    speculative threads and the GPU path's twins store them in that order too."""
    cwd = os.getcwd()
    try:
        for al, q, strand, anchors in _strand_inputs("hpylori_26695_vs_J99_Eslice",
                                                        ["target.fa", "query.fa"]):
            o = al.opts
            ref, _, _ = gapped_extend(al.target, q, strand, anchors, al.scores, o.ydrop,
                                      o.gappedthresh, two_pass=al.two_pass)
            paired = int((ref.end1 - ref.beg1).sum())
            for keep in (True, False):
                runs = [gapped_extend(al.target, q, strand, anchors, al.scores, o.ydrop,
                                      o.gappedthresh, two_pass=al.two_pass, threads=t,
                                      backend=b, max_paired=paired // 2, paired_keep=keep)
                        for t, b in ((1, "cpu"), (3, "cpu"), (1, "twin"))]
                got = [(_alignment_tuple(a), over) for a, _, over in runs]
                assert got[0] == got[1] == got[2], (strand, keep)
                kept = len(runs[0][0])
                assert got[0][1] and (0 < kept < len(ref) if keep else kept == 0)
    finally:
        os.chdir(cwd)


PER_QUERY = [["--anyornone"], ["--stopafter=3", "--format=general"],
             ["--queryhspbest=2", "--format=axt"], ["--hspthresh=top300", "--format=maf"],
             ["--queryhsplimit=5"], ["--queryhsplimit+=warn:4", "--format=general"]]


@pytest.mark.parametrize("words", PER_QUERY, ids=" ".join)
def test_per_query_modes_in_workers_give_lastz_output(words):
    """The modes whose unit of work is a query (HSP-immediate, a shared HSP table, a
    per-query HSP limit) run queries in worker processes: stdout and stderr (the
    --queryhsplimit warnings, replayed in query order) byte for byte lastz's."""
    from conftest import LASTZ
    cwd = PAIRS / "mers_ref_vs_46isolates"
    args = ["target.fa", "query.fa", *words]
    lz = subprocess.run([LASTZ, *args], cwd=cwd, capture_output=True, timeout=600)
    assert lz.returncode == 0
    for workers in (1, 2):
        fz = subprocess.run([sys.executable, "-m", "fastz", *args, f"--workers={workers}"],
                            cwd=cwd, capture_output=True, timeout=600)
        assert fz.returncode == 0, fz.stderr.decode()[-300:]
        assert drop_version(fz.stdout) == drop_version(lz.stdout), f"--workers={workers}"
        assert fz.stderr == lz.stderr, f"--workers={workers}"


def test_per_query_modes_use_the_worker_pool(monkeypatch):
    """With several workers and more queries than workers, by_query hands the queries
    to the pool, and gets the sequential run's results, in order."""
    from fastz.pipeline import parallel
    used = []
    real = parallel.parallel_queries

    def spy(*a, **k):
        used.append(True)
        return real(*a, **k)

    monkeypatch.setattr(parallel, "parallel_queries", spy)
    cwd = os.getcwd()
    os.chdir(PAIRS / "mers_ref_vs_46isolates")
    try:
        runs = []
        for workers in (1, 2):
            al = Aligner(Options.from_argv(["target.fa", "query.fa", "--queryhspbest=2",
                                            f"--workers={workers}"]))
            # (lav: the workers render the strands, the arrays stay with them)
            render = al.strand_renderer().render
            runs.append([(r.query.name, r.strand, r.n_alignments(),
                          r.text if workers > 1 else render(r)) for r in al.results()])
        assert used == [True]
        assert sum(n for _, _, n, _ in runs[0]) > 0
        assert runs[0] == runs[1] and len(runs[0]) == 92
    finally:
        os.chdir(cwd)


def test_a_lone_strand_searches_its_seeds_in_parts(monkeypatch):
    """A strand whose worker has cores to spare searches its seed hits in bucket-range
    parts (filtering.search_parts), with the single search's result."""
    from fastz.pipeline import filtering
    monkeypatch.setattr(filtering, "PARTS_MIN_QUERY", 0)
    # (no rendering in the workers, so the arrays come back from them)
    monkeypatch.setattr(Aligner, "strand_renderer", lambda self: None)
    cwd = os.getcwd()
    os.chdir(PAIRS / "hpylori_26695_vs_J99_Eslice")
    try:
        runs, parts = [], []
        for workers in (1, 2):
            al = Aligner(Options.from_argv(["target.fa", "query.fa", "--strand=plus",
                                            "--format=axt", f"--workers={workers}"]))
            runs.append([(r.query.name, r.strand, _alignment_tuple(r.alignments))
                         for r in al.results()])
            parts.append(al.stats.get("seed_parts"))
        assert parts == [None, 2]
        assert runs[0] == runs[1] and len(runs[0][0][2][0]) > 10     # beg1 of each alignment
    finally:
        os.chdir(cwd)


def test_a_strand_uses_its_share_of_the_cores(monkeypatch):
    """Each strand being aligned gets its share of the workers' cores, rounded up (no
    core idles), asked again as the others start and finish; the seed search and the
    speculative extension take at most their own thread count, and at least one."""
    import multiprocessing as mp
    from fastz.pipeline import parallel
    assert parallel.free_cores() is None                     # not in a worker
    assert parallel.usable(4, parallel.free_cores) == 4
    monkeypatch.setattr(parallel, "_TOTAL", 8)
    monkeypatch.setattr(parallel, "_BUSY", mp.Value("i", 3))
    assert parallel.free_cores() == 3
    parallel._BUSY.value = 2
    assert parallel.free_cores() == 4 and parallel.usable(3, parallel.free_cores) == 3
    parallel._BUSY.value = 1
    assert parallel.free_cores() == 8 and parallel.usable(16, parallel.free_cores) == 8
    parallel._BUSY.value = 9
    assert parallel.free_cores() == 1 and parallel.usable(16, lambda: 0) == 1


def test_map_in_threads_keeps_order_and_follows_the_cores():
    """Results in the items' order whatever the threads; each round runs as many
    threads as ``cores()`` says then (never more than ``threads``), and an exception
    in one item reaches the caller."""
    import threading
    from fastz.pipeline import parallel

    asked = itertools.cycle([1, 3, 2, 5])
    rounds = []

    def cores():
        rounds.append(next(asked))
        return rounds[-1]

    seen = {}

    def work(x):
        seen[x] = threading.get_ident()
        time.sleep(0.001)
        return x * x

    items = list(range(150))
    assert parallel.map_in_threads(work, items, 3, cores) == [x * x for x in items]
    # rounds of ROUND_ITEMS items a thread: 16, 48, 32, 48 (5 asked, 3 allowed), 6
    r = parallel.ROUND_ITEMS
    sizes = [r * min(3, c) for c in rounds]
    assert len(rounds) == 5 and sum(sizes[:4]) < 150 <= sum(sizes)
    first = 0
    for c, size in zip(rounds, sizes):
        used = {seen[x] for x in items[first:first + size]}
        assert 1 <= len(used) <= min(3, c)
        first += size
    assert parallel.map_in_threads(work, [7], 4, cores) == [49]
    assert parallel.map_in_threads(work, items[:5], 1) == [0, 1, 4, 9, 16]

    def fail(x):
        if x == 40:
            raise ValueError("item 40")
        return x
    with pytest.raises(ValueError, match="item 40"):
        parallel.map_in_threads(fail, items, 2, lambda: 2)


def test_interpolation_in_threads_equals_one_thread(monkeypatch):
    """A strand's interpolation rectangles aligned in threads, their count changing
    round by round, merge into the one-thread result (LASTZ's order)."""
    from dataclasses import replace
    from fastz.pipeline import interpolate as interp

    cwd = os.getcwd()
    os.chdir(PAIRS / "hpylori_26695_vs_J99_Eslice")
    try:
        al = Aligner(Options.from_argv(["target.fa", "query.fa", "H=1500", "--workers=1"]))
        query = next(iter(al.queries()))
        inner = al.opts.inner
        for strand, buf in (("+", query), ("-", reverse_complement_sequence(query))):
            al.opts = replace(al.opts, inner=0)
            outer = al.strand(buf, strand).alignments
            al.opts = replace(al.opts, inner=inner)
            want, _ = interp.interpolate(outer, al.target, buf, al.opts, al.scores, 1)
            assert len(want) > len(outer) > 10
            asked = itertools.cycle([2, 1, 4, 3])
            monkeypatch.setattr(interp, "free_cores", lambda: next(asked))
            got, _ = interp.interpolate(outer, al.target, buf, al.opts, al.scores, 4)
            monkeypatch.undo()
            assert _alignment_tuple(got) == _alignment_tuple(want), strand
    finally:
        os.chdir(cwd)


def test_a_batch_of_reads_travels_packed_and_comes_back_whole():
    """A batch of short plain strands goes to a worker as a few arrays (pack_units), and
    is unpacked into the same units; a partitioned strand, or more bases than a batch
    of short strands holds, keeps the batch unpacked."""
    from fastz.pipeline import parallel
    opts = Options.from_argv([str(PAIRS / "mers_ref_vs_46isolates" / "target.fa"),
                              str(PAIRS / "mers_ref_vs_46isolates" / "query.fa")])
    units = []
    for q in itertools.islice(iter_queries(opts.query, opts), 3):
        units += [(q, "+"), (reverse_complement_sequence(q), "-")]
    assert parallel.pack_units(units) is None           # (3 x 2 x 30 kb: over 64 KB)
    units = units[:2]
    fn, (packed, _) = parallel._units_job(units, 2)
    assert fn is parallel._align_packed
    back = parallel.unpack_units(packed)
    assert [s for _, s in back] == [s for _, s in units]
    for (a, _), (b, _) in zip(units, back):
        assert (a.chars == b.chars).all() and len(a) == len(b) > 0
        assert (a.name, a.header, a.filename, a.contig, a.start, a.true_length,
                a.revcomp) == (b.name, b.header, b.filename, b.contig, b.start,
                               b.true_length, b.revcomp)
        assert b.partitions is None and b.chore is None
    # a partitioned strand ([multiple]) travels as it is, and so does its batch
    tq = Options.from_argv([str(PAIRS / "mers_ref_vs_46isolates" / "target.fa") + "[multiple]",
                            str(PAIRS / "mers_ref_vs_46isolates" / "query.fa")])
    part = Aligner(tq).target
    assert part.partitions is not None
    assert parallel.pack_units(units + [(part, "+")]) is None
    assert parallel._units_job(units + [(part, "+")], 2)[0] is parallel._align_units
