"""The search engine (``mpitaskmap/search/engine.py``): the two stages and the judge stage, once.

:func:`~mpitaskmap.search.engine.run` is checked against a fake executor that records what the
engine asks of it and answers with scores and replay times written here, so every decision is
hand-computed: which candidates the second stage refines, which shortlist the judge replays, the
budget cut in shortlist order, ties.  Then the two real executors: the serial one
(:class:`~mpitaskmap.search.serial.SerialExecutor`) and the MPI one
(:class:`~mpitaskmap.runtime.mpi_search.MPIExecutor`, on ``COMM_SELF`` here and on the world
communicator under ``mpiexec``) give the same :class:`~mpitaskmap.search.engine.EngineResult`.
"""

from __future__ import annotations

import math

import pytest
from demo_inputs import FRONTIER, minighost_input

from mpitaskmap import TaskGraph, candidate_list, families_for, torus_machine
from mpitaskmap.metrics import evaluate
from mpitaskmap.search import engine
from mpitaskmap.search.engine import EngineResult, SearchRequest, StageScores, no_candidate_applies
from mpitaskmap.search.judge import resolve_judge
from mpitaskmap.search.problem import Candidate, Problem
from mpitaskmap.search.scoring import REFINE_TOP, resolve_metric
from mpitaskmap.search.serial import SerialExecutor

INF = math.inf

#: Six first-stage candidates ``c 0`` .. ``c 5`` (``c 0`` stands for the default order).
FIRST = tuple(Candidate.make("c", str(i)) for i in range(6))

#: Their objective scores: ``c 2`` does not apply; ``c 1`` and ``c 3`` tie.
FIRST_SCORES = {0: 5.0, 1: 3.0, 2: INF, 3: 3.0, 4: 4.0, 5: 1.0}


class FakeExecutor:
    """An executor answering from tables, recording every call the engine makes."""

    def __init__(self, scores: dict, times: dict | None = None, error: str = "") -> None:
        self.scores, self.times, self.error = scores, times or {}, error
        self.calls: list = []

    def score(self, request, candidates, first):
        self.calls.append(("score", first, [c.label() for c in candidates[first:]]))
        mine = [(i, self.scores[i]) for i in range(first, len(candidates))]
        return StageScores(scores=mine, applied=any(s != INF for _, s in mine), error=self.error,
                           digests={i: bytes([i]) for i, s in mine if s != INF} if request.judge else {})

    def replay(self, request, candidates, shortlist):
        self.calls.append(("replay", list(shortlist)))
        return {i: self.times[i] for i in shortlist if i in self.times}, ""

    def fetch(self, request, candidates, index):
        self.calls.append(("fetch", index))
        return f"mapping of #{index}"


def request(**kw) -> SearchRequest:
    """The request of the fake cases: 4x4 torus (any problem: the fake computes nothing), weighted hops."""
    problem = Problem(TaskGraph.stencil([4, 4]), torus_machine([4, 4]))
    return SearchRequest(problem, FIRST, "weighted_hops", **kw)


def test_the_second_stage_refines_the_best_finite_scores_and_a_tie_goes_to_the_lower_index():
    """refine=2: the best finite scores are c 5 (1.0) then c 1 (3.0, tied with c 3: the lower
    index); their refinements are candidates 6 and 7.  #6 scores 1.0, tied with c 5: c 5 wins."""
    fake = FakeExecutor({**FIRST_SCORES, 6: 1.0, 7: 2.0})
    out = engine.run(request(refine=2), fake)
    assert fake.calls == [("score", 0, [f"c {i}" for i in range(6)]),
                          ("score", 6, ["c 5 + uwh", "c 1 + uwh"]),
                          ("fetch", 5)]
    assert (out.index, out.score, out.objective_index, out.n_refined) == (5, 1.0, 5, 2)
    assert out.scores == [5.0, 3.0, INF, 3.0, 4.0, 1.0, 1.0, 2.0]
    assert [c.label() for c in out.candidates[6:]] == ["c 5 + uwh", "c 1 + uwh"]
    assert (out.judge, out.judged, math.isnan(out.default_simulated_s), out.mapping) == (None, [], True,
                                                                                          "mapping of #5")


def test_a_refinement_strictly_better_wins():
    fake = FakeExecutor({**FIRST_SCORES, 6: 2.0, 7: 0.5})
    out = engine.run(request(refine=2), fake)
    assert (out.index, out.score, fake.calls[-1]) == (7, 0.5, ("fetch", 7))


