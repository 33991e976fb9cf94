"""Map and rank-reorder files: exact text of every writer, round trips through every reader,
and errors that name the file and line."""

import io

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FlatMachine, TorusMachine
from mpitaskmap.mapfiles import (
    MAP_FORMATS,
    coords_to_procs,
    node_canonical,
    mapping_coords,
    read_bluegene_map,
    read_coordinate_lines,
    read_map,
    read_mapping_csv,
    read_mpich_rank_order,
    write_bluegene_map,
    write_coordinate_lines,
    write_map,
    write_mapping_csv,
    write_mpich_rank_order,
)
from mpitaskmap.mapping import Mapping
from mpitaskmap.mappers.rubik import box
from mpitaskmap.machines.torus.presets import bgq_machine, titan_machine, torus_machine
from mpitaskmap.graphs.taskgraph import TaskGraph


def text_of(writer, *args, **kw):
    out = io.StringIO()
    writer(*args, out, **kw)
    return out.getvalue()


def random_permutation_mapping(machine, seed=0):
    perm = np.random.default_rng(seed).permutation(machine.n_procs)
    return Mapping(perm, machine)


# -- hand-computed text -----------------------------------------------------------------------
def test_coordinate_lines_exact_bytes_and_read_back(tmp_path):
    path = tmp_path / "c.map"
    write_coordinate_lines(np.array([[0, 1, 2], [10, 0, 3]]), path)
    assert path.read_bytes() == b"0 1 2\n10 0 3\n"
    assert read_coordinate_lines(path).tolist() == [[0, 1, 2], [10, 0, 3]]
    assert read_coordinate_lines(io.StringIO("# header\n\n 1 2 \n3 4\n")).tolist() == [[1, 2], [3, 4]]


def test_router_slots_with_two_nodes_per_router():
    machine = torus_machine([2], cores_per_node=2, nodes_per_router=2)  # 4 procs per router
    assert machine.router_slots().tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    shuffled = TorusMachine([[1], [0], [1], [0], [1]], dims=[2])
    assert shuffled.router_slots().tolist() == [0, 0, 1, 1, 2]


def test_bluegene_map_text_on_bgp_like_torus():
    machine = torus_machine([2, 1, 2], cores_per_node=2)  # procs: (x,y,z) x fastest, 2 cores each
    m = Mapping([7, 0, 2, 5, 1, 3, 4, 6], machine)
    assert text_of(write_bluegene_map, m) == (
        "1 0 1 1\n0 0 0 0\n1 0 0 0\n0 0 1 1\n0 0 0 1\n1 0 0 1\n0 0 1 0\n1 0 1 0\n"
    )
    assert mapping_coords(m)[0].tolist() == [1, 0, 1, 1]


def test_mpich_rank_order_text_and_ranges():
    machine = torus_machine([2, 2], cores_per_node=4)  # 4 nodes of 4 cores
    order = [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 15, 14, 13, 12]  # proc p runs rank order[p]
    ttp = np.argsort(order)
    m = Mapping(ttp, machine)
    assert text_of(write_mpich_rank_order, m).splitlines() == [
        "# mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3",
        "0,1,2,3",
        "8,9,10,11",
        "4,5,6,7",
        "15,14,13,12",
    ]
    assert text_of(write_mpich_rank_order, m, ranges=True).splitlines()[1:] == ["0-3", "8-11", "4-7", "15,14,13,12"]


def test_csv_text_on_torus_and_flat_machine():
    machine = torus_machine([2, 2])
    assert text_of(write_mapping_csv, Mapping([3, 0, 1, 2], machine)).splitlines() == [
        "rank,proc,node,X,Y,slot",
        "0,3,3,1,1,0",
        "1,0,0,0,0,0",
        "2,1,1,1,0,0",
        "3,2,2,0,1,0",
    ]
    flat = FlatMachine([0, 0, 1, 1])
    assert text_of(write_mapping_csv, Mapping([2, 0, 3, 1], flat)).splitlines()[:2] == ["rank,proc,node", "0,2,1"]


# -- round trips ------------------------------------------------------------------------------
MACHINES = {
    "bgp 4x4x4 x4": lambda: torus_machine([4, 4, 4], cores_per_node=4),
    "bgq 2x2x2x2x2 x4": lambda: bgq_machine((2, 2, 2, 2, 2), ranks_per_node=4, order="TABCDE"),
    "titan-like sparse": lambda: titan_machine(12, cores_per_node=4, seed=3),
    "2-D mesh": lambda: torus_machine([5, 3], wrap=False, cores_per_node=2),
}


