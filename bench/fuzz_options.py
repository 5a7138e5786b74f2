"""Differential fuzzing: random LASTZ option combinations, fastz against the real lastz.

Each trial draws a pair and a handful of options from the pool below, runs lastz and fastz
with the same words, and compares whole stdout (version token dropped) and whether both
succeeded.  Mismatches go to the report (one line each, with the command to reproduce).

    python bench/fuzz_options.py --trials 200 --seed 1            # report on stdout
    python bench/fuzz_options.py --trials 50 --pairs dengue1_vs_dengue2 -o /tmp/fuzz.txt
    FASTZ_GPU_ENGINE=twin python bench/fuzz_options.py --fastz=--backend=gpu  # GPU path, CPU twins
    python bench/fuzz_options.py --trials 40 --with='--stopafter=3 --nogapped'  # one mode
    python bench/fuzz_options.py --trials 60 --double      # fastz_D against lastz_D
    python bench/fuzz_options.py --trials 60 --stderr      # stderr must match too
    python bench/fuzz_options.py --trials 60 --reads 400   # simulated reads as the query
    python bench/fuzz_options.py --trials 60 --reads 400 --fastq          # ... as FASTQ
    python bench/fuzz_options.py --trials 60 --reads 400 --pipe           # ... piped
    python bench/fuzz_options.py --trials 60 --rare        # + scores files, --segments,
                                  # mask files, --yasra, --readgroup, more actions and fields
    python bench/fuzz_options.py --trials 60 --side        # + one option writing a file
                                  # (--census, --outputmasking, --rdotplot=, ...): compared too
    python bench/fuzz_options.py --trials 100 --odd        # + edge values for numeric options

A trial where lastz itself fails is a match only if fastz fails too (messages may differ);
a traceback from fastz is always a mismatch.
One where lastz dies of a segmentation fault and fastz runs is reported apart, not as a
mismatch: docs/hardening.md lists the lastz crashes fastz does not copy.
"""
from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from conftest import PAIRS, drop_version  # noqa: E402
from fastz.lastz_words import YASRA  # noqa: E402
from parity_cases import run_program  # noqa: E402

SMALL_PAIRS = ("dengue1_vs_dengue2", "dwv_vs_vdv1", "mito_human_orang", "mito_human_mouse",
               "lastz_pseudocat_vs_pseudopig", "dmel2R_vs_dpse_contigs")


def _pick(rng, *choices):
    return rng.choice(choices)


# Each entry draws one option word (or None) from the generator.
POOL = [
    lambda r: _pick(r, "--strand=both", "--strand=plus", "--strand=minus"),
    lambda r: _pick(r, "--seed=12of19", "--seed=14of22", "--seed=match12", "--seed=half14",
                    "--seed=1110100110111", "--seed=match15", "--seed=half20"),
    lambda r: _pick(r, "--transition", "--transition=2", "--notransition"),
    lambda r: f"--step={r.randint(1, 25)}",
    lambda r: f"--xdrop={r.choice([300, 910, 2000, 5000])}",
    lambda r: f"--hspthresh={r.choice([1500, 2200, 3000, 4500, 6000])}",
    lambda r: f"--hspthresh=top{r.randint(1, 30)}",
    lambda r: f"--hspthresh=top{r.randint(1, 40)}%",
    lambda r: f"--gappedthresh={r.choice([1000, 3000, 5000, 8000])}",
    lambda r: _pick(r, f"--gappedthresh=top{r.randint(1, 30)}", f"--gappedthresh=top{r.randint(1, 40)}%"),
    lambda r: f"--ydrop={r.choice([500, 3400, 9400, 15000])}",
    lambda r: f"--gap={r.choice([200, 400, 600])},{r.choice([10, 30, 60])}",
    lambda r: "--nogfextend",
    lambda r: _pick(r, "--noentropy", "--entropy", "--entropy=report"),
    lambda r: "--noytrim",
    lambda r: "--notrivial",
    lambda r: "--allgappedbounds",
    lambda r: _pick(r, "--chain", f"--chain={r.randint(0, 50)},{r.randint(0, 5)}"),
    lambda r: f"--inner={r.choice([1000, 2000, 3000])}",
    lambda r: f"--identity={r.randint(50, 80)}..{r.randint(85, 100)}",
    lambda r: f"--coverage={r.randint(0, 40)}",
    lambda r: f"--continuity={r.randint(50, 100)}",
    lambda r: f"--masking={r.randint(1, 6)}",
    lambda r: _pick(r, "--match=1,2", "--match=2,3", "--unitscores"),
    lambda r: _pick(r, "--ambiguous=n", "--ambiguous=iupac", "--ambiguous=n,1,2"),
    lambda r: _pick(r, f"--filter=nmatch:{r.randint(10, 200)}",
                    f"--filter=nmatch:{r.choice(['0.2', '1', '5', '30'])}%",
                    f"--filter=nmismatch:0..{r.randint(5, 100)}",
                    f"--filter=ngap:..{r.randint(0, 10)}", f"--filter=cgap:..{r.randint(0, 10)}"),
    lambda r: _pick(r, "--word=32", "--maxwordcount=5", "--maxwordcount=90%"),
    lambda r: _pick(r, f"--twins={r.randint(0, 10)}..{r.randint(20, 100)}", "--recoverseeds",
                    f"--exact={r.randint(15, 40)}", f"--mismatch=2,{r.randint(40, 80)}",
                    "--filter=2,8", "--filter=cares:1,12"),
    lambda r: f"--queryhspbest={r.randint(1, 20)}",
    lambda r: f"--queryhsplimit={r.choice(['', 'nowarn:', 'keep,nowarn:'])}{r.randint(1, 100)}",
    lambda r: f"--queryhsplimit+={r.choice(['', 'warn:', 'nowarn:'])}{r.randint(1, 50)}",
    lambda r: _pick(r, "--anyornone", f"--stopafter={r.randint(1, 12)}"),
    lambda r: f"--querydepth={r.choice(['', 'keep:', 'nowarn:', 'discard:'])}"
              f"{r.choice(['0.5', '1', '2.5'])}",
    lambda r: "--markend",
    lambda r: _pick(r, "--nolaj", "--laj"),
    lambda r: f"--allocate:traceback={r.choice(['200k', '1M', '80M'])}",
    lambda r: "--nogapped",
    lambda r: "--gfextend",
]

