"""Stage 1 host code: seed patterns and the target seed-word index.

Mirrors LASTZ ``seeds.c`` (``parse_one_seed``: pattern normalisation, half-weight and
overweight seeds, transition flip order) and ``pos_table.c``
(``build_seed_position_table``).  The numba kernels live in ``fastz.kernels.seeding``.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from ..errors import OptionsError
from ..kernels import seeding as kseed
from ..options import MAX_SEED_BIT_WEIGHT as MAX_BIT_WEIGHT
from ..options import SEED_12OF19, SEED_14OF22, seed_weights

#: most key bits LASTZ's position table takes (``new_position_table``)
POSITION_TABLE_BITS = 28

#: Named seeds LASTZ knows (``--seed=12of19`` etc.).
NAMED_SEEDS = {"12of19": SEED_12OF19, "14of22": SEED_14OF22}


@dataclass(frozen=True)
class SeedSpec:
    """A parsed seed pattern, ready for the kernels."""

    pattern: str                 # normalised: '1', '0', 'T' ('T' also for demoted '1's)
    length: int                  # window length (Lseed)
    weight: int                  # key bits
    halfweight: bool             # only 0/T positions
    care_off: np.ndarray         # int64: distance of each care position from the window's last base
    care_bits: np.ndarray        # int64: 2 ('1') or 1 ('T') key bits per care position
    flips: np.ndarray            # int64: key masks flipping one '1' by a transition, rightmost first
    resolve_off: np.ndarray      # int64: overweight only: demoted '1's compared directly

    @property
    def overweight(self) -> bool:
        return self.resolve_off.shape[0] > 0


def seed_pattern(seed: str) -> str:
    """Expand a LASTZ seed name (``12of19``, ``14of22``, ``match<n>``, ``half<n>``) or
    pattern into a pattern over ``1``, ``0``, ``T``."""
    s = seed.strip()
    if s in NAMED_SEEDS:
        return NAMED_SEEDS[s]
    m = re.fullmatch(r"match\(?(\d+)\)?", s)
    if m:
        return "1" * int(m.group(1))
    m = re.fullmatch(r"half\(?(\d+)\)?", s)
    if m:
        return "T" * int(m.group(1))
    return s


@functools.lru_cache(maxsize=32)
def parse_seed(seed: str, word: int = 28) -> SeedSpec:
    """Parse a seed name or pattern (LASTZ ``parse_one_seed``); cached (it is asked
    for every query strand), so its arrays are shared: read them only.

    ``word`` is the most key bits the index may use (``--word``); heavier seeds are
    *overweight*: their rightmost ``1`` positions are indexed by their
    purine/pyrimidine bit only and resolved by direct comparison.

    Of a comma-separated list of seeds only the first is used: LASTZ 1.04.22 parses
    the whole list (``parse_seeds_string``) but searches with its head seed alone.
    """
    raw = seed_pattern(seed.split(",")[0])
    body = "".join(ch for ch in raw if ch not in " \t\n")
    bad = [ch for ch in body if ch not in "10xXTt"]
    if bad:
        raise OptionsError(f"seed string {seed} contains illegal character {bad[0]}")
    body = body.replace("x", "0").replace("X", "0").replace("t", "T").strip("0")
    if not body:
        raise OptionsError("seed string is empty!")
    matches, weight, keep = seed_weights(body, word, seed)
    halfweight = matches == 0
    length = len(body)

    care_off, care_bits, resolve_off, pattern = [], [], [], []
    seen = 0
    for i, ch in enumerate(body):
        off = length - 1 - i
        if ch == "1":
            if seen < keep:
                care_off.append(off)
                care_bits.append(2)
                pattern.append("1")
            else:                                  # demoted: indexed as a T, resolved later
                if off >= 16:
                    raise OptionsError(f"resolving bits in seed string {seed} are spread too widely")
                care_off.append(off)
                care_bits.append(1)
                resolve_off.append(off)
                pattern.append("T")
            seen += 1
        elif ch == "T":
            care_off.append(off)
            care_bits.append(1)
            pattern.append("T")
        else:
            pattern.append("0")
    key_weight = sum(care_bits)
    if key_weight > MAX_BIT_WEIGHT:
        raise OptionsError(f"seed string ({seed}) cannot have bit weight exceeding "
                           f"{MAX_BIT_WEIGHT} (it's {key_weight}).")
    # key bit position of each care position: later care positions are less significant
    shifts = np.zeros(len(care_bits), np.int64)
    acc = 0
    for k in range(len(care_bits) - 1, -1, -1):
        shifts[k] = acc
        acc += care_bits[k]
    # one flip per kept '1', rightmost pattern position first (LASTZ transFlips order)
    flips = [1 << (int(shifts[k]) + 1) for k in range(len(care_bits) - 1, -1, -1)
             if care_bits[k] == 2]
    return SeedSpec(
        pattern="".join(pattern), length=length, weight=key_weight, halfweight=halfweight,
        care_off=np.array(care_off, np.int64), care_bits=np.array(care_bits, np.int64),
        flips=np.array(flips, np.int64), resolve_off=np.array(resolve_off, np.int64),
    )


# --- The index ---------------------------------------------------------------------------


@dataclass
class SeedIndex:
    """Target window ends by packed seed key (see ``fastz.kernels.seeding``)."""

    spec: SeedSpec
    step: int
    dir_: np.ndarray             # int32/int64[2**(weight-low_bits) + 1]: bucket -> first entry
    pos: np.ndarray              # int32/int64: window ends (exclusive, 0-based target positions)
    low: np.ndarray              # uint8: low key bits per entry (empty when low_bits == 0)
    low_bits: int
    target_len: int

    def __len__(self) -> int:
        return int(self.pos.shape[0])

    def positions_of(self, key: int) -> np.ndarray:
        """Window ends holding ``key``, in LASTZ enumeration order (descending)."""
        a, z = kseed.lookup(self.dir_, self.low, self.low_bits, key)
        return self.pos[a:z]


def _low_bits_for(weight: int, n: int) -> int:
    """Key bits kept per entry: directory of at most 2**24 buckets, sized to the ``n``
    windows the target may index (with ``--step`` a short read's lookups then hit a
    directory that stays in the cache: E. coli at --step=10, 4 MB instead of 64 MB)."""
    dir_bits = min(weight, max(weight - 7, min(24, max(n, 1).bit_length() + 1)))
    return weight - dir_bits


def build_index(target_chars: np.ndarray, seed: str | SeedSpec, step: int = 1,
                word: int = 28, max_word_count: str | None = None,
                threads: int = 1) -> SeedIndex:
    """Index every target window whose ``Lseed`` bases are all upper-case ACGT and
    whose exclusive end is divisible by ``step`` (LASTZ ``build_seed_position_table``).

    Parameters
    ----------
    target_chars : uint8 array
        The target buffer (ASCII, case kept; NUL separators for partitioned targets).
    seed : str or SeedSpec
        Seed name or pattern (``--seed``), or an already parsed spec.
    step : int
        ``--step``: index only every step-th window end.
    word : int
        ``--word``: most index bits before the seed becomes overweight.
    max_word_count : str, optional
        The value of ``--maxwordcount=<limit>[%][,<chasm>]`` (see ``limit_index``).
    threads : int
        Threads building it (a chromosome's index is seconds of memory latency).
    """
    if step < 1:
        raise OptionsError(f"step can't be {step}")
    spec = seed if isinstance(seed, SeedSpec) else parse_seed(seed, word)
    if spec.weight > POSITION_TABLE_BITS:
        # (a --word above 28 passes LASTZ's option check, then fails here)
        raise OptionsError(f"new_position_table can't support >{POSITION_TABLE_BITS} seed "
                           f"bits ({spec.weight} requested)")
    chars = np.ascontiguousarray(target_chars, dtype=np.uint8)
    low_bits = _low_bits_for(spec.weight, -(-chars.shape[0] // step))
    dir_, pos, low = kseed.build_index_arrays(chars, spec.length, step, spec.care_off,
                                              spec.care_bits, spec.weight, low_bits, threads)
    index = SeedIndex(spec, step, dir_, pos, low, low_bits, int(chars.shape[0]))
    if max_word_count is not None:
        n = int(chars.shape[0])
        if n > 0 and chars[n - 1] == 0:            # LASTZ's length: no trailing NUL
            n -= 1
        index = limit_index(index, max_word_count, n)
    return index


# --- --maxwordcount ----------------------------------------------------------------------


def parse_max_word_count(text: str) -> tuple[int, float, int]:
    """``--maxwordcount=<limit>[%][,<chasm>]`` -> (limit, keep fraction, chasm).

    Exactly one of ``limit`` (a word count) and ``keep`` (the fraction of positions to
    keep) is non-zero, unless a ``0%`` turned limiting off.  Mirrors LASTZ
    ``parse_options``.
    """
    from ..scoring import string_to_int
    body, chasm = text, 0
    if "," in text:
        body, tail = text.split(",", 1)
        chasm = string_to_int(tail)
        if chasm < 1:
            raise OptionsError("--maxwordcount's max interval must be at least 1")
    if body.endswith("%"):
        from ..lastz_words import pct
        keep = pct(body) / 100.0
        if keep < 0:
            raise OptionsError("--maxwordcount cannot be zero")     # (sic, LASTZ's words)
        # (LASTZ's format strings end in a lone "%", which its printf drops)
        if keep == 1:
            raise OptionsError("--maxwordcount cannot be 100")
        if keep >= 1:
            raise OptionsError("--maxwordcount cannot be more than 100")
        return 0, float(np.float32(keep)), chasm         # LASTZ passes it on as a float
    limit = string_to_int(body)
    if limit < 1:
        raise OptionsError("--maxwordcount must be at least 1")
    return limit, 0.0, chasm


def limit_index(index: SeedIndex, spec: str, target_len: int) -> SeedIndex:
    """Drop the positions of over-represented seed words (``--maxwordcount``).

    Words with more than ``limit`` positions are removed; with ``<p>%`` the limit is
    the smallest count such that words of that count or fewer hold at least ``p``
    percent of all positions (LASTZ ``find_position_table_limit``).  With a chasm, a
    run of consecutive word positions longer than it that would all be dropped keeps
    evenly spaced survivors (``limit_position_table``, ``breakup_chasm``).
    """
    limit, keep, chasm = parse_max_word_count(spec)
    word_counts = np.diff(kseed.word_bounds(index.dir_, index.low, index.low_bits))
    counts = np.repeat(word_counts, word_counts)        # per entry, its word's count
    if keep > 0:
        limit = _limit_for_fraction(counts, keep)
    if limit <= 0:
        return index
    drop = counts > limit
    if not drop.any():
        return index
    if chasm // index.step > 0:
        kseed.protect_chasms(drop, index.pos, index.step, chasm // index.step,
                             1 + target_len // index.step)
    dir_, pos, low = kseed.compact_index(index.dir_, index.pos, index.low, ~drop)
    return SeedIndex(index.spec, index.step, dir_, pos, low, index.low_bits, index.target_len)


def keep_positions(index: SeedIndex, allowed: np.ndarray) -> SeedIndex:
    """The index with only the window ends in ``allowed`` (sorted), order kept: the
    words ``--maxwordcount`` dropped from the unmasked target stay dropped after
    dynamic masking rebuilds the index (LASTZ removes masked seeds from its one,
    limited, position table)."""
    at = np.searchsorted(allowed, index.pos)
    keep = (at < allowed.shape[0]) & (allowed[np.minimum(at, allowed.shape[0] - 1)]
                                      == index.pos)
    if keep.all():
        return index
    dir_, pos, low = kseed.compact_index(index.dir_, index.pos, index.low, keep)
    return SeedIndex(index.spec, index.step, dir_, pos, low, index.low_bits, index.target_len)


def _limit_for_fraction(counts: np.ndarray, keep: float) -> int:
    """LASTZ ``find_position_table_limit`` from the per-entry word counts."""
    if counts.shape[0] == 0:
        return 0
    values, entries = np.unique(counts, return_counts=True)   # entries = count * words
    total = int(entries.sum())
    need = int(np.ceil(np.float32(total) * np.float32(keep)))   # float arithmetic, as C
    for value, n in zip(values.tolist(), entries.tolist()):
        if n >= need:
            return min(int(value), 0xFFFFFFFF)
        need -= n
    return 0
