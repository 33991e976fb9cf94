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

**Under SST/macro** (``--simulator sstmacro``; ``benchmarks/sstmacro/build.sh`` builds it): the same
halo3d, built with ``sst++``, runs in SST/macro's packet-level model (pisces switches) under each
of ``--routings`` (``minimal``, ``ugal``, ``valiant``: SST/macro's own dragonfly routers, adaptive
for ``ugal``) on the dragonflies SST/macro can wire as ours
(:func:`benchmarks.harness.sstmacro.sstmacro_shape`; the presets' shapes it cannot wire are
refused naming why): ``circulant`` (33 groups of 8 all-to-all switches, 4 nodes a switch, one
global link per pair of groups) and ``cascade`` (Aries' groups of 6 x 16 routers with their green,
black and global bandwidths, in SST/macro's ``cascade`` topology: 19 groups, 10 links a pair, the
only group count its wiring spreads evenly over 6 x 16 routers; minimal routing only, its one
working router -- the other routings are skipped with a printed line).  Every node keeps its
group and switch (and row and column); SST/macro places each pair's global links on other
switches than our arrangement.  The methods add ``packing`` (the task graph onto
nodes, the network left out), ``auto ugal`` (``auto`` on the machine under ``routing="ugal"``: its
objective and replay route by UGAL), ``auto either`` (``routing="either"``: ranked under both
routings) and ``balance`` (packing, then the nodes dealt over the groups so group pairs carry even
shares), and the verdicts are issue 43's under UGAL: ``auto`` (and the other two) at or below random, identity and node packing on every case, at least 15%
below the better of identity and random on the scattered ones; per case and routing, Spearman's
rho of our predicted time and SST/macro's time over the methods, and the same for each of our
models (:data:`MODELS`: predicted time and replay, under minimal and under UGAL routing).

Run:  python -m benchmarks.app_time_dragonfly [--machines frontier,aries] [--allocations scattered,confined]
      [--cases 512:8,1024:8,2048:8] [--seeds 1,2] [--groups 4] [--methods ...] [--json PATH] [--keep DIR]
      [--simulator smpi|sstmacro] [--routings minimal,ugal]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import mpitaskmap
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.mapping import IDENTITY
from mpitaskmap.metrics import evaluate
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks.harness.cases import group_by, run_cases
from benchmarks.harness.output import read_json
from benchmarks.harness.platforms import CONFINED, HOSTS, SCATTERED
from benchmarks.harness.platforms import dragonfly_spec as spec
from benchmarks.harness.smpi import (GRIDS, SELECTORS, add_app_arguments, app_case, build_halo3d, method_columns,
                                     parse_cases, parse_ints, run_methods)
from benchmarks.harness.sstmacro import (SSTMACRO_ROUTERS, build_halo3d_sst, node_id_file, run_sstmacro,
                                         sstmacro_missing, sstmacro_nodes, sstmacro_params, sstmacro_routings,
                                         sstmacro_shape)
from benchmarks.harness.tables import Column, print_columns
from benchmarks.peers import kahip, scotch, zoltan2
from benchmarks.peers.zoltan2_dragonfly import map_zoltan2_dragonfly

AUTO = "auto"
#: ``auto`` told the network routes adaptively: the machine under ``routing="ugal"`` (objective and replay).
AUTO_UGAL = "auto ugal"
#: ``auto`` told the network may route either way: ranked under minimal and under UGAL routing (``"either"``).
AUTO_EITHER = "auto either"
#: The group-balancing mapping (the ``balance`` method).
BALANCE = "balance"
RANDOM = "random"
ZOLTAN2 = "zoltan2 dragonfly"
SCOTCH = "scotch tleaf"
KAHIP = "kahip"
PACKING = "packing"
#: The rows a case can have; SMPI's default leaves ``packing`` and the adaptive routing's rows out (issue 31's table).
METHODS = (IDENTITY, RANDOM, AUTO, AUTO_UGAL, AUTO_EITHER, PACKING, BALANCE, ZOLTAN2, SCOTCH, KAHIP)
SMPI_METHODS = (IDENTITY, RANDOM, AUTO, ZOLTAN2, SCOTCH, KAHIP)
MACHINES = ("frontier", "aries")
#: ``--simulator``: SimGrid's SMPI on the machine's own minimal routes, or SST/macro's packet model.
SIMULATORS = ("smpi", "sstmacro")
#: The default machines under SST/macro (the shapes it can wire as ours; ``cascade``, Aries' groups, under minimal
#: routing only).
SSTMACRO_MACHINES = ("circulant", "cascade")
#: "at least 20% below identity on the scattered cases".
TARGET_BELOW = 0.20
#: Issue 43 under UGAL: "at least 15% below the better of identity and random on the scattered ones".
UGAL_TARGET_BELOW = 0.15
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
    if method in (AUTO_UGAL, AUTO_EITHER):
        mapping = mpitaskmap.map(graph, machine.with_routing(method.split()[1]), "auto")
        return np.asarray(mapping.task_to_proc), mapping.info
    if method in (PACKING, BALANCE):
        return np.asarray(mpitaskmap.map(graph, machine, method).task_to_proc), {}
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


