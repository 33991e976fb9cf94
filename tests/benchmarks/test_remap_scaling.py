"""Smoke test of benchmarks/remap_scaling.py at its smallest size: JSON schema, the arrays
build equals the pickled (per-rank object) build, growth fit."""

import json

import numpy as np
import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("remap_scaling") as mod:
        yield mod


def test_smallest_size_json_schema(bench, tmp_path, capsys):
    out = tmp_path / "s.json"
    bench.main(["--max-p", "16384", "--repeat", "1", "--mpi", "", "--json", str(out)])
    text = capsys.readouterr().out
    assert "growth (titan)" in text and "16384" in text
    data = json.loads(out.read_text())
    recs = data["records"]
    assert {r["machine"] for r in recs} == {"titan", "bgq"} and {r["P"] for r in recs} == {16384}
    assert {r["path"] for r in recs} == {"arrays", "pickled", "shared"}
    assert {r["phase"] for r in recs if r["path"] == "arrays"} == {"gathered", "build_inputs", "candidate", "agree",
                                                                  "per_rank"}
    assert {r["phase"] for r in recs if r["path"] == "shared"} == {"build_inputs", "follower_build", "window",
                                                                  "per_node"}
    assert "shared path (one node" in text
    for r in recs:
        assert set(r) == {"P", "machine", "path", "phase", "seconds", "peak_mb"}
        assert r["seconds"] >= 0 and r["peak_mb"] >= 0


def test_arrays_build_equals_the_per_rank_object_build(bench):
    job = bench._job("titan", 16384)
    g1, m1 = bench._build_arrays(job)
    g2, m2 = bench._build_pickled(bench._pickled_payload(job))
    for a, b in ((g1.indptr, g2.indptr), (g1.indices, g2.indices), (g1.weights, g2.weights), (g1.coords, g2.coords),
                 (m1.router_coords, m2.router_coords), (m1.node_ids, m2.node_ids)):
        np.testing.assert_array_equal(a, b)
    # 16 ranks per node on 1024 nodes; each rank receives the header, names, numbers, neighbours
    assert m1.n_nodes == 1024 and bench._gathered_bytes(job) > 16384 * (9 * 4 + 6 * 8)


def test_growth_fit(bench):
    rows = [dict(P=p, t=3e-8 * p) for p in (1 << 14, 1 << 16, 1 << 18)]
    assert bench._growth(rows, "t") == "P^1.00"


def test_shared_path_views_one_copy_per_node(bench):
    """The shared path's leader and follower hold the arrays path's graph and machine as
    views of the windows (part1_shared checks it); the windows hold exactly those arrays:
    CSR (n + 1 row pointers, E neighbours and weights), task coordinates (float64), router
    coordinates (int16: the narrowest exact type, kept so by the machine) and node ids,
    each 64-byte aligned; a follower's private memory is small."""
    job = bench._job("titan", 16384)
    graph, machine = bench._build_arrays(job)
    got = bench.part1_shared(job, graph, machine, 1)
    assert machine.router_coords.dtype == np.int16
    n, e = graph.n_tasks, graph.n_edges
    exact = (8 * (n + 1) + 16 * e + 8 * n * 3 + 2 * n * 3 + 8 * n) / 2**20
    assert exact <= got["window_mb"] <= exact + 0.01
    assert got["follower_mb"] < 0.1 and got["per_node_mb"] == got["window_mb"] + 16 * got["follower_mb"]
    assert got["leader_peak_mb"] > got["window_mb"]
