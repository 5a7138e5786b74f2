"""Block formats: AXT, MAF, text (human-readable) and differences.

Mirrors LASTZ ``axt.c`` (``print_axt_job_header``, ``print_axt_align``,
``print_axt_match``), ``maf.c`` (``print_maf_job_header``, ``print_maf_align``,
``print_maf_match``), ``text_align.c`` (``print_text_align_align``,
``print_text_align_match``, the 50-column display) and ``align_diffs.c``
(``print_align_diffs_align``, ``print_align_diffs_match``).
"""
from __future__ import annotations

import numpy as np

from .alignview import (
    BITS, GAP, OP_DEL, OP_INS, PRINTABLE, AlnView, AlnViews, SeqInfo, coverage, expand_view,
    pct1,
)
from ..options import text_expand
from ..scoring import score_text
from .formats import Writer, drops, score_matrix_lines, stdout_for_quirks, threshold_strings


def _ratio_comment(label: str, numer: int, denom: int) -> str:
    s = f"# {label}={numer}/{denom}"
    if denom != 0:
        s += f" ({pct1(numer, denom)})"
    return s + "\n"


def threshold_comment_lines(writer: Writer, maf: bool) -> list[str]:
    """The '# hsp_threshold ...' block shared by the AXT and MAF job headers."""
    o = writer.opts
    k, l_, gapped_plain = threshold_strings(o)
    lines = [f"# {writer.program} {writer.args}", "#", f"# hsp_threshold      = {k}"]
    if maf and not gapped_plain:
        lines.append("# gapped_threshold   = (derived from hsp_threshold)")
    else:
        lines.append(f"# gapped_threshold   = {l_}")
    x, y = drops(o, writer.scores)
    lines.append(f"# x_drop             = {x}")
    lines.append(f"# y_drop             = {y}")
    lines += score_matrix_lines(writer.scores, with_extras=True, prefix="# ",
                                double=o.double_scores)
    return lines


# --- AXT -----------------------------------------------------------------------------


class AxtWriter(Writer):
    """``axt``, ``axt+`` (identity/coverage comments), ``axt:size2``."""

    # (records are numbered through the run: placeholders there, Writer.number_text)
    strands_apart = True

    def job_header(self) -> None:
        self.out.write("\n".join(threshold_comment_lines(self, maf=False)) + "\n")

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        self.require_forward_target("print_axt_match" if vs.is_hsp else "print_axt_align")
        number = self.number
        out = []
        for v in vs:
            p1 = self.tinfo.place(v.beg1)
            p2 = qinfo.place(v.beg2)
            if self.spec.variant == "+":
                out.append(_ratio_comment("identity", *v.identity))
                out.append(_ratio_comment("coverage", *coverage(v, p1, p2)))
            s1 = p1.start(v.beg1, False)
            s2 = p2.start(v.beg2, qinfo.rev)
            line = (f"{self.number_text(number)} {p1.name} {s1} {s1 + v.height - 1} "
                    f"{p2.name} {s2} {s2 + v.width - 1} {'-' if qinfo.rev else '+'} "
                    f"{score_text(v.score, self.opts.double_scores)}")
            if self.spec.variant == "size2":
                line += f" {p2.length}"
            out.append(f"{line}\n{v.text1}\n{v.text2}\n\n")
            number += 1
        self.number = number
        self.out.write("".join(out))


# --- MAF -----------------------------------------------------------------------------


def _nbytes(name: str) -> int:
    """Length of a name as LASTZ sees it: bytes of its UTF-8 (or raw) text."""
    return len(name.encode("utf-8", "surrogateescape"))


