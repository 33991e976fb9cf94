"""Smoke test of benchmarks/dragonfly_speed.py at 16 ranks: both routings, the ratio line, JSON."""

import json

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("dragonfly_speed") as mod:
        yield mod


def test_small_run_times_both_routings(bench, tmp_path, capsys):
    out = tmp_path / "s.json"
    bench.main(["--machine", "aries", "--nodes", "8", "--ppn", "2", "--repeat", "1", "--generic", "--json", str(out)])
    text = capsys.readouterr().out
    assert "valiant / minimal =" in text and "generic link_time s" in text
    data = json.loads(out.read_text())
    assert [r["routing"] for r in data["records"]] == ["minimal", "valiant"]
    assert all(r["ranks"] == 16 and r["nodes"] == 8 and r["median s"] > 0 and r["link_time s"] > 0
               for r in data["records"])
    assert data["ratio"] == pytest.approx(data["records"][1]["median s"] / data["records"][0]["median s"])


def test_machines_are_one_allocation_under_both_routings(bench):
    m = bench.machines("aries", 64, 8)
    assert [x.routing for x in m.values()] == ["minimal", "valiant"]
    assert (m["minimal"].node_ids == m["valiant"].node_ids).all() and m["valiant"].n_procs == 512
