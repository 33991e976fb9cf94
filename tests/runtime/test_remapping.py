"""remap(): agreement, validity, guard against the default, fault injection on one rank.

Run under ``mpiexec -n 4`` (and one oversubscribed size) with ``--with-mpi -m mpi``; the
tests are size-agnostic.  Every fault test checks that *all* ranks end the same way: after
the call returns or raises, a collective compares what each rank saw.

Most tests take the ``comm`` fixture (``conftest.py``): the world, the world reversed, a
half of it, and ``COMM_SELF``.  Providers describe the whole job, so ``remap`` on a
sub-communicator places its ranks where their *world* ranks sit (:func:`comm_machine`
builds that machine for the checks).
"""

import functools
import math

from demo_inputs import FRONTIER, minighost_input, minighost_task
from mpi_helpers import SIM, FailingProvider, all_same, comm_machine
from mpitaskmap.search.judge import JUDGE_TIE

import numpy as np
import pytest

from mpitaskmap import MappingError, TaskGraph, best_of, candidate_list, remap, evaluate
from mpitaskmap.search.families import geometric as geometric_family
from mpitaskmap.providers import get_provider

pytestmark = pytest.mark.timeout(240)

def grid_for(size):
    from mpi4py import MPI

    return tuple(MPI.Compute_dims(size, 3))


