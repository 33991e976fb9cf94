"""Geometric task mapping (Deveci et al.): Multi-Jagged partitioning of task and processor coordinates.

:mod:`~.mj` (the MJ partitioner and its part orderings Z/Gray/FZ/MFZ/Hilbert),
:mod:`~.transforms` (rotations, torus shift, bandwidth scaling, boxes), :mod:`~.mapper`
(:func:`map_geometric`: both sides partitioned, parts matched), :mod:`~.options` (its options,
declared once for the mapper, the search and the method table).
"""

from .mapper import map_geometric, processor_coords
from .mj import ORDERINGS, mj_partition

__all__ = ["map_geometric", "processor_coords", "ORDERINGS", "mj_partition"]
