"""Serial and MPI search cannot drift: ``map(g, m, "auto")`` and ``remap()``'s search agree exactly.

A cross-cutting concern, not one module's test: the search is written once, in the search
engine (:func:`mpitaskmap.search.engine.run`: the two stages and the judge stage), and run by
two executors: the serial one (:class:`~mpitaskmap.search.serial.SerialExecutor`) for
:func:`mpitaskmap.map` and :func:`~mpitaskmap.best_of`, the MPI one
(:class:`~mpitaskmap.runtime.mpi_search.MPIExecutor`: the candidates spread over the ranks, one
``allgather`` per stage, the judge's replays spread too) for :func:`~mpitaskmap.remap`.  Every
test here records the engine's runs and checks that ``map()`` ran it on the serial executor,
``remap()``'s search on the MPI one, with equal requests (candidates, objective, stages, judge
and its options).  On every input below both must return

* the same winner (index, label and mapping) and the same objective pick;
* the same candidate list, both stages, with the same scores, bit for bit (``float.hex``);
* the same judge shortlist: the judged rows (``index``, ``candidate``, objective ``score``,
  replayed ``simulated_s``, ``chosen_by``, both ranks) and the default order's replay
  ``default_simulated_s``, bit for bit; the same judge and reason.

``map()`` does not return its scores, so the serial scores are those of the public serial
:func:`~mpitaskmap.best_of` over ``map()``'s own first-stage list with ``map``'s second stage
(``refine=REFINE_TOP``), checked to reproduce ``map()``'s candidate list and objective pick.
Where no judge runs, ``map()``'s info has no ``judged`` / ``default_simulated_s`` keys and
the MPI search reports ``[]`` / nan: the same thing.

The ten inputs (:data:`INPUTS`) are searched with the families ``map(g, m, "auto")`` searches
by default (:func:`~mpitaskmap.search.scoring.families_for`; ``remap()`` is given the same
``families``), through :func:`~mpitaskmap.runtime.mpi_search.search_candidates`, the search
``remap()`` runs, on the world communicator: ``remap()`` on P ranks maps P tasks, and these
inputs have their own sizes whatever ``mpiexec -n`` is.  The machines are those the providers
assemble for a job of that size, as ``remap()`` assembles them.

* Small (16 to 256 tasks): the README's two demos (16 tasks on a simulated Titan torus and on
  a simulated Frontier dragonfly), a 4:1 two-level fat tree, an Aries dragonfly, PERCS (the
  smallest system, one supernode of 128 processors, and two supernodes with two D links:
  a PERCS job is the whole system, so no PERCS input has fewer than 128 tasks) and a flat
  machine from host names only.
* Large (4,096 tasks): the torus, the fat tree and the flat machine, at 3 to 9 s a test under
  ``mpiexec -n 16`` on two cores.  The 4,096-task dragonflies (``sim:aries:ppn=16``,
  ``sim:frontier:ppn=8``) and PERCS (``ns=32``) agree too, but cost 15 to 26 s a test there
  (their serial search alone 2.7 to 5.3 CPU seconds, run twice here, ``map`` and ``best_of``),
  which would double this file's time in every MPI run of the suite: they are left out.

:data:`OUTCOMES` pins how each input's search ends, so the ten keep covering every ending: the
judge keeping the objective's pick, keeping the default order, taking another mapping, a
replay past its budget, and no judge.

The drift this test found, when the two searches were two implementations: with a replay past
its budget (``fattree-4096-4to1``), the serial judge stops replaying there
(:func:`~mpitaskmap.search.judge.replay_in_turn`) and its later rows say nan, while the other MPI
ranks replayed their own shares, so their rows had times (and which ones depended on the number
of ranks).  The winner was the same (the objective's pick); the shortlist rows were not.
:func:`~mpitaskmap.search.judge.judge_stage`, the engine's judge stage, keeps no time after the
first replay past its budget in shortlist order.

:func:`test_remap_reports_what_map_finds` goes through ``remap()`` itself (``report=True``)
on P tasks (a 3-D stencil over ``MPI.Compute_dims(P, 3)``) on five providers and compares
its :class:`~mpitaskmap.runtime.report.RemapReport` with ``map()``'s info.

Run under ``mpiexec -n 4`` and ``-n 16`` with ``--with-mpi -m mpi``.  The serial search runs
once, on rank 0, while the other ranks wait asleep (:func:`on_root`), not spinning in a
collective: oversubscribed, a spinning rank takes the CPU rank 0 needs.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time

import numpy as np
import pytest
from demo_inputs import FACE_BYTES, FRONTIER, TITAN, minighost_input
from mpi_helpers import all_same

import mpitaskmap
from mpitaskmap import TaskGraph, best_of, candidate_list, remap
from mpitaskmap.providers import Location, NetworkInfo, Provider, assemble_machine, get_provider
from mpitaskmap.providers.hostname import FLAT_NETWORK
from mpitaskmap.search import engine
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.scoring import REFINE_TOP, families_for

#: A 4:1 tapered two-level fat tree: 8 leaves of 4 nodes, 2 ranks a node.
FATTREE_SMALL = "sim:fattree:leaves=8,nodes_per_leaf=4,taper=4,levels=2,ppn=2,seed=1"
#: The same taper at 4,096 ranks: 32 leaves of 16 nodes, 16 ranks a node.
FATTREE_LARGE = "sim:fattree:leaves=32,nodes_per_leaf=16,taper=4,levels=2,ppn=16,seed=1"
#: Titan at 4,096 ranks, 16 a node.
TITAN_LARGE = "sim:titan:ppn=16,seed=2"
#: An Aries dragonfly, 2 ranks a node.
ARIES = "sim:aries:ppn=2,seed=1"


class HostsProvider(Provider):
    """Host names only (``host000``, ``host001``, ...; ``ppn`` consecutive ranks a host): the
    flat network of the ``hostname`` provider, for a job spread over several hosts."""

    name = "hosts"

    def __init__(self, ppn: int) -> None:
        super().__init__()
        self.ppn = ppn

    def locate(self, rank: int, size: int) -> Location:
        """Rank ``rank``'s host, no coordinates."""
        return Location((), f"host{rank // self.ppn:03d}")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """The flat (node-only) network."""
        return FLAT_NETWORK


