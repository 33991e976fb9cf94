"""A network kind defined in one test file gets the whole library (issue 27's proof of the contract).

:class:`RingMachine` subclasses only :class:`mpitaskmap.machines.Machine`: routers in a
ring, two nodes on each, one directed link each way between neighbouring routers.  It
gives hop distance, coordinates, links, their classes and routes -- and with no other file
changed it gets every metric (predicted time included), ``map(..., "auto")`` judged by the
fluid replay, the graph family with UMC/UMMC, link plots by class and a SimGrid platform
whose routes SMPI follows.  Registered as a network kind (:mod:`mpitaskmap.machines.kinds`, by
the fixture :func:`ring_kind`, here only) it gets the rest: a ``sim:ring:...`` spec for
``MPITASKMAP_PROVIDER`` and ``remap()`` under mpiexec, a machine-file form the ``file`` provider
reads, and ``mpitaskmap map -m sim:ring:...``.
"""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess

import numpy as np
import pytest

import mpitaskmap as mt
from mpitaskmap.errors import InvalidInputError, ProviderError
from mpitaskmap.machines import (Location, Machine, NetworkInfo, Routes, known_kinds, machine_from_spec,
                                 network_kind, read_machine_file, register_kind, write_machine_file)
from mpitaskmap.machines.kinds import MachineFileForm, NetworkKind, SimForm, unregister_kind
from mpitaskmap.machines.machine_file import machine_file_hosts
from mpitaskmap.metrics import evaluate, link_loads, predicted_time
from mpitaskmap.providers import FileProvider, get_provider, machine_from_provider


class RingMachine(Machine):
    """``n`` routers in a ring, ``nodes_per_router`` nodes of ``cores`` processors each; 1 GB/s links.

    Link ``2 r`` leaves router ``r`` clockwise (to ``r + 1``), link ``2 r + 1``
    counter-clockwise; a route goes the shorter way round, clockwise on ties.
    """

    name = "ring"

    def __init__(self, n: int, nodes_per_router: int = 2, cores: int = 1, bandwidth: float = 1.0, *,
                 routers=None, node_ids=None, name: str | None = None) -> None:
        """``routers`` and ``node_ids`` (per processor, both or neither): an allocation of the ring's
        processors, as the ring kind assembles one from gathered locations."""
        if node_ids is None:
            node_ids = np.repeat(np.arange(n * nodes_per_router), cores)
            routers = node_ids // nodes_per_router
        node_ids = np.asarray(node_ids, dtype=np.int64)
        super().__init__(node_ids.size, node_ids, name=name or f"ring({n})")
        self.ring_size, self.bandwidth = n, float(bandwidth)
        self.router_of_proc = np.asarray(routers, dtype=np.int64)

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


# -- the ring as a registered network kind: specs, machine files, remap(), the command line --------
# Everything below reaches the library through mpitaskmap.machines.kinds; no library file names the ring.
def _ring_parse(options: dict, what: str) -> dict:
    """``sim:ring:n=8,npr=2,cores=1,bw=1``: routers, nodes per router, processors per node, GB/s."""
    p = {}
    for key, default, kind in (("n", 8, int), ("npr", 2, int), ("cores", 1, int), ("bw", 1.0, float)):
        try:
            p[key] = kind(options.get(key, default))
        except ValueError:
            raise InvalidInputError(f"{what}: {key} must be a number; got {options[key]!r}") from None
    return p


def _ring_network(n: int, bandwidth: float) -> NetworkInfo:
    """Every rank reports its router in a ``"ring"`` network holding the ring's size and bandwidth."""
    return NetworkInfo(dims=(n,), kind="ring", options=(("bw", float(bandwidth)),))


def _check_ring(dims: tuple, options: tuple) -> None:
    if len(dims) != 1 or [k for k, _ in options] != ["bw"]:
        raise InvalidInputError(f"a ring network has one dimension and the option bw; got {list(dims)}, {options}")


def _assemble_ring(gathered, network: NetworkInfo, name: str) -> RingMachine:
    return RingMachine(network.dims[0], bandwidth=dict(network.options)["bw"], routers=gathered.coords[:, 0],
                       node_ids=gathered.node_ids, name=name)


