"""Type stubs for the compiled MJ kernel (cext/_mj.pyx)."""

import numpy as np
import numpy.typing as npt
from typing_extensions import TypeAlias

#: Router coordinates: int16, int32 or int64 (one compiled specialisation each, cext/_topology.pxd coord_t).
_Coords: TypeAlias = npt.NDArray[np.int16] | npt.NDArray[np.int32] | npt.NDArray[np.int64]

ORDERING_Z: int
ORDERING_GRAY: int
ORDERING_FZ: int
ORDERING_MFZ: int

def mj_partition_kernel(
    coords: npt.NDArray[np.float64],
    dim_order: npt.NDArray[np.intp],
    n_parts: int,
    ordering: int,
    longest_dim: bool,
    part_counts: npt.NDArray[np.intp],
    prime_split: bool,
    max_depth: int,
    out: npt.NDArray[np.intp],
) -> None: ...
def column_histograms(
    coords: _Coords, lengths: npt.NDArray[np.int64]
) -> list[npt.NDArray[np.int64]]: ...
def column_ranges(coords: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def _py_largest_prime_factor(m: int) -> int: ...
def _py_left_parts(np_: int, prime_split: bool) -> int: ...
def _py_share(n: int, np_: int, c: int) -> int: ...
