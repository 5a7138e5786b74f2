"""Scoring sets: LASTZ keeps two 256x256 substitution tables indexed by ASCII byte.

``sub``    (LASTZ's "scoring"): gapped DP, anchor peaks, alignment scores.  Case is ignored.
``masked`` (LASTZ's "maskedScoring"): gap-free x-drop extension.  Lower-case a/c/g/t,
           N/n and X score ``bad`` there, so an HSP stops at soft-masked sequence.

Mirrors LASTZ ``dna_utilities.c``: ``new_dna_score_set`` (HOXD70, ``--match``),
``read_score_set`` (``--scores`` files), ``masked_score_set``, ``ambiguate_n`` and
``ambiguate_iupac`` (``--ambiguous``), ``private_print_score_matrix`` (header text);
and the score-set part of ``lastz.c parse_options`` (which source wins, gap checks,
``<nuc><nuc>:<score>`` special substitutions).

Two table-building paths differ in small ways that matter for exactness:

* built-in sets (HOXD70, ``--match``, special substitutions): both ``X`` and ``x`` are
  bad, including against the NUL byte; NUL against anything else is "very bad";
* scores-file sets: only the bad character (``X`` unless the file says otherwise) is
  bad; ``x`` is an ordinary fill character; row and column 0 are "very bad" throughout.
"""
from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .cscan import FLOAT, INT, float_value
from .errors import InputError, OptionsError

HOXD70 = np.array([
    [91, -114, -31, -123],
    [-114, 100, -125, -31],
    [-31, -125, 100, -114],
    [-123, -31, -114, 91],
], dtype=np.int32)

HOXD70_OPEN = 400
HOXD70_EXTEND = 30
BAD_SCORE = -1000              # X / x against anything
FILL_SCORE = -100              # N, IUPAC, digits ...
VERY_BAD_SCORE = -107_374_182  # NUL (sequence terminator / partition separator)
#: LASTZ's bestPossibleScore: the most its 32-bit score type holds (its sums wrap past
#: it, but for the identical-sequence sum, which saturates there)
BEST_POSSIBLE = 2**31 - 1

# --match=R,P derivations (LASTZ's unitScores_*: 400/123 and 30/123 of the mismatch penalty)
UNIT_OPEN = 3.25
UNIT_EXTEND = 0.24375
UNIT_BAD = -10.0
UNIT_FILL = -1.0
UNIT_THRESH = 30.0

IUPAC_AMBIGUOUS = "NnBDHKMRSVWYbdhkmrsvwy"   # LASTZ ambiguate_iupac's list, in its order
DNA = "ACGT"


