"""Recorded traffic as a task graph: the PMPI recorder's files and Open MPI's monitoring output.

Two sources, one :class:`Recording`:

* the recorder of the PMPI library (``MPITASKMAP_RECORD=PATH``, ``mpitaskmap record``;
  :mod:`mpitaskmap.runtime.pmpi`): ``PATH`` (Matrix Market ``coordinate real general``, bytes
  the row's rank sent to the column's, ``MPI_COMM_WORLD`` ranks from 1), ``PATH.counts.mtx``
  (the same entries, ``coordinate integer general``, messages) and ``PATH.json`` (format
  :data:`RECORDING_FORMAT`, version in :data:`RECORDING_VERSIONS`, the job: ``ranks``,
  ``nodes``, ``ranks_per_node``, ``mpi_library``, ``duration_s``, ``window``, and
  ``collectives`` when the recorder wrote them), read by :func:`read_recording`;
* Open MPI's pml monitoring (``mpirun --mca pml_monitoring_enable 2 --mca
  pml_monitoring_enable_output 3 --mca pml_monitoring_filename PREFIX ...``): one file
  ``PREFIX.<rank>.prof`` per rank, read by :func:`read_ompi_monitoring`.

The message model
-----------------
A task graph is one exchange: every edge is sent once, as one message (what
:func:`~mpitaskmap.metrics.predicted_time` and the judge's replays assume).  A recording holds
a whole run.  Its graph is one *round* of the run: ``rounds`` K = the most messages any pair
of distinct ranks exchanged (from the message counts; 1 when there are none, and
:attr:`Recording.rounds_known` is False), and an edge's weight is the pair's recorded bytes
/ K, in bytes per round.  A pair that exchanged once per step is then one message of its mean
size, and the per-message latency counts once per round, as for a declared graph: a 3-D
stencil run recorded over S steps gives exactly ``stencil3d`` with ``weight`` = its message
bytes.  A pair that sends several messages a round (both neighbours of a periodic dimension
of length 2 being the same rank) sets K, and every weight is then divided by that K: the
weights keep the run's proportions, their scale is that pair's round.  The run's totals stay
in the :class:`Recording`.  Messages of a rank to itself never cross the network: they are
counted in the totals (``self_bytes``) and left out of the graph.

The files are parsed by :mod:`~.graph_files` (:func:`~.graph_files.parse_recording`,
:func:`~.graph_files.parse_ompi_monitoring`; the rounds: :func:`~.graph_files.round_edges`);
this module builds the :class:`Recording`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .graph_files import (OMPI_KINDS, RECORDING_FORMAT, RECORDING_VERSIONS, RecordedPairs, is_ompi_monitoring,
                          is_pattern_matrix, is_recording, matrix_edges, parse_ompi_monitoring, parse_recording,
                          round_edges)
from .taskgraph import TaskGraph

__all__ = ["RECORDING_FORMAT", "RECORDING_VERSIONS", "OMPI_KINDS", "Recording", "recording_from", "read_recording",
           "read_ompi_monitoring", "read_matrix_file", "read_graph_file"]


@dataclass(frozen=True)
class Recording:
    """A recorded run: its task graph (one round) and what was recorded.

    Attributes
    ----------
    graph : TaskGraph
        One round of the run (the module doc): edge ``(s, r)`` weighs the bytes ``s`` sent to
        ``r`` divided by ``rounds``; no coordinates; no self edges.
    path : str
        The file read (the bytes matrix, or Open MPI's prefix).
    source : str
        ``"mpitaskmap"`` (the PMPI recorder) or ``"openmpi-monitoring"``.
    rounds : int
        K: the most messages a pair of distinct ranks exchanged (1 without message counts).
    rounds_known : bool
        Whether message counts were read (False: K = 1 assumed, the weights are the run's bytes).
    bytes : float
        Bytes recorded in all, a rank to itself included.
    messages : int or None
        Messages recorded in all (None without message counts).
    pairs : int
        Pairs of distinct ranks that exchanged messages (the graph's edges).
    self_bytes : float
        Bytes a rank sent to itself (left out of the graph).
    ranks : int
        Ranks of the run (the matrix's size).
    nodes, ranks_per_node : int or None
        From the sidecar (None: not recorded, or nodes of different sizes).
    mpi_library : str or None
        The MPI library's version line.
    duration_s : float or None
        The run's duration (the longest rank's, ``MPI_Init`` to ``MPI_Finalize``).
    window : dict or None
        The recorded intervals (``MPI_Pcontrol``), as the sidecar gives them.
    collectives : list or None
        The recorder's collective totals, when the sidecar has them.
    left_out : str
        What the source recorded and the graph leaves out (empty if nothing).
    """

    graph: TaskGraph
    path: str
    source: str
    rounds: int
    rounds_known: bool
    bytes: float
    messages: int | None
    pairs: int
    self_bytes: float
    ranks: int
    nodes: int | None = None
    ranks_per_node: int | None = None
    mpi_library: str | None = None
    duration_s: float | None = None
    window: dict | None = None
    collectives: list | None = None
    left_out: str = ""

    def describe(self) -> str:
        """Return one line: the totals, the rounds and what one round holds.

        Examples
        --------
        >>> g = TaskGraph.from_edges([0, 1], [1, 0], [8.0, 8.0], n_tasks=2)
        >>> Recording(g, "t.mtx", "mpitaskmap", 4, True, 64.0, 8, 2, 0.0, 2).describe()
        'recorded 64 bytes in 8 messages between 2 pairs; 4 rounds (the most messages of a pair): one round = bytes / 4'
        """
        msgs = "" if self.messages is None else f" in {self.messages:,} messages"
        text = f"recorded {self.bytes:,.0f} bytes{msgs} between {self.pairs:,} pairs"
        if self.self_bytes:
            text += f" ({self.self_bytes:,.0f} bytes to themselves left out)"
        if self.rounds_known:
            text += f"; {self.rounds:,} rounds (the most messages of a pair): one round = bytes / {self.rounds:,}"
        else:
            text += "; no message counts: 1 round assumed (weights are the run's bytes)"
        if self.left_out:
            text += f"; left out: {self.left_out}"
        return text


def recording_from(pairs: RecordedPairs) -> Recording:
    """Build the :class:`Recording` of parsed pairs: the graph of one round (the module doc), the totals, the job.

    Parameters
    ----------
    pairs : RecordedPairs
        What :func:`~.graph_files.parse_recording` or :func:`~.graph_files.parse_ompi_monitoring` returned.

    Returns
    -------
    Recording
    """
    src, dst, w, rounds, self_bytes = round_edges(pairs)
    graph = TaskGraph.from_edges(src, dst, w, n_tasks=pairs.n)
    job = pairs.job
    return Recording(graph=graph, path=pairs.path, source=pairs.source, rounds=rounds,
                     rounds_known=pairs.msgs is not None, bytes=float(pairs.nbytes.sum()),
                     messages=None if pairs.msgs is None else int(pairs.msgs.sum()), pairs=graph.n_edges,
                     self_bytes=self_bytes, ranks=pairs.n, nodes=job.get("nodes"),
                     ranks_per_node=job.get("ranks_per_node"),
                     mpi_library=job.get("mpi_library", "Open MPI (pml monitoring)"
                                         if pairs.source == "openmpi-monitoring" else None),
                     duration_s=job.get("duration_s"), window=job.get("window"), collectives=job.get("collectives"),
                     left_out=pairs.left_out)


def read_recording(path: str | os.PathLike) -> Recording:
    """Read a traffic recording of the PMPI recorder: ``PATH``, ``PATH.counts.mtx``, ``PATH.json``.

    Parameters
    ----------
    path : str or os.PathLike
        The bytes matrix (or its sidecar ``PATH.json``).  The counts file and the sidecar are
        read when they exist: without counts the graph is the run's bytes (1 round), without
        the sidecar the job's fields are None.

    Returns
    -------
    Recording
        Its graph is one round of the run (the module doc).

    Raises
    ------
    InvalidInputError
        What :func:`~.graph_files.parse_recording` raises, naming the file and the line.
    """
    return recording_from(parse_recording(path))


def read_ompi_monitoring(prefix: str | os.PathLike, kinds: str = "E") -> Recording:
    """Read Open MPI's pml monitoring output (``PREFIX.<rank>.prof``) as a recording.

    Parameters
    ----------
    prefix : str or os.PathLike
        What ``--mca pml_monitoring_filename`` was given (or one of the files).
    kinds : str, optional
        The line kinds added into the graph (:data:`OMPI_KINDS`; default ``"E"``, the
        application's point-to-point messages); ``left_out`` names the others' totals.

    Returns
    -------
    Recording
        Rounds from the message counts, as for a recording (the module doc).

    Raises
    ------
    InvalidInputError
        What :func:`~.graph_files.parse_ompi_monitoring` raises, naming the file and the line.
    """
    return recording_from(parse_ompi_monitoring(prefix, kinds))


def read_matrix_file(path: str | os.PathLike) -> TaskGraph:
    """Read a plain communication matrix file (Matrix Market or dense rows: :func:`~.graph_files.matrix_edges`).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    TaskGraph
        Without coordinates; the volumes as written (not :attr:`~TaskGraph.sized` for a
        ``pattern`` Matrix Market file, which has none).

    Raises
    ------
    InvalidInputError
        Naming the file and the line.
    """
    n, src, dst, w = matrix_edges(path)
    return TaskGraph.from_edges(src, dst, None if is_pattern_matrix(path) else w, n_tasks=n)


def read_graph_file(path: str | os.PathLike) -> tuple[TaskGraph, Recording | None]:
    """Read any task-graph file the library knows, and its :class:`Recording` when it is one.

    Parameters
    ----------
    path : str or os.PathLike
        As :meth:`TaskGraph.from_file <mpitaskmap.graphs.taskgraph.TaskGraph.from_file>` takes it.

    Returns
    -------
    (TaskGraph, Recording or None)
        The same graph as ``TaskGraph.from_file(path)``.

    Raises
    ------
    InvalidInputError
        No such file, or what the parser of its form raises.
    """
    if is_recording(path):
        rec = read_recording(path)
        return rec.graph, rec
    if is_ompi_monitoring(path):
        rec = read_ompi_monitoring(path)
        return rec.graph, rec
    return TaskGraph.from_file(path), None
