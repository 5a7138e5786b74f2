"""The parity case table: fastz and the real lastz are run with the same words in the same
directory and their whole outputs must be equal (after the version token is dropped).

Used by tests/test_parity.py (one test per case) and bench/parity_table.py (docs/parity.md).

A case names the directory it runs in (`where`):
  "lastz"  LASTZ's regression data (Debian lastz-examples, unpacked by the `lastz_data` fixture)
  <pair>   a real genome pair under ../shared/data/pairs/<pair> (target.fa, query.fa)
The words may contain `{segments}`: the case then first writes a segments file with
`prep` (("lastz" | "fastz", words...)) into a scratch directory and substitutes its path.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    """One parity check."""
    id: str                          # readable pytest id
    where: str                       # "lastz" or a pair name under shared/data/pairs
    args: tuple[str, ...]            # words after the program name
    issue: int                       # the issue whose feature the case covers
    stdin: str | None = None         # file (relative to the case directory) fed on stdin
    prep: tuple[str, ...] | None = None  # (program, words...) whose stdout is {segments}
    stderr_grep: str | None = None   # also compare the stderr lines holding this text
    xfail: str | None = None         # known mismatch (strict xfail), with the reason
    slow: bool = False               # too slow for the default run (marked `slow`)

    def words(self, segments: Path | None = None) -> list[str]:
        """The argv (after the program name), with {segments} filled in."""
        if segments is None:
            return list(self.args)
        return [a.replace("{segments}", str(segments)) for a in self.args]

    def command(self) -> str:
        """A shell-like one-liner for tables and messages (program shown as `lastz`)."""
        line = "lastz " + " ".join(_quote(a) for a in self.args)
        if self.stdin is not None:
            line = f"cat {self.stdin} | {line}"
        if self.prep is not None:
            prog, *words = self.prep
            line = f"{prog} {' '.join(_quote(w) for w in words)} > {{segments}}; {line}"
        where = "LASTZ test_data" if self.where == "lastz" else f"pairs/{self.where}"
        return f"({where}) {line}"


def _quote(word: str) -> str:
    return f"'{word}'" if any(c in word for c in "[]#|;&$ ") else word


def case_dir(case: Case, lastz_data: Path, pairs: Path) -> Path:
    """The directory a case runs in."""
    return lastz_data if case.where == "lastz" else pairs / case.where


@dataclass(frozen=True)
class Run:
    """What one program run gave."""
    stdout: bytes
    stderr: bytes
    returncode: int
    seconds: float


def program_argv(program: str) -> list[str]:
    """The argv prefix of a program: the real lastz (or lastz_D, its double-score build),
    or this interpreter's `-m fastz` (`-m fastz.double`, fastz_D)."""
    if program in ("lastz", "lastz_D"):
        lastz = shutil.which(program)
        if lastz is None:
            raise RuntimeError(f"{program} is not installed (apt-get install lastz lastz-examples)")
        return [lastz]
    if program in ("fastz", "fastz_D"):
        return [sys.executable, "-m", "fastz" if program == "fastz" else "fastz.double"]
    raise ValueError(program)


REPO = Path(__file__).resolve().parents[1]


def fastz_env() -> dict[str, str]:
    """The environment fastz runs in: the caller's, with this checkout first on PYTHONPATH
    (`-m fastz` then works from any directory, installed or not) and without the test
    suite's CUDA-simulator switch (a subprocess should behave as the installed tool does)."""
    env = dict(os.environ)
    if os.environ.get("FASTZ_TEST_REAL_GPU") != "1":
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def run_program(program: str, words, cwd: Path, stdin: bytes | None = None,
                timeout: float = 1200) -> Run:
    """Run lastz or fastz with `words` in `cwd`; never raises on a non-zero exit."""
    start = time.perf_counter()
    res = subprocess.run([*program_argv(program), *words], cwd=cwd, input=stdin,
                         capture_output=True, timeout=timeout, env=fastz_env())
    return Run(res.stdout, res.stderr, res.returncode, time.perf_counter() - start)


def run_pair(words, cwd: Path, fastz_words=None, double: bool = False) -> tuple[Run, Run]:
    """(lastz's run, fastz's run) of ``words`` in ``cwd``, lastz without fastz's own
    ``--workers``; ``fastz_words`` in place of ``words`` for fastz (a gzip'd file lastz
    cannot read); ``double``: lastz_D and fastz_D."""
    lz = run_program("lastz_D" if double else "lastz",
                     [w for w in words if not w.startswith("--workers")], cwd)
    fz = run_program("fastz_D" if double else "fastz",
                     words if fastz_words is None else fastz_words, cwd)
    return lz, fz


