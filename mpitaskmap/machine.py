"""The machine model: allocated processors and the network that joins them.

A :class:`Machine` is the set of processors (MPI ranks / cores) of one allocation.  Row
``p`` is processor ``p``; it has a node id (cores of one node share it) and a place in the
network.  :class:`TorusMachine` is the n-dimensional torus/mesh model used by Cray Gemini,
IBM Blue Gene and most simulated machines: router coordinates per processor, per-dimension
lengths and wrap flags, and link bandwidths per dimension or per link position.

This module is the one home of hop distance and of static routing in the library: metrics,
mappers and benchmarks call :meth:`Machine.hops`, :meth:`Machine.csr_hop_sums` and
:meth:`Machine.link_loads` and never re-implement them.  It is also the one home of the
views of the machine that mappers, map files, plots and Rubik need:

* :func:`strides` - linear ids of grid coordinates (dimension 0 fastest);
* :meth:`Machine.node_view` - the machine node by node (:class:`NodeView`: capacities,
  processors per node, router CSR on a torus, node hop matrix elsewhere);
* :meth:`TorusMachine.router_slots`, :meth:`TorusMachine.procs_at` - processors by
  (router coordinates, slot);
* :meth:`TorusMachine.neighbors` - processors on the same router or one hop away;
* :meth:`TorusMachine.box_shape` - the box of a full box allocation (:class:`BoxShape`).
"""

from __future__ import annotations

import abc
import math
import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import _torus
from ._validate import as_index_array, as_int_matrix
from .errors import InvalidInputError, NotApplicableError

__all__ = [
    "Machine",
    "TorusMachine",
    "FlatMachine",
    "LinkLoads",
    "NodeView",
    "BoxShape",
    "MAX_MATRIX_NODES",
    "BANDWIDTH_UNIT",
    "strides",
    "gemini_bandwidth",
    "default_dim_names",
]

#: Serialises the compiled link-time pass, which fills a machine's kept per-link scratch.
_LINK_SCRATCH_LOCK = threading.Lock()

#: Largest node count of a node hop matrix (:meth:`NodeView.hop_matrix`, n x n int32).
MAX_MATRIX_NODES = 8192

GEMINI_X_BW = 75.0
GEMINI_Y_MEZZANINE_BW = 75.0
GEMINI_Y_CABLE_BW = 37.5
GEMINI_Z_BACKPLANE_BW = 120.0
GEMINI_Z_CABLE_BW = 75.0


def default_dim_names(n_dims: int) -> list[str]:
    """Return display names of the dimensions: X, Y, Z for up to three, else D0, D1, ...

    Parameters
    ----------
    n_dims : int
        Number of dimensions.

    Returns
    -------
    list of str
        One name per dimension.

    Examples
    --------
    >>> default_dim_names(3)
    ['X', 'Y', 'Z']
    """
    if n_dims <= 3:
        return ["X", "Y", "Z"][:n_dims]
    return [f"D{k}" for k in range(n_dims)]


def strides(dims: Sequence[int] | np.ndarray) -> np.ndarray:
    """Return the linear-id strides of a grid numbered dimension 0 fastest.

    The cell at coordinates ``c`` has id ``c @ strides(dims)``; its coordinate in
    dimension ``k`` is ``(id // strides(dims)[k]) % dims[k]``.  Router ids, node ids of
    simulated machines and task ids of stencils all use this numbering.

    Parameters
    ----------
    dims : sequence of int
        Grid lengths, each at least 1.

    Returns
    -------
    (len(dims),) ndarray of int64
        ``1, dims[0], dims[0] * dims[1], ...``.

    Raises
    ------
    InvalidInputError
        If ``dims`` is not a 1-D sequence of positive integers.

    Examples
    --------
    >>> strides([4, 3, 2]).tolist()
    [1, 4, 12]
    """
    arr = np.asarray(dims)
    if arr.ndim != 1 or (arr.size and (arr.dtype.kind not in "iu" or (arr < 1).any())):
        raise InvalidInputError(f"dims: expected a 1-D sequence of positive integer lengths; got {dims!r}")
    out = np.ones(arr.size, dtype=np.int64)
    if arr.size > 1:
        np.cumprod(arr[:-1].astype(np.int64), out=out[1:])
    return out


