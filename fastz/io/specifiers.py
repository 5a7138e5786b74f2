"""Sequence specifiers: ``[nickname::]file[/select][{mask}][[actions]]*[-|+]``.

Mirrors LASTZ's ``sequences.c parse_sequence_name``: the same split into parts, the
same action spellings (including the aliases LASTZ accepts), the same subrange
arithmetic (unsigned 32-bit wrap, single-precision ``K``/``M`` sizes, zoom) and the
same error texts, reported as one-line :class:`~fastz.errors.InputError` messages.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cscan import FLOAT, INT, float_value, to_u32
from ..errors import InputError

#: LASTZ's largest loadable sequence (31-bit positions, minus its overrun margin).
MAX_SEQUENCE_LEN = (1 << 31) - 11

#: names accepted by ``format=`` (LASTZ's seqTypeNames, minus the two internal ones).
FILE_FORMATS = ("fasta", "fastq", "csfasta", "nib", "2bit", "hsx", "qdna")


@dataclass
class SeqSpec:
    """A parsed sequence specifier (what LASTZ's parse_sequence_name returns)."""

    spec: str                          # the specifier as given
    path: str                          # file name: what LAV's s stanza prints
    nickname: str | None = None        # from ``nick::`` or ``nickname=``
    select: str | None = None          # ``file.2bit/name``: the one sequence to load
    start: int = 0                     # 1-based first position wanted (0 = from the start)
    end: int = 0                       # 1-based last position wanted, inclusive (0 = to the end)
    end_soft: bool = False             # end may be clipped to the sequence length
    revcomp: bool = False              # trailing '-', ``revcomp`` or start > end
    backward: bool = False             # unadvertised ``backward`` action (reverse only)
    multiple: bool = False             # ``multiple``: all sequences joined into one
    separator: str | None = None       # ``separator=<ch>``: split at this character
    subset: str | None = None          # ``subset=<file>`` / ``@<file>``: names to keep
    chores: str | None = None          # ``chores=<file>``: alignment chores (query only)
    subsample: tuple[int, int] | None = None   # ``subsample=k/n``
    unmask: bool = False
    softmask: str | None = None
    softmask_keep: bool = False        # ``softmask=keep:<file>``: mask the complement
    xmask: str | None = None           # ``xmask=`` or ``{file}``
    xmask_keep: bool = False
    nmask: str | None = None
    nmask_keep: bool = False
    full_names: bool = False           # ``nameparse=full``
    name_parse: str = "core"           # core | alphanum | darkspace | tag
    name_trigger: str | None = None    # ``nameparse=tag:<marker>``
    namejoin: bool = False             # ``namejoin``: white space in names -> '_'
    format: str | None = None          # ``format=<type>``

    @property
    def partitioned(self) -> bool:
        """LASTZ's doPartitioning: ``multiple`` or a separator."""
        return self.multiple or self.separator is not None

    @property
    def nameparse(self) -> str:
        """The naming mode in the spelling of the action (full, alphanum, darkspace, tag:X)."""
        if self.full_names:
            return "full"
        if self.name_parse == "tag":
            return f"tag:{self.name_trigger}"
        return self.name_parse


# --- sscanf emulation (the subrange forms are tried with sscanf in LASTZ) ---------------


def _scan(fmt: list, text: str) -> tuple[list, bool]:
    """Match ``text`` against ``fmt`` (literals and 'u'/'f' conversions) like sscanf.

    Returns the values converted before the first failure (sscanf assigns those even
    when a later part fails) and whether the whole of ``text`` was consumed.
    """
    pos, values = 0, []
    for item in fmt:
        if item == "u":
            m = INT.match(text, pos)
            if m is None:
                return values, False
            v = int(m.group(1))             # strtoul: wraps negatives, saturates at 2^64-1
            v = min(v, (1 << 64) - 1) if v >= 0 else v
            values.append(to_u32(v))
            pos = m.end()
        elif item == "f":
            m = FLOAT.match(text, pos)
            if m is None:
                return values, False
            values.append(float(np.float32(float_value(m.group(1)))))
            pos = m.end()
        else:
            if not text.startswith(item, pos):
                return values, False
            pos += len(item)
    return values, pos == len(text)


def _f32(x) -> np.float32:
    return np.float32(x)


# --- the parser -------------------------------------------------------------------


def parse_specifier(spec: str) -> SeqSpec:
    """Parse a LASTZ sequence specifier (``parse_sequence_name``)."""
    if spec is None:
        raise InputError("sequence specifier is missing")
    name = spec
    dcolon = name.find("::")
    bracket = name.find("[")
    nickname = None
    if dcolon < 0 or (bracket >= 0 and dcolon > bracket):
        fname = name
    else:
        if dcolon == 0:
            raise InputError(f"(for {name[2:]}) empty nickname")
        nickname = name[:dcolon]
        fname = name[dcolon + 2:]

    if len(fname) < 1:
        raise InputError(f'sequence file name is absent from "{spec}"')
    out = SeqSpec(spec=spec, path="", nickname=nickname)
    if fname.endswith("-"):
        out.revcomp = True
        fname = fname[:-1]
    elif fname.endswith("+"):
        fname = fname[:-1]
    if len(fname) < 1:
        raise InputError(f'sequence file name is absent from "{spec}"')

    # split into file name, {mask} and [actions]
    mask_at = fname.find("{")
    bracket_at = fname.find("[")
    if mask_at >= 0 and bracket_at >= 0 and mask_at > bracket_at:
        mask_at = -1
    if mask_at == 0:
        raise InputError(f'sequence file name is absent from "{spec}"')
    mask = None
    if mask_at >= 0:
        fname, mask = fname[:mask_at], fname[mask_at + 1:]
        rest = mask
    else:
        rest = fname
    act_at = rest.find("[")
    if act_at == 0 and mask is None:
        raise InputError(f'sequence file name is absent from "{spec}"')
    actions = None
    if act_at >= 0:
        actions = rest[act_at + 1:]
        if mask is None:
            fname = rest[:act_at]
        else:
            mask = rest[:act_at]

    if mask is not None:
        if not mask.endswith("}"):
            raise InputError(f"(for {fname}) mask name needs closing }} ({mask})")
        if len(mask) == 1:
            raise InputError(f"(for {fname}) use [unmask] instead of {{}}")
        out.xmask = mask[:-1]

    # file.2bit/name (or file.hsx/name) selects one sequence
    slash = -1
    ext = fname.find(".2bit/")
    if ext >= 0:
        slash = ext + 5
    else:
        ext = fname.find(".hsx/")
        if ext >= 0:
            slash = ext + 4
    if slash >= 0:
        tail = fname[slash + 1:]
        if "/" not in tail and ".2bit" not in tail:
            out.select = tail
            fname = fname[:slash]
    out.path = fname

    if actions is not None:
        _parse_actions(out, fname, actions)
    if out.select is not None and out.subset is not None:
        raise InputError(f"(for {fname}) can't use these together: {out.select} {out.subset}")
    return out


def _parse_actions(out: SeqSpec, fname: str, actions: str) -> None:
    """The ``[...]`` part, without its opening bracket."""
    if len(actions) == 0:
        raise InputError(f"(for {fname}) bad action list")
    if not actions.endswith("]"):
        if "]" not in actions:
            raise InputError(f"(for {fname}) bad action list")
        raise InputError(f"(for {fname}[{actions}) the action list is not at the end of the "
                         "sequence specifier (perhaps a space is missing after the closing ']')")
    actions = actions[:-1]

    st = {"start": 0, "end": 0, "pending": 0, "rev": False}
    rest: str | None = actions
    while rest is not None:
        action = rest
        comma = rest.find(",")
        if comma >= 0:
            action, rest = rest[:comma], rest[comma + 1:]
        else:
            join = rest.find("][")
            if join >= 0:
                action, rest = rest[:join], rest[join + 2:]
            else:
                rest = None
        if len(action) == 0:
            raise InputError(f"(for {fname}) blank action")
        if _simple_action(out, fname, action, st):
            continue
        _limits_action(out, fname, action, st)

    if st["pending"] != 0:
        raise InputError(f"(for {fname}) incomplete limits ({st['pending']})")
    start, end = st["start"], st["end"]
    if start != 0 and end != 0 and start > end:
        start, end = end, start
        out.revcomp = not out.revcomp
    out.start, out.end = start, end


def _simple_action(out: SeqSpec, fname: str, action: str, st: dict) -> bool:
    """Every non-subrange action; False if ``action`` is not one of them."""

    def no_pending():
        if st["pending"] != 0:
            raise InputError(f"(for {fname}) incomplete limits ({st['pending']},{action})")

    def value_after(prefix):
        return action[len(prefix):]

    if action == "unmask":
        no_pending()
        out.unmask = True
    elif action == "revcomp":
        no_pending()
        out.revcomp = not out.revcomp
    elif action in ("backward", "backwards"):
        no_pending()
        out.backward = not out.backward
    elif action in ("multi", "multiple"):
        no_pending()
        out.multiple = True
    elif action.startswith("sep=") or action.startswith("separator="):
        ch = value_after("sep=" if action.startswith("sep=") else "separator=")
        no_pending()
        if len(ch) == 0:
            raise InputError(f"(for {fname}) separator=<ch> requires a character")
        if len(ch) > 1:
            raise InputError(f"(for {fname}) bad separator, separator={ch}, "
                             "only one character allowed")
        if out.separator is not None:
            raise InputError(f"(for {fname}) only one separator allowed: "
                             f"separator={out.separator} separator={ch}")
        out.separator = ch
    elif action in ("nameparse=full", "fullname", "fullnames"):
        no_pending()
        out.full_names = True
    elif action.startswith("@") or action.startswith("subset="):
        names = action[1:] if action.startswith("@") else value_after("subset=")
        no_pending()
        if out.subset is not None:
            raise InputError(f"(for {fname}) only one names file allowed: "
                             f"subset={out.subset} subset={names}")
        if len(names) == 0:
            raise InputError(f"(for {fname}) subset= requires a names file")
        out.subset = names
    elif action.startswith("chores="):
        no_pending()
        chores = value_after("chores=")
        if out.chores is not None:
            raise InputError(f"(for {fname}) only one chores file allowed: "
                             f"chores={out.chores} chores={chores}")
        if not chores:
            raise InputError(f"(for {fname}) chores= requires a chores file")
        out.chores = chores
    elif action.startswith("subsample="):
        no_pending()
        _subsample(out, fname, value_after("subsample="))
    elif action in ("nameparse=alnum", "nameparse=alphanum", "name:alnum", "name:alphanum"):
        no_pending()
        if out.name_trigger is not None:
            raise InputError(f"(for {fname}) only one name parsing allowed")
        out.name_parse = "alphanum"
    elif action == "nameparse=darkspace":
        no_pending()
        if out.name_trigger is not None:
            raise InputError(f"(for {fname}) only one name parsing allowed")
        out.name_parse = "darkspace"
    elif action.startswith("nickname="):
        nick = value_after("nickname=")
        no_pending()
        if out.nickname is not None:
            raise InputError(f"(for {fname}) only one nickname allowed: "
                             f"nickname={out.nickname} nickname={nick}")
        if len(nick) == 0:
            raise InputError(f"(for {fname}) nickname= requires a non-empty string")
        out.nickname = nick
    elif action.startswith("name=") or action.startswith("nameparse=tag:"):
        tag = value_after("name=" if action.startswith("name=") else "nameparse=tag:")
        no_pending()
        if out.name_trigger is not None:
            raise InputError(f"(for {fname}) only one name trigger allowed: "
                             f"nameparse=tag:{out.name_trigger} nameparse=tag:{tag}")
        if len(tag) == 0:
            raise InputError(f"(for {fname}) nameparse=tag: requires a non-empty string")
        if out.name_parse != "core":
            raise InputError(f"(for {fname}) only one name parsing allowed")
        out.name_parse = "tag"
        out.name_trigger = tag
    elif action == "namejoin":
        out.namejoin = True
    elif _mask_action(out, fname, action, no_pending):
        pass
    elif action == "quantum" or action.startswith("quantum="):
        no_pending()
        raise InputError(f'(for {fname}) action "{action}" (quantum DNA) '
                         "is not supported by fastz")
    elif action.startswith("format="):
        kind = value_after("format=")
        no_pending()
        if out.format is not None:
            raise InputError(f"(for {fname}) more than one file type is defined")
        if kind not in FILE_FORMATS:
            raise InputError(f"(for {fname}) unknown file format: {kind}")
        out.format = kind
    else:
        return False
    return True


_MASK_ACTIONS = (
    # prefix, field, keep
    ("soft=keep:", "softmask", True), ("softmask=keep:", "softmask", True),
    ("soft=", "softmask", False), ("softmask=", "softmask", False),
    ("xmask=keep:", "xmask", True), ("xmask=", "xmask", False),
    ("nmask=keep:", "nmask", True), ("nmask=", "nmask", False),
)


def _mask_action(out: SeqSpec, fname: str, action: str, no_pending) -> bool:
    for prefix, kind, keep in _MASK_ACTIONS:
        if action.startswith(prefix):
            path = action[len(prefix):]
            no_pending()
            if getattr(out, kind) is not None:
                raise InputError(f"(for {fname}) only one {kind} allowed: "
                                 f"{kind}={getattr(out, kind)} {kind}={path}")
            if len(path) == 0:
                raise InputError(f"(for {fname}) {kind}= or {kind}=keep: "
                                 "require a non-empty string")
            setattr(out, kind, path)
            setattr(out, kind + "_keep", keep)
            return True
    return False


def _subsample(out: SeqSpec, fname: str, value: str) -> None:
    bad = InputError(f'(for {fname}) bad subsample "{value}"')
    if out.subsample is not None:
        raise InputError(f"(for {fname}) only one subsampling allowed: "
                         f"subsample={out.subsample[0]}/{out.subsample[1]} subsample={value}")
    if "/" not in value:
        raise bad
    k_text, n_text = value.split("/", 1)
    kv, kok = _scan(["u"], k_text)
    nv, nok = _scan(["u"], n_text)
    if not (kok and nok) or kv[0] < 1 or nv[0] < kv[0]:
        raise bad
    out.subsample = (kv[0], nv[0])


# subrange forms, in the order LASTZ tries them: (scanf format, variables it stores into)
_LIMIT_FORMS = [
    (["u", "..", "u"], ("start", "end"), "dots"),
    (["u", "..", "u", "+", "f", "%"], ("start", "end", "zoom"), "zoom"),
    (["u", ",", "u"], ("start", "end"), "dots"),
    (["u", "#", "u"], ("start", "end"), "len1"),
    (["u", "#", "u", "K"], ("start", "end"), "lenK"),
    (["u", "#", "f", "K"], ("start", "size"), "lenfK"),
    (["u", "#", "u", "M"], ("start", "end"), "lenM"),
    (["u", "#", "f", "M"], ("start", "size"), "lenfM"),
    (["u", "^", "u"], ("start", "end"), "center1"),
    (["u", "^", "u", "K"], ("start", "end"), "centerK"),
    (["u", "^", "f", "K"], ("start", "size"), "centerfK"),
    (["u", "^", "u", "M"], ("start", "end"), "centerM"),
    (["u", "^", "f", "M"], ("start", "size"), "centerfM"),
    (["u", ".."], ("start",), "from"),
    (["..", "u"], ("end",), "to"),
]

_SCALE = {"1": 1, "K": 1000, "M": 1000 * 1000}


def _limits_action(out: SeqSpec, fname: str, action: str, st: dict) -> None:
    """A subrange action (or a lone number, half of ``start,end``)."""
    if st["start"] != 0 or st["end"] != 0:
        raise InputError(f'(for {fname}) bad action "{action}"')
    values, whole = _scan(["u"], action)
    if whole:
        if values[0] == 0:
            raise InputError(f'(for {fname}) bad limit "{action}"')
        if st["pending"] == 0:
            st["pending"] = values[0]
        else:
            st["start"], st["end"], st["pending"] = st["pending"], values[0], 0
        return
    if st["pending"] != 0:
        raise InputError(f"(for {fname}) incomplete limits ({st['pending']},{action})")

    bad_limits = InputError(f'(for {fname}) bad limits "{action}"')
    for fmt, slots, kind in _LIMIT_FORMS:
        values, whole = _scan(fmt, action)
        for slot, v in zip(slots, values):      # sscanf keeps what it converted
            st[slot] = v
        if not whole:
            continue
        start, end = st["start"], st["end"]
        if kind == "from":
            if start == 0:
                raise bad_limits
        elif kind == "to":
            if end == 0:
                raise bad_limits
        else:
            if start == 0 or end == 0:
                raise bad_limits
            start, end = _limit_arithmetic(kind, start, end, st, bad_limits)
            if kind != "dots":
                out.end_soft = True
        st["start"], st["end"] = start, end
        return
    raise InputError(f'(for {fname}) bad action "{action}"')


def _float_size(kind: str, size) -> int:
    """``(size * 1000 [* 1000]) + 1`` in single precision, truncated to unsigned."""
    scaled = _f32(_f32(size) * _f32(1000))
    if kind.endswith("M"):
        scaled = _f32(scaled * _f32(1000))
    return to_u32(float(_f32(scaled + _f32(1))))


def _limit_arithmetic(kind, start, end, st, bad_limits):
    """Start/end of a matched subrange form, with LASTZ's unsigned/float arithmetic."""
    if kind == "dots":
        return start, end
    if kind == "zoom":
        if end < start:
            raise bad_limits
        length = to_u32(end + 1 - start)
        mid = to_u32(start + length // 2)
        zoom = _f32(1 + (float(st["zoom"]) / 100.0))
        f_length = _f32(_f32(length) * zoom)
        length = to_u32(float(f_length))
        half = _f32(f_length / _f32(2))
        if _f32(_f32(mid) - half) <= 1:
            start = 1
        else:
            start = to_u32(1 + to_u32(mid - length // 2))
        if _f32(_f32(mid) + half) >= _f32(MAX_SEQUENCE_LEN):
            end = MAX_SEQUENCE_LEN
        else:
            end = to_u32(mid + length // 2)
        return start, end
    if "f" in kind:
        end = _float_size(kind, st["size"])
    else:
        end = to_u32(end * _SCALE[kind[-1]])
    if kind.startswith("len"):
        return start, to_u32(end + start - 1)
    start = to_u32(start - end // 2)             # center^length
    end = to_u32(end + start - 1)
    if start < 1:
        start = 1
    return start, end
