"""The search layer: the table of mapper families, the candidate list and the one scoring loop.

Every search of the library — the search engine's stages (:mod:`~.engine`:
:func:`~.serial.best_of`, the ``auto`` method of :func:`mpitaskmap.map` and the command line,
``remap()``'s parallel search :func:`mpitaskmap.runtime.mpi_search.search_candidates`) and the
``regular`` method's table — evaluates candidates with :func:`score_candidates` and picks the
winner with :func:`winner`: the lowest score, ties to the lowest index.  The identity (default
order) is index 0 of every list built with ``include_identity=True``, so it wins every tie.

The families are plain modules of :mod:`mpitaskmap.search.families`; :data:`FAMILIES` is the
literal table from name to module, in the order :func:`candidate_list` concatenates them.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable, Iterable, Sequence

from ..errors import InvalidInputError, NotApplicableError
from .families import geometric, graph, grid, identity, percs, rubik
from ..machines import Machine
from ..mappers.graph.umpa import refine_congestion, refine_wh
from ..mappers.graph.node_swaps import NODE_SWAP_STEP, refine_node_swaps
from ..mapping import Mapping
from ..metrics import METRICS, default_metric, evaluate
from .judge import judge_resolution, judge_steps, mapping_digest
from .problem import Candidate, Problem
from ..graphs.taskgraph import TaskGraph

logger = logging.getLogger("mpitaskmap")

__all__ = [
    "FAMILIES",
    "DEFAULT_FAMILIES",
    "SEVERAL_PER_PROC",
    "families_for",
    "candidate_list",
    "apply",
    "score_candidates",
    "Scores",
    "winner",
    "REFINE_TOP",
    "refinement_candidates",
    "polishes_nodes",
    "top_indices",
    "resolve_metric",
    "as_problem",
]

#: Family name -> module with ``candidates(problem, **options)`` and ``apply(candidate, problem)``.
FAMILIES: dict[str, ModuleType] = {
    "identity": identity,
    "geometric": geometric,
    "graph": graph,
    "grid": grid,
    "percs": percs,
    "rubik": rubik,
}

#: Families searched when none are named: the geometric mapper (ALGORITHMS.md section 2).
DEFAULT_FAMILIES = ("geometric",)

#: Families whose mappings may put several tasks on one processor (``oversubscribe=True``);
#: the others place one task per processor, so a search over more tasks than processors
#: leaves them out (:func:`families_for`) and a method of theirs refuses such a job.
SEVERAL_PER_PROC = ("identity", "geometric")

def _family_names(families: str | Sequence[str]) -> list[str]:
    names = [families] if isinstance(families, str) else list(families)
    unknown = [f for f in names if f not in FAMILIES]
    if unknown:
        raise InvalidInputError(f"families: unknown {unknown[0]!r}; valid: {sorted(FAMILIES)}")
    return names


def families_for(problem: Problem) -> list[str]:
    """Return the families that have candidates for ``problem`` (what ``auto`` searches).

    Geometric when the tasks have coordinates, graph always, grid when the task graph is a
    regular grid on a box allocation, percs on PERCS machines; identity is not listed (the
    search puts it first anyway).  With more tasks than processors (a problem built with
    ``oversubscribe=True``) only the families of :data:`SEVERAL_PER_PROC`.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> families_for(Problem(TaskGraph.stencil([4, 4]), torus_machine([4, 4])))
    ['geometric', 'graph', 'grid', 'rubik']
    """
    out = []
    several = problem.graph.n_tasks > problem.machine.n_procs
    for name, module in FAMILIES.items():
        if name == "identity" or (several and name not in SEVERAL_PER_PROC):
            continue
        if module.candidates(problem):
            out.append(name)
    return out


def candidate_list(
    graph: TaskGraph | Problem,
    machine: Machine | None = None,
    *,
    families: str | Sequence[str] = DEFAULT_FAMILIES,
    include_identity: bool = False,
    oversubscribe: bool = False,
    **options,
) -> list[Candidate]:
    """Enumerate the candidates of the named families, deterministically.

    Parameters
    ----------
    graph : TaskGraph or Problem
        The tasks (or a :class:`~mpitaskmap.search.problem.Problem`, then ``machine`` is None).
    machine : Machine
        The processors.
    families : str or sequence of str, optional
        Family names of :data:`FAMILIES`, in this order (default geometric only).
    include_identity : bool, optional
        Put the identity (default order) first, as ``remap()`` does, so the winner is
        never worse than the default.  An "identity" family named explicitly is dropped
        elsewhere in the list (it is always index 0 or absent).
    oversubscribe : bool, optional
        Allow more tasks than processors (default False; see
        :class:`~mpitaskmap.search.problem.Problem`); ignored when a Problem is passed.
    **options
        Options of the geometric family's enumeration: ``orderings``, ``rotate``,
        ``variants``, ``max_all_rotations`` (see
        :func:`mpitaskmap.search.families.geometric.candidates`).

    Returns
    -------
    list of Candidate
        The same list on every MPI rank for the same inputs.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> cands = candidate_list(TaskGraph.stencil([4, 4, 4]), torus_machine([4, 4, 4]), orderings=["fz"])
    >>> len(cands), cands[0].label()
    (49, 'geometric fz T* P* shift')
    """
    problem = as_problem(graph, machine, oversubscribe)
    names = _family_names(families)
    unknown = sorted(set(options) - {"orderings", "rotate", "variants", "max_all_rotations"})
    if unknown:
        raise InvalidInputError(f"options: unknown {unknown[0]!r}; valid: ['max_all_rotations', 'orderings', "
                                f"'rotate', 'variants']")
    out: list[Candidate] = list(identity.candidates(problem)) if include_identity else []
    for name in names:
        if name == "identity":
            if not include_identity:
                out.extend(identity.candidates(problem))
            continue
        module = FAMILIES[name]
        out.extend(module.candidates(problem, **options) if name == "geometric" else module.candidates(problem))
    return out


def as_problem(graph: TaskGraph | Problem, machine: Machine | None, oversubscribe: bool = False) -> Problem:
    """``graph`` if it is a Problem (then ``machine`` must be None), else ``Problem(graph, machine)``.

    Raises
    ------
    InvalidInputError
        When both or neither of a Problem and a machine are given.
    """
    if isinstance(graph, Problem):
        if machine is not None:
            raise InvalidInputError("machine: pass either a Problem or (graph, machine), not both")
        return graph
    if machine is None:
        raise InvalidInputError("machine: missing (pass a Problem or graph and machine)")
    return Problem(graph, machine, oversubscribe=oversubscribe)


#: Candidates refined in the second stage of a search by default (0 = one stage).
REFINE_TOP = 4

#: Family name of second-stage candidates: option ``start`` (a first-stage candidate) refined.
REFINED = "refined"


def polishes_nodes(problem: Problem) -> bool:
    """Whether the second stage also polishes by node swaps (:func:`refinement_candidates`).

    On a machine with a link model, where the fluid judge replays several exchange steps
    exactly (:func:`~mpitaskmap.search.judge.judge_steps` and
    :func:`~mpitaskmap.search.judge.judge_resolution`, up to
    :data:`~mpitaskmap.search.judge.JUDGE_EXACT_MAX_EDGES` task-graph edges).  The polished
    mappings (:func:`~mpitaskmap.mappers.graph.node_swaps.refine_node_swaps`) often tie with
    their starts on the predicted time - a node's own link, which no swap relieves, is the
    busiest - and differ in how the contention below it spreads and delays the ranks step
    after step, which the exact five-step replay measures and a coarser one, the judge above
    that size, does not (on the fat trees of ``benchmarks/app_time_fattree.py`` at 512
    ranks the polish took the judged pick from 55.2 to 45.0 µs a replayed step; at 4,096
    ranks it was not measured).  Not where the routes are only assumed
    (:attr:`~mpitaskmap.machines.Machine.routes_known`: a fat tree under ``"unknown"``): the polish
    would tune the mapping to routes the network may not take.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> from mpitaskmap.machines import FlatMachine
    >>> polishes_nodes(Problem(TaskGraph.stencil((8, 8, 8)), torus_machine((8, 8, 8))))
    True
    >>> polishes_nodes(Problem(TaskGraph.stencil((16, 16, 16)), torus_machine((16, 16, 16))))
    False
    >>> polishes_nodes(Problem(TaskGraph.stencil((8, 8, 8)), FlatMachine(range(512))))
    False
    """
    return (bool(problem.machine.has_link_model) and problem.machine.routes_known and judge_steps(problem) > 1
            and judge_resolution(problem) == 0.0)


def refinement_candidates(starts: Sequence[Candidate], metric="weighted_hops", *,
                          node_swaps: bool = False) -> list[Candidate]:
    """Return the second-stage candidates: each start refined for ``metric``.

    Every start gets weighted-hop swap refinement (UWH); when the metric is ``latency``
    (Latency(M)) or ``predicted_time`` (set by the most loaded link) the UWH result is
    also refined by congestion refinement UMC, for ``max_messages`` (MMC) by UMMC (torus
    machines).  With ``node_swaps`` (:func:`polishes_nodes`) and a link metric, the start
    and its UMC result are also polished by node swaps
    (:func:`~mpitaskmap.mappers.graph.node_swaps.refine_node_swaps`).  Label: the start's,
    plus ``" + uwh"`` (``" + uwh + umc"``, ``" + nodes"``, ...).

    Examples
    --------
    >>> [c.label() for c in refinement_candidates([geometric.candidate("z")], "latency")]
    ['geometric z T* P* shift + uwh', 'geometric z T* P* shift + uwh + umc']
    >>> [c.label() for c in refinement_candidates([geometric.candidate("z")], "predicted_time", node_swaps=True)][2:]
    ['geometric z T* P* shift + nodes', 'geometric z T* P* shift + uwh + umc + nodes']
    """
    name = metric if isinstance(metric, str) else getattr(metric, "__name__", "")
    steps: list[tuple[str, ...]] = [("uwh",)]
    if name in ("latency", "predicted_time"):
        steps.append(("uwh", "umc"))
        if node_swaps:
            steps += [(NODE_SWAP_STEP,), ("uwh", "umc", NODE_SWAP_STEP)]
    elif name == "max_messages":
        steps.append(("uwh", "ummc"))
    return [Candidate.make(REFINED, "+".join(st), title=" + ".join((c.label(),) + st), start=c)
            for c in starts for st in steps]


def top_indices(scores: Iterable[tuple[int, float]], k: int) -> list[int]:
    """Return the indices of the ``k`` best finite scores, best first (ties: lower index).

    Examples
    --------
    >>> top_indices([(0, 5.0), (1, 3.0), (2, float("inf")), (3, 3.0)], 2)
    [1, 3]
    """
    ranked = sorted((s, i) for i, s in scores if s != float("inf"))
    return [i for _, i in ranked[: max(0, int(k))]]


#: The second stage's refinements by step name: mapping -> mapping.
_STEPS: dict[str, Callable[[Mapping], Mapping]] = {
    "uwh": refine_wh,
    "umc": lambda m: refine_congestion(m, objective="latency"),
    "ummc": lambda m: refine_congestion(m, objective="max_messages"),
    NODE_SWAP_STEP: refine_node_swaps,
}


def _refined(problem: Problem, start: Candidate, steps: tuple[str, ...]) -> Mapping:
    """``start``'s mapping refined by ``steps`` in turn, each prefix computed once per problem."""
    if not steps:
        return problem.cached((REFINED, start, steps), lambda: apply(start, problem))
    return problem.cached((REFINED, start, steps), lambda: _STEPS[steps[-1]](_refined(problem, start, steps[:-1])))


