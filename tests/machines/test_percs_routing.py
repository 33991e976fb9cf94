"""PERCS on the network contract of the machine base: links, split routes with their
fractions, and the loads and predicted time the base derives from them.

The fast path (:meth:`PercsMachine.link_loads`: closed forms + the message-count kernel)
must give what the generic path (:meth:`Machine.link_loads` over :meth:`PercsMachine.routes`)
gives; routes are checked by hand on small cases and, on random pairs, for flow
conservation (every unit leaves the source node, reaches the destination node, and no node
between keeps or creates any).
"""

from __future__ import annotations

import numpy as np
import pytest

from mpitaskmap import TaskGraph
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mappers.percs.patterns import halo_graph, transpose_graph
from mpitaskmap.machines import LinkLoads, Machine, Routes, torus_machine
from mpitaskmap.machines.percs import PercsMachine, as_percs_machine

MODELS = ("paper", "striped", "uniform")
ROUTINGS = ("direct", "indirect")


def proc(s, node):
    """First processor of node ``node`` (0..31) of supernode ``s``."""
    return 128 * s + 4 * node


def l_index(s, y, z):
    return s * 992 + y * 31 + (z if z < y else z - 1)


def d_index(n_s, n_d, a, j, b):
    return n_s * 992 + (a * n_d + j) * (n_s - 1) + (b if b < a else b - 1)


def link_ends(n_s, n_d):
    """Global node (supernode * 32 + node) where every link leaves and arrives, from the
    numbering of percs_network: L links y -> z in supernode s; the D link of bucket j from
    a to b leaves a at node j W + (b mod W) and arrives in b at node j W + (a mod W)."""
    W = 32 // n_d
    tail, head = [], []
    for s in range(n_s):
        for y in range(32):
            for z in range(32):
                if y != z:
                    tail.append(32 * s + y)
                    head.append(32 * s + z)
    for a in range(n_s):
        for j in range(n_d):
            for b in range(n_s):
                if a != b:
                    tail.append(32 * a + j * W + b % W)
                    head.append(32 * b + j * W + a % W)
    return np.array(tail), np.array(head)


def named(m, r, i=0):
    """Route ``i`` of ``r`` as [(link name, fraction)] in route order."""
    sl = slice(r.indptr[i], r.indptr[i + 1])
    return [(m.link_name(k), float(f)) for k, f in zip(r.links[sl], r.fractions[sl])]


# ---------------------------------------------------------------- links ------------


def test_links_classes_bandwidths_and_names():
    m = PercsMachine(3, 2)
    assert m.n_links == 3 * 992 + 3 * 2 * 2 and m.has_link_model
    codes, names = m.link_classes()
    assert names == ("LL", "LR", "D")
    # a supernode: 4 drawers of 8 nodes, 8 * 7 LL links each, the other 992 - 224 links LR
    assert np.bincount(codes).tolist() == [3 * 224, 3 * 768, 12]
    bw = m.link_bandwidths()
    assert bw.shape == (m.n_links,) and {c: set(bw[codes == c].tolist()) for c in range(3)} == {
        0: {21.0}, 1: {5.0}, 2: {10.0}}
    assert m.link_name(l_index(0, 3, 5)) == "LL s0 3->5" and m.link_name(l_index(2, 9, 3)) == "LR s2 9->3"
    assert m.link_name(d_index(3, 2, 0, 1, 2)) == "D 0->2 j1" and m.link_name(d_index(3, 2, 2, 0, 1)) == "D 2->1 j0"
    every = [m.link_name(k) for k in range(m.n_links)]
    assert len(set(every)) == m.n_links
    with pytest.raises(InvalidInputError, match=r"link: must lie in \[0, 2988\); got 2988"):
        m.link_name(m.n_links)


# ---------------------------------------------------------------- routes by hand ---


def test_intra_drawer_route_by_hand():
    # node 0 -> node 1 (drawer 0), striped over the 8 nodes x of drawer 0: 0->1 is the path
    # via x = 1 and via x = 0 (self-loops free): 2/8; 0->x and x->1 carry 1/8 for x = 2..7
    m = PercsMachine(2, 1)
    want = [("LL s0 0->1", 0.25)]
    for x in range(2, 8):
        want += [(f"LL s0 0->{x}", 0.125), (f"LL s0 {x}->1", 0.125)]
    r = m.routes([proc(0, 0)], [proc(0, 1)])
    assert named(m, r) == want and r.lengths.tolist() == [1.75]
    # processors of one node: an empty route
    assert m.routes([0, 5], [3, 6]).indptr.tolist() == [0, 0, 0]
    assert m.route(proc(0, 0), proc(0, 1))[:2] == [("LL", l_index(0, 0, 1)), ("LL", l_index(0, 0, 2))]


