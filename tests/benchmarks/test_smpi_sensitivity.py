"""benchmarks/smpi_sensitivity.py: its candidate shortlist (everywhere) and a small run (with SimGrid)."""

import json

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.search.judge import JUDGE_CONFIG
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.sim.fluid import CM02
from mpitaskmap.graphs.taskgraph import TaskGraph

WHY = simgrid_missing(compiler=True)


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("smpi_sensitivity") as mod:
        yield mod


def test_models_switch_off_one_correction_each(bench):
    models = bench.MODELS
    assert models["SMPI"] == JUDGE_CONFIG and models["fluid"] == CM02.simgrid_config
    off = {name: set(cfg) - set(JUDGE_CONFIG) for name, cfg in models.items() if name not in ("SMPI", "fluid")}
    assert off == {"bw-factor 1": {"smpi/bw-factor:0:1"}, "lat-factor 1": {"smpi/lat-factor:0:1"},
                   "weight-S 0": {"network/weight-S:0"}, "crosstraffic 0": {"network/crosstraffic:0"}}
    assert all(set(JUDGE_CONFIG) <= set(cfg) for name, cfg in models.items() if name != "fluid")


def test_best_distinct_starts_with_the_objectives_pick_and_ranks_by_the_objective(bench):
    machine = machine_from_spec("sim:titan:nodes=8,ppn=4,seed=1", 32).machine
    graph = TaskGraph.stencil((4, 4, 2), weight=2560.0)
    best = bench.best_distinct(graph, machine, 4)
    auto = mpitaskmap.map(graph, machine, "auto")
    objective_only = mpitaskmap.map(graph, machine, "auto", judge=None)
    assert len(best) == 4
    assert best[0][1] == auto.info["objective_winner"] == objective_only.info["candidate"]
    assert best[0][0] == objective_only.info["candidate_index"]
    np.testing.assert_array_equal(best[0][3], objective_only.task_to_proc)
    # here every shortlisted mapping replays as fast as the default order: the judge keeps it
    assert auto.info["candidate_index"] == 0 and best[0][0] != 0
    keys = [(score, index) for index, _, score, _ in best]
    assert keys == sorted(keys)  # by objective, ties to the lower index
    for index, _, score, t2p in best:  # each score is the search objective of its own mapping
        assert score == pytest.approx(mpitaskmap.metrics.evaluate(graph, machine, t2p, ["predicted_time"])
                                      ["predicted_time"], rel=1e-12)
    assert len({t2p.tobytes() for *_, t2p in best}) == 4  # distinct rank orders
    assert len(bench.best_distinct(graph, machine, 1)) == 1


def test_app_times_read_the_case_of_an_app_time_json(bench, tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"candidates": [
        {"case": "n64_ppn8_seed1", "candidates": [{"index": 0, "comm_s": 2.0}, {"index": 5, "comm_s": None}]},
        {"case": "n64_ppn8_seed2", "candidates": [{"index": 0, "comm_s": 3.0}]}]}))
    assert bench.app_times(str(path), "n64_ppn8_seed1") == {0: 2.0}
    assert bench.app_times(str(path), "n64_ppn8_seed2") == {0: 3.0}
    assert bench.app_times(str(path), "n64_ppn8_seed3") == {}
    assert bench.app_times(None, "n64_ppn8_seed1") == {}


@pytest.mark.parametrize("args, message", [
    (["--case", "100:8:1"], "--case: ranks must be one of [64, 256, 512, 1024, 2048, 4096]; got 100"),
    (["--case", "4096:16"], "--case: expected RANKS:PPN:SEED (three integers); got '4096:16'"),
    (["--case", "64:8:x"], "--case: expected RANKS:PPN:SEED (three integers); got '64:8:x'"),
    (["--top", "0"], "--top: must be at least 1; got 0"),
])
def test_bad_arguments_are_named(bench, capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        bench.main(args)
    assert exc.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.skipif(bool(WHY), reason=WHY or "")
def test_small_run_replays_each_candidate_under_every_model(bench, tmp_path, capsys):
    machine = machine_from_spec("sim:titan:ppn=8,seed=1", 64).machine
    (i1, *_), (i2, *_) = bench.best_distinct(machine=machine, graph=TaskGraph.stencil((4, 4, 4), weight=2560.0),
                                             top=2)
    app = tmp_path / "app.json"  # the application's times of the two, as app_time_smpi.py writes them
    app.write_text(json.dumps({"candidates": [{"case": "n64_ppn8_seed1", "candidates": [
        {"index": i1, "comm_s": 2.0e-5}, {"index": i2, "comm_s": 1.5e-5}]}]}))
    out = tmp_path / "s.json"
    assert bench.main(["--case", "64:8:1", "--top", "2", "--json", str(out), "--app-json", str(app)]) == 0
    text = capsys.readouterr().out
    assert f"  #1 candidate {i1}: " in text and f"  #2 candidate {i2}: " in text
    assert "  app               #1 1.000  #2 0.750\n" in text
    data = json.loads(out.read_text())
    assert [r["model"] for r in data["records"]] == list(bench.MODELS)
    for rec in data["records"]:
        assert len(rec["seconds"]) == 2 and all(s > 0 for s in rec["seconds"])
        assert f"  {rec['model']:<16}  #1 1.000  #2 {rec['seconds'][1] / rec['seconds'][0]:.3f}" in text
    secs = {r["model"]: r["seconds"][0] for r in data["records"]}
    # SMPI's bandwidth factor below 1 at 2560 B slows the same exchange; its latency factor above 1 too
    assert secs["bw-factor 1"] < secs["SMPI"] and secs["lat-factor 1"] < secs["SMPI"]
