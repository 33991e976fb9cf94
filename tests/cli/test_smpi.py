"""``mpitaskmap simgrid``: platform, hostfiles and run.sh; simulated runs per method; its errors;
global options before the subcommand.

The tests that run SimGrid skip with a one-line reason when it is missing
(``apt-get install libsimgrid-dev``); the file-writing tests run everywhere.
"""

import io
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap.cli import main
from mpitaskmap.cli._inputs import load_machine
from mpitaskmap.cli.smpi import SIMULATED_TIME, hostfile_ranks, run_smpi, smpirun_command
from mpitaskmap.mapfiles import read_smpi_hostfile
from mpitaskmap.metrics import evaluate
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.graphs.taskgraph import TaskGraph

ROOT = Path(__file__).resolve().parents[2]
SIM = "sim:titan:ppn=2,seed=1"  # 16 ranks: 8 nodes of a sparse Titan-like allocation
TASKS = "stencil3d:4x2x2"
HALO = "4 2 2 8 8 8 5 3"  # halo3d: a 4x2x2 task grid, 8^3 cells, 5 variables, 3 steps

needs_smpi = pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))

# A tiny SMPI app that misbehaves only when rank 0 runs on host argv[2]: "fail" exits 1,
# "spin" never ends; elsewhere rank 0 prints "figure 2.5".
PICKY_APP = r"""
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, len;
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Get_processor_name(host, &len);
  MPI_Bcast(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (strcmp(host, argv[2]) == 0) {
    if (strcmp(argv[1], "fail") == 0) return 1;
    volatile long i = 0;
    for (;;) i++;
  }
  if (rank == 0) printf("figure 2.5\n");
  MPI_Finalize();
  return 0;
}
"""


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def table(out):
    """Rows of the printed table: {method: [cells]}, and the header."""
    lines = out.strip().splitlines()
    return lines[0].split(), {ln.split()[0]: ln.split()[1:] for ln in lines[1:]}


@pytest.fixture(scope="module")
def inputs():
    machine = load_machine(SIM, 16)
    return machine, TaskGraph.stencil([4, 2, 2])


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    if simgrid_missing() is not None:
        pytest.skip(simgrid_missing())
    d = tmp_path_factory.mktemp("apps")
    subprocess.run(["smpicc", "-O2", "-o", str(d / "halo3d"), str(ROOT / "examples" / "halo3d.c")], check=True,
                   capture_output=True)
    (d / "picky.c").write_text(PICKY_APP)
    subprocess.run(["smpicc", "-O2", "-o", str(d / "picky"), str(d / "picky.c")], check=True, capture_output=True)
    return d


def first_host(path):
    return Path(path).read_text().split()[0]


