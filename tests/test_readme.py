"""README.md is true: its Python blocks run (the MPI ones under mpiexec), its shell walkthroughs
run at a small size, its lists match the code, and the checker of its output blocks
(``python -m benchmarks.readme_outputs``) fails on a stale copy.

The blocks are read with the checker's own parser (:func:`read_blocks`): a block that
imports mpi4py runs in the MPI tests (``--with-mpi -m mpi``, every rank) and once serially
(one rank); every other Python block runs serially.  Each block runs as compiled from
README.md at its own line numbers, so a traceback names the README line.  Every shell
block carries a ``<!-- shell: NAME -->`` marker and is either run here (:data:`SMALL`: the
README's commands with only their sizes replaced) or listed in :data:`NOT_RUN` with the
reason.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import mpitaskmap as mt
from mpitaskmap.sim.simgrid import simgrid_missing

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: Runs the first README block on a simulated machine, where there is something to map.
PROVIDER = "sim:titan:ppn=1,seed=1"

#: The README's shell blocks run here, each with these replacements (sizes only; each must occur).
SMALL = {
    "demo": {"mpiexec -n 16": "mpiexec -n 4", "examples/minighost.py": "examples/minighost.py --steps 2 --n 4"},
    "offline": {"nodes=256,ppn=16": "nodes=8,ppn=4", "stencil3d:16x16x16": "stencil3d:4x4x2"},
    "fattree": {"mpiexec -n 16": "mpiexec -n 4", "examples/minighost.py": "examples/minighost.py --steps 2 --n 4"},
    "dragonfly": {"mpiexec -n 16": "mpiexec -n 4", "nodes=8,ppn=2": "nodes=2,ppn=2",
                  "examples/minighost.py": "examples/minighost.py --steps 2 --n 4"},
    "simgrid": {"ppn=8,seed=1": "ppn=2,seed=1", "stencil3d:8x8x8": "stencil3d:4x2x2",
                '--run "./halo3d 8 8 8 8 8 8 5 5"': '--run "./halo3d 4 2 2 8 8 8 5 3"'},
    "unmodified": {"./halo3d 4 4 4 8 8 8 5 10": "./halo3d 4 4 4 4 4 4 2 3"},
}
#: The README's shell blocks not run here, and why.
NOT_RUN = {
    "tests": "it is the test command itself: .ci/run runs it verbatim (test_ci_runs_the_readme_test_command)",
    "cluster": "it needs a cluster's MPI module and srun",
}


@pytest.fixture(scope="module")
def ro(benchmark_loader):
    with benchmark_loader("readme_outputs") as mod:
        yield mod


@pytest.fixture(scope="module")
def blocks(ro):
    return ro.read_blocks(README.read_text(encoding="utf-8"))


def python_blocks(blocks, *, mpi: bool):
    return [b for b in blocks if b.lang == "python" and ("from mpi4py import MPI" in b.text) == mpi]


def run_block(block) -> dict:
    """Execute a README block as a script; return its namespace (tracebacks name README.md's lines)."""
    namespace = {"__name__": "__main__"}
    exec(compile("\n" * (block.first_line - 1) + block.text, str(README), "exec"), namespace)
    return namespace


def small_commands(ro, blocks, name: str) -> list[str]:
    """The commands of shell block ``name``, sizes replaced by :data:`SMALL` (each replacement must apply)."""
    text = ro.marked(blocks, "shell")[name].text
    for old, new in SMALL[name].items():
        assert old in text, f"README.md shell block {name!r} no longer contains {old!r}: update SMALL"
        text = text.replace(old, new)
    return ro.shell_commands(text)


def table(ro, stdout: str, first: str) -> dict[str, dict[str, str]]:
    """The rows of the text table whose header starts with ``first``: {row name: {column: cell}}."""
    lines = stdout.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith(first))
    cells = ro.header_cells(lines[i])
    out = {}
    for line in lines[i + 1:]:
        if not ro.is_row(line):
            break
        spans = ro.row_spans(cells, line)
        out[line.split()[0]] = {header: line[a:b].strip() for (_, header), (a, b) in zip(cells, spans)}
    return out


