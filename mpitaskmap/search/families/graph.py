"""The graph family: greedy growth and swap refinement (UMPa), for any task graph.

Methods (:data:`METHODS`): ``greedy`` (UG alone), ``greedy+uwh`` (UG then weighted-hop
refinement), ``geometric+uwh`` (the FZ geometric mapping refined; needs task
coordinates), ``identity+uwh`` (the application's own order refined: partitioners often
number parts locally), ``umc`` and ``ummc`` (greedy+uwh, then congestion refinement of
Latency(M) or of the max message count; machines with a link model), ``bisection`` (dual
recursive bisection of tasks and processors, then UWH:
:func:`~mpitaskmap.mappers.graph.bisection.map_bisection`), ``packing`` (greedy+uwh on the
machine's nodes with the network ignored: :func:`map_packing`), ``balance`` (packing, then the
nodes dealt over a dragonfly's groups so group pairs carry even shares:
:func:`~mpitaskmap.mappers.graph.group_balance.map_group_balance`).

The family's search candidates are ``greedy+uwh``, ``bisection``, ``geometric+uwh`` (with
coordinates), ``identity+uwh``, ``packing`` and, where the routing adapts to the traffic over
groups (a dragonfly under ``"ugal"``: balance is what adaptive routing rewards), ``balance``, in
this order.  ``packing`` is what an MPI
library's own ``reorder`` gives at best (Open MPI's treematch sees inside nodes only), so a
search that holds it never settles below that by its objective and judge; on a tapered fat
tree with 16 ranks a node, where every mapping's busiest link is a node's own, it is
sometimes the fastest mapping there is (``sim:fattree`` 2:1, 512 ranks, seed 2: 64.99 µs a
step replayed against 65.03 µs for the best tree-aware candidate; SMPI agrees).

None of them promises to beat the default order: they minimise weighted hops, and the
search's objective on a machine with links is the predicted time, set by the most loaded
link.  Inside a search (``auto``, ``remap()``) that is harmless: the identity is candidate 0
and wins every tie, and the judge's shortlist holds only candidates no worse than it, so a
graph mapping worse than the default order by the objective never wins (but the best
candidate by a ``judge_also`` metric joins the shortlist uncapped, a gap pinned by a strict
xfail in ``tests/test_guarded_decisions.py``).  A graph method asked for by name returns
its mapping anyway, and says so: :func:`apply` puts ``info[WORSE_THAN_DEFAULT]`` on it
(:func:`note_against_default`), which ``mpitaskmap map`` and ``compare`` print.  E.g. ``bisection`` on the README's SimGrid walkthrough input (the
8x8x8 stencil on ``sim:titan:ppn=8,seed=1``): weighted hops 4,014,080 against the default
order's 6,225,920, but 40 messages on one Y link (the Gemini's slowest, 37.5 per unit time),
so Latency(M) 2,731 against 2,185 and predicted time 2.756e-06 s against 2.195e-06 s.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import NotApplicableError
from ...metrics import default_metric, evaluate
from ...mappers.graph.bisection import map_bisection
from ...mappers.geometric.mapper import map_geometric
from ...mappers.graph.greedy import map_greedy
from ...mappers.graph.group_balance import GROUP_LEVEL, map_group_balance
from ...mappers.graph.umpa import refine_congestion, refine_wh
from ...graphs.taskgraph import TaskGraph
from ...machines import FlatMachine, Machine
from ...mapping import Mapping, identity_mapping
from ..problem import Candidate, Problem

__all__ = ["candidates", "apply", "map_packing", "METHODS", "WORSE_THAN_DEFAULT", "note_against_default", "worse_than_default_line"]

#: Every method of the family, in table order.
METHODS = ("greedy", "greedy+uwh", "geometric+uwh", "identity+uwh", "umc", "ummc", "bisection", "packing",
           "balance")

#: ``info`` key of a graph mapping the default objective ranks below the default order:
#: ``{"metric": NAME, "value": its score, "default": the default order's score}``.
WORSE_THAN_DEFAULT = "worse_than_default"


def _title(method: str, options: dict) -> str:
    return " ".join([method] + [str(v) for _, v in sorted(options.items())])


def candidate(method: str, **options) -> Candidate:
    """Return the graph-family candidate ``method`` (one of :data:`METHODS`) with options.

    Options: ``ordering`` (geometric+uwh, default "fz"), ``delta`` (refinement
    neighbourhood, default 8).

    Examples
    --------
    >>> candidate("geometric+uwh", ordering="fz").label()
    'geometric+uwh fz'
    """
    if method not in METHODS:
        raise ValueError(f"method: unknown graph method {method!r}; valid: {list(METHODS)}")
    if method == "geometric+uwh":
        options.setdefault("ordering", "fz")
    return Candidate.make("graph", method, title=_title(method, options), **options)


def candidates(problem: Problem) -> list[Candidate]:
    """Return the family's search candidates (see the module docstring)."""
    out = [candidate("greedy+uwh"), candidate("bisection")]
    if problem.task_dims:
        out.append(candidate("geometric+uwh"))
    out.append(candidate("identity+uwh"))
    out.append(candidate("packing"))
    if problem.machine.adaptive_routing and has_groups(problem.machine):
        out.append(candidate("balance"))
    return out


