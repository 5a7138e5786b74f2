"""General (tab-separated) output and its canned variants.

``general[:fields]``, ``general-``, ``mapping``, ``segments``, ``blastn``,
``PAF:minimap2``, ``PAF:wfmash`` and ``rdotplot`` all print one line per
alignment from a list of field codes.

Mirrors LASTZ ``genpaf.c``: ``parse_genpaf_keys``, ``print_genpaf_job_header``,
``print_genpaf_align`` (gapped alignments), ``print_genpaf_match`` (HSPs and
segments), ``print_blast_header`` and, from ``output.c``, the rdotplot name
header.  Field codes are LASTZ's one-character ``genpafXXX`` codes.
"""
from __future__ import annotations

import math
import struct
from typing import Callable

import numpy as np

from ..errors import InputError, OptionsError
from ..records import OP_DEL, OP_INS, OP_MATCH
from ..scoring import score_text
from .alignview import BITS, COMPLEMENT, PRINTABLE, AlnView, AlnViews, Place, SeqInfo, coverage
from .formats import Writer

# --- Field names ----------------------------------------------------------------------

#: (user name, code, header text); header None = the name itself
FIELDS: list[tuple[str, str, str | None]] = [
    ("name1", "N", None), ("number1", "O", None), ("strand1", "D", None),
    ("size1", "S", None), ("start1", "B", None), ("zstart1", "Z", None),
    ("end1", "E", None), ("length1", "L", None), ("align1", "A", None),
    ("text1", "T", None), ("qalign1", "F", None), ("name2", "n", None),
    ("number2", "o", None), ("strand2", "d", None), ("size2", "s", None),
    ("start2", "b", None), ("zstart2", "z", None), ("start2+", "<", None),
    ("zstart2+", ">", None), ("end2", "e", None), ("end2+", ",", None),
    ("length2", "l", None), ("align2", "a", None), ("text2", "t", None),
    ("qalign2", "f", None), ("nmatch", "u", None), ("nmismatch", "v", None),
    ("npair", "w", None), ("ncolumn", "W", None), ("ngap", "y", None),
    ("cgap", "x", None), ("diff", "=", None), ("cigar", "&", None),
    ("cigar-", "@", None), ("cigarx", "_", None), ("cigarx-", "^", None),
    ("cigarx1", '"', None), ("cigarx1-", "'", None), ("diagonal", "/", None),
    ("shingle", "\\", None), ("score", "#", None), ("identity", "I", "identity\tidPct"),
    ("idfrac", "k", None), ("id%", "i", None), ("blastid%", "m", None),
    ("coverage", "C", "coverage\tcovPct"), ("covfrac", "7", None), ("cov%", "6", None),
    ("continuity", "c", "continuity\tconPct"), ("confrac", "9", None), ("con%", "8", None),
    ("gaprate", "G", "gaprate\tgapPct"), ("nucs1", "J", None), ("quals1", "K", None),
    ("nucs2", "p", None), ("quals2", "q", None), ("number", "[", None),
    ("znumber", "]", None), ("chore", "*", None), ("hspid", "(", None),
    ("phash", "4", None), ("ahash", "5", None), ("NA", "X", ""), ("~", "~", None),
]
NAME_TO_KEY = {name: key for name, key, _ in FIELDS}
ALIASES = {
    "n1": "N", "s1": "B", "z1": "Z", "e1": "E", "l1": "L", "a1": "A", "t1": "T",
    "n2": "n", "s2": "b", "z2": "z", "s2+": "<", "z2+": ">", "e2": "e", "e2+": ",",
    "l2": "l", "a2": "a", "t2": "t", "d": "/", "diag": "/", "s": "#", "id": "I",
    "ident": "I", "cov": "C", "con": "c", "gap": "G",
}
#: header text per code (codes without a user name are LASTZ's internal ones)
HEADER = {key: (hdr if hdr is not None else name) for name, key, hdr in FIELDS}
HEADER.update({"0": "start1", "1": "end1", "2": "start2", "3": "end2", "Q": "bstart1",
               "R": "bend1", "$": "bitscore", "%": "evalue", "{": "mapqual", "|": "astag",
               "}": "cgtag", ".": "cgtag"})

