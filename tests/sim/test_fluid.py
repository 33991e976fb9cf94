"""The fluid replay (mpitaskmap.sim.fluid, cext/_fluid.pyx): hand-computed steps, a brute-force
reference that re-solves every flow at every event, and SimGrid itself where installed."""

import numpy as np
import pytest

from mpitaskmap import TaskGraph, _fluid, torus_machine
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.sim.fluid import (CM02, NETWORK_MODELS, SMPI, NetworkModel, exchange_messages, fluid_exchange)
from mpitaskmap.machines import FlatMachine, Machine, Routes
from mpitaskmap.mapping import Mapping
from mpitaskmap.sim.simgrid import simgrid_missing

WHY = simgrid_missing(compiler=True)
needs_simgrid = pytest.mark.skipif(WHY is not None, reason=str(WHY))
#: Plain max-min: no RTT weighting, no cross-traffic, no factors.
PLAIN = NetworkModel("plain", weight_s=0.0, crosstraffic=0.0)
W = 1e9  # bytes/s of a torus link of torus_machine (1 GB/s)


def graph_of(edges, n_tasks):
    """A task graph with the directed edges (u, v, bytes)."""
    edges = sorted(edges)
    indptr = np.zeros(n_tasks + 1, dtype=np.intp)
    for u, _, _ in edges:
        indptr[u + 1] += 1
    return TaskGraph(np.cumsum(indptr), [v for _, v, _ in edges], [w for _, _, w in edges])


def test_one_message_takes_latency_plus_bytes_over_bandwidth():
    m = torus_machine([4])
    g = graph_of([(0, 1, 1000.0)], 4)
    r = fluid_exchange(g, m, [0, 1, 2, 3], link_latency=1e-7, model=PLAIN)
    assert r.seconds == pytest.approx(1e-7 + 1000 / W, rel=1e-12)
    # two hops: twice the latency, the same bandwidth
    r = fluid_exchange(g, m, [0, 2, 1, 3], link_latency=1e-7, model=PLAIN)
    assert r.seconds == pytest.approx(2e-7 + 1000 / W, rel=1e-12)


def test_two_messages_on_one_link_share_it():
    m = torus_machine([4])
    g = graph_of([(0, 1, 1000.0), (2, 1, 500.0)], 4)  # tasks 0 and 2 on processor 0: one link 0 -> 1
    r = fluid_exchange(g, m, [0, 1, 0, 3], link_latency=0.0, model=NetworkModel("s", 1.0, 0.0))
    # equal penalties: W/2 each until the small one ends at 1000/W, then the rest alone
    np.testing.assert_allclose(sorted(r.finish), [1000 / W, 1500 / W], rtol=1e-12)


def test_rtt_weighted_sharing_starves_the_longer_route():
    # flow A: processor 0 -> 1 (one hop); flow B: 0 -> 2 (two hops); both cross link 0 -> 1, and
    # with latency 0 their penalties are weight_s / W per link crossed: 1 : 2
    m = torus_machine([8])
    g = graph_of([(0, 1, 1000.0), (2, 3, 1000.0)], 4)
    ttp = [0, 1, 0, 2]  # task 2 also on processor 0, task 3 two hops away
    r = fluid_exchange(g, m, ttp, link_latency=0.0, model=NetworkModel("w", weight_s=1000.0, crosstraffic=0.0))
    # rates 2/3 W and 1/3 W: A ends at 1.5 B/W having left B half its bytes, sent alone at W
    np.testing.assert_allclose(r.finish, [1.5 * 1000 / W, 2.0 * 1000 / W], rtol=1e-12)
    # penalties from latency alone (weight_s 0) weigh the same way, L : 2 L (A starts L earlier)
    r = fluid_exchange(g, m, ttp, link_latency=1e-9, model=PLAIN)
    np.testing.assert_allclose(r.finish, [1.5 * 1000 / W, 2.0 * 1000 / W], rtol=2e-3)
    assert r.finish[1] - r.finish[0] == pytest.approx(0.5 * 1000 / W, rel=2e-3)


def test_bandwidth_and_latency_factors_by_message_size():
    model = NetworkModel("f", 0.0, 0.0, bandwidth_factors=((1000, 0.5), (0, 0.25)), latency_factors=((1000, 3.0),
                                                                                                      (0, 2.0)))
    assert model.bandwidth_factor([999, 1000, 5000]).tolist() == [0.25, 0.5, 0.5]
    assert model.latency_factor([0, 1000]).tolist() == [2.0, 3.0]
    m = torus_machine([4])
    g = graph_of([(0, 1, 1000.0)], 4)
    r = fluid_exchange(g, m, [0, 1, 2, 3], link_latency=1e-7, model=model)
    assert r.seconds == pytest.approx(3.0 * 1e-7 + 1000 / (0.5 * W), rel=1e-12)
    g = graph_of([(0, 1, 999.0)], 4)
    r = fluid_exchange(g, m, [0, 1, 2, 3], link_latency=1e-7, model=model)
    assert r.seconds == pytest.approx(2.0 * 1e-7 + 999 / (0.25 * W), rel=1e-12)


