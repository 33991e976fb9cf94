"""auto's candidates over forked worker processes (map --jobs): the same result as one process, no hang."""

import os
import signal
import sys
import time

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, TaskGraph, map as map_tasks
from mpitaskmap.cli import main
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.search import parallel
from mpitaskmap.search.parallel import ProcessExecutor, executor_for
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.serial import SerialExecutor
from mpitaskmap.search.families import graph as graph_family

FATTREE = "sim:fattree:leaves=8,nodes_per_leaf=4,taper=2,nodes=16,ppn=4,seed=1"


@pytest.fixture
def small_parallel(monkeypatch):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_TASKS", 1)  # fork for a test-sized search


def _case(spec=FATTREE, dims=(4, 4, 4)):
    n = int(np.prod(dims))
    return TaskGraph.stencil(list(dims)), machine_from_spec(spec, n).machine


@pytest.mark.parametrize("spec", [FATTREE, "sim:frontier:nodes=16,ppn=4,seed=2", "sim:titan:nodes=16,ppn=4,seed=3"])
def test_every_jobs_count_finds_the_serial_search(small_parallel, monkeypatch, spec):
    graph, machine = _case(spec)
    started = []
    real_start = ProcessExecutor._start
    monkeypatch.setattr(ProcessExecutor, "_start", lambda self, request: (started.append(self.jobs),
                                                                           real_start(self, request)))
    one = map_tasks(graph, machine, "auto", jobs=1)
    assert started == []
    assert one.info["judge"] == "fluid" and one.info["judged"]  # the workers replay the shortlist too
    for jobs in (2, 3):
        many = map_tasks(graph, machine, "auto", jobs=jobs)
        assert np.array_equal(many.task_to_proc, one.task_to_proc)
        for key in ("candidate", "candidates", "applicable", "refused", "judge", "objective_winner"):
            assert many.info.get(key) == one.info.get(key), key
        assert [(j["index"], j["simulated_s"]) for j in many.info["judged"]] == \
            [(j["index"], j["simulated_s"]) for j in one.info["judged"]]
    assert started == [2, 3]  # both really ran over worker processes


def test_a_refinement_goes_to_the_worker_of_its_start(small_parallel):
    graph, machine = _case()
    problem = Problem(graph, machine)
    ex = ProcessExecutor(problem, 3)
    from mpitaskmap.search.scoring import candidate_list, refinement_candidates
    first = candidate_list(problem, families=["graph"], include_identity=True)
    ex._n_first = len(first)
    ex._owner = {i: i % 3 for i in range(len(first))}
    graph_starts = [i for i, c in enumerate(first) if c.family == "graph"][:2]
    other = next(i for i, c in enumerate(first) if c.family != "graph")
    second = refinement_candidates([first[i] for i in graph_starts] + [first[other]], "predicted_time")
    every = first + second
    owners = [ex._affinity(every, len(first) + k) for k in range(len(second))]
    # a graph start's refinements go where it was computed (dear to compute again), the others anywhere
    assert owners == [graph_starts[0] % 3] * 2 + [graph_starts[1] % 3] * 2 + [None] * 2
    assert [ex._affinity(every, i) for i in range(len(first))] == [None] * len(first)  # any worker


def test_neighbouring_cheap_candidates_go_to_one_worker_together(small_parallel, monkeypatch):
    graph, machine = _case("sim:titan:nodes=16,ppn=4,seed=3")
    problem = Problem(graph, machine)
    from mpitaskmap.search.engine import SearchRequest
    from mpitaskmap.search.scoring import candidate_list
    cands = candidate_list(problem, include_identity=True)
    monkeypatch.setattr(parallel, "CHEAP_BATCH", 4)
    with ProcessExecutor(problem, 2) as ex:
        ex.score(SearchRequest(problem, tuple(cands), "predicted_time", refine=0), cands, 0)
        owner = dict(ex._owner)
    geometric = [i for i, c in enumerate(cands) if c.family == "geometric"]
    assert len(geometric) > 16 and sorted(owner) == list(range(len(cands)))
    # runs of consecutive geometric candidates on one worker: whole batches of 4 from the first
    runs, k = [], 0
    while k < len(geometric):
        j = k
        while j + 1 < len(geometric) and geometric[j + 1] == geometric[j] + 1 and owner[geometric[j + 1]] == owner[geometric[k]]:
            j += 1
        runs.append(j - k + 1)
        k = j + 1
    assert all(r % 4 == 0 for r in runs[:-1]) and max(runs) >= 4


def test_the_default_order_is_replayed_in_the_first_stages_tail_once(small_parallel):
    from mpitaskmap.search.engine import SearchRequest
    from mpitaskmap.search.judge import fluid_seconds
    from mpitaskmap.search.scoring import apply, candidate_list

    graph, machine = _case()
    problem = Problem(graph, machine)
    cands = candidate_list(problem, include_identity=True)
    with ProcessExecutor(problem, 2, judge="fluid") as ex:
        request = SearchRequest(problem, tuple(cands), "predicted_time", refine=0, judge="fluid")
        ex.score(request, cands, 0)
        expected = fluid_seconds(problem, apply(cands[0], problem))
        assert ex._early == {0: expected}
        asked = []
        real_ask = ex._ask
        ex._ask = lambda requests: asked.append(requests) or real_ask(requests)
        seconds, error = ex.replay(request, cands, [3, 0])
        assert error == "" and seconds == {0: expected, 3: fluid_seconds(problem, apply(cands[3], problem))}
        assert [idx for requests in asked for _, idx in requests.values()] == [[3]]  # 0 not again
    # without a judge there is nothing to replay early
    with ProcessExecutor(problem, 2) as ex:
        ex.score(SearchRequest(problem, tuple(cands), "predicted_time", refine=0), cands, 0)
        assert ex._early == {}


