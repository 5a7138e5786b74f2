"""Scoring inference: fastz_D's ``--inferonly`` (LASTZ ``infer_scores.c``, lastz_D).

LASTZ infers log-odds substitution scores from the sequences themselves.  Starting
from unit scores (+1/-1, times ``inference_scale``), it aligns target and query
gap-free, counts the base pairs of the HSPs (optionally only those of HSPs in a middle
range of identity), turns the counts into log-odds scores scaled so that the best is
``inference_scale``, and aligns again with those, until the scores come back to a set
seen before (within 1e-6) or ``max_sub_iterations`` runs are done.  Gap penalties are
not inferred (LASTZ blocks it); they are written relative to the worst substitution.
The result is a scoring file, on stdout or in ``--infscores=FILE``: what users then
align with (``--scores=FILE``).

The file is lastz_D's byte for byte because every step repeats lastz_D's double
arithmetic in its order:

* the gap-free search runs with the fractional scores (float64 table and x-drop,
  ``kernels.filtering.search_strand_double``), each HSP's score being the double sum
  lastz_D forms, then entropy-adjusted and held to the threshold as lastz_D does
  (``entropy_adjusted``); the other seed-hit processors (``--twins``,
  ``--recoverseeds``, ``--filter``, ``--exact``, ``--mismatch``, ``--nogfextend``) run
  ``kernels.hitproc``'s search compiled for the float table;
* the search's masked table is LASTZ's: built once from the scaled unit scores, and
  only its upper-case ACGT entries replaced by each round's scores (``repair_scores``);
* the percentile cut compares C ``float`` products, as LASTZ's does;
* logarithms come from the C library (``math.log``), as LASTZ's.

``--infer`` (aligning with the inferred, fractional scores afterwards) needs
fractional scores in the gapped extension and stays refused.
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError, OptionsError
from ..kernels import seeding as kseed
from ..kernels.alnstats import IDENTITY_BINS, binned_substitutions
from ..options import Options
from ..records import Alignments, StrandResult
from ..scoring import set_dna_block, string_to_double, string_to_int, string_to_score
from .anchors import merge_segments
from .backend_filters import collects_hsps, filter_hsps
from .filtering import NUC_BITS, default_processor, fractional_hsps, hit_processor

#: LASTZ's ratio kinds for a control-file setting (``ratioNone``, ...)
AS_GIVEN, TIMES_BEST, TIMES_WORST = "none", "max", "min"
#: lastz_D's ``worstPossibleScore`` (-FLT_MAX) and ``veryBadScore``
WORST_POSSIBLE = -3.4028234663852886e38
VERY_BAD = -((0.9 * WORST_POSSIBLE - WORST_POSSIBLE) / 2)
#: LASTZ's unit scores: match, mismatch, X, fill, gap open and extend (400/123, 30/123)
UNIT_MATCH, UNIT_MISMATCH, UNIT_X, UNIT_FILL = 1.0, -1.0, -10.0, -1.0
UNIT_OPEN, UNIT_EXTEND = 3.25, 0.24375
#: LASTZ ``maxSubIterations``, ``subCloseEnough`` (lastz_D)
MAX_SUB_ITERATIONS = 30
CLOSE_ENOUGH = 0.000001
#: bases in LASTZ's bit order, and each one's complement's bits
NUCS = "ACGT"
COMPLEMENT = (3, 2, 1, 0)
#: where lastz_D stops reading a control file line (``fgets`` into 201 bytes)
LINE_MAX = 200


@dataclass
class Control:
    """The inference control file's settings (LASTZ ``read_control_file``), with
    LASTZ's defaults."""

    scale: float = 100.0            # inference_scale (0: none)
    write_int: bool = True          # written as integers
    hsp: float | None = None        # hsp_threshold (None: the run's --hspthresh)
    hsp_kind: str = AS_GIVEN
    gapped_top: str | None = None   # an adaptive gapped_threshold (lastz_D refuses it)
    gapped_given: bool = False      # gapped_threshold set (the run's then does not count)
    gap_open: float = WORST_POSSIBLE        # (WORST_POSSIBLE: not given)
    gap_open_kind: str = AS_GIVEN
    gap_extend: float = WORST_POSSIBLE
    gap_extend_kind: str = AS_GIVEN
    entropy: bool | None = None
    sub_iterations: int = MAX_SUB_ITERATIONS
    gap_iterations: int = 0
    step: int | None = None
    percentile: bool = False        # min/max_identity given as percentiles
    min_identity: float | None = None   # percent
    max_identity: float | None = None
    min_coverage: float | None = None
    max_coverage: float | None = None
    min_continuity: float | None = None
    max_continuity: float | None = None
    min_match: int | None = None
    min_match_pct: float | None = None
    max_mismatch: int | None = None
    max_gaps: int | None = None
    max_gap_columns: int | None = None


