"""Helpers of the tests that run under mpiexec: the world, agreement across ranks, what a
provider gives every rank (its gathered machine, the outcome of remap()), a provider failing on one rank;
and of the tests that start mpiexec themselves: a clean environment, MPI's error message out of the
launcher's noise, a run the launcher did not garble."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence

from mpitaskmap import MappingError
from mpitaskmap.providers import Provider, assemble_machine, get_provider

#: The simulated machine of the remap() tests.
SIM = "sim:titan:ppn=1,seed=2"


def world():
    """``MPI.COMM_WORLD`` (mpi4py imported only by the tests that run under mpiexec)."""
    from mpi4py import MPI

    return MPI.COMM_WORLD


def all_same(comm, value) -> bool:
    """Whether every rank of ``comm`` holds a value equal to ``value`` of rank 0.  Collective."""
    everyone = comm.allgather(value)
    return all(v == everyone[0] for v in everyone)


def gathered_machine(comm, provider):
    """The machine every rank assembles from the locations ``provider`` gives the ranks of ``comm``.  Collective."""
    locs = comm.allgather(provider.locate(comm.rank, comm.size))
    return assemble_machine(locs, provider.network(size=comm.size), name=provider.spec)


def comm_machine(comm, spec):
    """The machine ``remap(comm, ..., provider=spec)`` assembles: rank ``r`` of ``comm`` at
    the location of its world rank in a job of the world's size.  Collective over comm."""
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    provider = get_provider(spec)
    locations = [provider.locate(w, world.size) for w in comm.allgather(world.rank)]
    return assemble_machine(locations, provider.network(size=world.size), name=spec)


def task_of(rank: int, size: int):
    """Task coordinates of ``rank``: two columns, one row per pair of ranks."""
    return (float(rank % 2), float(rank // 2))


def run_remap(comm, provider, on_error):
    """How ``remap()`` with ``provider`` ended on this rank: ``("raised", message)`` or
    ``("returned", status, error, kept its rank)``.  Collective."""
    from mpitaskmap import remap

    try:
        new, rep = remap(comm, task_of(comm.rank, comm.size), provider=provider, on_error=on_error, report=True)
    except MappingError as exc:
        return ("raised", str(exc))
    outcome = ("returned", rep.status, rep.error, new.rank == comm.rank)
    new.Free()
    return outcome


class FailingProvider(Provider):
    """The sim provider, except that one rank cannot locate itself."""

    name = "failing"

    def __init__(self, bad_rank):
        super().__init__()
        self.inner = get_provider(SIM)
        self.bad_rank = bad_rank

    def locate(self, rank, size):
        if rank == self.bad_rank:
            raise RuntimeError("no coordinates on this node")
        return self.inner.locate(rank, size)

    def network(self, *, size=None):
        return self.inner.network(size=size)


# -- tests that start mpiexec ------------------------------------------------------------------------

#: The bin folder of this Python's virtualenv (the MPICH wheel's mpiexec and mpicc, the tests' first PATH entry).
BIN = Path(sys.executable).parent


def clean_env(**extra) -> dict:
    """This environment without preloads or mpitaskmap switches, the venv first on PATH, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_") and k not in ("LD_PRELOAD",
                                                                                                "PYTHONPATH")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update({k: str(v) for k, v in extra.items()})
    return env


#: Lines of the launchers (hydra's banner, ORTE's and PRRTE's reports of an abort, their help
#: aggregation, libevent, UCX component and PMIx warnings): not MPI's error message, and partly racy.
LAUNCHER_NOISE = re.compile(
    r"^={5}|^\s*$|BAD TERMINATION|PID \d+ RUNNING AT|EXIT CODE:|CLEANING UP REMAINING|YOU CAN IGNORE|"
    r"YOUR APPLICATION TERMINATED|This typically refers|Please see the FAQ|ORTE_ERROR_LOG|sent help message|"
    r"orte_base_help_aggregate|^\[warn\] Epoll|osc_ucx_component|PMIX ERROR: PMIX_ERR_UNREACH|^-{20}|"
    r"has exited due to process rank|\"abort\"\. This may have caused|terminated by signals sent by|"
    r"\(as reported here\)")


def abort_lines(stderr: str) -> set:
    """MPI's error message, as a set of lines with every number masked (pids, ranks, handles, hosts)."""
    host = socket.gethostname()
    out = set()
    for line in stderr.replace("\0", "").splitlines():
        if line.startswith("mpitaskmap:") or LAUNCHER_NOISE.search(line):
            continue
        out.add(re.sub(r"\d+", "#", re.sub(r"0x[0-9a-fA-F]+", "0x#", line.replace(host, "HOST"))))
    return out


def first_error_line(stderr: str) -> str:
    """MPI's first line about the error, every number masked (ranks, pids, handles, addresses)."""
    for line in stderr.replace("\0", "").splitlines():
        if re.search(r"error|Error|ERROR", line) and not line.startswith("mpitaskmap:"):
            return re.sub(r"\d+", "#", re.sub(r"0x[0-9a-fA-F]+", "0x#", line))
    return ""


def run_settled(run: Callable[..., subprocess.CompletedProcess], *args, hangs: bool = False,
                lines: Sequence[str] = (), **kw) -> subprocess.CompletedProcess:
    """``run(*args, **kw)``; again (10 tries in all) where the launcher lost the MPI's error message,
    or one of ``lines`` the program printed (and flushed) on stdout before an abort.

    Both launchers forward the ranks' stderr racily at an abort.  MPICH's hydra kills the
    other processes and may drop every rank's message (1 of 8 runs of ``errhandlers badcart
    nosend`` without the library here, 1 of 8 with it); Debian's Open MPI 4.1 may lose the
    aborting rank's message (``ORTE_ERROR_LOG ... show_help.c`` instead, its HNP failing to unpack
    the relayed help message: on an idle machine here 5 of 20 runs without the library, 7 of 20
    with it, 1 of 40 with both cores busy; CI once lost it 5 times in a row, hence 10 tries); its ``mpiexec`` itself may die of SIGSEGV after the abort
    (seen without the library and with it) or, rarely, never return (``hangs``: once in about
    90 runs here, with MPITASKMAP_DISABLE=1, where the library loads no Python).  At an abort a
    loaded machine's launcher may also drop what a rank wrote and flushed just before (hydra
    tears its proxies down with the data still in their pipes: seen once in CI and once here,
    with the library and without).  Such a run says nothing of the library.
    """
    tries = 10
    for attempt in range(tries):
        try:
            res = run(*args, **kw)
        except subprocess.TimeoutExpired:
            if attempt == tries - 1 or not hangs:
                raise
            continue
        if "ORTE_ERROR_LOG" not in res.stderr and res.returncode >= 0 and (res.returncode == 0
                                                                             or abort_lines(res.stderr)) \
                and all(line in res.stdout.splitlines() for line in lines):
            break
    return res
