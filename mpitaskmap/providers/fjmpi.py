"""Fujitsu Tofu (Fugaku, FX1000/FX700) 6-D coordinates from Fujitsu MPI's rank inquiry (not collective).

C interface used (``mpi-ext.h`` of Fujitsu MPI; through ctypes):

``int FJMPI_Topology_get_coords(MPI_Comm comm, int rank, int view, int maxdims, int *coords)``
    With ``comm = MPI_COMM_WORLD``, ``view = FJMPI_TOFU_SYS`` and ``maxdims = 6``: the
    Tofu coordinate ``(x, y, z, a, b, c)`` of the node running world rank ``rank``, any rank
    (a local look-up, as the Fugaku user guide's example loops over every rank); returns
    ``FJMPI_SUCCESS`` (0) or an error code (``FJMPI_ERR_TOPOLOGY_*``).

**The value of FJMPI_TOFU_SYS** was not found in public sources (the header ships with the
compiler); :data:`FJMPI_TOFU_SYS` is an assumption (``FJMPI_LOGICAL``, ``FJMPI_TOFU_SYS``,
``FJMPI_TOFU_REL`` taken as 0, 1, 2: public mock-ups of the interface use 0 for
``FJMPI_LOGICAL`` and 2 for ``FJMPI_TOFU_REL``), overridable with ``view=``.  A wrong value
does not go unnoticed: the call fails, or writes other than exactly 6 entries (the logical
view has 1 to 3), or an ``a``, ``b``, ``c`` outside the Tofu unit's ``2 x 3 x 2``; each is
a :class:`~mpitaskmap.errors.ProviderError` naming the value tried.

The MPI_COMM_WORLD handle is mpi4py's (``MPI._handleof``), passed as an ``int`` or a pointer
as ``MPI_Comm`` is one or the other in the MPI library mpi4py uses (``MPI._sizeof``); MPI must
be initialised (importing ``mpi4py.MPI`` does it).

**The machine** is a 6-D :class:`~mpitaskmap.machines.TorusMachine` over ``(X, Y, Z, A, B,
C)``: ``A`` and ``C`` of length 2 (no wrap: one link), ``B`` of length 3 wrapping (the Tofu
unit's ring), ``X``, ``Y``, ``Z`` from ``shape=XxYxZ`` (e.g. Fugaku's ``24x23x24``; every
one wraps unless ``wrap=``), else the job's bounding box: ``max + 1`` over every rank's
coordinate, found locally by asking for every rank (as ``bgq`` does), as a mesh (the job
cannot assume the wrap-around links of a box it only part-fills).  Every link is a Tofu-D
link of 6.8 GB/s (28 Gb/s x 2 lanes; Ajima et al., "The Tofu Interconnect D", IEEE
Cluster 2018).  The ranks of one node share its coordinate; node key ``tofu-x.y.z.a.b.c``.

Spec: ``fjmpi[:lib=PATH,shape=XxYxZ,wrap=1x1x1,view=1]``.

Library: ``lib=`` / ``$MPITASKMAP_FJMPI_LIB``, else the candidates of ``bgq``: every
``libmpi*``/``libmpich*`` mapped into the process, the mpi4py extension module, the main
program.

Environment
-----------
``MPITASKMAP_FJMPI_LIB``
    Library exporting ``FJMPI_Topology_get_coords``.
``MPITASKMAP_FJMPI_SHAPE``
    ``XxYxZ`` of the Tofu torus (default: the job's bounding box, as a mesh).
"""

from __future__ import annotations

import ctypes

from .._options import parse_int, parse_lengths, parse_wrap
from ..errors import ProviderError
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import CLibrary, read_env
from .bgq import mpi_library_candidates

__all__ = ["FjmpiProvider", "FJMPI_KEYS", "FJMPI_TOFU_SYS", "TOFU_DIM_NAMES", "TOFU_UNIT", "tofu_node_name"]

