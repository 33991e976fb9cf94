"""The examples run under mpiexec at small size and print what they promise."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpitaskmap.sim.simgrid import simgrid_missing

ROOT = Path(__file__).resolve().parents[1]
MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")

pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec next to this Python or on PATH")


def run(n, *args, timeout=240):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("MPITASKMAP_DISABLE", None)
    proc = subprocess.run(
        [MPIEXEC, "-n", str(n), sys.executable, "-m", "mpi4py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _minighost():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import minighost
    finally:
        sys.path.pop(0)
    return minighost


def test_minighost_group_order_blocks_of_2x2x4():
    minighost = _minighost()
    order = minighost.group_order((4, 2, 4))
    # the first 16 ranks fill one 2x2x4 block: x in {0,1}, y in {0,1}, z in 0..3
    first = {minighost.task_coords(t, (4, 2, 4)) for t in order[:16]}
    assert first == {(x, y, z) for x in (0, 1) for y in (0, 1) for z in range(4)}
    assert sorted(order) == list(range(32))


def test_minighost_proxy_remaps_below_default_on_sparse_titan():
    out = run(8, "examples/minighost.py", "--steps", "2", "--n", "4")
    rows = dict(re.findall(r"^(default|group|geometric)\s+([\d.]+)", out, flags=re.M))
    assert set(rows) == {"default", "group", "geometric"}
    assert float(rows["geometric"]) < float(rows["default"])
    assert "mpitaskmap.remap: remapped" in out
    header = next(line for line in out.splitlines() if line.startswith("mapping"))
    assert "simulated s" in header and "laptop wall s (not a network)" in header
    sim = {line.split()[0]: line.split()[4] for line in out.splitlines()
           if line.split() and line.split()[0] in ("default", "group", "geometric")}
    why = simgrid_missing(compiler=True)
    if why is None:  # SimGrid here: numbers, and the remapped exchange is faster on the simulated network
        assert float(sim["geometric"]) < float(sim["default"]), sim
        assert "simulated time" in out
    else:
        assert set(sim.values()) == {"n/a"} and f"simulated s: n/a: {why}" in out


def test_minighost_table_shows_simulated_seconds_or_na_with_the_reason():
    minighost = _minighost()
    v = {"average_hops": 1.5, "weighted_hops": 1000.0, "latency": 2.0}
    rows = [("default", v, 0.5), ("geometric", v, 0.25)]
    lines = minighost.format_table(rows, {"default": 3e-7, "geometric": 1.5e-7}, None)
    assert len(lines) == 3
    assert lines[1].split() == ["default", "1.500", "1,000", "2", "3e-07", "0.5000"]
    assert lines[2].split()[4] == "1.5e-07"
    lines = minighost.format_table(rows, {}, "SimGrid's smpirun is not on PATH")
    assert [line.split()[4] for line in lines[1:3]] == ["n/a", "n/a"]
    assert lines[3] == "simulated s: n/a: SimGrid's smpirun is not on PATH"
    # the wall-clock column is labelled as what it is
    assert lines[0].endswith("laptop wall s (not a network)")


def test_minighost_simulation_says_why_without_simgrid(monkeypatch):
    minighost = _minighost()
    monkeypatch.setattr(minighost, "simgrid_missing", lambda compiler=False: "no SimGrid here")
    assert minighost.simulated_step_seconds(None, None, {"default": [0, 1]}, 1e-7) == ({}, "no SimGrid here")


@pytest.mark.skipif(simgrid_missing(compiler=True) is not None, reason=str(simgrid_missing(compiler=True)))
def test_minighost_simulation_of_one_message_is_latency_plus_size_over_bandwidth():
    import mpitaskmap as mt

    minighost = _minighost()
    machine = mt.torus_machine([4], bandwidth=2.0)  # 2 GB/s links
    graph = mt.TaskGraph.from_neighbor_lists([[1], []], [[4000.0], []])
    # task 0 on node 0, task 1 two hops away (node 2) or one hop (node 1)
    sim, why = minighost.simulated_step_seconds(graph, machine, {"far": [0, 2], "near": [0, 1]}, 1e-6)
    assert why is None
    assert sim["far"] == pytest.approx(2e-6 + 4000 / 2e9, rel=1e-3)
    assert sim["near"] == pytest.approx(1e-6 + 4000 / 2e9, rel=1e-3)


def test_wrap_existing_gives_the_same_checksum():
    out = run(8, "examples/wrap_existing.py")
    m = re.search(r"checksum on COMM_WORLD ([\d.]+), on the remapped communicator ([\d.]+)", out)
    assert m and m.group(1) == m.group(2)
