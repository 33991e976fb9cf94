"""Simulated dragonflies as a provider: ``sim:dragonfly`` / ``sim:frontier`` / ``sim:perlmutter`` / ``sim:aries``,
the ``"dragonfly"`` network every rank rebuilds the same machine from, the command line, and remap() under mpiexec.

Hops count the links of the shortest minimal path, node links included (module notes of
:mod:`mpitaskmap.machines.dragonfly`): 0 on one node, 2 on one switch, 3 across one local link.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, ProviderError
from mpitaskmap.cli import main
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import DragonflyMachine
from mpitaskmap.machines.dragonfly.presets import dragonfly_machine, dragonfly_preset
from mpitaskmap.providers import (Location, NetworkInfo, SimProvider, assemble_machine, get_provider,
                                  machine_from_provider)
from mpitaskmap.machines.dragonfly import dragonfly_network
from mpitaskmap.runtime.gather import describe_network
from mpi_helpers import all_same, world

# G = 3 groups of S = 3 switches all-to-all, n = 2 nodes per switch (node v = (3 g + s) 2 + k), h = 2 global links
# per pair, p = ceil(3 x 2 / 3) = 2 ports per switch: link j from a to b leaves switch (3 j + b) // 2 of a.
# Every node allocated (nodes=18, ppn=1): rank r is node r.
SMALL = "sim:dragonfly:n_groups=3,switches=3,nodes_per_switch=2,global_links=2,nodes=18,seed=1"


def as_dict(routes, i=0):
    lo, hi = routes.indptr[i], routes.indptr[i + 1]
    return dict(zip(routes.links[lo:hi].tolist(), routes.fractions[lo:hi].tolist()))


def same_machine(m, ref, pairs):
    """Node ids, shape, bandwidths and the routes of ``pairs`` equal (links and fractions)."""
    assert isinstance(m, DragonflyMachine) and m.node_ids.tolist() == ref.node_ids.tolist()
    assert repr(m) == repr(ref) and m.global_ports == ref.global_ports and m.n_links == ref.n_links
    assert m.class_bandwidths() == ref.class_bandwidths()
    src, dst = np.array(pairs).T
    a, b = m.routes(src, dst), ref.routes(src, dst)
    for name in ("indptr", "links", "fractions"):
        assert getattr(a, name).tolist() == getattr(b, name).tolist()
    assert m.hops(src, dst).tolist() == ref.hops(src, dst).tolist()


# -- sim:dragonfly ------------------------------------------------------------------------------------------
def test_sim_dragonfly_locations_network_and_machine():
    p = get_provider(SMALL)
    assert isinstance(p, SimProvider) and p.spec == SMALL
    # node 17 = (3 x 2 + 2) x 2 + 1: group 2, switch 2, slot 1
    assert [p.locate(r, 18) for r in (0, 7, 17)] == [Location((0, 0, 0), "nid00000"), Location((1, 0, 1), "nid00007"),
                                                     Location((2, 2, 1), "nid00017")]
    assert p.network() == NetworkInfo(dims=(3, 3, 2), kind="dragonfly", options=(
        ("switches", 3), ("global_links", 2), ("global_ports", 2),
        ("bandwidth", (("node", 25.0), ("local", 25.0), ("global", 25.0))), ("routing", "minimal")))
    m = machine_from_provider(p, 18)
    ref = dragonfly_machine(n_groups=3, switches=3, nodes_per_switch=2, global_links=2, nodes=18, seed=1)
    same_machine(m, ref, [(0, 6), (0, 17), (5, 12), (3, 4)])
    # one switch: 2; one group (s0 -> s1): 3; g0 s0 -> g1 s0 over link j0 (leaves s0 = 3 x 0 + 1 // 2, arrives at
    # s0 = (3 x 0 + 0) // 2): 3; g0 s0 -> g1 s1: 4 (j0 then a local hop; j1 leaves s2); g0 s0 -> g2 s2: 5 (j0 leaves
    # s1, arrives at s0; j1 leaves s2, arrives at s1: a local hop on both sides either way)
    assert m.hops([0, 0, 0, 0, 0], [1, 2, 6, 8, 17]).tolist() == [2, 3, 3, 4, 5]
    # node 0 -> node 6 over link (0 + 6) mod 2 = 0, the cable between them: links up 0, down 18 + 6 = 24, global
    # from 54, (2 a + b') 2 + j; spread ("ecmp"), half over each link: local from 36 = 2N, (3 g + s) x 2 + t' (t'
    # counted without s): g0 s0 -> s2 is 37, g1 s1 -> s0 is 44
    assert as_dict(m.routes([0], [6])) == {0: 1.0, 54: 1.0, 24: 1.0}
    assert as_dict(m.with_routing("ecmp").routes([0], [6])) == {0: 1.0, 37: 0.5, 54: 0.5, 55: 0.5, 44: 0.5, 24: 1.0}
    # nodes default to ceil(size / ppn): 9 ranks at 4 a node draw 3 nodes (12 processors; the job is the first 9)
    auto = SimProvider("dragonfly", n_groups="3", switches="3", nodes_per_switch="2", ppn="4", seed="1")
    assert auto.machine(9).n_nodes == math.ceil(9 / 4)
    assert auto.machine(9).node_ids.tolist() == dragonfly_machine(
        n_groups=3, switches=3, nodes_per_switch=2, nodes=3, ppn=4, seed=1).node_ids.tolist()
    assert machine_from_provider(auto, 9).n_procs == 9


def test_sim_dragonfly_row_column_valiant_and_bandwidth():
    spec = "sim:dragonfly:n_groups=3,switches=2x2,nodes_per_switch=2,global_ports=1,bw=10,nodes=24,routing=valiant"
    m = machine_from_provider(get_provider(spec), 24)
    ref = dragonfly_machine(n_groups=3, switches=(2, 2), nodes_per_switch=2, global_ports=1, bandwidth=10.0,
                            nodes=24, routing="valiant")
    same_machine(m, ref, [(0, 9), (0, 23), (2, 6)])
    assert (m.rows, m.columns, m.routing) == (2, 2, "valiant")
    assert m.class_bandwidths() == {"node": 10.0, "green": 10.0, "black": 10.0, "global": 10.0}
    # switch s = 2 r + c; node 0 on s0 (r0 c0): node 2 on s1 (same row, green) 3, node 4 on s2 (same column,
    # black) 3, node 6 on s3 (row then column) 4
    assert m.hops([0, 0, 0], [2, 4, 6]).tolist() == [3, 3, 4]
    assert get_provider(spec).network().options[0] == ("switches", (2, 2))


def test_sim_dragonfly_link_classes_given_one_by_one():
    # bw on every class, then the classes named (as a machine file's network line)
    spec = "sim:dragonfly:n_groups=3,switches=2x2,nodes_per_switch=2,global_ports=1,bw=10,bw_black=30,bw_global=7.5,nodes=4"
    m = machine_from_provider(get_provider(spec), 4)
    assert m.class_bandwidths() == {"node": 10.0, "green": 10.0, "black": 30.0, "global": 7.5}
    # without bw every class is named; the Aries classes of benchmarks' cascade study shape
    spec = ("sim:dragonfly:n_groups=19,switches=6x16,nodes_per_switch=4,global_links=10,global_ports=2,bw_node=8,"
            "bw_green=5.25,bw_black=15.75,bw_global=9.375,nodes=8,seed=1")
    m = machine_from_provider(get_provider(spec), 8)
    assert m.class_bandwidths() == {"node": 8.0, "green": 5.25, "black": 15.75, "global": 9.375}
    assert (m.n_groups, m.rows, m.columns, m.global_links, m.global_ports) == (19, 6, 16, 10, 2)
    # the classes reach the network every rank reports: the machine it rebuilds has them
    assert dict(dict(get_provider(spec).network().options)["bandwidth"]) == m.class_bandwidths()


# -- the presets --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["frontier", "perlmutter", "aries"])
@pytest.mark.parametrize("routing", ["minimal", "valiant"])
def test_sim_presets_match_dragonfly_preset(name, routing):
    p = get_provider(f"sim:{name}:nodes=16,ppn=4,seed=3,groups=2,routing={routing}")
    m = machine_from_provider(p, 64)
    ref = dragonfly_preset(name, nodes=16, ppn=4, seed=3, groups=2, routing=routing)
    same_machine(m, ref, [(0, 63), (0, 4), (5, 40), (17, 33), (62, 1)])
    assert len(set(m.locate(np.arange(64))[:, 0].tolist())) == 2
    # without groups=: scattered over the whole machine
    whole = machine_from_provider(get_provider(f"sim:{name}:nodes=16,ppn=4,seed=3"), 64)
    assert whole.node_ids.tolist() == dragonfly_preset(name, nodes=16, ppn=4, seed=3).node_ids.tolist()


def test_frontier_hops_hand_checked():
    # the draw of dragonfly_preset("frontier", nodes=64, ppn=8, seed=1), 8 ranks a node: node 0 (ranks 0-7) at
    # (group 1, switch 14, slot 3), node 1 (ranks 8-15) at (2, 0, 3), nodes 6 and 7 (ranks 48, 56) at (8, 18, 1) and
    # (8, 20, 1), nodes 20 and 21 (ranks 160, 168) at (21, 21, 1) and (21, 21, 2)
    m = machine_from_provider(get_provider("sim:frontier:nodes=64,ppn=8,seed=1"), 512)
    assert m.locate([0, 8, 48, 56, 160, 168]).tolist() == [[1, 14, 3], [2, 0, 3], [8, 18, 1], [8, 20, 1],
                                                           [21, 21, 1], [21, 21, 2]]
    # G = 74, h = 4, p = ceil(74 x 4 / 32) = 10: link j from group 1 to 2 leaves switch (74 j + 2) // 10 = 0, 7, 15,
    # 22 (never 14: one local hop) and arrives at (74 j + 1) // 10 = 0, 7, 14, 22 of group 2 (j0 at switch 0: none);
    # the node pair (4 x 46 + 3, 4 x 64 + 3) = (187, 259) takes j = 446 mod 4 = 2: a local hop at both ends
    assert m.global_ports == 10
    assert m.hops([0, 160, 48, 0], [7, 168, 56, 8]).tolist() == [0, 2, 3, 5]
    assert m.with_routing("ecmp").hops([0], [8]).tolist() == [4]  # the shortest of the four: j0


def test_aries_hops_hand_checked():
    # groups=2 with every node of them (768 = 2 x 96 x 4): the draw of seed 2 is groups 8 and 25, so rank i < 384 is
    # node 3072 + i of group 8 and rank 384 + i node 9600 + i of group 25; switch s = 16 row + column
    m = machine_from_provider(get_provider("sim:aries:nodes=768,seed=2,groups=2"), 768)
    assert m.locate([0, 384]).tolist() == [[8, 0, 0], [25, 0, 0]]
    # one router 2; s0 -> s1 (row 0: green) 3; s0 -> s16 (column 0: black) 3; s0 -> s17 4
    assert m.hops([0, 0, 0, 0], [3, 4, 64, 68]).tolist() == [2, 3, 3, 4]
    # G = 32, p = 5: link j from 8 to 25 leaves port 32 j + 25 (switch 5 for j0: row 0, column 5) and arrives at port
    # 32 j + 8 of group 25 (switch 1): rank 20 (s5) -> rank 388 (s1) up, global, down; rank 0 (s0) -> rank 384 (s0):
    # no port of either group on switch 0 (32 j + 25 >= 5, 32 j + 8 >= 5), j0 is green, global, green: the shortest
    # ("ecmp"); the "minimal" pairs take j = (u + v) mod 15: (3092 + 9604) mod 15 = 6 leaves switch 217 // 5 = 43
    # (row 2, column 11) and arrives at 200 // 5 = 40 (row 2, column 8); (3072 + 9600) mod 15 = 12 leaves switch 81
    # (row 5, column 1), arrives at 78 (row 4, column 14): green and black at both ends, 7 links each
    assert m.with_routing("ecmp").hops([20, 0], [388, 384]).tolist() == [3, 5]
    assert m.hops([20, 0], [388, 384]).tolist() == [7, 7]


# -- the network every rank rebuilds the machine from -------------------------------------------------------
def test_dragonfly_network_rebuilds_the_machine_and_names_bad_ranks():
    ref = dragonfly_preset("aries", nodes=4, ppn=2, seed=1, routing="valiant")
    net = dragonfly_network(ref)
    assert net.dims == (32, 96, 4) and dict(net.options)["bandwidth"] == (
        ("node", 8.0), ("green", 5.25), ("black", 15.75), ("global", 9.375))
    locs = [Location(tuple(int(c) for c in ref.locate(r)[0]), f"n{r // 2}") for r in range(8)]
    m = assemble_machine(locs, net, name="demo")
    same_machine(m, ref, [(0, 7), (2, 5)])
    assert describe_network("sim:aries", net) == (
        "provider 'sim:aries' (dragonfly network 32x96x4 switches=(6, 16) global_links=15 global_ports=5 "
        "bandwidth=(('node', 8.0), ('green', 5.25), ('black', 15.75), ('global', 9.375)) routing=valiant)")
    two = [Location((0, 1, 1), "a"), Location((0, 2, 0), "b"), Location((0, 1, 1), "c")]
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine(two, net, name="demo")
    assert str(exc.value) == ("locations: ranks 0 and 2 are on nodes 'a' and 'c' but report the same (group, switch, "
                              "slot) (0, 1, 1)")
    with pytest.raises(InvalidInputError, match=r"^locations: rank 1 has coordinate 96 in dimension 1, outside "
                                                r"\[0, 96\)"):
        assemble_machine([Location((0, 1, 1), "a"), Location((0, 96, 0), "b")], net, name="demo")


GOOD = (("switches", 3), ("global_links", 1), ("global_ports", 1), ("bandwidth", (("node", 1.0),)),
        ("routing", "minimal"))


@pytest.mark.parametrize("kwargs, message", [
    (dict(dims=(3, 3, 2), options=GOOD + (("levels", 2),)),
     "options: unknown key 'levels' of a dragonfly network; valid: ['switches', 'global_links', 'global_ports', "
     "'bandwidth', 'routing']"),
    (dict(dims=(3, 3, 2), options=GOOD[1:]),
     "options: a dragonfly network needs ['switches', 'global_links', 'global_ports', 'bandwidth', 'routing']; "
     "'switches' is missing"),
    (dict(dims=(3, 4, 2), options=GOOD),
     "dims: a dragonfly network's dimensions are (groups, 3 switches (switches 3), nodes per switch); got [3, 4, 2]"),
    (dict(dims=(3, 3), options=GOOD),
     "dims: a dragonfly network's dimensions are (groups, 3 switches (switches 3), nodes per switch); got [3, 3]"),
])
def test_dragonfly_network_info_rejects(kwargs, message):
    with pytest.raises(InvalidInputError) as exc:
        NetworkInfo(kind="dragonfly", **kwargs)
    assert str(exc.value) == message


# -- spec errors ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, message", [
    ("sim:frontier:leaves=3", "provider 'sim:frontier:leaves=3': unknown key 'leaves'; valid keys: ['groups', 'nodes', "
                              "'ppn', 'routing', 'seed']"),
    ("sim:aries:routing=adaptive", "provider 'sim:aries:routing=adaptive': routing must be one of ['minimal', "
                                   "'ecmp', 'valiant', 'ugal', 'either']; got 'adaptive'"),
    ("sim:frontier:groups=80", "provider 'sim:frontier:groups=80': groups: the machine has 74 groups; got 80"),
    ("sim:perlmutter:groups=0", "provider 'sim:perlmutter:groups=0': groups must be >= 1; got 0"),
    ("sim:aries:ppn=x", "provider 'sim:aries:ppn=x': ppn must be an integer; got 'x'"),
    ("sim:dragonfly:switches=2x3x4", "provider 'sim:dragonfly:switches=2x3x4': switches must be S (all-to-all) or RxC "
                                     "(rows x columns, Aries); got '2x3x4'"),
    ("sim:dragonfly:n_groups=1", "provider 'sim:dragonfly:n_groups=1': n_groups must be >= 2; got 1"),
    ("sim:dragonfly:n_groups=2,routing=valiant", "provider 'sim:dragonfly:n_groups=2,routing=valiant': routing: 'valiant' "
                                               "needs an intermediate group, i.e. n_groups >= 3; got 2"),
    ("sim:dragonfly:global_links=2,global_ports=1", "provider 'sim:dragonfly:global_links=2,global_ports=1': "
                                                    "global_ports: 4 switches x 1 ports hold 4 of the 9 x 2 = 18 global "
                                                    "port numbers a group needs (module notes); got 1"),
    ("sim:dragonfly:bw=0", "provider 'sim:dragonfly:bw=0': bw must be positive; got 0"),
    ("sim:dragonfly:frontier=1", "provider 'sim:dragonfly:frontier=1': unknown key 'frontier'; valid keys: ['bw', "
                                 "'bw_black', 'bw_global', 'bw_green', 'bw_local', 'bw_node', "
                                 "'global_links', 'global_ports', 'groups', 'n_groups', 'nodes', 'nodes_per_switch', "
                                 "'ppn', 'routing', 'seed', 'switches']"),
    ("sim:dragonfly:bw_global=5", "provider 'sim:dragonfly:bw_global=5': bandwidth: no value for link class 'node'; "
                                  "expected one per class ['node', 'local', 'global']"),
    ("sim:dragonfly:bw=3,bw_green=5", "provider 'sim:dragonfly:bw=3,bw_green=5': bandwidth: unknown link class "
                                      "'green'; the classes of this all-to-all dragonfly are ['node', 'local', 'global']"),
    ("sim:dragonfly:bw_node=-1", "provider 'sim:dragonfly:bw_node=-1': bw_node must be positive; got -1"),
])
def test_sim_dragonfly_spec_errors(spec, message):
    with pytest.raises(InvalidInputError) as exc:
        get_provider(spec)
    assert str(exc.value) == message


def test_sim_dragonfly_job_larger_than_the_allocation():
    with pytest.raises(ProviderError) as exc:
        get_provider(SMALL.replace("nodes=18,", "")).locate(0, 19)
    assert str(exc.value) == ("sim: 'sim:dragonfly:n_groups=3,switches=3,nodes_per_switch=2,global_links=2,seed=1' "
                              "cannot hold a job of 19 ranks: nodes: the machine has 18 nodes; got 19")
    with pytest.raises(ProviderError) as exc:
        get_provider("sim:frontier:groups=1").locate(0, 129)
    assert str(exc.value) == ("sim: 'sim:frontier:groups=1' cannot hold a job of 129 ranks: nodes: 1 groups hold 128 "
                              "nodes; got 129")


# -- the command line ---------------------------------------------------------------------------------------
def test_cli_eval_on_sim_frontier(capsys):
    status = main(["eval", "-m", "sim:frontier:nodes=64,ppn=8,seed=1", "-t", "stencil3d:8x8x8", "--format", "csv",
                   "-q"])
    out = capsys.readouterr().out
    # identity: task t on rank t; total hops over the 7-point stencil's messages (both directions), from the preset
    g = TaskGraph.stencil((8, 8, 8))
    src = np.repeat(np.arange(512), np.diff(g.indptr))
    expected = int(dragonfly_preset("frontier", nodes=64, ppn=8, seed=1).hops(src, g.indices).sum())
    assert status == 0 and expected == 8176 and out.splitlines()[1].startswith(f"identity,{expected},")


def test_cli_names_the_bad_key(capsys):
    status = main(["eval", "-m", "sim:aries:nodes=4,leaves=2", "-t", "stencil:4", "-q"])
    err = capsys.readouterr().err
    assert status == 1 and err.strip() == ("mpitaskmap eval: error: provider 'sim:aries:nodes=4,leaves=2': unknown key "
                                           "'leaves'; valid keys: ['groups', 'nodes', 'ppn', 'routing', 'seed']")


# -- under mpiexec: remap on a simulated Aries ------------------------------------------------------------------
@pytest.mark.mpi(min_size=2)
def test_mpi_remap_on_a_simulated_aries():
    from mpitaskmap import remap

    comm = world()
    spec = "sim:aries:ppn=2,seed=1,groups=2"
    n = comm.size
    neighbours = [r for r in (comm.rank - 2, comm.rank + 2, comm.rank ^ 1) if 0 <= r < n and r != comm.rank]
    new, rep = remap(comm, (float(comm.rank % 2), float(comm.rank // 2)), neighbors=neighbours, provider=spec,
                     report=True)
    try:
        assert all_same(comm, (rep.status, rep.machine, rep.new_rank_of, rep.after))
        assert rep.error == "" and rep.after <= rep.before and sorted(rep.new_rank_of) == list(range(n))
        p = get_provider(spec)
        locs = comm.allgather(p.locate(comm.rank, n))
        m = assemble_machine(locs, p.network(size=n), name=spec)
        ref = dragonfly_preset("aries", nodes=math.ceil(n / 2), ppn=2, seed=1, groups=2)
        assert m.node_ids.tolist() == ref.node_ids[:n].tolist() and m.n_groups == 32
    finally:
        new.Free()


def test_sim_dragonfly_confines_its_allocation_with_groups():
    m = machine_from_provider(get_provider("sim:dragonfly:n_groups=5,switches=2,nodes_per_switch=2,nodes=6,seed=3,"
                                           "groups=2"), 6)
    assert len(set(m.locate(range(6))[:, 0].tolist())) == 2  # 6 nodes need both groups of 4
    ref = dragonfly_machine(n_groups=5, switches=2, nodes_per_switch=2, nodes=6, seed=3, groups=2)
    assert m.node_ids.tolist() == ref.node_ids.tolist()
