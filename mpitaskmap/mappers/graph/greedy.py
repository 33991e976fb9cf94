"""Graph-based mapping: greedy growth, weighted-hop and congestion refinement (UMPa).

ALGORITHMS.md section 3 (Deveci, Kaya, Ucar, Catalyurek).  These mappers need only the
task communication graph, not task coordinates, and work on any machine whose hop
distance is known: on a machine with torus geometry (router coordinates, ``dims``, ``wrap``
and the router CSR in its node view) the network BFS runs over routers with early exit;
on any other machine a node-to-node hop matrix is used (up to :data:`MAX_MATRIX_NODES`
nodes).  Congestion refinement reads the machine's routes (:meth:`Machine.routes
<mpitaskmap.machines.Machine.routes>`, with fractions), so it works on any machine with a
link model: on a torus its dimension-order routes are computed on the fly in the kernel;
elsewhere the routes between every pair of nodes are tabled once (up to
:data:`MAX_ROUTE_ENTRIES` route entries).  Both give the same result on a torus.

* :func:`map_greedy` (UG) - greedy growth; nodes have capacities (cores per node);
  ``two_phase`` partitions the task graph into one part per node first.
* :func:`refine_wh` (UWH) - swap refinement of weighted hops, from any start mapping.
* :func:`refine_congestion` (UMC / UMMC) - swap refinement of Latency(M) or of the max
  message congestion with incremental link loads, WH as the tie-break.
* :func:`partition_graph` (built-in recursive bisection by default, METIS on request),
  :func:`spmv_task_graph` - the two-phase helpers.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from ... import _graphmap
from ..._validate import as_index_array
from ...errors import InvalidInputError, NotApplicableError
from ...machines import MAX_MATRIX_NODES, Machine, NodeView, Routes, as_machine
from ...mapping import Mapping, as_mapping
from ...graphs.taskgraph import TaskGraph
from .partition import bisection_parts

__all__ = [
    "map_greedy",
    "refine_wh",
    "refine_congestion",
    "partition_graph",
    "spmv_task_graph",
    "NodeNetwork",
    "MAX_MATRIX_NODES",
    "MAX_ROUTE_ENTRIES",
    "MAX_SOURCES",
    "CONGESTION_OBJECTIVES",
    "PARTITION_METHODS",
]

#: Default BFS sources per task of the UWH refinement (:func:`refine_wh`): the nodes of the
#: task's 16 heaviest neighbours.
MAX_SOURCES = 16

#: Objectives of :func:`refine_congestion` (metric names of :mod:`mpitaskmap.metrics`):
#: Latency(M) (UMC) and the max message count MMC (UMMC).
CONGESTION_OBJECTIVES = ("latency", "max_messages")

#: Methods of :func:`partition_graph` (and ``partitioner`` of :func:`map_greedy`).
PARTITION_METHODS = ("auto", "bisection", "metis", "greedy")

#: The partitions :func:`map_greedy`'s two-phase maps for each ``partitioner``: (method of
#: :func:`partition_graph`, its ``multilevel``); the lower WH wins, ties to the first.
_PARTITION_TRIES = {
    "auto": (("bisection", True), ("bisection", False)),
    "bisection": (("bisection", True),),
    "metis": (("metis", True),),
    "greedy": (("greedy", True),),
}

#: Largest route table of :func:`refine_congestion` off the torus: route entries (link,
#: fraction) over all n_nodes**2 ordered node pairs, i.e. n_nodes**2 x the mean entries per
#: route.  16 bytes an entry (plus 8 a node pair): at most about 1.5 GiB.  E.g. 2,048 nodes
#: with routes of 16 entries fit.
MAX_ROUTE_ENTRIES = 2**26


def _torus_geometry(machine: Machine, view: NodeView):
    """Return the torus fast path's inputs, or None when the machine has no router grid.

    Capability, not class: a machine whose routers sit on a grid
    (:attr:`~mpitaskmap.machines.Machine.has_router_grid`: ``router_coords``, ``dims``,
    ``wrap``) and whose node view has the router CSR numbers its routers and links as
    :mod:`mpitaskmap.machines.torus` does (router id by :func:`~mpitaskmap.machines.strides`,
    link ``router * 2 d + 2 k + direction``, dimension-order routes) and gets the compiled
    BFS over routers and on-the-fly routes; any other machine the hop matrix and a route
    table.

    Returns
    -------
    tuple or None
        ``(node_coords, dims, wrap)``: the router coordinate of every node's representative
        (the machine's integer type kept), int64 lengths, uint8 wrap flags.
    """
    if not machine.has_router_grid or view.router_ptr is None:
        return None
    return (np.ascontiguousarray(machine.router_coords[view.representative]),
            np.ascontiguousarray(machine.dims, dtype=np.int64), np.ascontiguousarray(machine.wrap, dtype=np.uint8))


def _node_route_table(machine: Machine, view: NodeView) -> Routes:
    """Return the routes between every ordered pair of nodes, pair ``a * n_nodes + b`` (:meth:`Machine.node_pair_routes`).

    Built once per machine and kept on it, so the refinements of one search share it.
    Raises NotApplicableError when the table would exceed :data:`MAX_ROUTE_ENTRIES`: first
    estimated from the hop matrix (a route has at least one entry per hop of a shortest
    path), then counted while routing, which stops as soon as the count passes the limit.
    O(n_nodes**2 + entries).
    """
    n = view.n_nodes

    def too_big(entries: int, what: str) -> NotApplicableError:
        return NotApplicableError(
            f"machine: congestion refinement tables the routes of all {n} x {n} node pairs; {what} {entries} "
            f"route entries > MAX_ROUTE_ENTRIES = {MAX_ROUTE_ENTRIES} (mpitaskmap.mappers.graph.greedy)"
        )

    estimate = int(view.hop_matrix().sum(dtype=np.int64))
    if estimate > MAX_ROUTE_ENTRIES:
        raise too_big(estimate, "at least")
    table = machine.node_pair_routes(MAX_ROUTE_ENTRIES)
    if table.routes is None:
        raise too_big(table.entries, "they have" if table.complete else "they have at least")
    return table.routes


class NodeNetwork:
    """The compiled network object of the graph kernels, built from the machine's node view.

    The view of the machine (:meth:`~mpitaskmap.machines.Machine.node_view`: capacities,
    processors per node, router CSR on a torus, node hop matrix elsewhere) lives in the
    machine layer; this class hands it to ``_graphmap.make_net`` (torus BFS over routers
    on a machine with torus geometry, the hop matrix on any other machine; routes on the
    fly on a torus, else a route table when asked) and places the tasks of every node on
    that node's processors.

    Parameters
    ----------
    machine : Machine
        The processors.
    routes : bool, optional
        Give the kernel the machine's routes (:func:`refine_congestion`).  Free on a torus;
        elsewhere the route table of every node pair is built (:data:`MAX_ROUTE_ENTRIES`).
    _route_table : bool, optional
        Private switch for tests and benchmarks: table the routes even on a torus (the
        distances and BFS stay the torus's), to compare the two route modes.

    Attributes
    ----------
    view : NodeView
        The machine node by node.
    nodes, capacity, proc_ptr, procs
        The view's arrays (see :class:`~mpitaskmap.machines.NodeView`).
    net : object
        The compiled network object.
    routing : {"torus", "table"} or None
        Where the kernel's routes come from; None: no routes (hops only).

    Raises
    ------
    InvalidInputError
        With ``routes`` on a machine without a link model.
    NotApplicableError
        For a machine without torus geometry and more than :data:`MAX_MATRIX_NODES`
        nodes, or with ``routes`` a route table over :data:`MAX_ROUTE_ENTRIES`.
    """

    def __init__(self, machine: Machine, *, routes: bool = False, _route_table: bool = False) -> None:
        self.machine = machine
        view = machine.node_view()
        self.view = view
        self.nodes, self.capacity, self.procs, self.proc_ptr = view.nodes, view.capacity, view.procs, view.proc_ptr
        if routes and not machine.has_link_model:
            raise InvalidInputError(
                f"machine: congestion refinement needs routed links; {machine.name!r} has no link model"
            )
        geometry = _torus_geometry(machine, view)
        table: tuple = ()
        if routes and (geometry is None or _route_table):
            table = tuple(_node_route_table(machine, view))
        self.routing = "table" if table else "torus" if geometry is not None else None
        if geometry is not None:
            coords, dims, wrap = geometry
            self.net = _graphmap.make_net(
                coords.astype(np.int64), dims, wrap, view.router_ptr, view.router_nodes, view.node_router,
                np.zeros((0, 0), dtype=np.int32), *table,
            )
        else:
            n = view.n_nodes
            self.net = _graphmap.make_net(
                np.zeros((n, 1), dtype=np.int64), np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.uint8),
                np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(n, dtype=np.int64),
                view.hop_matrix(), *table,
            )

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return self.view.n_nodes

    def task_nodes(self, task_to_proc: np.ndarray) -> np.ndarray:
        """Return the node index of every task of a processor mapping, (n_tasks,) int64."""
        return self.view.node_of_proc[task_to_proc]

    def task_procs(self, task_node: np.ndarray) -> np.ndarray:
        """Give the tasks of every node that node's processors, in task order."""
        order = np.argsort(task_node, kind="stable")
        counts = np.bincount(task_node, minlength=self.n_nodes)
        if (counts > self.capacity).any():
            v = int(np.flatnonzero(counts > self.capacity)[0])
            raise InvalidInputError(f"task_node: node {v} holds {int(counts[v])} tasks > capacity {int(self.capacity[v])}")
        rank_in_node = np.arange(task_node.size) - np.repeat(np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        out = np.empty(task_node.size, dtype=np.intp)
        out[order] = self.procs[self.proc_ptr[task_node[order]] + rank_in_node]
        return out


def _undirected(graph: TaskGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR of W(t,u) = w(t,u) + w(u,t), self-loops removed, as int64/float64 arrays."""
    src, dst, w = graph.sources(), graph.indices, graph.weights
    keep = src != dst
    g = TaskGraph.from_edges(
        np.concatenate([src[keep], dst[keep]]), np.concatenate([dst[keep], src[keep]]),
        np.concatenate([w[keep], w[keep]]), n_tasks=graph.n_tasks,
    )
    return g.indptr.astype(np.int64), g.indices.astype(np.int64), g.weights


def _check_max_sources(max_sources) -> int:
    if isinstance(max_sources, bool) or not isinstance(max_sources, (int, np.integer)) or max_sources < 0:
        raise InvalidInputError(f"max_sources: expected an integer >= 0 (0 = every neighbour); got {max_sources!r}")
    return int(max_sources)


def _check_inputs(graph: TaskGraph, machine: Machine) -> None:
    if not isinstance(graph, TaskGraph):
        raise InvalidInputError(f"graph: expected a TaskGraph; got {type(graph).__name__}")
    as_machine(machine, "machine")
    if graph.n_tasks > machine.n_procs:
        raise InvalidInputError(
            f"graph: {graph.n_tasks} tasks do not fit on {machine.n_procs} processors "
            "(graph mappers place at most one task per core)"
        )


def _greedy_nodes(tptr, tadj, tw, capacity, net, n_bfs_values) -> np.ndarray:
    best = None
    for n_bfs in n_bfs_values:
        task_node = np.empty(tptr.size - 1, dtype=np.int64)
        placed = _graphmap.greedy_map(tptr, tadj, tw, capacity, net, int(n_bfs), 0, task_node)
        if placed != task_node.size:
            raise InvalidInputError(f"machine: only {placed} of {task_node.size} tasks found free capacity")
        wh = _node_wh(tptr, tadj, tw, task_node, net)
        if best is None or wh < best[0]:
            best = (wh, task_node, n_bfs)
    return best[1]


def _node_wh(tptr, tadj, tw, task_node, net) -> float:
    return float(_graphmap.node_assignment_wh(tptr, tadj, tw, net, np.ascontiguousarray(task_node, dtype=np.int64)))


def map_greedy(
    graph: TaskGraph,
    machine: Machine,
    *,
    n_bfs: Sequence[int] = (0, 1),
    two_phase: bool | str = "auto",
    partitioner: str = "auto",
    refine: bool = False,
    delta: int = 8,
    max_sources: int = MAX_SOURCES,
    progress=None,
) -> Mapping:
    """Map a task graph by greedy growth (UG), optionally followed by WH refinement.

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph (coordinates not needed).
    machine : Machine
        The processors; cores of one node share it (node capacity = cores).
    n_bfs : sequence of int, optional
        Numbers of far-apart seeds to try (default 0 and 1); the lower WH wins.
    two_phase : bool or "auto", optional
        Partition the task graph into one part per node first (part sizes = the node's
        share of the tasks) and map the parts' quotient graph (default: when there are
        more tasks than nodes).
    partitioner : {"auto", "bisection", "metis", "greedy"}, optional
        For two-phase, how the tasks are cut into the nodes' parts (the methods of
        :func:`partition_graph`).  "auto" (default): recursive bisection twice, with and
        without its multilevel try; each partition's quotient is mapped by the greedy
        growth and the lower WH wins (ties: the multilevel one) -- the same mapping on
        every installation.  "bisection": the multilevel one only; "metis": METIS via
        pymetis (optional extra ``graph``); "greedy": greedy graph growing.
    refine : bool, optional
        Run :func:`refine_wh` on the result (default False).
    delta : int, optional
        Candidate nodes per task for the refinement.
    max_sources : int, optional
        BFS sources per task for the refinement (see :func:`refine_wh`).
    progress : callable, optional
        ``progress(done, total)`` after each refinement pass.

    Returns
    -------
    Mapping
        ``info`` holds the phases' seconds, ``two_phase`` and, for two-phase, the
        partitioner used (``partitioner``; ``partition_multilevel`` for "bisection").

    Raises
    ------
    InvalidInputError
        If the tasks do not fit on the processors, or on an unknown partitioner.

    Notes
    -----
    Greedy: start with the task of largest volume; seeds far apart by BFS in the task
    graph; then repeatedly the task with most volume to mapped tasks, placed at the first
    network BFS level (from its mapped neighbours' nodes) that has free capacity, on the
    node there with the least added WH (ties: lowest node).  Deterministic.

    Two-phase with the default partitioner: the two recursive bisections often cut alike
    (both find the 576 cut edges of 2x2x2 blocks on the 8x8x8 stencil in 64 parts) but
    number and place their parts differently, which the greedy growth maps differently:
    WH 3,276,800 without the multilevel try and 3,932,160 with it on the README's SimGrid
    walkthrough input, 15,536 and 17,152 for the 16^3 stencil on ``titan_machine(256, 16)``,
    but 127,002 and 68,288 (after UWH) on the rgg input of ``benchmarks/graph_mappers.py``;
    neither is best everywhere, so both are mapped.  Before, "auto" was METIS when
    installed and greedy graph growing otherwise, so the mapping depended on the
    installation (WH 3,973,120 with METIS, 5,022,720 after UWH without, on the walkthrough).

    Examples
    --------
    >>> from mpitaskmap import torus_machine
    >>> g = TaskGraph.stencil([6])
    >>> map_greedy(g, torus_machine([6], wrap=False), refine=True).metric("average_hops")
    1.0
    """
    _check_inputs(graph, machine)
    max_sources = _check_max_sources(max_sources)
    _check_partition_method(partitioner, "partitioner")
    t0 = time.perf_counter()
    nn = NodeNetwork(machine)
    tptr, tadj, tw = _undirected(graph)
    use_two_phase = graph.n_tasks > nn.n_nodes if two_phase == "auto" else bool(two_phase)
    info: dict = {"two_phase": use_two_phase}
    if use_two_phase:
        sizes = _node_shares(graph.n_tasks, nn.capacity)
        info["partition_seconds"] = 0.0
        best = None
        for method, multilevel in _PARTITION_TRIES[partitioner]:
            t1 = time.perf_counter()
            parts, used = _partition(tptr, tadj, tw, sizes, method, multilevel, what="partitioner")
            info["partition_seconds"] += time.perf_counter() - t1
            q = _quotient(tptr, tadj, tw, parts, sizes.size)
            part_node = _greedy_nodes(*q, np.ones(nn.n_nodes, dtype=np.int64), nn.net, n_bfs)
            task_node = _fit_parts(part_node, sizes, nn)[parts]
            wh = _node_wh(tptr, tadj, tw, task_node, nn.net)
            if best is None or wh < best[0]:
                best = (wh, task_node, used, multilevel)
        _, task_node, info["partitioner"], multilevel = best
        if info["partitioner"] == "bisection":
            info["partition_multilevel"] = multilevel
    else:
        task_node = _greedy_nodes(tptr, tadj, tw, nn.capacity, nn.net, n_bfs)
    info["greedy_seconds"] = time.perf_counter() - t0
    if refine:
        moves, passes = _refine_passes(tptr, tadj, tw, nn.capacity, nn.net, delta, 20, task_node, progress,
                                       max_sources=max_sources)
        info.update(refine_moves=moves, refine_passes=passes)
    info["seconds"] = time.perf_counter() - t0
    method = "greedy+uwh" if refine else "greedy"
    return Mapping(nn.task_procs(task_node), machine, graph, method=method, info=info)


def _refine_passes(tptr, tadj, tw, capacity, net, delta: int, max_passes: int, task_node, progress, *,
                   max_sources: int = 0) -> tuple:
    """Run the UWH kernel one pass at a time (identical to one call with ``max_passes``).

    A pass depends only on ``task_node``: the kernel keeps every node's tasks in ascending
    id order after each move or swap, exactly as a fresh start builds them, so stopping
    after a pass and calling again is the same computation (a test checks it).  It lets
    ``progress(done, total)`` report passes.
    """
    moves, passes = 0, 0
    while passes < max_passes:
        m, _, gain = _graphmap.refine_wh(tptr, tadj, tw, capacity, net, int(delta), 1, task_node, int(max_sources))
        moves += int(m)
        passes += 1
        if progress is not None:
            progress(passes if gain > 1e-9 else max_passes, max_passes)
        if gain <= 1e-9:
            break
    return moves, passes


def _node_shares(n_tasks: int, capacity: np.ndarray) -> np.ndarray:
    """Tasks per node: proportional to capacity, largest remainders first (ties: lower node)."""
    total = int(capacity.sum())
    exact = capacity * n_tasks / total
    base = np.floor(exact).astype(np.int64)
    rest = n_tasks - int(base.sum())
    order = np.lexsort((np.arange(capacity.size), -(exact - base)))
    base[order[:rest]] += 1
    return base


def _fit_parts(part_node: np.ndarray, sizes: np.ndarray, nn: "NodeNetwork") -> np.ndarray:
    """Keep each part on its greedy node when it fits; move the others to the nearest free
    node that can hold them (largest parts first; ties: lowest node).

    Keeping every fitting part first can leave a large displaced part without a free node
    big enough (a small part kept on a big node); then every part is placed largest first,
    keeping its greedy node only when still free, which always succeeds because the sizes
    are the nodes' shares (the k-th largest part fits the k-th largest node).
    """
    cap = nn.capacity
    if (sizes <= cap[part_node]).all():
        return part_node
    order = np.lexsort((np.arange(part_node.size), -sizes))
    out = _place_parts(part_node, sizes, nn, order, keep_first=True)
    return out if out is not None else _place_parts(part_node, sizes, nn, order, keep_first=False)


def _place_parts(part_node, sizes, nn: "NodeNetwork", order, *, keep_first: bool):
    """One placement of :func:`_fit_parts`; None when a part finds no free node that fits."""
    cap, rep = nn.capacity, nn.view.representative
    out = np.full(part_node.size, -1, dtype=np.int64)
    taken = np.zeros(cap.size, dtype=bool)
    if keep_first:
        for p in order:
            v = part_node[p]
            if not taken[v] and sizes[p] <= cap[v]:
                out[p], taken[v] = v, True
    for p in order:
        if out[p] >= 0:
            continue
        v = part_node[p]
        if not keep_first and not taken[v] and sizes[p] <= cap[v]:
            out[p], taken[v] = v, True
            continue
        ok = np.flatnonzero(~taken & (cap >= sizes[p]))
        if ok.size == 0:
            return None
        d = nn.machine.hops(np.full(ok.size, rep[v]), rep[ok])
        v = int(ok[np.lexsort((ok, d))[0]])
        out[p], taken[v] = v, True
    return out


def _quotient_graph(tptr, tadj, tw, parts, n_parts) -> TaskGraph:
    """The words between different parts: edges of one (part, part) pair summed, within a part dropped."""
    src = np.repeat(np.arange(tptr.size - 1), np.diff(tptr))
    ps, pd = parts[src], parts[tadj]
    keep = ps != pd
    return TaskGraph.from_edges(ps[keep], pd[keep], tw[keep], n_tasks=n_parts)


def _quotient(tptr, tadj, tw, parts, n_parts):
    q = _quotient_graph(tptr, tadj, tw, parts, n_parts)
    return q.indptr.astype(np.int64), q.indices.astype(np.int64), q.weights


def partition_graph(graph: TaskGraph, sizes, *, method: str = "auto", multilevel: bool = True,
                    return_method: bool = False):
    """Partition the tasks into parts of exactly the given sizes.

    Parameters
    ----------
    graph : TaskGraph
        Task graph (edge weights = communication volume; directions are summed).
    sizes : (n_parts,) array_like of int
        Tasks wanted in each part; must sum to ``graph.n_tasks``.
    method : {"auto", "bisection", "metis", "greedy"}, optional
        "bisection": recursive bisection by the dual recursive bisection's kernel, no
        optional dependency (:func:`~mpitaskmap.mappers.graph.partition.bisection_parts`);
        "metis": pymetis (optional extra ``graph``), then balance fixed exactly by moving
        the boundary tasks with the best connectivity gain; "greedy": greedy graph
        growing, part by part, each grown from the lowest unassigned task by maximum
        connectivity (ties: lowest task), exactly balanced by construction (fast, but on
        grids it grows rows and slabs: 827 cut edges on the 8x8x8 stencil in 64 parts where
        the others find the 576 of 2x2x2 blocks); "auto" (default): "bisection", so the
        parts do not depend on what is installed.
    multilevel : bool, optional
        "bisection" only: every cut of at least
        :data:`~mpitaskmap.mappers.graph.partition.MULTILEVEL_MIN_TASKS` tasks also tries
        the multilevel bisection (default True).
    return_method : bool, optional
        Also return the method actually used ("bisection", "metis" or "greedy").

    Returns
    -------
    parts : (n_tasks,) ndarray of int64
        Part of every task.

    Raises
    ------
    InvalidInputError
        If the sizes do not sum to the task count, on an unknown method, or "metis" is
        asked without pymetis.

    Examples
    --------
    >>> g = TaskGraph.stencil([4, 4])  # 2x2 blocks cut 8 edges, strips of 4 cut 12
    >>> partition_graph(g, [4, 4, 4, 4]).reshape(4, 4).tolist()
    [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]
    >>> partition_graph(g, [4, 4, 4, 4], method="greedy").reshape(4, 4).tolist()
    [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.ndim != 1 or (sizes < 0).any() or int(sizes.sum()) != graph.n_tasks:
        raise InvalidInputError(
            f"sizes: must be non-negative and sum to the task count {graph.n_tasks}; got sum {int(sizes.sum())}"
        )
    _check_partition_method(method, "method")
    parts, used = _partition(*_undirected(graph), sizes, method, multilevel, what="method")
    return (parts, used) if return_method else parts


def _check_partition_method(method, what: str) -> None:
    if method not in PARTITION_METHODS:
        raise InvalidInputError(f"{what}: unknown {method!r}; valid: {list(PARTITION_METHODS)}")


def _partition(tptr, tadj, tw, sizes, method: str, multilevel: bool, *, what: str) -> tuple[np.ndarray, str]:
    """:func:`partition_graph` on the undirected CSR (inputs checked); returns (parts, method used).

    ``what`` names the caller's option in the error when "metis" is asked without pymetis.
    """
    if method == "metis":
        try:
            import pymetis  # noqa: F401
        except ImportError:
            raise InvalidInputError(f"{what}: 'metis' needs pymetis (pip install 'mpitaskmap[graph]')") from None
        return _metis_parts(tptr, tadj, tw, sizes), "metis"
    if method == "greedy":
        parts = np.empty(tptr.size - 1, dtype=np.int64)
        _graphmap.grow_parts(tptr, tadj, tw, sizes, parts)
        return parts, "greedy"
    return bisection_parts(tptr, tadj, tw, sizes, multilevel=bool(multilevel)), "bisection"


def _metis_parts(tptr, tadj, tw, sizes) -> np.ndarray:
    import pymetis

    k = sizes.size
    if k == 1:
        return np.zeros(tptr.size - 1, dtype=np.int64)
    w = np.maximum(1, np.round(tw / max(tw.max(), 1e-300) * 1000)).astype(np.int64) if tw.size else tw
    opts = pymetis.Options(seed=0)
    tpwgts = (sizes / sizes.sum()).tolist()
    if hasattr(pymetis, "CSRAdjacency"):  # pymetis >= 2025.2
        adjacency = pymetis.CSRAdjacency(tptr.tolist(), tadj.tolist())
        _, membership = pymetis.part_graph(int(k), adjacency, eweights=w.tolist(), tpwgts=tpwgts, options=opts)
    else:
        _, membership = pymetis.part_graph(
            int(k), xadj=tptr.tolist(), adjncy=tadj.tolist(), eweights=w.tolist(), tpwgts=tpwgts, options=opts
        )
    parts = np.asarray(membership, dtype=np.int64)
    _fix_balance(tptr, tadj, tw, sizes, parts)
    return parts


def _fix_balance(tptr, tadj, tw, sizes, parts) -> None:
    """Move tasks out of over-full parts until every part has exactly its size.

    For each over-full part (ascending), its tasks with the best gain (volume to an
    under-full neighbouring part minus volume kept inside) move there; a task with no
    under-full neighbour part goes to the lowest under-full part.
    """
    src = np.repeat(np.arange(tptr.size - 1), np.diff(tptr))
    count = np.bincount(parts, minlength=sizes.size)
    for p in np.flatnonzero(count > sizes):
        excess = int(count[p] - sizes[p])
        members = np.flatnonzero(parts == p)
        moves = []
        for t in members:
            nb = tadj[tptr[t]:tptr[t + 1]]
            w = tw[tptr[t]:tptr[t + 1]]
            inside = float(w[parts[nb] == p].sum())
            room = count[parts[nb]] < sizes[parts[nb]]
            if room.any():
                vol = np.bincount(parts[nb][room], weights=w[room], minlength=sizes.size)
                q = int(np.argmax(vol))
                moves.append((-(vol[q] - inside), int(t), q))
            else:
                moves.append((inside, int(t), -1))
        moves.sort()
        for _, t, q in moves:
            if excess == 0:
                break
            if q < 0 or count[q] >= sizes[q]:
                under = np.flatnonzero(count < sizes)
                q = int(under[0])
            parts[t] = q
            count[p] -= 1
            count[q] += 1
            excess -= 1


def refine_wh(mapping: Mapping, *, delta: int = 8, max_passes: int = 20, max_sources: int = MAX_SOURCES,
              progress=None) -> Mapping:
    """Improve a mapping's weighted hops by moves and swaps (UWH).

    Parameters
    ----------
    mapping : Mapping
        Start mapping (any method), with its task graph.
    delta : int, optional
        Candidate nodes per task: the first ``delta`` nodes reached by BFS in the network
        from the nodes of the task's neighbours (default 8).
    max_passes : int, optional
        Passes over the heap of tasks ordered by the WH they incur (default 20); stops
        earlier when a pass gains nothing.
    max_sources : int, optional
        The BFS that finds a task's candidate nodes starts from the nodes of its
        ``max_sources`` heaviest neighbours only (ties: lower task; default
        :data:`MAX_SOURCES`); 0 = from every neighbour's node.  Tasks with at most that
        many neighbours are unaffected.  A task with more (a dense task) also tries as
        swap partners only the 2 tasks of each candidate node that incur the largest WH,
        and updates its neighbours' WH incrementally.  On dense graphs (hundreds of
        neighbours per task) this keeps the candidates near the heavy traffic and the work
        per task O(delta * deg) instead of O(delta * cores * deg).
    progress : callable, optional
        ``progress(done, total)`` after each pass (``done == total`` at the end).

    Returns
    -------
    Mapping
        Never a higher WH than the start mapping.

    Raises
    ------
    InvalidInputError
        If the mapping has no task graph.
    """
    graph = _graph_of(mapping)
    t0 = time.perf_counter()
    nn = NodeNetwork(mapping.machine)
    tptr, tadj, tw = _undirected(graph)
    task_node = nn.task_nodes(mapping.task_to_proc)
    moves, passes = _refine_passes(tptr, tadj, tw, nn.capacity, nn.net, delta, int(max_passes), task_node, progress,
                                   max_sources=_check_max_sources(max_sources))
    info = dict(mapping.info, refine_moves=moves, refine_passes=passes,
                refine_seconds=time.perf_counter() - t0)
    return Mapping(nn.task_procs(task_node), mapping.machine, graph, method=f"{mapping.method}+uwh", info=info)


def _graph_of(mapping: Mapping) -> TaskGraph:
    as_mapping(mapping)
    if mapping.graph is None:
        raise InvalidInputError("mapping: has no task graph; build it with the graph")
    _check_inputs(mapping.graph, mapping.machine)  # the kernels hold one task per core at most
    return mapping.graph


def _incoming(graph: TaskGraph):
    order = np.argsort(graph.indices, kind="stable")
    iptr = np.zeros(graph.n_tasks + 1, dtype=np.int64)
    np.cumsum(np.bincount(graph.indices, minlength=graph.n_tasks), out=iptr[1:])
    return iptr, graph.sources()[order].astype(np.int64), graph.weights[order]


def refine_congestion(
    mapping: Mapping,
    *,
    objective: str = "latency",
    delta: int = 8,
    max_candidates: int = 16,
    max_iter: int = 2000,
    progress=None,
) -> Mapping:
    """Lower the most loaded link by swaps (UMC for Latency(M), UMMC for the max message count).

    Parameters
    ----------
    mapping : Mapping
        Start mapping, with its task graph, on a machine with a link model
        (:attr:`~mpitaskmap.machines.Machine.has_link_model`).
    objective : {"latency", "max_messages"}, optional
        Latency(M) = max Data(e)/bw(e) (UMC, default) or the max message count (UMMC).
    delta : int, optional
        Candidate nodes per task (BFS from its neighbours' nodes and its own).
    max_candidates : int, optional
        Tasks tried per iteration: those with most volume across the hottest link.
    max_iter : int, optional
        Iterations (one accepted swap each) at most.
    progress : callable, optional
        ``progress(done, total)`` as iterations complete (``done == total`` at the end).

    Returns
    -------
    Mapping
        Its max objective is never higher than the start's.

    Raises
    ------
    InvalidInputError
        On a machine without a link model or an unknown objective.
    NotApplicableError
        Off the torus, when the route table of all node pairs would exceed
        :data:`MAX_ROUTE_ENTRIES` entries (or the node hop matrix :data:`MAX_MATRIX_NODES`
        nodes).

    Notes
    -----
    Each iteration finds the hottest link, the tasks whose messages cross it, and for
    each (heaviest first) the swap or move to a nearby node that lowers that link without
    any touched link reaching the old maximum, choosing the smallest WH increase.  Link
    loads are updated incrementally (only the moved tasks' routes), never recomputed.  A
    message of ``w`` words adds ``w`` times a link's route fraction to its Data(e) and 1 to
    its Congestion(e), as :meth:`Machine.link_loads <mpitaskmap.machines.Machine.link_loads>`
    counts them.  On a torus the routes are computed on the fly; on any other machine the
    routes between all node pairs are tabled first, O(n_nodes**2 + route entries) time and
    memory.

    Examples
    --------
    >>> from mpitaskmap import torus_machine
    >>> from mpitaskmap.mapping import identity_mapping
    >>> g = TaskGraph.from_edges([0, 2], [1, 3], n_tasks=4)  # 0 -> 1 and 2 -> 3 share link 1 -> 2
    >>> m = torus_machine([4], wrap=False)
    >>> start = Mapping([0, 2, 1, 3], m, g)
    >>> start.metric("max_messages"), refine_congestion(start, objective="max_messages").metric("max_messages")
    (2, 1)
    """
    graph = _graph_of(mapping)
    if objective not in CONGESTION_OBJECTIVES:
        raise InvalidInputError(f"objective: unknown {objective!r}; valid: {list(CONGESTION_OBJECTIVES)}")
    t0 = time.perf_counter()
    machine = mapping.machine
    nn = NodeNetwork(machine, routes=True)
    task_node = nn.task_nodes(mapping.task_to_proc)
    it, swaps, _, _ = _congestion_passes(nn, graph, task_node, objective, int(delta), int(max_candidates),
                                         int(max_iter), progress)
    info = dict(mapping.info, congestion_iterations=int(it), congestion_swaps=int(swaps),
                congestion_seconds=time.perf_counter() - t0)
    tag = "umc" if objective == "latency" else "ummc"
    return Mapping(nn.task_procs(task_node), machine, graph, method=f"{mapping.method}+{tag}", info=info)


def _congestion_passes(nn: NodeNetwork, graph: TaskGraph, task_node: np.ndarray, objective: str, delta: int,
                       max_candidates: int, max_iter: int, progress) -> tuple:
    """Run the UMC/UMMC kernel on ``task_node`` in place; return (iterations, swaps, data, msgs).

    ``data``/``msgs`` are the kernel's incrementally kept Data(e) and Congestion(e) at the
    end (tests compare them with a recount).  Iterations run in chunks to report progress:
    each depends only on ``task_node`` and the loads, so this is the same computation as
    one call.
    """
    machine = nn.machine
    tptr, tadj, tw = _undirected(graph)
    mptr, madj, mw = graph.indptr.astype(np.int64), graph.indices.astype(np.int64), graph.weights
    iptr, iadj, iw = _incoming(graph)
    data = np.zeros(machine.n_links)
    msgs = np.zeros(machine.n_links, dtype=np.int64)
    _graphmap.link_loads_nodes(mptr, madj, mw, task_node, nn.net, data, msgs)
    bw = machine.link_bandwidths()
    it = swaps = 0
    chunk = max(1, max_iter // 50)
    while it < max_iter:
        done_it, done_swaps = _graphmap.refine_congestion(
            mptr, madj, mw, iptr, iadj, iw, tptr, tadj, tw, nn.capacity, nn.net, bw,
            0 if objective == "latency" else 1, delta, max_candidates, min(chunk, max_iter - it), task_node, data, msgs,
        )
        it += int(done_it)
        swaps += int(done_swaps)
        stopped = done_swaps < done_it
        if progress is not None:
            progress(max_iter if stopped else it, max_iter)
        if stopped:
            break
    return it, swaps, data, msgs


def spmv_task_graph(matrix, row_parts) -> TaskGraph:
    """Task graph of a sparse matrix-vector product under a row-wise 1-D partition.

    Rows ``i`` and vector entries ``x_i`` / ``y_i`` live on part ``row_parts[i]``.  Part
    ``q`` needs ``x_j`` for every column ``j`` with a nonzero in its rows; if ``j`` lives on
    part ``p != q``, ``p`` sends it to ``q``.  The volume ``p -> q`` is the number of
    distinct such columns (the column-net model).

    Parameters
    ----------
    matrix : scipy.sparse matrix or (indptr, indices, n) tuple
        Square sparse matrix (values are ignored).
    row_parts : (n,) array_like of int
        Part of every row; parts are numbered ``0 .. n_parts-1``.

    Returns
    -------
    TaskGraph
        One task per part, weights = words sent.

    Examples
    --------
    >>> g = spmv_task_graph(([0, 2, 4, 6], [0, 1, 1, 2, 0, 2], 3), [0, 0, 1])
    >>> sorted(zip(g.sources().tolist(), g.indices.tolist(), g.weights.tolist()))
    [(0, 1, 1.0), (1, 0, 1.0)]
    """
    if hasattr(matrix, "tocsr"):
        m = matrix.tocsr()
        if m.shape[0] != m.shape[1]:
            raise InvalidInputError(f"matrix: expected a square matrix; got shape {m.shape}")
        indptr, indices, n = m.indptr, m.indices, m.shape[0]
    else:
        indptr, indices, n = matrix
        indptr, indices = np.asarray(indptr), np.asarray(indices)
    parts = as_index_array(row_parts, "row_parts", upper=np.iinfo(np.intp).max, length=int(n))
    n_parts = int(parts.max()) + 1
    rows = np.repeat(np.arange(int(n)), np.diff(indptr))
    cols = as_index_array(indices, "indices", upper=int(n))
    q, p = parts[rows], parts[cols]
    keep = p != q
    key = np.unique((p[keep].astype(np.int64) * n_parts + q[keep]) * int(n) + cols[keep])
    pq = key // int(n)
    pairs, counts = np.unique(pq, return_counts=True)
    return TaskGraph.from_edges(pairs // n_parts, pairs % n_parts, counts.astype(float), n_tasks=n_parts)
