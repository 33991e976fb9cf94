"""Speed and memory of the MJ partitioner (mpitaskmap.mappers.geometric.mj.mj_partition).

One *mapping* = partition the task coordinates of a 3-D grid (tasks numbered x fastest,
as in MiniGhost) with ``ordering="fz"``, partition the router coordinates of a 3-D
torus of the same shape (all routers, one processor each, C order) with ``"fz"``, then
``task_to_proc = proc_of_part[task_part]``.  Sizes 2**14 .. 2**20 (128 x 128 x 64).

Prints (median of 5 ``perf_counter`` runs, setup untimed, fixed seeds):

* the growth table with ``time / (n log2 n)`` and the targets (2**20 <= 1.0 s,
  2**18 <= 0.25 s per mapping, one core);
* peak extra memory of one ``mj_partition`` call (tracemalloc: NumPy buffers and the
  kernel's work array are all NumPy allocations) in bytes per point per dimension,
  with and without the returned part array (target <= 10);
* a pure-NumPy baseline in the same run: the same recursive bisection done level by
  level with a full ``np.lexsort`` at every level, its agreement with the kernel
  (bit-identical parts) and the speed ratio;
* one MJ candidate as the search layer runs it (``map_geometric``, FZ, default options,
  128 x 128 x 64 stencil onto the full torus of that shape; the largest size of the run),
  its target (0.3 s), the ratio to the NumPy baseline mapping and the load average.
  The stencil's task coordinates equal the torus's router coordinates row for row, so the
  candidate partitions once and shares the parts; the same candidate with the task rows
  reversed (nothing shared: two partitions, the same work as any other row order) is
  timed too.

Usage: ``python -m benchmarks.mj_speed [--quick] [--json PATH]``.  Not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: no idle BLAS threads spinning

import numpy as np  # noqa: E402

from mpitaskmap import TaskGraph, map_geometric, torus_machine  # noqa: E402
from mpitaskmap.mappers.geometric.mj import mj_part_sizes, mj_partition  # noqa: E402

from benchmarks import harness  # noqa: E402

SHAPES = {
    14: (32, 32, 16),
    15: (32, 32, 32),
    16: (64, 32, 32),
    17: (64, 64, 32),
    18: (64, 64, 64),
    19: (128, 64, 64),
    20: (128, 128, 64),
}
TARGETS = {18: 0.25, 20: 1.0}
CANDIDATE_TARGET = 0.3  # s, one map_geometric candidate at 2**20 tasks (issue 13)
REPEATS = 5


# ----------------------------------------------------------------------------- setup
def task_coords(shape) -> np.ndarray:
    """Task grid coordinates, task id = x + X * (y + Y * z) (x fastest)."""
    z, y, x = np.meshgrid(*(np.arange(s) for s in shape[::-1]), indexing="ij")
    return np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(np.float64)


def torus_coords(shape) -> np.ndarray:
    """Router coordinates of a full torus, router id in C order (z fastest)."""
    g = np.meshgrid(*(np.arange(s) for s in shape), indexing="ij")
    return np.stack([a.ravel() for a in g], axis=1).astype(np.float64)


# ------------------------------------------------------------------------- the mapping
def map_fz(tcoords: np.ndarray, pcoords: np.ndarray, partition=mj_partition) -> np.ndarray:
    n = len(pcoords)
    task_part = partition(tcoords, n, ordering="fz")
    proc_part = partition(pcoords, n, ordering="fz")
    proc_of_part = np.empty(n, dtype=np.intp)
    proc_of_part[proc_part] = np.arange(n)
    return proc_of_part[task_part]


# ----------------------------------------------------------------- NumPy baseline
def _left_parts(p: np.ndarray) -> np.ndarray:
    return p // 2


def numpy_mj(coords: np.ndarray, n_parts: int, ordering: str = "fz") -> np.ndarray:
    """Same rules as mj_partition (bisection, longest dimension, z/fz/mfz/gray) with a
    full lexsort of all points by (node, signed key, index) at every tree level."""
    n, d = coords.shape
    idx = np.arange(n)
    base = np.zeros(n, dtype=np.int64)  # first part id of the point's node
    nparts = np.full(n, n_parts, dtype=np.int64)  # parts of the point's node
    sign = np.ones((n, d))
    order = idx.copy()  # points grouped by node
    while True:
        active = nparts[order] > 1
        if not active.any():
            break
        b = base[order]
        starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
        sizes = np.diff(np.r_[starts, n])
        c_sorted = coords[order]
        ext = np.maximum.reduceat(c_sorted, starts, axis=0) - np.minimum.reduceat(c_sorted, starts, axis=0)
        cut_node = np.argmax(ext, axis=1)  # first maximum: lowest dimension
        node_of = np.repeat(np.arange(len(starts)), sizes)
        cut = cut_node[node_of]  # per sorted position
        key = sign[order, cut] * c_sorted[np.arange(n), cut] + 0.0
        perm = np.lexsort((order, key, b))
        order = order[perm]
        cut = cut[perm]  # nodes stay in place: node_of is unchanged by the sort
        rank = np.arange(n) - np.repeat(starts, sizes)
        p = nparts[order]
        npl = _left_parts(p)
        nn = np.repeat(sizes, sizes)
        n_left = (nn // p) * npl + (2 * (nn % p) * npl + p) // (2 * p)
        go_right = (rank >= n_left) & (p > 1)
        go_left = (rank < n_left) & (p > 1)
        pts_r = order[go_right]
        pts_l = order[go_left]
        if ordering == "fz":
            sign[pts_r, cut[go_right]] *= -1
        elif ordering == "mfz":
            sign[pts_l, cut[go_left]] *= -1
        elif ordering == "gray":
            sign[pts_r] *= -1
        base[pts_r] += npl[go_right]
        nparts[pts_r] = (p - npl)[go_right]
        nparts[pts_l] = npl[go_left]
        order = order[np.lexsort((order, base[order]))]  # regroup by node
    return base.astype(np.intp)


# ----------------------------------------------------------------------------- timing
def median_time(fn, repeats=REPEATS) -> float:
    return harness.median_time(fn, repeats)[0]


def peak_memory(fn) -> int:
    return harness.peak_memory(fn)[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 2**14..2**16 only, baseline at 2**14")
    ap.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    ap.add_argument("--no-zoltan2", action="store_true", help="skip the comparison with Zoltan2's task mapper")
    args = ap.parse_args(argv)

    exps = list(range(14, 17)) if args.quick else list(range(14, 21))
    base_exps = [14] if args.quick else [14, 16, 18]
    results = {"growth": [], "memory": {}, "baseline": []}

    print("MJ mapping speed: fz tasks (x-fastest grid) + fz processors (torus routers), one core")
    print(f"median of {REPEATS} runs; time per mapping includes both partitions and the compose\n")
    hdr = f"{'n':>9} {'shape':>14} {'partition s':>12} {'mapping s':>10} {'ns/(n log2 n)':>14} {'target s':>9} {'ok':>3}"
    print(hdr)
    print("-" * len(hdr))
    for e in exps:
        shape = SHAPES[e]
        n = 2**e
        tc, pc = task_coords(shape), torus_coords(shape)
        t_part = median_time(lambda: mj_partition(tc, n, ordering="fz"))
        t_map = median_time(lambda: map_fz(tc, pc))
        per = t_map / (n * math.log2(n)) * 1e9
        target = TARGETS.get(e)
        ok = "" if target is None else ("yes" if t_map <= target else "NO")
        print(f"{n:>9} {'x'.join(map(str, shape)):>14} {t_part:>12.4f} {t_map:>10.4f} {per:>14.2f} "
              f"{'' if target is None else target:>9} {ok:>3}")
        results["growth"].append(dict(n=n, shape=shape, partition_s=t_part, mapping_s=t_map,
                                      ns_per_nlog2n=per, target_s=target))
        # sanity: the mapping is a permutation and the part sizes are as promised
        m = map_fz(tc, pc)
        assert np.array_equal(np.sort(m), np.arange(n))
        assert (mj_part_sizes(n, n) == 1).all()

    e = exps[-1]
    n, d = 2**e, 3
    tc = task_coords(SHAPES[e])
    extra = peak_memory(lambda: mj_partition(tc, n, ordering="fz"))
    out_bytes = n * np.dtype(np.intp).itemsize
    per_all = extra / (n * d)
    per_work = (extra - out_bytes) / (n * d)
    print(f"\npeak extra memory of one mj_partition call, n = {n}, d = {d} (tracemalloc):")
    print(f"  {extra / 2**20:.1f} MiB = {per_all:.2f} B/point/dim including the returned parts, "
          f"{per_work:.2f} B/point/dim work only (target <= 10)")
    results["memory"] = dict(n=n, d=d, peak_extra_bytes=extra, bytes_per_point_dim=per_all,
                             work_bytes_per_point_dim=per_work)

    print("\npure-NumPy baseline (full lexsort at every level) vs compiled kernel, one fz partition:")
    hdr = f"{'n':>9} {'numpy s':>9} {'kernel s':>9} {'speed-up':>9} {'identical':>10}"
    print(hdr)
    print("-" * len(hdr))
    for e in base_exps:
        n = 2**e
        tc = task_coords(SHAPES[e])
        ref = numpy_mj(tc, n, "fz")
        same = bool(np.array_equal(ref, mj_partition(tc, n, ordering="fz")))
        reps = 1 if e >= 18 else 3
        t_np = median_time(lambda: numpy_mj(tc, n, "fz"), reps)
        t_k = median_time(lambda: mj_partition(tc, n, ordering="fz"))
        print(f"{n:>9} {t_np:>9.3f} {t_k:>9.4f} {t_np / t_k:>8.1f}x {'yes' if same else 'NO':>10}")
        results["baseline"].append(dict(n=n, numpy_s=t_np, numpy_repeats=reps, kernel_s=t_k,
                                        speedup=t_np / t_k, identical=same))

    # one MJ candidate as the search layer runs it (issue 13, part 4): map_geometric on the
    # 1M-task stencil onto the full torus, FZ, default options (torus shift, longest dim)
    e = exps[-1]
    shape = SHAPES[e]
    n = 2**e
    graph = TaskGraph.stencil(list(shape))
    machine = torus_machine(list(shape))
    t_cand = median_time(lambda: map_geometric(graph, machine))
    cpu = []  # process CPU time: what one core gives when other processes share the machine
    for _ in range(REPEATS):
        c0 = time.process_time()
        map_geometric(graph, machine)
        cpu.append(time.process_time() - c0)
    t_cpu = float(np.median(cpu))
    reversed_rows = np.ascontiguousarray(graph.coords[::-1])  # same points, nothing shared
    t_two = median_time(lambda: map_geometric(graph, machine, task_coords=reversed_rows))
    cpu_two = []
    for _ in range(REPEATS):
        c0 = time.process_time()
        map_geometric(graph, machine, task_coords=reversed_rows)
        cpu_two.append(time.process_time() - c0)
    t_cpu_two = float(np.median(cpu_two))
    cand = map_geometric(graph, machine)
    assert cand.is_permutation
    tc, pc = task_coords(shape), torus_coords(shape)
    reps = 1 if e >= 18 else 3
    t_np_map = median_time(lambda: map_fz(tc, pc, partition=lambda c, k, ordering: numpy_mj(c, k, ordering)), reps)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"\none MJ candidate (map_geometric, FZ, default options), {'x'.join(map(str, shape))} stencil "
          f"onto the full torus, n = {n}:")
    print(f"  wall {t_cand:.3f} s, CPU {t_cpu:.3f} s (medians of {REPEATS}); target {CANDIDATE_TARGET} s: "
          f"wall {'met' if t_cand <= CANDIDATE_TARGET else 'NOT met'}, CPU "
          f"{'met' if t_cpu <= CANDIDATE_TARGET else 'NOT met'}; NumPy baseline mapping "
          f"{t_np_map:.2f} s wall ({reps} run): {t_np_map / t_cand:.0f}x the candidate's wall time; "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores "
          f"(wall times are inflated when the load exceeds the core count)")
    print(f"  the same candidate with both partitions (task rows reversed: nothing shared): wall {t_two:.3f} s, "
          f"CPU {t_cpu_two:.3f} s; target {CANDIDATE_TARGET} s: wall {'met' if t_two <= CANDIDATE_TARGET else 'NOT met'}, "
          f"CPU {'met' if t_cpu_two <= CANDIDATE_TARGET else 'NOT met'}; NumPy baseline {t_np_map / t_two:.0f}x its wall time")
    results["candidate"] = dict(n=n, shape=shape, seconds=t_cand, cpu_seconds=t_cpu, target_s=CANDIDATE_TARGET,
                                numpy_mapping_s=t_np_map, ratio=t_np_map / t_cand, loadavg=list(load),
                                two_partitions_seconds=t_two, two_partitions_cpu_seconds=t_cpu_two,
                                two_partitions_ratio=t_np_map / t_two)

    if not args.no_zoltan2:
        from benchmarks.harness.peers import ANCHOR_COLUMNS, ANCHOR_SHAPES, zoltan2_anchor_rows

        print("\nthe anchor, same inputs: Zoltan2's MJ task mapper (optional peer, benchmarks/peers)")
        shapes = ANCHOR_SHAPES[:2] if args.quick else ANCHOR_SHAPES
        rows = zoltan2_anchor_rows(shapes, repeat=3)
        if rows:
            harness.print_table(rows, ANCHOR_COLUMNS)
        results["zoltan2"] = rows

    if args.json:
        import Cython

        results["versions"] = dict(python=sys.version.split()[0], numpy=np.__version__, cython=Cython.__version__)
        results["machine"] = dict(platform=platform.platform(), processor=platform.processor(),
                                  cpu_count=os.cpu_count())
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
