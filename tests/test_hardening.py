"""Hardening (issue 8, docs/hardening.md): bad input, faults, limits, determinism, fuzz.

Every bad input gives one line ``fastz: <message>``, exit 1, nothing on stdout and no
output file; every odd input LASTZ accepts gives LASTZ's bytes.  The real lastz runs
beside fastz in each case (tiny inputs: milliseconds).  fastz runs in this process
(``fastz.cli.main``) where it can, in a subprocess where real file descriptors or
signals are the point.
"""
from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import LASTZ, PAIRS, drop_version
from fastz.cli import main as fastz_main

# --- inputs -------------------------------------------------------------------------

_RNG = np.random.default_rng(20240817)
_ACGT = np.frombuffer(b"ACGT", np.uint8)


def _random_dna(n: int) -> bytes:
    return _ACGT[_RNG.integers(0, 4, n)].tobytes()


def _mutated(seq: bytes, every: int = 37) -> bytes:
    s = bytearray(seq)
    for i in range(0, len(s), every):
        s[i] = b"ACGT"[(b"ACGT".index(s[i]) + 1) % 4]
    return bytes(s)


TARGET = _random_dna(3000)
QUERY = _mutated(TARGET[500:2500])


def fasta(records, width: int = 60, eol: bytes = b"\n") -> bytes:
    out = []
    for header, seq in records:
        out.append(b">" + header + eol)
        out += [seq[i:i + width] + eol for i in range(0, len(seq), width)]
    return b"".join(out)


def _twobit_v1(v0: bytes) -> bytes:
    """The same 2bit file with version 1's 64-bit index offsets."""
    e = "<" if struct.unpack("<I", v0[:4])[0] == 0x1A412743 else ">"
    magic, _, count, _ = struct.unpack(e + "IIII", v0[:16])
    pos, index = 16, []
    for _ in range(count):
        n = v0[pos]
        name, off = v0[pos + 1:pos + 1 + n], struct.unpack(e + "I", v0[pos + 1 + n:pos + 5 + n])[0]
        index.append((name, off))
        pos += 5 + n
    out = struct.pack(e + "IIII", magic, 1, count, 0)
    for name, off in index:
        out += bytes([len(name)]) + name + struct.pack(e + "Q", off + 4 * count)
    return out + v0[pos:]


def _files() -> dict[str, bytes]:
    q = QUERY
    cr_lines = b"\r".join(q[i:i + 60] for i in range(0, len(q), 60))
    return {
        "t.fa": fasta([(b"tgt", TARGET)]),
        "q.fa": fasta([(b"qry", q)]),
        "q2.fa": fasta([(b"q1", q), (b"q2", q[::-1])]),
        "empty.fa": b"",
        "onlyhdr.fa": b">a\n",
        "emptyrecs.fa": b">a\n>b\n\n",
        "seqfirst.fa": b"ACGT\n" + fasta([(b"tgt", TARGET)]),
        "badchar.fa": fasta([(b"q", q[:1000] + b"J" + q[1000:])]),
        "iupac.fa": fasta([(b"q", q[:1000] + b"R" + q[1000:])]),
        "star.fa": fasta([(b"q", q[:1000] + b"*" + q[1000:])]),
        "dash.fa": fasta([(b"q", q[:1000] + b"---" + q[1000:])]),
        "nul.fa": fasta([(b"q", q[:1000] + b"\0" + q[1000:])]),
        "rna.fa": fasta([(b"q", q.replace(b"T", b"U"))]),
        "comment.fa": b";comment\n" + fasta([(b"q", q)]),
        "badlast.fa": fasta([(b"q1", q), (b"q2", q[:500] + b"J" + q[500:])]),
        "fqshort.fq": b"@q\n" + q + b"\n+\n" + b"I" * (len(q) - 5) + b"\n",
        "fqeof.fa": b"@q\n" + q + b"\n",
        "dir.fa/x": b"",
        "trunc.fa.gz": gzip.compress(fasta([(b"qry", q)]))[:300],
        "junk.fa.gz": b"\x1f\x8b" + bytes(range(256)),
        "bad.2bit": b"\x43\x27\x41\x1a" + b"\x00" * 3,
        # accepted: odd but valid
        "t_crlf.fa": fasta([(b"tgt", TARGET)], eol=b"\r\n"),
        "q_crlf.fa": fasta([(b"qry", q)], eol=b"\r\n"),
        "q_cr.fa": b">q\r" + cr_lines + b"\r",
        "t_cr.fa": b">t\r" + b"\r".join(TARGET[i:i + 60] for i in range(0, 3000, 60)) + b"\r",
        "q_oneline.fa": b">qry\n" + q + b"\n",
        "q_longhdr.fa": b">" + b"x" * 2000 + b"\n" + q + b"\n",
        "q_nohdr.fa": q + b"\n",
        "q_noeol.fa": b">q\n" + q,
        "q_blank.fa": b"\n\n>q\n\n" + q[:1000] + b"\n\n" + q[1000:] + b"\n\n",
        "q_emptyname.fa": b">\n" + q + b"\n",
        "q_dup.fa": fasta([(b"qry", q), (b"qry", q)]),
        "q_digits.fa": b">q\n" + b"".join(b"%d " % i + q[i:i + 60] + b"\n"
                                        for i in range(0, len(q), 60)),
        "q_spaces.fa": b">q\n" + b" ".join(q[i:i + 50] for i in range(0, len(q), 50)) + b"\n",
        "q_emptyrec.fa": b">a\n>b\n" + q + b"\n",
        "q_tabhdr.fa": b">a\tb c\n" + q + b"\n",
        "q_utf8.fa": ">qé名\n".encode() + q + b"\n",
        "q_x.fa": fasta([(b"q", q[:1000] + b"XXXX" + q[1000:])]),
        "q_lower.fa": fasta([(b"q", q.lower())]),
        "t_lower.fa": fasta([(b"tgt", TARGET.lower())]),
        "q_allN.fa": fasta([(b"q", b"N" * 2000)]),
        "t_allN.fa": fasta([(b"tgt", b"N" * 3000)]),
        "q_n.fa": fasta([(b"q", q[:1000] + b"nnnnn" + q[1000:])]),
        "q.fq": b"@q\n" + q + b"\n+\n" + b"I" * len(q) + b"\n",
        # --scores / --segments
        "sc_short.txt": b"A C G T\n91 -114 -31 -123\n-114 100 -125 -31\n",
        "sc_nonnum.txt": b"A C G T\nA 91 -114 -31 -123\nC -114 100 -125 -31\n"
                         b"G -31 -125 100 -114\nT -123 -31 -114 xx\n",
        "sc_badgap.txt": b"gap_open_penalty = abc\n",
        "sc_unknown.txt": b"bogus_setting = 5\n",
        "sc_bin.txt": b"\xff\xfe\x00garbage\n",
        "sc_empty.txt": b"",
        "sc_ok.txt": b"O = 400\nE = 30\nA C G T\n 91 -114 -31 -123\n-114 100 -125 -31\n"
                     b"-31 -125 100 -114\n-123 -31 -114 91\n",
        "seg_badfield.txt": b"tgt 502 2498 q1 2 1998 + 184312\ntgt 1 10 q2 1 10 + xx\n",
        "seg_few.txt": b"tgt 502 2498 q1 2 1998 + 184312\ntgt 1 10 q2 1\n",
        "seg_len.txt": b"tgt 1 10 q1 1 10 + 5\ntgt 1 10 q1 1 10000 + 5\n",
        "seg_extra.txt": b"tgt 502 2498 q1 2 1998 + 184312\ntgt 1 10 q9 1 10 + 5\n",
        "seg_ok.txt": b"tgt 502 2498 q1 2 1998 + 184312\n",
        "seg_notutf8.txt": b"tgt 502 2498 q1 2 1998 + 184312\ntgt 1 1\xff0 q2 1 10 + 5\n",
    }


