"""The in-job entry point: ``comm = mpitaskmap.remap(comm, coords)``.

Collective.  Every rank says which task it runs (its task coordinate, optionally its
communication partners); a coordinate provider says where every rank sits in the
network; the ranks evaluate the deterministic candidate list in parallel (rank ``r``
takes candidates ``r, r + size, ...``), agree on the best by the chosen metric, and get
back a communicator in which new rank ``t`` is the process that runs task ``t``.

Collectives (a constant number, whatever the candidate count): one ``Allreduce`` that
compares the ranks' job-level settings (:mod:`~.job_settings`), one ``allgather`` of every
rank's task, location and local errors, one ``allgather`` of every rank's candidate scores
and errors, one more for the second stage (the best candidates refined; not with
``refine=0``), one for the judge (the
replayed times of the objective's best few and of the default order,
:mod:`mpitaskmap.search.judge`; not with
``judge=None`` or where the default judge does not apply), one ``Bcast`` of the winning
mapping from the rank that computed it, one ``Split``.  When a rank's provider or network
differs from rank 0's, two ``bcast`` of one line each name both in the agreed error.

The same path answers :func:`mpitaskmap.create_cart` and
:func:`mpitaskmap.create_dist_graph_adjacent` (:mod:`~.topology_comms`): :func:`remap_task`
takes this rank's task as a function instead of ``coords``, ``neighbors`` and ``weights``.

Never hang: nothing raises between collectives.  Local failures (bad coordinates, a
provider error, an exception inside a mapper) travel in the gathered data, every rank
sees all of them, and every rank takes the same decision: raise the same
:class:`~mpitaskmap.errors.MappingError` naming the first failing rank, or, with
``on_error="identity"``, return a duplicate of ``comm`` unchanged.

Environment (read on every rank; the job-level settings must agree, :mod:`~.job_settings`):

=========================  ==============================================================
``MPITASKMAP_DISABLE=1``   return ``comm.Dup()`` unchanged (job-level switch)
``MPITASKMAP_PROVIDER``    provider spec when ``provider=`` is not given (default "auto")
``MPITASKMAP_COORDS_FILE`` machine file read by the ``file`` provider
``MPITASKMAP_LOG``         log level of the ``mpitaskmap`` logger for this call
                           (e.g. ``info``); rank 0 speaks, other ranks only warn
=========================  ==============================================================
"""

from __future__ import annotations

import functools
import logging
import sys
import traceback
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from mpi4py import MPI

from ..errors import MappingError, ProviderError
from ..search.families import identity as identity_family
from ..search.judge import (DEFAULT_JUDGE, DEFAULT_ORDER, JUDGE_TOP, TIED, judge_change, judge_stage, mapping_digest,
                            replay_function, replay_in_turn, resolve_judge)
from ..mapping import IDENTITY
from ..sim.fluid import DEFAULT_NETWORK_MODEL
from ..metrics import METRICS, change_text
from ..mappers.geometric.mj import ORDERINGS
from ..search.problem import Candidate, Problem
from ..search.registry import as_candidate
from .job_settings import agree_settings
from .gather import (LocalRank, NodeShare, describe_network, gather_job, input_error, network_digest,
                     network_mismatch)
from ..providers import Provider, assemble_machine_arrays, get_provider
from ..search.scoring import (DEFAULT_FAMILIES, REFINE_TOP, apply, candidate_list, polishes_nodes,
                              refinement_candidates, resolve_metric, score_candidates, top_indices, winner)
from ..graphs.taskgraph import TaskGraph

__all__ = ["remap", "remap_task", "RemapReport", "search_candidates", "SearchResult", "METRIC_NAMES",
           "shared_job_data"]

logger = logging.getLogger("mpitaskmap")

#: Metrics remap() can optimise: every name of :data:`mpitaskmap.metrics.METRICS` ("latency" is
#: Latency(M), the bandwidth-aware max link load; "predicted_time" the predicted seconds of one
#: exchange, the default on machines with links; link metrics need a machine with a link model).
METRIC_NAMES = tuple(METRICS)

#: How the agreed error begins when ``task()`` failed on some rank (the first failing rank's,
#: :func:`~mpitaskmap.runtime.gather.gather_job`), e.g. "task: rank 1: ValueError: coords: ...".
TASK_ERROR = "task: rank "


