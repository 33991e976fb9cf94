"""``mpitaskmap formats``: the input and output file forms, one real example each.

``mpitaskmap formats`` prints every form; ``mpitaskmap formats NAME`` one of them
(:data:`FORMATS`); ``mpitaskmap --help-formats`` is the same as ``mpitaskmap formats``.
The forms: the machine file (torus and dragonfly forms), Slurm's ``topology.conf`` and node
lists, the task-graph specs and files, recorded traffic, and the map files :mod:`mpitaskmap.mapfiles` writes
and reads.

Every example is a file the library reads: ``tests/cli/test_formats.py`` writes each one
and reads it back with the reader named beside it (:func:`~mpitaskmap.machines.machine_file.read_machine_file`,
:func:`~mpitaskmap.machines.fattree.slurm_topology.read_topology_spec`,
:func:`~mpitaskmap.machines.fattree.hostlist.expand_hostlist`, the ``--tasks`` reader and
:func:`~mpitaskmap.mapfiles.read_map`), so this help cannot drift from the parsers.  The
map-file examples all describe one mapping (:data:`EXAMPLE_MAPPING`) on the 8 ranks of
the machine-file example.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import dataclass, replace

from ..mapfiles import MAP_FORMATS
from ._registry import register

__all__ = ["FormatHelp", "FORMATS", "EXAMPLE_MAPPING", "render", "formats_command", "build_parser"]


@dataclass(frozen=True)
class FormatHelp:
    """One file form: its name, a one-line summary, the rules and the example files.

    Attributes
    ----------
    name : str
        What ``mpitaskmap formats NAME`` takes.
    summary : str
        One line (where the form is used).
    text : str
        The rules: directives, keys, their meaning.
    examples : tuple of (str, str)
        ``(file name, content)`` of each example file (content ends with a newline).
    usage : str
        A command that reads the example (empty if none): run as written in the examples'
        directory, it succeeds.
    """

    name: str
    summary: str
    text: str
    examples: tuple
    usage: str = ""


#: The mapping every map-file example writes: rank ``r`` on processor ``EXAMPLE_MAPPING[r]`` of the
#: machine-file example (processors 0-1 on nid00012, 2-3 on nid00013, 4-5 on nid00040, 6-7 on nid00041).
EXAMPLE_MAPPING = (0, 1, 4, 5, 6, 7, 2, 3)

_MACHINE = FormatHelp(
    "machine", "machine file, torus form: where each rank sits on a torus or mesh (-m PATH, MPITASKMAP_COORDS_FILE)",
    """\
