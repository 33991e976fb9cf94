"""Heuristics that map a 2-D object grid onto a 3-D mesh or torus (ALGORITHMS.md section 4).

Bhatele et al.'s 2-D -> 3-D suite, on the cell grid of a box allocation (cores of a
router folded into one dimension, see :func:`~mpitaskmap.mappers.grid._shared.proc_grid`):

=======  =================================================================================
STACK    cut the object grid along one of its dimensions (default: the longest) into as
         many pieces as a processor dimension ``s`` is long (default: the shortest); lay
         one piece onto the plane of the other two processor dimensions with the best
         2-D -> 2-D heuristic (:func:`~mpitaskmap.mappers.grid.onto_2d.best_layout_2d`) and put
         piece ``p`` on plane ``p`` of dimension ``s``
FOLD     the same, but every other piece is mirrored across the cut (accordion folding:
         a 180-degree turn about the fold line), so the two sides of every cut sit on
         neighbouring planes one hop apart
SFC      object grid -> line -> processor grid: objects and cells ordered along a
         space-filling curve (Hilbert by default, or a boustrophedon "snake"), the k-th
         object on the k-th cell; any dimension counts on both sides
=======  =================================================================================

BLOCK    (several cores per router, an addition of ours) coarsen the object grid into
         blocks of ``bx x by = cores`` objects, lay the coarse grid onto the routers with
         the best of the above (:func:`best_layout`), and give a block's objects to the
         cores of its router

Stacking and folding need the piece count to divide the cut length; every (stack
dimension, cut dimension) pair that does is a variant (:func:`stack_variants`, the
paper's choice first).
"""

from __future__ import annotations

import math
import time
from typing import Sequence

import numpy as np

from ...curves import hilbert_keys
from ...errors import InvalidInputError, NotApplicableError
from ...machines import Machine
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph
from ._shared import finish, grid_shape_of, object_coords, plane_cost, proc_grid
from .onto_2d import HEURISTICS_2D, best_layout_2d, layout_2d

__all__ = [
    "HEURISTICS_3D",
    "CURVES",
    "stack_variants",
    "layout_stack",
    "layout_sfc",
    "map_stack",
    "map_fold",
    "map_sfc",
    "best_layout",
    "block_shapes",
    "layout_blocked",
    "map_blocked",
]

#: Names of the 2-D -> 3-D heuristics (and BLOCK, for several cores per router).
HEURISTICS_3D = ("stack", "fold", "sfc", "block")
#: Curves of the space-filling-curve heuristic.
CURVES = ("hilbert", "snake")


def stack_variants(object_shape: Sequence[int], proc_shape: Sequence[int]) -> list[tuple[int, int]]:
    """Return the (stack dimension, cut dimension) pairs where stacking applies.

    The paper's choice comes first: the shortest processor dimension (ties: the lowest
    index) and the longest object dimension (ties: the lowest index), when it divides;
    then the other pairs in order.

    Examples
    --------
    >>> stack_variants((32, 32), (8, 8, 16))
    [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    >>> stack_variants((6, 5), (2, 3, 5))
    [(0, 0), (1, 0), (2, 1)]
    """
    ob = [int(v) for v in object_shape]
    pr = [int(v) for v in proc_shape]
    ok = [(s, c) for s in range(len(pr)) for c in range(len(ob)) if ob[c] % pr[s] == 0 and pr[s] > 1]
    paper = (int(np.argmin(pr)), int(np.argmax(ob)))
    return ([paper] if paper in ok else []) + [v for v in ok if v != paper]


