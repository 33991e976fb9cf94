"""``mpitaskmap launch``: fake srun / mpiexec / mpirun scripts record the argv, environment and files they
are given; a hand-computed case gives the exact files; every fallback runs the command unchanged with one line."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mpitaskmap.cli import COMMANDS, main
from mpitaskmap.cli.launch import NotMapped, build_parser, detect_launcher, job_size, plan_launch, read_allocation

ROOT = Path(__file__).resolve().parents[2]

# The ring 0-4-1-5-2-6-3-7-0 (1-based in the file), its edges 7-0 and 5-2 light (1) and the others
# heavy (10): the one cut of two nodes of 4 that cuts only light edges puts {0, 1, 4, 5} on one node and
# {2, 3, 6, 7} on the other (weight 2 between nodes); the default order (0-3 | 4-7) cuts 4 heavy edges.
RING = """\
%%MatrixMarket matrix coordinate real symmetric
8 8 8
5 1 10
2 5 10
6 2 10
3 6 1
7 3 10
4 7 10
8 4 10
1 8 1
"""
SPEC = "sim:torus:dims=2,ppn=4"  # 2 routers of one node each (node0, node1), 4 processors per node
#: By hand: ranks 0, 1, 4, 5 on the first node, 2, 3, 6, 7 on the second, each node's ranks ascending on its slots.
HOSTS = ["node0", "node0", "node1", "node1", "node0", "node0", "node1", "node1"]
RANKFILE = "".join(f"rank {r}={h} slot={s}\n" for r, (h, s) in enumerate(zip(HOSTS, [0, 1, 0, 1, 2, 3, 2, 3])))
RANK_ORDER = "# mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3\n0,1,4,5\n2,3,6,7\n"

HYDRA_VERSION = "HYDRA build details:\n    Version:                                 4.2.0"
OPENMPI4_VERSION = "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/"
OPENMPI5_VERSION = "mpirun (Open MPI) 5.0.11\n\nReport bugs to https://www.open-mpi.org/community/help/"

FAKE = """\
#!/bin/sh
# a fake launcher: prints its version, or records its argv, environment and the files it was given
if [ "$1" = "--version" ]; then
    cat <<'EOF'
{version}
EOF
    exit 0
fi
rec={record}
printf '%s\\n' "$@" > "$rec/argv"
env > "$rec/env"
for a in "$@"; do
    case "$a" in rankfile:file=*) a=${{a#rankfile:file=}};; esac
    if [ -f "$a" ] && [ "$a" != "./app" ]; then cat "$a" >> "$rec/files"; fi
done
if [ -n "$SLURM_HOSTFILE" ]; then cat "$SLURM_HOSTFILE" > "$rec/files"; fi
if [ -f MPICH_RANK_ORDER ]; then cat MPICH_RANK_ORDER > "$rec/files"; fi
exit 3
"""


@pytest.fixture
def ring(tmp_path):
    path = tmp_path / "ring.mtx"
    path.write_text(RING)
    return str(path)


def fake(tmp_path, name, version=""):
    """A fake launcher ``tmp_path/bin/NAME`` recording into ``tmp_path/rec``; its path."""
    (tmp_path / "bin").mkdir(exist_ok=True)
    (tmp_path / "rec").mkdir(exist_ok=True)
    path = tmp_path / "bin" / name
    path.write_text(FAKE.format(version=version, record=tmp_path / "rec"))
    path.chmod(0o755)
    return str(path)


def launch(tmp_path, *argv, env=None):
    """Run ``python -m mpitaskmap launch ARGV`` in tmp_path (the launcher really exec'd); (status, stderr, record)."""
    full = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for key in ("SLURM_JOB_NODELIST", "SLURM_NODELIST", "SLURM_NTASKS", "SLURM_HOSTFILE", "SLURM_CONF"):
        full.pop(key, None)
    full.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "mpitaskmap", "launch", *argv], capture_output=True, text=True,
                          cwd=tmp_path, env=full, timeout=120)
    rec = tmp_path / "rec"
    record = {p.name: p.read_text() for p in rec.iterdir()} if rec.is_dir() else {}
    return proc.returncode, proc.stderr, record


def recorded_env(record):
    return dict(line.split("=", 1) for line in record["env"].splitlines() if "=" in line)


# -- mapped: each launcher's own mechanism, as the launcher received it ----------------------------------------
def test_srun_gets_arbitrary_distribution_and_the_hand_computed_hostfile(tmp_path, ring):
    srun = fake(tmp_path, "srun")
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--dir", "d", "--", srun, "-n", "8", "./app",
                                 "-n", "3")
    assert status == 3, err  # the launcher's own exit status: launch replaced itself by it
    assert err.startswith(f"mpitaskmap launch: 8 ranks of {ring} mapped by auto on {SPEC} (2 nodes), for slurm; "
                          "picked ") and "; replayed step: default " in err and len(err.splitlines()) == 1
    assert record["argv"].splitlines() == ["--distribution=arbitrary", "-n", "8", "./app", "-n", "3"]
    hostfile = recorded_env(record)["SLURM_HOSTFILE"]
    assert os.path.dirname(hostfile) == str(tmp_path / "d") and os.path.basename(hostfile).startswith("slurm_hostfile.")
    assert record["files"] == "".join(h + "\n" for h in HOSTS)


