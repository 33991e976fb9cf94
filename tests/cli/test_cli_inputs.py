"""The command line's task inputs (mpitaskmap/cli/_inputs.py): recordings and Open MPI's monitoring files.

``-t PATH`` with ``PATH.json`` beside it and ``-t recording:PATH`` read a recording as one round
of the run (mpitaskmap/graphs/recording.py), and say its totals and rounds on the tasks line;
``-t matrix:PATH`` keeps reading the file as a plain matrix; ``-t ompi-monitoring:PREFIX`` reads
Open MPI's files; ``map``, ``eval``, ``compare`` and ``launch --graph`` share the reader.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mpitaskmap.cli import main
from mpitaskmap.cli._inputs import load_tasks
from mpitaskmap.errors import InvalidInputError

SPEC = "sim:torus:dims=2,ppn=4"  # 2 nodes of 4 processors

#: The ring 0-4-1-5-2-6-3-7-0 of tests/cli/test_launch.py, recorded over 3 rounds: the heavy pairs
#: 30 bytes in 3 messages each way, the light ones (7-0, 5-2) 3 bytes in 3 messages.
RING = [(4, 0, 10), (1, 4, 10), (5, 1, 10), (2, 5, 1), (6, 2, 10), (3, 6, 10), (7, 3, 10), (0, 7, 1)]


def write_ring(tmp_path: Path, name: str = "traffic.mtx") -> Path:
    pairs = sorted({(a, b): w for x, y, w in RING for a, b in ((x, y), (y, x))}.items())
    path = tmp_path / name
    path.write_text("%%MatrixMarket matrix coordinate real general\n8 8 16\n"
                    + "".join(f"{a + 1} {b + 1} {3 * w}\n" for (a, b), w in pairs))
    Path(f"{path}.counts.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n8 8 16\n"
                                          + "".join(f"{a + 1} {b + 1} 3\n" for (a, b), _ in pairs))
    Path(f"{path}.json").write_text(json.dumps({"format": "mpitaskmap traffic recording", "version": 1, "ranks": 8,
                                                "nodes": 1, "ranks_per_node": 8, "mpi_library": "MPICH Version: 4.2",
                                                "duration_s": 0.5, "window": None}))
    return path


LINE = ("8 tasks, 16 messages, no coordinates; recorded 372 bytes in 48 messages between 16 pairs; 3 rounds (the "
        "most messages of a pair): one round = bytes / 3")


def test_a_path_with_a_sidecar_and_recording_path_read_one_round(tmp_path):
    path = write_ring(tmp_path)
    for spec in (str(path), f"recording:{path}"):
        ti = load_tasks(spec)
        assert ti.recording is not None and ti.recording.rounds == 3
        assert sorted(ti.graph.weights.tolist()) == [1.0] * 4 + [10.0] * 12
        assert ti.describe() == f"{spec}: {LINE}"


def test_matrix_path_keeps_reading_a_plain_matrix(tmp_path):
    path = write_ring(tmp_path)
    ti = load_tasks(f"matrix:{path}")  # the run's bytes as written, no rounds
    assert ti.recording is None and sorted(ti.graph.weights.tolist()) == [3.0] * 4 + [30.0] * 12
    assert ti.describe() == f"matrix:{path}: 8 tasks, 16 messages, no coordinates"
    plain = tmp_path / "plain.mtx"
    plain.write_text(path.read_text())  # no sidecar: a plain matrix by its first line
    assert load_tasks(str(plain)).recording is None and load_tasks(str(plain)).graph.weights.max() == 30.0


def test_ompi_monitoring_prefix(tmp_path):
    for r in range(2):
        Path(f"{tmp_path / 'mon'}.{r}.prof").write_text(
            f"# POINT TO POINT\nE\t{r}\t{1 - r}\t{40 * (r + 1)} bytes\t4 msgs sent\t0,4\n"
            f"I\t{r}\t{1 - r}\t8 bytes\t2 msgs sent\n# OSC\n# COLLECTIVES\n")
    for spec in (f"ompi-monitoring:{tmp_path / 'mon'}", str(tmp_path / "mon")):
        ti = load_tasks(spec)
        assert ti.graph.weights.tolist() == [10.0, 20.0]
        assert ti.describe() == (f"{spec}: 2 tasks, 2 messages, no coordinates; recorded 120 bytes in 8 messages "
                                 "between 2 pairs; 4 rounds (the most messages of a pair): one round = bytes / 4; "
                                 "left out: I 16 bytes in 4 messages")


def test_errors_name_the_file_and_line_through_the_command_line(tmp_path, capsys):
    path = write_ring(tmp_path)
    Path(f"{path}.counts.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n8 8 1\n9 1 3\n")
    with pytest.raises(InvalidInputError, match=r"counts\.mtx:3: index outside 1\.\.8"):
        load_tasks(str(path))
    assert main(["eval", "-m", SPEC, "-t", str(path)]) == 1
    assert capsys.readouterr().err == (f"mpitaskmap eval: error: {path}.counts.mtx:3: index outside 1..8 (the size "
                                       "line's); got '9 1 3'\n")


def test_eval_and_compare_say_the_rounds_and_compare_leaves_geometric_out(tmp_path, capsys):
    path = write_ring(tmp_path)
    assert main(["eval", "-m", SPEC, "-t", str(path)]) == 0
    assert f"tasks    {path}: {LINE}\n" in capsys.readouterr().err
    assert main(["compare", "-m", SPEC, "-t", str(path)]) == 0
    out, err = capsys.readouterr()
    assert ("geometric left out of the default methods: the tasks have no coordinates (--task-coords PATH gives "
            "them)\n") in err
    assert [line.split()[0] for line in out.splitlines()[1:3]] == ["identity", "greedy+uwh"]
    # map's default method is auto for tasks without coordinates (geometric needs them)
    assert main(["map", "-m", SPEC, "-t", str(path), "-o", str(tmp_path / "map.csv")]) == 0
    out, err = capsys.readouterr()
    assert "method   auto (the default for tasks without coordinates; geometric needs them)\n" in err
    assert out.splitlines()[2].split()[0] == "auto"
    # the ring is no grid: auto says its geometric candidates are left out
    assert "  no task coordinates (the traffic is not a regular grid: geometric candidates left out)\n" in err


def test_map_of_a_recorded_grid_takes_the_grids_coordinates(tmp_path, capsys):
    # a 4x2 stencil recorded over 2 rounds: auto maps it with the grid's coordinates and says so
    from mpitaskmap import TaskGraph

    g = TaskGraph.stencil([4, 2], weight=64.0)
    src = g.sources()
    path = tmp_path / "grid.mtx"
    path.write_text(f"%%MatrixMarket matrix coordinate real general\n8 8 {g.n_edges}\n"
                    + "".join(f"{a + 1} {b + 1} 128\n" for a, b in zip(src, g.indices)))
    Path(f"{path}.counts.mtx").write_text(f"%%MatrixMarket matrix coordinate integer general\n8 8 {g.n_edges}\n"
                                          + "".join(f"{a + 1} {b + 1} 2\n" for a, b in zip(src, g.indices)))
    Path(f"{path}.json").write_text(json.dumps({"format": "mpitaskmap traffic recording", "version": 1, "ranks": 8}))
    assert main(["map", "-m", SPEC, "-t", str(path), "-o", str(tmp_path / "map.csv")]) == 0
    err = capsys.readouterr().err
    assert "  task coordinates from the regular 2-D grid 4x2 the traffic forms (rank r at (r % 4, r // 4))\n" in err


def test_launch_reads_the_recording_through_the_same_reader(tmp_path, capsys, monkeypatch):
    # the recorded ring maps as tests/cli/test_launch.py's matrix does: {0, 1, 4, 5} and {2, 3, 6, 7}
    monkeypatch.chdir(tmp_path)
    path = write_ring(tmp_path)
    srun = tmp_path / "srun"
    srun.write_text("#!/bin/sh\nexit 0\n")
    srun.chmod(0o755)
    assert main(["launch", "--graph", str(path), "-m", SPEC, "--dir", "d", "--dry-run", "--", str(srun), "-n", "8",
                 "./app"]) == 0
    hostfile = tmp_path / "d" / f"slurm_hostfile.{os.getpid()}"
    assert hostfile.read_text().split() == ["node0", "node0", "node1", "node1", "node0", "node0", "node1", "node1"]
    assert capsys.readouterr().err == ""
