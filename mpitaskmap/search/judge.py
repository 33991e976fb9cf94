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
  has at most :data:`FLUID_JUDGE_MAX_EDGES` edges (:func:`default_judge`): exact up to
  :data:`JUDGE_EXACT_MAX_EDGES` edges, above at :data:`FLUID_JUDGE_RESOLUTION` (the rates
  recomputed at most once a quantum, so a replay's cost grows with messages x route length
  and not with the events of drifting ranks; times within the resolution tie,
  :func:`judge_tie`), each replay within a work budget (:func:`resolve_judge`);
* ``"simulate"`` (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`, SimGrid itself): offline,
  on request.

:func:`judge_stage` is the one judge stage of every search -- ``map(method="auto")`` replays
in turn, ``remap()`` on the ranks that computed the candidates; only how the replays are
run differs -- and :func:`judge_order` its ranking rule: fastest first, times within a
relative :data:`JUDGE_TIE` equal, ties to the default order, then to the better objective,
then to the lower index.  The default order (candidate 0) is replayed beside the shortlist,
always, and kept unless a shortlisted mapping replays faster than it by more than
:data:`JUDGE_TIE`: what the objective predicts is no gain until the replay shows one.
:func:`judge_change` words the outcome for every report (``remap()``'s summary, the command
line): the replayed change first, the objective's change second.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Callable, Hashable, Mapping as MappingType, Sequence

import numpy as np

from ..errors import InvalidInputError
from ..mappers.graph.node_swaps import NODE_SWAP_STEP
from ..machines.base import sampled_time
from ..sim.fluid import DEFAULT_NETWORK_MODEL, fluid_exchange
from ..mapping import Mapping
from ..metrics import LINK_METRICS, METRICS, change_text
from .problem import Candidate, Problem

__all__ = ["JUDGES", "DEFAULT_JUDGE", "JUDGE_TOP", "JUDGE_TIED_MAX", "SCORE_TIE", "TIED", "DEFAULT_ORDER", "JUDGE_ALSO", "JUDGE_TIE", "JUDGE_CONFIG", "FLUID_JUDGE_MAX_EDGES",
           "JUDGE_STEPS", "JUDGE_STEPS_MAX_EDGES", "JUDGE_EXACT_MAX_EDGES", "FLUID_JUDGE_MAX_WORK_STEPS", "judge_steps",
           "FLUID_JUDGE_RESOLUTION", "FLUID_JUDGE_MAX_WORK_RESOLVED", "judge_resolution", "judge_tie",
           "FLUID_JUDGE_MAX_WORK", "FLUID_OPTIONS", "default_judge", "resolve_judge", "mapping_digest",
           "candidate_kind", "judge_shortlist", "judge_order", "check_fluid_options", "fluid_seconds", "judge_metrics", "replay_function",
           "replay_in_turn", "judge_stage", "JudgeOutcome", "judge_change", "NO_GAIN"]

#: What ``judge=`` accepts besides None (no judge) and :data:`DEFAULT_JUDGE`.
JUDGES = ("fluid", "simulate")
#: ``judge=DEFAULT_JUDGE``: ``"fluid"`` where :func:`default_judge` says it applies, else none.
DEFAULT_JUDGE = "default"
#: Distinct mappings of the objective's ranking the judge replays.
JUDGE_TOP = 4
#: Where the objective ties at the end of the ``top`` (distinct mappings scored the same as the
#: last one in), the shortlist takes the tied ones too, up to this many mappings in all: the
#: objective cannot tell them apart and the replay can.  On a dragonfly whose node links bound
#: the exchange (``sim:aries``, 8 ranks a node, 512 ranks) 44 of auto's 49 candidates tie on the
#: predicted time and the four first in the list replay 1.2% slower than the fastest of them
#: (``benchmarks/app_time_dragonfly.py``).
JUDGE_TIED_MAX = 16
#: Relative distance within which two objective scores tie for :data:`JUDGE_TIED_MAX`.
SCORE_TIE = 1e-12
#: ``chosen_by`` of the shortlisted mappings tied with the last of the objective's ``top``.
TIED = "tie"
#: ``chosen_by`` of the default order (candidate 0) where the judge replays it beside the shortlist
#: (it is not among the shortlisted already): the baseline a pick must replay faster than.
DEFAULT_ORDER = "default order"
#: What the reports say when no replayed mapping is faster than the default order (:func:`judge_change`).
NO_GAIN = "no gain found"
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
#: below that says nothing about the application.  Among equal times the default order is kept
#: (:func:`judge_order`): a mapping replaces it only when it replays faster by more than this
#: (``t * (1 + JUDGE_TIE) < t_default``).  The fluid replay of two mappings whose messages share
#: the links alike can differ in the last bits (the Frontier demo's default order and the
#: objective's pick replay 1.4399978574193795e-06 and ...797e-06 s), which no exact comparison
#: should read as a gain.
JUDGE_TIE = 1e-4
#: Largest task graph (directed edges: an upper bound on one step's messages) the default
#: judge replays; above it the objective alone decides.  The replay's own arrays (every
#: message's route, forward and back) then pass 200 MB, and ``remap()`` at a million ranks
#: would hold them on one rank.  At 65,536 ranks of a 7-point stencil (389,120 edges, 268,288
#: messages between nodes for Slurm's order at 8 a node) a replay at
#: :data:`FLUID_JUDGE_RESOLUTION` takes 1 to 4 s here and adds about 150 MB.
FLUID_JUDGE_MAX_EDGES = 500_000
#: The default judge's budget for one exact replay of one step, in
#: :attr:`~mpitaskmap.sim.fluid.FluidExchange.work` units (route entries of the messages whose
#: rates an event recomputes).  Measured here (``benchmarks/fluid_speed.py``, 2 shared cores,
#: the 7-point halo on the simulated Titan): 1e7 to 1e8 units a second, so at most one to two
#: seconds a replay.  At 4,096 ranks, 8 or 16 per node (9,000 to 16,000 messages between
#: nodes), a replay needs 3e6 to 1.3e7 units (0.03 to 0.3 s); at 1 per node (23,000 messages,
#: about 3,000 events) 1.6e7 to 1.1e8; at 16,384 ranks, 16 per node, 1.2e8 to 2.7e8 (3 to 5 s).
#: Past the budget the replay stops and the objective decides.
FLUID_JUDGE_MAX_WORK = 20_000_000
#: The default judge's budget for one replay at :data:`FLUID_JUDGE_RESOLUTION` (above
#: :data:`JUDGE_EXACT_MAX_EDGES` edges).  Such a replay recomputes the rates at most once a
#: quantum, about 100 times a step (``benchmarks/auto_scaling.py``: 73 to 99 recomputations,
#: 2e7 to 1.3e8 units, for one step at 65,536 ranks on the four simulated networks; 430 to
#: 510 and 1.3e7 to 8e7 for five steps at 8,192), so the budget is a guard, not a cut-off.
FLUID_JUDGE_MAX_WORK_RESOLVED = 500_000_000
#: The default judge's resolution above :data:`JUDGE_EXACT_MAX_EDGES` edges
#: (:func:`~mpitaskmap.sim.fluid.fluid_exchange`'s ``resolution``): the rates are recomputed at
#: most once every 1% of a lower bound of one step's time, so every message starts, and the
#: bandwidth an ended one frees is shared out, at most that late.  Against the exact replay
#: (``benchmarks/fluid_resolution.py``: 7-point stencil without sizes, 8 a node, Slurm's order
#: and a geometric mapping, four simulated networks): 5 steps at 2,048 ranks +0.1% to
#: +1.1% slower (0.5% resolution: +0.1% to +0.4%; 2%: +0.6% to +2.2%) with 407 to 539
#: recomputations instead of 1,771 to 21,083 events (3x to 37x less work); one step at 8,192
#: ranks +1.0% and +1.1% on ``sim:aries``.  Differences within it are no evidence: the judge's
#: tie for such replays (:func:`judge_tie`).
FLUID_JUDGE_RESOLUTION = 0.01
#: SimGrid settings of the ``"simulate"`` judge: SMPI's network model (its bandwidth and latency
#: factors, calibrated against real MPI runs), the model an unmodified MPI application runs
#: under in SimGrid -- the model the fluid judge computes in-process
#: (:data:`mpitaskmap.sim.fluid.DEFAULT_NETWORK_MODEL`, the default of every replay).  On halo3d
#: pairs of ``benchmarks/app_time_smpi.py`` where the objective and the application disagree it
#: sided with the application on two of the three checked, the plain fluid model
#: (``mpitaskmap.sim.fluid.CM02.simgrid_config``, the metrics study's) on none.
JUDGE_CONFIG = DEFAULT_NETWORK_MODEL.simgrid_config
#: Exchange steps the fluid judge replays (:func:`judge_steps`), each rank starting its next
#: step as soon as the messages of its last have arrived, as a halo exchange does.  One step
#: replays every message from a common start; over several, the ranks drift apart and their
#: waits on one another build up, and that is what separates mappings whose one-step times
#: are within a fraction of a percent.  On the 512-rank halo3d cases of
#: ``benchmarks/app_time_fattree.py`` (5 steps under SMPI) the 5-step replay ranked every
#: generated candidate and peer as SMPI did, to 0.7% of its times, where one step missed the
#: fastest candidate by up to 1.1%; the ranking of near-equal mappings shifts with the count
#: of steps, so an application that knows its own passes ``judge_options={"steps": K}``.
JUDGE_STEPS = 5
#: Largest task graph (directed edges) the default judge replays exactly (``resolution`` 0):
#: every start and end of a message an event.  Once the ranks drift apart nearly every
#: message starts and ends at an instant of its own, so an exact replay of several steps
#: costs 10 to 100 times one step: 0.03 to 0.13 s at 512 ranks, 8 or 16 per node (2,700
#: edges), on fat trees; at 1,024 ranks (5,500 edges) 0.2 to 0.5 s on a fat tree, 2 to 3 s on
#: an Aries dragonfly (1.2e8 work units); 2 to 10 s at 2,048 ranks.  Above it the judge
#: replays at :data:`FLUID_JUDGE_RESOLUTION`, and the second stage polishes no node swaps
#: (:func:`~mpitaskmap.search.scoring.polishes_nodes`: their gains are below that resolution).
JUDGE_EXACT_MAX_EDGES = 10_000
#: Largest task graph (directed edges) the judge replays :data:`JUDGE_STEPS` steps of; above
#: it one.  At 8,192 ranks (46,592 edges) five steps at :data:`FLUID_JUDGE_RESOLUTION` take 0.4
#: to 1.5 s a replay here; at 16,384 ranks (94,208 edges) about twice that.
JUDGE_STEPS_MAX_EDGES = 100_000
#: The default judge's budget for one exact replay of :data:`JUDGE_STEPS` steps, in
#: :attr:`~mpitaskmap.sim.fluid.FluidExchange.work` units: about 3 s here, the 1,024-rank
#: replays above within it.
FLUID_JUDGE_MAX_WORK_STEPS = 300_000_000
#: The default judge's bound on one replay's route entries (paths forward, node links included), where the machine
#: counts its routes before routing them (:meth:`~mpitaskmap.machines.Machine.exchange_route_entries`: a dragonfly's
#: Valiant and UGAL detours, thousands of links a pair): past it the replay is not built and the objective decides.
#: About 100 bytes an entry with the paths back and the kernel's indexes, so under a gigabyte.  Under minimal routing
#: a 65,536-rank exchange has about 1.5 million (no machine with short routes counts them: no bound there); under
#: ``routing="ugal"`` 2,048 ranks on ``sim:frontier`` about 4 million, 8,192 ranks 17 million (where five steps
#: also passed :data:`FLUID_JUDGE_MAX_WORK_RESOLVED`), 65,536 ranks a replay peaked at 9.7 GB.
FLUID_JUDGE_MAX_ROUTE_ENTRIES = 8_000_000
#: Keywords of :func:`~mpitaskmap.sim.fluid.fluid_exchange` the fluid judge accepts.
FLUID_OPTIONS = ("link_latency", "bytes_per_weight", "node_link", "bandwidth_unit", "loopback", "model",
                 "max_work", "steps", "resolution", "max_route_entries")


def default_judge(problem: Problem) -> tuple[str | None, str]:
    """The judge ``judge=DEFAULT_JUDGE`` means for this input, and why.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    (judge, why) : (str or None, str)
        ``("fluid", ...)`` on a machine with a link model (routed links:
        :attr:`~mpitaskmap.machines.Machine.has_link_model`) whose task graph has at most
        :data:`FLUID_JUDGE_MAX_EDGES` edges; ``(None, reason)`` otherwise.
    """
    machine, graph = problem.machine, problem.graph
    if not machine.has_link_model:  # what the replay sees is how routes share network links: none here
        return None, f"no routed links on {machine.name!r} (the fluid judge replays the network's routes)"
    n_edges = int(graph.indices.size)
    if n_edges > FLUID_JUDGE_MAX_EDGES:
        return None, (f"the task graph has {n_edges:,} edges, more than the fluid judge's "
                      f"{FLUID_JUDGE_MAX_EDGES:,} (its routes would pass 200 MB)")
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
        judge options the resolution adds: the default judge's ``max_work`` budget and
        ``max_route_entries`` bound (:data:`FLUID_JUDGE_MAX_ROUTE_ENTRIES`), and its
        ``resolution`` (:func:`judge_resolution`) where it does not replay exactly.
    """
    if judge is None:
        return None, "no judge requested", {}
    if judge == DEFAULT_JUDGE:
        if metric_given:
            return None, "a metric was given: it decides", {}
        name, why = default_judge(problem)
        if name is None:
            return None, why, {}
        resolution = judge_resolution(problem)
        bound = {"max_route_entries": FLUID_JUDGE_MAX_ROUTE_ENTRIES}
        if resolution > 0:
            return name, f"{why}, replayed at a resolution of {resolution:g}", {
                "max_work": FLUID_JUDGE_MAX_WORK_RESOLVED, "resolution": resolution, **bound}
        return name, why, {"max_work": FLUID_JUDGE_MAX_WORK_STEPS if judge_steps(problem) > 1 else FLUID_JUDGE_MAX_WORK,
                           **bound}
    if judge not in JUDGES:
        raise InvalidInputError(f"judge: unknown {judge!r}; valid: {[DEFAULT_JUDGE, *JUDGES, None]}")
    return judge, "requested", {}


def mapping_digest(task_to_proc) -> bytes:
    """A short digest of a rank order: two candidates with one digest are the same mapping."""
    return hashlib.blake2b(np.ascontiguousarray(task_to_proc, dtype=np.int64).tobytes(), digest_size=16).digest()


def candidate_kind(candidate: Candidate | None) -> tuple:
    """What a candidate computes, without its variant: family, method, ordering, and its start's kind.

    Rotations and permutations of one method are variants of one kind; a refined candidate
    is of its own method and of its start's kind.  A node-swap polish
    (:data:`~mpitaskmap.mappers.graph.node_swaps.NODE_SWAP_STEP` among its steps) is of its
    start itself: the swaps end where their start leads them, so the polishes of two
    variants differ as much as two methods do (``sim:fattree`` 2:1, 512 ranks x 16, seed 1:
    the polished tree splits T*, T(0,2,1) and T(1,2,0) replay 65.27, 65.15 and 64.94 µs a
    step while the splits themselves tie).

    Examples
    --------
    >>> a = Candidate.make("geometric", "mj", ordering="fz", rotation=(1, 0, 2))
    >>> b = Candidate.make("geometric", "mj", ordering="fz", rotation=(0, 1, 2))
    >>> candidate_kind(a) == candidate_kind(b) != candidate_kind(Candidate.make("refined", "uwh", start=a))
    True
    >>> polish = lambda start: candidate_kind(Candidate.make("refined", "uwh+umc+nodes", start=start))
    >>> polish(a) != polish(b)
    True
    """
    if not isinstance(candidate, Candidate):
        return ()
    start = candidate.option("start")
    if NODE_SWAP_STEP in candidate.method.split("+"):
        return (candidate.family, candidate.method, candidate.option("ordering"), start)
    return (candidate.family, candidate.method, candidate.option("ordering"), candidate_kind(start))


def judge_shortlist(scores: Sequence[tuple[int, float]], digests: dict, top: int,
                    tied_max: int = JUDGE_TIED_MAX, kinds: MappingType[int, Hashable] | None = None) -> list[int]:
    """The candidates the judge replays: the ``top`` best distinct mappings by the objective, and those tied with the last.

    Only candidates the objective scores no worse than candidate 0 (the identity, the
    default order, first in every search list) are eligible, so the judge's pick keeps the
    search's guarantee: never worse than the default by the objective.  Past ``top``, the
    distinct mappings scored the same as the last one in (within a relative
    :data:`SCORE_TIE`) join as well, up to ``tied_max`` mappings in all, taken one of each
    kind in turn (``kinds``: :func:`candidate_kind` by index; the variants of one method
    replay alike, different methods differ) so that every kind tied is replayed before a
    second variant of one (a kind in the top counts as replayed).

    Parameters
    ----------
    scores : sequence of (index, score)
        Every candidate's objective score (infinity: did not apply); index 0 is the
        identity.
    digests : dict
        :func:`mapping_digest` of every candidate that applied, by index.
    top : int
        How many distinct mappings.
    tied_max : int, optional
        Distinct mappings in all when ties extend the shortlist (default
        :data:`JUDGE_TIED_MAX`; no extension when it is at most ``top``).
    kinds : mapping of int to hashable, optional
        Kind of every candidate for the order of the tied ones (default: each its own).

    Returns
    -------
    list of int
        Candidate indices: the ``top`` in objective order (score, then index), the first of
        each distinct mapping; then the tied ones in turn by kind.

    Examples
    --------
    >>> judge_shortlist([(0, 3.0), (1, 1.0), (2, 1.0), (3, 2.0), (4, 5.0)],
    ...                 {0: b"a", 1: b"b", 2: b"b", 3: b"c", 4: b"d"}, 4)
    [1, 3, 0]

    Four mappings tie at the second place of a top 2 (kinds x, x, x, y): the first of them
    is in, then the kind not replayed yet (y), then another x, up to 4 in all.

    >>> judge_shortlist([(0, 9.0), (1, 1.0), (2, 2.0), (3, 2.0), (4, 2.0), (5, 2.0), (6, 3.0)],
    ...                 {i: bytes([i]) for i in range(7)}, 2, tied_max=4,
    ...                 kinds={2: "x", 3: "x", 4: "x", 5: "y"})
    [1, 2, 5, 3]

    Fewer tied than room: every one of them.

    >>> judge_shortlist([(0, 9.0), (1, 2.0), (2, 2.0), (3, 2.0)], {i: bytes([i]) for i in range(4)}, 1)
    [1, 2, 3]
    """
    ceiling = dict(scores).get(0, float("inf"))
    ranked = sorted((s, i) for i, s in scores if s != float("inf") and s <= ceiling)
    out, seen, k, last = [], set(), 0, math.nan
    while k < len(ranked) and len(out) < top:
        score, i = ranked[k]
        k += 1
        if digests[i] not in seen:
            seen.add(digests[i])
            out.append(i)
            last = score
    queues: dict = {}  # kind -> tied distinct mappings, in objective order; kinds in order of appearance
    while len(out) == top and k < len(ranked) and math.isclose(ranked[k][0], last, rel_tol=SCORE_TIE):
        i = ranked[k][1]
        k += 1
        if digests[i] not in seen:
            seen.add(digests[i])
            queues.setdefault((kinds or {}).get(i, ("index", i)), []).append(i)
    kind_of = (kinds or {}).get
    replayed: dict = {}  # kinds already in the top count as replayed once each
    for i in out:
        replayed[kind_of(i, ("index", i))] = replayed.get(kind_of(i, ("index", i)), 0) + 1
    turns = sorted((replayed.get(kind, 0) + k, order, k)
                   for order, (kind, queue) in enumerate(queues.items()) for k in range(len(queue)))
    queue_list = list(queues.values())
    out += [queue_list[order][k] for _, order, k in turns[:max(0, tied_max - len(out))]]
    return out


def judge_order(times: Sequence[float], scores: Sequence[float], indices: Sequence[int],
                tie: float = JUDGE_TIE) -> list[int]:
    """Positions of the judged mappings, fastest first (the judge's one ranking rule).

    Times within a relative ``tie`` of the fastest are equal to it; among equal
    times the default order (candidate index 0) comes first, then the better objective
    score, then the lower candidate index.  So the default order is the pick unless another
    mapping replays faster than it by more than ``tie`` (``t * (1 + tie) < t_default``).

    Parameters
    ----------
    times, scores, indices : sequences of equal length
        Replayed seconds, objective scores and candidate indices of the judged mappings.
    tie : float, optional
        Relative tie (default :data:`JUDGE_TIE`; :func:`judge_tie` for replays at a
        resolution).

    Returns
    -------
    list of int
        Positions into the sequences; ``[0]`` is the judge's pick.

    Examples
    --------
    >>> judge_order([2.0, 1.00001, 1.0], [1.0, 2.0, 3.0], [0, 1, 2])
    [1, 2, 0]

    The default order (index 0) ties with the fastest: it is kept, though scored worse.

    >>> judge_order([1.0, 1.00001], [1.0, 2.0], [5, 0])
    [1, 0]

    Replays at a 1% resolution: 0.5% faster is no evidence.

    >>> judge_order([0.995, 1.0], [1.0, 2.0], [5, 0], tie=0.01)
    [1, 0]
    """
    if not (len(times) == len(scores) == len(indices)):
        raise InvalidInputError("judge_order: times, scores and indices differ in length")
    if not times:
        return []
    fastest = min(times)

    def key(k: int):
        t = times[k]
        return (fastest if t <= fastest * (1.0 + tie) else t, indices[k] != 0, scores[k], indices[k])

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


def judge_steps(problem: Problem) -> int:
    """Exchange steps the fluid judge replays by default: :data:`JUDGE_STEPS` for a task graph
    of at most :data:`JUDGE_STEPS_MAX_EDGES` directed edges, else 1.

    Examples
    --------
    >>> from mpitaskmap.graphs.taskgraph import TaskGraph
    >>> from mpitaskmap.machines import FlatMachine
    >>> judge_steps(Problem(TaskGraph.stencil((8, 8, 8)), FlatMachine(range(512))))
    5
    >>> judge_steps(Problem(TaskGraph.stencil((32, 16, 16)), FlatMachine(range(8192))))
    5
    >>> judge_steps(Problem(TaskGraph.stencil((32, 32, 32)), FlatMachine(range(32768))))
    1
    """
    return JUDGE_STEPS if int(problem.graph.indices.size) <= JUDGE_STEPS_MAX_EDGES else 1


def judge_resolution(problem: Problem) -> float:
    """The default judge's ``resolution``: 0 (exact) up to :data:`JUDGE_EXACT_MAX_EDGES` edges, else
    :data:`FLUID_JUDGE_RESOLUTION`.

    Examples
    --------
    >>> from mpitaskmap.graphs.taskgraph import TaskGraph
    >>> from mpitaskmap.machines import FlatMachine
    >>> judge_resolution(Problem(TaskGraph.stencil((8, 8, 16)), FlatMachine(range(1024))))
    0.0
    >>> judge_resolution(Problem(TaskGraph.stencil((16, 16, 8)), FlatMachine(range(2048))))
    0.01
    """
    return 0.0 if int(problem.graph.indices.size) <= JUDGE_EXACT_MAX_EDGES else FLUID_JUDGE_RESOLUTION


def judge_tie(options: MappingType | None) -> float:
    """Relative distance within which the judge's replayed times tie: :data:`JUDGE_TIE`, or the
    replays' ``resolution`` (a judge option) when coarser -- a smaller difference is no evidence.

    Examples
    --------
    >>> judge_tie({}), judge_tie({"resolution": 0.01}), judge_tie(None)
    (0.0001, 0.01, 0.0001)
    """
    return max(JUDGE_TIE, float((options or {}).get("resolution") or 0.0))


def fluid_seconds(problem: Problem, mapping: Mapping, options: dict | None = None) -> float:
    """Mean time of an exchange step of ``mapping``, replayed by :func:`~mpitaskmap.sim.fluid.fluid_exchange`.

    Parameters
    ----------
    problem : Problem
    mapping : Mapping
    options : dict, optional
        Keywords of :data:`FLUID_OPTIONS` (default the message model of the default objective,
        ``problem.message_model``: ``link_latency`` 1e-7 s, ``bytes_per_weight`` 1, weights
        are bytes, or 4,096 for a graph without message sizes; the SMPI model; ``steps``
        :func:`judge_steps`).

    Returns
    -------
    float
        Seconds: the replay's end over its ``steps`` (0 when no message crosses the network;
        inf when the replay passed its ``max_work``).  On a machine whose routing is not known
        (:meth:`~mpitaskmap.machines.Machine.routing_samples`), every sampled routing is
        replayed and the times combined by :func:`~mpitaskmap.machines.base.sampled_time`
        (weighted by :meth:`~mpitaskmap.machines.Machine.routing_weights`).
    """
    options = {**problem.message_model.replay_options(), "steps": judge_steps(problem),
               **check_fluid_options(options)}
    samples = problem.machine.routing_samples()
    if len(samples) > 1 or samples[0] is not problem.machine:  # a routing not known: each sampled one, combined
        times = [fluid_exchange(problem.graph, m, mapping.task_to_proc, **options) for m in samples]
        return sampled_time([r.seconds / r.steps for r in times], problem.machine.routing_weights())
    replay = fluid_exchange(problem.graph, problem.machine, mapping.task_to_proc, **options)
    return replay.seconds / replay.steps


def judge_metrics(problem: Problem, names) -> tuple[str, ...]:
    """Validate ``judge_also``: names of :data:`~mpitaskmap.metrics.METRICS`, without repeats.

    The link metrics are dropped on a machine without a link model (they are not defined
    there).

    Raises
    ------
    InvalidInputError
        On an unknown metric name.
    """
    if isinstance(names, str):
        names = [names]
    out = []
    for name in names:
        if name not in METRICS:
            raise InvalidInputError(f"judge_also: unknown metric {name!r}; valid: {sorted(METRICS)}")
        if name in LINK_METRICS and not problem.machine.has_link_model:
            continue
        if name not in out:
            out.append(name)
    return tuple(out)


def replay_function(problem: Problem, judge: str, options: dict | None = None) -> Callable[[Mapping], float]:
    """The judge's replay: ``seconds(mapping)`` of an exchange step, its options checked now.

    The fluid judge's figure is the mean step of :func:`judge_steps` steps (:func:`fluid_seconds`);
    the SimGrid judge's one step of :func:`~mpitaskmap.sim.simgrid_replay.simulate_exchange`.

    Parameters
    ----------
    problem : Problem
    judge : {"fluid", "simulate"}
        The fluid replay (:func:`fluid_seconds`) or SimGrid's
        (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`).
    options : dict, optional
        ``"fluid"``: :data:`FLUID_OPTIONS`; ``"simulate"``: keywords of ``simulate_exchange``
        (defaults: the message model of the default objective, ``problem.message_model``,
        ``config`` = :data:`JUDGE_CONFIG`).

    Returns
    -------
    callable
        ``seconds(mapping) -> float`` (inf: the fluid replay passed its ``max_work``).

    Raises
    ------
    InvalidInputError
        On an unknown fluid option, or ``"simulate"`` without SimGrid -- before any replay
        (and before the search that precedes it).
    """
    if judge == "simulate":
        from ..sim.simgrid import simgrid_missing
        from ..sim import simgrid_replay

        missing = simgrid_missing(compiler=True)
        if missing:
            raise InvalidInputError(f"judge='simulate' needs SimGrid: {missing}")
        sim_options = {**problem.message_model.replay_options(), "config": JUDGE_CONFIG, **(options or {})}
        return lambda mapping: simgrid_replay.simulate_exchange(mapping, **sim_options).seconds
    if judge != "fluid":
        raise InvalidInputError(f"judge: unknown {judge!r}; valid: {list(JUDGES)}")
    check_fluid_options(options)
    # the module's fluid_seconds looked up at every call: one place to replace it (tests do)
    return lambda mapping: fluid_seconds(problem, mapping, options)


def replay_in_turn(indices: Sequence[int], mapping_of: Callable[[int], Mapping],
                   seconds_of: Callable[[Mapping], float]) -> dict[int, float]:
    """Replay candidates one after another; stop after the first that passes its budget.

    Parameters
    ----------
    indices : sequence of int
        Candidate indices, in the order to replay them.
    mapping_of : callable
        ``mapping_of(index) -> Mapping``.
    seconds_of : callable
        The replay (:func:`replay_function`).

    Returns
    -------
    dict of int to float
        Seconds by index; after an infinite one (over budget) the rest are left out: the
        objective decides then, so their times would not be used.
    """
    out: dict[int, float] = {}
    for i in indices:
        out[i] = float(seconds_of(mapping_of(i)))
        if out[i] == math.inf:
            break
    return out


@dataclass
class JudgeOutcome:
    """What :func:`judge_stage` decided.

    Attributes
    ----------
    index : int or None
        The candidate the judge picked (0: the default order, kept because no replayed
        mapping is faster); None when the objective decides (a replay failed or passed its
        budget).
    judged : list of dict
        One row per replayed mapping, in shortlist order, the default order last (unless
        it was shortlisted already): ``index``, ``candidate`` (label), ``score``
        (objective), ``chosen_by`` (``"objective"``, :data:`TIED`, the metric that put it
        on the shortlist, or :data:`DEFAULT_ORDER`), ``simulated_s`` (seconds of one step;
        inf past the budget, nan when not replayed), ``objective_rank`` and
        ``simulated_rank`` (1 = best; None when the judge did not decide).
    why : str
        Why the objective decides ("" when the judge did).
    default_simulated_s : float
        The default order's replayed seconds (its row's ``simulated_s``; nan when not replayed).
    """

    index: int | None = None
    judged: list = field(default_factory=list)
    why: str = ""
    default_simulated_s: float = math.nan


def judge_stage(judge: str, candidates: Sequence[Candidate], scores: Sequence[float], digests: MappingType[int, bytes],
                replay: Callable[[list[int]], tuple[dict[int, float], str]], *, top: int = JUDGE_TOP,
                also: MappingType[str, MappingType[int, float]] | None = None,
                max_work: int | None = None, tied_max: int | None = None, tie: float = JUDGE_TIE,
                max_route_entries: int | None = None) -> JudgeOutcome:
    """The judge stage of a search: the shortlist, its replays, the pick.

    The shortlist is the objective's ``top`` best distinct mappings no worse than the
    default order, and those tied with the last of them (:func:`judge_shortlist`;
    ``chosen_by`` :data:`TIED`), then the best candidate by each metric of
    ``also`` (ties: the better objective, then the lower index) when it is another
    mapping, then the default order (index 0; ``chosen_by`` :data:`DEFAULT_ORDER`) when it
    is not among them: every pick is measured against it.  ``replay`` runs them (in turn,
    or spread over MPI ranks); the fastest wins (:func:`judge_order`), and the default
    order is kept unless a mapping replays faster than it by more than ``tie``.
    A failed replay, one past its budget or one missing from what ``replay`` returns leaves
    the decision to the objective.  The rows after the first replay past its budget (in
    shortlist order) say "not replayed" (nan), however the replays were spread: a replayer
    in turn stops there, other MPI ranks may have gone on, so the rows are the same on any
    number of ranks.

    Parameters
    ----------
    judge : str
        The judge's name, for the report ("fluid", "simulate").
    candidates : sequence of Candidate
        Every candidate of the search, both stages (indices refer to it).
    scores : sequence of float
        Their objective scores, by index (inf: did not apply); index 0 is the identity.
    digests : mapping of int to bytes
        :func:`mapping_digest` of every candidate that applied.
    replay : callable
        ``replay(indices) -> (seconds by index, error)``: replays the shortlist; a
        replay past its budget is inf and may end that replayer's share; ``error`` is ""
        or names the first failure.
    top : int, optional
        Distinct mappings of the objective's ranking (default :data:`JUDGE_TOP`).
    also : mapping of str to (mapping of int to float), optional
        Per metric, its value for each candidate that applied.
    max_work : int, optional
        The replays' budget, for the report.
    max_route_entries : int, optional
        The replays' route-entry bound, for the report.
    tied_max : int, optional
        Mappings in all when ties extend the shortlist (:func:`judge_shortlist`).  Default:
        :data:`JUDGE_TIED_MAX` (or ``top`` if larger) for the ``"fluid"`` judge, whose replays
        cost milliseconds; ``top`` (no extension) for ``"simulate"``, where every mapping is a
        SimGrid run and ``top`` the budget the caller set.  The default order comes on top.
    tie : float, optional
        :func:`judge_order`'s relative tie (default :data:`JUDGE_TIE`; :func:`judge_tie` of
        the replays' options).

    Returns
    -------
    JudgeOutcome

    Examples
    --------
    >>> from mpitaskmap.search.problem import Candidate
    >>> cands = [Candidate.make("c", str(i)) for i in range(3)]
    >>> out = judge_stage("fluid", cands, [2.0, 1.0, 1.5], {0: b"a", 1: b"b", 2: b"c"},
    ...                   lambda ids: ({0: 3.0, 1: 2.0, 2: 1.0}, ""))
    >>> out.index, [(r["index"], r["objective_rank"], r["simulated_rank"]) for r in out.judged]
    (2, [(1, 1, 2), (2, 2, 1), (0, 3, 3)])

    Replayed no faster than the default order: it is kept.

    >>> out = judge_stage("fluid", cands, [2.0, 1.0, 1.5], {0: b"a", 1: b"b", 2: b"c"},
    ...                   lambda ids: ({0: 1.0, 1: 1.0, 2: 1.5}, ""), top=1)
    >>> out.index, out.default_simulated_s, [(r["index"], r["chosen_by"]) for r in out.judged]
    (0, 1.0, [(1, 'objective'), (0, 'default order')])

    Past its budget (inf): the objective decides, and what comes after it counts as not
    replayed, whether or not another rank replayed it.

    >>> out = judge_stage("fluid", cands, [2.0, 1.0, 1.5], {0: b"a", 1: b"b", 2: b"c"},
    ...                   lambda ids: ({0: 3.0, 1: float("inf"), 2: 1.0}, ""))
    >>> out.index, out.default_simulated_s, [(r["index"], r["simulated_s"]) for r in out.judged]
    (None, nan, [(1, inf), (2, nan), (0, nan)])
    """
    kinds = {i: candidate_kind(c) for i, c in enumerate(candidates)}
    if tied_max is None:
        tied_max = max(top, JUDGE_TIED_MAX) if judge == "fluid" else top
    picked = judge_shortlist(list(enumerate(scores)), digests, top, tied_max=tied_max, kinds=kinds)
    shortlist = [(i, "objective" if k < top else TIED) for k, i in enumerate(picked)]
    seen = {digests[i] for i, _ in shortlist}
    for name, values in (also or {}).items():
        # as judge_shortlist: only mappings no worse than the default order (index 0) by the objective
        eligible = [i for i in values if scores[i] <= scores[0]] if scores else []
        if eligible:
            i = min(eligible, key=lambda i: (values[i], scores[i], i))
            if digests[i] not in seen:
                seen.add(digests[i])
                shortlist.append((i, name))
    if scores and 0 not in {i for i, _ in shortlist}:  # the baseline: replayed whatever the objective says
        shortlist.append((0, DEFAULT_ORDER))
    seconds, error = replay([i for i, _ in shortlist])
    over = next((k for k, (i, _) in enumerate(shortlist) if seconds.get(i) == math.inf), None)
    if over is not None:  # what a replayer in turn has: nothing after the first replay past its budget
        seconds = {i: seconds[i] for i, _ in shortlist[: over + 1] if i in seconds}
    rows = [dict(index=i, candidate=candidates[i].label(), score=scores[i], chosen_by=by,
                 simulated_s=seconds.get(i, math.nan)) for i, by in shortlist]
    for rank, k in enumerate(sorted(range(len(rows)), key=lambda k: (rows[k]["score"], rows[k]["index"])), 1):
        rows[k]["objective_rank"] = rank
    for row in rows:
        row["simulated_rank"] = None
    out = JudgeOutcome(judged=rows, default_simulated_s=seconds.get(0, math.nan))
    over = [row for row in rows if row["simulated_s"] == math.inf]
    missing = [row for row in rows if math.isnan(row["simulated_s"])]
    if error:
        out.why = f"the judge failed ({error}): the objective decides"
    elif over:
        budget = f"{max_work:,}" if max_work is not None else "none given"
        bound = f" or its route-entry bound ({max_route_entries:,})" if max_route_entries is not None else ""
        out.why = (f"the {judge} replay of #{over[0]['index']} {over[0]['candidate']} passed its work budget "
                   f"({budget}){bound}: the objective decides")
    elif missing:
        out.why = (f"the {judge} replay gave no time for #{missing[0]['index']} {missing[0]['candidate']}: "
                   "the objective decides")
    elif rows:
        ranked = judge_order([r["simulated_s"] for r in rows], [r["score"] for r in rows], [r["index"] for r in rows],
                             tie=tie)
        for rank, k in enumerate(ranked, 1):
            rows[k]["simulated_rank"] = rank
        out.index = rows[ranked[0]]["index"]
    return out


def judge_change(judge: str, judged: Sequence[dict], index: int, metric: str) -> tuple[str, str]:
    """What the judge found, in words: the replayed change (the headline), then the objective's.

    The one wording of every report where the judge decided (``remap()``'s summary, the
    command line's ``auto``): the default order's replayed step beside the winner's, and
    the objective's change, labelled as predicted for ``predicted_time``.

    Parameters
    ----------
    judge : str
        The judge that decided (``"fluid"``: "replayed"; ``"simulate"``: "simulated").
    judged : sequence of dict
        :attr:`JudgeOutcome.judged` (the default order's row, index 0, among them).
    index : int
        The winner (:attr:`JudgeOutcome.index`; 0 when the default order is kept).
    metric : str
        The objective's name (``"predicted_time"``: seconds, "predicted").

    Returns
    -------
    (replayed, objective) : (str, str)
        ``"replayed step: default D s -> W s (P% lower)"``, or when the default order is kept
        ``"replayed step: default D s, no gain found: ..."`` naming the fastest other mapping
        replayed; and ``"METRIC: default B -> A (predicted, G% lower)"`` of the winner, with
        the objective's own pick when the judge chose another.

    Raises
    ------
    InvalidInputError
        When ``judged`` has no row of the default order or of ``index``.

    Examples
    --------
    >>> rows = [dict(index=5, score=2.0e-7, simulated_s=1.0e-6), dict(index=0, score=4.0e-7, simulated_s=1.0e-6)]
    >>> for line in judge_change("fluid", rows, 0, "predicted_time"): print(line)
    replayed step: default 1e-06 s, no gain found: the other mapping replayed, #5, 1e-06 s; the default order is kept
    predicted_time: default 4e-07 s -> 4e-07 s (predicted, unchanged); the objective's pick #5: 2e-07 s (predicted, 50.0% lower)
    >>> rows[0]["simulated_s"] = 8e-7
    >>> for line in judge_change("fluid", rows, 5, "predicted_time"): print(line)
    replayed step: default 1e-06 s -> 8e-07 s (20.0% lower)
    predicted_time: default 4e-07 s -> 2e-07 s (predicted, 50.0% lower)
    """
    by_index = {row["index"]: row for row in judged}
    if 0 not in by_index or index not in by_index:
        raise InvalidInputError(f"judged: no row of the default order (#0) or of the winner (#{index})")
    default, winner = by_index[0], by_index[index]
    what = "replayed" if judge == "fluid" else "simulated"
    d = default["simulated_s"]
    if index == 0:
        others = [row for row in judged if row["index"] != 0]
        if others:
            best = min(others, key=lambda row: (row["simulated_s"], row["index"]))
            many = f"the fastest of the {len(others)} other mappings" if len(others) > 1 else "the other mapping"
            alt = f"{many} {what}, #{best['index']}, {best['simulated_s']:.4g} s"
        else:
            alt = "no other mapping to replay"
        replayed = f"{what} step: default {d:.4g} s, {NO_GAIN}: {alt}; the default order is kept"
    else:
        w = winner["simulated_s"]
        replayed = f"{what} step: default {d:.4g} s -> {w:.4g} s ({change_text(d, w)})"
    unit, model = (" s", "predicted, ") if metric == "predicted_time" else ("", "")
    before, after = default["score"], winner["score"]
    objective = f"{metric}: default {before:.6g}{unit} -> {after:.6g}{unit} ({model}{change_text(before, after)})"
    pick = min(judged, key=lambda row: (row["score"], row["index"]))  # the objective's own: its rank 1
    if pick["index"] != index:
        objective += (f"; the objective's pick #{pick['index']}: {pick['score']:.6g}{unit} "
                      f"({model}{change_text(before, pick['score'])})")
    return replayed, objective
