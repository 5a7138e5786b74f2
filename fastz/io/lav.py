"""LAV output (``--format=lav``, ``lav+``, ``lav+text``, ``lavscore``).

Mirrors LASTZ ``lav.c``: ``print_lav_job_header`` (d stanza),
``print_lav_header`` (s and h stanzas, once per query strand with output),
``print_lav_align`` (a stanza, one l line per gap-free run),
``print_lav_match`` / ``print_lavscore_match`` (HSPs and seed hits),
``print_lav_m_stanza`` / ``print_lav_x_stanza`` and ``print_lav_job_footer``.
"""
from __future__ import annotations

from ..errors import InputError
from .alignview import AlnView, AlnViews, SeqInfo
from ..scoring import score_plain
from .formats import (Writer, drops, refuse_partitioned, score_matrix_lines, stdout_for_quirks,
                      threshold_strings)

_SHORT_SUFFIX = {False: "", True: "-"}
_LONG_SUFFIX = {False: "", True: " (reverse complement)"}


def lav_align_lines(v: AlnView, double: bool = False) -> list[str]:
    """The a stanza of a gapped alignment (1-based buffer coordinates); ``double``:
    lastz_D's score format."""
    b1 = v.beg1 + 1
    b2 = v.beg2 + 1
    lines = ["a {", f"  s {score_plain(v.score, double)}", f"  b {b1} {b2}",
             f"  e {v.end1} {v.end2}"]
    for (i0, j0, run, _gop, _glen), m in zip(v.walk, v.run_matches):
        pct = (200 * m + run) // (2 * run) if run else 0
        lines.append(f"  l {b1 + i0} {b2 + j0} {b1 + i0 + run - 1} {b2 + j0 + run - 1} {pct}")
    lines.append("}")
    return lines


def lav_match_lines(v: AlnView, score_instead: bool = False,
                    double: bool = False) -> list[str]:
    """The a stanza of an HSP / seed hit (percent identity over ACGT pairs)."""
    s = score_plain(v.score, double)
    last = s if score_instead else v.percent_identical()
    return ["a {", f"  s {s}", f"  b {v.beg1 + 1} {v.beg2 + 1}", f"  e {v.end1} {v.end2}",
            f"  l {v.beg1 + 1} {v.beg2 + 1} {v.end1} {v.end2} {last}", "}"]


class LavWriter(Writer):
    """LAV and its variants."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        refuse_partitioned(self.opts, self.target, "--lav")
        # lav+text sends part of its text to stdout (stdout_for_quirks)
        self.strands_apart = self.spec.variant != "text"

    def job_header(self) -> None:
        o = self.opts
        k, l_, _ = threshold_strings(o)
        tname = self.target.filename or "(no name)"
        qname = self.query_filename or "(no name)"
        lines = ["#:lav", "d {", f'  "{self.program} {tname} {qname} {self.args}']
        d = o.double_scores
        lines += score_matrix_lines(self.scores, with_extras=False, double=d)
        last = (f"  O = {score_plain(self.scores.gap_open, d)}, "
                f"E = {score_plain(self.scores.gap_extend, d)}, K = {k}, "
                f"L = {l_}, M = {int(o.masking) & 0xFF}")
        if self.spec.variant == "+":
            x, y = drops(o, self.scores)
            last += f", X = {x}, Y = {y}"
        lines += [last + '"', "}"]
        self.out.write("\n".join(lines) + "\n")

    def strand_header(self, qinfo: SeqInfo) -> None:
        if qinfo.partitioned:
            raise InputError("lav format can't handle multi-sequences")
        t, q = self.tinfo.whole, qinfo.whole
        tfile = self.target.filename or "(no name)"
        qfile = qinfo.seq.filename or "(no name)"
        th = self.target.header if self.target.header is not None else "(no header)"
        qh = qinfo.seq.header if qinfo.seq.header is not None else "(no header)"
        tr, qr = self.tinfo.rev, qinfo.rev
        self.out.write(
            "#:lav\ns {\n"
            f'  "{tfile}{_SHORT_SUFFIX[tr]}" {t.start_loc} {t.start_loc + t.length - 1} '
            f"{int(tr)} {t.contig}\n"
            f'  "{qfile}{_SHORT_SUFFIX[qr]}" {q.start_loc} {q.start_loc + q.length - 1} '
            f"{int(qr)} {q.contig}\n"
            "}\nh {\n"
            f'   "{th}{_LONG_SUFFIX[tr]}"\n'
            f'   "{qh}{_LONG_SUFFIX[qr]}"\n'
            "}\n")

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        from .alignview import expand_view
        from ..options import text_expand
        from .textformats import text_align_lines, text_match_lines

        out = self.out
        variant = self.spec.variant
        quirk = stdout_for_quirks(self.opts, out)
        expand = text_expand(self.opts.extra or {})
        d = self.opts.double_scores
        for v in vs:
            tv = expand_view(v, expand) if expand and variant == "text" else v
            if v.is_hsp:
                out.write("\n".join(lav_match_lines(v, variant == "score", d)) + "\n")
                if variant == "text":
                    out.write(text_match_lines(self.tinfo, qinfo, tv, one_based=True, double=d))
            else:
                out.write("\n".join(lav_align_lines(v, d)) + "\n")
                if variant == "text":
                    body, tail = text_align_lines(self.tinfo, qinfo, tv, one_based=False,
                                                  double=d)
                    out.write(body)
                    if tail:
                        quirk.write(tail)

    def x_stanza(self, num_masked: int) -> None:
        self.out.write(f"x {{\n  n {num_masked}\n}}\n")

    def job_footer(self) -> None:
        lines = ["m {"]
        intervals = self.census_intervals or []
        lines += [f"  x {b} {e}" for b, e in intervals]
        lines += [f"  n {len(intervals)}", "}"]
        self.out.write("\n".join(lines) + "\n")
        if self.census_text is not None:
            self.out.write("Census {\n" + self.census_text + "}\n")
        self.out.write("#:eof\n")