def test_crosstraffic_loads_the_reverse_route():
    m = torus_machine([4])
    g = graph_of([(0, 1, 1000.0), (1, 0, 1000.0)], 2)  # opposite directions: links 0+ and 1-
    c = 0.05
    r = fluid_exchange(g, m, [0, 1], link_latency=0.0, model=NetworkModel("c", 1.0, c))
    # each link carries one flow at x and the other's acknowledgements at c x: x = W / (1 + c)
    np.testing.assert_allclose(r.finish, [1000 * (1 + c) / W] * 2, rtol=1e-12)
    # one direction alone: its reverse link is free, no slowdown
    r = fluid_exchange(graph_of([(0, 1, 1000.0)], 2), m, [0, 1], link_latency=0.0, model=NetworkModel("c", 1.0, c))
    assert r.seconds == pytest.approx(1000 / W, rel=1e-12)


def test_messages_inside_a_node_are_not_sent_and_nodes_of_a_router_use_its_crossbar():
    m = torus_machine([4], cores_per_node=2, nodes_per_router=2)  # 4 routers x 2 nodes x 2 cores
    g = graph_of([(0, 1, 1000.0)], 2)
    r = fluid_exchange(g, m, [0, 1], link_latency=1e-7)  # one node
    assert r.seconds == 0.0 and r.src.size == 0 and r.n_events == 0
    # two nodes of router 0: the crossbar, at the loopback's bandwidth and latency
    r = fluid_exchange(g, m, [0, 2], link_latency=1e-7, loopback=(10.0, 2e-7), model=PLAIN)
    assert r.seconds == pytest.approx(2e-7 + 1000 / 10e9, rel=1e-12)


def test_node_links_add_injection_and_ejection():
    m = torus_machine([4])
    g = graph_of([(0, 1, 1000.0)], 2)
    r = fluid_exchange(g, m, [0, 1], link_latency=1e-7, node_link=(0.5, 3e-7), model=PLAIN)
    assert r.seconds == pytest.approx(2 * 3e-7 + 1e-7 + 1000 / 0.5e9, rel=1e-12)
    # a flat machine: node links only, (1 GB/s, link_latency) by default
    flat = FlatMachine([0, 1])
    r = fluid_exchange(g, flat, [0, 1], link_latency=1e-7, model=PLAIN)
    assert r.seconds == pytest.approx(2e-7 + 1000 / W, rel=1e-12)


def test_exchange_messages_rounds_bytes_and_drops_intra_node_and_empty_edges():
    m = torus_machine([2, 2], cores_per_node=2)
    g = graph_of([(0, 1, 1.4), (0, 2, 0.2), (1, 3, 2.6)], 4)
    src, dst, size = exchange_messages(g, m, [0, 1, 2, 4], bytes_per_weight=1.0)
    # 0 -> 1: one node (processors 0, 1); 0 -> 2: rounds to 0 bytes; 1 -> 3: nodes 0 -> 2
    assert src.tolist() == [0] and dst.tolist() == [2] and size.tolist() == [3.0]


def reference_use(routes, back, cons_back, n_links):
    """Dense consumption matrix of the reference replays: flow x link."""
    use = np.zeros((len(routes), n_links))
    for f in range(len(routes)):
        for l in routes[f]:
            use[f, l] += 1.0
        for l in back[f]:
            use[f, l] += cons_back
    return use


def reference_rates(use, pen, cap, act):
    """Weighted max-min rates of the active flows, solved from scratch (progressive filling)."""
    x = np.zeros(use.shape[0])
    if act.any():
        free, left = act.copy(), np.array(cap, float)
        while free.any():
            usage = (use[free] / pen[free, None]).sum(axis=0)
            ok = usage > 0
            level = np.where(ok, np.maximum(left, 0) / np.where(ok, usage, 1), np.inf)
            lam = level.min()
            full = level <= lam * (1 + 1e-12)
            hit = free & (use[:, full].sum(axis=1) > 0)
            x[hit] = lam / pen[hit]
            left -= (use[hit] * x[hit, None]).sum(axis=0)
            free &= ~hit
    return x


def reference_replay(cap, routes, back, cons_back, pen, start, size, factor):
    """Brute force: every flow's rate re-solved from scratch at every event (dense max-min)."""
    n = len(routes)
    use = reference_use(routes, back, cons_back, len(cap))
    rem, t, fin = np.array(size, float), 0.0, np.full(n, np.nan)
    done = np.zeros(n, bool)
    while not done.all():
        act = ~done & (start <= t)
        x = reference_rates(use, pen, cap, act)
        with np.errstate(divide="ignore", invalid="ignore"):
            tf = np.where(act & (x > 0), rem / (factor * x), np.inf)
        dt = min(tf.min(), (start[~done & ~act] - t).min() if (~done & ~act).any() else np.inf)
        end = act & (tf <= dt * (1 + 1e-9))
        rem = rem - factor * x * dt
        t += dt
        fin[end], done[end] = t, True
    return t, fin


