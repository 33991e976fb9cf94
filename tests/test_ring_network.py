"""A network kind defined in one test file gets the whole library (issue 27's proof of the contract).

:class:`RingMachine` subclasses only :class:`mpitaskmap.machines.Machine`: routers in a
ring, two nodes on each, one directed link each way between neighbouring routers.  It
gives hop distance, coordinates, links, their classes and routes -- and with no other file
changed it gets every metric (predicted time included), ``map(..., "auto")`` judged by the
fluid replay, the graph family with UMC/UMMC, link plots by class and a SimGrid platform
whose routes SMPI follows.
"""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest

import mpitaskmap as mt
from mpitaskmap.machines import Machine, Routes
from mpitaskmap.metrics import evaluate, link_loads, predicted_time


class RingMachine(Machine):
    """``n`` routers in a ring, ``nodes_per_router`` nodes of ``cores`` processors each; 1 GB/s links.

    Link ``2 r`` leaves router ``r`` clockwise (to ``r + 1``), link ``2 r + 1``
    counter-clockwise; a route goes the shorter way round, clockwise on ties.
    """

    name = "ring"

    def __init__(self, n: int, nodes_per_router: int = 2, cores: int = 1, bandwidth: float = 1.0) -> None:
        node_ids = np.repeat(np.arange(n * nodes_per_router), cores)
        super().__init__(node_ids.size, node_ids, name=f"ring({n})")
        self.ring_size, self.bandwidth = n, float(bandwidth)
        self.router_of_proc = node_ids // nodes_per_router

    @property
    def n_routers(self) -> int:
        return self.ring_size

    def router_ids(self) -> np.ndarray:
        return self.router_of_proc.astype(np.int64)

    def _walk(self, src, dst):
        """Clockwise?, and steps of the shorter way from src's router to dst's."""
        a, b = self.router_of_proc[np.asarray(src)], self.router_of_proc[np.asarray(dst)]
        cw = (b - a) % self.ring_size
        forward = cw <= self.ring_size - cw
        return a, forward, np.where(forward, cw, self.ring_size - cw)

    def hops(self, src, dst) -> np.ndarray:
        src, dst = self._checked_pairs(src, dst)
        return self._walk(src, dst)[2].astype(np.int64)

    def geometric_coords(self) -> np.ndarray:
        angle = 2 * np.pi * self.router_of_proc / self.ring_size
        return np.stack([np.cos(angle), np.sin(angle)], axis=1) * self.ring_size

    @property
    def n_links(self) -> int:
        return 2 * self.ring_size

    def link_bandwidths(self) -> np.ndarray:
        return np.full(self.n_links, self.bandwidth)

    def link_classes(self):
        return np.arange(self.n_links) % 2, ("cw", "ccw")

    def routes(self, src, dst) -> Routes:
        src, dst = self._checked_pairs(src, dst)
        a, forward, steps = self._walk(src, dst)
        indptr = np.zeros(src.size + 1, dtype=np.int64)
        np.cumsum(steps, out=indptr[1:])
        pair = np.repeat(np.arange(src.size), steps)
        k = np.arange(indptr[-1]) - indptr[pair]  # step k of the route leaves router a +- k
        here = (a[pair] + np.where(forward[pair], k, -k)) % self.ring_size
        links = 2 * here + np.where(forward[pair], 0, 1)
        return Routes(indptr, links.astype(np.int64), np.ones(links.size))


GB = 1e9


def test_hops_routes_and_every_metric_hand_computed():
    ring = RingMachine(6, nodes_per_router=1)
    assert ring.hops([0, 0, 0, 5], [1, 3, 4, 0]).tolist() == [1, 3, 2, 1]
    assert ring.route(0, 4) == [("ccw", 1), ("ccw", 11)]  # 0 -> 5 -> 4
    assert ring.route(0, 3) == [("cw", 0), ("cw", 2), ("cw", 4)]  # a tie goes clockwise
    # 1 GB from router 0 to 1, 1 byte from 1 to 4 (3 hops clockwise)
    g = mt.TaskGraph.from_edges([0, 1], [1, 4], [GB, 1.0], n_tasks=6)
    values = evaluate(g, ring, np.arange(6))
    assert values["total_hops"] == 4 and values["weighted_hops"] == GB + 3 and values["max_hops"] == 3
    assert values["max_data"] == GB and values["latency"] == GB and values["max_messages"] == 1
    loads = link_loads(g, ring, np.arange(6))
    assert loads.data[[0, 2, 4, 6]].tolist() == [GB, 1.0, 1.0, 1.0] and loads.n_used() == 4
    assert loads.bottleneck() == "cw" and [r["used_links"] for r in loads.by_class()] == [4, 0]
    # predicted time: link 0 carries 1 s of data and the 1-hop route's 100 ns; the 3-hop
    # byte's route latency counts on its own links only
    assert predicted_time(g, ring, np.arange(6), overlap_bytes=math.inf) == pytest.approx(1.0 + 1e-7, rel=1e-12)


