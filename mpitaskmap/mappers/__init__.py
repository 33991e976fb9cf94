"""Mapping algorithms: each takes a TaskGraph and a Machine and returns a Mapping.

One sub-package per published method: :mod:`~.geometric` (Deveci et al.'s Multi-Jagged
geometric mapping: MJ, orderings, coordinate transformations), :mod:`~.graph` (UMPa's greedy
growth and refinement, dual recursive bisection), :mod:`~.grid` (Bhatele et al.'s
regular-grid heuristics), :mod:`~.rubik` (Rubik's box operations), :mod:`~.percs`
(Chakaravarthy et al.'s PERCS strategies).  A mapper never talks MPI; the runtime layer
spreads candidates over ranks.
"""