@pytest.mark.parametrize("seed", range(6))
def test_matches_a_brute_force_replay_on_random_exchanges(seed):
    rng = np.random.default_rng(seed)
    m = torus_machine([4, 3, 3], wrap=[True, False, True], nodes_per_router=1 + seed % 2, cores_per_node=2,
                      bandwidth=[[1.0, 2.0, 1.0, 3.0], [1.0, 1.0, 1.0], [4.0, 1.0, 1.0]])
    n_tasks = 20
    edges = {(int(u), int(v)) for u, v in rng.integers(0, n_tasks, size=(40, 2)) if u != v}
    g = graph_of([(u, v, float(rng.choice([200, 1500, 4000, 20000, 70000]))) for u, v in edges], n_tasks)
    ttp = rng.permutation(m.n_procs)[:n_tasks]
    model = SMPI if seed % 3 else NetworkModel("mixed", weight_s=5000.0, crosstraffic=0.2,
                                               bandwidth_factors=((3000, 0.7), (0, 0.9)))
    r = fluid_exchange(g, m, ttp, link_latency=1e-7, model=model)
    # the same flows built independently, the slow way
    proc = np.zeros(int(m.node_ids.max()) + 1, dtype=int)
    for p in range(m.n_procs - 1, -1, -1):
        proc[m.node_ids[p]] = p
    bw = m.link_bandwidths() * 1e9
    n_nodes = int(m.node_ids.max()) + 1
    cap = list(bw) + [50e9] * m.n_routers
    routes, back = [], []
    for a, b in zip(r.src, r.dst):
        fwd = [l for _, l in m.route(proc[a], proc[b])] or [m.n_links + int(m.router_ids()[proc[a]])]
        rev = [l for _, l in m.route(proc[b], proc[a])] or [m.n_links + int(m.router_ids()[proc[a]])]
        routes.append(fwd)
        back.append(rev if model.crosstraffic else [])
    lat = np.array([sum(1e-7 if l < m.n_links else 1e-7 for l in f) for f in routes])
    pen = lat + model.weight_s * np.array([sum(1 / cap[l] for l in f) for f in routes])
    start = model.latency_factor(r.size) * lat
    t, fin = reference_replay(cap, routes, back, model.crosstraffic, pen, start, r.size,
                              model.bandwidth_factor(r.size))
    assert n_nodes <= m.n_procs and r.src.size > 10
    assert r.seconds == pytest.approx(t, rel=1e-9)
    np.testing.assert_allclose(r.finish, fin, rtol=1e-9)


def test_work_budget_stops_the_replay():
    m = torus_machine([4, 4])
    g = TaskGraph.stencil([4, 4], weight=1000.0)
    full = fluid_exchange(g, m, np.arange(16)[::-1].copy(), link_latency=1e-7)
    assert full.complete and full.work > 0 and np.isfinite(full.seconds)
    cut = fluid_exchange(g, m, np.arange(16)[::-1].copy(), link_latency=1e-7, max_work=1)
    assert not cut.complete and cut.seconds == np.inf and np.all(np.isinf(cut.finish))
    same = fluid_exchange(g, m, np.arange(16)[::-1].copy(), link_latency=1e-7, max_work=full.work)
    assert same.complete and same.seconds == full.seconds


@pytest.mark.parametrize("routing", ["ugal", "valiant"])
@pytest.mark.parametrize("steps", [1, 3])
def test_a_replay_that_cannot_end_in_its_budget_stops_before_routing(routing, steps, monkeypatch):
    # a dragonfly whose detours list many links: every message's rate is computed at least once a step, so a
    # budget below steps x route entries cannot be met; the replay says so without building the routes
    from mpitaskmap.machines import DragonflyMachine

    m = DragonflyMachine(6, 4, 2, range(48), routing=routing)
    g = TaskGraph.stencil([4, 4, 3], weight=20000.0)
    order = np.random.default_rng(3).permutation(48)
    full = fluid_exchange(g, m, order, steps=steps)
    src, dst, size = exchange_messages(g, m, order)
    entries = m.exchange_route_entries(src, dst, size)  # node ids = processors here (one processor a node)
    routed = m.exchange_routes(src, dst, size)
    assert entries.tolist() == np.diff(routed.indptr).tolist()  # the count is the routes' length
    inside = int(full.src.size - src.size)  # the loopback messages of a multi-step replay
    least = steps * (int(entries.sum()) + inside)
    assert full.complete and full.work >= least  # the bound holds on the full replay
    if routing == "ugal":
        assert 0 < np.count_nonzero(entries > 7) < entries.size  # some detour, some stay minimal

    def no_routes(*args, **kwargs):
        raise AssertionError("routed although the budget could not be met")

    monkeypatch.setattr(m, "exchange_routes", no_routes)
    cut = fluid_exchange(g, m, order, steps=steps, max_work=least - 1)
    assert not cut.complete and cut.seconds == np.inf and np.all(np.isinf(cut.finish))
    assert cut.work == least and cut.n_events == 0 and cut.steps == steps
    monkeypatch.undo()
    # at the bound it routes and replays, and the budget then stops it where the kernel does
    kept = fluid_exchange(g, m, order, steps=steps, max_work=full.work)
    assert kept.complete and kept.seconds == full.seconds
    at_least = fluid_exchange(g, m, order, steps=steps, max_work=least)
    assert at_least.n_events > 0 and at_least.complete == (full.work <= least)


