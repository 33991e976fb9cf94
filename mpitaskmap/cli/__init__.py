"""The ``mpitaskmap`` command line: offline mapping, evaluation, comparison and plots.

``mpitaskmap SUBCOMMAND [options]`` (or ``python -m mpitaskmap``).  Each subcommand is
one function registered in :data:`COMMANDS` with :func:`register` (the shape of mpi4py's
``bench.py``); it builds its own argparse parser, so ``mpitaskmap map --help`` reads
like a man page.  The subcommands:

``map``      compute a mapping and write rank-reorder files (MPICH_RANK_ORDER, Open MPI
             rankfile, Slurm host list, Blue Gene map file, CSV)
``eval``     metrics of the default order or of existing reorder files
``compare``  several methods side by side: a table (text, CSV, JSON) and an HTML report
``plot``     allocation in 3-D, link loads per link class, hop histograms (PNG)
``simgrid``  SimGrid SMPI platform, one hostfile per method, and simulated runs of an app
``formats``  the machine-file, topology.conf, node-list, task-graph and map-file forms, with
             an example each (``mpitaskmap --help-formats`` is the same)
``launch``   map onto the job's allocation, then run srun/mpiexec/mpirun/aprun in that order
``record``   run an MPI application with the traffic recorder (LD_PRELOAD): its task graph

The global options ``-q``/``--quiet`` and ``--debug`` may come before the subcommand
(``mpitaskmap -q map ...``) or after it.  ``mpitaskmap --pmpi-lib`` prints the path of the
PMPI interposition library for the MPI of ``$MPICC`` (default: the ``mpicc`` next to this
Python), building it on first use (:mod:`mpitaskmap.runtime.pmpi`):
``LD_PRELOAD=$(mpitaskmap --pmpi-lib) mpiexec -n 64 ./app``.

Errors print one line (``mpitaskmap map: error: ...``) and exit with status 1 (2 for a
bad command line); ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import sys
from typing import Sequence

from .._version import __version__
from ._registry import COMMANDS, GLOBAL_OPTIONS, Command, register

__all__ = ["main", "register", "COMMANDS", "Command", "GLOBAL_OPTIONS"]


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [
        f"usage: mpitaskmap SUBCOMMAND [options]      (mpitaskmap {__version__})",
        "",
        "Topology-aware task mapping from the shell: map a task graph onto an allocation,",
        "write the rank-reorder files that MPI stacks and schedulers read, compare methods,",
        "and plot what a mapping does to the network.",
        "",
        "subcommands:",
        *[f"  {c.name:<{width}}  {c.summary}" for c in COMMANDS.values()],
        "",
        "  --help-formats  the same as 'mpitaskmap formats': the file forms, an example each",
        "  --pmpi-lib  print the path of the PMPI library (built on first use for $MPICC):",
        "              LD_PRELOAD=$(mpitaskmap --pmpi-lib) makes MPI_Cart_create(reorder=1) reorder",
        "",
        "Run 'mpitaskmap SUBCOMMAND --help' for its manual.  Example:",
        "  mpitaskmap map -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8 \\",
        "                 --method geometric -o MPICH_RANK_ORDER",
    ]
    return "\n".join(lines) + "\n"


def _pmpi_lib(rest: list) -> int:
    """``mpitaskmap --pmpi-lib``: print the PMPI library's path, building it first if needed."""
    if rest:
        sys.stderr.write(f"mpitaskmap --pmpi-lib: error: takes no arguments; got {' '.join(rest)!r} "
                         "(set MPICC to build for another MPI)\n")
        return 2
    from ..runtime.pmpi import pmpi_library

    try:
        path = pmpi_library()
    except (OSError, RuntimeError) as exc:
        sys.stderr.write(f"mpitaskmap --pmpi-lib: error: {exc}\n")
        return 1
    sys.stdout.write(f"{path}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name.

    Returns
    -------
    int
        0 on success, 1 on an error (one line on stderr), 2 on a bad command line.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    leading = []  # global options before the subcommand, as in pip and git: passed on to it
    while args and args[0] in GLOBAL_OPTIONS:
        leading.append(GLOBAL_OPTIONS[args.pop(0)])
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(_usage())
        return 0 if args else 2
    if args[0] == "--version":
        sys.stdout.write(f"mpitaskmap {__version__}\n")
        return 0
    if args[0] == "--pmpi-lib":
        return _pmpi_lib(args[1:])
    if args[0] == "--help-formats":
        args[0] = "formats"
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        hint = f" (global options: {', '.join(GLOBAL_OPTIONS)})" if name.startswith("-") else ""
        sys.stderr.write(f"mpitaskmap: error: unknown subcommand {name!r}; valid: {sorted(COMMANDS)}{hint}\n")
        return 2
    rest = [o for o in dict.fromkeys(leading) if o not in rest] + rest  # first: before any '--' or value
    debug = "--debug" in rest
    try:
        return COMMANDS[name].run(rest)
    except SystemExit as exc:  # argparse: --help (0) or a bad command line (2)
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:
        sys.stderr.write(f"mpitaskmap {name}: interrupted\n")
        return 130
    except Exception as exc:  # one line, or the traceback with --debug
        if debug:
            raise
        text = str(exc).strip().splitlines()
        msg = text[0] if text else type(exc).__name__
        if not isinstance(exc, (ValueError, OSError, ImportError, RuntimeError)):
            msg = f"{type(exc).__name__}: {msg}"
        sys.stderr.write(f"mpitaskmap {name}: error: {msg}\n")
        return 1


# Register the subcommands (each module calls register at import).
from . import map, eval, compare, plot, smpi, formats, launch, record  # noqa: E402,F401,A004
