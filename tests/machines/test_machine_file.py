"""Machine files: documented format, round trips, line-numbered errors."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, read_machine_file, titan_machine, write_machine_file
from mpitaskmap.errors import ProviderError
from mpitaskmap.machines import DragonflyMachine
from mpitaskmap.machines.machine_file import machine_file_hosts
from mpitaskmap.providers import FileProvider, machine_from_provider
from mpitaskmap.machines.dragonfly import dragonfly_network


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
        ("dims 4 4\n0 0\n\n1 4\n", r"m.txt:4: rank 1: coordinate 2 of 2 is 4, outside \[0, 4\)$"),
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


# -- the dragonfly form -----------------------------------------------------------------------------
SLINGSHOT = (
    "# four groups of three switches\n"
    "network dragonfly n_groups=4, switches=3 nodes_per_switch=2 global_links=2 global_ports=3 bw=20 bw_global=10 "
    "routing=valiant\n"
    "host a 3 0 2\n"
    "host b 1 3 0    # group 3, switch 0\n"
    "\n"
    "host c 2 0 2\n"
)


def test_dragonfly_form_slingshot_hand_checked(tmp_path):
    p = tmp_path / "df.txt"
    p.write_text(SLINGSHOT)
    m = read_machine_file(p)
    assert isinstance(m, DragonflyMachine) and m.wiring == "all-to-all"
    assert (m.n_groups, m.switches_per_group, m.nodes_per_switch, m.global_links, m.global_ports, m.routing) == \
        (4, 3, 2, 2, 3, "valiant")
    # node (g S + s) n + slot: a g0 s2 slot 0 = 4, b g3 s0 = 18, c the second node of a's switch = 5
    assert m.node_ids.tolist() == [4, 4, 4, 18, 5, 5]
    assert m.class_bandwidths() == {"node": 20.0, "local": 20.0, "global": 10.0}  # bw, bw_global over it
    # same switch: up + down; a -> b: both of the pair's links (on switches 1, 2 of g0, arriving at 0, 1
    # of g3) need one local hop, so 2 + 1 + 1 (minimal distance, whatever the routing)
    assert m.hops([0, 0], [4, 3]).tolist() == [2, 4]
    hosts = machine_file_hosts(p, m)
    assert len(hosts) == 19 and (hosts[4], hosts[5], hosts[18]) == ("a", "c", "b") and set(hosts) == {"", "a", "b", "c"}
    assert m.name == "df.txt (dragonfly: 4 groups x 3 switches x 2 nodes, 2 global links per pair, valiant routing)"


def test_dragonfly_form_aries_rows_and_columns(tmp_path):
    p = tmp_path / "xc.txt"
    p.write_text("network dragonfly n_groups=3 switches=2x3 nodes_per_switch=1 bw_node=8 bw_green=5.25 "
                 "bw_black=15.75 bw_global=9.375\n"
                 "host x 2 1 1 2\n"     # group 1, row 1, column 2: switch 1 * 3 + 2 = 5, node 6 + 5 = 11
                 "host y 1 0 0 1\n")    # group 0, row 0, column 1: switch 1, node 1
    m = read_machine_file(p)
    assert m.wiring == "row-column" and (m.rows, m.columns) == (2, 3)
    assert m.node_ids.tolist() == [11, 11, 1] and m.locate([0, 2]).tolist() == [[1, 5, 0], [0, 1, 0]]
    assert m.class_bandwidths() == {"node": 8.0, "green": 5.25, "black": 15.75, "global": 9.375}
    # x -> y: the link g1 -> g0 leaves switch 0 of g1 (row 0, column 0): green along row 1, black up
    # column 0, the global link, arriving at switch 1 of g0, y's own switch
    assert [c for c, _ in m.route(0, 2)] == ["node", "green", "black", "global", "node"]
    assert machine_file_hosts(p, m)[1] == "y" and machine_file_hosts(p, m)[11] == "x"


@pytest.mark.parametrize(
    "bw_keys, expected",
    [
        ("", {"node": 25.0, "local": 25.0, "global": 25.0}),  # the machine's default
        ("bw=7", {"node": 7.0, "local": 7.0, "global": 7.0}),
        ("bw_node=100 bw_local=25 bw_global=12.5", {"node": 100.0, "local": 25.0, "global": 12.5}),
    ],
)
def test_dragonfly_form_bandwidths(tmp_path, bw_keys, expected):
    p = tmp_path / "df.txt"
    p.write_text(f"network dragonfly n_groups=3 switches=3 nodes_per_switch=1 {bw_keys}\nhost a 1 0 0\n")
    assert read_machine_file(p).class_bandwidths() == expected
    assert read_machine_file(p, bandwidth=3.0).class_bandwidths() == {"node": 3.0, "local": 3.0, "global": 3.0}


H = "network dragonfly n_groups=3 switches=3 nodes_per_switch=2\n"
HA = "network dragonfly n_groups=3 switches=2x2 nodes_per_switch=1\n"


@pytest.mark.parametrize(
    "body, message",
    [
        # the network line
        ("network dragonfly n_groups=3 switches=3 nodes_per_switch=2 groups=2\n",
         r"m.txt:1: unknown key 'groups'; valid keys: \['bw', 'bw_black'"),
        ("network dragonfly n_groups=3 switches=3 nodes_per_switch=2 n_groups=4\n",
         r"m.txt:1: key 'n_groups' given twice"),
        ("network dragonfly n_groups=3 nodes_per_switch=2\n", r"m.txt:1: the network line needs switches="),
        ("network dragonfly n_groups=3 switches=2x2x2 nodes_per_switch=1\n",
         r"m.txt:1: switches is S \(all-to-all, Slingshot\) or RxC \(rows x columns, Aries\); got switches=2x2x2"),
        ("network torus dims=4\n", r"m.txt:1: the network line is 'network dragonfly KEY=VALUE \.\.\.'"),
        ("network dragonfly n_groups=4 switches=2 nodes_per_switch=1 global_links=3 global_ports=1\n",
         r"m.txt:1: global_ports: 2 switches x 1 ports hold 2 of the 4 x 3 = 12 global port numbers"),
        ("network dragonfly n_groups=3 switches=3 nodes_per_switch=2 routing=adaptive\n",
         r"m.txt:1: routing must be one of \['minimal', 'ecmp', 'valiant', 'ugal', 'either'\]; got 'adaptive'"),
        ("network dragonfly n_groups=2 switches=3 nodes_per_switch=1 routing=valiant\n",
         r"m.txt:1: routing: 'valiant' needs an intermediate group"),
        ("network dragonfly n_groups=3 switches=3 nodes_per_switch=1 bw_node=8\n",
         r"m.txt:1: bandwidth: no value for link class 'local'"),
        ("network dragonfly n_groups=3 switches=2x2 nodes_per_switch=1 bw=8 bw_local=4\n",
         r"m.txt:1: bandwidth: unknown link class 'local'; the classes of this row-column dragonfly are "
         r"\['node', 'green', 'black', 'global'\]"),
        ("network dragonfly n_groups=1 switches=3 nodes_per_switch=1\n", r"m.txt:1: n_groups must be >= 2; got 1"),
        # host lines
        (H + "host a 1 0\n", r"m.txt:2: a host line of this all-to-all dragonfly is 'host NAME RANKS GROUP SWITCH' "
                             r"\(5 fields\); got 'host a 1 0'"),
        (H + "host a 1 0 1 1\n", r"m.txt:2: .*'host NAME RANKS GROUP SWITCH' \(5 fields\)"),
        (HA + "host a 1 0 1\n", r"m.txt:2: a host line of this row-column dragonfly is "
                                r"'host NAME RANKS GROUP ROW COLUMN' \(6 fields\)"),
        (H + "host a 1 0 3\n", r"m.txt:2: switch 3 outside \[0, 3\); got 'host a 1 0 3'"),
        (H + "host a 1 3 0\n", r"m.txt:2: group 3 outside \[0, 3\)"),
        (HA + "host a 1 0 2 0\n", r"m.txt:2: row 2 outside \[0, 2\)"),
        (HA + "host a 1 0 0 2\n", r"m.txt:2: column 2 outside \[0, 2\)"),
        (H + "host a 0 0 0\n", r"m.txt:2: RANKS must be positive; got 0"),
        (H + "host a x 0 0\n", r"m.txt:2: ranks, group, switch must be integers; got 'host a x 0 0'"),
        (H + "host a 1 0 0\nhost b 1 1 1\nhost a 2 2 2\n", r"m.txt:4: host 'a' is given on line 2 already"),
        (H + "host a 1 0 0\nhost b 1 0 0\nhost c 1 0 0\n",
         r"m.txt:4: switch 0 of group 0 has 2 nodes, all taken by the hosts of lines 2, 3; host 'c' is one too many"),
        (H, r"m.txt: no ranks found \(no 'host NAME RANKS GROUP SWITCH' line after the network line\)"),
        # the two forms do not mix
        (H + "dims 3 3\n", r"m.txt:2: a 'network dragonfly' file has 'host NAME RANKS GROUP SWITCH' lines after its "
                           r"network line \(torus directives and coordinate lines are the torus form"),
        (H + "host a 1 0 0\n0 1\n", r"m.txt:3: a 'network dragonfly' file has"),
        (H + "host a 1 0 0\n" + H, r"m.txt:3: a second network line \(the first is line 1\)"),
        ("dims 4 4\n0 0\n" + H, r"m.txt:3: a 'network' line is the first directive of a dragonfly file"),
    ],
)
def test_dragonfly_form_errors_name_the_line(tmp_path, body, message):
    p = tmp_path / "m.txt"
    p.write_text(body)
    with pytest.raises(InvalidInputError, match=message):
        read_machine_file(p)


def test_dragonfly_form_refuses_torus_overrides(tmp_path):
    p = tmp_path / "m.txt"
    p.write_text(H + "host a 1 0 0\n")
    with pytest.raises(InvalidInputError, match=r"m.txt: dims= is a directive of the torus form, not of a "
                                                r"'network dragonfly' file; got dims=\[3\]"):
        read_machine_file(p, dims=[3])


def test_file_provider_reads_the_dragonfly_form(tmp_path):
    p = tmp_path / "df.txt"
    p.write_text(SLINGSHOT)
    m = read_machine_file(p)
    provider = FileProvider(p)
    assert provider.locate(3, 6).coords == (3, 0, 0) and provider.locate(4, 6).coords == (0, 2, 1)
    assert provider.network() == dragonfly_network(m)
    job = machine_from_provider(provider, 6)  # every rank's (group, switch, slot) -> the same machine
    assert isinstance(job, DragonflyMachine) and job.node_ids.tolist() == m.node_ids.tolist()
    assert job.routing == "valiant" and job.class_bandwidths() == m.class_bandwidths()
    with pytest.raises(ProviderError, match="describes 6 ranks but the job has 4"):
        provider.locate(0, 4)
