"""Application time on dragonflies under SimGrid SMPI: halo3d on Slingshot and Aries allocations, per mapping.

``examples/halo3d.c`` (the MiniGhost-like 3-D halo exchange of ``app_time_smpi.py``) runs under
``smpirun`` on the explicit SimGrid platform :func:`mpitaskmap.sim.simgrid.platform_xml` writes
for a :class:`~mpitaskmap.machines.DragonflyMachine` (every link of the machine, routes link for
link its minimal routes), once per mapping, communication only.  Machines: the ``sim:frontier``
preset (HPE Slingshot: 74 groups of 32 all-to-all switches, 4 global links per group pair, 25
GB/s) and the ``sim:aries`` preset (a Cray XC shaped as Cori: groups of 6 x 16 routers, green
row and black column links, blue global links).  Allocations as on a busy machine: nodes drawn
at random over the whole machine (``scattered``) or over ``--groups`` groups drawn at random
(``confined``); ranks in the scheduler's block order.  Per (machine, allocation, ranks, ranks
per node, seed) the table gives the model metrics of every mapping and ``comm s``, halo3d's own
maximum communication time (simulated), with its change against identity.

Mappings:

* ``identity``: the scheduler's order (rank r on the r // ppn-th node of the sorted node list);
* ``random``: a random rank order (the dragonfly literature's baseline: random placement
  spreads a job's traffic over many global links), drawn from the case's seed;
* ``auto``: the library's default search on the dragonfly (``mpitaskmap.map(..., "auto")``);
* ``zoltan2 dragonfly``: Zoltan2's MJ task mapper on the processor coordinates its
  ``MachineDragonflyRCA`` gives by default, (group, row, column) of every rank's router
  (``benchmarks/peers/zoltan2_dragonfly.py``: why not its optional transform);
* ``scotch tleaf``: Scotch's static mapping onto the allocation's group / switch / node
  hierarchy as a ``tleaf`` (``benchmarks/peers/scotch.py``), level costs :func:`level_costs`;
* ``kahip``: KaHIP's process mapping along the same hierarchy (``benchmarks/peers/kahip.py``).

The peers are skipped with one printed reason when not installed.  The SMPI runs use the
machine's minimal routes (SimGrid routes statically); the machines here route minimally, so the
library's objective and the replay see the same routes.  Per case the objective's ranking of the
methods is compared with SMPI's (Spearman's rho of predicted time and simulated time over the
methods), and the verdicts of issue 31 are printed: ``auto`` at or below every other method on
every case, at least 20% below identity on the scattered cases.

Run:  python benchmarks/app_time_dragonfly.py [--machines frontier,aries] [--allocations scattered,confined]
      [--cases 512:8,1024:8,2048:8] [--seeds 1,2] [--groups 4] [--methods ...] [--json PATH] [--keep DIR]
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
from mpitaskmap.graphs.taskgraph import TaskGraph  # noqa: E402
from mpitaskmap.mapping import IDENTITY  # noqa: E402
from mpitaskmap.metrics import evaluate  # noqa: E402
from mpitaskmap.sim.simgrid import platform_xml, simgrid_missing  # noqa: E402

import kahip  # noqa: E402  (benchmarks/peers)
import scotch  # noqa: E402
import zoltan2  # noqa: E402
from _util import write_json  # noqa: E402
from app_time_smpi import GRIDS, SELECTORS, CaseRuns, add_app_arguments, build_halo3d, check_task_numbering  # noqa: E402
from zoltan2_dragonfly import map_zoltan2_dragonfly  # noqa: E402

AUTO = "auto"
RANDOM = "random"
ZOLTAN2 = "zoltan2 dragonfly"
SCOTCH = "scotch tleaf"
KAHIP = "kahip"
METHODS = (IDENTITY, RANDOM, AUTO, ZOLTAN2, SCOTCH, KAHIP)
MACHINES = ("frontier", "aries")
SCATTERED, CONFINED = "scattered", "confined"
#: "at least 20% below identity on the scattered cases".
TARGET_BELOW = 0.20
#: Cost of crossing each level of the allocation's hierarchy (``node_hierarchy().level_names``) for the
#: hierarchy peers, additive from the lowest: a pair under one switch costs 1 (its node links), one
#: more for the local hop to another switch of the row or group (green, then black on Aries: 3 for two
#: routers of one group in different rows and columns), 2 more between groups (the global link and a
#: local hop beyond it) -- the hops of the minimal routes.
LEVEL_COST = {"switch": 1.0, "row": 1.0, "group": 1.0, "machine": 2.0}


def level_costs(machine) -> tuple[float, ...]:
    """The hierarchy peers' cost of every level of ``machine``'s hierarchy, lowest first (:data:`LEVEL_COST`)."""
    return tuple(LEVEL_COST[name] for name in machine.node_hierarchy().level_names)
HOSTS = "n%d"


def spec(machine: str, allocation: str, n: int, ppn: int, seed: int, groups: int) -> str:
    """The ``sim:`` machine spec of one case (``confined``: the allocation's nodes in ``groups`` groups)."""
    base = f"sim:{machine}:nodes={n // ppn},ppn={ppn},seed={seed}"
    return base + (f",groups={groups}" if allocation == CONFINED else "")


def peer_missing(method: str) -> str:
    """Why a peer row cannot run ("" when it can)."""
    if method == ZOLTAN2 and not zoltan2.zoltan2_available():
        return "zoltan2 dragonfly skipped: the Zoltan2 driver is not built (bash benchmarks/peers/install_peers.sh)"
    if method == SCOTCH and not scotch.scotch_available():
        return "scotch tleaf skipped: libscotch not found (bash benchmarks/peers/install_peers.sh)"
    if method == KAHIP and not kahip.kahip_available():
        return "kahip skipped: KaHIP not installed (pip install kahip, or bash benchmarks/peers/install_peers.sh)"
    return ""


def random_order(n: int, seed: int) -> np.ndarray:
    """Task -> processor of the ``random`` row: a permutation drawn from ``seed``."""
    return np.random.default_rng(seed).permutation(n).astype(np.int64)


def map_row(method: str, graph: TaskGraph, machine, seed: int) -> tuple[np.ndarray, dict]:
    """Task -> processor of one row and the library's ``Mapping.info`` ({} for the others)."""
    if method == IDENTITY:
        return np.arange(graph.n_tasks), {}
    if method == RANDOM:
        return random_order(graph.n_tasks, seed), {}
    if method == AUTO:
        mapping = mpitaskmap.map(graph, machine, "auto")
        return np.asarray(mapping.task_to_proc), mapping.info
    if method == ZOLTAN2:
        t2p, _ = map_zoltan2_dragonfly(graph.coords, graph.indptr, graph.indices, graph.weights, machine)
        return np.asarray(t2p, dtype=np.int64), {}
    if method == SCOTCH:
        t2p, _ = scotch.map_scotch_tleaf(graph.indptr, graph.indices, graph.weights, machine, costs=level_costs(machine),
                                         repair=True)
        return np.asarray(t2p, dtype=np.int64), {}
    if method == KAHIP:
        t2p, _ = kahip.map_kahip_tree(graph.indptr, graph.indices, graph.weights, machine, costs=level_costs(machine),
                                      repair=True)
        return np.asarray(t2p, dtype=np.int64), {}
    raise SystemExit(f"--methods: unknown {method!r}; valid: {', '.join(METHODS)}")


def spearman(x, y) -> float | None:
    """Spearman's rho of two samples (average ranks for ties); None below 3 values or when one is constant."""
    from scipy.stats import spearmanr

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(spearmanr(x, y)[0])


def run_case(key: dict, args, app: str, work: str) -> list[dict]:
    """Map and run every method of one case; return its rows."""
    n, ppn, seed = key["n"], key["ppn"], key["seed"]
    grid = GRIDS[n]
    machine = load_machine(spec(key["machine"], key["allocation"], n, ppn, seed, args.groups), n).machine
    face = args.cells * args.cells * args.vars * 8
    graph = TaskGraph.stencil(grid, weight=float(face))
    check_task_numbering(graph, grid)
    case = f"{key['machine']}_{key['allocation']}_n{n}_ppn{ppn}_seed{seed}"
    platform = os.path.join(work, f"{case}.xml")
    with open(platform, "w", encoding="utf-8") as fh:
        fh.write(platform_xml(machine, link_latency=args.latency, hosts=HOSTS))
    program = [app, *map(str, grid), *[str(args.cells)] * 3, str(args.vars), str(args.steps)]
    runs = CaseRuns(n, machine, HOSTS, platform, program, work, case, args.timeout)
    rows = []
    for method in args.methods:
        t0 = time.perf_counter()
        t2p, info = map_row(method, graph, machine, seed)
        map_s = time.perf_counter() - t0
        run, same_as = runs.run(t2p, method)
        rows.append({**key, "method": method, "metrics": evaluate(graph, machine, t2p, list(SELECTORS)),
                     "map_s": map_s, "comm_s": run.figure, "wall_s": None if same_as else run.wall,
                     "same_as": same_as, "error": run.error,
                     "label": info.get("candidate") if method == AUTO else None})
        status = run.error or f"comm {run.figure:.4g} s" + (f", same run as {same_as}" if same_as else
                                                            f", wall {run.wall:.0f} s")
        print(f"# {case} {method}: {status}", file=sys.stderr, flush=True)
    return rows


CASE_KEYS = ("machine", "allocation", "n", "ppn", "seed")


def _case_keys(rows: list[dict]) -> list[tuple]:
    order = {m: i for i, m in enumerate(MACHINES)}
    keys = {tuple(r[k] for k in CASE_KEYS) for r in rows}
    return sorted(keys, key=lambda k: (order.get(k[0], len(order)), k[0], k[1] != SCATTERED, k[2], k[3], k[4]))


def _case(rows: list[dict], key: tuple) -> dict[str, dict]:
    return {r["method"]: r for r in rows if tuple(r[k] for k in CASE_KEYS) == key}


def case_spearman(case: dict[str, dict]) -> float | None:
    """Spearman's rho of predicted time and simulated time over the methods of one case that ran."""
    ran = [r for r in case.values() if r["comm_s"] is not None]
    return spearman([r["metrics"]["predicted_time"] for r in ran], [r["comm_s"] for r in ran])


def print_table(rows: list[dict]) -> None:
    """The per-method table: metrics, simulated communication time and its change against identity."""
    head = (f"{'machine':<8} {'alloc':<9} {'ranks':>5} {'ppn':>3} {'seed':>4}  {'method':<17} {'AvgHops':>7} "
            f"{'Latency(M)':>10} {'PredTime':>10} {'comm s':>10} {'vs identity':>11} {'map s':>6}")
    print(head)
    print("-" * len(head))
    for key in _case_keys(rows):
        case = _case(rows, key)
        base = case.get(IDENTITY, {}).get("comm_s")
        for method, r in case.items():
            m = r["metrics"]
            comm = "failed" if r["comm_s"] is None else f"{r['comm_s']:.4e}"
            change = "-" if r["comm_s"] is None or not base else f"{100 * (r['comm_s'] / base - 1):+.1f}%"
            print(f"{key[0]:<8} {key[1]:<9} {key[2]:>5} {key[3]:>3} {key[4]:>4}  {method:<17} "
                  f"{m['average_hops']:>7.3f} {m['latency']:>10.4g} {m['predicted_time']:>10.4g} {comm:>10} "
                  f"{change:>11} {r['map_s']:>6.1f}")
        rho = case_spearman(case)
        print(f"{'':<8} {'':<9} {'':>5} {'':>3} {'':>4}  Spearman(predicted time, comm s) over the methods: "
              + ("n/a" if rho is None else f"{rho:+.2f}"))
        print()


def print_verdicts(rows: list[dict]) -> None:
    """Issue 31's targets, one line per case."""
    print(f"issue 31: auto <= every other method on every case; auto >= {100 * TARGET_BELOW:.0f}% below identity on "
          "the scattered cases; Spearman of the objective's ranking with SMPI's")
    for key in _case_keys(rows):
        case = _case(rows, key)
        auto, base = case.get(AUTO), case.get(IDENTITY)
        name = f"{key[0]} {key[1]} ranks {key[2]} ppn {key[3]} seed {key[4]}"
        if auto is None or base is None or auto["comm_s"] is None or base["comm_s"] is None:
            print(f"  {name}: identity or auto did not run")
            continue
        below = 1 - auto["comm_s"] / base["comm_s"]
        target = (("meets" if below >= TARGET_BELOW else "misses") + f" {100 * TARGET_BELOW:.0f}%"
                  if key[1] == SCATTERED else "no target when confined")
        others = {m: r for m, r in case.items() if m != AUTO and r["comm_s"] is not None}
        beaten = [m for m, r in others.items() if auto["comm_s"] > r["comm_s"]]
        verdict = "yes" if not beaten else "no: " + ", ".join(
            f"{m} {100 * (auto['comm_s'] / others[m]['comm_s'] - 1):+.1f}%" for m in beaten)
        rho = case_spearman(case)
        print(f"  {name}: auto {100 * below:.1f}% below identity ({target}); auto <= every other method: {verdict}; "
              f"Spearman {'n/a' if rho is None else f'{rho:+.2f}'}")


def main(argv=None) -> int:
    """Run the cases and print the tables; 1 when SimGrid is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--machines", default=",".join(MACHINES), help="dragonfly presets (default frontier,aries)")
    ap.add_argument("--allocations", default=f"{SCATTERED},{CONFINED}",
                    help="scattered (over the whole machine), confined (over --groups groups)")
    ap.add_argument("--groups", type=int, default=4, help="groups of a confined allocation (default 4)")
    ap.add_argument("--cases", default="512:8,1024:8,2048:8", help="RANKS:PPN,... (ranks in %s; at 4,096 a random order runs over 15 minutes here)" % sorted(GRIDS))
    ap.add_argument("--seeds", default="1,2", help="allocation seeds (default 1,2)")
    ap.add_argument("--methods", default=",".join(METHODS), help=f"comma list of {', '.join(METHODS)}")
    add_app_arguments(ap)
    ap.add_argument("--report", metavar="JSON,JSON", help="print the tables of earlier runs' --json files (merged) "
                                                           "and run nothing")
    args = ap.parse_args(argv)
    if args.report:
        rows = []
        for path in args.report.split(","):
            with open(path, encoding="utf-8") as fh:
                rows += json.load(fh)["records"]
        print_table(rows)
        print_verdicts(rows)
        return 0
    missing = simgrid_missing()
    if missing:
        print(f"app_time_dragonfly: {missing}", file=sys.stderr)
        return 1
    args.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for method in list(args.methods):
        if method not in METHODS:
            raise SystemExit(f"--methods: unknown {method!r}; valid: {', '.join(METHODS)}")
        reason = peer_missing(method)
        if reason:
            print(reason)
            args.methods.remove(method)
    cases = [tuple(int(v) for v in c.split(":")) for c in args.cases.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    work, app = build_halo3d(args, "app_time_dragonfly_")
    print("SMPI, smpi/simulate-computation:no; explicit SimGrid platform of the dragonfly, minimal routes")
    rows: list[dict] = []
    for machine in args.machines.split(","):
        for allocation in args.allocations.split(","):
            for n, ppn in cases:
                for seed in seeds:
                    key = dict(machine=machine, allocation=allocation, n=n, ppn=ppn, seed=seed)
                    rows += run_case(key, args, app, work)
                    write_json(args.json, rows)
    print_table(rows)
    print_verdicts(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