# --double adds lastz_D's fractional thresholds, drops and chain penalties, and
# fractional scores (gap penalties, --match, ambiguity scores, --infer)
DOUBLE_POOL = [
    lambda r: f"--gap={r.choice([200.5, 400.25, 600.75])},{r.choice([10.5, 30.25, 59.75])}",
    lambda r: _pick(r, "--match=1,1", "--match=1.5,2.25", "--match=2,3.5"),
    lambda r: _pick(r, "--ambiguous=n,1.5,2.25", "--ambiguous=iupac,0.5,1.75"),
    lambda r: "--infer",
    lambda r: f"--xdrop={r.choice([300.5, 910.25, 2000.75])}",
    lambda r: f"--hspthresh={r.choice([1500.5, 2999.5, 3000.25, 4500.75])}",
    lambda r: f"--gappedthresh={r.choice([1000.5, 2999.75, 5000.25])}",
    lambda r: f"--ydrop={r.choice([500.5, 3400.25, 9400.75])}",
    lambda r: f"--chain={r.choice([0.5, 10.25, 40.75])},{r.choice([0, 0.5, 2.25])}",
]

FORMATS = ["lav", "lav+", "axt", "axt+", "maf", "maf+", "maf-", "general", "general-",
           "general:name1,zstart1,end1,name2,strand2,zstart2+,end2+,score,nmatch,cigarx",
           "general:identity,coverage,continuity,diff,blastid%,ncolumn,npair",
           "mapping", "cigar", "sam", "sam-", "softsam", "paf", "segments", "rdotplot",
           "differences", "blastn", "text", "lav+text", "axt+", "genseg", "generalseg-",
           "genseg:name1,zstart1,end1,name2,strand2,zstart2,end2", "mafsegments",
           "rdotplot+score", "general:nmismatch,ngap,cgap,diagonal,cigar,score,blastid",
           "general:name1,start1,length1,name2,start2+,length2,align1,align2", "maf+",
           "lav+", "general:name1,zstart1,qalign1,name2,strand2,zstart2,end2,qalign2",
           "identity", "comp", "deseed"]
#: formats that print a FASTQ query's qualities (--fastq trials draw them more often)
QUALS_FORMATS = ["sam", "softsam", "sam-",
                 "general:name2,strand2,zstart2+,end2+,qalign2,quals2,cigar,score",
                 "general:name1,strand2,zstart2,qalign1,qalign2,quals2,nucs2"]