def layout_stack(
    object_shape: Sequence[int],
    proc_shape: Sequence[int],
    *,
    fold: bool = False,
    stack_dim: int | None = None,
    cut_dim: int | None = None,
    base: str | None = None,
) -> tuple[np.ndarray, str]:
    """Lay a 2-D object grid onto a 3-D cell grid by stacking (or folding) pieces.

    Parameters
    ----------
    object_shape : (Ox, Oy) sequence of int
        Object grid (dimension 0 fastest).
    proc_shape : (P0, P1, P2) sequence of int
        Cell grid, same number of cells.
    fold : bool, optional
        Mirror every other piece across the cut (folding) instead of translating it.
    stack_dim, cut_dim : int, optional
        Processor dimension the pieces are stacked along and object dimension that is
        cut; default the first of :func:`stack_variants`.
    base : str, optional
        2-D heuristic for a piece; default the best of
        :data:`~mpitaskmap.mappers.grid.onto_2d.HEURISTICS_2D` by total edge length.

    Returns
    -------
    cells : (n, 3) ndarray of int64
        Cell of every object.
    base : str
        The 2-D heuristic used for the pieces.

    Raises
    ------
    InvalidInputError
        If the sizes differ or the pieces do not divide evenly.

    Examples
    --------
    >>> cells, base = layout_stack((4, 2), (2, 2, 2), fold=True)
    >>> cells[[1, 2]].tolist()  # both sides of the cut: one hop apart
    [[0, 1, 0], [1, 1, 0]]
    """
    ob = tuple(int(v) for v in object_shape)
    pr = tuple(int(v) for v in proc_shape)
    if len(ob) != 2 or len(pr) != 3 or math.prod(ob) != math.prod(pr):
        raise NotApplicableError(f"object_shape: a 2-D grid of {math.prod(ob)} objects does not fit "
                                f"the 3-D cell grid {pr} one-to-one; got {ob}")
    variants = stack_variants(ob, pr)
    if stack_dim is None and cut_dim is None:
        if not variants:
            raise NotApplicableError(f"object_shape: no processor dimension of {pr} divides a side of {ob}")
        stack_dim, cut_dim = variants[0]
    if (stack_dim, cut_dim) not in variants:
        raise NotApplicableError(
            f"stack_dim: {pr[stack_dim] if stack_dim is not None and 0 <= stack_dim < 3 else '?'} pieces "
            f"do not cut object dimension {cut_dim} of {ob} evenly; valid (stack_dim, cut_dim): {variants}"
        )
    s, c = int(stack_dim), int(cut_dim)
    pieces = pr[s]
    piece = list(ob)
    piece[c] //= pieces
    plane = [pr[k] for k in range(3) if k != s]
    if base is None:
        base, cells2 = best_layout_2d(piece, plane)
    else:
        cells2 = layout_2d(base, piece, plane)
    oc = object_coords(ob)
    p = oc[:, c] // piece[c]
    local = oc.copy()
    local[:, c] = oc[:, c] % piece[c]
    if fold:
        odd = p % 2 == 1
        local[odd, c] = piece[c] - 1 - local[odd, c]
    pc = cells2[local[:, 0] + piece[0] * local[:, 1]]
    out = np.empty((oc.shape[0], 3), dtype=np.int64)
    others = [k for k in range(3) if k != s]
    out[:, s] = p
    out[:, others[0]] = pc[:, 0]
    out[:, others[1]] = pc[:, 1]
    return out, base


def _curve_keys(coords: np.ndarray, shape: Sequence[int], curve: str) -> np.ndarray:
    if curve == "hilbert":
        bits = max(1, max(int(math.ceil(math.log2(s))) for s in shape))
        if bits * coords.shape[1] > 64:
            raise NotApplicableError(f"shape: {tuple(shape)} is too large for 64-bit Hilbert keys")
        return hilbert_keys(coords, bits)
    # snake (boustrophedon): the last dimension slowest; a dimension runs backwards when
    # the sum of the slower (already emitted) coordinates is odd
    key = np.zeros(coords.shape[0], dtype=np.int64)
    parity = np.zeros(coords.shape[0], dtype=np.int64)
    for k in range(coords.shape[1] - 1, -1, -1):
        v = np.where(parity % 2 == 0, coords[:, k], shape[k] - 1 - coords[:, k])
        key = key * shape[k] + v
        parity += v
    return key


