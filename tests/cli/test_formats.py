"""``mpitaskmap formats``: every example it prints is a file the library reads as the help says.

Each example is written to a file and read back with the library's own reader, and the values
read are compared with ones worked out by hand from the example; the map-file examples must also
be exactly what the writers produce for :data:`~mpitaskmap.cli.formats.EXAMPLE_MAPPING`.  So the
help cannot drift from the parsers: change a reader, and its example here fails.
"""

from __future__ import annotations

import re
import shlex

import numpy as np
import pytest

import mpitaskmap.machines.machine_file as machine_file_module
from mpitaskmap.cli import main
from mpitaskmap.cli._inputs import load_tasks
from mpitaskmap.cli.formats import EXAMPLE_MAPPING, FORMATS, GROUPS, render
from mpitaskmap.machines import DragonflyMachine, TorusMachine
from mpitaskmap.machines.fattree.hostlist import expand_hostlist
from mpitaskmap.machines import machine_file as machine_file_module
from mpitaskmap.machines.dragonfly import DRAGONFLY_ROUTINGS
from mpitaskmap.machines.dragonfly.machine_file import DRAGONFLY_FILE_KEYS
from mpitaskmap.machines.machine_file import machine_file_hosts, read_machine_file
from mpitaskmap.machines.fattree.slurm_topology import (_SPELLING, TOPOLOGY_DEFAULTS, TOPOLOGY_KEYS, parse_topology_conf,
                                                read_topology_spec)
from mpitaskmap.mapfiles import MAP_FORMATS, read_map, write_map
from mpitaskmap.mapping import Mapping

#: The host names of the machine-file example, by node id (its host lines, in order).
HOSTS = ["nid00012", "nid00013", "nid00040", "nid00041"]


@pytest.fixture
def examples(tmp_path, monkeypatch):
    """Every example of every form written into one directory (the current one)."""
    for f in FORMATS.values():
        for name, content in f.examples:
            assert not (tmp_path / name).exists(), f"two examples named {name}"
            (tmp_path / name).write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def example(name: str, index: int = 0) -> str:
    return FORMATS[name].examples[index][0]


# -- each example read back by the library's reader, against hand-computed values -------------------

def check_machine(d):
    m = read_machine_file(d / example("machine"))
    assert isinstance(m, TorusMachine)
    assert (m.n_procs, m.n_nodes) == (8, 4)
    assert m.dims.tolist() == [4, 2, 2] and m.wrap.tolist() == [1, 1, 0] and list(m.dim_names) == ["X", "Y", "Z"]
    assert m.node_ids.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert m.router_coords.tolist() == [[0, 0, 0]] * 4 + [[2, 1, 0]] * 2 + [[2, 1, 1]] * 2
    assert machine_file_hosts(d / example("machine"), m) == HOSTS
    # X links 75 GB/s, Y 37.5, Z 120: the first router's X+ and Y+ links
    assert m.link_bandwidths()[:3].tolist() == [75.0, 75.0, 37.5]


def check_dragonfly(d):
    m = read_machine_file(d / example("dragonfly"))
    assert isinstance(m, DragonflyMachine)
    assert (m.n_groups, m.switches_per_group, m.nodes_per_switch, m.global_links) == (3, 4, 2, 2)
    # node (GROUP * 4 + SWITCH) * 2 + slot: nid000012 (0, 1) -> 2, nid000013 (0, 1, second) -> 3,
    # nid000107 (2, 3) -> 22, nid000150 (1, 0) -> 8; 8 ranks each
    assert m.node_ids.tolist() == [2] * 8 + [3] * 8 + [22] * 8 + [8] * 8
    hosts = machine_file_hosts(d / example("dragonfly"), m)
    assert [hosts[k] for k in (2, 3, 22, 8)] == ["nid000012", "nid000013", "nid000107", "nid000150"]


def check_topology(d):
    spec = read_topology_spec(f"{d / example('topology')}:node[02-03,05-06]:ppn=2,taper=2")
    assert spec.nodes == ("node02", "node03", "node05", "node06") and (spec.ppn, spec.taper) == (2, 2.0)
    assert spec.n_ranks == 8 and spec.pattern == "switch.switch.node"
    assert spec.addresses() == ["spine.leaf1.node02", "spine.leaf1.node03", "spine.leaf2.node05",
                                "spine.leaf2.node06"]
    assert spec.machine().n_procs == 8
    tree = parse_topology_conf((d / example("topology")).read_text(), "topology.conf")
    assert tree.switches["leaf2"].link_speed == 100 and tree.switches["spine"].switches == ("leaf1", "leaf2")
    blocks = parse_topology_conf((d / example("topology", 1)).read_text(), "blocks.conf")
    assert (blocks.kind, blocks.block_sizes, blocks.leaf_of["node05"]) == ("block", (4, 8), "b2")


