"""``mpitaskmap compare --simulate``: SimGrid's time column in text, CSV, JSON and HTML.

The runs that need SimGrid skip with its one-line reason when it is missing
(``apt-get install libsimgrid-dev``); the table rendering and the missing-SimGrid error
are tested everywhere.
"""

import csv
import io
import json

import numpy as np
import pytest

from mpitaskmap import Mapping, TaskGraph, map_geometric
from mpitaskmap.cli import main
from mpitaskmap.cli._common import SIMULATED_COLUMN, Row, render_table
from mpitaskmap.cli.compare import simulated_seconds
from mpitaskmap.metrics import DEFAULT_MESSAGE_MODEL, message_model_for
from mpitaskmap.providers import get_provider, machine_from_provider
from mpitaskmap.sim.simgrid import simgrid_missing

SIM = "sim:titan:nodes=8,ppn=4,seed=1"  # 32 processors, 4 per node, 2 nodes per Gemini router
TASKS = "stencil3d:4x4x2"
WHY = simgrid_missing(compiler=True)
needs_simgrid = pytest.mark.skipif(WHY is not None, reason=str(WHY))


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- everywhere ------------------------------------------------------------------------------
def test_table_gets_the_simulated_column_only_when_a_row_has_a_time(small_rows):
    plain = render_table(small_rows, "csv")
    assert SIMULATED_COLUMN not in plain.splitlines()[0]
    assert "simulated_s" not in render_table(small_rows, "json")
    small_rows[0].simulated = 2.5e-6
    header, first, second = render_table(small_rows, "csv").splitlines()
    cols = header.split(",")
    assert cols[-2:] == ["SimGrid s", "seconds"]  # the time names its model
    assert first.split(",")[-2] == "2.5e-06" and second.split(",")[-2] == ""  # not simulated: empty cell
    text = render_table(small_rows, "text").splitlines()
    assert text[0].split()[-3:] == ["SimGrid", "s", "seconds"] and text[1].split()[-2] == "2.5e-06"
    rows = json.loads(render_table(small_rows, "json"))["rows"]
    assert [r["simulated_s"] for r in rows] == [2.5e-6, None]


@pytest.fixture
def small_rows():
    graph = TaskGraph.stencil([4])
    machine = machine_from_provider(get_provider("sim:torus:dims=4"), 4)
    a, b = Mapping(np.arange(4), machine, graph), Mapping(np.array([0, 2, 1, 3]), machine, graph)
    return [Row("identity", a, {"total_hops": 6}, 0.001), Row("swap", b, {"total_hops": 10}, None)]


def test_simulate_without_simgrid_is_a_one_line_error(capsys, monkeypatch):
    import mpitaskmap.sim.simgrid

    monkeypatch.setattr(mpitaskmap.sim.simgrid, "simgrid_missing",
                        lambda compiler=False: "SimGrid's smpirun is not on PATH (install SimGrid: apt-get install "
                                               "libsimgrid-dev)")
    status, out, err = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity", "--simulate", "-q")
    assert status == 1 and out == ""
    assert err.strip().splitlines() == [
        "mpitaskmap compare: error: --simulate: SimGrid's smpirun is not on PATH (install SimGrid: apt-get install "
        "libsimgrid-dev)"]


@needs_simgrid
@pytest.mark.parametrize("option, message", [
    ("--link-latency=-1e-6", "--link-latency: must be non-negative"),
    ("--link-latency=nan", "--link-latency: must be non-negative"),
    ("--bytes-per-weight=0", "--bytes-per-weight: must be positive"),
])
def test_simulate_options_are_checked(capsys, option, message):
    status, _, err = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity", "--simulate",
                         option, "-q")
    assert status == 1 and message in err


def test_defaults_are_documented_in_the_help(capsys):
    status, out, _ = run(capsys, "compare", "--help")
    text = " ".join(out.split())  # argparse wraps the help where it likes
    assert status == 0
    assert "--simulate" in text and f"(default {DEFAULT_MESSAGE_MODEL.hop_latency:g})" in text
    assert "(default, as in the API: 1, the weights are bytes," in text and "libsimgrid-dev" in text
    assert "for a graph without message sizes, a stencil without weight= or a pattern matrix, 4096)" in text
    assert "{CM02,SMPI}" in text and "SMPI (default: SimGrid's SMPI model" in text


