"""MiniGhost-style proxy: a 3-D 7-point stencil with halo exchange, default vs remapped.

Run (16 ranks, oversubscribed on a laptop, on a simulated sparse Titan-like allocation):

    mpiexec -n 16 python -m mpi4py examples/minighost.py

Each MPI rank owns a subgrid of a global grid split over a px x py x pz task grid (tasks
numbered x fastest, as MiniGhost does; non-periodic).  Every time step does a
non-blocking halo exchange of all variables with the six face neighbours, then a 7-point
stencil update.  The same run is repeated under each placement:

* ``default``   - task i on rank i (the scheduler's order);
* ``group``     - MiniGhost's own grouping: consecutive ranks (sharing a node) get a
                  2 x 2 x 4 block of tasks;
* ``geometric`` - ``mpitaskmap.remap(comm, coords, neighbors=...)``.

Printed by rank 0: for each placement the model metrics on the machine (AverageHops,
WeightedHops, Latency(M) with the Gemini link bandwidths), then three times of one exchange
step of the proxy's messages (``n^2 x vars x 8`` bytes per face) on the simulated Titan,
each named by its model, all with the library's one message model
(:data:`mpitaskmap.metrics.DEFAULT_MESSAGE_MODEL`: weights are bytes, 100 ns a hop), the
one ``remap()`` searches with:

* ``predicted s``: the search's objective (:func:`mpitaskmap.metrics.predicted_time`), a
  formula that ranks mappings, not a replay;
* ``replayed s``: one step of the judge's in-process replay
  (:func:`mpitaskmap.sim.fluid.fluid_exchange`) under SimGrid's SMPI network model (the
  judge itself replays several steps and reports their mean, see ``remap``'s report);
* ``SimGrid s``: SimGrid's own replay of the same step under the same model
  (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`); ``n/a`` and one line saying why
  when SimGrid is not installed (``apt-get install libsimgrid-dev``).  It equals the
  replayed column (the tests check it to 1e-6).

and ``laptop wall s``: the measured maximum communication time over ranks of this run.
The laptop column is *not* a network time: on an oversubscribed laptop it reflects process
scheduling (the ranks share a few cores and exchange through shared memory), so it says
nothing about the mapping; the replayed and SimGrid columns are the time the mapping gives
on the network.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from mpi4py import MPI

import mpitaskmap
from mpitaskmap import metrics
from mpitaskmap.metrics import DEFAULT_MESSAGE_MODEL
from mpitaskmap.providers import assemble_machine, get_provider
from mpitaskmap.sim.fluid import DEFAULT_NETWORK_MODEL, fluid_exchange
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.sim.simgrid_replay import simulate_exchange

#: Header of the measured column: wall-clock time of this run, not a network time.
WALL_HEADER = "laptop wall s (not a network)"
#: Headers of the three times of one exchange step, each named by its model.
TIME_HEADERS = ("predicted s", "replayed s", "SimGrid s")

FACES = [(-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)]


def parse_grid(text: str | None, size: int) -> tuple[int, int, int]:
    """Return the task grid (px, py, pz): parsed from 'PXxPYxPZ' or chosen by MPI."""
    if text:
        dims = tuple(int(v) for v in text.lower().split("x"))
    else:
        dims = tuple(MPI.Compute_dims(size, 3))  # largest first: x is the longest dimension
    if len(dims) != 3 or int(np.prod(dims)) != size:
        raise SystemExit(f"--grid: {text!r} must be PXxPYxPZ with PX*PY*PZ = number of ranks ({size})")
    return dims


def task_coords(task: int, grid) -> tuple[int, int, int]:
    """Grid coordinate of a task, x fastest."""
    px, py, _ = grid
    return task % px, (task // px) % py, task // (px * py)


def task_id(c, grid) -> int:
    """Task number of a grid coordinate (x fastest); -1 outside the grid."""
    if any(v < 0 or v >= n for v, n in zip(c, grid)):
        return -1
    return c[0] + grid[0] * (c[1] + grid[1] * c[2])


def face_neighbors(task: int, grid) -> list[int]:
    """Tasks this task exchanges halos with (non-periodic)."""
    x, y, z = task_coords(task, grid)
    out = [task_id((x + dx, y + dy, z + dz), grid) for dx, dy, dz in FACES]
    return [t for t in out if t >= 0]


def group_order(grid, block=(2, 2, 4)) -> list[int]:
    """MiniGhost grouping: rank r gets the task at position r of a blocked ordering.

    Consecutive ranks fill a ``block`` of tasks (x fastest inside the block), blocks in
    x-fastest order.  A block length that does not divide the grid is halved until it does.
    """
    b = list(block)
    for k in range(3):
        while grid[k] % b[k]:
            b[k] //= 2
    bx, by, bz = b
    nbx, nby = grid[0] // bx, grid[1] // by
    per = bx * by * bz
    order = []
    for r in range(int(np.prod(grid))):
        blk, w = divmod(r, per)
        cx, cy, cz = blk % nbx, (blk // nbx) % nby, blk // (nbx * nby)
        wx, wy, wz = w % bx, (w // bx) % by, w // (bx * by)
        order.append(task_id((cx * bx + wx, cy * by + wy, cz * bz + wz), grid))
    return order


def run_stencil(comm, grid, n: int, n_vars: int, steps: int) -> float:
    """Run the proxy on ``comm`` (its rank is the task); return this rank's comm seconds."""
    task = comm.Get_rank()
    x, y, z = task_coords(task, grid)
    u = np.full((n_vars, n + 2, n + 2, n + 2), float(task), dtype=np.float64)
    nbrs = []
    for dx, dy, dz in FACES:
        t = task_id((x + dx, y + dy, z + dz), grid)
        if t >= 0:
            nbrs.append(((dx, dy, dz), t))
    tag = 7
    comm_time = 0.0
    comm.Barrier()
    for _ in range(steps):
        t0 = MPI.Wtime()
        reqs, recv_bufs = [], []
        for d, t in nbrs:
            recv = np.empty((n_vars, n, n), dtype=np.float64)
            recv_bufs.append((d, recv))
            reqs.append(comm.Irecv(recv, source=t, tag=tag))
        for d, t in nbrs:
            send = np.ascontiguousarray(_face(u, d, n, inner=True))
            reqs.append(comm.Isend(send, dest=t, tag=tag))
        MPI.Request.Waitall(reqs)
        for d, recv in recv_bufs:
            _face(u, d, n, inner=False)[...] = recv
        comm_time += MPI.Wtime() - t0
        c = u[:, 1:-1, 1:-1, 1:-1]
        u[:, 1:-1, 1:-1, 1:-1] = (
            c + u[:, :-2, 1:-1, 1:-1] + u[:, 2:, 1:-1, 1:-1] + u[:, 1:-1, :-2, 1:-1]
            + u[:, 1:-1, 2:, 1:-1] + u[:, 1:-1, 1:-1, :-2] + u[:, 1:-1, 1:-1, 2:]
        ) / 7.0
    return comm_time


