"""KaHIP's process mapping as a benchmark peer (PyPI ``kahip`` 3.25 wheel, ``process_mapping`` via ctypes).

Optional tooling for mpitaskmap's benchmarks; the library and its tests never need it.
Install with ``bash benchmarks/peers/install_peers.sh`` (``pip install kahip`` into the
Python that runs the benchmarks).

Usage::

    from benchmarks.peers.kahip import kahip_available, map_kahip, map_kahip_tree, KahipTarget

    pe, seconds = map_kahip(indptr, indices, weights, [16, 32], [10, 50])   # PE of every task
    task_to_proc, seconds = map_kahip_tree(indptr, indices, weights, fat_tree_machine)
    KahipTarget.from_machine(fat_tree_machine)      # the hierarchy and distances it passes

What is called
--------------
The wheel's Python module exposes ``kaffpa`` only, but it ships KaHIP's C library
(``site-packages/lib/libkahip.so``, 32-bit ``kahip_idx``) with ``process_mapping`` -- the
library form of ``kaffpa --enable_mapping --hierarchy_parameter_string=A:B:C
--distance_parameter_string=D1:D2:D3`` -- and the ``kaffpa`` and ``global_multisection``
binaries.  We call::

    process_mapping(&n, vwgt, xadj, adjcwgt, adjncy, hierarchy, distances, depth,
                    mode_partitioning, mode_mapping, &imbalance, suppress_output, seed,
                    &edgecut, &qap, part)

``hierarchy`` lists the group sizes from the lowest level up (``8:16:32`` = 8 PEs per group,
16 groups per super-group, 32 super-groups: ``k = 4096`` PEs) and ``distances`` the distance
of two PEs whose lowest common group is at that level (``1:10:100``).  KaHIP partitions the
graph into ``k`` blocks of equal weight (within ``imbalance``) along the hierarchy
(``MAPMODE_MULTISECTION``, default, or ``MAPMODE_BISECTION``) and maps the blocks onto the PEs
by its QAP local search; ``part[t]`` is the PE of task ``t``, PEs numbered lowest level
fastest.

A fat-tree allocation (``map_kahip_tree``, ``KahipTarget``)
-----------------------------------------------------------
* **PEs are nodes**, not cores: with one task per PE (cores as the lowest level) KaHIP 3.25
  does not keep the balance -- on 512 tasks over ``8:16:4`` it leaves 128 PEs empty and puts
  two tasks on 128 others, whatever the mode and imbalance (measured) -- while with a node per
  PE (``16:4``, blocks of 8) every block holds exactly 8.  A node's tasks take its
  processors in task order (inside a node every placement costs the same in our model).
  Every node must hold the same number of processors (KaHIP's blocks are equal).
* **Distances** are those of ``peer_inputs.level_costs``: the lowest common switch at level
  ``s`` costs ``10 (c_1 + ... + c_s)`` (32 leaves x 16 nodes tapered 4:1: ``10:50``).
* **The hierarchy** must be regular.  When the allocated nodes form a regular sub-tree (every
  switch of a level holds as many allocated children: a whole tree, whole leaves) it is that
  sub-tree, exactly (``exact`` True).  A scattered allocation is irregular (a leaf holds 0 to
  m allocated nodes), which KaHIP's strings cannot say; we reduce it to *chunks*: the
  allocated nodes in tree order (Slurm's sorted node list; nodes of one leaf consecutive) cut
  into groups of ``g_1`` consecutive nodes, those into groups of ``g_2`` chunks, ..., where
  ``g_s`` is the divisor of what is left closest to the mean number of allocated nodes (in
  chunks of the level below) per switch of level ``s`` that holds any; the top level takes
  the rest.  A chunk can straddle two leaves: ``aligned`` says which share of the lowest
  chunks lies under one leaf.  On fattree_machine(leaves=32, nodes_per_leaf=16, taper=4,
  nodes=64, ppn=8, seed=1) this gives hierarchy ``2:32``, distances ``10:50``.
* Blocks beyond a node's capacity (KaHIP's balance is not a guarantee) are reported in
  ``info`` and a ``RuntimeWarning``, or with ``repair=True`` moved to the closest node with a
  free processor (KaHIP's distance; ties -> lowest node).

``seconds`` is the time of the ``process_mapping`` call alone.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import os
import time
import warnings
from dataclasses import dataclass

import numpy as np

from .peer_inputs import TreeAllocation, integer_weights, place_on_slots

__all__ = ["kahip_available", "kahip_missing", "kahip_version", "map_kahip", "map_kahip_tree", "KahipTarget",
           "PARTITION_MODES", "MAPPING_MODES"]

#: KaHIP's preconfigurations (kaHIP_interface.h: FAST .. STRONGSOCIAL).
PARTITION_MODES = {"fast": 0, "eco": 1, "strong": 2, "fastsocial": 3, "ecosocial": 4, "strongsocial": 5}
#: MAPMODE_MULTISECTION (partition along the hierarchy) and MAPMODE_BISECTION (then map).
MAPPING_MODES = {"multisection": 0, "bisection": 1}

_lib = None
_lib_error: str | None = None


def _library_path() -> str | None:
    """``lib/libkahip.so`` of the installed ``kahip`` distribution (or ``$MPITASKMAP_LIBKAHIP``).

    Found through the distribution's metadata, not by importing ``kahip``: this file is named
    ``kahip.py`` too (``benchmarks.peers.kahip``), and the metadata names the wheel's files whatever
    the import path.
    """
    env = os.environ.get("MPITASKMAP_LIBKAHIP")
    if env:
        return env
    try:
        dist = importlib.metadata.distribution("kahip")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = os.fspath(dist.locate_file(os.path.join("lib", "libkahip.so")))  # where the wheel puts its C library
    return path if os.path.exists(path) else None


def _load():
    global _lib, _lib_error
    if _lib is not None or _lib_error is not None:
        return _lib
    path = _library_path()
    if path is None:
        _lib_error = ("KaHIP is not installed: no 'kahip' package with lib/libkahip.so for this Python "
                      "(run: bash benchmarks/peers/install_peers.sh, i.e. pip install kahip)")
        return None
    try:
        lib = ctypes.CDLL(path)
        lib.kahip_sizeof_idx.restype = ctypes.c_int
        size = lib.kahip_sizeof_idx()
        f = lib.process_mapping
    except (OSError, AttributeError) as exc:
        _lib_error = f"KaHIP's library {path} cannot be used: {exc}"
        return None
    if size != 4:
        _lib_error = f"{path} was built with {8 * size}-bit kahip_idx; this wrapper passes int32 arrays"
        return None
    I, IP, DP = ctypes.c_int, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_double)
    f.argtypes = [IP, IP, IP, IP, IP, IP, IP, I, I, I, DP, ctypes.c_bool, I, IP, IP, IP]
    f.restype = None
    _lib = lib
    return lib


def kahip_missing() -> str | None:
    """Why KaHIP cannot be used here (one line), or None."""
    _load()
    return _lib_error


def kahip_available() -> bool:
    """True when KaHIP's library (with ``process_mapping``) can be loaded."""
    return _load() is not None


