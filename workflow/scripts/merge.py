"""Lift, de-duplicate and merge the per-chunk fastz outputs of one genome pair.

Every chunk job aligns a target chunk with a query chunk given as subrange specifiers
(see ``partition.py``), so fastz already prints general, AXT, MAF and PAF coordinates,
sizes and coverage on the original records.  What is left here:

* **ownership** (drops the duplicates that overlaps produce): an alignment found in
  chunk pair (t, q) is kept only if the midpoint of its target interval lies in the
  *core* of t's piece of that record and the midpoint of its query interval (forward
  strand) in the core of q's piece.  Cores tile each record, so an alignment seen in
  several overlapping chunk pairs is kept exactly once; with ``overlap >= length`` the
  owning pair holds the alignment whole (its midpoint is ``overlap / 2`` from a core
  border, which is ``overlap / 2`` from the piece border).
* **order**: LASTZ prints, for each query record in file order, the plus-strand then the
  minus-strand alignments, each sorted by target position (over ``[multiple]`` target
  records: record, then start); alignments that start at the same target position are
  in the order LASTZ accepted them, which follows HSP scores that no output format
  carries.  So the merge sorts by (query record, strand, target record, target start,
  query start, target end, query end): a whole-genome run's alignments in its order,
  except that equal target starts are ordered by query start.  LAV stanzas are grouped
  by (target record, query record, strand).
* **liftover** where fastz prints chunk-relative numbers: LAV ``b``/``e``/``l`` lines are
  relative to the loaded subrange and are shifted back; LAV ``s``/``h`` stanzas and the
  ``d`` stanza's command line are rebuilt as a whole-genome run would print them.  AXT
  blocks are renumbered from 0.
* **suspects**: a kept alignment that ends within ``BORDER_SLACK`` bases of an inner
  chunk border may have been cut there; one that another chunk pair holding its whole
  region did not report identically was computed differently by the two (one of them
  saw a neighbour cut off).  Both are counted and listed in the report: a merge with
  suspects may differ from a whole-genome run (raise the overlap).

``merge`` is pure (text in, text out) so tests can compare a merged result with one
whole-genome run merged through the same code (``Side.whole``).
"""

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))   # (snakemake sets __file__)

from partition import Piece, read_chunks, read_pieces, read_records  # noqa: E402

BORDER_SLACK = 1000
FAMILIES = ("general", "axt", "maf", "lav", "paf")
_ALIASES = {"z1": "zstart1", "s1": "start1", "e1": "end1", "n1": "name1", "n2": "name2",
            "z2": "zstart2", "s2": "start2", "e2": "end2", "z2+": "zstart2+",
            "s2+": "start2+", "e2+": "end2+"}


class MergeError(Exception):
    """A chunk output the merge cannot place (message for the user)."""


def family(fmt: str) -> str:
    """``general:name1,...`` -> general, ``maf+`` -> maf, ``axt+`` -> axt."""
    base = fmt.split(":", 1)[0].rstrip("+-")
    if base not in FAMILIES:
        raise MergeError(f"the workflow merges {', '.join(FAMILIES)}; not {fmt}")
    return base


# --- the two genomes ----------------------------------------------------------------------


