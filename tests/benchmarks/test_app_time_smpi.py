"""benchmarks/app_time_smpi.py: its rows and verdicts (everywhere) and a small run (with SimGrid).

The SMPI runs' and candidates' helpers it shares are tested in test_harness.py."""

import json

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.graphs.taskgraph import TaskGraph

from benchmarks.harness.candidates import distinct_orders, generated_candidates
from benchmarks.harness.smpi import SELECTORS

WHY = simgrid_missing(compiler=True)


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("app_time_smpi") as mod:
        yield mod


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


def test_rows_of_the_library_pin_nothing_for_auto(bench, monkeypatch):
    assert bench.library_call("auto") == ("auto", {})  # the library's default metric, families, refinement
    assert bench.library_call("auto:latency") == ("auto", {"metric": "latency"})
    assert bench.library_call("geometric") == ("geometric", {})
    monkeypatch.setitem(bench.LIBRARY_ROWS, "auto+simulate", ("auto", {"judge": "simulate"}))
    assert bench.library_call("auto+simulate") == ("auto", {"judge": "simulate"})  # one entry adds a row
    assert bench.is_ours("auto+simulate") and bench.is_ours("identity")
    assert not bench.is_ours("group") and not bench.is_ours("zoltan2_49")


def test_generated_candidates_are_what_auto_evaluated(bench):
    mi = machine_from_spec("sim:titan:nodes=8,ppn=4,seed=1", 32)
    graph = TaskGraph.stencil((4, 4, 2))
    t2p, info = bench.map_row("auto", graph, mi.machine, (4, 4, 2))
    np.testing.assert_array_equal(t2p, mpitaskmap.map(graph, mi.machine).task_to_proc)
    labels, mappings = generated_candidates(graph, mi.machine, info["candidate_list"])
    assert len(labels) == len(mappings) == info["candidates"]
    assert labels[info["candidate_index"]] == info["candidate"]
    np.testing.assert_array_equal(mappings[info["candidate_index"]], t2p)
    assert labels[0] == "identity (default order)"
    np.testing.assert_array_equal(mappings[0], np.arange(32))
    groups = distinct_orders(mi.machine.node_ids, mappings)
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
    assert set(cands["metric_picks"]) == set(SELECTORS) and min(cands["metric_picks"].values()) >= 0
    assert cands["auto_gap_pct"] == pytest.approx(100 * (rows["auto"]["comm_s"] / cands["fastest_s"] - 1))
    assert "ranks 64 ppn 8 seed 1: auto <= every Zoltan2 variant: n/a; auto within 2% of the fastest" in text
