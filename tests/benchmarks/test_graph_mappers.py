"""Smoke test of benchmarks/graph_mappers.py (--quick, no peers, in-process): JSON schema, valid mappings."""

import json
import math

import numpy as np
import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("graph_mappers") as mod:
        yield mod


def test_quick_json_schema(bench, tmp_path, capsys):
    out = tmp_path / "g.json"
    assert bench.main(["--quick", "--no-peers", "--no-speed", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "WH winner" in text and "MC winner" in text and "no peer ran" in text
    data = json.loads(out.read_text())
    assert data["benchmark"] == "graph_mappers" and data["quick"] is True and data["peers"] is False
    assert len(data["inputs"]) == 6 and len(data["summaries"]) == 6
    methods = bench.OURS + bench.PEERS
    recs = data["records"]
    assert len(recs) == 6 * len(methods)
    for inp in data["inputs"]:
        assert {"input", "tasks", "edges", "procs", "nodes", "coords", "partitioner"} <= set(inp)
        assert inp["tasks"] <= inp["procs"]
        rows = [r for r in recs if r["input"] == inp["input"]]
        assert [r["method"] for r in rows] == methods
        for r in rows:
            assert r["status"] in ("ok", "n/a")
            if r["status"] == "n/a":
                assert r["weighted_hops"] is None and r["note"]
                continue
            assert r["valid"] is True, (inp["input"], r["method"])
            for k in bench.METRIC_NAMES:
                assert isinstance(r[k], (int, float)) and math.isfinite(r[k]) and r[k] >= 0
            assert r["seconds"] >= 0
        ok = {r["method"]: r for r in rows if r["status"] == "ok"}
        # refinements never worsen their own objective
        assert ok["UWH"]["weighted_hops"] <= ok["UG"]["weighted_hops"] + 1e-9
        assert ok["UMC"]["latency"] <= ok["UWH"]["latency"] + 1e-9
        assert ok["UMMC"]["max_messages"] <= ok["UWH"]["max_messages"]
        # the search includes the identity and the greedy+UWH candidate
        assert ok["best candidate"]["weighted_hops"] <= ok["default"]["weighted_hops"] + 1e-9
        assert ok["best candidate"]["weighted_hops"] <= ok["UWH"]["weighted_hops"] + 1e-9
        if inp["coords"]:
            assert "geometric" in ok and "geometric+UWH" in ok
        else:
            assert "geometric" not in ok
    assert {r["note"] for r in recs if r["method"] == "KaHIP"} == {"skipped (--no-peers)"}


def test_speed_rows(bench):
    rows = bench.speed(True, repeat=1)
    assert [r["tasks"] for r in rows] == [512, 1024, 2048, 4096]
    for r in rows:
        assert r["UWH_wh"] <= r["UG_wh"] + 1e-9 and r["UMC_mc"] <= r["UWH_mc"] + 1e-9
        assert all(r[k] >= 0 for k in ("UG_s", "UWH_s", "UMC_s"))


def test_inputs_are_seeded(bench):
    a = bench.barabasi_albert(500, 3, seed=7)
    b = bench.barabasi_albert(500, 3, seed=7)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert a[0].size == (500 - 3) * 3 and (a[0] > a[1]).all()  # new vertex -> older vertex
    lap, grid = bench.laplacian((4, 3))
    assert lap.shape == (12, 12) and lap.nnz == 12 + 2 * (3 * 3 + 2 * 4) and grid[1].tolist() == [1.0, 0.0]
    assert bench.valid_mapping(np.array([2, 0, 1]), 3, 3) and not bench.valid_mapping(np.array([0, 0, 1]), 3, 3)
