"""Reads from a plain FASTA file, read in bulk (``io.plainreads``, ``pipeline.reads``).

The bulk reading must store the same bytes under the same names as the record-by-
record reading (``io.sequences``), and a run that takes it must write lastz's
output; a file that is not plainly FASTA must be left to the record-by-record
reading (whose messages and quirks are LASTZ's).
"""
from __future__ import annotations

import gzip
import random
from dataclasses import replace

import numpy as np
import pytest

from conftest import drop_version
from parity_cases import fastz_env, program_argv, run_pair, run_program
from readsim import first_record, simulate_reads
from fastz.io import plainreads
from fastz.io.sequences import iter_queries, reverse_complement_sequence
from fastz.lastz_args import parse_lastz_argv
from fastz.pipeline import Aligner

MAP = ("--step=10 --seed=match12 --notransition --exact=20 --noytrim --match=1,5 "
       "--ambiguous=n --coverage=80 --identity=90 "
       "--format=general:name1,zstart1,end1,name2,strand2,zstart2+,end2+,identity").split()


def _random_plain(rng: random.Random, n: int, iupac: bool = False) -> bytes:
    """A plain FASTA text: headers with blanks, bars, tabs, '{number}' and non-ASCII
    bytes; bodies of mixed case with N and X (IUPAC codes too), wrapped at random."""
    letters = "ACGTacgtNnXx" + ("RYKMSWBDHVrykmswbdhv" if iupac else "")
    out = []
    for i in range(n):
        head = rng.choice([f"r{i}", f" r{i} extra words", f"r{i}|x:y", f"r{i}.fa",
                           "\tlead tab", f"read{{number}}_{i}", f"r{i} \xe9t\xe9"])
        size = rng.randint(1, 300)
        body = "".join(rng.choice(letters) for _ in range(size))
        width = rng.choice([size, 60, 7, 1])
        lines = [body[j:j + width] for j in range(0, size, width)]
        if rng.random() < 0.2:
            lines.append("")                   # a blank line inside the body
        out.append(">" + head + "\n" + "\n".join(lines) + "\n")
    text = "".join(out)
    if rng.random() < 0.5:
        text = text.rstrip("\n")               # no line break at the end
    return text.encode("latin-1")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("strand", ["both", "plus", "minus"])
@pytest.mark.parametrize("laj", [True, False])
@pytest.mark.parametrize("kind", ["fasta", "fastq"])
def test_bulk_reading_is_the_record_by_record_reading(tmp_path, seed, strand, laj, kind):
    rng = random.Random(seed)
    iupac = seed % 2 == 1
    path = tmp_path / "reads.fa"
    make = _random_fastq if kind == "fastq" else _random_plain
    data = make(rng, rng.randint(20, 400), iupac)
    path.write_bytes(gzip.compress(data) if seed % 3 == 2 else data)   # (gzip'd: the same)
    words = ["t.fa", str(path), f"--strand={strand}"] + \
        (["--ambiguous=iupac"] if iupac else []) + ([] if laj else ["--nolaj"])
    opts = parse_lastz_argv(words)
    plain = plainreads.scan(str(path), iupac)
    assert plain is not None and plain.kind == kind
    strands = {"both": ["+", "-"], "plus": ["+"], "minus": ["-"]}[strand]
    want = []
    for q in iter_queries(str(path), opts):
        want += [q if s == "+" else reverse_complement_sequence(q) for s in strands]
    assert plain.records == len(want) // len(strands)
    assert plain.bases == sum(len(q) for q in want) // len(strands)
    got = []
    # small chunks, and blocks that cut records, so that both edges are crossed
    for chunk, first in plainreads.chunks(str(path), rng.choice([1, 500, 5000]),
                                          rng.choice([1, 3, 1000]), kind):
        heads, quals, cat, offsets = plainreads.strand_buffers(chunk, strands, kind)
        assert (quals is None) == (kind == "fasta")
        for u in range(offsets.shape[0] - 1):
            r = u // len(strands)
            # (made unnamed, as a strand is before it is known to report anything;
            # named as those that report are)
            unit = plainreads.record_sequence(cat[offsets[u]:offsets[u + 1]], first + r,
                                              str(path))
            assert (unit.name, unit.header) == ("", "")
            name, header = plainreads.record_names(chunk[heads[r, 0]:heads[r, 1]], first + r,
                                                   opts_spec(str(path)), laj, kind)
            got.append(replace(unit, name=name, header=header))
            # (a strand's qualities are given it where it reports)
            got[-1].quals = plainreads.strand_quals(chunk, quals, r, strands[u % len(strands)])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.array_equal(g.chars, w.chars)
        assert (g.quals is None) == (w.quals is None) == (kind == "fasta")
        if kind == "fastq":
            assert np.array_equal(g.quals, w.quals)
        assert (g.name, g.header, g.filename, g.contig, g.start, g.true_length,
                g.revcomp, g.partitions, g.chore) == (
                    w.name, w.header, w.filename, w.contig, w.start, w.true_length,
                    w.revcomp, w.partitions, w.chore)


