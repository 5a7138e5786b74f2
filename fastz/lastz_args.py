"""LASTZ's command line: exact option spellings, shortcuts and the ``args`` string.

Mirrors LASTZ ``lastz.c`` ``parse_options_loop`` (each word, in order: spellings,
aliases, BLASTZ shortcuts, order-dependent interactions such as ``--seed=match<n>``
turning transitions off unless a ``--transition`` was seen, or ``--xdrop`` re-enabling
gap-free extension after ``--nogfextend``), ``genpaf.c parse_genpaf_keys``
(``--format=general:<fields>``) and ``show_scoring_defaults`` (``--show=defaults``).

Only the word-level work happens here; derived defaults are ``Options.resolved``'s and
semantic checks ``Options.validate``'s.  LASTZ accepts no ``--opt value`` forms: every
option value is attached with ``=``.  Rare LASTZ features are parsed into
``Options.extra`` (keys in ``EXTRA_FLAGS``) so the pipeline can refuse them by name.
"""
from __future__ import annotations

import re

from .cscan import FLOAT, float_value, to_int, to_u32
from .errors import OptionsError
from .lastz_words import (  # noqa: F401  (re-exported)
    DEFAULT_FIELDS, EXTRA_FLAGS, EXTRA_OFF, EXTRA_PATTERNS, FIELD_ALIASES, FORMAT_WORDS,
    FORMATS, GENERAL_FIELDS, GENERAL_FORMATS, GENERAL_PREFIXES, HELP_WORDS, MAPPING_FIELDS,
    SEED_TABLE_WORDS, SEGMENT_FIELDS, STANDARD_FIELDS, YASRA, YASRA_NEW, HelpRequested,
    check_format, float32, lead_int, parse_general_fields, pct, pct_range,
    score_thresh, version_tuple)
from .options import (PLUS_FORM, SEED_12OF19, SEED_14OF22, Options, normalize_seed,
                      seed_display, seed_refusal)
from .scoring import (double_scores, score_plain, string_to_int, string_to_score,
                      string_to_unitized_int)


# --- The parser -------------------------------------------------------------------------

_NB_HYPHENS = "\u2011\u2011".encode()       # what word processors make of "--"


