"""PAIRS: pairwise-exchange refinement of hop-bytes (ALGORITHMS.md section 4).

From any start mapping, propose exchanges of two tasks' processors (or moves to idle
processors) and keep those that lower the weighted hops (hop-bytes).  The slow,
near-optimal reference of Bhatele et al.'s heuristic suite; it works for any task graph on
any :class:`~mpitaskmap.machines.TorusMachine`.

Proposals are drawn in Python from ``numpy.random.default_rng(seed)`` and evaluated by a
compiled kernel (``cext/_grid.pyx``): a task ``a`` uniformly at random, and a processor
``q`` that is, with probability ``local``, a network neighbour (same router or one hop)
of the processor of a random graph neighbour of ``a``, otherwise uniform.  Each exchange
costs O(deg(a) + deg(b)).
"""

from __future__ import annotations

import time

import numpy as np

from ... import _grid
from ...errors import InvalidInputError
from ...machines import Machine, require_router_grid
from ...mapping import Mapping, identity_mapping
from ...graphs.taskgraph import TaskGraph

__all__ = ["map_pairs"]


def _symmetrised(graph: TaskGraph) -> TaskGraph:
    src, dst = graph.sources(), graph.indices
    keep = src != dst
    return TaskGraph.from_edges(
        np.concatenate([src[keep], dst[keep]]), np.concatenate([dst[keep], src[keep]]),
        np.concatenate([graph.weights[keep], graph.weights[keep]]), n_tasks=graph.n_tasks,
    )


def map_pairs(
    graph: TaskGraph,
    machine: Machine,
    *,
    start=None,
    seed: int = 0,
    max_proposals: int | None = None,
    max_seconds: float | None = None,
    local: float = 0.9,
    chunk: int = 1 << 16,
) -> Mapping:
    """Refine a mapping by improving pairwise exchanges (PAIRS).

    Parameters
    ----------
    graph : TaskGraph
        The task graph (any; directed volumes are symmetrised internally).
    machine : TorusMachine
        The processors.
    start : Mapping or (n_tasks,) array_like of int, optional
        Start mapping (default: the identity / default placement).
    seed : int, optional
        Seed of the proposal generator (default 0); same seed, same result.
    max_proposals : int, optional
        Exchanges proposed in total (default ``64 * n_tasks``).
    max_seconds : float, optional
        Also stop after this wall time (checked between chunks).  Off by default, since
        it makes the result depend on the machine's speed.
    local : float, optional
        Share of proposals aimed next to a graph neighbour's processor (default 0.9);
        the rest pick a uniform processor.
    chunk : int, optional
        Proposals per kernel call (default 65,536).

    Returns
    -------
    Mapping
        ``info`` holds the start and final weighted hops, the accepted exchanges, the
        proposals made and the seconds.

    Raises
    ------
    InvalidInputError
        On a machine that is not a TorusMachine, a start of the wrong length or over a
        processor's capacity, or bad bounds.

    Notes
    -----
    Only exchanges that lower the weighted hops are applied, so the result is never
    worse than the start.  Deterministic for a given seed unless ``max_seconds`` cuts
    the run short.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> g = TaskGraph.stencil([4, 4])
    >>> m = torus_machine([4, 4], wrap=False)
    >>> rng = np.random.default_rng(1)
    >>> out = map_pairs(g, m, start=rng.permutation(16), seed=0)
    >>> out.metric("weighted_hops") <= out.info["start_weighted_hops"]
    True
    """
    t0 = time.perf_counter()
    require_router_grid(machine, "PAIRS", InvalidInputError)
    if not 0.0 <= float(local) <= 1.0:
        raise InvalidInputError(f"local: must lie in [0, 1]; got {local!r}")
    n = graph.n_tasks
    if max_proposals is None:
        max_proposals = 64 * n
    if int(max_proposals) < 0 or int(chunk) < 1:
        raise InvalidInputError(f"max_proposals: must be >= 0 (and chunk >= 1); got {max_proposals}, {chunk}")
    if start is None:
        start = identity_mapping(graph, machine)
    start_arr = start.task_to_proc if isinstance(start, Mapping) else start
    first = Mapping(start_arr, machine, graph)  # validates length, range and capacity
    if first.capacity != 1:
        raise InvalidInputError(
            f"start: PAIRS exchanges single tasks and needs at most one task per processor; "
            f"got {n} tasks on {machine.n_procs} processors"
        )
    t2p = first.task_to_proc.astype(np.intp).copy()
    p2t = np.full(machine.n_procs, -1, dtype=np.intp)
    p2t[t2p] = np.arange(n, dtype=np.intp)
    sym = _symmetrised(graph)
    pn_ptr, pn_idx = machine.neighbors()
    wmax = float(sym.weights.max()) if sym.n_edges else 0.0
    tol = 1e-9 * wmax
    rng = np.random.default_rng(seed)
    start_wh = first.metric("weighted_hops")
    done = accepted = 0
    while done < max_proposals:
        m = int(min(chunk, max_proposals - done))
        tasks = rng.integers(0, n, size=m).astype(np.intp)
        uni = rng.integers(0, machine.n_procs, size=m).astype(np.intp)
        uni[rng.random(m) < local] = -1
        r1 = rng.integers(0, 1 << 62, size=m, dtype=np.int64)
        r2 = rng.integers(0, 1 << 62, size=m, dtype=np.int64)
        acc, _ = _grid.pairs_refine(
            sym.indptr, sym.indices, sym.weights, machine.router_coords, machine.dims, machine.wrap,
            t2p, p2t, pn_ptr, pn_idx, tasks, uni, r1, r2, tol,
        )
        accepted += acc
        done += m
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            break
    out = Mapping(t2p, machine, graph, method="pairs")
    out.info.update(
        start_weighted_hops=start_wh,
        weighted_hops=out.metric("weighted_hops"),
        accepted=accepted,
        proposals=done,
        seed=seed,
        seconds=time.perf_counter() - t0,
    )
    return out
