"""The command line: every subcommand on small inputs, checking what it prints and writes
against the library (metrics from mpitaskmap.metrics, files read back with mapfiles)."""

import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from mpitaskmap import TaskGraph, identity_mapping, map_geometric, map_greedy
from mpitaskmap.cli import COMMANDS, main
from mpitaskmap.cli._common import Progress
from mpitaskmap.mapfiles import node_canonical, read_map
from mpitaskmap import metrics
from mpitaskmap.metrics import DEFAULT_MESSAGE_MODEL, message_model_for
from mpitaskmap.providers import get_provider, machine_from_provider


def evaluate(graph, machine, task_to_proc, names=None):
    """The library's metrics with the command line's message model (its PredTime column): the API's for the graph
    (weights are bytes; 4 KiB per unit of weight for a graph without sizes, as TASKS is)."""
    return metrics.evaluate(graph, machine, task_to_proc, names, **message_model_for(graph).metric_options())

SIM = "sim:titan:nodes=8,ppn=4,seed=1"  # 32 processors, 4 per node, 2 nodes per Gemini router
TASKS = "stencil3d:4x4x2"


@pytest.fixture(scope="module")
def small():
    machine = machine_from_provider(get_provider(SIM), 32)
    graph = TaskGraph.stencil([4, 4, 2])
    return machine, graph


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def json_rows(text):
    return {r["method"]: r for r in json.loads(text)["rows"]}


# -- dispatcher ------------------------------------------------------------------------------
def test_registered_subcommands_and_help(capsys):
    assert list(COMMANDS) == ["map", "eval", "compare", "plot", "simgrid", "formats", "launch", "record"]
    status, out, _ = run(capsys, "--help")
    assert status == 0 and all(f"  {name} " in out for name in COMMANDS)
    for name in COMMANDS:
        status, out, _ = run(capsys, name, "--help")
        assert status == 0 and f"usage: mpitaskmap {name}" in out and "examples:" in out and "exit status" in out
    status, out, _ = run(capsys, "map", "--help")
    assert "MPICH_RANK_REORDER_METHOD=3" in out and "--distribution=arbitrary" in out and "greedy+uwh" in out


def test_errors_are_one_line_and_debug_shows_traceback(capsys):
    status, out, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "bogus")
    assert status == 1 and out == ""
    assert err.strip().splitlines()[-1].startswith("mpitaskmap map: error: --method: unknown 'bogus'; valid: [")
    assert len([l for l in err.splitlines() if "error" in l]) == 1
    status, _, err = run(capsys, "map", "-m", "sim:titan:nodes=1,ppn=4", "-t", TASKS, "-q")
    assert status == 1 and err == "mpitaskmap map: error: sim: 'sim:titan:nodes=1,ppn=4' has 4 processors but the job has 32 ranks\n"
    with pytest.raises(Exception, match="has 4 processors"):
        main(["map", "-m", "sim:titan:nodes=1,ppn=4", "-t", TASKS, "--debug"])
    with pytest.raises(Exception, match="has 4 processors"):
        main(["--debug", "map", "-m", "sim:titan:nodes=1,ppn=4", "-t", TASKS])
    status, _, err = run(capsys, "frob")
    assert status == 2 and "unknown subcommand 'frob'" in err
    status, _, err = run(capsys, "map", "-m", SIM)  # argparse: missing -t
    assert status == 2 and "the following arguments are required: -t/--tasks" in err
    status, _, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "-o", "out.txt", "-q")
    assert status == 1 and "-o: cannot tell the map-file format of 'out.txt' from its name" in err


