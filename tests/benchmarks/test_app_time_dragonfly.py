"""benchmarks/app_time_dragonfly.py and its Zoltan2 input: helpers everywhere, a small run with SimGrid."""

import json

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.machines import DragonflyMachine
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks.peers import zoltan2, zoltan2_dragonfly

WHY = simgrid_missing(compiler=True)


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("app_time_dragonfly") as mod:
        yield mod


def test_case_specs_scatter_or_confine_the_allocation(bench):
    assert bench.spec("frontier", "scattered", 512, 8, 2, 4) == "sim:frontier:nodes=64,ppn=8,seed=2"
    assert bench.spec("aries", "confined", 4096, 8, 1, 3) == "sim:aries:nodes=512,ppn=8,seed=1,groups=3"
    m = machine_from_spec(bench.spec("frontier", "confined", 512, 8, 1, 4), 512).machine
    assert m.n_procs == 512 and len(set(m.locate(range(512))[:, 0].tolist())) <= 4
    wide = machine_from_spec(bench.spec("frontier", "scattered", 512, 8, 1, 4), 512).machine
    assert len(set(wide.locate(range(512))[:, 0].tolist())) > 4


def test_random_order_is_a_seeded_permutation(bench):
    a, b = bench.random_order(64, 1), bench.random_order(64, 2)
    assert sorted(a.tolist()) == list(range(64)) and np.array_equal(a, bench.random_order(64, 1))
    assert not np.array_equal(a, b) and not np.array_equal(a, np.arange(64))


def test_level_costs_follow_the_hierarchy(bench):
    # all-to-all groups: switch, group, machine; Aries adds the row (green links) below the group
    assert bench.level_costs(DragonflyMachine(3, 3, 2, [0, 7])) == (1.0, 1.0, 2.0)
    assert bench.level_costs(DragonflyMachine(3, (2, 2), 2, [0, 7])) == (1.0, 1.0, 1.0, 2.0)


def test_spearman_of_methods(bench):
    assert bench.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert bench.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert bench.spearman([1, 2], [1, 2]) is None          # too few methods
    assert bench.spearman([1, 1, 1], [1, 2, 3]) is None    # a constant objective ranks nothing


def _row(method, comm, pt, allocation="scattered"):
    return {"machine": "frontier", "allocation": allocation, "n": 512, "ppn": 8, "seed": 1, "method": method,
            "comm_s": comm, "map_s": 0.0,
            "metrics": {"predicted_time": pt, "average_hops": 1.0, "latency": 1.0}}


def test_verdicts_name_the_targets(bench, capsys):
    rows = [_row("identity", 10.0, 9.0), _row("random", 12.0, 10.0), _row("auto", 7.0, 6.0),
            _row("kahip", 6.5, 7.0),
            _row("identity", 10.0, 9.0, "confined"), _row("auto", 9.0, 8.0, "confined"),
            _row("random", 11.0, 10.0, "confined")]
    bench.print_verdicts(rows)
    out = capsys.readouterr().out
    # the objective ranks kahip behind auto, SMPI ahead: rho 0.8 over the four methods
    assert ("frontier scattered ranks 512 ppn 8 seed 1: auto 30.0% below identity (meets 20%); auto <= every other "
            "method: no: kahip +7.7%; Spearman +0.80") in out
    assert ("frontier confined ranks 512 ppn 8 seed 1: auto 10.0% below identity (no target when confined); "
            "auto <= every other method: yes; Spearman +1.00") in out


def test_report_merges_earlier_json_files(bench, tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"records": [_row("identity", 10.0, 9.0)]}))
    b.write_text(json.dumps({"records": [_row("auto", 6.0, 5.0), _row("random", 12.0, 11.0)]}))
    assert bench.main(["--report", f"{a},{b}"]) == 0
    out = capsys.readouterr().out
    assert "-40.0%" in out and "+20.0%" in out and "auto 40.0% below identity (meets 20%)" in out


def _sst_row(method, comm, pt, routing, allocation="scattered"):
    return dict(_row(method, comm, pt, allocation), machine="circulant", routing=routing, wall_s=1.0, same_as=None,
                error=None)


