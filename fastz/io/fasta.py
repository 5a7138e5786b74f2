"""FASTA and FASTQ records, read one at a time from a byte stream.

Mirrors LASTZ's ``sequences.c`` text readers: ``load_fasta_sequence`` /
``parse_fasta_header`` / ``parse_fasta``, ``load_fastq_sequence`` / ``parse_fastq``,
``find_next_general_fasta_coi`` / ``find_next_fastq_coi`` (the ``[subset]`` search)
and ``detect_file_type``.  Sequence lines are validated and filtered with 256-entry
tables over the whole record at once (numpy), never base by base.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

# --- character classes (LASTZ's char_to_fasta_type) -----------------------------------

BAD, DROP, KEEP, AMBIG = 0, 1, 2, 3
_FASTA_CLASS = np.zeros(256, np.uint8)
_FASTA_CLASS[list(b"ACGTNXacgtnx")] = KEEP
_FASTA_CLASS[list(b"BDHKMRSVWYbdhkmrsvwy")] = AMBIG
# LASTZ's table marks digits and form feed as white space, but its parser has no case
# for white space, so they are stored as sequence characters (spec section 11.9).
_FASTA_CLASS[list(b"0123456789\x0c")] = KEEP
_FASTA_CLASS[list(b" \t\r\n")] = DROP
#: FASTQ sequence lines are read without skipping blanks: those are stored as well.
_FASTQ_CLASS = _FASTA_CLASS.copy()
_FASTQ_CLASS[list(b" \t")] = KEEP

_PUNCTUATION = {
    "!": 'exclamation point "!"', '"': "double quote", "#": 'waffle/number sign/pound "#"',
    "$": 'dollar sign "$"', "%": 'percent sign "%"', "&": 'ampersand "&"',
    "'": "single quote/apostrophe \"'\"", "(": 'open parenthesis "("',
    ")": 'closing parenthesis ")"', "*": 'asterisk "*"', "+": 'plus sign "+"',
    ",": 'comma ","', "-": 'minus sign "-"', ".": 'period/dot/stop "."', "/": 'slash "/"',
    ":": 'colon ":"', ";": 'semicolon ";"', "<": 'less than sign "<"',
    "=": 'equals sign "="', ">": 'greater than sign ">"', "?": 'question mark "?"',
    "@": 'at sign "@"', "[": 'opening bracket "["', "\\": 'backslash "\\"',
    "]": 'closing bracket "]"', "^": 'caret/circumflex "^"', "_": 'underscore "_"',
    "{": 'opening brace "{"', "|": 'vertical bar "|"', "}": 'closing brace "}"',
    "~": 'tilde/squiggle sign "~"',
}


def describe_char(code: int) -> str:
    """LASTZ's ``char_to_description``: a readable name for a byte in an error message."""
    ch = chr(code)
    if ch in _PUNCTUATION:
        return _PUNCTUATION[ch]
    if "0" <= ch <= "9":
        return f"the digit {ch}"
    if "A" <= ch <= "Z":
        return f"uppercase {ch}"
    if "a" <= ch <= "z":
        return f"lowercase {ch}"
    if code >= 0x80:                  # (LASTZ passes a signed char to printf)
        return f"ascii {code | 0xFFFFFF00:08X}"
    return f"ascii {code:02X}"


def text(raw: bytes) -> str:
    """Header bytes as str (bytes that are not UTF-8 survive as surrogate escapes)."""
    return raw.decode("utf-8", "surrogateescape")


# --- buffered byte stream -------------------------------------------------------------