def provider_machine(provider: str | Provider, n: int):
    """The machine ``remap()`` assembles for a job of ``n`` ranks located by ``provider``."""
    p = provider if isinstance(provider, Provider) else get_provider(provider)
    # named as remap() names it: the judge's reasons quote the name
    return assemble_machine([p.locate(r, n) for r in range(n)], p.network(size=n), name=f"{p.spec} ({n} ranks)")


def stencil_input(provider: str | Provider, shape: tuple):
    """A 7-point stencil over ``shape`` (messages of the demo's face bytes) on ``provider``'s machine."""
    return TaskGraph.stencil(shape, weight=FACE_BYTES), provider_machine(provider, int(np.prod(shape)))


#: The ten inputs: name -> builder of (task graph, machine).
INPUTS = {
    "torus-16-titan-demo": functools.partial(minighost_input, TITAN),
    "torus-4096-titan": functools.partial(stencil_input, TITAN_LARGE, (16, 16, 16)),
    "fattree-64-4to1": functools.partial(stencil_input, FATTREE_SMALL, (4, 4, 4)),
    "fattree-4096-4to1": functools.partial(stencil_input, FATTREE_LARGE, (16, 16, 16)),
    "dragonfly-16-frontier-demo": functools.partial(minighost_input, FRONTIER),
    "dragonfly-64-aries": functools.partial(stencil_input, ARIES, (4, 4, 4)),
    "percs-128-ns1-nd1": functools.partial(stencil_input, "sim:percs:ns=1,nd=1", (8, 4, 4)),
    "percs-256-ns2-nd2": functools.partial(stencil_input, "sim:percs:ns=2,nd=2", (8, 8, 4)),
    "flat-64-hosts": functools.partial(stencil_input, HostsProvider(4), (4, 4, 4)),
    "flat-4096-hosts": functools.partial(stencil_input, HostsProvider(16), (16, 16, 16)),
}

#: How each input's winner is chosen, so the ten cover every way the search can end: (judge,
#: winner index, the objective's pick).  The fluid judge keeps the objective's pick (torus,
#: small fat tree, one PERCS supernode), keeps the default order ("no gain found": the Frontier
#: demo), or takes another shortlisted mapping (Aries, two PERCS supernodes); a replay past its
#: budget leaves the objective's pick (the 4,096-task fat tree); no judge on a machine without
#: routed links (flat).
#: Replay budgets set for an input (``FLUID_JUDGE_MAX_WORK_RESOLVED``, the default judge's budget
#: above 10,000 edges): ``fattree-4096-4to1`` keeps the ending "a replay past its budget" covered,
#: which the 1% replays of a 4,096-rank search no longer reach with the default budget.
BUDGETS = {"fattree-4096-4to1": 1_000_000}

