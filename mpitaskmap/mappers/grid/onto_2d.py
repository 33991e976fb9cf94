"""Heuristics that map a 2-D object grid onto a 2-D processor mesh (ALGORITHMS.md section 4).

Bhatele, Gupta, Kalé and Chung's suite for regular near-neighbour communication.  Every
heuristic sees only the two shapes: an ``Ox x Oy`` object grid (task ``t`` is object
``(t % Ox, t // Ox)``) and a ``Px x Py`` mesh of processor cells (see
:func:`~mpitaskmap.mappers.grid._shared.proc_grid`: a box allocation, cores of a router folded
into one dimension).  Each one first aligns the longer object dimension with the longer
processor dimension, then lays the objects out:

==========  ===========================================================================
MXOVLP      maximum overlap: overlap the grids at a corner, map the overlap one-to-one,
            recurse on the remaining rectangles (orientation kept; of the 16 mirrorings
            of the two rectangles the one with the shortest edges to already placed
            objects is used at each level)
MXOV+AL     the same, re-aligning longer with longer at every level
EXCO        expand from a corner: objects and processors ordered by Manhattan distance
            from corner (0, 0) (ties: lower y), the k-th object on the k-th processor,
            i.e. every object takes the free processor nearest the corner
COCE        corners to centre: four such fronts, one per corner, expand in turn
AFFN        affine: object (x, y) -> (floor(Px x / Ox), floor(Py y / Oy)); conflicts go to
            the nearest free processor (objects in task order)
STEP        step embedding of rows: each object row runs as a snake down and up the
            columns of a band of about ``Py / Oy`` processor rows
==========  ===========================================================================

PAIRS (pairwise exchanges) lives in :mod:`mpitaskmap.mappers.grid.pairs`; 2-D -> 3-D in
:mod:`mpitaskmap.mappers.grid.onto_3d`; :func:`mpitaskmap.mappers.grid.heuristics.map_regular` runs
them all and keeps the best by hop-bytes.
"""

from __future__ import annotations

import functools
import time
from typing import Sequence

import numpy as np

from ... import _grid
from ...errors import InvalidInputError, NotApplicableError
from ...machines import Machine
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph
from ._shared import _mesh_work, finish, grid_shape_of, object_coords, place_nearest, plane_cost, proc_grid

__all__ = [
    "HEURISTICS_2D",
    "layout_2d",
    "best_layout_2d",
    "map_grid2d",
    "map_mxovlp",
    "map_mxov_al",
    "map_exco",
    "map_coce",
    "map_affn",
    "map_step",
    "clear_layout_cache",
]

#: Names of the 2-D -> 2-D heuristics, in the order they are tried.
HEURISTICS_2D = ("mxovlp", "mxov+al", "exco", "coce", "affn", "step")


def layout_2d(method: str, object_shape: Sequence[int], proc_shape: Sequence[int]) -> np.ndarray:
    """Lay a 2-D object grid onto a 2-D mesh of cells with one heuristic.

    Parameters
    ----------
    method : {"mxovlp", "mxov+al", "exco", "coce", "affn", "step"}
        The heuristic.
    object_shape : (Ox, Oy) sequence of int
        Object grid; object ``t`` is ``(t % Ox, t // Ox)``.
    proc_shape : (Px, Py) sequence of int
        Cell mesh, ``Px * Py == Ox * Oy``.

    Returns
    -------
    (Ox * Oy, 2) ndarray of int64
        Cell ``(i, j)`` of every object; a bijection onto the mesh.

    Raises
    ------
    InvalidInputError
        On an unknown method or shapes of different sizes.

    Examples
    --------
    >>> layout_2d("affn", (4, 2), (2, 4))[:4].tolist()
    [[0, 0], [0, 1], [0, 2], [0, 3]]
    """
    if method not in _LAYOUTS:
        raise InvalidInputError(f"method: unknown {method!r}; valid: {sorted(_LAYOUTS)}")
    ox, oy = (int(v) for v in object_shape)
    px, py = (int(v) for v in proc_shape)
    if ox * oy != px * py or min(ox, oy, px, py) < 1:
        raise NotApplicableError(
            f"object_shape: {ox}x{oy} objects do not match the {px}x{py} processor mesh one-to-one"
        )
    return _layout_cached(method, ox, oy, px, py).copy()


