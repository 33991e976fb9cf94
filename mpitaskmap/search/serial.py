"""The search engine run in-process: :class:`SerialExecutor` and :func:`best_of`.

:class:`SerialExecutor` is the :class:`~mpitaskmap.search.engine.Executor` of every serial
search: it scores a stage with the one scoring loop
(:func:`~mpitaskmap.search.scoring.score_candidates`), replays the judge's shortlist one
mapping after another (:func:`~mpitaskmap.search.judge.replay_in_turn`) and keeps the mappings
it computed that the search may hand over.  :func:`best_of` (the public serial search) and
``map(method="auto")`` (:mod:`~.methods`) run :func:`~mpitaskmap.search.engine.run` with it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from ..errors import InvalidInputError
from ..graphs.taskgraph import TaskGraph
from ..machines import Machine
from ..mapping import Mapping
from . import engine
from .engine import ComputedMappings, SearchRequest, StageScores, metric_name
from .judge import replay_function, replay_in_turn
from .problem import Candidate, Problem
from .registry import as_candidate
from .scoring import as_problem, resolve_metric, score_candidates

__all__ = ["SerialExecutor", "best_of", "BestOf", "label_winner"]

#: ``keep(index, mapping, score, seconds)``, called for every candidate scored
#: (:func:`~mpitaskmap.search.scoring.score_candidates`).
Keep = Callable[[int, Mapping | None, float, float], None]


class SerialExecutor:
    """The engine's work done in this process, one candidate after another.

    Parameters
    ----------
    problem : Problem
        The problem of the requests it serves (its cache is shared by all candidates).
    progress : callable, optional
        ``progress(done, total)`` after each candidate of the first stage.
    keep : callable, optional
        ``keep(index, mapping, score, seconds)`` for every candidate of both stages.
    judge : str or None, optional
        The judge whose replay :meth:`replay` runs; its options are checked here, before
        any candidate is scored (:func:`~mpitaskmap.search.judge.replay_function`).
    judge_options : dict, optional
        Keywords of that replay.

    Raises
    ------
    InvalidInputError
        On an unknown judge option, or ``judge="simulate"`` without SimGrid.

    Notes
    -----
    Errors raise where they happen (a mapper's, a replay's): a serial search has no one
    to agree with.  The mappings kept are each stage's best and those the judge replayed.
    """

    def __init__(self, problem: Problem, *, progress: Callable[[int, int], None] | None = None,
                 keep: Keep | None = None, judge: str | None = None, judge_options: dict | None = None) -> None:
        self.problem = problem
        self._progress, self._keep = progress, keep
        self._seconds_of = replay_function(problem, judge, judge_options) if judge is not None else None
        self._mappings = ComputedMappings(problem)

    def score(self, request: SearchRequest, candidates: Sequence[Candidate], first: int) -> StageScores:
        """Score ``candidates[first:]`` in turn (see :meth:`~mpitaskmap.search.engine.Executor.score`)."""
        out = StageScores()

        def keep(index: int, mapping: Mapping | None, score: float, seconds: float) -> None:
            out.note(request, index, mapping)  # what the judge's shortlist needs, in the scoring pass
            if self._keep is not None:
                self._keep(index, mapping, score, seconds)

        # progress counts the candidate list, the first stage, as map()'s progress always has
        found = score_candidates(self.problem, candidates, range(first, len(candidates)), request.metric,
                                 progress=self._progress if first == 0 else None, keep=keep)
        out.scores, out.applied, out.refused = found.scores, found.best is not None, found.refused
        self._mappings.keep_best(found)
        return out

    def replay(self, request: SearchRequest, candidates: Sequence[Candidate],
               shortlist: list[int]) -> tuple[dict[int, float], str]:
        """Replay the shortlist in turn, stopping after the first past its budget; a failure raises."""
        return replay_in_turn(shortlist, lambda i: self._mappings.get(candidates, i), self._seconds_of), ""

    def fetch(self, request: SearchRequest, candidates: Sequence[Candidate], index: int) -> Mapping:
        """The mapping of ``candidates[index]``: the one computed while scoring or replaying, else computed now."""
        return self._mappings.get(candidates, index)


@dataclass
class BestOf:
    """Result of :func:`best_of`.

    Attributes
    ----------
    mapping : Mapping
        The winning mapping.
    score : float
        Its metric value.
    index : int
        Its position in the candidate list.
    scores : list of float
        Every candidate's score, in list order (infinity = did not apply): the given
        list, then the second-stage candidates.
    seconds : float
        Total wall time spent.
    candidates : list of Candidate
        Everything evaluated: the given list, then the second stage (``index`` points
        here).
    """

    mapping: Mapping
    score: float
    index: int
    scores: list = field(default_factory=list)
    seconds: float = 0.0
    candidates: list = field(default_factory=list)

    def __repr__(self) -> str:
        """A one-line summary; the lists are in :attr:`scores` and :attr:`candidates`.

        Examples
        --------
        >>> from mpitaskmap import TaskGraph, torus_machine
        >>> best_of(TaskGraph.stencil([4, 4]), torus_machine([4, 4]), ["identity", "geometric"])
        BestOf(winner #0 'identity (default order)', score 4.09913e-06, 2 candidates, 0 not applicable, ... s)
        """
        skipped = sum(s == float("inf") for s in self.scores)
        label = self.candidates[self.index].label() if 0 <= self.index < len(self.candidates) else "?"
        return (f"BestOf(winner #{self.index} {label!r}, score {self.score:.6g}, {len(self.candidates)} candidates, "
                f"{skipped} not applicable, {self.seconds:.3g} s)")


def best_of(
    graph: TaskGraph | Problem,
    machine: Machine | None,
    candidates: Iterable[Candidate],
    *,
    metric=None,
    refine: int = 0,
    progress: Callable[[int, int], None] | None = None,
    keep: Keep | None = None,
    oversubscribe: bool = False,
) -> BestOf:
    """Evaluate candidates one after another and return the best (serial).

    Parameters
    ----------
    graph : TaskGraph or Problem
        The tasks (or a Problem, then ``machine`` is None).
    machine : Machine or None
        The processors.
    candidates : iterable of Candidate or str
        Usually :func:`~mpitaskmap.search.scoring.candidate_list`; a method name of
        :data:`~mpitaskmap.search.registry.METHOD_TABLE` stands for its candidate
        (:func:`~mpitaskmap.search.registry.method_candidate`).
    metric : str, callable or None, optional
        See :func:`~mpitaskmap.search.scoring.score_candidates` (default None: the machine's
        default objective).
    refine : int, optional
        Second stage: refine the ``refine`` best candidates of the list
        (:func:`~mpitaskmap.search.scoring.refinement_candidates`) and keep the best of both
        stages (default 0: one stage; :data:`~mpitaskmap.search.scoring.REFINE_TOP` is what
        ``map(method="auto")`` and ``remap`` use).  No second stage with more tasks than
        processors (the refinements move one task per processor).
    progress : callable, optional
        Called as ``progress(done, total)`` after each first-stage candidate.
    keep : callable, optional
        ``keep(index, mapping, score, seconds)`` for every candidate of both stages
        (:func:`~mpitaskmap.search.scoring.score_candidates`), e.g. to score them by a second
        metric in the same pass.
    oversubscribe : bool, optional
        Allow more tasks than processors (default False; see
        :class:`~mpitaskmap.search.problem.Problem`); ignored when a Problem is passed.

    Returns
    -------
    BestOf
        Ties go to the lowest index, so a refinement wins only when strictly better than
        every first-stage candidate; the mapping's ``info`` holds ``candidate`` (label),
        ``candidate_index`` and ``metric``.

    Raises
    ------
    InvalidInputError
        On an empty candidate list, an unknown metric name, when no candidate applies, or
        on more tasks than processors without ``oversubscribe``.

    Notes
    -----
    The search engine's two stages (:func:`~mpitaskmap.search.engine.run`) with no judge, on
    a :class:`SerialExecutor`.
    """
    t0 = time.perf_counter()
    problem = as_problem(graph, machine, oversubscribe)
    cands = [as_candidate(c) for c in candidates]
    if not cands:
        raise InvalidInputError("candidates: the list is empty")
    request = SearchRequest(problem, tuple(cands), resolve_metric(metric, problem.machine), refine=refine)
    result = engine.run(request, SerialExecutor(problem, progress=progress, keep=keep))
    if result.error:
        raise InvalidInputError(result.error)
    label_winner(result, request.metric)
    return BestOf(mapping=result.mapping, score=result.score, index=result.index, scores=result.scores,
                  seconds=time.perf_counter() - t0, candidates=result.candidates)


def label_winner(result: engine.EngineResult, metric) -> None:
    """Name the objective's pick in its mapping's ``info``: ``candidate``, ``candidate_index``, ``metric``.

    Parameters
    ----------
    result : EngineResult
        A search without error, ``result.mapping`` the winner's.
    metric : str or callable
        The objective (:func:`~mpitaskmap.search.engine.metric_name` names it).
    """
    result.mapping.info["candidate"] = result.candidates[result.index].label()
    result.mapping.info["candidate_index"] = result.index
    result.mapping.info["metric"] = metric_name(metric)
