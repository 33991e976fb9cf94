"""The ``xname`` provider (HPE Cray EX, ``/etc/cray/xname``) and the dragonfly network from xnames.

Every rank's node key is its xname; the machine is assembled from the gathered xnames: the
job's cabinets in ascending number are groups 0, 1, ..., a node's switch is its blade slot
``chassis * 8 + slot`` (an approximation the machine's name states), its slot on the switch
``board * 2 + node``.  The MPI tests (``-m mpi`` under ``mpiexec -n 4`` and ``-n 16``) give every
rank its own xname file.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, ProviderError
from mpitaskmap.machines import DragonflyMachine
from mpitaskmap.machines.dragonfly import DRAGONFLY_ROUTINGS
from mpitaskmap.providers import (AUTO_ORDER, Location, NetworkInfo, XnameProvider, assemble_machine, get_provider,
                                  machine_from_provider)
from mpitaskmap.providers import bgq as bgq_module
from mpitaskmap.machines.dragonfly.xname import XNAME_APPROXIMATION, xname_dragonfly_network, xname_place
from mpitaskmap.machines.dragonfly.xname import parse_xname
from mpitaskmap.runtime.gather import describe_network
from mpi_helpers import all_same, gathered_machine, run_remap, world

ENV_VARS = ("MPITASKMAP_PROVIDER", "MPITASKMAP_COORDS_FILE", "MPITASKMAP_RCA_LIB", "MPITASKMAP_BGQ_LIB",
            "MPITASKMAP_FJMPI_LIB", "MPITASKMAP_CXI_NIC", "MPITASKMAP_XNAME_FILE", "SLURM_TOPOLOGY_ADDR",
            "SLURM_TOPOLOGY_ADDR_PATTERN", "MPITASKMAP_DISABLE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No provider variable from the caller's shell; no Cray nid file, no BG/Q library, no libfabric."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", str(tmp_path / "no_nid"))
    monkeypatch.setenv("MPITASKMAP_CXI_LIB", str(tmp_path / "no_libfabric.so"))
    empty_maps = tmp_path / "empty_maps"
    empty_maps.write_text("")
    monkeypatch.setattr(bgq_module, "_PROC_MAPS", str(empty_maps))


@pytest.fixture
def xname_file(tmp_path, monkeypatch):
    """Write this process's xname file (MPITASKMAP_XNAME_FILE) with the text given."""
    path = tmp_path / "xname"
    monkeypatch.setenv("MPITASKMAP_XNAME_FILE", str(path))

    def _set(text: str) -> str:
        path.write_text(text)
        return str(path)

    return _set


# -- parsing ------------------------------------------------------------------------------------------------------
def test_parse_and_place():
    assert parse_xname("x1016c2s3b0n1") == (1016, 2, 3, 0, 1)
    assert parse_xname("x0c0s0b0n0") == (0, 0, 0, 0, 0)
    # switch = chassis x 8 + slot, slot on it = board x 2 + node
    assert xname_place("x1016c2s3b0n1", (8, 8, 2, 2)) == (1016, 19, 1)
    assert xname_place("x3000c7s7b1n1", (8, 8, 2, 2)) == (3000, 63, 3)
    assert xname_place("x3000c3s5b1n0", (4, 6, 2, 1)) == (3000, 23, 1)


@pytest.mark.parametrize("text", ["x1016c2s3b0", "x1016c2s3b0n1 ", "X1016C2S3B0N1", "x1016c2s3n1", "c0-0c1s3n2",
                                  "x1016c2s3b0n1x", "x-1c0s0b0n0", "x1016c2s3b0n1\nx1016c2s3b0n2", ""])
def test_parse_is_strict(text):
    with pytest.raises(InvalidInputError) as exc:
        parse_xname(text)
    assert str(exc.value) == ("expected a node xname like x1016c2s3b0n1 (x cabinet, c chassis, s slot, b board, n node); "
                              f"got {text!r}")


@pytest.mark.parametrize("text, message", [
    ("x1016c8s0b0n0", "xname 'x1016c8s0b0n0': chassis 8 lies outside the 8 chassis of a cabinet (chassis=8)"),
    ("x1016c0s8b0n0", "xname 'x1016c0s8b0n0': slot 8 lies outside the 8 compute blade slots of a chassis (slots=8)"),
    ("x1016c0s0b2n0", "xname 'x1016c0s0b2n0': board 2 lies outside the 2 node boards of a blade (boards=2)"),
    ("x1016c0s0b0n2", "xname 'x1016c0s0b0n2': node 2 lies outside the 2 nodes of a board (nodes_per_board=2)"),
])
def test_place_checks_the_shape(text, message):
    with pytest.raises(InvalidInputError) as exc:
        xname_place(text, (8, 8, 2, 2))
    assert str(exc.value) == message