class MafWriter(Writer):
    """``maf``, ``maf+`` (comments), ``maf-`` (no header), ``~maf``, ``mafsegments``."""

    strands_apart = True

    def job_header(self) -> None:
        if self.spec.variant == "-":
            return
        lines = [f"##maf version=1 scoring={self.program}"]
        lines += threshold_comment_lines(self, maf=True)
        self.out.write("\n".join(lines) + "\n")

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        out = []
        comments = self.spec.variant == "+"
        rev1, rev2 = self.tinfo.rev, qinfo.rev
        for v in vs:
            if v.is_hsp:
                self.require_forward_target("print_maf_match")
            p1 = self.tinfo.place(v.beg1)
            p2 = qinfo.place(v.beg2)
            if comments:
                out.append(_ratio_comment("identity", *v.identity))
                out.append(_ratio_comment("coverage", *coverage(v, p1, p2)))
                if v.is_hsp:
                    out.append(f"# cigar={v.width}m\n")
                else:
                    out.append(_ratio_comment("continuity", *v.continuity))
                    out.append(f"# cigar={v.cigar_mid(lower=True)}\n")
            s1 = p1.start(v.beg1, rev1)
            s2 = p2.start(v.beg2, rev2)
            name1 = p1.name
            name2 = ("~" if self.spec.distinguish and p1.name == p2.name else "") + p2.name
            # LASTZ pads names to the same number of bytes (not characters)
            nb1, nb2 = _nbytes(name1), _nbytes(name2)
            name1 += " " * (nb2 - nb1)
            name2 += " " * (nb1 - nb2)
            start_w = max(len(str(s1)), len(str(s2)))
            size_w = max(len(str(v.height)), len(str(v.width)))
            len_w = max(len(str(p1.true_len)), len(str(p2.true_len)))
            out.append(f"a score={score_text(v.score, self.opts.double_scores)}\n")
            out.append(f"s {name1} {s1 - 1:>{start_w}} {v.height:>{size_w}} "
                       f"{'-' if rev1 else '+'} {p1.true_len:>{len_w}} {v.text1}\n")
            out.append(f"s {name2} {s2 - 1:>{start_w}} {v.width:>{size_w}} "
                       f"{'-' if rev2 else '+'} {p2.true_len:>{len_w}} {v.text2}\n\n")
        self.out.write("".join(out))


# --- text (human readable) -------------------------------------------------------------

_ROW = 50
_U32 = 0xFFFFFFFF


def _bars(a: np.ndarray, b: np.ndarray, gap_aware: bool) -> np.ndarray:
    """Match row: '|' identity, ':' transition, ' ' otherwise ('-' at gaps if gap_aware)."""
    b1 = BITS[a]
    b2 = BITS[b]
    ok = (b1 >= 0) & (b2 >= 0)
    out = np.full(a.shape[0], ord(" "), np.uint8)
    out[ok & ((b1 & 1) == (b2 & 1))] = ord(":")
    out[ok & (b1 == b2)] = ord("|")
    if gap_aware:
        out[(a == GAP) | (b == GAP)] = ord("-")
    return out


def text_align_lines(tinfo: SeqInfo, qinfo: SeqInfo, v: AlnView,
                     one_based: bool, double: bool = False) -> tuple[str, str]:
    """(body, tail) of LASTZ print_text_align_align; tail goes to stdout (a LASTZ quirk)."""
    bo = 0 if one_based else -1
    b1 = v.beg1 + 1
    b2 = v.beg2 + 1
    head = f"score:{score_text(v.score, double)} length:({v.height} {v.width})\n"
    p1 = tinfo.place(b1)
    p2 = qinfo.place(b2)
    disp1 = (p1.length + 1 + bo - b1) if tinfo.rev else (b1 + bo - p1.offset)
    disp2 = (p2.length + 1 + bo - b2) if qinfo.rev else (b2 + bo - p2.offset)
    r1 = np.frombuffer(v.text1.encode("latin-1"), np.uint8)
    r2 = np.frombuffer(v.text2.encode("latin-1"), np.uint8)
    n = r1.shape[0]
    if n == 0:
        return head, ""
    bars = _bars(r1, r2, True)
    step1 = -1 if tinfo.rev else 1
    step2 = -1 if qinfo.rev else 1
    c1 = np.concatenate(([0], np.cumsum(r1 != GAP)))
    c2 = np.concatenate(([0], np.cumsum(r2 != GAP)))
    t1 = v.text1
    t2 = v.text2
    bs = bars.tobytes().decode("latin-1")
    parts = [head]
    for s in range(0, n, _ROW):
        e = min(n, s + _ROW)
        # positions are printed as 32-bit unsigned (a partitioned minus strand can wrap)
        parts.append(f"\n{(disp1 + step1 * int(c1[s])) & _U32:>10} {t1[s:e]}\n"
                     f"{'':>10} {bs[s:e]}\n"
                     f"{(disp2 + step2 * int(c2[s])) & _U32:>10} {t2[s:e]}\n")
    return "".join(parts), "\n"


