"""Map and rank-reorder files: tell the launcher where every MPI rank should run.

Every writer takes a :class:`~mpitaskmap.mapping.Mapping` (task ``t`` = MPI rank ``t`` of
the application, placed on processor ``mapping.task_to_proc[t]`` of its machine) and every
reader takes the file plus the :class:`~mpitaskmap.machines.Machine` it refers to and
returns a ``Mapping`` again, so any mapper's result can be written and any file evaluated
with :mod:`mpitaskmap.metrics`.  Targets are a path (``str`` or path-like, opened and
closed here) or an open text stream.  Lines starting with ``#`` and blank lines are
ignored by every reader; every reader error names the file, the line and the bad text.

Formats
-------
``"bluegene"`` -- Blue Gene/P and Blue Gene/Q map file (:func:`write_bluegene_map`).
    One line per rank, in rank order (line ``r`` is rank ``r``): the router coordinates
    of the rank's processor followed by its core slot ``t``, separated by single spaces,
    no header, no trailing space::

        0 0 0 0
        0 0 0 1
        1 0 0 0

    BG/P: ``x y z t`` (``mpirun -mapfile FILE``); BG/Q: ``a b c d e t`` (``runjob
    --mapping FILE``).  The slot of a processor is its position among the processors on
    the same router, in processor-id order
    (:meth:`~mpitaskmap.machines.TorusMachine.router_slots`); on Blue Gene, with one
    node per router, that is the core (``T``) coordinate.  This is also the format of the
    released Rubik's ``write_map_file``.

``"mpich_rank_order"`` -- Cray MPICH custom rank order (:func:`write_mpich_rank_order`).
    Used with ``MPICH_RANK_REORDER_METHOD=3``: Cray MPICH reads the file named
    ``MPICH_RANK_ORDER`` from the working directory of rank 0 and places the listed ranks
    on the job's slots in the order listed, filling the first node's cores, then the
    next node's, in the launcher's node order.  Entry ``i`` of the list is therefore the
    rank that runs on processor ``i`` of the machine (processor ids follow that launch
    order).  Ranks are separated by commas; ``a-b`` is the range ``a, a+1, ..., b`` (a
    descending range ``b-a`` is read as well); line breaks have no meaning beyond
    separating entries.  We write one line per node::

        # mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3
        0,1,4,5
        2,3,6,7

    The mapping must be a permutation (as many ranks as processors, one each).

``"csv"`` -- plain CSV (:func:`write_mapping_csv`), one row per rank in rank order with a
    header: ``rank,proc,node`` followed, on a torus, by one column per dimension (named
    after ``machine.dim_names``) and ``slot``::

        rank,proc,node,X,Y,slot
        0,3,3,1,1,0

    The reader takes the ``proc`` column and checks ``node`` and the coordinates against
    the machine.

``"openmpi_rankfile"`` -- Open MPI rankfile (:func:`write_openmpi_rankfile`).
    Read by Open MPI's launcher: ``mpirun --rankfile FILE`` (Open MPI 4 and earlier) or
    ``mpirun --map-by rankfile:file=FILE`` (Open MPI 5).  One line per rank, in rank
    order: ``rank R=HOST slot=S``, where ``HOST`` is the host name of the node
    (:func:`host_names`) and ``S`` the processor's position among the processors of its
    node, in processor-id order (the logical core index; :func:`node_slots`)::

        rank 0=nid00000 slot=0
        rank 1=nid00001 slot=1
        rank 2=nid00000 slot=1

    The file pins every rank to one core, so reading it back gives the same mapping.

``"slurm_hostfile"`` -- Slurm arbitrary-distribution host list (:func:`write_slurm_hostfile`).
    Read by ``srun --distribution=arbitrary`` from the file named by the environment
    variable ``SLURM_HOSTFILE``: line ``r`` is the host name of the node that runs rank
    ``r``, nothing else on the line::

        nid00000
        nid00001
        nid00000

    It fixes the node of every rank, not the core: Slurm numbers the ranks of one node
    onto its cores itself.  The reader therefore places the ranks of each node on that
    node's processors in ascending rank order.  Every metric of a torus depends only on
    the routers, and all processors of a node share one router, so the metrics of the
    read-back mapping equal those of the written one; the mapping itself is equal when
    the written one already kept each node's ranks in ascending processor order (see
    :func:`node_canonical`).

``"smpi_hostfile"`` -- SimGrid SMPI hostfile (:func:`write_smpi_hostfile`).
    Read by ``smpirun -np N -platform P -hostfile FILE``: line ``i`` is the host that runs
    rank ``i``; the same text as the Slurm host list (one writer and one reader serve
    both), with the same node-level meaning.  The platform ``P`` of the allocation comes
    from :func:`mpitaskmap.sim.simgrid.platform_xml`, whose hosts have the same names.

Host names
----------
The host files name nodes.  ``hosts=None`` uses :data:`DEFAULT_HOST_FORMAT`
(``"nid%05d"``: Cray's ``nid`` names from the node id, as on the Cray systems and the
simulated Titan); a ``%`` format string is applied to the node id (``"node%d"``); a
sequence gives the name of node id ``k`` at position ``k`` (e.g. the names of a job's
``scontrol show hostnames`` in node-id order, or a machine file's ``host`` lines).
Readers take the same ``hosts`` to turn names back into node ids.

Notes
-----
Plain coordinate lines without a machine (what Rubik writes for any box) are handled by
:func:`write_coordinate_lines` and :func:`read_coordinate_lines`.  :data:`MAP_FORMATS`
registers each format's writer and reader by name; :func:`write_map` and
:func:`read_map` dispatch on it.  :func:`detect_map_format` tells a file's format from its
content (every writer's output is recognised; a host list is read as ``"slurm_hostfile"``,
the same text and reader as ``"smpi_hostfile"``), :func:`format_from_name` from its name.
MPICH Hydra takes a host file and a rank map on its command line rather than one file:
:mod:`mpitaskmap.mapfiles.hydra` (``hydra_rankmap``: ``mpiexec -f FILE -rankmap MAP`` with one
``host:ranks`` line per node; ``hydra_runs``: ``host:count`` per run of consecutive ranks, for a
Hydra before MPICH 4.1), used by ``mpitaskmap launch``.
"""

