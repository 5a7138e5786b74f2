"""Target capsules (``--writecapsule``, ``--targetcapsule``).

A capsule is each program's own file, so the parity runs are pairs: lastz writes its
capsule and aligns from it, fastz writes its own and aligns from that, each in its own
directory under the same file name, and the two outputs are compared whole (a run from
a capsule differs from a plain run: the target has no file name and its header is its
name).  The capsule file itself is tested by a round trip and by damaged copies.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import LASTZ, REPO, drop_version
from fastz.errors import InputError
from fastz.io import capsule as cap
from fastz.io.sequences import load_target
from fastz.options import Options
from fastz.pipeline.seeding import build_index

MITO = str(REPO / "data" / "human_mt.fa")
ORANG = str(REPO / "data" / "orangutan_mt.fa")
MESSAGE = re.compile(rb"^\d+\.\dM? byte target sequence capsule written to t\.cap\n$|"
                     rb"^\d+\.\d[KMG]? byte target sequence capsule written to t\.cap\n$")


@pytest.fixture(scope="module")
def dirs(tmp_path_factory, shared_pairs):
    """Two directories (lastz's, fastz's) with the same inputs: hp_t.fa / hp_q.fa
    (hpylori), mers4.fa (four MERS genomes, for [multiple] targets and queries)."""
    base = tmp_path_factory.mktemp("capsule")
    hp = shared_pairs / "hpylori_26695_vs_J99_Eslice"
    lines = (shared_pairs / "mers_ref_vs_46isolates" / "query.fa").read_text().splitlines()
    starts = [k for k, line in enumerate(lines) if line.startswith(">")]
    mers4 = "\n".join(lines[:starts[4]]) + "\n"
    out = []
    for side in ("lastz", "fastz"):
        d = base / side
        d.mkdir()
        (d / "hp_t.fa").symlink_to(hp / "target.fa")
        (d / "hp_q.fa").symlink_to(hp / "query.fa")
        (d / "mers4.fa").write_text(mers4)
        out.append(d)
    return out


@pytest.fixture(scope="module")
def mito_capsules(dirs):
    """m.cap (human mito) written by each program in its directory; c.txt, chores."""
    for program, where in zip(("lastz", "fastz"), dirs):
        assert _run(program, where, [MITO, "--writecapsule=m.cap"]).returncode == 0
        (where / "c.txt").write_text("* * * MT_orang\n")
    return dirs


def _run(program, where, args, stdin=None, env=None):
    cmd = [LASTZ] if program == "lastz" else [sys.executable, "-m", "fastz"]
    return subprocess.run([*cmd, *args], cwd=where, capture_output=True, timeout=600,
                          stdin=stdin, env=None if env is None else {**os.environ, **env})


def _pair(dirs, target, write_opts, run_args):
    """Write each program's capsule t.cap of ``target``, then align ``run_args`` from
    it; returns the (lastz, fastz) runs."""
    runs = []
    for program, where in zip(("lastz", "fastz"), dirs):
        w = _run(program, where, [target, *write_opts, "--writecapsule=t.cap"])
        assert w.returncode == 0, w.stderr.decode()[-300:]
        assert MESSAGE.match(w.stdout), w.stdout            # (sizes differ: own formats)
        runs.append(_run(program, where, ["--targetcapsule=t.cap", *run_args]))
    return runs


@pytest.mark.parametrize("target,write_opts,run_args", [
    (MITO, [], [ORANG]),                                         # lav: (no name), name
    (MITO, [], [ORANG, "--format=maf"]),
    (MITO, [], [ORANG, "--format=lav+text"]),
    (MITO, [], [ORANG, "--format=sam"]),
    (MITO, ["--seed=match12", "--step=5"], [ORANG, "--format=maf"]),   # seed and step kept
    (MITO, ["--seed=14of22", "--maxwordcount=2"], [ORANG, "--format=text", "--notransition"]),
    ("hp_t.fa", [], ["hp_q.fa", "--format=general"]),
    ("hp_t.fa[10001..200000]", [], ["hp_q.fa"]),                 # the subrange's start
    ("hp_t.fa[10001..200000]", [], ["hp_q.fa",
                                    "--format=general:name1,zstart1,end1,size1,start2,size2"]),
    ("hp_t.fa-", [], ["hp_q.fa"]),                               # a reverse-complemented target
    ("hp_t.fa[nameparse=darkspace]", [], ["hp_q.fa", "--format=maf"]),
    ("hp_t.fa", [], ["hp_q.fa", "--format=general", "--nogapped"]),
    ("hp_t.fa", [], ["hp_q.fa", "--format=general", "--chain", "--inner=1000"]),
    ("mers4.fa[multiple]", [], [ORANG, "--format=maf"]),            # pieces and their names
    ("mers4.fa[multiple]", [], ["mers4.fa[multiple]",
                                "--format=general:name1,start1,end1,name2,start2,end2,score"]),
    (MITO, [], ["--format=maf"]),                                # the query on stdin
])
def test_capsule_runs_as_lastz(dirs, target, write_opts, run_args):
    if run_args and run_args[0].startswith("--"):
        with open(ORANG, "rb") as fh:
            stdin = fh.read()
        runs = []
        for program, where in zip(("lastz", "fastz"), dirs):
            w = _run(program, where, [target, "--writecapsule=t.cap"])
            assert w.returncode == 0
            runs.append(subprocess.run(
                [*([LASTZ] if program == "lastz" else [sys.executable, "-m", "fastz"]),
                 "--targetcapsule=t.cap", *run_args], cwd=where, capture_output=True,
                input=stdin, timeout=600))
        lz, fz = runs
    else:
        lz, fz = _pair(dirs, target, write_opts, run_args)
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()[-400:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert fz.stderr == lz.stderr
    assert len(lz.stdout.splitlines()) > 3


def test_workers_and_gpu_twins_give_the_same_bytes(dirs):
    where = dirs[1]
    assert _run("fastz", where, ["hp_t.fa", "--writecapsule=t.cap"]).returncode == 0
    args = ["--targetcapsule=t.cap", "hp_q.fa", "--format=maf"]
    one = _run("fastz", where, [*args, "--workers=1"])
    two = _run("fastz", where, [*args, "--workers=2"])
    gpu = _run("fastz", where, [*args, "--backend=gpu"], env={"FASTZ_GPU_ENGINE": "twin",
                                                             "NUMBA_ENABLE_CUDASIM": "1"})
    plain = _run("fastz", where, ["hp_t.fa", "hp_q.fa", "--format=maf"])
    assert one.returncode == two.returncode == gpu.returncode == 0, gpu.stderr.decode()
    assert one.stdout == two.stdout == gpu.stdout
    # the alignments are a plain run's (maf's header holds the command line)
    assert one.stdout.split(b"\na ", 1)[1] == plain.stdout.split(b"\na ", 1)[1]


def test_writecapsule_prints_on_stdout_with_output(dirs):
    """lastz's 'capsule written' line is a printf: stdout, whatever --output says."""
    for program, where in zip(("lastz", "fastz"), dirs):
        run = _run(program, where, [MITO, "--writecapsule=t.cap", "--output=o.txt"])
        assert run.returncode == 0 and MESSAGE.match(run.stdout)
        assert (where / "o.txt").read_bytes() == b""


