"""What a rank states to :func:`~mpitaskmap.remap`: its task coordinate, partners and volumes, checked.

:func:`rank_task` is the ``task()`` of :func:`~mpitaskmap.runtime.remapping.remap_task` for
:func:`~mpitaskmap.remap` and the topology constructors (:mod:`~.topology_comms`): a bad
argument raises a ``ValueError`` naming it, which the gather carries to every rank.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from mpi4py import MPI

__all__ = ["rank_task", "task_coordinate"]


def rank_task(comm: MPI.Intracomm, coords, neighbors: Sequence[int] | None,
              weights: Sequence[float] | None) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """This rank's task from :func:`~mpitaskmap.remap`'s arguments, checked: what ``remap_task``'s ``task()`` returns.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The communicator being reordered: a ``Cartcomm`` gives the coordinate and the
        neighbours when they are not given, a ``Distgraphcomm`` the neighbours and weights.
    coords : sequence of float or None
        This rank's task coordinate.
    neighbors : sequence of int or None
        This rank's partners (ranks of ``comm``).
    weights : sequence of float or None
        Volumes to each partner (a ``Distgraphcomm``'s when it has some).  None: no
        message sizes (the graph is not :attr:`~mpitaskmap.graphs.taskgraph.TaskGraph.sized`;
        ``remap`` counts 1.0 each).

    Returns
    -------
    (coords, neighbors, weights)
        float64 coordinate; int64 partners and float64 volumes (None when none were
        given), or None and None (no partners known: the coordinate proxy graph).

    Raises
    ------
    ValueError
        Naming the argument and the entry that is wrong (the error then reaches every rank).

    Examples
    --------
    >>> from mpi4py import MPI
    >>> rank_task(MPI.COMM_SELF, (1, 2), [0], [8])
    (array([1., 2.]), array([0]), array([8.]))
    >>> rank_task(MPI.COMM_SELF, (1, 2), [0], None)
    (array([1., 2.]), array([0]), None)
    """
    if coords is None and isinstance(comm, MPI.Cartcomm):
        coords = comm.Get_coords(comm.Get_rank())
    if coords is None:
        raise ValueError("coords: this rank gave no task coordinate (and comm is not a Cartcomm)")
    c = task_coordinate(coords)
    if c.size == 0:
        raise ValueError("coords: empty coordinate")
    bad = np.flatnonzero(~np.isfinite(c))
    if bad.size:
        raise ValueError(f"coords: non-finite value in dimension {int(bad[0])}; got {float(c[bad[0]])!r}")
    size = comm.Get_size()
    if neighbors is None:
        if isinstance(comm, MPI.Distgraphcomm):
            _, dests, w = comm.Get_dist_neighbors()
            neighbors = list(dests)
            if w is not None and weights is None and w is not MPI.UNWEIGHTED:
                weights = list(w[1])
        elif isinstance(comm, MPI.Cartcomm):
            neighbors = []
            for d in range(comm.Get_dim()):
                for disp in (-1, 1):
                    _, dest = comm.Shift(d, disp)
                    if dest != MPI.PROC_NULL and dest != comm.Get_rank():
                        neighbors.append(dest)
    if neighbors is not None:
        neighbors = [int(v) for v in neighbors]
        for i, v in enumerate(neighbors):
            if not 0 <= v < size:
                raise ValueError(f"neighbors: entry {i} names rank {v}, outside [0, {size})")
        if weights is None:
            return c, np.asarray(neighbors, dtype=np.int64), None
        weights = [float(v) for v in weights]
        if len(weights) != len(neighbors):
            raise ValueError(f"weights: {len(weights)} values for {len(neighbors)} neighbors")
        for i, v in enumerate(weights):
            if not np.isfinite(v) or v < 0:
                raise ValueError(f"weights: entry {i} must be finite and >= 0; got {v!r}")
        return c, np.asarray(neighbors, dtype=np.int64), np.asarray(weights, dtype=np.float64)
    return c, None, None


def task_coordinate(coords) -> np.ndarray:
    """This rank's task coordinate as a flat float64 array; a ValueError says what is wrong with ``coords``.

    Examples
    --------
    >>> task_coordinate((1, 2.5)).tolist()
    [1.0, 2.5]
    >>> task_coordinate("abc")
    Traceback (most recent call last):
    ...
    ValueError: coords: expected this rank's task coordinate as numbers, e.g. (x, y, z); got the string 'abc'
    >>> task_coordinate([0, "y"])
    Traceback (most recent call last):
    ...
    ValueError: coords: entry 1 is not a number; got 'y' (str)
    """
    if isinstance(coords, (str, bytes)):
        kind = "string" if isinstance(coords, str) else "bytes"
        raise ValueError(f"coords: expected this rank's task coordinate as numbers, e.g. (x, y, z); "
                         f"got the {kind} {coords!r}")
    if isinstance(coords, np.ndarray) and coords.dtype.kind in "iuf":
        return coords.astype(np.float64).ravel()
    try:
        entries = np.asarray(coords, dtype=object).ravel()
    except ValueError:  # ragged nesting numpy cannot hold
        raise ValueError(f"coords: expected a flat sequence of numbers, e.g. (x, y, z); got {coords!r}") from None
    for i, v in enumerate(entries):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ValueError(f"coords: entry {i} is not a number; got {v!r} ({type(v).__name__})")
    return entries.astype(np.float64)
