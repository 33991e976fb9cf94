"""The search engine spread over worker processes on this machine: :class:`ProcessExecutor` (``map --jobs``).

``mpitaskmap map`` and ``launch`` run on one login or batch node; their ``auto`` search is a
few hundred independent candidates, so the :class:`~mpitaskmap.search.engine.Executor` here
forks ``jobs`` workers when the search starts (they inherit the request: problem, objective,
judge, without pickling) and deals the candidates out a few at a time to whichever worker is free
(their costs differ a hundredfold: a bisection against a geometric variant; neighbouring cheap ones
together, :data:`CHEAP_BATCH`, as they share their partitions); the refinements of one
start go together, to the worker that computed the start when it was a graph mapping (which then
reuses the start's cached mapping).  Each worker keeps the mappings it computed
that the search may still want (its best, those it replays), replays its part of the
judge's shortlist (its own, evened out by cheap ones: :func:`replay_shares`) and hands over the winner.  The engine in this process merges the stages'
scores, so the search's result does not depend on ``jobs`` (the engine's rule: the minimum of
(score, index), the judge's pick among the same shortlist).

Never a hang: every wait also watches the workers' process sentinels, so a worker that dies
(killed, out of memory) raises at once and the others are stopped; a worker whose parent died
reads end-of-file and exits.  A mapper's error in a worker is returned as the stage's error, the
lowest candidate index first, as over MPI.

Fork only (Linux, macOS): where processes cannot fork, and for small problems
(:data:`PARALLEL_MIN_TASKS`), :func:`executor_for` gives the serial executor.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
from multiprocessing.connection import wait
from typing import Callable, Sequence

from ..errors import InvalidInputError
from ..mapping import Mapping
from .engine import ComputedMappings, SearchRequest, StageScores
from .judge import replay_function, replay_in_turn
from .problem import Candidate, Problem
from .scoring import REFINED, score_candidates
from .serial import SerialExecutor

__all__ = ["ProcessExecutor", "executor_for", "default_jobs", "PARALLEL_MIN_TASKS", "CHEAP_BATCH", "replay_shares"]

#: Smallest task graph whose search is spread over processes: below it a whole ``auto`` search
#: takes about a second or less, which forking and dealing out would not shorten.
PARALLEL_MIN_TASKS = 4096
#: The stage item that asks a worker to replay the default order (candidate 0) early.
DEFAULT_REPLAY = -1
#: Consecutive first-stage candidates of one family other than the graph family dealt to a worker
#: at once.  Neighbours in the list share their partitions (a geometric family's rotations of one
#: ordering and transformation: :class:`~mpitaskmap.mappers.geometric.mapper.GeometricCache`), which
#: a worker computes once only if it gets them together: dealt one at a time, two workers each
#: computed most of them again (``--jobs 2`` on the 32,768-rank Titan of
#: ``benchmarks/auto_scaling.py``: 1.46x the speed of one process, against 1.89x before the cache).
CHEAP_BATCH = 16


def default_jobs() -> int:
    """The cores this process may run on (``os.sched_getaffinity`` where there is one, else ``os.cpu_count``).

    Examples
    --------
    >>> default_jobs() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity call (macOS)
        return max(1, os.cpu_count() or 1)


