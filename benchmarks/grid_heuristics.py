"""Hops per byte of the regular-grid heuristic suite (ALGORITHMS.md section 4), and its speed.

Bhatele et al.'s table: a 2-D five-point stencil (non-periodic, 1 byte per message, tasks
numbered x fastest) mapped one-to-one onto a mesh allocation (no wrap-around), quality in
*hops per byte* = hop-bytes / bytes.  Shapes (objects -> processor mesh):

* 2-D -> 2-D: 6x5 -> 10x3, 9x8 -> 6x12, 100x40 -> 125x32;
* 2-D -> 3-D: 32x32 -> 8x8x16, 64x32 -> 8x16x16, 32x128 -> 8x8x16;
* 2-D stencil / WRF on Blue Gene/P (4 ranks per node): 32x8 on 4x4x4, 16x32 on 4x4x8,
  64x16 on 8x4x8, 32x64 on 8x8x8, 32x128 on 8x8x16, 64x128 on 8x8x32, 64x256 on 8x16x32.

Where the task count is 4x the node count (32x128 -> 8x8x16 and the WRF shapes) the machine
has 4 processors per router (``cores_per_node=4``, a message between them costs 0 hops);
32x128 -> 8x8x16 appears in both lists of the issue and is run once.

Columns: ``LB`` the lower bound 1.0 (every message at least one hop, one rank per router);
``bound`` the lower bound of the row (with c ranks per router at most ``2c - ceil(2 sqrt c)``
grid pairs of a router stay inside it, 4 for c = 4); ``identity`` the row-major (default) placement
(task t on rank t); one column per heuristic (the best of its variants: fold dimension of
the cores, stack/cut dimensions, curve, block shape; "-" where it does not apply: the 2-D
heuristics need a 2-D mesh and serve as the base case on 3-D meshes); ``PAIRS`` the
pairwise-exchange refinement of the best (seed 0, 64 n proposals); ``best`` the
:func:`~mpitaskmap.search.methods.map_regular` winner; ``geom`` the geometric (MJ) mapper's
default candidate and ``geom*`` the best of the full geometric candidate list
(``candidate_list(graph, machine)``) on the same shapes.

Then the speed target: every heuristic except PAIRS on 65,536 tasks (median of
``--repeat`` runs, each a complete mapper call including validation), plus the analyser.

Usage::

    python -m benchmarks.grid_heuristics [--json PATH] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import math
import sys
import time


from benchmarks.harness import median_time, print_table, write_json

import mpitaskmap
from mpitaskmap import TaskGraph, best_of, candidate_list, map_geometric, torus_machine
from mpitaskmap.mappers.grid.analysis import analyse_grid
from mpitaskmap.mappers.grid._shared import fold_variants, proc_grid
from mpitaskmap.mappers.grid.onto_2d import clear_layout_cache
from mpitaskmap.mappers.grid.onto_3d import block_shapes, stack_variants
from mpitaskmap.mappers.grid.heuristics import map_grid
from mpitaskmap.search.methods import map_regular
from mpitaskmap.metrics import weighted_hops

SHAPES = [
    ((6, 5), (10, 3), 1),
    ((9, 8), (6, 12), 1),
    ((100, 40), (125, 32), 1),
    ((32, 32), (8, 8, 16), 1),
    ((64, 32), (8, 16, 16), 1),
    ((32, 128), (8, 8, 16), 4),
    ((32, 8), (4, 4, 4), 4),
    ((16, 32), (4, 4, 8), 4),
    ((64, 16), (8, 4, 8), 4),
    ((32, 64), (8, 8, 8), 4),
    ((64, 128), (8, 8, 32), 4),
    ((64, 256), (8, 16, 32), 4),
]
COLUMNS = ["mxovlp", "mxov+al", "exco", "coce", "affn", "step", "stack", "fold", "sfc", "block", "pairs"]
SPEED = [
    ((512, 128), (256, 256), 1),
    ((256, 256), (32, 32, 64), 1),
    ((1024, 64), (16, 64, 64), 1),
    ((256, 256), (16, 32, 32), 4),
]


def bound(shape, cores: int) -> float:
    """Lower bound on hops per byte for a 5-point stencil with ``cores`` ranks per router."""
    ox, oy = shape
    pairs = (ox - 1) * oy + ox * (oy - 1)
    inside = 2 * cores - math.ceil(2 * math.sqrt(cores))
    return max(0.0, (pairs - (ox * oy // cores) * inside) / pairs)


def quality(args) -> list[dict]:
    records, rows = [], []
    for oshape, pdims, cores in SHAPES:
        g = TaskGraph.stencil(oshape)
        m = torus_machine(pdims, wrap=False, cores_per_node=cores)
        total = float(g.weights.sum())
        clear_layout_cache()
        t0 = time.perf_counter()
        res = map_regular(g, m, pairs_proposals=(8 if args.quick else 64) * g.n_tasks)
        t_regular = time.perf_counter() - t0
        row = {
            "objects": "x".join(map(str, oshape)),
            "procs": "x".join(map(str, pdims)) + (f" x{cores}" if cores > 1 else ""),
            "LB": 1.0,
            "bound": round(bound(oshape, cores), 4),
        }
        for r in res.table:
            records.append({"objects": row["objects"], "procs": row["procs"], "cores": cores, "heuristic": r["name"],
                            "variant": r["variant"], "hops_per_byte": r["hops_per_byte"], "seconds": r["seconds"],
                            "applicable": r["applicable"]})
            if not r["applicable"]:
                continue
            key = r["name"]
            if key not in row or r["hops_per_byte"] < row[key]:
                row[key] = round(r["hops_per_byte"], 4)
        row["best"] = round(res.mapping.metric("weighted_hops") / total, 4)
        t0 = time.perf_counter()
        geo = map_geometric(g, m)
        row["geom"] = round(geo.metric("weighted_hops") / total, 4)
        cands = candidate_list(g, m)
        bo = best_of(g, m, cands, metric="weighted_hops")
        t_geo = time.perf_counter() - t0
        row["geom*"] = round(bo.score / total, 4)
        for c in COLUMNS:
            row.setdefault(c, "-")
        records.append({"objects": row["objects"], "procs": row["procs"], "cores": cores, "heuristic": "geometric",
                        "variant": "fz longest", "hops_per_byte": row["geom"], "seconds": geo.info["seconds"],
                        "applicable": True})
        records.append({"objects": row["objects"], "procs": row["procs"], "cores": cores,
                        "heuristic": "geometric-best", "variant": f"{cands[bo.index].label()} of {len(cands)}",
                        "hops_per_byte": row["geom*"], "seconds": t_geo, "applicable": True})
        records.append({"objects": row["objects"], "procs": row["procs"], "cores": cores, "heuristic": "best",
                        "variant": res.best, "hops_per_byte": row["best"], "seconds": t_regular, "applicable": True})
        rows.append(row)
        print(f"  {row['objects']} -> {row['procs']}: best {res.best} ({t_regular:.2f} s)", file=sys.stderr)
    print("Hops per byte, 2-D five-point stencil -> mesh (lower is better; LB = 1.0 with one rank per router)")
    print_table(rows, ["objects", "procs", "LB", "bound", "identity"] + COLUMNS + ["best", "geom", "geom*"])
    return records


def speed(args) -> list[dict]:
    records, rows = [], []
    for oshape, pdims, cores in SPEED:
        g = TaskGraph.stencil(oshape)
        m = torus_machine(pdims, wrap=False, cores_per_node=cores)
        total = float(g.weights.sum())
        grid = proc_grid(m)
        label = f"{'x'.join(map(str, oshape))} -> {'x'.join(map(str, pdims))}" + (f" x{cores}" if cores > 1 else "")
        runs = []
        if grid.n_dims == 2:
            runs += [(h, {}) for h in ("mxovlp", "mxov+al", "exco", "coce", "affn", "step")]
        else:
            s, c = stack_variants(oshape, grid.shape)[0]
            fd = fold_variants(m)[0]
            runs += [("stack", dict(stack_dim=s, cut_dim=c, fold_dim=fd)),
                     ("fold", dict(stack_dim=s, cut_dim=c, fold_dim=fd))]
        runs += [("sfc", dict(curve="hilbert")), ("sfc", dict(curve="snake"))]
        if cores > 1:
            runs.append(("block", dict(block=block_shapes(oshape, cores)[0])))
        t, _ = median_time(lambda: analyse_grid(g), args.repeat)
        rows.append({"case": label, "heuristic": "analyse_grid", "seconds": round(t, 4), "hops/byte": ""})
        for name, opts in runs:
            def cold(name=name, opts=opts):
                clear_layout_cache()
                return map_grid(g, m, method=name, **opts)

            t, mp = median_time(cold, args.repeat)
            hpb = weighted_hops(g, m, mp.task_to_proc) / total
            rows.append({"case": label, "heuristic": name + (f" {opts}" if opts else ""), "seconds": round(t, 4),
                         "hops/byte": round(hpb, 4)})
            records.append({"case": label, "n_tasks": g.n_tasks, "heuristic": name, "options": str(opts),
                            "seconds": t, "hops_per_byte": hpb})
        clear_layout_cache()
        t0 = time.perf_counter()
        res = map_regular(g, m, pairs=False)
        t_all = time.perf_counter() - t0
        rows.append({"case": label, "heuristic": f"map_regular, all {len(res.table) - 1} candidates, no PAIRS",
                     "seconds": round(t_all, 4), "hops/byte": round(res.mapping.metric("weighted_hops") / total, 4)})
        records.append({"case": label, "n_tasks": g.n_tasks, "heuristic": "map_regular (no pairs)",
                        "options": res.best, "seconds": t_all,
                        "hops_per_byte": res.mapping.metric("weighted_hops") / total})
    print()
    print(f"Speed on 65,536 tasks (median of {args.repeat}; target: at most 1 s per heuristic except PAIRS)")
    print_table(rows, ["case", "heuristic", "seconds", "hops/byte"])
    return records


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the numbers (plus versions and machine info) to this file")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per heuristic (median), default 3")
    ap.add_argument("--quick", action="store_true", help="PAIRS with 8 n proposals instead of 64 n")
    ap.add_argument("--no-speed", action="store_true", help="skip the 65,536-task speed table")
    args = ap.parse_args(argv)
    records = quality(args)
    speed_records = [] if args.no_speed else speed(args)
    write_json(args.json, records, speed=speed_records, mpitaskmap=mpitaskmap.__version__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