# -- files ----------------------------------------------------------------------------------------
def test_writes_platform_hostfiles_equal_to_the_mappings_and_run_sh(capsys, tmp_path, inputs):
    mi, graph = inputs
    status, out, err = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,greedy+uwh",
                           "-o", tmp_path, "-q", "--loopback", "400")
    assert status == 0 and err == ""
    # the platform has one host per node of the allocation, with its cores, under the provider's names
    root = ET.fromstring((tmp_path / "platform.xml").read_text().split("\n", 2)[2])
    hosts = {h.get("id"): int(h.get("core")) for h in root.iter("host")}
    loop = {l.get("id"): l.get("bandwidth") for l in root.iter("link") if l.get("id").endswith("_loopback")}
    assert set(loop.values()) == {"400000000000.0Bps"} and len(loop) == 8  # --loopback 400 (GB/s)
    assert hosts == {name: 2 for name in mi.hosts} and len(hosts) == 8
    # each hostfile reads back as its method's mapping (node of every rank)
    expected = {"identity": np.arange(16), "greedy+uwh": mpitaskmap.map(graph, mi.machine, "greedy+uwh").task_to_proc}
    node = mi.machine.node_ids
    for name, procs in expected.items():
        back = read_smpi_hostfile(tmp_path / f"{name}.hostfile", mi.machine, hosts=mi.hosts)
        np.testing.assert_array_equal(node[back.task_to_proc], node[procs])
    # identity: line r is the host of processor r, two ranks per node
    lines = (tmp_path / "identity.hostfile").read_text().split()
    assert lines == [mi.hosts[node[r]] for r in range(16)] and lines[0] == lines[1] != lines[2]
    # the table: the model metrics of each mapping (the library's evaluate), no simulated time
    head, rows = table(out)
    assert head == ["method", "AvgHops", "WH", "Latency(M)", "SimGrid", "s", "vs", "identity"]
    values = evaluate(graph, mi.machine, expected["greedy+uwh"], ["average_hops"])
    assert float(rows["greedy+uwh"][0]) == pytest.approx(values["average_hops"], rel=1e-3)
    assert rows["identity"][3:] == ["-", "-"]
    # run.sh: one smpirun line per method, paths relative to run.sh, the app from the command line
    sh = (tmp_path / "run.sh").read_text()
    smpi_lines = [ln for ln in sh.splitlines() if ln.startswith("smpirun")]
    assert len(smpi_lines) == 2
    assert smpi_lines[1].startswith('smpirun -np 16 -platform "$D/platform.xml" -hostfile "$D/greedy+uwh.hostfile" '
                                    "--cfg=smpi/simulate-computation:no --cfg=smpi/display-timing:yes")
    assert smpi_lines[1].endswith('"$@" > "$D/greedy+uwh.out"') and os.access(tmp_path / "run.sh", os.X_OK)
    proc = subprocess.run(["sh", str(tmp_path / "run.sh")], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage: sh" in proc.stderr
    res = json.loads((tmp_path / "results.json").read_text())
    assert [r["method"] for r in res["rows"]] == ["identity", "greedy+uwh"] and res["np"] == 16


def test_changes_are_relative_to_identity_or_else_the_first_method(capsys, tmp_path):
    status, out, _ = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "greedy,identity", "-o", tmp_path, "-q")
    assert status == 0 and out.splitlines()[0].split()[-2:] == ["vs", "identity"]
    status, out, _ = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "greedy,geometric", "-o", tmp_path,
                         "-q", "--metrics", "max_hops")
    head, rows = table(out)
    assert status == 0 and head == ["method", "MaxHops", "SimGrid", "s", "vs", "greedy"] and list(rows) == ["greedy", "geometric"]
    assert json.loads((tmp_path / "results.json").read_text())["baseline"] == "greedy"


def test_command_pieces():
    cmd = smpirun_command(8, "p.xml", "h", ["./app", "x"], ["smpi/bw-factor:0:1"])
    assert cmd[:7] == ["smpirun", "-np", "8", "-platform", "p.xml", "-hostfile", "h"]
    assert "--cfg=smpi/bw-factor:0:1" in cmd and cmd[-2:] == ["./app", "x"]
    m = SIMULATED_TIME.search("[0.000055] [smpi_utils/INFO] Simulated time: 5.53303e-05 seconds. \n")
    assert float(m.group(1)) == 5.53303e-05


def test_hostfile_ranks_skips_blank_and_comment_lines(tmp_path):
    (tmp_path / "h").write_text("# ranks\nn0\n\nn1 # second\nn0\n")
    assert hostfile_ranks(tmp_path / "h") == 3


def test_bad_command_lines_name_the_option(capsys, tmp_path):
    for extra, message in [
        (["--methods", "identity,identity"], "each method once"),
        (["--methods", "default"], "the default order is called 'identity'"),
        (["--run", ""], "--run: expected an SMPI binary"),
        (["--timeout", "0"], "--timeout: must be positive"),
        (["--time-regex", "("], "--time-regex: not a regular expression"),
        (["--time-file", "results.yaml"], "--time-file 'results.yaml': goes with --run and --time-regex"),
        (["--run", "true", "--time-regex", "x", "--time-file", "d/r.yaml"],
         "--time-file: a file name in the current directory, where the app writes it; got 'd/r.yaml'"),
        (["--loopback", "fast"], "--loopback: expected BANDWIDTH[,LATENCY]"),
        (["--run", f"{tmp_path}/nope 1 2"], f"--run: no such program '{tmp_path}/nope'"),
    ]:
        status, out, err = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "-o", tmp_path, "-q", *extra)
        assert status == 1 and out == "" and err.startswith("mpitaskmap simgrid: error: ") and message in err, extra


