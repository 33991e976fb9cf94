"""mpitaskmap: topology-aware MPI task mapping.

Place communicating tasks on nearby processors of the network.  One sub-package per
layer, from the bottom: the machine model (:mod:`mpitaskmap.machines`), task graphs
(:mod:`mpitaskmap.graphs`), metrics (:mod:`mpitaskmap.metrics`, :mod:`mpitaskmap.mapping`),
the simulated-time replays (:mod:`mpitaskmap.sim`), the mapping algorithms
(:mod:`mpitaskmap.mappers`), the search (:mod:`mpitaskmap.search`: families, scoring, the
judge, :func:`map`), and the front ends: the MPI runtime (:func:`remap`, and MPI's own
calls with the reordering done: :func:`create_cart`, :func:`create_dist_graph_adjacent`;
:mod:`mpitaskmap.runtime`, :mod:`mpitaskmap.providers`), map files, pictures
(:mod:`mpitaskmap.viz`) and the command line.
"""

import logging

from . import _kernels  # noqa: F401  (first: a clear ImportError when the compiled kernels are not built)
from ._version import __version__
from .errors import InvalidInputError, MappingError, NotApplicableError, ProviderError
from .machines import (FlatMachine, LinkLoads, Machine, PercsMachine, TorusMachine, bgq_machine, gemini_bandwidth,
                       hopper_machine, read_machine_file, titan_machine, torus_machine, write_machine_file)
from .graphs import TaskGraph
from .mapping import IDENTITY, Mapping, identity_mapping
from .metrics import METRICS, evaluate
from . import mapfiles
from .mappers import rubik
from .mappers.geometric import map_geometric
from .mappers.graph import map_greedy, refine_congestion, refine_wh
from .search import (FAMILIES, METHODS, Candidate, Problem, best_of, candidate_list, families_for, map, map_regular,
                     method_candidate, score_candidates)


logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "MappingError",
    "InvalidInputError",
    "ProviderError",
    "NotApplicableError",
    "Machine",
    "TorusMachine",
    "PercsMachine",
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
    "create_cart",
    "create_dist_graph_adjacent",
    "__version__",
]


def __getattr__(name):
    # The runtime imports mpi4py (and so initialises MPI); load it only when asked for.
    modules = {"remap": ".runtime.remapping", "RemapReport": ".runtime.report",
               "create_cart": ".runtime.topology_comms", "create_dist_graph_adjacent": ".runtime.topology_comms"}
    if name in modules:
        import importlib

        return getattr(importlib.import_module(modules[name], __name__), name)
    raise AttributeError(f"module 'mpitaskmap' has no attribute {name!r}")
