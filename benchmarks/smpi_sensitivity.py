"""How firmly SMPI's network model orders the best candidates of ``auto``: each correction switched off.

``benchmarks/app_time_smpi.py`` measures halo3d's time under SMPI for the candidates of the
default search.  Where the objective's pick (least predicted time) is not the fastest, this script
asks whether *any* static model could have known: it replays one exchange of each of the best
distinct candidates by the objective (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`, the
judge's replay, on the same platform as the app runs) under SimGrid's SMPI network model
and again with each of SMPI's corrections to the plain max-min model switched off in turn:

* ``bw-factor 1``: no bandwidth factor (SMPI scales every flow's consumption by its
  size's factor, 0.61 at 2560 B);
* ``lat-factor 1``: no latency factor (1.61 x the route latency at 2560 B);
* ``weight-S 0``: no RTT-weighted sharing (SMPI weights a flow's max-min share by
  ``1 / sum over its links of (latency + 8775 / bandwidth)``: long routes get less);
* ``crosstraffic 0``: no acknowledgement traffic (SMPI loads the reverse route at 0.05);
* ``fluid``: none of them (``mpitaskmap.sim.fluid.CM02.simgrid_config``, the metrics study's model).

When the order of the candidates flips with one switch, the order depends on a detail of the
flow dynamics (which flows share which links, when), not on anything a per-link aggregate
(load, route length) can see.  With ``--app-json`` (a ``--json`` of app_time_smpi.py for the
same case) the application's own times of the candidates are printed beside.

Run:  python -m benchmarks.smpi_sensitivity [--case 4096:16:1] [--top 3] [--app-json PATH] [--json PATH]
Needs SimGrid (``apt-get install libsimgrid-dev``).  One replay of a 4096-rank exchange takes
1-4 s here, so a 4096-rank case (the search, its re-scoring, 3 candidates x 6 models) takes
under a minute.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

import mpitaskmap
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.metrics import DEFAULT_MESSAGE_MODEL
from mpitaskmap.search.judge import JUDGE_CONFIG
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.scoring import score_candidates
from mpitaskmap.sim.fluid import CM02
from mpitaskmap.sim.simgrid import simgrid_missing
from mpitaskmap.sim.simgrid_replay import simulate_exchange

from benchmarks.harness.output import write_json
from benchmarks.harness.smpi import GRIDS  # halo3d's task grid per job size

#: Network models of the replays: label -> SimGrid settings (SMPI's, then one correction off each).
MODELS: dict[str, tuple[str, ...]] = {
    "SMPI": JUDGE_CONFIG,
    "bw-factor 1": JUDGE_CONFIG + ("smpi/bw-factor:0:1",),
    "lat-factor 1": JUDGE_CONFIG + ("smpi/lat-factor:0:1",),
    "weight-S 0": JUDGE_CONFIG + ("network/weight-S:0",),
    "crosstraffic 0": JUDGE_CONFIG + ("network/crosstraffic:0",),
    "fluid": CM02.simgrid_config,
}


def best_distinct(graph, machine, top: int) -> list[tuple[int, str, float, np.ndarray]]:
    """``(index, label, objective, task_to_proc)`` of the ``top`` best distinct candidates of ``auto``.

    Candidates are those of ``map(method="auto")`` (both stages), scored by the search's own
    loop and objective (:func:`mpitaskmap.search.scoring.score_candidates`), ties to the lower index;
    the first is the objective's pick (``auto``'s ``info["objective_winner"]``; the judge may
    keep another, or the default order).
    """
    cands = mpitaskmap.map(graph, machine, "auto").info["candidate_list"]
    mappings: dict[int, np.ndarray] = {}

    def keep(index, mapping, score, seconds):
        if mapping is not None:
            mappings[index] = np.asarray(mapping.task_to_proc)

    found = score_candidates(Problem(graph, machine), cands, keep=keep)
    out, seen = [], set()
    for score, i in sorted((s, i) for i, s in found.scores if i in mappings):
        key = mappings[i].tobytes()
        if key not in seen:
            seen.add(key)
            out.append((i, cands[i].label(), score, mappings[i]))
        if len(out) == top:
            break
    return out


def app_times(path: str | None, case: str) -> dict[int, float]:
    """The application's seconds per candidate index from an app_time_smpi.py ``--json`` ({} without)."""
    if not path:
        return {}
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    for c in data.get("candidates", []):
        if c["case"] == case:
            return {x["index"]: x["comm_s"] for x in c["candidates"] if x["comm_s"] is not None}
    return {}


