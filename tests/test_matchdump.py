"""LASTZ's debugging formats for gap-free matches, ``--format=comp`` and ``deseed``
(``fastz/io/matchdump.py``): the discovery-count kernel against its plain reference,
and whole outputs against the real lastz (more cases in ``parity_cases.py``)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastz.io.alignview import BITS
from fastz.kernels.alnstats import seed_discoveries
from fastz.kernels.reference import reference_discoveries
from fastz.pipeline.seeding import parse_seed, seed_pattern
from parity_cases import run_pair, run_program

SEEDS = [("12of19", 28), ("14of22", 28), ("match8", 28), ("1110T0101", 28),
         ("111111111111111111", 20), ("11T0111", 28)]


@pytest.mark.parametrize("seed,word", SEEDS)
def test_seed_discoveries_match_the_reference(seed, word):
    """Random related segments holding N, n and lower case, every step and transition
    setting: the kernel counts the phases the plain walk counts (which also steps only
    the target past a target N, as LASTZ does)."""
    rng = random.Random(f"{seed}{word}")
    spec = parse_seed(seed, word)
    pattern = seed_pattern(seed)
    for _ in range(150):
        n = rng.randint(0, 120)
        t = bytearray(rng.choice(b"ACGT") for _ in range(n + 10))
        q = bytearray(t)
        for i in range(len(q)):
            r = rng.random()
            if r < 0.08:
                q[i] = rng.choice(b"ACGT")                    # substitutions
            elif r < 0.10:
                q[i] = ord("N")
            elif r < 0.14:
                q[i] |= 0x20                                  # lower case
            if rng.random() < 0.02:
                t[i] = rng.choice(b"Nn")
        step = rng.randint(1, 13)
        trans = rng.randint(0, 2)
        b1, b2 = rng.randint(0, 5), rng.randint(0, 5)
        got = seed_discoveries(np.frombuffer(bytes(t), np.uint8),
                               np.frombuffer(bytes(q), np.uint8), b1, b2, n, spec.length,
                               spec.care_off, spec.care_bits, trans, step, BITS,
                               np.zeros(step, np.uint8))
        want = reference_discoveries(bytes(t), bytes(q), b1, b2, n, pattern, trans, step,
                                     word)
        assert got == want, (seed, n, step, trans)


def _ambiguous_pair(tmp_path, shared_pairs):
    """The human and orangutan mitochondria with N, n and lower case sprinkled in: with
    --ambiguous=n the HSPs run through them, and lastz's walk steps only its target
    past a target N (which changes some ten probabilities at --step=5)."""
    rng = random.Random(3)
    seqs = []
    for name in ("target.fa", "query.fa"):
        text = (shared_pairs / "mito_human_orang" / name).read_text().splitlines()
        seqs.append(list("".join(line for line in text if not line.startswith(">"))))
    t, q = seqs
    for i in rng.sample(range(len(t)), 60):
        t[i] = "N"
    for i in rng.sample(range(len(q)), 60):
        q[i] = rng.choice("Nn")
    for i in rng.sample(range(len(t)), 300):
        t[i] = t[i].lower()
    (tmp_path / "t.fa").write_text(">t\n" + "".join(t) + "\n")
    (tmp_path / "q.fa").write_text(">q\n" + "".join(q) + "\n")
    return tmp_path


@pytest.mark.parametrize("fmt", ["comp", "deseed"])
@pytest.mark.parametrize("words", [["--step=5"], ["--step=7", "--transition=2"],
                                   ["--step=3", "--seed=14of22"], ["--step=11", "--notransition"]],
                         ids=" ".join)
def test_matches_with_ambiguous_bases_as_lastz(tmp_path, shared_pairs, fmt, words):
    where = _ambiguous_pair(tmp_path, shared_pairs)
    lz, fz = run_pair(["t.fa", "q.fa", "--ambiguous=n", "--nogapped", f"--format={fmt}",
                       *words], where)
    assert lz.returncode == fz.returncode == 0, fz.stderr
    assert fz.stdout == lz.stdout and len(lz.stdout.splitlines()) > 60


def test_gapped_alignments_print_nothing(shared_pairs):
    """LASTZ prints only gap-free matches in these formats (the --markend line shows
    that the run got to its end)."""
    for fmt in ("comp", "deseed"):
        lz, fz = run_pair(["target.fa", "query.fa", f"--format={fmt}", "--markend"],
                          shared_pairs / "mito_human_orang")
        assert fz.stdout == lz.stdout == b"# lastz end-of-file\n"


def test_deseed_blank_lines_go_to_stdout(tmp_path, shared_pairs):
    """LASTZ writes each match's empty line with printf: to stdout, whatever --output
    names, where the matches go."""
    where = shared_pairs / "dwv_vs_vdv1"
    outs = []
    for program in ("lastz", "fastz"):
        out = tmp_path / f"{program}.txt"
        run = run_program(program, ["target.fa", "query.fa", "--format=deseed", "--nogapped",
                                    f"--output={out}"], where)
        assert run.returncode == 0
        outs.append((run.stdout, out.read_bytes()))
    assert outs[0] == outs[1]
    stdout, matches = outs[0]
    assert set(stdout) == {ord("\n")} and len(matches.splitlines()) == 2 * len(stdout)


def test_comp_with_a_seed_without_ones_is_refused(shared_pairs):
    """A half-weight seed has no transition flips, which lastz reads through a NULL at
    the first match it prints: it dies of a segmentation fault; fastz refuses."""
    where = shared_pairs / "mito_human_orang"
    words = ["target.fa", "query.fa", "--format=comp", "--nogapped", "--seed=half14"]
    lz = run_program("lastz", words, where)
    assert lz.returncode in (-11, 139)
    fz = run_program("fastz", words, where)
    assert fz.returncode == 1 and fz.stdout == b""
    assert fz.stderr.decode().startswith("fastz: --format=comp with a seed that has no 1")


@pytest.mark.parametrize("words", [["--seed=111111111111111", "--word=30"],
                                   ["--seed=half30", "--word=31"],
                                   ["--seed=1110100110010101111111111", "--word=29"]],
                         ids=" ".join)
def test_position_table_past_28_bits_fails_as_lastz(shared_pairs, words):
    """--word takes up to 31, but LASTZ's position table holds 28 bits: a heavier
    indexed seed fails where it is built (fastz had run)."""
    lz, fz = run_pair(["target.fa", "query.fa", *words], shared_pairs / "mito_human_orang")
    assert lz.returncode == fz.returncode == 1 and fz.stdout == lz.stdout == b""
    assert fz.stderr.decode() == "fastz: " + lz.stderr.decode().removeprefix("FAILURE: ")


@pytest.mark.parametrize("seed", ["T=1", "W=12", "--seed=match12", "--seed=12of19"])
def test_segments_refusal_names_the_seed_word(shared_pairs, seed):
    """LASTZ names the word that set the seed (and, for T=, what to use instead, on a
    second line that fastz's one line joins)."""
    lz, fz = run_pair(["target.fa", "query.fa", seed, "--segments=/dev/null"],
                      shared_pairs / "mito_human_orang")
    assert lz.returncode == fz.returncode == 1
    said = [line for line in lz.stderr.decode().splitlines()
            if line.startswith(("can't set", "(use"))]
    assert fz.stderr.decode() == "fastz: " + " ".join(said) + "\n"

