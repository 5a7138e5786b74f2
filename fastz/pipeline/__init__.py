"""Host-side orchestration: options -> sequences -> three stages -> writer.

``run(opts)`` is what ``fastz align`` calls.  Per query sequence and strand,
exactly as LASTZ orders its work (spec section 0): seed hits and gap-free
extension (stage 1-2) give HSPs; HSPs become sorted anchors; the gapped stage
turns anchors into alignments; back-end filters; the writer prints the strand.
Output goes to a temporary file renamed into place at the end (``--output``), or
streams to stdout once the inputs have been read and checked.
"""
from __future__ import annotations

import functools
import gc
import itertools
import math
import sys
import time
from dataclasses import replace
from functools import partial
from types import SimpleNamespace
from typing import Iterator

from ..errors import FastzError, OptionsError
from ..lastz_words import EXTRA_FLAGS
from ..options import (Options, immediate_limit, paired_base_limit, query_depth,
                       query_hsp_best, query_hsp_limit)
from ..records import Alignments, Sequence, StrandResult, concat_buffers, strand_length


@functools.cache
def _stages() -> SimpleNamespace:
    """The per-strand stages' modules, imported on first use (importing
    ``fastz.pipeline`` stays light) and then looked up, not imported, per strand: a
    function-level import costs microseconds, which a short read's strand notices."""
    from ..io import chores
    from . import anchors, backend_filters, filtering, gapped, parallel
    return SimpleNamespace(chores=chores, anchors=anchors, backend_filters=backend_filters,
                           filtering=filtering, gapped=gapped, parallel=parallel)


def _strands(opts: Options) -> list[str]:
    if opts.strand == "plus":
        return ["+"]
    if opts.strand == "minus":
        return ["-"]
    return ["+", "-"]


_UNSUPPORTED_EXTRAS = ("debug",)


def _refuse_unsupported(opts: Options) -> None:
    """Features LASTZ has that fastz does not implement yet: say so, never ignore them."""
    missing = []
    extra = opts.extra or {}
    for clash, flag in ((opts.segments_file, "--segments"),
                        (extra.get("targetcapsule"), "--targetcapsule")):
        if "showtable" in extra and clash:
            # (lastz has no seed table to write then and dies of a segmentation fault)
            missing.append(f"--showtable or --tableonly with {flag} "
                           "(lastz 1.04.22 crashes on it)")
    whole = opts.hspthresh is None or opts.hspthresh == int(opts.hspthresh)
    if _reports_entropy(opts) and opts.double_scores and not whole:
        # (LASTZ's lines come from inside its x-drop seed extension; lastz_D's
        # adjustment is in doubles, which the integer kernels decide alike only for a
        # whole threshold (and whole scores: see Aligner))
        missing.append("--entropy=report with a fractional --hspthresh")
    if "hspid" in (opts.format_fields or ()):
        # (LASTZ's run-wide count of HSPs entering its tables, carried by anchors and
        # alignments: not tracked by fastz, which would print a wrong number)
        missing.append("the general format's hspid field")
    # LASTZ's debugging dumps: refused by name
    for key in _UNSUPPORTED_EXTRAS:
        if key in extra:
            words = extra[key]
            missing.append(words[0] if key == "debug" else EXTRA_FLAGS[key])
    if missing:
        raise OptionsError(f"not yet supported by fastz: {', '.join(missing)}")


def _reports_entropy(opts: Options) -> bool:
    """Whether LASTZ says --entropy=report lines in this run: from inside its x-drop
    seed extension, and only where the threshold is a score (an adaptive threshold,
    K=top, keeps 0; a segments file has no search; --exact/--mismatch are other
    extensions)."""
    return opts.entropy_report and opts.gfextend and not (
        opts.hspthresh_top or opts.segments_file or opts.exact is not None
        or opts.mismatch is not None)


def _refuse_with_chores(opts: Options) -> None:
    """LASTZ's refusal of --segments, and the modes LASTZ 1.04.22 gets wrong with
    --chores (not reproduced)."""
    if opts.segments_file is not None:
        raise OptionsError("can't use [chores] with --segments")
    extra = opts.extra or {}
    if immediate_limit(extra) is not None:
        # (lastz runs it and dies of a segmentation fault)
        raise OptionsError("not yet supported by fastz: --chores with --anyornone or "
                           "--stopafter (lastz 1.04.22 crashes on it)")
    shared = [w for w, on in (("--queryhspbest", "queryhspbest" in extra),
                              ("--queryhsplimit", "queryhsplimit" in extra),
                              ("--hspthresh=top", opts.hspthresh_top is not None)) if on]
    if shared:
        # lastz collects both strands' HSPs in one table there, and with chores that
        # table keeps HSPs of the query's previous chore, and the plus strand is
        # extended within the minus strand's query interval
        raise OptionsError(f"not yet supported by fastz: --chores with {shared[0]}")


