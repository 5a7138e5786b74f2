"""bench/native_profile.py's in-process half: naming numba's compiled code for perf."""
import ctypes
import importlib.util
import weakref
from pathlib import Path

from numba import njit

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "native_profile.py"


def _tool():
    spec = importlib.util.spec_from_file_location("native_profile", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@njit
def _probe(x):
    return x * 3 + 1


class _Gone:
    pass


def test_compiled_functions_are_named_at_their_code(tmp_path):
    tool = _tool()
    assert _probe(2) == 7
    obj = _Gone()
    dead = [weakref.proxy(obj)]          # (gc sees it; any use raises ReferenceError)
    del obj
    symbols = tool.numba_symbols()
    assert dead
    mine = [addr for addr, name in symbols if name.endswith("test_native_profile._probe")]
    # every function of its code library is listed: the function and its Python wrapper
    assert len(mine) == 2
    mine = [addr for addr, name in symbols if name.endswith("test_native_profile._probe")
            and not name.startswith("cpython.")]
    assert len(mine) == 1
    assert ctypes.string_at(mine[0], 16) != bytes(16)      # machine code lies there
    path = tmp_path / "perf.map"
    tool.write_perf_map(symbols, str(path))
    rows = [line.split(None, 2) for line in path.read_text().splitlines()]
    assert len(rows) == len(symbols)
    starts = [int(a, 16) for a, _, _ in rows]
    assert starts == sorted(starts) and mine[0] in starts
    # each symbol runs to the next one: no two overlap
    assert all(int(a, 16) + int(n, 16) <= b for (a, n, _), b in zip(rows, starts[1:]))


def test_numba_names_are_demangled():
    tool = _tool()
    assert tool.demangle("_ZN5fastz7kernels5ydrop5_rowsB2v1B38c8tJTIeFIjxB2IKSgI4CrvQ"
                         "ClQZ6FczSBAA_3dE5ArrayIxLi1E1C7mutable7alignedE") == \
        "fastz.kernels.ydrop._rows"
    assert tool.demangle("NRT_incref") == "NRT_incref"
