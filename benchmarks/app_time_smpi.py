"""Application time under SimGrid SMPI: halo3d on sparse Titan-like allocations, per mapping.

``examples/halo3d.c`` (a MiniGhost-like 3-D 7-point halo exchange, built with ``smpicc``)
runs under ``smpirun`` on the SimGrid platform of a sparse allocation of the simulated
Titan (:func:`mpitaskmap.sim.simgrid.platform_xml`: the 25 x 16 x 24 Gemini torus, its
per-dimension link bandwidths, two nodes per router), once per mapping, with
communication-only timing (``smpi/simulate-computation:no``).  For every job size, ranks
per node and allocation seed the table gives per mapping:

* the model metrics of the mapping on the machine: AverageHops, WeightedHops (bytes x
  hops) and Latency(M) (the most bytes / bandwidth on one link), for the task graph of the
  app (one message of ``cells^2 * vars * 8`` bytes per face and step), all computed by
  :func:`mpitaskmap.metrics.evaluate`, for every row alike;
* ``comm s``: the app's own figure, the largest time a rank spends in the exchange
  (``max_comm_time``, measured in simulated time), and its change vs identity;
* ``end s``: SimGrid's simulated end time of the run; ``wall s``: what the run cost here
  (``same``: the row's hostfile equals an earlier row's, whose run is reused: SMPI is
  deterministic here).

Mappings (``--methods``): identity (the scheduler's order), MiniGhost's own 2x2x4 grouping
(``group``, ``examples/minighost.py``'s ``group_order``), the rows of
:data:`LIBRARY_ROWS` computed by :func:`mpitaskmap.map` -- geometric, greedy+uwh, ``auto``
(the library's default search: its default metric, families and refinement, nothing pinned
here) and ``auto:METRIC`` (the same search by METRIC) -- and Zoltan2's MJ task mapper
(``benchmarks/peers``, torus shift on): ``zoltan2_1`` one rank, ``zoltan2_49`` its own
rotation search under ``mpirun -np 49`` (one rank per rotation pair).  The Zoltan2 rows
need the optional peer (``bash benchmarks/peers/install_peers.sh`` or
``MPITASKMAP_ZOLTAN2_MAP``); without it they are skipped with one printed reason.  Every
mapping is a task -> processor array in the task numbering of ``TaskGraph.stencil``, which
is halo3d's rank numbering (x fastest; checked at start-up), and runs through the same
hostfile writer and ``smpirun`` line (the pieces of ``mpitaskmap simgrid``,
:mod:`mpitaskmap.cli.smpi`).

Generated candidates (``--all-candidates``, default on at 512 ranks, off above): every
mapping ``auto``'s search generated (both stages: its candidate list and the refined ones,
``info["candidate_list"]``), deduplicated by rank order (the host of every rank, i.e. the
hostfile), each distinct one simulated; the second table gives the fastest one's time and
label and ``auto``'s gap to it, and for every metric how much slower than the fastest the
candidate of least metric runs (0.0%: that metric would have picked the fastest).

After the tables, per case: issue 18's targets (``auto`` at least 45% below identity and
within 2% of the fastest of our methods, and which metric of the table would have picked
the fastest mapping) and issue 19's: "auto <= every Zoltan2 variant" and "auto within 2%
of the fastest generated candidate".

Run:  python -m benchmarks.app_time_smpi [--quick] [--cases 512:8,512:16,4096:8,4096:16] [--seeds 1,2]
      [--methods ...] [--[no-]all-candidates] [--cells 8] [--vars 5] [--steps 5] [--latency 1e-7]
      [--timeout 900] [--json PATH] [--keep DIR]
Needs SimGrid (``apt-get install libsimgrid-dev``).  ``--quick``: the 512-rank cases only.
A 512-rank run takes 1-2 wall seconds here, so the generated candidates (140 to 650
distinct rank orders per 512-rank case) take several minutes per case.  A 4096-rank run
(16 per node, 256 nodes, a 14 MB platform) takes about one CPU minute and 0.8 GB (1 to 3
wall minutes on a loaded 2-core machine; 512 nodes at 8 per node about the same), so the
default cases without the candidates at 4096 ranks take about 40 minutes here, and the
candidates at 4096 ranks (``--all-candidates``) hours.

Platform: link latency 1e-7 s per hop; ``--loopback 400``: the Gemini figures of the
machine model (75/37.5/120 per link) are read as GB/s, 8 x the published Gbit/s, so
SimGrid's default 50 GB/s node loopback is scaled the same way; with 50 the shared node
loopback, not the network, bounds every mapping at 16 ranks per node.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import mpitaskmap
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.mapping import IDENTITY
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks.harness.candidates import (WITHIN, candidate_columns, candidates_verdict, gap_percent,
                                           simulate_candidates)
from benchmarks.harness.candidates import print_candidates as print_candidates_table
from benchmarks.harness.cases import group_by, run_cases
from benchmarks.harness.peers import ZOLTAN2_ROTATION_RANKS, zoltan2_mapping
from benchmarks.harness.smpi import (GRIDS, SELECTORS, add_app_arguments, app_case, build_halo3d, example_module,
                                     method_columns, parse_cases, parse_ints, run_methods)
from benchmarks.harness.tables import Column, print_columns
from benchmarks.peers import zoltan2

#: The row of the library's default search (its candidates are the "generated candidates").
AUTO = "auto"
OURS = (IDENTITY, "geometric", "greedy+uwh", AUTO)
#: Rows computed by :func:`mpitaskmap.map`: row name -> (method, keyword options).  ``auto`` passes
#: nothing, so it is whatever the library's default search is.  A new row is one entry here (and its
#: name in ``--methods``), e.g. ``"auto+simulate": ("auto", {"judge": "simulate"})``; ``auto:METRIC``
#: rows need no entry (:func:`library_call`).
LIBRARY_ROWS: dict[str, tuple[str, dict]] = {
    IDENTITY: (IDENTITY, {}),
    "geometric": ("geometric", {}),
    "greedy+uwh": ("greedy+uwh", {}),
    AUTO: ("auto", {}),
    "auto+simulate": ("auto", {"judge": "simulate", "judge_top": 8}),
}
#: The judge's simulator settings (``judge_options`` of :func:`mpitaskmap.map`): the platform of
#: the SMPI runs (link latency, node loopback), set from the command line in :func:`main`.
JUDGE_OPTIONS: dict = {}
#: Zoltan2 rows: row name -> ranks of its run (1: one candidate; 49: its rotation search).
ZOLTAN2_ROWS = {"zoltan2_1": 1, "zoltan2_49": ZOLTAN2_ROTATION_RANKS}
GROUP = "group"
DEFAULT_METHODS = (IDENTITY, GROUP, "geometric", "greedy+uwh", AUTO, "auto+simulate", "auto:predicted_time",
                   "auto:weighted_hops", *ZOLTAN2_ROWS)
METRICS = ("average_hops", "weighted_hops", "latency")
#: Above ALL_CANDIDATES_UP_TO ranks: the generated candidates simulated are the TOP_CANDIDATES best
#: distinct ones by the default objective, plus each SELECTORS metric's pick and auto's own.
TOP_CANDIDATES = 8
#: Largest job whose generated candidates are simulated by default (each 4096-rank run: a CPU minute).
ALL_CANDIDATES_UP_TO = 512


def library_call(row: str) -> tuple[str, dict]:
    """Return the ``(method, options)`` of :func:`mpitaskmap.map` that computes the library row ``row``.

    :data:`LIBRARY_ROWS` first; ``auto:METRIC`` is the ``auto`` search by METRIC; any other name is
    a method of :data:`mpitaskmap.search.methods.METHODS` without options.
    """
    if row in LIBRARY_ROWS:
        return LIBRARY_ROWS[row]
    if row.startswith("auto:"):
        return "auto", {"metric": row[5:]}
    return row, {}


def is_ours(method: str) -> bool:
    """True for the rows mapped by the library (not MiniGhost's grouping, not Zoltan2)."""
    return method != GROUP and method not in ZOLTAN2_ROWS


def group_mapping(grid, machine) -> np.ndarray:
    """Task -> processor of MiniGhost's grouping: rank r runs the task at position r of its blocked order."""
    order = np.asarray(example_module("minighost").group_order(grid), dtype=np.int64)
    task_to_proc = np.empty(order.size, dtype=np.int64)
    task_to_proc[order] = np.arange(order.size)
    return task_to_proc


def zoltan2_verdict(case: dict) -> str:
    """"yes" when ``auto``'s time is <= every Zoltan2 row's of the case, else "no" ("n/a": nothing to compare).

    ``case``: method -> row (``comm_s`` None when the run failed).  A Zoltan2 row that failed
    makes the answer "n/a", since auto cannot be shown <= it.
    """
    z = [r for m, r in case.items() if m in ZOLTAN2_ROWS]
    auto = case.get(AUTO)
    if not z or auto is None or auto["comm_s"] is None or any(r["comm_s"] is None for r in z):
        return "n/a"
    return "yes" if all(auto["comm_s"] <= r["comm_s"] for r in z) else "no"


def zoltan2_missing() -> str:
    """Why the Zoltan2 rows cannot run ("" when they can)."""
    if zoltan2.zoltan2_available():
        return ""
    return (f"Zoltan2 rows skipped: no driver at {zoltan2.driver_path()} (bash benchmarks/peers/install_peers.sh, "
            f"or set MPITASKMAP_ZOLTAN2_MAP)")


def map_row(method: str, graph, machine, grid) -> tuple[np.ndarray, dict]:
    """Task -> processor of one row of ``--methods`` and the library's ``Mapping.info`` ({} for the others).

    Zoltan2 rows only when the peer is installed; their failures raise RuntimeError.
    """
    if method == GROUP:
        return group_mapping(grid, machine), {}
    if method in ZOLTAN2_ROWS:
        t2p = zoltan2_mapping(graph, machine, ZOLTAN2_ROWS[method])
        if t2p is None:
            raise RuntimeError(zoltan2_missing() or "Zoltan2 is not installed")
        return np.asarray(t2p, dtype=np.int64), {}
    name, options = library_call(method)
    if "judge" in options:
        options = dict(options, judge_options=JUDGE_OPTIONS)
    mapping = mpitaskmap.map(graph, machine, name, **options)
    return np.asarray(mapping.task_to_proc), mapping.info


def run_case(n: int, ppn: int, seed: int, args, app: str, work: str) -> tuple[list[dict], dict | None]:
    """Map and run every method for one (size, ranks per node, seed); return the rows and the candidates."""
    mi = machine_from_spec(f"sim:titan:ppn={ppn},seed={seed}", n)
    case = app_case(f"n{n}_ppn{ppn}_seed{seed}", {"n": n, "ppn": ppn, "seed": seed}, GRIDS[n], mi.machine, mi.hosts,
                    args, app, work, loopback=(args.loopback, 1e-7))
    auto: dict = {}

    def on_mapped(method: str, t2p: np.ndarray, info: dict) -> None:
        if method == AUTO:
            auto.update(candidates=info["candidate_list"], t2p=t2p)
        for j in info.get("judged", ()):  # the judge's own ranking (its simulator: mpitaskmap.sim.simgrid_replay)
            print(f"# {case.name} {method}: judged #{j['objective_rank']} by {info['metric']}, #{j['simulated_rank']} "
                  f"by replay ({j['simulated_s']:.4e} s): {j['candidate']}", file=sys.stderr, flush=True)

    rows = run_methods(case, args.methods, lambda method, c: map_row(method, c.graph, c.machine, c.grid),
                       end_time=True, on_mapped=on_mapped)
    cands = None
    every = args.all_candidates if args.all_candidates is not None else n <= ALL_CANDIDATES_UP_TO
    if auto and (every or args.top_candidates > 0):
        auto_row = next(r for r in rows if r["method"] == AUTO)
        cands = dict(ppn=ppn, seed=seed, **simulate_candidates(
            case.runs, case.graph, case.machine, auto["candidates"], auto_row,
            top=None if every else args.top_candidates, auto_t2p=auto["t2p"]))
    return rows, cands


#: The case columns of both tables.
CASE_COLUMNS = [Column("ranks", 5, lambda r: r["n"]), Column("ppn", 3, lambda r: r["ppn"]),
                Column("seed", 4, lambda r: r["seed"])]
#: The per-method table (rows carry ``base``, the case's identity time).
COLUMNS = CASE_COLUMNS + method_columns(18, ('AvgHops', 'WeightedHops', 'Latency(M)', 'PredTime', 'comm s', 'vs identity',
                                             'end s', 'map s', 'wall s'))


def print_table(rows: list[dict]) -> None:
    """The per-method table: metrics, app time and its change vs identity, per case."""
    groups = []
    for _, case in group_by(rows, ("n", "ppn", "seed")):
        base = case[IDENTITY]["comm_s"] if IDENTITY in case else None
        groups.append([dict(r, base=base) for r in case.values()])
    print_columns(groups, COLUMNS, row_text=lambda r: None if r["metrics"] is not None else
                  f"{r['n']:>5} {r['ppn']:>3} {r['seed']:>4}  {r['method']:<18} {r['error']}")


def print_candidates(cands: list[dict]) -> None:
    """The generated-candidates table: per case the fastest distinct candidate and auto's gap to it."""
    def picks(cases: list[dict]) -> None:
        print("the candidate of least metric (ties: the search's order), its time vs the fastest candidate's:")
        for c in cases:
            text = ", ".join(f"{s} {v:+.1f}%" for s, v in c["metric_picks"].items())
            print(f"  ranks {c['n']} ppn {c['ppn']} seed {c['seed']}: {text or '-'}")

    title = (f"generated candidates of {AUTO!r} (both stages), one SMPI run per distinct rank order simulated "
             f"(all of them, or the {TOP_CANDIDATES} best by predicted_time + each metric's pick + auto's own):")
    print_candidates_table(cands, title, CASE_COLUMNS + candidate_columns(generated=True, notes=True), after=picks)


def _rank(method: str) -> int:
    """Tie-break of the metric picks: the order of OURS, then the other rows of ours."""
    return OURS.index(method) if method in OURS else len(OURS)


def print_verdicts(rows: list[dict], cands: list[dict], zoltan2_reason: str) -> None:
    """Issue 18's and issue 19's target lines, one per (ranks, ppn, seed)."""
    print("issue 18: auto >= 45% below identity (4096 ranks), auto within 2% of the fastest of our methods")
    keys = sorted({(r["n"], r["ppn"], r["seed"]) for r in rows})
    for key in keys:
        case = {r["method"]: r for r in rows if (r["n"], r["ppn"], r["seed"]) == key}
        ours = {k: v for k, v in case.items() if is_ours(k) and v["comm_s"] is not None and v["metrics"]}
        if IDENTITY not in ours or AUTO not in ours:
            print(f"  {key}: identity or auto did not run")
            continue
        auto, base = ours[AUTO]["comm_s"], ours[IDENTITY]["comm_s"]
        fastest = min(ours, key=lambda k: (ours[k]["comm_s"], k))
        off = gap_percent(auto, ours[fastest]["comm_s"])
        best = ours[fastest]["comm_s"]
        # a metric "picks the fastest" when the mapping of least metric (ties: the order of OURS) runs as fast
        # as the fastest, to 0.1% (geometric and auto often give the same mapping)
        pickers = [s for s in SELECTORS
                   if ours[min(ours, key=lambda k: (ours[k]["metrics"][s], _rank(k)))]["comm_s"] <= 1.001 * best]
        print(f"  ranks {key[0]} ppn {key[1]} seed {key[2]}: auto {100 * (1 - auto / base):.1f}% below identity "
              f"({'meets' if auto <= 0.55 * base else 'misses'} 45%); fastest {fastest}, auto {off:+.1f}% from it "
              f"({'within' if off <= 100 * WITHIN else 'not within'} 2%); metrics whose minimum is the fastest: "
              f"{', '.join(pickers) or 'none'}")
    print("issue 19: auto <= every Zoltan2 variant; auto within 2% of the fastest generated candidate")
    if zoltan2_reason:
        print("  (no Zoltan2 rows: the peer is not installed, see the first line)")
    by_case = {(c["n"], c["ppn"], c["seed"]): c for c in cands}
    for key in keys:
        case = {r["method"]: r for r in rows if (r["n"], r["ppn"], r["seed"]) == key}
        judged = case.get("auto+simulate")
        extra = ""
        if judged is not None and judged["comm_s"] is not None and by_case.get(key) and by_case[key]["fastest_s"]:
            extra = (f"; auto+simulate (the fastest of its judged by the replay) "
                     f"{gap_percent(judged['comm_s'], by_case[key]['fastest_s']):+.1f}% from the fastest generated")
        print(f"  ranks {key[0]} ppn {key[1]} seed {key[2]}: auto <= every Zoltan2 variant: {zoltan2_verdict(case)}; "
              f"auto within 2% of the fastest generated candidate: {candidates_verdict(by_case.get(key))}{extra}")


def main(argv=None) -> int:
    """Run the cases and print the tables; 1 when SimGrid is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="512:8,512:16,4096:8,4096:16", help="RANKS:PPN,... (ranks in %s)" % sorted(GRIDS))
    ap.add_argument("--quick", action="store_true", help="the 512-rank cases only (512:8,512:16)")
    ap.add_argument("--seeds", default="1,2", help="allocation seeds of the simulated Titan")
    ap.add_argument("--methods", default=",".join(DEFAULT_METHODS),
                    help="comma list; group is MiniGhost's 2x2x4 grouping, auto:METRIC the search by METRIC, "
                         f"zoltan2_1 / zoltan2_49 Zoltan2's MJ (one rank / its rotation search); library rows: "
                         f"{', '.join(LIBRARY_ROWS)}")
    ap.add_argument("--all-candidates", action=argparse.BooleanOptionalAction, default=None,
                    help=f"simulate every distinct candidate auto's search generated (default: on up to "
                         f"{ALL_CANDIDATES_UP_TO} ranks, off above: a 4096-rank run costs a CPU minute)")
    ap.add_argument("--top-candidates", type=int, default=TOP_CANDIDATES, metavar="K",
                    help=f"without --all-candidates: simulate the K best distinct generated candidates by the "
                         f"default objective, plus each metric's pick and auto's own (default {TOP_CANDIDATES}; "
                         "0: none)")
    add_app_arguments(ap)
    ap.add_argument("--loopback", type=float, default=400.0,
                    help="bandwidth of messages inside a node, in the machine's link units (default 400: the "
                         "simulated Gemini links are given in Gbit/s and read as GB/s, so SimGrid's 50 GB/s "
                         "node loopback is 8 x 50 in these units)")
    args = ap.parse_args(argv)
    if args.quick:
        args.cases = "512:8,512:16"
    JUDGE_OPTIONS.update(link_latency=args.latency, loopback=(args.loopback, 1e-7))
    args.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    missing = simgrid_missing()
    if missing:
        print(f"app_time_smpi: {missing}", file=sys.stderr)
        return 1
    zoltan2_reason = zoltan2_missing() if any(m in ZOLTAN2_ROWS for m in args.methods) else ""
    if zoltan2_reason:
        print(zoltan2_reason)
        args.methods = [m for m in args.methods if m not in ZOLTAN2_ROWS]
    work, app = build_halo3d(args, "app_time_smpi_")
    print("SMPI default factors, smpi/simulate-computation:no; simulated Titan (25x16x24 Gemini torus), "
          "sparse allocation")
    cases = [(n, ppn, seed) for n, ppn in parse_cases(args.cases) for seed in parse_ints(args.seeds)]
    rows, cands = run_cases(cases, lambda c: run_case(*c, args, app, work), args.json)
    print_table(rows)
    print_candidates(cands)
    print_verdicts(rows, cands, zoltan2_reason)
    return 0


if __name__ == "__main__":
    sys.exit(main())
