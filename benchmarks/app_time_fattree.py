"""Application time on fat-tree clusters under SimGrid SMPI: halo3d on scattered allocations, per mapping.

``examples/halo3d.c`` (the MiniGhost-like 3-D halo exchange of ``app_time_smpi.py``) runs
under ``smpirun`` on SimGrid's own ``FAT_TREE`` cluster (d-mod-k routes, the ones
:class:`~mpitaskmap.machines.FatTreeMachine` models link for link) for scattered allocations
of a 2-level tree (``sim:fattree``: leaves of 16 nodes, 12.5 GB/s links, leaf up-links
tapered 2:1 or 4:1; nodes drawn at random over the whole tree as on a busy cluster; ranks in
Slurm's block order), once per mapping, communication only.  Per (taper, ranks, ranks per
node, allocation seed) the table gives the model metrics of every mapping and ``comm s``,
halo3d's own maximum communication time (simulated), with its change against identity.

Mappings:

* ``identity``: Slurm's order (rank r on the r // ppn-th node of the sorted node list);
* ``node packing``: what an Open MPI user gets at best from ``MPI_Dist_graph_create_adjacent``
  with ``reorder=1`` (treematch sees inside nodes only): the task graph partitioned onto nodes
  with the network flat (every node one hop from every other:
  :class:`~mpitaskmap.machines.FlatMachine`, greedy graph mapping with refinement), nodes in
  Slurm's order;
* ``auto``: the library's default search on the fat tree (``mpitaskmap.map(..., "auto")``);
* ``scotch tleaf``: Scotch's static mapping onto a ``tleaf`` target restricted to the
  allocated processors (``benchmarks/peers/scotch.py``);
* ``kahip``: KaHIP's process mapping with the tree as hierarchy and distance strings
  (``benchmarks/peers/kahip.py``, ``pip install kahip``).

The peers are skipped with one printed reason when not installed.  Then, as in
``app_time_smpi.py``, every distinct mapping ``auto`` generated is simulated (all of them up
to 512 ranks, the best by the objective plus each metric's pick above), and the verdicts of
issue 30: ``auto`` at least 30% below identity on every 4:1 case, at or below every peer on
every case, within 2% of the fastest candidate it generated.

Run:  python benchmarks/app_time_fattree.py [--cases 512:8,512:16,4096:8,4096:16] [--tapers 2,4]
      [--seeds 1,2] [--methods ...] [--top-candidates 8] [--json PATH] [--keep DIR]
A 512-rank run takes 1-6 wall seconds here, a 4096-rank run 1-2 minutes (8-9 for a random order).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")
sys.path.insert(0, ROOT)
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(BENCH, "peers"))

import mpitaskmap  # noqa: E402
from mpitaskmap.cli._inputs import load_machine  # noqa: E402
from mpitaskmap.machines import FlatMachine  # noqa: E402
from mpitaskmap.mapping import IDENTITY  # noqa: E402
from mpitaskmap.metrics import evaluate  # noqa: E402
from mpitaskmap.sim.simgrid import platform_xml, simgrid_missing  # noqa: E402
from mpitaskmap.graphs.taskgraph import TaskGraph  # noqa: E402

import kahip  # noqa: E402  (benchmarks/peers)
import scotch  # noqa: E402
from _util import write_json  # noqa: E402
from app_time_smpi import (GRIDS, SELECTORS, WITHIN, CaseRuns, add_app_arguments, build_halo3d,  # noqa: E402
                           candidates_verdict, check_task_numbering, gap_percent, simulate_candidates)

AUTO = "auto"
NODE_PACKING = "node packing"
SCOTCH = "scotch tleaf"
KAHIP = "kahip"
METHODS = (IDENTITY, NODE_PACKING, AUTO, SCOTCH, KAHIP)
PEERS = (NODE_PACKING, SCOTCH, KAHIP)
#: Nodes below a leaf switch, and leaves of the tree, per job size (the tree holds twice the
#: nodes of the largest allocation, so allocations are scattered).
NODES_PER_LEAF = 16
LEAVES = {512: 32, 4096: 64, 64: 8, 1024: 32}
#: "at least 30% below identity on every 4:1 case".
TARGET_BELOW = 0.30
#: Host names of the platform: SimGrid's FAT_TREE cluster needs PREFIX%d names.
HOSTS = "n%d"


def spec(n: int, ppn: int, seed: int, taper: int) -> str:
    """The ``sim:fattree`` machine spec of one case."""
    return (f"sim:fattree:leaves={LEAVES[n]},nodes_per_leaf={NODES_PER_LEAF},taper={taper},levels=2,"
            f"nodes={n // ppn},ppn={ppn},seed={seed}")


def peer_missing(method: str) -> str:
    """Why a peer row cannot run ("" when it can)."""
    if method == SCOTCH and not scotch.scotch_available():
        return "scotch tleaf skipped: libscotch not found (bash benchmarks/peers/install_peers.sh)"
    if method == KAHIP and not kahip.kahip_available():
        return "kahip skipped: KaHIP not installed (pip install kahip, or bash benchmarks/peers/install_peers.sh)"
    return ""


def node_packing(graph: TaskGraph, machine) -> np.ndarray:
    """Task -> processor of node packing: the graph onto the nodes with a flat network (module notes)."""
    flat = FlatMachine(machine.node_ids, name="nodes only")
    return np.asarray(mpitaskmap.map(graph, flat, "greedy+uwh").task_to_proc)


def map_row(method: str, graph: TaskGraph, machine) -> tuple[np.ndarray, dict]:
    """Task -> processor of one row and the library's ``Mapping.info`` ({} for the others)."""
    if method == IDENTITY:
        return np.arange(graph.n_tasks), {}
    if method == NODE_PACKING:
        return node_packing(graph, machine), {}
    if method == AUTO:
        mapping = mpitaskmap.map(graph, machine, "auto")
        return np.asarray(mapping.task_to_proc), mapping.info
    if method == SCOTCH:
        t2p, _ = scotch.map_scotch_tleaf(graph.indptr, graph.indices, graph.weights, machine, repair=True)
        return np.asarray(t2p, dtype=np.int64), {}
    if method == KAHIP:
        t2p, _ = kahip.map_kahip_tree(graph.indptr, graph.indices, graph.weights, machine, repair=True)
        return np.asarray(t2p, dtype=np.int64), {}
    raise SystemExit(f"--methods: unknown {method!r}; valid: {', '.join(METHODS)}")