def task_of(rank, grid):
    px, py, _ = grid
    return (rank % px, (rank // px) % py, rank // (px * py))


def neighbors_of(rank, grid):
    x, y, z = task_of(rank, grid)
    out = []
    for d in ((-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)):
        c = (x + d[0], y + d[1], z + d[2])
        if all(0 <= v < n for v, n in zip(c, grid)):
            out.append(c[0] + grid[0] * (c[1] + grid[1] * c[2]))
    return out


@pytest.mark.mpi
def test_remap_agrees_is_valid_and_never_worse_than_default(comm):
    grid = grid_for(comm.size)
    new, rep = remap(comm, task_of(comm.rank, grid), neighbors=neighbors_of(comm.rank, grid), provider=SIM, report=True)
    try:
        assert all_same(comm, (rep.status, rep.winner_index, rep.after, rep.before, tuple(rep.new_rank_of)))
        assert sorted(rep.new_rank_of) == list(range(comm.size))
        assert new.size == comm.size and new.rank == rep.new_rank_of[comm.rank]
        assert rep.after <= rep.before
        # one task has no coordinate extent: the identity (and its refinement) is all then
        first_stage = rep.n_candidates - rep.n_refined
        assert (first_stage > 1) == (comm.size > 1) and sum(rep.candidates_per_rank) == rep.n_candidates
        # the default objective is predicted time (a Titan has links): UWH and UWH+UMC per start,
        # and (a small graph: the judge replays five steps) the node-swap polish of both
        assert rep.metric == "predicted_time" and rep.n_refined == 4 * min(4, first_stage)
        # the placement the new communicator realises has exactly the reported score, on the
        # machine of comm's ranks (where their world ranks sit)
        task_to_proc = np.array(new.allgather(comm.rank))  # task t runs on comm rank task_to_proc[t]
        graph = TaskGraph.from_neighbor_lists(
            [neighbors_of(r, grid) for r in range(comm.size)], coords=[task_of(r, grid) for r in range(comm.size)]
        )
        score = evaluate(graph, comm_machine(comm, SIM), task_to_proc, ["predicted_time"])["predicted_time"]
        assert score == rep.after
        assert new.Get_name() == f"mpitaskmap:{SIM}"
    finally:
        new.Free()


def tie_mesh_side(comm):
    """k for a k x k task mesh filling a k x k torus with comm = all world ranks; else skip."""
    from mpi4py import MPI

    k = math.isqrt(comm.size)
    if comm.size != MPI.COMM_WORLD.size or k * k != comm.size or k < 2:
        pytest.skip("needs all world ranks, a square number >= 4 of them (a k x k mesh filling a k x k torus)")
    return k


@pytest.mark.mpi
@pytest.mark.parametrize("orderings", [("fz", "mfz", "z", "gray", "hilbert"), ("fz",)], ids=["all", "fz"])
def test_remap_tie_with_the_identity_keeps_the_identity(comm, orderings):
    """A k x k task mesh on a k x k torus (2x2 at -n 4, 4x4 at -n 16): the default order is
    already optimal (mesh neighbours on torus neighbours, 1 hop each; on the reversed world
    it is the mesh turned by 180 degrees, just as good) and every candidate ties with it.  Ties go to the lowest index, so candidate 0 (the identity) wins: status
    "identity", winner_index 0, every rank keeps its rank.

    Mutation checks: ranking ties to the highest index in ``winner`` (the engine's pick) makes the last
    candidate win (winner_index != 0, status "remapped"); keeping the *last* tied candidate
    on a rank (``<=`` in the local best) makes rank 0 broadcast a tied candidate that
    transposes the mesh while the report still says 0 ("fz" list at -n 4: index 8; full
    list at -n 16: index 32), and the rank-order assertion fails.
    """
    k = tie_mesh_side(comm)
    spec = f"sim:torus:dims={k}x{k}"
    new, rep = remap(comm, (comm.rank % k, comm.rank // k), provider=spec, orderings=orderings, report=True)
    try:
        # the tie is real: serially, with the list remap() evaluates, several candidates score
        # what the identity scores, and one of them places the tasks differently
        machine = comm_machine(comm, spec)
        graph = TaskGraph.from_coordinate_proxy(np.array([(r % k, r // k) for r in range(comm.size)], dtype=float))
        cands = candidate_list(graph, machine, orderings=orderings, include_identity=True)
        scores = best_of(graph, machine, cands).scores
        tied = [i for i, s in enumerate(scores) if s == scores[0]]
        assert len(tied) == len(cands) >= 2
        moved = [i for i in tied if best_of(graph, machine, [cands[i]]).mapping.task_to_proc.tolist() != list(range(k * k))]
        assert moved
        assert rep.n_candidates == len(cands) + rep.n_refined and rep.before == rep.after == scores[0]
        # the rule: the lowest index wins the tie
        assert (rep.winner_index, rep.status) == (0, "identity")
        assert rep.new_rank_of == list(range(comm.size)) and new.rank == comm.rank
        assert all_same(comm, (rep.winner_index, rep.status, tuple(rep.new_rank_of)))
    finally:
        new.Free()


@pytest.mark.mpi(min_size=4)
def test_remap_repairs_a_scattered_default(comm):
    if comm.size < 4:
        pytest.skip("a line of fewer than 4 tasks has no scattered order to repair here")
    from mpi4py import MPI

    n, m = MPI.COMM_WORLD.size, comm.size
    # a line of tasks handed out with a stride: neighbours sit far apart on a line of routers.
    # comm's ranks sit on a contiguous block of that line (world, reversed world, a half), so
    # the best placement puts consecutive tasks 1 hop apart: weighted hops 2 (m - 1)
    stride = next(s for s in range(3, 2 * m + 3, 2) if math.gcd(s, m) == 1)
    task = (comm.rank * stride) % m
    new, rep = remap(comm, (float(task),), provider=f"sim:torus:dims={n},wrap=0", metric="weighted_hops",
                     report=True)
    new.Free()
    assert rep.status == "remapped" and rep.after == 2 * (m - 1) < rep.before


@pytest.mark.mpi
@pytest.mark.parametrize("metric", ["average_hops", "latency"])
def test_other_metrics(comm, metric):
    # a smaller Titan-like torus than SIM's full 25x16x24: link-load metrics cost O(links)
    # per candidate, and this test runs once per metric and communicator
    spec = SIM + ",dims=8x8x8"
    grid = grid_for(comm.size)
    new, rep = remap(comm, task_of(comm.rank, grid), provider=spec, metric=metric, report=True)
    new.Free()
    assert rep.metric == metric and rep.after <= rep.before
    assert all_same(comm, (rep.winner_index, rep.after))


@pytest.mark.mpi
def test_cartcomm_gives_coordinates_and_neighbours(comm):
    cart = comm.Create_cart(grid_for(comm.size), periods=[False] * 3)
    new, rep = remap(cart, provider=SIM, report=True)
    assert rep.after <= rep.before and sorted(rep.new_rank_of) == list(range(comm.size))
    assert all_same(comm, (rep.winner_index, rep.after, tuple(rep.new_rank_of)))
    new.Free()
    cart.Free()


@pytest.mark.mpi
def test_disable_env_returns_unchanged_duplicate(comm, monkeypatch):
    from mpi4py import MPI

    monkeypatch.setenv("MPITASKMAP_DISABLE", "1")
    new, rep = remap(comm, (comm.rank,), provider=SIM, report=True)
    assert rep.status == "disabled" and new.rank == comm.rank
    assert MPI.Comm.Compare(new, comm) == MPI.CONGRUENT
    new.Free()


# -- faults on one rank: every rank must end the same way --------------------------------


def exploding_apply(original, bad_world_rank):
    """The geometric family's apply, raising in one MPI process only (a mapper bug there)."""

    def apply(candidate, problem, **kwargs):
        from mpi4py import MPI

        if MPI.COMM_WORLD.rank == bad_world_rank:
            raise ZeroDivisionError("mapper bug on rank 1")
        return original(candidate, problem, **kwargs)

    return apply


def run_fault(comm, fault, on_error):
    """remap() on comm with one fault on comm rank 1; what this rank saw."""
    from mpi4py import MPI

    bad_world = comm.allgather(MPI.COMM_WORLD.rank)[1]  # providers and mappers see world ranks

    grid = grid_for(comm.size)
    coords = task_of(comm.rank, grid)
    kwargs = dict(provider=SIM, report=True, on_error=on_error)
    if fault == "nan" and comm.rank == 1:
        coords = (np.nan, 0.0, 0.0)
    if fault == "dims" and comm.rank == 1:
        coords = (1.0, 2.0)
    if fault == "provider":
        kwargs["provider"] = FailingProvider(bad_rank=bad_world)
    if fault == "mapper":
        kwargs["candidates"] = [geometric_family.candidate("fz")] * comm.size
    if fault == "neighbor" and comm.rank == 1:
        kwargs["neighbors"] = [comm.size + 5]
    if fault == "neighbor" and comm.rank != 1:
        kwargs["neighbors"] = neighbors_of(comm.rank, grid)
    original = geometric_family.apply
    if fault == "mapper":
        geometric_family.apply = exploding_apply(original, bad_world)
    try:
        new, rep = remap(comm, coords, **kwargs)
    except MappingError as exc:
        return ("raised", str(exc))
    finally:
        geometric_family.apply = original
    status = (rep.status, rep.error, new.rank == comm.rank)
    new.Free()
    return ("returned",) + status


EXPECTED = {
    "nan": "task: rank 1: ValueError: coords: non-finite value in dimension 0",
    "dims": "coords: rank 1 gave 2 dimensions but rank 0 gave 3",
    "provider": "provider: rank 1: RuntimeError: no coordinates on this node",
    "mapper": "mapper: rank 1: candidate 1 (geometric fz T* P* shift): ZeroDivisionError: mapper bug on rank 1",
    "neighbor": "task: rank 1: ValueError: neighbors: entry 0 names rank",
}


def skip_single_rank(comm):
    if comm.size < 2:
        pytest.skip("a fault on one rank of several needs a communicator of 2 or more ranks")


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_fault_on_one_rank_raises_the_same_error_everywhere(comm, fault):
    skip_single_rank(comm)
    outcome = run_fault(comm, fault, "raise")
    assert all_same(comm, outcome)
    assert outcome[0] == "raised" and outcome[1].startswith(EXPECTED[fault])


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_fault_on_one_rank_with_identity_fallback(comm, fault):
    skip_single_rank(comm)
    outcome = run_fault(comm, fault, "identity")
    assert all_same(comm, outcome)
    assert outcome[:2] == ("returned", "identity") and outcome[2].startswith(EXPECTED[fault]) and outcome[3]


def test_remap_on_comm_self_serial():
    from mpi4py import MPI

    new, rep = remap(MPI.COMM_SELF, (0.0, 0.0), provider="sim:torus:dims=2x2", report=True)
    assert new.size == 1 and rep.new_rank_of == [0] and rep.before == rep.after == 0.0
    new.Free()


def test_a_task_coordinates_line_that_fails_never_stops_remap(monkeypatch):
    from mpi4py import MPI

    from mpitaskmap.search.problem import Problem

    def fails(self):
        raise RuntimeError("no grid today")

    monkeypatch.setattr(Problem, "describe_task_coords", fails)
    new, rep = remap(MPI.COMM_SELF, (0.0, 0.0), provider="sim:torus:dims=2x2", report=True)
    assert rep.task_coords == "task coordinates not determined (RuntimeError: no grid today)"
    assert rep.error == "" and new.size == 1 and "  tasks: task coordinates not determined" in rep.summary()
    new.Free()


def test_bad_options_raise_before_communicating():
    from mpi4py import MPI

    with pytest.raises(ValueError, match="on_error"):
        remap(MPI.COMM_SELF, (0.0,), on_error="ignore")
    with pytest.raises(ValueError, match=r"unknown 'hops'"):
        remap(MPI.COMM_SELF, (0.0,), metric="hops")


def counting_comm(base):
    """A view of ``base`` that counts the collective calls made on it."""
    from mpi4py import MPI

    class CountingComm(MPI.Intracomm):
        calls: list = []

        def _count(self, name):
            type(self).calls.append(name)

        def bcast(self, *a, **k):
            self._count("bcast")
            return super().bcast(*a, **k)

        def allgather(self, *a, **k):
            self._count("allgather")
            return super().allgather(*a, **k)

        def allreduce(self, *a, **k):
            self._count("allreduce")
            return super().allreduce(*a, **k)

        def Allreduce(self, *a, **k):
            self._count("Allreduce")
            return super().Allreduce(*a, **k)

        def Allgather(self, *a, **k):
            self._count("Allgather")
            return super().Allgather(*a, **k)

        def Allgatherv(self, *a, **k):
            self._count("Allgatherv")
            return super().Allgatherv(*a, **k)

        def Bcast(self, *a, **k):
            self._count("Bcast")
            return super().Bcast(*a, **k)

        def Split(self, *a, **k):
            self._count("Split")
            return super().Split(*a, **k)

        def Split_type(self, *a, **k):
            self._count("Split_type")
            return super().Split_type(*a, **k)

        def Dup(self, *a, **k):
            self._count("Dup")
            return super().Dup(*a, **k)

    CountingComm.calls = []
    return CountingComm(base)


@pytest.mark.mpi
def test_collective_count_does_not_grow_with_the_candidate_list(comm):
    from mpitaskmap import torus_machine

    grid = grid_for(comm.size)
    counts = {}
    for refine in (0, 4):
        for n_cands in (1, 200):
            cands = (candidate_list(TaskGraph.stencil([4, 4, 4]), torus_machine([4, 4, 4]), rotate=False) * 40)[:n_cands]
            c = counting_comm(comm)
            new = remap(c, task_of(comm.rank, grid), provider=SIM, candidates=cands, refine=refine,
                        shared_memory=False, judge=None)
            new.Free()
            counts[refine, n_cands] = list(type(c).calls)
    # the ranks' job-level settings compared (one Allreduce); the job's data as arrays: a fixed
    # header, node names, the coordinates (no neighbours
    # given here: no Allgatherv of them); then the scores, the winner, the new communicator
    gather = ["Allgather", "Allgatherv", "Allgather"]
    one_stage = ["Allreduce", *gather, "allgather", "Bcast", "Split"]
    assert counts[0, 1] == counts[0, 200] == one_stage
    # the second stage (the default) adds one allgather, whatever the list length
    assert counts[4, 1] == counts[4, 200] == ["Allreduce", *gather, "allgather", "allgather", "Bcast", "Split"]
    # the judge (the default on a machine with links) adds one allgather of the replayed times
    for n_cands in (1, 200):
        cands = (candidate_list(TaskGraph.stencil([4, 4, 4]), torus_machine([4, 4, 4]), rotate=False) * 40)[:n_cands]
        c = counting_comm(comm)
        new = remap(c, task_of(comm.rank, grid), provider=SIM, candidates=cands, shared_memory=False, report=True)[0]
        new.Free()
        assert list(type(c).calls) == ["Allreduce", *gather, "allgather", "allgather", "allgather", "Bcast", "Split"]
    # with neighbours, one Allgatherv of them more
    c = counting_comm(comm)
    new = remap(c, task_of(comm.rank, grid), neighbors=neighbors_of(comm.rank, grid), provider=SIM, refine=0,
                shared_memory=False, judge=None)
    new.Free()
    assert list(type(c).calls) == ["Allreduce", *gather, "Allgatherv", "Allgatherv", "allgather", "Bcast", "Split"]
    # with shared memory the job's data moves on the node and node-leader communicators
    # (two made by remap, whatever the list length), the search on the job's
    c = counting_comm(comm)
    new = remap(c, task_of(comm.rank, grid), neighbors=neighbors_of(comm.rank, grid), provider=SIM, refine=0,
                shared_memory=True, judge=None)
    new.Free()
    assert list(type(c).calls) == ["Allreduce", "Split_type", "Split", "allgather", "Bcast", "Split"]


@functools.lru_cache(maxsize=1)
def search_case():
    """A graph, machine and candidate list independent of the communicator, and the serial
    best_of over them (computed once per process, shared by every ``comm``)."""
    from mpitaskmap import titan_machine

    machine = titan_machine(32, cores_per_node=4, seed=3)
    graph = TaskGraph.stencil([8, 4, 4])  # 128 tasks, independent of the number of ranks
    cands = candidate_list(graph, machine, include_identity=True, orderings=["fz", "z"])
    return graph, machine, cands, best_of(graph, machine, cands), best_of(graph, machine, cands, refine=4)


@pytest.mark.mpi
def test_search_candidates_spreads_work_and_matches_serial_best_of(comm):
    from mpitaskmap.runtime.mpi_search import search_candidates

    if comm.size < 2:
        pytest.skip("one rank evaluates every candidate, as the serial reference does: nothing to spread")

    graph, machine, cands, serial, serial2 = search_case()
    res = search_candidates(comm, graph, machine, cands)
    assert res.error == "" and res.index == serial.index and res.score == serial.score
    assert res.scores == serial.scores
    assert np.array_equal(res.task_to_proc, serial.mapping.task_to_proc)
    per = res.candidates_per_rank
    assert len(per) == comm.size and sum(per) == len(cands) and max(per) - min(per) <= 1
    # the two-stage search: the same winner, scores and mapping as serially, whatever the
    # number of ranks; its second stage is spread over the ranks too
    two = search_candidates(comm, graph, machine, cands, refine=4)
    # predicted time, the default objective on a Titan: each of the 4 starts refined by UWH and
    # UWH+UMC, and polished by node swaps before and after (a small graph)
    assert two.error == "" and two.n_refined == 4 * 4 and two.candidates == serial2.candidates
    assert (two.index, two.score, two.scores) == (serial2.index, serial2.score, serial2.scores)
    assert np.array_equal(two.task_to_proc, serial2.mapping.task_to_proc)
    assert two.score <= res.score
    assert sum(two.candidates_per_rank) == len(cands) + 4 * 4
    assert all_same(comm, (two.index, tuple(two.task_to_proc.tolist())))


@pytest.mark.mpi
def test_remap_searches_graph_and_grid_families_in_one_list(comm):
    """Tasks of comm laid out like the world's a x b mesh (comm rank r at (r % a, r // a)):
    on the world, its reversal (a point reflection) and either half (a block of whole rows
    when a divides the half's size) the default order is already optimal."""
    from mpi4py import MPI

    a, b = MPI.Compute_dims(MPI.COMM_WORLD.size, 2)
    if comm.size % a:
        pytest.skip(f"comm of {comm.size} ranks is not whole rows of the {a} x {b} mesh")
    spec = f"sim:torus:dims={a}x{b},wrap=0"
    x, y = comm.rank % a, comm.rank // a
    nbrs = [r for r in range(comm.size) if abs(r % a - x) + abs(r // a - y) == 1]
    new, rep = remap(comm, (x, y), neighbors=nbrs, provider=spec, families=("geometric", "graph", "grid"),
                     rotate=False, metric="weighted_hops", report=True)
    new.Free()
    machine = comm_machine(comm, spec)
    graph = TaskGraph.stencil([a, comm.size // a])  # the graph remap builds from the neighbour lists
    expected = candidate_list(graph, machine, families=["geometric", "graph", "grid"], rotate=False)
    assert rep.n_candidates == 1 + len(expected) + rep.n_refined and rep.n_refined == min(4, rep.n_candidates)
    families = {(c.family, c.method) for c in expected}
    assert ("graph", "greedy+uwh") in families and ("graph", "identity+uwh") in families
    assert (("geometric", "mj") in families) == (comm.size > 1)  # one task has no coordinate extent
    assert any(c.family == "grid" for c in expected) == (min(a, comm.size // a) > 1)
    assert all_same(comm, (rep.winner_index, rep.after))
    assert rep.after == rep.before  # the default order is already optimal on a matching mesh


def _serial_remap(graph, machine, refine=4):
    """What remap computes, serially, from inputs built the per-rank-object way
    (``TaskGraph.from_neighbor_lists``, ``assemble_machine`` of Locations): the new rank of
    every old rank."""
    from mpitaskmap.search.families.identity import CANDIDATE
    from mpitaskmap.search.problem import Problem

    problem = Problem(graph, machine)
    cands = [CANDIDATE] + candidate_list(problem)
    res = best_of(problem, None, cands, refine=refine)
    new_rank_of = np.empty(graph.n_tasks, dtype=np.int64)
    new_rank_of[res.mapping.task_to_proc] = np.arange(graph.n_tasks)
    return res, new_rank_of.tolist()


@pytest.mark.mpi
@pytest.mark.parametrize("case", ["stencil", "long_list", "no_neighbors"])
def test_array_gather_gives_what_per_rank_objects_give(comm, case):
    """The array collectives build the same graph and machine as per-rank Python objects
    did: same winner, same new ranks.  Also a rank whose neighbour list is 10x longer than
    the others', and ranks with no neighbours at all."""
    from mpitaskmap.providers import Location, assemble_machine

    grid = grid_for(comm.size)
    nbrs = neighbors_of(comm.rank, grid)
    weights = [1.0 + (comm.rank + v) % 3 for v in nbrs]
    if case == "long_list" and comm.rank == 1:  # 10x the others, every other rank, repeated
        nbrs = [(comm.rank + 1 + i) % comm.size for i in range(10 * max(1, len(nbrs)))]
        weights = [0.5] * len(nbrs)
    if case == "no_neighbors" and comm.rank % 2:
        nbrs, weights = [], []
    # the objective alone, as the serial reference (the judge has its own tests)
    new, rep = remap(comm, task_of(comm.rank, grid), neighbors=nbrs, weights=weights, provider=SIM, report=True,
                     judge=None)
    new.Free()
    everyone = comm.allgather((task_of(comm.rank, grid), nbrs, weights))
    graph = TaskGraph.from_neighbor_lists([e[1] for e in everyone], [e[2] for e in everyone],
                                          coords=np.array([e[0] for e in everyone], dtype=float))
    machine = comm_machine(comm, SIM)
    locs = [Location(tuple(int(c) for c in machine.router_coords[r]), f"node{int(machine.node_ids[r])}")
            for r in range(comm.size)]
    machine = assemble_machine(locs, get_provider(SIM).network(size=comm.size), name="x")
    serial, new_rank_of = _serial_remap(graph, machine)
    assert rep.error == "" and rep.winner_index == serial.index and rep.after == serial.score
    assert rep.new_rank_of == new_rank_of
    assert all_same(comm, tuple(rep.new_rank_of))


@pytest.mark.mpi
def test_shared_memory_one_copy_per_node_freed_with_the_communicator(comm):
    """With shared memory the node leader builds the task graph and machine into windows
    that only it allocates; the other ranks of the node allocate none and read the
    leader's; the result equals the plain gather's; freeing the returned communicator
    frees the windows (and the node communicators)."""
    from mpi4py import MPI

    from mpitaskmap.runtime.remapping import shared_job_data

    grid = grid_for(comm.size)
    args = (task_of(comm.rank, grid),)
    kw = dict(neighbors=neighbors_of(comm.rank, grid), provider=SIM, report=True)
    new, rep = remap(comm, *args, shared_memory=True, **kw)
    plain, rep_plain = remap(comm, *args, shared_memory=False, **kw)
    try:
        assert rep.new_rank_of == rep_plain.new_rank_of and rep.after == rep_plain.after
        assert rep.winner_index == rep_plain.winner_index
        assert rep_plain.shared_bytes == 0 and shared_job_data(plain) is None
        # the leader receives the router coordinates narrow (int8 here), not as float64
        assert 0 < rep.gathered_bytes < rep_plain.gathered_bytes
        share = shared_job_data(new)
        # the gathered arrays, then the rest of what was built (one window when the graph was
        # re-sorted: neighbours_of lists them -x, +x, -y, ..., not increasing)
        assert share is not None and share.n_windows in (1, 2)
        node = share.node
        sizes = []
        for win in share.windows:
            size = win.Get_attr(MPI.WIN_SIZE)
            buf, _ = win.Shared_query(0)
            data = np.frombuffer(buf, dtype=np.uint8)
            # only the leader allocates; every rank of the node sees the same bytes
            assert size == (len(data) if node.rank == 0 else 0)
            assert all_same(node, data.tobytes())
            sizes.append(len(data))
        assert rep.shared_bytes == sum(sizes) and all_same(comm, rep.shared_bytes)
    finally:
        windows = list(shared_job_data(new).windows)
        new.Free()
        plain.Free()
    assert all(w == MPI.WIN_NULL for w in windows)
    assert share.windows == [] and share.node == MPI.COMM_NULL


def pseudo_nodes(monkeypatch, comm, nodes):
    """Make remap cut comm into `nodes` interleaved pseudo-nodes (comm rank r on node r % nodes)."""
    from mpitaskmap.runtime import remapping as runtime
    from mpitaskmap.runtime.gather import NodeShare

    monkeypatch.setattr(runtime, "NodeShare", lambda c: NodeShare(c, node_color=c.Get_rank() % nodes))


@pytest.mark.mpi
def test_shared_memory_on_several_nodes_gives_the_plain_result(comm, monkeypatch):
    """Interleaved pseudo-nodes (their leaders exchange and reorder the blocks): the same
    winner and new ranks as the plain gather, with a rank whose neighbour list is 10x longer."""
    grid = grid_for(comm.size)
    nbrs = neighbors_of(comm.rank, grid)
    if comm.rank == 1:
        nbrs = [(comm.rank + 1 + i) % comm.size for i in range(10 * max(1, len(nbrs)))]
    kw = dict(neighbors=nbrs, provider=SIM, report=True)
    plain, rep_plain = remap(comm, task_of(comm.rank, grid), shared_memory=False, **kw)
    plain.Free()
    pseudo_nodes(monkeypatch, comm, 3)
    new, rep = remap(comm, task_of(comm.rank, grid), shared_memory=True, **kw)
    new.Free()
    assert (rep.winner_index, rep.after, rep.new_rank_of) == (rep_plain.winner_index, rep_plain.after,
                                                             rep_plain.new_rank_of)
    assert all_same(comm, rep.shared_bytes) and rep.shared_bytes > 0


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_build_failure_on_one_node_leader_ends_alike_everywhere(comm, monkeypatch, on_error):
    """The build fails on one node leader only (comm rank 1, the leader of pseudo-node 1):
    every rank of the job raises the same error, or returns the unchanged order and says
    why; no window is left behind."""
    from mpi4py import MPI

    from mpitaskmap.runtime import remapping as runtime

    skip_single_rank(comm)
    bad_world = comm.allgather(MPI.COMM_WORLD.rank)[1]
    original = runtime._inputs

    def failing(job, network, name):
        if MPI.COMM_WORLD.rank == bad_world:
            raise MemoryError("leader of node 1 ran out of memory")
        return original(job, network, name)

    monkeypatch.setattr(runtime, "_inputs", failing)
    pseudo_nodes(monkeypatch, comm, 2)
    grid = grid_for(comm.size)
    try:
        new, rep = remap(comm, task_of(comm.rank, grid), neighbors=neighbors_of(comm.rank, grid), provider=SIM,
                         report=True, on_error=on_error, shared_memory=True)
    except MappingError as exc:
        outcome = ("raised", str(exc))
    else:
        share = runtime.shared_job_data(new)
        outcome = ("returned", rep.status, rep.error, new.rank == comm.rank, share.n_windows)
        new.Free()
    assert all_same(comm, outcome)
    message = "inputs: MemoryError: leader of node 1 ran out of memory"
    if on_error == "raise":
        assert outcome == ("raised", message)
    else:
        assert outcome == ("returned", "identity", message, True, 0)


@functools.lru_cache(maxsize=1)
def judged_case():
    """512 tasks on 64 Titan nodes (seed 8), where the fluid judge overrules the objective."""
    from mpitaskmap import titan_machine

    return TaskGraph.stencil((8, 8, 8), weight=2560.0), titan_machine(64, cores_per_node=8, seed=8)


@pytest.mark.mpi
def test_search_candidates_judge_matches_the_serial_judge(comm):
    import mpitaskmap
    from mpitaskmap.runtime.mpi_search import search_candidates
    from mpitaskmap.search.scoring import REFINE_TOP

    graph, machine = judged_case()
    serial = None
    if comm.rank == 0:  # the serial search once, not once per rank
        m = mpitaskmap.map(graph, machine, families="geometric")
        serial = (m.info["candidate_index"], m.info["candidate_list"][: m.info["candidates"] - m.info["refined"]],
                  m.info["candidate_list"], m.info["judged"], m.info["objective_winner"], m.task_to_proc)
    index, first, every, judged, objective_winner, task_to_proc = comm.bcast(serial, root=0)
    res = search_candidates(comm, graph, machine, first, refine=REFINE_TOP, judge="default")
    assert res.error == "" and res.candidates == every and res.judge == "fluid"
    assert res.index == index != res.objective_index
    assert res.candidates[res.objective_index].label() == objective_winner
    assert [(j["index"], j["simulated_s"]) for j in res.judged] == [(j["index"], j["simulated_s"]) for j in judged]
    # the default order replayed too, last, by rank 0: slower than the pick by more than the tie
    assert res.judged[-1]["index"] == 0 and res.default_simulated_s == judged[-1]["simulated_s"]
    winner_s = next(j["simulated_s"] for j in res.judged if j["index"] == res.index)
    assert winner_s * (1 + JUDGE_TIE) < res.default_simulated_s
    assert np.array_equal(res.task_to_proc, task_to_proc)
    assert all_same(comm, (res.index, tuple(res.task_to_proc.tolist())))
    # no judge: the objective's pick
    plain = search_candidates(comm, graph, machine, first, refine=REFINE_TOP)
    assert plain.judge is None and plain.index == res.objective_index


@pytest.mark.mpi(min_size=2)
def test_a_judge_failure_on_one_rank_leaves_the_objectives_pick_everywhere(comm, monkeypatch):
    import mpitaskmap.search.judge as judge_mod
    from mpitaskmap.runtime.mpi_search import search_candidates
    from mpitaskmap.search.scoring import REFINE_TOP

    skip_single_rank(comm)
    graph, machine = judged_case()
    cands = candidate_list(graph, machine, include_identity=True)
    original = judge_mod.fluid_seconds

    def failing(problem, mapping, options):
        if comm.rank == 1:
            raise RuntimeError("replay bug on rank 1")
        return original(problem, mapping, options)

    monkeypatch.setattr(judge_mod, "fluid_seconds", failing)
    res = search_candidates(comm, graph, machine, cands, refine=REFINE_TOP, judge="fluid")
    outcome = (res.error, res.judge, res.judge_why, res.index, res.objective_index, tuple(res.task_to_proc.tolist()))
    assert all_same(comm, outcome)
    if any(j["index"] % comm.size == 1 or j["index"] >= len(cands) for j in res.judged):
        assert res.judge is None and res.index == res.objective_index
        assert res.judge_why.startswith("the judge failed (judge: rank 1: RuntimeError: replay bug on rank 1)")
    # over budget anywhere: the objective's pick too
    monkeypatch.setattr(judge_mod, "fluid_seconds", original)
    cut = search_candidates(comm, graph, machine, cands, refine=REFINE_TOP, judge="fluid",
                            judge_options={"max_work": 1})
    assert cut.judge is None and cut.index == cut.objective_index and "passed its work budget (1)" in cut.judge_why
    assert all_same(comm, (cut.index, cut.judge_why))


@pytest.mark.mpi
def test_remap_reports_its_judge(comm):
    grid = grid_for(comm.size)
    new, rep = remap(comm, task_of(comm.rank, grid), neighbors=neighbors_of(comm.rank, grid), provider=SIM, report=True)
    try:
        assert all_same(comm, (rep.judge, rep.judge_why, repr(rep.judged), rep.objective_winner, rep.winner))
        # the objective's best 4, those tied with the 4th (up to 16 in all), and the default order
        assert rep.judge == "fluid" and 1 <= len(rep.judged) <= 17 and "judge: fluid replay" in rep.summary()
        assert sum(j["chosen_by"] == "objective" for j in rep.judged) <= 4
        assert all(j["chosen_by"] in ("objective", "tie", "default order") for j in rep.judged)
        assert rep.seconds["judge"] >= 0 and list(rep.seconds)[2] == "judge"
        assert rep.after <= rep.before  # the judge chooses among candidates no worse than the default
        # the headline: the default order's replayed step beside the winner's, the predicted change second
        default = next(j for j in rep.judged if j["index"] == 0)
        assert rep.default_simulated_s == default["simulated_s"] >= 0  # 0 on COMM_SELF: no message
        lines = rep.summary().splitlines()
        if rep.nothing_to_map:  # COMM_SELF: one rank on one node, every order alike, the report says so instead
            assert comm.size == 1 and lines[2].startswith("  nothing to map: the 1 rank runs on one node")
        elif rep.winner_index:
            winner = next(j for j in rep.judged if j["index"] == rep.winner_index)
            assert winner["simulated_s"] * (1 + JUDGE_TIE) < default["simulated_s"]
            assert lines[2].startswith(f"  replayed step: default {default['simulated_s']:.4g} s -> "
                                       f"{winner['simulated_s']:.4g} s (")
        else:
            assert lines[2].startswith(f"  replayed step: default {default['simulated_s']:.4g} s, no gain found: ")
        if not rep.nothing_to_map:
            assert lines[3].startswith("  predicted_time: default ") and "(predicted, " in lines[3]
    finally:
        new.Free()
    new, rep = remap(comm, task_of(comm.rank, grid), neighbors=neighbors_of(comm.rank, grid), provider=SIM,
                     metric="weighted_hops", report=True)
    try:
        assert rep.judge is None and "a metric was given" in rep.judge_why and "judge: none" in rep.summary()
    finally:
        new.Free()
    with pytest.raises(ValueError, match="judge: expected 'default', 'fluid' or None; got 'simulate'"):
        remap(comm, task_of(comm.rank, grid), provider=SIM, judge="simulate")


@functools.lru_cache(maxsize=1)
def frontier_demo_serial():
    """The README's Frontier demo input searched serially, as ``remap()`` searches it (geometric family, the
    default judge): (first-stage list, every candidate, winner index, judged rows, default replay, summary lines)."""
    import mpitaskmap
    from mpitaskmap.search.judge import judge_change

    graph, machine = minighost_input(FRONTIER)
    m = mpitaskmap.map(graph, machine, families="geometric")
    info = m.info
    return (info["candidate_list"][: info["candidates"] - info["refined"]], info["candidate_list"],
            info["candidate_index"], info["judged"], info["default_simulated_s"],
            judge_change("fluid", info["judged"], info["candidate_index"], info["metric"]))


@pytest.mark.mpi
def test_the_frontier_demo_search_keeps_the_default_order_as_the_serial_search_does(comm):
    """remap()'s MPI search on the demo's input (16 tasks on a simulated Frontier, any number of ranks):
    every shortlisted mapping replays as the default order does, which is kept, as map() keeps it."""
    from mpitaskmap.runtime.mpi_search import search_candidates
    from mpitaskmap.search.scoring import REFINE_TOP

    serial = frontier_demo_serial() if comm.rank == 0 else None
    first, every, index, judged, default_s, _ = comm.bcast(serial, root=0)
    assert index == 0 and judged[-1]["chosen_by"] == "default order"
    graph, machine = minighost_input(FRONTIER)
    res = search_candidates(comm, graph, machine, first, refine=REFINE_TOP, judge="default")
    assert res.error == "" and res.candidates == every and res.judge == "fluid"
    assert (res.index, res.objective_index) == (0, 5) and res.score == res.scores[0]
    assert [(j["index"], j["chosen_by"], j["simulated_s"], j["simulated_rank"]) for j in res.judged] == [
        (j["index"], j["chosen_by"], j["simulated_s"], j["simulated_rank"]) for j in judged]
    assert res.default_simulated_s == default_s == pytest.approx(1.44e-06, rel=1e-5)
    assert res.task_to_proc.tolist() == list(range(16))
    assert all_same(comm, (res.index, res.default_simulated_s, tuple(res.task_to_proc.tolist())))


@pytest.mark.mpi(min_size=16)
def test_remap_on_the_frontier_demo_keeps_the_default_order_no_gain_found(comm):
    """The README's dragonfly demo itself (``mpiexec -n 16 ... minighost.py --provider FRONTIER``): its
    remap() call keeps the default order and says "no gain found", in the serial search's words."""
    from mpi4py import MPI

    if comm.size != 16 or comm.size != MPI.COMM_WORLD.size or comm.rank != MPI.COMM_WORLD.rank:
        pytest.skip("the demo's job: the 16 world ranks in world order")
    coords, neighbors, weights = minighost_task(comm.rank)
    new, rep = remap(comm, coords, neighbors=neighbors, weights=weights, provider=FRONTIER, report=True)
    try:
        serial = frontier_demo_serial() if comm.rank == 0 else None  # the serial search once, not once per rank
        _, _, _, judged, default_s, (replayed, objective) = comm.bcast(serial, root=0)
        assert (rep.status, rep.winner_index, rep.winner) == ("identity", 0, "identity (default order)")
        assert rep.new_rank_of == list(range(16)) and new.rank == comm.rank
        assert rep.default_simulated_s == default_s and rep.objective_winner == "geometric tree T(1,2,0)"
        assert [(j["index"], j["simulated_s"]) for j in rep.judged] == [(j["index"], j["simulated_s"]) for j in judged]
        lines = rep.summary().splitlines()
        assert lines[2] == f"  {replayed} (221 candidates, 16 refined)"
        assert lines[2].startswith("  replayed step: default 1.44e-06 s, no gain found: ")
        assert lines[3] == f"  {objective}" and "(predicted, 32.5% lower)" in lines[3]
        assert all_same(comm, (rep.summary().split("  seconds:")[0], tuple(rep.new_rank_of)))
    finally:
        new.Free()


@pytest.mark.mpi
def test_a_failing_default_replay_leaves_the_objectives_pick_everywhere(comm, monkeypatch):
    """The default order's replay (on rank 0, which computed candidate 0) raises: every rank ends alike,
    with the objective's pick and the judge's failure as the reason."""
    import mpitaskmap.search.judge as judge_mod
    from mpitaskmap.runtime.mpi_search import search_candidates
    from mpitaskmap.search.scoring import REFINE_TOP

    first = frontier_demo_serial()[0] if comm.rank == 0 else None
    first = comm.bcast(first, root=0)
    graph, machine = minighost_input(FRONTIER)
    original = judge_mod.fluid_seconds

    def failing(problem, mapping, options):
        if mapping.task_to_proc.tolist() == list(range(16)):
            raise RuntimeError("default replay bug")
        return original(problem, mapping, options)

    monkeypatch.setattr(judge_mod, "fluid_seconds", failing)
    res = search_candidates(comm, graph, machine, first, refine=REFINE_TOP, judge="default")
    assert all_same(comm, (res.error, res.judge, res.judge_why, res.index, tuple(res.task_to_proc.tolist())))
    assert res.error == "" and res.judge is None and res.index == res.objective_index == 5
    assert res.judge_why.startswith("the judge failed (judge: rank 0: RuntimeError: default replay bug)")
    assert math.isnan(res.default_simulated_s)