def check_jobs(jobs, what: str = "jobs") -> int:
    """Return ``jobs`` as an int >= 1, or raise InvalidInputError naming ``what``."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InvalidInputError(f"{what}: expected an int >= 1 (worker processes); got {jobs!r}")
    return jobs


def _serve(conn, problem: Problem, request: SearchRequest, seconds_of) -> None:
    """A worker's loop: score, replay and fetch what the parent asks, until told to stop or orphaned.

    ``("stage", candidates)`` sets the candidate list of the next requests; ``("score",
    indices)`` scores those, keeping the stage's best mapping so far (the others are dropped);
    ``("replay", indices)`` and ``("fetch", index)`` compute what they need again if not kept.
    """
    mappings = ComputedMappings(problem)
    candidates: list = []
    best: tuple | None = None  # (score, index) of this worker's best of the current stage
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        kind = message[0]
        if kind == "stop":
            return
        if kind == "stage":
            candidates, best = message[1], None
            continue
        try:
            if kind == "score":
                share = StageScores()
                found = score_candidates(problem, candidates, message[1], request.metric, catch=True,
                                         keep=lambda i, m, s, t: share.note(request, i, m))
                if found.best is not None and (best is None or found.best[:2] < best):
                    if best is not None:
                        mappings.forget(best[1])
                    mappings.keep_best(found)
                    best = found.best[:2]
                reply = ("ok", (found.scores, found.best is not None, found.refused, share.digests, share.also,
                                found.error))
            elif kind == "replay":
                reply = ("ok", replay_in_turn(message[1], lambda i: mappings.get(candidates, i), seconds_of))
            elif kind == "fetch":
                m = mappings.get(candidates, message[1])
                reply = ("ok", (m.task_to_proc, m.method, m.info))
            else:
                reply = ("error", f"unknown request {kind!r}")
        except Exception as exc:  # returned, never raised here: the parent decides
            reply = ("error", f"{type(exc).__name__}: {exc}")
        conn.send(reply)


class ProcessExecutor:
    """The engine's work spread over ``jobs`` forked worker processes (see the module notes).

    Parameters
    ----------
    problem : Problem
        The problem of the requests it serves.
    jobs : int
        Worker processes (>= 2 to be useful; 1 works, in one worker).
    progress : callable, optional
        ``progress(done, total)`` as the first stage's candidates finish, over all workers.
    judge : str or None, optional
        The judge whose replay :meth:`replay` runs (options checked here, before any fork).
    judge_options : dict, optional
        Keywords of that replay.

    Notes
    -----
    Use as a context manager (or call :meth:`close`): the workers are stopped on exit.  Each
    worker holds a copy-on-write image of this process, so memory grows with the pages the
    workers write (their mappings and scratch), not with ``jobs`` copies of the machine.
    """

    def __init__(self, problem: Problem, jobs: int, *, progress: Callable[[int, int], None] | None = None,
                 judge: str | None = None, judge_options: dict | None = None) -> None:
        self.problem = problem
        self.jobs = check_jobs(jobs)
        self._progress = progress
        self._seconds_of = replay_function(problem, judge, judge_options) if judge is not None else None
        self._workers: list = []
        self._owner: dict[int, int] = {}
        self._n_first = 0
        self._early: dict[int, float] = {}  # the default order's replay, run in the first stage's tail
        self._early_error = ""

    # -- the workers ----------------------------------------------------------------
    def _start(self, request: SearchRequest) -> None:
        ctx = multiprocessing.get_context("fork")
        for _ in range(self.jobs):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(child, self.problem, request, self._seconds_of), daemon=True)
            proc.start()
            child.close()
            self._workers.append((proc, parent))

    def close(self) -> None:
        """Stop the workers (idempotent)."""
        for proc, conn in self._workers:
            try:
                conn.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
        for proc, conn in self._workers:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join()
            conn.close()
        self._workers = []

    def __enter__(self) -> "ProcessExecutor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _send(self, w: int, message: tuple) -> None:
        try:
            self._workers[w][1].send(message)
        except (BrokenPipeError, OSError):
            self._died(w)

    def _next_reply(self, busy: set[int]) -> tuple[int, str, object]:
        """Wait for the next reply of a busy worker: (worker, kind, payload); a dead worker raises."""
        conns = {self._workers[w][1]: w for w in busy}
        sentinels = {self._workers[w][0].sentinel: w for w in busy}
        while True:
            for ready in wait(list(conns) + list(sentinels)):
                if ready in conns:
                    w = conns[ready]
                    try:
                        kind, payload = ready.recv()
                    except (EOFError, OSError):  # its end closed: it died
                        self._died(w)
                    return w, kind, payload
                w = sentinels[ready]
                if not self._workers[w][1].poll():  # exited with no reply waiting: dead
                    self._died(w)

    def _ask(self, requests: dict[int, tuple]) -> dict[int, tuple]:
        """Send each worker its request and wait for every reply."""
        for w, message in requests.items():
            self._send(w, message)
        replies: dict[int, tuple] = {}
        busy = set(requests)
        while busy:
            w, kind, payload = self._next_reply(busy)
            replies[w] = (kind, payload)
            busy.discard(w)
        return replies

    def _died(self, w: int) -> None:
        """Stop every worker and raise: worker ``w`` is gone (its exit code in the message)."""
        self._workers[w][0].join(timeout=5)  # reaped, so its exit code is known
        code = self._workers[w][0].exitcode
        self.close()
        raise RuntimeError(f"search worker {w} of {self.jobs} died (exit code {code}); the search stopped")

    # -- the Executor protocol ------------------------------------------------------
    def score(self, request: SearchRequest, candidates: Sequence[Candidate], first: int) -> StageScores:
        """Score ``candidates[first:]`` over the workers (see :meth:`~mpitaskmap.search.engine.Executor.score`).

        Dealt a few at a time to whichever worker is free, so a few slow candidates do not leave
        the others idle: a first-stage candidate alone, the graph family's first (seconds each,
        against milliseconds for a geometric variant); the refinements of one start together, in
        order (each step starts from the one before, cached where it ran), on the worker that
        computed the start when that is a graph mapping (dear to compute again), else on any.
        """
        if not self._workers:
            self._start(request)
            self._n_first = len(candidates)
        for w in range(self.jobs):
            self._send(w, ("stage", list(candidates)))
        shared: list[list[int]] = []
        own: dict[int, list[list[int]]] = {w: [] for w in range(self.jobs)}
        chains: dict[Candidate, list[int]] = {}
        for i in range(first, len(candidates)):
            cand = candidates[i]
            if cand.family != REFINED:
                last = shared[-1] if shared else None
                if (cand.family != "graph" and last is not None and last[-1] == i - 1 and len(last) < CHEAP_BATCH
                        and candidates[last[0]].family == cand.family):
                    last.append(i)  # with its neighbours, which share its partitions
                else:
                    shared.append([i])
            elif cand.option("start") in chains:
                chains[cand.option("start")].append(i)
            else:
                chains[cand.option("start")] = [i]
                w = self._affinity(candidates, i)
                (own[w] if w is not None else shared).append(chains[cand.option("start")])
        shared.sort(key=lambda item: (candidates[item[0]].family != "graph", item[0]), reverse=True)  # popped last
        if first == 0 and self._seconds_of is not None and not self._early:
            # the judge replays the default order whatever the search finds: dealt after every candidate,
            # it fills the first stage's tail, where one worker waits for another's last candidate
            shared.insert(0, [DEFAULT_REPLAY])
        for queue in own.values():
            queue.reverse()
        out = StageScores()
        errors: list[tuple[int, str]] = []
        busy: dict[int, list[int]] = {}
        done, total = 0, len(candidates) - first

        def feed(w: int) -> None:
            queue = own[w] or shared
            if queue:
                item = queue.pop()
                busy[w] = item
                if item == [DEFAULT_REPLAY]:
                    self._send(w, ("replay", [0]))
                    return
                for i in item:
                    self._owner[i] = w
                self._send(w, ("score", item))

        for w in range(self.jobs):
            feed(w)
        while busy:
            w, kind, payload = self._next_reply(set(busy))
            item = busy.pop(w)
            if item == [DEFAULT_REPLAY]:
                if kind == "error":
                    self._early_error = f"judge: {payload}"
                else:
                    self._early.update(payload)
                if not errors:
                    feed(w)
                continue
            done += len(item)
            if kind == "error":
                errors.append((item[0], f"candidate {item[0]} ({candidates[item[0]].label()}): {payload}"))
            else:
                scores, applied, refused, digests, also, error = payload
                out.scores += scores
                out.applied = out.applied or applied
                out.refused.update(refused)
                out.digests.update(digests)
                for name, values in also.items():
                    out.also.setdefault(name, {}).update(values)
                if error:
                    scored = {i for i, _ in scores}
                    errors.append((min(i for i in item if i not in scored), error))
            if self._progress is not None and first == 0:
                self._progress(done, total)
            if not errors:
                feed(w)
        if errors:
            out.error = min(errors)[1]
        return out

    def _affinity(self, candidates: Sequence[Candidate], index: int) -> int | None:
        """The worker a refinement must go to: the one that computed its start, when that is a graph mapping; None: any."""
        cand = candidates[index]
        if cand.family == REFINED:
            start = cand.option("start")
            if start.family != "graph":
                return None
            for i in range(self._n_first):
                if candidates[i] == start:
                    return self._owner.get(i)
        return None

    def replay(self, request: SearchRequest, candidates: Sequence[Candidate],
               shortlist: list[int]) -> tuple[dict[int, float], str]:
        """The workers replay the shortlist (:func:`replay_shares`); "" or the first failure.

        The default order's replay, run in the first stage's tail, is not run again.
        """
        seconds: dict[int, float] = {i: self._early[i] for i in shortlist if i in self._early}
        if self._early_error and 0 in shortlist:
            return seconds, self._early_error
        share = replay_shares([i for i in shortlist if i not in seconds], candidates, self._owner, self.jobs)
        replies = self._ask({w: ("replay", idx) for w, idx in share.items()}) if share else {}
        for w, (kind, payload) in sorted(replies.items()):
            if kind == "error":
                return seconds, f"judge: {payload}"
            seconds.update(payload)
        # as a serial replay, the times after the first past its budget are left out
        over = [i for i in shortlist if seconds.get(i) == math.inf]
        if over:
            stop = shortlist.index(over[0])
            seconds = {i: s for i, s in seconds.items() if shortlist.index(i) <= stop}
        return seconds, ""

    def fetch(self, request: SearchRequest, candidates: Sequence[Candidate], index: int) -> Mapping:
        """The mapping of ``candidates[index]`` from the worker that computed it."""
        w = self._owner.get(index, 0)
        kind, payload = self._ask({w: ("fetch", index)})[w]
        if kind == "error":
            raise InvalidInputError(f"candidate {index} ({candidates[index].label()}): {payload}")
        task_to_proc, method, info = payload
        return Mapping(task_to_proc, self.problem.machine, self.problem.graph,
                       oversubscribe=self.problem.oversubscribe, method=method, info=info)


def replay_shares(shortlist: Sequence[int], candidates: Sequence[Candidate], owner: dict[int, int],
                  jobs: int) -> dict[int, list[int]]:
    """Which worker replays which shortlisted candidates: each its owner's, evened out by the cheap ones.

    A replay costs about the same whatever the mapping (seconds at 65,536 ranks), and a worker
    replays a mapping it does not keep by computing it again: milliseconds for a first-stage
    candidate of a family other than the graph family, seconds for a graph mapping or a
    refinement.  So every candidate goes to the worker that computed it, then while one worker
    has two replays more than another, it hands its last cheap one to the least loaded (the
    lowest worker among equals).

    Parameters
    ----------
    shortlist : sequence of int
        Candidate indices, in the judge's order.
    candidates : sequence of Candidate
        The search's candidates.
    owner : dict of int to int
        The worker that computed each candidate (0 when unknown).
    jobs : int
        Workers.

    Returns
    -------
    dict of int to list of int
        Indices by worker, each list in shortlist order; workers without any left out.

    Examples
    --------
    >>> cands = [Candidate.make("geometric", "mj")] * 4 + [Candidate.make("refined", "uwh")]
    >>> replay_shares([0, 1, 2, 3, 4], cands, {0: 0, 1: 0, 2: 0, 3: 0, 4: 0}, 2)
    {0: [0, 1, 4], 1: [2, 3]}
    """
    share: dict[int, list[int]] = {w: [] for w in range(max(1, jobs))}
    for i in shortlist:
        share[owner.get(i, 0)].append(i)

    def cheap(i: int) -> bool:
        return candidates[i].family not in ("graph", REFINED)

    while True:
        most = max(share, key=lambda w: (len(share[w]), -w))
        least = min(share, key=lambda w: (len(share[w]), w))
        movable = [i for i in share[most] if cheap(i)]
        if len(share[most]) - len(share[least]) < 2 or not movable:
            break
        share[most].remove(movable[-1])
        share[least].append(movable[-1])
    order = {i: k for k, i in enumerate(shortlist)}
    return {w: sorted(idx, key=order.__getitem__) for w, idx in share.items() if idx}


def _worker_main(conn, problem, request, seconds_of) -> None:
    try:
        _serve(conn, problem, request, seconds_of)
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers or buffered output of the parent's image


def _inside_mpi() -> bool:
    """Whether this process is one rank of an MPI job of several (MPI initialised through mpi4py, world size > 1).

    A singleton (``import mpi4py.MPI`` in a plain process) is not a job: it forks as any process.
    """
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None:
        return False
    try:
        return bool(mpi.Is_initialized() and not mpi.Is_finalized() and mpi.COMM_WORLD.Get_size() > 1)
    except Exception:  # an mpi4py that cannot answer: assume the worst
        return True


def executor_for(problem: Problem, jobs: int | None, *, progress=None, judge=None, judge_options=None):
    """The executor of a search with ``jobs`` processes: a :class:`ProcessExecutor`, or serial where that gains nothing.

    Serial with ``jobs`` 1, below :data:`PARALLEL_MIN_TASKS` tasks, where processes cannot
    fork, and inside an MPI job of several ranks (a forked MPI process is not safe on every
    transport, and ``remap()`` spreads its search over the ranks instead).
    ``jobs`` None: :func:`default_jobs`.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> type(executor_for(Problem(TaskGraph.stencil([4, 4]), torus_machine([4, 4])), 8)).__name__
    'SerialExecutor'
    """
    jobs = default_jobs() if jobs is None else check_jobs(jobs)
    if (jobs == 1 or problem.graph.n_tasks < PARALLEL_MIN_TASKS or "fork" not in multiprocessing.get_all_start_methods()
            or _inside_mpi()):
        return SerialExecutor(problem, progress=progress, judge=judge, judge_options=judge_options)
    return ProcessExecutor(problem, jobs, progress=progress, judge=judge, judge_options=judge_options)