def test_a_replay_past_its_route_entry_bound_is_not_built(monkeypatch):
    from mpitaskmap.machines import DragonflyMachine

    m = DragonflyMachine(6, 4, 2, range(48), routing="valiant")
    g = TaskGraph.stencil([4, 4, 3], weight=20000.0)
    src, dst, size = exchange_messages(g, m, np.arange(48))
    forward = int(m.exchange_route_entries(src, dst, size).sum())  # no node links of their own: one a node
    full = fluid_exchange(g, m, np.arange(48), max_route_entries=forward)
    assert full.complete and full.route_entries == forward and full.n_events > 0

    def no_routes(*args, **kwargs):
        raise AssertionError("routed past the bound")

    monkeypatch.setattr(m, "exchange_routes", no_routes)
    cut = fluid_exchange(g, m, np.arange(48), max_route_entries=forward - 1)
    assert not cut.complete and cut.seconds == np.inf and cut.work == 0 and cut.n_events == 0
    assert cut.route_entries == forward
    with pytest.raises(InvalidInputError, match="max_route_entries: expected a positive int or None; got 0"):
        fluid_exchange(g, m, np.arange(48), max_route_entries=0)


def test_machines_without_a_route_count_are_routed_as_before():
    # a torus cannot count without routing: no early stop, the budget is the kernel's
    m = torus_machine([4, 4])
    assert m.exchange_route_entries([0], [1], [1.0]) is None
    cut = fluid_exchange(TaskGraph.stencil([4, 4], weight=1000.0), m, np.arange(16), max_work=1,
                         max_route_entries=1)
    assert not cut.complete and cut.n_events > 0 and cut.route_entries is None


def test_models_and_bad_input():
    assert NETWORK_MODELS == {"SMPI": SMPI, "CM02": CM02}
    assert SMPI.weight_s == 8775.0 and SMPI.crosstraffic == 0.05 and SMPI.bandwidth_factor([2560])[0] == 0.608902
    assert SMPI.latency_factor([2560])[0] == 1.61075 and CM02.crosstraffic == 0.0
    m, g = torus_machine([4]), graph_of([(0, 1, 1000.0)], 2)
    with pytest.raises(InvalidInputError, match="model: unknown network model 'LV08'"):
        fluid_exchange(g, m, [0, 1], link_latency=1e-7, model="LV08")
    with pytest.raises(InvalidInputError, match="the last row must be for size 0"):
        NetworkModel("bad", 0.0, 0.0, bandwidth_factors=((10, 1.0),))
    with pytest.raises(InvalidInputError, match="strictly decreasing"):
        NetworkModel("bad", 0.0, 0.0, latency_factors=((10, 1.0), (10, 2.0), (0, 1.0)))
    with pytest.raises(InvalidInputError, match="factors must be positive"):
        NetworkModel("bad", 0.0, 0.0, bandwidth_factors=((0, 0.0),))
    with pytest.raises(InvalidInputError, match="crosstraffic: must lie in"):
        NetworkModel("bad", 0.0, 1.5)
    with pytest.raises(InvalidInputError, match="weight_s"):
        NetworkModel("bad", -1.0, 0.0)
    with pytest.raises(InvalidInputError, match="max_work: expected a positive int"):
        fluid_exchange(g, m, [0, 1], link_latency=1e-7, max_work=0)
    with pytest.raises(InvalidInputError, match="link_latency: must be non-negative"):
        fluid_exchange(g, m, [0, 1], link_latency=-1.0)
    with pytest.raises(InvalidInputError, match="no sharing penalty"):
        fluid_exchange(g, m, [0, 1], link_latency=0.0, model=PLAIN)
    with pytest.raises(InvalidInputError, match="bandwidth_unit: unknown unit"):
        fluid_exchange(g, m, [0, 1], link_latency=1e-7, bandwidth_unit="Gbps")
    with pytest.raises(InvalidInputError, match="task_to_proc"):
        fluid_exchange(g, m, [0, 9], link_latency=1e-7)
    with pytest.raises(InvalidInputError, match="machine: expected a Machine; got str"):
        fluid_exchange(g, "torus 4", [0, 1], link_latency=1e-7)


class TwoPaths(Machine):
    """Three single-processor nodes.  Node 0 sends to node 1 over two parallel links, 3/4 of
    its traffic on link 0 and 1/4 on link 1 (back over links 2 and 3 alike); node 2 reaches
    node 1 over link 0 alone, and node 1 reaches node 2 over link 4."""

    name = "two paths"
    TABLE = {(0, 1): ([0, 1], [0.75, 0.25]), (1, 0): ([2, 3], [0.75, 0.25]), (2, 1): ([0], [1.0]),
             (1, 2): ([4], [1.0])}

    def __init__(self, bandwidths):
        super().__init__(3)
        self.bandwidths = np.asarray(bandwidths, dtype=np.float64)

    def hops(self, src, dst):
        src, dst = self._checked_pairs(src, dst)
        return (src != dst).astype(np.int64)

    def geometric_coords(self):
        return np.arange(3.0)[:, None]

    @property
    def n_links(self):
        return 5

    def link_bandwidths(self):
        return self.bandwidths

    def link_classes(self):
        return np.array([0, 0, 0, 0, 0]), ("wire",)

    def routes(self, src, dst):
        src, dst = self._checked_pairs(src, dst)
        rows = [self.TABLE[a, b] if a != b else ([], []) for a, b in zip(src.tolist(), dst.tolist())]
        indptr = np.cumsum([0] + [len(links) for links, _ in rows])
        links = [l for ls, _ in rows for l in ls]
        fractions = [f for _, fs in rows for f in fs]
        return Routes(indptr, np.array(links, dtype=np.int64), np.array(fractions, dtype=np.float64))


