"""LASTZ's debugging formats for gap-free matches: ``--format=comp`` and ``deseed``.

Both print only gap-free segments (``--nogapped`` HSPs, seed hits), one per segment,
and nothing for gapped alignments, as LASTZ's ``print_match`` does (``output.c``):

* ``comp`` (``print_match_composition``): the percent identity, the score, both
  starts as 1-based positions in the loaded sequences (``635+/59+``: no partition or
  subrange offsets), the length, the seed's discovery probability (the share of the
  ``--step`` phases in which some seed word of the segment hits, ``.857`` or
  ``1.00``) and the 4x4 counts of upper-case A/C/G/T pairs;
* ``deseed`` (``dump_match``): the two sequences' bytes, one line each, then an empty
  line that LASTZ prints with ``printf``: to stdout even with ``--output=FILE``.
"""
from __future__ import annotations

import numpy as np

from ..errors import OptionsError
from ..scoring import score_plain
from .alignview import BITS, AlnViews, SeqInfo
from .formats import Writer, stdout_for_quirks

#: upper-case A/C/G/T -> 0..3, everything else -> -1 (LASTZ's upper_nuc_to_bits)
UPPER_BITS = np.full(256, -1, np.int8)
UPPER_BITS[np.frombuffer(b"ACGT", np.uint8)] = np.arange(4)


def _bytes_text(chars: np.ndarray) -> str:
    """Sequence bytes as LASTZ's print_prefix writes them (up to a NUL)."""
    raw = chars.tobytes().split(b"\0", 1)[0]
    return raw.decode("ascii", "surrogateescape")


def composition(t: np.ndarray, q: np.ndarray) -> np.ndarray:
    """LASTZ's match_composition: counts[4 * r + c] of upper-case base r over c."""
    r = UPPER_BITS[t].astype(np.int64)
    c = UPPER_BITS[q].astype(np.int64)
    ok = (r >= 0) & (c >= 0)
    return np.bincount(4 * r[ok] + c[ok], minlength=16)


def probability_text(found: int, step: int) -> str:
    """The discovery probability as LASTZ prints it: a float's ``%.3f``, ``1.00`` for
    one and ``.XXX`` below it."""
    p = min(max(float(np.float32(found) / np.float32(step)), 0.0), 1.0)
    text = "%.3f" % p
    return text[:4] if text[0] == "1" else text[1:5]


class CompWriter(Writer):
    """--format=comp (module docstring)."""

    strands_apart = True

    def __init__(self, *args) -> None:
        super().__init__(*args)
        from ..pipeline.seeding import parse_seed
        self.seed = parse_seed(self.opts.seed, int(self.opts.word))
        if not (self.seed.care_bits == 2).any():
            # (its hit seed has no transition flips, which LASTZ reads through a NULL)
            raise OptionsError("--format=comp with a seed that has no 1 positions is not "
                               "supported (lastz crashes on it)")
        self.step = int(self.opts.step)
        self.folded = np.zeros(self.step, np.uint8)

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        if not vs.is_hsp:
            return
        from ..kernels.alnstats import seed_discoveries
        strands = ("-" if self.tinfo.rev else "+", "-" if qinfo.rev else "+")
        double = self.opts.double_scores
        seed, trans = self.seed, int(self.opts.transition)
        out = []
        for v in vs.with_identity():
            n = v.end1 - v.beg1
            found = seed_discoveries(v.t, v.q, v.beg1, v.beg2, n, seed.length, seed.care_off,
                                     seed.care_bits, trans, self.step, BITS, self.folded)
            counts = composition(v.t[v.beg1:v.end1], v.q[v.beg2:v.end2])
            out.append(f"{v.percent_identical()} {score_plain(v.score, double)} "
                       f"{v.beg1 + 1}{strands[0]}/{v.beg2 + 1}{strands[1]} {n} "
                       f"{probability_text(found, self.step)} "
                       + " ".join(map(str, counts.tolist())) + "\n")
        self.out.write("".join(out))


class DeseedWriter(Writer):
    """--format=deseed (module docstring)."""

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        if not vs.is_hsp:
            return
        blank = stdout_for_quirks(self.opts, self.out)
        for v in vs:
            self.out.write(f"{_bytes_text(v.t[v.beg1:v.end1])}\n"
                           f"{_bytes_text(v.q[v.beg2:v.end2])}\n")
            blank.write("\n")
