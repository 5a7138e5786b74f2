#!/usr/bin/env python3
"""Every option word lastz's parser names, through lastz and fastz on the same pair.

The words are the string literals of ``strcmp(arg, "...")`` and
``strcmp_prefix(arg, "...")`` in lastz's ``src/lastz.c`` (1.04.22: 463 of them); a
prefix word (ending in ``=`` or ``:``) gets the value ``10``.  Prints the words whose
exit status or stdout (version strings dropped) differ, with both last stderr lines.

    git -C <lastz checkout> show 1.04.22:src/lastz.c > /tmp/lastz.c
    python bench/option_words.py /tmp/lastz.c
    python bench/option_words.py /tmp/lastz.c --pair dwv_vs_vdv1 --base "target.fa query.fa"
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAIRS = REPO.parent / "shared" / "data" / "pairs"
TOKEN = re.compile(rb"(?:lastz|fastz)\.v[0-9][0-9A-Za-z.\-]*")


def option_words(source: str) -> list[str]:
    found = re.findall(r'strcmp(?:_prefix)? *\(arg, *"([^"]*)"\)', source)
    return sorted({w for w in found if w not in ("", "--")})


def last_line(err: bytes) -> str:
    lines = err.decode(errors="replace").strip().splitlines()
    return lines[-1][:110] if lines else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lastz_c", help="lastz's src/lastz.c")
    ap.add_argument("--pair", default="mito_human_orang")
    ap.add_argument("--base", default="target.fa[1..6000] query.fa[1..6000]")
    a = ap.parse_args()
    words = option_words(Path(a.lastz_c).read_text(errors="replace"))
    with tempfile.TemporaryDirectory() as tmp:
        # (a copy of the pair: words such as --writecapsule=10 write files where they run)
        for name in ("target.fa", "query.fa"):
            shutil.copy(PAIRS / a.pair / name, tmp)
        differ = survey(words, a.base.split(), Path(tmp))
    print(f"# {differ} of {len(words)} words differ")
    return 0


def survey(words: list[str], base: list[str], cwd: Path) -> int:
    differ = 0
    for word in words:
        arg = word + "10" if word.endswith(("=", ":")) else word
        argv = [*base, arg]
        lz = subprocess.run(["lastz", *argv], cwd=cwd, capture_output=True, timeout=120)
        fz = subprocess.run([sys.executable, "-m", "fastz", *argv], cwd=cwd,
                            capture_output=True, timeout=300)
        if lz.returncode != fz.returncode:
            what = f"exit {lz.returncode} / {fz.returncode}"
        elif TOKEN.sub(b"V", lz.stdout) != TOKEN.sub(b"V", fz.stdout):
            what = "stdout"
        else:
            continue
        differ += 1
        print(f"{arg}\t{what}\tlastz: {last_line(lz.stderr)}\tfastz: {last_line(fz.stderr)}",
              flush=True)
    return differ


if __name__ == "__main__":
    sys.exit(main())
