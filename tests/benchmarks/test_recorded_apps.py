"""benchmarks/recorded_apps.py: the patterns MiniGhost and HPCG must record, on hand-computed cases.

The real runs (the released sources, built and run at 64+ ranks) are the benchmark's, not
tests: CI cannot fetch the sources.  Here every expected-pattern function is checked against
values worked out by hand from the codes' sources (cited per case).
"""

from __future__ import annotations

import pytest

from benchmarks.harness.mpis import Mpi
from benchmarks.recorded_apps import (MiniGhostCase, Pairs, compare, compare_collectives, hpcg_call_counts,
                                      hpcg_collectives, hpcg_coords, hpcg_expected, hpcg_neighbours,
                                      hpcg_process_grid, hpcg_run_facts, hpcg_shared_points, minighost_collectives,
                                      minighost_coords, minighost_expected, minighost_face_reals,
                                      minighost_make_command, parse_hpcg_log, parse_hpcg_yaml, parse_minighost_output)


# -- MiniGhost ------------------------------------------------------------------------------------


def test_minighost_ranks_are_x_fastest_as_mg_init_places_them():
    # MG_INIT: MYPX = mod(mod(MYPE, NPX*NPY), NPX), MYPY = mod(MYPE, NPX*NPY) / NPX, MYPZ = MYPE / (NPX*NPY)
    assert [minighost_coords(r, (2, 3, 2)) for r in (0, 1, 2, 5, 6, 11)] == [
        (0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 2, 0), (0, 0, 1), (1, 2, 1)]


def test_minighost_faces_carry_their_ghost_layers():
    # MG_PACK: the BACK/FRONT (z) face is GRID(0:NX+1, 0:NY+1, k), EAST/WEST (x) GRID(i, 0:NY+1, 0:NZ+1) ...
    assert minighost_face_reals((2, 3, 4)) == (5 * 6, 4 * 6, 4 * 5)


def test_a_2x2x2_bspma_grid_sends_each_face_once_a_step_with_every_variable():
    case = MiniGhostCase((2, 2, 2), (2, 3, 4), num_vars=2, num_tsteps=3, stencil="3d7pt", comm_method="bspma")
    nbytes, msgs = minighost_expected(case)
    # every rank has one neighbour per dimension (r ^ 1 in x, r ^ 2 in y, r ^ 4 in z), no wrap: 24 pairs
    assert set(nbytes) == {(r, r ^ b) for r in range(8) for b in (1, 2, 4)}
    # 3 steps x 2 variables x face reals x 8 bytes: x 30, y 24, z 20 reals
    assert nbytes[0, 1] == 3 * 2 * 30 * 8 == 1440
    assert nbytes[0, 2] == 3 * 2 * 24 * 8 == 1152
    assert nbytes[0, 4] == 3 * 2 * 20 * 8 == 960
    assert nbytes[7, 3] == 960 and nbytes[6, 7] == 1440
    assert set(msgs.values()) == {3}  # one message per neighbour and step


def test_svaf_sends_one_message_per_variable_and_the_same_bytes():
    bspma = MiniGhostCase((2, 2, 2), (2, 3, 4), num_vars=2, num_tsteps=3, stencil="3d27pt", comm_method="bspma")
    svaf = MiniGhostCase((2, 2, 2), (2, 3, 4), num_vars=2, num_tsteps=3, stencil="3d27pt", comm_method="svaf")
    assert minighost_expected(svaf)[0] == minighost_expected(bspma)[0]
    assert set(minighost_expected(svaf)[1].values()) == {6}  # 3 steps x 2 variables
    # 27 points: edges and corners travel inside the faces (MG_BSPMA_DIAGS: three direction phases)
    assert minighost_expected(bspma)[0] == minighost_expected(
        MiniGhostCase((2, 2, 2), (2, 3, 4), num_vars=2, num_tsteps=3, stencil="3d7pt"))[0]


def test_minighost_boundaries_do_not_wrap_and_spikes_repeat_the_steps():
    # a 3 x 1 x 1 line: the middle rank has 2 neighbours, the ends 1; 2 spikes x 2 steps = 4 exchanges
    case = MiniGhostCase((3, 1, 1), (4, 4, 4), num_vars=1, num_tsteps=2, num_spikes=2)
    nbytes, msgs = minighost_expected(case)
    assert set(nbytes) == {(0, 1), (1, 0), (1, 2), (2, 1)}
    assert nbytes[0, 1] == 4 * 1 * 6 * 6 * 8 and msgs[0, 1] == 4


