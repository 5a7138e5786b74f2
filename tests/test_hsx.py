"""HSX files (LASTZ's hashed index of sequences in FASTA files) as target and query.

The indexes are built by LASTZ's own tool, ``build_fasta_hsx.py`` (Debian
lastz-examples), in the ways it can write them (little and big endian, one bucket or
many, several FASTA files, header or bases pointed at, anonymous, empty sequences kept,
Windows line ends), and every run is compared with lastz's whole output.
"""
from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys

import pytest

from conftest import drop_version
from parity_cases import fastz_env, program_argv, run_program
from fastz.errors import InputError
from fastz.io import hsx
from fastz.io.sequences import iter_queries
from fastz.options import Options

TOOLS = "/usr/share/doc/lastz/examples/tools"


def _build(where, args, out, cwd=None):
    """Run LASTZ's build_fasta_hsx.py; Debian's Python 3 port writes its bytes as text,
    so its output is encoded as Latin-1 (one byte per character)."""
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    res = subprocess.run([sys.executable, str(where / "tools" / "build_fasta_hsx.py"), *args],
                         cwd=cwd or where, capture_output=True, env=env, check=True)
    (cwd or where).joinpath(out).write_bytes(res.stdout)


@pytest.fixture(scope="module")
def hx(tmp_path_factory, shared_pairs):
    d = tmp_path_factory.mktemp("hsx")
    tools = d / "tools"
    tools.mkdir()
    for name in ("build_fasta_hsx.py", "hsx_file.py", "hassock_hash.py"):
        src = os.path.join(TOOLS, name)
        if os.path.exists(src + ".gz"):
            (tools / name).write_bytes(gzip.open(src + ".gz").read())
        elif os.path.exists(src):
            (tools / name).write_bytes(open(src, "rb").read())
        else:
            pytest.fail(f"{src} missing: apt-get install lastz-examples")
    mers = shared_pairs / "mers_ref_vs_46isolates"
    dengue = shared_pairs / "dengue1_vs_dengue2"
    (d / "mers.fa").write_bytes((mers / "query.fa").read_bytes())
    (d / "ref.fa").write_bytes((mers / "target.fa").read_bytes())
    (d / "d1.fa").write_bytes((dengue / "target.fa").read_bytes())
    (d / "d2.fa").write_bytes((dengue / "query.fa").read_bytes())
    d2 = (dengue / "query.fa").read_bytes()
    (d / "emp.fa").write_bytes(b">e1\n\n>e2 short\nACGTACGTAC\n>e3\n" + d2)
    (d / "crlf.fa").write_bytes(d2.replace(b"\n", b"\r\n"))
    body = d2.split(b"\n", 1)[1]
    (d / "iupac.fa").write_bytes(b">amb\n" + body[:3000] + b"RYKM\nSWBD\n" + body[3000:])
    sub = d / "sub"
    sub.mkdir()
    (sub / "x2.fa").write_bytes(d2)
    (sub / "anon.fa").write_bytes(d2)
    _build(d, ["mers.fa"], "mers.hsx")
    _build(d, ["--bigendian", "--numbuckets=3", "mers.fa", "d2.fa"], "both.hsx")
    _build(d, ["--numbuckets=1", "mers.fa"], "one.hsx")
    _build(d, ["--skipheader", "mers.fa"], "skip.hsx")
    _build(d, ["--keepempties", "emp.fa"], "emp.hsx")
    _build(d, ["--windows", "crlf.fa"], "crlf.hsx")
    _build(d, ["ref.fa"], "ref.hsx")
    _build(d, ["iupac.fa"], "iupac.hsx")
    _build(d, ["x2.fa"], "x.hsx", cwd=sub)
    _build(d, ["--anonymous", "anon.fa"], "anon.hsx", cwd=sub)
    names = [line[1:].split()[0] for line in (d / "mers.fa").read_text().splitlines()
             if line.startswith(">")]
    (d / "names.txt").write_text(f"{names[30]}\n{names[1]}\n# comment\n{names[30]}\n")
    (d / "names2.txt").write_text(f"{names[4]}\n  {names[19]} extra words\n{names[0]}\n"
                                  "DENV2_NC_001474\n")
    (d / "chores.txt").write_text(f"* 20001 26000 {names[1]} 19001 27000 +\n"
                                  f"* 20001 26000 {names[30]} 19001 27000 -\n"
                                  f"* 1 26000 {names[30]} 1 27000 +\n")
    return d


def _both(hx, words, stdin=None):
    runs = [run_program(p, words, hx, stdin=stdin) for p in ("lastz", "fastz")]
    return runs


