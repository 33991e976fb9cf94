"""``mpitaskmap record``: run an unmodified MPI application with the traffic recorder, then summarise the recording.

``mpitaskmap record -o traffic.mtx [--mpicc MPICC] -- LAUNCHER ARGS...`` gets the PMPI library
for the MPI of ``MPICC`` (:func:`mpitaskmap.runtime.pmpi.pmpi_library`, built on first use), runs
``LAUNCHER ARGS...`` with the library in ``LD_PRELOAD`` (put before what is there already) and
``MPITASKMAP_RECORD`` = the absolute path of ``-o``, and returns the command's exit status
unchanged.  Then it prints, on stderr (the application's output stays its own), a short summary
of the recording (:func:`summary`: ranks, pairs, bytes, messages, rounds, the top pairs by
bytes), or one line saying that no recording was written and, where it can tell, why.

A library that cannot be built (no MPI compiler ...) is an error before anything runs: a
``record`` step that cannot record stops without spending the job.  The launcher must pass
the environment to the ranks: Hydra's ``mpiexec`` and ``srun`` do; Open MPI's ``mpirun``
does on the local node, and needs ``-x LD_PRELOAD -x MPITASKMAP_RECORD`` for other nodes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import Callable

import numpy as np

from ..graphs.graph_files import parse_recording
from ..graphs.recording import recording_from
from ._registry import register

__all__ = ["record_command", "summary", "build_parser", "TOP_PAIRS"]

PREFIX = "mpitaskmap record"
#: Pairs listed in the summary, by bytes.
TOP_PAIRS = 5

DESCRIPTION = """\
Run an MPI application, unmodified, with the traffic recorder of the PMPI library: every
point-to-point message between ranks is counted (MPI_COMM_WORLD ranks, any communicator), and
at MPI_Finalize rank 0 writes OUT (Matrix Market: bytes sent by the row's rank to the
column's), OUT.counts.mtx (messages) and OUT.json (the job).  The recording is a task graph:
give it to 'mpitaskmap map/eval/compare -t OUT' and 'mpitaskmap launch --graph OUT'.

The library is built on first use for the MPI of --mpicc (default $MPICC, else the mpicc next to
this Python, else mpicc on PATH): the one the application is linked with.  The command runs
with LD_PRELOAD=LIBRARY (before any LD_PRELOAD already set) and MPITASKMAP_RECORD=OUT; its
exit status is returned unchanged.  Afterwards a summary of the recording goes to stderr.
MPI_Pcontrol(0) / MPI_Pcontrol(1) in the application pause and resume the recording.
"""

EPILOG = """\
examples:
  mpitaskmap record -o traffic.mtx -- mpiexec -n 64 ./app input.deck
  mpitaskmap record -o traffic.mtx -- srun -n 512 ./app
  mpitaskmap record -o traffic.mtx --mpicc mpicc.openmpi -- mpirun -np 16 -x LD_PRELOAD -x MPITASKMAP_RECORD ./app
  mpitaskmap compare -t traffic.mtx -m sim:fattree:nodes=16,ppn=4 --methods default,auto

exit status: the command's; 1 when the library cannot be built (nothing runs), 2 on a bad
command line, 127 when the command cannot be started.
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap record`` (the options before ``--``)."""
    p = argparse.ArgumentParser(prog=PREFIX, usage=f"{PREFIX} -o OUT [--mpicc MPICC] -- LAUNCHER ARGS...",
                                description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="the recording: OUT, OUT.counts.mtx and OUT.json are written")
    p.add_argument("--mpicc", metavar="MPICC",
                   help="the MPI C compiler of the application's MPI (default $MPICC, else the one next to this "
                        "Python, else mpicc on PATH)")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary (errors only)")
    p.add_argument("--debug", action="store_true", help="tracebacks instead of one-line errors")
    return p


def summary(path: str, top: int = TOP_PAIRS) -> str:
    """Return the summary of a recording: job, totals, rounds and the ``top`` pairs by bytes.

    Parameters
    ----------
    path : str
        The recording (its bytes matrix).
    top : int, optional
        Pairs listed (default :data:`TOP_PAIRS`).

    Returns
    -------
    str
        A few lines, each ending with a newline.

    Raises
    ------
    InvalidInputError
        What :func:`~mpitaskmap.graphs.graph_files.parse_recording` raises.
    """
    pairs = parse_recording(path)
    rec = recording_from(pairs)
    nodes = "" if rec.nodes is None else f" on {rec.nodes} node{'s' if rec.nodes != 1 else ''}"
    lib = f" ({rec.mpi_library})" if rec.mpi_library else ""
    took = "" if rec.duration_s is None else f", {rec.duration_s:.3g} s"
    lines = [f"wrote {path}: {rec.ranks} ranks{nodes}{lib}{took}", f"  {rec.describe()}"]
    off = np.flatnonzero(pairs.src != pairs.dst)
    if off.size:
        order = off[np.lexsort((pairs.dst[off], pairs.src[off], -pairs.nbytes[off]))][:top]
        lines.append(f"  top {len(order)} pairs by bytes (ranks from 0):")
        w = max(len(f"{int(pairs.nbytes[i]):,}") for i in order)
        for i in order:
            msgs = "" if pairs.msgs is None else f" in {int(pairs.msgs[i]):,} messages"
            lines.append(f"    {int(pairs.src[i]):>6} -> {int(pairs.dst[i]):<6} {int(pairs.nbytes[i]):>{w},} bytes{msgs}")
    return "".join(f"{ln}\n" for ln in lines)


def _why_not_written(path: str, status: int, lib: str) -> str:
    if status != 0:
        return f"the command exited with status {status} (the recording is written at MPI_Finalize)"
    return ("the ranks did not reach MPI_Finalize with the library loaded: the launcher did not pass LD_PRELOAD and "
            "MPITASKMAP_RECORD to them (Open MPI's mpirun on other nodes: -x LD_PRELOAD -x MPITASKMAP_RECORD), the "
            f"program is not linked with the MPI the library was built for ({lib}), or it is not an MPI program")


def record_command(argv: list, run: Callable[..., subprocess.CompletedProcess] = subprocess.run) -> int:
    """Run ``mpitaskmap record`` with ``argv``; return the command's exit status.

    Parameters
    ----------
    argv : list of str
        Arguments after ``record``: options, ``--``, the command.
    run : callable, optional
        ``run(command, env=...)`` returning an object with ``returncode`` (default
        :func:`subprocess.run`: the command inherits stdin, stdout and stderr).

    Returns
    -------
    int
        The command's exit status; 1 when the library cannot be built (nothing runs), 2 on a
        bad command line, 127 when the command cannot be started.
    """
    if "--" not in argv:
        if any(a in ("-h", "--help") for a in argv):
            build_parser().parse_args(["-h"])
        sys.stderr.write(f"{PREFIX}: error: expected '-- LAUNCHER ARGS...' after the options\n")
        return 2
    cut = argv.index("--")
    command = argv[cut + 1:]
    args = build_parser().parse_args(argv[:cut])
    if not command:
        sys.stderr.write(f"{PREFIX}: error: no command after '--'\n")
        return 2
    out = os.path.abspath(args.output)
    if not os.path.isdir(os.path.dirname(out)):
        sys.stderr.write(f"{PREFIX}: error: -o {args.output}: no such directory {os.path.dirname(out)}\n")
        return 2
    from ..runtime.pmpi import pmpi_library  # builds with an MPI compiler: only when recording

    try:
        lib = str(pmpi_library(args.mpicc))
    except (OSError, RuntimeError) as exc:
        if args.debug:
            raise
        sys.stderr.write(f"{PREFIX}: error: cannot build the PMPI library, nothing was run: "
                         f"{str(exc).strip().splitlines()[0]}\n")
        return 1
    env = dict(os.environ)
    env["LD_PRELOAD"] = lib + (f":{env['LD_PRELOAD']}" if env.get("LD_PRELOAD") else "")
    env["MPITASKMAP_RECORD"] = out
    started = time.time()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        status = run(command, env=env).returncode
    except OSError as exc:
        sys.stderr.write(f"{PREFIX}: error: cannot start {command[0]!r} ({exc.strerror or exc})\n")
        return 127
    written = all(os.path.isfile(p) and os.path.getmtime(p) >= started - 1 for p in (out, f"{out}.json"))
    if not written:
        sys.stderr.write(f"{PREFIX}: no recording was written to {out}: {_why_not_written(out, status, lib)}\n")
        return status
    if not args.quiet:
        try:
            sys.stderr.write(f"{PREFIX}: {summary(out)}")
        except (ValueError, OSError) as exc:
            sys.stderr.write(f"{PREFIX}: the recording {out} cannot be read: {exc}\n")
    return status


register("record", "run an MPI application with the traffic recorder: its task graph for map/compare/launch")(
    record_command)
