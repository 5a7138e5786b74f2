"""Sequence input (fastz.io.sequences), checked against what the real lastz loads.

Oracles: ``lastz --debug=targetsequence`` / ``--debug=querysequence[2]`` print the
loaded bytes (NUL as '*'), LAV s/h stanzas give file names, subranges, strands,
record numbers and headers, and ``--format=general`` gives the short names.
"""
import contextlib
import gzip
import io
import random
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from fastz.errors import InputError
from fastz.io import fasta as fasta_io
from fastz.io.sequences import (iter_queries, load_target, parse_specifier,
                                reverse_complement, reverse_complement_sequence)
from fastz.options import Options

LASTZ = shutil.which("lastz")
OPTS = Options()


# --- helpers ------------------------------------------------------------------------


def _lastz(args, cwd=None, stdin=None):
    if LASTZ is None:
        pytest.fail("lastz is not installed (apt-get install lastz); parity tests need it")
    res = subprocess.run([LASTZ, *map(str, args)], cwd=cwd, input=stdin, capture_output=True,
                         timeout=120)
    return res.returncode, res.stdout.decode("latin-1"), res.stderr.decode("latin-1")


def _render(seq, label):
    """Our buffer as lastz's print_sequence writes it (NUL as '*', 100 per line)."""
    chars = seq.chars[:-1] if seq.partitions is not None else seq.chars   # lastz len
    text = chars.tobytes().replace(b"\0", b"*").decode("latin-1")
    lines = [text[i:i + 100] for i in range(0, len(text), 100)] or [""]
    return f"> {label}\n" + "\n".join(lines) + "\n"


def _dump(seq):
    """Our buffer as lastz's dump_sequence writes it (runs between NULs)."""
    chars = seq.chars[:-1] if seq.partitions is not None else seq.chars
    text = chars.tobytes().decode("latin-1")
    width = len(str(len(text)))
    out, need_sep = [], False
    for m in re.finditer(r"[^\0]+|\0", text):
        if m.group(0) == "\0":
            need_sep = True
            continue
        for k in range(0, len(m.group(0)), 100):
            if need_sep:
                out.append(" " * width + "  =====")
                need_sep = False
            out.append(f"{m.start() + k:>{width}}: {m.group(0)[k:k + 100]}")
    return "\n".join(out) + "\n"


def _lastz_target_dump(spec, cwd, *extra):
    rc, _, err = _lastz([spec, "--debug=targetsequence", "--format=general", *extra],
                        cwd=cwd, stdin=b">q\nACGTACGT\n")
    assert rc == 0, err
    return err


def _lastz_query_dump(spec, cwd, *extra):
    rc, _, err = _lastz(["pseudocat.fa[1..40]", spec, "--debug=querysequence",
                         "--format=general", *extra], cwd=cwd)
    assert rc == 0, err
    return err


def _stanzas(lav):
    """(target s line, query s line, target h line, query h line) of each LAV block."""
    return re.findall(r's \{\n  (.*)\n  (.*)\n\}\nh \{\n   (.*)\n   (.*)\n\}', lav)


def _s_line(seq, minus=False):
    rev = seq.revcomp != minus                 # printed orientation: loaded XOR strand
    return (f'"{seq.filename}{"-" if rev else ""}" {seq.start + 1} '
            f'{seq.start + len(seq)} {int(rev)} {seq.contig}')


def _h_line(seq, minus=False):
    rev = seq.revcomp != minus
    return f'"{seq.header}{" (reverse complement)" if rev else ""}"'


def _our_stanzas(target_spec, query_spec):
    """The stanzas our loaders give for every query strand (lastz prints the aligned)."""
    t = load_target(target_spec, OPTS)
    out = []
    for q in iter_queries(query_spec, OPTS):
        for minus in (False, True):
            out.append((_s_line(t), _s_line(q, minus), _h_line(t), _h_line(q, minus)))
    return out


