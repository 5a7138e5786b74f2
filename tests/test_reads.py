"""Read sets: many short queries (simulated reads, with a few long ones among them)
against a genome, diffed whole with lastz.

Short strands travel to the worker processes in batches (``pipeline.parallel``), and
the padded target is made once per run; these runs check that many small queries give
lastz's output, in order, with one worker and with two, strand by strand and query by
query (``--queryhspbest``).
"""
from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from conftest import drop_version
from parity_cases import run_pair, run_program
from readsim import first_record, simulate_reads
from fastz.errors import FastzError
from fastz.lastz_args import parse_lastz_argv
from fastz.pipeline import Aligner
from fastz.pipeline import filtering
from fastz.pipeline.parallel import BATCH_BASES, BATCH_UNITS, batches
from fastz.kernels.seeding import present_keys
from fastz.records import concat_buffers

MAP = ("--step=10 --seed=match12 --notransition --exact=20 --noytrim --match=1,5 "
       "--ambiguous=n --coverage=80 --identity=90 "
       "--format=general:name1,zstart1,end1,name2,strand2,zstart2+,end2+,identity").split()


@pytest.fixture(scope="module")
def reads(tmp_path_factory, shared_pairs):
    """reads.fa: 1,500 reads of 80-250 bp with two 70 kb pieces among them (so the
    batches break on bases as well as on count); few.fa: its first 300 reads."""
    d = tmp_path_factory.mktemp("reads")
    pair = shared_pairs / "ecoli_K12_vs_salmonella_LT2"
    source = first_record(pair / "query.fa")
    text = simulate_reads(source, 1500, 0, seed=11, lengths=(80, 250))
    records = text.split(">")[1:]
    for at, start in ((400, 1_000_000), (1100, 3_000_000)):
        records.insert(at, f"long{at}\n{source[start:start + 70_000]}\n")
    (d / "reads.fa").write_text("".join(">" + r for r in records))
    (d / "few.fa").write_text("".join(">" + r for r in records[:300]))
    (d / "target.fa").symlink_to(pair / "target.fa")
    return d


@pytest.mark.parametrize("words", [
    ["target.fa[multiple]", "reads.fa", *MAP],
    ["target.fa[multiple]", "reads.fa", *MAP, "--workers=1"],
    ["target.fa", "reads.fa", *MAP, "--strand=minus"],
    ["target.fa", "few.fa", "--format=maf"],
    ["target.fa", "few.fa", "--queryhspbest=2", "--format=general"],
    ["target.fa", "few.fa", "--nogapped", "--format=general", "--workers=1"],
    ["target.fa", "few.fa", "--twins=-10..100", "--seed=match12", "--format=general"],
])
def test_reads_as_lastz(reads, words):
    lz, fz = run_pair(words, reads)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert lz.stdout.count(b"\n") > 50
    assert drop_version(fz.stdout) == drop_version(lz.stdout)


@pytest.mark.parametrize("extra", [[], ["--hspthresh=2500.5", "--xdrop=900.25"]],
                         ids=" ".join)
def test_reads_as_lastz_D(reads, extra):
    """fastz_D's batched search keeps lastz_D's exact double HSP scores."""
    words = ["target.fa", "few.fa", "--format=general", "--nogapped", *extra]
    lz = run_program("lastz_D", words, reads)
    fz = run_program("fastz_D", [*words, "--workers=1"], reads)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert lz.stdout.count(b"\n") > 50
    assert drop_version(fz.stdout) == drop_version(lz.stdout)


