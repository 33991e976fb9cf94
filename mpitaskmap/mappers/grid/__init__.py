"""Regular-grid mapping (Bhatele, Gupta, Kale, Chung): the pattern analyser and the heuristics.

:mod:`~.analysis` (the process-topology analyser: is a communication matrix a regular
grid?), :mod:`~.onto_2d` (the 2-D to 2-D heuristics), :mod:`~.onto_3d` (2-D to 3-D:
stacking, folding, blocks, space-filling curves), :mod:`~.pairs` (pairwise-exchange
refinement), :mod:`~.heuristics` (one heuristic by name, :func:`map_grid`).
"""

from .heuristics import GRID_METHODS, map_grid

__all__ = ["GRID_METHODS", "map_grid"]
