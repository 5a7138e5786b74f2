"""Read sets: many short queries (simulated reads, with a few long ones among them)
against a genome, diffed whole with lastz.

Short strands travel to the worker processes in batches (``pipeline.parallel``), and
the padded target is made once per run; these runs check that many small queries give
lastz's output, in order, with one worker and with two, strand by strand and query by
query (``--queryhspbest``).
"""
from __future__ import annotations

import pytest

from conftest import drop_version
from parity_cases import run_program
from readsim import first_record, simulate_reads
from fastz.pipeline.parallel import BATCH_BASES, BATCH_UNITS, _batches

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
])
def test_reads_as_lastz(reads, words):
    lz = run_program("lastz", [w for w in words if not w.startswith("--workers")], reads)
    fz = run_program("fastz", words, reads)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert lz.stdout.count(b"\n") > 50
    assert drop_version(fz.stdout) == drop_version(lz.stdout)


def test_batches_keep_order_and_limits():
    sizes = [10] * 3000 + [BATCH_BASES * 3] + [BATCH_BASES // 2] * 5 + [10] * 7
    batches = list(_batches(range(len(sizes)), lambda k: sizes[k]))
    assert [k for b in batches for k in b] == list(range(len(sizes)))
    for b in batches:
        assert len(b) <= BATCH_UNITS
        assert len(b) == 1 or sum(sizes[k] for k in b) <= BATCH_BASES
    assert [len(b) for b in batches[:3]] == [BATCH_UNITS] * 2 + [3000 - 2 * BATCH_UNITS]
    assert batches[3] == [3000]                          # a long unit goes alone
    assert [len(b) for b in batches[4:]] == [2, 2, 1 + 7]
    assert list(_batches([], len)) == []
