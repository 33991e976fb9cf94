"""remap(): agreement, validity, guard against the default, fault injection on one rank.

Run under ``mpiexec -n 4`` (and one oversubscribed size) with ``--with-mpi -m mpi``; the
tests are size-agnostic.  Every fault test checks that *all* ranks end the same way: after
the call returns or raises, a collective compares what each rank saw.
"""

import numpy as np
import pytest

from mpitaskmap import MappingError, TaskGraph, remap, evaluate
from mpitaskmap.families import geometric as geometric_family
from mpitaskmap.providers import Location, NetworkInfo, Provider, get_provider, machine_from_provider

pytestmark = pytest.mark.timeout(240)

SIM = "sim:titan:ppn=1,seed=2"


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


@pytest.fixture(params=["world", "dup", "reversed"])
def comm(request):
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    if request.param == "world":
        yield world
        return
    c = world.Dup() if request.param == "dup" else world.Split(0, world.size - 1 - world.rank)
    yield c
    c.Free()


def all_same(comm, value) -> bool:
    everyone = comm.allgather(value)
    return all(v == everyone[0] for v in everyone)


@pytest.mark.mpi
def test_remap_agrees_is_valid_and_never_worse_than_default(comm):
    grid = grid_for(comm.size)
    new, rep = remap(comm, task_of(comm.rank, grid), neighbors=neighbors_of(comm.rank, grid), provider=SIM, report=True)
    try:
        assert all_same(comm, (rep.status, rep.winner_index, rep.after, rep.before, tuple(rep.new_rank_of)))
        assert sorted(rep.new_rank_of) == list(range(comm.size))
        assert new.rank == rep.new_rank_of[comm.rank]
        assert rep.after <= rep.before
        assert rep.n_candidates > 1 and sum(rep.candidates_per_rank) == rep.n_candidates
        # the placement the new communicator realises has exactly the reported score
        from mpi4py import MPI

        world_rank = MPI.COMM_WORLD.rank
        task_to_world = np.array(new.allgather(world_rank))
        machine = machine_from_provider(get_provider(SIM), MPI.COMM_WORLD.size)
        graph = TaskGraph.from_neighbor_lists(
            [neighbors_of(r, grid) for r in range(comm.size)], coords=[task_of(r, grid) for r in range(comm.size)]
        )
        if comm.size == MPI.COMM_WORLD.size:
            assert evaluate(graph, machine, task_to_world, ["weighted_hops"])["weighted_hops"] == rep.after
        assert new.Get_name() == f"mpitaskmap:{SIM}"
    finally:
        new.Free()


@pytest.mark.mpi(min_size=4)
def test_remap_repairs_a_scattered_default():
    import math

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    n = comm.size
    # a line of tasks handed out with a stride: neighbours sit far apart on a line of routers
    stride = next(s for s in range(3, 2 * n + 3, 2) if math.gcd(s, n) == 1)
    task = (comm.rank * stride) % n
    new, rep = remap(comm, (float(task),), provider=f"sim:torus:dims={n},wrap=0", report=True)
    new.Free()
    assert rep.status == "remapped" and rep.after == 2 * (n - 1) < rep.before


@pytest.mark.mpi
@pytest.mark.parametrize("metric", ["average_hops", "latency"])
def test_other_metrics(metric):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    grid = grid_for(comm.size)
    new, rep = remap(comm, task_of(comm.rank, grid), provider=SIM, metric=metric, report=True)
    new.Free()
    assert rep.metric == metric and rep.after <= rep.before
    assert all_same(comm, (rep.winner_index, rep.after))


@pytest.mark.mpi
def test_cartcomm_gives_coordinates_and_neighbours():
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    cart = world.Create_cart(grid_for(world.size), periods=[False] * 3)
    new, rep = remap(cart, provider=SIM, report=True)
    assert rep.after <= rep.before and sorted(rep.new_rank_of) == list(range(world.size))
    new.Free()
    cart.Free()


@pytest.mark.mpi
def test_disable_env_returns_unchanged_duplicate(monkeypatch):
    from mpi4py import MPI

    monkeypatch.setenv("MPITASKMAP_DISABLE", "1")
    new, rep = remap(MPI.COMM_WORLD, (MPI.COMM_WORLD.rank,), provider=SIM, report=True)
    assert rep.status == "disabled" and new.rank == MPI.COMM_WORLD.rank
    assert MPI.Comm.Compare(new, MPI.COMM_WORLD) == MPI.CONGRUENT
    new.Free()


# -- faults on one rank: every rank must end the same way --------------------------------


class FailingProvider(Provider):
    """The sim provider, except that one rank cannot locate itself."""

    name = "failing"

    def __init__(self, bad_rank):
        super().__init__()
        self.inner = get_provider(SIM)
        self.bad_rank = bad_rank

    def locate(self, rank, size):
        if rank == self.bad_rank:
            raise RuntimeError("no coordinates on this node")
        return self.inner.locate(rank, size)

    def network(self, *, size=None):
        return self.inner.network(size=size)


def exploding_apply(original):
    """The geometric family's apply, raising on one MPI rank only (a mapper bug)."""

    def apply(candidate, problem, **kwargs):
        from mpi4py import MPI

        if MPI.COMM_WORLD.rank == 1:
            raise ZeroDivisionError("mapper bug on rank 1")
        return original(candidate, problem, **kwargs)

    return apply