@dataclass
class Side:
    """One genome: its records and, per chunk, the piece of each record it holds."""

    path: str                                      # as the user gave it (LAV stanzas)
    records: list[dict]
    pieces: dict[str, dict[int, Piece]]
    by_name: dict[str, int] = field(init=False)

    spans: dict[int, list[tuple[str, Piece]]] = field(init=False)

    def __post_init__(self):
        self.by_name = {r["name"]: r["index"] for r in self.records}
        self.spans = {}
        for chunk, by_rec in self.pieces.items():
            for rec, piece in by_rec.items():
                self.spans.setdefault(rec, []).append((chunk, piece))

    @classmethod
    def from_dir(cls, chunk_dir: str, path: str) -> "Side":
        pieces = {c: {p.record: p for p in ps} for c, ps in read_pieces(chunk_dir).items()}
        return cls(path, read_records(chunk_dir), pieces)

    @classmethod
    def whole(cls, records: list[dict], path: str, chunk: str = "all") -> "Side":
        """Every record whole in one chunk: merging one whole-genome run through this
        only sorts it (and rebuilds LAV), the reference for tests."""
        pieces = {chunk: {r["index"]: Piece(r["index"], 0, r["length"], 0, r["length"])
                          for r in records}}
        return cls(path, records, pieces)

    def record(self, name: str) -> int:
        try:
            return self.by_name[name]
        except KeyError:
            raise MergeError(f"alignment names record {name!r}, which {self.path} lacks") from None

    def length(self, rec: int) -> int:
        return self.records[rec]["length"]


@dataclass
class Aln:
    qrec: int
    strand: int                   # 0 plus, 1 minus (query)
    trec: int
    t_lo: int                     # 0-based half-open on the target record
    t_hi: int
    q_lo: int                     # 0-based half-open on the query record's plus strand
    q_hi: int
    text: str                     # the alignment's lines, as they will be written
    order: tuple = ()
    where: str = ""               # names and coordinates, for the report


# --- per-format parsing -------------------------------------------------------------------


def _q_forward(strand: int, lo: int, hi: int, length: int) -> tuple[int, int]:
    return (lo, hi) if strand == 0 else (length - hi, length - lo)


def _split_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _general_columns(header: str | None, fmt: str) -> dict[str, int]:
    if header is not None:
        names = header.lstrip("#").rstrip("\n").split("\t")
    else:
        from fastz.lastz_words import DEFAULT_FIELDS
        fields = fmt.split(":", 1)[1].split(",") if ":" in fmt else \
            list(DEFAULT_FIELDS["general"])
        names = []
        for f in fields:
            f = _ALIASES.get(f, f)
            names += [f, "idPct"] if f == "identity" else [f, "covPct"] if f == "coverage" \
                else [f]
    return {_ALIASES.get(n, n): k for k, n in enumerate(names)}


def parse_general(text: str, fmt: str, target: Side, query: Side):
    lines = _split_lines(text)
    body = [k for k, ln in enumerate(lines) if not ln.startswith("#")]
    first = body[0] if body else len(lines)
    head, tail = lines[:first], lines[body[-1] + 1:] if body else []
    header = next((ln for ln in head if ln.startswith("#") and "\t" in ln), None)
    col = _general_columns(header, fmt)

    def pick(*names):
        for n in names:
            if n in col:
                return n, col[n]
        raise MergeError(f"--format={fmt} lacks a field the merge needs ({' or '.join(names)}); "
                         "include name1, zstart1|start1, end1, name2, strand2, "
                         "zstart2|start2|zstart2+|start2+, end2|end2+")

    _, n1 = pick("name1")
    s1n, s1 = pick("zstart1", "start1")
    _, e1 = pick("end1")
    _, n2 = pick("name2")
    _, st2 = pick("strand2")
    s2n, s2 = pick("zstart2", "start2", "zstart2+", "start2+")
    e2n, e2 = pick("end2", "end2+")
    alns = []
    for k in body:
        f = lines[k].rstrip("\n").split("\t")
        strand = 0 if f[st2] == "+" else 1
        trec, qrec = target.record(f[n1]), query.record(f[n2])
        t_lo = int(f[s1]) - (0 if s1n == "zstart1" else 1)
        q_lo = int(f[s2]) - (0 if s2n.startswith("z") else 1)
        q_hi = int(f[e2])
        if not s2n.endswith("+"):
            q_lo, q_hi = _q_forward(strand, q_lo, q_hi, query.length(qrec))
        elif e2n == "end2":                       # mixed spellings: end2 is strand-relative
            q_hi = _q_forward(strand, 0, q_hi, query.length(qrec))[1]
        alns.append(Aln(qrec, strand, trec, t_lo, int(f[e1]), q_lo, q_hi, lines[k]))
    return head, alns, tail


