"""The optional peers as the studies call them: one call per peer and use, each None when not installed.

The peers themselves (drivers, ctypes bindings, their inputs) live apart in ``benchmarks/peers``
(``bash benchmarks/peers/install_peers.sh``); this module is the studies' one way to them:
Zoltan2's MJ task mapping of a graph on a torus (:func:`zoltan2_mapping`), the best of Scotch's
strategies on a torus (:func:`scotch_best`), and the head-to-head of our one MJ candidate and
search with Zoltan2's on stencils (:func:`zoltan2_anchor_rows`, :data:`ANCHOR_COLUMNS`).
"""

from __future__ import annotations

from mpitaskmap import TaskGraph, best_of, candidate_list, identity_mapping, map_geometric, metrics
from mpitaskmap import titan_machine, torus_machine

from .timing import median_time

#: Ranks of Zoltan2's own rotation search of 3-D tasks on a 3-D machine: 3!*3! + 3! + 3! + 1, every
#: rotation pair (one per rank).
ZOLTAN2_ROTATION_RANKS = 49
#: Scotch's strategies tried by :func:`scotch_best`.
SCOTCH_STRATEGIES = ("default", "quality", "speed", "balance", "safety")


def zoltan2_mapping(graph, machine, nranks: int):
    """Zoltan2's MJ task mapping (task -> processor row) of ``graph`` on ``machine``, or None.

    ``nranks`` 1: its one candidate; more: its own rotation search under ``mpirun -np
    nranks`` (best of by its cost model).  Task coordinates are the graph's, processor
    coordinates the machine's router coordinates, torus shift on (extent = the machine's
    dimensions).  None when the peer is not installed (``benchmarks/peers/zoltan2.py``).
    """
    from benchmarks.peers import zoltan2

    if not zoltan2.zoltan2_available():
        return None
    ttp, _ = zoltan2.map_zoltan2(machine.router_coords.astype(float), graph.coords, graph.indptr, graph.indices,
                                 graph.weights, machine_extent=tuple(int(v) for v in machine.dims), nranks=nranks)
    return ttp


def scotch_best(graph: TaskGraph, machine, value):
    """The best of Scotch's strategies on the torus ``machine``: ``(value, strategy, seconds)``, or None.

    Parameters
    ----------
    graph : TaskGraph
        The task graph.
    machine : TorusMachine
        The torus (its dimensions and router coordinates are Scotch's target).
    value : callable
        ``value(graph, machine, task_to_proc) -> float``, lower is better: what "best" means.

    Returns
    -------
    tuple of (float, str, float) or None
        The least value over :data:`SCOTCH_STRATEGIES` (seed 0, ``repair``), its strategy and
        Scotch's seconds; None when libscotch is missing.
    """
    from benchmarks.peers.scotch import TorusTarget, map_scotch, scotch_available

    if not scotch_available():
        return None
    target = TorusTarget.from_proc_coords(tuple(machine.dims), machine.router_coords)
    best = None
    for strategy in SCOTCH_STRATEGIES:
        ttp, seconds = map_scotch(graph.indptr, graph.indices, graph.weights, target, seed=0,
                                  strategy=strategy, repair=True)
        v = value(graph, machine, ttp)
        if best is None or v < best[0]:
            best = (v, strategy, seconds)
    return best


#: Stencil shapes of :func:`zoltan2_anchor_rows` (4,096 to 262,144 tasks).
ANCHOR_SHAPES = [(16, 16, 16), (32, 32, 16), (32, 32, 32), (64, 64, 32), (64, 64, 64)]
#: The columns of :func:`zoltan2_anchor_rows`' table.
ANCHOR_COLUMNS = ["input", "tasks", "default_wh", "zoltan2_wh", "ours_1cand_wh", "ours_search_wh", "search_cands",
                  "wh_ratio_1cand", "wh_ratio_search", "zoltan2_s", "ours_1cand_s", "time_ratio"]


def anchor_inputs(shapes):
    """Per shape: the stencil on a full torus of its shape and on a sparse Titan-like allocation.

    Yields ``(label, graph, machine)``; the allocation has 16 cores per node and other jobs hold
    half the machine, or half of what the job leaves free (``busy = min(0.5, 0.5 * (1 - nodes /
    19200))``).
    """
    for shape in shapes:
        n = shape[0] * shape[1] * shape[2]
        graph = TaskGraph.stencil(shape)
        yield f"{'x'.join(map(str, shape))} on full torus", graph, torus_machine(shape)
        nodes = n // 16
        busy = min(0.5, 0.5 * (1 - nodes / 19200))
        yield (f"{'x'.join(map(str, shape))} on sparse titan", graph,
               titan_machine(nodes, cores_per_node=16, busy_fraction=busy, seed=1))


def zoltan2_anchor_rows(shapes=ANCHOR_SHAPES, repeat: int = 3) -> list[dict]:
    """Our MJ mapper against Zoltan2's MJ task mapper on :func:`anchor_inputs`; one row per input.

    Per input: seconds of one candidate (ours: FZ, longest dimension, torus shift; Zoltan2: one
    MPI rank, the mapping call alone as its driver measures it), WeightedHops of that candidate
    and of our search (every ordering x variant without rotations, plus FZ with all rotation
    pairs), and the ratios ours / Zoltan2.  Empty (with a printed reason) when Zoltan2 is missing.
    """
    from benchmarks.peers.zoltan2 import map_zoltan2, zoltan2_available

    if not zoltan2_available():
        print("zoltan2_compare: Zoltan2 driver not built; run bash benchmarks/peers/install_peers.sh")
        return []
    rows = []
    for label, graph, machine in anchor_inputs(shapes):
        t_ours, ours = median_time(lambda: map_geometric(graph, machine), repeat)
        z_times, z_ttp = [], None
        for _ in range(repeat):
            z_ttp, secs = map_zoltan2(machine.router_coords, graph.coords, graph.indptr, graph.indices,
                                      graph.weights, machine_extent=machine.dims)
            z_times.append(secs)
        t_z = sorted(z_times)[len(z_times) // 2]
        wh_z = metrics.weighted_hops(graph, machine, z_ttp)
        wh_ours = ours.metric("weighted_hops")
        cands = candidate_list(graph, machine, rotate=False, include_identity=True)
        cands += [c for c in candidate_list(graph, machine, orderings=["fz"]) if c not in cands]
        search = best_of(graph, machine, cands, metric="weighted_hops")
        rows.append({
            "input": label,
            "tasks": graph.n_tasks,
            "default_wh": identity_mapping(graph, machine).metric("weighted_hops"),
            "zoltan2_wh": wh_z,
            "ours_1cand_wh": wh_ours,
            "ours_search_wh": search.score,
            "search_cands": len(search.scores),
            "wh_ratio_1cand": wh_ours / wh_z,
            "wh_ratio_search": search.score / wh_z,
            "zoltan2_s": t_z,
            "ours_1cand_s": t_ours,
            "time_ratio": t_ours / t_z,
        })
    return rows
