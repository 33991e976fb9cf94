"""Type stubs of the compiled torus kernels (cext/_torus.pyx)."""

import numpy as np
import numpy.typing as npt
from typing_extensions import TypeAlias

#: Router coordinates: int16, int32 or int64 (one compiled specialisation each, cext/_topology.pxd coord_t).
_Coords: TypeAlias = npt.NDArray[np.int16] | npt.NDArray[np.int32] | npt.NDArray[np.int64]

def hops_pairs(
    coords: _Coords, dims: npt.NDArray[np.int64], wrap: npt.NDArray[np.uint8],
    src: npt.NDArray[np.intp], dst: npt.NDArray[np.intp], out: npt.NDArray[np.int64],
) -> None: ...
def csr_hop_sums(
    indptr: npt.NDArray[np.intp], indices: npt.NDArray[np.intp], weights: npt.NDArray[np.float64],
    task_to_proc: npt.NDArray[np.intp], coords: _Coords, dims: npt.NDArray[np.int64],
    wrap: npt.NDArray[np.uint8],
) -> tuple[int, float, int]: ...
def csr_edge_hops(
    indptr: npt.NDArray[np.intp], indices: npt.NDArray[np.intp], task_to_proc: npt.NDArray[np.intp],
    coords: _Coords, dims: npt.NDArray[np.int64], wrap: npt.NDArray[np.uint8],
    out: npt.NDArray[np.int64],
) -> None: ...
def csr_link_loads(
    indptr: npt.NDArray[np.intp], indices: npt.NDArray[np.intp], weights: npt.NDArray[np.float64],
    task_to_proc: npt.NDArray[np.intp], coords: _Coords, dims: npt.NDArray[np.int64],
    wrap: npt.NDArray[np.uint8], data: npt.NDArray[np.float64], messages: npt.NDArray[np.int64],
) -> None: ...
def route_links(
    coords: _Coords, dims: npt.NDArray[np.int64], wrap: npt.NDArray[np.uint8], p: int, q: int,
) -> npt.NDArray[np.int64]: ...
def csr_link_time(
    indptr: npt.NDArray[np.intp], indices: npt.NDArray[np.intp], weights: npt.NDArray[np.float64],
    task_to_proc: npt.NDArray[np.intp], coords: _Coords, dims: npt.NDArray[np.int64],
    wrap: npt.NDArray[np.uint8], inv_bandwidth: npt.NDArray[np.float64], seconds_per_weight: float,
    hop_latency: float, overlap_weight: float, slots: npt.NDArray[np.float64], epoch: int,
) -> tuple[float, int]: ...
def routes_csr(
    coords: _Coords, dims: npt.NDArray[np.int64], wrap: npt.NDArray[np.uint8],
    src: npt.NDArray[np.intp], dst: npt.NDArray[np.intp],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
