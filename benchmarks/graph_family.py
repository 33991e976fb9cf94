"""The graph family against Scotch on the issue-13 inputs, and UWH's time on a dense SpMV graph.

Inputs (all seeded, 4096 tasks, one task per processor):

* ``stencil``: the 16^3 7-point stencil (unit volumes, not periodic);
* ``kNN``: 4096 points uniform in the unit cube (seed 7), each joined to its k = 6 nearest
  neighbours, symmetrised; integer weights 1..10 per undirected edge (seed 8), the same
  weight both ways;

each on two machines:

* ``full``: the whole 16^3 torus (one processor per node, ranks in router order);
* ``sparse``: 4096 distinct random nodes of a 24^3 torus (seed 9, one processor per node,
  ranks in ascending router id).

Metric: average hops per unit weight = weighted hops / total weight (lower is better).

Rows per input:

* ``Scotch best``: the best of Scotch's strategies (default, quality, speed, balance,
  safety; seed 0, one thread, ``repair=True``: tasks Scotch puts beyond a node's capacity
  go to the nearest free node), when libscotch is installed
  (``bash benchmarks/peers/install_peers.sh``);
* ``greedy+uwh``: the family's greedy growth + UWH (the issue's "today");
* ``bisection``: the family's new method, dual recursive bisection (multilevel, no
  optional dependency) + UWH (:func:`~mpitaskmap.mappers.graph.bisection.map_bisection`);
* ``bisection metis``: the same with a METIS start as one more try per job (pymetis);
* ``family best``: the best of the graph family's search candidates
  (``families.graph.candidates``) by weighted hops (seconds = the whole search).

Then the scale-free Barabasi-Albert input of ``graph_mappers.py`` (2^17 vertices, m = 4,
4096 parts) on ``titan_machine(256, 16)``: Scotch, greedy+uwh, bisection.

Then UWH on the 2-D Laplacian SpMV input of ``graph_mappers.py`` (512x512, random symmetric
permutation, 4096 row blocks, ``titan_machine(256, 16)``, ~250 neighbours per task), from
the same greedy start: ``max_sources=0`` (every neighbour's node a BFS source and every
swap partner tried: the old candidate set, with today's exact speed-ups) and the default
bound; then the bisection method on the same input.

Seconds are wall time of one run on a 2-core machine shared with other work (the load
average is printed).

Run:  python -m benchmarks.graph_family [--no-scotch] [--no-spmv] [--no-ba] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from benchmarks import _inputs13  # noqa: E402
from benchmarks.harness import median_time, print_table, write_json  # noqa: E402
from benchmarks.harness.peers import scotch_best  # noqa: E402

from mpitaskmap.search.families import graph as graph_family  # noqa: E402
from mpitaskmap.mappers.graph.bisection import map_bisection  # noqa: E402
from mpitaskmap.mappers.graph.greedy import map_greedy  # noqa: E402
from mpitaskmap.mappers.graph.umpa import refine_wh  # noqa: E402
from mpitaskmap.search.problem import Problem  # noqa: E402
from mpitaskmap.search.serial import best_of  # noqa: E402

N = 4096


def inputs(seed: int = 7):
    """Yield (name, graph, machine) for the four issue-13 inputs (``_inputs13``, one definition)."""
    for name, graph, machine in _inputs13.inputs(seed):
        yield name.replace("knn", "kNN"), graph, machine


#: Average hops per unit weight: the one metric of the issue-13 benchmarks.
per_weight = _inputs13.avg_hops


def _has_pymetis() -> bool:
    try:
        import pymetis  # noqa: F401
    except ImportError:
        return False
    return True


def family_rows(name, graph, machine, with_scotch: bool, family: bool = True) -> list[dict]:
    rows = []
    ref = scotch_best(graph, machine, per_weight) if with_scotch else None
    if ref is not None:
        rows.append(dict(input=name, method="Scotch best", value=ref[0], seconds=ref[2], note=ref[1]))
    s, m = median_time(lambda: map_greedy(graph, machine, refine=True), 1)
    rows.append(dict(input=name, method="greedy+uwh", value=per_weight(graph, machine, m.task_to_proc), seconds=s,
                     note=""))
    if "bisection" in graph_family.METHODS:
        problem = Problem(graph, machine)
        s, m = median_time(lambda: graph_family.apply(graph_family.candidate("bisection"), problem), 1)
        rows.append(dict(input=name, method="bisection", value=per_weight(graph, machine, m.task_to_proc),
                         seconds=s, note=""))
    if _has_pymetis():
        s, m = median_time(lambda: map_bisection(graph, machine, partitioner="metis"), 1)
        rows.append(dict(input=name, method="bisection metis", value=per_weight(graph, machine, m.task_to_proc),
                         seconds=s, note=""))
    if family:
        problem = Problem(graph, machine)
        cands = graph_family.candidates(problem)
        s, res = median_time(lambda: best_of(problem, None, cands, metric="weighted_hops"), 1)
        rows.append(dict(input=name, method="family best", value=per_weight(graph, machine,
                                                                            res.mapping.task_to_proc),
                         seconds=s, note=res.mapping.info.get("candidate", "")))
    best_ref = rows[0]["value"] if ref is not None else None
    for r in rows:
        r["vs Scotch"] = "-" if best_ref is None else f"{r['value'] / best_ref:.3f}"
    return rows


def spmv_rows() -> list[dict]:
    from graph_mappers import laplacian_input, sparse_titan

    inp = laplacian_input((512, 512), N, sparse_titan(N // 16))
    g, m = inp.graph, inp.machine
    start = map_greedy(g, m)
    deg = float(np.diff(g.indptr).mean())
    rows = []
    for label, opts in (("UWH unbounded (max_sources=0)", dict(max_sources=0)), ("UWH bounded (default)", {})):
        s, out = median_time(lambda: refine_wh(start, **opts), 1)
        rows.append(dict(input=f"Laplacian 2D SpMV (avg degree {deg:.0f})", method=label,
                         value=per_weight(g, m, out.task_to_proc), seconds=s,
                         note=f"{out.info['refine_passes']} passes, {out.info['refine_moves']} moves"))
    rows.append(dict(input=rows[0]["input"], method="greedy start", value=per_weight(g, m, start.task_to_proc),
                     seconds=float("nan"), note=""))
    s, out = median_time(lambda: map_bisection(g, m), 1)
    rows.append(dict(input=rows[0]["input"], method="bisection", value=per_weight(g, m, out.task_to_proc),
                     seconds=s, note=f"bisection {out.info['bisection_seconds']:.2f} s + UWH"))
    return rows


def ba_rows(with_scotch: bool) -> list[dict]:
    from graph_mappers import ba_input, sparse_titan

    inp = ba_input(17, 4, N, sparse_titan(N // 16))
    g, m = inp.graph, inp.machine
    name = f"scale-free BA 2^17 -> {N} parts (Titan 256x16)"
    return family_rows(name, g, m, with_scotch, family=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-scotch", action="store_true")
    ap.add_argument("--no-spmv", action="store_true")
    ap.add_argument("--no-ba", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    print(f"load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = []
    for name, g, m in inputs():
        rows += family_rows(name, g, m, not args.no_scotch)
    ba = [] if args.no_ba else ba_rows(not args.no_scotch)
    table = [dict(r, value=f"{r['value']:.3f}", seconds=f"{r['seconds']:.2f}") for r in rows + ba]
    print("average hops per unit weight (weighted hops / total weight), lower is better")
    print_table(table, ["input", "method", "value", "vs Scotch", "seconds", "note"])
    spmv = [] if args.no_spmv else spmv_rows()
    if spmv:
        print()
        print_table([dict(r, value=f"{r['value']:.3f}", seconds=f"{r['seconds']:.2f}") for r in spmv],
                    ["input", "method", "value", "seconds", "note"])
    if args.json:
        write_json(args.json, rows + ba + spmv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