#: Keys of the ``fjmpi`` spec.
FJMPI_KEYS = ("lib", "shape", "wrap", "view")
#: Assumed value of the ``view`` argument ``FJMPI_TOFU_SYS`` (module notes); ``view=`` overrides it.
FJMPI_TOFU_SYS = 1
TOFU_DIM_NAMES = ("X", "Y", "Z", "A", "B", "C")
#: Lengths of the Tofu unit's axes a, b, c, and whether each wraps (b is a ring of 3).
TOFU_UNIT = (2, 3, 2)
TOFU_UNIT_WRAP = (False, True, False)
#: GB/s of a Tofu-D link (module notes).
TOFU_D_LINK_GBS = 6.8
_N = 6
_BUFFER_INTS = 16
_SENTINEL = -0x7FFF_FFF0


def tofu_node_name(coords) -> str:
    """Return the node key of a Tofu node from its ``(x, y, z, a, b, c)``.

    Examples
    --------
    >>> tofu_node_name((1, 2, 0, 1, 2, 0))
    'tofu-1.2.0.1.2.0'
    """
    return "tofu-" + ".".join(str(int(c)) for c in coords)


class FjmpiProvider(Provider):
    """Locate ranks on a Tofu 6-D torus through ``FJMPI_Topology_get_coords`` (module notes).

    Not collective, rank-addressable (any world rank can be looked up).

    Parameters
    ----------
    lib : str, optional
        Library exporting the function (module notes for the default).
    shape : str or sequence of 3 int, optional
        ``XxYxZ``; default ``$MPITASKMAP_FJMPI_SHAPE``, else the job's bounding box.
    wrap : str, optional
        Wrap flags of X, Y, Z (``1``, ``1x1x0``); default all 1 with a shape, all 0 with
        the bounding box.
    view : int or str, optional
        The value passed as ``FJMPI_TOFU_SYS`` (default :data:`FJMPI_TOFU_SYS`).

    Raises
    ------
    InvalidInputError
        On a bad option value, naming it.

    Examples
    --------
    >>> p = FjmpiProvider(shape="24x23x24")
    >>> p.spec, p.network().dims, p.network().wrap
    ('fjmpi:shape=24x23x24', (24, 23, 24, 2, 3, 2), (True, True, True, False, True, False))
    """

    name = "fjmpi"
    rank_addressable = True

    def __init__(self, **options) -> None:
        super().__init__()
        o, what = self._read_options(options, FJMPI_KEYS)
        self._lib_arg = o.get("lib")
        self.view = parse_int(o.get("view", FJMPI_TOFU_SYS), "view", what, minimum=None)
        self._view_note = (f"view {self.view} as given for FJMPI_TOFU_SYS" if "view" in o else
                           f"view {self.view} is the assumed FJMPI_TOFU_SYS, view= sets another")
        shape = o.get("shape")
        where = what
        if shape is None and read_env("MPITASKMAP_FJMPI_SHAPE") is not None:
            shape, where = read_env("MPITASKMAP_FJMPI_SHAPE"), "provider fjmpi (MPITASKMAP_FJMPI_SHAPE)"
        self.shape = parse_lengths(shape, "shape", where, n=3) if shape is not None else None
        self.wrap = parse_wrap(o["wrap"], "wrap", what, 3) if "wrap" in o else (self.shape is not None,) * 3
        self._clib = CLibrary("fjmpi (FJMPI_Topology_get_coords)", {"FJMPI_Topology_get_coords": None},
                              self.library_candidates, self._declare)
        self._handle = None
        self._bbox: dict[int, tuple] = {}
        self._last_size: int | None = None

    def library_candidates(self) -> list:
        """Return the libraries tried, in order (None = the main program)."""
        return mpi_library_candidates(self._lib_arg or read_env("MPITASKMAP_FJMPI_LIB"))

    def _declare(self, lib, label: str) -> None:
        """Declare the call's signature, whose ``MPI_Comm`` is the type of the MPI library mpi4py uses."""
        comm_type, self._handle = _world_handle()
        lib.FJMPI_Topology_get_coords.argtypes = [comm_type, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                                  ctypes.POINTER(ctypes.c_int)]
        lib.FJMPI_Topology_get_coords.restype = ctypes.c_int

    def check(self) -> None:
        """Raise ProviderError unless the library answers for world rank 0 with a Tofu coordinate."""
        self.coords(0)

    def coords(self, rank: int) -> tuple[int, ...]:
        """Return ``(x, y, z, a, b, c)`` of world rank ``rank``.

        Raises
        ------
        ProviderError
            No library, the call failing, or an answer that is not a Tofu coordinate.
        """
        lib = self._clib.get()
        buf = (ctypes.c_int * _BUFFER_INTS)(*([_SENTINEL] * _BUFFER_INTS))
        call = f"FJMPI_Topology_get_coords(MPI_COMM_WORLD, {rank}, view={self.view}, 6)"
        rc = lib.FJMPI_Topology_get_coords(self._handle, int(rank), self.view, _N, buf)
        if rc != 0:
            raise ProviderError(f"fjmpi: {call} returned {rc} (library {self._clib.label}; {self._view_note})")
        written = [i for i in range(_BUFFER_INTS) if buf[i] != _SENTINEL]
        if written != list(range(_N)):
            raise ProviderError(f"fjmpi: {call} wrote entries {written}; expected exactly 0..5 (x, y, z, a, b, c): "
                                f"is view {self.view} FJMPI_TOFU_SYS? (library {self._clib.label})")
        vals = tuple(int(buf[i]) for i in range(_N))
        bad = [k for k in range(_N) if vals[k] < 0 or (k >= 3 and vals[k] >= TOFU_UNIT[k - 3])]
        if bad:
            k = bad[0]
            raise ProviderError(f"fjmpi: {call} gave {vals}: {TOFU_DIM_NAMES[k].lower()}={vals[k]} is not a Tofu "
                                f"coordinate (a, b, c lie in 2 x 3 x 2, x, y, z are >= 0)")
        return vals

    def locate(self, rank: int, size: int) -> Location:
        """Return the ``(x, y, z, a, b, c)`` of world rank ``rank`` and its node key.

        Raises
        ------
        ProviderError
            As :meth:`coords`, or a coordinate outside ``shape``.
        """
        rank, size = check_rank(rank, size)
        self._last_size = size
        vals = self.coords(rank)
        if self.shape is not None:
            outside = [k for k in range(3) if vals[k] >= self.shape[k]]
            if outside:
                k = outside[0]
                raise ProviderError(f"fjmpi: rank {rank} is at {TOFU_DIM_NAMES[k].lower()}={vals[k]}, outside "
                                    f"shape {'x'.join(map(str, self.shape))}")
        return Location(vals, tofu_node_name(vals))

    def extents(self, *, size: int | None = None) -> tuple[int, int, int]:
        """Return the lengths of X, Y, Z: the configured shape, or the job's bounding box (``max + 1``)."""
        if self.shape is not None:
            return self.shape
        size = size if size is not None else self._last_size
        if size is None:
            raise ProviderError("fjmpi: torus lengths unknown: pass shape=XxYxZ (Fugaku: 24x23x24), set "
                                "MPITASKMAP_FJMPI_SHAPE, or pass size= so the job's bounding box can be computed")
        if size not in self._bbox:
            hi = [0, 0, 0]
            for r in range(int(size)):
                hi = [max(h, c) for h, c in zip(hi, self.coords(r)[:3])]
            self._bbox[size] = tuple(h + 1 for h in hi)
        return self._bbox[size]

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the 6-D Tofu torus (X, Y, Z, A, B, C): module notes."""
        return NetworkInfo(dims=self.extents(size=size) + TOFU_UNIT, wrap=self.wrap + TOFU_UNIT_WRAP,
                           bandwidth=TOFU_D_LINK_GBS, dim_names=TOFU_DIM_NAMES)


def _world_handle():
    """(ctypes type of MPI_Comm, MPI_COMM_WORLD's handle) of the MPI library mpi4py uses."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise ProviderError(f"fjmpi: MPI_COMM_WORLD's handle comes from mpi4py, which does not import ({exc})") \
            from None
    size = MPI._sizeof(MPI.Comm)
    if size == ctypes.sizeof(ctypes.c_void_p) and size != ctypes.sizeof(ctypes.c_int):
        return ctypes.c_void_p, MPI._handleof(MPI.COMM_WORLD)
    if size == ctypes.sizeof(ctypes.c_int):
        return ctypes.c_int, MPI._handleof(MPI.COMM_WORLD)
    raise ProviderError(f"fjmpi: MPI_Comm of this MPI library has {size} bytes, neither an int nor a pointer")