def _apply_refined(candidate: Candidate, problem: Problem) -> Mapping:
    if problem.graph.n_tasks > problem.machine.n_procs:  # the refinements move one task per processor
        raise NotApplicableError(f"{candidate.label()}: refinement places one task per processor; "
                                 f"got {problem.graph.n_tasks} tasks on {problem.machine.n_procs}")
    steps = tuple(candidate.method.split("+"))
    if steps != ("uwh",) and not problem.machine.has_link_model:
        raise NotApplicableError(f"{candidate.label()}: congestion refinement and node swaps need a machine with "
                                 f"routed links")
    done = _refined(problem, candidate.option("start"), steps)
    # a copy: the cached mapping is the next step's start, and callers label theirs
    info = dict(done.info)
    info.pop(graph.WORSE_THAN_DEFAULT, None)  # the refinements copy the start's info: its note is not theirs
    return Mapping(done.task_to_proc, done.machine, done.graph, method=done.method, info=info)


def apply(candidate: Candidate, problem: Problem, **kwargs) -> Mapping:
    """Compute ``candidate``'s mapping with its family's ``apply`` (keyword options passed on).

    Second-stage candidates (:func:`refinement_candidates`) compute their start and
    refine it.

    Raises
    ------
    InvalidInputError
        When the candidate names no family of :data:`FAMILIES`.
    NotApplicableError
        When its preconditions fail on this problem.
    """
    if candidate.family == REFINED:
        mapping = _apply_refined(candidate, problem)
        mapping.info["candidate"] = candidate.label()
        return mapping
    module = FAMILIES.get(candidate.family)
    if module is None:
        raise InvalidInputError(f"candidate: unknown family {candidate.family!r}; valid: {sorted(FAMILIES)}")
    mapping = module.apply(candidate, problem, **kwargs)
    mapping.info.setdefault("candidate", candidate.label())
    return mapping