def kahip_version() -> str:
    """The installed ``kahip`` distribution's version."""
    return importlib.metadata.version("kahip")


def _symmetric_csr(indptr, indices, weights):
    """KaHIP's input: an undirected graph, every edge both ways with one weight (the two directions
    summed), no self loops, int32; returns ``(xadj, adjncy, adjcwgt, weight_scale)``."""
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices, dtype=np.int64)
    n = indptr.size - 1
    if n < 1 or indptr[0] != 0 or indptr[-1] != indices.size or (np.diff(indptr) < 0).any():
        raise ValueError("bad CSR")
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise ValueError("adjacency index out of range")
    w = np.ones(indices.size) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if w.size != indices.size:
        raise ValueError("weights must have one entry per adjacency entry")
    src = np.repeat(np.arange(n), np.diff(indptr))
    keep = src != indices
    a = np.concatenate([src[keep], indices[keep]])
    b = np.concatenate([indices[keep], src[keep]])
    ww = np.concatenate([w[keep], w[keep]])
    key, inv = np.unique(a * n + b, return_inverse=True)
    total = np.bincount(inv, weights=ww)
    u, v = key // n, key % n
    wint, scale = integer_weights(total, total.size)
    xadj = np.concatenate([[0], np.cumsum(np.bincount(u, minlength=n))]).astype(np.int32)
    return xadj, np.ascontiguousarray(v, dtype=np.int32), np.ascontiguousarray(wint, dtype=np.int32), scale


