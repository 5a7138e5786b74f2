"""fastz compare: identical / reordered / missing / extra / version-token-only files.

Inputs are real lastz outputs, e.g. ``lastz pseudocat.fa pseudopig.fa --format=axt``,
edited in small ways.
"""
from __future__ import annotations

import re

import pytest

from conftest import run_lastz
from fastz.compare import compare, compare_texts, detect_format, main

FORMATS = ["lav", "axt", "maf", "maf+", "general", "general-", "segments", "sam", "paf",
           "cigar", "text"]


@pytest.fixture(scope="module")
def outputs(lastz_data):
    out = {}
    for fmt in FORMATS:
        extra = ["--nogapped"] if fmt == "segments" else []
        out[fmt] = run_lastz(["pseudocat.fa", "pseudopig.fa", *extra, f"--format={fmt}"],
                             cwd=lastz_data).decode()
    return out


@pytest.mark.parametrize("fmt,expected", [
    ("lav", "lav"), ("axt", "axt"), ("maf", "maf"), ("maf+", "maf"), ("general", "general"),
    ("general-", "general"), ("segments", "segments"), ("sam", "sam"), ("paf", "paf"),
    ("cigar", "cigar"), ("text", "text")])
def test_detect_format(outputs, fmt, expected):
    assert detect_format(outputs[fmt]) == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_identical_and_version_token(outputs, fmt, tmp_path, capsys):
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.write_text(outputs[fmt])
    b.write_text(outputs[fmt].replace("lastz.v1.04.22", "fastz.v0.1.0"))
    assert main(str(a), str(b)) == 0
    assert capsys.readouterr().out.strip() == "identical"
    res = compare(a, b)
    assert res.identical and res.same_set and res.same_order


def test_lav_command_line_ignored(outputs):
    a = outputs["lav"]
    b = a.replace('"lastz.v1.04.22 pseudocat.fa pseudopig.fa',
                  '"fastz.v0.1.0 /x/cat.fa /y/pig.fa --foo')
    assert b != a
    assert compare_texts(a, b).identical
    # ... but not elsewhere
    c = a.replace("  O = 400, E = 30", "  O = 401, E = 30")
    res = compare_texts(a, c)
    assert not res.identical and not res.same_set and res.frame_diff


def test_lav_reordered_missing_extra(outputs):
    a = outputs["lav"]
    lines = a.splitlines(keepends=True)
    starts = [k for k, ln in enumerate(lines) if ln == "a {\n"]
    ends = [lines.index("}\n", k) + 1 for k in starts]
    # two adjacent a stanzas of one strand
    k = next(n for n in range(len(starts) - 1) if ends[n] == starts[n + 1])
    s0, s1, s2 = starts[k], starts[k + 1], ends[k + 1]
    swapped = "".join(lines[:s0] + lines[s1:s2] + lines[s0:s1] + lines[s2:])
    res = compare_texts(a, swapped)
    assert not res.identical and res.same_set and not res.same_order
    assert res.first_out_of_order == k
    assert "different order" in res.summary()
    dropped = "".join(lines[:s0] + lines[s1:])
    res = compare_texts(a, dropped)
    assert len(res.missing) == 1 and not res.extra and res.n_b == res.n_a - 1
    assert "1 missing from B, 0 extra in B" in res.summary()
    assert "".join(lines[s0:s1]).rstrip("\n") in res.missing[0]
    res = compare_texts(dropped, a)
    assert len(res.extra) == 1 and not res.missing
    assert "0 missing from B, 1 extra in B" in res.summary()


@pytest.mark.parametrize("fmt", ["general-", "segments", "paf", "cigar", "sam"])
def test_line_formats_reordered_missing_extra(outputs, fmt, tmp_path, capsys):
    lines = outputs[fmt].splitlines(keepends=True)
    head = [ln for ln in lines if ln.startswith(("#", "@"))]
    body = [ln for ln in lines if not ln.startswith(("#", "@"))]
    a = outputs[fmt]
    rev = "".join(head + body[::-1])
    res = compare_texts(a, rev)
    assert res.same_set and not res.same_order and res.first_out_of_order == 0
    miss = "".join(head + body[1:])
    res = compare_texts(a, miss)
    assert res.missing == [body[0].rstrip("\n")] and res.extra == []
    extra = "".join(head + body + [body[0]])
    res = compare_texts(a, extra)
    assert res.extra == [body[0].rstrip("\n")] and res.missing == []
    pa, pb = tmp_path / "a", tmp_path / "b"
    pa.write_text(a)
    pb.write_text(miss)
    assert main(str(pa), str(pb)) == 1
    assert "1 missing from B" in capsys.readouterr().out


def _blocks(text: str, fmt: str) -> tuple[list[str], list[int]]:
    lines = text.splitlines(keepends=True)
    if fmt == "axt":
        starts = [k for k, ln in enumerate(lines) if re.match(r"\d+ ", ln)]
    elif fmt == "maf+":
        starts = [k for k, ln in enumerate(lines) if ln.startswith("# identity=")]
    else:
        starts = [k for k, ln in enumerate(lines) if ln.startswith("a score=")]
    return lines, starts


def _renumber(lines: list[str], fmt: str) -> str:
    if fmt != "axt":
        return "".join(lines)
    out, n = [], 0
    for ln in lines:
        if re.match(r"\d+ ", ln):
            ln = f"{n} " + ln.split(" ", 1)[1]
            n += 1
        out.append(ln)
    return "".join(out)


@pytest.mark.parametrize("fmt", ["axt", "maf", "maf+"])
def test_block_formats_reordered_missing(outputs, fmt):
    a = outputs[fmt]
    lines, (s0, s1, s2, *_) = _blocks(a, fmt)
    swapped = _renumber(lines[:s0] + lines[s1:s2] + lines[s0:s1] + lines[s2:], fmt)
    res = compare_texts(a, swapped)
    assert not res.identical and res.same_set and not res.same_order
    assert res.n_a == res.n_b == 14
    dropped = _renumber(lines[:s0] + lines[s1:], fmt)
    res = compare_texts(a, dropped)
    assert len(res.missing) == 1 and not res.extra and not res.frame_diff
    assert res.missing[0].split("\n")[0] in "".join(lines[s0:s1]).replace("0 cat", "cat")
