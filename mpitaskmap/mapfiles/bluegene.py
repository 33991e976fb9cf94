"""Blue Gene/P and /Q map files: router coordinates plus core slot per rank.

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.
"""

from __future__ import annotations

import sys  # noqa: F401  (the doctests write to sys.stdout)


import numpy as np

from ..errors import InvalidInputError
from ..machine import TorusMachine
from ..mapping import Mapping
from ..taskgraph import TaskGraph
from ._io import _int_lines, _name, _torus, write_coordinate_lines


# -- Blue Gene ----------------------------------------------------------------------------
def router_slots(machine: TorusMachine) -> np.ndarray:
    """Return the slot of every processor on its router (0, 1, ... in processor-id order).

    Parameters
    ----------
    machine : TorusMachine
        The processors.

    Returns
    -------
    (n_procs,) ndarray of intp
        Position of each processor among the processors that share its router.

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
    >>> router_slots(torus_machine([2], cores_per_node=3)).tolist()
    [0, 1, 2, 0, 1, 2]
    """
    if not isinstance(machine, TorusMachine):
        raise InvalidInputError(f"machine: expected a TorusMachine; got {type(machine).__name__}")
    rid = machine.router_ids()
    order = np.argsort(rid, kind="stable")
    sorted_rid = rid[order]
    starts = np.concatenate(([True], sorted_rid[1:] != sorted_rid[:-1]))
    first = np.maximum.accumulate(np.where(starts, np.arange(rid.size), 0))
    slots = np.empty(rid.size, dtype=np.intp)
    slots[order] = np.arange(rid.size) - first
    return slots


def mapping_coords(mapping: Mapping) -> np.ndarray:
    """Return the Blue Gene coordinates of every task: router coordinates plus core slot.

    Parameters
    ----------
    mapping : Mapping
        A mapping on a :class:`~mpitaskmap.machine.TorusMachine`.

    Returns
    -------
    (n_tasks, n_dims + 1) ndarray of int64
        Row ``t``: the router coordinates of task ``t``'s processor, then its slot.
    """
    machine = _torus(mapping)
    p = mapping.task_to_proc
    return np.column_stack([machine.router_coords[p], router_slots(machine)[p]]).astype(np.int64)


def _lookup(coords: np.ndarray, machine: TorusMachine) -> tuple[np.ndarray, np.ndarray]:
    """Return (processor, found) for every (router coordinates[, slot]) row of ``coords``."""
    d = machine.n_dims
    if coords.ndim != 2 or coords.shape[1] not in (d, d + 1):
        raise InvalidInputError(
            f"coords: expected {d + 1} columns (router coordinates of a {d}-D machine, then the slot) "
            f"or {d} (slot 0); got shape {coords.shape}"
        )
    slot = coords[:, d] if coords.shape[1] == d + 1 else np.zeros(coords.shape[0], dtype=np.int64)
    router = coords[:, :d]
    bad = ((router < 0) | (router >= machine.dims[None, :])).any(axis=1) | (slot < 0)
    proc_slots = router_slots(machine).astype(np.int64)
    width = int(proc_slots.max()) + 1
    strides = np.concatenate(([1], np.cumprod(machine.dims[:-1]))).astype(np.int64)
    proc_keys = machine.router_ids() * width + proc_slots
    order = np.argsort(proc_keys, kind="stable")
    sorted_keys = proc_keys[order]
    keys = np.where(bad, -1, (np.clip(router, 0, None) @ strides) * width + np.minimum(slot, width))
    pos = np.clip(np.searchsorted(sorted_keys, keys), 0, sorted_keys.size - 1)
    found = ~bad & (slot < width) & (sorted_keys[pos] == keys)
    return order[pos].astype(np.intp), found


def coords_to_procs(coords, machine: TorusMachine) -> np.ndarray:
    """Return the processor at every row of router coordinates plus slot.

    Parameters
    ----------
    coords : (n, n_dims + 1) or (n, n_dims) array_like of int
        Router coordinates then the slot (:func:`router_slots`); without the slot
        column, slot 0.
    machine : TorusMachine
        The processors.

    Returns
    -------
    (n,) ndarray of intp
        Processor ids.

    Raises
    ------
    InvalidInputError
        On the wrong number of columns, or a row with no processor (naming the row).

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
    >>> coords_to_procs([[1, 1], [0, 0]], torus_machine([2], cores_per_node=2)).tolist()
    [3, 0]
    """
    if not isinstance(machine, TorusMachine):
        raise InvalidInputError(f"machine: expected a TorusMachine; got {type(machine).__name__}")
    arr = np.asarray(coords)
    if arr.ndim != 2 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidInputError(f"coords: expected a 2-D integer array; got shape {arr.shape}, dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    procs, found = _lookup(arr, machine)
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise InvalidInputError(
            f"coords: row {i} names no processor of the machine (router coordinates, slot); got {arr[i].tolist()}"
        )
    return procs


def write_bluegene_map(mapping: Mapping, path) -> None:
    """Write a Blue Gene/P or /Q map file: per rank, router coordinates and core slot.

    Parameters
    ----------
    mapping : Mapping
        A mapping on a :class:`~mpitaskmap.machine.TorusMachine` (BG/P: 3-D, BG/Q: 5-D).
    path : str, path-like or text stream
        Where to write.

    Raises
    ------
    InvalidInputError
        If the machine has no router coordinates.

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
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
    if not isinstance(machine, TorusMachine):
        raise InvalidInputError(f"machine: expected a TorusMachine; got {type(machine).__name__}")
    name = _name(path)
    coords, lines, rows = _int_lines(path)
    try:
        procs, found = _lookup(coords, machine)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{name}: {exc}") from None
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise InvalidInputError(
            f"{name}:{lines[i]}: no processor of the machine at these router coordinates and slot; "
            f"got {rows[i]!r}"
        )
    return Mapping(procs, machine, graph, method=f"bluegene map {name}")
