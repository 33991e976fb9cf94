"""Run an unmodified mpi4py application on a remapped communicator.

    mpiexec -n 16 python -m mpi4py examples/wrap_existing.py

The application (``ring_app.main(comm)``) decides its subdomain from ``comm.rank``.  We
tell ``remap`` which subdomain each *current* rank would own (the same decomposition the
application uses) and its face neighbours, and hand the application the reordered
communicator: the application code does not change, its ranks now sit where their
neighbours are.  The printed checksum is identical with and without remapping (the
computation is the same; only the placement changed).
"""

from __future__ import annotations

import sys

from mpi4py import MPI

import mpitaskmap
import ring_app


def main() -> int:
    world = MPI.COMM_WORLD
    dims = MPI.Compute_dims(world.size, 3)
    me = ring_app.grid_position(world.rank, dims)
    neighbors = []
    for k in range(3):
        stride = [1, dims[0], dims[0] * dims[1]][k]
        for step in (-1, 1):
            if 0 <= me[k] + step < dims[k]:
                neighbors.append(world.rank + step * stride)
    provider = sys.argv[1] if len(sys.argv) > 1 else "sim:titan:ppn=1,seed=1"
    comm, report = mpitaskmap.remap(world, me, neighbors=neighbors, provider=provider, report=True)
    before = ring_app.main(world)
    after = ring_app.main(comm)
    if world.rank == 0:
        print(report.summary())
        print(f"checksum on COMM_WORLD {before}, on the remapped communicator {after}")
    comm.Free()
    return 0 if before == after else 1


if __name__ == "__main__":
    raise SystemExit(main())
