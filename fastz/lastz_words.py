"""The vocabulary of LASTZ's command line, shared by ``fastz.lastz_args`` and writers.

Output format names and their spellings (LASTZ ``lastz.c parse_options_loop``),
``--format=general`` field names (``genpaf.h genpafName``/``genpafAliases``,
``genpaf.c parse_genpaf_keys``), help words, the yasra "expanders", the rare features
kept in ``Options.extra``, and ``sscanf``-like value parsers for option values.
"""
from __future__ import annotations

import numpy as np

from .cscan import FLOAT, INT, float_value
from .errors import OptionsError
from .scoring import string_to_score, string_to_unitized_int

# --- Output formats -------------------------------------------------------------------

#: canonical format names stored in Options.format
FORMATS = frozenset({
    "lav", "lav+", "lav+text", "lavscore", "axt", "axt+", "axt:size2", "maf", "maf+", "maf-",
    "sam", "sam-", "softsam", "softsam-", "cigar", "general", "general-", "mapping",
    "mapping-", "segments", "blastn", "blastn-", "paf", "paf:wfmash", "rdotplot",
    "rdotplot+score", "text", "ztext", "comp", "differences", "differences-", "infstats",
    "identity", "deseed", "none", "gfa", "gfanoscore"})
#: formats written by the general (tab-separated) writer, with Options.format_fields
GENERAL_FORMATS = frozenset({"general", "general-", "mapping", "mapping-", "segments"})

#: --format=general field names (LASTZ genpafName, in its order; "" = line break)
GENERAL_FIELDS = (
    "name1", "number1", "strand1", "size1", "start1", "zstart1", "end1", "length1", "align1",
    "text1", "qalign1", "name2", "number2", "strand2", "size2", "start2", "zstart2", "start2+",
    "zstart2+", "end2", "end2+", "length2", "align2", "text2", "qalign2", "nmatch",
    "nmismatch", "npair", "ncolumn", "ngap", "cgap", "diff", "cigar", "cigar-", "cigarx",
    "cigarx-", "cigarx1", "cigarx1-", "diagonal", "shingle", "score", "identity", "idfrac",
    "id%", "blastid%", "coverage", "covfrac", "cov%", "continuity", "confrac", "con%",
    "gaprate", "nucs1", "quals1", "nucs2", "quals2", "number", "znumber", "chore", "hspid",
    "phash", "ahash", "NA", "~")
FIELD_ALIASES = {
    "n1": "name1", "s1": "start1", "z1": "zstart1", "e1": "end1", "l1": "length1",
    "a1": "align1", "t1": "text1", "n2": "name2", "s2": "start2", "z2": "zstart2",
    "s2+": "start2+", "z2+": "zstart2+", "e2": "end2", "e2+": "end2+", "l2": "length2",
    "a2": "align2", "t2": "text2", "d": "diagonal", "diag": "diagonal", "s": "score",
    "id": "identity", "ident": "identity", "cov": "coverage", "con": "continuity",
    "gap": "gaprate"}
STANDARD_FIELDS = ("score", "name1", "strand1", "size1", "zstart1", "end1", "name2",
                   "strand2", "size2", "zstart2", "end2", "identity", "coverage")
MAPPING_FIELDS = ("name1", "zstart1", "end1", "name2", "strand2", "zstart2+", "end2+",
                  "identity", "coverage", "cigarx-")
SEGMENT_FIELDS = ("name1", "start1", "end1", "name2", "start2", "end2", "strand2", "score")

#: the fields a general-style format prints when Options.format_fields is empty
DEFAULT_FIELDS = {"general": STANDARD_FIELDS, "general-": STANDARD_FIELDS,
                  "mapping": MAPPING_FIELDS, "mapping-": MAPPING_FIELDS,
                  "segments": SEGMENT_FIELDS}


def _aliases(*names):
    """LASTZ accepts --format=X, --format=X-in-caps, --X and --X-in-caps for most formats."""
    out = []
    for n in names:
        out += [f"--format={n}", f"--format={n.upper()}", f"--{n}", f"--{n.upper()}"]
    return out


