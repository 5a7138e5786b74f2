rule merge:
    """Keep each alignment once (from the chunk pair that owns it), lift LAV back to the
    original records, and sort as one whole-genome run would."""
    input:
        tdir="{base}/chunks/target",
        qdir="{base}/chunks/query",
        chunks=merge_inputs,
    output:
        "{base}/result.{fmt}",
    log:
        "{base}/logs/merge.{fmt}.log",
    params:
        format=lambda wildcards: FORMATS[wildcards.fmt],
        target=lambda wildcards: PAIRS[wildcards.base]["target"],
        query=lambda wildcards: PAIRS[wildcards.base]["query"],
        align_dir=lambda wildcards: f"{wildcards.base}/align/{wildcards.fmt}",
    threads: 1
    resources:
        mem_mb=lookup(dpath="merge/mem_mb", within=config, default=8000),
        runtime=lookup(dpath="merge/runtime", within=config, default=120),
        gpu=0,
    conda:
        "../envs/fastz.yaml"
    script:
        "../scripts/merge.py"