#: The rows whose ``label`` is the search's winning candidate.
AUTOS = (AUTO, AUTO_UGAL, AUTO_EITHER)
#: Our models of one exchange, each compared with SST/macro's times: (name, routing of the machine, measure).
MODELS = (("predicted minimal", "minimal", "predicted"), ("predicted ugal", "ugal", "predicted"),
          ("replay minimal", "minimal", "replay"), ("replay ugal", "ugal", "replay"))


def model_times(graph: TaskGraph, machine, task_to_proc) -> dict[str, float]:
    """Seconds of one exchange of ``graph`` by each of :data:`MODELS`: the objective's predicted time and the
    in-process replay (one step, the judge's), under minimal and under UGAL routing."""
    from mpitaskmap.metrics import predicted_time
    from mpitaskmap.sim.fluid import fluid_exchange

    out = {}
    for name, routing, measure in MODELS:
        m = machine.with_routing(routing)
        out[name] = float(predicted_time(graph, m, task_to_proc) if measure == "predicted"
                          else fluid_exchange(graph, m, task_to_proc).seconds)
    return out


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
                       extra=lambda method, info: {"label": info.get("candidate") if method in AUTOS else None})


def run_case_sstmacro(key: dict, args, exe: Path, work: Path) -> list[dict]:
    """Map every method of one case and run each distinct node order once per routing in SST/macro; return its rows.

    A row per (routing, method): the case's key, ``routing``, ``method``, ``metrics`` (our
    model's, :data:`~benchmarks.harness.smpi.SELECTORS`), ``map_s``, ``comm_s`` (halo3d's
    ``max_comm_time`` in SST/macro; None when the run failed), ``wall_s``, ``same_as`` (the
    method whose run of the same node order was reused) and ``error``.
    """
    n, ppn, seed = key["n"], key["ppn"], key["seed"]
    machine = machine_from_spec(spec(key["machine"], key["allocation"], n, ppn, seed, args.groups), n).machine
    try:
        shape = sstmacro_shape(machine)
    except ValueError as exc:
        raise SystemExit(f"--machines {key['machine']}: {exc}") from None
    routings = [r for r in args.routings if r in sstmacro_routings(shape)]
    for r in args.routings:
        if r not in routings:
            print(f"# {key['machine']}: no {r} run: SST/macro's {shape.topology} topology has routers for "
                  f"{', '.join(sstmacro_routings(shape))} only", file=sys.stderr, flush=True)
    grid = GRIDS[n]
    graph = TaskGraph.stencil(grid, weight=float(args.cells * args.cells * args.vars * 8))
    argv = [*grid, args.cells, args.cells, args.cells, args.vars, args.steps]
    name = f"sst_{key['machine']}_{key['allocation']}_n{n}_ppn{ppn}_seed{seed}"
    done: dict = {}  # (node order, routing) -> (comm_s, method, error)
    rows = []
    for method in args.methods:
        t0 = time.perf_counter()
        try:
            t2p, info = map_row(method, graph, machine, seed)
        except RuntimeError as exc:  # a peer that failed: its rows say so, the others go on
            rows += [{**key, "routing": r, "method": method, "metrics": None, "map_s": time.perf_counter() - t0,
                      "comm_s": None, "wall_s": None, "same_as": None, "error": f"mapping failed: {exc}"}
                     for r in routings]
            continue
        map_s = time.perf_counter() - t0
        metrics = evaluate(graph, machine, t2p, list(SELECTORS))
        models = model_times(graph, machine, t2p)
        nodes = sstmacro_nodes(machine, t2p)
        for routing in routings:
            seen = done.get((nodes.tobytes(), routing))
            wall = None
            if seen is None:
                stem = f"{name}_{routing}_{method.replace(' ', '_')}"
                (work / f"{stem}.nodes").write_text(node_id_file(nodes))
                params = sstmacro_params(shape, machine, routing=routing, exe=str(exe), argv=argv, ranks=n, ppn=ppn,
                                         nodes_file=str(work / f"{stem}.nodes"), hop_latency_ns=args.latency * 1e9)
                t1 = time.perf_counter()
                try:
                    comm, error = run_sstmacro(params, work, stem, timeout=args.timeout), None
                except (RuntimeError, subprocess.TimeoutExpired) as exc:
                    comm, error = None, str(exc)[:400]
                wall = time.perf_counter() - t1
                done[nodes.tobytes(), routing] = seen = (comm, method, error)
            same_as = None if wall is not None else seen[1]
            rows.append({**key, "routing": routing, "method": method, "metrics": metrics, "map_s": map_s,
                         "comm_s": seen[0], "wall_s": wall, "same_as": same_as, "error": seen[2],
                         "models": models, "label": info.get("candidate") if method in AUTOS else None})
            status = seen[2] or (f"comm {seen[0]:.4g} s, " + (f"same run as {same_as}" if same_as
                                                               else f"wall {wall:.0f} s"))
            print(f"# {name} {routing} {method}: {status}", file=sys.stderr, flush=True)
    return rows


