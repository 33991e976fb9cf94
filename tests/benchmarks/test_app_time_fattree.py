"""benchmarks/app_time_fattree.py: its helpers (everywhere) and a small run (with SimGrid)."""

import json

import numpy as np
import pytest

from mpitaskmap.machines import machine_from_spec
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks.harness.smpi import SELECTORS

WHY = simgrid_missing(compiler=True)


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("app_time_fattree") as mod:
        yield mod


def test_case_spec_is_a_scattered_tapered_two_level_tree(bench):
    assert bench.spec(512, 8, 2, 4) == ("sim:fattree:leaves=32,nodes_per_leaf=16,taper=4,levels=2,nodes=64,ppn=8,"
                                        "seed=2")
    m = machine_from_spec(bench.spec(512, 16, 1, 2), 512).machine
    assert m.n_procs == 512 and m.n_nodes == 32 and m.up_links == (1, 8)


def test_node_packing_fills_nodes_without_looking_at_the_tree(bench):
    m = machine_from_spec(bench.spec(64, 8, 1, 4), 64).machine
    g = TaskGraph.stencil((4, 4, 4), weight=1.0)
    t2p = bench.node_packing(g, m)
    assert sorted(t2p.tolist()) == list(range(64))
    # every node holds 8 tasks, and packing keeps more edges inside nodes than Slurm's order
    src = np.repeat(np.arange(64), np.diff(g.indptr))
    inside = lambda p: int((m.node_ids[p[src]] == m.node_ids[p[g.indices]]).sum())  # noqa: E731
    assert inside(t2p) > inside(np.arange(64))


def _row(bench, method, comm, taper=4):
    return {"taper": taper, "n": 512, "ppn": 8, "seed": 1, "method": method, "comm_s": comm, "map_s": 0.0,
            "metrics": dict.fromkeys(SELECTORS, 1.0)}


def test_verdicts_name_the_targets(bench, capsys):
    rows = [_row(bench, "identity", 10.0), _row(bench, "auto", 6.0), _row(bench, "scotch tleaf", 5.0),
            _row(bench, "node packing", 8.0), _row(bench, "identity", 10.0, taper=2), _row(bench, "auto", 8.0, taper=2)]
    cands = [{"taper": 4, "n": 512, "ppn": 8, "seed": 1, "auto_gap_pct": 1.5}]
    bench.print_verdicts(rows, cands)
    out = capsys.readouterr().out
    assert "taper 4:1 ranks 512 ppn 8 seed 1: auto 40.0% below identity (meets 30%); auto <= every peer: no: " \
           "scotch tleaf +20.0%; within 2% of the fastest generated: yes (+1.5%)" in out
    assert "taper 2:1 ranks 512 ppn 8 seed 1: auto 20.0% below identity (no target at 2:1); auto <= every peer: " \
           "n/a (no peer ran)" in out


def test_table_declares_its_columns_and_prints_a_failed_mapping_as_its_error(bench, capsys):
    failed = dict(_row(bench, "kahip", None), metrics=None, error="mapping failed: no library")
    bench.print_table([_row(bench, "identity", 1e-4), _row(bench, "auto", 5e-5), failed])
    assert capsys.readouterr().out.splitlines() == [
        "taper ranks ppn seed  method        AvgHops Latency(M)   PredTime     comm s vs identity  map s",
        "-" * 95,
        "  4:1   512   8    1  identity        1.000          1          1 1.0000e-04       +0.0%    0.0",
        "  4:1   512   8    1  auto            1.000          1          1 5.0000e-05      -50.0%    0.0",
        "  4:1   512   8    1  kahip         mapping failed: no library",
        ""]


