"""Mapping strategies for IBM PERCS two-level networks: blocking, mod-colouring, transpose.

ALGORITHMS.md section 5 (Chakaravarthy et al., "Mapping Strategies for the PERCS
Architecture").  The machine is :class:`mpitaskmap.machines.PercsMachine`, the study's
traffic patterns are in :mod:`~.patterns`, and :func:`throughput`
is the study's measure (GB/s per node) of a mapping's link loads.
"""

from .colouring import check_perfect_colouring, colouring_defects, mod_colouring, nice_permutation
from .strategies import (BLOCKS, STRATEGIES, map_blocking, map_default, map_mod_colouring, map_percs, map_transpose,
                         throughput)

__all__ = ["nice_permutation", "mod_colouring", "colouring_defects", "check_perfect_colouring", "BLOCKS", "STRATEGIES",
           "map_default", "map_blocking", "map_mod_colouring", "map_transpose", "map_percs", "throughput"]