One directive or rank per line; '#' starts a comment; ranks are numbered in file order.
  dims 17 8 24             network lengths (required unless the caller gives them)
  wrap 1 1 0               torus (1) or mesh (0) per dimension (default all 1)
  bandwidth gemini         link GB/s: 'gemini' (Cray Gemini's per-position links) or one value per dimension
  names X Y Z              dimension names in reports (default X Y Z ...)
  ranks_per_node 24        consecutive ranks on one router form nodes of this size (default 1)
  x y z                    one rank at router (x, y, z)
  x y z node=7             one rank with an explicit node id
  host NAME RANKS x y z    RANKS consecutive ranks on host NAME at router (x, y, z)
A file of bare 'x y z' lines only (Zoltan2's test format) needs dims from the caller.  A node
sits at one router: a host or node id at two routers is an error, as is a host line repeated
exactly.  Every error names the file, the line and its text.
Reader: mpitaskmap.machines.read_machine_file.""",
    (("alloc.txt", """\
# 4 x 2 x 2 routers (X and Y wrap, Z is a mesh), Gemini-like link bandwidths;
# 8 ranks on 4 nodes, two of them on router 0 0 0
dims 4 2 2
wrap 1 1 0
bandwidth 75 37.5 120
names X Y Z
#    NAME      RANKS  X Y Z
host nid00012  2      0 0 0
host nid00013  2      0 0 0
host nid00040  2      2 1 0
host nid00041  2      2 1 1
"""),),
    "mpitaskmap eval -m alloc.txt -t stencil3d:2x2x2",
)

_DRAGONFLY = FormatHelp(
    "dragonfly", "machine file, dragonfly form: an allocation on HPE Slingshot or Cray Aries (-m PATH)",
    """\
The first directive is a 'network dragonfly' line; then one 'host' line per node, ranks
numbered in file order.
  network dragonfly KEY=VALUE ...      the shape, wiring, bandwidths and routing
  host NAME RANKS GROUP SWITCH         RANKS ranks on host NAME, switch SWITCH of group GROUP
                                       (switches=S: all-to-all groups, Slingshot)
  host NAME RANKS GROUP ROW COLUMN     the same on row x column groups (switches=RxC, Aries:
                                       chassis and blade); the switch is ROW * columns + COLUMN
Keys: n_groups, switches (S or RxC) and nodes_per_switch are required; global_links (per
pair of groups, default 1), global_ports (per switch, default the fewest that fit), routing
(minimal, ecmp, valiant, ugal or either, default minimal), link GB/s: bw (every class), bw_node, bw_local
(all-to-all), bw_green, bw_black (rows, columns), bw_global (default 25 everywhere).
Keys are separated by spaces or commas.  Torus directives and bare coordinate lines are
errors here.  The cabinet of an HPE Cray EX node's xname is its group.
Reader: mpitaskmap.machines.read_machine_file (examples/dragonfly_alloc.txt is a larger one).""",
    (("dragonfly.txt", """\
# 3 Slingshot groups of 4 switches, 2 nodes each; 4 nodes of 8 ranks
network dragonfly n_groups=3 switches=4 nodes_per_switch=2 global_links=2 bw_node=50 bw_local=25 bw_global=25
#    NAME       RANKS  GROUP  SWITCH
host nid000012  8      0      1
host nid000013  8      0      1
host nid000107  8      2      3
host nid000150  8      1      0
"""),),
    "mpitaskmap map -m dragonfly.txt -t stencil3d:4x4x2 --method auto -o slurm_hostfile=dragonfly_hosts.txt",
)

_TOPOLOGY = FormatHelp(
    "topology", "Slurm topology.conf (or saved 'scontrol show topology') with the job's nodes: a fat tree "
                "(-m TOPOLOGY_FILE:NODELIST, MPITASKMAP_COORDS_FILE)",
    """\
Records, one a line (a line ending in '\\' continues; '#' starts a comment; keys are
case-insensitive; values may be quoted):
  SwitchName=NAME Nodes=HOSTLIST       a leaf switch and its nodes (topology/tree)
  SwitchName=NAME Switches=HOSTLIST    an upper switch and its child switches
      also on a SwitchName= line: LinkSpeed= (read, unused, as in Slurm), Level= (from
      scontrol show topology; checked against the children)
  BlockName=NAME Nodes=HOSTLIST        a block and its nodes (topology/block)
      also: BlockIndex=, BlockSize= (scontrol show topology)
  BlockSizes=N,N,...                   the block plugin's allowed sizes
  AggregatedBlock=NAME Nodes=...       scontrol show topology's allocation groups (read, not modelled)
A file holds switches or blocks, not both.  The job's nodes need a switch above all of them
(Slurm places no job across switches without a common parent).  Used as
TOPOLOGY_FILE:NODELIST[:OPTIONS]: the job's nodes as a Slurm host list (see 'mpitaskmap
formats nodelist') in rank order, and the options ppn (ranks per node, default 1),
taper (up-link taper, default 1), bw (a node link's GB/s, default 12.5), spines (parallel
up-links of every switch below the top, one to each top switch, default the top switches the
file lists above the job's leaves, else 1; uplinks is the same), routing (dmodk, ecmp or
unknown, default dmodk with one up-link, unknown with several: d-mod-k on a host numbering not
known; dmodk numbers the hosts in name order).  Ranks fill the nodes in node-list order, ppn each.
Reader: mpitaskmap.machines.fattree.slurm_topology.read_topology_spec (parse_topology_conf for the text).""",
    (("topology.conf", """\
# two leaf switches of 4 nodes under one spine (topology/tree)
SwitchName=leaf1 Nodes=node[01-04]
SwitchName=leaf2 Nodes=node[05-08] LinkSpeed=100
SwitchName=spine Switches=leaf[1-2]
"""), ("blocks.conf", """\
# two blocks of 4 nodes (topology/block)
BlockName=b1 Nodes=node[01-04]
BlockName=b2 Nodes=node[05-08]
BlockSizes=4,8
""")),
    "mpitaskmap eval -m 'topology.conf:node[02-03,05-06]:ppn=2,taper=2' -t stencil3d:2x2x2",
)

_NODELIST = FormatHelp(
    "nodelist", "Slurm host list: the job's nodes (SLURM_JOB_NODELIST) in a TOPOLOGY_FILE:NODELIST spec",
    """\
Entries separated by commas (or white space outside brackets).  A bracket holds numbers and
ranges, comma-separated; a range keeps the width of its first number ([08-10] gives 08 09
10); several bracket groups multiply, the last one varying fastest; text may follow the last
']'.  A node list of the TOPOLOGY_FILE:NODELIST spec is in rank order.  The example expands
to node01 node02 node05 gpu1n08 gpu1n09 gpu1n10 gpu2n08 gpu2n09 gpu2n10.
Reader: mpitaskmap.machines.fattree.hostlist.expand_hostlist.""",
    (("nodelist.txt", "node[01-02,05],gpu[1-2]n[08-10]\n"),),
)

_TASKS = FormatHelp(
    "tasks", "task graphs: who talks to whom, and how much (-t SPEC)",
    """\
  stencil3d:NXxNYxNZ[:points=7|27,periodic=0|1,weight=W]   a 3-D stencil (also stencil2d:NXxNY,
                           points=5|9, and stencil:LENGTHS in any dimension count); task id
                           x + NX * (y + NY * z), x fastest; weight is every message's volume
  transpose:PxQ            the PERCS transpose pattern on a P x Q grid
  coords:PATH              task coordinates, one task a line (numbers separated by spaces or
                           commas); a nearest-neighbour proxy graph along each dimension
  matrix:PATH              a communication matrix: dense rows (row i, column j = volume task i
                           sends to task j; 0 = no message), or Matrix Market 'matrix
                           coordinate' (real, integer or pattern; general or symmetric), 1-based
  recording:PATH           a traffic recording of 'mpitaskmap record' (mpitaskmap formats recording)
  ompi-monitoring:PREFIX   Open MPI's monitoring files PREFIX.<rank>.prof (mpitaskmap formats recording)
  PATH                     a recording when PATH.json or PATH.counts.mtx is beside it; Open MPI's
                           monitoring when PATH.0.prof is; Matrix Market when its first line says
                           so; else task coordinates
'#' starts a comment in the coordinate and dense files ('%' in Matrix Market).
--task-coords PATH attaches coordinates (same form as coords:) to a matrix, for the geometric
methods.  The examples below: -t coords:tasks.txt, -t matrix:comm.txt, -t matrix:comm.mtx.""",
    (("tasks.txt", """\
# 4 tasks on a 2 x 2 grid: x y z
0 0 0
1 0 0
0 1 0
1 1 0
"""), ("comm.txt", """\
# dense: row i = bytes task i sends to tasks 0..3
0  10 0  5
10 0  10 0
0  10 0  10
5  0  10 0
"""), ("comm.mtx", """\
%%MatrixMarket matrix coordinate real general
% 4 tasks, 5 messages: row sends to column
4 4 5
1 2 10
2 1 10
2 3 10
3 4 10
4 1 5
""")),
    "mpitaskmap eval -m sim:torus:dims=2x2 -t coords:tasks.txt",
)


_HIST = "0,0,0,0,0,0,0,0,0,0,0,0,0,4,0,0"
_RECORDING = FormatHelp(
    "recording", "recorded traffic as a task graph: mpitaskmap record's files, Open MPI's monitoring (-t PATH)",
    """\
mpitaskmap record -o traffic.mtx (or LD_PRELOAD=$(mpitaskmap --pmpi-lib) MPITASKMAP_RECORD=traffic.mtx)
writes three files at MPI_Finalize, MPI_COMM_WORLD ranks numbered from 1, row = sender:
  traffic.mtx              Matrix Market 'coordinate real general': bytes the row's rank sent
  traffic.mtx.counts.mtx   the same pairs, 'coordinate integer general': messages
  traffic.mtx.json         "format": "mpitaskmap traffic recording", "version": 1, the job: ranks,
                           nodes, ranks_per_node, mpi_library, duration_s, window (MPI_Pcontrol),
                           nonzeros, messages, bytes (and collectives when recorded)
-t traffic.mtx (a sidecar beside it) or -t recording:traffic.mtx reads it as ONE ROUND of the run:
K = the most messages of a pair of distinct ranks (1 without the counts file), each pair's weight
= its bytes / K, so a pair that exchanged once a step is one message of its mean size (a stencil
run recorded over S steps gives the declared stencil graph); a rank's messages to itself are left
out.  The tasks line of map/eval/compare says the totals and K.  -t matrix:traffic.mtx reads the
bytes as a plain matrix (the whole run).  Sizes that differ between the files, an entry out of
range, negative bytes, a count without bytes, another format or version: an error naming the
file and the line.
Open MPI's pml monitoring (mpirun --mca pml_monitoring_enable 2 --mca
pml_monitoring_enable_output 3 --mca pml_monitoring_filename mon ...) writes mon.<rank>.prof, one
file per rank, lines 'KIND<tab>SENDER<tab>PEER<tab>N bytes<tab>M msgs sent' (ranks from 0): E the
application's messages (tags >= 0), I internal (collectives' and protocol messages), S/R one-sided,
C collectives per peer, D/O2A/A2O/A2A per communicator.  -t ompi-monitoring:mon (or -t mon) reads
the E lines as a recording (rounds as above) and names what it left out.  With
pml_monitoring_enable 1 Open MPI writes every message as E.
Readers: mpitaskmap.graphs.read_recording, read_ompi_monitoring, TaskGraph.from_file.
The examples: a ring of 4 ranks recorded over 10 steps (4096 bytes a message, K = 10; rank 0 also
sent 800 bytes to itself), and 2 ranks under Open MPI (4 messages of 1024 bytes from 0 to 1).""",
    (("traffic.mtx", """\