def test_the_replays_are_evened_out_by_cheap_candidates_only():
    from mpitaskmap.search.parallel import replay_shares
    from mpitaskmap.search.problem import Candidate

    geo, graph_c = Candidate.make("geometric", "mj"), Candidate.make("graph", "bisection")
    refined = Candidate.make("refined", "uwh", start=geo)
    cands = [Candidate.make("identity", "identity"), geo, geo, geo, graph_c, refined, refined]
    # every replay with its owner when that is even
    assert replay_shares([1, 4, 2, 5], cands, {1: 0, 4: 0, 2: 1, 5: 1}, 2) == {0: [1, 4], 1: [2, 5]}
    # one worker owns all: the cheap ones move (the last first), the graph mapping and refinements stay
    assert replay_shares([5, 4, 1, 2, 3], cands, {i: 0 for i in range(7)}, 2) == {0: [5, 4, 1], 1: [2, 3]}
    assert replay_shares([5, 6, 4], cands, {i: 0 for i in range(7)}, 3) == {0: [5, 6, 4]}  # nothing cheap
    # three workers, the least loaded and then the lowest first; the identity (a cheap family) too
    assert replay_shares([0, 1, 2, 3], cands, {i: 1 for i in range(7)}, 3) == {0: [3], 1: [0, 1], 2: [2]}
    assert replay_shares([], cands, {}, 2) == {}


def test_a_worker_that_dies_stops_the_search_at_once(small_parallel, monkeypatch):
    graph, machine = _case()
    parent = os.getpid()
    real = graph_family.apply

    def apply(candidate, problem, **kwargs):
        if os.getpid() != parent and candidate.method == "bisection":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(candidate, problem, **kwargs)

    monkeypatch.setattr(graph_family, "apply", apply)
    t0 = time.perf_counter()
    with pytest.raises(RuntimeError, match=r"search worker \d of 2 died \(exit code -9\); the search stopped"):
        map_tasks(graph, machine, "auto", jobs=2)
    assert time.perf_counter() - t0 < 60


def test_a_mapper_error_in_a_worker_is_the_searchs_error(small_parallel, monkeypatch):
    graph, machine = _case()
    real = graph_family.apply

    def apply(candidate, problem, **kwargs):
        if candidate.method == "packing":
            raise ValueError("boom in packing")
        return real(candidate, problem, **kwargs)

    monkeypatch.setattr(graph_family, "apply", apply)
    with pytest.raises(InvalidInputError, match=r"candidate \d+ \(packing\): ValueError: boom in packing"):
        map_tasks(graph, machine, "auto", jobs=2)


def test_which_executor(monkeypatch):
    graph, machine = _case()
    problem = Problem(graph, machine)
    assert isinstance(executor_for(problem, 4), SerialExecutor)  # 64 tasks < PARALLEL_MIN_TASKS
    monkeypatch.setattr(parallel, "PARALLEL_MIN_TASKS", 64)
    assert isinstance(executor_for(problem, 1), SerialExecutor)
    ex = executor_for(problem, 2)
    assert isinstance(ex, ProcessExecutor) and ex.jobs == 2
    monkeypatch.setattr(parallel, "default_jobs", lambda: 5)
    assert executor_for(problem, None).jobs == 5

    class World:
        def __init__(self, size):
            self.size = size

        def Get_size(self):
            return self.size

    class FakeMPI:
        COMM_WORLD = World(4)

        @staticmethod
        def Is_initialized():
            return True

        @staticmethod
        def Is_finalized():
            return False

    monkeypatch.setitem(sys.modules, "mpi4py.MPI", FakeMPI)
    assert isinstance(executor_for(problem, 2), SerialExecutor)  # never fork a rank of an MPI job
    FakeMPI.COMM_WORLD = World(1)
    assert isinstance(executor_for(problem, 2), ProcessExecutor)  # a singleton is no job
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InvalidInputError, match=r"jobs: expected an int >= 1 \(worker processes\)"):
            executor_for(problem, bad)


def test_jobs_is_an_auto_option():
    graph, machine = _case()
    with pytest.raises(InvalidInputError, match="jobs: only method 'auto' spreads its candidates over processes; "
                                                "got jobs=2 with method 'geometric'"):
        map_tasks(graph, machine, "geometric", jobs=2)


def test_cli_jobs(small_parallel, capsys):
    args = ["map", "-m", FATTREE, "-t", "stencil3d:4x4x4", "--method", "auto", "--format", "csv", "-q"]
    assert main(args + ["--jobs", "1"]) == 0
    one = capsys.readouterr().out
    strip = lambda text: [",".join(row.split(",")[:-1]) for row in text.splitlines()]  # noqa: E731 (seconds differ)
    assert main(args + ["--jobs", "2"]) == 0
    assert strip(capsys.readouterr().out) == strip(one)
    assert main(args) == 0  # default: every core
    assert strip(capsys.readouterr().out) == strip(one)
    assert main(args + ["--jobs", "0"]) != 0
    assert "--jobs: must be at least 1; got 0" in capsys.readouterr().err