def _blocks(lines: list[str], starts) -> tuple[list[str], list[list[str]], list[str]]:
    """Split into head, blocks (a start line up to and including the next blank line)
    and tail (lines after the last block)."""
    head, blocks, k = [], [], 0
    while k < len(lines) and not starts(lines[k]):
        head.append(lines[k])
        k += 1
    tail: list[str] = []
    while k < len(lines):
        if starts(lines[k]):
            block = [lines[k]]
            k += 1
            while k < len(lines) and lines[k].strip() and not starts(lines[k]) \
                    and not lines[k].startswith("#"):
                block.append(lines[k])
                k += 1
            if k < len(lines) and not lines[k].strip():
                block.append(lines[k])
                k += 1
            blocks.append(block)
            tail = []
        else:
            tail.append(lines[k])
            k += 1
    return head, blocks, tail


_AXT_HEAD = re.compile(r"^\d+ ")


def parse_axt(text: str, fmt: str, target: Side, query: Side):
    head, blocks, tail = _blocks(_split_lines(text), lambda ln: bool(_AXT_HEAD.match(ln)))
    alns = []
    for b in blocks:
        f = b[0].split()
        trec, qrec = target.record(f[1]), query.record(f[4])
        strand = 0 if f[7] == "+" else 1
        q_lo, q_hi = _q_forward(strand, int(f[5]) - 1, int(f[6]), query.length(qrec))
        rest = b[0].split(" ", 1)[1]
        alns.append(Aln(qrec, strand, trec, int(f[2]) - 1, int(f[3]), q_lo, q_hi,
                        "\x00 " + rest + "".join(b[1:])))
    return head, alns, tail


def parse_maf(text: str, fmt: str, target: Side, query: Side):
    head, blocks, tail = _blocks(_split_lines(text), lambda ln: ln.startswith("a "))
    alns = []
    for b in blocks:
        srows = [ln.split() for ln in b if ln.startswith("s ")]
        if len(srows) != 2:
            raise MergeError("a MAF block without exactly two s lines")
        t, q = srows
        trec, qrec = target.record(t[1]), query.record(q[1])
        strand = 0 if q[4] == "+" else 1
        q_lo, q_hi = _q_forward(strand, int(q[2]), int(q[2]) + int(q[3]), int(q[5]))
        alns.append(Aln(qrec, strand, trec, int(t[2]), int(t[2]) + int(t[3]), q_lo, q_hi,
                        "".join(b)))
    return head, alns, tail


def parse_paf(text: str, fmt: str, target: Side, query: Side):
    lines = _split_lines(text)
    body = [k for k, ln in enumerate(lines) if ln.strip() and not ln.startswith("#")]
    first = body[0] if body else len(lines)
    head, tail = lines[:first], lines[body[-1] + 1:] if body else []
    alns = []
    for k in body:
        f = lines[k].split("\t", 9)
        qrec, trec = query.record(f[0]), target.record(f[5])
        alns.append(Aln(qrec, 0 if f[4] == "+" else 1, trec, int(f[7]), int(f[8]),
                        int(f[2]), int(f[3]), lines[k]))
    return head, alns, tail


# --- LAV ------------------------------------------------------------------------------------


def _stanzas(lines: list[str]) -> list[tuple[str, list[str]]]:
    """('#:lav' | 'd' | 's' | 'h' | 'a' | 'x' | 'm' | '#:eof' | 'other', lines)."""
    out, k = [], 0
    while k < len(lines):
        ln = lines[k]
        m = re.match(r"^([a-z]) \{\s*$", ln)
        if m:
            j = k
            while j < len(lines) and lines[j].rstrip("\n") != "}":
                j += 1
            out.append((m.group(1), lines[k:j + 1]))
            k = j + 1
        else:
            out.append((ln.rstrip("\n") if ln.startswith("#:") else "other", [ln]))
            k += 1
    return out