def test_python_dash_m_entry_point(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mpitaskmap", "eval", "-m", SIM, "-t", TASKS, "--format", "csv", "-q"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("method,total_hops,average_hops,weighted_hops")
    assert proc.stderr == ""


# -- map -------------------------------------------------------------------------------------
def test_map_table_equals_library_and_files_read_back(capsys, tmp_path, small):
    machine, graph = small
    files = {"mpich_rank_order": tmp_path / "MPICH_RANK_ORDER", "openmpi_rankfile": tmp_path / "rankfile",
             "slurm_hostfile": tmp_path / "SLURM_HOSTFILE", "csv": tmp_path / "map.csv", "bluegene": tmp_path / "bg.map"}
    outs = []
    for path in files.values():
        outs += ["-o", str(path)]
    status, out, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--format", "json", *outs)
    assert status == 0
    rows = json_rows(out)
    expected = map_geometric(graph, machine)
    assert rows["identity"]["metrics"] == evaluate(graph, machine, identity_mapping(graph, machine).task_to_proc)
    assert rows["geometric"]["metrics"] == evaluate(graph, machine, expected.task_to_proc)
    assert rows["geometric"]["info"]["ordering"] == "fz"
    hosts = [get_provider(SIM).locate(int(r), 32).node for r in np.unique(machine.node_ids, return_index=True)[1]]
    for fmt, path in files.items():
        assert f"wrote {path} ({fmt}, 32 ranks)" in err
        opts = {"hosts": hosts} if fmt in ("openmpi_rankfile", "slurm_hostfile") else {}
        back = read_map(path, machine, fmt, graph=graph, **opts)
        want = node_canonical(expected) if fmt == "slurm_hostfile" else expected
        assert_array_equal(back.task_to_proc, want.task_to_proc)
    # the sim provider names the nodes (Titan: nid numbers of the simulated machine)
    first = files["openmpi_rankfile"].read_text().splitlines()[0]
    p0 = expected.task_to_proc[0]
    assert first == f"rank 0={hosts[machine.node_ids[p0]]} slot={int(np.sum(machine.node_ids[:p0] == machine.node_ids[p0]))}"
    assert files["slurm_hostfile"].read_text().splitlines()[0] == hosts[machine.node_ids[p0]]


def test_map_text_table_and_geometric_options(capsys, small):
    machine, graph = small
    status, out, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "geometric:ordering=hilbert,shift=0")
    assert status == 0
    assert err.startswith(f"machine  {SIM}: 32 processors on 8 nodes, torus 25x16x24 (X Y Z)\n")
    assert f"tasks    stencil3d:4x4x2: 32 tasks, {graph.n_edges} messages, 3-D coordinates" in err
    header, default, mapped, legend = out.splitlines()
    assert header.split() == ["method", "TH", "AvgHops", "WH", "MaxHops", "Data(M)", "Latency(M)", "MMC", "AMC", "AC",
                              "PredTime", "seconds"]
    assert legend.startswith("legend: TH: hops of all messages (sum); AvgHops: hops per message; ")
    assert "; PredTime: predicted s of one exchange step" in legend and "; seconds: wall s the method took" in legend
    assert default.split()[-1] == "0.000"  # the default order is timed like the method: no blank cell
    m = map_geometric(graph, machine, ordering="hilbert", shift=False)
    values = evaluate(graph, machine, m.task_to_proc)
    assert mapped.split()[0] == "geometric:ordering=hilbert,shift=0"
    assert mapped.split()[1] == f"{values['total_hops']:,}"
    assert float(mapped.split()[2]) == pytest.approx(values["average_hops"], rel=1e-3)
    assert default.split()[1] == f"{evaluate(graph, machine, np.arange(32))['total_hops']:,}"


def test_map_ranges_and_hosts_format(capsys, tmp_path, small):
    machine, graph = small
    rank_order, rankfile = tmp_path / "MPICH_RANK_ORDER", tmp_path / "rankfile"
    status, _, _ = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "identity", "--ranges", "-q",
                       "-o", str(rank_order), "-o", str(rankfile), "--hosts", "node%02d")
    assert status == 0
    assert rank_order.read_text().splitlines()[1:] == ["0-3", "4-7", "8-11", "12-15", "16-19", "20-23", "24-27", "28-31"]
    assert rankfile.read_text().splitlines()[:2] == [
        f"rank 0=node{machine.node_ids[0]:02d} slot=0", f"rank 1=node{machine.node_ids[1]:02d} slot=1"]


def test_map_greedy_and_auto_with_progress(capsys, small):
    machine, graph = small
    status, out, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "greedy+uwh", "--format", "csv", "-q")
    assert status == 0 and err == ""
    rows = {r["method"]: r for r in csv.DictReader(io.StringIO(out))}
    wh = evaluate(graph, machine, map_greedy(graph, machine, refine=True).task_to_proc)["weighted_hops"]
    assert float(rows["greedy+uwh"]["weighted_hops"]) == wh
    status, out, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "auto", "--orderings", "fz",
                           "--format", "json")
    assert status == 0
    assert "auto: candidates: " in err and " done in " in err and "winner: " in err  # non-tty progress: one line
    rows = json_rows(out)
    assert rows["auto"]["metrics"]["weighted_hops"] <= rows["identity"]["metrics"]["weighted_hops"]
    assert rows["auto"]["info"]["families"].startswith("geometric,graph")  # (+ grid when that family exists)
    _, _, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "auto", "--orderings", "fz", "-q")
    assert err == ""