def test_minighost_command_line_and_bad_options():
    case = MiniGhostCase((4, 4, 4), (8, 10, 12), num_vars=3, num_tsteps=2, stencil="3d27pt", comm_method="svaf",
                         error_tol=3)
    assert case.args() == ["--scaling", "2", "--nx", "8", "--ny", "10", "--nz", "12", "--num_vars", "3",
                           "--num_tsteps", "2", "--num_spikes", "1", "--stencil", "24", "--comm_method", "11",
                           "--npx", "4", "--npy", "4", "--npz", "4", "--error_tol", "3"]
    with pytest.raises(ValueError, match="stencil '3d19pt'"):
        MiniGhostCase((1, 1, 1), (1, 1, 1), stencil="3d19pt")
    with pytest.raises(ValueError, match="comm_method"):
        MiniGhostCase((1, 1, 1), (1, 1, 1), comm_method="svat")


def test_minighost_collectives():
    case = MiniGhostCase((4, 4, 4), (8, 10, 12), num_vars=3, num_tsteps=2)
    got = minighost_collectives(case)
    # Bcast 3 (main.c) + 2 (MG_INIT); Allreduce 1 source total + 2 steps x 3 variables + 3 final sums;
    # the report's 27 gathers and 3 reduces
    assert got["calls"] == {"MPI_Bcast": 5, "MPI_Allreduce": 10, "MPI_Gather": 27, "MPI_Reduce": 3}
    bcast = 21 * 4 + 1024 + 1024 + 3 * 8 + 4 * 4  # the root's buffers only
    allreduce = 64 * (3 + 6 + 3) * 8  # every rank: 3 source totals, 6 step sums, 3 final sums
    assert got["bytes"] == bcast + allreduce + 64 * 27 * 8 + 64 * (7 + 8 + 9) * 8 == 34_428
    # 2 variables, 1 of them summed each step (a --percent_sum below 100)
    two = minighost_collectives(MiniGhostCase((4, 4, 4), (8, 10, 12), num_vars=2, num_tsteps=2), summed_vars=1)
    assert two["calls"]["MPI_Allreduce"] == 1 + 2 * 1 + 2
    assert two["bytes"] == 84 + 2048 + 2 * 8 + 16 + 64 * (2 + 2 + 2) * 8 + 64 * 27 * 8 + 64 * 24 * 8


def test_minighost_is_built_by_its_makefile_with_variables_only():
    base = ["make", "-f", "makefile.mpi.gnu", "FC=F", "CC=C", "LD=F",  # LD: the Fortran wrapper has its runtime
            "OPT_F=-O2 -fallow-argument-mismatch -ffree-line-length-none"]
    ompi = Mpi("debian-openmpi", "openmpi", "mpirun", "C", "X", "F")
    assert minighost_make_command(ompi) == base + ["MPI_INCLUDE=-DOMPI_OMIT_MPI1_COMPAT_DECLS=0"]  # MPI_Errhandler_set
    # smpif90 writes a .F file's object to '.o': the .F.o rule's F_INCLUDE names it
    assert minighost_make_command(Mpi("smpi", "smpi", "smpirun", "C", None, "F")) == base + [
        "MPI_INCLUDE=", "F_INCLUDE=-o $@"]
    assert minighost_make_command(Mpi("mpich", "mpich", "mpiexec", "C", "X", "F")) == base + ["MPI_INCLUDE="]


MINIGHOST_OUT = """
 Communication strategy: full message aggregation (COMM_METHOD_BSPMA)
 Number of variables reduced each time step:  3; requested  100%.
      Global Grid Dimension:       40,       48,       56
      Local Grid Dimension :       10,       12,       14
  64 processes executing on logical     4 x     4 x     4 processor grid

 Computation within error tolerance.
"""


def test_minighost_output_is_read():
    assert parse_minighost_output(MINIGHOST_OUT) == {"passed": True, "ranks": 64, "grid": (4, 4, 4),
                                                     "global": (40, 48, 56), "local": (10, 12, 14),
                                                     "summed_vars": 3}
    assert parse_minighost_output("** Error ** [pe 0] DRIVER_BSPMA")["passed"] is False


# -- HPCG -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("size, grid", [
    (1, (1, 1, 1)), (8, (2, 2, 2)), (64, (4, 4, 4)), (512, (8, 8, 8)),
    (128, (8, 4, 4)),  # 2^7: z = 2^2, y = 2^(2 + 0), x = 2^(2 + 1)
    (6, (2, 3, 1)),  # two distinct primes: z = 1
    (12, (2, 3, 2)),  # 2^2 * 3: z the repeated prime
    (30, (2, 3, 5)),  # three distinct primes
    (96, (4, 4, 6)),  # 2^5 * 3: the search; the first split of the least area 64 (tf1 = 4, then tf2 = 4)
])
def test_hpcg_process_grid_is_compute_optimal_shape_xyz(size, grid):
    assert hpcg_process_grid(size) == grid


