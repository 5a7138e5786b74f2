"""Dot plots of alignments: read LASTZ's ``--format=rdotplot`` text, draw a PNG.

The rdotplot format (LASTZ ``genpaf``'s ``namehdr`` variant, written by ``fastz`` and
``lastz`` alike) is a header line ``name1<TAB>name2[<TAB>score]`` before each query's
segments, then per gap-free segment a start line ``pos1<TAB>pos2``, an end line and an
``NA<TAB>NA`` separator (coordinates 1-based on each sequence's printed strand, so minus
strand segments run downwards).  ``fastz dotplot`` draws one line per segment; matplotlib
is imported only when a plot is drawn (``pip install fastz-align[plot]``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError


@dataclass
class DotplotData:
    """Segments of an rdotplot file, grouped by their (target, query) header."""

    names: list[tuple[str, str]] = field(default_factory=list)   # one per header line
    segments: list[np.ndarray] = field(default_factory=list)      # float64[n, 4]: x0 y0 x1 y1


def read_rdotplot(path: str | Path) -> DotplotData:
    """Parse an rdotplot file (with or without the score column)."""
    data = DotplotData()
    rows: list[list[float]] = []
    pending: list[float] | None = None

    def close_group():
        if data.names:
            data.segments.append(np.array(rows, np.float64).reshape(-1, 4))

    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise InputError(f"can't read {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        f = line.split("\t")
        if not line.strip() or line.startswith("#"):
            continue
        if f[0] == "NA":
            pending = None
            continue
        try:
            x, y = float(f[0]), float(f[1])
        except (ValueError, IndexError):
            if len(f) < 2:
                raise InputError(f"{path}: line {number} is not rdotplot text") from None
            close_group()
            rows = []
            pending = None
            data.names.append((f[0], f[1]))
            continue
        if not data.names:
            data.names.append(("target", "query"))
        if pending is None:
            pending = [x, y]
        else:
            rows.append(pending + [x, y])
            pending = None
    close_group()
    if not data.names:
        raise InputError(f"{path} holds no alignments")
    return data


def draw_dotplot(data: DotplotData, out: str | Path, title: str | None = None,
                 size: float = 8.0, dpi: int = 100) -> int:
    """Draw the segments into a PNG (or any format matplotlib knows by the suffix).

    Returns the number of segments drawn.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
    except ImportError:
        raise InputError("fastz dotplot needs matplotlib (pip install 'fastz-align[plot]')") \
            from None
    fig, ax = plt.subplots(figsize=(size, size), dpi=dpi)
    queries = sorted({q for _, q in data.names})
    many = len(queries) > 1
    cmap = plt.get_cmap("tab10")
    count = 0
    lo = np.array([np.inf, np.inf])
    hi = np.array([-np.inf, -np.inf])
    labelled: set[str] = set()
    for (_t, q), seg in zip(data.names, data.segments):
        if seg.shape[0] == 0:
            continue
        color = cmap(queries.index(q) % 10) if many else "black"
        label = q if many and q not in labelled else None
        labelled.add(q)
        ax.add_collection(LineCollection(seg.reshape(-1, 2, 2), colors=[color], linewidths=1.0,
                                         label=label))
        pts = seg.reshape(-1, 2)
        lo = np.minimum(lo, pts.min(axis=0))
        hi = np.maximum(hi, pts.max(axis=0))
        count += seg.shape[0]
    if count:
        pad = np.maximum((hi - lo) * 0.02, 1.0)
        ax.set_xlim(lo[0] - pad[0], hi[0] + pad[0])
        ax.set_ylim(lo[1] - pad[1], hi[1] + pad[1])
    targets = sorted({t for t, _ in data.names})
    ax.set_xlabel(", ".join(targets) if len(targets) <= 3 else "target")
    ax.set_ylabel(queries[0] if not many else "query")
    if many and len(queries) <= 10:
        ax.legend(loc="best", fontsize="small")
    ax.set_title(title if title is not None else f"{count} gap-free segments")
    ax.grid(True, linewidth=0.3, alpha=0.5)
    fig.tight_layout()
    fig.savefig(str(out))
    plt.close(fig)
    return count