def test_a_split_route_is_one_flow_taking_its_fraction_of_each_link():
    # 1000 bytes 0 -> 1, link 0 at 1 GB/s and link 1 at 0.2 GB/s: the rate x is bounded by
    # 0.75 x <= 1 GB/s and 0.25 x <= 0.2 GB/s, so x = 0.8 GB/s; the route's latency is
    # 0.75 L + 0.25 L = L (not 2 L: the message crosses one of the two links)
    m = TwoPaths([1.0, 0.2, 1.0, 1.0, 1.0])
    g = graph_of([(0, 1, 1000.0)], 3)
    r = fluid_exchange(g, m, [0, 1, 2], link_latency=1e-7, model=PLAIN)
    assert r.seconds == pytest.approx(1e-7 + 1000 / 0.8e9, rel=1e-12)


def test_a_split_route_shares_by_its_fractions_and_its_penalty_weighs_them():
    # latency 0, weight_s w: the split flow A (0 -> 1) has penalty w (0.75 / W + 0.25 / (W/2))
    # = 1.25 w / W, flow B (2 -> 1, link 0 only) w / W.  Link 0 fills first:
    # 0.75 lambda / 1.25 + lambda = W gives lambda = 0.625 W, x_A = 0.5 W, x_B = 0.625 W.  B's
    # 1000 bytes end at 1600 / W; A has 200 left, alone at 4/3 W (0.75 x <= W): 150 / W more
    m = TwoPaths([1.0, 0.5, 1.0, 1.0, 1.0])
    g = graph_of([(0, 1, 1000.0), (2, 1, 1000.0)], 3)
    r = fluid_exchange(g, m, [0, 1, 2], link_latency=0.0, model=NetworkModel("w", weight_s=1000.0, crosstraffic=0.0))
    np.testing.assert_allclose(r.finish, [1750 / W, 1600 / W], rtol=1e-12)


def test_a_split_routes_cross_traffic_takes_its_fractions_of_the_reverse_route():
    # 0 -> 1 and 1 -> 0 at once: link 0 carries 0.75 x of one flow and 0.05 x 0.75 x of the
    # other's acknowledgements, so x = W / (0.75 (1 + c))
    c = 0.05
    m = TwoPaths([1.0] * 5)
    g = graph_of([(0, 1, 1000.0), (1, 0, 1000.0)], 3)
    r = fluid_exchange(g, m, [0, 1, 2], link_latency=0.0, model=NetworkModel("c", 1.0, c))
    np.testing.assert_allclose(r.finish, [1000 * 0.75 * (1 + c) / W] * 2, rtol=1e-12)


def test_a_percs_exchange_lasts_at_least_its_busiest_links_load():
    # PERCS stripes every message over several links; with plain max-min and no factors the
    # step cannot end before any link has carried its Data(e) (the contract's link loads)
    from mpitaskmap.machines.percs import PercsMachine
    from mpitaskmap.metrics import link_loads

    m = PercsMachine(2, 1)
    g = TaskGraph.stencil([8, 8], periodic=True, weight=4096.0)
    ttp = np.random.default_rng(3).permutation(m.n_procs)[:g.n_tasks]
    r = fluid_exchange(g, m, ttp, link_latency=1e-7, model=PLAIN)
    loads = link_loads(g, m, ttp)
    assert r.complete and r.src.size > 0
    assert r.seconds >= (loads.data / (loads.bandwidth * 1e9)).max()


@needs_simgrid
@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_simgrid_message_by_message(seed):
    from mpitaskmap.sim.simgrid_replay import simulate_exchange

    rng = np.random.default_rng(100 + seed)
    m = torus_machine([4, 4, 3], cores_per_node=2, nodes_per_router=2) if seed % 2 else torus_machine([5, 3, 4])
    g = TaskGraph.stencil((4, 4, 2), weight=2560.0)
    if seed == 2:  # mixed sizes: the size-dependent factors per message
        g = TaskGraph(g.indptr, g.indices, rng.choice([100.0, 1500.0, 4000.0, 20000.0, 90000.0], size=g.indices.size))
    ttp = rng.permutation(m.n_procs)[:g.n_tasks]
    sim = simulate_exchange(Mapping(ttp, m, g), link_latency=1e-7, config=("network/model:SMPI",)).seconds
    assert fluid_exchange(g, m, ttp, link_latency=1e-7).seconds == pytest.approx(sim, rel=1e-6)
    # SimGrid's CM02 solver works to a relative 1e-5 per step: within 2e-4 of the exact replay
    sim = simulate_exchange(Mapping(ttp, m, g), link_latency=1e-7, config=CM02.simgrid_config).seconds
    assert fluid_exchange(g, m, ttp, link_latency=1e-7, model="CM02").seconds == pytest.approx(sim, rel=2e-4)


