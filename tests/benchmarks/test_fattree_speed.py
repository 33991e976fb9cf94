"""Smoke test of benchmarks/fattree_speed.py at 4,096 ranks: both machines, the ratio line, JSON."""

import json

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("fattree_speed") as mod:
        yield mod


def test_small_run_times_both_machines(bench, tmp_path, capsys):
    out = tmp_path / "s.json"
    bench.main(["--ranks", "4096", "--repeat", "1", "--json", str(out)])
    text = capsys.readouterr().out
    assert "fattree / torus =" in text and "target <= 2" in text
    data = json.loads(out.read_text())
    assert [r["machine"] for r in data["records"]] == ["fattree", "torus"]
    assert all(r["ranks"] == 4096 and r["nodes"] == 256 and r["median s"] > 0 for r in data["records"])
    assert data["ratio"] > 0


def test_stencil_dims_and_machines(bench):
    assert bench.stencil_dims(65536) == [64, 32, 32]
    assert bench.stencil_dims(512) == [8, 8, 8]
    m = bench.machines(4096)
    assert m["fattree"].n_procs == m["torus"].n_procs == 4096
    assert m["fattree"].up_links == (1, 16)  # 32 nodes per leaf, tapered 2:1
