"""PERCS network model and link-load simulator: hand-computed loads, a brute-force
path-enumeration reference with exact fractions, wiring, hops and metric integration."""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from mpitaskmap import TaskGraph, evaluate, map_geometric
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mappers.percs.patterns import halo_graph
from mpitaskmap.machines import LinkLoads
from mpitaskmap.machines.percs import PercsMachine
from mpitaskmap.machines.percs.network import bucket_width, d_link_node
from mpitaskmap.mappers.percs import throughput

# ---------------------------------------------------------------- reference ---------


def l_index(s, y, z):
    return s * 992 + y * 31 + (z if z < y else z - 1)


def d_index(n_s, n_d, a, j, b):
    return n_s * 992 + (a * n_d + j) * (n_s - 1) + (b if b < a else b - 1)


def striped(s, src, dst, over=None):
    """Paths (fraction, links) of a segment striped over the intermediate nodes ``over``
    (default: the source's drawer); self-loops are dropped."""
    if src == dst:
        return [(Fraction(1), [])]
    if over is None:
        over = range(src // 8 * 8, src // 8 * 8 + 8)
    over = list(over)
    out = []
    for x in over:
        links = [("L", s, src, x), ("L", s, x, dst)]
        out.append((Fraction(1, len(over)), [lk for lk in links if lk[2] != lk[3]]))
    return out


def hop(s, src, dst, model):
    """Paths of one L hop of an inter-supernode route: the single link ("paper") or striped."""
    if model == "striped":
        return striped(s, src, dst)
    if model == "uniform":
        return striped(s, src, dst, over=range(32))
    return [(Fraction(1), [("L", s, src, dst)] if src != dst else [])]


def chain(*parts):
    """Cartesian product of path lists, multiplying fractions and concatenating links."""
    out = [(Fraction(1), [])]
    for part in parts:
        out = [(f1 * f2, l1 + l2) for (f1, l1), (f2, l2) in product(out, part)]
    return out


def reference_loads(messages, n_s, n_d, routing, model="paper"):
    """Data (Fractions) and message counts per compact link id, by enumerating every path."""
    W = 32 // n_d
    data, count = {}, {}
    for p, q, w in messages:
        gu, gv = p // 4, q // 4
        if gu == gv:
            continue
        a, u = divmod(gu, 32)
        b, v = divmod(gv, 32)
        if a == b:
            paths = striped(a, u, v, over=range(32) if model == "uniform" else None)
        elif routing == "direct":
            paths = []
            for j in range(n_d):
                d = [(Fraction(1, n_d), [("D", a, j, b)])]
                paths += chain(hop(a, u, j * W + b % W, model), d, hop(b, j * W + a % W, v, model))
        else:
            paths = []
            for c in range(n_s):
                for j in range(n_d):
                    d1 = [(Fraction(1, n_s * n_d), [("D", a, j, c)] if c != a else [])]
                    d2 = [(Fraction(1), [("D", c, j, b)] if c != b else [])]
                    paths += chain(hop(a, u, j * W + c % W, model), d1,
                                   hop(c, j * W + a % W, j * W + b % W, model), d2,
                                   hop(b, j * W + c % W, v, model))
        assert sum(f for f, _ in paths) == 1
        used = set()
        for f, links in paths:
            for lk in links:
                i = l_index(*lk[1:]) if lk[0] == "L" else d_index(n_s, n_d, *lk[1:])
                data[i] = data.get(i, Fraction(0)) + f * Fraction(w)
                used.add(i)
        for i in used:
            count[i] = count.get(i, 0) + 1
    return data, count


def graph_of(messages, n_procs):
    """A task graph with one task per processor and the given (p, q, w) messages."""
    src = [p for p, _, _ in messages]
    dst = [q for _, q, _ in messages]
    w = [float(x) for _, _, x in messages]
    # from_edges merges duplicates; keep messages distinct by construction
    return TaskGraph.from_edges(src, dst, w, n_tasks=n_procs)


def loads_of(messages, n_s, n_d, routing, model="paper"):
    m = PercsMachine(n_s, n_d, routing=routing, model=model)
    g = graph_of(messages, m.n_procs)
    return m.link_loads(g.indptr, g.indices, g.weights, np.arange(m.n_procs))


def as_dicts(loads):
    nz = np.flatnonzero(loads.messages)
    return {int(i): float(loads.data[i]) for i in nz}, {int(i): int(loads.messages[i]) for i in nz}


def class_max_data(loads):
    return {r["link"]: r["max_data"] for r in loads.by_class()}


# ---------------------------------------------------------------- hand-computed -----


def test_intra_drawer_message_by_hand():
    # node 0 -> node 1, same drawer: 0->1 carries 2/8 (paths via 0 and via 1), 0->x and x->1 carry 1/8
    loads = loads_of([(0, 4, 1)], 2, 1, "direct")
    data, count = as_dicts(loads)
    expect = {l_index(0, 0, 1): 0.25}
    for x in range(2, 8):
        expect[l_index(0, 0, x)] = 0.125
        expect[l_index(0, x, 1)] = 0.125
    assert data == expect
    assert count == {i: 1 for i in expect}
    assert class_max_data(loads) == {"LL": 0.25, "LR": 0.0, "D": 0.0}


def test_inter_drawer_message_by_hand():
    # node 0 -> node 8 (drawer 1): the LR link 0->8 and the 7 LR links x->8 carry 1/8 each
    data, _ = as_dicts(loads_of([(0, 32, 1)], 2, 1, "direct"))
    lr = {i: v for i, v in data.items() if i in {l_index(0, x, 8) for x in range(8)}}
    ll = {i: v for i, v in data.items() if i in {l_index(0, 0, x) for x in range(1, 8)}}
    assert len(lr) == 8 and set(lr.values()) == {0.125}
    assert len(ll) == 7 and set(ll.values()) == {0.125}
    assert len(data) == 15


def test_direct_one_d_link_by_hand():
    # n_d = 1: SN0 node 0 -> SN1 node 0. Gateway to SN1 is node 0*32 + 1 = 1; the link
    # arrives in SN1 at node 0 = the destination.  Paper model: the L hop 0->1 is one link.
    loads = loads_of([(0, 128, 1)], 2, 1, "direct")
    data, count = as_dicts(loads)
    assert data == {l_index(0, 0, 1): 1.0, d_index(2, 1, 0, 0, 1): 1.0}
    assert count == {l_index(0, 0, 1): 1, d_index(2, 1, 0, 0, 1): 1}
    assert loads.bottleneck() == "D"
    assert throughput(loads) == pytest.approx(4 / (1 / 10))
    assert PercsMachine(2, 1).model == "paper"
    # striped model: the hop 0->1 is a striped segment (2/8 on 0->1, 1/8 on 0->x and x->1)
    data, count = as_dicts(loads_of([(0, 128, 1)], 2, 1, "direct", model="striped"))
    assert data[d_index(2, 1, 0, 0, 1)] == 1.0
    assert data[l_index(0, 0, 1)] == 0.25
    assert data[l_index(0, 0, 5)] == data[l_index(0, 5, 1)] == 0.125
    assert len(data) == 1 + 1 + 2 * 6
    assert not any(992 <= i < 2 * 992 for i in data)  # nothing inside SN1


def test_direct_two_d_links_by_hand():
    # n_d = 2 (W = 16): SN0 node 3 -> SN1 node 5, w = 1.  Half over bucket 0 (leaves node 1,
    # arrives at node 0), half over bucket 1 (leaves node 17, arrives at node 16).
    data, count = as_dicts(loads_of([(12, 128 + 20, 1)], 2, 2, "direct"))
    assert data == {
        d_index(2, 2, 0, 0, 1): 0.5, d_index(2, 2, 0, 1, 1): 0.5,
        l_index(0, 3, 1): 0.5, l_index(0, 3, 17): 0.5,  # LL and LR first hops
        l_index(1, 0, 5): 0.5, l_index(1, 16, 5): 0.5,  # LL and LR last hops
    }
    assert set(count.values()) == {1}
    # striped model
    data, count = as_dicts(loads_of([(12, 128 + 20, 1)], 2, 2, "direct", model="striped"))
    assert data[d_index(2, 2, 0, 0, 1)] == 0.5
    assert data[d_index(2, 2, 0, 1, 1)] == 0.5
    # 3->1: first hop of both halves (1/8 of 1) + second hop of the bucket-0 half (1/8 of 1/2)
    assert data[l_index(0, 3, 1)] == 0.1875
    assert data[l_index(0, 3, 17)] == 0.0625  # LR: only the x = 3 path of the bucket-1 half
    assert data[l_index(1, 0, 5)] == 0.125  # 2/8 of 1/2 (same drawer)
    assert data[l_index(1, 16, 5)] == 0.0625
    assert count[l_index(0, 3, 1)] == 1 and count[d_index(2, 2, 0, 1, 1)] == 1


def test_indirect_two_supernodes_by_hand():
    # n_s = 2, n_d = 1: SN0 node 0 -> SN1 node 0 splits 1/2 via c = 0 and 1/2 via c = 1.
    # c = 0: hop 0->1 in SN0, D 0->1.  c = 1: hop 0->1 in SN0, D 0->1, then in SN1
    # the hops 0->1 (middle) and 1->0 (last), each with 1/2.
    loads = loads_of([(0, 128, 1)], 2, 1, "indirect")
    data, count = as_dicts(loads)
    assert data == {d_index(2, 1, 0, 0, 1): 1.0, l_index(0, 0, 1): 1.0, l_index(1, 0, 1): 0.5,
                    l_index(1, 1, 0): 0.5}
    assert set(count.values()) == {1}
    data, count = as_dicts(loads_of([(0, 128, 1)], 2, 1, "indirect", model="striped"))
    assert data[d_index(2, 1, 0, 0, 1)] == 1.0
    assert data[l_index(0, 0, 1)] == 0.25
    assert data[l_index(1, 0, 1)] == 0.125 and data[l_index(1, 1, 0)] == 0.125
    assert count[d_index(2, 1, 0, 0, 1)] == 1 and count[l_index(1, 0, 1)] == 1


def test_models_differ_only_in_inter_supernode_hops():
    # an intra-supernode message is striped over the source drawer in models paper and
    # striped; an inter-supernode one is not
    intra = [(0, 36, 1)]
    assert as_dicts(loads_of(intra, 2, 1, "direct")) == as_dicts(loads_of(intra, 2, 1, "direct", "striped"))


def test_uniform_model_by_hand():
    # node 0 -> node 9 (other drawer), spread over 32 intermediates: 0->9 carries 2/32,
    # 0->x and x->9 carry 1/32 for the 30 other nodes x
    data, count = as_dicts(loads_of([(0, 36, 1)], 2, 1, "direct", "uniform"))
    assert data[l_index(0, 0, 9)] == 2 / 32
    assert data[l_index(0, 0, 20)] == data[l_index(0, 20, 9)] == 1 / 32
    assert len(data) == 1 + 2 * 30 and set(count.values()) == {1}
    # indirect (n_s = 2, n_d = 1), SN0 node 0 -> SN1 node 0: segment 0->1 in SN0 (volume 1),
    # 0->1 and 1->0 in SN1 (1/2 each); link y->z carries (R(y) + C(z)) / 32
    data, count = as_dicts(loads_of([(0, 128, 1)], 2, 1, "indirect", "uniform"))
    assert data[d_index(2, 1, 0, 0, 1)] == 1.0
    assert data[l_index(0, 0, 1)] == 2 / 32 and data[l_index(0, 0, 7)] == data[l_index(0, 7, 1)] == 1 / 32
    assert data[l_index(1, 0, 1)] == data[l_index(1, 1, 0)] == 1 / 32
    assert data[l_index(1, 0, 7)] == data[l_index(1, 7, 1)] == data[l_index(1, 1, 7)] == 1 / 64
    assert len(data) == 1 + (1 + 2 * 30) + (2 + 4 * 30)
    assert count[l_index(1, 0, 7)] == 1 and count[l_index(1, 7, 0)] == 1
    with pytest.raises(ValueError, match="model"):
        PercsMachine(2, 1, model="valiant")
    m = PercsMachine(2, 1, model="striped")
    assert m.with_routing("indirect").model == "striped" and m.with_model("paper").routing == "direct"


# ---------------------------------------------------------------- reference ---------


@pytest.mark.parametrize("model", ["paper", "striped", "uniform"])
@pytest.mark.parametrize("routing", ["direct", "indirect"])
@pytest.mark.parametrize("n_s, n_d", [(2, 1), (2, 2), (3, 1), (4, 2), (4, 8), (5, 4), (3, 32)])
def test_loads_match_path_enumeration(routing, n_s, n_d, model):
    if model == "uniform" and (routing == "indirect" or (n_s, n_d) not in ((2, 1), (4, 2))):
        pytest.skip("32-way spreading: the exact Fraction reference is slow; see test_uniform_model_by_hand")
    rng = np.random.default_rng(n_s * 100 + n_d)
    n_procs = 128 * n_s
    pairs = set()
    while len(pairs) < (12 if routing == "direct" else 6):
        p, q = (int(v) for v in rng.integers(0, n_procs, 2))
        if p != q:
            pairs.add((p, q))
    # a few messages between processors of the same node pair, and one intra-node one
    p0 = sorted(pairs)[0]
    pairs |= {(p0[0] ^ 1, p0[1] ^ 1), (4, 5)}
    messages = [(p, q, int(rng.integers(1, 5))) for p, q in sorted(pairs)]
    ref_data, ref_count = reference_loads(messages, n_s, n_d, routing, model)
    loads = loads_of(messages, n_s, n_d, routing, model)
    data, count = as_dicts(loads)
    assert set(data) == set(ref_data)
    m = PercsMachine(n_s, n_d)
    for i, v in ref_data.items():
        assert data[i] == pytest.approx(float(v), rel=1e-12), m.link_name(i)
    assert count == ref_count
    assert loads.data.sum() == pytest.approx(float(sum(ref_data.values())), rel=1e-12)


# ---------------------------------------------------------------- wiring, hops ------


@pytest.mark.parametrize("n_d", [1, 2, 4, 8, 16, 32])
def test_bucket_wiring_formula(n_d):
    W = 32 // n_d
    assert bucket_width(n_d) == W
    for b in range(70):
        nodes = [d_link_node(j, b, n_d) for j in range(n_d)]
        assert nodes == [j * W + b % W for j in range(n_d)]
        assert all(j * W <= nodes[j] < (j + 1) * W for j in range(n_d))  # inside bucket j
    # every node of a supernode serves the same number of the 32*k supernodes
    served = np.bincount([d_link_node(j, b, n_d) for j in range(n_d) for b in range(64)], minlength=32)
    assert (served == served[0]).all()


def test_wiring_errors():
    with pytest.raises(InvalidInputError, match="n_d"):
        bucket_width(3)
    with pytest.raises(InvalidInputError, match="j: bucket"):
        d_link_node(4, 0, 4)
    with pytest.raises(InvalidInputError, match="n_s"):
        PercsMachine(0, 1)
    with pytest.raises(ValueError, match="routing"):
        PercsMachine(2, 1, routing="valiant")


def test_hops():
    m = PercsMachine(4, 2)  # W = 16
    # same node, same drawer (LL), other drawer (LR)
    assert m.hops([0, 0, 0], [3, 4, 32]).tolist() == [0, 1, 1]
    # SN0 -> SN1: the D links leave nodes 1 and 17 of SN0 and arrive at nodes 0 and 16 of SN1
    p = lambda s, node: 128 * s + 4 * node  # noqa: E731
    assert m.hops([p(0, 1), p(0, 1), p(0, 2), p(0, 2), p(0, 17)],
                  [p(1, 0), p(1, 16), p(1, 0), p(1, 5), p(1, 16)]).tolist() == [1, 2, 2, 3, 1]
    # hops agree with the shortest number of real links of the direct route
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, m.n_procs, 200), rng.integers(0, m.n_procs, 200)
    h = m.hops(src, dst)
    for s, d, hh in zip(src, dst, h):
        a, u = divmod(s // 4, 32)
        b, v = divmod(d // 4, 32)
        if s // 4 == d // 4:
            best = 0
        elif a == b:
            best = 1
        else:
            best = min((u != j * 16 + b % 16) + 1 + (j * 16 + a % 16 != v) for j in range(2))
        assert hh == best


def test_evaluate_works_unchanged():
    m = PercsMachine(4, 2)
    g = halo_graph(16, 32)
    ttp = np.arange(g.n_tasks)
    vals = evaluate(g, m, ttp)
    loads = m.link_loads(g.indptr, g.indices, g.weights, ttp)
    assert type(loads) is LinkLoads
    assert vals["max_data"] == loads.max_data()
    assert vals["max_messages"] == loads.max_messages()
    assert vals["total_hops"] == int(m.csr_edge_hops(g.indptr, g.indices, ttp).sum())
    rows = loads.by_class()
    assert [r["link"] for r in rows] == ["LL", "LR", "D"]
    assert sum(r["total_data"] for r in rows) == pytest.approx(loads.data.sum())
    assert sum(r["n_links"] for r in rows) == loads.data.size == 4 * 992 + 4 * 2 * 3


def test_geometric_mapper_runs_on_embedding():
    m = PercsMachine(4, 1)
    g = halo_graph(16, 32)
    mp = map_geometric(g, m)
    assert mp.is_permutation
    # nodes and supernodes are kept whole: each node holds 4 tasks of one 2x2 or 4x1 patch
    assert mp.metric("weighted_hops") <= evaluate(g, m, np.arange(g.n_tasks))["weighted_hops"]


def test_link_name():
    m = PercsMachine(2, 2)
    assert m.link_name(l_index(1, 3, 9)) == "LR s1 3->9"
    assert m.link_name(d_index(2, 2, 1, 1, 0)) == "D 1->0 j1"


@pytest.mark.slow
def test_large_system_is_fast_enough():
    # (512, 4) with a 256 x 256 halo: must simulate in seconds (here only checked to run)
    m = PercsMachine(512, 4)
    g = halo_graph(256, 256)
    loads = m.link_loads(g.indptr, g.indices, g.weights, np.arange(g.n_tasks))
    assert loads.bottleneck() == "D"
    loads_i = m.with_routing("indirect").link_loads(g.indptr, g.indices, g.weights, np.arange(g.n_tasks))
    assert loads_i.data.size == loads.data.size
