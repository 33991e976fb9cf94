"""benchmarks/auto_scaling.py: the cases' machines, one small case end to end, the targets' verdicts."""

import numpy as np
import pytest

from benchmarks import auto_scaling as bench
from benchmarks.harness.platforms import scaling_spec
from mpitaskmap.machines import machine_from_spec


def test_machine_specs_scale_the_tree_with_the_job():
    assert scaling_spec("titan", 2048) == "sim:titan:nodes=256,ppn=8,seed=1"
    assert scaling_spec("fattree", 131072) == ("sim:fattree:leaves=2048,nodes_per_leaf=16,taper=4,levels=2,"
                                                     "nodes=16384,ppn=8,seed=1")
    m = machine_from_spec(scaling_spec("fattree", 1024), 1024).machine
    assert m.n_procs == 1024 and m.n_nodes == 128 and m.n_tree_nodes == 256  # twice the job's nodes
    assert scaling_spec("aries", 4096, routing="ugal") == "sim:aries:nodes=512,ppn=8,seed=1,routing=ugal"
    m = machine_from_spec(scaling_spec("frontier", 512, routing="either"), 512).machine
    assert m.routing == "either" and m.adaptive_routing
    with pytest.raises(ValueError, match="only the dragonflies"):
        scaling_spec("titan", 512, routing="ugal")


def test_one_case_end_to_end(monkeypatch):
    from mpitaskmap.search import parallel
    monkeypatch.setattr(parallel, "PARALLEL_MIN_TASKS", 1)
    r = bench.run_case("fattree", 512, 1, jobs=2)
    assert r["ranks"] == 512 and r["nodes"] == 64
    assert r["applicable"] == r["candidates"] > 1 and r["refused"] == {} and r["refused_for_size"] == []
    assert r["judge"] == "fluid" and r["replays"] >= 1 and r["steps"] == 5
    assert r["vs_identity"] < -30  # the fat tree's known gain (README table) by the objective
    assert r["jobs_same_mapping"] is True and r["jobs_speedup"] > 0
    assert 0 < r["peak_mb"] < 2048 and r["auto_cpu_s"] > 0 and r["geometric_s"] > 0
    row = bench._row(r)
    assert r["resolution"] == 0.0 and r["judge_s"] > 0  # 2,688 edges: replayed exactly
    assert row["applied"] == f"{r['applicable']}/{r['candidates']}"
    assert row["judge"] == f"{r['replays']} x 5 steps, {r['judge_s']:.1f} s"
    assert bench._judge_text(dict(r, resolution=0.01, judge_s=1.25)) == f"{r['replays']} x 5 steps at 0.01, 1.2 s"


def _record(**kw):
    base = dict(network="fattree", ranks=65536, peak_mb=500.0, replays=1, cpu_ratio=10.0, refused_for_size=[],
                jobs_speedup=None, jobs_same_mapping=None, jobs=1)
    return {**base, **kw}


def test_verdicts_check_each_target_where_it_applies():
    assert bench.verdicts([_record()]) == [
        "PASS  fattree 65,536: peak 500 MB <= 1,024",
        "PASS  fattree 65,536: the judge replayed 1 candidates",
        "PASS  fattree 65,536: auto CPU 10.0x geometric's <= 15x"]
    lines = bench.verdicts([_record(peak_mb=1500.0, replays=0, cpu_ratio=80.0)])
    assert [line[:4] for line in lines] == ["FAIL"] * 3
    big = _record(ranks=131072, peak_mb=2100.0, refused_for_size=["bisection + uwh + umc"])
    assert bench.verdicts([big]) == ["FAIL  fattree 131,072: peak 2100 MB <= 2,048",
                                     "FAIL  fattree 131,072: refused for size: bisection + uwh + umc"]
    jobs = _record(ranks=32768, jobs=2, jobs_speedup=1.75, jobs_same_mapping=True)
    assert bench.verdicts([jobs]) == ["PASS  fattree 32,768: --jobs 2 1.75x --jobs 1 >= 1.7x (same mapping)"]
    assert bench.verdicts([dict(jobs, jobs_same_mapping=False)])[0].startswith("FAIL")
    assert bench.verdicts([_record(ranks=512, steps=5)]) == ["PASS  fattree 512: the judge replayed 1 candidates x 5 steps "
                                                              "(5 wanted)"]
    assert bench.verdicts([_record(ranks=8192, steps=1)])[0].startswith("FAIL  fattree 8,192")
    assert bench.verdicts([_record(ranks=32768)]) == []
