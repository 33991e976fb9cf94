"""UGAL on a dragonfly: the load rule by hand, its fixed point against a naive reference, and the loads,
routes and replay of a ``routing="ugal"`` machine against a walk of every message's chosen path."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import DragonflyMachine
from mpitaskmap.machines.dragonfly.ugal import UGAL_MIN_HOPS, UGAL_VALIANT_HOPS, ugal_detours
from mpitaskmap.machines.links import Routes, merge_routes
from mpitaskmap.metrics import link_loads, predicted_time
from mpitaskmap.sim.fluid import fluid_exchange


def naive_ugal(a, b, j, w, G, h, max_sweeps=32):
    """The rule of mpitaskmap/machines/dragonfly/ugal.py, every load recounted from every other flow's link list, in
    exact rational arithmetic: a tie is a tie (the flow stays minimal), whatever order the kernel sums in."""
    n = len(a)
    detour = [False] * n
    w = [Fraction(x) for x in w]

    def links(f, valiant):
        if not valiant:
            return {(a[f], b[f], j[f]): w[f]}
        out = {}
        for c in range(G):
            if c in (a[f], b[f]):
                continue
            for k in range(h):
                for key in ((a[f], c, k), (c, b[f], k)):
                    out[key] = out.get(key, 0) + w[f] / ((G - 2) * h)
        return out

    sweeps = 0
    while sweeps < max_sweeps:
        changed = False
        for f in sorted(range(n), key=lambda f: (-w[f], f)):
            load = {}
            for g in range(n):
                if g != f:
                    for key, x in links(g, detour[g]).items():
                        load[key] = load.get(key, 0.0) + x
            spread = list(links(f, True))
            q_min = load.get((a[f], b[f], j[f]), 0)
            q_val = sum(load.get(key, 0) for key in spread) / len(spread)
            choice = q_min * Fraction(UGAL_MIN_HOPS) > q_val * Fraction(UGAL_VALIANT_HOPS)
            changed |= choice != detour[f]
            detour[f] = choice
        sweeps += 1
        if not changed:
            break
    return detour, sweeps


def test_the_weights_are_sst_macros_hop_counts():
    # SST/macro's dragonfly_ugal router: min_dist = 3, val_dist = 5, valiant when val_queue * 5 < min_queue * 3
    assert (UGAL_MIN_HOPS, UGAL_VALIANT_HOPS) == (3.0, 5.0)


def test_the_rule_by_hand_on_three_groups():
    # G = 3, one link a pair: group 2 is the only intermediate between 0 and 1.
    # A flow alone stays minimal: nothing else on its link.
    c = ugal_detours([0], [1], [0], [7.0], 3, 1)
    assert c.detour.tolist() == [False] and (c.sweeps, c.converged) == (1, True)
    # Two flows on link 0->1 (4 and 2): the larger decides first and finds 2 on its link, 0 on the spread
    # (0->2, 2->1): 3 x 2 > 5 x 0, it detours; the smaller then finds its link empty and stays.
    c = ugal_detours([0, 0], [1, 1], [0, 0], [4.0, 2.0], 3, 1)
    assert c.detour.tolist() == [True, False] and (c.sweeps, c.converged) == (2, True)
    # A detour that does not pay: 0->1 (3) and 0->1 (1) with 2->1 (6) already on the spread's second leg.
    # The 3 finds 1 on its link (3 x 1 = 3) and (0 + 6) / 2 = 3 on the spread (5 x 3 = 15): it stays; so does
    # the 1 (3 x 3 = 9 against 15); 2->1 finds nothing on its own link: everyone stays minimal.
    c = ugal_detours([0, 0, 2], [1, 1, 1], [0, 0, 0], [3.0, 1.0, 6.0], 3, 1)
    assert c.detour.tolist() == [False, False, False]


def test_the_fixed_point_by_hand_takes_three_sweeps():
    # f0: 2->0, f1 and f2: 1->0, 4 each (ties decide in the given order).
    # Sweep 1 (all minimal: L20 = 4, L10 = 8): f0 finds L20 = 0, stays; f1 finds L10 = 4 and (L12 + L20) / 2 = 2:
    #   12 > 10, detours (L12 += 4, L20 += 4, L10 -= 4); f2 finds L10 = 0, stays.
    # Sweep 2: f0 now finds f1's detour on its link, L20 = 4, and (L21 + L10) / 2 = (0 + 4) / 2 = 2: 12 > 10, it
    #   detours too (L21 += 4, L10 += 4); f1 finds L10 = 8 against 0: stays detoured; f2 finds L10 = 4 (f0's
    #   second leg) against (L12 + L20) / 2 = (4 + 4) / 2 = 4: 12 < 20, stays minimal.
    # Sweep 3 changes nothing: the fixed point.
    c = ugal_detours([2, 1, 1], [0, 0, 0], [0, 0, 0], [4.0, 4.0, 4.0], 3, 1)
    assert c.detour.tolist() == [True, True, False] and (c.sweeps, c.converged) == (3, True)
    # stopped early, it keeps the choices of its last sweep and says so
    c = ugal_detours([2, 1, 1], [0, 0, 0], [0, 0, 0], [4.0, 4.0, 4.0], 3, 1, max_sweeps=1)
    assert c.detour.tolist() == [False, True, False] and (c.sweeps, c.converged) == (1, False)


def random_exchanges(seed, trials, groups, flows, volumes):
    """``trials`` random exchanges (G, h, a, b, j, w): G drawn from ``groups``, 1-3 links, ``flows`` flows, volumes
    drawn from ``volumes``."""
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        G, h, n = int(rng.choice(groups)), int(rng.integers(1, 4)), int(rng.integers(*flows))
        a = rng.integers(0, G, n)
        yield G, h, a, (a + rng.integers(1, G, n)) % G, rng.integers(0, h, n), rng.choice(volumes, n)


def test_the_fixed_point_equals_a_naive_recount_on_random_exchanges():
    multi_sweep = 0
    for G, h, a, b, j, w in random_exchanges(7, 600, range(3, 7), (1, 9), np.arange(1.0, 9.0)):
        want, sweeps = naive_ugal(a.tolist(), b.tolist(), j.tolist(), w.tolist(), G, h)
        got = ugal_detours(a, b, j, w, G, h)
        assert got.detour.tolist() == want and got.sweeps == sweeps, (G, h, a, b, j, w)
        multi_sweep += sweeps > 2
    assert multi_sweep >= 3  # flows that change their mind after a later flow's choice were exercised


def test_ties_stay_minimal_whatever_the_summation_order():
    # integer volumes over G - 2 = 3 or 6 intermediate groups: thirds that do not add up exactly in floats, and the
    # kernel's running sums (each flow removed and placed again) leave rounding errors an exact tie can fall
    # either side of.  The kernel decides every one as exact arithmetic does (the case of the test above, where
    # it did not without its tie margin, was found by such a search)
    for G, h, a, b, j, w in random_exchanges(1, 1500, [5, 8], (2, 7), np.arange(1.0, 7.0)):
        want, sweeps = naive_ugal(a.tolist(), b.tolist(), j.tolist(), w.tolist(), G, h)
        got = ugal_detours(a, b, j, w, G, h)
        assert got.detour.tolist() == want and got.sweeps == sweeps, (G, h, a, b, j, w)


def test_a_flow_alone_on_its_link_stays_minimal_when_rounding_says_otherwise():
    # five groups, one link a pair: flows 2 -> 0 (5 and 4) and 0 -> 2 (5).  The 5 from group 2 detours (the 4
    # shares its link); 0 -> 2 then has no other flow on its minimal link (q_min = 0) and must stay minimal.  The
    # kernel's running sums put its detour's mean at a rounding error below 0 (thirds of 5 added and removed),
    # which a strict comparison alone would take for a reason to detour: a tie below 1e-12 of the volume stays
    # minimal
    a, b, j, w = [2, 2, 0], [0, 0, 2], [0, 0, 0], [5.0, 4.0, 5.0]
    assert naive_ugal(a, b, j, w, 5, 1)[0] == [True, False, False]
    assert ugal_detours(a, b, j, w, 5, 1).detour.tolist() == [True, False, False]


def test_the_choice_is_deterministic_and_follows_the_flows_not_their_order():
    rng = np.random.default_rng(3)
    n, G, h = 300, 9, 2
    a = rng.integers(0, G, n)
    b = (a + rng.integers(1, G, n)) % G
    j = rng.integers(0, h, n)
    w = rng.permutation(n).astype(float) + 1.0  # distinct volumes: the deciding order does not depend on the input's
    first = ugal_detours(a, b, j, w, G, h)
    assert np.array_equal(first.detour, ugal_detours(a, b, j, w, G, h).detour)
    assert 0 < first.detour.sum() < n
    perm = rng.permutation(n)
    again = ugal_detours(a[perm], b[perm], j[perm], w[perm], G, h)
    assert np.array_equal(again.detour, first.detour[perm])


def test_without_an_intermediate_group_every_flow_stays_minimal_and_bad_flows_are_named():
    assert ugal_detours([0, 0, 0], [1, 1, 1], [0, 0, 0], [9.0, 9.0, 9.0], 2, 1).detour.tolist() == [False] * 3
    with pytest.raises(InvalidInputError, match="flow 1: source and destination both in group 2"):
        ugal_detours([0, 2], [1, 2], [0, 0], [1.0, 1.0], 3, 1)
    with pytest.raises(InvalidInputError, match="volume: weights must be finite and >= 0, index 0 is -1.0"):
        ugal_detours([0], [1], [0], [-1.0], 3, 1)
    with pytest.raises(InvalidInputError, match="link"):
        ugal_detours([0], [1], [2], [1.0], 3, 2)
    with pytest.raises(InvalidInputError, match="dst_group"):
        ugal_detours([0], [3], [0], [1.0], 3, 1)
    with pytest.raises(InvalidInputError, match="max_sweeps: expected an integer >= 1; got 0"):
        ugal_detours([0], [1], [0], [1.0], 3, 1, max_sweeps=0)


def test_the_machine_decides_per_node_pair_on_its_minimal_link():
    # 4 groups of 2 switches, 2 nodes each, 2 global links a pair: a pair (u, v) takes link (u + v) mod 2.
    m = DragonflyMachine(4, 2, 2, range(16), global_links=2)
    # 0 -> 4 and 2 -> 6 (group 0 -> 1) take link 0; 1 -> 4 takes link 1; 0 -> 1 stays inside group 0
    c = m.ugal_choice([0, 2, 1, 0], [4, 6, 4, 1], [5.0, 3.0, 9.0, 50.0])
    want = ugal_detours([0, 0, 0], [1, 1, 1], [0, 0, 1], [5.0, 3.0, 9.0], 4, 2).detour.tolist() + [False]
    assert c.detour.tolist() == want == [True, False, False, False]
    with pytest.raises(InvalidInputError, match="dst_nodes"):
        m.ugal_choice([0], [16], [1.0])


def random_exchange(m: DragonflyMachine, rng, n_tasks: int, n_edges: int):
    src = rng.integers(0, n_tasks, n_edges)
    dst = (src + rng.integers(1, n_tasks, n_edges)) % n_tasks
    w = rng.integers(1, 20, n_edges).astype(float)
    g = TaskGraph.from_edges(src, dst, w, n_tasks=n_tasks)
    return g, rng.permutation(m.n_procs)[:n_tasks]


def walked_loads(m: DragonflyMachine, g: TaskGraph, ttp):
    """Data(e) and Congestion(e) from every message's chosen path, walked one message at a time."""
    node = m.node_ids[ttp]
    src = np.repeat(np.arange(g.n_tasks), np.diff(g.indptr))
    volume = {}
    for s, d, w in zip(node[src], node[g.indices], g.weights):
        if s != d:
            volume[(s, d)] = volume.get((s, d), 0.0) + w
    pairs = sorted(volume)
    detour = m.ugal_choice([p[0] for p in pairs], [p[1] for p in pairs], [volume[p] for p in pairs]).detour
    chosen = dict(zip(pairs, detour))
    minimal, valiant = m.with_routing("minimal"), m.with_routing("valiant")
    first_proc = {int(v): int(np.flatnonzero(m.node_ids == v)[0]) for v in np.unique(m.node_ids)}
    data, messages = np.zeros(m.n_links), np.zeros(m.n_links)
    for s, d, w in zip(node[src], node[g.indices], g.weights):
        if s == d:
            continue
        r = (valiant if chosen[(s, d)] else minimal).routes([first_proc[s]], [first_proc[d]])
        data[r.links] += w * r.fractions
        messages[r.links] += 1
    return data, messages, int(np.sum(detour))


