"""The fluid replay at a resolution against the exact one: the error and the work saved (the judge at scale).

    python -m benchmarks.fluid_resolution [--ranks 2048] [--steps 5] [--resolutions 0.005,0.01,0.02]
                                          [--networks titan,fattree,frontier,aries] [--json PATH]

The 7-point stencil of ``--ranks`` tasks without message sizes (the ``stencil3d`` default), 8
ranks a node, on the four simulated networks of ``benchmarks/auto_scaling.py``, under two
mappings: the default order and one geometric mapping (the networks:
:func:`benchmarks.harness.platforms.scaling_spec`).  Each is replayed ``--steps`` steps by
:func:`~mpitaskmap.sim.fluid.fluid_exchange` exactly (``resolution`` 0: the rates recomputed at
every message start and end) and at each ``--resolutions`` value (the rates recomputed at most
once every ``resolution`` x a lower bound of one step's time), with the judge's options
(:meth:`~mpitaskmap.metrics.MessageModel.replay_options`).  Per row: the exact step time, its
events and work; per resolution the relative error of the step time, the recomputations and the
work.  The judge replays at :data:`~mpitaskmap.search.judge.FLUID_JUDGE_RESOLUTION` above
:data:`~mpitaskmap.search.judge.JUDGE_EXACT_MAX_EDGES` task-graph edges, and treats replayed
times within it as equal (:func:`~mpitaskmap.search.judge.judge_tie`).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.harness import print_table, write_json
from benchmarks.harness.platforms import SCALING_NETWORKS, scaling_spec
from benchmarks.harness.shapes import stencil_dims

import mpitaskmap
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.search.judge import FLUID_JUDGE_RESOLUTION
from mpitaskmap.search.problem import Problem
from mpitaskmap.sim.fluid import fluid_exchange

RESOLUTIONS = (0.005, FLUID_JUDGE_RESOLUTION, 0.02)


def rows_for(network: str, ranks: int, steps: int, resolutions) -> list[dict]:
    """One row per mapping of one network: the exact replay and one column group per resolution."""
    machine = machine_from_spec(scaling_spec(network, ranks), ranks).machine
    graph = TaskGraph.stencil(stencil_dims(ranks))
    options = {**Problem(graph, machine).message_model.replay_options(), "steps": steps}
    mappings = {"identity": np.arange(graph.n_tasks),
                "geometric": mpitaskmap.map(graph, machine, "geometric").task_to_proc}
    out = []
    for label, ttp in mappings.items():
        t0 = time.perf_counter()
        exact = fluid_exchange(graph, machine, ttp, **options)
        row = {"network": network, "ranks": ranks, "steps": steps, "mapping": label,
               "exact_step_s": f"{exact.seconds / steps:.5e}", "events": exact.n_events, "work": exact.work,
               "exact_wall_s": round(time.perf_counter() - t0, 3)}
        for resolution in resolutions:
            t0 = time.perf_counter()
            coarse = fluid_exchange(graph, machine, ttp, resolution=resolution, **options)
            row[f"error@{resolution:g}"] = f"{100 * (coarse.seconds / exact.seconds - 1):+.2f}%"
            row[f"events@{resolution:g}"] = coarse.n_events
            row[f"work_saved@{resolution:g}"] = round(exact.work / max(coarse.work, 1), 1)
            row[f"wall_s@{resolution:g}"] = round(time.perf_counter() - t0, 3)
        out.append(row)
        print(row, file=sys.stderr, flush=True)
    return out


def parse_resolutions(text: str) -> list[float]:
    """``"0.005,0.01"`` -> ``[0.005, 0.01]``, each in (0, 1).

    >>> parse_resolutions("0.005, 0.01")
    [0.005, 0.01]
    """
    values = [float(v) for v in text.split(",") if v.strip()]
    if not values or any(not 0 < v < 1 for v in values):
        raise SystemExit(f"--resolutions: expected numbers in (0, 1); got {text!r}")
    return values


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2048)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--resolutions", default=",".join(f"{r:g}" for r in RESOLUTIONS))
    ap.add_argument("--networks", default=",".join(SCALING_NETWORKS))
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    resolutions = parse_resolutions(args.resolutions)
    rows = []
    for network in (n.strip() for n in args.networks.split(",") if n.strip()):
        if network not in SCALING_NETWORKS:
            ap.error(f"--networks: unknown {network!r}; valid: {', '.join(SCALING_NETWORKS)}")
        rows += rows_for(network, args.ranks, args.steps, resolutions)
    print_table(rows, list(rows[0]))
    write_json(args.json, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
