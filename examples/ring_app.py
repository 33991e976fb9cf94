"""An ordinary mpi4py application that knows nothing about mpitaskmap.

It decomposes a 3-D domain over ``comm`` with ``MPI.Compute_dims`` (rank -> grid position
x fastest), exchanges one value with each face neighbour and returns a checksum.  Its
``main(comm)`` is what ``wrap_existing.py`` runs on a remapped communicator.
"""

from mpi4py import MPI


def grid_position(rank: int, dims) -> tuple:
    """Grid position of a rank, x fastest."""
    return rank % dims[0], (rank // dims[0]) % dims[1], rank // (dims[0] * dims[1])


def main(comm=MPI.COMM_WORLD) -> float:
    """Exchange a value with every face neighbour; return the global sum of what arrived."""
    dims = MPI.Compute_dims(comm.size, 3)
    x, y, z = grid_position(comm.rank, dims)
    total = 0.0
    for k, pos in enumerate((x, y, z)):
        stride = [1, dims[0], dims[0] * dims[1]][k]
        for step in (-1, 1):
            if 0 <= pos + step < dims[k]:
                other = comm.rank + step * stride
                total += comm.sendrecv(float(comm.rank), dest=other, source=other)
    return comm.allreduce(total)


if __name__ == "__main__":
    result = main()
    if MPI.COMM_WORLD.rank == 0:
        print(f"ring_app checksum {result}")