CR, MARKER, SEPARATOR, TEXTDIFF = "!", "~", ";", "="
DIFF_DEFAULT = ".:x--X"   # match, transition, transversion, insert1, insert2, other

CANNED_KEYS = {
    "general": "#NDSZEndszeIC",
    "mapping": "NZEnd>,IC^",
    "segments": "NBEnbed#",
    "blastn": "nNmWvy<,QR%$",
    "rdotplot": "02!13!XX",
    "rdotplot+score": "02#!13#!XXX",
    "paf:wfmash": "ns>,dNSZEuW{|}",
    "paf:minimap2": "ns>,dNSZEuW{|.",
}


def parse_keys(text: str) -> str:
    """Comma-separated field names -> code string (LASTZ parse_genpaf_keys)."""
    keys = []
    diff_chars = None
    have_diff = False
    for field in text.split(","):
        if field == "":
            key = CR
        else:
            key = NAME_TO_KEY.get(field) or ALIASES.get(field)
            if key is None and field.startswith("diff") and len(field) == 4 + len(DIFF_DEFAULT):
                key = TEXTDIFF
                diff_chars = field[4:]
                if SEPARATOR in diff_chars:
                    raise OptionsError(f"diff field cannot contain {SEPARATOR}")
            if key is None:
                raise OptionsError(f'unrecognized field name (for --format=general): "{field}"')
            if key == TEXTDIFF:
                if have_diff:
                    raise OptionsError("duplicate field name: diff")
                have_diff = True
        keys.append(key)
    s = "".join(keys)
    if diff_chars is not None:
        s += SEPARATOR + TEXTDIFF + diff_chars
    return s


def split_keys(keys: str) -> tuple[str, str]:
    """(field codes, diff characters) from a code string."""
    fields, _, info = keys.partition(SEPARATOR)
    diff = DIFF_DEFAULT
    if info.startswith(TEXTDIFF):
        diff = info[1:1 + len(DIFF_DEFAULT)]
    return fields, diff


def header_line(fields: str) -> str:
    """LASTZ print_genpaf_job_header."""
    out = []
    tab = "#"
    for k in fields:
        if tab in ("#", "\0"):
            out.append("#")
            tab = "\t"
        elif k in (CR, MARKER):
            tab = "\t"
        else:
            out.append("\t")
        if k == CR:
            out.append("\n")
            tab = "#"
        elif k == MARKER:
            out.append("~")
            tab = "\0"
        else:
            out.append(HEADER.get(k, ""))
    out.append("\n")
    return "".join(out)


# --- hashing (unadvertised phash / ahash fields) ------------------------------------------