@pytest.mark.parametrize("fmt", sorted(MAP_FORMATS))
@pytest.mark.parametrize("machine_name", sorted(MACHINES))
def test_round_trip_every_format(fmt, machine_name, tmp_path):
    machine = MACHINES[machine_name]()
    graph = TaskGraph.stencil([machine.n_procs])
    m = random_permutation_mapping(machine, seed=len(machine_name))
    path = tmp_path / f"map.{fmt}"
    write_map(m, path, fmt)
    back = read_map(path, machine, fmt, graph=graph)
    if fmt in ("slurm_hostfile", "smpi_hostfile"):  # node-level formats: the ranks of a node come back in ascending order
        m = node_canonical(m)
    assert_array_equal(back.task_to_proc, m.task_to_proc)
    assert back.graph is graph and back.metric("total_hops") == m.metric("total_hops", graph)
    # readers accept open streams too
    with open(path) as fh:
        assert_array_equal(MAP_FORMATS[fmt][1](fh, machine).task_to_proc, m.task_to_proc)


def test_round_trip_injection_with_idle_processors():
    machine = torus_machine([3, 3], cores_per_node=2)
    m = Mapping([17, 4, 9, 0], machine)
    for fmt in ("bluegene", "csv"):
        out = io.StringIO()
        write_map(m, out, fmt)
        out.seek(0)
        assert read_map(out, machine, fmt).task_to_proc.tolist() == [17, 4, 9, 0]


def test_flat_machine_csv_round_trip():
    flat = FlatMachine([0, 0, 1, 1, 2, 2])
    m = random_permutation_mapping(flat, seed=5)
    out = io.StringIO()
    write_mapping_csv(m, out)
    out.seek(0)
    assert_array_equal(read_mapping_csv(out, flat).task_to_proc, m.task_to_proc)


def test_rubik_map_file_equals_the_bluegene_writer_on_bgq():
    shape, t = (2, 2, 1, 2, 2), 4
    machine = bgq_machine(shape, ranks_per_node=t)
    app = box([8, 8])
    app.tile([8, 1])
    net = box([*shape, t])
    net.tile([2, 2, 1, 2, 1, 1])  # 8 leaves of 2x2x1x2x1x1... as many as app columns
    net.map(app)
    net.tilt(4, 0, 1)
    rubik_text = io.StringIO()
    net.write_map_file(rubik_text)
    mapping = net.to_mapping(machine)
    assert text_of(write_bluegene_map, mapping) == rubik_text.getvalue()
    rubik_text.seek(0)
    assert_array_equal(read_bluegene_map(rubik_text, machine).task_to_proc, mapping.task_to_proc)


def test_mpich_reader_accepts_ranges_comments_and_whitespace():
    machine = FlatMachine([0, 0, 1, 1, 2, 2])
    with pytest.raises(InvalidInputError, match=r"<stream>:2: bad rank entry '#'"):
        read_mpich_rank_order(io.StringIO("# whole-line comments only\n0,1 # trailing\n"), machine)
    m = read_mpich_rank_order(io.StringIO("# comment\n3-5\n\n 2 , 1,0\n"), machine)
    assert m.task_to_proc.tolist() == [5, 4, 3, 0, 1, 2]
    assert read_mpich_rank_order(io.StringIO("5-3,0-2"), machine).task_to_proc.tolist() == [3, 4, 5, 2, 1, 0]


def test_bluegene_reader_without_slot_column_uses_slot_0():
    machine = torus_machine([2, 2])
    assert read_bluegene_map(io.StringIO("1 1\n0 0\n"), machine).task_to_proc.tolist() == [3, 0]


def test_coords_to_procs():
    machine = torus_machine([2, 2], cores_per_node=2)
    assert coords_to_procs(np.array([[1, 1, 1], [0, 1, 0]]), machine).tolist() == [7, 4]
    with pytest.raises(InvalidInputError, match=r"^coords: coords\[1\] names no processor .*got \[0, 1, 2\]$"):
        coords_to_procs([[0, 0, 0], [0, 1, 2]], machine)
    with pytest.raises(InvalidInputError, match="coords: expected 3 columns"):
        coords_to_procs([[0, 0, 0, 0]], machine)


