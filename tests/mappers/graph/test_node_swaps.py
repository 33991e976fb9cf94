"""Node-swap polish (refine_node_swaps): hand cases, a brute-force reference, the kernel's
incremental loads, capacities, the work budget, both route modes, and its place in auto."""

from __future__ import annotations

import numpy as np
import pytest

import mpitaskmap as mt
from mpitaskmap import _graphmap
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FatTreeMachine, FlatMachine
from mpitaskmap.machines.fattree.presets import fattree_machine
from mpitaskmap.mappers.graph.node_network import NodeNetwork
from mpitaskmap.mappers.graph.node_swaps import _content_graph, refine_node_swaps
from mpitaskmap.mapping import Mapping
from mpitaskmap.metrics import link_loads


def _objectives(graph, machine, task_to_proc) -> np.ndarray:
    data = np.asarray(link_loads(graph, machine, task_to_proc).data)
    return data / machine.link_bandwidths()


def _groups(machine, task_to_proc) -> set:
    node = machine.node_view().node_of_proc[np.asarray(task_to_proc)]
    return {frozenset(np.flatnonzero(node == v).tolist()) for v in np.unique(node)}


def reference_node_swaps(graph, machine, task_to_proc, max_passes: int = 8) -> np.ndarray:
    """The polish by its definition: every trial recounts every link and compares the whole
    sorted load vectors; nodes hottest first (ties: lower node), then every other node in order."""
    view = machine.node_view()
    n = view.n_nodes
    task_node = view.node_of_proc[np.asarray(task_to_proc)]
    cap = np.asarray(view.capacity)
    load = np.bincount(task_node, minlength=n)
    table = machine.node_pair_routes(10**7).routes
    cptr, cadj, cw, _, _, _ = _content_graph(graph, task_node.astype(np.int64), n)
    src = np.repeat(np.arange(n), np.diff(cptr))
    bw = machine.link_bandwidths()

    def objectives(pos):
        data = np.zeros(machine.n_links)
        for u, v, w in zip(src, cadj, cw):
            j = pos[u] * n + pos[v]
            sl = slice(table.indptr[j], table.indptr[j + 1])
            np.add.at(data, table.links[sl], w * table.fractions[sl])
        return data / bw

    def lower(new, old, eps):
        for a, b in zip(np.sort(new)[::-1], np.sort(old)[::-1]):
            if a < b - eps:
                return True
            if a > b + eps:
                return False
        return False

    pos = np.arange(n)
    for _ in range(max_passes):
        obj = objectives(pos)
        eps = 1e-9 * obj.max()
        heat = np.zeros(n)
        for u, v in zip(src, cadj):
            for x, (a, b) in ((u, (pos[u], pos[v])), (v, (pos[u], pos[v]))):
                j = a * n + b
                links = table.links[table.indptr[j]: table.indptr[j + 1]]
                if links.size:
                    heat[x] = max(heat[x], obj[links].max())
        at = np.argsort(pos)
        kept = 0
        for a in sorted(range(n), key=lambda v: (-heat[at[v]], v)):
            for b in range(n):
                x, y = at[a], at[b]
                if b == a or load[x] > cap[b] or load[y] > cap[a]:
                    continue
                trial = pos.copy()
                trial[x], trial[y] = pos[y], pos[x]
                new = objectives(trial)
                if lower(new, obj, eps):
                    pos, obj, kept = trial, new, kept + 1
                    at[a], at[b] = y, x
        if not kept:
            break
    nn = NodeNetwork(machine, routes=True)
    return nn.task_procs(pos[task_node])


def test_two_leaves_hand_case():
    # leaves {0, 1} and {2, 3}; 0 -> 1 and 2 -> 3 (4 words each) both cross the spine
    m = FatTreeMachine.regular([2, 2], [1, 1], 10.0, [0, 1, 2, 3])
    g = mt.TaskGraph.from_edges([0, 2], [1, 3], [4.0, 4.0], n_tasks=4)
    start = Mapping([1, 2, 3, 0], m, g)
    before = _objectives(g, m, start.task_to_proc)
    polished = refine_node_swaps(start)
    after = _objectives(g, m, polished.task_to_proc)
    # before: 2 node links each way (0.4 each) and both messages up and down the spine: 8 links at 0.4
    assert np.count_nonzero(before) == 8 and np.allclose(before[before > 0], 0.4)
    # after: the node links only, each message inside its leaf
    assert np.count_nonzero(after) == 4 and np.allclose(after[after > 0], 0.4)
    assert polished.task_to_proc.tolist() == [1, 0, 3, 2]
    assert polished.info["node_swaps"] == 1 and polished.info["node_swap_passes"] == 2
    assert polished.method.endswith("+nodes")