@dataclass(frozen=True, eq=False)
class ScoreSet:
    sub: np.ndarray            # int32[256, 256], rows = target byte, columns = query byte
    masked: np.ndarray         # int32[256, 256], for gap-free extension
    gap_open: int
    gap_extend: int
    labels: str = "ACGT"       # column labels (upper case) printed in output headers
    matrix: np.ndarray | None = None   # int32[len(row_labels), len(labels)] as printed
    row_labels: str | None = None      # row labels; None = same as ``labels``
    bad_score: int = BAD_SCORE
    fill_score: int = FILL_SCORE
    settings: dict = field(default_factory=dict)   # scores-file settings (see load_scores_file)

    @property
    def rows(self) -> str:
        return self.labels if self.row_labels is None else self.row_labels

    @cached_property
    def best(self) -> float:
        """The best substitution score (no alignment of n columns scores more than n
        times it)."""
        return float(self.sub.max())

    def check_sums(self, scores: np.ndarray, len1: int, len2: int, what: str) -> None:
        """A one-line error where one of ``scores`` (of alignments of sequences of
        ``len1`` and ``len2`` bases) passes ``BEST_POSSIBLE``: lastz's sums wrap there
        (scores such as ``--match=1000000``), and nothing after it can be matched.
        Where the best score times the shorter length fits, nothing is looked at."""
        if self.best * min(len1, len2) <= BEST_POSSIBLE or scores.dtype.kind != "i" \
                or scores.shape[0] == 0:
            return
        top = int(scores.max())
        if top > BEST_POSSIBLE:
            raise OptionsError(f"{what} scores {top}, more than LASTZ's 32-bit scores hold "
                               "(lastz's sums wrap there); use smaller scores")

    @property
    def aa(self) -> int | float:
        """sub[first row label][first column label]: LASTZ's default xdrop is 10 times this."""
        return _score_value(self.sub[ord(self.rows[0]), ord(self.labels[0])])

    def format_matrix(self, with_extras: bool = False, prefix: str = "",
                      double: bool = False) -> str:
        """The matrix as LASTZ prints it in output headers (``private_print_score_matrix``).

        ``with_extras`` adds the gap-penalty lines and row labels (AXT, MAF); without it the
        rows are unlabelled (LAV ``d`` stanza, ``--show=defaults``) unless a label needs
        hex.  ``double``: lastz_D's widths and formats.  Every line, including the last,
        ends with a newline and starts with ``prefix``.
        """
        rows, cols = self.rows, self.labels
        mat = self.matrix if self.matrix is not None else \
            self.sub[np.ix_([ord(c) for c in rows], [ord(c) for c in cols])]

        def needs_hex(labels: str) -> bool:
            return any((not c.isprintable()) or c.isspace() for c in labels)

        rows_hex, cols_hex = needs_hex(rows), needs_hex(cols)
        hidden = not (rows_hex or cols_hex or with_extras)
        width = 13 if double else 4
        out = []
        if with_extras:
            out.append(f"{prefix}gap_open_penalty   = {score_text(self.gap_open, double)}\n")
            out.append(f"{prefix}gap_extend_penalty = {score_text(self.gap_extend, double)}\n")
        out.append(prefix + (" " if hidden else "    " if rows_hex else "   ")
                   + "".join(" %*s" % (width, "%02X" % ord(c) if cols_hex else c)
                             for c in cols) + "\n")
        cell = (lambda v: " %13.6e" % v) if double else (lambda v: " %4d" % v)
        for i, r in enumerate(rows):
            label = "" if hidden else "%2s" % ("%02X" % ord(r) if rows_hex else r)
            out.append(prefix + ("  " if rows_hex else " ") + label
                       + "".join(cell(_score_value(v)) for v in mat[i]) + "\n")
        return "".join(out)


def run_score(sub: np.ndarray, a: np.ndarray, b: np.ndarray):
    """The score of a gap-free run, ``sub`` summed over the pairs of ``a`` and ``b`` (LASTZ
    ``score_match``): an int, or for lastz_D's fractional scores the double sum formed
    left to right, as LASTZ forms it (``np.sum`` adds pairwise: other roundings)."""
    v = sub[a, b]
    if v.dtype.kind == "f":
        return float(np.cumsum(v)[-1]) if v.size else 0.0
    return int(v.astype(np.int64).sum())


def score_text(x, double: bool) -> str:
    """A score as LASTZ's ``scoreFmt`` prints it: lastz ``%d``, lastz_D ``%le``."""
    return "%e" % x if double else str(x)


def score_plain(x, double: bool) -> str:
    """A score as LASTZ's ``scoreFmtSimple`` prints it: lastz ``%d``, lastz_D ``%lf``."""
    return "%f" % x if double else str(x)


# --- Building the tables ----------------------------------------------------------------

def _table_dtype():
    """Tables are built as float64 under lastz_D's double scores (any value may have a
    fraction), as int32 otherwise; ``_settled`` narrows whole-number doubles again."""
    return np.float64 if double_scores() else np.int32


def _score_value(v):
    """A table entry or penalty as a Python score: int, or a float with a fraction."""
    return whole_if_integral(float(v)) if isinstance(v, (float, np.floating)) else int(v)


def _settled(ss: ScoreSet) -> ScoreSet:
    """lastz_D's tables: whole numbers throughout go to the integer kernels (int32 tables,
    int penalties: their sums are exact in doubles, so nothing changes), a fraction
    anywhere keeps every table float64 (``kernels.scorewords``: the engine then sums
    doubles in LASTZ's order)."""
    if ss.sub.dtype.kind != "f":
        return ss
    values = (ss.sub, ss.masked, np.array([ss.gap_open, ss.gap_extend], np.float64))
    whole = all(bool(np.all(v == np.round(v)) and np.all(np.abs(v) < 2**31)) for v in values)
    if whole:
        return replace(ss, sub=ss.sub.astype(np.int32), masked=ss.masked.astype(np.int32),
                       gap_open=int(ss.gap_open), gap_extend=int(ss.gap_extend),
                       matrix=None if ss.matrix is None else ss.matrix.astype(np.int32),
                       bad_score=_score_value(ss.bad_score),
                       fill_score=_score_value(ss.fill_score))
    return replace(ss, gap_open=float(ss.gap_open), gap_extend=float(ss.gap_extend))


