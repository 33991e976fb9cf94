"""The graph kernels' network object: torus path or hop matrix and route table, the table's budget."""

import numpy as np
import pytest

from mpitaskmap import FlatMachine, InvalidInputError, NotApplicableError, TaskGraph, titan_machine
from mpitaskmap.mappers.graph import node_network
from mpitaskmap.mappers.graph.node_network import NodeNetwork
from mpitaskmap.mappers.graph.umpa import _congestion_passes
from ring_variants import GridRing, GridRingWithRouters, assert_loads_are_a_recount, small_ring


def test_route_mode_is_chosen_by_capability_not_class():
    assert NodeNetwork(titan_machine(8, seed=0), routes=True).routing == "torus"
    assert NodeNetwork(titan_machine(8, seed=0), routes=True, _route_table=True).routing == "table"
    assert NodeNetwork(small_ring(), routes=True).routing == "table"
    assert NodeNetwork(FlatMachine([0, 1])).routing is None
    with pytest.raises(InvalidInputError, match="'flat' has no link model"):
        NodeNetwork(FlatMachine([0, 1]), routes=True)
    # a router grid without the router CSR in the node view is not enough for the torus path
    assert NodeNetwork(GridRing(6, 2, 2), routes=True).routing == "table"
    # both make a machine that is no TorusMachine take the torus path; its routes are the
    # ring's, so the kernel's loads after UMC are a recount of the ring's own routes
    ring = GridRingWithRouters(6, 2, 2)
    nn = NodeNetwork(ring, routes=True)
    assert nn.routing == "torus"
    rng = np.random.default_rng(0)
    g = TaskGraph.from_edges(rng.integers(0, 20, 80), rng.integers(0, 20, 80), rng.integers(1, 6, 80), n_tasks=20)
    task_node = nn.task_nodes(rng.permutation(ring.n_procs)[:20])
    _, swaps, data, msgs = _congestion_passes(nn, g, task_node, "latency", 8, 16, 2000, None)
    assert swaps > 0
    assert_loads_are_a_recount(g, ring, nn, task_node, data, msgs)


def test_route_table_budget(monkeypatch):
    # 12 nodes; from any node: 2 nodes 0 hops away, 4 at 1, 4 at 2, 2 at 3 -> 18 hops, 216
    # over all 144 pairs = the single-path table's entries; the split ring's 2 opposite
    # nodes of every node have 6 entries instead of 3 -> 216 + 12 * 2 * 3 = 288
    assert int(small_ring().node_view().hop_matrix().sum()) == 216
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", 131)
    with pytest.raises(NotApplicableError, match="at least 132 route entries > MAX_ROUTE_ENTRIES = 131"):
        NodeNetwork(small_ring(), routes=True)  # bounded by the 12 x 11 node pairs, before routing
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", 200)
    with pytest.raises(NotApplicableError, match="at least 216 route entries > MAX_ROUTE_ENTRIES = 200"):
        NodeNetwork(small_ring(), routes=True)  # bounded by the pairs' hops, before routing
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", 250)
    assert NodeNetwork(small_ring(), routes=True).routing == "table"
    with pytest.raises(NotApplicableError, match="they have 288 route entries > MAX_ROUTE_ENTRIES = 250"):
        NodeNetwork(small_ring(split=True), routes=True)  # counted after routing
    # a kind with a node metric bounds by its formula's hops, with no matrix (a dragonfly whose
    # ECMP has one global link a pair, tabled, routes one link a hop: the bound is the table's size)
    from mpitaskmap.machines.dragonfly.presets import dragonfly_machine
    fly = dragonfly_machine(n_groups=3, switches=2, nodes_per_switch=1, nodes=6).with_routing("ecmp")
    total = fly.node_metric().total_hops()
    assert total == int(fly.node_view().hop_matrix().sum())
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", total - 1)
    with pytest.raises(NotApplicableError, match=f"at least {total} route entries > MAX_ROUTE_ENTRIES = {total - 1}"):
        NodeNetwork(fly, routes=True)
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", total)
    assert NodeNetwork(fly, routes=True).routing == "table"  # single-path routes: exactly one entry a hop
    # a torus needs no table: the budget does not apply
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", 0)
    assert NodeNetwork(titan_machine(8, seed=0), routes=True).routing == "torus"


def _formula_machine(name):
    from mpitaskmap.machines.dragonfly.presets import dragonfly_machine
    from mpitaskmap.machines.fattree.presets import fattree_machine
    if name == "dragonfly":
        return dragonfly_machine(n_groups=5, switches=(2, 3), nodes_per_switch=2, global_links=2, global_ports=2,
                                 nodes=24, ppn=2, seed=5)
    return fattree_machine(leaves=8, nodes_per_leaf=4, taper=2, nodes=24, ppn=2, seed=5).with_routing(name)


@pytest.mark.parametrize("name", ["dmodk", "ecmp", "dragonfly"])
def test_routes_by_formula_equal_the_table(name, monkeypatch):
    # a fat tree, and a dragonfly under minimal routing, route from their node labels, with no
    # table of every node pair: the congestion refinement and the node-swap polish give the
    # same mapping, and the kernel's incremental loads are a recount of the machine's own
    # routes, as with the table
    from mpitaskmap.mapping import Mapping
    from mpitaskmap.mappers.graph import node_swaps, umpa

    machine = _formula_machine(name)
    assert NodeNetwork(machine, routes=True).routing == "formula"
    assert NodeNetwork(machine, routes=True, _route_table=True).routing == "table"
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", 0)  # no table may be built for the formula
    assert NodeNetwork(machine, routes=True).routing == "formula"
    monkeypatch.undo()
    rng = np.random.default_rng(1)
    n = 40
    g = TaskGraph.from_edges(rng.integers(0, n, 200), rng.integers(0, n, 200), rng.integers(1, 9, 200), n_tasks=n)
    start = Mapping(rng.permutation(machine.n_procs)[:n], machine, g)
    nn = NodeNetwork(machine, routes=True)
    task_node = nn.task_nodes(start.task_to_proc)
    _, swaps, data, msgs = _congestion_passes(nn, g, task_node, "latency", 8, 16, 2000, None)
    assert swaps > 0
    assert_loads_are_a_recount(g, machine, nn, task_node, data, msgs)
    by_formula = [umpa.refine_congestion(start).task_to_proc, node_swaps.refine_node_swaps(start).task_to_proc]
    real = node_network.NodeNetwork
    monkeypatch.setattr(umpa, "NodeNetwork", lambda m, **kw: real(m, **kw, _route_table=True))
    monkeypatch.setattr(node_swaps, "NodeNetwork", lambda m, **kw: real(m, **kw, _route_table=True))
    by_table = [umpa.refine_congestion(start).task_to_proc, node_swaps.refine_node_swaps(start).task_to_proc]
    assert all(np.array_equal(a, b) for a, b in zip(by_formula, by_table))
    assert not np.array_equal(by_formula[0], start.task_to_proc)