def check_nodelist(d):
    names = expand_hostlist((d / example("nodelist")).read_text())
    assert names == ["node01", "node02", "node05", "gpu1n08", "gpu1n09", "gpu1n10", "gpu2n08", "gpu2n09", "gpu2n10"]
    assert " ".join(names) in " ".join(render("nodelist").split())  # the expansion the help states


def check_tasks(d):
    coords = load_tasks(f"coords:{example('tasks')}").graph
    # a 2 x 2 grid: 4 neighbour pairs, both ways
    assert (coords.n_tasks, coords.n_edges) == (4, 8) and coords.coords.tolist()[3] == [1.0, 1.0, 0.0]
    dense = load_tasks(f"matrix:{example('tasks', 1)}").graph
    assert (dense.n_tasks, dense.n_edges, float(dense.weights.sum())) == (4, 8, 70.0)
    mtx = load_tasks(f"matrix:{example('tasks', 2)}").graph
    assert (mtx.n_tasks, mtx.n_edges, float(mtx.weights.sum())) == (4, 5, 45.0)
    # 1-based: entry "4 1 5" is task 3 sending 5 to task 0
    assert {(int(s), int(t)): float(w) for s, t, w in zip(mtx.sources(), mtx.indices, mtx.weights)}[(3, 0)] == 5.0
    assert load_tasks(example("tasks", 2)).graph.n_edges == 5  # a bare PATH: Matrix Market by its first line


def check_recording(d):
    # the ring recorded over 10 steps: K = 10, 4096 bytes a round on each of the 4 pairs, rank 0's
    # 800 bytes to itself left out
    ti = load_tasks(example("recording"))
    rec = ti.recording
    assert (rec.rounds, rec.bytes, rec.messages, rec.self_bytes, rec.ranks, rec.mpi_library) == (
        10, 164640.0, 50, 800.0, 4, "MPICH Version: 4.2.0")
    g = ti.graph
    assert list(zip(g.sources().tolist(), g.indices.tolist(), g.weights.tolist())) == [
        (0, 1, 4096.0), (1, 2, 4096.0), (2, 3, 4096.0), (3, 0, 4096.0)]
    assert load_tasks(f"matrix:{example('recording')}").graph.weights.sum() == 163840.0  # the plain matrix, no diagonal
    # Open MPI's files: the E line only, 4 messages from 0 to 1: one round of 1024 bytes
    mon = load_tasks(f"ompi-monitoring:{example('recording', 3)[:-len('.0.prof')]}")
    assert (mon.recording.rounds, mon.graph.weights.tolist(), mon.recording.left_out) == (
        4, [1024.0], "I 48 bytes in 12 messages; C 24 bytes in 6 messages")


def check_mapfile(d, name):
    machine = read_machine_file(d / example("machine"))
    hosts = machine_file_hosts(d / example("machine"), machine)
    options = {"hosts": hosts} if name in ("openmpi_rankfile", "slurm_hostfile", "smpi_hostfile") else {}
    mapping = read_map(d / example(name), machine, name, **options)
    assert mapping.task_to_proc.tolist() == list(EXAMPLE_MAPPING)
    assert [hosts[k] for k in machine.node_ids[mapping.task_to_proc]] == [
        "nid00012", "nid00012", "nid00040", "nid00040", "nid00041", "nid00041", "nid00013", "nid00013"]


CHECKS = {"machine": check_machine, "dragonfly": check_dragonfly, "topology": check_topology,
          "nodelist": check_nodelist, "tasks": check_tasks, "recording": check_recording,
          **{name: (lambda d, name=name: check_mapfile(d, name)) for name in MAP_FORMATS}}


def test_every_form_has_a_check_here_and_every_map_format_a_form():
    assert set(CHECKS) == set(FORMATS)
    assert [n for n in FORMATS if n in MAP_FORMATS] == list(MAP_FORMATS)
    assert GROUPS["mapfiles"] == tuple(MAP_FORMATS)


@pytest.mark.parametrize("name", list(FORMATS))
def test_each_example_reads_back_as_the_help_says(examples, name):
    assert FORMATS[name].examples, name
    CHECKS[name](examples)