def layout_sfc(object_shape: Sequence[int], proc_shape: Sequence[int], *, curve: str = "hilbert") -> np.ndarray:
    """Lay an object grid onto a cell grid along a space-filling curve (grid -> line -> mesh).

    Parameters
    ----------
    object_shape, proc_shape : sequence of int
        Grid lengths (any dimension counts), the same number of cells.
    curve : {"hilbert", "snake"}, optional
        Curve on both sides (default Hilbert; ties of the key by index).

    Returns
    -------
    (n, len(proc_shape)) ndarray of int64
        Cell of every object (objects numbered dimension 0 fastest).

    Examples
    --------
    >>> layout_sfc((4,), (2, 2), curve="snake").tolist()
    [[0, 0], [1, 0], [1, 1], [0, 1]]
    """
    if curve not in CURVES:
        raise InvalidInputError(f"curve: unknown {curve!r}; valid: {sorted(CURVES)}")
    ob = tuple(int(v) for v in object_shape)
    pr = tuple(int(v) for v in proc_shape)
    if math.prod(ob) != math.prod(pr):
        raise NotApplicableError(f"object_shape: {math.prod(ob)} objects do not match {math.prod(pr)} cells")
    oc = object_coords(ob)
    pc = object_coords(pr)
    oo = np.argsort(_curve_keys(oc, ob, curve), kind="stable")
    po = np.argsort(_curve_keys(pc, pr, curve), kind="stable")
    out = np.empty_like(pc)
    out[oo] = pc[po]
    return out


def _check_counts(graph: TaskGraph, machine: Machine) -> None:
    if graph.n_tasks != machine.n_procs:
        raise NotApplicableError(
            f"machine: the grid heuristics place one task per processor; got {graph.n_tasks} tasks "
            f"and {machine.n_procs} processors"
        )


def _map_stacked(graph, machine, fold, shape, fold_dim, stack_dim, cut_dim, base) -> Mapping:
    t0 = time.perf_counter()
    grid = proc_grid(machine, fold_dim=fold_dim)
    _check_counts(graph, machine)
    if grid.n_dims != 3:
        raise NotApplicableError(f"machine: stacking and folding need a 3-D cell grid; got {grid.label()}")
    oshape = grid_shape_of(graph, shape, n_dims=2)
    cells, used = layout_stack(oshape, grid.shape, fold=fold, stack_dim=stack_dim, cut_dim=cut_dim, base=base)
    ttp = grid.proc_at[cells[:, 0], cells[:, 1], cells[:, 2]]
    method = "fold" if fold else "stack"
    return finish(ttp, machine, graph, method, t0, object_shape=oshape, cells=grid.label(), base=used,
                  stack_dim=stack_dim, cut_dim=cut_dim)


def map_stack(
    graph: TaskGraph,
    machine: Machine,
    *,
    shape: Sequence[int] | None = None,
    fold_dim: int | None = None,
    stack_dim: int | None = None,
    cut_dim: int | None = None,
    base: str | None = None,
) -> Mapping:
    """Map a 2-D task grid onto a 3-D box allocation by stacking pieces on planes.

    Parameters
    ----------
    graph : TaskGraph
        Tasks numbered as an object grid (dimension 0 fastest).
    machine : TorusMachine
        A box allocation whose cell grid is 3-D, ``n_procs == graph.n_tasks``.
    shape : (Ox, Oy) sequence of int, optional
        Object grid (default: from :func:`~mpitaskmap.mappers.grid.analysis.analyse_grid`).
    fold_dim : int, optional
        Machine dimension the cores of a router are folded into.
    stack_dim, cut_dim, base : optional
        See :func:`layout_stack`.

    Returns
    -------
    Mapping
        A permutation; ``info`` names the base heuristic.

    Raises
    ------
    InvalidInputError
        If the machine is not a 3-D box, the counts differ, the graph is not a 2-D grid,
        or the pieces do not divide evenly.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> m = map_stack(TaskGraph.stencil([8, 4]), torus_machine([2, 4, 4], wrap=False))
    >>> m.is_permutation, m.info["base"]
    (True, 'mxovlp')
    """
    return _map_stacked(graph, machine, False, shape, fold_dim, stack_dim, cut_dim, base)


def map_fold(
    graph: TaskGraph,
    machine: Machine,
    *,
    shape: Sequence[int] | None = None,
    fold_dim: int | None = None,
    stack_dim: int | None = None,
    cut_dim: int | None = None,
    base: str | None = None,
) -> Mapping:
    """Map a 2-D task grid onto a 3-D box allocation by accordion folding.

    Same parameters, result and errors as :func:`map_stack`; every other piece is
    mirrored across the cut so that the objects on both sides of a cut are one hop apart.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> g, m = TaskGraph.stencil([8, 4]), torus_machine([2, 4, 4], wrap=False)
    >>> map_fold(g, m).metric("average_hops") <= map_stack(g, m).metric("average_hops")
    True
    """
    return _map_stacked(graph, machine, True, shape, fold_dim, stack_dim, cut_dim, base)


