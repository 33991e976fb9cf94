"""Speed of the SimGrid replay (issue 15): one step of a 4,096-task 7-point stencil on a
24 x 24 x 24 torus.

    python -m benchmarks.simulate_speed [--repeat N] [--json PATH]

Two placements of the 16 x 16 x 16 task grid (one task per node, 16 KiB per message,
1 GB/s links, 1 us per hop): ``subcube`` (task (x, y, z) on router (x, y, z): every message
one hop, no link shared) and ``router-order`` (task t on router t: rows of 16 tasks on rows
of 24 routers, long contended routes).  Per placement: seconds to write the platform
(``platform_xml``, Python), wall seconds of the whole ``simulate_exchange`` call (platform,
SimGrid parsing it, the simulation), the CPU seconds of the SimGrid process, and the
simulated step time.  Needs SimGrid (``apt-get install libsimgrid-dev``); the replay
program is built before timing starts.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

from benchmarks.harness import print_table, write_json

from mpitaskmap import Mapping, TaskGraph, torus_machine
from mpitaskmap.sim.simgrid import platform_xml, simgrid_missing
from mpitaskmap.sim.fluid import exchange_messages
from mpitaskmap.sim.simgrid_replay import replay_program, simulate_exchange

BYTES = 16 * 1024


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=1, help="runs per placement (the median is reported)")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    missing = simgrid_missing(compiler=True)
    if missing:
        print(f"skipped: {missing}")
        return 0
    replay_program()
    machine = torus_machine([24, 24, 24])
    graph = TaskGraph.stencil([16, 16, 16])
    x, y, z = np.indices((16, 16, 16))[::-1].reshape(3, -1)  # task id x fastest
    placements = {"subcube": x + 24 * (y + 24 * z), "router-order": np.arange(4096)}
    rows = []
    for label, ttp in placements.items():
        mapping = Mapping(ttp, machine, graph)
        src, dst, _ = exchange_messages(graph, machine, mapping.task_to_proc, 1.0)
        pairs = np.unique(np.stack([src, dst], axis=1), axis=0)
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            platform_xml(machine, link_latency=1e-6, node_pairs=pairs, form="explicit")
            t_xml = time.perf_counter() - t0
            cpu0 = _child_cpu()
            t0 = time.perf_counter()
            sim = simulate_exchange(mapping, link_latency=1e-6, bytes_per_weight=BYTES)
            runs.append((time.perf_counter() - t0, t_xml, _child_cpu() - cpu0, sim))
        runs.sort(key=lambda r: r[0])
        wall, t_xml, cpu, sim = runs[len(runs) // 2]
        rows.append({
            "placement": label, "messages": sim.n_messages, "links_used": len(sim.link_names),
            "platform_s": round(t_xml, 2), "simulate_wall_s": round(wall, 2), "simgrid_cpu_s": round(cpu, 2),
            "simulated_step_s": sim.seconds, "max_link_util": round(float(sim.link_utilisation.max()), 3),
        })
    print_table(rows, list(rows[0]))
    write_json(args.json, rows, load_average=os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