TARGETS = ["target.fa"] * 6 + ["target.fa[2000..9000]", "target.fa[multiple]",
                                "target.fa[unmask]", "target.fa[500,7000]"]
QUERIES = ["query.fa"] * 6 + ["query.fa[1000..8000]", "query.fa-", "query.fa[unmask]",
                              "query.fa[nameparse=darkspace]"]


# lastz fails on --self in the formats that print coverage and with the --coverage
# filter ("query does not have true lengths"), where fastz prints: --self trials draw
# their formats from these and drop --coverage
SELF_FORMATS = ["axt", "maf", "lav", "cigar", "segments", "rdotplot", "sam", "text",
                "general:name1,zstart1,end1,name2,strand2,zstart2+,end2+,score,nmatch,cigarx"]


# --rare trials: options that read side files (made once per pair in a temporary
# folder) and rarer spellings, sequence actions and general fields
SCORES = {
    "plain": "        A     C     G     T\nA    91  -114   -31  -123\nC  -114   100  -125   -31\n"
             "G   -31  -125   100  -114\nT  -123   -31  -114    91\n",
    "gaps": "# HOXD55 with its own gaps and thresholds\ngap_open_penalty = 300\n"
            "gap_extend_penalty = 20\nhsp_threshold = 2500\ngapped_threshold = 3500\n"
            "x_drop = 1500\ny_drop = 6000\n   A    C    G    T\nA  91  -90  -25 -100\n"
            "C -90  100 -100  -25\nG -25 -100  100  -90\nT -100 -25  -90   91\n",
    "bad": "bad_score = X:-1000\nfill_score = -100\n  A  C  G  T\nA 10 -15 -5 -15\n"
           "C -15 10 -15 -5\nG -5 -15 10 -15\nT -15 -5 -15 10\n",
}
RARE_FIELDS = ["name1,number1,strand1,size1,start1,end1,length1,name2,size2,start2,end2,"
               "length2,diagonal,ngap,gaprate",
               "znumber,score,idfrac,id%,covfrac,cov%,confrac,con%,cigar-,cigarx-,cigarx1",
               "number,name2,zstart2,text1,text2,shingle,nucs1,nucs2,NA,~",
               "chore,name1,zstart1,end1,strand2,cigarx1-,npair,nmismatch,cgap"]


class SideFiles:
    """The files --rare options read: scores files, a mask interval file per pair (from
    its query's length), a segments file per pair (lastz's own, default options)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp())
        for name, text in SCORES.items():
            (self.folder / f"{name}.scores").write_text(text)

    def scores(self, r) -> str:
        return str(self.folder / f"{r.choice(list(SCORES))}.scores")

    def intervals(self, pair: str, r, side: str = "query") -> str:
        path = self.folder / f"{pair}.{side}.{r.randint(0, 2)}.mask"
        if not path.exists():
            from conftest import PAIRS as pairs_dir
            size = sum(len(line.strip()) for line in
                       (pairs_dir / pair / f"{side}.fa").read_text().splitlines()[1:]
                       if not line.startswith(">"))
            spots = sorted(r.sample(range(1, max(size, 200)), 2 * r.randint(1, 6)))
            path.write_text("".join(f"{a} {b}\n" for a, b in zip(spots[::2], spots[1::2])))
        return str(path)

    def action(self, r, actions: list[str], pair: str, side: str) -> str:
        """One of ``actions``, a mask file of the pair's ``side`` in place of {m}."""
        action = r.choice(actions)
        return action.format(m=self.intervals(pair, r, side)) if "{m}" in action else action

    def segments(self, pair: str) -> str:
        path = self.folder / f"{pair}.segments"
        if not path.exists():
            from conftest import PAIRS as pairs_dir
            for target in ("target.fa", "target.fa[multiple]"):   # (several records)
                out = subprocess.run(["lastz", target, "query.fa", "--format=segments"],
                                     cwd=pairs_dir / pair, capture_output=True)
                if out.returncode == 0:
                    break
            path.write_bytes(out.stdout)
        return str(path)


