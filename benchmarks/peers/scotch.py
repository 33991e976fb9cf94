"""Scotch static mapping as a benchmark peer (Debian ``libscotch-dev`` 7.0, via ctypes).

Optional tooling for mpitaskmap's benchmarks; the library and its tests never need it.
Install with ``bash benchmarks/peers/install_peers.sh`` (apt ``libscotch-dev``).

Usage::

    from benchmarks.peers.scotch import scotch_available, map_scotch, TorusTarget

    t = TorusTarget((8, 8, 8))                       # full 8x8x8 torus, 1 rank per router
    t = TorusTarget((17, 8, 24), routers=[...], capacity=48)   # sparse subset
    t = TorusTarget.from_proc_coords((17, 8, 24), xyz)         # one (x, y, z) per rank
    task_to_proc, seconds = map_scotch(indptr, indices, weights, t, seed=0)
    task_to_proc, seconds = map_scotch_tleaf(indptr, indices, weights, fat_tree_machine, seed=0)

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

Fat trees (``map_scotch_tleaf``): Scotch's tree-leaf target ``tleaf LEVELS size0 val0 size1
val1 ...`` (``SCOTCH_archTleaf``, levels from the root down, ``val`` the cost of the links
below that level; a pair's distance is the sum of the ``val`` of the levels from their
lowest common ancestor down) built from the allocation's switch hierarchy by
``peer_inputs.TreeAllocation``: one level per switch level, top first, of the largest number
of allocated children of one group, then the cores of a node; ``val`` = 10 x the level cost
of ``peer_inputs.level_costs`` (a 4:1 tapered spine level costs 4 x a leaf level), 1 for the
cores.  The terminals are the processors, in processor order, through a ``sub``
architecture of that tleaf (``SCOTCH_archSub``: a scattered allocation, or a leaf with fewer
allocated nodes than the widest, leaves terminals out), so Scotch's label of a task is its
processor.  On fattree_machine(leaves=32, nodes_per_leaf=16, taper=4, nodes=64, ppn=8,
seed=1) that is ``sub (tleaf 3 28 40 4 10 8 1) 512 <terminals>``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .peer_inputs import TreeAllocation, integer_weights, place_on_slots

__all__ = ["scotch_available", "map_scotch", "TorusTarget", "scotch_version", "map_scotch_tleaf", "TleafTarget"]

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
        "SCOTCH_archTleaf": ([P, N, NP, NP], I),
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


def _torus_hops(a_xyz, b_xyz, dims):
    d = np.abs(a_xyz - b_xyz)
    L = np.asarray(dims)
    return np.minimum(d, L - d).sum(axis=-1)


def _scotch_csr(indptr, indices, weights):
    """Checked int32 CSR without self loops and Scotch's integer edge weights (and their scale)."""
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
    wint, wscale = integer_weights(weights, adj.size)
    return xadj, adj, wint, wscale


