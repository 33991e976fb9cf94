"""Where a Slurm task runs, from the topology address Slurm puts in its environment (not collective).

Where Slurm runs a topology plugin, ``slurmstepd`` gives every task of a step
``SLURM_TOPOLOGY_ADDR`` and ``SLURM_TOPOLOGY_ADDR_PATTERN`` (no privilege needed;
:func:`~mpitaskmap.machines.fattree.slurm_topology.parse_topology_addr` reads them):

==================  =========================  ==============================================
plugin              pattern                    the rank's location
==================  =========================  ==============================================
topology/tree       ``switch.switch.node``     node key = the whole address (``s0.s12.n17``)
                                               in a ``"fattree"`` network with the pattern
topology/block      ``block.node``             node key = ``b3.n12``: the block is a leaf
                                               switch, the blocks hang below one root
topology/torus3d    ``torus:x:y:z.node``       router ``(x, y, z)`` on a 3-D torus of
                                               ``dims=XxYxZ`` (the spec's; Slurm's address
                                               does not say the torus's size)
none (flat)         ``node``                   the node name in a flat network
==================  =========================  ==============================================

The pattern is part of the network (:func:`~mpitaskmap.machines.fattree.fattree_network`),
so ranks whose trees differ in depth or plugin fail the runtime's network check on every
rank alike; a rank without the variables raises :class:`~mpitaskmap.errors.ProviderError`,
which ``remap()`` agrees on like any other provider error.  The machine
(:func:`~mpitaskmap.machines.fattree.slurm_topology.fattree_from_node_paths`) is the part of the
tree the job's nodes span: a node's link has ``bw`` GB/s, a switch's up-link the links
below it over ``taper`` (default 1, full bisection: Slurm does not tell the taper).

Spec: ``slurm[:taper=4,bw=12.5,routing=dmodk|ecmp,dims=XxYxZ]``.  ``auto`` tries it after
the vendor providers and before ``hostname``; its :meth:`SlurmProvider.check` fails (and
``auto`` moves on, recording why) when the variables are absent, when the pattern is
``node`` (Slurm knows no switches: the host name says as much), or when a torus3d address
comes without ``dims``.
"""

from __future__ import annotations

from .._options import parse_choice, parse_float, parse_lengths
from ..errors import InvalidInputError, ProviderError
from ..machines.fattree import FAT_TREE_ROUTINGS, fattree_network
from ..machines.fattree.slurm_topology import TopologyAddress, parse_topology_addr
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import read_env
from .hostname import FLAT_NETWORK

__all__ = ["SlurmProvider", "SLURM_KEYS", "ADDR_VARIABLE", "PATTERN_VARIABLE"]

#: Keys of the ``slurm`` spec.
SLURM_KEYS = ("taper", "bw", "routing", "dims")
#: The variables Slurm sets in every task's environment.
ADDR_VARIABLE = "SLURM_TOPOLOGY_ADDR"
PATTERN_VARIABLE = "SLURM_TOPOLOGY_ADDR_PATTERN"