class Aligner:
    """The target side (sequence, seed index, scoring) shared by every query strand."""

    def __init__(self, opts: Options, scores=None, table_step: int | None = None):
        """``scores``: the scoring set, when not the options' (``--infer``'s);
        ``table_step``: the step of the target's seed table, when not the options'
        (``--infer``'s control file)."""
        from ..io.sequences import load_target
        from ..scoring import scoreset_from_options
        from .seeding import SeedIndex, build_index, parse_seed

        started = time.perf_counter()       # --progress times from here, as LASTZ's
        self.started = started              # ... and --runtime
        self.limit_exceeded = 0           # strand searches over --queryhsplimit
        self.depth_warned = False         # --querydepth explained once per run
        self.scores = scores if scores is not None else scoreset_from_options(opts)
        warning = opts.scores_warning(self.scores)     # (LASTZ says it while parsing)
        if warning:
            sys.stderr.write(warning)
        capsule = None
        if (opts.extra or {}).get("targetcapsule"):
            if "chores" in opts.extra:
                raise OptionsError("can't use --chores with --targetcapsule")
            # the target, its seed and index come from the capsule
            from ..io.capsule import read_capsule
            capsule = read_capsule(opts.extra["targetcapsule"])
            opts = replace(opts, seed=capsule.seed, step=capsule.step, word=capsule.word,
                           given=opts.given | {"seed", "step", "word"})
        self.opts = opts.resolved(self.scores)
        self.opts.validate()
        if "chores" in (self.opts.extra or {}) and self.opts.self_compare:
            raise OptionsError("can't use --chores with --self")
        _refuse_unsupported(self.opts)
        self.depth = query_depth(self.opts.extra or {})    # --querydepth
        from .filtering import hit_processor
        self.hitproc = hit_processor(self.opts)     # --twins, --filter, --exact, ...
        from ..kernels.device import select_backend
        from ..kernels.scorewords import fractional
        self.fractional = fractional(self.scores.sub)   # lastz_D's scores with fractions
        if self.fractional and _reports_entropy(self.opts):
            # (the fractional kernels keep no failed rows to report)
            raise OptionsError("not yet supported by fastz_D: --entropy=report with "
                               "fractional scores")
        if self.fractional and self.opts.backend == "gpu":
            raise OptionsError("not yet supported by fastz_D: fractional scores with "
                               "--backend=gpu (the device kernels score in integers)")
        self.backend = ("cpu" if self.fractional
                        else select_backend(self.opts.backend, self.opts.quiet))
        verbosity = (self.opts.extra or {}).get("verbosity", 0)
        if verbosity >= 5 and capsule is None:
            sys.stderr.write(f'opening "{self.opts.target}"\n')
        self.target = capsule.target if capsule else load_target(self.opts.target, self.opts)
        o = self.opts
        if o.segments_file is not None and self.target.revcomp:
            # (LASTZ's segments file gives forward-strand target positions)
            raise OptionsError("can't use --segments with reverse-complement of target "
                               f"({self.target.filename})")
        if o.gapped and o.traceback_bytes > _MALLOC_LIMIT:
            # (LASTZ's traceback size is a u32: --allocate:traceback=-1 asks for 4 GiB)
            raise OptionsError(_blocked(o.traceback_bytes, "new_traceback"))
        if self.opts.hspthresh_top or self.opts.gappedthresh_top:
            # top<p>% thresholds become base counts once the target length is known
            from .adaptive import resolve_thresholds
            self.opts = resolve_thresholds(self.opts, self.target)
        # LASTZ only turns an adaptive gapped threshold into a score when the HSP
        # threshold is adaptive too; otherwise its first gapped extension fails (see
        # refuse_unresolved_gapped), which a query --queryhsplimit drops never reaches
        self.unresolved_gapped = (self.opts.gappedthresh_top if self.opts.gapped
                                  and not self.opts.hspthresh_top else None)
        if verbosity >= 5 and not {"tableonly", "writecapsule"} & set(self.opts.extra or ()):
            q = self.opts.query
            sys.stderr.write(f'opening "{q}"\n' if q is not None else
                             "opening unnamed query file\n")
        if verbosity >= 1 and self.opts.segments_file is None:
            sys.stderr.write(f"linking to position table in {opts.extra['targetcapsule']}\n"
                             if capsule is not None else
                             f"building position table for {self.target.filename}\n")
        from .parallel import resolve_workers
        # the cores the run may use, resolved before --masking holds the strands to one
        # worker: index builds (this one, and --masking's rebuilds) thread with them
        self.cores = resolve_workers(self.opts.workers)
        self.index = None
        if capsule is not None:
            self.index = SeedIndex(parse_seed(capsule.seed, capsule.word), capsule.step,
                                   capsule.dir_, capsule.pos, capsule.low, capsule.low_bits,
                                   len(self.target))
        elif self.opts.segments_file is None:
            self.index = build_index(self.target.chars, self.opts.seed,
                                     table_step if table_step is not None else self.opts.step,
                                     word=self.opts.word,
                                     max_word_count=(self.opts.extra or {}).get("maxwordcount"),
                                     threads=self.cores)
        self.segments = None
        from ..io.sequences import chores_path
        self.chores = chores_path(self.opts.query, self.opts)   # --chores
        if self.chores is not None:
            if capsule is not None:             # (query[chores=F]: lastz crashes on it)
                raise OptionsError("can't use [chores] with --targetcapsule")
            _refuse_with_chores(self.opts)
        self.stats: dict = {}
        from .masking import census_for
        self.census = census_for(self.opts, self.target)    # --masking / --census (issue 6)
        # FastZ's inspector/executor pays when most extensions are short (seed-hit
        # anchors); HSP anchors in homologous regions give long ones (measured in
        # docs/benchmarks.md), where one pass with a full traceback is cheaper.
        self.progress = None
        if "progress" in (self.opts.extra or {}):
            from .report import QueryProgress
            self.progress = QueryProgress(*self.opts.extra["progress"],
                                          "progress_prefix" in self.opts.extra, self.target,
                                          started)
        self.two_pass = (self.opts.dp == "split"
                         or (self.opts.dp == "auto" and not self.opts.gfextend))
        self.target_pads = None             # see padded_target
        o = self.opts
        # short strands (reads) may be searched many at once (``strands``): where no
        # strand's search depends on another's result or on a window of its own
        self.batch_search = (self.index is not None and self.backend == "cpu"
                             and not o.entropy_report and not self.fractional
                             and self.census is None and self.chores is None
                             and o.segments_file is None and not o.self_compare
                             and not o.mirrors_hsps and not o.mirrors)
        # ... and their HSPs extended many at once, where nothing but the extension
        # happens between the HSPs and the back-end filters
        self.batch_gapped = (self.batch_search and o.gapped and not o.chain
                             and o.inner <= 0 and not self.depth and not o.notrivial)
        # (the batch then counts the identities the output prints with the alignments)
        from ..io.formats import parse_format
        self.prints_identity = parse_format(o.format or "lav",
                                            tuple(o.format_fields or ())).prints_identity

    def refuse_unresolved_gapped(self, where: str = "gapped_extend") -> None:
        """LASTZ's failure as a strand's gapped extension starts (``where``: its
        function) with an adaptive gapped threshold it never resolved."""
        if self.unresolved_gapped is not None:
            raise OptionsError(f"{where} can't handle score threshold "
                               f"{self.unresolved_gapped}")

    @property
    def searches_stop(self) -> bool:
        """Whether a seed search stops on a count of HSPs (--queryhsplimit, --anyornone,
        --stopafter): LASTZ's twin hit processor never stops one, nor warns."""
        return self.opts.twins_max is None

    def padded_target(self):
        """The target as the DP reads it (``kernels.ydrop.pad_target``): made once,
        before the workers fork, and again after ``--masking`` changes the target."""
        if self.target_pads is None:
            from ..kernels.ydrop import pad_target
            self.target_pads = pad_target(self.target.chars)
        return self.target_pads

    def strand_renderer(self):
        """A writer for worker processes to format strands with (``Writer.render``), or
        None where the format carries state from strand to strand (numbering, headers),
        writes a second file (--rdotplot) or cannot be set up (the parent's own writer
        then reports why, at its usual place in the run)."""
        import io

        from ..io.formats import make_writer
        if getattr(self.opts, "rdotplot", None):
            return None
        try:
            w = make_writer(self.opts, self.scores, self.target, _query_filename(self.opts),
                            io.StringIO())
        except FastzError:
            return None
        return w if w.strands_apart else None

    #: no score threshold: every x-drop extension is kept (adaptive thresholds' table)
    NO_THRESHOLD = -(1 << 62)

    def find_hsps(self, query: Sequence, strand: str, unmerged: bool = False,
                  stop_after: int = -1, every: bool = False, threads: int = 1, say=None,
                  entropy_failures: list | None = None):
        """The HSPs (or seed hits) of one query strand buffer, in discovery order.
        ``unmerged``: leave --twins/--recoverseeds HSPs as found (the caller counts or
        chooses them first, then calls ``finish_hsps``, as LASTZ does); ``stop_after``:
        see ``filtering.find_hsps``; ``every``: every x-drop extension, with no
        threshold and no entropy adjustment (for ``K=top``'s table, on the CPU);
        ``threads``: threads the CPU search may use (``filtering.search_parts``);
        ``say``, ``entropy_failures``: see ``filtering.find_hsps``."""
        st = _stages()
        o = self.opts
        thresh, entropy, gfextend, backend = ((self.NO_THRESHOLD, False, True, "cpu") if every
                                              else (o.hspthresh, o.entropy, o.gfextend,
                                                    self.backend))
        with st.chores.fenced(self.target, query):                # --chores
            # (no seed given: the index was built from this run's seed)
            hsps = st.filtering.find_hsps(
                self.index, self.target.chars, query.chars, None, o.transition,
                self.scores.masked, o.xdrop, thresh, entropy, gfextend=gfextend,
                gapped=o.gapped, stats=self.stats,
                self_strand=strand if o.self_compare else None,
                processor=self.processor(unmerged), backend=backend, stop_after=stop_after,
                threads=threads, window=None if query.chore is None else query.chore.bounds,
                double=o.double_scores and not every, say=say,
                entropy_failures=entropy_failures)
        if not o.gapped:
            # (a gapped run's HSP sums wrap in LASTZ too, but what the gapped stage
            # makes of them is checked there: a sequence against itself, say, scores
            # 2^31 - 1 in both)
            self.scores.check_sums(hsps["score"], len(self.target), len(query), "an HSP")
        return hsps

    def processor(self, unmerged: bool = False):
        """The run's hit processor; ``unmerged``: one that leaves --twins/--recoverseeds
        HSPs unmerged (``finish_hsps`` merges them)."""
        proc = self.hitproc
        if unmerged and proc is not None and proc.merge:
            proc = replace(proc, defer=True)
        return proc

    def finish_hsps(self, query: Sequence, hsps):
        """Merge (and score) a strand's unmerged HSPs (``find_hsps(unmerged=True)``)."""
        from .filtering import finish_hsps
        if self.hitproc is None or not self.hitproc.merge:
            return hsps
        return finish_hsps(hsps, self.target.chars, query.chars, self.scores.masked,
                           self.hitproc)

    def strand(self, query: Sequence, strand: str, threads: int = 1, hsps=None,
               gappedthresh: int | None = None, mirrored: bool = False) -> StrandResult:
        """Align one query strand (``query`` is already the strand buffer).

        ``threads`` > 1 searches a long strand's seed hits (``filtering.search_parts``)
        and extends anchors speculatively (``fastz.pipeline.speculate``) in up to that
        many threads; the result is the same.  ``hsps`` and
        ``gappedthresh`` are given by the adaptive-threshold driver
        (``fastz.pipeline.adaptive``): the strand's HSPs already found, and the
        gapped threshold they imply; ``mirrored``: those HSPs already hold the mirror
        images --self --nogapped needs (the shared table collects them).
        """
        st = _stages()
        o = self.opts
        t0 = time.perf_counter()
        shortfall = []              # (written with the strand: see _align)
        entropy_failures = st.filtering.SearchReport() if o.entropy_report else None
        if hsps is not None:
            pass
        elif self.segments is not None:
            hsps = self.segments.take(self.target, query, strand)
        else:
            # (the search takes this strand's share of the cores round by round)
            hsps = self.find_hsps(query, strand, threads=threads,
                                  say=lambda *at: shortfall.append(at),
                                  entropy_failures=entropy_failures)
        if o.mirrors_hsps and not mirrored:                     # --self (issue 6)
            from .mirror import mirror_hsps
            hsps = mirror_hsps(hsps, strand_length(self.target.chars),
                               strand_length(query.chars), strand == "+")
            if self.hitproc is not None and self.hitproc.defer:
                from .filtering import finish_hsps
                hsps = finish_hsps(hsps, self.target.chars, query.chars, self.scores.masked,
                                   self.hitproc)
        t1 = time.perf_counter()
        self.stats["time_seeding"] = self.stats.get("time_seeding", 0.0) + t1 - t0
        if o.chain:
            # --chain (issue 6): best syntenic subset of the HSPs, by target position;
            # without gapped extension LASTZ applies the back-end filters first
            from .chain import chain_strand_hsps
            if not o.gapped:
                hsps = st.backend_filters.filter_hsps(hsps, self.target, query, o)
            hsps = chain_strand_hsps(hsps, self.target, query, o, self.scores)
        trunc = None
        over = False
        if not o.gapped:
            kind = "hsp" if o.gfextend else "hit"
            alns = Alignments.from_hsps(hsps, kind=kind)
        else:
            self.refuse_unresolved_gapped()
            anchors = st.anchors.anchors_from_hsps(hsps, self.target.chars, query.chars,
                                           self.scores.sub)
            gth = o.gappedthresh if gappedthresh is None else gappedthresh
            depth = self.depth
            max_paired = paired_base_limit(depth[0], strand_length(query.chars)) if depth else 0
            alns, trunc, over = st.gapped.gapped_extend(
                self.target, query, strand, anchors, self.scores, o.ydrop, gth, trim=o.ytrim,
                notrivial=o.notrivial, allgappedbounds=o.allgappedbounds,
                traceback_bytes=o.traceback_bytes, two_pass=self.two_pass, threads=threads,
                hsp_anchors=o.gfextend, stats=self.stats, backend=self.backend,
                max_paired=max_paired, paired_keep=bool(depth and depth[2]),
                window=None if query.chore is None else query.chore.bounds,
                target_pads=self.padded_target())
            over = over and depth[1]             # LASTZ warns unless nowarn
        if o.gapped or not o.chain:
            alns = st.backend_filters.filter_alignments(alns, self.target, query, o)
        if o.gapped and o.inner > 0:
            # --inner / H= (issue 6): interpolate between the strand's alignments
            import numpy as np
            from .interpolate import interpolate
            alns, inner_trunc = interpolate(alns, self.target, query, o, self.scores, threads)
            if inner_trunc is not None:
                trunc = inner_trunc if trunc is None else np.concatenate([trunc, inner_trunc])
        if o.mirrors and o.gapped:
            from .mirror import mirror_alignments
            alns = mirror_alignments(alns, self.target, query, strand == "+", self.scores)
        self.stats["time_gapped"] = self.stats.get("time_gapped", 0.0) + time.perf_counter() - t1
        res = StrandResult(query, strand, alns)
        if shortfall:
            res.stats["shortfall"] = shortfall[0]
        if entropy_failures:
            res.stats["entropy_report"] = entropy_failures
        if trunc is not None and trunc.shape[0]:
            res.stats["truncations"] = trunc
        if o.gapped and over:
            res.stats["depth_warning"] = (max_paired, depth[2])
        return res

    def strands(self, units, threads: int = 1) -> list[StrandResult]:
        """``strand`` of each (query strand buffer, strand) in ``units``, in order.

        Where ``batch_search`` allows, the strands' seed hits are found in one kernel
        call (``filtering.find_hsps_batch``: a short read's search costs about what a
        call from Python does) and a strand with no HSP, which can have no alignment,
        skips the later stages (most reads' strands); the results are the same."""
        if not self.batch_search or len(units) < 2:
            return [self.strand(buf, strand, threads) for buf, strand in units]
        found, shortfall = self.search_batch(*concat_buffers([buf.chars for buf, _ in units]))
        return self.finish_batch(units, found, shortfall, threads)

    def search_batch(self, qcat, offsets) -> tuple[list, dict]:
        """(HSPs of each strand, {strand: seed-hit queue shortfall}) of the strand
        buffers ``qcat[offsets[k]:offsets[k + 1]]``, in one kernel call (``strands``)."""
        st = _stages()
        o = self.opts
        t0 = time.perf_counter()
        shortfall: dict = {}                  # (written with the strand: see _align)
        found = st.filtering.find_hsps_batch(
            self.index, self.target.chars, qcat, offsets, o.transition,
            self.scores.masked, o.xdrop, o.hspthresh, o.entropy, o.gfextend, o.gapped,
            self.hitproc, self.stats, o.double_scores,
            lambda k, *at: shortfall.setdefault(k, at), self.present_keys)
        if not o.gapped:                                    # (see find_hsps)
            longest = int((offsets[1:] - offsets[:-1]).max(initial=0))
            for hsps in found:
                self.scores.check_sums(hsps["score"], len(self.target), longest, "an HSP")
        elif len(offsets) > 1:
            # every strand searched goes on to LASTZ's gapped extension, HSPs or none
            # (the bulk read path passes those without over): the first one fails there
            self.refuse_unresolved_gapped()
        self.stats["time_seeding"] = self.stats.get("time_seeding", 0.0) + \
            time.perf_counter() - t0
        return found, shortfall

    def finish_batch(self, units, found: list, shortfall: dict,
                     threads: int = 1) -> list[StrandResult]:
        """``strands``' results from its units' HSPs (``search_batch``)."""
        st = _stages()
        o = self.opts
        kind = "gapped" if o.gapped else "hsp" if o.gfextend else "hit"
        extended = self._extend_batch(units, found, threads)
        out = []
        for k, ((buf, strand), hsps) in enumerate(zip(units, found)):
            if k in extended:
                res = extended[k]
            elif hsps.shape[0] == 0 and (not o.gapped or self._no_trivial(buf)):
                res = StrandResult(buf, strand, Alignments.empty(kind))
            else:
                res = self.strand(buf, strand, threads, hsps=hsps)
            if k in shortfall:
                res.stats["shortfall"] = shortfall[k]
            out.append(res)
        if o.gapped:
            for name in st.gapped.STAT_NAMES:       # (as gapped_extend leaves them)
                self.stats.setdefault(name, 0)
        return out

    def _extend_batch(self, units, found, threads: int) -> dict:
        """``strand``'s results of the batch's strands whose HSPs ``batch_gapped`` lets
        go through one call of ``gapped.gapped_extend_batch``, by position in
        ``units``: short strands with HSPs that can hold no trivial self-alignment."""
        st = _stages()
        if not self.batch_gapped:
            return {}
        short = st.gapped.SPECULATE_MIN_QUERY if threads > 1 else math.inf
        ks = [k for k, ((buf, _), hsps) in enumerate(zip(units, found))
              if hsps.shape[0] and len(buf) < short and self._no_trivial(buf)]
        if not ks:
            return {}
        o = self.opts
        t0 = time.perf_counter()
        queries = [units[k][0] for k in ks]
        filters = st.backend_filters
        # the back-end filters on the batch's table at once, unless one goes alignment
        # by alignment
        each = filters.per_alignment(o)
        done = st.gapped.gapped_extend_batch(
            self.target, queries, [found[k] for k in ks], self.scores,
            o.ydrop, o.gappedthresh, trim=o.ytrim, allgappedbounds=o.allgappedbounds,
            traceback_bytes=o.traceback_bytes, two_pass=self.two_pass, stats=self.stats,
            target_pads=self.padded_target(), count_identity=self.prints_identity,
            keep=None if each else partial(filters.strands_mask, target=self.target,
                                           queries=queries, opts=o))
        out = {}
        for k, (alns, trunc) in zip(ks, done):
            buf, strand = units[k]
            if each:
                alns = filters.filter_alignments(alns, self.target, buf, o)
            res = StrandResult(buf, strand, alns)
            if trunc.shape[0]:
                res.stats["truncations"] = trunc
            out[k] = res
        self.stats["time_gapped"] = self.stats.get("time_gapped", 0.0) + \
            time.perf_counter() - t0
        return out

    def _no_trivial(self, query: Sequence) -> bool:
        """Whether a query strand surely holds no trivial self-alignment
        (``gapped._trivial``), which needs the query as long as the target or one of
        its sequences, and is unpartitioned, without a chore (so a strand without HSPs
        has no alignment)."""
        if query.partitions is not None or query.chore is not None:
            return False
        return len(query) not in self.trivial_lengths

    @functools.cached_property
    def trivial_lengths(self) -> set:
        """The query lengths that may hold a trivial self-alignment: the target's or
        one of its sequences' (``gapped._trivial``)."""
        parts = self.target.partitions
        return {len(self.target)} if parts is None else set(parts.length.tolist())

    #: the largest key space (bits) given a bitmap of the index's keys (32 MB)
    PRESENT_KEY_BITS = 28
    #: ... and the most positions, as a share of the key space: a denser table's
    #: windows mostly hit, and the bitmap is one more load before the directory
    #: (E. coli with the default 12of19 seed, 28 % of 2^24: the batched search 25 %
    #: slower with it; at --step=10 with match12, 2.8 %: 21 % faster)
    PRESENT_MAX_SHARE = 1 / 16

    @functools.cached_property
    def present_keys(self):
        """The index's keys as a bitmap (``kernels.seeding.present_keys``) for the
        batched search where most of the reads' windows miss the table, else None
        (a key space over 2^PRESENT_KEY_BITS, or positions over PRESENT_MAX_SHARE
        of it)."""
        from ..kernels.seeding import present_keys
        ix = self.index
        keys = (ix.dir_.shape[0] - 1) << ix.low_bits
        if keys > 1 << self.PRESENT_KEY_BITS or ix.pos.shape[0] > keys * self.PRESENT_MAX_SHARE:
            return None
        return present_keys(ix.dir_, ix.low, ix.low_bits)

    @functools.cached_property
    def plain_reads(self):
        """The query file as ``io.plainreads.PlainReads`` (``StreamedReads`` for a
        pipe) where the run reads it in bulk and aligns it chunk by chunk
        (``reads.packed_results``), else None."""
        from .reads import plain_reads
        return plain_reads(self)

    def _in_batches(self, items, held) -> Iterator[StrandResult]:
        """``strand`` of each unit, in order, from (unit, what reading it said) pairs
        (``_saying``); batched (``strands``) where allowed.  With dynamic masking
        (never batched) each strand is aligned only once the strand before it has
        been written, as the masking needs.

        A batch's queries are read before its first strand is written, so what reading
        one says on stderr (``--progress``, an empty sequence) is held with its first
        strand and said when that strand is written, after the earlier strands'
        truncation reports, as one strand at a time would say it."""
        try:
            if not self.batch_search:
                for (buf, strand), said in items:
                    yield _said(self.strand(buf, strand), said)
            else:
                from .parallel import batches
                for batch in batches(items, lambda item: len(item[0][0])):
                    results = self.strands([unit for unit, _ in batch])
                    for (_, said), res in zip(batch, results):
                        yield _said(res, said)
        finally:
            sys.stderr.write(held[0])

    def _in_workers(self, items, workers: int, held) -> Iterator[StrandResult]:
        """``_in_batches`` in worker processes (``parallel.parallel_results``): the
        parent reads the units ahead, and what reading one said comes with its result."""
        from collections import deque

        from .parallel import parallel_results
        saids: deque = deque()

        def units():
            for unit, said in items:
                saids.append(said)
                yield unit

        try:
            for res in parallel_results(self, units(), workers):
                yield _said(res, saids.popleft())
        finally:
            sys.stderr.write(held[0])

    # below this many target x query bases (seed-hit anchors excepted) a run takes
    # well under a second: not worth forking workers for
    SMALL_WORK = 2e9

    def _read_ahead(self, items, bases_of):
        """Read ``items`` while the work they hold is under SMALL_WORK; returns (items
        read, the rest or None when the input ended first: too little work to fork
        worker processes for).  Seed-hit anchors (--nogfextend) always fork."""
        it = iter(items)
        ahead: list = []
        qbases = 0
        for item in it:
            ahead.append(item)
            qbases += bases_of(item)
            if not self.small_work(qbases):
                return ahead, it
        return ahead, None

    def small_work(self, qbases: int) -> bool:
        """Whether ``qbases`` query bases are too little work to fork workers for
        (seed-hit anchors, --nogfextend, never are)."""
        return self.opts.gfextend and qbases * len(self.target) < self.SMALL_WORK

    def results(self) -> Iterator[StrandResult]:
        """Every query strand, in LASTZ's order (query 1 +, query 1 -, query 2 +, ...)."""
        if self.census is not None:
            # dynamic masking changes the target between strands: strictly in order
            from .masking import masked_results
            self.opts = replace(self.opts, workers=1)
            yield from masked_results(self, self._results())
        else:
            yield from self._results()

    def by_query(self, work, workers: int, replay=None) -> Iterator[StrandResult]:
        """Every query strand's result where a query is the unit of work (its strands
        depend on each other): ``work(aligner, strands, bufs, sid) -> (results, notes)``
        runs per query, here or in worker processes; ``replay(aligner, notes)`` then
        turns its notes into stderr lines and counts here, in query order (with a
        replay, the notes also say which strands were searched, dropped queries' too,
        and the replay says their --verbosity lines).  ``results``
        may be a generator, consumed as the strands are written (--masking changes the
        target between a query's strands; it runs with one worker)."""
        from .parallel import parallel_queries

        queries = self.query_strands()
        pooled = False
        if workers > 1:
            # (a tiny input is done here: forking workers would cost more)
            ahead, rest = self._read_ahead(queries, lambda q: len(q[1][q[0][0]]))
            pooled = rest is not None
            queries = itertools.chain(ahead, rest or ())
        outcomes = (parallel_queries(self, work, queries, workers) if pooled
                    else (work(self, *q) for q in queries))
        for results, notes in outcomes:
            if replay is not None:
                replay(self, notes)
            for k, res in enumerate(results):
                # (for --verbosity's lines, unless the replay said them)
                res.stats["query_first"] = k == 0 and replay is None
                yield res

    @functools.cached_property
    def query_file(self) -> str:
        """The query file's name as LASTZ's stderr lines give it."""
        return _query_filename(self.opts)

    def say_search(self, strand: str) -> None:
        """--verbosity: LASTZ's line as a query strand's search starts (for the modes
        whose replay speaks for the query: ``Aligner.by_query``)."""
        if (self.opts.extra or {}).get("verbosity", 0) >= 1:
            sys.stderr.write(_search_line(self.query_file, strand))

    def queries(self) -> Iterator[Sequence]:
        """The query sequences in file order (``--progress`` reports as each loads)."""
        from ..io.sequences import iter_queries
        return iter_queries(self.opts.query, self.opts, on_load=self.progress)

    def query_strands(self, queries=None):
        """(strands, strand buffers, strand ids) of each query, in file order (of
        ``queries`` where given); with ``--chores``, of each chore (its query's strand
        buffers carry the chore)."""
        from ..io.sequences import reverse_complement_sequence

        strands = _strands(self.opts)
        pairs = (self._queries_or_chores() if queries is None
                 else ((q, None) for q in queries))
        for query, chore in pairs:
            kept = strands
            if chore is not None:
                # LASTZ's first stage (the strand --strand makes it) is the chore's
                # '+', its second (with --strand=both) the chore's '-'
                from ..io.chores import chore_windows
                windows = dict(zip(strands, chore_windows(chore, self.target, query,
                                                          len(strands))))
                kept = [s for k, s in enumerate(strands) if chore.strand in ("", "+-"[k])]
                if not kept:
                    # LASTZ still says its first stage's search; this goes out with
                    # the next strand, as what reading says does (_saying)
                    self.say_search(strands[0])
            bufs = {s: (query if s == "+" else reverse_complement_sequence(query))
                    for s in kept}
            if chore is not None:
                bufs = {s: replace(b, chore=windows[s]) for s, b in bufs.items()}
            # LASTZ's segment id is the query's reverse-complement flags (0 or 3)
            sid = {"+": 3 if query.revcomp else 0, "-": 0 if query.revcomp else 3}
            yield kept, bufs, sid

    def _queries_or_chores(self):
        """(query, None) per query; with --chores, (query, chore) per chore."""
        if self.chores is None:
            return ((q, None) for q in self.queries())
        from ..io.sequences import iter_chores
        report = None if self.progress is None else self.progress.chore
        return iter_chores(self.opts.query, self.opts, self.chores, on_chore=report)

    def units(self, queries=None):
        """(strand buffer, strand) of each query strand, in order (of ``queries``
        where given)."""
        for strands, bufs, _ in self.query_strands(queries):
            for strand in strands:
                yield bufs[strand], strand

    def unit_results(self, units, workers: int) -> Iterator[StrandResult]:
        """The results of ``units`` (``units()``), in order, in ``workers`` processes
        (here where the input is tiny)."""
        held = [""]
        if workers > 1:
            first = _strands(self.opts)[0]
            ahead, rest = self._read_ahead(
                _saying(units, held), lambda item: len(item[0][0]) if item[0][1] == first else 0)
            if rest is None:
                # the whole input is tiny: starting worker processes costs more
                # than the alignment itself
                yield from self._in_batches(ahead, held)
            else:
                yield from self._in_workers(itertools.chain(ahead, rest), workers, held)
        else:
            yield from self._in_batches(_saying(units, held), held)

    def _results(self) -> Iterator[StrandResult]:
        from .parallel import resolve_workers

        workers = resolve_workers(self.opts.workers) if self.backend == "cpu" else 1
        if self.opts.segments_file is not None:
            # anchors are read from one file in order: a single sequential reader
            from .anchors import SegmentsReader
            self.segments = SegmentsReader(self.opts.segments_file, self.opts.double_scores)
            workers = 1
        immediate = immediate_limit(self.opts.extra)
        if immediate is not None:
            # --anyornone / --stopafter=N: each HSP gapped-extended as it is found
            # (--querydepth never applies there: LASTZ counts paired bases only in
            # the anchor loop, which this mode leaves empty)
            from .adaptive import hsp_limit_warnings
            from .immediate import immediate_gapfree_query, immediate_query
            limit, warn = immediate
            work = immediate_query if self.opts.gapped else immediate_gapfree_query
            yield from self.by_query(partial(work, limit, warn), workers,
                                     replay=partial(hsp_limit_warnings, limit, warn))
        elif self.opts.hspthresh_top is not None or "queryhspbest" in self.opts.extra:
            # adaptive K (issue 6) and --queryhspbest (which keeps the best N): both
            # strands of a query share one HSP table
            from .adaptive import shared_table_query
            yield from self.by_query(
                partial(shared_table_query, query_hsp_best(self.opts.extra)), workers)
        elif "queryhsplimit" in self.opts.extra:
            # and a query with too many HSPs is dropped whole
            from .adaptive import hsp_limit_warnings, limited_hsp_query
            limit, warn, keep = query_hsp_limit(self.opts.extra)
            yield from self.by_query(partial(limited_hsp_query, limit, keep), workers,
                                     replay=partial(hsp_limit_warnings, limit, warn))
        elif self.plain_reads is not None:
            # many reads in a plain FASTA file: read in bulk (pipeline.reads)
            from .reads import packed_results
            yield from packed_results(self, self.plain_reads, workers)
        else:
            yield from self.unit_results(self.units(), workers)
        if self.segments is not None:
            self.segments.finish()