CASES = [
    "ref.fa mers.hsx",
    "ref.fa mers.hsx --format=maf",
    "ref.fa both.hsx --format=general",
    "ref.fa one.hsx --format=general",
    "ref.fa both.hsx/MERS_Al_Hasa_15_2013 --format=maf",
    "ref.fa mers.hsx[subset=names.txt] --format=maf",
    "ref.fa both.hsx[subset=names2.txt] --format=general",
    "ref.fa mers.hsx[subsample=2/5] --format=general",
    "ref.fa mers.hsx/MERS_Riyadh_3_2013[100..5000] --format=maf",
    "ref.fa mers.hsx/MERS_Riyadh_3_2013[nickname=bob] --format=maf",
    "ref.fa mers.hsx/MERS_Riyadh_3_2013[unmask] --format=maf",
    "ref.fa mers.hsx/MERS_Riyadh_3_2013[nameparse=full] --format=maf",
    "ref.fa mers.hsx/MERS_Riyadh_3_2013- --format=maf",
    "ref.fa mers.hsx[1..5000] --format=general",
    "ref.fa mers.hsx[separator=N] --format=general",
    "ref.hsx mers.hsx/MERS_Riyadh_3_2013 --format=maf",
    "ref.hsx[multiple] mers.hsx/MERS_Riyadh_3_2013 --format=axt",
    "mers.hsx[multiple] ref.fa --format=general",
    "ref.hsx --self --format=maf",
    "ref.fa skip.hsx/MERS_Riyadh_3_2013 --format=maf",
    "d1.fa emp.hsx --format=maf",
    "d1.fa crlf.hsx --format=maf",
    "d1.fa sub/x.hsx --format=maf",
    "d1.fa sub/anon.hsx --format=axt",
    "d1.fa iupac.hsx --ambiguous=iupac --format=general-",
    "ref.fa mers.hsx --chores=chores.txt --format=maf",
    "ref.fa mers.hsx[chores=chores.txt] --format=general",
    "ref.fa mers.hsx[subset=names.txt] --format=sam",
]


@pytest.mark.parametrize("words", CASES)
def test_hsx_as_lastz(hx, words):
    lz, fz = _both(hx, words.split())
    assert lz.returncode == 0, lz.stderr.decode()[-300:]
    assert fz.returncode == 0, fz.stderr.decode()[-300:]
    assert lz.stdout.count(b"\n") > 0
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr          # (the empty-sequence warnings)


def test_hsx_query_on_stdin(hx):
    """From a file on stdin, as lastz (which cannot read an index from a pipe: fastz
    reads it whole)."""
    runs = []
    for program in ("lastz", "fastz"):
        with open(hx / "mers.hsx", "rb") as stdin:
            runs.append(subprocess.run([*program_argv(program), "ref.fa", "--format=general"],
                                       cwd=hx, stdin=stdin, capture_output=True,
                                       timeout=600, env=fastz_env()))
    lz, fz = runs
    assert lz.returncode == fz.returncode == 0
    assert lz.stdout.count(b"\n") > 40
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    piped = run_program("fastz", ["ref.fa", "--format=general"], hx,
                        stdin=(hx / "mers.hsx").read_bytes())
    assert piped.returncode == 0 and piped.stdout == fz.stdout


ERRORS = [
    ("ref.fa mers.hsx/NOSUCH", "hsx file mers.hsx doesn't contain NOSUCH"),
    ("ref.fa mers.hsx[subset=names2.txt]", "hsx file mers.hsx doesn't contain DENV2_NC_001474"),
    ("ref.fa mers.hsx/MERS_Riyadh_3_2013[100..50000]",
     "beyond end in mers.hsx/MERS_Riyadh_3_2013 (50000 > 30064)"),
    ("ref.fa mers.hsx[nameparse=darkspace]", '"nameparse=" is not valid for hsx files'),
    ("ref.fa mers.hsx[nameparse=tag:x]", '"nameparse=" is not valid for hsx files'),
    ("ref.fa mers.hsx[nameparse=alphanum]", '"nameparse=" is not valid for hsx files'),
    ("ref.hsx mers.fa", None),
    ("d1.fa iupac.hsx", "bad fasta character in iupac.hsx, amb (uppercase R)"),
    ("mers.hsx ref.fa", "target file mers.hsx contains more than one sequence"),
]


@pytest.mark.parametrize("words,message", ERRORS)
def test_hsx_errors_as_lastz(hx, words, message):
    lz, fz = _both(hx, words.split())
    if message is None:              # (not an error: ref.hsx holds one sequence)
        assert lz.returncode == fz.returncode == 0
        assert drop_version(fz.stdout) == drop_version(lz.stdout)
        return
    assert lz.returncode != 0 and fz.returncode == 1
    assert message.split(" (")[0].encode() in lz.stderr
    err = fz.stderr.decode()
    assert err.startswith("fastz: ") and message in err and err.count("\n") == 1, err


