"""Greedy graph mapping (UG): greedy growth, two-phase through a partition of the task graph.

ALGORITHMS.md section 3 (Deveci, Kaya, Ucar, Catalyurek, UMPa).  These mappers need only the
task communication graph, not task coordinates, and work on any machine whose hop
distance is known (:mod:`~.node_network`).  UMPa's refinements (UWH, UMC / UMMC) are
:mod:`~.umpa`.

* :func:`map_greedy` (UG) - greedy growth; nodes have capacities (cores per node);
  ``two_phase`` partitions the task graph into one part per node first; ``refine=True``
  adds UWH (:func:`~mpitaskmap.mappers.graph.umpa.refine_wh`).
* :func:`partition_graph` (built-in recursive bisection by default, METIS on request),
  :func:`spmv_task_graph` - the two-phase helpers.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from ... import _graphmap
from ..._validate import as_index_array
from ...errors import InvalidInputError
from ...machines import Machine
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph
from .node_network import NodeNetwork, _check_inputs, _undirected
from .partition import bisection_parts
from .umpa import MAX_SOURCES, _check_max_sources, _refine_passes

__all__ = ["map_greedy", "partition_graph", "spmv_task_graph", "PARTITION_METHODS"]

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
        Run :func:`~mpitaskmap.mappers.graph.umpa.refine_wh` on the result (default False).
    delta : int, optional
        Candidate nodes per task for the refinement.
    max_sources : int, optional
        BFS sources per task for the refinement (see :func:`~mpitaskmap.mappers.graph.umpa.refine_wh`).
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