@dataclass
class RemapReport:
    """What :func:`remap` did, identical on every rank.

    Attributes
    ----------
    status : str
        "remapped", "identity" (the default order won, or was returned after an error
        with ``on_error="identity"``) or "disabled".
    provider : str
        Provider that located the ranks.
    machine : str
        Description of the assembled machine.
    metric : str
        Metric optimised.
    n_candidates : int
        Candidates evaluated, both stages.
    n_refined : int
        Of those, second-stage refinements of the best first-stage candidates.
    winner : str
        Label of the winning candidate.
    winner_index : int
        Its index in the candidate list (0 = identity).
    before, after : float
        Metric of the default order and of the result.
    seconds : dict
        Wall seconds per phase on rank 0 (``gather``, ``map_max`` = slowest rank's
        candidate evaluation, ``judge`` when the judge ran, ``bcast``, ``split``,
        ``total``).
    candidates_per_rank : list of int
        How many candidates each rank evaluated.
    gathered_bytes : int
        Bytes each rank (each node leader with ``shared_memory=True``) received in the
        collectives that gather the job's data.
    shared_bytes : int
        Bytes of the node's shared-memory windows holding the task graph and machine
        (``shared_memory=True``; 0 without).
    error : str
        The agreed error, when one happened.
    new_rank_of : list of int
        ``new_rank_of[old_rank]``: the new rank of every process.
    judge : str or None
        The judge that picked the winner among the objective's best and the default order
        (``"fluid"``), None when the objective decided alone; ``judge_why`` says why.
    judged : list of dict
        The mappings the judge replayed (:class:`~mpitaskmap.search.judge.JudgeOutcome`), the
        default order's among them: ``index``, ``candidate``, ``score`` (objective),
        ``simulated_s`` (replayed seconds of an exchange step: the fluid judge's mean over its
        steps), ``objective_rank``, ``simulated_rank``, ``chosen_by``.
    default_simulated_s : float
        The default order's replayed seconds (nan when the judge did not replay it).  Where
        the judge decided, :meth:`summary` leads with it beside the winner's, and says "no
        gain found" when the default order is kept.
    objective_winner : str
        The objective's own pick (the winner when no judge ran).
    nothing_to_map : str
        Why there was nothing to map ("" otherwise): all ranks on one node, where every
        order costs the same and the default order is kept; the summary says so instead
        of the metric before and after.
    call : str
        The call that mapped: ``"remap"``, ``"create_cart"``, ``"cart_order"``, ... (the first
        words of :meth:`summary` and of the log lines).
    """

    status: str = IDENTITY
    provider: str = ""
    machine: str = ""
    metric: str = ""
    n_candidates: int = 0
    n_refined: int = 0
    winner: str = ""
    winner_index: int = 0
    before: float = float("nan")
    after: float = float("nan")
    seconds: dict = field(default_factory=dict)
    candidates_per_rank: list = field(default_factory=list)
    gathered_bytes: int = 0
    shared_bytes: int = 0
    error: str = ""
    new_rank_of: list = field(default_factory=list)
    judge: str | None = None
    judge_why: str = ""
    judged: list = field(default_factory=list)
    default_simulated_s: float = float("nan")
    objective_winner: str = ""
    nothing_to_map: str = ""
    call: str = "remap"

    def summary(self) -> str:
        """Return a short multi-line text report.

        Where the judge decided, the first figures are the replayed step of the default
        order and of the winner (or "no gain found" when the default order is kept), the
        objective's change second, labelled as predicted
        (:func:`~mpitaskmap.search.judge.judge_change`); otherwise the objective's change.
        """
        lines = [f"mpitaskmap.{self.call}: {self.status}"]
        if self.error:
            lines.append(f"  error: {self.error}")
        if self.provider:
            lines.append(f"  provider: {self.provider}; machine: {self.machine}")
        if self.nothing_to_map:
            lines.append(f"  nothing to map: {self.nothing_to_map}")
        elif self.n_candidates and self.judge:
            replayed, objective = judge_change(self.judge, self.judged, self.winner_index, self.metric)
            refined = f"{self.n_refined} refined" if self.n_refined else ""
            if self.winner_index:
                lines.append(f"  {replayed}; winner #{self.winner_index} {self.winner} of {self.n_candidates} "
                             "candidates" + (f" ({refined})" if refined else ""))
            else:
                lines.append(f"  {replayed} ({self.n_candidates} candidates" + (f", {refined})" if refined else ")"))
            lines.append(f"  {objective}")
        elif self.n_candidates:
            gain = change_text(self.before, self.after) if self.before > 0 or self.after == self.before else "higher"
            # every printed time names its model: the objective's seconds are "predicted"
            unit, model = (" s", "predicted, ") if self.metric == "predicted_time" else ("", "")
            lines.append(
                f"  {self.metric}: default {self.before:.6g}{unit} -> {self.after:.6g}{unit} ({model}{gain}); "
                f"winner #{self.winner_index} {self.winner} of {self.n_candidates} candidates"
                + (f" ({self.n_refined} refined)" if self.n_refined else "")
            )
        if self.judge:
            best = [j for j in self.judged if j.get("chosen_by") not in (TIED, DEFAULT_ORDER)]
            tied = [j for j in self.judged if j.get("chosen_by") == TIED]
            times = ", ".join(f"#{j['index']} {j['simulated_s']:.4g} s" for j in best)
            if tied:
                fastest = min(tied, key=lambda j: (j["simulated_s"], j["index"]))
                times += (f"; {len(tied)} more tied with the last of them, the fastest #{fastest['index']} "
                          f"{fastest['simulated_s']:.4g} s")
            also = " and the default order" if any(j.get("chosen_by") == DEFAULT_ORDER for j in self.judged) else ""
            lines.append(f"  judge: {self.judge} replay ({DEFAULT_NETWORK_MODEL.name} network model) of the "
                         f"objective's {len(best)} best{also}, replayed {times}; "
                         f"the objective's pick: {self.objective_winner}")
        elif self.judge_why:
            lines.append(f"  judge: none ({self.judge_why})")
        if self.seconds:
            lines.append("  seconds: " + ", ".join(f"{k} {v:.3f}" for k, v in self.seconds.items()))
        return "\n".join(lines)


class _RankFilter(logging.Filter):
    def __init__(self, rank: int) -> None:
        super().__init__()
        self.rank = rank

    def filter(self, record: logging.LogRecord) -> bool:
        record.rank = self.rank
        return self.rank == 0 or record.levelno >= logging.WARNING


def _configure_logging(level: str | None, rank: int) -> logging.Handler | None:
    if not level:
        return None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[mpitaskmap %(rank)d] %(levelname)s: %(message)s"))
    handler.addFilter(_RankFilter(rank))
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    return handler


