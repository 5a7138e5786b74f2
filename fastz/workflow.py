"""``fastz workflow``: align whole genomes chunk by chunk with the packaged Snakemake
workflow (partition, one fastz job per chunk pair, merge), so users need not find it.

``fastz workflow T.fa Q.fa --outdir DIR --chunk-size BP --chunk-overlap BP
--format general --cores N [--profile P] [-- fastz options]`` writes a config file to
``DIR/fastz_workflow.yaml`` and runs ``python -m snakemake -s <Snakefile> --directory DIR
--configfile DIR/fastz_workflow.yaml``; the merged result is ``DIR/result.<format>``.
Chunk jobs run ``<this python> -m fastz``, so the workflow uses this installation.

The workflow files (``Snakefile``, ``workflow/``, ``config/``, ``profiles/``) are found in
the source checkout next to this package or, from a wheel, under
``<prefix>/share/fastz/workflow`` (installed as data files).
"""
import argparse
import json
import shlex
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

from .errors import FastzError

SHARE = Path("share") / "fastz" / "workflow"


def workflow_root() -> Path:
    """The directory that holds the workflow's ``Snakefile``."""
    here = Path(__file__).resolve().parent
    candidates = [here.parent]
    for prefix in (sysconfig.get_path("data"), sys.prefix, sys.exec_prefix,
                   getattr(site, "USER_BASE", None)):
        if prefix:
            candidates.append(Path(prefix) / SHARE)
    for c in candidates:
        if (c / "Snakefile").is_file() and (c / "workflow" / "rules").is_dir():
            return c
    raise FastzError("the workflow files are not installed (no Snakefile next to the "
                     f"fastz package or in <prefix>/{SHARE})")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fastz workflow",
        description="Align two genomes in chunks with Snakemake (local cores, SLURM, ...) "
                    "and merge the chunk outputs into DIR/result.<format>.  Arguments "
                    "after -- are passed to every fastz job.",
        epilog="Any snakemake option can follow --snakemake, e.g. --snakemake -n "
               "(dry run) or --snakemake --resources gpu=2.")
    p.add_argument("target", help="target genome (FASTA, FASTA.gz or 2bit)")
    p.add_argument("query", help="query genome (FASTA, FASTA.gz or 2bit)")
    p.add_argument("--outdir", required=True, help="output directory")
    p.add_argument("--chunk-size", type=int, default=None,
                   help="longest chunk in bases (config default 10000000)")
    p.add_argument("--chunk-overlap", type=int, default=None,
                   help="overlap of neighbouring chunks in bases (config default 100000)")
    p.add_argument("--format", action="append", default=None,
                   help="general (default), axt, maf, lav, paf (repeat for several)")
    p.add_argument("--cores", default="1", help="local cores, or 'all' (default 1)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads (fastz --workers) per chunk job (default 1)")
    p.add_argument("--gpu", type=int, default=None,
                   help="GPUs each chunk job requests (resources gpu=N; default 0)")
    p.add_argument("--profile", default=None,
                   help="snakemake profile: 'local', 'slurm' (packaged) or a directory")
    p.add_argument("--configfile", default=None,
                   help="extra workflow config (YAML), applied before the options above")
    p.add_argument("--snakemake", nargs=argparse.REMAINDER, default=[],
                   help="further snakemake arguments (everything up to --)")
    return p


def build_command(argv: list[str]) -> tuple[list[str], dict, Path]:
    """(snakemake command, config written to DIR/fastz_workflow.yaml, DIR)."""
    if "--" in argv:
        k = argv.index("--")
        argv, fastz_words = argv[:k], argv[k + 1:]
    else:
        fastz_words = []
    args = _parser().parse_args(argv)
    root = workflow_root()
    outdir = Path(args.outdir).resolve()
    config: dict = {
        "target": str(Path(args.target).resolve()),
        "query": str(Path(args.query).resolve()),
        "outdir": str(outdir),
        "fastz": f"{shlex.quote(sys.executable)} -m fastz",
    }
    if fastz_words:
        config["fastz_options"] = shlex.join(fastz_words)
    if args.format:
        config["format"] = args.format[0] if len(args.format) == 1 else list(args.format)
    if args.chunk_size is not None:
        config["chunk_size"] = args.chunk_size
    if args.chunk_overlap is not None:
        config["chunk_overlap"] = args.chunk_overlap
    align = {}
    if args.threads is not None:
        align["threads"] = args.threads
    if args.gpu is not None:
        align["gpu"] = args.gpu
    if align:
        config["align"] = align
    cmd = [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"),
           "--directory", str(outdir), "--cores", str(args.cores)]
    if args.profile:
        prof = Path(args.profile)
        packaged = root / "profiles" / args.profile
        cmd += ["--profile", str(packaged if not prof.exists() and packaged.is_dir()
                                 else prof.resolve())]
    if args.configfile:
        cmd += ["--configfile", str(Path(args.configfile).resolve())]
    cmd += ["--configfile", str(outdir / "fastz_workflow.yaml")]
    cmd += list(args.snakemake)
    return cmd, config, outdir


def main(argv: list[str]) -> int:
    """Run the workflow; returns snakemake's exit status."""
    try:
        import snakemake  # noqa: F401
    except ImportError:
        raise FastzError("fastz workflow needs snakemake: pip install 'fastz-align[workflow]'") \
            from None
    try:
        cmd, config, outdir = build_command(list(argv))
    except SystemExit as exc:                  # --help, or a usage error (argparse)
        return int(exc.code or 0)
    outdir.mkdir(parents=True, exist_ok=True)
    # JSON is YAML: no quoting surprises for option strings
    (outdir / "fastz_workflow.yaml").write_text(json.dumps(config, indent=2) + "\n")
    print("fastz workflow: " + shlex.join(cmd), file=sys.stderr)
    return subprocess.call(cmd)