# -- Python blocks ---------------------------------------------------------------------------------------

def test_the_readme_has_its_python_blocks(blocks):
    serial, mpi = python_blocks(blocks, mpi=False), python_blocks(blocks, mpi=True)
    assert len(serial) == 1 and len(mpi) == 2  # the API in twenty lines; remap's one call and the API's MPI part
    text = README.read_text(encoding="utf-8")
    lo = text[:text.index("## The API in twenty lines")].count("\n")
    hi = text[:text.index("Methods of `mt.map(graph, machine, method, **options)`")].count("\n")
    api = [b for b in blocks if b.lang == "python" and lo < b.start < hi]
    assert api == [serial[0], mpi[1]]
    assert sum(len([ln for ln in b.text.splitlines() if ln.strip()]) for b in api) <= 22  # "about twenty lines"


def test_serial_python_blocks_run_and_map_a_job_that_fits(blocks, capsys):
    (block,) = python_blocks(blocks, mpi=False)
    ns = run_block(block)
    machine, graph, default, best, res = (ns[k] for k in ("machine", "graph", "default", "best", "res"))
    # the comments' figures: 1,024 cores and 1,024 tasks, one task per core
    assert machine.n_procs == 1024 and graph.n_tasks == 1024
    assert len(set(best.task_to_proc.tolist())) == 1024
    assert ns["mapping"].info["candidate"].startswith("geometric fz")
    # auto keeps the default order as candidate 0: never worse by its objective
    assert best.metrics(["predicted_time"])["predicted_time"] <= default.metrics(["predicted_time"])["predicted_time"]
    # best_of keeps the least Latency(M) of its list, which holds the default order
    assert res.score == min(res.scores) and res.score <= default.metrics(["latency"])["latency"]
    out = capsys.readouterr().out
    assert "average_hops" in out and best.info["candidate"] in out


def test_mpi_python_blocks_run_serially_on_one_rank(blocks, monkeypatch, capsys):
    monkeypatch.setenv("MPITASKMAP_PROVIDER", PROVIDER)
    for block in python_blocks(blocks, mpi=True):
        ns = run_block(block)
        assert ns["comm"].size == 1
        ns["comm"].Free()
    assert "mpitaskmap.remap:" in capsys.readouterr().out  # the API block's report, rank 0


@pytest.mark.mpi(min_size=2)
@pytest.mark.timeout(300)
def test_mpi_python_blocks_run_under_mpiexec(blocks, monkeypatch):
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    monkeypatch.setenv("MPITASKMAP_PROVIDER", PROVIDER)  # the first block names no provider
    for block in python_blocks(blocks, mpi=True):
        ns = run_block(block)
        comm = ns["comm"]
        # a reordering of the whole job: every world rank once
        assert comm.size == world.size
        assert sorted(comm.allgather(world.rank)) == list(range(world.size))
        if "report" in ns:
            statuses = comm.allgather(ns["report"].status)
            assert statuses[0] in ("remapped", "identity") and len(set(statuses)) == 1
        comm.Free()


# -- shell walkthroughs at a small size --------------------------------------------------------------------

def test_every_shell_block_is_run_here_or_says_why(ro, blocks):
    bash = [b for b in blocks if b.lang == "bash"]
    assert all(b.kind == "shell" for b in bash), [b.start for b in bash if b.kind != "shell"]
    assert set(ro.marked(blocks, "shell")) == set(SMALL) | set(NOT_RUN)
    assert not set(SMALL) & set(NOT_RUN)


def test_ci_runs_the_readme_test_command_and_the_output_check(ro, blocks):
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (command,) = ro.shell_commands(ro.marked(blocks, "shell")["tests"].text)
    assert command in ci
    assert "python -m benchmarks.readme_outputs --check" in ci


