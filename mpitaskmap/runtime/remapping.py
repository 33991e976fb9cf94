"""The in-job entry point: ``comm = mpitaskmap.remap(comm, coords)``.

Collective.  Every rank says which task it runs (its task coordinate, optionally its
communication partners); a coordinate provider says where every rank sits in the
network; the ranks evaluate the deterministic candidate list in parallel (rank ``r``
takes candidates ``r, r + size, ...``: the search engine of ``map(method="auto")`` on the
MPI executor of :mod:`~.mpi_search`), agree on the best by the chosen metric, and get
back a communicator in which new rank ``t`` is the process that runs task ``t``; the
:class:`~.report.RemapReport` says what was done.

Collectives (a constant number, whatever the candidate count): one ``Allreduce`` that
compares the ranks' job-level settings (:mod:`~.job_settings`), one ``allgather`` of every
rank's task, location and local errors, one ``allgather`` of every rank's candidate scores
and errors, one more for the second stage (the best candidates refined; not with
``refine=0``), one for the judge (the
replayed times of the objective's best few and of the default order,
:mod:`mpitaskmap.search.judge`; not with
``judge=None`` or where the default judge does not apply), one ``Bcast`` of the winning
mapping from the rank that computed it, one ``Split``.  When a rank's provider or network
differs from rank 0's, two ``bcast`` of one line each name both in the agreed error.  With
``graph=PATH`` two more before the gather: rank 0 reads the file and ``bcast`` s whether it
could, then ``scatter`` s every rank its row (:func:`graph_task`).

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
import os
import sys
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from mpi4py import MPI

from ..errors import MappingError, ProviderError
from ..graphs.recording import read_graph_file
from ..graphs.taskgraph import TaskGraph
from ..mappers.geometric.mj import ORDERINGS
from ..mapping import IDENTITY
from ..metrics import METRICS, describe_sizes
from ..providers import Provider, assemble_machine_arrays, get_provider
from ..search.engine import SearchRequest
from ..search.families import identity as identity_family
from ..search.judge import DEFAULT_JUDGE, resolve_judge
from ..search.problem import Candidate, Problem
from ..search.registry import as_candidate
from ..search.scoring import DEFAULT_FAMILIES, REFINE_TOP, candidate_list, resolve_metric
from .gather import (LocalRank, NodeShare, describe_network, gather_job, input_error, network_digest,
                     network_mismatch)
from .job_settings import agree_settings
from .mpi_search import run_search
from .rank_task import rank_task
from .report import RemapReport

__all__ = ["remap", "remap_task", "graph_task", "RemapRequest", "METRIC_NAMES", "shared_job_data"]

logger = logging.getLogger("mpitaskmap")

#: Metrics remap() can optimise: every name of :data:`mpitaskmap.metrics.METRICS` ("latency" is
#: Latency(M), the bandwidth-aware max link load; "predicted_time" the predicted seconds of one
#: exchange, the default on machines with links; link metrics need a machine with a link model).
METRIC_NAMES = tuple(METRICS)

#: How the agreed error begins when ``task()`` failed on some rank (the first failing rank's,
#: :func:`~mpitaskmap.runtime.gather.gather_job`), e.g. "task: rank 1: ValueError: coords: ...".
TASK_ERROR = "task: rank "


@dataclass(frozen=True)
class RemapRequest:
    """What a front door asked :func:`remap_task` for, checked: the task, where to look, what to search.

    Attributes
    ----------
    task : callable
        ``task()`` -> this rank's ``(coords, neighbors, weights)`` (see :func:`remap_task`).
    provider : str, Provider or None
        The provider (None: ``MPITASKMAP_PROVIDER``, else ``"auto"``).
    metric : str or None
        The objective (None: the machine's default).
    options : dict
        Options of the candidate list: ``orderings``, ``rotate``, ``variants``, ``families``.
    candidates : sequence of Candidate or None
        An explicit candidate list (None: :func:`~mpitaskmap.search.scoring.candidate_list`).
    refine : int
        Candidates of the first stage refined in a second.
    judge : str or None
        ``"default"``, ``"fluid"`` or None.
    shared_memory : bool
        Gather to node leaders into shared windows.
    on_error : str
        ``"raise"`` or ``"identity"``.
    call : str
        The call's name in the report and the log.
    split : bool
        Return the reordered communicator (False: the order only).
    fallback_on_task_error : bool
        With ``on_error="identity"``, also fall back when ``task()`` failed.
    """

    task: Callable[[], tuple]
    provider: str | Provider | None
    metric: str | None
    options: dict
    candidates: Sequence[Candidate] | None
    refine: int
    judge: str | None
    shared_memory: bool
    on_error: str
    call: str
    split: bool
    fallback_on_task_error: bool


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


def remap(
    comm: MPI.Intracomm,
    coords=None,
    *,
    graph: str | os.PathLike | TaskGraph | None = None,
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
        the same number of dimensions.  Optional with ``graph``.
    graph : str, os.PathLike or TaskGraph, optional
        The whole task graph instead of this rank's ``neighbors``: task ``t`` is old rank
        ``t``, its out-edges its partners.  A path is any file
        :meth:`TaskGraph.from_file <mpitaskmap.graphs.taskgraph.TaskGraph.from_file>` reads (a
        recording of ``mpitaskmap record``: one round of the run; Open MPI's monitoring
        files; a matrix): rank 0 reads it (one reader, not every rank opening one file on a
        parallel file system) and sends every rank its row (one ``bcast`` of the outcome,
        one ``scatter``); a file rank 0 cannot read, or a graph whose task count differs
        from the communicator's size, is the same :class:`MappingError` on every rank
        (``"task: rank 0: ..."``; with ``on_error="identity"`` the unchanged order).  A
        TaskGraph is taken from each rank's own argument (give every rank the same).  The
        task coordinates: ``coords`` if given, else a ``Cartcomm``'s, else the graph's
        own, else none (the mapper families that need none: a recording has none).
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
        ``metric`` is None, on a machine with a link model, with at most
        :data:`~mpitaskmap.search.judge.FLUID_JUDGE_MAX_EDGES` task-graph edges, exactly up to
        :data:`~mpitaskmap.search.judge.JUDGE_EXACT_MAX_EDGES` edges and above at
        :data:`~mpitaskmap.search.judge.FLUID_JUDGE_RESOLUTION` (a replay's rates recomputed
        at most once every 1% of a step's lower bound; times within it tie), each replay
        within a work budget (:func:`~mpitaskmap.search.judge.resolve_judge`); ``"fluid"``:
        whenever possible, exact, no budget; None: the objective alone.  The report says
        which ran and why.
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
        Also return a :class:`~mpitaskmap.runtime.report.RemapReport`.

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
        For invalid local options (unknown metric or on_error value, ``graph`` with
        ``neighbors`` or ``weights``), before any communication: every rank gets the same
        options in a correct program.

    Notes
    -----
    Candidate 0 is always the identity, so the result is never worse than the default
    by the chosen metric.  Ties go to the lowest candidate index; every rank computes
    from identical gathered data, so the result is deterministic.
    """
    task: Callable[[], tuple]
    if graph is None:
        task = functools.partial(rank_task, comm, coords, neighbors, weights)
    elif neighbors is not None or weights is not None:
        raise ValueError("graph: give the whole task graph or this rank's neighbors and weights, not both")
    elif not isinstance(graph, (str, os.PathLike, TaskGraph)):
        raise TypeError(f"graph: expected a path or a TaskGraph; got {type(graph).__name__}")
    else:
        task = functools.partial(graph_task, comm, graph, coords)
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
    >>> from mpitaskmap.runtime.rank_task import rank_task
    >>> task = functools.partial(rank_task, MPI.COMM_SELF, (0.0, 0.0), None, None)
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
    rank = comm.Get_rank()
    config = agree_settings(comm, provider)  # one Allreduce; settings that differ between ranks: config["error"]
    handler = _configure_logging(config["log"], rank)
    try:
        request = RemapRequest(
            task=task, provider=provider, metric=metric,
            options=dict(orderings=orderings, rotate=rotate, variants=variants, families=families),
            candidates=candidates, refine=int(refine), judge=judge,
            shared_memory=bool(MPI.Get_version() >= (3, 0) if shared_memory is None else shared_memory),
            on_error=on_error, call=call, split=bool(split), fallback_on_task_error=bool(fallback_on_task_error))
        return _remap(comm, config, t_start, request)
    finally:
        if handler is not None:
            logger.removeHandler(handler)


def _finish(comm, rep: RemapReport, request: RemapRequest, new=None, share=None, on_error: str | None = None):
    """The call's end on every rank alike: the agreed error raised, or the communicator (or order) returned."""
    if rep.error and (on_error or request.on_error) == "raise":
        raise MappingError(rep.error)
    if not rep.new_rank_of:  # disabled or failed: the unchanged order
        rep.new_rank_of = list(range(comm.Get_size()))
        if rep.error:
            rep.status = "identity"
            if comm.Get_rank() == 0:
                logger.warning("%s returns the unchanged order: %s", rep.call, rep.error)
        if request.split:
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


def _remap(comm, config: dict, t_start: float, request: RemapRequest):
    rep = RemapReport(metric=request.metric, call=request.call)
    if config["disable"]:
        rep.status = "disabled"
        if comm.Get_rank() == 0:
            logger.info("MPITASKMAP_DISABLE is set: %s keeps the unchanged order", request.call)
        return _finish(comm, rep, request)
    share = NodeShare(comm) if request.shared_memory else None
    try:
        return _remap_shared(comm, config, t_start, request, share, rep)
    except BaseException:
        if share is not None:  # raised only as the agreed MappingError, on every rank alike
            share.free()
        raise


def _remap_shared(comm, config: dict, t_start: float, request: RemapRequest, share, rep: RemapReport):
    rank, size = comm.Get_rank(), comm.Get_size()

    # -- local phase: never raises --------------------------------------------------
    local = LocalRank()
    try:
        local.coords, local.neighbors, local.weights = request.task()
        if local.neighbors is not None and local.weights is None:  # no message sizes: 1.0 each, said in the header
            local.weights, local.sized = np.ones(local.neighbors.size), False
    except Exception as exc:  # travels to every rank in the gather
        local.task_error = f"{type(exc).__name__}: {exc}"
    prov_name, network = "", None
    try:
        if config["error"]:  # settings differ between ranks: no provider is asked; the error is agreed below
            raise ProviderError(config["error"])
        provider = request.provider
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
        raise_anyway = not request.fallback_on_task_error and err.startswith(TASK_ERROR)
        return _finish(comm, rep, request, share=share, on_error="raise" if raise_anyway else request.on_error)
    rep.machine = machine.name

    # -- candidate search (two collectives, one more for the judge) ----------------------
    problem = Problem(graph, machine)
    search_request, list_err = _search_request(problem, request)
    try:  # report lines: never a reason to stop, and the same graph on every rank gives the same text
        rep.task_coords = problem.describe_task_coords()
    except Exception as exc:
        rep.task_coords = f"task coordinates not determined ({type(exc).__name__}: {exc})"
    if not graph.sized and search_request.metric == "predicted_time":  # hop metrics read no sizes
        rep.message_sizes = describe_sizes(graph, problem.message_model)
    rep.metric = search_request.metric  # the same machine on every rank: the same name
    search = run_search(comm, search_request, error=list_err)
    if search.error:
        rep.error = search.error
        return _finish(comm, rep, request, share=share)
    rep.n_candidates = len(search.candidates)
    rep.n_refused = len(search.refused)
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

    # process p runs task t where task_to_proc[t] = p: its new rank is t
    new_rank_of = np.empty(size, dtype=np.int64)
    new_rank_of[search.task_to_proc] = np.arange(size)
    t0 = MPI.Wtime()
    new = comm.Split(0, int(new_rank_of[rank])) if request.split else None
    t_split = MPI.Wtime() - t0
    rep.new_rank_of = new_rank_of.tolist()
    rep.status = IDENTITY if search.index == 0 else "remapped"
    rep.seconds = {
        "gather": t_gather,
        "map_max": search.seconds["map_max"],
        **({"judge": search.seconds["judge"]} if "judge" in search.seconds else {}),
        "bcast": search.seconds["bcast"],
        **({"split": t_split} if request.split else {}),
        "total": MPI.Wtime() - t_start,
    }
    if rank == 0:
        logger.info("%s", rep.summary())
    return _finish(comm, rep, request, new, share=share)


def _search_request(problem: Problem, request: RemapRequest) -> tuple[SearchRequest, str]:
    """The search remap runs (the identity first) and the candidate list's error, the same on every rank."""
    identity = identity_family.CANDIDATE
    try:
        base = ([as_candidate(c) for c in request.candidates] if request.candidates is not None
                else candidate_list(problem, **request.options))
        cands, list_err = [identity] + [c for c in base if c.family != IDENTITY], ""
    except Exception as exc:  # deterministic, so every rank fails alike; still agreed in the search's first gather
        cands, list_err = [identity], f"candidate list: {type(exc).__name__}: {exc}"
    judge, why, judge_options = resolve_judge(problem, request.judge, request.metric is not None)
    search = SearchRequest(problem, tuple(cands), resolve_metric(request.metric, problem.machine),
                           refine=request.refine, judge=judge, judge_why=why, judge_options=judge_options)
    return search, list_err


def _network_mismatch(comm, odd: int, mine: str) -> str:
    """The agreed error naming the providers and networks of rank 0 and of rank ``odd``.

    Collective (two broadcasts of one line each), called by every rank alike when the
    gathered headers show that rank ``odd`` disagrees with rank 0.
    """
    rank = comm.Get_rank()
    first = comm.bcast(mine if rank == 0 else None, root=0)
    other = comm.bcast(mine if rank == odd else None, root=odd)
    return network_mismatch(odd, other, first)


def graph_task(comm: MPI.Intracomm, graph: str | os.PathLike | TaskGraph,
               coords=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This rank's task from the whole task graph: what ``remap(comm, graph=...)`` states (a ``task()``).

    Collective over ``comm`` when ``graph`` is a path: rank 0 reads it
    (:func:`~mpitaskmap.graphs.recording.read_graph_file`), one ``bcast`` tells every rank
    whether it could and the task count, one ``scatter`` gives each rank its row.  Raises only
    after its last collective, the same error on every rank, so remap agrees on it.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The communicator being reordered: task ``t`` is its rank ``t``.
    graph : str, os.PathLike or TaskGraph
        The task graph, or a file of one.
    coords : sequence of float, optional
        This rank's task coordinate (default: a ``Cartcomm``'s, else the graph's, else none).

    Returns
    -------
    (coords, neighbors, weights)
        As :func:`~mpitaskmap.runtime.rank_task.rank_task` returns them; a coordinate of no
        dimension when there is none; weights None when the graph has no message sizes.

    Raises
    ------
    ValueError
        The file's error as rank 0 met it (``InvalidInputError``, ``OSError`` worded), or
        a task count other than the communicator's size.
    """
    rank, size = comm.Get_rank(), comm.Get_size()
    if isinstance(graph, TaskGraph):
        if graph.n_tasks != size:
            raise ValueError(f"graph: {graph.n_tasks} tasks but the communicator has {size} ranks")
        a, b = int(graph.indptr[rank]), int(graph.indptr[rank + 1])
        own = None if graph.coords is None else graph.coords[rank]
        return _rank_row(comm, coords if coords is not None else own, graph.indices[a:b],
                         graph.weights[a:b] if graph.sized else None)
    where = os.fspath(graph)
    g, err = None, ""
    if rank == 0:
        try:
            g = read_graph_file(where)[0]
        except Exception as exc:  # travels to every rank in the bcast below
            err = f"{type(exc).__name__}: {exc}"
    err, n_tasks, sized = comm.bcast((err, g.n_tasks if g is not None else 0, g is None or g.sized) if rank == 0
                                     else None, root=0)
    if err:  # known on every rank from the bcast: no more collectives
        raise ValueError(f"graph: {err}")
    if n_tasks != size:
        raise ValueError(f"graph {where}: {n_tasks} tasks but the communicator has {size} ranks")
    rows = None
    if g is not None:  # rank 0
        c = g.coords
        rows = [(g.indices[g.indptr[t]:g.indptr[t + 1]], g.weights[g.indptr[t]:g.indptr[t + 1]],
                 None if c is None else c[t]) for t in range(size)]
    nbrs, wts, own = comm.scatter(rows, root=0)
    return _rank_row(comm, coords if coords is not None else own, nbrs, wts if sized else None)


def _rank_row(comm, coords, nbrs: np.ndarray,
              wts: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A rank's task from its row of the graph: the coordinates checked by rank_task, or none.

    ``wts`` None: the graph has no message sizes (returned as None, as rank_task does).
    """
    if coords is None and not isinstance(comm, MPI.Cartcomm):
        return np.zeros(0), np.asarray(nbrs, dtype=np.int64), None if wts is None else np.asarray(wts, dtype=np.float64)
    c, n, w = rank_task(comm, coords, np.asarray(nbrs).tolist(), None if wts is None else np.asarray(wts).tolist())
    assert n is not None
    return c, n, w


def _inputs(job, network, name: str):
    """The task graph and the machine from the gathered arrays (raises on bad data)."""
    if job.counts is not None:  # coordinates of no dimension: remap(graph=...) of a graph without any
        coords = job.coords if job.coords is not None and job.coords.shape[1] else None
        graph = TaskGraph.from_neighbor_arrays(job.counts, job.neighbors, job.weights, coords=coords)
        graph.sized = job.sized
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
