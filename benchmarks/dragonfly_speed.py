"""Mapping speed on a dragonfly under Valiant routing against minimal routing (issue 31's "fast at 100K+ ranks").

``mpitaskmap.map(graph, machine, "auto")`` (the default search: every family, refinement,
the judge's fluid replay) on a 3-D stencil of ``nodes x ppn`` ranks, on the same scattered
allocation of a preset dragonfly (:func:`~mpitaskmap.machines.dragonfly.presets.dragonfly_preset`)
built twice in the same run: ``routing="minimal"`` (one path per node pair) and
``routing="valiant"`` (every pair spread over every intermediate group: thousands of links
a pair, whose link loads :mod:`mpitaskmap.machines.dragonfly.loads` computes leg by leg).

For each routing the median wall time of ``--repeat`` runs of ``auto``, each on a fresh copy
of the machine (what a machine keeps between calls, such as congestion refinement's route
table, is built in every run), and of one predicted-time evaluation of its result
(``link_time s``), and the ratio valiant / minimal of the ``auto`` times.  ``--generic`` adds the predicted time by the generic node-pair
routing (:meth:`Machine._routed_traffic <mpitaskmap.machines.base.Machine._routed_traffic>`,
what Valiant used before; minutes at thousands of ranks).

Run:  python -m benchmarks.dragonfly_speed [--machine aries] [--nodes 64] [--ppn 8] [--repeat 3]
      [--generic] [--json PATH]
"""

from __future__ import annotations

import argparse
import time

import mpitaskmap as mt
from mpitaskmap.machines import Machine
from mpitaskmap.machines.dragonfly.presets import DRAGONFLY_PRESETS, dragonfly_preset

from benchmarks.harness import median_time, print_table, write_json
from benchmarks.harness.shapes import stencil_dims

ROUTINGS = ("minimal", "valiant")


def machines(machine: str, nodes: int, ppn: int) -> dict:
    """The same allocation (seed 1) under each routing of :data:`ROUTINGS`."""
    return {routing: dragonfly_preset(machine, nodes=nodes, ppn=ppn, seed=1, routing=routing) for routing in ROUTINGS}


def generic_seconds(mapping) -> float:
    """Seconds of one predicted-time evaluation by the base's node-pair routing."""
    m, g = mapping.machine, mapping.graph
    t0 = time.perf_counter()
    Machine._routed_traffic(m, g.indptr, g.indices, g.weights, mapping.task_to_proc, overlap_weight=float("inf"))
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--machine", choices=sorted(DRAGONFLY_PRESETS), default="aries")
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--ppn", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--generic", action="store_true", help="also time the generic node-pair routing's evaluation")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    ranks = args.nodes * args.ppn
    graph = mt.TaskGraph.stencil(stencil_dims(ranks), weight=1.0)
    rows = []
    for routing, machine in machines(args.machine, args.nodes, args.ppn).items():
        seconds, best = median_time(lambda: mt.map(graph, machine.with_routing(routing), "auto"), repeat=args.repeat)
        evaluation, _ = median_time(lambda: best.metric("predicted_time"), repeat=args.repeat)
        row = {"machine": args.machine, "routing": routing, "ranks": ranks, "nodes": machine.n_nodes,
               "median s": round(seconds, 2), "link_time s": round(evaluation, 4),
               "winner": best.info.get("label", best.method)}
        if args.generic:
            row["generic link_time s"] = round(generic_seconds(best), 3)
        rows.append(row)
    ratio = rows[1]["median s"] / rows[0]["median s"]
    columns = ["machine", "routing", "ranks", "nodes", "median s", "link_time s"]
    print_table(rows, columns + (["generic link_time s"] if args.generic else []) + ["winner"])
    print(f"valiant / minimal = {ratio:.2f}; median of {args.repeat} runs each")
    write_json(args.json, rows, benchmark="dragonfly_speed", ratio=ratio)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
