"""IBM Blue Gene/Q (5-D torus A-E) coordinates from the MPIX extensions (not collective).

C interface used (``mpix.h`` of IBM's MPICH/PAMI; plain ints only, through ctypes):

``int MPIX_Torus_ndims(int *numdim)``
    Number of torus dimensions (5 on BG/Q).  Documented as *excluding* the core/thread
    coordinate T, but one public pamid version returns the PAMI ``info->dims``; both 5
    and 6 are accepted and the torus is taken as 5-D.
``int MPIX_Rank2torus(int rank, int *coords)``
    Coordinates of ``MPI_COMM_WORLD`` rank ``rank``: ``torus_dimension + 1`` ints, the last
    being T (core+thread, 0..63).  A local table look-up: it works for any rank.

``MPIX_Hardware(MPIX_Hardware_t *)`` would give the block shape (``Size[5]``) and wrap
flags (``isTorus[5]``), but its struct field order differs between public ``mpix.h``
versions, so it is deliberately **not** mirrored in ctypes (ecosystem.md section 5.5).
The torus lengths therefore come from, in order: ``shape=`` / ``$MPITASKMAP_BGQ_SHAPE``
(``AxBxCxDxE``, e.g. ``4x4x4x8x2``), else the bounding box of the job, computed locally by
calling ``MPIX_Rank2torus`` for every rank ``0 .. size-1`` (extent = max + 1).  The
bounding box equals the block when the job fills its block (runjob's default); for
sub-block jobs set the shape.  Wrap flags: ``wrap=`` / ``$MPITASKMAP_BGQ_WRAP`` (``1`` or
``1x1x1x1x0``), default all 1 (blocks of a midplane or more are tori; for lengths 1 and
2, wrap does not change hop counts).

Sources: ``mpix.h`` and ``src/mpix/mpix.c`` of the MPICH pamid device (IBM, public
MPICH history: prototypes, "An array of size hw.torus_dimensions+1. The last element of
the returned array is the core+thread ID"); MPICH topology test code (``MPIX_Torus_ndims``
then ``MPIX_Rank2torus(wrank, myCoords)`` with ``MAX_TORUS_DIMS+1`` ints).

Library: ``lib=`` / ``$MPITASKMAP_BGQ_LIB``, else every ``libmpi*``/``libmpich*`` already
mapped into the process (``/proc/self/maps``), then the mpi4py extension module if it is
already imported (its dependencies include libmpi), then the main program (static builds).
"""

from __future__ import annotations

import ctypes
import os
import re
import sys

from .._options import parse_lengths, parse_wrap
from ..errors import ProviderError
from ..machines.torus.presets import BGQ_DIM_NAMES, bgq_node_name
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import CLibrary, read_env

__all__ = ["BgqProvider", "MPIX_TORUS_MAX_DIMS"]

MPIX_TORUS_MAX_DIMS = 5
#: The MPIX functions called, and their signatures (restype, argtypes).
_FUNCTIONS = {"MPIX_Torus_ndims": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
              "MPIX_Rank2torus": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(ctypes.c_int)])}
_BUFFER_INTS = 16
_SENTINEL = -0x7FFF_FFF0
_PROC_MAPS = "/proc/self/maps"
_MPI_LIB_RE = re.compile(r"^lib(mpi|mpich)([_.\-][^/]*)?\.so(\.[0-9.]+)?$")


