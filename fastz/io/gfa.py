"""GFA-like output (``--format=gfa`` / ``--gfa``, ``--format=gfanoscore``).

Mirrors LASTZ ``gfa.c``: ``print_gfa_job_header`` (``d`` line), ``print_gfa_header``
(``s`` and ``h`` lines, once per query strand with output), ``print_gfa_align`` (an
``A`` line with the alignment's rescored total, then one ``a`` line per gap-free run),
``print_gfa_match`` (HSPs and seed hits) and ``print_gfa_generic`` (``z`` comment lines,
the ``x num_masked=`` line of dynamic masking).  Positions are 1-based offsets into the
sequence buffers as loaded (no subrange offset, minus-strand positions counted on the
reverse complement), as LASTZ prints them.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..scoring import score_plain
from .alignview import BITS, AlnViews, SeqInfo
from .formats import Writer, refuse_partitioned


def _pct_identical(t: np.ndarray, q: np.ndarray, p1: int, p2: int, n: int) -> int:
    """LASTZ percent_identical over a gap-free run (ACGT pairs, case ignored)."""
    if n == 0:
        return 0
    b1 = BITS[t[p1:p1 + n]]
    b2 = BITS[q[p2:p2 + n]]
    ok = (b1 >= 0) & (b2 >= 0)
    d = int(ok.sum())
    if d == 0:
        return 0
    m = int((ok & (b1 == b2)).sum())
    return (200 * m + d) // (2 * d)


class GfaWriter(Writer):
    """``gfa`` (scores) and ``gfanoscore`` (every score printed as 0)."""

    strands_apart = True

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        refuse_partitioned(self.opts, self.target, "--gfa")

    @property
    def scored(self) -> bool:
        return self.spec.variant != "noscore"

    def job_header(self) -> None:
        tname = self.target.filename or "(no name)"
        qname = self.query_filename or "(no name)"
        self.out.write(f"d {self.program} {tname} {qname}\n")

    def generic(self, text: str) -> None:
        self.out.write(f"z {text}\n")

    def x_stanza(self, num_masked: int) -> None:
        self.out.write(f"x num_masked={num_masked}\n")

    def strand_header(self, qinfo: SeqInfo) -> None:
        if qinfo.partitioned:
            raise InputError("gfa format can't handle multi-sequences")
        t, q = self.tinfo.whole, qinfo.whole
        tr, qr = self.tinfo.rev, qinfo.rev
        tfile = self.target.filename or "(no name)"
        qfile = qinfo.seq.filename or "(no name)"
        th = self.target.header if self.target.header is not None else "(no header)"
        qh = qinfo.seq.header if qinfo.seq.header is not None else "(no header)"
        self.out.write(
            f's "{tfile}{"-" if tr else ""}" {t.start_loc} {t.start_loc + t.length - 1} '
            f'{int(tr)} {t.contig} '
            f'"{qfile}{"-" if qr else ""}" {q.start_loc} {q.start_loc + q.length - 1} '
            f'{int(qr)} {q.contig}\n'
            f'h "{th}{" (reverse complement)" if tr else ""}" '
            f'"{qh}{" (reverse complement)" if qr else ""}"\n')

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        s1 = "-" if self.tinfo.rev else "+"
        s2 = "-" if qinfo.rev else "+"
        t, q = self.target.chars, qinfo.seq.chars
        sub = self.scores.sub
        out = []
        d = self.opts.double_scores

        def match_line(p1: int, p2: int, n: int, score: int) -> str:
            return (f"a {p1 + 1}{s1}/{p2 + 1}{s2} {n} {score_plain(score, d)} "
                    f"{_pct_identical(t, q, p1, p2, n)} ; diag {p1 - p2}\n")

        for v in vs:
            if v.is_hsp:
                out.append(match_line(v.beg1, v.beg2, v.height, v.score if self.scored else 0))
                continue
            runs = []
            total = 0
            for i0, j0, run, gop, glen in v.walk:
                p1, p2 = v.beg1 + i0, v.beg2 + j0
                s = int(sub[t[p1:p1 + run], q[p2:p2 + run]].astype(np.int64).sum()) if run else 0
                runs.append((p1, p2, run, s))
                total += s
                if gop >= 0 and glen > 0:
                    total -= self.scores.gap_open + glen * self.scores.gap_extend
            if not self.scored:
                total = 0
            out.append(f"A {v.beg1 + 1}{s1}/{v.beg2 + 1}{s2} {v.height}/{v.width} "
                       f"{score_plain(total, d)}\n")
            for p1, p2, run, s in runs:
                out.append(match_line(p1, p2, run, s if self.scored else 0))
        self.out.write("".join(out))
