"""benchmarks/harness/sstmacro.py: our dragonflies as SST/macro's, checked by hand, by brute force and, when the
simulator is built (benchmarks/sstmacro/build.sh), against its own port dump and a halo3d run."""

import doctest
import subprocess

import numpy as np
import pytest

from benchmarks.harness import sstmacro
from benchmarks.harness.sstmacro import (SstShape, cascade_group_links, cascade_redundancy, dumped_group_links,
                                         node_id_file, sstmacro_group_links, sstmacro_missing, sstmacro_nodes,
                                         sstmacro_params, sstmacro_shape)
from mpitaskmap.machines import DragonflyMachine, FlatMachine, machine_from_spec

NO_SSTMACRO = sstmacro_missing()
#: The ``sim:aries`` preset's link classes (GB/s).
ARIES_GBPS = {"node": 8.0, "green": 5.25, "black": 15.75, "global": 9.375}


def aries19(nodes=range(8)) -> DragonflyMachine:
    """Aries groups (6 x 16 routers, 4 nodes each) in the one group count SST/macro's cascade wires evenly: 19
    groups, 2 global ports a router, 10 links a pair."""
    return DragonflyMachine(19, (6, 16), 4, nodes, global_links=10, global_ports=2, bandwidth=ARIES_GBPS)


def test_the_modules_examples_run():
    result = doctest.testmod(sstmacro, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5 and result.failed == 0


def test_circulant_links_by_hand():
    # 4 groups, 2 routers, 2 ports (half 1): router 0 of group g reaches g + 1 and g - 1, router 1
    # g + 2 and g - 2 = the same group (g + 2 = g - 2 mod 4): pairs at distance 1 and 3 get one
    # link each way from router 0, the pair at distance 2 two links (router 1's two ports)
    links = sstmacro_group_links(2, 4, 2, "circulant")
    assert links.tolist() == [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]]
    # 3 routers, 4 ports (half 2) over 7 groups: offsets 1..6 once each, both ways -> 2 per pair;
    # the ports of offsets that are multiples of 7 would stay unused (none here)
    assert (sstmacro_group_links(3, 7, 4, "circulant") == 2 * (1 - np.eye(7, dtype=np.int64))).all()
    with pytest.raises(ValueError, match="even number of global ports; got 3"):
        sstmacro_group_links(2, 4, 3, "circulant")


def test_alltoall_links_by_hand_and_refusals():
    # covering 2: every router has 2 links to every other group, 4 routers -> 8 links a pair
    assert (sstmacro_group_links(4, 3, 4, "alltoall") == 8 * (1 - np.eye(3, dtype=np.int64))).all()
    with pytest.raises(ValueError, match="multiple of groups - 1 = 2 ports; got 3"):
        sstmacro_group_links(4, 3, 3, "alltoall")
    with pytest.raises(ValueError, match="covering 3 must divide the 4 routers"):
        sstmacro_group_links(4, 3, 6, "alltoall")
    with pytest.raises(ValueError, match="inter_group: expected one of"):
        sstmacro_group_links(4, 3, 2, "ring")


def test_group_links_are_a_brute_force_walk_of_the_ports():
    # every router's ports walked one by one as the module notes describe the wiring
    rng = np.random.default_rng(5)
    for _ in range(30):
        a, g, half = int(rng.integers(1, 6)), int(rng.integers(2, 12)), int(rng.integers(1, 5))
        want = np.zeros((g, g), dtype=np.int64)
        for grp in range(g):
            for r in range(a):
                for port in range(2 * half):
                    k, sign = port // 2 + 1, 1 - 2 * (port % 2)
                    far = (grp + sign * (r * half + k)) % g
                    want[grp, far] += far != grp
        assert (sstmacro_group_links(a, g, 2 * half, "circulant") == want).all()


