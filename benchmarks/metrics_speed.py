"""Speed of the metrics kernels (issue: foundation).

Targets, on one core of this machine:
  * WeightedHops of a 7-point stencil with 1,048,576 tasks on a 128x128x64 torus <= 0.1 s;
  * per-link loads (Data(e)) with dimension-order routing for the same case <= 2 s, <= 1 GB;
  * the search's default objective, PredictedTime (``metrics.predicted_time``), scoring one
    geometric candidate (``map_geometric``) <= 2 x WeightedHops of the same mapping, in the
    same run (issue 19).  ``time_ratio`` = time_s / wh_s per row; the first call on a machine
    allocates the per-link scratch it then keeps, so it is timed apart (``time_first_s``).

Run:  python -m benchmarks.metrics_speed [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from benchmarks.harness import machine_info, median_time, peak_memory, print_table, write_json

from mpitaskmap import TaskGraph, map_geometric, torus_machine
from mpitaskmap import metrics


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="64x64x32 instead of 128x128x64")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    shape = (64, 64, 32) if args.quick else (128, 128, 64)
    g = TaskGraph.stencil(shape)
    m = torus_machine(shape)
    n = g.n_tasks
    rng = np.random.default_rng(0)
    # identity: the optimum; block-shuffled: 4x4x4 blocks in random order (a mediocre mapping
    # whose routes are ~10x longer); random permutation: a worst case (~1/2 torus per route).
    block = 4
    bshape = tuple(s // block for s in shape)
    coords = g.coords.astype(np.int64)
    bid = np.ravel_multi_index(tuple((coords // block).T[::-1]), bshape[::-1])
    newb = rng.permutation(int(np.prod(bshape)))[bid]
    bcoord = np.stack(np.unravel_index(newb, bshape[::-1])[::-1], axis=1)
    moved = bcoord * block + coords % block
    shuffled = moved[:, 0] + shape[0] * (moved[:, 1] + shape[1] * moved[:, 2])
    mappings = {"identity": np.arange(n), "geometric": map_geometric(g, m).task_to_proc,
                "block-shuffled": shuffled, "random": rng.permutation(n)}
    rows = []
    t_first, _ = median_time(lambda: metrics.predicted_time(g, m, mappings["geometric"]), 1)
    for label, ttp in mappings.items():
        t_wh, wh = median_time(lambda: metrics.weighted_hops(g, m, ttp), args.repeat)
        t_pt, _ = median_time(lambda: metrics.predicted_time(g, m, ttp), args.repeat)
        reps = args.repeat if label != "random" else max(1, min(args.repeat, 3))
        t_ll, loads = median_time(lambda: metrics.link_loads(g, m, ttp), reps)
        mem, _ = peak_memory(lambda: metrics.link_loads(g, m, ttp))
        rows.append(
            {
                "mapping": label,
                "tasks": n,
                "avg_hops": wh / g.n_edges,
                "wh_s": t_wh,
                "wh_target_s": 0.1,
                "time_s": t_pt,
                "time_ratio": t_pt / t_wh,
                "links_s": t_ll,
                "links_target_s": 2.0,
                "links_peak_MB": mem / 2**20,
                "max_data": loads.max_data(),
            }
        )
    info = machine_info()
    print(f"metrics speed: {'x'.join(map(str, shape))} torus, 7-point stencil, {n:,} tasks, "
          f"{g.n_edges:,} directed edges; median of {args.repeat}; machine cores = {info['cores']} "
          f"(kernels are single-threaded)")
    print_table(rows, ["mapping", "tasks", "avg_hops", "wh_s", "wh_target_s", "time_s", "time_ratio", "links_s",
                       "links_target_s", "links_peak_MB", "max_data"])
    geo = next(r for r in rows if r["mapping"] == "geometric")
    print(f"target: PredictedTime of one geometric candidate <= 2 x WeightedHops: {geo['time_s']:.4f} s vs "
          f"{geo['wh_s']:.4f} s = {geo['time_ratio']:.2f}x: {'yes' if geo['time_ratio'] <= 2.0 else 'NO'} "
          f"(first call on the machine, allocating its per-link scratch: {t_first:.4f} s; load average "
          f"{os.getloadavg()[0]:.1f})")
    write_json(args.json, rows, benchmark="metrics_speed", shape=list(shape), time_first_s=t_first)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