def _face(u, d, n, *, inner: bool):
    """View of the face of u in direction d: the outermost owned layer or the ghost layer."""
    idx = [slice(None), slice(1, n + 1), slice(1, n + 1), slice(1, n + 1)]
    for k, v in enumerate(d):
        if v:
            pos = (n if v > 0 else 1) if inner else (n + 1 if v > 0 else 0)
            idx[k + 1] = pos
    return u[tuple(idx)]


def replayed_step_seconds(graph, machine, task_to_proc_by_name: dict) -> dict:
    """The judge's replay of one exchange step of every mapping: ``{name: seconds}``.

    :func:`mpitaskmap.sim.fluid.fluid_exchange` with the library's message model and network
    model (SMPI's), as ``remap()``'s judge replays its candidates (one step: what SimGrid's
    column replays too).
    """
    return {name: fluid_exchange(graph, machine, np.asarray(ttp), **DEFAULT_MESSAGE_MODEL.replay_options()).seconds
            for name, ttp in task_to_proc_by_name.items()}


def simulated_step_seconds(graph, machine, task_to_proc_by_name: dict):
    """SimGrid's seconds of one exchange step of every mapping, or why there are none.

    Returns ``({name: seconds}, None)`` when SimGrid runs here, else ``({}, reason)``.  Every
    message of ``graph`` (its weights are bytes) crosses the machine's links (Gemini
    bandwidths in GB/s) with the library's message model (100 ns a hop) under SimGrid's
    SMPI network model: what the judge's replay computes in-process.
    """
    why = simgrid_missing(compiler=True)
    if why is not None:
        return {}, why
    out = {}
    for name, ttp in task_to_proc_by_name.items():
        mapping = mpitaskmap.Mapping(np.asarray(ttp), machine, graph)
        out[name] = simulate_exchange(mapping, **DEFAULT_MESSAGE_MODEL.replay_options(), timeout=300).seconds
    return out, None


