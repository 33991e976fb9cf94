"""Fat trees with parallel up-links to several spines: the spec's spines, d-mod-k on a host numbering, and the
"unknown" routing's sampled numberings in the objective, the judge and the second stage."""

from __future__ import annotations

import numpy as np
import pytest

from mpitaskmap import TaskGraph
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FatTreeMachine
from mpitaskmap.machines.base import sampled_time
from mpitaskmap.machines.fattree.fattree import LISTED_NUMBERING_WEIGHT, UNKNOWN_ROUTING_SAMPLES
from mpitaskmap.machines.fattree.slurm_topology import read_topology_spec
from mpitaskmap.metrics import predicted_time
from mpitaskmap.search.judge import fluid_seconds
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.scoring import polishes_nodes
from mpitaskmap.sim.fluid import fluid_exchange


def test_dmodk_follows_the_host_numbering():
    # 2 leaves of 2 nodes, 2 spines: the spine reached is the destination's host number mod 2
    m = FatTreeMachine.regular([2, 2], [1, 2], 10.0, range(4))
    swapped = m.with_routing("dmodk", numbering=[0, 1, 3, 2])
    names = lambda machine: machine.link_names(machine.routes([0], [2]).links)  # noqa: E731
    assert names(m) != names(swapped)
    assert names(swapped) == names(m.with_routing("dmodk", numbering=[0, 1, 5, 2]))  # 5 mod 2 == 3 mod 2
    # 0 -> 2 numbered 3 climbs as 0 -> 3 does unnumbered (routes: up1, up2, down2, down1)
    assert swapped.routes([0], [2]).links.tolist()[:2] == m.routes([0], [3]).links.tolist()[:2]
    with pytest.raises(InvalidInputError, match="numbering: expected 4 distinct host numbers; 1 repeat"):
        m.with_routing("dmodk", numbering=[0, 1, 1, 2])


def spine_tree(tmp_path, spines_listed: int = 1):
    """topology.conf of 4 leaves of 4 nodes, n0 .. n15, under one spine (or several listed)."""
    lines = [f"SwitchName=l{k} Nodes=n[{4 * k}-{4 * k + 3}]" for k in range(4)]
    lines += [f"SwitchName=s{k} Switches=l[0-3]" for k in range(spines_listed)]
    path = tmp_path / "topology.conf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_spec_gives_every_leaf_its_spines(tmp_path):
    path = spine_tree(tmp_path)
    one = read_topology_spec(f"{path}:n[0,5,10,15]:ppn=2,taper=2")
    assert (one.spines, one.routing) == (1, "dmodk")
    m = read_topology_spec(f"{path}:n[0,5,10,15]:ppn=2,taper=2,spines=2").machine()
    assert m.up_links == (1, 2) and m.routing == "unknown"
    # physical links: a leaf's 4 nodes in the file x 12.5 GB/s over taper 2, shared by 2 links (one job node each)
    assert m.level_bandwidths()[1].tolist() == [12.5] * 4
    # one up-link: the job's share, as remap() sees it (one node's 12.5 over taper 2)
    assert read_topology_spec(f"{path}:n[0,5,10,15]:taper=2").machine().level_bandwidths()[1].tolist() == [6.25] * 4
    assert read_topology_spec(f"{path}:n[0,5]:uplinks=4,routing=dmodk").machine().up_links == (1, 4)
    # the file lists two spines above every leaf: two parallel up-links, unless told otherwise
    listed = spine_tree(tmp_path, spines_listed=2)
    assert read_topology_spec(f"{listed}:n[0,5]").spines == 2
    assert read_topology_spec(f"{listed}:n[0,5]:spines=1").machine().up_links == (1, 1)
    with pytest.raises(InvalidInputError, match="spines=2 and uplinks=4 disagree"):
        read_topology_spec(f"{path}:n[0,5]:spines=2,uplinks=4")
    with pytest.raises(InvalidInputError, match="spines must be >= 1; got 0"):
        read_topology_spec(f"{path}:n[0,5]:spines=0")


def test_dmodk_on_the_named_order_is_simgrids_tree(tmp_path):
    # SimGrid's FAT_TREE 4 leaves x 4 nodes, 2 spines, hosts numbered 0 .. 15; the job on every host, listed out
    # of order (the model gives a leaf's up-links the job's share of its capacity: whole leaves here, as SimGrid)
    order = [5, 0, 12, 9, 1, 6, 13, 2, 8, 10, 3, 15, 4, 11, 14, 7]
    truth = FatTreeMachine.regular([4, 4], [1, 2], 12.5, order)
    nodelist = ",".join(f"n{h}" for h in order)
    m = read_topology_spec(f"{spine_tree(tmp_path)}:{nodelist}:taper=2,spines=2,routing=dmodk").machine()
    assert sorted(m.numbering.tolist()) == list(range(16))
    rng = np.random.default_rng(5)
    for _ in range(5):
        src = rng.integers(0, 16, 60)
        g = TaskGraph.from_edges(src, (src + rng.integers(1, 16, 60)) % 16, rng.integers(1, 9, 60) * 1e5, n_tasks=16)
        ttp = rng.permutation(16)
        assert predicted_time(g, m, ttp, bytes_per_weight=1.0) == pytest.approx(
            predicted_time(g, truth, ttp, bytes_per_weight=1.0), rel=1e-12)
    # on another numbering the routes differ: what the numbering is for
    other = m.with_routing("dmodk", numbering=np.arange(16)[::-1].copy())
    assert any(other.routes([0], [k]).links.tolist() != m.routes([0], [k]).links.tolist() for k in range(16))