def test_srun_on_slurm_nodes_without_topology_is_a_flat_machine(tmp_path, ring):
    srun = fake(tmp_path, "srun")
    status, err, record = launch(tmp_path, "--graph", ring, "-q", "--", srun, "./app",
                                 env={"SLURM_JOB_NODELIST": "n[1-2]", "SLURM_NTASKS": "8", "PATH": "/usr/bin:/bin"})
    assert status == 3 and err == ""
    assert record["argv"].splitlines() == ["--distribution=arbitrary", "./app"]
    assert record["files"] == "".join(h.replace("node0", "n1").replace("node1", "n2") + "\n" for h in HOSTS)


def test_srun_on_slurm_nodes_with_topology_conf(tmp_path, ring):
    (tmp_path / "topology.conf").write_text("SwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n[3-4]\n"
                                            "SwitchName=top Switches=l[1-2]\n")
    srun = fake(tmp_path, "srun")
    status, err, record = launch(tmp_path, "--graph", ring, "--topology", "topology.conf", "--", srun, "-n8", "./app",
                                 env={"SLURM_JOB_NODELIST": "n[2-3]"})
    assert status == 3 and "mapped by auto on topology.conf:n[2-3]:ppn=4 (2 nodes), for slurm" in err
    assert record["files"] == "".join(h.replace("node0", "n2").replace("node1", "n3") + "\n" for h in HOSTS)


#: By hand, from HOSTS: one line per node, and the node lines of ranks 0-7 (0, 0, 1, 1, 0, 0, 1, 1) as Hydra's
#: blocks (first line, lines, ranks per line): 2 ranks on each of lines 0 and 1, twice.
HYDRA_NODES, HYDRA_RANKMAP = "node0:4\nnode1:4\n", "(0,2,2),(0,2,2)"
#: Before MPICH 4.1 (no -rankmap): the runs of consecutive ranks on one node, in rank order.
HYDRA_RUNS = "node0:2\nnode1:2\nnode0:2\nnode1:2\n"


@pytest.mark.parametrize("version, option, hostfile", [
    (HYDRA_VERSION, ["-rankmap", HYDRA_RANKMAP], HYDRA_NODES),
    (HYDRA_VERSION.replace("4.2.0", "4.0.3"), [], HYDRA_RUNS),
])
def test_hydra_mpiexec_gets_its_hostfile_with_f(tmp_path, ring, version, option, hostfile):
    mpiexec = fake(tmp_path, "mpiexec", version)
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--dir", "d", "--", mpiexec, "-np", "8", "./app")
    assert status == 3, err
    argv = record["argv"].splitlines()
    assert argv[0] == "-f" and argv[2:] == option + ["-np", "8", "./app"]
    assert os.path.basename(argv[1]).startswith("hydra_hostfile.")
    assert record["files"] == hostfile


@pytest.mark.parametrize("version, option", [(OPENMPI4_VERSION, "--rankfile"), (OPENMPI5_VERSION, "--map-by")])
def test_openmpi_mpirun_gets_the_hand_computed_rankfile(tmp_path, ring, version, option):
    mpirun = fake(tmp_path, "mpirun", version)
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--", mpirun, "--oversubscribe", "-n", "8",
                                 "./app")
    assert status == 3, err
    argv = record["argv"].splitlines()
    assert argv[0] == option and argv[2:] == ["--oversubscribe", "-n", "8", "./app"]
    path = argv[1].removeprefix("rankfile:file=")
    assert argv[1] == (path if option == "--rankfile" else f"rankfile:file={path}")
    assert os.path.dirname(path) == str(tmp_path / ".mpitaskmap-launch")
    assert record["files"] == RANKFILE


