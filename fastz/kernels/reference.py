"""Slow, obvious pure-Python versions of the stage 1-2 kernels, used only as test oracles.

They follow the behaviour described in the spec (sections 3-5) directly, without the
packed keys, the bucketed index or numba:

* ``reference_hits``: every (target end, query end) seed hit, by comparing windows
  base by base, in LASTZ's order (query end ascending; exact match, then one
  transition at the rightmost ``1`` first, ...; target end descending);
* ``reference_find_hsps``: the hit processors with a dict as the diagonal hash;
* ``reference_entropy``, ``reference_double_score``, ``reference_peak``,
  ``reference_anchors``;
* ``reference_discoveries``: LASTZ's discovery count of a gap-free segment
  (``--format=comp``).
"""
from __future__ import annotations

import math
from collections import Counter

_PURINE = {ord("A"): 0, ord("G"): 0, ord("C"): 1, ord("T"): 1}
_UPPER = set(b"ACGT")


def _windows(chars, length):
    """Exclusive ends of the windows made only of upper-case ACGT."""
    ends = []
    for e in range(length, len(chars) + 1):
        if all(c in _UPPER for c in chars[e - length:e]):
            ends.append(e)
    return ends


def _parse(pattern, word):
    """(length, ones, ts, resolved): offsets from the window start."""
    ones = [i for i, c in enumerate(pattern) if c == "1"]
    ts = [i for i, c in enumerate(pattern) if c == "T"]
    weight = 2 * len(ones) + len(ts)
    resolved = []
    if 0 < word < weight:
        n_res = weight - word
        resolved = ones[len(ones) - n_res:]
        ones = ones[:len(ones) - n_res]
    return len(pattern), ones, ts, resolved


def _flip_groups(ones, trans):
    """Transition-position sets in LASTZ's try order (positions are window offsets)."""
    order = sorted(ones, reverse=True)              # rightmost '1' first
    groups = [()]
    if trans == 1:
        groups += [(p,) for p in order]
    elif trans >= 2:
        for a, p in enumerate(order):
            groups.append((p,))
            for q in order[a + 1:]:
                groups.append((p, q))
    return groups


def reference_hits(target, query, pattern, trans=1, step=1, word=28):
    """All seed hits ``(e1, e2)`` (exclusive window ends) in LASTZ's order."""
    t = bytes(target)
    q = bytes(query)
    length, ones, ts, resolved = _parse(pattern, word)
    halfweight = not ones and not resolved
    if halfweight:
        trans = 0
    t_ends = [e for e in _windows(t, length) if e % step == 0]
    hits = []
    for e2 in _windows(q, length):
        qs = e2 - length
        found = {}
        for e1 in t_ends:
            ts0 = e1 - length
            ok = True
            diff = []
            for i in ones:
                a, b = t[ts0 + i], q[qs + i]
                if a != b:
                    if _PURINE[a] != _PURINE[b]:
                        ok = False
                        break
                    diff.append(i)
            if not ok:
                continue
            if any(_PURINE[t[ts0 + i]] != _PURINE[q[qs + i]] for i in ts + resolved):
                continue
            n_res = sum(t[ts0 + i] != q[qs + i] for i in resolved)
            if len(diff) + n_res > trans:
                continue
            found.setdefault(tuple(sorted(diff, reverse=True)), []).append(e1)
        for g in _flip_groups(ones, trans):
            for e1 in sorted(found.get(g, ()), reverse=True):
                hits.append((e1, e2))
    return hits


def reference_discoveries(t, q, pos1, pos2, length, pattern, trans=1, step=1, word=28):
    """How many of the ``step`` phases of a gap-free segment hold a seed word that hits
    (LASTZ ``discovery_probability``): the columns walked in order, a non-ACGT byte
    starting the word afresh (one in the target before the query's byte is read); a
    word hits when its '1's and its 'T's agree (a 'T' by purine/pyrimidine), or, with
    transitions allowed, when no '1' holds a transversion and at most ``trans`` hold a
    transition among its last 16 columns (the rest then unchecked, as in LASTZ)."""
    length_, ones, ts, resolved = _parse(pattern, word)
    code = {c: i for i, c in enumerate(b"ACGT")}
    code.update({c + 32: i for c, i in list(code.items())})
    a, b, stop = pos1, pos2, pos1 + length
    wa, wb = [], []
    phases = set()
    while a < stop:
        ca = code.get(t[a])
        a += 1
        if ca is None:
            wa, wb = [], []
            continue
        cb = code.get(q[b])
        b += 1
        if cb is None:
            wa, wb = [], []
            continue
        wa, wb = (wa + [ca])[-length_:], (wb + [cb])[-length_:]
        if len(wa) < length_:
            continue
        same = all(wa[i] == wb[i] for i in ones) and \
            all(wa[i] & 1 == wb[i] & 1 for i in ts + resolved)
        # (the '1's in the last 16 columns: LASTZ holds this test's bits in 32)
        flips = [i for i in ones if wa[i] != wb[i] and length_ - 1 - i < 16]
        transversion = any(wa[i] & 1 != wb[i] & 1 for i in flips)
        if same or (trans and not transversion and len(flips) <= trans):
            phases.add((a - pos1 - length_) % step)
    return len(phases)