def test_the_centre_of_a_3x3x3_hpcg_grid_has_26_neighbours_and_a_corner_7():
    assert hpcg_coords(13, (3, 3, 3)) == (1, 1, 1)
    centre = hpcg_neighbours(13, (3, 3, 3))
    assert sorted(centre) == [r for r in range(27) if r != 13]
    assert centre[14] == (1, 0, 0) and centre[10] == (0, -1, 0) and centre[0] == (-1, -1, -1)
    assert hpcg_neighbours(0, (3, 3, 3)) == {1: (1, 0, 0), 3: (0, 1, 0), 4: (1, 1, 0), 9: (0, 0, 1),
                                             10: (1, 0, 1), 12: (0, 1, 1), 13: (1, 1, 1)}


def test_hpcg_sends_a_face_an_edge_or_a_corner():
    local = (16, 24, 32)
    assert hpcg_shared_points((1, 0, 0), local) == 24 * 32  # the x face: ny nz points
    assert hpcg_shared_points((0, -1, 0), local) == 16 * 32
    assert hpcg_shared_points((0, 0, 1), local) == 16 * 24
    assert hpcg_shared_points((1, 1, 0), local) == 32  # the xy edge: nz points
    assert hpcg_shared_points((1, -1, 1), local) == 1


def test_hpcg_calls_of_a_quick_path_run():
    # the 64-rank run: TestCG 11, 11 (no preconditioner), 2, 2 iterations; validation and timed CG 50
    calls = hpcg_call_counts(True, [11, 11, 2, 2], 50, 1, 50)
    # SpMV: 1 timing + 51 reference + (12 + 12 + 3 + 3) TestCG + 4 symmetry + 51 validation + 51 timed
    assert sum(calls.spmv.values()) == 1 + 51 + 30 + 4 + 51 + 51 == 188
    # MG: 1 + 50 + (2 + 2) + 2 + 50 + 50
    assert sum(calls.mg.values()) == 157
    assert calls.exchanges() == (188 + 3 * 157, 3 * 157, 3 * 157, 157) == (659, 471, 471, 157)
    # not the quick path: the reference timing loop runs 10 times; 3 sets of 52 iterations
    slow = hpcg_call_counts(False, [11, 11, 2, 2], 52, 3, 52)
    assert slow.spmv["reference SpMV+MG timing"] == slow.mg["reference SpMV+MG timing"] == 10
    assert slow.spmv["timed CG"] == 3 * 53 and slow.mg["timed CG"] == 3 * 52 and slow.mg["validation CG"] == 52
    # Allreduce: 8 setup + 151 reference + (34 + 34 + 7 + 7) TestCG + 8 symmetry + (151 + 1) validation
    # + 151 timed + 3 report, one 8-byte value from each of 64 ranks
    assert sum(calls.allreduce.values()) == 8 + 151 + 82 + 8 + 152 + 151 + 3 == 555
    assert hpcg_collectives(64, calls) == {"calls": {"MPI_Allreduce": 555}, "bytes": 555 * 64 * 8}
    with pytest.raises(ValueError, match="4 CG calls"):
        hpcg_call_counts(True, [11, 11, 2], 50, 1, 50)


def test_hpcg_pairs_on_a_2x2x2_grid():
    calls = hpcg_call_counts(True, [11, 11, 2, 2], 50, 1, 50)  # exchanges per level 659, 471, 471, 157
    nbytes, msgs = hpcg_expected((2, 2, 2), (16, 24, 32), calls)
    assert set(nbytes) == {(r, q) for r in range(8) for q in range(8) if r != q}  # all 7 are neighbours
    # 0 -> 1 across x: faces of 24x32, 12x16, 6x8, 3x4 points on levels 0..3
    assert nbytes[0, 1] == 8 * (659 * 768 + 471 * 192 + 471 * 48 + 157 * 12) == 4_968_288
    # 0 -> 3 across the xy edge: 32, 16, 8, 4 points
    assert nbytes[0, 3] == 8 * (659 * 32 + 471 * 16 + 471 * 8 + 157 * 4) == 264_160
    assert nbytes[0, 7] == 8 * (659 + 471 + 471 + 157) == 14_064  # a corner: 1 point on every level
    assert set(msgs.values()) == {659 + 471 + 471 + 157} == {1758}  # one message per exchange and neighbour
    with pytest.raises(ValueError, match="divisible by 8"):
        hpcg_expected((2, 2, 2), (16, 20, 32), calls)


