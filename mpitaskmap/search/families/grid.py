"""The grid family: the regular-grid heuristics (ALGORITHMS.md section 4) as candidates.

Applies when the task graph is a regular grid (:attr:`~mpitaskmap.search.problem.Problem.grid_pattern`)
with one task per processor of a box allocation.  Candidates, per way of folding the
cores of a router into a mesh dimension (one way when routers hold one processor):

* object grid 1-D or 2-D on a 1-D or 2-D cell grid: MXOVLP, MXOV+AL, EXCO, COCE, AFFN, STEP;
* object grid 1-D or 2-D on a 3-D cell grid: STACK and FOLD for every (stack dimension,
  cut dimension) pair, the paper's choice first;
* every shape: SFC (Hilbert, then snake);
* several cores per router: BLOCK for every block shape (squarest first), once.

PAIRS refines a start mapping: it is not enumerated (its start would be the best of the
others, which only a search knows); the portfolio's ``regular`` method runs it from the
best of these (:func:`~mpitaskmap.search.methods.map_regular`), and the method ``pairs``
applied alone starts from the default order.
"""

from __future__ import annotations

from ...errors import NotApplicableError
from ...mappers.grid._shared import fold_variants, proc_grid
from ...mappers.grid.heuristics import map_grid
from ...mappers.grid.onto_2d import HEURISTICS_2D
from ...mappers.grid.onto_3d import CURVES, block_shapes, stack_variants
from ...mapping import Mapping
from ..problem import Candidate, Problem

__all__ = ["candidates", "apply", "variant_label", "MAX_STACK_VARIANTS"]

#: Stack/fold variants enumerated per fold dimension (3 stack dims x 2 cut dims).
MAX_STACK_VARIANTS = 6


def _cand(heuristic: str, fold_dim, **extra) -> Candidate:
    if fold_dim is not None:
        extra["fold_dim"] = int(fold_dim)
    return Candidate.make("grid", heuristic, **extra)


def candidates(problem: Problem) -> list[Candidate]:
    """Enumerate the grid heuristics that may apply to ``problem``, deterministically.

    Returns
    -------
    list of Candidate
        Family "grid", method = heuristic name, options ``fold_dim``, ``variant``,
        ``curve``; empty when the task graph is not a regular grid, the counts differ or
        the machine is not a box allocation.  Order: see the module docstring.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> [c.method for c in candidates(Problem(TaskGraph.stencil([6, 5]), torus_machine([10, 3])))]
    ['mxovlp', 'mxov+al', 'exco', 'coce', 'affn', 'step', 'sfc', 'sfc']
    """
    pattern = problem.grid_pattern
    if not pattern.regular or problem.graph.n_tasks != problem.machine.n_procs:
        return []
    try:
        folds = fold_variants(problem.machine)
    except NotApplicableError:
        return []
    task_dims = pattern.n_dims
    out: list[Candidate] = []
    for f in folds:
        cells = proc_grid(problem.machine, fold_dim=f).n_dims
        if task_dims <= 2 and cells <= 2:
            out += [_cand(h, f) for h in HEURISTICS_2D]
        if task_dims <= 2 and cells == 3:
            for v in range(MAX_STACK_VARIANTS):
                out += [_cand("stack", f, variant=v), _cand("fold", f, variant=v)]
        out += [_cand("sfc", f, curve=c) for c in CURVES]
    cores = proc_grid(problem.machine).cores
    if task_dims <= 2 and cores > 1:
        n_blocks = sum(1 for b in range(1, cores + 1) if cores % b == 0)
        out += [_cand("block", None, variant=v) for v in range(n_blocks)]
    return out


