"""Output writers for every LASTZ output format: the entry point.

``make_writer(opts, scores, target, query_filename, out)`` returns a ``Writer``
whose ``header()`` / ``write(strand_result)`` / ``footer()`` produce the bytes
LASTZ 1.04.22 produces (except the program token, ``fastz.version.PROGRAM_TOKEN``).

Mirrors LASTZ ``output.c`` (``print_job_header``, ``print_header``,
``print_align_list``, ``print_match``, ``print_job_footer``, ``print_generic``,
``print_eof_comment``) and the ``--format`` parsing in ``lastz.c``.  The formats
themselves live in ``lav.py``, ``textformats.py``, ``general.py`` and
``samcigar.py``; shared alignment walking in ``alignview.py``.

Conventions for the caller (the pipeline):

* ``StrandResult.query`` is the strand buffer; ``StrandResult.strand`` says which
  strand.  ``Sequence.revcomp`` must describe how the sequence was *loaded*
  (specifier ``-`` / ``revcomp``), identically for both strands: the printed
  orientation is ``revcomp XOR (strand == '-')``, as LASTZ toggles its flags.
* Strands are written in LASTZ order (query1 +, query1 -, query2 +, ...), each
  strand's alignments in output order.  Empty strands may be passed (they print
  nothing, except an ``x`` stanza when ``stats['num_masked']`` is set).
* ``Alignments.kind`` != "gapped" selects LASTZ's ``print_match`` path (HSPs,
  seed hits); gapped alignments of the ``*segments`` / ``rdotplot`` formats are
  split into gap-free runs here.
* Dynamic masking: ``StrandResult.stats['num_masked']`` (x stanza / comment) and
  ``Writer.census_intervals`` (list of 1-based (b, e), LAV m stanza) are optional.
"""
from __future__ import annotations

import io
import sys
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TextIO

from ..cscan import float_value
from ..errors import InputError, OptionsError
from ..options import Options
from ..records import Sequence, StrandResult
from ..scoring import ScoreSet, score_plain
from ..version import PROGRAM_TOKEN
from .alignview import AlnViews, SeqInfo, degapify, views

#: around a worker's placeholder for an alignment number (``Writer.number_text``)
NUMBER_MARK = "\x1f"

# --- Format specifications ------------------------------------------------------------


@dataclass(frozen=True)
class FormatSpec:
    """What ``--format=<name>`` selects (LASTZ's outputFormat + outputInfo + flags)."""

    family: str                   # lav | axt | maf | sam | cigar | genpaf | text | diffs | gfa
                                  # | identity | none
    variant: str = ""             # family-specific: lav: "", "+", "text", "score";
                                  # axt: "", "+", "size2"; maf: "", "+", "-";
                                  # sam: "hard", "soft"; genpaf: general | nohdr | namehdr |
                                  # blast | blastnohdr | paf; text: "text", "ztext";
                                  # diffs: "blocks", "noblocks"
    header: bool = True           # sam / sam-: print @HD/@SQ
    keys: str = ""                # genpaf field codes (LASTZ genpafXXX characters)
    degapify: bool = False        # print gapped alignments as gap-free segments
    distinguish: bool = False     # ~maf: prefix '~' to name2 when equal to name1
    comments: str = ""            # print_generic style: "" | "#" | "#plain" | "plain"

    @cached_property
    def prints_identity(self) -> bool:
        """Whether the output prints each alignment's identity counts (general's
        identity fields, the axt+ and maf+ comments): then they are counted for a
        strand's or a batch's whole table at once.  (Asked for every strand written:
        worked out once.)"""
        if self.family == "genpaf":
            from .general import IDENTITY_KEYS, split_keys
            return bool(IDENTITY_KEYS.intersection(split_keys(self.keys)[0]))
        return self.family == "identity" or \
            self.family in ("axt", "maf") and self.variant == "+"