def test_cray_rank_order_under_srun(tmp_path, ring):
    srun = fake(tmp_path, "srun")
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--launcher", "cray", "--", srun, "-n", "8",
                                 "./app")
    assert status == 3, err
    assert record["argv"].splitlines() == ["-n", "8", "./app"]
    assert recorded_env(record)["MPICH_RANK_REORDER_METHOD"] == "3"
    assert record["files"] == RANK_ORDER == (tmp_path / "MPICH_RANK_ORDER").read_text()


# -- not mapped: the command unchanged, one line saying why -------------------------------------------------------
@pytest.mark.parametrize("graph, argv, why", [
    (None, ["-n", "16", "./app"], "the graph {ring} has 8 tasks but the command starts 16 ranks"),
    ("stencil:8:periodic=1", ["-n", "8", "./app"], "no gain found by the fluid judge: the default order is kept"),
    (None, ["-n", "8", "./app"], "no allocation: give -m SPEC, or run inside a Slurm job (SLURM_JOB_NODELIST)"),
    (None, ["./app"], "the command gives no job size (-n N) and SLURM_NTASKS is not set"),
    (None, ["-m", "cyclic", "-n", "8", "./app"], "the command places its ranks itself (-m); remove it to launch in "
                                                 "the mapped order"),
    ("nosuch.mtx", ["-n", "8", "./app"], "error: --tasks: no such file and not a known spec"),
])
def test_srun_not_mapped_runs_unchanged_with_one_line(tmp_path, ring, graph, argv, why):
    srun = fake(tmp_path, "srun")
    machine = [] if why.startswith("no allocation") else ["-m", SPEC]
    status, err, record = launch(tmp_path, "--graph", graph or ring, *machine, "--", srun, *argv)
    assert status == 3
    assert len(err.splitlines()) == 1
    assert err.startswith("mpitaskmap launch: not mapped (" + why.format(ring=ring))
    assert err.endswith("); running the command unchanged\n")
    assert record["argv"].splitlines() == argv
    assert "SLURM_HOSTFILE" not in recorded_env(record) and "files" not in record


def test_unknown_launcher_and_unknown_mpi_run_unchanged(tmp_path, ring):
    app = fake(tmp_path, "runjob")
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--", app, "-n", "8", "./app")
    assert status == 3 and record["argv"].splitlines() == ["-n", "8", "./app"]
    assert err == ("mpitaskmap launch: not mapped (unknown launcher 'runjob' (known: srun, aprun, mpiexec, mpirun; or "
                   "give --launcher slurm|hydra|openmpi|cray)); running the command unchanged\n")
    mpiexec = fake(tmp_path, "mpiexec", "some other MPI 1.0")
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--", mpiexec, "-n", "8", "./app")
    assert status == 3 and record["argv"].splitlines() == ["-n", "8", "./app"]
    assert err == ("mpitaskmap launch: not mapped (cannot tell the MPI of 'mpiexec': 'mpiexec --version' names neither "
                   "MPICH Hydra nor Open MPI (it printed 'some other MPI 1.0'); give --launcher hydra|openmpi); "
                   "running the command unchanged\n")


def test_bad_options_of_launch_still_run_the_job(tmp_path):
    srun = fake(tmp_path, "srun")
    status, err, record = launch(tmp_path, "--frob", "--", srun, "-n", "8", "./app")
    assert status == 3 and record["argv"].splitlines() == ["-n", "8", "./app"]
    assert err.endswith("mpitaskmap launch: not mapped (bad options of launch); running the command unchanged\n")


def test_a_launcher_that_cannot_start_is_one_error_line(tmp_path, ring):
    status, err, _ = launch(tmp_path, "--graph", ring, "-m", SPEC, "--", str(tmp_path / "srun"), "-n", "8", "./app")
    assert status == 127
    assert err.splitlines()[-1] == f"mpitaskmap launch: error: cannot start '{tmp_path / 'srun'}' (No such file or directory)"


