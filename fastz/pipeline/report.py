"""What a run tells the user on stderr: --stats (per-stage counts and times), LASTZ's
--progress lines, and fastz's own one-line display on a terminal."""
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

    def skip(self, strands: int, bases: int) -> None:
        """Count strands that reported nothing and were never ``update``d (reads)."""
        self.strands += strands
        self.bases += bases

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 150 + "\r")
            sys.stderr.flush()


class QueryProgress:
    """LASTZ's ``--progress[=N][+masking]``: as every N-th query is loaded (empty ones
    too), "(time) processing query K: name" on stderr, the time being that since the
    previous report (LASTZ's CPU clock; here wall time, which also covers the worker
    processes).  With +masking, the target's masked bases so far are added."""

    def __init__(self, every: int, masking: bool, prefix: bool, target, start: float):
        import time
        self._clock = time.perf_counter
        self.last = start             # a time.perf_counter() reading
        self.every = every
        self.masking = masking
        self.prefix = "==================== " if prefix else ""
        self.target = target
        self.count = 0                # queries (chores with --chores) loaded
        self.queries = 0              # with --chores: queries loaded

    def __call__(self, query) -> None:
        self.count += 1
        if not self._due():
            return
        line = f"{self._stamp()}processing query {self.count:,}"
        name = query.name if query.name else query.header
        if name:
            line += f": {name}"
        if self.masking and self.target is not None:
            line += _masked_text(self.target)
        sys.stderr.write(line + "\n")

    def chore(self, query, chore, number: int) -> None:
        """With --chores LASTZ reports every N-th chore instead: "processing chore K
        (query Q.C): name", then the chore as its line gives it."""
        self.count += 1
        self.queries += number == 1
        if not self._due():
            return
        line = (f"{self._stamp()}processing chore {self.count:,} "
                f"(query {self.queries}.{number})")
        name = query.name if query.name else query.header
        if name:
            line += f": {name}"
        for seq_name, rng in ((chore.target or "", chore.t_range),
                              (chore.query, chore.q_range)):
            line += f" {seq_name} " + ("* *" if rng is None else f"{rng[0]} {rng[1]}")
        if chore.strand:
            line += f" {chore.strand}"
        if chore.tag:
            line += f" id={chore.tag}"
        sys.stderr.write(line + "\n")

    def _due(self) -> bool:
        n, every = self.count, abs(self.every)
        # (C's n % -1 is 0: --progress=-1 never reports)
        return self.every == 1 or (every > 1 and n % every == 1)

    def _stamp(self) -> str:
        now = self._clock()
        secs, self.last = now - self.last, now
        return f"{self.prefix}({_clock_text(secs)}) "


def _clock_text(secs: float) -> str:
    """LASTZ's report_progress time: 1.234s, 2m03.456s or 1h02m03.456s."""
    if secs < 60:
        return f"{secs:.3f}s"
    mins = int(secs // 60)
    secs -= 60 * mins
    if mins < 60:
        return f"{mins}m{secs:06.3f}s"
    return f"{mins // 60}h{mins % 60:02d}m{secs:06.3f}s"


def _masked_text(target) -> str:
    """", masked M/L (P%)": the target's lowercase (masked) bases, separators excluded."""
    import numpy as np
    chars = target.chars
    masked = int(np.count_nonzero((chars >= ord("a")) & (chars <= ord("z"))))
    length = (int(target.partitions.length.sum()) if target.partitions is not None
              else len(target))
    return f", masked {masked:,}/{length:,} ({100.0 * masked / length:.1f}%)"
