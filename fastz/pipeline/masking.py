"""Dynamic masking (``--masking=N`` / ``M=N``) and the target census (``--census``).

Mirrors LASTZ ``masking.c``: ``new_census`` (one counter per target base, 8, 16 or 32
bits wide, saturating), ``census_mask_aligns`` / ``census_mask_segments`` (after a strand
is written, every target base inside one of its alignments is counted, even under a gap;
upper-case bases whose count reached N become ``x``, in the target and so in its reverse),
``report_census_intervals`` (the LAV ``m`` stanza) and ``print_census``; and
``lastz.c`` ``remove_interval_seeds`` (seed words touching a masked base leave the target
index).

Masking carries state from one query strand to the next, so it runs strictly in order:
the pipeline uses one worker.  Removing the seed words that overlap masked bases is the
same as indexing the masked target afresh (a masked ``x`` is never part of a seed word),
which is what ``Census.apply`` does when it masked anything.
"""
from __future__ import annotations

import numpy as np

from ..errors import OptionsError
from ..records import Alignments, Sequence
from .filtering import _strand_length

_KIND_DTYPE = {"B": np.uint8, "W": np.uint16, "L": np.uint32}
_KIND_MAX = {"B": 0xFF, "W": 0xFFFF, "L": 0xFFFFFFFF}
_IS_UPPER = np.zeros(256, np.bool_)
_IS_UPPER[ord("A"):ord("Z") + 1] = True


def census_kind(opts) -> str:
    """The counter width LASTZ picks: from ``--masking`` (smallest that holds N), else
    ``--census16=``/``--census32=`` (as given on the command line), else 8 bits."""
    if opts.masking > 0:
        if opts.masking < 0xFF:
            return "B"
        return "W" if opts.masking < 0xFFFF else "L"
    words = (opts.args or "").split()
    kind = "B"
    for w in words:
        if w.startswith("--census16="):
            kind = "W"
        elif w.startswith("--census32="):
            kind = "L"
    return kind


class Census:
    """How many written alignments covered each target base (LASTZ ``census``)."""

    def __init__(self, target: Sequence, kind: str, thresh: int):
        self.target = target
        self.len = max(_strand_length(target.chars), 1)
        self.kind = kind
        self.thresh = int(thresh)
        self.count = np.zeros(self.len, np.int64)
        self.pending: np.ndarray | None = None

    def update(self, alns: Alignments) -> int:
        """Count a written strand's alignments; returns how many bases it masks.

        The bases are only remembered here; ``apply`` changes the target (after the
        strand has been printed, as LASTZ masks after printing).
        """
        n = len(alns)
        if n == 0:
            return 0
        beg = np.asarray(alns.beg1, np.int64)
        end = np.asarray(alns.end1, np.int64)
        diff = np.zeros(self.len + 1, np.int64)
        np.add.at(diff, beg, 1)
        np.add.at(diff, end, -1)
        cover = np.cumsum(diff[:-1])
        touched = cover > 0
        np.minimum(self.count + cover, _KIND_MAX[self.kind], out=self.count)
        if self.thresh <= 0:
            return 0
        chars = self.target.chars
        hit = touched & (self.count >= self.thresh) & _IS_UPPER[chars[:self.len]]
        where = np.flatnonzero(hit)
        if where.shape[0]:
            self.pending = where if self.pending is None else np.concatenate([self.pending, where])
        return int(where.shape[0])

    def apply(self) -> bool:
        """Mask the remembered bases with ``x``; True if the target changed."""
        if self.pending is None:
            return False
        self.target.chars[self.pending] = ord("x")
        self.pending = None
        return True

    def intervals(self) -> list[tuple[int, int]]:
        """Runs of bases counted at least N times, 1-based inclusive (the m stanza)."""
        ok = self.count >= self.thresh
        if not ok.any():
            return []
        edges = np.flatnonzero(np.diff(np.concatenate(([False], ok, [False])).astype(np.int8)))
        return [(int(b) + 1, int(e)) for b, e in zip(edges[0::2], edges[1::2])]

    def lines(self, named: bool, delimiter: str) -> str:
        """LASTZ print_census: ``pos count`` (or ``name pos count``) per counted base."""
        pos = np.flatnonzero(self.count >= self.thresh)
        cnt = self.count[pos]
        t = self.target
        if not named:
            return "".join(f"{p + 1}{delimiter}{c}\n" for p, c in zip(pos.tolist(), cnt.tolist()))
        if t.partitions is None:
            name = t.name or "seq1"
            return "".join(f"{name}{delimiter}{p + 1}{delimiter}{c}\n"
                           for p, c in zip(pos.tolist(), cnt.tolist()))
        parts = t.partitions
        out = []
        for p, c in zip(pos.tolist(), cnt.tolist()):
            if p == 0 or t.chars[p] == 0:
                continue                                   # separators are not printed
            k = int(parts.locate(p))
            out.append(f"{parts.names[k]}{delimiter}{p + 1 - int(parts.offset[k])}{delimiter}{c}\n")
        return "".join(out)


def census_for(opts, target: Sequence) -> Census | None:
    """The run's census, if ``--masking`` or ``--census`` asks for one."""
    census = (opts.extra or {}).get("census")
    if opts.masking <= 0 and not census:
        return None
    return Census(target, census_kind(opts), opts.masking)


