"""fastz: whole-genome gapped DNA alignment, byte-identical to LASTZ 1.04.22."""
__version__ = "0.1.0"

from . import _kernel_cache

_kernel_cache.configure()      # before numba compiles anything (see the module)
