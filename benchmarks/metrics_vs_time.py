"""Which mapping metric predicts communication time?  (issue 15, validation study)

    python -m benchmarks.metrics_vs_time [--quick] [--network fluid|smpi] [--inputs torus|dragonfly] [--json PATH]

For every *input* (a task graph on an allocation, one message size) many mappings are
made -- the identity (default order), random permutations, several geometric candidates of
:func:`mpitaskmap.candidate_list`, ``greedy+uwh`` and ``umc`` -- and for each mapping the
library's metrics (WeightedHops, AverageHops, MaxHops, Latency(M) = ``latency``, MMC =
``max_messages``; :func:`mpitaskmap.metrics.evaluate`) and the simulated time of one
exchange step (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`: every edge one message, all
messages at once, SimGrid's max-min fluid model over the machine's links, 0.1 us per hop)
are computed.  Per input: the Spearman and Pearson correlation between simulated time and
each metric over the mappings, twice: over all mappings, and over the *sensible* mappings
only (random permutations left out; they are so much worse than the rest that any
hop-counting metric ranks them last, which inflates every correlation).  Per family of
inputs: the mean of the per-input correlations.  The script ends with its conclusion.

Inputs
------
Task graphs: the 3-D 7-point stencil (8^3 = 512 and 16^3 = 4096 tasks, unit weights) and an
irregular kNN graph (512 and 2048 random points in the unit cube, each joined to its 6
nearest, edge weights uniform in [0.5, 1.5]).  Allocations: a sparse Titan-like Cray XK7
(:func:`mpitaskmap.titan_machine`, 16 cores per node, Gemini link bandwidths, half the
machine busy) and a full 8 x 8 x 8 torus (1 GB/s links; one core per node for 512 tasks,
4 or 8 cores per node for 2048 / 4096).  Message sizes: 16 KiB per unit of weight
(bandwidth-bound), and 64 B (latency-bound) for the 512-task inputs on the full torus.
Mappings per input: the identity, random permutations (3 on the sparse Titan, 2 on the full
torus, at 512 tasks only: at 2048-4096 tasks a random placement's step is a simulation of
minutes, its messages contending on long routes), 6 geometric candidates evenly spread over
the list of orderings fz, hilbert and gray (4 at 2048-4096 tasks), ``greedy+uwh`` and
``umc`` (``umc`` left out on the full torus at 2048-4096 tasks).  A simulation that takes
more than :data:`SIMULATION_TIMEOUT` wall seconds is recorded as ``null`` and left out.
``--quick`` runs two tiny inputs (a 4 x 4 x 2 stencil and a 32-point kNN graph) in seconds.

``--inputs dragonfly`` (issue 31) runs the study on dragonflies instead: the 8^3 stencil and
the 512-point kNN graph on 64 nodes x 8 ranks of the ``sim:frontier`` (Slingshot) and
``sim:aries`` (Aries) presets, scattered over the whole machine and confined to 4 groups, each
input its own family (the objective check then compares predicted time with weighted hops
input by input); the replay's platform has the machines' minimal routes, as the objective.
With ``--quick``: a 4 x 4 x 2 stencil on a 9-group dragonfly.

Needs SimGrid (``apt-get install libsimgrid-dev``); without it the script says why and exits 0.

Result (full run, ``--network fluid``, 2 shared cores, 416 s; mean Spearman over the sensible
mappings): PredictedTime (``predicted_time`` with the simulation's message size, 100 ns per
hop and its overlap beyond 128 B, the search's default objective since issue 19) predicts
simulated time best overall (0.92; Latency(M) 0.89, MMC 0.75, AvgHops 0.69, WH 0.67, MaxHops
0.66) and is at least as good as weighted hops on every family (the script checks it): 1.00
against 0.59 for the stencil on the sparse Titan, 1.00 against 0.475 for kNN on the full
torus with bandwidth-bound messages, and 0.98 against 0.93 for kNN with 64-byte
(latency-bound) messages, where Latency(M) alone falls to 0.73 -- the hop-latency term of
PredTime is what keeps it there (at 16 KiB its overlap leaves almost only the link loads,
as Latency(M)).  On the sparse Titan every metric is weaker for kNN (PredTime 0.60, WH
0.33): there the step is often bounded by the link between the two nodes of one Gemini
router (the platform's per-router crossbar, 50 GB/s shared by both nodes), which no metric
counts (0 hops).  For regular stencils on a full torus all metrics agree (1.00).  Caveats: 5 to 12
mappings per input, so one input's Spearman is coarse; the kNN points are numbered at
random, so its identity is itself a random placement, and at 2048 tasks its simulation
exceeded the time limit (left out).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

from benchmarks.harness import print_table, write_json

import mpitaskmap
from mpitaskmap import Mapping, TaskGraph, candidate_list, metrics, titan_machine, torus_machine
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.scoring import apply
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.search.judge import JUDGE_CONFIG
from mpitaskmap.metrics import DEFAULT_HOP_LATENCY
from mpitaskmap.sim.fluid import CM02
from mpitaskmap.sim.simgrid_replay import simulate_exchange

#: Metrics compared with simulated time: name in mpitaskmap.metrics -> the paper's short name.
METRICS = {
    "weighted_hops": "WH",
    "average_hops": "AvgHops",
    "max_hops": "MaxHops",
    "latency": "Latency(M)",
    "max_messages": "MMC",
    "predicted_time": "PredTime",
}

#: The search's default objective (issue 19), compared with weighted hops family by family.
OBJECTIVE, BASELINE = "predicted_time", "weighted_hops"

#: Simulated latency of every network link (per hop), seconds: the library's message model's.
LINK_LATENCY = DEFAULT_HOP_LATENCY

#: Wall seconds after which one simulation is abandoned (recorded as None, left out).
SIMULATION_TIMEOUT = 150.0
#: ``--network``: SimGrid's network model of the replay.  ``fluid``: the plain max-min model
#: (CM02, no cross-traffic; the study's reference); ``smpi``: SMPI's model (its latency and
#: bandwidth factors per message size, cross-traffic on), the model of the judge, of
#: ``simulate_exchange`` by default and of an unmodified MPI application under SMPI
#: (``benchmarks/app_time_smpi.py``).
NETWORKS = {"fluid": CM02.simgrid_config, "smpi": JUDGE_CONFIG}


@dataclass(frozen=True)
class Input:
    """One task graph on one allocation with one message size."""

    family: str          # "stencil" or "knn"
    machine_kind: str    # "sparse-titan" or "full-torus"
    label: str
    graph: TaskGraph
    machine: object
    bytes_per_weight: float
    n_random: int = 3
    n_geometric: int = 6
    graph_mappers: tuple = ("greedy+uwh", "umc")

    @property
    def regime(self) -> str:
        return "latency-bound" if self.bytes_per_weight < 1024 else "bandwidth-bound"


def knn_graph(n: int, k: int = 6, seed: int = 0) -> TaskGraph:
    """Random points in the unit cube, each joined to its k nearest (symmetric), weights in [0.5, 1.5]."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    pts = rng.random((n, 3))
    _, nbr = cKDTree(pts).query(pts, k + 1)
    src = np.repeat(np.arange(n), k)
    dst = nbr[:, 1:].ravel()
    a, b = np.minimum(src, dst), np.maximum(src, dst)
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)
    w = rng.uniform(0.5, 1.5, len(pairs))
    return TaskGraph.from_edges(np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1], pairs[:, 0]]),
                                np.concatenate([w, w]), n_tasks=n, coords=pts)


