"""Run query strands in worker processes; results come back in LASTZ's order.

The unit of work is one query strand: LASTZ shares nothing between strands
except the read-only target and its seed index (spec section 0), so strands are
independent and their outputs identical to a sequential run.  Where a query's two
strands do depend on each other (a shared HSP table, a per-query limit), the unit is
the query (``parallel_queries``).  Workers are
forked after the target, its index and the compiled kernels exist, so they
inherit all three (copy-on-write) instead of rebuilding or unpickling them;
only the query strand goes to a worker and only its alignments come back, with
their text already formatted where the output format allows it
(``Writer.strands_apart``).  Short strands (reads) travel in batches, so the
cost of a round trip to a worker is shared by many.
Results are written in submission order, with a bounded number in flight so
memory stays at a few query strands.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import threading
from collections import deque
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Iterator

import numpy as np

from ..errors import FastzError
from ..io.formats import NUMBER_MARK
from ..records import Alignments, Sequence, StrandResult, concat_buffers

_ALIGNER = None     # set in the parent before forking; inherited by the workers
_RENDER = None      # the writer the workers render strands with, or None (the parent does)
_BUSY = None        # strands being aligned now, counted across the workers (mp.Value)
_TOTAL = 1          # the number of workers

#: units sent to a worker together: up to this many query bases (a longer unit goes
#: alone) and this many units; a round trip costs about 0.3 ms, a 150 bp read's
#: strand about a tenth of that
BATCH_BASES = 1 << 16
BATCH_UNITS = 1024


def free_cores() -> int | None:
    """Threads a strand may use now: its share of the cores among the strands being
    aligned in all workers, rounded up so no core is left idle (None outside a worker
    process).  Asked again round by round (seed search) and window by window
    (speculative extension), so a strand that outlives the others takes their cores."""
    if _BUSY is None:
        return None
    return -(-_TOTAL // max(1, _BUSY.value))


def usable(threads: int, cores) -> int:
    """Threads to run now: ``cores()`` (e.g. ``free_cores``) when given and known, at
    most ``threads`` and at least one."""
    free = cores() if cores is not None else None
    return threads if free is None else max(1, min(threads, free))


#: Items each thread of ``map_in_threads`` takes per round, about: enough that a round's
#: set-up is noise, few enough that the thread count follows ``cores()`` closely
ROUND_ITEMS = 16


def map_in_threads(fn, items: list, threads: int, cores=None) -> list:
    """``[fn(x) for x in items]``, run in up to ``threads`` threads (``fn`` should spend
    most of its time in kernels that release the GIL).  The items go in rounds, each
    run by ``usable(threads, cores)`` threads that take the round's items one at a
    time, so a strand that outlives the others takes their cores round by round (as
    ``filtering.search_parts`` does).  An exception in ``fn`` reaches the caller once
    its round's other items are done; no later round starts."""
    if threads <= 1 or len(items) < 2:
        return [fn(x) for x in items]
    out = [None] * len(items)
    lock = threading.Lock()

    def lane(todo):
        while True:
            with lock:
                j = next(todo, None)
            if j is None:
                return
            out[j] = fn(items[j])

    with ThreadPoolExecutor(threads) as pool:
        first = 0
        while first < len(items):
            n = usable(threads, cores)
            end = min(len(items), first + n * ROUND_ITEMS)
            todo = iter(range(first, end))
            for fut in [pool.submit(lane, todo) for _ in range(n)]:
                fut.result()
            first = end
    return out


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


def resolve_workers(n: int) -> int:
    return available_cores() if n <= 0 else n


def batches(items, size) -> Iterator[list]:
    """Consecutive ``items`` grouped up to BATCH_BASES (by ``size(item)``) and
    BATCH_UNITS.  Where reading ``items`` fails (a bad record), the items read before
    it still come as a batch first, so their output precedes the error as it would
    unbatched."""
    batch, bases = [], 0
    items = iter(items)
    while True:
        try:
            item = next(items)
        except StopIteration:
            break
        except Exception:
            if batch:
                yield batch
            raise
        n = size(item)
        if batch and (bases + n > BATCH_BASES or len(batch) >= BATCH_UNITS):
            yield batch
            batch, bases = [], 0
        batch.append(item)
        bases += n
    if batch:
        yield batch


@contextmanager
def _busy():
    """A strand (or batch) is being aligned in this worker (``free_cores``)."""
    with _BUSY.get_lock():
        _BUSY.value += 1
    try:
        yield
    finally:
        with _BUSY.get_lock():
            _BUSY.value -= 1