OUTCOMES = {
    "torus-16-titan-demo": ("fluid", 1, 1),
    "torus-4096-titan": ("fluid", 633, 633),
    "fattree-64-4to1": ("fluid", 1, 1),
    "fattree-4096-4to1": (None, 43, 43),
    "dragonfly-16-frontier-demo": ("fluid", 0, 5),
    "dragonfly-64-aries": ("fluid", 214, 0),
    "percs-128-ns1-nd1": ("fluid", 1, 1),
    "percs-256-ns2-nd2": ("fluid", 531, 1),
    "flat-64-hosts": (None, 1, 1),
    "flat-4096-hosts": (None, 1, 1),
}

#: The providers of the remap() test (P ranks, P tasks): every network kind a job of 4 or 16
#: ranks can have (PERCS cannot: a PERCS job is the whole system, 128 ranks at least).
REMAP_PROVIDERS = {
    "torus": TITAN,
    "fattree": FATTREE_SMALL,
    "dragonfly-frontier": FRONTIER,
    "dragonfly-aries": ARIES,
    "flat": HostsProvider(2),
}


def exact(value):
    """``value`` with every float written as ``float.hex`` (bit-exact, nan and inf included)."""
    if isinstance(value, float):
        return float.hex(float(value))
    if isinstance(value, dict):
        return {k: exact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [exact(v) for v in value]
    return value


def on_root(comm, compute):
    """``compute()`` on rank 0 only, its result on every rank.

    The other ranks wait in an ``Ibarrier`` polled with sleeps, not in a blocking
    collective, which MPICH and Open MPI serve by spinning: oversubscribed, 15 spinning
    ranks would take most of the CPU rank 0 computes on.
    """
    value = compute() if comm.rank == 0 else None
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(0.005)
    return comm.bcast(value, root=0)


def serial_search(graph: TaskGraph, machine) -> dict:
    """What ``map(graph, machine, "auto")`` finds, with its candidates' scores (:func:`view`'s keys)."""
    m = mpitaskmap.map(graph, machine, "auto")
    info = m.info
    n_first = info["candidates"] - info["refined"]
    again = best_of(Problem(graph, machine), None, info["candidate_list"][:n_first], refine=REFINE_TOP)
    objective_winner = info.get("objective_winner", info["candidate"])  # no judge: the objective's pick won
    # best_of is map()'s search: the same list and pick, so its scores are map()'s
    assert again.candidates == info["candidate_list"]
    assert again.candidates[again.index].label() == objective_winner
    return view(candidates=info["candidate_list"], n_refined=info["refined"], scores=again.scores,
                index=info["candidate_index"],
                objective_winner=objective_winner, task_to_proc=m.task_to_proc, judge=info["judge"],
                judge_why=info["judge_why"], judged=info.get("judged", []),
                default_simulated_s=info.get("default_simulated_s", math.nan))


def view(*, candidates, n_refined, scores, index, objective_winner, task_to_proc, judge, judge_why, judged,
         default_simulated_s) -> dict:
    """One search's outcome in comparable form (floats bit-exact)."""
    return {
        "winner": (index, candidates[index].label()),
        "objective winner": objective_winner,
        "candidates": [c.label() for c in candidates],
        "candidate objects": candidates,
        "refined": n_refined,
        "scores": exact(list(scores)),
        "mapping": [int(p) for p in task_to_proc],
        "judge": (judge, judge_why),
        "judged": exact(judged),
        "default_simulated_s": exact(default_simulated_s),
    }


def assert_same(mpi: dict, serial: dict, keys=None) -> None:
    """Every key of ``serial`` (or ``keys``) equal in ``mpi``, named on failure."""
    for key in keys or serial:
        assert mpi[key] == serial[key], f"{key}: the MPI search differs from map()"


@pytest.fixture
def engine_runs(monkeypatch):
    """Every run of the search engine in this test, as ``(executor class name, request)``."""
    runs = []
    real = engine.run

    def record(request, executor):
        runs.append((type(executor).__name__, request))
        return real(request, executor)

    monkeypatch.setattr(engine, "run", record)
    return runs


def what_is_searched(request: engine.SearchRequest) -> dict:
    """A request without its problem (each side builds its own from equal data)."""
    return {f.name: getattr(request, f.name) for f in dataclasses.fields(request) if f.name != "problem"}


def assert_one_engine(comm, runs: list) -> None:
    """The MPI search ran the engine on the MPI executor (its last run, on every rank); on rank 0
    map()'s search (the first run) ran it on the serial executor, with an equal request."""
    assert runs[-1][0] == "MPIExecutor"
    if comm.rank == 0:
        assert [name for name, _ in runs] == ["SerialExecutor", "SerialExecutor", "MPIExecutor"]  # map, best_of, MPI
        assert what_is_searched(runs[0][1]) == what_is_searched(runs[-1][1])


@pytest.mark.mpi
@pytest.mark.parametrize("name", INPUTS)
def test_the_mpi_search_finds_what_map_finds(name, engine_runs, monkeypatch):
    """remap()'s search (``search_candidates``, the default judge, ``REFINE_TOP`` refined) on the
    world communicator, given the candidate list of map()'s default families: the one engine on
    the MPI executor, with map()'s request."""
    from mpi4py import MPI

    from mpitaskmap.runtime.mpi_search import search_candidates

    from mpitaskmap.search import judge as judge_module

    world = MPI.COMM_WORLD
    if name in BUDGETS:
        monkeypatch.setattr(judge_module, "FLUID_JUDGE_MAX_WORK_RESOLVED", BUDGETS[name])
    graph, machine = INPUTS[name]()
    serial = on_root(world, lambda: serial_search(graph, machine))
    problem = Problem(graph, machine)
    first = candidate_list(problem, families=families_for(problem), include_identity=True)
    res = search_candidates(world, graph, machine, first, refine=REFINE_TOP, judge="default")
    assert res.error == ""
    mpi = view(candidates=res.candidates, n_refined=res.n_refined, scores=res.scores, index=res.index,
               objective_winner=res.candidates[res.objective_index].label(), task_to_proc=res.task_to_proc,
               judge=res.judge, judge_why=res.judge_why, judged=res.judged,
               default_simulated_s=res.default_simulated_s)
    assert_same(mpi, serial)
    assert all_same(world, (mpi["winner"], mpi["scores"], mpi["judged"]))
    assert (res.judge, res.index, res.objective_index) == OUTCOMES[name]
    if name in BUDGETS:  # the budget is what ended it
        assert "passed its work budget (1,000,000)" in res.judge_why
    assert_one_engine(world, engine_runs)


@pytest.mark.mpi
@pytest.mark.parametrize("kind", REMAP_PROVIDERS)
def test_remap_reports_what_map_finds(kind, engine_runs):
    """remap() itself, P ranks running the P tasks of a stencil over ``Compute_dims(P, 3)``, with
    the families map() searches by default: its report says what map()'s info says, from the
    one engine on the MPI executor, with map()'s request."""
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    provider = REMAP_PROVIDERS[kind]
    graph = TaskGraph.stencil(MPI.Compute_dims(world.size, 3), weight=FACE_BYTES)
    machine = provider_machine(provider, world.size)
    serial = on_root(world, lambda: serial_search(graph, machine))
    r = world.rank
    lo, hi = graph.indptr[r], graph.indptr[r + 1]
    new, rep = remap(world, graph.coords[r], neighbors=graph.indices[lo:hi], weights=graph.weights[lo:hi],
                     provider=provider, families=families_for(Problem(graph, machine)), report=True)
    try:
        assert rep.error == ""
        # the report holds the list's length, the scores of the default order and of the winner, the rows
        mpi = {
            "winner": (rep.winner_index, rep.winner),
            "objective winner": rep.objective_winner,
            "candidates": rep.n_candidates,
            "refined": rep.n_refined,
            "scores": [exact(rep.before), exact(rep.after)],
            # new rank t is the process of task t, the serial task_to_proc[t]
            "mapping": np.argsort(rep.new_rank_of).tolist(),
            "judge": (rep.judge, rep.judge_why),
            "judged": exact(rep.judged),
            "default_simulated_s": exact(rep.default_simulated_s),
        }
        scores = serial["scores"]
        expected = {**serial, "candidates": len(serial["candidates"]),
                    "scores": [scores[0], scores[serial["winner"][0]]]}
        assert_same(mpi, expected, keys=mpi)
        assert new.rank == serial["mapping"].index(r)
        assert_one_engine(world, engine_runs)
    finally:
        new.Free()