def _random_dna(rng, n):
    return "".join(rng.choice("ACGT") for _ in range(n))


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Small constructed inputs: records that all align to one target."""
    d = tmp_path_factory.mktemp("seqs")
    rng = random.Random(7)
    s = _random_dna(rng, 600)
    (d / "S.fa").write_text(">S\n" + s + "\n")
    headers = [">  gi|123|ref|NC_1.1| some desc", ">chr1.fa extra",
               ">reverse complement of pig.fasta", ">positions 10-20 of armadillo|ENm008|x",
               ">dir/x.nib:1-5", ">a\tb c", ">seq{number}x", ">{number}y", ">name_with.2bit",
               ">.fa", ">ab:cd ef", ">x ref:ABC_12-z end"]
    text = "".join(f"{h}\n{s[5 * i:5 * i + 300]}\n" for i, h in enumerate(headers))
    (d / "N.fa").write_text(text)
    (d / "N_crlf.fa").write_bytes(text.replace("\n", "\r\n").encode())
    recs = [_random_dna(rng, 300) for _ in range(6)]
    (d / "T6.fa").write_text(">T\n" + "".join(recs) + "\n")
    (d / "R6.fa").write_text("".join(f">r{i + 1}\n{r}\n" for i, r in enumerate(recs)))
    (d / "R6.fq").write_text("".join(f"@r{i + 1}\n{r}\n+\n{'I' * 300}\n"
                                     for i, r in enumerate(recs)))
    (d / "n25").write_text("r2\n# comment\n  r5   trailing words\n")
    return d


# --- specifiers ---------------------------------------------------------------------


def test_parse_specifier_parts():
    sp = parse_specifier("nick::dir/x.2bit/chr1{m.txt}[unmask,10..20][multi]-")
    assert (sp.nickname, sp.path, sp.select, sp.xmask) == ("nick", "dir/x.2bit", "chr1", "m.txt")
    assert (sp.start, sp.end, sp.end_soft, sp.revcomp) == (10, 20, False, True)
    assert sp.unmask and sp.multiple and sp.partitioned
    sp = parse_specifier("a.fa[subset=n.txt,softmask=keep:s,nmask=n,nameparse=tag:ref|,namejoin]+")
    assert (sp.subset, sp.softmask, sp.softmask_keep, sp.nmask, sp.nmask_keep) == \
        ("n.txt", "s", True, "n", False)
    assert sp.nameparse == "tag:ref|" and sp.namejoin and not sp.revcomp
    assert parse_specifier("a.fa[@n,sep=N,format=fasta,nameparse=full]").separator == "N"
    assert parse_specifier("a.fa[nameparse=darkspace]").nameparse == "darkspace"
    assert parse_specifier("a.fa[name:alnum,subsample=2/5]").subsample == (2, 5)
    assert parse_specifier("a.fa[revcomp,revcomp]").revcomp is False
    # a slash only selects inside a .2bit path
    assert parse_specifier("d/a.fa/x").select is None
    assert parse_specifier("a.2bit/x/y").select is None


@pytest.mark.parametrize("sub", [
    "[10#2.5K]", "[100..5]", "[5,100]", "[500^100]", "[100..200+50%]", "[..250]", "[550..]",
    "[1#700]", "[2#1K]", "[10^100]", "[50^100]", "[51^100]", "[100..200+0%]",
    "[100..200+300%]", "[ 5.. 200]", "[+5..200]", "[5..200][revcomp]", "[20..300,revcomp]-",
])
def test_subranges_match_lastz(made, sub):
    spec = f"S.fa{sub}"
    ours = load_target(str(made / spec), OPTS)
    assert _render(ours, "target") == _lastz_target_dump(spec, made)
    rc, lav, err = _lastz([spec, "S.fa"], cwd=made)
    assert rc == 0, err
    blocks = _stanzas(lav)
    if blocks:        # (regions too short to align print no s stanza)
        assert blocks[0][0] == _s_line(ours).replace(str(made) + "/", "")
        assert blocks[0][2] == _h_line(ours)


@pytest.mark.parametrize("spec", [
    "S.fa[10#0.5K]", "S.fa[10^0.2K]", "S.fa[1..700]", "S.fa[foo]", "S.fa[5]", "S.fa[]",
    "S.fa[1,]", "S.fa{}", "S.fa{x", "::S.fa", "S.fa[0..5]", "S.fa[5..10][20..30]",
    "S.fa[format=foo]", "S.fa[unmask][multi,revcomp]", "S.fa[xmask=]", "-",
    "S.fa[subsample=3/2]", "S.fa[nickname=a,nickname=b]", "S.fa[5..10,x]", "S.fa[..0]",
    "S.fa[10..20x", "S.fa[1..2]x]", "S.fa/x", "S.fa[sep=]", "nope.fa", "S.fa[subset=nope]",
])
def test_bad_specifiers_match_lastz(made, spec):
    rc, _, err = _lastz([spec, "S.fa", "--format=general"], cwd=made)
    assert rc == 1
    theirs = err.split("FAILURE: ", 1)[1]
    with pytest.raises(InputError) as exc:
        with contextlib.chdir(made):
            load_target(spec, OPTS)
    norm = lambda m: re.sub(r"[;\s]+", " ", m).strip()          # noqa: E731
    theirs = norm(theirs.replace("fopen_or_die failed", "failed"))
    ours = norm(re.sub(r" \([A-Z][a-z]+( [a-z]+)*\)$", "", str(exc.value)))
    assert ours == theirs


def test_mask_files_match_lastz(made):
    (made / "m2.mask").write_text("# c\n  5 30 extra\n25\t40\n100 90\n1 3 # x\n+50 +60\n"
                                  "190 250\n")
    (made / "crlf.mask").write_bytes(b"10 20\r\n")
    for spec in ("S.fa[20..200,softmask=m2.mask,nmask=keep:m2.mask]",
                 "S.fa[xmask=m2.mask,100..]-", "S.fa{m2.mask}[unmask]",
                 "N.fa[multi,softmask=keep:m2.mask,xmask=m2.mask,10..]"):
        with contextlib.chdir(made):
            ours = load_target(spec, OPTS)
        assert _render(ours, "target") == _lastz_target_dump(spec, made)
    rc, _, err = _lastz(["S.fa[xmask=crlf.mask]", "S.fa"], cwd=made)
    with pytest.raises(InputError) as exc:
        with contextlib.chdir(made):
            load_target("S.fa[xmask=crlf.mask]", OPTS)
    assert err == f"FAILURE: {exc.value}\n"


# --- formats and bytes ------------------------------------------------------------------


def _all_chars(spec, cwd):
    with contextlib.chdir(cwd):
        return [(q.name, q.chars.tobytes()) for q in iter_queries(spec, OPTS)]


def test_formats_load_identical_bytes(lastz_data):
    assert _all_chars("pseudopig.fa", lastz_data) == _all_chars("pseudopig.2bit", lastz_data)
    assert _all_chars("shorties.fa", lastz_data) == _all_chars("shorties.2bit", lastz_data)
    fa, nib = _all_chars("pseudopig2.fa", lastz_data), _all_chars("pseudopig2.nib", lastz_data)
    assert fa[0][1] == nib[0][1] and nib[0][0] == "pseudopig2"
    assert _all_chars("pseudopig.2bit/pig2", lastz_data)[0] == fa[0]
    assert _all_chars("pseudopig2.nib[200..3000]-", lastz_data)[0][1] == \
        _all_chars("pseudopig2.fa[200..3000]-", lastz_data)[0][1]


@pytest.mark.parametrize("spec", [
    "pseudocat.fa", "pseudopig2.nib", "pseudopig.2bit/pig2", "aglobin.2bit/human[10000,60000]",
    "aglobin.2bit/cow[15000#40000]", "pseudocat.fa[101..5000]-", "pseudopig.fa[multiple]",
    "shorties.2bit[multi,@shorties.names]", "shorties.fa[multi,51..200]",
    "shorties.2bit[multi,51..200]", "pseudopig2.fa[nmask=pseudopig.n.mask]",
    "pseudopig2.fa[xmask=keep:pseudopig.x.mask]", "pseudopig2.fa[softmask=pseudopig.x.mask,unmask]",
    "pseudopig2.fa[softmask=keep:pseudopig.x.mask,17000..22900]",
    "pseudopig.2bit/pig2[unmask]", "pseudopig2.nib[unmask,100..2000]-",
    "pseudopig.fa[multi,separator=N]", "pseudopig.fa[multi,nmask=keep:pseudopig.x.mask]-",
    "pseudopig2.fa{pseudopig.x.mask}", "pseudocat.fa[format=fasta,1#500]",
])
def test_target_bytes_match_lastz(lastz_data, spec):
    with contextlib.chdir(lastz_data):
        ours = load_target(spec, OPTS)
    assert _render(ours, "target") == _lastz_target_dump(spec, lastz_data)


@pytest.mark.parametrize("spec", [
    "pseudopig.fa", "pseudopig.2bit", "shorties.fa[subset=shorties.names]",
    "shorties.2bit[subset=shorties.names]", "pseudopig.fa[nmask=pseudopig.n.mask]",
    "sample_101s.fastq", "shorties.fa[subsample=2/3]", "shorties.2bit[subsample=3/3,10..40]",
    "shorties.fa[1#30]", "pseudopig.fa[multi]-", "fake_orange_reads.fa[separator=N]",
    "sample_101s.fastq[multi,5..60]",
])
def test_query_bytes_match_lastz(lastz_data, spec):
    with contextlib.chdir(lastz_data):
        ours = "".join(_render(q, "query") for q in iter_queries(spec, OPTS))
    assert ours == _lastz_query_dump(spec, lastz_data)


@pytest.mark.parametrize("spec", ["shorties.fa[multi,1#40]", "pseudopig.fa[100..400]"])
def test_minus_strand_matches_lastz(lastz_data, spec):
    rc, _, err = _lastz(["pseudocat.fa[1..40]", spec, "--debug=querysequence2",
                         "--format=general"], cwd=lastz_data)
    assert rc == 0, err
    with contextlib.chdir(lastz_data):
        ours = "".join("query, forward:\n" + _dump(q) + "query, reverse:\n"
                       + _dump(reverse_complement_sequence(q)) for q in iter_queries(spec, OPTS))
    assert ours == err


def test_reverse_complement_table():
    fwd = np.frombuffer(b"ACGTacgtNnXxBDHKMRSVWYbdhkmrsvwy\0*9", np.uint8)
    rc = reverse_complement(fwd).tobytes()
    assert rc == b"9*\0rwbsykmdhvRWBSYKMDHVxXnNacgtACGT"
    assert reverse_complement(reverse_complement(fwd)).tobytes() == fwd.tobytes()
    # short buffers go through bytes.translate, long ones through numpy: the same bytes,
    # writable either way
    long = np.tile(fwd, 3000)
    rc_long = reverse_complement(long)
    assert long.shape[0] > 1 << 16 and rc_long.tobytes() == rc * 3000
    assert rc_long.flags.writeable and reverse_complement(fwd).flags.writeable


def test_partitioned_minus_strand_keeps_partitions(lastz_data):
    with contextlib.chdir(lastz_data):
        q = next(iter_queries("shorties.fa[multi]", OPTS))
    r = reverse_complement_sequence(q)
    assert r.partitions is q.partitions and r.revcomp == q.revcomp
    p = q.partitions
    for k in range(len(p.names)):
        a, n = int(p.offset[k]), int(p.length[k])
        assert r.chars[a:a + n].tobytes() == reverse_complement(q.chars[a:a + n]).tobytes()
    assert np.all(r.chars[p.offset - 1] == 0) and r.chars[-1] == 0


def test_gz_fasta_equals_plain(lastz_data, tmp_path):
    gz = tmp_path / "pseudopig.fa.gz"
    gz.write_bytes(gzip.compress((lastz_data / "pseudopig.fa").read_bytes()))
    plain = _all_chars(str(lastz_data / "pseudopig.fa"), lastz_data)
    assert _all_chars(str(gz), tmp_path) == plain
    t = load_target(str(gz) + "[multi,10..200]", OPTS)
    assert t.filename == str(gz) and len(t.partitions.names) == 3


def test_crlf_fasta_matches_lastz(made):
    assert _all_chars("N_crlf.fa", made) == _all_chars("N.fa", made)
    with contextlib.chdir(made):
        hdrs = [q.header for q in iter_queries("N_crlf.fa", OPTS)]
    assert hdrs[0] == ">  gi|123|ref|NC_1.1| some desc"
    ours = "".join(_render(q, "query") for q in iter_queries(str(made / "N_crlf.fa"), OPTS))
    rc, _, err = _lastz(["S.fa", "N_crlf.fa", "--debug=querysequence", "--format=general"],
                        cwd=made)
    assert ours == err


# --- names, headers, positions ----------------------------------------------------------


@pytest.mark.parametrize("mode", [
    "", "[nameparse=full]", "[nameparse=alphanum]", "[nameparse=darkspace]",
    "[nameparse=tag:ref|]", "[nameparse=tag:ref:]", "[namejoin]", "[nameparse=full,namejoin]",
    "[nameparse=darkspace,namejoin]", "[nickname=foo.fa]", "[nickname=n{number}]",
    "[nickname={number}z]",
])
@pytest.mark.parametrize("name", ["N.fa", "N_crlf.fa"])
def test_short_names_match_lastz(made, name, mode):
    spec = name + mode
    rc, out, err = _lastz(["S.fa", spec, "--format=general:name2,size2", "--strand=plus"],
                          cwd=made)
    assert rc == 0, err
    theirs = [tuple(line.rsplit("\t", 1)) for line in out.splitlines()[1:]]
    with contextlib.chdir(made):
        ours = [(q.name or "seq2", str(q.true_length)) for q in iter_queries(spec, OPTS)]
    assert theirs == ours


@pytest.mark.parametrize("query,target", [
    ("N.fa", "S.fa"), ("N_crlf.fa[nickname=n{number}]", "S.fa"),
    ("N.fa[namejoin]", "S.fa[10..390]"), ("N.fa[20..250]-", "nick::S.fa-"),
    ("R6.fa[subset=n25]", "T6.fa"), ("R6.fq[subset=n25]", "T6.fa"),
    ("R6.fa[subsample=2/3]", "T6.fa"), ("R6.fq[subsample=2/3,5#200]", "T6.fa"),
    ("R6.fa[@n25,nameparse=full]", "T6.fa[301..1500]"),
])
def test_lav_stanzas_match_lastz(made, query, target):
    rc, lav, err = _lastz([target, query], cwd=made)
    assert rc == 0, err
    theirs = _stanzas(lav)
    with contextlib.chdir(made):
        ours = _our_stanzas(target, query)
    assert theirs and all(block in ours for block in theirs)
    printed = {b[1] for b in theirs}
    assert [b for b in ours if b[1] in printed] == theirs


def test_subrange_stanzas_match_lastz_golden(lastz_data):
    # base_test_subrange: lastz aglobin.2bit/human[10000,60000] aglobin.2bit/cow[15000#40000]
    golden = (lastz_data / "base_test.subrange.lav").read_text()
    theirs = set(_stanzas(golden))
    t = load_target(str(lastz_data / "aglobin.2bit/human[10000,60000]"), OPTS)
    q = next(iter_queries(str(lastz_data / "aglobin.2bit/cow[15000#40000]"), OPTS))
    assert (t.start + 1, t.start + len(t), t.contig, t.true_length) == (10000, 60000, 1, 70000)
    assert (q.start + 1, q.start + len(q), q.contig, q.true_length) == (15000, 54999, 2, 66001)
    fix = lambda line: re.sub(r'"[^"]*aglobin', '"aglobin', line)           # noqa: E731
    ours = {(fix(_s_line(t)), fix(_s_line(q, minus)), _h_line(t), _h_line(q, minus))
            for minus in (False, True)}
    assert theirs and {tuple(fix(x) for x in b) for b in theirs} <= ours


def test_revcomp_target_stanza(lastz_data):
    t = load_target(str(lastz_data / "pseudocat.fa[101..5000]-"), OPTS)
    assert _s_line(t) == f'"{lastz_data}/pseudocat.fa-" 101 5000 1 1'
    assert _h_line(t) == '"> cat (reverse complement)"'
    assert (t.name, t.true_length) == ("cat", 18803)


def test_nib_header_and_name(lastz_data):
    t = load_target(str(lastz_data / "pseudopig2.nib[11..100]"), OPTS)
    assert t.header == f"{lastz_data}/pseudopig2.nib:11-100" and t.name == "pseudopig2"


# --- [multiple] -------------------------------------------------------------------------


def test_multiple_target_partitions(shared_pairs, tmp_path):
    pair = shared_pairs / "mlc_testdata_pair"
    t = load_target(str(pair / "target.fa[multiple]"), OPTS)
    assert _render(t, "target") == _lastz_target_dump(str(pair / "target.fa[multiple]"), None)
    p = t.partitions
    assert p.names == ["mock1r", "mock2r"] and p.headers == [">mock1r mock1r", ">mock2r mock2r"]
    assert list(p.contig) == [1, 2] and list(p.start) == [0, 0]
    assert t.chars[0] == 0 and t.chars[-1] == 0 and np.all(t.chars[p.offset - 1] == 0)
    assert np.all(t.chars[p.offset + p.length] == 0)
    assert len(t.chars) == int(p.length.sum()) + 3
    # a query made of a slice of each record: lastz names and sizes them per partition
    q = tmp_path / "q.fa"
    q.write_text("".join(f">q{k}\n{t.chars[o + 1000:o + 3000].tobytes().decode().upper()}\n"
                         for k, o in enumerate(p.offset)))
    rc, out, err = _lastz([str(pair / "target.fa[multiple]"), str(q), "--strand=plus",
                           "--format=general:name1,size1,zstart1,name2"])
    assert rc == 0, err
    rows = {tuple(r.split("\t")) for r in out.splitlines()[1:]}
    want = {(p.names[k], str(p.true_length[k]), "1000", f"q{k}") for k in range(2)}
    assert want <= rows


def test_multiple_target_with_subrange_and_separator(made, lastz_data):
    rng = random.Random(3)
    a, b = _random_dna(rng, 300), _random_dna(rng, 300)
    (made / "sep.fa").write_text(f">a x\nNN{a[:150]}NNNN{a[150:]}N\n>b\n{b}\n")
    t = load_target(str(made / "sep.fa[multi,separator=N]"), OPTS)
    p = t.partitions
    assert list(p.offset) == [3, 157, 309] and list(p.length) == [150, 150, 300]
    assert list(p.start) == [2, 156, 0] and list(p.true_length) == [307, 307, 300]
    assert p.names == ["a", "a", "b"] and list(p.contig) == [1, 1, 2]
    rc, out, err = _lastz(["sep.fa[multi,separator=N]", "R6.fa", "--format=general"], cwd=made)
    assert _render(t, "target") == _lastz_target_dump("sep.fa[multi,separator=N]", made)


@pytest.mark.parametrize("target,query", [
    ("R6.fa[multi,nickname=x{number}]", "T6.fa"), ("R6.fa[multi,nickname=x]", "T6.fa"),
    ("R6.fq[multi,nameparse=tag:r]", "T6.fa"), ("N.fa[multi,nameparse=full,namejoin]", "S.fa"),
    ("R6.fa[multi,@n25]", "T6.fa"), ("N_crlf.fa[multi,nameparse=alphanum,20..250]", "S.fa"),
])
def test_partition_names_match_lastz(made, target, query):
    rc, out, err = _lastz([target, query, "--format=general:name1,size1", "--strand=plus"],
                          cwd=made)
    assert rc == 0, err
    theirs = {tuple(line.split("\t")) for line in out.splitlines()[1:]}
    with contextlib.chdir(made):
        p = load_target(target, OPTS).partitions
    ours = {(n, str(t)) for n, t in zip(p.names, p.true_length)}
    assert theirs and theirs <= ours


def test_multi_record_target_needs_multiple(lastz_data, made):
    for spec in ("pseudopig.fa", "pseudopig.2bit", "shorties.fa[sep=N]"):
        rc, _, err = _lastz([spec, "pseudocat.fa"], cwd=lastz_data)
        assert "contains more than one sequence" in err
        with pytest.raises(InputError, match=r"^target file \S+ contains more than one sequence"):
            load_target(str(lastz_data / spec), OPTS)
    # one name in a subset makes a multi-record file a valid target
    (made / "one").write_text("r3\n")
    t = load_target(f"{made / 'R6.fa'}[subset={made / 'one'}]", OPTS)
    assert (t.name, t.contig) == ("r3", 3)


# --- FASTA/FASTQ character rules and oddities -------------------------------------------


def test_fasta_characters_match_lastz(made):
    cases = {
        "dig.fa": ">d\nAC 12\tGT\x0cAA\nAC\n",
        "iupac.fa": ">iu x\nACGTRYACGT\n",
        "bad.fa": ">b\nACGT\nAC*GT\n",
        "nohdr.fa": "ACGTU\n",
        "gt.fa": ">g\nACG>T\n",
        "hi.fa": ">h\nAC\xc3GT\n",
    }
    for name, text in cases.items():
        (made / name).write_bytes(text.encode("latin-1"))
        for iupac in (False, True):
            extra = ["--ambiguous=iupac"] if iupac else []
            rc, _, err = _lastz([name, "--debug=targetsequence", "--format=general", *extra],
                                cwd=made, stdin=b">q\nACGT\n")
            try:
                with contextlib.chdir(made):
                    ours = _render(load_target(name, Options(ambiguous_iupac=iupac)), "target")
            except InputError as exc:
                ours = "FAILURE: " + str(exc).replace("; remove", "\nremove") + "\n"
            assert ours == err, (name, iupac)


def test_empty_records_and_blank_lines(made, capsys):
    rng = random.Random(5)
    s = _random_dna(rng, 300)
    (made / "blank.fa").write_text(f"\n>r1\n{s}\n>r2\n\n  \t>r3 x\n{s[::-1]}\n>\n{s}\n")
    (made / "Tb.fa").write_text(f">T\n{s}{s[::-1]}\n")
    rc, lav, err = _lastz(["Tb.fa", "blank.fa", "--strand=plus"], cwd=made)
    with contextlib.chdir(made):
        ours = _our_stanzas("Tb.fa", "blank.fa")[::2]
    assert [b[1] + b[3] for b in _stanzas(lav)] == [b[1] + b[3] for b in ours]
    assert capsys.readouterr().err == err


def test_tiny_files_match_lastz(made, capsys):
    # lastz's format sniffing reads ahead; when that hits the end of file, the file
    # counts as empty (and a first line of >= 992 bytes loses one byte)
    for k, text in enumerate([">a\n", ">a\nA", ">a\nAC", "ACG", ">a\nACGT", ">a\r" + "A" * 60,
                              ">" + "x" * 995 + "\nACGT\n", ">" + "y" * 991 + "\nAC\n"]):
        name = f"tiny{k}.fa"
        (made / name).write_text(text)
        rc, lav, err = _lastz([name, name, "--format=lav"], cwd=made)
        try:
            with contextlib.chdir(made):
                t = load_target(name, OPTS)
            assert rc == 0
            for block in _stanzas(lav):
                assert block[2] == _h_line(t)
            assert _render(t, "target") == _lastz_target_dump(name, made)
        except InputError as exc:
            assert capsys.readouterr().err + "FAILURE: " + str(exc) + "\n" == err


def test_fastq_checks_match_lastz(made):
    s = _random_dna(random.Random(9), 30)
    cases = {
        "short": f"@r1\n{s}\n+\n{'I' * 29}\n", "long": f"@r1\n{s}\n+\n{'I' * 31}\n",
        "plus": f"@r1\n{s}\n+r2\n{'I' * 30}\n", "badq": f"@r1\n{s}\n+\n{'I' * 15} {'I' * 14}\n",
        "trail": f"@r1\n{s}\n+\n{'I' * 30}\n\n", "ok": f"@r1 d\n{s}\n+r1 d\n{'I' * 30}\n",
        "nick": f"@r1\n{s}\n+\n{'I' * 30}\n",
    }
    for name, text in cases.items():
        (made / f"{name}.fq").write_text(text)
        spec = f"{name}.fq" + ("[nickname=foo]" if name == "nick" else "[3..20]")
        rc, _, err = _lastz(["S.fa", spec, "--debug=querysequence", "--format=general"],
                            cwd=made)
        ours = []
        try:
            with contextlib.chdir(made):
                for q in iter_queries(spec, OPTS):
                    ours.append(_render(q, "query"))
        except InputError as exc:
            ours.append("FAILURE: " + str(exc))
        norm = lambda m: re.sub(r"[;:]?\s+", " ", m).strip()      # noqa: E731
        assert norm("".join(ours)) == norm(err), name


# --- streaming, stdin ---------------------------------------------------------------------


def test_streaming_is_chunk_independent(made, monkeypatch):
    rng = random.Random(11)
    parts = []
    for k in range(8):
        body = _random_dna(rng, rng.randrange(1, 200))
        lines = [body[i:i + 17] for i in range(0, len(body), 17)]
        eol = "\r\n" if k % 2 else "\n"
        parts.append(f"{' ' * (k % 3)}>rec{k} d{eol}" + eol.join(lines) + eol)
    (made / "chunky.fa").write_text("".join(parts))
    whole = [(q.name, q.header, q.contig, q.chars.tobytes())
             for q in iter_queries(str(made / "chunky.fa"), OPTS)]
    assert [w[2] for w in whole] == list(range(1, 9))
    for chunk in (1, 2, 5, 16):
        monkeypatch.setattr(fasta_io.ByteReader.__init__, "__defaults__", (chunk,))
        got = [(q.name, q.header, q.contig, q.chars.tobytes())
               for q in iter_queries(str(made / "chunky.fa"), OPTS)]
        assert got == whole


def test_queries_stream_one_record_at_a_time(made):
    (made / "late_bad.fa").write_text(">a\nACGT\n>b\nAC!GT\n")
    it = iter_queries(str(made / "late_bad.fa"), OPTS)
    assert next(it).name == "a"
    with pytest.raises(InputError, match="bad fasta character"):
        next(it)


def test_stdin_query(made, monkeypatch):
    data = (made / "R6.fa").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    qs = list(iter_queries(None, OPTS))
    assert [q.filename for q in qs] == ["(stdin)"] * 6
    assert [q.name for q in qs] == [f"r{k}" for k in range(1, 7)]
    rc, lav, err = _lastz(["T6.fa", "--strand=plus"], cwd=made, stdin=data)
    assert '"(stdin)" 1 300 0 6' in lav


def test_errors_for_missing_and_unsupported(lastz_data, tmp_path):
    with pytest.raises(InputError, match='failed to open ".*nope.fa" for "rb"'):
        load_target(str(tmp_path / "nope.fa"), OPTS)
    with pytest.raises(InputError, match="color space"):
        load_target(str(lastz_data / "fake_chimp_reads.csfasta"), OPTS)
    assert parse_specifier("x.fa[chores=c.txt]").chores == "c.txt"
    with pytest.raises(InputError, match="chores= requires a chores file"):
        parse_specifier("x.fa[chores=]")
    with pytest.raises(InputError, match=r"contig-of-interest only valid for 2bit .*\(human\)"):
        load_target(str(lastz_data / "aglobin.2bit/human[format=fasta]"), OPTS)
    with pytest.raises(InputError, match="query file .* contains no sequence"):
        (tmp_path / "empty.fa").write_text("")
        iter_queries(str(tmp_path / "empty.fa"), OPTS)


@pytest.mark.parametrize("text,spec", [
    (">a\nACGT\n>b\nAC!GT\n", ""),                  # a bad byte late in the file
    ("", ""),                                       # no sequence at all
    (">a\nACGT\n>b\nACGT\n", "[subset=names.txt]"),  # a missing names file
    (">a\nACGT\n>b\nACGT\n", "[10..20]"),           # a range past the end
    (">a\nACGT\n>b\nACGT\n", "[softmask=nope.txt]"),  # a mask file (the full scan)
    (">a\nACGT\n>b\nACGT\n", ""),                   # clean: neither raises
])
def test_checking_queries_fails_as_scanning_them(tmp_path, text, spec):
    """check_queries (the run's up-front check) raises what reading every query does."""
    path = tmp_path / "q.fa"
    path.write_text(text)
    want = _check_outcomes(str(path) + spec)
    assert (want is None) == (text.count("!") == 0 and spec == "" and text != "")


def _check_outcomes(query: str, opts=OPTS):
    """The message of reading every query (None: no error), once check_queries is
    seen to give the same."""
    from fastz.io.sequences import check_queries, scan_queries

    def outcome(fn):
        try:
            fn()
        except InputError as exc:
            return str(exc)
        return None
    want = outcome(lambda: list(scan_queries(query, opts)))
    assert outcome(lambda: check_queries(query, opts)) == want
    return want


@pytest.mark.parametrize("data,bad", [
    (b">a\nAC>GT\n", True),                       # a '>' inside a line
    (b">a\nACGT\n  >b\nACGT\n", False),           # blanks before a header's '>'
    (b">a\rACGT\r>b\rAC!GT\r", True),             # CR line ends only
    (b">a\r\nACGT\r\n>b\r\nACGT\r\n", False),     # CR-LF
    (b"ACGT\nAC!G\n", True),                       # no header line
    (b">a!b>c\nAC12gt\f\n", False),                # anything in a header; digits
    (b">a\nACRT\n", True),                         # IUPAC without --ambiguous=iupac
    (b">a\nACGT", False),                          # no line end at the end
    (b">a\nACGT\n>b\n\n>c\nA\x00C\n", True),      # an empty record, then a NUL
])
def test_the_bulk_check_of_a_fasta_file_fails_as_reading_it(tmp_path, data, bad):
    """check_queries' bulk pass over a whole FASTA file (``fasta.rest_is_clean``) says
    clean only where reading record by record raises nothing, and otherwise the
    record-by-record read gives LASTZ's message."""
    path = tmp_path / "q.fa"
    path.write_bytes(data)
    assert (_check_outcomes(str(path)) is not None) == bad


def test_the_bulk_check_reads_a_file_of_many_chunks(tmp_path):
    """Records across the reader's 4 MB chunks, and a line longer than a chunk: a bad
    byte at the very end is found, and the same file without it is clean."""
    from fastz.io import fasta
    rng = np.random.default_rng(5)
    def letters(alphabet, n):
        return rng.choice(np.frombuffer(alphabet, np.uint8), n).tobytes()
    reads = [b">r%d\n" % k + letters(b"ACGTacgtN", 150) + b"\n" for k in range(60_000)]
    long_line = letters(b"ACGT", 9 << 20)
    for name, data in (("reads", b"".join(reads)),
                       ("long", b">x\n" + long_line + b"\n>y\nAC\n")):
        clean = tmp_path / f"{name}.fa"
        clean.write_bytes(data)
        assert len(data) > 2 * fasta.ByteReader(None).chunk
        assert _check_outcomes(str(clean)) is None
        dirty = tmp_path / f"{name}_bad.fa"
        dirty.write_bytes(data.rstrip(b"\n") + b"!\n")
        assert "bad fasta character" in _check_outcomes(str(dirty))
        # (the bulk pass itself: clean, then not)
        for path, want in ((clean, True), (dirty, False)):
            with open(path, "rb") as f:
                assert fasta.rest_is_clean(fasta.ByteReader(f), False) is want


def test_the_bulk_check_agrees_with_reading_on_random_files(tmp_path):
    """Random small files from bytes that matter to the FASTA grammar: the up-front
    check gives exactly what reading every record does, with and without IUPAC."""
    from dataclasses import replace
    rng = np.random.default_rng(11)
    alphabet = np.frombuffer(b"ACGTNacgtn\n\n\n\r> \t!R7", np.uint8)
    iupac = replace(OPTS, ambiguous_iupac=True)
    seen = set()
    for k in range(150):
        body = rng.choice(alphabet, int(rng.integers(1, 60))).tobytes()
        data = (b">s\n" if k % 3 else b"") + body
        path = tmp_path / f"r{k}.fa"
        path.write_bytes(data)
        if not data.strip(b" \t\r\n"):
            continue
        for opts in (OPTS, iupac):
            try:
                seen.add(_check_outcomes(str(path), opts) is None)
            except InputError:
                seen.add("empty")       # (no sequence at all: _read_ahead's own error)
    assert True in seen and False in seen