CASE_KEYS = ("machine", "allocation", "n", "ppn", "seed")
#: A case under SST/macro: the machine's case and the routing.
SST_CASE_KEYS = CASE_KEYS + ("routing",)
#: The case columns of the table.
CASE_COLUMNS = [Column("machine", 8, lambda r: r["machine"], "<"), Column("alloc", 9, lambda r: r["allocation"], "<"),
                Column("ranks", 5, lambda r: r["n"]), Column("ppn", 3, lambda r: r["ppn"]),
                Column("seed", 4, lambda r: r["seed"])]
#: The per-method table (rows carry ``base``, the case's identity time).
COLUMNS = CASE_COLUMNS + method_columns(17, ('AvgHops', 'Latency(M)', 'PredTime', 'comm s', 'vs identity', 'map s'))


def _case_order(key: tuple) -> tuple:
    """Cases in the order of :data:`MACHINES`, scattered before confined, then by size, ppn and seed (and the
    routings of an SST/macro case in :data:`~benchmarks.harness.sstmacro.SSTMACRO_ROUTERS` order)."""
    order = {m: i for i, m in enumerate(MACHINES)}
    routing = list(SSTMACRO_ROUTERS).index(key[5]) if len(key) > 5 else 0
    return (order.get(key[0], len(order)), key[0], key[1] != SCATTERED, key[2], key[3], key[4], routing)


def case_spearman(case: dict[str, dict]) -> float | None:
    """Spearman's rho of predicted time and simulated time over the methods of one case that ran."""
    ran = [r for r in case.values() if r["comm_s"] is not None]
    return spearman([r["metrics"]["predicted_time"] for r in ran], [r["comm_s"] for r in ran])


#: The per-method table under SST/macro (the routing after the case).
SST_COLUMNS = CASE_COLUMNS + [Column("routing", 8, lambda r: r["routing"], "<", "  ")] + method_columns(
    17, ('AvgHops', 'PredTime', 'comm s', 'vs identity', 'map s'))


def print_table(rows: list[dict], *, sstmacro: bool = False) -> None:
    """The per-method table: metrics, simulated communication time and its change against identity, per case
    (and per routing of SST/macro's rows, ``sstmacro``)."""
    keys, columns = (SST_CASE_KEYS, SST_COLUMNS) if sstmacro else (CASE_KEYS, COLUMNS)
    groups = []
    for _, case in group_by(rows, keys, _case_order):
        base = case.get(IDENTITY, {}).get("comm_s")
        groups.append([dict(r, base=base) for r in case.values()])
    pad = f"{'':<8} {'':<9} {'':>5} {'':>3} {'':>4}  " + (f"{'':<8}  " if sstmacro else "")
    simulated = "SST/macro time" if sstmacro else "comm s"

    def spearman_line(group: list[dict]) -> None:
        rho = case_spearman({r["method"]: r for r in group})
        print(f"{pad}Spearman(predicted time, {simulated}) over the methods: "
              + ("n/a" if rho is None else f"{rho:+.2f}"))

    def failed(r: dict) -> str | None:
        routing = f"{r['routing']:<8}  " if sstmacro else ""
        if r["metrics"] is not None:
            return None
        return (f"{r['machine']:<8} {r['allocation']:<9} {r['n']:>5} {r['ppn']:>3} {r['seed']:>4}  {routing}"
                f"{r['method']:<17} {r['error']}")

    print_columns(groups, columns, after_group=spearman_line, row_text=failed)


