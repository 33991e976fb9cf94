"""Cray XE/XK (Gemini 3-D torus) and Cray XC (Aries dragonfly) coordinates from the RCA library (not collective).

Every process reads its node id (nid) from ``/proc/cray_xt/nid`` and asks the Cray RCA
library for the router coordinate of that nid; the extents come from
``rca_get_max_dimension``.

**Gemini or Aries.**  RCA's mesh coordinate means a Gemini router's ``(X, Y, Z)`` on a Cray
XE/XK's torus, but on a Cray XC the Aries router's ``(group, row, column)``: group, chassis
row (6 per group) and blade column (16 per chassis), as Zoltan2's ``MachineDragonflyRCA``
reads it (``mesh_x`` the group, ``mesh_y`` the row within the group, ``mesh_z`` the column).
The rule (``network=auto``, the default): the coordinates are **Aries-shaped** when
``rca_get_max_dimension`` gives 16 columns (``mesh_z = 15``) and at most 6 rows (``mesh_y
<= 5``); a Gemini torus's Z is 24 (3 chassis of 8 slots per cabinet).  ``network=gemini``
or ``network=aries`` forces either reading.

* **Gemini**: a 3-D torus, every dimension wraps, Gemini link bandwidths.  Two nodes share
  one router, so they report the same coordinate with different node strings
  (``nid%05d``); the machine keeps them apart through node ids.
* **Aries**: a :class:`~mpitaskmap.machines.DragonflyMachine` of ``mesh_x + 1`` groups (at
  least 2: the machine class needs two; a one-group XC gets an empty second one) of
  ``(mesh_y + 1) x (mesh_z + 1)`` routers joined along rows (green) and columns (black), 4
  nodes per router; a rank's location is ``(group, row * columns + column, node)``, its
  node on the blade (0-3) read from the node's cname (``/proc/cray_xt/cname``,
  ``c0-0c1s3n2``: node 2), which RCA does not give.  Not in RCA, taken from the ``"aries"``
  preset (:data:`~mpitaskmap.machines.dragonfly.presets.DRAGONFLY_PRESETS`): link bandwidths
  and 5 global connections per router; the global links per pair of groups are every
  connection of a group spread over the groups, ``rows * columns * 5 // groups`` (at least
  1; ``global_links=`` sets it).

C interface used (through ctypes; no header is needed at install time):

``int rca_get_meshcoord(uint16_t nid, rca_mesh_coord_t *xyz)``
    Router coordinate of ``nid``; returns -1 on failure.
``int rca_get_max_dimension(rca_mesh_coord_t *dims)``
    Largest coordinate per dimension of the **whole machine** (not the job), so the
    extents are ``dims.mesh_* + 1``.

Sources (public callers; ``rca_lib.h`` / ``rs_meshcoord.h`` themselves were not found in
public code): Trilinos Zoltan2 ``Zoltan2_MachineTorusRCA.hpp`` (``rca_get_meshcoord(
(uint16_t)nid, &mesh_coord_t)``, ``returnval == -1`` check, extents ``mesh_x + 1``),
Charm++ ``src/util/CrayNid.c`` (``getMeshCoord``, ``rca_get_max_dimension``), MPICH's
topology test code (comment: "rca_get_max_dimension gives the size of the *machines*
mesh, not the jobs mesh").  See ``/work/shared/reference/ecosystem.md`` section 5.2.

**Layout assumption.**  ``rca_mesh_coord_t`` is taken to be three ``uint16_t`` fields
``mesh_x, mesh_y, mesh_z`` in that order (callers print them with ``%u`` and the nid
argument is ``uint16_t``), i.e. 6 bytes.  The width lives in one place,
:data:`RCA_COORD_FIELD`.  The library writes into a 64-byte buffer pre-filled with
0xFF; if it writes past the assumed size, :class:`~mpitaskmap.errors.ProviderError`
says so instead of silently reading wrong numbers.

Spec: ``rca[:lib=,nid_file=,network=auto|gemini|aries,cname_file=,routing=minimal|ecmp|valiant|ugal|either,global_links=]``
(the last three only for Aries).

Environment
-----------
``MPITASKMAP_RCA_LIB``
    Library to load (path or soname); default: ``librca.so.0``, then ``librca.so``.
``MPITASKMAP_CRAY_NID_FILE``
    File holding this node's nid (default ``/proc/cray_xt/nid``; for tests).
``MPITASKMAP_CRAY_CNAME_FILE``
    File holding this node's cname (default ``/proc/cray_xt/cname``; Aries only; for tests).
"""