def _graph_map(xadj, adj, wint, n_parts: int, build_arch, *, seed: int, strategy: str, imbalance: float,
               threads: int):
    """Run SCOTCH_graphMap on the target ``build_arch(lib, arch, new)`` makes in ``arch``.

    ``new(kind)`` allocates and initialises a Scotch object ("arch", "graph" or "strat") that
    is freed with the others; ``build_arch`` returns the architecture's description.  Returns
    ``(part, seconds, description)``; ``seconds`` covers graph build + architecture build +
    strategy + ``SCOTCH_graphMap`` (see ``map_scotch`` for the context and reproducibility).
    """
    lib = _load()
    if lib is None:
        raise RuntimeError(_lib_error)
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {sorted(STRATEGIES)}")
    n = xadj.size - 1
    NP = ctypes.POINTER(ctypes.c_int32)
    ptr = lambda a: a.ctypes.data_as(NP)  # noqa: E731
    part = np.full(n, -1, dtype=np.int32)
    handles = []
    alloc = {"graph": (lib.SCOTCH_graphAlloc, lib.SCOTCH_graphInit), "arch": (lib.SCOTCH_archAlloc, lib.SCOTCH_archInit),
             "strat": (lib.SCOTCH_stratAlloc, lib.SCOTCH_stratInit)}

    def new(kind: str):
        make, init = alloc[kind]
        h = make()
        init(h)
        handles.append((kind, h))
        return h

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
        g = new("graph")
        if lib.SCOTCH_graphBuild(g, 0, n, ptr(xadj), None, None, None, adj.size, ptr(adj), ptr(wint)):
            raise RuntimeError("SCOTCH_graphBuild failed")
        gc = lib.SCOTCH_graphAlloc()                            # g bound to the context
        if lib.SCOTCH_contextBindGraph(ctx, g, gc):
            lib.SCOTCH_memFree(gc)
            raise RuntimeError("SCOTCH_contextBindGraph failed")
        handles.append(("graph", gc))
        arch = new("arch")
        kind = build_arch(lib, arch, new)
        strat = new("strat")
        if lib.SCOTCH_stratGraphMapBuild(strat, STRATEGIES[strategy], n_parts, float(imbalance)):
            raise RuntimeError("SCOTCH_stratGraphMapBuild failed")
        if lib.SCOTCH_graphMap(gc, arch, strat, ptr(part)):
            raise RuntimeError("SCOTCH_graphMap failed (see stderr)")
        seconds = time.perf_counter() - t0
    finally:
        for what, h in reversed(handles):
            {"graph": lib.SCOTCH_graphExit, "arch": lib.SCOTCH_archExit,
             "strat": lib.SCOTCH_stratExit, "context": lib.SCOTCH_contextExit}[what](h)
            lib.SCOTCH_memFree(h)
    return part, seconds, kind


def _report(kind, strategy, threads, imbalance, wscale, n_over, moved, used, repair, info, where):
    stats = {
        "architecture": kind,
        "strategy": strategy,
        "threads": max(1, int(threads)),
        "imbalance": imbalance,
        "weight_scale": wscale,
        "overflow_tasks": n_over,                      # tasks beyond a terminal's capacity
        "tasks_sharing_a_proc": int((used[used > 1]).sum()),
        "procs_with_several_tasks": int((used > 1).sum()),
        "repaired_tasks": moved,
    }
    if info is not None:
        info.update(stats)
    if n_over and not repair:
        warnings.warn(f"Scotch exceeded {where} capacity: {n_over} task(s) over capacity, "
                      f"{stats['procs_with_several_tasks']} proc(s) hold several tasks",
                      RuntimeWarning, stacklevel=3)


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
    if _load() is None:
        raise RuntimeError(_lib_error)
    if not isinstance(target, TorusTarget):
        target = TorusTarget(*target) if isinstance(target, tuple) else TorusTarget(**target)
    xadj, adj, wint, wscale = _scotch_csr(indptr, indices, weights)
    n = xadj.size - 1
    k = int(target.routers.size)
    if n > target.n_procs:
        raise ValueError(f"{n} tasks but only {target.n_procs} procs in the target")
    uniform = bool((target.cap == target.cap[0]).all())
    X, Y, Z = target.dims
    NP = ctypes.POINTER(ctypes.c_int32)
    ptr = lambda a: a.ctypes.data_as(NP)  # noqa: E731

    def build(lib, arch, new):
        if target.full and uniform:
            if lib.SCOTCH_archTorus3(arch, X, Y, Z):
                raise RuntimeError("SCOTCH_archTorus3 failed")
            return "torus3D"
        lst = np.ascontiguousarray(target.routers, dtype=np.int32)
        build.keep = lst  # alive until SCOTCH_graphMap has run (as the arrays of map_scotch_tleaf)
        if uniform:
            parent = new("arch")
            if lib.SCOTCH_archTorus3(parent, X, Y, Z):
                raise RuntimeError("SCOTCH_archTorus3 failed")
            if lib.SCOTCH_archSub(arch, parent, k, ptr(lst)):
                raise RuntimeError("SCOTCH_archSub failed")
            return "sub(torus3D)"
        # unequal capacities: deco architecture from the full torus graph, allocated
        # routers weighted by their capacity (terminal domain weights)
        txadj, tadj = _torus_graph_csr(target.dims)
        vload = np.ones(X * Y * Z, dtype=np.int32)
        vload[target.routers] = target.cap
        build.keep = (lst, txadj, tadj, vload)
        tg = new("graph")
        if lib.SCOTCH_graphBuild(tg, 0, X * Y * Z, ptr(txadj), None, ptr(vload), None,
                                 tadj.size, ptr(tadj), None):
            raise RuntimeError("SCOTCH_graphBuild (target) failed")
        astrat = new("strat")
        if lib.SCOTCH_archBuild0(arch, tg, k, ptr(lst), astrat):
            raise RuntimeError("SCOTCH_archBuild0 failed")
        return "deco(torus3D, weighted)"

    part, seconds, kind = _graph_map(xadj, adj, wint, k, build, seed=seed, strategy=strategy, imbalance=imbalance,
                                     threads=threads)
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
    rxyz = target.router_xyz()

    def nearest(j, free):
        cand = np.flatnonzero(free > 0)
        return cand[np.argmin(_torus_hops(rxyz[cand], rxyz[j], target.dims))]  # ties -> lowest router position

    task_to_proc, n_over, moved, used = place_on_slots(part, target.cap, target.offsets, target.proc_order, repair=repair,
                                               nearest=nearest)
    _report(kind, strategy, threads, imbalance, wscale, n_over, moved, used, repair, info, "router")
    return task_to_proc, seconds