def _local_task(comm, coords, neighbors, weights):
    """This rank's task: (coords, neighbors, weights) arrays (None without neighbours); raises on bad input."""
    if coords is None and isinstance(comm, MPI.Cartcomm):
        coords = comm.Get_coords(comm.Get_rank())
    if coords is None:
        raise ValueError("coords: this rank gave no task coordinate (and comm is not a Cartcomm)")
    c = _task_coordinate(coords)
    if c.size == 0:
        raise ValueError("coords: empty coordinate")
    bad = np.flatnonzero(~np.isfinite(c))
    if bad.size:
        raise ValueError(f"coords: non-finite value in dimension {int(bad[0])}; got {float(c[bad[0]])!r}")
    size = comm.Get_size()
    if neighbors is None:
        if isinstance(comm, MPI.Distgraphcomm):
            _, dests, w = comm.Get_dist_neighbors()
            neighbors = list(dests)
            if w is not None and weights is None and w is not MPI.UNWEIGHTED:
                weights = list(w[1])
        elif isinstance(comm, MPI.Cartcomm):
            neighbors = []
            for d in range(comm.Get_dim()):
                for disp in (-1, 1):
                    _, dest = comm.Shift(d, disp)
                    if dest != MPI.PROC_NULL and dest != comm.Get_rank():
                        neighbors.append(dest)
    if neighbors is not None:
        neighbors = [int(v) for v in neighbors]
        for i, v in enumerate(neighbors):
            if not 0 <= v < size:
                raise ValueError(f"neighbors: entry {i} names rank {v}, outside [0, {size})")
        if weights is None:
            weights = [1.0] * len(neighbors)
        weights = [float(v) for v in weights]
        if len(weights) != len(neighbors):
            raise ValueError(f"weights: {len(weights)} values for {len(neighbors)} neighbors")
        for i, v in enumerate(weights):
            if not np.isfinite(v) or v < 0:
                raise ValueError(f"weights: entry {i} must be finite and >= 0; got {v!r}")
        return c, np.asarray(neighbors, dtype=np.int64), np.asarray(weights, dtype=np.float64)
    return c, None, None


def _task_coordinate(coords) -> np.ndarray:
    """This rank's task coordinate as a flat float64 array; a ValueError says what is wrong with ``coords``.

    Examples
    --------
    >>> _task_coordinate((1, 2.5)).tolist()
    [1.0, 2.5]
    >>> _task_coordinate("abc")
    Traceback (most recent call last):
    ...
    ValueError: coords: expected this rank's task coordinate as numbers, e.g. (x, y, z); got the string 'abc'
    >>> _task_coordinate([0, "y"])
    Traceback (most recent call last):
    ...
    ValueError: coords: entry 1 is not a number; got 'y' (str)
    """
    if isinstance(coords, (str, bytes)):
        kind = "string" if isinstance(coords, str) else "bytes"
        raise ValueError(f"coords: expected this rank's task coordinate as numbers, e.g. (x, y, z); "
                         f"got the {kind} {coords!r}")
    if isinstance(coords, np.ndarray) and coords.dtype.kind in "iuf":
        return coords.astype(np.float64).ravel()
    try:
        entries = np.asarray(coords, dtype=object).ravel()
    except ValueError:  # ragged nesting numpy cannot hold
        raise ValueError(f"coords: expected a flat sequence of numbers, e.g. (x, y, z); got {coords!r}") from None
    for i, v in enumerate(entries):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ValueError(f"coords: entry {i} is not a number; got {v!r} ({type(v).__name__})")
    return entries.astype(np.float64)


def _first_error(items, what: str) -> str | None:
    for rank, err in enumerate(items):
        if err:
            return f"{what}: rank {rank}: {err}"
    return None


