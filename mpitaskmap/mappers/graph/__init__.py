"""Graph mapping (Deveci, Kaya, Ucar, Catalyurek, UMPa): any task graph onto any machine.

:mod:`~.greedy` (greedy growth UG, two-phase), :mod:`~.umpa` (UMPa's refinement: weighted
hops UWH, congestion UMC/UMMC), :mod:`~.bisection` (dual recursive bisection of tasks and
processors, multilevel), :mod:`~.node_swaps` (the node-swap polish), :mod:`~.node_network`
(the kernels' network object all of them share).
"""

from .bisection import map_bisection
from .greedy import map_greedy
from .umpa import refine_congestion, refine_wh

__all__ = ["map_greedy", "refine_wh", "refine_congestion", "map_bisection"]
