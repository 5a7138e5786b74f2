"""fastz whole-genome workflow: partition both genomes into overlapping chunks, align
every target chunk with every query chunk with fastz, merge into one sorted result per
pair that a single whole-genome run would have written (docs/workflow.md)."""

from pathlib import Path


configfile: str(Path(workflow.basedir) / "config" / "config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/partition.smk"
include: "workflow/rules/align.smk"
include: "workflow/rules/merge.smk"


rule all:
    default_target: True
    input:
        RESULTS,