def test_batches_keep_order_and_limits():
    sizes = [10] * 3000 + [BATCH_BASES * 3] + [BATCH_BASES // 2] * 5 + [10] * 7
    groups = list(batches(range(len(sizes)), lambda k: sizes[k]))
    assert [k for b in groups for k in b] == list(range(len(sizes)))
    for b in groups:
        assert len(b) <= BATCH_UNITS
        assert len(b) == 1 or sum(sizes[k] for k in b) <= BATCH_BASES
    assert [len(b) for b in groups[:3]] == [BATCH_UNITS] * 2 + [3000 - 2 * BATCH_UNITS]
    assert groups[3] == [3000]                          # a long unit goes alone
    assert [len(b) for b in groups[4:]] == [2, 2, 1 + 7]
    assert list(batches([], len)) == []


def test_batches_yield_what_was_read_before_a_failure():
    def items():
        yield from range(5)
        raise FastzError("bad record")
    got = []
    with pytest.raises(FastzError):
        for b in batches(items(), lambda k: 1):
            got.extend(b)
    assert got == list(range(5))


# --- the batched seed search (Aligner.strands) ---------------------------------------

#: hit processors and extenders, each through find_hsps_batch and find_hsps
PROCESSORS = [
    [],                                             # the default kernel's processing
    ["--nogfextend"],
    ["--nogfextend", "--nogapped"],
    ["--seed=match12", "--notransition", "--exact=20", "--step=10"],
    ["--mismatch=2,30"],
    ["--twins=-10..100", "--seed=match12"],
    ["--recoverseeds", "--transition=2"],
    ["--filter=2,10"],
    ["--hspthresh=2000", "--noentropy"],
]


@pytest.mark.parametrize("bitmap", [False, True], ids=["directory", "bitmap"])
@pytest.mark.parametrize("extra", PROCESSORS, ids=lambda w: " ".join(w) or "default")
def test_batched_search_is_the_strand_search(reads, extra, bitmap):
    """One kernel call for many reads' strands gives each strand's HSPs exactly as
    the strand's own search does, and counts the same seed hits, whether it looks
    keys up in the index's directory alone or tests a bitmap of its keys first."""
    al = Aligner(parse_lastz_argv([str(reads / "target.fa"), str(reads / "few.fa"),
                                   *extra]))
    o = al.opts
    ix = al.index
    # (whether a run uses it or not: Aligner.present_keys, tested below)
    present = present_keys(ix.dir_, ix.low, ix.low_bits) if bitmap else None
    bufs = [b[s] for strands, b, _ in al.query_strands() for s in strands][:400]
    rng = random.Random(3)
    # random strands, some shorter than the seed, and an empty one
    bufs += [replace(bufs[0], chars=np.frombuffer(
        "".join(rng.choice("ACGTacgtN") for _ in range(n)).encode(), np.uint8).copy())
        for n in (0, 5, 11, 12, 19, 40, 300)]
    batch_stats, one_stats = {}, {}
    found = filtering.find_hsps_batch(
        al.index, al.target.chars, *concat_buffers([b.chars for b in bufs]), o.transition,
        al.scores.masked, o.xdrop, o.hspthresh, o.entropy, o.gfextend, o.gapped,
        al.hitproc, batch_stats, o.double_scores, present=present)
    assert sum(h.shape[0] for h in found) > 20
    if extra == ["--nogfextend", "--nogapped"]:
        # every seed hit a row: the batch's table (1,024 rows at first) fills, and a
        # strand stops before a position whose hits might not fit, to resume there
        assert sum(h.shape[0] for h in found) > 1024
    for buf, hsps in zip(bufs, found):
        want = filtering.find_hsps(
            al.index, al.target.chars, buf.chars, None, o.transition, al.scores.masked,
            o.xdrop, o.hspthresh, o.entropy, o.gfextend, o.gapped, one_stats,
            processor=al.hitproc)
        assert hsps.dtype == want.dtype
        assert np.array_equal(hsps, want)
    assert batch_stats == one_stats


def test_the_key_bitmap_is_for_sparse_tables(reads):
    """A run tests the bitmap only where most windows miss the table: a sampled one
    (``--step=10``, match12), not E. coli's whole 12of19 table."""
    def bitmap(*extra):
        al = Aligner(parse_lastz_argv([str(reads / "target.fa"), str(reads / "few.fa"),
                                       *extra]))
        return al.present_keys
    assert bitmap("--step=10", "--seed=match12") is not None
    assert bitmap() is None
    assert bitmap("--seed=match14") is not None            # (4^14 keys, 4.6 M positions)


def test_the_key_bitmap_holds_the_index_keys():
    """``present_keys`` sets the bits of exactly the keys the directory finds."""
    from fastz.kernels.seeding import lookup
    from fastz.pipeline.seeding import build_index
    rng = np.random.default_rng(4)
    target = rng.choice(np.frombuffer(b"ACGTN", np.uint8), 20000, p=[.24] * 4 + [.04])
    for seed, step in (("match8", 1), ("match12", 3), ("12of19", 1)):
        ix = build_index(target, seed, step)
        bits = present_keys(ix.dir_, ix.low, ix.low_bits)
        nkeys = (ix.dir_.shape[0] - 1) << ix.low_bits
        assert bits.shape[0] * 64 >= nkeys
        held = np.repeat(np.arange(ix.dir_.shape[0] - 1), np.diff(ix.dir_)) << ix.low_bits
        if ix.low_bits:
            held |= ix.low.astype(np.int64)
        keys = np.concatenate([rng.integers(0, nkeys, 5000), rng.choice(held, 500)])
        for key in keys.tolist():
            lo, hi = lookup(ix.dir_, ix.low, ix.low_bits, key)
            assert ((int(bits[key >> 6]) >> (key & 63)) & 1) == (hi > lo), (seed, key)


# --- the batched extension (Aligner._extend_batch) ------------------------------------

@pytest.mark.parametrize("extra", [
    [w for w in MAP if not w.startswith("--format")],
    [],
    ["--allocate:traceback=100K", "--noytrim"],       # the long pieces truncate
    ["--allgappedbounds", "--gappedthresh=5000"],
    ["--gappedthresh=4000", "--ydrop=1500"],
], ids=lambda w: " ".join(w) or "default")
def test_batched_extension_is_the_strand_extension(reads, extra):
    """One kernel call extending many strands' HSPs gives each strand's alignments,
    truncation reports and statistics exactly as ``gapped_extend`` of the strand."""
    from functools import partial

    from fastz.pipeline import backend_filters, gapped
    from fastz.pipeline.anchors import anchors_from_hsps
    from fastz.io.alignview import views
    al = Aligner(parse_lastz_argv([str(reads / "target.fa") + "[multiple]",
                                   str(reads / "reads.fa"), *extra]))
    o = al.opts
    assert al.batch_gapped                  # (the runs diffed with lastz above take it)
    units = [(b[s], s) for strands, b, _ in al.query_strands() for s in strands][:900]
    assert max(len(b) for b, _ in units) == 70_000
    found = filtering.find_hsps_batch(
        al.index, al.target.chars, *concat_buffers([b.chars for b, _ in units]),
        o.transition,
        al.scores.masked, o.xdrop, o.hspthresh, o.entropy, o.gfextend, o.gapped,
        al.hitproc, {}, o.double_scores)
    work = [(b, s, h) for (b, s), h in zip(units, found) if h.shape[0]]
    assert len(work) > 50
    kw = dict(trim=o.ytrim, allgappedbounds=o.allgappedbounds,
              traceback_bytes=o.traceback_bytes, two_pass=al.two_pass,
              target_pads=al.padded_target())
    batch_stats, one_stats = {}, {}
    queries = [b for b, _, _ in work]
    # the back-end filters (the map options' identity and coverage) on the whole table
    got = gapped.gapped_extend_batch(
        al.target, queries, [h for _, _, h in work], al.scores, o.ydrop, o.gappedthresh,
        stats=batch_stats, keep=partial(backend_filters.strands_mask, target=al.target,
                                        queries=queries, opts=o), count_identity=True, **kw)
    seen = dropped = 0
    for (buf, strand, hsps), (alns, trunc) in zip(work, got):
        anchors = anchors_from_hsps(hsps, al.target.chars, buf.chars, al.scores.sub)
        want, want_trunc, _ = gapped.gapped_extend(
            al.target, buf, strand, anchors, al.scores, o.ydrop, o.gappedthresh,
            stats=one_stats, **kw)
        filtered = backend_filters.filter_alignments(want, al.target, buf, o)
        dropped += len(want) - len(filtered)
        want = filtered
        for name in ("beg1", "end1", "beg2", "end2", "score", "ops_start", "ops"):
            assert np.array_equal(getattr(alns, name), getattr(want, name)), name
            assert getattr(alns, name).dtype == getattr(want, name).dtype, name
        assert np.array_equal(trunc, want_trunc)
        # the identity counts come counted with the batch (the writers print them)
        m, d = alns.identity if len(alns) else (np.zeros(0, int), np.zeros(0, int))
        assert list(zip(m.tolist(), d.tolist())) == [
            v.identity_by_columns() for v in views(want, al.target.chars, buf.chars, False)]
        seen += len(alns)
    assert seen > 50
    assert batch_stats == one_stats
    if "--allocate:traceback=100K" in extra:
        assert batch_stats["truncated"] > 0
    if "--identity=90" in extra:
        assert dropped > 0


def test_reads_as_long_as_a_target_sequence(tmp_path):
    """A read with no HSP still has LASTZ's trivial alignment when it is one of the
    target's sequences: the batched path must not skip it."""
    rng = random.Random(5)
    seq = lambda n: "".join(rng.choice("ACGT") for _ in range(n))  # noqa: E731
    big, small = seq(2000), seq(30)     # (30 identical bases score under 3000)
    (tmp_path / "t.fa").write_text(f">big\n{big}\n>small\n{small}\n")
    (tmp_path / "q.fa").write_text(f">r1\n{big[100:250]}\n>r2\n{small}\n>r3\n{seq(150)}\n"
                                   f">r4\n{big[500:650]}\n")
    for workers in ("--workers=1", "--workers=2"):
        words = ["t.fa[multiple]", "q.fa", "--format=general"]
        lz = run_program("lastz", words, tmp_path)
        fz = run_program("fastz", [*words, workers], tmp_path)
        assert b"\tsmall\t" in lz.stdout
        assert fz.stdout == lz.stdout, fz.stderr.decode()[-300:]


@pytest.mark.parametrize("extra", [["--progress=3", "--allocate:traceback=100K"],
                                   ["--twins=5", "--seedqueue=30"]], ids=" ".join)
def test_stderr_keeps_lastz_order(tmp_path, shared_pairs, extra):
    """A batch's queries are read before its first strand is written: what reading
    says (--progress, an empty sequence) must still come after the earlier strands'
    truncation reports, and LASTZ's once-a-run queue shortfall warning in its strand's
    turn: byte for byte lastz's stderr with one worker; with two, the same lines
    (queries are read ahead, README), the warning once although each worker finds
    its own."""
    import re
    pair = shared_pairs / "ecoli_K12_vs_salmonella_LT2"
    records = simulate_reads(first_record(pair / "query.fa"), 40, 3000, seed=4).split(">")[1:]
    records.insert(13, "empty1\n")
    (tmp_path / "long.fa").write_text("".join(">" + r for r in records))
    (tmp_path / "target.fa").symlink_to(pair / "target.fa")
    words = ["target.fa", "long.fa", *extra, "--format=general"]
    lz = run_program("lastz", words, tmp_path)
    clock = re.compile(rb"^\([0-9hms.]+\) ", re.M)
    assert b"empty sequence" in lz.stderr
    assert lz.stderr.count(b"truncating") > 100 or b"shortfall" in lz.stderr
    for workers in ("--workers=1", "--workers=2"):
        fz = run_program("fastz", [*words, workers], tmp_path)
        assert fz.stdout == lz.stdout
        got, want = clock.sub(b"", fz.stderr), clock.sub(b"", lz.stderr)
        if workers == "--workers=1":
            assert got == want
        else:
            assert sorted(got.splitlines()) == sorted(want.splitlines())
