"""Loading the target and the query sequences, as LASTZ does.

Mirrors LASTZ's ``sequences.c`` ``open_sequence_file`` / ``load_sequence`` /
``another_sequence`` and the target and query handling of ``lastz.c``: one target
sequence (or one partitioned sequence with ``[multiple]``), queries streamed one
record at a time, each loaded as: read (subrange) -> unmask -> softmask -> xmask ->
nmask -> separator -> reverse complement.

Names and headers are ``str``; bytes that are not UTF-8 are kept as surrogate escapes,
so writers should encode with ``errors="surrogateescape"`` to get LASTZ's bytes back.
An empty ``Sequence.name`` is printed by LASTZ as ``seq1`` (target) / ``seq2`` (query)
in every format except SAM.
"""
from __future__ import annotations

import contextlib
import gzip
import io
import itertools
import sys
import zlib
from dataclasses import dataclass, replace
from typing import Iterator

import numpy as np

from ..errors import InputError
from ..records import Partitions, Sequence
from . import fasta, hsx, twobit
from .seqmasks import (apply_mask, reverse_complement, reverse_complement_pieces, reverse_pieces,
                       separate, upper)
from .seqnames import read_names_file, short_name, subset_match_name, whitespace_to_under
from .specifiers import SeqSpec, parse_specifier

__all__ = ["SeqSpec", "parse_specifier", "load_target", "iter_queries", "scan_queries",
           "check_queries", "rereadable", "piped", "read_once", "resumed_queries",
           "query_specifier", "stdin_file",
           "reverse_complement", "reverse_complement_sequence"]

STDIN_NAME = "(stdin)"


# --- subrange state ---------------------------------------------------------------


class _Limits:
    """The subrange of a file's specifier; a soft end is dropped for good once it
    overshoots a sequence (LASTZ clears ``endLimit``), so later records load whole."""

    def __init__(self, spec: SeqSpec):
        self.start, self.end, self.soft = spec.start, spec.end, spec.end_soft

    def clip(self, total: int, filename: str, header: str | None) -> tuple[int, int]:
        """0-based half-open [lo, hi) of a record of ``total`` characters."""
        where = filename if header is None else f"{filename}, {header}"
        if self.start and self.start > total:
            raise InputError(f"beyond end in {where} ({self.start} > {total})")
        if self.end and self.end > total:
            if not self.soft:
                raise InputError(f"beyond end in {where} ({self.end} > {total})")
            self.end, self.soft = 0, False
        return (self.start - 1 if self.start else 0), (self.end or total)


@dataclass
class _Record:
    header: str | None          # LASTZ's header (after nameparse=tag, before namejoin)
    chars: np.ndarray           # loaded subrange
    true_length: int
    start_loc: int              # 1-based
    contig: int
    quals: np.ndarray | None = None   # FASTQ: the loaded subrange's qualities


# --- one open sequence file -------------------------------------------------------


class _Checked:
    """A binary stream whose read failures (I/O errors, corrupt or truncated gzip data)
    become one-line InputErrors naming the file, instead of tracebacks."""

    def __init__(self, f, filename: str):
        self.f = f
        self.filename = filename

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except InputError:
            raise
        except EOFError:
            raise InputError(f"can't read {self.filename}: truncated gzip data") from None
        except gzip.BadGzipFile:
            raise InputError(f"can't read {self.filename}: not a valid gzip file") from None
        except zlib.error:
            raise InputError(f"can't read {self.filename}: corrupt gzip data") from None
        except OSError as exc:
            raise InputError(f"can't read {self.filename}: "
                             f"{exc.strerror or exc}") from None

    def read(self, n: int = -1) -> bytes:
        return self._call(self.f.read, n)

    def peek(self, n: int = 0) -> bytes:
        return self._call(self.f.peek, n)

    def seek(self, *args) -> int:
        return self._call(self.f.seek, *args)

    def tell(self) -> int:
        return self._call(self.f.tell)

    def seekable(self) -> bool:
        return self.f.seekable()

    def close(self) -> None:
        if self.f is not sys.stdin.buffer:
            self.f.close()


