"""The fat-tree providers: ``slurm`` (SLURM_TOPOLOGY_ADDR), ``file`` with a topology spec, the
simulated ``sim:fattree`` / ``sim:frontera`` / ``sim:supermuc-ng``; and the ``"fattree"`` network
every rank assembles the same machine from.

Serial tests set the environment of one process; the MPI tests (``-m mpi`` under ``mpiexec -n 4``
and ``-n 16``) give every rank its own ``SLURM_TOPOLOGY_ADDR`` and check that every rank builds
the same machine, with hand-computed hops, and ends ``remap()`` the same way when one rank's
variables are missing or disagree.
"""

import math

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, ProviderError
from mpitaskmap._textio import rank_ranges
from mpitaskmap.cli import main
from mpitaskmap.machines import FatTreeMachine, TorusMachine
from mpitaskmap.machines.fattree.presets import fattree_machine, fattree_preset
from mpitaskmap.machines.fattree.slurm_topology import fattree_from_topology, parse_topology_addr, parse_topology_conf
from mpitaskmap.providers import (AUTO_ORDER, FileProvider, HostnameProvider, Location, NetworkInfo, SimProvider,
                                  SlurmProvider, assemble_machine, get_provider, machine_from_provider)
from mpitaskmap.providers import bgq as bgq_module
from mpitaskmap.providers import file as file_module
from mpitaskmap.machines.fattree import fattree_network
from mpitaskmap.providers.hostname import FLAT_NETWORK
from mpi_helpers import all_same, gathered_machine, run_remap, task_of, world

ENV_VARS = ("SLURM_TOPOLOGY_ADDR", "SLURM_TOPOLOGY_ADDR_PATTERN", "MPITASKMAP_PROVIDER", "MPITASKMAP_COORDS_FILE",
            "MPITASKMAP_RCA_LIB", "MPITASKMAP_BGQ_LIB", "MPITASKMAP_BGQ_SHAPE", "MPITASKMAP_DISABLE")

TOPOLOGY = """\
# 2 leaves of 2 nodes below each of 2 spines, one core switch
SwitchName=l1 Nodes=n[01-02]
SwitchName=l2 Nodes=n[03-04]
SwitchName=l3 Nodes=n[05-06]
SwitchName=l4 Nodes=n[07-08]
SwitchName=sp1 Switches=l[1-2]
SwitchName=sp2 Switches=l[3-4]
SwitchName=core Switches=sp[1-2]
"""


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No provider or Slurm variable from the caller's shell; no Cray nid file, no BG/Q library."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", str(tmp_path / "no_nid"))
    empty_maps = tmp_path / "empty_maps"
    empty_maps.write_text("")
    monkeypatch.setattr(bgq_module, "_PROC_MAPS", str(empty_maps))
    file_module.clear_file_cache()
    yield
    file_module.clear_file_cache()


def slurm_env(monkeypatch, addr, pattern):
    monkeypatch.setenv("SLURM_TOPOLOGY_ADDR", addr)
    monkeypatch.setenv("SLURM_TOPOLOGY_ADDR_PATTERN", pattern)


def locations_of(monkeypatch, provider, addresses, pattern):
    """The Location of every rank, each rank having its own address (as Slurm gives them)."""
    out = []
    for r, addr in enumerate(addresses):
        slurm_env(monkeypatch, addr, pattern)
        out.append(provider.locate(r, len(addresses)))
    return out


# -- the slurm provider, one process -----------------------------------------------------------------
def test_tree_address_is_the_node_key_of_a_fattree_network(monkeypatch):
    slurm_env(monkeypatch, "s0.s12.node0417", "switch.switch.node")
    p = get_provider("slurm:taper=4,bw=25,routing=ecmp")
    assert isinstance(p, SlurmProvider) and p.spec == "slurm:taper=4,bw=25,routing=ecmp" and not p.rank_addressable
    assert p.locate(5, 8) == Location((), "s0.s12.node0417")
    assert p.network() == NetworkInfo(kind="fattree", options=(("pattern", "switch.switch.node"), ("taper", 4.0),
                                                               ("bandwidth", 25.0), ("routing", "ecmp")))
    p.check()
    with pytest.raises(ProviderError, match="only knows the calling process"):
        machine_from_provider(p, 2)
    assert get_provider("slurm").spec == "slurm" and get_provider("slurm").network() == fattree_network(
        "switch.switch.node", taper=1.0, bandwidth=12.5, routing="dmodk")


