"""The machine layer: allocated processors and the network that joins them.

:mod:`~mpitaskmap.machines.base` holds the contract every network kind fulfils (hops, links,
routes, link loads), :mod:`~.links` the routes and loads it returns, :mod:`~.views` the
machine seen node by node and as a grid; each kind is one module: :mod:`~.torus` (n-D torus or
mesh), :mod:`~.flat` (host names only), :mod:`~.percs` (IBM PERCS two-level network), :mod:`~.fattree` (fat trees of
switches), :mod:`~.dragonfly` (Slingshot and Aries dragonflies; :mod:`~.dragonfly_presets` their simulated allocations);
:mod:`~.two_level` is the group-level routing that PERCS and the dragonflies share.
:mod:`~.presets` and :mod:`~.fattree_presets` build simulated allocations of real machines,
:mod:`~.slurm_topology` reads Slurm's switch trees (:mod:`~.hostlist` its host lists), :mod:`~.machine_file` reads
and writes allocations, :mod:`~.hosts` names their nodes.
"""

from .base import Machine, as_machine, require_router_grid
from .links import BANDWIDTH_UNIT, LinkLoads, Routes
from .views import MAX_MATRIX_NODES, BoxShape, NodeHierarchy, NodeView, default_dim_names, strides
from .flat import FlatMachine
from .fattree import FatTreeMachine
from .dragonfly import DragonflyMachine
from .two_level import GroupPaths, group_paths
from .hosts import DEFAULT_HOST_FORMAT, host_names
from .machine_file import hopper_machine, read_machine_file, write_machine_file
from .percs import PercsMachine
from .presets import bgq_machine, titan_machine, torus_machine
from .torus import TorusMachine, gemini_bandwidth

__all__ = [
    "Machine", "as_machine", "require_router_grid", "LinkLoads", "Routes", "NodeView", "NodeHierarchy", "FatTreeMachine",
    "DragonflyMachine", "GroupPaths", "group_paths", "BoxShape", "MAX_MATRIX_NODES", "BANDWIDTH_UNIT", "strides",
    "default_dim_names", "TorusMachine", "gemini_bandwidth", "FlatMachine", "PercsMachine", "DEFAULT_HOST_FORMAT",
    "host_names", "read_machine_file", "write_machine_file", "hopper_machine", "torus_machine", "titan_machine",
    "bgq_machine",
]
