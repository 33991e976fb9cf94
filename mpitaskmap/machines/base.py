"""The machine base: processors, nodes, and the network contract every machine kind fulfils.

A :class:`Machine` is the set of processors (MPI ranks / cores) of one allocation.  Row
``p`` is processor ``p``; it has a node id (cores of one node share it) and a place in the
network.  Every kind of network (:mod:`mpitaskmap.machines.torus`,
:mod:`mpitaskmap.machines.flat`, :mod:`mpitaskmap.machines.percs`, ...) subclasses it.

This module is the one home of hop distance, routing and link loads in the library:
metrics, mappers, the replays and benchmarks call :meth:`Machine.hops`,
:meth:`Machine.csr_hop_sums`, :meth:`Machine.routes` and :meth:`Machine.link_loads` and
never re-implement them.  The data they return are in :mod:`~.links` (:class:`Routes`,
:class:`LinkLoads`); the views of the machine that mappers, map files, plots and Rubik need
are in :mod:`~.views` (:class:`NodeView` from :meth:`Machine.node_view`, :func:`strides`).
"""

from __future__ import annotations

import abc
import math
from typing import NamedTuple

import numpy as np

from .._validate import as_index_array, as_weights
from ..errors import InvalidInputError, NotApplicableError
from .links import LinkLoads, Routes
from .. import _hops
from .network_hops import METRIC_PARAMS, NodeMetric
from .views import NodeHierarchy, NodeView

__all__ = ["Machine", "as_machine", "require_router_grid", "NodePairRoutes", "ROUTE_CHUNK_ENTRIES", "sampled_time"]

#: Route entries the generic link loads hold at once: node pairs are routed in chunks of
#: about this many entries (~100 MB of temporaries), whatever the size of the exchange.
ROUTE_CHUNK_ENTRIES = 1 << 22


#: Nearest nodes :meth:`Machine.nearest_nodes` keeps per node (the graph kernels' candidate scans
#: of up to NEAREST_NODES - 1 nodes near a source read them instead of every node).
NEAREST_NODES = 64