def test_inter_drawer_route_by_hand():
    # node 0 -> node 8 (drawer 1), striped over drawer 0: x = 0 is the link 0->8 itself (1/8;
    # 8 is not in the drawer, so no second path uses it); every other x gives LL 0->x, LR x->8
    m = PercsMachine(2, 1)
    want = [("LR s0 0->8", 0.125)]
    for x in range(1, 8):
        want += [(f"LL s0 0->{x}", 0.125), (f"LR s0 {x}->8", 0.125)]
    assert named(m, m.routes([proc(0, 0)], [proc(0, 8)])) == want
    # model uniform: spread over all 32 nodes; 0->8 carries 2/32 (x = 0 and x = 8)
    u = dict(named(m.with_model("uniform"), m.with_model("uniform").routes([proc(0, 0)], [proc(0, 8)])))
    assert len(u) == 1 + 2 * 30 and u["LR s0 0->8"] == 2 / 32 and u["LL s0 0->5"] == u["LR s0 20->8"] == 1 / 32


def test_direct_route_by_hand():
    # n_s = 3, n_d = 2 (W = 16): SN0 node 3 -> SN2 node 5, half over each bucket j: L hop
    # 3 -> 16 j + 2 (the gateway to SN2), the D link, L hop 16 j + 0 (where SN0's link
    # arrives in SN2) -> 5
    m = PercsMachine(3, 2)
    assert named(m, m.routes([proc(0, 3)], [proc(2, 5)])) == [
        ("LL s0 3->2", 0.5), ("D 0->2 j0", 0.5), ("LL s2 0->5", 0.5),
        ("LR s0 3->18", 0.5), ("D 0->2 j1", 0.5), ("LR s2 16->5", 0.5),
    ]
    # n_d = 1: SN0 node 0 -> SN1 node 0: gateway node 1, the link arrives at node 0 itself
    m = PercsMachine(2, 1)
    r = m.routes([proc(0, 0)], [proc(1, 0)])
    assert named(m, r) == [("LL s0 0->1", 1.0), ("D 0->1 j0", 1.0)] and r.lengths.tolist() == [2.0]
    assert m.route(proc(0, 0), proc(1, 0)) == [("LL", l_index(0, 0, 1)), ("D", d_index(2, 1, 0, 0, 1))]


def test_indirect_route_by_hand():
    # n_s = 3, n_d = 1 (W = 32): SN0 node 0 -> SN1 node 0, a third through each c:
    # c = 0: (0->0 free) (D 0->0 free) middle 0->1 in SN0, D 0->1, (0->0 free in SN1)
    # c = 1: 0->1 in SN0, D 0->1, middle 0->1 in SN1, (D 1->1 free), 1->0 in SN1
    # c = 2: 0->2 in SN0, D 0->2, middle 0->1 in SN2, D 2->1, 2->0 in SN1
    m = PercsMachine(3, 1, routing="indirect")
    r = m.routes([proc(0, 0)], [proc(1, 0)])
    got = named(m, r)
    third = 1 / 3
    want = [("LL s0 0->1", 2 * third), ("D 0->1 j0", 2 * third), ("LL s1 0->1", third), ("LL s1 1->0", third),
            ("LL s0 0->2", third), ("D 0->2 j0", third), ("LL s2 0->1", third), ("D 2->1 j0", third),
            ("LL s1 2->0", third)]
    assert [n for n, _ in got] == [n for n, _ in want]
    assert [f for _, f in got] == pytest.approx([f for _, f in want], rel=1e-15)
    assert r.lengths[0] == pytest.approx(11 / 3)


def test_routes_reject_bad_pairs():
    m = PercsMachine(2, 1)
    with pytest.raises(InvalidInputError, match="routes: src has 2 entries, dst 1"):
        m.routes([0, 1], [2])
    with pytest.raises(InvalidInputError, match="dst"):
        m.routes([0], [256])