def _read_ring_file(path, lines, bandwidth, name) -> tuple:
    """``network ring n=8 bw=1``, then ``host NAME RANKS ROUTER`` lines: one node each, in file order."""
    options = dict(token.split("=", 1) for token in lines[0][2][2:])
    routers, node_ids, hosts = [], [], []
    for node, (_, _, tok) in enumerate(lines[1:]):
        routers += [int(tok[3])] * int(tok[2])
        node_ids += [node] * int(tok[2])
        hosts.append(tok[1])
    bw = float(bandwidth if bandwidth is not None else options.get("bw", 1.0))
    return RingMachine(int(options["n"]), bandwidth=bw, routers=routers, node_ids=node_ids,
                       name=name or os.path.basename(str(path))), hosts


def _ring_file_lines(m: RingMachine) -> list:
    nodes, first, counts = np.unique(m.node_ids, return_index=True, return_counts=True)
    return [f"network ring n={m.ring_size} bw={m.bandwidth!r}"] + [
        f"host ring{k} {c} {m.router_of_proc[f]}" for k, f, c in zip(nodes.tolist(), first.tolist(), counts.tolist())]


RING_KIND = NetworkKind(
    "ring", _assemble_ring, _check_ring, machine_type=RingMachine,
    network_of=lambda m: _ring_network(m.ring_size, m.bandwidth),
    coords_of=lambda m, rank: (int(m.router_of_proc[rank]),),
    sim_forms=(SimForm("ring", ("n", "npr", "cores", "bw"), _ring_parse,
                       lambda p, size, spec: RingMachine(p["n"], p["npr"], p["cores"], p["bw"]),
                       lambda p: _ring_network(p["n"], p["bw"]),
                       lambda m, p, rank: ((int(m.router_of_proc[rank]),), f"ring{int(m.node_ids[rank])}")),),
    file_form=MachineFileForm(_read_ring_file, _ring_file_lines))
RING_SPEC = "sim:ring:n=8,npr=2,cores=1"


@pytest.fixture(autouse=True)
def ring_kind():
    """The ring registered for every test of this module (on every rank under mpiexec), and unregistered after:
    the other test modules see the library's own kinds."""
    register_kind(RING_KIND)
    yield RING_KIND
    unregister_kind("ring")


def test_a_sim_ring_spec_is_a_provider_and_its_machine_is_assembled_by_the_kind():
    p = get_provider(RING_SPEC)
    assert p.spec == RING_SPEC and p.rank_addressable
    assert [p.locate(r, 16) for r in (0, 3, 15)] == [Location((0,), "ring0"), Location((1,), "ring3"),
                                                   Location((7,), "ring15")]
    m = machine_from_provider(p, 16)
    assert isinstance(m, RingMachine) and m.name == RING_SPEC
    direct = RingMachine(8, nodes_per_router=2)
    everyone = np.arange(16)
    pairs = np.stack(np.meshgrid(everyone, everyone), -1).reshape(-1, 2)
    assert np.array_equal(m.hops(pairs[:, 0], pairs[:, 1]), direct.hops(pairs[:, 0], pairs[:, 1]))
    assert m.node_ids.tolist() == direct.node_ids.tolist()
    with pytest.raises(ProviderError, match=r"has 16 processors but the job has 17 ranks"):
        p.locate(0, 17)
    with pytest.raises(InvalidInputError, match=r"unknown key 'routers'"):
        get_provider("sim:ring:routers=8")


def test_machine_from_spec_reads_the_ring_with_its_host_names():
    machine, spec, hosts = machine_from_spec("sim:ring:n=4,npr=1,cores=2", 6)
    assert spec == "sim:ring:n=4,npr=1,cores=2" and machine.n_procs == 6
    assert machine.node_ids.tolist() == [0, 0, 1, 1, 2, 2] and hosts == ["ring0", "ring1", "ring2"]
    assert machine.hops([0, 0], [2, 5]).tolist() == [1, 2]


def test_a_ring_machine_file_writes_and_reads_back_equal(tmp_path):
    ring = RingMachine(6, nodes_per_router=2, cores=2, bandwidth=2.5)
    path = tmp_path / "ring.txt"
    write_machine_file(ring, path)
    assert path.read_text().splitlines()[:2] == ["network ring n=6 bw=2.5", "host ring0 2 0"]
    back = read_machine_file(path)
    assert isinstance(back, RingMachine) and back.n_procs == 24 and back.n_links == ring.n_links
    everyone = np.arange(24)
    src, dst = np.repeat(everyone, 24), np.tile(everyone, 24)
    assert np.array_equal(back.hops(src, dst), ring.hops(src, dst))
    assert np.array_equal(back.link_bandwidths(), ring.link_bandwidths())
    assert back.node_ids.tolist() == ring.node_ids.tolist()
    assert machine_file_hosts(path, back) == [f"ring{k}" for k in range(12)]
    # the file provider locates every rank of the file in the ring's network
    m = machine_from_provider(FileProvider(path), 24)
    assert np.array_equal(m.hops(src, dst), ring.hops(src, dst))