def sampled_time(seconds, weights=None) -> float:
    """Combine the times of one exchange on every routing a network may take (:meth:`Machine.routing_samples`).

    The mean (the expected time, weighted by how likely each routing is:
    :meth:`Machine.routing_weights`) plus the worst, halved: a mapping is ranked by what it can
    expect and by what it risks.

    Parameters
    ----------
    seconds : sequence of float
        The time on every sampled routing.
    weights : sequence of float, optional
        Each routing's probability (non-negative, summing to 1); default equal.

    Raises
    ------
    InvalidInputError
        On no time, or weights of another length, negative or not summing to 1.

    Examples
    --------
    >>> sampled_time([1.0, 2.0, 3.0])
    2.5
    >>> sampled_time([1.0, 3.0], weights=[0.75, 0.25])
    2.25
    """
    values = np.asarray(seconds, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise InvalidInputError(f"seconds: expected one time per sampled routing, at least one; "
                                f"got shape {values.shape}")
    if weights is None:
        return float((values.mean() + values.max()) / 2)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != values.shape:
        raise InvalidInputError(f"weights: expected one per sampled routing ({values.size}); got shape {w.shape}")
    if (w < 0).any() or not np.isclose(w.sum(), 1.0):
        raise InvalidInputError(f"weights: expected non-negative probabilities summing to 1; got {w.tolist()}")
    return float((float(np.dot(w, values)) + values.max()) / 2)


class _Traffic(NamedTuple):
    """A graph's messages routed node pair by node pair (:meth:`Machine._routed_traffic`)."""

    data: np.ndarray  # Data(e) of every link
    messages: np.ndarray  # Congestion(e) of every link, float64 counts
    slowest: np.ndarray | None  # largest route latency through every link, in hops (-inf: none)


class NodePairRoutes(NamedTuple):
    """The routes between every ordered pair of nodes, or how far they passed a size limit (:meth:`Machine.node_pair_routes`).

    Attributes
    ----------
    routes : Routes or None
        Route ``a * n_nodes + b`` joins the ``a``-th and ``b``-th nodes of
        :meth:`Machine.node_view`; None when the table holds more entries than the limit.
    entries : int
        The table's route entries; when ``routes`` is None and ``complete`` is False, those
        of the node pairs routed before the count passed the limit (the table holds more).
    complete : bool
        Whether ``entries`` counts the whole table.
    """

    routes: Routes | None
    entries: int
    complete: bool


class Machine(abc.ABC):
    """Processors of one allocation and the distance between them (abstract base).

    A subclass provides one primitive per capability: :meth:`hops` (distance) and
    :meth:`geometric_coords` (coordinates for geometric mapping) are required; a link
    model is optional (:attr:`has_link_model` True and :meth:`link_loads` overridden).
    The base derives everything else once: :meth:`csr_edge_hops` from :meth:`hops` (a
    subclass may override it with a compiled kernel), :meth:`csr_hop_sums` from
    :meth:`csr_edge_hops`, and the node view (:meth:`node_view`, :meth:`node_capacity`,
    :attr:`n_nodes`).

    Attributes
    ----------
    n_procs : int
        Number of processors (MPI ranks / cores); processor ids are ``0 .. n_procs-1``.
    node_ids : (n_procs,) ndarray of intp
        Node of every processor; cores of one node share an id.
    name : str
        Short description used in reports.
    """

    name: str = "machine"
    #: The routing rule's name (``"minimal"`` unless the kind has a choice: fat trees ``"dmodk"``
    #: or ``"ecmp"``, dragonflies ``"minimal"``, ``"ecmp"`` or ``"valiant"``, PERCS ``"direct"``
    #: or ``"indirect"``); consumers (SimGrid's platform) read it from every machine.
    routing: str = "minimal"

    def __init__(self, n_procs: int, node_ids=None, name: str | None = None) -> None:
        if int(n_procs) < 1:
            raise InvalidInputError(f"n_procs: a machine needs at least one processor; got {n_procs}")
        self.n_procs = int(n_procs)
        if node_ids is None:
            node_ids = np.arange(self.n_procs)
        node_ids = np.asarray(node_ids)
        if node_ids.ndim != 1 or node_ids.shape[0] != self.n_procs:
            raise InvalidInputError(
                f"node_ids: expected shape ({self.n_procs},); got {node_ids.shape}"
            )
        self.node_ids = as_index_array(node_ids, "node_ids", upper=np.iinfo(np.intp).max)
        if name is not None:
            self.name = name

    def __getstate__(self) -> dict:
        # the cached node view, link scratch, link class codes and node-pair routes are derived data: rebuilt
        # after unpickling
        state = dict(self.__dict__)
        for derived in ("_node_view", "_node_metric", "_nearest_nodes", "_link_scratch", "_link_class_codes",
                        "_node_pair_routes"):
            state.pop(derived, None)
        return state

    # -- the machine node by node -----------------------------------------------------
    def node_view(self) -> NodeView:
        """Return the machine seen node by node (built once, then cached on the machine).

        Returns
        -------
        NodeView
            Capacities, processors per node, and the router CSR on a torus.

        Notes
        -----
        O(n_procs log n_procs) on first call (plus O(n_routers) on a torus).
        """
        view = self.__dict__.get("_node_view")
        if view is None:
            view = self._build_node_view()._freeze()
            self._node_view = view
        return view

    def _build_node_view(self) -> NodeView:
        return NodeView(self)

    def node_metric(self) -> NodeMetric | None:
        """Return the hop distance between the nodes of :meth:`node_view` as labels and a compiled formula.

        What the graph kernels measure distances with off the torus, without a node-by-node
        matrix (:class:`~mpitaskmap.machines.network_hops.NodeMetric`); built once, then
        cached on the machine.  None where the kind has no such formula (a torus measures by
        router coordinates; a kind defined elsewhere falls back to
        :meth:`NodeView.hop_matrix`).

        Notes
        -----
        O(n_nodes x labels) time and memory.

        Examples
        --------
        >>> from mpitaskmap.machines import FlatMachine, torus_machine
        >>> FlatMachine([3, 1, 3]).node_metric().kind, torus_machine([4]).node_metric()
        ('flat', None)
        """
        if "_node_metric" not in self.__dict__:
            self._node_metric = self._build_node_metric()
        return self._node_metric

    def _build_node_metric(self) -> NodeMetric | None:
        return None

    def nearest_nodes(self) -> np.ndarray:
        """Return the :data:`NEAREST_NODES` nearest nodes of every node of :meth:`node_view`, (n_nodes, width) int64.

        Row ``a`` lists node indices in order of (hops from ``a``, node index), ``a`` itself
        first; ``width = min(n_nodes, NEAREST_NODES)``.  What the graph kernels scan instead
        of every node when they want a few candidates near a source.  Built once, then
        cached on the machine (read-only).

        Raises
        ------
        NotApplicableError
            Without a node metric and over :data:`~mpitaskmap.machines.MAX_MATRIX_NODES`
            nodes (:meth:`NodeView.hop_matrix`).

        Notes
        -----
        O(n_nodes**2 log width) time, O(n_nodes x width) memory: by the node metric
        (:meth:`node_metric`), else the hop matrix.

        Examples
        --------
        >>> from mpitaskmap.machines import FlatMachine
        >>> FlatMachine([0, 1, 2], inter_node_hops=2).nearest_nodes().tolist()
        [[0, 1, 2], [1, 0, 2], [2, 0, 1]]
        """
        near = self.__dict__.get("_nearest_nodes")
        if near is None:
            metric = self.node_metric()
            no_params = np.zeros(METRIC_PARAMS, dtype=np.int64)
            if metric is not None:
                near = _hops.nearest_nodes(metric.code, metric.params, metric.labels, np.zeros((0, 0), np.int32),
                                           NEAREST_NODES)
            else:
                near = _hops.nearest_nodes(0, no_params, np.zeros((0, 1), np.int64), self.node_view().hop_matrix(),
                                           NEAREST_NODES)
            near.setflags(write=False)
            self._nearest_nodes = near
        return near

    @property
    def n_nodes(self) -> int:
        """Number of distinct nodes."""
        return self.node_view().n_nodes

    def node_capacity(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the distinct node ids and the number of processors on each.

        Returns
        -------
        nodes : (n_nodes,) ndarray of intp
            Sorted distinct node ids.
        counts : (n_nodes,) ndarray of int64
            Processors (cores) per node.

        Examples
        --------
        >>> from mpitaskmap.machines import FlatMachine
        >>> [a.tolist() for a in FlatMachine([3, 1, 3]).node_capacity()]
        [[1, 3], [1, 2]]
        """
        view = self.node_view()
        return view.nodes, view.capacity

    # -- routers: where nodes attach to the network ----------------------------------------
    @property
    def n_routers(self) -> int:
        """Number of routers of the network (default :attr:`n_nodes`: every node its own router).

        Nodes of one router reach each other without crossing a network link (an empty
        route); the replays send such messages through the router's crossbar.  A kind
        whose nodes share routers (a torus) overrides this and :meth:`router_ids`.
        """
        return self.n_nodes

    def router_ids(self) -> np.ndarray:
        """Return the router of every processor, (n_procs,) int64 in ``[0, n_routers)``.

        Default: the index of the processor's node in :meth:`node_view` (one router per
        node).  A new array on every call.

        Examples
        --------
        >>> from mpitaskmap.machines import FlatMachine
        >>> m = FlatMachine([5, 2, 5])
        >>> m.router_ids().tolist(), m.n_routers
        ([1, 0, 1], 2)
        """
        return self.node_view().node_of_proc.copy()

    # -- distance ------------------------------------------------------------------------
    @abc.abstractmethod
    def hops(self, src, dst) -> np.ndarray:
        """Return the hop distance between processors ``src[i]`` and ``dst[i]``.

        Parameters
        ----------
        src, dst : (n,) array_like of int
            Processor ids.

        Returns
        -------
        (n,) ndarray of int64
            Hops; 0 between processors of one node.
        """

    def csr_edge_hops(self, indptr, indices, task_to_proc) -> np.ndarray:
        """Return the hop count of every directed edge of a CSR task graph (CSR order).

        Parameters
        ----------
        indptr : (n_tasks + 1,) ndarray of intp
        indices : (n_edges,) ndarray of intp
            The graph: edges of task ``t`` go to ``indices[indptr[t]:indptr[t+1]]``.
        task_to_proc : (n_tasks,) ndarray of intp
            Processor of every task.

        Returns
        -------
        (n_edges,) ndarray of int64

        Notes
        -----
        The base calls :meth:`hops` on the processors of both ends, O(n_edges) memory.
        """
        proc = np.asarray(task_to_proc)
        src = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        return self.hops(proc[src], proc[np.asarray(indices)])

    def csr_hop_sums(self, indptr, indices, weights, task_to_proc) -> tuple[int, float, int]:
        """Return (TotalHops, WeightedHops, max hops) over the directed edges of a CSR task graph.

        Parameters
        ----------
        indptr, indices : ndarray of intp
            The graph in CSR form (see :meth:`csr_edge_hops`).
        weights : (n_edges,) ndarray of float64
            Volume of every edge.
        task_to_proc : (n_tasks,) ndarray of intp
            Processor of every task.

        Returns
        -------
        tuple of (int, float, int)
            Sum of hops, sum of weight * hops, and the largest hop count (0 without edges).
        """
        h = self.csr_edge_hops(indptr, indices, task_to_proc)
        return int(h.sum()), float(h @ np.asarray(weights, dtype=np.float64)), int(h.max()) if h.size else 0

    def node_hierarchy(self) -> NodeHierarchy | None:
        """Return the allocated nodes grouped level by level by the network above them, or None.

        A machine whose network is a hierarchy (a fat tree's switch levels) returns a
        :class:`~mpitaskmap.machines.views.NodeHierarchy`; mappers that follow a hierarchy
        (the geometric family's tree split, the graph family's bisection) ask this, never
        the machine's class.  Default: None (no hierarchy known).
        """
        return None

    # -- capabilities that algorithms defined on a grid of routers ask for ----------------
    @property
    def has_router_grid(self) -> bool:
        """Whether the routers sit on an n-D torus/mesh grid (``router_coords``, ``dims``, ``wrap``).

        The regular-grid heuristics, Rubik, Blue Gene map files, torus shifts and bandwidth
        scaling are defined on such a grid; they ask this (:func:`require_router_grid`),
        never the machine's class.
        """
        return False

    # -- optional capabilities a simulator asks for (defaults: none) -----------------------
    def fat_tree_shape(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """``(down, up)`` of a regular fat tree numbering its nodes as SimGrid's FAT_TREE cluster does, or None.

        ``down[l]`` children of a level-``l + 1`` switch, ``up[l]`` parents of a level-``l``
        element; SimGrid can then express the machine natively (:mod:`mpitaskmap.sim.simgrid`).
        None (the default) for every other machine.
        """
        return None

    def single_path_routes(self, src, dst) -> Routes:
        """Return one path per processor pair, for simulators that follow one route per pair (SimGrid).

        The default is :meth:`routes` (a simulator then refuses a pair whose traffic splits);
        a kind whose routing spreads traffic but that can name one path per pair (a
        dragonfly's minimal routes) overrides it and :attr:`single_paths_differ`.
        """
        return self.routes(src, dst)

    @property
    def single_paths_differ(self) -> bool:
        """Whether :meth:`single_path_routes` follow other paths than :meth:`routes` (default False)."""
        return False

    # -- the network: links and routes ---------------------------------------------------
    # A kind with a link model overrides n_links, link_bandwidths, link_classes and routes;
    # everything else (loads, predicted time, names) is derived here from those four, and a
    # kind may override a derived method with a compiled fast path giving the same result.
    @property
    def n_links(self) -> int:
        """Number of directed links in the machine's link numbering (0 without a link model)."""
        return 0

    @property
    def has_link_model(self) -> bool:
        """Whether the machine routes messages over links (:meth:`routes`, :meth:`link_loads` work)."""
        return self.n_links > 0

    def _no_link_model(self) -> InvalidInputError:
        return InvalidInputError(
            f"machine: {self.name!r} has no link model (has_link_model is False: only host names are known); "
            "link metrics, routes and replays need a machine with routed links, e.g. a torus or a PERCS machine"
        )

    def link_bandwidths(self) -> np.ndarray:
        """Return the bandwidth of every directed link, (n_links,) float64 (machine unit, GB/s).

        Raises
        ------
        InvalidInputError
            On a machine without a link model.
        """
        raise self._no_link_model()

    def link_classes(self) -> tuple[np.ndarray, tuple]:
        """Return the class of every link and the class names, from the most local class to the most global.

        Returns
        -------
        codes : (n_links,) ndarray of int
            Class of every link, an index into ``names``.
        names : tuple of str
            E.g. ``("X+", "X-", "Y+", "Y-")`` on a 2-D torus, ``("LL", "LR", "D")`` on PERCS.

        Raises
        ------
        InvalidInputError
            On a machine without a link model.
        """
        raise self._no_link_model()

    def link_name(self, link: int) -> str:
        """Return a readable, unique name of link ``link`` (see :meth:`link_names`).

        Examples
        --------
        >>> from mpitaskmap.machines import torus_machine
        >>> torus_machine([4]).link_name(3)
        'l3_X-'
        """
        return self.link_names([link])[0]

    def link_names(self, links) -> list[str]:
        """Return a readable, unique name of every link of ``links`` (``"l<id>_<class>"`` unless a kind says better).

        The names of platforms and reports; one call for many links (a kind that names its
        links otherwise overrides this method).

        Parameters
        ----------
        links : array_like of int
            Link ids in ``[0, n_links)``.

        Returns
        -------
        list of str

        Raises
        ------
        InvalidInputError
            On a link id out of range (naming it).
        """
        ids = self._checked_links(links)
        codes, names = self.link_classes()
        return [f"l{link}_{names[code]}" for link, code in zip(ids.tolist(), codes[ids].tolist())]

    def _checked_links(self, links) -> np.ndarray:
        """Link ids as int64, each checked to lie in ``[0, n_links)``."""
        ids = np.atleast_1d(np.asarray(links))
        if ids.size and ids.dtype.kind not in "iu":
            raise InvalidInputError(f"link: expected integer link ids; got {links!r}")
        ids = ids.astype(np.int64).ravel()
        bad = (ids < 0) | (ids >= self.n_links)
        if bad.any():
            raise InvalidInputError(f"link: must lie in [0, {self.n_links}); got {int(ids[bad][0])}")
        return ids

    def routes(self, src, dst) -> Routes:
        """Return the routes ``src[i] -> dst[i]`` of a batch of processor pairs (CSR over link ids).

        Parameters
        ----------
        src, dst : array_like of int
            Processor ids, one pair per entry.

        Returns
        -------
        Routes
            ``(indptr, links, fractions)``: pair ``i`` sends ``fractions[j]`` of its traffic
            over ``links[j]`` for ``j`` in ``indptr[i]:indptr[i+1]``.

        Raises
        ------
        InvalidInputError
            On a machine without a link model, or bad processor ids.
        """
        raise self._no_link_model()

    @property
    def routes_known(self) -> bool:
        """Whether :meth:`routes` are the network's own (default True); a routing only assumed is not polished for."""
        return True

    def routing_samples(self) -> tuple:
        """The machines the network's routing may be, when it is not known (default ``(self,)``: it is).

        The predicted time (:meth:`link_time`) and the judge's replay of a machine with several
        combine their times with :func:`sampled_time`, weighted by :meth:`routing_weights`.
        """
        return (self,)

    def routing_weights(self) -> np.ndarray:
        """How likely each of :meth:`routing_samples` is (non-negative, summing to 1); default equal."""
        n = len(self.routing_samples())
        return np.full(n, 1.0 / n)

    @property
    def adaptive_routing(self) -> bool:
        """Whether the routes depend on the traffic (:meth:`exchange_routes` chooses them per exchange); default False."""
        return False

    def exchange_route_entries(self, src, dst, volume) -> np.ndarray | None:
        """Return the links of every message's route in :meth:`exchange_routes`, counted without routing, or None.

        A machine whose routes can be long (a dragonfly's Valiant detours: thousands of links
        a pair) counts them first, so that a replay knows its size before it builds them; the
        others return None (routing costs no more than counting).  Same arguments as
        :meth:`exchange_routes`.

        Examples
        --------
        >>> from mpitaskmap.machines import TorusMachine
        >>> TorusMachine([[0, 0], [3, 1]], dims=[4, 4]).exchange_route_entries([0], [1], [8.0]) is None
        True
        """
        return None

    def exchange_routes(self, src, dst, volume, *, reverse: bool = False) -> Routes:
        """Return the routes of the messages of one exchange, message ``i`` from processor ``src[i]`` to ``dst[i]``.

        A routing that depends on the traffic (a dragonfly's ``"ugal"``) chooses here, over the
        whole exchange; every other one routes each pair as :meth:`routes` does, whatever the
        volumes.

        Parameters
        ----------
        src, dst : array_like of int
            Processor ids of every message.
        volume : array_like of float
            Every message's volume (bytes or graph weight, >= 0).
        reverse : bool, optional
            Return the paths back from ``dst[i]`` to ``src[i]`` of the same choice (what the
            acknowledgements of a replay with cross-traffic take).

        Returns
        -------
        Routes

        Raises
        ------
        InvalidInputError
            On bad processor ids or volumes, or a machine without a link model.

        Examples
        --------
        >>> from mpitaskmap.machines import TorusMachine
        >>> m = TorusMachine([[0, 0], [3, 1]], dims=[4, 4])
        >>> there = m.exchange_routes([0], [1], [8.0])
        >>> back = m.exchange_routes([0], [1], [8.0], reverse=True)
        >>> there.links.tolist() == m.routes([0], [1]).links.tolist()
        True
        >>> back.links.tolist() == m.routes([1], [0]).links.tolist()
        True
        """
        src, dst = self._checked_pairs(src, dst)
        as_weights(volume, "volume", src.size)
        return self.routes(dst, src) if reverse else self.routes(src, dst)

    def route(self, src: int, dst: int) -> list[tuple[str, int]]:
        """Return the links of the route from processor ``src`` to ``dst`` as (class name, link id).

        Examples
        --------
        >>> from mpitaskmap.machines import TorusMachine
        >>> m = TorusMachine([[0, 0], [3, 1]], dims=[4, 4])
        >>> m.route(0, 1)
        [('X-', 1), ('Y+', 14)]
        """
        r = self.routes([src], [dst])
        codes, names = self.link_classes()
        return [(names[int(codes[link])], int(link)) for link in r.links]

    def _checked_pairs(self, src, dst) -> tuple[np.ndarray, np.ndarray]:
        """Validated processor ids of a batch of pairs (for :meth:`routes` implementations)."""
        src_i = as_index_array(np.atleast_1d(src), "src", upper=self.n_procs)
        dst_i = as_index_array(np.atleast_1d(dst), "dst", upper=self.n_procs)
        if src_i.shape != dst_i.shape:
            raise InvalidInputError(f"routes: src has {src_i.size} entries, dst {dst_i.size}")
        return src_i, dst_i

    def node_pair_routes(self, max_entries: int) -> NodePairRoutes:
        """Return the routes between every ordered pair of nodes, unless they hold more than ``max_entries`` entries.

        Route ``a * n_nodes + b`` joins the ``a``-th and ``b``-th nodes of :meth:`node_view`,
        routed through their representatives (routes depend only on where a node attaches);
        what congestion refinement tables off the torus.  Routed in chunks of about
        :data:`ROUTE_CHUNK_ENTRIES` entries, stopping as soon as the count passes
        ``max_entries``: memory O(``max_entries``), whatever the routes.

        The result is kept on the machine (dropped when pickled, as the node view): a later
        call returns the table, or says at once that it passed a limit, without routing
        again, unless the limit is larger than the one a partial count passed.  The table's
        arrays are read-only.

        Parameters
        ----------
        max_entries : int
            Largest table to build (route entries: a link with its fraction).

        Returns
        -------
        NodePairRoutes
            The routes, or None with the entries counted (all, or those routed before the
            count passed the limit).

        Raises
        ------
        InvalidInputError
            On a machine without a link model.

        Notes
        -----
        O(n_nodes**2 + entries) time; the table holds 16 bytes an entry (plus 8 a node pair)
        for as long as the machine lives.

        Examples
        --------
        >>> from mpitaskmap.machines import torus_machine
        >>> m = torus_machine([4], wrap=False)   # 4 nodes on a line: 20 links over the 12 ordered pairs
        >>> t = m.node_pair_routes(100)
        >>> t.entries, t.routes.lengths.reshape(4, 4).tolist()[0]
        (20, [0.0, 1.0, 2.0, 3.0])
        >>> m.node_pair_routes(19)
        NodePairRoutes(routes=None, entries=20, complete=True)
        """
        if not self.has_link_model:
            raise self._no_link_model()
        max_entries = int(max_entries)
        known = self.__dict__.get("_node_pair_routes")
        if known is not None:
            if known.entries > max_entries:  # the table, or the count that passed an earlier limit, is too big
                return NodePairRoutes(None, known.entries, known.complete)
            if known.routes is not None:
                return known
        view = self.node_view()
        n, rep = view.n_nodes, view.representative
        pieces, entries, start, step = [], 0, 0, 1
        while start < n:  # rows of sources, about ROUTE_CHUNK_ENTRIES entries at a time
            stop = min(n, start + step)
            routes = self.routes(np.repeat(rep[start:stop], n), np.tile(rep, stop - start))
            pieces.append(routes)
            entries += int(routes.links.size)
            if entries > max_entries:
                pieces.clear()
                break
            step = max(1, int(ROUTE_CHUNK_ENTRIES * (stop - start) / max(routes.links.size, 1)))
            start = stop
        if pieces:
            offsets = np.cumsum([0] + [int(r.indptr[-1]) for r in pieces])
            indptr = np.concatenate([[0]] + [r.indptr[1:] + off for r, off in zip(pieces, offsets[:-1])])
            table = Routes(indptr.astype(np.int64, copy=False),
                           np.concatenate([r.links for r in pieces]).astype(np.int64, copy=False),
                           np.concatenate([r.fractions for r in pieces]).astype(np.float64, copy=False))
            for arr in table:
                arr.setflags(write=False)
            known = NodePairRoutes(table, entries, True)
        else:
            known = NodePairRoutes(None, entries, stop == n)
        self._node_pair_routes = known
        return known

    def _routed_traffic(self, indptr, indices, weights, task_to_proc, overlap_weight: float | None = None) -> _Traffic:
        """Data(e), Congestion(e) and (with ``overlap_weight``) the slowest route through every link.

        Routes depend only on where the nodes attach, so the messages are grouped by
        (source node, destination node) and each distinct pair is routed once, through its
        nodes' lowest processors, in chunks of about :data:`ROUTE_CHUNK_ENTRIES` route
        entries (memory bounded whatever the exchange).  A pair's route latency in hops is
        its route length (:attr:`Routes.lengths`) times its longest message's share
        ``min(1, overlap_weight / w)``.
        """
        view = self.node_view()
        node = view.node_of_proc[np.asarray(task_to_proc)]
        a = np.repeat(node[: len(indptr) - 1], np.diff(indptr))
        b = node[np.asarray(indices)]
        inter = a != b
        pairs, inverse = np.unique(a[inter] * view.n_nodes + b[inter], return_inverse=True)
        w = np.asarray(weights, dtype=np.float64)[inter]
        volume = np.bincount(inverse, weights=w, minlength=pairs.size)
        count = np.bincount(inverse, minlength=pairs.size).astype(np.float64)
        scale = None
        if overlap_weight is not None:
            scale = np.zeros(pairs.size)
            np.maximum.at(scale, inverse, np.minimum(1.0, overlap_weight / np.maximum(w, 1e-300)))
        data, messages = np.zeros(self.n_links), np.zeros(self.n_links)
        slowest = None if scale is None else np.full(self.n_links, -np.inf)
        rep = view.representative
        start, step = 0, 1024
        while start < pairs.size:
            chunk = slice(start, min(start + step, pairs.size))
            routes = self.routes(rep[pairs[chunk] // view.n_nodes], rep[pairs[chunk] % view.n_nodes])
            entry = np.repeat(np.arange(chunk.stop - chunk.start), np.diff(routes.indptr))
            data += np.bincount(routes.links, weights=volume[chunk][entry] * routes.fractions, minlength=self.n_links)
            messages += np.bincount(routes.links, weights=count[chunk][entry], minlength=self.n_links)
            if slowest is not None:
                np.maximum.at(slowest, routes.links, (routes.lengths * scale[chunk])[entry])
            # the next chunk holds about ROUTE_CHUNK_ENTRIES entries at this chunk's mean route length
            step = max(1, int(ROUTE_CHUNK_ENTRIES * (chunk.stop - chunk.start) / max(routes.links.size, 1)))
            start = chunk.stop
        return _Traffic(data, messages, slowest)

    def link_loads(self, indptr, indices, weights, task_to_proc) -> LinkLoads:
        """Return Data(e) and Congestion(e) of every link for a CSR task graph under the machine's routes.

        Every directed edge is one message along :meth:`routes`: ``Data(e)`` adds its
        weight times the route's fraction on ``e``, ``Congestion(e)`` counts it once.  Edges
        inside one node cross no link.  Inputs are trusted (validated by the metric
        functions).

        Raises
        ------
        InvalidInputError
            On a machine without a link model.

        Notes
        -----
        O(n_edges log n_edges + pairs x route length): every distinct node pair is routed
        once; memory O(n_links + :data:`ROUTE_CHUNK_ENTRIES`).
        """
        if not self.has_link_model:
            raise self._no_link_model()
        traffic = self._routed_traffic(indptr, indices, weights, task_to_proc)
        codes, names = self.link_classes()
        return LinkLoads(data=traffic.data, messages=np.rint(traffic.messages).astype(np.int64),
                         bandwidth=self.link_bandwidths(), link_class=codes, class_names=tuple(names))

    def link_time(self, indptr, indices, weights, task_to_proc, *, seconds_per_weight: float,
                  hop_latency: float, overlap_weight: float = math.inf) -> tuple[float, int]:
        """Return the predicted seconds of one exchange and its slowest link id.

        The exchange sends every edge of the CSR task graph as one message, all at once;
        its time is set by the slowest link: max over links e of
        ``Data(e) * seconds_per_weight / bw(e) + R(e)``, where ``R(e)`` is the largest
        route latency of a message crossing e, and a message of weight ``w`` over a route
        of ``h`` links (:attr:`Routes.lengths`: the expected count where traffic splits)
        has route latency ``hop_latency * h * min(1, overlap_weight / w)``
        (:func:`mpitaskmap.metrics.predicted_time`).  Ties go to the lowest link id.

        Parameters
        ----------
        indptr, indices, weights, task_to_proc : ndarray
            CSR task graph and mapping (trusted: the metric functions validate them).
        seconds_per_weight : float
            Seconds one unit of weight takes on a link of bandwidth 1 (machine unit).
        hop_latency : float
            Seconds per link crossed.
        overlap_weight : float, optional
            Message weight above which the hop latency overlaps with the data, in
            proportion (> 0; default inf: every message pays its full hop latency).

        Returns
        -------
        (float, int)
            Seconds (0.0 when no message leaves its router) and the slowest link's id
            (-1 then).

        Raises
        ------
        InvalidInputError
            On a machine without a link model.

        Notes
        -----
        A machine whose routing is not known (:meth:`routing_samples`) gives the sampled
        routings' times combined by :func:`sampled_time` (weighted by :meth:`routing_weights`),
        and the worst one's slowest link.
        O(n_edges log n_edges + pairs x route length), as :meth:`link_loads`; a kind may
        override it with a fused kernel (the torus does).
        """
        if not self.has_link_model:
            raise self._no_link_model()
        samples = self.routing_samples()
        if len(samples) > 1 or samples[0] is not self:  # a routing not known: every sampled one, combined
            times = [m.link_time(indptr, indices, weights, task_to_proc, seconds_per_weight=seconds_per_weight,
                                 hop_latency=hop_latency, overlap_weight=overlap_weight) for m in samples]
            worst = max(range(len(times)), key=lambda k: times[k][0])
            return sampled_time([t for t, _ in times], self.routing_weights()), times[worst][1]
        traffic = self._routed_traffic(indptr, indices, weights, task_to_proc, overlap_weight=overlap_weight)
        slowest = traffic.slowest
        crossed = np.isfinite(slowest)  # every link on the route of some message
        if not crossed.any():
            return 0.0, -1
        value = np.where(crossed, traffic.data * seconds_per_weight / self.link_bandwidths() + hop_latency * slowest,
                         -np.inf)
        link = int(np.argmax(value))
        return float(value[link]), link

    # -- embedding -----------------------------------------------------------------------
    @abc.abstractmethod
    def geometric_coords(self) -> np.ndarray:
        """Return (n_procs, n_dims) float64 coordinates for geometric mapping."""


def as_machine(obj, name: str = "machine") -> "Machine":
    """Return ``obj`` if it is a :class:`Machine`; raise an error naming ``name`` otherwise.

    The one check, at the boundary of every public function, that an argument is a machine
    at all (what kind of network it has is asked through the contract, never its class).

    Examples
    --------
    >>> as_machine("titan")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: machine: expected a Machine; got str
    """
    if not isinstance(obj, Machine):
        raise InvalidInputError(f"{name}: expected a Machine; got {type(obj).__name__}")
    return obj


def require_router_grid(machine: "Machine", what: str, error: type = NotApplicableError) -> "Machine":
    """Return ``machine`` if its routers sit on an n-D grid; raise ``error`` naming ``what`` otherwise.

    Parameters
    ----------
    machine : Machine
    what : str
        What needs the grid, for the message (e.g. ``"grid heuristics"``).
    error : exception class, optional
        :class:`~mpitaskmap.errors.NotApplicableError` (default: the method does not apply,
        a search skips it) or :class:`~mpitaskmap.errors.InvalidInputError`.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> require_router_grid(FlatMachine([0, 1]), "Rubik")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.NotApplicableError: machine: Rubik needs routers on a torus or mesh grid; 'flat' has none
    """
    as_machine(machine)
    if not machine.has_router_grid:
        raise error(f"machine: {what} needs routers on a torus or mesh grid; {machine.name!r} has none")
    return machine

