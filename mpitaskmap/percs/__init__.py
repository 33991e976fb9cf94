"""Two-level direct networks (IBM PERCS / Power 775): model, routing, patterns, strategies.

ALGORITHMS.md section 5.  :class:`PercsMachine` is a :class:`~mpitaskmap.machine.Machine`
whose :meth:`~PercsMachine.link_loads` returns the exact per-link loads under striped
intra-supernode routing and direct or indirect inter-supernode routing, as a
:class:`PercsLinkLoads` with per-class maxima, throughput and bottleneck.  The blocking
and mod-colouring strategies are the candidate family ``"percs"``
(:mod:`mpitaskmap.families.percs`).

Examples
--------
>>> from mpitaskmap.percs import PercsMachine, halo_graph, map_blocking
>>> g = halo_graph(64, 64)
>>> m = map_blocking(g, PercsMachine(32, 2), level="supernode")
>>> loads = m.machine.link_loads(g.indptr, g.indices, g.weights, m.task_to_proc)
>>> loads.throughput(), loads.bottleneck()   # 10 * n_d GB/s, D-bound
(20.0, 'D')
"""

from .machine import EMBEDDING_SPACING, PercsMachine
from .network import (
    D_BANDWIDTH,
    LINK_CLASSES,
    LL_BANDWIDTH,
    LR_BANDWIDTH,
    VALID_N_D,
    PercsLinkLoads,
    bucket_width,
    d_link_node,
)
from .routing import ROUTINGS, percs_link_loads
from .patterns import grid_shape, halo_graph, transpose_graph
from .colouring import check_perfect_colouring, colouring_defects, mod_colouring, nice_permutation
from .strategies import (
    BLOCKS,
    STRATEGIES,
    map_blocking,
    map_default,
    map_mod_colouring,
    map_percs,
    map_transpose,
)

__all__ = [
    "PercsMachine",
    "PercsLinkLoads",
    "percs_link_loads",
    "d_link_node",
    "bucket_width",
    "ROUTINGS",
    "VALID_N_D",
    "LINK_CLASSES",
    "LL_BANDWIDTH",
    "LR_BANDWIDTH",
    "D_BANDWIDTH",
    "EMBEDDING_SPACING",
    "halo_graph",
    "transpose_graph",
    "grid_shape",
    "nice_permutation",
    "mod_colouring",
    "colouring_defects",
    "check_perfect_colouring",
    "BLOCKS",
    "STRATEGIES",
    "map_default",
    "map_blocking",
    "map_mod_colouring",
    "map_transpose",
    "map_percs",
]
