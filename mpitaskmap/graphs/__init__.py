"""Task graphs: who talks to whom, how much (layer 2, above the machines).

:mod:`~.taskgraph`: the :class:`TaskGraph` type and its constructors (stencils, matrices,
neighbour lists, files: :meth:`TaskGraph.from_file`).  :mod:`~.graph_files` parses graph files (matrices,
recordings); :mod:`~.recording` traffic recordings (the PMPI recorder's, Open MPI's monitoring) as
one round of the recorded run.  The graphs of one paper sit beside its mapper: the process-topology
analyser of Bhatele et al. in :mod:`mpitaskmap.mappers.grid.analysis`, the PERCS study's
halo and transpose patterns in :mod:`mpitaskmap.mappers.percs.patterns`.
"""

from .taskgraph import TaskGraph, stencil_offsets
from .recording import Recording, read_ompi_monitoring, read_recording

__all__ = ["TaskGraph", "stencil_offsets", "Recording", "read_recording", "read_ompi_monitoring"]
