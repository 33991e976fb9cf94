"""Test configuration: quiet non-root ranks under mpiexec, report their failures on stderr;
the loader of the benchmark studies for their tests."""

import contextlib
import importlib
import subprocess
import sys

import pytest


@contextlib.contextmanager
def _benchmark_module(name: str):
    """The study ``benchmarks.NAME``, imported as the package's module (the repository root is on sys.path:
    ``python -m pytest`` from it)."""
    yield importlib.import_module(f"benchmarks.{name}")


@pytest.fixture(scope="session")
def benchmark_loader():
    """``with benchmark_loader("NAME") as mod``: the study ``benchmarks.NAME`` as a module."""
    return _benchmark_module


def _world():
    try:
        from mpi4py import MPI
    except ImportError:  # serial runs without mpi4py installed
        return 0, 1
    return MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    rank, size = _world()
    if size > 1 and rank != 0:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            config.pluginmanager.unregister(reporter)


def pytest_runtest_logreport(report):
    rank, size = _world()
    if size > 1 and rank != 0 and report.failed:
        sys.stderr.write(f"[rank {rank}] FAILED {report.nodeid} ({report.when})\n{report.longreprtext}\n")


#: The communicators the ``comm`` fixture runs an MPI test on (see :func:`comm`).
COMM_KINDS = ("world", "reversed", "half", "self")


@pytest.fixture(scope="session", params=COMM_KINDS)
def comm(request):
    """An intracommunicator to run a collective test on, one per :data:`COMM_KINDS`.

    * ``world``: ``MPI.COMM_WORLD``.
    * ``reversed``: every world rank, in reversed order (``Split(0, size - 1 - rank)``):
      comm rank ``r`` is world rank ``size - 1 - r``.
    * ``half``: the world cut into a lower and an upper half, each keeping world order
      (``Split(rank >= size // 2, rank)``): two disjoint communicators run the same test
      at the same time, each on a contiguous block of world ranks (sizes
      ``size // 2`` and ``size - size // 2``; at ``-n 1`` just one communicator).
    * ``self``: ``MPI.COMM_SELF``: every process alone.

    Tests that need particular sizes skip the others with a reason.  Session-scoped: pytest
    groups the tests by communicator (the same order on every rank), each communicator
    made here is created once and freed when its group ends, which saves a ``Split`` and a
    ``Free`` per test under oversubscribed ``mpiexec``.  Tests must not free or modify it.
    mpi4py is imported only when the fixture runs (MPI tests), as the rest of this file
    does for the rank and size.
    """
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    kind = request.param
    if kind == "world":
        yield world
        return
    if kind == "self":
        yield MPI.COMM_SELF
        return
    if kind == "reversed":
        made = world.Split(0, world.size - 1 - world.rank)
    else:
        made = world.Split(int(world.rank >= world.size // 2), world.rank)
    try:
        yield made
    finally:
        made.Free()


# -- SMPI: a ping between every pair of ranks, shared by the SimGrid tests ----------------------------
PING_ALL_PAIRS = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* For every pair i < j: i sends, j replies; i records the round trip.  Both receives are
   posted before the barrier, so neither transfer waits for a late receiver. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &n);
  int bytes = atoi(argv[1]);
  char *buf = calloc(bytes > 0 ? bytes : 1, 1), *back = calloc(bytes > 0 ? bytes : 1, 1);
  double *rt = calloc((size_t)n * n, sizeof(double)), *all = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      MPI_Request req = MPI_REQUEST_NULL;
      if (rank == i) MPI_Irecv(back, bytes, MPI_CHAR, j, 1, MPI_COMM_WORLD, &req);
      if (rank == j) MPI_Irecv(buf, bytes, MPI_CHAR, i, 0, MPI_COMM_WORLD, &req);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == i) {
        double t0 = MPI_Wtime();
        MPI_Send(buf, bytes, MPI_CHAR, j, 0, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        rt[i * n + j] = MPI_Wtime() - t0;
      } else if (rank == j) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_CHAR, i, 1, MPI_COMM_WORLD);
      }
    }
  MPI_Reduce(rt, all, n * n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++) printf("%d %d %.12e\n", i, j, all[i * n + j]);
  MPI_Finalize();
  return 0;
}
"""


@pytest.fixture(scope="session")
def smpi_ping(tmp_path_factory):
    """The ping program built with smpicc (skips with SimGrid's reason when it is missing).

    Run with one argument, the message size in bytes; rank 0 prints ``i j seconds`` per pair
    (the round trip of ``i`` sending and ``j`` replying).
    """
    from mpitaskmap.sim.simgrid import simgrid_missing

    if simgrid_missing():
        pytest.skip(simgrid_missing())
    d = tmp_path_factory.mktemp("ping")
    (d / "ping.c").write_text(PING_ALL_PAIRS)
    subprocess.run(["smpicc", "-O1", "ping.c", "-o", "ping"], cwd=d, check=True, capture_output=True)
    return d / "ping"
