"""What every candidate search works on: a :class:`Problem` and uniform :class:`Candidate` s.

A :class:`Problem` is one task graph on one machine plus a lazy cache of what the mapper
families derive from them (the number of varying task dimensions, processor-coordinate
variants, the node view, the detected grid pattern), so a search over hundreds of candidates builds each
of those once.  A :class:`Candidate` is a small immutable description of one mapping:
``(family, method, options)``; the family module that made it knows how to compute it.

This module sits below the mapper families (they import it, it imports none of them) and
below the search layer (:mod:`mpitaskmap.search.scoring`), which holds the family table and the
one scoring loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import numpy as np

from ..errors import InvalidInputError
from ..mappers.grid.analysis import GridPattern, analyse_grid
from ..machines import Machine, NodeView, as_machine
from ..mapping import IDENTITY, check_fit
from ..metrics import MessageModel, message_model_for
from ..graphs.taskgraph import TaskGraph

__all__ = ["Candidate", "Problem", "IDENTITY"]

@dataclass(frozen=True)
class Candidate:
    """One way to compute a mapping: a family, a method of it and its options.

    Attributes
    ----------
    family : str
        Name of the mapper family in the search layer's table (e.g. "geometric", "graph").
    method : str
        Method within the family (e.g. "mj", "greedy+uwh", "affn").
    options : tuple of (str, value) pairs
        Keyword options, sorted by name; values are hashable (tuples, numbers, strings).
    title : str
        Human-readable label (not part of equality); reports and benchmarks print it.

    Examples
    --------
    >>> c = Candidate.make("graph", "greedy+uwh", delta=8)
    >>> c.option("delta"), c.label()
    (8, 'graph greedy+uwh delta=8')
    """

    family: str
    method: str
    options: tuple = ()
    title: str = field(default="", compare=False)

    @classmethod
    def make(cls, family: str, method: str, *, title: str = "", **options: Hashable) -> "Candidate":
        """Build a candidate with ``options`` given as keywords (stored sorted by name)."""
        return cls(family, method, tuple(sorted(options.items())), title)

    def option(self, key: str, default: Any = None) -> Any:
        """Return option ``key`` (``default`` when absent)."""
        for k, v in self.options:
            if k == key:
                return v
        return default

    def label(self) -> str:
        """Return the stable human-readable description, e.g. ``"geometric fz T* P* shift"``."""
        if self.title:
            return self.title
        return " ".join([self.family, self.method] + [f"{k}={v}" for k, v in self.options])


class Problem:
    """One task graph on one machine, with a lazy cache of derived data.

    Parameters
    ----------
    graph : TaskGraph
        The tasks and their communication.
    machine : Machine
        The processors.
    grid_pattern : GridPattern, optional
        The task graph's grid pattern when the caller analysed it with other options
        (default: :func:`~mpitaskmap.mappers.grid.analysis.analyse_grid` on first use).
    oversubscribe : bool, optional
        Allow more tasks than processors (default False: refused here, before any
        candidate is computed, by the one rule :func:`~mpitaskmap.mapping.check_fit`).
        The families that place several tasks on a processor (geometric, identity) read
        it from the problem.

    Raises
    ------
    InvalidInputError
        On a graph that is not a TaskGraph, or more tasks than processors without
        ``oversubscribe``.

    Notes
    -----
    Every derived value is computed on first use and kept, keyed by what it depends on,
    so a search builds each processor-coordinate variant or grid pattern once however
    many candidates use it.  Deterministic: the cache changes no result.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> p = Problem(TaskGraph.stencil([4, 4, 1]), torus_machine([4, 4]))
    >>> p.task_dims, p.grid_pattern.dims
    (2, (4, 4))
    """

    def __init__(self, graph: TaskGraph, machine: Machine, *, grid_pattern: GridPattern | None = None,
                 oversubscribe: bool = False) -> None:
        if not isinstance(graph, TaskGraph):
            raise InvalidInputError(f"graph: expected a TaskGraph; got {type(graph).__name__}")
        as_machine(machine)
        check_fit(graph.n_tasks, machine.n_procs, oversubscribe)
        self.graph = graph
        self.machine = machine
        self.oversubscribe = bool(oversubscribe)
        self._cache: dict[Hashable, Any] = {}
        if grid_pattern is not None:
            self._cache["grid_pattern"] = grid_pattern

    def cached(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """Return the value stored under ``key``, building it with ``build()`` the first time."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    @property
    def task_dims(self) -> int:
        """Number of task coordinate dimensions that vary (0 when the tasks have none)."""
        return self.cached("task_dims", self._task_dims)

    def _task_dims(self) -> int:
        coords = self.task_graph.coords
        if coords is None:
            return 0
        return int(np.count_nonzero(np.ptp(coords, axis=0) > 0))

    @property
    def task_coords_source(self) -> str | None:
        """Where the tasks' coordinates come from: ``"graph"``, ``"grid pattern"`` or None (none).

        A graph without coordinates (a recording, a matrix file) whose communication is a
        regular grid (:attr:`grid_pattern`) gets the grid's coordinates: rank ``r`` at
        ``(r % L0, (r // L0) % L1, ...)``, the numbering the analyser fitted the pairs to.
        Only the candidates that read coordinates (geometric) use them; each candidate is
        still scored on the graph's own edges, so a poor fit only costs candidates that lose.
        """
        return self.cached("task_coords_source", self._task_coords_source)

    def _task_coords_source(self) -> str | None:
        if self.graph.coords is not None:
            return "graph"
        if self.graph.n_tasks > 1 and self.grid_pattern.regular:
            return "grid pattern"
        return None

    @property
    def message_model(self) -> MessageModel:
        """The messages of the default objective and of the judge's replays for this graph.

        :func:`~mpitaskmap.metrics.message_model_for`: the weights are bytes, or, for a graph
        without message sizes (``graph.sized`` False),
        :data:`~mpitaskmap.metrics.UNSIZED_BYTES_PER_WEIGHT` bytes per unit of weight.
        """
        return self.cached("message_model", lambda: message_model_for(self.graph))

    @property
    def task_graph(self) -> TaskGraph:
        """The task graph the coordinate-reading families map: the graph, with the grid's coordinates when it has none.

        See :attr:`task_coords_source`; the same edges and weights as :attr:`graph`.
        """
        return self.cached("task_graph", self._task_graph)

    def _task_graph(self) -> TaskGraph:
        if self.task_coords_source == "grid pattern":
            return self.graph.with_coords(self.grid_pattern.coords())
        return self.graph

    def describe_task_coords(self) -> str:
        """Return one line on the tasks' coordinates for reports ("" when the graph has its own, or one task).

        Examples
        --------
        >>> from mpitaskmap import TaskGraph, torus_machine
        >>> g = TaskGraph.stencil([4, 2])
        >>> Problem(g.with_coords(None), torus_machine([4, 2])).describe_task_coords()
        'task coordinates from the regular 2-D grid 4x2 the traffic forms (rank r at (r % 4, r // 4))'
        """
        source = self.task_coords_source
        if source == "graph" or self.graph.n_tasks < 2:  # one task: nothing to place, nothing to say
            return ""
        if source is None:
            return "no task coordinates (the traffic is not a regular grid: geometric candidates left out)"
        dims = self.grid_pattern.dims
        terms, stride = [], 1
        for length in dims:
            r = "r" if stride == 1 else f"r // {stride}"
            terms.append(r if stride * length == self.graph.n_tasks else f"{r} % {length}")  # the slowest: no wrap
            stride *= length
        return (f"task coordinates from the regular {len(dims)}-D grid {'x'.join(map(str, dims))} the traffic forms "
                f"(rank r at ({', '.join(terms)}))")

    @property
    def node_view(self) -> NodeView:
        """The machine seen node by node (:meth:`~mpitaskmap.machines.Machine.node_view`, built once)."""
        return self.machine.node_view()

    @property
    def grid_pattern(self) -> GridPattern:
        """The regular-grid pattern of the task graph (:func:`~mpitaskmap.mappers.grid.analysis.analyse_grid`)."""
        return self.cached("grid_pattern", lambda: analyse_grid(self.graph))

    def __repr__(self) -> str:
        return f"Problem({self.graph.n_tasks} tasks, {self.machine.name!r})"
