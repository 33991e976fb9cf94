"""Open MPI rankfiles (mpirun --rankfile).

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.
"""

from __future__ import annotations

import sys  # noqa: F401  (the doctests write to sys.stdout)


import numpy as np

from ..errors import InvalidInputError
from ..machines import Machine
from ..mapping import Mapping, as_mapping
from ..graphs.taskgraph import TaskGraph
from ._io import _content_lines, _file_mapping, _line_error, _name, _opened
from .hosts import _node_of_host, _node_procs, host_names, node_slots


# -- Open MPI rankfile -------------------------------------------------------------------------
def write_openmpi_rankfile(mapping: Mapping, path, *, hosts=None) -> None:
    """Write an Open MPI rankfile (``mpirun --rankfile FILE``): per rank, host and core slot.

    Parameters
    ----------
    mapping : Mapping
        Any mapping (processor ids are the cores of the allocation in launch order).
    path : str, path-like or text stream
        Where to write.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, see :func:`host_names` (default ``"nid%05d"``).

    Raises
    ------
    InvalidInputError
        On bad host names.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> m = Mapping([2, 0, 1, 3], FlatMachine([0, 0, 1, 1]))
    >>> write_openmpi_rankfile(m, sys.stdout, hosts=["n1", "n2"])
    rank 0=n2 slot=0
    rank 1=n1 slot=0
    rank 2=n1 slot=1
    rank 3=n2 slot=1
    """
    as_mapping(mapping)
    machine = mapping.machine
    names = host_names(machine, hosts)
    p = mapping.task_to_proc
    node = machine.node_ids[p].tolist()
    slot = node_slots(machine)[p].tolist()
    text = "".join(f"rank {r}={names[k]} slot={s}\n" for r, (k, s) in enumerate(zip(node, slot)))
    with _opened(path, "w") as fh:
        fh.write(text)


def read_openmpi_rankfile(path, machine: Machine, graph: TaskGraph | None = None, *, hosts=None) -> Mapping:
    """Read an Open MPI rankfile into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: lines ``rank R=HOST slot=S`` (any order, ranks 0..n-1 once each) with a
        single logical core ``S`` (:func:`node_slots`); ``#`` lines are skipped.
    machine : Machine
        The processors the file refers to.
    graph : TaskGraph, optional
        Attached to the result for metrics.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, as given to the writer (:func:`host_names`).

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a malformed line, an unknown host, a slot the node does not have, a
        socket:core or range slot (naming the line), or ranks that are not 0..n-1 once
        each.
    """
    name = _name(path)
    node_of = _node_of_host(machine, hosts)
    procs = _node_procs(machine)
    placed: dict[int, tuple[int, int]] = {}
    with _opened(path, "r") as fh:
        for lineno, text, raw in _content_lines(fh):
            tok = text.split()
            if len(tok) != 3 or tok[0] != "rank" or "=" not in tok[1] or not tok[2].startswith("slot="):
                raise _line_error(name, lineno, raw, "expected 'rank R=HOST slot=S'")
            r_text, host = tok[1].split("=", 1)
            try:
                r, s = int(r_text), int(tok[2][5:])
            except ValueError:
                raise _line_error(
                    name, lineno, raw, "rank and slot must be integers (one logical core, as written here)"
                ) from None
            if r < 0 or s < 0:
                raise _line_error(name, lineno, raw, "rank and slot must be >= 0")
            if host not in node_of:
                raise _line_error(name, lineno, raw, f"unknown host {host!r} (not a node of the machine)")
            cores = procs[node_of[host]]
            if s >= cores.size:
                raise _line_error(name, lineno, raw, f"host {host} has slots 0..{cores.size - 1}")
            if r in placed:
                raise _line_error(name, lineno, raw, f"rank {r} already placed on line {placed[r][1]}")
            placed[r] = (int(cores[s]), lineno)
    n = len(placed)
    if n == 0:
        raise InvalidInputError(f"{name}: no 'rank' lines found; got an empty rankfile")
    missing = sorted(set(range(n)) - set(placed))
    if missing:
        raise InvalidInputError(f"{name}: ranks must be 0..{n - 1}, each once; got rank {missing[0]} missing")
    ttp = np.asarray([placed[r][0] for r in range(n)], dtype=np.intp)
    return _file_mapping(name, ttp, machine, graph, method=f"rankfile {name}")
