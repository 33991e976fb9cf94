"""``mpitaskmap launch``: map a task graph onto the job's allocation, then run the launcher in that order.

``mpitaskmap launch --graph traffic.mtx [-m SPEC] [--method auto] [--dry-run] -- LAUNCHER ARGS...``
runs inside a job script in place of ``LAUNCHER ARGS...``.  It

1. tells the launcher (:func:`detect_launcher`) from the command's name: ``srun`` is Slurm,
   ``aprun`` Cray; ``mpiexec``/``mpirun`` (any suffix) is MPICH Hydra or Open MPI, told
   apart by what ``LAUNCHER --version`` prints; ``--launcher`` names it instead (``cray``
   for Cray MPICH under ``srun``);
2. reads the job size from the command (:func:`job_size`: ``-n``/``-np``/``--ntasks``, or
   ``SLURM_NTASKS`` for ``srun``) and the task graph (``--graph``, any ``--tasks`` form);
3. reads the allocation (:func:`read_allocation`): ``-m SPEC`` (every ``--machine`` form),
   else Slurm's ``SLURM_JOB_NODELIST`` on the fat tree of ``topology.conf`` (``--topology``,
   else next to ``$SLURM_CONF``, else ``/etc/slurm/topology.conf``, else what ``scontrol
   show topology`` prints), else the nodes alone (a flat machine: same node or not);
4. maps the graph with ``--method`` (default ``auto``, whose judge may keep the default order);
5. writes the launcher's own mechanism (:data:`LAUNCHERS`) with the writers of
   :mod:`mpitaskmap.mapfiles`, and replaces itself by the launcher (``exec``).

Whatever fails (an unknown launcher, a job size that differs from the graph's, no gain over the
default order, any error), the launcher runs unchanged and one line on stderr says why: the
command never keeps a job from running.  ``--dry-run`` prints the command, the environment
additions and the files instead of running (the files are written, so the printed command runs
as printed).

Every launcher places ranks node by node from its file (Slurm, Hydra) or on a core of a node
(the Open MPI rankfile, the Cray rank order); the machine model puts all processors of a node at
one router, so the mapping is written with the ranks of each node in ascending order on its
slots (:func:`~mpitaskmap.mapfiles.node_canonical`): the same metrics, one file per placement.

What the real launchers do with the files (``tests/cli/test_launch_real.py`` runs them at 16
ranks on 8 host names of one machine: Hydra's ``-launcher fork``, Open MPI through a stand-in
``ssh``): Hydra starts one proxy per line of ``-f`` and MPICH takes each proxy for a node, so
a node must be one line, with ``-rankmap`` giving each rank its line (a line per rank would
start a proxy per rank: the right hosts, but no two ranks on one node for MPICH); Open MPI
takes the rankfile's and the ``seq`` hostfile's hosts from the allocation (the resource
manager's, or ``--hostfile``/``--host``), and a rankfile's ``slot`` is a core of the node: an
allocation with more ranks than cores per node needs ``--openmpi-map seq`` (Open MPI 4.1 then
stops without a word; 5.x runs the ranks unbound under ``--oversubscribe``).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from typing import Callable, Mapping as Env, Sequence

import numpy as np

from ..machines import machine_from_spec
from ..machines.fattree.hostlist import expand_hostlist
from ..machines.flat.flat import FlatMachine
from ..mapfiles import node_canonical, write_map
from ..mapfiles.cray import RANK_ORDER_HEADER
from ..mapfiles.hydra import hydra_rankmap, hydra_runs
from ..mapping import Mapping, identity_mapping
from ..search.judge import NO_GAIN, judge_change
from ._common import add_common_options, add_method_options, add_simulate_options, context_from
from ._inputs import MACHINE_FORMS, TASK_FORMS, MachineInput, load_tasks
from ._methods import run_method
from ._registry import register

__all__ = ["LAUNCHERS", "Launch", "detect_launcher", "job_size", "read_allocation", "plan_launch",
           "launch_command", "build_parser"]

PREFIX = "mpitaskmap launch"

#: Launcher kind -> how it is told the order: what ``--launcher`` takes.
LAUNCHERS = {
    "slurm": "srun --distribution=arbitrary, SLURM_HOSTFILE=FILE (line r: the host of rank r)",
    "hydra": "MPICH Hydra mpiexec -f FILE (host:ranks, a line per node) -rankmap MAP (the line of every rank); "
             "before MPICH 4.1, -f FILE alone (host:count, a line per run of consecutive ranks on one node)",
    "openmpi": "Open MPI mpirun --rankfile FILE (5.x: --map-by rankfile:file=FILE): host and core of every rank; "
               "or, with --openmpi-map seq, --map-by seq --hostfile FILE (line r: the host of rank r)",
    "cray": "Cray MPICH: MPICH_RANK_REORDER_METHOD=3 with ./MPICH_RANK_ORDER (under srun or aprun)",
}

#: Options of a command that already place its ranks, per launcher: mapping would fight them.
_PLACING = {
    "slurm": ("-m", "--distribution", "-w", "--nodelist", "--arbitrary"),
    "hydra": ("-f", "-hostfile", "--hostfile", "-machinefile", "--machinefile", "-hosts", "--hosts", "-host",
              "--host", "-ppn", "--ppn", "-rr", "-configfile", "-rankmap"),
    "openmpi": ("--map-by", "-map-by", "--rankfile", "-rf", "--rank-by", "-rank-by", "-npernode", "--npernode",
                "-ppr", "--ppr"),
    "cray": (),
}

#: Options that name the hosts, which Open MPI's ``--map-by seq`` takes from its own hostfile.
_SEQ_PLACING = ("--hostfile", "-hostfile", "--machinefile", "-machinefile", "-H", "--host", "-host")

#: The size options of every launcher (``-n 8``, ``-n8``, ``--ntasks=8``, ``-np 8``).
_SIZE_OPTIONS = ("-n", "--n", "-np", "--np", "--ntasks")

#: Launcher options followed by values (how many words), so that a value such as ``-x
#: LD_PRELOAD=/path/lib.so`` or ``--mca plm_rsh_agent /path/ssh`` is not taken for the program.
#: Unknown options are taken for flags: a value after one that names a path ends the options
#: early, and the size read from them is then missing, so the command runs unchanged.
_VALUE_WORDS = {
    # Open MPI (4.x and 5.x)
    **dict.fromkeys(("-mca", "--mca", "-gmca", "--gmca", "--prtemca", "-prtemca", "--pmixmca", "-pmixmca"), 2),
    **dict.fromkeys(("-x", "--hostfile", "-hostfile", "--machinefile", "-machinefile", "-H", "--host", "-host",
                     "--map-by", "-map-by", "--rank-by", "-rank-by", "--bind-to", "-bind-to", "--rankfile", "-rf",
                     "--wdir", "-wd", "--wd", "--prefix", "--preload-files", "--output", "--output-filename",
                     "--tune", "--app", "-c", "-npernode", "--npernode", "-ppr", "--ppr", "--personality",
                     "--display", "--runtime-options", "--path", "--stream-buffering", "--timeout",
                     "--report-state-on-timeout", "--fwd-mpirun-port", "--launch-agent"), 1),
    # MPICH Hydra
    **dict.fromkeys(("-genv", "-env"), 2),
    **dict.fromkeys(("-genvlist", "-envlist", "-f", "-hosts", "-wdir", "-configfile", "-launcher",
                     "-launcher-exec", "-rmk", "-map-by", "-membind", "-topolib", "-demux", "-iface", "-ppn",
                     "-rankmap", "-prepend-pattern", "-outfile-pattern", "-errfile-pattern", "-localhost",
                     "-usize", "-nameserver", "-gpus-per-proc", "-order-nodes", "-bootstrap",
                     "-bootstrap-exec"), 1),
    # Slurm (its values are mostly written -X VALUE or --opt=VALUE)
    **dict.fromkeys(("-N", "--nodes", "-p", "--partition", "-t", "--time", "-J", "--job-name", "-o",
                     "--output", "-e", "--error", "-A", "--account", "-w", "--nodelist", "-m", "--distribution",
                     "--export", "--cpu-bind", "--mem", "--mpi", "-D", "--chdir", "-x", "--exclude",
                     "--cpus-per-task"), 1),
    **dict.fromkeys(_SIZE_OPTIONS, 1),
}

_VERSION_TIMEOUT = 10.0  # seconds for 'LAUNCHER --version' and 'scontrol show topology'

#: The first Hydra with ``-rankmap`` (MPICH 4.1).
_HYDRA_RANKMAP = (4, 1)
#: The longest ``-rankmap`` value given: Linux takes at most 131072 bytes in one argument.
_RANKMAP_MAX = 100_000


class NotMapped(Exception):
    """Why the command runs unchanged (one line)."""


@dataclass
class Launch:
    """What ``mpitaskmap launch`` runs: the command, the environment additions, the files written.

    Attributes
    ----------
    command : list of str
        The command to run.
    env : dict
        Variables to add to the environment (empty when unchanged).
    files : list of (str, str)
        ``(path, content)`` of every file written for the launcher.
    launcher : str or None
        The launcher kind (a key of :data:`LAUNCHERS`), None when not told.
    why : str
        Empty when mapped; else why the command runs unchanged.
    summary : str
        One line on what was mapped (empty when unchanged).
    """

    command: list
    env: dict = field(default_factory=dict)
    files: list = field(default_factory=list)
    launcher: str | None = None
    why: str = ""
    summary: str = ""

    @property
    def mapped(self) -> bool:
        """Whether the command runs in the mapped order."""
        return not self.why


# -- the launcher -----------------------------------------------------------------------------------
def detect_launcher(command: Sequence[str], version: Callable[[str], str] | None = None) -> str:
    """Return the launcher kind of ``command`` (a key of :data:`LAUNCHERS`).

    Parameters
    ----------
    command : sequence of str
        The launcher command line; its first word's base name decides: ``srun`` is
        ``"slurm"``, ``aprun`` is ``"cray"``, ``mpiexec*``/``mpirun*`` is ``"hydra"`` or
        ``"openmpi"`` by what ``version(path)`` returns.
    version : callable, optional
        Returns the text of ``PATH --version`` (default: runs it, 10 s at most).

    Returns
    -------
    str

    Raises
    ------
    NotMapped
        For any other command, or a ``--version`` text that names neither MPI.

    Examples
    --------
    >>> detect_launcher(["/usr/bin/srun", "-n", "4", "./app"])
    'slurm'
    >>> detect_launcher(["mpiexec", "-n", "4", "./app"], version=lambda p: "HYDRA build details:")
    'hydra'
    """
    name = os.path.basename(command[0])
    if name == "srun":
        return "slurm"
    if name == "aprun":
        return "cray"
    if not re.match(r"(mpiexec|mpirun)([._-].*)?$", name):
        raise NotMapped(f"unknown launcher {name!r} (known: srun, aprun, mpiexec, mpirun; or give --launcher "
                        f"{'|'.join(LAUNCHERS)})")
    text = (version or _version_text)(command[0])
    if re.search(r"HYDRA|MPICH", text):
        return "hydra"
    if re.search(r"Open MPI|OpenRTE|open-mpi", text, re.IGNORECASE):
        return "openmpi"
    first = text.strip().splitlines()[0] if text.strip() else "nothing"
    raise NotMapped(f"cannot tell the MPI of {name!r}: '{name} --version' names neither MPICH Hydra nor Open MPI "
                    f"(it printed {first!r}); give --launcher hydra|openmpi")


def _version_text(path: str) -> str:
    try:
        run = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=_VERSION_TIMEOUT,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NotMapped(f"'{path} --version' failed ({exc})") from None
    return run.stdout + run.stderr


def _openmpi_major(text: str) -> int | None:
    found = re.search(r"Open MPI\)?\s*v?(\d+)\.", text)
    return int(found.group(1)) if found else None


def _hydra_version(text: str) -> tuple[int, int] | None:
    """(major, minor) of the ``Version:`` line ``mpiexec --version`` of Hydra prints; None without one."""
    found = re.search(r"^\s*Version:\s*(\d+)\.(\d+)", text, re.MULTILINE)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _program_index(args: Sequence[str]) -> int:
    """Index of the program in a launcher's arguments: the first word that is a path or on PATH, else len.

    The values of the options in :data:`_VALUE_WORDS` are skipped (``--opt=value`` carries its own).
    """
    skip = 0
    for i, a in enumerate(args):
        if skip:
            skip -= 1
            continue
        if a == "--":
            return i + 1
        if a.startswith("-"):
            skip = 0 if "=" in a else _VALUE_WORDS.get(a, 0)
            continue
        if "/" in a or shutil.which(a) is not None:
            return i
    return len(args)


def _options(args: Sequence[str]) -> list[tuple[int, str, str | None]]:
    """The launcher's own options (before the program): (index, name, value written with '=' or joined)."""
    out = []
    for i, a in enumerate(args[:_program_index(args)]):
        if a.startswith("-"):
            name, eq, value = a.partition("=")
            out.append((i, name, value if eq else None))
    return out


