"""The one deterministic, indexable list of candidate mappings, and the serial best-of.

A :class:`Candidate` is a small immutable description of how to compute one mapping (the
identity, or the geometric mapper with given orderings, rotations and transformations).
:func:`candidate_list` enumerates them in a fixed order from the task dimension count and
the machine alone, so candidate ``k`` means the same on every MPI rank; ``remap()``
spreads the list over ranks, :func:`best_of` evaluates it serially.

Order of the list: (optional identity), then for each processor-coordinate variant (torus
shift; no shift; bandwidth scaling; 2x2x8 boxes; dimension drop — only those that change
the coordinates) and each ordering (FZ, MFZ, Z, Gray, then Hilbert), the rotation pairs in
Zoltan2's order: longest/longest, task rotations with processor longest, processor
rotations with task longest, then every (task, processor) rotation pair.  Duplicates that
provably give the same mapping are left out: variants whose coordinates equal an earlier
variant's up to a uniform scale, rotations of a one-dimensional side, rotations with the
Hilbert ordering (which ignores them), and MFZ unless one dimension count divides the
other.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

import numpy as np

from .errors import InvalidInputError, NotApplicableError
from .machine import Machine, TorusMachine
from .mapping import Mapping, identity_mapping
from .mappers.geometric import map_geometric, processor_coords
from .metrics import METRICS, evaluate
from .taskgraph import TaskGraph

__all__ = [
    "Candidate",
    "candidate_list",
    "rotations",
    "best_of",
    "BestOf",
    "register_kind",
    "register_family",
    "GEMINI_BOX",
]

GEMINI_BOX = (2, 2, 8)


@dataclass(frozen=True)
class Candidate:
    """One way to compute a mapping; ``apply`` computes it.

    Attributes
    ----------
    kind : {"identity", "geometric"}
        The method.
    ordering : str
        Geometric part numbering (see :func:`~mpitaskmap.mappers.geometric.map_geometric`).
    task_perm, proc_perm : tuple of int or None
        Rotations (cut dimensions cycle in this order); None = longest dimension.
    shift, bandwidth : bool
        Torus shift and bandwidth scaling of processor coordinates.
    box : tuple of int or None
        Box transform lengths.
    drop : tuple of int
        Processor dimensions ignored.
    """

    kind: str = "geometric"
    ordering: str = "fz"
    task_perm: tuple | None = None
    proc_perm: tuple | None = None
    shift: bool = True
    bandwidth: bool = False
    box: tuple | None = None
    drop: tuple = ()
    params: tuple = ()

    def option(self, key: str, default=None):
        """Return the value of ``key`` in :attr:`params` (options of non-geometric kinds)."""
        for k, v in self.params:
            if k == key:
                return v
        return default

    def label(self) -> str:
        """Return a short human-readable description, e.g. ``"geometric fz T(1,0,2) P* shift"``."""
        if self.kind == "identity":
            return "identity (default order)"
        if self.kind != "geometric":
            return " ".join([self.kind] + [f"{k}={v}" for k, v in self.params])
        t = "T*" if self.task_perm is None else "T(" + ",".join(map(str, self.task_perm)) + ")"
        p = "P*" if self.proc_perm is None else "P(" + ",".join(map(str, self.proc_perm)) + ")"
        extras = [name for name, on in (("shift", self.shift), ("bw", self.bandwidth)) if on]
        if self.box is not None:
            extras.append("box" + "x".join(map(str, self.box)))
        if self.drop:
            extras.append("drop" + ",".join(map(str, self.drop)))
        return " ".join([self.kind, self.ordering, t, p] + extras)

    def apply(self, graph: TaskGraph, machine: Machine, *, prime_split: bool = True) -> Mapping:
        """Compute this candidate's mapping of ``graph`` onto ``machine``."""
        if self.kind == "identity":
            return identity_mapping(graph, machine)
        if self.kind == "geometric":
            return map_geometric(
                graph, machine, ordering=self.ordering, task_perm=self.task_perm, proc_perm=self.proc_perm,
                shift=self.shift, bandwidth=self.bandwidth, box=self.box, drop=self.drop, prime_split=prime_split,
            )
        _load_families()
        if self.kind in _KINDS:
            return _KINDS[self.kind](self, graph, machine)
        valid = sorted(["geometric", "identity", *_KINDS])
        raise InvalidInputError(f"kind: unknown candidate kind {self.kind!r}; valid: {valid}")


#: Modules that register mapper families when imported (loaded lazily: they import this one).
FAMILY_MODULES: tuple = ("mpitaskmap.mappers.graph", "mpitaskmap.mappers.regular", "mpitaskmap.percs")

#: Appliers of the other mapper families: kind -> f(candidate, graph, machine) -> Mapping.
_KINDS: dict[str, Callable] = {}


def _load_families() -> None:
    import importlib

    for name in FAMILY_MODULES:
        importlib.import_module(name)
#: Enumerators of the other families: name -> f(task_dims, machine) -> list of Candidate.
_FAMILIES: dict[str, Callable] = {}


