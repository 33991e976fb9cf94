"""Tori and meshes of routers in n dimensions: Cray Gemini, IBM Blue Gene, Fujitsu Tofu.

:class:`TorusMachine` keeps router coordinates per processor, per-dimension lengths and
wrap flags, and link bandwidths per dimension or per link position; it routes in dimension
order, with compiled kernels (``cext/_torus.pyx``) as the fast paths of the base's
contract.  It also has the views that only a torus has:

* :meth:`TorusMachine.router_slots`, :meth:`TorusMachine.procs_at` - processors by
  (router coordinates, slot);
* :meth:`TorusMachine.neighbors` - processors on the same router or one hop away;
* :meth:`TorusMachine.box_shape` - the box of a full box allocation (:class:`BoxShape`).
"""

from __future__ import annotations

import math
import threading
from typing import Sequence

import numpy as np

from ... import _torus
from ..._validate import as_index_array, as_int_matrix
from ...errors import InvalidInputError, NotApplicableError
from ..base import Machine
from ..links import LinkLoads, Routes
from ..views import BoxShape, NodeView, _position_in_group, default_dim_names, strides

__all__ = ["TorusMachine", "gemini_bandwidth"]

#: Serialises the compiled link-time pass, which fills a machine's kept per-link scratch.
_LINK_SCRATCH_LOCK = threading.Lock()

GEMINI_X_BW = 75.0
GEMINI_Y_MEZZANINE_BW = 75.0
GEMINI_Y_CABLE_BW = 37.5
GEMINI_Z_BACKPLANE_BW = 120.0
GEMINI_Z_CABLE_BW = 75.0



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

        Inputs are trusted (validated by :class:`~mpitaskmap.graphs.taskgraph.TaskGraph` and the
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

    def routes(self, src, dst) -> Routes:
        """Return the dimension-order routes ``src[i] -> dst[i]`` of many processor pairs.

        Parameters
        ----------
        src, dst : array_like of int
            Processor ids, one pair per entry.

        Returns
        -------
        Routes
            CSR form: the directed link ids of route ``i`` in path order are
            ``links[indptr[i]:indptr[i + 1]]``, every fraction 1.0 (one path); an empty
            route joins processors of one router.

        Notes
        -----
        Dimension order (0, 1, ...), on a wrapping dimension the shorter way round, the +
        direction on ties.  O(pairs x n_dims + total hops), in the routing kernel.

        Examples
        --------
        >>> m = TorusMachine([[0, 0], [3, 1], [1, 0]], dims=[4, 4])
        >>> r = m.routes([0, 0], [1, 2])
        >>> r.indptr.tolist(), r.links.tolist(), r.fractions.tolist()
        ([0, 2, 3], [1, 14, 0], [1.0, 1.0, 1.0])
        """
        src_i, dst_i = self._checked_pairs(src, dst)
        indptr, links = _torus.routes_csr(self.router_coords, self.dims, self.wrap, src_i, dst_i)
        return Routes(indptr, links, np.ones(links.size))

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
    def has_router_grid(self) -> bool:
        """True: the routers sit on the grid of :attr:`dims` with wraps :attr:`wrap`."""
        return True

    def link_classes(self) -> tuple[np.ndarray, tuple]:
        """Return the class of every link: its dimension and direction (``X+``, ``X-``, ``Y+``, ...).

        Link id ``router * 2 * n_dims + 2 * k + s`` leaves ``router`` along dimension ``k``
        in the + (``s = 0``) or - (``s = 1``) direction; its class is ``2 * k + s``.

        Examples
        --------
        >>> codes, names = TorusMachine([[0, 0]], dims=[2, 3]).link_classes()
        >>> codes[:5].tolist(), names
        ([0, 1, 2, 3, 0], ('X+', 'X-', 'Y+', 'Y-'))

        Notes
        -----
        The codes are built once and kept on the machine, read-only, one byte a link (up to
        127 dimensions; two bytes beyond): every link-load call returns them.
        """
        codes = self.__dict__.get("_link_class_codes")
        if codes is None:
            two_d = 2 * self.n_dims
            codes = np.tile(np.arange(two_d, dtype=np.uint8 if two_d <= 255 else np.uint16), self.n_routers)
            codes.setflags(write=False)
            self._link_class_codes = codes
        return codes, tuple(f"{name}{sign}" for name in self.dim_names for sign in "+-")

    def link_loads(self, indptr, indices, weights, task_to_proc) -> LinkLoads:
        """Return Data(e) and Congestion(e) of every directed link (dimension-order routes).

        The fused fast path of :meth:`Machine.link_loads` (same result).  Inputs are trusted
        (validated by the metric functions).  Memory: three arrays of ``n_links`` 8-byte
        values, plus the class codes kept on the machine (one byte a link, built on the first
        call).  O(n_edges * n_dims + total hops) in a compiled kernel.
        """
        data = np.zeros(self.n_links, dtype=np.float64)
        messages = np.zeros(self.n_links, dtype=np.int64)
        _torus.csr_link_loads(
            indptr, indices, weights, task_to_proc, self.router_coords, self.dims, self.wrap, data, messages
        )
        codes, names = self.link_classes()
        return LinkLoads(data=data, messages=messages, bandwidth=self.link_bandwidths(), link_class=codes,
                         class_names=names)

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


