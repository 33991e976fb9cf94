"""Type stubs of the compiled node-pair hop formulas (cext/_hops.pyx)."""

import numpy as np
import numpy.typing as npt

def label_hops(
    kind: int, params: npt.NDArray[np.int64], la: npt.NDArray[np.int64], lb: npt.NDArray[np.int64],
    out: npt.NDArray[np.int64],
) -> None: ...
def total_label_hops(kind: int, params: npt.NDArray[np.int64], labels: npt.NDArray[np.int64]) -> int: ...
def nearest_nodes(
    kind: int, params: npt.NDArray[np.int64], labels: npt.NDArray[np.int64], ndist: npt.NDArray[np.int32], width: int,
) -> npt.NDArray[np.int64]: ...
def label_routes(
    kind: int, rparams: npt.NDArray[np.int64], la: npt.NDArray[np.int64], lb: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