def read_control(path: str, ctl: Control) -> Control:
    """``ctl`` updated by the control file at ``path``, line by line as LASTZ reads it
    (a setting that refers to ``inference_scale`` uses the scale set so far)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise InputError(f'fopen_or_die failed to open "{path}" for "rt"'
                         f" ({exc.strerror or exc})") from None
    text = raw.decode("latin-1")
    lines = text.split("\n")
    ends_in_newline = bool(lines) and lines[-1] == ""
    if ends_in_newline:
        lines.pop()
    pct_mode = None                 # min/max_identity: as percentiles or not (-1 in C)
    have = set()
    for num, line in enumerate(lines, 1):
        # (fgets reads LINE_MAX bytes at a time: a line that needs another read, its
        # newline included, is too long)
        newline = num < len(lines) or ends_in_newline
        if len(line) + newline > LINE_MAX:
            raise InputError(f"line is too long ({path}: line {num})")
        line = line.split("#", 1)[0].strip(" \t\r\v\f")
        if not line:
            continue
        if "=" not in line:
            raise InputError(f"invalid line ({path}: line {num}) {line}")
        name, val = (s.strip(" \t\r\v\f") for s in line.split("=", 1))
        if not val:
            raise InputError(f"empty value in assignment ({path}: line {num}) {name}=")
        where = f"({path}: line {num})"
        if name == "inference_scale":
            if val == "none":
                ctl.scale, ctl.write_int = 0.0, False
            else:
                ctl.scale = float(string_to_score(val))
                ctl.write_int = _plain_int(val)
        elif name in ("hsp_threshold", "gapped_threshold"):
            _threshold(ctl, name, val)
        elif name in ("gap_open_penalty", "gap_extend_penalty"):
            _gap(ctl, name, val)
        elif name == "entropy":
            if val not in ("on", "off"):
                raise InputError(f"invalid on/off in assignment {where} {name}={val}")
            ctl.entropy = val == "on"
        elif name == "max_sub_iterations":
            ctl.sub_iterations = string_to_int(val)
        elif name == "max_gap_iterations":
            ctl.gap_iterations = string_to_int(val)
        elif name == "step":
            step = string_to_int(val)
            if step <= 0:
                raise InputError(f"invalid value for step {where} {name}={val}")
            ctl.step = step
        elif name in ("min_identity", "max_identity"):
            pct = val.endswith("%")
            if pct_mode is not None and pct != pct_mode:
                raise InputError("assignment of identity percentile mismatches earlier "
                                 f"setting {where} {name}=")
            if pct_mode is None:
                pct_mode = ctl.percentile = pct
            v = string_to_double(val[:-1] if pct else val)
            mine, other = (("min_identity", "max_identity") if name == "min_identity"
                           else ("max_identity", "min_identity"))
            setattr(ctl, mine, v)
            have.add(mine)
            if other not in have:
                setattr(ctl, other, 100.0 if other == "max_identity" else 0.0)
        elif name in ("min_coverage", "max_coverage", "min_continuity", "max_continuity"):
            kind = name[4:]
            setattr(ctl, name, string_to_double(val))
            have.add(name)
            for other, edge in ((f"min_{kind}", 0.0), (f"max_{kind}", 100.0)):
                if other not in have:
                    setattr(ctl, other, edge)
        elif name in ("max_gap_count", "max_ngap"):
            ctl.max_gaps = string_to_int(val)
        elif name in ("max_gap_column_count", "max_cgap"):
            ctl.max_gap_columns = string_to_int(val)
        elif name in ("min_match_count", "min_nmatch"):
            if val.endswith("%"):
                ctl.min_match_pct, ctl.min_match = string_to_double(val[:-1]), None
            else:
                ctl.min_match, ctl.min_match_pct = string_to_int(val), None
        elif name in ("max_mismatch_count", "max_nmismatch"):
            ctl.max_mismatch = string_to_int(val)
        else:
            raise InputError(f"invalid name in assignment {where} {name}={val}")
    return ctl


def _plain_int(text: str) -> bool:
    """C's ``sscanf(text, "%d%c", ...) == 1``: an integer with nothing after it."""
    body = text.lstrip(" \t\n\r\v\f")
    if body[:1] in "+-":
        body = body[1:]
    return body.isdigit() and body.isascii()