def register_kind(kind: str, apply: Callable) -> None:
    """Register how candidates of ``kind`` are computed.

    Parameters
    ----------
    kind : str
        Candidate kind (e.g. ``"greedy"``); "identity" and "geometric" are built in.
    apply : callable
        ``apply(candidate, graph, machine) -> Mapping``; options come from
        ``candidate.params`` (see :meth:`Candidate.option`).  Must be deterministic.
    """
    if kind in ("identity", "geometric"):
        raise InvalidInputError(f"kind: {kind!r} is built in")
    _KINDS[kind] = apply


def register_family(name: str, enumerate_candidates: Callable) -> None:
    """Register a family of candidates that :func:`candidate_list` can append.

    Parameters
    ----------
    name : str
        Family name used in ``candidate_list(..., families=[...])``.
    enumerate_candidates : callable
        ``f(task_dims, machine) -> list of Candidate``, deterministic (same list on every
        rank for the same inputs).
    """
    if name == "geometric":
        raise InvalidInputError("name: 'geometric' is built in")
    _FAMILIES[name] = enumerate_candidates


def rotations(n_dims: int, *, max_all: int = 4) -> list[tuple[int, ...]]:
    """Return the dimension permutations tried for one side.

    All ``n_dims!`` permutations in lexicographic order when ``n_dims <= max_all``;
    otherwise the ``n_dims`` cyclic shifts of ``0..n_dims-1`` followed by the ``n_dims``
    cyclic shifts of its reverse (``2 * n_dims``), which keeps the candidate count linear.
    A single dimension has no rotations (cycling one dimension is the longest-dimension
    rule).

    Examples
    --------
    >>> rotations(3)[:3]
    [(0, 1, 2), (0, 2, 1), (1, 0, 2)]
    >>> len(rotations(6))
    12
    """
    if n_dims <= 1:
        return []
    if n_dims <= max_all:
        return list(itertools.permutations(range(n_dims)))
    base = list(range(n_dims))
    rev = base[::-1]
    out = [tuple(base[i:] + base[:i]) for i in range(n_dims)]
    out += [tuple(rev[i:] + rev[:i]) for i in range(n_dims)]
    return out


def _variants(machine: Machine, variants: str | Sequence[dict]) -> list[dict]:
    if not isinstance(variants, str):
        return [dict(v) for v in variants]
    if variants not in ("auto", "basic"):
        raise InvalidInputError(f"variants: expected 'auto', 'basic' or a list of dicts; got {variants!r}")
    options = [dict(shift=True), dict(shift=False)]
    if variants == "auto" and isinstance(machine, TorusMachine):
        bw_all = np.concatenate(machine.link_bandwidth)
        if np.ptp(bw_all) > 0:
            options.append(dict(shift=True, bandwidth=True))
            if machine.n_dims == 3:
                options.append(dict(shift=True, box=GEMINI_BOX))
        short = tuple(k for k in range(machine.n_dims) if machine.dims[k] == 2)
        if short and len(short) < machine.n_dims:
            options.append(dict(shift=True, drop=short))
    # drop variants whose coordinates equal an earlier one's up to a uniform scale
    kept, seen = [], []
    for opt in options:
        c = processor_coords(machine, **opt)
        c = c - c.min(axis=0)
        scale = c.max()
        key = c / scale if scale > 0 else c
        if any(k.shape == key.shape and np.array_equal(k, key) for k in seen):
            continue
        seen.append(key)
        kept.append(opt)
    return kept


def candidate_list(
    task_dims: int,
    machine: Machine,
    *,
    orderings: Sequence[str] = ("fz", "mfz", "z", "gray", "hilbert"),
    rotate: bool = True,
    variants: str | Sequence[dict] = "auto",
    include_identity: bool = False,
    max_all_rotations: int = 4,
    families: Sequence[str] = ("geometric",),
) -> list[Candidate]:
    """Enumerate the candidate configurations, deterministically.

    Parameters
    ----------
    task_dims : int
        Number of task coordinate dimensions that vary (constant ones are dropped by the
        mapper; pass the count after dropping).
    machine : Machine
        The processors; decides which transformation variants change anything.
    orderings : sequence of str, optional
        Orderings to try (default all five).
    rotate : bool, optional
        Include dimension rotations (default True); False keeps longest/longest only.
    variants : "auto", "basic" or sequence of dict, optional
        Processor-coordinate variants: "basic" = shift on/off; "auto" (default) adds
        bandwidth scaling and 2x2x8 boxes on machines with non-uniform bandwidth, and
        the drop of length-2 dimensions (BG/Q E); or explicit keyword dicts for
        :func:`~mpitaskmap.mappers.geometric.map_geometric`.
    include_identity : bool, optional
        Put the identity (default order) first, as ``remap()`` does, so the winner is
        never worse than the default.
    max_all_rotations : int, optional
        See :func:`rotations`.
    families : sequence of str, optional
        Mapper families to enumerate, in this order: "geometric" (default) and any
        registered with :func:`register_family` (e.g. graph and grid mappers).

    Returns
    -------
    list of Candidate

    Examples
    --------
    >>> from mpitaskmap import torus_machine
    >>> cands = candidate_list(3, torus_machine([4, 4, 4]), orderings=["fz"])
    >>> len(cands), cands[0].label()
    (49, 'geometric fz T* P* shift')
    """
    unknown = [o for o in orderings if o not in ("fz", "mfz", "z", "gray", "hilbert")]
    if unknown:
        raise InvalidInputError(f"orderings: unknown {unknown[0]!r}; valid: ['fz', 'gray', 'hilbert', 'mfz', 'z']")
    if int(task_dims) < 1:
        raise InvalidInputError(f"task_dims: must be at least 1; got {task_dims}")
    out: list[Candidate] = [Candidate(kind="identity")] if include_identity else []
    _load_families()
    unknown = [f for f in families if f != "geometric" and f not in _FAMILIES]
    if unknown:
        raise InvalidInputError(
            f"families: unknown {unknown[0]!r}; valid: {sorted(['geometric', *_FAMILIES])}"
        )
    for family in families:
        if family == "geometric":
            out.extend(_geometric_candidates(task_dims, machine, orderings, rotate, variants, max_all_rotations))
        else:
            out.extend(_FAMILIES[family](task_dims, machine))
    return out


