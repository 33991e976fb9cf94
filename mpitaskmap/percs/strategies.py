"""Mapping strategies for PERCS (ALGORITHMS.md section 5), each returning a :class:`Mapping`.

All strategies take a P x Q grid task graph (task ``t`` at ``(t % P, t // P)``, see
:func:`~mpitaskmap.percs.patterns.grid_shape`) and a :class:`PercsMachine`; the job
occupies the first ``n_tasks`` processors (whole nodes, drawers or supernodes as the
strategy needs), as the default placement does.

* ``default``: task ``t`` on processor ``t``.
* ``node`` / ``drawer`` / ``supernode`` blocking: the grid is cut into alpha x beta blocks
  (2x2, 4x8, 8x16; alpha along x) that go to consecutive hardware units of
  ``alpha * beta`` processors, sequentially (block ``bx + (P / alpha) by`` to unit of the
  same number) or in a seeded random order; inside a block, tasks in block order (x
  fastest) go to the unit's processors in order.
* ``mod_colouring``: 8 x 8 blocks coloured by :func:`~mpitaskmap.percs.colouring.mod_colouring`
  (colour = supernode, two blocks each); the block on the even row of its band fills
  nodes 0-15, the other nodes 16-31, its 2x2 quads going to nodes sequentially.
* ``transpose`` row-wise (rows of P tasks contiguous: the default order), column-wise
  (columns contiguous) and hybrid (lines of the shorter dimension contiguous, so they
  stay inside one supernode whenever they fit).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import InvalidInputError, NotApplicableError
from ..mapping import Mapping
from ..taskgraph import TaskGraph
from .colouring import mod_colouring
from .machine import PercsMachine, _check_machine
from .network import PROCS_PER_NODE, PROCS_PER_SUPERNODE
from .patterns import grid_shape

__all__ = [
    "BLOCKS",
    "STRATEGIES",
    "map_default",
    "map_blocking",
    "map_mod_colouring",
    "map_transpose",
    "map_percs",
]

#: Block shapes (alpha along x, beta along y) of the blocking strategies.
BLOCKS = {"node": (2, 2), "drawer": (4, 8), "supernode": (8, 16)}


def _prepare(graph: TaskGraph, machine) -> tuple[int, int, PercsMachine]:
    machine = _check_machine(machine)
    P, Q = grid_shape(graph)
    if P * Q > machine.n_procs:
        raise NotApplicableError(f"graph: {P * Q} tasks do not fit on {machine.n_procs} processors")
    return P, Q, machine


def map_default(graph: TaskGraph, machine: PercsMachine) -> Mapping:
    """Place task ``t`` on processor ``t`` (the DEF column of the study).

    Examples
    --------
    >>> from mpitaskmap.percs import PercsMachine, halo_graph
    >>> map_default(halo_graph(16, 16), PercsMachine(2, 1)).task_to_proc[:3].tolist()
    [0, 1, 2]
    """
    _prepare(graph, machine)
    return Mapping(np.arange(graph.n_tasks), machine, graph, method="percs default")


def map_blocking(graph: TaskGraph, machine: PercsMachine, *, level: str = "supernode",
                 order: str = "sequential", seed: int = 0) -> Mapping:
    """Map alpha x beta blocks of the task grid to nodes, drawers or supernodes.

    Parameters
    ----------
    graph : TaskGraph
        A P x Q grid task graph.
    machine : PercsMachine
        The system.
    level : {"node", "drawer", "supernode"}, optional
        Block shape 2x2, 4x8 or 8x16 (:data:`BLOCKS`); default "supernode".
    order : {"sequential", "random"}, optional
        Blocks to units in order, or in a random order drawn with ``seed``.
    seed : int, optional
        Seed of ``numpy.random.default_rng`` for the random order (default 0).

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        If the grid is not divisible into blocks or does not fit.
    ValueError
        On an unknown level or order.

    Examples
    --------
    >>> from mpitaskmap.percs import PercsMachine, halo_graph
    >>> m = map_blocking(halo_graph(16, 16), PercsMachine(2, 1), level="supernode")
    >>> m.task_to_proc[[0, 7, 8, 16]].tolist()
    [0, 7, 128, 8]
    """
    if level not in BLOCKS:
        raise ValueError(f"level: unknown {level!r}; valid: {sorted(BLOCKS)}")
    if order not in ("sequential", "random"):
        raise ValueError(f"order: unknown {order!r}; valid: ['random', 'sequential']")
    P, Q, machine = _prepare(graph, machine)
    alpha, beta = BLOCKS[level]
    if P % alpha or Q % beta:
        raise NotApplicableError(f"graph: {level} blocking needs P % {alpha} == 0 and Q % {beta} == 0; got {P} x {Q}")
    t = np.arange(P * Q, dtype=np.int64)
    x, y = t % P, t // P
    block = x // alpha + (P // alpha) * (y // beta)
    local = x % alpha + alpha * (y % beta)
    n_blocks = (P // alpha) * (Q // beta)
    unit = np.arange(n_blocks)
    if order == "random":
        unit = np.random.default_rng(seed).permutation(n_blocks)
    ttp = unit[block] * (alpha * beta) + local
    info = {"level": level, "order": order, "seed": seed if order == "random" else None}
    return Mapping(ttp, machine, graph, method=f"percs {level} {order}", info=info)


def map_mod_colouring(graph: TaskGraph, machine: PercsMachine) -> Mapping:
    """Map 8 x 8 blocks by a perfect colouring: two blocks per supernode, quads to nodes.

    Parameters
    ----------
    graph : TaskGraph
        A P x Q grid task graph with P a multiple of 32 and Q a power of two >= 64.
    machine : PercsMachine
        At least ``P Q / 128`` supernodes.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        If P or Q violate the preconditions, or the job does not fit.

    References
    ----------
    Chakaravarthy et al., "Mapping Strategies for the PERCS Architecture", HiPC 2012
    (ALGORITHMS.md section 5).

    Examples
    --------
    >>> from mpitaskmap.percs import PercsMachine, halo_graph
    >>> m = map_mod_colouring(halo_graph(32, 64), PercsMachine(16, 1))
    >>> m.is_permutation
    True
    """
    P, Q, machine = _prepare(graph, machine)
    if P % 32:
        raise NotApplicableError(f"graph: mod-colouring needs P a multiple of 32; got P = {P}")
    if Q < 64 or Q & (Q - 1):
        raise NotApplicableError(f"graph: mod-colouring needs Q a power of two >= 64; got Q = {Q}")
    colours = mod_colouring(P // 8, Q // 8)
    t = np.arange(P * Q, dtype=np.int64)
    x, y = t % P, t // P
    r, i = x // 8, y // 8
    supernode = colours[r, i]
    half = r % 2  # even row of the band: nodes 0-15, odd row: nodes 16-31
    quad = (x % 8) // 2 + 4 * ((y % 8) // 2)
    core = x % 2 + 2 * (y % 2)
    ttp = supernode * PROCS_PER_SUPERNODE + (16 * half + quad) * PROCS_PER_NODE + core
    return Mapping(ttp, machine, graph, method="percs mod_colouring")


def map_transpose(graph: TaskGraph, machine: PercsMachine, *, kind: str = "hybrid") -> Mapping:
    """Place whole rows or whole columns of the grid on consecutive processors.

    Parameters
    ----------
    graph : TaskGraph
        A P x Q grid task graph (rows have P tasks along x, columns Q tasks along y).
    machine : PercsMachine
        The system.
    kind : {"row", "column", "hybrid"}, optional
        Rows contiguous (the default order), columns contiguous, or "hybrid" (default):
        rows when ``P <= Q``, columns otherwise, so the shorter lines stay together.

    Returns
    -------
    Mapping

    Raises
    ------
    ValueError
        On an unknown kind.

    Examples
    --------
    >>> from mpitaskmap.percs import PercsMachine, transpose_graph
    >>> map_transpose(transpose_graph(4, 64), PercsMachine(2, 1), kind="column").task_to_proc[:3].tolist()
    [0, 64, 128]
    """
    if kind not in ("row", "column", "hybrid"):
        raise ValueError(f"kind: unknown {kind!r}; valid: ['column', 'hybrid', 'row']")
    P, Q, machine = _prepare(graph, machine)
    chosen = kind if kind != "hybrid" else ("row" if P <= Q else "column")
    t = np.arange(P * Q, dtype=np.int64)
    ttp = t if chosen == "row" else (t // P) + Q * (t % P)
    return Mapping(ttp, machine, graph, method=f"percs transpose {kind}", info={"lines": chosen})


#: Strategy name -> function(graph, machine) -> Mapping (random ones take ``seed=``).
STRATEGIES: dict[str, Callable] = {
    "default": map_default,
    "node_sequential": lambda g, m, **kw: map_blocking(g, m, level="node", order="sequential"),
    "node_random": lambda g, m, seed=0: map_blocking(g, m, level="node", order="random", seed=seed),
    "drawer_sequential": lambda g, m, **kw: map_blocking(g, m, level="drawer", order="sequential"),
    "drawer_random": lambda g, m, seed=0: map_blocking(g, m, level="drawer", order="random", seed=seed),
    "supernode_sequential": lambda g, m, **kw: map_blocking(g, m, level="supernode", order="sequential"),
    "supernode_random": lambda g, m, seed=0: map_blocking(g, m, level="supernode", order="random", seed=seed),
    "mod_colouring": map_mod_colouring,
    "transpose_row": lambda g, m, **kw: map_transpose(g, m, kind="row"),
    "transpose_column": lambda g, m, **kw: map_transpose(g, m, kind="column"),
    "transpose_hybrid": lambda g, m, **kw: map_transpose(g, m, kind="hybrid"),
}


def map_percs(graph: TaskGraph, machine: PercsMachine, *, method: str = "supernode_sequential",
              seed: int = 0) -> Mapping:
    """Map with the PERCS strategy ``method`` (a key of :data:`STRATEGIES`).

    Raises
    ------
    ValueError
        On an unknown method (listing the valid ones).

    Examples
    --------
    >>> from mpitaskmap.percs import PercsMachine, halo_graph
    >>> map_percs(halo_graph(16, 16), PercsMachine(2, 1), method="node_sequential").method
    'percs node sequential'
    """
    if method not in STRATEGIES:
        raise ValueError(f"method: unknown {method!r}; valid: {sorted(STRATEGIES)}")
    if method.endswith("_random"):
        return STRATEGIES[method](graph, machine, seed=seed)
    return STRATEGIES[method](graph, machine)