def _saying(units, held):
    """(unit, what reading it wrote to stderr) for each unit of ``units``.  What
    reading said after the last unit (empty queries at the end of the file) or before
    it failed goes to ``held[0]``: the consumer says it after the strands read before
    it (and before the error).  (One buffer for all units, and stderr swapped by hand:
    a context manager and a buffer per unit cost more than a read's seed search.)"""
    import io
    it = iter(units)
    said = io.StringIO()
    while True:
        real, sys.stderr = sys.stderr, said
        try:
            unit = next(it)
        except StopIteration:
            held[0] = said.getvalue()
            return
        except BaseException:
            held[0] = said.getvalue()
            raise
        finally:
            sys.stderr = real
        text = said.getvalue()
        if text:
            said.seek(0)
            said.truncate()
        yield unit, text


def _said(res: StrandResult, said: str) -> StrandResult:
    if said:
        res.stats["stderr"] = said
    return res


def _check_inputs(aligner: Aligner) -> None:
    """Read every query (and every ``--segments`` line) once before any output is
    written, so that a bad record late in the query file fails the run up front
    instead of after part of the output (LASTZ's behaviour).  Skipped when the query
    comes through a pipe, which can be read only once (docs/hardening.md)."""
    from ..io.sequences import (check_queries, rereadable, reverse_complement_sequence,
                                scan_queries)
    o = aligner.opts
    if not rereadable(o.query):
        return
    if aligner.chores is not None:
        # every chore's line, query and intervals
        from ..io.chores import chore_windows
        from ..io.sequences import iter_chores
        for query, chore in iter_chores(o.query, o, aligner.chores, scan=True):
            chore_windows(chore, aligner.target, query, 1)
        return
    if o.segments_file is None:
        if aligner.plain_reads is None:         # (else checked as it was found plain)
            check_queries(o.query, o)
        return
    from .anchors import SegmentsReader
    segments = SegmentsReader(o.segments_file, o.double_scores)
    for query in scan_queries(o.query, o):
        for strand in _strands(o):
            buf = query if strand == "+" else reverse_complement_sequence(query)
            segments.take(aligner.target, buf, strand)
    segments.finish()