def open_binary(path: str):
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f'failed to open "{path}" for "rb" ({exc.strerror})') from None


def _gunzipped(stream: _Checked, filename: str) -> _Checked | None:
    """``stream`` read through gzip where it holds gzip data, else None."""
    if stream.peek(2)[:2] == b"\x1f\x8b":
        return _Checked(gzip.open(stream, "rb"), filename)
    return None


def read_once(spec: str | None) -> _Checked:
    """The query file (None: stdin) where it can be read only once (``piped``), opened
    as the record-by-record reading opens it (its errors, through gzip where it is
    gzip'd)."""
    if spec is None:
        stream = _Checked(sys.stdin.buffer, STDIN_NAME)
    else:
        path = parse_specifier(spec).path
        stream = _Checked(open_binary(path), path)
    return _gunzipped(stream, stream.filename) or stream


class _Resumed(io.RawIOBase):
    """Bytes already read from a stream, then the rest of the stream."""

    def __init__(self, head: bytes, stream):
        self.head = memoryview(head)
        self.stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self.head.nbytes:
            n = min(len(b), self.head.nbytes)
            b[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        data = self.stream.read(len(b))
        b[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self.stream.close()
        super().close()


def _seekable(stream) -> bool:
    """Whether LASTZ's ``test_rewindability`` would pass (a file, not a pipe)."""
    try:
        return stream.seekable()
    except (OSError, ValueError):
        return False


class _SequenceFile:
    """Records of one specifier's file, in LASTZ's order, with subset and subsample."""

    def __init__(self, spec: SeqSpec, opts, filename: str, stream=None,
                 unzipped: bool = False):
        self.spec = spec
        self.filename = filename
        self.allow_iupac = bool(getattr(opts, "ambiguous_iupac", False))
        # --nolaj: FASTA headers lose their '>' (and the blanks after it), as lav's h
        # stanza then prints them
        self.keep_arrow = (getattr(opts, "extra", None) or {}).get("laj") is not False
        self.limits = _Limits(spec)
        self.contig = 0
        self.warn = True                 # LASTZ's warnings on stderr (off in scan_queries)
        if spec.backward:
            raise InputError(f"(for {filename}) the backward action is not supported by fastz")
        if stream is None:
            stream = open_binary(spec.path)
        self.handle = stream
        if not hasattr(stream, "peek"):
            stream = io.BufferedReader(stream)
        stream = _Checked(stream, filename)
        # LASTZ reads the first record twice (count, then store) when it can seek back
        self.rewinds = _seekable(stream) and spec.subset is None and \
            spec.chores is None and \
            not (spec.subsample and spec.subsample[0] > 1 and spec.subsample[1] > 1)
        gunzipped = None if unzipped else _gunzipped(stream, filename)
        if gunzipped is not None:                # (LASTZ can't read gzip)
            stream = gunzipped
            self.rewinds = False
        self.reader = None
        self.kind = spec.format or self._detect(stream)
        self._check_kind()
        self.names = None
        self.pending_name = None
        self.skip = spec.subsample[0] - 1 if spec.subsample and spec.subsample[1] > 1 else 0
        self.every = spec.subsample[1] if spec.subsample and spec.subsample[1] > 1 else 1
        if self.kind in ("2bit", "nib", "hsx"):
            if not stream.seekable():
                stream = io.BytesIO(stream.read())
            self.raw = stream
            self.nib_done = False
            if self.kind == "hsx":
                self.hsx = hsx.HsxFile(stream, filename)
                self.hsx_at = self.hsx.find(spec.select) if spec.select is not None \
                    else self.hsx.first()
            elif self.kind == "2bit":
                self.twobit = twobit.TwoBitFile(stream, filename)
                self.next_index = 0
                if spec.select is not None:
                    self.next_index = self.twobit.find(spec.select)
        elif self.reader is None:
            self.reader = fasta.ByteReader(stream)
        if spec.subset is not None:
            self.names = iter(read_names_file(spec.subset))
            self.pending_name = next(self.names, None)
            if self.pending_name is None:
                raise InputError(f"contigs-of-interest file is empty: {spec.subset}")
            self._search(self.pending_name)

    def _detect(self, stream) -> str:
        kind = twobit.magic_kind(stream.peek(4)[:4])
        if kind is not None:
            return kind
        self.reader = fasta.ByteReader(stream)
        return fasta.detect_text_format(self.reader, self.rewinds)

    def _check_kind(self) -> None:
        spec, kind = self.spec, self.kind
        if kind == "csfasta":
            raise InputError("sorry, color space is not fully implemented yet")
        if kind == "qdna":
            raise InputError(f"{self.filename}: qdna files are not supported by fastz")
        if spec.select is not None and kind not in ("2bit", "hsx"):
            raise InputError(f"specific contig-of-interest only valid for 2bit or hsx files "
                             f"({spec.select})")
        if spec.subset is not None and kind == "nib":
            raise InputError("sequence-subset file only valid for fasta, fastq, csfasta, 2bit "
                             f"or hsx files ({spec.subset})")
        if kind == "hsx" and (spec.name_parse != "core" or spec.name_trigger is not None):
            raise InputError('"nameparse=" is not valid for hsx files')
        if spec.name_parse in ("alphanum", "darkspace") and kind == "nib":
            raise InputError(f'"nameparse={spec.name_parse}" only valid for fasta, fastq, '
                             "csfasta or 2bit files")
        if spec.name_trigger is not None and kind not in ("fasta", "fastq"):
            raise InputError(f'"nameparse=tag:{spec.name_trigger}" only valid for fasta, '
                             "fastq or csfasta files")
        if spec.separator is not None and kind == "csfasta":
            raise InputError(f"[separator={spec.separator}] is not allowed for csfasta files")

    # -- finding the next record (another_sequence) --

    def _search(self, name: str) -> None:
        """Position on the next record called ``name`` (the find_next_*_coi functions)."""
        match = lambda line: subset_match_name(line, self.spec)   # noqa: E731
        whole = self.spec.name_trigger is not None
        if self.kind == "fasta":
            self.contig += fasta.find_fasta_named(self.reader, name, match, self.filename,
                                                  whole)
        elif self.kind == "fastq":
            fasta.find_fastq_named(self.reader, name, match, self.filename, whole)
        elif self.kind == "hsx":
            self.hsx_at = self.hsx.find(name)      # (any order: a hash lookup)
        else:
            names = self.twobit.names
            k = self.next_index
            while k < len(names) and names[k] != name:
                k += 1
            if k >= len(names):
                raise InputError(f"{self.filename} does not contain (or contains out of "
                                 f'order) the sequence "{name}"')
            self.next_index = k

    def _another(self) -> bool:
        if self.names is not None:
            if self.pending_name is not None:
                return True
            self.pending_name = next(self.names, None)
            if self.pending_name is None:
                return False
            if self.kind in ("fasta", "fastq") and self.reader.hit_eof:
                self.pending_name = None       # (LASTZ has read the name: it is used up)
                return False
            self._search(self.pending_name)
            return True
        if self.kind == "2bit":
            if self.spec.select is not None:
                return self.contig == 0
            return self.next_index < len(self.twobit)
        if self.kind == "hsx":
            if self.spec.select is not None:
                return self.contig == 0
            return self.contig < self.hsx.count
        if self.kind == "nib":
            return not self.nib_done
        return not self.reader.hit_eof and self.reader.more()

    # -- reading one record (load_sequence_core) --

    def _load(self, keep: bool) -> _Record | None:
        self.pending_name = None
        spec, name = self.spec, self.filename
        nick = spec.nickname
        if self.kind == "2bit":
            index = self.next_index
            self.next_index += 1
            self.contig = index + 1
            if not keep:
                return None
            chars, true_len, start_loc = self.twobit.read(index, self.limits, spec.unmask)
            header = nick if nick is not None else self.twobit.names[index]
            return _Record(header, chars, true_len, start_loc, self.contig)
        self.contig += 1
        if self.kind == "hsx":
            return self._load_hsx(keep)
        if self.kind == "nib":
            self.nib_done = True
            if not keep:
                return None
            chars, true_len, start_loc = twobit.read_nib(self.raw, name, self.limits,
                                                         spec.unmask)
            header = nick if nick is not None else \
                f"{name}:{start_loc}-{start_loc + chars.shape[0] - 1}"
            return _Record(header, chars, true_len, start_loc, self.contig)
        if self.kind == "fastq":
            if not keep:
                fasta.skip_fastq_record(self.reader, name, nick)
                return None
            rec = fasta.read_fastq_record(self.reader, name, self.allow_iupac, spec.separator,
                                          spec.name_trigger, nick)
        else:
            rec = fasta.read_fasta_record(self.reader, name, self.allow_iupac, spec.separator,
                                          spec.name_trigger, nick, self.keep_arrow)
        total = rec.chars.shape[0]
        end_limit = self.limits.end
        # (LASTZ names the record in this message for FASTA only)
        lo, hi = self.limits.clip(total, name, rec.header if self.kind == "fasta" else None)
        if not keep:
            return None
        chars = rec.chars[lo:hi]
        if chars.shape[0] == 0 and self.warn:
            if rec.header is None:
                sys.stderr.write(f"WARNING. {name} contains an empty sequence\n")
            else:
                sys.stderr.write(f"WARNING. {name} contains an empty sequence:\n{rec.header}\n")
        quals = None
        if rec.quals is not None:
            fasta.check_fastq_qualities(rec, lo, end_limit, chars.shape[0], name)
            quals = np.frombuffer(rec.quals, np.uint8, chars.shape[0], lo).copy()
        return _Record(rec.header, chars.copy(), total, lo + 1, self.contig, quals)

    def _load_hsx(self, keep: bool) -> _Record | None:
        entry = self.hsx.entry(self.hsx_at)
        self.hsx_at = entry.after
        if not keep:
            return None
        lo, hi = self.limits.clip(entry.length, f"{self.filename}/{entry.name}", None)
        if entry.length == 0:
            if self.warn:
                sys.stderr.write(f"WARNING. {self.filename} contains an empty sequence:\n"
                                 f"{entry.name}\n")
            return _Record(entry.name, np.zeros(0, np.uint8), 0, 1, self.contig)
        chars = self.hsx.read(entry, self.allow_iupac, self.spec.separator)
        return _Record(entry.name, chars[lo:hi].copy(), entry.length, lo + 1, self.contig)

    def next_record(self) -> _Record | None:
        """The next record to use, after ``subsample`` skipping; None at the end."""
        for _ in range(self.skip):
            if not self._another():
                break
            self._load(keep=False)
        self.skip = self.every - 1
        if not self._another():
            return None
        return self._load(keep=True)

    def has_another(self) -> bool:
        """LASTZ's ``another_sequence``: skips subsampled records, then peeks."""
        for _ in range(self.skip):
            if not self._another():
                break
            self._load(keep=False)
        self.skip = 0
        return self._another()

    def close(self) -> None:
        if self.kind == "hsx":
            self.hsx.close()
        if self.handle is not sys.stdin.buffer:
            self.handle.close()


# --- from records to a Sequence -----------------------------------------------------


def _names_of(header: str | None, contig: int, spec: SeqSpec,
              kind: str) -> tuple[str, str | None]:
    """(name used in output, header as LAV prints it) of record number ``contig``,
    whose header is ``header`` (load_sequence_core)."""
    short = short_name(header, contig, spec.name_parse, spec.namejoin,
                       skip_path=(kind == "nib"))
    if header is not None and spec.namejoin:
        header = whitespace_to_under(header)
    name = (header or "") if spec.full_names else short
    return name, header


def _masks(chars: np.ndarray, spans: list, spec: SeqSpec, start_loc: int, kind: str) -> None:
    if spec.unmask and kind in ("fasta", "fastq", "hsx"):
        chars[:] = upper(chars)
    for path, keep, how in ((spec.softmask, spec.softmask_keep, "lower"),
                            (spec.xmask, spec.xmask_keep, "X"),
                            (spec.nmask, spec.nmask_keep, "N")):
        if path is not None:
            apply_mask(chars, spans, path, start_loc, how, keep)


def _single(src: _SequenceFile, rec: _Record) -> Sequence:
    spec = src.spec
    name, header = _names_of(rec.header, rec.contig, spec, src.kind)
    chars, quals = rec.chars, rec.quals
    _masks(chars, [(0, chars.shape[0])], spec, rec.start_loc, src.kind)
    if spec.revcomp:
        chars = reverse_complement(chars)
        quals = _reversed_quals(quals)
    return Sequence(chars=chars, name=name,
                    header=header if header is not None else "(no header)",
                    filename=src.filename, contig=rec.contig, start=rec.start_loc - 1,
                    true_length=rec.true_length, revcomp=spec.revcomp, quals=quals)


def _reversed_quals(quals, offsets=None, lengths=None):
    """Qualities reversed with their bases' reverse complement: whole, or piece by
    piece in place (LASTZ's ``rev_comp_sequence``); None stays None."""
    if quals is None:
        return None
    if offsets is None:
        return quals[::-1].copy()
    return reverse_pieces(quals, offsets, lengths)


def _partitioned(src: _SequenceFile, records: list[_Record]) -> Sequence:
    """NUL + seq1 + NUL + seq2 + ... + NUL, with the partition table (load_sequence)."""
    spec = src.spec
    lengths = np.array([r.chars.shape[0] for r in records], np.int64)
    offsets = np.cumsum(lengths + 1) - lengths
    chars = np.zeros(int(lengths.sum()) + len(records) + 1, np.uint8)
    for rec, off in zip(records, offsets):
        chars[off:off + rec.chars.shape[0]] = rec.chars
    quals = None                                    # (0 at the separators, as in LASTZ)
    if records[0].quals is not None:
        quals = np.zeros_like(chars)
        for rec, off in zip(records, offsets):
            quals[off:off + rec.quals.shape[0]] = rec.quals
    named = [_names_of(rec.header, rec.contig, spec, src.kind) for rec in records]
    last = records[-1]
    _masks(chars, list(zip(offsets.tolist(), lengths.tolist())), spec, last.start_loc,
           src.kind)
    parts = {"offset": offsets, "length": lengths,
             "start": np.array([r.start_loc - 1 for r in records], np.int64),
             "true_length": np.array([r.true_length for r in records], np.int64),
             "contig": np.array([r.contig for r in records], np.int64),
             "which": np.arange(len(records))}
    if spec.separator is not None:
        parts = separate(chars, parts, spec.separator)
    if spec.revcomp:
        chars = reverse_complement_pieces(chars, parts["offset"], parts["length"])
        quals = _reversed_quals(quals, parts["offset"], parts["length"])
    which = parts["which"].tolist()
    partitions = Partitions(
        offset=np.asarray(parts["offset"], np.int64), length=np.asarray(parts["length"], np.int64),
        start=np.asarray(parts["start"], np.int64),
        true_length=np.asarray(parts["true_length"], np.int64),
        contig=np.asarray(parts["contig"], np.int64),
        names=[named[k][0] for k in which],
        headers=[named[k][1] if named[k][1] is not None else "(no header)" for k in which])
    name, header = named[-1]
    return Sequence(chars=chars, name=name,
                    header=header if header is not None else "(no header)",
                    filename=src.filename, contig=last.contig, start=last.start_loc - 1,
                    true_length=int(sum(r.true_length for r in records)),
                    revcomp=spec.revcomp, partitions=partitions, quals=quals)


def query_specifier(spec_text: str | None) -> SeqSpec:
    """The query's specifier; None: stdin's (no query file named)."""
    return SeqSpec(spec="", path=STDIN_NAME) if spec_text is None \
        else parse_specifier(spec_text)


def _open(spec_text: str | None, opts) -> _SequenceFile:
    spec = query_specifier(spec_text)
    return _SequenceFile(spec, opts, spec.path,
                         stream=sys.stdin.buffer if spec_text is None else None)


def _load_next(src: _SequenceFile) -> Sequence | None:
    """One Sequence: a record, all records joined ([multiple]) or a separated record."""
    if src.spec.multiple:
        records = []
        while True:
            rec = src.next_record()
            if rec is None:
                break
            records.append(rec)
        return _partitioned(src, records) if records else None
    rec = src.next_record()
    if rec is None:
        return None
    if src.spec.separator is not None:
        return _partitioned(src, [rec])
    return _single(src, rec)


# --- public API -------------------------------------------------------------------


def load_target(spec: str, opts) -> Sequence:
    """The target: exactly one sequence, or one partitioned sequence with [multiple]."""
    src = _open(spec, opts)
    if src.spec.chores is not None:
        src.close()
        raise InputError(f"can't use [chores] for the target file ({src.filename}) move "
                         "[chores] to the query file, or use the --chores option")
    try:
        seq = _load_next(src)
        if seq is None or len(seq) == 0:
            raise InputError(f"target file {src.filename} contains no sequence")
        if not src.spec.multiple and src.has_another():
            raise InputError(f"target file {src.filename} contains more than one sequence; "
                             'consider using the "multiple" action (see "lastz --help=files")')
        return seq
    finally:
        src.close()


def iter_queries(spec: str | None, opts, on_load=None) -> Iterator[Sequence]:
    """Query sequences in file order (None = stdin), one record in memory at a time.

    The file is opened and checked at once (missing file, bad specifier, no sequence);
    records are then read as the iterator is consumed.  Empty sequences are skipped
    (LASTZ warns about them on stderr when loading).  ``on_load(seq)`` is called for
    every sequence loaded, empty ones included (``--progress``).
    """
    return _queries(_holding_a_sequence(_open(spec, opts)), on_load)


def _holding_a_sequence(src: _SequenceFile) -> _SequenceFile:
    try:
        if not src.has_another():
            raise InputError(f"query file {src.filename} contains no sequence")
    except BaseException:
        src.close()
        raise
    return src


def chores_path(spec_text: str | None, opts) -> str | None:
    """The query's chores file (``--chores=FILE`` or ``[chores=FILE]``), after LASTZ's
    checks of the specifier; None without one.  A query read from stdin has none:
    LASTZ drops ``--chores`` there (it hands the file over while opening a named
    query file)."""
    given = (getattr(opts, "extra", None) or {}).get("chores")
    if spec_text is None:
        return None
    spec = parse_specifier(spec_text)
    if spec.chores is not None and given is not None:
        raise InputError(f"(for {spec.path}) only one chores file allowed: chores={given} "
                         f"chores={spec.chores}")
    path = spec.chores or given
    if path is None:
        return None
    if spec.select is not None:
        raise InputError(f"(for {spec.path}) can't use these together: {spec.select} {path}")
    if spec.subset is not None:
        raise InputError(f"(for {spec.path}) can't use these together: {spec.subset} {path}")
    if spec.partitioned:
        raise InputError("can't use --chores with [multiple]" if spec.multiple else
                         "not yet supported by fastz: --chores with [separator]")
    if spec.subsample is not None:
        raise InputError("not yet supported by fastz: --chores with [subsample]")
    return path


def iter_chores(spec: str | None, opts, path: str, on_chore=None, scan: bool = False):
    """(query, chore) for each chore of ``path`` (``fastz.io.chores``), in order: the
    query record the chore names is loaded once for a run of chores on it where LASTZ
    re-uses it (see that module).  Chores on an empty query are skipped.
    ``on_chore(query, chore, number)`` sees every chore, with its number among its
    query's (``--progress``).  ``scan``: as ``scan_queries``, a read ahead of
    the run (no warnings).  ``spec`` names a file (stdin has no chores)."""
    from .chores import read_chores

    src = _open(spec, opts)
    src.warn = not scan
    try:
        if src.kind == "nib":
            raise InputError(f"chores file only valid for fasta, fastq, csfasta, 2bit or hsx "
                             f"files ({path})")
        chores = read_chores(path)
        first = next(chores, None)
        if first is None:
            raise InputError(f"chores file is empty: {path}")
    except BaseException:
        src.close()
        raise
    return _chore_queries(src, itertools.chain([first], chores), on_chore)


def _chore_queries(src: _SequenceFile, chores, on_chore):
    text = src.kind in ("fasta", "fastq")
    current, number = None, 0
    try:
        for chore in chores:
            if current is not None and chore.query == current.name and not text:
                number += 1                      # (a 2bit file re-uses the record)
            else:
                # LASTZ searches on from the record it loaded last
                if text and src.reader.hit_eof:
                    return
                src._search(chore.query)
                rec = src._load(keep=True)
                current, number = _single(src, rec), 1
            if on_chore is not None:
                on_chore(current, chore, number)
            if len(current):
                yield current, chore
    finally:
        src.close()


def rereadable(spec: str | None) -> bool:
    """Whether the query input can be read twice: a regular file, or stdin
    redirected from one (not a pipe, FIFO or terminal)."""
    import os
    import stat
    try:
        if spec is None:
            return stat.S_ISREG(os.fstat(sys.stdin.buffer.fileno()).st_mode)
        return stat.S_ISREG(os.stat(parse_specifier(spec).path).st_mode)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation, InputError):
        return False


def piped(spec: str | None) -> bool:
    """Whether the query file is a pipe (stdin or ``/dev/stdin`` from one, ``<(zcat
    ...)``, a FIFO): read once, as it comes."""
    import os
    import stat
    try:
        mode = (os.fstat(sys.stdin.buffer.fileno()) if spec is None
                else os.stat(parse_specifier(spec).path)).st_mode
        return stat.S_ISFIFO(mode)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation, InputError):
        return False


