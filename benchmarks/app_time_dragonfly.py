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

Run:  python -m benchmarks.app_time_dragonfly [--machines frontier,aries] [--allocations scattered,confined]
      [--cases 512:8,1024:8,2048:8] [--seeds 1,2] [--groups 4] [--methods ...] [--json PATH] [--keep DIR]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import mpitaskmap
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.mapping import IDENTITY
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks.harness.cases import group_by, run_cases
from benchmarks.harness.output import read_json
from benchmarks.harness.platforms import CONFINED, HOSTS, SCATTERED
from benchmarks.harness.platforms import dragonfly_spec as spec
from benchmarks.harness.smpi import (GRIDS, add_app_arguments, app_case, build_halo3d, method_columns, parse_cases,
                                     parse_ints, run_methods)
from benchmarks.harness.tables import Column, print_columns
from benchmarks.peers import kahip, scotch, zoltan2
from benchmarks.peers.zoltan2_dragonfly import map_zoltan2_dragonfly

AUTO = "auto"
RANDOM = "random"
ZOLTAN2 = "zoltan2 dragonfly"
SCOTCH = "scotch tleaf"
KAHIP = "kahip"
METHODS = (IDENTITY, RANDOM, AUTO, ZOLTAN2, SCOTCH, KAHIP)
MACHINES = ("frontier", "aries")
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
    machine = machine_from_spec(spec(key["machine"], key["allocation"], n, ppn, seed, args.groups), n).machine
    case = app_case(f"{key['machine']}_{key['allocation']}_n{n}_ppn{ppn}_seed{seed}", key, GRIDS[n], machine, HOSTS,
                    args, app, work)
    return run_methods(case, args.methods, lambda method, c: map_row(method, c.graph, c.machine, seed),
                       extra=lambda method, info: {"label": info.get("candidate") if method == AUTO else None})


CASE_KEYS = ("machine", "allocation", "n", "ppn", "seed")
#: The case columns of the table.
CASE_COLUMNS = [Column("machine", 8, lambda r: r["machine"], "<"), Column("alloc", 9, lambda r: r["allocation"], "<"),
                Column("ranks", 5, lambda r: r["n"]), Column("ppn", 3, lambda r: r["ppn"]),
                Column("seed", 4, lambda r: r["seed"])]
#: The per-method table (rows carry ``base``, the case's identity time).
COLUMNS = CASE_COLUMNS + method_columns(17, ('AvgHops', 'Latency(M)', 'PredTime', 'comm s', 'vs identity', 'map s'))


def _case_order(key: tuple) -> tuple:
    """Cases in the order of :data:`MACHINES`, scattered before confined, then by size, ppn and seed."""
    order = {m: i for i, m in enumerate(MACHINES)}
    return (order.get(key[0], len(order)), key[0], key[1] != SCATTERED, key[2], key[3], key[4])


def case_spearman(case: dict[str, dict]) -> float | None:
    """Spearman's rho of predicted time and simulated time over the methods of one case that ran."""
    ran = [r for r in case.values() if r["comm_s"] is not None]
    return spearman([r["metrics"]["predicted_time"] for r in ran], [r["comm_s"] for r in ran])


def print_table(rows: list[dict]) -> None:
    """The per-method table: metrics, simulated communication time and its change against identity."""
    groups = []
    for _, case in group_by(rows, CASE_KEYS, _case_order):
        base = case.get(IDENTITY, {}).get("comm_s")
        groups.append([dict(r, base=base) for r in case.values()])

    def spearman_line(group: list[dict]) -> None:
        rho = case_spearman({r["method"]: r for r in group})
        print(f"{'':<8} {'':<9} {'':>5} {'':>3} {'':>4}  Spearman(predicted time, comm s) over the methods: "
              + ("n/a" if rho is None else f"{rho:+.2f}"))

    print_columns(groups, COLUMNS, after_group=spearman_line, row_text=lambda r: None if r["metrics"] is not None else
                  f"{r['machine']:<8} {r['allocation']:<9} {r['n']:>5} {r['ppn']:>3} {r['seed']:>4}  "
                  f"{r['method']:<17} {r['error']}")


def print_verdicts(rows: list[dict]) -> None:
    """Issue 31's targets, one line per case."""
    print(f"issue 31: auto <= every other method on every case; auto >= {100 * TARGET_BELOW:.0f}% below identity on "
          "the scattered cases; Spearman of the objective's ranking with SMPI's")
    for key, case in group_by(rows, CASE_KEYS, _case_order):
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
        (rows,) = read_json(args.report.split(","))
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
    work, app = build_halo3d(args, "app_time_dragonfly_")
    print("SMPI, smpi/simulate-computation:no; explicit SimGrid platform of the dragonfly, minimal routes")
    cases = [dict(machine=machine, allocation=allocation, n=n, ppn=ppn, seed=seed)
             for machine in args.machines.split(",") for allocation in args.allocations.split(",")
             for n, ppn in parse_cases(args.cases) for seed in parse_ints(args.seeds)]
    rows, _ = run_cases(cases, lambda key: (run_case(key, args, app, work), None), args.json, candidates=False)
    print_table(rows)
    print_verdicts(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
