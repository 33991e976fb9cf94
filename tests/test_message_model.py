"""One message model and one network model for every front end, and every time named by its model.

The message model (bytes per unit of weight, seconds per hop, the objective's overlap size)
is defined once (:class:`mpitaskmap.metrics.MessageModel`, :data:`DEFAULT_MESSAGE_MODEL`);
the API, the command line, ``remap()``, the replays, the demo and the benchmarks take their
defaults from it, so one input gives one winner through ``mpitaskmap.map``, ``mpitaskmap map``
and ``remap()``.  Every replay runs SimGrid's SMPI network model unless told otherwise
(:data:`mpitaskmap.sim.fluid.DEFAULT_NETWORK_MODEL`), so the judge's in-process figure and
SimGrid's own agree; CM02 stays one option away.
"""

import inspect
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import mpitaskmap as mt
from mpitaskmap.cli import main
from mpitaskmap.cli._common import MODEL_OPTIONS, message_model
from mpitaskmap.cli._inputs import load_machine, load_tasks
from mpitaskmap.cli._methods import Context, _auto_options
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mapfiles import read_map
from mpitaskmap.metrics import (DEFAULT_BYTES_PER_WEIGHT, DEFAULT_HOP_LATENCY, DEFAULT_MESSAGE_MODEL,
                                DEFAULT_OVERLAP_BYTES, UNSIZED_BYTES_PER_WEIGHT, MessageModel, describe_sizes,
                                evaluate, message_model_for, predicted_time, time_objective)
from mpitaskmap.search.judge import JUDGE_CONFIG, JUDGE_STEPS, fluid_seconds
from mpitaskmap.search.problem import Problem
from mpitaskmap.sim.fluid import (CM02, DEFAULT_NETWORK_MODEL, SMPI, NetworkModel, exchange_messages,
                                  fluid_exchange)
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.sim.simgrid_replay import DEFAULT_CONFIG, simulate_exchange

ROOT = Path(__file__).resolve().parents[1]
WHY = simgrid_missing(compiler=True)
needs_simgrid = pytest.mark.skipif(WHY is not None, reason=str(WHY))

#: An input where the message model decides the winner: 8 tasks on a sparse Titan allocation, with
#: 1-byte messages (TASKS: weights are bytes) and without message sizes (TASKS_UNSIZED).
SPEC, TASKS, TASKS_UNSIZED = "sim:titan:ppn=1,seed=2", "stencil3d:4x2x1:weight=1", "stencil3d:4x2x1"
#: Its winner with 1-byte messages (latency-bound) ...
WINNER, WINNER_TTP = "geometric gray T(0,1) P(1,0,2) shift", [1, 0, 6, 7, 3, 2, 4, 5]
#: ... and with 4 KiB per unit of weight: the size assumed without sizes (UNSIZED_BYTES_PER_WEIGHT), and the
#: command line's default before issue 28.
WINNER_4K, WINNER_4K_TTP = "geometric fz T* P(2,0,1) shift", [1, 3, 5, 0, 2, 4, 6, 7]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- the one definition -----------------------------------------------------------------------
def test_the_default_model_is_weights_as_bytes_100ns_a_hop_overlap_beyond_128_bytes():
    m = DEFAULT_MESSAGE_MODEL
    assert (m.bytes_per_weight, m.hop_latency, m.overlap_bytes) == (1.0, 1e-7, 128.0)
    assert (DEFAULT_BYTES_PER_WEIGHT, DEFAULT_HOP_LATENCY, DEFAULT_OVERLAP_BYTES) == (1.0, 1e-7, 128.0)
    assert m == MessageModel() and m.metric_options() == {"bytes_per_weight": 1.0, "hop_latency": 1e-7,
                                                         "overlap_bytes": 128.0}
    assert m.replay_options() == {"link_latency": 1e-7, "bytes_per_weight": 1.0}
    assert MessageModel(bytes_per_weight=8, overlap_bytes=math.inf).bytes_per_weight == 8.0  # stored as floats