def reference_entropy(t, q, pos1, pos2, length):
    """Entropy factor of a segment pair (spec 4.4)."""
    counts = Counter(t[pos1 + k] for k in range(length)
                     if t[pos1 + k] == q[pos2 + k] and t[pos1 + k] in _UPPER)
    if sum(counts.values()) < 20:
        return 1.0
    h = 0.0
    for ch in b"ACGT":
        c = counts.get(ch, 0)
        if c:
            p = c / length
            h += p * math.log(p)
    return -h / math.log(4.0)


def reference_xdrop(t, q, e1, e2, block, xdrop, table):
    """X-drop extension of one hit (spec 4.3).  Returns (left, right, block_end, score)."""
    diag = e1 - e2
    stop = max(0, block + diag)
    p, run, best, left = e1, 0, 0, e1
    while p > stop and run >= best - xdrop:
        p -= 1
        run += int(table[t[p], q[p - diag]])
        if run > best:
            best, left = run, p
    left_score = best
    stop = min(len(t), len(q) + diag)
    p, run, best, right = e1, 0, 0, e1
    while p < stop and run >= best - xdrop:
        run += int(table[t[p], q[p - diag]])
        p += 1
        if run > best:
            best, right = run, p
    return left, right, p, left_score + best


def reference_find_hsps(target, query, pattern, trans, table, xdrop, hspthresh, entropy=True,
                        step=1, word=28, gfextend=True, gapped=True):
    """HSPs (pos1, pos2, length, score) of one strand in discovery order (spec 4)."""
    length = len(pattern)
    diag_end = {}
    out = []
    for e1, e2 in reference_hits(target, query, pattern, trans, step, word):
        if not gfextend and not gapped:
            out.append((e1 - length, e2 - length, length, 0))
            continue
        bucket = (e1 - e2) % 65536
        end = diag_end.get(bucket, 0)
        if end > e2 - length:
            continue
        if not gfextend:
            diag_end[bucket] = e2
            s = sum(int(table[target[e1 - length + k], query[e2 - length + k]]) for k in range(length))
            out.append((e1 - length, e2 - length, length, s))
            continue
        left, right, block, s = reference_xdrop(target, query, e1, e2, end, xdrop, table)
        diag = e1 - e2
        diag_end[bucket] = max(end, block - diag)
        if entropy and max(0, hspthresh) <= s <= 3 * hspthresh:
            s = int(s * reference_entropy(target, query, left, left - diag, right - left))
        if s >= hspthresh:
            out.append((left, left - diag, right - left, s))
    return out


def reference_double_score(t, q, pos1, pos2, length, table, hspthresh, entropy=True):
    """lastz_D's score of an x-drop HSP (spec 4.4 without the truncation): the segment's
    score, times its entropy factor when the score is in [max(0, K), 3K], as a double."""
    s = sum(int(table[t[pos1 + k], q[pos2 + k]]) for k in range(length))
    if entropy and max(0, hspthresh) <= s <= 3 * hspthresh:
        return float(s) * reference_entropy(t, q, pos1, pos2, length)
    return float(s)


def reference_peak(t, q, pos1, pos2, length, table):
    """Anchor offset inside a segment (spec 5.1), by scoring every 31-column window."""
    w = 31
    if length <= w:
        return length // 2
    sums = [sum(int(table[t[pos1 + s + k], q[pos2 + s + k]]) for k in range(w))
            for s in range(length - w + 1)]
    best = max(sums)
    return sums.index(best) + w // 2


def reference_anchors(hsps, t, q, table):
    """Anchors (pos1, pos2, score) in gapped-extension order (spec 5.2)."""
    pts = []
    for p1, p2, n, s in hsps:
        k = reference_peak(t, q, p1, p2, n, table)
        pts.append((p1 + k, p2 + k, s))
    return sorted(pts, key=lambda a: (-a[2], a[1], a[0]))
