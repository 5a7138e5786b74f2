"""``--verbosity``: LASTZ's info lines on stderr, compared with the real lastz's whole
stderr (and stdout).  Levels 1-10 print the position table line and one line per
query strand search (and from level 5 the files opened); lastz's gapped-extension
debugging lines of levels 2 and up ("processing anchor", "alignment block") are not
reproduced, so they are dropped from lastz's stderr before comparing."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import drop_version
from parity_cases import run_program

DEBUG = re.compile(rb"^(processing anchor|alignment block) .*\n", re.M)
MITO = "mito_human_orang"


@pytest.fixture(scope="module")
def work(shared_pairs: Path, tmp_path_factory) -> Path:
    """The mito pair, and five queries of the mers pair (several queries, each with
    both strands' searches) with a chores file using every strand form."""
    where = tmp_path_factory.mktemp("verbosity")
    for name in ("target.fa", "query.fa"):
        (where / f"mito_{name}").write_bytes((shared_pairs / MITO / name).read_bytes())
    mers = shared_pairs / "mers_ref_vs_46isolates"
    (where / "mers_target.fa").write_bytes((mers / "target.fa").read_bytes())
    records = (mers / "query.fa").read_text().split(">")[1:6]
    (where / "mers5.fa").write_text("".join(">" + r for r in records))
    names = [r.split()[0] for r in records]
    (where / "chores.txt").write_text(f"* * * {names[0]} * * +\n* * * {names[2]} * * -\n"
                                      f"* 1 10000 {names[3]} * *\n")
    return where


def _both(words, cwd: Path, stdin: bytes | None = None):
    lz = run_program("lastz", words, cwd, stdin=stdin)
    fz = run_program("fastz", words, cwd, stdin=stdin)
    return lz, fz


def _same(words, cwd: Path, stdin: bytes | None = None) -> bytes:
    lz, fz = _both(words, cwd, stdin)
    assert lz.returncode == 0, lz.stderr.decode()[-300:]
    assert fz.returncode == 0, fz.stderr.decode()[-300:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == DEBUG.sub(b"", lz.stderr)
    return fz.stderr


@pytest.mark.parametrize("words,lines", [
    (["mito_target.fa", "mito_query.fa", "--verbosity=1"], 3),
    (["mito_target.fa", "mito_query.fa", "v=1"], 5),                  # (level 10)
    (["mito_target.fa", "mito_query.fa", "--verbosity=5", "--strand=minus"], 4),
    (["mito_target.fa", "mito_query.fa", "--verbosity=4", "--strand=plus"], 2),
    (["mito_target.fa", "mito_query.fa", "--verbosity=1", "v=0"], 0),   # the last word wins
    (["mito_target.fa[100..9000]", "mito_query.fa[nickname=q]", "--verbosity=5",
      "--format=general"], 5),
    (["mito_target.fa", "--self", "--verbosity=5"], 5),
    (["mito_target.fa", "--tableonly=count", "--verbosity=5"], 2),
    (["mers_target.fa", "mers5.fa", "--verbosity=2", "--format=general"], 11),
    (["mers_target.fa", "mers5.fa", "--verbosity=1", "--queryhspbest=2"], 11),
    (["mers_target.fa", "mers5.fa", "--verbosity=1", "--anyornone", "--format=general"], 11),
    (["mers_target.fa", "mers5.fa", "--verbosity=1", "--chores=chores.txt",
      "--format=general"], 6),
    # a chore none of whose strands runs still says its search
    (["mers_target.fa", "mers5.fa", "--verbosity=1", "--chores=chores.txt",
      "--strand=plus", "--format=general"], 4),
    (["mers_target.fa", "mers5.fa", "--verbosity=1", "--chores=chores.txt",
      "--strand=minus", "--format=general"], 4),
], ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_verbosity_lines_are_lastzs(words, lines, work):
    said = _same(words, work)
    assert said.count(b"\n") == lines


@pytest.mark.parametrize("limit", [
    ["--queryhsplimit=3"],                       # a query dropped after its + search
    ["--queryhsplimit+=warn:3"],                 # kept: its - strand still searched
    ["--anyornone", "--queryhsplimit=warn:1"],   # HSP-immediate, searches stopped
    ["--stopafter=2", "--nogapped", "--queryhsplimit=2"],
], ids=" ".join)
def test_each_search_is_said_before_its_limit_warning(limit, work):
    """Where --queryhsplimit stops a search, lastz says the search, then its warning,
    then the next search; a query the limit drops still says the searches it made."""
    said = _same(["mers_target.fa", "mers5.fa", "--verbosity=1", *limit,
                  "--format=general:score,name2"], work)
    assert b"searching for matches in mers5.fa\nWARNING. Query" in said


def test_verbosity_of_a_query_on_stdin(work):
    said = _same(["mito_target.fa", "--verbosity=5"], work,
                 stdin=(work / "mito_query.fa").read_bytes())
    assert b"opening unnamed query file\n" in said and b"in (stdin), (reverse" in said


def test_verbosity_with_a_capsule(work):
    """Each program reads its own capsule (the formats differ): "linking to" names it."""
    for program in ("lastz", "fastz"):
        res = run_program(program, ["mito_target.fa", f"--writecapsule={program}.cap"], work)
        assert res.returncode == 0, res.stderr.decode()[-300:]
    said = [run_program(p, [f"--targetcapsule={p}.cap", "mito_query.fa", "--verbosity=5"],
                        work) for p in ("lastz", "fastz")]
    assert said[1].returncode == said[0].returncode == 0
    assert said[1].stderr.replace(b"fastz.cap", b"lastz.cap") == DEBUG.sub(b"", said[0].stderr)
    assert b"linking to position table in lastz.cap\n" in said[0].stderr


def test_verbosity_must_be_an_integer(work):
    lz, fz = _both(["mito_target.fa", "mito_query.fa", "--verbosity=abc"], work)
    assert lz.returncode != 0 and fz.returncode != 0
    assert fz.stderr == b'fastz: "abc" is not an integer\n'


def test_reading_says_its_lines_in_order_in_workers(work, shared_pairs):
    """With worker processes the parent reads the units ahead of the output; what
    reading one says (an empty sequence's warning) still comes with its strand, after
    the earlier strands' --verbosity lines, as lastz says it."""
    from readsim import first_record, simulate_reads
    reads = simulate_reads(first_record(shared_pairs / "ecoli_K12_vs_salmonella_LT2" /
                                        "target.fa"), 800, 150)
    cut = reads.index(">read400\n")
    (work / "reads.fa").write_text(reads[:cut] + ">empty\n\n" + reads[cut:])
    (work / "ecoli.fa").write_bytes(
        (shared_pairs / "ecoli_K12_vs_salmonella_LT2" / "target.fa").read_bytes())
    words = ["ecoli.fa", "reads.fa", "--verbosity=1", "--format=general", "--step=10",
             "--seed=match12", "--notransition", "--exact=20", "--noytrim", "--match=1,5"]
    lz = run_program("lastz", words, work)
    fz = run_program("fastz", [*words, "--workers=2"], work)
    assert lz.returncode == fz.returncode == 0
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    assert fz.stderr.count(b"\n") == 1 + 2 * 800 + 2
    assert fz.stderr.index(b"WARNING. reads.fa contains an empty sequence") > \
        fz.stderr.index(b"searching for matches in reads.fa") + 700 * 40