def test_mpitaskmap_map_runs_on_a_sim_ring(capsys, tmp_path):
    from mpitaskmap.cli import main

    out_file = tmp_path / "map.csv"
    status = main(["map", "-m", RING_SPEC, "-t", "stencil2d:4x4", "--method", "greedy", "--format", "json",
                   "-o", str(out_file)])
    out, err = capsys.readouterr()
    assert status == 0, err
    doc = json.loads(out)
    assert doc["header"]["machine"].startswith(f"{RING_SPEC}: 16 processors on 16 nodes")
    rows = {row["method"]: row for row in doc["rows"]}
    ring, graph = RingMachine(8, nodes_per_router=2), mt.TaskGraph.stencil([4, 4])
    greedy = mt.map(graph, ring, "greedy")
    assert rows["greedy"]["metrics"]["weighted_hops"] == evaluate(graph, ring, greedy.task_to_proc)["weighted_hops"]
    assert rows["identity"]["metrics"]["total_hops"] == evaluate(graph, ring, np.arange(16))["total_hops"]
    with open(out_file, newline="") as fh:
        written = {int(row["rank"]): int(row["proc"]) for row in csv.DictReader(fh)}
    assert [written[t] for t in range(16)] == greedy.task_to_proc.tolist()
    assert f"wrote {out_file} (csv, 16 ranks)" in err


def test_removing_a_kind_from_the_registry_names_the_kinds_known():
    dragonfly = unregister_kind("dragonfly")
    try:
        with pytest.raises(InvalidInputError) as exc:
            NetworkInfo(dims=(3, 4, 2), kind="dragonfly")
        assert str(exc.value) == f"kind: expected one of {known_kinds()}; got 'dragonfly'"
        assert known_kinds() == ["flat", "torus", "percs", "fattree", "ring"]
        with pytest.raises(InvalidInputError) as exc:
            get_provider("sim:frontier")
        assert str(exc.value) == ("provider: unknown simulated machine 'frontier' in 'sim:frontier'; valid: ['bgq', "
                                  "'fattree', 'frontera', 'percs', 'ring', 'supermuc-ng', 'titan', 'torus']")
    finally:
        register_kind(dragonfly)
    assert known_kinds() == ["flat", "torus", "percs", "fattree", "ring", "dragonfly"]
    assert network_kind("dragonfly") is dragonfly and get_provider("sim:frontier:nodes=2").spec == "sim:frontier:nodes=2"


@pytest.mark.mpi(min_size=4)
def test_remap_on_the_sim_ring_under_mpi(monkeypatch):
    """remap() with MPITASKMAP_PROVIDER=sim:ring:...: every rank talks to the rank half the job away, which
    the default order puts across the ring; the search brings the pairs together."""
    from mpitaskmap import remap
    from mpi_helpers import all_same, world

    comm = world()
    if comm.size > 16:
        pytest.skip("the ring holds 16 processors")
    monkeypatch.setenv("MPITASKMAP_PROVIDER", RING_SPEC)
    half = comm.size // 2
    partner = (comm.rank + half) % comm.size
    new, rep = remap(comm, (float(comm.rank % half),), neighbors=[partner], weights=[1e6], report=True)
    try:
        assert all_same(comm, (rep.status, rep.winner, rep.new_rank_of))
        assert rep.provider == RING_SPEC and rep.machine.startswith(RING_SPEC)
        assert rep.metric == "predicted_time" and rep.after <= rep.before
        assert rep.status == "remapped" and rep.after < rep.before
        assert sorted(rep.new_rank_of) == list(range(comm.size)) and new.rank == rep.new_rank_of[comm.rank]
        # task t runs on the process whose new rank is t: the partners' hops on the ring, before and after
        ring = RingMachine(8, nodes_per_router=2)
        proc_of_task = np.argsort(rep.new_rank_of)
        tasks = np.arange(comm.size)
        partners = (tasks + half) % comm.size
        before = int(ring.hops(tasks, partners).sum())
        after = int(ring.hops(proc_of_task[tasks], proc_of_task[partners]).sum())
        assert after < before and after == 0  # every pair on one router (two nodes of it)
    finally:
        new.Free()