def remap(
    comm: MPI.Intracomm,
    coords=None,
    *,
    neighbors: Sequence[int] | None = None,
    weights: Sequence[float] | None = None,
    provider: str | Provider | None = None,
    metric: str | None = None,
    orderings: Sequence[str] = ORDERINGS,
    rotate: bool = True,
    variants="auto",
    families: str | Sequence[str] = DEFAULT_FAMILIES,
    candidates: Sequence[Candidate] | None = None,
    refine: int = REFINE_TOP,
    judge: str | None = DEFAULT_JUDGE,
    shared_memory: bool | None = None,
    on_error: str = "raise",
    report: bool = False,
):
    """Return a communicator whose ranks are reordered so communicating tasks sit close.

    Collective over ``comm``.  New rank ``t`` of the returned communicator is the
    process the mapping chose for task ``t`` (the task of old rank ``t``): after the call
    the application uses its *new* rank to pick its subdomain.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The communicator to reorder (left untouched).  A ``Cartcomm`` supplies
        coordinates and neighbours, a ``Distgraphcomm`` neighbours and weights.
    coords : sequence of float
        This rank's task coordinate (e.g. the centre of its subgrid); every rank gives
        the same number of dimensions.
    neighbors : sequence of int, optional
        This rank's communication partners (old ranks), like the destinations of
        ``MPI_Dist_graph_create_adjacent``.  Default: the topology of ``comm`` if it has
        one, else the nearest-neighbour proxy
        :meth:`~mpitaskmap.graphs.taskgraph.TaskGraph.from_coordinate_proxy` of the coordinates.
    weights : sequence of float, optional
        Volumes sent to each neighbour (default 1.0).
    provider : str or Provider, optional
        Where the ranks sit: a spec such as ``"sim:titan:ppn=1"``, ``"file"``, ``"rca"``,
        ``"bgq"``, ``"hostname"``, ``"auto"``, or a Provider object.  Default: the
        ``MPITASKMAP_PROVIDER`` environment variable, else ``"auto"``.
    metric : str, optional
        What the candidate search minimises: a name of :data:`mpitaskmap.metrics.METRICS`
        (:data:`METRIC_NAMES`; the link metrics need a machine with a link model, else every
        rank raises the same error).  Default: ``predicted_time`` (the predicted
        seconds of one exchange, :func:`~mpitaskmap.metrics.predicted_time`; weights are
        bytes) when the machine has a link model, else ``weighted_hops``
        (:func:`~mpitaskmap.metrics.default_metric`); the report names the one used.
    orderings, rotate, variants, families : optional
        Candidate list options, see :func:`~mpitaskmap.search.scoring.candidate_list`
        (``families``, a name or a list, adds other mapper families of
        :data:`~mpitaskmap.search.scoring.FAMILIES`, e.g. ``"graph"``, to the search).
    candidates : sequence of Candidate or str, optional
        An explicit candidate list (the identity is still put first); a method name of
        :data:`~mpitaskmap.search.registry.METHOD_TABLE` stands for its candidate.
    refine : int, optional
        Two-stage search: after the candidate list, the ``refine`` best candidates are
        refined (weighted-hop swaps, plus congestion refinement for ``latency``), spread
        over the ranks like the first stage, and the best of both stages wins (default
        :data:`~mpitaskmap.search.scoring.REFINE_TOP`; 0 = one stage, one collective less).  A
        refinement costs about one graph-mapper pass over all tasks on the rank that
        computes it.
    judge : {"default", "fluid", None}, optional
        Replay the exchange (:func:`~mpitaskmap.search.judge.judge_steps` steps) of the objective's ``JUDGE_TOP`` best distinct mappings
        (those no worse than the default order by the objective) and of the default order
        under SimGrid's SMPI network model, computed in-process
        (:func:`mpitaskmap.sim.fluid.fluid_exchange`), and keep the fastest, the default order
        unless a mapping replays faster than it by more than
        :data:`~mpitaskmap.search.judge.JUDGE_TIE` (the report then says "no gain found"):
        what :func:`mpitaskmap.map` does, so ``remap`` and ``map(method="auto")`` pick the
        same mapping.  The replays are spread over the ranks
        that computed those candidates (one more ``allgather``).  ``"default"``: when
        ``metric`` is None, on a torus machine with a link model, with at most
        :data:`~mpitaskmap.search.judge.FLUID_JUDGE_MAX_EDGES` task-graph edges and within
        :data:`~mpitaskmap.search.judge.FLUID_JUDGE_MAX_WORK` a replay
        (:data:`~mpitaskmap.search.judge.FLUID_JUDGE_MAX_WORK_STEPS` one of several steps;
        :func:`~mpitaskmap.search.judge.default_judge`); ``"fluid"``: whenever possible, no
        budget; None: the objective alone.  The report says which ran and why.
    shared_memory : bool, optional
        Gather the job's data to one leader per node, which builds the task graph and
        machine in MPI shared-memory windows (``Split_type(COMM_TYPE_SHARED)`` +
        ``Win.Allocate_shared``); every rank of the node uses them as read-only views, so
        per-node memory does not grow with the ranks per node; the candidate work is still
        spread over every rank.  Same results as without.  Default: on when the MPI
        library supports it (MPI-3 or later).  The windows belong to the returned
        communicator and are freed with it.
    on_error : {"raise", "identity"}, optional
        On any failure on any rank: every rank raises the same ``MappingError``
        (default), or every rank returns ``comm.Dup()`` and the report says why.
    report : bool, optional
        Also return a :class:`RemapReport`.

    Returns
    -------
    mpi4py.MPI.Intracomm or (mpi4py.MPI.Intracomm, RemapReport)
        A new communicator owned by the caller (free it with ``Free()``), named
        ``"mpitaskmap:<provider>"``.

    Raises
    ------
    MappingError
        On every rank alike, when any rank failed and ``on_error="raise"``.
    ValueError, TypeError
        For invalid local options (unknown metric or on_error value), before any
        communication: every rank gets the same options in a correct program.

    Notes
    -----
    Candidate 0 is always the identity, so the result is never worse than the default
    by the chosen metric.  Ties go to the lowest candidate index; every rank computes
    from identical gathered data, so the result is deterministic.
    """
    task = functools.partial(_local_task, comm, coords, neighbors, weights)
    new, rep = remap_task(comm, task, provider=provider, metric=metric, orderings=orderings, rotate=rotate,
                          variants=variants, families=families, candidates=candidates, refine=refine, judge=judge,
                          shared_memory=shared_memory, on_error=on_error)
    return (new, rep) if report else new