def resolve_metric(metric, machine: Machine):
    """Return the objective a search uses: ``metric``, or the machine's default when None.

    None means :func:`mpitaskmap.metrics.default_metric` (``"predicted_time"`` on a
    machine with a link model, ``"weighted_hops"`` elsewhere); a name or a callable is
    returned as given.
    """
    return default_metric(machine) if metric is None else metric


def _score_function(problem: Problem, metric) -> Callable[[Mapping], float]:
    metric = resolve_metric(metric, problem.machine)
    if isinstance(metric, str):
        if metric not in METRICS:
            raise InvalidInputError(f"metric: unknown {metric!r}; valid: {sorted(METRICS)}")
        options = problem.message_model.metric_options()  # the graph's sizes, or the size assumed without them
        return lambda m: float(evaluate(problem.graph, problem.machine, m.task_to_proc, [metric], **options)[metric])
    if not callable(metric):
        raise InvalidInputError(f"metric: expected a name of METRICS or a function; got {metric!r}")
    return lambda m: float(metric(problem.graph, problem.machine, m.task_to_proc))


@dataclass
class Scores:
    """What :func:`score_candidates` found over the candidates it evaluated.

    Attributes
    ----------
    scores : list of (int, float)
        ``(index, score)`` of every evaluated candidate, in evaluation order; a
        candidate that does not apply scores infinity.
    best : (float, int, Mapping) or None
        The best evaluated candidate: score, index and mapping (ties to the lowest
        index); None when none applied.
    error : str
        ``"candidate I (LABEL): Type: message"`` of the first real error (evaluation stops
        there), or "".
    cpu_seconds : float
        Process CPU time spent.
    refused : dict of int to str
        Why every candidate that did not apply was refused (its
        :class:`~mpitaskmap.errors.NotApplicableError`), by index.
    """

    scores: list = field(default_factory=list)
    best: tuple | None = None
    error: str = ""
    cpu_seconds: float = 0.0
    refused: dict = field(default_factory=dict)