def test_d_mod_k_down_links_are_balanced():
    # one leaf of 4 nodes under 2 spines (d-mod-k: node v's traffic comes down from spine v % 2);
    # two heavy receivers on nodes 0 and 2 share spine 0's down-link while spine 1's idles
    m = FatTreeMachine.regular([4, 2], [1, 2], 10.0, [0, 2, 4, 5, 1, 3])
    g = mt.TaskGraph.from_edges([2, 3, 4, 5], [0, 1, 0, 1], [8.0, 8.0, 1.0, 1.0], n_tasks=6)
    # tasks 0, 1 receive 8 words each from the other leaf: on nodes 0 and 2, both via spine 0
    start = Mapping([0, 1, 2, 3, 4, 5], m, g)
    polished = refine_node_swaps(start)
    before, after = _objectives(g, m, start.task_to_proc), _objectives(g, m, polished.task_to_proc)
    assert after.max() < before.max()
    np.testing.assert_array_equal(polished.task_to_proc, reference_node_swaps(g, m, start.task_to_proc))


@pytest.mark.parametrize("seed", range(6))
def test_matches_the_brute_force_reference(seed):
    rng = np.random.default_rng(seed)
    m = fattree_machine(leaves=4, nodes_per_leaf=4, taper=2, nodes=8, ppn=2, seed=seed)
    n = m.n_procs
    src = rng.integers(0, n, size=40)
    dst = rng.integers(0, n, size=40)
    keep = src != dst
    g = mt.TaskGraph.from_edges(src[keep], dst[keep], rng.integers(1, 9, size=int(keep.sum())).astype(float),
                                n_tasks=n)
    start = rng.permutation(n)
    polished = refine_node_swaps(Mapping(start, m, g))
    np.testing.assert_array_equal(polished.task_to_proc, reference_node_swaps(g, m, start))
    # the same groups share nodes; the busiest link never rises; the sorted loads never rise
    assert _groups(m, polished.task_to_proc) == _groups(m, start)
    before, after = np.sort(_objectives(g, m, start))[::-1], np.sort(_objectives(g, m, polished.task_to_proc))[::-1]
    assert after[0] <= before[0] + 1e-12
    diff = np.flatnonzero(np.abs(after - before) > 1e-9 * before[0])
    assert diff.size == 0 or after[diff[0]] < before[diff[0]]


def test_kernel_keeps_the_loads_of_a_recount():
    m = fattree_machine(leaves=4, nodes_per_leaf=4, taper=4, nodes=10, ppn=4, seed=2)
    g = mt.TaskGraph.stencil([5, 4, 2], weight=3.0)
    start = np.random.default_rng(1).permutation(g.n_tasks)
    nn = NodeNetwork(m, routes=True)
    task_node = nn.task_nodes(start).astype(np.int64)
    data = np.zeros(m.n_links)
    _graphmap.link_loads_nodes(g.indptr.astype(np.int64), g.indices.astype(np.int64), g.weights, task_node, nn.net,
                               data, np.zeros(m.n_links, dtype=np.int64))
    pos = np.arange(nn.n_nodes, dtype=np.int64)
    passes, swaps, work = _graphmap.refine_node_swaps(
        *_content_graph(g, task_node, nn.n_nodes), np.bincount(task_node, minlength=nn.n_nodes).astype(np.int64),
        np.asarray(nn.capacity, dtype=np.int64), nn.net, m.link_bandwidths(), pos, data, 8, 10**9)
    assert swaps > 0 and sorted(pos.tolist()) == list(range(nn.n_nodes))
    recount = np.asarray(link_loads(g, m, nn.task_procs(pos[task_node])).data)
    np.testing.assert_allclose(data, recount, rtol=0, atol=1e-9)


def test_groups_move_only_where_they_fit():
    # nodes of 2, 1 and 1 cores; the 2-task group cannot move to a 1-core node
    m = FatTreeMachine.regular([2, 2], [1, 1], 10.0, [0, 0, 2, 3])
    g = mt.TaskGraph.from_edges([0, 1, 2], [2, 3, 3], [5.0, 5.0, 1.0], n_tasks=4)
    polished = refine_node_swaps(Mapping([0, 1, 2, 3], m, g))
    node = m.node_view().node_of_proc[polished.task_to_proc]
    assert node[0] == node[1]  # the pair stays together, on the only node with room for two
    np.testing.assert_array_equal(polished.task_to_proc, reference_node_swaps(g, m, [0, 1, 2, 3]))