def run_case(n: int, ppn: int, seed: int, taper: int, args, app: str, work: str) -> tuple[list[dict], dict | None]:
    """Map and run every method of one case; return its rows and its candidate summary."""
    grid = GRIDS[n]
    mi = load_machine(spec(n, ppn, seed, taper), n)
    machine = mi.machine
    face = args.cells * args.cells * args.vars * 8
    graph = TaskGraph.stencil(grid, weight=float(face))
    check_task_numbering(graph, grid)
    case = f"t{taper}_n{n}_ppn{ppn}_seed{seed}"
    platform = os.path.join(work, f"{case}.xml")
    with open(platform, "w", encoding="utf-8") as fh:
        fh.write(platform_xml(machine, link_latency=args.latency, hosts=HOSTS, form="cluster"))
    program = [app, *map(str, grid), *[str(args.cells)] * 3, str(args.vars), str(args.steps)]
    runs = CaseRuns(n, machine, HOSTS, platform, program, work, case, args.timeout)
    rows, auto_info, auto_t2p = [], None, None
    key = {"taper": taper, "n": n, "ppn": ppn, "seed": seed}
    for method in args.methods:
        t0 = time.perf_counter()
        t2p, info = map_row(method, graph, machine)
        map_s = time.perf_counter() - t0
        if method == AUTO:
            auto_info, auto_t2p = info, t2p
        run, same_as = runs.run(t2p, method)
        rows.append({**key, "method": method, "metrics": evaluate(graph, machine, t2p, list(SELECTORS)),
                     "map_s": map_s, "comm_s": run.figure, "wall_s": None if same_as else run.wall,
                     "same_as": same_as, "error": run.error,
                     "label": info.get("label") if method == AUTO else None})
        status = run.error or f"comm {run.figure:.4g} s" + (f", same run as {same_as}" if same_as else
                                                            f", wall {run.wall:.0f} s")
        print(f"# {case} {method}: {status}", file=sys.stderr, flush=True)
    cands = None
    if auto_info is not None and (n <= args.all_candidates_up_to or args.top_candidates > 0):
        auto_row = next(r for r in rows if r["method"] == AUTO)
        top = None if n <= args.all_candidates_up_to else args.top_candidates
        cands = dict(taper=taper, ppn=ppn, seed=seed, **simulate_candidates(
            runs, graph, machine, auto_info["candidate_list"], auto_row, top=top, auto_t2p=auto_t2p))
    return rows, cands