def has_groups(machine: Machine) -> bool:
    """Whether ``machine``'s allocation spans two or more groups of a ``"group"`` level (where ``balance`` applies)."""
    hierarchy = machine.node_hierarchy()
    if hierarchy is None or GROUP_LEVEL not in hierarchy.level_names:
        return False
    return np.unique(hierarchy.groups[hierarchy.level_names.index(GROUP_LEVEL)]).size >= 2


def map_packing(graph: TaskGraph, machine: Machine, *, delta: int = 8, progress: Callable | None = None) -> Mapping:
    """Pack the tasks onto the machine's nodes with the network ignored (node packing).

    Greedy growth and UWH (:func:`~mpitaskmap.mappers.graph.greedy.map_greedy` with
    ``refine=True``) on :class:`~mpitaskmap.machines.FlatMachine` of the same processors
    (every node one hop from every other), the result returned on ``machine``: heavy
    neighbours share a node, the nodes themselves are taken in the machine's order.  This is
    what ``MPI_Dist_graph_create_adjacent(reorder=1)`` gives at best where the MPI library
    maps inside nodes only.  O(greedy + UWH on ``n_nodes`` equidistant nodes).

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph.
    machine : Machine
        The processors; only their nodes are used.
    delta : int, optional
        UWH candidate nodes per task (default 8).
    progress : callable, optional
        ``progress(done, total)`` of the UWH passes.

    Returns
    -------
    Mapping
        On ``machine``, ``method == "packing"``.

    Examples
    --------
    Two nodes of two cores on two leaves; tasks 0-3 and 1-2 talk, so each pair shares a node:

    >>> from mpitaskmap.machines import FatTreeMachine
    >>> m = FatTreeMachine.regular([2, 2], [1, 1], 10.0, [0, 0, 3, 3])
    >>> g = TaskGraph.from_edges([0, 1], [3, 2], n_tasks=4)
    >>> map_packing(g, m).task_to_proc.tolist()
    [0, 2, 3, 1]
    """
    flat = FlatMachine(machine.node_ids, name=f"{machine.name} (nodes only)")
    packed = map_greedy(graph, flat, refine=True, delta=delta, progress=progress)
    return Mapping(np.asarray(packed.task_to_proc, dtype=np.int64), machine, graph, method="packing",
                   info=dict(packed.info))


