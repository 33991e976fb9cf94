"""The public front end: :func:`map` by method name, the table of methods, and ``regular``.

``mpitaskmap.map(graph, machine, method=...)`` is what the command line, ``remap()``'s
users and the benchmarks call to get one mapping by name.  A method is written ``NAME``
or ``NAME:ARG`` (``grid:affn``, ``percs:mod_colouring``); options are keywords.  Every
method but ``regular`` and ``auto`` is one :class:`~mpitaskmap.search.problem.Candidate`
(:func:`method_candidate`), so ``map(g, m, method=X)`` and
``best_of(g, m, [method_candidate(X)])`` give the same mapping.  Every method, its
options and whether it refines are declared once, in
:data:`~mpitaskmap.search.registry.METHOD_TABLE`; :data:`METHODS` and the command line read it.

==================  ============================================================================
method              what it computes
==================  ============================================================================
``identity``        the default order: task ``t`` on processor ``t``
``geometric``       one Multi-Jagged mapping
``greedy``          greedy graph growth (UG)
``greedy+uwh``      greedy growth, then weighted-hop swap refinement (UWH)
``geometric+uwh``   geometric, then UWH
``identity+uwh``    the default order refined by UWH
``umc``, ``ummc``   greedy+uwh, then refinement of Latency(M) / of the max message count
``bisection``       dual recursive bisection of tasks and processors, then UWH
``packing``         greedy+uwh on the nodes with the network ignored (node packing)
``balance``         packing, then the nodes dealt over a dragonfly's groups (even group pairs)
``grid:NAME``       one regular-grid heuristic (affn, mxovlp, fold, stack, sfc, block, ...)
``regular``         the grid analyser, every grid heuristic, the best refined by PAIRS
``percs:NAME``      one PERCS strategy (PERCS machines)
``rubik:NAME``      Rubik's box mapping: ``map``, ``tilt``, ``zorder``
``auto``            the best of every applicable family's candidates by ``metric``,
                    the identity first (:func:`~mpitaskmap.search.scoring.families_for`), then
                    the ``refine`` (default 4) best refined: UWH, UMC and, up to
                    ``JUDGE_STEPS_MAX_EDGES`` edges, node swaps (a two-stage search)
==================  ============================================================================

Their options: :data:`METHODS` (or ``mpitaskmap map --help``, which spells them).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..errors import InvalidInputError
from ..mappers.grid.analysis import GridPattern, _to_coo, analyse_grid
from ..graphs.taskgraph import TaskGraph
from ..machines import Machine
from ..mappers.grid._shared import proc_grid
from ..mappers.grid.heuristics import map_grid
from ..mapping import IDENTITY, Mapping
from ..metrics import weighted_hops
from .families import grid as grid_family
from .families import identity as identity_family
from . import engine
from .engine import SearchRequest, metric_name
from .judge import DEFAULT_JUDGE, JUDGE_ALSO, JUDGE_TOP, judge_metrics, resolve_judge
from .problem import Problem
from .registry import METHOD_TABLE, find_method, method_candidate
from .scoring import (REFINE_TOP, SEVERAL_PER_PROC, apply, candidate_list, families_for, resolve_metric,
                      score_candidates)
from .parallel import ProcessExecutor, executor_for
from .serial import label_winner

__all__ = ["map", "METHODS", "method_candidate", "map_regular", "RegularResult"]

#: Method name -> one-line description with its options (the methods of :func:`map`, in table
#: order), derived from :data:`~mpitaskmap.search.registry.METHOD_TABLE`.
METHODS: dict[str, str] = {name: m.summary() for name, m in METHOD_TABLE.items()}


def map(  # noqa: A001 - the public name is mpitaskmap.map
    graph: TaskGraph,
    machine: Machine,
    method: str = "auto",
    *,
    metric=None,
    families: str | Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    congestion_progress: Callable[[int, int], None] | None = None,
    judge: str | None = DEFAULT_JUDGE,
    judge_top: int = JUDGE_TOP,
    judge_options: dict | None = None,
    judge_also: Sequence[str] | None = None,
    oversubscribe: bool = False,
    jobs: int | None = 1,
    **options,
) -> Mapping:
    """Map ``graph`` onto ``machine`` with a method of :data:`METHODS`.

    Parameters
    ----------
    graph : TaskGraph
        The tasks (coordinates needed by the geometric methods).
    machine : Machine
        The processors.
    method : str, optional
        ``NAME`` or ``NAME:ARG`` (default "auto").
    metric : str, callable or None, optional
        What ``auto`` minimises: a name of :data:`mpitaskmap.metrics.METRICS` or
        ``f(graph, machine, task_to_proc)``.  Default None: predicted time
        (``predicted_time``) on machines with a link model, weighted hops elsewhere
        (:func:`mpitaskmap.metrics.default_metric`); ``info["metric"]`` says which.
    families : str or sequence of str, optional
        The families ``auto`` searches (default: every family with candidates for this
        input, :func:`~mpitaskmap.search.scoring.families_for`).
    progress : callable, optional
        ``progress(done, total)``: candidates of ``auto``, refinement passes of the graph
        methods.
    congestion_progress : callable, optional
        ``progress(done, total)`` of the congestion iterations of ``umc`` / ``ummc``.
    judge : {"default", "fluid", "simulate", None}, optional
        ``auto`` only: replay the ``judge_top`` best distinct mappings of the search (by the
        objective, both stages), plus the best one by each metric of ``judge_also``, and the
        default order, and return the fastest (:func:`mpitaskmap.search.judge.judge_order`:
        times within a relative :data:`~mpitaskmap.search.judge.JUDGE_TIE` are equal, ties to the
        default order, then to the better objective): the default order unless a mapping
        replays faster than it.  ``"fluid"``: SimGrid's SMPI network model computed in-process
        (:func:`mpitaskmap.sim.fluid.fluid_exchange`, no SimGrid needed;
        :func:`~mpitaskmap.search.judge.judge_steps` steps, their mean; a tenth of a second to a
        few seconds a replay at 4,096 ranks, ``benchmarks/fluid_speed.py``).  ``"simulate"``: SimGrid itself
        (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`; needs ``libsimgrid-dev``, seconds to
        minutes a replay).  ``"default"``: ``"fluid"`` when ``metric`` is None (the default
        objective), the machine has a link model and the task graph has at most
        :data:`~mpitaskmap.search.judge.FLUID_JUDGE_MAX_EDGES` edges, else no judge
        (:func:`mpitaskmap.search.judge.default_judge`); above
        :data:`~mpitaskmap.search.judge.JUDGE_EXACT_MAX_EDGES` edges its replays run at
        :data:`~mpitaskmap.search.judge.FLUID_JUDGE_RESOLUTION` and tie within it.  None: the objective alone decides.
        ``info["judge"]`` names the judge that ran (None if none) and ``info["judge_why"]``
        why; ``info["judged"]`` lists the replayed mappings with both rankings and why each
        was chosen (``chosen_by``: ``"objective"``, ``"tie"``, the metric's name or
        ``"default order"``), ``info["default_simulated_s"]`` the default order's replayed
        seconds (nan when not replayed), ``info["judge_seconds"]`` the wall seconds of the
        replays.
    judge_top : int, optional
        How many distinct mappings of the objective's ranking the judge replays (default
        :data:`~mpitaskmap.search.judge.JUDGE_TOP`).
    judge_options : dict, optional
        ``"fluid"``: keywords of :func:`~mpitaskmap.sim.fluid.fluid_exchange`
        (:data:`~mpitaskmap.search.judge.FLUID_OPTIONS`); ``"simulate"``: of
        :func:`~mpitaskmap.sim.simgrid_replay.simulate_exchange`.  Defaults: ``link_latency`` =
        :data:`~mpitaskmap.metrics.DEFAULT_HOP_LATENCY`, ``bytes_per_weight`` = 1 (weights
        are bytes, as for the default objective), the SMPI network model (``config`` =
        :data:`~mpitaskmap.search.judge.JUDGE_CONFIG` for SimGrid).
    judge_also : sequence of str, optional
        Names of :data:`mpitaskmap.metrics.METRICS` whose best candidate (ties: the
        better objective, then the lower index) the judge also replays when it is not
        among the ``judge_top`` already (default :data:`~mpitaskmap.search.judge.JUDGE_ALSO`; none
        for ``judge="default"``, which replays what ``remap()`` replays; ``()``: none).
        Link metrics are skipped on a machine without a link model.  They are computed in
        the search's own pass over the candidates (one more metric evaluation each).
    oversubscribe : bool, optional
        Allow more tasks than processors (default False: such a job is refused,
        :func:`~mpitaskmap.mapping.check_fit`).  Only the families of
        :data:`~mpitaskmap.search.scoring.SEVERAL_PER_PROC` (identity, geometric) place
        several tasks on a processor: ``auto`` then searches those, other methods refuse.
    jobs : int or None, optional
        Processes ``auto`` spreads its candidates over on this machine (default 1: this
        process; None: every core it may use, :func:`~mpitaskmap.search.parallel.default_jobs`).
        Forked workers (:class:`~mpitaskmap.search.parallel.ProcessExecutor`), used from
        :data:`~mpitaskmap.search.parallel.PARALLEL_MIN_TASKS` tasks; the mapping is the
        same whatever ``jobs``.
    **options
        Options of the method, as :data:`~mpitaskmap.search.registry.METHOD_TABLE` declares
        them (``ordering=...`` for geometric, ``delta=`` for the graph refinements,
        ``pairs=`` for regular, ``orderings``/``rotate``/``variants`` for auto's geometric
        candidates, ``refine`` for auto's second stage, ...); ``progress`` and
        ``congestion_progress`` reach the methods the table marks as refining.

    Returns
    -------
    Mapping
        ``info["candidate"]`` names the candidate; ``auto`` adds ``candidate_index``,
        ``candidates`` (how many it evaluated), ``applicable`` (how many of them applied),
        ``refused`` (label -> why, for each that did not: a bound it passed, a precondition),
        ``candidate_list`` (those candidates, both stages, in evaluation order:
        ``candidate_index`` points there; recompute one with
        :func:`mpitaskmap.search.scoring.apply`) and ``families``.

    Raises
    ------
    InvalidInputError
        On an unknown method or option, when the method does not apply to this input
        (:class:`~mpitaskmap.errors.NotApplicableError`), or on more tasks than processors
        without ``oversubscribe`` (or with a method that places one task per processor).

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    >>> map(g, m, "geometric").metric("average_hops"), map(g, m).info["candidate"]
    (1.0, 'identity (default order)')
    """
    entry, arg = find_method(method)
    name = entry.name
    problem = Problem(graph, machine, oversubscribe=oversubscribe)
    _check_several_per_proc(problem, [entry.family] if entry.family else [], f"method {method!r}")
    if name == "auto" and families is not None:
        _check_several_per_proc(problem, [families] if isinstance(families, str) else list(families), "families")
    if ((judge not in (None, DEFAULT_JUDGE) or judge_also is not None or judge_options is not None)
            and name != "auto"):
        raise InvalidInputError(f"judge: only method 'auto' has candidates to judge; got method {method!r}")
    if families is not None and name != "auto":
        raise InvalidInputError(f"families: only method 'auto' searches families; got method {method!r}")
    entry.check_options(arg, options)
    if name == "auto":
        ran, why, added = resolve_judge(problem, judge, metric is not None)
        if ran is None and judge != DEFAULT_JUDGE and (judge_also is not None or judge_options is not None):
            raise InvalidInputError("judge_also, judge_options: only with a judge ('fluid' or 'simulate')")
        if ran is not None and judge == DEFAULT_JUDGE and judge_also is None:
            judge_also = ()  # the default judge replays the objective's best only, as remap() does
        return _auto(problem, options, metric=metric, families=families, progress=progress, judge=ran, why=why,
                     top=judge_top, judge_options={**added, **(judge_options or {})}, judge_also=judge_also,
                     jobs=jobs)
    if jobs != 1:
        raise InvalidInputError(f"jobs: only method 'auto' spreads its candidates over processes; got jobs={jobs!r} "
                                f"with method {method!r}")
    if name == "regular":
        return map_regular(graph, machine, **options).mapping
    # the table says which progress callbacks the method reports to
    kwargs = {"progress": progress} if entry.uwh else {}
    if entry.congestion:
        kwargs["congestion_progress"] = congestion_progress
    return apply(method_candidate(method, **options), problem, **kwargs)


def _check_several_per_proc(problem: Problem, families: Sequence[str], what: str) -> None:
    """Refuse families that place one task per processor when there are more tasks than processors."""
    n, p = problem.graph.n_tasks, problem.machine.n_procs
    single = [f for f in families if f not in SEVERAL_PER_PROC]
    if n > p and single:
        raise InvalidInputError(
            f"{what}: the {single[0]} family places one task per processor, and {n} tasks on {p} processors need "
            f"several; use a method of the {' or '.join(SEVERAL_PER_PROC)} family"
        )


def _auto(problem: Problem, options: dict, *, metric, families, progress, judge: str | None, why: str, top: int,
          judge_options: dict, judge_also, jobs: int | None = 1) -> Mapping:
    """``map(method="auto")``: the search engine on a serial or process executor (:func:`~.parallel.executor_for`);
    the search named in ``info``."""
    also: tuple = ()
    if judge is not None:
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise InvalidInputError(f"judge_top: expected an int >= 1; got {top!r}")
        also = judge_metrics(problem, JUDGE_ALSO if judge_also is None else judge_also)
    # the replay's options are checked here, before the search, not after it
    executor = executor_for(problem, jobs, progress=progress, judge=judge, judge_options=judge_options)
    names = families_for(problem) if families is None else ([families] if isinstance(families, str) else
                                                            list(families))
    if "geometric" in names and problem.task_dims == 0:
        raise InvalidInputError("families: geometric needs task coordinates; the tasks have none")
    refine = options.pop("refine", REFINE_TOP)
    cands = candidate_list(problem, families=names, include_identity=True, **options)
    t0 = time.perf_counter()
    request = SearchRequest(problem, tuple(cands), resolve_metric(metric, problem.machine), refine=refine,
                            judge=judge, judge_why=why, judge_top=top, judge_also=also, judge_options=judge_options)
    try:
        result = engine.run(request, executor)
    finally:
        if isinstance(executor, ProcessExecutor):
            executor.close()
    if result.error:
        raise InvalidInputError(result.error)
    mapping = result.mapping
    # the search's own keys; the method's keys (ordering, shift, ...) stay those of the mapping chosen
    judge_picked = result.index != result.objective_index
    if not judge_picked:
        label_winner(result, request.metric)
    mapping.info.update(metric=metric_name(request.metric), candidates=len(result.candidates),
                        applicable=result.n_applicable, refined=result.n_refined, families=",".join(names),
                        search_seconds=time.perf_counter() - t0, candidate_list=result.candidates,
                        refused={result.candidates[i].label(): why for i, why in sorted(result.refused.items())})
    if problem.describe_task_coords():
        mapping.info["task_coords"] = problem.describe_task_coords()
    if judge is not None:
        mapping.info.update(objective_winner=result.candidates[result.objective_index].label(),
                            judged=result.judged, default_simulated_s=result.default_simulated_s,
                            judge_seconds=result.judge_seconds)
        if judge_picked:
            mapping.info.update(candidate=result.candidates[result.index].label(), candidate_index=result.index)
    mapping.info.update(judge=result.judge, judge_why=result.judge_why)
    return mapping


@dataclass
class RegularResult:
    """Outcome of :func:`map_regular`.

    Attributes
    ----------
    mapping : Mapping
        The mapping with the lowest hop-bytes (ties to the earlier row).
    pattern : GridPattern
        What the analyser found.
    table : list of dict
        One row per candidate, in evaluation order: ``name`` (e.g. ``"fold"``),
        ``variant`` (options), ``hop_bytes``, ``hops_per_byte`` (hop-bytes / total
        bytes; 1.0 is the lower bound with one rank per router), ``seconds`` and
        ``applicable``.
    best : str
        Name and variant of the winner.
    """

    mapping: Mapping
    pattern: GridPattern
    table: list = field(default_factory=list)
    best: str = ""

    @staticmethod
    def _label(row: dict) -> str:
        return row["name"] + (" " + row["variant"] if row["variant"] else "")

    def summary(self) -> str:
        """Return the candidate table as text, best marked with ``*``."""
        w = max([9] + [len(self._label(r)) for r in self.table])
        lines = [self.pattern.summary(), f"{'candidate':<{w}} {'hop-bytes':>14} {'hops/byte':>10} {'seconds':>8}"]
        for row in self.table:
            label = self._label(row)
            mark = "*" if label == self.best else " "
            if row["applicable"]:
                lines.append(f"{label:<{w}} {row['hop_bytes']:>14,.0f} {row['hops_per_byte']:>10.4f} "
                             f"{row['seconds']:>8.4f}{mark}")
            else:
                lines.append(f"{label:<{w}} {'n/a':>14} {'':>10} {'':>8}")
        return "\n".join(lines)


def map_regular(
    matrix_or_graph,
    machine: Machine,
    *,
    threshold: float = 0.2,
    root: int | None = 0,
    pairs: bool = True,
    pairs_seed: int = 0,
    pairs_proposals: int | None = None,
    pairs_seconds: float | None = None,
    include_identity: bool = True,
) -> RegularResult:
    """Recognise a regular communication grid and map it with the best heuristic.

    Parameters
    ----------
    matrix_or_graph : TaskGraph, (n, n) array_like, scipy.sparse matrix or CSR-like
        Bytes between rank pairs (``[i, j]`` = bytes rank ``i`` sent to rank ``j``).
    machine : TorusMachine
        A box allocation with ``n_procs == n``.
    threshold, root : optional
        Analyser options, see :func:`~mpitaskmap.mappers.grid.analysis.analyse_grid`.
    pairs : bool, optional
        Refine the winner with PAIRS and keep it if better (default True).
    pairs_seed, pairs_proposals, pairs_seconds : optional
        PAIRS seed (default 0), proposal budget (default ``64 * n``) and wall-time cap
        (default none: deterministic).
    include_identity : bool, optional
        Also evaluate the default placement (rank ``t`` on processor ``t``), first, so the
        result is never worse than it (default True).

    Returns
    -------
    RegularResult
        The best mapping, the pattern and the table of all candidates (the grid family's
        candidates scored by the search layer's one loop); hop-bytes are measured on the
        whole matrix (light and collective traffic included).

    Raises
    ------
    InvalidInputError
        If the pattern is irregular (with the analyser's reason), the counts differ, or
        the machine is not a box allocation.

    Notes
    -----
    Every heuristic except PAIRS is near-linear (about 0.01-0.1 s for 65,536 tasks);
    PAIRS costs O(proposals * degree).  Deterministic.

    References
    ----------
    Bhatele, Gupta, Kalé, Chung, "Automated Mapping of Regular Communication Graphs on
    Mesh Interconnects", HiPC 2010 (ALGORITHMS.md section 4).

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> res = map_regular(TaskGraph.stencil([6, 5]), torus_machine([10, 3], wrap=False))
    >>> res.pattern.dims, res.mapping.is_permutation, res.table[0]["name"]
    ((6, 5), True, 'identity')
    """
    if isinstance(matrix_or_graph, TaskGraph):
        graph = matrix_or_graph
    else:
        n, rows, cols, vals = _to_coo(matrix_or_graph)
        graph = TaskGraph.from_edges(rows, cols, vals, n_tasks=n)
    pattern = analyse_grid(graph, threshold=threshold, root=root)
    if not pattern.regular:
        raise InvalidInputError(f"matrix: the communication pattern is not a regular grid: {pattern.reason}")
    if graph.n_tasks != machine.n_procs:
        raise InvalidInputError(
            f"machine: the grid heuristics place one task per processor; got {graph.n_tasks} tasks "
            f"and {machine.n_procs} processors"
        )
    proc_grid(machine)  # raises when the machine is not a box allocation
    problem = Problem(graph, machine, grid_pattern=pattern)
    cands = (identity_family.candidates(problem) if include_identity else []) + grid_family.candidates(problem)
    total = float(graph.weights.sum()) or 1.0
    rows_out: list[dict] = []

    def row(name: str, variant: str, mapping: Mapping | None, score: float, seconds: float) -> None:
        rows_out.append(dict(name=name, variant=variant, hop_bytes=score if mapping else float("nan"),
                             hops_per_byte=score / total if mapping else float("nan"), seconds=seconds,
                             applicable=mapping is not None))

    def keep(i: int, mapping: Mapping | None, score: float, seconds: float) -> None:
        c = cands[i]
        row(c.method, "" if c.family == IDENTITY else grid_family.variant_label(c, mapping), mapping, score, seconds)

    found = score_candidates(problem, cands, metric="weighted_hops", keep=keep)
    if found.best is None:  # pragma: no cover - SFC always applies to a box allocation
        raise InvalidInputError(f"machine: no grid heuristic applies to {machine.name}")
    best_wh, best_i, best_map = found.best
    best_label = RegularResult._label(rows_out[best_i])
    if pairs:
        t0 = time.perf_counter()
        refined = map_grid(graph, machine, method="pairs", start=best_map, seed=pairs_seed,
                           max_proposals=pairs_proposals, max_seconds=pairs_seconds)
        wh = weighted_hops(graph, machine, refined.task_to_proc)
        row("pairs", f"from {best_label}", refined, wh, time.perf_counter() - t0)
        if wh < best_wh:
            best_wh, best_map, best_label = wh, refined, RegularResult._label(rows_out[-1])
    best_map.info["regular_best"] = best_label
    best_map.info.setdefault("candidate", best_label)
    return RegularResult(mapping=best_map, pattern=pattern, table=rows_out, best=best_label)
