"""SimGrid platforms (mpitaskmap.sim.simgrid), the SMPI hostfile, the replay backend
(mpitaskmap.sim.simgrid_replay) and the halo3d proxy under smpirun.

The platform tests run everywhere; the tests that run SimGrid skip with a one-line reason
when it is missing (``apt-get install libsimgrid-dev``).
"""

import io
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FlatMachine, Machine, TorusMachine
from mpitaskmap.mapfiles import MAP_FORMATS, host_names, read_smpi_hostfile, write_smpi_hostfile
from mpitaskmap.mapping import Mapping
from mpitaskmap.machines.percs import PercsMachine
from mpitaskmap.sim.simgrid import (
    SMPI_DETERMINISTIC,
    SMPI_UNIT_FACTORS,
    platform_xml,
    simgrid_missing,
    smpirun,
    torus_link_id,
)
from mpitaskmap.machines.torus.presets import bgq_machine, titan_machine, torus_machine
from mpitaskmap.graphs.taskgraph import TaskGraph

ROOT = Path(__file__).resolve().parents[2]
GB = 1e9

needs_smpi = pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))
needs_replay = pytest.mark.skipif(
    simgrid_missing(compiler=True) is not None, reason=str(simgrid_missing(compiler=True))
)


def parse(xml):
    """Hosts {name: cores}, links {name: (Bps, s)}, routes {(src, dst): [link names]}."""
    root = ET.fromstring(xml.split("\n", 2)[2])  # skip the XML declaration and DOCTYPE
    hosts = {h.get("id"): int(h.get("core")) for h in root.iter("host")}
    links = {
        l.get("id"): (float(l.get("bandwidth")[:-3]), float(l.get("latency")[:-1])) for l in root.iter("link")
    }
    routes = {(r.get("src"), r.get("dst")): [c.get("id") for c in r.iter("link_ctn")] for r in root.iter("route")}
    return hosts, links, routes


# -- platforms: what is written -------------------------------------------------------------
def test_uniform_torus_with_plain_names_is_simgrids_torus_cluster():
    xml = platform_xml(torus_machine([4, 3, 2], cores_per_node=8, bandwidth=5.0), link_latency=1e-6, hosts="n%d")
    cluster = ET.fromstring(xml.split("\n", 2)[2]).find("cluster")
    assert cluster.attrib == {
        "id": "torus", "prefix": "n", "radical": "0-23", "suffix": "", "speed": "1Gf", "core": "8",
        "loopback_bw": "50000000000.0Bps", "loopback_lat": "1e-07s", "bw": "5000000000.0Bps", "lat": "1e-06s",
        "topology": "TORUS", "topo_parameters": "4,3,2",
    }


def test_bgq_block_is_a_5d_torus_cluster_or_explicit_with_nid_names():
    machine = bgq_machine((2, 2, 2, 2, 2), ranks_per_node=4)
    cluster = ET.fromstring(platform_xml(machine, link_latency=1e-6, hosts="n%d").split("\n", 2)[2]).find("cluster")
    assert cluster.get("topo_parameters") == "2,2,2,2,2" and cluster.get("core") == "4"
    hosts, links, routes = parse(platform_xml(machine, link_latency=1e-6))  # nid%05d cannot be a cluster
    assert len(hosts) == 32 and set(hosts.values()) == {4}
    # node 0 (A=B=C=D=E=0) to node 31 (all ones): one hop in each of the five dimensions, in order
    names = host_names(machine)
    assert [n.split("_")[1] for n in routes[names[0], names[31]]] == ["A+", "B+", "C+", "D+", "E+"]


