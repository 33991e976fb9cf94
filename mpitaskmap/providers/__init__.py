"""Coordinate providers: where does this process run?  Local, never collective.

The runtime (``mpitaskmap.remap``) calls a provider on every rank, gathers the answers and
builds the machine.  Providers never communicate; they take the job rank and size
explicitly (``MPI_COMM_WORLD`` rank and size, not those of the communicator being
remapped).

API
---
``NetworkInfo(dims, wrap, bandwidth, dim_names, kind="torus")``
    The network the coordinates live in (frozen, hashable; equal on every rank); with
    ``Location`` and ``assemble_machine`` it lives in :mod:`mpitaskmap.machines.network_record`,
    where each network kind defines its record (:mod:`mpitaskmap.machines.kinds`).
``Location(coords, node)``
    Where one process runs: router coordinate and node string.
``Provider``
    Base class: ``name``, ``spec``, ``rank_addressable``, ``probes``,
    ``locate(rank, size) -> Location``, ``network(*, size=None) -> NetworkInfo``,
    ``check()``.  Failures raise :class:`~mpitaskmap.errors.ProviderError` with a reason;
    malformed specs raise :class:`~mpitaskmap.errors.InvalidInputError`.
``get_provider(spec=None) -> Provider``
    ``None`` -> ``$MPITASKMAP_PROVIDER`` -> ``"auto"``.
``available_providers() -> list[str]``
    The names ``get_provider`` accepts.
``assemble_machine(locations, network, *, name) -> Machine``
    Rank order = list order; node ids by first appearance of each node string;
    validation errors name the rank; the network's kind builds the machine.
``machine_from_provider(provider, size)``
    Offline: the whole job's machine from a rank-addressable provider.

Providers
---------
==============  ===================================================================================
``sim``         the simulated machines of the network kinds (:mod:`.sim`); demos and tests
``file``        a machine file, or ``topology.conf:NODELIST`` (:mod:`.file`, ``$MPITASKMAP_COORDS_FILE``)
``rca``         Cray XE/XK Gemini torus or Cray XC Aries dragonfly via the RCA library (:mod:`.rca`)
``bgq``         IBM Blue Gene/Q via ``MPIX_Rank2torus`` (:mod:`.bgq`)
``fjmpi``       Fujitsu Tofu 6-D torus via ``FJMPI_Topology_get_coords`` (:mod:`.fjmpi`)
``cxi``         HPE Slingshot dragonfly via libfabric's CXI provider (:mod:`.cxi`)
``xname``       HPE Cray EX dragonfly from ``/etc/cray/xname``: cabinet = group, switch approximated
                (:mod:`.xname`)
``slurm``       Slurm's ``SLURM_TOPOLOGY_ADDR``: switch path, block or torus3d (:mod:`.slurm`)
``hostname``    host name only, flat network (:mod:`.hostname`)
``auto``        detection: env -> file -> rca -> bgq -> fjmpi -> cxi -> xname -> slurm -> hostname
                (:mod:`.auto`)
==============  ===================================================================================

Environment
-----------
=================================  ====================================================
``MPITASKMAP_PROVIDER``            provider spec used when none is given (default auto)
``MPITASKMAP_COORDS_FILE``         machine file of the ``file`` provider
``MPITASKMAP_RCA_LIB``             RCA library (default ``librca.so.0``, ``librca.so``)
``MPITASKMAP_CRAY_NID_FILE``       nid file (default ``/proc/cray_xt/nid``)
``MPITASKMAP_CRAY_CNAME_FILE``     cname file of a Cray XC node (default ``/proc/cray_xt/cname``)
``MPITASKMAP_CXI_LIB``             libfabric (default ``libfabric.so.1``, ``libfabric.so``)
``MPITASKMAP_CXI_NIC``             the CXI NIC a rank reports (default: the first libfabric lists)
``MPITASKMAP_XNAME_FILE``          xname file (default ``/etc/cray/xname``)
``MPITASKMAP_FJMPI_LIB``           library with ``FJMPI_Topology_get_coords`` (default: mapped libmpi)
``MPITASKMAP_FJMPI_SHAPE``         Tofu ``XxYxZ`` (default: the job's bounding box, as a mesh)
``MPITASKMAP_BGQ_LIB``             library with the MPIX functions (default: mapped libmpi)
``MPITASKMAP_BGQ_SHAPE``           BG/Q block lengths ``AxBxCxDxE`` (default: job bounding box)
``MPITASKMAP_BGQ_WRAP``            BG/Q wrap flags, ``1`` or ``1x1x1x1x1`` (default all 1)
``SLURM_TOPOLOGY_ADDR``            set by Slurm: the task's switches and node (``slurm``)
``SLURM_TOPOLOGY_ADDR_PATTERN``    set by Slurm: ``switch.switch.node``, ``block.node``, ...
=================================  ====================================================

Examples
--------
>>> p = get_provider("sim:torus:dims=4x4,ppn=2")
>>> locs = [p.locate(r, 8) for r in range(8)]
>>> m = assemble_machine(locs, p.network(), name=p.spec)
>>> m.n_procs, m.n_nodes, m.hops([0, 0], [1, 5]).tolist()
(8, 4, [0, 2])
"""

from ..machines.network_record import Location, NetworkInfo, assemble_machine, assemble_machine_arrays
from ._base import Provider, machine_from_provider
from ._registry import get_provider
from ._spec import available_providers
from .auto import AUTO_ORDER, detect_provider
from .bgq import BgqProvider
from .cxi import CxiProvider
from .file import FileProvider
from .fjmpi import FjmpiProvider
from .hostname import HostnameProvider
from .rca import RcaProvider
from .sim import SimProvider
from .slurm import SlurmProvider
from .xname import XnameProvider

__all__ = [
    "NetworkInfo",
    "Location",
    "Provider",
    "get_provider",
    "available_providers",
    "assemble_machine",
    "assemble_machine_arrays",
    "machine_from_provider",
    "detect_provider",
    "AUTO_ORDER",
    "FileProvider",
    "SimProvider",
    "RcaProvider",
    "BgqProvider",
    "HostnameProvider",
    "SlurmProvider",
    "CxiProvider",
    "XnameProvider",
    "FjmpiProvider",
]