def _dna_tables(matrix: np.ndarray, labels: str, bad: int, fill: int) -> np.ndarray:
    """LASTZ ``new_dna_score_set``: unmasked table for a 4x4 matrix over ACGT (either case)."""
    sub = np.full((256, 256), fill, dtype=_table_dtype())
    sub[0, :] = VERY_BAD_SCORE
    sub[:, 0] = VERY_BAD_SCORE
    for x in (ord("X"), ord("x")):          # X overwrites the NUL entries too
        sub[x, :] = bad
        sub[:, x] = bad
    set_dna_block(sub, matrix, labels)
    return sub


def set_dna_block(table: np.ndarray, matrix: np.ndarray, labels: str = DNA) -> None:
    """Write a 4x4 matrix over ``labels`` into a 256x256 table, for either case of the
    row and of the column letter (as LASTZ's DNA score sets hold them)."""
    up = np.frombuffer(labels.encode(), np.uint8)
    lo = np.frombuffer(labels.lower().encode(), np.uint8)
    for rows in (up, lo):
        for cols in (up, lo):
            table[np.ix_(rows, cols)] = matrix


def _masked_table(sub: np.ndarray, row_chars: str, col_chars: str, bad_col: int) -> np.ndarray:
    """LASTZ ``masked_score_set``: lower-case rows/columns (and N, n, X) score bad.

    ``row_chars``/``col_chars`` are the set's full label lists (upper then lower case);
    column (row) 0 is left alone, so NUL keeps its score.
    """
    masked = sub.copy()
    bad = sub[ord(row_chars[0]), bad_col]
    upper_rows = "".join(c for c in row_chars if c.isupper())
    upper_cols = "".join(c for c in col_chars if c.isupper())
    rows = [ord(c) for c in row_chars if not c.isupper()]
    if "N" not in upper_rows:
        rows.append(ord("N"))
    rows += [ord("n"), ord("X")]
    cols = [ord(c) for c in col_chars if not c.isupper()]
    if "N" not in upper_cols:
        cols.append(ord("N"))
    cols += [ord("n"), ord("X")]
    masked[rows, 1:] = bad
    masked[1:, cols] = bad
    return masked


def _ambiguate_n(t: np.ndarray, rows: str, cols: str, n_vs_n: int, n_vs_other: int) -> None:
    """LASTZ ``ambiguate_n``: N/n against N/n -> reward, against labelled bases -> -penalty."""
    nn = [ord("N"), ord("n")]
    t[np.ix_(nn, nn)] = n_vs_n
    for ch in rows:
        if ch == "N":
            continue
        for r in (ord(ch), ord(ch.lower())):
            t[r, nn] = n_vs_other
    for ch in cols:
        if ch == "N":
            continue
        for c in (ord(ch), ord(ch.lower())):
            t[nn, c] = n_vs_other


def _ambiguate_iupac(t: np.ndarray, rows: str, cols: str, n_vs_n: int, n_vs_other: int) -> None:
    """LASTZ ``ambiguate_iupac``: every IUPAC ambiguity code behaves like N."""
    amb = [ord(c) for c in IUPAC_AMBIGUOUS]
    low = np.array([ord(c.lower()) for c in IUPAC_AMBIGUOUS])
    same = low[:, None] == low[None, :]
    t[np.ix_(amb, amb)] = np.where(same, n_vs_n, n_vs_other)
    nn = {ord("N"), ord("n")}
    for ch in rows:
        skip = ch == "N"
        for c in amb:
            if skip and c in nn:
                continue
            t[ord(ch), c] = n_vs_other
            t[ord(ch.lower()), c] = n_vs_other
    for ch in cols:
        skip = ch == "N"
        for r in amb:
            if skip and r in nn:
                continue
            t[r, ord(ch)] = n_vs_other
            t[r, ord(ch.lower())] = n_vs_other


def build_scoreset(gap_open: int = HOXD70_OPEN, gap_extend: int = HOXD70_EXTEND) -> ScoreSet:
    """HOXD70 with LASTZ's default bad/fill scores."""
    return _settled(_dna_scoreset(HOXD70, BAD_SCORE, FILL_SCORE, gap_open, gap_extend))


