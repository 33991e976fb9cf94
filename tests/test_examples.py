"""The examples run under mpiexec at small size and print what they promise."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_minighost_group_order_blocks_of_2x2x4():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import minighost
    finally:
        sys.path.pop(0)
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


def test_wrap_existing_gives_the_same_checksum():
    out = run(8, "examples/wrap_existing.py")
    m = re.search(r"checksum on COMM_WORLD ([\d.]+), on the remapped communicator ([\d.]+)", out)
    assert m and m.group(1) == m.group(2)