def write_files(where: Path) -> Path:
    for name, data in _files().items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not name.endswith("/x"):
            path.write_bytes(data)
    return where


@pytest.fixture
def work(tmp_path) -> Path:
    return write_files(tmp_path)


# --- running both programs ----------------------------------------------------------


def lastz(args, cwd, stdin=None):
    if LASTZ is None:
        pytest.fail("lastz is not installed")
    res = subprocess.run([LASTZ, *args], cwd=cwd, input=stdin, capture_output=True,
                         timeout=120)
    return res.returncode, res.stdout, res.stderr.decode("utf-8", "replace")


@contextlib.contextmanager
def _inside(cwd):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(old)


def fastz(args, cwd, stdin=None):
    """fastz.cli.main in this process: (exit status, stdout bytes, stderr text)."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = stdin
        with _inside(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = fastz_main([*args, "--workers=1"])
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue().encode("utf-8", "surrogateescape"), err.getvalue()


def fastz_process(args, cwd, **kw):
    return subprocess.Popen([sys.executable, "-m", "fastz", *args], cwd=cwd, **kw)


def assert_one_line_error(code, out, err, fragment=""):
    """Exit 1, empty stdout, last stderr line ``fastz: ...`` (after LASTZ-style
    warnings only), no traceback."""
    assert code == 1, (code, err)
    assert out == b""
    assert "Traceback" not in err
    lines = err.rstrip("\n").split("\n")
    assert lines[-1].startswith("fastz: "), err
    assert fragment in lines[-1], (fragment, lines[-1])
    others = [ln for ln in lines[:-1] if not ln.startswith(("WARNING.", ">"))]
    assert not others, err


def assert_no_leftovers(where: Path, before: set[str]):
    now = {p.name for p in where.iterdir()}
    assert now == before, now ^ before


# --- 1. bad input -------------------------------------------------------------------

# (id, argv, fragment of fastz's message, lastz writes part of its output first)
BAD = [
    ("missing-target", ["nope.fa", "q.fa"], 'failed to open "nope.fa"', False),
    ("missing-query", ["t.fa", "nope.fa"], 'failed to open "nope.fa"', False),
    ("directory", ["t.fa", "dir.fa"], "Is a directory", False),
    ("empty-target", ["empty.fa", "q.fa"], "target file empty.fa contains no sequence", False),
    ("empty-query", ["t.fa", "empty.fa"], "query file empty.fa contains no sequence", False),
    ("header-only", ["t.fa", "onlyhdr.fa"], "contains no sequence", False),
    ("empty-records", ["emptyrecs.fa", "q.fa"], "target file emptyrecs.fa contains no sequence",
     False),
    ("sequence-before-header", ["seqfirst.fa", "q.fa"], "more than one sequence", False),
    ("bad-char", ["t.fa", "badchar.fa"], "bad fasta character in badchar.fa, >q (uppercase J)",
     True),
    ("iupac-not-allowed", ["t.fa", "iupac.fa"], "(uppercase R)", True),
    ("bad-char-with-ambiguous", ["t.fa", "badchar.fa", "--ambiguous=iupac"], "(uppercase J)",
     True),
    ("asterisk", ["t.fa", "star.fa"], 'asterisk "*"', True),
    ("dash", ["t.fa", "dash.fa"], 'minus sign "-"', True),
    ("nul", ["t.fa", "nul.fa"], "(ascii 00)", True),
    ("rna", ["t.fa", "rna.fa"], "(uppercase U)", True),
    ("comment-line", ["t.fa", "comment.fa"], 'semicolon ";"', True),
    ("bad-last-record", ["t.fa", "badlast.fa"], ">q2 (uppercase J)", True),
    ("fastq-short-quality", ["t.fa", "fqshort.fq"], "not enough fastq quality characters", True),
    ("fastq-eof", ["t.fa", "fqeof.fa"], "premature end of fastq file", True),
    ("beyond-end", ["t.fa", "q.fa[1..99999]"], "beyond end in q.fa, >qry (99999 > 2000)", True),
    ("start-beyond-end", ["t.fa", "q.fa[5000..6000]"], "(5000 > 2000)", True),
    ("unknown-action", ["t.fa", "q.fa[bogus]"], '(for q.fa) bad action "bogus"', False),
    ("zero-start", ["t.fa", "q.fa[0..10]"], 'bad limits "0..10"', False),
    ("open-bracket", ["t.fa", "q.fa["], "bad action list", False),
    ("missing-mask-file", ["t.fa", "q.fa{nomask}"], 'failed to open "nomask"', True),
    ("missing-subset-file", ["t.fa", "q.fa[subset=nofile]"], 'failed to open "nofile"', False),
    ("truncated-gzip", ["t.fa", "trunc.fa.gz"], "can't read trunc.fa.gz: truncated gzip", True),
    ("corrupt-gzip", ["t.fa", "junk.fa.gz"], "can't read junk.fa.gz: not a valid gzip", True),
    ("short-2bit", ["bad.2bit", "q.fa"], "bad.2bit", False),
    ("scores-short", ["t.fa", "q.fa", "--scores=sc_short.txt"], "not enough score rows", False),
    ("scores-not-number", ["t.fa", "q.fa", "--scores=sc_nonnum.txt"], '"xx" is not an integer',
     False),
    ("scores-bad-gap", ["t.fa", "q.fa", "--scores=sc_badgap.txt"], '"abc" is not an integer',
     False),
    ("scores-unknown", ["t.fa", "q.fa", "--scores=sc_unknown.txt"],
     "invalid name in assignment", False),
    ("scores-binary", ["t.fa", "q.fa", "--scores=sc_bin.txt"], "invalid character code", False),
    ("scores-empty", ["t.fa", "q.fa", "--scores=sc_empty.txt"], "no column headers", False),
    ("scores-missing", ["t.fa", "q.fa", "--scores=nofile.txt"], 'failed to open "nofile.txt"',
     False),
    ("segments-bad-field", ["t.fa", "q2.fa", "--segments=seg_badfield.txt"],
     "bad field (seg_badfield.txt: line 2, xx)", True),
    ("segments-few-fields", ["t.fa", "q2.fa", "--segments=seg_few.txt"],
     "too few fields (seg_few.txt: line 2)", True),
    ("segments-lengths", ["t.fa", "q2.fa", "--segments=seg_len.txt"],
     "intervals have different lengths", True),
    ("segments-extra", ["t.fa", "q2.fa", "--segments=seg_extra.txt"],
     "extra segments in file (seg_extra.txt: line 2, tgt/q9+)", True),
    ("segments-not-utf8", ["t.fa", "q2.fa", "--segments=seg_notutf8.txt"],
     "bad field (seg_notutf8.txt: line 2, 1", True),
    ("segments-missing", ["t.fa", "q.fa", "--segments=nofile.txt"], "nofile.txt", False),
    ("huge-gappedthresh", ["t.fa", "q.fa", "--gappedthresh=1e99"],
     '"1e99" is out of range for an integer', False),
    ("bad-int", ["t.fa", "q.fa", "--hspthresh=abc"], '"abc" is not an integer', False),
    ("bad-gap", ["t.fa", "q.fa", "--gap=x"], '"x" is not an integer', False),
    ("bad-seed", ["t.fa", "q.fa", "--seed=zzz"], "illegal character z", False),
    ("bad-step", ["t.fa", "q.fa", "--step=0"], "--step must be positive", False),
    ("bad-xdrop", ["t.fa", "q.fa", "--xdrop=-5"], "not a legitimate x-drop", True),
    ("bad-format", ["t.fa", "q.fa", "--format=bogus"], 'Can\'t understand "--format=bogus"',
     True),
    ("bad-strand", ["t.fa", "q.fa", "--strand=sideways"], "--strand=sideways", True),
    ("unknown-option", ["t.fa", "q.fa", "--bogus"], 'Can\'t understand "--bogus"', True),
    ("empty-value", ["t.fa", "q.fa", "--ydrop="], '"" is not an integer', False),
    ("bad-identity", ["t.fa", "q.fa", "--identity=50..20"], "--identity=50..20", True),
    ("bad-traceback", ["t.fa", "q.fa", "--allocate:traceback=1"], "at least 100K", True),
    ("bad-word", ["t.fa", "q.fa", "--word=40"], "cannot exceed 31", False),
    ("bad-match", ["t.fa", "q.fa", "--match=0"], "not a valid match score", True),
    ("bad-general-field", ["t.fa", "q.fa", "--format=general:bogus"],
     'unrecognized field name (for --format=general): "bogus"', False),
    ("no-output-dir", ["t.fa", "q.fa", "--output=nodir/out.txt"], "nodir/out.txt", False),
    ("output-is-dir", ["t.fa", "q.fa", "--output=dir.fa"], "Is a directory", False),
    ("output-in-proc", ["t.fa", "q.fa", "--output=/proc/fastz-test.out"],
     "/proc/fastz-test.out", False),
]


@pytest.mark.parametrize("args,fragment,lastz_partial", [c[1:] for c in BAD],
                         ids=[c[0] for c in BAD])
def test_bad_input_is_one_line_and_no_output(work, args, fragment, lastz_partial):
    code, out, err = lastz(args, work)
    assert code != 0, "lastz accepts this input: it is not a bad-input case"
    assert bool(out) == lastz_partial, "lastz's own behaviour changed"
    before = {p.name for p in work.iterdir()}
    assert_one_line_error(*fastz(args, work), fragment)
    assert_no_leftovers(work, before)
    # with --output: no file and no temporary file either
    if not any(a.startswith("--output") for a in args):
        assert_one_line_error(*fastz([*args, "--output=out.txt"], work), fragment)
        assert_no_leftovers(work, before)


FASTZ_ONLY_BAD = [
    # lastz takes any -X as --X; fastz reads gzip, so these two differ from lastz's texts
    ("workers-not-int", ["t.fa", "q.fa", "--workers=abc"], '"abc" is not an integer'),
    ("bad-dp", ["t.fa", "q.fa", "--dp=bogus"], "--dp must be auto, single or split"),
    ("bad-backend", ["t.fa", "q.fa", "--backend=tpu"], "--backend must be auto, cpu or gpu"),
    ("empty-gzip", ["t.fa", "two.gz"], "can't read two.gz: truncated gzip data"),
]


@pytest.mark.parametrize("args,fragment", [c[1:] for c in FASTZ_ONLY_BAD],
                         ids=[c[0] for c in FASTZ_ONLY_BAD])
def test_fastz_only_bad_input(work, args, fragment):
    (work / "two.gz").write_bytes(b"\x1f\x8b")
    before = {p.name for p in work.iterdir()}
    assert_one_line_error(*fastz(args, work), fragment)
    assert_no_leftovers(work, before)


@pytest.mark.parametrize("match,fragment", [
    ("1000000,5 --nogapped", "an HSP scores 2213997780, more than LASTZ's 32-bit scores"),
    ("500000,5", "a gapped alignment scores 2444436862, more than"),
    ("1G,1", "--hspthresh would be 30000000000, more than"),     # (K = 30 x match)
])
def test_scores_past_32_bits_are_refused(shared_pairs, tmp_path, match, fragment):
    """lastz's scores are 32-bit and its sums wrap past 2^31 - 1 (C leaves that
    undefined): its output there is nothing to match, so fastz stops with a line
    saying so, and writes no file.  Just below, both print the same."""
    from parity_cases import run_program
    cwd = shared_pairs / "mito_human_orang"
    words = ["target.fa", "query.fa", *f"--match={match}".split(), "--format=general"]
    got = run_program("fastz", [*words, f"--output={tmp_path / 'out'}"], cwd, timeout=600)
    assert_one_line_error(got.returncode, got.stdout, got.stderr.decode(), fragment)
    assert list(tmp_path.iterdir()) == []
    assert run_program("lastz", words, cwd, timeout=600).returncode == 0   # (it runs)


@pytest.mark.parametrize("match", ["10,1G", "10,214748365", "1G,1G"])
def test_match_penalty_past_32_bits_is_refused(shared_pairs, tmp_path, match):
    """--match derives the X score (10 x the penalty) and gap penalties, which lastz
    converts to 32 bits (C leaves a value past that undefined; lastz fails on some,
    and runs on others): fastz refuses in one line, where it had crashed (a numpy
    OverflowError filling its tables).  Just inside, both print the same (above)."""
    from parity_cases import run_program
    words = ["target.fa[1..4000]", "query.fa[1..4000]", f"--match={match}",
             f"--output={tmp_path / 'out'}"]
    got = run_program("fastz", words, shared_pairs / "dwv_vs_vdv1")
    assert_one_line_error(got.returncode, got.stdout, got.stderr.decode(),
                          "the X score (10 x the --match penalty) would be -")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("word", ["--hspthresh=nan", "--xdrop=NaN", "--inner=nan"])
def test_nan_score_is_refused(work, word):
    """lastz converts a NaN score to an int, which C leaves undefined (it ran with
    -2147483648); fastz refuses it in one line, where it had crashed."""
    out, err = io.StringIO(), io.StringIO()
    with _inside(work), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = fastz_main(["t.fa", "q.fa", word])
    assert_one_line_error(code, out.getvalue().encode(), err.getvalue(),
                          "is out of range for an integer")


@pytest.mark.parametrize("words,fragment", [
    (["--gap=1e-320,1e-320"], "is not a score fastz_D takes"),   # (memory corruption)
    (["--gap=10,nan"], "is not a score fastz_D takes"),
    (["--match=1,nan"], "is not a score fastz_D takes"),          # (a traceback)
    (["--hspthresh=inf"], "is not a score fastz_D takes"),        # (a traceback)
    (["--hspthresh=1e308"], "--hspthresh is 1e+308, which fastz_D does not take"),
    (["--ydrop=2e9", "--gap=400,1e-300"], "--ydrop / the gap extension penalty is"),
    # (lastz_D keeps --match's penalty in an int: past one it is -2^31, which lastz_D
    # then negates, undefined in C; fastz_D had said "not a valid mismatch penalty")
    (["--match=5,-2147483648", "--gap=600,30"], '"-2147483648" is out of range'),
    (["--match=5,3000000000"], '"3000000000" is out of range'),
])
def test_fastz_D_refuses_scores_its_kernels_cannot_hold(shared_pairs, words, fragment):
    """lastz_D takes any double, and infinities, NaNs, subnormals and values past an
    int make its DP size rows with undefined ints (it fails, overruns its own check,
    or prints nothing); fastz_D had crashed or written past its buffers: one line."""
    from parity_cases import run_program
    got = run_program("fastz_D", ["target.fa[1..4000]", "query.fa[1..4000]", *words],
                      shared_pairs / "dwv_vs_vdv1")
    assert_one_line_error(got.returncode, got.stdout, got.stderr.decode(), fragment)


@pytest.mark.parametrize("words", [["--exact=20.7"], ["--exact=30.2", "--nogapped"],
                                   ["--mismatch=0.5,0.5"], ["--mismatch=2,20.5", "--nogapped"],
                                   ["--3mismatch=25.9"]], ids=" ".join)
def test_fastz_D_fractional_extension_lengths_as_lastz_D(shared_pairs, words):
    """lastz_D keeps --exact's and --mismatch's lengths as scores and its seed
    extensions compare lengths with them made unsigned (truncated): fastz_D, which had
    refused a fraction, keeps the same HSPs (its kernels take the threshold rounded
    down)."""
    from parity_cases import run_pair
    lz, fz = run_pair(["target.fa", "query.fa", *words, "--format=general"],
                      shared_pairs / "dwv_vs_vdv1", double=True)
    assert lz.returncode == fz.returncode == 0, fz.stderr
    assert fz.stdout == lz.stdout and len(lz.stdout.splitlines()) > 1


@pytest.mark.parametrize("words", [["--inner=1500.25"], ["--inner=999.9", "--chain"]],
                         ids=" ".join)
def test_fastz_D_fractional_inner_threshold_as_lastz_D(shared_pairs, words):
    """lastz_D's --inner is a score: the interpolation's HSP and gapped thresholds take
    its fraction (fastz_D had refused it)."""
    from parity_cases import run_pair
    base = ["target.fa", "query.fa", *words, "--format=general"]
    lz, fz = run_pair(base, shared_pairs / "hpylori_26695_vs_J99_Eslice", double=True)
    assert lz.returncode == fz.returncode == 0, fz.stderr
    plain, _ = run_pair(["target.fa", "query.fa", "--format=general"],
                        shared_pairs / "hpylori_26695_vs_J99_Eslice", double=True)
    # (the interpolation found alignments the plain run does not have)
    assert fz.stdout == lz.stdout and len(lz.stdout) > len(plain.stdout)


@pytest.mark.parametrize("word", ["--match=3000000000", "--match=1e10,2", "--match=0.5"])
def test_fastz_D_match_reward_is_lastz_D_s_int(shared_pairs, word):
    """lastz_D keeps --match's reward in an int: a double past an int is -2^31, so not a
    valid match score, in lastz_D's words (fastz_D had refused it as out of its range)."""
    from parity_cases import run_pair
    lz, fz = run_pair(["target.fa[1..4000]", "query.fa[1..4000]", word],
                      shared_pairs / "dwv_vs_vdv1", double=True)
    assert lz.returncode and fz.returncode
    assert fz.stderr.decode() == "fastz: " + lz.stderr.decode().splitlines()[-1] + "\n"


