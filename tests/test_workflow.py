"""The Snakemake workflow (issue 5): partition, merge, and real chunked runs.

Partition and merge are tested as functions (their formats against real ``lastz`` runs,
which are byte-identical to fastz's and much faster to start 60 times); the workflow
itself is linted, dry-run and run for real with the installed fastz on two genome pairs
split into several chunks per side, and each merged result must equal one whole-genome
fastz run sorted the same way (docs/workflow.md, "Merge rule").
"""
import io
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from fastz.compare import compare_texts

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "workflow" / "scripts"))
import merge as wf_merge  # noqa: E402
import partition as wf_partition  # noqa: E402

PSEUDO = "lastz_pseudocat_vs_pseudopig"     # 18.8 kb target, 3 x 22.9 kb query records


def _env() -> dict:
    """Subprocess environment: no CUDA simulator, this venv's scripts on PATH."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


# --- partition ---------------------------------------------------------------------------


@pytest.mark.parametrize("length,size,overlap", [
    (1000, 1000, 100), (1001, 1000, 100), (275287, 160000, 100000), (500000, 200000, 20000),
    (99999, 10000, 0), (12345, 300, 299)])
def test_split_record_pieces_overlap_and_cores_tile(length, size, overlap):
    pieces = wf_partition.split_record(length, size, overlap)
    starts = np.array([p[0] for p in pieces])
    ends = np.array([p[1] for p in pieces])
    cores = np.array([(p[2], p[3]) for p in pieces])
    assert starts[0] == 0 and ends[-1] == length
    assert ((ends - starts) <= size).all()
    if len(pieces) > 1:
        assert (ends[:-1] - starts[1:] == overlap).all()          # exactly the overlap
    assert cores[0, 0] == 0 and cores[-1, 1] == length
    assert (cores[1:, 0] == cores[:-1, 1]).all()                   # cores tile the record
    assert (cores[:, 0] < cores[:, 1]).all()
    # an interval no longer than the overlap lies whole in the piece owning its midpoint
    rng = np.random.default_rng(length)
    lo = rng.integers(0, length, 2000)
    hi = np.minimum(length, lo + rng.integers(1, overlap + 2, 2000))
    owner = np.searchsorted(cores[:, 1], (lo + hi) // 2, side="right")
    fits = (starts[owner] <= lo) & (hi <= ends[owner])
    assert fits[hi - lo <= overlap].all()


def test_plan_chunks_bins_short_records_in_file_order():
    plan = wf_partition.plan_chunks([5, 3, 20, 4, 4, 9], 10, 2, "t")
    got = [[(p.record, p.start, p.end) for p in c.pieces] for c in plan]
    assert got == [[(0, 0, 5), (1, 0, 3)], [(2, 0, 8)], [(2, 6, 14)], [(2, 12, 20)],
                   [(3, 0, 4), (4, 0, 4)], [(5, 0, 9)]]
    assert [c.chunk for c in plan] == [f"t{k:05d}" for k in range(6)]
    alone = wf_partition.plan_chunks([5, 3, 20], 10, 2, "q", bin_records=False)
    assert [len(c.pieces) for c in alone] == [1, 1, 1, 1, 1]
    with pytest.raises(wf_partition.PartitionError):
        wf_partition.plan_chunks([5], 10, 10, "t")


def test_twobit_writer_round_trips_case_and_n_runs(tmp_path):
    from fastz.io.twobit import TwoBitFile

    rng = np.random.default_rng(5)
    seqs = {}
    for name, n in (("a", 1), ("b", 7), ("chrX", 1001)):
        s = rng.choice(np.frombuffer(b"ACGTNacgtn", np.uint8), n)
        s[: n // 3] = ord("N")                       # runs at the start ...
        s[-2:] = ord("n")                            # ... and the end
        seqs[name] = s
    recs = [(wf_partition.Record(k, f">{k}", i + 1, len(v)), v)
            for i, (k, v) in enumerate(seqs.items())]
    path = tmp_path / "g.2bit"
    wf_partition.write_twobit(str(path), recs)
    assert wf_partition.is_twobit(str(path))

    class Whole:
        def clip(self, total, filename, header):
            return 0, total

    class Sub:
        def clip(self, total, filename, header):
            return 3, total - 2

    with open(path, "rb") as f:
        tb = TwoBitFile(f, str(path))
        assert tb.names == list(seqs)
        for k, v in enumerate(seqs.values()):
            chars, length, _ = tb.read(k, Whole(), False)
            assert length == len(v) and bytes(chars) == bytes(v)
            if len(v) > 5:
                assert bytes(tb.read(k, Sub(), False)[0]) == bytes(v[3:-2])
    bad = [(wf_partition.Record("x", ">x", 1, 3), np.frombuffer(b"ACX", np.uint8))]
    with pytest.raises(wf_partition.PartitionError, match="2bit"):
        wf_partition.write_twobit(str(tmp_path / "bad.2bit"), bad)


def test_chunk_specs_load_the_planned_bases(tmp_path, shared_pairs):
    """Each chunk's specifier, read by fastz's loader, gives exactly its pieces."""
    from types import SimpleNamespace

    from fastz.io.sequences import iter_queries

    src = shared_pairs / PSEUDO / "query.fa"
    whole = {r.name: bytes(c) for r, c in wf_partition.iter_fasta(str(src))}
    chunks = wf_partition.partition(str(src), str(tmp_path / "q"), "q", 10000, 4000)
    assert len(chunks) == 12
    specs = wf_partition.read_chunks(str(tmp_path / "q"))
    records = wf_partition.read_records(str(tmp_path / "q"))
    assert [r["name"] for r in records] == ["pig1", "pig2", "pig3"]
    for c in chunks:
        loaded = list(iter_queries(specs[c.chunk], SimpleNamespace(ambiguous_iupac=False)))
        assert len(loaded) == len(c.pieces)
        for seq, p in zip(loaded, c.pieces):
            name = records[p.record]["name"]
            assert seq.name == name and seq.start == p.start
            assert bytes(seq.chars) == whole[name][p.start:p.end]


# --- merge (against real lastz) -----------------------------------------------------------


def _chunked_lastz(run_lastz, pairs: Path, tmp: Path, fmt: str, size: int, overlap: int,
                   target_size: int | None = None):
    """Partition both genomes, run lastz on every chunk pair, merge; also the whole run
    merged through the same code (sorted the same way)."""
    t, q = pairs / "target.fa", pairs / "query.fa"
    wf_partition.partition(str(t), str(tmp / "t"), "t", target_size or size, overlap,
                           fmt != "lav", True)
    wf_partition.partition(str(q), str(tmp / "q"), "q", size, overlap, True, False)
    tspecs, qspecs = (wf_partition.read_chunks(str(tmp / s)) for s in "tq")
    jobs = [(tc, ts, qc, qs) for tc, ts in tspecs.items() for qc, qs in qspecs.items()]
    with ThreadPoolExecutor(2) as pool:
        texts = list(pool.map(lambda j: run_lastz([j[1], j[3], f"--format={fmt}"]).decode(),
                              jobs))
    outs = [(tc, qc, text) for (tc, _, qc, _), text in zip(jobs, texts)]
    target = wf_merge.Side.from_dir(str(tmp / "t"), str(t))
    query = wf_merge.Side.from_dir(str(tmp / "q"), str(q))
    buf = io.StringIO()
    report = wf_merge.merge(fmt, target, query, outs, buf)
    several = len(target.records) > 1
    whole = run_lastz([f"{t}[multiple]" if several else str(t), str(q),
                       f"--format={fmt}"]).decode()
    ref = wf_merge.merge_texts(fmt, wf_merge.Side.whole(target.records, str(t)),
                               wf_merge.Side.whole(query.records, str(q)),
                               [("all", "all", whole)])
    return buf.getvalue(), ref, whole, report


@pytest.mark.parametrize("fmt", ["general", "axt", "maf", "lav", "paf"])
def test_merge_equals_whole_run_in_every_format(tmp_path, shared_pairs, lastz_runner, fmt):
    """2 target x 9 query chunks, overlap 4000 >= the longest alignment (3730): the
    merged file is the whole run's file, byte for byte (LAV stanzas rebuilt, AXT
    renumbered, minus-strand coordinates lifted)."""
    got, ref, whole, report = _chunked_lastz(lastz_runner, shared_pairs / PSEUDO, tmp_path,
                                             fmt, 12000, 4000)
    assert report.pairs == 18 and report.kept == 14 and report.read > report.kept
    assert got == ref
    assert got == whole          # no equal target starts here, so even the order is LASTZ's


def test_merge_with_a_multiple_target_chunk(tmp_path, shared_pairs, lastz_runner):
    """Both target records packed into one [multiple] chunk, the query in 5 chunks."""
    got, ref, whole, report = _chunked_lastz(lastz_runner, shared_pairs / "mlc_testdata_pair",
                                             tmp_path, "maf", 200000, 20000, 600000)
    spec = wf_partition.read_chunks(str(tmp_path / "t"))["t00000"]
    assert spec.endswith("[multiple]") and report.pairs == 5
    assert got == ref and compare_texts(got, whole).same_set


def test_merge_flags_alignments_cut_by_a_short_overlap(tmp_path, shared_pairs, lastz_runner):
    """Overlap 1000 < longest alignment: the result differs, and every alignment the
    whole run lacks is listed as a suspect."""
    got, ref, _, report = _chunked_lastz(lastz_runner, shared_pairs / PSEUDO, tmp_path,
                                         "general", 6000, 1000)
    res = compare_texts(ref, got)
    assert not res.same_set and res.extra
    flagged = {a.where for a, _ in report.suspects}
    for line in res.extra:
        f = line.split("\t")
        lo, hi = int(f[9]), int(f[10])
        if f[7] == "-":
            lo, hi = int(f[8]) - hi, int(f[8]) - lo
        assert f"{f[1]}:{f[4]}-{f[5]} x {f[6]}:{lo}-{hi} {f[7]}" in flagged
    assert "suspects" in report.text()


def test_merge_keeps_one_copy_and_flags_chunks_that_disagree():
    recs = [{"index": 0, "contig": 1, "name": "t", "length": 100, "header": ">t"}]
    qrecs = [{"index": 0, "contig": 1, "name": "q", "length": 100, "header": ">q"}]
    P = wf_partition.Piece
    target = wf_merge.Side("T", recs, {"t0": {0: P(0, 0, 60, 0, 50)},
                                       "t1": {0: P(0, 40, 100, 50, 100)}})
    query = wf_merge.Side("Q", qrecs, {"q0": {0: P(0, 0, 100, 0, 100)}})
    head = "#score\tname1\tstrand1\tsize1\tzstart1\tend1\tname2\tstrand2\tsize2\tzstart2\tend2\n"
    a = "9\tt\t+\t100\t45\t55\tq\t-\t100\t10\t26\n"      # midpoint 50: owned by t1
    b = "8\tt\t+\t100\t5\t20\tq\t+\t100\t5\t20\n"       # only t0 holds it
    buf = io.StringIO()
    rep = wf_merge.merge("general", target, query,
                         [("t0", "q0", head + b + a), ("t1", "q0", head + a)], buf,
                         border_slack=3)
    assert buf.getvalue() == head + b + a
    assert (rep.read, rep.kept, rep.suspects) == (3, 2, [])
    # t0 computed a different alignment where t1 found a: both are kept, both flagged
    a2 = "7\tt\t+\t100\t45\t54\tq\t-\t100\t10\t26\n"     # midpoint 49.5: owned by t0
    rep = wf_merge.merge("general", target, query,
                         [("t0", "q0", head + a2), ("t1", "q0", head + a)], io.StringIO(),
                         border_slack=3)
    assert rep.kept == 2
    assert sorted(why for _, why in rep.suspects) == ["from t0 x q0, not in t1 x q0",
                                                      "from t1 x q0, not in t0 x q0"]
    with pytest.raises(wf_merge.MergeError, match="lacks a field"):
        wf_merge.merge_texts("general:name1,score", target, query,
                             [("t0", "q0", "#name1\tscore\nt\t9\n")])


# --- the Snakemake workflow ----------------------------------------------------------------


def _snakemake(args, cwd, check=True, timeout=300) -> subprocess.CompletedProcess:
    pytest.importorskip("snakemake")
    res = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
                          *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                         timeout=timeout)
    if check and res.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{res.stderr[-3000:]}")
    return res


def _job_counts(text: str) -> dict[str, int]:
    """The 'Job stats' table of a snakemake run (the last one printed)."""
    block = text.rsplit("Job stats:", 1)[1]
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^(\w+)\s+(\d+)$", block, re.M) if m.group(1) != "total"}


def _config(pairs: Path, outdir: Path, **extra) -> list[str]:
    words = [f"target={pairs / 'target.fa'}", f"query={pairs / 'query.fa'}",
             f"outdir={outdir}", f"fastz={sys.executable} -m fastz"]
    return ["--config", *words, *(f"{k}={v}" for k, v in extra.items())]


def test_snakemake_lint_is_clean(tmp_path, shared_pairs):
    res = _snakemake(["--lint", *_config(shared_pairs / PSEUDO, tmp_path / "out")], tmp_path)
    assert "Congratulations, your workflow is in a good condition!" in res.stdout + res.stderr


def test_dry_run_lists_the_expected_jobs(tmp_path, shared_pairs):
    out = tmp_path / "out"
    cfg = _config(shared_pairs / PSEUDO, out, chunk_size=10000, chunk_overlap=4000,
                  format="general")
    before = _snakemake(["-n", *cfg], tmp_path)
    assert _job_counts(before.stdout) == {"partition": 2, "merge": 1, "all": 1}
    # what the checkpoint writes (its script's function): 3 target, 12 query chunks
    for side, prefix in (("target", "t"), ("query", "q")):
        wf_partition.partition(str(shared_pairs / PSEUDO / f"{side}.fa"),
                               str(out / "chunks" / side), prefix, 10000, 4000,
                               True, side == "target")
    after = _snakemake(["-n", *cfg], tmp_path)
    assert _job_counts(after.stdout) == {"align": 36, "merge": 1, "all": 1}
    assert f"{out}/align/general/t00002/q00011.out" in after.stdout


def test_schema_refuses_bad_values():
    import yaml
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    pytest.importorskip("snakemake")
    good = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    validate(dict(good), str(REPO / "config" / "schema.yaml"))
    for key, value in (("format", "sam"), ("format", ["maf", "bam"]), ("chunk_size", 0),
                       ("chunk_overlap", -1), ("unknown_key", 1), ("align", {"gpu": -1})):
        with pytest.raises(WorkflowError):
            validate({**good, key: value}, str(REPO / "config" / "schema.yaml"))


def test_unsupported_fastz_option_is_refused_at_start(tmp_path, shared_pairs):
    res = _snakemake(["-n", *_config(shared_pairs / PSEUDO, tmp_path / "o",
                                     fastz_options="--step=5 --self")], tmp_path, check=False)
    assert res.returncode != 0
    assert "--self is not supported by the workflow" in res.stdout + res.stderr


def _whole_fastz(target: str, query: str) -> str:
    res = subprocess.run([sys.executable, "-m", "fastz", target, query, "--format=general"],
                         env=_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout


def _assert_equals_whole_run(outdir: Path, whole: str, target: str, query: str):
    got = (outdir / "result.general").read_text()
    records = [wf_partition.read_records(str(outdir / "chunks" / s)) for s in ("target", "query")]
    ref = wf_merge.merge_texts("general", wf_merge.Side.whole(records[0], target),
                               wf_merge.Side.whole(records[1], query), [("all", "all", whole)])
    res = compare_texts(got, whole)
    assert res.same_set, res.summary()
    assert got == ref, compare_texts(got, ref).summary()
    log = (outdir / "logs" / "merge.general.log").read_text()
    assert "suspects (cut by a chunk border" in log


@pytest.mark.slow
def test_fastz_workflow_hpylori_equals_one_whole_run(tmp_path, shared_pairs, monkeypatch):
    """3 x 3 chunks (160 kb, overlap 100 kb >= the 79.7 kb longest alignment) through
    ``fastz workflow``; the merged result equals one fastz run on the whole sequences."""
    pytest.importorskip("snakemake")
    from fastz.workflow import main

    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    pair = shared_pairs / "hpylori_26695_vs_J99_Eslice"
    t, q, out = str(pair / "target.fa"), str(pair / "query.fa"), tmp_path / "out"
    rc = main([t, q, "--outdir", str(out), "--chunk-size", "160000", "--chunk-overlap",
               "100000", "--format", "general", "--cores", "2"])
    assert rc == 0
    assert len(wf_partition.read_chunks(str(out / "chunks" / "target"))) == 3
    assert len(wf_partition.read_chunks(str(out / "chunks" / "query"))) == 3
    _assert_equals_whole_run(out, _whole_fastz(t, q), t, q)


@pytest.mark.slow
def test_snakemake_mlc_equals_one_whole_run(tmp_path, shared_pairs):
    """Two records per side, the short one a chunk of its own, the long one cut in two:
    3 x 3 chunk pairs via ``snakemake --config``."""
    pair = shared_pairs / "mlc_testdata_pair"
    out = tmp_path / "out"
    _snakemake(["--cores", "2", *_config(pair, out, chunk_size=260000, chunk_overlap=20000,
                                         format="general")], tmp_path, timeout=600)
    specs = wf_partition.read_chunks(str(out / "chunks" / "target"))
    assert len(specs) == 3 and len(wf_partition.read_chunks(str(out / "chunks" / "query"))) == 3
    t, q = str(pair / "target.fa"), str(pair / "query.fa")
    _assert_equals_whole_run(out, _whole_fastz(f"{t}[multiple]", q), t, q)


def test_fastz_workflow_command_line(tmp_path):
    from fastz.workflow import build_command, workflow_root

    assert (workflow_root() / "Snakefile").is_file()
    cmd, config, outdir = build_command(
        ["T.fa", "Q.2bit", "--outdir", str(tmp_path / "o"), "--chunk-size", "5000000",
         "--chunk-overlap", "50000", "--format", "maf", "--format", "general", "--cores",
         "8", "--profile", "slurm", "--gpu", "1", "--", "--step=20", "K=3000"])
    assert cmd[:3] == [sys.executable, "-m", "snakemake"]
    assert cmd[cmd.index("--directory") + 1] == str(tmp_path / "o")
    assert cmd[cmd.index("--profile") + 1] == str(workflow_root() / "profiles" / "slurm")
    assert cmd[-1] == str(tmp_path / "o" / "fastz_workflow.yaml")
    assert config["target"] == str(Path("T.fa").resolve())
    assert config["format"] == ["maf", "general"]
    assert (config["chunk_size"], config["chunk_overlap"]) == (5000000, 50000)
    assert config["fastz_options"] == "--step=20 K=3000"
    assert config["align"] == {"gpu": 1}
    assert outdir == tmp_path / "o"