def remap_task(
    comm: MPI.Intracomm,
    task: Callable[[], tuple],
    *,
    call: str = "remap",
    split: bool = True,
    fallback_on_task_error: bool = True,
    provider: str | Provider | None = None,
    metric: str | None = None,
    orderings: Sequence[str] = ORDERINGS,
    rotate: bool = True,
    variants="auto",
    families: str | Sequence[str] = DEFAULT_FAMILIES,
    candidates: Sequence[Candidate] | None = None,
    refine: int = REFINE_TOP,
    judge: str | None = DEFAULT_JUDGE,
    shared_memory: bool | None = None,
    on_error: str = "raise",
) -> tuple[MPI.Intracomm | None, RemapReport]:
    """Reorder ``comm`` as :func:`remap` does, this rank's task given by a function: every front door's path.

    Collective over ``comm``.  :func:`remap`, :func:`~mpitaskmap.runtime.topology_comms.create_cart`,
    :func:`~mpitaskmap.runtime.topology_comms.create_dist_graph_adjacent` and their order
    hooks differ only in how a rank states its task; the configuration, the providers,
    the gather, the search, the agreed errors, ``on_error``, ``MPITASKMAP_DISABLE`` and the
    report are this function's.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The communicator to reorder (left untouched).
    task : callable
        ``task()`` returns this rank's ``(coords, neighbors, weights)``: a float64 task
        coordinate, and int64 partners (ranks of ``comm``) with float64 volumes, or None and
        None (the coordinate proxy graph); or raises, and the error reaches every rank as
        ``"task: rank r: ..."``.  Called once on every rank (not at all when
        ``MPITASKMAP_DISABLE`` is set), after the configuration broadcast and before the
        gather; it may call collectives over ``comm`` if it never raises before its last one.
    call : str, optional
        Name of the call in the report and the log (default ``"remap"``).
    split : bool, optional
        Return the reordered communicator (default); False: only the order
        (``report.new_rank_of``), no communicator is made and the returned one is None.
    fallback_on_task_error : bool, optional
        With ``on_error="identity"``, also fall back to the unchanged order when ``task()``
        failed (default); False: every rank raises the agreed :class:`MappingError`
        (:data:`TASK_ERROR`) whatever ``on_error``, for callers whose invalid arguments leave
        nothing to fall back to (``MPI_Cart_create``'s dims, an inconsistent graph).
    provider, metric, orderings, rotate, variants, families, candidates, refine, judge, shared_memory, on_error
        As for :func:`remap`.

    Returns
    -------
    new : mpi4py.MPI.Intracomm or None
        As :func:`remap` returns it (None with ``split=False``).
    report : RemapReport
        Identical on every rank.

    Raises
    ------
    MappingError, ValueError, TypeError
        As :func:`remap` raises them.

    Examples
    --------
    >>> import functools
    >>> from mpi4py import MPI
    >>> task = functools.partial(_local_task, MPI.COMM_SELF, (0.0, 0.0), None, None)
    >>> new, rep = remap_task(MPI.COMM_SELF, task, split=False, provider="sim:torus:dims=2x2")
    >>> new is None, rep.new_rank_of, rep.call
    (True, [0], 'remap')
    """
    if on_error not in ("raise", "identity"):
        raise ValueError(f"on_error: expected 'raise' or 'identity'; got {on_error!r}")
    if metric is not None and metric not in METRIC_NAMES:
        raise ValueError(f"metric: unknown {metric!r}; valid: {sorted(METRIC_NAMES)}")
    if judge not in (None, DEFAULT_JUDGE, "fluid"):
        raise ValueError(f"judge: expected {DEFAULT_JUDGE!r}, 'fluid' or None; got {judge!r} (SimGrid's own "
                         "'simulate' judge runs offline: mpitaskmap.map or the command line)")
    if not isinstance(comm, MPI.Intracomm):
        raise TypeError(f"comm: expected an mpi4py Intracomm; got {type(comm).__name__}")
    t_start = MPI.Wtime()
    rank, size = comm.Get_rank(), comm.Get_size()
    config = agree_settings(comm, provider)  # one Allreduce; settings that differ between ranks: config["error"]
    handler = _configure_logging(config["log"], rank)
    try:
        options = dict(orderings=orderings, rotate=rotate, variants=variants, families=families)
        if shared_memory is None:
            shared_memory = MPI.Get_version() >= (3, 0)
        return _remap(comm, rank, size, config, t_start, task, provider, metric, options, candidates, int(refine),
                      judge, bool(shared_memory), on_error, call, bool(split), bool(fallback_on_task_error))
    finally:
        if handler is not None:
            logger.removeHandler(handler)


def _finish(comm, rep: RemapReport, on_error: str, new=None, share=None, split: bool = True):
    if rep.error and on_error == "raise":
        raise MappingError(rep.error)
    if not rep.new_rank_of:  # disabled or failed: the unchanged order
        rep.new_rank_of = list(range(comm.Get_size()))
        if rep.error:
            rep.status = "identity"
            if comm.Get_rank() == 0:
                logger.warning("%s returns the unchanged order: %s", rep.call, rep.error)
        if split:
            new = comm.Dup()
    if new is None:  # the order alone: nothing outlives the call
        if share is not None:
            share.free()
        return None, rep
    new.Set_name(f"mpitaskmap:{rep.provider or 'none'}")
    if share is not None:  # the shared windows live as long as the returned communicator
        new.Set_attr(_share_keyval(), share)
    return new, rep


_SHARE_KEYVAL: list = []


def _share_keyval() -> int:
    """The communicator attribute holding a remap's :class:`NodeShare`; freed with the communicator."""
    if not _SHARE_KEYVAL:
        _SHARE_KEYVAL.append(MPI.Comm.Create_keyval(delete_fn=lambda comm, key, share: share.free()))
    return _SHARE_KEYVAL[0]


def shared_job_data(comm: MPI.Intracomm):
    """The :class:`~mpitaskmap.runtime.gather.NodeShare` of a communicator ``remap`` returned, or None.

    Its ``windows`` hold the task graph's and machine's arrays remap built, one copy per
    node; freeing ``comm`` frees them.
    """
    return comm.Get_attr(_share_keyval())


def _remap(comm, rank, size, config, t_start, task, provider, metric, options, candidates, refine, judge,
           shared_memory, on_error, call, split, fallback_on_task_error):
    rep = RemapReport(metric=metric, call=call)
    if config["disable"]:
        rep.status = "disabled"
        if rank == 0:
            logger.info("MPITASKMAP_DISABLE is set: %s keeps the unchanged order", call)
        return _finish(comm, rep, on_error, split=split)
    share = NodeShare(comm) if shared_memory else None
    try:
        return _remap_shared(comm, rank, size, t_start, config, task, provider, metric, options, candidates,
                             refine, judge, share, on_error, split, fallback_on_task_error, rep)
    except BaseException:
        if share is not None:  # raised only as the agreed MappingError, on every rank alike
            share.free()
        raise