def gemini_bandwidth(dims: Sequence[int]) -> list[np.ndarray]:
    """Return per-position link bandwidths (GB/s) of a Cray Gemini 3-D torus.

    Entry ``[k][c]`` is the bandwidth of the link joining coordinate ``c`` and ``c + 1``
    (mod length) in dimension ``k``.  X links are 75 GB/s.  Y alternates mezzanine traces
    (75 GB/s, between y = 0-1, 2-3, ...) and cables (37.5 GB/s, 1-2, 3-4, ...).  Z is
    backplane (120 GB/s) inside groups of 8 (0-7, 8-15, ...) and cable (75 GB/s) between
    groups (7-8, 15-16, ...).

    Parameters
    ----------
    dims : sequence of 3 int
        Torus lengths (X, Y, Z), e.g. Titan's (25, 16, 24).

    Returns
    -------
    list of 3 ndarray of float64
        Bandwidth of the + link leaving each coordinate, per dimension.

    Raises
    ------
    InvalidInputError
        If ``dims`` does not have three positive entries.

    Examples
    --------
    >>> [b.tolist() for b in gemini_bandwidth([2, 4, 9])][1:]
    [[75.0, 37.5, 75.0, 37.5], [120.0, 120.0, 120.0, 120.0, 120.0, 120.0, 120.0, 75.0, 120.0]]
    """
    dims = [int(d) for d in dims]
    if len(dims) != 3 or min(dims) < 1:
        raise InvalidInputError(f"dims: a Gemini torus has 3 positive lengths; got {dims}")
    x = np.full(dims[0], GEMINI_X_BW)
    y = np.where(np.arange(dims[1]) % 2 == 0, GEMINI_Y_MEZZANINE_BW, GEMINI_Y_CABLE_BW)
    z = np.where(np.arange(dims[2]) % 8 == 7, GEMINI_Z_CABLE_BW, GEMINI_Z_BACKPLANE_BW)
    return [x.astype(np.float64), y.astype(np.float64), z.astype(np.float64)]


#: Bytes per second of one unit of a machine's link bandwidth: bandwidths are in GB/s.
BANDWIDTH_UNIT = 1e9


@dataclass(frozen=True)
class LinkLoads:
    """Traffic on every directed link of a torus/mesh under dimension-order routing.

    Link id ``router * 2 * n_dims + 2 * k + s`` is the link leaving ``router`` along
    dimension ``k`` in the + (``s = 0``) or - (``s = 1``) direction.

    Attributes
    ----------
    data : (n_links,) ndarray of float64
        Data(e): the summed volume of messages crossing each link.
    messages : (n_links,) ndarray of int64
        Congestion(e): the number of messages crossing each link.
    bandwidth : (n_links,) ndarray of float64
        Bandwidth of each link (same unit as the machine's bandwidths).
    dim_names : list of str
        Names of the dimensions for per-direction summaries.
    """

    data: np.ndarray
    messages: np.ndarray
    bandwidth: np.ndarray
    dim_names: list

    @property
    def n_dims(self) -> int:
        """Number of network dimensions."""
        return len(self.dim_names)

    @property
    def latency(self) -> np.ndarray:
        """Latency(e) = Data(e) / bw(e) for every link."""
        return self.data / self.bandwidth

    @property
    def used(self) -> np.ndarray:
        """Boolean mask of the links crossed by at least one message."""
        return self.messages > 0

    def max_data(self) -> float:
        """Return Data(M), the largest volume on any link."""
        return float(self.data.max()) if self.data.size else 0.0

    def max_latency(self) -> float:
        """Return Latency(M) (max volume congestion, MC): the largest Data(e)/bw(e)."""
        return float(self.latency.max()) if self.data.size else 0.0

    def max_messages(self) -> int:
        """Return MMC, the largest number of messages on any link."""
        return int(self.messages.max()) if self.messages.size else 0

    def n_used(self) -> int:
        """Return the number of links crossed by at least one message."""
        return int(np.count_nonzero(self.messages))

    def average_messages(self) -> float:
        """Return AMC: total Congestion(e) over the links actually used."""
        used = self.n_used()
        return float(self.messages.sum()) / used if used else 0.0

    def average_latency(self) -> float:
        """Return AC: total Latency(e) over the links actually used."""
        used = self.n_used()
        return float(self.latency.sum()) / used if used else 0.0

    def by_direction(self) -> list[dict]:
        """Summarise the loads per dimension and direction (X+, X-, Y+, ...).

        Returns
        -------
        list of dict
            One record per (dimension, direction) with keys ``link`` (e.g. ``"X+"``),
            ``max_data``, ``total_data``, ``max_latency``, ``max_messages``, ``used_links``.
        """
        d = self.n_dims
        data = self.data.reshape(-1, d, 2)
        lat = self.latency.reshape(-1, d, 2)
        msg = self.messages.reshape(-1, d, 2)
        rows = []
        for k, name in enumerate(self.dim_names):
            for s, sign in enumerate("+-"):
                rows.append(
                    {
                        "link": f"{name}{sign}",
                        "max_data": float(data[:, k, s].max()),
                        "total_data": float(data[:, k, s].sum()),
                        "max_latency": float(lat[:, k, s].max()),
                        "max_messages": int(msg[:, k, s].max()),
                        "used_links": int(np.count_nonzero(msg[:, k, s])),
                    }
                )
        return rows


