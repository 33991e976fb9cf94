"""Plain CSV mapping files: rank, processor, node, coordinates, slot.

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.
"""

from __future__ import annotations

import sys  # noqa: F401  (the doctests write to sys.stdout)

import csv

import numpy as np

from ..errors import InvalidInputError
from ..machines import Machine
from ..mapping import Mapping, as_mapping
from ..graphs.taskgraph import TaskGraph
from ._io import _content_lines, _file_mapping, _line_error, _name, _opened


# -- CSV ----------------------------------------------------------------------------------
def write_mapping_csv(mapping: Mapping, path) -> None:
    """Write a plain CSV: rank, processor, node and (on a torus) coordinates and slot.

    Parameters
    ----------
    mapping : Mapping
        Any mapping.
    path : str, path-like or text stream
        Where to write.

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> write_mapping_csv(Mapping([1, 0], torus_machine([2])), sys.stdout)
    rank,proc,node,X,slot
    0,1,1,1,0
    1,0,0,0,0
    """
    as_mapping(mapping)
    machine = mapping.machine
    p = mapping.task_to_proc
    header = ["rank", "proc", "node"]
    cols = [np.arange(p.size), p, machine.node_ids[p]]
    if machine.has_router_grid:
        header += list(machine.dim_names) + ["slot"]
        cols += list(machine.router_coords[p].T) + [machine.router_slots()[p]]
    table = np.column_stack(cols).astype(np.int64)
    with _opened(path, "w") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(table.tolist())


def read_mapping_csv(path, machine: Machine, graph: TaskGraph | None = None) -> Mapping:
    """Read a CSV written by :func:`write_mapping_csv` into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file; needs ``rank`` and ``proc`` columns, any others are checked if known
        (``node``, the dimension names, ``slot``).
    machine : Machine
        The processors.
    graph : TaskGraph, optional
        Attached to the result for metrics.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a missing column, a non-integer cell, ranks that are not 0..n-1 each once, or a
        node/coordinate that disagrees with the machine (naming the line).
    """
    name = _name(path)
    with _opened(path, "r") as fh:
        content = [(lineno, raw, next(csv.reader([raw]))) for lineno, _, raw in _content_lines(fh)]
    if not content:
        raise InvalidInputError(f"{name}: no header found; got an empty file")
    header = [h.strip() for h in content[0][2]]
    for col in ("rank", "proc"):
        if col not in header:
            raise InvalidInputError(f"{name}:{content[0][0]}: the header needs a {col!r} column; got {header}")
    rows, lines = [], []
    for lineno, raw, row in content[1:]:
        if len(row) != len(header):
            raise _line_error(name, lineno, raw, f"expected {len(header)} cells like the header")
        try:
            rows.append([int(v) for v in row])
        except ValueError:
            raise _line_error(name, lineno, raw, "every cell must be an integer") from None
        lines.append(lineno)
    table = np.asarray(rows, dtype=np.int64).reshape(len(rows), len(header))
    if table.shape[0] == 0:
        raise InvalidInputError(f"{name}: no rows found; got a header only")
    col = {h: table[:, k] for k, h in enumerate(header)}
    rank, proc = col["rank"], col["proc"]
    n = rank.size
    if sorted(rank.tolist()) != list(range(n)):
        raise InvalidInputError(f"{name}: the rank column must hold 0..{n - 1} once each; got {rank[:8].tolist()}...")
    bad = (proc < 0) | (proc >= machine.n_procs)
    expected = {"node": None}
    if machine.has_router_grid:
        expected.update({d: k for k, d in enumerate(machine.dim_names)})
        expected["slot"] = -1
    safe = np.clip(proc, 0, machine.n_procs - 1)
    for h, k in expected.items():
        if h not in col:
            continue
        if h == "node":
            truth = machine.node_ids[safe]
        elif k == -1:
            truth = machine.router_slots()[safe]
        else:
            truth = machine.router_coords[safe, k]
        bad |= col[h] != truth
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"{name}:{lines[i]}: processor, node or coordinates do not match the machine; got {table[i].tolist()}"
        )
    ttp = np.empty(n, dtype=np.intp)
    ttp[rank] = proc
    return _file_mapping(name, ttp, machine, graph, method=f"csv {name}")
