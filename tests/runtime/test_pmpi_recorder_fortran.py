"""The PMPI library's traffic recorder for Fortran programs (``mpitaskmap/pmpi/mpitaskmap_pmpi_shim_fortran.c``).

``tests/pmpi_programs/traffic.F90`` is built three times with Debian's Open MPI 4.1
(``mpif90.openmpi``): ``include 'mpif.h'``, ``use mpi`` and ``use mpi_f08`` (whose calls leave the
OPTIONAL ``ierror`` out), and runs known patterns under ``mpiexec.openmpi --oversubscribe -n 4`` and
``-n 16`` with the library built by ``mpicc.openmpi`` preloaded.  Open MPI's Fortran bindings call
``PMPI_Init``, ``PMPI_Send`` ... themselves, so only the shim's Fortran entry points can start the
recorder and count: every pattern must come out exactly as the C program's does (the expected
matrices are the C test's, ``tests/recorder_patterns.py``, computed from the programs' common
description), through the same counters.  The MPICH and Open MPI wheels ship no Fortran bindings:
only Debian's Open MPI runs these.
"""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mpi_helpers import clean_env, first_error_line, run_settled
from recorder_patterns import (HALO_DIMS, HALO_STEPS, NEIGHBOR_PERIODS, Pairs, cart_out_neighbours, collectives, halo,
                               members_hash, neighbor, onesided, pcontrol, persistent, read_matrix, ring, split,
                               transpose)

from mpitaskmap.runtime import pmpi

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "pmpi_programs" / "traffic.F90"
OMPI = {k: shutil.which(f"{k}.openmpi") for k in ("mpicc", "mpiexec", "mpif90")}
NO_OMPI_FORTRAN = (None if all(OMPI.values()) else
                   "no Open MPI with Fortran here (Debian's openmpi-bin and libopenmpi-dev: mpicc.openmpi, "
                   "mpiexec.openmpi, mpif90.openmpi)")
#: The three Fortran interfaces and the macro traffic.F90 is built with for each.  (Not named "mpi":
#: pytest-mpi would take a test of that parameter for one to run under mpiexec only.)
INTERFACES = {"mpif_h": "USE_MPIF", "use_mpi": "USE_MPI", "use_mpi_f08": "USE_F08"}

pytestmark = [pytest.mark.timeout(900), pytest.mark.skipif(NO_OMPI_FORTRAN is not None, reason=str(NO_OMPI_FORTRAN))]


def kinds(p: int) -> tuple[Pairs, Pairs]:
    """The k-th of the 14 sending calls (MPI_SEND ... MPI_RSEND_INIT) sends 2**(k - 1) integers to r + 1."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 14
        nbytes[r, (r + 1) % p] += 4 * (2 ** 14 - 1)
    return msgs, nbytes


def badsend(p: int) -> tuple[Pairs, Pairs]:
    """Two sends to rank P fail (MPI_ERRORS_RETURN) and count nothing; one of (r + 1) integers to r + 1."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 1
        nbytes[r, (r + 1) % p] += 4 * (r + 1)
    return msgs, nbytes