def job_size(kind: str, args: Sequence[str], environ: Env[str, str] | None = None) -> int:
    """Return the ranks the command starts: its ``-n``/``-np``/``--ntasks`` (``srun``: else ``SLURM_NTASKS``).

    Only the launcher's options count: those before the program (the first word that is a
    path or a command on ``PATH``).

    Raises
    ------
    NotMapped
        When the command gives no size, gives a bad one, or starts several programs (``:``).

    Examples
    --------
    >>> job_size("hydra", ["-n", "8", "./app", "-n", "3"])
    8
    >>> job_size("slurm", ["--ntasks=16", "-c", "2", "./app"])
    16
    """
    env = os.environ if environ is None else environ
    head = list(args[:_program_index(args)])
    if ":" in args:
        raise NotMapped("the command starts several programs (':'); only one program is mapped")
    for i, a in enumerate(head):
        name, eq, value = a.partition("=")
        if name in _SIZE_OPTIONS:
            text = value if eq else (head[i + 1] if i + 1 < len(head) else args[i + 1] if i + 1 < len(args) else "")
        elif re.fullmatch(r"-n\d+", a):
            text = a[2:]
        else:
            continue
        if not text.isdigit() or int(text) < 1:
            raise NotMapped(f"the command's {name} is not a positive number; got {text!r}")
        return int(text)
    if kind == "slurm" and env.get("SLURM_NTASKS", "").isdigit():
        return int(env["SLURM_NTASKS"])
    raise NotMapped("the command gives no job size (-n N)" + (" and SLURM_NTASKS is not set" if kind == "slurm" else ""))