def map_kahip(indptr, indices, weights, hierarchy, distances, *, mode: str = "strong",
              mapping: str = "multisection", imbalance: float = 0.0, seed: int = 0, info: dict | None = None):
    """KaHIP's ``process_mapping`` of a task graph onto a regular hierarchy of PEs (module notes).

    Parameters: ``indptr, indices, weights`` a CSR task graph (directed, both directions; the
    two directions of an edge are summed into KaHIP's undirected weight); ``hierarchy`` the
    group sizes from the lowest level up; ``distances`` one per level; ``mode`` a key of
    ``PARTITION_MODES``; ``mapping`` a key of ``MAPPING_MODES``; ``imbalance`` KaHIP's
    (0.0: blocks of exactly n / k tasks when k divides n).

    Returns ``(pe, seconds)``: the PE of every task (``0 .. prod(hierarchy) - 1``, lowest level
    fastest) and the seconds of the call.  ``info`` gets the hierarchy and distance strings,
    KaHIP's edge cut and QAP objective.
    """
    lib = _load()
    if lib is None:
        raise RuntimeError(_lib_error)
    hier = np.ascontiguousarray([int(h) for h in hierarchy], dtype=np.int32)
    dist = np.ascontiguousarray([int(d) for d in distances], dtype=np.int32)
    if hier.size < 1 or hier.size != dist.size or (hier < 1).any() or (dist < 0).any():
        raise ValueError(f"hierarchy and distances: one positive size and one distance per level; got "
                         f"{list(hierarchy)} and {list(distances)}")
    if mode not in PARTITION_MODES or mapping not in MAPPING_MODES:
        raise ValueError(f"mode in {sorted(PARTITION_MODES)}, mapping in {sorted(MAPPING_MODES)}; got {mode!r}, "
                         f"{mapping!r}")
    xadj, adjncy, adjcwgt, scale = _symmetric_csr(indptr, indices, weights)
    n = xadj.size - 1
    vwgt = np.ones(n, dtype=np.int32)
    part = np.full(n, -1, dtype=np.int32)
    cut, qap = ctypes.c_int32(0), ctypes.c_int32(0)
    nn, imb = ctypes.c_int32(n), ctypes.c_double(float(imbalance))
    IP = ctypes.POINTER(ctypes.c_int32)
    ptr = lambda a: a.ctypes.data_as(IP)  # noqa: E731
    t0 = time.perf_counter()
    lib.process_mapping(ctypes.byref(nn), ptr(vwgt), ptr(xadj), ptr(adjcwgt), ptr(adjncy), ptr(hier), ptr(dist),
                        int(hier.size), PARTITION_MODES[mode], MAPPING_MODES[mapping], ctypes.byref(imb), True,
                        int(seed), ctypes.byref(cut), ctypes.byref(qap), ptr(part))
    seconds = time.perf_counter() - t0
    k = int(np.prod(hier))
    if part.min() < 0 or part.max() >= k:
        raise RuntimeError(f"KaHIP returned a PE outside 0..{k - 1}")
    if info is not None:
        info.update(hierarchy=":".join(map(str, hier.tolist())), distances=":".join(map(str, dist.tolist())),
                    mode=mode, mapping=mapping, imbalance=float(imbalance), seed=int(seed), edge_cut=int(cut.value),
                    qap=int(qap.value), weight_scale=scale)
    return part.astype(np.int64), seconds


def _nearest_divisor(total: int, target: float) -> int:
    """The divisor of ``total`` closest to ``target`` (ties -> the smaller)."""
    divisors = [d for d in range(1, total + 1) if total % d == 0]
    return min(divisors, key=lambda d: (abs(d - target), d))