from __future__ import annotations

import ctypes
import re

from .._options import parse_choice, parse_int
from ..errors import InvalidInputError, ProviderError
from ..machines import DragonflyMachine
from ..machines.dragonfly import DRAGONFLY_ROUTINGS, dragonfly_network
from ..machines.dragonfly.presets import DRAGONFLY_PRESETS
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import CLibrary, read_env

__all__ = ["RcaProvider", "DEFAULT_NID_FILE", "DEFAULT_CNAME_FILE", "DEFAULT_RCA_LIBS", "RCA_KEYS", "RCA_NETWORKS",
           "aries_shaped"]

DEFAULT_NID_FILE = "/proc/cray_xt/nid"
DEFAULT_CNAME_FILE = "/proc/cray_xt/cname"
DEFAULT_RCA_LIBS = ("librca.so.0", "librca.so")
#: The functions called, and their signatures (restype, argtypes).
_FUNCTIONS = {"rca_get_meshcoord": (ctypes.c_int, [ctypes.c_uint16, ctypes.c_void_p]),
              "rca_get_max_dimension": (ctypes.c_int, [ctypes.c_void_p])}
#: Keys of the ``rca`` spec.
RCA_KEYS = ("lib", "nid_file", "network", "cname_file", "routing", "global_links")
#: Readings of RCA's coordinates: decided by :func:`aries_shaped`, or forced.
RCA_NETWORKS = ("auto", "gemini", "aries")
#: An XC group: at most 6 chassis rows of 16 blade columns; 4 nodes on a blade's Aries router.
ARIES_COLUMNS, ARIES_MAX_ROWS, ARIES_NODES_PER_ROUTER = 16, 6, 4
_CNAME_RE = re.compile(r"c([0-9]+)-([0-9]+)c([0-9]+)s([0-9]+)n([0-9]+)")

#: C type of each ``mesh_x``/``mesh_y``/``mesh_z`` field: the one place to change the
#: layout assumption (e.g. to ``ctypes.c_uint32``) if the real header differs.
RCA_COORD_FIELD = ctypes.c_uint16

_BUFFER_BYTES = 64
_SENTINEL = 0xFF


class _MeshCoord(ctypes.Structure):
    _fields_ = [("mesh_x", RCA_COORD_FIELD), ("mesh_y", RCA_COORD_FIELD), ("mesh_z", RCA_COORD_FIELD)]


def aries_shaped(extents) -> bool:
    """Return True if RCA extents are a Cray XC's (groups, rows, columns): 16 columns and at most 6 rows.

    The rule of the module notes; a Gemini torus's Z is 24.

    Examples
    --------
    >>> aries_shaped((26, 6, 16)), aries_shaped((25, 16, 24))
    (True, False)
    """
    return int(extents[2]) == ARIES_COLUMNS and int(extents[1]) <= ARIES_MAX_ROWS


