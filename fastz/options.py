"""One frozen Options object holds every setting, with LASTZ 1.04.22's defaults.

Derived defaults (xdrop, ydrop, hspthresh, gappedthresh, gap penalties, ...) are left as
``None`` here and filled in by ``resolved()``, because they depend on the scoring set.
Field names are shared by every stage; a stage reads only its own section.

Parsing of a LASTZ argv into Options lives in ``fastz.lastz_args``
(``Options.from_argv``); derivation (``resolved``, mirroring the second half of LASTZ
``lastz.c parse_options`` and ``create_seed_structure``) and validation (``validate``,
the same function's sanity checks) live here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from .cscan import float_value
from .errors import OptionsError

SEED_12OF19 = "1110100110010101111"
SEED_14OF22 = "1110101100110010101111"
#: seeds the scores-file ``seed``/``T`` setting can select: (pattern, transitions)
T_SEEDS = {"T=1": (SEED_12OF19, 1), "T=2": (SEED_12OF19, 0),
           "T=3": (SEED_14OF22, 1), "T=4": (SEED_14OF22, 0)}
DEFAULT_HSPTHRESH = 3000
MAX_SEED_LEN = 31
MAX_HALFWEIGHT_SEED_LEN = 63
MAX_SEED_BIT_WEIGHT = 31
MAX_RESOLVED_BITS = 16


@dataclass(frozen=True)
class Options:
    # --- sequences (names of the files as given; specifiers are parsed by fastz.io) ---
    target: str = ""                      # target specifier (file[actions])
    query: str | None = None              # query specifier; None = stdin (= target with --self)
    # --- seeding (--seed --step --[no]transition --strand --word) ---
    seed: str = SEED_12OF19               # normalised pattern over 1/0/T (12of19); ',' joins seeds
    seed_name: str = SEED_12OF19          # as LASTZ prints it (maf+ "# seed=", --show=defaults);
                                          # overweight seeds show demoted 1s as T plus "/RR.."
    transition: int = 1                   # 0, 1 or 2 transitions allowed in a seed hit
    step: int = 1                         # index every step-th target word
    strand: str = "both"                  # both | plus | minus
    word: int = 28                        # max index bits (overweight seeds beyond)
    self_compare: bool = False            # --self
    seed_filter_matches: int | None = None        # --filter=[T,]M: at least M matches ...
    seed_filter_transversions: int | None = None  # ... and at most T transversions
    seed_filter_cares_only: bool = False          # --filter=cares:...
    twins_min: int | None = None          # --twins=[min..]max (None = no twins)
    twins_max: int | None = None
    recover_seeds: bool = False           # --recoverseeds
    # --- filtering (--gfextend --xdrop --hspthresh --entropy) ---
    gfextend: bool = True                 # gap-free extension of seed hits (x-drop, --exact, ...)
    exact: int | None = None              # --exact=<len>: exact-match extension (also hspthresh)
    mismatch: tuple[int, int] | None = None  # --mismatch=<N>,<len> / --<N>mismatch=<len>
    xdrop: int | None = None              # None -> 10 * sub[A][A] (910 with HOXD70)
    hspthresh: int | None = None          # None -> 3000 (or scores-file / --match derived);
                                          # stays None when adaptive (hspthresh_top)
    hspthresh_top: str | None = None      # adaptive: "top<n>" or "top<p>%"
    entropy: bool = True                  # entropy-adjust HSP scores before the threshold
    entropy_report: bool = False
    segments_file: str | None = None      # --segments=FILE: anchors from a file
    chain: bool = False                   # --chain
    chain_diag: int | None = None         # --chain=G,P / G=
    chain_anti: int | None = None         # R=
    # --- gapped extension (--gap --ydrop --gappedthresh --[no]gapped --[no]ytrim) ---
    gapped: bool = True
    gap_open: int | None = None           # None -> 400 (or derived)
    gap_extend: int | None = None         # None -> 30 (or derived)
    ydrop: int | None = None              # None -> gap_open + 300 * gap_extend
    gappedthresh: int | None = None       # None -> hspthresh (3000 with --nogfextend)
    gappedthresh_top: str | None = None   # adaptive, as hspthresh_top
    ytrim: bool = True
    allgappedbounds: bool = False
    inner: int = 0                        # --inner / H= (0 = off)
    notrivial: bool = False
    mirror: bool | None = None            # --mirror / --nomirror (None = LASTZ's default)
    traceback_bytes: int = 83_886_080     # --allocate:traceback
    # --- scoring (--scores --match --ambiguous) ---
    scores_file: str | None = None
    match_reward: int | None = None       # --match=R,P
    match_penalty: int | None = None      # (positive; None = same as R)
    ambiguous_n: bool = False             # --ambiguous=n (also set by iupac)
    ambiguous_iupac: bool = False         # --ambiguous=iupac
    ambiguous_reward: int = 0
    ambiguous_penalty: int = 0            # positive; the tables get -penalty
    special_subs: tuple = ()              # ((row_nuc, col_nuc, score), ...) from "AC:-50" words
    # --- back-end filters (percentages are C floats, as LASTZ parses them) ---
    identity_min: float | None = None     # percent
    identity_max: float | None = None
    coverage_min: float | None = None
    coverage_max: float | None = None
    continuity_min: float | None = None
    continuity_max: float | None = None
    filter_nmatch: int | None = None
    filter_nmatch_pct: float | None = None  # --filter=nmatch:<p>%  (percent)
    filter_nmismatch: int | None = None
    filter_ngap: int | None = None
    filter_cgap: int | None = None
    masking: int = 0                      # --masking=N (dynamic masking)
    # --- output ---
    format: str = "lav"                   # see fastz.lastz_args.FORMATS
    format_fields: tuple[str, ...] = ()   # --format=general[-]:<fields>: canonical names in
                                          # order ("" = line break); () = the format's own
                                          # fields (fastz.lastz_words.DEFAULT_FIELDS)
    output: str | None = None             # --output=FILE (None = stdout)
    markend: bool = False
    degapify: bool = False                # --format=mafsegments / genseg (gap-free pieces)
    maf_distinguish_names: bool = False   # --format=~maf
    readgroup: str | None = None          # --readgroup (SAM @RG tags)
    rdotplot: str | None = None           # --rdotplot=FILE (extra output)
    show_defaults: str | None = None      # --show=defaults: "stdout" | "stderr"
    args: str = ""                        # LASTZ's args string: non-file words, each + " "
    # --- system (fastz only) ---
    workers: int = 0                      # --workers=N worker processes (0 = all cores)
    backend: str = "auto"                 # auto | cpu | gpu
    dp: str = "auto"                      # gapped DP: single (one pass, full traceback),
                                          # split (inspector + eager + executor), auto
    quiet: bool = False
    stats: str | None = None              # --stats[=file] ("-" = stderr)
    double_scores: bool = False           # fastz_D: LASTZ's lastz_D build (double scores:
                                          # fractional HSP scores, thresholds and drops)
    # --- bookkeeping ---
    given: frozenset = field(default=frozenset(), compare=False)   # fields set on the command line
    derived: bool = field(default=False, compare=False)            # True after resolved()
    extra: dict = field(default_factory=dict, compare=False, hash=False)  # rare LASTZ features

    # --- construction -------------------------------------------------------------------

    @classmethod
    def from_argv(cls, words) -> "Options":
        """Parse LASTZ-style command-line words (``fastz.lastz_args.parse_lastz_argv``)."""
        from .lastz_args import parse_lastz_argv
        return parse_lastz_argv(list(words))

    def _given(self, name: str) -> bool:
        """Was this setting chosen by the user (LASTZ's ``have...`` flags)?

        Command-line parsing records the fields it set in ``given``; for Options built in
        code, a value different from the default counts as given (until ``resolved()``).
        """
        if name in self.given:
            return True
        if self.derived:
            return False
        return getattr(self, name) != _DEFAULTS[name]

    @property
    def xdrop_mode(self) -> bool:
        """Gap-free extension is LASTZ's x-drop (not --nogfextend, --exact, --mismatch)."""
        return self.gfextend and self.exact is None and self.mismatch is None

    @property
    def mirrors(self) -> bool:
        """--self output gets mirror images (unless --nomirror)."""
        return bool(self.self_compare) and self.mirror is not False

    @property
    def mirrors_hsps(self) -> bool:
        """The mirror images are made of the gap-free HSPs (--self --nogapped), not of
        gapped alignments."""
        return self.mirrors and not self.gapped

    @property
    def hspthresh_text(self) -> str:
        """K as LASTZ prints it (``score_thresh_to_string``): 3000, top10, top5.0%."""
        return thresh_text(self.hspthresh, self.hspthresh_top, self.double_scores)

    @property
    def gappedthresh_text(self) -> str:
        """L as LASTZ prints it."""
        return thresh_text(self.gappedthresh, self.gappedthresh_top, self.double_scores)

    # --- derived defaults ---------------------------------------------------------------

    def resolved(self, scores=None) -> "Options":
        """Fill every derived default, as LASTZ ``parse_options`` does after reading argv.

        ``scores`` is the ScoreSet from ``fastz.scoring.scoreset_from_options(self)``
        (built here if omitted); its ``settings`` carry a scores file's thresholds.

        Order (LASTZ's): --nogfextend forces K=0 and entropy off; then the scores file or
        --match fill K, L (exact mode), X, Y, step and seed where not given; then
        X = 10*sub[first row][first col], Y = O + 300E (with the final O, E), and
        L = K (x-drop mode) or 3000.  X keeps its derived value under --nogfextend.
        """
        from .scoring import derived_score, scoreset_from_options
        if scores is None:
            scores = scoreset_from_options(self)
        g = self._given
        st = scores.settings if self.scores_file is not None else {}

        seed, transition = self.seed, self.transition
        if "seed" in st and not g("seed"):
            seed, transition = T_SEEDS[st["seed"]]
        seed = normalize_seed(seed)
        transition = _effective_transition(seed, transition, g("transition"))

        gapped = self.gapped
        if self.format == "segments" and not g("gapped"):
            gapped = False

        hsp, hsp_top = self.hspthresh, self.hspthresh_top
        have_hsp = hsp is not None or hsp_top is not None
        if not have_hsp:
            hsp = DEFAULT_HSPTHRESH if self.gfextend else 0
        entropy = self.entropy and self.gfextend
        xdrop, ydrop = self.xdrop, self.ydrop
        gth, gth_top = self.gappedthresh, self.gappedthresh_top
        have_gth = gth is not None or gth_top is not None
        step = self.step

        if self.scores_file is not None:
            if not have_hsp and "hsp_threshold" in st:
                hsp, hsp_top, have_hsp = st["hsp_threshold"], None, True
            if not have_gth and "gapped_threshold" in st:
                gth, gth_top, have_gth = st["gapped_threshold"], None, True
            if xdrop is None and "x_drop" in st:
                xdrop = st["x_drop"]
            if ydrop is None and "y_drop" in st:
                ydrop = st["y_drop"]
            if not g("step") and "step" in st:
                step = st["step"]
        elif self.match_reward is not None:
            penalty = self.match_penalty if self.match_penalty is not None else self.match_reward
            thresh = derived_score(30.0 * self.match_reward, self.double_scores)
            if not have_hsp:
                hsp, hsp_top, have_hsp = thresh, None, True
            if not have_gth and self.gfextend and self.exact is not None:
                gth, gth_top, have_gth = thresh, None, True
            if xdrop is None:
                xdrop = derived_score(10.0 * math.sqrt(penalty), self.double_scores)
            if ydrop is None:
                ydrop = 2 * xdrop

        if xdrop is None:
            xdrop = 10 * scores.aa
        if ydrop is None:
            ydrop = scores.gap_open + 300 * scores.gap_extend
        if not have_gth:
            if self.xdrop_mode:
                gth, gth_top = hsp, hsp_top
            else:
                gth, gth_top = DEFAULT_HSPTHRESH, None
        if hsp_top is not None:
            hsp = None
        if gth_top is not None:
            gth = None

        query = self.query
        if self.self_compare and query is None:
            query = self.target
        # keep what the user chose visible to validate() once defaults are filled in
        given = self.given | {n for n in _USER_CHOICES if g(n)}
        return replace(
            self, seed=seed, seed_name=seed_display(seed, self.word), transition=transition,
            gapped=gapped, hspthresh=hsp, hspthresh_top=hsp_top, gappedthresh=gth,
            gappedthresh_top=gth_top, xdrop=xdrop, ydrop=ydrop, entropy=entropy, step=step,
            gap_open=scores.gap_open, gap_extend=scores.gap_extend, query=query,
            given=frozenset(given), derived=True)

    def scores_warning(self, scores) -> str | None:
        """LASTZ's stderr warning when a scores file's match scores look unlike the
        default thresholds it leaves in force (call on the options *before* resolved())."""
        if self.scores_file is None:
            return None
        st = scores.settings
        have_hsp = (self.hspthresh is not None or self.hspthresh_top is not None
                    or "hsp_threshold" in st)
        have_gth = (self.gappedthresh is not None or self.gappedthresh_top is not None
                    or "gapped_threshold" in st)
        if not have_hsp and self.xdrop_mode:
            flag = "--hspthresh"
        elif not have_hsp and not have_gth:
            flag = "--gappedthresh"
        else:
            return None
        from .scoring import score_text
        diag = [(c, scores.sub[ord(c), ord(c)].item()) for c in "ACGT"]
        lo = hi = diag[0]
        for c, v in diag[1:]:
            if v < lo[1]:
                lo = (c, v)
            elif v > hi[1]:
                hi = (c, v)
        head = ("WARNING.  Scores file may warrant setting of thresholds absent from "
                f"{self.scores_file}.\n")
        d = self.double_scores                  # (LASTZ's scoreFmt: %le under lastz_D)
        default = score_text(DEFAULT_HSPTHRESH, d)
        if lo[1] < 70:
            return (head + f"Minimum match score is {score_text(lo[1], d)}, for matrix entry "
                    f"({lo[0]},{lo[0]}).\nThis may not work well with default {flag}="
                    f"{default} (may result in few alignments).\n")
        if hi[1] > 120:
            return (head + f"Maximum match score is {score_text(hi[1], d)}, for matrix entry "
                    f"({hi[0]},{hi[0]}).\nThis may not work well with default {flag}="
                    f"{default} (may result in too many alignments).\n")
        return None

    # --- validation ---------------------------------------------------------------------

    def _check_score_range(self) -> None:
        """Scores LASTZ converts to ints it cannot hold: lastz's thresholds and drops
        derived past 32 bits (from a huge --match, say), converted with undefined
        results; lastz_D's doubles past an int, or a y-drop over the gap extension past
        one, which its DP converts to ints for sizes and bounds (it fails or prints
        nothing; fastz_D's kernels would overrun their buffers).  fastz refuses them."""
        from .scoring import BEST_POSSIBLE
        d = self.double_scores
        values = [("--hspthresh", self.hspthresh), ("--gappedthresh", self.gappedthresh),
                  ("--xdrop", self.xdrop), ("--ydrop", self.ydrop)]
        if d:
            values += [("--gap (open)", self.gap_open), ("--gap (extend)", self.gap_extend),
                       ("--match (reward)", self.match_reward),
                       ("--match (penalty)", self.match_penalty),
                       ("--ambiguous (reward)", self.ambiguous_reward),
                       ("--ambiguous (penalty)", self.ambiguous_penalty),
                       ("--chain (diagonal)", self.chain_diag),
                       ("--chain (antidiagonal)", self.chain_anti)]
        for flag, v in values:
            if v is not None and not -BEST_POSSIBLE - 1 <= v <= BEST_POSSIBLE:
                raise OptionsError(
                    f"{flag} is {v:g}, which fastz_D does not take (a finite number within "
                    f"+-{BEST_POSSIBLE:,})" if d else
                    f"{flag} would be {v}, more than LASTZ's 32-bit scores hold; use "
                    "smaller scores")
        if d and self.ydrop is not None and self.gap_extend and \
                not abs(self.ydrop / self.gap_extend) + 6 <= BEST_POSSIBLE:
            raise OptionsError(f"--ydrop / the gap extension penalty is "
                               f"{self.ydrop / self.gap_extend:g}, which fastz_D does not "
                               f"take (lastz_D's y-drop tail must fit an int)")

    def validate(self) -> None:
        """Raise OptionsError (naming the flag) for settings LASTZ rejects.

        Works before or after ``resolved()``.  Scores-file problems surface when the
        scoring set is built (``fastz.scoring.scoreset_from_options``).
        """
        g = self._given
        if not self.target and "targetcapsule" not in (self.extra or {}):
            raise OptionsError("You must specify a target file")
        if self.self_compare:
            if self.query not in (None, self.target) and not self.derived:
                raise OptionsError("--self can't be used when you specify a query file")
            if self.segments_file is not None:
                raise OptionsError("--segments can't be used with --self")
        elif self.mirror:
            raise OptionsError("--mirror can only be used with --self")
        if self.double_scores or self.derived:
            self._check_score_range()
        if self.word < 8:
            raise OptionsError(f"--word doesn't allow so few bits ({self.word})")
        if self.word > MAX_SEED_BIT_WEIGHT:
            raise OptionsError(f"max index bits cannot exceed {MAX_SEED_BIT_WEIGHT} "
                               f"(it's {self.word}).")
        if self.traceback_bytes < 100 * 1024:
            raise OptionsError("--allocate:traceback must be at least 100K (it's only "
                               f"{unitize(self.traceback_bytes)})")
        if self.step <= 0:
            raise OptionsError("--step must be positive")
        if self.masking < 0:
            raise OptionsError("--masking cannot be negative")
        if self.strand not in ("both", "plus", "minus"):
            raise OptionsError(f"--strand must be both, plus or minus (not {self.strand})")
        if self.transition not in (0, 1, 2):
            raise OptionsError(f"--transition must be 0, 1 or 2 (not {self.transition})")
        if self.format == "segments" and self.inner > 0 and not g("gapped"):
            raise OptionsError("--inner cannot be used with --writesegments")
        if not self.gfextend:
            if not self.gapped and self.scores_file is not None:
                raise OptionsError("--scores requires --gfextend or --gapped")
            if self.xdrop is not None and g("xdrop"):
                raise OptionsError("--xdrop requires --gfextend")
            if g("hspthresh") or g("hspthresh_top"):
                raise OptionsError("--hspthresh requires --gfextend")
            if g("entropy") and self.entropy:
                raise OptionsError("--entropy requires --gfextend")
        if not self.chain:
            if self.chain_diag:
                raise OptionsError("G=<score> requires --chain")
            if self.chain_anti:
                raise OptionsError("R=<score> requires --chain")
        elif self.segments_file is not None:
            raise OptionsError("--segments can't be used with --chain")
        gapped = self.gapped and not (self.format == "segments" and not g("gapped"))
        if not gapped:
            if g("gap_open") or g("gap_extend"):
                raise OptionsError("--gap (or O= or E=) requires --gapped")
            if g("ydrop"):
                raise OptionsError("--ydrop requires --gapped")
            if g("gappedthresh") or g("gappedthresh_top"):
                raise OptionsError("--gappedThreshold requires --gapped")
            if g("inner"):
                raise OptionsError("--inner requires --gapped")
            if not self.ytrim:
                raise OptionsError("--noytrim requires --gapped")
            if self.allgappedbounds:
                raise OptionsError("--allgappedbounds requires --gapped")
        elif self.format == "segments":
            raise OptionsError("can't used --writesegments with --gapped")
        if self.segments_file is not None:
            if g("hspthresh") or g("hspthresh_top"):
                raise OptionsError("--segments can't be used with --hspthresh")
            if g("xdrop"):
                raise OptionsError("--segments can't be used with --xdrop")
            if g("seed"):
                raise OptionsError(seed_refusal("--segments", (self.extra or {}).get("seed_arg")))
        if g("xdrop") and self.xdrop is not None and self.xdrop <= 0:
            raise OptionsError(f"{self.xdrop} is not a legitimate x-drop threshold")
        if g("ydrop") and self.ydrop is not None and self.ydrop <= 0:
            raise OptionsError(f"{self.ydrop} is not a legitimate y-drop threshold")
        if self.match_reward is not None:
            if self.scores_file is not None:
                raise OptionsError("can't use --match (or --unitscores) and --scores together")
            if self.match_reward <= 0:
                raise OptionsError(f"{self.match_reward} is not a valid match score")
            if self.match_penalty is not None and self.match_penalty <= 0:
                raise OptionsError(f"{self.match_penalty} is not a valid mismatch penalty")
        if self.ambiguous_penalty < 0:
            kind = "iupac" if self.ambiguous_iupac else "n"
            raise OptionsError(f"penalty for --ambiguous={kind} must be non-negative")
        seed = normalize_seed(self.seed)
        seed_display(seed, self.word)                 # raises for bad seeds
        trans = _effective_transition(seed, self.transition, g("transition"))
        if trans != 0 and "1" not in seed.split(",")[0]:
            raise OptionsError("--transition can only be used with strict seeds (1s and 0s)")
        if self.seed_filter_matches is not None and self.seed_filter_matches >= 0:
            first = seed.split(",")[0]
            positions = len(first) if not self.seed_filter_cares_only else \
                sum(c != "0" for c in first)
            if self.seed_filter_matches > positions:
                raise OptionsError(f"--filter can't require more matches "
                                   f"({self.seed_filter_matches}) than seed ({positions})")
        self._check_rare()
        if self.workers < 0:
            raise OptionsError("--workers must be 0 (all cores) or positive")
        if self.dp not in ("auto", "single", "split"):
            raise OptionsError(f"--dp must be auto, single or split (not {self.dp})")
        if self.backend not in ("auto", "cpu", "gpu"):
            raise OptionsError(f"--backend must be auto, cpu or gpu (not {self.backend})")
        from .lastz_words import check_format
        check_format(self.format, self.format_fields)

    def _check_inference(self) -> None:
        """LASTZ's checks of --infer/--inferonly, in its order."""
        x, g = self.extra, self.given
        if "inferonly" in x:
            for clash, on in (("--rawhits", x.get("rawhits")), ("--masking", self.masking > 0),
                              ("--census", "census" in x),
                              (f"--format={lastz_format_name(self.format)}",
                               self.format != "lav"),
                              ("--inner", self.inner > 0),
                              ("--segments", self.segments_file is not None)):
                if on:
                    raise OptionsError(f"{clash} can't be used with --inferonly")
        if self.self_compare:
            raise OptionsError("--self can't be used with --infer")
        # (--stopafter is LASTZ's HSP-immediate mode too, refused in --anyornone's words)
        for keys, message in ((("tableonly",), "--infer and --tableonly are not compatible"),
                              (("anyornone", "limitperquery"),
                               "can't use --anyornone with --infer[only]"),
                              (("queryhsplimit",), "can't use --anyornone or --queryhsplimit "
                                                   "with --infer[only]"),
                              (("chores",), "can't use --chores with --infer[only]")):
            if any(key in x for key in keys):
                raise OptionsError(message)
        if not self.double_scores:
            raise OptionsError("scoring inference can't be performed with integer arithmetic;"
                               "  use lastz_D (fastz_D)")
        if self.segments_file is not None:
            raise OptionsError("--segments can't be used with --infer[only]")
        for clash, on in (("--scores", self.scores_file is not None),
                          ("--match (or --unitscores)", self.match_reward is not None),
                          ("--gap (or O=)", "gap_open" in g),
                          ("--gap (or E=)", "gap_extend" in g),
                          ("special substitution scores", bool(self.special_subs))):
            if on:
                raise OptionsError(f"can't use --infer[only] and {clash} together")
        if self.show_defaults is not None:
            raise OptionsError("not yet supported by fastz_D: --show=defaults with "
                               "--inferonly (lastz_D 1.04.22 crashes on it)")
        if self.hspthresh_top is not None:
            raise OptionsError("not yet supported by fastz_D: --inferonly with an adaptive "
                               "--hspthresh")

    def _check_rare(self) -> None:
        """LASTZ's checks on rarely used options (most of which fastz then refuses)."""
        x = self.extra
        if self.readgroup is not None and self.format not in ("sam", "sam-", "softsam",
                                                              "softsam-"):
            raise OptionsError("--readgroup requires one of the SAM formats (e.g. --format=sam)")
        if self.rdotplot is not None and self.format.startswith("rdotplot"):
            raise OptionsError("--format=rdotplot can't be used with --rdotplot=<file>")
        if "outputmasking" in x and self.masking == 0:
            raise OptionsError("--outputmasking requires --masking")
        if x.get("census") is True and self.format not in ("lav", "lav+", "lav+text", "lavscore"):
            raise OptionsError(f"--census with --format={lastz_format_name(self.format)} "
                               "requires --census=<file>")
        if x.get("rawhits") and self.gfextend:
            raise OptionsError("--rawhits can't be used with --gfextend")
        if any(k in x for k in ("infer", "inferonly", "infscores")):
            self._check_inference()
        if "ball" in x:
            raise OptionsError("--ball can't be used with DNA target and query")
        if "anyornone" in x or "limitperquery" in x:
            immediate_limit(x)
            # LASTZ's checks, in its order
            for clash, on in (("--inner", self.inner > 0),
                              ("--segments", self.segments_file is not None),
                              ("adaptive hsp score threshold", self.hspthresh_top is not None),
                              ("--chain", self.chain)):
                if on:
                    raise OptionsError(f"can't use --anyornone with {clash}")
        if "queryhsplimit" in x:
            query_hsp_limit(x)
            if "queryhspbest" in x:
                raise OptionsError("can't use --queryhsplimit with --queryhspbest")
            # LASTZ's checks, in its order
            for clash, on in (("--inner", self.inner > 0),
                              ("--segments", self.segments_file is not None),
                              ("adaptive hsp score threshold", self.hspthresh_top is not None)):
                if on:
                    raise OptionsError(f"can't use --anyornone or --queryhsplimit with {clash}")
        if "queryhspbest" in x:
            query_hsp_best(x)
        if "expand" in x:
            text_expand(x)
        if "querydepth" in x:
            query_depth(x)


# --- rare LASTZ values kept as words in Options.extra, parsed (and checked) here ---------

#: How ``extra["queryhsplimit"]`` marks the ``--queryhsplimit+=`` spelling (a NUL: no
#: command-line word holds one, so ``--queryhsplimit=+5`` stays a plain limit of 5)
PLUS_FORM = "\0"


#: the name LASTZ's messages give a format: its ``formatNames`` entry for the format,
#: a table that in 1.04.22 has fallen out of step with the formats after blastn-
#: (``--format=text`` is called "comp"), and whose holes print as "(null)"
_LASTZ_FORMAT_NAMES = {
    "gfa": "GFA", "lav": "LAV", "lavscore": "LAVSCORE", "axt": "AXT", "maf": "MAF",
    "sam": "hardsam", "sam-": "hardsam-", "softsam": "sam", "softsam-": "sam-",
    "mapping": "general", "segments": "general", "rdotplot": "(null)",
    "rdotplot+score": "(null)", "none": "(null)", "paf": "ztext", "paf:minimap2": "ztext",
    "paf:wfmash": "text", "text": "comp", "ztext": "diffs", "differences": "infstats",
    "comp": "diffs-", "deseed": "lav+infscores",
}


def lastz_format_name(fmt: str) -> str:
    return _LASTZ_FORMAT_NAMES.get(fmt, fmt)


def query_hsp_limit(extra: dict) -> tuple[int, bool, bool] | None:
    """``--queryhsplimit=[warn:|nowarn:|keep,nowarn:]<n>`` and ``--queryhsplimit+=
    [warn:|nowarn:]<n>`` (kept after ``PLUS_FORM``) -> (n, warn, keep)."""
    if "queryhsplimit" not in extra:
        return None
    from .scoring import string_to_unitized_int
    val = str(extra["queryhsplimit"])
    # (LASTZ 1.04.22 reads "keep:<n>" whole, so that is not a number there either)
    forms = (("keep,nowarn:", False, True), ("nowarn:", False, False), ("warn:", True, False))
    warn, keep = True, False
    if val.startswith(PLUS_FORM):                      # --queryhsplimit+=...
        val, keep = val[len(PLUS_FORM):], True
        forms = (("nowarn:", False, True), ("warn:", True, True))
    for prefix, w, k in forms:
        if val.startswith(prefix):
            val, warn, keep = val[len(prefix):], w, k
            break
    n = string_to_unitized_int(val, True)
    if n <= 0:
        raise OptionsError("--queryhsplimit must be positive")
    return n, warn, keep


def immediate_limit(extra: dict) -> tuple[int, bool] | None:
    """(N, warn) of LASTZ's HSP-immediate mode, or None: N is 1 for ``--anyornone``, N
    for ``--stopafter=N`` / ``--limitperquery=N`` (no warnings), or, given after either,
    ``--queryhsplimit``'s limit and warning flag."""
    if "anyornone" not in extra and "limitperquery" not in extra:
        return None
    n = 1
    if "limitperquery" in extra:
        from .scoring import string_to_int
        n = string_to_int(str(extra["limitperquery"]))
        if n <= 0:
            raise OptionsError("limit for --limitperquery must be positive")
    if "queryhsplimit" in extra:
        n, warn, _keep = query_hsp_limit(extra)
        return n, warn
    return n, False


def query_hsp_best(extra: dict) -> int | None:
    """``--queryhspbest=<n>`` -> n."""
    if "queryhspbest" not in extra:
        return None
    from .scoring import string_to_unitized_int
    n = string_to_unitized_int(str(extra["queryhspbest"]), True)
    if n <= 0:
        raise OptionsError("--queryhspbest must be positive")
    return n


def query_depth(extra: dict) -> tuple[float, bool, bool] | None:
    """``--querydepth=[nowarn:|keep:|keep,nowarn:|discard:]<x>`` -> (x, warn, keep);
    x <= 0 means no limit (LASTZ clamps a negative depth to 0)."""
    if "querydepth" not in extra:
        return None
    from .scoring import string_to_unitized_double
    val = str(extra["querydepth"])
    warn, keep = True, False
    for prefix, w, k in (("nowarn:", False, False), ("keep:", True, True),
                         ("keep,nowarn:", False, True), ("discard:", True, False)):
        if val.startswith(prefix):
            val, warn, keep = val[len(prefix):], w, k
            break
    return max(0.0, string_to_unitized_double(val, True)), warn, keep


def paired_base_limit(depth: float, length: int) -> int:
    """LASTZ's paired-bases limit for one query strand of ``length`` bases: ceil(depth *
    length), where LASTZ holds the depth in a C float and multiplies in float (so the
    product rounds to 24 bits: ``--querydepth=0.03175`` on 4,000 bases is 128, and past
    16 Mb the length itself rounds).  0, or a product past 64 bits, is no limit (0)."""
    import numpy as np
    with np.errstate(over="ignore"):
        product = float(np.float32(depth) * np.float32(length))
    return math.ceil(product) if 0.0 < product < 2.0 ** 64 else 0


def text_expand(extra: dict) -> int:
    """``--expand=<n>``: bases of context the text formats add at each end (0: none)."""
    if "expand" not in extra:
        return 0
    from .scoring import string_to_int
    n = string_to_int(str(extra["expand"]))
    if n < 0:
        raise OptionsError("--expand cannot be negative")
    if n >= 1000:
        raise OptionsError("--expand must be less than 1000")
    return n


def _defaults() -> dict:
    out = {}
    for f in fields(Options):
        out[f.name] = f.default_factory() if callable(f.default_factory) else f.default
    return out


_DEFAULTS = _defaults()
#: settings whose being chosen (not just their value) matters to resolved()/validate()
_USER_CHOICES = ("seed", "transition", "gapped", "xdrop", "ydrop", "hspthresh",
                 "hspthresh_top", "gappedthresh", "gappedthresh_top", "gap_open", "gap_extend",
                 "entropy", "step", "inner")


# --- Seeds (LASTZ seeds.c parse_one_seed / seed_pattern) ---------------------------------

def normalize_seed(seed: str) -> str:
    """A seed as a pattern over 1/0/T: named seeds expanded, don't-cares (0, x, X) at the
    ends stripped, x/X -> 0, t -> T, blanks dropped.  Several seeds are joined by ','."""
    named = {"12of19": SEED_12OF19, "14of22": SEED_14OF22}
    if seed in named:                  # (a name only alone: LASTZ's list holds patterns)
        return named[seed]
    parts = seed.split(",")
    # a bad seed is named with the rest of the list, as LASTZ names it
    return ",".join(_normalize_one(part, ",".join(parts[k:])) for k, part in enumerate(parts))


def _normalize_one(s: str, shown: str) -> str:
    body = s.lstrip("0xX").rstrip("0xX")
    if not body:
        raise OptionsError("seed string is empty!")
    out = []
    for ch in body:
        if ch in " \t\n":
            continue
        if ch == "1" or ch == "0":
            out.append(ch)
        elif ch in "Tt":
            out.append("T")
        elif ch in "xX":
            out.append("0")
        else:
            bad = ch if ch.isprintable() else f"{ord(ch):02X}"
            raise OptionsError(f"seed string {shown} contains illegal character {bad}")
    return "".join(out)


def seed_weights(pat: str, word: int = 28, name: str | None = None) -> tuple[int, int, int]:
    """(matches, bit weight, matches kept in the index key) of a 1/0/T pattern.

    Checks lengths and the overweight split as LASTZ's parse_one_seed does: a seed
    heavier than ``word`` bits keeps only its leftmost 1s in the key; the rest are
    resolved by direct comparison.  ``name`` is the seed as the user wrote it.
    """
    name = pat if name is None else name
    matches = pat.count("1")
    weight = 2 * matches + pat.count("T")
    keep = matches
    if 0 < word < weight:
        to_resolve = weight - word
        if to_resolve > matches:
            raise OptionsError(f"seed ({name}) requires more resolving bits ({to_resolve}) "
                               f"than it has matches ({matches}).")
        if to_resolve > MAX_RESOLVED_BITS:
            raise OptionsError(f"seed ({name}) requires more resolving bits ({to_resolve}) "
                               f"than are allowed ({MAX_RESOLVED_BITS}).")
        keep = matches - to_resolve
    half = matches == 0
    limit = MAX_HALFWEIGHT_SEED_LEN if half else MAX_SEED_LEN
    if len(pat) > limit:
        kind = "half-weight seed string" if half else "seed string"
        raise OptionsError(f"{kind} ({name}) cannot have length exceeding {limit} "
                           f"(it's {len(pat)}).")
    return matches, weight, keep


def seed_display(seed: str, word: int = 28) -> str:
    """The seed as LASTZ prints it (``seed_pattern``), checking it as ``parse_one_seed`` does.

    Overweight seeds (bit weight > ``word``) show their demoted (resolved) 1s as ``T`` and,
    for the first seed, a ``/`` suffix marking resolved positions ``R`` (others ``0``).
    """
    shown, suffix = [], ""
    for k, pat in enumerate(seed.split(",")):
        matches, weight, keep = seed_weights(pat, word)
        if weight == 0:
            raise OptionsError(f"seed string ({pat}) cannot have zero weight.")
        out, resolve, seen = [], 0, 0
        for ch in pat:
            if ch == "1" and seen >= keep:
                if ((resolve << 2) & 0xFFFFFFFF) < resolve:
                    raise OptionsError(f"resolving bits in seed string {pat} are spread too widely")
                resolve = ((resolve << 2) + 2) & 0xFFFFFFFF
                out.append("T")
            else:
                resolve = (resolve << 2) & 0xFFFFFFFF
                out.append(ch)
            seen += ch == "1"
        final_weight = weight - (matches - keep)
        if final_weight > MAX_SEED_BIT_WEIGHT:
            raise OptionsError(f"seed string ({pat}) cannot have bit weight exceeding "
                               f"{MAX_SEED_BIT_WEIGHT} (it's {final_weight}).")
        shown.append("".join(out))
        if k == 0 and keep < matches:
            groups = next((i for i in range(16) if resolve >> (2 * i) == 0), 16)
            if groups:
                suffix = "/" + "".join("R" if (resolve >> (2 * i)) & 3 == 2 else
                                       "0" if (resolve >> (2 * i)) & 3 == 0 else "?"
                                       for i in range(groups - 1, -1, -1))
    return ",".join(shown) + suffix


def seed_refusal(flag: str, arg: str | None) -> str:
    """LASTZ's refusal of a seed word (``arg``) beside ``flag``, which brings its own."""
    if arg is None:
        return f"can't set word size or seed pattern with {flag}"
    hint = " (use --transition or --notransition instead)" if arg.startswith("T=") else ""
    return f"can't set word size or seed pattern with {flag} ({arg}){hint}"


def _effective_transition(seed: str, transition: int, transition_given: bool) -> int:
    """Half-weight seeds (only 0/T) default to no transitions (``create_seed_structure``)."""
    if "1" not in seed.split(",")[0] and not transition_given:
        return 0
    return transition


# --- Text helpers ----------------------------------------------------------------------

def thresh_text(value: int | None, top: str | None, double: bool = False) -> str:
    """LASTZ ``score_thresh_to_string``: ``3000`` (lastz_D: ``3000.000000``), ``top10``,
    ``top5.0%``."""
    if top is None:
        from .scoring import score_plain
        return score_plain(value, double)
    if top.endswith("%"):
        return "top%.1f%%" % (100 * (float_value(top[3:-1]) / 100.0))
    return top


def unitize(v: int, by_thousands: bool = False) -> str:
    """LASTZ ``unitize``: 102400 -> ``100.0K`` (byte counts in messages)."""
    units = ["", "K", "M", "G", "T", "P", "E", "Z"]
    div = 1000 if by_thousands else 1024
    sign = "-" if v < 0 else ""
    vv = abs(v)
    rep = float(vv)
    unit = 0
    while vv > 1023:
        vv //= div
        rep /= div
        unit += 1
    if rep > 99:
        rep /= div
        unit += 1
    return f"{sign}{rep:.1f}{units[unit]}"