@pytest.mark.parametrize("switches", [4, (2, 2)])
def test_link_loads_under_ugal_equal_a_walk_of_every_messages_chosen_path(switches):
    rng = np.random.default_rng(11)
    m = DragonflyMachine(5, switches, 2, np.repeat(np.arange(40), 2), global_links=2, routing="ugal")
    for _ in range(4):
        g, ttp = random_exchange(m, rng, 60, 400)
        loads = link_loads(g, m, ttp)
        data, messages, detoured = walked_loads(m, g, ttp)
        assert detoured > 0
        np.testing.assert_allclose(loads.data, data, rtol=1e-12, atol=1e-9)
        assert loads.messages.tolist() == np.rint(messages).astype(int).tolist()


def test_ugal_spreads_a_congested_exchange_and_leaves_a_light_one_minimal():
    # 5 groups of 4 switches (one node each): every node of group 0 sends 1 MB to its twin in group 1.  Minimal,
    # all four share the one global link 0->1; UGAL sends some through groups 2, 3 and 4.
    m = DragonflyMachine(5, 4, 1, range(20), routing="ugal")
    g = TaskGraph.from_edges([0, 1, 2, 3], [4, 5, 6, 7], [1e6] * 4, n_tasks=8)
    ttp = np.arange(8)
    minimal = m.with_routing("minimal")
    assert link_loads(g, minimal, ttp).data.max() == 4e6
    ugal = link_loads(g, m, ttp)
    assert 1e6 <= ugal.data.max() < 4e6 and ugal.data.sum() > link_loads(g, minimal, ttp).data.sum()
    bpw = 1.0  # the weights are bytes
    assert predicted_time(g, m, ttp, bytes_per_weight=bpw) < 0.75 * predicted_time(g, minimal, ttp, bytes_per_weight=bpw)
    # one pair alone: UGAL keeps it minimal, the same loads and time as the minimal routing
    one = TaskGraph.from_edges([0], [4], [1e6], n_tasks=8)
    assert link_loads(one, m, ttp).data.tolist() == link_loads(one, minimal, ttp).data.tolist()
    assert predicted_time(one, m, ttp) == predicted_time(one, minimal, ttp)


