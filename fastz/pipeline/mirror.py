"""``--self``: mirror images of the alignments found above the main diagonal.

With ``--self`` the target is aligned with itself and only seed hits above the main
diagonal are used; the other half of the dot plot is produced by reflection.  Mirrors
LASTZ ``lastz.c``: ``collect_hsps`` / ``report_hsps`` (gap-free: each HSP is followed
by its mirror image) and ``mirror_alignments`` (gapped: the mirror images are appended
after the strand's alignments; on opposite strands an alignment that reaches the
diagonal is cut there and completed by its own reflection, one starting on it is
dropped), with ``edit_script.c``'s ``edit_script_upper_truncate``, ``_reverse``,
``_mirror``, ``_trim_head``, ``_append`` and ``gapped_extend.c`` ``score_alignment``.

Edit scripts are handled here as Python lists of ``[op, length]`` (``records.OP_*``):
strands have few alignments, and LASTZ's script quirks (a stale tail operation decides
whether two scripts merge when appended) are easier to follow this way.
"""
from __future__ import annotations

import sys

import numpy as np

from ..records import OP_DEL, OP_INS, OP_MATCH, Alignments, Sequence
from ..scoring import run_score
from .filtering import _strand_length

_SWAP = {OP_MATCH: OP_MATCH, OP_INS: OP_DEL, OP_DEL: OP_INS}
_INFINITY = -1


def mirror_hsps(hsps: np.ndarray, len1: int, len2: int, same_strand: bool) -> np.ndarray:
    """Each HSP followed by its mirror image (LASTZ collect_hsps with mirrorHSP).

    On opposite strands the image is reflected through both sequences' ends, and an
    HSP that is its own image is not repeated.
    """
    return mirror_images(hsps, len1, len2, same_strand)[0]


def mirror_images(hsps: np.ndarray, len1: int, len2: int, same_strand: bool):
    """``mirror_hsps`` and, per row, whether it is a mirror image (of the row before)."""
    p1, p2 = hsps["pos1"].astype(np.int64), hsps["pos2"].astype(np.int64)
    n = hsps["length"].astype(np.int64)
    if same_strand:                                    # (LASTZ reports segment ends)
        m1, m2 = p2, p1
        imaged = np.ones(p1.shape[0], np.bool_)
    else:
        m1, m2 = len2 - (p2 + n), len1 - (p1 + n)
        imaged = (m1 != p1) | (m2 != p2)               # not its own image
    out = np.empty(2 * p1.shape[0], hsps.dtype)        # each row, then its image
    image = np.zeros(out.shape[0], np.bool_)
    image[1::2] = True
    for name, row, mirrored in (("pos1", p1, m1), ("pos2", p2, m2), ("length", n, n),
                                ("score", hsps["score"], hsps["score"])):
        out[name][0::2] = row
        out[name][1::2] = mirrored
    keep = np.ones(out.shape[0], np.bool_)
    keep[1::2] = imaged
    return out[keep], image[keep]


# --- edit scripts --------------------------------------------------------------------


def _script(alns: Alignments, k: int) -> list[list[int]]:
    return [[int(x) & 0xF, int(x) >> 4] for x in alns.ops[alns.ops_start[k]:alns.ops_start[k + 1]]]


def _upper_truncate(script: list, x: int, y: int):
    """edit_script_upper_truncate: cut where the path (seq2 counted downwards) first
    touches the diagonal.  Returns (truncated, x, y, script); x = -1 discards all."""
    if not script:
        return False, x, y, script
    if x > y:
        return True, _INFINITY, _INFINITY, []
    p1, p2 = x, y
    hit = -1
    prev1 = prev2 = 0
    op = OP_MATCH
    for i, (op, rpt) in enumerate(script):
        prev1, prev2 = p1, p2
        if op == OP_MATCH:
            p1 += rpt
            p2 -= rpt
            limit = p2 + 1
        elif op == OP_INS:
            p2 -= rpt
            limit = p2
        else:
            p1 += rpt
            limit = p2
        if p1 >= limit:
            hit = i
            break
    if hit < 0:
        return False, x, y, script
    script = [list(s) for s in script[:hit + 1]]
    if p1 > p2:
        if op == OP_MATCH:
            rpt = (prev2 + 1 - prev1) // 2
            p1, p2 = prev1 + rpt, prev2 - rpt
        elif op == OP_INS:
            rpt = prev2 - prev1
            p1, p2 = prev1, prev2 - rpt
        else:
            rpt = prev2 - prev1
            p1, p2 = prev1 + rpt, prev2
        script[hit][1] = rpt
    return True, p1, p2, script


def _trim_head(script: list, n: int) -> list:
    """edit_script_trim_head: drop the first n steps of the path."""
    if not script or n == 0:
        return script
    for i, (op, rpt) in enumerate(script):
        if rpt > n:
            rest = [list(s) for s in script[i:]]
            if n > 0:
                rest[0][1] = rpt - n
            return rest
        n -= rpt
    return []


