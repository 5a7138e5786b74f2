"""Binary sequence files: UCSC 2bit and nib.

Mirrors LASTZ's ``sequences.c`` ``read_2bit_header`` / ``load_2bit_sequence`` /
``find_2bit_sequence`` and ``load_nib_sequence``: only the bytes of the wanted
subrange are read, unpacked with lookup tables; 2bit N blocks become ``N`` and mask
blocks lower case (``n`` inside both) unless ``[unmask]``; nib's mask bit is lower case.
"""
from __future__ import annotations

import struct

import numpy as np

from ..errors import InputError

TWOBIT_MAGIC = 0x1A412743
NIB_MAGIC = 0x6BE93D3A


def _swap32(x: int) -> int:
    return struct.unpack("<I", struct.pack(">I", x))[0]


def magic_kind(first4: bytes) -> str | None:
    """'2bit' or 'nib' when the first four bytes are that format's magic number."""
    if len(first4) < 4:
        return None
    word = struct.unpack(">I", first4)[0]
    for magic, kind in ((TWOBIT_MAGIC, "2bit"), (NIB_MAGIC, "nib")):
        if word in (magic, _swap32(magic)):
            return kind
    if word in (0x957052D2, 0xD2527095):
        return "hsx"
    if word in (0xC4B47197, 0x9771B4C4, 0xF656659E, 0x9E6556F6):
        return "qdna"
    return None


# 2bit packs T=0 C=1 A=2 G=3, first base in the high bits
_TWOBIT_LUT = np.array([[b"TCAG"[(byte >> shift) & 3] for shift in (6, 4, 2, 0)]
                        for byte in range(256)], np.uint8)
_UPPER_TO_LOWER = np.arange(256, dtype=np.uint8)
_UPPER_TO_LOWER[ord("A"):ord("Z") + 1] += 32