def inputs(quick: bool) -> list[Input]:
    """The study's inputs (see the module notes)."""
    big, small = 16 * 1024.0, 64.0
    if quick:
        return [
            Input("stencil", "full-torus", "stencil 4x4x2 / torus 4x4x2", TaskGraph.stencil([4, 4, 2]),
                  torus_machine([4, 4, 2]), big, n_random=2, n_geometric=2),
            Input("knn", "sparse-titan", "knn 32 / titan 8 nodes x 4", knn_graph(32),
                  titan_machine(8, cores_per_node=4, seed=1), big, n_random=2, n_geometric=2),
        ]
    s512, s4096 = TaskGraph.stencil([8, 8, 8]), TaskGraph.stencil([16, 16, 16])
    k512, k2048 = knn_graph(512, seed=1), knn_graph(2048, seed=2)
    t32, t128, t256 = (titan_machine(n, cores_per_node=16, seed=1) for n in (32, 128, 256))
    full1, full4, full8 = (torus_machine([8, 8, 8], cores_per_node=c) for c in (1, 4, 8))
    return [
        Input("stencil", "sparse-titan", "stencil 8^3 / titan 32x16", s512, t32, big),
        Input("stencil", "full-torus", "stencil 8^3 / torus 8^3", s512, full1, big, n_random=2),
        Input("stencil", "full-torus", "stencil 8^3 / torus 8^3, 64 B", s512, full1, small),
        Input("stencil", "sparse-titan", "stencil 16^3 / titan 256x16", s4096, t256, big, n_random=0,
              n_geometric=4),
        Input("stencil", "full-torus", "stencil 16^3 / torus 8^3x8", s4096, full8, big, n_random=0, n_geometric=4,
              graph_mappers=("greedy+uwh",)),
        Input("knn", "sparse-titan", "knn 512 / titan 32x16", k512, t32, big),
        Input("knn", "full-torus", "knn 512 / torus 8^3", k512, full1, big, n_random=2),
        Input("knn", "full-torus", "knn 512 / torus 8^3, 64 B", k512, full1, small),
        Input("knn", "sparse-titan", "knn 2048 / titan 128x16", k2048, t128, big, n_random=0, n_geometric=4),
        Input("knn", "full-torus", "knn 2048 / torus 8^3x4", k2048, full4, big, n_random=0, n_geometric=4,
              graph_mappers=("greedy+uwh",)),
    ]