def test_explicit_routes_are_the_machines_routes_link_for_link():
    bw = [[1.0, 0.5, 1.0, 1.0], [2.0, 2.0, 3.0]]
    for wrap in (True, False):
        machine = torus_machine([4, 3], wrap=wrap, bandwidth=bw)
        hosts, links, routes = parse(platform_xml(machine, link_latency=2e-6))
        names = host_names(machine)
        link_bw = machine.link_bandwidths()
        assert len(hosts) == 12 and len(routes) == 12 * 11 + 12
        for p in range(12):
            for q in range(12):
                if p == q:
                    assert routes[names[p], names[q]] == [f"{names[p]}_loopback"]
                    continue
                path = routes[names[p], names[q]]
                assert [torus_link_id(n) for n in path] == [lid for _, lid in machine.route(p, q)]
                for n in path:
                    assert links[n] == (link_bw[torus_link_id(n)] * GB, 2e-6)
        # loopbacks are FATPIPE, as SimGrid's own clusters make them (each message alone at
        # its bandwidth: what the fluid replay of several steps models); network links shared
        policy = {l.get("id"): l.get("sharing_policy") for l in ET.fromstring(
            platform_xml(machine, link_latency=2e-6).split("\n", 2)[2]).iter("link")}
        assert {k for k, v in policy.items() if v == "FATPIPE"} == {f"{n}_loopback" for n in names}
        assert all(policy[n] is None for n in links if not n.endswith("_loopback"))
        # a mesh never uses a wrap link: no X link leaves x = 3 in the + direction
        used = {torus_link_id(n) for n in links if torus_link_id(n) >= 0}
        wrap_plus = {r * 4 + 0 for r in range(12) if r % 4 == 3}  # link id router*2*2 + 2*0 + 0
        assert bool(used & wrap_plus) == wrap


def test_titan_like_allocation_two_nodes_per_router_and_gemini_bandwidths():
    machine = titan_machine(16, cores_per_node=4, seed=2)
    hosts, links, routes = parse(platform_xml(machine, link_latency=1e-6))
    names = host_names(machine)
    assert set(hosts) == {names[k] for k in np.unique(machine.node_ids)} and set(hosts.values()) == {4}
    # nodes sharing a router talk through its crossbar; Y cable links have the lower bandwidth
    router = machine.router_ids()
    pairs = [(a, b) for a in range(0, 64, 4) for b in range(0, 64, 4) if a != b and router[a] == router[b]]
    assert pairs
    a, b = pairs[0]
    assert routes[names[machine.node_ids[a]], names[machine.node_ids[b]]] == [f"r{router[a]}_xbar"]
    y_bw = {links[n][0] / GB for n in links if n.endswith(("_Y+", "_Y-"))}
    x_bw = {links[n][0] / GB for n in links if n.endswith(("_X+", "_X-"))}
    assert y_bw <= {75.0, 37.5} and 37.5 in y_bw and x_bw == {75.0}


def test_node_links_wrap_every_route_and_pairs_limit_the_hosts():
    machine = torus_machine([3, 3])
    names = host_names(machine)
    hosts, links, routes = parse(
        platform_xml(machine, link_latency=1e-6, node_link=(4.0, 5e-7), node_pairs=[[0, 4], [4, 0]])
    )
    assert set(hosts) == {names[0], names[4]}
    assert routes[names[0], names[4]] == [f"{names[0]}_up", "l0_X+", "l6_Y+", f"{names[4]}_down"]  # router 1, Y+: 1*4 + 2
    assert links[f"{names[0]}_up"] == (4e9, 5e-7)
    assert len(routes) == 2 + 2  # the two pairs and two loopbacks


def test_flat_machine_cluster_or_up_down_routes():
    machine = FlatMachine([0, 0, 1, 3, 3, 3])
    cluster = ET.fromstring(platform_xml(machine, link_latency=1e-6, hosts="c%d").split("\n", 2)[2]).find("cluster")
    assert cluster.get("radical") == "0-1,3" and cluster.get("core") == "3" and "topology" not in cluster.attrib
    hosts, links, routes = parse(platform_xml(machine, link_latency=1e-6))
    assert hosts == {"nid00000": 2, "nid00001": 1, "nid00003": 3}
    assert routes["nid00003", "nid00000"] == ["nid00003_up", "nid00000_down"]
    assert links["nid00003_up"] == (1e9, 1e-6)


