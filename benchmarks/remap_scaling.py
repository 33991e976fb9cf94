"""What ``remap()`` costs each rank at 16K-1M ranks, phase by phase, and what its collectives move.

Part 1 (in one process): the per-rank work of ``remap`` for a job of P simulated ranks,
each running one task of a 3-D 7-point stencil (6 neighbours, unit weights) on

* ``titan``: a Titan-like Cray Gemini machine, 16 cores per node, P/16 nodes sparsely
  allocated (half the nodes busy) in a 3-D torus large enough to hold them (Titan's own
  25x16x24 up to 9,000 nodes, then 48x32x48 and 64x48x48);
* ``bgq``: a Blue Gene/Q block of P/16 nodes, 16 ranks per node.

Phases (seconds, median of ``--repeat``; peak traced memory, NumPy buffers included):

``gathered``      the bytes each rank receives from the job-data collectives (no time:
                  measured under real mpiexec in part 2);
``build_inputs``  the task graph and machine from the gathered arrays
                  (``TaskGraph.from_neighbor_arrays`` + ``assemble_machine_arrays``), the
                  "arrays" path; the "pickled" path is what remap did before: a list of
                  per-rank tuples with Location objects, pickled and unpickled as
                  ``allgather`` does, then ``from_neighbor_lists`` + ``assemble_machine``;
``candidate``     one geometric candidate (FZ, torus shift) and its weighted hops;
``agree``         picking the winner of 400 candidates' scores (what every rank does after
                  the scores' allgather);
``per_rank``      build_inputs + candidate + agree: one rank's whole path when it
                  evaluates one candidate.

The "shared" path (``remap(shared_memory=True)``, ``NodeShare.gather_and_build``), one
node simulated by its leader and one follower: the leader receives the task coordinates,
neighbours and weights in the node's first window (a NumPy buffer stands in for
``Win.Allocate_shared``), the router coordinates in the narrowest exact integer type,
builds the task graph and machine (the machine keeps its router coordinates in the
narrowest exact of int16, int32, int64: int16 here), lays the rest of their arrays out in a second window
and views both; a follower rebuilds them from the leader's small pickle as views of the
windows.  Columns: ``window_mb`` (both windows), ``follower_mb`` (a follower's private
build memory, traced), ``per_node_mb`` = window_mb + 16 x follower_mb, ``leader_peak_mb``
(the leader's transient peak while building, windows included, traced) and ``shared_s``
(the leader's build).  JSON phases of path "shared": ``build_inputs`` (leader seconds and
transient peak), ``follower_build``, ``window``, ``per_node``.

Part 2 (``--mpi N,N``): ``remap()`` under real ``mpiexec -n N`` (oversubscribed on this
laptop), reporting the gather seconds and bytes per rank from the report.

Targets (ISSUE 14): at P = 1M, build_inputs <= 1 s and <= 150 MB per rank (<= 150 MB per
node with shared memory), candidate <= 1 s; at P = 64K, per_rank <= 1 s.  ``--json PATH`` writes records ``{"P", "machine", "path",
"phase", "seconds", "peak_mb"}``; ``--max-p`` limits the largest P; ``--pickled-max-p``
the largest P of the (slow) pickled baseline.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import pickle
import subprocess
import sys
import time
import tracemalloc

import numpy as np


from benchmarks.harness import print_table, write_json
from mpitaskmap import TaskGraph, map_geometric
from mpitaskmap.runtime.gather import HEADER, GatheredJob, location_dtype, pack_shared, unpack_shared, window_layout
from mpitaskmap._validate import as_narrowest_coords
from mpitaskmap.metrics import weighted_hops
from mpitaskmap.providers import Location, NetworkInfo, assemble_machine, assemble_machine_arrays
from mpitaskmap.search.scoring import winner
from mpitaskmap.machines.torus.presets import bgq_machine, titan_machine

SIZES = (16_384, 65_536, 262_144, 1_048_576)
PPN = 16
TARGETS = {(1_048_576, "build_inputs"): 1.0, (1_048_576, "candidate"): 1.0, (65_536, "per_rank"): 1.0}
MEMORY_TARGET_MB = 150.0


def _grid(p: int) -> tuple[int, int, int]:
    """A near-cubic 3-D task grid of p tasks (powers of two)."""
    e = int(round(math.log2(p)))
    a = 2 ** ((e + 2) // 3)
    b = 2 ** ((e + 1) // 3)
    return a, b, p // (a * b)


def _machine(kind: str, p: int):
    nodes = p // PPN
    if kind == "titan":
        # half the nodes busy with other jobs: Titan's 25x16x24 holds 9,600 free nodes; larger
        # jobs get a larger torus of the same kind
        dims = (25, 16, 24) if nodes <= 9_000 else (48, 32, 48) if nodes <= 36_000 else (64, 48, 48)
        return titan_machine(nodes, cores_per_node=PPN, dims=dims, seed=1)
    # a BG/Q block of `nodes` nodes: A x B x C x D x 2, powers of two
    e = int(round(math.log2(nodes // 2)))
    shape = [2 ** ((e + 3 - k) // 4) for k in range(4)] + [2]
    return bgq_machine(tuple(shape), ranks_per_node=PPN)


def _network(kind: str, machine) -> NetworkInfo:
    return NetworkInfo(dims=tuple(int(v) for v in machine.dims), wrap=tuple(bool(v) for v in machine.wrap),
                       bandwidth="gemini" if kind == "titan" else None)


def _job(kind: str, p: int):
    """The gathered arrays of a job of p ranks (what every rank holds after the gather)."""
    machine = _machine(kind, p)
    graph = TaskGraph.stencil(list(_grid(p)))
    counts = np.diff(graph.indptr)
    names = np.char.add(b"nid", np.char.zfill(machine.node_ids.astype("S8"), 5))  # b"nid00012"
    return dict(machine=machine, network=_network(kind, machine), coords=graph.coords, counts=counts,
                neighbors=graph.indices.astype(np.int64), weights=graph.weights,
                locations=as_narrowest_coords(machine.router_coords),  # as gather_job leaves them (int16)
                nodes=names)


def _gathered_bytes(job) -> int:
    p = job["coords"].shape[0]
    header = p * len(HEADER) * 4  # int32 fields
    names = int(sum(len(v) for v in job["nodes"][:1])) * p
    fixed = p * (job["coords"].shape[1] + job["locations"].shape[1]) * 8
    var = 2 * int(job["counts"].sum()) * 8
    return header + names + fixed + var


def _build_arrays(job):
    graph = TaskGraph.from_neighbor_arrays(job["counts"], job["neighbors"], job["weights"], coords=job["coords"])
    machine = assemble_machine_arrays(job["locations"], job["nodes"], job["network"], name="job")
    return graph, machine


def _shared_leader(job):
    """The node leader of the shared path: receive, build, lay out, view (what
    ``NodeShare.gather_and_build`` does on the leader, its collectives replaced by copies)."""
    p, d = job["coords"].shape
    e = job["neighbors"].size
    offsets, nbytes = window_layout([p * d * 8, e * 8, e * 8])
    first = np.empty(nbytes, dtype=np.uint8)  # the first window
    got = GatheredJob(
        coords=np.frombuffer(first, dtype=np.float64, count=p * d, offset=offsets[0]).reshape(p, d),
        neighbors=np.frombuffer(first, dtype=np.int64, count=e, offset=offsets[1]),
        weights=np.frombuffer(first, dtype=np.float64, count=e, offset=offsets[2]),
        counts=job["counts"].astype(np.int32).astype(np.int64),  # a column of the int32 headers
        nodes=job["nodes"].copy(),
    )
    got.coords[:], got.neighbors[:], got.weights[:] = job["coords"], job["neighbors"], job["weights"]
    locations = job["locations"]
    got.locations = locations.astype(location_dtype(int(np.abs(locations).max())))  # the narrow gather
    built = _build_arrays(dict(coords=got.coords, neighbors=got.neighbors, weights=got.weights, counts=got.counts,
                               locations=got.locations, nodes=got.nodes, network=job["network"]))
    del got
    payload, places, second_nbytes, copies = pack_shared(built, memoryview(first))
    del built
    second = np.empty(second_nbytes, dtype=np.uint8)  # the second window
    for offset, raw in copies:
        second[offset: offset + raw.nbytes] = np.frombuffer(raw, dtype=np.uint8)
    del copies
    windows = [first if any(w == 0 for w, _, _ in places) else None, second]
    return windows, payload, places, unpack_shared(payload, places, windows)


def _shared_follower(payload: bytes, places: list, windows: list):
    """A follower: the leader's pickle arrives (a node bcast), the arrays are views of the windows."""
    return unpack_shared(bytes(payload), places, windows)


