"""A plain FASTA or FASTQ file of many short records (reads), read in bulk.

Read record by record, a read costs Python about 10 us (its record, names, reverse
complement and objects, then its trip to a worker and back): more than its seed
search.  A file that is *plainly* FASTA is instead checked in one pass (``scan``),
cut into chunks of whole records that travel to the workers as bytes (``chunks``),
and a chunk's records become one buffer of strands in one kernel call
(``strand_buffers``); a Sequence is made only for a strand that has something to
report (``record_sequence``, as the record-by-record reading makes it).

Plainly FASTA, so that both readings store the same bytes under the same names (a
gzip'd file's: those it holds): the file starts with '>' and is at least MIN_FILE
bytes (LASTZ's format detection reads its first 995), every '>' starts a line and a
header (none inside one), no line ends in CR, no header is over MAX_HEADER bytes,
every other line holds only the letters a record may hold (no blanks or digits,
which LASTZ drops or keeps by its own rules), no byte is NUL, and every record has a
base and is at most MAX_RECORD bytes (reads: a longer record is better read alone,
its search then threaded).  Plainly FASTQ: the file
starts with '@', is at least MIN_FILE bytes, and every record is four lines, '@' and a
header, 1 to MAX_RECORD such letters, '+' alone or followed by the same header, and as
many qualities (bytes 33-126) as bases; no CR or NUL, nothing after the last record.
Anything else is read record by record, with LASTZ's messages.
"""
from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..records import Sequence
from .fasta import _tables, text
from .seqmasks import COMPLEMENT

MIN_FILE = 1024
MAX_HEADER = 900
MAX_RECORD = 4096
#: bytes read from the file at a time
BLOCK = 1 << 22

_GT, _LF = 0x3E, 0x0A
# scan state: [records, bases in the record, bytes in the record, at a line's start,
# in a header, header bytes, total bases]
_RECORDS, _BASES, _BYTES, _LINE_START, _IN_HEADER, _HEADER, _TOTAL = range(7)


@njit(cache=True, nogil=True)
def _scan_block(buf, letters, st):
    """Carry the scan (``scan``) through one more block of the file; False as soon as
    the file is not plainly FASTA."""
    for i in range(buf.shape[0]):
        c = buf[i]
        if c == 0x0D or c == 0:
            return False
        if st[_IN_HEADER]:
            if c == _LF:
                st[_IN_HEADER] = 0
                st[_LINE_START] = 1
            elif c == _GT:
                return False                    # (a '>' only ever starts a record)
            else:
                st[_HEADER] += 1
                if st[_HEADER] > MAX_HEADER:
                    return False
            st[_BYTES] += 1
        elif c == _GT:
            if not st[_LINE_START]:
                return False
            if st[_RECORDS] > 0 and not _end_record(st):
                return False
            st[_RECORDS] += 1
            st[_BASES] = 0
            st[_BYTES] = 1
            st[_IN_HEADER] = 1
            st[_HEADER] = 0
            st[_LINE_START] = 0
        elif st[_RECORDS] == 0:
            return False                        # (the file must start with '>')
        elif c == _LF:
            st[_LINE_START] = 1
            st[_BYTES] += 1
        else:
            if not letters[c]:
                return False
            st[_BASES] += 1
            st[_BYTES] += 1
            st[_LINE_START] = 0
    return True


@njit(cache=True, nogil=True)
def _end_record(st):
    if st[_BASES] == 0 or st[_BYTES] > MAX_RECORD:
        return False
    st[_TOTAL] += st[_BASES]
    return True


# FASTQ scan state: [records, line of the record (0-3), bytes in the line, bases,
# header bytes, '+' line bytes, quality bytes, total bases]
_Q_RECORDS, _Q_LINE, _Q_LEN, _Q_BASES, _Q_HEADER, _Q_PLUS, _Q_QUALS, _Q_TOTAL = range(8)


