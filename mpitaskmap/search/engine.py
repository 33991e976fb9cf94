"""The search engine: the two stages and the judge stage, written once, run by an executor.

Every candidate search of the library -- :func:`mpitaskmap.map` with ``method="auto"``,
:func:`~mpitaskmap.search.serial.best_of` and ``remap()``'s search over MPI
(:func:`mpitaskmap.runtime.mpi_search.search_candidates`) -- is :func:`run` on a
:class:`SearchRequest`:

1. score the candidate list (the identity first where the caller puts it first);
2. refine the ``refine`` best (:func:`~mpitaskmap.search.scoring.refinement_candidates`) and
   score those; the objective's winner is the lowest score of both stages, ties to the
   lowest index (:func:`~mpitaskmap.search.scoring.winner`);
3. with a judge, replay the objective's shortlist and the default order and keep the
   fastest (:func:`~mpitaskmap.search.judge.judge_stage`);
4. hand over the winner's mapping.

Only how the work is done differs, and that is the :class:`Executor`'s: score these
candidates, replay this shortlist, fetch this mapping.  The serial executor
(:class:`~mpitaskmap.search.serial.SerialExecutor`) computes in-process; the MPI executor
(:class:`mpitaskmap.runtime.mpi_search.MPIExecutor`) spreads the candidates over the ranks with
one ``allgather`` a stage, spreads the replays the same way and broadcasts the winner.  So
``map(g, m, "auto")`` and ``remap()`` pick the same mapping from the same request, bit for
bit (``tests/test_search_drift.py``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from ..mapping import Mapping
from ..metrics import evaluate
from .judge import JUDGE_TOP, judge_stage, judge_tie, mapping_digest
from .problem import Candidate, Problem
from .scoring import Scores, apply, polishes_nodes, refinement_candidates, top_indices, winner

__all__ = ["SearchRequest", "StageScores", "ComputedMappings", "Executor", "EngineResult", "run", "metric_name",
           "no_candidate_applies"]


@dataclass(frozen=True)
class SearchRequest:
    """What to search: the problem, the first-stage candidates, the objective, the stages.

    Attributes
    ----------
    problem : Problem
        The task graph and the machine.
    candidates : tuple of Candidate
        The first stage, in order (indices refer to it; index 0 is the default order in
        every list built with ``include_identity=True``, which the judge replays beside
        its shortlist).
    metric : str or callable
        The objective, resolved (:func:`~mpitaskmap.search.scoring.resolve_metric`): a name
        of :data:`mpitaskmap.metrics.METRICS` or ``f(graph, machine, task_to_proc)``.
    refine : int, optional
        Candidates of the first stage refined in a second (default 0: one stage; none with
        more tasks than processors, the refinements move one task per processor).
    judge : str or None, optional
        The judge that replays the shortlist (``"fluid"``, ``"simulate"``), resolved
        (:func:`~mpitaskmap.search.judge.resolve_judge`); None: the objective decides.
    judge_why : str, optional
        Why that judge (or none), for the report.
    judge_top : int, optional
        Distinct mappings of the objective's ranking the judge replays (default
        :data:`~mpitaskmap.search.judge.JUDGE_TOP`).
    judge_also : tuple of str, optional
        Metrics whose best candidate the judge also replays (computed in the scoring pass).
    judge_options : dict, optional
        Keywords of the replay; ``max_work`` is each replay's budget.
    """

    problem: Problem
    candidates: tuple
    metric: Any
    refine: int = 0
    judge: str | None = None
    judge_why: str = ""
    judge_top: int = JUDGE_TOP
    judge_also: tuple = ()
    judge_options: dict = field(default_factory=dict)


@dataclass
class StageScores:
    """What an executor found scoring one stage (the same on every MPI rank).

    Attributes
    ----------
    scores : list of (int, float)
        ``(index, score)`` of every candidate of the stage, in any order; infinity where
        the candidate did not apply.
    applied : bool
        Whether any candidate of the stage applied (gave a mapping).
    digests : dict of int to bytes
        :func:`~mpitaskmap.search.judge.mapping_digest` of every mapping computed (only with
        a judge: its shortlist tells mappings apart by them; :meth:`note`).
    also : dict of str to (dict of int to float)
        Per metric of ``judge_also``, its value for each candidate that applied (:meth:`note`).
    error : str
        The first real error ("": none); the engine stops there.
    refused : dict of int to str
        Why each candidate that did not apply was refused, by index.
    """

    scores: list = field(default_factory=list)
    applied: bool = False
    digests: dict = field(default_factory=dict)
    also: dict = field(default_factory=dict)
    error: str = ""
    refused: dict = field(default_factory=dict)

    def note(self, request: SearchRequest, index: int, mapping: Mapping | None) -> None:
        """Keep what the judge's shortlist needs of a scored mapping: its digest and its ``judge_also`` values.

        Nothing without a judge, or when the candidate did not apply (``mapping`` None).
        """
        if request.judge is None or mapping is None:
            return
        problem = request.problem
        self.digests[index] = mapping_digest(mapping.task_to_proc)
        for name in request.judge_also:
            value = evaluate(problem.graph, problem.machine, mapping.task_to_proc, [name],
                             **problem.message_model.metric_options())[name]
            self.also.setdefault(name, {})[index] = float(value)


class ComputedMappings:
    """The mappings an executor computed that the search may still need, by candidate index.

    Each stage's best, kept from the scoring pass (:meth:`keep_best`), and those computed
    again when asked for (a shortlisted mapping to replay, the winner to hand over).

    Parameters
    ----------
    problem : Problem
        The problem the candidates are applied to.
    """

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self._by_index: dict[int, Mapping] = {}

    def keep_best(self, found: Scores) -> None:
        """Keep the best mapping of a scoring pass (:attr:`~mpitaskmap.search.scoring.Scores.best`), if any applied."""
        if found.best is not None:
            self._by_index[found.best[1]] = found.best[2]

    def forget(self, index: int) -> None:
        """Drop the mapping kept for ``index`` (a stage's best overtaken by a later one), if any."""
        self._by_index.pop(index, None)

    def get(self, candidates: Sequence[Candidate], index: int) -> Mapping:
        """The mapping of ``candidates[index]``: the one kept, else computed now and kept."""
        if index not in self._by_index:
            self._by_index[index] = apply(candidates[index], self.problem)
        return self._by_index[index]


class Executor(Protocol):
    """How a search's work is done: in-process, or spread over MPI ranks."""

    def score(self, request: SearchRequest, candidates: Sequence[Candidate], first: int) -> StageScores:
        """Score ``candidates[first:]`` (indices refer to the whole list) by ``request.metric``."""

    def replay(self, request: SearchRequest, candidates: Sequence[Candidate],
               shortlist: list[int]) -> tuple[dict[int, float], str]:
        """Replay the shortlist with ``request.judge``: seconds by index, and "" or the first failure."""

    def fetch(self, request: SearchRequest, candidates: Sequence[Candidate], index: int) -> Mapping:
        """The mapping of ``candidates[index]``, the winner, wherever it was computed."""


@dataclass
class EngineResult:
    """What :func:`run` found: the same from every executor for the same request.

    Attributes
    ----------
    candidates : list of Candidate
        Everything scored: the request's candidates, then the second stage.
    scores : list of float
        Every candidate's objective score, by index (infinity: did not apply).
    n_refined : int
        Second-stage candidates.
    index : int
        The winner (the judge's pick where it decided; ties to the lowest index).
    score : float
        Its objective score.
    objective_index : int
        The objective's own pick (= ``index`` when no judge decided).
    judge : str or None
        The judge that picked the winner (None: the objective decided); ``judge_why`` why.
    judged : list of dict
        What the judge replayed (:class:`~mpitaskmap.search.judge.JudgeOutcome`'s rows; [] without
        a judge).
    judge_seconds : float
        Wall seconds of the judge stage (its replays), 0 without a judge.
    default_simulated_s : float
        The default order's replayed seconds (nan when not replayed).
    error : str
        The first error ("" when all went well; then the fields above are partial).
    refused : dict of int to str
        Why each candidate that did not apply (infinite score) was refused, by index.
    mapping : Mapping or None
        The winner's mapping (None after an error).
    """

    candidates: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    n_refined: int = 0
    index: int = -1
    score: float = math.inf
    objective_index: int = -1
    judge: str | None = None
    judge_why: str = ""
    judged: list = field(default_factory=list)
    default_simulated_s: float = math.nan
    judge_seconds: float = 0.0
    error: str = ""
    refused: dict = field(default_factory=dict)
    mapping: Mapping | None = field(default=None, compare=False, repr=False)

    @property
    def n_applicable(self) -> int:
        """Candidates that applied (a finite score): what a report counts."""
        return sum(1 for s in self.scores if s != math.inf)


def no_candidate_applies(n: int) -> str:
    """The error of a search none of whose ``n`` candidates applies."""
    return f"candidates: none of the {n} candidates applies to this input"


def metric_name(metric: str | Callable) -> str:
    """The objective's name for reports and ``info["metric"]``: the name, a function's ``__name__``, else "custom".

    Examples
    --------
    >>> metric_name("latency"), metric_name(len), metric_name(lambda g, m, t: 0.0)
    ('latency', 'len', '<lambda>')
    """
    return metric if isinstance(metric, str) else getattr(metric, "__name__", "custom")


def run(request: SearchRequest, executor: Executor) -> EngineResult:
    """Run the search: score, refine the best and score them, judge, fetch the winner.

    Parameters
    ----------
    request : SearchRequest
        What to search.
    executor : Executor
        How: :class:`~mpitaskmap.search.serial.SerialExecutor` or
        :class:`mpitaskmap.runtime.mpi_search.MPIExecutor`.

    Returns
    -------
    EngineResult
        With ``error`` set (and no mapping) when a stage failed or no candidate applied;
        an executor may raise instead (the serial one does: nothing waits on it).

    Notes
    -----
    The second stage refines the ``refine`` best finite scores of the first
    (:func:`~mpitaskmap.search.scoring.top_indices`), after every candidate of the first;
    the winner is the minimum of ``(score, index)`` over both.  The judge's shortlist, its
    replays and its pick are :func:`~mpitaskmap.search.judge.judge_stage`'s, whatever the
    executor; a failed replay or one past its budget leaves the objective's pick.
    """
    problem = request.problem
    first = list(request.candidates)
    out = EngineResult(candidates=first, judge_why=request.judge_why)
    found = executor.score(request, first, 0)
    if found.error or not found.applied:
        out.error = found.error or no_candidate_applies(len(first))
        return out
    every, digests = list(found.scores), dict(found.digests)
    out.refused = dict(found.refused)
    also = {name: dict(found.also.get(name, {})) for name in request.judge_also}
    several = problem.graph.n_tasks > problem.machine.n_procs  # the refinements move one task per processor
    second = refinement_candidates([first[i] for i in top_indices(every, request.refine)], request.metric,
                                   node_swaps=polishes_nodes(problem)) if request.refine and not several else []
    if second:
        out.candidates = first + second
        more = executor.score(request, out.candidates, len(first))
        if more.error:
            out.error = more.error
            return out
        every += more.scores
        digests.update(more.digests)
        out.refused.update(more.refused)
        for name in request.judge_also:
            also[name].update(more.also.get(name, {}))
    out.n_refined = len(second)
    out.score, out.index = winner(every)
    out.objective_index = out.index
    out.scores = [s for _, s in sorted(every)]
    if request.judge is not None:
        candidates = out.candidates
        started = time.perf_counter()
        outcome = judge_stage(request.judge, candidates, out.scores, digests,
                              lambda shortlist: executor.replay(request, candidates, shortlist),
                              top=request.judge_top, also=also, max_work=request.judge_options.get("max_work"),
                              tie=judge_tie(request.judge_options),
                              max_route_entries=request.judge_options.get("max_route_entries"))
        out.judge_seconds = time.perf_counter() - started
        out.judged, out.default_simulated_s = outcome.judged, outcome.default_simulated_s
        if outcome.index is None:  # a replay failed or passed its budget: the objective decides
            out.judge_why = outcome.why
        else:
            out.index, out.score, out.judge = outcome.index, out.scores[outcome.index], request.judge
    out.mapping = executor.fetch(request, out.candidates, out.index)
    return out
