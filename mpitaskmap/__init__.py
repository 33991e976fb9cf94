"""mpitaskmap: topology-aware MPI task mapping.

Place communicating tasks on nearby processors of the network.  The layers, from the
bottom: the machine model (:mod:`mpitaskmap.machine`, :mod:`mpitaskmap.simulated`,
:mod:`mpitaskmap.machine_file`), task graphs (:mod:`mpitaskmap.taskgraph`), metrics
(:mod:`mpitaskmap.metrics`), mappers returning a :class:`Mapping`, the mapper families as
candidate sources (:mod:`mpitaskmap.families`), the search layer (:mod:`mpitaskmap.search`:
the family table and the one scoring loop), the front end :func:`map` and the MPI runtime
(:func:`remap`).
"""

import logging

from .errors import InvalidInputError, MappingError, NotApplicableError, ProviderError
from .machine import FlatMachine, LinkLoads, Machine, TorusMachine, gemini_bandwidth
from .machine_file import hopper_machine, read_machine_file, write_machine_file
from .mapping import IDENTITY, Mapping, identity_mapping
from . import mapfiles, rubik
from .mappers.geometric import map_geometric
from .mappers.graph import map_greedy, refine_congestion, refine_wh
from .metrics import METRICS, evaluate
from .portfolio import METHODS, map, map_regular, method_candidate
from .problem import Candidate, Problem
from .search import FAMILIES, best_of, candidate_list, families_for, score_candidates
from .simulated import bgq_machine, titan_machine, torus_machine
from .taskgraph import TaskGraph

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "MappingError",
    "InvalidInputError",
    "ProviderError",
    "NotApplicableError",
    "Machine",
    "TorusMachine",
    "FlatMachine",
    "LinkLoads",
    "gemini_bandwidth",
    "read_machine_file",
    "write_machine_file",
    "hopper_machine",
    "torus_machine",
    "titan_machine",
    "bgq_machine",
    "TaskGraph",
    "Mapping",
    "identity_mapping",
    "IDENTITY",
    "METRICS",
    "evaluate",
    "map_geometric",
    "map_greedy",
    "refine_wh",
    "refine_congestion",
    "map",
    "METHODS",
    "method_candidate",
    "map_regular",
    "Problem",
    "Candidate",
    "FAMILIES",
    "families_for",
    "candidate_list",
    "score_candidates",
    "best_of",
    "remap",
    "RemapReport",
    "__version__",
]


def __getattr__(name):
    # The runtime imports mpi4py (and so initialises MPI); load it only when asked for.
    if name in ("remap", "RemapReport"):
        import importlib

        return getattr(importlib.import_module(".runtime", __name__), name)
    raise AttributeError(f"module 'mpitaskmap' has no attribute {name!r}")