def parse_format(spec: str, fields: tuple[str, ...] | list[str] = ()) -> FormatSpec:
    """Parse the text after ``--format=`` (LASTZ spellings), plus optional field names.

    ``fields`` lets a caller pass ``format="general"`` / ``"general-"`` with the
    field list separately (``Options.format_fields``).
    """
    from .general import CANNED_KEYS, parse_keys

    s = spec.strip()
    if fields and ":" not in s:
        s = f"{s}:{','.join(fields)}"
    low = s.lower()
    simple = {
        "lav": FormatSpec("lav"),
        "lav+": FormatSpec("lav", "+", comments="#"),
        "lav+text": FormatSpec("lav", "text", comments="#plain"),
        "text+lav": FormatSpec("lav", "text", comments="#plain"),
        "lavscore": FormatSpec("lav", "score"),
        "axt": FormatSpec("axt"),
        "axt+": FormatSpec("axt", "+", comments="#"),
        "axt:size2": FormatSpec("axt", "size2"),
        "waxt": FormatSpec("axt", "size2"),
        "maf": FormatSpec("maf"),
        "~maf": FormatSpec("maf", distinguish=True),
        "maf+": FormatSpec("maf", "+", comments="#"),
        "~maf+": FormatSpec("maf", "+", distinguish=True, comments="#"),
        "maf-": FormatSpec("maf", "-"),
        "mafsegments": FormatSpec("maf", degapify=True),
        "mafsegments+": FormatSpec("maf", "+", degapify=True, comments="#"),
        "mafsegments-": FormatSpec("maf", "-", degapify=True),
        "softsam": FormatSpec("sam", "soft"),
        "softsam-": FormatSpec("sam", "soft", header=False),
        "sam": FormatSpec("sam", "hard"),
        "sam-": FormatSpec("sam", "hard", header=False),
        "cigar": FormatSpec("cigar"),
        "segments": FormatSpec("genpaf", "general", keys=CANNED_KEYS["segments"]),
        "general": FormatSpec("genpaf", "general", keys=CANNED_KEYS["general"]),
        "gen": FormatSpec("genpaf", "general", keys=CANNED_KEYS["general"]),
        "general-": FormatSpec("genpaf", "nohdr", keys=CANNED_KEYS["general"]),
        "gen-": FormatSpec("genpaf", "nohdr", keys=CANNED_KEYS["general"]),
        "genseg": FormatSpec("genpaf", "general", keys=CANNED_KEYS["general"], degapify=True),
        "generalseg": FormatSpec("genpaf", "general", keys=CANNED_KEYS["general"], degapify=True),
        "genseg-": FormatSpec("genpaf", "nohdr", keys=CANNED_KEYS["general"], degapify=True),
        "generalseg-": FormatSpec("genpaf", "nohdr", keys=CANNED_KEYS["general"], degapify=True),
        "mapping": FormatSpec("genpaf", "general", keys=CANNED_KEYS["mapping"]),
        "mapping-": FormatSpec("genpaf", "nohdr", keys=CANNED_KEYS["mapping"]),
        "blastn": FormatSpec("genpaf", "blast", keys=CANNED_KEYS["blastn"]),
        "blastn-": FormatSpec("genpaf", "blastnohdr", keys=CANNED_KEYS["blastn"]),
        "paf": FormatSpec("genpaf", "paf", keys=CANNED_KEYS["paf:minimap2"]),
        "paf:minimap2": FormatSpec("genpaf", "paf", keys=CANNED_KEYS["paf:minimap2"]),
        "paf:wfmash": FormatSpec("genpaf", "paf", keys=CANNED_KEYS["paf:wfmash"]),
        "rdotplot": FormatSpec("genpaf", "namehdr", keys=CANNED_KEYS["rdotplot"], degapify=True),
        "rdotplot+score": FormatSpec("genpaf", "namehdr", keys=CANNED_KEYS["rdotplot+score"],
                                     degapify=True),
        "text": FormatSpec("text", "text", comments="plain"),
        "ztext": FormatSpec("text", "ztext", comments="plain"),
        "zerotext": FormatSpec("text", "ztext", comments="plain"),
        "none": FormatSpec("none"),
        "comp": FormatSpec("comp"),
        "deseed": FormatSpec("deseed"),
        "identity": FormatSpec("identity"),
        "gfa": FormatSpec("gfa"),
        "gfanoscore": FormatSpec("gfa", "noscore"),
    }
    for name in ("diff", "diffs", "difference", "differences"):
        simple[name] = FormatSpec("diffs", "blocks")
        simple[name + "-"] = FormatSpec("diffs", "noblocks")
    if low in simple:
        return simple[low]
    # general:<fields> and friends
    for prefix, variant, degap in (("gen:", "general", False), ("general:", "general", False),
                                   ("gen-:", "nohdr", False), ("general-:", "nohdr", False),
                                   ("genseg:", "general", True), ("generalseg:", "general", True),
                                   ("genseg-:", "nohdr", True), ("generalseg-:", "nohdr", True)):
        if low.startswith(prefix):
            rest = s[len(prefix):]
            if not rest:
                raise OptionsError(f"empty keys string for --format={prefix}")
            return FormatSpec("genpaf", variant, keys=parse_keys(rest), degapify=degap)
    if low in ("istats", "infstats") or low.startswith(("istats(", "infstats(")):
        raise OptionsError(f"--format={spec} is not supported by fastz")
    raise OptionsError(f"can't understand \"--format={spec}\"")