@pytest.mark.parametrize("word", ["--mismatch=0.5,10", "--mismatch=2.7,40",
                                  "--mismatch=1e308,10"])
def test_fastz_D_mismatch_count_is_lastz_D_s_int(shared_pairs, word):
    """lastz_D reads --mismatch's count as a score and keeps it in an int: 0.5 is 0
    (an exact extension), 2.7 is 2, 1e308 is -2^31 (refused in those words); fastz_D
    had refused the first and the second."""
    from parity_cases import run_pair
    lz, fz = run_pair(["target.fa[1..4000]", "query.fa[1..4000]", word, "--format=general"],
                      shared_pairs / "dwv_vs_vdv1", double=True)
    assert fz.returncode == lz.returncode
    if lz.returncode:
        assert fz.stderr.decode() == "fastz: " + lz.stderr.decode().removeprefix("FAILURE: ")
    else:
        assert fz.stdout == lz.stdout and len(lz.stdout.splitlines()) > 1


@pytest.mark.parametrize("query,top", [
    ("query.fa", None),
    # a sequence against itself: LASTZ's identical-sequence shortcut saturates at
    # 2^31 - 1 where its HSP's sum wrapped, and both print that
    ("target.fa", b"2147483647"),
])
def test_scores_just_inside_32_bits_match_lastz(shared_pairs, query, top):
    from parity_cases import run_pair
    lz, fz = run_pair(["target.fa", query, "--match=300000,5", "--format=general"],
                      shared_pairs / "mito_human_orang")
    assert lz.returncode == fz.returncode == 0
    assert fz.stdout == lz.stdout
    scores = [line.split(b"\t")[0] for line in lz.stdout.splitlines()[1:]]
    assert top in scores if top else any(len(score) == 9 for score in scores)


