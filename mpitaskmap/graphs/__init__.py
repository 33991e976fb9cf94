"""Task graphs: who talks to whom, how much (layer 2, above the machines).

:mod:`~.taskgraph`: the :class:`TaskGraph` type and its constructors (stencils, matrices,
neighbour lists).  The graphs of one paper sit beside its mapper: the process-topology
analyser of Bhatele et al. in :mod:`mpitaskmap.mappers.grid.analysis`, the PERCS study's
halo and transpose patterns in :mod:`mpitaskmap.mappers.percs.patterns`.
"""

from .taskgraph import TaskGraph, stencil_offsets

__all__ = ["TaskGraph", "stencil_offsets"]
