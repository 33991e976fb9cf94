"""Task communication graphs: tasks, optional coordinates and weighted directed edges (CSR).

Edge ``(t, u)`` with weight ``w`` means task ``t`` sends ``w`` (bytes, or any volume unit)
to task ``u``.  A symmetric exchange stores both directions.  Rows are sorted by
destination and duplicate edges are merged by summing their weights, so every graph has one
canonical CSR form whatever order its edges were given in.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from .._validate import as_float_matrix, as_index_array, as_weights
from ..errors import InvalidInputError
from ..machines.views import strides
from .graph_files import read_graph_edges

__all__ = ["TaskGraph", "stencil_offsets"]


def stencil_offsets(n_dims: int, points: int) -> np.ndarray:
    """Return the neighbour offsets of an n-D stencil.

    Parameters
    ----------
    n_dims : int
        Grid dimension count (1 or more).
    points : int
        Stencil size including the centre: ``2 * n_dims + 1`` (faces only: 5-point in 2-D,
        7-point in 3-D) or ``3 ** n_dims`` (faces, edges and corners: 9-point, 27-point).

    Returns
    -------
    (points - 1, n_dims) ndarray of int64
        Offsets in lexicographic order, the centre excluded.

    Raises
    ------
    InvalidInputError
        If ``points`` is neither ``2 * n_dims + 1`` nor ``3 ** n_dims``.

    Examples
    --------
    >>> stencil_offsets(2, 5).tolist()
    [[-1, 0], [0, -1], [0, 1], [1, 0]]
    """
    if n_dims < 1:
        raise InvalidInputError(f"n_dims: a stencil needs at least one dimension; got {n_dims}")
    full = np.array(list(itertools.product((-1, 0, 1), repeat=n_dims)), dtype=np.int64)
    full = full[np.abs(full).sum(axis=1) > 0]
    if points == 3**n_dims:
        return full
    if points == 2 * n_dims + 1:
        return full[np.abs(full).sum(axis=1) == 1]
    raise InvalidInputError(
        f"points: a {n_dims}-D stencil has {2 * n_dims + 1} or {3 ** n_dims} points; got {points}"
    )


class TaskGraph:
    """A directed, weighted task communication graph in CSR form.

    Parameters
    ----------
    indptr : (n_tasks + 1,) array_like of int
        Row pointers: the out-edges of task ``t`` are ``indptr[t]:indptr[t+1]``.
    indices : (n_edges,) array_like of int
        Destination task of every edge.
    weights : (n_edges,) array_like of float, optional
        Volume of every edge (default 1.0); finite and non-negative.
    coords : (n_tasks, n_dims) array_like of float, optional
        Task coordinates (e.g. the centre of each task's subdomain) for geometric mapping.
    sized : bool, optional
        Whether the weights are message volumes (:attr:`sized`).  Default: whether
        ``weights`` was given.

    Attributes
    ----------
    sized : bool
        False when the graph says who talks to whom but not how much: built without
        weights (every edge 1.0), as ``stencil()`` without ``weight``, a ``pattern`` Matrix
        Market file or ``remap()`` without weights.  The search's default objective and
        judge then assume messages of
        :data:`~mpitaskmap.metrics.UNSIZED_BYTES_PER_WEIGHT` bytes per unit weight
        (:func:`~mpitaskmap.metrics.message_model_for`) instead of one byte: at one byte a
        message costs only its hops' latency, and the search would not see contention.

    Raises
    ------
    InvalidInputError
        On malformed CSR arrays, destinations naming missing tasks, negative or non-finite
        weights, or coordinates of the wrong shape or with NaN/inf.

    Notes
    -----
    The constructor keeps the CSR as given; the ``from_*`` constructors build the
    canonical form (rows sorted, duplicates summed).

    Examples
    --------
    >>> g = TaskGraph.from_edges([0, 1], [1, 0], [2.0, 3.0], n_tasks=2)
    >>> g.indptr.tolist(), g.indices.tolist(), g.weights.tolist()
    ([0, 1, 2], [1, 0], [2.0, 3.0])
    """

    def __init__(self, indptr, indices, weights=None, *, coords=None, sized: bool | None = None) -> None:
        indptr = np.asarray(indptr)
        if indptr.ndim != 1 or indptr.shape[0] < 2:
            raise InvalidInputError(
                f"indptr: expected a 1-D array of n_tasks + 1 >= 2 entries; got shape {indptr.shape}"
            )
        n_tasks = indptr.shape[0] - 1
        indices = np.asarray(indices)
        n_edges = indices.shape[0] if indices.ndim == 1 else -1
        if indptr.dtype.kind not in "iu":
            raise InvalidInputError(f"indptr: expected integers; got dtype {indptr.dtype}")
        if indptr[0] != 0 or indptr[-1] != n_edges:
            raise InvalidInputError(
                f"indptr: must start at 0 and end at len(indices) = {n_edges}; "
                f"got {int(indptr[0])} .. {int(indptr[-1])}"
            )
        dec = np.flatnonzero(np.diff(indptr) < 0)
        if dec.size:
            i = int(dec[0])
            raise InvalidInputError(
                f"indptr: must be non-decreasing; entry {i + 1} is {int(indptr[i + 1])} < {int(indptr[i])}"
            )
        indptr = np.ascontiguousarray(indptr, dtype=np.intp)
        self.indptr = indptr
        self.indices = as_index_array(indices, "indices (edge destinations)", upper=n_tasks)
        self.weights = (
            np.ones(n_edges, dtype=np.float64) if weights is None else as_weights(weights, "weights", n_edges)
        )
        self.sized = weights is not None if sized is None else bool(sized)
        self.coords = None
        if coords is not None:
            self.coords = as_float_matrix(coords, "coords", allow_1d=True)
            if self.coords.shape[0] != n_tasks:
                raise InvalidInputError(
                    f"coords: expected one row per task ({n_tasks}); got {self.coords.shape[0]}"
                )

    # -- properties -------------------------------------------------------------------
    @property
    def n_tasks(self) -> int:
        """Number of tasks."""
        return int(self.indptr.shape[0] - 1)

    @property
    def n_edges(self) -> int:
        """Number of directed edges."""
        return int(self.indices.shape[0])

    def sources(self) -> np.ndarray:
        """Return the source task of every edge (n_edges,) intp, in CSR order."""
        return np.repeat(np.arange(self.n_tasks, dtype=np.intp), np.diff(self.indptr))

    def volumes(self) -> np.ndarray:
        """Return send + receive volume of every task (n_tasks,) float64."""
        send = np.bincount(self.sources(), weights=self.weights, minlength=self.n_tasks)
        recv = np.bincount(self.indices, weights=self.weights, minlength=self.n_tasks)
        return send + recv

    def is_symmetric(self) -> bool:
        """Return True when every edge (t, u, w) has its reverse (u, t, w)."""
        fwd = self._edge_keys(self.sources(), self.indices)
        rev = self._edge_keys(self.indices, self.sources())
        o1, o2 = np.argsort(fwd, kind="stable"), np.argsort(rev, kind="stable")
        return bool(np.array_equal(fwd[o1], rev[o2]) and np.array_equal(self.weights[o1], self.weights[o2]))

    def _edge_keys(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        return src.astype(np.int64) * self.n_tasks + dst.astype(np.int64)

    def with_coords(self, coords) -> "TaskGraph":
        """Return a copy of the graph with task coordinates attached (sized as this one)."""
        return TaskGraph(self.indptr, self.indices, self.weights, coords=coords, sized=self.sized)

    def __repr__(self) -> str:
        dims = "none" if self.coords is None else str(self.coords.shape[1])
        return f"TaskGraph(n_tasks={self.n_tasks}, n_edges={self.n_edges}, coord_dims={dims})"

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def from_edges(cls, src, dst, weights=None, *, n_tasks: int, coords=None) -> "TaskGraph":
        """Build the canonical CSR from an edge list.

        Parameters
        ----------
        src, dst : (n_edges,) array_like of int
            Sending and receiving task of every edge, in ``[0, n_tasks)``.
        weights : (n_edges,) array_like of float, optional
            Volumes, finite and non-negative.  Default: 1.0 each, and the graph is not
            :attr:`sized`.
        n_tasks : int
            Number of tasks (tasks without edges are allowed).
        coords : (n_tasks, n_dims) array_like of float, optional
            Task coordinates.

        Returns
        -------
        TaskGraph
            Rows sorted by destination; duplicate (src, dst) pairs merged by summing.

        Raises
        ------
        InvalidInputError
            On an edge naming a missing task, negative weights, or mismatched lengths.

        Notes
        -----
        O(n_edges log n_edges).
        """
        if int(n_tasks) < 1:
            raise InvalidInputError(f"n_tasks: a task graph needs at least one task; got {n_tasks}")
        n_tasks = int(n_tasks)
        src = as_index_array(np.asarray(src).ravel(), "src", upper=n_tasks)
        dst = as_index_array(np.asarray(dst).ravel(), "dst", upper=n_tasks, length=src.shape[0])
        w = (
            np.ones(src.shape[0], dtype=np.float64)
            if weights is None
            else as_weights(weights, "weights", src.shape[0])
        )
        key = src.astype(np.int64) * n_tasks + dst.astype(np.int64)
        order = np.argsort(key, kind="stable")
        key, w = key[order], w[order]
        if key.size:
            first = np.concatenate(([True], key[1:] != key[:-1]))
            starts = np.flatnonzero(first)
            w = np.add.reduceat(w, starts)
            key = key[starts]
        s = (key // n_tasks).astype(np.intp)
        d = (key % n_tasks).astype(np.intp)
        indptr = np.zeros(n_tasks + 1, dtype=np.intp)
        np.cumsum(np.bincount(s, minlength=n_tasks), out=indptr[1:])
        return cls(indptr, d, w, coords=coords, sized=weights is not None)

    @classmethod
    def from_file(cls, path) -> "TaskGraph":
        """Read a task graph from any graph file the library knows.

        Parameters
        ----------
        path : str or os.PathLike
            A traffic recording (``PATH`` with ``PATH.json`` and/or ``PATH.counts.mtx``
            beside it: :func:`~mpitaskmap.graphs.recording.read_recording`, the graph of one
            round of the run); Open MPI's monitoring output (``PREFIX`` of its
            ``PREFIX.<rank>.prof`` files: :func:`~mpitaskmap.graphs.recording.read_ompi_monitoring`);
            or a communication matrix, Matrix Market or dense rows
            (:func:`~mpitaskmap.graphs.graph_files.matrix_edges`).  Parsed by
            :func:`~mpitaskmap.graphs.graph_files.read_graph_edges`;
            :func:`~mpitaskmap.graphs.recording.read_graph_file` also returns the recording.

        Returns
        -------
        TaskGraph
            Without coordinates; not :attr:`sized` for a ``pattern`` Matrix Market file.

        Raises
        ------
        InvalidInputError
            Naming the file and the line of what is wrong.
        """
        n, src, dst, w, _ = read_graph_edges(path)
        return cls.from_edges(src, dst, w, n_tasks=n)

    @classmethod
    def stencil(
        cls,
        shape: Sequence[int],
        *,
        points: int | None = None,
        periodic: bool | Sequence[bool] = False,
        weight: float | None = None,
    ) -> "TaskGraph":
        """Build the task graph of an n-D stencil on a regular grid of tasks.

        Parameters
        ----------
        shape : sequence of int
            Task grid lengths ``(nx, ny, nz, ...)``.  Task id ``x + nx * (y + ny * z)``
            (x fastest), as MiniGhost numbers its tasks.
        points : int, optional
            ``2 * d + 1`` (default: 5-point 2-D, 7-point 3-D) or ``3 ** d`` (9, 27).
        periodic : bool or sequence of bool, optional
            Whether each grid dimension wraps around (default False).
        weight : float, optional
            Volume of every message (bytes for the default message model).  Default: 1.0,
            and the graph is not :attr:`sized`.

        Returns
        -------
        TaskGraph
            Symmetric graph (both directions stored) with integer grid coordinates.
            On a periodic dimension of length 2 the two neighbours coincide and their
            volumes are summed; self-exchanges (length 1) are omitted.

        Raises
        ------
        InvalidInputError
            On a non-positive length or an unsupported stencil size.

        Examples
        --------
        >>> g = TaskGraph.stencil([3, 2])
        >>> g.n_tasks, g.n_edges
        (6, 14)
        """
        shape_arr = np.asarray(shape)
        if shape_arr.ndim != 1 or shape_arr.size == 0 or shape_arr.dtype.kind not in "iu" or (shape_arr < 1).any():
            raise InvalidInputError(f"shape: expected positive integer grid lengths; got {shape!r}")
        shape_t = tuple(int(s) for s in shape_arr)
        d = len(shape_t)
        if points is None:
            points = 2 * d + 1
        offsets = stencil_offsets(d, int(points))
        per = np.broadcast_to(np.asarray(periodic, dtype=bool), (d,))
        n = int(np.prod(shape_t, dtype=np.int64))
        # coords[t] = (x, y, z, ...) with x fastest.
        grid = np.indices(shape_t[::-1]).reshape(d, -1)[::-1].T.astype(np.int64)
        dims = np.asarray(shape_t, dtype=np.int64)
        step = strides(dims)
        srcs, dsts = [], []
        ids = np.arange(n, dtype=np.int64)
        for off in offsets:
            nb = grid + off
            ok = np.ones(n, dtype=bool)
            for k in range(d):
                if per[k]:
                    nb[:, k] %= dims[k]
                else:
                    ok &= (nb[:, k] >= 0) & (nb[:, k] < dims[k])
            tgt = nb[ok] @ step
            src = ids[ok]
            keep = tgt != src
            srcs.append(src[keep])
            dsts.append(tgt[keep])
        src = np.concatenate(srcs) if srcs else np.zeros(0, dtype=np.int64)
        dst = np.concatenate(dsts) if dsts else np.zeros(0, dtype=np.int64)
        g = cls.from_edges(src, dst, np.full(src.shape[0], 1.0 if weight is None else float(weight)), n_tasks=n,
                           coords=grid.astype(np.float64))
        g.sized = weight is not None
        return g

    @classmethod
    def from_matrix(cls, matrix, *, coords=None) -> "TaskGraph":
        """Build a task graph from an n x n communication matrix.

        Parameters
        ----------
        matrix : (n, n) array_like or scipy.sparse matrix
            ``matrix[i, j]`` = volume task ``i`` sends to task ``j``; zeros mean no edge.
        coords : (n, n_dims) array_like of float, optional
            Task coordinates.

        Returns
        -------
        TaskGraph

        Raises
        ------
        InvalidInputError
            If the matrix is not square, or has negative or non-finite entries.
        """
        if hasattr(matrix, "tocoo"):
            coo = matrix.tocoo()
            if coo.shape[0] != coo.shape[1]:
                raise InvalidInputError(f"matrix: expected a square matrix; got shape {coo.shape}")
            w = np.asarray(coo.data, dtype=np.float64)
            keep = w != 0
            return cls.from_edges(coo.row[keep], coo.col[keep], w[keep], n_tasks=coo.shape[0], coords=coords)
        m = np.asarray(matrix, dtype=np.float64)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise InvalidInputError(f"matrix: expected a square matrix; got shape {m.shape}")
        bad = ~np.isfinite(m) | (m < 0)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InvalidInputError(f"matrix: entry ({i}, {j}) must be finite and >= 0; got {float(m[i, j])!r}")
        src, dst = np.nonzero(m)
        return cls.from_edges(src, dst, m[src, dst], n_tasks=m.shape[0], coords=coords)

    @classmethod
    def from_neighbor_lists(cls, neighbors, weights=None, *, coords=None) -> "TaskGraph":
        """Build a task graph from per-task lists of partners.

        Parameters
        ----------
        neighbors : sequence of sequence of int
            ``neighbors[t]`` lists the tasks ``t`` sends to (like the destinations of
            ``MPI_Dist_graph_create_adjacent``).
        weights : sequence of sequence of float, optional
            Matching volumes (default 1.0 each, and the graph is not :attr:`sized`).
        coords : (n_tasks, n_dims) array_like of float, optional
            Task coordinates.

        Returns
        -------
        TaskGraph

        Raises
        ------
        InvalidInputError
            If a list names a missing task, or a weight list has a different length.
        """
        n = len(neighbors)
        if weights is not None and len(weights) != n:
            raise InvalidInputError(f"weights: expected {n} lists (one per task); got {len(weights)}")
        lists = [list(nbrs) for nbrs in neighbors]
        counts = np.array([len(v) for v in lists], dtype=np.int64)
        if weights is not None:
            wlists = [list(wt) for wt in weights]
            bad = [t for t in range(n) if len(wlists[t]) != counts[t]]
            if bad:
                t = bad[0]
                raise InvalidInputError(f"weights: task {t} has {counts[t]} neighbours but {len(wlists[t])} weights")
            w = np.array([v for wt in wlists for v in wt], dtype=np.float64)
        else:
            w = None
        flat = np.array([v for nbrs in lists for v in nbrs], dtype=np.int64)
        return cls.from_neighbor_arrays(counts, flat, w, coords=coords)

    @classmethod
    def from_neighbor_arrays(cls, counts, neighbors, weights=None, *, coords=None) -> "TaskGraph":
        """Build a task graph from every task's partners laid end to end (CSR without ``indptr``).

        Parameters
        ----------
        counts : (n_tasks,) array_like of int
            Partners of every task; task ``t``'s are ``neighbors[ptr[t]:ptr[t+1]]`` with
            ``ptr = [0, cumsum(counts)]``.
        neighbors : (sum(counts),) array_like of int
            The partners (destinations), task by task.
        weights : (sum(counts),) array_like of float, optional
            Matching volumes (default 1.0 each, and the graph is not :attr:`sized`).
        coords : (n_tasks, n_dims) array_like of float, optional
            Task coordinates.

        Returns
        -------
        TaskGraph
            Repeated partners of a task are merged, their volumes added (as
            :meth:`from_edges` does).

        Notes
        -----
        O(E) when every task's partners are already strictly increasing (the canonical
        order: the arrays are used as they are), else O(E log E); no Python object per task
        (what ``remap()`` builds from gathered arrays).

        Examples
        --------
        >>> g = TaskGraph.from_neighbor_arrays([1, 2, 0], [1, 0, 2], [5.0, 5.0, 1.0])
        >>> g.n_tasks, g.indptr.tolist(), g.indices.tolist(), g.weights.tolist()
        (3, [0, 1, 3, 3], [1, 0, 2], [5.0, 5.0, 1.0])
        """
        counts = np.asarray(counts)
        if counts.ndim != 1 or (counts.size and (counts.dtype.kind not in "iu" or counts.min() < 0)):
            raise InvalidInputError(f"counts: expected non-negative integers, one per task; got {counts!r:.80}")
        n = counts.size
        n_edges = int(counts.sum())
        dst = np.asarray(neighbors, dtype=np.int64).ravel()
        if dst.size != n_edges:
            raise InvalidInputError(f"neighbors: counts add up to {n_edges} partners; got {dst.size}")
        w = np.ones(n_edges) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
        if w.size != n_edges:
            raise InvalidInputError(f"weights: expected {n_edges} volumes (one per partner); got {w.size}")
        indptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(counts, out=indptr[1:])
        # already canonical (partners strictly increasing within every task): no sort, no copy
        rising = dst[1:] > dst[:-1]
        rising[indptr[1:-1][(indptr[1:-1] > 0) & (indptr[1:-1] < n_edges)] - 1] = True  # row starts may drop
        if rising.all():
            return cls(indptr, dst, w, coords=coords, sized=weights is not None)
        src = np.repeat(np.arange(n, dtype=np.int64), counts)
        g = cls.from_edges(src, dst, w, n_tasks=n, coords=coords)
        g.sized = weights is not None
        return g

    @classmethod
    def from_coordinate_proxy(cls, coords, *, weight: float | None = None) -> "TaskGraph":
        """Build a nearest-neighbour proxy graph from task coordinates alone.

        Used when an application gives coordinates but no communication pattern.  For
        each dimension ``k``, tasks that share all other coordinates form a line; sorted
        along ``k``, consecutive tasks of a line exchange ``weight`` both ways (ties in
        ``k`` by task id).  On a regular grid this is exactly the ``2 * d + 1``-point
        non-periodic stencil; on scattered coordinates it links tasks aligned along a
        dimension.

        Parameters
        ----------
        coords : (n_tasks, n_dims) array_like of float
            Task coordinates.
        weight : float, optional
            Volume of each proxy message.  Default: 1.0, and the graph is not :attr:`sized`.

        Returns
        -------
        TaskGraph
            Symmetric, with the coordinates attached.

        Notes
        -----
        O(n_dims * n_tasks log n_tasks).

        Examples
        --------
        >>> g = TaskGraph.from_coordinate_proxy([[0, 0], [1, 0], [0, 1], [1, 1]])
        >>> g.n_edges
        8
        """
        c = as_float_matrix(coords, "coords", allow_1d=True)
        n, d = c.shape
        src, dst = [], []
        for k in range(d):
            others = [c[:, j] for j in range(d) if j != k]
            # lexsort: last key is primary -> group by the other coordinates, then by k, then id
            order = np.lexsort([np.arange(n), c[:, k]] + others[::-1])
            a, b = order[:-1], order[1:]
            same_line = np.ones(n - 1, dtype=bool)
            for col in others:
                same_line &= col[a] == col[b]
            a, b = a[same_line], b[same_line]
            src += [a, b]
            dst += [b, a]
        s = np.concatenate(src) if src else np.zeros(0, dtype=np.intp)
        t = np.concatenate(dst) if dst else np.zeros(0, dtype=np.intp)
        g = cls.from_edges(s, t, np.full(s.shape[0], 1.0 if weight is None else float(weight)), n_tasks=n, coords=c)
        g.sized = weight is not None
        return g

