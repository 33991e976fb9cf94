"""The search engine spread over MPI ranks: :class:`MPIExecutor` and :func:`search_candidates`.

``remap()`` runs the search engine (:func:`mpitaskmap.search.engine.run`) on an
:class:`MPIExecutor`: rank ``r`` scores candidates ``r, r + size, ...`` of each stage and one
``allgather`` a stage shares every rank's scores, digests and errors; the judge's replays
are spread the same way (each mapping replayed by the rank that computed it) with one
``allgather``; one ``Bcast`` hands the winner from the rank that computed it to every rank.
The stages, the shortlist and the pick are the engine's, as for ``map(method="auto")``, so
both pick the same mapping from the same request.

Never raises between collectives: a rank's failure travels in the gathered data, and every
rank ends with the same agreed error (``"mapper: rank r: ..."``, ``"judge: rank r: ..."``).
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from mpi4py import MPI

from ..graphs.taskgraph import TaskGraph
from ..mapping import Mapping
from ..search import engine
from ..search.engine import ComputedMappings, EngineResult, SearchRequest, StageScores
from ..search.judge import replay_function, replay_in_turn, resolve_judge
from ..search.problem import Candidate, Problem
from ..search.scoring import resolve_metric, score_candidates

__all__ = ["MPIExecutor", "search_candidates", "run_search", "SearchResult", "first_error"]

logger = logging.getLogger("mpitaskmap")


def first_error(items: Sequence[str], what: str) -> str | None:
    """``"WHAT: rank r: ERROR"`` of the first rank whose error is not empty, or None.

    Examples
    --------
    >>> first_error(["", "ValueError: x", "KeyError: y"], "mapper")
    'mapper: rank 1: ValueError: x'
    """
    for rank, err in enumerate(items):
        if err:
            return f"{what}: rank {rank}: {err}"
    return None


class MPIExecutor:
    """The engine's work spread over the ranks of ``comm``; every result the same on every rank.

    Collective: every rank must run the same request with its own executor (as
    :func:`search_candidates` and ``remap()`` do, from identical gathered data).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks sharing the work.
    problem : Problem
        The problem of the request.
    error : str, optional
        An error found before the search (the candidate list's): no rank scores, and the
        first stage's ``allgather`` agrees on it like a mapper's.

    Attributes
    ----------
    candidates_per_rank : list of int
        Candidates each rank scored, both stages.
    seconds : dict
        ``map_max`` (the slowest rank's scoring, summed over the stages), ``map_cpu`` (CPU
        seconds per rank, a list), ``judge`` (the replays, when the judge ran), ``bcast``.
    """

    def __init__(self, comm: MPI.Intracomm, problem: Problem, *, error: str = "") -> None:
        self.comm, self.problem = comm, problem
        self.candidates_per_rank: list[int] = [0] * comm.Get_size()
        self.seconds: dict = {"map_max": 0.0, "map_cpu": [0.0] * comm.Get_size()}
        self._error = error
        self._mappings = ComputedMappings(problem)  # the mappings this rank computed that the search may need
        self._n_first: int | None = None

    def _owner(self, index: int) -> int:
        """The rank that computed candidate ``index``: ``i % size`` within its stage."""
        return (index if index < self._n_first else index - self._n_first) % self.comm.Get_size()

    def score(self, request: SearchRequest, candidates: Sequence[Candidate], first: int) -> StageScores:
        """Score this rank's share of ``candidates[first:]`` (never raises) and gather every rank's."""
        comm, problem = self.comm, self.problem
        rank, size = comm.Get_rank(), comm.Get_size()
        if first == 0:
            self._n_first = len(candidates)
        err, self._error = self._error, ""
        t0 = MPI.Wtime()
        mine, c_map, applied, share, refused = [], 0.0, False, StageScores(), {}

        def keep(index, mapping, score, seconds):  # what the judge's shortlist needs, in the scoring pass
            share.note(request, index, mapping)

        if not err:
            try:
                found = score_candidates(problem, candidates, range(first + rank, len(candidates), size),
                                         request.metric, catch=True, keep=keep)
                err, mine, c_map, applied = found.error, found.scores, found.cpu_seconds, found.best is not None
                refused = found.refused
                self._mappings.keep_best(found)  # this rank's best of the stage: the winner, if the lowest anywhere
            except Exception as exc:  # e.g. an unknown metric: still agreed below, never raised here
                err = f"{type(exc).__name__}: {exc}"
            if err:
                logger.debug("%s\n%s", err, traceback.format_exc())
        gathered = comm.allgather((err, mine, MPI.Wtime() - t0, c_map, applied, share.digests, share.also, refused))
        self.candidates_per_rank = [n + len(g[1]) for n, g in zip(self.candidates_per_rank, gathered)]
        self.seconds["map_max"] += max(g[2] for g in gathered)
        self.seconds["map_cpu"] = [c + g[3] for c, g in zip(self.seconds["map_cpu"], gathered)]
        out = StageScores(error=first_error([g[0] for g in gathered], "mapper") or "")
        out.scores = [pair for g in gathered for pair in g[1]]
        out.applied = any(g[4] for g in gathered)
        out.digests = {i: d for g in gathered for i, d in g[5].items()}
        out.also = {name: {i: v for g in gathered for i, v in g[6].get(name, {}).items()}
                    for name in request.judge_also}
        out.refused = {i: why for g in gathered for i, why in g[7].items()}
        return out

    def replay(self, request: SearchRequest, candidates: Sequence[Candidate],
               shortlist: list[int]) -> tuple[dict[int, float], str]:
        """Each shortlisted mapping replayed by the rank that computed it; one allgather shares the times.

        The default order, candidate 0, is rank 0's, which then holds it should it be kept.
        A rank stops after its first replay past the budget; the engine's judge stage keeps
        no time after the first such replay in shortlist order, so the rows are the same on
        any number of ranks.  Never raises: a failure anywhere is the agreed ``"judge: rank
        r: ..."``, and the objective decides.
        """
        comm, rank = self.comm, self.comm.Get_rank()
        t0 = MPI.Wtime()
        err, mine = "", {}
        try:
            seconds_of = replay_function(self.problem, request.judge, request.judge_options)
            mine = replay_in_turn([i for i in shortlist if self._owner(i) == rank],
                                  lambda i: self._mappings.get(candidates, i), seconds_of)
        except Exception as exc:  # travels to every rank below
            err = f"{type(exc).__name__}: {exc}"
            logger.debug("judge: %s\n%s", err, traceback.format_exc())
        gathered = comm.allgather((err, mine))
        self.seconds["judge"] = MPI.Wtime() - t0
        return {i: t for g in gathered for i, t in g[1].items()}, first_error([g[0] for g in gathered], "judge") or ""

    def fetch(self, request: SearchRequest, candidates: Sequence[Candidate], index: int) -> Mapping:
        """The winner, broadcast from the rank that computed it (its best of the stage, or its replay)."""
        owner = self._owner(index)
        t0 = MPI.Wtime()
        task_to_proc = np.empty(self.problem.graph.n_tasks, dtype=np.int64)
        if self.comm.Get_rank() == owner:
            task_to_proc[:] = self._mappings.get(candidates, index).task_to_proc
        self.comm.Bcast(task_to_proc, root=owner)
        self.seconds["bcast"] = MPI.Wtime() - t0
        return Mapping(task_to_proc, self.problem.machine, self.problem.graph,
                       oversubscribe=self.problem.oversubscribe)


@dataclass
class SearchResult(EngineResult):
    """Outcome of :func:`search_candidates`, identical on every rank but wall times: the search's and the run's figures.

    Attributes
    ----------
    task_to_proc : (n_tasks,) ndarray of int64 or None
        The winning mapping (``mapping.task_to_proc``; None after an error).
    candidates_per_rank : list of int
        Candidates each rank evaluated.
    seconds : dict
        ``map_max`` (slowest rank's evaluation), ``map_cpu`` (CPU seconds per rank, a
        list), ``judge`` (when the judge ran), ``bcast``.

    Notes
    -----
    The other fields are :class:`~mpitaskmap.search.engine.EngineResult`'s: ``candidates``
    (both stages), ``scores``, ``n_refined``, ``index``, ``score``, ``objective_index``,
    ``judge``, ``judge_why``, ``judged``, ``default_simulated_s``, ``error``, ``refused``, ``mapping``;
    ``judge_seconds`` is this rank's own wall time of the judge stage, which differs between ranks
    like ``seconds["map_cpu"]`` (a figure to report: nothing decides on it).
    """

    task_to_proc: np.ndarray | None = None
    candidates_per_rank: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)


def run_search(comm: MPI.Intracomm, request: SearchRequest, *, error: str = "") -> SearchResult:
    """Run the search engine on ``request`` with an :class:`MPIExecutor` over ``comm``.

    Collective; every rank passes an equal request (built from identical data).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks sharing the work.
    request : SearchRequest
        What to search (:class:`~mpitaskmap.search.engine.SearchRequest`).
    error : str, optional
        An error found before the search (``remap()``'s candidate list): agreed in the first
        ``allgather`` as a mapper's, and returned.

    Returns
    -------
    SearchResult
        The same on every rank.
    """
    executor = MPIExecutor(comm, request.problem, error=error)
    result = engine.run(request, executor)
    return SearchResult(**vars(result), task_to_proc=None if result.mapping is None else result.mapping.task_to_proc,
                        candidates_per_rank=executor.candidates_per_rank, seconds=executor.seconds)


def search_candidates(
    comm: MPI.Intracomm, graph: TaskGraph, machine, candidates: Sequence[Candidate], *, metric: str | None = None,
    refine: int = 0, judge: str | None = None, judge_options: dict | None = None,
) -> SearchResult:
    """Evaluate a candidate list in parallel and agree on the best mapping.

    Collective over ``comm``.  Rank ``r`` evaluates candidates ``r, r + size, ...``; one
    ``allgather`` of the scores (and of any mapper error) and one ``Bcast`` of the winning
    mapping from the rank that computed it: two collectives whatever the list length.
    With ``refine > 0`` a second stage refines the ``refine`` best candidates
    (:func:`~mpitaskmap.search.scoring.refinement_candidates`), spread over the ranks the same
    way, with one more ``allgather``.
    Every rank must pass the same graph, machine and list (as :func:`~mpitaskmap.remap`
    guarantees by building them from gathered data).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        Ranks sharing the work.
    graph : TaskGraph
        The task graph (any number of tasks, independent of ``comm.size``).
    machine : Machine
        The processors.
    candidates : sequence of Candidate
        Candidate list, e.g. :func:`~mpitaskmap.search.scoring.candidate_list`.
    metric : str, optional
        A name from :data:`mpitaskmap.metrics.METRICS` (default None: the machine's
        default objective, :func:`~mpitaskmap.search.scoring.resolve_metric`).
    refine : int, optional
        Candidates of the first stage refined in a second (default 0: one stage).
    judge : {None, "fluid", "default"}, optional
        Replay the objective's best distinct mappings and the default order, and keep the
        fastest, the default order unless one replays faster (see :func:`~mpitaskmap.remap`;
        default None: the objective alone), with one more ``allgather``.
    judge_options : dict, optional
        Keywords of the fluid replay (:data:`~mpitaskmap.search.judge.FLUID_OPTIONS`).

    Returns
    -------
    SearchResult
        The same on every rank; ``error`` names the first failing rank and candidate if a
        mapper raised anywhere (no rank raises inside this function).

    Notes
    -----
    The search engine (:func:`mpitaskmap.search.engine.run`) on an :class:`MPIExecutor`
    (:func:`run_search`).  Per-rank work is about ``len(candidates) / comm.size`` candidate
    evaluations.
    """
    problem = Problem(graph, machine)
    name, why, added = resolve_judge(problem, judge, metric is not None)
    return run_search(comm, SearchRequest(problem, tuple(candidates), resolve_metric(metric, machine), refine=refine,
                                          judge=name, judge_why=why, judge_options={**added, **(judge_options or {})}))