def test_one_stage_without_refine_and_with_more_tasks_than_processors():
    fake = FakeExecutor(FIRST_SCORES)
    assert engine.run(request(), fake).index == 5 and [c[0] for c in fake.calls] == ["score", "fetch"]
    # 16 tasks on 4 processors: the refinements move one task per processor, so no second stage
    several = Problem(TaskGraph.stencil([4, 4]), torus_machine([2, 2]), oversubscribe=True)
    fake = FakeExecutor(FIRST_SCORES)
    out = engine.run(SearchRequest(several, FIRST, "weighted_hops", refine=4), fake)
    assert (out.n_refined, [c[0] for c in fake.calls]) == (0, ["score", "fetch"])


def judged_request(**kw) -> SearchRequest:
    return request(refine=2, judge="fluid", judge_why="requested", judge_top=2,
                   judge_options={"max_work": 1000}, **kw)


#: Both stages: #7 (0.5) best, then #5 and #6 tied at 1.0, the default order (#0) at 5.0.
JUDGED_SCORES = {**FIRST_SCORES, 6: 1.0, 7: 0.5}


def test_the_judge_replays_the_top_the_tied_and_the_default_order_and_keeps_the_fastest():
    """judge_top=2: #7 and #5; #6 ties with #5, the last of the top, so it joins; the default
    order comes last.  #5 replays fastest: the judge's pick, though the objective's is #7."""
    fake = FakeExecutor(JUDGED_SCORES, times={7: 2.0, 5: 1.0, 6: 1.5, 0: 3.0})
    out = engine.run(judged_request(), fake)
    assert fake.calls[2:] == [("replay", [7, 5, 6, 0]), ("fetch", 5)]
    assert (out.index, out.score, out.objective_index, out.judge, out.judge_why) == (5, 1.0, 7, "fluid", "requested")
    assert [(r["index"], r["chosen_by"], r["simulated_s"], r["simulated_rank"]) for r in out.judged] == [
        (7, "objective", 2.0, 3), (5, "objective", 1.0, 1), (6, "tie", 1.5, 2), (0, "default order", 3.0, 4)]
    assert out.default_simulated_s == 3.0


def test_a_replay_past_its_budget_cuts_the_rest_in_shortlist_order_and_the_objective_decides():
    """#5, second in the shortlist, passes its budget: #6 and the default order count as not
    replayed (nan) although the executor returned times for them (as other MPI ranks do)."""
    fake = FakeExecutor(JUDGED_SCORES, times={7: 2.0, 5: INF, 6: 0.5, 0: 3.0})
    out = engine.run(judged_request(), fake)
    assert fake.calls[-1] == ("fetch", 7)
    assert (out.index, out.objective_index, out.judge) == (7, 7, None)
    assert out.judge_why == "the fluid replay of #5 c 5 passed its work budget (1,000): the objective decides"
    assert [(r["index"], r["simulated_s"]) for r in out.judged][:2] == [(7, 2.0), (5, INF)]
    assert all(math.isnan(r["simulated_s"]) for r in out.judged[2:]) and math.isnan(out.default_simulated_s)


def test_a_tie_with_the_default_order_keeps_it():
    """#7 replays as fast as the default order: no gain, the default order (#0) is kept."""
    fake = FakeExecutor(JUDGED_SCORES, times={7: 1.0, 5: 2.0, 6: 2.0, 0: 1.0})
    out = engine.run(judged_request(), fake)
    assert (out.index, out.score, out.judge, fake.calls[-1]) == (0, 5.0, "fluid", ("fetch", 0))


def test_a_stage_error_or_no_applicable_candidate_ends_the_search_with_the_error():
    fake = FakeExecutor(FIRST_SCORES, error="mapper: rank 1: ValueError: boom")
    out = engine.run(request(refine=2, judge="fluid"), fake)
    assert (out.error, out.mapping, [c[0] for c in fake.calls]) == ("mapper: rank 1: ValueError: boom", None,
                                                                   ["score"])
    fake = FakeExecutor({i: INF for i in range(6)})
    out = engine.run(request(refine=2), fake)
    assert out.error == no_candidate_applies(6) == "candidates: none of the 6 candidates applies to this input"
    assert [c[0] for c in fake.calls] == ["score"]