def text_match_lines(tinfo: SeqInfo, qinfo: SeqInfo, v: AlnView, one_based: bool,
                     double: bool = False) -> str:
    """LASTZ print_text_align_match: a gap-free segment, unwrapped."""
    bo = 0 if one_based else -1
    p1 = tinfo.place(v.beg1)
    p2 = qinfo.place(v.beg2)
    a = v.t[v.beg1:v.end1]
    b = v.q[v.beg2:v.end2]
    bars = _bars(a, b, False).tobytes().decode("latin-1")
    return (f"score:{score_text(v.score, double)} length:{v.width}\n"
            f"{v.beg1 + bo - p1.offset + p1.start_loc:>10}: {v.text1}\n"
            f"{'':>10}  {bars}\n"
            f"{v.beg2 + bo - p2.offset + p2.start_loc:>10}: {v.text2}\n\n")


class TextWriter(Writer):
    """``text`` (1-based) and ``ztext`` (0-based) human-readable alignments."""

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        one_based = self.spec.variant == "text"
        quirk = stdout_for_quirks(self.opts, self.out)
        expand = text_expand(self.opts.extra or {})     # --expand: context bases
        for v in vs:
            if expand:
                v = expand_view(v, expand)
            d = self.opts.double_scores
            if v.is_hsp:
                self.out.write(text_match_lines(self.tinfo, qinfo, v, one_based, d))
            else:
                body, tail = text_align_lines(self.tinfo, qinfo, v, one_based, d)
                self.out.write(body)
                if tail:
                    if quirk is not self.out:
                        self.out.flush()
                    quirk.write(tail)


# --- differences -------------------------------------------------------------------------


class DiffsWriter(Writer):
    """``differences`` (with alignment blocks) and ``differences-`` (without)."""

    strands_apart = True

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        inhibit_n = bool(self.opts.ambiguous_n)
        blocks = self.spec.variant == "blocks"
        out = []
        for v in vs:
            if v.is_hsp:
                self.require_forward_target("print_align_diffs_match")
            p1 = self.tinfo.place(v.beg1)
            p2 = qinfo.place(v.beg2)
            tail = f"\t{v.text1}\t{v.text2}\n" if blocks else "\n"
            a, b = v.pairs
            b1 = BITS[a]
            b2 = BITS[b]
            if inhibit_n:
                match = (b1 < 0) | (b2 < 0) | (b1 == b2)
            else:
                match = b1 == b2
            pos = 0
            for i0, j0, run, gop, glen in v.walk:
                if run:
                    mm = ~match[pos:pos + run]
                    edges = np.flatnonzero(np.diff(np.concatenate(([0], mm.astype(np.int8), [0]))))
                    for s, e in zip(edges[0::2].tolist(), edges[1::2].tolist()):
                        out.append(self._line(p1, p2, qinfo.rev, v.beg1 + i0 + s, e - s,
                                              v.beg2 + j0 + s, e - s, v.t, v.q, tail))
                    pos += run
                i = i0 + run
                j = j0 + run
                if gop == OP_DEL:
                    out.append(self._line(p1, p2, qinfo.rev, v.beg1 + i, glen, v.beg2 + j, 0,
                                          v.t, None, tail, glen))
                elif gop == OP_INS:
                    out.append(self._line(p1, p2, qinfo.rev, v.beg1 + i, 0, v.beg2 + j, glen,
                                          None, v.q, tail, glen))
        self.out.write("".join(out))

    def _line(self, p1, p2, rev2, pos1, len1, pos2, len2, t, q, tail, n=None) -> str:
        n = len1 if n is None else n
        s1 = p1.start(pos1, self.tinfo.rev)
        s2 = p2.start(pos2, rev2)
        d1 = PRINTABLE[t[pos1:pos1 + n]].tobytes().decode("latin-1") if t is not None else "-" * n
        d2 = PRINTABLE[q[pos2:pos2 + n]].tobytes().decode("latin-1") if q is not None else "-" * n
        return (f"{p1.name}\t{s1 - 1}\t{s1 - 1 + len1}\t{'-' if self.tinfo.rev else '+'}\t"
                f"{p1.true_len}\t{p2.name}\t{s2 - 1}\t{s2 - 1 + len2}\t{'-' if rev2 else '+'}\t"
                f"{p2.true_len}\t{d1}\t{d2}{tail}")


