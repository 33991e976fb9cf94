"""UMPa's refinement: weighted hops (UWH) and link congestion (UMC / UMMC) by swaps.

Deveci, Kaya, Uçar, Çatalyürek, "Fast and high quality topology-aware task mapping"
(UMPa; ALGORITHMS.md section 3).  Both refinements start from any mapping with its task
graph - the paper's start is greedy growth (:func:`~mpitaskmap.mappers.graph.greedy.map_greedy`,
UG) - and move or swap tasks between nearby nodes, the candidates found by BFS in the
network from the nodes of a task's neighbours (:mod:`~.node_network`):

* :func:`refine_wh` (UWH) - lowers the weighted hops;
* :func:`refine_congestion` (UMC / UMMC) - lowers the most loaded link, Latency(M) or the
  max message count, with incremental link loads and WH as the tie-break.

The swap loops are the compiled kernels ``_graphmap.refine_wh`` and
``_graphmap.refine_congestion``.
"""

from __future__ import annotations

import time

import numpy as np

from ... import _graphmap
from ...errors import InvalidInputError
from ...mapping import Mapping, as_mapping
from ...graphs.taskgraph import TaskGraph
from .node_network import NodeNetwork, _check_inputs, _undirected

__all__ = ["refine_wh", "refine_congestion", "MAX_SOURCES", "CONGESTION_OBJECTIVES"]

#: Default BFS sources per task of the UWH refinement (:func:`refine_wh`): the nodes of the
#: task's 16 heaviest neighbours.
MAX_SOURCES = 16

#: Objectives of :func:`refine_congestion` (metric names of :mod:`mpitaskmap.metrics`):
#: Latency(M) (UMC) and the max message count MMC (UMMC).
CONGESTION_OBJECTIVES = ("latency", "max_messages")


def _check_max_sources(max_sources) -> int:
    if isinstance(max_sources, bool) or not isinstance(max_sources, (int, np.integer)) or max_sources < 0:
        raise InvalidInputError(f"max_sources: expected an integer >= 0 (0 = every neighbour); got {max_sources!r}")
    return int(max_sources)


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
        :data:`~mpitaskmap.mappers.graph.node_network.MAX_ROUTE_ENTRIES` entries (or the node
        hop matrix :data:`~mpitaskmap.machines.MAX_MATRIX_NODES` nodes).

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
