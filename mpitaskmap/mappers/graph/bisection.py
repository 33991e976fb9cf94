"""Dual recursive bisection of tasks and processors, then weighted-hop refinement.

The processors are cut in two again and again, geometrically (:func:`processor_tree`):
on a torus along the longest extent of the domain's routers (the wrap-around gap taken
into account), elsewhere between the two ends of a far pair of nodes.  The tasks follow
the same tree (:func:`map_bisection`): every job - the tasks of one processor domain - is
split between the domain's two halves by a min-cost bisection of its subgraph, where a
cut edge costs the distance between the halves and an edge to a task already placed in
another domain pulls towards the nearer half (Pellegrini's dual recursive bipartitioning,
as in Scotch's static mapping).  Jobs run breadth first, so the pulls come from domains
of the same depth.  Leaves are nodes; their tasks go on the node's processors.  Then UWH
(:func:`~mpitaskmap.mappers.graph.umpa.refine_wh`'s kernel) polishes the result.

The bisection of a job (``_graphmap.bisect_tasks``) is greedy graph growing from three
seeds (the task pulled hardest to the first half, and both ends of a BFS sweep), each
followed by Fiduccia-Mattheyses passes with a small balance window, plus on large jobs a
multilevel try (heavy-edge matching coarsening, growth on the coarsest graph, FM at each
level on the way back) and optionally a METIS start; the lowest cost wins.
Deterministic: fixed seeds, ties by lower index, no optional dependency by default.
"""

from __future__ import annotations

import time
from collections import deque

import numpy as np

from ... import _graphmap
from ...errors import InvalidInputError
from ...machines import Machine
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph
from .node_network import NodeNetwork, _check_inputs, _torus_geometry, _undirected
from .umpa import MAX_SOURCES, _check_max_sources, _refine_passes
from ...machines.views import DomainTree, split_half
from .partition import MULTILEVEL_MIN_TASKS

__all__ = ["map_bisection", "processor_tree", "PARTITIONERS", "MULTILEVEL_MIN_TASKS"]


def processor_tree(machine: Machine) -> DomainTree:
    """Bisect the machine's nodes recursively (see the module docstring).

    Parameters
    ----------
    machine : Machine
        The processors; on a machine with torus geometry (router coordinates, ``dims``,
        ``wrap`` and the router CSR in its node view) the router coordinates are used, on
        any other machine the node hop matrix.

    Returns
    -------
    DomainTree
        2 * n_nodes - 1 domains; halves hold about half the capacity each.

    Notes
    -----
    On a machine with a hierarchy of switches (:meth:`Machine.node_hierarchy
    <mpitaskmap.machines.Machine.node_hierarchy>`, a fat tree) the tree follows it
    (:meth:`~mpitaskmap.machines.views.NodeHierarchy.domain_tree`: the children of a switch
    halved by capacity, as Scotch's ``tleaf`` target bipartitions), the representative being
    the domain's lowest node; O(n_nodes log n_nodes).
    On a torus (compiled kernel ``_graphmap.torus_tree``): per domain, the extent of its
    routers in every dimension (on a wrapping dimension the span that leaves out the
    largest gap between occupied coordinates), the nodes ordered along the longest extent
    (ties: lowest dimension; then the other dimensions, then node index), cut where the
    prefix holds closest to half the capacity (ties: fewer nodes); the representative is
    the node nearest the span's centre.  O(n_nodes log^2 n_nodes).  Elsewhere: the nodes
    ordered by d(a, v) - d(b, v) for a far pair (a, b) found by two sweeps from the first
    node, the representative is the medoid; O(n_nodes^2 log n_nodes).

    Examples
    --------
    >>> from mpitaskmap import torus_machine
    >>> t = processor_tree(torus_machine([4], wrap=False))
    >>> t.children[0].tolist(), t.capacity[:3].tolist()
    ([1, 2], [4, 2, 2])
    """
    view = machine.node_view()
    n = view.n_nodes
    cap = np.asarray(view.capacity, dtype=np.int64)
    children = np.full((2 * n - 1, 2), -1, dtype=np.int64)
    node = np.full(2 * n - 1, -1, dtype=np.int64)
    capacity = np.zeros(2 * n - 1, dtype=np.int64)
    rep = np.zeros(2 * n - 1, dtype=np.int64)
    hierarchy = machine.node_hierarchy()
    if hierarchy is not None:  # a tree of switches: halves meet at the lowest switch possible
        return hierarchy.domain_tree(cap)
    geometry = _torus_geometry(machine, view)
    if geometry is not None:
        coords, dims, wrap = geometry  # one row a node, the coordinates' type kept
        _graphmap.torus_tree(coords, dims, wrap, cap, children, node, capacity, rep)
        return DomainTree(children, node, capacity, rep)
    hop = view.hop_matrix()
    members = {0: np.arange(n, dtype=np.int64)}
    next_id = 1
    queue = deque([0])
    while queue:
        dom = queue.popleft()
        nodes = members.pop(dom)
        capacity[dom] = int(cap[nodes].sum())
        if nodes.size == 1:
            node[dom] = rep[dom] = nodes[0]
            continue
        sub = hop[np.ix_(nodes, nodes)].astype(np.int64)
        rep[dom] = nodes[int(np.argmin(sub.sum(axis=1)))]  # medoid, ties: lowest
        a = int(np.argmax(sub[0]))
        b = int(np.argmax(sub[a]))
        order = np.lexsort((np.arange(nodes.size), sub[a] - sub[b]))
        cut = split_half(cap[nodes[order]])  # ties: fewer nodes
        for half, part in enumerate((nodes[order[:cut]], nodes[order[cut:]])):
            children[dom, half] = next_id
            members[next_id] = np.sort(part)
            queue.append(next_id)
            next_id += 1
    return DomainTree(children, node, capacity, rep)