#: LASTZ's largest single allocation (``mallocLimit``, utilities.c)
_MALLOC_LIMIT = 4_294_967_279


def _refuse_huge_search_limit(aligner: Aligner) -> None:
    """LASTZ's gapped HSP-immediate mode (--anyornone, --stopafter=N, a later
    --queryhsplimit=N) allocates a 4-byte hash for each of its N alignments once the
    target's table is built, before any query is read: past its largest allocation
    (N of about 2^30 and more) the run fails there (after --showtable's table, which
    fastz's failed run takes back with the rest of its output)."""
    o = aligner.opts
    immediate = immediate_limit(o.extra)
    if not o.gapped or immediate is None or o.segments_file is not None:
        return
    size = 4 * immediate[0]
    if size > _MALLOC_LIMIT:
        raise OptionsError(_blocked(size, "set_up_hit_processor (alignmentHashes)"))


def _blocked(size: int, what: str) -> str:
    """LASTZ's words as it refuses an allocation past its limit."""
    return (f"malloc_or_die blocked large request, for {size:,} bytes "
            f"(max is {_MALLOC_LIMIT:,}), for {what}")


def _query_filename(opts: Options) -> str:
    from ..io.specifiers import parse_specifier
    if opts.query is None:
        return "(stdin)"
    return parse_specifier(opts.query).path