def test_torus_link_id_reads_explicit_names_only():
    assert torus_link_id("l0_X+") == 0 and torus_link_id("l123_D4-") == 123
    assert torus_link_id("r3_xbar") == -1 and torus_link_id("torus_link_from_0_to_1_UP") == -1


# -- platforms: bad input ------------------------------------------------------------------------
class OddMachine(Machine):
    """A machine kind without links (all hops 1): node links only, as a flat machine."""

    def hops(self, src, dst):
        return (np.asarray(src) != np.asarray(dst)).astype(np.int64)

    def geometric_coords(self):
        return np.zeros((self.n_procs, 1))


def test_bad_input_names_why():
    with pytest.raises(InvalidInputError, match="machine: expected a Machine; got list"):
        platform_xml([[0, 0]], link_latency=1e-6)
    mesh = torus_machine([3, 3], wrap=False)
    with pytest.raises(InvalidInputError, match="cluster form does not apply: a mesh dimension"):
        platform_xml(mesh, link_latency=1e-6, hosts="n%d", form="cluster")
    with pytest.raises(InvalidInputError, match=r"cluster form does not apply: host names 'nid%05d'"):
        platform_xml(torus_machine([3, 3]), link_latency=1e-6, form="cluster")
    with pytest.raises(InvalidInputError, match="cluster form does not apply: unequal link bandwidths"):
        platform_xml(torus_machine([3, 3], bandwidth=[1.0, 2.0]), link_latency=1e-6, hosts="n%d", form="cluster")
    with pytest.raises(InvalidInputError, match="link_latency: must be non-negative and finite; got -1"):
        platform_xml(mesh, link_latency=-1)
    with pytest.raises(InvalidInputError, match="bandwidth_unit: unknown unit 'GB'"):
        platform_xml(mesh, link_latency=1e-6, bandwidth_unit="GB")
    with pytest.raises(InvalidInputError, match="node_pairs: row 1 names node 9, not a node of the machine"):
        platform_xml(mesh, link_latency=1e-6, node_pairs=[[0, 1], [9, 0]])
    with pytest.raises(InvalidInputError, match="more than MAX_ALL_PAIRS_NODES=1024; pass node_pairs"):
        platform_xml(torus_machine([11, 11, 11]), link_latency=1e-6)


def test_a_machine_without_links_gets_node_links_like_a_flat_machine():
    # decided by has_link_model, not by the class: the same platform as FlatMachine's, both forms
    odd, flat = OddMachine(4, node_ids=[0, 0, 1, 3]), FlatMachine([0, 0, 1, 3])
    for hosts in ("n%d", None):
        assert platform_xml(odd, link_latency=1e-6, hosts=hosts) == platform_xml(flat, link_latency=1e-6, hosts=hosts)
    hosts, links, routes = parse(platform_xml(odd, link_latency=1e-6, node_link=(2.0, 3e-7)))
    assert hosts == {"nid00000": 2, "nid00001": 1, "nid00003": 1}
    assert routes["nid00001", "nid00003"] == ["nid00001_up", "nid00003_down"] and links["nid00001_up"] == (2e9, 3e-7)


def _single_path_pairs(machine):
    """Ordered pairs of distinct node ids whose route does not split, and the routes of all pairs."""
    view = machine.node_view()
    a, b = np.meshgrid(view.nodes, view.nodes, indexing="ij")
    keep = a != b
    a, b = a[keep], b[keep]
    r = machine.routes(view.representative[a], view.representative[b])
    pair = np.repeat(np.arange(a.size), np.diff(r.indptr))
    split = np.bincount(pair, weights=r.fractions < 1.0, minlength=a.size) > 0
    return np.stack([a[~split], b[~split]], axis=1), split


