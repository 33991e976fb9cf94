"""``auto`` at scale: wall and CPU time, peak memory, candidates that applied and the judge, against one geometric mapping.

Cases: a 3-D 7-point stencil (unit weights, no message sizes: the ``stencil3d`` default,
:func:`~benchmarks.harness.shapes.stencil_dims`), 8 ranks a node, on four simulated networks:

* ``titan``: ``sim:titan`` (a Gemini 3-D torus, scattered nodes);
* ``fattree``: a 2-level ``sim:fattree`` of 16-node leaves with 4:1 taper, twice the job's
  nodes (scattered allocation);
* ``frontier``: ``sim:frontier`` (Slingshot dragonfly, 74 groups of 32 switches);
* ``aries``: ``sim:aries`` (Aries dragonfly, 32 groups of 6x16 routers);

at 512 to 65,536 ranks (131,072 on the fat tree).  Every case runs in a fresh process (its
peak resident memory is the process's ``ru_maxrss``): the machine and task graph are built,
then ``mpitaskmap.map(graph, machine, "auto")`` and ``"geometric"`` are timed, each the minimum
of ``--repeat`` runs.

Columns: ``build s`` the machine (assembled from its ranks' locations, as ``remap()`` and the
CLI do) and the task graph; ``auto s`` / ``geometric s`` wall seconds of the mapping call;
``ratio`` / ``CPU ratio`` wall and CPU time of a whole job, build included (what
``mpitaskmap map --method auto`` costs against ``--method geometric``); ``CPU s`` auto's
process CPU seconds; ``peak MB`` the case process's peak RSS (machine, graph, both methods);
``applied`` candidates that applied of those evaluated (both stages); ``judge`` the replays
and steps of the default judge, its resolution (above 10,000 edges) and its wall seconds, or
why it left the pick to the objective; ``vs identity`` /
``vs geometric`` the predicted-time change of auto's mapping (negative: faster); ``jobs`` at
``--jobs-ranks`` ranks, how much faster auto runs over ``--jobs`` processes
(:class:`~mpitaskmap.search.parallel.ProcessExecutor`) than in one (wall time; the mapping must
be the same).

Targets (issue 42), checked and printed as verdicts: peak memory at 65,536 ranks at most
1 GB on every network and at most 2 GB at 131,072 on the fat tree; no candidate refused for
size at 131,072 ranks; the judge replays five steps up to 8,192 ranks and at least one step
at 65,536 ranks on every network;
auto's CPU time at 65,536 ranks at most 15x one geometric mapping's (whole jobs, build included);
``--jobs 2`` at least 1.7x faster than ``--jobs 1`` at 32,768 ranks.

``--routing ugal`` (or ``either``) runs the dragonflies only, routed adaptively (issue 43: the
objective and the judge under UGAL; the ``balance`` candidate joins the search).

Run:  python -m benchmarks.auto_scaling [--ranks 512,2048,8192,32768,65536] [--networks titan,fattree,frontier,aries]
                                          [--fattree-max 131072] [--jobs 2] [--jobs-ranks 32768] [--repeat 1]
                                          [--routing minimal|ugal|either] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

from benchmarks.harness import print_table, write_json
from benchmarks.harness.platforms import SCALING_NETWORKS, SCALING_PPN, SCALING_ROUTED, scaling_spec
from benchmarks.harness.shapes import stencil_dims

RANKS = (512, 2048, 8192, 32768, 65536)
#: Size bounds a refusal names (a candidate refused for size, not for a precondition).
SIZE_BOUNDS = ("MAX_MATRIX_NODES", "MAX_ROUTE_ENTRIES")


def run_case(network: str, ranks: int, repeat: int, jobs: int = 1, routing: str | None = None) -> dict:
    """One case in this process: both methods timed, auto's figures read from its mapping; with ``jobs`` > 1
    auto again over that many processes (the same mapping required); ``routing`` the dragonflies' (None: the
    machine's default, minimal)."""
    import mpitaskmap
    from mpitaskmap.graphs.taskgraph import TaskGraph
    from mpitaskmap.machines import machine_from_spec
    from mpitaskmap.metrics import predicted_time
    from mpitaskmap.search.judge import judge_resolution, judge_steps
    from mpitaskmap.search.problem import Problem

    t0, c0 = time.perf_counter(), time.process_time()
    machine = machine_from_spec(scaling_spec(network, ranks, routing=routing), ranks).machine
    graph = TaskGraph.stencil(stencil_dims(ranks))
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0

    def timed(method: str, jobs: int = 1):
        best = None
        for _ in range(repeat):
            c0, w0 = time.process_time(), time.perf_counter()
            mapping = mpitaskmap.map(graph, machine, method, **({"jobs": jobs} if method == "auto" else {}))
            w, c = time.perf_counter() - w0, time.process_time() - c0
            if best is None or w < best[1]:
                best = (mapping, w, c)
        return best

    geo, geo_s, geo_cpu = timed("geometric")
    auto, auto_s, auto_cpu = timed("auto")
    parallel_s, same = None, None
    if jobs > 1:
        spread, parallel_s, _ = timed("auto", jobs)
        same = bool(np.array_equal(spread.task_to_proc, auto.task_to_proc))
    info = auto.info
    identity = np.arange(graph.n_tasks)
    t_id, t_geo, t_auto = (predicted_time(graph, machine, m) for m in (identity, geo.task_to_proc, auto.task_to_proc))
    judged = [j for j in info.get("judged") or [] if np.isfinite(j.get("simulated_s", np.nan))]
    refused = info.get("refused", {})
    return {
        "network": network, "routing": routing or "", "ranks": ranks, "nodes": machine.n_nodes, "build_s": build_s, "build_cpu_s": build_cpu,
        "auto_s": auto_s, "geometric_s": geo_s, "ratio": (build_s + auto_s) / (build_s + geo_s), "auto_cpu_s": auto_cpu,
        "geometric_cpu_s": geo_cpu, "cpu_ratio": (build_cpu + auto_cpu) / (build_cpu + geo_cpu),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "candidates": info.get("candidates"), "applicable": info.get("applicable"),
        "refused": refused, "refused_for_size": sorted(k for k, why in refused.items() if any(b in why for b in SIZE_BOUNDS)),
        "judge": info.get("judge"), "judge_why": info.get("judge_why", ""), "replays": len(judged),
        "steps": judge_steps(Problem(graph, machine)) if info.get("judge") or judged else 0,
        "resolution": judge_resolution(Problem(graph, machine)) if judged else 0.0,
        "judge_s": float(info.get("judge_seconds", 0.0)),
        "winner": info.get("candidate", ""), "jobs": jobs, "auto_jobs_s": parallel_s, "jobs_same_mapping": same,
        "jobs_speedup": auto_s / parallel_s if parallel_s else None,
        "vs_identity": 100.0 * (t_auto / t_id - 1.0), "vs_geometric": 100.0 * (t_auto / t_geo - 1.0),
    }