def test_the_address_is_parsed_once_per_value_of_the_variables(monkeypatch):
    """check(), locate() and network() all need the address: parsed once, again only when Slurm's variables change."""
    import mpitaskmap.providers.slurm as slurm_module

    calls = []

    def counting(addr, pattern):
        calls.append(addr)
        return parse_topology_addr(addr, pattern)

    monkeypatch.setattr(slurm_module, "parse_topology_addr", counting)
    slurm_env(monkeypatch, "s0.s12.node0417", "switch.switch.node")
    p = get_provider("slurm")
    p.check()
    assert p.locate(0, 2) == Location((), "s0.s12.node0417") and p.network().kind == "fattree"
    assert calls == ["s0.s12.node0417"]
    slurm_env(monkeypatch, "s0.s13.node0418", "switch.switch.node")
    assert p.locate(1, 2) == Location((), "s0.s13.node0418") and calls == ["s0.s12.node0417", "s0.s13.node0418"]


def test_block_torus3d_and_flat_addresses(monkeypatch):
    slurm_env(monkeypatch, "b3.node12", "block.node")
    p = get_provider("slurm")
    assert p.locate(0, 1) == Location((), "b3.node12") and dict(p.network().options)["pattern"] == "block.node"
    slurm_env(monkeypatch, "pod1:1:2:0.node05", "torus:x:y:z.node")
    p = get_provider("slurm:dims=4x4x2,bw=10")
    assert p.locate(0, 1) == Location((1, 2, 0), "node05")
    assert p.network() == NetworkInfo(dims=(4, 4, 2), wrap=True, bandwidth=10.0, dim_names=("X", "Y", "Z"),
                                      options=(("torus", "pod1"),))
    # no topology plugin: the node name, a flat network; but check() refuses (auto takes hostname)
    slurm_env(monkeypatch, "node0417", "node")
    p = get_provider("slurm")
    assert p.locate(0, 1) == Location((), "node0417") and p.network() == FLAT_NETWORK
    with pytest.raises(ProviderError, match=r"^slurm: SLURM_TOPOLOGY_ADDR_PATTERN=node: Slurm knows no switches here"):
        p.check()


@pytest.mark.parametrize("env, spec, message", [
    ({}, "slurm", "slurm: SLURM_TOPOLOGY_ADDR is not set (not a task of a Slurm step, or Slurm older than its topology "
                  "variables)"),
    ({"SLURM_TOPOLOGY_ADDR": "s0.n1"}, "slurm", "slurm: SLURM_TOPOLOGY_ADDR=s0.n1 is set but "
                                                "SLURM_TOPOLOGY_ADDR_PATTERN is not"),
    ({"SLURM_TOPOLOGY_ADDR": "s0.n1", "SLURM_TOPOLOGY_ADDR_PATTERN": "switch.switch.node"}, "slurm",
     "slurm: SLURM_TOPOLOGY_ADDR 's0.n1' has 2 components but SLURM_TOPOLOGY_ADDR_PATTERN 'switch.switch.node' has 3"),
    ({"SLURM_TOPOLOGY_ADDR": "s6..s9.n1", "SLURM_TOPOLOGY_ADDR_PATTERN": "switch.switch.switch.node"}, "slurm",
     "slurm: SLURM_TOPOLOGY_ADDR=s6..s9.n1 has no switch at level 1 (SLURM_TOPOLOGY_ADDR_PATTERN="
     "switch.switch.switch.node): a tree whose leaves hang at different depths is not modelled"),
    ({"SLURM_TOPOLOGY_ADDR": "pod1:1:2:0.n5", "SLURM_TOPOLOGY_ADDR_PATTERN": "torus:x:y:z.node"}, "slurm",
     "slurm: SLURM_TOPOLOGY_ADDR=pod1:1:2:0.n5 is on the 3-D torus 'pod1', whose size Slurm's address does not give: "
     "pass dims=XxYxZ (topology.yaml's dims), e.g. MPITASKMAP_PROVIDER=slurm:dims=4x4x2"),
    ({"SLURM_TOPOLOGY_ADDR": "pod1:1:2:0.n5", "SLURM_TOPOLOGY_ADDR_PATTERN": "torus:x:y:z.node"}, "slurm:dims=4x2x2",
     "slurm: SLURM_TOPOLOGY_ADDR=pod1:1:2:0.n5: coordinate y=2 lies outside dims 4x2x2"),
])
def test_failures_are_provider_errors(monkeypatch, env, spec, message):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    p = get_provider(spec)
    for call in (p.check, lambda: p.locate(0, 1), p.network):
        with pytest.raises(ProviderError) as exc:
            call()
        assert str(exc.value) == message


