"""Partition a genome into overlapping chunks (the workflow's ``partition`` checkpoint).

A chunk is what one fastz job sees on one side: either a piece ``[start, end)`` of one
long record, or a bin of whole short records.  Chunks are not copied into FASTA files:
every chunk is a LASTZ sequence specifier into one 2bit file of the genome
(``genome.2bit[subset=names][start..end]``), so each job reads only its own bases
(2bit is random access) and fastz itself reports every coordinate, size and coverage
on the original records, as a whole-genome run would.  A FASTA genome is converted to
2bit once, here; a 2bit genome is used in place.

Files written to the output directory:

``records.tsv``  index, contig, name, length, header of each non-empty record (file order)
``chunks.tsv``   chunk, spec, bases: one line per chunk, the fastz specifier
``pieces.tsv``   chunk, record, start, end, core_start, core_end: one line per record
                 piece of a chunk (0-based, half-open); the *core* is the part of the
                 piece that owns alignments (an alignment belongs to the chunk whose
                 core holds its midpoint, see ``merge.py``)
``names/<chunk>.names``  the record names of the chunk, for ``[subset=...]``
``genome.2bit``  only when the input was not 2bit already

Pieces of one record step by ``ceil((L - overlap) / n)`` with ``n`` chosen so that no
piece is longer than ``chunk_size``; neighbours overlap by exactly ``overlap`` bases and
cores are the pieces minus ``overlap // 2`` at each inner border, so cores tile the
record.  Records no longer than ``chunk_size`` are packed whole, in file order, into bins
of at most ``chunk_size`` bases (one record per bin when ``bin_records`` is false).
"""

import csv
import math
import os
import shutil
import struct
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np

TWOBIT_MAGIC = 0x1A412743
_CODE = np.full(256, 255, np.uint8)           # 2bit codes: T=0 C=1 A=2 G=3 (N stored as T)
for _ch, _c in zip(b"TCAGN", (0, 1, 2, 3, 0)):
    _CODE[_ch] = _c
    _CODE[_ch + 32] = _c


class PartitionError(Exception):
    """A genome the workflow cannot chunk (message for the user)."""


# --- the plan ---------------------------------------------------------------------------


@dataclass
class Piece:
    record: int          # index into records.tsv
    start: int           # 0-based, half-open piece of the record
    end: int
    core_start: int      # the part of the piece that owns alignments
    core_end: int


@dataclass
class Chunk:
    chunk: str
    pieces: list[Piece] = field(default_factory=list)

    @property
    def bases(self) -> int:
        return sum(p.end - p.start for p in self.pieces)


