"""LASTZ's segment table with a coverage limit (adaptive ``--hspthresh=top...``).

Mirrors LASTZ ``segment.c`` ``add_segment`` (append below the limit; once the summed
length of the kept segments reaches the limit, sort into a min-heap by score and from
then on keep the heap, dropping whole groups of lowest-scoring segments while the rest
still covers the limit), ``remove_root``, ``record_tie_scores`` / ``record_tie_score``
(per node, the length covered by the equal-scoring sub-heap below it), and the entropy
step of ``seed_search.c`` ``xdrop_extend_seed_hit`` for adaptive thresholds (adjust only
scores that could enter the table as it stands).

The table is a set of parallel arrays plus ``state`` = [len, coverage, low_score,
hsp_id_counter]; the kernels return the arrays (they may grow).  The order of segments in
the arrays is LASTZ's table order, which is the output order of ``--nogapped``.

Scores are int64 keys: lastz's integer scores as they are, and lastz_D's doubles
(fastz_D) as ``score_keys``: an int64 that orders and ties exactly as the double does,
so the heap code is the same for both builds.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import cells
from .norefs import no_refcount

_entropy = no_refcount(cells.entropy)

WORST_POSSIBLE = -2147483648          # LASTZ worstPossibleScore (integer scores)
FLT_MAX = 3.4028234663852886e38       # lastz_D's worstPossibleScore is -FLT_MAX
S_LEN, S_COV, S_LOW = 0, 1, 2         # state slots
F_POS1, F_POS2, F_LEN, F_SCORE, F_ID, F_COV = 0, 1, 2, 3, 4, 5   # table columns


def score_keys(scores: np.ndarray) -> np.ndarray:
    """lastz_D's double scores as int64 keys in the same order (and ties): a double's
    bits read as an int64 order non-negative doubles; flipping all but the sign bit of
    a negative one reverses its order.  (-0.0 becomes 0.0 first: they are equal.)"""
    bits = (np.asarray(scores, np.float64) + 0.0).view(np.int64)
    return np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)


def key_scores(keys: np.ndarray) -> np.ndarray:
    """The doubles of ``score_keys`` (its inverse)."""
    keys = np.ascontiguousarray(keys, np.int64)
    return np.where(keys < 0, keys ^ np.int64(0x7FFFFFFFFFFFFFFF), keys).view(np.float64)


WORST_KEY = int(score_keys(np.array([-FLT_MAX]))[0])   # lastz_D's worstPossibleScore


@njit(cache=True)
def _key(x):
    """``score_keys`` of one double, in a kernel."""
    a = np.empty(1, np.float64)
    a[0] = x + 0.0
    b = a.view(np.int64)[0]
    return b ^ 0x7FFFFFFFFFFFFFFF if b < 0 else b


@njit(cache=True)
def _unkey(k):
    """``key_scores`` of one key, in a kernel."""
    a = np.empty(1, np.int64)
    a[0] = k ^ 0x7FFFFFFFFFFFFFFF if k < 0 else k
    return a.view(np.float64)[0]


def worst_score(double: bool) -> int:
    """The table's empty low score: lastz's worstPossibleScore, or lastz_D's as a key."""
    return WORST_KEY if double else WORST_POSSIBLE


