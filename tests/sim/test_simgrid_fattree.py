"""Fat trees on SimGrid: the FAT_TREE cluster and the explicit form say what FatTreeMachine says.

* The platform text of a small tree (``topo_parameters`` checked by hand) and when each
  form applies.
* SimGrid's own routes through its FAT_TREE cluster, read back with a small S4U program,
  are the machine's d-mod-k routes link for link, for every ordered pair of nodes of a
  tapered 2-level and 3-level tree (the mapping of SimGrid's link names to our link ids is
  worked out below from ``FatTreeZone.cpp``).
* The explicit form's routes are ``FatTreeMachine.routes`` for every pair, with per-level
  bandwidths and on an irregular (Slurm-style) tree.
* SMPI: pings over 0, 2, 4 and 6 switch hops take the time the model says, in both forms;
  on a 2:1 tapered tree two flows that share a leaf up-link (d-mod-k puts both on it) take
  twice as long as two that do not.

Tests that run SimGrid skip with a one-line reason when it is missing.
"""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines.fattree import FatTreeMachine
from mpitaskmap.machines.fattree.presets import fattree_machine
from mpitaskmap.mapfiles import host_names, write_smpi_hostfile
from mpitaskmap.mapping import Mapping
from mpitaskmap.sim.simgrid import (
    SMPI_DETERMINISTIC,
    SMPI_UNIT_FACTORS,
    platform_xml,
    simgrid_missing,
    smpirun,
)

GB = 1e9
LAT = 1e-6

needs_smpi = pytest.mark.skipif(simgrid_missing() is not None, reason=str(simgrid_missing()))
needs_s4u = pytest.mark.skipif(simgrid_missing(compiler=True) is not None, reason=str(simgrid_missing(compiler=True)))


def parse(xml):
    """Hosts {name: cores}, links {name: (Bps, s)}, routes {(src, dst): [link names]}, cluster attributes."""
    root = ET.fromstring(xml.split("\n", 2)[2])  # skip the XML declaration and DOCTYPE
    hosts = {h.get("id"): int(h.get("core")) for h in root.iter("host")}
    links = {l.get("id"): (float(l.get("bandwidth")[:-3]), float(l.get("latency")[:-1])) for l in root.iter("link")}
    routes = {(r.get("src"), r.get("dst")): [c.get("id") for c in r.iter("link_ctn")] for r in root.iter("route")}
    cluster = root.find("cluster")
    return hosts, links, routes, None if cluster is None else dict(cluster.attrib)


def tapered_2level(**kw):
    """3 leaves of 4 nodes, 2 up-links per leaf (2:1), 2 spines: SimGrid's 2;4,3;1,2;1,1."""
    return FatTreeMachine.regular([4, 3], [1, 2], kw.pop("bandwidth", 1.0), kw.pop("proc_nodes", range(12)), **kw)


def tapered_3level(**kw):
    """2 pods of 4 leaves of 4 nodes; leaves 4 down / 2 up, pod switches 4 down / 2 up: 2:1 at both levels."""
    return FatTreeMachine.regular([4, 4, 2], [1, 2, 2], kw.pop("bandwidth", 1.0), kw.pop("proc_nodes", range(32)),
                                  **kw)


# -- the platform text --------------------------------------------------------------------------
def test_fat_tree_cluster_text_hand_checked():
    # 32 leaves x 16 nodes, 4 up-links per leaf (16:4 = 4:1), 64 nodes x 8 ranks scattered
    m = fattree_machine(leaves=32, nodes_per_leaf=16, taper=4, nodes=64, ppn=8, seed=1)
    hosts, links, routes, cluster = parse(platform_xml(m, link_latency=1e-7, hosts="n%d"))
    assert not hosts and not links and not routes
    assert cluster == {
        "id": "fattree", "prefix": "n", "radical": "0-511", "suffix": "", "speed": "1Gf", "core": "8",
        "loopback_bw": "50000000000.0Bps", "loopback_lat": "1e-07s", "bw": "12500000000.0Bps", "lat": "1e-07s",
        "sharing_policy": "SPLITDUPLEX", "topology": "FAT_TREE",
        # levels; down-links of a leaf and of a spine; parents of a node and of a leaf; one cable each
        "topo_parameters": "2;16,32;1,4;1,1",
    }
    # 3 levels: 4-node leaves with 2 up-links, 4-leaf pods with 2 up-links per pod switch, 2 pods
    xml = platform_xml(tapered_3level(), link_latency=1e-6, hosts="h%d.x", form="cluster")
    cluster = parse(xml)[3]
    assert (cluster["topo_parameters"], cluster["radical"], cluster["prefix"], cluster["suffix"]) == (
        "3;4,4,2;1,2,2;1,1,1", "0-31", "h", ".x")