@pytest.mark.parametrize("spec, message", [
    ("slurm:taper=0", "provider 'slurm:taper=0': taper must be positive; got 0"),
    ("slurm:bw=fast", "provider 'slurm:bw=fast': bw must be a number; got 'fast'"),
    ("slurm:routing=minimal", "provider 'slurm:routing=minimal': routing must be one of ['dmodk', 'ecmp', 'unknown']; "
                              "got 'minimal'"),
    ("slurm:dims=4x4", "provider 'slurm:dims=4x4': dims needs 3 lengths like 4x4x4; got '4x4'"),
    ("slurm:levels=2", "provider 'slurm:levels=2': unknown key 'levels'; valid keys: ['bw', 'dims', 'routing', 'taper']"),
])
def test_spec_errors(spec, message):
    with pytest.raises(InvalidInputError) as exc:
        get_provider(spec)
    assert str(exc.value) == message


def test_auto_takes_slurm_before_hostname_and_says_why_not(monkeypatch, tmp_path):
    slurm_env(monkeypatch, "s0.s12.node0417", "switch.switch.node")
    p = get_provider()
    assert isinstance(p, SlurmProvider) and p.spec == "slurm"
    assert [name for name, _ in p.probes] == list(AUTO_ORDER[:AUTO_ORDER.index("slurm") + 1])
    assert p.probes[-1] == ("slurm", "selected")
    slurm_env(monkeypatch, "node0417", "node")
    p = get_provider()
    assert isinstance(p, HostnameProvider) and [name for name, _ in p.probes] == list(AUTO_ORDER)
    assert p.probes[-2][1].startswith("slurm: SLURM_TOPOLOGY_ADDR_PATTERN=node: Slurm knows no switches here")
    slurm_env(monkeypatch, "pod1:1:2:0.n5", "torus:x:y:z.node")
    assert isinstance(get_provider(), HostnameProvider)  # a torus without dims= is skipped, with the reason
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "slurm:dims=4x4x2")
    p = get_provider()
    assert isinstance(p, SlurmProvider) and p.locate(0, 1).coords == (1, 2, 0)


# -- the fattree network: every rank's address -> one machine ---------------------------------------------
ADDRESSES = ["core.sp2.l3.n05", "core.sp2.l3.n05", "core.sp1.l1.n01", "core.sp1.l1.n01", "core.sp1.l1.n02",
             "core.sp1.l2.n03"]


def test_assembled_machine_from_addresses(monkeypatch):
    p = get_provider("slurm:taper=2,bw=10")
    locs = locations_of(monkeypatch, p, ADDRESSES, "switch.switch.switch.node")
    m = assemble_machine(locs, p.network(), name="job")
    assert isinstance(m, FatTreeMachine) and m.name == "job" and m.levels == 3
    # tree nodes in path order n01 n02 n03 n05; ranks 0-1 on n05, 2-3 on n01, 4 on n02, 5 on n03
    assert m.node_names == ("n01", "n02", "n03", "n05") and m.node_ids.tolist() == [3, 3, 0, 0, 1, 2]
    # 0 on one node; 2 under one leaf; 4 under one spine; 6 across the core
    assert m.hops([2, 2, 2, 2], [3, 4, 5, 0]).tolist() == [0, 2, 4, 6]
    # bandwidths: node links 10; leaf up-links = job nodes below x 10 / 2; spine up-links = their leaves' / 2
    assert [b.tolist() for b in m.level_bandwidths()] == [[10.0] * 4, [10.0, 5.0, 5.0], [7.5, 2.5]]
    # the offline spec on the same nodes (in the same rank order) gives the same machine
    offline = fattree_from_topology(parse_topology_conf(TOPOLOGY), "n05,n01,n02,n03", ppn=1, taper=2, bandwidth=10)
    assert offline.node_names == m.node_names and offline.groups[0].tolist() == m.groups[0].tolist()
    assert [b.tolist() for b in offline.level_bandwidths()] == [b.tolist() for b in m.level_bandwidths()]


