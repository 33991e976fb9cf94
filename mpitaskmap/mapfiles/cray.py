"""Cray MPICH_RANK_ORDER files (MPICH_RANK_REORDER_METHOD=3).

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.
"""

from __future__ import annotations

import sys  # noqa: F401  (the doctests write to sys.stdout)


import numpy as np

from .._textio import rank_ranges
from ..errors import InvalidInputError
from ..machines import Machine
from ..mapping import Mapping, as_mapping
from ..graphs.taskgraph import TaskGraph
from ._io import _content_lines, _file_mapping, _line_error, _name, _opened


RANK_ORDER_HEADER = "# mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3"


# -- Cray MPICH_RANK_ORDER ----------------------------------------------------------------
def write_mpich_rank_order(mapping: Mapping, path, *, ranges: bool = False) -> None:
    """Write a Cray ``MPICH_RANK_ORDER`` file (for ``MPICH_RANK_REORDER_METHOD=3``).

    Parameters
    ----------
    mapping : Mapping
        A permutation mapping; processor ids are the launcher's slot order.
    path : str, path-like or text stream
        Where to write (Cray MPICH looks for a file named ``MPICH_RANK_ORDER``).
    ranges : bool, optional
        Write runs of consecutive ranks as ``a-b`` (default False: every rank listed).

    Raises
    ------
    InvalidInputError
        If the mapping is not a permutation.

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> m = Mapping([0, 2, 1, 3], torus_machine([2], cores_per_node=2))
    >>> write_mpich_rank_order(m, sys.stdout)
    # mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3
    0,2
    1,3
    """
    as_mapping(mapping)
    if not mapping.is_permutation:
        raise InvalidInputError(
            f"mapping: MPICH_RANK_ORDER needs one rank per processor; got {mapping.n_tasks} tasks "
            f"on {mapping.machine.n_procs} processors"
        )
    order = mapping.inverse().tolist()
    nodes = mapping.machine.node_ids
    breaks = np.flatnonzero(nodes[1:] != nodes[:-1]) + 1
    bounds = [0, *breaks.tolist(), len(order)]
    lines = [RANK_ORDER_HEADER]
    for a, b in zip(bounds[:-1], bounds[1:]):
        chunk = order[a:b]
        lines.append(rank_ranges(chunk) if ranges else ",".join(map(str, chunk)))
    with _opened(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def read_mpich_rank_order(path, machine: Machine, graph: TaskGraph | None = None) -> Mapping:
    """Read a Cray ``MPICH_RANK_ORDER`` file into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: entry ``i`` is the rank placed on processor ``i``.
    machine : Machine
        The processors in launch order.
    graph : TaskGraph, optional
        Attached to the result for metrics.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a malformed entry (naming the line), a repeated or missing rank, or more
        entries than processors.
    """
    name = _name(path)
    entries: list[int] = []
    first_line: dict[int, int] = {}
    with _opened(path, "r") as fh:
        for lineno, text, raw in _content_lines(fh):
            for tok in text.replace(",", " ").split():
                try:
                    if "-" in tok.lstrip("-"):
                        a, b = (int(v) for v in tok.split("-"))
                        vals = list(range(a, b + 1)) if a <= b else list(range(a, b - 1, -1))
                    else:
                        vals = [int(tok)]
                except ValueError:
                    raise _line_error(name, lineno, raw, f"bad rank entry {tok!r}") from None
                for v in vals:
                    if v < 0:
                        raise _line_error(name, lineno, raw, f"negative rank {v}")
                    if v in first_line:
                        raise _line_error(name, lineno, raw, f"rank {v} already listed on line {first_line[v]}")
                    first_line[v] = lineno
                    entries.append(v)
    n = len(entries)
    if n == 0:
        raise InvalidInputError(f"{name}: no ranks found; got an empty rank order")
    if n > machine.n_procs:
        raise InvalidInputError(f"{name}: lists {n} ranks but the machine has {machine.n_procs} processors; got {n}")
    missing = sorted(set(range(n)) - set(entries))
    if missing:
        raise InvalidInputError(f"{name}: ranks must be 0..{n - 1}, each once; got rank {missing[0]} missing")
    ttp = np.empty(n, dtype=np.intp)
    ttp[np.asarray(entries)] = np.arange(n)
    return _file_mapping(name, ttp, machine, graph, capacity=1, method=f"MPICH_RANK_ORDER {name}")
