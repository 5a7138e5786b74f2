"""``grow``: how every kernel enlarges a work array it fills; ``segment_rows``: the
table a seed search fills."""
import numpy as np
from numba import njit, types
from numba.extending import overload


@njit(cache=True)
def grow(a, need):
    """``a`` when it has ``need`` rows, else a copy of it with room for at least
    ``need`` rows (doubling, so appends cost O(1) amortised), the new rows zero
    (y-drop's mask rows compare stamps with them).

    Callers test for a full table before calling: a call per appended row, returning
    the array, cost two atomic reference-count updates (1.4 % of a one-worker E. coli
    run in the call alone), and ``inline="always"`` measured 5-7 % slower than the
    test at the call site (one E. coli strand's seed search)."""
    if need <= a.shape[0]:
        return a
    bigger = np.empty((max(need, 2 * a.shape[0]),) + a.shape[1:], a.dtype)
    bigger[:a.shape[0]] = a
    bigger[a.shape[0]:] = 0            # (each byte written once: seed-hit tables grow to 24 MB)
    return bigger


def segment_rows(table, n):
    """An (n, 4) table of segments (pos1, pos2, length, score) found with the score
    ``table``: int64, or float64 where the scores are fractional (lastz_D's scoring
    inference), so that a search compiled for a float table keeps each score whole."""
    return np.empty((n, 4), np.float64 if table.dtype.kind == "f" else np.int64)


def score_column(table, n):
    """``n`` scores found with ``table``: int64, or float64 for fractional scores."""
    return np.empty(n, np.float64 if table.dtype.kind == "f" else np.int64)


@overload(score_column)
def _score_column(table, n):
    dtype = np.float64 if isinstance(table.dtype, types.Float) else np.int64
    return lambda table, n: np.empty(n, dtype)


@overload(segment_rows)
def _segment_rows(table, n):
    dtype = np.float64 if isinstance(table.dtype, types.Float) else np.int64

    def impl(table, n):
        return np.empty((n, 4), dtype)
    return impl
