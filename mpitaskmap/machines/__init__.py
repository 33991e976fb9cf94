"""The machine layer: allocated processors and the network that joins them.

:mod:`~mpitaskmap.machines.base` holds the contract every network kind fulfils (hops, links,
routes, link loads), :mod:`~.links` the routes and loads it returns, :mod:`~.views` the
machine seen node by node and as a grid.  Each network kind is one sub-package that registers
itself (:mod:`~.kinds`): :mod:`~.flat` (host names only), :mod:`~.torus` (n-D torus or mesh),
:mod:`~.percs` (IBM PERCS two-level network), :mod:`~.fattree` (fat trees of switches, Slurm's
topology), :mod:`~.dragonfly` (Slingshot and Aries dragonflies); :mod:`~.two_level` is the
group-level routing that PERCS and the dragonflies share.  :mod:`~.network_record` is what a
provider gathers and how a job's machine is assembled from it, :mod:`~.specs` the one machine-spec
parser, :mod:`~.machine_file` reads and writes allocations, :mod:`~.hosts` names their nodes.
"""

from .base import Machine, as_machine, require_router_grid
from .links import BANDWIDTH_UNIT, LinkLoads, Routes
from .views import MAX_MATRIX_NODES, BoxShape, NodeHierarchy, NodeView, default_dim_names, strides
from .kinds import NetworkKind, known_kinds, network_kind, register_kind
from .network_record import Location, NetworkInfo, assemble_machine, assemble_machine_arrays
# the kinds register themselves on import, in this order (the order known_kinds() names them)
from .flat import FlatMachine
from .torus import TorusMachine, bgq_machine, gemini_bandwidth, hopper_machine, titan_machine, torus_machine
from .percs import PercsMachine
from .fattree import FatTreeMachine
from .dragonfly import DragonflyMachine
from .two_level import GroupPaths, group_paths
from .hosts import DEFAULT_HOST_FORMAT, host_names
from .machine_file import read_machine_file, write_machine_file
from .specs import MachineSpec, machine_from_spec

__all__ = [
    "Machine", "as_machine", "require_router_grid", "LinkLoads", "Routes", "NodeView", "NodeHierarchy", "FatTreeMachine",
    "DragonflyMachine", "GroupPaths", "group_paths", "BoxShape", "MAX_MATRIX_NODES", "BANDWIDTH_UNIT", "strides",
    "default_dim_names", "TorusMachine", "gemini_bandwidth", "FlatMachine", "PercsMachine", "DEFAULT_HOST_FORMAT",
    "host_names", "read_machine_file", "write_machine_file", "hopper_machine", "torus_machine", "titan_machine",
    "bgq_machine", "NetworkKind", "register_kind", "network_kind", "known_kinds", "NetworkInfo", "Location",
    "assemble_machine", "assemble_machine_arrays", "machine_from_spec", "MachineSpec",
]
