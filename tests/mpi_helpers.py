"""Helpers of the tests that run under mpiexec: the world, agreement across ranks, and what a
provider gives every rank (its gathered machine, the outcome of remap())."""

from mpitaskmap import MappingError
from mpitaskmap.providers import assemble_machine


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
