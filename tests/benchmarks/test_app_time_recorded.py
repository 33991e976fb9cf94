"""benchmarks/app_time_recorded.py: the recording's check against the declared graph, the rows' mappings, the verdicts."""

import argparse

import numpy as np
import pytest

from mpitaskmap.graphs.recording import read_recording
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks import app_time_recorded as bench
from benchmarks.harness import platforms
from benchmarks.harness.smpi import CaseRuns, app_case, build_halo3d


def _write_recording(path, graph: TaskGraph, rounds: int) -> None:
    """A recorder's three files for ``graph`` sent ``rounds`` times (one message per edge and round)."""
    src = np.repeat(np.arange(graph.n_tasks), np.diff(graph.indptr))
    n, nnz = graph.n_tasks, graph.n_edges
    with open(path, "w") as fh:
        fh.write(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {nnz}\n")
        for a, b, w in zip(src, graph.indices, graph.weights):
            fh.write(f"{a + 1} {b + 1} {w * rounds:.0f}\n")
    with open(f"{path}.counts.mtx", "w") as fh:
        fh.write(f"%%MatrixMarket matrix coordinate integer general\n{n} {n} {nnz}\n")
        for a, b in zip(src, graph.indices):
            fh.write(f"{a + 1} {b + 1} {rounds}\n")


def test_platform_specs_are_the_other_studies():
    assert bench.platform_spec(bench.FATTREE4, 512, 8, 1) == platforms.fattree_spec(512, 8, 1, 4)
    assert bench.platform_spec(bench.FRONTIER, 512, 8, 1) == "sim:frontier:nodes=64,ppn=8,seed=1"
    with pytest.raises(SystemExit, match="unknown 'torus'"):
        bench.platform_spec("torus", 512, 8, 1)


def test_a_recording_of_the_declared_pattern_is_accepted_and_its_round_compared(tmp_path):
    declared = TaskGraph.stencil((4, 2, 2), weight=2560.0, periodic=False)
    _write_recording(tmp_path / "t.mtx", declared, rounds=3)
    line = bench.check_recording(read_recording(tmp_path / "t.mtx"), declared)
    assert "16 ranks" in line and "3 rounds" in line and "min 1, max 1" in line
    half = TaskGraph.stencil((4, 2, 2), weight=1280.0, periodic=False)
    assert "min 2, max 2" in bench.check_recording(read_recording(tmp_path / "t.mtx"), half)


def test_a_recording_of_another_grid_is_refused(tmp_path):
    _write_recording(tmp_path / "t.mtx", TaskGraph.stencil((2, 4, 2), weight=8.0, periodic=False), rounds=1)
    with pytest.raises(SystemExit, match=r"not halo3d's on this grid \(\d+ more, \d+ missing\)"):
        bench.check_recording(read_recording(tmp_path / "t.mtx"), TaskGraph.stencil((4, 2, 2), periodic=False))
    with pytest.raises(SystemExit, match="16 ranks; the study runs 8"):
        bench.check_recording(read_recording(tmp_path / "t.mtx"), TaskGraph.stencil((2, 2, 2), periodic=False))


def test_each_row_maps_its_own_graph():
    machine = machine_from_spec(platforms.fattree_spec(64, 8, 1, 4), 64).machine
    declared = TaskGraph.stencil((4, 4, 4), weight=2560.0, periodic=False)
    # the recording without coordinates, as the recorder gives it
    recorded = TaskGraph(declared.indptr, declared.indices, declared.weights)
    ident, _ = bench.map_row("identity", declared, recorded, machine)
    assert ident.tolist() == list(range(64))
    packed, _ = bench.map_row(bench.NODE_PACKING, declared, recorded, machine)
    assert np.array_equal(packed, platforms.node_packing(declared, machine))
    rec, info = bench.map_row(bench.AUTO_RECORDED, declared, recorded, machine)
    dec, dinfo = bench.map_row(bench.AUTO_DECLARED, declared, recorded, machine)
    assert sorted(rec.tolist()) == list(range(64)) and sorted(dec.tolist()) == list(range(64))
    # the recording has no coordinates: its search takes the grid's its traffic forms, and so has the
    # declared graph's candidates and mapping
    assert info["candidate_list"] == dinfo["candidate_list"] and np.array_equal(rec, dec)
    assert info["task_coords"].startswith("task coordinates from the regular 3-D grid 4x4x4")
    assert "task_coords" not in dinfo
    with pytest.raises(SystemExit, match="unknown 'random'"):
        bench.map_row("random", declared, recorded, machine)


def _rows(platform, comm):
    return [{"platform": platform, "n": 512, "ppn": 8, "seed": 1, "method": m, "comm_s": c}
            for m, c in zip(bench.METHODS, comm)]


def test_verdicts_apply_the_three_targets():
    # identity 100, packing 80, recorded 55, declared 54: +1.9% (pass), -31.2% vs packing, -45% vs identity
    lines = bench.verdicts(_rows(bench.FATTREE4, [100.0, 80.0, 55.0, 54.0]))
    assert lines == ["fattree4 512 ranks ppn 8 seed 1: recorded vs declared +1.9% (PASS: within 2%)",
                     "fattree4 512 ranks ppn 8 seed 1: recorded vs node packing -31.2% (PASS: at least 10% below)",
                     "fattree4 512 ranks ppn 8 seed 1: recorded vs identity -45.0% (PASS: at least 30% below)"]
    # on the dragonfly no identity target; 2.1% off the declared and 9% below packing fail
    lines = bench.verdicts(_rows(bench.FRONTIER, [100.0, 60.0, 54.6, 53.475]))
    assert [l.split(": ", 1)[1] for l in lines] == ["recorded vs declared +2.1% (FAIL: within 2%)",
                                                    "recorded vs node packing -9.0% (FAIL: at least 10% below)"]
    lines = bench.verdicts(_rows(bench.FATTREE4, [100.0, 80.0, 71.0, 70.0]))
    assert lines[2].endswith("-29.0% (FAIL: at least 30% below)")
    assert bench.verdicts(_rows(bench.FRONTIER, [100.0, None, 50.0, 50.0])) == [
        "frontier 512 ranks ppn 8 seed 1: a run failed or was not made: no verdict"]


@pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))
def test_another_apps_runs_take_its_command_settings_and_simgrids_end_time(tmp_path):
    """--app-command: the program's own argv and SimGrid settings run; without a time line the figure is the end time."""
    args = argparse.Namespace(cells=4, vars=1, steps=1, latency=1e-7, timeout=300, keep=str(tmp_path))
    work, app = build_halo3d(args, "unused")
    machine = machine_from_spec(platforms.fattree_spec(64, 8, 1, 4), 64).machine
    program = [app, "4", "4", "4", "4", "4", "4", "1", "1"]
    own = app_case("own", {}, (4, 4, 4), machine, platforms.HOSTS, args, app, work, form="cluster")
    other = app_case("other", {}, (4, 4, 4), machine, platforms.HOSTS, args, "", work, program=program,
                     face_bytes=1000.0, config=["smpi/gather:ompi_binomial"], time_regex=None, form="cluster")
    assert set(other.graph.weights.tolist()) == {1000.0} and set(own.graph.weights.tolist()) == {128.0}
    ident = np.arange(64)
    run_own, _ = own.runs.run(ident, "identity")
    run_other, _ = other.runs.run(ident, "identity")
    assert run_own.error is None and run_other.error is None
    assert run_own.figure < run_own.simulated  # halo3d's max_comm_time, a part of the run
    assert run_other.figure == run_other.simulated
    assert other.runs.config == ("smpi/gather:ompi_binomial",) and own.runs.config == ()


