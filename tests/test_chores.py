"""``--chores`` (LASTZ's alignment chores): the chores file's parsing and errors, the
seed search restricted to a window, and whole runs against the real lastz.

The pair is hpylori (one 275 kb target, one 265 kb query); the query is cut into four
records q1..q4 of 66 kb (FASTA, and 2bit, where LASTZ lets chores repeat a query), and
the target is also given as three records t1..t3 (``[multiple]``).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import LASTZ, drop_version

G = "--format=general:name1,start1,end1,name2,strand2,start2,end2,score,chore"

CHORES = {
    # each query once, in file order: valid for a FASTA query
    "A": "# chores for q4.fa\n"
         "T 1 50000 q1 1000 40000 + id=one\n"
         "* * * q2 id=two\n"
         "\n"
         "T 60000 200000 q3 10000 60000 -\n"
         "* 100000 275000 q4 * *    # comment\n",
    # runs of chores on one query: LASTZ re-uses the record of a 2bit file
    "B": "* 1 60000 q1 1 30000 + id=a\n"
         "* 1 90000 q1 20000 66000 id=b\n"
         "T * * q1 - id=c\n"
         "* 150000 275287 q3 100 50000 id=d\n"
         "* 150000 275287 q3 40000 66000 +\n"
         "* 1 100000 q4 # comment\n",
    # named pieces of a [multiple] target
    "C": "t1 1 93000 q1 * * + id=m1\n"
         "t2 10 50000 q2\n"
         "t3 * * q4 - id=m3\n"
         "t3 * * q4 id=m4\n",
    # small windows (seed-hit anchors are many)
    "N": "* 20000 30000 q1 10000 20000 id=s\n"
         "* 60000 62000 q2 1 66000 -\n",
    # the target aligned with itself: the trivial self-alignment is not bounded
    "S": "T 1000 5000 T 1000 5000 id=x\n",
    # a FASTA file's last record named twice, then more: LASTZ ends the run quietly
    "R": "* 1 50000 q3\n* 1 50000 q4\n* 1 90000 q4\n* 1 50000 q1\n",
}


@pytest.fixture(scope="module")
def work(tmp_path_factory, shared_pairs):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow" / "scripts"))
    import partition as wfp

    where = tmp_path_factory.mktemp("chores")
    p = shared_pairs / "hpylori_26695_vs_J99_Eslice"

    def seq(path):
        return "".join(line.strip() for line in open(path) if not line.startswith(">"))

    t, q = seq(p / "target.fa"), seq(p / "query.fa")

    def fasta(name, recs):
        with open(where / name, "w") as fh:
            for n, s in recs:
                fh.write(f">{n}\n" + "".join(s[i:i + 70] + "\n" for i in range(0, len(s), 70)))

    queries = [(f"q{k + 1}", q[k * 66000:(k + 1) * 66000]) for k in range(4)]
    fasta("q4.fa", queries)
    fasta("t1.fa", [("T", t)])
    fasta("t3.fa", [(f"t{k + 1}", t[k * 93000:(k + 1) * 93000]) for k in range(3)])
    wfp.write_twobit(str(where / "q4.2bit"),
                     [(wfp.Record(n, ">" + n, k + 1, len(s)), np.frombuffer(s.encode(), np.uint8))
                      for k, (n, s) in enumerate(queries)])
    for name, text in CHORES.items():
        (where / f"{name}.txt").write_text(text)
    return where


def _times_dropped(stderr: bytes) -> bytes:
    return re.sub(rb"^\([0-9hms.]+\) ", b"(T) ", stderr, flags=re.M)


def _both(where, args, stdin=None, fastz_only=()):
    def run(cmd):
        return subprocess.run(cmd, cwd=where, capture_output=True, timeout=600,
                              stdin=None if stdin is None else open(where / stdin, "rb"))
    lz = run([LASTZ, *args])
    fz = run([sys.executable, "-m", "fastz", *args, *fastz_only])
    return lz, fz


def _same(lz, fz):
    assert fz.returncode == lz.returncode == 0, fz.stderr.decode()[-400:]
    assert drop_version(fz.stdout) == drop_version(lz.stdout)
    assert _times_dropped(fz.stderr) == _times_dropped(lz.stderr)


PARITY = [
    ("t1.fa", "q4.fa", "A", []),
    ("t1.fa", "q4.fa", "A", [G]),
    ("t1.fa", "q4.fa", "A", ["--format=sam"]),
    ("t1.fa", "q4.2bit", "B", []),
    ("t1.fa", "q4.2bit", "B", [G]),
    ("t1.fa", "q4.2bit", "B", ["--format=maf"]),
    ("t1.fa", "q4.2bit", "B", ["--format=axt", "--strand=minus"]),
    ("t1.fa", "q4.2bit", "B", ["--strand=plus"]),
    ("t1.fa", "q4.2bit", "B", ["--nogapped"]),
    ("t1.fa", "q4.2bit", "B", ["--masking=1"]),
    ("t1.fa", "q4.2bit", "B", ["--progress=2", G]),
    ("t1.fa", "q4.2bit", "B", ["--chain"]),
    ("t1.fa", "q4.2bit", "B", ["--twins=5..100"]),
    ("t1.fa", "q4.2bit", "B", ["--filter=identity:90"]),
    ("t1.fa", "q4.2bit", "B", ["--inner=2000"]),
    ("t1.fa", "q4.2bit", "B", ["--recoverseeds"]),
    ("t1.fa", "q4.2bit", "B", ["--gfextend", "--exact=20"]),
    ("t1.fa", "q4.2bit", "B", ["--seed=match12", "--step=5"]),
    ("t1.fa", "q4.2bit", "B", ["--allocate:traceback=200K"]),
    ("t3.fa[multiple]", "q4.fa", "C", [G]),
    ("t3.fa[multiple]", "q4.fa", "C", ["--format=maf"]),
    ("t1.fa", "q4.fa", "N", ["--nogfextend"]),
    ("t1.fa", "q4.fa", "N", ["--nogfextend", "--nogapped", "--format=segments"]),
    ("t1.fa", "q4.fa", "N", ["--format=differences"]),
    ("t1.fa", "q4.fa", "N", ["--format=rdotplot"]),
    ("t1.fa", "t1.fa", "S", [G]),
    ("t1.fa", "t1.fa", "S", [G, "--notrivial"]),
    ("t1.fa", "q4.fa", "R", [G]),
]


@pytest.mark.parametrize("target,query,chores,words", PARITY,
                         ids=[f"{c}-{q}-{' '.join(w)[:40]}" for _, q, c, w in PARITY])
def test_chores_as_lastz(work, target, query, chores, words):
    """Each chore aligns its query within its two intervals: seed hits inside them
    only, gap-free extensions fenced at their ends, gapped ones bounded; stdout and
    stderr are lastz's."""
    lz, fz = _both(work, [target, query, f"--chores={chores}.txt", *words])
    _same(lz, fz)
    if chores in ("A", "B") and words == [G]:
        tags = {line.rsplit("\t", 1)[1] for line in lz.stdout.decode().splitlines()[1:]}
        assert {"one", "two"} <= tags if chores == "A" else {"a", "b", "c", "d"} <= tags
        assert len(lz.stdout.splitlines()) > 20


