"""One regular-grid heuristic by name (ALGORITHMS.md section 4): :func:`map_grid`.

The heuristics of Bhatele, Gupta, Kalé and Chung for regular 2-D/3-D communication grids
on box allocations: the 2-D suite (:mod:`~mpitaskmap.mappers.grid.onto_2d`), stacking, folding,
space-filling curves and blocking (:mod:`~mpitaskmap.mappers.grid.onto_3d`) and PAIRS
(:mod:`~mpitaskmap.mappers.grid.pairs`).  The analyse-then-try-everything method is
:func:`mpitaskmap.search.methods.map_regular`; the heuristics as search candidates are the
family :mod:`mpitaskmap.search.families.grid`.
"""

from __future__ import annotations

from ...errors import InvalidInputError
from ...machines import Machine
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph
from .onto_2d import HEURISTICS_2D, map_grid2d
from .onto_3d import map_blocked, map_fold, map_sfc, map_stack
from .pairs import map_pairs

__all__ = ["map_grid", "GRID_METHODS"]

#: Heuristic name -> its function: the one dispatch of the suite by name.
_FUNCTIONS = {**{h: map_grid2d for h in HEURISTICS_2D}, "stack": map_stack, "fold": map_fold, "sfc": map_sfc,
              "block": map_blocked, "pairs": map_pairs}

#: Every method of :func:`map_grid`.
GRID_METHODS = tuple(_FUNCTIONS)


def map_grid(graph: TaskGraph, machine: Machine, *, method: str = "affn", **options) -> Mapping:
    """Map a grid of tasks with one heuristic of the suite, chosen by name.

    Parameters
    ----------
    graph : TaskGraph
        Tasks numbered as an object grid (dimension 0 fastest).
    machine : TorusMachine
        A box allocation with ``n_procs == graph.n_tasks``.
    method : str, optional
        One of :data:`GRID_METHODS` (default "affn").
    **options
        Keyword options of the method's function (``shape``, ``fold_dim``, ...): the one
        place that calls a heuristic by name (the grid family and ``regular`` come here).

    Returns
    -------
    Mapping

    Raises
    ------
    ValueError
        On an unknown method (the message lists the valid ones).
    InvalidInputError
        When the method does not apply (see the method's function).

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> map_grid(TaskGraph.stencil([8, 4]), torus_machine([2, 4, 4]), method="fold").is_permutation
    True
    """
    fn = _FUNCTIONS.get(method)
    if fn is None:
        raise InvalidInputError(f"method: unknown grid heuristic {method!r}; valid: {sorted(GRID_METHODS)}")
    if fn is map_grid2d:  # one function for the whole 2-D suite: it takes the name
        options = dict(options, method=method)
    return fn(graph, machine, **options)