# --- Header pieces shared by several formats -----------------------------------------


def threshold_strings(opts: Options) -> tuple[str, str, bool]:
    """(hsp threshold, gapped threshold, either is a plain score) as LASTZ prints them
    (``score_thresh_to_string``)."""
    d = opts.double_scores
    top = opts.hspthresh_top
    hsp = _top_string(top) if top else score_plain(
        opts.hspthresh if opts.hspthresh is not None else 3000, d)
    if opts.gappedthresh_top:
        return hsp, _top_string(opts.gappedthresh_top), not top
    if opts.gappedthresh is None:
        return hsp, hsp, not top
    return hsp, score_plain(opts.gappedthresh, d), True


def _top_string(top: str) -> str:
    t = top.strip()
    body = t[3:] if t.lower().startswith("top") else t
    if body.endswith("%"):
        return "top%.1f%%" % float_value(body[:-1])
    return "top%d" % int(body)


def score_matrix_lines(scores: ScoreSet, with_extras: bool, prefix: str = "",
                       double: bool = False) -> list[str]:
    """LASTZ print_score_matrix: the printed substitution matrix (upper-case labels)."""
    return scores.format_matrix(with_extras, prefix, double).splitlines()


def drops(opts: Options, scores: ScoreSet) -> tuple[str, str]:
    """(xdrop, ydrop) as LASTZ prints them, with its derived defaults when the options
    are unresolved."""
    x = opts.xdrop if opts.xdrop is not None else 10 * scores.aa
    y = opts.ydrop if opts.ydrop is not None else scores.gap_open + 300 * scores.gap_extend
    return score_plain(x, opts.double_scores), score_plain(y, opts.double_scores)


def seed_string(opts: Options) -> str:
    """The ``seed=...`` comment LASTZ prints after the job header."""
    trans = {0: "", 1: " w/transition"}.get(int(opts.transition), " w/2 transitions")
    # overweight seeds show their demoted positions (LASTZ seed_pattern)
    from ..options import seed_display
    try:
        shown = seed_display(opts.seed, int(opts.word))
    except Exception:                     # not a pattern seed_display knows: as given
        shown = opts.seed
    return f"seed={shown}{trans}"


# --- The writer ------------------------------------------------------------------------


