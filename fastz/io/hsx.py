"""LASTZ's HSX files: a hashed index of named sequences kept in FASTA files.

The format is LASTZ's own (``docs/hsx_format.html`` of its distribution; its tool
``build_fasta_hsx.py`` writes it): a header, a table of the FASTA files, a hash table of
``HLEN`` buckets (each the file position of its first index entry, the top bit of the
five bytes set when the bucket is empty, plus a sentinel) and the index entries in hash
order, each a 5-byte length, 1-byte file number, 6-byte file offset and the name.  As
LASTZ's ``read_hsx_header`` / ``load_hsx_sequence`` / ``lookup_hsx_sequence``:
the whole file is read in index order from bucket 0's entry, ``file.hsx/name`` and
``[subset=]`` names are found through the hash, the record's header line is skipped and
its characters read up to the next header, and the record's name (not its FASTA header)
becomes the sequence's header.  Only the index entries wanted are read.
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from . import fasta

HSX_MAGIC = 0xD2527095
_EMPTY_BUCKET = 1 << 39          # the top bit of a bucket's 5-byte file position


def hassock_hash(name: bytes) -> int:
    """LASTZ's ``hassock_hash`` (MurmurHash2 with a fixed seed, read from the end)."""
    m, mask = 0x87C10417, 0xFFFFFFFF
    n = len(name)
    h = 0x5C3FC4D3 ^ n
    end = n
    while end >= 4:
        k = name[end - 1] | name[end - 2] << 8 | name[end - 3] << 16 | name[end - 4] << 24
        k = (k * m) & mask
        k ^= k >> 24
        k = (k * m) & mask
        h = ((h * m) & mask) ^ k
        end -= 4
    if end >= 3:
        h ^= name[2] << 16
    if end >= 2:
        h ^= name[1] << 8
    if end >= 1:
        h = ((h ^ name[0]) * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    return h ^ (h >> 15)


@dataclass
class HsxEntry:
    """One index entry: the sequence's name, length and where its record starts."""

    name: str
    length: int
    file: int                   # index into the file table
    offset: int                 # of the record's header line (or of its bases)
    after: int                  # file position of the next index entry


def _encode(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


class HsxFile:
    """An open HSX index (``f`` seekable); FASTA files are opened when first read."""

    def __init__(self, f, filename: str):
        self.f = f
        self.filename = filename
        head = self._exact(0, 32, "read_hsx_header")
        word = struct.unpack(">I", head[:4])[0]
        if word == HSX_MAGIC:
            self.order = "big"
        elif struct.unpack("<I", head[:4])[0] == HSX_MAGIC:
            self.order = "little"
        else:
            raise InputError(f"bad hsx magic number in {filename} ({word:08X})")
        fields = struct.unpack((">" if self.order == "big" else "<") + "7I", head[4:])
        version, header_len, n_files, files_at, n_buckets, buckets_at, n_seqs = fields
        if version != 0x100:
            raise InputError(f"bad hsx version in {filename} ({version:08X})")
        if header_len != 0x1C:
            raise InputError(f"bad hsx header length in {filename} ({header_len:08X})")
        if n_files == 0:
            raise InputError(f"empty file table in hsx file {filename}")
        if n_files > 255:
            raise InputError(f"corrupt header in hsx file {filename} "
                             f"(numFiles > 255;  {n_files})")
        if n_buckets == 0:
            raise InputError(f"corrupt header in hsx file {filename} (numBuckets = 0)")
        self.count = n_seqs
        self.n_buckets = n_buckets
        self.buckets_at = buckets_at
        self.paths = self._file_table(n_files, files_at)
        self.handles: dict[int, object] = {}

    def _int(self, raw: bytes) -> int:
        return int.from_bytes(raw, self.order)

    def _exact(self, at: int, n: int, where: str) -> bytes:
        self.f.seek(at)
        raw = self.f.read(n)
        if len(raw) != n:
            raise InputError(f"in {where} for {self.filename}, short read (wanted {n} "
                             f"bytes, only got {len(raw)})")
        return raw

    def _string(self, at: int, where: str) -> tuple[bytes, int]:
        """A length-prefixed string at ``at``: (bytes, position after it)."""
        size = self._exact(at, 1, where)[0]
        return (self._exact(at + 1, size, where) if size else b""), at + 1 + size

    def _file_table(self, n_files: int, at: int) -> list[str]:
        """Each FASTA file's path: its name in the table (or, when empty, the index's
        own name less its extension) beside the index, plus the type as extension."""
        raw = self._exact(at, 4 * n_files, "read_hsx_header")
        infos = [self._int(raw[4 * k:4 * k + 4]) for k in range(n_files)]
        folder, base = os.path.split(self.filename)
        stem = base[:base.rfind(".")] if "." in base else base
        paths = []
        for info in infos:
            kind, after = self._string(info, "read_hsx_header")
            kind = fasta.text(kind)
            if kind not in ("fa", "fasta"):
                raise InputError(f"in read_hsx_header for {self.filename}, unsupported "
                                 f"file type: {kind}")
            name = fasta.text(self._string(after, "read_hsx_header")[0])
            paths.append(os.path.join(folder, name or stem) + "." + kind[:9])
        return paths

    # -- the index --

    def first(self) -> int:
        """File position of the first index entry (bucket 0's, empty or not)."""
        return self._int(self._exact(self.buckets_at, 5, "read_hsx_header")) & \
            ~_EMPTY_BUCKET

    def entry(self, at: int) -> HsxEntry:
        raw = self._exact(at, 12, "load_hsx_sequence")
        name, after = self._string(at + 12, "load_hsx_sequence")
        return HsxEntry(fasta.text(name), self._int(raw[:5]), raw[5], self._int(raw[6:]),
                        after)

    def lookup(self, name: str) -> int | None:
        """File position of the entry called ``name``; None when there is none."""
        key = _encode(name)
        bucket = hassock_hash(key) % self.n_buckets
        raw = self._exact(self.buckets_at + 5 * bucket, 10, "lookup_hsx_sequence")
        start, end = self._int(raw[:5]), self._int(raw[5:]) & ~_EMPTY_BUCKET
        if start & _EMPTY_BUCKET:
            return None
        at = start
        while at < end:               # a bucket's names are in byte order
            entry = self.entry(at)
            here = _encode(entry.name)
            if here == key:
                return at
            if here > key:
                return None
            at = entry.after
        return None

    def find(self, name: str) -> int:
        at = self.lookup(name)
        if at is None:
            raise InputError(f"hsx file {self.filename} doesn't contain {name}")
        return at

    # -- a record's bases --

    def read(self, entry: HsxEntry, allow_iupac: bool, separator: str | None) -> np.ndarray:
        """The record's stored characters (``load_hsx_sequence``): its header line
        skipped, the bases up to the next header, checked as FASTA's."""
        if entry.file >= len(self.paths):
            raise InputError(f"in load_hsx_sequence for {self.filename}, file number "
                             f"{entry.file} of {entry.name} is not in its file table")
        fh = self.handles.get(entry.file)
        if fh is None:
            path = self.paths[entry.file]
            try:
                fh = open(path, "rb")
            except OSError as exc:
                raise InputError(f'failed to open "{path}" for "rb" ({exc.strerror})') \
                    from None
            self.handles[entry.file] = fh
        fh.seek(entry.offset)
        # a buffer the size of the record (line ends included) reads it in one go
        reader = fasta.ByteReader(fh, chunk=max(4096, entry.length + entry.length // 16
                                                + 256))
        if reader.peek(1) == b">":
            reader.read_until(fasta.LF)
        return fasta.validate_fasta(reader.read_fasta_body(), allow_iupac, separator,
                                    self.filename, entry.name)

    def close(self) -> None:
        for fh in self.handles.values():
            fh.close()
        self.handles.clear()

