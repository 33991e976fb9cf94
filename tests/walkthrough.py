"""The input of the README's SimGrid walkthrough, shared by the graph-family tests.

``mpitaskmap simgrid -m sim:titan:ppn=8,seed=1 -t stencil3d:8x8x8:weight=2560``: 512 ranks,
8 per node, of a sparse simulated Titan allocation (64 nodes of a 25x16x24 Gemini torus,
links 75 / 37.5 / 120 per unit time in X / Y / Z), and the 7-point 8x8x8 stencil whose
messages are 2,560 bytes.  The same machine and graph as the command line builds them
(``mpitaskmap.cli._inputs``: the provider's machine for 512 ranks, ``TaskGraph.stencil``).
"""

from mpitaskmap import TaskGraph
from mpitaskmap.providers import get_provider, machine_from_provider


def walkthrough_input():
    """Return ``(graph, machine)`` of the walkthrough."""
    machine = machine_from_provider(get_provider("sim:titan:ppn=8,seed=1"), 512)
    return TaskGraph.stencil([8, 8, 8], weight=2560.0), machine