class Writer:
    """Base writer: strand bookkeeping; subclasses format (see module docstring)."""

    def __init__(self, opts: Options, scores: ScoreSet, target: Sequence, query_filename: str,
                 out: TextIO, spec: FormatSpec):
        self.opts = opts
        self.scores = scores
        self.target = target
        self.query_filename = query_filename
        self.out = out
        self.spec = spec
        self.program = PROGRAM_TOKEN
        self.args = opts.args or ""
        self.tinfo = SeqInfo(target, bool(target.revcomp), "seq1")
        self.census_intervals: list[tuple[int, int]] | None = None
        self.census_text: str | None = None  # --census: LAV Census stanza body (lines)
        self.side: Writer | None = None      # --rdotplot=FILE: a second, dot-plot writer

    # --- public interface ---

    def header(self) -> None:
        """Job header, then the option comments (LASTZ print_options)."""
        self.show_defaults()
        self.job_header()
        self.generic(seed_string(self.opts))
        self.generic(f"step={int(self.opts.step)}")

    def show_defaults(self) -> None:
        """``--show=defaults[:stderr]`` in a run: LASTZ's ``show_scoring_defaults`` text
        inside the format's comment (``print_comment_open``): a LAV d stanza, ``#``
        lines, or bare lines.  The text goes to stdout (stderr) even when the
        alignments go to --output, and the comment's own lines go with the alignments,
        as in LASTZ."""
        where = self.opts.show_defaults
        if where not in ("stdout", "stderr"):
            return
        from ..lastz_args import show_defaults_text
        fam = self.spec.family
        if fam in ("maf", "sam", "cigar"):
            sys.stderr.write(f"WARNING.  Output is not properly {fam.upper()} format\n")
        prefix = "#" if fam in ("axt", "maf", "sam", "cigar", "genpaf", "gfa",
                                "identity", "comp", "deseed") else ""
        dest = (sys.stderr if where == "stderr"
                else self.out if self.opts.output is None else sys.stdout)
        if fam == "lav":
            self.out.write("#:lav\nd {\n")
        dest.write(show_defaults_text(self.opts, self.scores, prefix))
        if fam == "lav":
            self.out.write("}\n")

    def write(self, result: StrandResult) -> None:
        """One query strand's alignments, in the given order (its text as is when a
        worker already rendered it, with the run's alignment numbers filled in)."""
        if result.text is not None:
            text = result.text
            numbered = result.stats.pop("numbered", None) if result.stats else None
            if numbered is not None:
                # a worker's placeholders count from the strand's start
                parts = text.split(NUMBER_MARK)
                parts[1::2] = [str(int(n) + self.number) for n in parts[1::2]]
                text = "".join(parts)
                self.number += numbered
            if text:
                self.before_text(result)
                self.out.write(text)
            return
        q = result.query
        alns = result.alignments
        if len(alns):
            rev2 = (result.strand == "-") != bool(q.revcomp)
            qinfo = SeqInfo(q, rev2, "seq2")
            is_hsp = alns.kind != "gapped"
            if self.spec.degapify and not is_hsp:
                alns = degapify(alns, self.target.chars, q.chars, self.scores.sub)
                is_hsp = True
            vs = views(alns, self.target.chars, q.chars, is_hsp)
            if self.spec.prints_identity:
                vs.with_identity()
            self.strand_header(qinfo)
            # LASTZ numbers general's records and the dot plot's segments with one
            # counter: an HSP's dot follows its record, a gapped list's segments the list
            shared = self.side is not None and self.spec.family == "genpaf"
            hsps = result.alignments.kind != "gapped"
            self.numbers_between = 1 if shared and hsps else 0
            self.write_views(qinfo, vs)
            if self.side is not None:
                before = self.side.number
                self.side.write(StrandResult(q, result.strand, result.alignments))
                if shared and not hsps:
                    self.number += self.side.number - before
        num_masked = (result.stats or {}).get("num_masked")
        if num_masked is not None:
            self.x_stanza(int(num_masked))

    #: True where a strand's text depends on that strand alone but for the run's
    #: alignment numbers (``number_text``) and headers said as they change
    #: (``before_text``): then worker processes render it (``render``) and the parent
    #: writes it out.  (What a format refuses, such as HSPs on a reversed target,
    #: is raised in the worker, and in the parent when it reaches that batch.)
    strands_apart = False
    #: alignment numbers so far (the formats that number their records), and how many
    #: another writer takes after each record (an HSP's dot in --rdotplot's file)
    number = 0
    numbers_between = 0
    #: a worker's renderer (``render``): numbers become placeholders, headers the
    #: parent's
    rendering = False

    def render(self, result: StrandResult) -> str | None:
        """``write(result)``'s text, as a string, for the parent to write: alignment
        numbers as placeholders counted from the strand's start, and their count in
        ``result.stats["numbered"]``; None where a placeholder cannot be told from
        the text (a name holding the mark): the parent formats that strand."""
        out, self.out = self.out, io.StringIO()
        self.rendering, self.number, self.marks = True, 0, 0
        try:
            self.write(result)
            text = self.out.getvalue()
        finally:
            self.out = out
        if self.marks:
            if text.count(NUMBER_MARK) != 2 * self.marks:
                return None
            result.stats["numbered"] = self.number
        return text

    def number_text(self, n: int) -> str:
        """Alignment number ``n`` as printed (a placeholder when rendering)."""
        if not self.rendering:
            return str(n)
        self.marks += 1
        return f"{NUMBER_MARK}{n}{NUMBER_MARK}"

    def before_text(self, result: StrandResult) -> None:
        """Before a worker-rendered strand's text: the headers that depend on the
        strands before it (SAM's @SQ lines, rdotplot's names line)."""

    #: whether consecutive rendered strands' texts may be written as one (their
    #: ``before_text`` does not depend on the strand)
    texts_merge = True

    def footer(self, runtime: float | None = None) -> None:
        """Job footer, then the ``trailer``."""
        self.job_footer()
        self.trailer(runtime)

    def trailer(self, runtime: float | None = None) -> None:
        """``runtime=`` (seconds, --runtime) as a comment where the format carries
        comments, then ``# lastz end-of-file`` with --markend."""
        if runtime is not None:
            self.generic(f"runtime={runtime:.3f}")
        if self.opts.markend and self.spec.family != "none":
            self.out.write("# lastz end-of-file\n")
        if self.side is not None:
            self.side.out.close()
            self.side = None

    # --- hooks for the formats ---

    def job_header(self) -> None:
        pass

    def job_footer(self) -> None:
        pass

    def strand_header(self, qinfo: SeqInfo) -> None:
        pass

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        pass

    def generic(self, text: str) -> None:
        """LASTZ print_generic: a comment line, only in the comment-carrying formats."""
        style = self.spec.comments
        if style == "#":
            self.out.write(f"# {text}\n")
        elif style == "#plain":
            self.out.write(f"# {text}\n{text}\n")
        elif style == "plain":
            self.out.write(f"{text}\n")

    def x_stanza(self, num_masked: int) -> None:
        self.generic(f"num_masked={num_masked}")

    def require_forward_target(self, what: str) -> None:
        if self.tinfo.rev:
            raise InputError(f"attempt to print - strand or complement for sequence 1 in {what}")