@pytest.mark.skipif(WHY is not None, reason=str(WHY))
def test_small_run_end_to_end(bench, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert bench.main(["--cases", "64:8", "--tapers", "4", "--seeds", "1", "--methods", "identity,node packing,auto",
                       "--json", str(out), "--keep", str(tmp_path / "w")]) == 0
    text = capsys.readouterr().out
    assert "issue 30:" in text and "taper 4:1 ranks 64 ppn 8 seed 1" in text
    data = json.loads(out.read_text())
    rows = {r["method"]: r for r in data["records"]}
    assert set(rows) == {"identity", "node packing", "auto"}
    assert all(r["comm_s"] > 0 and r["error"] is None for r in rows.values())
    assert rows["auto"]["comm_s"] <= rows["identity"]["comm_s"]
    assert data["candidates"] and data["candidates"][0]["simulated"] >= 1


def test_report_merges_earlier_json_files(bench, tmp_path, capsys):
    rows = [_row(bench, "identity", 10.0), _row(bench, "auto", 6.0)]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"records": rows[:1], "candidates": []}))
    b.write_text(json.dumps({"records": rows[1:], "candidates": [
        {"taper": 4, "n": 512, "ppn": 8, "seed": 1, "distinct": 3, "simulated": 3, "fastest_s": 6.0, "auto_s": 6.0,
         "auto_gap_pct": 0.0, "fastest": "bisection"}]}))
    assert bench.main(["--report", f"{a},{b}"]) == 0
    out = capsys.readouterr().out
    assert "-40.0%" in out and "bisection" in out and "auto 40.0% below identity (meets 30%)" in out


def test_topology_conf_lists_the_leaves_and_one_spine_and_the_library_reads_it(bench, tmp_path):
    conf = tmp_path / "t.conf"
    conf.write_text(bench.topology_conf(4, 8))
    truth = machine_from_spec("sim:fattree:leaves=4,nodes_per_leaf=8,taper=4,levels=2,nodes=8,ppn=2,seed=1",
                              16).machine
    machines = bench.topology_machines(truth, str(conf), 2, 4, 2)
    assert machines[bench.AUTO].up_links == (1, 2) and machines[bench.AUTO].routing == "unknown"
    assert machines[bench.AUTO_ONE_SPINE].up_links == (1, 1) and machines[bench.AUTO_ONE_SPINE].routing == "dmodk"
    dmodk = machines[bench.AUTO_DMODK]
    # SimGrid's host numbers, in the rank order of the truth's processors
    assert dmodk.numbering[dmodk.node_ids].tolist() == truth.node_ids.tolist()
    assert dmodk.level_bandwidths()[1].tolist() == [12.5] * dmodk.n_groups[0]  # the truth's links


def test_shuffled_cabling_renames_hosts_within_their_leaves_and_only_the_dump_knows_the_ports(bench, tmp_path):
    conf, ibnet = tmp_path / "t.conf", tmp_path / "fabric.txt"
    conf.write_text(bench.topology_conf(4, 8))
    names = bench.shuffled_names(4, 8, 1)
    assert [sorted(names[8 * k:8 * k + 8]) for k in range(4)] == [sorted(f"n{v}" for v in range(8 * k, 8 * k + 8))
                                                                  for k in range(4)]
    assert names != [f"n{v}" for v in range(32)] and names == bench.shuffled_names(4, 8, 1)
    ibnet.write_text(bench.ibnetdiscover_dump(4, 8, 2, names=names))
    truth = machine_from_spec("sim:fattree:leaves=4,nodes_per_leaf=8,taper=4,levels=2,nodes=8,ppn=2,seed=1",
                              16).machine
    machines = bench.topology_machines(truth, str(conf), 2, 4, 2, str(ibnet), names)
    # the dump's numbering is SimGrid's (the ports'); the name order is not, on this allocation
    ib, dmodk = machines[bench.AUTO_IBNET], machines[bench.AUTO_DMODK]
    assert ib.numbering[ib.node_ids].tolist() == truth.node_ids.tolist()
    assert dmodk.numbering[dmodk.node_ids].tolist() != truth.node_ids.tolist()
    # the library's hosts are the renamed ones, in the truth's rank order
    assert [dmodk.node_names[v] for v in dmodk.node_ids[::2]] == [names[v] for v in truth.node_ids[::2]]


def test_topology_verdicts_name_issue_43s_fat_tree_targets(bench, capsys):
    def row(method, comm):
        return {"taper": 4, "spines": 4, "n": 256, "ppn": 8, "seed": 1, "method": method, "comm_s": comm}

    rows = [row("identity", 10.0), row("node packing", 6.0), row("geometric", 5.0), row("greedy+uwh", 6.0),
            row("auto", 5.5), row("auto 1 spine", 7.0), row("auto dmodk", 4.0), row("kahip", 6.0)]
    bench.print_topology_verdicts(rows)
    out = capsys.readouterr().out
    assert "auto 45.0% below identity (meets 30%)" in out
    assert "no: geometric +10.0%" in out and "auto 1 spine -30.0% vs identity; auto dmodk -60.0% vs identity" in out