def test_assembled_block_machine(monkeypatch):
    p = get_provider("slurm")
    locs = locations_of(monkeypatch, p, ["b1.n1", "b1.n2", "b2.n9", "b1.n1"], "block.node")
    m = assemble_machine(locs, p.network(), name="job")
    # one block level under an implicit root: same node 0, same block 2, other block 4
    assert m.levels == 2 and m.hops([0, 0, 0], [3, 1, 2]).tolist() == [0, 2, 4]


def test_assembly_errors_name_the_ranks(monkeypatch):
    p = get_provider("slurm")
    network = fattree_network("switch.node")
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine([Location((), "l1.n1"), Location((), "l1.n2"), Location((), "l2.n1")], network, name="x")
    assert str(exc.value) == "locations: ranks 0 and 2 are on node 'n1' but report different addresses 'l1.n1' and 'l2.n1'"
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine([Location((), "l1.n1"), Location((), "n2")], network, name="x")
    assert str(exc.value) == ("locations: rank 1: SLURM_TOPOLOGY_ADDR 'n2' has 1 components but "
                              "SLURM_TOPOLOGY_ADDR_PATTERN 'switch.node' has 2")
    with pytest.raises(InvalidInputError, match=r"^locations: switch 'a' is in 'a' at level 0 above node 'n1' but in 'a' "
                                                r"at level 1 above node 'n2': not a tree$"):
        assemble_machine([Location((), "s.a.n1"), Location((), "a.b.n2")], fattree_network("switch.switch.node"),
                         name="x")
    del p


def test_addresses_below_two_tops_are_refused_as_slurm_does(monkeypatch):
    # a tree address lists every switch above its node: two tops have no common ancestor, and
    # nothing says how they connect (Slurm places no such job without TopoOptional)
    p = get_provider("slurm")
    locs = locations_of(monkeypatch, p, ["a.l1.n1", "a.l1.n1", "b.l2.n2", "a.l1.n3", "b.l3.n4"],
                        "switch.switch.node")
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine(locs, p.network(), name="job")
    assert str(exc.value) == (
        "locations: the job's nodes hang below switches without a common ancestor (SLURM_TOPOLOGY_ADDR): "
        "n[1,3] (ranks 0-1,3) below 'a'; n[2,4] (ranks 2,4) below 'b'; Slurm places no job across switches without a "
        "common parent (unless TopologyParam=TopoOptional), and the addresses do not say how they connect: give the "
        "machine as a topology.conf with a switch above them (MPITASKMAP_COORDS_FILE=topology.conf:NODELIST)")
    # one top: accepted; blocks legitimately span (they hang below the implicit root)
    assert assemble_machine(locs[:2] + locs[3:4], p.network(), name="job").levels == 2
    assert assemble_machine(locations_of(monkeypatch, p, ["b1.n1", "b2.n2"], "block.node"), p.network(),
                            name="job").levels == 2


@pytest.mark.parametrize("kwargs, message", [
    (dict(kind="fattree"), "options: a fattree network needs 'pattern' (topology addresses) or 'down' and 'up' (a regular "
                           "tree); got keys []"),
    (dict(kind="fattree", dims=(4,), options=(("pattern", "switch.node"),)),
     "dims: a fat tree from topology addresses has no dimensions; got [4]"),
    (dict(kind="fattree", options=(("pattern", "switch.node"), ("levels", 2))),
     "options: unknown key 'levels' of a from topology addresses fattree network; valid: ['pattern', 'taper', "
     "'bandwidth', 'routing']"),
    (dict(kind="fattree", dims=(15,), options=(("down", (4, 4)), ("up", (1, 2)))),
     "dims: a regular fat tree's one dimension is its 16 tree nodes (prod of down (4, 4)); got [15]"),
])
def test_fattree_network_info_rejects(kwargs, message):
    with pytest.raises(InvalidInputError) as exc:
        NetworkInfo(**kwargs)
    assert str(exc.value) == message


