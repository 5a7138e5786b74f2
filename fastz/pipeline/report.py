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