def test_chores_action_and_fastz_paths_agree(work):
    """``q.fa[chores=F]`` is ``--chores=F``; worker processes and the GPU backend (the
    kernels' CPU twins) give the same bytes."""
    args = ["t1.fa", "q4.2bit", G]
    lz, fz = _both(work, [args[0], "q4.2bit[chores=B.txt]", G])
    _same(lz, fz)
    for extra, env in ((["--workers=2"], {}), (["--backend=gpu"], {"FASTZ_GPU_ENGINE": "twin"})):
        other = subprocess.run([sys.executable, "-m", "fastz", *args, "--chores=B.txt", *extra],
                               cwd=work, capture_output=True, timeout=600,
                               env={**os.environ, **env})
        assert other.returncode == 0 and other.stdout == fz.stdout, extra


def test_query_from_stdin_drops_chores_as_lastz(work):
    """LASTZ hands --chores over only while opening a named query file: a query read
    from stdin is aligned whole, chores ignored."""
    lz, fz = _both(work, ["t1.fa", "--chores=A.txt", G], stdin="q4.fa")
    _same(lz, fz)
    assert b"\tone\n" not in lz.stdout and len(lz.stdout.splitlines()) > 30


BAD_LINES = [
    "T 1 50", "T 1 50 q1 5", "T 1 50 q1 5 10 + id=x extra", "T a 50 q1", "T 0 50 q1",
    "T * 50 q1", "T 5 * q1", "T 50 40 q1", "T 50 50 q1", "T 1 50 q1 0 10",
    "T 1 50 q1 * 10", "T 1 50 q1 10 *", "T 1 50 q1 60000 70000", "X 1 50 q1",
    "T 1 300000 q1", "* 1 50 q9", "T 1 50 q1 id=abcdefghijklmnopq", "* 1 50 q2\n* 1 50 q1",
    "* 1 50 q1\n* 1 60 q1", "", "# only comments\n", "T 1 50 q1 1 10 * id=z",
    "T 1 50 q1#x", "T 1 50 q1 5 10 id=x +", "T -5 50 q1",
]