def print_sstmacro_verdicts(rows: list[dict]) -> None:
    """Issue 43's targets under UGAL, one line per case, and the Spearman of every case and routing."""
    print(f"issue 43 (SST/macro, UGAL): auto <= random, identity and packing on every case; auto >= "
          f"{100 * UGAL_TARGET_BELOW:.0f}% below the better of identity and random on the scattered cases")
    for key, case in group_by(rows, SST_CASE_KEYS, _case_order):
        name = f"{key[0]} {key[1]} ranks {key[2]} ppn {key[3]} seed {key[4]} {key[5]}"
        rho = case_spearman(case)
        times = {m: r["comm_s"] for m, r in case.items() if r["comm_s"] is not None}
        line = f"  {name}: Spearman {'n/a' if rho is None else f'{rho:+.2f}'}"
        for auto in AUTOS:
            if key[5] != "ugal" or auto not in times or IDENTITY not in times or RANDOM not in times:
                continue
            beaten = [m for m in (RANDOM, IDENTITY, PACKING) if m in times and times[auto] > times[m]]
            line += f"; {auto} <= random, identity, packing: " + ("yes" if not beaten else "no: " + ", ".join(
                f"{m} {100 * (times[auto] / times[m] - 1):+.1f}%" for m in beaten))
            if key[1] == SCATTERED:
                below = 1 - times[auto] / min(times[IDENTITY], times[RANDOM])
                line += (f"; {100 * below:.1f}% below the better of identity and random ("
                         f"{'meets' if below >= UGAL_TARGET_BELOW else 'misses'} {100 * UGAL_TARGET_BELOW:.0f}%)")
        print(line)


def print_model_agreement(rows: list[dict]) -> None:
    """Per case and SST/macro routing, Spearman's rho of SST/macro's times and each of our :data:`MODELS`, and the
    mean per routing (issue 43: under UGAL our ugal model ranks at least as well as the minimal one)."""
    print("our models against SST/macro: Spearman of the methods' times per case")
    print(f"  {'case':<44} " + " ".join(f"{name:>17}" for name, _, _ in MODELS))
    per_routing: dict[str, dict[str, list[float]]] = {}
    for key, case in group_by(rows, SST_CASE_KEYS, _case_order):
        ran = [r for r in case.values() if r["comm_s"] is not None and r.get("models")]
        rhos = {name: spearman([r["models"][name] for r in ran], [r["comm_s"] for r in ran]) for name, _, _ in MODELS}
        name = f"{key[0]} {key[1]} {key[2]} ppn {key[3]} seed {key[4]} {key[5]}"
        print(f"  {name:<44} " + " ".join(f"{'n/a' if v is None else f'{v:+.2f}':>17}" for v in rhos.values()))
        for model, v in rhos.items():
            if v is not None:
                per_routing.setdefault(key[5], {}).setdefault(model, []).append(v)
    for routing, by_model in per_routing.items():
        print(f"  {'mean under ' + routing:<44} " + " ".join(
            f"{np.mean(by_model[m]):>+17.2f}" if m in by_model else f"{'n/a':>17}" for m, _, _ in MODELS))


