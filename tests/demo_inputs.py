"""The README demo's job as a test input: ``examples/minighost.py``'s task graph on a provider's machine.

The demo (``mpiexec -n 16 python -m mpi4py examples/minighost.py --provider SPEC``) remaps 16
ranks, a 4x2x2 task grid of 12^3 cells x 4 variables each (faces of 12 x 12 x 4 x 8 =
4,608 bytes), on the machine the provider assembles.  :func:`minighost_input` builds the same
task graph and machine serially, with the example's own functions, so that a serial search
(``mpitaskmap.map``) and ``remap()`` under ``mpiexec`` see one input.
"""

from __future__ import annotations

import pathlib
import sys

import mpitaskmap as mt
from mpitaskmap.providers import assemble_machine, get_provider

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"

#: The demo's task grid at 16 ranks (``MPI.Compute_dims(16, 3)``) and its face bytes.
GRID, SIZE, FACE_BYTES = (4, 2, 2), 16, 12 * 12 * 4 * 8.0

#: The README's dragonfly walkthrough: the demo on 8 nodes of a simulated Frontier, 2 ranks a node.
FRONTIER = "sim:frontier:nodes=8,ppn=2,seed=1"
#: The README's main demo: a sparse simulated Titan, one rank a node.
TITAN = "sim:titan:ppn=1,seed=1"


def minighost():
    """The example module ``examples/minighost.py``."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        import minighost as module
    finally:
        sys.path.pop(0)
    return module


def minighost_task(rank: int) -> tuple[tuple, list, list]:
    """Rank ``rank``'s (coords, neighbors, weights) as the demo passes them to ``remap()``."""
    mg = minighost()
    neighbors = mg.face_neighbors(rank, GRID)
    return mg.task_coords(rank, GRID), neighbors, [FACE_BYTES] * len(neighbors)


def minighost_input(spec: str):
    """The demo's (task graph, machine) for provider ``spec``, built as ``examples/minighost.py`` builds them."""
    mg = minighost()
    provider = get_provider(spec)
    machine = assemble_machine([provider.locate(r, SIZE) for r in range(SIZE)], provider.network(size=SIZE),
                               name=provider.spec)
    graph = mt.TaskGraph.from_neighbor_lists(
        [mg.face_neighbors(t, GRID) for t in range(SIZE)],
        [[FACE_BYTES] * len(mg.face_neighbors(t, GRID)) for t in range(SIZE)],
        coords=[mg.task_coords(t, GRID) for t in range(SIZE)])
    return graph, machine