%%MatrixMarket matrix coordinate real general
% mpitaskmap traffic recording: bytes sent by the row's rank to the column's rank, MPI_COMM_WORLD ranks numbered from 1
4 4 5
1 1 800
1 2 40960
2 3 40960
3 4 40960
4 1 40960
"""), ("traffic.mtx.counts.mtx", """\
%%MatrixMarket matrix coordinate integer general
% mpitaskmap traffic recording: messages sent by the row's rank to the column's rank, MPI_COMM_WORLD ranks numbered from 1
4 4 5
1 1 10
1 2 10
2 3 10
3 4 10
4 1 10
"""), ("traffic.mtx.json", """\
{
  "format": "mpitaskmap traffic recording",
  "version": 1,
  "matrix": "traffic.mtx",
  "weight": "bytes",
  "counts": "traffic.mtx.counts.mtx",
  "ranks": 4,
  "nodes": 1,
  "ranks_per_node": 4,
  "mpi_library": "MPICH Version: 4.2.0",
  "recorded": "point-to-point: MPI_Send, MPI_Isend, ...",
  "duration_s": 1.250000,
  "nonzeros": 5,
  "messages": 50,
  "bytes": 164640,
  "window": {"pcontrol_calls": 0, "rank": 0, "intervals_s": [[0.000120, 1.250000]], "intervals_cut": false}
}
"""), ("mon.0.prof", f"""\
# POINT TO POINT
E\t0\t1\t4096 bytes\t4 msgs sent\t{_HIST}
I\t0\t1\t24 bytes\t6 msgs sent
# OSC
# COLLECTIVES
C\t0\t1\t24 bytes\t6 msgs sent
D\tMPI_COMM_WORLD\tprocs: 0,1
O2A\t0\t0 bytes\t0 msgs sent
A2O\t0\t24 bytes\t3 msgs sent
A2A\t0\t0 bytes\t0 msgs sent
"""), ("mon.1.prof", """\
# POINT TO POINT
I\t1\t0\t24 bytes\t6 msgs sent
# OSC
# COLLECTIVES
D\tMPI_COMM_WORLD\tprocs: 0,1
O2A\t1\t0 bytes\t0 msgs sent
A2O\t1\t0 bytes\t0 msgs sent
A2A\t1\t0 bytes\t0 msgs sent
""")),
    "mpitaskmap eval -m sim:torus:dims=2x2 -t traffic.mtx",
)

#: The host list of the map-file examples (Slurm's and SMPI's hostfiles are the same text)
_HOST_LIST = """\
nid00012
nid00012
nid00040
nid00040
nid00041
nid00041
nid00013
nid00013
"""

_MAP_USE = """\
Written with -o FORMAT=PATH, read with --mapping [FORMAT=]PATH (without FORMAT=, -o takes the
format from the file name and --mapping from the file's content; a host list reads as
slurm_hostfile, as smpi_hostfile when its name holds "smpi": the same text and reader).  The
example places ranks 0-1 on nid00012, 2-3 on nid00040, 4-5 on nid00041 and 6-7 on nid00013,
the machine of 'mpitaskmap formats machine'."""
_MAP = {
    "mpich_rank_order": FormatHelp(
        "mpich_rank_order", "Cray MPICH rank order: MPICH_RANK_REORDER_METHOD=3 reads MPICH_RANK_ORDER",
        """\