def _ratio_value(ctl: Control, val: str) -> tuple[float, str]:
    """A threshold's or penalty's (value, ratio kind) as LASTZ parses it."""
    for suffix, kind in (("*inference_scale", TIMES_BEST), ("*worst_substitution", TIMES_WORST)):
        if val.endswith(suffix):
            v = string_to_double(val[:-len(suffix)])
            if kind == TIMES_BEST and ctl.scale > 0:
                return v * ctl.scale, AS_GIVEN
            return v, kind
    return float(string_to_score(val)), AS_GIVEN


def _threshold(ctl: Control, name: str, val: str) -> None:
    hsp = name == "hsp_threshold"
    ctl.gapped_given |= not hsp
    if val.startswith("top"):
        if hsp:
            raise OptionsError("not yet supported by fastz_D: an adaptive hsp_threshold "
                               "in the inference control file")
        ctl.gapped_top = val
    elif not hsp and val == "hsp_threshold":
        ctl.gapped_top = None
    elif hsp:
        ctl.hsp, ctl.hsp_kind = _ratio_value(ctl, val)
    else:
        ctl.gapped_top = None
        _ratio_value(ctl, val)          # (the gapped threshold is not used: no gaps)


def _gap(ctl: Control, name: str, val: str) -> None:
    if name == "gap_open_penalty":
        ctl.gap_open, ctl.gap_open_kind = _ratio_value(ctl, val)
    elif val.endswith("*gap_open_penalty"):
        ctl.gap_extend = string_to_double(val[:-len("*gap_open_penalty")]) * ctl.gap_open
        ctl.gap_extend_kind = ctl.gap_open_kind
    else:
        ctl.gap_extend, ctl.gap_extend_kind = _ratio_value(ctl, val)


# --- The scoring sets ------------------------------------------------------------------


def unit_tables(scale: float) -> tuple[np.ndarray, np.ndarray]:
    """(scoring, masked): LASTZ's unit scoring set times ``scale`` (``new_dna_score_set``,
    ``scale_score_set``) and its masked copy (``masked_score_set``), as float64[256, 256]."""
    s = np.full((256, 256), UNIT_FILL)
    s[0, :] = VERY_BAD
    s[:, 0] = VERY_BAD
    xs = [ord("X"), ord("x")]
    s[xs, :] = UNIT_X
    s[:, xs] = UNIT_X
    set_dna_block(s, np.where(np.eye(4, dtype=bool), UNIT_MATCH, UNIT_MISMATCH), NUCS)
    if scale > 0 and scale != 1:
        s *= scale
    masked = s.copy()
    bad = s[ord("A"), ord("X")]
    for ch in "acgtNnX":                        # (row and column 0 keep theirs)
        masked[ord(ch), 1:] = bad
        masked[1:, ord(ch)] = bad
    return s, masked


def _sub4(table: np.ndarray) -> np.ndarray:
    """The upper-case ACGT block of a 256x256 table, in bit order."""
    idx = [ord(c) for c in NUCS]
    return table[np.ix_(idx, idx)].copy()