def mapped_mpi_libraries(maps_path: str | None = None) -> list[str]:
    """Return paths of the ``libmpi*``/``libmpich*`` libraries mapped into this process, in map order."""
    out: list[str] = []
    try:
        with open(maps_path or _PROC_MAPS, "r", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split(None, 5)
                if len(parts) < 6:
                    continue
                path = parts[5].strip()
                if path.startswith("/") and _MPI_LIB_RE.match(os.path.basename(path)) and path not in out:
                    out.append(path)
    except OSError:
        pass
    return out


def mpi_library_candidates(explicit: str | None) -> list:
    """The libraries a provider calling the MPI library's own extensions tries, in order (None = the main program).

    ``explicit`` alone when given; else the MPI libraries mapped into this process
    (:func:`mapped_mpi_libraries`), mpi4py's extension module, then the main program.
    """
    if explicit:
        return [explicit]
    cands: list = list(mapped_mpi_libraries())
    mpi_mod = sys.modules.get("mpi4py.MPI")
    if mpi_mod is not None and getattr(mpi_mod, "__file__", None):
        cands.append(mpi_mod.__file__)
    cands.append(None)
    return cands



def _check_dimensions(lib, label: str) -> None:
    """Raise ProviderError unless ``MPIX_Torus_ndims`` answers with a BG/Q torus's 5 (or 6) dimensions."""
    n = ctypes.c_int(-1)
    rc = lib.MPIX_Torus_ndims(ctypes.byref(n))
    if rc != 0:
        raise ProviderError(f"bgq: MPIX_Torus_ndims returned {rc} (library {label})")
    if n.value not in (MPIX_TORUS_MAX_DIMS, MPIX_TORUS_MAX_DIMS + 1):
        raise ProviderError(
            f"bgq: MPIX_Torus_ndims reports {n.value} dimensions; a BG/Q torus has 5 "
            f"(A..E, or 6 counting T) (library {label})"
        )

class BgqProvider(Provider):
    """Locate ranks on an IBM Blue Gene/Q 5-D torus through ``MPIX_Rank2torus``.

    Not collective, rank-addressable (any world rank can be looked up).  Requires MPI to
    be initialised (import ``mpi4py.MPI`` first).

    Parameters
    ----------
    lib : str, optional
        Library exporting the MPIX functions (see the module docstring for the default).
    shape : str or sequence of 5 int, optional
        Block lengths A..E; default ``$MPITASKMAP_BGQ_SHAPE``, else the job's bounding box.
    wrap : str, bool or sequence of bool, optional
        Wrap flags; default ``$MPITASKMAP_BGQ_WRAP``, else all True.
    """

    name = "bgq"
    rank_addressable = True

    def __init__(self, *, lib: str | None = None, shape=None, wrap=None) -> None:
        super().__init__()
        self._lib_arg = lib
        self._shape_arg = shape
        self._wrap_arg = wrap
        self._record_options({"lib": lib or None, "shape": shape, "wrap": wrap})
        self._clib = CLibrary("bgq (MPIX_Torus_ndims, MPIX_Rank2torus)", _FUNCTIONS, self.library_candidates,
                              _check_dimensions)
        self._bbox: dict[int, tuple] = {}
        self._last_size: int | None = None

    def library_candidates(self) -> list:
        """Return the libraries tried, in order (None = the main program)."""
        return mpi_library_candidates(self._lib_arg or read_env("MPITASKMAP_BGQ_LIB"))

    def check(self) -> None:
        """Raise ProviderError unless a library with working MPIX torus functions is found."""
        self._clib.get()

    def rank_to_torus(self, rank: int) -> tuple[tuple[int, ...], int]:
        """Return ``((a, b, c, d, e), t)`` of world rank ``rank`` from ``MPIX_Rank2torus``."""
        lib = self._clib.get()
        buf = (ctypes.c_int * _BUFFER_INTS)(*([_SENTINEL] * _BUFFER_INTS))
        rc = lib.MPIX_Rank2torus(int(rank), buf)
        if rc != 0:
            raise ProviderError(f"bgq: MPIX_Rank2torus({rank}) returned {rc} (library {self._clib.label})")
        n = MPIX_TORUS_MAX_DIMS + 1
        if any(buf[i] == _SENTINEL for i in range(n)) or any(buf[i] != _SENTINEL for i in range(n, _BUFFER_INTS)):
            written = [i for i in range(_BUFFER_INTS) if buf[i] != _SENTINEL]
            raise ProviderError(
                f"bgq: MPIX_Rank2torus({rank}) wrote entries {written}; expected exactly 0..{n - 1} "
                f"(A, B, C, D, E, T) (library {self._clib.label})"
            )
        vals = [int(buf[i]) for i in range(n)]
        if any(v < 0 for v in vals):
            raise ProviderError(f"bgq: MPIX_Rank2torus({rank}) returned negative coordinates {vals}")
        return tuple(vals[:MPIX_TORUS_MAX_DIMS]), vals[MPIX_TORUS_MAX_DIMS]

    def locate(self, rank: int, size: int) -> Location:
        """Return the A..E coordinate of world rank ``rank`` and its node string.

        Raises
        ------
        ProviderError
            No MPIX library, or an MPIX call failing.
        """
        rank, size = check_rank(rank, size)
        self._last_size = size
        abcde, _t = self.rank_to_torus(rank)
        return Location(abcde, bgq_node_name(abcde))

    def shape(self, *, size: int | None = None) -> tuple[int, ...]:
        """Return the torus lengths A..E (configured, or the job's bounding box)."""
        given = self._shape_arg if self._shape_arg is not None else read_env("MPITASKMAP_BGQ_SHAPE")
        if given is not None:
            where = "provider bgq (MPITASKMAP_BGQ_SHAPE)" if self._shape_arg is None else "provider bgq"
            return parse_lengths(given, "shape", where, n=MPIX_TORUS_MAX_DIMS)
        size = size if size is not None else self._last_size
        if size is None:
            raise ProviderError(
                "bgq: torus lengths unknown: set MPITASKMAP_BGQ_SHAPE (e.g. 4x4x4x8x2), pass shape=, "
                "or pass size= so the job's bounding box can be computed"
            )
        if size not in self._bbox:
            hi = [0] * MPIX_TORUS_MAX_DIMS
            for r in range(int(size)):
                abcde, _t = self.rank_to_torus(r)
                hi = [max(h, c) for h, c in zip(hi, abcde)]
            self._bbox[size] = tuple(h + 1 for h in hi)
        return self._bbox[size]

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the 5-D torus A..E: configured or bounding-box lengths, wrap flags, unit bandwidth."""
        dims = self.shape(size=size)
        given = self._wrap_arg if self._wrap_arg is not None else read_env("MPITASKMAP_BGQ_WRAP")
        wrap = (True,) * MPIX_TORUS_MAX_DIMS
        if given is not None:
            where = "provider bgq (MPITASKMAP_BGQ_WRAP)" if self._wrap_arg is None else "provider bgq"
            wrap = parse_wrap(given, "wrap", where, MPIX_TORUS_MAX_DIMS)
        return NetworkInfo(dims=dims, wrap=wrap, bandwidth=None, dim_names=BGQ_DIM_NAMES)
