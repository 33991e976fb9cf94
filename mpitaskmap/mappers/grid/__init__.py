"""Regular-grid heuristics (Bhatele, Gupta, Kale, Chung): 2-D object grids onto 2-D/3-D meshes.

:mod:`~.onto_2d` (the 2-D to 2-D heuristics), :mod:`~.onto_3d` (2-D to 3-D: stacking,
folding, blocks, space-filling curves), :mod:`~.pairs` (pairwise-exchange refinement),
:mod:`~.heuristics` (one heuristic by name, :func:`map_grid`).  The pattern analyser that
decides whether a graph is a regular grid is :mod:`mpitaskmap.graphs.grid_analysis`.
"""

from .heuristics import GRID_METHODS, map_grid

__all__ = ["GRID_METHODS", "map_grid"]