def test_progress_bar_tty_and_quiet():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    s = Tty()
    bar = Progress("search", stream=s, width=10)
    for i in range(1, 5):
        bar(i, 4)
    text = s.getvalue()
    assert text.endswith("\n") and "\rsearch [##########] 4/4" in text
    quiet = io.StringIO()
    Progress("search", stream=quiet, quiet=True)(4, 4)
    assert quiet.getvalue() == ""
    plain = io.StringIO()
    bar = Progress("search", stream=plain)
    bar(1, 2)
    bar(2, 2)
    assert plain.getvalue().startswith("search: 2/2 done in ") and plain.getvalue().count("\n") == 1



def test_run_methods_runs_each_spec_in_order_with_its_time_line(capsys, small):
    from mpitaskmap.cli._common import run_methods
    from mpitaskmap.cli.compare import build_parser

    machine, graph = small
    args = build_parser().parse_args(["-m", SIM, "-t", TASKS, "--orderings", "fz"])
    runs = run_methods(["greedy", "geometric:ordering=z", "auto"], graph, machine, args)
    assert [spec for spec, _, _ in runs] == ["greedy", "geometric:ordering=z", "auto"]
    assert_array_equal(runs[0][1].task_to_proc, map_greedy(graph, machine).task_to_proc)
    assert_array_equal(runs[1][1].task_to_proc, map_geometric(graph, machine, ordering="z").task_to_proc)
    assert all(seconds >= 0 for _, _, seconds in runs)
    lines = capsys.readouterr().err.splitlines()
    # a time line per method in order; auto shows its candidates bar instead
    assert [line.rsplit(": ", 1)[0] for line in lines] == ["greedy", "geometric:ordering=z", "auto: candidates"]
    assert lines[0].endswith(" s") and " done in " in lines[2]
    args = build_parser().parse_args(["-m", SIM, "-t", TASKS, "-q"])
    assert run_methods(["identity"], graph, machine, args)[0][0] == "identity"
    assert capsys.readouterr().err == ""


# -- inputs ----------------------------------------------------------------------------------
def test_machine_file_with_hosts_matrix_market_and_coordinates(capsys, tmp_path):
    alloc = tmp_path / "alloc.txt"
    alloc.write_text("dims 4 4 4\n" + "".join(f"host cn{i:03d} 4 {i % 4} {i // 4} 0\n" for i in range(8)))
    g = TaskGraph.stencil([4, 4, 2])
    mtx = tmp_path / "comm.mtx"
    lines = [f"{s + 1} {d + 1} {w * 100}" for s, d, w in zip(g.sources(), g.indices, g.weights)]
    mtx.write_text("%%MatrixMarket matrix coordinate real general\n% comment\n"
                   f"32 32 {g.n_edges}\n" + "\n".join(lines) + "\n")
    coords = tmp_path / "tasks.txt"
    np.savetxt(coords, g.coords, fmt="%d")
    rankfile = tmp_path / "rankfile"
    status, out, _ = run(capsys, "map", "-m", str(alloc), "-t", f"matrix:{mtx}", "--task-coords", str(coords),
                         "-o", str(rankfile), "--format", "json", "-q")
    assert status == 0
    rows = json_rows(out)
    from mpitaskmap import read_machine_file

    machine = read_machine_file(alloc)
    graph = TaskGraph.from_edges(g.sources(), g.indices, g.weights * 100, n_tasks=32, coords=g.coords)
    expected = map_geometric(graph, machine)
    assert rows["geometric"]["metrics"] == evaluate(graph, machine, expected.task_to_proc)
    names = [f"cn{i:03d}" for i in range(8)]
    assert rankfile.read_text().split("\n")[0].split("=")[1].split()[0] in names  # the file's own host names
    back = read_map(rankfile, machine, "openmpi_rankfile", hosts=names)
    assert_array_equal(back.task_to_proc, expected.task_to_proc)
    # a matrix without coordinates: greedy works, geometric explains what is missing, auto skips geometric
    status, _, err = run(capsys, "map", "-m", str(alloc), "-t", f"matrix:{mtx}", "-q", "--method", "geometric")
    assert status == 1 and "the tasks have no coordinates; give --task-coords or use greedy" in err
    status, out, err = run(capsys, "map", "-m", str(alloc), "-t", f"matrix:{mtx}", "--format", "json")
    assert status == 0 and json.loads(out)["header"]["method"] == "auto"  # the default without coordinates
    status, out, _ = run(capsys, "compare", "-m", str(alloc), "-t", str(mtx), "--methods", "greedy,auto", "-q",
                         "--format", "json")
    assert status == 0 and set(json_rows(out)) == {"greedy", "auto"}
    # coordinates alone: nearest-neighbour proxy graph
    status, out, _ = run(capsys, "eval", "-m", str(alloc), "-t", f"coords:{coords}", "--format", "json", "-q")
    proxy = TaskGraph.from_coordinate_proxy(g.coords)
    assert json_rows(out)["identity"]["metrics"] == evaluate(proxy, machine, np.arange(32))


