"""Reads from a plain FASTA or FASTQ file, aligned a chunk of records at a time.

Where the query file is plainly FASTA or FASTQ (``io.plainreads``) and its strands are
independent (``Aligner.batch_search``), the parent neither reads the records nor
sees the strands that report nothing: it cuts the file into chunks of whole records
and sends each chunk's bytes to a worker, which makes the chunk's strand buffers in
one kernel call, searches them in another (``Aligner.search_batch``) and makes
Sequence objects only for the strands with HSPs (most reads' strands have none),
which then go the way a batch of units does (``Aligner.finish_batch``).  The strands
that report come back in LASTZ's order; the output is the same as the record-by-
record reading's (tests/test_plainreads.py).
"""
from __future__ import annotations

from typing import Iterator

from ..io.plainreads import (PlainReads, StreamedReads, record_names, record_sequence,
                             scan, strand_buffers, strand_quals)
from ..io.sequences import query_specifier
from ..io.specifiers import SeqSpec
from ..records import StrandResult


def plain_reads(aligner) -> PlainReads | StreamedReads | None:
    """The query file as PlainReads where ``aligner``'s run can take it in bulk: a
    rereadable plain FASTA or FASTQ file named with no action ([...]) or redirected to
    stdin, strands searched in batches, and nothing said per record or strand on
    stderr (--progress, --verbosity); a piped file (stdin too) as StreamedReads
    (opened: the run must read it then); else None."""
    from ..io.sequences import piped, read_once, rereadable, stdin_file
    o = aligner.opts
    if (not aligner.batch_search or aligner.progress is not None
            or (o.extra or {}).get("verbosity", 0) >= 1):
        return None
    spec = query_specifier(o.query)
    if spec != SeqSpec(spec=spec.spec, path=spec.path):
        return None
    iupac = bool(getattr(o, "ambiguous_iupac", False))
    if piped(o.query) and not _prints_query_quals(o):
        # (with quals2, whether it is FASTQ would be known only once read)
        return StreamedReads(read_once(o.query), spec.path, iupac)
    path = stdin_file() if o.query is None else spec.path if rereadable(o.query) else None
    if path is None:
        return None
    plain = scan(path, iupac)
    if plain is not None and plain.kind != "fastq" and _prints_query_quals(o):
        return None         # (LASTZ refuses the first query; a FASTA read reports nothing)
    return plain


def _prints_query_quals(opts) -> bool:
    """Whether the output format prints the query's qualities as a whole (general's
    quals2, which a query without them is refused for)."""
    from ..io.formats import parse_format
    spec = parse_format(opts.format or "lav", tuple(opts.format_fields or ()))
    return spec.family == "genpaf" and "q" in spec.keys


def align_chunk(aligner, chunk: bytes, first: int, threads: int = 1
                ) -> tuple[list[tuple[int, StrandResult]], int, int]:
    """The strands of a chunk of plain records (the first being record ``first`` of
    the file) that report something, as (strand number in the chunk, result), in
    order; then the chunk's strands and query bases.  A strand reports where it has
    alignments (or HSPs, without gapped extension) or something to say on stderr.
    Those with HSPs or a seed-hit queue shortfall, or that may hold a trivial
    self-alignment, are made Sequence objects and aligned."""
    from . import _strands
    o = aligner.opts
    strands = _strands(o)
    per = len(strands)
    kind = aligner.plain_reads.kind
    heads, quals, cat, offsets = strand_buffers(chunk, strands, kind)
    found, shortfall = aligner.search_batch(cat, offsets)
    lengths = offsets[1:] - offsets[:-1]
    picked = set(shortfall)
    picked.update(k for k, hsps in enumerate(found) if hsps.shape[0])
    if o.gapped:
        trivial = aligner.trivial_lengths
        picked.update(k for k, n in enumerate(lengths.tolist()) if n in trivial)
    picked = sorted(picked)
    spec = query_specifier(o.query)
    keep_arrow = (o.extra or {}).get("laj") is not False     # (as sequences reads it)
    units = [(record_sequence(cat[offsets[k]:offsets[k + 1]], first + k // per, spec.path),
              strands[k % per]) for k in picked]
    results = aligner.finish_batch(units, [found[k] for k in picked],
                                   {i: shortfall[k] for i, k in enumerate(picked)
                                    if k in shortfall}, threads)
    # a strand whose HSPs led to no alignment, with nothing to say, writes nothing
    # (most of them); those that do are named now, and given their qualities
    reported = [(k, res) for k, res in zip(picked, results) if res.stats or res.n_alignments()]
    for k, res in reported:
        r = k // per
        res.query.name, res.query.header = record_names(chunk[heads[r, 0]:heads[r, 1]],
                                                        first + r, spec, keep_arrow, kind)
        res.query.quals = strand_quals(chunk, quals, r, res.strand)
    return reported, len(lengths), int(lengths.sum()) // per


def packed_results(aligner, plain: PlainReads, workers: int) -> Iterator[StrandResult]:
    """Every query strand that reports something, in LASTZ's order, from the chunks of
    ``plain`` aligned in ``workers`` processes (here where the work is too small to
    fork for, as ``Aligner._read_ahead`` decides).  A chunk's first result carries the
    strands passed over in the chunks since the last result (``stats["unreported"]``:
    strands, bases) for the progress display."""
    from . import _strands
    from .parallel import BATCH_BASES, BATCH_UNITS, parallel_chunks
    per = len(_strands(aligner.opts))
    pieces = plain.pieces(max(1, BATCH_BASES // per), max(1, BATCH_UNITS // per))
    if workers > 1 and (plain.bases is None or not aligner.small_work(plain.bases)):
        outcomes = parallel_chunks(aligner, pieces, workers)
    else:
        outcomes = (align_chunk(aligner, chunk, first) for chunk, first in pieces)
    carry = (0, 0)
    for results, n, n_bases in outcomes:
        if results:
            results[0][1].stats["unreported"] = carry
            carry = (0, 0)
        reported = sum(len(res.query) for _, res in results if res.strand == "+")
        carry = (carry[0] + n - len(results), carry[1] + n_bases - reported)
        for _, res in results:
            yield res
    if plain.rest is not None:
        # a piped file not plain from here on: the rest is read record by record
        from ..io.sequences import resumed_queries
        head, stream, contig = plain.rest
        queries = resumed_queries(aligner.opts.query, aligner.opts, head, stream, contig,
                                  plain.kind)
        yield from aligner.unit_results(aligner.units(queries), workers)
