"""benchmarks/fluid_speed.py: the table it prints is the replay it times."""

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_loader):
    with benchmark_loader("fluid_speed") as mod:
        yield mod


def test_rows_replay_the_three_mappings(bench, capsys):
    from mpitaskmap import TaskGraph, titan_machine
    from mpitaskmap.sim.fluid import fluid_exchange

    assert bench.main(["--ranks", "512", "--ppn", "16", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "default judge budget: 20,000,000 work units a replay" in out
    rows = bench.rows_for(512, 16, 1, simgrid=False)
    assert [r["mapping"] for r in rows] == ["identity", "geometric", "auto (objective)"]
    ident = fluid_exchange(TaskGraph.stencil((8, 8, 8), weight=2560.0), titan_machine(32, cores_per_node=16, seed=1),
                           list(range(512)), link_latency=1e-7)
    assert rows[0]["messages"] == ident.src.size and rows[0]["work"] == ident.work
    assert rows[0]["step_s"] == f"{ident.seconds:.5e}" and all(r["in_budget"] for r in rows)


def test_bad_arguments(bench):
    with pytest.raises(SystemExit):
        bench.main(["--repeat", "0"])
    with pytest.raises(SystemExit):
        bench.main(["--ranks", "100"])
