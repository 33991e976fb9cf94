"""benchmarks/app_time_smpi.py: its helpers (everywhere) and a small run (with SimGrid)."""

import json
import os

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap.cli._inputs import load_machine
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.graphs.taskgraph import TaskGraph

_ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
WHY = simgrid_missing(compiler=True)


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("app_time_smpi") as mod:
        yield mod


def test_halo3d_rank_is_the_stencil_task_x_fastest(bench):
    # grid 3 x 2 x 2, by hand: rank = x + 3 * (y + 2 * z)
    assert [bench.halo3d_task(r, (3, 2, 2)) for r in (0, 1, 3, 4, 7, 11)] == [
        (0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 1), (2, 1, 1)]
    bench.check_task_numbering(TaskGraph.stencil((3, 2, 2)), (3, 2, 2))
    with pytest.raises(RuntimeError, match="does not number its tasks as halo3d"):
        bench.check_task_numbering(TaskGraph.stencil((2, 2, 3)), (3, 2, 2))  # same count, other order
    # the app itself still numbers its ranks this way (the line halo3d_task mirrors)
    with open(os.path.join(_ROOT, "examples", "halo3d.c"), encoding="utf-8") as fh:
        assert "x = rank % px, y = (rank / px) % py, z = rank / (px * py);" in fh.read()


def test_distinct_orders_group_mappings_with_the_same_hostfile(bench):
    nodes = np.array([0, 0, 1, 1, 2, 2])  # two processors per node
    a = [0, 2, 4, 1, 3, 5]  # hosts 0 1 2 0 1 2
    b = [1, 3, 5, 0, 2, 4]  # the same hosts, other cores of each node: the same SMPI run
    d = [0, 1, 2, 3, 4, 5]  # hosts 0 0 1 1 2 2
    e = [4, 2, 0, 5, 3, 1]  # hosts 2 1 0 2 1 0
    assert bench.host_order(nodes, a).tolist() == [0, 1, 2, 0, 1, 2]
    assert bench.host_order(nodes, e).tolist() == [2, 1, 0, 2, 1, 0]
    assert bench.distinct_orders(nodes, [a, b, None, d, e, d]) == [[0, 1], [3, 5], [4]]
    assert bench.distinct_orders(nodes, [None]) == []


def test_fastest_group_takes_the_least_time_and_the_first_on_ties(bench):
    assert bench.fastest_group([[0], [1, 2], [3], [4]], [3.0, 2.0, None, 2.0]) == 1
    assert bench.fastest_group([[0], [1]], [None, 5.0]) == 1
    assert bench.fastest_group([[0]], [None]) is None
    assert bench.gap_percent(1.02, 1.0) == pytest.approx(2.0)
    assert bench.gap_percent(1.0, 1.0) == 0.0


def test_metric_picks_the_least_metric_first_index_on_ties(bench):
    def cand(index, comm, **metrics):
        return {"index": index, "comm_s": comm, "metrics": dict(dict.fromkeys(bench.SELECTORS, 5.0), **metrics)}

    cands = [cand(0, 4.0, latency=2.0, weighted_hops=1.0), cand(3, 2.0, latency=1.0, weighted_hops=1.0),
             cand(7, 1.0, latency=3.0, weighted_hops=2.0, max_hops=1.0), cand(9, None, latency=0.0)]
    picks = bench.metric_picks(cands)
    assert picks["latency"] == pytest.approx(100.0)  # index 3 (2.0 s) vs the fastest 1.0 s; the failed run is out
    assert picks["weighted_hops"] == pytest.approx(300.0)  # tie of 0 and 3: index 0 (4.0 s), as the search picks
    assert picks["max_hops"] == 0.0  # picks the fastest
    assert picks["average_hops"] == pytest.approx(300.0)  # all equal: the first index
    assert bench.metric_picks([cand(0, None)]) == {}


def _row(method, comm):
    return {"method": method, "comm_s": comm}


def test_zoltan2_verdict(bench):
    rows = {"auto": _row("auto", 1.0), "zoltan2_1": _row("zoltan2_1", 1.0), "zoltan2_49": _row("zoltan2_49", 1.5)}
    assert bench.zoltan2_verdict(rows) == "yes"  # equal counts as <=
    rows["auto"] = _row("auto", 1.01)
    assert bench.zoltan2_verdict(rows) == "no"  # slower than the 1-rank Zoltan2
    rows["zoltan2_1"] = _row("zoltan2_1", None)
    assert bench.zoltan2_verdict(rows) == "n/a"  # a failed Zoltan2 run: nothing shown
    assert bench.zoltan2_verdict({"auto": _row("auto", 1.0)}) == "n/a"  # Zoltan2 not installed