#: exact format words -> (format, fields, sets degapify, maf_distinguish_names or None)
FORMAT_WORDS: dict[str, tuple] = {}
for _words, _spec in [
    (_aliases("gfa"), ("gfa", (), False, None)),
    (_aliases("gfanoscore"), ("gfanoscore", (), False, None)),
    (_aliases("lav"), ("lav", (), False, None)),
    (_aliases("lav+"), ("lav+", (), False, None)),
    (["--format=lav+text", "--format=LAV+text", "--lav+text", "--LAV+text", "--format=text+lav",
      "--format=text+LAV", "--text+lav", "--text+LAV"], ("lav+text", (), False, None)),
    (_aliases("lavscore"), ("lavscore", (), False, None)),
    (_aliases("axt"), ("axt", (), False, None)),
    (_aliases("axt+"), ("axt+", (), False, None)),
    (["--format=axt:size2", "--format=AXT:size2", "--axt:size2", "--AXT:size2"]
     + _aliases("waxt"), ("axt:size2", (), False, None)),
    (_aliases("maf"), ("maf", (), False, False)),
    (["--format=~maf", "--format=~MAF"], ("maf", (), False, True)),
    (_aliases("maf+"), ("maf+", (), False, False)),
    (["--format=~maf+", "--format=~MAF+"], ("maf+", (), False, True)),
    (_aliases("maf-"), ("maf-", (), False, False)),
    (_aliases("mafsegments"), ("maf", (), True, False)),
    (_aliases("mafsegments+"), ("maf+", (), True, False)),
    (_aliases("mafsegments-"), ("maf-", (), True, False)),
    (_aliases("softsam"), ("softsam", (), False, None)),
    (_aliases("softsam-"), ("softsam-", (), False, None)),
    (_aliases("sam"), ("sam", (), False, None)),
    (_aliases("sam-"), ("sam-", (), False, None)),
    (_aliases("cigar"), ("cigar", (), False, None)),
    (["--format=segments"], ("segments", (), False, None)),
    (["--format=genseg", "--format=generalseg"], ("general", (), True, None)),
    (["--format=genseg-", "--format=generalseg-"], ("general-", (), True, None)),
    (["--format=gen", "--format=GEN", "--format=general", "--format=GENERAL"],
     ("general", (), False, None)),
    (["--format=gen-", "--format=GEN-", "--format=general-", "--format=GENERAL-"],
     ("general-", (), False, None)),
    (["--format=mapping", "--format=MAPPING"], ("mapping", (), False, None)),
    (["--format=mapping-", "--format=MAPPING-"], ("mapping-", (), False, None)),
    (["--format=blastn", "--format=BLASTN"], ("blastn", (), False, None)),
    (["--format=blastn-", "--format=BLASTN-"], ("blastn-", (), False, None)),
    (["--format=PAF", "--format=paf", "--format=PAF:minimap2", "--format=paf:minimap2",
      "--format=PAF:MINIMAP2"], ("paf", (), False, None)),
    (["--format=PAF:wfmash", "--format=paf:wfmash", "--format=PAF:WFMASH"],
     ("paf:wfmash", (), False, None)),
    (["--format=rdotplot"], ("rdotplot", (), True, None)),
    (["--format=rdotplot+score"], ("rdotplot+score", (), True, None)),
    (["--format=text"], ("text", (), False, None)),
    (["--format=ztext", "--format=zerotext"], ("ztext", (), False, None)),
    (["--format=comp"], ("comp", (), False, None)),
    (["--format=diff", "--format=diffs", "--format=difference", "--format=differences"],
     ("differences", (), False, None)),
    (["--format=diff-", "--format=diffs-", "--format=difference-", "--format=differences-"],
     ("differences-", (), False, None)),
    (["--format=identity"], ("identity", (), False, None)),
    (["--format=deseed"], ("deseed", (), False, None)),
    (["--format=none"], ("none", (), False, None)),
]:
    for _w in _words:
        FORMAT_WORDS[_w] = _spec
GENERAL_PREFIXES = [
    (("--format=genseg:", "--format=generalseg:"), "general", True),
    (("--format=genseg-:", "--format=generalseg-:"), "general-", True),
    (("--format=gen:", "--format=GEN:", "--format=general:", "--format=GENERAL:"),
     "general", False),
    (("--format=gen-:", "--format=GEN-:", "--format=general-:", "--format=GENERAL-:"),
     "general-", False),
]


def parse_general_fields(text: str) -> tuple[str, ...]:
    """LASTZ ``parse_genpaf_keys``: comma-separated field names -> canonical names.

    Aliases map to their canonical names; an empty name is a line break (``""``);
    ``diff`` may carry six display characters (``diff.:x--X``), kept verbatim.
    """
    out, have_diff = [], False
    for name in text.split(","):
        if name == "":
            out.append("")
            continue
        canon = name if name in GENERAL_FIELDS else FIELD_ALIASES.get(name)
        if canon is None and name.startswith("diff") and len(name) == 10:
            if ";" in name[4:]:
                raise OptionsError("diff field cannot contain ;")
            canon = name
        if canon is None:
            raise OptionsError(f'unrecognized field name (for --format=general): "{name}"')
        if canon.startswith("diff"):
            if have_diff:
                raise OptionsError("duplicate field name: diff")
            have_diff = True
        out.append(canon)
    return tuple(out)


