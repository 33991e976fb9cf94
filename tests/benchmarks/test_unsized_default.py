"""benchmarks/unsized_default.py: the platforms, the rows' mappings, the shares and verdicts, a small run."""

import numpy as np
import pytest

from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks import unsized_default as bench
from benchmarks.harness import platforms


def test_platform_specs_are_the_other_studies():
    assert bench.platform_spec("titan", 512, 8, 2) == "sim:titan:ppn=8,seed=2"
    assert bench.platform_spec("titan12", 512, 8, 2) == "sim:titan:dims=12x8x8,nodes=64,ppn=8,seed=2"
    assert bench.platform_spec("fattree4", 512, 8, 1) == platforms.fattree_spec(512, 8, 1, 4)
    assert bench.platform_spec("frontier", 512, 8, 1) == "sim:frontier:nodes=64,ppn=8,seed=1"
    with pytest.raises(SystemExit, match="unknown 'mesh'"):
        bench.platform_spec("mesh", 512, 8, 1)


def _rows(times: dict, platform="titan", seed=1) -> list:
    return [{"platform": platform, "seed": seed, "method": m, "comm_s": t} for m, t in times.items()]


def test_the_share_is_the_part_of_the_sized_calls_gain_a_call_without_sizes_keeps():
    # identity 10, sized 5 (a gain of 5); unsized 6: (10 - 6) / 5 = 80%; cli 7.5: 50%; 1 byte 10: 0%
    rows = _rows({"identity": 10.0, "auto sized": 5.0, "auto unsized": 6.0, "cli unsized": 7.5, "auto 1 byte": 10.0})
    rows += _rows({"identity": 3.0, "auto sized": 3.0, "auto unsized": 2.0}, seed=2)  # no sized gain: no share
    bench.add_shares(rows)
    got = {(r["seed"], r["method"]): r["share"] for r in rows}
    assert got[1, "auto unsized"] == pytest.approx(0.8) and got[1, "cli unsized"] == pytest.approx(0.5)
    assert got[1, "auto 1 byte"] == 0.0 and got[1, "auto sized"] == 1.0 and got[1, "identity"] == 0.0
    assert got[2, "auto unsized"] is None
    assert rows[1]["vs_identity"] == pytest.approx(-0.5)
    lines = bench.verdicts(rows)
    assert lines == ["PASS  titan seed 1 auto unsized: 80.0% of the sized call's gain (target >= 80%)",
                     "FAIL  titan seed 1 cli unsized: 50.0% of the sized call's gain (target >= 80%)"]
    failed = _rows({"identity": 10.0, "auto sized": 5.0, "auto unsized": None})
    bench.add_shares(failed)
    assert failed[2]["share"] is None and bench.verdicts(failed) == []


def test_the_rows_map_the_graph_with_and_without_sizes():
    grid = (4, 2, 2)
    machine = machine_from_spec("sim:titan:ppn=1,seed=2", 16).machine

    class Case:
        name = "c"
    case = Case()
    case.grid, case.machine, case.graph = grid, machine, TaskGraph.stencil(grid, weight=2560.0)
    t2p, info = bench.map_row("identity", case, "", "")
    assert t2p.tolist() == list(range(16)) and info == {}
    import mpitaskmap

    sized, _ = bench.map_row("auto sized", case, "", "")
    assert sized.tolist() == mpitaskmap.map(TaskGraph.stencil(grid, weight=2560.0), machine).task_to_proc.tolist()
    unsized, info = bench.map_row("auto unsized", case, "", "")
    assert unsized.tolist() == mpitaskmap.map(TaskGraph.stencil(grid), machine).task_to_proc.tolist()
    assert info["candidate"]


def test_the_command_line_row_is_what_mpitaskmap_map_wrote(tmp_path):
    grid, spec = (4, 2, 1), "sim:titan:ppn=1,seed=2"
    machine = machine_from_spec(spec, 8).machine
    t2p, info = bench.cli_mapping(spec, grid, machine, str(tmp_path), "case")
    import mpitaskmap

    api = mpitaskmap.map(TaskGraph.stencil(grid), machine)  # the same graph without sizes, the same search
    assert t2p.tolist() == api.task_to_proc.tolist() and info["candidate"] == api.info["candidate"]
    assert (tmp_path / "case_cli.csv").is_file()


@pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))
@pytest.mark.timeout(900)
def test_a_small_run_prints_every_row_and_a_verdict_per_call_without_sizes(capsys, tmp_path):
    out = tmp_path / "r.json"
    assert bench.main(["--ranks", "64", "--platforms", "fattree4", "--seeds", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    rows = [ln.split() for ln in text.splitlines() if ln.startswith(" fattree4")]
    assert [" ".join(r[2:4]) if r[2] != "identity" else "identity" for r in rows] == [
        "identity", "auto sized", "auto unsized", "cli unsized", "auto 1"]
    verdict = [ln for ln in text.splitlines() if ln.startswith(("PASS", "FAIL"))]
    assert len(verdict) == 2 and all("fattree4 seed 1" in ln for ln in verdict)
    # the report of the JSON is the same table
    assert bench.main(["--report", str(out)]) == 0
    assert [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("PASS", "FAIL"))] == verdict
    assert np.isfinite([r["comm_s"] for r in __import__("json").loads(out.read_text())["records"]]).all()