# -- with SimGrid ----------------------------------------------------------------------------
@needs_simgrid
def test_one_hop_messages_take_latency_plus_size_over_bandwidth(capsys):
    # a 1-D stencil of 4 tasks in order on a ring of 4 nodes (1 GB/s links): under the plain
    # fluid model every message is alone on its one link, so a step takes
    # L + B / W = 1 us + 1000 B / 1 GB/s = 2 us
    args = ("compare", "-m", "sim:torus:dims=4", "-t", "stencil1d:4", "--methods", "identity", "--simulate",
            "--link-latency", "1e-6", "--bytes-per-weight", "1000", "--format", "json", "-q")
    status, out, _ = run(capsys, *args, "--network-model", "CM02")
    assert status == 0
    assert json.loads(out)["rows"][0]["simulated_s"] == pytest.approx(2e-6, rel=1e-6)
    # by default SMPI's model: a 1000-B message starts after 1.9503 x its latency and gets
    # 0.341987 of its share of the link, which it shares with 5% of the reverse message (its
    # acknowledgements): 1.9503 us + 1000 B / (0.341987 x 1 GB/s / 1.05) = 5.0206 us
    status, out, _ = run(capsys, *args)
    assert status == 0
    smpi = 1.9503e-6 + 1000 / (0.341987e9 / 1.05)
    assert json.loads(out)["rows"][0]["simulated_s"] == pytest.approx(smpi, rel=1e-6)


@needs_simgrid
def test_compare_simulate_matches_simulate_exchange_in_every_format(capsys, tmp_path):
    from mpitaskmap.sim.simgrid_replay import simulate_exchange

    machine = machine_from_provider(get_provider(SIM), 32)
    graph = TaskGraph.stencil([4, 4, 2])
    geo = map_geometric(graph, machine)
    # SMPI's model; TASKS has no message sizes: 4 KiB per unit of weight, the default for the graph
    assert not graph.sized
    want_geo = simulate_exchange(geo, **message_model_for(graph).replay_options()).seconds
    assert want_geo == simulate_exchange(geo).seconds != simulate_exchange(geo, bytes_per_weight=1.0).seconds
    status, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric", "--simulate",
                         "--format", "csv", "-q")
    assert status == 0
    rows = {r["method"]: r for r in csv.DictReader(io.StringIO(out))}
    assert float(rows["geometric"]["SimGrid s"]) == want_geo
    assert float(rows["identity"]["SimGrid s"]) > 0
    # other latency and size: the JSON value follows the options
    status, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "geometric", "--simulate",
                         "--link-latency", "1e-6", "--bytes-per-weight", "16384", "--format", "json", "-q")
    want = simulate_exchange(geo, link_latency=1e-6, bytes_per_weight=16384).seconds
    assert json.loads(out)["rows"][0]["simulated_s"] == want
    status, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric", "--simulate",
                         "-q")
    header = out.splitlines()[0]
    assert header.index("SimGrid s") < header.index("seconds")
    pytest.importorskip("matplotlib")
    page = tmp_path / "report.html"
    status, _, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric", "--simulate",
                       "--html", str(page), "-q")
    text = page.read_text()
    assert status == 0 and "<th>SimGrid s</th>" in text and f'<td class="num">{want_geo:.4g}</td>' in text
    assert "SimGrid s: SimGrid&#x27;s simulated time of one exchange step under its SMPI network model" in text


@needs_simgrid
def test_a_mapping_whose_messages_stay_in_nodes_takes_no_time():
    machine = machine_from_provider(get_provider("sim:torus:dims=2,ppn=4"), 8)
    graph = TaskGraph.stencil([4])
    inside = Mapping(np.arange(4), machine, graph)  # the four tasks on the four cores of node 0
    assert simulated_seconds(inside, link_latency=1e-6, bytes_per_weight=1000) == 0.0
    across = Mapping(np.array([0, 1, 4, 5]), machine, graph)  # one message pair between the two nodes
    assert simulated_seconds(across, link_latency=1e-6, bytes_per_weight=1000, network="CM02") == pytest.approx(
        2e-6, rel=1e-6)
    # the default model is the fluid judge's: SMPI's, the same time as its in-process replay
    from mpitaskmap.sim.fluid import fluid_exchange

    fluid = fluid_exchange(graph, machine, across.task_to_proc, link_latency=1e-6, bytes_per_weight=1000).seconds
    assert simulated_seconds(across, link_latency=1e-6, bytes_per_weight=1000) == pytest.approx(fluid, rel=1e-6)
    assert fluid > 2e-6