Ranks separated by commas, a-b a range; entry i is the rank that runs on processor i (the
job's slots in launch order: the first node's cores, then the next node's).  Line breaks only
separate entries; we write one line per node.  The mapping must be a permutation.""",
        (("MPICH_RANK_ORDER", """\
# mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3
0,1
6,7
2,3
4,5
"""),)),
    "openmpi_rankfile": FormatHelp(
        "openmpi_rankfile", "Open MPI rankfile: mpirun --rankfile FILE (Open MPI 5: --map-by rankfile:file=FILE)",
        """\
One line per rank, in rank order: 'rank R=HOST slot=S', S the processor's position among
its node's processors (the logical core).  Pins every rank to one core.""",
        (("rankfile", """\
rank 0=nid00012 slot=0
rank 1=nid00012 slot=1
rank 2=nid00040 slot=0
rank 3=nid00040 slot=1
rank 4=nid00041 slot=0
rank 5=nid00041 slot=1
rank 6=nid00013 slot=0
rank 7=nid00013 slot=1
"""),)),
    "slurm_hostfile": FormatHelp(
        "slurm_hostfile", "Slurm host list: SLURM_HOSTFILE=FILE srun --distribution=arbitrary",
        """\
Line r is the host that runs rank r.  It fixes each rank's node, not its core: read back,
a node's ranks take its processors in ascending rank order (the metrics are the same).""",
        (("hostfile", _HOST_LIST),)),
    "bluegene": FormatHelp(
        "bluegene", "Blue Gene map file: runjob --mapping FILE (BG/Q), mpirun -mapfile FILE (BG/P); Rubik's output",
        """\
One line per rank, in rank order: the router coordinates of its processor, then its slot
(its position among the processors on that router; on Blue Gene the core, T).  BG/P:
x y z t; BG/Q: a b c d e t.""",
        (("ranks.map", """\
0 0 0 0
0 0 0 1
2 1 0 0
2 1 0 1
2 1 1 0
2 1 1 1
0 0 0 2
0 0 0 3
"""),)),
    "smpi_hostfile": FormatHelp(
        "smpi_hostfile", "SimGrid SMPI hostfile: smpirun -platform P.xml -hostfile FILE",
        """\
Line r is the host that runs rank r: the Slurm host list's text, with its node-level
meaning; the platform (mpitaskmap simgrid, mpitaskmap.sim.simgrid.platform_xml) names the
same hosts.""",
        (("smpi_hostfile.txt", _HOST_LIST),)),
    "csv": FormatHelp(
        "csv", "CSV: one row per rank, for spreadsheets and scripts",
        """\
A header, then one row per rank in rank order: rank, proc, node, then on a torus one column
per dimension (the machine's names) and slot.  The reader takes proc and checks node and the
coordinates against the machine.""",
        (("mapping.csv", """\
rank,proc,node,X,Y,Z,slot
0,0,0,0,0,0,0
1,1,0,0,0,0,1
2,4,2,2,1,0,0
3,5,2,2,1,0,1
4,6,3,2,1,1,0
5,7,3,2,1,1,1
6,2,1,0,0,0,2
7,3,1,0,0,0,3
"""),)),
}

