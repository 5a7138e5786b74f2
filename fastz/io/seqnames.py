"""Sequence names: short names from headers, nicknames, and the names-file reader.

Mirrors LASTZ's ``sequences.c`` ``create_short_header``, ``shorten_header``,
``expand_nickname``, ``whitespace_to_under`` and ``read_contig_name``.  White space
means C's ``isspace`` in the C locale (space, tab, LF, VT, FF, CR).
"""
from __future__ import annotations

import re

from ..errors import InputError

_SPACE = " \t\n\v\f\r"
_ALNUM = re.compile(r"[A-Za-z0-9_]*")
_CORE_STOP = re.compile(r"[ \t|:]")
_DARK_STOP = re.compile(r"[ \t]")
_SUFFIXES = (".nib", ".2bit", ".hsx", ".fasta", ".fa")
#: the headers LASTZ itself writes for reversed or sliced sequences
_LASTZ_PREFIXES = ("reverse complement of ", "positions ")


def _skip_space(s: str) -> str:
    return s.lstrip(_SPACE)


def _skip_dark(s: str) -> str:
    for i, ch in enumerate(s):
        if ch in _SPACE:
            return s[i:]
    return ""


def whitespace_to_under(s: str) -> str:
    """``namejoin``: every white-space character becomes '_'."""
    return "".join("_" if ch in _SPACE else ch for ch in s) if any(
        ch in _SPACE for ch in s) else s


def shorten_header(header: str, name_parse: str = "core", skip_path: bool = False,
                   namejoin: bool = False) -> str:
    """The short name LASTZ derives from a header (``shorten_header``)."""
    # (called for every record: a read's header mostly takes no branch)
    h = (header[1:] if header.startswith(">") else header).lstrip(_SPACE)
    if h.startswith(_LASTZ_PREFIXES):
        prefix = "reverse complement of "
        if h.startswith(prefix):
            h = _skip_space(h[len(prefix):])
        prefix = "positions "
        if h.startswith(prefix):
            hh = _skip_space(_skip_dark(_skip_space(h[len(prefix):])))
            if hh.startswith("of "):
                h = _skip_space(hh[3:])
    if skip_path:
        h = _skip_space(h[h.rfind("/") + 1:])
    if name_parse == "alphanum":
        name = _ALNUM.match(h).group(0)
    else:
        stop = (_DARK_STOP if name_parse == "darkspace" else _CORE_STOP).search(h)
        name = h if stop is None else h[:stop.start()]
        if name.endswith(_SUFFIXES):
            for suffix in _SUFFIXES:
                if len(name) > len(suffix) and name.endswith(suffix):
                    name = name[:-len(suffix)]
    return whitespace_to_under(name) if namejoin else name


def expand_nickname(template: str, number: int) -> str:
    """``{number}`` in a header becomes the record number (``expand_nickname``).

    LASTZ only drops the placeholder when it is not at the very start; at the start
    the number is prefixed to the untouched template.  That is kept here.
    """
    at = template.find("{number}")
    if at > 0:
        return template[:at] + str(number) + template[at + len("{number}"):]
    return str(number) + template


def short_name(header: str | None, contig: int, name_parse: str, namejoin: bool,
               skip_path: bool) -> str:
    """LASTZ's shortHeader for a loaded record (``create_short_header``)."""
    if header is None:
        return ""
    if "{number}" in header:
        return expand_nickname(header, contig)
    return shorten_header(header, name_parse, skip_path, namejoin)


def subset_match_name(line: str, spec) -> str | None:
    """Name a FASTA/FASTQ header line is compared by in a ``[subset]`` search.

    ``line`` is the header text after '>' (or '@'); None when it has no name.
    """
    if spec.name_trigger is not None:
        at = line.find(spec.name_trigger)
        if at < 0:
            return None
        return _ALNUM.match(line, at + len(spec.name_trigger)).group(0)
    name = line if spec.full_names else shorten_header(line, spec.name_parse, False,
                                                        spec.namejoin)
    return whitespace_to_under(name) if spec.namejoin else name


def read_names_file(path: str) -> list[str]:
    """Names from a ``[subset=file]`` file (``read_contig_name``), in file order.

    One name per line: the first word; '#' starts a comment at the start of a line or
    after a blank; blank lines are ignored; names are cut to 255 bytes as LASTZ does.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(f'failed to open "{path}" for "rt" ({exc.strerror})') from None
    names = []
    for raw in data.split(b"\n"):
        line = raw[:255].decode("utf-8", "surrogateescape")
        cut = _comment_at(line)
        if cut >= 0:
            line = line[:cut]
        line = line.strip(" \t\n")              # (LASTZ's trim_string: blanks and LF only)
        if not line:
            continue
        names.append(line[:len(line) - len(_skip_dark(line))])
    return names


def _comment_at(line: str) -> int:
    at = line.find("#")
    while at >= 0:
        if at == 0 or line[at - 1] in " \t":
            return at
        at = line.find("#", at + 1)
    return -1