def test_task_and_machine_spec_errors(capsys, tmp_path):
    for tasks, msg in [("stencil3d:4x4", "stencil3d needs 3 lengths"), ("stencil:4xa", "expected lengths like"),
                       ("stencil2d:4x4:colour=1", "unknown key 'colour'"), ("nosuch.txt", "no such file")]:
        status, _, err = run(capsys, "eval", "-m", "sim:torus:dims=4x4", "-t", tasks, "-q")
        assert status == 1 and msg in err, err
    status, _, err = run(capsys, "eval", "-m", "percs:ns=2,nd=3", "-t", "stencil2d:16x16", "-q")
    assert status == 1 and err.startswith("mpitaskmap eval: error: ")


# -- eval ------------------------------------------------------------------------------------
def test_eval_default_and_reorder_files(capsys, tmp_path, small):
    machine, graph = small
    m = map_geometric(graph, machine)
    from mpitaskmap.mapfiles import write_map

    write_map(m, tmp_path / "MPICH_RANK_ORDER", "mpich_rank_order")
    write_map(m, tmp_path / "order.csv", "csv")
    status, out, _ = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--mapping", str(tmp_path / "MPICH_RANK_ORDER"),
                         "--mapping", f"csv={tmp_path / 'order.csv'}", "--format", "json", "--by-class", "-q")
    assert status == 0
    rows = json_rows(out)
    assert list(rows) == ["identity", "MPICH_RANK_ORDER", "order.csv"]
    assert rows["MPICH_RANK_ORDER"]["metrics"] == evaluate(graph, machine, m.task_to_proc)
    assert rows["order.csv"]["metrics"] == rows["MPICH_RANK_ORDER"]["metrics"]
    from mpitaskmap.metrics import link_loads

    assert rows["identity"]["by_class"] == link_loads(graph, machine, np.arange(32)).by_class()
    status, out, _ = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--metrics", "weighted_hops,latency",
                         "--by-class", "-q")
    lines = out.splitlines()
    assert lines[0].split() == ["method", "WH", "Latency(M)"]  # no method ran: no seconds column
    assert "identity: busiest link per link class" in out and any(l.split()[0] == "Z-" for l in lines if l.strip())
    status, _, err = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--no-identity", "-q")
    assert status == 1 and "nothing to evaluate" in err


# -- compare ---------------------------------------------------------------------------------
def test_compare_csv_json_equal_the_library(capsys, tmp_path, small):
    machine, graph = small
    methods = "identity,geometric,geometric:ordering=z,greedy,greedy+uwh,geometric+uwh,umc"
    status, out, err = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", methods, "--format", "csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["method"] for r in rows] == methods.split(",")
    from mpitaskmap import refine_congestion, refine_wh

    truth = {
        "identity": identity_mapping(graph, machine),
        "geometric": map_geometric(graph, machine),
        "geometric:ordering=z": map_geometric(graph, machine, ordering="z"),
        "greedy": map_greedy(graph, machine),
        "greedy+uwh": map_greedy(graph, machine, refine=True),
        "geometric+uwh": refine_wh(map_geometric(graph, machine)),
        "umc": refine_congestion(map_greedy(graph, machine, refine=True)),
    }
    for r in rows:
        want = evaluate(graph, machine, truth[r["method"]].task_to_proc)
        for name, value in want.items():
            assert float(r[name]) == value, (r["method"], name)
    # ranked by the default objective: predicted time, the machine has a link model
    best = min(truth, key=lambda k: (evaluate(graph, machine, truth[k].task_to_proc)["predicted_time"],
                                     list(truth).index(k)))
    assert f"best by predicted_time: {best} = " in err
    out_path = tmp_path / "table.json"
    status, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric",
                         "--format", "json", "-o", str(out_path), "-q")
    assert status == 0 and out == ""
    doc = json.loads(out_path.read_text())
    assert doc["header"]["best"] == "geometric" and doc["header"]["metric"] == "predicted_time"
    assert doc["rows"][1]["metrics"] == evaluate(graph, machine, truth["geometric"].task_to_proc)
    status, _, err = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "geometric,geometric", "-q")
    assert status == 1 and "each method once" in err


