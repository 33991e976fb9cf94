"""The regular-grid mapping framework: analyse, try every applicable heuristic, keep the best.

ALGORITHMS.md section 4 (Bhatele, Gupta, Kalé and Chung).  :func:`map_regular` takes a
communication matrix (or task graph) and a box allocation, recognises the grid with
:func:`~mpitaskmap.grid_analysis.analyse_grid`, evaluates every applicable heuristic by
hop-bytes (weighted hops) and returns the best mapping with a table of all candidates.

The heuristics are also *candidates* of the library's one candidate list: importing this
module registers the kind ``"grid"`` and the family ``"grid"`` with
:mod:`mpitaskmap.candidates`, so ``candidate_list(..., families=("geometric", "grid"))``,
:func:`~mpitaskmap.candidates.best_of` and ``remap(..., families=("geometric", "grid"))``
evaluate them next to the geometric mapper.  A grid candidate that does not apply to the
task graph at hand (not a regular grid, counts differ, pieces do not divide) returns the
default placement marked ``info["applicable"] = False``; it never raises, so it cannot
break a collective search, and the identity candidate already covers that mapping.

Candidates (:func:`grid_candidates`), per way of folding the cores of a router into a
mesh dimension (one way when routers hold one processor):

* cell grid 1-D or 2-D: MXOVLP, MXOV+AL, EXCO, COCE, AFFN, STEP (2-D objects), then SFC;
* cell grid 3-D: STACK and FOLD for every (stack dimension, cut dimension) pair, paper's
  choice first (2-D objects), then SFC;
* other dimension counts: SFC (Hilbert, then snake) only;
* several cores per router: BLOCK for every block shape (squarest first), once;
* last, PAIRS (seeded) from the best of the others.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..candidates import Candidate, register_family, register_kind
from ..errors import NotApplicableError
from ..errors import InvalidInputError
from ..grid_analysis import GridPattern, _to_coo, analyse_grid, analyse_grid_cached
from ..machine import Machine
from ..mapping import Mapping, identity_mapping
from ..metrics import weighted_hops
from ..taskgraph import TaskGraph
from ._grids import fold_variants, proc_grid
from .grid2d import HEURISTICS_2D, map_grid2d
from .grid3d import CURVES, block_shapes, map_blocked, map_fold, map_sfc, map_stack, stack_variants
from .grid_pairs import map_pairs

__all__ = ["map_regular", "RegularResult", "grid_candidates", "map_grid", "GRID_METHODS", "MAX_STACK_VARIANTS"]

#: Every method of :func:`map_grid`.
GRID_METHODS = HEURISTICS_2D + ("stack", "fold", "sfc", "block", "pairs")
#: Stack/fold variants enumerated per fold dimension (3 stack dims x 2 cut dims).
MAX_STACK_VARIANTS = 6


def map_grid(graph: TaskGraph, machine: Machine, *, method: str = "affn", **options) -> Mapping:
    """Map a grid of tasks with one heuristic of the suite, chosen by name.

    Parameters
    ----------
    graph : TaskGraph
        Tasks numbered as an object grid (dimension 0 fastest).
    machine : TorusMachine
        A box allocation with ``n_procs == graph.n_tasks``.
    method : str, optional
        One of :data:`GRID_METHODS` (default "affn").
    **options
        Keyword options of the method's function (``shape``, ``fold_dim``, ...).

    Returns
    -------
    Mapping

    Raises
    ------
    ValueError
        On an unknown method (the message lists the valid ones).
    InvalidInputError
        When the method does not apply (see the method's function).

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> map_grid(TaskGraph.stencil([8, 4]), torus_machine([2, 4, 4]), method="fold").is_permutation
    True
    """
    if method in HEURISTICS_2D:
        return map_grid2d(graph, machine, method=method, **options)
    fn = {"stack": map_stack, "fold": map_fold, "sfc": map_sfc, "block": map_blocked, "pairs": map_pairs}.get(method)
    if fn is None:
        raise InvalidInputError(f"method: unknown {method!r}; valid: {sorted(GRID_METHODS)}")
    return fn(graph, machine, **options)


def grid_candidates(task_dims: int, machine: Machine, *, pairs: bool = True, pairs_seed: int = 0) -> list[Candidate]:
    """Enumerate the grid heuristics as candidates, deterministically.

    Parameters
    ----------
    task_dims : int
        Dimension count of the task grid (2 for the 2-D suite).
    machine : Machine
        The processors; no candidates unless it is a box allocation of a TorusMachine.
    pairs : bool, optional
        Append the PAIRS candidate (default True).
    pairs_seed : int, optional
        Its seed (default 0).

    Returns
    -------
    list of Candidate
        Kind ``"grid"``; options in ``params`` (``heuristic``, ``fold_dim``, ``variant``,
        ``curve``, ``seed``).  The order is described in the module docstring.

    Examples
    --------
    >>> from mpitaskmap import torus_machine
    >>> [c.option("heuristic") for c in grid_candidates(2, torus_machine([10, 3]))]
    ['mxovlp', 'mxov+al', 'exco', 'coce', 'affn', 'step', 'sfc', 'sfc', 'pairs']
    """
    try:
        folds = fold_variants(machine)
    except InvalidInputError:
        return []
    out: list[Candidate] = []
    for f in folds:
        cells = proc_grid(machine, fold_dim=f).n_dims
        if task_dims <= 2 and cells <= 2:
            out += [_cand(h, f) for h in HEURISTICS_2D]
        if task_dims <= 2 and cells == 3:
            for v in range(MAX_STACK_VARIANTS):
                out += [_cand("stack", f, variant=v), _cand("fold", f, variant=v)]
        out += [_cand("sfc", f, curve=c) for c in CURVES]
    cores = proc_grid(machine).cores
    if task_dims <= 2 and cores > 1:
        n_blocks = sum(1 for b in range(1, cores + 1) if cores % b == 0)
        out += [_cand("block", None, variant=v) for v in range(n_blocks)]
    if pairs and out:
        out.append(Candidate(kind="grid", params=(("heuristic", "pairs"), ("seed", int(pairs_seed)))))
    return out


def _cand(heuristic: str, fold_dim, **extra) -> Candidate:
    params = [("heuristic", heuristic)]
    if fold_dim is not None:
        params.append(("fold_dim", int(fold_dim)))
    params += sorted(extra.items())
    return Candidate(kind="grid", params=tuple(params))


def _run(cand: Candidate, graph: TaskGraph, machine: Machine, dims: tuple) -> Mapping | None:
    """Compute one non-PAIRS candidate for a known grid shape; None when it does not apply."""
    h = cand.option("heuristic")
    f = cand.option("fold_dim")
    try:
        grid = proc_grid(machine, fold_dim=f)
        if h in HEURISTICS_2D:
            if len(dims) > 2 or grid.n_dims > 2:
                return None
            return map_grid2d(graph, machine, method=h, shape=dims, fold_dim=f)
        if h in ("stack", "fold"):
            if len(dims) > 2 or grid.n_dims != 3:
                return None
            shape2 = tuple(dims) + (1,) * (2 - len(dims))
            variants = stack_variants(shape2, grid.shape)
            v = cand.option("variant", 0)
            if v >= len(variants):
                return None
            s, c = variants[v]
            fn = map_fold if h == "fold" else map_stack
            return fn(graph, machine, shape=shape2, fold_dim=f, stack_dim=s, cut_dim=c)
        if h == "sfc":
            return map_sfc(graph, machine, shape=dims, fold_dim=f, curve=cand.option("curve", "hilbert"))
        if h == "block":
            if len(dims) > 2 or grid.cores == 1:
                return None
            shape2 = tuple(dims) + (1,) * (2 - len(dims))
            blocks = block_shapes(shape2, grid.cores)
            v = cand.option("variant", 0)
            return map_blocked(graph, machine, shape=shape2, block=blocks[v]) if v < len(blocks) else None
    except InvalidInputError:
        return None
    raise InvalidInputError(f"heuristic: unknown {h!r}; valid: {sorted(GRID_METHODS)}")


def _not_applicable(graph: TaskGraph, machine: Machine, why: str) -> Mapping:
    # candidate searches record the candidate as skipped (score infinity)
    raise NotApplicableError(f"grid: {why}")


def _apply_candidate(cand: Candidate, graph: TaskGraph, machine: Machine) -> Mapping:
    """Registered applier of kind "grid" (see the module docstring)."""
    pattern = analyse_grid_cached(graph)
    if not pattern.regular:
        return _not_applicable(graph, machine, f"irregular: {pattern.reason}")
    if graph.n_tasks != machine.n_procs:
        return _not_applicable(graph, machine, "task and processor counts differ")
    if cand.option("heuristic") == "pairs":
        quick = grid_candidates(pattern.n_dims, machine, pairs=False)
        best = _best_of(quick, graph, machine, pattern.dims)
        start = best[1] if best else identity_mapping(graph, machine)
        return map_pairs(graph, machine, start=start, seed=cand.option("seed", 0))
    m = _run(cand, graph, machine, pattern.dims)
    return m if m is not None else _not_applicable(graph, machine, "heuristic does not apply to these shapes")


def _best_of(cands, graph, machine, dims):
    best = None
    for c in cands:
        m = _run(c, graph, machine, dims)
        if m is None:
            continue
        wh = weighted_hops(graph, machine, m.task_to_proc)
        if best is None or wh < best[0]:
            best = (wh, m)
    return best


def _enumerate(task_dims: int, machine: Machine) -> list[Candidate]:
    """Registered enumerator of family "grid"."""
    return grid_candidates(task_dims, machine)


register_kind("grid", _apply_candidate)
register_family("grid", _enumerate)


@dataclass
class RegularResult:
    """Outcome of :func:`map_regular`.

    Attributes
    ----------
    mapping : Mapping
        The mapping with the lowest hop-bytes (ties to the earlier row).
    pattern : GridPattern
        What the analyser found.
    table : list of dict
        One row per candidate, in evaluation order: ``name`` (e.g. ``"fold"``),
        ``variant`` (options), ``hop_bytes``, ``hops_per_byte`` (hop-bytes / total
        bytes; 1.0 is the lower bound with one rank per router), ``seconds`` and
        ``applicable``.
    best : str
        Name and variant of the winner.
    """

    mapping: Mapping
    pattern: GridPattern
    table: list = field(default_factory=list)
    best: str = ""

    @staticmethod
    def _label(row: dict) -> str:
        return row["name"] + (" " + row["variant"] if row["variant"] else "")

    def summary(self) -> str:
        """Return the candidate table as text, best marked with ``*``."""
        w = max([9] + [len(self._label(r)) for r in self.table])
        lines = [self.pattern.summary(), f"{'candidate':<{w}} {'hop-bytes':>14} {'hops/byte':>10} {'seconds':>8}"]
        for row in self.table:
            label = self._label(row)
            mark = "*" if label == self.best else " "
            if row["applicable"]:
                lines.append(f"{label:<{w}} {row['hop_bytes']:>14,.0f} {row['hops_per_byte']:>10.4f} "
                             f"{row['seconds']:>8.4f}{mark}")
            else:
                lines.append(f"{label:<{w}} {'n/a':>14} {'':>10} {'':>8}")
        return "\n".join(lines)


def _variant_label(cand: Candidate, mapping: Mapping | None) -> str:
    parts = [f"{k}={v}" for k, v in cand.params if k not in ("heuristic", "variant")]
    info = mapping.info if mapping is not None else {}
    if cand.option("heuristic") in ("stack", "fold"):
        parts.append(f"stack_dim={info['stack_dim']} cut_dim={info['cut_dim']} base={info['base']}"
                     if mapping is not None else f"variant={cand.option('variant')}")
    if cand.option("heuristic") == "block":
        parts.append(f"block={'x'.join(map(str, info['block']))} coarse={info['coarse']}"
                     if mapping is not None else f"variant={cand.option('variant')}")
    return " ".join(parts)


def map_regular(
    matrix_or_graph,
    machine: Machine,
    *,
    threshold: float = 0.2,
    root: int | None = 0,
    pairs: bool = True,
    pairs_seed: int = 0,
    pairs_proposals: int | None = None,
    pairs_seconds: float | None = None,
    include_default: bool = True,
) -> RegularResult:
    """Recognise a regular communication grid and map it with the best heuristic.

    Parameters
    ----------
    matrix_or_graph : TaskGraph, (n, n) array_like, scipy.sparse matrix or CSR-like
        Bytes between rank pairs (``[i, j]`` = bytes rank ``i`` sent to rank ``j``).
    machine : TorusMachine
        A box allocation with ``n_procs == n``.
    threshold, root : optional
        Analyser options, see :func:`~mpitaskmap.grid_analysis.analyse_grid`.
    pairs : bool, optional
        Refine the winner with PAIRS and keep it if better (default True).
    pairs_seed, pairs_proposals, pairs_seconds : optional
        PAIRS seed (default 0), proposal budget (default ``64 * n``) and wall-time cap
        (default none: deterministic).
    include_default : bool, optional
        Also evaluate the default placement (rank ``t`` on processor ``t``) so the result
        is never worse than it (default True).

    Returns
    -------
    RegularResult
        The best mapping, the pattern and the table of all candidates; hop-bytes are
        measured on the whole matrix (light and collective traffic included).

    Raises
    ------
    InvalidInputError
        If the pattern is irregular (with the analyser's reason), the counts differ, or
        the machine is not a box allocation.

    Notes
    -----
    Every heuristic except PAIRS is near-linear (about 0.01-0.1 s for 65,536 tasks);
    PAIRS costs O(proposals * degree).  Deterministic.

    References
    ----------
    Bhatele, Gupta, Kalé, Chung, "Automated Mapping of Regular Communication Graphs on
    Mesh Interconnects", HiPC 2010 (ALGORITHMS.md section 4).

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> res = map_regular(TaskGraph.stencil([6, 5]), torus_machine([10, 3], wrap=False))
    >>> res.pattern.dims, res.mapping.is_permutation, res.table[0]["name"]
    ((6, 5), True, 'default')
    """
    if isinstance(matrix_or_graph, TaskGraph):
        graph = matrix_or_graph
    else:
        n, rows, cols, vals = _to_coo(matrix_or_graph)
        graph = TaskGraph.from_edges(rows, cols, vals, n_tasks=n)
    pattern = analyse_grid(graph, threshold=threshold, root=root)
    if not pattern.regular:
        raise InvalidInputError(f"matrix: the communication pattern is not a regular grid: {pattern.reason}")
    if graph.n_tasks != machine.n_procs:
        raise InvalidInputError(
            f"machine: the grid heuristics place one task per processor; got {graph.n_tasks} tasks "
            f"and {machine.n_procs} processors"
        )
    proc_grid(machine)  # raises when the machine is not a box allocation
    total = float(graph.weights.sum()) or 1.0
    rows_out, best = [], None

    def record(name, variant, mapping, seconds):
        nonlocal best
        if mapping is None:
            rows_out.append(dict(name=name, variant=variant, hop_bytes=float("nan"), hops_per_byte=float("nan"),
                                 seconds=seconds, applicable=False))
            return
        wh = weighted_hops(graph, machine, mapping.task_to_proc)
        rows_out.append(dict(name=name, variant=variant, hop_bytes=wh, hops_per_byte=wh / total,
                             seconds=seconds, applicable=True))
        if best is None or wh < best[0]:
            best = (wh, (name + (" " + variant if variant else "")), mapping)

    if include_default:
        t0 = time.perf_counter()
        record("default", "", identity_mapping(graph, machine), time.perf_counter() - t0)
    for cand in grid_candidates(pattern.n_dims, machine, pairs=False):
        t0 = time.perf_counter()
        m = _run(cand, graph, machine, pattern.dims)
        record(cand.option("heuristic"), _variant_label(cand, m), m, time.perf_counter() - t0)
    if best is None:  # pragma: no cover - SFC always applies to a box allocation
        raise InvalidInputError(f"machine: no grid heuristic applies to {machine.name}")
    if pairs:
        t0 = time.perf_counter()
        m = map_pairs(graph, machine, start=best[2], seed=pairs_seed, max_proposals=pairs_proposals,
                      max_seconds=pairs_seconds)
        record("pairs", f"from {best[1]}", m, time.perf_counter() - t0)
    mapping = best[2]
    mapping.info["regular_best"] = best[1]
    return RegularResult(mapping=mapping, pattern=pattern, table=rows_out, best=best[1])