class ByteReader:
    """Chunked reader over a binary file object, with the look-ahead LASTZ uses.

    ``hit_eof`` becomes true when a read found no more data, as C's ``feof`` does.
    """

    def __init__(self, f, chunk: int = 1 << 22):
        self.f = f
        self.chunk = chunk
        self.buf = b""
        self.pos = 0
        self.hit_eof = False

    def _fill(self) -> bool:
        data = self.f.read(self.chunk)
        if not data:
            self.hit_eof = True
            return False
        self.buf = self.buf[self.pos:] + data
        self.pos = 0
        return True

    def peek(self, n: int) -> bytes:
        while len(self.buf) - self.pos < n and self._fill():
            pass
        return self.buf[self.pos:self.pos + n]

    def getc(self) -> int:
        """Next byte, or -1 at end of file."""
        if self.pos >= len(self.buf) and not self._fill():
            return -1
        self.pos += 1
        return self.buf[self.pos - 1]

    def unread(self, data: bytes) -> None:
        self.buf = data + self.buf[self.pos:]
        self.pos = 0

    def more(self) -> bool:
        """Whether any byte is left (LASTZ's peek in ``another_sequence``)."""
        return self.pos < len(self.buf) or self._fill()

    def skip_blanks(self) -> int:
        """Skip spaces and tabs; return the next byte without consuming it (-1 at EOF)."""
        while True:
            if self.pos >= len(self.buf) and not self._fill():
                return -1
            c = self.buf[self.pos]
            if c not in (0x20, 0x09):
                return c
            self.pos += 1

    def read_until(self, pattern: re.Pattern) -> tuple[bytes, int]:
        """Bytes before the first match of a one-byte ``pattern``; consumes the match.

        Returns (data, matched byte) with -1 for end of file.
        """
        pieces = []
        while True:
            m = pattern.search(self.buf, self.pos)
            if m is not None:
                pieces.append(self.buf[self.pos:m.start()])
                self.pos = m.end()
                return b"".join(pieces), self.buf[m.start()]
            pieces.append(self.buf[self.pos:])
            self.pos = len(self.buf)
            if not self._fill():
                return b"".join(pieces), -1

    def read_line(self) -> tuple[bytes, int]:
        """A line ending at CR, LF or CR-LF (the ending consumed); terminator -1 at EOF."""
        data, term = self.read_until(_CR_OR_LF)
        if term == 0x0D and self.peek(1) == b"\n":
            self.pos += 1
        return data, term

    def read_fasta_body(self) -> bytes:
        """Bytes up to the next '>' that starts a line (blanks before it allowed)."""
        pieces = []
        line_start = True          # LASTZ starts each sequence with prevCh = '\n'
        while True:
            buf, pos = self.buf, self.pos
            search = pos
            while True:
                gt = buf.find(b">", search)
                if gt < 0:
                    break
                before = buf[pos:gt].rstrip(b" \t")
                if (before[-1:] in (b"\r", b"\n")) if before else line_start:
                    pieces.append(buf[pos:gt])
                    self.pos = gt
                    return b"".join(pieces)
                search = gt + 1
            pieces.append(buf[pos:])
            tail = buf[pos:].rstrip(b" \t")
            if tail:
                line_start = tail[-1:] in (b"\r", b"\n")
            self.pos = len(buf)
            if not self._fill():
                return b"".join(pieces)


_CR_OR_LF = re.compile(rb"[\r\n]")
LF = re.compile(rb"\n")
_GT = re.compile(rb">")


# --- format detection -----------------------------------------------------------------


def detect_text_format(reader: ByteReader, rewinds: bool = False) -> str:
    """'fastq', 'csfasta' or 'fasta' for a text file (``detect_file_type``, after magics).

    Also reproduces two side effects of LASTZ's look-ahead: when it reads past the end
    of the file, the file counts as holding no sequence (``feof`` is set, so
    ``another_sequence`` says no), and a first line of 992 bytes or more loses its
    992nd byte.  ``reader.hit_eof`` is left as LASTZ's ``feof`` would be.

    ``rewinds``: the first record is loaded from a seekable file (LASTZ's read-ahead
    with ``save_fstate``).  If its header then ends at a lone CR before byte 992
    (a CR-only file), the byte lost is the one after the header instead: LASTZ
    seeks back to a position its look-ahead left one byte off, and re-reads 992.
    """
    head = reader.peek(995)
    reader.hit_eof = False
    kind, hit_eof, lost = _detect(head)
    if lost:
        cut = 992
        cr = head.find(b"\r", 1, 991)
        if rewinds and kind == "fasta" and cr > 0:
            cut = cr + 1
        reader.buf = reader.buf[:reader.pos + cut] + reader.buf[reader.pos + cut + 1:]
    reader.hit_eof = hit_eof
    return kind


