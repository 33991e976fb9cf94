"""The geometric family: Multi-Jagged mappings over orderings, rotations and coordinate variants.

On a machine with a hierarchy of switches (a fat tree) the family starts with the tree
split (:func:`tree_candidate`: the task coordinates cut along the tree, longest extent then
every rotation), then the MJ candidates below.
Order of the candidates: for each processor-coordinate variant (torus shift; no shift;
bandwidth scaling; 2x2x8 boxes; dimension drop — only those that change the coordinates)
and each ordering (FZ, MFZ, Z, Gray, then Hilbert), the rotation pairs in Zoltan2's
order: longest/longest, task rotations with processor longest, processor rotations with
task longest, then every (task, processor) rotation pair.  Duplicates that provably give
the same mapping are left out: variants whose coordinates equal an earlier variant's up
to a uniform scale, rotations of a one-dimensional side, rotations with the Hilbert
ordering (which ignores them), and MFZ unless one dimension count divides the other.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from ...errors import InvalidInputError, NotApplicableError
from ...mappers.geometric.hierarchy import map_tree_split
from ...mappers.geometric.mapper import GeometricCache, map_geometric, processor_coords
from ...mapping import Mapping
from ...mappers.geometric.mj import ORDERINGS
from ...mappers.geometric.options import GEOMETRIC_DEFAULTS as _DEFAULT
from ..problem import Candidate, Problem

__all__ = ["candidates", "apply", "rotations", "coordinate_variants", "candidate", "tree_candidate", "GEMINI_BOX"]

#: Box lengths of the Gemini box variant (two nodes per router, 2x2x8 routers per box).
GEMINI_BOX = (2, 2, 8)

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


def _proc_coords(problem: Problem, opt: dict) -> np.ndarray:
    key = ("geometric.proc_coords",) + tuple(sorted((k, _hashable(v)) for k, v in opt.items()))
    return problem.cached(key, lambda: processor_coords(problem.machine, **opt))


def _hashable(v):
    return tuple(v) if isinstance(v, (list, tuple)) else v


def coordinate_variants(problem: Problem, which: str | Sequence[dict] = "auto") -> list[dict]:
    """Return the processor-coordinate variants that change the coordinates.

    Parameters
    ----------
    problem : Problem
        The machine decides which variants exist.
    which : "auto", "basic" or sequence of dict, optional
        "basic" = torus shift on, then off; "auto" (default) adds bandwidth scaling and
        2x2x8 boxes on machines with non-uniform bandwidth, and the drop of length-2
        dimensions (BG/Q E); or explicit keyword dicts of
        :func:`~mpitaskmap.mappers.geometric.mapper.processor_coords`.

    Returns
    -------
    list of dict
        The variants, with those whose coordinates equal an earlier one's up to a uniform
        scale left out.
    """
    machine = problem.machine
    if not isinstance(which, str):
        return [dict(v) for v in which]
    if which not in ("auto", "basic"):
        raise InvalidInputError(f"variants: expected 'auto', 'basic' or a list of dicts; got {which!r}")
    options = [dict(shift=True), dict(shift=False)]
    if which == "auto" and machine.has_router_grid:
        bw_all = np.concatenate(machine.link_bandwidth)
        if np.ptp(bw_all) > 0:
            options.append(dict(shift=True, bandwidth=True))
            if machine.n_dims == 3:
                options.append(dict(shift=True, box=GEMINI_BOX))
        short = tuple(k for k in range(machine.n_dims) if machine.dims[k] == 2)
        if short and len(short) < machine.n_dims:
            options.append(dict(shift=True, drop=short))
    kept, seen = [], []
    for opt in options:
        c = _proc_coords(problem, opt)
        c = c - c.min(axis=0)
        scale = c.max()
        key = c / scale if scale > 0 else c
        if any(k.shape == key.shape and np.array_equal(k, key) for k in seen):
            continue
        seen.append(key)
        kept.append(opt)
    return kept


def candidate(ordering: str = _DEFAULT["ordering"], **options: Any) -> Candidate:
    """Return the geometric candidate with these :func:`~mpitaskmap.mappers.geometric.mapper.map_geometric` options.

    Its label reads ``"geometric ORDERING T(..)|T* P(..)|P* [shift] [bw] [boxAxBxC] [dropI,J]"``
    (``*`` = longest dimension).

    Parameters
    ----------
    ordering : {"fz", "mfz", "z", "gray", "hilbert"}, optional
        Part numbering (default "fz").
    **options
        The other options of the geometric mapper
        (:data:`~mpitaskmap.mappers.geometric.options.GEOMETRIC_OPTIONS`: ``task_perm``,
        ``proc_perm``, ``shift``, ``bandwidth``, ``box``, ``drop``), each its declared
        default where not given.

    Raises
    ------
    InvalidInputError
        On an unknown ordering or option.

    Examples
    --------
    >>> candidate("z", proc_perm=(2, 0, 1)).label()
    'geometric z T* P(2,0,1) shift'
    """
    unknown = [k for k in options if k not in _DEFAULT]
    if unknown:
        raise InvalidInputError(f"{unknown[0]}: not an option of the geometric mapper; valid: {list(_DEFAULT)}")
    o = {**_DEFAULT, **options}
    task_perm, proc_perm, shift, bandwidth, box, drop = (
        o[k] for k in ("task_perm", "proc_perm", "shift", "bandwidth", "box", "drop"))
    if ordering not in ORDERINGS:
        raise InvalidInputError(f"ordering: unknown {ordering!r}; valid: {list(ORDERINGS)}")
    tp = None if task_perm is None else tuple(int(v) for v in task_perm)
    pp = None if proc_perm is None else tuple(int(v) for v in proc_perm)
    bx = None if box is None else tuple(int(v) for v in box)
    dr = tuple(int(v) for v in drop)
    t = "T*" if tp is None else "T(" + ",".join(map(str, tp)) + ")"
    p = "P*" if pp is None else "P(" + ",".join(map(str, pp)) + ")"
    words = ["geometric", ordering, t, p] + [n for n, on in (("shift", shift), ("bw", bandwidth)) if on]
    if bx is not None:
        words.append("box" + "x".join(map(str, bx)))
    if dr:
        words.append("drop" + ",".join(map(str, dr)))
    return Candidate.make(
        "geometric", "mj", title=" ".join(words), ordering=ordering, task_perm=tp, proc_perm=pp,
        shift=bool(shift), bandwidth=bool(bandwidth), box=bx, drop=dr,
    )


def tree_candidate(task_perm: Sequence[int] | None = None) -> Candidate:
    """Return the candidate that cuts the task coordinates along the machine's tree of switches.

    :func:`~mpitaskmap.mappers.geometric.hierarchy.map_tree_split`; label
    ``"geometric tree T*"`` or ``"geometric tree T(0,2,1)"``.

    Examples
    --------
    >>> tree_candidate((1, 0)).label()
    'geometric tree T(1,0)'
    """
    tp = None if task_perm is None else tuple(int(v) for v in task_perm)
    t = "T*" if tp is None else "T(" + ",".join(map(str, tp)) + ")"
    return Candidate.make("geometric", "tree", title=f"geometric tree {t}", task_perm=tp)


def candidates(
    problem: Problem,
    *,
    orderings: Sequence[str] = ORDERINGS,
    rotate: bool = True,
    variants: str | Sequence[dict] = "auto",
    max_all_rotations: int = 4,
) -> list[Candidate]:
    """Enumerate the geometric candidates of ``problem``, deterministically.

    Parameters
    ----------
    problem : Problem
        Tasks with coordinates (no candidates when they have none) and the machine.
    orderings : sequence of str, optional
        Orderings to try, in this order (default all of :data:`~mpitaskmap.mappers.geometric.mj.ORDERINGS`).
    rotate : bool, optional
        Include dimension rotations (default True); False keeps longest/longest only.
    variants : "auto", "basic" or sequence of dict, optional
        Processor-coordinate variants, see :func:`coordinate_variants`.
    max_all_rotations : int, optional
        See :func:`rotations`.

    Returns
    -------
    list of Candidate
        In the order of the module docstring.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> cands = candidates(Problem(TaskGraph.stencil([4, 4, 4]), torus_machine([4, 4, 4])), orderings=["fz"])
    >>> len(cands), cands[0].label()
    (49, 'geometric fz T* P* shift')
    """
    unknown = [o for o in orderings if o not in ORDERINGS]
    if unknown:
        raise InvalidInputError(f"orderings: unknown {unknown[0]!r}; valid: {list(ORDERINGS)}")
    task_dims = problem.task_dims
    if task_dims == 0:
        return []
    out: list[Candidate] = []
    if problem.machine.node_hierarchy() is not None:  # a tree of switches: cut the tasks along it first
        out.append(tree_candidate())
        if rotate:
            out.extend(tree_candidate(t) for t in rotations(task_dims, max_all=max_all_rotations))
    for opt in coordinate_variants(problem, variants):
        pdims = _proc_coords(problem, opt).shape[1]
        t_rot = rotations(task_dims, max_all=max_all_rotations) if rotate else []
        p_rot = rotations(pdims, max_all=max_all_rotations) if rotate else []
        pairs = [(None, None)]
        pairs += [(t, None) for t in t_rot]
        pairs += [(None, p) for p in p_rot]
        pairs += [(t, p) for t in t_rot for p in p_rot]
        for ordering in orderings:
            if ordering == "mfz" and task_dims % pdims and pdims % task_dims:
                continue
            if ordering == "hilbert":
                out.append(candidate("hilbert", **opt))
                continue
            out.extend(candidate(ordering, task_perm=t, proc_perm=p, **opt) for t, p in pairs)
    return out


def apply(candidate: Candidate, problem: Problem, *, prime_split: bool = True) -> Mapping:
    """Compute a geometric candidate with :func:`~mpitaskmap.mappers.geometric.mapper.map_geometric`.

    The tasks' coordinates are :attr:`Problem.task_graph <mpitaskmap.search.problem.Problem.task_graph>`'s
    (the graph's own, or its grid pattern's when it has none); the mapping returned holds the
    problem's graph.

    Raises
    ------
    NotApplicableError
        When the tasks have no coordinates.
    """
    graph = problem.task_graph  # the graph's coordinates, or its grid's when it has none
    if graph.coords is None:
        raise NotApplicableError("geometric: the tasks have no coordinates")
    o = dict(candidate.options)
    if candidate.method == "tree":
        mapping = map_tree_split(graph, problem.machine, task_perm=o.get("task_perm"),
                                 oversubscribe=problem.oversubscribe)
    else:
        # the search's candidates share their partitions: each computed once (GeometricCache)
        cache = problem.cached("geometric cache", lambda: GeometricCache(graph, problem.machine))
        mapping = map_geometric(graph, problem.machine, **{k: o.get(k, v) for k, v in _DEFAULT.items()},
                                prime_split=prime_split, oversubscribe=problem.oversubscribe, cache=cache)
    mapping.graph = problem.graph
    return mapping