def _quoted(line: str) -> str:
    s = line.strip()
    return s[1:-1] if s.startswith('"') and s.endswith('"') else s


def _header_name(header: str) -> str:
    h = header[:-len(" (reverse complement)")] if header.endswith(" (reverse complement)") \
        else header
    return h.lstrip(">").split()[0] if h.lstrip(">").split() else h


def _shift_a(lines: list[str], d1: int, d2: int) -> str:
    out = []
    for ln in lines:
        f = ln.split()
        if f and f[0] in ("b", "e"):
            ln = f"  {f[0]} {int(f[1]) + d1} {int(f[2]) + d2}\n"
        elif f and f[0] == "l":
            ln = (f"  l {int(f[1]) + d1} {int(f[2]) + d2} {int(f[3]) + d1} "
                  f"{int(f[4]) + d2} {f[5]}\n")
        out.append(ln)
    return "".join(out)


def parse_lav(text: str, fmt: str, target: Side, query: Side):
    st = _stanzas(_split_lines(text))
    head: list[str] = []
    tail: list[str] = []
    alns: list[Aln] = []
    cur = None                        # (trec, qrec, strand, d1, d2) of the current s stanza
    in_tail = False                   # from the m stanza on: the job footer
    for kind, lines in st:
        in_tail = in_tail or kind == "m"
        if in_tail:
            tail += lines
        elif kind == "d":
            head += ["#:lav\n"] + lines
        elif kind == "s":
            tl, ql = lines[1], lines[2]
            tq = re.match(r'^\s*"(.*)" (\d+) (\d+) (\d+) (\d+)\s*$', tl)
            qq = re.match(r'^\s*"(.*)" (\d+) (\d+) (\d+) (\d+)\s*$', ql)
            if not (tq and qq):
                raise MergeError("unreadable LAV s stanza")
            cur = [int(tq.group(2)), int(qq.group(2)), int(qq.group(3)), int(qq.group(4))]
        elif kind == "h":
            tname, qname = _header_name(_quoted(lines[1])), _header_name(_quoted(lines[2]))
            ts, qs, qe, rev = cur
            trec, qrec = target.record(tname), query.record(qname)
            strand = 1 if rev else 0
            d2 = qs - 1 if not strand else query.length(qrec) - qe
            cur = (trec, qrec, strand, ts - 1, d2)
        elif kind == "a":
            trec, qrec, strand, d1, d2 = cur
            b = next(ln.split() for ln in lines if ln.split()[:1] == ["b"])
            e = next(ln.split() for ln in lines if ln.split()[:1] == ["e"])
            t_lo, t_hi = int(b[1]) - 1 + d1, int(e[1]) + d1
            q_lo, q_hi = _q_forward(strand, int(b[2]) - 1 + d2, int(e[2]) + d2,
                                    query.length(qrec))
            alns.append(Aln(qrec, strand, trec, t_lo, t_hi, q_lo, q_hi,
                            _shift_a(lines, d1, d2)))
        elif kind == "x":
            raise MergeError("LAV x stanzas (dynamic masking) cannot be merged")
    return head, alns, tail


PARSERS = {"general": parse_general, "axt": parse_axt, "maf": parse_maf, "lav": parse_lav,
           "paf": parse_paf}


# --- ownership and the merge ----------------------------------------------------------------


def _owned(p: Piece, lo: int, hi: int) -> bool:
    return 2 * p.core_start <= lo + hi < 2 * p.core_end


def _near_border(p: Piece, length: int, lo: int, hi: int, slack: int) -> bool:
    return (p.start > 0 and lo - p.start < slack) or (p.end < length and p.end - hi < slack)


