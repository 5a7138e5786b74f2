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

The other processors and extenders (``--twins``, ``--recoverseeds``, the seed-hit
``--filter``, ``--exact``, ``--mismatch``) run in ``fastz.kernels.hitproc``, chosen by a
``HitProcessor`` (``hit_processor(opts)``; None keeps the default kernel).  With
``--twins`` / ``--recoverseeds`` overlapping HSPs are then merged (``merge_segments``), and
segments without substitution scores are scored before chaining or gapped extension, as
LASTZ ``finish_one_strand`` does.
"""
from __future__ import annotations

import math
import sys
import threading
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..errors import OptionsError
from ..kernels import cells
from ..kernels import filtering as kfilt
from ..kernels import hitproc as khit
from ..kernels import seeding as kseed
from ..records import HSP_DOUBLE_DTYPE, HSP_DTYPE
from ..records import strand_length as _strand_length
from .parallel import free_cores, usable
from .seeding import SeedIndex, parse_seed

#: LASTZ ``defaultSeedHitQueueSize``
DEFAULT_SEED_QUEUE = 256 * 1024

#: the searches' window (t_lo, t_hi, q_lo, q_hi) when there is no chore: every seed hit
FULL_WINDOW = (0, kfilt.NO_LIMIT, 0, kfilt.NO_LIMIT)

#: LASTZ ``nuc_to_bits``: ACGT in either case -> 0..3, everything else -1
NUC_BITS = np.full(256, -1, np.int8)
for _i, _ch in enumerate("ACGT"):
    NUC_BITS[ord(_ch)] = NUC_BITS[ord(_ch.lower())] = _i
del _i, _ch


@dataclass(frozen=True)
class HitProcessor:
    """A seed-hit processor other than the default (LASTZ ``set_up_hit_processor``)."""

    proc: int                    # kernels.hitproc.PROC_*
    ext: int                     # kernels.hitproc.EXT_*
    mismatches: int = 0          # M of --mismatch
    min_matches: int = -1        # --filter (< 0: off)
    max_transversions: int = -1  # (< 0: no limit)
    cares_only: bool = False     # --filter=cares:
    twin_min: int = 0            # --twins spans: 2 * seed length + gap
    twin_max: int = 0
    queue_size: int = DEFAULT_SEED_QUEUE
    merge: bool = False          # twins / recover: overlapping segments merged
    rescore: bool = False        # score-less segments scored (gapped extension or chaining)
    defer: bool = False          # --self --nogapped: merge/rescore after mirroring


def hit_processor(opts) -> HitProcessor | None:
    """The run's seed-hit processor, or None for the default kernel.

    Checks what LASTZ checks when it sets the twins up (``parse_options``).
    """
    extra = opts.extra or {}
    twins = opts.twins_max is not None
    seed_len = parse_seed(opts.seed, opts.word).length
    if twins:
        lo = 0 if opts.twins_min is None else int(opts.twins_min)
        hi = int(opts.twins_max)
        if extra.get("rawhits"):
            raise OptionsError("--rawhits can't be used with --twins")
        if lo <= -seed_len:
            raise OptionsError(f"minGap for twins ({lo}) must be greater than negative of "
                               f"seed length ({-seed_len})")
        if hi < lo:
            raise OptionsError(f"maxGap for twins ({hi}) can't be less than min gap ({lo})")
    queue = DEFAULT_SEED_QUEUE
    if "seedqueue" in extra:
        from ..scoring import string_to_int
        queue = string_to_int(str(extra["seedqueue"]))
        if queue < 0:
            raise OptionsError("--seedqueue can't be negative")
        if queue == 0 and twins:
            raise OptionsError("--twins needs a seed hit queue (--seedqueue=0 given)")
    if opts.mismatch is not None:
        ext, mismatches = khit.EXT_MISMATCH, int(opts.mismatch[0])
    elif opts.exact is not None:
        ext, mismatches = khit.EXT_EXACT, 0
    elif opts.gfextend:
        ext, mismatches = khit.EXT_XDROP, 0
    else:
        ext, mismatches = khit.EXT_NONE, 0
    if twins:
        proc = khit.PROC_TWIN
    elif ext == khit.EXT_NONE and not opts.gapped:
        proc = khit.PROC_PLAIN
    elif opts.recover_seeds:
        proc = khit.PROC_RECOVER
    else:
        proc = khit.PROC_SIMPLE
    filt = opts.seed_filter_matches is not None and opts.seed_filter_matches >= 0
    if (proc in (khit.PROC_PLAIN, khit.PROC_SIMPLE) and ext in (khit.EXT_XDROP, khit.EXT_NONE)
            and not filt):
        return None
    merge = proc in (khit.PROC_TWIN, khit.PROC_RECOVER)
    rescore = ext != khit.EXT_XDROP and (opts.gapped or opts.chain)
    mirror = opts.mirrors_hsps
    twin_min = twin_max = 0
    if twins:
        twin_min = 2 * seed_len + (0 if opts.twins_min is None else int(opts.twins_min))
        twin_max = 2 * seed_len + int(opts.twins_max)
    return HitProcessor(
        proc=proc, ext=ext, mismatches=mismatches,
        min_matches=int(opts.seed_filter_matches) if filt else -1,
        max_transversions=(-1 if opts.seed_filter_transversions is None
                           else int(opts.seed_filter_transversions)),
        cares_only=bool(opts.seed_filter_cares_only), twin_min=twin_min, twin_max=twin_max,
        queue_size=queue, merge=merge, rescore=rescore, defer=mirror and (merge or rescore))


def default_processor(gfextend: bool, gapped: bool) -> HitProcessor:
    """The general kernel's processor that does what the default kernel does (LASTZ's
    simple hit processor with the x-drop extender, or none with --nogfextend)."""
    ext = khit.EXT_XDROP if gfextend else khit.EXT_NONE
    return HitProcessor(proc=khit.PROC_PLAIN if not gfextend and not gapped else khit.PROC_SIMPLE,
                        ext=ext, rescore=ext == khit.EXT_NONE and gapped)


def _as_hsps(rows: np.ndarray) -> np.ndarray:
    """A kernel's (n, 4) int64 rows as HSP_DTYPE records (the same bytes, no copy)."""
    return np.ascontiguousarray(rows, np.int64).view(HSP_DTYPE)[:, 0]


