"""Smoke test of benchmarks/orderings.py on a tiny setting (--quick, one row, in-process)."""

import json
import math

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("orderings") as mod:
        yield mod


def test_quick_json_schema(bench, tmp_path, capsys):
    out = tmp_path / "o.json"
    # 3:9 shrinks to 512 tasks (2^9 tasks, 8^3 processors); MFZ applies (9 % 3 == 0)
    assert bench.main(["--quick", "--rows", "3:9", "--jobs", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Mesh to Mesh" in text and "Torus to Torus" in text and "Geometric mean" in text
    data = json.loads(out.read_text())
    recs = data["records"]
    assert len(recs) == 3 * 5
    seen = set()
    for r in recs:
        assert {"tasks", "pd", "td", "case", "ordering", "average_hops", "seconds"} <= set(r)
        assert isinstance(r["tasks"], int) and isinstance(r["pd"], int) and isinstance(r["td"], int)
        assert (r["tasks"], r["pd"], r["td"]) == (512, 3, 9)
        assert r["case"] in ("mesh_mesh", "mesh_torus", "torus_torus")
        assert r["ordering"] in ("H", "Z", "FZ", "MFZ", "BEST")
        assert isinstance(r["average_hops"], float) and math.isfinite(r["average_hops"])
        assert r["average_hops"] >= 1.0  # one-to-one: every message leaves its processor
        assert isinstance(r["seconds"], float) and r["seconds"] >= 0
        seen.add((r["case"], r["ordering"]))
    assert len(seen) == 15
    for case in ("mesh_mesh", "mesh_torus", "torus_torus"):
        vals = {r["ordering"]: r for r in recs if r["case"] == case}
        best = vals["BEST"]
        assert best["average_hops"] <= min(vals[c]["average_hops"] for c in ("H", "Z", "FZ", "MFZ")) + 1e-12
        assert isinstance(best["candidate"], str) and best["complete"]
        assert best["symmetry_check"]["equal"]
    # on a torus wrap-around links can only help a non-periodic task grid
    mm = {r["ordering"]: r["average_hops"] for r in recs if r["case"] == "mesh_mesh"}
    mt = {r["ordering"]: r["average_hops"] for r in recs if r["case"] == "mesh_torus"}
    assert mt["BEST"] <= mm["BEST"] + 1e-12


def test_filters_and_skips(bench, tmp_path, capsys):
    out = tmp_path / "o.json"
    assert bench.main(["--quick", "--rows", "2:1,4:2", "--cases", "torus_torus", "--orderings", "H,FZ",
                       "--jobs", "1", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert {(r["pd"], r["td"], r["case"], r["ordering"]) for r in data["records"]} == {
        (2, 1, "torus_torus", "H"), (2, 1, "torus_torus", "FZ")}
    # 262,144 tasks on 4 dimensions is not an integer length: skipped by default
    assert [(s["pd"], s["td"]) for s in data["skipped"]] == [(4, 2)]
    # H maps a line of tasks onto a 2-D torus with one hop per message
    h = [r for r in data["records"] if r["ordering"] == "H"][0]
    assert h["average_hops"] == pytest.approx(1.0)


def test_lengths(bench):
    assert bench.balanced_lengths(262_144, 4) == (32, 32, 16, 16)
    assert bench.balanced_lengths(262_144, 9) == (4,) * 9
    assert bench.exact_root(1_048_576, 10) == 4 and bench.exact_root(65_536, 6) is None
    rows, skipped = bench.build_rows(False, False, None)
    assert len(rows) == 23 and len(skipped) == 22
    rows, skipped = bench.build_rows(False, True, None)
    assert len(rows) == 45 and not skipped