def _search_line(name: str, strand: str) -> str:
    return f"searching for matches in {name}{', (reverse strand)' * (strand == '-')}\n"


def _searching(opts: Options, name: str, res: StrandResult, first: bool | None) -> str:
    """--verbosity: LASTZ's line(s) as a strand's search starts.  LASTZ says the
    first stage of each query (or chore), even a chore's skipped '+' stage, and the
    second stage with --strand=both.  (A chore none of whose strands runs has no
    result: its line is said as it is read, ``Aligner.query_strands``.)  ``first``:
    None, or whether ``res`` is its query's first result where a query is the unit of
    work; ``name``: the query file's name."""
    strands = _strands(opts)
    chore = res.query.chore
    if first is not None:
        # a query is the unit (Aligner.by_query): LASTZ searches its strands before
        # it finishes either, so both lines come with its first result (the modes
        # with a replay say them there, with their warnings: Aligner.say_search)
        return "".join(_search_line(name, s) for s in strands) if first else ""
    lines = ""
    if res.strand == strands[0] or (chore is not None and chore.strand == "-"):
        lines = _search_line(name, strands[0])
    if res.strand == "-" and len(strands) == 2:
        lines += _search_line(name, "-")
    return lines


def _warn_depth(res: StrandResult, max_paired: int, keep: bool, first: bool) -> None:
    """LASTZ's stderr lines for a query strand over the --querydepth limit."""
    q = res.query
    name = "seq2" if q.partitions is not None else q.name
    strand = "-" if (res.strand == "-") != bool(q.revcomp) else "+"
    sys.stderr.write(f"WARNING. Query {name} ({strand} strand) contains more than "
                     f"{max_paired:,} paired bases.\n")
    if first:
        sys.stderr.write("Any gapped alignments already found for this query/strand are "
                         "reported but the\nquery/strand is not processed further.\n"
                         if keep else
                         "All gapped alignments for this query/strand are discarded and the "
                         "query/strand\nis not processed further.\n")