def _detect(head: bytes) -> tuple[str, bool, bool]:
    """(kind, whether LASTZ's look-ahead hit end of file, whether byte 992 is lost)."""
    short = len(head) < 4                          # (its 4-byte magic-number read)
    first = head[:1]
    if first == b"@":
        return "fastq", short, False
    if first == b"#":
        return "csfasta", short, False
    if first != b">":
        return "fasta", short, False
    nl = head.find(b"\n", 1, 992)
    if nl < 0:
        if len(head) <= 992:
            return "fasta", True, False
        return "fasta", short, True
    if nl + 1 >= len(head):
        return "fasta", True, False
    if head[nl + 1] not in b"ACGTacgtNn\0":
        return "fasta", short, False
    if nl + 2 >= len(head):
        return "fasta", True, False
    if head[nl + 2] in b"0123":
        return "csfasta", short, False
    return "fasta", short, False


# --- records --------------------------------------------------------------------------


@dataclass
class TextRecord:
    """One FASTA/FASTQ record before subrange extraction."""

    header: str | None          # as LASTZ stores it (FASTA: '>' and blanks kept); None: absent
    chars: np.ndarray           # every stored character of the record (uint8)
    quals: bytes | None = None  # FASTQ quality line


def apply_trigger(header: str, trigger: str | None) -> str:
    """``nameparse=tag:M``: the alphanumeric/_ run after the first M replaces the header."""
    if trigger is None:
        return header
    at = header.find(trigger)
    if at < 0:
        return header
    m = _ALNUM_RUN.match(header, at + len(trigger))
    return m.group(0)


_ALNUM_RUN = re.compile(r"[A-Za-z0-9_]*")


def read_fasta_record(reader: ByteReader, filename: str, allow_iupac: bool,
                      separator: str | None, trigger: str | None,
                      nickname: str | None = None, keep_arrow: bool = True) -> TextRecord:
    """The next FASTA record (``load_fasta_sequence``).

    With a nickname the header line is skipped (LASTZ's locked header).
    """
    header = nickname
    if reader.skip_blanks() == 0x3E:             # '>'
        reader.pos += 1
        if nickname is not None:
            reader.read_line()
        else:
            if keep_arrow:
                line, _ = reader.read_line()
                header = ">" + text(line)
            else:
                reader.skip_blanks()
                line, _ = reader.read_line()
                header = text(line)
            header = apply_trigger(header, trigger)
    return TextRecord(header, validate_fasta(reader.read_fasta_body(), allow_iupac,
                                             separator, filename, header))


def validate_fasta(body: bytes, allow_iupac: bool, separator: str | None, filename: str,
                   header: str | None) -> np.ndarray:
    """A FASTA record's stored characters; a bad one is LASTZ's error naming the file
    and the record."""
    return _validate(body, False, allow_iupac, separator,
                     lambda c: _bad_char("fasta character", filename, header, c))


@functools.lru_cache(maxsize=None)
def _tables(fastq: bool, allow_iupac: bool, separator: str | None):
    """(bytes to drop, bytes to keep, keep lookup) for one way of reading sequence."""
    table = _FASTQ_CLASS if fastq else _FASTA_CLASS
    keep = (table == KEEP) | ((table == AMBIG) if allow_iupac else False)
    drop = table == DROP
    if separator is not None:
        keep[ord(separator)] = True
        if separator in "\r\n":
            drop[ord(separator)] = False
    return (bytes(np.flatnonzero(drop).astype(np.uint8)),
            bytes(np.flatnonzero(keep).astype(np.uint8)), keep)


def _validate(body: bytes, fastq: bool, allow_iupac: bool, separator: str | None,
              fail) -> np.ndarray:
    """The stored characters of ``body`` (uint8, read-only); ``fail(byte)`` on a bad one.

    Works on whole byte strings (``bytes.translate``), so a chromosome costs a couple of
    passes at C speed and about twice its size in memory.
    """
    drop, keep_bytes, keep = _tables(fastq, allow_iupac, separator)
    data = body.translate(None, drop)
    del body
    if data.translate(None, keep_bytes):
        raw = np.frombuffer(data, np.uint8)
        fail(int(raw[np.flatnonzero(~keep[raw])[0]]))
    return np.frombuffer(data, np.uint8)


