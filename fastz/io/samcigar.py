"""SAM (``sam``, ``sam-``, ``softsam``, ``softsam-``) and Exonerate CIGAR output.

Mirrors LASTZ ``sam.c`` (``print_sam_job_header``, ``print_sam_header``,
``print_sam_align``, ``print_sam_match``, ``print_query_bases``, ``print_query_quals``)
and ``cigar.c`` (``print_cigar_align``, ``print_cigar_match`` with ``withInfo``).
"""
from __future__ import annotations

import numpy as np

from ..records import OP_DEL, OP_INS
from ..scoring import score_text
from .alignview import LOWER, UPPER, AlnView, AlnViews, Place, SeqInfo
from .formats import Writer


class SamWriter(Writer):
    """SAM with hard (H) or soft (S, clipped bases in lower case) clipping."""

    # (the @SQ lines come once, before the first alignment: the parent's, before_text)
    strands_apart = True

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.sq_printed = False
        self.read_group = getattr(self.opts, "readgroup", None)
        self.rg_tags = rg_id_tag(self.read_group) if self.read_group else None

    def job_header(self) -> None:
        if not self.spec.header:
            return
        self.out.write("@HD\tVN:1.0\tSO:unsorted\n")
        if self.read_group is not None:
            self.out.write(f"@RG\t{self.read_group}\n")

    def strand_header(self, qinfo: SeqInfo | None) -> None:
        if not self.spec.header or self.sq_printed or self.rendering:
            return
        self.out.write("".join(f"@SQ\tSN:{p.name}\tLN:{p.true_len}\n"
                               for p in self.tinfo.all_places()))
        self.sq_printed = True

    def before_text(self, result) -> None:
        self.strand_header(None)

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        self.require_forward_target("print_sam_match" if vs.is_hsp else "print_sam_align")
        soft = self.spec.variant == "soft"
        clip = "S" if soft else "H"
        out = []
        for v in vs:
            p1 = self.tinfo.place(v.beg1)
            p2 = qinfo.place(v.beg2)
            start1 = p1.start(v.beg1, False)
            len2 = v.width
            if not qinfo.rev:
                start2 = v.beg2 - p2.offset + p2.start_loc
                end2 = start2 - 1 + len2
                flag = 0
            else:
                base = p2.start_loc + p2.offset + (p2.length - (v.beg2 + 1))
                start2 = base - (len2 - 1)
                end2 = base
                flag = 16
            pre = start2 - 1 if start2 > 1 else 0
            post = p2.true_len - end2 if end2 < p2.true_len else 0
            if qinfo.rev:
                pre, post = post, pre
            cigar = f"{len2}M" if v.is_hsp else v.cigar_mid()
            if pre:
                cigar = f"{pre}{clip}{cigar}"
            if post:
                cigar = f"{cigar}{post}{clip}"
            seq = _query_text(v.q, v, p2, soft, _UPPER_BYTES, _LOWER_BYTES, b"n")
            quals = "*" if qinfo.seq.quals is None else \
                _query_text(qinfo.seq.quals, v, p2, soft, None, None, b"!")
            line = f"{p2.name}\t{flag}\t{p1.name}\t{start1}\t255\t{cigar}\t*\t0\t0\t{seq}\t{quals}"
            if self.rg_tags:
                line += f"\t{self.rg_tags}"
            out.append(line + "\n")
        self.out.write("".join(out))


def rg_id_tag(read_group: str) -> str | None:
    """The ``ID:...`` tag of a tab-separated read group (LASTZ sam_rg_tags), or None."""
    pos = 0
    while True:
        k = read_group.find("ID", pos)
        if k < 0:
            return None
        if read_group[k + 2:k + 3] == ":" and (k == 0 or read_group[k - 1] == "\t"):
            end = read_group.find("\t", k)
            tag = read_group[k:] if end < 0 else read_group[k:end]
            return tag if len(tag) > 3 else None
        pos = k + 1


def _query_text(buf: np.ndarray, v: AlnView, p2: Place, soft: bool, mid, flank,
                fill: bytes) -> str:
    """LASTZ print_query_bases (``buf`` the query strand buffer, ``mid``/``flank``
    UPPER/LOWER as translation tables) and print_query_quals (``buf`` its qualities,
    as they are): the aligned part of ``buf`` through the table ``mid``, and with
    soft clipping the rest of the record on either side through ``flank``."""
    pos2, length = v.beg2, v.width
    start2 = pos2 - p2.offset + p2.start_loc
    end2 = start2 - 1 + length
    # the clipped part of the whole record; where a query subrange did not load it
    # LASTZ reads memory outside its buffer (whatever bytes are there), fastz writes
    # ``fill`` ("n", or the quality "!"), so SEQ and QUAL stay as long as the CIGAR says
    parts = []
    if soft and start2 > 1:
        lo = max(0, pos2 - (start2 - 1))
        parts.append(fill * (start2 - 1 - (pos2 - lo)) + _through(flank, buf[lo:pos2]))
    parts.append(_through(mid, buf[pos2:pos2 + length]))
    if soft and end2 < p2.true_len:
        hi = min(buf.shape[0], pos2 + p2.true_len - (start2 - 1))
        parts.append(_through(flank, buf[pos2 + length:hi])
                     + fill * (p2.true_len - end2 - (hi - pos2 - length)))
    return b"".join(parts).decode("latin-1")


#: UPPER and LOWER as ``bytes.translate`` tables (for a read, four times as fast as
#: indexing the numpy tables)
_UPPER_BYTES = UPPER.tobytes()
_LOWER_BYTES = LOWER.tobytes()


def _through(table: bytes | None, values: np.ndarray) -> bytes:
    return values.tobytes() if table is None else values.tobytes().translate(table)


class CigarWriter(Writer):
    """``--format=cigar``: Exonerate-style ``cigar:`` lines."""

    strands_apart = True

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        out = []
        for v in vs:
            p1 = self.tinfo.place(v.beg1)
            p2 = qinfo.place(v.beg2)
            s1, e1, st1 = _cigar_span(p1, v.beg1, v.height, self.tinfo.rev)
            s2, e2, st2 = _cigar_span(p2, v.beg2, v.width, qinfo.rev)
            head = (f"cigar: {p2.name} {s2} {e2} {st2} {p1.name} {s1} {e1} {st1} "
                    f"{score_text(v.score, self.opts.double_scores)}")
            if v.is_hsp:
                body = f" M {v.width}"
            else:
                body = []
                for _i0, _j0, run, gop, glen in v.walk:
                    if run > 0:
                        body.append(f" M {run}")
                    if gop == OP_DEL:
                        body.append(f" D {glen}")
                    elif gop == OP_INS:
                        body.append(f" I {glen}")
                body = "".join(body)
            out.append(head + body + "\n")
        self.out.write("".join(out))


def _cigar_span(p: Place, pos0: int, n: int, rev: bool) -> tuple[int, int, str]:
    """(start, end, strand) as print_cigar_align prints them (0-based, plus-strand ends)."""
    if not rev:
        start = pos0 - 1 - p.offset + p.start_loc
        return start, start + n, "+"
    start = p.start_loc + p.length + p.offset - (pos0 + 1)
    return start, start - n, "-"
