"""Compiling one undecorated source for two targets (CPU twin and GPU kernel).

A body written once as plain Python is compiled with ``numba.njit`` for the CPU and
with ``cuda.jit(device=True)`` for the GPU.  A function that calls another one must
call the callee compiled for the *same* target (a CUDA kernel can never call an njit
dispatcher), so each function is rebuilt with globals in which its callees are the
compiled versions.
"""
from __future__ import annotations

import types


def compile_twins(namespace: dict, order, jit):
    """Compile ``namespace[name]`` for each name in ``order`` (callees first) with ``jit``.

    ``namespace`` maps the names to undecorated functions (a module's globals); an
    entry may also be an already compiled numba dispatcher, whose Python source
    (``py_func``) is used.  Each body sees its own module's globals, except that the
    names compiled before it resolve to their compiled versions.  Returns a
    namespace object of the compiled functions.
    """
    compiled_so_far = {}
    out = types.SimpleNamespace()
    for name in order:
        f = namespace[name]
        f = getattr(f, "py_func", f)
        # the function's own module globals, with its callees swapped for the
        # versions compiled for this target
        scope = dict(f.__globals__)
        scope.update(compiled_so_far)
        g = types.FunctionType(f.__code__, scope, name, f.__defaults__, f.__closure__)
        g.__doc__ = f.__doc__
        g.__module__ = f.__module__
        g.__qualname__ = f.__qualname__
        compiled = jit(g)
        compiled_so_far[name] = compiled
        setattr(out, name, compiled)
    return out
