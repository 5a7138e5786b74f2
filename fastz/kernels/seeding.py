"""Seed-word packing and the target position table (count -> prefix sum -> fill).

Mirrors LASTZ ``pos_table.c`` (``build_seed_position_table``, ``record_seed_positions``,
``add_word``) and ``seeds.c`` (``apply_seed``), with our own key packing: for each care
position of the seed pattern, left to right, the 2-bit base code (``1`` positions) or
its low purine/pyrimidine bit (``T`` positions) is appended to the key.  Only key
equality matters to the output; the transition flips (``kernels.filtering``) are
tried in LASTZ's order.

Layout of the index (a CSR over key buckets):

* ``dir_[b] .. dir_[b+1]`` is the slice of ``pos`` holding the window ends whose
  key has high bits ``b`` (``key >> low_bits``);
* ``low`` (uint8, empty when ``low_bits == 0``) holds each entry's remaining key
  bits; inside a bucket entries are ordered by ``low`` ascending, then by window
  end *descending* -- the order LASTZ enumerates a key's positions in.

Base codes: A=0, C=1, G=2, T=3 for upper-case ACGT only; anything else is -1 and
excludes every window containing it (LASTZ ``upperCharToBits``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .prefetch import prefetch

#: ASCII byte -> 2-bit code; -1 for every byte that cannot be part of a seed word.
CODES = np.full(256, -1, dtype=np.int8)
for _ch, _v in zip(b"ACGT", range(4)):
    CODES[_ch] = _v
del _ch, _v


def char_codes(chars: np.ndarray) -> np.ndarray:
    """int8 seed codes of a uint8 ASCII buffer (vectorised table look-up)."""
    return CODES[chars]


# --- Packed keys -----------------------------------------------------------------------


@njit(cache=True, inline="always")
def window_key(codes, end, care_off, care_bits):
    """Packed key of the window ending (exclusively) at ``end``.

    ``care_off[k]`` is the distance of the k-th care position from the window's last
    base; ``care_bits[k]`` is 2 (a ``1`` position) or 1 (a ``T`` position).
    """
    key = 0
    for k in range(care_off.shape[0]):
        # int(): a wide integer under numba's CUDA simulator too, where the int8
        # code would otherwise make the key an int8 and overflow
        c = int(codes[end - 1 - care_off[k]])
        if care_bits[k] == 2:
            key = (key << 2) | c
        else:
            key = (key << 1) | (c & 1)
    return key


@njit(cache=True)
def present_keys(dir_, low, low_bits):
    """A bitmap of the keys that have positions in the table: key k is bit ``k & 63``
    of word ``k >> 6`` (int64 words).  A search that mostly misses (reads against a
    sampled table) tests it instead of the directory (``filtering.ring_ahead``)."""
    nb = dir_.shape[0] - 1
    out = np.zeros(((nb << low_bits) + 63) >> 6, np.int64)
    for b in range(nb):
        for j in range(dir_[b], dir_[b + 1]):
            key = (b << low_bits) | (np.int64(low[j]) if low_bits > 0 else 0)
            out[key >> 6] |= np.int64(1) << (key & 63)
    return out


@njit(cache=True, inline="always")
def lookup(dir_, low, low_bits, key):
    """Slice ``[a, z)`` of the position array holding ``key``'s window ends."""
    b = key >> low_bits
    a = dir_[b]
    z = dir_[b + 1]
    if low_bits == 0 or a == z:
        return a, z
    want = key & ((1 << low_bits) - 1)
    lo = a
    hi = z
    while lo < hi:                       # first entry with low >= want
        mid = (lo + hi) >> 1
        if low[mid] < want:
            lo = mid + 1
        else:
            hi = mid
    start = lo
    hi = z
    while lo < hi:                       # first entry with low > want
        mid = (lo + hi) >> 1
        if low[mid] <= want:
            lo = mid + 1
        else:
            hi = mid
    return start, lo


