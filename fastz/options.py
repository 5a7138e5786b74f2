"""One frozen Options object holds every setting, with LASTZ 1.04.22's defaults.

Derived defaults (xdrop, ydrop, hspthresh, gappedthresh, ...) are left as ``None``
here and filled in by ``resolved()``, because they depend on the scoring set.
Field names are shared by every stage; a stage reads only its own section.

SKELETON: the field list is fixed (other modules rely on these names); parsing of a
LASTZ argv into Options lives in ``fastz.lastz_args``; derivation and validation here.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Options:
    # --- sequences (names of the files as given; specifiers are parsed by fastz.io) ---
    target: str = ""                      # target specifier (file[actions])
    query: str | None = None              # query specifier; None = stdin
    # --- seeding (--seed --step --[no]transition --strand --word) ---
    seed: str = "1110100110010101111"     # normalised pattern over 1/0/T (12of19)
    seed_name: str = "12of19"             # as written in maf+ headers, or the pattern itself
    transition: int = 1                   # 0, 1 or 2 transitions allowed in a seed hit
    step: int = 1                         # index every step-th target word
    strand: str = "both"                  # both | plus | minus
    word: int = 28                        # max index bits (overweight seeds beyond)
    self_compare: bool = False            # --self
    # --- filtering (--gfextend --xdrop --hspthresh --entropy) ---
    gfextend: bool = True                 # gap-free x-drop extension of seed hits
    xdrop: int | None = None              # None -> 10 * sub[A][A] (910 with HOXD70)
    hspthresh: int | None = None          # None -> 3000 (or scores-file / --match derived)
    hspthresh_top: str | None = None      # adaptive: "top<n>" or "top<p>%"
    entropy: bool = True                  # entropy-adjust HSP scores before the threshold
    entropy_report: bool = False
    segments_file: str | None = None      # --segments=FILE: anchors from a file
    chain: bool = False                   # --chain
    chain_diag: int | None = None         # --chain=G,P
    chain_anti: int | None = None
    # --- gapped extension (--gap --ydrop --gappedthresh --[no]gapped --[no]ytrim) ---
    gapped: bool = True
    gap_open: int | None = None           # None -> 400 (or derived)
    gap_extend: int | None = None         # None -> 30 (or derived)
    ydrop: int | None = None              # None -> gap_open + 300 * gap_extend
    gappedthresh: int | None = None       # None -> hspthresh (3000 with --nogfextend)
    ytrim: bool = True
    allgappedbounds: bool = False
    inner: int = 0                        # --inner / H= (0 = off)
    notrivial: bool = False
    traceback_bytes: int = 83_886_080     # --allocate:traceback
    # --- scoring (--scores --match --ambiguous) ---
    scores_file: str | None = None
    match_reward: int | None = None       # --match=R,P
    match_penalty: int | None = None
    ambiguous_n: bool = False             # --ambiguous=n
    ambiguous_iupac: bool = False         # --ambiguous=iupac
    ambiguous_reward: int = 0
    ambiguous_penalty: int = 0
    # --- back-end filters ---
    identity_min: float | None = None     # percent
    identity_max: float | None = None
    coverage_min: float | None = None
    coverage_max: float | None = None
    continuity_min: float | None = None
    continuity_max: float | None = None
    filter_nmatch: int | None = None
    filter_nmismatch: int | None = None
    filter_ngap: int | None = None
    filter_cgap: int | None = None
    masking: int = 0                      # --masking=N (dynamic masking)
    # --- output ---
    format: str = "lav"                   # lav lav+ axt axt+ maf maf+ maf- general general- cigar sam ...
    format_fields: tuple[str, ...] = ()   # general:fields
    output: str | None = None             # --output=FILE (None = stdout)
    markend: bool = False
    args: str = ""                        # LASTZ's args string: non-file words, each + " "
    # --- system (fastz only) ---
    workers: int = 1                      # --workers N (0 = all cores)
    backend: str = "auto"                 # auto | cpu | gpu
    quiet: bool = False
    stats: str | None = None              # --stats[=file]
    extra: dict = field(default_factory=dict, compare=False, hash=False)