def masked_results(aligner, results):
    """Pass strand results through, counting/masking after each is written.

    Gapped strands with alignments, and every gap-free strand, get
    ``stats['num_masked']`` (LASTZ prints an x stanza for them).  The target is masked
    (and its seed index rebuilt) when the next strand is asked for, i.e. after the
    writer printed this one.
    """
    from .seeding import build_index, keep_positions

    cen = aligner.census
    o = aligner.opts
    limited = None
    if aligner.index is not None and "maxwordcount" in (o.extra or {}):
        limited = np.sort(aligner.index.pos)        # what --maxwordcount left
    for res in results:
        # (the HSP-immediate mode's strands name what LASTZ's census counts: only what
        # finishing the strand found, printed or not, never the immediate alignments;
        # None: the strand is finished later, in a result of its own)
        counted = res.stats.pop("census", res.alignments)
        if counted is not None and (len(counted) or not o.gapped):
            res.stats["num_masked"] = cen.update(counted)
        yield res
        if not cen.apply():
            continue
        aligner.target_pads = None
        if aligner.index is not None:
            aligner.index = build_index(aligner.target.chars, o.seed, o.step, word=o.word,
                                        threads=aligner.cores)
            if limited is not None:
                aligner.index = keep_positions(aligner.index, limited)


def write_census(cen: Census, writer) -> None:
    """End of run: the LAV m stanza's intervals, and ``--census`` (stanza or file)."""
    from ..errors import InputError

    writer.census_intervals = cen.intervals()
    where = (writer.opts.extra or {}).get("census")
    if not where:
        return
    saved, cen.thresh = cen.thresh, 0          # the census lists every base
    try:
        if where is True:
            writer.census_text = cen.lines(False, " ")
        else:
            try:
                with open(where, "w", encoding="utf-8") as fh:
                    fh.write(cen.lines(True, "\t"))
            except OSError as exc:
                raise InputError(f'fopen_or_die failed to open "{where}" for "wt"') from exc
    finally:
        cen.thresh = saved


def _masking_file_words(opts) -> dict[str, tuple[str, bool]]:
    """--outputmasking[+][:dynamic|:soft]=FILE words: kind -> (file, three fields)."""
    out = {}
    for w in (opts.args or "").split():
        if not w.startswith("--outputmasking") or "=" not in w:
            continue
        head, path = w.split("=", 1)
        three = head.startswith("--outputmasking+")
        kind = "soft" if head.endswith(":soft") else "dynamic"
        out[kind] = (path, three)
    return out


def _write_intervals(path: str, seq: Sequence, runs: list[tuple[int, int]], three: bool,
                     markend: bool) -> None:
    """LASTZ print_masking_interval[_3]: 1-based runs on the source record."""
    from ..errors import InputError

    lines = []
    for b, e in runs:
        if seq.partitions is None:
            name, offset = (seq.name or "seq1"), 0
        else:
            k = int(seq.partitions.locate(b - 1))
            name, offset = seq.partitions.names[k], int(seq.partitions.offset[k])
            b, e = b - offset + int(seq.partitions.start[k]), e - offset + int(seq.partitions.start[k])
            lines.append(f"{name} {b} {e}\n")
            continue
        b, e = b + seq.start, e + seq.start
        lines.append(f"{name} {b} {e}\n" if three else f"{b} {e}\n")
    if markend:
        lines.append("# lastz end-of-file\n")
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(lines))
    except OSError as exc:
        raise InputError(f'fopen_or_die failed to open "{path}" for "wt"') from exc


def refuse_partitioned_masking_files(opts, target: Sequence) -> None:
    """LASTZ's start-up refusal of a partitioned target with the interval files that
    cannot name its sequences: --outputmasking[+]= (even the three-field form) and
    --outputmasking:soft= (two fields)."""
    from ..io.formats import multiple_action
    from ..io.specifiers import parse_specifier
    files = _masking_file_words(opts)
    soft_unnamed = "soft" in files and not files["soft"][1]
    if target.partitions is None or not ("dynamic" in files or soft_unnamed):
        return
    what = multiple_action(bool(opts.target)
                           and parse_specifier(opts.target).separator is not None)
    if "dynamic" in files:
        raise OptionsError(f"{what} cannot be used with --outputmasking")
    raise OptionsError(f"{what} cannot be used with --outputmasking:soft; "
                       "consider using --outputmasking+:soft instead")


def finish_masking(aligner, writer) -> None:
    """End of run (LASTZ main after the last query): --outputmasking files, the LAV m
    stanza's intervals and --census (stanza or file)."""
    o = aligner.opts
    files = _masking_file_words(o)
    cen = aligner.census
    target = aligner.target
    if "dynamic" in files and cen is not None:
        path, three = files["dynamic"]
        _write_intervals(path, target, cen.intervals(), three, o.markend)
    if "soft" in files:
        path, three = files["soft"]
        n = _strand_length(target.chars)
        low = np.zeros(n + 2, np.int8)
        chars = target.chars[:n + 1] if target.chars.shape[0] > n else \
            np.concatenate([target.chars[:n], np.zeros(1, np.uint8)])
        low[1:chars.shape[0] + 1] = (chars >= ord("a")) & (chars <= ord("z"))
        edges = np.flatnonzero(np.diff(low))
        runs = [(int(b) + 1, int(e)) for b, e in zip(edges[0::2], edges[1::2])]
        _write_intervals(path, target, runs, three, o.markend)
    if cen is not None:
        write_census(cen, writer)