# -- errors -----------------------------------------------------------------------------------
def test_reader_errors_name_file_and_line(tmp_path):
    machine = torus_machine([2, 2], cores_per_node=2)
    bad = tmp_path / "bad.map"
    bad.write_text("0 0 0\n# c\n0 1 x\n")
    with pytest.raises(InvalidInputError, match=r"bad.map:3: expected integers separated by spaces; got '0 1 x'"):
        read_bluegene_map(bad, machine)
    bad.write_text("0 0 0\n1 1\n")
    with pytest.raises(InvalidInputError, match=r"bad.map:2: expected 3 values like the first line"):
        read_bluegene_map(bad, machine)
    bad.write_text("0 0 0\n\n5 0 1\n")
    with pytest.raises(InvalidInputError, match=r"bad.map:3: no processor of the machine .*got '5 0 1'"):
        read_bluegene_map(bad, machine)
    bad.write_text("0 0 0\n0 0 0\n")
    with pytest.raises(InvalidInputError, match=r"processor 0 holds 2 tasks"):
        read_bluegene_map(bad, machine)
    bad.write_text("# nothing\n")
    with pytest.raises(InvalidInputError, match="no coordinate lines found"):
        read_bluegene_map(bad, machine)


def test_rank_order_errors():
    machine = FlatMachine([0, 0, 1, 1])
    with pytest.raises(InvalidInputError, match=r"<stream>:2: rank 1 already listed on line 1"):
        read_mpich_rank_order(io.StringIO("0,1\n1,2\n"), machine)
    with pytest.raises(InvalidInputError, match=r"ranks must be 0..2, each once; got rank 1 missing"):
        read_mpich_rank_order(io.StringIO("0,2,3"), machine)
    with pytest.raises(InvalidInputError, match="lists 5 ranks but the machine has 4"):
        read_mpich_rank_order(io.StringIO("0-4"), machine)
    with pytest.raises(InvalidInputError, match=r":1: bad rank entry 'a'"):
        read_mpich_rank_order(io.StringIO("0,a"), machine)
    with pytest.raises(InvalidInputError, match="MPICH_RANK_ORDER needs one rank per processor"):
        write_mpich_rank_order(Mapping([0, 1], machine), io.StringIO())


def test_csv_errors():
    machine = torus_machine([2, 2])
    with pytest.raises(InvalidInputError, match=r"needs a 'proc' column"):
        read_mapping_csv(io.StringIO("rank,node\n0,0\n"), machine)
    with pytest.raises(InvalidInputError, match=r":3: processor, node or coordinates do not match"):
        read_mapping_csv(io.StringIO("rank,proc,X\n0,1,1\n1,2,1\n"), machine)
    with pytest.raises(InvalidInputError, match=r"rank column must hold 0..1"):
        read_mapping_csv(io.StringIO("rank,proc\n0,1\n0,2\n"), machine)
    with pytest.raises(InvalidInputError, match="every cell must be an integer"):
        read_mapping_csv(io.StringIO("rank,proc\n0,x\n"), machine)


@pytest.mark.parametrize("fmt", sorted(MAP_FORMATS))
def test_every_writer_rejects_what_is_not_a_mapping(fmt):
    with pytest.raises(InvalidInputError, match=r"^mapping: expected a Mapping; got list$"):
        write_map([1, 0], io.StringIO(), fmt)


def test_format_registry_and_writer_errors():
    machine = torus_machine([2])
    m = Mapping([1, 0], machine)
    with pytest.raises(InvalidInputError, match=r"format: unknown map-file format 'rankfile'; valid: \['bluegene', 'csv', 'mpich_rank_order', 'openmpi_rankfile', 'slurm_hostfile', 'smpi_hostfile'\]"):
        write_map(m, io.StringIO(), "rankfile")
    with pytest.raises(InvalidInputError, match=r"this format \(router coordinates per rank\) needs routers on a torus or mesh grid; .flat. has none"):
        write_bluegene_map(Mapping([1, 0], FlatMachine([0, 1])), io.StringIO())
    with pytest.raises(InvalidInputError, match="path: expected a path or a text stream"):
        write_bluegene_map(m, 42)
    with pytest.raises(InvalidInputError, match="coords: expected a 2-D integer array"):
        write_coordinate_lines([0.5, 1.5], io.StringIO())