_HEADER_LINE = re.compile(rb"(?m)^>.*$")


def rest_is_clean(reader: ByteReader, allow_iupac: bool) -> bool:
    """Whether every FASTA record from here to the end of the file would load without
    an error, checked in bulk (a read's record by record check cost about 7 us, a
    second of a 200,000-read run before any work): header lines (a '>' starting a
    line) dropped, every other byte one a body may hold.  False where the file is not
    plainly so (a bad byte, a '>' or a CR inside a line): the caller then reads it
    record by record for LASTZ's message.  Consumes the reader."""
    drop, keep, _ = _tables(False, allow_iupac, None)
    pending = reader.buf[reader.pos:]
    reader.buf, reader.pos = b"", 0
    while True:
        data = reader.f.read(reader.chunk)
        block = pending + data
        pending = b""
        if data:
            # (whole lines only, so that every block starts a line)
            cut = block.rfind(b"\n") + 1
            block, pending = block[:cut], block[cut:]
        if b"\r" in block:
            return False
        if _HEADER_LINE.sub(b"", block).translate(None, drop).translate(None, keep):
            return False
        if not data:
            reader.hit_eof = True
            return True


def _bad_char(what: str, filename: str, header: str | None, code: int):
    where = filename if not header else f"{filename}, {header}"
    raise InputError(f"bad {what} in {where} ({describe_char(code)}); remove or replace "
                     "non-ACGTN characters or consider using --ambiguous=iupac")


def _fastq_header(reader: ByteReader, filename: str, nickname: str | None) -> str:
    c = reader.getc()
    if c < 0:
        raise InputError(f"premature end of fastq file {filename}")
    if c != 0x40:
        raise InputError(f"bad fastq header character in {filename} "
                         f'(expected "@" but read "{describe_char(c)}")')
    line, _ = reader.read_line()
    if nickname is not None:
        reader.read_line()                        # (LASTZ drops one more line here)
    return text(line)


def skip_fastq_record(reader: ByteReader, filename: str, nickname: str | None) -> None:
    """Pass over a record unread (``load_fastq_sequence`` with keeper false)."""
    _fastq_header(reader, filename, nickname)
    skip_fastq_content(reader)


def read_fastq_record(reader: ByteReader, filename: str, allow_iupac: bool,
                      separator: str | None, trigger: str | None,
                      nickname: str | None = None) -> TextRecord:
    """The next FASTQ record (``load_fastq_sequence`` / ``parse_fastq``)."""
    true_header = _fastq_header(reader, filename, nickname)
    header = nickname if nickname is not None else apply_trigger(true_header, trigger)
    seq_line, _ = reader.read_line()
    chars = _validate(seq_line, True, allow_iupac, separator,
                      lambda c: _bad_char("fastq nucleotide character", filename, header, c))
    where = filename if not header else f"{filename}, {header}"
    c = reader.getc()
    if c < 0:
        raise InputError(f"premature end of fastq file {where}")
    if c != 0x2B:
        raise InputError(f"bad fastq third line character in {filename} (expected \"+\" but "
                         f'read "{describe_char(c)}"); this may be a line-wrapped FASTQ file, '
                         "which is not supported")
    plus, term = reader.read_line()
    if term < 0:
        raise InputError(f"premature end of fastq file {where}")
    if plus and true_header and plus != true_header.encode("utf-8", "surrogateescape"):
        _third_line_mismatch(plus, true_header, filename)
    quals, _ = reader.read_line()
    q = np.frombuffer(quals, np.uint8)
    bad = np.flatnonzero((q < 0x21) | (q > 0x7E))
    if bad.shape[0]:
        raise InputError(f"bad fastq quality character in {where} "
                         f"({describe_char(int(q[bad[0]]))})")
    return TextRecord(header, chars, quals)