# ---------------------------------------------------------------- routes at large --


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("routing", ROUTINGS)
@pytest.mark.parametrize("n_s, n_d", [(1, 1), (2, 4), (3, 2), (5, 4), (3, 32)])
def test_routes_conserve_flow(n_s, n_d, routing, model):
    # every route is a unit flow: net outflow +1 at the source node, -1 at the destination
    # node, 0 at every other node; each link once per route, with a positive fraction
    m = PercsMachine(n_s, n_d, routing=routing, model=model)
    rng = np.random.default_rng(7 * n_s + n_d)
    src, dst = rng.integers(0, m.n_procs, 150), rng.integers(0, m.n_procs, 150)
    src[:3], dst[:3] = [0, 0, 1], [1, 4, 4]  # same node twice, then nodes 0 -> 1
    r = m.routes(src, dst)
    assert r.links.dtype == np.int64 and r.fractions.dtype == np.float64
    assert (r.links >= 0).all() and (r.links < m.n_links).all() and (r.fractions > 0).all()
    n_pairs = src.size
    pair = np.repeat(np.arange(n_pairs), np.diff(r.indptr))
    assert np.unique(pair * m.n_links + r.links).size == r.links.size
    tail, head = link_ends(n_s, n_d)
    net = np.zeros((n_pairs, 32 * n_s))
    np.add.at(net, (pair, tail[r.links]), r.fractions)
    np.add.at(net, (pair, head[r.links]), -r.fractions)
    want = np.zeros_like(net)
    a, b = src // 4, dst // 4
    inter = a != b
    want[np.flatnonzero(inter), a[inter]] = 1.0
    want[np.flatnonzero(inter), b[inter]] = -1.0
    assert np.allclose(net, want, rtol=0, atol=1e-12)
    assert r.indptr[1] == r.indptr[0] and (r.lengths[inter] >= 1 - 1e-12).all()


def _random_mapping(graph, machine, seed):
    return np.random.default_rng(seed).permutation(machine.n_procs)[: graph.n_tasks].astype(np.intp)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("routing", ROUTINGS)
@pytest.mark.parametrize("n_d", [1, 2, 4])
@pytest.mark.parametrize("n_s", [2, 3, 5])
def test_fast_path_equals_the_generic_path(n_s, n_d, routing, model):
    m = PercsMachine(n_s, n_d, routing=routing, model=model)
    for k, g in enumerate((halo_graph(16, 8 * n_s), transpose_graph(8, 8))):
        ttp = _random_mapping(g, m, 100 * n_s + 10 * n_d + k)
        fast = m.link_loads(g.indptr, g.indices, g.weights, ttp)
        generic = Machine.link_loads(m, g.indptr, g.indices, g.weights, ttp)
        assert type(fast) is LinkLoads
        assert np.array_equal(fast.messages, generic.messages)
        assert np.allclose(fast.data, generic.data, rtol=1e-12, atol=0)
        assert fast.data.sum() == pytest.approx(generic.data.sum(), rel=1e-12) and fast.data.sum() > 0
        assert np.array_equal(fast.link_class, generic.link_class) and fast.class_names == generic.class_names
        assert np.array_equal(fast.bandwidth, generic.bandwidth)
        assert fast.bottleneck() == generic.bottleneck()


def test_fast_and_generic_paths_at_the_study_size():
    # n_s = 32, n_d = 16, indirect routing: routes of every node pair of a 64 x 64 halo in seconds
    m = PercsMachine(32, 16, routing="indirect")
    g = halo_graph(64, 64)
    ttp = _random_mapping(g, m, 3)
    fast = m.link_loads(g.indptr, g.indices, g.weights, ttp)
    generic = Machine.link_loads(m, g.indptr, g.indices, g.weights, ttp)
    assert np.array_equal(fast.messages, generic.messages)
    assert np.allclose(fast.data, generic.data, rtol=1e-12, atol=0)


# ---------------------------------------------------------------- predicted time ---