def _position_in_group(keys: np.ndarray) -> np.ndarray:
    """Position of every entry among the entries with the same key, in index order (intp)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))
    first = np.maximum.accumulate(np.where(starts, np.arange(keys.size), 0))
    out = np.empty(keys.size, dtype=np.intp)
    out[order] = np.arange(keys.size) - first
    return out


class NodeView:
    """The machine seen node by node (built by :meth:`Machine.node_view`, cached there).

    Node index ``i`` (0 .. n_nodes-1) is the ``i``-th smallest node id.  All arrays are
    read-only: the view is shared by every caller of :meth:`Machine.node_view`.

    Attributes
    ----------
    nodes : (n_nodes,) ndarray of intp
        Distinct node ids, ascending; node index ``i`` is node ``nodes[i]``.
    capacity : (n_nodes,) ndarray of int64
        Processors (cores) per node.
    proc_ptr : (n_nodes + 1,) ndarray of intp
    procs : (n_procs,) ndarray of intp
        The processors of node ``i`` are ``procs[proc_ptr[i]:proc_ptr[i+1]]``, ascending.
    node_of_proc : (n_procs,) ndarray of int64
        Node index of every processor.
    representative : (n_nodes,) ndarray of intp
        One processor per node (its lowest id), for node-to-node distances.
    slot_in_node : (n_procs,) ndarray of intp
        Position of every processor among the processors of its node (0, 1, ... in
        processor-id order): the logical core index of node-level files.
    node_router : (n_nodes,) ndarray of int64 or None
        On a :class:`TorusMachine`: the router id (:meth:`TorusMachine.router_ids`) of
        every node; None on other machines.
    router_ptr : (n_routers + 1,) ndarray of int64 or None
    router_nodes : (n_nodes,) ndarray of int64 or None
        On a :class:`TorusMachine`: the nodes on router ``r`` are
        ``router_nodes[router_ptr[r]:router_ptr[r+1]]``, ascending, for every router of
        the whole network; None on other machines.

    Examples
    --------
    >>> v = FlatMachine([5, 2, 5, 5]).node_view()
    >>> v.nodes.tolist(), v.capacity.tolist(), v.node_of_proc.tolist()
    ([2, 5], [1, 3], [1, 0, 1, 1])
    >>> v.hop_matrix().tolist()
    [[0, 1], [1, 0]]
    """

    def __init__(self, machine: "Machine") -> None:
        self._machine = machine
        order = np.argsort(machine.node_ids, kind="stable").astype(np.intp)
        nodes, counts = np.unique(machine.node_ids[order], return_counts=True)
        n = nodes.size
        self.nodes = nodes.astype(np.intp)
        self.capacity = counts.astype(np.int64)
        self.procs = order
        self.proc_ptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(counts, out=self.proc_ptr[1:])
        self.node_of_proc = np.empty(machine.n_procs, dtype=np.int64)
        self.node_of_proc[order] = np.repeat(np.arange(n, dtype=np.int64), counts)
        self.representative = order[self.proc_ptr[:-1]]
        self.slot_in_node = _position_in_group(machine.node_ids)
        self.node_router: np.ndarray | None = None
        self.router_ptr: np.ndarray | None = None
        self.router_nodes: np.ndarray | None = None
        self._hop_matrix: np.ndarray | None = None

    def _set_routers(self, router_of_proc: np.ndarray, n_routers: int) -> None:
        """Fill the router fields from the router id of every processor (torus machines)."""
        node_router = router_of_proc[self.representative].astype(np.int64)
        self.node_router = node_router
        self.router_nodes = np.argsort(node_router, kind="stable").astype(np.int64)
        self.router_ptr = np.zeros(n_routers + 1, dtype=np.int64)
        np.cumsum(np.bincount(node_router, minlength=n_routers), out=self.router_ptr[1:])

    def _freeze(self) -> "NodeView":
        for arr in (self.nodes, self.capacity, self.procs, self.proc_ptr, self.node_of_proc, self.representative,
                    self.slot_in_node, self.node_router, self.router_ptr, self.router_nodes):
            if arr is not None:
                arr.setflags(write=False)
        return self

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return int(self.nodes.size)

    def hop_matrix(self) -> np.ndarray:
        """Return the hop distance between every pair of nodes, (n_nodes, n_nodes) int32.

        Computed on first use from :meth:`Machine.hops` of the representatives and kept
        with the view (4 * n_nodes**2 bytes).

        Raises
        ------
        NotApplicableError
            When the machine has more than :data:`MAX_MATRIX_NODES` nodes (a limit of the
            methods that need the matrix; an :class:`InvalidInputError` too).
        """
        if self._hop_matrix is None:
            n = self.n_nodes
            if n > MAX_MATRIX_NODES:
                raise NotApplicableError(
                    f"machine: the node hop matrix of a {type(self._machine).__name__} is n x n and supports "
                    f"at most {MAX_MATRIX_NODES} nodes; got {n}"
                )
            rep = self.representative
            dist = self._machine.hops(np.repeat(rep, n), np.tile(rep, n)).reshape(n, n).astype(np.int32)
            dist.setflags(write=False)
            self._hop_matrix = dist
        return self._hop_matrix


@dataclass(frozen=True)
class BoxShape:
    """The box of a full box allocation (:meth:`TorusMachine.box_shape`).

    Every router of the box ``origin[k] <= c[k] < origin[k] + lengths[k]`` holds exactly
    ``cores`` processors and no processor is outside it.

    Attributes
    ----------
    origin : tuple of int
        Lowest router coordinate of the box in every dimension.
    lengths : tuple of int
        Routers of the box along every dimension.
    cores : int
        Processors per router.
    """

    origin: tuple
    lengths: tuple
    cores: int

    @property
    def n_routers(self) -> int:
        """Number of routers of the box."""
        return int(np.prod(self.lengths, dtype=np.int64))


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
        # the cached node view and link scratch are derived data: rebuilt after unpickling
        state = dict(self.__dict__)
        state.pop("_node_view", None)
        state.pop("_link_scratch", None)
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
        >>> [a.tolist() for a in FlatMachine([3, 1, 3]).node_capacity()]
        [[1, 3], [1, 2]]
        """
        view = self.node_view()
        return view.nodes, view.capacity

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

    # -- links ---------------------------------------------------------------------------
    @property
    def has_link_model(self) -> bool:
        """Whether the machine routes messages over links (:meth:`link_loads` works)."""
        return False

    def link_loads(self, indptr, indices, weights, task_to_proc) -> LinkLoads:
        """Return per-link loads of a CSR task graph under the machine's static routing.

        Raises
        ------
        InvalidInputError
            On a machine without a link model (:attr:`has_link_model` False).
        """
        raise InvalidInputError(
            f"machine: a {type(self).__name__} has no link model (has_link_model is False); link metrics "
            "need a machine with static routes, e.g. a TorusMachine or a PercsMachine"
        )

    def link_time(self, indptr, indices, weights, task_to_proc, *, seconds_per_weight: float,
                  hop_latency: float, overlap_weight: float = math.inf) -> tuple[float, int]:
        """Return the predicted seconds of one exchange and its slowest link id.

        The exchange sends every edge of the CSR task graph as one message, all at once;
        its time is set by the slowest link: max over links e of
        ``Data(e) * seconds_per_weight / bw(e) + R(e)``, where ``R(e)`` is the largest
        route latency of a message crossing e, and a message of weight ``w`` over ``h``
        hops has route latency ``hop_latency * h * min(1, overlap_weight / w)``
        (:func:`mpitaskmap.metrics.predicted_time`).  This generic form, for link models
        that do not track routes per link, bounds ``R(e)`` by the largest route latency of
        the exchange; a :class:`TorusMachine` computes ``R(e)`` exactly in one compiled pass.

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
        """
        loads = self.link_loads(indptr, indices, weights, task_to_proc)
        if not loads.messages.any():
            return 0.0, -1
        hops = self.csr_edge_hops(indptr, indices, task_to_proc).astype(np.float64)
        scale = np.minimum(1.0, overlap_weight / np.maximum(np.asarray(weights, dtype=np.float64), 1e-300))
        longest = float((hops * scale).max(initial=0.0))
        value = np.where(loads.messages > 0, loads.latency * seconds_per_weight, -np.inf)
        link = int(np.argmax(value))
        return float(value[link]) + hop_latency * longest, link

    # -- embedding -----------------------------------------------------------------------
    @abc.abstractmethod
    def geometric_coords(self) -> np.ndarray:
        """Return (n_procs, n_dims) float64 coordinates for geometric mapping."""