def _append(dst: list, tail_op: int, src: list) -> list:
    """edit_script_append: merges the first source op into dst's last op when it
    equals dst's recorded tail operation (which truncation leaves stale)."""
    if not src:
        return dst
    out = [list(s) for s in dst]
    src = [list(s) for s in src]
    if out and src[0][0] == tail_op:
        out[-1][1] += src[0][1]
        src = src[1:]
    return out + src


def _overall(script: list) -> tuple[int, int]:
    i = j = 0
    for op, rpt in script:
        if op == OP_MATCH:
            i += rpt
            j += rpt
        elif op == OP_INS:
            j += rpt
        else:
            i += rpt
    return i, j


def _score(sub, gap_open, gap_extend, t, q, p1, p2, script) -> int:
    """score_alignment: substitutions minus open + extend per indel operation."""
    s = 0
    for op, rpt in script:
        if rpt == 0:
            continue
        if op == OP_MATCH:
            s += run_score(sub, t[p1:p1 + rpt], q[p2:p2 + rpt])
            p1 += rpt
            p2 += rpt
        elif op == OP_INS:
            s -= gap_open + rpt * gap_extend
            p2 += rpt
        else:
            s -= gap_open + rpt * gap_extend
            p1 += rpt
    return s


# --- mirror_alignments ---------------------------------------------------------------


def mirror_alignments(alns: Alignments, target: Sequence, query: Sequence, same_strand: bool,
                      scores) -> Alignments:
    """The strand's alignments followed by their mirror images (LASTZ mirror_alignments)."""
    if len(alns) == 0:
        return alns
    n = _strand_length(target.chars)
    kept, images = [], []
    for k in range(len(alns)):
        pos1, end1 = int(alns.beg1[k]), int(alns.end1[k])
        pos2, end2 = int(alns.beg2[k]), int(alns.end2[k])
        script = _script(alns, k)
        score = alns.score[k].item()
        if same_strand:
            kept.append((pos1, end1, pos2, end2, score, script))
            images.append((pos2, end2, pos1, end1, score,
                           [[_SWAP[op], r] for op, r in script]))
            continue
        in_pos2, in_end2 = pos2, end2
        inv1, inv = _inverts(target, query, n, pos1, pos2)
        c_pos2, c_end2 = inv - in_pos2, inv - in_end2
        if pos1 == c_pos2:
            continue                                   # starts on the diagonal: dropped
        if end1 >= c_end2:
            tail_op = script[-1][0] if script else OP_MATCH
            trunc, x, y, cut = _upper_truncate(script, pos1, c_pos2)
            if trunc and x == _INFINITY:
                continue
            overlap = False
            if trunc:
                script = cut
                if x < y or x > y + 1:
                    sys.stderr.write(
                        "WARNING.  Internal error in mirror_alignments().\n"
                        "  An alignment crosses the main diagonal in an unexpected way.\n"
                        f"  (alignment from {pos1:,} to {end1:,} crosses at {c_pos2:,})\n"
                        "  The alignment is kept, but truncated at that point.\n")
                    kept.append((pos1, x, in_pos2, inv - y, score, script))
                    continue
                overlap = x == y + 1
            back = [[_SWAP[op], r] for op, r in reversed(script)]
            if overlap:
                back = _trim_head(back, 1)
            script = _append(script, tail_op, back)
            i, j = _overall(script)
            score = _score(scores.sub, scores.gap_open, scores.gap_extend, target.chars,
                           query.chars, pos1, in_pos2, script)
            kept.append((pos1, pos1 + i, in_pos2, in_pos2 + j, score, script))
            continue
        kept.append((pos1, end1, pos2, end2, score, script))
        images.append((inv - in_end2, inv - in_pos2, inv1 - end1, inv1 - pos1, score,
                       [[_SWAP[op], r] for op, r in reversed(script)]))
    return _build(kept + images, alns.kind)


def _inverts(target: Sequence, query: Sequence, n: int, pos1: int, pos2: int):
    """Where opposite-strand positions are reflected: the sequence length, or for a
    partitioned sequence (reverse-complemented piece by piece) the sum of the two
    separators around the piece holding the position, plus one (LASTZ's invert1 for
    ``pos1`` in the target, invert2 for ``pos2`` in the query)."""
    if query.partitions is None:
        return n, n
    tp, qp = target.partitions, query.partitions
    i1, i2 = int(tp.locate(pos1)), int(qp.locate(pos2))
    return (2 * int(tp.offset[i1]) + int(tp.length[i1]),
            2 * int(qp.offset[i2]) + int(qp.length[i2]))


def _build(rows: list, kind: str) -> Alignments:
    counts = [len(r[5]) for r in rows]
    starts = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    ops = [(int(r) << 4) | int(op) for row in rows for op, r in row[5]]
    col = [np.array([r[i] for r in rows], np.int64) for i in range(4)]
    scores = [r[4] for r in rows]                  # (fastz_D: doubles with fractions)
    col.append(np.array(scores, np.float64 if any(isinstance(s, float) for s in scores)
                        else np.int64))
    return Alignments(col[0], col[1], col[2], col[3], col[4], starts,
                      np.array(ops, np.uint64), kind)