class _Parser:
    """State of one ``parse_options_loop`` run (LASTZ's file-scope ``have...`` flags)."""

    def __init__(self):
        self.v: dict = {}                 # Options fields set so far
        self.given: set[str] = set()
        self.extra: dict = {}
        self.census_file: str | None = None   # (kept while --nocensus turns it off)
        self.args: list[str] = []
        self.seed_string: str | None = None
        self.seed_arg: str | None = None
        self.have_with_trans = False
        self.have_hsp = False
        self.have_xdrop = False
        self.mode = "xdrop"               # gap-free extender: xdrop | none | exact | mismatch
        self.have_max_identity = False
        self.target: str | None = None
        self.query: str | None = None
        self.wayward: str | None = None
        self.actions = {"target": "", "query": ""}
        self.dup_files: dict[str, str] = {}

    # -- helpers --
    def set(self, **kw):
        self.v.update(kw)
        self.given.update(kw)

    def dup(self, key: str, arg: str) -> None:
        if key in self.dup_files:
            raise OptionsError(f'Duplicated or conflicting option "{arg}"')
        self.dup_files[key] = arg

    def cant(self, arg: str):
        if arg.startswith("--"):
            return OptionsError(f'Can\'t understand "{arg}"')
        if arg.startswith("["):
            return OptionsError(f'Can\'t understand "{arg}" (my guess) don\'t use a space '
                                'between sequence file and bracketed "action list"')
        if self.wayward is not None:
            return OptionsError(f'Can\'t understand "{arg}" (my guess) don\'t use a space '
                                f"between sequence file and {self.wayward}")
        return OptionsError(f'Can\'t understand "{arg}" (my guess) perhaps you have too many '
                            "sequence files in the command")

    def set_seed(self, pattern: str, arg: str, transition: int | None = None):
        if self.seed_string is not None:
            raise OptionsError(f'Duplicated or conflicting option "{arg}"')
        self.seed_string, self.seed_arg = pattern, arg
        if transition is not None:
            self.v["transition"] = transition

    def match_seed(self, n: int, arg: str):
        if not 1 <= n <= 15:
            raise OptionsError(f"{n} is not a valid word length")
        self.seed_string, self.seed_arg = "1" * n, arg
        if not self.have_with_trans:
            self.v["transition"] = 0
            self.have_with_trans = True

    def set_mode(self, mode: str):
        self.mode = mode
        self.v["gfextend"] = mode != "none"
        if mode != "exact":
            self.v["exact"] = None
        if mode != "mismatch":
            self.v["mismatch"] = None

    # -- the loop --
    def run(self, words: list[str], top: bool, expanders: bool, include: bool) -> None:
        for word in words:
            arg = word
            raw = arg.encode("utf-8", "surrogateescape")
            if raw.startswith(_NB_HYPHENS):             # two non-breaking hyphens -> "--"
                arg = "--" + raw[len(_NB_HYPHENS):].decode("utf-8", "surrogateescape")
            # (--nostats is lastz's too, so its run's arguments name it)
            if self.fastz_option(arg) and arg != "--nostats":
                continue
            if top:
                self.args.append(arg)
            if self.one(arg, expanders, include) == "file" and top:
                self.args.pop()

    def fastz_option(self, arg: str) -> bool:
        """fastz's own options; never recorded in ``args`` (output stays LASTZ's), but
        for ``--nostats``, which lastz takes as well."""
        if arg.startswith("--workers="):
            self.set(workers=string_to_int(arg[10:]))
        elif arg.startswith("--backend="):
            self.set(backend=arg[10:])
        elif arg.startswith("--dp="):
            self.set(dp=arg[5:])
        elif arg == "--quiet":
            self.set(quiet=True)
        elif arg == "--stats":
            self.set(stats="-")
        elif arg.startswith("--stats="):
            self.set(stats=arg[8:] or "-")
        elif arg == "--nostats":
            self.set(stats=None)
        else:
            return False
        return True

    def one(self, arg: str, expanders: bool, include: bool):   # noqa: C901 (one flat table)
        val = arg.split("=", 1)[1] if "=" in arg else None
        v = self.v
        if arg in HELP_WORDS:
            raise HelpRequested(HELP_WORDS[arg])
        if arg == "--self":
            self.set(self_compare=True, notrivial=True)
        elif arg == "--debug=clonedquery":
            self.extra["cloned_query"] = True
        elif arg == "--notrivial":
            self.set(notrivial=True)
        # -- seeds --
        elif arg == "T=0":
            v["transition"] = 0
        elif arg in ("T=1", "T=2", "T=3", "T=4"):
            pattern = SEED_12OF19 if arg in ("T=1", "T=2") else SEED_14OF22
            self.set_seed(pattern, arg, 1 if arg in ("T=1", "T=3") else 0)
        elif arg.startswith("W="):
            if self.seed_string is not None:
                raise OptionsError("can't specify W=<length> with --seed")
            n = lead_int(val)
            if n is None:
                raise self.cant(arg)
            self.match_seed(n, arg)
        elif arg.startswith("--seed="):
            if self.seed_string is not None:
                raise OptionsError(f'Duplicated or conflicting option "{arg}"')
            m = re.fullmatch(r"(match|half)(?:\((.*)\)|(.*))", val, re.S)
            if val in ("12of19", "14of22"):
                self.set_seed(SEED_12OF19 if val == "12of19" else SEED_14OF22, arg)
            elif m:
                inner = m.group(2) if m.group(2) is not None else m.group(3)
                n = lead_int(inner) if m.group(2) is not None else \
                    (int(inner) if re.fullmatch(r"[ \t\n\r\f\v]*[+-]?\d+", inner) else None)
                if n is None:
                    raise self.cant(arg)
                if m.group(1) == "match":
                    self.match_seed(n, arg)
                else:
                    if not 2 <= n <= 31:
                        raise OptionsError(f"{n} is not a valid word length")
                    self.set_seed("T" * n, arg)
            else:
                self.set_seed(val, arg)
        elif arg in ("--notrans", "--notransition", "--trans=0", "--transition=0"):
            v["transition"] = 0
        elif arg in ("--trans", "--transition", "--trans=1", "--transition=1"):
            self.set(transition=1)
            self.have_with_trans = True
        elif arg in ("--trans=2", "--transition=2", "--transitions=2"):
            self.set(transition=2)
            self.have_with_trans = True
        elif arg == "--nofilter":
            self.set(seed_filter_matches=None, seed_filter_transversions=None)
        elif arg.startswith("--filter=cares:") or (arg.startswith("--filter=")
                                                    and val[:1].isdigit()):
            cares = arg.startswith("--filter=cares:")
            body = val[len("cares:"):] if cares else val
            sep = "," if "," in body else (":" if not cares and ":" in body else None)
            if sep:
                t, mm = body.split(sep, 1)
                self.set(seed_filter_transversions=string_to_int(t),
                         seed_filter_matches=string_to_int(mm))
            else:
                self.set(seed_filter_transversions=None, seed_filter_matches=string_to_int(body))
            self.set(seed_filter_cares_only=cares)
        elif arg.startswith("--word="):
            self.set(word=string_to_int(val))
        elif arg == "--notwins":
            self.set(twins_min=None, twins_max=None)
        elif arg.startswith("--twins="):
            if ".." in val:
                lo, hi = val.split("..", 1)
            elif ":" in val:
                lo, hi = val.split(":", 1)
            else:
                lo, hi = "0", val
            self.set(twins_min=string_to_int(lo), twins_max=string_to_int(hi))
        elif arg in ("--norecoverseeds", "--norecoverhits"):
            self.set(recover_seeds=False)
        elif arg in ("--recoverseeds", "--recoverhits"):
            self.set(recover_seeds=True)
        elif arg.startswith("--step=") or arg.startswith("Z="):
            step = string_to_int(val)
            if step <= 0:
                raise OptionsError("--step must be positive")
            self.set(step=step)
        # -- strands --
        elif arg in ("--both", "--bothstrands", "--strand=both"):
            self.set(strand="both")
        elif arg in ("--plus", "--plusstrand", "--strand=plus", "--strand=+", "--strand=forward"):
            self.set(strand="plus")
        elif arg in ("--minus", "--minusstrand", "--strand=minus", "--strand=-",
                     "--strand=reverse"):
            self.set(strand="minus")
        elif arg.startswith("B="):
            b = string_to_int(val)
            self.set(strand="both" if b > 0 else "plus" if b == 0 else "minus")
        # -- ambiguity --
        elif re.match(r"--ambig(?:uous)?=(?:n|N|iupac|IUPAC),", arg):
            kind = "iupac" if "iupac" in arg.lower().split("=", 1)[1] else "n"
            parts = val.split(",")[1:]
            penalty = string_to_score(parts[-1] if len(parts) < 3 else ",".join(parts[1:]))
            if penalty < 0:
                raise OptionsError(f"penalty for --ambiguous={kind} must be non-negative")
            reward = string_to_score(parts[0]) if len(parts) >= 2 else 0
            self.set(ambiguous_n=True, ambiguous_reward=reward, ambiguous_penalty=penalty)
            if kind == "iupac":
                self.set(ambiguous_iupac=True)
        elif arg in ("--ambiguousn", "--ambiguous=n", "--ambig=n", "--ambiguous=N", "--ambig=N"):
            self.set(ambiguous_n=True)
        elif arg in ("--ambiguous=iupac", "--ambig=iupac", "--ambiguous=IUPAC", "--ambig=IUPAC"):
            self.set(ambiguous_n=True, ambiguous_iupac=True)
        # -- gap-free extension --
        elif arg in ("--gfextend", "--gfx"):
            self.set_mode("xdrop")
        elif arg in ("--nogfextend", "--nogfx"):
            self.set_mode("none")
        elif arg in ("--justhits", "--hitsonly"):
            self.set_mode("none")
            v["gapped"] = False
        # -- chaining, gapped --
        elif arg == "--chain":
            self.set(chain=True)
        elif arg == "--nochain":
            self.set(chain=False)
        elif arg.startswith("--chain="):
            if "," not in val:
                raise OptionsError(f"{val} is not a valid pair of chain penalties")
            d, a = val.split(",", 1)
            self.set(chain=True, chain_diag=string_to_score(d), chain_anti=string_to_score(a))
        elif arg.startswith("G="):
            self.set(chain_diag=string_to_score(val))
        elif arg.startswith("R="):
            self.set(chain_anti=string_to_score(val))
        elif arg in ("--gapped", "--gx"):
            self.set(gapped=True)
        elif arg in ("--nogapped", "--ungapped", "--nogx"):
            v["gapped"] = False
        elif arg in ("C=0", "C=1", "C=2", "C=3"):
            chain, gapped = {"C=0": (False, True), "C=1": (True, False),
                             "C=2": (True, True), "C=3": (False, False)}[arg]
            if gapped:
                self.set(gapped=True)
            else:
                v["gapped"] = False
            self.set(chain=chain)
        elif arg == "--nostats":
            pass                          # (lastz's statistics; fastz's, fastz_option set)
        elif arg == "--allgappedbounds":
            self.set(allgappedbounds=True)
        # -- scoring --
        elif arg.startswith(("--scores=", "--score=", "Q=")):
            self.dup("scores", arg)
            self.set(scores_file=val)
        elif arg in ("--unitscore", "--unitscores", "U=1"):
            self.set(match_reward=1, match_penalty=1)
        elif arg.startswith(("--match=", "U=")):
            r_text, _, p_text = val.partition(",")
            # (LASTZ keeps the two in ints, also in lastz_D: a fraction is cut off, and
            # a double past an int becomes -2^31)
            reward = to_int(string_to_score(r_text))
            if reward <= 0:
                raise OptionsError(f"{r_text} is not a valid match score")
            penalty = reward
            if "," in val:
                penalty = int(string_to_score(p_text))
                if double_scores() and to_int(-penalty) == -2**31:
                    # (lastz_D takes it as -2^31, then negates that: C leaves it undefined)
                    raise OptionsError(f'"{p_text}" is out of range for an integer')
                if penalty <= 0:
                    raise OptionsError(f"{p_text} is not a valid mismatch penalty")
            self.set(match_reward=reward, match_penalty=penalty)
        elif len(arg) >= 3 and arg[0] in "ACGTacgt" and arg[1] in "ACGTacgt" and arg[2] == ":":
            subs = [s for s in v.get("special_subs", ())
                    if (s[0].upper(), s[1].upper()) != (arg[0].upper(), arg[1].upper())]
            self.set(special_subs=tuple(subs) + ((arg[0].upper(), arg[1].upper(),
                                                  string_to_score(arg[3:])),))
        elif arg.startswith("--gap="):
            if "," not in val:
                extend = string_to_score(val)
                if extend < 0:
                    raise OptionsError(f"{val} is not a valid gap extension penalty")
                self.set(gap_extend=extend)
            else:
                o, e = val.split(",", 1)
                self.set(gap_open=string_to_score(o), gap_extend=string_to_score(e))
        elif arg.startswith("O="):
            self.set(gap_open=string_to_score(val))
        elif arg.startswith("E="):
            self.set(gap_extend=string_to_score(val))
        # -- x-drop, y-drop, thresholds --
        elif arg.startswith(("--xdrop=", "X=")):
            self.check_not_alt(arg)
            self.set_mode("xdrop")
            self.set(xdrop=string_to_score(val))
            self.have_xdrop = True
        elif arg.startswith(("--ydrop=", "Y=")):
            self.set(ydrop=string_to_score(val))
        elif arg in ("--noxtrim", "--noxdroptrim"):
            raise OptionsError("sorry, --noxtrim not implemented yet")
        elif arg in ("--noytrim", "--noydroptrim"):
            self.set(ytrim=False)
        elif arg.startswith(("--hspthresh=", "--hspthreshold=", "--mspthresh=",
                             "--mspthreshold=", "K=")):
            self.check_not_alt(arg)
            score, top = score_thresh(val)
            self.set(hspthresh=score, hspthresh_top=top)
            self.have_hsp = True
        elif arg.startswith("--exact="):
            self.alt_extender(arg, 0, val)
        elif re.match(r"--[+-]?\d+mismatch=", arg) or arg.startswith("--mismatch="):
            if arg.startswith("--mismatch="):
                if "," not in val:
                    raise OptionsError("--mismatch requires two values (count and length)")
                n_text, length = val.split(",", 1)
                n = string_to_score(n_text)
                if isinstance(n, float):
                    n = to_int(n)                   # (lastz_D's score goes into an int)
            else:
                n, length = int(re.match(r"--([+-]?\d+)", arg).group(1)), val
            self.alt_extender(arg, n, length)
        elif arg.startswith(("--inner=", "H=")):
            self.set(inner=string_to_score(val))
        elif arg.startswith(("--gappedthresh=", "--gappedthreshold=", "L=")):
            score, top = score_thresh(val)
            self.set(gappedthresh=score, gappedthresh_top=top)
        elif arg in ("--entropy", "P=1"):
            self.set(entropy=True)
        elif arg in ("--noentropy", "P=0"):
            v["entropy"] = False
            self.given.discard("entropy")           # (LASTZ clears haveEntropicHsp here)
        elif arg.startswith("P=") or arg == "--entropy=report":
            if arg.startswith("P=") and string_to_int(val) <= 0:
                raise OptionsError("illegal value for P")
            self.set(entropy=True, entropy_report=True)
        elif arg.startswith(("--allocate:traceback=", "--alloc:traceback=",
                             "--memory:traceback=", "--mem:traceback=", "--traceback=", "m=")):
            # (a u32 in LASTZ: -1 is 4 GiB, which its allocation then refuses)
            self.set(traceback_bytes=to_u32(string_to_unitized_int(val, by_thousands=False)))
        elif arg.startswith(("--masking=", "M=")):
            n = string_to_int(val)
            if n < 0:
                raise OptionsError("--masking cannot be negative")
            self.set(masking=n)
        # -- back-end filters --
        elif arg.startswith(("--identity=", "--filter=identity:")):
            lo, hi = pct_range(val if arg.startswith("--identity=") else arg.split(":", 1)[1], arg)
            self.set(identity_min=lo, identity_max=hi)
            self.have_max_identity = True
        elif arg.startswith(("--coverage=", "--filter=coverage:")):
            lo, hi = pct_range(val if arg.startswith("--coverage=") else arg.split(":", 1)[1], arg)
            self.set(coverage_min=lo, coverage_max=hi)
        elif arg.startswith(("--continuity=", "--filter=continuity:")):
            lo, hi = pct_range(val if arg.startswith("--continuity=") else arg.split(":", 1)[1],
                            arg)
            self.set(continuity_min=lo, continuity_max=hi)
        elif arg.startswith(("--matchcount=", "--filter=nmatch:")):
            text = val if arg.startswith("--matchcount=") else arg.split(":", 1)[1]
            if text.endswith("%"):
                self.set(filter_nmatch_pct=pct(text))
            else:
                n = string_to_int(text)
                if n <= 0:
                    raise OptionsError("--filter=nmatch must be positive")
                self.set(filter_nmatch=n)
        elif arg.startswith(("--filter=nmismatch:", "--filter=ngap:", "--filter=cgap:")):
            kind, text = arg[len("--filter="):].split(":", 1)
            if text.startswith(".."):
                n = string_to_int(text[2:])
            elif text.startswith("0.."):
                n = string_to_int(text[3:])
            else:
                raise OptionsError(f'Can\'t understand "{arg}" Consider '
                                   f'"--filter={kind}:0..<max>"')
            if n < 0:
                raise OptionsError(f"--filter={kind} can't be negative")
            self.set(**{f"filter_{kind}": n})
        elif arg == "--mirror":
            self.set(mirror=True)
        elif arg == "--nomirror":
            self.set(mirror=False)
        # -- output --
        elif arg.startswith(("--out=", "--output=")):
            self.set(output=val)
        elif arg in FORMAT_WORDS:
            fmt, fields, degap, distinguish = FORMAT_WORDS[arg]
            self.set(format=fmt, format_fields=fields)
            if degap:
                self.set(degapify=True)
            if distinguish is not None:
                self.set(maf_distinguish_names=distinguish)
        elif arg.startswith("--writesegments="):
            self.set(output=val, format="segments", format_fields=())
        elif any(arg.startswith(p) for ps, _, _ in GENERAL_PREFIXES for p in ps):
            for prefixes, fmt, degap in GENERAL_PREFIXES:
                if arg.startswith(prefixes):
                    break
            keys = arg.split(":", 1)[1]
            if keys == "":
                raise OptionsError(f"empty keys string for --format={fmt}:")
            self.set(format=fmt, format_fields=parse_general_fields(keys))
            if degap:
                self.set(degapify=True)
        elif arg in ("--format=istats", "--format=infstats") or re.fullmatch(
                r"--format=(?:istats|infstats)\(.*\)", arg):
            if "(" in arg:
                inner = arg[arg.index("(") + 1:-1]
                m = FLOAT.match(inner)
                if m is None or inner[m.end():] not in ("", "%"):
                    raise self.cant(arg)
                hi = float32(float_value(m.group(1)))
                if not 0 <= hi <= 100:
                    raise self.cant(arg)
                self.set(identity_max=hi)
                self.have_max_identity = True
            elif not self.have_max_identity:
                self.set(identity_max=70.0)
                self.have_max_identity = True
            self.set(format="infstats", format_fields=())
        elif arg == "--markend":
            self.set(markend=True)
        elif arg.startswith(("--rdotplot=", "--rdotplot+score=")):
            self.dup("rdotplot", arg)
            self.set(rdotplot=val)
            self.extra["rdotplot_score"] = arg.startswith("--rdotplot+score=")
        elif arg.startswith("--readgroup="):
            old = v.get("readgroup")
            self.set(readgroup=val if old is None else old + "\t" + val)
        elif re.match(r"--(?:action1|action2|action:target|action:query)=", arg):
            which = "target" if arg.startswith(("--action1=", "--action:target=")) else "query"
            if val.startswith("[") and val.endswith("]"):
                self.actions[which] += val
            elif not val.endswith("]"):
                self.actions[which] += f"[{val}]"
            else:
                raise self.cant(arg)
        elif arg.startswith("--include="):
            if not expanders:
                raise OptionsError(f"internal error, inclusion is not allowed in expanders ({arg})")
            if not include:
                raise OptionsError(f"nested inclusion is not allowed ({arg})")
            self.include(val)
        elif arg.split(":", 1)[0] in YASRA:
            self.expand(arg, expanders)
        elif arg == "--help=defaults":
            self.set(show_defaults="exit")
        elif arg == "--show=defaults":
            self.set(show_defaults="stdout")
        elif arg == "--show=defaults:stderr":
            self.set(show_defaults="stderr")
        elif arg.startswith(("--segments=", "--anchors=")):
            self.dup("segments", arg)
            self.set(segments_file=val)
        elif arg in EXTRA_OFF:
            self.extra.pop(EXTRA_OFF[arg], None)         # (a census file stays named)
        elif arg == "--nolaj":                 # (LASTZ's default is --laj)
            self.extra["laj"] = False
        elif self.extra_feature(arg):
            pass
        elif arg.startswith("--"):
            raise self.cant(arg)
        elif self.target is None and "targetcapsule" not in self.extra:
            self.target = arg
            return "file"
        elif self.query is None:
            self.query = arg
            if arg.startswith("["):
                self.wayward = arg
            return "file"
        else:
            raise self.cant(arg)
        return None

    def check_not_alt(self, arg: str) -> None:
        """--xdrop / --hspthresh conflict with an earlier --exact / --mismatch."""
        if self.have_hsp and self.mode == "exact":
            raise OptionsError(f"can't use {arg} with --exact")
        if self.have_hsp and self.mode == "mismatch":
            raise OptionsError(f"can't use {arg} with --{self.v['mismatch'][0]}mismatch")

    def alt_extender(self, arg: str, n: int, length_text: str) -> None:
        """--exact=<len>, --mismatch=<N>,<len>, --<N>mismatch=<len>."""
        if self.have_hsp and self.mode == "xdrop":
            raise OptionsError(f"can't use {arg} with --hspthreshold")
        if self.have_xdrop and self.mode == "xdrop":
            raise OptionsError(f"can't use {arg} with --xdrop")
        if n == 0:
            if self.have_hsp and self.mode == "mismatch":
                raise OptionsError(f"can't use {arg} with --{self.v['mismatch'][0]}mismatch")
            length = string_to_score(length_text)
            if length <= 0:
                raise OptionsError(f"{length_text} is not a valid exact match threshold")
            self.set_mode("exact")
            self.set(exact=length, hspthresh=length, hspthresh_top=None)
        else:
            if not 1 <= n <= 50:
                raise OptionsError(f"{n} is out of range for N-mismatch (valid range is 1..50)")
            if self.have_hsp and self.mode == "exact":
                raise OptionsError(f"can't use {arg} with --exact")
            length = string_to_score(length_text)
            if length < n:
                raise OptionsError(f"{length_text} is not a valid exact {n}mismatch threshold")
            self.set_mode("mismatch")
            self.set(mismatch=(n, length), hspthresh=length, hspthresh_top=None)
        self.have_hsp = True

    def capsule_word(self, arg: str) -> None:
        """--writecapsule=F / --targetcapsule=F; with a capsule the first file named is
        the query (LASTZ moves a target named earlier over)."""
        key, path = arg[2:].split("=", 1)
        if key in self.extra:
            raise OptionsError(f'Duplicated or conflicting option "{arg}"')
        other = "targetcapsule" if key == "writecapsule" else "writecapsule"
        if other in self.extra:
            raise OptionsError(f"can't use --{key} with --{other}")
        if key == "targetcapsule" and self.target is not None:
            if self.query is not None:
                raise OptionsError("can't use --targetcapsule with two queries")
            self.target, self.query = None, self.target
        self.extra[key] = path

    def capsule_checks(self, query: str | None, given: frozenset) -> None:
        """LASTZ's refusals around capsules (``parse_options``, in its order); ``given``:
        the settings the words set (``transition`` only by a --transition word, not by
        a match seed's default)."""
        e, g = self.extra, given
        if "targetcapsule" in e:
            if self.seed_string is not None:
                raise OptionsError(seed_refusal("--targetcapsule", self.seed_arg))
            # (as LASTZ: --step when given, the others when not their default; a
            # percentage --maxwordcount, which lastz ignores here, is refused too)
            v = self.v
            for clash, flag in (("step" in g, "--step"), (v.get("masking", 0) > 0, "--masking"),
                                ("maxwordcount" in e, "--maxwordcount"),
                                (v.get("word", 28) != 28, "--word"),
                                (e.get("allocate_target") not in (None, "0"),
                                 "--allocate:target")):
                if clash:
                    raise OptionsError(f"can't use {flag} with --targetcapsule")
        if "writecapsule" in e:
            if query is not None:
                raise OptionsError("--writecapsule can't be used when you specify a query file")
            for given, flag in (("infer", "--infer"), ("segments_file", "--segments"),
                                ("xdrop", "--xdrop"), ("ydrop", "--ydrop"),
                                ("hspthresh", "--hspthresh"), ("gappedthresh", "--gappedthresh"),
                                ("inner", "--inner"), ("entropy", "--entropy"),
                                ("ball", "--ball"), ("transition", "--transition"),
                                ("identity_min", "--identity"), ("gap_open", "--gap"),
                                ("gap_extend", "--gap")):
                if given in g or given in e:
                    raise OptionsError(f"can't use {flag} with --writecapsule")

    def extra_feature(self, arg: str) -> bool:
        if arg.startswith("c="):                       # c=<flag>: census on/off
            if string_to_int(arg[2:]) == 0:
                self.extra.pop("census", None)
            else:
                self.extra["census"] = self.census_file or True
            return True
        if self.progress_word(arg):
            return True
        if arg.startswith(("--writecapsule=", "--targetcapsule=")):
            self.capsule_word(arg)
            return True
        if arg in SEED_TABLE_WORDS:
            skip_search, show = SEED_TABLE_WORDS[arg]
            if skip_search:
                self.extra["tableonly"] = True
            if show is not None:
                self.extra["showtable"] = show
            return True
        for patterns, key in EXTRA_PATTERNS:
            for p in patterns:
                if arg.startswith(p[:-1]) if p.endswith("*") else arg == p:
                    if key == "debug":
                        self.extra.setdefault("debug", []).append(arg)
                    elif key == "verbosity":            # (v=1 is everything)
                        self.extra[key] = (0 if arg.startswith("v=0") else
                                           10 if arg.startswith("v=1") else
                                           min(max(string_to_int(arg[12:]), 0), 10))
                    elif key == "queryhsplimit_keep":   # one limit, the last word wins
                        self.extra["queryhsplimit"] = PLUS_FORM + arg.split("=", 1)[1]
                    elif key in ("anyornone", "limitperquery"):
                        # LASTZ keeps one search limit: --anyornone/--stopafter replace
                        # an earlier --queryhsplimit (and each other); a later
                        # --queryhsplimit sets the HSP-immediate mode's limit
                        for k in ("anyornone", "limitperquery", "queryhsplimit"):
                            self.extra.pop(k, None)
                        self.extra[key] = arg.split("=", 1)[1] if "=" in arg else True
                    elif key == "census":
                        # LASTZ names one census file, which later words turn on and off
                        if "=" in arg:
                            if self.census_file is not None:
                                raise OptionsError(
                                    f'Duplicated or conflicting option "{arg}"')
                            self.census_file = arg.split("=", 1)[1]
                        self.extra[key] = self.census_file or True
                    else:
                        self.extra[key] = arg.split("=", 1)[1] if "=" in arg else True
                    self.check_extra_word(key)
                    self.search_limit_clash(arg, key)
                    return True
        return False

    def check_extra_word(self, key: str) -> None:
        """Validate the value a word just gave, as LASTZ does while it parses (a later
        word replacing it does not excuse it)."""
        from .options import (immediate_limit, query_depth, query_hsp_best,
                              query_hsp_limit, text_expand)
        x = self.extra
        if key == "limitperquery":
            immediate_limit({"limitperquery": x[key]})
        elif key.startswith("queryhsplimit"):
            query_hsp_limit({"queryhsplimit": x["queryhsplimit"]})
        elif key == "queryhspbest":
            query_hsp_best(x)
        elif key == "querydepth":
            query_depth(x)
        elif key == "expand":
            text_expand(x)
        elif key == "maxwordcount":
            from .pipeline.seeding import parse_max_word_count
            parse_max_word_count(str(x[key]))

    def search_limit_clash(self, arg: str, key: str) -> None:
        """LASTZ's one search limit (--queryhsplimit, --anyornone, --stopafter) and
        --queryhspbest exclude each other, and the second of them is the one named."""
        from .options import query_hsp_best, query_hsp_limit
        if key == "queryhspbest" and any(k in self.extra for k in (
                "queryhsplimit", "anyornone", "limitperquery")):
            query_hsp_best(self.extra)                 # (a bad count is reported first)
            raise OptionsError(f"can't use {arg} with --queryhsplimit")
        if key.startswith("queryhsplimit") and "queryhspbest" in self.extra:
            query_hsp_limit(self.extra)
            raise OptionsError(f"can't use {arg} with --queryhspbest")

    def progress_word(self, arg: str) -> bool:
        """--progress[=N], --progress+masking[=N] and their --debug=queryprogress
        spellings: extra["progress"] = (report every N-th query, with the target's
        masked-base count).  As in LASTZ, +masking stays on once given."""
        if arg == "--debug=progressprefix":
            self.extra["progress_prefix"] = True
            return True
        for word in ("--progress", "--debug=queryprogress"):
            for masking in (False, True):
                stem = word + ("+masking" if masking else "")
                if arg == stem or arg.startswith(stem + "="):
                    every = (1 if arg == stem
                             else string_to_unitized_int(arg[len(stem) + 1:], True))
                    _, was = self.extra.get("progress", (0, False))
                    self.extra["progress"] = (every, masking or was)
                    return True
        return False

    def include(self, path: str) -> None:
        """--include=FILE: each line's words parsed as options (not recorded in args)."""
        try:
            with open(path, encoding="latin-1") as fh:
                lines = fh.read().splitlines()
        except OSError as exc:
            raise OptionsError(f'fopen_or_die failed to open "{path}" for "rt"') from exc
        for line in lines:
            words = line.split()
            if words:
                self.run(words, top=False, expanders=True, include=False)

    def expand(self, arg: str, expanders: bool) -> None:
        name, _, version = arg.partition(":")
        if ":" in arg:
            if version == "":
                raise OptionsError(f"{arg} contains no version number")
            if not re.fullmatch(r"\d+\.\d+(?:\.\d+)?", version):
                raise OptionsError(f"{arg} contains an invalid lastz version number")
        if not expanders:
            raise OptionsError(f"internal error, nested expanders are not allowed ({arg})")
        old = ":" in arg and version_tuple(version) <= (1, 2, 45)
        text = YASRA[name] + ("" if old else YASRA_NEW)
        self.run(text.split(), top=False, expanders=False, include=False)

    def finish(self) -> Options:
        v = self.v
        if self.seed_string is not None:
            v["seed"] = normalize_seed(self.seed_string)
            self.given.add("seed")
            self.extra["seed_arg"] = self.seed_arg      # (named in LASTZ's refusals)
            v["seed_name"] = seed_display(v["seed"], v.get("word", 28))
        words_given = frozenset(self.given)        # (before a match seed's transition)
        if self.have_with_trans:
            self.given.add("transition")
        target = self.target
        capsule = "targetcapsule" in self.extra
        if self.actions["target"]:
            if capsule:
                raise OptionsError("--action1 can't be used with --targetcapsule")
            target += self.actions["target"]
        if target is None and not capsule:
            raise OptionsError("You must specify a target file")
        query = self.query
        if self.actions["query"]:
            if query is None:
                raise OptionsError("--action2 can't be used without query sequence file")
            query += self.actions["query"]
        if v.get("self_compare"):
            if query is not None:
                raise OptionsError("--self can't be used when you specify a query file")
            if capsule:
                raise OptionsError("--self can't be used with --targetcapsule")
            query = target
        self.capsule_checks(query, words_given)
        if self.extra.get("tableonly") and query is not None:
            raise OptionsError("--tableonly can't be used when you specify a query file")
        v.update(target=target, query=query, args="".join(a + " " for a in self.args),
                 double_scores=double_scores())
        opts = Options(**v, given=frozenset(self.given), extra=self.extra)
        opts.validate()
        return opts