#: ``--inputs dragonfly``: (preset, allocation suffix of its ``sim:`` spec) of every machine.
DRAGONFLY_MACHINES = (("frontier", ""), ("frontier", ",groups=4"), ("aries", ""), ("aries", ",groups=4"))


def dragonfly_inputs(quick: bool) -> list[Input]:
    """The dragonfly inputs of ``--inputs dragonfly`` (module notes)."""
    from mpitaskmap.machines.dragonfly.presets import dragonfly_machine, dragonfly_preset

    big = 16 * 1024.0
    if quick:
        return [Input("stencil", "dragonfly 9 groups", "stencil 4x4x2 / dragonfly 9x4x2, 8 nodes x 4",
                      TaskGraph.stencil([4, 4, 2]), dragonfly_machine(nodes=8, ppn=4, seed=1), big,
                      n_random=2, n_geometric=2)]
    s512, k512 = TaskGraph.stencil([8, 8, 8]), knn_graph(512, seed=1)
    out = []
    for graph, name in ((s512, "stencil 8^3"), (k512, "knn 512")):
        for preset, alloc in DRAGONFLY_MACHINES:
            groups = 4 if alloc else None
            where = "confined to 4 groups" if alloc else "scattered"
            machine = dragonfly_preset(preset, nodes=64, ppn=8, seed=1, groups=groups)
            out.append(Input(name.split()[0], f"{preset} {where}", f"{name} / {preset} 64x8 {where}", graph, machine,
                             big))
    return out


def mappings(inp: Input, seed: int = 0) -> list[tuple[str, str, np.ndarray]]:
    """(label, kind, task_to_proc) of every mapping of an input; kind is identity/random/geometric/graph."""
    g, m = inp.graph, inp.machine
    out = [("identity", "identity", np.arange(g.n_tasks))]
    rng = np.random.default_rng(seed)
    for i in range(inp.n_random):
        out.append((f"random {i}", "random", rng.permutation(m.n_procs)[: g.n_tasks]))
    cands = candidate_list(g, m, orderings=["fz", "hilbert", "gray"])
    pick = np.unique(np.linspace(0, len(cands) - 1, inp.n_geometric).round().astype(int))
    problem = Problem(g, m)
    for i in pick:
        out.append((cands[i].label(), "geometric", apply(cands[i], problem).task_to_proc))
    for method in inp.graph_mappers:
        out.append((method, "graph", mpitaskmap.map(g, m, method).task_to_proc))
    return out


def correlations(times, values) -> tuple[float, float]:
    """(Spearman, Pearson) of two samples.

    NaN when there are fewer than 3 points or the times are all equal (nothing to predict);
    0 when the metric is constant while the times vary (it cannot rank them).
    """
    from scipy.stats import pearsonr, spearmanr

    t, v = np.asarray(times, float), np.asarray(values, float)
    if t.size < 3 or np.ptp(t) == 0:
        return float("nan"), float("nan")
    if np.ptp(v) == 0:
        return 0.0, 0.0
    return float(spearmanr(t, v)[0]), float(pearsonr(t, v)[0])