#: Every form by name, in the order ``mpitaskmap formats`` prints them (map files: :data:`~mpitaskmap.mapfiles.MAP_FORMATS`).
FORMATS: dict[str, FormatHelp] = {f.name: f for f in (_MACHINE, _DRAGONFLY, _TOPOLOGY, _NODELIST, _TASKS,
                                                        _RECORDING)}
FORMATS.update({name: replace(_MAP[name], usage=f"mpitaskmap eval -m alloc.txt -t stencil3d:2x2x2 --mapping "
                                                f"{_MAP[name].examples[0][0]}")
                for name in MAP_FORMATS if name in _MAP})

#: Names that print several forms.
GROUPS = {"mapfiles": tuple(MAP_FORMATS), "machines": ("machine", "dragonfly", "topology", "nodelist")}


def render(name: str) -> str:
    """Return the help of one form: title, rules, each example file (indented 4) and its use.

    Parameters
    ----------
    name : str
        A key of :data:`FORMATS`.

    Returns
    -------
    str
        Ends with a newline.

    Examples
    --------
    >>> print(render("nodelist").splitlines()[0])
    nodelist -- Slurm host list: the job's nodes (SLURM_JOB_NODELIST) in a TOPOLOGY_FILE:NODELIST spec
    """
    f = FORMATS[name]
    lines = [f"{f.name} -- {f.summary}", "", f.text.rstrip("\n")]
    if f.name in MAP_FORMATS:
        lines += ["", _MAP_USE]
    for file_name, content in f.examples:
        lines += ["", f"example ({file_name}):", textwrap.indent(content, "    ", lambda line: True).rstrip("\n")]
    if f.usage:
        lines += ["", f"usage: {f.usage}"]
    return "\n".join(lines) + "\n"


