"""Head-to-head with the anchor: our MJ mapper vs Zoltan2's MJ task mapper, same inputs.

3-D 7-point stencils of 4,096 to 262,144 tasks, mapped one-to-one onto (a) a full torus of
the same shape and (b) a sparse Titan-like allocation (16 cores per node; other jobs hold
half the machine, or half of what the job leaves free when it needs more than half of the
19,200 nodes: ``busy = min(0.5, 0.5 * (1 - nodes / 19200))``).  Per input: seconds of one candidate (ours: FZ, longest dimension, torus shift;
Zoltan2: one MPI rank = its one longest/longest candidate, time of the mapping call alone,
measured inside its driver), WeightedHops of that candidate, and WeightedHops of our
candidate search: every ordering x variant without rotations, plus FZ with all task x
processor rotation pairs (about 200 candidates; ``remap()`` spreads such a list over the
job's ranks).  Ratios ours / Zoltan2.

Needs the optional peer: ``bash benchmarks/peers/install_peers.sh``.

Run:  python benchmarks/zoltan2_compare.py [--quick] [--repeat N] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _util import median_time, print_table, write_json  # noqa: E402

from mpitaskmap import TaskGraph, best_of, candidate_list, identity_mapping, map_geometric, metrics  # noqa: E402
from mpitaskmap import titan_machine, torus_machine  # noqa: E402

SHAPES = [(16, 16, 16), (32, 32, 16), (32, 32, 32), (64, 64, 32), (64, 64, 64)]


def inputs(shapes):
    for shape in shapes:
        n = shape[0] * shape[1] * shape[2]
        graph = TaskGraph.stencil(shape)
        yield f"{'x'.join(map(str, shape))} on full torus", graph, torus_machine(shape)
        nodes = n // 16
        busy = min(0.5, 0.5 * (1 - nodes / 19200))
        yield (f"{'x'.join(map(str, shape))} on sparse titan", graph,
               titan_machine(nodes, cores_per_node=16, busy_fraction=busy, seed=1))


def compare(shapes=SHAPES, repeat: int = 3) -> list[dict]:
    """Run the comparison; return one record per input (empty when Zoltan2 is missing)."""
    from peers.zoltan2 import map_zoltan2, zoltan2_available

    if not zoltan2_available():
        print("zoltan2_compare: Zoltan2 driver not built; run bash benchmarks/peers/install_peers.sh")
        return []
    rows = []
    for label, graph, machine in inputs(shapes):
        t_ours, ours = median_time(lambda: map_geometric(graph, machine), repeat)
        z_times, z_ttp = [], None
        for _ in range(repeat):
            z_ttp, secs = map_zoltan2(machine.router_coords, graph.coords, graph.indptr, graph.indices,
                                      graph.weights, machine_extent=machine.dims)
            z_times.append(secs)
        t_z = sorted(z_times)[len(z_times) // 2]
        wh_z = metrics.weighted_hops(graph, machine, z_ttp)
        wh_ours = ours.metric("weighted_hops")
        cands = candidate_list(graph, machine, rotate=False, include_identity=True)
        cands += [c for c in candidate_list(graph, machine, orderings=["fz"]) if c not in cands]
        search = best_of(graph, machine, cands, metric="weighted_hops")
        rows.append({
            "input": label,
            "tasks": graph.n_tasks,
            "default_wh": identity_mapping(graph, machine).metric("weighted_hops"),
            "zoltan2_wh": wh_z,
            "ours_1cand_wh": wh_ours,
            "ours_search_wh": search.score,
            "search_cands": len(search.scores),
            "wh_ratio_1cand": wh_ours / wh_z,
            "wh_ratio_search": search.score / wh_z,
            "zoltan2_s": t_z,
            "ours_1cand_s": t_ours,
            "time_ratio": t_ours / t_z,
        })
    return rows


COLUMNS = ["input", "tasks", "default_wh", "zoltan2_wh", "ours_1cand_wh", "ours_search_wh", "search_cands",
           "wh_ratio_1cand", "wh_ratio_search", "zoltan2_s", "ours_1cand_s", "time_ratio"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the two smallest shapes")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    rows = compare(SHAPES[:2] if args.quick else SHAPES, args.repeat)
    if rows:
        print(f"ours vs Zoltan2 MJ task mapper (median of {args.repeat}; cores = {os.cpu_count()}; "
              "one candidate each, single-threaded)")
        print_table(rows, COLUMNS)
        worse = [r["input"] for r in rows if r["wh_ratio_search"] > 1.0]
        print("WeightedHops of our search <= Zoltan2 on every input" if not worse
              else f"Zoltan2 better on: {worse}")
    write_json(args.json, rows, benchmark="zoltan2_compare")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
