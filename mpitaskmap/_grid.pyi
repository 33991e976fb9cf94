"""Type stubs of the compiled grid-heuristic kernels (cext/_grid.pyx)."""

import numpy as np
import numpy.typing as npt
from typing_extensions import TypeAlias

#: Router coordinates: int16, int32 or int64 (one compiled specialisation each, cext/_topology.pxd coord_t).
_Coords: TypeAlias = npt.NDArray[np.int16] | npt.NDArray[np.int32] | npt.NDArray[np.int64]

def expand_nearest(
    order: npt.NDArray[np.intp], front: npt.NDArray[np.intp], corner_i: npt.NDArray[np.int64],
    corner_j: npt.NDArray[np.int64], ox: int, oy: int, oi: npt.NDArray[np.int64], oj: npt.NDArray[np.int64],
    placed: npt.NDArray[np.uint8], nx: int, ny: int, right: npt.NDArray[np.intp], left: npt.NDArray[np.intp],
    up: npt.NDArray[np.intp], down: npt.NDArray[np.intp], free_in_row: npt.NDArray[np.intp],
) -> int: ...
def place_nearest(
    ti: npt.NDArray[np.int64], tj: npt.NDArray[np.int64], oi: npt.NDArray[np.int64], oj: npt.NDArray[np.int64],
    nx: int, ny: int, right: npt.NDArray[np.intp], left: npt.NDArray[np.intp], up: npt.NDArray[np.intp],
    down: npt.NDArray[np.intp], free_in_row: npt.NDArray[np.intp],
) -> int: ...
def pairs_refine(
    indptr: npt.NDArray[np.intp], indices: npt.NDArray[np.intp], weights: npt.NDArray[np.float64],
    coords: _Coords, dims: npt.NDArray[np.int64], wrap: npt.NDArray[np.uint8],
    task_to_proc: npt.NDArray[np.intp], proc_to_task: npt.NDArray[np.intp], pn_indptr: npt.NDArray[np.intp],
    pn_indices: npt.NDArray[np.intp], tasks: npt.NDArray[np.intp], uni: npt.NDArray[np.intp],
    r1: npt.NDArray[np.int64], r2: npt.NDArray[np.int64], tol: float,
) -> tuple[int, float]: ...
