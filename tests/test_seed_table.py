"""``--tableonly`` / ``--showtable``: the target's seed-word table, written as LASTZ
writes it (``pos_table.c`` ``dump_position_table``).

Whole runs are compared with the real lastz (stdout, stderr, exit status); the table's
kernels are compared with plain Python references.
"""
from __future__ import annotations

import io
import random
import subprocess
import sys

import numpy as np
import pytest

from conftest import LASTZ, REPO, drop_version
from fastz.io import seedtable
from fastz.pipeline.seeding import build_index

MITO = str(REPO / "data" / "human_mt.fa")
QUERY = str(REPO / "data" / "orangutan_mt.fa")


@pytest.fixture(scope="module")
def work(tmp_path_factory, shared_pairs):
    """soft.fa: four MERS genomes with lower-case runs; soft.2bit: the same as 2bit."""
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import partition as wfp

    where = tmp_path_factory.mktemp("seedtable")
    records, name = [], None
    for line in (shared_pairs / "mers_ref_vs_46isolates" / "query.fa").read_text().splitlines():
        if line.startswith(">"):
            if len(records) == 4:
                break
            records.append([line[1:].split()[0], []])
        else:
            records[-1][1].append(line.strip())
    seqs = []
    for k, (name, parts) in enumerate(records):
        s = "".join(parts)
        s = "".join(c.lower() if (j // (300 + 50 * k)) % 3 == 1 else c for j, c in enumerate(s))
        seqs.append((name, s))
    (where / "soft.fa").write_text("".join(f">{n} genome {k}\n{s}\n"
                                           for k, (n, s) in enumerate(seqs)))
    wfp.write_twobit(str(where / "soft.2bit"),
                     [(wfp.Record(n, ">" + n, k + 1, len(s)), np.frombuffer(s.encode(), np.uint8))
                      for k, (n, s) in enumerate(seqs)])
    return where


def _both(where, args):
    def run(cmd):
        return subprocess.run(cmd, cwd=where, capture_output=True, timeout=600)
    return run([LASTZ, *args]), run([sys.executable, "-m", "fastz", *args])


def _same(where, args):
    lz, fz = _both(where, args)
    assert fz.returncode == lz.returncode == 0, fz.stderr.decode()[-400:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    return lz


@pytest.mark.parametrize("opts", [
    "--tableonly", "--tableonly=count", "--tableonly=andcount", "--tableonly=distribution",
    "--tableonly=stop",
    "--tableonly --seed=14of22", "--tableonly --seed=match12", "--tableonly --seed=half20",
    "--tableonly --seed=1T1T10011T1",                # transition ('T') positions
    "--tableonly --seed=14of22 --word=20",           # overweight: '1's demoted to 'T'
    "--tableonly --seed=1110100110010101111,110101101",  # (LASTZ uses the first)
    "--tableonly=andcount --step=7",
    "--tableonly=andcount --maxwordcount=1",
    "--tableonly=andcount --maxwordcount=99%,100",   # a limit kept for the chasm
    "--tableonly --showtable=count",                 # the later word shows
    "--showtable --tableonly=stop",
    "--tableonly --format=maf --markend",
    "--tableonly --format=text --markend",
    "--tableonly --format=none --markend",
])
def test_table_of_one_record_as_lastz(work, opts):
    lz = _same(work, [MITO, *opts.split()])
    if "stop" not in opts:
        assert len(lz.stdout.splitlines()) > 2


@pytest.mark.parametrize("target", [
    "soft.fa[multiple]",                          # separators; lower case has no words
    "soft.fa[multiple,unmask]",
    "nick::soft.fa[unmask,multiple]",
    "soft.2bit/MERS_Al_Hasa_12_2013",
    "soft.2bit[multiple]",
    "soft.2bit/MERS_Al_Hasa_12_2013[unmask,501..20000]",   # positions from the range start
])
def test_table_of_targets_as_lastz(work, target):
    _same(work, [target, "--tableonly=andcount"])


@pytest.mark.parametrize("opts", [
    "--showtable --format=maf",
    "--showtable=count --format=general",
    "--showtable --format=lav --markend",            # a blank line, then lav
    "--showtable --format=none --markend",
    "--showtable=count --format=maf --masking=2",    # the table as built, before masking
    "--showtable --tableonly=distribution --format=maf",
])
def test_table_then_alignments_as_lastz(work, opts):
    args = [MITO, *([] if "tableonly" in opts else [QUERY]), *opts.split()]
    lz = _same(work, args)
    assert b"seed-word" in lz.stdout


def test_self_alignment_shows_the_table(work):
    _same(work, [MITO, "--self", "--showtable", "--format=maf"])


@pytest.mark.parametrize("opts", ["--showtable --format=maf", "--tableonly --markend",
                                  "--tableonly=distribution"])
def test_output_file_gets_the_table_stdout_the_blank_line(work, opts):
    """LASTZ prints the line after the table with printf: to stdout, not --output."""
    args = [MITO, *([] if "tableonly" in opts else [QUERY]), *opts.split()]
    # (one file name for both: maf's header holds the command line)
    lz = subprocess.run([LASTZ, *args, "--output=out.txt"], cwd=work, capture_output=True,
                        timeout=600)
    lz_file = (work / "out.txt").read_bytes()
    fz = subprocess.run([sys.executable, "-m", "fastz", *args, "--output=out.txt"], cwd=work,
                        capture_output=True, timeout=600)
    assert lz.returncode == fz.returncode == 0
    assert fz.stdout == lz.stdout
    assert drop_version((work / "out.txt").read_bytes()) == drop_version(lz_file)


@pytest.mark.parametrize("args", [
    [MITO, QUERY, "--tableonly"],
    [MITO, "--tableonly", "--seed=12of19,14of22"],    # a list holds patterns only
    [MITO, "--tableonly", "--seed=1101,12of19,11"],
    [MITO, "--tableonly=count", QUERY],
    [MITO, "--tableonly", "--self"],
])
def test_bad_runs_fail_as_lastz(work, args):
    lz, fz = _both(work, args)
    assert lz.returncode == fz.returncode == 1
    message = lz.stderr.decode().splitlines()[0].removeprefix("FAILURE: ")
    assert fz.stderr.decode() == f"fastz: {message}\n"
    assert fz.stdout == b""


def test_tableonly_reads_no_query_from_stdin(work):
    fz = subprocess.run([sys.executable, "-m", "fastz", MITO, "--tableonly=distribution"],
                        cwd=work, capture_output=True, timeout=600, input=b">bad\n@@@\n")
    assert fz.returncode == 0 and fz.stdout.startswith(b"seed-word counts distribution")


def test_table_with_segments_is_refused(work, tmp_path):
    """lastz 1.04.22 builds no table with --segments and crashes writing it."""
    seg = tmp_path / "seg.txt"
    seg.write_text("MT_human 100 200 MT_orang 100 200\n")
    for args in ([MITO, QUERY, "--showtable", f"--segments={seg}"],
                 [MITO, "--tableonly", f"--segments={seg}"]):
        fz = subprocess.run([sys.executable, "-m", "fastz", *args], cwd=work,
                            capture_output=True, timeout=600)
        assert fz.returncode == 1 and fz.stdout == b""
        assert fz.stderr.decode().startswith("fastz: not yet supported by fastz: --showtable")


def test_workers_give_the_same_bytes(work):
    args = [sys.executable, "-m", "fastz", MITO, QUERY, "--showtable", "--format=maf"]
    one = subprocess.run([*args, "--workers=1"], cwd=work, capture_output=True, timeout=600)
    two = subprocess.run([*args, "--workers=2"], cwd=work, capture_output=True, timeout=600)
    assert one.returncode == two.returncode == 0 and one.stdout == two.stdout


def test_random_seed_patterns_as_lastz(work):
    """LASTZ's key packing (greedy masked shifts) for random patterns of 1, 0 and T."""
    rng = random.Random(7)
    for _ in range(6):
        body = "1" + "".join(rng.choice("1100T") for _ in range(rng.randint(6, 16))) + "1"
        _same(work, [MITO, "--tableonly=count", f"--seed={body}"])


# --- the kernels against plain references ------------------------------------------------


def _reference_words(index):
    """(key, first entry, count) of each word, from a per-entry key array."""
    buckets = np.repeat(np.arange(index.dir_.shape[0] - 1), np.diff(index.dir_))
    keys = buckets << index.low_bits
    if index.low_bits:
        keys |= index.low
    uniq, first, counts = np.unique(keys, return_index=True, return_counts=True)
    return uniq, first, counts


def _reference_lines(index, mode):
    """The table's lines, word by word in Python, LASTZ's keys by its shifts."""
    spec = index.spec
    parts = seedtable.lastz_packing(spec.pattern, spec.halfweight)
    per = 1 if spec.halfweight else 2
    lines = []
    keys, first, counts = _reference_words(index)
    for key, a, n in zip(keys.tolist(), first.tolist(), counts.tolist()):
        word, chars, rest = 0, [], spec.weight
        for i, ch in enumerate(spec.pattern):
            bits = {"1": 2, "T": 1}.get(ch, 0)
            rest -= bits
            v = (key >> rest) & ((1 << bits) - 1)
            word |= v << (per * (len(spec.pattern) - 1 - i))
            chars.append("x" if bits == 0 else ("ACGT"[v] if bits == 2 else "RY"[v]))
        shown = 0
        for shift, mask in parts:
            shown |= (word >> shift) & mask
        text = f"{shown:0{(spec.weight + 3) // 4}X}/{''.join(chars)}:"
        if mode != "table":
            text += f" {n}"
        if mode != "count":
            text += " " + ",".join(str(p) for p in index.pos[a:a + n].tolist())
        lines.append((shown, text))
    return [t for _, t in sorted(lines)]


@pytest.mark.parametrize("seed", ["1110100110010101111", "1T0T11", "TT0TTT0T", "11011"])
@pytest.mark.parametrize("mode", ["table", "count", "andcount"])
def test_table_text_matches_reference(seed, mode, monkeypatch):
    rng = np.random.default_rng(len(seed) * 31 + len(mode))
    chars = rng.choice(np.frombuffer(b"ACGTacgtN", np.uint8), 3000,
                       p=[.22, .22, .22, .22, .03, .03, .03, .02, .01]).astype(np.uint8)
    index = build_index(chars, seed)
    keys, starts, counts = seedtable.index_words(index)
    ref_keys, ref_first, ref_counts = _reference_words(index)
    assert np.array_equal(keys, ref_keys) and np.array_equal(starts, ref_first)
    assert np.array_equal(counts, ref_counts)
    want = "t:\n" + "".join(line + "\n" for line in _reference_lines(index, mode)) + "\n"
    for chunk in (1 << 18, 7):                       # one chunk, and many
        monkeypatch.setattr(seedtable, "CHUNK_WORDS", chunk)
        out = io.StringIO()
        seedtable.write_seed_table(out, index, "t", mode, out)
        assert out.getvalue().split(" for ", 1)[1] == want


def test_lastz_keys_are_a_permutation_of_bits():
    """Distinct words keep distinct keys, within the seed's weight."""
    rng = np.random.default_rng(3)
    for pattern, half in (("1110100110010101111", False), ("1T0T11T", False),
                          ("TTT0TT0TTT", True)):
        weight = sum({"1": 2, "T": 1}.get(c, 0) for c in pattern)
        keys = np.unique(rng.integers(0, 1 << weight, 5000))
        shown = seedtable.lastz_keys(keys, pattern, half)
        assert np.unique(shown).shape[0] == keys.shape[0]
        assert shown.max() < (1 << weight)


def test_lastz_packing_of_12of19_is_lastz_s():
    """The three masked shifts LASTZ's seeds.c builds for its default seed, and a key
    read from lastz's own table (0x45C is AAAxAxxAAxxAxCxCCTA; fastz's key for those
    twelve bases is 0x15C)."""
    parts = seedtable.lastz_packing("1110100110010101111", False)
    assert parts == [(0, 15781119), (16, 995328), (28, 768)]
    assert seedtable.lastz_keys(np.array([0x15C, 0x1C]), "1110100110010101111",
                                False).tolist() == [0x45C, 0x1C]