def test_which_form_and_why():
    # every node of the tree is a host of the cluster, allocated or not; the hostfile names the allocated ones
    m = tapered_2level(proc_nodes=[5, 5, 9])
    assert parse(platform_xml(m, link_latency=LAT, hosts="n%d"))[3]["radical"] == "0-11"
    # the default names are zero-padded (nid00005): SimGrid's cluster cannot say them -> explicit form
    hosts, _, routes, cluster = parse(platform_xml(m, link_latency=LAT))
    assert cluster is None and sorted(hosts) == ["nid00005", "nid00009"] and hosts["nid00005"] == 2
    cases = [
        (tapered_2level(bandwidth=[1.0, 0.5]), r"unequal link bandwidths \(up1 1, down1 1, up2 0.5, down2 0.5; "),
        (tapered_2level().with_routing("ecmp"), r"routing 'ecmp' \(SimGrid's FAT_TREE cluster routes d-mod-k"),
        (FatTreeMachine([[0, 0, 1, 1], [0, 0, 0, 0]], [1, 1], 1.0, range(4)), "'fattree' has no torus grid .* and is no regular fat tree"),
    ]
    for machine, why in cases:
        with pytest.raises(InvalidInputError, match="the cluster form does not apply: " + why):
            platform_xml(machine, link_latency=LAT, hosts="n%d", form="cluster")
    with pytest.raises(InvalidInputError, match="does not apply: a node_link"):
        platform_xml(tapered_2level(), link_latency=LAT, hosts="n%d", node_link=(1.0, 0.0), form="cluster")
    # routes of some pairs only: the explicit form (a cluster declares every route)
    hosts, _, routes, cluster = parse(platform_xml(tapered_2level(), link_latency=LAT, hosts="n%d", node_pairs=[[0, 5]]))
    assert cluster is None and sorted(hosts) == ["n0", "n5"] and routes["n0", "n5"][0] == "l0_up1"
    # ECMP: no SimGrid route says a split; the message names the first split pair and the d-mod-k way out
    with pytest.raises(InvalidInputError, match=r"splits the traffic of node 0 \(n0\) -> node 4 \(n4\) over several "
                                                r"paths \(a share of 0.5 on link l24_up2\).*with_routing\('dmodk'\)"):
        platform_xml(tapered_2level().with_routing("ecmp"), link_latency=LAT, hosts="n%d")
    # ... while pairs of one leaf (one path) are still written
    one_leaf = parse(platform_xml(tapered_2level().with_routing("ecmp"), link_latency=LAT, hosts="n%d",
                                  node_pairs=[[0, 1], [1, 0]]))[2]
    assert one_leaf[("n0", "n1")] == ["l0_up1", "l13_down1"]


# -- the explicit form: the machine's routes, link for link -------------------------------------------
@pytest.mark.parametrize("make", [tapered_2level, tapered_3level], ids=["2-level", "3-level"])
def test_explicit_routes_are_the_machines_for_every_pair(make):
    bandwidth = [4.0, 2.0] if make is tapered_2level else [4.0, 2.0, 1.0]
    m = make(bandwidth=bandwidth)
    hosts, links, routes, cluster = parse(platform_xml(m, link_latency=LAT, hosts="n%d"))
    assert cluster is None and len(hosts) == m.n_tree_nodes
    names = host_names(m, "n%d")
    codes, classes = m.link_classes()
    n_pairs = 0
    for u in range(m.n_tree_nodes):
        for v in range(m.n_tree_nodes):
            if u == v:
                continue
            want = m.routes([u], [v]).links.tolist()
            assert routes[names[u], names[v]] == [m.link_name(l) for l in want], (u, v)
            for l in want:  # the level's bandwidth: up/down l has bandwidth[l - 1]
                assert links[m.link_name(l)] == (bandwidth[int(classes[codes[l]][-1]) - 1] * GB, LAT)
            n_pairs += 1
    assert n_pairs == m.n_tree_nodes * (m.n_tree_nodes - 1)
    # hand-checked: 2-level, node 0 -> node 5 (leaf 1, port 5 mod 2 = 1 of leaf 0's up-links)
    if make is tapered_2level:
        assert routes["n0", "n5"] == ["l0_up1", "l25_up2", "l33_down2", "l17_down1"]


