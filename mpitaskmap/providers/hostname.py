"""Node-only provider for clusters without network coordinates (not collective).

Each process reports its host name (``socket.gethostname()``, what MPICH and Open MPI
return from ``MPI_Get_processor_name``) and no router coordinate.  The network is
``kind="flat"``: processes on one node are 0 hops apart, processes on different nodes 1
hop.  A node index cannot be computed locally (it needs every rank's host name), so the
provider returns ``coords=()`` and :func:`~mpitaskmap.providers.assemble_machine` numbers
the nodes after the gather.

A :class:`~mpitaskmap.machines.TorusMachine` cannot express a flat network at scale:
``(node_index,)`` on a 1-D mesh or ring makes hops grow with index distance, and an exact
embedding (one length-2 dimension per node, all pairs 2 hops apart) needs as many
dimensions as nodes.  ``assemble_machine`` therefore builds the node-only
``mpitaskmap.machines.FlatMachine`` for this network.
"""

from __future__ import annotations

import socket

from ..errors import ProviderError
from ._base import Location, NetworkInfo, Provider, check_rank

__all__ = ["HostnameProvider", "FLAT_NETWORK"]

#: The network of the hostname provider: no dimensions, nodes only.
FLAT_NETWORK = NetworkInfo(dims=(), wrap=(), bandwidth=None, dim_names=None, kind="flat")


class HostnameProvider(Provider):
    """Report this process's host name as its node, with no coordinates.

    Not collective.  Describes the calling process whatever ``rank`` is.

    Examples
    --------
    >>> loc = HostnameProvider().locate(0, 1)
    >>> loc.coords, loc.node == socket.gethostname()
    ((), True)
    """

    name = "hostname"
    rank_addressable = False

    def locate(self, rank: int, size: int) -> Location:
        """Return ``Location((), hostname)`` for the calling process.

        Raises
        ------
        ProviderError
            If the host name is empty.
        """
        check_rank(rank, size)
        host = socket.gethostname()
        if not host:
            raise ProviderError("hostname: socket.gethostname() returned an empty name")
        return Location((), host)

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the flat (node-only) network."""
        return FLAT_NETWORK
