"""The search: which mapping to keep (layer 6, above the mappers).

:mod:`~.problem` (a :class:`Problem` and uniform :class:`Candidate` s), :mod:`~.families`
(each mapper family as ``candidates(problem)`` and ``apply(candidate, problem)``),
:mod:`~.scoring` (the family table, the candidate list, the one scoring loop),
:mod:`~.judge` (replaying the best few), :mod:`~.engine` (the two stages and the judge stage,
written once against an executor), :mod:`~.serial` (the in-process executor, ``best_of``),
:mod:`~.registry` (the table of methods, declared once), :mod:`~.methods`
(:func:`mpitaskmap.map` by method name, ``regular``).
"""

from .methods import METHODS, map, map_regular, method_candidate  # noqa: A004 - the public name is mpitaskmap.map
from .problem import Candidate, Problem
from .scoring import FAMILIES, candidate_list, families_for, score_candidates
from .serial import best_of

__all__ = ["METHODS", "map", "map_regular", "method_candidate", "Candidate", "Problem", "FAMILIES", "best_of",
           "candidate_list", "families_for", "score_candidates"]