def log_odds(counts: np.ndarray, scale: float) -> np.ndarray:
    """LASTZ ``infer_substitution_scores`` (pOpen 0): the scaled log-odds scores of the
    4x4 pair counts, symmetric under strand and species exchange."""
    m = [[0] * 4 for _ in range(4)]
    n1 = [0] * 4
    n2 = [0] * 4
    for x in range(4):
        for y in range(4):
            n = int(counts[x, y])
            for xx, yy in ((x, y), (COMPLEMENT[x], COMPLEMENT[y]), (y, x),
                           (COMPLEMENT[y], COMPLEMENT[x])):
                m[xx][yy] += n
                n1[xx] += n
                n2[yy] += n
    npairs = float(sum(n1))
    for x in range(4):
        if n1[x] == 0 or n2[x] == 0:
            raise InputError("internal error in infer_substitution_scores: "
                             f"n1[{NUCS[x]}] or n2[{NUCS[x]}] is zero")
    q1 = [n / npairs for n in n1]
    q2 = [n / npairs for n in n2]
    over_log2 = 1 / math.log(2.0)
    s = [[0.0] * 4 for _ in range(4)]
    for x in range(4):
        for y in range(4):
            p = m[x][y] / npairs
            if p == 0:
                raise InputError("internal error in infer_substitution_scores: "
                                 f"s[{NUCS[x]}][{NUCS[y]}] = -infinity")
            s[x][y] = math.log(p / (q1[x] * q2[y])) * over_log2
    scale_by = 1.0
    if scale > 0:
        best = s[0][0]
        for row in s:
            for v in row:
                if v > best:
                    best = v
        scale_by = float(scale) / best
    return np.array([[scale_by * v for v in row] for row in s])


def percentile_cut(subs: np.ndarray, coverage: np.ndarray, lo: float, hi: float) -> None:
    """LASTZ ``filter_stats_by_percentile``, in place: the identity bins holding the
    lowest ``lo`` and highest ``1 - hi`` fractions of the aligned pairs are emptied
    (always at least the top and the bottom bin), with LASTZ's C float arithmetic."""
    used = np.flatnonzero(coverage)
    low_bin = int(used[0]) if used.size else IDENTITY_BINS
    total = int(coverage.sum())
    cov_lo = int(float(np.float32(total) * np.float32(lo)) + 0.5)
    cov_hi = int(float(np.float32(total) * np.float32(hi)) + 0.5)
    left = total
    for b in used[::-1].tolist():
        left -= int(coverage[b])
        subs[b] = 0
        coverage[b] = 0
        if left <= cov_hi:
            break
    seen = 0
    for b in range(low_bin, IDENTITY_BINS + 1):
        c = int(coverage[b])
        if c == 0:
            continue
        subs[b] = 0
        coverage[b] = 0
        seen += c
        if seen >= cov_lo:
            break
    if not coverage.any():
        raise InputError("internal error in filter_stats_by_percentile: no alignments "
                         "remain after filtering")


def round_score(v: float) -> int:
    """LASTZ ``round_score``: half away from zero."""
    return int(v + .5) if v >= 0 else int(v - .5)


def scores_text(sub4: np.ndarray, gaps: tuple[float, float] | None, as_ints: bool,
                extras: tuple[float, float] | None = None) -> str:
    """LASTZ ``write_scores`` of a DNA scoring set: ``gaps`` (open, extend) written when
    given, ``extras`` (the round's HSP threshold and x-drop) as closing comments."""
    def fmt(v: float) -> str:
        return str(round_score(v)) if as_ints else f"{v:.6f}"

    worst = 0.0
    for v in sub4.ravel().tolist():
        if v < worst:
            worst = v
    width = 10 if gaps is None else 18
    out = ['# (a LASTZ scoring set, created by "LASTZ --infer")', "",
           f"{'bad_score':<{width}} = X:{fmt(10 * worst)} # used for sub[X][*] and sub[*][X]",
           f"{'fill_score':<{width}} = {fmt(worst)}    # used when sub[*][*] not otherwise "
           "defined"]
    if gaps is not None:
        out += [f"{'gap_open_penalty':<18} = {fmt(gaps[0])}",
                f"{'gap_extend_penalty':<18} = {fmt(gaps[1])}"]
    out.append("")
    w = max([3] + [len(fmt(v)) + 1 for v in sub4.ravel().tolist()])
    out.append(" " + "".join(f" {c:>{w}}" for c in NUCS))
    for r, a in enumerate(NUCS):
        out.append(a + "".join(f" {fmt(v):>{w}}" for v in sub4[r].tolist()))
    if extras is not None:
        out += ["", f"# hsp_threshold    = {extras[0]:f}", f"# x_drop           = {extras[1]:f}"]
    return "\n".join(out) + "\n"