class TwoBitFile:
    """Index of a 2bit file; sequences are read on demand (``read_2bit_header``)."""

    def __init__(self, f, filename: str):
        self.f = f
        self.filename = filename
        head = f.read(16)
        if len(head) < 16:
            raise InputError(f"bad 2bit header in {filename} (file too short)")
        word = struct.unpack(">I", head[:4])[0]
        if word == TWOBIT_MAGIC:
            self.endian = ">"
        elif word == _swap32(TWOBIT_MAGIC):
            self.endian = "<"
        else:
            raise InputError(f"bad 2bit magic number in {filename} ({word:08X})")
        version, count, reserved = struct.unpack(self.endian + "III", head[4:])
        if version not in (0, 1):
            raise InputError(f"bad 2bit version in {filename} ({version:08X})")
        if reserved != 0:
            raise InputError(f"bad 2bit header word 4 in {filename} ({reserved:08X})")
        if count == 0:
            raise InputError(f"empty 2bit file {filename}")
        self.names: list[str] = []
        self.offsets: list[int] = []
        # version 1 (UCSC's faToTwoBit -long, files over 4 GiB; LASTZ reads only
        # version 0) has 64-bit offsets in the index; the records are the same
        fmt, width = (self.endian + "I", 4) if version == 0 else (self.endian + "Q", 8)
        for k in range(count):
            size = f.read(1)
            if not size:
                raise InputError(f"in load_2bit_sequence for {filename}, short read for "
                                 f"sequence {k + 1}")
            raw = f.read(size[0] + width)
            if len(raw) != size[0] + width:
                raise InputError(f"in load_2bit_sequence for {filename}, short read for "
                                 f"sequence {k + 1}")
            self.names.append(raw[:-width].decode("utf-8", "surrogateescape"))
            self.offsets.append(struct.unpack(fmt, raw[-width:])[0])

    def __len__(self) -> int:
        return len(self.names)

    def find(self, name: str) -> int:
        """0-based index of the sequence called ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise InputError(f"2bit file {self.filename} doesn't contain {name}") from None

    def _u32s(self, n: int) -> np.ndarray:
        raw = self.f.read(4 * n)
        if len(raw) != 4 * n:
            raise InputError(f"in load_2bit_sequence for {self.filename}, short read")
        return np.frombuffer(raw, self.endian + "u4").astype(np.int64)

    def read(self, index: int, limits, unmask: bool) -> tuple[np.ndarray, int, int]:
        """Bases of sequence ``index`` within ``limits``: (chars, true length, startLoc)."""
        f = self.f
        f.seek(self.offsets[index])
        dna_size = int(self._u32s(1)[0])
        if dna_size == 0 or dna_size == 0xFFFFFFFF:
            raise InputError(f"bad 2bit length in {self.filename} ({dna_size:08X})")
        lo, hi = limits.clip(dna_size, self.filename, None)
        n_count = int(self._u32s(1)[0])
        n_starts, n_sizes = self._u32s(n_count), self._u32s(n_count)
        m_count = int(self._u32s(1)[0])
        if unmask:
            f.seek(8 * m_count, 1)
            m_starts = m_sizes = np.zeros(0, np.int64)
        else:
            m_starts, m_sizes = self._u32s(m_count), self._u32s(m_count)
        reserved = int(self._u32s(1)[0])
        if reserved != 0:
            raise InputError(f"bad 2bit reserved data prefix in {self.filename} "
                             f"(data is {reserved:08X})")
        first_byte, last_byte = lo // 4, (hi + 3) // 4
        f.seek(first_byte, 1)
        packed = f.read(last_byte - first_byte)
        if len(packed) != last_byte - first_byte:
            raise InputError(f"in load_2bit_sequence for {self.filename}, block read for "
                             f"sequence {index + 1} wanted {last_byte - first_byte} bytes, "
                             f"only got {len(packed)}")
        bases = _TWOBIT_LUT[np.frombuffer(packed, np.uint8)].reshape(-1)
        skip = lo - 4 * first_byte
        chars = bases[skip:skip + (hi - lo)].copy()
        nmask = _block_mask(n_starts, n_sizes, lo, hi)
        if nmask is not None:
            chars[nmask] = ord("N")
        mmask = _block_mask(m_starts, m_sizes, lo, hi)
        if mmask is not None:
            chars[mmask] = _UPPER_TO_LOWER[chars[mmask]]
        return chars, dna_size, lo + 1


def _block_mask(starts: np.ndarray, sizes: np.ndarray, lo: int, hi: int) -> np.ndarray | None:
    """Boolean mask over [lo, hi) of the positions covered by any block."""
    if starts.shape[0] == 0:
        return None
    n = hi - lo
    s = np.clip(starts - lo, 0, n)
    e = np.clip(((starts + sizes) & 0xFFFFFFFF) - lo, 0, n)
    keep = e > s
    if not keep.any():
        return None
    depth = np.cumsum(np.bincount(s[keep], minlength=n + 1)
                      - np.bincount(e[keep], minlength=n + 1))
    return depth[:n] > 0


# nib: 4-bit codes T C A G N X X X, bit 3 = masked (lower case); high nybble first
_NIB_MASKED = np.frombuffer(b"TCAGNXXXtcagnxxx", np.uint8)
_NIB_UNMASKED = np.frombuffer(b"TCAGNXXXTCAGNXXX", np.uint8)


def read_nib(f, filename: str, limits, unmask: bool) -> tuple[np.ndarray, int, int]:
    """The one sequence of a nib file (``load_nib_sequence``): (chars, length, startLoc)."""
    head = f.read(8)
    if len(head) < 8:
        raise InputError(f"bad nib header in {filename} (file too short)")
    word = struct.unpack(">I", head[:4])[0]
    if word == _swap32(NIB_MAGIC):
        length = struct.unpack("<I", head[4:])[0]
    elif word == NIB_MAGIC:
        length = struct.unpack(">I", head[4:])[0]
    else:
        raise InputError(f"bad nib magic number in {filename} ({word:08X})")
    if length == 0 or length == 0xFFFFFFFF:
        raise InputError(f"bad nib length in {filename} ({length:08X})")
    lo, hi = limits.clip(length, filename, None)
    first_byte, last_byte = lo // 2, (hi + 1) // 2
    f.seek(8 + first_byte)
    packed = np.frombuffer(f.read(last_byte - first_byte), np.uint8)
    if packed.shape[0] != last_byte - first_byte:
        raise InputError(f"in load_nib_sequence({filename}), block read wanted "
                         f"{last_byte - first_byte} bytes, only got {packed.shape[0]}")
    table = _NIB_UNMASKED if unmask else _NIB_MASKED
    codes = np.empty(2 * packed.shape[0], np.uint8)
    codes[0::2] = packed >> 4
    codes[1::2] = packed & 15
    skip = lo - 2 * first_byte
    return table[codes[skip:skip + (hi - lo)]], length, lo + 1
