"""--stats: per-stage counts and times, written to stderr or a file."""
from __future__ import annotations

import sys

_ORDER = [
    ("hits", "seed hits"),
    ("hsps", "HSPs"),
    ("anchors", "anchors"),
    ("anchors_skipped", "anchors skipped (on an earlier alignment)"),
    ("extensions", "one-sided gapped extensions"),
    ("eager", "extensions finished by the eager 16x16 traceback"),
    ("cells_inspector", "DP cells, inspector / single pass"),
    ("cells_executor", "DP cells, executor"),
    ("alignments", "gapped alignments accepted"),
    ("truncated", "extensions truncated (--allocate:traceback)"),
    ("time_seeding", "seconds in seeding + gap-free extension"),
    ("time_gapped", "seconds in gapped extension + filters"),
]


def format_stats(stats: dict) -> str:
    lines = ["# fastz statistics"]
    for key, label in _ORDER:
        if key in stats:
            v = stats[key]
            text = f"{v:.3f}" if isinstance(v, float) else f"{v:,}"
            lines.append(f"{label:<52} {text}")
    ext = stats.get("extensions", 0)
    if ext and "eager" in stats and stats.get("cells_executor", 0) + stats["eager"] > 0:
        lines.append(f"{'eager fraction':<52} {100.0 * stats['eager'] / ext:.1f}%")
    for key in sorted(set(stats) - {k for k, _ in _ORDER}):
        lines.append(f"{key:<52} {stats[key]}")
    return "\n".join(lines) + "\n"


def write_stats(stats: dict, dest: str) -> None:
    """dest is "-" (or empty) for stderr, else a file name."""
    text = format_stats(stats)
    if dest in ("", "-", "stderr"):
        sys.stderr.write(text)
    else:
        with open(dest, "w") as f:
            f.write(text)


class Progress:
    """A one-line progress display on stderr for runs longer than a few seconds.

    Shown only when stderr is a terminal and --quiet is not given; it counts query
    strands and bases written, and is erased when the run ends.
    """

    DELAY = 3.0        # seconds before the line first appears
    EVERY = 0.5        # seconds between updates

    def __init__(self, enabled: bool):
        import time
        self._clock = time.monotonic
        self.enabled = enabled and sys.stderr.isatty()
        self.start = self._clock()
        self.last = 0.0
        self.strands = 0
        self.bases = 0
        self.alignments = 0
        self.shown = False

    def update(self, name: str, strand: str, length: int, alignments: int) -> None:
        self.strands += 1
        self.bases += length if strand == "+" else 0
        self.alignments += alignments
        if not self.enabled:
            return
        now = self._clock()
        if now - self.start < self.DELAY or now - self.last < self.EVERY:
            return
        self.last = now
        self.shown = True
        text = (f"fastz: {self.strands} query strands ({self.bases:,} bp), "
                f"{self.alignments:,} alignments, {now - self.start:.0f} s; last {name} {strand}")
        sys.stderr.write("\r" + text[:150].ljust(150))
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 150 + "\r")
            sys.stderr.flush()