def test_split_routes_are_refused_and_single_path_pairs_are_written_link_for_link():
    percs = PercsMachine(2, 1)
    single, split = _single_path_pairs(percs)
    assert split.any() and single.size  # PERCS stripes inside a supernode, not over its one D link
    # every pair: the first that splits is named (pairs are declared in node order: 0 -> 1)
    with pytest.raises(InvalidInputError, match=r"SimGrid follows one route per host pair, but 'percs.*' splits the "
                                                r"traffic of node 0 \(nid00000\) -> node 1 \(nid00001\) over several paths"):
        platform_xml(percs, link_latency=1e-6)
    with pytest.raises(InvalidInputError, match="cluster form does not apply: 'percs.*' has no torus grid of routers"):
        platform_xml(percs, link_latency=1e-6, hosts="n%d", form="cluster")
    # a subset of single-path pairs: their routes link for link, named and sized by the contract
    pairs = single[:: max(1, len(single) // 40)]
    hosts, links, routes = parse(platform_xml(percs, link_latency=2e-6, node_pairs=pairs))
    names, bw, view = host_names(percs), percs.link_bandwidths(), percs.node_view()
    for u, v in pairs.tolist():
        route = percs.routes([view.representative[u]], [view.representative[v]]).links.tolist()
        assert routes[names[u], names[v]] == [percs.link_name(l) for l in route]
        assert all(links[percs.link_name(l)] == (bw[l] * GB, 2e-6) for l in route)
    assert len(routes) == len(pairs) + len(hosts)  # and one loopback per host


class Renamed(TorusMachine):
    """Two routers of a mesh, one link each way (0: X+ from router 0, 3: X- from router 1),
    named by ``rename(link)``."""

    def __init__(self, rename):
        super().__init__([[0], [1]], dims=[2], wrap=False)
        self.rename = rename

    def link_names(self, links):
        return [self.rename(int(link)) for link in links]


def test_link_names_come_from_the_machine_and_must_be_simgrid_ids():
    hosts, links, routes = parse(platform_xml(Renamed(lambda l: f"wire {l} -> far"), link_latency=1e-6))
    assert routes["nid00000", "nid00001"] == ["wire 0 -> far"] and routes["nid00001", "nid00000"] == ["wire 3 -> far"]
    with pytest.raises(InvalidInputError, match=r"names link 0 'a\\tb', not a SimGrid link id"):
        platform_xml(Renamed(lambda l: "a\tb"), link_latency=1e-6)
    with pytest.raises(InvalidInputError, match="names links 0 and 3 both 'same'"):
        platform_xml(Renamed(lambda l: "same"), link_latency=1e-6)
    with pytest.raises(InvalidInputError, match="is named 'nid00000_loopback', the name of a node link"):
        platform_xml(Renamed(lambda l: "nid00000_loopback" if l == 0 else "x"), link_latency=1e-6)


# -- the SMPI hostfile ------------------------------------------------------------------------------
def test_smpi_hostfile_lines_are_the_platform_hosts_and_read_back():
    machine = titan_machine(6, cores_per_node=2, seed=4)
    m = Mapping(np.random.default_rng(1).permutation(machine.n_procs), machine)
    out = io.StringIO()
    write_smpi_hostfile(m, out)
    lines = out.getvalue().splitlines()
    names = host_names(machine)
    assert lines == [names[machine.node_ids[p]] for p in m.task_to_proc]
    hosts, _, _ = parse(platform_xml(machine, link_latency=1e-6))
    assert set(lines) == set(hosts)
    back = read_smpi_hostfile(io.StringIO(out.getvalue()), machine)
    assert (machine.node_ids[back.task_to_proc] == machine.node_ids[m.task_to_proc]).all()
    assert back.method == "SMPI hostfile <stream>"
    assert MAP_FORMATS["smpi_hostfile"] == (write_smpi_hostfile, read_smpi_hostfile)


# -- SMPI: pings between every pair of hosts (the smpi_ping fixture of conftest.py) ----------------------
def round_trips(program, machine, tmp_path, n_bytes, config, hosts=None):
    (tmp_path / "p.xml").write_text(platform_xml(machine, link_latency=1e-6, hosts=hosts))
    write_smpi_hostfile(Mapping(np.arange(machine.n_procs), machine), tmp_path / "hosts", hosts=hosts)
    out = smpirun(program, [str(n_bytes)], platform=tmp_path / "p.xml", hostfile=tmp_path / "hosts",
                  n_ranks=machine.n_procs, config=config, timeout=120).stdout
    return {(int(i), int(j)): float(t) for i, j, t in (line.split() for line in out.splitlines())}


#: SMPI 3.32 adds 24 ns to a point-to-point message over one 1 GB/s link even with unit
#: factors and no computation (measured: a 0-byte round trip over one 1 us link takes 2.048 us).
SMPI_MESSAGE_OVERHEAD = 24e-9


def one_way(machine, p, q, n_bytes, latency=1e-6):
    route = [lid for _, lid in machine.route(p, q)]
    return len(route) * latency + n_bytes / (machine.link_bandwidths()[route].min() * GB)


@needs_smpi
@pytest.mark.parametrize("wrap", [False, True], ids=["mesh", "torus"])
def test_smpi_pings_follow_our_hops_and_our_routes(smpi_ping, tmp_path, wrap):
    # 4 x 3, X link 1 -> 2 at half bandwidth, Y at 2 GB/s: a route that differs from ours
    # (through another X link, or X after Y) would show another bandwidth term
    machine = torus_machine([4, 3], wrap=wrap, bandwidth=[[1.0, 0.5, 1.0, 1.0], 2.0])
    cfg = SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS
    empty = round_trips(smpi_ping, machine, tmp_path, 0, cfg)
    hops = {pair: int(machine.hops([pair[0]], [pair[1]])[0]) for pair in empty}
    # zero bytes: latency only, 2 x hops x 1 us (SMPI adds tens of ns per message: its
    # envelope crossing the route), so equal hops give equal times and more hops longer ones
    for pair, t in empty.items():
        assert t == pytest.approx(2 * hops[pair] * 1e-6, abs=1.5e-7), pair
    levels = sorted(set(hops.values()))
    for h, h_next in zip(levels, levels[1:]):
        assert max(t for p, t in empty.items() if hops[p] == h) < min(t for p, t in empty.items() if hops[p] == h_next)
    # 1 MB: latency + size / the narrowest link of our route, each way
    big = round_trips(smpi_ping, machine, tmp_path, 10**6, cfg)
    for (i, j), t in big.items():
        assert t == pytest.approx(one_way(machine, i, j, 10**6) + one_way(machine, j, i, 10**6), rel=1e-4), (i, j)
    assert max(big.values()) > 4.0e-3  # some routes cross the 0.5 GB/s link (2 ms each way)


@needs_smpi
def test_smpi_torus_cluster_places_host_i_at_our_router_i(smpi_ping, tmp_path):
    machine = torus_machine([4, 3])
    assert 'topology="TORUS"' in platform_xml(machine, link_latency=1e-6, hosts="n%d")
    empty = round_trips(smpi_ping, machine, tmp_path, 0, SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS, hosts="n%d")
    for (i, j), t in empty.items():
        assert t == pytest.approx(2 * int(machine.hops([i], [j])[0]) * 1e-6, abs=1.5e-7), (i, j)


@needs_smpi
def test_smpi_one_link_hand_checked(smpi_ping, tmp_path):
    # two nodes on neighbouring routers, 1 link of 1 GB/s and 1 us: 1 MB takes 1 us + 1 ms each way
    machine = torus_machine([2], wrap=False)
    exact = round_trips(smpi_ping, machine, tmp_path, 10**6, SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS)
    assert exact[0, 1] == pytest.approx(2 * (1e-6 + 1e-3 + SMPI_MESSAGE_OVERHEAD), rel=1e-9)
    assert exact[0, 1] == pytest.approx(2 * (1e-6 + 1e-3), rel=1e-4)
    # SMPI's default factors (bandwidth x 0.93-ish for large messages, latency x 1-3) slow it down
    default = round_trips(smpi_ping, machine, tmp_path, 10**6, SMPI_DETERMINISTIC)
    assert 2.002e-3 < default[0, 1] < 2.002e-3 / 0.9


# -- the replay backend ------------------------------------------------------------------------
@needs_replay
def test_replay_one_link_hand_checked_and_shared():
    from mpitaskmap.sim.fluid import CM02
    from mpitaskmap.sim.simgrid_replay import simulate_exchange

    # two nodes on neighbouring routers, X link of 2 GB/s, 1 us
    machine = TorusMachine([[0, 0], [1, 0]], dims=[4, 4], bandwidth=[2.0, 1.0])
    # by default SMPI's network model: a 1-MB message starts after 11.6436 x the latency and
    # gets 0.940694 of the link's bandwidth
    smpi = simulate_exchange(Mapping([0, 1], machine), TaskGraph([0, 1, 1], [1], [1e6]), link_latency=1e-6)
    assert smpi.seconds == pytest.approx(11.6436e-6 + 1e6 / (0.940694 * 2e9), rel=1e-6)
    # the plain fluid model on request: 1 MB takes 1 us + 0.5 ms
    one = simulate_exchange(Mapping([0, 1], machine), TaskGraph([0, 1, 1], [1], [1e6]), link_latency=1e-6,
                            config=CM02.simgrid_config)
    assert one.seconds == pytest.approx(1e-6 + 1e6 / 2e9, rel=0.01)
    assert one.link_names == ["l0_X+"] and one.link_ids.tolist() == [0] and one.n_messages == 1
    assert one.link_utilisation[0] == pytest.approx(1.0, rel=0.01)
    # two messages over that link (tasks 0 and 1 on one node, 2 on the next router) share it
    machine3 = TorusMachine([[0, 0], [0, 0], [1, 0]], dims=[4, 4], bandwidth=[2.0, 1.0], node_ids=[0, 0, 1])
    two = simulate_exchange(Mapping([0, 1, 2], machine3), TaskGraph([0, 1, 2, 2], [2, 2], [1e6, 1e6]),
                            link_latency=1e-6, steps=3, config=CM02.simgrid_config)
    assert two.seconds == pytest.approx(1e-6 + 2e6 / 2e9, rel=0.01)
    assert two.seconds / one.seconds == pytest.approx(2.0, rel=0.01)
    assert two.step_seconds == pytest.approx([two.seconds] * 3, rel=1e-12)
    assert two.total_seconds == pytest.approx(3 * two.seconds, rel=1e-12)


@needs_replay
def test_replay_uses_the_links_our_link_loads_count():
    from mpitaskmap.metrics import link_loads
    from mpitaskmap.sim.simgrid_replay import simulate_exchange

    machine = torus_machine([4, 4], bandwidth=[[1.0, 1.0, 0.5, 1.0], 2.0])
    graph = TaskGraph.stencil([4, 4], periodic=True)
    ttp = np.random.default_rng(5).permutation(16)
    sim = simulate_exchange(Mapping(ttp, machine, graph), link_latency=1e-6, bytes_per_weight=1e5)
    loads = link_loads(graph, machine, ttp)
    assert sorted(sim.link_ids.tolist()) == np.flatnonzero(loads.messages).tolist()
    # the busiest link bounds the step from below: its bytes over its bandwidth
    assert sim.seconds >= (loads.data * 1e5 / (loads.bandwidth * GB)).max()
    util = sim.network_utilisation(machine.n_links)
    assert util.shape == (machine.n_links,) and util.max() <= 1.0 + 1e-9 and (util[loads.messages == 0] == 0).all()


@needs_replay
def test_replay_reads_any_link_name_back_to_its_link_id():
    from mpitaskmap.sim.simgrid_replay import simulate_exchange

    from mpitaskmap.sim.fluid import CM02

    # names with spaces (as PERCS gives) survive the replay program's output; the plain fluid
    # model, where the half-size message keeps its link busy half the time
    m = Renamed(lambda l: f"wire {l} of 4")
    sim = simulate_exchange(Mapping([0, 1], m, TaskGraph([0, 1, 2], [1, 0], [1e6, 5e5])), link_latency=1e-6,
                            config=CM02.simgrid_config)
    assert dict(zip(sim.link_names, sim.link_ids.tolist())) == {"wire 0 of 4": 0, "wire 3 of 4": 3}
    util = sim.network_utilisation(m.n_links)
    assert util[[1, 2]].tolist() == [0.0, 0.0] and util[[0, 3]] == pytest.approx([1.0, 0.5], rel=0.01)
    # PERCS between supernodes (one D link: a single path each way): the links our loads count
    percs = PercsMachine(2, 1)
    view = percs.node_view()
    procs = [int(view.representative[0]), int(view.representative[view.n_nodes // 2])]
    graph = TaskGraph([0, 1, 2], [1, 0], [1e6, 1e6])
    sim = simulate_exchange(Mapping(procs, percs, graph), link_latency=1e-6)
    from mpitaskmap.metrics import link_loads

    loads = link_loads(graph, percs, procs)
    assert sorted(sim.link_ids.tolist()) == np.flatnonzero(loads.messages).tolist() and loads.n_used() >= 2
    assert all(" " in n for n in sim.link_names)


def test_replay_bad_input():
    from mpitaskmap.sim.simgrid_replay import simulate_exchange

    machine = torus_machine([2], cores_per_node=2)
    with pytest.raises(InvalidInputError, match="needs the task graph"):
        simulate_exchange(Mapping([0, 1], machine), link_latency=1e-6)
    with pytest.raises(InvalidInputError, match="no message crosses the network"):
        simulate_exchange(Mapping([0, 1], machine, TaskGraph.stencil([2])), link_latency=1e-6)
    with pytest.raises(InvalidInputError, match="steps: expected a positive integer; got 0"):
        simulate_exchange(Mapping([0, 2], machine, TaskGraph.stencil([2])), link_latency=1e-6, steps=0)


# -- the halo3d proxy under smpirun -------------------------------------------------------------
@needs_smpi
def test_halo3d_runs_on_a_titan_like_platform(tmp_path):
    exe = tmp_path / "halo3d"
    subprocess.run(["smpicc", "-O2", str(ROOT / "examples" / "halo3d.c"), "-o", str(exe)], check=True,
                   capture_output=True)
    machine = titan_machine(4, cores_per_node=2, seed=1)  # 8 ranks, a 2x2x2 task grid
    (tmp_path / "p.xml").write_text(platform_xml(machine, link_latency=1e-6))
    write_smpi_hostfile(Mapping(np.arange(8), machine), tmp_path / "hosts")
    args = ["2", "2", "2", "8", "8", "8", "5", "3"]  # 8^3 cells, 5 variables, 3 steps
    out = smpirun(exe, args, platform=tmp_path / "p.xml", hostfile=tmp_path / "hosts", n_ranks=8,
                  config=SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS, timeout=120).stdout
    assert "halo3d ranks 8 grid 2x2x2 cells 8x8x8 vars 5 steps 3" in out and "halo check ok" in out
    t = float(re.search(r"max_comm_time (\S+)", out).group(1))
    # a face is 64 cells x 5 doubles = 2560 bytes; each step waits for at least one face on
    # the fastest link of the machine (120 GB/s) plus one latency
    assert t >= 3 * (2560 / 120e9 + 1e-6)
    assert t < 1e-3