@pytest.mark.parametrize("machine,shape", [
    (DragonflyMachine(33, 8, 4, range(40)), SstShape(8, 33, 4, 4, "circulant", 1)),      # the shape
    (DragonflyMachine(7, 3, 2, range(42), global_links=2), SstShape(3, 7, 2, 4, "circulant", 2)),
    (DragonflyMachine(5, 4, 1, range(20), global_links=4), SstShape(4, 5, 1, 4, "alltoall", 4)),  # no circulant
])
def test_shape_gives_every_group_pair_the_machines_links_and_keeps_every_node(machine, shape):
    got = sstmacro_shape(machine)
    assert got == shape
    links = sstmacro_group_links(got.routers, got.groups, got.ports, got.inter_group)
    off = ~np.eye(machine.n_groups, dtype=bool)
    assert (links[off] == machine.global_links).all() and (links[~off] == 0).all()
    # same group and switch of every node: SST/macro's node id decoded its way, ours by the machine
    nodes = sstmacro_nodes(machine, np.arange(machine.n_procs))
    switch = nodes // got.concentration
    ours = machine.node_ids // machine.nodes_per_switch
    assert (switch // got.routers == ours // machine.switches_per_group).all()
    assert (switch % got.routers == ours % machine.switches_per_group).all()


def test_cascade_links_by_hand():
    # 4 groups of 1 x 2 routers, 2 ports (half 1): router A = 0 reaches g + 0 and g - 0 (its own group: no
    # link); router A = 1 (x 0, y 1) reaches g + 1 and g - 1
    assert cascade_group_links(1, 2, 4, 2).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    # 5 groups of 2 x 1 routers, 4 ports (half 2): A = 0 reaches +0 (none), +1, -0 (none), -1; A = 1 reaches +2,
    # +3, -2, -3 = +3, +2: one link to each (a far group reached twice from one router is one port)
    links = cascade_group_links(2, 1, 5, 4)
    assert links[0].tolist() == [0, 1, 1, 1, 1]
    with pytest.raises(ValueError, match=r"1 to groups - 1 = 4 global ports; got 5"):
        cascade_group_links(2, 1, 5, 5)


def test_cascade_links_are_a_brute_force_walk_of_the_ports():
    # every router's ports walked as cascade.cc's connectedOutports lists them: a port per far group
    rng = np.random.default_rng(9)
    for _ in range(30):
        X, Y = (int(v) for v in rng.integers(1, 5, size=2))
        G = int(rng.integers(3, 12))
        H = int(rng.integers(1, G))
        want = np.zeros((G, G), dtype=np.int64)
        for g in range(G):
            for x in range(X):
                for y in range(Y):
                    ports = set()
                    for d in range(H):
                        a = x * Y + y
                        far = (g + a * (H // 2) + d) % G if d < H // 2 else (g - a * (H // 2) - (d - H // 2)) % G
                        if far != g:
                            ports.add(far)
                    for far in ports:
                        want[g, far] += 1
        assert (cascade_group_links(X, Y, G, H) == want).all()


def test_aries_groups_become_the_cascade_with_their_classes_bandwidths():
    m = aries19(range(0, 7296, 37))
    got = sstmacro_shape(m)
    assert got == SstShape(96, 19, 4, 2, "cascade", 10, 6, (14, 42, 25), 0.375)
    assert got.topology == "cascade" and got.geometry == [16, 6, 19]
    links = cascade_group_links(16, 6, 19, got.ports)
    off = ~np.eye(19, dtype=bool)
    assert (links[off] == m.global_links).all() and (links[~off] == 0).all()
    # the classes' bandwidths kept: base x redundant = 5.25, 15.75, 9.375 GB/s
    assert [got.link_gbps * r for r in got.redundant] == [5.25, 15.75, 9.375]
    # same group, row and column of every node: SST/macro's switch g X Y + y X + x (x: column, y: row)
    nodes = sstmacro_nodes(m, np.arange(m.n_procs))
    switch = nodes // got.concentration
    X, Y, _ = got.geometry
    ours = m.node_ids // m.nodes_per_switch
    assert (switch // (X * Y) == ours // m.switches_per_group).all()
    assert ((switch % (X * Y)) // X == (ours % m.switches_per_group) // m.columns).all()  # row
    assert (switch % X == ours % m.columns).all()  # column
    assert cascade_redundancy({"green": 1.0, "black": 3.0, "global": 2.0}) == (1.0, (1, 3, 2))


def test_shapes_sstmacro_cannot_give_are_refused_naming_why():
    with pytest.raises(ValueError, match=r"no SST/macro wiring of 74 groups x 32 routers gives every pair of groups "
                                         r"4 global links"):
        sstmacro_shape(machine_from_spec("sim:frontier:nodes=16,ppn=1,seed=1", 16).machine)
    with pytest.raises(ValueError, match=r"cascade wiring of 32 groups x 6 x 16 routers gives the pairs of groups "
                                         r"unequal links with every port count"):
        sstmacro_shape(machine_from_spec("sim:aries:nodes=16,ppn=1,seed=1", 16).machine)
    with pytest.raises(ValueError, match=r"cascade wiring of 19 groups x 6 x 16 routers gives every pair of groups "
                                         r"\[10\] global links with some port count, not 9"):
        sstmacro_shape(DragonflyMachine(19, (6, 16), 4, [0], global_links=9, bandwidth=ARIES_GBPS))
    with pytest.raises(ValueError, match="green links of 5.3 GB/s are no multiple of 0.015625 GB/s"):
        sstmacro_shape(DragonflyMachine(19, (6, 16), 4, [0], global_links=10, global_ports=2,
                                        bandwidth={**ARIES_GBPS, "green": 5.3}))
    with pytest.raises(ValueError, match="a pisces switch gives all its network links one bandwidth"):
        sstmacro_shape(DragonflyMachine(33, 8, 4, range(8), bandwidth={"node": 25, "local": 25, "global": 12.5}))
    with pytest.raises(ValueError, match="needs a DragonflyMachine; got FlatMachine"):
        sstmacro_shape(FlatMachine([0, 1]))


def test_node_order_and_parameters():
    m = DragonflyMachine(33, 8, 4, [40, 40, 41, 41, 900, 900, 901, 901])
    order = [6, 7, 4, 5, 0, 1, 2, 3]  # task -> processor
    nodes = sstmacro_nodes(m, order)
    assert nodes.tolist() == [901, 901, 900, 900, 40, 40, 41, 41]
    assert node_id_file(nodes) == "8\n901\n901\n900\n900\n40\n40\n41\n41\n"
    text = sstmacro_params(sstmacro_shape(m), m, routing="ugal", exe="/w/halo3d_sst", argv=[2, 2, 2, 4, 4, 4, 1, 3],
                           ranks=8, ppn=2, nodes_file="/w/nodes.txt")
    for line in ("exe = /w/halo3d_sst", "argv = 2 2 2 4 4 4 1 3", "launch_cmd = aprun -n 8 -N 2",
                 "node_id_file = /w/nodes.txt", "name = dragonfly_ugal", "geometry = [8,33]", "concentration = 4",
                 "group_connections = 4", "inter_group = circulant", "bandwidth = 25GB/s", "ncores = 2"):
        assert line in text, line
    with pytest.raises(ValueError, match="routing: expected one of"):
        sstmacro_params(sstmacro_shape(m), m, routing="adaptive", exe="x", argv=[], ranks=8, ppn=2, nodes_file="f")
    # Aries: the cascade topology, its base bandwidth and multiples, credits giving green links 64 KB, minimal only
    a = aries19()
    text = sstmacro_params(sstmacro_shape(a), a, routing="minimal", exe="x", argv=[], ranks=8, ppn=2, nodes_file="f")
    for line in ("name = cascade\n", "geometry = [16,6,19]", "group_connections = 2", "redundant = [14,42,25]",
                 "name = cascade_minimal", "bandwidth = 0.375GB/s", "credits = 4681B", "bandwidth = 157.5GB/s",
                 "bandwidth = 8GB/s"):
        assert line in text, line
    assert "inter_group" not in text and "dragonfly" not in text
    with pytest.raises(ValueError, match=r"expected one of \['minimal'\] \(SST/macro's cascade topology, Aries, has "
                                         r"only a minimal router\); got 'ugal'"):
        sstmacro_params(sstmacro_shape(a), a, routing="ugal", exe="x", argv=[], ranks=8, ppn=2, nodes_file="f")


def test_port_dump_parsing_counts_global_lines_only():
    dump = ("component,port,destination,inport,level,type\n"
            "switch0,1,switch1,0,1,intra\nswitch0,2,switch2,3,2,global\nswitch2,3,switch0,2,2,global\n"
            "switch0,4,nid0,0,0,ejection\nnid0,0,switch0,4,0,injection")
    assert dumped_group_links(dump, 2, 2).tolist() == [[0, 1], [1, 0]]


@pytest.mark.skipif(NO_SSTMACRO is not None, reason=str(NO_SSTMACRO))
def test_sstmacros_own_wiring_and_a_halo3d_run(tmp_path):
    # SST/macro's port dump of the converted shape: the links per pair of groups we count
    m = DragonflyMachine(7, 3, 2, range(42), global_links=2)
    shape = sstmacro_shape(m)
    exe = sstmacro.build_halo3d_sst(tmp_path)
    nodes = sstmacro_nodes(m, np.arange(8) * 5)
    (tmp_path / "nodes.txt").write_text(node_id_file(nodes))
    params = sstmacro_params(shape, m, routing="minimal", exe=str(exe), argv=[2, 2, 2, 4, 4, 4, 1, 2], ranks=8,
                             ppn=1, nodes_file=str(tmp_path / "nodes.txt"))
    params += f"topology.dump_file = {tmp_path / 'ports.csv'}\n"
    seconds = sstmacro.run_sstmacro(params, tmp_path, "halo", timeout=300)
    assert 0 < seconds < 1e-2
    dumped = dumped_group_links((tmp_path / "ports.csv").read_text(), shape.routers, shape.groups)
    assert (dumped == sstmacro_group_links(shape.routers, shape.groups, shape.ports, shape.inter_group)).all()
    assert "halo check ok" in (tmp_path / "halo.out").read_text()


@pytest.mark.skipif(NO_SSTMACRO is not None, reason=str(NO_SSTMACRO))
def test_a_halo3d_run_across_aries_groups_in_sstmacros_cascade(tmp_path):
    # nodes of 8 groups: the messages cross global links (SST/macro's unpatched cascade lost them: no output)
    m = aries19(range(0, 7296, 37))
    exe = sstmacro.build_halo3d_sst(tmp_path)
    nodes = sstmacro_nodes(m, np.arange(64))
    assert np.unique(nodes // (4 * 96)).size >= 6
    (tmp_path / "nodes.txt").write_text(node_id_file(nodes))
    params = sstmacro_params(sstmacro_shape(m), m, routing="minimal", exe=str(exe), argv=[4, 4, 4, 8, 8, 8, 4, 2],
                             ranks=64, ppn=1, nodes_file=str(tmp_path / "nodes.txt"))
    seconds = sstmacro.run_sstmacro(params, tmp_path, "halo", timeout=300)
    assert 0 < seconds < 1e-2
    assert "halo check ok" in (tmp_path / "halo.out").read_text()


BUILD = sstmacro.ROOT / "benchmarks" / "sstmacro" / "build.sh"


def test_build_script_usage_and_a_kept_install(tmp_path):
    bad = subprocess.run(["bash", str(BUILD), "--bogus"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "usage:" in bad.stderr
    # a finished install of the pinned commits is kept, whatever the tools here
    prefix = tmp_path / "sst"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "sstmac").write_text("#!/bin/sh\n")
    (prefix / "bin" / "sstmac").chmod(0o755)
    pins = dict(line.split("=", 1) for line in BUILD.read_text().splitlines()
                if line.split("=", 1)[0] in ("SSTMACRO_COMMIT", "DUMPI_COMMIT", "PATCHES"))
    patches = pins["PATCHES"].strip("()").split()
    assert patches and all((BUILD.parent / p).is_file() for p in patches)
    stamp = f"sst-macro {pins['SSTMACRO_COMMIT']} sst-dumpi {pins['DUMPI_COMMIT']} patches {' '.join(patches)}\n"
    (prefix / ".mpitaskmap-build").write_text(stamp)
    kept = subprocess.run(["bash", str(BUILD), "--prefix", str(prefix)], capture_output=True, text=True, timeout=60)
    assert kept.returncode == 0 and "already built" in kept.stdout, kept.stderr
    # another commit's install is not, nor one built without the patches (the build then starts: stopped here at
    # its first check, a bad source)
    for stale in ("sst-macro 0000000 sst-dumpi 0000000\n", stamp.split(" patches")[0] + "\n"):
        (prefix / ".mpitaskmap-build").write_text(stale)
        other = subprocess.run(["bash", str(BUILD), "--prefix", str(prefix), "--source", str(tmp_path / "none"),
                                "--dumpi", str(tmp_path / "none")], capture_output=True, text=True, timeout=60)
        assert other.returncode == 1 and "already built" not in other.stdout
        assert "not found" in other.stderr or "neither a repository" in other.stderr
