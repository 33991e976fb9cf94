"""Test configuration: quiet non-root ranks under mpiexec, report their failures on stderr."""

import sys

import pytest


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