@pytest.mark.parametrize("words,fails", [
    (["--stopafter=1073741820"], True),             # (4 x N bytes, one past the limit)
    (["--stopafter=1073741819"], False),
    (["--stopafter=2147483647", "--queryhsplimit=1100000k"], True),   # (the later limit)
    (["--queryhsplimit=1100000k", "--stopafter=3"], False),
    (["--stopafter=2147483647", "--nogapped"], False),  # (the gapped mode's hashes only)
])
def test_huge_immediate_search_limit_fails_as_lastz_does(shared_pairs, words, fails):
    """lastz's gapped HSP-immediate mode allocates 4 bytes per alignment it may
    print before reading a query, and an allocation past 2^32 - 17 bytes fails: the
    same line from fastz (no output), or the same output where lastz runs."""
    from parity_cases import run_pair
    lz, fz = run_pair(["target.fa", "query.fa", *words, "--format=general"],
                      shared_pairs / "dwv_vs_vdv1")
    assert (lz.returncode != 0) == fails
    if fails:
        message = lz.stderr.decode().strip().removeprefix("FAILURE: ")
        assert message.startswith("malloc_or_die blocked large request")
        assert_one_line_error(fz.returncode, fz.stdout, fz.stderr.decode(), message)
    else:
        assert fz.returncode == 0 and fz.stdout == lz.stdout