# -- the file provider with a topology spec ------------------------------------------------------------
def test_file_provider_topology_spec(tmp_path, monkeypatch):
    conf = tmp_path / "topology.conf"
    conf.write_text(TOPOLOGY)
    spec = f"{conf}:n[01-03,05]:ppn=2,taper=2,bw=10"
    p = get_provider(f"file:{spec}")
    assert isinstance(p, FileProvider) and p.is_topology and p.rank_addressable
    assert [p.locate(r, 8).node for r in (0, 1, 2, 7)] == ["core.sp1.l1.n01", "core.sp1.l1.n01", "core.sp1.l1.n02",
                                                          "core.sp2.l3.n05"]
    assert p.network() == fattree_network("switch.switch.switch.node", taper=2.0, bandwidth=10.0, routing="dmodk")
    m = machine_from_provider(p, 8)
    direct = fattree_from_topology(parse_topology_conf(TOPOLOGY), "n[01-03,05]", ppn=2, taper=2, bandwidth=10)
    assert m.node_ids.tolist() == direct.node_ids.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [g.tolist() for g in m.groups] == [g.tolist() for g in direct.groups]
    assert [b.tolist() for b in m.level_bandwidths()] == [b.tolist() for b in direct.level_bandwidths()]
    assert m.hops([0, 0, 0, 0], [1, 2, 4, 6]).tolist() == [0, 2, 4, 6]
    with pytest.raises(ProviderError, match=r"describes 4 nodes x 2 = 8 ranks but the job has 6$"):
        p.locate(0, 6)
    monkeypatch.setenv("MPITASKMAP_COORDS_FILE", spec)
    auto = get_provider()
    assert isinstance(auto, FileProvider) and auto.locate(7, 8) == Location((), "core.sp2.l3.n05")
    with pytest.raises(ProviderError, match=r"^file: .*none.conf: cannot read the topology file of "):
        FileProvider(f"{tmp_path}/none.conf:n1").check()
    bad = tmp_path / "bad.conf"
    bad.write_text("SwitchName=l1 Nodes=n1\nSwitchName=top Switches=l[1-2]\n")
    with pytest.raises(InvalidInputError, match=rf"^{bad}:2: switch 'top' lists child switch 'l2'"):
        FileProvider(f"{bad}:n1").locate(0, 1)


# -- simulated fat trees -----------------------------------------------------------------------------------
def test_sim_fattree_locations_network_and_machine():
    spec = "sim:fattree:leaves=4,nodes_per_leaf=4,taper=2,nodes=6,ppn=2,seed=1"
    p = get_provider(spec)
    assert isinstance(p, SimProvider) and p.spec == spec
    # the draw of fattree_machine(..., seed=1): nodes 0 2 5 6 9 13, two ranks each
    assert [p.locate(r, 12) for r in (0, 1, 2, 11)] == [Location((0,), "node0000"), Location((0,), "node0000"),
                                                       Location((2,), "node0002"), Location((13,), "node0013")]
    assert p.network() == NetworkInfo(dims=(16,), kind="fattree", options=(
        ("down", (4, 4)), ("up", (1, 2)), ("bandwidth", 12.5), ("routing", "dmodk")))
    m = machine_from_provider(p, 12)
    ref = fattree_machine(leaves=4, nodes_per_leaf=4, taper=2, nodes=6, ppn=2, seed=1)
    assert isinstance(m, FatTreeMachine) and m.node_ids.tolist() == ref.node_ids.tolist()
    assert [g.tolist() for g in m.groups] == [g.tolist() for g in ref.groups] and m.up_links == ref.up_links
    assert [b.tolist() for b in m.level_bandwidths()] == [b.tolist() for b in ref.level_bandwidths()]
    # same node 0; nodes 0 and 2 share leaf 0: 2; node 0 and node 5 (leaf 1): 4
    assert m.hops([0, 0, 0], [1, 2, 4]).tolist() == [0, 2, 4]
    # a smaller job takes the first ranks; nodes default to ceil(size / ppn)
    assert machine_from_provider(p, 5).node_ids.tolist() == [0, 0, 2, 2, 5]
    auto_nodes = SimProvider("fattree", leaves="4", nodes_per_leaf="4", ppn="3", seed="1")
    assert auto_nodes.machine(7).n_nodes == math.ceil(7 / 3)