@pytest.fixture
def shell_env(ro, tmp_path):
    """The checker's environment plus a stand-in ``xdg-open`` that records what it was asked to open."""
    stub = tmp_path / "bin"
    stub.mkdir()
    opener = stub / "xdg-open"
    opener.write_text(f'#!/bin/sh\necho "$1" >> {tmp_path / "opened"}\n')
    opener.chmod(opener.stat().st_mode | stat.S_IXUSR)
    env = ro.command_env()
    env["PATH"] = f"{stub}{os.pathsep}{env['PATH']}"
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples")
    return env, work


def test_demo_command_runs_at_a_small_size(ro, blocks, shell_env):
    env, work = shell_env
    command = ro.find_command(small_commands(ro, blocks, "demo"), "examples/minighost.py")
    assert command == "mpiexec -n 4 python -m mpi4py examples/minighost.py --steps 2 --n 4"
    out = ro.run_command(command, work, env=env, timeout=300)
    rows = table(ro, out, "mapping")
    assert set(rows) == {"default", "group", "geometric"}
    assert float(rows["geometric"]["AverageHops"]) <= float(rows["default"]["AverageHops"])
    assert "mpitaskmap.remap:" in out


def test_offline_walkthrough_runs_at_a_small_size(ro, blocks, shell_env, tmp_path):
    pytest.importorskip("matplotlib", reason="the walkthrough's step 0 installs the plot extra")
    env, work = shell_env
    # the source tree's mpitaskmap/ without its kernels, as the repository's root holds it after a
    # non-editable install: the walkthrough runs there as written (python -m mpitaskmap would not)
    shutil.copytree(ROOT / "mpitaskmap", work / "mpitaskmap",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    commands = small_commands(ro, blocks, "offline")
    assert commands[0] == 'pip install ".[plot]"'  # step 0, here already installed (matplotlib imports)
    outs = [ro.run_command(c, work, env=env, timeout=300) for c in commands[1:]]
    # 1+2: the file, one line per rank
    from mpitaskmap.cli._inputs import load_machine

    mi = load_machine("sim:titan:nodes=8,ppn=4,seed=1", 32)
    graph = mt.TaskGraph.stencil([4, 4, 2])
    written = mt.mapfiles.read_map(work / "MPICH_RANK_ORDER", mi.machine, "mpich_rank_order", graph=graph)
    assert written.n_tasks == 32
    # 3: identity, geometric and the file just written; the file is the geometric mapping
    rows = table(ro, outs[1], "method")
    assert list(rows) == ["identity", "geometric", "MPICH_RANK_ORDER"]
    identity_wh = mt.identity_mapping(graph, mi.machine).metrics(["weighted_hops"])["weighted_hops"]
    assert float(rows["identity"]["WH"].replace(",", "")) == identity_wh
    assert rows["MPICH_RANK_ORDER"]["WH"] == rows["geometric"]["WH"]
    assert float(rows["geometric"]["WH"].replace(",", "")) <= identity_wh
    html = (work / "report.html").read_text(encoding="utf-8")
    assert "MPICH_RANK_ORDER" in html and "<img" in html
    # 4: the picture, then opened
    assert (work / "links.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "opened").read_text().split() == ["links.png"]


@pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))
def test_fat_tree_lines_run_as_written(ro, blocks, shell_env):
    env, work = shell_env
    commands = small_commands(ro, blocks, "fattree")
    assert commands[0] == "export MPITASKMAP_PROVIDER=slurm:taper=4"
    demo = ro.run_command(commands[1], work, env=env, timeout=600)
    assert "machine: sim:fattree:" in demo and "geometric" in demo
    ro.run_command(commands[2], work, env=env, timeout=300)
    hosts = (work / "hosts.txt").read_text(encoding="utf-8").split()
    # 40 nodes of 5 leaves, 8 ranks each, every rank of the 8x8x5 stencil placed once
    assert len(hosts) == 320 and len(set(hosts)) == 40
    assert all(hosts.count(h) == 8 for h in set(hosts))
    assert set(hosts) <= {f"node{v:04d}" for v in list(range(3, 11)) + list(range(21, 29)) + list(range(42, 50))
                          + list(range(60, 68)) + list(range(101, 109))}


@pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))
def test_dragonfly_lines_run_as_written(ro, blocks, shell_env):
    env, work = shell_env
    commands = small_commands(ro, blocks, "dragonfly")
    demo = ro.run_command(commands[0], work, env=env, timeout=600)
    assert "machine: sim:frontier:" in demo and "geometric" in demo
    ro.run_command(commands[1], work, env=env, timeout=300)
    # Cray MPICH's rank order: every rank of the 32 once, in the order the hosts take them
    order = [int(r) for line in (work / "MPICH_RANK_ORDER").read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#") for r in line.split(",")]
    assert sorted(order) == list(range(32))


def test_simgrid_walkthrough_runs_at_a_small_size(ro, blocks, shell_env):
    env, work = shell_env
    commands = small_commands(ro, blocks, "simgrid")
    assert [c.split()[0] for c in commands] == ["smpicc", "mpitaskmap"]
    out = [ro.run_command(c, work, env=env, timeout=600) for c in commands][1]
    rows = table(ro, out, "method")
    assert list(rows) == ["identity", "geometric", "greedy+uwh", "auto"]
    sim_col = next(h for h in rows["auto"] if h.endswith(" s"))  # SimGrid's end time of the run
    for row in rows.values():
        assert float(row[sim_col]) > 0 and float(row["app"]) > 0
    assert float(rows["auto"][sim_col]) <= float(rows["identity"][sim_col])
    files = {p.name for p in (work / "smpi512").iterdir()}
    assert {"platform.xml", "run.sh", "results.json"} <= files
    assert {f"{m}.{ext}" for m in rows for ext in ("hostfile", "out", "err")} <= files
    # run.sh redoes the runs by hand (as the README says) and SimGrid gives the same figures again:
    # the output checker compares simulated seconds because they do not vary between runs
    ro.run_command("sh smpi512/run.sh ./halo3d 4 2 2 8 8 8 5 3", work, env=env, timeout=600)
    for method, row in rows.items():
        again = re.search(r"max_comm_time (\S+)", (work / "smpi512" / f"{method}.out").read_text()).group(1)
        assert f"{float(again):.6g}" == row["app"], method


def test_unmodified_application_lines_run_as_written(ro, blocks, shell_env):
    """Record halo3d, compare on its recording, launch in the mapped order (dry run): README's three steps."""
    env, work = shell_env
    commands = small_commands(ro, blocks, "unmodified")
    assert [c.split()[0:2] for c in commands] == [["mpicc", "-O2"], ["mpitaskmap", "record"],
                                                 ["mpitaskmap", "compare"], ["mpitaskmap", "launch"]]
    out = [ro.run_command(c, work, env=env, timeout=600) for c in commands]
    # 4x4x4 ranks, non-periodic: 288 pairs of one 4x4-cell, 2-var face (256 bytes) a step, 3 steps
    assert "recorded 221,184 bytes in 864 messages between 288 pairs; 3 rounds" in out[1]
    recording = mt.TaskGraph.from_file(work / "traffic.mtx")
    assert recording.n_tasks == 64 and recording.n_edges == 288 and set(recording.weights.tolist()) == {256.0}
    rows = table(ro, out[2], "method")
    assert list(rows) == ["identity", "greedy+uwh", "auto"]
    assert float(rows["auto"]["PredTime"]) <= float(rows["identity"]["PredTime"])
    lines = out[3].splitlines()
    assert lines[0] == "environment:" and lines[1].startswith("  SLURM_HOSTFILE=")
    assert lines[3] == "  srun --distribution=arbitrary -n 64 ./halo3d 4 4 4 4 4 4 2 3"
    hostfile = lines[1].split("=", 1)[1]
    hosts = (work / hostfile).read_text().split() if not os.path.isabs(hostfile) else Path(hostfile).read_text().split()
    assert len(hosts) == 64 and all(hosts.count(h) == 4 for h in hosts)  # 16 nodes of 4 ranks
    assert hosts[:4] != [hosts[0]] * 4  # not the block order: ranks 0-3 are a row of x, not a 2x2 face


# -- claims against the code -------------------------------------------------------------------------------

def _sentence(text: str, start: str, stop: str) -> str:
    i = text.index(start)
    return text[i:text.index(stop, i)]


def test_readme_lists_match_the_code():
    text = README.read_text(encoding="utf-8")
    metrics = _sentence(text, "Metrics have one name each (`mt.METRICS`):", ";")
    assert re.findall(r"`(\w+)`", metrics.split(":", 1)[1]) == list(mt.METRICS)
    api = _sentence(text, "Methods of `mt.map(graph, machine, method, **options)`", ".  ")
    names = re.findall(r"`([\w+]+)(?::NAME)?`", api.split(":", 1)[1])
    assert names == list(mt.METHODS)
    cli = _sentence(text, "* Methods (`mpitaskmap.METHODS`", "* Files")
    named = {re.split(r"[:\[]", t)[0] for t in re.findall(r"`([^`]+)`", cli) if not t.startswith(("-", "mpitaskmap."))}
    assert named == set(mt.METHODS)
    families = _sentence(text, "| family (`mt.FAMILIES`) |", "\n\n")
    rows = [line.split("|")[1].split("(")[0].strip() for line in families.splitlines()[2:]]
    assert rows == [f for f in mt.FAMILIES if f != "identity"]


def test_readme_lists_the_cli_subcommands_and_file_formats():
    import mpitaskmap.cli  # noqa: F401  (registers the subcommands)
    from mpitaskmap.cli._registry import COMMANDS

    text = README.read_text(encoding="utf-8")
    commands = _sentence(text, "| subcommand | what it does |", "\n\n")
    assert [line.split("`")[1].split()[0] for line in commands.splitlines()[2:]] == list(COMMANDS)
    files = _sentence(text, "* Files (`mpitaskmap.mapfiles`", "Host names")
    assert sorted(re.findall(r"`(\w+)`", files)) == sorted(mt.mapfiles.MAP_FORMATS)  # one word each: the names


def test_configuration_table_names_every_environment_variable():
    text = README.read_text(encoding="utf-8")
    table_text = _sentence(text, "## Configuration", "\n\n`auto` detection order")
    documented = set(re.findall(r"MPITASKMAP_[A-Z_]+", table_text))
    used = set()
    for path in [*(ROOT / "mpitaskmap").rglob("*.py"), ROOT / "setup.py"]:
        used |= set(re.findall(r"MPITASKMAP_[A-Z_]+", path.read_text(encoding="utf-8")))
    assert documented == used


def test_remap_and_the_cli_take_every_metric_name(capsys):
    """The README: "`remap(metric=...)` and `--metric` take the same names" as ``mt.METRICS``."""
    from mpi4py import MPI

    from mpitaskmap.cli import main

    for name in mt.METRICS:
        comm, report = mt.remap(MPI.COMM_SELF, [0.0], provider="sim:titan:ppn=1", metric=name, report=True)
        assert report.metric == name
        comm.Free()
        assert main(["map", "-m", "sim:torus:dims=2x2x2", "-t", "stencil3d:2x2x2", "--method", "auto",
                     "--metric", name, "-q"]) == 0, capsys.readouterr().err


# -- the output checker ------------------------------------------------------------------------------------

def test_every_output_block_has_a_generator(ro, blocks):
    outputs = ro.marked(blocks, "output")
    assert list(outputs) == list(ro.OUTPUTS)
    assert all(b.lang == "" for b in outputs.values())
    for output in ro.OUTPUTS.values():
        assert output.shell in ro.marked(blocks, "shell")


def test_markers_missing_or_unknown_are_errors(ro, tmp_path, capsys):
    with pytest.raises(ro.ReadmeError, match=r"README.md:3: an output block without"):
        ro.marked(ro.read_blocks("text\n\n```\nx\n```\n"), "output")
    with pytest.raises(ro.ReadmeError, match=r"README.md:2: '<!-- output: nope -->' names no generator"):
        ro.marked(ro.read_blocks("<!-- output: nope -->\n```\nx\n```\n"), "output")
    copy = tmp_path / "README.md"
    copy.write_text(README.read_text(encoding="utf-8").replace("<!-- output: simgrid -->\n", ""), encoding="utf-8")
    assert ro.main(["--check", "--readme", str(copy)]) == 2  # before running anything
    assert "an output block without '<!-- output: NAME -->'" in capsys.readouterr().err


def test_only_the_fields_that_vary_are_not_compared(ro):
    demo = ro.OUTPUTS["demo"]
    head = "mapping    AverageHops  Latency(M)  SimGrid s  laptop wall s (not a network)\n"
    old = head + "default          1.286       245.8  4.458e-07                         0.0629\n  seconds: total 0.508\n"
    wall = head + "default          1.286       245.8  4.458e-07                           0.12\n  seconds: total 1.2\n"
    sim = head + "default          1.286       245.8  4.459e-07                         0.0629\n  seconds: total 0.508\n"
    assert ro.stale_lines(old, wall, demo, 10) == []
    assert ro.stale_lines(old, sim, demo, 10) == [
        "README.md:11: README: 'default          1.286       245.8  4.458e-07                         0.0629' | "
        "run: 'default          1.286       245.8  4.459e-07                         0.0629'"]
    assert ro.stale_lines(old, old + "one more line\n", demo, 10) == [
        "README.md:13: README: '(no line)' | run: 'one more line'"]


def test_check_fails_on_a_copy_with_one_number_changed(ro, tmp_path):
    """Write the offline walkthrough's block into a copy of README.md from a real run, then
    change one number of it: ``--check`` exits 1 and names the line; a changed timing passes."""
    copy = tmp_path / "README.md"
    shutil.copy(README, copy)
    script = [sys.executable, "-m", "benchmarks.readme_outputs"]
    only = ["--only", "offline-compare", "--readme", str(copy)]
    done = subprocess.run([*script, "--write", *only], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    block = ro.marked(ro.read_blocks(copy.read_text()), "output")["offline-compare"]
    lines = block.text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("geometric "))
    wh = lines[k].split()[3]  # method, TH, AvgHops, WH
    edited = lines[k].replace(f" {wh} ", " " + str(int(wh.replace(",", "")) + 1) + " ", 1)
    assert edited != lines[k]
    copy.write_text(copy.read_text().replace(lines[k] + "\n", edited + "\n", 1))
    done = subprocess.run([*script, "--check", *only], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 1
    assert f"{copy.name}:{block.first_line + k}: README: {edited!r}" in done.stderr
    assert "regenerate with: python -m benchmarks.readme_outputs --write" in done.stderr
    # the wall-clock column may differ: not stale
    fresh = block.text
    seconds = re.sub(r"(\d+\.\d+)$", "9.999", lines[k])
    assert seconds != lines[k]
    assert ro.stale_lines(fresh.replace(lines[k], seconds), fresh, ro.OUTPUTS["offline-compare"], 1) == []


def test_the_checker_doctests(ro):
    import doctest

    assert doctest.testmod(ro, optionflags=doctest.ELLIPSIS).failed == 0
