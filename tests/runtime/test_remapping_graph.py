"""remap(comm, graph=...): the whole task graph, from a recording file or a TaskGraph.

Run under ``mpiexec -n 4`` (and -n 16) with ``--with-mpi -m mpi`` on the ``comm`` fixture's
communicators.  Rank 0 of the communicator reads a file and sends each rank its row; a file it
cannot read, or a graph of another size, is the same MappingError on every rank (checked by a
collective after the call), or with on_error="identity" the unchanged order everywhere.
"""

import json
import os
import shutil
import tempfile

from mpi_helpers import SIM, all_same, comm_machine

import numpy as np
import pytest

from mpitaskmap import MappingError, TaskGraph, evaluate, remap
from mpitaskmap.graphs.recording import read_recording

pytestmark = pytest.mark.timeout(240)


def ring_pairs(n: int) -> dict:
    """r sends 3 messages of (r + 1) * 100 bytes to r + 1 (a ring recorded over 3 rounds); {(s, r): (bytes, msgs)}."""
    return {} if n < 2 else {(r, (r + 1) % n): (3 * 100 * (r + 1), 3) for r in range(n)}


def write_recording(folder: str, n: int, pairs: dict, name: str = "traffic.mtx") -> str:
    path = os.path.join(folder, name)
    keys = sorted(pairs)
    with open(path, "w") as fh:
        fh.write(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {len(keys)}\n")
        fh.writelines(f"{s + 1} {r + 1} {pairs[s, r][0]}\n" for s, r in keys)
    with open(f"{path}.counts.mtx", "w") as fh:
        fh.write(f"%%MatrixMarket matrix coordinate integer general\n{n} {n} {len(keys)}\n")
        fh.writelines(f"{s + 1} {r + 1} {pairs[s, r][1]}\n" for s, r in keys)
    with open(f"{path}.json", "w") as fh:
        json.dump({"format": "mpitaskmap traffic recording", "version": 1, "ranks": n}, fh)
    return path


@pytest.fixture
def folder(comm):
    """A folder rank 0 of comm made (only rank 0 reads the files); removed after the test."""
    made = tempfile.mkdtemp(prefix="remap_graph_") if comm.rank == 0 else None
    made = comm.bcast(made, root=0)
    yield made
    comm.Barrier()
    if comm.rank == 0:
        shutil.rmtree(made, ignore_errors=True)


def outcome(comm, **kwargs):
    """How remap(comm, provider=SIM, report=True, **kwargs) ended on this rank."""
    try:
        new, rep = remap(comm, provider=SIM, report=True, **kwargs)
    except MappingError as exc:
        return ("raised", str(exc))
    out = ("returned", rep.status, rep.error, new.rank == comm.rank)
    new.Free()
    return out


@pytest.mark.mpi
def test_a_recording_file_maps_its_one_round_graph(comm, folder):
    path = None
    if comm.rank == 0:
        path = write_recording(folder, comm.size, ring_pairs(comm.size))
    path = comm.bcast(path, root=0)
    new, rep = remap(comm, graph=path, provider=SIM, report=True)
    try:
        assert all_same(comm, (rep.status, rep.winner_index, rep.after, tuple(rep.new_rank_of)))
        assert sorted(rep.new_rank_of) == list(range(comm.size)) and new.rank == rep.new_rank_of[comm.rank]
        # the score is the one of the recording's graph of one round (weights (r + 1) * 100, not the
        # run's 3 * (r + 1) * 100), without coordinates, on comm's ranks' machine
        one_round = TaskGraph.from_edges([s for s, _ in ring_pairs(comm.size)], [r for _, r in ring_pairs(comm.size)],
                                         [100.0 * (s + 1) for s, _ in ring_pairs(comm.size)], n_tasks=comm.size)
        task_to_proc = np.array(new.allgather(comm.rank))
        machine = comm_machine(comm, SIM)
        assert rep.after == evaluate(one_round, machine, task_to_proc, ["predicted_time"])["predicted_time"]
        # a ring of 3 or more is a 1-D grid: the recording's tasks take its coordinates, and the report
        # says so; two ranks are no grid to the analyser (the root's pair is set aside)
        if comm.size >= 3:
            assert rep.task_coords == (f"task coordinates from the regular 1-D grid {comm.size} the traffic forms "
                                       "(rank r at (r))")
        elif comm.size == 2:
            assert rep.task_coords == ("no task coordinates (the traffic is not a regular grid: geometric candidates "
                                       "left out)")
        else:  # one task: nothing to say
            assert rep.task_coords == "" and "tasks:" not in rep.summary()
        if rep.task_coords:
            assert f"\n  tasks: {rep.task_coords}\n" in rep.summary()
    finally:
        new.Free()
    # the same graph given as a TaskGraph (every rank its own): the same choice
    graph = read_recording(path).graph if comm.rank == 0 else None
    again = remap(comm, graph=comm.bcast(graph, root=0), provider=SIM, report=True)
    again[0].Free()
    assert again[1].new_rank_of == rep.new_rank_of and again[1].after == rep.after


@pytest.mark.mpi
@pytest.mark.parametrize("fault", ["size", "bad line", "missing"])
def test_a_graph_rank_0_cannot_use_is_the_same_error_on_every_rank(comm, folder, fault):
    path = None
    if comm.rank == 0:
        n = comm.size + (1 if fault == "size" else 0)
        path = write_recording(folder, n, ring_pairs(n))
        if fault == "bad line":
            with open(path, "a") as fh:
                fh.write(f"1 {n + 1} 5\n")  # line 3 + n entries + 1
        if fault == "missing":
            os.remove(f"{path}.counts.mtx")
            os.remove(f"{path}.json")
            os.remove(path)
    path = comm.bcast(path, root=0)
    n_entries = len(ring_pairs(comm.size))
    want = {"size": f"task: rank 0: ValueError: graph {path}: {comm.size + 1} tasks but the communicator has "
                    f"{comm.size} ranks",
            "bad line": f"task: rank 0: ValueError: graph: InvalidInputError: {path}:{3 + n_entries}: index outside "
                        f"1..{comm.size}",
            "missing": f"task: rank 0: ValueError: graph: InvalidInputError: {path}: no such task-graph file"}[fault]
    raised = outcome(comm, graph=path)
    assert all_same(comm, raised) and raised[0] == "raised" and raised[1].startswith(want), raised
    kept = outcome(comm, graph=path, on_error="identity")
    assert all_same(comm, kept) and kept[:2] == ("returned", "identity") and kept[2].startswith(want) and kept[3]


def test_graph_with_neighbors_or_of_another_type_is_refused_before_communicating():
    from mpi4py import MPI

    with pytest.raises(ValueError, match="graph: give the whole task graph or this rank's neighbors and weights"):
        remap(MPI.COMM_SELF, graph="traffic.mtx", neighbors=[0])
    with pytest.raises(TypeError, match="graph: expected a path or a TaskGraph; got list"):
        remap(MPI.COMM_SELF, graph=[[0, 1]])