def _case_keys(rows: list[dict]) -> list[tuple]:
    return sorted({(r["taper"], r["n"], r["ppn"], r["seed"]) for r in rows})


def _case(rows: list[dict], key: tuple) -> dict[str, dict]:
    return {r["method"]: r for r in rows if (r["taper"], r["n"], r["ppn"], r["seed"]) == key}


def print_table(rows: list[dict]) -> None:
    """The per-method table: metrics, simulated communication time and its change against identity."""
    head = (f"{'taper':>5} {'ranks':>5} {'ppn':>3} {'seed':>4}  {'method':<13} {'AvgHops':>7} {'Latency(M)':>10} "
            f"{'PredTime':>10} {'comm s':>10} {'vs identity':>11} {'map s':>6}")
    print(head)
    print("-" * len(head))
    for key in _case_keys(rows):
        case = _case(rows, key)
        base = case.get(IDENTITY, {}).get("comm_s")
        for method, r in case.items():
            m = r["metrics"]
            comm = "failed" if r["comm_s"] is None else f"{r['comm_s']:.4e}"
            change = "-" if r["comm_s"] is None or not base else f"{100 * (r['comm_s'] / base - 1):+.1f}%"
            print(f"{key[0]:>3}:1 {key[1]:>5} {key[2]:>3} {key[3]:>4}  {method:<13} {m['average_hops']:>7.3f} "
                  f"{m['latency']:>10.4g} {m['predicted_time']:>10.4g} {comm:>10} {change:>11} {r['map_s']:>6.1f}")
        print()


def print_candidates(cands: list[dict]) -> None:
    """Per case: the distinct generated candidates simulated, the fastest, auto's gap to it."""
    if not cands:
        return
    print(f"generated candidates of {AUTO!r} (both stages), one SMPI run per distinct rank order simulated "
          "(all of them up to --all-candidates-up-to ranks, else the --top-candidates best by the objective, "
          "each metric's pick and auto's own):")
    head = (f"{'taper':>5} {'ranks':>5} {'ppn':>3} {'seed':>4} {'distinct':>8} {'simulated':>9} {'fastest s':>10} "
            f"{'auto s':>10} {'auto gap':>8}  fastest candidate")
    print(head)
    print("-" * len(head))
    for c in cands:
        fastest = "-" if c["fastest_s"] is None else f"{c['fastest_s']:.4e}"
        auto = "failed" if c["auto_s"] is None else f"{c['auto_s']:.4e}"
        gap = "-" if c["auto_gap_pct"] is None else f"{c['auto_gap_pct']:+.1f}%"
        print(f"{c['taper']:>3}:1 {c['n']:>5} {c['ppn']:>3} {c['seed']:>4} {c['distinct']:>8} {c['simulated']:>9} "
              f"{fastest:>10} {auto:>10} {gap:>8}  {c['fastest'] or '-'}")
    print()