def test_sstmacro_verdicts_name_issue_43s_targets(bench, capsys):
    rows = [_sst_row("identity", 10.0, 9.0, "ugal"), _sst_row("random", 8.0, 10.0, "ugal"),
            _sst_row("auto", 7.0, 6.0, "ugal"), _sst_row("packing", 6.0, 8.0, "ugal"),
            _sst_row("identity", 10.0, 9.0, "minimal"), _sst_row("auto", 5.0, 6.0, "minimal"),
            _sst_row("random", 12.0, 10.0, "minimal"),
            _sst_row("identity", 10.0, 9.0, "ugal", "confined"), _sst_row("auto", 9.0, 8.0, "ugal", "confined"),
            _sst_row("random", 11.0, 10.0, "ugal", "confined")]
    bench.print_sstmacro_verdicts(rows)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("issue 43 (SST/macro, UGAL): auto <= random, identity and packing on every case; "
                               "auto >= 15% below the better of identity and random")
    # minimal before ugal (SST/macro's router order); the better of identity and random: 8.0; rho over
    # (identity, random, auto, packing): predicted ranks 3 4 1 2, SST/macro's 4 3 2 1, sum d^2 4: 1 - 24/60
    assert lines[1:] == [
        "  circulant scattered ranks 512 ppn 8 seed 1 minimal: Spearman +1.00",
        "  circulant scattered ranks 512 ppn 8 seed 1 ugal: Spearman +0.60; auto <= random, identity, packing: no: "
        "packing +16.7%; 12.5% below the better of identity and random (misses 15%)",
        "  circulant confined ranks 512 ppn 8 seed 1 ugal: Spearman +1.00; auto <= random, identity, packing: yes"]


def test_sstmacro_report_and_its_table(bench, tmp_path, capsys):
    a = tmp_path / "a.json"
    a.write_text(json.dumps({"records": [_sst_row("identity", 10.0, 9.0, "ugal"), _sst_row("auto", 6.0, 5.0, "ugal"),
                                         _sst_row("random", 12.0, 11.0, "ugal")]}))
    assert bench.main(["--report", str(a)]) == 0
    out = capsys.readouterr().out
    assert "routing" in out and "ugal" in out and "-40.0%" in out and "Spearman(predicted time, SST/macro time)" in out


def test_report_of_both_simulators_prints_their_agreement(bench, tmp_path, capsys):
    smpi = [dict(_row(m, t, 1.0), machine="circulant") for m, t in (("identity", 3.0), ("random", 4.0), ("auto", 1.0),
                                                                   ("packing", 2.0))]
    sst = [_sst_row(m, t, 1.0, r) for r, times in (("minimal", (3.0, 4.0, 1.0, 2.0)), ("ugal", (2.0, 4.0, 1.0, 3.0)))
           for m, t in zip(("identity", "random", "auto", "packing"), times)]
    a, b = tmp_path / "smpi.json", tmp_path / "sst.json"
    a.write_text(json.dumps({"records": smpi}))
    b.write_text(json.dumps({"records": sst}))
    assert bench.main(["--report", f"{a},{b}"]) == 0
    out = capsys.readouterr().out
    # minimal: the same order; ugal: identity and packing swapped (ranks 3 4 1 2 vs 2 4 1 3: sum d^2 2, 1 - 12/60)
    assert "  circulant scattered ranks 512 ppn 8 seed 1 minimal: +1.00 over 4 methods" in out
    assert "  circulant scattered ranks 512 ppn 8 seed 1 ugal: +0.80 over 4 methods" in out
    assert "  mean under minimal: +1.00 over 1 cases" in out and "  mean under ugal: +0.80 over 1 cases" in out
    assert "issue 31:" in out and "issue 43 (SST/macro, UGAL)" in out


