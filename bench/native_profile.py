#!/usr/bin/env python3
"""Where a fastz run spends its CPU, down to numba's compiled functions and their
hottest instructions (``perf`` alone sees numba's code as anonymous addresses).

    python bench/native_profile.py -- target.fa query.fa --workers=1 [fastz options]
    python bench/native_profile.py --blocks 4 -- target.fa reads.fa --step=10 ...
    python bench/native_profile.py --fresh -- ...   # callees named too (compiles first)

The script runs itself under ``perf record`` and, inside, fastz's command line in the
same process (``--workers=1`` keeps the work there; the output goes to /dev/null
unless ``--output`` is given).  At exit that process writes perf's symbol map
(``/tmp/perf-<pid>.map``) from numba's dispatchers and copies its anonymous executable
memory, so that the report can name each compiled function and disassemble its
hottest 128-byte blocks (``objdump``).  Needs ``perf`` and ``objdump`` (binutils).

What the report shows: samples per symbol (numba functions by their Python names,
with what they inlined; ``0x...`` addresses in a small anonymous block right after
a call are usually numba's reference counting, ``NRT_incref``/``NRT_decref``), then
per top numba function its hottest blocks with the samples of each instruction.
"""
from __future__ import annotations

import argparse
import collections
import ctypes
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = "FASTZ_NATIVE_PROFILE_DIR"
CONTROL = "FASTZ_NATIVE_PROFILE_CONTROL"


def numba_symbols() -> list[tuple[int, str]]:
    """(address, name) of every function numba has compiled in this process, sorted:
    each dispatcher's overloads and the functions linked into their code (a jitted
    callee that is not inlined runs from a copy inside its caller's library, which
    would otherwise be counted as its caller)."""
    import gc

    from numba.core.dispatcher import Dispatcher
    found = set()
    for obj in gc.get_objects():
        try:
            if not isinstance(obj, Dispatcher):
                continue
        except ReferenceError:  # a weakref.proxy whose object is gone
            continue
        for cres in list(obj.overloads.values()):
            lib = cres.library
            try:
                names = [f.name for f in lib._final_module.functions if not f.is_declaration]
            except Exception:       # noqa: BLE001 (a library without a final module)
                names = []
            # (code loaded from numba's cache has an empty final module: its entry only)
            names = names or [cres.fndesc.llvm_func_name]
            for llvm_name in names:
                try:
                    addr = lib.get_pointer_to_function(llvm_name)
                except Exception:   # noqa: BLE001 (a function without machine code)
                    continue
                if addr:
                    found.add((addr, demangle(llvm_name)))
    return sorted(found)


def demangle(name: str) -> str:
    """``fastz.kernels.ydrop._rows`` from numba's mangled ``_ZN5fastz7kernels5ydrop5_rows...``
    (other names as they are)."""
    if not name.startswith("_ZN"):
        return name
    parts, i = [], 3
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        n = int(name[i:j])
        parts.append(name[j:j + n])
        i = j + n
    return ".".join(parts) or name


def write_perf_map(symbols, path: str) -> None:
    """perf's map format: ``START SIZE NAME`` in hex; a symbol runs to the next one."""
    with open(path, "w") as f:
        for (addr, name), nxt in zip(symbols, symbols[1:] + [(symbols[-1][0] + 65536, "")]):
            if nxt[0] == addr:      # (one function under two names: the last one)
                continue
            f.write(f"{addr:x} {min(nxt[0] - addr, 1 << 20):x} {name}\n")


def dump_code(folder: Path) -> None:
    """Copy each anonymous executable mapping (numba's code lives there) to a file."""
    for line in open("/proc/self/maps"):
        parts = line.split()
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        if "x" in parts[1] and len(parts) < 6 and hi - lo < (64 << 20):
            (folder / f"code_{lo:x}.bin").write_bytes(ctypes.string_at(lo, hi - lo))


def child(folder: Path, argv: list[str]) -> int:
    sys.path.insert(0, str(REPO))
    from fastz.cli import main
    if not any(a.startswith("--output") for a in argv):
        argv = argv + ["--output=/dev/null"]
    control = os.environ.get(CONTROL)
    if control:
        # --fresh: a first run compiles (unrecorded), the second is recorded
        main(argv)
        ctl, ack = control.split(",")
        perf_command(ctl, ack, "enable")
        status = main(argv)
        perf_command(ctl, ack, "disable")
    else:
        status = main(argv)
    symbols = numba_symbols()
    if symbols:
        write_perf_map(symbols, f"/tmp/perf-{os.getpid()}.map")
        write_perf_map(symbols, str(folder / "symbols.map"))
    dump_code(folder)
    return status


