"""Per rotation pair: our MJ candidate vs Zoltan2's MJ task mapper (issue 13, part 1).

Inputs (``benchmarks/_inputs13.py``): the 16^3 stencil and the 4096-task kNN graph on the
sparse allocation (4096 random nodes of a 24^3 torus), and optionally on the full 16^3
torus.  Zoltan2 runs once under ``mpirun -np 49`` with ``--each-rank``: rank ``r`` keeps the
candidate of its rotation ``r`` (no reduction), with the torus shift on (``--extent``).  Our
candidate for the same pair is ``map_geometric(ordering="fz", task_perm=..., proc_perm=...)``
(torus shift on).  Metric: average hops per unit weight (torus hops, lower is better).

Caveat, printed with the table: Trilinos 13.2 never applies the processor permutation
(see ``benchmarks/peers/zoltan2.py::rotation_of_rank``), so its "P(a,b,c)" candidates all
cycle the processor dimensions in natural order; ours apply the permutation.

Prints one table per input and the count of pairs where ours <= Zoltan2's (the issue's
target: at least 45 of 49 on the sparse stencil), as labelled and at the rotation Zoltan2
really computes (column "ours(P eff)": our candidate with Zoltan2's effective processor
rotation, longest or P(0,1,2)).

Needs the optional peer: ``bash benchmarks/peers/install_peers.sh``.

Run:  python -m benchmarks.mj_rotations [--full] [--cache DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks import _inputs13
from benchmarks.peers import zoltan2
from benchmarks.harness import print_table, write_json

from mpitaskmap import map_geometric

N_RANKS = 49  # 3!*3! + 3! + 3! + 1: every rotation pair of 3-D tasks on a 3-D machine


def _label(perm) -> str:
    return "*" if perm is None else "(" + ",".join(map(str, perm)) + ")"


def zoltan2_candidates(graph, machine, cache: Path | None) -> list[np.ndarray]:
    """Zoltan2's 49 per-rank candidates (task_to_proc each), cached in ``cache`` if given."""
    if cache is not None and cache.exists():
        with np.load(cache) as z:
            return [z[f"r{r}"] for r in range(N_RANKS)]
    pc = machine.router_coords.astype(np.float64)
    res, _ = zoltan2.map_zoltan2(
        pc, graph.coords, graph.indptr, graph.indices, graph.weights,
        machine_extent=tuple(int(v) for v in machine.dims), nranks=N_RANKS, each_rank=True,
    )
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(cache, **{f"r{r}": t for r, t in enumerate(res)})
    return res


def compare(label: str, graph, machine, cache_dir: Path | None) -> dict:
    cache = None if cache_dir is None else cache_dir / (label.replace(", ", "_") + ".npz")
    z = zoltan2_candidates(graph, machine, cache)
    rows, n_le, n_le_eff, cache_eff = [], 0, 0, {}
    for r in range(N_RANKS):
        tp, pp = zoltan2.rotation_of_rank(r, 3, 3)
        ours = map_geometric(graph, machine, ordering="fz", task_perm=tp, proc_perm=pp)
        a = _inputs13.avg_hops(graph, machine, ours.task_to_proc)
        # the rotation Zoltan2 13.2 really computes: its processor permutation is ignored
        pp_eff = None if pp is None else (0, 1, 2)
        if (tp, pp_eff) not in cache_eff:
            eff = map_geometric(graph, machine, ordering="fz", task_perm=tp, proc_perm=pp_eff)
            cache_eff[(tp, pp_eff)] = _inputs13.avg_hops(graph, machine, eff.task_to_proc)
        a_eff = cache_eff[(tp, pp_eff)]
        b = _inputs13.avg_hops(graph, machine, z[r])
        n_le += a <= b + 1e-12
        n_le_eff += a_eff <= b + 1e-12
        rows.append({"rank": r, "task": "T" + _label(tp), "proc": "P" + _label(pp),
                     "ours": round(a, 4), "zoltan2": round(b, 4), "ours/z2": round(a / b, 4),
                     "ours<=z2": "yes" if a <= b + 1e-12 else "NO",
                     "ours(P eff)": round(a_eff, 4), "eff<=z2": "yes" if a_eff <= b + 1e-12 else "NO"})
    best_ours = min(row["ours"] for row in rows)
    best_z = min(row["zoltan2"] for row in rows)
    return {"input": label, "rows": rows, "ours_le_zoltan2": int(n_le),
            "ours_le_zoltan2_effective": int(n_le_eff), "best_ours": best_ours, "best_zoltan2": best_z}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also the full 16^3 torus inputs")
    ap.add_argument("--knn", action="store_true", help="also the kNN graph (sparse; full with --full)")
    ap.add_argument("--cache", type=Path, default=None, help="directory caching Zoltan2's candidates")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not zoltan2.zoltan2_available():
        print("Zoltan2 driver missing: bash benchmarks/peers/install_peers.sh")
        return 0
    machines = ["sparse"] + (["full"] if args.full else [])
    graphs = ["stencil"] + (["knn"] if args.knn else [])
    results = []
    for g in graphs:
        for m in machines:
            label = f"{g}, {m}"
            res = compare(label, _inputs13.GRAPHS[g](), _inputs13.MACHINES[m](), args.cache)
            results.append(res)
            print(f"\n## {label}: avg hops per unit weight per rotation pair (FZ, torus shift on)")
            print_table(res["rows"], list(res["rows"][0]))
            print(f"{label}: ours <= Zoltan2 for {res['ours_le_zoltan2']} of {N_RANKS} rotation pairs; "
                  f"best of 49: ours {res['best_ours']:.4f}, Zoltan2 {res['best_zoltan2']:.4f}")
            print(f"{label}: at the rotation Zoltan2 13.2 really computes (processor side longest or "
                  f"P(0,1,2)), ours <= Zoltan2 for {res['ours_le_zoltan2_effective']} of {N_RANKS} pairs")
            if (g, m) == ("stencil", "sparse"):
                eff = res["ours_le_zoltan2_effective"]
                print(f"target (issue 13): ours <= Zoltan2 for the same rotation pair on the sparse stencil for at "
                      f"least 45 of {N_RANKS}: {eff} at the pair each Zoltan2 candidate really computes: "
                      f"{'met' if eff >= 45 else 'NOT met'} ({res['ours_le_zoltan2']} of {N_RANKS} against Zoltan2's "
                      "labels, which name processor rotations it does not apply)")
    print("\nNote: Trilinos 13.2 ignores the processor permutation (its P(a,b,c) = natural cycle "
          "order 0,1,2); ours applies it.")
    if args.json:
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