def test_explicit_routes_of_an_irregular_tree_with_per_switch_bandwidth():
    # Slurm's view: s0 above s1 (3 nodes) and s2 (1 node); up-links = down capacity / 2
    paths = [["s0", "s1"], ["s0", "s1"], ["s0", "s1"], ["s0", "s2"]]
    m = FatTreeMachine.from_paths(paths, ["a", "b", "c", "d"], [0, 1, 2, 3], bandwidth=10.0, taper=2.0)
    hosts, links, routes, cluster = parse(platform_xml(m, link_latency=LAT, hosts=list(m.node_names)))
    assert cluster is None and sorted(hosts) == ["a", "b", "c", "d"]
    for u in range(4):
        for v in range(4):
            if u != v:
                assert routes[m.node_names[u], m.node_names[v]] == [m.link_name(l) for l in m.routes([u], [v]).links]
    # a -> d climbs s1's up-link (3 x 10 / 2 = 15 GB/s) and descends s2's (1 x 10 / 2 = 5 GB/s)
    up, down = (m.link_name(l) for l in m.routes([0], [3]).links[1:3])
    assert (links[up][0], links[down][0]) == (15.0 * GB, 5.0 * GB)


# -- SimGrid's own FAT_TREE routes, read back ---------------------------------------------------------
ROUTES_PROGRAM = r"""
#include <simgrid/s4u.hpp>
#include <cstdio>
#include <vector>
/* routes PLATFORM HOST...: one line per ordered pair of distinct hosts: src dst latency link... */
int main(int argc, char** argv) {
  simgrid::s4u::Engine e(&argc, argv);
  e.load_platform(argv[1]);
  std::vector<simgrid::s4u::Host*> hosts;
  for (int i = 2; i < argc; i++) hosts.push_back(simgrid::s4u::Host::by_name(argv[i]));
  for (auto* a : hosts)
    for (auto* b : hosts) {
      if (a == b) continue;
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      a->route_to(b, links, &latency);
      std::printf("%s %s %.17g", a->get_cname(), b->get_cname(), latency);
      for (auto* l : links) std::printf(" %s", l->get_cname());
      std::printf("\n");
    }
  return 0;
}
"""


@pytest.fixture(scope="module")
def routes_program(tmp_path_factory):
    if simgrid_missing(compiler=True):
        pytest.skip(simgrid_missing(compiler=True))
    d = tmp_path_factory.mktemp("routes")
    (d / "routes.cpp").write_text(ROUTES_PROGRAM)
    subprocess.run(["c++", "-O1", "-std=c++17", "routes.cpp", "-o", "routes", "-lsimgrid"], cwd=d, check=True,
                   capture_output=True)
    return d / "routes"