def print_simulator_agreement(smpi_rows: list[dict], sst_rows: list[dict]) -> None:
    """Per case and SST/macro routing, Spearman's rho of SMPI's and SST/macro's times over the methods both ran,
    and the mean over the cases (issue 43: at least 0.8 on average under minimal routing)."""
    smpi = dict(group_by(smpi_rows, CASE_KEYS, _case_order))
    per_routing: dict[str, list[float]] = {}
    print("SMPI against SST/macro: Spearman of the methods' times per case")
    for key, case in group_by(sst_rows, SST_CASE_KEYS, _case_order):
        other = smpi.get(key[:5])
        if other is None:
            continue
        both = [m for m in case if case[m]["comm_s"] is not None and m in other and other[m]["comm_s"] is not None]
        rho = spearman([other[m]["comm_s"] for m in both], [case[m]["comm_s"] for m in both])
        print(f"  {key[0]} {key[1]} ranks {key[2]} ppn {key[3]} seed {key[4]} {key[5]}: "
              + ("n/a" if rho is None else f"{rho:+.2f}") + f" over {len(both)} methods")
        if rho is not None:
            per_routing.setdefault(key[5], []).append(rho)
    for routing, values in per_routing.items():
        print(f"  mean under {routing}: {np.mean(values):+.2f} over {len(values)} cases")


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
    ap.add_argument("--simulator", choices=SIMULATORS, default="smpi",
                    help="smpi (SimGrid, minimal static routes; default) or sstmacro (packet-level, --routings)")
    ap.add_argument("--routings", default="minimal,ugal",
                    help=f"SST/macro's routers, of {', '.join(SSTMACRO_ROUTERS)} (default minimal,ugal)")
    ap.add_argument("--machines", help="dragonfly presets or study shapes (default frontier,aries; under sstmacro "
                                       "circulant,cascade)")
    ap.add_argument("--allocations", default=f"{SCATTERED},{CONFINED}",
                    help="scattered (over the whole machine), confined (over --groups groups)")
    ap.add_argument("--groups", type=int, default=4, help="groups of a confined allocation (default 4)")
    ap.add_argument("--cases", default="512:8,1024:8,2048:8", help="RANKS:PPN,... (ranks in %s; at 4,096 a random order runs over 15 minutes here)" % sorted(GRIDS))
    ap.add_argument("--seeds", default="1,2", help="allocation seeds (default 1,2)")
    ap.add_argument("--methods", help=f"comma list of {', '.join(METHODS)} (default: all but packing under smpi)")
    add_app_arguments(ap)
    ap.add_argument("--report", metavar="JSON,JSON", help="print the tables of earlier runs' --json files (merged; "
                                                           "SMPI's and SST/macro's side by side) and run nothing")
    args = ap.parse_args(argv)
    sst = args.simulator == "sstmacro"
    if args.report:
        (rows,) = read_json(args.report.split(","))
        sst_rows, smpi_rows = [r for r in rows if "routing" in r], [r for r in rows if "routing" not in r]
        if smpi_rows:
            print_table(smpi_rows)
            print_verdicts(smpi_rows)
        if sst_rows:
            print_table(sst_rows, sstmacro=True)
            print_sstmacro_verdicts(sst_rows)
            print_model_agreement(sst_rows)
        if smpi_rows and sst_rows:
            print_simulator_agreement(smpi_rows, sst_rows)
        return 0
    missing = sstmacro_missing() if sst else simgrid_missing()
    if missing:
        print(f"app_time_dragonfly: {missing}", file=sys.stderr)
        return 1
    args.machines = args.machines or ",".join(SSTMACRO_MACHINES if sst else MACHINES)
    args.methods = [m.strip() for m in (args.methods or ",".join(METHODS if sst else SMPI_METHODS)).split(",")
                    if m.strip()]
    args.routings = [r.strip() for r in args.routings.split(",") if r.strip()]
    for routing in args.routings:
        if routing not in SSTMACRO_ROUTERS:
            raise SystemExit(f"--routings: unknown {routing!r}; valid: {', '.join(SSTMACRO_ROUTERS)}")
    for method in list(args.methods):
        if method not in METHODS:
            raise SystemExit(f"--methods: unknown {method!r}; valid: {', '.join(METHODS)}")
        reason = peer_missing(method)
        if reason:
            print(reason)
            args.methods.remove(method)
    cases = [dict(machine=machine, allocation=allocation, n=n, ppn=ppn, seed=seed)
             for machine in args.machines.split(",") for allocation in args.allocations.split(",")
             for n, ppn in parse_cases(args.cases) for seed in parse_ints(args.seeds)]
    if sst:
        work = Path(args.keep or tempfile.mkdtemp(prefix="app_time_dragonfly_sst_"))
        exe = build_halo3d_sst(work)
        print(f"halo3d: {args.cells}^3 cells x {args.vars} vars per rank ({args.cells ** 2 * args.vars * 8} B per face "
              f"message), {args.steps} steps; SST/macro (pisces), routings {', '.join(args.routings)}; "
              f"link latency {args.latency:g} s")
        rows, _ = run_cases(cases, lambda key: (run_case_sstmacro(key, args, exe, work), None), args.json,
                            candidates=False)
        print_table(rows, sstmacro=True)
        print_sstmacro_verdicts(rows)
        print_model_agreement(rows)
        return 0
    work, app = build_halo3d(args, "app_time_dragonfly_")
    print("SMPI, smpi/simulate-computation:no; explicit SimGrid platform of the dragonfly, minimal routes")
    rows, _ = run_cases(cases, lambda key: (run_case(key, args, app, work), None), args.json, candidates=False)
    print_table(rows)
    print_verdicts(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
