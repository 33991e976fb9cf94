"""Zoltan2's geometric (MJ) task mapper as a benchmark peer.

Optional tooling for mpitaskmap's benchmarks; the library and its tests never need it.
Install and build with ``bash benchmarks/peers/install_peers.sh``, which compiles
``zoltan2_driver.cpp`` (Debian's Trilinos 13.2) into ``benchmarks/peers/build/zoltan2_map``.
Set ``MPITASKMAP_ZOLTAN2_MAP`` to use a driver binary elsewhere.

Usage::

    from benchmarks.peers.zoltan2 import zoltan2_available, map_zoltan2
    task_to_proc, seconds = map_zoltan2(proc_coords, task_coords, indptr, indices, weights,
                                        machine_extent=(17, 8, 24), ranks_per_node=1)

``task_to_proc[t]`` is a row index of ``proc_coords``. ``seconds`` is the wall-clock time of
Zoltan2's ``coordinateTaskMapperInterface`` call alone (measured inside the driver; file I/O
and process start-up excluded).

``machine_extent`` (one int per processor coordinate dimension) turns on Zoltan2's torus
shift: per dimension the largest empty gap of the allocation becomes the wrap-around link.
Processor coordinates must then be integers in ``[0, extent)``. Without it the processor
coordinates are partitioned as they are.

Known quirks of Debian's Trilinos 13.2: ``divide_prime_first=True`` with the automatic
``recursion_depth=-1`` aborts inside Kokkos ("View 'all cut coordinates' has mismatched
number of arguments"); an explicit, generous depth (e.g. 20 for 512 procs) works, some small
ones fail with "maxPartNo calculation is wrong". ``recursion_depth=0`` without an explicit part
array divides by zero, so it is rejected here.

With the default ``nranks=1`` Zoltan2 computes a single candidate mapping (longest dimension
on both sides). ``nranks=k`` runs the driver under Debian's ``mpirun -np k``: each rank
computes another rotation and Zoltan2 keeps the cheapest (its cost model is L1 on the
shifted coordinates), which is what a k-rank application would get.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["zoltan2_available", "map_zoltan2", "driver_path", "rotation_of_rank"]

_HERE = Path(__file__).resolve().parent
_MPIRUN = "/usr/bin/mpirun.openmpi"   # the MPI the driver was built against (Debian Open MPI)


def driver_path() -> Path:
    env = os.environ.get("MPITASKMAP_ZOLTAN2_MAP")
    return Path(env) if env else _HERE / "build" / "zoltan2_map"


def zoltan2_available() -> bool:
    """True when the compiled driver exists and is executable."""
    p = driver_path()
    return p.is_file() and os.access(p, os.X_OK)


def _write_coords(path: Path, coords: np.ndarray) -> None:
    c = np.asarray(coords, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] < 1 or c.shape[1] < 1:
        raise ValueError("coordinates must have shape (n, dim)")
    if not np.isfinite(c).all():
        raise ValueError("coordinates must be finite")
    with open(path, "wb") as f:
        np.array(c.shape, dtype="<i4").tofile(f)
        np.ascontiguousarray(c.T, dtype="<f8").tofile(f)     # dimension-major


def _write_graph(path: Path, indptr, indices, weights, n_tasks: int) -> None:
    xadj = np.asarray(indptr, dtype=np.int64)
    adj = np.asarray(indices, dtype=np.int64)
    if xadj.shape != (n_tasks + 1,):
        raise ValueError(f"indptr must have n_tasks + 1 = {n_tasks + 1} entries")
    if xadj[0] != 0 or xadj[-1] != adj.size or (np.diff(xadj) < 0).any():
        raise ValueError("bad CSR indptr")
    if adj.size and (adj.min() < 0 or adj.max() >= n_tasks):
        raise ValueError("adjacency index out of range")
    w = np.ones(adj.size) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if w.size != adj.size:
        raise ValueError("weights must have one entry per adjacency entry")
    if adj.size >= 2**31:
        raise ValueError("graph too large for int32 CSR")
    with open(path, "wb") as f:
        np.array([n_tasks, adj.size], dtype="<i4").tofile(f)
        xadj.astype("<i4").tofile(f)
        adj.astype("<i4").tofile(f)
        w.astype("<f8").tofile(f)


def map_zoltan2(proc_coords, task_coords, indptr, indices, weights, *, machine_extent=None,
                ranks_per_node: int = 1, divide_prime_first: bool = False,
                recursion_depth: int = -1, nranks: int = 1, timeout: float = 600.0,
                verbose: bool = False, each_rank: bool = False):
    """Run Zoltan2's coordinate task mapper; return ``(task_to_proc, seconds)``.

    ``each_rank=True`` (with ``nranks = k``): no best-of reduction; return
    ``(list of k task_to_proc arrays, seconds)``, entry ``r`` being the candidate of
    Zoltan2's rotation ``r`` (rank ``r``; see ``rotation_of_rank``).

    ``indptr``/``indices``/``weights``: directed CSR task graph (list both directions of a
    symmetric edge; Zoltan2 uses it only to pick the cheapest candidate when ``nranks > 1``).
    ``verbose=True`` echoes the driver's configuration line (ranks, sizes, options) to stderr.
    Raises RuntimeError (with the driver's stderr) when the driver fails or is missing.
    """
    exe = driver_path()
    if not zoltan2_available():
        raise RuntimeError(f"Zoltan2 driver not found at {exe}; "
                           "run: bash benchmarks/peers/install_peers.sh")
    pc = np.asarray(proc_coords, dtype=np.float64)
    tc = np.asarray(task_coords, dtype=np.float64)
    pc = pc[:, None] if pc.ndim == 1 else pc
    tc = tc[:, None] if tc.ndim == 1 else tc
    n_procs, n_tasks = pc.shape[0], tc.shape[0]
    if recursion_depth == 0:
        raise ValueError("recursion_depth=0 crashes Zoltan2 (SIGFPE); use -1 for automatic")
    if int(ranks_per_node) < 1:
        raise ValueError("ranks_per_node must be >= 1")

    with tempfile.TemporaryDirectory(prefix="zoltan2_map_") as tmp:
        tmp = Path(tmp)
        _write_coords(tmp / "procs.bin", pc)
        _write_coords(tmp / "tasks.bin", tc)
        _write_graph(tmp / "graph.bin", indptr, indices, weights, n_tasks)
        cmd = [str(exe), "--procs", str(tmp / "procs.bin"), "--tasks", str(tmp / "tasks.bin"),
               "--graph", str(tmp / "graph.bin"), "--out", str(tmp / "out.txt"),
               "--rpn", str(int(ranks_per_node)), "--depth", str(int(recursion_depth))]
        if machine_extent is not None:
            ext = [int(e) for e in np.atleast_1d(machine_extent)]
            if len(ext) != pc.shape[1]:
                raise ValueError("machine_extent needs one value per processor dimension")
            cmd += ["--extent", ",".join(map(str, ext))]
        if divide_prime_first:
            cmd.append("--prime-first")
        if verbose:
            cmd.append("--verbose")
        if each_rank:
            cmd.append("--each-rank")
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        if nranks > 1:
            mpirun = _MPIRUN if os.path.exists(_MPIRUN) else shutil.which("mpirun")
            if mpirun is None:
                raise RuntimeError("nranks > 1 needs Open MPI's mpirun")
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            cmd = [mpirun, "-np", str(int(nranks)), "--oversubscribe", "--bind-to", "none"] + cmd
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"zoltan2_map timed out after {timeout} s") from exc
        if proc.returncode != 0:
            hint = ""
            if divide_prime_first and recursion_depth == -1:
                hint = ("\nhint: Trilinos 13.2 aborts with divide_prime_first and the automatic "
                        "depth; pass an explicit recursion_depth (e.g. 2*ceil(log2(P)) + 2)")
            raise RuntimeError(f"zoltan2_map failed (exit {proc.returncode}):\n"
                               f"{proc.stderr.strip() or proc.stdout.strip()}{hint}")
        names = [f"out.txt.{r}" for r in range(max(1, int(nranks)))] if each_rank else ["out.txt"]
        results = []
        for name in names:
            try:
                lines = (tmp / name).read_text().split()
                n_out, seconds = int(lines[0]), float(lines[1])
                task_to_proc = np.array(lines[2:], dtype=np.int64)
            except (OSError, ValueError, IndexError) as exc:
                raise RuntimeError(f"cannot parse zoltan2_map output: {exc}\n{proc.stderr}") from exc
            if n_out != n_tasks or task_to_proc.size != n_tasks:
                raise RuntimeError("zoltan2_map returned the wrong number of tasks")
            if task_to_proc.size and (task_to_proc.min() < 0 or task_to_proc.max() >= n_procs):
                raise RuntimeError("zoltan2_map returned an out-of-range processor")
            results.append(task_to_proc)
    if verbose and proc.stderr:
        print(proc.stderr.rstrip(), file=sys.stderr)
    return (results if each_rank else results[0]), seconds


def _ith_permutation(n: int, i: int) -> tuple[int, ...]:
    """Zoltan2's ``ithPermutation``: the i-th permutation of 0..n-1 in lexicographic order."""
    import itertools
    return next(p for k, p in enumerate(itertools.permutations(range(n))) if k == i)


def rotation_of_rank(rank: int, task_dim: int, proc_dim: int):
    """The ``(task_perm, proc_perm)`` rotation Zoltan2's rank ``rank`` computes (None = longest).

    Enumeration of ``Zoltan2_TaskMapping.hpp`` (13.2): ``m = rank mod G`` with
    ``G = tp*pp + tp + pp + 1`` (``tp = task_dim!``, ``pp = proc_dim!``); m = 0 longest/longest,
    then task permutations with processors longest, processor permutations with tasks
    longest, then every pair (task index = q // pp, processor index = q % pp).
    NOTE: Trilinos 13.2 computes the processor permutation but never applies it (the
    reordering block is commented out): its processor side is either "longest" or the
    natural cycle 0, 1, 2, ... whatever ``proc_perm`` says.
    """
    import math
    tp, pp = math.factorial(task_dim), math.factorial(proc_dim)
    m = rank % (tp * pp + tp + pp + 1)
    if m == 0:
        return None, None
    m -= 1
    if m < tp:
        return _ith_permutation(task_dim, m), None
    m -= tp
    if m < pp:
        return None, _ith_permutation(proc_dim, m)
    m -= pp
    return _ith_permutation(task_dim, m // pp), _ith_permutation(proc_dim, m % pp)