@njit(cache=True, nogil=True)
def _scan_fastq_block(buf, letters, st, header):
    """``_scan_block`` for FASTQ: four lines a record, '@' and a header, the bases,
    '+' alone or with the same header, as many qualities as bases (33..126)."""
    for i in range(buf.shape[0]):
        c = buf[i]
        if c == 0x0D or c == 0:
            return False
        line = st[_Q_LINE]
        first = st[_Q_LEN] == 0
        st[_Q_LEN] += 1
        if c == _LF:
            st[_Q_LEN] = 0
            if line == 0:
                if first:
                    return False                # (an empty line for a header)
            elif line == 1:
                if st[_Q_BASES] == 0 or st[_Q_BASES] > MAX_RECORD:
                    return False
            elif line == 2:
                if first or (st[_Q_PLUS] != 0 and st[_Q_PLUS] != st[_Q_HEADER]):
                    return False
            elif not _end_fastq_record(st):
                return False
            line = (line + 1) % 4
            st[_Q_LINE] = line
            if line == 1:                       # (the next line's count starts)
                st[_Q_BASES] = 0
            elif line == 2:
                st[_Q_PLUS] = 0
            elif line == 3:
                st[_Q_QUALS] = 0
        elif line == 0:
            if first:
                if c != 0x40:                   # '@'
                    return False
                st[_Q_RECORDS] += 1
                st[_Q_HEADER] = 0
            else:
                if st[_Q_HEADER] >= MAX_HEADER:
                    return False
                header[st[_Q_HEADER]] = c
                st[_Q_HEADER] += 1
        elif line == 1:
            if not letters[c]:
                return False
            st[_Q_BASES] += 1
        elif line == 2:
            if first:
                if c != 0x2B:                   # '+'
                    return False
            else:
                if st[_Q_PLUS] >= st[_Q_HEADER] or header[st[_Q_PLUS]] != c:
                    return False
                st[_Q_PLUS] += 1
        else:
            if c < 0x21 or c > 0x7E:
                return False
            st[_Q_QUALS] += 1
    return True


@njit(cache=True, nogil=True)
def _end_fastq_record(st):
    if st[_Q_QUALS] != st[_Q_BASES]:
        return False
    st[_Q_TOTAL] += st[_Q_BASES]
    return True


@dataclass(frozen=True)
class PlainReads:
    """A query file found plainly FASTA or FASTQ (``scan``)."""

    path: str
    records: int
    bases: int
    kind: str = "fasta"
    #: (never: a file found plain is plain to its end; see StreamedReads)
    rest = None

    def pieces(self, max_bytes: int, max_records: int):
        return chunks(self.path, max_bytes, max_records, self.kind)


class _Check:
    """The plainness check (module docstring) carried through a file, block by block."""

    def __init__(self, kind: str, allow_iupac: bool):
        self.kind = kind
        self.letters = _letters(allow_iupac)
        self.st = np.zeros(8, np.int64)
        self.header = np.zeros(MAX_HEADER, np.uint8)
        if kind == "fasta":
            self.st[_LINE_START] = 1

    def block(self, data: bytes) -> bool:
        arr = np.frombuffer(data, np.uint8)
        if self.kind == "fastq":
            return _scan_fastq_block(arr, self.letters, self.st, self.header)
        return _scan_block(arr, self.letters, self.st)

    def ended(self) -> bool:
        """Whether the file may end here (the last record whole), once the last block
        has been checked."""
        st = self.st
        if self.kind == "fastq":
            # the file ends after a record's qualities (with a line break or not)
            return bool((st[_Q_LINE] == 0 and st[_Q_LEN] == 0) or (
                st[_Q_LINE] == 3 and st[_Q_LEN] > 0 and _end_fastq_record(st)))
        return not st[_IN_HEADER] and _end_record(st)

    def counts(self) -> tuple[int, int]:
        """(records, bases) checked."""
        st = self.st
        if self.kind == "fastq":
            return int(st[_Q_RECORDS]), int(st[_Q_TOTAL])
        return int(st[_RECORDS]), int(st[_TOTAL])


def scan(path: str, allow_iupac: bool) -> PlainReads | None:
    """The file at ``path`` as PlainReads when it is plainly FASTA or FASTQ (module
    docstring), else None.  Reads it once, in blocks."""
    size = 0
    try:
        with _open(path) as f:
            block = f.read(BLOCK)
            check = _Check("fastq" if block[:1] == b"@" else "fasta", allow_iupac)
            while block:
                size += len(block)
                if not check.block(block):
                    return None
                block = f.read(BLOCK)
    except (OSError, EOFError, zlib.error):
        return None                 # (read record by record: its message)
    if size < MIN_FILE or not check.ended():
        return None
    return PlainReads(path, *check.counts(), check.kind)