def _dna_scoreset(matrix, bad: int, fill: int, gap_open: int, gap_extend: int,
                  settings: dict | None = None) -> ScoreSet:
    matrix = np.asarray(matrix, dtype=_table_dtype())
    sub = _dna_tables(matrix, DNA, bad, fill)
    masked = _masked_table(sub, "ACGTacgt", "ACGTacgt", ord("X"))
    return ScoreSet(sub, masked, _score_value(gap_open), _score_value(gap_extend), DNA,
                    matrix.copy(), None, _score_value(bad), _score_value(fill),
                    dict(settings or {}))


# --- Number parsing (LASTZ utilities.c) ---------------------------------------------------

def _c_float(text: str) -> float | None:
    """``sscanf(text, "%f%c")`` == 1: the whole text is one float (else None)."""
    if FLOAT.fullmatch(text) is None:
        return None
    with np.errstate(over="ignore"):          # LASTZ casts to float quietly
        return float(np.float32(float_value(text)))


def string_to_int(text: str) -> int:
    """LASTZ ``string_to_int``: a plain (optionally signed) integer and nothing else."""
    if text.lstrip(" \t\n") == "":
        raise OptionsError("an empty string is not an integer")
    if INT.fullmatch(text) is None:
        raise OptionsError(f'"{text}" is not an integer')
    v = int(text)
    if not -2**31 <= v < 2**31:
        raise OptionsError(f'"{text}" is outside the range of a signed integer')
    return v