@pytest.mark.parametrize("name", ["frontera", "supermuc-ng"])
def test_sim_presets_match_fattree_preset(name):
    m = machine_from_provider(get_provider(f"sim:{name}:nodes=16,ppn=4,seed=3"), 64)
    ref = fattree_preset(name, nodes=16, ppn=4, seed=3)
    assert m.node_ids.tolist() == ref.node_ids.tolist() and m.up_links == ref.up_links
    assert [g.tolist() for g in m.groups] == [g.tolist() for g in ref.groups]


@pytest.mark.parametrize("spec, error, message", [
    ("sim:fattree:taper=3", InvalidInputError, "provider 'sim:fattree:taper=3': taper: must divide nodes_per_leaf (16); "
                                               "got 3"),
    ("sim:fattree:levels=4", InvalidInputError, "provider 'sim:fattree:levels=4': levels: a simulated fat tree has 2 or 3 "
                                                "switch levels; got 4"),
    ("sim:fattree:bw=0", InvalidInputError, "provider 'sim:fattree:bw=0': bw must be positive; got 0"),
    ("sim:fattree:routing=up", InvalidInputError, "provider 'sim:fattree:routing=up': routing must be one of ['dmodk', "
                                                  "'ecmp', 'unknown']; got 'up'"),
    ("sim:frontera:leaves=3", InvalidInputError, "provider 'sim:frontera:leaves=3': unknown key 'leaves'; valid keys: "
                                                 "['nodes', 'ppn', 'routing', 'seed']"),
])
def test_sim_fattree_spec_errors(spec, error, message):
    with pytest.raises(error) as exc:
        get_provider(spec)
    assert str(exc.value) == message


def test_sim_fattree_job_larger_than_the_tree():
    p = get_provider("sim:fattree:leaves=2,nodes_per_leaf=2,ppn=1")
    with pytest.raises(ProviderError) as exc:
        p.locate(0, 5)
    assert str(exc.value) == ("sim: 'sim:fattree:leaves=2,nodes_per_leaf=2,ppn=1' cannot hold a job of 5 ranks: nodes: "
                              "the tree has 4 nodes; got 5")


# -- the command line --------------------------------------------------------------------------------------
def test_cli_eval_on_sim_fattree_and_topology_spec(capsys, tmp_path):
    # 12 ranks on nodes 0 0 2 2 5 5 6 6 9 9 13 13 (leaves 0 0 0 0 1 1 1 1 2 2 3 3); a chain of 12 tasks:
    # hops 0 2 0 4 0 2 0 4 0 4 0 between neighbours, both directions: 32
    status = main(["eval", "-m", "sim:fattree:leaves=4,nodes_per_leaf=4,taper=2,nodes=6,ppn=2,seed=1", "-t", "stencil:12",
                   "--format", "csv", "-q"])
    out = capsys.readouterr().out
    assert status == 0 and out.splitlines()[1].startswith("identity,32,")
    conf = tmp_path / "topology.conf"
    conf.write_text(TOPOLOGY)
    # tasks 0 1 2 on n01 n02 n03: 0-1 under leaf l1 (2 hops), 1-2 under spine sp1 (4 hops): 2 x (2 + 4) = 12
    status = main(["eval", "-m", f"{conf}:n[01-03]", "-t", "stencil:3", "--format", "csv", "-q"])
    out = capsys.readouterr().out
    assert status == 0 and out.splitlines()[1].startswith("identity,12,3.0,12.0,4,")
    status = main(["map", "-m", f"file:{conf}:n[01-03]:ppn=2,taper=4", "-t", "stencil:6", "-o", str(tmp_path / "hostfile")])
    printed = capsys.readouterr()
    assert status == 0 and f"{conf}: 3 nodes x 2, taper 4:1, 12.5 GB/s, dmodk" in printed.out + printed.err
    hosts = (tmp_path / "hostfile").read_text().split()
    assert sorted(hosts) == ["n01", "n01", "n02", "n02", "n03", "n03"]
    status = main(["eval", "-m", f"{conf}:n[01-03,99]", "-t", "stencil:3", "-q"])
    err = capsys.readouterr().err
    assert status == 1 and err.strip() == f"mpitaskmap eval: error: {conf}: node 'n99' is not in the topology (no Nodes= lists it)"