# -- runs -----------------------------------------------------------------------------------------
@needs_smpi
def test_run_halo3d_table_of_simulated_seconds_per_method(capsys, tmp_path, apps):
    status, out, err = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric,auto",
                           "-o", tmp_path, "--run", f"{apps / 'halo3d'} {HALO}", "--time-regex", r"max_comm_time (\S+)")
    assert status == 0, err
    head, rows = table(out)
    assert head == ["method", "AvgHops", "WH", "Latency(M)", "SimGrid", "s", "vs", "identity", "app", "vs", "identity"]
    res = {r["method"]: r for r in json.loads((tmp_path / "results.json").read_text())["rows"]}
    for name in ("identity", "geometric", "auto"):
        log = (tmp_path / f"{name}.err").read_text()
        sim = float(SIMULATED_TIME.search(log).group(1))
        app = float(re.search(r"max_comm_time (\S+)", (tmp_path / f"{name}.out").read_text()).group(1))
        assert "halo check ok" in (tmp_path / f"{name}.out").read_text()
        assert res[name]["simulated"] == sim and res[name]["figure"] == app
        assert rows[name][3] == f"{sim:.6g}" and rows[name][5] == f"{app:.6g}"
        ref = res["identity"]
        assert rows[name][4] == f"{100 * (sim / ref['simulated'] - 1):+.1f}%"
        assert rows[name][6] == f"{100 * (app / ref['figure'] - 1):+.1f}%"
        assert f"{name}: simulated {sim:.6g} s in" in err
    # every face message crosses fewer links under the geometric mapping: less simulated time
    assert res["geometric"]["simulated"] < res["identity"]["simulated"]
    assert res["geometric"]["metrics"]["weighted_hops"] < res["identity"]["metrics"]["weighted_hops"]


@needs_smpi
def test_an_app_that_fails_under_one_method_gives_one_line_and_the_rest_prints(capsys, tmp_path, apps):
    run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,identity+uwh", "-o", tmp_path, "-q")
    bad = first_host(tmp_path / "identity+uwh.hostfile")
    assert bad != first_host(tmp_path / "identity.hostfile")  # rank 0 moves: only identity+uwh fails
    status, out, err = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,identity+uwh",
                           "-o", tmp_path, "-q", "--run", f"{apps / 'picky'} fail {bad}", "--time-regex", r"figure (\S+)")
    assert status == 1
    assert len(err.splitlines()) == 1 and err.startswith(
        f"mpitaskmap simgrid: error: identity+uwh: the app failed with exit status 1 "
        f"({tmp_path / 'identity+uwh.out'}, {tmp_path / 'identity+uwh.err'})")
    _, rows = table(out)
    assert rows["identity"][5] == "2.5" and rows["identity+uwh"][3:] == ["-", "-", "-", "-"]


@needs_smpi
def test_a_run_past_its_timeout_is_killed_and_the_rest_prints(capsys, tmp_path, apps):
    run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,identity+uwh", "-o", tmp_path, "-q")
    spin = first_host(tmp_path / "identity.hostfile")
    status, out, err = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,identity+uwh",
                           "-o", tmp_path, "-q", "--run", f"{apps / 'picky'} spin {spin}", "--timeout", "1.5")
    assert status == 1
    assert err == (f"mpitaskmap simgrid: error: identity: smpirun killed after 1.5 s of wall-clock time (--timeout) "
                   f"({tmp_path / 'identity.out'}, {tmp_path / 'identity.err'})\n")
    _, rows = table(out)
    assert rows["identity"][3] == "-" and float(rows["identity+uwh"][3]) > 0
    if shutil.which("pgrep"):
        leftover = subprocess.run(["pgrep", "-f", f"picky spin {spin}"], capture_output=True, text=True)
        assert leftover.stdout == ""  # the whole process group was killed