def _window_mb(windows) -> float:
    return sum(w.nbytes for w in windows if w is not None) / 2**20


def part1_shared(job, graph, machine, repeat: int) -> dict:
    """The shared path of one job: seconds and memory of the leader and a follower; checks
    that both hold the arrays path's graph and machine as views of the windows."""
    t_lead, lead_mb, (windows, payload, places, (g_lead, m_lead)) = _measure(lambda: _shared_leader(job), repeat)
    t_fol, fol_mb, (g_fol, m_fol) = _measure(lambda: _shared_follower(payload, places, windows), repeat)
    for g, m in ((g_lead, m_lead), (g_fol, m_fol)):
        for a, b in ((g.indptr, graph.indptr), (g.indices, graph.indices), (g.weights, graph.weights),
                     (g.coords, graph.coords), (m.router_coords, machine.router_coords),
                     (m.node_ids, machine.node_ids)):
            assert np.array_equal(a, b) and any(np.shares_memory(a, w) for w in windows if w is not None)
    window_mb = _window_mb(windows)
    return dict(window_mb=window_mb, follower_mb=fol_mb, per_node_mb=window_mb + PPN * fol_mb,
                leader_peak_mb=lead_mb, shared_s=t_lead, follower_s=t_fol)


def _pickled_payload(job) -> bytes:
    """What allgather moved before: one pickled tuple per rank (built outside the timing)."""
    ptr = np.concatenate(([0], np.cumsum(job["counts"])))
    nbrs, w = job["neighbors"].tolist(), job["weights"].tolist()
    rows = []
    for r in range(job["coords"].shape[0]):
        a, b = int(ptr[r]), int(ptr[r + 1])
        rows.append(("", "", "sim", (tuple(job["coords"][r].tolist()), nbrs[a:b], w[a:b]),
                     Location(tuple(job["locations"][r].tolist()), job["nodes"][r].decode()), job["network"]))
    return pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)