HPCG_REPORT = """HPCG-Benchmark
Machine Summary::Distributed Processes=64
Processor Dimensions::npx=4
Processor Dimensions::npy=4
Processor Dimensions::npz=4
Local Domain Dimensions::nx=16
Local Domain Dimensions::ny=24
Local Domain Dimensions::nz=32
Multigrid Information::Coarse Grids::Grid Level=1
Multigrid Information::Coarse Grids::Grid Level=2
Iteration Count Information::Reference CG iterations per set=50
Iteration Count Information::Optimized CG iterations per set=50
Iteration Count Information::Total number of reference iterations=50
Iteration Count Information::Total number of optimized iterations=50
"""
HPCG_LOG = """WARNING: PERFORMING UNPRECONDITIONED ITERATIONS
Call [0] Number of Iterations [11] Scaled Residual [1.19159e-14]
WARNING: PERFORMING UNPRECONDITIONED ITERATIONS
Call [1] Number of Iterations [11] Scaled Residual [1.19159e-14]
Call [0] Number of Iterations [2] Scaled Residual [8.17311e-17]
Call [1] Number of Iterations [2] Scaled Residual [8.17311e-17]
SpMV call [0] Residual [0]
Call [0] Scaled Residual [9.56783e-08]
"""


def test_hpcg_files_give_the_grid_and_the_calls():
    report = parse_hpcg_yaml(HPCG_REPORT)
    assert report["Multigrid Information::Coarse Grids::Grid Level"] == "1"  # the first of repeated keys
    assert parse_hpcg_log(HPCG_LOG) == [11, 11, 2, 2]  # not the timed phase's 'Call [0] Scaled Residual'
    facts, calls = hpcg_run_facts(report, HPCG_LOG, quick_path=True)
    assert facts == {"ranks": 64, "grid": (4, 4, 4), "local": (16, 24, 32)}
    assert calls == hpcg_call_counts(True, [11, 11, 2, 2], 50, 1, 50)
    with pytest.raises(RuntimeError, match="2 TestCG iteration counts"):
        hpcg_run_facts(report, "\n".join(HPCG_LOG.splitlines()[:4]), quick_path=True)


# -- comparing ------------------------------------------------------------------------------------


def test_compare_counts_missing_extra_and_different_pairs():
    exp_b, exp_m = Pairs({(0, 1): 80, (1, 0): 80, (1, 2): 40}), Pairs({(0, 1): 2, (1, 0): 2, (1, 2): 1})
    row = compare(exp_b.copy(), exp_m.copy(), exp_b, exp_m)
    assert row["passed"] and row["max_rel_diff"] == 0.0 and row["bytes_recorded"] == 200
    # (1, 2) missing, (2, 1) extra, (0, 1) 60 instead of 80 bytes in 1 message instead of 2
    rec_b, rec_m = Pairs({(0, 1): 60, (1, 0): 80, (2, 1): 40}), Pairs({(0, 1): 1, (1, 0): 2, (2, 1): 1})
    row = compare(rec_b, rec_m, exp_b, exp_m)
    assert (row["missing"], row["extra"], row["messages_differ"]) == (1, 1, 3)
    assert row["max_rel_diff"] == 1.0 and not row["passed"]
    row = compare(Pairs({(0, 1): 60}), Pairs({(0, 1): 2}), Pairs({(0, 1): 80}), Pairs({(0, 1): 2}))
    assert row["max_rel_diff"] == pytest.approx(0.25) and not row["passed"]


def test_compare_collectives_wants_one_communicator_of_all_ranks():
    want = {"calls": {"MPI_Allreduce": 3}, "bytes": 96}
    world = {"size": 4, "first_world_rank": 0, "members_hash": "x", "calls": {"MPI_Allreduce": 3}, "bytes": 96}
    assert compare_collectives({"collectives": [world]}, 4, want)["coll_passed"] is True
    assert compare_collectives({}, 4, want)["coll_passed"] is None  # not recorded: neither PASS nor FAIL
    half = dict(world, size=2)
    assert compare_collectives({"collectives": [world, half]}, 4, want)["coll_passed"] is False
    assert compare_collectives({"collectives": [dict(world, bytes=88)]}, 4, want)["coll_passed"] is False
