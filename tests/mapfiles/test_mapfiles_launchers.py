"""The launcher files added for the command line: Open MPI rankfile and Slurm host list.

Exact text on hand-made machines, round trips through the readers (exact for the
rankfile, node-level for the Slurm list), host-name conventions and reader errors that
name the file and line."""

import io

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FlatMachine
from mpitaskmap.mapfiles import (
    DEFAULT_HOST_FORMAT,
    MAP_FORMATS,
    host_names,
    node_canonical,
    node_slots,
    read_map,
    read_openmpi_rankfile,
    read_slurm_hostfile,
    write_map,
    write_openmpi_rankfile,
    write_slurm_hostfile,
)
from mpitaskmap.mapping import Mapping
from mpitaskmap.metrics import evaluate
from mpitaskmap.machines.torus.presets import bgq_machine, titan_machine, torus_machine
from mpitaskmap.graphs.taskgraph import TaskGraph


def text_of(writer, mapping, **kw):
    out = io.StringIO()
    writer(mapping, out, **kw)
    return out.getvalue()


def test_registered_in_map_formats():
    assert MAP_FORMATS["openmpi_rankfile"] == (write_openmpi_rankfile, read_openmpi_rankfile)
    assert MAP_FORMATS["slurm_hostfile"] == (write_slurm_hostfile, read_slurm_hostfile)
    assert DEFAULT_HOST_FORMAT == "nid%05d"


def test_rankfile_and_host_list_exact_text():
    machine = torus_machine([2, 2], cores_per_node=2)  # nodes 0..3, two cores each
    m = Mapping([7, 0, 2, 5, 1, 3, 4, 6], machine)
    assert text_of(write_openmpi_rankfile, m).splitlines() == [
        "rank 0=nid00003 slot=1",
        "rank 1=nid00000 slot=0",
        "rank 2=nid00001 slot=0",
        "rank 3=nid00002 slot=1",
        "rank 4=nid00000 slot=1",
        "rank 5=nid00001 slot=1",
        "rank 6=nid00002 slot=0",
        "rank 7=nid00003 slot=0",
    ]
    assert text_of(write_slurm_hostfile, m, hosts="cn%d") == "cn3\ncn0\ncn1\ncn2\ncn0\ncn1\ncn2\ncn3\n"


def test_node_slots_follow_processor_order_within_a_node():
    flat = FlatMachine([5, 2, 5, 2, 5])
    assert node_slots(flat).tolist() == [0, 0, 1, 1, 2]
    titan = titan_machine(4, cores_per_node=3, seed=2)
    slots = node_slots(titan)
    for node in np.unique(titan.node_ids):
        assert slots[titan.node_ids == node].tolist() == [0, 1, 2]


MACHINES = {
    "titan-like sparse": lambda: titan_machine(12, cores_per_node=4, seed=3),
    "bgq 2x2x2x2x2 x4": lambda: bgq_machine((2, 2, 2, 2, 2), ranks_per_node=4, order="TABCDE"),
    "flat": lambda: FlatMachine(np.repeat([9, 3, 7, 1], 3)),
}


@pytest.mark.parametrize("machine_name", sorted(MACHINES))
def test_round_trips(machine_name, tmp_path):
    machine = MACHINES[machine_name]()
    graph = TaskGraph.stencil([machine.n_procs])
    m = Mapping(np.random.default_rng(4).permutation(machine.n_procs), machine)
    write_map(m, tmp_path / "rankfile", "openmpi_rankfile")
    back = read_map(tmp_path / "rankfile", machine, "openmpi_rankfile", graph=graph)
    assert_array_equal(back.task_to_proc, m.task_to_proc)  # a core per rank: exact
    write_map(m, tmp_path / "hosts", "slurm_hostfile")
    back = read_map(tmp_path / "hosts", machine, "slurm_hostfile", graph=graph)
    assert_array_equal(machine.node_ids[back.task_to_proc], machine.node_ids[m.task_to_proc])  # same nodes
    assert_array_equal(back.task_to_proc, node_canonical(m).task_to_proc)
    if not isinstance(machine, FlatMachine):  # every metric depends on the routers only
        assert evaluate(graph, machine, back.task_to_proc) == evaluate(graph, machine, m.task_to_proc)
    canonical = node_canonical(m)
    write_slurm_hostfile(canonical, tmp_path / "hosts2")
    assert_array_equal(read_slurm_hostfile(tmp_path / "hosts2", machine).task_to_proc, canonical.task_to_proc)


