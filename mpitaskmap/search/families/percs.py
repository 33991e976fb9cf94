"""The PERCS family: blocking and mod-colouring strategies on two-level direct networks.

Applies to a :class:`~mpitaskmap.machines.percs.PercsMachine` with a 2-D task grid.  Candidates,
in this order: supernode blocking, drawer blocking, node blocking (all sequential) and
mod-colouring.  A strategy whose preconditions fail on the task grid (block sizes that
do not divide it, mod-colouring's P and Q) raises
:class:`~mpitaskmap.errors.NotApplicableError` and is skipped by the search.
"""

from __future__ import annotations

from ...mapping import Mapping
from ...machines.percs import is_percs_machine
from ...mappers.percs import STRATEGIES, map_percs
from ..problem import Candidate, Problem

__all__ = ["candidates", "apply", "SEARCHED"]

#: Strategies the search tries, in this order.
SEARCHED = ("supernode_sequential", "drawer_sequential", "node_sequential", "mod_colouring")


def candidate(strategy: str) -> Candidate:
    """Return the candidate of PERCS strategy ``strategy`` (a key of :data:`~mpitaskmap.mappers.percs.STRATEGIES`)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: unknown {strategy!r}; valid: {sorted(STRATEGIES)}")
    return Candidate.make("percs", strategy)


def candidates(problem: Problem) -> list[Candidate]:
    """Return the searched strategies on a PERCS machine with a 2-D task grid, else ``[]``."""
    if not is_percs_machine(problem.machine) or problem.task_dims != 2:
        return []
    return [candidate(s) for s in SEARCHED]


def apply(candidate: Candidate, problem: Problem) -> Mapping:
    """Map with the candidate's strategy (:func:`~mpitaskmap.mappers.percs.map_percs`); ``seed`` option for random ones."""
    return map_percs(problem.graph, problem.machine, method=candidate.method, seed=candidate.option("seed", 0))
