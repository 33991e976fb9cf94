"""Dragonflies on SimGrid: the explicit platform says what DragonflyMachine says.

* With one global link per pair of groups, the platform's route of every ordered pair of
  nodes is the machine's minimal route link for link, on all-to-all (Slingshot) and
  row/column (Aries) groups, with the machine's class bandwidths.
* With ``h > 1`` global links per pair (the machine splits a pair's traffic over all of
  them; a SimGrid route is one path) every route is the pair's minimal path over global
  link ``(u + v) mod h``: one of the machine's paths, the pairs of two groups spread over
  the links.
* A Valiant machine is written with its minimal routes, and a warning says so.
* SMPI: pings take the time of their route (latency per link, the narrowest link's
  bandwidth), so same switch < same group < other group as the hop counts say.
* ``mpitaskmap simgrid -m sim:dragonfly:... --run`` runs halo3d per method.

Tests that run SimGrid skip with a one-line reason when it is missing.
"""

from __future__ import annotations

import json
import logging
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap.machines import DragonflyMachine
from mpitaskmap.machines.dragonfly.presets import dragonfly_preset
from mpitaskmap.mapfiles import host_names, write_smpi_hostfile
from mpitaskmap.mapping import Mapping
from mpitaskmap.sim.simgrid import SMPI_DETERMINISTIC, SMPI_UNIT_FACTORS, platform_xml, simgrid_missing, smpirun

GB = 1e9
LAT = 1e-6
#: Class bandwidths that tell the classes apart in a ping's time.
SLINGSHOT_BW = {"node": 4.0, "local": 2.0, "global": 1.0}
ARIES_BW = {"node": 4.0, "green": 2.0, "black": 3.0, "global": 1.0}

needs_smpi = pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))


def parse(xml):
    """Hosts {name: cores}, links {name: (Bps, s)}, routes {(src, dst): [link names]}."""
    root = ET.fromstring(xml.split("\n", 2)[2])  # skip the XML declaration and DOCTYPE
    hosts = {h.get("id"): int(h.get("core")) for h in root.iter("host")}
    links = {l.get("id"): (float(l.get("bandwidth")[:-3]), float(l.get("latency")[:-1])) for l in root.iter("link")}
    routes = {(r.get("src"), r.get("dst")): [c.get("id") for c in r.iter("link_ctn")] for r in root.iter("route")}
    return hosts, links, routes


def node_pairs(machine):
    """Every ordered pair of distinct allocated nodes, and the processor representing each end."""
    view = machine.node_view()
    a, b = np.meshgrid(np.arange(view.nodes.size), np.arange(view.nodes.size), indexing="ij")
    keep = a != b
    a, b = a[keep], b[keep]
    return view.nodes[a], view.nodes[b], view.representative[a], view.representative[b]


def slingshot(**kw):
    """3 groups of 3 switches all-to-all, 2 nodes each: 18 nodes, every one allocated (one twice)."""
    return DragonflyMachine(3, 3, 2, kw.pop("proc_nodes", [0, *range(18)]), bandwidth=SLINGSHOT_BW, **kw)


def aries(**kw):
    """3 groups of 2 x 2 routers (green rows, black columns), 2 nodes each: 24 nodes."""
    return DragonflyMachine(3, (2, 2), 2, kw.pop("proc_nodes", range(24)), bandwidth=ARIES_BW, **kw)


# -- the platform's routes ---------------------------------------------------------------------
@pytest.mark.parametrize("make", [slingshot, aries], ids=["slingshot", "aries"])
def test_one_global_link_routes_are_the_minimal_routes_link_for_link(make):
    m = make()
    assert m.global_links == 1
    hosts, links, routes = parse(platform_xml(m, link_latency=LAT))
    names = host_names(m)
    u, v, p, q = node_pairs(m)
    r = m.routes(p, q)
    assert (r.fractions == 1.0).all()  # one path per pair: nothing for SimGrid to drop
    for i in range(u.size):
        ours = r.links[r.indptr[i]:r.indptr[i + 1]].tolist()
        assert routes[names[u[i]], names[v[i]]] == m.link_names(ours), (u[i], v[i])
    bw = m.link_bandwidths()
    used = np.unique(r.links)
    assert {name: links[name] for name in m.link_names(used)} == {
        name: (bw[k] * GB, LAT) for name, k in zip(m.link_names(used), used.tolist())}
    # a host per node (node 0 has two ranks: two cores), a loopback each, nothing else
    assert hosts == {names[k]: 2 if k == 0 and make is slingshot else 1 for k in m.node_view().nodes.tolist()}
    assert len(routes) == u.size + len(hosts) and len(links) == used.size + len(hosts)


def test_a_route_across_an_aries_group_hand_checked():
    # node 0 (g0, router 0 = row 0 column 0) -> node 23 (g2, router 3 = row 1 column 1): the link
    # g0 -> g2 leaves router 2 of g0 (black, down column 0) and arrives at router 0 of g2 (green
    # along row 0, then black down column 1)
    m = aries()
    _, _, routes = parse(platform_xml(m, link_latency=LAT))
    assert routes["nid00000", "nid00023"] == ["node 0 up", "black g0 s0->s2", "global g0->g2 #0", "green g2 s0->s1",
                                             "black g2 s1->s3", "node 23 down"]


