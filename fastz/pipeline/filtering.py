"""Stage 2 host code: seed hits -> HSPs for one query strand.

Chooses the hit processor as LASTZ ``lastz.c`` ``set_up_hit_processor`` does and runs
the sequential search kernel (``fastz.kernels.filtering.search_strand``):

* default (gap-free extension on): ``process_for_simple_hit`` + x-drop extension,
  entropy adjustment and the inclusive HSP threshold;
* ``--nogfextend`` with gapped extension: ``process_for_simple_hit`` without
  extension (each accepted seed hit blocks its diagonal-hash bucket up to its end);
  the hits are then scored with the masked table over the seed window, as
  ``finish_one_strand`` -> ``score_segments`` does before anchors are sorted;
* ``--nogfextend --nogapped``: ``process_for_plain_hit``, every seed hit, score 0.

With ``--self`` (``self_strand``), seed hits on or below the main diagonal are not
processed (``seed_hit_below_diagonal``); mirroring HSPs for output is the writer's job.
"""
from __future__ import annotations

import numpy as np

from ..errors import OptionsError
from ..kernels import filtering as kfilt
from ..kernels import seeding as kseed
from ..records import HSP_DTYPE
from .seeding import SeedIndex, parse_seed


def _strand_length(chars: np.ndarray) -> int:
    """Length LASTZ uses for a buffer: a trailing NUL (partition terminator) is not counted."""
    n = int(chars.shape[0])
    if n > 0 and chars[n - 1] == 0:
        n -= 1
    return n


def _as_hsps(rows: np.ndarray) -> np.ndarray:
    out = np.empty(rows.shape[0], dtype=HSP_DTYPE)
    out["pos1"] = rows[:, 0]
    out["pos2"] = rows[:, 1]
    out["length"] = rows[:, 2]
    out["score"] = rows[:, 3]
    return out


def find_hsps(index: SeedIndex, target_chars: np.ndarray, query_chars: np.ndarray,
              seed: str | None = None, transition: int = 1, masked_sub: np.ndarray | None = None,
              xdrop: int = 910, hspthresh: int = 3000, entropy: bool = True,
              gfextend: bool = True, gapped: bool = True, stats: dict | None = None,
              self_strand: str | None = None) -> np.ndarray:
    """HSPs (or seed hits) of one query strand against the indexed target, in LASTZ's
    discovery order.

    Parameters
    ----------
    index : SeedIndex
        ``build_index`` of ``target_chars``.
    target_chars, query_chars : uint8 arrays
        Target buffer and query *strand* buffer (already reverse-complemented for
        the minus strand).
    seed : str, optional
        The seed the index was built with (checked if given).
    transition : int
        0, 1 or 2 transitions allowed in a seed hit (``--notransition``,
        ``--transition[=2]``); ignored for half-weight seeds.
    masked_sub : int32[256, 256]
        LASTZ's masked scoring table (``ScoreSet.masked``).
    xdrop, hspthresh : int
        ``--xdrop`` and a fixed ``--hspthresh`` (kept iff score >= hspthresh).
    entropy : bool
        Entropy-adjust scores in ``[max(0, K), 3K]`` before the threshold.
    gfextend : bool
        False for ``--nogfextend``: seed hits are not extended (score 0).
    gapped : bool
        Whether gapped extension follows; with ``gfextend=False`` this selects the
        filtered processor (True: hits then scored with ``masked_sub``) or the plain
        processor (False: every hit, score 0).
    stats : dict, optional
        Receives ``raw_hits`` (seed hits enumerated) and ``hsps``.
    self_strand : {None, "+", "-"}
        ``--self``: the query is the target itself on this strand; seed hits below
        the main diagonal are dropped (unpartitioned sequences only).

    Returns
    -------
    HSP_DTYPE array; ``pos1``/``pos2`` are segment starts in the two buffers.
    """
    spec = index.spec
    if seed is not None:
        other = parse_seed(seed, 0)
        if other.length != spec.length or set(other.care_off.tolist()) != set(spec.care_off.tolist()):
            raise OptionsError(f"find_hsps: seed {seed} differs from the index's seed")
    if masked_sub is None:
        raise ValueError("find_hsps needs the masked substitution table")
    if transition not in (0, 1, 2):
        raise OptionsError(f"transition must be 0, 1 or 2 (got {transition})")
    t = np.ascontiguousarray(target_chars, dtype=np.uint8)
    q = np.ascontiguousarray(query_chars, dtype=np.uint8)
    table = np.ascontiguousarray(masked_sub, dtype=np.int32)
    len1 = _strand_length(t)
    len2 = _strand_length(q)
    if t.shape[0] != index.target_len:
        raise ValueError("find_hsps: target_chars is not the indexed target")

    if gfextend:
        mode = kfilt.MODE_XDROP
    elif gapped:
        mode = kfilt.MODE_NOEXTEND
    else:
        mode = kfilt.MODE_PLAIN
    if entropy and gfextend:
        ent_lo, ent_hi = max(0, int(hspthresh)), 3 * int(hspthresh)
    else:
        ent_lo, ent_hi = 1, 0
    trans = 0 if spec.halfweight else int(transition)
    self_mode = {None: 0, "+": 1, "-": 2}[self_strand]
    if self_mode == 2 and ((t.shape[0] and t[0] == 0) or (q.shape[0] and q[0] == 0)):
        raise NotImplementedError("--self on the minus strand of a partitioned sequence")

    if len2 < spec.length:
        rows = np.zeros((0, 4), np.int64)
        n_raw = 0
    else:
        qcodes = kseed.char_codes(q)
        rows, n_raw = kfilt.search_strand(
            index.dir_, index.low, index.pos, index.low_bits,
            spec.length, spec.care_off, spec.care_bits, spec.flips, spec.resolve_off, trans,
            t, q, qcodes, len1, len2,
            table, int(xdrop), int(hspthresh), ent_lo, ent_hi, mode, self_mode)
    hsps = _as_hsps(rows)
    if mode == kfilt.MODE_NOEXTEND and hsps.shape[0]:
        hsps["score"] = kfilt.score_segments(t, q, hsps["pos1"], hsps["pos2"], hsps["length"], table)
    if stats is not None:
        stats["raw_hits"] = stats.get("raw_hits", 0) + int(n_raw)
        stats["hsps"] = stats.get("hsps", 0) + int(hsps.shape[0])
    return hsps
