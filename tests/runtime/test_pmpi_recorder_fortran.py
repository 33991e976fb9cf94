"""The PMPI library's traffic recorder for Fortran programs (``mpitaskmap/pmpi/mpitaskmap_pmpi_shim_fortran.c``).

``tests/pmpi_programs/traffic.F90`` is built three times with each of Debian's two MPIs with Fortran,
Open MPI 4.1 (``mpif90.openmpi``) and MPICH 4.0 (``mpif90.mpich``): ``include 'mpif.h'``, ``use mpi``
and ``use mpi_f08`` (whose calls leave the OPTIONAL ``ierror`` out), and runs known patterns at ``-n 4``
and ``-n 16`` (oversubscribed) with the library built by that MPI's ``mpicc`` preloaded.  The two
differ where it matters: Open MPI's Fortran bindings call ``PMPI_Init``, ``PMPI_Send`` ... themselves,
so only the shim's Fortran entry points can start the recorder and count; MPICH's mpif.h and
``use mpi`` bindings call the C ``MPI_Send`` ... (the shim's C entry points count those, and its
Fortran ones must not count them again), its ``use mpi_f08`` ones call ``PMPI_Start``,
``PMPI_Barrier_init`` ... for calls without a buffer (the Fortran entry points count those).  Every
pattern must come out exactly as the C program's does (the expected matrices are the C test's,
``tests/recorder_patterns.py``, computed from the programs' common description), through the same
counters, once.  MPI 4's persistent collectives (``pcollectives``) run on MPICH only: Open MPI 4.1 has
none.  The MPICH and Open MPI wheels ship no Fortran bindings.
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
#: Debian's MPIs with Fortran: their compilers and launcher, by the suffix Debian gives them.
FORTRAN_MPIS = {name: {k: shutil.which(f"{k}.{name}") for k in ("mpicc", "mpiexec", "mpif90")}
                for name in ("openmpi", "mpich")}
#: Why an MPI cannot run here (None: it can).
MISSING = {name: None if all(tools.values()) else
           f"no {name} with Fortran here (Debian's {'openmpi-bin and libopenmpi-dev' if name == 'openmpi' else 'mpich and libmpich-dev'}: "
           f"mpicc.{name}, mpiexec.{name}, mpif90.{name})" for name, tools in FORTRAN_MPIS.items()}
#: What the recording's sidecar names each MPI's library by.
LIBRARY_NAME = {"openmpi": "Open MPI v4", "mpich": "MPICH Version: 4"}
#: The MPIs whose Fortran bindings have MPI 4's persistent collectives (traffic.F90 built with -DHAVE_MPI4).
MPI4_FORTRAN = {"mpich"}
#: (MPI, interface) whose MPI_Neighbor_alltoallw on a Cartesian communicator aborts (MPICH 4.0.2's `use mpi_f08`
#: binding asks MPI_Dist_graph_neighbors_count, without the library too): traffic.F90 built without it there.
NO_F08_ALLTOALLW = {("mpich", "use_mpi_f08")}
OMPI = FORTRAN_MPIS["openmpi"]
NO_OMPI_FORTRAN = MISSING["openmpi"]
#: The three Fortran interfaces and the macro traffic.F90 is built with for each.  (Not named "mpi":
#: pytest-mpi would take a test of that parameter for one to run under mpiexec only.)
INTERFACES = {"mpif_h": "USE_MPIF", "use_mpi": "USE_MPI", "use_mpi_f08": "USE_F08"}

pytestmark = [pytest.mark.timeout(900)]


def needs(mpi: str) -> None:
    """Skip the test where ``mpi`` (a key of FORTRAN_MPIS) is not here."""
    if MISSING[mpi]:
        pytest.skip(MISSING[mpi])


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


def neighbor_fortran(p: int, alltoallw: bool = True) -> tuple[Pairs, Pairs]:
    """traffic.c's neighbor without MPI 4's persistent MPI_Neighbor_alltoall_init (Open MPI 4.1 has none), and
    without its MPI_Neighbor_alltoallw where P < 6 (traffic.F90 skips it there: Open MPI 4.1's Fortran binding
    converts as many types as the communicator has ranks, not neighbours) or not ``alltoallw`` (MPICH 4.0's
    ``use mpi_f08`` binding of it aborts on a Cartesian communicator: the program is built without it)."""
    msgs, nbytes = neighbor(p, persistent=False)
    if p < 6 or not alltoallw:
        for r in range(p):
            for i, q in enumerate(cart_out_neighbours(r, (p // 2, 2, 1), NEIGHBOR_PERIODS)):
                if q is not None:  # block i: an int (dimension i // 2 even) or a double
                    msgs[r, q] -= 1
                    nbytes[r, q] -= 8 if i // 2 % 2 else 4
    return +msgs, +nbytes  # pairs left at 0 dropped


def pcollectives(p: int) -> tuple[Pairs, Pairs]:
    """traffic.F90 pcollectives: the persistent collectives are not pairs; MPI_Neighbor_alltoall_init on a 1-D
    periodic ring of P, started twice: an integer to each of r - 1 and r + 1 a start."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        for q in ((r - 1) % p, (r + 1) % p):
            msgs[r, q] += 2
            nbytes[r, q] += 8
    return msgs, nbytes