@dataclass
class TleafTarget:
    """Scotch's tree-leaf target of a fat-tree allocation: the levels and one terminal per processor.

    Built by :meth:`from_machine`; ``sizes``/``links`` are SCOTCH_archTleaf's ``sizetab`` and
    ``linktab`` (root level first, the cores of a node last), ``terminals[p]`` the tleaf
    terminal of processor ``p`` (mixed radix of the processor's path and core, last level
    fastest), ``allocation`` the :class:`peer_inputs.TreeAllocation` it was read from.
    """

    sizes: tuple
    links: tuple
    terminals: np.ndarray
    allocation: object

    @classmethod
    def from_machine(cls, machine, *, costs=None, scale: float = 10.0) -> "TleafTarget":
        """The allocation of ``machine`` (a FatTreeMachine) as a tleaf; ``costs`` as ``TreeAllocation``.

        A level of arity 1 (every allocated node under one switch there) is left out: no pair
        has its lowest common ancestor there, and its link cost is added to the level above,
        so every distance is kept (Scotch wants at least 2 children per level).
        """
        alloc = TreeAllocation.from_machine(machine, costs)
        cost = np.rint(scale * alloc.costs[::-1]).astype(np.int64)  # top level first
        if (cost < 1).any():
            raise ValueError(f"level costs x scale must round to >= 1 (Scotch's minimum); got {cost.tolist()}")
        sizes, links = list(alloc.arities) + [alloc.cores], cost.tolist() + [1]
        digits = np.concatenate([alloc.paths, alloc.core[:, None]], axis=1)
        keep_s, keep_l, keep_d = [], [], []
        for k in range(len(sizes)):
            if sizes[k] == 1:
                if keep_l:  # distances through this level are kept by the level above
                    keep_l[-1] += links[k]
                continue
            keep_s.append(sizes[k])
            keep_l.append(links[k])
            keep_d.append(digits[:, k])
        if not keep_s:
            raise ValueError("a tleaf needs two terminals at least; the allocation is one processor")
        terminals = np.zeros(alloc.n_procs, dtype=np.int64)
        for size, d in zip(keep_s, keep_d):
            terminals = terminals * size + d
        return cls(tuple(keep_s), tuple(int(v) for v in keep_l), terminals, alloc)

    @property
    def n_terminals(self) -> int:
        return int(np.prod(self.sizes))

    def __str__(self) -> str:
        """Scotch's target-file text of the tleaf (without the ``sub`` restriction)."""
        return "tleaf " + " ".join([str(len(self.sizes))] + [f"{s} {v}" for s, v in zip(self.sizes, self.links)])

    def distance(self, p, q) -> np.ndarray:
        """Tleaf distance of processors ``p`` and ``q``: the link costs of the levels below their common ancestor."""
        a, b = np.asarray(self.terminals)[np.asarray(p)], np.asarray(self.terminals)[np.asarray(q)]
        out = np.zeros(np.broadcast(a, b).shape, dtype=np.int64)
        for size, link in zip(self.sizes[::-1], self.links[::-1]):  # bottom up
            apart = a != b
            out += np.where(apart, link, 0)
            a, b = a // size, b // size
        return out