class RcaProvider(Provider):
    """Locate this process on a Cray Gemini torus or Aries dragonfly through the RCA library (module notes).

    Not collective.  ``locate`` describes the calling process whatever ``rank`` is
    (``rank_addressable`` is False): the nid comes from this node's ``/proc`` file.

    Parameters
    ----------
    lib : str, optional
        Library path or soname; default ``$MPITASKMAP_RCA_LIB``, else ``librca.so.0``,
        ``librca.so``.
    nid_file : str, optional
        Node id file; default ``$MPITASKMAP_CRAY_NID_FILE``, else ``/proc/cray_xt/nid``.
    network : {"auto", "gemini", "aries"}, optional
        How to read RCA's coordinates (default ``"auto"``: :func:`aries_shaped`).
    cname_file : str, optional
        Aries: the node's cname file; default ``$MPITASKMAP_CRAY_CNAME_FILE``, else
        ``/proc/cray_xt/cname``.
    routing : {"minimal", "ecmp", "valiant", "ugal", "either"}, optional
        Aries: the dragonfly's routing (default ``"minimal"``).
    global_links : int or str, optional
        Aries: global links per pair of groups (default: module notes).

    Raises
    ------
    InvalidInputError
        On a bad option value, naming it.

    Notes
    -----
    Gemini network: 3-D torus, every dimension wraps, Gemini link bandwidths, extents from
    ``rca_get_max_dimension`` (the whole machine).  Aries network: module notes.
    """

    name = "rca"
    rank_addressable = False

    def __init__(self, *, lib: str | None = None, nid_file: str | None = None, network: str | None = None,
                 cname_file: str | None = None, routing: str | None = None, global_links=None) -> None:
        super().__init__()
        self._lib_arg = lib
        self._nid_arg = nid_file
        self._cname_arg = cname_file
        self._record_options({"lib": lib, "nid_file": nid_file, "network": network, "cname_file": cname_file,
                              "routing": routing, "global_links": global_links})
        what = f"provider {self.spec!r}"
        self.network_choice = parse_choice(network or "auto", "network", what, RCA_NETWORKS)
        self.routing = parse_choice(routing or "minimal", "routing", what, DRAGONFLY_ROUTINGS)
        self._global_links = None if global_links is None else parse_int(global_links, "global_links", what)
        self._clib = CLibrary("rca", _FUNCTIONS, self.library_candidates)
        self._extents: tuple | None = None

    @property
    def cname_file(self) -> str:
        """Path of the cname file this provider reads on an Aries machine."""
        return self._cname_arg or read_env("MPITASKMAP_CRAY_CNAME_FILE") or DEFAULT_CNAME_FILE

    @property
    def nid_file(self) -> str:
        """Path of the node id file this provider reads."""
        return self._nid_arg or read_env("MPITASKMAP_CRAY_NID_FILE") or DEFAULT_NID_FILE

    def library_candidates(self) -> list[str]:
        """Return the libraries tried, in order."""
        explicit = self._lib_arg or read_env("MPITASKMAP_RCA_LIB")
        return [explicit] if explicit else list(DEFAULT_RCA_LIBS)

    def read_nid(self) -> int:
        """Return this node's nid from the nid file.

        Raises
        ------
        ProviderError
            If the file is missing/unreadable or does not hold one integer in [0, 65535].
        """
        path = self.nid_file
        try:
            with open(path, "r", encoding="ascii", errors="replace") as fh:
                text = fh.read(64)
        except OSError as exc:
            raise ProviderError(f"rca: {path}: cannot read the Cray node id ({exc.strerror or exc})") from None
        try:
            nid = int(text.strip())
        except ValueError:
            raise ProviderError(f"rca: {path}: expected an integer node id; got {text.strip()[:32]!r}") from None
        if not 0 <= nid <= 0xFFFF:
            raise ProviderError(f"rca: {path}: node id must fit uint16_t [0, 65535]; got {nid}")
        return nid

    def _call(self, func, fname: str, *args) -> tuple[int, int, int]:
        buf = (ctypes.c_ubyte * _BUFFER_BYTES)(*([_SENTINEL] * _BUFFER_BYTES))
        rc = func(*args, ctypes.byref(buf))
        if rc != 0:
            arg = f"({args[0]})" if args else "()"
            raise ProviderError(f"rca: {fname}{arg} returned {rc} (library {self._clib.label})")
        size = ctypes.sizeof(_MeshCoord)
        written = [i for i in range(size, _BUFFER_BYTES) if buf[i] != _SENTINEL]
        if written:
            raise ProviderError(
                f"rca: {fname} wrote byte {written[-1]} of its output, past the assumed {size}-byte "
                f"rca_mesh_coord_t (3 x uint{8 * ctypes.sizeof(RCA_COORD_FIELD)}_t); the layout assumption is wrong for "
                f"{self._clib.label}: change RCA_COORD_FIELD in mpitaskmap/providers/rca.py"
            )
        mc = _MeshCoord.from_buffer(buf)
        return int(mc.mesh_x), int(mc.mesh_y), int(mc.mesh_z)

    def extents(self) -> tuple[int, int, int]:
        """Return the torus lengths of the whole machine (``rca_get_max_dimension`` + 1)."""
        if self._extents is None:
            lib = self._clib.get()
            mx = self._call(lib.rca_get_max_dimension, "rca_get_max_dimension")
            self._extents = tuple(v + 1 for v in mx)
        return self._extents

    def is_aries(self) -> bool:
        """Return True if RCA's coordinates are an Aries dragonfly's (``network=``, else :func:`aries_shaped`)."""
        if self.network_choice != "auto":
            return self.network_choice == "aries"
        return aries_shaped(self.extents())

    def read_blade_node(self) -> int:
        """Return this node's position on its blade (0-3) from the cname file (``c0-0c1s3n2``: 2).

        Raises
        ------
        ProviderError
            If the file is missing/unreadable or does not hold one cname with a node in [0, 4).
        """
        path = self.cname_file
        try:
            with open(path, "r", encoding="ascii", errors="replace") as fh:
                text = fh.read(64).strip()
        except OSError as exc:
            raise ProviderError(f"rca: {path}: cannot read the Cray cname, whose node field places an Aries node "
                                f"on its blade ({exc.strerror or exc})") from None
        m = _CNAME_RE.fullmatch(text)
        if m is None:
            raise ProviderError(f"rca: {path}: expected a node cname like c0-0c1s3n2; got {text[:32]!r}")
        node = int(m.group(5))
        if node >= ARIES_NODES_PER_ROUTER:
            raise ProviderError(f"rca: {path}: node {node} of {text!r} lies outside the {ARIES_NODES_PER_ROUTER} "
                                "nodes of an Aries router")
        return node

    def check(self) -> None:
        """Raise ProviderError unless the nid file reads and the RCA library answers (and, on Aries, the cname)."""
        self.read_nid()
        self.extents()
        if self.is_aries():
            self.read_blade_node()

    def locate(self, rank: int, size: int) -> Location:
        """Return this process's router coordinate (Gemini) or ``(group, switch, node)`` (Aries) and ``nid%05d``.

        Raises
        ------
        ProviderError
            Unreadable nid (or, on Aries, cname) file, no RCA library, ``rca_get_meshcoord``
            failing (-1), or a coordinate outside the extents.
        """
        rank, size = check_rank(rank, size)
        nid = self.read_nid()
        lib = self._clib.get()
        xyz = self._call(lib.rca_get_meshcoord, "rca_get_meshcoord", nid)
        dims = self.extents()
        if any(not 0 <= c < d for c, d in zip(xyz, dims)):
            raise ProviderError(
                f"rca: rank {rank} on nid {nid}: coordinate {xyz} lies outside the machine extents {dims}"
            )
        if self.is_aries():
            group, row, column = xyz
            return Location((group, row * dims[2] + column, self.read_blade_node()), f"nid{nid:05d}")
        return Location(xyz, f"nid{nid:05d}")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the Gemini 3-D torus (RCA extents, all wrap, ``"gemini"`` bandwidths) or the Aries dragonfly.

        Raises
        ------
        ProviderError
            As :meth:`extents`, or ``global_links=`` more than the routers' global ports hold.
        """
        dims = self.extents()
        if not self.is_aries():
            return NetworkInfo(dims=dims, wrap=(True, True, True), bandwidth="gemini", dim_names=("X", "Y", "Z"))
        preset = DRAGONFLY_PRESETS["aries"]
        groups, rows, columns = max(2, dims[0]), dims[1], dims[2]
        ports = preset["global_ports"]
        links = self._global_links or max(1, rows * columns * ports // groups)
        try:
            shape = DragonflyMachine(groups, (rows, columns), ARIES_NODES_PER_ROUTER, [0], global_links=links,
                                     global_ports=ports, bandwidth=preset["bandwidth"], routing=self.routing)
        except InvalidInputError as exc:
            raise ProviderError(f"rca: the Aries dragonfly of RCA extents {dims}: {exc}") from None
        return dragonfly_network(shape)
