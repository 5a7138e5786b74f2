"""Test helpers for the writer tests: a tiny sequence loader and LASTZ-row parsing.

The loader covers only what the writer tests use (FASTA, 2bit with /select,
subranges ``[a,b]`` / ``[a..b]`` / ``[a#len]``, ``[multiple]``, ``[subset=f]``,
trailing ``-``).  It exists so the writer tests do not depend on the real loader;
it is not a specification of LASTZ's loader.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fastz.io.alignview import COMPLEMENT
from fastz.records import OP_DEL, OP_INS, OP_MATCH, Alignments, Partitions, Sequence, StrandResult

GENERAL_FIELDS = "name1,zstart1,end1,name2,strand2,zstart2,end2,score,cigar"
_SUFFIXES = (".nib", ".2bit", ".hsx", ".fasta", ".fa")


def short_name(header: str) -> str:
    """LASTZ's default short name of a header."""
    s = header.lstrip(">").lstrip(" \t")
    for pre in ("reverse complement of ", "positions "):
        if s.startswith(pre):
            s = s[len(pre):]
    m = re.match(r"[^ \t|:]*", s)
    s = m.group(0)
    for suf in _SUFFIXES:
        if s.endswith(suf) and len(s) > len(suf):
            s = s[: -len(suf)]
            break
    return s


@dataclass
class Record:
    header: str
    name: str
    chars: bytes
    contig: int


@dataclass
class Spec:
    path: str
    select: str | None = None
    start: int | None = None      # 1-based
    end: int | None = None        # 1-based inclusive
    soft_end: bool = False
    multiple: bool = False
    subset: str | None = None
    revcomp: bool = False
    extra: dict = field(default_factory=dict)


def parse_spec(text: str) -> Spec:
    rev = False
    if text.endswith("-"):
        rev, text = True, text[:-1]
    actions = []
    while text.endswith("]"):
        i = text.rindex("[")
        actions = text[i + 1:-1].split(",") + actions
        text = text[:i]
    select = None
    if ".2bit/" in text:
        text, select = text.split(".2bit/")
        text += ".2bit"
    spec = Spec(text, select, revcomp=rev)
    nums = []
    for a in actions:
        if a in ("multiple", "multi"):
            spec.multiple = True
        elif a.startswith("subset="):
            spec.subset = a[len("subset="):]
        elif "#" in a:
            s, n = a.split("#")
            spec.start, spec.end, spec.soft_end = int(s), int(s) + int(n) - 1, True
        elif ".." in a:
            s, e = a.split("..")
            spec.start, spec.end = int(s), int(e)
        elif a.isdigit():
            nums.append(int(a))
        else:
            raise ValueError(f"test loader: unsupported action {a}")
    if nums:
        spec.start, spec.end = nums[0], nums[1]
    return spec


def read_records(path: Path, select: str | None = None) -> list[Record]:
    if str(path).endswith(".2bit"):
        import twobitreader
        tb = twobitreader.TwoBitFile(str(path))
        names = list(tb.sequence_sizes().keys())
        out = []
        for i, n in enumerate(names):
            if select is not None and n != select:
                continue
            out.append(Record(n, n, str(tb[n][0:tb.sequence_sizes()[n]]).encode(), i + 1))
        return out
    recs = []
    header, buf = None, []
    with open(path, "rb") as f:
        for line in f:
            line = line.rstrip(b"\r\n")
            if line.startswith(b">"):
                if header is not None:
                    recs.append((header, b"".join(buf)))
                header, buf = line.decode(), []
            else:
                buf.append(line.replace(b" ", b"").replace(b"\t", b""))
    if header is not None:
        recs.append((header, b"".join(buf)))
    return [Record(h, short_name(h), s, i + 1) for i, (h, s) in enumerate(recs)]


def _subrange(rec: Record, spec: Spec) -> tuple[bytes, int]:
    if spec.start is None:
        return rec.chars, 0
    start = spec.start - 1
    end = min(spec.end, len(rec.chars)) if spec.soft_end else spec.end
    return rec.chars[start:end], start


def load(text: str, base: Path, as_target: bool = False) -> list[Sequence]:
    """Sequences of a specifier (one partitioned Sequence for [multiple]).

    Uses the real loader (fastz.io.sequences) when it is importable, else the tiny
    one below.  File names are relative to ``base`` (as lastz is run there).
    """
    try:
        from fastz.io.sequences import iter_queries, load_target
        from fastz.options import Options
    except ImportError:
        return tiny_load(text, base)
    old = os.getcwd()
    os.chdir(base)
    try:
        if as_target:
            return [load_target(text, Options())]
        return list(iter_queries(text, Options()))
    finally:
        os.chdir(old)