RARE_POOL = [
    lambda r, s, p: f"--scores={s.scores(r)}",
    lambda r, s, p: f"--segments={s.segments(p)}",
    lambda r, s, p: r.choice(list(YASRA)),
    lambda r, s, p: "--readgroup=ID:grp1",
    lambda r, s, p: _pick(r, "--rawhits", "--hitsonly", "--nochain", "--noxtrim", "--gfextend"),
    lambda r, s, p: f"--format=general:{r.choice(RARE_FIELDS)}",
    lambda r, s, p: f"--ambiguous=iupac --allgappedbounds --step={r.randint(1, 9)}",
]
RARE_QUERY_ACTIONS = ["[revcomp]", "[softmask={m}]", "[xmask={m}]", "[nmask={m}]",
                      "[softmask=keep:{m}]", "[nameparse=alphanum]", "[subsample=1/1]",
                      "[1500..6000][revcomp]", "[unmask][xmask={m}]",
                      "[revcomp][softmask={m}]", "[xmask={m}][revcomp]",
                      "[revcomp][nmask=keep:{m}]"]
RARE_TARGET_ACTIONS = ["[revcomp]", "[softmask={m}]", "[xmask={m}]", "[nmask={m}]",
                       "[revcomp][xmask={m}]", "[2000..9000][revcomp]"]


# --side trials: one option that writes a file beside stdout; both programs' files must
# be identical too ({f}: a path of the program's own)
SIDE_OUTPUTS = ["--census={f}", "--census16={f}", "--census32={f}",
                "--masking={n} --outputmasking={f}", "--masking={n} --outputmasking+={f}",
                "--masking={n} --outputmasking:soft={f}",
                "--masking={n} --outputmasking+:soft={f}", "--rdotplot={f}", "--output={f}",
                "--writesegments={f} --nogapped"]


def side_output(rng: random.Random) -> str:
    """One side-output template (a --side trial's); {f} is filled per program."""
    return rng.choice(SIDE_OUTPUTS).replace("{n}", str(rng.randint(1, 6)))


# --odd trials: edge values for numeric options (zero, negative, huge, fractions,
# unit suffixes, percentages), where LASTZ's parsing decides what runs
ODD_NUMBERS = ["0", "-1", "1", "2147483647", "-2147483648", "2147483648", "1.5", "0.4",
               "2k", "1K", "3M", "1G", "1e3", "+5", "007", "12x", "", " 3", "0.5%", "50%",
               "-3%", "101%", "1k%", "0x10", "0x1p4", "5e", "nan", "inf", "-0.001%"]
ODD_OPTIONS = ["--step={v}", "--xdrop={v}", "--ydrop={v}", "--hspthresh={v}",
               "--hspthresh=top{v}", "--gappedthresh={v}", "--gappedthresh=top{v}",
               "--gap={v},{v}", "--match={v},{v}", "--inner={v}", "--masking={v}",
               "--maxwordcount={v}", "--word={v}", "--queryhspbest={v}",
               "--queryhsplimit={v}", "--querydepth={v}", "--stopafter={v}",
               "--allocate:traceback={v}", "--chain={v},{v}", "--identity={v}..{v}",
               "--coverage={v}", "--continuity={v}", "--filter=nmatch:{v}",
               "--filter=nmismatch:0..{v}", "--twins={v}..{v}", "--exact={v}",
               "--mismatch={v},{v}", "--ambiguous=n,{v},{v}", "--seed=match{v}",
               "--seed=half{v}", "--progress={v}", "--entropy={v}", "--transition={v}",
               "--notrivial", "--filter={v},{v}", "--filter=cares:{v},{v}"]


def odd_option(rng: random.Random) -> str:
    """One --odd trial's option: an ODD_OPTIONS form with edge values."""
    form = rng.choice(ODD_OPTIONS)
    while "{v}" in form:
        form = form.replace("{v}", rng.choice(ODD_NUMBERS), 1)
    return form


