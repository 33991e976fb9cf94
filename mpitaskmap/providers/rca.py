"""Cray XE/XK (Gemini 3-D torus) coordinates from the RCA library (not collective).

Every process reads its node id (nid) from ``/proc/cray_xt/nid`` and asks the Cray RCA
library for the router coordinate of that nid; the torus extents come from
``rca_get_max_dimension``.  Two nodes share one Gemini router, so they report the same
coordinate with different node strings (``nid%05d``); the machine keeps them apart through
node ids.

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

Environment
-----------
``MPITASKMAP_RCA_LIB``
    Library to load (path or soname); default: ``librca.so.0``, then ``librca.so``.
``MPITASKMAP_CRAY_NID_FILE``
    File holding this node's nid (default ``/proc/cray_xt/nid``; for tests).
"""

from __future__ import annotations

import ctypes

from ..errors import ProviderError
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import load_library, read_env

__all__ = ["RcaProvider", "DEFAULT_NID_FILE", "DEFAULT_RCA_LIBS"]

DEFAULT_NID_FILE = "/proc/cray_xt/nid"
DEFAULT_RCA_LIBS = ("librca.so.0", "librca.so")

#: C type of each ``mesh_x``/``mesh_y``/``mesh_z`` field: the one place to change the
#: layout assumption (e.g. to ``ctypes.c_uint32``) if the real header differs.
RCA_COORD_FIELD = ctypes.c_uint16

_BUFFER_BYTES = 64
_SENTINEL = 0xFF


class _MeshCoord(ctypes.Structure):
    _fields_ = [("mesh_x", RCA_COORD_FIELD), ("mesh_y", RCA_COORD_FIELD), ("mesh_z", RCA_COORD_FIELD)]


class RcaProvider(Provider):
    """Locate this process on a Cray Gemini torus through the RCA library.

    Not collective.  ``locate`` describes the calling process whatever ``rank`` is
    (``rank_addressable`` is False): the nid comes from this node's ``/proc`` file.

    Parameters
    ----------
    lib : str, optional
        Library path or soname; default ``$MPITASKMAP_RCA_LIB``, else ``librca.so.0``,
        ``librca.so``.
    nid_file : str, optional
        Node id file; default ``$MPITASKMAP_CRAY_NID_FILE``, else ``/proc/cray_xt/nid``.

    Notes
    -----
    Network: 3-D torus, every dimension wraps, Gemini link bandwidths, extents from
    ``rca_get_max_dimension`` (the whole machine).
    """

    name = "rca"
    rank_addressable = False

    def __init__(self, *, lib: str | None = None, nid_file: str | None = None) -> None:
        super().__init__()
        self._lib_arg = lib
        self._nid_arg = nid_file
        self._lib = None
        self._lib_label: str | None = None
        self._extents: tuple | None = None

    @property
    def spec(self) -> str:
        """Spec string of this provider (``rca`` plus any explicit options)."""
        opts = [f"lib={self._lib_arg}"] if self._lib_arg else []
        opts += [f"nid_file={self._nid_arg}"] if self._nid_arg else []
        return "rca" + (":" + ",".join(opts) if opts else "")

    @property
    def nid_file(self) -> str:
        """Path of the node id file this provider reads."""
        return self._nid_arg or read_env("MPITASKMAP_CRAY_NID_FILE") or DEFAULT_NID_FILE

    def library_candidates(self) -> list[str]:
        """Return the libraries tried, in order."""
        explicit = self._lib_arg or read_env("MPITASKMAP_RCA_LIB")
        return [explicit] if explicit else list(DEFAULT_RCA_LIBS)

    def _library(self):
        if self._lib is None:
            lib, label = load_library(
                self.library_candidates(), ("rca_get_meshcoord", "rca_get_max_dimension"), "rca"
            )
            lib.rca_get_meshcoord.argtypes = [ctypes.c_uint16, ctypes.c_void_p]
            lib.rca_get_meshcoord.restype = ctypes.c_int
            lib.rca_get_max_dimension.argtypes = [ctypes.c_void_p]
            lib.rca_get_max_dimension.restype = ctypes.c_int
            self._lib, self._lib_label = lib, label
        return self._lib

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
            raise ProviderError(f"rca: {fname}{arg} returned {rc} (library {self._lib_label})")
        size = ctypes.sizeof(_MeshCoord)
        written = [i for i in range(size, _BUFFER_BYTES) if buf[i] != _SENTINEL]
        if written:
            raise ProviderError(
                f"rca: {fname} wrote byte {written[-1]} of its output, past the assumed {size}-byte "
                f"rca_mesh_coord_t (3 x uint{8 * ctypes.sizeof(RCA_COORD_FIELD)}_t); the layout assumption is wrong for "
                f"{self._lib_label}: change RCA_COORD_FIELD in mpitaskmap/providers/rca.py"
            )
        mc = _MeshCoord.from_buffer(buf)
        return int(mc.mesh_x), int(mc.mesh_y), int(mc.mesh_z)

    def extents(self) -> tuple[int, int, int]:
        """Return the torus lengths of the whole machine (``rca_get_max_dimension`` + 1)."""
        if self._extents is None:
            lib = self._library()
            mx = self._call(lib.rca_get_max_dimension, "rca_get_max_dimension")
            self._extents = tuple(v + 1 for v in mx)
        return self._extents

    def check(self) -> None:
        """Raise ProviderError unless the nid file reads and the RCA library answers."""
        self.read_nid()
        self.extents()

    def locate(self, rank: int, size: int) -> Location:
        """Return this process's Gemini router coordinate and ``nid%05d`` node string.

        Raises
        ------
        ProviderError
            Unreadable nid file, no RCA library, ``rca_get_meshcoord`` failing (-1), or a
            coordinate outside the extents.
        """
        rank, size = check_rank(rank, size)
        nid = self.read_nid()
        lib = self._library()
        xyz = self._call(lib.rca_get_meshcoord, "rca_get_meshcoord", nid)
        dims = self.extents()
        if any(not 0 <= c < d for c, d in zip(xyz, dims)):
            raise ProviderError(
                f"rca: rank {rank} on nid {nid}: coordinate {xyz} lies outside the machine extents {dims}"
            )
        return Location(xyz, f"nid{nid:05d}")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the Gemini 3-D torus: RCA extents, all wrap, ``"gemini"`` bandwidths."""
        return NetworkInfo(dims=self.extents(), wrap=(True, True, True), bandwidth="gemini", dim_names=("X", "Y", "Z"))
