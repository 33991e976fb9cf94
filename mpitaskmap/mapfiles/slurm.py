"""Slurm --distribution=arbitrary host lists (SLURM_HOSTFILE).

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
from .hosts import _node_of_host, _procs_of_nodes, host_names


# -- Slurm arbitrary distribution ----------------------------------------------------------------
def write_slurm_hostfile(mapping: Mapping, path, *, hosts=None) -> None:
    """Write a Slurm host list for ``srun --distribution=arbitrary`` (``SLURM_HOSTFILE``).

    Parameters
    ----------
    mapping : Mapping
        Any mapping; only the node of each rank is written.
    path : str, path-like or text stream
        Where to write (point ``SLURM_HOSTFILE`` at it).
    hosts : None, str or sequence of str, optional
        Host names of the nodes, see :func:`host_names` (default ``"nid%05d"``).

    Raises
    ------
    InvalidInputError
        On bad host names.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> write_slurm_hostfile(Mapping([2, 0, 1, 3], FlatMachine([0, 0, 1, 1])), sys.stdout)
    nid00001
    nid00000
    nid00000
    nid00001
    """
    as_mapping(mapping)
    names = host_names(mapping.machine, hosts)
    node = mapping.machine.node_ids[mapping.task_to_proc].tolist()
    with _opened(path, "w") as fh:
        fh.write("".join(names[k] + "\n" for k in node))


def read_slurm_hostfile(path, machine: Machine, graph: TaskGraph | None = None, *, hosts=None) -> Mapping:
    """Read a Slurm arbitrary-distribution host list into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: line ``r`` (blank and ``#`` lines skipped) is the host of rank ``r``.
    machine : Machine
        The processors the file refers to.
    graph : TaskGraph, optional
        Attached to the result for metrics.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, as given to the writer (:func:`host_names`).

    Returns
    -------
    Mapping
        The ranks of every node on its processors in ascending rank order (the file
        names nodes, not cores; see :func:`node_canonical`).

    Raises
    ------
    InvalidInputError
        On an unknown host or a line with more than one word (naming the line), an empty
        file, or more ranks on a node than it has processors (when the ranks fit the
        machine one per processor).
    """
    name = _name(path)
    node_of = _node_of_host(machine, hosts)
    task_node: list[int] = []
    with _opened(path, "r") as fh:
        for lineno, text, raw in _content_lines(fh):
            if len(text.split()) != 1:
                raise _line_error(name, lineno, raw, "expected one host name per line")
            if text not in node_of:
                raise _line_error(name, lineno, raw, f"unknown host {text!r} (not a node of the machine)")
            task_node.append(node_of[text])
    if not task_node:
        raise InvalidInputError(f"{name}: no host lines found; got an empty host list")
    ttp = _procs_of_nodes(np.asarray(task_node, dtype=np.intp), machine)
    return _file_mapping(name, ttp, machine, graph, method=f"SLURM_HOSTFILE {name}")
