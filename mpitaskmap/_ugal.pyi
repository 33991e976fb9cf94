"""Type stubs of the compiled UGAL fixed point (cext/_ugal.pyx)."""

import numpy as np
import numpy.typing as npt

def ugal_detours(
    a: npt.NDArray[np.int64], b: npt.NDArray[np.int64], link: npt.NDArray[np.int64], volume: npt.NDArray[np.float64],
    order: npt.NDArray[np.int64], n_groups: int, global_links: int, min_hops: float, valiant_hops: float,
    max_sweeps: int, detour: npt.NDArray[np.uint8],
) -> tuple[int, bool]: ...
