"""Simulated time of an exchange on the machine's links (layer 4, above the metrics).

:mod:`~.fluid` (SimGrid's flow-level network models computed in-process: the judge's
replay), :mod:`~.simgrid` (SimGrid platforms from any machine with links, and SMPI runs),
:mod:`~.simgrid_replay` (an exchange replayed by SimGrid itself).  SimGrid is optional.
"""
