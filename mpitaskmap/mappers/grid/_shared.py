"""Shared plumbing of the regular-grid heuristics (private).

* :class:`ProcGrid` views the processors of a :class:`~mpitaskmap.machines.TorusMachine`
  allocation as a full Cartesian grid of *cells*: the allocated routers must form a box
  (:meth:`~mpitaskmap.machines.TorusMachine.box_shape`: every router of the box allocated,
  the same number ``c`` of processors on each).  With
  ``c > 1`` the cores of a router are folded into one dimension (``fold_dim``): virtual
  coordinate ``c * x + core``.  Dimensions of length 1 are dropped.
* Object grids: task ``t`` of an ``(Ox, Oy, ...)`` grid has coordinates
  ``(t % Ox, (t // Ox) % Oy, ...)`` (dimension 0 fastest, as
  :meth:`~mpitaskmap.graphs.taskgraph.TaskGraph.stencil` and the analyser number them).
* :func:`place_nearest`: the findNearest conflict resolution (compiled, near-linear).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ... import _grid
from ...errors import InvalidInputError, NotApplicableError
from .analysis import analyse_grid
from ...machines import Machine, require_router_grid
from ...mapping import Mapping

__all__ = [
    "ProcGrid", "proc_grid", "fold_variants", "object_coords", "place_nearest", "plane_cost", "grid_shape_of",
    "finish",
]


@dataclass(frozen=True)
class ProcGrid:
    """Processors of a box allocation as a dense grid of cells.

    Attributes
    ----------
    shape : tuple of int
        Cell-grid lengths (dimensions of length 1 dropped).
    proc_at : ndarray of intp, shape ``shape``
        Processor id of every cell.
    cores : int
        Processors per router.
    fold_dim : int or None
        Machine dimension the cores were folded into (None when ``cores == 1``).
    fold_axis : int or None
        Position of that dimension in ``shape``.
    """

    shape: tuple
    proc_at: np.ndarray
    cores: int
    fold_dim: int | None
    fold_axis: int | None = None

    @property
    def n_dims(self) -> int:
        """Number of cell-grid dimensions."""
        return len(self.shape)

    def label(self) -> str:
        """Return e.g. ``"16x4x4 (4 cores folded into dim 0)"``."""
        s = "x".join(map(str, self.shape))
        return s if self.cores == 1 else f"{s} ({self.cores} cores folded into dim {self.fold_dim})"


def proc_grid(machine: Machine, *, fold_dim: int | None = None) -> ProcGrid:
    """Return the cell grid of a box allocation; raise NotApplicableError when it is not one."""
    require_router_grid(machine, "the grid heuristics")
    box = machine.box_shape()  # raises when the allocation is not a full box
    v = machine.router_coords - np.asarray(box.origin, dtype=np.int64)  # cell coordinates before folding
    ext = np.asarray(box.lengths, dtype=np.int64)
    cores = box.cores
    dims = [int(e) for e in ext]
    if cores > 1:
        if fold_dim is None:
            fold_dim = int(np.argmax(ext > 1)) if (ext > 1).any() else 0
        if not 0 <= fold_dim < len(dims):
            raise InvalidInputError(f"fold_dim: must lie in [0, {len(dims)}); got {fold_dim}")
        v[:, fold_dim] = v[:, fold_dim] * cores + machine.router_slots()
        dims[fold_dim] *= cores
    else:
        fold_dim = None
    keep = [k for k in range(len(dims)) if dims[k] > 1] or [0]
    shape = tuple(dims[k] for k in keep)
    proc_at = np.empty(shape, dtype=np.intp)
    proc_at[tuple(v[:, k] for k in keep)] = np.arange(machine.n_procs, dtype=np.intp)
    axis = keep.index(fold_dim) if fold_dim is not None else None
    return ProcGrid(shape=shape, proc_at=proc_at, cores=cores, fold_dim=fold_dim, fold_axis=axis)


def fold_variants(machine: Machine) -> list:
    """Return the fold_dim values worth trying: ``[None]`` for one core per router, else each dim."""
    grid = proc_grid(machine)
    if grid.cores == 1:
        return [None]
    return list(range(machine.n_dims))


def object_coords(shape) -> np.ndarray:
    """Return the (n, d) int64 coordinates of an object grid, dimension 0 fastest."""
    d = len(shape)
    return np.indices(tuple(shape)[::-1]).reshape(d, -1)[::-1].T.astype(np.int64)


def grid_shape_of(graph, shape, n_dims: int | None = None) -> tuple:
    """Return the object-grid shape: ``shape`` checked, or the analyser's answer for ``graph``."""
    n = graph.n_tasks
    if shape is None:
        pattern = analyse_grid(graph)
        if not pattern.regular:
            raise NotApplicableError(f"graph: not a regular grid ({pattern.reason}); pass shape=")
        shape = pattern.dims
    shape = tuple(int(s) for s in shape)
    if min(shape) < 1 or int(np.prod(shape)) != n:
        raise NotApplicableError(f"shape: the grid lengths must multiply to n_tasks = {n}; got {shape}")
    shape = tuple(s for s in shape if s > 1) or (1,)
    if n_dims is not None:
        shape = shape + (1,) * (n_dims - len(shape))
        if len(shape) != n_dims:
            raise NotApplicableError(f"shape: expected a {n_dims}-D object grid; got {shape}")
    return shape