@pytest.mark.parametrize("pair,words,fails", [
    # the y-drop's tail (ydrop / gap extension + 6 cells) past the traceback's space
    ("dwv_vs_vdv1", ["--ydrop=10000000", "--allocate:traceback=200k"], True),
    ("dwv_vs_vdv1", ["--ydrop=6000000", "--allocate:traceback=200k"], False),   # (inside)
    # a size past 2^31 - 1 is a negative int to lastz's extension; -1 is 4 GiB, which
    # its allocation refuses (only where it extends)
    ("dwv_vs_vdv1", ["--allocate:traceback=-17"], True),
    ("dwv_vs_vdv1", ["--allocate:traceback=-1"], True),
    ("dwv_vs_vdv1", ["--allocate:traceback=-1", "--nogapped"], False),
    # a gap extension of 0: the tail is a side's length (sides past 100K fail)
    ("ecoli_K12_vs_salmonella_LT2",
     ["--gap=400,0", "--allocate:traceback=100k", "target.fa[150001..450000]"], True),
    ("ecoli_K12_vs_salmonella_LT2",
     ["--gap=400,0", "--allocate:traceback=100k", "target.fa[250001..350000]"], False),
])
def test_traceback_space_fails_where_lastz_does(shared_pairs, pair, words, fails):
    """lastz fails as it starts its first gapped extension where the traceback space
    cannot hold the y-drop's tail, and where --allocate:traceback's u32 passes its
    allocation limit; fastz had run those (truncating alignments)."""
    from parity_cases import run_pair
    query = [w for w in words if w.startswith("target.fa[")] or ["query.fa[1..4000]"]
    target = "target.fa[1..300000]" if pair.startswith("ecoli") else "target.fa[1..4000]"
    argv = [target, *query, *[w for w in words if w not in query], "--format=general"]
    lz, fz = run_pair(argv, shared_pairs / pair)
    assert (lz.returncode != 0) == fails
    if fails:
        message = lz.stderr.decode().strip().split("\n")[-1].removeprefix("FAILURE: ")
        assert_one_line_error(fz.returncode, fz.stdout, fz.stderr.decode(), message)
        assert fz.stderr.decode().rstrip("\n").split("\n")[-1] == f"fastz: {message}"
    else:
        assert fz.returncode == 0 and fz.stdout == lz.stdout and fz.stderr == lz.stderr


@pytest.mark.parametrize("words", [["--scores=bad.q"], ["--gap=-100,30", "--scores=bad.q"]])
def test_gap_sum_message_is_lastz_s(tmp_path, words):
    """A gap open penalty whose sum with the extension is not positive: lastz's two
    lines (a leading space, and Debian's binary spelling "positive", where the source
    says "postive"), joined into fastz's one."""
    from parity_cases import run_program
    (tmp_path / "t.fa").write_text(">t\nACGTACGTACGTAAAAGGGC\n")
    (tmp_path / "bad.q").write_text(
        "gap_open = -100\ngap_extend = 30\n   A    C    G    T\nA 91 -114 -31 -123\n"
        "C -114 100 -125 -31\nG -31 -125 100 -114\nT -123 -31 -114 91\n")
    argv = ["t.fa", "t.fa", *words]
    lz, fz = (run_program(p, argv, tmp_path) for p in ("lastz", "fastz"))
    said = [ln for ln in lz.stderr.decode().splitlines() if ln.strip()]
    assert lz.returncode != 0 and said[0].startswith("FAILURE:  (in bad.q)")
    expected = " ".join([said[0].removeprefix("FAILURE: "), *said[1:]])
    assert fz.returncode == 1 and fz.stderr.decode() == f"fastz: {expected}\n"


def test_negative_worker_count(work):
    """--workers=-3 is an error, not "all cores" (the helper appends --workers=1)."""
    out, err = io.StringIO(), io.StringIO()
    with _inside(work), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = fastz_main(["t.fa", "q.fa", "--workers=-3"])
    assert_one_line_error(code, out.getvalue().encode(), err.getvalue(),
                          "--workers must be 0 (all cores) or positive")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file(work):
    (work / "q.fa").chmod(0)
    assert_one_line_error(*fastz(["t.fa", "q.fa"], work), 'failed to open "q.fa"')


# --- accepted odd inputs: lastz's exact bytes ---------------------------------------

ACCEPTED = [
    ("crlf", ["t_crlf.fa", "q_crlf.fa"]),
    ("cr-only-query", ["t.fa", "q_cr.fa"]),
    ("cr-only-target", ["t_cr.fa", "q.fa", "--format=general"]),
    ("one-line", ["t.fa", "q_oneline.fa"]),
    ("long-header", ["t.fa", "q_longhdr.fa", "--format=general"]),
    ("no-header", ["t.fa", "q_nohdr.fa"]),
    ("no-final-eol", ["t.fa", "q_noeol.fa"]),
    ("blank-lines", ["t.fa", "q_blank.fa"]),
    ("empty-name", ["t.fa", "q_emptyname.fa", "--format=maf"]),
    ("duplicate-names", ["t.fa", "q_dup.fa", "--format=general"]),
    ("digits-in-sequence", ["t.fa", "q_digits.fa"]),
    ("spaces-in-sequence", ["t.fa", "q_spaces.fa"]),
    ("empty-record", ["t.fa", "q_emptyrec.fa"]),
    ("tab-in-header", ["t.fa", "q_tabhdr.fa", "--format=axt"]),
    ("utf8-header", ["t.fa", "q_utf8.fa", "--format=maf"]),
    ("x-characters", ["t.fa", "q_x.fa"]),
    ("lower-n", ["t.fa", "q_n.fa"]),
    ("iupac-allowed", ["t.fa", "iupac.fa", "--ambiguous=iupac"]),
    ("all-lower-query", ["t.fa", "q_lower.fa"]),
    ("all-lower-target", ["t_lower.fa", "q.fa"]),
    ("all-n-query", ["t.fa", "q_allN.fa"]),
    ("all-n-target", ["t_allN.fa", "q.fa"]),
    ("fastq", ["t.fa", "q.fq", "--format=general"]),
    ("reversed-range-is-revcomp", ["t.fa", "q.fa[1500..500]", "--format=general"]),
    ("reversed-target-range", ["t.fa[2500..500]", "q.fa"]),
    ("tiny-reversed-range", ["t.fa", "q.fa[10..5]"]),
    ("open-ranges", ["t.fa", "q.fa[10..]", "--format=general"]),
    ("open-start", ["t.fa[..2000]", "q.fa"]),
    ("scores-file", ["t.fa", "q.fa", "--scores=sc_ok.txt"]),
    ("segments-file", ["t.fa", "q2.fa", "--segments=seg_ok.txt"]),
]


