"""2-D five-point stencil that measures its own communication, recognises it and remaps.

Run (16 ranks, oversubscribed on a laptop, on a simulated 8 x 2 mesh):

    mpiexec -n 16 python -m mpi4py examples/stencil2d.py

Each rank owns an ``n x n`` block of a global grid split over a ``px x py`` task grid
(tasks numbered x fastest; non-periodic).  The program

1. runs a few time steps of halo exchange (one row or column of doubles to each face
   neighbour) plus a residual gather on rank 0, counting the bytes it sends to every
   rank: each rank records its row of the communication matrix, as a profiler would;
2. gathers the matrix on rank 0, writes it in the documented text format
   (:func:`mpitaskmap.mappers.grid.analysis.write_comm_matrix`), reads it back and runs the
   process-topology analyser (which ignores the light residual gather on rank 0);
3. maps the recognised grid offline with every heuristic of the suite
   (:func:`mpitaskmap.map_regular`) and prints the candidate table;
4. calls ``mpitaskmap.remap(comm, coords, neighbors=..., weights=..., provider=...)`` with
   the grid heuristics added to the candidate list, and runs the stencil again on the
   returned communicator.

Rank 0 prints the model metrics of the default and the remapped placement.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np
from mpi4py import MPI

import mpitaskmap
from mpitaskmap.mappers.grid.analysis import analyse_grid, read_comm_matrix, write_comm_matrix
from mpitaskmap import map_regular
from mpitaskmap.metrics import evaluate
from mpitaskmap.providers import assemble_machine, get_provider

FACES = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def task_coords(task: int, grid) -> tuple[int, int]:
    """Grid coordinate of a task, x fastest."""
    return task % grid[0], task // grid[0]


def neighbors(task: int, grid) -> list[int]:
    """Face neighbours of a task (non-periodic)."""
    x, y = task_coords(task, grid)
    out = []
    for dx, dy in FACES:
        if 0 <= x + dx < grid[0] and 0 <= y + dy < grid[1]:
            out.append(x + dx + grid[0] * (y + dy))
    return out


def run_stencil(comm, grid, n: int, steps: int) -> np.ndarray:
    """Run the stencil with this rank's task = its rank; return the bytes sent per rank."""
    rank, size = comm.Get_rank(), comm.Get_size()
    sent = np.zeros(size, dtype=np.float64)
    u = np.full((n + 2, n + 2), float(rank))
    nbrs = neighbors(rank, grid)
    x, y = task_coords(rank, grid)
    for _ in range(steps):
        reqs, bufs = [], []
        for t in nbrs:
            recv = np.empty(n)
            bufs.append(recv)
            reqs.append(comm.Irecv(recv, source=t, tag=3))
        for t in nbrs:
            tx, ty = task_coords(t, grid)
            edge = u[1:-1, n] if tx > x else u[1:-1, 1] if tx < x else u[n, 1:-1] if ty > y else u[1, 1:-1]
            send = np.ascontiguousarray(edge)
            reqs.append(comm.Isend(send, dest=t, tag=3))
            sent[t] += send.nbytes
        MPI.Request.Waitall(reqs)
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        residual = np.array([float(np.abs(u).sum())])
        comm.Gather(residual, None if rank else np.empty(size), root=0)
        if rank:
            sent[0] += residual.nbytes
    return sent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", help="task grid PXxPY (default: MPI.Compute_dims of the rank count)")
    ap.add_argument("--n", type=int, default=64, help="block edge per rank (cells), default 64")
    ap.add_argument("--steps", type=int, default=5, help="time steps, default 5")
    ap.add_argument("--provider", help="coordinate provider (default: sim:torus:dims=<2P>x<Q/2>,wrap=0, "
                                       "a mesh with another aspect ratio than the task grid)")
    args = ap.parse_args(argv)
    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    grid = tuple(int(v) for v in args.grid.lower().split("x")) if args.grid else tuple(MPI.Compute_dims(size, 2))
    if len(grid) != 2 or grid[0] * grid[1] != size:
        raise SystemExit(f"--grid: {args.grid!r} must be PXxPY with PX*PY = number of ranks ({size})")
    spec = args.provider
    if spec is None:
        a, b = (grid[0] * 2, grid[1] // 2) if grid[1] % 2 == 0 else (grid[0], grid[1])
        spec = f"sim:torus:dims={a}x{b},wrap=0"
    provider = get_provider(spec)
    machine = assemble_machine(world.allgather(provider.locate(rank, size)), provider.network(size=size),
                               name=provider.spec)

    # 1. measure: every rank records its row of the communication matrix
    row = run_stencil(world, grid, args.n, args.steps)
    rows = world.gather(row, root=0)

    # 2-3. rank 0: file round trip, analyser, offline suite
    if rank == 0:
        matrix = np.vstack(rows)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "comm_matrix.txt")
            write_comm_matrix(path, matrix, comment=f"examples/stencil2d.py, {size} ranks")
            graph = read_comm_matrix(path)
        pattern = analyse_grid(graph)
        print(f"2-D stencil: {size} ranks, task grid {grid[0]}x{grid[1]}, {args.n}x{args.n} block per rank, "
              f"{args.steps} steps; machine {machine.name}")
        print(f"analyser: {pattern.summary()}")
        result = map_regular(graph, machine)
        print("offline suite (hop-bytes of the measured matrix):")
        print("  " + result.summary().replace("\n", "\n  "))
        sys.stdout.flush()

    # 4. remap with the grid family in the candidate list, run again
    me = rank
    nbrs = neighbors(me, grid)
    volume = float(args.n * 8 * args.steps)
    new, report = mpitaskmap.remap(
        world, task_coords(me, grid), neighbors=nbrs, weights=[volume] * len(nbrs), provider=provider,
        families=("geometric", "grid"), report=True,
    )
    run_stencil(new, grid, args.n, 1)
    task_to_proc = np.array(new.allgather(rank))  # task t (new rank t) runs on processor `rank`
    halo = mpitaskmap.TaskGraph.from_neighbor_lists(
        [neighbors(t, grid) for t in range(size)], [[volume] * len(neighbors(t, grid)) for t in range(size)]
    )
    before = evaluate(halo, machine, np.arange(size), ["average_hops", "weighted_hops"])
    after = evaluate(halo, machine, task_to_proc, ["average_hops", "weighted_hops"])
    if rank == 0:
        print(report.summary())
        print(f"{'placement':<10} {'AverageHops':>11} {'WeightedHops (B)':>17}")
        print(f"{'default':<10} {before['average_hops']:>11.3f} {before['weighted_hops']:>17,.0f}")
        print(f"{'remapped':<10} {after['average_hops']:>11.3f} {after['weighted_hops']:>17,.0f}")
        sys.stdout.flush()
    new.Free()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