def test_damaged_index_is_one_line(hx, tmp_path):
    good = (hx / "mers.hsx").read_bytes()
    cases = {"short.hsx": good[:40], "ver.hsx": good[:4] + b"\x02" + good[5:],
             "nobuckets.hsx": good[:0x14] + bytes(4) + good[0x18:],
             "nofiles.hsx": good[:0x0C] + bytes(4) + good[0x10:],
             "type.hsx": good.replace(b"\x02fa", b"\x02fq", 1)}
    expect = {"short.hsx": "short read", "ver.hsx": "bad hsx version",
              "nobuckets.hsx": "(numBuckets = 0)", "nofiles.hsx": "empty file table",
              "type.hsx": "unsupported file type: fq"}
    for name, data in cases.items():
        (hx / name).write_bytes(data)
        res = run_program("fastz", ["ref.fa", name], hx)
        err = res.stderr.decode()
        assert res.returncode == 1 and err.count("\n") == 1 and expect[name] in err, err
        assert b"Traceback" not in res.stderr


def test_missing_fasta_file(hx, tmp_path):
    (tmp_path / "mers.hsx").write_bytes((hx / "mers.hsx").read_bytes())
    res = run_program("fastz", [str(hx / "ref.fa"), "mers.hsx"], tmp_path)
    assert res.returncode == 1
    assert res.stderr.decode() == ('fastz: failed to open "mers.fa" for "rb" '
                                   "(No such file or directory)\n")


def test_workers_give_the_same_bytes(hx):
    one = run_program("fastz", ["ref.fa", "both.hsx", "--workers=1"], hx)
    two = run_program("fastz", ["ref.fa", "both.hsx", "--workers=2"], hx)
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout and one.stdout.count(b"\n") > 100


# --- the index itself ---------------------------------------------------------------


def test_hash_is_lastz_hassock_hash(hx):
    sys.path.insert(0, str(hx / "tools"))
    try:
        import hassock_hash as theirs
    finally:
        sys.path.pop(0)
    rng = random.Random(7)
    names = ["", "a", "ab", "abc", "abcd", "abcde", "MERS_Al_Hasa_15_2013", "\x7f\x80z"]
    names += ["".join(chr(rng.randrange(33, 127)) for _ in range(rng.randrange(1, 40)))
              for _ in range(500)]
    for name in names:
        assert hsx.hassock_hash(name.encode("latin-1")) == theirs.hassock_hash(name), name


@pytest.mark.parametrize("index", ["mers.hsx", "both.hsx", "one.hsx"])
def test_lookup_finds_every_name_and_no_other(hx, index):
    with open(hx / index, "rb") as f:
        table = hsx.HsxFile(f, str(hx / index))
        at, seen = table.first(), []
        for _ in range(table.count):
            entry = table.entry(at)
            assert table.lookup(entry.name) == at
            seen.append(entry.name)
            at = entry.after
        for name in seen:
            for absent in (name + "x", name[:-1], name.lower(), "~" + name):
                if absent not in seen:
                    assert table.lookup(absent) is None
        table.close()
    fasta_names = [ln[1:].split()[0] for ln in (hx / "mers.fa").read_text().splitlines()
                   if ln.startswith(">")]
    assert set(fasta_names) <= set(seen)


def test_records_are_the_fasta_records(hx):
    """Every sequence read through the index has the FASTA record's bases (in the
    index's order), its length and its name as header."""
    opts = Options()
    by_name = {s.name: s for s in iter_queries(str(hx / "mers.fa"), opts)}
    got = list(iter_queries(str(hx / "both.hsx"), opts))
    assert len(got) == len(by_name) + 1
    for seq in got:
        if seq.name == "DENV2_NC_001474":
            continue
        want = by_name[seq.name]
        assert seq.header == seq.name
        assert seq.true_length == want.true_length
        assert bytes(seq.chars) == bytes(want.chars)


def test_index_order_and_select(hx):
    opts = Options()
    with open(hx / "mers.hsx", "rb") as f:
        table = hsx.HsxFile(f, "mers.hsx")
        at, order = table.first(), []
        for _ in range(table.count):
            entry = table.entry(at)
            order.append(entry.name)
            at = entry.after
    assert [s.name for s in iter_queries(str(hx / "mers.hsx"), opts)] == order
    in_file = [ln[1:].split()[0] for ln in (hx / "mers.fa").read_text().splitlines()
               if ln.startswith(">")]
    assert sorted(order) == sorted(in_file) and order != in_file    # (hash order)
    one = list(iter_queries(str(hx / "mers.hsx") + "/" + order[7], opts))
    assert [s.name for s in one] == [order[7]]
    with pytest.raises(InputError, match="doesn't contain"):
        list(iter_queries(str(hx / "mers.hsx") + "/nope", opts))