def stdin_bytes(case: "Case", cwd: Path) -> bytes | None:
    return None if case.stdin is None else (cwd / case.stdin).read_bytes()


def prepare(case: "Case", cwd: Path, scratch: Path) -> Path | None:
    """Write the case's {segments} file (if any) into `scratch`; return its path."""
    if case.prep is None:
        return None
    program, *words = case.prep
    res = run_program(program, words, cwd)
    if res.returncode != 0:
        raise RuntimeError(f"{program} {' '.join(words)} failed: {res.stderr.decode()[-400:]}")
    path = scratch / f"{case.id}.{program}.segments"
    path.write_bytes(res.stdout)
    return path


def grep_lines(text: bytes, needle: str) -> list[bytes]:
    """The lines of `text` that hold `needle` (for stderr comparisons)."""
    return [ln for ln in text.splitlines() if needle.encode() in ln]


# --- building blocks -----------------------------------------------------------------------------

CAT, PIG = "pseudocat.fa", "pseudopig.fa"
HUMAN, COW = "aglobin.2bit/human", "aglobin.2bit/cow"
TQ = ("target.fa", "query.fa")
MLC = ("target.fa[multiple]", "query.fa")   # two target records (lav refuses [multiple])


def _pair(pair: str, *words: str, issue: int, **kw) -> Case:
    ends = MLC if pair == "mlc_testdata_pair" else TQ
    tag = "_".join(w.lstrip("-").replace("=", "-").replace(",", "-").replace(":", "-")
                   for w in words) or "default"
    return Case(id=f"{pair}-{tag}", where=pair, args=(*ends, *words), issue=issue, **kw)


# --- issue 2: --nogapped (seeding, x-drop HSPs, entropy, formats) --------------------------------

NOGAPPED = [
    # LASTZ regression data
    Case("lastz-hits-W8-T0-plus-nogfextend-nogapped", "lastz",
         (CAT, PIG, "W=8", "T=0", "--plus", "--nogfextend", "--nogapped"), issue=2),
    Case("lastz-hsp-C3-W8-T0", "lastz", (CAT, PIG, "C=3", "W=8", "T=0"), issue=2),
    Case("lastz-seeded-C3-111010011101", "lastz",
         (CAT, PIG, "C=3", "--seed=111010011101"), issue=2),
    Case("lastz-hwseeded-C3-TTT0T0T0TTT00T0T", "lastz",
         (CAT, PIG, "C=3", "--seed=TTT0T0T0TTT00T0T"), issue=2),
    Case("lastz-aglobin-nogapped", "lastz", (HUMAN, COW, "--nogapped"), issue=2),
    # real pairs
    _pair("mito_human_orang", "--nogapped", issue=2),
    _pair("mito_human_orang", "--nogapped", "--strand=minus", "--format=general", issue=2),
    _pair("mito_human_orang", "--nogapped", "--notransition", issue=2),
    _pair("mito_human_orang", "--nogapped", "--seed=14of22", issue=2),
    _pair("mito_human_orang", "--nogapped", "--step=2", "--format=maf", issue=2),
    _pair("mito_human_orang", "--nogapped", "--noentropy", "--format=segments", issue=2),
    _pair("mito_human_mouse", "--nogapped", "--format=general", issue=2),
    _pair("mito_human_mouse", "--nogapped", "--notransition", "--format=lav", issue=2),
    _pair("mito_human_mouse", "--nogapped", "--seed=14of22", "--format=maf", issue=2),
    _pair("dengue1_vs_dengue2", "--nogapped", "--strand=minus", issue=2),
    _pair("dengue1_vs_dengue2", "--nogapped", "--step=2", "--format=segments", issue=2),
    _pair("dengue1_vs_dengue2", "--nogapped", "--noentropy", "--format=general", issue=2),
    _pair("dwv_vs_vdv1", "--nogapped", issue=2),
    _pair("dwv_vs_vdv1", "--nogapped", "--seed=14of22", "--format=general", issue=2),
    _pair("dwv_vs_vdv1", "--nogapped", "--notransition", "--format=maf", issue=2),
    _pair("dwv_vs_vdv1", "--nogapped", "--strand=plus", "--format=lav", issue=2),
    _pair("human_vs_mouse_cgp", "--nogapped", "--strand=minus", "--format=general", issue=2),
    _pair("human_vs_mouse_cgp", "--nogapped", "--notransition", "--format=maf", issue=2),
    _pair("human_vs_mouse_cgp", "--nogapped", "--noentropy", "--format=segments", issue=2),
    _pair("human_vs_mouse_cgp", "--nogapped", "--step=2", issue=2),
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--format=general", issue=2),
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--seed=14of22", issue=2),
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--step=2", "--format=maf", issue=2),
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--strand=plus",
          "--format=segments", issue=2),
    _pair("mers_ref_vs_46isolates", "--nogapped", "--format=general", issue=2),
    _pair("mers_ref_vs_46isolates", "--nogapped", "--notransition", "--format=maf", issue=2),
    _pair("mers_ref_vs_46isolates", "--nogapped", "--strand=minus", "--format=segments",
          issue=2),
    _pair("mlc_testdata_pair", "--nogapped", "--format=general", issue=2),
    _pair("mlc_testdata_pair", "--nogapped", "--seed=14of22", "--format=maf", issue=2),
    _pair("mlc_testdata_pair", "--nogapped", "--step=2", "--format=segments", issue=2),
    # LASTZ's debugging formats for gap-free matches (buffer positions, so a [multiple]
    # target's and a subrange's are not the records' own; the seed's discovery share)
    Case("lastz-hits-comp-W8-T0-nogfextend", "lastz",
         (CAT, PIG, "W=8", "T=0", "--nogfextend", "--nogapped", "--format=comp", "--step=3"),
         issue=2),
    _pair("mlc_testdata_pair", "--nogapped", "--step=5", "--format=comp", issue=2),
    _pair("mers_ref_vs_46isolates", "--nogapped", "--step=11", "--transition=2",
          "--format=comp", issue=2),
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--seed=14of22", "--step=9",
          "--format=comp", issue=2),
    _pair("dwv_vs_vdv1", "--nogapped", "--seed=111111111111111111", "--word=20", "--step=4",
          "--format=comp", issue=2),
    _pair("human_vs_mouse_cgp", "--nogapped", "--strand=minus", "--format=deseed", issue=2),
    _pair("dengue1_vs_dengue2", "--nogapped", "--step=6", "--format=deseed", issue=2),
    _pair("mlc_testdata_pair", "--nogapped", "--noentropy", "--strand=plus",
          "--format=general", issue=2),
]