def study_input(inp: Input, *, timeout: float = SIMULATION_TIMEOUT, network: str = "fluid") -> dict:
    """Map, evaluate and simulate every mapping of one input; return its record.

    A simulation that takes longer than ``timeout`` wall seconds is recorded with
    ``simulated_s`` None and left out of the correlations.  ``network``: a key of
    :data:`NETWORKS`.
    """
    t0 = time.perf_counter()
    records = []
    for label, kind, ttp in mappings(inp):
        values = metrics.evaluate(inp.graph, inp.machine, ttp, [n for n in METRICS if n != OBJECTIVE])
        # the objective with the simulation's own message size and hop latency
        values[OBJECTIVE] = metrics.predicted_time(inp.graph, inp.machine, ttp,
                                                   bytes_per_weight=inp.bytes_per_weight, hop_latency=LINK_LATENCY)
        t1 = time.perf_counter()
        try:
            sim = simulate_exchange(Mapping(ttp, inp.machine, inp.graph), link_latency=LINK_LATENCY,
                                    bytes_per_weight=inp.bytes_per_weight, timeout=timeout,
                                    config=NETWORKS[network])
            seconds, messages = sim.seconds, sim.n_messages
        except subprocess.TimeoutExpired:
            seconds, messages = None, None
        records.append({"mapping": label, "kind": kind, "simulated_s": seconds, "messages": messages,
                        "simulate_wall_s": round(time.perf_counter() - t1, 2),
                        "metrics": {k: float(v) for k, v in values.items()}})
    corr = {}
    timed = [r for r in records if r["simulated_s"] is not None]
    for subset, keep in (("all", lambda r: True), ("no_random", lambda r: r["kind"] != "random")):
        rs = [r for r in timed if keep(r)]
        corr[subset] = {}
        for name in METRICS:
            sp, pe = correlations([r["simulated_s"] for r in rs], [r["metrics"][name] for r in rs])
            corr[subset][name] = {"spearman": sp, "pearson": pe, "n": len(rs)}
    return {"input": inp.label, "family": inp.family, "machine": inp.machine_kind, "regime": inp.regime,
            "tasks": inp.graph.n_tasks, "bytes_per_weight": inp.bytes_per_weight, "mappings": records,
            "correlations": corr, "seconds": round(time.perf_counter() - t0, 1)}


def family_key(rec: dict) -> str:
    """Family of inputs a record belongs to: graph kind, allocation kind, regime."""
    return f"{rec['family']} / {rec['machine']} / {rec['regime']}"


def summary(records: list[dict], subset: str) -> list[dict]:
    """Mean Spearman and Pearson per metric over the inputs of every family (and over all)."""
    groups: dict[str, list[dict]] = {}
    for rec in records:
        groups.setdefault(family_key(rec), []).append(rec)
    groups["ALL inputs"] = list(records)
    rows = []
    for key, recs in groups.items():
        row = {"family": key, "inputs": len(recs)}
        for name, short in METRICS.items():
            for kind, tag in (("spearman", "rho"), ("pearson", "r")):
                vals = [r["correlations"][subset][name][kind] for r in recs]
                vals = [v for v in vals if np.isfinite(v)]
                row[f"{short} {tag}"] = round(float(np.mean(vals)), 3) if vals else float("nan")
        rows.append(row)
    return rows


def best_metric(row: dict, tag: str = "rho") -> str:
    """Short name of the metric with the highest mean correlation in a summary row."""
    scores = {short: row[f"{short} {tag}"] for short in METRICS.values()}
    scores = {k: v for k, v in scores.items() if np.isfinite(v)}
    return max(scores, key=lambda k: (scores[k], -list(METRICS.values()).index(k))) if scores else "-"