# -- the provider, one process ------------------------------------------------------------------------------------
def test_locate_reads_the_file(xname_file, tmp_path, caplog):
    xname_file("x1016c2s3b0n1\n")
    p = get_provider("xname")
    assert isinstance(p, XnameProvider) and p.spec == "xname" and not p.rank_addressable
    with caplog.at_level(logging.WARNING, logger="mpitaskmap"):
        assert p.locate(3, 8) == Location((), "x1016c2s3b0n1")  # not rank 0: says nothing
        assert caplog.records == []
        assert p.locate(0, 8) == Location((), "x1016c2s3b0n1")
        p.locate(0, 8)  # once
    assert [r.getMessage() for r in caplog.records] == [
        f"xname: {XNAME_APPROXIMATION} of x1016c2s3b0n1; the machine's name says so (xname): the cxi provider "
        "(libfabric) knows the switches"]
    assert caplog.records[0].levelno == logging.WARNING
    other = tmp_path / "other"
    other.write_text("  x5c1s1b1n0  ")
    assert get_provider(f"xname:file={other}").locate(0, 1) == Location((), "x5c1s1b1n0")
    assert p.network() == xname_dragonfly_network()
    with pytest.raises(ProviderError, match="only knows the calling process"):
        machine_from_provider(p, 2)


@pytest.mark.parametrize("text, message", [
    (None, "cannot read the node's xname (No such file or directory)"),
    ("", "expected a node xname like x1016c2s3b0n1 (x cabinet, c chassis, s slot, b board, n node); got ''"),
    ("x1016c2s3b0n1 x1016c2s3b0n0", "expected a node xname like x1016c2s3b0n1 (x cabinet, c chassis, s slot, b board, "
                                    "n node); got 'x1016c2s3b0n1 x1016c2s3b0n0'"),
    ("x1016c9s3b0n1", "xname 'x1016c9s3b0n1': chassis 9 lies outside the 8 chassis of a cabinet (chassis=8)"),
    ("x" * 300, "expected one node xname; got more than 256 characters"),
])
def test_file_problems_name_the_path(tmp_path, monkeypatch, text, message):
    path = tmp_path / "xname_bad"
    if text is not None:
        path.write_text(text)
    monkeypatch.setenv("MPITASKMAP_XNAME_FILE", str(path))
    p = get_provider("xname")
    for call in (p.check, lambda: p.locate(0, 1)):
        with pytest.raises(ProviderError) as exc:
            call()
        assert str(exc.value) == f"xname: {path}: {message}"


@pytest.mark.parametrize("spec, message", [
    ("xname:slots=0", "provider 'xname:slots=0': slots must be >= 1; got 0"),
    ("xname:n_groups=1", "provider 'xname:n_groups=1': n_groups must be >= 2; got 1"),
    ("xname:bw=0", "provider 'xname:bw=0': bw must be positive; got 0"),
    ("xname:routing=adaptive", f"provider 'xname:routing=adaptive': routing must be one of "
                               f"{list(DRAGONFLY_ROUTINGS)}; got 'adaptive'"),
    ("xname:routing=valiant", "provider 'xname:routing=valiant': routing 'valiant' needs an intermediate group: pass "
                              "n_groups= (at least 3; the job's cabinets are not known to one rank)"),
    ("xname:cabinets=2", "provider 'xname:cabinets=2': unknown key 'cabinets'; valid keys: ['boards', 'bw', 'chassis', "
                         "'file', 'global_links', 'global_ports', 'n_groups', 'nodes_per_board', 'routing', 'slots']"),
])
def test_spec_errors(spec, message):
    with pytest.raises(InvalidInputError) as exc:
        get_provider(spec)
    assert str(exc.value) == message


# -- the machine from every rank's xname ------------------------------------------------------------------------------
XNAMES = ["x3000c0s0b0n0", "x3000c0s0b0n0", "x1016c2s3b0n1", "x1016c2s3b1n0", "x1016c7s7b1n1", "x1200c0s1b0n0"]