def pcollective_calls(p: int) -> list[dict]:
    """traffic.F90 pcollectives on MPI_COMM_WORLD, by hand: MPI_Allreduce_init of 4 integers started 2 + 2 times
    (the start between MPI_Pcontrol(0) and (1) not counted), every rank's 16 bytes a start (64 P); MPI_Bcast_init
    of 2 doubles started twice, the root's 16 bytes (32); MPI_Barrier_init twice (0); MPI_Gather_init of 3
    integers twice, every rank's 12 bytes, the root's in place (its own block of the receive arguments, 3
    integers: its send count of 99 ignored) (24 P)."""
    return [{"size": p, "first_world_rank": 0, "members_hash": members_hash(range(p)),
             "calls": {"MPI_Allreduce_init": 4, "MPI_Bcast_init": 2, "MPI_Barrier_init": 2, "MPI_Gather_init": 2},
             "bytes": 64 * p + 32 + 24 * p}]


def no_pairs(p: int) -> tuple[Pairs, Pairs]:
    """Collectives are not pairs: the matrix is empty (they are in the sidecar)."""
    return Pairs(), Pairs()


PATTERNS = {"ring": ring, "threadring": ring, "halo": halo, "transpose": transpose, "persistent": persistent,
            "pcontrol": pcontrol, "kinds": kinds, "split": split, "badsend": badsend, "onesided": onesided,
            "neighbor": neighbor_fortran, "collectives": no_pairs, "pcollectives": pcollectives}
#: What rank 0 prints, besides "done MODE".
OUTPUT = {"badsend": ["bad send: error, error"]}
#: The collective entries of PATH.json each mode must give (none where not listed).
COLLECTIVES = {"collectives": collectives, "pcollectives": pcollective_calls,
               "kinds": lambda p: [{"size": p, "first_world_rank": 0, "members_hash": members_hash(range(p)),
                                    "calls": {"MPI_Barrier": 12}, "bytes": 0}]}


def entry_order(entry: dict) -> tuple:
    """Collective entries in a fixed order: by lowest world rank, then size."""
    return entry["first_world_rank"], entry["size"]


#: MPI_PCONTROL calls of each mode (rank 0's); the others make none.
PCONTROL_CALLS = {"pcontrol": 5, "onesided": 2, "neighbor": 2, "collectives": 2, "pcollectives": 2}


def test_the_fortran_patterns_own_expectations():
    # hand-checked at 4 ranks: 14 calls of 1, 2, 4 ... 8192 integers; the failed sends count nothing
    assert kinds(4) == (Pairs({(r, (r + 1) % 4): 14 for r in range(4)}),
                        Pairs({(r, (r + 1) % 4): 65532 for r in range(4)}))
    assert badsend(4)[1] == {(0, 1): 4, (1, 2): 8, (2, 3): 12, (3, 0): 16}
    assert pcollectives(4)[1] == {(0, 3): 8, (0, 1): 8, (1, 0): 8, (1, 2): 8, (2, 1): 8, (2, 3): 8, (3, 2): 8,
                                  (3, 0): 8}
    assert pcollective_calls(4)[0]["bytes"] == 4 * 16 * 4 + 2 * 16 + 2 * 12 * 4 == 384


_LIBS: dict[str, Path] = {}
_PROGRAMS: dict[str, dict[str, Path]] = {}