def test_candidates_verdict_is_within_two_percent_inclusive(bench):
    assert bench.candidates_verdict({"auto_gap_pct": 0.0}) == "yes (+0.0%)"
    assert bench.candidates_verdict({"auto_gap_pct": 2.0}) == "yes (+2.0%)"  # 2% is within
    assert bench.candidates_verdict({"auto_gap_pct": 2.3}) == "no (+2.3%)"
    assert bench.candidates_verdict({"auto_gap_pct": None}) == "n/a (no run)"
    assert bench.candidates_verdict(None) == "not simulated (--all-candidates)"


def test_rows_of_the_library_pin_nothing_for_auto(bench, monkeypatch):
    assert bench.library_call("auto") == ("auto", {})  # the library's default metric, families, refinement
    assert bench.library_call("auto:latency") == ("auto", {"metric": "latency"})
    assert bench.library_call("geometric") == ("geometric", {})
    monkeypatch.setitem(bench.LIBRARY_ROWS, "auto+simulate", ("auto", {"judge": "simulate"}))
    assert bench.library_call("auto+simulate") == ("auto", {"judge": "simulate"})  # one entry adds a row
    assert bench.is_ours("auto+simulate") and bench.is_ours("identity")
    assert not bench.is_ours("group") and not bench.is_ours("zoltan2_49")


def test_generated_candidates_are_what_auto_evaluated(bench):
    mi = load_machine("sim:titan:nodes=8,ppn=4,seed=1", 32)
    graph = TaskGraph.stencil((4, 4, 2))
    t2p, info = bench.map_row("auto", graph, mi.machine, (4, 4, 2))
    np.testing.assert_array_equal(t2p, mpitaskmap.map(graph, mi.machine).task_to_proc)
    labels, mappings = bench.generated_candidates(graph, mi.machine, info["candidate_list"])
    assert len(labels) == len(mappings) == info["candidates"]
    assert labels[info["candidate_index"]] == info["candidate"]
    np.testing.assert_array_equal(mappings[info["candidate_index"]], t2p)
    assert labels[0] == "identity (default order)"
    np.testing.assert_array_equal(mappings[0], np.arange(32))
    groups = bench.distinct_orders(mi.machine.node_ids, mappings)
    assert sorted(i for g in groups for i in g) == [i for i, m in enumerate(mappings) if m is not None]


@pytest.mark.skipif(bool(WHY), reason=WHY or "")
def test_small_run_simulates_every_distinct_candidate(bench, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench.zoltan2, "zoltan2_available", lambda: False)  # the skip path, installed or not
    out = tmp_path / "r.json"
    assert bench.main(["--cases", "64:8", "--seeds", "1", "--methods", "identity,geometric,auto,zoltan2_1",
                       "--steps", "1", "--json", str(out), "--keep", str(tmp_path / "w")]) == 0
    text = capsys.readouterr().out
    assert text.count("Zoltan2 rows skipped: no driver at") == 1
    data = json.loads(out.read_text())
    rows = {r["method"]: r for r in data["records"]}
    assert sorted(rows) == ["auto", "geometric", "identity"]
    (cands,) = data["candidates"]
    assert cands["generated"] == len(cands["candidates"]) + sum(len(c["same"]) for c in cands["candidates"])
    assert cands["distinct"] == len(cands["candidates"]) and cands["failed"] == 0
    times = [c["comm_s"] for c in cands["candidates"]]
    assert cands["fastest_s"] == min(times) <= rows["auto"]["comm_s"]
    assert cands["candidates"][0]["label"] == "identity (default order)"
    assert cands["candidates"][0]["comm_s"] == rows["identity"]["comm_s"]  # the same hostfile, the same time
    assert set(cands["metric_picks"]) == set(bench.SELECTORS) and min(cands["metric_picks"].values()) >= 0
    assert cands["auto_gap_pct"] == pytest.approx(100 * (rows["auto"]["comm_s"] / cands["fastest_s"] - 1))
    assert "ranks 64 ppn 8 seed 1: auto <= every Zoltan2 variant: n/a; auto within 2% of the fastest" in text