@needs_smpi
def test_hostfile_not_matching_np_is_not_run(capsys, tmp_path, apps):
    status, out, err = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric",
                           "-o", tmp_path, "-q", "--np", "8", "--run", f"{apps / 'halo3d'} {HALO}")
    assert status == 1
    assert err.splitlines() == [
        f"mpitaskmap simgrid: error: {m}: hostfile {tmp_path / (m + '.hostfile')} has 16 ranks but -np is 8 (--np); "
        "not run" for m in ("identity", "geometric")
    ]
    _, rows = table(out)
    assert set(rows) == {"identity", "geometric"} and float(rows["geometric"][0]) > 0  # the metrics still print
    assert not (tmp_path / "identity.out").exists()


def test_missing_smpirun_is_one_line_and_the_table_prints(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no smpirun there
    (tmp_path / "halo3d").write_text("")  # the app exists; SimGrid does not
    status, out, err = run(capsys, "simgrid", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric",
                           "-o", tmp_path / "o", "-q", "--run", f"{tmp_path / 'halo3d'} {HALO}")
    assert status == 1
    assert err == ("mpitaskmap simgrid: error: smpirun is not on PATH (install SimGrid: apt-get install "
                   f"libsimgrid-dev); files written to {tmp_path / 'o'}, no run made\n")
    _, rows = table(out)
    assert set(rows) == {"identity", "geometric"} and rows["geometric"][3] == "-"
    assert (tmp_path / "o" / "geometric.hostfile").exists() and (tmp_path / "o" / "run.sh").exists()


# -- global options -------------------------------------------------------------------------------
def test_global_options_before_or_after_the_subcommand(capsys):
    args = ["-m", "sim:titan:nodes=8,ppn=4,seed=1", "-t", "stencil3d:4x4x2", "--method", "identity"]
    status, out_before, err = run(capsys, "-q", "map", *args)
    assert status == 0 and err == ""
    status, out_after, err = run(capsys, "map", *args, "-q")
    assert status == 0 and err == "" and out_after == out_before
    status, _, err = run(capsys, "map", *args)  # without -q: the status lines
    assert status == 0 and err.startswith("machine  ")
    status, _, err = run(capsys, "--quiet", "--debug", "map", *args, "-q")  # repeated: harmless
    assert status == 0 and err == ""
    with pytest.raises(Exception, match="has 4 processors"):
        main(["-q", "--debug", "map", "-m", "sim:titan:nodes=1,ppn=4", "-t", "stencil3d:4x4x2"])
    status, _, err = run(capsys, "-q", "map", "-m", "sim:titan:nodes=1,ppn=4", "-t", "stencil3d:4x4x2")
    assert status == 1 and err == ("mpitaskmap map: error: sim: 'sim:titan:nodes=1,ppn=4' has 4 processors but "
                                   "the job has 32 ranks\n")
    status, _, err = run(capsys, "-x", "map", *args)
    assert status == 2 and "unknown subcommand '-x'" in err and "global options: -q, --quiet, --debug" in err
    status, out, _ = run(capsys, "-q", "--help")
    assert status == 0 and "simgrid" in out


class FakeTty(io.StringIO):
    def isatty(self):
        return True


def test_run_smpi_reads_the_times_and_draws_a_bar_on_a_terminal(tmp_path):
    # a stand-in for smpirun: SimGrid's timing line on stderr, the app's figure on stdout
    script = "sleep 0.3; echo '[0.1] [smpi_utils/INFO] Simulated time: 0.125 seconds.' >&2; echo 'comm 2.5e-3'"
    cmd = ["sh", "-c", script, "-hostfile", "h"]
    tty = FakeTty()
    res = run_smpi(cmd, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60,
                   time_regex=re.compile(r"comm (\S+)"), stream=tty)
    assert (res.simulated, res.figure, res.error, res.hostfile) == (0.125, 2.5e-3, None, "h")
    assert res.wall >= 0.3 and (tmp_path / "o").read_text() == "comm 2.5e-3\n"
    drawn = tty.getvalue()
    assert drawn.startswith("\rm: smpirun (timeout 60 s) [") and " 0/61 " in drawn and drawn.endswith("\r\033[K")
    quiet = FakeTty()
    run_smpi(cmd, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60, stream=quiet,
             quiet=True)
    assert quiet.getvalue() == ""
    # no timing line, a figure that is not there, a figure that is not a number
    bare = ["sh", "-c", "echo 'comm x'", "-hostfile", "h"]
    res = run_smpi(bare, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60, quiet=True)
    assert res.error == f"m: no 'Simulated time' line in SimGrid's log {tmp_path / 'e'}"
    cmd[2] = script.replace("comm 2.5e-3", "comm x")
    res = run_smpi(cmd, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60,
                   time_regex=re.compile(r"comm (\S+)"), quiet=True)
    assert res.error == f"m: --time-regex matched 'x' in {tmp_path / 'o'}, not a number"
    res = run_smpi(cmd, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60,
                   time_regex=re.compile(r"figure (\S+)"), quiet=True)
    assert res.error == f"m: --time-regex 'figure (\\\\S+)' matched nothing in {tmp_path / 'o'}"
    # a run past its timeout is killed, with its children
    res = run_smpi(["sh", "-c", "sleep 30", "-hostfile", "h"], label="m", out_path=str(tmp_path / "o"),
                   err_path=str(tmp_path / "e"), timeout=0.4, quiet=True)
    assert res.error.startswith("m: smpirun killed after 0.4 s") and 0.4 <= res.wall < 5


def test_run_smpi_reads_the_figure_from_the_file_the_app_writes(tmp_path, monkeypatch):
    # MiniGhost's way: its times go to results.yaml in the current directory, not to its output
    monkeypatch.chdir(tmp_path)
    timing = "echo '[0.1] [smpi_utils/INFO] Simulated time: 0.125 seconds.' >&2"
    write = ["sh", "-c", f"{timing}; echo 'Total_time:  6.6e-05' > results.yaml; echo 'comm 9'", "-hostfile", "h"]
    regex = re.compile(r"Total_time:\s*(\S+)")
    (tmp_path / "results.yaml").write_text("Total_time: 1.0\n")  # an earlier run's: removed, never read
    res = run_smpi(write, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60,
                   time_regex=regex, time_file="results.yaml", quiet=True)
    assert (res.simulated, res.figure, res.error) == (0.125, 6.6e-05, None)
    kept = tmp_path / "o.results.yaml"
    assert res.files["time_file"] == str(kept) and kept.read_text() == "Total_time:  6.6e-05\n"
    assert not (tmp_path / "results.yaml").exists()  # moved: the next run starts without one
    # an app that writes no file: the stale one was removed, so the run says so
    (tmp_path / "results.yaml").write_text("Total_time: 1.0\n")
    silent = ["sh", "-c", f"{timing}; echo 'comm 9'", "-hostfile", "h"]
    res = run_smpi(silent, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60,
                   time_regex=regex, time_file="results.yaml", quiet=True)
    assert res.figure is None and res.error == (f"m: the app wrote no results.yaml (--time-file) in {tmp_path} "
                                                f"({tmp_path / 'o'}, {tmp_path / 'e'})")
    # the regex reads the file, not the output
    res = run_smpi(write, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60,
                   time_regex=re.compile(r"comm (\S+)"), time_file="results.yaml", quiet=True)
    assert res.error == f"m: --time-regex 'comm (\\\\S+)' matched nothing in {kept}"
    with pytest.raises(ValueError, match="time_file: needs time_regex"):
        run_smpi(write, label="m", out_path=str(tmp_path / "o"), err_path=str(tmp_path / "e"), timeout=60,
                 time_file="results.yaml", quiet=True)