def map_sfc(
    graph: TaskGraph,
    machine: Machine,
    *,
    shape: Sequence[int] | None = None,
    fold_dim: int | None = None,
    curve: str = "hilbert",
) -> Mapping:
    """Map a task grid onto a box allocation along a space-filling curve.

    Parameters
    ----------
    graph : TaskGraph
        Tasks numbered as a grid of any dimension count (dimension 0 fastest).
    machine : TorusMachine
        A box allocation, ``n_procs == graph.n_tasks``.
    shape : sequence of int, optional
        Object grid (default: from the analyser).
    fold_dim : int, optional
        Machine dimension the cores of a router are folded into.
    curve : {"hilbert", "snake"}, optional
        See :func:`layout_sfc`.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        If the machine is not a box allocation, the counts differ or the graph is not a
        regular grid.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> map_sfc(TaskGraph.stencil([4, 4]), torus_machine([4, 4])).metric("average_hops")
    1.0
    """
    t0 = time.perf_counter()
    grid = proc_grid(machine, fold_dim=fold_dim)
    _check_counts(graph, machine)
    oshape = grid_shape_of(graph, shape)
    cells = layout_sfc(oshape, grid.shape, curve=curve)
    ttp = grid.proc_at[tuple(cells.T)]
    return finish(ttp, machine, graph, "sfc", t0, object_shape=oshape, cells=grid.label(), curve=curve)



def best_layout(object_shape: Sequence[int], cell_shape: Sequence[int]) -> tuple[str, np.ndarray]:
    """Return the layout of a 2-D object grid with the shortest total edge length, and its name.

    Tries every heuristic that applies to the cell-grid dimension count (1-D or 2-D: the
    2-D suite; 3-D: stacking and folding in every variant; any: both curves) and ranks
    them by the Manhattan length of the 5-point edges on the cell grid (ties: the earlier).

    Examples
    --------
    >>> name, cells = best_layout((8, 4), (2, 4, 4))
    >>> name, cells.shape
    ('fold s=0 c=0 mxovlp', (32, 3))
    """
    ob = tuple(int(v) for v in object_shape)
    cs = tuple(int(v) for v in cell_shape)
    tries = []
    if len(cs) <= 2:
        cs2 = cs + (1,) * (2 - len(cs))
        tries += [(m, (lambda m=m: (layout_2d(m, ob, cs2)[:, : len(cs)], "")))
                  for m in HEURISTICS_2D]
    elif len(cs) == 3:
        for s, c in stack_variants(ob, cs):
            for fold in (False, True):
                tries.append((f"{'fold' if fold else 'stack'} s={s} c={c}",
                              (lambda s=s, c=c, fold=fold: layout_stack(ob, cs, fold=fold, stack_dim=s, cut_dim=c))))
    tries += [(f"sfc {c}", (lambda c=c: (layout_sfc(ob, cs, curve=c), ""))) for c in CURVES]
    best = None
    for name, fn in tries:
        cells, base = fn()
        cost = plane_cost(cells, ob)
        if best is None or cost < best[0]:
            best = (cost, f"{name} {base}".strip(), cells)
    return best[1], best[2]