@pytest.mark.parametrize("make", [slingshot, aries], ids=["slingshot", "aries"])
def test_two_global_links_one_minimal_path_per_pair_over_link_u_plus_v_mod_2(make):
    m = make(global_links=2)
    _, _, routes = parse(platform_xml(m, link_latency=LAT))
    names = host_names(m)
    u, v, p, q = node_pairs(m)
    split = m.with_routing("ecmp").routes(p, q)  # every minimal path, each pair split evenly
    single = m.single_path_routes(p, q)
    routed = m.routes(p, q)  # the "minimal" machine's own routes are the single paths
    assert np.array_equal(routed.links, single.links) and np.array_equal(routed.indptr, single.indptr)
    per_link = {}
    for i in range(u.size):
        path = single.links[single.indptr[i]:single.indptr[i + 1]]
        assert routes[names[u[i]], names[v[i]]] == m.link_names(path)
        ours = dict(zip(split.links[split.indptr[i]:split.indptr[i + 1]].tolist(),
                        split.fractions[split.indptr[i]:split.indptr[i + 1]].tolist()))
        assert set(path.tolist()) <= set(ours)  # one of the machine's paths
        glob = [name for name in m.link_names(path) if name.startswith("global")]
        if u[i] // m.nodes_per_switch // m.switches_per_group == v[i] // m.nodes_per_switch // m.switches_per_group:
            assert not glob and ours == dict.fromkeys(path.tolist(), 1.0)  # inside a group: the one path
        else:
            assert len(glob) == 1 and glob[0].endswith(f"#{(u[i] + v[i]) % 2}")
            assert ours[int(path[np.flatnonzero([n.startswith("global") for n in m.link_names(path)])[0]])] == 0.5
            per_link[glob[0]] = per_link.get(glob[0], 0) + 1
    # every node of a group talks to the 2 x S nodes of another: 4 S^2 pairs per ordered group pair,
    # half of them on each link (u + v even or odd)
    S = m.switches_per_group
    assert sorted(per_link) == sorted(f"global g{a}->g{b} #{j}" for a in range(3) for b in range(3) if a != b
                                      for j in range(2))
    assert set(per_link.values()) == {2 * S * S}


def test_aries_preset_routes_are_minimal_paths_of_the_machine():
    # Cori-like Aries: 15 global links per pair of groups, 5 global ports per router
    m = dragonfly_preset("aries", nodes=10, ppn=2, seed=3)
    _, _, routes = parse(platform_xml(m, link_latency=LAT))
    names = host_names(m)
    u, v, p, q = node_pairs(m)
    split = m.with_routing("ecmp").routes(p, q)
    codes, classes = m.link_classes()
    for i in range(u.size):
        path = routes[names[u[i]], names[v[i]]]
        ids = m.single_path_routes([p[i]], [q[i]]).links
        assert path == m.link_names(ids)
        ours = set(split.links[split.indptr[i]:split.indptr[i + 1]].tolist())
        assert set(ids.tolist()) <= ours
        assert [classes[c] for c in codes[ids][[0, -1]]] == ["node", "node"]
        assert 3 <= ids.size <= 7 and sum(classes[c] == "global" for c in codes[ids]) <= 1


