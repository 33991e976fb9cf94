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
from typing import Sequence

import numpy as np

from ..._validate import as_float_matrix
from ...errors import InvalidInputError
from ...machines import Machine, require_router_grid
from ...mapping import Mapping, check_fit
from .mj import ORDERINGS, _partition_finite, mj_partition
from .options import GEOMETRIC_DEFAULTS as _DEFAULT
from ...graphs.taskgraph import TaskGraph
from .transforms import bandwidth_scale, box_transform, drop_constant_dimensions, drop_dimensions, torus_shift

__all__ = ["map_geometric", "processor_coords", "select_compact_subset"]


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
    tcoords, graph = _task_coords(tasks, task_coords)
    tcoords = drop_constant_dimensions(tcoords)
    pcoords = processor_coords(machine, shift=shift, bandwidth=bandwidth, box=box, drop=drop)
    n_tasks, n_procs = tcoords.shape[0], machine.n_procs
    check_fit(n_tasks, n_procs, oversubscribe)
    n_parts = min(n_tasks, n_procs)
    procs = np.arange(n_procs, dtype=np.intp)
    if n_tasks < n_procs:
        procs = select_compact_subset(pcoords, n_tasks)
        pcoords = drop_constant_dimensions(pcoords[procs])
    task_order = "fz" if ordering == "mfz" else ordering
    # both coordinate sets come out of drop_constant_dimensions: finite, float64, C order
    task_parts = _partition_finite(
        tcoords, n_parts, ordering=task_order, longest_dim=task_perm is None,
        dim_order=task_perm, part_counts=None, prime_split=prime_split,
    )
    same_rotation = (task_perm is None and proc_perm is None) or (
        task_perm is not None and proc_perm is not None
        and [int(v) for v in task_perm] == [int(v) for v in proc_perm]
    )
    if task_order == ordering and same_rotation and _same_coords(tcoords, pcoords):
        proc_parts = task_parts  # the same points with the same options: the same tree
    else:
        proc_parts = _partition_finite(
            pcoords, n_parts, ordering=ordering, longest_dim=proc_perm is None,
            dim_order=proc_perm, part_counts=None, prime_split=prime_split,
        )
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