@njit(cache=True, inline="always")
def query_keys(key, trans, flips, keys, allow):
    """The keys one query window looks up, in LASTZ's order; returns their count.

    ``keys[k]`` is the k-th key and ``allow[k]`` the transitions its hits may still
    hold at an overweight seed's demoted positions: the exact key (``trans``), then
    with one transition the flipped keys (0); with two, each single flip (1)
    followed by its pairs with the later flips (0).
    """
    nk = 1
    keys[0] = key
    allow[0] = trans
    nf = flips.shape[0]
    if trans == 1:
        for a in range(nf):
            keys[nk] = key ^ flips[a]
            allow[nk] = 0
            nk += 1
    elif trans >= 2:
        for a in range(nf):
            keys[nk] = key ^ flips[a]
            allow[nk] = 1
            nk += 1
            for b in range(a + 1, nf):
                keys[nk] = key ^ flips[a] ^ flips[b]
                allow[nk] = 0
                nk += 1
    return nk


# --- Building the index ----------------------------------------------------------------


#: The index passes queue each window as its key is computed (and its directory entry
#: asked for), and use it once INDEX_AHEAD more are queued; the fill asks for the
#: position slot half-way.  The queue is drained every INDEX_BLOCK windows (a power of
#: two), so it holds up to INDEX_AHEAD + INDEX_BLOCK: INDEX_RING, rounded up to 2^k.
INDEX_AHEAD = 32
INDEX_BLOCK = 64
INDEX_RING = 128
#: longest seed whose window is kept packed in one int64 (2 bits a base, 62 bits)
PACKED_MAX_LEN = 31


def packed_runs(care_off: np.ndarray, care_bits: np.ndarray):
    """The seed's care positions as runs over a packed window, for ``packed_key``.

    With the window packed 2 bits a base, its last base lowest, a run of adjacent
    ``1`` positions is one shift and one mask of it; a ``T`` position (its code's low
    bit) is a run of its own.  Returns int64 arrays ``(shift, mask, out)``: the key
    is the OR of ``((packed >> shift) & mask) << out`` over the runs.
    """
    shift, width = [], []
    prev_bits, prev_off = 0, -2
    for off, bits in zip(care_off.tolist(), care_bits.tolist()):
        # care positions come left to right (offsets descending): a '1' one base to
        # the right of a '1' run extends it downwards
        if bits == 2 and prev_bits == 2 and off == prev_off - 1:
            shift[-1] -= 2
            width[-1] += 2
        else:
            shift.append(2 * off)
            width.append(bits)
        prev_bits, prev_off = bits, off
    out = np.cumsum(width[::-1])[::-1] - np.array(width, np.int64)
    mask = [(1 << w) - 1 for w in width]
    return (np.array(shift, np.int64), np.array(mask, np.int64), out.astype(np.int64))


#: ``window_key`` as a call: inlined in the index pass, its loop slows the packed path
#: threefold (the index pass only uses it for seeds too long to pack)
window_key_called = njit(cache=True)(window_key.py_func)


@njit(cache=True, inline="always")
def packed_key(packed, shift, mask, out):
    """``window_key`` of a packed window (see ``packed_runs``)."""
    key = 0
    for r in range(shift.shape[0]):
        key |= ((packed >> shift[r]) & mask[r]) << out[r]
    return key