@pytest.mark.parametrize("name", list(MAP_FORMATS))
def test_map_file_examples_are_what_the_writers_write(examples, name):
    machine = read_machine_file(examples / example("machine"))
    options = {"hosts": HOSTS} if name in ("openmpi_rankfile", "slurm_hostfile", "smpi_hostfile") else {}
    out = examples / "written"
    write_map(Mapping(np.asarray(EXAMPLE_MAPPING), machine), out, name, **options)
    assert out.read_text() == FORMATS[name].examples[0][1]


@pytest.mark.parametrize("name", list(MAP_FORMATS))
def test_map_file_examples_are_told_by_their_content(examples, name):
    from mpitaskmap.mapfiles import detect_map_format

    assert detect_map_format(examples / example(name)) == name
    assert FORMATS[name].usage.endswith(f"--mapping {example(name)}")  # the usage line relies on it


@pytest.mark.parametrize("name", [n for n in FORMATS if FORMATS[n].usage])
def test_each_usage_line_runs_in_the_examples_directory(examples, name, capsys):
    argv = shlex.split(FORMATS[name].usage)
    assert argv[0] == "mpitaskmap"
    assert main(argv[1:] + ["-q"]) == 0, capsys.readouterr().err


# -- the help names what the readers read --------------------------------------------------------

def test_machine_help_names_every_directive_of_the_readers_table():
    table = machine_file_module.__doc__.split("The dragonfly form")[0]
    directives = {m.split()[0] for m in re.findall(r"^``([a-z_]+ [^`]*)``", table, re.M)} - {"x"}  # x y z: a rank
    assert directives == {"dims", "wrap", "bandwidth", "names", "ranks_per_node", "host"}
    text = render("machine")
    for word in directives:
        assert re.search(rf"^  {word} ", text, re.M), word


def test_dragonfly_help_names_every_key_the_reader_takes():
    text = render("dragonfly")
    assert [k for k in DRAGONFLY_FILE_KEYS if not re.search(rf"\b{k}\b", text)] == []
    # every routing the reader takes, in the help and in the reader's own docstring
    routings = re.search(r"routing\s+\(([^)]*), default minimal\)", text).group(1)
    assert re.split(r",\s*|\s+or\s+", routings) == list(DRAGONFLY_ROUTINGS)
    for name in DRAGONFLY_ROUTINGS:
        assert f"``{name}``" in machine_file_module.__doc__


def test_topology_help_names_every_key_and_option_with_its_default():
    text = render("topology")
    assert [k for k in _SPELLING.values() if f"{k}=" not in text] == []
    for key in TOPOLOGY_KEYS:
        if TOPOLOGY_DEFAULTS[key] is None:  # a default that depends on the file: said in words
            assert re.search(rf"\b{key} \(", text) or re.search(rf"\b{key} is the same", text), key
        else:
            assert re.search(rf"\b{key} \([^)]*default {TOPOLOGY_DEFAULTS[key]:g}", text), key
    assert "routing (dmodk, ecmp or\nunknown, default dmodk with one up-link, unknown with several" in text


# -- the command ----------------------------------------------------------------------------------

def test_formats_prints_every_form_with_its_examples_indented(capsys):
    assert main(["formats"]) == 0
    out = capsys.readouterr().out
    for f in FORMATS.values():
        assert f"{f.name} -- {f.summary}" in out
        for file_name, content in f.examples:
            assert f"example ({file_name}):\n" + "".join("    " + line + "\n" for line in content.splitlines()) in out


def test_formats_name_prints_that_form_only_and_a_group_its_members(capsys):
    assert main(["formats", "csv"]) == 0
    assert capsys.readouterr().out == render("csv")
    assert main(["formats", "mapfiles"]) == 0
    out = capsys.readouterr().out
    assert [line.split(" -- ")[0] for line in out.splitlines() if " -- " in line] == list(MAP_FORMATS)


def test_help_formats_is_the_formats_subcommand(capsys):
    assert main(["--help-formats", "machine"]) == 0
    assert capsys.readouterr().out == render("machine")
    assert main(["--help-formats"]) == 0
    everything = capsys.readouterr().out
    assert main(["formats"]) == 0
    assert capsys.readouterr().out == everything


def test_unknown_form_is_exit_2_naming_it_and_the_valid_ones(capsys):
    assert main(["formats", "machin"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mpitaskmap formats: error: unknown form 'machin'; valid: machine, dragonfly,")
    assert "mapfiles" in err


def test_list_gives_one_line_per_form(capsys):
    assert main(["formats", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(FORMATS)


def test_the_usage_lists_the_subcommand_and_the_alias(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  formats +the machine-file", out, re.M) and "--help-formats" in out
