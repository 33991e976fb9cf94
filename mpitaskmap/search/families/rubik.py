"""The Rubik family: the task grid as a Rubik box mapped onto the allocation's box, then permuted.

Applies where Rubik's model fits (ALGORITHMS.md section 6): the task graph is a regular
grid (:attr:`~mpitaskmap.search.problem.Problem.grid_pattern`) with one task per processor, and
the machine is a full box of routers starting at router ``(0, ..., 0)`` with the same
number of cores on each (:meth:`~mpitaskmap.machines.TorusMachine.box_shape`).  The task
grid becomes the application box (task ``t`` is Rubik rank ``t``: the grid's dimension 0,
fastest in our numbering, is the box's last axis, fastest in Rubik's scan order); the
network box is the router box with the cores as a last axis.  Candidates, in this order:

* ``map``: ``network.map(app)``, Rubik's scan-line placement;
* ``tilt``: then ``tilt(axis, direction, 1)`` for every ordered pair of network axes of
  length > 1 (cores excluded), which spreads each plane over more links (applied alone,
  ``axis`` 0 and ``direction`` 1 by default);
* ``zorder``: then Morton order over the whole network box.
"""

from __future__ import annotations

import itertools

from ...errors import NotApplicableError
from ...mapping import Mapping
from ..problem import Candidate, Problem
from ...mappers.rubik import box

__all__ = ["candidates", "apply", "METHODS"]

#: Methods of the family.
METHODS = ("map", "tilt", "zorder")


def _network_shape(problem: Problem) -> tuple[int, ...] | None:
    """The network box's shape, or None where Rubik's model does not fit."""
    m, pattern = problem.machine, problem.grid_pattern
    if not m.has_router_grid or not pattern.regular or problem.graph.n_tasks != m.n_procs:
        return None
    try:
        b = m.box_shape()
    except NotApplicableError:
        return None
    if any(b.origin):
        return None
    return tuple(b.lengths) + ((b.cores,) if b.cores > 1 else ())


def candidates(problem: Problem) -> list[Candidate]:
    """Return the Rubik candidates of ``problem`` (see the module docstring), or ``[]``.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine
    >>> [c.label() for c in candidates(Problem(TaskGraph.stencil([4, 4]), torus_machine([4, 2, 2])))]
    ['rubik map', 'rubik tilt axis=0 direction=1', 'rubik tilt axis=0 direction=2', 'rubik tilt axis=1 direction=0', \
'rubik tilt axis=1 direction=2', 'rubik tilt axis=2 direction=0', 'rubik tilt axis=2 direction=1', 'rubik zorder']
    """
    shape = _network_shape(problem)
    if shape is None:
        return []
    routers = [k for k in range(problem.machine.n_dims) if shape[k] > 1]
    out = [Candidate.make("rubik", "map")]
    out += [Candidate.make("rubik", "tilt", axis=a, direction=d) for a, d in itertools.permutations(routers, 2)]
    out.append(Candidate.make("rubik", "zorder"))
    return out


def apply(candidate: Candidate, problem: Problem) -> Mapping:
    """Build the Rubik program of ``candidate`` and return its placement.

    Raises
    ------
    NotApplicableError
        Where Rubik's model does not fit this problem (see the module docstring).
    """
    shape = _network_shape(problem)
    if shape is None:
        raise NotApplicableError("rubik: needs a regular task grid with one task per processor of a full box "
                                 "allocation starting at router 0")
    app = box(list(problem.grid_pattern.dims)[::-1])
    net = box(list(shape))
    net.map(app)
    if candidate.method == "tilt":
        net.tilt(candidate.option("axis", 0), candidate.option("direction", 1), 1)
    elif candidate.method == "zorder":
        net.zorder()
    elif candidate.method != "map":
        raise ValueError(f"method: unknown rubik method {candidate.method!r}; valid: {list(METHODS)}")
    mapping = net.to_mapping(problem.machine, problem.graph)
    mapping.method = candidate.label()
    return mapping