def _random_fastq(rng: random.Random, n: int, iupac: bool = False) -> bytes:
    """A plain FASTQ text: headers as ``_random_plain``'s (and '@' inside), '+' lines
    bare or repeating the header, qualities over the whole range ('@' and '+' too)."""
    letters = "ACGTacgtNnXx" + ("RYKMSWBDHVrykmswbdhv" if iupac else "")
    out = []
    for i in range(n):
        head = rng.choice([f"r{i}", f" r{i} extra words", f"r{i}|x:y @x", "\tlead tab",
                           f"read{{number}}_{i}", f"r{i} \xe9t\xe9", ""])
        size = rng.randint(1, 300)
        body = "".join(rng.choice(letters) for _ in range(size))
        quals = "".join(chr(rng.randint(33, 126)) for _ in range(size))
        plus = "+" + (head if rng.random() < 0.3 else "")
        out.append(f"@{head}\n{body}\n{plus}\n{quals}\n")
    text = "".join(out)
    if rng.random() < 0.5:
        text = text[:-1]                       # no line break at the end
    return text.encode("latin-1")


def opts_spec(path: str):
    from fastz.io.specifiers import parse_specifier
    return parse_specifier(path)


@pytest.mark.parametrize("kind", ["fasta", "fastq"])
def test_chunks_keep_to_their_limits_across_blocks(tmp_path, monkeypatch, kind):
    monkeypatch.setattr(plainreads, "BLOCK", 1000)
    rng = random.Random(5)
    data = (_random_fastq if kind == "fastq" else _random_plain)(rng, 300)
    path = tmp_path / "r.fa"
    path.write_bytes(data)
    assert plainreads.scan(str(path), False).records == 300
    got = list(plainreads.chunks(str(path), 700, 4, kind))
    assert b"".join(c for c, _ in got) == data
    number = 1
    for chunk, first in got:
        assert first == number
        records = (chunk.rstrip(b"\n").count(b"\n") + 4) // 4 if kind == "fastq" \
            else chunk.count(b">")
        assert chunk.startswith(b"@" if kind == "fastq" else b">")
        assert 1 <= records <= 4 and (len(chunk) <= 700 or records == 1)
        number += records
    assert number == 301


def _plain_file(tmp_path, text: bytes, name="r.fa"):
    path = tmp_path / name
    path.write_bytes(text)
    return str(path)


@pytest.mark.parametrize("change", [
    lambda t: t.replace(b"\n", b"\r\n"),                   # CR line ends
    lambda t: t.replace(b"ACG", b"AC>G", 1),               # '>' inside a line
    lambda t: t.replace(b"r3\n", b"r3 a>b\n", 1),          # '>' inside a header
    lambda t: t.replace(b"ACG", b"AC G", 1),               # a blank in a body
    lambda t: t.replace(b"ACG", b"AC7G", 1),               # a digit (LASTZ keeps them)
    lambda t: t.replace(b"ACG", b"ACRG", 1),               # IUPAC without --ambiguous
    lambda t: t.replace(b"ACG", b"AC\x00G", 1),            # NUL
    lambda t: t.replace(b">r3\n", b">r3\n>r3b\n", 1),      # an empty record
    lambda t: b"\n" + t,                                   # not starting with '>'
    lambda t: b" " + t,
    lambda t: t.replace(b">r3", b">r3" + b"x" * 1000, 1),  # a header over MAX_HEADER
    lambda t: t.replace(b"ACG", b"ACG" * 1500, 1),         # a record over MAX_RECORD
    lambda t: t[:plainreads.MIN_FILE - 1],                  # too small a file
    lambda t: t + b">",                                    # a header at the very end
    lambda t: gzip.compress(t.replace(b"ACG", b"AC G", 1)),   # gzip'd, not plain inside
    lambda t: gzip.compress(t[:plainreads.MIN_FILE - 1]),     # ... too small inside
    lambda t: gzip.compress(t)[:-20],                          # cut short
], ids=["cr", "gt-in-line", "gt-in-header", "blank", "digit", "iupac", "nul", "empty",
        "lf-first", "blank-first", "long-header", "long-record", "small", "last-header",
        "gzip-blank", "gzip-small", "gzip-cut"])
