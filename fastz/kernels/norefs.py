"""``no_refcount``: ``numba.njit`` for small hot helpers, without reference counting.

A jitted function that takes arrays increments and decrements their reference counts
around its work, with atomic instructions; each one fences the memory accesses around
it, so a helper called per query window, per seed hit or per DP row in a loop that
waits on cache misses serialises those misses.  A short read's seed search took twice
as long, E. coli's 27 % longer (docs/benchmarks.md).  numba's ``_nrt=False`` leaves
the counting out.  A helper compiled so must allocate nothing and return no array
(nor a view of one), and call only helpers that do the same: an array it returned
would be freed early (``tests/test_filtering.py`` checks the return types).
"""
from numba import njit

no_refcount = njit(cache=True, nogil=True, _nrt=False)

__all__ = ["no_refcount"]