def _remap_shared(comm, rank, size, t_start, config, task, provider, metric, options, candidates, refine, judge,
                  share, on_error, split, fallback_on_task_error, rep):

    # -- local phase: never raises --------------------------------------------------
    local = LocalRank()
    try:
        local.coords, local.neighbors, local.weights = task()
    except Exception as exc:  # travels to every rank in the gather
        local.task_error = f"{type(exc).__name__}: {exc}"
    prov_name, network = "", None
    try:
        if config["error"]:  # settings differ between ranks: no provider is asked; the error is agreed below
            raise ProviderError(config["error"])
        prov = provider if isinstance(provider, Provider) else get_provider(provider or config["provider"])
        prov_name = prov.spec
        # providers describe the whole job: locate by world rank, whatever comm is
        world = MPI.COMM_WORLD
        location = prov.locate(world.Get_rank(), world.Get_size())
        network = prov.network(size=world.Get_size())
        local.location = np.asarray(location.coords, dtype=np.int64)
        local.node = location.node.encode("utf-8")
        local.digest = network_digest(prov_name, network)
    except Exception as exc:
        local.location_error = f"{type(exc).__name__}: {exc}"

    # -- gather: arrays, a constant number of collectives; build the inputs --------------
    t0 = MPI.Wtime()
    name = f"{prov_name} ({size} ranks)"
    graph = machine = None
    if share is None:
        job = gather_job(comm, local)
        err = job.error
        if not err:
            err, graph, machine = _build_inputs(job, network, name)
    else:  # the node leader builds into shared windows, every rank views them
        job = share.gather_and_build(local, functools.partial(_inputs, network=network, name=name))
        err = job.error
        if not err:
            graph, machine = job.built
    if job.odd_rank >= 0:  # known on every rank from the same headers: name both providers
        err = _network_mismatch(comm, job.odd_rank, describe_network(prov_name, network))
    if config["error"] and not err.startswith(TASK_ERROR):
        err = config["error"]  # the same on every rank: each differing setting, its values and ranks
    t_gather = MPI.Wtime() - t0
    rep.provider = prov_name
    rep.gathered_bytes = job.bytes_moved
    rep.shared_bytes = job.shared_bytes
    if err:
        rep.error = err
        if not fallback_on_task_error and err.startswith(TASK_ERROR):
            on_error = "raise"
        return _finish(comm, rep, on_error, share=share, split=split)
    rep.machine = machine.name
    metric_given = metric is not None
    metric = resolve_metric(metric, machine)  # the same machine on every rank: the same name
    rep.metric = metric

    # -- candidate search (two collectives, one more for the judge) ----------------------
    problem = Problem(graph, machine)
    identity = identity_family.CANDIDATE
    try:
        base = [as_candidate(c) for c in candidates] if candidates is not None else candidate_list(problem, **options)
        cands, list_err = [identity] + [c for c in base if c.family != IDENTITY], ""
    except Exception as exc:  # deterministic, so every rank fails alike; still agreed below
        cands, list_err = [identity], f"candidate list: {type(exc).__name__}: {exc}"
    judge_name, judge_why, judge_options = resolve_judge(problem, judge, metric_given)  # the same everywhere
    search = _search(comm, problem, cands, metric, list_err, refine, judge_name, judge_options, judge_why)
    if search.error:
        rep.error = search.error
        return _finish(comm, rep, on_error, share=share, split=split)
    rep.n_candidates = len(search.candidates)
    rep.n_refined = search.n_refined
    rep.candidates_per_rank = search.candidates_per_rank
    rep.before = search.scores[0]
    rep.after = search.score
    rep.winner_index = search.index
    rep.winner = search.candidates[search.index].label()
    rep.judge, rep.judge_why, rep.judged = search.judge, search.judge_why, search.judged
    rep.default_simulated_s = search.default_simulated_s
    rep.objective_winner = search.candidates[search.objective_index].label()
    if machine.n_nodes == 1 and search.index == 0 and rep.before == rep.after:  # no network: every order ties
        ranks = "the 1 rank runs" if size == 1 else f"all {size} ranks run"
        rep.nothing_to_map = f"{ranks} on one node (no network between them); the default order is kept"
    task_to_proc = search.task_to_proc
    t_map, t_bcast = search.seconds["map_max"], search.seconds["bcast"]

    # process p runs task t where task_to_proc[t] = p: its new rank is t
    new_rank_of = np.empty(size, dtype=np.int64)
    new_rank_of[task_to_proc] = np.arange(size)
    t0 = MPI.Wtime()
    new = comm.Split(0, int(new_rank_of[rank])) if split else None
    t_split = MPI.Wtime() - t0
    rep.new_rank_of = new_rank_of.tolist()
    rep.status = IDENTITY if search.index == 0 else "remapped"
    rep.seconds = {
        "gather": t_gather,
        "map_max": t_map,
        **({"judge": search.seconds["judge"]} if "judge" in search.seconds else {}),
        "bcast": t_bcast,
        **({"split": t_split} if split else {}),
        "total": MPI.Wtime() - t_start,
    }
    if rank == 0:
        logger.info("%s", rep.summary())
    return _finish(comm, rep, on_error, new, share=share, split=split)