def score_candidates(
    problem: Problem,
    candidates: Sequence[Candidate],
    indices: Iterable[int] | None = None,
    metric=None,
    *,
    catch: bool = False,
    progress: Callable[[int, int], None] | None = None,
    keep: Callable[[int, Mapping | None, float, float], None] | None = None,
) -> Scores:
    """The one scoring loop: compute and score ``candidates[i]`` for ``i`` in ``indices``.

    Parameters
    ----------
    problem : Problem
        Task graph and machine (its cache is shared by all candidates).
    candidates : sequence of Candidate
        The whole list (indices refer to it).
    indices : iterable of int, optional
        Which candidates to evaluate, in this order (default all); ``remap`` gives each
        rank ``range(rank, len, size)``.
    metric : str, callable or None, optional
        A name of :data:`mpitaskmap.metrics.METRICS` or ``f(graph, machine,
        task_to_proc) -> float``; lower is better.  Default None: the machine's default
        objective (:func:`resolve_metric`: predicted time with a link model, else
        weighted hops).
    catch : bool, optional
        Record the first real error in :attr:`Scores.error` and stop, instead of raising
        (collective callers must never raise between collectives).
    progress : callable, optional
        ``progress(done, total)`` after each candidate.
    keep : callable, optional
        ``keep(index, mapping, score, seconds)`` for every evaluated candidate (tables);
        ``mapping`` is None and ``score`` infinity when it did not apply.

    Returns
    -------
    Scores
        Candidates raising :class:`~mpitaskmap.errors.NotApplicableError` score infinity
        and never win; their reasons are kept (:attr:`Scores.refused`) and logged (logger
        ``mpitaskmap``, INFO).

    Notes
    -----
    Cost: one mapping per index and one metric evaluation per distinct mapping (a
    candidate whose rank order another evaluated one already gave, by
    :func:`~mpitaskmap.search.judge.mapping_digest`, takes its score: on a 3-D torus a
    fifth to a quarter of the geometric candidates repeat another's mapping).  The metric
    must be a function of the rank order alone, as every metric is.  Deterministic: the
    winner is the minimum of (score, index).
    """
    score_fn = _score_function(problem, metric)
    idx = list(range(len(candidates)) if indices is None else indices)
    out = Scores()
    scored: dict[bytes, float] = {}
    c0 = time.process_time()
    for done, i in enumerate(idx, 1):
        cand = candidates[i]
        t0 = time.perf_counter()
        try:
            mapping = apply(cand, problem)
            digest = mapping_digest(mapping.task_to_proc)
            score = scored.get(digest)
            if score is None:
                score = scored[digest] = score_fn(mapping)
        except NotApplicableError as exc:
            mapping, score = None, float("inf")
            out.refused[i] = str(exc)
            logger.info("candidate %d (%s) does not apply: %s", i, cand.label(), exc)
        except Exception as exc:
            if not catch:
                raise
            out.error = f"candidate {i} ({cand.label()}): {type(exc).__name__}: {exc}"
            break
        out.scores.append((i, score))
        if keep is not None:
            keep(i, mapping, score, time.perf_counter() - t0)
        if mapping is not None and (out.best is None or (score, i) < out.best[:2]):
            out.best = (score, i, mapping)
        if progress is not None:
            progress(done, len(idx))
    out.cpu_seconds = time.process_time() - c0
    return out


def winner(scores: Iterable[tuple[int, float]]) -> tuple[float, int]:
    """Return ``(score, index)`` of the winner: the lowest score, ties to the lowest index.

    Examples
    --------
    >>> winner([(2, 5.0), (0, 5.0), (1, 7.0)])
    (5.0, 0)
    """
    return min((s, i) for i, s in scores)
