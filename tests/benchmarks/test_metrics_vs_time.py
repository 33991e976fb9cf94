"""benchmarks/metrics_vs_time.py: its helpers (everywhere) and a --quick run (with SimGrid)."""

import json
import math

import numpy as np
import pytest

from mpitaskmap.sim.simgrid import simgrid_missing

WHY = simgrid_missing(compiler=True)


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("metrics_vs_time") as mod:
        yield mod


def test_correlations_of_hand_made_samples(bench):
    assert bench.correlations([1, 2, 3, 4], [10, 20, 40, 80]) == pytest.approx((1.0, 115 / math.sqrt(5 * 2875)))  # by hand
    assert bench.correlations([1, 2, 3], [3, 2, 1]) == pytest.approx((-1.0, -1.0))
    assert bench.correlations([1, 2, 3], [5, 5, 5]) == (0.0, 0.0)  # a constant metric cannot rank the times
    assert all(math.isnan(v) for v in bench.correlations([2, 2, 2], [1, 2, 3]))  # nothing to predict
    assert all(math.isnan(v) for v in bench.correlations([1, 2], [1, 2]))  # too few mappings


def test_best_metric_takes_the_highest_mean_and_the_first_on_ties(bench):
    row = {f"{s} rho": 0.5 for s in bench.METRICS.values()}
    assert bench.best_metric(row) == "WH"  # all tied: the first of METRICS
    row["MMC rho"] = 0.9
    row["Latency(M) rho"] = float("nan")
    assert bench.best_metric(row) == "MMC"


def test_knn_graph_is_symmetric_with_at_least_k_neighbours(bench):
    g = bench.knn_graph(40, k=6, seed=3)
    dense = np.zeros((40, 40))
    src = np.repeat(np.arange(40), np.diff(g.indptr))
    dense[src, g.indices] = g.weights
    assert np.array_equal(dense, dense.T) and np.all(np.diag(dense) == 0)
    assert np.all((dense > 0).sum(axis=1) >= 6)
    assert g.weights.min() >= 0.5 and g.weights.max() <= 1.5 and g.coords.shape == (40, 3)


def test_summary_means_the_per_input_correlations_per_family(bench):
    def rec(family, rho):
        corr = {n: {"spearman": rho, "pearson": rho / 2, "n": 5} for n in bench.METRICS}
        return {"family": family, "machine": "full-torus", "regime": "bandwidth-bound",
                "correlations": {"all": corr, "no_random": corr}}

    rows = bench.summary([rec("stencil", 0.2), rec("stencil", 0.6), rec("knn", 1.0)], "all")
    assert [r["family"] for r in rows] == ["stencil / full-torus / bandwidth-bound",
                                           "knn / full-torus / bandwidth-bound", "ALL inputs"]
    assert [r["inputs"] for r in rows] == [2, 1, 3]
    assert rows[0]["WH rho"] == pytest.approx(0.4) and rows[0]["WH r"] == pytest.approx(0.2)
    assert rows[2]["MMC rho"] == pytest.approx(0.6)


@pytest.mark.skipif(WHY is not None, reason=str(WHY))
def test_quick_run_json_schema(bench, tmp_path, capsys):
    out = tmp_path / "study.json"
    assert bench.main(["--quick", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Per input: Spearman/Pearson" in text and "Conclusion: " in text
    doc = json.loads(out.read_text())
    assert doc["metrics"] == bench.METRICS and doc["link_latency"] == bench.LINK_LATENCY
    assert doc["conclusion"] in text
    assert len(doc["records"]) == 2
    for rec in doc["records"]:
        kinds = [m["kind"] for m in rec["mappings"]]
        assert kinds[0] == "identity" and kinds.count("random") == 2 and "geometric" in kinds
        assert kinds[-2:] == ["graph", "graph"]
        for m in rec["mappings"]:
            assert m["simulated_s"] > 0 and set(m["metrics"]) == set(bench.METRICS)
        assert rec["correlations"]["all"]["latency"]["n"] == len(kinds)
        assert rec["correlations"]["no_random"]["latency"]["n"] == len(kinds) - 2
    assert {r["family"] for r in doc["summary"]["all"]} >= {"ALL inputs"}


@pytest.mark.skipif(WHY is not None, reason=str(WHY))
def test_network_option_selects_the_replays_model(bench, tmp_path, capsys):
    from mpitaskmap.search.judge import JUDGE_CONFIG
    from mpitaskmap.sim.fluid import CM02

    assert bench.NETWORKS == {"fluid": CM02.simgrid_config, "smpi": JUDGE_CONFIG}
    docs = {}
    for network in ("fluid", "smpi"):
        out = tmp_path / f"{network}.json"
        assert bench.main(["--quick", "--network", network, "--json", str(out)]) == 0
        docs[network] = json.loads(out.read_text())
        assert docs[network]["network"] == network
    capsys.readouterr()
    fluid = [m["simulated_s"] for r in docs["fluid"]["records"] for m in r["mappings"]]
    smpi = [m["simulated_s"] for r in docs["smpi"]["records"] for m in r["mappings"]]
    # the same mappings; SMPI's factors (latency x 1.6-2.0 below 64 KiB) make every step slower
    assert len(fluid) == len(smpi) and all(b > a for a, b in zip(fluid, smpi))
    with pytest.raises(SystemExit):
        bench.main(["--quick", "--network", "packet"])