def test_machine_groups_cabinets_in_ascending_order():
    locs = [Location((), x) for x in XNAMES]
    m = assemble_machine(locs, get_provider("xname").network(), name="job")
    # cabinets 1016, 1200, 3000 -> groups 0, 1, 2; S = 64 switches, n = 4: node (g 64 + s) 4 + k
    assert isinstance(m, DragonflyMachine) and (m.n_groups, m.switches_per_group, m.nodes_per_switch) == (3, 64, 4)
    assert m.locate(range(6)).tolist() == [[2, 0, 0], [2, 0, 0], [0, 19, 1], [0, 19, 2], [0, 63, 3], [1, 1, 0]]
    assert m.node_ids.tolist() == [2 * 256, 2 * 256, 19 * 4 + 1, 19 * 4 + 2, 63 * 4 + 3, 256 + 1 * 4]
    assert m.name == f"job [{XNAME_APPROXIMATION}]"
    ref = DragonflyMachine(3, 64, 4, m.node_ids, global_links=1, bandwidth=25.0)
    src, dst = np.divmod(np.arange(36), 6)
    assert m.hops(src, dst).tolist() == ref.hops(src, dst).tolist()
    # one node 0; blade 19's two nodes 2; blades 19 and 63 of cabinet 1016 3; g2 s0 -> g0 s19: G = 3, h = 1,
    # p = ceil(3 / 64) = 1, link 0 from g2 to g0 leaves switch 0 (port 0 x 3 + 0) and arrives at switch 2 of g0:
    # up, global, local s2 -> s19, down = 4
    assert m.hops([0, 2, 2, 0], [1, 3, 4, 2]).tolist() == [0, 2, 3, 4]


def test_machine_options_and_errors():
    net = get_provider("xname:n_groups=5,global_links=2,bw=10,routing=valiant,chassis=4,slots=6,nodes_per_board=1"
                       ).network()
    assert net == NetworkInfo(kind="dragonfly", options=(
        ("xname", (4, 6, 2, 1)), ("n_groups", 5), ("global_links", 2), ("global_ports", None),
        ("bandwidth", (("node", 10.0), ("local", 10.0), ("global", 10.0))), ("routing", "valiant")))
    assert describe_network("xname", net).startswith("provider 'xname' (dragonfly network xname=(4, 6, 2, 1) "
                                                     "n_groups=5 global_links=2")
    m = assemble_machine([Location((), "x9c3s5b1n0"), Location((), "x2c0s0b0n0")], net, name="job")
    # 24 switches of 2 nodes: x9 -> group 1, switch 3 x 6 + 5 = 23, slot 1 x 1 + 0 = 1
    assert (m.n_groups, m.switches_per_group, m.nodes_per_switch, m.routing) == (5, 24, 2, "valiant")
    assert m.locate([0, 1]).tolist() == [[1, 23, 1], [0, 0, 0]]
    one = assemble_machine([Location((), "x1016c0s0b0n0")], xname_dragonfly_network(), name="one")
    assert one.n_groups == 2  # one cabinet: the machine class needs two groups
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine([Location((), f"x{c}c0s0b0n0") for c in (1, 2, 3)], xname_dragonfly_network(n_groups=2),
                         name="job")
    assert str(exc.value) == "locations: the job's nodes are in 3 cabinets (x1 .. x3) but the network has n_groups=2 groups"
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine([Location((), "x1c0s0b0n0"), Location((), "x1c0s0b0")], xname_dragonfly_network(), name="j")
    assert str(exc.value) == ("locations: rank 1: expected a node xname like x1016c2s3b0n1 (x cabinet, c chassis, s slot, "
                              "b board, n node); got 'x1c0s0b0'")
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine([Location((), "x1c0s0b0n0"), Location((), "x01c0s0b0n0")], xname_dragonfly_network(),
                         name="j")
    assert str(exc.value) == ("locations: ranks 0 and 1 are on nodes 'x1c0s0b0n0' and 'x01c0s0b0n0' but report the same "
                              "(group, switch, slot) (0, 0, 0)")