def scores_file_name(pattern: str, round_id: str) -> str:
    """LASTZ ``write_scores``'s file name: ``%s`` becomes the round's id (``s000``,
    ``s001``, ...); for the final scores ``_%s``, else ``.%s``, else ``%s`` is dropped."""
    if not round_id:
        for sub in ("_%s", ".%s"):
            if sub in pattern:
                return pattern.replace(sub, "", 1)
    return pattern.replace("%s", round_id, 1)


# --- The run ---------------------------------------------------------------------------


def check_control(ctl: Control, opts: Options) -> None:
    """lastz_D's refusals at the start of the inference (``drive_scoring_inference``),
    and what fastz_D does not reproduce."""
    top = ctl.gapped_top if ctl.gapped_given else opts.gappedthresh_top
    if top:
        raise OptionsError(f"drive_scoring_inference can't handle score threshold {top}")
    if ((ctl.min_coverage or 0) > 0 or (ctl.max_coverage is not None and ctl.max_coverage < 100)
            or opts.coverage_min is not None or opts.coverage_max is not None):
        raise OptionsError("drive_scoring_inference can't handle query coverage filtering")
    if ctl.gap_iterations > 0:
        raise OptionsError("Gap scoring inference has not been shown to produce useful "
                           "results and is currently blocked.  To unblock gap scoring "
                           "inference, contact the author.")
    if opts.stats is not None:
        raise OptionsError("not yet supported by fastz_D: --inferonly with --stats")


class Filters:
    """The back-end filters of the inference's rounds: the run's, where the control file
    does not set them, and no identity filter where it gives percentiles.

    Any of them set changes more than what is kept: LASTZ then collects each strand's
    HSPs to filter them when the strand is finished (``set_up_hit_processor``), where
    otherwise it counts them as they are found, and its inference loop never finishes
    the minus strand of a query searched on both (``align_for_stats`` continues past it):
    only plus-strand HSPs are counted then.  A match count given as a percentage only
    becomes a count (per query) during a round, so it weighs in that choice from the
    second round on, as the last query's count.  ``collected``: LASTZ collects the
    HSPs whatever the filters (a processor whose segments it merges, --queryhspbest)."""

    def __init__(self, ctl: Control, opts: Options, collected: bool = False):
        ident = (opts.identity_min, opts.identity_max)
        if ctl.min_identity is not None:
            ident = (None, None) if ctl.percentile else (ctl.min_identity, ctl.max_identity)
        cont = (opts.continuity_min, opts.continuity_max)
        if ctl.min_continuity is not None:
            cont = (ctl.min_continuity, ctl.max_continuity)
        nmatch = opts.filter_nmatch if ctl.min_match is None else ctl.min_match
        pct = opts.filter_nmatch_pct if ctl.min_match_pct is None else ctl.min_match_pct
        nmis = opts.filter_nmismatch if ctl.max_mismatch is None else ctl.max_mismatch
        ngap = opts.filter_ngap if ctl.max_gaps is None else ctl.max_gaps
        cgap = opts.filter_cgap if ctl.max_gap_columns is None else ctl.max_gap_columns
        self.first_count = nmatch or 0
        self.opts = replace(opts, identity_min=ident[0], identity_max=ident[1],
                            continuity_min=cont[0], continuity_max=cont[1],
                            filter_nmatch=nmatch or None, filter_nmatch_pct=pct,
                            filter_nmismatch=nmis if nmis is not None and nmis >= 0 else None,
                            filter_ngap=ngap, filter_cgap=cgap,
                            coverage_min=None, coverage_max=None, gapped=True)
        # (the match count decides apart: see ``collect``)
        self.others = collected or collects_hsps(replace(self.opts, filter_nmatch=None))

    def collect(self, round_no: int, last_query) -> bool:
        """Whether LASTZ collects (and filters) round ``round_no``'s HSPs."""
        from .backend_filters import min_match_count
        if self.others:
            return True
        if round_no == 0 or self.opts.filter_nmatch_pct is None:
            return self.first_count > 0
        return min_match_count(self.opts, last_query) > 0


