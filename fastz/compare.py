"""``fastz compare A B``: are two alignment files the same, and if not, how do they differ?

Whole files are compared after hiding only the program/version token
(``lastz.v1.04.22`` / ``fastz.v0.1.0``) and, in LAV, the command-line line of the
``d`` stanza (as LASTZ's ``tools/lav_compare.py`` does).  When they differ, the
alignments of each file are compared as multisets, so the report says how many
are missing from B, how many are extra in B, whether the sets are equal but in a
different order, and shows the first few differing alignments.

Formats (auto-detected): lav, axt, maf, general / general- / segments / mapping,
sam, paf, cigar, blastn, differences, text; anything else is compared by lines.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_TOKEN = re.compile(r"(?:lastz|fastz)\.v[0-9][0-9A-Za-z.\-]*")
_AXT_NUMBER = re.compile(r"^\d+ ")
_PER_ALN = ("# identity=", "# coverage=", "# continuity=", "# cigar=")


@dataclass
class Parsed:
    """A file split into alignment records and everything else (the frame)."""

    fmt: str
    records: list[str]              # one normalised text per alignment, in file order
    frame: list[str]                # header/trailer/comment lines, in file order
    text: str                       # the whole normalised file


@dataclass
class CompareResult:
    fmt: str
    identical: bool                 # whole files equal (after normalisation)
    same_set: bool                  # same alignments (multiset), frame included
    same_order: bool                # same alignments in the same order
    n_a: int
    n_b: int
    missing: list[str] = field(default_factory=list)   # in A, not in B (file order of A)
    extra: list[str] = field(default_factory=list)     # in B, not in A (file order of B)
    frame_diff: list[str] = field(default_factory=list)
    first_out_of_order: int | None = None              # 0-based record index

    def summary(self, show: int = 3) -> str:
        if self.identical:
            return "identical"
        out = [f"files differ (format {self.fmt}): A has {self.n_a} alignments, B has {self.n_b}"]
        if self.same_set and not self.same_order:
            out.append(f"  same alignments, different order (first difference at alignment "
                       f"{(self.first_out_of_order or 0) + 1})")
        elif self.same_set:
            out.append("  same alignments in the same order; other lines differ")
        else:
            out.append(f"  {len(self.missing)} missing from B, {len(self.extra)} extra in B")
        for line in self.frame_diff[:show]:
            out.append(f"  other lines: {line}")
        for title, recs in (("missing from B", self.missing), ("extra in B", self.extra)):
            for r in recs[:show]:
                out.append(f"  {title}:\n    " + _excerpt(r).replace("\n", "\n    "))
        return "\n".join(out)


def _excerpt(record: str, max_lines: int = 12, width: int = 160) -> str:
    """A record shortened for display (LAV: the query s line, then the a stanza)."""
    lines = record.split("\n")
    if lines and lines[0] == "s {" and "a {" in lines:
        k = lines.index("a {")
        lines = ["strand " + lines[2].strip()] + lines[k:]
    if len(lines) > max_lines:
        lines = lines[:max_lines] + ["..."]
    return "\n".join(ln if len(ln) <= width else ln[:width] + "..." for ln in lines)


# --- format detection ---------------------------------------------------------------------


def detect_format(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "lines"
    first = lines[0]
    if first.startswith("#:lav"):
        return "lav"
    if first.startswith("##maf") or any(ln.startswith("a score=") for ln in lines[:200]):
        return "maf"
    if first.startswith("@HD") or first.startswith("@SQ"):
        return "sam"
    if first.startswith("cigar:"):
        return "cigar"
    if first.startswith("#name1\tstart1\tend1\tname2\tstart2\tend2\tstrand2\tscore"):
        return "segments"
    if first.startswith("score:") or first.startswith("seed="):
        return "text"
    body = [ln for ln in lines if not ln.startswith("#")]
    if first.startswith("# ") and any(ln.startswith("# hsp_threshold") for ln in lines[:20]):
        return "axt"
    if body and len(body[0].split(" ")) >= 9 and "\t" not in body[0] and _AXT_NUMBER.match(body[0]):
        return "axt"
    if body:
        f = body[0].split("\t")
        if len(f) >= 11 and f[1].isdigit() and f[3].isdigit() and f[4] == "255":
            return "sam"
        if len(f) >= 13 and f[4] in "+-" and any(x.startswith("AS:i:") for x in f[12:]):
            return "paf"
        if len(f) > 1:
            return "general"
    return "lines"


# --- parsing ---------------------------------------------------------------------------------


def normalise(text: str) -> str:
    return _TOKEN.sub("PROGRAM", text)


def parse(text: str, fmt: str | None = None) -> Parsed:
    text = normalise(text)
    fmt = fmt or detect_format(text)
    lines = text.split("\n")
    if fmt == "lav":
        return _parse_lav(lines, text)
    if fmt in ("axt", "maf"):
        return _parse_blocks(lines, text, fmt)
    if fmt == "text":
        return _parse_text(lines, text)
    records, frame = [], []
    for ln in lines:
        if ln == "" or ln.startswith("#") or ln.startswith("@"):
            frame.append(ln)
        else:
            records.append(ln)
    return Parsed(fmt, records, frame, text)


def _parse_lav(lines: list[str], text: str) -> Parsed:
    records, frame = [], []
    s_text = h_text = ""
    i = 0
    n = len(lines)
    masked = []
    while i < n:
        ln = lines[i]
        st = ln.strip()
        if st.endswith("{") and not st.startswith("#"):
            name = st[:-1].strip()
            j = i + 1
            body = []
            while j < n and lines[j].strip() != "}":
                body.append(lines[j])
                j += 1
            if name == "d" and body:
                body = ['  "<command line>'] + body[1:]
            stanza = "\n".join([ln] + body + ["}"])
            if name == "s":
                s_text = stanza
            elif name == "h":
                h_text = stanza
            elif name == "a":
                records.append(f"{s_text}\n{h_text}\n{stanza}")
            else:
                frame.extend([ln] + body + ["}"])
            masked.extend([ln] + body + ["}"])
            i = j + 1
            continue
        if st != "#:lav":
            frame.append(ln)
        masked.append(ln)
        i += 1
    return Parsed("lav", records, frame, "\n".join(masked))


def _parse_blocks(lines: list[str], text: str, fmt: str) -> Parsed:
    """AXT / MAF: blank-line separated blocks; a block with an alignment is a record."""
    records, frame = [], []
    block: list[str] = []

    def flush():
        if not block:
            return
        keep = [ln for ln in block if not ln.startswith("#") or ln.startswith(_PER_ALN)]
        if len(keep) != len(block) and any(not ln.startswith("#") for ln in block):
            frame.extend(ln for ln in block if ln.startswith("#") and not ln.startswith(_PER_ALN))
            block[:] = keep
        is_aln = any((ln.startswith("a ") if fmt == "maf" else not ln.startswith("#"))
                     for ln in block)
        if is_aln:
            if fmt == "axt":
                key = [_AXT_NUMBER.sub("", ln, count=1) if not ln.startswith("#") else ln
                       for ln in block]
                records.append("\n".join(key))
            else:
                records.append("\n".join(block))
        else:
            frame.extend(block)
        block.clear()

    for ln in lines:
        if ln == "":
            flush()
        else:
            block.append(ln)
    flush()
    return Parsed(fmt, records, frame, text)


def _parse_text(lines: list[str], text: str) -> Parsed:
    records, frame = [], []
    cur: list[str] | None = None
    for ln in lines:
        if ln.startswith("score:"):
            if cur is not None:
                records.append("\n".join(cur).strip("\n"))
            cur = [ln]
        elif cur is None:
            frame.append(ln)
        else:
            cur.append(ln)
    if cur is not None:
        records.append("\n".join(cur).strip("\n"))
    return Parsed("text", records, frame, text)


# --- comparison ---------------------------------------------------------------------------------


def compare_texts(a: str, b: str, fmt: str | None = None) -> CompareResult:
    if fmt is None:
        fmt = detect_format(normalise(a))
    pa = parse(a, fmt)
    pb = parse(b, fmt)
    identical = pa.text == pb.text
    ca, cb = Counter(pa.records), Counter(pb.records)
    missing_c = ca - cb
    extra_c = cb - ca
    missing = _in_order(pa.records, missing_c)
    extra = _in_order(pb.records, extra_c)
    frame_diff = _frame_diff(pa.frame, pb.frame)
    same_set = not missing and not extra and not frame_diff
    same_order = pa.records == pb.records
    first = None
    if not same_order:
        first = next((k for k, (x, y) in enumerate(zip(pa.records, pb.records)) if x != y),
                     min(len(pa.records), len(pb.records)))
    return CompareResult(pa.fmt, identical, same_set, same_order and same_set,
                         len(pa.records), len(pb.records), missing, extra, frame_diff, first)


def _in_order(records: list[str], wanted: Counter) -> list[str]:
    left = Counter(wanted)
    out = []
    for r in records:
        if left[r] > 0:
            out.append(r)
            left[r] -= 1
    return out


def _frame_diff(fa: list[str], fb: list[str]) -> list[str]:
    fa = [x for x in fa if x != ""]
    fb = [x for x in fb if x != ""]
    if fa == fb:
        return []
    out = []
    for k in range(max(len(fa), len(fb))):
        x = fa[k] if k < len(fa) else "<none>"
        y = fb[k] if k < len(fb) else "<none>"
        if x != y:
            out.append(f"A: {x!r}  B: {y!r}")
    return out


def compare(path_a: str | Path, path_b: str | Path, fmt: str | None = None) -> CompareResult:
    """Compare two alignment files (see module docstring)."""
    a = Path(path_a).read_bytes().decode("latin-1")
    b = Path(path_b).read_bytes().decode("latin-1")
    return compare_texts(a, b, fmt)


def main(a: str, b: str, fmt: str | None = None) -> int:
    """Print ``identical`` or a summary; return 0 if identical, else 1."""
    res = compare(a, b, fmt)
    print(res.summary())
    return 0 if res.identical else 1


def cli(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="fastz compare",
                                 description="compare two LASTZ/fastz alignment files")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--format", dest="fmt", default=None,
                    help="lav, axt, maf, general, segments, sam, paf, cigar, text or lines "
                         "(default: detect)")
    ns = ap.parse_args(argv)
    return main(ns.a, ns.b, ns.fmt)


if __name__ == "__main__":
    sys.exit(cli())