def split_record(length: int, chunk_size: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """(start, end, core_start, core_end) of the overlapping pieces of one record."""
    if length <= chunk_size:
        return [(0, length, 0, length)]
    n = math.ceil((length - overlap) / (chunk_size - overlap))
    step = math.ceil((length - overlap) / n)
    half = overlap // 2
    out = []
    for k in range(n):
        start = k * step
        end = min(length, start + step + overlap)
        core_start = 0 if k == 0 else start + half
        core_end = length if k == n - 1 else (k + 1) * step + half
        out.append((start, end, core_start, core_end))
    return out


def plan_chunks(lengths: list[int], chunk_size: int, overlap: int, prefix: str,
                bin_records: bool = True) -> list[Chunk]:
    """The chunks of a genome whose non-empty records have ``lengths`` (file order)."""
    if chunk_size <= 0:
        raise PartitionError(f"chunk size must be positive ({chunk_size})")
    if not 0 <= overlap < chunk_size:
        raise PartitionError(f"chunk overlap must be >= 0 and smaller than the chunk size "
                             f"({overlap} vs {chunk_size})")
    chunks: list[Chunk] = []
    current: Chunk | None = None

    def new_chunk() -> Chunk:
        c = Chunk(f"{prefix}{len(chunks):05d}")
        chunks.append(c)
        return c

    for rec, length in enumerate(lengths):
        if length > chunk_size:
            current = None
            for start, end, cs, ce in split_record(length, chunk_size, overlap):
                new_chunk().pieces.append(Piece(rec, start, end, cs, ce))
            continue
        if current is None or not bin_records or current.bases + length > chunk_size:
            current = new_chunk()
        current.pieces.append(Piece(rec, 0, length, 0, length))
    return chunks


def chunk_spec(twobit: str, names_file: str, chunk: Chunk, lengths: list[int],
               multiple: bool) -> str:
    """The fastz specifier of a chunk: subset (+ subrange of a piece, + [multiple])."""
    spec = f"{twobit}[subset={names_file}]"
    if len(chunk.pieces) == 1:
        p = chunk.pieces[0]
        if (p.start, p.end) != (0, lengths[p.record]):
            spec += f"[{p.start + 1}..{p.end}]"
    elif multiple:
        spec += "[multiple]"
    return spec


# --- reading and writing genomes --------------------------------------------------------


@dataclass
class Record:
    name: str
    header: str
    contig: int          # 1-based number of the record in its file (LAV's s stanza)
    length: int


def is_twobit(path: str) -> bool:
    """Whether ``path`` starts with the 2bit magic number (either byte order)."""
    with open(path, "rb") as f:
        head = f.read(4)
    return len(head) == 4 and TWOBIT_MAGIC in struct.unpack("<I", head) + struct.unpack(">I", head)


def read_twobit_index(path: str) -> list[Record]:
    """Names and lengths of a 2bit file's records (fastz's own 2bit reader)."""
    from fastz.io.twobit import TwoBitFile
    records = []
    with open(path, "rb") as f:
        tb = TwoBitFile(f, path)
        for k, (name, off) in enumerate(zip(tb.names, tb.offsets)):
            f.seek(off)
            length = struct.unpack(tb.endian + "I", f.read(4))[0]
            records.append(Record(name, name, k + 1, length))
    return records


def iter_fasta(path: str):
    """(Record, chars) of each non-empty record, loaded exactly as fastz loads queries."""
    from fastz.io.sequences import iter_queries
    for seq in iter_queries(path, SimpleNamespace(ambiguous_iupac=False)):
        yield Record(seq.name, seq.header, int(seq.contig), len(seq)), seq.chars


def _blocks(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and sizes of the runs of True in a boolean array."""
    d = np.diff(np.concatenate(([0], flags.view(np.int8), [0])))
    starts = np.flatnonzero(d == 1)
    return starts, np.flatnonzero(d == -1) - starts


def twobit_record_bytes(name: str, chars: np.ndarray) -> bytes:
    """One record's 2bit data block (dnaSize, N blocks, mask blocks, packed bases)."""
    codes = _CODE[chars]
    if (codes == 255).any():
        k = int(np.flatnonzero(codes == 255)[0])
        raise PartitionError(
            f"record {name} has {chr(chars[k])!r} at position {k + 1}: the workflow stores "
            "chunks as 2bit, which holds only A, C, G, T and N (any case); replace other "
            "characters by N first")
    n = chars.shape[0]
    upper = chars & 0xDF
    n_starts, n_sizes = _blocks(upper == ord("N"))
    m_starts, m_sizes = _blocks(chars >= ord("a"))
    pad = (-n) % 4
    packed = np.concatenate((codes, np.zeros(pad, np.uint8))).reshape(-1, 4)
    packed = (packed[:, 0] << 6) | (packed[:, 1] << 4) | (packed[:, 2] << 2) | packed[:, 3]
    head = [np.array([n, n_starts.shape[0]], "<u4"), n_starts.astype("<u4"),
            n_sizes.astype("<u4"), np.array([m_starts.shape[0]], "<u4"),
            m_starts.astype("<u4"), m_sizes.astype("<u4"), np.array([0], "<u4")]
    return b"".join(a.tobytes() for a in head) + packed.astype(np.uint8).tobytes()


def write_twobit(path: str, records) -> list[Record]:
    """Write ``(Record, chars)`` pairs as a version-0 2bit file; returns the records.

    Record blocks are spooled to a temporary file first, since the index (written first)
    needs every block's offset.
    """
    index: list[tuple[bytes, int]] = []
    out_records: list[Record] = []
    seen: set[str] = set()
    with tempfile.TemporaryFile(dir=os.path.dirname(os.path.abspath(path))) as body:
        for rec, chars in records:
            if rec.name in seen:
                raise PartitionError(f"record name {rec.name} occurs twice; chunks select "
                                     "records by name, so names must be unique")
            seen.add(rec.name)
            raw_name = rec.name.encode("utf-8", "surrogateescape")
            if not 0 < len(raw_name) < 256:
                raise PartitionError(f"record name {rec.name!r} is empty or longer than "
                                     "255 bytes (2bit limit)")
            index.append((raw_name, body.tell()))
            body.write(twobit_record_bytes(rec.name, chars))
            out_records.append(rec)
        if not index:
            raise PartitionError("the genome contains no sequence")
        header_size = 16 + sum(1 + len(nm) + 4 for nm, _ in index)
        if header_size + body.tell() >= 1 << 32:
            raise PartitionError("genome too large for a version-0 2bit file (4 GiB)")
        with open(path, "wb") as f:
            f.write(struct.pack("<IIII", TWOBIT_MAGIC, 0, len(index), 0))
            for nm, off in index:
                f.write(bytes([len(nm)]) + nm + struct.pack("<I", header_size + off))
            body.seek(0)
            shutil.copyfileobj(body, f, 1 << 24)
    return out_records


# --- manifests --------------------------------------------------------------------------


def write_manifests(outdir: str, twobit: str, records: list[Record], chunks: list[Chunk],
                    multiple: bool) -> None:
    out = Path(outdir)
    (out / "names").mkdir(parents=True, exist_ok=True)
    lengths = [r.length for r in records]
    with open(out / "records.tsv", "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["index", "contig", "name", "length", "header"])
        for k, r in enumerate(records):
            w.writerow([k, r.contig, r.name, r.length, r.header])
    with open(out / "chunks.tsv", "w", newline="") as fc, \
            open(out / "pieces.tsv", "w", newline="") as fp:
        wc = csv.writer(fc, delimiter="\t", lineterminator="\n")
        wp = csv.writer(fp, delimiter="\t", lineterminator="\n")
        wc.writerow(["chunk", "spec", "bases"])
        wp.writerow(["chunk", "record", "start", "end", "core_start", "core_end"])
        for c in chunks:
            names = out / "names" / f"{c.chunk}.names"
            names.write_text("".join(records[p.record].name + "\n" for p in c.pieces))
            wc.writerow([c.chunk, chunk_spec(twobit, str(names), c, lengths, multiple),
                         c.bases])
            for p in c.pieces:
                wp.writerow([c.chunk, p.record, p.start, p.end, p.core_start, p.core_end])


def read_records(chunk_dir: str) -> list[dict]:
    with open(Path(chunk_dir) / "records.tsv", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    for r in rows:
        for k in ("index", "contig", "length"):
            r[k] = int(r[k])
    return rows


def read_chunks(chunk_dir: str) -> dict[str, str]:
    """chunk id -> fastz specifier, in chunk order."""
    with open(Path(chunk_dir) / "chunks.tsv", newline="") as f:
        return {r["chunk"]: r["spec"]
                for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}


def read_pieces(chunk_dir: str) -> dict[str, list[Piece]]:
    out: dict[str, list[Piece]] = {}
    with open(Path(chunk_dir) / "pieces.tsv", newline="") as f:
        for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            out.setdefault(r["chunk"], []).append(
                Piece(int(r["record"]), int(r["start"]), int(r["end"]),
                      int(r["core_start"]), int(r["core_end"])))
    return out


def partition(genome: str, outdir: str, prefix: str, chunk_size: int, overlap: int,
              bin_records: bool = True, multiple: bool = False) -> list[Chunk]:
    """Partition ``genome`` into ``outdir`` (see the module docstring).

    ``prefix`` names the chunks (``t`` / ``q``); ``multiple`` adds ``[multiple]`` to bins
    of several records (needed on the target side, where LASTZ loads one sequence).
    """
    os.makedirs(outdir, exist_ok=True)
    if is_twobit(genome):
        records = read_twobit_index(genome)
        twobit = genome
    else:
        twobit = str(Path(outdir) / "genome.2bit")
        records = write_twobit(twobit, iter_fasta(genome))
    chunks = plan_chunks([r.length for r in records], chunk_size, overlap, prefix,
                         bin_records)
    write_manifests(outdir, twobit, records, chunks, multiple)
    return chunks


def _snakemake_main(smk) -> None:                       # pragma: no cover (run by snakemake)
    p = smk.params
    with open(smk.log[0], "w") as log:
        try:
            chunks = partition(smk.input[0], smk.output[0], p.prefix, int(p.chunk_size),
                               int(p.overlap), bool(p.bin_records), bool(p.multiple))
        except PartitionError as exc:
            log.write(f"partition: {exc}\n")
            sys.exit(f"partition: {exc}")
        log.write(f"{smk.input[0]}: {len(chunks)} chunks of at most {p.chunk_size} bp, "
                  f"overlap {p.overlap} bp\n")


if "snakemake" in globals():                            # pragma: no cover
    _snakemake_main(globals()["snakemake"])