@pytest.fixture(scope="module")
def libs():
    """``libs(mpi)``: the library built by that MPI's mpicc (once; skips where the MPI is not here)."""
    def build(mpi: str) -> Path:
        needs(mpi)
        if mpi not in _LIBS:
            _LIBS[mpi] = pmpi.pmpi_library(FORTRAN_MPIS[mpi]["mpicc"])
        return _LIBS[mpi]
    return build


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """``builds(mpi)``: traffic.F90 built by that MPI's mpif90 for each interface, {interface: executable}
    (once; with -DHAVE_MPI4 where the MPI's Fortran has persistent collectives)."""
    def build(mpi: str) -> dict[str, Path]:
        needs(mpi)
        if mpi not in _PROGRAMS:
            d = tmp_path_factory.mktemp(f"traffic_f_{mpi}")
            out = {}
            for kind in INTERFACES:
                # gfortran 10 and later reject mpif.h's untyped buffers of two types in one file without it
                relax = ["-fallow-argument-mismatch"] if kind == "mpif_h" else []
                mpi4 = ["-DHAVE_MPI4"] if mpi in MPI4_FORTRAN else []
                mpi4 += ["-DNO_F08_NEIGHBOR_ALLTOALLW"] if (mpi, kind) in NO_F08_ALLTOALLW else []
                exe = d / f"traffic_{kind}"
                res = subprocess.run([FORTRAN_MPIS[mpi]["mpif90"], "-O1", "-ffree-line-length-none", *relax, *mpi4,
                                      f"-D{INTERFACES[kind]}", "-o", str(exe), str(PROGRAM)], capture_output=True,
                                     text=True)
                assert res.returncode == 0, res.stderr
                out[kind] = exe
            _PROGRAMS[mpi] = out
        return _PROGRAMS[mpi]
    return build


def launch_command(mpi: str, n: int, lib: Path | None, env: dict) -> list[str]:
    """The launcher's line for ``n`` ranks (oversubscribed), the library preloaded and the MPITASKMAP_ variables of
    ``env`` passed to the ranks: Open MPI's ``-x NAME``, MPICH Hydra's ``-env NAME VALUE``."""
    names = [k for k in env if k.startswith("MPITASKMAP_")]
    if mpi == "openmpi":
        cmd = [FORTRAN_MPIS[mpi]["mpiexec"], "--oversubscribe", "-n", str(n)]
        cmd += ["-x", f"LD_PRELOAD={lib}"] if lib else []
        return cmd + [a for k in names for a in ("-x", k)]
    cmd = [FORTRAN_MPIS[mpi]["mpiexec"], "-n", str(n)] + (["-env", "LD_PRELOAD", str(lib)] if lib else [])
    return cmd + [a for k in names for a in ("-env", k, str(env[k]))]


def run(exe: Path, lib: Path | None, mode: str, n: int, record: Path | None, mpi: str = "openmpi",
        **env) -> subprocess.CompletedProcess:
    """``traffic MODE`` under Debian's ``mpi`` at ``-n n`` (oversubscribed), the library preloaded on the ranks."""
    args = [mode] + ([str(d) for d in HALO_DIMS[n]] + [str(HALO_STEPS)] if mode == "halo" else [])
    env = clean_env(**env, **({"MPITASKMAP_RECORD": record} if record else {}))
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx")
    return subprocess.run(launch_command(mpi, n, lib, env) + [str(exe), *args], capture_output=True, text=True,
                          timeout=240, env=env)


#: The modes each MPI runs (pcollectives where its Fortran has MPI 4's persistent collectives).
def modes(mpi: str) -> list[str]:
    return [m for m in PATTERNS if m != "pcollectives" or mpi in MPI4_FORTRAN]


