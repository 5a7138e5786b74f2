checkpoint partition:
    """Cut one genome into overlapping chunks; the chunk list depends on the data."""
    input:
        genome=lambda wildcards: PAIRS[wildcards.base][wildcards.side],
    output:
        directory("{base}/chunks/{side}"),
    log:
        "{base}/logs/partition_{side}.log",
    params:
        **{k: (lambda wildcards, k=k: partition_params(wildcards)[k])
           for k in ("prefix", "chunk_size", "overlap", "bin_records", "multiple")},
    threads: 1
    resources:
        mem_mb=lookup(dpath="partition/mem_mb", within=config, default=4000),
        runtime=lookup(dpath="partition/runtime", within=config, default=120),
        gpu=0,
    conda:
        "../envs/fastz.yaml"
    script:
        "../scripts/partition.py"