def tiny_load(text: str, base: Path) -> list[Sequence]:
    """The fallback loader."""
    spec = parse_spec(text)
    recs = read_records(base / spec.path, spec.select)
    if spec.subset:
        keep = set((base / spec.subset).read_text().split())
        recs = [r for r in recs if r.name in keep]
    seqs = []
    for r in recs:
        chars, start = _subrange(r, spec)
        arr = np.frombuffer(chars, np.uint8).copy()
        if spec.revcomp:
            arr = COMPLEMENT[arr[::-1]]
        seqs.append(Sequence(arr, r.name, r.header, spec.path, r.contig, start, len(r.chars),
                             spec.revcomp))
    if not spec.multiple:
        return seqs
    buf = [np.zeros(1, np.uint8)]
    offs = []
    pos = 1
    for s in seqs:
        offs.append(pos)
        buf += [s.chars, np.zeros(1, np.uint8)]
        pos += len(s) + 1
    parts = Partitions(np.array(offs, np.int64), np.array([len(s) for s in seqs], np.int64),
                       np.array([s.start for s in seqs], np.int64),
                       np.array([s.true_length for s in seqs], np.int64),
                       np.array([s.contig for s in seqs], np.int64),
                       [s.name for s in seqs], [s.header for s in seqs])
    first = seqs[0]
    return [Sequence(np.concatenate(buf), first.name, first.header, spec.path, 1, 0,
                     first.true_length, spec.revcomp, parts)]


def strand_buffer(seq: Sequence, strand: str) -> Sequence:
    if strand == "+":
        return seq
    try:
        from fastz.io.sequences import reverse_complement_sequence
        return reverse_complement_sequence(seq)
    except ImportError:
        pass
    return Sequence(COMPLEMENT[seq.chars[::-1]], seq.name, seq.header, seq.filename,
                    seq.contig, seq.start, seq.true_length, seq.revcomp, seq.partitions)


_CIG = re.compile(r"(\d+)([MID])")
_OPS = {"M": OP_MATCH, "I": OP_INS, "D": OP_DEL}


def rows_to_alignments(rows: list[list[str]], target: Sequence, query: Sequence, strand: str,
                       kind: str) -> Alignments:
    """Rows of GENERAL_FIELDS output -> Alignments in strand-buffer coordinates."""
    if not rows:
        return Alignments.empty(kind)
    b1, b2, sc, starts, ops = [], [], [], [0], []
    for name1, z1, _e1, _n2, _s2, z2, _e2, score, cigar in rows:
        z1, z2 = int(z1), int(z2)
        if target.partitions is not None:
            k = target.partitions.names.index(name1)
            b1.append(int(target.partitions.offset[k]) + z1 - int(target.partitions.start[k]))
        elif target.revcomp:
            b1.append(z1 - (target.true_length - (target.start + len(target))))
        else:
            b1.append(z1 - target.start)
        if query.partitions is not None:
            qp = query.partitions
            k = qp.names.index(_n2)
            off, qstart, qlen, qtrue = (int(qp.offset[k]), int(qp.start[k]), int(qp.length[k]),
                                        int(qp.true_length[k]))
        else:
            off, qstart, qlen, qtrue = 0, query.start, len(query), query.true_length
        if (strand == "+") != query.revcomp:
            b2.append(off + z2 - qstart)
        else:
            b2.append(off + z2 - (qtrue - (qstart + qlen)))
        sc.append(int(score))
        for n, op in _CIG.findall(cigar):
            ops.append((int(n) << 4) | _OPS[op])
        starts.append(len(ops))
    ops_a = np.array(ops, np.uint32)
    st = np.array(starts, np.int64)
    e1, e2 = [], []
    for k in range(len(b1)):
        run = ops_a[st[k]:st[k + 1]]
        kinds, lens = run & 0xF, (run >> 4).astype(np.int64)
        e1.append(b1[k] + int(lens[kinds != OP_INS].sum()))
        e2.append(b2[k] + int(lens[kinds != OP_DEL].sum()))
    arr = lambda x: np.array(x, np.int64)  # noqa: E731
    return Alignments(arr(b1), arr(e1), arr(b2), arr(e2), arr(sc), st, ops_a, kind)


def strand_results(general_out: bytes, target: Sequence, queries: list[Sequence],
                   strands: tuple[str, ...], kind: str) -> list[StrandResult]:
    """Group LASTZ general rows into StrandResults, in LASTZ's strand order."""
    rows = [ln.split("\t") for ln in general_out.decode().splitlines()
            if ln and not ln.startswith("#")]
    out = []
    i = 0
    for q in queries:
        for strand in strands:
            block = []
            printed = strand if not q.revcomp else {"+": "-", "-": "+"}[strand]
            names = q.partitions.names if q.partitions is not None else [q.name]
            while i < len(rows) and rows[i][3] in names and rows[i][4] == printed:
                block.append(rows[i])
                i += 1
            qs = strand_buffer(q, strand)
            alns = rows_to_alignments(block, target, qs, strand, kind)
            out.append(StrandResult(qs, strand, alns))
    assert i == len(rows), f"unconsumed rows from {i}: {rows[i][:5]}"
    return out


def args_string(argv: list[str]) -> str:
    """LASTZ's args: every non-file word followed by one space (files are the first two)."""
    files = 0
    words = []
    for a in argv:
        if not a.startswith("-") and "=" not in a.split("[")[0] and files < 2:
            files += 1
            continue
        words.append(a + " ")
    return "".join(words)