#: Values of ``partitioner`` of :func:`map_bisection`.
PARTITIONERS = ("multilevel", "greedy", "metis")


def _use_metis(partitioner: str) -> bool:
    if partitioner not in PARTITIONERS:
        raise InvalidInputError(f"partitioner: unknown {partitioner!r}; valid: {list(PARTITIONERS)}")
    if partitioner != "metis":
        return False
    try:
        import pymetis  # noqa: F401
    except ImportError:
        raise InvalidInputError("partitioner: 'metis' needs pymetis (pip install 'mpitaskmap[graph]')") from None
    return True


def _metis_bisection(tptr, tadj, tw, tasks, target: int, loc) -> np.ndarray:
    """METIS bisection of the subgraph of ``tasks`` (side 0 about ``target`` tasks), (k,) uint8.

    ``loc`` is the all -1 scratch of the kernel; it is restored before returning.
    """
    import pymetis

    k = tasks.size
    loc[tasks] = np.arange(k)
    starts, lens = tptr[tasks], tptr[tasks + 1] - tptr[tasks]
    offs = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    idx = np.repeat(starts - offs[:-1], lens) + np.arange(offs[-1])
    nb = loc[tadj[idx]]
    keep = nb >= 0
    loc[tasks] = -1
    src = np.repeat(np.arange(k), lens)[keep]
    xadj = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=k), out=xadj[1:])
    adj = nb[keep]
    w = tw[idx][keep]
    if adj.size == 0 or target in (0, k):
        return (np.arange(k) >= target).astype(np.uint8)
    wi = np.maximum(1, np.round(w / w.max() * 1000)).astype(np.int64)
    opts = pymetis.Options(seed=0)
    tpwgts = [target / k, 1.0 - target / k]
    if hasattr(pymetis, "CSRAdjacency"):  # pymetis >= 2025.2
        _, part = pymetis.part_graph(2, pymetis.CSRAdjacency(xadj.tolist(), adj.tolist()), eweights=wi.tolist(),
                                     tpwgts=tpwgts, options=opts)
    else:
        _, part = pymetis.part_graph(2, xadj=xadj.tolist(), adjncy=adj.tolist(), eweights=wi.tolist(),
                                     tpwgts=tpwgts, options=opts)
    return np.asarray(part, dtype=np.uint8)