class TorusMachine(Machine):
    """Processors on an n-dimensional torus or mesh of routers.

    Parameters
    ----------
    router_coords : (n_procs, n_dims) array_like of int
        Router coordinate of every processor; ``0 <= router_coords[p, k] < dims[k]``.
        Several processors (cores, nodes) may share a router.  An int16, int32 or int64
        array is kept as given (no copy when C-contiguous; e.g. a read-only view of a
        shared-memory window) and the kernels read it in its type; other integer types
        widen to the narrowest of these holding them, lists and floats become int64.
    dims : sequence of int
        Length of every dimension of the whole network (not just the allocation).
    wrap : bool or sequence of bool, optional
        Whether each dimension wraps around (torus) or not (mesh).  Default True.
    node_ids : (n_procs,) array_like of int, optional
        Node of every processor.  Processors of one node must share a router.  Default:
        every processor is its own node.
    bandwidth : None, float, sequence, or ``"gemini"``, optional
        Link bandwidth.  None means 1.0 everywhere; a float applies to every link; a
        sequence gives one entry per dimension, each a float or an array of length
        ``dims[k]`` whose entry ``c`` is the bandwidth of the link between ``c`` and
        ``c + 1`` (mod length); ``"gemini"`` is the Cray Gemini pattern
        (:func:`gemini_bandwidth`).
    dim_names : sequence of str, optional
        Names used in per-direction summaries (default X, Y, Z or D0, D1, ...).
    name : str, optional
        Description used in reports.

    Raises
    ------
    InvalidInputError
        On non-integer or out-of-range coordinates (naming the processor and value),
        bad lengths, bandwidths that are not positive and finite, or processors of one
        node on different routers.

    Notes
    -----
    Hop distance: per dimension ``min(|a-b|, L-|a-b|)`` when it wraps, ``|a-b|`` otherwise;
    0 between processors on one router.  Routing: dimension order (0, 1, ...), on a
    wrapping dimension the shorter way round, the + direction on ties.

    Examples
    --------
    >>> m = TorusMachine([[0, 0], [3, 0], [1, 2]], dims=[4, 4])
    >>> m.hops([0, 0], [1, 2]).tolist()
    [1, 3]
    """

    name = "torus"

    def __init__(
        self,
        router_coords,
        dims: Sequence[int],
        *,
        wrap=True,
        node_ids=None,
        bandwidth=None,
        dim_names: Sequence[str] | None = None,
        name: str | None = None,
    ) -> None:
        dims_arr = np.asarray(dims)
        if dims_arr.ndim != 1 or dims_arr.size == 0:
            raise InvalidInputError(f"dims: expected a non-empty sequence of lengths; got {dims!r}")
        if dims_arr.dtype.kind not in "iu" or (dims_arr < 1).any():
            raise InvalidInputError(f"dims: lengths must be positive integers; got {list(dims_arr)}")
        self.dims = np.ascontiguousarray(dims_arr, dtype=np.int64)
        n_dims = self.dims.size
        coords = as_int_matrix(router_coords, "router_coords", n_cols=n_dims, keep_coord_dtype=True)
        if coords.shape[0] == 0:
            raise InvalidInputError("router_coords: a machine needs at least one processor; got 0 rows")
        bad = (coords < 0) | (coords >= self.dims[None, :])
        if bad.any():
            p, k = (int(i) for i in np.argwhere(bad)[0])
            raise InvalidInputError(
                f"router_coords: processor {p} has coordinate {int(coords[p, k])} in dimension {k}, "
                f"outside [0, {int(self.dims[k])})"
            )
        self.router_coords = coords
        super().__init__(coords.shape[0], node_ids, name)
        wrap_arr = np.broadcast_to(np.asarray(wrap, dtype=bool), (n_dims,))
        self.wrap = np.ascontiguousarray(wrap_arr, dtype=np.uint8)
        self.dim_names = list(dim_names) if dim_names is not None else default_dim_names(n_dims)
        if len(self.dim_names) != n_dims:
            raise InvalidInputError(f"dim_names: expected {n_dims} names; got {self.dim_names}")
        self.link_bandwidth = self._parse_bandwidth(bandwidth)
        self._check_nodes_share_router()

    # -- construction helpers -------------------------------------------------------
    def _parse_bandwidth(self, bandwidth) -> list[np.ndarray]:
        n_dims = self.dims.size
        if bandwidth is None:
            per_dim = [1.0] * n_dims
        elif isinstance(bandwidth, str):
            if bandwidth != "gemini":
                raise InvalidInputError(f"bandwidth: unknown pattern {bandwidth!r}; valid: ['gemini']")
            per_dim = gemini_bandwidth(self.dims)
        elif np.isscalar(bandwidth):
            per_dim = [float(bandwidth)] * n_dims
        else:
            per_dim = list(bandwidth)
            if len(per_dim) != n_dims:
                raise InvalidInputError(
                    f"bandwidth: expected one entry per dimension ({n_dims}); got {len(per_dim)}"
                )
        out = []
        for k, entry in enumerate(per_dim):
            arr = np.asarray(entry, dtype=np.float64)
            if arr.ndim == 0:
                arr = np.full(int(self.dims[k]), float(arr))
            if arr.shape != (int(self.dims[k]),):
                raise InvalidInputError(
                    f"bandwidth: dimension {k} needs a scalar or {int(self.dims[k])} values; "
                    f"got shape {arr.shape}"
                )
            bad = ~np.isfinite(arr) | (arr <= 0)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidInputError(
                    f"bandwidth: dimension {k} position {i} must be positive and finite; got {float(arr[i])!r}"
                )
            out.append(arr)
        return out

    def _check_nodes_share_router(self) -> None:
        order = np.argsort(self.node_ids, kind="stable")
        sorted_nodes = self.node_ids[order]
        same = sorted_nodes[1:] == sorted_nodes[:-1]
        if not same.any():
            return
        c = self.router_coords[order]
        differ = same & (c[1:] != c[:-1]).any(axis=1)
        if differ.any():
            i = int(np.flatnonzero(differ)[0])
            p, q = int(order[i]), int(order[i + 1])
            raise InvalidInputError(
                f"node_ids: processors {p} and {q} are on node {int(self.node_ids[p])} "
                f"but on different routers {self.router_coords[p].tolist()} and "
                f"{self.router_coords[q].tolist()}"
            )

    # -- basic properties -----------------------------------------------------------
    @property
    def n_dims(self) -> int:
        """Number of network dimensions."""
        return int(self.dims.size)

    @property
    def n_routers(self) -> int:
        """Number of routers of the whole network (allocated or not)."""
        return int(np.prod(self.dims, dtype=np.int64))

    @property
    def n_links(self) -> int:
        """Number of directed links in the numbering (2 per router and dimension)."""
        return self.n_routers * 2 * self.n_dims

    def router_ids(self) -> np.ndarray:
        """Return the linear router id (int64) of every processor (dimension 0 fastest, :func:`strides`)."""
        return self.router_coords @ strides(self.dims)  # int64 strides: int64 products whatever the coordinates' type

    def _build_node_view(self) -> NodeView:
        view = NodeView(self)
        view._set_routers(self.router_ids(), self.n_routers)
        return view

    # -- processors by router ---------------------------------------------------------
    def router_slots(self) -> np.ndarray:
        """Return the slot of every processor on its router (0, 1, ... in processor-id order).

        The slot is the core coordinate of Blue Gene map files (BG/P ``T``, BG/Q ``T``),
        of CSV mapping files and of Rubik boxes with one more dimension than the machine.

        Returns
        -------
        (n_procs,) ndarray of intp
            Position of each processor among the processors that share its router.

        Examples
        --------
        >>> TorusMachine([[1], [0], [1], [1]], dims=[2]).router_slots().tolist()
        [0, 0, 1, 2]
        """
        return _position_in_group(self.router_ids())

    def procs_at(self, coords) -> tuple[np.ndarray, np.ndarray]:
        """Return the processor at every row of router coordinates plus slot, and whether there is one.

        Parameters
        ----------
        coords : (n, n_dims + 1) or (n, n_dims) array_like of int
            Router coordinates then the slot (:meth:`router_slots`); without the slot
            column, slot 0.

        Returns
        -------
        procs : (n,) ndarray of intp
            Processor at each row (meaningless where ``found`` is False).
        found : (n,) ndarray of bool
            Whether the row names a processor of the machine (coordinates inside the
            network, a router of the allocation, a slot it has).

        Raises
        ------
        InvalidInputError
            If ``coords`` is not a 2-D integer array with ``n_dims`` or ``n_dims + 1`` columns.

        Notes
        -----
        O((n + n_procs) log n_procs): a binary search over the sorted (router, slot) keys.

        Examples
        --------
        >>> m = TorusMachine([[1], [0], [1]], dims=[3])
        >>> procs, found = m.procs_at([[1, 1], [0, 0], [2, 0], [0, 1]])
        >>> found.tolist(), procs[found].tolist()
        ([True, True, False, False], [2, 1])
        """
        arr = np.asarray(coords)
        d = self.n_dims
        if arr.ndim != 2 or (arr.size and arr.dtype.kind not in "iu") or arr.shape[1] not in (d, d + 1):
            raise InvalidInputError(
                f"coords: expected {d + 1} columns (router coordinates of a {d}-D machine, then the "
                f"slot) or {d} (slot 0), of integers; got shape {arr.shape}, dtype {arr.dtype}"
            )
        arr = arr.astype(np.int64)
        slot = arr[:, d] if arr.shape[1] == d + 1 else np.zeros(arr.shape[0], dtype=np.int64)
        router = arr[:, :d]
        bad = ((router < 0) | (router >= self.dims[None, :])).any(axis=1) | (slot < 0)
        proc_slots = self.router_slots().astype(np.int64)
        width = int(proc_slots.max()) + 1
        proc_keys = self.router_ids() * width + proc_slots
        order = np.argsort(proc_keys, kind="stable")
        sorted_keys = proc_keys[order]
        keys = np.where(bad, -1, (np.clip(router, 0, None) @ strides(self.dims)) * width + np.minimum(slot, width))
        pos = np.clip(np.searchsorted(sorted_keys, keys), 0, sorted_keys.size - 1)
        found = ~bad & (slot < width) & (sorted_keys[pos] == keys)
        return order[pos].astype(np.intp), found

    def neighbors(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the processors on the same router or one hop away from each processor, as CSR.

        Returns
        -------
        indptr : (n_procs + 1,) ndarray of intp
        indices : ndarray of intp
            Neighbours of processor ``p`` are ``indices[indptr[p]:indptr[p+1]]`` (itself
            excluded), ascending.

        Notes
        -----
        One hop: a router whose coordinate differs by 1 in one dimension (across the wrap
        link on a wrapping dimension).  O(n_dims * n_procs * procs per router).

        Examples
        --------
        >>> ptr, idx = TorusMachine([[0], [1], [2]], dims=[3], wrap=False).neighbors()
        >>> idx[ptr[1]:ptr[2]].tolist(), idx[ptr[0]:ptr[1]].tolist()
        ([0, 2], [1])
        """
        n = self.n_procs
        rid = self.router_ids()
        order = np.lexsort((np.arange(n), rid))
        routers, start, count = np.unique(rid[order], return_index=True, return_counts=True)
        dims = self.dims
        step = strides(dims)
        src_all, dst_all = [], []
        offsets = [(None, 0)] + [(k, s) for k in range(self.n_dims) for s in (-1, 1)]
        for k, s in offsets:
            if k is None:
                nb = rid
                ok = np.ones(n, dtype=bool)
            else:
                ck = self.router_coords[:, k].astype(np.int64)  # c + 1 may overflow a narrow type
                c = ck + s
                if self.wrap[k]:
                    ok = np.ones(n, dtype=bool)
                    c = c % dims[k]
                else:
                    ok = (c >= 0) & (c < dims[k])
                nb = rid + (c - ck) * step[k]
            pos = np.minimum(np.searchsorted(routers, nb), routers.size - 1)
            ok &= routers[pos] == nb
            p = np.flatnonzero(ok)
            cnt = count[pos[p]]
            src = np.repeat(p, cnt)
            first = np.repeat(start[pos[p]], cnt)
            within = np.arange(src.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            dst = order[first + within]
            keep = dst != src
            src_all.append(src[keep])
            dst_all.append(dst[keep])
        src = np.concatenate(src_all)
        dst = np.concatenate(dst_all)
        key = np.unique(src.astype(np.int64) * n + dst)
        src, dst = key // n, key % n
        indptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
        return indptr, dst.astype(np.intp)

    def box_shape(self) -> BoxShape:
        """Return the box of a full box allocation.

        Returns
        -------
        BoxShape
            Lowest router coordinates, box lengths and processors per router.

        Raises
        ------
        InvalidInputError
            If the allocated routers do not fill their bounding box, or hold different
            numbers of processors.

        Examples
        --------
        >>> TorusMachine([[1, 2], [2, 2], [1, 2], [2, 2]], dims=[4, 4]).box_shape()
        BoxShape(origin=(1, 2), lengths=(2, 1), cores=2)
        """
        rc = self.router_coords
        lo = rc.min(axis=0).astype(np.int64)  # int64 arithmetic whatever the coordinates' type
        ext = rc.max(axis=0) - lo + 1
        n_box = int(np.prod(ext, dtype=np.int64))
        counts = np.bincount((rc - lo) @ strides(ext), minlength=n_box)
        cores = self.n_procs // n_box
        if cores * n_box != self.n_procs or (counts != cores).any():
            raise NotApplicableError(
                "machine: the allocation is not a full box of routers with the same number of processors "
                f"on each; got {self.n_procs} processors on {int(np.count_nonzero(counts))} of the "
                f"{n_box} routers of the box {'x'.join(map(str, ext.tolist()))}"
            )
        return BoxShape(origin=tuple(int(v) for v in lo), lengths=tuple(int(v) for v in ext), cores=int(cores))

    def geometric_coords(self) -> np.ndarray:
        """Return the router coordinates as float64, for geometric mapping."""
        return self.router_coords.astype(np.float64)

    def __repr__(self) -> str:
        wraps = "".join("T" if w else "M" for w in self.wrap)
        return (
            f"TorusMachine(name={self.name!r}, n_procs={self.n_procs}, n_nodes={self.n_nodes}, "
            f"dims={self.dims.tolist()}, wrap={wraps})"
        )

    # -- distance and routing -------------------------------------------------------
    def hops(self, src, dst) -> np.ndarray:
        """Return the hop distance between processors ``src[i]`` and ``dst[i]``.

        Parameters
        ----------
        src, dst : (n,) array_like of int
            Processor ids.

        Returns
        -------
        (n,) ndarray of int64
            Shortest-path hops between the routers of the two processors.

        Notes
        -----
        O(n * n_dims), in a compiled kernel.
        """
        src = as_index_array(np.atleast_1d(src), "src", upper=self.n_procs)
        dst = as_index_array(np.atleast_1d(dst), "dst", upper=self.n_procs, length=src.shape[0])
        out = np.empty(src.shape[0], dtype=np.int64)
        _torus.hops_pairs(self.router_coords, self.dims, self.wrap, src, dst, out)
        return out

    def csr_hop_sums(self, indptr, indices, weights, task_to_proc) -> tuple[int, float, int]:
        """Return (TotalHops, WeightedHops, max hops) over the directed edges of a CSR graph.

        Inputs are trusted (validated by :class:`~mpitaskmap.taskgraph.TaskGraph` and the
        metric functions).  O(n_edges * n_dims), one pass, no temporaries.
        """
        total, weighted, hmax = _torus.csr_hop_sums(
            indptr, indices, weights, task_to_proc, self.router_coords, self.dims, self.wrap
        )
        return int(total), float(weighted), int(hmax)

    def csr_edge_hops(self, indptr, indices, task_to_proc) -> np.ndarray:
        """Return the hop count of every directed edge of a CSR graph (CSR order)."""
        out = np.empty(indices.shape[0], dtype=np.int64)
        _torus.csr_edge_hops(indptr, indices, task_to_proc, self.router_coords, self.dims, self.wrap, out)
        return out

    def route(self, src: int, dst: int) -> list[tuple[str, int]]:
        """Return the dimension-order route from processor ``src`` to ``dst``.

        Parameters
        ----------
        src, dst : int
            Processor ids.

        Returns
        -------
        list of (str, int)
            The directed links crossed, in order, as (``"X+"``-style name, link id).

        Examples
        --------
        >>> m = TorusMachine([[0, 0], [3, 1]], dims=[4, 4])
        >>> [name for name, _ in m.route(0, 1)]
        ['X-', 'Y+']
        """
        src_i = int(as_index_array([src], "src", upper=self.n_procs)[0])
        dst_i = int(as_index_array([dst], "dst", upper=self.n_procs)[0])
        links = _torus.route_links(self.router_coords, self.dims, self.wrap, src_i, dst_i)
        d = self.n_dims
        return [(f"{self.dim_names[(l % (2 * d)) // 2]}{'+-'[l % 2]}", int(l)) for l in links]

    def routes(self, src, dst) -> tuple[np.ndarray, np.ndarray]:
        """Return the dimension-order routes ``src[i] -> dst[i]`` of many processor pairs.

        Parameters
        ----------
        src, dst : array_like of int
            Processor ids, one pair per entry.

        Returns
        -------
        (indptr, links) : (ndarray, ndarray)
            CSR form, int64: the directed link ids of route ``i`` (as :meth:`route`) are
            ``links[indptr[i]:indptr[i + 1]]``; an empty route joins processors of one router.

        Notes
        -----
        O(pairs x n_dims + total hops), in the routing kernel.

        Examples
        --------
        >>> m = TorusMachine([[0, 0], [3, 1], [1, 0]], dims=[4, 4])
        >>> indptr, links = m.routes([0, 0], [1, 2])
        >>> indptr.tolist(), links.tolist() == [l for _, l in m.route(0, 1) + m.route(0, 2)]
        ([0, 2, 3], True)
        """
        src_i = as_index_array(src, "src", upper=self.n_procs)
        dst_i = as_index_array(dst, "dst", upper=self.n_procs)
        if src_i.shape != dst_i.shape:
            raise InvalidInputError(f"routes: src has {src_i.size} entries, dst {dst_i.size}")
        return _torus.routes_csr(self.router_coords, self.dims, self.wrap, src_i, dst_i)

    def link_bandwidths(self) -> np.ndarray:
        """Return the bandwidth of every directed link id (n_links,) float64.

        The - link leaving coordinate ``c`` is the same cable as the + link leaving
        ``c - 1``, so it has that link's bandwidth.
        """
        d = self.n_dims
        out = np.empty((self.n_routers, d, 2), dtype=np.float64)
        r = np.arange(self.n_routers, dtype=np.int64)
        for k, stride in enumerate(strides(self.dims)):
            c = (r // stride) % self.dims[k]  # coordinate of router r in dimension k
            bw = self.link_bandwidth[k]
            out[:, k, 0] = bw[c]
            out[:, k, 1] = bw[(c - 1) % self.dims[k]]
        return out.reshape(-1)

    @property
    def has_link_model(self) -> bool:
        """True: dimension-order routing gives every message its links (:meth:`link_loads`)."""
        return True

    def link_loads(self, indptr, indices, weights, task_to_proc) -> LinkLoads:
        """Return Data(e) and Congestion(e) of every directed link (dimension-order routes).

        Inputs are trusted (validated by the metric functions).  Memory: three arrays of
        ``n_links`` 8-byte values.  O(n_edges * n_dims + total hops) in a compiled kernel.
        """
        data = np.zeros(self.n_links, dtype=np.float64)
        messages = np.zeros(self.n_links, dtype=np.int64)
        _torus.csr_link_loads(
            indptr, indices, weights, task_to_proc, self.router_coords, self.dims, self.wrap, data, messages
        )
        return LinkLoads(data=data, messages=messages, bandwidth=self.link_bandwidths(), dim_names=self.dim_names)

    def link_time(self, indptr, indices, weights, task_to_proc, *, seconds_per_weight: float,
                  hop_latency: float, overlap_weight: float = math.inf) -> tuple[float, int]:
        """Return the predicted seconds of one exchange and its slowest link id (exact ``R(e)``).

        See :meth:`Machine.link_time`.  One compiled pass over the edges; 16 bytes of scratch
        per directed link, kept on the machine; about 1.9x the cost of weighted hops on a
        1M-task stencil (``benchmarks/metrics_speed.py``).
        """
        width = int(self.dims.max())
        inv_bw = np.zeros((self.n_dims, width), dtype=np.float64)
        for k, bw in enumerate(self.link_bandwidth):
            inv_bw[k, : bw.size] = 1.0 / bw
        # the per-link scratch (16 bytes a link) is kept: a search scores many candidates on
        # one machine; epoch tags spare clearing it (fresh pages or a memset cost a fifth of a call)
        with _LINK_SCRATCH_LOCK:
            scratch = self.__dict__.get("_link_scratch")
            if scratch is None or scratch[1] >= 0xFFFF:
                scratch = [np.zeros((self.n_links, 2), dtype=np.float64), 0]
                self._link_scratch = scratch
            scratch[1] += 1
            return _torus.csr_link_time(indptr, indices, weights, task_to_proc, self.router_coords, self.dims,
                                        self.wrap, inv_bw, float(seconds_per_weight), float(hop_latency),
                                        float(overlap_weight), scratch[0], scratch[1])


class FlatMachine(Machine):
    """Processors grouped into nodes, with no network coordinates.

    Hop distance is 0 between processors of one node and ``inter_node_hops`` (default 1)
    between processors of different nodes: the model of a cluster whose only known
    topology is "same host or not" (the ``hostname`` provider).  It has no link model.

    Parameters
    ----------
    node_ids : (n_procs,) array_like of int
        Node of every processor.
    inter_node_hops : int, optional
        Distance between different nodes (default 1).
    name : str, optional
        Description used in reports.

    Examples
    --------
    >>> m = FlatMachine([0, 0, 1, 2])
    >>> m.hops([0, 0, 0], [1, 2, 3]).tolist()
    [0, 1, 1]
    """

    name = "flat"

    def __init__(self, node_ids, *, inter_node_hops: int = 1, name: str | None = None) -> None:
        node_ids = np.asarray(node_ids)
        super().__init__(node_ids.shape[0] if node_ids.ndim == 1 else -1, node_ids, name)
        self.inter_node_hops = int(inter_node_hops)

    def hops(self, src, dst) -> np.ndarray:
        """Return 0 for processors on one node, ``inter_node_hops`` otherwise."""
        src = as_index_array(np.atleast_1d(src), "src", upper=self.n_procs)
        dst = as_index_array(np.atleast_1d(dst), "dst", upper=self.n_procs, length=src.shape[0])
        return np.where(self.node_ids[src] == self.node_ids[dst], 0, self.inter_node_hops).astype(np.int64)

    def geometric_coords(self) -> np.ndarray:
        """Return the node id as a 1-D embedding for geometric mapping.

        Distances along it mean nothing; it only keeps the processors of one node
        together, which is all this model knows.
        """
        return self.node_ids.astype(np.float64)[:, None]
