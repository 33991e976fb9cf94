"""Mapping speed on a fat tree against a torus of the same size (issue 30's speed target).

``mpitaskmap.map(graph, machine, "auto")`` (the default search: every family, refinement,
the judge's fluid replay) on a 3-D stencil of P ranks, 16 per node, on two machines built
in the same run:

* ``fattree``: P/16 nodes scattered at random over a 2-level tree twice their number
  (32 nodes per leaf, up-links tapered 2:1), :func:`~mpitaskmap.machines.fattree.presets.fattree_machine`;
* ``torus``: P/16 nodes of a Titan-like Gemini torus, half busy,
  :func:`~mpitaskmap.machines.torus.presets.titan_machine`.

For each machine the median wall time of ``--repeat`` runs, and the ratio fattree / torus
(target: at most 2 at 65,536 ranks).

Run:  python -m benchmarks.fattree_speed [--ranks 65536] [--repeat 3] [--json PATH]
"""

from __future__ import annotations

import argparse


import mpitaskmap as mt
from mpitaskmap.machines.fattree.presets import fattree_machine
from mpitaskmap.machines.torus.presets import titan_machine

from benchmarks.harness import median_time, print_table, write_json
from benchmarks.harness.shapes import stencil_dims

PPN = 16
#: Largest ratio fattree / torus the issue allows.
TARGET_RATIO = 2.0


def machines(ranks: int) -> dict:
    nodes = ranks // PPN
    leaves = max(2, 2 * nodes // 32)
    return {
        "fattree": fattree_machine(leaves=leaves, nodes_per_leaf=32, taper=2, nodes=nodes, ppn=PPN, seed=1),
        "torus": titan_machine(nodes, cores_per_node=PPN, seed=1),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    graph = mt.TaskGraph.stencil(stencil_dims(args.ranks), weight=1.0)
    rows = []
    for name, machine in machines(args.ranks).items():
        seconds, best = median_time(lambda: mt.map(graph, machine, "auto"), repeat=args.repeat)
        rows.append({"machine": name, "ranks": args.ranks, "nodes": machine.n_nodes, "median s": round(seconds, 2),
                     "winner": best.info.get("label", best.method)})
    ratio = rows[0]["median s"] / rows[1]["median s"]
    print_table(rows, ["machine", "ranks", "nodes", "median s", "winner"])
    verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
    print(f"fattree / torus = {ratio:.2f} (target <= {TARGET_RATIO:g}: {verdict}); median of {args.repeat} runs each")
    write_json(args.json, rows, benchmark="fattree_speed", ratio=ratio)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