@pytest.mark.parametrize("values, names, message", [
    ((0, 1e-7, 128), None, "bytes_per_weight: must be positive and finite; got 0"),
    ((1, -1e-7, 128), None, "hop_latency: must be non-negative and finite; got -1e-07"),
    ((1, 1e-7, float("nan")), None, "overlap_bytes: must be positive (bytes; inf allowed); got nan"),
    ((1, 1e-7, "big"), None, "overlap_bytes: expected a number (bytes; inf allowed); got 'big'"),
    ((0, 1e-7, 128), MODEL_OPTIONS, "--bytes-per-weight: must be positive and finite; got 0"),
    ((1, float("inf"), 128), MODEL_OPTIONS, "--link-latency: must be non-negative and finite; got inf"),
    ((1, 1e-7, -5.0), MODEL_OPTIONS, "--overlap-bytes: must be positive (bytes; inf allowed); got -5.0"),
])
def test_a_bad_value_names_its_parameter_or_option(values, names, message):
    with pytest.raises(InvalidInputError) as err:
        if names is None:
            MessageModel(*values)
        else:
            MessageModel.checked(*values, names=names)
    assert str(err.value) == message


def test_the_models_objective_is_predicted_time_with_its_messages():
    g = mt.TaskGraph.from_edges([0, 1], [2, 2], [1.0, 20.0], n_tasks=3)
    m = mt.torus_machine([3], wrap=False)  # 1 GB/s links
    model = MessageModel(bytes_per_weight=64.0, hop_latency=1e-6)
    f = model.objective()
    # link 1->2 carries 64 + 1280 B (1.344 us); the 64-B message's 2 hops count in full (2 us)
    assert f.__name__ == "predicted_time" and f(g, m, [0, 1, 2]) == pytest.approx(3.344e-6, rel=1e-12)
    assert f(g, m, [0, 1, 2]) == predicted_time(g, m, [0, 1, 2], **model.metric_options())
    assert evaluate(g, m, [0, 1, 2], ["predicted_time"], **model.metric_options())["predicted_time"] == f(g, m,
                                                                                                          [0, 1, 2])


# -- every front end takes its defaults from it ------------------------------------------------------
def _defaults(func, **names) -> dict:
    params = inspect.signature(func).parameters
    return {key: params[name].default for key, name in names.items()}


def test_the_library_functions_default_to_the_one_model():
    # bytes per unit of weight: None, the graph's own (message_model_for); the rest the one model's
    m = DEFAULT_MESSAGE_MODEL
    model = {"bytes_per_weight": None, "hop_latency": m.hop_latency, "overlap_bytes": m.overlap_bytes}
    for func in (predicted_time, evaluate, time_objective):
        assert _defaults(func, **{k: k for k in model}) == model, func.__name__
    from mpitaskmap.cli.compare import simulated_seconds

    replay = {"bytes_per_weight": None, "link_latency": m.hop_latency}
    for func in (fluid_exchange, simulate_exchange, simulated_seconds):
        assert _defaults(func, **{k: k for k in replay}) == replay, func.__name__
    assert _defaults(exchange_messages, b="bytes_per_weight") == {"b": None}
    # None is 1 byte per unit for a graph with sizes, 4 KiB for one without: every function alike
    machine = load_machine("sim:titan:ppn=1,seed=1", 8).machine
    ttp = np.arange(8)
    for graph, bpw in ((load_tasks(TASKS).graph, 1.0), (load_tasks(TASKS_UNSIZED).graph, 4096.0)):
        assert predicted_time(graph, machine, ttp) == predicted_time(graph, machine, ttp, bytes_per_weight=bpw)
        assert evaluate(graph, machine, ttp, ["predicted_time"]) == {
            "predicted_time": predicted_time(graph, machine, ttp, bytes_per_weight=bpw)}
        assert time_objective()(graph, machine, ttp) == predicted_time(graph, machine, ttp, bytes_per_weight=bpw)
        assert np.array_equal(exchange_messages(graph, machine, ttp)[2],
                              exchange_messages(graph, machine, ttp, bytes_per_weight=bpw)[2])
        assert (fluid_exchange(graph, machine, ttp).seconds
                == fluid_exchange(graph, machine, ttp, bytes_per_weight=bpw).seconds)


@pytest.mark.parametrize("command", ["map", "compare", "eval", "simgrid"])
def test_every_command_defaults_to_the_apis_model(command):
    import importlib

    module = importlib.import_module(f"mpitaskmap.cli.{'smpi' if command == 'simgrid' else command}")
    extra = ["-o", "somewhere"] if command == "simgrid" else []
    args = module.build_parser().parse_args(["-m", SPEC, "-t", TASKS, *extra])
    assert args.bytes_per_weight is None  # not given: the API's default for the graph
    assert message_model(args, load_tasks(TASKS).graph) == DEFAULT_MESSAGE_MODEL
    unsized = load_tasks(TASKS_UNSIZED).graph
    assert message_model(args, unsized) == message_model_for(unsized) == MessageModel(bytes_per_weight=4096.0)
    given = module.build_parser().parse_args(["-m", SPEC, "-t", TASKS, "--bytes-per-weight", "8", *extra])
    assert message_model(given, unsized).bytes_per_weight == 8.0  # the user's value, sizes or not
    assert Context().model == DEFAULT_MESSAGE_MODEL and Context().network == DEFAULT_NETWORK_MODEL.name