def _runtime(aligner: Aligner) -> float | None:
    """--runtime: wall seconds (LASTZ's is its CPU time, which would miss the workers)."""
    return time.perf_counter() - aligner.started if "runtime" in aligner.opts.extra else None


def _show_seed_table(aligner: Aligner, index, out) -> None:
    """--showtable / --tableonly: the target's seed-word table ``index``, as built
    (before --masking changes it), ahead of any alignment."""
    mode = aligner.opts.extra.get("showtable")
    if mode is not None:
        from ..io.formats import stdout_for_quirks
        from ..io.seedtable import write_seed_table
        from ..io.specifiers import parse_specifier
        write_seed_table(out, index, parse_specifier(aligner.opts.target).path, mode,
                         stdout_for_quirks(aligner.opts, out))


def _write_capsule(aligner: Aligner, out) -> None:
    """--writecapsule: the target and its index, and lastz's line saying so."""
    from ..io.capsule import write_capsule
    from ..io.formats import stdout_for_quirks
    from ..options import unitize
    o = aligner.opts
    path = o.extra["writecapsule"]
    size = write_capsule(path, aligner.target, o.seed, o.word, aligner.index)
    stdout_for_quirks(o, out).write(
        f"{unitize(size, by_thousands=True)} byte target sequence capsule written to {path}\n")


