"""Blue Gene/P and /Q map files: router coordinates plus core slot per rank.

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.
"""

from __future__ import annotations

import sys  # noqa: F401  (the doctests write to sys.stdout)

import numpy as np

from ..errors import InvalidInputError
from ..machines import TorusMachine, require_router_grid
from ..mapping import Mapping
from ..graphs.taskgraph import TaskGraph
from ._io import _file_mapping, _int_lines, _name, _torus, write_coordinate_lines


# -- Blue Gene ----------------------------------------------------------------------------
def mapping_coords(mapping: Mapping) -> np.ndarray:
    """Return the Blue Gene coordinates of every task: router coordinates plus core slot.

    Parameters
    ----------
    mapping : Mapping
        A mapping on a :class:`~mpitaskmap.machines.TorusMachine`.

    Returns
    -------
    (n_tasks, n_dims + 1) ndarray of int64
        Row ``t``: the router coordinates of task ``t``'s processor, then its slot.
    """
    machine = _torus(mapping)
    p = mapping.task_to_proc
    return np.column_stack([machine.router_coords[p], machine.router_slots()[p]]).astype(np.int64)


def coords_to_procs(coords, machine: TorusMachine) -> np.ndarray:
    """Return the processor at every row of router coordinates plus slot.

    Parameters
    ----------
    coords : (n, n_dims + 1) or (n, n_dims) array_like of int
        Router coordinates then the slot
        (:meth:`~mpitaskmap.machines.TorusMachine.router_slots`); without the slot column,
        slot 0.
    machine : TorusMachine
        The processors.

    Returns
    -------
    (n,) ndarray of intp
        Processor ids.

    Raises
    ------
    InvalidInputError
        On the wrong number of columns, or a row with no processor (naming its index,
        ``coords[i]``).

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> coords_to_procs([[1, 1], [0, 0]], torus_machine([2], cores_per_node=2)).tolist()
    [3, 0]
    """
    require_router_grid(machine, "a Blue Gene map file", InvalidInputError)
    arr = np.asarray(coords)
    procs, found = machine.procs_at(arr)
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise InvalidInputError(
            f"coords: coords[{i}] names no processor of the machine (router coordinates, slot); got {arr[i].tolist()}"
        )
    return procs


def write_bluegene_map(mapping: Mapping, path) -> None:
    """Write a Blue Gene/P or /Q map file: per rank, router coordinates and core slot.

    Parameters
    ----------
    mapping : Mapping
        A mapping on a :class:`~mpitaskmap.machines.TorusMachine` (BG/P: 3-D, BG/Q: 5-D).
    path : str, path-like or text stream
        Where to write.

    Raises
    ------
    InvalidInputError
        If the machine has no router coordinates.

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> m = Mapping([1, 2, 0], torus_machine([3]))
    >>> write_bluegene_map(m, sys.stdout)
    1 0
    2 0
    0 0
    """
    write_coordinate_lines(mapping_coords(mapping), path)


def read_bluegene_map(path, machine: TorusMachine, graph: TaskGraph | None = None) -> Mapping:
    """Read a Blue Gene map file into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: line ``r`` holds rank ``r``'s router coordinates and slot (a file with
        only the router coordinates means slot 0).
    machine : TorusMachine
        The machine the coordinates refer to.
    graph : TaskGraph, optional
        Attached to the result for metrics.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a malformed line, a coordinate/slot with no processor (naming the line), or
        two ranks on one processor.
    """
    require_router_grid(machine, "a Blue Gene map file", InvalidInputError)
    name = _name(path)
    coords, lines, rows = _int_lines(path)
    try:
        procs, found = machine.procs_at(coords)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{name}: {exc}") from None
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise InvalidInputError(
            f"{name}:{lines[i]}: no processor of the machine at these router coordinates and slot; "
            f"got {rows[i]!r}"
        )
    return _file_mapping(name, procs, machine, graph, method=f"bluegene map {name}")