@njit(cache=True, nogil=True)
def _index_pass(chars, codes_of, codes, seed_len, step, care_off, care_bits, runs_shift,
                runs_mask, runs_out, low_bits, b_lo, b_hi, table, pos, low, fill):
    """One pass over the indexed windows, in target order, for the buckets
    ``b_lo <= b < b_hi`` (threads share the work by bucket range, so they write
    disjoint parts of ``table``, ``pos`` and ``low``, each in the serial order).

    Counting (``fill`` False): ``table[b + 1]`` += the windows of bucket b; returns
    their total.  Filling (``fill`` True): ``table[b]`` is a cursor starting at the
    end of bucket b and each window end is placed just below it, so positions
    (scanned ascending) land in descending order.

    Both passes are bound by memory latency (a random directory entry per window, in
    a directory far larger than the cache): the windows of this range are queued
    without a branch (another thread's window is a coin toss the CPU would mispredict),
    their directory entries fetched as they are queued, and the queue drained every
    ``INDEX_BLOCK`` windows down to its last ``INDEX_AHEAD`` (a hint: the same index
    without it).  Keys come from a rolling packed window when the seed fits one int64
    (``runs_shift`` not empty), else base by base from ``codes`` (the target's
    ``char_codes``, only needed then).
    """
    n = chars.shape[0]
    ring_mask = INDEX_RING - 1
    keys = np.zeros(INDEX_RING, np.int64)       # queued windows' keys ...
    ends = np.zeros(INDEX_RING, np.int64)       # ... and exclusive ends
    queued = 0
    done = 0
    mask = (1 << low_bits) - 1
    roll = runs_shift.shape[0] > 0
    window_mask = (1 << (2 * min(seed_len, PACKED_MAX_LEN))) - 1
    packed = 0
    run = 0
    total = 0
    to_step = step                  # window ends until the next multiple of step
    for i in range(n):
        key = -1
        to_step -= 1
        stepped = to_step == 0
        if stepped:
            to_step = step
        c = codes_of[chars[i]]
        if c < 0:
            run = 0
        else:
            run += 1
            packed = ((packed << 2) | c) & window_mask
            if run >= seed_len and stepped:
                if roll:
                    key = packed_key(packed, runs_shift, runs_mask, runs_out)
                else:
                    key = window_key_called(codes, i + 1, care_off, care_bits)
        b = key >> low_bits
        keys[queued & ring_mask] = key
        ends[queued & ring_mask] = i + 1
        queued += (key >= 0) & (b >= b_lo) & (b < b_hi)
        # the newest queued window (again, when this one was not queued: a hit)
        prefetch(table, keys[(queued - 1) & ring_mask] >> low_bits)
        if (i + 1) % INDEX_BLOCK != 0 and i + 1 < n:
            continue
        until = queued - INDEX_AHEAD if i + 1 < n else queued
        while done < until:
            at = done & ring_mask
            b = keys[at] >> low_bits
            if fill:
                if done + INDEX_AHEAD // 2 < queued:
                    ahead = keys[(done + INDEX_AHEAD // 2) & ring_mask] >> low_bits
                    prefetch(pos, table[ahead] - 1)
                j = table[b] - 1
                table[b] = j
                pos[j] = ends[at]
                if low_bits > 0:
                    low[j] = keys[at] & mask
            else:
                table[b + 1] += 1
                total += 1
            done += 1
    return total


@njit(cache=True)
def _sort_buckets(dir_, pos, low, low_bits):
    """Stable sort of every bucket by its ``low`` key bits (descending ends kept)."""
    nlow = 1 << low_bits
    count = np.zeros(nlow + 1, np.int64)
    tmp_pos = np.empty(16, pos.dtype)
    tmp_low = np.empty(16, low.dtype)
    for b in range(dir_.shape[0] - 1):
        a = dir_[b]
        z = dir_[b + 1]
        n = z - a
        if n < 2:
            continue
        sorted_already = True
        for j in range(a + 1, z):
            if low[j] < low[j - 1]:
                sorted_already = False
                break
        if sorted_already:
            continue
        if n <= 16:                                   # stable insertion sort
            for j in range(a + 1, z):
                lv = low[j]
                pv = pos[j]
                k = j - 1
                while k >= a and low[k] > lv:
                    low[k + 1] = low[k]
                    pos[k + 1] = pos[k]
                    k -= 1
                low[k + 1] = lv
                pos[k + 1] = pv
            continue
        if tmp_pos.shape[0] < n:                      # stable counting sort
            tmp_pos = np.empty(n, pos.dtype)
            tmp_low = np.empty(n, low.dtype)
        count[:] = 0
        for j in range(a, z):
            count[low[j] + 1] += 1
        for v in range(nlow):
            count[v + 1] += count[v]
        for j in range(a, z):
            v = low[j]
            k = count[v]
            count[v] = k + 1
            tmp_pos[k] = pos[j]
            tmp_low[k] = v
        for k in range(n):
            pos[a + k] = tmp_pos[k]
            low[a + k] = tmp_low[k]


def build_index_arrays(chars: np.ndarray, seed_len: int, step: int, care_off: np.ndarray,
                       care_bits: np.ndarray, weight: int, low_bits: int, threads: int = 1):
    """Count -> prefix sum -> fill.  Returns ``(dir_, pos, low)``.

    Parameters
    ----------
    chars : uint8 array
        The target buffer (ASCII; only upper-case ACGT are seed bases).
    seed_len, step : int
        Window length; only window ends divisible by ``step`` are indexed.
    care_off, care_bits : int64 arrays
        The seed's care positions (see ``window_key``).
    weight : int
        Total key bits.
    low_bits : int
        Key bits kept per entry instead of in the directory (0..7).
    threads : int
        Threads sharing each pass by bucket range (the same arrays for any count).
    """
    n = chars.shape[0]
    pos_dtype = np.int32 if n < 2**31 - 1 else np.int64
    nbuckets = 1 << (weight - low_bits)
    if seed_len <= PACKED_MAX_LEN:
        runs = packed_runs(care_off, care_bits)
        codes = chars[:0].view(np.int8)
    else:
        runs = (np.empty(0, np.int64),) * 3
        codes = char_codes(chars)
    threads = max(1, min(threads, n // (1 << 20) + 1))      # a thread per megabase at most

    def each_part(bounds, table, pos, low, fill):
        def one(k):
            return _index_pass(chars, CODES, codes, seed_len, step, care_off, care_bits,
                               *runs, low_bits, bounds[k], bounds[k + 1], table, pos, low,
                               fill)
        if threads == 1:
            return [one(0)]
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(one, range(threads)))

    # one directory array, reused as the fill cursor: memory is the directory
    # plus the positions, nothing more (the directory dominates for 24-bit seeds)
    counts = np.zeros(nbuckets + 1, dtype=pos_dtype)
    by_buckets = np.linspace(0, nbuckets, threads + 1).astype(np.int64)
    total = sum(each_part(by_buckets, counts, counts[:0], counts[:0].view(np.uint8), False))
    np.cumsum(counts, out=counts)          # counts[b + 1] = end of bucket b
    pos = np.empty(total, dtype=pos_dtype)
    low = np.empty(total if low_bits > 0 else 0, dtype=np.uint8)
    # the fill shares out entries rather than buckets
    by_entries = np.searchsorted(counts, np.linspace(0, total, threads + 1)).astype(np.int64)
    by_entries[0], by_entries[-1] = 0, nbuckets
    each_part(by_entries, counts[1:], pos, low, True)
    counts[:-1] = counts[1:]               # the fill left counts[b + 1] = start of b
    counts[-1] = total
    dir_ = counts
    if low_bits > 0:
        _sort_buckets(dir_, pos, low, low_bits)
    return dir_, pos, low


# --- Word-count limits (--maxwordcount) -----------------------------------------------


@njit(cache=True)
def protect_chasms(drop, pos, step, max_chasm, n_slots):
    """Keep some dropped entries so that no run of consecutive position slots (window
    end / step) longer than ``max_chasm`` is dropped whole; clears ``drop`` for them.

    Mirrors LASTZ ``pos_table.c`` ``limit_position_table`` with a chasm and
    ``breakup_chasm``: survivors are spaced as a line drawn in integer steps.
    """
    mark = np.zeros(n_slots, np.bool_)
    for j in range(drop.shape[0]):
        if drop[j]:
            mark[pos[j] // step] = True
    in_chasm = False
    start = 0
    for p in range(n_slots):
        if mark[p]:
            if not in_chasm:
                start = p
                in_chasm = True
            mark[p] = False            # (now: protected, set back below if needed)
            continue
        if not in_chasm:
            continue
        in_chasm = False
        if p - start > max_chasm:
            _breakup_chasm(mark, start, p, max_chasm)
    if in_chasm and n_slots - start >= max_chasm:      # (LASTZ's >= here)
        _breakup_chasm(mark, start, n_slots, max_chasm)
    for j in range(drop.shape[0]):
        if drop[j] and mark[pos[j] // step]:
            drop[j] = False


@njit(cache=True)
def _breakup_chasm(mark, start, end, max_chasm):
    length = end - start
    denom = 1 + length // (max_chasm + 1)
    numer = denom // 2 - denom
    for _ in range(1, denom):
        numer += length + 1
        mark[start + numer // denom] = True


@njit(cache=True)
def compact_index(dir_, pos, low, keep):
    """The index with only the entries flagged in ``keep`` (order kept)."""
    nb = dir_.shape[0] - 1
    new_dir = np.empty_like(dir_)
    n = 0
    for j in range(pos.shape[0]):
        if keep[j]:
            n += 1
    new_pos = np.empty(n, pos.dtype)
    new_low = np.empty(n if low.shape[0] > 0 else 0, low.dtype)
    k = 0
    for b in range(nb):
        new_dir[b] = k
        for j in range(dir_[b], dir_[b + 1]):
            if keep[j]:
                new_pos[k] = pos[j]
                if low.shape[0] > 0:
                    new_low[k] = low[j]
                k += 1
    new_dir[nb] = k
    return new_dir, new_pos, new_low


# --- The table as text (--tableonly, --showtable) --------------------------------------

#: Bytes a number takes at most in the table's text (a u64 in decimal).
_NUMBER_BYTES = 20


@njit(cache=True, inline="always")
def _put_decimal(buf, n, value):
    """Write ``value`` (>= 0) in decimal at ``buf[n:]``; returns the new end."""
    digits = 1
    v = value
    while v >= 10:
        v //= 10
        digits += 1
    for d in range(digits - 1, -1, -1):
        buf[n + d] = 48 + value % 10
        value //= 10
    return n + digits


@njit(cache=True)
def word_bounds(dir_, low, low_bits):
    """Where each word (run of entries with one key) starts in the index, and the end:
    word w holds entries ``bounds[w] .. bounds[w + 1]``, words by ascending key."""
    n = dir_[dir_.shape[0] - 1]
    bounds = np.empty(n + 1, np.int64)            # (at most one word per entry)
    w = 0
    for b in range(dir_.shape[0] - 1):
        j = dir_[b]
        z = dir_[b + 1]
        while j < z:
            bounds[w] = j
            w += 1
            k = j + 1
            if low_bits > 0:
                while k < z and low[k] == low[j]:
                    k += 1
            else:
                k = z
            j = k
    bounds[w] = n
    return bounds[:w + 1].copy()


@njit(cache=True, nogil=True)
def seed_table_text(keys, shown_keys, starts, counts, pos, pattern, hex_digits,
                    show_counts, show_positions, buf):
    """The table's lines for the given words, written into ``buf`` (LASTZ
    ``pos_table.c`` ``dump_position_table``); returns the bytes written.

    Per word: ``shown_keys[w]`` in ``hex_digits`` upper-case hex digits, ``/``, the
    word as the seed sees it (from ``keys[w]``; ``pattern``: 2 for a ``1`` position,
    written as its base; 1 for a ``T`` position, written ``R`` or ``Y``; 0 for a
    don't-care, ``x``), ``:``, then its count and/or its window ends
    ``pos[starts[w]:starts[w] + counts[w]]`` (descending, as LASTZ lists them).
    ``buf`` must hold ``seed_table_bound`` bytes.
    """
    hexchars = b"0123456789ABCDEF"
    bases = b"ACGT"
    weight = 0
    for k in range(pattern.shape[0]):
        weight += pattern[k]
    n = 0
    for w in range(keys.shape[0]):
        shown = shown_keys[w]
        for d in range(hex_digits):
            buf[n + d] = hexchars[(shown >> (4 * (hex_digits - 1 - d))) & 15]
        n += hex_digits
        buf[n] = 47                                            # '/'
        n += 1
        key = keys[w]
        shift = weight
        for k in range(pattern.shape[0]):
            if pattern[k] == 2:
                shift -= 2
                buf[n] = bases[(key >> shift) & 3]
            elif pattern[k] == 1:
                shift -= 1
                buf[n] = 89 if (key >> shift) & 1 else 82         # 'Y' / 'R'
            else:
                buf[n] = 120                                      # 'x'
            n += 1
        buf[n] = 58                                            # ':'
        n += 1
        if show_counts:
            buf[n] = 32
            n = _put_decimal(buf, n + 1, counts[w])
        if show_positions:
            i = starts[w]
            buf[n] = 32
            n = _put_decimal(buf, n + 1, pos[i])
            for m in range(i + 1, i + counts[w]):
                buf[n] = 44                                    # ','
                n = _put_decimal(buf, n + 1, pos[m])
        buf[n] = 10
        n += 1
    return n