def main(argv=None) -> int:
    """Replay the best candidates under every model of :data:`MODELS`; 1 when SimGrid is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", default="4096:16:1", help="RANKS:PPN:SEED (ranks in %s)" % sorted(GRIDS))
    ap.add_argument("--top", type=int, default=3, help="best distinct candidates by the objective (default 3)")
    ap.add_argument("--cells", type=int, default=8, help="cells per rank along each axis, as app_time_smpi.py")
    ap.add_argument("--vars", type=int, default=5, help="variables per cell, as app_time_smpi.py")
    ap.add_argument("--latency", type=float, default=DEFAULT_MESSAGE_MODEL.hop_latency,
                    help=f"seconds per link (default {DEFAULT_MESSAGE_MODEL.hop_latency:g}, the library's message model)")
    ap.add_argument("--loopback", type=float, default=400.0, help="node loopback, as app_time_smpi.py")
    ap.add_argument("--app-json", help="app_time_smpi.py --json of the same case: print the app's times")
    ap.add_argument("--json", help="write the replay times there")
    args = ap.parse_args(argv)
    try:
        n, ppn, seed = (int(v) for v in args.case.split(":"))
    except ValueError:
        ap.error(f"--case: expected RANKS:PPN:SEED (three integers); got {args.case!r}")
    if n not in GRIDS:
        ap.error(f"--case: ranks must be one of {sorted(GRIDS)}; got {n}")
    if args.top < 1:
        ap.error(f"--top: must be at least 1; got {args.top}")
    missing = simgrid_missing(compiler=True)
    if missing:
        print(f"smpi_sensitivity: {missing}", file=sys.stderr)
        return 1
    face = args.cells ** 2 * args.vars * 8
    machine = machine_from_spec(f"sim:titan:ppn={ppn},seed={seed}", n).machine
    graph = TaskGraph.stencil(GRIDS[n], weight=float(face))
    best = best_distinct(graph, machine, args.top)
    app = app_times(args.app_json, f"n{n}_ppn{ppn}_seed{seed}")
    print(f"halo3d {GRIDS[n]} tasks, {face}-B faces, simulated Titan ppn {ppn} seed {seed}; "
          f"one exchange replayed per model; ratio = candidate / the objective's pick (#1)")
    for rank, (i, label, score, _) in enumerate(best, 1):
        extra = f"  app {app[i]:.4e} s" if i in app else ""
        print(f"  #{rank} candidate {i}: {label}  (predicted {score:.4e} s){extra}")
    if app and all(i in app for i, *_ in best):
        print(f"  {'app':<16}" + "".join(f"  #{r} {app[i] / app[best[0][0]]:.3f}" for r, (i, *_) in
                                                    enumerate(best, 1)))
    records = []
    for name, config in MODELS.items():
        t0 = time.perf_counter()
        secs = [simulate_exchange(mpitaskmap.Mapping(t2p, machine, graph), link_latency=args.latency,
                                  bytes_per_weight=DEFAULT_MESSAGE_MODEL.bytes_per_weight,
                                  loopback=(args.loopback, 1e-7), config=config).seconds
                for _, _, _, t2p in best]
        fastest = min(range(len(secs)), key=lambda k: (secs[k], k)) + 1
        print(f"  {name:<16}" + "".join(f"  #{r} {s / secs[0]:.3f}" for r, s in enumerate(secs, 1))
              + f"   fastest #{fastest}   ({time.perf_counter() - t0:.0f} s)", flush=True)
        records.append(dict(model=name, config=list(config), seconds=secs, indices=[i for i, *_ in best]))
        write_json(args.json, records, case=args.case, labels=[label for _, label, _, _ in best])
    return 0


if __name__ == "__main__":
    sys.exit(main())