def draw(rng: random.Random, pairs: list[str], self_share: float = 0.0,
         double: bool = False, side: SideFiles | None = None) -> tuple[str, list[str]]:
    """One trial: (pair, words after the program name); a ``self_share`` of them align
    the target with itself (--self, sometimes --nomirror); ``double``: options for
    lastz_D, fractions included; ``side``: --rare options and query actions drawn too."""
    pair = rng.choice(pairs)
    pool = POOL + DOUBLE_POOL * 3 if double else POOL
    opts = [g(rng) for g in rng.sample(pool, rng.randint(1, 5))]
    if side is not None:
        for g in rng.sample(RARE_POOL, rng.randint(1, 2)):
            opts.extend(g(rng, side, pair).split())
    if rng.random() < self_share:
        words = ["target.fa", "--self", *(w for w in opts if not w.startswith("--coverage"))]
        if rng.random() < 0.2:
            words.append("--nomirror")
        words.append(f"--format={rng.choice(SELF_FORMATS)}")
        return pair, words
    fmt = rng.choice(FORMATS) if rng.random() < 0.8 else None
    query = rng.choice(QUERIES)
    if fmt == "softsam" and ".." in query:
        # lastz prints memory outside its buffer for the clipped bases a query
        # subrange did not load (fastz prints "n"): nothing to compare there
        query = "query.fa"
    if side is not None and rng.random() < 0.5 and not query.endswith("-"):
        query += side.action(rng, RARE_QUERY_ACTIONS, pair, "query")
        if fmt == "softsam" and ".." in query:
            fmt = "sam"                # (as above: a subrange among the actions)
    target = rng.choice(TARGETS)      # (after the query's action: earlier seeds replay)
    if side is not None and rng.random() < 0.25 and target == "target.fa":
        target += side.action(rng, RARE_TARGET_ACTIONS, pair, "target")
    words = [target, query, *opts]
    if fmt is not None and not any(w.startswith("--format") for w in opts):
        words.append(f"--format={fmt}")
    return pair, words


def _reads_file(folder: Path, pair_dir: Path, n: int, fastq: bool = False) -> Path:
    """The pair's simulated reads (made once): ``n`` of 60-400 bp from its query, as
    FASTA or as FASTQ (random qualities, '+' lines bare or repeating the header)."""
    path = folder / f"{pair_dir.name}.reads.{'fq' if fastq else 'fa'}"
    if not path.exists():
        from readsim import as_fastq, first_record, simulate_reads
        text = simulate_reads(first_record(pair_dir / "query.fa"), n, 0, seed=n,
                              lengths=(60, 400))
        if fastq:
            text = as_fastq(text, random.Random(n), plus_header=0.5)
        path.write_text(text)
    return path


def _untimed(stderr: bytes) -> bytes:
    """stderr with --progress's clock readings, "(0.211s)", blanked."""
    return re.sub(rb"\(\d+\.\d+s\)", b"(T)", stderr)