def simgrid_link_to_ours(machine: FatTreeMachine, name: str) -> int:
    """Our link id of a FAT_TREE cluster link ``link_from_<child>_<parent>_<n>_UP|DOWN``.

    FatTreeZone numbers the hosts 0 .. N - 1 and the switches from 2N - 1 downwards, level by
    level (level 1 first), by position; a level-l switch at position P has copy P mod W_l
    and group P // W_l, a child at position e of level l - 1 reaches it through port
    (P mod W_l) // W_{l-1}: our link e w_l + p of the level's up (or down) block.
    """
    child, parent, _, way = re.fullmatch(r"link_from_(\d+)_(\d+)_(\d+)_(UP|DOWN)", name).groups()
    down, up, n = machine.down_links, machine.up_links, machine.n_tree_nodes
    per_level = [n] + [int(np.prod(up[:l + 1]) * np.prod(down[l + 1:])) for l in range(len(down))]

    def level_position(i: int) -> tuple[int, int]:
        if i < n:
            return 0, i
        k = 2 * n - 1 - i
        level = 1
        while k >= per_level[level]:
            k -= per_level[level]
            level += 1
        return level, k

    (lc, e), (lp, p_pos) = level_position(int(child)), level_position(int(parent))
    assert lp == lc + 1, name
    w_below, w_here = machine.copies[lc], machine.copies[lp]
    port = (p_pos % w_here) // w_below
    codes, classes = machine.link_classes()
    first = int(np.flatnonzero(codes == classes.index(f"{way.lower()}{lp}"))[0])
    return first + e * up[lc] + port


@needs_s4u
@pytest.mark.parametrize("make", [tapered_2level, tapered_3level], ids=["2-level", "3-level"])
def test_simgrids_fat_tree_routes_are_ours_link_for_link(routes_program, tmp_path, make):
    m = make()
    platform = tmp_path / "p.xml"
    platform.write_text(platform_xml(m, link_latency=LAT, hosts="n%d"))
    assert 'topology="FAT_TREE"' in platform.read_text()
    out = subprocess.run([str(routes_program), str(platform), *[f"n{v}" for v in range(m.n_tree_nodes)],
                          "--log=root.thres:critical"], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert len(lines) == m.n_tree_nodes * (m.n_tree_nodes - 1)
    for line in lines:
        src, dst, latency, *links = line.split()
        u, v = int(src[1:]), int(dst[1:])
        want = m.routes([u], [v]).links.tolist()
        assert [simgrid_link_to_ours(m, name) for name in links] == want, (u, v, links)
        assert float(latency) == pytest.approx(len(want) * LAT, rel=1e-12)
    # hand-checked on the 2-level tree: node 0 -> node 5 climbs leaf 0's port 1 to spine 1
    # (SimGrid ids: hosts 0-11, leaves 23, 22, 21, spines 20, 19)
    if make is tapered_2level:
        route = next(line for line in lines if line.startswith("n0 n5 ")).split()[3:]
        assert [re.sub(r"_\d+_(UP|DOWN)$", r"_\1", l) for l in route] == [
            "link_from_0_23_UP", "link_from_23_19_UP", "link_from_22_19_DOWN", "link_from_5_22_DOWN"]


# -- SMPI -----------------------------------------------------------------------------------------
def round_trips(program, machine, tmp_path, n_bytes, hosts="n%d", form="auto"):
    (tmp_path / "p.xml").write_text(platform_xml(machine, link_latency=LAT, hosts=hosts, form=form))
    write_smpi_hostfile(Mapping(np.arange(machine.n_procs), machine), tmp_path / "hosts", hosts=hosts)
    out = smpirun(program, [str(n_bytes)], platform=tmp_path / "p.xml", hostfile=tmp_path / "hosts",
                  n_ranks=machine.n_procs, config=SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS, timeout=120).stdout
    return {(int(i), int(j)): float(t) for i, j, t in (line.split() for line in out.splitlines())}


def one_way(machine, p, q, n_bytes):
    """Latency of every link of our route plus the bytes over its narrowest link (0 hops: the loopback)."""
    route = machine.routes([p], [q]).links
    if not route.size:
        return 1e-7 + n_bytes / (50.0 * GB)  # the node's loopback (DEFAULT_LOOPBACK)
    return route.size * LAT + n_bytes / (machine.link_bandwidths()[route].min() * GB)


@needs_smpi
@pytest.mark.parametrize("form", ["cluster", "explicit"])
def test_smpi_pings_over_0_2_4_6_switch_hops(smpi_ping, tmp_path, form):
    # ranks on node 0 (twice), 1 (same leaf), 4 (same pod, other leaf), 16 (other pod)
    m = tapered_3level(proc_nodes=[0, 0, 1, 4, 16])
    hops = {(i, j): int(m.hops([i], [j])[0]) for i in range(5) for j in range(i + 1, 5)}
    assert sorted(set(hops.values())) == [0, 2, 4, 6]
    empty = round_trips(smpi_ping, m, tmp_path, 0, form=form)
    for pair, t in empty.items():  # latency only: 2 x (hops x 1 us), or the loopback's 2 x 0.1 us
        assert t == pytest.approx(2 * one_way(m, *pair, 0), abs=1.5e-7), pair
    levels = sorted(set(hops.values()))
    for h, h_next in zip(levels, levels[1:]):  # more switch hops, longer
        assert max(t for p, t in empty.items() if hops[p] == h) < min(t for p, t in empty.items() if hops[p] == h_next)
    big = round_trips(smpi_ping, m, tmp_path, 10**6, form=form)
    for (i, j), t in big.items():
        # (SMPI adds tens of ns per message: the abs term covers it on the 50 GB/s loopback)
        assert t == pytest.approx(one_way(m, i, j, 10**6) + one_way(m, j, i, 10**6), rel=1e-4, abs=5e-8), (i, j)


@needs_smpi
def test_smpi_cluster_and_explicit_forms_give_one_time(smpi_ping, tmp_path):
    m = tapered_3level(proc_nodes=[0, 1, 4, 6, 16, 21])
    a = round_trips(smpi_ping, m, tmp_path, 10**5, form="cluster")
    b = round_trips(smpi_ping, m, tmp_path, 10**5, form="explicit")
    assert a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], rel=1e-9) for k in a)


