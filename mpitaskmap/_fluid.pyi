"""Type stubs of the compiled fluid-replay kernel (cext/_fluid.pyx)."""

import numpy as np
import numpy.typing as npt

def fluid_replay(
    fptr: npt.NDArray[np.int64], flink: npt.NDArray[np.int64], fcons: npt.NDArray[np.float64],
    lptr: npt.NDArray[np.int64], lflow: npt.NDArray[np.int64], cap: npt.NDArray[np.float64],
    pen: npt.NDArray[np.float64], delay: npt.NDArray[np.float64], size: npt.NDArray[np.float64],
    factor: npt.NDArray[np.float64], src: npt.NDArray[np.int64], dst: npt.NDArray[np.int64],
    sender_waits: npt.NDArray[np.uint8], n_ranks: int, n_steps: int, finish: npt.NDArray[np.float64],
    max_work: int = 0, quantum: float = 0.0,
) -> tuple[float, int, int]: ...