@pytest.mark.parametrize("kwargs, message", [
    (dict(dims=(3, 64, 4)), "dims: a dragonfly network from xnames has no dimensions (node keys are xnames); got "
                            "[3, 64, 4]"),
    (dict(drop="n_groups"), "options: a dragonfly network from xnames needs ['xname', 'n_groups', 'global_links', "
                            "'global_ports', 'bandwidth', 'routing']; 'n_groups' is missing"),
    (dict(extra=("switches", 3)), "options: unknown key 'switches' of a dragonfly network from xnames; valid: ['xname', "
                                  "'n_groups', 'global_links', 'global_ports', 'bandwidth', 'routing']"),
])
def test_network_info_rejects(kwargs, message):
    options = xname_dragonfly_network().options
    options = tuple(kv for kv in options if kv[0] != kwargs.get("drop")) + ((kwargs["extra"],) if "extra" in kwargs
                                                                            else ())
    with pytest.raises(InvalidInputError) as exc:
        NetworkInfo(kind="dragonfly", dims=kwargs.get("dims", ()), options=options)
    assert str(exc.value) == message


def test_auto_takes_xname_after_cxi(xname_file):
    xname_file("x1016c2s3b0n1")
    p = get_provider()
    assert isinstance(p, XnameProvider) and p.spec == "xname"
    assert [name for name, _ in p.probes] == list(AUTO_ORDER[:AUTO_ORDER.index("xname") + 1])
    assert dict(p.probes)["cxi"].startswith("cxi (libfabric): no usable library; tried: ")
    xname_file("c0-0c1s3n2")  # not an xname: recorded, and on to the host name
    p = get_provider()
    assert p.name == "hostname" and dict(p.probes)["xname"].endswith("got 'c0-0c1s3n2'")


# -- under mpiexec: every rank its own xname ----------------------------------------------------------------------------
def xname_of(rank: int) -> str:
    """Two ranks per node; node k in cabinet 1000 + 10 (k // 4), chassis k % 4 // 2, slot 0, board 0, node k % 2."""
    k = rank // 2
    return f"x{1000 + 10 * (k // 4)}c{k % 4 // 2}s0b0n{k % 2}"


def hand_hops(a: int, b: int) -> int:
    """Minimal hops of the default xname network (switch = chassis x 8 + slot: 0 or 8, one global link per pair,
    p = 1: link 0 from group x to y leaves switch y and arrives at switch x, SimGrid's rule)."""
    ka, kb = a // 2, b // 2
    ga, sa, gb, sb = ka // 4, 8 * (ka % 4 // 2), kb // 4, 8 * (kb % 4 // 2)
    if ka == kb:
        return 0
    if ga == gb:
        return 2 if sa == sb else 3
    return 3 + int(sa != gb) + int(ga != sb)


@pytest.mark.mpi(min_size=2)
def test_mpi_every_rank_builds_the_same_machine_and_remaps(xname_file):
    from mpitaskmap import remap

    comm = world()
    n = comm.size
    xname_file(xname_of(comm.rank))
    m = gathered_machine(comm, get_provider("xname"))
    a, b = np.divmod(np.arange(n * n), n)
    assert isinstance(m, DragonflyMachine) and m.n_groups == max(2, (n // 2 + 3) // 4)
    assert m.hops(a, b).tolist() == [hand_hops(int(x), int(y)) for x, y in zip(a, b)]
    new, rep = remap(comm, (float(comm.rank % 2), float(comm.rank // 2)), provider="xname", report=True)
    try:
        assert all_same(comm, (rep.status, rep.machine, rep.new_rank_of, rep.winner)) and rep.error == ""
        assert rep.machine == f"xname ({n} ranks) [{XNAME_APPROXIMATION}]"
        assert sorted(rep.new_rank_of) == list(range(n)) and new.rank == rep.new_rank_of[comm.rank]
    finally:
        new.Free()


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_a_rank_with_a_bad_xname_ends_like_every_other(xname_file, on_error):
    comm = world()
    path = xname_file(xname_of(comm.rank) if comm.rank != 1 else "x1000c0s0b0")
    outcome = run_remap(comm, "xname", on_error)
    assert all_same(comm, outcome)
    bad = ("provider: rank 1: ProviderError: xname: " + comm.bcast(path, root=1) + ": expected a node xname like "
           "x1016c2s3b0n1 (x cabinet, c chassis, s slot, b board, n node); got 'x1000c0s0b0'")
    assert outcome == (("raised", bad) if on_error == "raise" else ("returned", "identity", bad, True))
    # auto: rank 1 lands on the host name, the others take xname: the network check says so
    outcome = run_remap(comm, None, on_error)
    assert all_same(comm, outcome)
    message = outcome[1] if on_error == "raise" else outcome[2]
    assert message.startswith("provider: rank 1 reports provider 'hostname' (flat network) but rank 0 reports provider "
                              "'xname' (dragonfly network xname=(8, 8, 2, 2) n_groups=None ")