def test_the_simgrid_command_gives_its_predtime_column_the_commands_model(capsys, tmp_path):
    graph, machine = load_tasks(TASKS).graph, load_machine(SPEC, 8).machine
    status, _, _ = run(capsys, "simgrid", "-m", SPEC, "-t", TASKS, "--methods", "identity", "-o", str(tmp_path), "-q",
                       "--metrics", "predicted_time", "--bytes-per-weight", "4096")
    got = json.loads((tmp_path / "results.json").read_text())["rows"][0]["metrics"]["predicted_time"]
    assert status == 0 and got == predicted_time(graph, machine, np.arange(8), bytes_per_weight=4096.0)
    assert got != predicted_time(graph, machine, np.arange(8))


def test_the_judge_replays_with_the_one_model_by_default():
    g = mt.TaskGraph.stencil((4, 2, 2), weight=2560.0)
    machine = load_machine("sim:titan:ppn=1,seed=1", 16).machine
    mapping = mt.identity_mapping(g, machine)
    want = fluid_exchange(g, machine, mapping.task_to_proc, link_latency=1e-7, bytes_per_weight=1.0, model="SMPI",
                          steps=JUDGE_STEPS)
    assert fluid_seconds(Problem(g, machine), mapping) == want.seconds / JUDGE_STEPS
    # an option given replaces only itself
    other = fluid_exchange(g, machine, mapping.task_to_proc, link_latency=1e-7, bytes_per_weight=2.0,
                           steps=JUDGE_STEPS).seconds / JUDGE_STEPS
    assert fluid_seconds(Problem(g, machine), mapping, {"bytes_per_weight": 2.0}) == other != want.seconds / JUDGE_STEPS
    one = fluid_exchange(g, machine, mapping.task_to_proc, link_latency=1e-7).seconds
    assert fluid_seconds(Problem(g, machine), mapping, {"steps": 1}) == one


def test_the_command_lines_judge_gets_its_message_and_network_model():
    g, m = load_tasks(TASKS).graph, load_machine(SPEC, 8).machine
    options, _ = _auto_options(g, m, Context(model=MessageModel(bytes_per_weight=8.0), network="CM02",
                                             judge="fluid"))
    assert options["judge_options"] == {"link_latency": 1e-7, "bytes_per_weight": 8.0, "model": "CM02"}
    assert options["metric"].__name__ == "predicted_time"
    options, _ = _auto_options(g, m, Context(judge="simulate"))
    assert options["judge_options"] == {"link_latency": 1e-7, "bytes_per_weight": 1.0,
                                        "config": ("network/model:SMPI",)}