def check_format(fmt: str, fields: tuple) -> None:
    """Raise OptionsError unless ``fmt``/``fields`` are a format LASTZ knows."""
    if fmt not in FORMATS:
        raise OptionsError(f'Can\'t understand "--format={fmt}"')
    if fmt in GENERAL_FORMATS and fields:          # (empty = the format's default fields)
        parse_general_fields(",".join(fields))


# --- Rare features kept in Options.extra ----------------------------------------------

#: Options.extra key -> the LASTZ flag it came from (for "not supported" messages)
EXTRA_FLAGS = {
    "cloned_query": "--debug=clonedquery", "seedqueue": "--seedqueue", "rawhits": "--rawhits",
    "anyornone": "--anyornone", "limitperquery": "--limitperquery",
    "queryhsplimit": "--queryhsplimit", "queryhsplimit_keep": "--queryhsplimit+",
    "queryhspbest": "--queryhspbest",
    "querydepth": "--querydepth", "infer": "--infer", "inferonly": "--inferonly",
    "infscores": "--infscores", "ball": "--ball", "allocate_target": "--allocate:target",
    "allocate_query": "--allocate:query", "maxwordcount": "--maxwordcount",
    "outputmasking": "--outputmasking", "outputmasking_soft": "--outputmasking:soft",
    "census": "--census", "laj": "--laj", "expand": "--expand", "verbosity": "--verbosity",
    "gexverbosity": "--gexverbosity", "runtime": "--runtime", "tableonly": "--tableonly",
    "showtable": "--showtable", "writecapsule": "--writecapsule",
    "targetcapsule": "--targetcapsule", "chores": "--chores",
    "notruncationreport": "--notruncationreport", "debug": "--debug", "progress": "--progress",
}

EXTRA_PATTERNS = [
    # (words, key): a word ending in '*' is a prefix, else an exact word; value verbatim
    (("--seedqueue=*",), "seedqueue"),
    (("--rawhits",), "rawhits"),
    (("--anyornone", "--stopafterone"), "anyornone"),
    (("--limitperquery=*", "--stopafter=*"), "limitperquery"),
    (("--queryhsplimit=*",), "queryhsplimit"),
    (("--queryhsplimit+=*",), "queryhsplimit_keep"),
    (("--queryhspbest=*",), "queryhspbest"),
    (("--querydepth=*",), "querydepth"),
    (("--infer", "--infer=*"), "infer"),
    (("--inferonly", "--inferonly=*"), "inferonly"),
    (("--infscores", "--infscores=*"), "infscores"),
    (("--ball=*",), "ball"),
    (("--allocate:target=*", "--alloc:target=*", "--memory:target=*", "--mem:target=*"),
     "allocate_target"),
    (("--allocate:query=*", "--alloc:query=*", "--memory:query=*", "--mem:query=*"),
     "allocate_query"),
    (("--maxwordcount=*",), "maxwordcount"),
    (("--outputmasking=*", "--outputmasking:dynamic=*", "--outputmasking+=*",
      "--outputmasking+:dynamic=*"), "outputmasking"),
    (("--outputmasking:soft=*", "--outputmasking+:soft=*"), "outputmasking_soft"),
    (("--census", "--census=*", "--census16=*", "--census32=*"), "census"),
    (("--laj",), "laj"),
    (("--expand=*",), "expand"),
    (("v=0*", "v=1*", "--verbosity=*"), "verbosity"),
    (("--gexverbosity=*",), "gexverbosity"),
    (("--runtime",), "runtime"),
    (("--chores=*",), "chores"),
    (("--notruncationreport",), "notruncationreport"),
    (("--debug", "--debug=*"), "debug"),
]
#: ``--tableonly[=...]``/``--showtable[=...]`` -> (seed search skipped, table shown)
#: (``extra["tableonly"]``, ``extra["showtable"]``): a later word replaces what is
#: shown; any ``--tableonly`` skips the search
SEED_TABLE_WORDS = {
    "--tableonly": (True, "table"), "--tableonly=count": (True, "count"),
    "--tableonly=andcount": (True, "andcount"),
    "--tableonly=distribution": (True, "distribution"), "--tableonly=stop": (True, None),
    "--showtable": (False, "table"), "--showtable=count": (False, "count"),
}
EXTRA_OFF = {"--nocensus": "census", "--noruntime": "runtime"}

