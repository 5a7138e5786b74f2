"""FASTQ base-call qualities: kept with the bases, printed as lastz prints them.

LASTZ keeps a FASTQ record's qualities beside its bases (``seq->vq``), reversed with
the minus strand (per partition), and prints them in SAM's QUAL field (the aligned
part in strand order, softsam also the clipped flanks) and general's ``qalign1/2``
(aligned, '~' against gaps; on the gap-free path one base late, a LASTZ quirk) and
``quals1/2`` (the whole sequence, file order).  Whole outputs are compared with
lastz's on reads with random qualities, through the record-by-record reading (the
bulk reading's are in test_plainreads.py).
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import drop_version
from parity_cases import run_pair
from readsim import as_fastq, first_record, simulate_reads

from fastz.io.sequences import iter_queries, load_target, reverse_complement_sequence
from fastz.lastz_args import parse_lastz_argv
from fastz.pipeline.parallel import pack_units, unpack_units

QUALS = "general:name1,strand1,zstart1,end1,qalign1,name2,strand2,zstart2,end2,qalign2,quals2"


@pytest.fixture(scope="module")
def fq(tmp_path_factory, shared_pairs):
    d = tmp_path_factory.mktemp("quals")
    src = shared_pairs / "ecoli_K12_vs_salmonella_LT2"
    (d / "target.fa").symlink_to(src / "target.fa")
    rng = random.Random(41)
    # few reads (the bulk reading is for more), some longer than others, most from
    # the stretch of E. coli that is also a FASTQ target
    genome = first_record(src / "target.fa")
    reads = simulate_reads(genome[195_000:240_000], 80, 0, seed=42, lengths=(40, 300))
    (d / "reads.fq").write_text(as_fastq(reads, rng))
    bases = genome[200_000:230_000]
    quals = "".join(chr(rng.randint(33, 126)) for _ in bases)
    (d / "piece.fq").write_text(f"@piece\n{bases}\n+piece\n{quals}\n")
    (d / "piece.fa").write_text(f">piece\n{bases}\n")
    return d


@pytest.mark.parametrize("words", [
    ["target.fa", "reads.fq", "--format=sam"],
    ["target.fa", "reads.fq", "--format=softsam", "--nogapped"],
    ["target.fa", "reads.fq[revcomp]", "--format=softsam"],
    ["target.fa", "reads.fq[multiple]", "--format=sam-", "--strand=minus"],
    ["target.fa", "reads.fq[5..39]", "--format=sam"],
    ["target.fa", "reads.fq", f"--format={QUALS}"],
    ["target.fa", "reads.fq", f"--format={QUALS}", "--nogapped"],
    ["target.fa", "reads.fq[multiple]", f"--format={QUALS}", "--nogapped"],
    ["target.fa", "reads.fq[revcomp]", f"--format={QUALS}", "--workers=2"],
    ["target.fa", "reads.fq[5..39]", f"--format={QUALS}", "--nogapped"],
    ["piece.fq", "reads.fq", f"--format={QUALS},quals1", "--workers=1"],
    ["piece.fq[revcomp]", "reads.fq", f"--format={QUALS},quals1"],
    ["piece.fq[100..20000]", "reads.fq", f"--format={QUALS},quals1", "--nogapped"],
    ["piece.fq", "reads.fq", "--format=softsam", "--workers=2"],
    ["piece.fa", "reads.fq", "--format=general:name2,qalign1,quals2,qalign2"],
], ids=["sam", "softsam-nogapped", "softsam-revcomp", "sam-multiple-minus", "sam-subrange",
        "general", "general-nogapped", "general-multiple-nogapped", "general-revcomp-workers",
        "general-subrange-nogapped", "target-fastq", "target-revcomp", "target-subrange",
        "target-fastq-softsam", "fasta-target"])
def test_qualities_as_lastz(fq, words):
    lz, fz = run_pair(words, fq)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    assert lz.stdout.count(b"\n") > 20
    # (and the qualities are there: lastz prints '*' for a sequence without them)
    assert b"\t*\n" not in lz.stdout or "piece.fa" in words


@pytest.mark.parametrize("words", [
    ["target.fa", "piece.fa", "--format=general:name1,quals2"],
    ["piece.fa", "reads.fq", "--format=general-:name1,quals1"],
    ["target.fa", "reads.fq[1..299]"],          # (a FASTQ record is not named here)
], ids=["quals2", "quals1", "fastq-beyond-end"])
def test_refusals_as_lastz(fq, words):
    lz, fz = run_pair(words, fq)
    assert lz.returncode != 0 and fz.returncode != 0
    assert fz.stderr.decode().splitlines()[-1].split(": ", 1)[1] == \
        lz.stderr.decode().splitlines()[-1].split(": ", 1)[1]


def test_minus_strand_reverses_qualities(fq):
    """A strand buffer's qualities go with its bases, per partition when partitioned,
    and a subrange keeps its own."""
    opts = parse_lastz_argv(["target.fa", str(fq / "reads.fq")])
    text = (fq / "reads.fq").read_text().split("\n")
    file_quals = [q.encode() for q in text[3::4]]
    for k, q in enumerate(iter_queries(str(fq / "reads.fq"), opts)):
        assert q.quals.tobytes() == file_quals[k]
        minus = reverse_complement_sequence(q)
        assert minus.quals.tobytes() == file_quals[k][::-1]
    (q,) = iter_queries(str(fq / "reads.fq") + "[multiple]", opts)
    parts = q.partitions
    minus = reverse_complement_sequence(q)
    for k in range(len(parts.offset)):
        a, n = int(parts.offset[k]), int(parts.length[k])
        assert q.quals[a:a + n].tobytes() == file_quals[k]
        assert minus.quals[a:a + n].tobytes() == file_quals[k][::-1]
        assert q.quals[a - 1] == minus.quals[a - 1] == 0        # (the separators)
    sub = next(iter_queries(str(fq / "reads.fq") + "[5..39]", opts))
    assert sub.quals.tobytes() == file_quals[0][4:39]
    target = load_target(str(fq / "piece.fq") + "[revcomp]", opts)
    assert target.quals.tobytes() == (fq / "piece.fq").read_text().split("\n")[3][::-1].encode()
    assert load_target(str(fq / "piece.fa"), opts).quals is None


def test_packed_units_keep_qualities(fq):
    opts = parse_lastz_argv(["target.fa", str(fq / "reads.fq")])
    units = []
    for q in list(iter_queries(str(fq / "reads.fq"), opts))[:5]:
        units += [(q, "+"), (reverse_complement_sequence(q), "-")]
    back = unpack_units(pack_units(units))
    assert len(back) == len(units)
    for (a, sa), (b, sb) in zip(units, back):
        assert sa == sb and np.array_equal(a.chars, b.chars)
        assert np.array_equal(a.quals, b.quals)
    plain = [(q, "+") for q in iter_queries(str(fq / "piece.fa"), opts)]
    assert unpack_units(pack_units(plain))[0][0].quals is None