def _judge_text(r: dict) -> str:
    if r["replays"]:
        at = f" at {r['resolution']:g}" if r.get("resolution") else ""
        return f"{r['replays']} x {r['steps']} steps{at}, {r.get('judge_s', 0.0):.1f} s"
    return "objective: " + (r["judge_why"] or "no judge")[:48]


def _row(r: dict) -> dict:
    return {"network": r["network"], "ranks": r["ranks"], "build s": round(r["build_s"], 2), "auto s": round(r["auto_s"], 2),
            "geometric s": round(r["geometric_s"], 3), "ratio": round(r["ratio"], 1), "CPU s": round(r["auto_cpu_s"], 1),
            "CPU ratio": round(r["cpu_ratio"], 1), "peak MB": int(r["peak_mb"]),
            "applied": f"{r['applicable']}/{r['candidates']}", "judge": _judge_text(r),
            "vs identity": f"{r['vs_identity']:+.1f}%", "vs geometric": f"{r['vs_geometric']:+.1f}%",
            "jobs": f"{r['jobs_speedup']:.2f}x" if r.get("jobs_speedup") else ""}


def verdicts(records: list[dict]) -> list[str]:
    """The issue's targets, one line each, over the cases that ran."""
    out = []

    def check(ok: bool, text: str) -> None:
        out.append(f"{'PASS' if ok else 'FAIL'}  {text}")

    for r in records:
        if r["ranks"] <= 8192:
            check(r["replays"] >= 1 and r.get("steps") == 5,
                  f"{r['network']} {r['ranks']:,}: the judge replayed {r['replays']} candidates x {r.get('steps', 0)} "
                  f"steps (5 wanted)")
        if r["ranks"] == 65536:
            check(r["peak_mb"] <= 1024, f"{r['network']} 65,536: peak {r['peak_mb']:.0f} MB <= 1,024")
            check(r["replays"] >= 1, f"{r['network']} 65,536: the judge replayed {r['replays']} candidates")
            check(r["cpu_ratio"] <= 15, f"{r['network']} 65,536: auto CPU {r['cpu_ratio']:.1f}x geometric's <= 15x")
        if r.get("jobs_speedup"):
            check(r["jobs_speedup"] >= 1.7 and r["jobs_same_mapping"],
                  f"{r['network']} {r['ranks']:,}: --jobs {r['jobs']} {r['jobs_speedup']:.2f}x --jobs 1 >= 1.7x "
                  f"({'same' if r['jobs_same_mapping'] else 'DIFFERENT'} mapping)")
        if r["ranks"] == 131072:
            check(r["peak_mb"] <= 2048, f"{r['network']} 131,072: peak {r['peak_mb']:.0f} MB <= 2,048")
            check(not r["refused_for_size"], f"{r['network']} 131,072: refused for size: "
                                             f"{', '.join(r['refused_for_size']) or 'none'}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--ranks", default=",".join(map(str, RANKS)))
    ap.add_argument("--networks", default=",".join(SCALING_NETWORKS))
    ap.add_argument("--fattree-max", type=int, default=131072, help="one more fat-tree size (0: none)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds a case may run")
    ap.add_argument("--json", default=None)
    ap.add_argument("--jobs", type=int, default=2, help="auto is timed again over this many processes (default 2)")
    ap.add_argument("--jobs-ranks", type=int, default=32768, help="... at this size (0: never)")
    ap.add_argument("--routing", default=None, help="the dragonflies' routing (minimal, ugal, either; default the "
                    "machine's, minimal): with it only frontier and aries run")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # NETWORK:RANKS[:JOBS], in this process
    args = ap.parse_args(argv)
    if args.one:
        network, ranks, jobs = (args.one.split(":") + ["1"])[:3]
        print(json.dumps(run_case(network, int(ranks), args.repeat, int(jobs), args.routing)))
        return 0
    networks = [n for n in args.networks.split(",") if n]
    if args.routing:
        networks = [n for n in networks if n in SCALING_ROUTED]
    unknown = [n for n in networks if n not in SCALING_NETWORKS]
    if unknown:
        ap.error(f"--networks: unknown {unknown[0]!r}; valid: {', '.join(SCALING_NETWORKS)}")
    sizes = [int(r) for r in args.ranks.split(",") if r]
    cases = [(n, r) for n in networks for r in sizes]
    if "fattree" in networks and args.fattree_max and args.fattree_max not in sizes:
        cases.append(("fattree", args.fattree_max))
    records, rows = [], []
    for network, ranks in cases:
        jobs = args.jobs if ranks == args.jobs_ranks else 1
        cmd = [sys.executable, "-m", "benchmarks.auto_scaling", "--one", f"{network}:{ranks}:{jobs}",
               "--repeat", str(args.repeat)] + (["--routing", args.routing] if args.routing else [])
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                             env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        if res.returncode != 0:
            print(f"{network} {ranks}: failed\n{res.stderr[-2000:]}", file=sys.stderr)
            return 1
        rec = json.loads(res.stdout.strip().splitlines()[-1])
        records.append(rec)
        rows.append(_row(rec))
        print(f"  {network} {ranks}: auto {rec['auto_s']:.1f} s, peak {rec['peak_mb']:.0f} MB", file=sys.stderr,
              flush=True)
    print(f"auto at scale: stencil3d, {SCALING_PPN} ranks a node, no message sizes"
          f"{f', routing {args.routing}' if args.routing else ''}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print_table(rows, list(rows[0]) if rows else [])
    for r in records:
        for label, why in r["refused"].items():
            print(f"  {r['network']} {r['ranks']}: {label} did not apply: {why}")
    lines = verdicts(records)
    if lines:
        print("\n".join(lines))
    write_json(args.json, records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