def test_overlap_bytes_option_sets_the_predicted_time_model(capsys, small):
    machine, graph = small
    geo = map_geometric(graph, machine).task_to_proc
    kib = 4096.0  # unit weights as 4-KiB messages, larger than the overlap size (the default is 1 byte)
    for value, overlap in (("inf", float("inf")), ("64", 64.0)):
        status, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "geometric", "--format", "json",
                             "-q", "--overlap-bytes", value, "--bytes-per-weight", "4096")
        want = metrics.predicted_time(graph, machine, geo, bytes_per_weight=kib,
                                      hop_latency=DEFAULT_MESSAGE_MODEL.hop_latency, overlap_bytes=overlap)
        assert status == 0 and json_rows(out)["geometric"]["metrics"]["predicted_time"] == want
    # 4-KiB messages: the plain model counts every hop in full, so it predicts more
    plain = metrics.predicted_time(graph, machine, geo, bytes_per_weight=kib, overlap_bytes=float("inf"))
    assert plain > metrics.predicted_time(graph, machine, geo, bytes_per_weight=kib)
    status, _, err = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "geometric", "--overlap-bytes", "0")
    assert status != 0 and "--overlap-bytes: must be positive" in err


def test_compare_html_report_holds_table_and_images(capsys, tmp_path, small):
    pytest.importorskip("matplotlib")
    machine, graph = small
    page = tmp_path / "report.html"
    status, out, err = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric",
                           "--html", str(page))
    assert status == 0 and f"wrote {page} (HTML report)" in err
    text = page.read_text()
    import base64
    import re

    assert "<th>WH</th>" in text and "<td>geometric</td>" in text
    wh = evaluate(graph, machine, map_geometric(graph, machine).task_to_proc)["weighted_hops"]
    assert wh < 1000 and f'<td class="num">{wh:.4g}</td>' in text
    assert '<tr class="best"><td>geometric</td>' in text
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 3  # allocation, link loads, hop histogram
    for data in images:
        png = base64.b64decode(data)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert "http" not in text.replace("http-equiv", "")  # self-contained: nothing to fetch


# -- methods that depend on the machine or on optional modules ----------------------------------
def test_percs_strategies_on_a_percs_machine(capsys):
    from mpitaskmap.machines.percs import PercsMachine
    from mpitaskmap.mappers.percs import map_percs

    status, out, _ = run(capsys, "compare", "-m", "percs:ns=2,nd=1", "-t", "stencil2d:16x16",
                         "--methods", "identity,percs:node_sequential", "--format", "json", "-q")
    assert status == 0
    graph, machine = TaskGraph.stencil([16, 16]), PercsMachine(2, 1)
    want = map_percs(graph, machine, method="node_sequential")
    assert json_rows(out)["percs:node_sequential"]["metrics"] == evaluate(graph, machine, want.task_to_proc)
    status, _, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "percs:mod_colouring", "-q")
    assert status == 1 and "expected a PercsMachine; got TorusMachine" in err


def test_regular_grid_methods(capsys):
    from mpitaskmap import map_regular, torus_machine

    status, out, _ = run(capsys, "map", "-m", "sim:torus:dims=8x8", "-t", "stencil2d:8x8", "--method", "regular",
                         "--format", "json", "-q")
    assert status == 0
    graph = TaskGraph.stencil([8, 8])
    machine = torus_machine([8, 8])
    want = map_regular(graph, machine).mapping
    assert json_rows(out)["regular"]["metrics"] == evaluate(graph, machine, want.task_to_proc)
    # the default order's old name points to the new one
    status, _, err = run(capsys, "map", "-m", "sim:torus:dims=8x8", "-t", "stencil2d:8x8", "--method", "default", "-q")
    assert status == 1 and "the default order is called 'identity'" in err