def test_a_file_not_plainly_fasta_is_read_record_by_record(tmp_path, change):
    base = b"".join(b">r%d\nACGTTGCAACGT\nGGA\n" % i for i in range(200))
    assert plainreads.scan(_plain_file(tmp_path, base), False) is not None
    assert plainreads.scan(_plain_file(tmp_path, gzip.compress(base), "g.fa"), False) \
        is not None
    assert plainreads.scan(_plain_file(tmp_path, change(base), "c.fa"), False) is None


@pytest.mark.parametrize("change", [
    lambda t: t.replace(b"\n", b"\r\n"),                   # CR line ends
    lambda t: t.replace(b"ACG", b"AC G", 1),               # a blank in the bases
    lambda t: t.replace(b"ACG", b"AC7G", 1),               # a digit
    lambda t: t.replace(b"@r3\nACGTTGCAACGTGGA\n", b"@r3\n\n", 1),   # no bases
    lambda t: t.replace(b"+\nIIIIIIIIIIIIIII\n", b"+\nIIIIIIIIIIIIII\n", 1),   # too few
    lambda t: t.replace(b"+\nIIIIIIIIIIIIIII\n", b"+\nIIIIIIIIIIIIIIII\n", 1),  # too many
    lambda t: t.replace(b"IIII", b"II I", 1),              # a blank quality
    lambda t: t.replace(b"@r3\nACGTTGCAACGTGGA\n+\n", b"@r3\nACGTTGCAACGTGGA\n+r4\n", 1),
    lambda t: t.replace(b"@r3\nACGTTGCAACGTGGA\n+\n", b"@r3\nACGTTGCAACGTGGA\n-\n", 1),
    lambda t: t.replace(b"@r3", b"r3", 1),                 # a header without '@'
    lambda t: t.replace(b"ACGTTGCAACGTGGA\n", b"ACGTTGCA\nACGTGGA\n", 1),  # wrapped
    lambda t: t + b"\n",                                   # a blank line at the end
    lambda t: t + b"@r9\nACGT\n+\n",                        # a record cut short
    lambda t: t.replace(b"@r3", b"@r3" + b"x" * 1000, 1),  # a header over MAX_HEADER
    lambda t: gzip.compress(t + b"\n"),                    # gzip'd, not plain inside
], ids=["cr", "blank", "digit", "no-bases", "few-quals", "many-quals", "blank-qual",
        "plus-name", "no-plus", "no-at", "wrapped", "blank-end", "cut", "long-header",
        "gzip-blank-end"])
def test_a_fastq_file_not_plain_is_read_record_by_record(tmp_path, change):
    base = b"".join(b"@r%d\nACGTTGCAACGTGGA\n+\nIIIIIIIIIIIIIII\n" % i for i in range(200))
    assert plainreads.scan(_plain_file(tmp_path, base), False) is not None
    assert plainreads.scan(_plain_file(tmp_path, gzip.compress(base), "g.fq"), False) \
        is not None
    assert plainreads.scan(_plain_file(tmp_path, change(base), "c.fq"), False) is None