def _arguments(candidate: Candidate, problem: Problem) -> dict:
    """The keyword arguments of :func:`~mpitaskmap.mappers.grid.heuristics.map_grid` for ``candidate``.

    Resolves the candidate's options (a fold dimension, a variant index) against the
    problem's shapes; raises :class:`~mpitaskmap.errors.NotApplicableError` where the
    heuristic does not fit them.
    """
    dims = problem.grid_pattern.dims
    h, f = candidate.method, candidate.option("fold_dim")
    grid = proc_grid(problem.machine, fold_dim=f)
    shape2 = tuple(dims) + (1,) * (2 - len(dims))
    if h in HEURISTICS_2D:
        if len(dims) > 2 or grid.n_dims > 2:
            raise NotApplicableError(f"grid {h}: needs a 1-D or 2-D object grid on a 1-D or 2-D cell grid")
        return dict(shape=dims, fold_dim=f)
    if h in ("stack", "fold"):
        if len(dims) > 2 or grid.n_dims != 3:
            raise NotApplicableError(f"grid {h}: needs a 1-D or 2-D object grid on a 3-D cell grid")
        variants = stack_variants(shape2, grid.shape)
        v = candidate.option("variant", 0)
        if v >= len(variants):
            raise NotApplicableError(f"grid {h}: variant {v} of {len(variants)} for these shapes")
        return dict(shape=shape2, fold_dim=f, stack_dim=variants[v][0], cut_dim=variants[v][1])
    if h == "sfc":
        return dict(shape=dims, fold_dim=f, curve=candidate.option("curve", "hilbert"))
    if h == "block":
        if len(dims) > 2 or grid.cores == 1:
            raise NotApplicableError("grid block: needs a 1-D or 2-D object grid and several cores per router")
        blocks = block_shapes(shape2, grid.cores)
        v = candidate.option("variant", 0)
        if v >= len(blocks):
            raise NotApplicableError(f"grid block: variant {v} of {len(blocks)} block shapes")
        return dict(shape=shape2, block=blocks[v])
    if h == "pairs":  # from the default order; map_regular runs it from the best heuristic
        return dict(seed=candidate.option("seed", 0))
    return {}  # an unknown name: map_grid names the valid ones


def apply(candidate: Candidate, problem: Problem) -> Mapping:
    """Compute one grid heuristic candidate (by :func:`~mpitaskmap.mappers.grid.heuristics.map_grid`).

    Raises
    ------
    NotApplicableError
        When the task graph is not a regular grid, the counts differ, or the heuristic
        does not fit these shapes (a variant beyond the shape's variants, ...).
    InvalidInputError
        On a real error (an unknown heuristic name); it propagates.
    """
    graph, machine = problem.graph, problem.machine
    pattern = problem.grid_pattern
    if not pattern.regular:
        raise NotApplicableError(f"grid: irregular: {pattern.reason}")
    if graph.n_tasks != machine.n_procs:
        raise NotApplicableError("grid: task and processor counts differ")
    return map_grid(graph, machine, method=candidate.method, **_arguments(candidate, problem))


def variant_label(candidate: Candidate, mapping: Mapping | None) -> str:
    """Describe a grid candidate's variant for tables: its options, and what its variant index chose.

    Stack and fold name their stacking and cut dimensions, block its block shape (read
    from the mapping's ``info``); without a mapping (it did not apply) the variant index.

    Examples
    --------
    >>> variant_label(Candidate.make("grid", "sfc", curve="snake", fold_dim=0), None)
    'curve=snake fold_dim=0'
    """
    parts = [f"{k}={v}" for k, v in candidate.options if k != "variant"]
    if candidate.method in ("stack", "fold", "block"):
        if mapping is None:
            parts.append(f"variant={candidate.option('variant')}")
        elif candidate.method == "block":
            parts.append(f"block={'x'.join(map(str, mapping.info['block']))} coarse={mapping.info['coarse']}")
        else:
            parts.append(f"stack_dim={mapping.info['stack_dim']} cut_dim={mapping.info['cut_dim']} "
                         f"base={mapping.info['base']}")
    return " ".join(parts)
