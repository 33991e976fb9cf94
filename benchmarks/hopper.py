"""The real 512-rank Cray Gemini allocation (Hopper) with an 8x8x8 7-point stencil.

Zoltan2's own task-mapping test case.  Prints WeightedHops (= TotalHops, unit weights) of
the default order, of each ordering of the geometric mapper (best over its candidates:
rotations and transformation variants), of the best candidate of the full list, and of
the peers when installed (``bash benchmarks/peers/install_peers.sh``): Zoltan2's MJ task
mapper (1 rank = one candidate, and 14 ranks = its own candidate search) and Scotch.

Run:  python -m benchmarks.hopper [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from benchmarks.harness import print_table, write_json

from mpitaskmap import Problem, TaskGraph, best_of, candidate_list, hopper_machine, identity_mapping, metrics
from mpitaskmap.mappers.geometric.mj import ORDERINGS
from mpitaskmap.search.scoring import apply


def peers_rows(graph, machine) -> list[dict]:
    rows = []
    try:
        from benchmarks.peers.zoltan2 import map_zoltan2, zoltan2_available
    except ImportError:
        zoltan2_available = lambda: False  # noqa: E731
    if zoltan2_available():
        for nranks in (1, 14):
            ttp, secs = map_zoltan2(
                machine.router_coords, graph.coords, graph.indptr, graph.indices, graph.weights,
                machine_extent=machine.dims, nranks=nranks,
            )
            rows.append({"method": f"Zoltan2 MJ ({nranks} rank{'s' * (nranks > 1)})",
                         "weighted_hops": metrics.weighted_hops(graph, machine, ttp), "seconds": secs})
    else:
        rows.append({"method": "Zoltan2 MJ", "weighted_hops": "not installed", "seconds": ""})
    try:
        from benchmarks.peers.scotch import TorusTarget, map_scotch, scotch_available
    except ImportError:
        scotch_available = lambda: False  # noqa: E731
    if scotch_available():
        target = TorusTarget.from_proc_coords(machine.dims, machine.router_coords)
        ttp, secs = map_scotch(graph.indptr, graph.indices, graph.weights, target, seed=0)
        rows.append({"method": "Scotch (seed 0)", "weighted_hops": metrics.weighted_hops(graph, machine, ttp),
                     "seconds": secs})
    else:
        rows.append({"method": "Scotch", "weighted_hops": "not installed", "seconds": ""})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args(argv)
    machine = hopper_machine()
    graph = TaskGraph.stencil([8, 8, 8])
    rows = [{"method": "default (task i on rank i)",
             "weighted_hops": identity_mapping(graph, machine).metric("weighted_hops"), "seconds": 0.0}]
    for ordering in ORDERINGS:
        cands = candidate_list(graph, machine, orderings=[ordering])
        first = apply(cands[0], Problem(graph, machine))
        t0 = time.perf_counter()
        res = best_of(graph, machine, cands, metric="weighted_hops")
        rows.append({"method": f"{ordering.upper()} longest/longest, shift",
                     "weighted_hops": first.metric("weighted_hops"), "seconds": first.info["seconds"]})
        rows.append({"method": f"{ordering.upper()} best of {len(cands)} candidates",
                     "weighted_hops": res.score, "seconds": time.perf_counter() - t0,
                     "winner": cands[res.index].label()})
    cands = candidate_list(graph, machine, include_identity=True)
    res = best_of(graph, machine, cands, metric="weighted_hops")
    rows.append({"method": f"BEST of the full list ({len(cands)} candidates)", "weighted_hops": res.score,
                 "seconds": res.seconds, "winner": cands[res.index].label()})
    if not args.no_peers:
        rows += peers_rows(graph, machine)
    print(f"Hopper 512-rank allocation ({machine.n_nodes} nodes, 15 routers, torus 17x8x24), "
          f"8x8x8 7-point stencil ({graph.n_edges} directed unit edges); cores = {os.cpu_count()}")
    print_table(rows, ["method", "weighted_hops", "seconds", "winner"])
    write_json(args.json, rows, benchmark="hopper")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
