"""Simulated machines: small tori for laptops, a Titan-like Cray XK7, IBM BG/Q blocks.

Every constructor is deterministic: the same arguments (and seed) give the same machine,
processor order and node ids on every MPI rank and every run.
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np

from ...curves import hilbert_keys
from ...errors import InvalidInputError
from ..views import strides
from .torus import TorusMachine

__all__ = [
    "torus_machine",
    "titan_machine",
    "bgq_machine",
    "alps_node_order",
    "TITAN_DIMS",
    "BGQ_ORDERS",
    "bgq_node_name",
    "BGQ_DIM_NAMES",
]

#: The names of the five BG/Q torus dimensions.
BGQ_DIM_NAMES = ("A", "B", "C", "D", "E")

TITAN_DIMS = (25, 16, 24)
BGQ_LETTERS = "ABCDET"
BGQ_ORDERS = tuple("".join(p) for p in itertools.permutations(BGQ_LETTERS))


def _positive_ints(values, name: str) -> tuple[int, ...]:
    arr = np.atleast_1d(np.asarray(values))
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or (arr < 1).any():
        raise InvalidInputError(f"{name}: expected positive integer lengths; got {values!r}")
    return tuple(int(v) for v in arr)


def _grid_coords(dims: Sequence[int]) -> np.ndarray:
    """All coordinates of a grid, dimension 0 fastest: row r is router r."""
    d = len(dims)
    return np.indices(tuple(dims)[::-1]).reshape(d, -1)[::-1].T.astype(np.int64)


def torus_machine(
    dims: Sequence[int],
    *,
    wrap: bool | Sequence[bool] = True,
    cores_per_node: int = 1,
    nodes_per_router: int = 1,
    bandwidth=None,
    name: str | None = None,
) -> TorusMachine:
    """Return a fully allocated torus or mesh, ranks in router order (dimension 0 fastest).

    Parameters
    ----------
    dims : sequence of int
        Router grid lengths.
    wrap : bool or sequence of bool, optional
        Torus (True, default) or mesh per dimension.
    cores_per_node : int, optional
        Consecutive ranks sharing a node (default 1).
    nodes_per_router : int, optional
        Consecutive nodes sharing a router (default 1).
    bandwidth : optional
        As for :class:`~mpitaskmap.machines.TorusMachine`.
    name : str, optional
        Description (default e.g. ``"torus 4x4"``).

    Returns
    -------
    TorusMachine
        ``prod(dims) * nodes_per_router * cores_per_node`` processors.

    Examples
    --------
    >>> m = torus_machine([2, 2], cores_per_node=2)
    >>> m.n_procs, m.router_coords[:4].tolist(), m.node_ids[:4].tolist()
    (8, [[0, 0], [0, 0], [1, 0], [1, 0]], [0, 0, 1, 1])
    """
    dims_t = _positive_ints(dims, "dims")
    cpn = _positive_ints(cores_per_node, "cores_per_node")[0]
    npr = _positive_ints(nodes_per_router, "nodes_per_router")[0]
    routers = _grid_coords(dims_t)
    per_router = cpn * npr
    coords = np.repeat(routers, per_router, axis=0)
    node_ids = np.arange(coords.shape[0]) // cpn
    kind = "torus" if np.all(wrap) else ("mesh" if not np.any(wrap) else "mixed torus/mesh")
    label = name or f"{kind} {'x'.join(map(str, dims_t))}"
    return TorusMachine(coords, dims_t, wrap=wrap, node_ids=node_ids, bandwidth=bandwidth, name=label)


def alps_node_order(dims: Sequence[int], nodes_per_router: int) -> np.ndarray:
    """Return every node id of a torus in the order ALPS-style allocation walks them.

    Routers are visited along a Hilbert curve over the smallest power-of-two cube that
    holds the torus (a locality-preserving space-filling order); the nodes of one router
    are consecutive.  Node id ``router_id * nodes_per_router + slot`` with router ids
    dimension 0 fastest.

    Parameters
    ----------
    dims : sequence of int
        Router grid lengths.
    nodes_per_router : int
        Nodes sharing one router (2 on Cray Gemini).

    Returns
    -------
    (prod(dims) * nodes_per_router,) ndarray of int64
        Node ids in curve order.
    """
    dims_t = _positive_ints(dims, "dims")
    routers = _grid_coords(dims_t)
    bits = max(1, math.ceil(math.log2(max(dims_t))))
    order = np.argsort(hilbert_keys(routers, bits), kind="stable")
    return (order[:, None] * nodes_per_router + np.arange(nodes_per_router)[None, :]).reshape(-1)


def titan_machine(
    n_nodes: int,
    *,
    cores_per_node: int = 16,
    nodes_per_router: int = 2,
    dims: Sequence[int] = TITAN_DIMS,
    busy_fraction: float = 0.5,
    mean_job_nodes: int = 96,
    seed: int = 0,
    bandwidth="gemini",
) -> TorusMachine:
    """Return a sparse allocation on a Titan-like Cray XK7 (Gemini 3-D torus).

    The machine is first partly occupied by other jobs: walking the ALPS node order
    (:func:`alps_node_order`), runs of busy and free nodes alternate, with run lengths
    drawn (seeded) so that about ``busy_fraction`` of the nodes are busy.  The job then
    gets the first ``n_nodes`` free nodes in that order, as ALPS hands them out, and ranks
    fill nodes consecutively (``cores_per_node`` ranks per node): the default rank order.

    Parameters
    ----------
    n_nodes : int
        Nodes allocated to the job.
    cores_per_node : int, optional
        Ranks per node (16 on Titan; fewer for laptop demos).
    nodes_per_router : int, optional
        Nodes behind one Gemini router (2).
    dims : sequence of int, optional
        Torus lengths (Titan: 25 x 16 x 24).
    busy_fraction : float, optional
        Fraction of nodes held by other jobs, in [0, 1).
    mean_job_nodes : int, optional
        Mean length of a busy run along the curve.
    seed : int, optional
        Seed of the occupancy pattern.
    bandwidth : optional
        Link bandwidths (default the Gemini pattern, GB/s).

    Returns
    -------
    TorusMachine
        ``n_nodes * cores_per_node`` processors; node ids are global node numbers.

    Raises
    ------
    InvalidInputError
        If the free part of the machine cannot hold ``n_nodes`` nodes.

    Examples
    --------
    >>> m = titan_machine(4, cores_per_node=2, seed=1)
    >>> m.n_procs, m.n_nodes
    (8, 4)
    """
    n_nodes = _positive_ints(n_nodes, "n_nodes")[0]
    cpn = _positive_ints(cores_per_node, "cores_per_node")[0]
    npr = _positive_ints(nodes_per_router, "nodes_per_router")[0]
    dims_t = _positive_ints(dims, "dims")
    if not (0.0 <= float(busy_fraction) < 1.0):
        raise InvalidInputError(f"busy_fraction: must lie in [0, 1); got {busy_fraction!r}")
    order = alps_node_order(dims_t, npr)
    total = order.size
    busy = np.zeros(total, dtype=bool)
    if busy_fraction > 0:
        rng = np.random.default_rng(seed)
        mean_busy = max(1.0, float(mean_job_nodes))
        mean_free = mean_busy * (1.0 - busy_fraction) / busy_fraction
        pos, is_busy = 0, bool(rng.random() < busy_fraction)
        while pos < total:
            mean = mean_busy if is_busy else mean_free
            run = max(1, int(rng.integers(1, max(2, int(2 * mean)))))
            busy[pos : pos + run] = is_busy
            pos += run
            is_busy = not is_busy
    free = order[~busy]
    if free.size < n_nodes:
        raise InvalidInputError(
            f"n_nodes: only {free.size} of {total} nodes are free (busy_fraction={busy_fraction}); got {n_nodes}"
        )
    nodes = free[:n_nodes]
    routers = _grid_coords(dims_t)[nodes // npr]
    coords = np.repeat(routers, cpn, axis=0)
    node_ids = np.repeat(nodes, cpn)
    return TorusMachine(
        coords,
        dims_t,
        wrap=True,
        node_ids=node_ids,
        bandwidth=bandwidth,
        name=f"titan-like {'x'.join(map(str, dims_t))}, {n_nodes} nodes x {cpn} cores (seed {seed})",
    )


def bgq_machine(
    shape: Sequence[int] = (4, 4, 4, 4, 2),
    *,
    ranks_per_node: int = 16,
    order: str = "ABCDET",
    wrap: bool | Sequence[bool] = True,
    bandwidth=None,
) -> TorusMachine:
    """Return an IBM Blue Gene/Q block allocation (5-D torus A, B, C, D, E).

    Parameters
    ----------
    shape : sequence of 5 int, optional
        Block lengths (A, B, C, D, E); 4x4x4x4x2 is a 512-node midplane.
    ranks_per_node : int, optional
        Ranks per node, the length of the T "dimension" (default 16).
    order : str, optional
        Rank order: a permutation of ``"ABCDET"``; the last letter varies fastest, so
        ``"ABCDET"`` (the default) fills a node with consecutive ranks and ``"TABCDE"``
        places consecutive ranks on neighbouring nodes along E.
    wrap : bool or sequence of bool, optional
        Torus links per dimension (default all True).
    bandwidth : optional
        As for :class:`~mpitaskmap.machines.TorusMachine` (default 1.0).

    Returns
    -------
    TorusMachine
        ``prod(shape) * ranks_per_node`` processors with dimension names A..E.

    Raises
    ------
    InvalidInputError
        On a shape without five positive lengths or an order that is not a permutation
        of ABCDET.

    Examples
    --------
    >>> m = bgq_machine((2, 1, 1, 1, 2), ranks_per_node=2, order="ABCDET")
    >>> m.router_coords[:4, [0, 4]].tolist()
    [[0, 0], [0, 0], [0, 1], [0, 1]]
    """
    dims_t = _positive_ints(shape, "shape")
    if len(dims_t) != 5:
        raise InvalidInputError(f"shape: a BG/Q block has 5 lengths (A, B, C, D, E); got {shape!r}")
    rpn = _positive_ints(ranks_per_node, "ranks_per_node")[0]
    if sorted(order) != sorted(BGQ_LETTERS):
        raise InvalidInputError(f"order: expected a permutation of 'ABCDET'; got {order!r}")
    lengths = dict(zip(BGQ_LETTERS, dims_t + (rpn,)))
    n = int(np.prod(dims_t)) * rpn
    rem = np.arange(n, dtype=np.int64)
    digit = {}
    for letter in reversed(order):
        digit[letter] = rem % lengths[letter]
        rem //= lengths[letter]
    coords = np.stack([digit[c] for c in "ABCDE"], axis=1)
    node_ids = coords @ strides(dims_t)
    return TorusMachine(
        coords,
        dims_t,
        wrap=wrap,
        node_ids=node_ids,
        bandwidth=bandwidth,
        dim_names=list("ABCDE"),
        name=f"bgq {'x'.join(map(str, dims_t))} x {rpn} ranks/node, order {order}",
    )


def bgq_node_name(coords) -> str:
    """Return the node string of a BG/Q node from its A..E coordinates.

    Examples
    --------
    >>> bgq_node_name((0, 1, 3, 2, 1))
    'bgq-0.1.3.2.1'
    """
    return "bgq-" + ".".join(str(int(c)) for c in coords)