def _read(path: Path) -> bytes | None:
    return drop_version(path.read_bytes()) if path.exists() else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", nargs="*", default=list(SMALL_PAIRS),
                    help="pairs under ../shared/data/pairs, or folders (absolute paths) "
                         "holding a target.fa and a query.fa")
    ap.add_argument("--fastz", default="", help="extra words for fastz only, e.g. "
                    "'--workers=2' or '--backend=gpu' (with FASTZ_GPU_ENGINE=twin set)")
    ap.add_argument("--with", dest="with_words", default="",
                    help="words every trial adds for both programs, to fuzz one mode, "
                         "e.g. '--stopafter=3 --nogapped'")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per program run")
    ap.add_argument("--self-share", type=float, default=0.15,
                    help="share of trials that align the target with itself (--self)")
    ap.add_argument("--double", action="store_true",
                    help="fastz_D against lastz_D (double scores), fractional options drawn")
    ap.add_argument("--stderr", action="store_true",
                    help="where both succeed, compare their whole stderr too (warnings, "
                         "truncation reports)")
    ap.add_argument("--reads", type=int, default=0,
                    help="align this many simulated reads (60-400 bp, drawn from the pair's "
                         "query, one plain FASTA file per pair) in place of the query: the "
                         "bulk reading of plain read files (fastz/io/plainreads.py)")
    ap.add_argument("--fastq", action="store_true",
                    help="with --reads: the reads as FASTQ, with formats printing their "
                         "qualities drawn more often")
    ap.add_argument("--pipe", action="store_true",
                    help="with --reads: both programs read the reads through a pipe "
                         "(/dev/stdin): the bulk reading of a stream")
    ap.add_argument("--rare", action="store_true",
                    help="draw rarer options too: scores, segments and mask files, --yasra "
                         "presets, --readgroup, sequence actions, more general fields")
    ap.add_argument("--side", action="store_true",
                    help="each trial adds one option that writes a file (--census, "
                         "--outputmasking, --rdotplot=, --output=, --writesegments=); the "
                         "two programs' files are compared too")
    ap.add_argument("--odd", action="store_true",
                    help="each trial adds one or two options with edge values (zero, "
                         "negative, huge, fractions, suffixes, percentages)")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args(argv)
    side = SideFiles() if args.rare else None
    reads_dir = Path(tempfile.mkdtemp()) if args.reads else None
    lastz, fastz = ("lastz_D", "fastz_D") if args.double else ("lastz", "fastz")
    rng = random.Random(args.seed)
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    bad = crashed = 0
    for trial in range(args.trials):
        pair, words = draw(rng, args.pairs, args.self_share, args.double, side)
        if args.odd:
            words[-1:-1] = [odd_option(rng) for _ in range(rng.randint(1, 2))]
        if args.with_words:
            # (before the trial's --format word: LASTZ's last format word wins anyway)
            words[-1:-1] = args.with_words.split()
        cwd = PAIRS / pair
        if reads_dir is not None and words[1] != "--self":
            words[1] = str(_reads_file(reads_dir, cwd, args.reads, args.fastq))
            if args.fastq and rng.random() < 0.4:
                words = [w for w in words if not w.startswith("--format")]
                words.append(f"--format={rng.choice(QUALS_FORMATS)}")
        feed = None
        if args.pipe and reads_dir is not None and words[1] != "--self":
            feed = Path(words[1]).read_bytes()
            words[1] = "/dev/stdin"
        side_words = side_output(rng) if args.side else ""
        side_dir = Path(tempfile.mkdtemp()) if args.side else None
        # one path for both (lav and maf headers repeat the command line); lastz's file
        # is moved aside before fastz runs
        side_run = [w.format(f=side_dir / "side.out") for w in side_words.split()]
        words[-1:-1] = side_words.split()      # (the report shows the template)
        run_words = words[:-1 - len(side_run)] + side_run + words[-1:]
        start = time.perf_counter()
        try:
            lz = run_program(lastz, run_words, cwd, stdin=feed, timeout=args.timeout)
            if side_dir is not None and (side_dir / "side.out").exists():
                (side_dir / "side.out").rename(side_dir / "lastz.out")
            fz = run_program(fastz, run_words + args.fastz.split(), cwd, stdin=feed,
                             timeout=args.timeout)
            if side_dir is not None and (side_dir / "side.out").exists():
                (side_dir / "side.out").rename(side_dir / "fastz.out")
        except subprocess.TimeoutExpired:
            print(f"{trial}\tTIMEOUT\t(pairs/{pair}) lastz {' '.join(words)}", file=out,
                  flush=True)
            continue
        if b"Traceback (most recent call last)" in fz.stderr:
            verdict = "MISMATCH fastz printed a traceback"
        elif lz.returncode in (-11, 139) and fz.returncode == 0:
            # lastz died of a segmentation fault where fastz ran: a known lastz bug
            # fastz does not copy (docs/hardening.md), else a case to look into
            verdict = "LASTZ CRASHED, fastz ran (is it a known lastz bug?)"
            crashed += 1
        elif lz.returncode != 0:
            verdict = "match" if fz.returncode != 0 else "MISMATCH lastz failed, fastz did not"
        elif fz.returncode != 0:
            first = (fz.stderr.decode(errors="replace").strip().splitlines() or [""])[-1]
            # (a number out of a C int's range: lastz's sscanf wraps it silently, fastz
            # refuses it, deliberately; so fastz_D with infinite, NaN or subnormal
            # scores, which lastz_D's DP mishandles: docs/hardening.md)
            verdict = "REFUSED" if "not yet supported" in first \
                else "REFUSED (out of range; lastz wraps it)" \
                if "is out of range for an integer" in first \
                else "REFUSED (a double lastz_D's DP cannot size)" \
                if "fastz_D takes" in first or "fastz_D does not take" in first \
                else f"MISMATCH fastz failed: {first[:160]}"
        elif drop_version(lz.stdout) != drop_version(fz.stdout):
            verdict = "MISMATCH output differs"
        elif side_dir is not None and _read(side_dir / "lastz.out") != \
                _read(side_dir / "fastz.out"):
            verdict = "MISMATCH side file differs"
        elif args.stderr and _untimed(lz.stderr) != _untimed(fz.stderr):
            verdict = "MISMATCH stderr differs"
        else:
            verdict = "match"
        bad += verdict.startswith("MISMATCH")
        print(f"{trial}\t{verdict}\t{time.perf_counter() - start:.1f}s\t(pairs/{pair}) lastz "
              f"{' '.join(words)}", file=out, flush=True)
        if side_dir is not None:
            shutil.rmtree(side_dir, ignore_errors=True)
    print(f"# {bad} mismatches in {args.trials} trials (seed {args.seed})"
          + (f"; lastz crashed in {crashed} where fastz ran" if crashed else ""), file=out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