@dataclass
class KahipTarget:
    """A fat-tree allocation as KaHIP's regular hierarchy of node PEs (module notes).

    Attributes: ``hierarchy`` and ``distances`` (lowest level first, KaHIP's strings' order);
    ``pe_node[p]`` the node (index of the node view) of PE ``p``; ``exact`` whether the
    hierarchy is the allocation's own sub-tree; ``aligned`` the share of lowest-level groups
    whose nodes share one leaf switch; ``capacity`` processors per node.
    """

    hierarchy: tuple
    distances: tuple
    pe_node: np.ndarray
    exact: bool
    aligned: float
    capacity: int

    @classmethod
    def from_machine(cls, machine, *, costs=None, scale: float = 10.0) -> "KahipTarget":
        """Read ``machine`` (a FatTreeMachine): exact sub-tree when regular, else the chunk reduction."""
        alloc = TreeAllocation.from_machine(machine, costs)
        view = machine.node_view()
        cap = view.capacity
        if (cap != cap[0]).any():
            i = int(np.flatnonzero(cap != cap[0])[0])
            raise ValueError(f"KaHIP's process mapping gives every PE one share of the tasks; node {int(view.nodes[i])} "
                             f"has {int(cap[i])} processors, node {int(view.nodes[0])} {int(cap[0])}")
        h = len(alloc.arities)
        levels = np.asarray(alloc.distances(scale))  # lowest level first
        n_nodes = view.nodes.size
        # the path of every node (first processor of the node), top down
        node_paths = alloc.paths[view.representative]
        if int(np.prod(alloc.arities)) == n_nodes:  # regular: the sub-tree itself
            sizes = list(alloc.arities[::-1])
            pe = np.zeros(n_nodes, dtype=np.int64)
            for k, a in enumerate(alloc.arities):
                pe = pe * a + node_paths[:, k]
            pe_node = np.empty(n_nodes, dtype=np.int64)
            pe_node[pe] = np.arange(n_nodes)
            exact = True
        else:  # chunks of nodes in tree order, sized by the mean allocated children per switch of each level
            sizes, left, below = [], n_nodes, 1
            for s in range(1, h):  # switch levels 1 .. h-1 (the top takes the rest)
                groups = np.unique(node_paths[:, : h - s], axis=0).shape[0]  # used switches of level s
                g = _nearest_divisor(left, n_nodes / groups / below)
                sizes.append(g)
                left //= g
                below *= g
            sizes.append(left)
            pe_node = np.arange(n_nodes, dtype=np.int64)  # node view order = ascending tree node = tree order
            exact = False
        keep = [k for k, size in enumerate(sizes) if size > 1] or [0]
        hierarchy = tuple(int(sizes[k]) for k in keep)
        distances = tuple(int(levels[k]) for k in keep)
        if exact or h == 1:
            aligned = 1.0
        else:  # lowest chunks of sizes[0] consecutive nodes: under one leaf?
            leaf = np.unique(node_paths[:, : h - 1], axis=0, return_inverse=True)[1].reshape(-1)
            aligned = float((leaf.reshape(-1, sizes[0]) == leaf.reshape(-1, sizes[0])[:, :1]).all(axis=1).mean())
        return cls(hierarchy, distances, pe_node, exact, aligned, int(cap[0]))

    def distance(self, p, q) -> np.ndarray:
        """KaHIP's distance of PEs ``p`` and ``q`` (``distances[0]`` inside one lowest group)."""
        p, q = np.asarray(p), np.asarray(q)
        out = np.full(np.broadcast(p, q).shape, self.distances[0], dtype=np.int64)
        size = 1
        for k in range(len(self.hierarchy) - 1):
            size *= self.hierarchy[k]
            out = np.where(p // size != q // size, self.distances[k + 1], out)
        return out


def map_kahip_tree(indptr, indices, weights, machine, *, costs=None, scale: float = 10.0, repair: bool = False,
                   info: dict | None = None, **options):
    """KaHIP's process mapping of a task graph onto a fat-tree allocation (``machine``, a FatTreeMachine).

    The target is :meth:`KahipTarget.from_machine`; ``options`` go to :func:`map_kahip`
    (``mode``, ``mapping``, ``imbalance``, ``seed``).  Returns ``(task_to_proc, seconds)``;
    ``info`` gets ``map_kahip``'s entries, ``exact``, ``aligned`` and the overflow counts.
    """
    target = KahipTarget.from_machine(machine, costs=costs, scale=scale)
    n = np.asarray(indptr).size - 1
    if n > machine.n_procs:
        raise ValueError(f"{n} tasks but only {machine.n_procs} procs in the allocation")
    pe, seconds = map_kahip(indptr, indices, weights, target.hierarchy, target.distances, info=info, **options)
    view = machine.node_view()
    k = target.pe_node.size
    node_procs = np.argsort(view.node_of_proc, kind="stable")  # processors node by node, ascending
    offsets = np.concatenate([[0], np.cumsum(view.capacity)])
    # PE p's slots: its node's processors
    cap = view.capacity[target.pe_node]
    pe_offsets = np.concatenate([[0], np.cumsum(cap)])
    pe_order = np.concatenate([node_procs[offsets[v]: offsets[v + 1]] for v in target.pe_node])
    pes = np.arange(k)

    def nearest(j, free):
        cand = np.flatnonzero(free > 0)
        return cand[np.argmin(target.distance(pes[cand], j))]  # ties -> lowest PE

    task_to_proc, n_over, moved, used = place_on_slots(pe, cap, pe_offsets, pe_order, repair=repair, nearest=nearest)
    if info is not None:
        info.update(exact=target.exact, aligned=target.aligned, overflow_tasks=n_over, repaired_tasks=moved,
                    procs_with_several_tasks=int((used > 1).sum()))
    if n_over and not repair:
        warnings.warn(f"KaHIP exceeded node capacity: {n_over} task(s) over capacity, {int((used > 1).sum())} proc(s) "
                      "hold several tasks", RuntimeWarning, stacklevel=2)
    return task_to_proc, seconds