def test_link_time_by_hand():
    # PercsMachine(2, 1), direct: A = node 0 -> SN1 node 0, weight 10: LL 0->1 and D 0->1,
    # route of 2 links.  B = node 0 -> node 2 (drawer 0), weight 168, striped: 0->2 carries
    # 2/8, 0->x and x->2 1/8 (x = 1, 3..7): expected route length 14/8 = 1.75.
    m = PercsMachine(2, 1)
    g = TaskGraph.from_edges([proc(0, 0), proc(0, 0) + 1], [proc(1, 0), proc(0, 2)], [10.0, 168.0], n_tasks=m.n_procs)
    ttp = np.arange(m.n_procs)
    kw = dict(seconds_per_weight=1.0, hop_latency=0.5)
    # LL 0->1: (10 + 168/8) / 21 + 0.5 * 2 = 2.476; D: 10/10 + 1 = 2; LL 0->2: (2 * 168/8) / 21 + 0.5 * 1.75 =
    # 2.875 -- the route latency of the link's own messages, not the exchange's longest (that would give 3)
    seconds, link = m.link_time(g.indptr, g.indices, g.weights, ttp, **kw)
    assert (seconds, m.link_name(link)) == (pytest.approx(2 + 0.875, rel=1e-15), "LL s0 0->2")
    # B's latency overlaps beyond weight 84 (factor 1/2): 0->2 gives 2 + 0.4375, LL 0->1 now leads with
    # 31/21 + A's full 1.0
    seconds, link = m.link_time(g.indptr, g.indices, g.weights, ttp, overlap_weight=84.0, **kw)
    assert (seconds, m.link_name(link)) == (pytest.approx(31 / 21 + 1.0, rel=1e-15), "LL s0 0->1")
    # indirect routing, n_s = 3: the route 0 -> SN1 node 0 has expected length 11/3 (test above); D 0->1
    # carries 2/3 of the weight 3 at 10 GB/s
    m = PercsMachine(3, 1, routing="indirect")
    g = TaskGraph.from_edges([proc(0, 0)], [proc(1, 0)], [3.0], n_tasks=m.n_procs)
    seconds, link = m.link_time(g.indptr, g.indices, g.weights, np.arange(m.n_procs), seconds_per_weight=1.0,
                                hop_latency=0.3)
    assert (seconds, m.link_name(link)) == (pytest.approx(0.2 + 1.1, rel=1e-14), "D 0->1 j0")
    # nothing leaves a node: no time
    g = TaskGraph.from_edges([0], [1], [5.0], n_tasks=m.n_procs)
    assert m.link_time(g.indptr, g.indices, g.weights, np.arange(m.n_procs), **kw) == (0.0, -1)


# ---------------------------------------------------------------- capability -------


def test_as_percs_machine():
    m = PercsMachine(2, 1)
    assert as_percs_machine(m) is m
    with pytest.raises(InvalidInputError, match="machine: expected a PercsMachine; got TorusMachine"):
        as_percs_machine(torus_machine([4]))
    with pytest.raises(InvalidInputError, match="machine: expected a Machine; got str"):
        as_percs_machine("percs")


def test_routes_are_a_routes_tuple():
    r = PercsMachine(2, 1).routes(0, 128)
    assert isinstance(r, Routes) and r.indptr.tolist() == [0, 2]


# ---------------------------------------------------------------- shared group-level routing -----