def new_table(capacity: int = 100, double: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """An empty table: (segments int64[capacity, 6], state int64[3]); ``double``: its
    scores will be lastz_D's (keys)."""
    return (np.zeros((max(capacity, 1), 6), np.int64),
            np.array([0, 0, worst_score(double)], np.int64))


@no_refcount
def _tie(seg, n, ix):
    """LASTZ record_tie_score: refresh one node's equal-score coverage; changed?"""
    cov = seg[ix, F_LEN]
    lft = 2 * ix + 1
    if lft < n:
        if seg[lft, F_SCORE] == seg[ix, F_SCORE]:
            cov += seg[lft, F_COV]
        rgt = lft + 1
        if rgt < n:
            if seg[rgt, F_SCORE] == seg[ix, F_SCORE]:
                cov += seg[rgt, F_COV]
    if cov != seg[ix, F_COV]:
        seg[ix, F_COV] = cov
        return True
    return False


@njit(cache=True)
def _sort_increasing(seg, n):
    """qsort(qSegmentsByIncreasingScore) with glibc's stable merge sort:
    score, length, pos2, pos1, id ascending."""
    order = np.arange(n)
    for col in (F_ID, F_POS1, F_POS2, F_LEN, F_SCORE):
        vals = seg[order, col]
        order = order[np.argsort(vals, kind="mergesort")]
    seg[:n] = seg[order].copy()


@njit(cache=True)
def _remove_root(seg, state):
    """LASTZ remove_root: drop the heap minimum, keep heap and tie info."""
    n = state[S_LEN]
    state[S_COV] -= seg[0, F_LEN]
    if n <= 1:
        state[S_LEN] = 0
        return
    n -= 1
    state[S_LEN] = n
    detached = seg[n].copy()
    if n == 1:
        seg[0] = detached
        return
    ix = (n - 1) // 2
    while ix > 0:
        if not _tie(seg, n, ix):
            break
        ix = (ix - 1) // 2
    ix = 0
    while True:
        child = 2 * ix + 1
        if child >= n:
            break
        rgt = child + 1
        if rgt < n and seg[rgt, F_SCORE] < seg[child, F_SCORE]:
            child = rgt
        if detached[F_SCORE] <= seg[child, F_SCORE]:
            break
        seg[ix] = seg[child]
        ix = child
    seg[ix] = detached
    while ix > 0:
        _tie(seg, n, ix)
        ix = (ix - 1) // 2
    _tie(seg, n, 0)


@njit(cache=True)
def add_segment(seg, state, limit, pos1, pos2, length, s, sid):
    """LASTZ add_segment; returns the (possibly reallocated) segment array."""
    n = state[S_LEN]
    if limit != 0 and state[S_COV] >= limit and n > 0 and s < state[S_LOW]:
        return seg
    if n >= seg.shape[0]:
        bigger = np.zeros((seg.shape[0] + 100 + seg.shape[0] // 3, 6), np.int64)
        bigger[:n] = seg[:n]
        seg = bigger
    seg[n, F_POS1] = pos1
    seg[n, F_POS2] = pos2
    seg[n, F_LEN] = length
    seg[n, F_SCORE] = s
    seg[n, F_ID] = sid
    seg[n, F_COV] = length
    n += 1
    state[S_LEN] = n
    state[S_COV] += length
    if n == 1 or s < state[S_LOW]:
        state[S_LOW] = s
    if limit == 0 or state[S_COV] < limit:
        return seg
    if state[S_COV] - length < limit:
        # first time at the limit: sort into a heap, record tied-score coverage
        _sort_increasing(seg, n)
        for ix in range(n - 1, -1, -1):
            _tie(seg, n, ix)
    else:
        # percolate the new segment up
        tied = False
        ix = n - 1
        while ix > 0:
            p = (ix - 1) // 2
            if seg[ix, F_SCORE] >= seg[p, F_SCORE]:
                tied = seg[ix, F_SCORE] == seg[p, F_SCORE]
                break
            tmp = seg[ix].copy()
            seg[ix] = seg[p]
            seg[p] = tmp
            _tie(seg, n, ix)
            ix = p
        _tie(seg, n, ix)
        if tied:
            stopped = False
            ix = (ix - 1) // 2
            while ix > 0:
                if not _tie(seg, n, ix):
                    stopped = True
                    break
                ix = (ix - 1) // 2
            if not stopped:
                _tie(seg, n, 0)
    # prune whole groups of the lowest score while the rest still covers the limit
    if state[S_COV] - seg[0, F_COV] < limit:
        return seg
    while state[S_COV] - seg[0, F_COV] >= limit:
        low = seg[0, F_SCORE]
        while state[S_LEN] > 0 and seg[0, F_SCORE] == low:
            _remove_root(seg, state)
    state[S_LOW] = seg[0, F_SCORE]
    return seg


@njit(cache=True)
def collect_adaptive(seg, state, limit, t, q, rows, sid, entropy, image, double=False):
    """Add one strand's gap-free HSPs (discovery order, raw scores) to the table.

    Parameters
    ----------
    seg, state
        The table (``new_table``).
    limit : int
        Coverage limit in bases (LASTZ coverageLimit).
    t, q : uint8 arrays
        Target and query strand buffers (for the entropy factor).
    rows : int64[n, 4]
        pos1, pos2, length, score of each extended seed hit, no threshold applied.
    sid : int
        Strand id of these segments (LASTZ uses the query's revCompFlags).
    entropy : bool
        Entropy-adjust positive scores that could enter the table as it stands.
    image : bool[n]
        Rows that are the mirror image of the row before (``--self`` gap-free runs,
        ``mirror.mirror_images``): LASTZ's ``collect_hsps`` adds the image right after
        its HSP with the HSP's (adjusted) score.
    double : bool
        lastz_D: ``rows``' scores and the table's are ``score_keys``, and the entropy
        adjustment keeps its fraction (lastz truncates it).
    """
    s = 0
    for k in range(rows.shape[0]):
        if not image[k]:
            s = rows[k, 3]
            raw = _unkey(s) if double else float(s)
            if entropy and raw > 0 and state[S_LEN] > 0 and s >= state[S_LOW]:
                adjusted = raw * _entropy(t, q, rows[k, 0], rows[k, 1], rows[k, 2])
                s = _key(adjusted) if double else int(adjusted)
        seg = add_segment(seg, state, limit, rows[k, 0], rows[k, 1], rows[k, 2], s, sid)
    return seg


@njit(cache=True)
def choose_best(seg, state, n):
    """LASTZ choose_best_anchors (``--queryhspbest``): with more than ``n`` segments, sort
    them by qSegmentsByDecreasingScore (score down; then length, pos2, pos1, id up: a
    total order, so qsort's instability cannot show) and keep the ``n`` best plus every
    one tied with the n-th.  Coverage and low score are left as LASTZ leaves them."""
    m = state[S_LEN]
    if n <= 0 or m <= n:
        return
    order = np.arange(m)
    for col in (F_ID, F_POS1, F_POS2, F_LEN):
        vals = seg[order, col]
        order = order[np.argsort(vals, kind="mergesort")]
    vals = -seg[order, F_SCORE]
    order = order[np.argsort(vals, kind="mergesort")]
    seg[:m] = seg[order].copy()
    cutoff = seg[n - 1, F_SCORE]
    for ix in range(n, m):
        if seg[ix, F_SCORE] < cutoff:
            state[S_LEN] = ix
            return


@njit(cache=True)
def split_table(seg, state, sid, worst=WORST_POSSIBLE):
    """LASTZ split_segment_table: keep segments with id ``sid`` (in order, with their
    coverage and low score recomputed); return the others as a new limit-free table.
    ``worst``: ``worst_score`` (an empty table's low score)."""
    n = state[S_LEN]
    other = np.zeros((max(n, 1), 6), np.int64)
    ostate = np.array([0, 0, worst], np.int64)
    dst = 0
    cov = 0
    low = worst
    for src in range(n):
        if seg[src, F_ID] != sid:
            other = add_segment(other, ostate, 0, seg[src, F_POS1], seg[src, F_POS2],
                                seg[src, F_LEN], seg[src, F_SCORE], seg[src, F_ID])
            continue
        cov += seg[src, F_LEN]
        if dst == 0 or seg[src, F_SCORE] < low:
            low = seg[src, F_SCORE]
        if dst != src:
            seg[dst] = seg[src]
        dst += 1
    state[S_LEN] = dst
    state[S_COV] = cov
    state[S_LOW] = low
    return other, ostate
