"""kernels.alnstats against its column-by-column reference (io.alignview.AlnView)."""
from __future__ import annotations

import numpy as np

from fastz.io.alignview import AlnView
from fastz.records import OP_DEL, OP_INS, OP_MATCH


def _random_view(rng: np.random.Generator) -> AlnView:
    alphabet = np.frombuffer(b"ACGTACGTacgtNnRx", np.uint8)
    t = alphabet[rng.integers(0, alphabet.shape[0], 400)]
    q = alphabet[rng.integers(0, alphabet.shape[0], 400)]
    beg1, beg2 = int(rng.integers(0, 50)), int(rng.integers(0, 50))
    i, j, ops = beg1, beg2, []
    for k in range(int(rng.integers(1, 12))):
        op = OP_MATCH if k % 2 == 0 else int(rng.choice([OP_INS, OP_DEL]))
        n = int(rng.integers(1, 25))
        ops.append((n << 4) | op)
        i += n if op != OP_INS else 0
        j += n if op != OP_DEL else 0
    return AlnView(t, q, beg1, i, beg2, j, 0, np.array(ops, np.uint64), False)


def test_identity_counts_match_the_columns():
    rng = np.random.default_rng(7)
    seen_partial = False
    for _ in range(300):
        v = _random_view(rng)
        assert v.identity == v.identity_by_columns()
        m, d = v.identity
        seen_partial |= 0 < m < d
    assert seen_partial


def test_identity_counts_case_and_ambiguity():
    t = np.frombuffer(b"ACGTNacgt", np.uint8)
    q = np.frombuffer(b"acgaNACGA", np.uint8)
    v = AlnView(t, q, 0, 9, 0, 9, 0, np.array([(9 << 4) | OP_MATCH], np.uint64), True)
    assert v.identity == (6, 8) == v.identity_by_columns()


def test_identity_of_a_whole_table_is_each_alignments():
    """``identity_counts_all`` (the back-end filters' batch) against the columns of
    each alignment of one table."""
    from fastz.io.alignview import BITS
    from fastz.kernels.alnstats import identity_counts_all
    rng = np.random.default_rng(11)
    views = []
    for _ in range(60):
        v = _random_view(rng)
        views.append(AlnView(views[0].t if views else v.t, views[0].q if views else v.q,
                             v.beg1, v.end1, v.beg2, v.end2, 0, v.ops, False))
    starts = np.cumsum([0] + [v.ops.shape[0] for v in views]).astype(np.int64)
    m, d = identity_counts_all(np.concatenate([v.ops for v in views]), starts,
                               np.array([v.beg1 for v in views], np.int64),
                               np.array([v.beg2 for v in views], np.int64),
                               views[0].t, views[0].q, BITS)
    assert list(zip(m.tolist(), d.tolist())) == [v.identity_by_columns() for v in views]
    assert len(set(m.tolist())) > 10


def test_views_of_a_table_and_their_identity():
    """``AlnViews``: iterating (columns as lists) gives the views indexing gives, and
    ``with_identity`` (one kernel call for the table, or the counts that came with it)
    gives each view the identity of its own columns."""
    from fastz.io.alignview import views
    from fastz.records import Alignments
    rng = np.random.default_rng(12)
    first = _random_view(rng)
    vs = [first] + [_random_view(rng) for _ in range(40)]
    starts = np.cumsum([0] + [v.ops.shape[0] for v in vs]).astype(np.int64)
    col = lambda name: np.array([getattr(v, name) for v in vs], np.int64)  # noqa: E731
    alns = Alignments(col("beg1"), col("end1"), col("beg2"), col("end2"),
                      np.arange(len(vs), dtype=np.int64) * 7, starts,
                      np.concatenate([v.ops for v in vs]))
    want = [AlnView(first.t, first.q, v.beg1, v.end1, v.beg2, v.end2, 0, v.ops, False)
            for v in vs]
    expect = [v.identity_by_columns() for v in want]
    assert len(set(expect)) > 10
    table = views(alns, first.t, first.q, False)
    indexed = [table[k] for k in range(len(vs))]
    for got in (list(table), indexed):
        assert [(v.beg1, v.end1, v.beg2, v.end2, v.score) for v in got] == \
            [(v.beg1, v.end1, v.beg2, v.end2, 7 * k) for k, v in enumerate(want)]
        assert all(np.array_equal(a.ops, b.ops) for a, b in zip(got, want))
        assert all(type(v.score) is int and type(v.beg1) is int for v in got)
    assert [v.identity for v in views(alns, first.t, first.q, False).with_identity()] == expect
    # counts that came with the table are taken as they are
    m = np.array([e[0] for e in expect], np.int64)
    d = np.array([e[1] for e in expect], np.int64)
    alns.identity = (m + 1000, d)
    assert [v.identity for v in views(alns, first.t, first.q, False).with_identity()] == \
        [(a + 1000, b) for a, b in expect]
    assert [v.identity for v in views(alns, first.t, first.q, False)] == expect
