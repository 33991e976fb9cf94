"""HPE Cray EX node positions from the node's xname, ``/etc/cray/xname`` (not collective).

An HPE Cray EX compute node names itself in ``/etc/cray/xname``, e.g. ``x1016c2s3b0n1``:
cabinet 1016, chassis 2, compute blade slot 3, node board 0, node 1.  The cabinet is the
dragonfly group on these machines (a Slingshot group is a cabinet), so the xname is a
fallback where libfabric's ``cxi`` provider cannot answer (no libfabric, a domain that does
not open).

**What it tells, what it cannot.**  Known: the group (the cabinet) and where the node sits
in it.  Not known, assumed and said (:data:`~mpitaskmap.machines.dragonfly.xname.XNAME_APPROXIMATION`
in the machine's name, and a warning on rank 0 when a rank is located):

* the switch of a node: taken as its compute blade slot, ``switch = chassis * slots +
  slot`` within the cabinet (64 switches of a group with the default shape; Frontier's
  cabinet has 32, two blades on each), the node's position on it ``board *
  nodes_per_board + node``;
* the wiring inside a group: all-to-all, as Slingshot's;
* the global links: ``global_links`` (default 1) between every pair of groups;
* the group numbers: the job's cabinets in ascending number are groups 0, 1, ... of a
  machine of ``n_groups`` groups (default: the job's cabinets, at least 2).

The node key of a rank is its xname; every rank assembles the same machine from the
gathered xnames (:func:`~mpitaskmap.machines.dragonfly.xname.xname_dragonfly_network`).

Spec: ``xname[:file=PATH,chassis=8,slots=8,boards=2,nodes_per_board=2,n_groups=,
global_links=1,global_ports=,bw=25,routing=minimal]``; ``auto`` tries it after ``cxi``.

Environment
-----------
``MPITASKMAP_XNAME_FILE``
    File holding this node's xname (default ``/etc/cray/xname``; for tests).
"""

from __future__ import annotations

import logging

from .._options import parse_choice, parse_float, parse_int
from ..errors import InvalidInputError, ProviderError
from ..machines.dragonfly import DRAGONFLY_ROUTINGS
from ..machines.dragonfly.xname import XNAME_APPROXIMATION, parse_xname, xname_dragonfly_network, xname_place
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import read_env

__all__ = ["XnameProvider", "XNAME_KEYS", "DEFAULT_XNAME_FILE", "parse_xname"]

logger = logging.getLogger(__name__)

DEFAULT_XNAME_FILE = "/etc/cray/xname"
#: Keys of the ``xname`` spec.
XNAME_KEYS = ("file", "chassis", "slots", "boards", "nodes_per_board", "n_groups", "global_links", "global_ports",
              "bw", "routing")
#: Default counts per cabinet (an HPE Cray EX liquid-cooled cabinet): chassis, slots, boards, nodes_per_board.
_SHAPE_DEFAULTS = (("chassis", 8), ("slots", 8), ("boards", 2), ("nodes_per_board", 2))
_XNAME_MAX_CHARS = 256

class XnameProvider(Provider):
    """Locate this node on an HPE Cray EX dragonfly by its xname (module notes: what is assumed).

    Not collective; describes the calling process whatever ``rank`` is.

    Parameters
    ----------
    file : str, optional
        File holding the xname; default ``$MPITASKMAP_XNAME_FILE``, else ``/etc/cray/xname``.
    chassis, slots, boards, nodes_per_board : int or str, optional
        Chassis per cabinet, compute blade slots per chassis, node boards per blade, nodes
        per board (default 8, 8, 2, 2); a field of an xname at or above its count is an error.
    n_groups : int or str, optional
        Groups of the machine (default: the job's cabinets, at least 2).
    global_links, global_ports : int or str, optional
        As :class:`~mpitaskmap.machines.DragonflyMachine` (default 1 link per pair of groups).
    bw : float or str, optional
        GB/s of every link (default 25).
    routing : {"minimal", "ecmp", "valiant", "ugal", "either"}, optional

    Raises
    ------
    InvalidInputError
        On a bad option value, naming it.

    Examples
    --------
    >>> p = XnameProvider(n_groups=4)
    >>> p.spec, p.network().options[0]
    ('xname:n_groups=4', ('xname', (8, 8, 2, 2)))
    """

    name = "xname"
    rank_addressable = False

    def __init__(self, **options) -> None:
        super().__init__()
        o, what = self._read_options(options, XNAME_KEYS)
        self._file_arg = o.get("file")
        self.shape = tuple(parse_int(o.get(k, d), k, what) for k, d in _SHAPE_DEFAULTS)
        n_groups = parse_int(o["n_groups"], "n_groups", what, minimum=2) if "n_groups" in o else None
        links = parse_int(o.get("global_links", 1), "global_links", what)
        ports = parse_int(o["global_ports"], "global_ports", what) if "global_ports" in o else None
        bw = parse_float(o.get("bw", 25.0), "bw", what, positive=True)
        routing = parse_choice(o.get("routing", "minimal"), "routing", what, DRAGONFLY_ROUTINGS)
        if routing == "valiant" and (n_groups or 0) < 3:
            raise InvalidInputError(f"{what}: routing 'valiant' needs an intermediate group: pass n_groups= (at "
                                    "least 3; the job's cabinets are not known to one rank)")
        self._network = xname_dragonfly_network(self.shape, n_groups=n_groups, global_links=links,
                                                global_ports=ports, bandwidth=bw, routing=routing)
        self._warned = False

    @property
    def xname_file(self) -> str:
        """Path of the file this provider reads the xname from."""
        return self._file_arg or read_env("MPITASKMAP_XNAME_FILE") or DEFAULT_XNAME_FILE

    def xname(self) -> str:
        """Return this node's xname, checked against the cabinet's shape.

        Raises
        ------
        ProviderError
            If the file is missing or unreadable, or does not hold exactly one node xname
            within the shape (the message names the file and what is wrong).
        """
        path = self.xname_file
        try:
            with open(path, "r", encoding="ascii", errors="replace") as fh:
                text = fh.read(_XNAME_MAX_CHARS + 1)
        except OSError as exc:
            raise ProviderError(f"xname: {path}: cannot read the node's xname ({exc.strerror or exc})") from None
        if len(text) > _XNAME_MAX_CHARS:
            raise ProviderError(f"xname: {path}: expected one node xname; got more than {_XNAME_MAX_CHARS} characters")
        value = text.strip()
        try:
            xname_place(value, self.shape)
        except InvalidInputError as exc:
            raise ProviderError(f"xname: {path}: {exc}") from None
        return value

    def check(self) -> None:
        """Raise ProviderError unless the xname file holds a node xname within the cabinet's shape."""
        self.xname()

    def locate(self, rank: int, size: int) -> Location:
        """Return ``Location((), xname)``; on rank 0, log (once) a warning of what the xname cannot tell.

        Raises
        ------
        ProviderError
            As :meth:`xname`.
        """
        rank, size = check_rank(rank, size)
        value = self.xname()
        if rank == 0 and not self._warned:
            self._warned = True
            logger.warning("xname: %s of %s; the machine's name says so (%s): the cxi provider (libfabric) knows "
                           "the switches", XNAME_APPROXIMATION, value, self.spec)
        return Location((), value)

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the ``"dragonfly"`` network from xnames (module notes)."""
        return self._network