@pytest.mark.parametrize("args", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_odd_input_lastz_accepts_gives_lastz_output(work, args):
    code, want, lerr = lastz(args, work)
    assert code == 0, lerr
    code, got, err = fastz(args, work)
    assert code == 0, err
    assert drop_version(got) == drop_version(want)
    assert err == lerr.replace("FAILURE: ", "fastz: ")


def test_cr_only_stdin_file_and_pipe_match_lastz(work):
    """LASTZ loses a different byte of a CR-only file when it can seek back (a
    redirected file) than when it can't (a pipe); fastz follows both."""
    data = (work / "q_cr.fa").read_bytes()
    args = ["t.fa", "--format=general:zstart1,end1,zstart2,end2,cigarx"]
    _, from_file, _ = lastz(args, work, stdin=data)            # (subprocess: a pipe)
    with open(work / "q_cr.fa", "rb") as fh:
        want_file = subprocess.run([LASTZ, *args], cwd=work, stdin=fh,
                                   capture_output=True).stdout
    assert from_file != want_file
    with open(work / "q_cr.fa", "rb") as fh:
        code, got, err = fastz(args, work, stdin=io.TextIOWrapper(fh))
    assert code == 0 and got == want_file, err
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        code, got, err = fastz(args, work, stdin=io.TextIOWrapper(fh))
    assert code == 0 and got == from_file, err


def test_gzip_and_2bit_v1_read_like_plain(work, lastz_data):
    """fastz reads gzip and 2bit version 1 (64-bit offsets), which lastz can't."""
    (work / "q.fa.gz").write_bytes(gzip.compress((work / "q.fa").read_bytes()))
    plain = fastz(["t.fa", "q.fa"], work)
    packed = fastz(["t.fa", "q.fa.gz"], work)
    assert plain[0] == packed[0] == 0
    assert plain[1].replace(b'"q.fa"', b'"q.fa.gz"').replace(b"q.fa ", b"q.fa.gz ") == packed[1]
    v0 = (lastz_data / "aglobin.2bit").read_bytes()
    (work / "a0.2bit").write_bytes(v0)
    (work / "a1.2bit").write_bytes(_twobit_v1(v0))
    want = fastz(["a0.2bit/human", "a0.2bit/cow", "--format=general"], work)
    got = fastz(["a1.2bit/human", "a1.2bit/cow", "--format=general"], work)
    assert want[0] == 0 and got == want and want[1].count(b"\n") > 1
    assert lastz(["a1.2bit/human", "a0.2bit/cow"], work)[0] != 0   # lastz: bad version


# --- output: never left looking complete -------------------------------------------


def test_output_file_follows_links_keeps_devices_and_mode(work):
    os.umask(0o022)
    (work / "sub").mkdir()
    os.symlink(work / "sub" / "real.txt", work / "link.txt")
    assert fastz(["t.fa", "q.fa", "--output=link.txt"], work)[0] == 0
    assert (work / "link.txt").is_symlink()
    assert (work / "sub" / "real.txt").stat().st_mode & 0o777 == 0o644
    assert fastz(["t.fa", "q.fa", "--output=/dev/null"], work)[0] == 0
    assert Path("/dev/null").is_char_device()
    os.mkfifo(work / "fifo")
    reader = subprocess.Popen(["cat", str(work / "fifo")], stdout=subprocess.PIPE)
    code, _, err = fastz(["t.fa", "q.fa", "--output=fifo"], work)
    got = reader.communicate(timeout=60)[0]
    assert code == 0 and (work / "fifo").is_fifo() and got.startswith(b"#:lav"), err


class _CountedWrites(io.RawIOBase):
    """A raw byte stream that counts the writes reaching it (the system calls)."""

    def __init__(self):
        self.data, self.calls = bytearray(), 0

    def writable(self):
        return True

    def write(self, b):
        self.calls += 1
        self.data += bytes(b)
        return len(b)


def test_write_through_stdout_gets_its_text_in_blocks(work, monkeypatch):
    """PYTHONUNBUFFERED (``python -u``, common in containers) makes stdout pass each
    write to the system: a call per query of a reads file.  The run gathers stdout's
    text in blocks, as lastz's stdio does, and puts the stream back after."""
    raw = _CountedWrites()
    stream = io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=True)
    queries = fasta([(b"q%d" % k, QUERY[k * 10:k * 10 + 600]) for k in range(300)])
    (work / "many.fa").write_bytes(queries)
    monkeypatch.setattr(sys, "stdout", stream)
    with _inside(work):
        code = fastz_main(["t.fa", "many.fa", "--format=general:name2,score",
                           "--workers=1"])
    assert sys.stdout is stream and stream.write_through
    want = lastz(["t.fa", "many.fa", "--format=general:name2,score"], work)
    assert code == 0 and bytes(raw.data) == want[1]
    assert want[1].count(b"\n") > 100 and raw.calls < 10, raw.calls


def test_existing_output_file_survives_a_failed_run(work):
    (work / "out.txt").write_text("old results\n")
    assert_one_line_error(*fastz(["t.fa", "badlast.fa", "--output=out.txt"], work))
    assert (work / "out.txt").read_text() == "old results\n"


def _bad_stream(n_good: int = 3) -> bytes:
    recs = [(b"q%d" % k, QUERY) for k in range(n_good)] + [(b"bad", QUERY[:500] + b"J")]
    return fasta(recs)


def test_bad_record_in_piped_query_cuts_back_a_stdout_file(work):
    """A pipe can't be read twice: the bad record is found mid-run.  stdout redirected
    to a file (also in append mode) is cut back to where the run started."""
    for mode, keep in (("wb", b""), ("ab", b"earlier output\n")):
        out = work / "stdout.txt"
        out.write_bytes(keep)
        with open(out, mode) as fh:
            proc = fastz_process(["t.fa", "--workers=1"], work, stdin=subprocess.PIPE,
                                 stdout=fh, stderr=subprocess.PIPE)
            _, err = proc.communicate(_bad_stream(), timeout=120)
        assert proc.returncode == 1
        assert err.decode().strip().splitlines()[-1].startswith("fastz: bad fasta character")
        assert out.read_bytes() == keep