def _align_units(units, threads: int):
    """(alignments, extra stats, text) of each (query strand, strand), and the
    run statistics they added."""
    with _busy():
        # formatting is a tenth of a strand's work in default mode: done here, in
        # parallel, it is not a serial tail in the parent
        out = [_sent(res) for res in _ALIGNER.strands(units, threads)]
    stats, _ALIGNER.stats = _ALIGNER.stats, {}
    return out, stats


def _align_chunk(chunk: bytes, first: int, threads: int):
    """``reads.align_chunk`` of a chunk of plain records: (the reporting strands as
    (number, query, strand, what ``_sent`` sends), strands, bases), and the run
    statistics they added."""
    from .reads import align_chunk
    with _busy():
        results, n, bases = align_chunk(_ALIGNER, chunk, first, threads)
        out = [(k, res.query, res.strand, *_sent(res)) for k, res in results]
        if _RENDER is not None and _RENDER.texts_merge:
            out = _merged_texts(out)
    stats, _ALIGNER.stats = _ALIGNER.stats, {}
    return (out, n, bases), stats


def _merged_texts(out: list) -> list:
    """``_align_chunk``'s results with each run of rendered ones that say nothing else
    joined into one (their alignment numbers counted on from the first's), with a
    query that has the last one's name and no bases: the parent then writes a run at
    a time (a result cost it 10 us, and the query's trip as much)."""
    merged: list = []
    texts: list = []
    numbered = count = 0

    def flush():
        if texts:
            k, query, strand, kind = texts[-1][:4]
            stub = Sequence(chars=np.zeros(0, np.uint8), name=query.name, header="",
                            filename=query.filename, contig=query.contig)
            merged.append((k, stub, strand, (kind, count),
                           {"numbered": numbered} if numbered else {},
                           "".join(t[4] for t in texts)))
            texts.clear()

    for item in out:
        k, query, strand, shipped, extra, text = item
        if text is None or isinstance(shipped, Alignments) or set(extra) - {"numbered"}:
            flush()
            merged.append(item)
            continue
        if not texts:                       # (a run starts)
            numbered = count = 0
        step = extra.get("numbered", 0)
        if step and numbered:
            parts = text.split(NUMBER_MARK)
            parts[1::2] = [str(int(m) + numbered) for m in parts[1::2]]
            text = NUMBER_MARK.join(parts)
        numbered += step
        count += shipped[1]
        texts.append((k, query, strand, shipped[0], text))
    flush()
    return merged


def _align_packed(packed, threads: int):
    """``_align_units`` of a batch that travelled packed (``pack_units``)."""
    return _align_units(unpack_units(packed), threads)


def pack_units(units: list) -> tuple | None:
    """A batch of short (query strand buffer, strand) units as a few arrays and lists,
    for the trip to a worker; None for a batch over BATCH_BASES (a long strand goes
    alone: packing would copy it once more) or with a unit that is partitioned or
    carries a chore (those travel as they are).  Pickling each Sequence, a dataclass
    around a numpy array, cost about 6 us a unit both ways, as much as a read's seed
    search."""
    seqs = [buf for buf, _ in units]
    if sum(len(s) for s in seqs) > BATCH_BASES or any(
            s.partitions is not None or s.chore is not None for s in seqs):
        return None
    cat, offsets = concat_buffers([s.chars for s in seqs])
    # (a query file's records all have qualities, FASTQ, or none do)
    quals = None if seqs[0].quals is None else concat_buffers([s.quals for s in seqs])[0]
    numbers = np.array([(s.contig, s.start, s.true_length, s.revcomp) for s in seqs],
                       np.int64).reshape(len(seqs), 4)
    return (cat, offsets, "".join(strand for _, strand in units),
            [s.name for s in seqs], [s.header for s in seqs], [s.filename for s in seqs],
            numbers, quals)


def unpack_units(packed: tuple) -> list:
    """The units ``pack_units`` packed (their buffers are views of one array)."""
    cat, offsets, strands, names, headers, filenames, numbers, quals = packed
    bounds = offsets.tolist()
    return [(Sequence(cat[a:b], name, header, filename, contig, start, true_length,
                      bool(revcomp), quals=None if quals is None else quals[a:b]), strand)
            for a, b, strand, name, header, filename, (contig, start, true_length, revcomp)
            in zip(bounds, bounds[1:], strands, names, headers, filenames,
                   numbers.tolist())]


def _sent(res: StrandResult) -> tuple:
    """What a worker sends back for a strand: (alignments, stats, text).  The text is
    rendered here where the format allows (``_RENDER``); the alignments travel as
    their arrays only when the parent formats them, else as (kind, count): most
    reads' strands have none, and pickling a rendered batch's arrays cost as much as
    its extension.  ``_result`` turns it back into a StrandResult."""
    text = _RENDER.render(res) if _RENDER is not None else None
    alns = res.alignments
    shipped = alns if text is None and len(alns) else (alns.kind, len(alns))
    return shipped, res.stats, text