class Inference:
    """The target, its seed index and the query strands, searched once a round."""

    def __init__(self, opts: Options, ctl: Control):
        from ..io.sequences import iter_queries, load_target, reverse_complement_sequence
        from .parallel import resolve_workers
        from .seeding import build_index
        self.opts = opts
        self.target = load_target(opts.target, opts)
        step = ctl.step if ctl.step is not None else opts.step
        self.threads = resolve_workers(opts.workers)
        self.index = build_index(self.target.chars, opts.seed, step, word=opts.word,
                                 max_word_count=(opts.extra or {}).get("maxwordcount"),
                                 threads=self.threads)
        # LASTZ's hit processor with the inference's settings (no chaining, no gapped
        # extension): None for the default (x-drop, one hit per diagonal extent)
        hp = hit_processor(replace(opts, gapped=False, chain=False))
        if hp is None and not opts.gfextend:
            hp = default_processor(False, False)
        self.hp = hp
        self.filters = Filters(ctl, opts, collected=(hp is not None and hp.merge)
                               or "queryhspbest" in (opts.extra or {}))
        self.queries = [(seq, reverse_complement_sequence(seq))
                        for seq in iter_queries(opts.query, opts)]
        # LASTZ "rewinds" a query file of one sequence by keeping the sequence as the
        # round left it: with --strand=minus reverse-complemented, so the next round
        # searches its plus strand, the one after its minus strand, and so on
        one = len(self.queries) == 1 and (self.queries[0][0].partitions is None
                                          or len(self.queries[0][0].partitions.offset) == 1)
        self.alternate = one and opts.strand == "minus"
        spec = self.index.spec
        self.trans = 0 if spec.halfweight else int(opts.transition)
        self.entropy = opts.entropy if ctl.entropy is None else ctl.entropy
        self.codes = {}                 # seed codes of each strand, made once
        # --rdotplot: lastz_D plots every HSP it counts, round after round
        self.plot = None
        if opts.rdotplot is not None:
            from ..io.formats import dotplot_writer
            from ..scoring import scoreset_from_options
            self.plot = dotplot_writer(opts, scoreset_from_options(opts), self.target, "")

    def _codes(self, q: np.ndarray) -> np.ndarray:
        if id(q) not in self.codes:
            self.codes[id(q)] = kseed.char_codes(q)
        return self.codes[id(q)]

    def counted(self, round_no: int) -> tuple[list, bool]:
        """(the (query strand buffer, strand) pairs whose HSPs round ``round_no`` (from
        0) counts, whether they are filtered).  With a back-end filter, a query
        searched on both strands counts its plus strand only (see ``Filters``)."""
        strand = self.opts.strand
        collect = bool(self.queries) and self.filters.collect(round_no, self.queries[-1][0])
        out = []
        for plus, minus in self.queries:
            if strand == "minus":
                out.append((plus, "+") if self.alternate and round_no % 2 else (minus, "-"))
                continue
            out.append((plus, "+"))
            if strand == "both" and not collect:
                out.append((minus, "-"))
        return out, collect

    def hsps(self, query, masked: np.ndarray, xdrop: float, thresh: float,
             collect: bool) -> np.ndarray:
        """One query strand's HSPs (HSP_DOUBLE_DTYPE, in LASTZ's order) under the
        round's scores; ``collect``: through the back-end filters."""
        hp = self.hp
        h = fractional_hsps(self.index, self.target.chars, query.chars,
                            self._codes(query.chars), masked, self.trans, xdrop, thresh,
                            self.entropy, hp)
        if collect:
            # (LASTZ finish_one_strand: merged where its processor asks, then filtered)
            if hp is not None and hp.merge:
                h = merge_segments(h)
            h = filter_hsps(h, self.target, query, self.filters.opts)
        return h