def test_showtable_then_writecapsule_as_lastz(dirs):
    runs = [_run(p, d, [MITO, "--showtable=count", "--writecapsule=t.cap"])
            for p, d in zip(("lastz", "fastz"), dirs)]
    tables = [r.stdout.rsplit(b"\n\n", 1)[0] for r in runs]
    assert runs[0].returncode == runs[1].returncode == 0
    assert tables[0] == tables[1] and tables[0].startswith(b"seed-word counts table")


@pytest.mark.parametrize("args", [
    [MITO, ORANG, "--targetcapsule=t.cap"],          # the two files named first
    ["--self", "--targetcapsule=t.cap"],
    ["--targetcapsule=t.cap", ORANG, "--masking=3"],
    ["--targetcapsule=t.cap", ORANG, "--seed=14of22"],
    ["--targetcapsule=t.cap", ORANG, "T=2"],
    ["--targetcapsule=t.cap", ORANG, "W=12"],
    ["--targetcapsule=t.cap", ORANG, "--word=20"],
    ["--targetcapsule=t.cap", ORANG, "--maxwordcount=5"],
    ["--targetcapsule=t.cap", ORANG, "--allocate:target=10M"],
    ["--targetcapsule=t.cap", ORANG, "--step=3"],
    ["--targetcapsule=t.cap", ORANG, "--chores=c.txt"],
    ["--targetcapsule=t.cap", ORANG, "--writecapsule=x.cap"],
    ["--targetcapsule=t.cap", "--targetcapsule=t.cap", ORANG],
    [MITO, "--writecapsule=w.cap", ORANG],
    [MITO, "--writecapsule=w.cap", "--self"],
    [MITO, "--writecapsule=w.cap", "--xdrop=500"],
    [MITO, "--writecapsule=w.cap", "--transition"],
    [MITO, "--writecapsule=w.cap", "--gap=400,30"],
    [MITO, "--writecapsule=w.cap", "--identity=90"],
    [MITO, "--writecapsule=w.cap", "--entropy"],
    [MITO, "--writecapsule=w.cap", "--hspthresh=2000"],
])
def test_refusals_as_lastz(mito_capsules, args):
    args = [a.replace("t.cap", "m.cap") for a in args]
    lz, fz = (_run(p, d, args) for p, d in zip(("lastz", "fastz"), mito_capsules))
    assert lz.returncode == fz.returncode == 1
    # (lastz's two-line messages are one line in fastz)
    assert fz.stderr.decode() == f"fastz: {' '.join(lz.stderr.decode().splitlines())}\n"
    assert fz.stdout == b""