@dataclass
class Report:
    """What the merge saw; ``suspects`` are kept alignments that may differ from a
    whole-genome run's (see the module docstring)."""

    pairs: int = 0
    read: int = 0
    kept: int = 0
    suspects: list[tuple["Aln", str]] = field(default_factory=list)   # (alignment, why)

    def text(self) -> str:
        out = [f"chunk pairs: {self.pairs}", f"alignments read: {self.read}",
               f"kept (owned by their chunk pair): {self.kept}",
               f"dropped (duplicates from overlaps): {self.read - self.kept}",
               f"suspects (cut by a chunk border, or not reproduced by another chunk "
               f"pair that holds them): {len(self.suspects)}"]
        if self.suspects:
            out.append("  the merged output may differ from one whole-genome run here; "
                       "raise chunk_overlap (docs/workflow.md, 'Merge rule')")
            out += [f"  {a.where}: {why}" for a, why in self.suspects[:50]]
            if len(self.suspects) > 50:
                out.append(f"  ... and {len(self.suspects) - 50} more")
        return "\n".join(out) + "\n"


def _holders(side: Side, rec: int, lo: int, hi: int) -> list[str]:
    """Chunks whose piece of ``rec`` contains ``[lo, hi)``."""
    return [c for c, p in side.spans[rec] if p.start <= lo and hi <= p.end]


def merge(fmt: str, target: Side, query: Side, outputs: Iterable[tuple[str, str, str]],
          out: TextIO, report: Report | None = None, border_slack: int = BORDER_SLACK
          ) -> Report:
    """Merge chunk outputs ``(target chunk, query chunk, text)`` into ``out``.

    Besides ownership, every alignment read is remembered (by a hash of its lifted
    text) with the chunk pairs that produced it, so each kept alignment can be checked
    against every other chunk pair that holds its whole region: those ran the same
    LASTZ computation there, and a disagreement means some chunk saw a cut neighbour.
    """
    fam = family(fmt)
    parse = PARSERS[fam]
    report = report or Report()
    head = tail = None
    kept: list[Aln] = []
    seen: dict[int, set] = {}
    for pair_ix, (tc, qc, text) in enumerate(outputs):
        h, alns, t = parse(text, fmt, target, query)
        if head is None:
            head, tail = h, t
        report.pairs += 1
        report.read += len(alns)
        tp, qp = target.pieces[tc], query.pieces[qc]
        for k, a in enumerate(alns):
            key = hash((a.trec, a.qrec, a.strand, a.text))
            seen.setdefault(key, set()).add((tc, qc))
            try:
                tpiece, qpiece = tp[a.trec], qp[a.qrec]
            except KeyError:
                raise MergeError(f"chunk pair {tc} x {qc} reports an alignment on a record "
                                 "outside the chunk") from None
            if not (_owned(tpiece, a.t_lo, a.t_hi) and _owned(qpiece, a.q_lo, a.q_hi)):
                continue
            a.order = (pair_ix, k, key, tc, qc)
            a.where = _where(a, target, query)
            if _near_border(tpiece, target.length(a.trec), a.t_lo, a.t_hi, border_slack) or \
                    _near_border(qpiece, query.length(a.qrec), a.q_lo, a.q_hi, border_slack):
                report.suspects.append((a, f"from {tc} x {qc}, ends at a chunk border"))
            kept.append(a)
    for a in kept:
        _, _, key, tc, qc = a.order
        for t2 in _holders(target, a.trec, a.t_lo, a.t_hi):
            for q2 in _holders(query, a.qrec, a.q_lo, a.q_hi):
                if (t2, q2) not in seen[key]:
                    report.suspects.append((a, f"from {tc} x {qc}, not in {t2} x {q2}"))
    report.kept += len(kept)
    head, tail = head or [], tail or []
    if fam == "lav":
        _write_lav(kept, head, tail, target, query, out)
    else:
        kept.sort(key=lambda a: (a.qrec, a.strand, a.trec, a.t_lo, a.q_lo, a.t_hi, a.q_hi,
                                 a.order[:2]))
        out.write("".join(head))
        for n, a in enumerate(kept):
            out.write(f"{n}{a.text[1:]}" if fam == "axt" else a.text)
        out.write("".join(tail))
    return report