def test_exchange_routes_take_each_messages_chosen_path_both_ways():
    m = DragonflyMachine(5, 4, 1, range(20), routing="ugal")
    src, dst, vol = np.array([0, 1, 2, 3, 0]), np.array([4, 5, 6, 7, 4]), np.array([60.0, 50.0, 40.0, 30.0, 40.0])
    # pair (0, 4) carries 100 in two messages: the fixed point sees node pairs, volumes summed
    detour = m.ugal_choice([0, 1, 2, 3], [4, 5, 6, 7], [100.0, 50.0, 40.0, 30.0]).detour
    per_message = detour[[0, 1, 2, 3, 0]]
    assert 0 < per_message.sum() < 5
    valiant, minimal = m.with_routing("valiant"), m.with_routing("minimal")
    for reverse in (False, True):
        a, b = (dst, src) if reverse else (src, dst)
        got = m.exchange_routes(src, dst, vol, reverse=reverse)
        for i in range(5):
            want = (valiant if per_message[i] else minimal).routes([a[i]], [b[i]])
            lo, hi = got.indptr[i], got.indptr[i + 1]
            assert got.links[lo:hi].tolist() == want.links.tolist()
            assert got.fractions[lo:hi].tolist() == want.fractions.tolist()
    # another routing ignores the volumes
    r = minimal.exchange_routes(src, dst, vol)
    assert r.links.tolist() == minimal.routes(src, dst).links.tolist()
    with pytest.raises(InvalidInputError, match="volume"):
        m.exchange_routes(src, dst, vol[:2])