# -- dry run, in process -------------------------------------------------------------------------------------------
def test_dry_run_prints_command_environment_and_files(tmp_path, ring, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    srun = fake(tmp_path, "srun")
    assert main(["launch", "--graph", ring, "-m", SPEC, "--dir", "d", "--dry-run", "--", srun, "-n", "8", "./app"]) == 0
    out, err = capsys.readouterr()
    path = tmp_path / "d" / f"slurm_hostfile.{os.getpid()}"
    assert out == (f"environment:\n  SLURM_HOSTFILE={path}\ncommand:\n  {srun} --distribution=arbitrary -n 8 ./app\n"
                   f"file {path}:\n" + "".join(f"  {h}\n" for h in HOSTS))
    assert err == "" and path.read_text() == "".join(h + "\n" for h in HOSTS)
    assert not (tmp_path / "rec" / "argv").exists()  # nothing ran
    assert main(["launch", "--graph", ring, "-m", SPEC, "--dry-run", "--", srun, "-n", "4", "./app"]) == 0
    out, err = capsys.readouterr()
    why = f"the graph {ring} has 8 tasks but the command starts 4 ranks"
    assert out == f"# not mapped: {why}; the command runs unchanged\nenvironment: (unchanged)\ncommand:\n  {srun} -n 4 ./app\n"
    assert err == f"mpitaskmap launch: not mapped ({why}); the command would run unchanged\n"


def test_cray_does_not_overwrite_a_rank_order_it_did_not_write(tmp_path, ring, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "MPICH_RANK_ORDER").write_text("7,6,5,4,3,2,1,0\n")
    args = build_parser().parse_args(["--graph", ring, "-m", SPEC, "--launcher", "cray"])
    plan = plan_launch(args, ["srun", "-n", "8", "./app"])
    assert plan.command == ["srun", "-n", "8", "./app"] and plan.env == {} and plan.files == []
    assert plan.why == f"{tmp_path / 'MPICH_RANK_ORDER'} exists and was not written by mpitaskmap; move it to launch " \
                       "in the mapped order"
    assert (tmp_path / "MPICH_RANK_ORDER").read_text() == "7,6,5,4,3,2,1,0\n"


# -- the pieces ----------------------------------------------------------------------------------------------------
def test_detect_launcher_by_name_and_version():
    assert detect_launcher(["/opt/slurm/bin/srun"]) == "slurm" and detect_launcher(["aprun"]) == "cray"
    assert detect_launcher(["mpiexec.hydra"], version=lambda p: HYDRA_VERSION) == "hydra"
    assert detect_launcher(["mpirun.openmpi"], version=lambda p: OPENMPI4_VERSION) == "openmpi"
    assert detect_launcher(["mpiexec"], version=lambda p: "mpiexec (OpenRTE) 4.0.3") == "openmpi"
    with pytest.raises(NotMapped, match="unknown launcher 'python'"):
        detect_launcher(["python", "app.py"])


def test_job_size_reads_the_launcher_options_only():
    assert job_size("hydra", ["-n", "8", "./app", "-n", "3"]) == 8
    assert job_size("openmpi", ["--np", "12", "--oversubscribe", "./app"]) == 12
    assert job_size("slurm", ["-n16", "./app"]) == 16
    assert job_size("slurm", ["--ntasks", "4", "./app"]) == 4
    assert job_size("slurm", ["./app", "-n", "3"], {"SLURM_NTASKS": "32"}) == 32
    with pytest.raises(NotMapped, match="gives no job size"):
        job_size("hydra", ["./app", "-n", "3"], {})
    with pytest.raises(NotMapped, match=r"-n is not a positive number; got 'x'"):
        job_size("hydra", ["-n", "x", "./app"], {})
    with pytest.raises(NotMapped, match="several programs"):
        job_size("hydra", ["-n", "2", "./a", ":", "-n", "2", "./b"], {})


def test_option_values_are_not_taken_for_the_program():
    # a value naming a path (-x LD_PRELOAD=/..., --mca KEY /path, -env KEY /path) is skipped with its option
    assert job_size("openmpi", ["-x", "LD_PRELOAD=/opt/lib.so", "--mca", "plm_rsh_agent", "/usr/bin/ssh", "-n", "16",
                                "./app", "-n", "3"]) == 16
    assert job_size("hydra", ["-env", "LD_PRELOAD", "/opt/lib.so", "-launcher-exec", "/usr/bin/ssh", "-n", "4",
                              "./app"], {}) == 4
    with pytest.raises(NotMapped, match="gives no job size"):  # an unknown option's path value ends the options
        job_size("hydra", ["-frob", "/usr/bin/env", "-n", "4", "./app"], {})


def test_a_rankmap_too_long_for_one_argument_falls_back_to_rank_runs(tmp_path):
    from mpitaskmap.cli.launch import _RANKMAP_MAX, _hydra
    from mpitaskmap.machines import FlatMachine
    from mpitaskmap.mapping import Mapping

    n = 40_000  # ranks alternating between 2 nodes: one block '(0,2,1)' per pair, 160,000 characters in all
    mapping = Mapping([(r % 2) * (n // 2) + r // 2 for r in range(n)], FlatMachine([0] * (n // 2) + [1] * (n // 2)))
    out = _hydra(mapping, "n%d", str(tmp_path), ["mpiexec"], ["-n", str(n), "./app"], (5, 0))
    assert 8 * n // 2 > _RANKMAP_MAX and out.command[:2] == ["mpiexec", "-f"] and out.command[3:] == ["-n", str(n),
                                                                                                     "./app"]
    assert out.files[0][1] == "n0:1\nn1:1\n" * (n // 2)
    small = _hydra(Mapping([0, 2, 1, 3], FlatMachine([0, 0, 1, 1])), "n%d", str(tmp_path), ["mpiexec"], [], (5, 0))
    assert small.command[3:] == ["-rankmap", "(0,2,1),(0,2,1)"] and small.files[0][1] == "n0:2\nn1:2\n"


def test_read_allocation_from_slurm_nodes():
    mi = read_allocation(None, 6, environ={"SLURM_JOB_NODELIST": "c[07-09]", "PATH": ""})
    assert mi.hosts == ["c07", "c08", "c09"] and mi.machine.node_ids.tolist() == [0, 0, 1, 1, 2, 2]
    with pytest.raises(NotMapped, match="7 ranks do not fill the job's 3 nodes evenly"):
        read_allocation(None, 7, environ={"SLURM_JOB_NODELIST": "c[07-09]", "PATH": ""})


def test_launch_is_registered():
    assert "launch" in COMMANDS


def test_read_allocation_from_scontrol_show_topology(tmp_path):
    (tmp_path / "bin").mkdir()
    scontrol = tmp_path / "bin" / "scontrol"
    scontrol.write_text("#!/bin/sh\n[ \"$1 $2\" = 'show topology' ] || exit 1\n"
                        "echo 'SwitchName=l1 Level=0 LinkSpeed=1 Nodes=n[1-2]'\n"
                        "echo 'SwitchName=l2 Level=0 LinkSpeed=1 Nodes=n[3-4]'\n"
                        "echo 'SwitchName=top Level=1 LinkSpeed=1 Switches=l[1-2]'\n")
    scontrol.chmod(0o755)
    mi = read_allocation(None, 4, workdir=str(tmp_path),
                         environ={"SLURM_JOB_NODELIST": "n[2-3]", "PATH": str(tmp_path / "bin")})
    saved = tmp_path / f"scontrol_topology.{os.getpid()}"
    assert mi.spec == f"{saved}:n[2-3]:ppn=2" and mi.note == f"Slurm topology {saved}"
    assert mi.hosts == ["n2", "n3"] and mi.machine.node_ids.tolist() == [0, 0, 1, 1]
    assert mi.machine.hops([0, 0], [1, 2]).tolist() == [0, 4]  # n2 and n3 meet at the top switch


def test_openmpi_map_by_seq_with_a_hostfile(tmp_path, ring):
    mpirun = fake(tmp_path, "mpirun", OPENMPI5_VERSION)
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--openmpi-map", "seq", "--", mpirun, "-n",
                                 "8", "./app")
    assert status == 3, err
    argv = record["argv"].splitlines()
    assert argv[:3] == ["--map-by", "seq", "--hostfile"] and argv[4:] == ["-n", "8", "./app"]
    assert os.path.basename(argv[3]).startswith("openmpi_hostfile.")
    assert record["files"] == "".join(h + "\n" for h in HOSTS)
    status, err, record = launch(tmp_path, "--graph", ring, "-m", SPEC, "--openmpi-map", "seq", "--", mpirun,
                                 "--hostfile", "hosts.txt", "-n", "8", "./app")
    assert status == 3 and record["argv"].splitlines() == ["--hostfile", "hosts.txt", "-n", "8", "./app"]
    assert err == ("mpitaskmap launch: not mapped (the command places its ranks itself (--hostfile); remove it to "
                   "launch in the mapped order); running the command unchanged\n")
