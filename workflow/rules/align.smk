rule align:
    """One fastz run: a target chunk against a query chunk, given as specifiers."""
    input:
        tdir="{base}/chunks/target",
        qdir="{base}/chunks/query",
    output:
        "{base}/align/{fmt}/{tchunk}/{qchunk}.out",
    log:
        "{base}/logs/align/{fmt}/{tchunk}/{qchunk}.log",
    params:
        fastz=lookup(dpath="fastz", within=config),
        target=lambda wildcards: chunk_spec(wildcards.base, "target", wildcards.tchunk),
        query=lambda wildcards: chunk_spec(wildcards.base, "query", wildcards.qchunk),
        format=lambda wildcards: FORMATS[wildcards.fmt],
        options=lookup(dpath="fastz_options", within=config),
    threads: lookup(dpath="align/threads", within=config, default=1)
    resources:
        mem_mb=lookup(dpath="align/mem_mb", within=config, default=8000),
        runtime=lookup(dpath="align/runtime", within=config, default=720),
        gpu=lookup(dpath="align/gpu", within=config, default=0),
    conda:
        "../envs/fastz.yaml"
    shell:
        "{params.fastz} {params.target:q} {params.query:q} --format={params.format:q}"
        " --workers={threads} {params.options} > {output:q} 2> {log:q}"