def test_the_replay_follows_ugal_and_is_faster_where_it_spreads():
    m = DragonflyMachine(5, 4, 1, range(20), routing="ugal", bandwidth=10.0)
    g = TaskGraph.from_edges([0, 1, 2, 3], [4, 5, 6, 7], [1e6] * 4, n_tasks=8)
    ttp = np.arange(8)
    spread = fluid_exchange(g, m, ttp).seconds
    minimal = fluid_exchange(g, m.with_routing("minimal"), ttp).seconds
    assert spread < 0.75 * minimal
    one = TaskGraph.from_edges([0], [4], [1e6], n_tasks=8)
    assert fluid_exchange(one, m, ttp).seconds == fluid_exchange(one, m.with_routing("minimal"), ttp).seconds


def test_pair_routes_hops_and_single_paths_are_the_minimal_ones():
    m = DragonflyMachine(4, 3, 2, range(24), global_links=2, routing="ugal")
    minimal = m.with_routing("minimal")
    src, dst = np.arange(24), (np.arange(24) * 7 + 5) % 24
    assert m.hops(src, dst).tolist() == minimal.hops(src, dst).tolist()
    assert m.routes(src, dst).links.tolist() == minimal.routes(src, dst).links.tolist()
    assert m.single_path_routes(src, dst).links.tolist() == minimal.routes(src, dst).links.tolist()
    assert m.single_paths_differ and not minimal.single_paths_differ  # SimGrid cannot follow UGAL: warned
    # two groups: no intermediate, UGAL is minimal routing
    two = DragonflyMachine(2, 3, 2, range(12), routing="ugal")
    g = TaskGraph.from_edges([0, 1, 2, 3], [6, 7, 8, 9], [100.0] * 4, n_tasks=12)
    assert link_loads(g, two, np.arange(12)).data.tolist() == \
        link_loads(g, two.with_routing("minimal"), np.arange(12)).data.tolist()