def neighbor_fortran(p: int) -> tuple[Pairs, Pairs]:
    """traffic.c's neighbor without MPI 4's persistent MPI_Neighbor_alltoall_init (Open MPI 4.1 has none), and
    without its MPI_Neighbor_alltoallw where P < 6 (traffic.F90 skips it there: Open MPI 4.1's Fortran binding
    converts as many types as the communicator has ranks, not neighbours)."""
    msgs, nbytes = neighbor(p, persistent=False)
    if p < 6:
        for r in range(p):
            for i, q in enumerate(cart_out_neighbours(r, (p // 2, 2, 1), NEIGHBOR_PERIODS)):
                if q is not None:  # block i: an int (dimension i // 2 even) or a double
                    msgs[r, q] -= 1
                    nbytes[r, q] -= 8 if i // 2 % 2 else 4
    return +msgs, +nbytes  # pairs left at 0 dropped


def no_pairs(p: int) -> tuple[Pairs, Pairs]:
    """Collectives are not pairs: the matrix is empty (they are in the sidecar)."""
    return Pairs(), Pairs()


PATTERNS = {"ring": ring, "threadring": ring, "halo": halo, "transpose": transpose, "persistent": persistent,
            "pcontrol": pcontrol, "kinds": kinds, "split": split, "badsend": badsend, "onesided": onesided,
            "neighbor": neighbor_fortran, "collectives": no_pairs}
#: What rank 0 prints, besides "done MODE".
OUTPUT = {"badsend": ["bad send: error, error"]}
#: The collective entries of PATH.json each mode must give (none where not listed).
COLLECTIVES = {"collectives": collectives,
               "kinds": lambda p: [{"size": p, "first_world_rank": 0, "members_hash": members_hash(range(p)),
                                    "calls": {"MPI_Barrier": 12}, "bytes": 0}]}


def entry_order(entry: dict) -> tuple:
    """Collective entries in a fixed order: by lowest world rank, then size."""
    return entry["first_world_rank"], entry["size"]


#: MPI_PCONTROL calls of each mode (rank 0's); the others make none.
PCONTROL_CALLS = {"pcontrol": 5, "onesided": 2, "neighbor": 2, "collectives": 2}


def test_the_fortran_patterns_own_expectations():
    # hand-checked at 4 ranks: 14 calls of 1, 2, 4 ... 8192 integers; the failed sends count nothing
    assert kinds(4) == (Pairs({(r, (r + 1) % 4): 14 for r in range(4)}),
                        Pairs({(r, (r + 1) % 4): 65532 for r in range(4)}))
    assert badsend(4)[1] == {(0, 1): 4, (1, 2): 8, (2, 3): 12, (3, 0): 16}


@pytest.fixture(scope="module")
def lib() -> Path:
    return pmpi.pmpi_library(OMPI["mpicc"])


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict:
    """traffic.F90 built for each interface: {interface: executable}."""
    d = tmp_path_factory.mktemp("traffic_f")
    out = {}
    for kind in INTERFACES:
        # gfortran 10 and later reject mpif.h's untyped buffers of two types in one file without it
        relax = ["-fallow-argument-mismatch"] if kind == "mpif_h" else []
        exe = d / f"traffic_{kind}"
        res = subprocess.run([OMPI["mpif90"], "-O1", "-ffree-line-length-none", *relax, f"-D{INTERFACES[kind]}",
                              "-o", str(exe), str(PROGRAM)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        out[kind] = exe
    return out


def run(exe: Path, lib: Path | None, mode: str, n: int, record: Path | None, **env) -> subprocess.CompletedProcess:
    """``traffic MODE`` under Debian's Open MPI at ``-n n`` (oversubscribed), the library preloaded on the ranks."""
    args = [mode] + ([str(d) for d in HALO_DIMS[n]] + [str(HALO_STEPS)] if mode == "halo" else [])
    env = clean_env(**env, **({"MPITASKMAP_RECORD": record} if record else {}))
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx")
    cmd = [OMPI["mpiexec"], "--oversubscribe", "-n", str(n)] + (["-x", f"LD_PRELOAD={lib}"] if lib else [])
    cmd += [a for k in env if k.startswith("MPITASKMAP_") for a in ("-x", k)]
    return subprocess.run(cmd + [str(exe), *args], capture_output=True, text=True, timeout=240, env=env)


@pytest.mark.parametrize("n", [4, 16])
@pytest.mark.parametrize("mode", list(PATTERNS))
@pytest.mark.parametrize("interface", list(INTERFACES))
def test_a_fortran_pattern_is_recorded_exactly(programs, lib, tmp_path, interface, mode, n):
    path = tmp_path / "traffic.mtx"
    res = run(programs[interface], lib, mode, n, path)
    assert res.returncode == 0 and res.stdout.splitlines() == OUTPUT.get(mode, []) + [f"done {mode}"], (
        res.stdout, res.stderr)
    assert res.stderr == "", res.stderr
    msgs, nbytes = PATTERNS[mode](n)
    assert read_matrix(path, "real", n) == nbytes
    assert read_matrix(Path(f"{path}.counts.mtx"), "integer", n) == msgs
    job = json.loads(Path(f"{path}.json").read_text())
    assert job["ranks"] == n and job["mpi_library"].startswith("Open MPI v4"), job
    assert (job["nonzeros"], job["messages"], job["bytes"]) == (len(nbytes), sum(msgs.values()),
                                                               sum(nbytes.values()))
    # MPI_PCONTROL reaches the recorder: rank 0 recorded [init, Pcontrol(0)] and [Pcontrol(1), ...]
    assert job["window"]["pcontrol_calls"] == PCONTROL_CALLS.get(mode, 0)
    assert len(job["window"]["intervals_s"]) == (2 if mode in PCONTROL_CALLS else 1)
    # collectives per communicator: traffic.c's, entry by entry (rank 0's MPI_GATHER in place passes a
    # send count of 99, which MPI ignores: Fortran's MPI_IN_PLACE is recognised); kinds' 12 barriers
    expected = COLLECTIVES.get(mode, lambda p: [])(n)
    assert sorted(job["collectives"], key=entry_order) == sorted(expected, key=entry_order)


@pytest.mark.parametrize("interface", list(INTERFACES))
def test_the_fortran_program_runs_alike_without_the_library(programs, interface):
    # the premise of the test above: the patterns and the failed sends' codes are the program's own
    for mode in PATTERNS:
        res = run(programs[interface], None, mode, 4, None)
        assert res.returncode == 0 and res.stdout.splitlines() == OUTPUT.get(mode, []) + [f"done {mode}"], (
            res.stdout, res.stderr)


@pytest.mark.parametrize("interface", list(INTERFACES))
def test_without_mpitaskmap_record_a_fortran_program_writes_nothing(programs, lib, tmp_path, interface):
    res = subprocess.run([OMPI["mpiexec"], "--oversubscribe", "-n", "4", "-x", f"LD_PRELOAD={lib}",
                          str(programs[interface]), "kinds"], capture_output=True, text=True, timeout=240,
                         cwd=tmp_path, env=clean_env(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    assert res.returncode == 0 and res.stdout == "done kinds\n" and res.stderr == "", (res.stdout, res.stderr)
    assert list(tmp_path.iterdir()) == []


#: Every Fortran call the shim defines (mpitaskmap_pmpi_shim_fortran.c), by its mpif.h name in lower case.
FORTRAN_CALLS = (
    "mpi_init mpi_init_thread mpi_finalize mpi_pcontrol mpi_start mpi_startall mpi_request_free "
    "mpi_send mpi_bsend mpi_ssend mpi_rsend mpi_isend mpi_ibsend mpi_issend mpi_irsend mpi_sendrecv "
    "mpi_sendrecv_replace mpi_send_init mpi_bsend_init mpi_ssend_init mpi_rsend_init "
    "mpi_put mpi_rput mpi_get mpi_rget mpi_accumulate mpi_raccumulate mpi_get_accumulate mpi_rget_accumulate "
    "mpi_fetch_and_op mpi_compare_and_swap "
    "mpi_neighbor_allgather mpi_neighbor_allgatherv mpi_neighbor_alltoall mpi_neighbor_alltoallv "
    "mpi_neighbor_alltoallw mpi_ineighbor_allgather mpi_ineighbor_allgatherv mpi_ineighbor_alltoall "
    "mpi_ineighbor_alltoallv mpi_ineighbor_alltoallw "
    "mpi_barrier mpi_bcast mpi_reduce mpi_allreduce mpi_gather mpi_gatherv mpi_scatter mpi_scatterv mpi_allgather "
    "mpi_allgatherv mpi_alltoall mpi_alltoallv mpi_alltoallw mpi_reduce_scatter mpi_reduce_scatter_block mpi_scan "
    "mpi_exscan mpi_ibarrier mpi_ibcast mpi_ireduce mpi_iallreduce mpi_igather mpi_igatherv mpi_iscatter "
    "mpi_iscatterv mpi_iallgather mpi_iallgatherv mpi_ialltoall mpi_ialltoallv mpi_ialltoallw mpi_ireduce_scatter "
    "mpi_ireduce_scatter_block mpi_iscan mpi_iexscan").split()


def test_the_shim_defines_every_fortran_spelling_and_needs_no_fortran_runtime(lib):
    # The preloaded shim reaches every process (mpiexec, a C program): its Fortran entry points must
    # cost nothing there, so it loads no Fortran (nor MPI) library; and it must define gfortran's
    # spellings of mpif.h / `use mpi` and Open MPI's `use mpi_f08` one for each call it records.
    needed = pmpi.elf_needed(lib)
    assert needed and all(n.startswith(("libc.so", "libdl.so", "libpthread.so")) for n in needed), needed
    shim = ctypes.CDLL(str(lib))  # defines, runs nothing: no constructor
    for call in FORTRAN_CALLS:
        for name in (f"{call}_", f"{call}__", call, call.upper(), f"{call}_f08_"):
            assert hasattr(shim, name), name


def test_every_fortran_entry_point_of_the_shim_is_one_open_mpi_defines(programs):
    # a misspelt entry point would never be called (that call unrecorded): each name the shim defines
    # for mpif.h / `use mpi` (name_) and `use mpi_f08` (name_f08_) must be Open MPI's own, looked up in
    # the Fortran libraries the programs load, in a process of their own (they load Open MPI's libmpi)
    fortran_libs = sorted({n for kind in ("mpif_h", "use_mpi_f08") for n in pmpi.elf_needed(programs[kind])
                           if n.startswith("libmpi_")})  # libmpi_mpifh, libmpi_usempif08 (by soname)
    assert len(fortran_libs) == 2, fortran_libs
    probe = ("import ctypes, sys\n"
             "libs = [ctypes.CDLL(n, mode=ctypes.RTLD_GLOBAL) for n in sys.argv[1].split()]\n"
             "print(' '.join(n for n in sys.argv[2:] if not any(hasattr(h, n) for h in libs)))\n")
    names = [f"{call}{end}" for call in FORTRAN_CALLS for end in ("_", "_f08_")]
    res = subprocess.run([sys.executable, "-c", probe, " ".join(fortran_libs), *names], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0 and res.stdout.split() == [], (res.stdout, res.stderr)


@pytest.mark.parametrize("interface", list(INTERFACES))
def test_an_erroneous_fortran_send_aborts_as_without_the_recorder(programs, lib, tmp_path, interface):
    # MPI_ERRORS_ARE_FATAL: MPI_SEND to rank P aborts the job from inside MPI's own binding, with
    # MPI's message and exit status, recorder or not; nothing is written
    base = run_settled(run, programs[interface], None, "fatal", 4, None)
    res = run_settled(run, programs[interface], lib, "fatal", 4, tmp_path / "traffic.mtx")
    assert base.returncode != 0 and "done fatal" not in base.stdout, base
    assert res.returncode == base.returncode and "done fatal" not in res.stdout, res.stderr
    assert first_error_line(base.stderr) != "", base.stderr
    assert first_error_line(res.stderr) == first_error_line(base.stderr), (base.stderr, res.stderr)
    assert list(tmp_path.iterdir()) == []


def test_a_fortran_program_of_another_mpi_is_left_alone_with_one_line(programs, tmp_path):
    # the library built for the mpich wheel, preloaded into the Open MPI Fortran program: its MPI_INIT
    # entry point finds the core cannot run here, rank 0 says so once, and the program runs as it would
    try:
        mpich_lib = pmpi.pmpi_library(pmpi.find_mpicc())
    except (FileNotFoundError, RuntimeError) as e:
        pytest.skip(f"no library for another MPI to preload: {e}")
    if pmpi.mpi_family(pmpi.find_mpicc())[1] == pmpi.FAMILY_MARKERS["Open MPI"]:
        pytest.skip("this Python's mpicc is an Open MPI's: no library of another MPI family to preload")
    res = run(programs["use_mpi_f08"], mpich_lib, "kinds", 4, tmp_path / "traffic.mtx")
    assert res.returncode == 0 and res.stdout == "done kinds\n", (res.stdout, res.stderr)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpitaskmap: the PMPI library was built for MPICH ") and lines[
        0].endswith(": MPITASKMAP_RECORD is ignored: no traffic is recorded (build it with this MPI's mpicc: "
                    "MPICC=... mpitaskmap --pmpi-lib)"), res.stderr
    assert list(tmp_path.iterdir()) == []
