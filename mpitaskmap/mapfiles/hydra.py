"""MPICH Hydra's placement: ``mpiexec -f HOSTFILE -rankmap MAP``, or a host file of rank runs.

Part of :mod:`mpitaskmap.mapfiles`.  Hydra starts one proxy per line of its host file
(``host[:count]``) and gives it the ranks the rank map assigns to that line; without a rank
map it deals ``count`` consecutive ranks to each line in turn.  Two lines naming the same host
are two proxies, which MPICH takes for two nodes (their ranks neither share memory nor see
each other in ``MPI_COMM_TYPE_SHARED``), so the ranks of a node must be given to one line:

* :func:`hydra_rankmap` (Hydra of MPICH 4.1 and later, ``-rankmap``): one line per node,
  ``host:ranks``, and the node line of every rank, runs written as Hydra's
  ``(start,nodes,ranks)`` blocks;
* :func:`hydra_runs` (any Hydra): one line per run of consecutive ranks on one node,
  ``host:count``, in rank order.  Exact for the host of every rank, but a node whose ranks
  are not consecutive gets one proxy per run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..mapping import Mapping, as_mapping
from .hosts import host_names

__all__ = ["HydraPlacement", "hydra_rankmap", "hydra_runs"]


@dataclass(frozen=True)
class HydraPlacement:
    """What ``mpiexec -f FILE -rankmap MAP`` takes: the host file's text and the rank map.

    Attributes
    ----------
    hostfile : str
        One ``host:ranks`` line per node that runs ranks, in node-id order.
    rankmap : str
        The ``-rankmap`` value: for every rank, the 0-based line of its node in ``hostfile``,
        as comma-separated blocks ``(line,lines,ranks)`` (``ranks`` consecutive ranks on each
        of ``lines`` consecutive lines, starting at ``line``) or single line numbers.
    """

    hostfile: str
    rankmap: str


def _node_runs(values: np.ndarray) -> list[tuple[int, int]]:
    """Runs of equal consecutive values: (value, length) in order."""
    if values.size == 0:
        return []
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    lengths = np.diff(np.r_[starts, values.size])
    return list(zip(values[starts].tolist(), lengths.tolist()))


def hydra_rankmap(mapping: Mapping, *, hosts=None) -> HydraPlacement:
    """Return Hydra's host file (one line per node) and ``-rankmap`` of ``mapping``.

    Parameters
    ----------
    mapping : Mapping
        Any mapping; only the node of each rank is used (Hydra numbers the ranks of a proxy
        in ascending order: :func:`~mpitaskmap.mapfiles.node_canonical`).
    hosts : None, str or sequence of str, optional
        Host names of the nodes, see :func:`~mpitaskmap.mapfiles.host_names`.

    Returns
    -------
    HydraPlacement

    Raises
    ------
    InvalidInputError
        On bad host names.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> p = hydra_rankmap(Mapping([0, 2, 1, 3, 4, 5], FlatMachine([0, 0, 1, 1, 2, 2])), hosts="n%d")
    >>> print(p.hostfile, end="")
    n0:2
    n1:2
    n2:2
    >>> p.rankmap  # ranks 0, 1, 2, 3 on lines 0, 1, 0, 1; ranks 4, 5 both on line 2
    '(0,2,1),(0,2,1),(2,1,2)'
    """
    as_mapping(mapping)
    names = host_names(mapping.machine, hosts)
    node = mapping.machine.node_ids[mapping.task_to_proc]
    used, line, count = np.unique(node, return_inverse=True, return_counts=True)
    hostfile = "".join(f"{names[k]}:{c}\n" for k, c in zip(used.tolist(), count.tolist()))
    blocks: list[list[int]] = []  # [first line, lines, ranks per line]
    for ln, ranks in _node_runs(line.astype(np.intp)):
        last = blocks[-1] if blocks else None
        if last is not None and last[2] == ranks and last[0] + last[1] == ln:
            last[1] += 1  # the next line with as many ranks: one block
        else:
            blocks.append([ln, 1, ranks])
    rankmap = ",".join(str(a) if (b, c) == (1, 1) else f"({a},{b},{c})" for a, b, c in blocks)
    return HydraPlacement(hostfile, rankmap)


def hydra_runs(mapping: Mapping, *, hosts=None) -> str:
    """Return a Hydra host file of rank runs: ``host:count`` per run of consecutive ranks on one node.

    ``mpiexec -f FILE -n N`` (no rank map) deals the ranks to the lines in order, ``count``
    each, so line ``i`` holds the ``i``-th run: every rank runs on its node.

    Parameters
    ----------
    mapping : Mapping
        Any mapping; only the node of each rank is used.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, see :func:`~mpitaskmap.mapfiles.host_names`.

    Returns
    -------
    str
        The file's text.

    Raises
    ------
    InvalidInputError
        On bad host names.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> print(hydra_runs(Mapping([0, 1, 2, 3], FlatMachine([0, 1, 1, 0])), hosts="n%d"), end="")
    n0:1
    n1:2
    n0:1
    """
    as_mapping(mapping)
    names = host_names(mapping.machine, hosts)
    node = mapping.machine.node_ids[mapping.task_to_proc]
    return "".join(f"{names[k]}:{c}\n" for k, c in _node_runs(node))