# -- under mpiexec: every rank its own SLURM_TOPOLOGY_ADDR ---------------------------------------------------
def tree_address(rank: int) -> str:
    """Two ranks per node, two nodes per leaf, two leaves per spine, one core switch."""
    node = rank // 2
    return f"core.sp{node // 4}.l{node // 2}.n{node:02d}"


def tree_hops(a: int, b: int) -> int:
    na, nb = a // 2, b // 2
    return 0 if na == nb else 2 if na // 2 == nb // 2 else 4 if na // 4 == nb // 4 else 6


def neighbours(rank: int, size: int):
    return [r for r in (rank - 2, rank + 2, rank ^ 1) if 0 <= r < size and r != rank]


@pytest.mark.mpi(min_size=2)
def test_mpi_tree_every_rank_builds_the_same_machine_and_remaps(monkeypatch):
    from mpitaskmap import remap

    comm = world()
    slurm_env(monkeypatch, tree_address(comm.rank), "switch.switch.switch.node")
    m = gathered_machine(comm, get_provider("slurm:taper=2"))
    n = comm.size
    a, b = np.divmod(np.arange(n * n), n)
    assert isinstance(m, FatTreeMachine) and m.levels == 3
    assert m.hops(a, b).tolist() == [tree_hops(int(x), int(y)) for x, y in zip(a, b)]
    assert m.node_hierarchy().groups[0].tolist() == [k // 2 for k in range(m.n_nodes)]
    new, rep = remap(comm, task_of(comm.rank, n), neighbors=neighbours(comm.rank, n), provider="slurm:taper=2",
                     report=True)
    try:
        assert all_same(comm, (rep.status, rep.provider, rep.machine, rep.new_rank_of, rep.winner))
        assert rep.provider == "slurm:taper=2" and rep.machine == f"slurm:taper=2 ({n} ranks)"
        assert sorted(rep.new_rank_of) == list(range(n)) and rep.after <= rep.before
        assert new.rank == rep.new_rank_of[comm.rank]
    finally:
        new.Free()


@pytest.mark.mpi(min_size=2)
def test_mpi_block_and_torus3d(monkeypatch):
    from mpitaskmap import remap

    comm = world()
    node = comm.rank // 2
    slurm_env(monkeypatch, f"b{node // 2}.n{node:02d}", "block.node")
    m = gathered_machine(comm, get_provider("slurm"))
    n = comm.size
    for x in range(n):
        expected = [0 if x // 2 == y // 2 else 2 if x // 4 == y // 4 else 4 for y in range(n)]
        assert m.hops([x] * n, list(range(n))).tolist() == expected
    # torus3d: node k at (k % 2, k // 2 % 2, k // 4) on a 2x2x2 torus; hops = coordinates that differ
    slurm_env(monkeypatch, f"pod1:{node % 2}:{node // 2 % 2}:{node // 4 % 2}.n{node:02d}", "torus:x:y:z.node")
    m = gathered_machine(comm, get_provider("slurm:dims=2x2x2"))
    assert isinstance(m, TorusMachine)
    for x in range(n):
        kx = x // 2
        expected = [sum(((kx >> d) & 1) != (((y // 2) >> d) & 1) for d in range(3)) for y in range(n)]
        assert m.hops([x] * n, list(range(n))).tolist() == expected
    new, rep = remap(comm, task_of(comm.rank, n), provider="slurm:dims=2x2x2", report=True)
    try:
        assert all_same(comm, (rep.status, rep.machine, rep.new_rank_of)) and rep.error == ""
    finally:
        new.Free()


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_a_rank_without_the_variables_ends_like_every_other(monkeypatch, on_error):
    comm = world()
    slurm_env(monkeypatch, tree_address(comm.rank), "switch.switch.switch.node")
    if comm.rank == 1:
        monkeypatch.delenv("SLURM_TOPOLOGY_ADDR")
    missing = ("provider: rank 1: ProviderError: slurm: SLURM_TOPOLOGY_ADDR is not set (not a task of a Slurm step, or "
               "Slurm older than its topology variables)")
    outcome = run_remap(comm, "slurm", on_error)
    assert all_same(comm, outcome)
    assert outcome == (("raised", missing) if on_error == "raise" else ("returned", "identity", missing, True))
    # auto: rank 1 falls back to the host name, the others take slurm: the network check catches it
    outcome = run_remap(comm, None, on_error)
    assert all_same(comm, outcome)
    mismatch = ("provider: rank 1 reports provider 'hostname' (flat network) but rank 0 reports provider 'slurm' "
                "(fattree network pattern=switch.switch.switch.node taper=1.0 bandwidth=12.5 routing=dmodk)")
    assert outcome == (("raised", mismatch) if on_error == "raise" else ("returned", "identity", mismatch, True))


@pytest.mark.mpi(min_size=2)
def test_mpi_ranks_at_different_depths_fail_alike(monkeypatch):
    comm = world()
    if comm.rank == 1:
        slurm_env(monkeypatch, "sp0.l0.n00", "switch.switch.node")
    else:
        slurm_env(monkeypatch, tree_address(comm.rank), "switch.switch.switch.node")
    outcome = run_remap(comm, "slurm", "raise")
    assert all_same(comm, outcome)
    assert outcome == ("raised", "provider: rank 1 reports provider 'slurm' (fattree network pattern=switch.switch.node "
                                 "taper=1.0 bandwidth=12.5 routing=dmodk) but rank 0 reports provider 'slurm' (fattree "
                                 "network pattern=switch.switch.switch.node taper=1.0 bandwidth=12.5 routing=dmodk)")


@pytest.mark.mpi(min_size=2)
def test_mpi_remap_on_a_simulated_fat_tree():
    from mpitaskmap import remap

    comm = world()
    spec = "sim:fattree:leaves=4,nodes_per_leaf=4,taper=2,ppn=2,seed=1"
    n = comm.size
    new, rep = remap(comm, task_of(comm.rank, n), neighbors=neighbours(comm.rank, n), provider=spec, report=True)
    try:
        assert all_same(comm, (rep.status, rep.machine, rep.new_rank_of, rep.after))
        assert rep.error == "" and rep.after <= rep.before and sorted(rep.new_rank_of) == list(range(n))
        m = gathered_machine(comm, get_provider(spec))
        ref = fattree_machine(leaves=4, nodes_per_leaf=4, taper=2, nodes=math.ceil(n / 2), ppn=2, seed=1)
        assert m.node_ids.tolist() == ref.node_ids[:n].tolist() and m.up_links == (1, 2)
    finally:
        new.Free()


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_addresses_below_two_tops_end_alike(monkeypatch, on_error):
    comm = world()
    last_node = (comm.size - 1) // 2  # its ranks (both, or one) hang below another top
    address = f"other.osp.ol.n{last_node:02d}" if comm.rank // 2 == last_node else tree_address(comm.rank)
    slurm_env(monkeypatch, address, "switch.switch.switch.node")
    outcome = run_remap(comm, "slurm", on_error)
    assert all_same(comm, outcome)
    assert outcome[0] == ("raised" if on_error == "raise" else "returned")
    assert "without a common ancestor (SLURM_TOPOLOGY_ADDR)" in outcome[-2 if on_error == "identity" else 1]
    others = [r for r in range(comm.size) if r // 2 == last_node]
    assert f"n{last_node:02d} (ranks {rank_ranges(others)}) below 'other'" in outcome[-2 if on_error == "identity" else 1]
