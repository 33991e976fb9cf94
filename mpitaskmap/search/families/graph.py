"""The graph family: greedy growth and swap refinement (UMPa), for any task graph.

Methods (:data:`METHODS`): ``greedy`` (UG alone), ``greedy+uwh`` (UG then weighted-hop
refinement), ``geometric+uwh`` (the FZ geometric mapping refined; needs task
coordinates), ``identity+uwh`` (the application's own order refined: partitioners often
number parts locally), ``umc`` and ``ummc`` (greedy+uwh, then congestion refinement of
Latency(M) or of the max message count; machines with a link model), ``bisection`` (dual
recursive bisection of tasks and processors, then UWH:
:func:`~mpitaskmap.mappers.graph.bisection.map_bisection`).

The family's search candidates are ``greedy+uwh``, ``bisection``, ``geometric+uwh`` (with
coordinates) and ``identity+uwh``, in this order.
"""

from __future__ import annotations

from typing import Callable

from ...errors import NotApplicableError
from ...mappers.graph.bisection import map_bisection
from ...mappers.geometric.mapper import map_geometric
from ...mappers.graph.greedy import map_greedy, refine_congestion, refine_wh
from ...mapping import Mapping, identity_mapping
from ..problem import Candidate, Problem

__all__ = ["candidates", "apply", "METHODS"]

#: Every method of the family, in table order.
METHODS = ("greedy", "greedy+uwh", "geometric+uwh", "identity+uwh", "umc", "ummc", "bisection")


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
    return out


def apply(candidate: Candidate, problem: Problem, *, progress: Callable | None = None,
          congestion_progress: Callable | None = None) -> Mapping:
    """Compute a graph-family candidate.

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
        (:data:`~mpitaskmap.mappers.graph.greedy.MAX_ROUTE_ENTRIES`).
    """
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
        if g.coords is None:
            raise NotApplicableError("graph geometric+uwh: the tasks have no coordinates")
        return refine_wh(map_geometric(g, m, ordering=candidate.option("ordering", "fz")), delta=delta, progress=progress)
    if method == "identity+uwh":
        return refine_wh(identity_mapping(g, m), delta=delta, progress=progress)
    if method == "bisection":
        return map_bisection(g, m, delta=delta, progress=progress)
    raise ValueError(f"method: unknown graph method {method!r}; valid: {list(METHODS)}")
