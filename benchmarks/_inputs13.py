"""The 4096-task inputs of issue 13 (MJ vs Zoltan2 vs Scotch), built in one place.

Tasks:

* ``stencil``: the 16 x 16 x 16 7-point stencil (``TaskGraph.stencil``, unit weights,
  task coordinates = grid points);
* ``knn``: 4096 random points in the unit cube (``default_rng(0)``), each joined to its
  k = 6 nearest neighbours (Euclidean, ties to the lower index), the edge set symmetrised
  (an edge in either direction is one undirected edge, listed both ways), integer weights
  1..10 from ``default_rng(1)`` (one weight per undirected edge, same both ways); task
  coordinates = the points.

Machines:

* ``full``: the full 16 x 16 x 16 torus, one processor per router;
* ``sparse``: 4096 distinct random nodes of a 24 x 24 x 24 torus (``default_rng(0)``,
  ``choice(24**3, 4096, replace=False)``, sorted), one processor per node, router
  coordinate of node ``i`` = ``(i // 576, (i // 24) % 24, i % 24)``.

Metric: average hops per unit weight = ``weighted_hops / total weight`` (both directions of
every edge counted, so it is the weighted mean hop distance of a message).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from mpitaskmap import TaskGraph, metrics, torus_machine
from mpitaskmap.machines import TorusMachine

N_TASKS = 4096
KNN_K = 6
SPARSE_DIMS = (24, 24, 24)


@lru_cache(maxsize=None)
def stencil_graph() -> TaskGraph:
    """The 16^3 7-point stencil (4096 tasks, unit weights)."""
    return TaskGraph.stencil([16, 16, 16])


@lru_cache(maxsize=None)
def knn_graph(seed: int = 0) -> TaskGraph:
    """4096 random unit-cube points (``default_rng(seed)``), symmetrised 6-NN graph, integer
    weights 1..10 (``default_rng(seed + 1)``)."""
    pts = np.random.default_rng(seed).random((N_TASKS, 3))
    d2 = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d2, np.inf)
    nbr = np.argsort(d2, axis=1, kind="stable")[:, :KNN_K]
    src = np.repeat(np.arange(N_TASKS), KNN_K)
    dst = nbr.ravel()
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    pairs = np.unique(lo * N_TASKS + hi)
    a, b = pairs // N_TASKS, pairs % N_TASKS
    w = np.random.default_rng(seed + 1).integers(1, 11, size=pairs.size).astype(np.float64)
    return TaskGraph.from_edges(
        np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([w, w]),
        n_tasks=N_TASKS, coords=pts,
    )


@lru_cache(maxsize=None)
def full_machine() -> TorusMachine:
    """The full 16^3 torus, one processor per router."""
    return torus_machine([16, 16, 16])


@lru_cache(maxsize=None)
def sparse_machine(seed: int = 0) -> TorusMachine:
    """4096 distinct random nodes of a 24^3 torus (``default_rng(seed)``), one processor per node."""
    nodes = np.sort(np.random.default_rng(seed).choice(int(np.prod(SPARSE_DIMS)), N_TASKS, replace=False))
    xyz = np.stack([nodes // 576, (nodes // 24) % 24, nodes % 24], axis=1)
    return TorusMachine(xyz, SPARSE_DIMS, name="sparse 4096 of 24^3")


GRAPHS = {"stencil": stencil_graph, "knn": knn_graph}
MACHINES = {"full": full_machine, "sparse": sparse_machine}


def inputs(seed: int = 0):
    """Yield ``(label, graph, machine)`` for the four issue-13 inputs (random parts from ``seed``)."""
    for gname, g in GRAPHS.items():
        for mname, m in MACHINES.items():
            graph = g(seed) if gname == "knn" else g()
            machine = m(seed) if mname == "sparse" else m()
            yield f"{gname}, {mname}", graph, machine


def avg_hops(graph: TaskGraph, machine, task_to_proc) -> float:
    """Average hops per unit weight: ``weighted_hops / total weight``."""
    return metrics.weighted_hops(graph, machine, np.asarray(task_to_proc)) / float(graph.weights.sum())
