"""HSP chaining (``--chain``, ``C=1``/``C=2``): keep the best syntenic subset of HSPs.

Mirrors LASTZ ``chain.c`` ``try_reduce_to_chain`` (per-partition batches for
``[multiple]`` sequences) and the chaining step of ``lastz.c`` ``finish_one_strand``
(chain, then sort by target position).  The chaining itself is the numba kernel
``fastz.kernels.chain.reduce_to_chain``.
"""
from __future__ import annotations

import numpy as np

from ..kernels.chain import reduce_to_chain
from ..records import Sequence

#: LASTZ chainScale: segment scores are scaled by this before penalties are charged
CHAIN_SCALE = 100


def sort_by_pos1(hsps: np.ndarray) -> np.ndarray:
    """Stable sort as LASTZ ``qSegmentsByPos1``: pos1, length, pos2, score ascending."""
    order = np.lexsort((hsps["score"], hsps["pos2"], hsps["length"], hsps["pos1"]))
    return hsps[order]


def sort_by_pos2(hsps: np.ndarray) -> np.ndarray:
    """Stable sort as LASTZ ``qSegmentsByPos2``: pos2, length, pos1, score ascending."""
    order = np.lexsort((hsps["score"], hsps["pos1"], hsps["length"], hsps["pos2"]))
    return hsps[order]


def chain_segments(hsps: np.ndarray, diag_pen: int, anti_pen: int, aa: int,
                   scale: int = CHAIN_SCALE, double: bool = False) -> np.ndarray:
    """LASTZ ``reduce_to_chain`` on one batch: the chained HSPs, sorted by pos1
    (``double``: lastz_D's arithmetic, penalties and scores as doubles)."""
    if hsps.shape[0] == 0:
        return hsps.copy()
    hsps = sort_by_pos1(hsps)
    keep = reduce_to_chain(
        np.ascontiguousarray(hsps["pos1"], np.int64), np.ascontiguousarray(hsps["pos2"], np.int64),
        np.ascontiguousarray(hsps["length"], np.int64),
        np.ascontiguousarray(hsps["score"], np.float64 if double else np.int64),
        *((float(diag_pen), float(anti_pen)) if double else (int(diag_pen), int(anti_pen))),
        int(scale), float(aa) if double else int(aa), double)
    return hsps[keep]


def _batches(ends: np.ndarray, sep_after: np.ndarray) -> list[tuple[int, int]]:
    """LASTZ's batching walk: consecutive runs of segments (sorted) ending inside one
    partition; ``ends`` are the segments' exclusive ends along the partitioned axis."""
    out = []
    k, n = 0, ends.shape[0]
    for p_end in sep_after.tolist():
        if k >= n:
            break
        if p_end < ends[k]:
            continue
        start = k
        k += 1
        while k < n and p_end >= ends[k]:
            k += 1
        out.append((start, k))
    return out


def chain_hsps(hsps: np.ndarray, target: Sequence, query: Sequence, diag_pen: int,
               anti_pen: int, aa: int, double: bool = False) -> np.ndarray:
    """The HSPs of one strand reduced to the best chain, sorted by target position.

    Parameters
    ----------
    hsps : HSP_DTYPE array
        The strand's HSPs in discovery order.
    target, query : Sequence
        The target and the query strand; with partitions (``[multiple]``) each pair of
        partitions is chained separately, as LASTZ ``try_reduce_to_chain`` does.
    diag_pen, anti_pen : int
        ``--chain=G,P`` (0, 0 by default).
    aa : int
        ``sub[A][A]``, the per-base charge for overlapping segments.
    double : bool
        lastz_D's arithmetic (fastz_D).
    """
    if hsps.shape[0] == 0:
        return hsps.copy()
    tp, qp = target.partitions, query.partitions
    if tp is None and qp is None:
        kept = chain_segments(hsps, diag_pen, anti_pen, aa, double=double)
    else:
        kept = _chain_partitioned(hsps, tp, qp, diag_pen, anti_pen, aa, double)
    return sort_by_pos1(kept)


def _chain_partitioned(hsps, tp, qp, diag_pen, anti_pen, aa, double) -> np.ndarray:
    """try_reduce_to_chain with partitions: chain each batch, keep batches' chains only."""
    pieces = []
    if tp is not None:
        segs = sort_by_pos1(hsps)
        sep1 = (tp.offset + tp.length).astype(np.int64)
        for a, b in _batches(segs["pos1"] + segs["length"], sep1):
            batch = segs[a:b]
            if qp is None:
                pieces.append(chain_segments(batch, diag_pen, anti_pen, aa, double=double))
                continue
            batch = sort_by_pos2(batch)
            sep2 = (qp.offset + qp.length).astype(np.int64)
            for c, d in _batches(batch["pos2"] + batch["length"], sep2):
                pieces.append(chain_segments(batch[c:d], diag_pen, anti_pen, aa, double=double))
    else:
        segs = sort_by_pos2(hsps)
        sep2 = (qp.offset + qp.length).astype(np.int64)
        for a, b in _batches(segs["pos2"] + segs["length"], sep2):
            pieces.append(chain_segments(segs[a:b], diag_pen, anti_pen, aa, double=double))
    if not pieces:
        return np.zeros(0, hsps.dtype)
    return np.concatenate(pieces)


def chain_strand_hsps(hsps: np.ndarray, target: Sequence, query: Sequence, opts,
                      scores) -> np.ndarray:
    """``finish_one_strand``'s chaining step with the run's options.

    Seed hits from the plain processor (``--nogfextend --nogapped``) carry no score;
    LASTZ scores them (masked table) before chaining, as ``score_segments`` does.
    """
    from ..kernels import filtering as kfilt

    if hsps.shape[0] and not opts.gfextend and not opts.gapped:
        hsps = hsps.copy()
        hsps["score"] = kfilt.score_segments(
            np.ascontiguousarray(target.chars, np.uint8), np.ascontiguousarray(query.chars, np.uint8),
            np.ascontiguousarray(hsps["pos1"], np.int64), np.ascontiguousarray(hsps["pos2"], np.int64),
            np.ascontiguousarray(hsps["length"], np.int64), scores.masked)
    return chain_hsps(hsps, target, query, opts.chain_diag or 0, opts.chain_anti or 0,
                      scores.aa, opts.double_scores)
