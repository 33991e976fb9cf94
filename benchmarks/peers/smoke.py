"""Smoke test of the optional benchmark peers (Zoltan2 driver, Scotch via ctypes).

    bash benchmarks/peers/install_peers.sh      # once
    python -m benchmarks.peers.smoke

Case 1: an 8x8x8 7-point stencil (non-periodic, weight 1, both directions; task id =
x + 8*(y + 8*z), task coords = grid coords) on a full 8x8x8 torus (proc id = x + 8*(y + 8*z)).
The identity mapping is optimal there: every stencil edge is 1 hop.
Case 2: the same 512 tasks on the real 512-rank Hopper allocation
(shared/data/hopper_512rank_machine.txt, "x y z" router coordinates per rank, torus 17x8x24).
Weighted hops = sum over directed edges (t, u) of w * torus_hops(proc(t), proc(u)), with
per-dimension distance min(|a - b|, L - |a - b|). Peers that are not installed are skipped.
Case 3: Scotch on a 16x16x16 stencil / full 16^3 torus with a seed where its default strategy
puts several tasks on one proc (reported, and repaired with repair=True).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from benchmarks.peers import scotch, zoltan2

_HERE = Path(__file__).resolve().parent

HOPPER_CANDIDATES = (
    _HERE.parents[2] / "shared" / "data" / "hopper_512rank_machine.txt",
    Path("/work/shared/data/hopper_512rank_machine.txt"),
)


def stencil_3d(nx, ny, nz):
    """Non-periodic 7-point stencil: coords (n, 3), symmetric CSR (indptr, indices, weights)."""
    n = nx * ny * nz
    ids = np.arange(n)
    xyz = np.stack([ids % nx, (ids // nx) % ny, ids // (nx * ny)], axis=1)
    dims = np.array([nx, ny, nz])
    src, dst = [], []
    for d in range(3):
        for s in (-1, 1):
            q = xyz.copy()
            q[:, d] += s
            ok = (q[:, d] >= 0) & (q[:, d] < dims[d])
            src.append(ids[ok])
            dst.append(q[ok, 0] + nx * (q[ok, 1] + ny * q[ok, 2]))
    src, dst = np.concatenate(src), np.concatenate(dst)
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    return xyz.astype(float), indptr, dst, np.ones(dst.size)


def weighted_hops(task_to_proc, proc_xyz, torus_dims, indptr, indices, weights):
    src = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    a = proc_xyz[task_to_proc[src]]
    b = proc_xyz[task_to_proc[indices]]
    d = np.abs(a - b)
    L = np.asarray(torus_dims)
    return float((np.minimum(d, L - d).sum(axis=1) * weights).sum())


def is_permutation(t2p, n_procs):
    return bool(t2p.size == n_procs and np.array_equal(np.sort(t2p), np.arange(n_procs)))


def report(name, t2p, seconds, proc_xyz, dims, g, extra=""):
    n_procs = proc_xyz.shape[0]
    hops = weighted_hops(t2p, proc_xyz, dims, *g)
    perm = is_permutation(t2p, n_procs)
    shared = np.bincount(t2p, minlength=n_procs)
    note = "" if perm else f" ({int((shared > 1).sum())} procs hold >1 task)"
    sec = "      -  " if seconds is None else f"{seconds:9.4f}"
    print(f"  {name:<34s} {sec} s  permutation={str(perm):<5s} weighted_hops={hops:8.0f}"
          f"{note}{extra}")
    return hops


def run_peers(proc_xyz, dims, task_xyz, g, scotch_target, rpn, zranks=(2,)):
    report("identity (task i -> proc i)", np.arange(task_xyz.shape[0]), None, proc_xyz, dims, g)
    if zoltan2.zoltan2_available():
        variants = [("zoltan2 (1 rank, torus shift)", dict(machine_extent=dims)),
                    ("zoltan2 (1 rank, no shift)", dict())]
        if rpn > 1:
            variants.append((f"zoltan2 (1 rank, shift, rpn={rpn})",
                             dict(machine_extent=dims, ranks_per_node=rpn)))
        for k in zranks:
            variants.append((f"zoltan2 ({k} ranks, torus shift)", dict(machine_extent=dims, nranks=k)))
        for name, kw in variants:
            try:
                t2p, s = zoltan2.map_zoltan2(proc_xyz, task_xyz, *g, **kw)
                report(name, t2p, s, proc_xyz, dims, g)
            except RuntimeError as exc:
                print(f"  {name:<34s} FAILED: {str(exc).splitlines()[0]}")
    else:
        print("  zoltan2: not available (run: bash benchmarks/peers/install_peers.sh)")
    if scotch.scotch_available():
        for name, kw in (("scotch default (seed 0)", dict()),
                         ("scotch default (seed 0), repaired", dict(repair=True)),
                         ("scotch balance, imbalance 0", dict(strategy="balance", imbalance=0.0))):
            info = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)   # reported below instead
                t2p, s = scotch.map_scotch(*g, scotch_target, seed=0, info=info, **kw)
            extra = (f"  [{info['architecture']}; over capacity: {info['overflow_tasks']},"
                     f" repaired: {info['repaired_tasks']}]")
            report(name, t2p, s, proc_xyz, dims, g, extra)
    else:
        print("  scotch: not available (run: bash benchmarks/peers/install_peers.sh)")


def main():
    print(f"peers: zoltan2={zoltan2.zoltan2_available()} ({zoltan2.driver_path()}), "
          f"scotch={scotch.scotch_available()}"
          + (f" (libscotch {scotch.scotch_version()})" if scotch.scotch_available() else ""))
    task_xyz, indptr, indices, weights = stencil_3d(8, 8, 8)
    g = (indptr, indices, weights)
    print(f"task graph: 8x8x8 7-point stencil, {task_xyz.shape[0]} tasks, "
          f"{indices.size} directed edges (weight 1)")

    dims = (8, 8, 8)
    print("\n[1] full 8x8x8 torus, 512 procs (proc id = x + 8*(y + 8*z))")
    run_peers(task_xyz.copy(), dims, task_xyz, g, scotch.TorusTarget(dims), rpn=1)

    path = next((p for p in HOPPER_CANDIDATES if p.exists()), None)
    if path is None:
        print("\n[2] hopper_512rank_machine.txt not found; skipped")
        return
    hop_xyz = np.loadtxt(path, dtype=np.int64).reshape(-1, 3)
    dims = (17, 8, 24)
    routers = np.unique(hop_xyz, axis=0).shape[0]
    print(f"\n[2] Hopper allocation {path.name}: {hop_xyz.shape[0]} ranks on {routers} routers,"
          f" torus 17x8x24 (24 ranks per node, 48 per router)")
    run_peers(hop_xyz.astype(float), dims, task_xyz, g,
              scotch.TorusTarget.from_proc_coords(dims, hop_xyz), rpn=24, zranks=(2, 14))

    if scotch.scotch_available():
        # Scotch's default strategy does not always respect capacity with tasks == procs;
        # this seed is one where it does not (found on this machine, libscotch 7.0.3).
        print("\n[3] Scotch collisions: 16x16x16 stencil on a full 16x16x16 torus (4096 procs)")
        task16, *g16 = stencil_3d(16, 16, 16)
        g16 = tuple(g16)
        report("identity (task i -> proc i)", np.arange(4096), None, task16, (16,) * 3, g16)
        for seed in (0, 10):
            for repair in (False, True):
                info = {}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    t2p, s = scotch.map_scotch(*g16, scotch.TorusTarget((16,) * 3), seed=seed,
                                               repair=repair, info=info)
                extra = (f"  [over capacity: {info['overflow_tasks']},"
                         f" repaired: {info['repaired_tasks']}]")
                report(f"scotch default (seed {seed})" + (", repaired" if repair else ""),
                       t2p, s, task16, (16,) * 3, g16, extra)


if __name__ == "__main__":
    main()