def _build_pickled(payload: bytes):
    gathered = pickle.loads(payload)
    tasks = [g[3] for g in gathered]
    graph = TaskGraph.from_neighbor_lists([t[1] for t in tasks], [t[2] for t in tasks],
                                          coords=np.array([t[0] for t in tasks], dtype=np.float64))
    machine = assemble_machine([g[4] for g in gathered], gathered[0][5], name="job")
    return graph, machine


def _candidate(graph, machine) -> float:
    m = map_geometric(graph, machine, ordering="fz")
    return weighted_hops(graph, machine, m.task_to_proc)


def _agree(n_cands: int = 400) -> tuple:
    rng = np.random.default_rng(0)
    return winner(list(enumerate(rng.random(n_cands).tolist())))


def _measure(fn, repeat: int) -> tuple[float, float, object]:
    """Median seconds of ``repeat`` calls and the peak traced MB of one of them."""
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    gc.collect()
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return float(np.median(times)), peak / 2**20, result


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def part1(args, records: list) -> list[dict]:
    rows = []
    for kind in args.machines:
        for p in [p for p in SIZES if p <= args.max_p]:
            rss0 = _rss_mb()
            job = _job(kind, p)
            t_in, mb_in, (graph, machine) = _measure(lambda: _build_arrays(job), args.repeat)
            t_c, mb_c, _ = _measure(lambda: _candidate(graph, machine), args.repeat)
            t_a, mb_a, _ = _measure(_agree, args.repeat)
            row = dict(P=p, machine=kind, nodes=machine.n_nodes, gathered_mb=_gathered_bytes(job) / 2**20,
                       build_inputs_s=t_in, build_inputs_mb=mb_in, candidate_s=t_c, candidate_mb=mb_c,
                       agree_s=t_a, per_rank_s=t_in + t_c + t_a, rss_mb=_rss_mb() - rss0)
            for phase, s, mb in (("build_inputs", t_in, mb_in), ("candidate", t_c, mb_c), ("agree", t_a, mb_a),
                                 ("per_rank", t_in + t_c + t_a, max(mb_in, mb_c, mb_a))):
                records.append(dict(P=p, machine=kind, path="arrays", phase=phase, seconds=s, peak_mb=mb))
            records.append(dict(P=p, machine=kind, path="arrays", phase="gathered", seconds=0.0,
                                peak_mb=row["gathered_mb"]))
            shared = part1_shared(job, graph, machine, args.repeat)
            row.update(shared)
            for phase, s, mb in (("build_inputs", shared["shared_s"], shared["leader_peak_mb"]),
                                 ("follower_build", shared["follower_s"], shared["follower_mb"]),
                                 ("window", 0.0, shared["window_mb"]),
                                 ("per_node", shared["shared_s"], shared["per_node_mb"])):
                records.append(dict(P=p, machine=kind, path="shared", phase=phase, seconds=s, peak_mb=mb))
            if p <= args.pickled_max_p:
                payload = _pickled_payload(job)
                t_p, mb_p, (g2, m2) = _measure(lambda: _build_pickled(payload), 1)
                assert np.array_equal(g2.indices, graph.indices) and np.array_equal(m2.node_ids, machine.node_ids)
                row.update(pickled_s=t_p, pickled_mb=mb_p, pickled_payload_mb=len(payload) / 2**20,
                           ratio=t_p / t_in)
                records.append(dict(P=p, machine=kind, path="pickled", phase="build_inputs", seconds=t_p,
                                    peak_mb=mb_p))
            rows.append(row)
            print(f"  {kind} P={p:,}: build {t_in:.3f} s, candidate {t_c:.3f} s", file=sys.stderr)
            del job, graph, machine
            gc.collect()
    return rows