def expand_group_paths(n_s, n_d, model, a, u, b, v, paths):
    """Route {link name: fraction} (first-reach order) of node u of SN a -> node v of SN b, a != b, expanded by
    hand from group-level paths: L hop u -> j1 W + (c mod W) in a, D (a->c, j1), then direct: L hop
    j1 W + (a mod W) -> v in b; else L hop j1 W + (a mod W) -> j2 W + (b mod W) in c, D (c->b, j2), L hop
    j2 W + (c mod W) -> v in b; self D links and node-to-itself hops free.  An L hop is one link ("paper"),
    two-hop paths over the source's drawer ("striped") or over all 32 nodes ("uniform")."""
    W = 32 // n_d
    route: dict = {}

    def add(name, share):
        route[name] = route.get(name, 0.0) + share

    def link(s, y, z):
        return f"{'LL' if y // 8 == z // 8 else 'LR'} s{s} {y}->{z}"

    def hop(s, y, z, share):
        if y == z:
            return
        if model == "paper":
            add(link(s, y, z), share)
            return
        xs = range(8 * (y // 8), 8 * (y // 8) + 8) if model == "striped" else range(32)
        for x in xs:
            if x != y:
                add(link(s, y, x), share / len(xs))
            if x != z:
                add(link(s, x, z), share / len(xs))

    for c, j1, j2, share in zip(paths.via.tolist(), paths.first.tolist(), paths.second.tolist(),
                                paths.share.tolist()):
        hop(a, u, j1 * W + c % W, share)
        if c != a:
            add(f"D {a}->{c} j{j1}", share)
        if j2 < 0:
            hop(b, j1 * W + a % W, v, share)
        else:
            hop(c, j1 * W + a % W, j2 * W + b % W, share)
            if c != b:
                add(f"D {c}->{b} j{j2}", share)
            hop(b, j2 * W + c % W, v, share)
    return route


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("routing, rule", [("direct", dict(routing="minimal")),
                                           ("indirect", dict(routing="valiant", ends=True, paired=True))])
@pytest.mark.parametrize("n_s, n_d", [(3, 2), (5, 4), (4, 32)])
def test_routes_are_the_expansion_of_the_shared_group_paths(n_s, n_d, routing, rule, model):
    # PERCS's direct routing is group_paths' "minimal" rule, indirect its "valiant" rule with every supernode an
    # intermediate (ends) and one bucket on both legs (paired): the route of a pair is those rows expanded by the
    # wiring, link for link, its fractions the rows' shares summed in their order (exactly)
    from mpitaskmap.machines.two_level import group_paths

    m = PercsMachine(n_s, n_d, routing=routing, model=model)
    for (a, u), (b, v) in [((0, 3), (2, 5)), ((1, 0), (0, 31)), ((2, 17), (1, 17)), ((n_s - 1, 9), (0, 1))]:
        want = expand_group_paths(n_s, n_d, model, a, u, b, v, group_paths([a], [b], n_s, n_d, **rule))
        assert named(m, m.routes([proc(a, u)], [proc(b, v)])) == list(want.items())


def test_routes_follow_a_change_of_the_shared_group_paths(monkeypatch):
    # PERCS takes its supernode-level paths from mpitaskmap.machines.two_level at every call: swap in the
    # dragonfly's Valiant rule (intermediates other than the ends, every bucket pair (j1, j2)) and PERCS's
    # indirect route follows it.  n_s = 3, n_d = 2 (W = 16), SN0 node 0 -> SN1 node 0: the one intermediate is
    # SN2, a quarter on each (j1, j2): L hop 0 -> 16 j1 + 2 in SN0, D 0->2 j1, middle 16 j1 + 0 -> 16 j2 + 1
    # in SN2, D 2->1 j2, L hop 16 j2 + 2 -> 0 in SN1
    from mpitaskmap.machines import two_level

    m = PercsMachine(3, 2, routing="indirect")
    before = named(m, m.routes([proc(0, 0)], [proc(1, 0)]))
    shared = two_level.group_paths
    monkeypatch.setattr(two_level, "group_paths",
                        lambda src, dst, n_groups, n_global, routing, **_: shared(src, dst, n_groups, n_global,
                                                                                  "valiant"))
    assert named(m, m.routes([proc(0, 0)], [proc(1, 0)])) == [
        ("LL s0 0->2", 0.5), ("D 0->2 j0", 0.5), ("LL s2 0->1", 0.25), ("D 2->1 j0", 0.5), ("LL s1 2->0", 0.5),
        ("LR s2 0->17", 0.25), ("D 2->1 j1", 0.5), ("LR s1 18->0", 0.5),
        ("LR s0 0->18", 0.5), ("D 0->2 j1", 0.5), ("LR s2 16->1", 0.25),
        ("LL s2 16->17", 0.25)]
    monkeypatch.undo()
    assert named(m, m.routes([proc(0, 0)], [proc(1, 0)])) == before and len(before) > 12


def test_routes_reject_group_paths_the_wiring_cannot_expand(monkeypatch):
    # the kernel writes link slots from the group paths: a row out of range is an error naming it, not a crash
    from mpitaskmap.machines import two_level

    m = PercsMachine(3, 2)
    shared = two_level.group_paths

    def off_by_one(*args, **kw):
        p = shared(*args, **kw)
        return p._replace(via=p.via + 1)

    monkeypatch.setattr(two_level, "group_paths", off_by_one)
    with pytest.raises(InvalidInputError, match=r"group_paths: row 0 cannot be routed on PERCS\(n_s=3, n_d=2\).*"
                                                r"got pair=0, via=3, first=0, second=-1, share=0.5"):
        m.routes([proc(0, 0)], [proc(2, 0)])
    monkeypatch.setattr(two_level, "group_paths", lambda *args, **kw: shared(*args, **kw)._replace(
        via=np.array([1, 2])))  # direct paths to SN2 through SN1: not the destination
    with pytest.raises(InvalidInputError, match=r"row 0 .* got pair=0, via=1, first=0, second=-1"):
        m.routes([proc(0, 0)], [proc(2, 0)])
