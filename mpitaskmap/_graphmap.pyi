"""Type stubs of the compiled graph-mapping kernels (cext/_graphmap.pyx).

Task graphs are CSR arrays: ``tptr``/``tadj``/``tw`` the undirected graph with both
directions stored, ``mptr``/``madj``/``mw`` the directed messages out of every task,
``iptr``/``iadj``/``iw`` the messages into every task.  ``task_node`` holds the node index of
every task; ``data``/``msgs`` the words and messages on every directed link.  The congestion
functions need a net with routes and raise ValueError otherwise, or when ``data``/``msgs``/``bw``
are shorter than the links its routes name.
"""

from typing import final

import numpy as np
import numpy.typing as npt
from typing_extensions import TypeAlias

#: Router coordinates: int16, int32 or int64 (torus_tree: one compiled specialisation each,
#: cext/_topology.pxd coord_t; make_net keeps its node rows as int64).
_Coords: TypeAlias = npt.NDArray[np.int16] | npt.NDArray[np.int32] | npt.NDArray[np.int64]

@final
class _Net:
    """The network between nodes (torus BFS, a network formula over node labels, or a hop matrix;
    routes: none, the torus's or a table of every node pair's); built by :func:`make_net`."""

def make_net(
    ncoords: _Coords, dims: npt.NDArray[np.int64], wrap: npt.NDArray[np.uint8],
    router_ptr: npt.NDArray[np.int64], router_nodes: npt.NDArray[np.int64], node_router: npt.NDArray[np.int64],
    ndist: npt.NDArray[np.int32], route_ptr: npt.NDArray[np.int64] | None = None,
    route_links: npt.NDArray[np.int64] | None = None, route_fractions: npt.NDArray[np.float64] | None = None,
    metric: int = 0, metric_params: npt.NDArray[np.int64] | None = None,
    metric_labels: npt.NDArray[np.int64] | None = None, near: npt.NDArray[np.int64] | None = None,
    route_params: npt.NDArray[np.int64] | None = None, n_links: int = 0,
) -> _Net: ...
def _py_level_nodes(
    net: _Net, sources: list[int], exclude: int, want: int, free_cap: npt.NDArray[np.int64] | None = None,
) -> list[int]: ...
def greedy_map(
    tptr: npt.NDArray[np.int64], tadj: npt.NDArray[np.int64], tw: npt.NDArray[np.float64],
    capacity: npt.NDArray[np.int64], net: _Net, n_bfs: int, start_node: int, task_node: npt.NDArray[np.int64],
) -> int: ...
def refine_wh(
    tptr: npt.NDArray[np.int64], tadj: npt.NDArray[np.int64], tw: npt.NDArray[np.float64],
    capacity: npt.NDArray[np.int64], net: _Net, delta: int, max_passes: int, task_node: npt.NDArray[np.int64],
    max_sources: int = 0, max_partners: int = 2,
) -> tuple[int, int, float]: ...
def link_loads_nodes(
    mptr: npt.NDArray[np.int64], madj: npt.NDArray[np.int64], mw: npt.NDArray[np.float64],
    task_node: npt.NDArray[np.int64], net: _Net, data: npt.NDArray[np.float64], msgs: npt.NDArray[np.int64],
) -> None: ...
def apply_swaps_incrementally(
    mptr: npt.NDArray[np.int64], madj: npt.NDArray[np.int64], mw: npt.NDArray[np.float64],
    iptr: npt.NDArray[np.int64], iadj: npt.NDArray[np.int64], iw: npt.NDArray[np.float64],
    task_node: npt.NDArray[np.int64], net: _Net, swaps: npt.NDArray[np.int64], data: npt.NDArray[np.float64],
    msgs: npt.NDArray[np.int64], bw: npt.NDArray[np.float64],
) -> None: ...
def trial_relocations(
    mptr: npt.NDArray[np.int64], madj: npt.NDArray[np.int64], mw: npt.NDArray[np.float64],
    iptr: npt.NDArray[np.int64], iadj: npt.NDArray[np.int64], iw: npt.NDArray[np.float64],
    task_node: npt.NDArray[np.int64], net: _Net, rows: npt.NDArray[np.int64], data: npt.NDArray[np.float64],
    msgs: npt.NDArray[np.int64], bw: npt.NDArray[np.float64], objective: int, hot: int, m_old: float,
) -> npt.NDArray[np.uint8]: ...
def refine_congestion(
    mptr: npt.NDArray[np.int64], madj: npt.NDArray[np.int64], mw: npt.NDArray[np.float64],
    iptr: npt.NDArray[np.int64], iadj: npt.NDArray[np.int64], iw: npt.NDArray[np.float64],
    tptr: npt.NDArray[np.int64], tadj: npt.NDArray[np.int64], tw: npt.NDArray[np.float64],
    capacity: npt.NDArray[np.int64], net: _Net, bw: npt.NDArray[np.float64], objective: int, delta: int,
    max_candidates: int, max_iter: int, task_node: npt.NDArray[np.int64], data: npt.NDArray[np.float64],
    msgs: npt.NDArray[np.int64],
) -> tuple[int, int]: ...
def refine_node_swaps(
    cptr: npt.NDArray[np.int64], cadj: npt.NDArray[np.int64], cw: npt.NDArray[np.float64],
    rptr: npt.NDArray[np.int64], radj: npt.NDArray[np.int64], rw: npt.NDArray[np.float64],
    load: npt.NDArray[np.int64], capacity: npt.NDArray[np.int64], net: _Net, bw: npt.NDArray[np.float64],
    pos: npt.NDArray[np.int64], data: npt.NDArray[np.float64], max_passes: int, max_work: int,
) -> tuple[int, int, int]: ...
def node_assignment_wh(
    tptr: npt.NDArray[np.int64], tadj: npt.NDArray[np.int64], tw: npt.NDArray[np.float64], net: _Net,
    task_node: npt.NDArray[np.int64],
) -> float: ...
def grow_parts(
    tptr: npt.NDArray[np.int64], tadj: npt.NDArray[np.int64], tw: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.int64], parts: npt.NDArray[np.int64],
) -> None: ...
def bisect_tasks(
    tptr: npt.NDArray[np.int64], tadj: npt.NDArray[np.int64], tw: npt.NDArray[np.float64], net: _Net,
    tasks: npt.NDArray[np.int64], task_dom: npt.NDArray[np.int64], dom_rep: npt.NDArray[np.int64], rep0: int,
    rep1: int, lo: int, hi: int, target: int, n_tries: int, max_passes: int, loc: npt.NDArray[np.int64],
    side_out: npt.NDArray[np.uint8], start: npt.NDArray[np.uint8] | None = None, multilevel: bool = False,
) -> float: ...
def torus_tree(
    coords: _Coords, dims: npt.NDArray[np.int64], wrap: npt.NDArray[np.uint8],
    cap: npt.NDArray[np.int64], children: npt.NDArray[np.int64], node: npt.NDArray[np.int64],
    capacity: npt.NDArray[np.int64], rep: npt.NDArray[np.int64],
) -> None: ...