def test_valiant_machine_is_written_with_its_minimal_routes_and_says_so(caplog):
    valiant = slingshot(global_links=2, routing="valiant")
    with caplog.at_level(logging.WARNING, logger="mpitaskmap.sim.simgrid"):
        xml = platform_xml(valiant, link_latency=LAT)
    assert xml == platform_xml(valiant.with_routing("minimal"), link_latency=LAT)
    assert [r.getMessage() for r in caplog.records] == [
        "platform: 'dragonfly' routes 'valiant', which SimGrid cannot follow (one route per host pair); the platform "
        "has its minimal routes, one path per pair (the replay and the objective keep 'valiant')"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mpitaskmap.sim.simgrid"):
        platform_xml(valiant.with_routing("minimal"), link_latency=LAT)
    assert not caplog.records


# -- SMPI ------------------------------------------------------------------------------------------
def round_trips(program, machine, tmp_path, n_bytes):
    (tmp_path / "p.xml").write_text(platform_xml(machine, link_latency=LAT))
    write_smpi_hostfile(Mapping(np.arange(machine.n_procs), machine), tmp_path / "hosts")
    out = smpirun(program, [str(n_bytes)], platform=tmp_path / "p.xml", hostfile=tmp_path / "hosts",
                  n_ranks=machine.n_procs, config=SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS, timeout=120).stdout
    return {(int(i), int(j)): float(t) for i, j, t in (line.split() for line in out.splitlines())}


def one_way(machine, p, q, n_bytes):
    """Latency of every link of the pair's path plus the bytes over its narrowest link."""
    path = machine.single_path_routes([p], [q]).links
    return path.size * LAT + n_bytes / (machine.link_bandwidths()[path].min() * GB)


@needs_smpi
@pytest.mark.parametrize("make, global_links, nodes", [(slingshot, 1, [0, 1, 4, 6, 17]), (aries, 2, [0, 1, 2, 11, 20])],
                         ids=["slingshot", "aries-h2"])
def test_smpi_pings_same_switch_same_group_other_group(smpi_ping, tmp_path, make, global_links, nodes):
    # nodes 0 and 1 share switch 0 of group 0; the third is on another switch of group 0; two in other groups
    m = make(proc_nodes=nodes, global_links=global_links)
    group = m.locate(range(5))[:, 0]
    switch = m.node_ids // m.nodes_per_switch
    where = {(i, j): "switch" if switch[i] == switch[j] else "group" if group[i] == group[j] else "other"
             for i in range(5) for j in range(i + 1, 5)}
    assert sorted(where.values()) == ["group"] * 2 + ["other"] * 7 + ["switch"]
    links = {pair: m.single_path_routes([pair[0]], [pair[1]]).links.size for pair in where}
    if make is slingshot:  # hand-checked (SimGrid's arrangement: switch b of group a holds the link to b)
        assert links == {(0, 1): 2, (0, 2): 3, (0, 3): 4, (0, 4): 5, (1, 2): 3, (1, 3): 4, (1, 4): 5, (2, 3): 4,
                         (2, 4): 4, (3, 4): 5}
        assert all(links[p] == m.hops([p[0]], [p[1]])[0] for p in where)  # one link per pair: the minimal path
    else:  # hand-checked: link (u + v) mod 2 leaves router (3 j + b) // 2 of group a, arrives at (3 j + a) // 2
        assert links == {(0, 1): 2, (0, 2): 3, (0, 3): 4, (0, 4): 5, (1, 2): 3, (1, 3): 4, (1, 4): 6, (2, 3): 5,
                         (2, 4): 4, (3, 4): 5}
    empty = round_trips(smpi_ping, m, tmp_path, 0)
    for pair, t in empty.items():  # latency only: 1 us per link of the path, each way
        assert t == pytest.approx(one_way(m, *pair, 0) + one_way(m, *pair[::-1], 0), abs=1.5e-7), pair
    for near, far in (("switch", "group"), ("group", "other")):
        assert max(links[p] for p in where if where[p] == near) < min(links[p] for p in where if where[p] == far)
        assert max(empty[p] for p in where if where[p] == near) < min(empty[p] for p in where if where[p] == far)
    big = round_trips(smpi_ping, m, tmp_path, 10**6)
    for (i, j), t in big.items():  # 1 MB: bound by the node (4 GB/s), local (2-3) or global (1) links
        assert t == pytest.approx(one_way(m, i, j, 10**6) + one_way(m, j, i, 10**6), rel=1e-4), (i, j)
    assert big[0, 1] == pytest.approx(2 * (2 * LAT + 10**6 / (4 * GB)), rel=1e-4)
    assert min(big[p] for p in where if where[p] == "other") > 2e-3  # 1 ms each way over a 1 GB/s global link


# -- the command line ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def halo3d(tmp_path_factory):
    if simgrid_missing():
        pytest.skip(simgrid_missing())
    d = tmp_path_factory.mktemp("halo3d")
    root = Path(__file__).resolve().parents[2]
    subprocess.run(["smpicc", "-O2", "-o", str(d / "halo3d"), str(root / "examples" / "halo3d.c")], check=True,
                   capture_output=True)
    return d / "halo3d"


@needs_smpi
def test_cli_simgrid_runs_on_a_simulated_dragonfly(capsys, tmp_path, halo3d):
    from mpitaskmap.cli import main
    from mpitaskmap.providers import get_provider, machine_from_provider

    # 6 nodes x 2 ranks scattered over 3 groups of 3 switches x 2 nodes, 2 global links per pair
    spec = "sim:dragonfly:n_groups=3,switches=3,nodes_per_switch=2,global_links=2,nodes=6,ppn=2,seed=1"
    machine = machine_from_provider(get_provider(spec), 12)
    status = main(["simgrid", "-m", spec, "-t", "stencil3d:4x3x1", "--methods", "identity,geometric", "-o",
                   str(tmp_path), "-q", "--run", f"{halo3d} 4 3 1 8 8 8 5 3", "--time-regex", r"max_comm_time (\S+)"])
    assert status == 0, capsys.readouterr().err
    hosts, _, routes = parse((tmp_path / "platform.xml").read_text())
    nodes = machine.node_view().nodes.tolist()
    assert sorted(hosts) == [f"nid{k:05d}" for k in nodes]  # the provider's names of the allocated nodes
    assert (tmp_path / "identity.hostfile").read_text().split() == [f"nid{k:05d}" for k in machine.node_ids]
    u, v, p, q = node_pairs(machine)
    single = machine.single_path_routes(p, q)
    for i in range(u.size):
        assert routes[f"nid{u[i]:05d}", f"nid{v[i]:05d}"] == machine.link_names(
            single.links[single.indptr[i]:single.indptr[i + 1]])
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert [r["method"] for r in rows] == ["identity", "geometric"]
    assert all(r["error"] is None and r["simulated"] > 0 and r["figure"] > 0 for r in rows)