# -- several steps -----------------------------------------------------------------------------
def kernel_steps(flows, n_ranks, n_steps, sender_waits=None):
    """The kernel on flows (src, dst, bytes), each on a link of its own of 1 B/s, 1 s latency."""
    n = len(flows)
    ids = np.arange(n, dtype=np.int64)
    finish = np.zeros(n)
    waits = np.zeros(n, dtype=np.uint8) if sender_waits is None else np.asarray(sender_waits, dtype=np.uint8)
    makespan, _, _ = _fluid.fluid_replay(
        np.arange(n + 1, dtype=np.int64), ids, np.ones(n), np.arange(n + 1, dtype=np.int64), ids, np.ones(n),
        np.ones(n), np.ones(n), np.array([b for _, _, b in flows], float), np.ones(n),
        np.array([s for s, _, _ in flows], dtype=np.int64), np.array([d for _, d, _ in flows], dtype=np.int64),
        waits, n_ranks, n_steps, finish)
    return makespan, finish.tolist()


def test_a_rank_posts_its_next_step_when_its_messages_have_arrived():
    # ranks 0 - 1 - 2 in a line; the 1 <-> 2 messages take 2 s, the 0 <-> 1 ones 1 s (+1 s latency)
    flows = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 2.0), (2, 1, 2.0)]
    assert kernel_steps(flows, 3, 1) == (3.0, [2.0, 2.0, 3.0, 3.0])
    # step 1: rank 0 posts at 2, rank 1 at 3 (it waits for 2 -> 1) and rank 2 at 3; a message
    # goes when both of its ranks have posted: 0 <-> 1 at 3 + 1, ends at 5; 1 <-> 2 at 4, ends 6
    assert kernel_steps(flows, 3, 2) == (6.0, [5.0, 5.0, 6.0, 6.0])
    # three steps: rank 0 posts step 2 at 5, rank 1 at 6: 0 <-> 1 at 7 -> 8; 1 <-> 2 at 7 -> 9
    assert kernel_steps(flows, 3, 3) == (9.0, [8.0, 8.0, 9.0, 9.0])


def test_a_rank_waits_for_its_synchronous_sends_only():
    # rank 1 sends 5 B to rank 0 and swaps 1 B with rank 2
    flows = [(1, 0, 5.0), (1, 2, 1.0), (2, 1, 1.0)]
    # detached: rank 1 posts step 1 at 2; 1 <-> 2 go at 3, end at 4; 1 -> 0 waits for rank 0 (6)
    assert kernel_steps(flows, 3, 2) == (12.0, [12.0, 4.0, 4.0])
    # the 5-byte send synchronous: rank 1 waits for it (6), so 1 <-> 2 go at 7, end at 8
    assert kernel_steps(flows, 3, 2, sender_waits=[1, 0, 0]) == (12.0, [12.0, 8.0, 8.0])
    # a rank that receives nothing is never behind: 0 -> 1 goes as soon as rank 1 has posted
    assert kernel_steps([(0, 1, 1.0)], 2, 3) == (6.0, [6.0])


def test_the_kernel_rejects_bad_ranks_and_steps():
    with pytest.raises(ValueError, match="rank id"):
        kernel_steps([(0, 3, 1.0)], 2, 1)
    with pytest.raises(ValueError, match="n_steps"):
        kernel_steps([(0, 1, 1.0)], 2, 0)


def reference_steps(cap, routes, back, cons_back, pen, delay, size, factor, src, dst, waits, n_ranks, n_steps):
    """Brute force of several steps: dense max-min re-solved at every event, ranks posting steps
    when their messages have arrived, a message starting once both of its ranks have posted."""
    n = len(routes)
    use = reference_use(routes, back, cons_back, len(cap))
    need = np.zeros(n_ranks, int)
    for f in range(n):
        need[dst[f]] += 1
        need[src[f]] += int(waits[f])
    posted = np.where(need > 0, 0, n_steps)  # the step each rank is in
    pend = need.copy()
    inst = np.zeros(n, int)  # each flow's next instance
    begin = np.full(n, np.inf)  # start of its queued or running instance
    for f in range(n):
        begin[f] = delay[f]
    rem, t, fin = np.array(size, float), 0.0, np.full(n, np.nan)
    while (inst < n_steps).any():
        act = begin <= t
        x = reference_rates(use, pen, cap, act)
        with np.errstate(divide="ignore", invalid="ignore"):
            tf = np.where(act & (x > 0), rem / (factor * x), np.inf)
        waiting = np.isfinite(begin) & ~act
        dt = min(tf.min(), (begin[waiting] - t).min() if waiting.any() else np.inf)
        end = act & (tf <= dt * (1 + 1e-9))
        rem = rem - factor * x * dt
        t += dt
        for f in np.flatnonzero(end):
            fin[f], inst[f], begin[f], rem[f] = t, inst[f] + 1, np.inf, size[f]
            for r in ([dst[f], src[f]] if waits[f] else [dst[f]]):
                pend[r] -= 1
                if pend[r] == 0:
                    posted[r] += 1
                    pend[r] = need[r]
                    for g in range(n):  # its messages whose other rank has posted go after their latency
                        if (src[g] == r or dst[g] == r) and np.isinf(begin[g]) and inst[g] < n_steps \
                                and posted[src[g]] >= inst[g] and posted[dst[g]] >= inst[g]:
                            begin[g] = t + delay[g]
    return t, fin