def _align(aligner: Aligner, out) -> None:
    """Align every query strand and write the output (header, alignments, footer)."""
    from ..io.formats import make_writer, refuse_partitioned
    from .filtering import say_report, say_shortfall
    from .gapped import report_truncations, truncations_reported
    from .masking import finish_masking, refuse_partitioned_masking_files
    from .report import Progress
    o = aligner.opts
    refuse_partitioned(o, aligner.target)      # (LASTZ's start-up checks: lav, gfa, ...
    refuse_partitioned_masking_files(o, aligner.target)          # ... the masking files)
    _refuse_huge_search_limit(aligner)
    _check_inputs(aligner)
    index = aligner.index                 # (--showtable's, whatever --masking does next)
    results = aligner.results()
    # read and check the first query strand before any byte of output is written
    first = next(results, None)
    _show_seed_table(aligner, index, out)
    query_file = aligner.query_file
    writer = make_writer(o, aligner.scores, aligner.target, query_file, out)
    writer.header()
    progress = Progress(not o.quiet and aligner.progress is None)
    verbose = (o.extra or {}).get("verbosity", 0) >= 1
    try:
        if first is not None:
            for res in itertools.chain([first], results):
                # what the strand's query said as it was read (Aligner._in_batches),
                # then its search (LASTZ's once-a-run warning, which worker processes
                # cannot decide), then its extensions
                said = res.stats.pop("stderr", None)
                if said:
                    sys.stderr.write(said)
                unreported = res.stats.pop("unreported", None)
                if unreported is not None:              # (pipeline.reads)
                    progress.skip(*unreported)
                query_first = res.stats.pop("query_first", None)
                if verbose:
                    sys.stderr.write(_searching(o, query_file, res, query_first))
                entropy = res.stats.pop("entropy_report", None)
                if entropy:                                 # (--entropy=report)
                    say_report(entropy)
                shortfall = res.stats.pop("shortfall", None)
                if shortfall is not None:
                    say_shortfall(*shortfall)
                trunc = res.stats.pop("truncations", None)
                if trunc is not None and truncations_reported(o):
                    report_truncations(trunc)
                depth = res.stats.pop("depth_warning", None)
                if depth is not None:
                    _warn_depth(res, *depth, first=not aligner.depth_warned)
                    aligner.depth_warned = True
                writer.write(res)
                progress.update(res.query.name, res.strand, len(res.query),
                                res.n_alignments())
    finally:
        progress.close()
    finish_masking(aligner, writer)     # m stanza, --census, --outputmasking (issue 6)
    writer.footer(_runtime(aligner))
    if aligner.limit_exceeded:
        # (LASTZ counts strands: a query over the limit on both counts twice)
        n = aligner.limit_exceeded
        # (LASTZ: in the gapped HSP-immediate mode only with warnings)
        immediate = immediate_limit(o.extra)
        gapped_immediate = o.gapped and immediate is not None
        if not gapped_immediate or immediate[1]:
            what = "limit of qualifying alignments" if gapped_immediate else "HSP limit"
            sys.stderr.write(f"{n} quer{'y' if n == 1 else 'ies'} exceeded the {what}\n")