def versus_line(name: str, default: str, values: dict, base: dict, timed: tuple | None = None) -> str:
    """Return one line comparing a mapping with the default order, each change in words.

    Parameters
    ----------
    name, default : str
        The mapping's label and the default order's.
    values, base : dict
        Their metrics (``average_hops`` and ``latency``).
    timed : (str, float, float), optional
        The time's model ("SimGrid" or "replayed"), the default's time and the mapping's.

    Returns
    -------
    str
        The changes as :func:`mpitaskmap.metrics.change_text` spells them.

    Examples
    --------
    >>> versus_line("group", "default", {"average_hops": 2.0, "latency": 3.0}, {"average_hops": 1.5, "latency": 3.0},
    ...             ("SimGrid", 3e-7, 2e-7))
    'group: AverageHops 33.3% higher, Latency(M) unchanged, SimGrid time 33.3% lower (vs default)'
    """
    change = metrics.change_text
    line = (f"{name}: AverageHops {change(base['average_hops'], values['average_hops'])}, "
            f"Latency(M) {change(base['latency'], values['latency'])}")
    if timed is not None:
        line += f", {timed[0]} time {change(timed[1], timed[2])}"
    return line + f" (vs {default})"


def format_table(rows, replayed: dict, simulated: dict, why: str | None) -> list[str]:
    """Lines of the result table: the model metrics, the three times, laptop wall s, the legend.

    ``rows`` holds (name, metric values, wall seconds), the values with ``predicted_time``;
    ``replayed`` and ``simulated`` map a name to its replayed and SimGrid step seconds
    (``n/a`` where absent); ``why`` (SimGrid's absence) is printed when it is not None.
    """
    pred, repl, sim_h = TIME_HEADERS
    lines = [f"{'mapping':<10} {'AverageHops':>11} {'WeightedHops (B)':>17} {'Latency(M)':>11} "
             f"{pred:>12} {repl:>11} {sim_h:>10}  {WALL_HEADER}"]
    for name, v, t in rows:
        rep = f"{replayed[name]:>11.4g}" if name in replayed else f"{'n/a':>11}"
        sim = f"{simulated[name]:>10.4g}" if name in simulated else f"{'n/a':>10}"
        lines.append(f"{name:<10} {v['average_hops']:>11.3f} {v['weighted_hops']:>17,.0f} "
                     f"{v['latency']:>11.4g} {v['predicted_time']:>12.4g} {rep} {sim}  {t:>{len(WALL_HEADER)}.4f}")
    if why is not None:
        lines.append(f"{sim_h}: n/a: {why}")
    model = DEFAULT_MESSAGE_MODEL
    lines.append(f"times of one exchange step ({model.bytes_per_weight:g} byte per unit of weight, "
                 f"{model.hop_latency:g} s per hop): {pred} = the search's objective (predicted_time),")
    lines.append(f"  {repl} = the judge's in-process replay, {sim_h} = SimGrid's own replay, both under SimGrid's "
                 f"{DEFAULT_NETWORK_MODEL.name} network model")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", help="task grid PXxPYxPZ (default: MPI.Compute_dims of the rank count)")
    ap.add_argument("--n", type=int, default=12, help="subgrid edge per rank (cells), default 12")
    ap.add_argument("--vars", type=int, default=4, help="variables per cell, default 4")
    ap.add_argument("--steps", type=int, default=20, help="time steps, default 20")
    ap.add_argument("--mapping", default="default,group,geometric",
                    help="comma list of default, group, geometric (default: all three)")
    ap.add_argument("--provider", default="sim:titan:ppn=1,seed=1",
                    help="coordinate provider spec (default: a sparse simulated Titan-like allocation)")
    args = ap.parse_args(argv)
    world = MPI.COMM_WORLD
    size, rank = world.Get_size(), world.Get_rank()
    grid = parse_grid(args.grid, size)
    provider = get_provider(args.provider)
    machine = assemble_machine(
        world.allgather(provider.locate(rank, size)), provider.network(size=size), name=provider.spec
    )
    graph = mpitaskmap.TaskGraph.from_neighbor_lists(
        [face_neighbors(t, grid) for t in range(size)],
        [[float(args.n * args.n * args.vars * 8)] * len(face_neighbors(t, grid)) for t in range(size)],
        coords=[task_coords(t, grid) for t in range(size)],
    )
    rows = []
    for name in [m.strip() for m in args.mapping.split(",") if m.strip()]:
        report = None
        if name == "default":
            comm = world.Dup()
        elif name == "group":
            order = group_order(grid)
            comm = world.Split(0, order[rank])
        elif name == "geometric":
            my_task = rank  # the application's task of this rank before remapping
            comm, report = mpitaskmap.remap(
                world, task_coords(my_task, grid), neighbors=face_neighbors(my_task, grid),
                weights=[float(args.n * args.n * args.vars * 8)] * len(face_neighbors(my_task, grid)),
                provider=provider, report=True,
            )
        else:
            raise SystemExit(f"--mapping: unknown {name!r}; valid: default, group, geometric")
        # task t runs on the process whose new rank is t; that process is processor `rank`
        task_to_proc = np.array(comm.allgather(rank))
        t_comm = run_stencil(comm, grid, args.n, args.vars, args.steps)
        t_max = world.allreduce(t_comm, op=MPI.MAX)
        values = metrics.evaluate(graph, machine, task_to_proc,
                                  ["average_hops", "weighted_hops", "latency", "predicted_time"],
                                  **DEFAULT_MESSAGE_MODEL.metric_options())
        rows.append((name, values, t_max, report, task_to_proc))
        comm.Free()
    if rank == 0:
        print(f"MiniGhost-style proxy: {size} ranks, task grid {'x'.join(map(str, grid))}, "
              f"{args.n}^3 cells x {args.vars} vars per rank, {args.steps} steps")
        network = (f", {len(np.unique(machine.router_ids()))} routers of a {'x'.join(map(str, machine.dims))} torus"
                   if machine.has_router_grid else "")
        print(f"machine: {machine.name}: {machine.n_procs} ranks on {machine.n_nodes} nodes{network}")
        placements = {r[0]: r[4] for r in rows}
        replayed = replayed_step_seconds(graph, machine, placements)
        simulated, why = simulated_step_seconds(graph, machine, placements)
        print("\n".join(format_table([r[:3] for r in rows], replayed, simulated, why)))
        base = rows[0][1]
        for name, v, _, rep, _ in rows[1:]:
            times, what = (simulated, "SimGrid") if name in simulated and rows[0][0] in simulated else (replayed,
                                                                                                       "replayed")
            timed = (what, times[rows[0][0]], times[name]) if times[rows[0][0]] else None
            print(versus_line(name, rows[0][0], v, base, timed))
            if rep is not None:
                print("  " + rep.summary().replace("\n", "\n  "))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