def _geometric_candidates(task_dims, machine, orderings, rotate, variants, max_all_rotations) -> list[Candidate]:
    out: list[Candidate] = []
    for opt in _variants(machine, variants):
        pdims = processor_coords(machine, **opt).shape[1]
        t_rot = rotations(task_dims, max_all=max_all_rotations) if rotate else []
        p_rot = rotations(pdims, max_all=max_all_rotations) if rotate else []
        pairs = [(None, None)]
        pairs += [(t, None) for t in t_rot]
        pairs += [(None, p) for p in p_rot]
        pairs += [(t, p) for t in t_rot for p in p_rot]
        base = Candidate(kind="geometric", **{k: (tuple(v) if isinstance(v, list) else v) for k, v in opt.items()})
        for ordering in orderings:
            if ordering == "mfz" and task_dims % pdims and pdims % task_dims:
                continue
            if ordering == "hilbert":
                out.append(replace(base, ordering="hilbert"))
                continue
            out.extend(replace(base, ordering=ordering, task_perm=t, proc_perm=p) for t, p in pairs)
    return out


@dataclass
class BestOf:
    """Result of :func:`best_of`.

    Attributes
    ----------
    mapping : Mapping
        The winning mapping.
    score : float
        Its metric value.
    index : int
        Its position in the candidate list.
    scores : list of float
        Every candidate's score, in list order.
    seconds : float
        Total time spent.
    """

    mapping: Mapping
    score: float
    index: int
    scores: list = field(default_factory=list)
    seconds: float = 0.0


def best_of(
    candidates: Iterable[Candidate],
    graph: TaskGraph,
    machine: Machine,
    *,
    metric: str | Callable = "weighted_hops",
    progress: Callable[[int, int], None] | None = None,
) -> BestOf:
    """Evaluate candidates one after another and return the best (serial).

    Parameters
    ----------
    candidates : iterable of Candidate
        Usually :func:`candidate_list`.
    graph : TaskGraph
        Task graph with coordinates.
    machine : Machine
        The processors.
    metric : str or callable, optional
        A name from :data:`mpitaskmap.metrics.METRICS` (default "weighted_hops") or a
        function ``(graph, machine, task_to_proc) -> float``; lower is better.
    progress : callable, optional
        Called as ``progress(done, total)`` after each candidate.

    Returns
    -------
    BestOf
        Ties go to the lowest index.  Candidates that raise
        :class:`~mpitaskmap.errors.NotApplicableError` score infinity.

    Raises
    ------
    InvalidInputError
        On an empty candidate list or an unknown metric name.
    """
    t0 = time.perf_counter()
    cands = list(candidates)
    if not cands:
        raise InvalidInputError("candidates: the list is empty")
    if isinstance(metric, str):
        if metric not in METRICS:
            raise InvalidInputError(f"metric: unknown {metric!r}; valid: {sorted(METRICS)}")
        name = metric

        def score_fn(mapping: Mapping) -> float:
            return float(evaluate(graph, machine, mapping.task_to_proc, [name])[name])

    else:

        def score_fn(mapping: Mapping) -> float:
            return float(metric(graph, machine, mapping.task_to_proc))

    best = None
    scores = []
    for i, cand in enumerate(cands):
        try:
            mapping = cand.apply(graph, machine)
        except NotApplicableError:
            scores.append(float("inf"))
            if progress is not None:
                progress(i + 1, len(cands))
            continue
        s = score_fn(mapping)
        scores.append(s)
        if best is None or s < best[0]:
            best = (s, i, mapping)
        if progress is not None:
            progress(i + 1, len(cands))
    if best is None:
        raise InvalidInputError(f"candidates: none of the {len(cands)} candidates applies to this input")
    s, i, mapping = best
    mapping.info["candidate"] = cands[i].label()
    mapping.info["candidate_index"] = i
    return BestOf(mapping=mapping, score=s, index=i, scores=scores, seconds=time.perf_counter() - t0)