def stdin_file() -> str | None:
    """A path that opens stdin's file afresh at its start, where stdin is redirected
    from a regular file and has not been read yet (Linux's ``/proc/self/fd/0``:
    each open starts at the beginning, unlike a shared descriptor); else None."""
    import os
    import stat
    path = "/proc/self/fd/0"
    try:
        fd = sys.stdin.buffer.fileno()
        st, here = os.fstat(fd), os.stat(path)
        if fd != 0 or not stat.S_ISREG(st.st_mode) or os.lseek(fd, 0, os.SEEK_CUR) != 0 \
                or (st.st_dev, st.st_ino) != (here.st_dev, here.st_ino):
            return None
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return path


def resumed_queries(spec: str | None, opts, head: bytes, stream, contig: int,
                    kind: str) -> Iterator[Sequence]:
    """The query sequences of a piped file (``read_once``) from its record ``contig``
    on, read record by record: ``head`` (the bytes read from ``stream`` already, from
    that record's start) then the rest of ``stream``.  The records before were read
    in bulk (``io.plainreads.StreamedReads``) and were ``kind``; the file's start
    told it."""
    parsed = query_specifier(spec)
    if contig > 1:
        parsed = replace(parsed, format=kind)
    src = _SequenceFile(parsed, opts, parsed.path, unzipped=True,
                        stream=io.BufferedReader(_Resumed(head, stream)))
    src.contig = contig - 1
    return _queries(_holding_a_sequence(src) if contig == 1 else src)


