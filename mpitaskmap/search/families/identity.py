"""The identity family: the default order (task ``t`` on processor ``t``), candidate 0 of
every search so the result is never worse than the default by the chosen metric."""

from __future__ import annotations

from ...mapping import Mapping, identity_mapping
from ..problem import IDENTITY, Candidate, Problem

__all__ = ["candidates", "apply", "CANDIDATE"]

#: The one identity candidate.
CANDIDATE = Candidate(IDENTITY, IDENTITY, title="identity (default order)")


def candidates(problem: Problem) -> list[Candidate]:
    """Return ``[CANDIDATE]``: the default order applies to every problem."""
    return [CANDIDATE]


def apply(candidate: Candidate, problem: Problem) -> Mapping:
    """Return the default order of ``problem`` (:func:`~mpitaskmap.mapping.identity_mapping`)."""
    return identity_mapping(problem.graph, problem.machine, oversubscribe=problem.oversubscribe)
