"""SimGrid SMPI hostfiles (``smpirun -hostfile``).

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.  The text is the
Slurm arbitrary-distribution host list (one host name per rank, line ``r`` is rank ``r``),
so both share one writer and one reader; the SimGrid platform of the same allocation
(:func:`mpitaskmap.sim.simgrid.platform_xml`) names its hosts with the same ``hosts``.
"""

from __future__ import annotations

import sys  # noqa: F401  (the doctests write to sys.stdout)

from ..machines import Machine
from ..mapping import Mapping
from ..graphs.taskgraph import TaskGraph
from ._io import _name
from .slurm import read_slurm_hostfile, write_slurm_hostfile


def write_smpi_hostfile(mapping: Mapping, path, *, hosts=None) -> None:
    """Write an SMPI hostfile: line ``i`` is the host (node) of rank ``i``.

    ``smpirun -np N -platform P -hostfile H`` puts rank ``i`` on the host of line ``i``.

    Parameters
    ----------
    mapping : Mapping
        Any mapping; only the node of each rank is written.
    path : str, path-like or text stream
        Where to write.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, see :func:`~mpitaskmap.mapfiles.host_names` (default
        ``"nid%05d"``); pass the same value to :func:`mpitaskmap.sim.simgrid.platform_xml`.

    Raises
    ------
    InvalidInputError
        On bad host names.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> write_smpi_hostfile(Mapping([2, 0, 1], FlatMachine([0, 0, 1])), sys.stdout, hosts="n%d")
    n1
    n0
    n0
    """
    write_slurm_hostfile(mapping, path, hosts=hosts)


def read_smpi_hostfile(path, machine: Machine, graph: TaskGraph | None = None, *, hosts=None) -> Mapping:
    """Read an SMPI hostfile (one host per rank) into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: line ``r`` (blank and ``#`` lines skipped) is the host of rank ``r``.
    machine : Machine
        The processors the file refers to.
    graph : TaskGraph, optional
        Attached to the result for metrics.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, as given to the writer.

    Returns
    -------
    Mapping
        The ranks of every node on its processors in ascending rank order (the file
        names nodes, not cores; see :func:`~mpitaskmap.mapfiles.node_canonical`).

    Raises
    ------
    InvalidInputError
        As :func:`~mpitaskmap.mapfiles.read_slurm_hostfile`: an unknown host or a line
        with more than one word (naming the line), an empty file, an overfull node.
    """
    mapping = read_slurm_hostfile(path, machine, graph, hosts=hosts)
    mapping.method = f"SMPI hostfile {_name(path)}"
    return mapping