def clear_layout_cache() -> None:
    """Forget the layouts computed so far.

    :func:`layout_2d` keeps the last 64 layouts (keyed by method and shapes, returned as
    copies): the 2-D -> 3-D heuristics and :func:`~mpitaskmap.mappers.grid.heuristics.map_regular`
    ask for the same piece layouts many times.  Benchmarks clear it to time cold runs.
    """
    _layout_cached.cache_clear()


@functools.lru_cache(maxsize=64)
def _layout_cached(method: str, ox: int, oy: int, px: int, py: int) -> np.ndarray:
    if (ox >= oy) != (px >= py) and ox != oy and px != py:
        cells = np.ascontiguousarray(_LAYOUTS[method](ox, oy, py, px)[:, ::-1])  # align, swap back
    else:
        cells = _LAYOUTS[method](ox, oy, px, py)
    cells.flags.writeable = False
    return cells


def best_layout_2d(
    object_shape: Sequence[int], proc_shape: Sequence[int], methods: Sequence[str] = HEURISTICS_2D
) -> tuple[str, np.ndarray]:
    """Return the heuristic whose layout has the shortest total edge length, and the layout.

    The length is the sum over the 5-point stencil edges of the Manhattan distance between
    the cells of the two objects (the hop count on a mesh of single-core routers); ties go
    to the earlier method.  This is the base case of the 2-D -> 3-D heuristics.

    Examples
    --------
    >>> name, cells = best_layout_2d((4, 4), (4, 4))
    >>> name, cells.shape
    ('mxovlp', (16, 2))
    """
    best = None
    for m in methods:
        cells = layout_2d(m, object_shape, proc_shape)
        cost = plane_cost(cells, tuple(int(v) for v in object_shape))
        if best is None or cost < best[0]:
            best = (cost, m, cells)
    return best[1], best[2]


def map_grid2d(
    graph: TaskGraph,
    machine: Machine,
    *,
    method: str = "affn",
    shape: Sequence[int] | None = None,
    fold_dim: int | None = None,
) -> Mapping:
    """Map a 2-D grid of tasks onto a 2-D mesh allocation with one heuristic.

    Parameters
    ----------
    graph : TaskGraph
        The tasks, numbered as an object grid (dimension 0 fastest).
    machine : TorusMachine
        A box allocation whose cell grid (cores folded in) is 2-D, with ``n_procs ==
        graph.n_tasks``.
    method : str, optional
        One of :data:`HEURISTICS_2D` (default "affn").
    shape : (Ox, Oy) sequence of int, optional
        Object grid; default: found by :func:`~mpitaskmap.mappers.grid.analysis.analyse_grid`.
    fold_dim : int, optional
        Machine dimension the cores of a router are folded into (default: the first
        dimension longer than 1).

    Returns
    -------
    Mapping
        A permutation; ``info`` has the shapes and the seconds spent.

    Raises
    ------
    InvalidInputError
        If the machine is not a 2-D box allocation, the counts differ, or the graph is
        not a 2-D grid.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> m = map_grid2d(TaskGraph.stencil([6, 5]), torus_machine([10, 3], wrap=False), method="affn")
    >>> m.is_permutation
    True
    """
    t0 = time.perf_counter()
    grid = proc_grid(machine, fold_dim=fold_dim)
    if graph.n_tasks != machine.n_procs:
        raise NotApplicableError(
            f"machine: the grid heuristics place one task per processor; got {graph.n_tasks} tasks "
            f"and {machine.n_procs} processors"
        )
    proc_at = grid.proc_at.reshape(-1, 1) if grid.n_dims == 1 else grid.proc_at
    if proc_at.ndim != 2:
        raise NotApplicableError(f"machine: a 2-D heuristic needs a 2-D mesh; got cells {grid.label()}")
    oshape = grid_shape_of(graph, shape, n_dims=2)
    cells = layout_2d(method, oshape, proc_at.shape)
    ttp = proc_at[cells[:, 0], cells[:, 1]]
    return finish(ttp, machine, graph, method, t0, object_shape=oshape, cells=grid.label())