def test_round_trip_with_idle_processors_and_explicit_host_names():
    machine = torus_machine([3], cores_per_node=2)
    m = Mapping([5, 0, 3], machine)
    names = ["alpha", "beta", "gamma"]
    text = text_of(write_openmpi_rankfile, m, hosts=names)
    assert text == "rank 0=gamma slot=1\nrank 1=alpha slot=0\nrank 2=beta slot=1\n"
    assert read_openmpi_rankfile(io.StringIO(text), machine, hosts=names).task_to_proc.tolist() == [5, 0, 3]
    hosts = text_of(write_slurm_hostfile, m, hosts=names)
    assert hosts == "gamma\nalpha\nbeta\n"
    assert read_slurm_hostfile(io.StringIO(hosts), machine, hosts=names).task_to_proc.tolist() == [4, 0, 2]


def test_readers_accept_comments_blank_lines_and_any_rank_order():
    machine = FlatMachine([0, 0, 1, 1])
    text = "# made by hand\nrank 1=nid00001 slot=0\n\nrank 0=nid00000 slot=1\n  rank 2=nid00001 slot=1\n"
    assert read_openmpi_rankfile(io.StringIO(text), machine).task_to_proc.tolist() == [1, 2, 3]
    assert read_slurm_hostfile(io.StringIO("# c\nnid00001\n\nnid00000\nnid00001\n"), machine).task_to_proc.tolist() == [
        2, 0, 3]


def test_host_names_conventions_and_errors():
    machine = FlatMachine([0, 2, 2])
    assert host_names(machine) == ["nid00000", "nid00001", "nid00002"]
    assert host_names(machine, "n%03d")[2] == "n002"
    assert host_names(machine, ["a", "unused", "c"]) == ["a", "unused", "c"]
    with pytest.raises(InvalidInputError, match=r"hosts: a host-name format needs a % field"):
        host_names(machine, "node")
    with pytest.raises(InvalidInputError, match=r"need a name for every node id 0..2; got 2 names"):
        host_names(machine, ["a", "b"])
    with pytest.raises(InvalidInputError, match=r"nodes 0 and 2 have the same name; got 'a'"):
        host_names(machine, ["a", "b", "a"])
    with pytest.raises(InvalidInputError, match=r"node 2 needs a non-empty name without white space; got 'c d'"):
        host_names(machine, ["a", "b", "c d"])


def test_reader_errors_name_file_and_line(tmp_path):
    machine = FlatMachine([0, 0, 1, 1])
    bad = tmp_path / "rankfile"
    cases = [
        ("rank 0=nid00000 slot=0\nrank 1 nid00000\n", r"rankfile:2: expected 'rank R=HOST slot=S'"),
        ("rank 0=nid00000 slot=1:0\n", r"rankfile:1: rank and slot must be integers"),
        ("rank 0=nid00009 slot=0\n", r"rankfile:1: unknown host 'nid00009'"),
        ("rank 0=nid00000 slot=2\n", r"rankfile:1: host nid00000 has slots 0..1"),
        ("rank 0=nid00000 slot=0\nrank 0=nid00001 slot=0\n", r"rankfile:2: rank 0 already placed on line 1"),
        ("rank 0=nid00000 slot=0\nrank 2=nid00001 slot=0\n", r"ranks must be 0..1, each once; got rank 1 missing"),
        ("rank 0=nid00000 slot=0\nrank 1=nid00000 slot=0\n", r"processor 0 holds 2 tasks"),
        ("# nothing\n", r"no 'rank' lines found"),
    ]
    for text, msg in cases:
        bad.write_text(text)
        with pytest.raises(InvalidInputError, match=msg):
            read_openmpi_rankfile(bad, machine)
    hosts = tmp_path / "hosts"
    hosts.write_text("nid00000\nnid00000 nid00001\n")
    with pytest.raises(InvalidInputError, match=r"hosts:2: expected one host name per line"):
        read_slurm_hostfile(hosts, machine)
    hosts.write_text("nid00000\ncn1\n")
    with pytest.raises(InvalidInputError, match=r"hosts:2: unknown host 'cn1'"):
        read_slurm_hostfile(hosts, machine)
    hosts.write_text("nid00000\nnid00000\nnid00000\n")
    with pytest.raises(InvalidInputError, match=r"holds 2 tasks"):  # three ranks on a two-core node
        read_slurm_hostfile(hosts, machine)
    with pytest.raises(TypeError):
        write_map(Mapping([0, 1], machine), io.StringIO(), "csv", hosts="x%d")