def print_verdicts(rows: list[dict], cands: list[dict]) -> None:
    """Issue 30's three targets, one line per case."""
    print(f"issue 30: auto >= {100 * TARGET_BELOW:.0f}% below identity on every 4:1 case; auto <= every peer; "
          f"auto within {100 * WITHIN:.0f}% of the fastest generated candidate")
    by_case = {(c["taper"], c["n"], c["ppn"], c["seed"]): c for c in cands}
    for key in _case_keys(rows):
        case = _case(rows, key)
        auto, base = case.get(AUTO), case.get(IDENTITY)
        if auto is None or base is None or auto["comm_s"] is None or base["comm_s"] is None:
            print(f"  {key}: identity or auto did not run")
            continue
        below = 1 - auto["comm_s"] / base["comm_s"]
        target = (("meets" if below >= TARGET_BELOW else "misses") + f" {100 * TARGET_BELOW:.0f}%") if key[0] == 4 \
            else f"no target at {key[0]}:1"
        peers = {m: r for m, r in case.items() if m in PEERS and r["comm_s"] is not None}
        beaten = [m for m, r in peers.items() if auto["comm_s"] > r["comm_s"]]
        vs_peers = "n/a (no peer ran)" if not peers else "yes" if not beaten else "no: " + ", ".join(
            f"{m} {gap_percent(auto['comm_s'], peers[m]['comm_s']):+.1f}%" for m in beaten)
        print(f"  taper {key[0]}:1 ranks {key[1]} ppn {key[2]} seed {key[3]}: auto {100 * below:.1f}% below identity "
              f"({target}); auto <= every peer: {vs_peers}; within 2% of the fastest generated: "
              f"{candidates_verdict(by_case.get(key))}")


def main(argv=None) -> int:
    """Run the cases and print the tables; 1 when SimGrid is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="512:8,512:16,4096:8,4096:16", help="RANKS:PPN,... (ranks in %s)" % sorted(LEAVES))
    ap.add_argument("--tapers", default="2,4", help="leaf up-link tapers (default 2,4: 2:1 and 4:1)")
    ap.add_argument("--seeds", default="1,2", help="allocation seeds (default 1,2)")
    ap.add_argument("--methods", default=",".join(METHODS), help=f"comma list of {', '.join(METHODS)}")
    ap.add_argument("--all-candidates-up-to", type=int, default=512, metavar="RANKS",
                    help="simulate every distinct generated candidate up to this job size (default 512)")
    ap.add_argument("--top-candidates", type=int, default=4, metavar="K",
                    help="above it: the K best by the objective, each metric's pick and auto's own (default 4)")
    add_app_arguments(ap)
    ap.add_argument("--report", metavar="JSON,JSON", help="print the tables of earlier runs' --json files (merged) "
                                                           "and run nothing")
    args = ap.parse_args(argv)
    if args.report:
        rows, cands = [], []
        for path in args.report.split(","):
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            rows += data["records"]
            cands += data.get("candidates", [])
        print_table(rows)
        print_candidates(cands)
        print_verdicts(rows, cands)
        return 0
    missing = simgrid_missing()
    if missing:
        print(f"app_time_fattree: {missing}", file=sys.stderr)
        return 1
    args.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for method in list(args.methods):
        reason = peer_missing(method)
        if reason:
            print(reason)
            args.methods.remove(method)
    cases = [tuple(int(v) for v in c.split(":")) for c in args.cases.split(",")]
    tapers = [int(t) for t in args.tapers.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    work, app = build_halo3d(args, "app_time_fattree_")
    print(f"SMPI, smpi/simulate-computation:no; SimGrid FAT_TREE cluster, 2 levels, {NODES_PER_LEAF} nodes per leaf, "
          "12.5 GB/s links, d-mod-k")
    rows: list[dict] = []
    cands: list[dict] = []
    for taper in tapers:
        for n, ppn in cases:
            for seed in seeds:
                case_rows, case_cands = run_case(n, ppn, seed, taper, args, app, work)
                rows += case_rows
                if case_cands is not None:
                    cands.append(case_cands)
                write_json(args.json, rows, candidates=cands)
    print_table(rows)
    print_candidates(cands)
    print_verdicts(rows, cands)
    return 0


if __name__ == "__main__":
    sys.exit(main())