@pytest.fixture(scope="module")
def pair(tmp_path_factory, shared_pairs):
    d = tmp_path_factory.mktemp("plainreads")
    src = shared_pairs / "ecoli_K12_vs_salmonella_LT2"
    (d / "target.fa").symlink_to(src / "target.fa")
    (d / "sal.fa").write_text(simulate_reads(first_record(src / "query.fa"), 3000, 150,
                                             seed=21))
    eco = simulate_reads(first_record(src / "target.fa"), 600, 0, seed=22,
                         lengths=(60, 400))
    # wrapped lines, lower case and IUPAC codes; a header with blanks
    recs = eco.split(">")[1:]
    out = []
    rng = random.Random(23)
    for k, rec in enumerate(recs):
        name, body = rec.split("\n", 1)
        body = body.strip()
        if k % 3 == 0:
            body = body.lower()
        if k % 5 == 0:
            at = rng.randrange(len(body))
            body = body[:at] + rng.choice("RYNn") + body[at + 1:]
        out.append(f">{name} sample=x\n" + "\n".join(body[j:j + 61]
                                                   for j in range(0, len(body), 61)))
    (d / "eco.fa").write_text("\n".join(out) + "\n")
    # the same reads as FASTQ, with and without the header on the '+' line
    fq = []
    for k, rec in enumerate(out):
        head, *lines = rec[1:].split("\n")
        body = "".join(lines)
        quals = "".join(chr(rng.randint(33, 126)) for _ in body)
        fq.append(f"@{head}\n{body}\n+{head if k % 2 else ''}\n{quals}\n")
    (d / "eco.fq").write_text("".join(fq))
    (d / "eco.fq.gz").write_bytes(gzip.compress((d / "eco.fq").read_bytes()))
    return d


@pytest.mark.parametrize("words", [
    ["target.fa[multiple]", "sal.fa", *MAP],
    ["target.fa[multiple]", "sal.fa", *MAP, "--workers=1"],
    ["target.fa[multiple]", "eco.fa", *MAP, "--strand=minus", "--ambiguous=iupac"],
    ["target.fa", "eco.fa", "--strand=plus", "--format=sam", "--ambiguous=iupac"],
    ["target.fa", "eco.fa", "--format=maf", "--ambiguous=iupac", "--workers=1"],
    ["target.fa", "eco.fa", "--ambiguous=iupac", "--nolaj"],
    ["target.fa", "eco.fa", "--nogapped", "--format=general", "--ambiguous=iupac"],
    ["target.fa", "eco.fa", "--ambiguous=iupac", "--format=general:name2,number,score",
     "--seed=match12", "--twins=-10..100"],
    ["target.fa[multiple]", "eco.fq", *MAP, "--ambiguous=iupac"],
    ["target.fa", "eco.fq", "--format=maf", "--ambiguous=iupac", "--workers=1"],
    ["target.fa", "eco.fq", "--ambiguous=iupac"],
    ["target.fa", "eco.fq", "--format=sam", "--ambiguous=iupac", "--workers=1"],
    ["target.fa", "eco.fq", "--format=softsam", "--strand=minus", "--ambiguous=iupac"],
    ["target.fa[multiple]", "eco.fq", *MAP[:-1], "--ambiguous=iupac",
     "--format=general:name1,name2,strand2,zstart2,qalign1,qalign2,quals2"],
    ["target.fa", "eco.fq", "--nogapped", "--ambiguous=iupac",
     "--format=general:name2,strand2,zstart2,end2,qalign2,quals2"],
], ids=["map", "map-one-worker", "minus-iupac", "sam-plus", "maf", "lav-nolaj", "nogapped",
        "numbered-twins", "fastq-map", "fastq-maf", "fastq-lav", "fastq-sam",
        "fastq-softsam-minus", "fastq-map-quals", "fastq-nogapped-quals"])
def test_plain_reads_as_lastz(pair, words):
    o = parse_lastz_argv([str(pair / w) if w.endswith(("fa", "fq", "]")) else w
                          for w in words])
    assert Aligner(o).plain_reads is not None       # (the bulk reading is what is tested)
    lz, fz = run_pair(words, pair)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    assert lz.stdout.count(b"\n") > 50