@pytest.mark.parametrize("seed", range(4))
def test_several_steps_match_a_brute_force_replay_on_random_exchanges(seed):
    rng = np.random.default_rng(100 + seed)
    m = torus_machine([3, 2], wrap=[True, False], nodes_per_router=1, cores_per_node=3,
                      bandwidth=[[1.0, 2.0, 3.0], [1.0, 1.0]])
    n_tasks = 18  # every processor: some messages inside a node
    edges = {(int(u), int(v)) for u, v in rng.integers(0, n_tasks, size=(40, 2)) if u != v}
    g = graph_of([(u, v, float(rng.choice([200, 1500, 4000, 20000, 70000]))) for u, v in edges], n_tasks)
    ttp = rng.permutation(m.n_procs)[:n_tasks]
    model = SMPI if seed % 2 else CM02
    r = fluid_exchange(g, m, ttp, link_latency=1e-7, model=model, steps=3, loopback=(20.0, 2e-7))
    assert r.steps == 3 and (r.src == r.dst).any() and (r.size >= 65536).any()
    proc = np.zeros(int(m.node_ids.max()) + 1, dtype=int)
    for p in range(m.n_procs - 1, -1, -1):
        proc[m.node_ids[p]] = p
    cap = list(m.link_bandwidths() * 1e9) + [50e9] * m.n_routers
    routes, back, lat = [], [], []
    for a, b in zip(r.src, r.dst):
        if a == b:  # inside a node: a FATPIPE loopback, one link per message
            cap.append(20e9)
            routes.append([len(cap) - 1])
            back.append([])
            lat.append(2e-7)
            continue
        fwd = [l for _, l in m.route(proc[a], proc[b])] or [m.n_links + int(m.router_ids()[proc[a]])]
        rev = [l for _, l in m.route(proc[b], proc[a])] or [m.n_links + int(m.router_ids()[proc[a]])]
        routes.append(fwd)
        back.append(rev if model.crosstraffic else [])
        lat.append(1e-7 * len(fwd))
    lat = np.array(lat)
    pen = lat + model.weight_s * np.array([sum(1 / cap[l] for l in f) for f in routes])
    t, fin = reference_steps(cap, routes, back, model.crosstraffic, pen, model.latency_factor(r.size) * lat, r.size,
                             model.bandwidth_factor(r.size), r.src_task, r.dst_task, r.size >= 65536, n_tasks, 3)
    assert r.seconds == pytest.approx(t, rel=1e-9)
    np.testing.assert_allclose(r.finish, fin, rtol=1e-9)
    one = fluid_exchange(g, m, ttp, link_latency=1e-7, model=model, loopback=(20.0, 2e-7))
    assert r.seconds > one.seconds


def test_one_step_is_the_step_of_old_and_steps_must_be_positive():
    m = torus_machine([4, 4], cores_per_node=2)
    g = TaskGraph.stencil([4, 4, 2], weight=3000.0)
    one = fluid_exchange(g, m, np.arange(32), link_latency=1e-7)
    assert one.steps == 1 and not (one.src == one.dst).any()  # messages inside a node: not sent
    assert one.src_task.size == one.src.size and (one.src_task != one.dst_task).all()
    several = fluid_exchange(g, m, np.arange(32), link_latency=1e-7, steps=4)
    assert several.steps == 4 and (several.src == several.dst).any()
    # ranks that drift apart share links less: 4 steps may take less than 4 x one
    assert 3 * one.seconds < several.seconds
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InvalidInputError, match="steps: expected an int >= 1"):
            fluid_exchange(g, m, np.arange(32), steps=bad)


# -- replays at a resolution -------------------------------------------------------------------
def kernel_quantum(cap, routes, size, delay, quantum, src=None, dst=None, n_ranks=None, n_steps=1):
    """The kernel on flows over shared links (pen 1, factor 1, consumption 1): (makespan, events, finish)."""
    n = len(routes)
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(r) for r in routes])
    links = np.array([l for r in routes for l in r], dtype=np.int64)
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    by_link = np.argsort(links, kind="stable")
    lptr = np.zeros(len(cap) + 1, dtype=np.int64)
    lptr[1:] = np.cumsum(np.bincount(links, minlength=len(cap)))
    src = np.arange(n, dtype=np.int64) if src is None else np.asarray(src, dtype=np.int64)
    dst = np.arange(n, 2 * n, dtype=np.int64) if dst is None else np.asarray(dst, dtype=np.int64)
    finish = np.zeros(n)
    makespan, events, _ = _fluid.fluid_replay(
        ptr, links, np.ones(links.size), lptr, np.ascontiguousarray(owner[by_link]), np.asarray(cap, float),
        np.ones(n), np.asarray(delay, float), np.asarray(size, float), np.ones(n), src, dst,
        np.zeros(n, dtype=np.uint8), 2 * n if n_ranks is None else n_ranks, n_steps, finish, 0, float(quantum))
    return makespan, events, finish.tolist()