def _third_line_mismatch(plus: bytes, true_header: str, filename: str):
    expected = true_header.encode("utf-8", "surrogateescape")
    at = next((k for k, (a, b) in enumerate(zip(plus, expected)) if a != b), None)
    if at is None and len(plus) > len(expected):
        detail = f"line has more than {len(expected) + 1} characters"
    elif at is None:
        detail = f"line has only {len(plus) + 1} characters"
    else:
        detail = f'character {at + 2} is "{describe_char(plus[at])}"'
    raise InputError(f'fastq third line mismatch in {filename} ({detail}) '
                     f'(expected "+{true_header}")')


def check_fastq_qualities(rec: TextRecord, lo: int, end_limit: int, n_kept: int,
                          filename: str) -> None:
    """Quality count within the subrange must equal the base count (``parse_fastq``).

    ``end_limit`` is the 1-based inclusive end in force while the record was read
    (0 = none); qualities past the end of the bases count when there is none.
    """
    n_q = max(0, (min(end_limit, len(rec.quals)) if end_limit else len(rec.quals)) - lo)
    where = filename if not rec.header else f"{filename}, {rec.header}"
    if n_q > n_kept:
        raise InputError(f"too many fastq quality characters in {where}: "
                         f"{n_kept} nucleotides and at least {n_kept + 1} quality characters")
    if n_q < n_kept:
        raise InputError(f"not enough fastq quality characters in {where}: {n_kept} nucleotides "
                         f"and only {n_q} quality characters (this may be a line-wrapped FASTQ "
                         "file, which is not supported)")


def skip_fastq_content(reader: ByteReader) -> bool:
    """Skip three lines (``fastq_skip_content``); False if the file ends first."""
    for _ in range(3):
        _, term = reader.read_line()
        if term < 0:
            return False
    return True


# --- [subset] search ------------------------------------------------------------------


def find_fasta_named(reader: ByteReader, wanted: str, match_name, filename: str,
                     whole: bool = False) -> int:
    """Advance to the next FASTA record named ``wanted`` (``find_next_general_fasta_coi``).

    ``match_name(header_text)`` gives the name a header line is compared by, or None
    when the record counts as unnamed.  Returns the number of records skipped (LASTZ
    counts those in the record number).  Leaves the reader at the record's '>', whose
    header is then the name it matched by, as LASTZ puts back the header it shortened
    in place (``whole``: the whole line, as with ``nameparse=tag:``).
    """
    skipped = -1
    first = True
    while True:
        if first:
            c = reader.getc()
            if c < 0:
                _not_found(filename, wanted)
            if c != 0x3E:
                raise InputError(f"internal error in find_next_fasta_coi processing {filename}, "
                                 f'looking for "{wanted}"')
        else:
            _, c = reader.read_until(_GT)
            if c < 0:
                _not_found(filename, wanted)
        first = False
        skipped += 1
        line, term = reader.read_until(LF)
        if term < 0:
            _not_found(filename, wanted)
        stripped = line.lstrip(b" \t\v\f\r")
        if not stripped:
            continue                               # unnamed sequence
        name = match_name(text(stripped))
        if name is None or name != wanted:
            continue
        again = stripped if whole else name.encode("utf-8", "surrogateescape")
        reader.unread(b">" + b" " * (len(line) - len(stripped)) + again + b"\n")
        return skipped


def find_fastq_named(reader: ByteReader, wanted: str, match_name, filename: str,
                     whole: bool = False) -> None:
    """Advance to the next FASTQ record named ``wanted`` (``find_next_fastq_coi``); the
    header is then the name, as in ``find_fasta_named``."""
    while True:
        c = reader.getc()
        if c < 0:
            _not_found(filename, wanted)
        if c != 0x40:
            raise InputError(f"internal error in find_next_fastq_coi processing {filename}, "
                             f'looking for "{wanted}"')
        line, term = reader.read_line()
        if term < 0:
            _not_found(filename, wanted)
        name = match_name(text(line))
        if name is not None and name == wanted:
            again = line if whole else name.encode("utf-8", "surrogateescape")
            reader.unread(b"@" + again + b"\n")
            return
        if not skip_fastq_content(reader):
            _not_found(filename, wanted)


def _not_found(filename: str, wanted: str):
    raise InputError(f"{filename} does not contain (or contains out of order) "
                     f'the sequence "{wanted}"')