# --- issue 3: gapped extension (default mode) -----------------------------------------------------

SEGS_FROM = (CAT, PIG, "--nogapped", "--format=segments")

GAPPED = [
    # LASTZ regression data
    Case("lastz-default-lav", "lastz", (CAT, PIG), issue=3),
    Case("lastz-default-axt", "lastz", (CAT, PIG, "--format=axt"), issue=3),
    Case("lastz-aglobin-default", "lastz", (HUMAN, COW), issue=3),
    Case("lastz-subrange", "lastz",
         ("aglobin.2bit/human[10000,60000]", "aglobin.2bit/cow[15000#40000]"), issue=3),
    Case("lastz-coi-K3000-maf-", "lastz",
         (HUMAN, "shorties.fa[subset=shorties.names]", "K=3000", "--maf-"), issue=3),
    Case("lastz-mask-nmask-ambiguous-n60", "lastz",
         (CAT, "pseudopig.fa[nmask=pseudopig.n.mask]", "--ambiguous=n,60"), issue=3),
    Case("lastz-segments-from-lastz", "lastz", (CAT, PIG, "--segments={segments}"),
         issue=3, prep=("lastz", *SEGS_FROM)),
    Case("lastz-segments-from-fastz", "lastz", (CAT, PIG, "--segments={segments}"),
         issue=3, prep=("fastz", *SEGS_FROM)),
    Case("lastz-stdin-default", "lastz", (CAT,), issue=3, stdin=PIG),
    # real pairs, default mode
    _pair("mito_human_mouse", issue=3),
    _pair("dengue1_vs_dengue2", issue=3),
    _pair("human_vs_mouse_cgp", issue=3),
    _pair("hpylori_26695_vs_J99_Eslice", issue=3),
    _pair("dmel2R_vs_dpse_contigs", issue=3),
    # formats
    _pair("mito_human_orang", "--format=maf", issue=3),
    _pair("dengue1_vs_dengue2", "--format=axt", issue=3),
    _pair("dwv_vs_vdv1", "--format=general", issue=3),
    _pair("human_vs_mouse_cgp", "--format=cigar", issue=3),
    _pair("mito_human_mouse", "--format=sam", issue=3),
    _pair("hpylori_26695_vs_J99_Eslice", "--format=paf:minimap2", issue=3),
    _pair("mlc_testdata_pair", "--format=maf", issue=3),
    # strands, gapped-heavy
    _pair("mito_human_mouse", "--strand=plus", issue=3),
    _pair("human_vs_mouse_cgp", "--strand=minus", "--format=general", issue=3),
    _pair("dwv_vs_vdv1", "--nogfextend", issue=3),
    _pair("dengue1_vs_dengue2", "--nogfextend", "--format=general", issue=3),
    # pipelines' settings
    _pair("mlc_testdata_pair", "K=2400", "L=3000", "Y=9400", "--format=axt+", issue=3),
    _pair("mers_ref_vs_46isolates", "--step=2", "--ambiguous=iupac,100,100", "--ydrop=3000",
          "--format=paf:minimap2", issue=3),
    _pair("human_vs_mouse_cgp", "--step=2", "--ambiguous=iupac,100,100", "--ydrop=3000",
          "--format=paf:minimap2", issue=3),
    # back-end filters and scoring options
    _pair("hpylori_26695_vs_J99_Eslice", "--identity=90", "--format=general", issue=3),
    _pair("dengue1_vs_dengue2", "--coverage=50", "--format=general", issue=3),
    # a match count as a percentage of each query's length
    _pair("hpylori_26695_vs_J99_Eslice", "--filter=nmatch:0.5%", "--format=general", issue=3),
    _pair("mers_ref_vs_46isolates", "--matchcount=99.5%", "--format=general", issue=3),
    # a negative percentage: LASTZ's u32 count wraps past any alignment's (a count of
    # one base or more), or rounds up to no filter at all
    _pair("dengue1_vs_dengue2", "--filter=nmatch:-1%", "--format=general", issue=3),
    _pair("dengue1_vs_dengue2", "--filter=nmatch:-0.001%", "--format=general", issue=3),
    _pair("dengue1_vs_dengue2", "--nogapped", "--masking=1", "--filter=nmatch:-1%",
          "--format=general", issue=3),
    # NaNs and infinities LASTZ converts to its u32 counts (0 on its x86-64 build;
    # fastz crashed on each): no match-count filter, a top-0 table, no depth limit
    _pair("dengue1_vs_dengue2", "--filter=nmatch:NaN%", "--format=general", issue=3),
    _pair("dengue1_vs_dengue2", "--hspthresh=topnan%", "--format=general", issue=3),
    _pair("dengue1_vs_dengue2", "--querydepth=inf", "--format=general", issue=3),
    # ... which LASTZ never applies to HSPs it prints as found, and does apply when a
    # filter makes it collect them
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--filter=nmatch:0.05%",
          "--format=general", issue=3),
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--filter=nmatch:0.05%",
          "--identity=50", "--format=general", issue=3),
    # (a 0..100 identity range filters nothing, and LASTZ does not count it a filter)
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--filter=nmatch:0.05%",
          "--identity=0..100", "--format=general", issue=3),
    # gap-free HSPs are filtered before they are chained
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--chain", "--identity=85",
          "--format=general", issue=3),
    _pair("hpylori_26695_vs_J99_Eslice", "--nogapped", "--chain", "--filter=nmatch:0.05%",
          "--format=general", issue=3),
    Case("dwv_vs_vdv1-self-notrivial", "dwv_vs_vdv1",
         ("target.fa", "target.fa", "--notrivial"), issue=3),
    _pair("human_vs_mouse_cgp", "--noytrim", issue=3),
    _pair("mito_human_mouse", "--gap=600,60", issue=3),
    _pair("dengue1_vs_dengue2", "--match=1,5", issue=3),
    _pair("human_vs_mouse_cgp", "--ambiguous=n", "--format=maf", issue=3),
    _pair("mito_human_orang", "--allocate:traceback=200K", issue=3,
          stderr_grep="truncat"),
    _pair("human_vs_mouse_cgp", "--allocate:traceback=200K", "--format=general", issue=3,
          stderr_grep="truncat"),
    # query from stdin (lastz names it "(stdin)")
    Case("mito_human_orang-stdin", "mito_human_orang", ("target.fa",), issue=3,
         stdin="query.fa"),
    Case("human_vs_mouse_cgp-stdin-maf", "human_vs_mouse_cgp", ("target.fa", "--format=maf"),
         issue=3, stdin="query.fa"),
]

# --- measured separately (too slow for the default run) -------------------------------------------

SLOW = [
    _pair("ecoli_K12_vs_salmonella_LT2", "--format=general", issue=3, slow=True),
    _pair("mers_ref_vs_46isolates", issue=3, slow=True),
    _pair("mito_human_orang", "--nogfextend", issue=3, slow=True),
    _pair("lastz_pseudocat_vs_pseudopig", "--nogfextend", issue=3, slow=True),
]

CASES: list[Case] = [*NOGAPPED, *GAPPED, *SLOW]

assert len({c.id for c in CASES}) == len(CASES), "case ids must be unique"