def test_work_budget_stops_deterministically():
    m = fattree_machine(leaves=8, nodes_per_leaf=8, taper=4, nodes=24, ppn=4, seed=3)
    g = mt.TaskGraph.stencil([8, 4, 3], weight=2.0)
    start = Mapping(np.random.default_rng(5).permutation(g.n_tasks), m, g)
    full = refine_node_swaps(start)
    short = refine_node_swaps(start, max_work=200)
    assert 200 <= short.info["node_swap_work"] < full.info["node_swap_work"]
    assert short.info["node_swaps"] < full.info["node_swaps"]
    again = refine_node_swaps(start, max_work=200)
    np.testing.assert_array_equal(again.task_to_proc, short.task_to_proc)
    one = refine_node_swaps(start, max_passes=1)
    assert one.info["node_swap_passes"] == 1 and one.info["node_swaps"] <= full.info["node_swaps"]


def test_torus_routes_on_the_fly_and_tabled_agree():
    m = mt.torus_machine([4, 4, 2], cores_per_node=2)
    g = mt.TaskGraph.stencil([8, 4, 2], weight=1.0)
    start = np.random.default_rng(3).permutation(g.n_tasks)
    results = []
    for table in (False, True):
        nn = NodeNetwork(m, routes=True, _route_table=table)
        assert nn.routing == ("table" if table else "torus")
        task_node = nn.task_nodes(start).astype(np.int64)
        data = np.zeros(m.n_links)
        _graphmap.link_loads_nodes(g.indptr.astype(np.int64), g.indices.astype(np.int64), g.weights, task_node,
                                   nn.net, data, np.zeros(m.n_links, dtype=np.int64))
        pos = np.arange(nn.n_nodes, dtype=np.int64)
        _graphmap.refine_node_swaps(*_content_graph(g, task_node, nn.n_nodes),
                                    np.bincount(task_node, minlength=nn.n_nodes).astype(np.int64),
                                    np.asarray(nn.capacity, dtype=np.int64), nn.net, m.link_bandwidths(), pos, data,
                                    8, 10**9)
        results.append(pos)
    np.testing.assert_array_equal(*results)
    polished = refine_node_swaps(Mapping(start, m, g))
    assert polished.metric("latency") <= Mapping(start, m, g).metric("latency")
    assert polished.info["node_swaps"] > 0


def test_refuses_a_machine_without_links():
    with pytest.raises(InvalidInputError, match="node-swap polish needs routed links; 'flat' has no link model"):
        refine_node_swaps(Mapping([0, 1], FlatMachine([0, 1]), mt.TaskGraph.from_edges([0], [1], n_tasks=2)))


def test_auto_takes_a_polished_mapping_on_a_tapered_tree():
    # benchmarks/app_time_fattree.py's 4:1, 512 ranks x 8 a node, seed 2: the judge's pick is a
    # node-swap polish, replayed well below every unpolished candidate it judged (SMPI: 45.3 us
    # against 55.6 us for the unpolished pick, and 54.7 us for Scotch)
    m = fattree_machine(leaves=32, nodes_per_leaf=16, taper=4, nodes=64, ppn=8, seed=2)
    g = mt.TaskGraph.stencil([8, 8, 8], weight=2560.0)
    best = mt.map(g, m, "auto")
    assert best.info["candidate"].endswith(" + nodes")
    judged = best.info["judged"]
    mine = next(j for j in judged if j["candidate"] == best.info["candidate"])
    plain = [j["simulated_s"] for j in judged if not j["candidate"].endswith(" + nodes")]
    assert plain and mine["simulated_s"] < 0.9 * min(plain)


def test_the_judge_replays_the_polish_of_every_start():
    # 2:1, 512 ranks x 16 a node, seed 1: about 40 distinct mappings tie on the predicted time
    # (a node's own link is the busiest); the polishes of the three tree splits T*, T(0,2,1) and
    # T(1,2,0) are three kinds, all replayed, and the fastest, T(1,2,0)'s, is the pick (SMPI:
    # 65.35 us, against 65.59 us for T(0,2,1)'s polish and for KaHIP)
    m = fattree_machine(leaves=32, nodes_per_leaf=16, taper=2, nodes=32, ppn=16, seed=1)
    g = mt.TaskGraph.stencil([8, 8, 8], weight=2560.0)
    best = mt.map(g, m, "auto")
    judged = {j["candidate"]: j for j in best.info["judged"]}
    starts = {c.option("start").label() for c in best.info["candidate_list"] if c.family == "refined"}
    for start in starts:
        assert f"{start} + nodes" in judged or f"{start} + uwh + umc + nodes" in judged, start
    assert best.info["candidate"] == "geometric tree T(1,2,0) + nodes"
    assert judged[best.info["candidate"]]["simulated_rank"] == 1