def _make(method: str, label: str):
    def mapper(graph: TaskGraph, machine: Machine, *, shape=None, fold_dim=None) -> Mapping:
        return map_grid2d(graph, machine, method=method, shape=shape, fold_dim=fold_dim)

    mapper.__name__ = mapper.__qualname__ = "map_" + method.replace("+", "_")
    mapper.__doc__ = f"""Map a 2-D task grid onto a 2-D mesh with {label}.

    Same parameters, result and errors as :func:`map_grid2d` with ``method={method!r}``.
    """
    return mapper


# ---------------------------------------------------------------------------------------
# layouts: (Ox, Oy, Px, Py), already aligned, -> (n, 2) int64 cells


def _cells_of_flat(flat: np.ndarray, px: int) -> np.ndarray:
    return np.stack([flat % px, flat // px], axis=1).astype(np.int64)


def _affn(ox, oy, px, py):
    c = object_coords((ox, oy))
    oi, oj = place_nearest((px * c[:, 0]) // ox, (py * c[:, 1]) // oy, px, py)
    return np.stack([oi, oj], axis=1)


_CORNERS = ((False, False), (True, False), (False, True), (True, True))


def _expand(ox, oy, px, py, fronts: int):
    """EXCO (one front from corner (0, 0)) and COCE (four fronts from the four corners)."""
    n = ox * oy
    c = object_coords((ox, oy))
    dist = np.empty((fronts, n), dtype=np.int64)
    for f, (fx, fy) in enumerate(_CORNERS[:fronts]):
        dist[f] = (ox - 1 - c[:, 0] if fx else c[:, 0]) + (oy - 1 - c[:, 1] if fy else c[:, 1])
    front = np.argmin(dist, axis=0)  # the nearest corner; ties to the lower front
    d = dist[front, np.arange(n)]
    # by distance from the own corner, then front, then the y distance, then x
    ydist = np.where(np.isin(front, [2, 3]), oy - 1 - c[:, 1], c[:, 1])
    order = np.lexsort((c[:, 0], ydist, front, d)).astype(np.intp)
    corner_i = np.array([px - 1 if fx else 0 for fx, _ in _CORNERS[:fronts]], dtype=np.int64)
    corner_j = np.array([py - 1 if fy else 0 for _, fy in _CORNERS[:fronts]], dtype=np.int64)
    oi = np.empty(n, dtype=np.int64)
    oj = np.empty(n, dtype=np.int64)
    status = _grid.expand_nearest(
        order, np.ascontiguousarray(front[order], dtype=np.intp), corner_i, corner_j, ox, oy, oi, oj,
        np.zeros(n, np.uint8), px, py, *_mesh_work(px, py),
    )
    if status != 0:  # pragma: no cover - n == px * py always leaves a free cell
        raise NotApplicableError("object_shape: the mesh ran out of free cells")
    return np.stack([oi, oj], axis=1)


def _exco(ox, oy, px, py):
    return _expand(ox, oy, px, py, 1)


def _coce(ox, oy, px, py):
    return _expand(ox, oy, px, py, 4)


def _step(ox, oy, px, py):
    if ox <= px and oy <= py:  # same shape
        return object_coords((ox, oy))
    if ox <= px:  # the object is taller than the mesh: step its columns instead
        return np.ascontiguousarray(_step_t(ox, oy, px, py))
    # object rows are longer than processor rows: band b of processor rows holds row b
    bnd = (np.arange(oy + 1, dtype=np.int64) * py + oy // 2) // oy
    heights = np.diff(bnd)
    cells = object_coords((px, py))
    i, j = cells[:, 0], cells[:, 1]
    band = np.searchsorted(bnd, j, side="right") - 1
    h = heights[band]
    r = j - bnd[band]
    pos = np.where(i % 2 == 0, r, h - 1 - r)
    seq = px * bnd[band] + i * h + pos  # position of every cell along the band snake
    out = np.empty((ox * oy, 2), dtype=np.int64)
    out[seq] = cells
    return out


def _step_t(ox, oy, px, py):
    # transpose both grids, step, transpose back (object t = (x, y) becomes t' = y + oy * x)
    cells_t = _step(oy, ox, py, px)
    c = object_coords((ox, oy))
    return cells_t[c[:, 1] + oy * c[:, 0]][:, ::-1]


def _flips(a: np.ndarray) -> list:
    return [a, a[::-1], a[:, ::-1], a[::-1, ::-1]]


def _mxovlp_core(ox, oy, px, py, realign: bool):
    n = ox * oy
    coords = object_coords((ox, oy))
    a = np.arange(n, dtype=np.int64).reshape(oy, ox).T  # a[x, y] = task
    b = np.arange(n, dtype=np.int64).reshape(py, px).T  # b[i, j] = flat cell
    cell = np.full(n, -1, dtype=np.int64)
    placed = False
    while a.size:
        a_opts = _flips(a)
        if realign:
            a_long, b_long = a.shape[0] >= a.shape[1], b.shape[0] >= b.shape[1]
            square = a.shape[0] == a.shape[1] or b.shape[0] == b.shape[1]
            if square:
                a_opts = a_opts + _flips(a.T)
            elif a_long != b_long:
                a_opts = _flips(a.T)
        best = None
        for ao in a_opts:
            for bo in _flips(b):
                cw, ch = min(ao.shape[0], bo.shape[0]), min(ao.shape[1], bo.shape[1])
                cost = _boundary_cost(ao[:cw, :ch], bo[:cw, :ch], cell, coords, ox, oy, px) if placed else 0
                if best is None or cost < best[0]:
                    best = (cost, ao, bo)
        _, ao, bo = best
        (w, h), (ww, hh) = ao.shape, bo.shape
        cw, ch = min(w, ww), min(h, hh)
        cell[ao[:cw, :ch].ravel()] = bo[:cw, :ch].ravel()
        placed = True
        if w > ww:
            a, b = ao[ww:, :], bo[:, h:]
        elif h > hh:
            a, b = ao[:, hh:], bo[w:, :]
        else:
            break
    return _cells_of_flat(cell, px)


def _boundary_cost(block_a, block_b, cell, coords, ox, oy, px) -> int:
    """Manhattan length of the edges from the block's perimeter objects to placed objects."""
    w, h = block_a.shape
    rows = np.unique([0, w - 1])
    cols = np.unique([0, h - 1])
    ta = np.concatenate([block_a[rows, :].ravel(), block_a[:, cols].ravel()])
    tb = np.concatenate([block_b[rows, :].ravel(), block_b[:, cols].ravel()])
    bi, bj = tb % px, tb // px
    total = 0
    x, y = coords[ta, 0], coords[ta, 1]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nx, ny = x + dx, y + dy
        ok = (nx >= 0) & (nx < ox) & (ny >= 0) & (ny < oy)
        nb = np.where(ok, nx + ox * ny, 0)
        c = cell[nb]
        ok &= c >= 0
        total += int((np.abs(bi - c % px) + np.abs(bj - c // px))[ok].sum())
    return total


def _mxovlp(ox, oy, px, py):
    return _mxovlp_core(ox, oy, px, py, realign=False)


def _mxov_al(ox, oy, px, py):
    return _mxovlp_core(ox, oy, px, py, realign=True)


_LAYOUTS = {
    "mxovlp": _mxovlp,
    "mxov+al": _mxov_al,
    "exco": _exco,
    "coce": _coce,
    "affn": _affn,
    "step": _step,
}

map_mxovlp = _make("mxovlp", "maximum overlap (MXOVLP)")
map_mxov_al = _make("mxov+al", "maximum overlap with re-alignment at every level (MXOV+AL)")
map_exco = _make("exco", "expansion from a corner (EXCO)")
map_coce = _make("coce", "expansion from the four corners to the centre (COCE)")
map_affn = _make("affn", "the affine scaling with nearest-free conflict resolution (AFFN)")
map_step = _make("step", "the step embedding of object rows (STEP)")