def test_a_quantum_delays_the_freed_bandwidth_not_the_end():
    # two flows of 1 and 3 B share a 1 B/s link: exactly, 1/2 B/s each until A ends at 2, then B
    # alone: 4.  Below the first end a quantum changes nothing
    assert kernel_quantum([1.0], [[0], [0]], [1.0, 3.0], [0.0, 0.0], 0.0) == (4.0, 2, [2.0, 4.0])
    assert kernel_quantum([1.0], [[0], [0]], [1.0, 3.0], [0.0, 0.0], 1.0) == (4.0, 2, [2.0, 4.0])
    # quantum 3: A still ends at its own 2, but B keeps 1/2 B/s until the recomputation at 3
    # (1.5 B sent), then 1.5 B alone: 4.5, late by quantum / 2 - 1 B / (1 B/s)
    assert kernel_quantum([1.0], [[0], [0]], [1.0, 3.0], [0.0, 0.0], 3.0) == (4.5, 2, [2.0, 4.5])


def test_a_quantum_delays_a_start_to_the_next_recomputation():
    # A (4 B) from 0 and B (1 B) from 1, each on a link of its own: B starts at the recomputation
    # after 1 (2 with quantum 2), so it ends at 3 instead of 2; A's own end does not move
    assert kernel_quantum([1.0, 1.0], [[0], [1]], [4.0, 1.0], [0.0, 1.0], 0.0)[2] == [4.0, 2.0]
    assert kernel_quantum([1.0, 1.0], [[0], [1]], [4.0, 1.0], [0.0, 1.0], 2.0)[2] == [4.0, 3.0]


def test_with_a_quantum_a_rank_posts_its_next_step_at_its_last_arrival():
    # rank 0 -> rank 1, 1 B on a 1 B/s link, 1 s latency, two steps.  Exactly: 1 -> 2, 3 -> 4.
    # Quantum 3: the message ends at its own 2, rank 1 posts then (not at the recomputation at
    # 4), the next message is due at 3 and starts at the recomputation at 4: ends at 5
    one = dict(src=[0], dst=[1], n_ranks=2, n_steps=2)
    assert kernel_quantum([1.0], [[0]], [1.0], [1.0], 0.0, **one) == (4.0, 2, [4.0])
    assert kernel_quantum([1.0], [[0]], [1.0], [1.0], 3.0, **one) == (5.0, 2, [5.0])
    with pytest.raises(ValueError, match="quantum must be finite and >= 0"):
        kernel_quantum([1.0], [[0]], [1.0], [1.0], -1.0)
    with pytest.raises(ValueError, match="quantum must be finite and >= 0"):
        kernel_quantum([1.0], [[0]], [1.0], [1.0], float("nan"))


@pytest.mark.parametrize("seed", range(4))
def test_a_resolution_bounds_the_recomputations_and_stays_near_the_exact_replay(seed):
    rng = np.random.default_rng(300 + seed)
    m = torus_machine([4, 4, 2], cores_per_node=2)
    n_tasks = m.n_procs
    edges = {(int(u), int(v)) for u, v in rng.integers(0, n_tasks, size=(300, 2)) if u != v}
    g = graph_of([(u, v, float(rng.choice([2000, 20000, 70000]))) for u, v in edges], n_tasks)
    ttp = rng.permutation(m.n_procs)
    steps = 1 + seed % 3
    exact = fluid_exchange(g, m, ttp, link_latency=1e-7, steps=steps)
    assert exact.quantum == 0.0
    # the quantum is a fraction of a time no step can beat
    lower = fluid_exchange(g, m, ttp, link_latency=1e-7, steps=steps, resolution=0.5).quantum / 0.5
    assert 0 < lower <= fluid_exchange(g, m, ttp, link_latency=1e-7).seconds
    for resolution in (0.002, 0.01, 0.05):
        coarse = fluid_exchange(g, m, ttp, link_latency=1e-7, steps=steps, resolution=resolution)
        assert coarse.quantum == pytest.approx(resolution * lower, rel=1e-12)
        # at most one recomputation a quantum (and the first)
        assert coarse.n_events <= coarse.seconds / coarse.quantum + 1
        assert coarse.n_events < exact.n_events
        # every start and reallocation at most a quantum late: within a few quanta a step
        assert abs(coarse.seconds / exact.seconds - 1) <= 3 * resolution * steps
        assert (coarse.finish >= 0).all() and coarse.finish.max() == coarse.seconds


def test_resolution_must_lie_in_0_1():
    m = torus_machine([4])
    g = graph_of([(0, 1, 1000.0)], 4)
    for bad in (-0.1, 1.0, float("nan"), "0.1", True):
        with pytest.raises(InvalidInputError, match="resolution: expected a number in"):
            fluid_exchange(g, m, [0, 1, 2, 3], resolution=bad)
    # one message: a quantum of half its time changes nothing
    exact = fluid_exchange(g, m, [0, 1, 2, 3])
    assert fluid_exchange(g, m, [0, 1, 2, 3], resolution=0.5).seconds == exact.seconds