def test_sstmacro_run_says_what_is_missing_or_runs(bench, tmp_path, capsys):
    from benchmarks.harness.sstmacro import sstmacro_missing

    argv = ["--simulator", "sstmacro", "--allocations", "scattered", "--cases", "64:8", "--seeds", "1",
            "--methods", "identity,random,auto,packing", "--routings", "minimal,ugal", "--json",
            str(tmp_path / "r.json"), "--keep", str(tmp_path / "w"), "--machines", "circulant,cascade"]
    missing = sstmacro_missing()
    if missing:
        assert bench.main(argv) == 1
        assert "no sstmac under" in capsys.readouterr().err
        return
    assert bench.main(argv) == 0
    rows = json.loads((tmp_path / "r.json").read_text())["records"]
    methods = ("identity", "random", "auto", "packing")
    # the cascade (Aries) has SST/macro's minimal router only
    assert {(r["machine"], r["routing"], r["method"]) for r in rows} == (
        {("circulant", r, m) for r in ("minimal", "ugal") for m in methods}
        | {("cascade", "minimal", m) for m in methods})
    assert all(r["comm_s"] > 0 and r["error"] is None for r in rows)
    captured = capsys.readouterr()
    assert "issue 43 (SST/macro, UGAL)" in captured.out
    assert "# cascade: no ugal run: SST/macro's cascade topology has routers for minimal only" in captured.err


def test_sstmacro_runs_a_cascade_under_its_minimal_router_only(bench, tmp_path, monkeypatch, capsys):
    # the Aries study shape: SST/macro's cascade topology; its one router is minimal, the others are skipped
    ran = []

    def fake_run(params, work, name, timeout=0.0):
        ran.append(params)
        return 1e-4 * len(ran)

    monkeypatch.setattr(bench, "run_sstmacro", fake_run)
    args = bench.argparse.Namespace(groups=4, cells=4, vars=1, steps=1, methods=["identity", "random"],
                                    routings=["minimal", "ugal"], latency=1e-7, timeout=60)
    key = dict(machine="cascade", allocation="scattered", n=64, ppn=8, seed=1)
    rows = bench.run_case_sstmacro(key, args, tmp_path / "x", tmp_path)
    assert [(r["routing"], r["method"], r["comm_s"]) for r in rows] == [("minimal", "identity", 1e-4),
                                                                        ("minimal", "random", 2e-4)]
    assert all("name = cascade\n" in p and "name = cascade_minimal" in p and "geometry = [16,6,19]" in p for p in ran)
    assert "# cascade: no ugal run: SST/macro's cascade topology has routers for minimal only" in capsys.readouterr().err


def test_sstmacro_refuses_a_shape_it_cannot_wire(bench, tmp_path):
    args = bench.argparse.Namespace(groups=4, cells=4, vars=1, steps=1, methods=["identity"], routings=["minimal"],
                                    latency=1e-7, timeout=60)
    key = dict(machine="frontier", allocation="scattered", n=64, ppn=8, seed=1)
    with pytest.raises(SystemExit, match="--machines frontier: machine: no SST/macro wiring of 74 groups"):
        bench.run_case_sstmacro(key, args, tmp_path / "x", tmp_path)


def test_zoltan2_coordinates_hand_computed():
    # Aries groups of 2 x 3 routers, one node each: nodes 0 (g0 r0 c0), 4 (g0 r1 c1), 6 (g1 r0 c0)
    m = DragonflyMachine(3, (2, 3), 1, [0, 4, 6, 6])
    assert zoltan2_dragonfly.zoltan2_dragonfly_coords(m).tolist() == [[0, 0, 0], [0, 1, 1], [1, 0, 0], [1, 0, 0]]
    t = zoltan2_dragonfly.zoltan2_transformed_coords(m)
    assert t.shape == (4, 6) and t[2].tolist() == [18, 2, 0, 1, 0, 0]  # 3 x g x R x C, one-hot row x 2, column x 1
    # an all-to-all group is one row of switches
    s = DragonflyMachine(3, 4, 1, [1, 6])
    assert zoltan2_dragonfly.zoltan2_dragonfly_coords(s).tolist() == [[0, 0, 1], [1, 0, 2]]