def conclusion(records: list[dict]) -> str:
    """One paragraph: which metric predicts time best, overall and per family, with the numbers."""
    rows = {r["family"]: r for r in summary(records, "no_random")}
    overall = rows.pop("ALL inputs")
    best = best_metric(overall)
    parts = [f"Over the sensible mappings (random permutations left out), {best} predicts simulated time best "
             f"overall (mean Spearman {overall[best + ' rho']:.2f}; "
             + ", ".join(f"{s} {overall[s + ' rho']:.2f}" for s in METRICS.values() if s != best) + ")."]
    per = []
    for fam, r in rows.items():
        top = r[best_metric(r) + " rho"]
        tied = [s for s in METRICS.values() if np.isfinite(r[s + " rho"]) and r[s + " rho"] >= top - 0.005]
        per.append(f"{fam}: {' = '.join(tied)} ({top:.2f})")
    parts.append("Best per family (ties within 0.005 listed): " + "; ".join(per) + ".")
    allrows = {r["family"]: r for r in summary(records, "all")}["ALL inputs"]
    parts.append("With random permutations included the mean Spearman is "
                 + ", ".join(f"{s} {allrows[s + ' rho']:.2f}" for s in METRICS.values()) + ".")
    return " ".join(parts)


def objective_check(records: list[dict]) -> str:
    """Issue 19's check: the default objective's mean Spearman next to weighted hops', per family.

    Over the sensible mappings (random permutations left out); "at least as good" within
    0.005 (the rounding of the table).
    """
    short, base = METRICS[OBJECTIVE], METRICS[BASELINE]
    lines = [f"Default objective {short} vs {base} (mean Spearman, sensible mappings):"]
    ok = True
    for row in summary(records, "no_random"):
        a, b = row[f"{short} rho"], row[f"{base} rho"]
        good = not (np.isfinite(a) and np.isfinite(b)) or a >= b - 0.005
        ok &= good
        lines.append(f"  {row['family']:<40} {short} {a:6.3f}  {base} {b:6.3f}  {'ok' if good else 'WORSE'}")
    lines.append(f"target ({short} at least as good as {base} on every family): {'yes' if ok else 'NO'}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="two tiny inputs (a smoke test, seconds)")
    ap.add_argument("--json", metavar="PATH", help="write every mapping's metrics, time and the correlations")
    ap.add_argument("--inputs", choices=("torus", "dragonfly"), default="torus",
                    help="the study's inputs: tori (default; Titan and a full torus) or dragonflies (issue 31)")
    ap.add_argument("--network", choices=list(NETWORKS), default="fluid",
                    help="SimGrid network model of the replay (default fluid: CM02 without cross-traffic; smpi: "
                         "SMPI's model, as an MPI application under SMPI sees it)")
    args = ap.parse_args(argv)
    missing = simgrid_missing(compiler=True)
    if missing:
        print(f"skipped: {missing}")
        return 0
    t0 = time.perf_counter()
    records = []
    for inp in (dragonfly_inputs if args.inputs == "dragonfly" else inputs)(args.quick):
        rec = study_input(inp, network=args.network)
        records.append(rec)
        c = rec["correlations"]["no_random"]
        lost = sum(m["simulated_s"] is None for m in rec["mappings"])
        print(f"{rec['input']}: {len(rec['mappings'])} mappings ({lost} simulations timed out), {rec['seconds']} s; "
              "Spearman (no random) "
              + ", ".join(f"{METRICS[n]} {c[n]['spearman']:.2f}" for n in METRICS), flush=True)
    per_input = []
    for rec in records:
        for subset in ("all", "no_random"):
            row = {"input": rec["input"], "mappings": subset, "n": rec["correlations"][subset]["latency"]["n"]}
            for name, short in METRICS.items():
                cc = rec["correlations"][subset][name]
                row[short] = f"{cc['spearman']:.2f}/{cc['pearson']:.2f}"
            per_input.append(row)
    print("\nPer input: Spearman/Pearson of simulated step time with each metric")
    print_table(per_input, list(per_input[0]))
    for subset, title in (("all", "all mappings"), ("no_random", "sensible mappings (random left out)")):
        rows = summary(records, subset)
        print(f"\nMean over the inputs of each family, {title}: rho = Spearman, r = Pearson")
        print_table(rows, list(rows[0]))
    text = conclusion(records)
    print("\nConclusion: " + text)
    verdict = objective_check(records)
    print("\n" + verdict)
    elapsed = round(time.perf_counter() - t0, 1)
    print(f"\n{elapsed} s in all")
    write_json(args.json, records, link_latency=LINK_LATENCY, network=args.network, metrics=METRICS, conclusion=text,
               objective=verdict,
               summary={s: summary(records, s) for s in ("all", "no_random")}, seconds=elapsed,
               load_average=os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