@pytest.mark.parametrize("text", BAD_LINES)
def test_bad_chores_rejected_like_lastz(work, text, tmp_path):
    """A bad chore line, name or interval: lastz's message on one line, exit 1, and no
    output (lastz may have written earlier chores' alignments first)."""
    path = tmp_path / "bad.txt"
    path.write_text(text + "\n")
    lz, fz = _both(work, ["t1.fa", "q4.fa", f"--chores={path}", "--format=general"])
    assert lz.returncode == fz.returncode == 1
    want = " ".join(lz.stderr.decode().replace("FAILURE: ", "").split())
    got = fz.stderr.decode()
    assert got.count("\n") == 1 and got.startswith("fastz: ") and fz.stdout == b""
    assert " ".join(got[len("fastz: "):].split()) == want


@pytest.mark.parametrize("target,query,words,message", [
    ("t1.fa[chores=A.txt]", "q4.fa", [], "can't use [chores] for the target file"),
    ("t1.fa", None, ["--self", "--chores=A.txt"], "can't use --chores with --self"),
    ("t1.fa", "q4.fa[multiple]", ["--chores=A.txt"], "can't use --chores with [multiple]"),
    ("t1.fa", "q4.fa[chores=B.txt]", ["--chores=A.txt"], "only one chores file allowed"),
    ("t1.fa", "q4.fa[subset=A.txt]", ["--chores=A.txt"], "can't use these together"),
])
def test_chores_combinations_rejected_like_lastz(work, target, query, words, message):
    args = [target, *([query] if query else []), *words, "--format=general"]
    lz, fz = _both(work, args)
    assert lz.returncode != 0 and message in lz.stderr.decode()
    assert fz.returncode == 1 and message in fz.stderr.decode() and fz.stdout == b""


@pytest.mark.parametrize("words", [["--anyornone"], ["--stopafter=2"], ["--queryhspbest=3"],
                                   ["--queryhsplimit=5"], ["--hspthresh=top10%"]])
def test_chores_refused_where_lastz_misbehaves(work, words):
    """lastz 1.04.22 crashes with --anyornone/--stopafter and chores, and its shared HSP
    table keeps the query's previous chore's HSPs: fastz refuses these by name."""
    r = subprocess.run([sys.executable, "-m", "fastz", "t1.fa", "q4.2bit", "--chores=B.txt",
                        *words], cwd=work, capture_output=True, timeout=300)
    assert r.returncode == 1 and r.stdout == b""
    assert b"not yet supported by fastz: --chores with " in r.stderr
    assert words[0].split("=")[0].encode() in r.stderr


@pytest.mark.parametrize("query", ["q4.fa[separator=N]", "q4.fa[subsample=1/2]"])
def test_chores_refused_with_query_actions_fastz_does_not_follow(work, query):
    r = subprocess.run([sys.executable, "-m", "fastz", "t1.fa", query, "--chores=A.txt"],
                       cwd=work, capture_output=True, timeout=300)
    assert r.returncode == 1 and r.stdout == b"" and r.stderr.count(b"\n") == 1
    assert b"not yet supported by fastz: --chores with [" in r.stderr


# --- the windowed seed search against its plain definition -------------------------


WINDOWS = [(0, 1 << 62, 0, 1 << 62), (80_000, 90_000, 45_000, 60_000),
           (0, 275_287, 100_000, 150_000), (150_000, 275_287, 0, 265_111),
           (38_000, 60_000, 25_000, 47_000)]


