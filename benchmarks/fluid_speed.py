"""Speed of the fluid replay, the default judge of auto (mpitaskmap.sim.fluid, mpitaskmap.search.judge).

    python -m benchmarks.fluid_speed [--ranks 4096] [--ppn 16,8,1] [--repeat 3] [--simgrid] [--json PATH]

One exchange step of the 7-point halo of ``--ranks`` tasks (2,560-byte faces) on the simulated
Titan (seed 1) at each ``--ppn``, under three mappings: the default order, one geometric
mapping, and the objective's pick of ``auto`` (no judge).  Per row: the messages between
nodes, the replay's events and work (its unit of
:data:`~mpitaskmap.search.judge.FLUID_JUDGE_MAX_WORK`), the median wall seconds of
:func:`~mpitaskmap.sim.fluid.fluid_exchange` over ``--repeat`` runs, its throughput (work per
second), the median seconds of one evaluation of the objective (``predicted_time``) on the
same mapping in the same run and the ratio of the two (what one replay costs in objective
evaluations), and whether the default judge's budget covers it.  With ``--simgrid`` (needs
SimGrid) also the wall seconds of SimGrid's own replay (``simulate_exchange``, SMPI model)
and the relative difference of the two step times.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.harness import median_time, print_table, write_json

import mpitaskmap
from mpitaskmap import TaskGraph, titan_machine
from mpitaskmap.sim.fluid import fluid_exchange
from mpitaskmap.search.judge import FLUID_JUDGE_MAX_WORK, JUDGE_CONFIG
from mpitaskmap.metrics import DEFAULT_HOP_LATENCY, predicted_time

GRIDS = {512: (8, 8, 8), 4096: (16, 16, 16), 16384: (32, 32, 16)}
FACE_BYTES = 2560.0
LINK_LATENCY = DEFAULT_HOP_LATENCY  # the library's message model (the judge's)


def rows_for(n: int, ppn: int, repeat: int, simgrid: bool) -> list[dict]:
    """Benchmark rows of one job size and ranks per node."""
    graph = TaskGraph.stencil(GRIDS[n], weight=FACE_BYTES)
    machine = titan_machine(n // ppn, cores_per_node=ppn, seed=1)
    mappings = {
        "identity": mpitaskmap.map(graph, machine, "identity"),
        "geometric": mpitaskmap.map(graph, machine, "geometric"),
        "auto (objective)": mpitaskmap.map(graph, machine, judge=None),
    }
    out = []
    for label, mapping in mappings.items():
        ttp = mapping.task_to_proc
        t_fluid, rep = median_time(lambda: fluid_exchange(graph, machine, ttp, link_latency=LINK_LATENCY), repeat)
        t_obj, _ = median_time(lambda: predicted_time(graph, machine, ttp), max(repeat, 5))
        row = {"ranks": n, "ppn": ppn, "mapping": label, "messages": int(rep.src.size), "events": rep.n_events,
               "work": rep.work, "fluid_s": round(t_fluid, 3), "work_per_s": f"{rep.work / t_fluid:.3g}",
               "objective_s": round(t_obj, 5), "fluid/objective": round(t_fluid / t_obj),
               "in_budget": rep.work <= FLUID_JUDGE_MAX_WORK, "step_s": f"{rep.seconds:.5e}"}
        if simgrid:
            from mpitaskmap.sim.simgrid_replay import simulate_exchange

            t_sim, sim = median_time(lambda: simulate_exchange(mapping, link_latency=LINK_LATENCY,
                                                               config=JUDGE_CONFIG), 1)
            row.update(simgrid_s=round(t_sim, 2), rel_diff=f"{rep.seconds / sim.seconds - 1:.1e}")
        out.append(row)
        print(row, file=sys.stderr, flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=4096, choices=sorted(GRIDS))
    ap.add_argument("--ppn", default="16,8,1", help="ranks per node, comma list (default 16,8,1)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per replay (the median is reported)")
    ap.add_argument("--simgrid", action="store_true", help="also time SimGrid's replay (needs SimGrid)")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat: must be at least 1; got {args.repeat}")
    if args.simgrid:
        from mpitaskmap.sim.simgrid import simgrid_missing

        missing = simgrid_missing(compiler=True)
        if missing:
            ap.error(f"--simgrid: {missing}")
    rows = []
    for ppn in (int(p) for p in args.ppn.split(",") if p.strip()):
        rows += rows_for(args.ranks, ppn, args.repeat, args.simgrid)
    print_table(rows, list(rows[0]))
    print(f"default judge budget: {FLUID_JUDGE_MAX_WORK:,} work units a replay")
    write_json(args.json, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