def map_bisection(
    graph: TaskGraph,
    machine: Machine,
    *,
    refine: bool = True,
    delta: int = 8,
    max_sources: int = MAX_SOURCES,
    n_tries: int = 3,
    fm_passes: int = 8,
    imbalance: float = 0.03,
    partitioner: str = "multilevel",
    progress=None,
) -> Mapping:
    """Map a task graph by dual recursive bisection, then UWH refinement.

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph (coordinates not needed).
    machine : Machine
        The processors (node capacities respected: at most one task per core).
    refine : bool, optional
        Run the UWH refinement on the result (default True).
    delta, max_sources : int, optional
        UWH candidate nodes per task and BFS sources (see :func:`refine_wh`).
    n_tries : int, optional
        Seeds of the greedy growth per bisection (1..3, default 3).
    fm_passes : int, optional
        Fiduccia-Mattheyses passes per try at most (default 8).
    imbalance : float, optional
        When a domain has more processors than tasks, a half may take up to this fraction
        of the job's tasks more or fewer than its share of the capacity (default 0.03).
    partitioner : {"multilevel", "greedy", "metis"}, optional
        How a job is bisected.  "greedy": greedy growths from ``n_tries`` seeds, each
        refined by FM; "multilevel" (default): also, for jobs of at least
        :data:`MULTILEVEL_MIN_TASKS` tasks, a multilevel bisection (heavy-edge matching
        down to 64 vertices, growth on the coarsest graph, FM at every level on the way
        back); "metis": also a METIS bisection (pymetis, seed 0) as a start for FM.  The
        lowest cost wins (ties: the earlier try).
    progress : callable, optional
        ``progress(done, total)`` after each refinement pass.

    Returns
    -------
    Mapping
        ``info`` holds ``bisection_seconds``, ``refine_passes``, ``refine_moves`` and
        ``seconds``.

    Raises
    ------
    InvalidInputError
        If the tasks do not fit on the processors, or an option is out of range.

    Notes
    -----
    About O(m log n) for the bisections (m undirected edges, ``n_tries * fm_passes``
    heap passes per level) plus the refinement.  Deterministic.

    Examples
    --------
    >>> from mpitaskmap import torus_machine
    >>> g = TaskGraph.stencil([8])
    >>> map_bisection(g, torus_machine([8], wrap=False)).metric("average_hops")
    1.0
    """
    _check_inputs(graph, machine)
    if not 1 <= int(n_tries) <= 3:
        raise InvalidInputError(f"n_tries: must be 1, 2 or 3; got {n_tries}")
    if int(fm_passes) < 0:
        raise InvalidInputError(f"fm_passes: must be >= 0; got {fm_passes}")
    if not 0.0 <= float(imbalance) < 1.0:
        raise InvalidInputError(f"imbalance: must be in [0, 1); got {imbalance}")
    use_metis = _use_metis(partitioner)
    max_sources = _check_max_sources(max_sources)
    t0 = time.perf_counter()
    nn = NodeNetwork(machine)
    tree = processor_tree(machine)
    tptr, tadj, tw = _undirected(graph)
    n = graph.n_tasks
    task_dom = np.zeros(n, dtype=np.int64)
    task_node = np.full(n, -1, dtype=np.int64)
    loc = np.full(n, -1, dtype=np.int64)
    rep = tree.representative
    queue = deque([(0, np.arange(n, dtype=np.int64))])
    while queue:
        dom, tasks = queue.popleft()
        if tree.node[dom] >= 0:
            task_node[tasks] = tree.node[dom]
            continue
        c0, c1 = (int(c) for c in tree.children[dom])
        k = tasks.size
        cap0, cap1 = int(tree.capacity[c0]), int(tree.capacity[c1])
        lo, hi = max(0, k - cap1), min(k, cap0)
        target = min(max(int(round(k * cap0 / (cap0 + cap1))), lo), hi)
        tol = int(imbalance * k)
        lo, hi = max(lo, target - tol), min(hi, target + tol)
        side = np.zeros(k, dtype=np.uint8)
        large = k >= MULTILEVEL_MIN_TASKS
        start = _metis_bisection(tptr, tadj, tw, tasks, target, loc) if use_metis and large else None
        _graphmap.bisect_tasks(tptr, tadj, tw, nn.net, tasks, task_dom, rep, int(rep[c0]), int(rep[c1]),
                               lo, hi, target, int(n_tries), int(fm_passes), loc, side, start,
                               large and partitioner != "greedy")
        for child, part in ((c0, tasks[side == 0]), (c1, tasks[side == 1])):
            task_dom[part] = child
            if part.size:
                queue.append((child, part))
    info: dict = {"bisection_seconds": time.perf_counter() - t0, "partitioner": partitioner}
    if refine:
        moves, passes = _refine_passes(tptr, tadj, tw, nn.capacity, nn.net, delta, 20, task_node, progress,
                                       max_sources=max_sources)
        info.update(refine_moves=moves, refine_passes=passes)
    info["seconds"] = time.perf_counter() - t0
    return Mapping(nn.task_procs(task_node), machine, graph, method="bisection+uwh" if refine else "bisection",
                   info=info)
