"""GPU kernels (numba-cuda) and their CPU twins.

Importing this package needs numba-cuda but no GPU: device functions compile on
first launch.  ``extension`` holds the y-drop inspector (one extension per
thread) and the pruned executor, ``warp`` the row-parallel inspector (one warp
per extension), ``resolve`` the host-side exact resolution in LASTZ's order.
cupy is never imported here (see ``fastz.kernels.device``).
"""
from ..device import lock_simulator_shared_arrays, simulated

if simulated():
    lock_simulator_shared_arrays()
