"""Communication patterns of the PERCS study: halo and transpose on a P x Q task grid.

Chakaravarthy, Kedia, Sabharwal, Katta, Rajamony, Ramanan, "Mapping Strategies for the
PERCS Architecture" (ALGORITHMS.md section 5).  Task ``t`` sits at ``(x, y) = (t % P,
t // P)`` (x fastest, as :meth:`~mpitaskmap.graphs.taskgraph.TaskGraph.stencil` numbers
tasks).  Every task sends one unit in total, so the throughput of the study
(:func:`mpitaskmap.mappers.percs.throughput`, four tasks per node) is in GB/s per node.
Any other :class:`~mpitaskmap.graphs.taskgraph.TaskGraph` is accepted by the simulator as
well.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidInputError, NotApplicableError
from ...graphs.taskgraph import TaskGraph

__all__ = ["halo_graph", "transpose_graph", "grid_shape"]


def _check_shape(P, Q) -> tuple[int, int]:
    for name, val in (("P", P), ("Q", Q)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or int(val) < 1:
            raise InvalidInputError(f"{name}: grid length must be a positive integer; got {val!r}")
    return int(P), int(Q)


def halo_graph(P: int, Q: int, *, periodic: bool = True) -> TaskGraph:
    """Return the 2-D 5-point halo exchange on a P x Q grid, 1/4 unit to each neighbour.

    Parameters
    ----------
    P, Q : int
        Grid lengths along x (fastest) and y.
    periodic : bool, optional
        Wrap around both dimensions (default True), so every task sends exactly one unit.

    Returns
    -------
    TaskGraph
        With integer grid coordinates.

    Raises
    ------
    InvalidInputError
        On a non-positive length.

    Examples
    --------
    >>> g = halo_graph(4, 4)
    >>> g.n_edges, float(g.weights.sum())
    (64, 16.0)
    """
    P, Q = _check_shape(P, Q)
    return TaskGraph.stencil([P, Q], periodic=periodic, weight=0.25)


def transpose_graph(P: int, Q: int) -> TaskGraph:
    """Return the transpose pattern: 1/2 unit spread over the task's row, 1/2 over its column.

    The row of task ``(x, y)`` is the ``P - 1`` other tasks with the same ``y``, each
    receiving ``1 / (2 (P - 1))``; its column the ``Q - 1`` other tasks with the same
    ``x``, each receiving ``1 / (2 (Q - 1))``.  A line of length 1 sends nothing.

    Parameters
    ----------
    P, Q : int
        Grid lengths along x (fastest) and y.

    Returns
    -------
    TaskGraph
        ``P Q (P + Q - 2)`` directed edges, with integer grid coordinates.

    Raises
    ------
    InvalidInputError
        On a non-positive length.

    Notes
    -----
    The graph is dense along lines: 4M edges for a 128 x 128 grid.

    Examples
    --------
    >>> g = transpose_graph(3, 2)
    >>> g.n_edges, float(g.weights.sum())
    (18, 6.0)
    """
    P, Q = _check_shape(P, Q)
    n = P * Q
    t = np.arange(n, dtype=np.int64)
    x, y = t % P, t // P
    src, dst, w = [], [], []
    if P > 1:
        for d in range(1, P):
            src.append(t)
            dst.append((x + d) % P + P * y)
            w.append(np.full(n, 0.5 / (P - 1)))
    if Q > 1:
        for d in range(1, Q):
            src.append(t)
            dst.append(x + P * ((y + d) % Q))
            w.append(np.full(n, 0.5 / (Q - 1)))
    coords = np.stack([x, y], axis=1).astype(np.float64)
    if not src:
        return TaskGraph.from_edges([], [], [], n_tasks=n, coords=coords)
    return TaskGraph.from_edges(np.concatenate(src), np.concatenate(dst), np.concatenate(w), n_tasks=n, coords=coords)


def grid_shape(graph: TaskGraph) -> tuple[int, int]:
    """Return ``(P, Q)`` of a task graph laid out on a 2-D grid with task ``t`` at ``(t % P, t // P)``.

    Raises
    ------
    InvalidInputError
        If the graph has no 2-D integer coordinates in that layout.

    Examples
    --------
    >>> grid_shape(halo_graph(8, 4))
    (8, 4)
    """
    if not isinstance(graph, TaskGraph):
        raise InvalidInputError(f"graph: expected a TaskGraph; got {type(graph).__name__}")
    c = graph.coords
    if c is None or c.shape[1] != 2:
        got = None if c is None else c.shape
        raise NotApplicableError(f"graph: a 2-D grid needs (n_tasks, 2) coordinates; got {got}")
    P = int(c[:, 0].max()) + 1
    Q = graph.n_tasks // P if P else 0
    t = np.arange(graph.n_tasks)
    if P * Q != graph.n_tasks or not (np.array_equal(c[:, 0], t % P) and np.array_equal(c[:, 1], t // P)):
        raise NotApplicableError(
            "graph: coordinates are not a P x Q grid with task t at (t % P, t // P); "
            f"got the first rows {c[:3].tolist()}"
        )
    return P, Q