def block_shapes(object_shape: Sequence[int], cores: int) -> list[tuple[int, int]]:
    """Return the blocks ``(bx, by)`` with ``bx * by == cores`` that tile the object grid.

    Examples
    --------
    >>> block_shapes((32, 8), 4)
    [(2, 2), (1, 4), (4, 1)]
    """
    ox, oy = (int(v) for v in object_shape)
    out = [(b, cores // b) for b in range(1, cores + 1) if cores % b == 0 and ox % b == 0 and oy % (cores // b) == 0]
    # squarest first, then by bx
    return sorted(out, key=lambda v: (abs(v[0] - v[1]), -v[1]))


def layout_blocked(
    object_shape: Sequence[int], cell_shape: Sequence[int], cores: int, fold_axis: int, block: Sequence[int]
) -> tuple[np.ndarray, str]:
    """Lay a 2-D object grid onto routers block by block: one ``bx x by`` block per router.

    The object grid is coarsened into blocks of ``cores`` objects; the coarse grid is laid
    onto the router grid with :func:`best_layout`; the objects of a block go to the cores
    of its router (a block's internal messages then cost no hop).

    Parameters
    ----------
    object_shape : (Ox, Oy) sequence of int
        Object grid.
    cell_shape : sequence of int
        Cell grid whose axis ``fold_axis`` holds ``length * cores`` cells (cores folded in).
    cores : int
        Processors per router.
    fold_axis : int
        Axis of ``cell_shape`` holding the cores.
    block : (bx, by) sequence of int
        Block shape, ``bx * by == cores``, dividing the object grid.

    Returns
    -------
    cells : (n, len(cell_shape)) ndarray of int64
    coarse : str
        The coarse layout's name.

    Examples
    --------
    >>> cells, _ = layout_blocked((4, 2), (4, 2), 2, 0, (2, 1))
    >>> (cells[:, 0] // 2).tolist()  # router column of every object
    [0, 0, 1, 1, 0, 0, 1, 1]
    """
    ox, oy = (int(v) for v in object_shape)
    bx, by = (int(v) for v in block)
    if bx * by != cores or ox % bx or oy % by:
        raise NotApplicableError(f"block: {bx}x{by} must hold {cores} objects and tile the {ox}x{oy} grid")
    node_shape = list(int(v) for v in cell_shape)
    node_shape[fold_axis] //= cores
    keep = [k for k, length in enumerate(node_shape) if length > 1] or [0]
    coarse_shape = (ox // bx, oy // by)
    name, coarse = best_layout(coarse_shape, [node_shape[k] for k in keep])
    full = np.zeros((coarse.shape[0], len(node_shape)), dtype=np.int64)
    full[:, keep] = coarse
    oc = object_coords((ox, oy))
    blk = oc[:, 0] // bx + coarse_shape[0] * (oc[:, 1] // by)
    q = oc[:, 0] % bx + bx * (oc[:, 1] % by)
    cells = full[blk]
    cells[:, fold_axis] = cells[:, fold_axis] * cores + q
    return cells, name


def map_blocked(
    graph: TaskGraph,
    machine: Machine,
    *,
    shape: Sequence[int] | None = None,
    block: Sequence[int] | None = None,
) -> Mapping:
    """Map a 2-D task grid onto a box allocation with several cores per router, block-wise.

    Parameters
    ----------
    graph : TaskGraph
        Tasks numbered as a 2-D object grid.
    machine : TorusMachine
        A box allocation with ``c > 1`` processors per router and ``n_procs ==
        graph.n_tasks``.
    shape : (Ox, Oy) sequence of int, optional
        Object grid (default: from the analyser).
    block : (bx, by) sequence of int, optional
        Objects per router (default: the squarest of :func:`block_shapes`).

    Returns
    -------
    Mapping
        ``info`` names the block and the coarse layout.

    Raises
    ------
    InvalidInputError
        If the machine has one processor per router or no block tiles the grid.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> g, m = TaskGraph.stencil([32, 8]), torus_machine([4, 4, 4], wrap=False, cores_per_node=4)
    >>> map_blocked(g, m).metric("average_hops")  # the lower bound: 216 of 472 pairs cross routers
    0.4576271186440678
    """
    t0 = time.perf_counter()
    grid = proc_grid(machine)
    _check_counts(graph, machine)
    if grid.cores == 1:
        raise NotApplicableError("machine: blocking needs several processors per router; got 1")
    oshape = grid_shape_of(graph, shape, n_dims=2)
    if block is None:
        options = block_shapes(oshape, grid.cores)
        if not options:
            raise NotApplicableError(f"shape: no block of {grid.cores} objects tiles the grid {oshape}")
        block = options[0]
    cells, name = layout_blocked(oshape, grid.shape, grid.cores, grid.fold_axis, block)
    ttp = grid.proc_at[tuple(cells.T)]
    return finish(ttp, machine, graph, "block", t0, object_shape=oshape, cells=grid.label(),
                  block=tuple(int(v) for v in block), coarse=name)
