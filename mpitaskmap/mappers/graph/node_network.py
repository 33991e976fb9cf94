"""The network of the graph mappers' kernels, node by node (:class:`NodeNetwork`).

Greedy growth (:mod:`~.greedy`), UMPa's refinement (:mod:`~.umpa`), the dual recursive
bisection (:mod:`~.bisection`) and the node-swap polish (:mod:`~.node_swaps`) hand the
compiled kernels (``_graphmap``) one network object built from the machine's node view.
On a machine with torus geometry (router coordinates, ``dims``, ``wrap`` and the router
CSR in its node view) the network BFS runs over routers with early exit and the
dimension-order routes are computed on the fly.  A fat tree, dragonfly, PERCS system or
flat allocation gives its compiled hop formula over labels per node
(:meth:`~mpitaskmap.machines.Machine.node_metric`: O(n_nodes) memory at any size); only a
machine kind without one falls back to a node-to-node hop matrix (up to
:data:`~mpitaskmap.machines.MAX_MATRIX_NODES` nodes).  A fat tree's routes come from the same
labels, computed on the fly (any size); on the other machines off the torus the routes between
every pair of nodes are tabled once (up to :data:`MAX_ROUTE_ENTRIES` route entries).  The
modes give the same result where they overlap.
"""

from __future__ import annotations

import numpy as np

from ... import _graphmap
from ...errors import InvalidInputError, NotApplicableError
from ...machines import Machine, NodeView, Routes, as_machine
from ...graphs.taskgraph import TaskGraph

__all__ = ["NodeNetwork", "MAX_ROUTE_ENTRIES"]

#: Largest route table of :func:`~mpitaskmap.mappers.graph.umpa.refine_congestion` off the
#: torus: route entries (link, fraction) over all n_nodes**2 ordered node pairs, i.e.
#: n_nodes**2 x the mean entries per route.  16 bytes an entry (plus 8 a node pair): at most
#: about 1.5 GiB.  E.g. 2,048 nodes with routes of 16 entries fit.
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
    bounded below by the node pairs (a route between two nodes has at least one entry) and by
    their hops (one entry per hop of a shortest path), then counted while routing, which stops
    as soon as the count passes the limit.
    O(n_nodes**2 + entries).
    """
    n = view.n_nodes

    def too_big(entries: int, what: str) -> NotApplicableError:
        return NotApplicableError(
            f"machine: congestion refinement tables the routes of all {n} x {n} node pairs; {what} {entries} "
            f"route entries > MAX_ROUTE_ENTRIES = {MAX_ROUTE_ENTRIES} (mpitaskmap.mappers.graph.node_network)"
        )

    if n * (n - 1) > MAX_ROUTE_ENTRIES:  # every route between two nodes has at least one entry
        raise too_big(n * (n - 1), "at least")
    metric = machine.node_metric()  # and at least one per hop of a shortest path
    estimate = metric.total_hops() if metric is not None else int(view.hop_matrix().sum(dtype=np.int64))
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
    on a machine with torus geometry, the kind's hop formula over node labels
    (:meth:`~mpitaskmap.machines.Machine.node_metric`), else the hop matrix; routes on the
    fly on a torus, else a route table when asked) and places the tasks of every node on
    that node's processors.

    Parameters
    ----------
    machine : Machine
        The processors.
    routes : bool, optional
        Give the kernel the machine's routes
        (:func:`~mpitaskmap.mappers.graph.umpa.refine_congestion`).  Free on a torus; elsewhere
        the route table of every node pair is built (:data:`MAX_ROUTE_ENTRIES`).
    _route_table : bool, optional
        Private switch for tests and benchmarks: table the routes even on a torus or a fat
        tree (the distances stay the torus's or the formula's), to compare the route modes.

    Attributes
    ----------
    view : NodeView
        The machine node by node.
    nodes, capacity, proc_ptr, procs
        The view's arrays (see :class:`~mpitaskmap.machines.NodeView`).
    net : object
        The compiled network object.
    routing : {"torus", "formula", "table"} or None
        Where the kernel's routes come from (a fat tree's are computed from its node labels,
        any size; other machines off the torus table them); None: no routes (hops only).

    Raises
    ------
    InvalidInputError
        With ``routes`` on a machine without a link model.
    NotApplicableError
        For a machine with neither torus geometry nor a node metric and more than
        :data:`~mpitaskmap.machines.MAX_MATRIX_NODES` nodes, or with ``routes`` a route table
        over :data:`MAX_ROUTE_ENTRIES`.
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
        metric = machine.node_metric() if geometry is None else None
        by_formula = routes and metric is not None and metric.route_params is not None and not _route_table
        table: tuple = ()
        if routes and (geometry is None or _route_table) and not by_formula:
            table = tuple(_node_route_table(machine, view))
        self.routing = ("table" if table else "formula" if by_formula else "torus" if geometry is not None
                        else None)
        if geometry is not None:
            coords, dims, wrap = geometry
            self.net = _graphmap.make_net(
                coords.astype(np.int64), dims, wrap, view.router_ptr, view.router_nodes, view.node_router,
                np.zeros((0, 0), dtype=np.int32), *table,
            )
        else:
            n = view.n_nodes
            no_grid = (np.zeros((n, 1), dtype=np.int64), np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.uint8),
                       np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(n, dtype=np.int64))
            near = machine.nearest_nodes()
            if metric is not None:
                formula = dict(route_params=metric.route_params, n_links=metric.n_links) if by_formula else {}
                self.net = _graphmap.make_net(*no_grid, np.zeros((0, 0), dtype=np.int32), *(table or (None,) * 3),
                                              metric=metric.code, metric_params=metric.params,
                                              metric_labels=metric.labels, near=near, **formula)
            else:
                self.net = _graphmap.make_net(*no_grid, view.hop_matrix(), *(table or (None,) * 3), near=near)

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


def _check_inputs(graph: TaskGraph, machine: Machine) -> None:
    if not isinstance(graph, TaskGraph):
        raise InvalidInputError(f"graph: expected a TaskGraph; got {type(graph).__name__}")
    as_machine(machine, "machine")
    if graph.n_tasks > machine.n_procs:
        raise InvalidInputError(
            f"graph: {graph.n_tasks} tasks do not fit on {machine.n_procs} processors "
            "(graph mappers place at most one task per core)"
        )
