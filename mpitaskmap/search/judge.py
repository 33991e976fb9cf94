"""The search's judge: replay the best candidates' exchange and keep the fastest.

The search ranks candidates by a cheap objective (predicted time, one pass over the
routes); where the objective's best few are close, what decides the application's time is
how the messages share the links as they go -- which a flow-level replay of the exchange
sees and no per-link sum does (RTT-weighted sharing starves long routes along chains of
busy links; ``benchmarks/smpi_sensitivity.py``).  The judge replays the ``top`` best
distinct mappings of the objective that are no worse than the default order
(:func:`judge_shortlist`; on request also the best by each of :data:`JUDGE_ALSO`) and
keeps the fastest:

* ``"fluid"`` (:func:`mpitaskmap.sim.fluid.fluid_exchange`, SimGrid's SMPI network model in a
  Cython kernel, no SimGrid needed): the default judge of ``map(method="auto")``, the
  command line and ``remap()`` when the objective is the default one and the task graph
  has at most :data:`FLUID_JUDGE_MAX_EDGES` edges (:func:`default_judge`), each replay
  within :data:`FLUID_JUDGE_MAX_WORK`;
* ``"simulate"`` (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`, SimGrid itself): offline,
  on request.

:func:`judge_order` is the one ranking rule of both: fastest first, times within a
relative :data:`JUDGE_TIE` equal, ties to the better objective, then the lower index.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from ..errors import InvalidInputError
from ..sim.fluid import fluid_exchange
from ..machines import TorusMachine
from ..mapping import Mapping
from ..metrics import DEFAULT_HOP_LATENCY
from .problem import Problem

__all__ = ["JUDGES", "DEFAULT_JUDGE", "JUDGE_TOP", "JUDGE_ALSO", "JUDGE_TIE", "JUDGE_CONFIG", "FLUID_JUDGE_MAX_EDGES",
           "FLUID_JUDGE_MAX_WORK", "FLUID_OPTIONS", "default_judge", "resolve_judge", "mapping_digest",
           "judge_shortlist", "judge_order", "check_fluid_options", "fluid_seconds"]

#: What ``judge=`` accepts besides None (no judge) and :data:`DEFAULT_JUDGE`.
JUDGES = ("fluid", "simulate")
#: ``judge=DEFAULT_JUDGE``: ``"fluid"`` where :func:`default_judge` says it applies, else none.
DEFAULT_JUDGE = "default"
#: Distinct mappings of the objective's ranking the judge replays.
JUDGE_TOP = 4
#: Metrics whose best candidate the judge replays beside the objective's ``top``: a second
#: model of time, Latency(M) (the most loaded link's bytes over its bandwidth, with no hop
#: latency), so that where the objective's hop-latency term misranks (on the 512-rank halo3d
#: cases of ``benchmarks/app_time_smpi.py`` the fastest candidate was once the one of least
#: Latency(M), outside the objective's top 8) the fastest is still among the replayed.
JUDGE_ALSO = ("latency",)
#: Replayed times within this relative distance of the fastest count as equal: the precision
#: of the replay itself.  SimGrid's own solver works to a relative 1e-5 (``maxmin/precision``),
#: and on the tests' random exchanges its CM02 times and the exact ones of
#: :func:`~mpitaskmap.sim.fluid.fluid_exchange` differ by up to 9.5e-5 of the step; a difference
#: below that says nothing about the application, the objective's ranking does.
JUDGE_TIE = 1e-4
#: Largest task graph (directed edges: an upper bound on one step's messages) the default
#: judge replays; above it the objective alone decides (building the routes of millions of
#: messages would cost more memory than the search itself).
FLUID_JUDGE_MAX_EDGES = 100_000
#: The default judge's budget for one replay, in :attr:`~mpitaskmap.sim.fluid.FluidExchange.work`
#: units (route entries of the messages whose rates an event recomputes).  Measured here
#: (``benchmarks/fluid_speed.py``, 2 shared cores, the 7-point halo on the simulated Titan):
#: 1e7 to 1e8 units a second, so at most one to two seconds a replay.  At 4,096 ranks, 8 or
#: 16 per node (9,000 to 16,000 messages between nodes), a replay needs 3e6 to 1.3e7 units
#: (0.03 to 0.3 s); at 1 per node (23,000 messages, about 3,000 events) 1.6e7 to 1.1e8; at
#: 16,384 ranks, 16 per node, 1.2e8 to 2.7e8 (3 to 5 s).  Past the budget the replay stops
#: and the objective decides.
FLUID_JUDGE_MAX_WORK = 20_000_000
#: SimGrid settings of the ``"simulate"`` judge: SMPI's network model (its bandwidth and latency
#: factors, calibrated against real MPI runs), the model an unmodified MPI application runs
#: under in SimGrid -- the model the fluid judge computes in-process.  On halo3d pairs of
#: ``benchmarks/app_time_smpi.py`` where the objective and the application disagree it sided
#: with the application on two of the three checked, the plain fluid model
#: (:data:`mpitaskmap.sim.simgrid_replay.REPLAY_CONFIG`, the metrics study's) on none.
JUDGE_CONFIG = ("network/model:SMPI",)
#: Keywords of :func:`~mpitaskmap.sim.fluid.fluid_exchange` the fluid judge accepts.
FLUID_OPTIONS = ("link_latency", "bytes_per_weight", "node_link", "bandwidth_unit", "loopback", "model",
                 "max_work")


def default_judge(problem: Problem) -> tuple[str | None, str]:
    """The judge ``judge=DEFAULT_JUDGE`` means for this input, and why.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    (judge, why) : (str or None, str)
        ``("fluid", ...)`` on a torus machine with a link model whose task graph has at most
        :data:`FLUID_JUDGE_MAX_EDGES` edges; ``(None, reason)`` otherwise.
    """
    machine, graph = problem.machine, problem.graph
    if not isinstance(machine, TorusMachine) or not machine.has_link_model:
        return None, f"no fluid replay on a {type(machine).__name__} (no routed links)"
    n_edges = int(graph.indices.size)
    if n_edges > FLUID_JUDGE_MAX_EDGES:
        return None, (f"the task graph has {n_edges:,} edges, more than the fluid judge's "
                      f"{FLUID_JUDGE_MAX_EDGES:,} (its cost grows with the messages squared)")
    return "fluid", f"{n_edges:,} edges <= {FLUID_JUDGE_MAX_EDGES:,}"


def resolve_judge(problem: Problem, judge, metric_given: bool) -> tuple[str | None, str, dict]:
    """Validate ``judge=`` and resolve :data:`DEFAULT_JUDGE`.

    Parameters
    ----------
    problem : Problem
    judge : str or None
        None, :data:`DEFAULT_JUDGE` or a name of :data:`JUDGES`.
    metric_given : bool
        Whether the caller chose the objective: the default judge then stays out (the
        given metric decides).

    Returns
    -------
    (judge, why, options) : (str or None, str, dict)
        The judge to run (None: the objective decides), why, for the report, and the
        judge options the resolution adds (the default judge's ``max_work`` budget).
    """
    if judge is None:
        return None, "no judge requested", {}
    if judge == DEFAULT_JUDGE:
        if metric_given:
            return None, "a metric was given: it decides", {}
        name, why = default_judge(problem)
        return name, why, ({"max_work": FLUID_JUDGE_MAX_WORK} if name else {})
    if judge not in JUDGES:
        raise InvalidInputError(f"judge: unknown {judge!r}; valid: {[DEFAULT_JUDGE, *JUDGES, None]}")
    return judge, "requested", {}


def mapping_digest(task_to_proc) -> bytes:
    """A short digest of a rank order: two candidates with one digest are the same mapping."""
    return hashlib.blake2b(np.ascontiguousarray(task_to_proc, dtype=np.int64).tobytes(), digest_size=16).digest()


def judge_shortlist(scores: Sequence[tuple[int, float]], digests: dict, top: int) -> list[int]:
    """The candidates the judge replays: the ``top`` best distinct mappings by the objective.

    Only candidates the objective scores no worse than candidate 0 (the identity, the
    default order, first in every search list) are eligible, so the judge's pick keeps the
    search's guarantee: never worse than the default by the objective.

    Parameters
    ----------
    scores : sequence of (index, score)
        Every candidate's objective score (infinity: did not apply); index 0 is the
        identity.
    digests : dict
        :func:`mapping_digest` of every candidate that applied, by index.
    top : int
        How many distinct mappings.

    Returns
    -------
    list of int
        Candidate indices in objective order (score, then index), the first of each
        distinct mapping, at most ``top``.

    Examples
    --------
    >>> judge_shortlist([(0, 3.0), (1, 1.0), (2, 1.0), (3, 2.0), (4, 5.0)],
    ...                 {0: b"a", 1: b"b", 2: b"b", 3: b"c", 4: b"d"}, 4)
    [1, 3, 0]
    """
    ceiling = dict(scores).get(0, float("inf"))
    out, seen = [], set()
    for score, i in sorted((s, i) for i, s in scores if s != float("inf") and s <= ceiling):
        if len(out) == top:
            break
        if digests[i] not in seen:
            seen.add(digests[i])
            out.append(i)
    return out


def judge_order(times: Sequence[float], scores: Sequence[float], indices: Sequence[int]) -> list[int]:
    """Positions of the judged mappings, fastest first (the judge's one ranking rule).

    Times within a relative :data:`JUDGE_TIE` of the fastest are equal to it; equal times
    go to the better objective score, then to the lower candidate index.

    Parameters
    ----------
    times, scores, indices : sequences of equal length
        Replayed seconds, objective scores and candidate indices of the judged mappings.

    Returns
    -------
    list of int
        Positions into the sequences; ``[0]`` is the judge's pick.

    Examples
    --------
    >>> judge_order([2.0, 1.00001, 1.0], [1.0, 2.0, 3.0], [0, 1, 2])
    [1, 2, 0]
    """
    if not (len(times) == len(scores) == len(indices)):
        raise InvalidInputError("judge_order: times, scores and indices differ in length")
    if not times:
        return []
    fastest = min(times)

    def key(k: int):
        t = times[k]
        return (fastest if t <= fastest * (1.0 + JUDGE_TIE) else t, scores[k], indices[k])

    return sorted(range(len(times)), key=key)


def check_fluid_options(options: dict | None) -> dict:
    """A copy of the fluid judge's ``judge_options``; an error names any unknown keyword."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise InvalidInputError(f"judge_options: expected a dict; got {type(options).__name__}")
    unknown = sorted(set(options) - set(FLUID_OPTIONS))
    if unknown:
        raise InvalidInputError(f"judge_options: the fluid judge takes {list(FLUID_OPTIONS)}; got {unknown}")
    return dict(options)


def fluid_seconds(problem: Problem, mapping: Mapping, options: dict | None = None) -> float:
    """One exchange step of ``mapping`` replayed by :func:`~mpitaskmap.sim.fluid.fluid_exchange`.

    Parameters
    ----------
    problem : Problem
    mapping : Mapping
    options : dict, optional
        Keywords of :data:`FLUID_OPTIONS` (default ``link_latency`` =
        :data:`~mpitaskmap.metrics.DEFAULT_HOP_LATENCY`, ``bytes_per_weight`` = 1: weights
        are bytes, as for the default objective; the SMPI model).

    Returns
    -------
    float
        Seconds (0 when no message crosses the network; inf when the replay passed its
        ``max_work``).
    """
    options = check_fluid_options(options)
    options.setdefault("link_latency", DEFAULT_HOP_LATENCY)
    return fluid_exchange(problem.graph, problem.machine, mapping.task_to_proc, **options).seconds
