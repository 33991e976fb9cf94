"""Overhead of the in-job candidate search (issue: remap).

Run under MPI, e.g. (2 cores, oversubscribed):

    mpiexec -n 36 python -m mpi4py -m benchmarks.remap_overhead
    mpiexec -n 16 python -m mpi4py -m benchmarks.remap_overhead

1. Work split: 36 candidates (the 6 x 6 task/processor rotation pairs of FZ) for a 4,096-task
   3-D stencil on a simulated Titan-like allocation (256 nodes x 16 cores).  Rank 0 first
   evaluates all 36 alone (the serial baseline, CPU seconds), then every rank evaluates
   its share with ``search_candidates``; per-rank CPU seconds and candidate counts are
   compared.  CPU time (``time.process_time``), not wall time, because this machine has 2
   cores: wall time of 36 oversubscribed ranks measures the scheduler.
2. ``remap()`` end to end at this job size (one task per rank): seconds per phase.
3. ``search_candidates`` on the 4,096-task problem with the full candidate list: seconds
   per phase.  Collectives: remap makes 5 (bcast, allgather, allgather, Bcast, Split)
   whatever the list length (tests/runtime/test_remapping.py checks it).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from mpi4py import MPI

from benchmarks.harness import write_json

from mpitaskmap import TaskGraph, best_of, candidate_list, remap, titan_machine
from mpitaskmap.search.families.geometric import candidate, rotations
from mpitaskmap.runtime.mpi_search import search_candidates


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    machine = titan_machine(256, cores_per_node=16, seed=1)
    graph = TaskGraph.stencil([16, 16, 16])
    rots = rotations(3)
    cands36 = [candidate("fz", task_perm=t, proc_perm=p) for t in rots for p in rots]
    out = {}

    # 1. serial baseline on rank 0, then the split
    if rank == 0:
        c0 = time.process_time()
        serial = best_of(graph, machine, cands36)
        out["serial_cpu"] = time.process_time() - c0
        out["serial_score"] = serial.score
    comm.Barrier()
    res = search_candidates(comm, graph, machine, cands36)
    cpu = res.seconds["map_cpu"]
    out.update(per_rank_cpu_max=max(cpu), per_rank_cpu_mean=float(np.mean(cpu)),
               candidates_per_rank_max=max(res.candidates_per_rank), parallel_score=res.score)

    # 2. remap end to end at this size
    dims = MPI.Compute_dims(size, 3)
    me = (rank % dims[0], (rank // dims[0]) % dims[1], rank // (dims[0] * dims[1]))
    new, rep = remap(comm, me, provider="sim:titan:ppn=1,seed=1", report=True)
    new.Free()
    out["remap"] = dict(rep.seconds, n_candidates=rep.n_candidates)

    # 3. the full list on the 4,096-task problem
    full = candidate_list(graph, machine, include_identity=True)
    t0 = MPI.Wtime()
    res_full = search_candidates(comm, graph, machine, full)
    out["search4096"] = {"n_candidates": len(full), "map_max": res_full.seconds["map_max"],
                         "bcast": res_full.seconds["bcast"], "total": MPI.Wtime() - t0,
                         "per_rank_cpu_max": max(res_full.seconds["map_cpu"]),
                         "winner": full[res_full.index].label(), "score": res_full.score,
                         "default": res_full.scores[0]}
    if rank == 0:
        print(f"remap overhead: {size} ranks on {os.cpu_count()} cores (oversubscribed when more ranks)")
        print("1. 36 candidates, 4,096-task stencil on titan-like 256 nodes x 16 cores")
        print(f"   all 36 on one rank:        {out['serial_cpu']:.3f} CPU s")
        print(f"   spread over {size} ranks:     max {out['per_rank_cpu_max']:.3f} CPU s per rank "
              f"(mean {out['per_rank_cpu_mean']:.3f}), at most {out['candidates_per_rank_max']} candidates per rank")
        print(f"   reduction: {out['serial_cpu'] / out['per_rank_cpu_max']:.1f}x by CPU time "
              f"(ideal {min(size, 36)}x; count-based {36 / out['candidates_per_rank_max']:.1f}x); "
              f"same winner score: {out['serial_score'] == out['parallel_score']}")
        r = out["remap"]
        print(f"2. remap() with {size} tasks, {r['n_candidates']} candidates: "
              + ", ".join(f"{k} {v:.3f} s" for k, v in r.items() if k != "n_candidates"))
        s = out["search4096"]
        print(f"3. search_candidates, 4,096 tasks, {s['n_candidates']} candidates: map_max {s['map_max']:.3f} s, "
              f"bcast {s['bcast']:.4f} s, total {s['total']:.3f} s, per-rank CPU max {s['per_rank_cpu_max']:.3f} s; "
              f"weighted hops {s['default']:.0f} (default) -> {s['score']:.0f} ({s['winner']})")
        print("   collectives per remap(): 5 (bcast, allgather, allgather, Bcast, Split), independent of the list")
        write_json(args.json, [out], benchmark="remap_overhead", ranks=size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