def infer_scores(opts: Options, ctl: Control, each_round=None
                 ) -> tuple[np.ndarray, float, float, int]:
    """LASTZ ``drive_scoring_inference`` with gap iterations off: (the inferred 4x4
    substitution scores, gap open, gap extend, the number of rounds run).
    ``each_round(round_no, scores, threshold, x-drop)`` is told what each round starts
    with."""
    check_control(ctl, opts)
    run = Inference(opts, ctl)
    scoring, masked = unit_tables(ctl.scale)
    sub4 = _sub4(scoring)
    gap_open, open_kind = ctl.gap_open, ctl.gap_open_kind
    gap_extend, extend_kind = ctl.gap_extend, ctl.gap_extend_kind
    if gap_open == WORST_POSSIBLE:
        gap_open, open_kind = UNIT_OPEN, TIMES_WORST
    if gap_extend == WORST_POSSIBLE:
        gap_extend, extend_kind = UNIT_EXTEND, TIMES_WORST
    best, worst = float(sub4.max()), float(sub4.min())
    hsp_ratio = float(ctl.hsp if ctl.hsp is not None else opts.hspthresh)
    if ctl.hsp_kind == AS_GIVEN:
        hsp_ratio *= 1.0 / best
    elif ctl.hsp_kind == TIMES_WORST:
        hsp_ratio *= (-worst) / best
    try:
        with ThreadPoolExecutor(max_workers=run.threads) as pool:
            sub4, rounds = _rounds(run, ctl, pool, masked, sub4, hsp_ratio, each_round)
    finally:
        if run.plot is not None:
            run.plot.out.close()
    best, worst = float(sub4.max()), float(sub4.min())
    ratios = {AS_GIVEN: 1.0 / best, TIMES_WORST: (-worst) / best, TIMES_BEST: 1.0}
    return (sub4, gap_open * ratios[open_kind] * best,
            gap_extend * ratios[extend_kind] * best, rounds)


def _rounds(run: Inference, ctl: Control, pool, masked: np.ndarray, sub4: np.ndarray,
            hsp_ratio: float, each_round=None) -> tuple[np.ndarray, int]:
    """LASTZ's phase I: align, count, infer until the scores come back to a set seen
    before; returns the last inferred 4x4 scores and the number of rounds run
    (``masked`` is updated as it goes)."""
    rounds = 0
    past = [(sub4[0, 0], sub4[3, 3], sub4[0, 1], sub4[0, 2], sub4[0, 3], sub4[1, 2])]
    acgt = [ord(c) for c in NUCS]
    for round_no in range(max(0, min(ctl.sub_iterations, MAX_SUB_ITERATIONS))):
        best = float(sub4.max())
        thresh, xdrop = hsp_ratio * best, 10 * best
        if each_round is not None:
            each_round(round_no, sub4, thresh, xdrop)
        subs = np.zeros((IDENTITY_BINS + 1, 4, 4), np.int64)
        coverage = np.zeros(IDENTITY_BINS + 1, np.int64)
        queries, collect = run.counted(round_no)
        # (the strands are searched in threads: the kernels release the GIL)
        found = pool.map(lambda qs: run.hsps(qs[0], masked, xdrop, thresh, collect),
                         queries)
        for (query, strand), h in zip(queries, found):
            binned_substitutions(h["pos1"], h["pos2"], h["length"], run.target.chars,
                                 query.chars, NUC_BITS, subs, coverage)
            if run.plot is not None and h.shape[0]:
                run.plot.write(StrandResult(query, strand, Alignments.from_hsps(h)))
        if ctl.percentile:
            percentile_cut(subs, coverage, _c_float(ctl.min_identity),
                           _c_float(ctl.max_identity))
        sub4 = log_odds(subs.sum(axis=0), ctl.scale)
        now = (sub4[0, 0], sub4[1, 1], sub4[0, 1], sub4[0, 2], sub4[0, 3], sub4[1, 2])
        done = any(all(-CLOSE_ENOUGH <= u - v <= CLOSE_ENOUGH for u, v in zip(now, old))
                   for old in past)
        past.append(now)
        masked[np.ix_(acgt, acgt)] = sub4           # (LASTZ repair_scores)
        rounds += 1
        if done:
            break
    return sub4, rounds