def test_unknown_routing_expects_ecmp_and_ranks_by_the_sampled_numberings():
    m = FatTreeMachine.regular([4, 4], [1, 2], 12.5, np.repeat([1, 6, 11, 12], 2), routing="unknown")
    samples = m.routing_samples()
    assert len(samples) == 1 + UNKNOWN_ROUTING_SAMPLES and all(s.routing == "dmodk" for s in samples)
    assert samples[0].numbering is None  # first the listed numbering: the tree node numbers here
    assert len({tuple(s.numbering.tolist()) for s in samples[1:]}) == UNKNOWN_ROUTING_SAMPLES
    assert m.routing_samples() is samples  # kept
    weights = m.routing_weights()
    assert weights[0] == LISTED_NUMBERING_WEIGHT == 0.5 and weights.sum() == pytest.approx(1.0)
    assert weights[1:].tolist() == [0.5 / UNKNOWN_ROUTING_SAMPLES] * UNKNOWN_ROUTING_SAMPLES
    assert m.with_routing("dmodk").routing_weights().tolist() == [1.0]
    ecmp = m.with_routing("ecmp")
    assert m.routes([0], [7]).fractions.tolist() == ecmp.routes([0], [7]).fractions.tolist()
    assert not m.routes_known and ecmp.routes_known
    # two nodes of leaf 0 each send 1 MB off the leaf: on one spine's link (the two destinations' host numbers of
    # one parity) they take twice as long as on two
    m = FatTreeMachine.regular([4, 4], [1, 2], 12.5, [0, 1, 4, 5, 8, 9, 12, 13], routing="unknown")
    samples = m.routing_samples()
    g = TaskGraph.from_edges([0, 1], [2, 4], [1e6] * 2, n_tasks=8)
    ttp = np.arange(8)
    each = [predicted_time(g, s, ttp) for s in samples]
    # the listed numbering weighs half the mean, the random ones the other half; plus the worst, halved
    by_hand = (0.5 * each[0] + 0.5 * float(np.mean(each[1:])) + max(each)) / 2
    assert predicted_time(g, m, ttp) == pytest.approx(by_hand, rel=1e-12)
    assert min(each) < max(each)  # the numbering matters here, and the objective sees it
    # the judge replays every sampled numbering too; the second stage polishes no node swaps for it
    problem = Problem(g, m)
    replays = [fluid_exchange(g, s, ttp, steps=1).seconds for s in samples]
    mapping = type("M", (), {"task_to_proc": ttp})()
    assert fluid_seconds(problem, mapping, {"steps": 1}) == pytest.approx(
        (0.5 * replays[0] + 0.5 * float(np.mean(replays[1:])) + max(replays)) / 2, rel=1e-12)
    assert polishes_nodes(Problem(g, m.with_routing("dmodk"))) and not polishes_nodes(problem)


def test_sampled_time_is_the_mean_and_the_worst_halved():
    assert sampled_time([2.0]) == 2.0
    assert sampled_time([1.0, 1.0, 4.0]) == 3.0
    assert sampled_time([1.0, 1.0, 4.0], [0.5, 0.25, 0.25]) == pytest.approx((1.75 + 4.0) / 2)
    with pytest.raises(InvalidInputError, match=r"weights: expected one per sampled routing \(3\); got shape \(2,\)"):
        sampled_time([1.0, 1.0, 4.0], [0.5, 0.5])
    with pytest.raises(InvalidInputError, match=r"weights: expected non-negative probabilities summing to 1"):
        sampled_time([1.0, 4.0], [0.5, 0.25])
    with pytest.raises(InvalidInputError, match=r"weights: expected non-negative probabilities summing to 1"):
        sampled_time([1.0, 4.0], [1.5, -0.5])
    with pytest.raises(InvalidInputError, match=r"seconds: expected one time per sampled routing"):
        sampled_time([])


def test_unknown_routing_from_topology_conf_lists_the_hosts_in_name_order_first(tmp_path):
    # topology.conf with spines and no routing: "unknown", whose first (likeliest) numbering is the file's hosts in
    # name order, the numbering dmodk takes when told, and SimGrid's
    nodelist = "n[5,0,12,9]"
    unknown = read_topology_spec(f"{spine_tree(tmp_path)}:{nodelist}:taper=2,spines=2").machine()
    told = read_topology_spec(f"{spine_tree(tmp_path)}:{nodelist}:taper=2,spines=2,routing=dmodk").machine()
    assert unknown.routing == "unknown" and told.routing == "dmodk"
    assert unknown.numbering.tolist() == told.numbering.tolist() == [0, 5, 9, 12]
    assert unknown.routing_samples()[0].numbering.tolist() == [0, 5, 9, 12]
    assert all(s.numbering.tolist() != [0, 5, 9, 12] for s in unknown.routing_samples()[1:])