class SlurmProvider(Provider):
    """Locate this task by ``SLURM_TOPOLOGY_ADDR`` / ``SLURM_TOPOLOGY_ADDR_PATTERN`` (module notes).

    Not collective; describes the calling process whatever ``rank`` is.

    Parameters
    ----------
    taper : float or str, optional
        Down-link over up-link capacity of every switch (default 1).
    bw : float or str, optional
        GB/s of a node's link (default 12.5, HDR100 / 100 GbE); on a torus3d, of every link.
    routing : {"dmodk", "ecmp"}, optional
        Up/down routing of the tree (default ``"dmodk"``).
    dims : str or sequence of 3 int, optional
        ``XxYxZ`` of the torus (topology/torus3d only; its ``topology.yaml`` ``dims``).

    Raises
    ------
    InvalidInputError
        On a bad option value, naming it.

    Examples
    --------
    >>> import os
    >>> os.environ.update(SLURM_TOPOLOGY_ADDR="s0.s12.node0417", SLURM_TOPOLOGY_ADDR_PATTERN="switch.switch.node")
    >>> p = SlurmProvider(taper="4")
    >>> p.spec, p.locate(3, 8)
    ('slurm:taper=4', Location(coords=(), node='s0.s12.node0417'))
    >>> p.network().options
    (('pattern', 'switch.switch.node'), ('taper', 4.0), ('bandwidth', 12.5), ('routing', 'dmodk'))
    >>> del os.environ["SLURM_TOPOLOGY_ADDR"], os.environ["SLURM_TOPOLOGY_ADDR_PATTERN"]
    """

    name = "slurm"
    rank_addressable = False

    def __init__(self, taper=None, bw=None, routing=None, dims=None) -> None:
        super().__init__()
        given = {k: v for k, v in (("taper", taper), ("bw", bw), ("routing", routing), ("dims", dims)) if v is not None}
        self._record_options(given)
        what = f"provider {self.spec!r}"
        self.taper = parse_float(given.get("taper", 1.0), "taper", what)
        self.bandwidth = parse_float(given.get("bw", 12.5), "bw", what)
        for key, value in (("taper", self.taper), ("bw", self.bandwidth)):
            if value <= 0:
                raise InvalidInputError(f"{what}: {key} must be positive; got {value:g}")
        self.routing = parse_choice(given.get("routing", "dmodk"), "routing", what, FAT_TREE_ROUTINGS)
        self.dims = parse_lengths(given["dims"], "dims", what, n=3) if "dims" in given else None
        self._parsed: tuple | None = None  # ((address, pattern), TopologyAddress) of the last address()

    def address(self) -> TopologyAddress:
        """Return this task's parsed topology address.

        Raises
        ------
        ProviderError
            If a variable is missing, the address does not match its pattern, a tree
            address has an empty component (leaves at different depths), or a torus3d
            address comes without ``dims`` or lies outside them.
        """
        addr, pattern = read_env(ADDR_VARIABLE), read_env(PATTERN_VARIABLE)
        if addr is None:
            raise ProviderError(f"slurm: {ADDR_VARIABLE} is not set (not a task of a Slurm step, or Slurm older than "
                                "its topology variables)")
        if pattern is None:
            raise ProviderError(f"slurm: {ADDR_VARIABLE}={addr} is set but {PATTERN_VARIABLE} is not")
        if self._parsed is not None and self._parsed[0] == (addr, pattern):
            return self._parsed[1]  # check(), locate() and network() all ask: the address is parsed once
        try:
            out = parse_topology_addr(addr, pattern)
        except InvalidInputError as exc:
            raise ProviderError(f"slurm: {exc}") from None
        if out.plugin == "tree" and not all(out.path):
            level = len(out.path) - 1 - out.path.index("")
            raise ProviderError(f"slurm: {ADDR_VARIABLE}={addr} has no switch at level {level} ({PATTERN_VARIABLE}="
                                f"{pattern}): a tree whose leaves hang at different depths is not modelled")
        if out.plugin == "torus3d":
            if self.dims is None:
                raise ProviderError(f"slurm: {ADDR_VARIABLE}={addr} is on the 3-D torus {out.path[0]!r}, whose size "
                                    "Slurm's address does not give: pass dims=XxYxZ (topology.yaml's dims), e.g. "
                                    "MPITASKMAP_PROVIDER=slurm:dims=4x4x2")
            outside = [k for k in range(3) if out.coords[k] >= self.dims[k]]
            if outside:
                k = outside[0]
                raise ProviderError(f"slurm: {ADDR_VARIABLE}={addr}: coordinate {'xyz'[k]}={out.coords[k]} lies "
                                    f"outside dims {'x'.join(map(str, self.dims))}")
        self._parsed = ((addr, pattern), out)
        return out

    def check(self) -> None:
        """Raise ProviderError unless Slurm gives this task a topology address with switches, blocks or a torus."""
        if self.address().plugin == "node":
            raise ProviderError(f"slurm: {PATTERN_VARIABLE}=node: Slurm knows no switches here (no topology plugin), "
                                "as much as the host name says")

    def locate(self, rank: int, size: int) -> Location:
        """Return this task's location (module notes); ``rank`` and ``size`` are only checked.

        Raises
        ------
        ProviderError
            As :meth:`address`.
        """
        check_rank(rank, size)
        addr = self.address()
        if addr.plugin == "torus3d":
            return Location(addr.coords, addr.node)
        if addr.plugin == "node":
            return Location((), addr.node)
        return Location((), ".".join(addr.path + (addr.node,)))

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the network of this task's address: a ``"fattree"`` with its pattern, a torus, or flat."""
        addr = self.address()
        if addr.plugin == "torus3d":
            return NetworkInfo(dims=self.dims, wrap=True, bandwidth=self.bandwidth, dim_names=("X", "Y", "Z"),
                               options=(("torus", addr.path[0]),))
        if addr.plugin == "node":
            return FLAT_NETWORK
        return fattree_network(read_env(PATTERN_VARIABLE), taper=self.taper, bandwidth=self.bandwidth,
                               routing=self.routing)
