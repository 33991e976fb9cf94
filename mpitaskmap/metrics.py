"""Mapping quality metrics (ALGORITHMS.md section 1), the one implementation in the library.

Every function takes the task graph, the machine and ``task_to_proc`` (task ``t`` runs on
processor ``task_to_proc[t]``).  Hop metrics work on every machine; link metrics need a
machine with a link model (:attr:`~mpitaskmap.machines.Machine.has_link_model`, then
:meth:`~mpitaskmap.machines.Machine.link_loads`).

================================  =======================================================
name                               definition
================================  =======================================================
``total_hops`` (TH)                sum of Hops over directed edges
``average_hops``                   TotalHops / number of edges
``weighted_hops`` (WH, hop-bytes)  sum of w * Hops
``max_hops``                       largest Hops of any edge
``max_data`` (Data(M))             max over links of the volume crossing them
``latency`` (Latency(M), MC)       max over links of Data(e) / bw(e)
``max_messages`` (MMC)             max over links of the number of messages crossing them
``average_messages`` (AMC)         total message congestion / links used
``average_latency`` (AC)           total Latency(e) / links used
``predicted_time`` (PredTime)      predicted seconds of one exchange: max over links of
                                   Data(e) / bw(e) + the largest route latency through e
                                   (hop latency x hops, overlapped beyond 128 B)
================================  =======================================================

The search's default objective is :func:`default_metric`: ``predicted_time`` on machines
with a link model (it ranks candidates by simulated time best, ``benchmarks/
metrics_vs_time.py``), ``weighted_hops`` elsewhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from ._validate import as_index_array, check_bytes_per_weight, check_positive
from .errors import InvalidInputError
from .machines import BANDWIDTH_UNIT, LinkLoads, Machine, as_machine
from .graphs.taskgraph import TaskGraph

__all__ = [
    "UNSIZED_BYTES_PER_WEIGHT",
    "message_model_for",
    "describe_sizes",
    "edge_hops",
    "hop_sums",
    "total_hops",
    "average_hops",
    "weighted_hops",
    "max_hops",
    "link_loads",
    "max_data",
    "latency",
    "max_messages",
    "average_messages",
    "average_latency",
    "predicted_time",
    "default_metric",
    "time_objective",
    "MessageModel",
    "DEFAULT_MESSAGE_MODEL",
    "DEFAULT_BYTES_PER_WEIGHT",
    "DEFAULT_HOP_LATENCY",
    "DEFAULT_OVERLAP_BYTES",
    "evaluate",
    "change_text",
    "METRICS",
    "HOP_METRICS",
    "LINK_METRICS",
]


def _check(graph: TaskGraph, machine: Machine, task_to_proc) -> np.ndarray:
    if not isinstance(graph, TaskGraph):
        raise InvalidInputError(f"graph: expected a TaskGraph; got {type(graph).__name__}")
    as_machine(machine)
    return as_index_array(task_to_proc, "task_to_proc", upper=machine.n_procs, length=graph.n_tasks)


def edge_hops(graph: TaskGraph, machine: Machine, task_to_proc) -> np.ndarray:
    """Return Hops of every directed edge of ``graph`` under a mapping.

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph.
    machine : Machine
        Allocated processors and network.
    task_to_proc : (n_tasks,) array_like of int
        Processor of every task.

    Returns
    -------
    (n_edges,) ndarray of int64
        Hop count of every edge, in CSR order.

    Raises
    ------
    InvalidInputError
        If ``task_to_proc`` has the wrong length or names a missing processor.
    """
    ttp = _check(graph, machine, task_to_proc)
    return machine.csr_edge_hops(graph.indptr, graph.indices, ttp)


def hop_sums(graph: TaskGraph, machine: Machine, task_to_proc) -> tuple[int, float, int]:
    """Return (TotalHops, WeightedHops, max Hops) in one pass over the edges.

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph.
    machine : Machine
        Allocated processors and network.
    task_to_proc : (n_tasks,) array_like of int
        Processor of every task.

    Returns
    -------
    total_hops : int
    weighted_hops : float
    max_hops : int

    Notes
    -----
    O(n_edges * n_dims) in a compiled kernel, no temporaries: about 0.03 s for a
    1M-task 7-point stencil on one core.
    """
    ttp = _check(graph, machine, task_to_proc)
    return machine.csr_hop_sums(graph.indptr, graph.indices, graph.weights, ttp)


def total_hops(graph: TaskGraph, machine: Machine, task_to_proc) -> int:
    """Return TotalHops: the sum of Hops over all directed edges.

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> g = TaskGraph.stencil([4], periodic=True)
    >>> total_hops(g, torus_machine([4]), [0, 2, 1, 3])
    12
    """
    return hop_sums(graph, machine, task_to_proc)[0]


def average_hops(graph: TaskGraph, machine: Machine, task_to_proc) -> float:
    """Return AverageHops = TotalHops / number of directed edges (0 without edges)."""
    th = hop_sums(graph, machine, task_to_proc)[0]
    return th / graph.n_edges if graph.n_edges else 0.0


def weighted_hops(graph: TaskGraph, machine: Machine, task_to_proc) -> float:
    """Return WeightedHops (hop-bytes): the sum of w * Hops over directed edges.

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> g = TaskGraph.from_edges([0], [3], [5.0], n_tasks=4)
    >>> weighted_hops(g, torus_machine([4], wrap=False), [0, 1, 2, 3])
    15.0
    """
    return hop_sums(graph, machine, task_to_proc)[1]


def max_hops(graph: TaskGraph, machine: Machine, task_to_proc) -> int:
    """Return the largest Hops of any edge (the dilation of the mapping)."""
    return hop_sums(graph, machine, task_to_proc)[2]


def link_loads(graph: TaskGraph, machine: Machine, task_to_proc) -> LinkLoads:
    """Return Data(e), Congestion(e) and bandwidth of every directed link.

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph.
    machine : Machine
        A machine with a link model (e.g. :class:`~mpitaskmap.machines.TorusMachine`).
    task_to_proc : (n_tasks,) array_like of int
        Processor of every task.

    Returns
    -------
    LinkLoads
        Per-link arrays and the derived maxima, averages and per-direction summaries.

    Raises
    ------
    InvalidInputError
        If the machine has no link model (:attr:`~mpitaskmap.machines.Machine.has_link_model`).

    Notes
    -----
    Static dimension-order routing, one path per message.  O(n_edges * n_dims + total
    hops) in a compiled kernel.
    """
    ttp = _check(graph, machine, task_to_proc)
    return machine.link_loads(graph.indptr, graph.indices, graph.weights, ttp)


def max_data(graph: TaskGraph, machine: Machine, task_to_proc) -> float:
    """Return Data(M): the largest total volume crossing any one link."""
    return link_loads(graph, machine, task_to_proc).max_data()


def latency(graph: TaskGraph, machine: Machine, task_to_proc) -> float:
    """Return Latency(M) (max volume congestion, MC): the largest Data(e) / bw(e)."""
    return link_loads(graph, machine, task_to_proc).max_latency()


def max_messages(graph: TaskGraph, machine: Machine, task_to_proc) -> int:
    """Return MMC: the largest number of messages crossing any one link."""
    return link_loads(graph, machine, task_to_proc).max_messages()


def average_messages(graph: TaskGraph, machine: Machine, task_to_proc) -> float:
    """Return AMC: the total message congestion divided by the number of links used."""
    return link_loads(graph, machine, task_to_proc).average_messages()


def average_latency(graph: TaskGraph, machine: Machine, task_to_proc) -> float:
    """Return AC: the total Latency(e) divided by the number of links used."""
    return link_loads(graph, machine, task_to_proc).average_latency()


#: Message bytes per unit of task-graph edge weight: 1, the weights are bytes (a stencil built with
#: ``weight=W`` exchanges W-byte messages).  Part of :data:`DEFAULT_MESSAGE_MODEL`.
DEFAULT_BYTES_PER_WEIGHT = 1.0

#: Seconds per link crossed assumed by :func:`predicted_time` (a Cray Gemini hop is about 100 ns),
#: and the per-link latency of the replays' platforms.  Part of :data:`DEFAULT_MESSAGE_MODEL`.
DEFAULT_HOP_LATENCY = 1e-7

#: Message size (bytes) beyond which :func:`predicted_time` counts a message's hop latency in
#: proportion ``DEFAULT_OVERLAP_BYTES / size``: a longer message's head crosses its route while
#: the data of the messages sharing its links streams, so its latency overlaps with theirs.
#: Measured, not derived: halo3d under SMPI on sparse 512-rank Titan allocations
#: (``benchmarks/app_time_smpi.py``, every candidate of ``auto`` simulated) ranks candidates as
#: the link loads alone do at 2560-byte messages (a full 100 ns a hop keeps one 7% slower)
#: and as the routes do at 32-byte messages (the loads alone keep one 49% slower).  Every
#: value from 10 to 500 bytes picks the fastest candidate on seven of those eight inputs (the
#: eighth is 5% off at any value); 128 is well inside that range.  It is a compromise: one
#: 4096-rank input at 2560 bytes prefers at least 0.3 x the full hop latency.  Part of
#: :data:`DEFAULT_MESSAGE_MODEL`.
DEFAULT_OVERLAP_BYTES = 128.0


def predicted_time(
    graph: TaskGraph,
    machine: Machine,
    task_to_proc,
    *,
    bytes_per_weight: float | None = None,
    hop_latency: float = DEFAULT_HOP_LATENCY,
    overlap_bytes: float = DEFAULT_OVERLAP_BYTES,
) -> float:
    """Return PredictedTime: the predicted seconds of one exchange of every edge at once.

    Every directed edge is one message of ``m = w * bytes_per_weight`` bytes on its static
    route of ``h`` hops, with route latency ``hop_latency * h * min(1, overlap_bytes / m)``.
    The exchange ends when its slowest link has carried its data and the slowest message
    through it has crossed its route:

    ``max over links e of  Data(e) * bytes_per_weight / bw(e) + R(e)``

    with ``R(e)`` the largest route latency of a message crossing ``e`` (bandwidths in the
    machine's unit, :data:`~mpitaskmap.machines.BANDWIDTH_UNIT` bytes/s).  Small messages
    pay their full hop latency, so mappings rank as their longest routes do; beyond
    ``overlap_bytes`` a message's latency overlaps with the data streaming on its links
    (:data:`DEFAULT_OVERLAP_BYTES`), so large messages rank as Latency(M) does.

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph; weights are message sizes in units of
        ``bytes_per_weight`` bytes.
    machine : Machine
        A machine with a link model (:attr:`~mpitaskmap.machines.Machine.has_link_model`).
    task_to_proc : (n_tasks,) array_like of int
        Processor of every task.
    bytes_per_weight : float, optional
        Bytes per unit of edge weight.  Default: the graph's (:func:`message_model_for`:
        :data:`DEFAULT_BYTES_PER_WEIGHT`, 1, weights are bytes; for a graph without message
        sizes, :attr:`TaskGraph.sized <mpitaskmap.graphs.taskgraph.TaskGraph.sized>` False,
        :data:`UNSIZED_BYTES_PER_WEIGHT`).
    hop_latency : float, optional
        Seconds per link crossed (default :data:`DEFAULT_HOP_LATENCY`).
    overlap_bytes : float, optional
        Message size (bytes) up to which the hop latency counts in full (default
        :data:`DEFAULT_OVERLAP_BYTES`; ``math.inf``: always in full, the plain model).

    Returns
    -------
    float
        Seconds; 0.0 when no message leaves its router.

    Raises
    ------
    InvalidInputError
        If the machine has no link model, or on a negative or non-finite parameter, or an
        ``overlap_bytes`` that is not > 0.

    Notes
    -----
    O(n_edges * n_dims + total hops) in one compiled pass on a torus (about 1.9x weighted
    hops on a 1M-task stencil, ``benchmarks/metrics_speed.py``); the machine keeps 16 bytes
    of scratch per directed link between calls.

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> g = TaskGraph.from_edges([0, 1], [2, 2], [64.0, 1280.0], n_tasks=3)
    >>> m = torus_machine([3], wrap=False)  # 1 GB/s links
    >>> # link 1->2: 1344 B (1.344 us) and the 2-hop 64-B message's full 200 ns
    >>> round(predicted_time(g, m, [0, 1, 2]) * 1e9, 6)  # ns
    1544.0
    >>> # the same link; now the 64-B message takes 1 hop (100 ns) and the 1280-B one 2 hops,
    >>> # of which 128/1280 count: 20 ns
    >>> round(predicted_time(g, m, [1, 0, 2]) * 1e9, 6)
    1444.0
    >>> round(predicted_time(g, m, [1, 0, 2], overlap_bytes=math.inf) * 1e9, 6)  # plain: 200 ns
    1544.0
    """
    ttp = _check(graph, machine, task_to_proc)
    if bytes_per_weight is None:
        bytes_per_weight = message_model_for(graph).bytes_per_weight
    bytes_per_weight, hop_latency, _, overlap_weight = _check_message_model(bytes_per_weight, hop_latency,
                                                                            overlap_bytes)
    if not machine.has_link_model:
        machine.link_loads(graph.indptr, graph.indices, graph.weights, ttp)  # raises, naming why
    seconds, _ = machine.link_time(graph.indptr, graph.indices, graph.weights, ttp,
                                   seconds_per_weight=bytes_per_weight / BANDWIDTH_UNIT, hop_latency=hop_latency,
                                   overlap_weight=overlap_weight)
    return float(seconds)


#: Names of the message model's parameters in the library's errors (the command line names its options).
_MODEL_NAMES = ("bytes_per_weight", "hop_latency", "overlap_bytes")


def _check_message_model(bytes_per_weight: float, hop_latency: float, overlap_bytes: float, *,
                         names: tuple[str, str, str] = _MODEL_NAMES,
                         allow_zero_bytes: bool = True) -> tuple[float, float, float, float]:
    """Validate a message model; return (bytes per weight, hop latency, overlap bytes, overlap in weight units).

    ``names`` are what an error calls the three parameters; ``allow_zero_bytes``: empty
    messages (the objective alone: they pay their hop latency; a replay has nothing to send).
    """
    bpw = check_bytes_per_weight(bytes_per_weight, names[0], allow_zero=allow_zero_bytes)
    lat = check_positive(hop_latency, names[1], allow_zero=True)
    try:
        overlap = float(overlap_bytes)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{names[2]}: expected a number (bytes; inf allowed); got {overlap_bytes!r}") from None
    if not overlap > 0:  # also rejects nan
        raise InvalidInputError(f"{names[2]}: must be positive (bytes; inf allowed); got {overlap_bytes!r}")
    return bpw, lat, overlap, (overlap / bpw if bpw > 0 else math.inf)


@dataclass(frozen=True)
class MessageModel:
    """How the edges of a task graph become messages: the one definition every front end reads.

    The predicted-time objective (:func:`predicted_time`, :func:`time_objective`), the
    judge's replays (:func:`mpitaskmap.sim.fluid.fluid_exchange`,
    :func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`), :func:`mpitaskmap.map`,
    :func:`mpitaskmap.remap`, the command line (``--bytes-per-weight``, ``--link-latency``,
    ``--overlap-bytes``), the demo and the benchmarks take their defaults from
    :data:`DEFAULT_MESSAGE_MODEL`, so one input gives one winner through all of them.

    Attributes
    ----------
    bytes_per_weight : float
        Message bytes per unit of edge weight, > 0 (default :data:`DEFAULT_BYTES_PER_WEIGHT`:
        the weights are bytes).
    hop_latency : float
        Seconds per link crossed, >= 0: the objective's hop latency and the replays' link
        latency (default :data:`DEFAULT_HOP_LATENCY`).
    overlap_bytes : float
        Message size up to which the objective counts a message's hop latency in full, > 0,
        ``math.inf`` allowed (default :data:`DEFAULT_OVERLAP_BYTES`; the replays model the
        overlap themselves).

    Raises
    ------
    InvalidInputError
        On a parameter out of range, naming it.

    Examples
    --------
    >>> DEFAULT_MESSAGE_MODEL
    MessageModel(bytes_per_weight=1.0, hop_latency=1e-07, overlap_bytes=128.0)
    >>> MessageModel(bytes_per_weight=8).replay_options()
    {'link_latency': 1e-07, 'bytes_per_weight': 8.0}
    >>> MessageModel(overlap_bytes=0)
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: overlap_bytes: must be positive (bytes; inf allowed); got 0
    """

    bytes_per_weight: float = DEFAULT_BYTES_PER_WEIGHT
    hop_latency: float = DEFAULT_HOP_LATENCY
    overlap_bytes: float = DEFAULT_OVERLAP_BYTES

    def __post_init__(self) -> None:
        values = _check_message_model(self.bytes_per_weight, self.hop_latency, self.overlap_bytes,
                                      allow_zero_bytes=False)
        for name, value in zip(_MODEL_NAMES, values):
            object.__setattr__(self, name, value)

    @classmethod
    def checked(cls, bytes_per_weight: float, hop_latency: float, overlap_bytes: float, *,
                names: tuple[str, str, str] = _MODEL_NAMES) -> "MessageModel":
        """The model of these values; an error calls them ``names`` (e.g. the command line's options).

        Examples
        --------
        >>> MessageModel.checked(0, 1e-7, 128, names=("--bytes-per-weight", "--link-latency", "--overlap-bytes"))
        Traceback (most recent call last):
        ...
        mpitaskmap.errors.InvalidInputError: --bytes-per-weight: must be positive and finite; got 0
        """
        _check_message_model(bytes_per_weight, hop_latency, overlap_bytes, names=names, allow_zero_bytes=False)
        return cls(bytes_per_weight, hop_latency, overlap_bytes)

    def metric_options(self) -> dict:
        """Keywords of :func:`predicted_time` and :func:`evaluate`: the model as the objective reads it."""
        return {"bytes_per_weight": self.bytes_per_weight, "hop_latency": self.hop_latency,
                "overlap_bytes": self.overlap_bytes}

    def replay_options(self) -> dict:
        """Keywords of the replays (``fluid_exchange``, ``simulate_exchange``, the judge's ``judge_options``)."""
        return {"link_latency": self.hop_latency, "bytes_per_weight": self.bytes_per_weight}

    def objective(self) -> Callable:
        """Return :func:`time_objective` of this model: the search's default objective with these messages."""
        return time_objective(self.bytes_per_weight, self.hop_latency, self.overlap_bytes)

    def describe(self) -> str:
        """One line for reports: bytes per weight, seconds per hop, overlap size.

        Examples
        --------
        >>> DEFAULT_MESSAGE_MODEL.describe()
        'messages of weight x 1 bytes, 1e-07 s per hop, hop latency overlapped beyond 128 B'
        """
        return (f"messages of weight x {self.bytes_per_weight:g} bytes, {self.hop_latency:g} s per hop, "
                f"hop latency overlapped beyond {self.overlap_bytes:g} B")


#: The message model of every default (:class:`MessageModel`): weights are bytes, 100 ns a hop,
#: hop latency overlapped beyond 128 B.
DEFAULT_MESSAGE_MODEL = MessageModel()

#: Message bytes per unit of edge weight assumed for a task graph that carries no message sizes
#: (:attr:`TaskGraph.sized <mpitaskmap.graphs.taskgraph.TaskGraph.sized>` False: a stencil or a
#: neighbour list without weights).  At one byte a message costs only its hops' latency and the
#: objective is blind to contention: with unit weights ``auto`` gained at most 2.6% over the
#: default order off the torus, and a MiniGhost run lost 13-31% against the same pattern with its
#: real sizes (issue 42).  Measured under SMPI (halo3d, 512 ranks, 8 per node, on a sparse Titan
#: allocation, the 4:1 fat tree and the Frontier-like dragonfly, faces of 2,560 B, 102,400 B and
#: 131,072 B): ``auto`` at 4,096 and at 65,536 bytes per unit got the whole gain of the weighted
#: call in all eight cases; at one byte 49.8% on one of them; the scale-free ``weighted_hops``
#: objective 11% on the fat tree.  4,096 B is also what the command line assumed per unit of
#: weight before the message models were unified.
UNSIZED_BYTES_PER_WEIGHT = 4096.0


def message_model_for(graph: TaskGraph, bytes_per_weight: float | None = None,
                      hop_latency: float = DEFAULT_HOP_LATENCY,
                      overlap_bytes: float = DEFAULT_OVERLAP_BYTES) -> MessageModel:
    """Return the message model of the search's default objective and judge for ``graph``.

    Parameters
    ----------
    graph : TaskGraph
        The task graph; whether it carries message sizes (:attr:`TaskGraph.sized`) decides
        the default bytes per unit weight.
    bytes_per_weight : float, optional
        Given by the user: used as is.  Default None: :data:`DEFAULT_BYTES_PER_WEIGHT` (the
        weights are bytes) for a sized graph, :data:`UNSIZED_BYTES_PER_WEIGHT` for one
        without sizes.
    hop_latency, overlap_bytes : float, optional
        As :class:`MessageModel`.

    Returns
    -------
    MessageModel

    Examples
    --------
    >>> message_model_for(TaskGraph.stencil([4, 4])).bytes_per_weight
    4096.0
    >>> message_model_for(TaskGraph.stencil([4, 4], weight=2560.0)) == DEFAULT_MESSAGE_MODEL
    True
    >>> message_model_for(TaskGraph.stencil([4, 4]), bytes_per_weight=8.0).bytes_per_weight
    8.0
    """
    if bytes_per_weight is None:
        bytes_per_weight = DEFAULT_BYTES_PER_WEIGHT if graph.sized else UNSIZED_BYTES_PER_WEIGHT
    return MessageModel(bytes_per_weight, hop_latency, overlap_bytes)


def describe_sizes(graph: TaskGraph, model: MessageModel) -> str:
    """One phrase for reports: the graph's message sizes, or the size the model assumes for them.

    Examples
    --------
    >>> g = TaskGraph.stencil([4, 4])
    >>> describe_sizes(g, message_model_for(g))
    'no message sizes given: 4096 B per unit of weight assumed'
    >>> describe_sizes(TaskGraph.stencil([4, 4], weight=8.0), DEFAULT_MESSAGE_MODEL)
    'message sizes: weight x 1 bytes'
    """
    if graph.sized:
        return f"message sizes: weight x {model.bytes_per_weight:g} bytes"
    return f"no message sizes given: {model.bytes_per_weight:g} B per unit of weight assumed"


def time_objective(bytes_per_weight: float | None = None, hop_latency: float = DEFAULT_HOP_LATENCY,
                   overlap_bytes: float = DEFAULT_OVERLAP_BYTES) -> Callable:
    """Return :func:`predicted_time` with these parameters, as a search objective.

    The callable ``f(graph, machine, task_to_proc)`` is named ``"predicted_time"`` (what
    the search reports and refines for); use it when the weights are not bytes.
    ``bytes_per_weight`` None: each graph's own (:func:`message_model_for`).

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> f = time_objective(bytes_per_weight=64.0)  # weight 1: one 64-B message, 64 ns + 100 ns
    >>> f.__name__, round(f(TaskGraph.from_edges([0], [1], [1.0], n_tasks=2), torus_machine([2]), [0, 1]) * 1e9, 6)
    ('predicted_time', 164.0)
    """
    _check_message_model(DEFAULT_BYTES_PER_WEIGHT if bytes_per_weight is None else bytes_per_weight, hop_latency,
                         overlap_bytes)

    def objective(graph: TaskGraph, machine: Machine, task_to_proc) -> float:
        return predicted_time(graph, machine, task_to_proc, bytes_per_weight=bytes_per_weight,
                              hop_latency=hop_latency, overlap_bytes=overlap_bytes)

    objective.__name__ = "predicted_time"
    return objective


def default_metric(machine: Machine) -> str:
    """Return the search's default objective on ``machine``: a name of :data:`METRICS`.

    ``"predicted_time"`` when the machine has a link model (it predicts simulated time
    best of the library's metrics, ``benchmarks/metrics_vs_time.py``), else
    ``"weighted_hops"`` (no routes to load).
    """
    return "predicted_time" if machine.has_link_model else "weighted_hops"


HOP_METRICS: dict[str, Callable] = {
    "total_hops": total_hops,
    "average_hops": average_hops,
    "weighted_hops": weighted_hops,
    "max_hops": max_hops,
}
LINK_METRICS: dict[str, Callable] = {
    "max_data": max_data,
    "latency": latency,
    "max_messages": max_messages,
    "average_messages": average_messages,
    "average_latency": average_latency,
    "predicted_time": predicted_time,
}
METRICS: dict[str, Callable] = {**HOP_METRICS, **LINK_METRICS}


def evaluate(
    graph: TaskGraph,
    machine: Machine,
    task_to_proc,
    metrics: Iterable[str] | None = None,
    *,
    bytes_per_weight: float | None = None,
    hop_latency: float = DEFAULT_HOP_LATENCY,
    overlap_bytes: float = DEFAULT_OVERLAP_BYTES,
) -> dict[str, float]:
    """Compute several metrics at once, sharing the hop pass and the link pass.

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph.
    machine : Machine
        Allocated processors and network.
    task_to_proc : (n_tasks,) array_like of int
        Processor of every task.
    metrics : iterable of str, optional
        Names from :data:`METRICS`.  Default: all hop metrics, plus the link metrics when
        the machine has a link model (``machine.has_link_model``).
    bytes_per_weight, hop_latency, overlap_bytes : float, optional
        The message model of ``predicted_time`` (see :func:`predicted_time`; by default the
        graph's bytes per unit of weight).

    Returns
    -------
    dict of str to float
        Metric name to value, in the order requested.

    Raises
    ------
    ValueError
        On an unknown metric name (the message lists the valid names).
    """
    ttp = _check(graph, machine, task_to_proc)
    if metrics is None:
        names = list(HOP_METRICS) + (list(LINK_METRICS) if machine.has_link_model else [])
    else:
        names = list(metrics)
        unknown = [m for m in names if m not in METRICS]
        if unknown:
            raise InvalidInputError(f"metrics: unknown name {unknown[0]!r}; valid: {sorted(METRICS)}")
    out: dict[str, float] = {}
    if any(m in HOP_METRICS for m in names):
        th, wh, mh = machine.csr_hop_sums(graph.indptr, graph.indices, graph.weights, ttp)
        hop_values = {
            "total_hops": th,
            "average_hops": th / graph.n_edges if graph.n_edges else 0.0,
            "weighted_hops": wh,
            "max_hops": mh,
        }
    link_values: dict[str, float] = {}
    if any(m in LINK_METRICS and m != "predicted_time" for m in names):
        loads = machine.link_loads(graph.indptr, graph.indices, graph.weights, ttp)
        link_values = {
            "max_data": loads.max_data(),
            "latency": loads.max_latency(),
            "max_messages": loads.max_messages(),
            "average_messages": loads.average_messages(),
            "average_latency": loads.average_latency(),
        }
    if "predicted_time" in names:
        link_values["predicted_time"] = predicted_time(graph, machine, ttp, bytes_per_weight=bytes_per_weight,
                                                       hop_latency=hop_latency, overlap_bytes=overlap_bytes)
    for m in names:
        out[m] = hop_values[m] if m in HOP_METRICS else link_values[m]
    return out


def change_text(before: float, after: float) -> str:
    """Return the change from ``before`` to ``after`` of a lower-is-better figure, in words.

    The one spelling of a relative change (``remap``'s summary, the examples' reports):
    ``"33.3% lower"`` when ``after`` is below ``before``, ``"33.3% higher"`` when above
    (never a negative percentage), ``"unchanged"`` when equal (zero included); the
    percentage is of ``before``, to one decimal.

    Parameters
    ----------
    before : float
        The reference (e.g. the default order's time); positive.
    after : float
        The new value.

    Returns
    -------
    str

    Raises
    ------
    InvalidInputError
        If the values differ and ``before`` is not positive and finite, or ``after`` not
        finite (no relative change exists).

    Examples
    --------
    >>> change_text(3.0, 2.0), change_text(3.0, 4.0), change_text(3.0, 3.0)
    ('33.3% lower', '33.3% higher', 'unchanged')
    """
    before, after = float(before), float(after)
    if after == before:
        return "unchanged"
    if not (math.isfinite(before) and before > 0 and math.isfinite(after)):
        raise InvalidInputError(f"before: a relative change needs a positive reference and a finite value; "
                                f"got {before!r} -> {after!r}")
    pct = abs(after - before) / before * 100.0
    return f"{pct:.1f}% {'lower' if after < before else 'higher'}"