class NoneWriter(Writer):
    """--format=none: nothing at all (not even --markend)."""

    def header(self) -> None:
        pass


def degapified(opts: Options) -> bool:
    """Does the output print gapped alignments as their gap-free segments?"""
    spec = parse_format(opts.format or "lav", tuple(opts.format_fields or ()))
    return spec.degapify or bool(getattr(opts, "degapify", False))


def make_writer(opts: Options, scores: ScoreSet, target: Sequence, query_filename: str,
                out: TextIO) -> Writer:
    """The writer for ``opts.format`` (and ``opts.format_fields``)."""
    from .general import GeneralWriter
    from .gfa import GfaWriter
    from .iddist import IdentityWriter
    from .lav import LavWriter
    from .matchdump import CompWriter, DeseedWriter
    from .samcigar import CigarWriter, SamWriter
    from .textformats import AxtWriter, DiffsWriter, MafWriter, TextWriter

    spec = parse_format(opts.format or "lav", tuple(opts.format_fields or ()))
    spec = replace(spec, degapify=degapified(opts),
                   distinguish=spec.distinguish or bool(getattr(opts, "maf_distinguish_names",
                                                                 False)))
    cls = {"lav": LavWriter, "axt": AxtWriter, "maf": MafWriter, "sam": SamWriter,
           "cigar": CigarWriter, "genpaf": GeneralWriter, "text": TextWriter,
           "diffs": DiffsWriter, "none": NoneWriter, "gfa": GfaWriter,
           "identity": IdentityWriter, "comp": CompWriter, "deseed": DeseedWriter}[spec.family]
    writer = cls(opts, scores, target, query_filename, out, spec)
    writer.side = dotplot_writer(opts, scores, target, query_filename)
    return writer