@pytest.mark.parametrize("args", [
    ["--targetcapsule=t.cap", "--tableonly"],                 # lastz: segmentation fault
    ["--targetcapsule=t.cap", ORANG, "--showtable"],
    ["--targetcapsule=t.cap", f"{ORANG}[chores=c.txt]"],
])
def test_what_lastz_crashes_on_is_refused(mito_capsules, args):
    fz = _run("fastz", mito_capsules[1], [a.replace("t.cap", "m.cap") for a in args])
    assert fz.returncode == 1 and fz.stdout == b""
    assert re.fullmatch(rb"fastz: [^\n]*(crashes on it\)|with --targetcapsule)\n", fz.stderr)


def test_options_lastz_allows_with_a_capsule(dirs):
    """--notransition, --masking=0, --word=28 (the default) and a run's own scores."""
    lz, fz = _pair(dirs, MITO, [], [ORANG, "--notransition", "--masking=0", "--word=28",
                                    "--format=maf", "--gap=300,20"])
    assert lz.returncode == fz.returncode == 0, fz.stderr.decode()
    assert drop_version(fz.stdout) == drop_version(lz.stdout)


# --- the file ---------------------------------------------------------------------------


def _target_and_index(spec, **opts):
    o = Options(target=spec, **opts)
    target = load_target(spec, o)
    return target, build_index(target.chars, o.seed, o.step)


def test_round_trip_keeps_target_and_index(dirs, tmp_path):
    target, index = _target_and_index(str(dirs[1] / "mers4.fa") + "[multiple]")
    path = str(tmp_path / "r.cap")
    size = cap.write_capsule(path, target, "1110100110010101111", 28, index)
    assert size == os.path.getsize(path)
    back = cap.read_capsule(path)
    t = back.target
    assert np.array_equal(t.chars, target.chars)
    assert (t.name, t.header, t.filename) == (target.name, target.name, "")
    assert (t.contig, t.start, t.true_length, t.revcomp) == \
        (target.contig, target.start, target.true_length, target.revcomp)
    for field in ("offset", "length", "start", "true_length", "contig"):
        assert np.array_equal(getattr(t.partitions, field), getattr(target.partitions, field))
    assert t.partitions.names == target.partitions.names == t.partitions.headers
    for mine, theirs in ((back.dir_, index.dir_), (back.pos, index.pos), (back.low, index.low)):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    assert (back.seed, back.word, back.step, back.low_bits) == \
        ("1110100110010101111", 28, 1, index.low_bits)
    # mapped from the file, copy-on-write: runs share its pages, and a write (the
    # chores fences write into the target) never reaches the file
    assert isinstance(back.pos, np.memmap) and back.pos.mode == "c"
    t.chars[0] = 0
    assert cap.read_capsule(path).target.chars[0] == target.chars[0]


def test_damaged_capsules_are_one_line_errors(dirs, tmp_path):
    target, index = _target_and_index(MITO)
    good = tmp_path / "good.cap"
    cap.write_capsule(str(good), target, "1110100110010101111", 28, index)
    raw = good.read_bytes()
    cases = {"truncated": raw[:len(raw) - 4096], "foreign": b"\x00" * 64 + raw,
             "empty": b""}
    size = int.from_bytes(raw[len(cap.MAGIC):len(cap.MAGIC) + 8], "little")
    head = json.loads(raw[len(cap.MAGIC) + 8:len(cap.MAGIC) + 8 + size])
    head["version"] = 9                               # (same width)
    bumped = json.dumps(head).encode().ljust(size)
    cases["version"] = raw[:len(cap.MAGIC) + 8] + bumped + raw[len(cap.MAGIC) + 8 + size:]
    head["version"] = cap.VERSION
    head["arrays"]["pos"]["dtype"] = "<f8"
    cases["dtype"] = (raw[:len(cap.MAGIC) + 8] + json.dumps(head).encode().ljust(size)
                      + raw[len(cap.MAGIC) + 8 + size:])
    expect = {"truncated": "truncated", "foreign": "not written by fastz",
              "empty": "not written by fastz", "version": "version 9;",
              "dtype": "bad capsule file"}
    for name, data in cases.items():
        path = tmp_path / f"{name}.cap"
        path.write_bytes(data)
        with pytest.raises(InputError, match=expect[name]):
            cap.read_capsule(str(path))
    with pytest.raises(InputError, match="can't open capsule file"):
        cap.read_capsule(str(tmp_path / "missing.cap"))
    # lastz's own capsule, through the command line: one line, exit 1
    lz = _run("lastz", dirs[0], [MITO, "--writecapsule=t.cap"])
    assert lz.returncode == 0
    fz = _run("fastz", dirs[0], ["--targetcapsule=t.cap", ORANG])
    assert fz.returncode == 1 and fz.stdout == b""
    assert re.fullmatch(rb"fastz: bad capsule file t\.cap \(not written by fastz[^\n]*\n",
                        fz.stderr)


def test_unwritable_capsule_leaves_nothing(tmp_path):
    where = tmp_path / "ro"
    where.mkdir()
    fz = _run("fastz", tmp_path, [MITO, "--writecapsule=nodir/t.cap"])
    assert fz.returncode == 1 and fz.stdout == b""
    assert fz.stderr.startswith(b"fastz: can't open output file nodir/t.cap")
    assert not (tmp_path / "nodir").exists() and os.listdir(where) == []
