"""The row index (kernels/rowindex.py) against LASTZ's list walks (kernels/bounds.py).

Random alignments (diagonal runs joined by insertions and deletions, many sharing a
start or an end row, so the start-list and end-list ties matter) are accepted one by
one through ``gapped.accept``, which links them with the index; a copy of the table is
linked by the walks.  After every acceptance the two tables must be equal (list links,
heads and the neighbour fields), and for random anchors the skip test, the list
positions and the rows-touching query must give the walks' answers.
"""
from __future__ import annotations

import numpy as np
import pytest

from fastz.kernels import bounds, rowindex
from fastz.kernels.bounds import A_END1, A_POS1, NONE
from fastz.kernels.gapped import (
    M_HEAD_E, M_HEAD_S, M_NAL, N_RESULT, R_FIRST, R_NRUNS, R_SCORE, R_START1, R_START2,
    R_STOP1, R_STOP2, accept, new_state,
)


def _random_alignment(rng, target_len, starts):
    """(res, runs) of an alignment: diagonal runs with indels between them."""
    runs = [(0, int(rng.integers(1, 60)))]
    for _ in range(int(rng.integers(0, 6))):
        runs.append((int(rng.integers(1, 3)), int(rng.integers(1, 8))))
        runs.append((0, int(rng.integers(1, 60))))
    rows = sum(n for op, n in runs if op != 1)
    cols = sum(n for op, n in runs if op != 2)
    s1 = int(rng.choice(starts)) if rng.random() < 0.5 else int(rng.integers(0, target_len - rows))
    s1 = min(s1, target_len - rows)
    s2 = int(rng.integers(0, 4000))
    res = np.zeros(N_RESULT, np.int64)
    res[R_START1], res[R_START2] = s1, s2
    res[R_STOP1], res[R_STOP2] = s1 + rows - 1, s2 + cols - 1
    res[R_SCORE] = 1
    res[R_FIRST], res[R_NRUNS] = 0, len(runs)
    return res, np.array(runs, np.int64)


def _walk_touching(al, n, r0, r1, since):
    return sorted(k for k in range(since, n) if not (al[k, A_END1] < r0 or al[k, A_POS1] > r1))


@pytest.mark.parametrize("seed,target_len,count", [(1, 3000, 300), (2, 60_000, 400),
                                                   (3, 400_000, 500)])
def test_index_answers_as_the_list_walks(seed, target_len, count):
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, target_len - 400, 12)       # shared start rows: ties
    al, sg, ops, meta, ix = new_state(count, target_len)
    ref = al.copy()
    ref_heads = [NONE, NONE]
    probes = 0
    for m in range(count):
        res, runs = _random_alignment(rng, target_len, starts)
        al, sg, ops, ix = accept(al, sg, ops, meta, ix, res, runs, m == 0)
        # the same alignment linked by LASTZ's walks (al has room for all: never regrown)
        ref[m] = al[m]
        if m > 0:
            bounds.neighbours(ref, sg, ref_heads[0], m)
        ref_heads = list(bounds.insert(ref, ref_heads[0], ref_heads[1], m))
        assert [meta[M_HEAD_S], meta[M_HEAD_E]] == ref_heads
        assert np.array_equal(al[:m + 1], ref[:m + 1]), m
        for _ in range(4):
            a1 = int(rng.integers(0, target_len))
            a2 = int(rng.integers(0, 4200))
            got = rowindex.skip_test(al, sg, ix, a1, a2)
            want = bounds.skip_test(al, sg, meta[M_HEAD_S], a1, a2)
            assert tuple(got) == tuple(want), (m, a1, a2)
            assert (rowindex.above_below(al, meta[M_HEAD_S], meta[M_HEAD_E], ix, a1)
                    == bounds.above_below(al, meta[M_HEAD_S], meta[M_HEAD_E], a1))
            r0 = a1 - int(rng.integers(0, 3000))
            since = int(rng.integers(0, m + 1))
            out, n = rowindex.touching(al, ix, r0, a1, since, np.empty(1, np.int64))
            assert sorted(out[:n].tolist()) == _walk_touching(al, meta[M_NAL], r0, a1, since)
            probes += 1
        # anchors on an alignment's own cells are skipped by both
        a1 = int(res[R_START1])
        a2 = int(res[R_START2])
        assert rowindex.skip_test(al, sg, ix, a1, a2)[0]
        assert bounds.skip_test(al, sg, meta[M_HEAD_S], a1, a2)[0]
    assert probes == 4 * count
    # the ties were there to be broken
    pos = al[:count, A_POS1]
    assert len(np.unique(pos)) < count - 50


def test_edges_of_the_target():
    """Anchors on the first and last rows, alignments touching both ends."""
    target_len = 5000
    rng = np.random.default_rng(7)
    al, sg, ops, meta, ix = new_state(50, target_len)
    for m in range(50):
        res, runs = _random_alignment(rng, target_len, np.array([0, target_len - 130]))
        al, sg, ops, ix = accept(al, sg, ops, meta, ix, res, runs, False)
    for a1 in (0, 1, target_len - 1, target_len):
        for a2 in (0, 100, 2000):
            assert (tuple(rowindex.skip_test(al, sg, ix, a1, a2))
                    == tuple(bounds.skip_test(al, sg, meta[M_HEAD_S], a1, a2)))
        assert (rowindex.above_below(al, meta[M_HEAD_S], meta[M_HEAD_E], ix, a1)
                == bounds.above_below(al, meta[M_HEAD_S], meta[M_HEAD_E], a1))


def test_the_index_is_sized_by_the_anchors():
    """A strand with few anchors gets few blocks, however long the target: a run of
    many small queries against a genome does not allocate genome-sized tables."""
    info, blk, bits, reg = new_state(10, 3_000_000_000)[4]
    assert blk.shape[0] <= 64 and bits.shape[0] <= 8
    info, blk, _bits, _reg = new_state(1_000_000, 17_718_866)[4]
    assert blk.shape[0] == (17_718_867 >> 10) + 1            # 1 kb blocks