def string_to_unitized_int(text: str, by_thousands: bool) -> int:
    """LASTZ ``string_to_unitized_int``: integer or float with an optional K/M/G suffix.

    Floats are parsed as C ``float`` and rounded as ``(int)(vf * mult + .5)``.
    """
    mult = 1
    body = text
    if 0 < len(text) < 20 and text[-1] in "KkMmGg":
        mult = {"k": 1, "m": 2, "g": 3}[text[-1].lower()]
        mult = (1000 if by_thousands else 1024) ** mult
        body = text[:-1]
    if INT.fullmatch(body):
        v = int(body)
        if not -2**31 <= v < 2**31 or (mult != 1 and abs(v) > (2**31 - 1) // mult):
            raise OptionsError(f'"{text}" is out of range for an integer')
        return v * mult
    vf = _c_float(body)
    if vf is None:
        raise OptionsError(f'"{text}" is not an integer')
    prod = float(np.float32(vf) * np.float32(mult))
    if not abs(prod) <= 2**31 - 1:          # (NaN too: C leaves its int undefined)
        raise OptionsError(f'"{text}" is out of range for an integer')
    return int(prod + 0.5)


def string_to_unitized_double(text: str, by_thousands: bool) -> float:
    """LASTZ ``string_to_unitized_double``: a C double with an optional K/M/G suffix."""
    mult = 1
    body = text
    if 0 < len(text) < 20 and text[-1] in "KkMmGg":
        mult = (1000 if by_thousands else 1024) ** {"k": 1, "m": 2, "g": 3}[text[-1].lower()]
        body = text[:-1]
    if FLOAT.fullmatch(body) is None:
        raise OptionsError(f'"{text}" is not a number')
    return float_value(body) * mult


# --- Score type: lastz (integer scores) or lastz_D (double scores) ----------------------
#
# LASTZ chooses its score type when it is compiled: ``lastz`` scores in 32-bit integers,
# ``lastz_D`` in doubles.  fastz is one program; ``fastz_D`` (``cli.main_D``) runs it
# with double scores for the whole process, as ``lastz_D`` does.

_SCORE_TYPE = ["I"]


@contextmanager
def score_type(kind: str):
    """Run the enclosed code with LASTZ score type ``kind`` ('I' or 'D')."""
    assert kind in ("I", "D")
    old = _SCORE_TYPE[0]
    _SCORE_TYPE[0] = kind
    try:
        yield
    finally:
        _SCORE_TYPE[0] = old


def double_scores() -> bool:
    """True while running as fastz_D (LASTZ's lastz_D build)."""
    return _SCORE_TYPE[0] == "D"


def string_to_double(text: str) -> float:
    """LASTZ ``string_to_double``: ``sscanf(text, "%lf%c") == 1`` (no K/M/G suffix)."""
    if FLOAT.fullmatch(text) is None:
        raise OptionsError(f'"{text}" is not a number')
    return float_value(text)


def string_to_score(text: str) -> int | float:
    """LASTZ ``string_to_score``: integer builds take K/M/G suffixes (K = 1000) and round;
    lastz_D parses a plain double.  A whole double comes back as an int, so only a
    fractional value is a float anywhere downstream."""
    if _SCORE_TYPE[0] == "D":
        v = string_to_double(text)
        # (lastz_D takes these too, and its DP then sizes rows with undefined ints or
        # overruns them; fastz_D's kernels would write past their buffers)
        if not math.isfinite(v) or 0 < abs(v) < sys.float_info.min:
            raise OptionsError(f'"{text}" is not a score fastz_D takes (infinite, NaN '
                               "or subnormal)")
        return whole_if_integral(v)
    return string_to_unitized_int(text, by_thousands=True)


def whole_if_integral(v):
    """``v`` as an int when it is a whole number (lastz_D's doubles mostly are)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)
    return v


def derived_score(x: float, double: bool):
    """A score LASTZ derives from others (``--match``'s gap penalties, threshold and
    x-drop): lastz rounds it up, lastz_D keeps its fraction."""
    return whole_if_integral(x) if double else math.ceil(x)


# --- Scores files ---------------------------------------------------------------------

class ScoresFile(NamedTuple):
    matrix: np.ndarray          # int32[len(rows), len(cols)]
    labels: tuple[str, str]     # (row labels, column labels), in file order
    settings: dict              # every key = value found, under canonical names


_KEYS = {
    "bad": "bad_score", "bad_score": "bad_score",
    "fill": "fill_score", "fill_score": "fill_score",
    "O": "gap_open", "open": "gap_open", "gap_open": "gap_open", "gap_open_penalty": "gap_open",
    "E": "gap_extend", "extend": "gap_extend", "gap_extend": "gap_extend",
    "gap_extend_penalty": "gap_extend",
    "K": "hsp_threshold", "hsp_thresh": "hsp_threshold", "hsp_threshold": "hsp_threshold",
    "L": "gapped_threshold", "gapped_thresh": "gapped_threshold",
    "gapped_threshold": "gapped_threshold",
    "X": "x_drop", "x_drop": "x_drop",
    "Y": "y_drop", "y_drop": "y_drop",
    "Z": "step", "step": "step",
    "ball": "ball", "T": "seed", "seed": "seed", "bottleneck": "bottleneck",
}
_SEED_VALUES = {
    ("T", "1"): "T=1", ("T", "2"): "T=2", ("T", "3"): "T=3", ("T", "4"): "T=4",
    ("seed", "12of19,transition"): "T=1", ("seed", "12_of_19,transition"): "T=1",
    ("seed", "12of19,notransition"): "T=2", ("seed", "12_of_19,no_transition"): "T=2",
    ("seed", "14of22,transition"): "T=3", ("seed", "14_of_22,transition"): "T=3",
    ("seed", "14of22,notransition"): "T=4", ("seed", "14_of_22,no_transition"): "T=4",
}
_HEX = "0123456789abcdefABCDEF"


def _char_code(text: str, pos: int, terminator: str, zero_ok: bool = False) -> tuple[int, int]:
    """LASTZ ``parse_char_code_common``: one character, or two hex digits.  Returns
    (code, new position); code <= 0 means invalid.  ``~`` complements are quantum only."""
    if pos >= len(text):
        return 0, pos
    cc = ord(text[pos])
    pos += 1
    if pos < len(text) and text[pos] in _HEX:
        cc = int(text[pos - 1] + text[pos], 16) if text[pos - 1] in _HEX else -1
        pos += 1
        if not zero_ok and cc == 0:
            cc = -1
    if terminator == " ":
        if pos < len(text) and not text[pos].isspace():
            return 0, pos
        while pos < len(text) and text[pos].isspace():
            pos += 1
    elif pos >= len(text) or text[pos] != terminator:
        return -1, pos
    else:
        pos += 1
    return cc, pos


def _is_dna_alphabet(labels: str) -> bool:
    """LASTZ ``is_dna_alphabet``."""
    upper = sum(c in labels for c in "ACGT")
    if len(labels) == 4:
        return upper == 4
    if len(labels) == 5:
        return upper == 4 and "N" in labels
    both = upper + sum(c in labels for c in "acgt")
    if len(labels) == 8:
        return both == 8
    if len(labels) == 9:
        return both == 8 and "N" in labels
    return False


def load_scores_file(path: str) -> ScoresFile:
    """Read a LASTZ scores file (``read_score_set``).

    Settings (``key = value`` lines before the matrix, ``#`` comments) are returned under
    canonical names: ``bad_score``, ``bad_row``/``bad_col`` (byte codes, only if given),
    ``fill_score``, ``gap_open``, ``gap_extend``, ``hsp_threshold``, ``gapped_threshold``,
    ``x_drop``, ``y_drop``, ``step`` (ints), ``seed`` (``"T=1"`` .. ``"T=4"``), ``ball``.
    Only DNA alphabets are supported (quantum matrices raise ``OptionsError``).
    """
    try:
        with open(path, "rb") as fh:
            raw_lines = fh.read().decode("latin-1").split("\n")
    except OSError as exc:
        raise InputError(f'fopen_or_die failed to open "{path}" for "rt"') from exc
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()

    def clean(line: str) -> str:
        hash_at = line.find("#")
        if hash_at >= 0:
            line = line[:hash_at]
        return line.strip(" \t\r\n\f\v")

    settings: dict = {}
    seen: set[str] = set()
    lineno = 0
    header = ""
    it = iter(raw_lines)
    for line in it:
        lineno += 1
        line = clean(line)
        if not line:
            continue
        if "=" not in line:
            header = line
            break
        key, value = (s.strip(" \t\r\n\f\v") for s in line.split("=", 1))
        canon = _KEYS.get(key)
        if canon is None or canon in seen:
            raise OptionsError(f"invalid name in assignment ({path}: line {lineno}) {key}={value}")
        where = f"({path}: line {lineno}) {key}={value}"
        if canon == "bad_score":
            pos = 0
            if ":" in value:
                code, _ = _char_code(value, 0, ":", zero_ok=True)
                if code < 0:
                    raise OptionsError(f"invalid bad_score character code {where}")
                settings["bad_col"] = settings["bad_row"] = code
                pos = value.index(":") + 1
                if ":" in value[pos:]:
                    code, _ = _char_code(value, pos, ":", zero_ok=True)
                    if code < 0:
                        raise OptionsError(f"invalid bad_score character code {where}")
                    settings["bad_row"] = code
                    pos = value.index(":", pos) + 1
                seen.add(canon)      # (a bad_score without a character may be repeated)
            settings["bad_score"] = string_to_score(value[pos:])
            continue
        seen.add(canon)
        if canon == "seed":
            seed = _SEED_VALUES.get((key if key == "T" else "seed", value))
            if seed is None:
                raise OptionsError(f"invalid seed {where}")
            settings["seed"] = seed
        elif canon in ("ball", "bottleneck"):
            settings[canon] = value
        elif canon == "step":
            step = string_to_int(value)
            if step <= 0:
                raise OptionsError(f"invalid step {where}")
            settings["step"] = step
        else:
            v = string_to_score(value)
            if canon in ("x_drop", "y_drop") and v <= 0:
                kind = "x-drop" if canon == "x_drop" else "y-drop"
                raise OptionsError(f"invalid {kind} threshold {where}")
            settings[canon] = v

    # column labels
    cols: list[int] = []
    pos = 0
    while pos < len(header):
        c, pos = _char_code(header, pos, " ")
        if c == 0 and pos < len(header) and header[pos] == "~":
            raise OptionsError(f"scores file {path}: quantum (complemented) alphabets are "
                               "not supported by fastz")
        if c <= 0:
            raise OptionsError(f"invalid character code in {path}:line {lineno} "
                               f'at "{header[pos:]}"')
        if c in cols:
            raise OptionsError(f"duplicate character code in {path}:line {lineno} "
                               f'at "{header[pos:]}"')
        cols.append(c)
    if not cols:
        raise OptionsError(f"matrix has no column headers ({path}: line {lineno})")
    if settings.get("bad_col", -1) in cols:
        raise OptionsError("character code for bad_score can't also be a matrix column\n"
                           f"({path}: line {lineno})")

    rows: list[int] = []
    values: list[list[int]] = []
    nfields = -1
    for line in it:
        lineno += 1
        line = clean(line)
        if not line:
            continue
        fields = line.split()
        if nfields < 0:
            nfields = len(fields)
            if nfields not in (len(cols), len(cols) + 1):
                raise OptionsError(f"wrong number of score columns ({path}: line {lineno})")
        elif len(fields) != nfields:
            raise OptionsError(f"inconsistent number of score columns ({path}: line {lineno})")
        if nfields == len(cols):
            if len(rows) >= len(cols):
                raise OptionsError(f'too many score rows ({path}: line {lineno}): "{line}"')
            r = cols[len(rows)]
        else:
            r, p = _char_code(line, 0, " ")
            if r <= 0:
                raise OptionsError(f"invalid row character code ({path}: line {lineno}) {line}")
            if r in rows:
                raise OptionsError(f"duplicate row character code ({path}: line {lineno}): "
                                   f'"{line}"')
            fields = line[p:].split()
        rows.append(r)
        values.append([string_to_score(f) for f in fields])
    if nfields < 0:
        raise OptionsError(f"scores file {path} contains no score rows")
    if nfields == len(cols) and len(rows) != len(cols):
        raise OptionsError(f"not enough score rows, line ({path}: line {lineno})")
    if settings.get("bad_row", -1) in rows:
        raise OptionsError("character code for bad_score can't also be a matrix row")

    go, ge = settings.get("gap_open"), settings.get("gap_extend", HOXD70_EXTEND)
    if go is not None and go + ge <= 0:
        raise OptionsError(f" (in {path}) {go} is not a valid gap open penalty with extension "
                           f"penalty {ge}\n(open can be negative but the sum has to be positive)")
    if "gap_extend" in settings and settings["gap_extend"] < 0:
        raise OptionsError(f"{settings['gap_extend']} is not a valid gap extension penalty "
                           f"(in {path})")
    row_labels = "".join(map(chr, rows))
    col_labels = "".join(map(chr, cols))
    if not (_is_dna_alphabet(row_labels) and _is_dna_alphabet(col_labels)):
        raise OptionsError(f"scores file {path}: non-DNA (quantum) alphabets are not "
                           "supported by fastz")
    if "bottleneck" in settings:
        raise OptionsError(f"invalid bottleneck alphabet ({settings['bottleneck']} in {path}), "
                           "rows are DNA")
    return ScoresFile(np.array(values, dtype=_table_dtype()), (row_labels, col_labels),
                      settings)


def _file_scoreset(sf: ScoresFile, gap_open: int, gap_extend: int) -> ScoreSet:
    """Tables for a scores file (the tail of LASTZ ``read_score_set``)."""
    rows, cols = sf.labels
    st = sf.settings
    fill = st.get("fill_score", FILL_SCORE)
    bad = st.get("bad_score", BAD_SCORE)
    sub = np.full((256, 256), fill, dtype=_table_dtype())
    ri = [ord(c) for c in rows]
    ci = [ord(c) for c in cols]
    sub[np.ix_(ri, ci)] = sf.matrix
    # DNA columns: column label+32 copies column label, one label at a time, in file order
    # (so with an 8-letter alphabet 'A' overwrites 'a' before 'a' is copied to 0x81)
    for c in ci:
        sub[ri, c + 32] = sub[ri, c]
    col_chars = cols + "".join(c.lower() for c in cols if c.lower() not in cols)
    # DNA rows: row label+32 copies the whole row label, in file order
    for r in ri:
        sub[r + 32, :] = sub[r, :]
    row_chars = rows + "".join(c.lower() for c in rows if c.lower() not in rows)
    bad_row = st.get("bad_row", ord("X"))
    bad_col = st.get("bad_col", ord("X"))
    sub[bad_row, :] = bad
    sub[:, bad_col] = bad
    sub[0, :] = VERY_BAD_SCORE
    sub[:, 0] = VERY_BAD_SCORE
    masked = _masked_table(sub, row_chars, col_chars, bad_col)
    up_rows = "".join(c for c in rows if c.isupper())
    up_cols = "".join(c for c in cols if c.isupper())
    pr = [rows.index(c) for c in up_rows]
    pc = [cols.index(c) for c in up_cols]
    printed = sf.matrix[np.ix_(pr, pc)]
    return ScoreSet(sub, masked, _score_value(gap_open), _score_value(gap_extend), up_cols,
                    printed.copy(), up_rows, _score_value(bad), _score_value(fill), dict(st))


# --- From options -----------------------------------------------------------------------

def _check_gap(gap_open, gap_extend, open_given, extend_given, open_text, extend_text,
               strict: bool) -> None:
    if open_given and (gap_open + gap_extend <= 0 if strict else gap_open + gap_extend < 0):
        if strict:
            raise OptionsError(f"{open_text} is not a valid gap open penalty with extension "
                               f"penalty {extend_text}\n(open can be negative but the sum "
                               "has to be positive)")
        raise OptionsError(f"{open_text} is not a valid gap open penalty")
    if extend_given and gap_extend < 0:
        raise OptionsError(f"{extend_text} is not a valid gap extension penalty")


def scoreset_from_options(opts) -> ScoreSet:
    """The scoring set LASTZ builds for these options (``parse_options``).

    Source: ``--scores`` file, else ``--match``, else HOXD70; then ``<nuc><nuc>:<score>``
    special substitutions; masked table derived; then ``--ambiguous`` patches both tables
    (IUPAC first, then N).  Gap penalties: command line, else file, else derived/default.
    The returned ``settings`` hold the scores file's ``key = value`` settings, which
    ``Options.resolved`` uses for thresholds, drops, step and seed.
    """
    open_given = opts.gap_open is not None
    extend_given = opts.gap_extend is not None
    if opts.match_reward is not None and opts.scores_file is not None:
        raise OptionsError("can't use --match (or --unitscores) and --scores together")
    if opts.scores_file is not None:
        sf = load_scores_file(opts.scores_file)
        st = sf.settings
        if "ball" in st:
            raise OptionsError("--ball can't be used with DNA target and query")
        go = opts.gap_open if open_given else st.get("gap_open", HOXD70_OPEN)
        ge = opts.gap_extend if extend_given else st.get("gap_extend", HOXD70_EXTEND)
        _check_gap(go, ge, open_given, extend_given, go, ge, strict=True)
        ss = _file_scoreset(sf, go, ge)
    elif opts.match_reward is not None:
        reward = opts.match_reward
        penalty = opts.match_penalty if opts.match_penalty is not None else reward
        d = opts.double_scores
        go = opts.gap_open if open_given else derived_score(UNIT_OPEN * penalty, d)
        ge = opts.gap_extend if extend_given else derived_score(UNIT_EXTEND * penalty, d)
        if not d:
            # (lastz converts these to its 32-bit score type, C leaving the result of
            # a value past it undefined)
            for what, v in (("the X score (10 x the --match penalty)", UNIT_BAD * penalty),
                            ("the gap open penalty", go), ("the gap extension penalty", ge)):
                if not -BEST_POSSIBLE - 1 <= v <= BEST_POSSIBLE:
                    raise OptionsError(f"{what} would be {v:.0f}, more than LASTZ's 32-bit "
                                       "scores hold; use smaller scores")
        _check_gap(go, ge, True, True, go, ge, strict=False)
        unit = np.where(np.eye(4, dtype=bool), reward, -penalty).astype(_table_dtype())
        ss = _dna_scoreset(unit, UNIT_BAD * penalty, UNIT_FILL * penalty, go, ge)
    else:
        go = opts.gap_open if open_given else HOXD70_OPEN
        ge = opts.gap_extend if extend_given else HOXD70_EXTEND
        _check_gap(go, ge, open_given, extend_given, go, ge, strict=False)
        ss = _dna_scoreset(HOXD70, BAD_SCORE, FILL_SCORE, go, ge)

    if opts.special_subs:
        base = ss.sub
        special = np.array([[base[ord(r), ord(c)] for c in DNA] for r in DNA], _table_dtype())
        for r, c, v in opts.special_subs:
            special[DNA.index(r.upper()), DNA.index(c.upper())] = v
        worst = min(0, _score_value(special.min()))
        ss = _dna_scoreset(special, 10 * worst, worst, ss.gap_open, ss.gap_extend, ss.settings)

    if opts.ambiguous_iupac or opts.ambiguous_n:
        sub, masked = ss.sub.copy(), ss.masked.copy()
        rows_full = ss.rows + "".join(c.lower() for c in ss.rows if c.lower() not in ss.rows)
        cols_full = ss.labels + "".join(c.lower() for c in ss.labels
                                        if c.lower() not in ss.labels)
        n_vs_n, n_vs_other = opts.ambiguous_reward, -opts.ambiguous_penalty
        # the unmasked set iterates over all its labels, the masked set over upper case only
        tables = ((sub, rows_full, cols_full), (masked, ss.rows, ss.labels))
        if opts.ambiguous_iupac:
            for t, r, c in tables:
                _ambiguate_iupac(t, r, c, n_vs_n, n_vs_other)
        for t, r, c in tables:
            _ambiguate_n(t, r, c, n_vs_n, n_vs_other)
        ss = ScoreSet(sub, masked, ss.gap_open, ss.gap_extend, ss.labels, ss.matrix,
                      ss.row_labels, ss.bad_score, ss.fill_score, ss.settings)
    return _settled(ss)