def test_dragonfly_machine_file_example_maps_with_its_host_names(capsys, tmp_path):
    from pathlib import Path

    from mpitaskmap import read_machine_file
    from mpitaskmap.machines.machine_file import machine_file_hosts

    example = Path(__file__).resolve().parents[2] / "examples" / "dragonfly_alloc.txt"
    rankfile, hostfile = tmp_path / "rankfile", tmp_path / "SLURM_HOSTFILE"
    status, out, err = run(capsys, "map", "-m", str(example), "-t", TASKS, "-o", str(rankfile), "-o", str(hostfile),
                           "--format", "json")
    assert status == 0
    assert json.loads(out)["header"]["machine"] == (
        f"{example}: 32 processors on 8 nodes, dragonfly_alloc.txt (dragonfly: 3 groups x 4 switches x 2 nodes, "
        "2 global links per pair, minimal routing)")
    machine = read_machine_file(example)
    # node (g S + s) n + slot of the eight hosts: two on g0 s0, g0 s3, two on g1 s1, g1 s2, g2 s0, g2 s3
    assert machine.node_ids.tolist() == np.repeat([0, 1, 6, 10, 11, 12, 16, 22], 4).tolist()
    graph = TaskGraph.stencil([4, 4, 2])
    expected = map_geometric(graph, machine)
    rows = json_rows(out)
    assert rows["geometric"]["metrics"] == evaluate(graph, machine, expected.task_to_proc)
    assert rows["identity"]["metrics"] == evaluate(graph, machine, np.arange(32))
    # the hosts are the file's names, not nid numbers of node ids
    names = machine_file_hosts(example, machine)
    p0 = expected.task_to_proc[0]
    assert rankfile.read_text().splitlines()[0].split()[1] == f"0={names[machine.node_ids[p0]]}"
    assert set(hostfile.read_text().split()) == {"nid001000", "nid001001", "nid001012", "nid001104", "nid001105",
                                                 "nid001106", "nid001202", "nid001215"}
    back = read_map(rankfile, machine, "openmpi_rankfile", graph=graph, hosts=names)
    assert_array_equal(back.task_to_proc, expected.task_to_proc)
    back = read_map(hostfile, machine, "slurm_hostfile", graph=graph, hosts=names)
    assert_array_equal(back.task_to_proc, node_canonical(expected).task_to_proc)


def test_auto_names_the_candidates_that_did_not_apply_and_counts_the_others(capsys, monkeypatch, caplog):
    # a route table bound below the Valiant dragonfly's (tabled routes): every congestion
    # refinement and node-swap polish is refused for size; the search says so (summary, info,
    # logger) instead of scoring them infinity in silence
    from mpitaskmap.mappers.graph import node_network
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", 10)
    spec = "sim:frontier:nodes=16,ppn=4,seed=1,routing=valiant"
    with caplog.at_level("INFO", logger="mpitaskmap"):
        status, out, err = run(capsys, "map", "-m", spec, "-t", "stencil3d:4x4x4", "--method", "auto",
                               "--format", "json")
    assert status == 0
    info = json_rows(out)["auto"]["info"]
    refused = info["refused"]
    assert refused and all("MAX_ROUTE_ENTRIES = 10" in why for why in refused.values())
    assert all(("umc" in label) or ("nodes" in label) for label in refused)
    assert info["applicable"] == info["candidates"] - len(refused)
    assert f"  {info['applicable']} of {info['candidates']} candidates applied; {len(refused)} did not:" in err
    shown = [line for line in err.splitlines() if line.startswith("    ") and "MAX_ROUTE_ENTRIES" in line]
    assert len(shown) == min(len(refused), 5)
    if len(refused) > 5:
        assert f"    and {len(refused) - 5} more" in err
    logged = [r.getMessage() for r in caplog.records if "does not apply" in r.getMessage()]
    assert len(logged) == len(refused)
    # without the bound every candidate applies and nothing is listed
    monkeypatch.undo()
    status, out, err = run(capsys, "map", "-m", spec, "-t", "stencil3d:4x4x4", "--method", "auto", "--format", "json")
    info = json_rows(out)["auto"]["info"]
    assert info["refused"] == {} and info["applicable"] == info["candidates"] and "did not" not in err
