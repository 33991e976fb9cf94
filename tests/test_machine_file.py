"""Machine files: documented format, round trips, line-numbered errors."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, read_machine_file, titan_machine, write_machine_file


def test_header_and_rank_lines(tmp_path):
    p = tmp_path / "m.txt"
    p.write_text(
        "# demo\n"
        "dims 4 4 2\n"
        "wrap 1 1 0\n"
        "bandwidth 2 2 1\n"
        "names X Y Z\n"
        "ranks_per_node 2\n"
        "0 0 0\n0 0 0\n0 0 0\n1 0 0   # comment\n"
        "host nid7 3 2 2 1\n"
        "3 3 1 node=40\n"
    )
    m = read_machine_file(p)
    assert m.n_procs == 8 and m.dims.tolist() == [4, 4, 2] and m.wrap.tolist() == [1, 1, 0]
    # run of three ranks on (0,0,0) cut into nodes of 2; then (1,0,0); host lines share a node
    assert m.node_ids.tolist() == [41, 41, 42, 43, 0, 0, 0, 40]
    assert m.link_bandwidth[0].tolist() == [2.0] * 4


def test_bare_coordinate_file_needs_dims(tmp_path):
    p = tmp_path / "bare.txt"
    p.write_text("0\t1\n1\t1\n")
    with pytest.raises(InvalidInputError, match="no 'dims' line"):
        read_machine_file(p)
    assert read_machine_file(p, dims=[2, 2]).n_procs == 2


def test_round_trip_titan(tmp_path):
    m = titan_machine(20, cores_per_node=3, seed=2)
    p = tmp_path / "t.txt"
    write_machine_file(m, p)
    r = read_machine_file(p)
    assert np.array_equal(r.router_coords, m.router_coords)
    assert np.array_equal(r.node_ids, m.node_ids)
    assert all(np.array_equal(a, b) for a, b in zip(r.link_bandwidth, m.link_bandwidth))
    assert r.wrap.tolist() == m.wrap.tolist()


@pytest.mark.parametrize(
    "body, message",
    [
        ("dims 4 4\n0 0\n0 x\n", r"m.txt:3: coordinates must be integers; got '0 x'"),
        ("dims 4 4\n0 0\n0 0 0\n", r"m.txt:3: expected 2 coordinates"),
        ("dims 4 4\n0 0\n\n1 4\n", r"m.txt:4: rank 1: coordinate 4 in dimension 1 outside \[0, 4\)"),
        ("dims 4 4\n", r"no ranks found"),
        ("dims 4 4 4\n0 0\n", r"dims has 3 entries but ranks have 2"),
        ("ranks_per_node 0\n", r"m.txt:1: ranks_per_node takes one positive integer"),
    ],
)
def test_errors_name_the_line(tmp_path, body, message):
    p = tmp_path / "m.txt"
    p.write_text(body)
    with pytest.raises(InvalidInputError, match=message):
        read_machine_file(p)