from __future__ import annotations

from typing import Callable

from ..errors import InvalidInputError

from ..machines import Machine
from ..mapping import Mapping
from ..graphs.taskgraph import TaskGraph
from ._io import read_coordinate_lines, write_coordinate_lines
from .bluegene import coords_to_procs, mapping_coords, read_bluegene_map, write_bluegene_map
from .cray import read_mpich_rank_order, write_mpich_rank_order
from .detect import detect_map_format, format_from_name
from .csvfile import read_mapping_csv, write_mapping_csv
from .hosts import DEFAULT_HOST_FORMAT, host_names, node_canonical, node_slots
from .openmpi import read_openmpi_rankfile, write_openmpi_rankfile
from .registry import MAP_FORMATS
from .slurm import read_slurm_hostfile, write_slurm_hostfile
from .smpi import read_smpi_hostfile, write_smpi_hostfile

__all__ = [
    "write_coordinate_lines",
    "read_coordinate_lines",
    "mapping_coords",
    "coords_to_procs",
    "write_bluegene_map",
    "read_bluegene_map",
    "write_mpich_rank_order",
    "read_mpich_rank_order",
    "write_mapping_csv",
    "read_mapping_csv",
    "DEFAULT_HOST_FORMAT",
    "host_names",
    "node_slots",
    "node_canonical",
    "write_openmpi_rankfile",
    "read_openmpi_rankfile",
    "write_slurm_hostfile",
    "read_slurm_hostfile",
    "write_smpi_hostfile",
    "read_smpi_hostfile",
    "MAP_FORMATS",
    "write_map",
    "read_map",
    "detect_map_format",
    "format_from_name",
]

# -- registry (mapfiles.registry) ------------------------------------------------------------


def _format(format: str) -> tuple[Callable, Callable]:
    if format not in MAP_FORMATS:
        raise InvalidInputError(f"format: unknown map-file format {format!r}; valid: {sorted(MAP_FORMATS)}")
    return MAP_FORMATS[format]


def write_map(mapping: Mapping, path, format: str, **options) -> None:
    """Write ``mapping`` in one of the :data:`MAP_FORMATS`.

    Parameters
    ----------
    mapping : Mapping
        The mapping.
    path : str, path-like or text stream
        Where to write.
    format : str
        A key of :data:`MAP_FORMATS` (``"bluegene"``, ``"csv"``, ``"mpich_rank_order"``,
        ``"openmpi_rankfile"``, ``"slurm_hostfile"``, ``"smpi_hostfile"``).
    **options
        Keyword options of that format's writer (``hosts=`` for the host files,
        ``ranges=`` for the rank order).

    Raises
    ------
    InvalidInputError
        On an unknown format (listing the valid names) or what the writer rejects.
    TypeError
        On an option the writer does not take.
    """
    _format(format)[0](mapping, path, **options)


def read_map(path, machine: Machine, format: str, graph: TaskGraph | None = None, **options) -> Mapping:
    """Read a map file in one of the :data:`MAP_FORMATS` into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file.
    machine : Machine
        The processors it refers to.
    format : str
        A key of :data:`MAP_FORMATS`.
    graph : TaskGraph, optional
        Attached to the result for metrics.
    **options
        Keyword options of that format's reader (``hosts=`` for the host files).

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On an unknown format (listing the valid names) or what the reader rejects.
    TypeError
        On an option the reader does not take.
    """
    return _format(format)[1](path, machine, graph, **options)