def _stencil_on(ring):
    return mt.TaskGraph.stencil([4, 4], periodic=True, weight=4096.0)


def test_auto_is_judged_by_the_fluid_replay_on_the_ring():
    ring = RingMachine(8, nodes_per_router=2)
    g = _stencil_on(ring)
    best = mt.map(g, ring, "auto", families=["geometric", "graph"])
    assert best.info["judge"] == "fluid"
    judged = best.info["judged"]
    assert len(judged) >= 2 and all(np.isfinite(r["simulated_s"]) for r in judged)
    identity = predicted_time(g, ring, np.arange(16))
    assert predicted_time(g, ring, best.task_to_proc) <= identity


def test_graph_family_with_congestion_refinement_on_the_ring():
    ring = RingMachine(8, nodes_per_router=2)
    g = _stencil_on(ring)
    start = mt.map(g, ring, "greedy+uwh")
    for method, metric in (("umc", "latency"), ("ummc", "max_messages")):
        refined = mt.map(g, ring, method)
        assert sorted(refined.task_to_proc.tolist()) == list(range(16))
        assert evaluate(g, ring, refined.task_to_proc)[metric] <= evaluate(g, ring, start.task_to_proc)[metric]
    cands = mt.candidate_list(g, ring, families=["graph"])
    assert {c.method for c in cands} >= {"greedy+uwh"}


def test_link_plots_group_the_ring_links_by_class(tmp_path):
    pytest.importorskip("matplotlib")
    from mpitaskmap.viz.plots import plot_link_loads

    ring = RingMachine(6)
    g = _stencil_on(ring)  # 16 tasks on 12 processors: several per processor, asked for
    fig = plot_link_loads({"identity": mt.identity_mapping(g, ring, oversubscribe=True)}, tmp_path / "links.png")
    labels = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
    assert {"cw", "ccw"} <= set(labels)
    assert (tmp_path / "links.png").stat().st_size > 0


def test_the_simgrid_platform_follows_the_ring_routes():
    from mpitaskmap.sim.simgrid import platform_xml

    ring = RingMachine(6, nodes_per_router=1)
    xml = platform_xml(ring, link_latency=1e-6, form="explicit")
    # the route from node 0 to node 4 crosses the two counter-clockwise links the machine names
    route = [ring.link_name(link) for _, link in ring.route(0, 4)]
    line = next(l for l in xml.splitlines() if 'src="nid00000" dst="nid00004"' in l)
    assert [name for name in route if name in line] == route and line.index(route[0]) < line.index(route[1])


def test_smpi_ping_over_one_two_three_hops_is_monotone(smpi_ping, tmp_path):
    from mpitaskmap.mapfiles import write_smpi_hostfile
    from mpitaskmap.sim.simgrid import SMPI_DETERMINISTIC, SMPI_UNIT_FACTORS, platform_xml, smpirun

    ring = RingMachine(6, nodes_per_router=1)
    (tmp_path / "p.xml").write_text(platform_xml(ring, link_latency=1e-6))
    times = []
    for far in (1, 2, 3):  # rank 0 on router 0, rank 1 `far` routers away
        write_smpi_hostfile(mt.Mapping([0, far], ring, mt.TaskGraph.from_edges([0], [1], [1.0], n_tasks=2)),
                            tmp_path / "hosts")
        out = smpirun(smpi_ping, ["1000000"], platform=tmp_path / "p.xml", hostfile=tmp_path / "hosts", n_ranks=2,
                      config=SMPI_DETERMINISTIC + SMPI_UNIT_FACTORS, timeout=120).stdout
        times.append(float(out.split()[2]))
    assert times[0] < times[1] < times[2]
    # each way: hops x 1 us + 1 MB over 1 GB/s links
    assert times == pytest.approx([2 * (h * 1e-6 + 1e-3) for h in (1, 2, 3)], rel=1e-4)
