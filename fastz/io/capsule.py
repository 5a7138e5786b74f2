"""Target capsules (``--writecapsule=FILE``, ``--targetcapsule=FILE``).

A capsule holds the target sequence and its seed-word index, so that many runs against
one target (query chunks, read batches) skip loading and indexing it, and runs on one
machine share its pages: the arrays are mapped from the file (copy-on-write), as
LASTZ maps its capsule.  LASTZ's capsule is a memory dump with no published format;
fastz's is its own (a JSON header, then 64-byte aligned arrays), and each program
reads only its own.

A capsule keeps what LASTZ's keeps (``capsule.c``): the sequence bytes, one name per
sequence (the target's name, or each ``[multiple]`` piece's), the subrange start, true
length, reverse-complement flag and contig number, the pieces, and the seed, step and
index.  So a run from a capsule prints what lastz prints from its own: the target has
no file name (``(no name)``) and its header is its name.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..records import Partitions, Sequence
from .output import output_stream

MAGIC = b"FASTZ-CAPSULE\n"
VERSION = 1
ALIGN = 64

#: numpy dtype strings allowed in a capsule (a foreign file cannot name others)
_DTYPES = {"|u1", "<i4", "<i8"}


@dataclass
class Capsule:
    """A target and its index as read from a capsule file."""

    target: Sequence
    seed: str                  # the seed pattern (1/0/T) the index was built with
    word: int                  # --word
    step: int
    dir_: np.ndarray
    pos: np.ndarray
    low: np.ndarray
    low_bits: int


def _aligned(n: int) -> int:
    """``n`` rounded up to the arrays' alignment."""
    return -(-n // ALIGN) * ALIGN


def write_capsule(path: str, target: Sequence, seed: str, word: int, index) -> int:
    """Write the capsule of ``target`` and its ``index`` (a ``SeedIndex``) to ``path``
    (a temporary file renamed at the end); returns its size in bytes."""
    arrays = {"chars": target.chars, "dir": index.dir_, "pos": index.pos, "low": index.low}
    meta = {"version": VERSION, "name": target.name, "contig": int(target.contig),
            "start": int(target.start), "true_length": int(target.true_length),
            "revcomp": bool(target.revcomp), "seed": seed, "word": int(word),
            "step": int(index.step), "low_bits": int(index.low_bits), "pieces": None}
    parts = target.partitions
    if parts is not None:
        meta["pieces"] = parts.names
        for field in ("offset", "length", "start", "true_length", "contig"):
            arrays["piece_" + field] = getattr(parts, field)
    layout, offset = {}, 0
    for key, a in arrays.items():
        a = np.ascontiguousarray(a)
        arrays[key] = a
        layout[key] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": offset}
        offset += _aligned(a.nbytes)
    meta["arrays"] = layout
    head = json.dumps(meta).encode()
    body_start = _aligned(len(MAGIC) + 8 + len(head))
    with output_stream(path, binary=True) as fh:
        fh.write(MAGIC + len(head).to_bytes(8, "little") + head)
        fh.write(b"\0" * (body_start - len(MAGIC) - 8 - len(head)))
        for key, a in arrays.items():
            fh.write(memoryview(a).cast("B"))           # (no copy)
            fh.write(b"\0" * (-a.nbytes % ALIGN))
    return body_start + offset


def read_capsule(path: str) -> Capsule:
    """Map the capsule at ``path``; a file fastz did not write is a one-line error."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(len(MAGIC))
            if magic != MAGIC:
                raise InputError(f"bad capsule file {path} (not written by fastz "
                                 "--writecapsule; lastz's capsules are its own)")
            size = int.from_bytes(fh.read(8), "little")
            head = fh.read(size)
    except OSError as exc:
        raise InputError(f"can't open capsule file {path} ({exc.strerror})") from None
    try:
        meta = json.loads(head)
        if meta["version"] != VERSION:
            raise InputError(f"capsule file {path} is of version {meta['version']}; "
                             f"this fastz reads version {VERSION}: write it again")
        body_start = _aligned(len(MAGIC) + 8 + size)
        file_size = os.path.getsize(path)
        arrays = {}
        for key, spec in meta["arrays"].items():
            dtype = spec["dtype"]
            if dtype not in _DTYPES:
                raise ValueError(dtype)
            shape = tuple(int(n) for n in spec["shape"])
            start = body_start + int(spec["offset"])
            nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
            if start + nbytes > file_size:
                raise InputError(f"bad capsule file {path} (truncated)")
            arrays[key] = (np.zeros(shape, dtype) if nbytes == 0 else
                           np.memmap(path, dtype=dtype, mode="c", offset=start, shape=shape))
        parts = None
        if meta["pieces"] is not None:
            names = list(meta["pieces"])
            parts = Partitions(*(np.asarray(arrays["piece_" + f]) for f in
                                 ("offset", "length", "start", "true_length", "contig")),
                               names=names, headers=names)
        target = Sequence(arrays["chars"], meta["name"], meta["name"], "",
                          contig=int(meta["contig"]), start=int(meta["start"]),
                          true_length=int(meta["true_length"]),
                          revcomp=bool(meta["revcomp"]), partitions=parts)
        return Capsule(target, str(meta["seed"]), int(meta["word"]), int(meta["step"]),
                       arrays["dir"], arrays["pos"], arrays["low"], int(meta["low_bits"]))
    except InputError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"bad capsule file {path} ({type(exc).__name__})") from None
