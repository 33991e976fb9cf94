"""Task graphs: who talks to whom, how much (layer 2, above the machines).

:mod:`~.taskgraph` (the :class:`TaskGraph` type and its constructors: stencils, matrices,
neighbour lists), :mod:`~.grid_analysis` (the process-topology analyser of Bhatele et al.:
is a communication matrix a regular grid?), :mod:`~.percs_patterns` (the halo and transpose
patterns of the PERCS study).
"""

from .taskgraph import TaskGraph, stencil_offsets

__all__ = ["TaskGraph", "stencil_offsets"]