# -- the allocation ---------------------------------------------------------------------------------
def _topology_file(given: str | None, workdir: str, environ: Env[str, str]) -> str | None:
    """The topology file of the Slurm cluster: given, next to $SLURM_CONF, /etc/slurm, or scontrol's text saved."""
    if given:
        return given
    conf = environ.get("SLURM_CONF")
    for path in ([os.path.join(os.path.dirname(conf), "topology.conf")] if conf else []) + ["/etc/slurm/topology.conf"]:
        if os.path.isfile(path):
            return path
    scontrol = shutil.which("scontrol", path=environ.get("PATH"))
    if scontrol is None:
        return None
    try:
        run = subprocess.run([scontrol, "show", "topology"], capture_output=True, text=True,
                             timeout=_VERSION_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0 or not re.search(r"(SwitchName|BlockName)=", run.stdout):
        return None
    path = os.path.join(workdir, f"scontrol_topology.{os.getpid()}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(run.stdout)
    return path


def read_allocation(spec: str | None, n_ranks: int, *, topology: str | None = None, workdir: str = ".",
                    environ: Env[str, str] | None = None) -> MachineInput:
    """Return the job's machine for ``n_ranks`` ranks, with the host names of its nodes.

    Parameters
    ----------
    spec : str or None
        A ``--machine`` spec (:func:`~mpitaskmap.machines.machine_from_spec`); None reads
        Slurm's ``SLURM_JOB_NODELIST`` (the module doc).
    n_ranks : int
        The job size: with Slurm's nodes, ``n_ranks / nodes`` ranks per node, filling the
        nodes in node-list order.
    topology : str, optional
        Slurm's ``topology.conf`` (or a saved ``scontrol show topology``).
    workdir : str, optional
        Where the text of ``scontrol show topology`` is saved.
    environ : dict, optional
        The environment (default ``os.environ``).

    Returns
    -------
    MachineInput

    Raises
    ------
    NotMapped
        Without a spec outside a Slurm job, or when the ranks do not fill the nodes evenly.
    """
    env = os.environ if environ is None else environ
    if spec is not None:
        machine, name, hosts = machine_from_spec(spec, n_ranks, what="-m")
        return MachineInput(machine, name, hosts)
    nodelist = env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")
    if not nodelist:
        raise NotMapped("no allocation: give -m SPEC, or run inside a Slurm job (SLURM_JOB_NODELIST)")
    nodes = expand_hostlist(nodelist)
    if n_ranks % len(nodes):
        raise NotMapped(f"{n_ranks} ranks do not fill the job's {len(nodes)} nodes evenly; give -m SPEC")
    ppn = n_ranks // len(nodes)
    path = _topology_file(topology, workdir, env)
    if path is not None:
        machine, name, hosts = machine_from_spec(f"{path}:{nodelist}:ppn={ppn}", n_ranks, what="the Slurm topology")
        return MachineInput(machine, name, hosts, note=f"Slurm topology {path}")
    machine = FlatMachine(np.repeat(np.arange(len(nodes)), ppn),
                          name=f"SLURM_JOB_NODELIST {nodelist}: {len(nodes)} nodes x {ppn}, no topology (flat)")
    return MachineInput(machine, f"SLURM_JOB_NODELIST={nodelist}", nodes, note="no topology: nodes only")


# -- the plan -----------------------------------------------------------------------------------------
def _gain(mapping: Mapping, default: Mapping, node_level: bool) -> str:
    """Empty when ``mapping`` changes the order the launcher would use; else why not."""
    if mapping.info.get("judge") and mapping.info.get("candidate_index") == 0:
        return f"{NO_GAIN} by the {mapping.info['judge']} judge: the default order is kept"
    machine = mapping.machine
    same = (np.array_equal(machine.node_ids[mapping.task_to_proc], machine.node_ids[default.task_to_proc])
            if node_level else np.array_equal(mapping.task_to_proc, default.task_to_proc))
    return "the mapping is the default order" + (" node by node" if node_level else "") if same else ""


def _write(workdir: str, name: str, mapping: Mapping, fmt: str, **options) -> tuple[str, str]:
    path = os.path.abspath(os.path.join(workdir, name))
    write_map(mapping, path, fmt, **options)
    with open(path, encoding="utf-8") as fh:
        return path, fh.read()


def _check_placing(kind: str, args: Sequence[str], seq: bool = False) -> None:
    hostfile = _SEQ_PLACING if kind == "openmpi" and seq else ()
    for _, name, _value in _options(args):
        if name in _PLACING[kind] or name in hostfile or (kind == "slurm" and re.fullmatch(r"-m\w+", name)):
            raise NotMapped(f"the command places its ranks itself ({name}); remove it to launch in the mapped order")


def plan_launch(args: argparse.Namespace, command: list, environ: dict | None = None,
                version: Callable[[str], str] | None = None) -> Launch:
    """Work out what to run: the mapped command, or the command unchanged and why (never raises for the job).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``mpitaskmap launch`` (:func:`build_parser`).
    command : list of str
        The launcher command line (after ``--``).
    environ : dict, optional
        The environment (default ``os.environ``).
    version : callable, optional
        ``PATH -> text of PATH --version`` (:func:`detect_launcher`).

    Returns
    -------
    Launch
    """
    environ = dict(os.environ if environ is None else environ)
    kind = args.launcher
    try:
        return _plan(args, command, environ, version)
    except NotMapped as exc:
        return Launch(list(command), launcher=kind, why=str(exc))
    except Exception as exc:  # any error: the job runs unchanged
        if args.debug:
            traceback.print_exc()
        text = str(exc).strip().splitlines()
        msg = text[0] if text else type(exc).__name__
        if not isinstance(exc, (ValueError, OSError, RuntimeError)):
            msg = f"{type(exc).__name__}: {msg}"
        return Launch(list(command), launcher=kind, why=f"error: {msg}")


def _plan(args: argparse.Namespace, command: list, environ: dict, version) -> Launch:
    kind = args.launcher or detect_launcher(command, version)
    launcher_args = command[1:]
    if kind != "cray":
        _check_placing(kind, launcher_args, seq=args.openmpi_map == "seq")
    n = job_size(kind, launcher_args, environ)
    tasks = load_tasks(args.graph)
    if tasks.graph.n_tasks != n:
        raise NotMapped(f"the graph {args.graph} has {tasks.graph.n_tasks} tasks but the command starts {n} ranks")
    workdir = args.dir
    os.makedirs(workdir, exist_ok=True)
    mi = read_allocation(args.machine, n, topology=args.topology, workdir=workdir, environ=environ)
    if mi.machine.n_procs != n:
        raise NotMapped(f"the allocation {mi.spec} has {mi.machine.n_procs} processors but the command starts {n} "
                        "ranks")
    args.oversubscribe = False
    mapping, _ = run_method(args.method, tasks.graph, mi.machine, context_from(args, tasks.graph))
    default = identity_mapping(tasks.graph, mi.machine)
    why = _gain(mapping, default, node_level=kind in ("slurm", "hydra"))
    if why:
        raise NotMapped(why)
    placed = node_canonical(mapping)
    hosts = args.hosts if args.hosts is not None else mi.hosts
    pid = os.getpid()
    head, rest = command[:1], command[1:]
    if kind == "slurm":
        path, text = _write(workdir, f"slurm_hostfile.{pid}", placed, "slurm_hostfile", hosts=hosts)
        out = Launch(head + ["--distribution=arbitrary"] + rest, {"SLURM_HOSTFILE": path}, [(path, text)])
    elif kind == "hydra":
        out = _hydra(placed, hosts, workdir, head, rest,
                     None if args.launcher else _hydra_version((version or _version_text)(command[0])))
    elif kind == "openmpi" and args.openmpi_map == "seq":  # the node of every rank, one host a line
        path, text = _write(workdir, f"openmpi_hostfile.{pid}", placed, "slurm_hostfile", hosts=hosts)
        out = Launch(head + ["--map-by", "seq", "--hostfile", path] + rest, {}, [(path, text)])
    elif kind == "openmpi":
        path, text = _write(workdir, f"openmpi_rankfile.{pid}", placed, "openmpi_rankfile", hosts=hosts)
        major = _openmpi_major((version or _version_text)(command[0])) if args.launcher is None else None
        option = ["--map-by", f"rankfile:file={path}"] if (major or 0) >= 5 else ["--rankfile", path]
        out = Launch(head + option + rest, {}, [(path, text)])
    else:  # cray: Cray MPICH reads ./MPICH_RANK_ORDER of rank 0's working directory
        path = os.path.abspath("MPICH_RANK_ORDER")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                if not fh.readline().startswith(RANK_ORDER_HEADER):
                    raise NotMapped(f"{path} exists and was not written by mpitaskmap; move it to launch in the "
                                    "mapped order")
        path, text = _write(".", "MPICH_RANK_ORDER", placed, "mpich_rank_order")
        out = Launch(list(command), {"MPICH_RANK_REORDER_METHOD": "3"}, [(path, text)])
    out.launcher = kind
    out.summary = f"{n} ranks of {args.graph} mapped by {args.method} on {mi.spec} ({mi.machine.n_nodes} nodes), for {kind}"
    info = mapping.info
    if "candidate" in info:
        out.summary += f"; picked {info['candidate']}"
    if info.get("judge"):
        out.summary += "; " + judge_change(info["judge"], info["judged"], info["candidate_index"],
                                           info.get("metric", "objective"))[0]
    return out


def _hydra(placed: Mapping, hosts, workdir: str, head: list, rest: list, version: tuple[int, int] | None) -> Launch:
    """Hydra's mechanism: ``-f`` one line per node with ``-rankmap`` (MPICH >= 4.1), else ``-f`` rank runs.

    A host named on several lines of ``-f`` is several proxies, which MPICH takes for several
    nodes: with ``-rankmap`` every node is one line (:func:`~mpitaskmap.mapfiles.hydra.hydra_rankmap`).
    Older Hydra has no ``-rankmap``, and a rank map longer than one argument may be
    (:data:`_RANKMAP_MAX`) fails to start: then the file holds runs of consecutive ranks on one
    node (:func:`~mpitaskmap.mapfiles.hydra.hydra_runs`), right for the host of every rank.
    """
    path = os.path.abspath(os.path.join(workdir, f"hydra_hostfile.{os.getpid()}"))
    placement = hydra_rankmap(placed, hosts=hosts)
    if (version is None or version >= _HYDRA_RANKMAP) and len(placement.rankmap) <= _RANKMAP_MAX:
        text, option = placement.hostfile, ["-rankmap", placement.rankmap]
    else:
        text, option = hydra_runs(placed, hosts=hosts), []
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return Launch(head + ["-f", path] + option + rest, {}, [(path, text)])


# -- the command ----------------------------------------------------------------------------------------
DESCRIPTION = """\
Map a task graph (a recorded traffic matrix, or any --tasks form) onto the job's allocation,
then run the launcher in the mapped order with its own mechanism:
""" + "\n".join(f"  {k:<8} {v}" for k, v in LAUNCHERS.items()) + """

The launcher is told by its name (srun, aprun, mpiexec, mpirun; mpiexec/mpirun by what
'LAUNCHER --version' prints) or named by --launcher.  The job size is the command's
-n/-np/--ntasks (srun: else SLURM_NTASKS) and must equal the graph's tasks.  The allocation is
-m SPEC, else Slurm's SLURM_JOB_NODELIST on its topology.conf (--topology, next to $SLURM_CONF,
/etc/slurm/topology.conf, or 'scontrol show topology'), else the nodes alone.

When it cannot map (unknown launcher, a size other than the graph's, no gain over the default
order, any error) it runs the command unchanged and says why in one line on stderr: it never
keeps the job from running.
"""

EPILOG = """\
examples:
  mpitaskmap launch --graph traffic.mtx -- srun -n 512 ./app
  mpitaskmap launch --graph traffic.mtx -m 'topology.conf:node[01-32]:ppn=16,taper=4' -- mpiexec -n 512 ./app
  mpitaskmap launch --graph stencil3d:8x8x8 --launcher cray -- srun -n 512 ./app
  mpitaskmap launch --graph traffic.mtx --dry-run -- mpirun -np 64 ./app

exit status: the launcher's (the command replaces itself by it); 2 on a bad command line of
launch itself, 127 when the launcher cannot be started.
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap launch`` (the options before ``--``)."""
    p = argparse.ArgumentParser(prog=f"{PREFIX}", usage=f"{PREFIX} --graph FILE [options] -- LAUNCHER ARGS...",
                                description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("inputs")
    g.add_argument("--graph", "-t", "--tasks", dest="graph", required=True, metavar="SPEC",
                   help=f"the task graph: a recorded traffic matrix or any form of {TASK_FORMS}")
    g.add_argument("-m", "--machine", metavar="SPEC",
                   help=f"the allocation (default: Slurm's nodes and topology): {MACHINE_FORMS}")
    g.add_argument("--topology", metavar="PATH", help="Slurm's topology.conf or a saved 'scontrol show topology'")
    g.add_argument("--hosts", metavar="FMT", help="host names of the nodes: a %%-format of the node id "
                                                  "(default: the allocation's own names)")
    g = p.add_argument_group("launch")
    g.add_argument("--launcher", choices=list(LAUNCHERS), help="the launcher kind (default: from the command)")
    g.add_argument("--openmpi-map", choices=["rankfile", "seq"], default="rankfile",
                   help="Open MPI: a rankfile (host and core of every rank; default) or --map-by seq with a "
                        "hostfile (the host of every rank, one a line)")
    g.add_argument("--method", default="auto", metavar="NAME[:ARG][:OPTIONS]", help="mapping method (default auto)")
    g.add_argument("--dir", default=".mpitaskmap-launch", metavar="DIR",
                   help="where the launcher's files are written (default .mpitaskmap-launch; Cray: ./MPICH_RANK_ORDER)")
    g.add_argument("--dry-run", action="store_true",
                   help="print the command, the environment additions and the files; do not run")
    add_method_options(p)
    add_simulate_options(p.add_argument_group("auto's judge"), "auto: judge by SimGrid itself (--judge simulate)")
    add_common_options(p)
    return p


def render(launch: Launch) -> str:
    """The ``--dry-run`` text: environment additions, command, and every file with its content."""
    lines = []
    if not launch.mapped:
        lines.append(f"# not mapped: {launch.why}; the command runs unchanged")
    lines.append("environment:" + ("" if launch.env else " (unchanged)"))
    lines += [f"  {k}={v}" for k, v in launch.env.items()]
    lines += ["command:", "  " + shlex.join(launch.command)]
    for path, text in launch.files:
        lines.append(f"file {path}:")
        lines += [f"  {line}" for line in text.splitlines()]
    return "\n".join(lines) + "\n"


def launch_command(argv: list, execute: Callable[[str, list, dict], object] = os.execvpe) -> int:
    """Run ``mpitaskmap launch`` with ``argv``: plan, then ``execute`` the launcher (by default, ``exec``).

    Parameters
    ----------
    argv : list of str
        Arguments after ``launch``: options, ``--``, the launcher command.
    execute : callable, optional
        ``execute(file, argv, env)``; :func:`os.execvpe` (the default) does not return.

    Returns
    -------
    int
        0 after ``--dry-run`` (or a returning ``execute``), 127 when the launcher cannot be
        started, 2 on a bad command line.
    """
    if "--" not in argv:
        if any(a in ("-h", "--help") for a in argv):
            build_parser().parse_args(["-h"])
        sys.stderr.write(f"{PREFIX}: error: expected '-- LAUNCHER ARGS...' after the options\n")
        return 2
    cut = argv.index("--")
    command = argv[cut + 1:]
    if not command:
        sys.stderr.write(f"{PREFIX}: error: no launcher command after '--'\n")
        return 2
    try:
        args = build_parser().parse_args(argv[:cut])
    except SystemExit as exc:  # a bad option of launch itself: still run the job, as promised
        if exc.code == 0:
            return 0
        sys.stderr.write(f"{PREFIX}: not mapped (bad options of launch); running the command unchanged\n")
        return _run(Launch(list(command), why="bad options"), execute)
    plan = plan_launch(args, command)
    if args.dry_run:
        sys.stdout.write(render(plan))
        if not plan.mapped:
            sys.stderr.write(f"{PREFIX}: not mapped ({plan.why}); the command would run unchanged\n")
        return 0
    if not plan.mapped:
        sys.stderr.write(f"{PREFIX}: not mapped ({plan.why}); running the command unchanged\n")
    elif not args.quiet:
        sys.stderr.write(f"{PREFIX}: {plan.summary}\n")
    return _run(plan, execute)


def _run(plan: Launch, execute) -> int:
    env = dict(os.environ, **plan.env)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        execute(plan.command[0], plan.command, env)
    except OSError as exc:
        sys.stderr.write(f"{PREFIX}: error: cannot start {plan.command[0]!r} ({exc.strerror or exc})\n")
        return 127
    return 0


register("launch", "map onto the job's allocation, then run srun/mpiexec/mpirun in that order")(launch_command)