def note_against_default(mapping: Mapping, problem: Problem) -> Mapping:
    """Put ``info[WORSE_THAN_DEFAULT]`` on ``mapping`` when the default objective ranks it below the default order.

    The objective is the search's default one (:func:`~mpitaskmap.metrics.default_metric`:
    predicted time with its default message model on a machine with links, else weighted
    hops); the default order's score is computed once per problem.  A mapping scoring the
    same as the default order, or better, gets no note.

    Parameters
    ----------
    mapping : Mapping
        A mapping of ``problem``'s tasks (changed in place: its ``info``).
    problem : Problem
        The task graph and machine.

    Returns
    -------
    Mapping
        ``mapping`` itself.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> g, m = TaskGraph.stencil([4]), torus_machine([4], wrap=False)
    >>> note = note_against_default(Mapping([0, 2, 1, 3], m, g), Problem(g, m)).info[WORSE_THAN_DEFAULT]
    >>> note["metric"], f"{note['value']:.3g} s", f"{note['default']:.3g} s"
    ('predicted_time', '1.23e-05 s', '4.1e-06 s')
    """
    metric = default_metric(problem.machine)

    def score(task_to_proc) -> float:
        return float(evaluate(problem.graph, problem.machine, task_to_proc, [metric],
                              **problem.message_model.metric_options())[metric])

    default = problem.cached(("default order score", metric),
                             lambda: score(identity_mapping(problem.graph, problem.machine).task_to_proc))
    value = score(mapping.task_to_proc)
    if value > default:
        mapping.info[WORSE_THAN_DEFAULT] = {"metric": metric, "value": value, "default": default}
    return mapping


def worse_than_default_line(label: str, info: dict) -> str:
    """The report's line for a mapping whose ``info`` holds :data:`WORSE_THAN_DEFAULT`, else "".

    Examples
    --------
    >>> note = {"metric": "predicted_time", "value": 2.7557e-06, "default": 2.1946e-06}
    >>> print(worse_than_default_line("bisection", {WORSE_THAN_DEFAULT: note}), end="")
    note: bisection: predicted_time 2.756e-06, worse than the default order's 2.195e-06 (auto never picks it)
    >>> worse_than_default_line("greedy", {})
    ''
    """
    note = info.get(WORSE_THAN_DEFAULT)
    if not note:
        return ""
    return (f"note: {label}: {note['metric']} {note['value']:.4g}, worse than the default order's "
            f"{note['default']:.4g} (auto never picks it)\n")


def apply(candidate: Candidate, problem: Problem, *, progress: Callable | None = None,
          congestion_progress: Callable | None = None) -> Mapping:
    """Compute a graph-family candidate, with :func:`note_against_default`'s note.

    Parameters
    ----------
    candidate : Candidate
        Family "graph".
    problem : Problem
        The task graph and machine.
    progress, congestion_progress : callable, optional
        ``progress(done, total)`` of the UWH passes and of the UMC/UMMC iterations.

    Raises
    ------
    NotApplicableError
        geometric+uwh without task coordinates; umc/ummc on a machine without a link
        model, or off the torus with too many nodes for the route table
        (:data:`~mpitaskmap.mappers.graph.node_network.MAX_ROUTE_ENTRIES`).
    """
    return note_against_default(_compute(candidate, problem, progress, congestion_progress), problem)


def _compute(candidate: Candidate, problem: Problem, progress: Callable | None,
             congestion_progress: Callable | None) -> Mapping:
    g, m, method = problem.graph, problem.machine, candidate.method
    delta = candidate.option("delta", 8)
    if method == "greedy":
        return map_greedy(g, m, delta=delta)
    if method in ("greedy+uwh", "umc", "ummc"):
        if method != "greedy+uwh" and not m.has_link_model:
            raise NotApplicableError(f"graph {method}: congestion refinement needs routed links; "
                                     f"machine {m.name!r} has no link model")
        start = map_greedy(g, m, refine=True, delta=delta, progress=progress)
        if method == "greedy+uwh":
            return start
        objective = "latency" if method == "umc" else "max_messages"
        return refine_congestion(start, objective=objective, delta=delta, progress=congestion_progress)
    if method == "geometric+uwh":
        placed = problem.task_graph  # the graph's coordinates, or its grid's when it has none
        if placed.coords is None:
            raise NotApplicableError("graph geometric+uwh: the tasks have no coordinates")
        start = map_geometric(placed, m, ordering=candidate.option("ordering", "fz"))
        start.graph = g
        return refine_wh(start, delta=delta, progress=progress)
    if method == "identity+uwh":
        return refine_wh(identity_mapping(g, m), delta=delta, progress=progress)
    if method == "bisection":
        return map_bisection(g, m, delta=delta, progress=progress)
    if method == "packing":
        return map_packing(g, m, delta=delta, progress=progress)
    if method == "balance":
        return map_group_balance(g, m, delta=delta, progress=progress)
    raise ValueError(f"method: unknown graph method {method!r}; valid: {list(METHODS)}")