@pytest.mark.skipif(not zoltan2.zoltan2_available(), reason="the Zoltan2 driver is not built "
                    "(bash benchmarks/peers/install_peers.sh)")
def test_zoltan2_maps_a_dragonfly_allocation_one_to_one(bench):
    from mpitaskmap.graphs.taskgraph import TaskGraph

    m = machine_from_spec(bench.spec("aries", "scattered", 64, 8, 1, 4), 64).machine
    g = TaskGraph.stencil((4, 4, 4), weight=1.0)
    t2p, _ = zoltan2_dragonfly.map_zoltan2_dragonfly(g.coords, g.indptr, g.indices, g.weights, m)
    assert sorted(t2p.tolist()) == list(range(64))


@pytest.mark.skipif(WHY is not None, reason=str(WHY))
def test_small_run_end_to_end(bench, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert bench.main(["--machines", "aries", "--allocations", "confined", "--groups", "2", "--cases", "64:8",
                       "--seeds", "1", "--methods", "identity,random,auto", "--json", str(out),
                       "--keep", str(tmp_path / "w")]) == 0
    text = capsys.readouterr().out
    assert "issue 31:" in text and "aries confined ranks 64 ppn 8 seed 1" in text
    rows = {r["method"]: r for r in json.loads(out.read_text())["records"]}
    assert set(rows) == {"identity", "random", "auto"}
    assert all(r["comm_s"] > 0 and r["error"] is None for r in rows.values())
    assert rows["auto"]["comm_s"] <= rows["random"]["comm_s"]


def test_model_times_are_our_four_models_of_one_exchange(bench):
    from mpitaskmap.metrics import predicted_time
    from mpitaskmap.sim.fluid import fluid_exchange

    m = DragonflyMachine(5, 4, 1, range(20))
    g = TaskGraph.from_edges([0, 1, 2, 3], [4, 5, 6, 7], [1e6] * 4, n_tasks=8)
    times = bench.model_times(g, m, np.arange(8))
    assert list(times) == [name for name, _, _ in bench.MODELS]
    assert times["predicted minimal"] == predicted_time(g, m, np.arange(8))
    assert times["predicted ugal"] == predicted_time(g, m.with_routing("ugal"), np.arange(8))
    assert times["replay ugal"] == fluid_exchange(g, m.with_routing("ugal"), np.arange(8)).seconds
    assert times["predicted ugal"] < times["predicted minimal"]  # four flows on one global link: UGAL spreads them


def test_model_agreement_per_case_and_its_means(bench, capsys):
    def row(method, comm, models, routing):
        return dict(_sst_row(method, comm, 1.0, routing), models=dict(zip([m for m, _, _ in bench.MODELS], models)))

    rows = [row("identity", 3.0, (3, 1, 3, 1), "ugal"), row("random", 2.0, (2, 2, 2, 2), "ugal"),
            row("auto", 1.0, (1, 3, 1, 3), "ugal")]
    bench.print_model_agreement(rows)
    out = capsys.readouterr().out
    # predicted and replayed minimal rank as SST/macro does (+1), the ugal models the other way round (-1)
    assert "circulant scattered 512 ppn 8 seed 1 ugal" in out
    assert out.count("+1.00") == 4 and out.count("-1.00") == 4  # the case's line and the mean under ugal


def test_the_adaptive_rows_map_on_the_ugal_machine_and_by_balance(bench):
    m = DragonflyMachine(4, 2, 2, np.repeat(np.arange(16), 2))
    g = TaskGraph.stencil((4, 4, 2))
    t2p, info = bench.map_row(bench.AUTO_UGAL, g, m, 1)
    assert sorted(t2p.tolist()) == list(range(32)) and info["candidate"]
    t2p, info = bench.map_row(bench.AUTO_EITHER, g, m, 1)
    assert np.array_equal(t2p, mpitaskmap.map(g, m.with_routing("either"), "auto").task_to_proc)
    t2p, _ = bench.map_row(bench.BALANCE, g, m, 1)
    assert np.array_equal(t2p, mpitaskmap.map(g, m, "balance").task_to_proc)