def _c_float(percent: float) -> float:
    """A control file's identity (percent) as LASTZ keeps it: a C float fraction."""
    return float(np.float32(percent / 100))


def run_inference(opts: Options) -> int:
    """``fastz_D --inferonly``: write the inferred scoring file; returns the exit code."""
    from ..io.output import output_stream
    with output_stream(opts.output) as main:    # (LASTZ creates it: nothing else in it)
        infer_and_write(opts)
        if opts.markend:
            main.write("# lastz end-of-file\n")
    return 0


def infer_and_write(opts: Options):
    """Infer the pair's scores as ``--infer[only]`` asks and write the scoring file
    (stdout, or ``--infscores``); returns the scoring set lastz_D then aligns with and
    the step of its seed table: lastz_D builds the table once with the inference's
    step and rebuilds it only when both the seed and the step differ (``&&`` for
    ``||``), which a control file cannot make happen, so the control file's step also
    samples the target for the alignment."""
    from ..io.output import output_stream
    from ..scoring import scoreset_from_options
    extra = opts.extra or {}
    ctl = Control()
    path = extra.get("inferonly", extra.get("infer"))
    if isinstance(path, str):
        read_control(path, ctl)
    dest = extra.get("infscores")
    dest = dest if isinstance(dest, str) else None

    def each_round(round_no: int, sub4: np.ndarray, thresh: float, xdrop: float) -> None:
        # (--infscores=NAME with %s: LASTZ writes the scores each round starts with)
        with output_stream(scores_file_name(dest, f"s{round_no:03d}")) as out:
            out.write(scores_text(sub4, None, False, (thresh, xdrop)))

    opts = opts.resolved(scoreset_from_options(opts))
    opts.validate()
    sub4, gap_open, gap_extend, rounds = infer_scores(
        opts, ctl, each_round if dest is not None and "%s" in dest else None)
    text = scores_text(sub4, (gap_open, gap_extend), ctl.write_int)
    with output_stream(None if dest is None else scores_file_name(dest, "")) as out:
        out.write(text)
    return inferred_scoreset(sub4, gap_open, gap_extend, rounds, ctl.scale), ctl.step


def inferred_scoreset(sub4: np.ndarray, gap_open: float, gap_extend: float, rounds: int,
                      scale: float):
    """The scoring set ``drive_scoring_inference`` returns, which lastz_D aligns with.

    LASTZ ping-pongs two sets through the rounds, each round's scores written into the
    one not in use: the scaled unit set and one made with every score 0.  The set it
    returns is the unit set after an even number of rounds, the zero set after an odd
    one, with ``repair_scores`` applied (the ACGT scores in both cases, N against ACGT
    and N scoring the worst substitution, row and column 0 very bad); every other cell
    (X, other letters) keeps that set's first value, and the masked set is made from
    it afresh (``masked_score_set``)."""
    from ..scoring import DNA, ScoreSet, _masked_table, _settled
    unit, _ = unit_tables(scale)
    sub = unit if rounds % 2 == 0 else np.zeros((256, 256))
    if rounds:
        worst = min(0.0, float(sub4.min()))
        set_dna_block(sub, sub4, NUCS)
        ns = [ord("N"), ord("n")]
        acgt = [ord(ch) for ch in NUCS + NUCS.lower()]
        sub[np.ix_(acgt, ns)] = worst
        sub[np.ix_(ns, acgt)] = worst
        sub[np.ix_(ns, ns)] = worst
        sub[0, :] = VERY_BAD
        sub[:, 0] = VERY_BAD
    masked = _masked_table(sub, DNA + DNA.lower(), DNA + DNA.lower(), ord("X"))
    return _settled(ScoreSet(sub, masked, float(gap_open), float(gap_extend), DNA,
                             sub4.copy(), None, float(sub[ord("X"), ord("A")]),
                             float(sub[ord("A"), ord("C") | 0x80]), {}))
