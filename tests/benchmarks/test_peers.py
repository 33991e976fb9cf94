"""The fat-tree inputs of the optional peers (benchmarks/peers): Scotch's tleaf, KaHIP's hierarchy.

The targets are checked by hand on small trees everywhere; the peers themselves run when
installed (``bash benchmarks/peers/install_peers.sh``) and skip with their reason otherwise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines.fattree import FatTreeMachine, fattree_machine

from benchmarks.peers import kahip, peer_inputs, scotch  # kahip: our wrapper of the wheel

needs_scotch = pytest.mark.skipif(not scotch.scotch_available(), reason="libscotch not installed "
                                  "(bash benchmarks/peers/install_peers.sh)")
needs_kahip = pytest.mark.skipif(not kahip.kahip_available(), reason=str(kahip.kahip_missing()))


def small_tree(proc_nodes):
    """3 leaves of 4 nodes, 2 up-links per leaf of the nodes' speed (4 nodes : 2 links = 2:1)."""
    return FatTreeMachine.regular([4, 3], [1, 2], 1.0, proc_nodes)


def test_level_costs_hand_computed():
    # a leaf's 4 up-links carry 16 nodes: 1/4 of a node link each -> the spine level costs 4
    assert peer_inputs.level_costs(fattree_machine(leaves=32, nodes_per_leaf=16, taper=4, nodes=64, ppn=8,
                                                   seed=1)).tolist() == [1.0, 4.0]
    # 2:1 at both levels of a 3-level tree: 1, 2, 4
    m3 = fattree_machine(leaves=32, nodes_per_leaf=16, taper=2, levels=3, nodes=64, ppn=8, seed=1)
    assert peer_inputs.level_costs(m3).tolist() == [1.0, 2.0, 4.0]
    # Slurm's tree: one up-link of 2 x 10 / 2 = 10 GB/s for 2 nodes, 10 / 2 = 5 for 1: 5 per node -> 2
    paths = [["s0", "s1"], ["s0", "s1"], ["s0", "s2"]]
    m = FatTreeMachine.from_paths(paths, ["a", "b", "c"], [0, 1, 2], bandwidth=10.0, taper=2.0)
    assert peer_inputs.level_costs(m).tolist() == [1.0, 2.0]


def test_tree_allocation_paths_and_distances():
    # node 0 twice, 1 (leaf 0); 5 (leaf 1); 9, 10 (leaf 2)
    m = small_tree([0, 0, 1, 5, 9, 10])
    a = peer_inputs.TreeAllocation.from_machine(m)
    assert a.arities == (3, 2) and a.cores == 2
    assert a.paths.tolist() == [[0, 0], [0, 0], [0, 1], [1, 0], [2, 0], [2, 1]]
    assert a.core.tolist() == [0, 1, 0, 0, 0, 0]
    assert a.costs.tolist() == [1.0, 2.0] and a.distances().tolist() == [10, 30]
    assert a.common_level([0, 0, 0, 4], [1, 2, 3, 5]).tolist() == [0, 1, 2, 1]
    assert (a.common_level([0, 0, 0], [1, 2, 3]) * 2 == m.hops([0, 0, 0], [1, 2, 3])).all()
    with pytest.raises(ValueError, match="costs: expected 2 positive level costs"):
        peer_inputs.TreeAllocation.from_machine(m, costs=[1.0])


def test_tleaf_target_hand_checked():
    t = scotch.TleafTarget.from_machine(small_tree([0, 0, 1, 5, 9, 10]))
    assert str(t) == "tleaf 3 3 20 2 10 2 1" and t.n_terminals == 12
    # terminal = (leaf position x 2 + node position) x 2 + core
    assert t.terminals.tolist() == [0, 1, 2, 4, 8, 10]
    # same node 1; same leaf 10 + 1; across the spine 20 + 10 + 1
    assert t.distance([0, 0, 0], [1, 2, 3]).tolist() == [1, 11, 31]
    # one leaf, one core per node: the top level (1 child) goes, the cores' cost joins the nodes' level
    t = scotch.TleafTarget.from_machine(small_tree([0, 1]))
    assert (str(t), t.terminals.tolist(), t.distance([0], [1]).tolist()) == ("tleaf 1 2 11", [0, 1], [11])


def test_kahip_target_exact_and_chunked():
    whole = FatTreeMachine.regular([4, 2], [1, 2], 1.0, np.repeat(np.arange(8), 2))  # every node, 2 ranks each
    t = kahip.KahipTarget.from_machine(whole)
    assert (t.hierarchy, t.distances, t.exact, t.capacity) == ((4, 2), (10, 30), True, 2)
    assert t.pe_node.tolist() == list(range(8))
    assert t.distance([0, 0], [3, 4]).tolist() == [10, 30]
    # nodes 0, 1 | 5 | 9, 10, 11 on three leaves: 2 allocated nodes per used leaf on average ->
    # chunks of 2 in tree order: (0, 1) and (10, 11) under one leaf, (5, 9) across two
    t = kahip.KahipTarget.from_machine(small_tree([0, 1, 5, 9, 10, 11]))
    assert (t.hierarchy, t.distances, t.exact) == ((2, 3), (10, 30), False)
    assert t.aligned == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="every PE one share of the tasks; node 1 has 1 processors, node 0 2"):
        kahip.KahipTarget.from_machine(small_tree([0, 0, 1, 5]))


@needs_scotch
def test_scotch_tleaf_maps_a_stencil_onto_a_scattered_tapered_tree():
    m = fattree_machine(leaves=32, nodes_per_leaf=16, taper=4, nodes=64, ppn=8, seed=1)
    g = TaskGraph.stencil((8, 8, 8))
    info = {}
    t2p, seconds = scotch.map_scotch_tleaf(g.indptr, g.indices, g.weights, m, seed=0, repair=True, info=info)
    assert info["architecture"] == "sub(tleaf 3 28 40 4 10 8 1)" and info["level_costs"] == [1.0, 4.0]
    assert np.array_equal(np.sort(t2p), np.arange(512)) and seconds > 0
    identity = m.csr_hop_sums(g.indptr, g.indices, g.weights, np.arange(512))[1]
    assert m.csr_hop_sums(g.indptr, g.indices, g.weights, t2p)[1] < identity
    # without repair, Scotch's overflow (if any) is reported, not hidden
    info = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        raw, _ = scotch.map_scotch_tleaf(g.indptr, g.indices, g.weights, m, seed=0, info=info)
    assert info["procs_with_several_tasks"] == 512 - np.unique(raw).size


@needs_kahip
def test_kahip_process_mapping_onto_node_pes():
    m = fattree_machine(leaves=32, nodes_per_leaf=16, taper=4, nodes=64, ppn=8, seed=1)
    g = TaskGraph.stencil((8, 8, 8))
    info = {}
    t2p, seconds = kahip.map_kahip_tree(g.indptr, g.indices, g.weights, m, info=info)
    assert (info["hierarchy"], info["distances"], info["exact"]) == ("2:32", "10:50", False)
    assert np.array_equal(np.sort(t2p), np.arange(512)) and seconds > 0
    identity = m.csr_hop_sums(g.indptr, g.indices, g.weights, np.arange(512))[1]
    assert m.csr_hop_sums(g.indptr, g.indices, g.weights, t2p)[1] < identity
    # the raw call: PEs numbered lowest level fastest, blocks of n / k tasks
    pe, _ = kahip.map_kahip(g.indptr, g.indices, g.weights, [16, 4], [10, 50])
    assert np.bincount(pe, minlength=64).tolist() == [8] * 64