YASRA = {  # LASTZ's "expanders": current and pre-1.02.45 versions
    "--yasra98": "T=2 Z=20 --match=1,6 O=8 E=1 Y=20 K=22 L=30 --identity=98..100",
    "--yasra95": "T=2 Z=20 --match=1,5 O=8 E=1 Y=20 K=22 L=30 --identity=95..100",
    "--yasra90": "T=2 Z=20 --match=1,5 O=6 E=1 Y=20 K=22 L=30 --identity=90..100",
    "--yasra85": "T=2      --match=1,2 O=4 E=1 Y=20 K=22 L=30 --identity=85..100",
    "--yasra75": "T=2      --match=1,1 O=3 E=1 Y=20 K=22 L=30 --identity=75..100",
    "--yasra95short": "T=2      --match=1,7 O=6 E=1 Y=14 K=10 L=14 --identity=95..100",
    "--yasra85short": "T=2      --match=1,3 O=4 E=1 Y=14 K=11 L=14 --identity=85..100",
}
YASRA_NEW = " --ambiguous=n --noytrim"

HELP_WORDS = {
    "--all": "all", "--help": "all", "-help": "all", "--help=all": "all", "--h": "all",
    "-h": "all", "--help=files": "files", "--help=input": "files", "--help=format": "formats",
    "--help=formats": "formats", "--help=output": "formats", "--short": "shortcuts",
    "--shortcuts": "shortcuts", "--help=short": "shortcuts", "--help=shortcuts": "shortcuts",
    "--blastz": "shortcuts", "--help=blastz": "shortcuts", "--yasra": "yasra",
    "--help=yasra": "yasra", "--version": "version", "-v": "version", "-version": "version",
    "--version:noerror": "version",
}


class HelpRequested(Exception):
    """A help/version word was seen; ``kind`` says which (the CLI prints it)."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


# --- Small parsers (sscanf look-alikes) --------------------------------------------------


def lead_int(text: str) -> int | None:
    """``sscanf(text, "%d")``: the leading integer (trailing text ignored), or None."""
    m = INT.match(text)
    return int(m.group(1)) if m else None


def float32(x: float) -> float:
    """The C ``float`` nearest to ``x`` (LASTZ parses percentages with ``%f``)."""
    return float(np.float32(x))


def pct(text: str) -> float:
    """LASTZ ``pct_string_to_double`` (returns the percentage itself, not /100)."""
    m = FLOAT.match(text)
    if m is None or text[m.end():] != "%":
        raise OptionsError(f'"{text}" is not a percentage')
    return float_value(m.group(1))


def pct_range(text: str, word: str) -> tuple[float, float]:
    """``--identity=min[..max]`` etc.: C floats in 0..100, optional ``%`` after each
    (LASTZ ``set_identity_filter``, including its handling of ``90..`` and ``90...100``)."""
    bad = OptionsError(f'Can\'t understand "{word}"')
    if text == "..":
        raise bad
    dots = text.find("..")
    lo_at: int | None = 0
    hi_at: int | None = None
    if dots == 0:
        lo_at, hi_at = None, 2
    elif dots > 0 and dots + 2 < len(text):
        hi_at = dots + 2
    lo, hi = 0.0, 100.0
    if lo_at is not None:
        m = FLOAT.match(text)
        if m is None:
            raise bad
        lo = float32(float_value(m.group(1)))
        pos = m.end() + (text[m.end():m.end() + 1] == "%")
        if hi_at is None:
            if text[pos:] not in ("", ".", ".."):
                raise bad
        else:
            if text[pos:pos + 1] != ".":
                raise bad
            pos += 1
            if pos != hi_at:
                if text[pos:pos + 1] != ".":
                    raise bad
                pos += 1
            if pos != hi_at:
                raise bad
    if hi_at is not None:
        m = FLOAT.match(text, hi_at)
        if m is None:
            raise bad
        hi = float32(float_value(m.group(1)))
        if text[m.end():] not in ("", "%"):
            raise bad
    if lo < 0 or hi > 100 or lo > hi:
        raise bad
    return lo, hi


def score_thresh(text: str) -> tuple[int | None, str | None]:
    """LASTZ ``string_to_score_thresh``: a score, ``top<n>`` or ``top<p>%``."""
    if not text.startswith("top"):
        return string_to_score(text), None
    if len(text) > 3 and text.endswith("%"):
        pct(text[3:])
        return None, text
    return None, f"top{string_to_unitized_int(text[3:], by_thousands=True)}"


def version_tuple(v: str) -> tuple[int, int, int]:
    parts = [int(p) for p in v.split(".")]
    return tuple((parts + [0, 0, 0])[:3])
