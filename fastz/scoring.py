"""Scoring sets: LASTZ keeps two 256x256 substitution tables indexed by ASCII byte.

``sub``    (LASTZ's "scoring"): gapped DP, anchor peaks, alignment scores.  Case is ignored.
``masked`` (LASTZ's "maskedScoring"): gap-free x-drop extension.  Lower-case a/c/g/t,
           N/n and X/x score ``bad`` there, so an HSP stops at soft-masked sequence.

SKELETON: build_scoreset() for HOXD70 is complete; scores files, --match and
--ambiguous are filled in by the options work.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HOXD70 = np.array([
    [91, -114, -31, -123],
    [-114, 100, -125, -31],
    [-31, -125, 100, -114],
    [-123, -31, -114, 91],
], dtype=np.int32)

BAD_SCORE = -1000              # X / x against anything
FILL_SCORE = -100              # N, IUPAC, digits ...
VERY_BAD_SCORE = -107_374_182  # NUL (sequence terminator / partition separator)


@dataclass(frozen=True)
class ScoreSet:
    sub: np.ndarray            # int32[256, 256], rows = target byte, columns = query byte
    masked: np.ndarray         # int32[256, 256], for gap-free extension
    gap_open: int
    gap_extend: int
    labels: str = "ACGT"       # row/column labels printed in output headers
    matrix: np.ndarray | None = None   # int32[len(labels), len(labels)] as printed

    @property
    def aa(self) -> int:
        """sub[A][A]-like reference score (first row/column label), used for derived xdrop."""
        c = ord(self.labels[0])
        return int(self.sub[c, c])


def _dna_tables(matrix: np.ndarray, labels: str, bad: int, fill: int) -> tuple[np.ndarray, np.ndarray]:
    """Unmasked and masked 256x256 tables from a DNA matrix over ``labels``."""
    sub = np.full((256, 256), fill, dtype=np.int32)
    up = np.frombuffer(labels.encode(), np.uint8)
    lo = np.frombuffer(labels.lower().encode(), np.uint8)
    for rows in (up, lo):
        for cols in (up, lo):
            sub[np.ix_(rows, cols)] = matrix
    for x in (ord("X"), ord("x")):
        sub[x, :] = bad
        sub[:, x] = bad
    sub[0, :] = VERY_BAD_SCORE
    sub[:, 0] = VERY_BAD_SCORE
    masked = sub.copy()
    for ch in b"acgtnNXx":
        masked[ch, :] = bad
        masked[:, ch] = bad
    masked[0, :] = VERY_BAD_SCORE
    masked[:, 0] = VERY_BAD_SCORE
    return sub, masked


def build_scoreset(gap_open: int = 400, gap_extend: int = 30) -> ScoreSet:
    """HOXD70 with LASTZ's default bad/fill scores."""
    sub, masked = _dna_tables(HOXD70, "ACGT", BAD_SCORE, FILL_SCORE)
    return ScoreSet(sub, masked, gap_open, gap_extend, "ACGT", HOXD70.copy())