def scan_queries(spec: str | None, opts) -> Iterator[Sequence]:
    """Every query sequence once, read ahead of the run to find bad input before any
    output is written (LASTZ finds a bad record only when it reaches it, after
    printing the earlier queries' alignments).  Raises what the run would raise, in
    the same words; LASTZ's warnings are left to the run itself.  Only for a
    :func:`rereadable` input; stdin is put back where it was.
    """
    with _read_ahead(spec, opts) as src:
        yield from _queries(src)


def check_queries(spec: str | None, opts) -> None:
    """``scan_queries`` where only its errors are wanted: records that become one
    sequence each and carry no mask file are read and checked without being made
    into sequences (names, masks and the object are half of a short read's load,
    and none of them can fail without a mask file); a whole FASTA file with no
    subrange, subset or subsample is first checked in bulk (``fasta.rest_is_clean``),
    and read record by record only when that finds something."""
    with _read_ahead(spec, opts) as src:
        sp = src.spec
        if sp.multiple or sp.separator is not None or sp.softmask or sp.xmask or sp.nmask:
            for _ in _queries(src):
                pass
            return
        bulk = (src.kind == "fasta" and src.names is None and src.every == 1
                and not (sp.start or sp.end))
        try:
            if not bulk:
                _each_record(src)
                return
            if fasta.rest_is_clean(src.reader, src.allow_iupac):
                return
        finally:
            src.close()
    # (not plainly clean: read again, record by record, for LASTZ's message)
    with _read_ahead(spec, opts) as src:
        try:
            _each_record(src)
        finally:
            src.close()


