"""Graph mapping (Deveci, Kaya, Ucar, Catalyurek, UMPa): any task graph onto any machine.

:mod:`~.greedy` (greedy growth, weighted-hop refinement, congestion refinement UMC/UMMC),
:mod:`~.bisection` (dual recursive bisection of tasks and processors, multilevel).
"""

from .bisection import map_bisection
from .greedy import map_greedy, refine_congestion, refine_wh

__all__ = ["map_greedy", "refine_wh", "refine_congestion", "map_bisection"]
