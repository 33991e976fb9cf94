"""The machine model: allocated processors and the network that joins them.

A :class:`Machine` is the set of processors (MPI ranks / cores) of one allocation.  Row
``p`` is processor ``p``; it has a node id (cores of one node share it) and a place in the
network.  :class:`TorusMachine` is the n-dimensional torus/mesh model used by Cray Gemini,
IBM Blue Gene and most simulated machines: router coordinates per processor, per-dimension
lengths and wrap flags, and link bandwidths per dimension or per link position.

This module is the one home of hop distance and of static routing in the library: metrics,
mappers and benchmarks call :meth:`Machine.hops`, :meth:`Machine.csr_hop_sums` and
:meth:`Machine.link_loads` and never re-implement them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import _torus
from ._validate import as_index_array, as_int_matrix
from .errors import InvalidInputError

__all__ = ["Machine", "TorusMachine", "FlatMachine", "LinkLoads", "gemini_bandwidth", "default_dim_names"]

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


class Machine:
    """Processors of one allocation and the distance between them (abstract base).

    Subclasses provide :meth:`hops`, :meth:`csr_hop_sums` and :meth:`geometric_coords`;
    link metrics are available where the subclass provides :meth:`link_loads`.

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

    @property
    def n_nodes(self) -> int:
        """Number of distinct nodes."""
        return int(np.unique(self.node_ids).size)

    def node_capacity(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the distinct node ids and the number of processors on each.

        Returns
        -------
        nodes : (n_nodes,) ndarray of intp
            Sorted distinct node ids.
        counts : (n_nodes,) ndarray of intp
            Processors (cores) per node.
        """
        nodes, counts = np.unique(self.node_ids, return_counts=True)
        return nodes, counts.astype(np.intp)

    def hops(self, src, dst) -> np.ndarray:
        """Return the hop distance between processors ``src[i]`` and ``dst[i]``."""
        raise NotImplementedError(f"{type(self).__name__} does not define hops")

    def csr_hop_sums(self, indptr, indices, weights, task_to_proc) -> tuple[int, float, int]:
        """Return (TotalHops, WeightedHops, max hops) over the edges of a CSR task graph."""
        raise NotImplementedError(f"{type(self).__name__} does not define csr_hop_sums")

    def csr_edge_hops(self, indptr, indices, task_to_proc) -> np.ndarray:
        """Return the hop count of every directed edge of a CSR task graph (CSR order)."""
        raise NotImplementedError(f"{type(self).__name__} does not define csr_edge_hops")

    def link_loads(self, indptr, indices, weights, task_to_proc) -> LinkLoads:
        """Return per-link loads of a CSR task graph under the machine's static routing."""
        raise NotImplementedError(f"{type(self).__name__} has no link model")

    def geometric_coords(self) -> np.ndarray:
        """Return (n_procs, n_dims) float64 coordinates for geometric mapping."""
        raise NotImplementedError(f"{type(self).__name__} has no coordinate embedding")


class TorusMachine(Machine):
    """Processors on an n-dimensional torus or mesh of routers.

    Parameters
    ----------
    router_coords : (n_procs, n_dims) array_like of int
        Router coordinate of every processor; ``0 <= router_coords[p, k] < dims[k]``.
        Several processors (cores, nodes) may share a router.
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
        coords = as_int_matrix(router_coords, "router_coords", n_cols=n_dims)
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
        """Return the linear router id of every processor (dimension 0 fastest)."""
        strides = np.concatenate(([1], np.cumprod(self.dims[:-1]))).astype(np.int64)
        return self.router_coords @ strides

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

    def link_bandwidths(self) -> np.ndarray:
        """Return the bandwidth of every directed link id (n_links,) float64.

        The - link leaving coordinate ``c`` is the same cable as the + link leaving
        ``c - 1``, so it has that link's bandwidth.
        """
        d = self.n_dims
        out = np.empty((self.n_routers, d, 2), dtype=np.float64)
        # Router r has coordinate (r // stride_k) % dims_k in dimension k.
        r = np.arange(self.n_routers, dtype=np.int64)
        stride = 1
        for k in range(d):
            c = (r // stride) % self.dims[k]
            bw = self.link_bandwidth[k]
            out[:, k, 0] = bw[c]
            out[:, k, 1] = bw[(c - 1) % self.dims[k]]
            stride *= int(self.dims[k])
        return out.reshape(-1)

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

    def csr_edge_hops(self, indptr, indices, task_to_proc) -> np.ndarray:
        """Return the hop count of every directed edge of a CSR graph (CSR order)."""
        node = self.node_ids[task_to_proc]
        src = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
        return np.where(node[src] == node[indices], 0, self.inter_node_hops).astype(np.int64)

    def csr_hop_sums(self, indptr, indices, weights, task_to_proc) -> tuple[int, float, int]:
        """Return (TotalHops, WeightedHops, max hops) over the directed edges of a CSR graph."""
        h = self.csr_edge_hops(indptr, indices, task_to_proc)
        return int(h.sum()), float(h @ weights), int(h.max()) if h.size else 0

    def geometric_coords(self) -> np.ndarray:
        """Return the node id as a 1-D embedding for geometric mapping.

        Distances along it mean nothing; it only keeps the processors of one node
        together, which is all this model knows.
        """
        return self.node_ids.astype(np.float64)[:, None]
