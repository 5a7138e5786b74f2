"""Run query strands in worker processes; results come back in LASTZ's order.

The unit of work is one query strand: LASTZ shares nothing between strands
except the read-only target and its seed index (spec section 0), so strands are
independent and their outputs identical to a sequential run.  Workers are
forked after the target, its index and the compiled kernels exist, so they
inherit all three (copy-on-write) instead of rebuilding or unpickling them;
only the query strand goes to a worker and only its alignments come back.
Results are written in submission order, with a bounded number in flight so
memory stays at a few query strands.
"""
from __future__ import annotations

import multiprocessing as mp
import os
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Iterator

from ..errors import FastzError
from ..records import Sequence, StrandResult

_ALIGNER = None     # set in the parent before forking; inherited by the workers


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


def resolve_workers(n: int) -> int:
    return available_cores() if n <= 0 else n


def _align_unit(query: Sequence, strand: str, threads: int):
    res = _ALIGNER.strand(query, strand, threads)
    stats, _ALIGNER.stats = _ALIGNER.stats, {}
    return res.alignments, stats, res.stats


def _merge_stats(into: dict, more: dict) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def parallel_results(aligner, units: Iterator[tuple[Sequence, str]],
                     workers: int) -> Iterator[StrandResult]:
    """Align ``units`` (query strand buffer, strand) in ``workers`` processes, in order."""
    global _ALIGNER
    _ALIGNER = aligner
    ctx = mp.get_context("fork")
    pending: deque = deque()
    ahead: deque = deque()
    units = iter(units)
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            while True:
                # look ahead so that the last few strands (or a single query's two
                # strands) share the cores: each then extends anchors in threads
                while len(ahead) < workers:
                    nxt = next(units, None)
                    if nxt is None:
                        break
                    ahead.append(nxt)
                if not ahead:
                    break
                query, strand = ahead.popleft()
                threads = max(1, workers // (len(ahead) + 1))
                pending.append((query, strand,
                                pool.submit(_align_unit, query, strand, threads)))
                while len(pending) > 2 * workers:
                    yield _collect(aligner, pending.popleft())
            while pending:
                yield _collect(aligner, pending.popleft())
    except BrokenProcessPool:
        raise FastzError("a worker process died unexpectedly (killed, or out of memory); "
                         "no output was completed") from None
    finally:
        _ALIGNER = None


def _collect(aligner, item) -> StrandResult:
    query, strand, fut = item
    alns, stats, extra = fut.result()
    _merge_stats(aligner.stats, stats)
    return StrandResult(query, strand, alns, extra)