def test_merge_routes_names_a_mismatch():
    a = Routes(np.array([0, 1]), np.array([3]), np.ones(1))
    with pytest.raises(InvalidInputError, match="merge_routes: 1 and 1 routes do not match a mask of 1 pairs, 0 from"):
        merge_routes(a, a, [False])


def test_routing_ugal_is_taken_by_the_spec_the_machine_file_and_the_providers(tmp_path):
    from mpitaskmap.machines.machine_file import read_machine_file
    from mpitaskmap.machines.specs import machine_from_spec
    from mpitaskmap.providers import get_provider

    assert machine_from_spec("sim:frontier:nodes=16,ppn=4,routing=ugal", 64).machine.routing == "ugal"
    assert machine_from_spec("sim:aries:nodes=16,ppn=4,groups=2,routing=ugal", 64).machine.routing == "ugal"
    f = tmp_path / "m.txt"
    f.write_text("network dragonfly n_groups=4 switches=2 nodes_per_switch=2 routing=ugal\n"
                 "host a 1 0 0\nhost b 1 0 1\nhost c 1 1 0\nhost d 1 3 1\n")
    m = read_machine_file(f)
    assert isinstance(m, DragonflyMachine) and m.routing == "ugal" and m.node_ids.tolist() == [0, 2, 4, 14]
    assert dict(get_provider("cxi:preset=perlmutter,routing=ugal").network().options)["routing"] == "ugal"


def test_only_ugal_routing_adapts_to_the_traffic():
    m = DragonflyMachine(4, 2, 1, range(8))
    assert [m.with_routing(r).adaptive_routing for r in ("minimal", "ecmp", "valiant", "ugal", "either")] == [
        False, False, False, True, True]


def test_either_ranks_a_mapping_under_minimal_and_ugal():
    from mpitaskmap.machines.base import sampled_time
    from mpitaskmap.search.judge import fluid_seconds
    from mpitaskmap.search.problem import Problem

    m = DragonflyMachine(5, 4, 1, range(20), routing="either")
    minimal, ugal = m.routing_samples()
    assert (minimal.routing, ugal.routing) == ("minimal", "ugal") and m.routing_samples()[1] is ugal
    assert m.adaptive_routing and m.routes_known
    g = TaskGraph.from_edges([0, 1, 2, 3], [4, 5, 6, 7], [1e6] * 4, n_tasks=8)
    ttp = np.arange(8)
    both = [predicted_time(g, s, ttp, bytes_per_weight=1.0) for s in (minimal, ugal)]
    assert both[1] < both[0]
    assert predicted_time(g, m, ttp, bytes_per_weight=1.0) == pytest.approx(sampled_time(both), rel=1e-12)
    # routes, hops and loads are the minimal ones
    assert link_loads(g, m, ttp).data.tolist() == link_loads(g, minimal, ttp).data.tolist()
    replays = [fluid_exchange(g, s, ttp, steps=1).seconds for s in (minimal, ugal)]
    mapping = type("M", (), {"task_to_proc": ttp})()
    assert fluid_seconds(Problem(g, m), mapping, {"steps": 1}) == pytest.approx(sampled_time(replays), rel=1e-12)
