"""Scotch static mapping as a benchmark peer (Debian ``libscotch-dev`` 7.0, via ctypes).

Optional tooling for mpitaskmap's benchmarks; the library and its tests never need it.
Install with ``bash benchmarks/peers/install_peers.sh`` (apt ``libscotch-dev``).

Usage::

    from benchmarks.peers.scotch import scotch_available, map_scotch, TorusTarget

    t = TorusTarget((8, 8, 8))                       # full 8x8x8 torus, 1 rank per router
    t = TorusTarget((17, 8, 24), routers=[...], capacity=48)   # sparse subset
    t = TorusTarget.from_proc_coords((17, 8, 24), xyz)         # one (x, y, z) per rank
    task_to_proc, seconds = map_scotch(indptr, indices, weights, t, seed=0)

Processor numbering (what ``task_to_proc`` refers to):

* ``TorusTarget(dims)``: proc = router id ``x + X*(y + Y*z)`` (``capacity`` c > 1: proc =
  router*c + slot).
* ``TorusTarget(dims, routers, capacity)``: proc = the slots of ``routers[0]``, then those of
  ``routers[1]``, ... (capacity is an int or one int per router).
* ``TorusTarget.from_proc_coords(dims, xyz)``: proc = the row of ``xyz`` (the MPI rank).

Scotch maps tasks onto *routers* (terminals of a torus3D, or a ``sub`` architecture of the
allocated routers; with unequal capacities, a decomposition-defined architecture built from
the full torus graph whose allocated vertices carry their capacity as load). Tasks that land
on one router are then spread over that router's procs in order; inside a router every
placement costs 0 hops.

Scotch's result is *not* guaranteed to respect the capacities (with tasks == procs it
sometimes puts two tasks on one node). By default this is reported, not hidden: the
overflowing tasks wrap around onto the router's procs (so two tasks share a proc), the
returned ``task_to_proc`` is then not a permutation, a ``RuntimeWarning`` is issued, and the
numbers are stored in ``info`` when a dict is passed. ``repair=True`` instead moves each
overflowing task to the nearest router (torus hops) that still has a free proc, and reports
how many were moved.

``seconds`` is the wall-clock time of the Scotch calls (graph build + architecture build +
strategy + ``SCOTCH_graphMap``), without the Python-side preparation and the context set-up.

Reproducibility: the mapping runs in a one-thread Scotch context with the DETERMINISTIC
option and its own seeded random state (see ``map_scotch``); with Debian's threaded build,
SCOTCH_randomSeed + SCOTCH_randomReset alone give different results from run to run.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

__all__ = ["scotch_available", "map_scotch", "TorusTarget", "scotch_version"]

_LIB_CANDIDATES = (
    os.environ.get("MPITASKMAP_LIBSCOTCH", ""),
    "/usr/lib/x86_64-linux-gnu/scotch-int32/libscotch.so",
    "/usr/lib/x86_64-linux-gnu/libscotch-7.0.so",
    "/usr/lib/x86_64-linux-gnu/libscotch.so",
    "libscotch-7.0.so",
    "libscotch.so",
)

STRATEGIES = {
    "default": 0x00000,
    "quality": 0x00001,
    "speed": 0x00002,
    "balance": 0x00004,
    "safety": 0x00008,
}

_lib = None
_lib_error: str | None = None


def _load():
    global _lib, _lib_error
    if _lib is not None or _lib_error is not None:
        return _lib
    for name in _LIB_CANDIDATES:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        _lib_error = "libscotch not found (run: bash benchmarks/peers/install_peers.sh)"
        return None
    P, I, N = ctypes.c_void_p, ctypes.c_int, ctypes.c_int32
    NP = ctypes.POINTER(N)
    sigs = {
        "SCOTCH_numSizeof": ([], I),
        "SCOTCH_version": ([ctypes.POINTER(I)] * 3, None),
        "SCOTCH_randomSeed": ([N], None),
        "SCOTCH_randomReset": ([], None),
        "SCOTCH_memFree": ([P], None),
        "SCOTCH_graphAlloc": ([], P),
        "SCOTCH_graphInit": ([P], I),
        "SCOTCH_graphExit": ([P], None),
        "SCOTCH_graphBuild": ([P, N, N, NP, NP, NP, NP, N, NP, NP], I),
        "SCOTCH_graphCheck": ([P], I),
        "SCOTCH_graphMap": ([P, P, P, NP], I),
        "SCOTCH_archAlloc": ([], P),
        "SCOTCH_archInit": ([P], I),
        "SCOTCH_archExit": ([P], None),
        "SCOTCH_archTorus3": ([P, N, N, N], I),
        "SCOTCH_archSub": ([P, P, N, NP], I),
        "SCOTCH_archBuild0": ([P, P, N, NP, P], I),
        "SCOTCH_archSize": ([P], N),
        "SCOTCH_stratAlloc": ([], P),
        "SCOTCH_stratInit": ([P], I),
        "SCOTCH_stratExit": ([P], None),
        "SCOTCH_stratGraphMapBuild": ([P, N, N, ctypes.c_double], I),
        "SCOTCH_contextAlloc": ([], P),
        "SCOTCH_contextInit": ([P], I),
        "SCOTCH_contextExit": ([P], None),
        "SCOTCH_contextOptionSetNum": ([P, I, N], I),
        "SCOTCH_contextRandomClone": ([P], I),
        "SCOTCH_contextRandomSeed": ([P, N], None),
        "SCOTCH_contextThreadSpawn": ([P, I, ctypes.POINTER(I)], I),
        "SCOTCH_contextBindGraph": ([P, P, P], I),
    }
    try:
        for fname, (argt, rest) in sigs.items():
            f = getattr(lib, fname)
            f.argtypes = argt
            f.restype = rest
    except AttributeError as exc:
        _lib_error = f"libscotch lacks a symbol: {exc}"
        return None
    if lib.SCOTCH_numSizeof() != 4:
        _lib_error = "libscotch was built with 64-bit SCOTCH_Num; point MPITASKMAP_LIBSCOTCH at the int32 build"
        return None
    _lib = lib
    return lib


def scotch_available() -> bool:
    """True when a usable (32-bit SCOTCH_Num) libscotch can be loaded."""
    return _load() is not None


def scotch_version() -> str:
    lib = _load()
    if lib is None:
        raise RuntimeError(_lib_error)
    v = [ctypes.c_int() for _ in range(3)]
    lib.SCOTCH_version(*[ctypes.byref(x) for x in v])
    return ".".join(str(x.value) for x in v)


@dataclass
class TorusTarget:
    """A 3D torus of routers, fully or partly allocated, with ``capacity`` procs per router."""

    dims: tuple
    routers: np.ndarray | None = None   # allocated router linear ids x + X*(y + Y*z); None = all
    capacity: object = 1                # int, or one int per router
    proc_order: np.ndarray | None = field(default=None, repr=False)  # slot -> proc id

    def __post_init__(self):
        self.dims = tuple(int(d) for d in self.dims)
        if len(self.dims) != 3 or min(self.dims) < 1:
            raise ValueError("dims must be three positive extents")
        n_all = self.dims[0] * self.dims[1] * self.dims[2]
        if self.routers is None:
            self.routers = np.arange(n_all, dtype=np.int64)
            self.full = True
        else:
            self.routers = np.asarray(self.routers, dtype=np.int64).ravel()
            if self.routers.size == 0:
                raise ValueError("empty router list")
            if self.routers.min() < 0 or self.routers.max() >= n_all:
                raise ValueError("router id outside the torus")
            if np.unique(self.routers).size != self.routers.size:
                raise ValueError("router ids must be distinct (use capacity for several procs)")
            self.full = self.routers.size == n_all and np.array_equal(self.routers, np.arange(n_all))
        cap = np.asarray(self.capacity, dtype=np.int64)
        cap = np.full(self.routers.size, int(cap)) if cap.ndim == 0 else cap.ravel()
        if cap.size != self.routers.size or cap.min() < 1:
            raise ValueError("capacity must be a positive int or one positive int per router")
        self.cap = cap
        self.offsets = np.concatenate([[0], np.cumsum(cap)])
        if self.proc_order is None:
            self.proc_order = np.arange(self.offsets[-1], dtype=np.int64)

    @classmethod
    def from_proc_coords(cls, dims, xyz) -> "TorusTarget":
        """One row (x, y, z) of router coordinates per proc/rank; procs = row indices."""
        xyz = np.asarray(xyz, dtype=np.int64)
        if xyz.ndim != 2 or xyz.shape[1] != 3:
            raise ValueError("xyz must have shape (n_procs, 3)")
        X, Y, Z = (int(d) for d in dims)
        if (xyz < 0).any() or (xyz >= np.array([X, Y, Z])).any():
            raise ValueError("coordinates outside the torus")
        lin = xyz[:, 0] + X * (xyz[:, 1] + Y * xyz[:, 2])
        routers, first, counts = np.unique(lin, return_index=True, return_counts=True)
        order = np.argsort(first, kind="stable")          # routers in order of first rank
        routers, counts = routers[order], counts[order]
        slot_of_router = {int(r): i for i, r in enumerate(routers)}
        # slots of router j = the ranks on it, in increasing rank order
        proc_order = np.argsort(np.array([slot_of_router[int(r)] for r in lin]), kind="stable")
        return cls((X, Y, Z), routers=routers, capacity=counts, proc_order=proc_order)

    @property
    def n_procs(self) -> int:
        return int(self.offsets[-1])

    def router_xyz(self) -> np.ndarray:
        X, Y, _ = self.dims
        r = self.routers
        return np.stack([r % X, (r // X) % Y, r // (X * Y)], axis=1)


def _torus_graph_csr(dims):
    """CSR of the 6-neighbour torus graph (distinct neighbours only)."""
    X, Y, Z = dims
    n = X * Y * Z
    ids = np.arange(n)
    x, y, z = ids % X, (ids // X) % Y, ids // (X * Y)
    nbrs = []
    for d, (c, L) in enumerate(((x, X), (y, Y), (z, Z))):
        for s in ((1, -1) if L > 2 else ((1,) if L == 2 else ())):
            cc = (c + s) % L
            q = [x, y, z]
            q[d] = cc
            nbrs.append(q[0] + X * (q[1] + Y * q[2]))
    if not nbrs:
        return np.zeros(n + 1, np.int32), np.zeros(0, np.int32)
    adj = np.stack(nbrs, axis=1)
    indptr = np.arange(0, adj.size + 1, adj.shape[1], dtype=np.int32)
    return indptr, adj.ravel().astype(np.int32)


def _integer_weights(weights, nnz):
    if weights is None:
        return np.ones(nnz, dtype=np.int32), 1.0
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size != nnz:
        raise ValueError("weights must have one entry per adjacency entry")
    if (w < 0).any():
        raise ValueError("negative edge weights")
    if np.all(w == np.round(w)) and (w.max(initial=0) < 2**31 / 64):
        return np.maximum(w, 1).astype(np.int32), 1.0
    scale = 1e6 / w.max()                    # Scotch needs integer loads
    return np.maximum(np.round(w * scale), 1).astype(np.int32), scale


def _torus_hops(a_xyz, b_xyz, dims):
    d = np.abs(a_xyz - b_xyz)
    L = np.asarray(dims)
    return np.minimum(d, L - d).sum(axis=-1)


def map_scotch(indptr, indices, weights, target: TorusTarget, *, seed: int = 0,
               strategy: str = "default", imbalance: float = 0.05, repair: bool = False,
               threads: int = 1, info: dict | None = None):
    """Scotch static mapping of a task graph (directed CSR, both directions) onto ``target``.

    Returns ``(task_to_proc, seconds)``. See the module docstring for numbering, collisions
    and ``repair``. ``strategy`` is one of ``STRATEGIES`` (Scotch's SCOTCH_STRAT* flags),
    ``imbalance`` is Scotch's balance ratio.

    Reproducibility: Debian's libscotch is built with POSIX threads, and with several threads
    SCOTCH_randomSeed + SCOTCH_randomReset alone do NOT make runs repeatable. So the mapping
    runs in a Scotch context with ``threads`` threads (default 1), the DETERMINISTIC option
    set and its own random state seeded with ``seed`` (the global generator is seeded too).
    ``threads > 1`` is faster on big graphs but not reproducible.
    """
    lib = _load()
    if lib is None:
        raise RuntimeError(_lib_error)
    if not isinstance(target, TorusTarget):
        target = TorusTarget(*target) if isinstance(target, tuple) else TorusTarget(**target)
    xadj = np.ascontiguousarray(indptr, dtype=np.int32)
    adj = np.ascontiguousarray(indices, dtype=np.int32)
    n = xadj.size - 1
    if n < 1 or xadj[0] != 0 or xadj[-1] != adj.size:
        raise ValueError("bad CSR")
    if adj.size and (adj.min() < 0 or adj.max() >= n):
        raise ValueError("adjacency index out of range")
    src = np.repeat(np.arange(n), np.diff(xadj))
    if (adj == src).any():                      # Scotch rejects self loops (cost 0 anyway)
        keep = adj != src
        w_full = np.ones(adj.size) if weights is None else np.asarray(weights, float).ravel()
        xadj = np.concatenate([[0], np.cumsum(np.bincount(src[keep], minlength=n))]).astype(np.int32)
        adj, weights = np.ascontiguousarray(adj[keep]), w_full[keep]
    wint, wscale = _integer_weights(weights, adj.size)
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {sorted(STRATEGIES)}")
    k = int(target.routers.size)
    if n > target.n_procs:
        raise ValueError(f"{n} tasks but only {target.n_procs} procs in the target")
    uniform = bool((target.cap == target.cap[0]).all())

    NP = ctypes.POINTER(ctypes.c_int32)
    ptr = lambda a: a.ctypes.data_as(NP)  # noqa: E731
    part = np.full(n, -1, dtype=np.int32)
    handles = []
    lib.SCOTCH_randomSeed(int(seed))
    lib.SCOTCH_randomReset()
    try:
        ctx = lib.SCOTCH_contextAlloc()
        if lib.SCOTCH_contextInit(ctx):
            lib.SCOTCH_memFree(ctx)
            raise RuntimeError("SCOTCH_contextInit failed")
        handles.append(("context", ctx))
        if (lib.SCOTCH_contextOptionSetNum(ctx, 0, 1)           # SCOTCH_OPTIONNUMDETERMINISTIC
                or lib.SCOTCH_contextRandomClone(ctx)):
            raise RuntimeError("SCOTCH context setup failed")
        lib.SCOTCH_contextRandomSeed(ctx, int(seed))
        if lib.SCOTCH_contextThreadSpawn(ctx, max(1, int(threads)), None):
            raise RuntimeError("SCOTCH_contextThreadSpawn failed")
        t0 = time.perf_counter()
        g = lib.SCOTCH_graphAlloc()
        lib.SCOTCH_graphInit(g)
        handles.append(("graph", g))
        if lib.SCOTCH_graphBuild(g, 0, n, ptr(xadj), None, None, None, adj.size, ptr(adj), ptr(wint)):
            raise RuntimeError("SCOTCH_graphBuild failed")
        gc = lib.SCOTCH_graphAlloc()                            # g bound to the context
        if lib.SCOTCH_contextBindGraph(ctx, g, gc):
            lib.SCOTCH_memFree(gc)
            raise RuntimeError("SCOTCH_contextBindGraph failed")
        handles.append(("graph", gc))
        X, Y, Z = target.dims
        arch = lib.SCOTCH_archAlloc()
        lib.SCOTCH_archInit(arch)
        handles.append(("arch", arch))
        if target.full and uniform:
            kind = "torus3D"
            if lib.SCOTCH_archTorus3(arch, X, Y, Z):
                raise RuntimeError("SCOTCH_archTorus3 failed")
        elif uniform:
            kind = "sub(torus3D)"
            parent = lib.SCOTCH_archAlloc()
            lib.SCOTCH_archInit(parent)
            handles.append(("arch", parent))
            if lib.SCOTCH_archTorus3(parent, X, Y, Z):
                raise RuntimeError("SCOTCH_archTorus3 failed")
            lst = np.ascontiguousarray(target.routers, dtype=np.int32)
            if lib.SCOTCH_archSub(arch, parent, k, ptr(lst)):
                raise RuntimeError("SCOTCH_archSub failed")
        else:
            # unequal capacities: deco architecture from the full torus graph, allocated
            # routers weighted by their capacity (terminal domain weights)
            kind = "deco(torus3D, weighted)"
            txadj, tadj = _torus_graph_csr(target.dims)
            vload = np.ones(X * Y * Z, dtype=np.int32)
            vload[target.routers] = target.cap
            tg = lib.SCOTCH_graphAlloc()
            lib.SCOTCH_graphInit(tg)
            handles.append(("graph", tg))
            if lib.SCOTCH_graphBuild(tg, 0, X * Y * Z, ptr(txadj), None, ptr(vload), None,
                                     tadj.size, ptr(tadj), None):
                raise RuntimeError("SCOTCH_graphBuild (target) failed")
            astrat = lib.SCOTCH_stratAlloc()
            lib.SCOTCH_stratInit(astrat)
            handles.append(("strat", astrat))
            lst = np.ascontiguousarray(target.routers, dtype=np.int32)
            if lib.SCOTCH_archBuild0(arch, tg, k, ptr(lst), astrat):
                raise RuntimeError("SCOTCH_archBuild0 failed")
        strat = lib.SCOTCH_stratAlloc()
        lib.SCOTCH_stratInit(strat)
        handles.append(("strat", strat))
        if lib.SCOTCH_stratGraphMapBuild(strat, STRATEGIES[strategy], k, float(imbalance)):
            raise RuntimeError("SCOTCH_stratGraphMapBuild failed")
        if lib.SCOTCH_graphMap(gc, arch, strat, ptr(part)):
            raise RuntimeError("SCOTCH_graphMap failed (see stderr)")
        seconds = time.perf_counter() - t0
    finally:
        for what, h in reversed(handles):
            {"graph": lib.SCOTCH_graphExit, "arch": lib.SCOTCH_archExit,
             "strat": lib.SCOTCH_stratExit, "context": lib.SCOTCH_contextExit}[what](h)
            lib.SCOTCH_memFree(h)
    # torus3D: terminal = router linear id = position in the (full) router list;
    # sub: terminal j = position j in the router list; deco: terminal = the label, i.e. the
    # router's vertex id in the full torus graph -> map back to the position in the list.
    if kind.startswith("deco"):
        pos = np.full(X * Y * Z, -1, dtype=np.int64)
        pos[target.routers] = np.arange(k)
        if part.min() < 0 or part.max() >= X * Y * Z or (pos[part] < 0).any():
            raise RuntimeError("Scotch returned a terminal label outside the allocation")
        part = pos[part].astype(np.int32)
    if part.min() < 0 or part.max() >= k:
        raise RuntimeError("Scotch returned an out-of-range terminal")

    load = np.bincount(part, minlength=k)
    over = np.maximum(load - target.cap, 0)
    n_over = int(over.sum())
    moved = 0
    router = part.astype(np.int64)
    if repair and n_over:
        rxyz = target.router_xyz()
        free = target.cap - np.minimum(load, target.cap)
        for j in np.flatnonzero(over):
            extra = np.flatnonzero(router == j)[target.cap[j]:]
            for t in extra:
                cand = np.flatnonzero(free > 0)
                h = _torus_hops(rxyz[cand], rxyz[j], target.dims)
                dest = cand[np.argmin(h)]      # ties -> lowest router position
                router[t] = dest
                free[dest] -= 1
                moved += 1
    # spread each router's tasks over its procs (slot order); overflow wraps (shares a proc)
    order = np.argsort(router, kind="stable")
    rank_in_router = np.empty(n, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(np.bincount(router, minlength=k))])
    rank_in_router[order] = np.arange(n) - starts[router[order]]
    slot = target.offsets[router] + rank_in_router % target.cap[router]
    task_to_proc = target.proc_order[slot].astype(np.int64)

    used = np.bincount(task_to_proc, minlength=target.n_procs)
    stats = {
        "architecture": kind,
        "strategy": strategy,
        "threads": max(1, int(threads)),
        "imbalance": imbalance,
        "weight_scale": wscale,
        "overflow_tasks": n_over,                      # tasks beyond a router's capacity
        "tasks_sharing_a_proc": int((used[used > 1]).sum()),
        "procs_with_several_tasks": int((used > 1).sum()),
        "repaired_tasks": moved,
    }
    if info is not None:
        info.update(stats)
    if n_over and not repair:
        warnings.warn(f"Scotch exceeded router capacity: {n_over} task(s) over capacity, "
                      f"{stats['procs_with_several_tasks']} proc(s) hold several tasks",
                      RuntimeWarning, stacklevel=2)
    return task_to_proc, seconds