def hassock_hash(data: bytes) -> int:
    """LASTZ's MurmurHash2 variant (utilities.c hassock_hash), reading the block backwards."""
    m = 0x87C10417
    n = len(data)
    h = (0x5C3FC4D3 ^ n) & 0xFFFFFFFF
    end = n
    while end >= 4:
        k = data[end - 1] | (data[end - 2] << 8) | (data[end - 3] << 16) | (data[end - 4] << 24)
        end -= 4
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    rest = end
    if rest == 3:
        h ^= data[2] << 16
    if rest >= 2:
        h ^= data[1] << 8
    if rest >= 1:
        h ^= data[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


_MAX_REPEAT = (1 << 30) - 1       # LASTZ's longest run in one edit-script word


def _lastz_ops(v: AlnView) -> bytes:
    code = {OP_MATCH: 3, OP_INS: 1, OP_DEL: 2}
    vals = []
    for x in v.ops:
        op, run = code[int(x) & 0xF], int(x) >> 4
        while run > _MAX_REPEAT:                 # (LASTZ splits longer runs)
            vals.append(op | (_MAX_REPEAT << 2))
            run -= _MAX_REPEAT
        vals.append(op | (run << 2))
    return struct.pack(f"<{len(vals)}I", *vals)


# --- The writer ----------------------------------------------------------------------------


class GeneralWriter(Writer):
    """All genpaf-based formats."""

    # (the run's alignment numbers are placeholders there, namehdr's names line is the
    # parent's: Writer.number_text, before_text)
    strands_apart = True

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.fields, self.diff_chars = split_keys(self.spec.keys)
        self.layout, self.line_end = _layout(self.fields)
        self.prev_names = ("", "")
        if "K" in self.fields and self.target.quals is None:
            raise InputError(f"{self.target.filename} has no base-call qualities "
                             "(required for --format=general:quals1)")

    def write(self, result) -> None:
        # (LASTZ checks each query; a text rendered by a worker was checked there)
        if "q" in self.fields and result.text is None and result.query.quals is None:
            raise InputError(f"{result.query.filename} has no base-call qualities "
                             "(required for --format=general:quals2)")
        super().write(result)

    def job_header(self) -> None:
        variant = self.spec.variant
        if variant in ("general", "nohdr", "namehdr"):
            self.number = -1
        if variant == "general":
            self.out.write(header_line(self.fields))

    def strand_header(self, qinfo: SeqInfo) -> None:
        variant = self.spec.variant
        if variant == "blast":
            name = qinfo.whole.name if not qinfo.partitioned else qinfo.seq.name
            name = name or "query"
            self.out.write(
                f"# {self.program} {self.args}\n# Query: {name}\n"
                f"# Database: {self.target.filename}\n"
                "# Fields: query id, subject id, % identity, alignment length, mismatches,"
                " gap opens, q. start, q. end, s. start, s. end, evalue, bit score\n")
        elif variant == "namehdr" and not self.rendering:
            n1 = (self.target.name if not self.tinfo.partitioned else "") or "seq1"
            n2 = (qinfo.seq.name if not qinfo.partitioned else "") or "seq2"
            if (n1, n2) != self.prev_names:
                if self.spec.keys == CANNED_KEYS["rdotplot+score"]:
                    self.out.write(f"{n1}\t{n2}\tscore\n")
                else:
                    self.out.write(f"{n1}\t{n2}\n")
                self.prev_names = (n1, n2)

    @property
    def texts_merge(self) -> bool:
        return self.spec.variant != "namehdr"        # (a names line per strand)

    def before_text(self, result) -> None:
        if self.spec.variant == "namehdr":
            q = result.query
            self.strand_header(SeqInfo(q, (result.strand == "-") != bool(q.revcomp), "seq2"))

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        out = []
        for v in vs:
            if v.is_hsp:
                self.require_forward_target("print_genpaf_match")
            self.number += 1
            out.append(self.line(qinfo, v))
            self.number += self.numbers_between
        self.out.write("".join(out))

    # --- one line ---

    def line(self, qinfo: SeqInfo, v: AlnView) -> str:
        t = self.tinfo
        ctx = _Ctx(self, v, t.place(v.beg1), qinfo.place(v.beg2), t.rev, qinfo.rev, t, qinfo)
        return "".join([before + text(ctx) for before, text in self.layout]) + self.line_end


def _layout(fields: str) -> tuple[tuple[tuple[str, Callable], ...], str]:
    """((text before, the field's ``FIELD_TEXT`` function) per printed field, the
    line's last text): LASTZ's tab rules (print_genpaf_align: none at a line's start
    or after a marker, a CR field a line break, the marker field "~"), worked out once
    per format."""
    items = []
    pending = ""
    tab = "#"
    for k in fields:
        if tab in ("#", "\0") or k in (CR, MARKER):
            tab = "\t"
        else:
            pending += "\t"
        if k == CR:
            pending += "\n"
            tab = "#"
        elif k == MARKER:
            pending += "~"
            tab = "\0"
        else:
            items.append((pending, FIELD_TEXT.get(k, _nothing)))
            pending = ""
    return tuple(items), pending + "\n"


def _ratio(numer: int, denom: int, pct: bool, frac: bool) -> str:
    p = ("%.1f%%" % ((100.0 * numer) / denom)) if denom != 0 else "NA"
    if frac and pct:
        return f"{numer}/{denom}\t{p}"
    if frac:
        return f"{numer}/{denom}"
    return p


class _Ctx:
    """Everything one general line needs, computed on demand."""

    def __init__(self, w: GeneralWriter, v: AlnView, p1: Place, p2: Place, rev1: bool,
                 rev2: bool, t: SeqInfo, qinfo: SeqInfo):
        self.w, self.v, self.p1, self.p2 = w, v, p1, p2
        self.rev1, self.rev2 = rev1, rev2
        self.t, self.qinfo = t, qinfo
        self.start1 = p1.start(v.beg1, rev1)
        self.start2 = p2.start(v.beg2, rev2)
        self.len1 = v.height
        self.len2 = v.width
        self.strand1 = "-" if rev1 else "+"
        self.strand2 = "-" if rev2 else "+"

    # dot-plot coordinates (LASTZ differs between its align and match paths)
    def dot(self, which: int) -> tuple[int, int]:
        v = self.v
        if which == 1:
            p, rev, start, n, pos0 = self.p1, self.rev1, self.start1, self.len1, v.beg1
            part_test = p.partitioned
        else:
            p, rev, start, n, pos0 = self.p2, self.rev2, self.start2, self.len2, v.beg2
            # the align path tests sequence 1's partitioning here (a LASTZ quirk)
            part_test = p.partitioned if v.is_hsp else self.p1.partitioned
        if v.is_hsp:
            if not rev:
                ds = pos0 + 1 if p.partitioned else start
                return ds, ds + n - 1
            ds = (p.invert - pos0) if part_test else (p.start_loc + p.length + p.offset - pos0) - 1
            return ds, ds - n + 1
        b = pos0 + 1
        if not rev:
            ds = b + 1 if p.partitioned else start + 1
            return ds, ds + n - 1
        ds = (p.invert - b) if part_test else (p.start_loc + p.length + p.offset - b) - 1
        return ds, ds - n + 1

    def nucs(self, p: Place, rev: bool, chars) -> str:
        seg = chars[p.offset:p.offset + p.length]
        if rev:
            seg = COMPLEMENT[seg[::-1]]
        return PRINTABLE[seg].tobytes().decode("latin-1")

    def quals(self, p: Place, rev: bool, quals) -> str:
        """quals1/quals2: the whole (sub)sequence's qualities in file order."""
        seg = quals[p.offset:p.offset + p.length]
        return (seg[::-1] if rev else seg).tobytes().decode("latin-1")

    def qalign(self, which: int) -> str:
        """qalign1/qalign2: the aligned bases' qualities, '~' against a gap; '*'
        without qualities.  LASTZ's gap-free path indexes the buffer by the 1-based
        start on the printed strand, not by the buffer position: one base late (past
        the end, the qualities' terminating NUL; a subrange or partition reads
        elsewhere), which fastz repeats, with NULs past the buffer."""
        seq = (self.t if which == 1 else self.qinfo).seq
        if seq.quals is None:
            return "*"
        v = self.v
        if not v.is_hsp:
            return v._text(seq.quals, v.columns[which - 1], ord("~"))
        start, n = (self.start1, self.len1) if which == 1 else (self.start2, self.len2)
        out = np.zeros(n, np.uint8)
        got = seq.quals[start:start + n]
        out[:got.shape[0]] = got
        return out.tobytes().decode("latin-1")

    def diff_text(self) -> str:
        v = self.v
        info = self.w.diff_chars
        tcol, qcol = v.columns
        out = np.empty(tcol.shape[0], np.uint8)
        both = (tcol >= 0) & (qcol >= 0)
        b1 = BITS[v.t[tcol[both]]]
        b2 = BITS[v.q[qcol[both]]]
        codes = np.full(b1.shape[0], ord(info[5]), np.uint8)
        ok = (b1 >= 0) & (b2 >= 0)
        codes[ok] = ord(info[2])
        codes[ok & ((b1 & 1) == (b2 & 1))] = ord(info[1])
        codes[ok & (b1 == b2)] = ord(info[0])
        out[both] = codes
        out[tcol < 0] = ord(info[4])
        out[qcol < 0] = ord(info[3])
        return out.tobytes().decode("latin-1")

    def hash(self, with_script: bool) -> str:
        v = self.v
        f1 = 3 if self.rev1 else 0
        f2 = 3 if self.rev2 else 0
        if v.is_hsp:
            if with_script:
                return "(notimp)"
            vals = (v.beg1, v.beg2, f1, v.end1, v.end2, f2)
        else:
            vals = (v.beg1 + 1, v.beg2 + 1, f1, v.end1, v.end2, f2)
        h = hassock_hash(struct.pack("<6I", *[x & 0xFFFFFFFF for x in vals]))
        if with_script:
            h ^= hassock_hash(_lastz_ops(v))
        return "%08X" % h

    def shingle(self) -> str:
        diag = self.start1 - self.start2
        len1, len2 = self.p1.length, self.p2.length
        se = len1 - diag
        nw = len2 + diag
        if diag < 0:
            diag = -nw if (nw < 0 or nw < len1) else 0
        elif diag > 0:
            diag = se if (se < 0 or se < len2) else 0
        return "NA" if diag == 0 else str(diag)


def _nothing(c) -> str:
    return ""


def _start2_plus(c) -> str:
    if c.strand2 == "-":
        return str(c.p2.true_len + 2 - c.start2 - c.len2)
    return str(c.start2)


def _zstart2_plus(c) -> str:
    if c.strand2 == "-":
        return str(c.p2.true_len + 1 - c.start2 - c.len2)
    return str(c.start2 - 1)


def _end2_plus(c) -> str:
    if c.strand2 == "-":
        return str(c.p2.true_len + 1 - c.start2)
    return str(c.start2 + c.len2 - 1)


def _cigar(c, lower: bool) -> str:
    if c.v.is_hsp:
        return f"{c.len1}{'m' if lower else 'M'}"
    return c.v.cigar_mid(lower=lower)


def _identity(c, pct: bool, frac: bool) -> str:
    m, d = c.v.identity
    return _ratio(m, d, pct, frac)


def _blast_identity(c) -> str:
    v = c.v
    m, d = v.identity
    denom = d if v.is_hsp else v.continuity[1]
    return "%.2f" % ((100.0 * m) / denom) if denom != 0 else "NA"


def _coverage(c, pct: bool, frac: bool) -> str:
    n, d = coverage(c.v, c.p1, c.p2)
    return _ratio(n, d, pct, frac)


def _continuity(c, pct: bool, frac: bool) -> str:
    n, d = (c.len1, c.len1) if c.v.is_hsp else c.v.continuity
    return _ratio(n, d, pct, frac)


def _gaprate(c) -> str:
    if c.v.is_hsp:
        n, d = 0, c.len1
    else:
        n, d = c.v.continuity
        n, d = (d - n, n) if n else (0, 0)
    return _ratio(n, d, True, True)


def _evalue(c) -> str:
    bits = c.v.score * 0.0205
    return "%.2g" % (3.0e9 * math.exp(-bits * math.log(2)))


def _chore(c) -> str:
    chore = c.qinfo.seq.chore            # --chores: the chore's id= tag
    return chore.tag if chore is not None and chore.tag else "NA"


def _score(c) -> str:
    return score_text(c.v.score, c.w.opts.double_scores)


#: the field codes that print an alignment's identity counts (AlnView.identity)
IDENTITY_KEYS = frozenset("Ikimuvw")

#: field code -> its text for one alignment (LASTZ's print_genpaf_align /
#: print_genpaf_match, one case each); a code not here prints nothing
FIELD_TEXT = {
    "X": lambda c: "NA",
    "N": lambda c: c.p1.name,
    "O": lambda c: str(c.p1.contig - 1),
    "D": lambda c: c.strand1,
    "S": lambda c: str(c.p1.true_len),
    "B": lambda c: str(c.start1),
    "Z": lambda c: str(c.start1 - 1),
    "E": lambda c: str(c.start1 + c.len1 - 1),
    "Q": lambda c: str(c.start1 if c.strand1 == c.strand2 else c.start1 + c.len1 - 1),
    "R": lambda c: str(c.start1 + c.len1 - 1 if c.strand1 == c.strand2 else c.start1),
    "L": lambda c: str(c.len1),
    "A": lambda c: c.v.text1,
    "T": lambda c: c.v.text1,
    "F": lambda c: c.qalign(1),
    "f": lambda c: c.qalign(2),
    "n": lambda c: c.p2.name,
    "o": lambda c: str(c.p2.contig - 1),
    "d": lambda c: c.strand2,
    "s": lambda c: str(c.p2.true_len),
    "<": _start2_plus,
    "b": lambda c: str(c.start2),
    ">": _zstart2_plus,
    "z": lambda c: str(c.start2 - 1),
    ",": _end2_plus,
    "e": lambda c: str(c.start2 + c.len2 - 1),
    "l": lambda c: str(c.len2),
    "a": lambda c: c.v.text2,
    "t": lambda c: c.v.text2,
    "0": lambda c: str(c.dot(1)[0]),
    "1": lambda c: str(c.dot(1)[1]),
    "2": lambda c: str(c.dot(2)[0]),
    "3": lambda c: str(c.dot(2)[1]),
    "u": lambda c: str(c.v.identity[0]),
    "v": lambda c: str(c.v.identity[1] - c.v.identity[0]),
    "w": lambda c: str(c.v.identity[1]),
    "W": lambda c: str(c.len1 if c.v.is_hsp else c.v.continuity[1]),
    "y": lambda c: "0" if c.v.is_hsp else str(c.v.ngaps()),
    "x": lambda c: "0" if c.v.is_hsp else str(c.v.continuity[1] - c.v.continuity[0]),
    "=": lambda c: c.diff_text(),
    "&": lambda c: _cigar(c, False),
    "@": lambda c: _cigar(c, True),
    "_": lambda c: c.v.cigar_eqx(hide_singles=True, lower=False),
    "^": lambda c: c.v.cigar_eqx(hide_singles=True, lower=True),
    # (LASTZ tests the cigarx- code here, so cigarx1- prints upper case too)
    '"': lambda c: c.v.cigar_eqx(hide_singles=False),
    "'": lambda c: c.v.cigar_eqx(hide_singles=False),
    "/": lambda c: str(c.start1 - c.start2),
    "\\": lambda c: c.shingle(),
    "#": _score,
    "]": lambda c: c.w.number_text(c.w.number),
    "[": lambda c: c.w.number_text(c.w.number + 1),
    "$": lambda c: "%.1f" % (c.v.score * 0.0205),
    "%": _evalue,
    "I": lambda c: _identity(c, True, True),
    "k": lambda c: _identity(c, False, True),
    "i": lambda c: _identity(c, True, False),
    "m": _blast_identity,
    "C": lambda c: _coverage(c, True, True),
    "7": lambda c: _coverage(c, False, True),
    "6": lambda c: _coverage(c, True, False),
    "c": lambda c: _continuity(c, True, True),
    "9": lambda c: _continuity(c, False, True),
    "8": lambda c: _continuity(c, True, False),
    "G": _gaprate,
    "*": _chore,
    "J": lambda c: c.nucs(c.p1, c.rev1, c.v.t),
    "p": lambda c: c.nucs(c.p2, c.rev2, c.v.q),
    "K": lambda c: c.quals(c.p1, c.rev1, c.t.seq.quals),
    "q": lambda c: c.quals(c.p2, c.rev2, c.qinfo.seq.quals),
    "(": lambda c: "0",
    "4": lambda c: c.hash(False),
    "5": lambda c: c.hash(True),
    "{": lambda c: "255",
    "|": lambda c: "AS:i:" + _score(c),
    "}": lambda c: "cg:Z:" + c.v.cigar_eqx(hide_singles=False),
    ".": lambda c: f"cg:Z:{c.len1}M" if c.v.is_hsp else "cg:Z:" + c.v.cigar_mid(),
}