def double_hsps(hsps: np.ndarray, t: np.ndarray, q: np.ndarray, table: np.ndarray,
                hspthresh, entropy: bool) -> np.ndarray:
    """lastz_D's x-drop HSPs from the kernels' (found with the threshold rounded down):
    HSP_DOUBLE_DTYPE rows whose scores keep their entropy adjustment's fraction, and
    only those scoring at least ``hspthresh``.  Whether an HSP passes cannot change the
    search itself (the diagonal hash is updated either way, as in LASTZ)."""
    out = _double_scored(hsps, t, q, table, hspthresh, entropy)
    return out[out["score"] >= hspthresh]


def _double_scored(hsps, t, q, table, hspthresh, entropy: bool) -> np.ndarray:
    """``hsps`` as HSP_DOUBLE_DTYPE, scored as lastz_D scores them (``double_hsps``)."""
    out = np.empty(hsps.shape[0], HSP_DOUBLE_DTYPE)
    for name in ("pos1", "pos2", "length"):
        out[name] = hsps[name]
    ent = (max(0.0, float(hspthresh)), 3.0 * hspthresh) if entropy else (1.0, 0.0)
    out["score"] = kfilt.double_hsp_scores(
        t, q, out["pos1"].copy(), out["pos2"].copy(), out["length"].copy(), table,
        float(ent[0]), float(ent[1]))
    return out


def _counted_search(search, stop_after: int, exact, kthresh, t, q, table):
    """``search(stop_after)`` (a kernel's search, see ``stopped_search``); where fastz_D's
    ``exact`` threshold (``double_hsps``) has a fraction the kernel's ``kthresh`` rounded
    down, the kernel counts HSPs lastz_D drops, so the stop goes through
    ``stopped_search``."""
    if stop_after < 0 or exact is None or exact[0] == kthresh:
        return search(stop_after)
    return stopped_search(stop_after, search, lambda rows: np.flatnonzero(
        _double_scored(_as_hsps(rows), t, q, table, *exact)["score"] >= exact[0]))


def stopped_search(stop_after: int, search, kept):
    """A seed search that stops after the query position where its count of HSPs
    passes ``stop_after`` (``--queryhsplimit``, ``--anyornone``, ``--stopafter``), where
    lastz_D counts HSPs after a step the kernels cannot see, which drops some: its
    entropy adjustment in doubles, a fractional threshold.

    ``search(stop)``: the kernel's search stopped past ``stop`` of its rows, as a tuple
    whose first item is the rows; ``kept(rows)``: the indices of the rows that step
    keeps.  The search runs to a count of the kernel's rows, again further (the reach
    doubled) while the rows kept have not passed ``stop_after``, and once they have,
    once more only to the query position of the row that passes it (the rows before a
    stop never depend on it).  Returns that last search's tuple."""
    reach = stop_after
    while True:
        found = search(reach)
        k = kept(found[0])
        if k.shape[0] > stop_after:
            return search(int(k[stop_after]))
        if found[0].shape[0] <= reach:       # the whole strand was searched
            return found
        reach = 2 * reach + 1


def refuse_one_base_seed(spec) -> None:
    """LASTZ builds a table for a seed of one base (``--seed=1``, ``match1``, ``T``)
    but its seed search fails on the first query strand it searches."""
    if spec.length < 2:
        raise OptionsError(f"seed length must be at least two (yours is {spec.length})")