@pytest.mark.parametrize("n", [4, 16])
@pytest.mark.parametrize("mode", list(PATTERNS))
@pytest.mark.parametrize("interface", list(INTERFACES))
@pytest.mark.parametrize("mpi", list(FORTRAN_MPIS))
def test_a_fortran_pattern_is_recorded_exactly(builds, libs, tmp_path, mpi, interface, mode, n):
    if mode not in modes(mpi):
        pytest.skip(f"{mpi}'s Fortran has no persistent collectives (MPI 4)")
    path = tmp_path / "traffic.mtx"
    res = run(builds(mpi)[interface], libs(mpi), mode, n, path, mpi)
    assert res.returncode == 0 and res.stdout.splitlines() == OUTPUT.get(mode, []) + [f"done {mode}"], (
        res.stdout, res.stderr)
    assert res.stderr == "", res.stderr
    msgs, nbytes = (neighbor_fortran(n, alltoallw=False) if mode == "neighbor" and (mpi, interface) in NO_F08_ALLTOALLW
                    else PATTERNS[mode](n))
    assert read_matrix(path, "real", n) == nbytes
    assert read_matrix(Path(f"{path}.counts.mtx"), "integer", n) == msgs
    job = json.loads(Path(f"{path}.json").read_text())
    assert job["ranks"] == n and job["mpi_library"].startswith(LIBRARY_NAME[mpi]), job
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
@pytest.mark.parametrize("mpi", list(FORTRAN_MPIS))
def test_the_fortran_program_runs_alike_without_the_library(builds, mpi, interface):
    # the premise of the test above: the patterns and the failed sends' codes are the program's own
    for mode in modes(mpi):
        res = run(builds(mpi)[interface], None, mode, 4, None, mpi)
        assert res.returncode == 0 and res.stdout.splitlines() == OUTPUT.get(mode, []) + [f"done {mode}"], (
            res.stdout, res.stderr)