def _each_record(src: _SequenceFile) -> None:
    while src.next_record() is not None:
        pass


@contextlib.contextmanager
def _read_ahead(spec: str | None, opts) -> Iterator[_SequenceFile]:
    """The query file opened for reading ahead of the run (without LASTZ's warnings),
    once it is known to hold a sequence; stdin is put back where it was after."""
    back = None
    if spec is None:
        back = sys.stdin.buffer.tell()
    try:
        src = _open(spec, opts)
        src.warn = False
        if not src.has_another():
            src.close()
            raise InputError(f"query file {src.filename} contains no sequence")
        yield src
    finally:
        if back is not None:
            sys.stdin.buffer.seek(back)


def _queries(src: _SequenceFile, on_load=None) -> Iterator[Sequence]:
    try:
        while True:
            seq = _load_next(src)
            if seq is None:
                return
            if on_load is not None:
                on_load(seq)
            if len(seq) == 0:
                continue
            yield seq
            if src.spec.multiple:
                return
    finally:
        src.close()


def reverse_complement_sequence(seq: Sequence) -> Sequence:
    """The minus-strand buffer of ``seq`` (LASTZ's ``rev_comp_sequence``).

    A partitioned sequence is reverse-complemented piece by piece, in place, so its
    partition table stays valid unchanged (as in LASTZ).  ``revcomp`` keeps its meaning
    (how the sequence was loaded); which strand a buffer is travels separately
    (``StrandResult.strand``), and writers print ``revcomp XOR minus-strand``.
    """
    if seq.partitions is None:
        chars = reverse_complement(seq.chars)
        quals = _reversed_quals(seq.quals)
    else:
        parts = seq.partitions
        chars = reverse_complement_pieces(seq.chars, parts.offset, parts.length)
        quals = _reversed_quals(seq.quals, parts.offset, parts.length)
    return Sequence(chars=chars, name=seq.name, header=seq.header, filename=seq.filename,
                    contig=seq.contig, start=seq.start, true_length=seq.true_length,
                    revcomp=seq.revcomp, partitions=seq.partitions, quals=quals)
