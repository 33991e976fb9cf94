"""Graph mappers (UMPa, ALGORITHMS.md section 3) side by side with the geometric mapper and the peers.

One run, the same inputs for every method.  Per input a table of TH (total hops), WH
(weighted hops), MC (Latency(M) = max over links of Data(e)/bw(e)), MMC (max messages on
a link), AMC (average messages over used links) and the mapping seconds of:

* ``default``            task i on processor i (identity);
* ``geometric``          ``map_geometric`` (MJ, FZ, longest/longest, torus shift: one candidate);
* ``UG``                 ``map_greedy`` (greedy growth; two-phase when tasks > nodes);
* ``UWH``                ``refine_wh`` of the UG result;
* ``UMC`` / ``UMMC``     ``refine_congestion(objective="latency" | "max_messages")`` of the UWH result;
* ``geometric+UWH``      ``refine_wh`` of the geometric result;
* ``best candidate``     ``best_of(graph, machine, candidate_list(graph, machine, families=["geometric", "graph"],
  rotate=False, include_identity=True))`` by WH (inputs without coordinates: identity +
  the greedy candidate only, since geometric candidates need coordinates);
* peers (optional, ``bash benchmarks/peers/install_peers.sh``): Zoltan2's MJ task mapper
  (one MPI rank = its one longest/longest candidate, torus extent given so its wrap shift
  is on, ``ranks_per_node=1`` as in ``zoltan2_compare.py``; needs task coordinates), Scotch
  static mapping (seed 0, one thread, deterministic context, default strategy,
  ``repair=True``: tasks Scotch puts beyond a router's capacity - i.e. sharing a core -
  are moved to the nearest router with a free core; the count is reported), and KaHIP,
  reported as "n/a (no torus model)": its process mapping models hierarchies only and with
  n == k it puts 1024-1400 of 4096 tasks on one PE (``shared/reference/peers.md``).

Seconds: our rows are wall time from scratch (UWH = UG + its refinement; UMC/UMMC =
UG + UWH + the congestion pass; "best candidate" = the whole search including the
evaluation of every candidate); Zoltan2 = its mapping call alone, timed inside its driver
(process start-up and file I/O excluded); Scotch = its graph/architecture build and
``SCOTCH_graphMap``.  One run per row (``--repeat`` for a median); the machine has 2
cores shared with other engineers, so the load average is printed with the timings.

Inputs (seeded; every one maps one task per core):

1. 3-D 7-point stencil 32^3 tasks on the full 32^3 torus (1 core per node).
2. The same stencil on a sparse Titan-like allocation (``titan_machine(2048, 16)``).
3. rgg: 2^15 points uniform in the unit square, edges within radius sqrt(10/(pi n))
   (average degree ~10); partitioned into 4096 parts of 8 points with ``partition_graph``
   (equal sizes); task graph = the quotient (volume = cut edges between the parts, both
   directions), coordinates = the parts' centroids.
4. 2-D Laplacian 512x512 (5-point) and 5. 3-D Laplacian 64^3 (7-point), each under a
   seeded random symmetric permutation P A P^T; rows split into 4096 contiguous blocks of
   64; task graph = ``spmv_task_graph`` (column-net volumes).  Coordinates attached =
   the centroid of the original grid points of each block's rows, so that the geometric
   mapper and Zoltan2 can run.  Note: after a random permutation a block's rows are
   scattered over the whole grid, so these centroids all lie near the grid's centre and
   carry almost no locality; the task graph is close to a random graph of degree ~250
   (2-D) / ~370 (3-D).  That is the input as specified; it is hard for every mapper.
6. Scale-free: Barabasi-Albert, 2^17 vertices, 4 edges per new vertex, partitioned into
   4096 parts of 32 with ``partition_graph``; no coordinates (geometric, geometric+UWH
   and Zoltan2 are n/a).

Inputs 3-6 map onto 4096 processors of ``titan_machine(256, cores_per_node=16)``.  The
partitioner is ``partition_graph``'s "auto" choice (the library's recursive bisection on
every install; METIS only when asked for); the one used is printed.

Speed section: UG / UWH / UMC on 3-D stencils of 4K .. 64K tasks onto sparse Titan-like
allocations with 16 cores per node (median of 3); targets at 32,768 tasks: UG <= 2 s,
UWH <= 5 s, UMC <= 20 s.

Run:  python -m benchmarks.graph_mappers [--quick] [--json PATH] [--no-peers] [--repeat N]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from benchmarks.harness import median_time, print_table, write_json  # noqa: E402

from mpitaskmap import (  # noqa: E402
    TaskGraph, best_of, candidate_list, identity_mapping, map_geometric, map_greedy, refine_congestion,
    refine_wh, titan_machine, torus_machine,
)
from mpitaskmap.mappers.graph.greedy import partition_graph, spmv_task_graph  # noqa: E402
from mpitaskmap.metrics import evaluate  # noqa: E402

METRIC_NAMES = ["total_hops", "weighted_hops", "latency", "max_messages", "average_messages"]
SHORT = {"total_hops": "TH", "weighted_hops": "WH", "latency": "MC", "max_messages": "MMC",
         "average_messages": "AMC"}
OURS = ["default", "geometric", "UG", "UWH", "UMC", "UMMC", "geometric+UWH", "best candidate"]
PEERS = ["Zoltan2 MJ", "Scotch", "KaHIP"]
SPEED_TARGETS = {"UG": 2.0, "UWH": 5.0, "UMC": 20.0}
SPEED_TARGET_TASKS = 32768
SEED = 1


def loadavg() -> str:
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


# ----------------------------------------------------------------------------- inputs
class Input:
    """One benchmark input: a task graph, a machine and a description."""

    def __init__(self, name, graph, machine, note="", partitioner=None, build_seconds=0.0):
        self.name, self.graph, self.machine = name, graph, machine
        self.note, self.partitioner, self.build_seconds = note, partitioner, build_seconds

    @property
    def has_coords(self) -> bool:
        return self.graph.coords is not None

    def describe(self) -> dict:
        return {"input": self.name, "tasks": int(self.graph.n_tasks), "edges": int(self.graph.n_edges),
                "procs": int(self.machine.n_procs), "nodes": self.machine.n_nodes,
                "torus": "x".join(map(str, self.machine.dims)), "coords": self.has_coords,
                "partitioner": self.partitioner, "build_seconds": round(self.build_seconds, 3), "note": self.note}


def sparse_titan(n_nodes: int):
    return titan_machine(n_nodes, cores_per_node=16, seed=SEED)


def _symmetric_edges(src, dst):
    """Both directions of undirected edges (src, dst) as one directed edge list."""
    return np.concatenate([src, dst]), np.concatenate([dst, src])


def quotient_graph(n_parts, src, dst, weights, parts, coords=None) -> TaskGraph:
    """Quotient of a directed edge list under ``parts``: volume p->q = weight of the cut
    edges from p to q; coordinates = part centroids of ``coords`` (when given)."""
    ps, pd = parts[src], parts[dst]
    keep = ps != pd
    cent = None
    if coords is not None:
        cnt = np.bincount(parts, minlength=n_parts).astype(float)
        cent = np.stack([np.bincount(parts, weights=coords[:, d], minlength=n_parts) / np.maximum(cnt, 1)
                         for d in range(coords.shape[1])], axis=1)
    return TaskGraph.from_edges(ps[keep], pd[keep], weights[keep], n_tasks=n_parts, coords=cent)


def partition_equal(graph: TaskGraph, k: int):
    sizes = np.full(k, graph.n_tasks // k, dtype=np.int64)
    sizes[: graph.n_tasks - int(sizes.sum())] += 1
    return partition_graph(graph, sizes, return_method=True)


def rgg_input(log_n: int, k: int, machine, seed: int = SEED) -> Input:
    """Random geometric graph in the unit square, average degree ~10, partitioned into k."""
    from scipy.spatial import cKDTree

    t0 = time.perf_counter()
    n = 2 ** log_n
    rng = np.random.default_rng(seed)
    pts = rng.random((n, 2))
    radius = math.sqrt(10.0 / (math.pi * n))
    pairs = cKDTree(pts).query_pairs(radius, output_type="ndarray")
    src, dst = _symmetric_edges(pairs[:, 0], pairs[:, 1])
    g = TaskGraph.from_edges(src, dst, n_tasks=n)
    parts, used = partition_equal(g, k)
    q = quotient_graph(k, g.sources(), g.indices, g.weights, parts, coords=pts)
    avg_deg = 2 * pairs.shape[0] / n
    return Input(f"rgg 2^{log_n} -> {k} parts", q, machine,
                 note=f"radius {radius:.5f}, avg degree {avg_deg:.2f}; coords = part centroids",
                 partitioner=used, build_seconds=time.perf_counter() - t0)


def laplacian(shape):
    """5-point (2-D) or 7-point (3-D) Laplacian pattern on a grid, x fastest; grid coords."""
    import scipy.sparse as sp

    d = len(shape)
    eyes = [sp.identity(s, format="csr") for s in shape]
    a = None
    for k in range(d):
        lap1 = sp.diags([np.ones(shape[k] - 1), -2 * np.ones(shape[k]), np.ones(shape[k] - 1)], [-1, 0, 1])
        term = None
        for j in range(d):  # kron with x fastest: last factor = dimension 0
            m = lap1 if j == k else eyes[j]
            term = m if term is None else sp.kron(m, term, format="csr")
        a = term if a is None else a + term
    grid = np.indices(shape[::-1]).reshape(d, -1)[::-1].T.astype(np.float64)
    return a.tocsr(), grid


def laplacian_input(shape, k: int, machine, seed: int = SEED) -> Input:
    """Laplacian under a random symmetric permutation, rows in k contiguous blocks."""
    t0 = time.perf_counter()
    a, grid = laplacian(shape)
    n = a.shape[0]
    perm = np.random.default_rng(seed).permutation(n)
    ap = a[perm][:, perm].tocsr()           # row i of P A P^T = original row perm[i]
    row_parts = np.arange(n) * k // n       # contiguous blocks
    g = spmv_task_graph(ap, row_parts)
    cnt = np.bincount(row_parts, minlength=k).astype(float)
    cent = np.stack([np.bincount(row_parts, weights=grid[perm, j], minlength=k) / cnt
                     for j in range(len(shape))], axis=1)
    g = g.with_coords(cent)
    label = "x".join(map(str, shape))
    spread = float(np.ptp(cent, axis=0).max())
    return Input(f"Laplacian {len(shape)}D {label} perm -> {k} blocks", g, machine,
                 note=(f"{a.nnz} nonzeros; random symmetric permutation (seed {seed}); coords = block "
                       f"centroids of original grid points (span <= {spread:.1f} of {max(shape) - 1})"),
                 partitioner="contiguous row blocks", build_seconds=time.perf_counter() - t0)


def barabasi_albert(n: int, m: int, seed: int = SEED):
    """Undirected Barabasi-Albert edge list (preferential attachment, seeded)."""
    rng = np.random.default_rng(seed)
    u = rng.random(4 * m * n + 64)
    ui = 0
    src = np.empty((n - m) * m, dtype=np.int64)
    dst = np.empty_like(src)
    repeated = np.empty(2 * (n - m) * m, dtype=np.int64)
    n_rep = 0
    targets = list(range(m))
    e = 0
    for v in range(m, n):
        src[e:e + m] = v
        dst[e:e + m] = targets
        e += m
        repeated[n_rep:n_rep + m] = targets
        repeated[n_rep + m:n_rep + 2 * m] = v
        n_rep += 2 * m
        chosen: list[int] = []
        while len(chosen) < m:
            if ui >= u.size:
                u = rng.random(u.size)
                ui = 0
            c = int(repeated[int(u[ui] * n_rep)])
            ui += 1
            if c not in chosen:
                chosen.append(c)
        targets = chosen
    return src, dst


def ba_input(log_n: int, m: int, k: int, machine, seed: int = SEED) -> Input:
    t0 = time.perf_counter()
    n = 2 ** log_n
    s, d = barabasi_albert(n, m, seed)
    src, dst = _symmetric_edges(s, d)
    g = TaskGraph.from_edges(src, dst, n_tasks=n)
    parts, used = partition_equal(g, k)
    q = quotient_graph(k, g.sources(), g.indices, g.weights, parts)
    deg = np.diff(g.indptr)
    return Input(f"scale-free BA 2^{log_n} -> {k} parts", q, machine,
                 note=f"m={m}, max degree {int(deg.max())}; no coordinates",
                 partitioner=used, build_seconds=time.perf_counter() - t0)


def stencil_inputs(shape, titan_nodes):
    g = TaskGraph.stencil(list(shape))
    label = "x".join(map(str, shape))
    yield Input(f"stencil {label} on full {label} torus", g, torus_machine(list(shape)),
                note="7-point, unit volumes; 1 core per node")
    yield Input(f"stencil {label} on sparse Titan {titan_nodes}x16", g, sparse_titan(titan_nodes),
                note="7-point, unit volumes; titan_machine(seed=1)")


def build_inputs(quick: bool):
    """Yield the inputs (generated lazily, one at a time)."""
    if quick:
        shape, k, rgg_log, ba_log, lap2, lap3 = (8, 8, 8), 256, 11, 13, (64, 64), (16, 16, 16)
    else:
        shape, k, rgg_log, ba_log, lap2, lap3 = (32, 32, 32), 4096, 15, 17, (512, 512), (64, 64, 64)
    nodes = shape[0] * shape[1] * shape[2] // 16
    yield from stencil_inputs(shape, nodes)
    machine = sparse_titan(k // 16)
    yield rgg_input(rgg_log, k, machine)
    yield laplacian_input(lap2, k, machine)
    yield laplacian_input(lap3, k, machine)
    yield ba_input(ba_log, 4, k, machine)


# ----------------------------------------------------------------------------- methods
def valid_mapping(ttp, n_tasks: int, n_procs: int) -> bool:
    """In range, one entry per task, no processor holding two tasks."""
    ttp = np.asarray(ttp)
    if ttp.shape != (n_tasks,) or ttp.dtype.kind not in "iu":
        return False
    if n_tasks and (ttp.min() < 0 or ttp.max() >= n_procs):
        return False
    return bool(np.bincount(ttp, minlength=n_procs).max(initial=0) <= 1)


def tasks_sharing(ttp, n_procs: int) -> int:
    """Tasks on a processor that holds more than one task."""
    c = np.bincount(np.asarray(ttp), minlength=n_procs)
    return int(c[c > 1].sum())


def call_with_timeout(fn, timeout: float):
    """Run ``fn()`` in a forked child; return (status, result or error text, wall seconds).

    status is "ok", "error" or "timeout" (the child is then terminated by its pid)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child():
        try:
            send.send(("ok", fn()))
        except BaseException as exc:  # noqa: BLE001 - report anything to the parent
            send.send(("error", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"))

    t0 = time.perf_counter()
    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    if recv.poll(timeout):
        try:
            status, res = recv.recv()
        except EOFError:
            status, res = "error", f"child exited with code {proc.exitcode}"
        proc.join()
    else:
        proc.terminate()
        proc.join()
        status, res = "timeout", None
    recv.close()
    return status, res, time.perf_counter() - t0


def run_input(inp: Input, peers: bool, repeat: int, peer_timeout: float = 300.0) -> list[dict]:
    """Every method on one input; one record per method."""
    g, m = inp.graph, inp.machine
    rows: list[dict] = []

    def add(method, ttp, seconds, note="", family="ours", step_seconds=None):
        rec = {"input": inp.name, "method": method, "family": family, "status": "ok",
               "valid": valid_mapping(ttp, g.n_tasks, m.n_procs)}
        vals = evaluate(g, m, ttp, METRIC_NAMES)
        rec.update({k: (int(v) if k in ("total_hops", "max_messages") else float(v)) for k, v in vals.items()})
        rec["seconds"] = float(seconds)
        rec["step_seconds"] = float(seconds if step_seconds is None else step_seconds)
        rec["note"] = note
        rows.append(rec)

    def na(method, why, family="ours"):
        rows.append({"input": inp.name, "method": method, "family": family, "status": "n/a", "valid": None,
                     **{k: None for k in METRIC_NAMES}, "seconds": None, "step_seconds": None, "note": why})

    t, ident = median_time(lambda: identity_mapping(g, m), max(1, repeat))
    add("default", ident.task_to_proc, t, "task i on processor i")
    geo = None
    if inp.has_coords:
        t_geo, geo = median_time(lambda: map_geometric(g, m), max(1, repeat))
        add("geometric", geo.task_to_proc, t_geo, "MJ fz, longest/longest, shift (1 candidate)")
    else:
        na("geometric", "n/a (no coordinates)")
    t_ug, ug = median_time(lambda: map_greedy(g, m), max(1, repeat))
    ug_note = f"n_bfs (0,1); two-phase={ug.info.get('two_phase')}"
    if ug.info.get("two_phase"):
        ug_note += f" ({ug.info.get('partitioner')})"
    add("UG", ug.task_to_proc, t_ug, ug_note)
    t_uwh, uwh = median_time(lambda: refine_wh(ug), max(1, repeat))
    add("UWH", uwh.task_to_proc, t_ug + t_uwh, f"UG + refine_wh: {uwh.info.get('refine_moves')} moves, "
        f"{uwh.info.get('refine_passes')} passes", step_seconds=t_uwh)
    for name, obj in (("UMC", "latency"), ("UMMC", "max_messages")):
        t_c, c = median_time(lambda: refine_congestion(uwh, objective=obj), max(1, repeat))
        add(name, c.task_to_proc, t_ug + t_uwh + t_c,
            f"UWH + refine_congestion({obj}): {c.info.get('congestion_swaps')} swaps, "
            f"{c.info.get('congestion_iterations')} iterations", step_seconds=t_c)
    if geo is not None:
        t_gw, gw = median_time(lambda: refine_wh(geo), max(1, repeat))
        add("geometric+UWH", gw.task_to_proc, t_geo + t_gw, f"{gw.info.get('refine_moves')} moves",
            step_seconds=t_gw)
    else:
        na("geometric+UWH", "n/a (no coordinates)")

    # without task coordinates both families leave out their coordinate-based candidates
    cands = candidate_list(g, m, families=["geometric", "graph"], rotate=False, include_identity=True)
    t_best, best = median_time(lambda: best_of(g, m, cands, metric="weighted_hops"), max(1, repeat))
    add("best candidate", best.mapping.task_to_proc, t_best,
        f"{len(cands)} candidates by WH; winner: {cands[best.index].label()}")

    if not peers:
        for p in PEERS:
            na(p, "skipped (--no-peers)", family="peer")
        return rows
    rows.extend(run_peers(inp, repeat, peer_timeout))
    return rows


def run_peers(inp: Input, repeat: int, peer_timeout: float) -> list[dict]:
    g, m = inp.graph, inp.machine
    out = []

    def rec(method, ttp, seconds, note):
        r = {"input": inp.name, "method": method, "family": "peer", "status": "ok",
             "valid": valid_mapping(ttp, g.n_tasks, m.n_procs)}
        vals = evaluate(g, m, ttp, METRIC_NAMES)
        r.update({k: (int(v) if k in ("total_hops", "max_messages") else float(v)) for k, v in vals.items()})
        r.update(seconds=float(seconds), step_seconds=float(seconds), note=note)
        out.append(r)

    def na(method, why):
        out.append({"input": inp.name, "method": method, "family": "peer", "status": "n/a", "valid": None,
                    **{k: None for k in METRIC_NAMES}, "seconds": None, "step_seconds": None, "note": why})

    # Zoltan2's MJ task mapper
    try:
        from benchmarks.peers.zoltan2 import map_zoltan2, zoltan2_available
    except ImportError:
        zoltan2_available = None
    if zoltan2_available is None or not zoltan2_available():
        na("Zoltan2 MJ", "not installed (bash benchmarks/peers/install_peers.sh)")
    elif not inp.has_coords:
        na("Zoltan2 MJ", "n/a (no coordinates)")
    else:
        try:
            secs, ttp = [], None
            for _ in range(max(1, repeat)):
                ttp, s = map_zoltan2(m.router_coords, g.coords, g.indptr, g.indices, g.weights,
                                     machine_extent=m.dims, timeout=peer_timeout)
                secs.append(s)
            shared = tasks_sharing(ttp, m.n_procs)
            rec("Zoltan2 MJ", ttp, statistics.median(secs), "1 rank, extent given (torus shift), rpn 1"
                + (f"; NOT one-to-one: {shared} tasks share a core (as returned, not repaired)" if shared else ""))
            out[-1]["tasks_sharing_a_core"] = shared
        except RuntimeError as exc:
            na("Zoltan2 MJ", f"failed: {str(exc).splitlines()[0]}")

    # Scotch static mapping (in a forked child with a time limit: dense graphs can take very long)
    try:
        from benchmarks.peers.scotch import TorusTarget, map_scotch, scotch_available
    except ImportError:
        scotch_available = None
    if scotch_available is None or not scotch_available():
        na("Scotch", "not installed (bash benchmarks/peers/install_peers.sh)")
    elif len(m.dims) != 3:
        na("Scotch", "n/a (wrapper supports 3-D tori only)")
    else:
        target = TorusTarget.from_proc_coords(m.dims, m.router_coords)

        def scotch_once():
            info = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ttp, s = map_scotch(g.indptr, g.indices, g.weights, target, seed=0, repair=True, info=info)
            return ttp, s, info

        secs, res = [], None
        for _ in range(max(1, repeat)):
            status, res, wall = call_with_timeout(scotch_once, peer_timeout)
            if status != "ok":
                break
            secs.append(res[1])
        if status == "timeout":
            na("Scotch", f"did not finish in {peer_timeout:g} s (seed 0, default strategy; killed)")
            out[-1]["seconds"] = None
            out[-1]["timeout_seconds"] = float(peer_timeout)
        elif status != "ok":
            na("Scotch", f"failed: {res}")
        else:
            ttp, _, info = res
            rec("Scotch", ttp, statistics.median(secs),
                f"seed 0, repair=True: {info.get('overflow_tasks')} task(s) over a router's capacity "
                f"(sharing a core) moved; arch {info.get('architecture')}")
            out[-1]["scotch_overflow_tasks"] = int(info.get("overflow_tasks", 0))
            out[-1]["scotch_repaired_tasks"] = int(info.get("repaired_tasks", 0))

    na("KaHIP", "n/a (no torus model)")
    return out


# ----------------------------------------------------------------------------- reporting
def fmt(v, kind):
    if v is None:
        return "-"
    if kind in ("total_hops", "max_messages"):
        return f"{int(v):,}"
    if kind == "weighted_hops":
        return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}"
    if kind == "seconds":
        return f"{v:.3f}"
    return f"{v:.4g}"


def print_input(inp: Input, rows: list[dict]) -> dict:
    d = inp.describe()
    print(f"\n== {inp.name}: {d['tasks']:,} tasks, {d['edges']:,} directed edges -> {d['procs']:,} procs on "
          f"{d['nodes']:,} nodes (torus {d['torus']}); partition: {d['partitioner'] or '-'}; "
          f"input built in {d['build_seconds']:.1f} s")
    if inp.note:
        print(f"   {inp.note}")
    default_wh = next(r["weighted_hops"] for r in rows if r["method"] == "default")
    table = []
    for r in rows:
        row = {"method": r["method"]}
        for k in METRIC_NAMES:
            row[SHORT[k]] = fmt(r[k], k)
        row["WH/def"] = "-" if r["weighted_hops"] is None or not default_wh else f"{r['weighted_hops'] / default_wh:.3f}"
        row["seconds"] = fmt(r["seconds"], "seconds")
        row["valid"] = "-" if r["valid"] is None else ("yes" if r["valid"] else "NO")
        row["note"] = r["note"]
        table.append(row)
    print_table(table, ["method", "TH", "WH", "MC", "MMC", "AMC", "WH/def", "seconds", "valid", "note"])
    ok = [r for r in rows if r["status"] == "ok"]
    summary = {"input": inp.name}
    valid = [r for r in ok if r["valid"]]
    invalid = [r["method"] for r in ok if not r["valid"]]
    for key, label in (("weighted_hops", "WH"), ("latency", "MC")):
        best = min(r[key] for r in valid)
        winners = [r["method"] for r in valid if r[key] <= best * (1 + 1e-12)]
        summary[f"{label}_winner"] = winners
        summary[f"{label}_best"] = best
        print(f"   {label} winner: {', '.join(winners)} ({fmt(best, key)})"
              + (f" [not one-to-one, excluded: {', '.join(invalid)}]" if invalid else ""))
    ours = next(r for r in rows if r["method"] == "best candidate")
    peer_rows = [r for r in ok if r["family"] == "peer"]
    summary["peers_not_run"] = {r["method"]: r["note"] for r in rows
                                if r["family"] == "peer" and r["status"] != "ok" and r["method"] != "KaHIP"}
    summary["best_candidate_wh"] = ours["weighted_hops"]
    summary["best_candidate_seconds"] = ours["seconds"]
    our_mc = min((r for r in ok if r["family"] == "ours"), key=lambda r: r["latency"])
    summary["our_best_mc"] = our_mc["latency"]
    summary["our_best_mc_method"] = our_mc["method"]
    if peer_rows:
        bp = min(peer_rows, key=lambda r: r["weighted_hops"])
        bpm = min(peer_rows, key=lambda r: r["latency"])
        summary.update(best_peer=bp["method"], best_peer_wh=bp["weighted_hops"],
                       best_peer_mc=bpm["latency"], best_peer_mc_method=bpm["method"],
                       ours_at_least_as_good_wh=ours["weighted_hops"] <= bp["weighted_hops"] * (1 + 1e-12),
                       ours_at_least_as_good_mc=our_mc["latency"] <= bpm["latency"] * (1 + 1e-12))
        z = next((r for r in peer_rows if r["method"] == "Zoltan2 MJ"), None)
        summary["zoltan2_seconds"] = z["seconds"] if z else None
        geo = next((r for r in ok if r["method"] == "geometric"), None)
        summary["geometric_seconds"] = geo["seconds"] if geo else None
        summary["best_peer_valid"] = bool(bp["valid"])
        print(f"   best candidate WH {fmt(ours['weighted_hops'], 'weighted_hops')} vs best peer "
              f"({bp['method']}{'' if bp['valid'] else ', not one-to-one'}) "
              f"{fmt(bp['weighted_hops'], 'weighted_hops')}: ratio "
              f"{ours['weighted_hops'] / bp['weighted_hops']:.3f}; best MC ours ({our_mc['method']}) "
              f"{our_mc['latency']:.4g} vs peers ({bpm['method']}) {bpm['latency']:.4g}")
    return summary


def verdict(summaries: list[dict]) -> list[str]:
    lines = []
    with_peers = [s for s in summaries if "best_peer" in s]
    if not with_peers:
        return ["no peer ran (--no-peers or not installed): no comparison"]
    lost = [s for s in with_peers if not s["ours_at_least_as_good_wh"]]
    no_peer = [s["input"] for s in summaries if "best_peer" not in s]
    if not lost:
        lines.append("our best candidate >= best peer on every input (WH: best candidate <= best peer's WH)"
                     + (f"; no peer result on: {', '.join(no_peer)}" if no_peer else ""))
    else:
        lines.append("a peer wins WH on: " + "; ".join(
            f"{s['input']} ({s['best_peer']} {s['best_peer_wh']:,.0f} < ours {s['best_candidate_wh']:,.0f}, "
            f"ratio {s['best_candidate_wh'] / s['best_peer_wh']:.3f})" for s in lost))
    lost_mc = [s for s in with_peers if not s["ours_at_least_as_good_mc"]]
    lines.append("MC (best of our rows vs best peer): " + (
        "ours <= peers on every input" if not lost_mc else "a peer wins on: " + "; ".join(
            f"{s['input']} ({s['best_peer_mc_method']} {s['best_peer_mc']:.4g} < ours {s['our_best_mc']:.4g})"
            for s in lost_mc)))
    missing = [f"{s['input']}: {p} {why}" for s in summaries for p, why in s.get("peers_not_run", {}).items()
               if not why.startswith("n/a")]
    if missing:
        lines.append("peers without a result (the comparison above is against the peers that ran): "
                     + "; ".join(missing))
    tz = [s for s in with_peers if s.get("zoltan2_seconds") is not None]
    if tz:
        lines.append("mapping time vs Zoltan2 (its call alone): " + "; ".join(
            f"{s['input']}: geometric {s['geometric_seconds']:.3f} s, best candidate "
            f"{s['best_candidate_seconds']:.2f} s, Zoltan2 {s['zoltan2_seconds']:.3f} s" for s in tz))
    return lines


# ----------------------------------------------------------------------------- speed
SPEED_SHAPES = [(16, 16, 16), (32, 16, 16), (32, 32, 16), (32, 32, 32), (64, 32, 32)]
QUICK_SPEED_SHAPES = [(8, 8, 8), (16, 8, 8), (16, 16, 8), (16, 16, 16)]


def speed(quick: bool, repeat: int = 3) -> list[dict]:
    """UG, UWH of its result, UMC of the UWH result on stencils onto sparse Titan-like allocations."""
    rows = []
    for shape in (QUICK_SPEED_SHAPES if quick else SPEED_SHAPES):
        n = shape[0] * shape[1] * shape[2]
        g = TaskGraph.stencil(list(shape))
        m = sparse_titan(n // 16)
        la0 = loadavg()
        t_ug, ug = median_time(lambda: map_greedy(g, m), max(1, repeat))
        t_uwh, uwh = median_time(lambda: refine_wh(ug), max(1, repeat))
        t_umc, umc = median_time(lambda: refine_congestion(uwh, objective="latency"), max(1, repeat))
        r = {"tasks": n, "shape": "x".join(map(str, shape)), "nodes": n // 16,
             "UG_s": t_ug, "UWH_s": t_uwh, "UMC_s": t_umc,
             "partitioner": ug.info.get("partitioner"),
             "partition_s": ug.info.get("partition_seconds"),
             "UG_wh": float(ug.metric("weighted_hops")), "UWH_wh": float(uwh.metric("weighted_hops")),
             "UMC_mc": float(umc.metric("latency")), "UWH_mc": float(uwh.metric("latency")),
             "loadavg_before": la0, "loadavg_after": loadavg()}
        if n == SPEED_TARGET_TASKS:
            r["targets_met"] = {k: r[f"{k}_s"] <= v for k, v in SPEED_TARGETS.items()}
        rows.append(r)
    return rows


def print_speed(rows: list[dict], repeat: int) -> None:
    print(f"\n== Speed: 3-D 7-point stencils onto sparse Titan-like allocations (16 cores/node), "
          f"median of {repeat}; targets at {SPEED_TARGET_TASKS:,} tasks: UG <= 2 s, UWH <= 5 s, UMC <= 20 s")
    table = []
    for r in rows:
        mark = lambda k: ""  # noqa: E731
        if "targets_met" in r:
            mark = lambda k: (" (<= %g ok)" % SPEED_TARGETS[k]) if r["targets_met"][k] else (  # noqa: E731
                " (> %g MISS)" % SPEED_TARGETS[k])
        table.append({"tasks": f"{r['tasks']:,}", "shape": r["shape"], "nodes": r["nodes"],
                      "UG s": f"{r['UG_s']:.3f}{mark('UG')}", "(partition s, last run)": f"{r['partition_s'] or 0:.3f}",
                      "UWH s": f"{r['UWH_s']:.3f}{mark('UWH')}", "UMC s": f"{r['UMC_s']:.3f}{mark('UMC')}",
                      "UG WH": f"{r['UG_wh']:,.0f}", "UWH WH": f"{r['UWH_wh']:,.0f}",
                      "MC UWH->UMC": f"{r['UWH_mc']:.3g}->{r['UMC_mc']:.3g}",
                      "loadavg before/after": f"{r['loadavg_before']} / {r['loadavg_after']}"})
    print_table(table, list(table[0]))
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        f = b["tasks"] / a["tasks"]
        print(f"   growth {a['tasks']:,} -> {b['tasks']:,} tasks (x{f:g}): UG x{b['UG_s'] / a['UG_s']:.1f}, "
              f"UWH x{b['UWH_s'] / a['UWH_s']:.1f}, UMC x{b['UMC_s'] / a['UMC_s']:.1f}")


# ----------------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes (512-task stencils, 256 parts), < 1 min")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--no-peers", action="store_true", help="skip Zoltan2 / Scotch")
    ap.add_argument("--repeat", type=int, default=1, help="runs per table row (median); default 1")
    ap.add_argument("--speed-repeat", type=int, default=3)
    ap.add_argument("--peer-timeout", type=float, default=300.0,
                    help="seconds per peer call before it is killed and reported as not finished (default 300)")
    ap.add_argument("--no-speed", action="store_true", help="skip the speed section")
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    print(f"graph_mappers: {'quick' if args.quick else 'full'} run; cores = {os.cpu_count()} (shared); "
          f"load average at start {loadavg()}")
    records, inputs, summaries = [], [], []
    for inp in build_inputs(args.quick):
        la0 = loadavg()
        rows = run_input(inp, not args.no_peers, args.repeat, args.peer_timeout)
        d = inp.describe()
        d.update(loadavg_before=la0, loadavg_after=loadavg())
        inputs.append(d)
        summaries.append(print_input(inp, rows))
        print(f"   load average during this input: {la0} -> {d['loadavg_after']}")
        records.extend(rows)
        sys.stdout.flush()
    print()
    lines = verdict(summaries)
    for line in lines:
        print(line)
    speed_rows = []
    if not args.no_speed:
        speed_rows = speed(args.quick, args.speed_repeat)
        print_speed(speed_rows, args.speed_repeat)
    wall = time.perf_counter() - t_start
    print(f"\nwall time {wall:.1f} s; load average at end {loadavg()}")
    write_json(args.json, records, benchmark="graph_mappers", quick=bool(args.quick), peers=not args.no_peers,
               inputs=inputs, summaries=summaries, verdict=lines, speed=speed_rows, wall_seconds=wall)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
