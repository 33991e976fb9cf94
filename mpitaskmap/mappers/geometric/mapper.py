"""Geometric task mapping with Multi-Jagged partitioning (ALGORITHMS.md section 2).

Partition the task coordinates and the processor coordinates with the same MJ
partitioner into the same number of parts; parts are numbered along a space-filling
order, and task part ``i`` goes to processor part ``i``.  Three cases:

1. ``n_tasks == n_procs``: one task per processor (a permutation);
2. ``n_tasks > n_procs``: ``n_procs`` task parts of ``floor`` or ``ceil(n_tasks/n_procs)``
   tasks, one per processor (partitioning and mapping in one step);
3. ``n_tasks < n_procs``: a compact subset of ``n_tasks`` processors is chosen first
   (:func:`select_compact_subset`), the rest stay idle and are reported.

Processor coordinates pass through the transformations of :mod:`mpitaskmap.mappers.geometric.transforms`
first (torus shift, bandwidth scaling, boxes, dimension drop), as the options ask.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from ..._validate import as_float_matrix
from ...errors import InvalidInputError
from ...machines import Machine, require_router_grid
from ...mapping import Mapping, check_fit
from .mj import ORDERINGS, _partition_finite, mj_partition
from .options import GEOMETRIC_DEFAULTS as _DEFAULT
from ...graphs.taskgraph import TaskGraph
from .transforms import bandwidth_scale, box_transform, drop_constant_dimensions, drop_dimensions, torus_shift

__all__ = ["map_geometric", "processor_coords", "select_compact_subset", "GeometricCache", "GEOMETRIC_CACHE_BYTES"]

#: Bytes of arrays a :class:`GeometricCache` keeps at most (the least recently used leave first);
#: an array larger than a sixteenth of it is never kept, so at a million ranks (8 MB a partition)
#: a search that maps one or two candidates per process keeps nothing.  At 65,536 ranks on a 3-D
#: torus (~970 geometric candidates, 0.5 MB a partition) the search's working set is ~35 MB.
GEOMETRIC_CACHE_BYTES = 64 * 2**20


class GeometricCache:
    """What :func:`map_geometric` computes for one task set on one machine, kept across its calls.

    A search maps the same tasks onto the same machine hundreds of times, each candidate a
    combination of an ordering, a rotation of either side and a processor-coordinate
    transformation; the two MJ partitions of a candidate depend only on their own side's
    options.  This keeps the processor coordinates of every transformation and each side's
    MJ parts by its options, up to ``max_bytes`` (least recently used out first), and serves
    them back: the same mappings, each partition computed once while it stays.

    Parameters
    ----------
    tasks : TaskGraph or array_like
        The tasks every call maps (the object itself: a call with another is refused).
    machine : Machine
        The machine every call maps onto (likewise).
    max_bytes : int, optional
        Budget (default :data:`GEOMETRIC_CACHE_BYTES`); an array above a sixteenth of it is not
        kept.

    Attributes
    ----------
    hits, misses : int
        Lookups served from the cache and computed.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    >>> cache = GeometricCache(g, m)
    >>> a = map_geometric(g, m, ordering="z", cache=cache)
    >>> b = map_geometric(g, m, ordering="z", cache=cache)
    >>> bool((a.task_to_proc == b.task_to_proc).all()), cache.hits > 0
    (True, True)
    """

    def __init__(self, tasks, machine: Machine, max_bytes: int = GEOMETRIC_CACHE_BYTES) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) or max_bytes < 0:
            raise InvalidInputError(f"max_bytes: expected an int >= 0; got {max_bytes!r}")
        self.tasks, self.machine, self.max_bytes = tasks, machine, int(max_bytes)
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()
        self._bytes = 0
        self.hits = self.misses = 0

    def check(self, tasks, machine: Machine) -> None:
        """Refuse a call on other tasks or another machine than the cache's."""
        if tasks is not self.tasks or machine is not self.machine:
            raise InvalidInputError("cache: a GeometricCache serves the tasks and machine it was made for; "
                                    "got another task set or machine")

    @staticmethod
    def _nbytes(value) -> int:
        return int(sum(getattr(v, "nbytes", 0) for v in (value if isinstance(value, tuple) else (value,))))

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The value under ``key``, built by ``build()`` when not kept (shared: callers do not modify it)."""
        if key in self._kept:
            self._kept.move_to_end(key)
            self.hits += 1
            return self._kept[key]
        self.misses += 1
        value = build()
        size = self._nbytes(value)
        if size * 16 <= self.max_bytes:
            self._kept[key] = value
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, old = self._kept.popitem(last=False)
                self._bytes -= self._nbytes(old)
        return value


def processor_coords(
    machine: Machine,
    *,
    shift: bool = _DEFAULT["shift"],
    bandwidth: bool = _DEFAULT["bandwidth"],
    box: Sequence[int] | None = _DEFAULT["box"],
    drop: Sequence[int] = _DEFAULT["drop"],
) -> np.ndarray:
    """Return the machine's processor coordinates as the geometric mapper sees them.

    Parameters
    ----------
    machine : Machine
        The processors.  Torus-specific transforms need a :class:`TorusMachine`.
    shift : bool, optional
        Apply :func:`~mpitaskmap.mappers.geometric.transforms.torus_shift` (default True).
    bandwidth : bool, optional
        Apply :func:`~mpitaskmap.mappers.geometric.transforms.bandwidth_scale` with the machine's link
        bandwidths (default False).
    box : sequence of int, optional
        Apply :func:`~mpitaskmap.mappers.geometric.transforms.box_transform` with these box lengths.
    drop : sequence of int, optional
        Dimensions to ignore (e.g. ``[4]``: BG/Q's E).

    Returns
    -------
    (n_procs, n) ndarray of float64
        Transformed coordinates with constant dimensions removed.

    Raises
    ------
    InvalidInputError
        If a torus transform is asked of a machine that is not a torus, or if both
        ``bandwidth`` and ``box`` are set.
    """
    torus_only = shift or bandwidth or box is not None
    if torus_only and not machine.has_router_grid:
        if bandwidth or box is not None:
            require_router_grid(machine, "bandwidth scaling or a box transform", InvalidInputError)
        shift = False
    if bandwidth and box is not None:
        raise InvalidInputError("box: choose bandwidth scaling or a box transform, not both")
    if machine.has_router_grid:
        c = (
            torus_shift(machine.router_coords, machine.dims, machine.wrap)
            if shift
            else machine.router_coords.astype(np.float64)
        )
        if bandwidth:
            c = bandwidth_scale(c, machine.link_bandwidth, machine.dims)
        if box is not None:
            c = box_transform(c, box)
            drop = list(drop) + [k + machine.n_dims for k in drop]
    else:
        c = machine.geometric_coords()
    if len(drop):
        c = drop_dimensions(c, drop)
    return drop_constant_dimensions(c)


def _k_nearest(c: np.ndarray, center: np.ndarray, k: int) -> np.ndarray:
    """The k points nearest to center (squared Euclidean), ties to the lower index; O(n)."""
    dist = ((c - center) ** 2).sum(axis=1)
    kth = np.partition(dist, k - 1)[k - 1]
    inside = np.flatnonzero(dist < kth)
    on = np.flatnonzero(dist == kth)[: k - inside.size]
    return np.sort(np.concatenate([inside, on]))


def _spread(x: np.ndarray) -> float:
    return float(((x - x.mean(axis=0)) ** 2).sum())


def select_compact_subset(coords, k: int, *, n_window_seeds: int = 8, max_iter: int = 10) -> np.ndarray:
    """Choose ``k`` processors that lie close together.

    Seeds: the centroids of the ``n_window_seeds`` most compact windows of ``k``
    consecutive processors along the MJ flipped-Z space-filling order (prefix sums make
    every window O(1)), plus the corners and centre of the bounding box (corners only up
    to 4 dimensions).  From each seed, k-means-style refinement: take the ``k`` processors
    nearest to the centre (ties to the lower index), move the centre to their mean, repeat
    until the set stops changing (at most ``max_iter`` times).  The set with the smallest
    spread (sum of squared distances to its mean) wins; ties go to the earlier seed.

    Parameters
    ----------
    coords : (n_procs, n_dims) array_like of float
        Processor coordinates (already transformed).
    k : int
        Number of processors to choose, ``1 <= k <= n_procs``.
    n_window_seeds : int, optional
        Window seeds tried (default 8).
    max_iter : int, optional
        Refinement steps per seed (default 10).

    Returns
    -------
    (k,) ndarray of intp
        The chosen processors, ascending.

    Notes
    -----
    O(n_procs log n_procs) for the order plus O(seeds * max_iter * n_procs * n_dims).
    Deterministic.

    Examples
    --------
    >>> select_compact_subset([[0.0], [10.0], [11.0], [1.0], [12.0]], 3).tolist()
    [1, 2, 4]
    """
    c = as_float_matrix(coords, "coords")
    n, d = c.shape
    if not 1 <= int(k) <= n:
        raise InvalidInputError(f"k: must lie in [1, {n}]; got {k}")
    k = int(k)
    if k == n:
        return np.arange(n, dtype=np.intp)
    order = np.argsort(mj_partition(c, n, ordering="fz"), kind="stable")
    x = c[order]
    s1 = np.vstack([np.zeros((1, d)), np.cumsum(x, axis=0)])
    s2 = np.vstack([np.zeros((1, d)), np.cumsum(x * x, axis=0)])
    win1 = s1[k:] - s1[:-k]
    spread = np.round((s2[k:] - s2[:-k] - win1 * win1 / k).sum(axis=1), 9)
    starts = np.argsort(spread, kind="stable")[:n_window_seeds]
    seeds = [win1[s] / k for s in starts]
    lo, hi = c.min(axis=0), c.max(axis=0)
    if d <= 4:
        for corner in range(2**d):
            seeds.append(np.where([(corner >> j) & 1 for j in range(d)], hi, lo))
    seeds.append((lo + hi) / 2)
    best, best_spread = None, np.inf
    for center in seeds:
        chosen = _k_nearest(c, center, k)
        for _ in range(max_iter):
            nxt = _k_nearest(c, c[chosen].mean(axis=0), k)
            if np.array_equal(nxt, chosen):
                break
            chosen = nxt
        sp = round(_spread(c[chosen]), 9)
        if sp < best_spread:
            best, best_spread = chosen, sp
    return best.astype(np.intp)


def _same_coords(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two coordinate arrays hold the same values row for row (-0.0 == 0.0).

    Seventeen evenly spaced rows are compared first, so different arrays usually cost
    O(d), equal ones O(n d).
    """
    if a is b:
        return True
    if a.shape != b.shape:
        return False
    probe = np.linspace(0, a.shape[0] - 1, 17).astype(np.intp)
    return bool(np.array_equal(a[probe], b[probe]) and np.array_equal(a, b))


def _task_coords(tasks, task_coords) -> tuple[np.ndarray, TaskGraph | None]:
    if isinstance(tasks, TaskGraph):
        graph = tasks
        coords = task_coords if task_coords is not None else graph.coords
        if coords is None:
            raise InvalidInputError("tasks: the task graph has no coordinates; pass task_coords=")
        coords = as_float_matrix(coords, "task_coords", allow_1d=True)
        if coords.shape[0] != graph.n_tasks:
            raise InvalidInputError(
                f"task_coords: expected one row per task ({graph.n_tasks}); got {coords.shape[0]}"
            )
        return coords, graph
    return as_float_matrix(tasks, "tasks (task coordinates)", allow_1d=True), None


def _task_side(tasks, task_coords) -> tuple[np.ndarray, TaskGraph | None]:
    """The task coordinates MJ partitions (constant dimensions dropped) and the task graph, if any."""
    tcoords, graph = _task_coords(tasks, task_coords)
    return drop_constant_dimensions(tcoords), graph


def _proc_side(machine: Machine, tcoords: np.ndarray, **transform) -> tuple[np.ndarray, np.ndarray, bool]:
    """The processors MJ partitions, their coordinates, and whether those are the tasks' row for row.

    With fewer tasks than processors, a compact subset of as many processors as tasks
    (:func:`select_compact_subset`).
    """
    pcoords = processor_coords(machine, **transform)
    procs = np.arange(machine.n_procs, dtype=np.intp)
    if tcoords.shape[0] < machine.n_procs:
        procs = select_compact_subset(pcoords, tcoords.shape[0])
        pcoords = drop_constant_dimensions(pcoords[procs])
    return procs, pcoords, _same_coords(tcoords, pcoords)


def map_geometric(
    tasks,
    machine: Machine,
    *,
    ordering: str = _DEFAULT["ordering"],
    task_perm: Sequence[int] | None = _DEFAULT["task_perm"],
    proc_perm: Sequence[int] | None = _DEFAULT["proc_perm"],
    shift: bool = _DEFAULT["shift"],
    bandwidth: bool = _DEFAULT["bandwidth"],
    box: Sequence[int] | None = _DEFAULT["box"],
    drop: Sequence[int] = _DEFAULT["drop"],
    prime_split: bool = True,
    task_coords=None,
    oversubscribe: bool = False,
    cache: GeometricCache | None = None,
) -> Mapping:
    """Map tasks to processors by partitioning both coordinate sets with MJ.

    Parameters
    ----------
    tasks : TaskGraph or (n_tasks, td) array_like of float
        The task graph (with coordinates) or just the task coordinates.
    machine : Machine
        The processors.
    ordering : {"fz", "mfz", "z", "gray", "hilbert"}, optional
        Part numbering.  "mfz" numbers tasks with FZ and processors with FZ that flips
        the lower side (ALGORITHMS.md 2.2).  Default "fz".
    task_perm, proc_perm : sequence of int, optional
        A dimension permutation ("rotation"): cut dimensions cycle in this order instead
        of always taking the longest dimension.  None (default) = longest dimension.
        Dimensions that are constant over all points are removed first, so permutations
        index the varying dimensions.
    shift, bandwidth, box, drop : optional
        Processor coordinate transformations, see :func:`processor_coords`.
    prime_split : bool, optional
        Prime-aware uneven splits of the part count (default True) on both sides, so the
        two MJ trees keep the same shape.
    task_coords : (n_tasks, td) array_like of float, optional
        Coordinates to use instead of the task graph's own.
    oversubscribe : bool, optional
        Allow more tasks than processors, each processor then holding a part of up to
        ``ceil(n_tasks / n_procs)`` tasks (default False:
        :func:`~mpitaskmap.mapping.check_fit` refuses them).
    cache : GeometricCache, optional
        Keep the processor coordinates and each side's parts for later calls on the same
        ``tasks`` and ``machine`` (a search's candidates); the result is the same.  Not with
        ``task_coords``.

    Returns
    -------
    Mapping
        With ``info`` holding the options, the idle processors count and the seconds
        spent.

    Raises
    ------
    InvalidInputError
        On missing or non-finite task coordinates, an unknown ordering (listing the valid
        ones), a permutation of the wrong length, or more tasks than processors without
        ``oversubscribe``.

    Notes
    -----
    O((n_tasks + n_procs) log min(n_tasks, n_procs)) in the compiled MJ kernel.  When the
    task coordinates equal the (transformed) processor coordinates row for row and both
    sides use the same ordering and rotation, the processors are not partitioned again:
    their parts are the tasks' parts.
    Deterministic: ties are broken by index everywhere.

    References
    ----------
    Deveci et al., "Exploiting Geometric Partitioning in Task Mapping for Parallel
    Computers", IPDPS 2014 (ALGORITHMS.md section 2).

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> g = TaskGraph.stencil([4, 4])
    >>> m = map_geometric(g, torus_machine([4, 4]))
    >>> m.is_permutation, m.metric("average_hops")
    (True, 1.0)
    """
    t0 = time.perf_counter()
    if ordering not in ORDERINGS:
        raise InvalidInputError(f"ordering: unknown {ordering!r}; valid: {list(ORDERINGS)}")
    if cache is None:
        cache = GeometricCache(tasks, machine, max_bytes=0)  # keeps nothing
    elif task_coords is not None:
        raise InvalidInputError("cache: not with task_coords (the cache keys the tasks' own coordinates)")
    cache.check(tasks, machine)
    tcoords, graph = cache.get(("tasks",), lambda: _task_side(tasks, task_coords))
    n_tasks, n_procs = tcoords.shape[0], machine.n_procs
    check_fit(n_tasks, n_procs, oversubscribe)
    n_parts = min(n_tasks, n_procs)
    transform = (bool(shift), bool(bandwidth), None if box is None else tuple(int(v) for v in box),
                 tuple(int(v) for v in drop))
    procs, pcoords, same = cache.get(("procs",) + transform, lambda: _proc_side(
        machine, tcoords, shift=shift, bandwidth=bandwidth, box=box, drop=drop))
    task_order = "fz" if ordering == "mfz" else ordering
    task_rot = None if task_perm is None else tuple(int(v) for v in task_perm)
    proc_rot = None if proc_perm is None else tuple(int(v) for v in proc_perm)
    # both coordinate sets come out of drop_constant_dimensions: finite, float64, C order
    task_parts = cache.get(("task parts", task_order, task_rot, bool(prime_split)), lambda: _partition_finite(
        tcoords, n_parts, ordering=task_order, longest_dim=task_perm is None,
        dim_order=task_perm, part_counts=None, prime_split=prime_split,
    ))
    if task_order == ordering and task_rot == proc_rot and same:
        proc_parts = task_parts  # the same points with the same options: the same tree
    else:
        proc_parts = cache.get(("proc parts",) + transform + (ordering, proc_rot, bool(prime_split)),
                               lambda: _partition_finite(
            pcoords, n_parts, ordering=ordering, longest_dim=proc_perm is None,
            dim_order=proc_perm, part_counts=None, prime_split=prime_split,
        ))
    proc_of_part = np.empty(n_parts, dtype=np.intp)
    proc_of_part[proc_parts] = procs
    task_to_proc = proc_of_part[task_parts]
    info = {
        "ordering": ordering,
        "task_perm": None if task_perm is None else tuple(int(v) for v in task_perm),
        "proc_perm": None if proc_perm is None else tuple(int(v) for v in proc_perm),
        "shift": shift,
        "bandwidth": bandwidth,
        "box": None if box is None else tuple(box),
        "drop": tuple(drop),
        "idle_processors": n_procs - n_parts if n_tasks < n_procs else 0,
        "seconds": time.perf_counter() - t0,
    }
    return Mapping(task_to_proc, machine, graph, oversubscribe=oversubscribe, method="geometric", info=info)