def place_nearest(ti, tj, nx: int, ny: int) -> tuple[np.ndarray, np.ndarray]:
    """Place objects (in the given order) on their target cell or the nearest free cell.

    Parameters
    ----------
    ti, tj : (n,) array_like of int
        Target column and row of every object, in placement order.
    nx, ny : int
        Mesh lengths; ``n <= nx * ny``.

    Returns
    -------
    oi, oj : (n,) ndarray of int64
        Chosen cells.

    Notes
    -----
    Nearest by Manhattan distance on the mesh; ties to the lower row distance with rows
    in the order j, j-1, j+1, ..., then the left column.  Per-row union-find "next free"
    arrays make a query cost O(number of non-full rows within the distance found).
    """
    ti = np.ascontiguousarray(ti, dtype=np.int64)
    tj = np.ascontiguousarray(tj, dtype=np.int64)
    n = ti.shape[0]
    if n > nx * ny:
        raise NotApplicableError(f"ti: {n} objects do not fit on a {nx}x{ny} mesh")
    oi = np.empty(n, dtype=np.int64)
    oj = np.empty(n, dtype=np.int64)
    status = _grid.place_nearest(ti, tj, oi, oj, nx, ny, *_mesh_work(nx, ny))
    if status != 0:  # pragma: no cover - guarded by the size check above
        raise NotApplicableError("ti: the mesh ran out of free cells")
    return oi, oj


def _mesh_work(nx: int, ny: int) -> tuple:
    """Fresh work arrays of the nearest-free search (cext/_grid.pyx): all cells free."""
    width = nx + 1
    return (
        np.arange(ny * width, dtype=np.intp),
        np.arange(ny * width, dtype=np.intp),
        np.arange(ny + 1, dtype=np.intp),
        np.arange(ny + 1, dtype=np.intp),
        np.full(ny, nx, dtype=np.intp),
    )


def plane_cost(cells: np.ndarray, shape: tuple) -> int:
    """Return the Manhattan length of all 5-point edges of a 2-D object grid laid on cells.

    ``cells`` is (n, d), row ``t`` the cell of object ``t`` (dimension 0 fastest).  Used to
    rank base-case layouts by shape alone, before any machine metric.
    """
    ox, oy = shape
    c = cells.reshape(oy, ox, cells.shape[1])
    cost = np.abs(np.diff(c, axis=1)).sum() + np.abs(np.diff(c, axis=0)).sum()
    return int(cost)


def finish(task_to_proc, machine: Machine, graph, method: str, t0: float, **info) -> Mapping:
    """Wrap a task -> processor array into a Mapping with timing info."""
    info["seconds"] = time.perf_counter() - t0
    return Mapping(task_to_proc, machine, graph, method=method, info=info)
