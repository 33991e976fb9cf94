"""Helpers of the tests that run under mpiexec: the world, agreement across ranks, what a
provider gives every rank (its gathered machine, the outcome of remap()), a provider failing on one rank."""

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