@needs_simgrid
def test_map_auto_simulate_keeps_the_fastest_of_the_judged(capsys):
    from mpitaskmap.sim.simgrid_replay import simulate_exchange

    tasks = f"{TASKS}:weight=1"  # 1-byte messages: a case where a mapping simulates faster than the default order
    status, out, err = run(capsys, "map", "-m", SIM, "-t", tasks, "--method", "auto", "--simulate",
                           "--simulate-top", "2", "--simulate-also", "", "--format", "csv")
    assert status == 0
    assert "simulated the 2 best distinct mappings of the search (predicted_time), and the default order:" in err
    lines = err.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("simulated the 2 best"))
    rows = [line.split("  judge (")[0].split() for line in lines[i + 2: i + 4]]  # without the "picked" mark
    times = [float(r[-1]) for r in rows]
    assert [int(r[0]) for r in rows] == [1, 2]  # listed in objective order
    assert [r[2] for r in rows] == ["objective", "objective"]
    # the default order last, the baseline: slower than the pick
    default = lines[i + 4].split()
    assert default[2:4] == ["default", "order"] and float(default[-1]) > min(times)
    fastest = min(range(2), key=lambda k: (times[k], k))
    assert f"winner: {rows[fastest][3]}" in err and "(the fastest simulated)" in err
    assert f"  simulated step: default {float(default[-1]):.4g} s -> {min(times):.4g} s (" in err
    # the times are the simulator's, with the command's message model
    from mpitaskmap.cli._inputs import load_machine, load_tasks

    graph = load_tasks(tasks, None).graph
    machine = load_machine(SIM, graph.n_tasks).machine
    import mpitaskmap

    judged = mpitaskmap.map(graph, machine, judge="simulate", judge_top=2, judge_also=())  # the API's defaults
    from mpitaskmap.search.judge import JUDGE_CONFIG

    best = simulate_exchange(judged, **message_model_for(graph).replay_options(), config=JUDGE_CONFIG)
    assert best.seconds == pytest.approx(min(times), rel=1e-4)
    status, _, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "geometric", "--simulate")
    assert status == 1 and "only --method auto" in err
    status, _, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "auto", "--simulate",
                         "--simulate-also", "latency,speed")
    assert status != 0 and "--simulate-also: unknown metric 'speed'" in err


def test_judged_table_names_why_each_mapping_was_simulated():
    from mpitaskmap.cli.map import judged_table

    info = {"metric": "predicted_time", "candidate_index": 7, "judged": [
        dict(index=3, objective_rank=1, simulated_rank=2, chosen_by="objective", candidate="geometric fz T* P* shift",
             score=2.0e-6, simulated_s=3.0e-6),
        dict(index=7, objective_rank=2, simulated_rank=1, chosen_by="latency", candidate="greedy+uwh", score=2.5e-6,
             simulated_s=2.0e-6)]}
    lines = judged_table(info).splitlines()
    assert lines[0] == "simulated the 1 best distinct mappings of the search (predicted_time) and the best by latency:"
    assert " SimGrid s" in lines[1] and "simulated s" not in lines[1]  # the time names its model: SimGrid's own
    fluid_header = judged_table(dict(info, judge="fluid")).splitlines()[1]
    assert " replayed s" in fluid_header and " SimGrid s" not in fluid_header  # the in-process replay
    assert lines[2].split() == ["1", "2", "objective", "geometric", "fz", "T*", "P*", "shift", "2e-06", "3e-06"]
    assert lines[3].split() == ["2", "1", "latency", "greedy+uwh", "2.5e-06", "2e-06", "judge", "(objective's", "#2)"]
    # the columns say why each was replayed ("shortlisted by") and who picked the returned one
    assert lines[1].split()[:6] == ["by", "objective", "by", "time", "shortlisted", "by"] and lines[1].endswith("picked")
    assert lines[4].startswith("legend: by objective / by time: rank by the objective (predicted_time)")
    agree = judged_table(dict(info, candidate_index=3)).splitlines()
    assert agree[2].endswith("judge (objective's #1 too)") and agree[3].endswith("2e-06")