def run(opts: Options) -> int:
    """Align as ``lastz`` would with the same options; returns the exit code."""
    from ..io.formats import write_trailer
    from ..io.output import output_stream

    if "inferonly" in (opts.extra or {}):
        from .infer import run_inference                # fastz_D --inferonly
        return run_inference(opts)
    scores = step = None
    if "infer" in (opts.extra or {}):
        from .infer import infer_and_write              # fastz_D --infer: the scoring
        scores, step = infer_and_write(opts)            # file, then the alignments
    # the output first: an unwritable --output fails before any work is done; it is
    # a temporary file until the run succeeds (fastz.io.output, docs/hardening.md)
    with output_stream(opts.output) as out:
        aligner = Aligner(opts, scores, step)
        # what set-up made (modules, numba's kernels and types: most of the heap)
        # lives to the end of the run: the collector stops scanning it, and the
        # forked workers stop copying its pages as it would mark them (given back
        # after, for a caller that runs again in this process)
        gc.freeze()
        o = aligner.opts
        try:
            if "tableonly" in o.extra or "writecapsule" in o.extra:
                # the seed table (if shown) and the capsule are all: no query is read
                _show_seed_table(aligner, aligner.index, out)
                if "writecapsule" in o.extra:           # (LASTZ's format is none then)
                    _write_capsule(aligner, out)
                else:
                    write_trailer(o, aligner.scores, aligner.target, out,
                                  _runtime(aligner))
            else:
                _align(aligner, out)
        finally:
            gc.unfreeze()
    if o.stats:
        from .report import write_stats
        write_stats(aligner.stats, o.stats)
    return 0


__all__ = ["run", "Aligner", "FastzError"]
