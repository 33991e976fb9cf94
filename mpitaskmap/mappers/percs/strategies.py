"""Mapping strategies for PERCS (ALGORITHMS.md section 5), each returning a :class:`Mapping`.

All strategies take a P x Q grid task graph (task ``t`` at ``(t % P, t // P)``, see
:func:`~mpitaskmap.mappers.percs.patterns.grid_shape`) and a :class:`PercsMachine`; the job
occupies the first ``n_tasks`` processors (whole nodes, drawers or supernodes as the
strategy needs), as the default placement does.

* ``default``: task ``t`` on processor ``t``.
* ``node`` / ``drawer`` / ``supernode`` blocking: the grid is cut into blocks that go to
  consecutive hardware units, sequentially (block ``bx + (P / width) by`` to the unit of
  the same number) or in a seeded random order.  Layout ``"paper"`` (default): the
  paper's alpha x beta blocks 2x2, 4x8, 8x16 are *rows x columns* of the task matrix, so
  a block is 2 x 2, 8 x 4 and 16 x 8 tasks along (x, y) (:data:`BLOCKS`); inside a unit
  the block's 2 x 2 quads go to the unit's nodes sequentially (block order, x fastest),
  a quad's 4 tasks to the node's 4 processors: the paper's layout for supernode blocking
  (section V-C, "divides the block into 2x2 quads and maps each quad to a node of the
  supernode in a sequential manner"), which reproduces its Table III (indirect routing)
  where nesting 8 x 4 drawer blocks inside the supernode block does not; under direct
  routing both give the same throughput.  Layout ``"flat"`` (the previous convention, kept for comparison): alpha
  along x (2 x 2, 4 x 8, 8 x 16 tasks along (x, y), :data:`FLAT_BLOCKS`) and the tasks of
  a block in block order (x fastest) on the unit's processors.
* ``mod_colouring``: 8 x 8 blocks coloured by :func:`~mpitaskmap.mappers.percs.colouring.mod_colouring`
  (colour = supernode, two blocks each); the block on the even row of its band fills
  nodes 0-15, the other nodes 16-31, its 2x2 quads going to nodes sequentially.  A grid
  that meets the preconditions only with x and y exchanged (e.g. 64 x 32) is coloured
  transposed.
* ``transpose`` row-wise (rows of P tasks contiguous: the default order), column-wise
  (columns contiguous) and hybrid (lines of the shorter dimension contiguous, so they
  stay inside one supernode whenever they fit).

Which links limit each strategy (halo, throughput per node)
-----------------------------------------------------------
Throughput (:func:`throughput`) is ``4 / t`` GB/s per node with
``t = max(L_LL/21, L_LR/5, L_D/10)``, Latency(M) of the link loads (every task sends one
unit, 1/4 to each neighbour, four tasks per node).  Closed forms below hold for a periodic
P x Q halo with P a multiple of 64 (the study's grids 64 x 32 for n_s = 16, 64 x 64 for
n_s = 32) under the default machine model (``model="paper"``: striped intra-supernode
messages, single-link L hops of inter-supernode routes, bucket wiring ``jW + (b mod W)``);
``tests/mappers/percs/test_strategies_closed_forms.py`` checks each of them against the simulator on
n_s = 16 and 32 for n_d = 1, 2, 4, 8, 16.

Direct routing: a supernode pair exchanging ``V`` units loads each of its ``n_d`` D links
with ``V / n_d``, so the D links allow ``40 n_d / V``.

=====================  ==============================  ==================  ===========================
strategy               supernode holds                 busiest pair V      throughput, bottleneck
=====================  ==============================  ==================  ===========================
default                2 rows of 64 (64 x 2 strip)     16 units            2.5 n_d, D (n_d <= 16)
node blocking seq.     32 node blocks = 64 x 2 strip   16 units            2.5 n_d, D (n_d <= 16)
drawer blocking seq.   4 drawer blocks = 32 x 4 strip  8 units             5 n_d, D (n_d <= 16)
supernode blocking     one 16 x 8 block                4 units             10 n_d, D (n_d <= 16; LR ties at 16)
mod-colouring          two 8 x 8 blocks, 8 distinct    2 units             D allows 20 n_d; LR limits:
                       neighbour supernodes                                320 n_d / (16 + n_d), LR
=====================  ==============================  ==================  ===========================

* Mod-colouring's LR limit: a node on the corner of a block sends 1/2 unit to each of two
  neighbour supernodes over ``n_d`` gateways, and the colours put two such L hops of
  ``1 / (2 n_d)`` on one LR link, which also carries 1/16 of striped intra-supernode
  traffic: ``L_LR = 1/n_d + 1/16``.  Hence 18.8, 35.6, 64, 106.7 (the paper's 107, LR)
  and 160 GB/s for n_d = 1..16, i.e. 1.88, 1.78, 1.6, 1.33 and 1 times supernode
  blocking (the paper: "twice, until the LR links limit").
* Random block orders have no closed form (they scatter neighbours over many
  supernodes: better than sequential on the D links, worse on the L links as n_d grows).

Indirect routing: the D link ``(a -> c, j)`` carries ``(out(a) + in(c)) / (n_s n_d)``; for a
mapping where every supernode sends and receives ``V`` inter-supernode units the D links
allow ``20 n_s n_d / V``: default and node blocking V = 32 (``0.625 n_s n_d``), drawer
blocking V = 18 (``1.11 n_s n_d``), supernode blocking V = 12 (``1.67 n_s n_d``),
mod-colouring V = 16 (``1.25 n_s n_d``).  At n_s = 32 this beats direct routing while
D-bound (n_d = 1); from n_d = 2 (4 for mod-colouring) the three L hops of L-D-L-D-L
make LR or LL the limit.

The other L models leave the D loads, and so every D-bound cell, unchanged.  Model
``"striped"`` (every L hop striped over its source drawer) moves the L limit of
mod-colouring from LR (106.7 at n_d = 8) to LL (137.8, L_LL = 39/64), and keeps it D-bound
(20 n_d) up to n_d = 4.  Model ``"uniform"`` (every segment over all 32 nodes; link
``y -> z`` carries ``(R(y) + C(z)) / 32``) gives mod-colouring 20 n_d (D) up to n_d = 4 and
106.7 (LR, L_LR = 6/32) at n_d = 8, but limits supernode blocking at n_d = 16 to 128 (LR).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import InvalidInputError, NotApplicableError
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph
from .colouring import mod_colouring
from ...machines import LinkLoads
from ...machines.percs import PercsMachine, as_percs_machine
from ...machines.percs.network import PROCS_PER_NODE, PROCS_PER_SUPERNODE
from .patterns import grid_shape

__all__ = [
    "BLOCKS",
    "FLAT_BLOCKS",
    "LAYOUTS",
    "STRATEGIES",
    "map_default",
    "map_blocking",
    "map_mod_colouring",
    "map_transpose",
    "map_percs",
    "throughput",
]

#: Block shapes (tasks along x, tasks along y) of layout "paper": the paper's alpha x beta
#: = 2x2, 4x8, 8x16 read as rows (y) x columns (x) of the task matrix.
BLOCKS = {"node": (2, 2), "drawer": (8, 4), "supernode": (16, 8)}
#: Block shapes (along x, along y) of layout "flat": alpha along x.
FLAT_BLOCKS = {"node": (2, 2), "drawer": (4, 8), "supernode": (8, 16)}
#: Block layouts of :func:`map_blocking`.
LAYOUTS = ("paper", "flat")


def throughput(loads: LinkLoads, volume_per_node: float = 4.0, link_class: str | None = None) -> float:
    """Return the throughput per node of the study: ``volume_per_node / Latency(M)``.

    ``Latency(M)`` (:meth:`~mpitaskmap.machines.LinkLoads.max_latency`) is the time the
    busiest link needs per unit injected; with the normalisation of ALGORITHMS.md section 5
    (every task sends one unit, four tasks per node, bandwidths in GB/s) the default
    ``volume_per_node = 4`` gives GB/s per node.

    Parameters
    ----------
    loads : LinkLoads
        Link loads of a mapping (:meth:`PercsMachine.link_loads
        <mpitaskmap.machines.percs.PercsMachine.link_loads>`).
    volume_per_node : float, optional
        Volume every node injects (default 4.0).
    link_class : str, optional
        A class name (``"LL"``, ``"LR"``, ``"D"``): the throughput that class alone would
        allow (its own largest Data(e)/bw(e)).  Default: all links.

    Returns
    -------
    float
        ``inf`` when the links considered carry nothing.

    Raises
    ------
    InvalidInputError
        On a class name the loads do not have.

    Examples
    --------
    >>> import numpy as np
    >>> from mpitaskmap.machines import PercsMachine
    >>> from mpitaskmap.mappers.percs.patterns import halo_graph
    >>> g, m = halo_graph(16, 16), PercsMachine(2, 1)
    >>> loads = m.link_loads(g.indptr, g.indices, g.weights, np.arange(g.n_tasks))
    >>> throughput(loads), round(throughput(loads, link_class="LL"), 1)  # busiest link: 0.8 s per unit
    (5.0, 61.1)
    """
    if link_class is None:
        t = loads.max_latency()
    else:
        per_class = loads.class_max_latency()
        if link_class not in per_class:
            raise InvalidInputError(f"link_class: {link_class!r} is not a class of these loads {list(per_class)}")
        t = per_class[link_class]
    return volume_per_node / t if t > 0 else float("inf")


def _prepare(graph: TaskGraph, machine) -> tuple[int, int, PercsMachine]:
    machine = as_percs_machine(machine)
    P, Q = grid_shape(graph)
    if P * Q > machine.n_procs:
        raise NotApplicableError(f"graph: {P * Q} tasks do not fit on {machine.n_procs} processors")
    return P, Q, machine


def map_default(graph: TaskGraph, machine: PercsMachine) -> Mapping:
    """Place task ``t`` on processor ``t`` (the DEF column of the study).

    Examples
    --------
    >>> from mpitaskmap.machines import PercsMachine
    >>> from mpitaskmap.mappers.percs.patterns import halo_graph
    >>> map_default(halo_graph(16, 16), PercsMachine(2, 1)).task_to_proc[:3].tolist()
    [0, 1, 2]
    """
    _prepare(graph, machine)
    return Mapping(np.arange(graph.n_tasks), machine, graph, method="percs default")


def _in_unit_offset(lx: np.ndarray, ly: np.ndarray, level: str) -> np.ndarray:
    """Processor offset inside a unit of ``level`` for local task coordinates (layout "paper").

    The unit's block is cut into 2 x 2 quads that go to the unit's nodes sequentially
    (quads in block order, x fastest), a quad's tasks to the node's cores x fastest: the
    paper's in-supernode layout for supernode blocking ("divides the block into 2x2 quads
    and maps each quad to a node of the supernode in a sequential manner", section V-C).
    For a drawer block (8 x 4) this is the same as nesting its 4 x 2 node blocks.
    """
    unit_width = BLOCKS[level][0]
    node_w, node_h = BLOCKS["node"]
    quad = lx // node_w + (unit_width // node_w) * (ly // node_h)
    return quad * (node_w * node_h) + lx % node_w + node_w * (ly % node_h)


def map_blocking(graph: TaskGraph, machine: PercsMachine, *, level: str = "supernode",
                 order: str = "sequential", seed: int = 0, layout: str = "paper") -> Mapping:
    """Map blocks of the task grid to nodes, drawers or supernodes.

    Parameters
    ----------
    graph : TaskGraph
        A P x Q grid task graph.
    machine : PercsMachine
        The system.
    level : {"node", "drawer", "supernode"}, optional
        Hardware unit of one block; default "supernode".
    order : {"sequential", "random"}, optional
        Blocks to units in order, or in a random order drawn with ``seed``.
    seed : int, optional
        Seed of ``numpy.random.default_rng`` for the random order (default 0).
    layout : {"paper", "flat"}, optional
        Block shapes and in-block order (module notes): "paper" (default) uses
        :data:`BLOCKS` (2 x 2, 8 x 4, 16 x 8 tasks along (x, y)) with the block's 2 x 2
        quads on the unit's nodes sequentially (the paper's section V-C); "flat" uses :data:`FLAT_BLOCKS` (2 x 2, 4 x 8, 8 x 16) with the
        tasks in block order.  The paper states the block sizes (alpha x beta) but not which
        side runs along the fastest task dimension; "paper" is the reading that reproduces
        its drawer-blocking throughput (5 n_d GB/s, halo, direct routing) and, with the
        quads, its Table III under indirect routing.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        If the grid is not divisible into blocks or does not fit.
    ValueError
        On an unknown level, order or layout.

    Notes
    -----
    With P a multiple of 64 (layout "paper", halo, direct routing) a supernode holds a
    64 x 2 strip under node blocking, a 32 x 4 strip under drawer blocking and a 16 x 8
    block under supernode blocking; its busiest supernode pair carries 16, 8 and 4 units,
    hence 2.5 n_d, 5 n_d and 10 n_d GB/s while the D links limit (:mod:`mpitaskmap.mappers.percs`
    strategy notes).

    Examples
    --------
    >>> from mpitaskmap.machines import PercsMachine
    >>> from mpitaskmap.mappers.percs.patterns import halo_graph
    >>> m = map_blocking(halo_graph(32, 16), PercsMachine(4, 1), level="supernode")
    >>> m.task_to_proc[[0, 1, 2, 32, 8, 16]].tolist()  # task 8: quad 4 of the block, node 4
    [0, 1, 4, 2, 16, 128]
    >>> map_blocking(halo_graph(16, 16), PercsMachine(2, 1), layout="flat").task_to_proc[[0, 7, 8, 16]].tolist()
    [0, 7, 128, 8]
    """
    if level not in BLOCKS:
        raise ValueError(f"level: unknown {level!r}; valid: {sorted(BLOCKS)}")
    if order not in ("sequential", "random"):
        raise ValueError(f"order: unknown {order!r}; valid: ['random', 'sequential']")
    if layout not in LAYOUTS:
        raise ValueError(f"layout: unknown {layout!r}; valid: {sorted(LAYOUTS)}")
    P, Q, machine = _prepare(graph, machine)
    alpha, beta = (BLOCKS if layout == "paper" else FLAT_BLOCKS)[level]
    if P % alpha or Q % beta:
        raise NotApplicableError(
            f"graph: {level} blocking ({layout} layout) needs P % {alpha} == 0 and Q % {beta} == 0; got {P} x {Q}"
        )
    t = np.arange(P * Q, dtype=np.int64)
    x, y = t % P, t // P
    block = x // alpha + (P // alpha) * (y // beta)
    if layout == "paper":
        local = _in_unit_offset(x % alpha, y % beta, level)
    else:
        local = x % alpha + alpha * (y % beta)
    n_blocks = (P // alpha) * (Q // beta)
    unit = np.arange(n_blocks)
    if order == "random":
        unit = np.random.default_rng(seed).permutation(n_blocks)
    ttp = unit[block] * (alpha * beta) + local
    info = {"level": level, "order": order, "seed": seed if order == "random" else None, "layout": layout}
    return Mapping(ttp, machine, graph, method=f"percs {level} {order}", info=info)


def _mod_colouring_fits(P: int, Q: int) -> bool:
    return P % 32 == 0 and Q >= 64 and not Q & (Q - 1)


def map_mod_colouring(graph: TaskGraph, machine: PercsMachine) -> Mapping:
    """Map 8 x 8 blocks by a perfect colouring: two blocks per supernode, quads to nodes.

    Parameters
    ----------
    graph : TaskGraph
        A P x Q grid task graph with P a multiple of 32 and Q a power of two >= 64, or the
        same with P and Q exchanged (then the grid is coloured transposed).
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
    >>> from mpitaskmap.machines import PercsMachine
    >>> from mpitaskmap.mappers.percs.patterns import halo_graph
    >>> m = map_mod_colouring(halo_graph(32, 64), PercsMachine(16, 1))
    >>> m.is_permutation
    True
    """
    P, Q, machine = _prepare(graph, machine)
    t = np.arange(P * Q, dtype=np.int64)
    x, y = t % P, t // P
    transposed = not _mod_colouring_fits(P, Q) and _mod_colouring_fits(Q, P)
    if transposed:
        P, Q, x, y = Q, P, y, x
    if P % 32:
        raise NotApplicableError(f"graph: mod-colouring needs P a multiple of 32; got P = {P}")
    if Q < 64 or Q & (Q - 1):
        raise NotApplicableError(f"graph: mod-colouring needs Q a power of two >= 64; got Q = {Q}")
    colours = mod_colouring(P // 8, Q // 8)
    r, i = x // 8, y // 8
    supernode = colours[r, i]
    half = r % 2  # even row of the band: nodes 0-15, odd row: nodes 16-31
    quad = (x % 8) // 2 + 4 * ((y % 8) // 2)
    core = x % 2 + 2 * (y % 2)
    ttp = supernode * PROCS_PER_SUPERNODE + (16 * half + quad) * PROCS_PER_NODE + core
    return Mapping(ttp, machine, graph, method="percs mod_colouring", info={"transposed": transposed})


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
    >>> from mpitaskmap.machines import PercsMachine
    >>> from mpitaskmap.mappers.percs.patterns import transpose_graph
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
    >>> from mpitaskmap.machines import PercsMachine
    >>> from mpitaskmap.mappers.percs.patterns import halo_graph
    >>> map_percs(halo_graph(16, 16), PercsMachine(2, 1), method="node_sequential").method
    'percs node sequential'
    """
    if method not in STRATEGIES:
        raise ValueError(f"method: unknown {method!r}; valid: {sorted(STRATEGIES)}")
    if method.endswith("_random"):
        return STRATEGIES[method](graph, machine, seed=seed)
    return STRATEGIES[method](graph, machine)
