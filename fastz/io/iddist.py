"""``--format=identity``: LASTZ's identity distribution (``identity_dist.c``).

Nothing is printed per alignment; each printed alignment (or gap-free segment) adds
one to the bin of its identity, in thousandths, and its aligned A/C/G/T pairs to the
bin's coverage.  The job footer prints the bins from one before the first non-empty
bin to one after the last (0.999 and 1.000 when there are none), as
``identity\\tcount\\tcoverage``.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .alignview import AlnViews, SeqInfo
from .formats import Writer

BINS = 1000


class IdentityWriter(Writer):
    """--format=identity (module docstring)."""

    def job_header(self) -> None:
        self.counts = np.zeros(BINS + 1, np.int64)
        self.coverage = np.zeros(BINS + 1, np.int64)

    def write_views(self, qinfo: SeqInfo, vs: AlnViews) -> None:
        pairs = np.array([v.identity for v in vs.with_identity()], np.int64).reshape(-1, 2)
        matches, denom = pairs[:, 0], pairs[:, 1]
        if (denom == 0).any():
            # (LASTZ's identity_bin divides by it and dies of the arithmetic fault)
            raise InputError("--format=identity: an alignment has no A, C, G or T pairs "
                             "(lastz divides by zero there)")
        bins = (2 * matches * BINS + denom) // (2 * denom)      # (rounded to nearest)
        np.add.at(self.counts, bins, 1)
        np.add.at(self.coverage, bins, denom)

    def job_footer(self) -> None:
        used = np.flatnonzero(self.counts)
        low, high = (used[0], used[-1]) if used.size else (BINS, BINS)
        low, high = max(low - 1, 0), min(high + 1, BINS)
        self.out.write("".join(f"{b / BINS:.3f}\t{self.counts[b]}\t{self.coverage[b]}\n"
                               for b in range(low, high + 1)))
