"""The result type of every mapper: task -> processor, validated, with metrics on demand."""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from . import metrics as _metrics
from ._validate import as_index_array
from .errors import InvalidInputError
from .machines import Machine, as_machine
from .graphs.taskgraph import TaskGraph

__all__ = ["Mapping", "as_mapping", "identity_mapping", "check_fit", "IDENTITY"]

#: The one name of the default order (task ``t`` on processor ``t``): the method of
#: :func:`identity_mapping`, the identity candidate and ``remap``'s status when it wins.
IDENTITY = "identity"


def check_fit(n_tasks: int, n_procs: int, oversubscribe: bool = False, *, what: str = "graph",
              option: str = "oversubscribe=True") -> None:
    """The one rule on job sizes: more tasks than processors only when asked for.

    Every entry point that maps a task graph onto a machine applies it (:class:`Mapping`,
    :func:`identity_mapping`, :func:`~mpitaskmap.mappers.geometric.mapper.map_geometric`,
    the search's :class:`~mpitaskmap.search.problem.Problem` behind :func:`mpitaskmap.map`,
    :func:`mpitaskmap.best_of` and the command line), so a job that does not fit is refused
    the same way everywhere instead of being packed several tasks to a core unnoticed.

    Parameters
    ----------
    n_tasks, n_procs : int
        The job: tasks (MPI ranks of the application) and processors of the machine.
    oversubscribe : bool, optional
        The caller asked for several tasks per processor (default False).
    what : str, optional
        The argument named first in the message (default ``"graph"``).
    option : str, optional
        How the caller asks for it, named in the message (default ``"oversubscribe=True"``;
        the command line passes ``"--oversubscribe"``).

    Raises
    ------
    InvalidInputError
        When ``n_tasks > n_procs`` and ``oversubscribe`` is false; the message names both
        counts and the option.

    Examples
    --------
    >>> check_fit(8, 8), check_fit(8, 4, oversubscribe=True)
    (None, None)
    >>> check_fit(8, 4)
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: graph: 8 tasks do not fit on 4 processors one task each; \
pass oversubscribe=True to place up to 2 tasks on a processor
    """
    if n_tasks > n_procs and not oversubscribe:
        raise InvalidInputError(
            f"{what}: {n_tasks} tasks do not fit on {n_procs} processors one task each; pass {option} to place up "
            f"to {math.ceil(n_tasks / n_procs)} tasks on a processor"
        )


