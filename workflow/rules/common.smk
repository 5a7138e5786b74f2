"""Configuration, validation and the helpers the rules share (no rules here)."""

import csv
import os
import re
import shlex
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

sys.path.insert(0, str(Path(workflow.basedir) / "workflow" / "scripts"))
from partition import read_chunks  # noqa: E402

validate(config, schema="../../config/schema.yaml")

OUTDIR = os.path.normpath(config["outdir"])

# Options whose effect depends on the whole sequences (or on state carried across query
# records), or that the workflow sets itself: a chunked run cannot reproduce them.
_REFUSED = {
    "--format": "the workflow sets --format from the format key",
    "--output": "each job writes its own output",
    "--self": "self-alignment needs the whole sequence on both sides",
    "--masking": "dynamic masking carries state across query records",
    "M=": "dynamic masking carries state across query records",
    "--queryhsplimit": "per-query limits count the whole query",
    "--queryhspbest": "per-query limits count the whole query",
    "--querydepth": "per-query limits count the whole query",
    "--chores": "chores select their own intervals",
    "--census": "a census covers the whole target",
    "--rdotplot": "side outputs are not merged",
    "--nomirror": "only meaningful with --self",
}
_TOP_THRESHOLD = re.compile(r"^(--hspthresh=|K=)top", re.IGNORECASE)


def _check_options(text):
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise WorkflowError(f"fastz_options: {exc}")
    for w in words:
        for prefix, why in _REFUSED.items():
            if w == prefix or w.startswith(f"{prefix}=") or (prefix.endswith("=")
                                                            and w.startswith(prefix)):
                raise WorkflowError(f"fastz_options: {w} is not supported by the "
                                    f"workflow ({why})")
        if _TOP_THRESHOLD.match(w):
            raise WorkflowError(f"fastz_options: {w}: adaptive (top) thresholds rank "
                                "HSPs of the whole sequences")


_check_options(config["fastz_options"])


def _formats(value):
    """family (result suffix) -> fastz --format value."""
    values = [value] if isinstance(value, str) else list(value)
    out = {}
    for v in values:
        fam = v.split(":", 1)[0].rstrip("+-")
        if fam in out:
            raise WorkflowError(f"format: {out[fam]} and {v} both write result.{fam}")
        out[fam] = v
    return out


FORMATS = _formats(config["format"])


def _pairs():
    """base directory -> {"target": path, "query": path}."""
    if config["pairs"]:
        with open(config["pairs"], newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        if not rows or not {"pair", "target", "query"} <= set(rows[0]):
            raise WorkflowError(f"pairs: {config['pairs']} needs a header line with the "
                                "columns pair, target, query")
        out = {}
        for r in rows:
            if not re.fullmatch(r"[A-Za-z0-9_.-]+", r["pair"]):
                raise WorkflowError(f"pairs: pair name {r['pair']!r} must be letters, "
                                    "digits, '_', '.', '-'")
            out[f"{OUTDIR}/{r['pair']}"] = {"target": r["target"], "query": r["query"]}
        return out
    if not (config["target"] and config["query"]):
        raise WorkflowError("set target and query (or pairs): --config target=T.fa "
                            "query=Q.fa")
    return {OUTDIR: {"target": config["target"], "query": config["query"]}}


PAIRS = _pairs()
RESULTS = [f"{base}/result.{fam}" for base in PAIRS for fam in FORMATS]


wildcard_constraints:
    base="|".join(re.escape(b) for b in PAIRS),
    side="target|query",
    fmt="|".join(FORMATS),
    tchunk=r"t\d+",
    qchunk=r"q\d+",


def side_value(side, key):
    """target_chunk_size etc., falling back to chunk_size / chunk_overlap."""
    value = config[f"{side}_{key}"]
    return config[key] if value is None else value


def partition_params(wildcards):
    size = side_value(wildcards.side, "chunk_size")
    overlap = side_value(wildcards.side, "chunk_overlap")
    if overlap >= size:
        raise WorkflowError(f"{wildcards.side}: chunk_overlap ({overlap}) must be smaller "
                            f"than chunk_size ({size})")
    target = wildcards.side == "target"
    return {"prefix": wildcards.side[0], "chunk_size": size, "overlap": overlap,
            # LASTZ writes no LAV for a [multiple] target: one record per target chunk
            "bin_records": config["bin_records"] and not (target and "lav" in FORMATS),
            "multiple": target}


def chunk_dir(base, side):
    return f"{base}/chunks/{side}"


_SPECS = {}


def chunk_spec(base, side, chunk):
    """The fastz specifier of one chunk (read from the partition checkpoint's output)."""
    path = chunk_dir(base, side)
    stamp = os.stat(Path(path) / "chunks.tsv").st_mtime_ns
    if _SPECS.get(path, (None,))[0] != stamp:
        _SPECS[path] = (stamp, read_chunks(path))
    return _SPECS[path][1][chunk]


def merge_inputs(wildcards):
    """The chunk outputs of one pair and format (known once both partitions ran)."""
    tdir = checkpoints.partition.get(base=wildcards.base, side="target").output[0]
    qdir = checkpoints.partition.get(base=wildcards.base, side="query").output[0]
    return [f"{wildcards.base}/align/{wildcards.fmt}/{t}/{q}.out"
            for t in read_chunks(tdir) for q in read_chunks(qdir)]