def _growth(rows, key) -> str:
    """Fitted exponent of seconds ~ P^a over the rows (log-log least squares)."""
    pts = [(math.log(r["P"]), math.log(r[key])) for r in rows if r.get(key, 0) > 0]
    if len(pts) < 2:
        return "-"
    x, y = np.array(pts).T
    return f"P^{np.polyfit(x, y, 1)[0]:.2f}"


def part2(args) -> list[dict]:
    rows = []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # where ``benchmarks`` is a package
    for n in args.mpi:
        cmd = [os.path.join(os.path.dirname(sys.executable), "mpiexec"), "-n", str(n), sys.executable, "-m", "mpi4py",
               "-m", "benchmarks.remap_scaling", "--child"]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.mpi_timeout, cwd=root)
        if out.returncode:
            rows.append(dict(ranks=n, note=f"failed: {out.stderr.strip().splitlines()[-1:]}"))
            continue
        rec = dict(eval(out.stdout.strip().splitlines()[-1]))  # the child's last line: a dict
        rec.update(ranks=n, wall_s=time.perf_counter() - t0)
        rows.append(rec)
    return rows


def child() -> None:
    """One remap under mpiexec: rank 0 prints the gather seconds and bytes per rank."""
    from mpi4py import MPI

    from mpitaskmap import remap

    comm = MPI.COMM_WORLD
    dims = MPI.Compute_dims(comm.size, 3)
    r = comm.rank
    x, y, z = r % dims[0], (r // dims[0]) % dims[1], r // (dims[0] * dims[1])
    nbrs = [a + dims[0] * (b + dims[1] * c) for a, b, c in
            ((x - 1, y, z), (x + 1, y, z), (x, y - 1, z), (x, y + 1, z), (x, y, z - 1), (x, y, z + 1))
            if 0 <= a < dims[0] and 0 <= b < dims[1] and 0 <= c < dims[2]]
    new, rep = remap(comm, (x, y, z), neighbors=nbrs, provider="sim:titan:ppn=16,seed=1", report=True,
                     rotate=False, refine=0)
    new.Free()
    gather = comm.allreduce(rep.seconds["gather"], op=MPI.MAX)
    if r == 0:
        print(dict(gather_s=gather, gathered_bytes_per_rank=rep.gathered_bytes, total_s=rep.seconds["total"],
                   candidates=rep.n_candidates))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-p", type=int, default=SIZES[-1], help="largest simulated job size (default 1,048,576)")
    ap.add_argument("--pickled-max-p", type=int, default=SIZES[-1], help="largest P of the pickled baseline")
    ap.add_argument("--machines", default="titan,bgq", help="titan,bgq (default both)")
    ap.add_argument("--repeat", type=int, default=3, help="median of this many runs per phase (default 3)")
    ap.add_argument("--mpi", default="4,16,64", help="mpiexec sizes of part 2 (default 4,16,64; '' to skip)")
    ap.add_argument("--mpi-timeout", type=float, default=900.0)
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child()
        return
    args.machines = [m for m in args.machines.split(",") if m]
    args.mpi = [int(v) for v in args.mpi.split(",") if v]
    print(f"remap scaling: per-rank work of remap() for P simulated ranks ({PPN} per node); cores = {os.cpu_count()}; "
          f"load average {os.getloadavg()[0]:.2f}; median of {args.repeat}")
    records: list = []
    rows = part1(args, records)
    cols = ["P", "machine", "nodes", "gathered_mb", "build_inputs_s", "build_inputs_mb", "candidate_s", "candidate_mb",
            "agree_s", "per_rank_s", "rss_mb", "pickled_s", "pickled_payload_mb", "ratio"]
    print_table(rows, cols)
    print("shared path (one node: the leader builds into shared windows, 16 ranks view them)")
    print_table(rows, ["P", "machine", "window_mb", "follower_mb", "per_node_mb", "leader_peak_mb", "shared_s",
                       "follower_s"])
    for kind in args.machines:
        mine = [r for r in rows if r["machine"] == kind]
        print(f"  growth ({kind}): build_inputs {_growth(mine, 'build_inputs_s')}, candidate "
              f"{_growth(mine, 'candidate_s')}, pickled {_growth(mine, 'pickled_s')}")
    for (p, phase), target in TARGETS.items():
        for r in rows:
            if r["P"] == p:
                got = r[f"{phase}_s"]
                print(f"  target P={p:,} {r['machine']} {phase}: {got:.3f} s <= {target} s: "
                      f"{'yes' if got <= target else 'NO'}")
    for r in rows:
        if r["P"] == SIZES[-1]:
            print(f"  target P=1M {r['machine']} build_inputs memory: {r['build_inputs_mb']:.0f} MB <= "
                  f"{MEMORY_TARGET_MB:.0f} MB: {'yes' if r['build_inputs_mb'] <= MEMORY_TARGET_MB else 'NO'}")
            print(f"  target P=1M {r['machine']} per-node memory with shared memory: {r['per_node_mb']:.0f} MB <= "
                  f"{MEMORY_TARGET_MB:.0f} MB: {'yes' if r['per_node_mb'] <= MEMORY_TARGET_MB else 'no'}"
                  f" (window {r['window_mb']:.0f} MB + {PPN} x {r['follower_mb']:.3f} MB; leader's transient peak "
                  f"{r['leader_peak_mb']:.0f} MB)")
    mpi_rows = part2(args) if args.mpi else []
    if mpi_rows:
        print("part 2: remap() under mpiexec (oversubscribed; 3-D stencil with neighbours, sim:titan ppn=16)")
        print_table(mpi_rows, ["ranks", "gather_s", "gathered_bytes_per_rank", "total_s", "candidates", "wall_s"])
    write_json(args.json, records, mpi=mpi_rows)


if __name__ == "__main__":
    main()
