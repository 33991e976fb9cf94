"""Type stubs of the compiled PERCS routing kernels (cext/_percs.pyx)."""

import numpy as np
import numpy.typing as npt

def pair_routes(
    su: npt.NDArray[np.int64], u: npt.NDArray[np.int64], sv: npt.NDArray[np.int64], v: npt.NDArray[np.int64],
    grp: npt.NDArray[np.int64], gptr: npt.NDArray[np.int64], via: npt.NDArray[np.int64],
    first: npt.NDArray[np.int64], second: npt.NDArray[np.int64], share: npt.NDArray[np.float64],
    n_s: int, n_d: int, mode: int, stamp: npt.NDArray[np.int64], pos: npt.NDArray[np.int64],
    first_id: int, indptr: npt.NDArray[np.int64], links: npt.NDArray[np.int64],
    fractions: npt.NDArray[np.float64],
) -> int: ...
def pair_messages(
    su: npt.NDArray[np.int64], u: npt.NDArray[np.int64], sv: npt.NDArray[np.int64], v: npt.NDArray[np.int64],
    mult: npt.NDArray[np.int64], grp: npt.NDArray[np.int64], gptr: npt.NDArray[np.int64],
    via: npt.NDArray[np.int64], first: npt.NDArray[np.int64], second: npt.NDArray[np.int64],
    share: npt.NDArray[np.float64], n_s: int, n_d: int, by_residue: bool, mode: int, msg: npt.NDArray[np.int64],
    stamp: npt.NDArray[np.int64], first_id: int,
) -> int: ...
def class_messages(
    nc: npt.NDArray[np.int64], n_d: int, mode: int, msg: npt.NDArray[np.int64], stamp: npt.NDArray[np.int64],
    first_id: int,
) -> int: ...