@needs_smpi
def test_smpi_per_level_bandwidths_of_the_explicit_form(smpi_ping, tmp_path):
    # levels at 4, 2 and 1 GB/s: 1 MB over 6 hops is bound by the 1 GB/s core links
    m = tapered_3level(proc_nodes=[0, 1, 4, 16], bandwidth=[4.0, 2.0, 1.0])
    t = round_trips(smpi_ping, m, tmp_path, 10**6)
    assert t[0, 1] == pytest.approx(2 * (2 * LAT + 10**6 / (4 * GB)), rel=1e-4)
    assert t[0, 2] == pytest.approx(2 * (4 * LAT + 10**6 / (2 * GB)), rel=1e-4)
    assert t[0, 3] == pytest.approx(2 * (6 * LAT + 10**6 / (1 * GB)), rel=1e-4)


FLOWS_PROGRAM = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* flows BYTES: rank r < n/2 sends BYTES to rank r + n/2, all flows at once; rank 0 prints
   "r seconds" per flow, from the sender's start to the receiver's completion (MPI_Wtime is
   SimGrid's one simulated clock; ranks leave the barrier a few us apart, so each flow is
   timed from its own sender's start). */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &n);
  int bytes = atoi(argv[1]), half = n / 2;
  char *buf = calloc(bytes > 0 ? bytes : 1, 1);
  double t, *all = calloc(n, sizeof(double));
  MPI_Request req = MPI_REQUEST_NULL;
  if (rank >= half) MPI_Irecv(buf, bytes, MPI_CHAR, rank - half, 0, MPI_COMM_WORLD, &req);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank < half) { t = MPI_Wtime(); MPI_Send(buf, bytes, MPI_CHAR, rank + half, 0, MPI_COMM_WORLD); }
  else { MPI_Wait(&req, MPI_STATUS_IGNORE); t = MPI_Wtime(); }
  MPI_Gather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < half; r++) printf("%d %.12e\n", r, all[r + half] - all[r]);
  MPI_Finalize();
  return 0;
}
"""


@pytest.fixture(scope="module")
def smpi_flows(tmp_path_factory):
    if simgrid_missing():
        pytest.skip(simgrid_missing())
    d = tmp_path_factory.mktemp("flows")
    (d / "flows.c").write_text(FLOWS_PROGRAM)
    subprocess.run(["smpicc", "-O1", "flows.c", "-o", "flows"], cwd=d, check=True, capture_output=True)
    return d / "flows"


def flow_times(program, machine, tmp_path, n_bytes):
    (tmp_path / "p.xml").write_text(platform_xml(machine, link_latency=LAT, hosts="n%d"))
    write_smpi_hostfile(Mapping(np.arange(machine.n_procs), machine), tmp_path / "hosts", hosts="n%d")
    out = smpirun(program, [str(n_bytes)], platform=tmp_path / "p.xml", hostfile=tmp_path / "hosts",
                  n_ranks=machine.n_procs, config=SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS, timeout=120).stdout
    return [float(line.split()[1]) for line in out.splitlines()]


@needs_smpi
def test_smpi_two_flows_sharing_a_leaf_up_link_take_twice_as_long(smpi_flows, tmp_path):
    # 2 leaves of 4 nodes, 2 up-links per leaf (2:1), 1 GB/s, one SimGrid FAT_TREE cluster.
    # Flows 0 -> 4 and 1 -> 6: d-mod-k sends both through leaf 0's port 4 mod 2 = 6 mod 2 = 0;
    # flows 0 -> 4 and 1 -> 5 leave through ports 0 and 1.
    shared = FatTreeMachine.regular([4, 2], [1, 2], 1.0, [0, 1, 4, 6])
    apart = FatTreeMachine.regular([4, 2], [1, 2], 1.0, [0, 1, 4, 5])
    assert 'topology="FAT_TREE"' in platform_xml(shared, link_latency=LAT, hosts="n%d")
    # the model: the busiest link carries both messages in one case, one in the other
    csr = (np.array([0, 1, 2, 2, 2]), np.array([2, 3]), np.array([1.0, 1.0]), np.arange(4))
    assert shared.link_loads(*csr).data.max() == 2.0 and apart.link_loads(*csr).data.max() == 1.0
    n_bytes = 10**6
    t_shared = flow_times(smpi_flows, shared, tmp_path, n_bytes)
    t_apart = flow_times(smpi_flows, apart, tmp_path, n_bytes)
    # each flow: 4 links of 1 us, then 1 MB at its max-min share (1/2 or 1 GB/s)
    assert t_apart == pytest.approx([4 * LAT + n_bytes / GB] * 2, rel=1e-3)
    assert t_shared == pytest.approx([4 * LAT + 2 * n_bytes / GB] * 2, rel=1e-3)
    assert min(t_shared) > 1.9 * max(t_apart)


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
def test_cli_simgrid_runs_on_a_simulated_fat_tree_in_both_forms(capsys, tmp_path, halo3d):
    from mpitaskmap.cli import main

    # 6 of the 16 nodes of 4 leaves x 4 (tree nodes 0, 2, 5, 6, 9, 13), 2 ranks each: 12 tasks
    spec = "sim:fattree:leaves=4,nodes_per_leaf=4,taper=2,nodes=6,ppn=2,seed=1"
    times = {}
    for form, extra in (("explicit", []), ("cluster", ["--hosts", "n%d"])):
        out_dir = tmp_path / form
        status = main(["simgrid", "-m", spec, "-t", "stencil3d:4x3x1", "--methods", "identity,geometric", "-o",
                       str(out_dir), "-q", "--run", f"{halo3d} 4 3 1 8 8 8 5 3", "--time-regex",
                       r"max_comm_time (\S+)", *extra])
        assert status == 0, capsys.readouterr().err
        platform = (out_dir / "platform.xml").read_text()
        hostfile = (out_dir / "identity.hostfile").read_text().split()
        if form == "explicit":  # the provider's host names of the allocated nodes only
            assert sorted(parse(platform)[0]) == ["node0000", "node0002", "node0005", "node0006", "node0009",
                                                  "node0013"]
            assert hostfile == [f"node{v:04d}" for v in (0, 0, 2, 2, 5, 5, 6, 6, 9, 9, 13, 13)]
        else:  # every node of the tree is a host; the ranks sit on the allocated ones
            assert parse(platform)[3]["topo_parameters"] == "2;4,4;1,2;1,1"
            assert hostfile == [f"n{v}" for v in (0, 0, 2, 2, 5, 5, 6, 6, 9, 9, 13, 13)]
        rows = json.loads((out_dir / "results.json").read_text())["rows"]
        times[form] = {r["method"]: r["simulated"] for r in rows}
    for method in ("identity", "geometric"):  # one network, two descriptions: one time
        assert times["cluster"][method] == pytest.approx(times["explicit"][method], rel=1e-5)