def _where(a: Aln, target: Side, query: Side) -> str:
    return (f"{target.records[a.trec]['name']}:{a.t_lo}-{a.t_hi} x "
            f"{query.records[a.qrec]['name']}:{a.q_lo}-{a.q_hi} {'+-'[a.strand]}")


def _lav_d_line(head: list[str], target: Side, query: Side) -> list[str]:
    """The d stanza with the whole-genome command line (program, files, options)."""
    out = list(head)
    for k, ln in enumerate(out):
        if ln.startswith('  "'):
            parts = ln[3:].split(" ", 3)
            if len(parts) == 4:
                out[k] = f'  "{parts[0]} {target.path} {query.path} {parts[3]}'
            break
    return out


def _write_lav(kept: list[Aln], head, tail, target: Side, query: Side, out: TextIO) -> None:
    kept.sort(key=lambda a: (a.trec, a.qrec, a.strand, a.t_lo, a.q_lo, a.t_hi, a.q_hi,
                             a.order[:2]))
    if not head:
        return
    out.write("".join(_lav_d_line(head, target, query)))
    group = None
    for a in kept:
        if (a.trec, a.qrec, a.strand) != group:
            group = (a.trec, a.qrec, a.strand)
            t, q = target.records[a.trec], query.records[a.qrec]
            minus = a.strand == 1
            out.write("#:lav\ns {\n"
                      f'  "{target.path}" 1 {t["length"]} 0 {t["contig"]}\n'
                      f'  "{query.path}{"-" if minus else ""}" 1 {q["length"]} '
                      f'{int(minus)} {q["contig"]}\n'
                      "}\nh {\n"
                      f'   "{t["header"]}"\n'
                      f'   "{q["header"]}{" (reverse complement)" if minus else ""}"\n'
                      "}\n")
        out.write(a.text)
    out.write("".join(tail))


def merge_texts(fmt: str, target: Side, query: Side,
                outputs: Iterable[tuple[str, str, str]]) -> str:
    """``merge`` into a string (the report is dropped)."""
    import io
    buf = io.StringIO()
    merge(fmt, target, query, outputs, buf)
    return buf.getvalue()


def merge_dirs(fmt: str, target_dir: str, query_dir: str, target_path: str, query_path: str,
               align_dir: str, out_path: str) -> Report:
    """The workflow's merge: every ``align_dir/<t>/<q>.out`` in chunk order."""
    target = Side.from_dir(target_dir, target_path)
    query = Side.from_dir(query_dir, query_path)
    tchunks, qchunks = list(read_chunks(target_dir)), list(read_chunks(query_dir))

    def outputs():
        for tc in tchunks:
            for qc in qchunks:
                with open(Path(align_dir) / tc / f"{qc}.out", encoding="utf-8",
                          errors="surrogateescape", newline="") as f:
                    yield tc, qc, f.read()

    with open(out_path, "w", encoding="utf-8", errors="surrogateescape", newline="") as out:
        return merge(fmt, target, query, outputs(), out)


def _snakemake_main(smk) -> None:                       # pragma: no cover (run by snakemake)
    p = smk.params
    with open(smk.log[0], "w") as log:
        try:
            rep = merge_dirs(p.format, smk.input.tdir, smk.input.qdir, p.target, p.query,
                             p.align_dir, smk.output[0])
        except MergeError as exc:
            log.write(f"merge: {exc}\n")
            sys.exit(f"merge: {exc}")
        log.write(rep.text())


if "snakemake" in globals():                            # pragma: no cover
    _snakemake_main(globals()["snakemake"])