@pytest.mark.parametrize("interface", list(INTERFACES))
@pytest.mark.parametrize("mpi", list(FORTRAN_MPIS))
def test_without_mpitaskmap_record_a_fortran_program_writes_nothing(builds, libs, tmp_path, mpi, interface):
    env = clean_env(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    res = subprocess.run(launch_command(mpi, 4, libs(mpi), env) + [str(builds(mpi)[interface]), "kinds"],
                         capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env)
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
#: ... and MPI 4's persistent collectives (not in Open MPI 4.1: checked against MPICH's Fortran library).
FORTRAN_CALLS_MPI4 = (
    "mpi_barrier_init mpi_bcast_init mpi_reduce_init mpi_allreduce_init mpi_gather_init mpi_gatherv_init "
    "mpi_scatter_init mpi_scatterv_init mpi_allgather_init mpi_allgatherv_init mpi_alltoall_init mpi_alltoallv_init "
    "mpi_alltoallw_init mpi_reduce_scatter_init mpi_reduce_scatter_block_init mpi_scan_init mpi_exscan_init "
    "mpi_neighbor_allgather_init mpi_neighbor_allgatherv_init mpi_neighbor_alltoall_init "
    "mpi_neighbor_alltoallv_init mpi_neighbor_alltoallw_init").split()


def missing_in(fortran_libs: list[str], names: list[str]) -> list[str]:
    """Those of ``names`` no library of ``fortran_libs`` (sonames) defines, looked up in a process of its own."""
    probe = ("import ctypes, sys\n"
             "libs = [ctypes.CDLL(n, mode=ctypes.RTLD_GLOBAL) for n in sys.argv[1].split()]\n"
             "print(' '.join(n for n in sys.argv[2:] if not any(hasattr(h, n) for h in libs)))\n")
    res = subprocess.run([sys.executable, "-c", probe, " ".join(fortran_libs), *names], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


@pytest.mark.parametrize("mpi", list(FORTRAN_MPIS))
def test_the_shim_defines_every_fortran_spelling_and_needs_no_fortran_runtime(libs, mpi):
    # The preloaded shim reaches every process (mpiexec, a C program): its Fortran entry points must
    # cost nothing there, so it loads no Fortran (nor MPI) library; and it must define gfortran's
    # spellings of mpif.h / `use mpi` and Open MPI's `use mpi_f08` one for each call it records.
    lib = libs(mpi)
    needed = pmpi.elf_needed(lib)
    assert needed and all(n.startswith(("libc.so", "libdl.so", "libpthread.so")) for n in needed), needed
    shim = ctypes.CDLL(str(lib))  # defines, runs nothing: no constructor
    for call in FORTRAN_CALLS + FORTRAN_CALLS_MPI4:
        for name in (f"{call}_", f"{call}__", call, call.upper(), f"{call}_f08_"):
            assert hasattr(shim, name), name


def test_every_fortran_entry_point_of_the_shim_is_one_open_mpi_defines(builds):
    # a misspelt entry point would never be called (that call unrecorded): each name the shim defines
    # for mpif.h / `use mpi` (name_) and `use mpi_f08` (name_f08_) must be Open MPI's own, looked up in
    # the Fortran libraries the programs load, in a process of their own (they load Open MPI's libmpi)
    programs = builds("openmpi")
    fortran_libs = sorted({n for kind in ("mpif_h", "use_mpi_f08") for n in pmpi.elf_needed(programs[kind])
                           if n.startswith("libmpi_")})  # libmpi_mpifh, libmpi_usempif08 (by soname)
    assert len(fortran_libs) == 2, fortran_libs
    assert missing_in(fortran_libs, [f"{call}{end}" for call in FORTRAN_CALLS for end in ("_", "_f08_")]) == []


def test_every_fortran_entry_point_of_the_shim_is_one_mpich_defines(builds):
    # the same against MPICH's Fortran library (mpif.h / `use mpi` names, the persistent collectives' too), and
    # MPICH's `use mpi_f08` names of the calls without a buffer (name_f08_; those with one are name_f08ts_,
    # which call the C MPI_Send ...: the shim's C entry points count them)
    programs = builds("mpich")
    fortran_libs = sorted({n for n in pmpi.elf_needed(programs["use_mpi_f08"]) if n.startswith("libmpichfort")})
    assert len(fortran_libs) == 1, fortran_libs
    assert missing_in(fortran_libs, [f"{call}_" for call in FORTRAN_CALLS + FORTRAN_CALLS_MPI4]) == []
    no_buffer = ["mpi_start", "mpi_startall", "mpi_request_free", "mpi_barrier", "mpi_ibarrier", "mpi_barrier_init"]
    assert missing_in(fortran_libs, [f"{call}_f08_" for call in no_buffer]) == []


@pytest.mark.parametrize("interface", list(INTERFACES))
@pytest.mark.parametrize("mpi", list(FORTRAN_MPIS))
def test_an_erroneous_fortran_send_aborts_as_without_the_recorder(builds, libs, tmp_path, mpi, interface):
    # MPI_ERRORS_ARE_FATAL: MPI_SEND to rank P aborts the job from inside MPI's own binding, with
    # MPI's message and exit status, recorder or not; nothing is written
    programs, lib = builds(mpi), libs(mpi)
    base = run_settled(run, programs[interface], None, "fatal", 4, None, mpi)
    res = run_settled(run, programs[interface], lib, "fatal", 4, tmp_path / "traffic.mtx", mpi)
    assert base.returncode != 0 and "done fatal" not in base.stdout, base
    assert res.returncode == base.returncode and "done fatal" not in res.stdout, res.stderr
    assert first_error_line(base.stderr) != "", base.stderr
    assert first_error_line(res.stderr) == first_error_line(base.stderr), (base.stderr, res.stderr)
    assert list(tmp_path.iterdir()) == []


def test_a_fortran_program_of_another_mpi_is_left_alone_with_one_line(builds, tmp_path):
    # the library built for the mpich wheel, preloaded into the Open MPI Fortran program: its MPI_INIT
    # entry point finds the core cannot run here, rank 0 says so once, and the program runs as it would
    try:
        mpich_lib = pmpi.pmpi_library(pmpi.find_mpicc())
    except (FileNotFoundError, RuntimeError) as e:
        pytest.skip(f"no library for another MPI to preload: {e}")
    if pmpi.mpi_family(pmpi.find_mpicc())[1] == pmpi.FAMILY_MARKERS["Open MPI"]:
        pytest.skip("this Python's mpicc is an Open MPI's: no library of another MPI family to preload")
    res = run(builds("openmpi")["use_mpi_f08"], mpich_lib, "kinds", 4, tmp_path / "traffic.mtx")
    assert res.returncode == 0 and res.stdout == "done kinds\n", (res.stdout, res.stderr)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpitaskmap: the PMPI library was built for MPICH ") and lines[
        0].endswith(": MPITASKMAP_RECORD is ignored: no traffic is recorded (build it with this MPI's mpicc: "
                    "MPICC=... mpitaskmap --pmpi-lib)"), res.stderr
    assert list(tmp_path.iterdir()) == []
