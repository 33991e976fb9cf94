"""PredictedTime, the search's default objective (issue 19): values, units, decisions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpitaskmap import TaskGraph, best_of, candidate_list, metrics, torus_machine
from mpitaskmap import _torus
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import BANDWIDTH_UNIT, FlatMachine
from mpitaskmap.metrics import DEFAULT_HOP_LATENCY, DEFAULT_OVERLAP_BYTES, default_metric, predicted_time
from mpitaskmap.search.scoring import resolve_metric, winner

GB = 1e9  # bytes: one second on a link of bandwidth 1 (GB/s)


def _line(n_routers: int, cores: int = 1):
    """A 1-D mesh of routers (no wrap), unit bandwidth: link r+ joins router r to r + 1."""
    return torus_machine([n_routers], wrap=False, cores_per_node=cores)


def _brute_force(graph: TaskGraph, machine, ttp, bytes_per_weight: float, hop_latency: float,
                 overlap_bytes: float = DEFAULT_OVERLAP_BYTES) -> float:
    """The definition, message by message: route links from route_links, then the max."""
    data: dict[int, float] = {}
    slowest: dict[int, float] = {}  # the largest route latency through each link
    for t in range(graph.n_tasks):
        for e in range(graph.indptr[t], graph.indptr[t + 1]):
            links = _torus.route_links(machine.router_coords, machine.dims, machine.wrap,
                                       int(ttp[t]), int(ttp[graph.indices[e]]))
            size = graph.weights[e] * bytes_per_weight
            latency = hop_latency * len(links) * (1.0 if size <= overlap_bytes else overlap_bytes / size)
            for link in links.tolist():
                data[link] = data.get(link, 0.0) + graph.weights[e]
                slowest[link] = max(slowest.get(link, 0.0), latency)
    bw = machine.link_bandwidths()
    return max((data[k] * bytes_per_weight / (bw[k] * BANDWIDTH_UNIT) + slowest[k] for k in data), default=0.0)


def test_hand_computed_two_messages_on_one_link():
    # tasks 0 and 1 each send 1 GB to task 2 on a 3-router line: link 0+ carries 1 GB (route of
    # 2 hops), link 1+ carries 2 GB (routes of 1 and 2 hops): 2 GB / 1 GB/s + 2 hops x 100 ns
    # (the plain model: every message pays its full hop latency)
    g = TaskGraph.from_edges([0, 1], [2, 2], [GB, GB], n_tasks=3)
    assert predicted_time(g, _line(3), [0, 1, 2], overlap_bytes=math.inf) == pytest.approx(2.0 + 2e-7, rel=1e-15)
    # by default a 1-GB message's hop latency overlaps with its data: 128 B / 1 GB of it counts
    assert predicted_time(g, _line(3), [0, 1, 2]) - 2.0 == pytest.approx(2e-7 * 128 / GB, rel=0.05, abs=0)
    # zero bytes per weight: empty messages, only their full hop latency
    assert predicted_time(g, _line(3), [0, 1, 2], bytes_per_weight=0.0) == pytest.approx(2e-7, rel=1e-15, abs=0)
    # units: weights in kilobytes, 1 us per hop; overlap_bytes are bytes whatever the weights
    g_kb = TaskGraph.from_edges([0, 1], [2, 2], [GB / 1e3, GB / 1e3], n_tasks=3)
    assert predicted_time(g_kb, _line(3), [0, 1, 2], bytes_per_weight=1e3, hop_latency=1e-6,
                          overlap_bytes=math.inf) == pytest.approx(2.0 + 2e-6, rel=1e-15)
    assert predicted_time(g_kb, _line(3), [0, 1, 2], bytes_per_weight=1e3, hop_latency=1e-6,
                          overlap_bytes=GB / 2) == pytest.approx(2.0 + 1e-6, rel=1e-15)
    # nothing leaves its router: zero
    assert predicted_time(g, _line(1, cores=3), [0, 1, 2]) == 0.0


def test_each_link_counts_the_longest_route_through_it_not_the_longest_overall():
    # on a 6-router line: 1 GB from router 0 to 1 (1 hop) and 1 byte from router 1 to 5 (4 hops).
    # Link 0+ has 1 s of data and H = 1; links 1+..4+ have ~0 data and H = 4.  The exchange is
    # set by link 0+: 1 s + 100 ns; a global longest route would give 1 s + 400 ns.
    g = TaskGraph.from_edges([0, 2], [1, 3], [GB, 1.0], n_tasks=4)
    m = _line(6, cores=2)
    ttp = [0, 2, 3, 10]  # cores 0,1 on router 0; 2,3 on router 1; ...; 10,11 on router 5
    assert predicted_time(g, m, ttp, overlap_bytes=math.inf) == pytest.approx(1.0 + 1e-7, rel=1e-15)
    # the generic form of the machine base (any kind's routes) is exact too, link for link
    seconds, link = FlatLinkModel.generic(m, g, ttp)
    assert seconds == pytest.approx(1.0 + 1e-7, rel=1e-15) and link == 0
    # ... with the overlap at 0.5 byte the 1 GB message hides its hop (scale 0.5 / 1e9), and
    # the 1-byte message's 4 hops stay on its own links
    seconds, link = FlatLinkModel.generic(m, g, ttp, overlap_weight=0.5)
    assert seconds == pytest.approx(1.0 + 1e-7 * 0.5e-9, rel=1e-15) and link == 0
    # where that message is the slowest, its 4 hops count half at overlap_weight 0.5 (1 byte
    # over 2 bytes): links 1+..4+ carry ~1 ns of data plus 2 x 100 ns
    small = TaskGraph.from_edges([2], [3], [1.0], n_tasks=4)
    seconds, link = FlatLinkModel.generic(m, small, ttp, overlap_weight=0.5)
    assert seconds == pytest.approx(1e-9 + 2e-7, rel=1e-12) and link == 2


class FlatLinkModel:
    """Calls the Machine base-class link_time on a torus (the generic form every kind without a fused kernel uses)."""

    @staticmethod
    def generic(machine, graph, ttp, overlap_weight=math.inf):
        from mpitaskmap.machines import Machine

        ttp = np.asarray(ttp, dtype=np.intp)
        return Machine.link_time(machine, graph.indptr, graph.indices, graph.weights, ttp,
                                 seconds_per_weight=1 / BANDWIDTH_UNIT, hop_latency=DEFAULT_HOP_LATENCY,
                                 overlap_weight=overlap_weight)


@pytest.mark.parametrize("seed", range(12))
def test_equals_the_definition_on_random_tori_and_meshes(seed):
    rng = np.random.default_rng(seed)
    dims = [int(d) for d in rng.integers(2, 6, size=rng.integers(1, 4))]
    wrap = [bool(b) for b in rng.integers(0, 2, size=len(dims))]
    bandwidth = [rng.uniform(0.5, 2.0, size=d) for d in dims]
    m = torus_machine(dims, wrap=wrap, bandwidth=bandwidth)
    n = m.n_procs
    src, dst = rng.integers(0, n, 50), rng.integers(0, n, 50)
    g = TaskGraph.from_edges(src, dst, rng.uniform(0, 3e9, 50), n_tasks=n)
    ttp = rng.permutation(n)
    bpw, lat = float(rng.choice([1.0, 64.0])), float(rng.choice([0.0, 1e-7, 1e-5]))
    overlap = float(rng.choice([DEFAULT_OVERLAP_BYTES, 1e9, math.inf]))  # 1e9: some messages below, some above
    want = _brute_force(g, m, ttp, bpw, lat, overlap)
    assert predicted_time(g, m, ttp, bytes_per_weight=bpw, hop_latency=lat, overlap_bytes=overlap) == \
        pytest.approx(want, rel=1e-12)
    # the kept scratch is clean for the next call: the same value twice, and after another mapping
    other = rng.permutation(n)
    predicted_time(g, m, other)
    assert predicted_time(g, m, ttp, bytes_per_weight=bpw, hop_latency=lat, overlap_bytes=overlap) == \
        pytest.approx(want, rel=1e-12)


def test_routes_beyond_65535_hops_are_exact():
    # the kernel keeps each link's route latency in hops as float32: whole hop counts are exact
    # up to 2**24, so a 70,000-hop route on a 70,001-router line counts every hop
    m = torus_machine([70_001], wrap=False)
    g = TaskGraph.from_edges([0], [1], [64.0], n_tasks=2)
    ttp = [0, 70_000]
    assert predicted_time(g, m, ttp) == pytest.approx(64e-9 + 70_000 * 1e-7, rel=1e-15, abs=0)
    assert predicted_time(g, m, ttp) == pytest.approx(_brute_force(g, m, ttp, 1.0, DEFAULT_HOP_LATENCY),
                                                      rel=1e-15, abs=0)


def test_slowest_link_ties_go_to_the_lowest_link_id():
    # two messages of equal size on links 2+ (id 4, task 0's, added first) and 0+ (id 0, task 2's)
    g = TaskGraph.from_edges([0, 2], [1, 3], [GB, GB], n_tasks=4)
    m = _line(4)
    ttp = np.array([2, 3, 0, 1], dtype=np.intp)
    seconds, link = m.link_time(g.indptr, g.indices, g.weights, ttp, seconds_per_weight=1 / BANDWIDTH_UNIT,
                                hop_latency=0.0)
    assert seconds == 1.0 and link == 0


def test_equal_weighted_hops_but_one_link_overloaded_prefers_the_other():
    """The issue's hand-made case.

    A 4-router line, 2 cores a router (cores 2r, 2r+1 on router r); tasks 0 -> 1 and 2 -> 3
    send 1 GB each.  Spread: tasks on routers 0, 1, 2, 3 -- the two messages use links 0+
    and 2+, 1 GB each: 1 s + 100 ns.  Stacked: tasks on routers 0, 1, 0, 1 -- both use link
    0+: 2 GB, 2 s + 100 ns.  Weighted hops are 2 GB x 1 hop for both.  Listed stacked first,
    weighted hops keeps the stacked one (tie to the lower index); predicted time the spread one.
    """
    g = TaskGraph.from_edges([0, 2], [1, 3], [GB, GB], n_tasks=4)
    m = _line(4, cores=2)
    stacked, spread = [0, 2, 1, 3], [0, 2, 4, 6]
    assert metrics.weighted_hops(g, m, stacked) == metrics.weighted_hops(g, m, spread) == 2 * GB
    assert predicted_time(g, m, stacked) == pytest.approx(2.0 + 1e-7 * 128 / GB)
    assert predicted_time(g, m, spread) == pytest.approx(1.0 + 1e-7 * 128 / GB)
    # ranked by the search's own rule (lowest score, ties to the lower index)
    scores = {name: [(i, metrics.evaluate(g, m, ttp, [name])[name]) for i, ttp in enumerate([stacked, spread])]
              for name in ("weighted_hops", "predicted_time")}
    assert winner(scores["weighted_hops"])[1] == 0  # a tie: the stacked placement, listed first
    assert winner(scores["predicted_time"])[1] == 1  # the spread placement


def _short_or_spread(size: float):
    """Two tasks pairs on a 10-router line of 10 GB/s links, 2 cores a router, messages of ``size`` B.

    Stacked: both messages on link 0+ (1 hop each, 2 x size on it).  Spread: each message
    crosses 4 links of its own (size on each).  Returns (graph, machine, stacked, spread).
    """
    g = TaskGraph.from_edges([0, 2], [1, 3], [size, size], n_tasks=4)
    m = torus_machine([10], wrap=False, cores_per_node=2, bandwidth=10.0)
    return g, m, [0, 2, 1, 3], [0, 8, 10, 18]


def test_overlap_ranks_large_messages_by_load_and_small_ones_by_route():
    # 2560-B messages: stacked 512 ns of data + 1 hop; spread 256 ns + 4 hops.  With the full
    # 100 ns a hop (the plain model) stacked looks faster (612 < 656 ns); with the overlap the
    # 4 hops cost 4 x 100 x 128/2560 = 20 ns and spread wins (276 < 517 ns), as the link
    # loads alone say (the application-time measurement behind DEFAULT_OVERLAP_BYTES)
    g, m, stacked, spread = _short_or_spread(2560.0)
    ns = {name: predicted_time(g, m, ttp) * 1e9 for name, ttp in (("stacked", stacked), ("spread", spread))}
    assert ns == pytest.approx({"stacked": 512 + 5, "spread": 256 + 20})
    plain = {name: predicted_time(g, m, ttp, overlap_bytes=math.inf) * 1e9
             for name, ttp in (("stacked", stacked), ("spread", spread))}
    assert plain == pytest.approx({"stacked": 612, "spread": 656})
    # 32-B messages pay every hop in full: the short route wins (106.4 < 403.2 ns)
    g, m, stacked, spread = _short_or_spread(32.0)
    assert predicted_time(g, m, stacked) * 1e9 == pytest.approx(6.4 + 100)
    assert predicted_time(g, m, spread) * 1e9 == pytest.approx(3.2 + 400)
    # the threshold is inclusive: a message of exactly overlap_bytes pays in full
    g, m, stacked, spread = _short_or_spread(DEFAULT_OVERLAP_BYTES)
    assert predicted_time(g, m, spread) * 1e9 == pytest.approx(12.8 + 400)


def test_default_metric_follows_the_link_model():
    assert default_metric(torus_machine([4, 4])) == "predicted_time"
    flat = FlatMachine(np.repeat(np.arange(4), 2))
    assert default_metric(flat) == "weighted_hops"
    assert resolve_metric(None, flat) == "weighted_hops" and resolve_metric("latency", flat) == "latency"
    g = TaskGraph.stencil([8])
    with pytest.raises(InvalidInputError, match="no link model"):
        predicted_time(g, flat, np.arange(8))
    # a search on the flat machine still works, ranked by weighted hops, and says so
    res = best_of(g, flat, candidate_list(g, flat, include_identity=True, rotate=False))
    assert res.mapping.info["metric"] == "weighted_hops"


@pytest.mark.parametrize("name, value", [("bytes_per_weight", -1.0), ("hop_latency", float("nan")),
                                         ("hop_latency", float("inf")), ("overlap_bytes", 0.0),
                                         ("overlap_bytes", -5.0), ("overlap_bytes", float("nan"))])
def test_bad_parameters_name_themselves(name, value):
    g = TaskGraph.stencil([4])
    with pytest.raises(InvalidInputError, match=name):
        predicted_time(g, torus_machine([4]), np.arange(4), **{name: value})


def test_identity_wins_ties_under_the_default_objective():
    # the 2x2 stencil on a 2x2 torus: every candidate puts neighbours one hop apart with one
    # message per link, so every score ties; the identity is listed first and must win
    graph, machine = TaskGraph.stencil([2, 2]), torus_machine([2, 2])
    cands = candidate_list(graph, machine, include_identity=True)
    res = best_of(graph, machine, cands)
    assert res.mapping.info["metric"] == "predicted_time"
    assert len(set(res.scores)) == 1 and len(cands) > 2
    assert res.index == 0 and res.mapping.task_to_proc.tolist() == [0, 1, 2, 3]


def test_search_keeps_the_candidate_with_the_least_predicted_time():
    # a sparse Titan-like allocation: the default search returns the minimum of predicted time
    # over everything it evaluated, which is not (always) the minimum of weighted hops
    from mpitaskmap import titan_machine

    g = TaskGraph.stencil([8, 4, 4])
    m = titan_machine(64, cores_per_node=2, seed=3)
    cands = candidate_list(g, m, include_identity=True)
    res = best_of(g, m, cands, refine=2)
    times = [predicted_time(g, m, best_of(g, m, [c], metric="weighted_hops").mapping.task_to_proc)
             for c in res.candidates[: len(cands)]]
    assert res.scores[: len(cands)] == pytest.approx(times, rel=1e-12)
    assert res.score == min(res.scores) and res.score <= res.scores[0]


def _fake_simulator(monkeypatch, seconds_of):
    """Replace SimGrid by ``seconds_of(mapping) -> float`` (the judge's decision, not SimGrid, is tested)."""
    import mpitaskmap.sim.simgrid as simgrid
    import mpitaskmap.sim.simgrid_replay as simulate

    calls = []

    class Result:
        def __init__(self, seconds):
            self.seconds = seconds

    def fake(mapping, **options):
        calls.append((mapping.task_to_proc.copy(), options))
        return Result(seconds_of(mapping))

    monkeypatch.setattr(simulate, "simulate_exchange", fake)
    monkeypatch.setattr(simgrid, "simgrid_missing", lambda compiler=False: "")
    return calls


def test_judge_simulates_the_best_distinct_mappings_and_keeps_the_fastest(monkeypatch):
    import mpitaskmap
    from mpitaskmap import titan_machine

    g = TaskGraph.stencil([4, 4, 4], weight=1.0)  # 1-byte messages: the default order among the objective's best
    m = titan_machine(16, cores_per_node=4, seed=2)
    plain = mpitaskmap.map(g, m, judge=None)  # the objective alone
    # the simulator disagrees with the objective: the later a mapping ranks, the faster it "runs"
    order = {}

    def seconds_of(mapping):
        order.setdefault(mapping.task_to_proc.tobytes(), len(order))
        return 1.0 - 0.1 * order[mapping.task_to_proc.tobytes()]

    calls = _fake_simulator(monkeypatch, seconds_of)
    judged = mpitaskmap.map(g, m, judge="simulate", judge_top=3, judge_options={"bytes_per_weight": 8.0},
                            judge_also=())
    rows = judged.info["judged"]
    # the default order is among the objective's 3 best here (second): replayed once, as one of them
    default = np.arange(g.n_tasks).tobytes()
    assert len(rows) == len(calls) == 3 and {r["chosen_by"] for r in rows} == {"objective"} and rows[1]["index"] == 0
    # distinct mappings, in objective order (score, then index), the first is the search's winner
    assert len({c[0].tobytes() for c in calls}) == 3 and calls[1][0].tobytes() == default
    assert [(r["score"], r["index"]) for r in rows] == sorted((r["score"], r["index"]) for r in rows)
    assert rows[0]["candidate"] == plain.info["candidate"] == judged.info["objective_winner"]
    np.testing.assert_array_equal(calls[0][0], plain.task_to_proc)
    # the fastest (the third) is returned, and the ranks say so
    assert judged.info["candidate"] == rows[2]["candidate"] and judged.info["default_simulated_s"] == 0.9
    np.testing.assert_array_equal(judged.task_to_proc, calls[2][0])
    assert [r["simulated_rank"] for r in rows] == [3, 2, 1] and [r["objective_rank"] for r in rows] == [1, 2, 3]
    from mpitaskmap.search.judge import JUDGE_CONFIG

    assert calls[0][1] == {"link_latency": DEFAULT_HOP_LATENCY, "bytes_per_weight": 8.0, "config": JUDGE_CONFIG}
    assert JUDGE_CONFIG == ("network/model:SMPI",)
    # equal simulated times: no gain, the default order is kept
    _fake_simulator(monkeypatch, lambda mapping: 1.0)
    tied = mpitaskmap.map(g, m, judge="simulate", judge_top=3)
    assert tied.info["candidate_index"] == 0 != plain.info["candidate_index"]
    # equal but for the default order, slower: the better objective wins
    _fake_simulator(monkeypatch, lambda mapping: 2.0 if mapping.task_to_proc.tobytes() == default else 1.0)
    tied = mpitaskmap.map(g, m, judge="simulate", judge_top=3)
    assert tied.info["candidate"] == plain.info["candidate"]


def _latency_pick(g, m, mapping):
    """Brute force: index of the candidate of least Latency(M) (ties: objective, then index) among
    those no worse than the default order (candidate 0) by the objective."""
    from mpitaskmap.search.problem import Problem
    from mpitaskmap.search.scoring import apply

    problem = Problem(g, m)
    cands = mapping.info["candidate_list"]
    keys = []
    for i, cand in enumerate(cands):
        t2p = apply(cand, problem).task_to_proc
        keys.append((metrics.latency(g, m, t2p), predicted_time(g, m, t2p), i))
    default = keys[0][1]
    return min(k for k in keys if k[1] <= default)[2], keys


def test_judge_also_never_replays_a_latency_pick_worse_than_the_default(monkeypatch):
    # the latency pick's mechanics outside the objective's top are tested on judge_stage itself
    # (tests/search/test_registry.py); here, on a real search, the candidate of least Latency(M) is a
    # rank order the objective ranks worse than the default order, so it is never replayed
    import mpitaskmap
    from mpitaskmap import titan_machine
    from mpitaskmap.search.judge import JUDGE_ALSO
    from mpitaskmap.search.problem import Problem
    from mpitaskmap.search.scoring import apply

    assert JUDGE_ALSO == ("latency",)
    g = TaskGraph.stencil([4, 4, 4], weight=32.0)  # small messages: the routes, not the loads, rank them
    m = titan_machine(16, cores_per_node=4, seed=5)
    plain = mpitaskmap.map(g, m, judge=None)  # the objective alone
    _, keys = _latency_pick(g, m, plain)
    worst = min(keys)  # least Latency(M) over every candidate, eligible or not
    assert worst[1] > keys[0][1]  # ... scores worse than the default order by the objective
    banned = apply(plain.info["candidate_list"][worst[2]], Problem(g, m)).task_to_proc.tobytes()

    def seconds_of(mapping):  # the banned pick would "run" fastest
        return 0.5 if mapping.task_to_proc.tobytes() == banned else 1.0

    calls = _fake_simulator(monkeypatch, seconds_of)
    judged = mpitaskmap.map(g, m, judge="simulate", judge_top=1)
    assert all(r["index"] != worst[2] for r in judged.info["judged"]) and judged.task_to_proc.tobytes() != banned
    assert len(calls) == len(judged.info["judged"])
    # explicitly none: only the objective's top (and the default order, the baseline, slower here)
    default = np.arange(g.n_tasks).tobytes()
    _fake_simulator(monkeypatch, lambda mapping: 2.0 if mapping.task_to_proc.tobytes() == default else seconds_of(mapping))
    alone = mpitaskmap.map(g, m, judge="simulate", judge_top=1, judge_also=[])
    assert [r["chosen_by"] for r in alone.info["judged"]] == ["objective", "default order"]
    np.testing.assert_array_equal(alone.task_to_proc, plain.task_to_proc)
    # a pick already simulated (same rank order) is not simulated twice
    _fake_simulator(monkeypatch, lambda mapping: 1.0)
    same = mpitaskmap.map(g, m, judge="simulate", judge_top=1, judge_also=["predicted_time"])
    assert [r["chosen_by"] for r in same.info["judged"]] == ["objective", "default order"]


def test_judge_also_skips_link_metrics_without_a_link_model(monkeypatch):
    import mpitaskmap

    g = TaskGraph.stencil([4, 4])
    m = FlatMachine(np.repeat(np.arange(4), 4))
    calls = _fake_simulator(monkeypatch, lambda mapping: 1.0)
    judged = mpitaskmap.map(g, m, judge="simulate", judge_top=2, judge_also=["latency", "max_hops"])
    by = [r["chosen_by"] for r in judged.info["judged"]]
    assert "latency" not in by and len(calls) == len(by)


def test_judge_bad_input(monkeypatch):
    import mpitaskmap

    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    with pytest.raises(InvalidInputError, match="only method 'auto'"):
        mpitaskmap.map(g, m, "geometric", judge="simulate")
    _fake_simulator(monkeypatch, lambda mapping: 1.0)
    with pytest.raises(InvalidInputError, match="judge: unknown 'oracle'"):
        mpitaskmap.map(g, m, judge="oracle")
    with pytest.raises(InvalidInputError, match="judge_top"):
        mpitaskmap.map(g, m, judge="simulate", judge_top=0)
    with pytest.raises(InvalidInputError, match="judge_also: unknown metric 'speed'"):
        mpitaskmap.map(g, m, judge="simulate", judge_also=["speed"])
    with pytest.raises(InvalidInputError, match="judge_also, judge_options: only with a judge"):
        mpitaskmap.map(g, m, judge=None, judge_also=["latency"])
    with pytest.raises(InvalidInputError, match="judge_also, judge_options: only with a judge"):
        mpitaskmap.map(g, m, judge=None, judge_options={"model": "CM02"})
    with pytest.raises(InvalidInputError, match=r"judge_options: the fluid judge takes .*got \['config'\]"):
        mpitaskmap.map(g, m, judge="fluid", judge_options={"config": ("network/model:SMPI",)})
    with pytest.raises(InvalidInputError, match="only method 'auto'"):
        mpitaskmap.map(g, m, "geometric", judge_also=["latency"])
    import mpitaskmap.sim.simgrid as simgrid

    monkeypatch.setattr(simgrid, "simgrid_missing", lambda compiler=False: "smpirun not found")
    with pytest.raises(InvalidInputError, match="needs SimGrid: smpirun not found"):
        mpitaskmap.map(g, m, judge="simulate")


def test_time_objective_carries_its_message_model_and_name():
    from mpitaskmap.metrics import time_objective
    from mpitaskmap.search.scoring import refinement_candidates
    from mpitaskmap.search.families import geometric

    g = TaskGraph.from_edges([0], [1], [1.0], n_tasks=2)
    f = time_objective(bytes_per_weight=GB, hop_latency=1e-6, overlap_bytes=math.inf)
    assert f.__name__ == "predicted_time" and f(g, torus_machine([2]), [0, 1]) == pytest.approx(1.000001)
    f = time_objective(bytes_per_weight=GB, hop_latency=1e-6, overlap_bytes=GB / 4)  # a quarter of 1 us
    assert f(g, torus_machine([2]), [0, 1]) == pytest.approx(1.00000025)
    # the search refines a named objective as it refines the name
    labels = [c.method for c in refinement_candidates([geometric.candidate("z")], f)]
    assert labels == ["uwh", "uwh+umc"]
    with pytest.raises(InvalidInputError, match="hop_latency"):
        time_objective(hop_latency=-1.0)
    with pytest.raises(InvalidInputError, match="overlap_bytes"):
        time_objective(overlap_bytes=0.0)


def test_kept_scratch_survives_the_epoch_restart():
    # the machine's scratch marks each call's links with an epoch (1..65535); after the last
    # epoch it is rebuilt, and stale loads of earlier calls never leak into a result
    rng = np.random.default_rng(3)
    m = torus_machine([4, 3], bandwidth=[rng.uniform(0.5, 2, 4), rng.uniform(0.5, 2, 3)])
    g = TaskGraph.from_edges(rng.integers(0, 12, 30), rng.integers(0, 12, 30), rng.uniform(0, 2e9, 30), n_tasks=12)
    a, b = rng.permutation(12), rng.permutation(12)
    want_a, want_b = _brute_force(g, m, a, 1.0, DEFAULT_HOP_LATENCY), _brute_force(g, m, b, 1.0, DEFAULT_HOP_LATENCY)
    assert predicted_time(g, m, a) == pytest.approx(want_a, rel=1e-12)
    m._link_scratch[1] = 0xFFFE  # the next call uses the last epoch, the one after restarts
    assert predicted_time(g, m, b) == pytest.approx(want_b, rel=1e-12)
    assert m._link_scratch[1] == 0xFFFF
    assert predicted_time(g, m, a) == pytest.approx(want_a, rel=1e-12)
    assert m._link_scratch[1] == 1
    assert predicted_time(g, m, b) == pytest.approx(want_b, rel=1e-12)


def test_kernel_rejects_bad_scratch_epoch_and_overlap():
    # the compiled kernel's own guards (callers go through TorusMachine.link_time, which sizes them)
    m = torus_machine([4, 3])  # 12 routers x 4 directed links
    g = TaskGraph.from_edges([0], [5], [64.0], n_tasks=12)
    inv_bw = np.ones((2, 4))
    t2p = np.arange(12, dtype=np.intp)

    def call(slots, epoch=1, overlap=128.0):
        return _torus.csr_link_time(g.indptr, g.indices, g.weights, t2p, m.router_coords, m.dims, m.wrap, inv_bw,
                                    1e-9, 1e-7, overlap, slots, epoch)

    assert call(np.zeros((48, 2)))[1] >= 0  # right shape: the message's link is found
    with pytest.raises(ValueError, match=r"slots must have shape \(48, 2\); got \(47, 2\)"):
        call(np.zeros((47, 2)))
    with pytest.raises(ValueError, match=r"slots must have shape \(48, 2\); got \(48, 3\)"):
        call(np.zeros((48, 3)))
    with pytest.raises(ValueError, match="epoch must be >= 1; got 0"):
        call(np.zeros((48, 2)), epoch=0)
    with pytest.raises(ValueError, match="overlap_weight must be > 0; got 0.0"):
        call(np.zeros((48, 2)), overlap=0.0)