DESCRIPTION = """\
The file forms mpitaskmap reads and writes, with one example each (every example is a file
the library reads as shown: a test reads each one back).  With no NAME, all of them.
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap formats``."""
    names = ", ".join([*FORMATS, *GROUPS])
    p = argparse.ArgumentParser(prog="mpitaskmap formats", description=DESCRIPTION,
                                epilog=f"names: {names}\n\nexamples:\n  mpitaskmap formats\n"
                                       "  mpitaskmap formats machine dragonfly\n  mpitaskmap formats mapfiles\n"
                                       "  mpitaskmap --help-formats topology\n\n"
                                       "exit status: 0, or 2 for an unknown name.",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("names", nargs="*", metavar="NAME", help="the forms to print (default all)")
    p.add_argument("--list", action="store_true", help="list the names and one line each")
    p.add_argument("-q", "--quiet", action="store_true", help="accepted for symmetry; nothing to silence")
    p.add_argument("--debug", action="store_true", help="accepted for symmetry")
    return p


def formats_command(argv: list) -> int:
    """Run ``mpitaskmap formats`` with ``argv``; return the exit status.

    Parameters
    ----------
    argv : list of str
        Arguments after ``formats``: form names (default all), ``--list``.

    Returns
    -------
    int
        0 on success, 2 on an unknown name (one line on stderr naming it and the valid ones).
    """
    args = build_parser().parse_args(argv)
    if args.list:
        width = max(map(len, FORMATS))
        sys.stdout.write("".join(f"{n:<{width}}  {f.summary}\n" for n, f in FORMATS.items()))
        return 0
    chosen: list[str] = []
    for name in args.names or list(FORMATS):
        key = name.strip().lower()
        if key in GROUPS:
            chosen += GROUPS[key]
        elif key in FORMATS:
            chosen.append(key)
        else:
            sys.stderr.write(f"mpitaskmap formats: error: unknown form {name!r}; valid: {', '.join([*FORMATS, *GROUPS])}\n")
            return 2
    rule = "\n" + "-" * 92 + "\n\n"
    sys.stdout.write(rule.join(render(n) for n in dict.fromkeys(chosen)))
    return 0


register("formats", "the machine-file, topology.conf, node-list, task-graph and map-file forms, an example each")(
    formats_command)