@pytest.mark.parametrize("window", WINDOWS)
def test_windowed_search_processes_only_the_hits_inside(window, shared_pairs, monkeypatch):
    """``search_strand`` with a window gives what the hit processor gives on the
    whole strand's seed hits less those outside the window, for any block size; the
    search in parts and the general kernel (every hit processor) agree."""
    from fastz.kernels import filtering as kfilt
    from fastz.kernels import hitproc as khit
    from fastz.kernels.seeding import char_codes
    from fastz.pipeline import filtering as pfilt
    from fastz.pipeline.seeding import build_index
    from fastz.scoring import build_scoreset
    from seedharness import read_fasta, revcomp

    ss = build_scoreset()
    p = shared_pairs / "hpylori_26695_vs_J99_Eslice"
    t = read_fasta(p / "target.fa")[0].chars
    q = read_fasta(p / "query.fa")[0].chars
    index = build_index(t, "12of19", 1)
    s = index.spec
    monkeypatch.setattr(pfilt, "PARTS_MIN_QUERY", 0)
    t_lo, t_hi, q_lo, q_hi = window
    found = 0
    for qs in (q, revcomp(q)):
        len1, len2 = t.shape[0], qs.shape[0]
        args = (index.dir_, index.low, index.pos, index.low_bits, s.length, s.care_off,
                s.care_bits, s.flips, s.resolve_off, 1, t, qs, char_codes(qs), len1, len2,
                ss.masked, 910, 3000, 3000, 9000, kfilt.MODE_XDROP)
        hits, *_ = kfilt.enumerate_hits(*args[:13], len2, 0, 0, len2, 1, 1 << 40,
                                        0, kfilt.NO_LIMIT, kfilt.new_hits(), kfilt.new_hits())
        e1, e2, n = hits[:, 0], hits[:, 1], s.length
        inside = hits[(e1 - n >= t_lo) & (e1 <= t_hi) & (e2 - n >= q_lo) & (e2 <= q_hi)]
        out, rows, _, _ = kfilt.process_hits(inside, 0, inside.shape[0], t, qs, len1, len2, n,
                                             ss.masked, 910, 3000, 3000, 9000,
                                             kfilt.MODE_XDROP, kfilt.diag_hash(len2), -1,
                                             np.empty((16, 4), np.int64), 0)
        want = out[:rows]
        for block in (1 << 40, 97):
            got, _ = kfilt.search_strand(*args, kfilt.diag_hash(len2), 0, -1, block, *window)
            assert np.array_equal(got, want), block
        got = pfilt.find_hsps(index, t, qs, None, 1, ss.masked, 910, 3000, True,
                              threads=3, window=window)
        assert np.array_equal(pfilt._as_hsps(want), got)
        general = pfilt.find_hsps(index, t, qs, None, 1, ss.masked, 910, 3000, True,
                                  window=window, processor=pfilt.HitProcessor(
                                      proc=khit.PROC_SIMPLE, ext=khit.EXT_XDROP))
        assert np.array_equal(pfilt._as_hsps(want), general)
        found += want.shape[0]
    assert found > 3


@pytest.mark.parametrize("query", [
    "q.fa[subset=n1.txt]", "q.fq[subset=n1.txt]", "q.fa[subset=n1.txt,namejoin]",
    "q.fa[chores=c.txt]", "q.fq[chores=c.txt]"])
def test_records_found_by_name_keep_only_their_name_as_lastz(query, tmp_path):
    """A record found by name (a [subset] names file, chores) is re-read with the
    header LASTZ shortened in place to that name: lav's h stanza prints ">r1", not the
    whole header line (found on ecoli's descriptive headers)."""
    from conftest import REPO
    base = (REPO / "data" / "orangutan_mt.fa").read_text().split("\n", 1)[1].replace("\n", "")
    recs = [("r1 first record|x", base[:4000]), ("gi|123|r2 second: one", base[4000:9000]),
            ("r3\tthird  spaced", base[9000:14000])]
    (tmp_path / "q.fa").write_text("".join(f">{h}\n{s}\n" for h, s in recs))
    (tmp_path / "q.fq").write_text("".join(f"@{h}\n{s}\n+\n{'I' * len(s)}\n" for h, s in recs))
    (tmp_path / "n1.txt").write_text("r1\nr3\n")
    (tmp_path / "c.txt").write_text("* 1 16000 r1 1 4000 id=a\n* 1 16000 r3\n")
    lz, fz = _both(tmp_path, [str(REPO / "data" / "human_mt.fa"), query])
    _same(lz, fz)
    if query.startswith("q.fa"):
        assert b'   ">r1"\n' in lz.stdout