class Mapping:
    """An assignment of tasks to the processors of a machine.

    Parameters
    ----------
    task_to_proc : (n_tasks,) array_like of int
        Processor of every task.
    machine : Machine
        The processors mapped onto.
    graph : TaskGraph, optional
        The task graph, needed for metrics (it may also be passed to :meth:`metric`).
    capacity : int, optional
        Most tasks one processor may hold.  Default ``ceil(n_tasks / n_procs)``: a
        permutation when the counts match, an injection (some processors idle) when there
        are fewer tasks, and with ``oversubscribe=True`` a balanced assignment when there
        are more.  A capacity given explicitly is the caller's own limit.
    oversubscribe : bool, optional
        Allow more tasks than processors with the default capacity (default False: such a
        mapping is refused, :func:`check_fit`).
    method : str, optional
        Name of the method that produced the mapping (shown in reports).
    info : dict, optional
        Method-specific details (candidate, options, timings).

    Raises
    ------
    InvalidInputError
        If a task names a missing processor, or a processor holds more than ``capacity``
        tasks (the message names the first such processor and its load), or there are
        more tasks than processors without ``oversubscribe`` or ``capacity``.

    Examples
    --------
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> m = Mapping([1, 0, 2, 3], torus_machine([4]), TaskGraph.stencil([4]))
    >>> m.metric("total_hops")
    8
    """

    def __init__(
        self,
        task_to_proc,
        machine: Machine,
        graph: TaskGraph | None = None,
        *,
        capacity: int | None = None,
        oversubscribe: bool = False,
        method: str = "",
        info: dict | None = None,
    ) -> None:
        as_machine(machine)
        length = graph.n_tasks if graph is not None else None
        self.task_to_proc = as_index_array(task_to_proc, "task_to_proc", upper=machine.n_procs, length=length)
        n_tasks = self.task_to_proc.shape[0]
        if n_tasks == 0:
            raise InvalidInputError("task_to_proc: a mapping needs at least one task; got 0")
        if capacity is None:
            check_fit(n_tasks, machine.n_procs, oversubscribe, what="task_to_proc")
            capacity = math.ceil(n_tasks / machine.n_procs)
        load = np.bincount(self.task_to_proc, minlength=machine.n_procs)
        over = np.flatnonzero(load > capacity)
        if over.size:
            p = int(over[0])
            raise InvalidInputError(
                f"task_to_proc: processor {p} holds {int(load[p])} tasks, more than the capacity {capacity}"
            )
        self.machine = machine
        self.graph = graph
        self.capacity = int(capacity)
        self.method = method
        self.info = dict(info or {})
        self._load = load

    @property
    def n_tasks(self) -> int:
        """Number of tasks."""
        return int(self.task_to_proc.shape[0])

    @property
    def is_permutation(self) -> bool:
        """True when every processor holds exactly one task."""
        return self.n_tasks == self.machine.n_procs and bool((self._load == 1).all())

    def tasks_per_proc(self) -> np.ndarray:
        """Return the number of tasks on every processor (n_procs,) intp."""
        return self._load.astype(np.intp)

    def idle_processors(self) -> np.ndarray:
        """Return the processors that received no task, ascending."""
        return np.flatnonzero(self._load == 0)

    def proc_to_tasks(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the inverse mapping as CSR: tasks of processor p are ``tasks[ptr[p]:ptr[p+1]]``.

        Returns
        -------
        ptr : (n_procs + 1,) ndarray of intp
        tasks : (n_tasks,) ndarray of intp
            Ascending task ids within each processor.
        """
        order = np.argsort(self.task_to_proc, kind="stable")
        ptr = np.zeros(self.machine.n_procs + 1, dtype=np.intp)
        np.cumsum(self._load, out=ptr[1:])
        return ptr, order.astype(np.intp)

    def inverse(self) -> np.ndarray:
        """Return ``proc_to_task`` of a permutation mapping.

        Raises
        ------
        InvalidInputError
            If the mapping is not a permutation.
        """
        if not self.is_permutation:
            raise InvalidInputError("inverse: the mapping is not a permutation; use proc_to_tasks()")
        inv = np.empty(self.n_tasks, dtype=np.intp)
        inv[self.task_to_proc] = np.arange(self.n_tasks, dtype=np.intp)
        return inv

    def _graph(self, graph: TaskGraph | None) -> TaskGraph:
        g = graph if graph is not None else self.graph
        if g is None:
            raise InvalidInputError("graph: this mapping has no task graph; pass graph=")
        return g

    def metric(self, name: str, graph: TaskGraph | None = None):
        """Return one metric of :data:`mpitaskmap.metrics.METRICS` for this mapping.

        Raises
        ------
        InvalidInputError
            On an unknown metric name, or when no task graph is known.
        """
        return _metrics.evaluate(self._graph(graph), self.machine, self.task_to_proc, [name])[name]

    def metrics(self, names: Iterable[str] | None = None, graph: TaskGraph | None = None) -> dict:
        """Return several metrics as a dict (all applicable ones by default)."""
        return _metrics.evaluate(self._graph(graph), self.machine, self.task_to_proc, names)

    def summary(self, names: Iterable[str] | None = None, graph: TaskGraph | None = None) -> str:
        """Return a text table of the metrics of this mapping, one per line."""
        values = self.metrics(names, graph)
        title = self.method or "mapping"
        lines = [
            f"{title}: {self.n_tasks} tasks on {self.machine.n_procs} processors "
            f"({len(self.idle_processors())} idle) of {self.machine.name}"
        ]
        width = max(len(k) for k in values)
        for k, v in values.items():
            lines.append(f"  {k:<{width}}  {_fmt(v)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Mapping(method={self.method!r}, n_tasks={self.n_tasks}, n_procs={self.machine.n_procs})"


def _fmt(v) -> str:
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    return f"{float(v):,.4g}" if abs(float(v)) < 1e6 else f"{float(v):,.0f}"


def as_mapping(obj, name: str = "mapping") -> Mapping:
    """Return ``obj`` if it is a :class:`Mapping`; raise an error naming ``name`` otherwise.

    The one check, at the boundary of the functions that take a finished mapping (map-file
    writers, the simulator, refinement), that an argument is a mapping at all.

    Examples
    --------
    >>> as_mapping([0, 1])
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: mapping: expected a Mapping; got list
    """
    if not isinstance(obj, Mapping):
        raise InvalidInputError(f"{name}: expected a Mapping; got {type(obj).__name__}")
    return obj


def identity_mapping(graph: TaskGraph, machine: Machine, *, oversubscribe: bool = False) -> Mapping:
    """Return the default placement: task ``t`` on processor ``t``.

    With ``n_tasks == n_procs`` this is the identity (task ``t`` on rank ``t``); with fewer
    tasks, the first ``n_tasks`` processors are used; with more tasks (only with
    ``oversubscribe=True``), task ``t`` goes to processor ``t * n_procs // n_tasks``
    (consecutive blocks whose sizes differ by at most one).

    Parameters
    ----------
    graph : TaskGraph
        The tasks.
    machine : Machine
        The processors, in their default (rank) order.
    oversubscribe : bool, optional
        Allow more tasks than processors (default False, :func:`check_fit`).

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        When there are more tasks than processors and ``oversubscribe`` is false.
    """
    n, p = graph.n_tasks, machine.n_procs
    check_fit(n, p, oversubscribe)
    t = np.arange(n, dtype=np.int64)
    ttp = (t * p) // n if n > p else t
    return Mapping(ttp, machine, graph, oversubscribe=oversubscribe, method=IDENTITY)