def parse_lastz_argv(words: list[str]) -> Options:
    """Parse LASTZ command-line words (everything after the program name) into Options.

    The first two non-option words are the target and query specifiers (no query =
    stdin).  Raises OptionsError for anything LASTZ rejects, and HelpRequested for
    ``--help``-style and ``--version`` words.  Derived defaults stay unset: call
    ``Options.resolved()``.
    """
    p = _Parser()
    p.run(list(words), top=True, expanders=True, include=True)
    return p.finish()


# --- --show=defaults ------------------------------------------------------------------

def show_defaults_text(opts: Options, scores, prefix: str = "") -> str:
    """LASTZ ``show_scoring_defaults`` for resolved ``opts`` (``--show=defaults`` and
    ``--help=defaults``); ``prefix`` is the output format's comment prefix."""
    w = 12
    p = prefix
    d = opts.double_scores

    def sc(v) -> str:
        return score_plain(v, d)

    lines = [f"{p}  target file spec = {opts.target or '(no name)'}",
             f"{p}  query file spec  = {opts.query if opts.query is not None else '(no name)'}",
             f"{p}  arguments        = {opts.args}", p]

    def row(short: str, long: str) -> None:
        lines.append(f"{p}  {short:<{w}} {long}")

    if opts.self_compare:
        row("", "--self")
    row(*{"both": ("B=2", "--strand=both"), "minus": ("B=-1", "--strand=minus"),
          "plus": ("B=0", "--strand=plus")}[opts.strand])
    row(f"Z={opts.step}", f"--step={opts.step}")
    first = opts.seed_name.split(",")[0]
    nick = " (12of19)" if opts.seed_name == SEED_12OF19 else \
        " (14of22)" if opts.seed_name == SEED_14OF22 else ""
    row(f"W={len(first)}" if set(first) == {"1"} else "", f"--seed={opts.seed_name}{nick}")
    row("", ("--notransition", "--transition", "--transition=2")[opts.transition])
    row(f"O={sc(opts.gap_open)} E={sc(opts.gap_extend)}",
        f"--gap={sc(opts.gap_open)},{sc(opts.gap_extend)}")
    if opts.xdrop_mode:
        row(f"K={opts.hspthresh_text}", f"--hspthresh={opts.hspthresh_text}")
    row(f"L={opts.gappedthresh_text}", f"--gappedthresh={opts.gappedthresh_text}")
    row(*(("P=1", "--entropy") if opts.entropy else ("P=0", "--noentropy")))
    if opts.xdrop_mode:
        row(f"X={sc(opts.xdrop)}", f"--xdrop={sc(opts.xdrop)}")
    elif opts.exact is not None:
        row("", f"--exact={opts.hspthresh_text}")
    elif opts.mismatch is not None:
        row("", f"--mismatch={opts.mismatch[0]},{opts.hspthresh_text}")
    row(f"Y={sc(opts.ydrop)}", f"--ydrop={sc(opts.ydrop)}")
    row(f"H={sc(opts.inner)}", f"--inner={sc(opts.inner)}")
    row(f"M={opts.masking}", f"--masking={opts.masking}")
    row(f"m={opts.traceback_bytes}", f"--allocate:traceback={opts.traceback_bytes}")
    lines += [p, f"{p}  (substitution scores)"]
    return "\n".join(lines) + "\n" + scores.format_matrix(with_extras=False, prefix=p, double=d)
