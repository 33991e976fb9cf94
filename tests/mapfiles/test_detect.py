"""Map-file formats told from the file's content (issue 39, item 8): every writer's output is
read back by ``eval --mapping PATH`` without naming the format, the README's fat-tree host list
included; where the content fits several formats the name decides, else the error says how to
name the format."""

import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from mpitaskmap import TaskGraph, map_geometric
from mpitaskmap import metrics
from mpitaskmap.cli import main
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mapfiles import MAP_FORMATS, detect_map_format, format_from_name, node_canonical, write_map
from mpitaskmap.mapping import Mapping
from mpitaskmap.machines.torus.presets import torus_machine
from mpitaskmap.metrics import message_model_for
from mpitaskmap.providers import get_provider, machine_from_provider

ROOT = Path(__file__).resolve().parents[2]
SIM = "sim:titan:nodes=8,ppn=4,seed=1"  # 32 processors on 8 nodes: host names from the provider
TASKS = "stencil3d:4x4x2"
NAMES = sorted(MAP_FORMATS)
ENDING = f"with FORMAT one of {NAMES}"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("fmt", NAMES)
def test_every_writers_output_is_recognised_by_its_content(fmt, tmp_path):
    machine = torus_machine([2, 2], cores_per_node=2)  # 4 nodes of 2 cores: every format applies
    m = Mapping(np.random.default_rng(5).permutation(8), machine)
    path = tmp_path / "file"  # a name that says nothing
    write_map(m, path, fmt)
    # a host list is the same text for Slurm and SMPI, read by the same reader: read as Slurm's
    assert detect_map_format(path) == ("slurm_hostfile" if fmt == "smpi_hostfile" else fmt)
    named = tmp_path / "run.smpi_hostfile"
    write_map(m, named, fmt)
    assert detect_map_format(named) == ("smpi_hostfile" if fmt.endswith("hostfile") else fmt)  # the name decides


@pytest.mark.parametrize("fmt", NAMES)
def test_eval_reads_every_writers_output_without_the_format(fmt, capsys, tmp_path):
    machine = machine_from_provider(get_provider(SIM), 32)
    graph = TaskGraph.stencil([4, 4, 2])
    m = map_geometric(graph, machine)
    # the host names the command line gives the sim machine's nodes (written as the CLI writes them)
    from mpitaskmap.cli._inputs import load_machine

    hosts = load_machine(SIM, 32).hosts
    path = tmp_path / "placement"
    write_map(m, path, fmt, **({"hosts": hosts} if "file" in fmt else {}))
    status, out, err = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--mapping", str(path), "--no-identity",
                           "--format", "json", "-q")
    assert status == 0, err
    row = json.loads(out)["rows"][0]
    expected = node_canonical(m) if fmt.endswith("hostfile") else m  # node-level files: exact metrics
    assert row["method"] == "placement"
    assert row["metrics"] == metrics.evaluate(graph, machine, expected.task_to_proc,
                                              **message_model_for(graph).metric_options())


def test_the_readme_fat_tree_host_list_is_read_back(capsys, tmp_path, monkeypatch):
    """README 'On a fat-tree cluster with Slurm': ``map ... -o slurm_hostfile=hosts.txt``, then ``eval --mapping
    hosts.txt`` (the issue's report: "cannot tell the map-file format")."""
    monkeypatch.chdir(ROOT)
    spec = "examples/topology.conf:node[0003-0010,0021-0028,0042-0049,0060-0067,0101-0108]:ppn=8,taper=4"
    assert f'mpitaskmap map -m "{spec}" -t stencil3d:8x8x5 --method auto -o slurm_hostfile=hosts.txt' in \
        (ROOT / "README.md").read_text()
    hosts = tmp_path / "hosts.txt"
    status, out, err = run(capsys, "map", "-m", spec, "-t", "stencil3d:8x8x5", "--method", "auto",
                           "-o", f"slurm_hostfile={hosts}", "--format", "json", "-q")
    assert status == 0, err
    mapped = {r["method"]: r["metrics"] for r in json.loads(out)["rows"]}
    assert hosts.read_text().splitlines()[0] == "node0003"
    status, out, err = run(capsys, "eval", "-m", spec, "-t", "stencil3d:8x8x5", "--mapping", str(hosts),
                           "--format", "json", "-q")
    assert status == 0, err
    rows = {r["method"]: r["metrics"] for r in json.loads(out)["rows"]}
    assert list(rows) == ["identity", "hosts.txt"]
    # every node sits on one leaf switch: the host list's metrics are the mapping's
    assert rows["hosts.txt"] == mapped["auto"] and rows["identity"] == mapped["identity"]