def test_an_apps_own_time_from_its_file_is_the_figure_and_the_end_time_a_column(tmp_path, monkeypatch, capsys):
    """--time-file/--time-regex: the file the app writes is read after each run; SimGrid's end time a column."""
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "fake_smpirun"
    # a stand-in smpirun: SimGrid's end time on stderr, the app's own time in a file it writes
    script.write_text("#!/bin/sh\necho '[1] [smpi_utils/INFO] Simulated time: 0.5 seconds.' >&2\n"
                      "echo 'Total_time:  1.25E-04' > results.yaml\n")
    script.chmod(0o755)
    runs = CaseRuns(64, machine_from_spec(platforms.fattree_spec(64, 8, 1, 4), 64).machine, platforms.HOSTS,
                    "p.xml", ["./app"], str(tmp_path), "case", 60, time_regex=r"Total_time:\s*(\S+)",
                    time_file="results.yaml")
    monkeypatch.setattr("benchmarks.harness.smpi.smpirun_command", lambda *a: [str(script), "-hostfile", "h"])
    run, same = runs.run(np.arange(64), "identity")
    assert (run.error, run.figure, run.simulated, same) == (None, 1.25e-4, 0.5, None)
    assert (tmp_path / "case_identity.out.results.yaml").read_text() == "Total_time:  1.25E-04\n"
    # the table: the app's own figure ("app s") and SimGrid's end time beside it
    rows = [{**r, "metrics": {"average_hops": 1.0, "predicted_time": 1e-6}, "map_s": 0.0, "end_s": 2.0 * r["comm_s"]}
            for r in _rows(bench.FRONTIER, [100.0, 60.0, 54.0, 54.0])]
    bench.print_report(rows)
    head = capsys.readouterr().out.splitlines()[0].split()
    assert "app" in head and "end" in head and "comm" not in head
    bench.print_report([{**r, "metrics": {"average_hops": 1.0, "predicted_time": 1e-6}, "map_s": 0.0}
                        for r in _rows(bench.FRONTIER, [100.0, 60.0, 54.0, 54.0])])
    head = capsys.readouterr().out.splitlines()[0].split()
    assert "comm" in head and "end" not in head and "app" not in head
    # --report prints the same table from a --json file
    from benchmarks.harness.output import write_json

    write_json(str(tmp_path / "r.json"), rows)
    assert bench.main(["--report", str(tmp_path / "r.json")]) == 0
    reported = capsys.readouterr().out
    bench.print_report(rows)
    assert reported == capsys.readouterr().out and "recorded vs declared" in reported