def dotplot_writer(opts: Options, scores: ScoreSet, target: Sequence,
                   query_filename: str) -> Writer | None:
    """``--rdotplot[+score]=FILE``'s writer (LASTZ ``output.c``: a dot plot of every
    printed alignment, as gap-free segments), FILE opened; None without the option."""
    from .general import GeneralWriter
    dotplot = getattr(opts, "rdotplot", None)
    if not dotplot:
        return None
    name = "rdotplot+score" if (opts.extra or {}).get("rdotplot_score") else "rdotplot"
    try:
        side_out = open(dotplot, "w", encoding="utf-8", errors="surrogateescape")
    except OSError as e:
        raise InputError(f"can't open {dotplot} for writing ({e.strerror})") from None
    return GeneralWriter(opts, scores, target, query_filename, side_out, parse_format(name))


def write_trailer(opts: Options, scores: ScoreSet, target: Sequence, out: TextIO,
                  runtime: float | None) -> None:
    """The end of a run that aligns nothing (``--tableonly``): the ``trailer`` alone,
    written by a plain Writer (the formats' own checks, such as lav's refusal of
    ``[multiple]`` targets, are LASTZ's only where it writes alignments)."""
    spec = parse_format(opts.format or "lav", tuple(opts.format_fields or ()))
    Writer(opts, scores, target, "", out, spec).trailer(runtime)


def refuse_partitioned(opts: Options, target: Sequence, flag: str | None = None) -> None:
    """LASTZ's start-up refusal, in the formats that cannot show partitions (``flag``:
    --lav or --gfa; by default ``opts.format``'s, and none in other formats), of a
    partitioned target or query: ``[multiple]`` or a ``[separator=]`` action, the
    query's seen in its specifier before anything is aligned (a query whose alignments
    would all be dropped, as over ``--queryhsplimit``, is refused too)."""
    from .sequences import query_specifier
    from .specifiers import parse_specifier
    if flag is None:
        family = parse_format(opts.format or "lav", tuple(opts.format_fields or ())).family
        flag = {"lav": "--lav", "gfa": "--gfa"}.get(family)
        if flag is None:
            return
    query = None if opts.self_compare else query_specifier(opts.query)
    if target.partitions is None and not (
            query is not None and (query.multiple or query.separator is not None)):
        return
    separated = (query is not None and query.separator is not None and bool(opts.target)
                 and parse_specifier(opts.target).separator is not None)
    raise OptionsError(f"{multiple_action(separated)} cannot be used with {flag}")


def multiple_action(separated: bool) -> str:
    """How LASTZ names the action that partitions a sequence in its refusals."""
    return "multiple action (forced by separator action)" if separated else "multiple action"


def stdout_for_quirks(opts: Options, out: TextIO) -> TextIO:
    """Where LASTZ's stray ``printf`` output goes: stdout, even with --output=FILE."""
    return sys.stdout if opts.output else out


__all__ = ["FormatSpec", "Writer", "make_writer", "dotplot_writer", "write_trailer",
           "refuse_partitioned", "multiple_action",
           "parse_format", "threshold_strings", "score_matrix_lines", "seed_string"]