@pytest.mark.parametrize("words", [
    ["target.fa", "eco.fq", "--format=sam", "--ambiguous=iupac"],
    ["target.fa[multiple]", "eco.fq", *MAP, "--ambiguous=iupac", "--workers=1"],
], ids=["sam", "map-one-worker"])
def test_gzipped_reads_in_bulk_as_lastz_on_the_file(pair, words):
    """A gzip'd plain file is read in bulk too (lastz reads no gzip: it is given the
    file itself)."""
    gz = [w + ".gz" if w == "eco.fq" else w for w in words]
    o = parse_lastz_argv([str(pair / w) if w.endswith(("fa", "gz", "]")) else w for w in gz])
    assert Aligner(o).plain_reads is not None
    lz, fz = run_pair(words, pair, fastz_words=gz)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert lz.stdout.count(b"\n") > 50


@pytest.mark.parametrize("words", [
    ["target.fa", "eco.fa", "--ambiguous=iupac", "--format=general:name2,score,identity"],
    ["target.fa", "eco.fa", "--ambiguous=iupac", "--nogapped", "--format=general",
     "--workers=1"],
], ids=["gapped", "nogapped"])
def test_plain_reads_double_as_lastz_D(pair, words):
    """fastz_D's HSPs keep their entropy fractions (found strand by strand in a batch)."""
    from fastz.scoring import score_type
    with score_type("D"):
        o = parse_lastz_argv([str(pair / w) if w.endswith("fa") else w for w in words])
        assert o.double_scores and Aligner(o).plain_reads is not None
    lz, fz = run_pair(words, pair, double=True)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert lz.stdout.count(b"\n") > 50


def test_only_plain_runs_read_in_bulk(pair, tmp_path):
    def plain(*words):
        return Aligner(parse_lastz_argv([str(pair / "target.fa"), *words])).plain_reads
    reads = str(pair / "sal.fa")
    assert plain(reads) is not None
    for words in ([reads + "[1..50]"], [reads + "[nameparse=darkspace]"], [reads + "-"],
                  [reads, "--progress=10"], [reads, "--verbosity=1"], [reads, "--masking=3"],
                  [reads, "--entropy=report"], [reads, "--chain"]):
        got = plain(*words)
        assert (got is not None) == (words == [reads, "--chain"]), words


# --- a piped file: read in bulk as it comes -----------------------------------------


def _streamed(data: bytes, kind_iupac=False, max_bytes=700, max_records=4):
    """(chunks sent, rest: the bytes the record-by-record reading takes on with, and
    its first record's number) of ``data`` read once as a stream."""
    import io
    reads = plainreads.StreamedReads(io.BytesIO(data), "r.fa", kind_iupac)
    got = list(reads.pieces(max_bytes, max_records))
    if reads.rest is None:
        return got, None
    head, stream, contig = reads.rest
    return got, (head + stream.read(), contig)


@pytest.mark.parametrize("kind", ["fasta", "fastq"])
@pytest.mark.parametrize("at", [0, 37, 299])
def test_a_stream_goes_in_bulk_up_to_a_block_not_plain(monkeypatch, kind, at):
    """The chunks of a stream that turns out not plain at record ``at`` are whole plain
    records, numbered as in the file, that stop before the block with that record; the
    rest holds every byte after them, from a record's start.  A plain stream goes out
    whole; one under MIN_FILE bytes goes to the record-by-record reading whole."""
    monkeypatch.setattr(plainreads, "BLOCK", 1000)
    data = _plain_reads(random.Random(7), 300, kind)
    assert plainreads.scan(_write_tmp(data), False) is not None
    got, rest = _streamed(data)
    assert rest is None and b"".join(c for c, _ in got) == data
    assert _numbered(got, kind) == 301
    mark = b"@" if kind == "fastq" else b">"
    starts = _fastq_starts(data) if kind == "fastq" else \
        [i for i in range(len(data)) if data[i:i + 1] == mark]
    odd = data[:starts[at] + 1] + b"r\rx" + data[starts[at] + 1:]     # (a CR in a header)
    got, rest = _streamed(odd)
    sent = b"".join(c for c, _ in got)
    assert rest is not None and sent + rest[0] == odd
    assert len(sent) <= starts[at] and odd[len(sent):len(sent) + 1] == mark
    assert starts[at] - len(sent) <= 2 * 1000 + 600       # (the block before may stay)
    assert rest[1] == _numbered(got, kind)
    assert (rest[1] == 1) if at == 0 else (rest[1] > at - 20)
    got, rest = _streamed(data[:plainreads.MIN_FILE - 1])
    assert got == [] and rest == (data[:plainreads.MIN_FILE - 1], 1)