def run_fault(fault, on_error):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    grid = grid_for(comm.size)
    coords = task_of(comm.rank, grid)
    kwargs = dict(provider=SIM, report=True, on_error=on_error)
    if fault == "nan" and comm.rank == 1:
        coords = (np.nan, 0.0, 0.0)
    if fault == "dims" and comm.rank == 1:
        coords = (1.0, 2.0)
    if fault == "provider":
        kwargs["provider"] = FailingProvider(bad_rank=1)
    if fault == "mapper":
        kwargs["candidates"] = [geometric_family.candidate("fz")] * comm.size
    if fault == "neighbor" and comm.rank == 1:
        kwargs["neighbors"] = [comm.size + 5]
    if fault == "neighbor" and comm.rank != 1:
        kwargs["neighbors"] = neighbors_of(comm.rank, grid)
    original = geometric_family.apply
    if fault == "mapper":
        geometric_family.apply = exploding_apply(original)
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


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_fault_on_one_rank_raises_the_same_error_everywhere(fault):
    from mpi4py import MPI

    outcome = run_fault(fault, "raise")
    assert all_same(MPI.COMM_WORLD, outcome)
    assert outcome[0] == "raised" and outcome[1].startswith(EXPECTED[fault])


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_fault_on_one_rank_with_identity_fallback(fault):
    from mpi4py import MPI

    outcome = run_fault(fault, "identity")
    assert all_same(MPI.COMM_WORLD, outcome)
    assert outcome[:2] == ("returned", "identity") and outcome[2].startswith(EXPECTED[fault]) and outcome[3]


def test_remap_on_comm_self_serial():
    from mpi4py import MPI

    new, rep = remap(MPI.COMM_SELF, (0.0, 0.0), provider="sim:torus:dims=2x2", report=True)
    assert new.size == 1 and rep.new_rank_of == [0] and rep.before == rep.after == 0.0
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

        def Bcast(self, *a, **k):
            self._count("Bcast")
            return super().Bcast(*a, **k)

        def Split(self, *a, **k):
            self._count("Split")
            return super().Split(*a, **k)

        def Dup(self, *a, **k):
            self._count("Dup")
            return super().Dup(*a, **k)

    CountingComm.calls = []
    return CountingComm(base)


@pytest.mark.mpi
def test_collective_count_does_not_grow_with_the_candidate_list():
    from mpi4py import MPI

    from mpitaskmap import candidate_list, torus_machine

    world = MPI.COMM_WORLD
    grid = grid_for(world.size)
    counts = []
    for n_cands in (1, 200):
        cands = (candidate_list(TaskGraph.stencil([4, 4, 4]), torus_machine([4, 4, 4]), rotate=False) * 40)[:n_cands]
        c = counting_comm(world)
        new = remap(c, task_of(world.rank, grid), provider=SIM, candidates=cands)
        new.Free()
        counts.append(list(type(c).calls))
    assert counts[0] == counts[1] == ["bcast", "allgather", "allgather", "Bcast", "Split"]


@pytest.mark.mpi
def test_search_candidates_spreads_work_and_matches_serial_best_of():
    from mpi4py import MPI

    from mpitaskmap import TaskGraph, best_of, candidate_list, titan_machine
    from mpitaskmap.runtime import search_candidates

    comm = MPI.COMM_WORLD
    machine = titan_machine(32, cores_per_node=4, seed=3)
    graph = TaskGraph.stencil([8, 4, 4])  # 128 tasks, independent of the number of ranks
    cands = candidate_list(graph, machine, include_identity=True, orderings=["fz", "z"])
    res = search_candidates(comm, graph, machine, cands)
    serial = best_of(graph, machine, cands)
    assert res.error == "" and res.index == serial.index and res.score == serial.score
    assert res.scores == serial.scores
    assert np.array_equal(res.task_to_proc, serial.mapping.task_to_proc)
    per = res.candidates_per_rank
    assert sum(per) == len(cands) and max(per) - min(per) <= 1


@pytest.mark.mpi
def test_remap_searches_graph_and_grid_families_in_one_list():
    from mpi4py import MPI

    from mpitaskmap import candidate_list
    from mpitaskmap.providers import get_provider, machine_from_provider

    comm = MPI.COMM_WORLD
    a, b = MPI.Compute_dims(comm.size, 2)
    spec = f"sim:torus:dims={a}x{b},wrap=0"
    x, y = comm.rank % a, comm.rank // a
    nbrs = [r for r in range(comm.size) if abs(r % a - x) + abs(r // a - y) == 1]
    new, rep = remap(comm, (x, y), neighbors=nbrs, provider=spec, families=("geometric", "graph", "grid"),
                     rotate=False, report=True)
    new.Free()
    machine = machine_from_provider(get_provider(spec), comm.size)
    graph = TaskGraph.stencil([a, b])  # the same graph remap builds from the neighbour lists
    expected = candidate_list(graph, machine, families=["geometric", "graph", "grid"], rotate=False)
    assert rep.n_candidates == 1 + len(expected)
    assert {(c.family, c.method) for c in expected} >= {("geometric", "mj"), ("graph", "greedy+uwh"),
                                                        ("graph", "geometric+uwh")}
    assert any(c.family == "grid" for c in expected) == (min(a, b) > 1)
    assert all_same(comm, (rep.winner_index, rep.after))
    assert rep.after == rep.before  # the default order is already optimal on a matching mesh