def find_hsps(index: SeedIndex, target_chars: np.ndarray, query_chars: np.ndarray,
              seed: str | None = None, transition: int = 1, masked_sub: np.ndarray | None = None,
              xdrop: int = 910, hspthresh: int = 3000, entropy: bool = True,
              gfextend: bool = True, gapped: bool = True, stats: dict | None = None,
              self_strand: str | None = None,
              processor: HitProcessor | None = None, backend: str = "cpu",
              stop_after: int = -1, threads: int = 1,
              window: tuple[int, int, int, int] | None = None,
              double: bool = False, say=None, cores=None,
              entropy_failures: list | None = None) -> np.ndarray:
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
    processor : HitProcessor, optional
        A non-default hit processor (``hit_processor(opts)``); then ``gfextend`` and
        ``gapped`` are not used.  Segments are merged and rescored as it says, unless
        ``processor.defer`` (call ``finish_hsps`` after mirroring).
    backend : {"cpu", "gpu", "twin"}
        "gpu" runs LASTZ's default hit processors on the device
        (``fastz.pipeline.gpu_seeding``; "twin" with the kernels' CPU twins); the
        other processors stay on the CPU.  The result is the same.
    stop_after : int
        ``--queryhsplimit`` with keep: stop the search after the first query position
        where more than this many HSPs were found (-1: search the whole strand; the
        search then runs on the CPU).
    threads : int
        Threads the default processors' CPU search may use on a long query strand
        (``search_parts``); the result is the same.
    cores : callable, optional
        ``cores()``: how many of those threads may run now, asked again for each round
        of the search in parts; default ``parallel.free_cores`` (the strand's share of
        the workers' cores; all ``threads`` outside a worker), as the speculative
        extension asks it.
    window : (t_lo, t_hi, q_lo, q_hi), optional
        ``--chores``: only the seed hits lying wholly in target ``[t_lo, t_hi)`` and
        query ``[q_lo, q_hi)`` (strand buffer positions) are processed; their HSPs may
        reach beyond unless the caller fenced the intervals (``io.chores.fenced``, as
        ``Aligner.find_hsps`` does).  The search then runs on the CPU (a chore is
        small).
    double : bool
        lastz_D's scores (fastz_D): x-drop HSPs come back as HSP_DOUBLE_DTYPE, their
        entropy adjustment not truncated; ``hspthresh`` may then have a fraction.
    say : callable, optional
        ``say(pos1, pos2)``: the seed-hit queue overflowed (``--twins``); default:
        LASTZ's warning on stderr, once per process.
    entropy_failures : SearchReport, optional
        ``--entropy=report`` (integer scores): receives LASTZ's line for each HSP the
        entropy adjustment takes below the threshold, in search order, and a seed-hit
        queue shortfall among them as (pos1, pos2) in place of telling ``say``, each
        with the HSPs found before it (the search then runs on the CPU, in one
        thread).

    Returns
    -------
    HSP_DTYPE array; ``pos1``/``pos2`` are segment starts in the two buffers.
    """
    spec = index.spec
    refuse_one_base_seed(spec)
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
    trans = 0 if spec.halfweight else int(transition)
    self_mode = {None: 0, "+": 1, "-": 2}[self_strand]
    if self_mode == 2 and ((t.shape[0] and t[0] == 0) or (q.shape[0] and q[0] == 0)):
        # opposite strands of a partitioned sequence (--self on [multiple]): the
        # diagonal test needs the partitions, which only the general kernel takes
        self_mode = 3
        if processor is None:
            processor = default_processor(gfextend, gapped)
    part_tables = _partition_tables(t, q) if self_mode == 3 else None
    lims = FULL_WINDOW if window is None else tuple(int(v) for v in window)
    if masked_sub.dtype.kind == "f":
        # lastz_D's fractional scores (fastz_D --infer, a scores file with fractions)
        if processor is None and not gfextend:
            processor = default_processor(gfextend, gapped)
        hsps = fractional_hsps(index, t, q, kseed.char_codes(q), masked_sub, trans, xdrop,
                               hspthresh, entropy, processor, self_mode, part_tables, lims,
                               stop_after)
        if processor is not None and not processor.defer:
            hsps = finish_hsps(hsps, t, q, masked_sub, processor)
        if stats is not None:
            stats["hsps"] = stats.get("hsps", 0) + int(hsps.shape[0])
        return hsps
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
    # (a fractional threshold (fastz_D) is rounded down for the kernels, which keep a
    # superset of the HSPs; double_hsps then applies it exactly)
    kthresh = math.floor(hspthresh)
    if entropy and gfextend:
        ent_lo, ent_hi = max(0, kthresh), 3 * kthresh
    else:
        ent_lo, ent_hi = 1, 0
    # x-drop HSPs: fastz_D's threshold and entropy for double_hsps
    extended = processor.ext == khit.EXT_XDROP if processor is not None \
        else mode == kfilt.MODE_XDROP
    exact = (hspthresh, entropy) if double and extended else None
    if processor is not None:
        return _general_hsps(index, t, q, len1, len2, table, trans, self_mode, int(xdrop),
                             kthresh, entropy, processor, stats, part_tables, stop_after,
                             lims, exact, say, entropy_failures)
    if len2 < spec.length:
        rows = np.zeros((0, 4), np.int64)
        n_raw = 0
    else:
        qcodes = kseed.char_codes(q)
        report = entropy_failures is not None and mode == kfilt.MODE_XDROP
        if backend in ("gpu", "twin") and stop_after < 0 and window is None and not report:
            from ..kernels import device
            from .gpu_seeding import search_strand_device
            engine = "twin" if backend == "twin" or device.twin() else "gpu"
            with device.device_errors():
                rows, n_raw = search_strand_device(
                    index, t, q, qcodes, len1, len2, table, int(xdrop), kthresh,
                    ent_lo, ent_hi, mode, self_mode, trans, engine=engine, stats=stats)
        else:
            args = (index.dir_, index.low, index.pos, index.low_bits,
                    spec.length, spec.care_off, spec.care_bits, spec.flips, spec.resolve_off,
                    trans, t, q, qcodes, len1, len2,
                    table, int(xdrop), kthresh, ent_lo, ent_hi, mode)
            if threads > 1 and stop_after < 0 and len2 >= PARTS_MIN_QUERY and not report:
                rows, n_raw, parts = search_parts(args, len2, self_mode, threads, lims,
                                                  cores or free_cores)
                if stats is not None:
                    stats["seed_parts"] = stats.get("seed_parts", 0) + parts
            else:
                def search(stop):
                    return kfilt.search_strand(*args, kfilt.diag_hash(len2), self_mode,
                                               stop, kfilt.BLOCK_HITS, *lims, int(report))
                rows, n_raw = _counted_search(search, stop_after, exact, kthresh, t, q,
                                              table)
                if report:
                    rows = _entropy_failures(rows, t, q, table, entropy_failures,
                                             double=exact is not None)
    hsps = _as_hsps(rows)
    if exact is not None:
        hsps = double_hsps(hsps, t, q, table, *exact)
    if mode == kfilt.MODE_NOEXTEND and hsps.shape[0]:
        hsps["score"] = kfilt.score_segments(t, q, hsps["pos1"], hsps["pos2"], hsps["length"], table)
    if stats is not None:
        stats["raw_hits"] = stats.get("raw_hits", 0) + int(n_raw)
        stats["hsps"] = stats.get("hsps", 0) + int(hsps.shape[0])
    return hsps


#: Query strands shorter than this are searched in one thread (a part's thread and its
#: walk over every hit cost more than they save)
PARTS_MIN_QUERY = 1 << 20


def search_parts(args, len2: int, self_mode: int, threads: int,
                 window=FULL_WINDOW, cores=None):
    """``kernels.filtering.search_strand(*args, ...)`` in up to ``threads`` threads at
    once (``len2``: the query strand's length, which sizes the diagonal hash;
    ``window``: ``search_strand``'s t_lo, t_hi, q_lo, q_hi; ``cores()``, when given,
    says how many threads may run now, as in ``speculate.extend_anchors_parallel``).

    A hit's fate depends only on the hits of its diagonal-hash bucket before it, so
    the buckets are cut into ranges, one a thread, that share the hash without
    sharing a bucket.  The strand is searched in rounds, each with as many threads as
    ``cores()`` allows then (a strand that outlives the others takes their cores):
    the threads first enumerate one block of query positions each
    (``enumerate_hits``, the seed look-ups, grouped by range), then process one range
    each over the round's blocks in order (``process_hits``, the x-drop extensions).
    A round's rows, tagged with their query end and rank there, are merged back into
    discovery order.  Returns (rows, n_raw, most threads a round used).
    """
    from concurrent.futures import ThreadPoolExecutor
    (dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips, resolve_off, trans,
     t, q, qcodes, len1, _, table, xdrop, hspthresh, ent_lo, ent_hi, mode) = args
    t_lo, t_hi, q_lo, q_hi = window
    start, end = max(0, q_lo + seed_len - 1), min(len2, q_hi)     # as search_strand
    step = BLOCK_POSITIONS
    diag_end = kfilt.diag_hash(len2)
    found, n_raw, most = [], 0, 1

    # each block of a round gathers its hits in buffers of its own, kept for the
    # same block of the next rounds (the round's hits are processed by then)
    buffers = []

    def enumerate_block(k, first, parts):
        found, bounds, stop, *buffers[k] = kfilt.enumerate_hits(
            dir_, low, pos, low_bits, seed_len, care_off, care_bits, flips, resolve_off,
            trans, t, q, qcodes, len2, self_mode, first, min(first + step, end), parts,
            kfilt.BLOCK_HITS, t_lo, t_hi, *buffers[k])
        return found, bounds, stop

    def process_range(part, blocks):
        out, n, raw = np.empty((1024, 6), np.int64), 0, 0
        for hits, bounds, _ in blocks:
            out, n, got, _ = kfilt.process_hits(
                hits, bounds[part], bounds[part + 1], t, q, len1, len2, seed_len, table,
                xdrop, hspthresh, ent_lo, ent_hi, mode, diag_end, -1, out, n)
            raw += got
        return out[:n], raw

    first = start
    with ThreadPoolExecutor(threads) as pool:      # the kernels release the GIL
        while first < end:
            parts = usable(threads, cores)
            most = max(most, parts)
            firsts = range(first, end, step)[:parts]
            buffers.extend((kfilt.new_hits(), kfilt.new_hits())
                           for _ in range(len(firsts) - len(buffers)))
            blocks = list(pool.map(enumerate_block, range(len(firsts)), firsts,
                                   [parts] * len(firsts)))
            # a block that stopped early (its hits filled a batch) ends the round: the
            # blocks after it are enumerated again next round, from where it stopped
            # (with smaller blocks)
            used = next((k for k, b in enumerate(blocks)
                         if b[2] < min(first + (k + 1) * step, end)), len(blocks) - 1)
            blocks = blocks[:used + 1]
            done = list(pool.map(process_range, range(parts), [blocks] * parts))
            rows = np.concatenate([r for r, _ in done])
            if parts > 1:
                rows = rows[np.lexsort((rows[:, 5], rows[:, 4]))]
            found.append(rows[:, :4])
            n_raw += sum(raw for _, raw in done)
            # the next blocks hold about half a batch of hits at this round's density,
            # so few stop early (each stop wastes the blocks enumerated after it)
            held = sum(b[0].shape[0] for b in blocks)
            covered = blocks[-1][2] - first
            step = BLOCK_POSITIONS if held == 0 else min(
                BLOCK_POSITIONS, max(1024, kfilt.BLOCK_HITS * covered // (2 * held)))
            first = blocks[-1][2]
    rows = np.concatenate(found) if found else np.zeros((0, 4), np.int64)
    return rows, n_raw, most


#: Query positions of one thread's block in ``search_parts`` (about 350,000 seed hits
#: of the default seed on bacterial genomes), at most: where the hits are denser, the
#: blocks shrink to hold about half of ``kernels.filtering.BLOCK_HITS``
BLOCK_POSITIONS = 1 << 16


_SHORTFALL_REPORTED = False


def _partition_tables(t: np.ndarray, q: np.ndarray):
    """(target offsets, query offsets, query lengths) of the pieces of NUL-separated
    buffers (``records.Partitions`` layout: a NUL before, between and after them)."""
    def pieces(chars):
        nul = np.flatnonzero(chars == 0).astype(np.int64)
        return nul[:-1] + 1, np.diff(nul) - 1
    off1, _ = pieces(t)
    off2, len2 = pieces(q)
    return off1, off2, len2


_SCRATCH = threading.local()


def _diag_tables():
    """This thread's diagonal tables for ``search_strand_general`` (which leaves them
    zeroed): made once, not per query strand."""
    tables = getattr(_SCRATCH, "tables", None)
    if tables is None:
        blocks = kfilt.DIAG_HASH_SIZE // 16
        tables = (np.zeros(kfilt.DIAG_HASH_SIZE, np.int64),
                  np.zeros(kfilt.DIAG_HASH_SIZE, np.int64),
                  np.zeros(blocks, np.uint8), np.zeros(blocks, np.int64))
        _SCRATCH.tables = tables
    return tables


def _general_setup(spec, hp: HitProcessor, hspthresh: int, entropy: bool):
    """(entropy bounds, care flags) ``kernels.hitproc``'s searches take for ``hp``."""
    if hp.ext == khit.EXT_XDROP and entropy:
        ent = (max(0, hspthresh), 3 * hspthresh)
    else:
        ent = (1, 0)
    care = (np.frombuffer(spec.pattern.encode(), np.uint8) != ord("0")).astype(np.uint8) \
        if hp.cares_only else np.zeros(0, np.uint8)
    return ent, care


class SearchReport(list):
    """What seed searches say on stderr as they go, in order: ``--entropy=report``
    lines, a seed-hit queue shortfall as (pos1, pos2) (``say_report`` says them); and
    ``at``, for each item, the HSPs its search had found before it (for the modes that
    extend each HSP as it is found, whose reports fall between: ``immediate``)."""

    def __init__(self):
        super().__init__()
        self.at: list = []

    def add(self, items, at) -> None:
        self.extend(items)
        self.at.extend(at)


def _entropy_failures(rows: np.ndarray, t: np.ndarray, q: np.ndarray, table: np.ndarray,
                      lines: SearchReport, shortfall=None,
                      double: bool = False) -> np.ndarray:
    """The search's rows without those ``process_hits`` marked as failed by the entropy
    adjustment, for which LASTZ's ``--entropy=report`` lines are added to ``lines``
    (with ``shortfall``, (pos1, pos2, rows before it), among them where it happened;
    ``double``: lastz_D's, its scores printed as doubles)."""
    failed = rows[:, 2] < 0
    fails = rows[failed]
    length = -1 - fails[:, 2]
    scores = kfilt.score_segments(t, q, fails[:, 0], fails[:, 1], length, table)
    items = []
    for (pos1, pos2, _, block), n, score in zip(fails.tolist(), length.tolist(),
                                               scores.tolist()):
        factor = cells.entropy(t, q, pos1, pos2, n)
        said = f"{score:f}" if double else score
        items.append(f"hit of score {said} at {pos1}/{pos2}#{n} (diag {pos1 - pos2}"
                     f" had block at {block}) fails entropy filter ({factor:f})\n")
    # (the HSPs before each line)
    at = (np.flatnonzero(failed) - np.arange(fails.shape[0])).tolist()
    if shortfall is not None and shortfall[0] >= 0:
        before = int(shortfall[2])
        k = int(failed[:before].sum())
        items.insert(k, (int(shortfall[0]), int(shortfall[1])))
        at.insert(k, before - k)
    lines.add(items, at)
    return rows[~failed] if failed.any() else rows


def shortfall_line(pos1: int, pos2: int) -> str:
    """LASTZ's warning, once per run, that its seed-hit queue overflowed."""
    return f"seed hit queue shortfall at {pos1}/{pos2}\n"


def say_shortfall(pos1: int, pos2: int) -> None:
    global _SHORTFALL_REPORTED
    if not _SHORTFALL_REPORTED:
        _SHORTFALL_REPORTED = True               # LASTZ warns once per run
        sys.stderr.write(shortfall_line(pos1, pos2))


def say_report(items) -> None:
    """What searches said (``SearchReport``) on stderr: ``--entropy=report`` lines, a
    seed-hit queue shortfall as (pos1, pos2), and (``immediate``) the truncation
    reports of extensions between them (arrays, see ``gapped.report_truncations``)."""
    from .gapped import report_truncations
    for item in items:
        if isinstance(item, tuple):
            say_shortfall(*item)
        elif isinstance(item, np.ndarray):
            report_truncations(item)
        else:
            sys.stderr.write(item)


def _general_finish(rows, n_raw: int, shortfall, t, q, table, hp: HitProcessor, stats,
                    exact, say=None,
                    lines: SearchReport | None = None) -> np.ndarray:
    """A strand's HSPs from ``kernels.hitproc``'s rows: a seed-hit queue shortfall
    told to ``say(pos1, pos2)`` (default: LASTZ's warning on stderr, once per
    process), exact double scores (``exact``: fastz_D's threshold and entropy),
    merged and rescored unless ``hp.defer``; counted in ``stats``.  ``lines``
    (``--entropy=report``, the rows searched with ``report``): the report's lines are
    added, and the shortfall among them, as (pos1, pos2), where LASTZ warns of it
    (``say_report`` says them)."""
    if lines is not None:
        rows = _entropy_failures(rows, t, q, table, lines, shortfall, exact is not None)
    elif shortfall[0] >= 0:
        (say or say_shortfall)(int(shortfall[0]), int(shortfall[1]))
    hsps = _as_hsps(rows)
    if exact is not None:
        hsps = double_hsps(hsps, t, q, table, *exact)
    if not hp.defer:
        hsps = finish_hsps(hsps, t, q, table, hp)
    if stats is not None:
        stats["raw_hits"] = stats.get("raw_hits", 0) + int(n_raw)
        stats["hsps"] = stats.get("hsps", 0) + int(hsps.shape[0])
    return hsps


def _general_hsps(index, t, q, len1, len2, table, trans, self_mode, xdrop, hspthresh,
                  entropy, hp: HitProcessor, stats, part_tables=None,
                  stop_after: int = -1,
                  window=FULL_WINDOW, exact=None,
                  say=None, lines: SearchReport | None = None) -> np.ndarray:
    """find_hsps through ``kernels.hitproc`` (any processor, extender and filter);
    ``exact``: (threshold, entropy) for ``double_hsps`` (fastz_D); ``lines``: see
    ``_general_finish``."""
    qcodes = kseed.char_codes(q)
    report = lines is not None and hp.ext == khit.EXT_XDROP

    def search(stop):
        return general_search(index, t, q, qcodes, len1, len2, table, trans, xdrop,
                              hspthresh, entropy, hp, self_mode, part_tables, stop, window,
                              report)
    found = _counted_search(search, stop_after, exact, hspthresh, t, q, table)
    return _general_finish(*found, t, q, table, hp, stats, exact, say,
                           lines if report else None)


def general_search(index, t, q, qcodes, len1, len2, table, trans, xdrop, hspthresh,
                   entropy: bool, hp: HitProcessor, self_mode: int = 0, part_tables=None,
                   stop_after: int = -1, window=FULL_WINDOW, report: bool = False):
    """``kernels.hitproc.search_strand_general`` of one query strand (``qcodes``: its
    seed codes), with ``hp``'s settings: (rows, seed hits, shortfall).  A float
    ``table`` (with float ``xdrop`` and ``hspthresh``) gives float64 rows: the
    scoring inference's fractional scores.  ``report``: the rows include those the
    entropy adjustment failed (``--entropy=report``, see the kernel)."""
    spec = index.spec
    if len2 < spec.length:
        return np.zeros((0, 4), np.int64), 0, (-1, -1, -1)
    (ent_lo, ent_hi), care = _general_setup(spec, hp, hspthresh, entropy)
    none = np.zeros(0, np.int64)
    parts = (none, none, none) if part_tables is None else part_tables
    return khit.search_strand_general(
        index.dir_, index.low, index.pos, index.low_bits,
        spec.length, spec.care_off, spec.care_bits, spec.flips, spec.resolve_off, trans,
        t, q, qcodes, len1, len2, table, NUC_BITS,
        hp.proc, hp.ext, hp.mismatches, xdrop, hspthresh, ent_lo, ent_hi,
        hp.min_matches, hp.max_transversions, care,
        hp.twin_min, hp.twin_max, hp.queue_size, self_mode, *parts, stop_after, *window,
        *_diag_tables(), int(report))


def fractional_hsps(index, t, q, qcodes, table, trans, xdrop, hspthresh, entropy: bool,
                    hp: HitProcessor | None, self_mode: int = 0, part_tables=None,
                    window=FULL_WINDOW, stop_after: int = -1) -> np.ndarray:
    """One query strand's HSPs under lastz_D's fractional scores (a float64 ``table``):
    HSP_DOUBLE_DTYPE rows in LASTZ's order, not merged.  The default processor runs
    ``kernels.filtering.search_strand_double``; the others (``hp``), and the default one
    with --self's ``self_mode``, a chore's ``window`` or a stop (as ``find_hsps`` takes
    them), run the general kernel compiled for the float table.  The entropy adjustment
    and the threshold after it are lastz_D's (an exact or mismatch extension had its
    length threshold in the kernel).

    ``stop_after``: a search that stops on a count of HSPs, counted after that
    adjustment (``stopped_search``)."""
    if hp is None and (self_mode or window != FULL_WINDOW or stop_after >= 0):
        hp = default_processor(True, True)
    spec = index.spec
    refuse_one_base_seed(spec)                                   # (lastz_D's inference)
    len1, len2 = _strand_length(t), _strand_length(q)
    xdrop, hspthresh = float(xdrop), float(hspthresh)
    adjusted = hp is None or hp.ext == khit.EXT_XDROP

    def search(stop: int):
        """(rows, seed-hit queue shortfall) of a search stopped past ``stop`` rows."""
        if len2 < spec.length:
            return np.zeros((0, 4)), (-1, -1)
        if hp is None:
            return kfilt.search_strand_double(
                index.dir_, index.low, index.pos, index.low_bits, spec.length,
                spec.care_off, spec.care_bits, spec.flips, spec.resolve_off, trans, t, q,
                qcodes, len1, len2, table, xdrop, hspthresh, kfilt.diag_hash(len2)), (-1, -1)
        rows, _, shortfall = general_search(index, t, q, qcodes, len1, len2, table, trans,
                                            xdrop, hspthresh, False, hp, self_mode,
                                            part_tables, stop, window)
        return rows, shortfall

    def said(found):
        """The search LASTZ did: its shortfall warned of, its HSPs as lastz_D's."""
        rows, shortfall = found
        if shortfall[0] >= 0:
            say_shortfall(int(shortfall[0]), int(shortfall[1]))
        return _double_rows(rows, t, q, hspthresh, entropy, adjusted)[0]

    if stop_after < 0 or not adjusted:
        return said(search(stop_after))
    return said(stopped_search(
        stop_after, search, lambda rows: _double_rows(rows, t, q, hspthresh, entropy, True)[1]))


def _double_rows(rows, t, q, hspthresh: float, entropy: bool, adjusted: bool):
    """A float search's rows as HSP_DOUBLE_DTYPE, with (``adjusted``: x-drop HSPs) lastz_D's
    entropy adjustment and the threshold after it; and the rows kept, by index."""
    pos1 = rows[:, 0].astype(np.int64)
    pos2 = rows[:, 1].astype(np.int64)
    length = rows[:, 2].astype(np.int64)
    score = np.ascontiguousarray(rows[:, 3], dtype=np.float64)
    kept = np.arange(pos1.shape[0])
    if adjusted:
        if entropy:
            score = kfilt.entropy_adjusted(t, q, pos1, pos2, length, score,
                                           max(0.0, hspthresh), 3 * hspthresh)
        keep = score >= hspthresh
        pos1, pos2, length, score, kept = (pos1[keep], pos2[keep], length[keep],
                                           score[keep], kept[keep])
    h = np.empty(pos1.shape[0], HSP_DOUBLE_DTYPE)
    h["pos1"], h["pos2"], h["length"], h["score"] = pos1, pos2, length, score
    return h, kept


def find_hsps_batch(index: SeedIndex, target_chars: np.ndarray, qcat: np.ndarray,
                    offsets: np.ndarray, transition: int, masked_sub: np.ndarray, xdrop: int, hspthresh,
                    entropy: bool, gfextend: bool, gapped: bool,
                    processor: HitProcessor | None, stats: dict | None = None,
                    double: bool = False, say=None, present=None) -> list:
    """``find_hsps`` of many short query strand buffers (reads) at once, strand k
    being ``qcat[offsets[k]:offsets[k + 1]]``: the same HSPs, strand by strand, from
    one kernel call (``kernels.hitproc.search_strands_general``,
    whose general processors include what the default kernel does).  For the plain
    case only: no ``--self``, ``--chores`` window or stop, on the CPU.  ``say(k, pos1,
    pos2)``: strand k's seed-hit queue shortfall (default: LASTZ's warning, at once).
    ``present``: the index's keys as a bitmap (``kernels.seeding.present_keys``), which
    speeds up a search that mostly misses; the same HSPs without it."""
    spec = index.spec
    refuse_one_base_seed(spec)
    t = np.ascontiguousarray(target_chars, dtype=np.uint8)
    table = np.ascontiguousarray(masked_sub, dtype=np.int32)
    if t.shape[0] != index.target_len:
        raise ValueError("find_hsps_batch: target_chars is not the indexed target")
    hp = processor if processor is not None else default_processor(gfextend, gapped)
    kthresh = math.floor(hspthresh)                # (as find_hsps)
    (ent_lo, ent_hi), care = _general_setup(spec, hp, kthresh, entropy)
    rows, counts, raw, shortfall = khit.search_strands_general(
        index.dir_, index.low, index.pos, index.low_bits,
        spec.length, spec.care_off, spec.care_bits, spec.flips, spec.resolve_off,
        0 if spec.halfweight else int(transition), t, qcat, kseed.char_codes(qcat), offsets,
        _strand_length(t), table, NUC_BITS, hp.proc, hp.ext, hp.mismatches, int(xdrop),
        kthresh, ent_lo, ent_hi, hp.min_matches, hp.max_transversions, care,
        hp.twin_min, hp.twin_max, hp.queue_size, *_diag_tables(),
        kfilt.NO_KEYS if present is None else present)
    exact = (hspthresh, entropy) if double and hp.ext == khit.EXT_XDROP else None
    ends = np.cumsum(counts)
    none = (-1, -1)
    # most reads' strands find nothing: they share one (read-only) empty table, and
    # their seed hits are counted at once
    empty = np.zeros(0, HSP_DOUBLE_DTYPE if exact is not None else HSP_DTYPE)
    found = [empty] * counts.shape[0]
    if exact is None and (hp.defer or not hp.merge):
        # every strand's HSPs finished at once, as _general_finish does one strand's
        # (a call per strand cost more than its search)
        if shortfall[0] >= 0:
            k, p1, p2 = shortfall.tolist()
            (say_shortfall if say is None else partial(say, k))(p1, p2)
        hsps = _as_hsps(rows)
        if not hp.defer and hp.rescore and hsps.shape[0]:
            shift = offsets[np.repeat(np.arange(counts.shape[0]), counts)]
            hsps = hsps.copy()
            hsps["score"] = kfilt.score_segments(
                t, qcat, rows[:, 0].copy(), rows[:, 1] + shift, rows[:, 2].copy(), table)
        for k, end in zip(np.flatnonzero(counts).tolist(), ends[counts > 0].tolist()):
            found[k] = hsps[end - int(counts[k]):end]
        if stats is not None:
            stats["raw_hits"] = stats.get("raw_hits", 0) + int(raw.sum())
            stats["hsps"] = stats.get("hsps", 0) + int(hsps.shape[0])
        return found
    busy = counts > 0
    if shortfall[0] >= 0:
        busy[shortfall[0]] = True
    for k in np.flatnonzero(busy).tolist():
        end, n = int(ends[k]), int(counts[k])
        shortfall_k = shortfall[1:] if shortfall[0] == k else none
        q = qcat[offsets[k]:offsets[k + 1]]
        found[k] = _general_finish(rows[end - n:end], int(raw[k]), shortfall_k, t, q, table,
                                   hp, stats, exact, None if say is None else partial(say, k))
    if stats is not None:
        stats["raw_hits"] = stats.get("raw_hits", 0) + int(raw[~busy].sum())
        stats["hsps"] = stats.get("hsps", 0)
    return found


def finish_hsps(hsps: np.ndarray, target_chars: np.ndarray, query_chars: np.ndarray,
                masked_sub: np.ndarray, hp: HitProcessor | None) -> np.ndarray:
    """Merge overlapping segments (twins, recover) and score score-less ones, as LASTZ
    ``finish_one_strand`` does before chaining and gapped extension (``merge_segments``,
    ``score_segments``).  A no-op without a processor."""
    if hp is None:
        return hsps
    if hp.merge and hsps.shape[0]:
        from .anchors import merge_segments
        hsps = merge_segments(hsps)
    if hp.rescore and hsps.shape[0]:
        hsps = hsps.copy()
        col = lambda name: np.ascontiguousarray(hsps[name], np.int64)  # noqa: E731
        hsps["score"] = kfilt.score_segments(
            np.ascontiguousarray(target_chars, np.uint8),
            np.ascontiguousarray(query_chars, np.uint8),
            col("pos1"), col("pos2"), col("length"), masked_sub)
    return hsps