@pytest.mark.parametrize("name, text, fmt", [
    ("a", "# mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3\n0\n1\n", "mpich_rank_order"),
    ("a", "0,1\n\n3-2\n", "mpich_rank_order"),  # a range, a descending one
    ("a", "1-3\n0\n", "mpich_rank_order"),
    ("a", "rank,proc\n0,1\n", "csv"),
    ("a", "# saved\nrank 0=n1 slot=0\n", "openmpi_rankfile"),
    ("a", "0 0 1\n1 0 0\n", "bluegene"),
    ("a", "n1\n2\nn1\n", "slurm_hostfile"),  # one word per line, not all integers: a host list
    ("smpi_hosts.hostfile", "n1\n", "smpi_hostfile"),
    # one integer per line fits three formats: the name decides
    ("MPICH_RANK_ORDER", "0\n1\n", "mpich_rank_order"),
    ("run.map", "0\n1\n", "bluegene"),
    ("slurm_hosts", "0\n1\n", "slurm_hostfile"),
])
def test_content_rules(name, text, fmt, tmp_path):
    path = tmp_path / name
    path.write_text(text)
    assert detect_map_format(path) == fmt


def test_errors_say_why_and_how_to_name_the_format(tmp_path):
    ambiguous = tmp_path / "order.txt"
    ambiguous.write_text("0\n1\n")
    with pytest.raises(InvalidInputError) as exc:
        detect_map_format(ambiguous, what="--mapping", name_it=f"write --mapping FORMAT={ambiguous}")
    assert str(exc.value) == (
        f"--mapping: cannot tell the map-file format of '{ambiguous}': one integer per line is a rank order "
        "(mpich_rank_order), Blue Gene coordinates without the slot (bluegene) or a host list of numeric names "
        f"(slurm_hostfile); write --mapping FORMAT={ambiguous} {ENDING}")


@pytest.mark.parametrize("text, why", [
    ("0 1\n\nn1\n", "from its content: line 3 ('n1') fits no format together with line 1 ('0 1')"),
    ("hello world\n", "from its content: line 1 ('hello world') fits no format"),
    ("# nothing\n\n", "it has no content lines"),
])
def test_content_that_fits_no_format_is_named(text, why, tmp_path):
    path = tmp_path / "map"
    path.write_text(text)
    with pytest.raises(InvalidInputError) as exc:
        detect_map_format(path)
    colon = "" if why.startswith("from") else ":"
    assert str(exc.value) == (f"path: cannot tell the map-file format of '{path}'{colon} {why}; "
                              f"pass format=FORMAT to read_map {ENDING}")


def test_eval_error_and_explicit_format(capsys, tmp_path):
    ambiguous = tmp_path / "order.txt"
    ambiguous.write_text("".join(f"{r}\n" for r in range(32)))
    status, _, err = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--mapping", str(ambiguous), "-q")
    assert status == 1 and err.startswith(f"mpitaskmap eval: error: --mapping: cannot tell the map-file format of "
                                          f"'{ambiguous}': one integer per line")
    assert err.endswith(f"; write --mapping FORMAT={ambiguous} {ENDING}\n")
    # named explicitly, it is read: the rank order of one rank per processor in processor order is the identity
    status, out, err = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--mapping", f"mpich_rank_order={ambiguous}",
                           "--format", "json", "-q")
    assert status == 0, err
    rows = json.loads(out)["rows"]
    assert [r["method"] for r in rows] == ["identity", "order.txt"] and rows[0]["metrics"] == rows[1]["metrics"]


def test_format_from_name_is_the_output_rule():
    assert [format_from_name(n) for n in ("MPICH_RANK_ORDER", "a.csv", "x.rankfile", "smpi_hostfile", "hostfile",
                                          "slurm.txt", "job.map", "bluegene.txt", "hosts.txt")] == [
        "mpich_rank_order", "csv", "openmpi_rankfile", "smpi_hostfile", "slurm_hostfile", "slurm_hostfile",
        "bluegene", "bluegene", None]


def test_smpi_hostfile_gets_the_machines_host_names(capsys, tmp_path):
    """``-o smpi_hostfile=...`` writes the sim machine's host names, as ``slurm_hostfile`` does."""
    a, b = tmp_path / "a", tmp_path / "b"
    status, _, err = run(capsys, "map", "-m", SIM, "-t", TASKS, "--method", "identity",
                         "-o", f"smpi_hostfile={a}", "-o", f"slurm_hostfile={b}", "-q")
    assert status == 0, err
    # the default order: ranks 0-3 on node 0 (nid00000), 4-7 on node 1, 8-11 on node 2, which Titan names nid00050
    assert a.read_text() == b.read_text()
    assert a.read_text().split()[::4][:3] == ["nid00000", "nid00001", "nid00050"]