def _network_mismatch(comm, odd: int, mine: str) -> str:
    """The agreed error naming the providers and networks of rank 0 and of rank ``odd``.

    Collective (two broadcasts of one line each), called by every rank alike when the
    gathered headers show that rank ``odd`` disagrees with rank 0.
    """
    rank = comm.Get_rank()
    first = comm.bcast(mine if rank == 0 else None, root=0)
    other = comm.bcast(mine if rank == odd else None, root=odd)
    return network_mismatch(odd, other, first)


def _inputs(job, network, name: str):
    """The task graph and the machine from the gathered arrays (raises on bad data)."""
    if job.counts is not None:
        graph = TaskGraph.from_neighbor_arrays(job.counts, job.neighbors, job.weights, coords=job.coords)
    else:
        graph = TaskGraph.from_coordinate_proxy(job.coords)
    return graph, assemble_machine_arrays(job.locations, job.nodes, network, name=name)


def _build_inputs(job, network, name: str):
    """Build the task graph and the machine from the gathered arrays (never raises)."""
    try:
        graph, machine = _inputs(job, network, name)
    except Exception as exc:
        return input_error(exc), None, None
    return None, graph, machine


@dataclass
class SearchResult:
    """Outcome of :func:`search_candidates`, identical on every rank.

    Attributes
    ----------
    task_to_proc : (n_tasks,) ndarray of int64
        The winning mapping.
    score : float
        Its metric value.
    index : int
        Its index in the candidate list (ties to the lowest).
    scores : list of float
        Every candidate's score, in list order.
    candidates_per_rank : list of int
        Candidates each rank evaluated.
    seconds : dict
        ``map_max`` (slowest rank's evaluation), ``map_cpu`` (CPU seconds per rank, a
        list), ``bcast``.
    error : str
        The agreed error ("" when all went well).
    candidates : list of Candidate
        Everything evaluated: the given list, then the second stage (``index`` points
        here).
    n_refined : int
        Second-stage candidates evaluated.
    judge : str or None
        The judge that picked the winner (None: the objective alone); ``judge_why`` why.
    judged : list of dict
        What the judge replayed, in objective order, the default order last (the rows of
        :class:`~mpitaskmap.search.judge.JudgeOutcome`).
    default_simulated_s : float
        The default order's replayed seconds (nan when not replayed).
    objective_index : int
        The objective's own pick (= ``index`` when no judge ran).
    """

    task_to_proc: np.ndarray | None = None
    score: float = float("inf")
    index: int = -1
    scores: list = field(default_factory=list)
    candidates_per_rank: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    error: str = ""
    candidates: list = field(default_factory=list)
    n_refined: int = 0
    judge: str | None = None
    judge_why: str = ""
    judged: list = field(default_factory=list)
    default_simulated_s: float = float("nan")
    objective_index: int = -1


def search_candidates(
    comm: MPI.Intracomm, graph: TaskGraph, machine, candidates: Sequence[Candidate], *, metric: str | None = None,
    refine: int = 0, judge: str | None = None, judge_options: dict | None = None,
) -> SearchResult:
    """Evaluate a candidate list in parallel and agree on the best mapping.

    Collective over ``comm``.  Rank ``r`` evaluates candidates ``r, r + size, ...``; one
    ``allgather`` of the scores (and of any mapper error) and one ``Bcast`` of the winning
    mapping from the rank that computed it: two collectives whatever the list length.
    With ``refine > 0`` a second stage refines the ``refine`` best candidates
    (:func:`~mpitaskmap.search.scoring.refinement_candidates`), spread over the ranks the same
    way, with one more ``allgather``.
    Every rank must pass the same graph, machine and list (as :func:`remap` guarantees by
    building them from gathered data).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        Ranks sharing the work.
    graph : TaskGraph
        The task graph (any number of tasks, independent of ``comm.size``).
    machine : Machine
        The processors.
    candidates : sequence of Candidate
        Candidate list, e.g. :func:`~mpitaskmap.search.scoring.candidate_list`.
    metric : str, optional
        A name from :data:`mpitaskmap.metrics.METRICS` (default None: the machine's
        default objective, :func:`~mpitaskmap.search.scoring.resolve_metric`).
    refine : int, optional
        Candidates of the first stage refined in a second (default 0: one stage).
    judge : {None, "fluid", "default"}, optional
        Replay the objective's best distinct mappings and the default order, and keep the
        fastest, the default order unless one replays faster (see :func:`remap`; default
        None: the objective alone), with one more ``allgather``.
    judge_options : dict, optional
        Keywords of the fluid replay (:data:`~mpitaskmap.search.judge.FLUID_OPTIONS`).

    Returns
    -------
    SearchResult
        The same on every rank; ``error`` names the first failing rank and candidate if a
        mapper raised anywhere (no rank raises inside this function).

    Notes
    -----
    Per-rank work is about ``len(candidates) / comm.size`` candidate evaluations.
    """
    problem = Problem(graph, machine)
    name, why, added = resolve_judge(problem, judge, metric is not None)
    return _search(comm, problem, list(candidates), resolve_metric(metric, machine), "", refine, name,
                   {**added, **(judge_options or {})}, why)


def _score_share(comm, problem: Problem, cands: list, first: int, metric: str, err: str, digests: bool = False):
    """Score this rank's share of ``cands[first:]`` (never raises) and gather every rank's.

    With ``digests`` each rank also sends the :func:`~mpitaskmap.search.judge.mapping_digest` of
    every mapping it computed (what the judge's shortlist needs to tell mappings apart).
    """
    rank, size = comm.Get_rank(), comm.Get_size()
    t0 = MPI.Wtime()
    mine, best_local, c_map, seen = [], None, 0.0, []

    def keep(index, mapping, score, seconds):
        if mapping is not None:
            seen.append((index, mapping_digest(mapping.task_to_proc)))

    if not err:
        try:
            found = score_candidates(problem, cands, range(first + rank, len(cands), size), metric, catch=True,
                                     keep=keep if digests else None)
            err, mine, best_local, c_map = found.error, found.scores, found.best, found.cpu_seconds
        except Exception as exc:  # e.g. an unknown metric: still agreed below, never raised here
            err = f"{type(exc).__name__}: {exc}"
        if err:
            logger.debug("%s\n%s", err, traceback.format_exc())
    results = comm.allgather((err, mine, MPI.Wtime() - t0, c_map, seen))
    return results, best_local