def _result(query: Sequence, strand: str, shipped, stats: dict, text: str | None):
    """A strand's result, from what its worker sent (``_sent``)."""
    if isinstance(shipped, Alignments):
        return StrandResult(query, strand, shipped, stats, text)
    kind, count = shipped
    return StrandResult(query, strand, Alignments.empty(kind), stats, text, count)


def _merge_stats(into: dict, more: dict) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def parallel_results(aligner, units: Iterator[tuple[Sequence, str]],
                     workers: int) -> Iterator[StrandResult]:
    """Align ``units`` (query strand buffer, strand) in ``workers`` processes, in order."""
    # every strand may search and extend in as many threads as there are workers; it
    # uses its share of them (free_cores), so the last strand of a run, or the heavy
    # strand of a query whose other strand is light, gets every core
    jobs = ((batch, *_units_job(batch, workers))
            for batch in batches(units, lambda unit: len(unit[0])))
    for batch, (out, stats) in _pooled(aligner, jobs, workers):
        _merge_stats(aligner.stats, stats)
        for (query, strand), (shipped, extra, text) in zip(batch, out):
            yield _result(query, strand, shipped, extra, text)


def parallel_chunks(aligner, pieces, workers: int):
    """``reads.align_chunk``'s outcome for each (chunk, first record) of ``pieces``,
    in ``workers`` processes, in order."""
    aligner.present_keys            # (made once before the fork, shared by the workers' pages)
    jobs = ((None, _align_chunk, (chunk, first, workers)) for chunk, first in pieces)
    for _, ((out, n, bases), stats) in _pooled(aligner, jobs, workers):
        _merge_stats(aligner.stats, stats)
        yield [(k, _result(query, strand, shipped, extra, text))
               for k, query, strand, shipped, extra, text in out], n, bases


def _units_job(batch: list, workers: int) -> tuple:
    """(function, arguments) that align ``batch`` in a worker: packed where it can be."""
    packed = pack_units(batch)
    return (_align_units, (batch, workers)) if packed is None else \
        (_align_packed, (packed, workers))


def _query_units(work, queries):
    out = []
    for strands, bufs, sid in queries:
        res, notes = work(_ALIGNER, strands, bufs, sid)
        out.append(([(r.strand, *_sent(r)) for r in res], notes))
    stats, _ALIGNER.stats = _ALIGNER.stats, {}
    return out, stats


def parallel_queries(aligner, work, queries, workers: int):
    """``work(aligner, strands, bufs, sid) -> (results, notes)`` for each of ``queries``
    ((strands, strand buffers, strand ids) as ``Aligner.query_strands`` gives them) in
    ``workers`` processes; yields (results, notes) in query order.  For the modes where
    a query's strands depend on each other (a shared HSP table, a per-query limit)."""
    groups = batches(queries, lambda q: max((len(buf) for buf in q[1].values()), default=0))
    jobs = ((batch, _query_units, (work, batch)) for batch in groups)
    for batch, (out, stats) in _pooled(aligner, jobs, workers):
        _merge_stats(aligner.stats, stats)
        for (_strands, bufs, _sid), (parts, notes) in zip(batch, out):
            yield [_result(bufs[s], s, shipped, extra, text)
                   for s, shipped, extra, text in parts], notes


def _pooled(aligner, jobs, workers: int):
    """Run ``jobs`` ((context, function, args) triples) in ``workers`` forked processes;
    yields (context, result) in submission order, at most 2 x workers in flight."""
    global _ALIGNER, _BUSY, _TOTAL, _RENDER
    _ALIGNER = aligner
    if aligner.opts.gapped:
        aligner.padded_target()             # (made once, shared by the workers' pages)
    _RENDER = aligner.strand_renderer()
    ctx = mp.get_context("fork")
    _BUSY, _TOTAL = ctx.Value("i", 0), workers
    pending: deque = deque()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for context, fn, args in jobs:
                pending.append((context, pool.submit(fn, *args)))
                while len(pending) > 2 * workers:
                    context, fut = pending.popleft()
                    yield context, fut.result()
            while pending:
                context, fut = pending.popleft()
                yield context, fut.result()
    except BrokenProcessPool:
        raise FastzError("a worker process died unexpectedly (killed, or out of memory); "
                         "no output was completed") from None
    finally:
        _ALIGNER, _BUSY, _RENDER = None, None, None
