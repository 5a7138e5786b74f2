"""Stages 1-2 on the device (fastz.kernels.gpu.seedhits, fastz.pipeline.gpu_seeding):
the kernels under numba's CUDA simulator and their CPU twins must give exactly the rows
and raw-hit counts of the sequential CPU search (kernels.filtering.search_strand),
in its order, for every hit processor they take, across windows and chunks."""
from __future__ import annotations

import numpy as np
import pytest

from seedharness import read_fasta, revcomp
from test_ydrop import make_pair

pytest.importorskip("numba_cuda")

from fastz.pipeline import gpu_seeding                  # noqa: E402
from fastz.pipeline.filtering import find_hsps          # noqa: E402
from fastz.pipeline.seeding import build_index          # noqa: E402
from fastz.scoring import build_scoreset                # noqa: E402

SS = build_scoreset()

# (seed, transitions, gfextend, gapped, word, self strand): the default processor
# with x-drop, --nogfextend (diagonal filter only), --nogfextend --nogapped (every
# hit), two transitions, an overweight seed (resolved bits), --self on both strands
CASES = [
    ("12of19", 1, True, True, 28, None),
    ("12of19", 0, False, True, 28, None),
    ("14of22", 2, False, False, 28, None),
    ("12of19", 2, True, True, 28, None),
    ("14of22", 1, True, True, 24, None),
    ("12of19", 1, True, True, 28, "+"),
    ("12of19", 1, True, True, 28, "-"),
]


def _search(index, t, q, case, backend, stats=None):
    seed, trans, gf, gp, _word, self_strand = case
    return find_hsps(index, t, q, None, trans, SS.masked, 910, 3000, True, gfextend=gf,
                     gapped=gp, self_strand=self_strand, backend=backend, stats=stats)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    for f in a.dtype.names:
        np.testing.assert_array_equal(a[f], b[f], err_msg=f)


def _strands(t, q, case):
    if case[5] is not None:                  # --self: the target against itself
        return [t if case[5] == "+" else revcomp(t)]
    return [q, revcomp(q)]


def _check(t, q, case, backend):
    """Device path == CPU search on every strand; returns the rows found.  The device
    path must really have run, in more than one chunk (state carried across)."""
    index = build_index(t, case[0], 1, word=case[4])
    found = chunks = 0
    for qs in _strands(t, q, case):
        want_stats, got_stats = {}, {}
        want = _search(index, t, qs, case, "cpu", want_stats)
        got = _search(index, t, qs, case, backend, got_stats)
        _same(want, got)
        assert got_stats["raw_hits"] == want_stats["raw_hits"]
        assert "gpu_seed_chunks" not in want_stats
        found += want.shape[0]
        chunks += got_stats["gpu_seed_chunks"]
    assert chunks > len(_strands(t, q, case))
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_twins_equal_cpu_search_on_a_real_pair(case, shared_pairs, monkeypatch):
    """The CPU twins, in small windows and chunks (many chunks per window, state
    carried between them), on a real bacterial pair."""
    monkeypatch.setattr(gpu_seeding, "WINDOW", 50_000)
    monkeypatch.setattr(gpu_seeding, "TWIN_CAP", 20_000)
    p = shared_pairs / "hpylori_26695_vs_J99_Eslice"
    t = read_fasta(p / "target.fa")[0].chars
    q = read_fasta(p / "query.fa")[0].chars
    assert _check(t, q, case, "twin") > 5


def _tiny_pair():
    """A 300 bp target holding a diverged repeat, and a query with two diverged copies
    of parts of it (hits on both strands, on several diagonals, and off the main
    diagonal of the target against itself)."""
    a, a2 = make_pair(5, 150, rate_sub=0.04, rate_indel=0.0)
    b = make_pair(6, 150, rate_sub=0.0, rate_indel=0.0)[0]
    t = np.frombuffer(a + b[:100] + a2[:50], np.uint8).copy()
    q = np.frombuffer(b + a2, np.uint8).copy()
    return t, q


# the simulator runs one Python thread per CUDA thread: a few processors only (the
# twins above take every one on real data, and run the same bodies)
SIM_CASES = [CASES[0], ("12of19", 0, False, False, 28, None), CASES[1], CASES[4], CASES[5]]


@pytest.mark.usefixtures("short_switches")
@pytest.mark.parametrize("case", SIM_CASES, ids=lambda c: "-".join(map(str, c)))
def test_gpu_kernels_under_the_simulator_equal_cpu_search(case, monkeypatch):
    """The cuda kernels themselves (simulator), windows of 128 ends, chunks of 32 hits."""
    monkeypatch.setattr(gpu_seeding, "SIM_WINDOW", 128)
    monkeypatch.setattr(gpu_seeding, "SIM_CAP", 32)
    t, q = _tiny_pair()
    assert _check(t, q, case, "gpu") > 0


def test_chunks_cover_every_end_once_and_respect_the_cap():
    counts = np.array([0, 5, 3, 40, 0, 2, 2, 2, 0, 9], np.int64)
    csum = np.cumsum(counts)
    pieces = list(gpu_seeding._chunks(csum, 8))
    assert [(k0, k1) for k0, k1, _b, _n in pieces] == [(0, 3), (3, 4), (4, 9), (9, 10)]
    assert [n for *_x, n in pieces] == [8, 40, 6, 9]      # an end over the cap: alone
    assert sum(n for *_x, n in pieces) == counts.sum()