def _owner(index: int, n_first: int, size: int) -> int:
    """The rank that computed candidate ``index``: ``i % size`` in either stage."""
    return (index if index < n_first else index - n_first) % size


def _search(comm, problem: Problem, cands: list, metric: str, list_err: str, refine: int = 0,
            judge: str | None = None, judge_options: dict | None = None, judge_why: str = "") -> SearchResult:
    rank, size = comm.Get_rank(), comm.Get_size()
    results, best_local = _score_share(comm, problem, cands, 0, metric, list_err, digests=judge is not None)
    res = SearchResult(
        candidates_per_rank=[len(r[1]) for r in results],
        seconds={"map_max": max(r[2] for r in results), "map_cpu": [r[3] for r in results]},
        candidates=list(cands),
        judge_why=judge_why,
    )
    res.error = _first_error([r[0] for r in results], "mapper") or ""
    if res.error:
        return res
    every = [pair for r in results for pair in r[1]]
    digests = dict(pair for r in results for pair in r[4])
    # second stage: the top candidates refined, spread over the ranks like the first
    second = refinement_candidates([cands[i] for i in top_indices(every, refine)], metric,
                                   node_swaps=polishes_nodes(problem)) if refine else []
    if second:
        res.candidates = list(cands) + second
        results2, best2 = _score_share(comm, problem, res.candidates, len(cands), metric, "",
                                       digests=judge is not None)
        res.error = _first_error([r[0] for r in results2], "mapper") or ""
        if res.error:
            return res
        every += [pair for r in results2 for pair in r[1]]
        digests.update(pair for r in results2 for pair in r[4])
        res.candidates_per_rank = [a + len(r[1]) for a, r in zip(res.candidates_per_rank, results2)]
        res.seconds["map_max"] += max(r[2] for r in results2)
        res.seconds["map_cpu"] = [a + r[3] for a, r in zip(res.seconds["map_cpu"], results2)]
        if best2 is not None and (best_local is None or best2[:2] < best_local[:2]):
            best_local = best2
    res.n_refined = len(second)
    res.score, res.index = winner(every)
    res.objective_index = res.index
    res.scores = [s for _, s in sorted(every)]
    # the rank that computed the winner holds it: its best is the winner (lowest globally)
    mapping_of = {res.index: best_local[2]} if best_local is not None and best_local[1] == res.index else {}
    if judge is not None:
        t0 = MPI.Wtime()
        _judge_stage(comm, problem, res, digests, judge_options or {}, mapping_of)
        res.seconds["judge"] = MPI.Wtime() - t0
    owner = _owner(res.index, len(cands), size)
    t0 = MPI.Wtime()
    task_to_proc = np.empty(problem.graph.n_tasks, dtype=np.int64)
    if rank == owner:
        task_to_proc[:] = mapping_of[res.index].task_to_proc
    comm.Bcast(task_to_proc, root=owner)
    res.seconds["bcast"] = MPI.Wtime() - t0
    res.task_to_proc = task_to_proc
    return res


def _judge_stage(comm, problem: Problem, res: SearchResult, digests: dict, options: dict, mapping_of: dict) -> None:
    """The judge stage (:func:`~mpitaskmap.search.judge.judge_stage`) with its replays spread over the ranks.

    Each shortlisted mapping is replayed by the rank that computed it (the default order,
    candidate 0, by rank 0, which then holds it should it be kept); one allgather shares
    the times and any failure.  Never raises: a failed or over-budget replay anywhere
    leaves the objective's pick, on every rank alike.  Updates ``res`` (``index``,
    ``score``, ``judge``, ``judge_why``, ``judged``, ``default_simulated_s``) and
    ``mapping_of`` (the mappings this rank recomputed).
    """
    rank, size = comm.Get_rank(), comm.Get_size()
    n_first = len(res.candidates) - res.n_refined

    def compute(i: int):
        if i not in mapping_of:
            mapping_of[i] = apply(res.candidates[i], problem)
        return mapping_of[i]

    def replay(shortlist: list) -> tuple[dict, str]:  # the one difference from map(): the MPI exchange
        err, mine = "", {}
        try:
            seconds_of = replay_function(problem, "fluid", options)
            mine = replay_in_turn([i for i in shortlist if _owner(i, n_first, size) == rank], compute, seconds_of)
        except Exception as exc:  # travels to every rank below
            err = f"{type(exc).__name__}: {exc}"
            logger.debug("judge: %s\n%s", err, traceback.format_exc())
        gathered = comm.allgather((err, mine))
        return {i: t for g in gathered for i, t in g[1].items()}, _first_error([g[0] for g in gathered], "judge") or ""

    outcome = judge_stage("fluid", res.candidates, res.scores, digests, replay, top=JUDGE_TOP,
                          max_work=options.get("max_work"))
    res.judged = outcome.judged
    res.default_simulated_s = outcome.default_simulated_s
    if outcome.index is None:
        res.judge_why = outcome.why
        return
    res.index = outcome.index
    res.score = res.scores[res.index]
    res.judge = "fluid"