def map_scotch_tleaf(indptr, indices, weights, machine, *, costs=None, scale: float = 10.0, seed: int = 0,
                     strategy: str = "default", imbalance: float = 0.05, repair: bool = False, threads: int = 1,
                     info: dict | None = None):
    """Scotch static mapping of a task graph onto a fat-tree allocation's ``tleaf`` (module notes).

    ``machine`` is a :class:`mpitaskmap.machines.FatTreeMachine` (its ``node_hierarchy()``,
    level bandwidths and node view are read); ``costs`` overrides the per-level costs of
    ``peer_inputs.level_costs`` (lowest switch level first), ``scale`` turns them into
    Scotch's integer link costs.  The target is ``SCOTCH_archTleaf`` restricted by
    ``SCOTCH_archSub`` to one terminal per processor, in processor order; Scotch's label of a
    task is then its processor.  Terminals have capacity 1: a task beyond it shares the proc
    (``RuntimeWarning``, counted in ``info``) or, with ``repair``, moves to the closest free
    processor in tleaf distance (ties -> lowest processor).  Other options as ``map_scotch``.
    ``info`` also gets ``tleaf`` (the target text) and ``level_costs``.

    Returns ``(task_to_proc, seconds)``.
    """
    if _load() is None:
        raise RuntimeError(_lib_error)
    target = TleafTarget.from_machine(machine, costs=costs, scale=scale)
    xadj, adj, wint, wscale = _scotch_csr(indptr, indices, weights)
    n, k = xadj.size - 1, target.allocation.n_procs
    if n > k:
        raise ValueError(f"{n} tasks but only {k} procs in the allocation")
    NP = ctypes.POINTER(ctypes.c_int32)
    ptr = lambda a: a.ctypes.data_as(NP)  # noqa: E731
    sizes = np.ascontiguousarray(target.sizes, dtype=np.int32)
    links = np.ascontiguousarray(target.links, dtype=np.int32)
    terms = np.ascontiguousarray(target.terminals, dtype=np.int32)

    def build(lib, arch, new):
        if k == target.n_terminals and np.array_equal(terms, np.arange(k)):
            if lib.SCOTCH_archTleaf(arch, sizes.size, ptr(sizes), ptr(links)):
                raise RuntimeError(f"SCOTCH_archTleaf failed for {target}")
            return str(target)
        tree = new("arch")
        if lib.SCOTCH_archTleaf(tree, sizes.size, ptr(sizes), ptr(links)):
            raise RuntimeError(f"SCOTCH_archTleaf failed for {target}")
        if lib.SCOTCH_archSub(arch, tree, k, ptr(terms)):
            raise RuntimeError(f"SCOTCH_archSub failed on {k} terminals of {target}")
        return f"sub({target})"

    part, seconds, kind = _graph_map(xadj, adj, wint, k, build, seed=seed, strategy=strategy, imbalance=imbalance,
                                     threads=threads)
    if part.min() < 0 or part.max() >= k:
        raise RuntimeError("Scotch returned an out-of-range terminal")
    procs = np.arange(k)

    def nearest(j, free):
        cand = np.flatnonzero(free > 0)
        return cand[np.argmin(target.distance(procs[cand], j))]  # ties -> lowest processor

    cap = np.ones(k, dtype=np.int64)
    task_to_proc, n_over, moved, used = place_on_slots(part, cap, np.arange(k + 1), procs, repair=repair, nearest=nearest)
    _report(kind, strategy, threads, imbalance, wscale, n_over, moved, used, repair, info, "processor")
    if info is not None:
        info.update(tleaf=str(target), level_costs=target.allocation.costs.tolist())
    return task_to_proc, seconds
