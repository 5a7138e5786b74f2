"""Test-only harness for stages 1-2: load sequences, run fastz's seed/HSP stage per
query strand, and format rows like ``lastz --format=general-:...`` for comparison.

The loaders are deliberately minimal (FASTA with case kept, 2bit via twobitreader,
``[multiple]`` targets as NUL-separated buffers); they are not fastz's I/O layer.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastz.pipeline.filtering import find_hsps
from fastz.pipeline.seeding import build_index
from fastz.scoring import build_scoreset

GENERAL_FIELDS = "score,name1,zstart1,end1,name2,strand2,zstart2,end2"

_COMP = np.arange(256, dtype=np.uint8)
for _a, _b in (("A", "T"), ("C", "G"), ("a", "t"), ("c", "g")):
    _COMP[ord(_a)], _COMP[ord(_b)] = ord(_b), ord(_a)


def revcomp(chars: np.ndarray) -> np.ndarray:
    """Reverse complement keeping case (LASTZ's in-place query reversal)."""
    return _COMP[chars[::-1]]


@dataclass
class Rec:
    name: str
    chars: np.ndarray


def read_fasta(path) -> list[Rec]:
    recs, name, parts = [], None, []
    with open(path, "rb") as fh:
        for line in fh:
            if line.startswith(b">"):
                if name is not None:
                    recs.append(Rec(name, np.frombuffer(b"".join(parts), np.uint8).copy()))
                name = line[1:].split()[0].decode()
                parts = []
            else:
                parts.append(line.strip().replace(b" ", b"").replace(b"\t", b""))
    if name is not None:
        recs.append(Rec(name, np.frombuffer(b"".join(parts), np.uint8).copy()))
    return recs


def read_2bit(path, name) -> Rec:
    import twobitreader
    tb = twobitreader.TwoBitFile(str(path))
    seq = tb[name][:]
    return Rec(name, np.frombuffer(seq.encode(), np.uint8).copy())


@dataclass
class Target:
    chars: np.ndarray          # buffer (NUL-separated and NUL-terminated when multiple)
    offsets: np.ndarray        # start of each record in the buffer
    names: list[str]


def make_target(recs: list[Rec], multiple: bool = False) -> Target:
    if not multiple:
        assert len(recs) == 1
        return Target(recs[0].chars, np.array([0]), [recs[0].name])
    parts, offsets, at = [b"\0"], [], 1
    for r in recs:
        offsets.append(at)
        parts.append(r.chars.tobytes())
        parts.append(b"\0")
        at += len(r.chars) + 1
    return Target(np.frombuffer(b"".join(parts), np.uint8).copy(), np.array(offsets), [r.name for r in recs])


def run_fastz_hsps(target: Target, queries: list[Rec], seed="12of19", step=1, transition=1,
                   xdrop=None, hspthresh=3000, entropy=True, gfextend=True, gapped=False,
                   strand="both", word=28) -> list[str]:
    """General-format rows (GENERAL_FIELDS) of fastz's HSPs, in LASTZ's order."""
    ss = build_scoreset()
    if xdrop is None:
        xdrop = 10 * ss.aa
    index = build_index(target.chars, seed, step, word=word)
    rows = []
    strands = {"both": "+-", "plus": "+", "minus": "-"}[strand]
    for rec in queries:
        for st in strands:
            q = rec.chars if st == "+" else revcomp(rec.chars)
            h = find_hsps(index, target.chars, q, None, transition, ss.masked, xdrop, hspthresh,
                          entropy, gfextend=gfextend, gapped=gapped)
            part = np.searchsorted(target.offsets, h["pos1"], side="right") - 1
            for k in range(h.shape[0]):
                p = part[k]
                s1 = int(h["pos1"][k] - target.offsets[p])
                n = int(h["length"][k])
                rows.append(f"{int(h['score'][k])}\t{target.names[p]}\t{s1}\t{s1 + n}\t{rec.name}\t{st}"
                            f"\t{int(h['pos2'][k])}\t{int(h['pos2'][k]) + n}")
    return rows


def lastz_rows(run_lastz, args) -> list[str]:
    out = run_lastz([*args, "--nogapped", f"--format=general-:{GENERAL_FIELDS}"])
    return [line for line in out.decode().splitlines() if line and not line.startswith("#")]


# --- LASTZ's --debug=anchors trace ------------------------------------------------------

import re as _re

_REDUCE = _re.compile(r"reduce_to_points: reducing \[[\d,]+\] \((\d+)/(\d+) (\d+) diag=-?\d+ "
                      r"score=(-?\d+)\) to \((\d+)/(\d+) 0\)")


def run_lastz_stderr(args, cwd=None) -> bytes:
    """Run the real lastz; return its stderr (raises on non-zero exit)."""
    import shutil
    import subprocess
    exe = shutil.which("lastz")
    assert exe is not None, "lastz is not installed"
    res = subprocess.run([exe, *args], cwd=cwd, capture_output=True, timeout=600)
    if res.returncode != 0:
        raise AssertionError(f"lastz {' '.join(map(str, args))} failed: {res.stderr.decode()[-500:]}")
    return res.stderr


def lastz_anchor_trace(args) -> list[tuple]:
    """(pos1, pos2, length, score, anchor1, anchor2) per collected HSP, strand by strand,
    in discovery order, from ``lastz ... --debug=anchors`` (stderr).  The trace is
    written before gapped extension, so a tiny y-drop keeps that stage cheap."""
    err = run_lastz_stderr([*args, "--debug=anchors", "--format=none", "--ydrop=1"])
    return [tuple(int(x) for x in m.groups()) for m in _REDUCE.finditer(err.decode())]


def fastz_anchor_trace(target: Target, queries: list[Rec], seed="12of19", step=1, transition=1,
                       xdrop=None, hspthresh=3000, entropy=True, gfextend=True,
                       strand="both", word=28) -> list[tuple]:
    """The same trace from fastz: find_hsps (gapped path) then the anchor peaks."""
    from fastz.pipeline.anchors import anchors_from_hsps
    from fastz.kernels.filtering import segment_peaks
    ss = build_scoreset()
    if xdrop is None:
        xdrop = 10 * ss.aa
    index = build_index(target.chars, seed, step, word=word)
    out = []
    strands = {"both": "+-", "plus": "+", "minus": "-"}[strand]
    for rec in queries:
        for st in strands:
            q = rec.chars if st == "+" else revcomp(rec.chars)
            h = find_hsps(index, target.chars, q, None, transition, ss.masked, xdrop, hspthresh,
                          entropy, gfextend=gfextend, gapped=True)
            peaks = segment_peaks(target.chars, q, h["pos1"].copy(), h["pos2"].copy(),
                                  h["length"].copy(), ss.sub)
            anchors = anchors_from_hsps(h, target.chars, q, ss.sub)
            # the sorted anchors are the same multiset as the discovery-order peaks
            mine = sorted(zip((h["pos1"] + peaks).tolist(), (h["pos2"] + peaks).tolist(),
                              h["score"].tolist()), key=lambda r: (-r[2], r[1], r[0]))
            assert mine == list(zip(anchors["pos1"].tolist(), anchors["pos2"].tolist(),
                                    anchors["score"].tolist()))
            for k in range(h.shape[0]):
                out.append((int(h["pos1"][k]), int(h["pos2"][k]), int(h["length"][k]),
                            int(h["score"][k]), int(h["pos1"][k] + peaks[k]), int(h["pos2"][k] + peaks[k])))
    return out