def _numbered(got, kind: str) -> int:
    """The next record's number after chunks numbered one after another."""
    number = 1
    for chunk, first in got:
        assert first == number and 1 <= len(chunk) and (len(chunk) <= 700 or
                                                        chunk.count(b"\n") <= 10)
        number += chunk.count(b"\n") // 4 if kind == "fastq" else chunk.count(b">")
    return number


def _plain_reads(rng: random.Random, n: int, kind: str) -> bytes:
    """Plain FASTA (wrapped at 60) or FASTQ reads of 1 to 300 bases."""
    out = []
    for i in range(n):
        body = "".join(rng.choice("ACGTNacgt") for _ in range(rng.randint(1, 300)))
        if kind == "fastq":
            quals = "".join(chr(rng.randint(33, 126)) for _ in body)
            out.append(f"@r{i} x\n{body}\n+\n{quals}\n")
        else:
            out.append(f">r{i} x\n" + "\n".join(body[j:j + 60]
                                                for j in range(0, len(body), 60)) + "\n")
    return "".join(out).encode()


def _write_tmp(data: bytes) -> str:
    import tempfile
    f = tempfile.NamedTemporaryFile(delete=False, suffix=".fa")
    f.write(data)
    f.close()
    return f.name


def _fastq_starts(data: bytes) -> list[int]:
    lines = data.split(b"\n")
    at, out = 0, []
    for k, line in enumerate(lines):
        if k % 4 == 0 and line:
            out.append(at)
        at += len(line) + 1
    return out


def test_a_pipe_is_read_as_a_stream(pair, tmp_path, monkeypatch):
    import io
    import os
    import threading
    from fastz.io.sequences import piped
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "r.fa").write_text(">r\nACGT\n")
    assert piped(str(fifo)) and piped(f"{fifo}[multiple]")
    assert not piped(str(tmp_path / "r.fa")) and not piped(None)
    assert not piped(str(tmp_path / "missing.fa"))
    data = (pair / "sal.fa").read_bytes()

    def feed(path):
        with open(path, "wb") as f:
            f.write(data)
    target = str(pair / "target.fa")
    writer = threading.Thread(target=feed, args=(fifo,))
    writer.start()
    got = Aligner(parse_lastz_argv([target, str(fifo)])).plain_reads
    writer.join()
    assert isinstance(got, plainreads.StreamedReads) and got.rest is None
    # stdin, no query file named
    r, w = os.pipe()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(os.fdopen(r, "rb")))
    writer = threading.Thread(target=feed, args=(w,))
    writer.start()
    assert piped(None)
    got = Aligner(parse_lastz_argv([target])).plain_reads
    writer.join()
    assert isinstance(got, plainreads.StreamedReads) and got.path == "(stdin)"
    # ... not with quals2 (whether it is FASTQ would be known only once read)
    writer = threading.Thread(target=feed, args=(fifo,))
    writer.start()
    got = Aligner(parse_lastz_argv([target, str(fifo), "--format=general:quals2"])
                  ).plain_reads
    with open(fifo, "rb") as f:              # (the pipe left unread: the writer ends)
        f.read()
    writer.join()
    assert got is None


@pytest.fixture(scope="module")
def big_stream(pair):
    """Over a block (4 MB) of plain reads, then records the bulk reading leaves to the
    record-by-record one (a long record, a digit, a blank line, an empty record), then
    plain reads again."""
    genome = first_record(pair / "target.fa")
    reads = simulate_reads(genome, 27000, 150, seed=24)
    more = simulate_reads(genome, 300, 150, seed=25)
    odd = (f">long\n{genome[5000:11000]}\n>digit\n{genome[20000:20100]}7"
           f"{genome[20100:20200]}\n>blank\n{genome[30000:30150]}\n\n{genome[30150:30300]}\n"
           f">empty\n")
    data = (reads + odd + more).encode()
    assert len(reads) > plainreads.BLOCK
    return data


@pytest.mark.parametrize("case", ["map", "lav-odd", "fastq-sam", "gzip-fastq",
                                  "small", "stdin-lav", "stdin-odd"])
