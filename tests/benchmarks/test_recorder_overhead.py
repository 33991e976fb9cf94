"""benchmarks/recorder_overhead.py: its arithmetic on hand-computed cases, and a smoke run (--quick, MPICH) whose
output has the table, the verdicts and the JSON the study promises."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks.harness.mpis import find_mpi
from benchmarks.recorder_overhead import (add_implied, expected_messages, fastest, iterations, main, median_interval,
                                          overhead_rows, parse_times, verdicts)


def test_iterations_follow_the_programs_rule():
    # at or below 1 KiB: ITERS; above: ITERS * 1024 / SIZE, but at least ITERS / 64
    assert [iterations(s, 640) for s in (8, 1024, 2048, 65536)] == [640, 640, 320, 10]
    assert iterations(65536, 100) == 1  # 100 * 1024 / 65536 = 1, and 100 // 64 = 1
    assert iterations(16384, 10) == 1  # 10 * 1024 / 16384 = 0 and 10 // 64 = 0: at least 1


def test_expected_messages_count_every_send_of_the_description():
    # ping-pong, 2 sizes of 100 round trips, 3 timed loops + a warm-up of 100 // 10 + 1 = 11: 2 sends a trip
    assert expected_messages("pingpong", 2, [8, 1024], 100, 3) == 2 * 2 * (3 * 100 + 11)
    # halo on 8 ranks, 1 size of 20 steps, 2 loops + 3 warm-up steps: 6 sends per rank a step
    assert expected_messages("halo", 8, [512], 20, 2) == 6 * 8 * (2 * 20 + 3)
    # one rank sending to itself: one send an iteration
    assert expected_messages("selfsend", 1, [2048], 100, 4) == 4 * 50 + 6


def test_parse_times_keeps_every_loop_of_the_program_only():
    text = ("pingpong size=8 iters=10 seconds=2.0e-06\nnoise\npingpong size=8 iters=10 seconds=1.5e-06\n"
            "halo size=8 iters=10 seconds=9.0e-06\npingpong size=1024 iters=10 seconds=3.0e-06\n\0")
    assert parse_times(text, "pingpong") == {8: [2.0e-06, 1.5e-06], 1024: [3.0e-06]}


def test_overhead_is_the_median_of_the_rounds_ratios_and_noise_its_interval():
    # 5 rounds at one size, 2 loops each; each round's fastest loop (baseline, shim, recorder):
    # (1.0, 1.0, 1.02), (2.0, 2.02, 2.1), (1.0, 0.99, 1.01), (1.25, 1.3, 1.25), (1.0, 1.01, 1.03)
    fast = [(1.0, 1.0, 1.02), (2.0, 2.02, 2.1), (1.0, 0.99, 1.01), (1.25, 1.3, 1.25), (1.0, 1.01, 1.03)]
    rounds = [{v: {1024: [t + 0.5, t]} for v, t in zip(("baseline", "shim", "recorder"), f)} for f in fast]
    assert fastest(rounds, "shim", 1024) == [1.0, 2.02, 0.99, 1.3, 1.01]
    (row,) = overhead_rows("mpich", "pingpong", 2, rounds, [1024])
    assert row["loops"] == 10 and row["rounds"] == 5
    assert row["baseline_us"] == pytest.approx(1.0e6)  # median of 1, 2, 1, 1.25, 1
    # recorder ratios 1.02, 1.05, 1.01, 1.0, 1.03: median 1.02; shim's 1.0, 1.01, 0.99, 1.04, 1.01: median 1.01
    assert row["recorder_pct"] == pytest.approx(2.0) and row["shim_pct"] == pytest.approx(1.0)
    assert row["recorder_us"] == pytest.approx(1.03e6) and row["shim_us"] == pytest.approx(1.01e6)
    # with 5 rounds the interval is the whole range of the ratios: (1.05 - 1.0) / 2
    assert row["noise_pct"] == pytest.approx(2.5)
    assert row["added_ns"] == pytest.approx(0.02e9)  # differences 0.02, 0.1, 0.01, 0, 0.03: median 0.02 s
    assert verdicts([row], 2.5) == [{"mpi": "mpich", "program": "pingpong", "size": 1024,
                                     "recorder_pct": row["recorder_pct"], "noise_pct": row["noise_pct"],
                                     "implied_pct": None, "target_pct": 2.5, "resolved": False, "verdict": "PASS"}]
    assert verdicts([row], 5.0)[0]["resolved"] and verdicts([row], 5.0)[0]["verdict"] == "PASS"  # 3% > 2.5% away
    assert verdicts([row], 1.5)[0]["verdict"] == "FAIL" and not verdicts([row], 1.5)[0]["resolved"]
    assert verdicts([row], -1.0)[0]["verdict"] == "FAIL" and verdicts([row], -1.0)[0]["resolved"]
    assert verdicts([dict(row, size=8)], 2.0) == []  # only the 1 KiB row is judged
    assert verdicts([dict(row, program="selfsend")], 2.0) == []  # and only the applications


def test_the_median_interval_takes_the_order_statistics_of_the_binomial_rule():
    assert median_interval([3.0, 1.0, 2.0]) == (1.0, 2.0, 3.0)  # few values: the whole range
    xs = [float(k) for k in range(1, 31)]  # 30 values: ranks floor((30 - 10.74) / 2) = 9, ceil(1 + 20.37) = 22
    assert median_interval(xs[::-1]) == (9.0, 15.5, 22.0)
    assert median_interval([5.0]) == (5.0, 5.0, 5.0)


def test_the_implied_overhead_is_the_cost_per_send_times_the_sends_over_the_baseline():
    rows = [{"mpi": "mpich", "program": "selfsend", "size": 1024, "added_ns": 8.0},
            {"mpi": "mpich", "program": "pingpong", "size": 1024, "baseline_us": 2.0},
            {"mpi": "mpich", "program": "halo", "size": 1024, "baseline_us": 48.0},
            {"mpi": "mpich", "program": "halo", "size": 8, "baseline_us": 40.0}]
    add_implied(rows)
    assert rows[1]["implied_pct"] == pytest.approx(2 * 8.0 / 2000.0 * 100)  # 0.8%: 2 sends a round trip
    assert rows[2]["implied_pct"] == pytest.approx(6 * 8.0 / 48000.0 * 100)  # 0.1%: 6 sends a step
    assert "implied_pct" not in rows[3] and "implied_pct" not in rows[0]  # no selfsend at 8 B


@pytest.mark.timeout(600)
def test_quick_run_prints_the_table_and_a_verdict_per_program(tmp_path, capsys):
    mpich = find_mpi("mpich")
    if not (mpich.mpicc and mpich.launcher):
        pytest.skip("no mpiexec/mpicc next to this Python (pip install mpich)")
    out = tmp_path / "r.json"
    # status 0: every recorder run also wrote its recording with the exact message count
    assert main(["--quick", "--mpi", "mpich", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].split() == ["mpi", "program", "ranks", "size", "loops", "baseline_us", "noise_pct", "shim_pct",
                                "recorder_pct", "added_ns", "implied_pct"]
    rows = [ln.split() for ln in lines[1:7]]
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in rows] == [
        ("mpich", "pingpong", "2", "8", "2"), ("mpich", "pingpong", "2", "1024", "2"),
        ("mpich", "halo", "4", "8", "2"), ("mpich", "halo", "4", "1024", "2"),
        ("mpich", "selfsend", "1", "8", "2"), ("mpich", "selfsend", "1", "1024", "2")]
    judged = [ln for ln in lines if re.match(r"(PASS|FAIL)  ", ln)]
    assert [re.sub(r"^(PASS|FAIL)  ", "", ln.split(":")[0]) for ln in judged] == ["mpich pingpong", "mpich halo"]
    assert all(re.search(r": recorder [+-]\d+\.\d\d% at 1024 B \(target <= 2%, noise \d+\.\d\d%, implied by the cost "
                         r"per send [+-]\d+\.\d\d%\)(; not resolved here: 2% lies within the noise)?$", ln) for ln in judged)
    data = json.loads(out.read_text())
    assert [r["program"] for r in data["records"]] == ["pingpong"] * 2 + ["halo"] * 2 + ["selfsend"] * 2
    for r in data["records"]:
        assert r["baseline_us"] > 0 and r["shim_us"] > 0 and r["recorder_us"] > 0 and r["rounds"] == 2
    assert [v["program"] for v in data["verdicts"]] == ["pingpong", "halo"]
    assert data["settings"]["sizes"] == [8, 1024] and data["skipped"] == []