class StreamedReads:
    """A reads file that can be read only once (a pipe: ``/dev/stdin``, ``<(zcat
    reads.fa.gz)``), read in bulk as it comes: each block is checked as ``scan``
    checks a whole file before its records go out in chunks.  From a block that is
    not plainly FASTA or FASTQ on (or a file under MIN_FILE bytes), the record-by-
    record reading takes over: ``rest`` is then (the bytes read but not sent on, the
    stream, the first of their records' numbers).  The records before are read alike
    either way, as in a plain file.

    ``stream``: the file's bytes (through gzip where it is gzip'd)."""

    def __init__(self, stream, path: str, allow_iupac: bool):
        self.path = path
        self.stream = stream
        self.allow_iupac = allow_iupac
        self.first = stream.read(max(BLOCK, MIN_FILE))
        self.kind = "fastq" if self.first[:1] == b"@" else "fasta"
        #: at most this many bases where the whole file came in the first block
        #: (the work may be too small to fork workers for), else None
        self.bases = len(self.first) if len(self.first) < BLOCK else None
        self.rest = None
        self.failed = b""
        if len(self.first) < MIN_FILE:
            self.rest = (self.first, stream, 1)

    def pieces(self, max_bytes: int, max_records: int):
        if self.rest is not None:
            return iter(())
        return _pieces(self._blocks(), max_bytes, max_records, self.kind, self._stop)

    def _blocks(self):
        """The stream's blocks, each once it is found plain; None where one is not."""
        check = _Check(self.kind, self.allow_iupac)
        data, self.first = self.first, b""
        while data:
            if not check.block(data):
                self.failed = data
                yield None
                return
            yield data
            data = self.stream.read(BLOCK)
        if not check.ended():
            yield None
            return
        yield b""

    def _stop(self, pending: bytes, contig: int) -> None:
        self.rest = (pending + self.failed, self.stream, contig)


def _open(path: str):
    """The file, read through gzip where it is gzip'd (as the record-by-record
    reading does)."""
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if gzipped else open(path, "rb")


def _letters(allow_iupac: bool) -> np.ndarray:
    """The bytes a plain record's lines may hold: the letters LASTZ keeps."""
    keep = _tables(False, allow_iupac, None)[2].copy()
    alpha = np.zeros(256, bool)
    alpha[ord("A"):ord("Z") + 1] = True
    alpha[ord("a"):ord("z") + 1] = True
    return keep & alpha


def chunks(path: str, max_bytes: int, max_records: int, kind: str = "fasta"):
    """(bytes, first record's number) of consecutive chunks of whole records of a
    plain file, each up to ``max_bytes`` (one record at least) and ``max_records``."""
    with _open(path) as f:
        yield from _pieces(_file_blocks(f), max_bytes, max_records, kind)


def _file_blocks(f):
    while True:
        data = f.read(BLOCK)
        yield data
        if not data:
            return


def _pieces(blocks, max_bytes: int, max_records: int, kind: str, stop=None):
    """``chunks`` of a plain file's ``blocks`` (an empty one at the end).  A block None
    stops them: ``stop(the bytes read but not sent, their first record's number)``."""
    contig = 1
    pending = b""
    for data in blocks:
        if data is None:
            stop(pending, contig)
            return
        buf = pending + data
        if not buf:
            return
        arr = np.frombuffer(buf, np.uint8)
        if kind == "fastq":
            # a record every four lines (a quality line may start with '@'); the
            # last line may lack its break at the end of the file
            ends = np.flatnonzero(arr == _LF)[3::4] + 1
            starts = np.concatenate(([0], ends))
            if not data and starts[-1] < len(buf):
                starts = np.append(starts, len(buf))
        else:
            # (in a plain FASTA file every '>' starts a record)
            starts = np.flatnonzero(arr == _GT)
            if not data:
                starts = np.append(starts, len(buf))
        # (the last record may go on in the next block)
        bounds = starts
        n = bounds.shape[0] - 1
        i = 0
        while i < n:
            j = int(np.searchsorted(bounds, bounds[i] + max_bytes, "right")) - 1
            j = max(i + 1, min(j, n, i + max_records))
            yield buf[bounds[i]:bounds[j]], contig
            contig += j - i
            i = j
        if not data:
            return
        pending = buf[bounds[n]:]


@njit(cache=True, nogil=True)
def _fasta_spans(buf):
    """(header spans, body spans) of a plain FASTA chunk's records: a header after its
    '>' up to its line break, a body from the next line to the next record."""
    n = 0
    for c in buf:
        if c == _GT:
            n += 1
    heads = np.empty((n, 2), np.int64)
    bodies = np.empty((n, 2), np.int64)
    r = -1
    in_header = False
    for i in range(buf.shape[0]):
        c = buf[i]
        if c == _GT:
            if r >= 0:
                bodies[r, 1] = i
            r += 1
            heads[r, 0] = i + 1
            in_header = True
        elif in_header and c == _LF:
            heads[r, 1] = i
            bodies[r, 0] = i + 1
            in_header = False
    if r >= 0:
        bodies[r, 1] = buf.shape[0]
    return heads, bodies