# -- the two real executors -------------------------------------------------------------------
def default_request(problem: Problem) -> SearchRequest:
    """What map(g, m, "auto") and remap() search by default: every applicable family, the
    identity first, REFINE_TOP refined, the default judge."""
    judge, why, options = resolve_judge(problem, "default", False)
    cands = candidate_list(problem, families=families_for(problem), include_identity=True)
    return SearchRequest(problem, tuple(cands), resolve_metric(None, problem.machine), refine=REFINE_TOP,
                         judge=judge, judge_why=why, judge_options=options)


def comparable(result: EngineResult) -> dict:
    """Every field but the judge's wall time, floats as ``float.hex`` (nan and inf included), the mapping as its list."""
    def exact(v):
        if isinstance(v, float):
            return float.hex(v)
        if isinstance(v, dict):
            return {k: exact(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [exact(x) for x in v]
        return v
    out = {k: exact(v) for k, v in vars(result).items() if k not in ("mapping", "judge_seconds")}
    out["mapping"] = result.mapping.task_to_proc.tolist()
    return out


def small_problem() -> Problem:
    """The README's Frontier demo (16 tasks): the judge replays 16 mappings and the default
    order, and keeps the default order over the objective's pick (#5)."""
    return Problem(*minighost_input(FRONTIER))


def serial_and_mpi(comm) -> tuple[dict, dict, EngineResult]:
    from mpitaskmap.runtime.mpi_search import MPIExecutor

    problem = small_problem()
    req = default_request(problem)
    serial = engine.run(req, SerialExecutor(problem, judge=req.judge, judge_options=req.judge_options))
    mpi = engine.run(req, MPIExecutor(comm, problem))
    return comparable(serial), comparable(mpi), serial


def check_the_small_case(serial: dict, mpi: dict, result: EngineResult) -> None:
    assert mpi == serial
    # the case is what it says: two stages, the judge ran and kept the default order, not the objective's #5
    assert (len(result.candidates), result.n_refined, result.judge, result.index, result.objective_index) == (
        226, 16, "fluid", 0, 5)
    assert len(result.judged) == 17 and result.judged[-1]["chosen_by"] == "default order"


def test_the_serial_and_the_mpi_executor_give_the_same_result_on_one_rank():
    from mpi4py import MPI

    check_the_small_case(*serial_and_mpi(MPI.COMM_SELF))


@pytest.mark.mpi
def test_the_serial_and_the_mpi_executor_give_the_same_result_on_every_rank():
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    serial, mpi, result = serial_and_mpi(world)
    check_the_small_case(serial, mpi, result)
    assert all(m == mpi for m in world.allgather(mpi))


def test_computed_mappings_keep_a_stages_best_and_compute_any_other_once():
    from mpitaskmap.search.engine import ComputedMappings
    from mpitaskmap.search.scoring import score_candidates
    problem = Problem(TaskGraph.stencil([4, 4]), torus_machine([4, 4]))
    candidates = candidate_list(problem.graph, problem.machine)[:3]
    found = score_candidates(problem, candidates, range(3), "weighted_hops")
    kept = ComputedMappings(problem)
    kept.keep_best(found)
    assert kept.get(candidates, found.best[1]) is found.best[2]  # the scoring pass's own mapping, not a new one
    other = next(i for i in range(3) if i != found.best[1])
    assert kept.get(candidates, other) is kept.get(candidates, other)


def test_the_scoring_loop_scores_each_distinct_mapping_once():
    from mpitaskmap.search.judge import mapping_digest
    from mpitaskmap.search.scoring import apply, score_candidates

    problem = Problem(TaskGraph.stencil([4, 4, 4]), torus_machine([4, 4, 4]))
    candidates = candidate_list(problem.graph, problem.machine, include_identity=True)
    calls = []

    def hops(graph, machine, task_to_proc):  # the weighted hops, counting its calls
        calls.append(1)
        return float(evaluate(graph, machine, task_to_proc, ["weighted_hops"])["weighted_hops"])

    found = score_candidates(problem, candidates, metric=hops)
    digests = [mapping_digest(apply(c, problem).task_to_proc) for c in candidates]
    assert len(calls) == len(set(digests)) < len(candidates)  # this list repeats some mappings
    # every candidate still gets its own mapping's score
    expected = [evaluate(problem.graph, problem.machine, apply(c, problem).task_to_proc,
                         ["weighted_hops"])["weighted_hops"] for c in candidates]
    assert [s for _, s in found.scores] == expected