def perf_command(ctl: str, ack: str, what: str) -> None:
    """Tell ``perf record --control`` to start or stop recording; wait for its ack."""
    with open(ctl, "w") as f:
        f.write(what + "\n")
    with open(ack) as f:
        f.readline()


def disassemble(folder: Path, start: int, lo: int, hi: int) -> list[tuple[int, str]]:
    """(address, instruction) of ``[lo, hi)`` from the dumped code, decoded from the
    function's ``start`` (decoding from a block's first byte could start mid-way
    through an instruction)."""
    for f in folder.glob("code_*.bin"):
        base = int(f.stem.split("_")[1], 16)
        if base <= start and hi <= base + f.stat().st_size:
            out = subprocess.run(
                ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                 f"--adjust-vma={base:#x}", f"--start-address={start:#x}",
                 f"--stop-address={hi:#x}", str(f)],
                capture_output=True, text=True, check=True).stdout
            rows = []
            for line in out.splitlines():
                m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
                if m and int(m.group(1), 16) >= lo:
                    rows.append((int(m.group(1), 16), m.group(2)))
            return rows
    return []


def report(folder: Path, top: int, blocks: int) -> None:
    out = subprocess.run(["perf", "script", "-i", str(folder / "perf.data"), "-F", "ip,sym"],
                         capture_output=True, text=True).stdout
    per_sym: collections.Counter = collections.Counter()
    per_ip: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in out.splitlines():
        parts = line.split(None, 1)
        if not parts:
            continue
        ip = int(parts[0], 16)
        sym = parts[1].strip() if len(parts) > 1 else "[unknown]"
        if sym == "[unknown]":
            sym = f"0x{ip:x}"
        per_sym[sym] += 1
        per_ip[sym][ip] += 1
    total = sum(per_sym.values()) or 1
    print(f"{total:,} samples\n\n| share | symbol |\n|---:|---|")
    for sym, n in per_sym.most_common(top):
        print(f"| {100 * n / total:.1f} % | {sym} |")
    starts = {}
    if (folder / "symbols.map").exists():
        for line in open(folder / "symbols.map"):
            addr, _, name = line.split(None, 2)
            starts.setdefault(name.strip(), int(addr, 16))
    hot = [s for s, _ in per_sym.most_common(top) if s in starts][:3]
    for sym in hot:
        ips = per_ip[sym]
        n_sym = sum(ips.values())
        by_block: collections.Counter = collections.Counter()
        for ip, n in ips.items():
            by_block[ip >> 7] += n
        print(f"\n## {sym}: hottest 128-byte blocks")
        for b, n in by_block.most_common(blocks):
            lo = b << 7
            print(f"\n{lo:#x}: {100 * n / n_sym:.1f} % of the function")
            for addr, text in disassemble(folder, starts[sym], lo, lo + 128):
                print(f"{ips.get(addr, 0):7d}  {addr:x}  {text}")


def main() -> int:
    if CHILD in os.environ:
        return child(Path(os.environ[CHILD]), sys.argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=25, help="symbols listed")
    ap.add_argument("--blocks", type=int, default=3, help="hot blocks shown per function")
    ap.add_argument("--fresh", action="store_true",
                    help="compile afresh (numba's cache left aside) and record a second "
                         "run: names the jitted callees linked into their callers' code "
                         "too, which code loaded from the cache does not list")
    ap.add_argument("fastz_args", nargs=argparse.REMAINDER,
                    help="-- then fastz's arguments")
    a = ap.parse_args()
    args = a.fastz_args[1:] if a.fastz_args[:1] == ["--"] else a.fastz_args
    if not args:
        ap.error("give fastz's arguments after --")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, **{CHILD: tmp})
        control = []
        if a.fresh:
            ctl, ack = f"{tmp}/ctl", f"{tmp}/ack"
            os.mkfifo(ctl)
            os.mkfifo(ack)
            env.update({CONTROL: f"{ctl},{ack}", "NUMBA_CACHE_DIR": f"{tmp}/numba"})
            control = ["-D", "-1", f"--control=fifo:{ctl},{ack}"]
        run = subprocess.run(["perf", "record", "-q", *control, "-o", f"{tmp}/perf.data", "--",
                              sys.executable, __file__, *args], env=env)
        if run.returncode != 0:
            print(f"native_profile: the run failed (status {run.returncode})", file=sys.stderr)
            return run.returncode
        report(Path(tmp), a.top, a.blocks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