def test_piped_reads_as_lastz_reading_the_pipe(pair, big_stream, case):
    """A query file piped (``/dev/stdin``, or stdin with no query file named) goes in
    bulk as it comes; where it turns out not plain, record by record from there on.
    lastz reads the same pipe."""
    data = {"map": lambda: (pair / "sal.fa").read_bytes(),
            "lav-odd": lambda: big_stream,
            "fastq-sam": lambda: (pair / "eco.fq").read_bytes(),
            "gzip-fastq": lambda: (pair / "eco.fq").read_bytes(),
            "small": lambda: (pair / "eco.fa").read_bytes()[:900],
            "stdin-lav": lambda: (pair / "eco.fa").read_bytes(),
            "stdin-odd": lambda: big_stream}[case]()
    words = {"map": ["target.fa[multiple]", "/dev/stdin", *MAP],
             "lav-odd": ["target.fa", "/dev/stdin", *MAP[:-1]],
             "fastq-sam": ["target.fa", "/dev/stdin", "--format=sam", "--ambiguous=iupac"],
             "gzip-fastq": ["target.fa", "/dev/stdin", "--ambiguous=iupac", "--workers=1"],
             "small": ["target.fa[multiple]", "/dev/stdin", *MAP, "--ambiguous=iupac"],
             # (no query file named: stdin)
             "stdin-lav": ["target.fa", "--ambiguous=iupac", "--workers=1"],
             "stdin-odd": ["target.fa[multiple]", *MAP],
             }[case]
    lz = run_program("lastz", [w for w in words if not w.startswith("--workers")], pair,
                     stdin=data)
    fz = run_program("fastz", words, pair,
                     stdin=gzip.compress(data) if case.startswith("gzip") else data)
    assert lz.returncode == 0 and fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    assert lz.stdout.count(b"\n") > (1 if case == "small" else 50)


def test_a_bad_record_late_in_a_pipe_fails_the_run_in_one_line(pair, big_stream):
    """Found by the record-by-record reading that takes over from the bulk one: the
    error lastz gives, after the output of records before it (a pipe is read once)."""
    data = big_stream + b">bad\nACGTJACGT\n"
    words = ["target.fa[multiple]", "/dev/stdin", *MAP]
    lz = run_program("lastz", words, pair, stdin=data)
    fz = run_program("fastz", [*words, "--workers=1"], pair, stdin=data)
    assert lz.returncode != 0 and fz.returncode == 1
    assert b"Traceback" not in fz.stderr
    assert fz.stderr.decode().strip().splitlines()[-1].startswith("fastz: bad fasta character")
    assert fz.stdout.count(b"\n") > 1000 and lz.stdout.startswith(fz.stdout)


def test_stdin_redirected_from_a_file_in_bulk(pair):
    """``fastz target.fa < reads.fa``: the file read in bulk (scanned, then chunked,
    through a fresh descriptor of stdin's file), as lastz reads stdin."""
    import subprocess
    import sys
    words = ["target.fa[multiple]", *MAP, "--ambiguous=iupac"]
    probe = ("import sys; from fastz.lastz_args import parse_lastz_argv; "
             "from fastz.pipeline import Aligner; "
             "print(type(Aligner(parse_lastz_argv(sys.argv[1:])).plain_reads).__name__)")
    with open(pair / "eco.fa", "rb") as fh:
        kind = subprocess.run([sys.executable, "-c", probe, *words], stdin=fh, cwd=pair,
                              capture_output=True, check=True,
                              env=fastz_env()).stdout.strip()
    assert kind == b"PlainReads"
    with open(pair / "eco.fa", "rb") as fh:
        fh.read(1)                  # (read from already: the record-by-record reading)
        kind = subprocess.run([sys.executable, "-c", probe, *words], stdin=fh, cwd=pair,
                              capture_output=True, check=True,
                              env=fastz_env()).stdout.strip()
    assert kind == b"NoneType"
    outs = []
    for program in ("lastz", "fastz"):
        with open(pair / "eco.fa", "rb") as fh:
            res = subprocess.run([*program_argv(program), *words], stdin=fh, cwd=pair,
                                 capture_output=True, timeout=600, env=fastz_env())
        assert res.returncode == 0, res.stderr.decode()[-300:]
        outs.append(drop_version(res.stdout))
    assert outs[0] == outs[1] and outs[0].count(b"\n") > 50