@njit(cache=True, nogil=True)
def _fastq_spans(buf):
    """The same for a plain FASTQ chunk: a header after its '@', a body its second
    line (records are four lines); and the quality lines' spans."""
    lines = 0
    for c in buf:
        if c == _LF:
            lines += 1
    if buf.shape[0] and buf[buf.shape[0] - 1] != _LF:
        lines += 1
    n = (lines + 3) // 4
    heads = np.empty((n, 2), np.int64)
    bodies = np.empty((n, 2), np.int64)
    quals = np.empty((n, 2), np.int64)
    line = 0
    start = 0
    for i in range(buf.shape[0] + 1):
        if i < buf.shape[0] and buf[i] != _LF:
            continue
        r, phase = line // 4, line % 4
        if phase == 0:
            heads[r, 0] = start + 1
            heads[r, 1] = i
        elif phase == 1:
            bodies[r, 0] = start
            bodies[r, 1] = i
        elif phase == 3:
            quals[r, 0] = start
            quals[r, 1] = i
        line += 1
        start = i + 1
        if start >= buf.shape[0]:
            break
    return heads, bodies, quals


@njit(cache=True, nogil=True)
def _strand_buffers(buf, heads, bodies, both, minus, complement):
    n = heads.shape[0]
    bases = 0
    for k in range(n):
        for i in range(bodies[k, 0], bodies[k, 1]):
            if buf[i] != _LF:
                bases += 1
    per = 2 if both else 1
    cat = np.empty(bases * per, np.uint8)
    offsets = np.empty(n * per + 1, np.int64)
    at = 0
    for k in range(n):
        start = at
        for i in range(bodies[k, 0], bodies[k, 1]):
            if buf[i] != _LF:
                cat[at] = buf[i]
                at += 1
        length = at - start
        if both:                                # the minus strand after the plus
            for j in range(length):
                cat[at + j] = complement[cat[at - 1 - j]]
            at += length
        elif minus:                             # ... or in its place
            a, z = start, at - 1
            while a < z:
                x = cat[a]
                cat[a] = complement[cat[z]]
                cat[z] = complement[x]
                a += 1
                z -= 1
            if a == z:
                cat[a] = complement[cat[a]]
        if both:
            offsets[2 * k] = start
            offsets[2 * k + 1] = start + length
        else:
            offsets[k] = start
    offsets[n * per] = at
    return cat, offsets


def strand_buffers(chunk: bytes, strands: list[str], kind: str = "fasta"):
    """(header spans, quality spans, strand buffers, offsets) of a plain chunk's
    records: header k is ``chunk[heads[k, 0]:heads[k, 1]]`` (after the '>' or '@'),
    its qualities (FASTQ; None for FASTA) ``chunk[quals[k, 0]:quals[k, 1]]``; strand
    unit u (record u // len(strands), strand ``strands[u % len(strands)]``) is
    ``cat[offsets[u]:offsets[u + 1]]``, the minus strand reverse-complemented, in
    LASTZ's order."""
    buf = np.frombuffer(chunk, np.uint8)
    if kind == "fastq":
        heads, bodies, quals = _fastq_spans(buf)
    else:
        (heads, bodies), quals = _fasta_spans(buf), None
    cat, offsets = _strand_buffers(buf, heads, bodies, len(strands) == 2,
                                   strands == ["-"], COMPLEMENT)
    return heads, quals, cat, offsets


def strand_quals(chunk: bytes, quals, record: int, strand: str) -> np.ndarray | None:
    """A record's qualities in its strand buffer's order (reversed for the minus
    strand), from ``strand_buffers``'s quality spans; None where there are none."""
    if quals is None:
        return None
    line = np.frombuffer(chunk, np.uint8, quals[record, 1] - quals[record, 0],
                         quals[record, 0])
    return (line[::-1] if strand == "-" else line).copy()


def record_sequence(chars: np.ndarray, contig: int, filename: str) -> Sequence:
    """The Sequence the record-by-record reading makes of plain record number ``contig``
    (``fasta.read_fasta_record``, then ``sequences._single``), with ``chars`` as its
    strand buffer (the minus strand's too: it is a copy of the plus one's other
    fields), but with an empty name and header: a strand is made before it is known
    to report anything, and most reads' never do (``record_names`` names those that
    do).  (A plain file is named with no action, so nothing is masked or reversed.)"""
    return Sequence(chars=chars, name="", header="", filename=filename, contig=contig,
                    start=0, true_length=chars.shape[0], revcomp=False)


def record_names(header: bytes, contig: int, spec, keep_arrow: bool,
                 kind: str = "fasta") -> tuple[str, str]:
    """(name, header) of plain record number ``contig``, whose header line is
    ``header`` (after its '>' or '@'), as the record-by-record reading gives them
    (``sequences._names_of``)."""
    from .sequences import _names_of
    if kind == "fastq":                 # (fasta._fastq_header: the line after '@')
        name = text(header)
    else:
        head = header if keep_arrow else header.lstrip(b" \t")
        name = (">" if keep_arrow else "") + text(head)
    return _names_of(name, contig, spec, kind)