def test_bad_record_in_piped_query_to_a_pipe_has_no_end_marker(work):
    proc = fastz_process(["t.fa", "--workers=1"], work, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(_bad_stream(), timeout=120)
    assert proc.returncode == 1 and b"Traceback" not in err
    assert out.startswith(b"#:lav") and b"#:eof" not in out   # streamed, visibly cut


def test_bad_record_in_query_file_found_before_any_output(work):
    (work / "bad_stream.fa").write_bytes(_bad_stream())
    proc = fastz_process(["t.fa", "bad_stream.fa"], work, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and out == b""
    assert err.decode().strip().splitlines()[-1].startswith("fastz: bad fasta character")


# --- 2. faults: signals -------------------------------------------------------------


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _interruptible():
    # a shell starts background jobs with SIGINT ignored, and fastz rightly leaves an
    # ignored SIGINT alone: give the child the disposition a terminal's Ctrl-C meets,
    # whatever way the test suite itself was started
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_slow(tmp_path, extra, **kw):
    proc = fastz_process(["target.fa", "query.fa", "--nogfextend", "--workers=2", *extra],
                         PAIRS / "dmel2R_vs_dpse_contigs", stderr=subprocess.PIPE,
                         preexec_fn=_interruptible, **kw)
    deadline = time.time() + 90
    while time.time() < deadline and not _children(proc.pid) and proc.poll() is None:
        time.sleep(0.1)
    assert _children(proc.pid), "no worker process appeared"
    time.sleep(1.0)
    assert proc.poll() is None, "finished before the signal"
    proc.workers = _children(proc.pid)
    return proc


def _gone(pid: int) -> bool:
    """The process has exited (a zombie waiting for init counts as gone)."""
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(")")[-1].split()[0] in ("Z", "X"):
                    return True
        except OSError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_signal_removes_temporary_output(tmp_path, sig):
    out = tmp_path / "out.txt"
    proc = _start_slow(tmp_path, [f"--output={out}"])
    t0 = time.time()
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=60)
    assert time.time() - t0 < 20
    assert proc.returncode == 128 + getattr(signal, sig)
    assert err.decode().strip().splitlines() == [f"fastz: stopped by {sig}; "
                                                 "no output was completed"]
    assert list(tmp_path.iterdir()) == []
    assert all(_gone(pid) for pid in proc.workers)      # workers don't linger


def test_signal_stops_a_long_kernel_call_at_once(tmp_path):
    """A stop signal while the main thread is inside one long compiled call stops the
    run at once.  Python runs its handler only when the call returns: here one gapped
    extension call of minutes (a half-weight seed of 3 and no HSP threshold make
    anchors of every few bases), and fastz had gone on for 13 minutes after SIGTERM."""
    words = ["--seed=half3", "--hspthresh=0", "--workers=1", "--format=general"]
    cwd = PAIRS / "dengue1_vs_dengue2"
    warm = subprocess.run([sys.executable, "-m", "fastz", "target.fa[1..300]",
                           "query.fa[1..300]", *words], cwd=cwd, capture_output=True)
    assert warm.returncode == 0, warm.stderr        # (the kernels compiled and cached)
    out = tmp_path / "out.txt"
    proc = fastz_process(["target.fa[1..1500]", "query.fa[1..1500]", *words,
                          f"--output={out}"], cwd, stderr=subprocess.PIPE)
    time.sleep(8.0)                     # (start-up and the search take some 2 s of it)
    assert proc.poll() is None, "finished before the signal"
    t0 = time.time()
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("SIGTERM waited for the kernel call") from None
    assert time.time() - t0 < 5
    assert proc.returncode == 143
    assert err.decode() == "fastz: stopped by SIGTERM; no output was completed\n"
    assert list(tmp_path.iterdir()) == []


def test_signal_cuts_back_a_stdout_file(tmp_path):
    out = tmp_path / "stdout.txt"
    with open(out, "wb") as fh:
        proc = _start_slow(tmp_path, [], stdout=fh)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert proc.returncode == 143 and out.read_bytes() == b""


# --- 3. limits ----------------------------------------------------------------------


def test_query_streams_one_record_at_a_time(work):
    """Memory holds the target and one query record: the loader yields a record
    before it has read the next one."""
    from fastz.io.sequences import iter_queries
    from fastz.options import Options
    (work / "many.fa").write_bytes(_bad_stream(2))
    it = iter_queries(str(work / "many.fa"), Options(target="t.fa"))
    assert next(it).name == "q0" and next(it).name == "q1"
    with pytest.raises(Exception, match="bad fasta character"):
        next(it)


def test_gap_free_runs_longer_than_2_28_survive():
    from fastz.records import HSP_DTYPE, Alignments
    h = np.zeros(1, HSP_DTYPE)
    h["pos1"], h["pos2"], h["length"], h["score"] = 3_000_000_000, 5, (1 << 28) + 5, 1
    a = Alignments.from_hsps(h)
    assert a.end1[0] == 3_000_000_000 + (1 << 28) + 5
    assert a.cigar(0) == [(0, (1 << 28) + 5)]


def test_positions_past_2_31_in_the_index():
    """The seed index switches to int64 positions at 2^31 (a target over 2 Gbp)."""
    from fastz.kernels import seeding
    src = Path(seeding.__file__).read_text()
    assert re.search(r"np\.int32 if n < 2\*\*31 - 1 else np\.int64", src)


@pytest.mark.skipif(os.environ.get("FASTZ_TEST_HUGE") != "1",
                    reason="needs ~5 GB and a minute: FASTZ_TEST_HUGE=1")
def test_alignment_beyond_2_gbp():
    """A target of 2^31 + 20,000 bases (NUL padding, real bases at the end) aligned
    with a query copied from its last bases: positions above 2^31 come out exact."""
    from fastz.options import Options
    from fastz.pipeline import Aligner
    from fastz.records import Sequence
    n = (1 << 31) + 20_000
    chars = np.zeros(n, np.uint8)            # untouched pages: no memory until written
    tail = np.frombuffer(_random_dna(20_000), np.uint8)
    chars[-20_000:] = tail
    opts = Options(target="x", query="y", workers=1)
    aligner = Aligner.__new__(Aligner)
    from fastz.scoring import scoreset_from_options
    from fastz.pipeline.seeding import build_index
    aligner.scores = scoreset_from_options(opts)
    aligner.opts = opts.resolved(aligner.scores)
    aligner.target = Sequence(chars=chars, name="big", header=">big", filename="x")
    aligner.index = build_index(chars, aligner.opts.seed, aligner.opts.step,
                                word=aligner.opts.word)
    assert aligner.index.pos.dtype == np.int64
    aligner.segments, aligner.stats, aligner.census = None, {}, None
    aligner.two_pass, aligner.backend, aligner.hitproc = False, "cpu", None
    q = Sequence(chars=tail[5000:15000].copy(), name="q", header=">q", filename="y")
    res = aligner.strand(q, "+")
    assert len(res.alignments) >= 1
    k = int(np.argmax(res.alignments.score))
    assert res.alignments.beg1[k] == n - 20_000 + 5000
    assert res.alignments.end1[k] == n - 20_000 + 15000


def test_ce2_window_from_the_2mb_self_alignment(tmp_path):
    """The one alignment in which fastz's ce2 chrX[1..2000000] self-alignment differed
    from lastz's (of 51,690), cut down to a 2,000 x 1,500 window: an earlier
    alignment's horizontal segment that starts left of the anchor's column masks
    nothing in LASTZ (its column is unsigned and wraps), fastz masked from LY."""
    from conftest import SHARED
    with gzip.open(SHARED / "data" / "genomes" / "ce2_chrX.fa.gz", "rb") as fh:
        chrx = b"".join(fh.read().split(b"\n")[1:])
    (tmp_path / "t.fa").write_bytes(fasta([(b"t", chrx[442000:444000])]))
    (tmp_path / "q.fa").write_bytes(fasta([(b"q", chrx[187500:189000])]))
    args = ["t.fa", "q.fa", "--strand=plus", "--format=general"]
    code, want, _ = lastz(args, tmp_path)
    assert code == 0 and b"3840\tt\t+\t2000\t926\t1355" in want
    assert fastz(args, tmp_path)[1] == want


# --- 4. determinism ------------------------------------------------------------------


def _det_inputs(where: Path) -> Path:
    """A 45 kb target and five 10 kb queries: big enough for worker processes."""
    rng = np.random.default_rng(7)
    t = _ACGT[rng.integers(0, 4, 45000)]
    recs = []
    for k in range(5):
        a = int(rng.integers(0, 36000))
        piece = t[a:a + 8000].copy()
        flip = rng.random(piece.shape[0]) < 0.08
        piece[flip] = _ACGT[rng.integers(0, 4, int(flip.sum()))]
        keep = rng.random(piece.shape[0]) > 0.005
        q = np.concatenate([_ACGT[rng.integers(0, 4, 1000)], piece[keep],
                            _ACGT[rng.integers(0, 4, 1000)]]).tobytes()
        if k % 2:
            q = q[::-1].translate(bytes.maketrans(b"ACGT", b"TGCA"))
        recs.append((b"q%d" % k, q))
    (where / "t.fa").write_bytes(fasta([(b"chrT", t.tobytes())], 70))
    (where / "q.fa").write_bytes(fasta(recs, 70))
    return where


def test_workers_and_repeats_give_identical_bytes(tmp_path):
    d = _det_inputs(tmp_path)
    args = ["t.fa", "q.fa", "--format=general"]
    outs = []
    for w in (1, 2, 2):
        res = subprocess.run([sys.executable, "-m", "fastz", *args, f"--workers={w}"], cwd=d,
                             capture_output=True, timeout=300)
        assert res.returncode == 0, res.stderr.decode()
        outs.append(res.stdout)
    assert outs[0] == outs[1] == outs[2]
    assert outs[0] == lastz(args, d)[1] and outs[0].count(b"\n") > 3


@pytest.mark.parametrize("extra", [[], ["--nogfextend"]])
def test_repeated_runs_and_dp_modes_give_identical_bytes(work, extra):
    args = ["t.fa", "q2.fa", "--format=general", *extra]
    runs = [fastz([*args, f"--dp={dp}"], work) for dp in ("auto", "single", "split", "auto")]
    assert all(r[0] == 0 for r in runs)
    assert len({r[1] for r in runs}) == 1
    assert runs[0][1] == lastz(args, work)[1]


# --- 5. fuzz ----------------------------------------------------------------------------

_FIELDS = "score,name1,strand1,size1,zstart1,end1,name2,strand2,size2,zstart2,end2,cigarx"
_FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check_run(where: Path, args, stdin=None) -> tuple[int, bytes]:
    """Run lastz and fastz; fastz must exit 0 with lastz's bytes (which parse), or 1
    with one line; no traceback; no file left behind."""
    before = {p.name for p in where.iterdir()}
    lcode, lout, _ = lastz(args, where)
    code, out, err = fastz(args, where)
    assert_no_leftovers(where, before)
    assert "Traceback" not in err
    if code != 0:
        assert_one_line_error(code, out, err)
        gz = any((where / a).is_file() and (where / a).read_bytes()[:2] == b"\x1f\x8b"
                 for a in args[:2])
        assert lcode != 0 or gz, "lastz accepted what fastz refused"
        return code, out
    assert lcode == 0, "fastz accepted what lastz refused"
    assert out == lout
    lines = out.decode("utf-8", "surrogateescape").split("\n")[:-1]   # (names may hold \x1e)
    assert lines[0].startswith("#score")
    for line in lines[1:]:
        f = line.split("\t")
        assert len(f) == 12
        size1, z1, e1, size2, z2, e2 = map(int, (f[3], f[4], f[5], f[8], f[9], f[10]))
        assert 0 <= z1 < e1 <= size1 and 0 <= z2 < e2 <= size2
    from fastz.compare import parse
    assert len(parse(out.decode("utf-8", "surrogateescape")).records) == len(lines) - 1
    return code, out


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    (d / "t.fa").write_bytes(fasta([(b"tgt", TARGET)]))
    return d


@_FUZZ
@given(data=st.binary(max_size=3000), as_target=st.booleans())
def test_fuzz_random_bytes(fuzz_dir, data, as_target):
    (fuzz_dir / "in.dat").write_bytes(data)
    args = ["in.dat", "t.fa"] if as_target else ["t.fa", "in.dat"]
    _check_run(fuzz_dir, [*args, f"--format=general:{_FIELDS}"])


_HEADER = st.text(st.characters(min_codepoint=9, max_codepoint=0x2FF,
                                exclude_characters="\n\r>"), max_size=12)
_EOL = st.sampled_from([b"\n", b"\r\n"])


@st.composite
def odd_fasta(draw) -> bytes:
    eol = draw(_EOL)
    out = [eol * draw(st.integers(0, 2))]
    for _ in range(draw(st.integers(1, 4))):
        header = draw(_HEADER).encode("utf-8")
        kind = draw(st.sampled_from(["piece", "noise", "empty", "N"]))
        if kind == "piece":
            a = draw(st.integers(0, 2500))
            seq = TARGET[a:a + draw(st.integers(20, 1500))]
            if draw(st.booleans()):
                seq = seq[::-1].translate(bytes.maketrans(b"ACGT", b"TGCA"))
            if draw(st.booleans()):
                seq = seq.lower()
        elif kind == "noise":
            seq = draw(st.binary(min_size=1, max_size=200).map(
                lambda b: bytes(b"ACGTNacgtnXx"[x % 12] for x in b)))
        elif kind == "N":
            seq = b"N" * draw(st.integers(1, 300))
        else:
            seq = b""
        width = draw(st.integers(1, 200))
        lines = [seq[i:i + width] for i in range(0, len(seq), width)]
        blank = draw(st.booleans())
        out.append(b">" + header + eol + b"".join(
            ln + eol + (eol if blank and k % 7 == 3 else b"") for k, ln in enumerate(lines)))
    text = b"".join(out)
    if draw(st.booleans()):
        text = text.rstrip(b"\r\n")
    return text


@_FUZZ
@given(query=odd_fasta(), fmt=st.sampled_from(["general", "maf", "lav", "axt"]))
def test_fuzz_odd_fasta(fuzz_dir, query, fmt):
    (fuzz_dir / "q.fa").write_bytes(query)
    if fmt == "general":
        _check_run(fuzz_dir, ["t.fa", "q.fa", f"--format=general:{_FIELDS}"])
        return
    args = ["t.fa", "q.fa", f"--format={fmt}"]
    lcode, lout, _ = lastz(args, fuzz_dir)
    code, out, err = fastz(args, fuzz_dir)
    assert "Traceback" not in err
    assert (code == 0) == (lcode == 0), err
    if code == 0:
        assert drop_version(out) == drop_version(lout)
        from fastz.compare import parse
        parse(out.decode("utf-8", "surrogateescape"))
    else:
        assert_one_line_error(code, out, err)