def test_the_demo_and_the_benchmarks_take_the_one_model(benchmark_loader, capsys):
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import minighost
    finally:
        sys.path.pop(0)
    g = mt.TaskGraph.stencil((4, 2, 2), weight=4608.0)
    machine = load_machine("sim:titan:ppn=1,seed=1", 16).machine
    rep = minighost.replayed_step_seconds(g, machine, {"default": np.arange(16)})
    assert rep["default"] == fluid_seconds(Problem(g, machine), mt.identity_mapping(g, machine), {"steps": 1})
    with benchmark_loader("fluid_speed") as bench:
        assert bench.LINK_LATENCY == DEFAULT_HOP_LATENCY
    with benchmark_loader("metrics_vs_time") as bench:
        assert bench.LINK_LATENCY == DEFAULT_HOP_LATENCY
    for name in ("app_time_smpi", "smpi_sensitivity"):
        with benchmark_loader(name) as bench, pytest.raises(SystemExit):
            bench.main(["--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "seconds per link (default 1e-07" in text, name


# -- one input, one winner ----------------------------------------------------------------------
def test_the_same_input_gives_the_same_winner_through_map_the_command_line_and_remap(capsys, tmp_path):
    from test_examples import MPIEXEC, run as mpirun

    machine = load_machine(SPEC, 8).machine
    graph, unsized = load_tasks(TASKS).graph, load_tasks(TASKS_UNSIZED).graph
    assert graph.sized and not unsized.sized and np.array_equal(graph.weights, unsized.weights)
    api = mt.map(graph, machine, "auto")
    assert api.info["candidate"] == WINNER and api.task_to_proc.tolist() == WINNER_TTP
    # without message sizes: 4 KiB per unit of weight assumed, another winner (what 1-byte messages hide)
    assert mt.map(unsized, machine, "auto").task_to_proc.tolist() == WINNER_4K_TTP
    assert mt.map(graph, machine, metric=time_objective(4096.0), judge="fluid",
                  judge_options={"bytes_per_weight": 4096.0}, judge_also=()).task_to_proc.tolist() == WINNER_4K_TTP
    # the command line, with no message option: the same winners and mappings
    for tasks, winner, ttp in ((TASKS, WINNER, WINNER_TTP), (TASKS_UNSIZED, WINNER_4K, WINNER_4K_TTP)):
        status, out, _ = run(capsys, "map", "-m", SPEC, "-t", tasks, "--method", "auto", "--format", "json", "-q",
                             "-o", f"csv={tmp_path / 'cli.csv'}")
        assert status == 0 and json.loads(out)["rows"][1]["info"]["candidate"] == winner, tasks
        assert read_map(tmp_path / "cli.csv", machine, "csv").task_to_proc.tolist() == ttp, tasks
    # --bytes-per-weight 4096 on 1-byte messages: the 4 KiB winner; 1 on the unsized graph: the 1-byte one
    status, out, _ = run(capsys, "map", "-m", SPEC, "-t", TASKS, "--method", "auto", "--format", "json", "-q",
                         "--bytes-per-weight", "4096")
    assert status == 0 and json.loads(out)["rows"][1]["info"]["candidate"] == WINNER_4K
    status, out, _ = run(capsys, "map", "-m", SPEC, "-t", TASKS_UNSIZED, "--method", "auto", "--format", "json", "-q",
                         "--bytes-per-weight", "1")
    assert status == 0 and json.loads(out)["rows"][1]["info"]["candidate"] == WINNER
    # remap() in an 8-rank job: rank r runs task r of the same graph (its CSR row as neighbours), with its
    # weights and without
    if MPIEXEC is None:
        pytest.skip("no mpiexec next to this Python or on PATH")
    families = api.info["families"].split(",")  # what map() searched: every family with candidates here
    assert families == ["geometric", "graph"]
    code = f"""
import json
from mpi4py import MPI
import mpitaskmap as mt
from mpitaskmap.cli._inputs import load_tasks
g = load_tasks({TASKS!r}).graph
r = MPI.COMM_WORLD.rank
lo, hi = g.indptr[r], g.indptr[r + 1]
out = {{}}
for name, weights in (("sized", g.weights[lo:hi].tolist()), ("unsized", None)):
    comm, rep = mt.remap(MPI.COMM_WORLD, g.coords[r], neighbors=g.indices[lo:hi].tolist(), weights=weights,
                         provider={SPEC!r}, families={families!r}, report=True)
    out[name] = {{"winner": rep.winner, "new_rank_of": rep.new_rank_of, "summary": rep.summary()}}
if r == 0:
    print(json.dumps(out))
"""
    got = json.loads(mpirun(8, "-c", code).strip().splitlines()[-1])
    for name, winner, want in (("sized", WINNER, WINNER_TTP), ("unsized", WINNER_4K, WINNER_4K_TTP)):
        ttp = [0] * 8
        for old, new in enumerate(got[name]["new_rank_of"]):
            ttp[new] = old  # new rank t is the process on processor `old`: task t runs there
        assert got[name]["winner"] == winner and ttp == want, name
        assert "judge: fluid replay (SMPI network model)" in got[name]["summary"]
    assert "messages:" not in got["sized"]["summary"]
    assert "  messages: no message sizes given: 4096 B per unit of weight assumed" in got["unsized"]["summary"]


# -- a task graph without message sizes ---------------------------------------------------------------


def test_a_graph_without_sizes_is_searched_and_judged_with_the_representative_size():
    unsized = load_tasks(TASKS_UNSIZED).graph
    machine = load_machine(SPEC, 8).machine
    problem = Problem(unsized, machine)
    assert UNSIZED_BYTES_PER_WEIGHT == 4096.0
    assert problem.message_model == MessageModel(bytes_per_weight=4096.0)
    assert Problem(load_tasks(TASKS).graph, machine).message_model == DEFAULT_MESSAGE_MODEL
    mapping = mt.identity_mapping(unsized, machine)
    # the objective: predicted time of 4 KiB messages, not of 1-byte ones
    from mpitaskmap.search.scoring import _score_function

    score = _score_function(problem, None)(mapping)
    assert score == predicted_time(unsized, machine, mapping.task_to_proc, bytes_per_weight=4096.0)
    assert score == predicted_time(unsized, machine, mapping.task_to_proc)  # the library's default for the graph
    assert score != predicted_time(unsized, machine, mapping.task_to_proc, bytes_per_weight=1.0)
    # the judge's replay too
    want = fluid_exchange(unsized, machine, mapping.task_to_proc, bytes_per_weight=4096.0, steps=JUDGE_STEPS)
    assert fluid_seconds(problem, mapping) == want.seconds / JUDGE_STEPS
    # the note against the default order and the judge's extra metrics read the same model
    from mpitaskmap.search.families.graph import WORSE_THAN_DEFAULT, note_against_default

    worse = mt.Mapping([0, 7, 2, 3, 4, 5, 6, 1], machine, unsized)  # tasks 1 and 7 swapped: a longer route
    note = note_against_default(worse, problem).info[WORSE_THAN_DEFAULT]
    assert note["value"] == predicted_time(unsized, machine, worse.task_to_proc, bytes_per_weight=4096.0)
    assert note["default"] == predicted_time(unsized, machine, np.arange(8), bytes_per_weight=4096.0)
    # said in the reports
    assert describe_sizes(unsized, problem.message_model) == ("no message sizes given: 4096 B per unit of weight "
                                                              "assumed")


def test_the_map_command_says_when_it_assumed_the_message_size(capsys):
    status, _, err = run(capsys, "map", "-m", SPEC, "-t", TASKS_UNSIZED, "--method", "geometric")
    assert status == 0
    assert f"tasks    {TASKS_UNSIZED}: 8 tasks, 20 messages, 3-D coordinates, no message sizes" in err
    assert "messages no message sizes given: 4096 B per unit of weight assumed" in err
    status, _, err = run(capsys, "map", "-m", SPEC, "-t", TASKS_UNSIZED, "--method", "geometric",
                         "--bytes-per-weight", "64")
    assert "messages no message sizes given: 64 B per unit of weight assumed" in err
    status, _, err = run(capsys, "map", "-m", SPEC, "-t", TASKS, "--method", "geometric")
    assert "no message sizes" not in err and "\nmessages " not in err


# -- one network model, named times -------------------------------------------------------------
def test_every_replay_defaults_to_smpis_network_model():
    from mpitaskmap.cli.compare import simulated_seconds

    assert DEFAULT_NETWORK_MODEL is SMPI and SMPI.simgrid_config == ("network/model:SMPI",)
    assert DEFAULT_CONFIG == JUDGE_CONFIG == SMPI.simgrid_config
    assert inspect.signature(simulate_exchange).parameters["config"].default == SMPI.simgrid_config
    assert inspect.signature(fluid_exchange).parameters["model"].default is SMPI
    assert inspect.signature(simulated_seconds).parameters["network"].default == "SMPI"
    assert CM02.simgrid_config == ("network/model:CM02", "network/crosstraffic:0")  # on request
    with pytest.raises(InvalidInputError, match="simgrid_config: expected a sequence of 'KEY:VALUE' strings"):
        NetworkModel("x", 0.0, 0.0, simgrid_config="network/model:SMPI")


def test_the_remap_report_names_each_time_by_its_model():
    from mpitaskmap.runtime.report import RemapReport

    # the judge decided: the replayed change first (the default order's replayed step beside the winner's), the
    # predicted change second
    default = dict(index=0, score=2e-7, simulated_s=5e-7, chosen_by="default order")
    rep = RemapReport(status="remapped", metric="predicted_time", n_candidates=10, winner="geometric", winner_index=3,
                      before=2e-7, after=1e-7, judge="fluid", objective_winner="geometric", default_simulated_s=5e-7,
                      judged=[dict(index=3, score=1e-7, simulated_s=4.5e-7, chosen_by="objective"),
                              dict(index=5, score=1.5e-7, simulated_s=4.6e-7, chosen_by="objective"), default])
    lines = rep.summary().splitlines()
    assert lines[1] == ("  replayed step: default 5e-07 s -> 4.5e-07 s (10.0% lower); winner #3 geometric of 10 "
                        "candidates")
    assert lines[2] == "  predicted_time: default 2e-07 s -> 1e-07 s (predicted, 50.0% lower)"
    assert lines[3] == ("  judge: fluid replay (SMPI network model) of the objective's 2 best and the default order, "
                        "replayed #3 4.5e-07 s, #5 4.6e-07 s; the objective's pick: geometric")
    # mappings tied with the last of the top: counted, and the fastest of them named
    tied = RemapReport(status="remapped", metric="predicted_time", n_candidates=10, winner="g", winner_index=8,
                       before=2e-7, after=1e-7, judge="fluid", objective_winner="g",
                       judged=[dict(index=3, score=1e-7, simulated_s=4.5e-7, chosen_by="objective"),
                               dict(index=7, score=1e-7, simulated_s=4.4e-7, chosen_by="tie"),
                               dict(index=8, score=1e-7, simulated_s=4.3e-7, chosen_by="tie"), default])
    assert tied.summary().splitlines()[3] == (
        "  judge: fluid replay (SMPI network model) of the objective's 1 best and the default order, replayed #3 "
        "4.5e-07 s; 2 more tied with the last of them, the fastest #8 4.3e-07 s; the objective's pick: g")
    # no mapping replays faster than the default order: it is kept, "no gain found"; the objective's pick second
    kept = RemapReport(status="identity", metric="predicted_time", n_candidates=10, n_refined=2,
                       winner="identity (default order)", winner_index=0, before=2e-7, after=2e-7, judge="fluid",
                       objective_winner="g", judged=[dict(index=3, score=1e-7, simulated_s=5e-7, chosen_by="objective"),
                                                     default])
    assert kept.summary().splitlines()[1:3] == [
        "  replayed step: default 5e-07 s, no gain found: the other mapping replayed, #3, 5e-07 s; the default order "
        "is kept (10 candidates, 2 refined)",
        "  predicted_time: default 2e-07 s -> 2e-07 s (predicted, unchanged); the objective's pick #3: 1e-07 s "
        "(predicted, 50.0% lower)"]
    # another objective is no time: no unit, no model
    other = RemapReport(status="remapped", metric="weighted_hops", n_candidates=2, winner="g", winner_index=1,
                        before=4.0, after=2.0)
    assert other.summary().splitlines()[1] == "  weighted_hops: default 4 -> 2 (50.0% lower); winner #1 g of 2 candidates"


def _demo_input():
    """The demo's job (examples/minighost.py, 16 ranks): its task graph and allocation."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import minighost
    finally:
        sys.path.pop(0)
    grid, size, face = (4, 2, 2), 16, 12 * 12 * 4 * 8.0
    machine = load_machine("sim:titan:ppn=1,seed=1", size).machine
    graph = mt.TaskGraph.from_neighbor_lists(
        [minighost.face_neighbors(t, grid) for t in range(size)],
        [[face] * len(minighost.face_neighbors(t, grid)) for t in range(size)],
        coords=[minighost.task_coords(t, grid) for t in range(size)])
    return graph, machine


@needs_simgrid
def test_the_judges_figure_for_the_demos_winner_is_simgrids_own():
    from mpitaskmap.search.scoring import apply

    graph, machine = _demo_input()
    # remap()'s search (its default family), judged by the default fluid replay
    best = mt.map(graph, machine, families="geometric")
    assert best.info["judge"] == "fluid" and best.info["candidate"] == "geometric fz T* P* shift"
    problem = Problem(graph, machine)
    for row in best.info["judged"]:
        mapping = apply(best.info["candidate_list"][row["index"]], problem)
        simgrid = simulate_exchange(mapping).seconds  # defaults: the same message and network model
        # the README's precision, 1e-6 relative; here they agree to a few ulps (1.2e-16)
        assert row["simulated_s"] == pytest.approx(simgrid, rel=1e-6, abs=0)
        assert abs(row["simulated_s"] - simgrid) <= 1e-12 * simgrid
    winner = next(r for r in best.info["judged"] if r["index"] == best.info["candidate_index"])
    assert winner["simulated_s"] == pytest.approx(4.378474287e-07, rel=1e-9)
    # the plain fluid model is one option away, and gives another time (the demo's old 2.843e-07 s)
    cm02 = simulate_exchange(best, config=CM02.simgrid_config).seconds
    assert cm02 == pytest.approx(2.8432e-07, rel=1e-4)
    assert fluid_exchange(graph, machine, best.task_to_proc, model="CM02").seconds == pytest.approx(cm02, rel=2e-4)
