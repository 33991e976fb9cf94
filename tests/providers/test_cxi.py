"""The ``cxi`` provider (HPE Slingshot through libfabric's CXI provider) against a fake libfabric.

tests/fakes/fake_libfabric.c, compiled at test time, exports fi_version / fi_getinfo /
fi_freeinfo / fi_fabric with libfabric 1.x's layouts and reaches fi_domain, fi_open_ops
("dom_ops_v1": cntr_read, topology) and fi_close through the function tables, as the real
headers' inline functions do; each rank's NICs and their addresses come from its own
environment (FAKE_CXI_NICS), so the MPI tests (``-m mpi`` under ``mpiexec -n 4`` and ``-n 16``)
give every rank its own NIC and check that every rank builds the same machine and ends
``remap()`` the same way when one rank's library has no NIC.

Addresses: group g, switch s, port p is the NIC address ``g << 11 | s << 6 | p``.
"""

from __future__ import annotations

import ctypes
import logging

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, ProviderError
from mpitaskmap.machines import DragonflyMachine
from mpitaskmap.providers import (AUTO_ORDER, CxiProvider, Location, NetworkInfo, assemble_machine, get_provider,
                                  machine_from_provider)
from mpitaskmap.providers import bgq as bgq_module
from mpitaskmap.providers import cxi as cxi_module
from mpitaskmap.machines.dragonfly import dragonfly_network
from mpitaskmap.providers.cxi import CxiNic, decode_nic_address
from mpi_helpers import all_same, gathered_machine, run_remap, world

ENV_VARS = ("MPITASKMAP_PROVIDER", "MPITASKMAP_COORDS_FILE", "MPITASKMAP_RCA_LIB", "MPITASKMAP_BGQ_LIB",
            "MPITASKMAP_FJMPI_LIB", "MPITASKMAP_CXI_LIB", "MPITASKMAP_CXI_NIC", "SLURM_TOPOLOGY_ADDR",
            "SLURM_TOPOLOGY_ADDR_PATTERN", "FAKE_CXI_NICS", "FAKE_CXI_GETINFO_RC", "FAKE_CXI_TOPOLOGY",
            "FAKE_CXI_NO_ADDR", "MPITASKMAP_DISABLE")
#: 3 groups of 3 switches, 4 ports each, 2 global links per pair of groups.
SMALL = "cxi:n_groups=3,switches=3,nodes_per_switch=4,global_links=2"


def addr(group: int, switch: int, port: int) -> int:
    return group << 11 | switch << 6 | port


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No provider variable from the caller's shell; no Cray nid file, xname file or BG/Q library."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", str(tmp_path / "no_nid"))
    monkeypatch.setenv("MPITASKMAP_XNAME_FILE", str(tmp_path / "no_xname"))
    empty_maps = tmp_path / "empty_maps"
    empty_maps.write_text("")
    monkeypatch.setattr(bgq_module, "_PROC_MAPS", str(empty_maps))


@pytest.fixture
def fabric(build, monkeypatch):
    """The fake libfabric, as MPITASKMAP_CXI_LIB; returns its path."""
    path = build("fake_libfabric.c", "libfabric_fake.so.1")
    monkeypatch.setenv("MPITASKMAP_CXI_LIB", path)
    return path


def live_objects(path: str) -> int:
    """fi_info lists, fabrics and domains of the fake not yet freed or closed."""
    return ctypes.CDLL(path).fake_cxi_live_objects()


def on_host(monkeypatch, host: str, nics: str) -> None:
    """Be a process on ``host`` whose libfabric lists ``nics``."""
    monkeypatch.setattr(cxi_module.socket, "gethostname", lambda: host)
    monkeypatch.setenv("FAKE_CXI_NICS", nics)


# -- the NIC address ---------------------------------------------------------------------------------------------
def test_decode_nic_address_bit_fields():
    # 0x2A1C5 = 0b 0_0101_0100 | 0_0111 | 00_0101: group 84, switch 7, port 5
    assert decode_nic_address(0x2A1C5) == (84, 7, 5)
    assert decode_nic_address(0) == (0, 0, 0)
    assert decode_nic_address(0xFFFFF) == (511, 31, 63)
    assert decode_nic_address(addr(73, 31, 15)) == (73, 31, 15)
    for bad in (-1, 1 << 20, True, 3.0):
        with pytest.raises(InvalidInputError, match=r"^nic_addr: expected a 20-bit NIC address; got "):
            decode_nic_address(bad)


# -- one process --------------------------------------------------------------------------------------------------
def test_rank_0_warns_of_an_assumed_shape(fabric, monkeypatch, caplog):
    on_host(monkeypatch, "h", f"cxi0={addr(5, 3, 1)}")
    with caplog.at_level(logging.WARNING, logger="mpitaskmap"):
        p = get_provider("cxi")
        p.locate(1, 2)
        p.locate(0, 2)
        p.locate(0, 2)
        get_provider("cxi:preset=frontier").locate(0, 2)  # said: nothing to warn of
    assert [r.getMessage() for r in caplog.records] == [
        "cxi: the network's shape is not in the NIC address; assumed preset frontier: 74 groups of 32 switches, 4 "
        "global links per pair of groups (say it in the spec, e.g. MPITASKMAP_PROVIDER=cxi:preset=perlmutter or "
        "cxi:n_groups=,switches=,global_links=)"]


def test_topology_call_gives_the_place_and_closes_everything(fabric, monkeypatch):
    on_host(monkeypatch, "nid001234", "cxi0=0x2a1c5,cxi1=0x2a1c6")
    p = get_provider("cxi:n_groups=100")
    assert isinstance(p, CxiProvider) and not p.rank_addressable and p.spec == "cxi:n_groups=100"
    assert p.locate(0, 4) == Location((84, 7, 5), "nid001234/cxi0")  # the first NIC listed
    assert p.last_nic == CxiNic("cxi0", 0x2A1C5, 84, 7, 5, "topology", "")
    assert get_provider("cxi:n_groups=100,nic=cxi1").locate(1, 4) == Location((84, 7, 6), "nid001234/cxi1")
    monkeypatch.setenv("MPITASKMAP_CXI_NIC", "cxi1")
    assert p.locate(1, 4).node == "nid001234/cxi1"
    # the call answers, not the address: a provider that knows better than the bit fields wins
    monkeypatch.setenv("FAKE_CXI_TOPOLOGY", "1,2,3")
    assert p.locate(2, 4).coords == (1, 2, 3) and p.last_nic.source == "topology"
    assert live_objects(fabric) == 0  # every fi_info list freed, every fabric and domain closed


@pytest.mark.parametrize("mode, note", [
    ("no_ops", 'fi_open_ops("dom_ops_v1") on NIC cxi0 returned -22 (Invalid argument)'),
    ("null", "the dom_ops_v1 extension of NIC cxi0 has no topology call"),
    ("no_domain", "fi_domain on NIC cxi0 returned -22 (Invalid argument)"),
    ("fail", "the topology call on NIC cxi0 returned -22 (Invalid argument)"),
])
def test_address_decoding_when_the_topology_call_is_unavailable(fabric, monkeypatch, mode, note):
    on_host(monkeypatch, "h", "cxi0=0x2a1c5")
    monkeypatch.setenv("FAKE_CXI_TOPOLOGY", mode)
    p = get_provider("cxi:n_groups=100")
    assert p.locate(0, 1) == Location((84, 7, 5), "h/cxi0")
    assert p.last_nic == CxiNic("cxi0", 0x2A1C5, 84, 7, 5, "address", note)
    with pytest.raises(ProviderError) as exc:
        get_provider("cxi:n_groups=100,source=topology").locate(0, 1)
    assert str(exc.value) == f"cxi: {note}"
    assert live_objects(fabric) == 0


def test_source_address_opens_nothing_and_no_address_is_an_error(fabric, monkeypatch):
    on_host(monkeypatch, "h", "cxi0=0x2a1c5")
    monkeypatch.setenv("FAKE_CXI_TOPOLOGY", "1,2,3")  # would say otherwise if it were asked
    p = get_provider("cxi:n_groups=100,source=address")
    assert p.locate(0, 1).coords == (84, 7, 5) and p.last_nic.source == "address"
    # an fi_info without a source address: nothing to decode, and no domain opens on it (as cxip_domain refuses it)
    monkeypatch.setenv("FAKE_CXI_NO_ADDR", "1")
    with pytest.raises(ProviderError) as exc:
        p.locate(0, 1)
    assert str(exc.value) == "cxi: NIC cxi0 has no FI_ADDR_CXI source address to decode (address format 0, 0 bytes)"
    with pytest.raises(ProviderError) as exc:
        get_provider("cxi").locate(0, 1)
    assert str(exc.value) == ("cxi: fi_domain on NIC cxi0 returned -22 (Invalid argument); NIC cxi0 has no "
                              "FI_ADDR_CXI source address to decode (address format 0, 0 bytes)")
    assert live_objects(fabric) == 0


def test_failures_name_what_is_missing(fabric, monkeypatch, tmp_path):
    on_host(monkeypatch, "h", "")
    p = get_provider("cxi")
    for call in (p.check, lambda: p.locate(0, 1)):
        with pytest.raises(ProviderError) as exc:
            call()
        assert str(exc.value) == (f"cxi: libfabric ({fabric}) lists no CXI NIC (providers: tcp, shm): not an HPE "
                                  "Slingshot node")
    on_host(monkeypatch, "h", "cxi0=0x2a1c5,cxi1=0x2a1c6")
    with pytest.raises(ProviderError) as exc:
        get_provider("cxi:nic=cxi3").locate(0, 1)
    assert str(exc.value) == f"cxi: no CXI NIC named 'cxi3'; libfabric ({fabric}) lists ['cxi0', 'cxi1']"
    # the default shape is Frontier's: 74 groups
    with pytest.raises(ProviderError) as exc:
        get_provider("cxi").locate(3, 8)
    assert str(exc.value) == ("cxi: rank 3: NIC cxi0, NIC address 0x2a1c5 is on group 84 (from the topology call), "
                              "outside the 74 of the network (n_groups=74, preset frontier): pass n_groups= in the spec")
    monkeypatch.setenv("FAKE_CXI_TOPOLOGY", "no_ops")
    with pytest.raises(ProviderError, match=r"port 5 \(from its NIC address\), outside the 4 of the network "
                                            r"\(nodes_per_switch=4, preset frontier\)"):
        get_provider("cxi:n_groups=100,nodes_per_switch=4").check()
    monkeypatch.setenv("FAKE_CXI_GETINFO_RC", "-61")
    with pytest.raises(ProviderError) as exc:
        get_provider("cxi").check()
    assert str(exc.value) == f"cxi: fi_getinfo returned -61 (No data available) (library {fabric})"
    monkeypatch.setenv("MPITASKMAP_CXI_LIB", str(tmp_path / "libfabric_missing.so"))
    with pytest.raises(ProviderError, match=rf"^cxi \(libfabric\): no usable library; tried: {tmp_path}/"):
        get_provider("cxi").check()
    assert live_objects(fabric) == 0


# -- the network and the machine -----------------------------------------------------------------------------------
def test_network_of_the_presets_and_options():
    frontier = get_provider("cxi").network()
    assert frontier == NetworkInfo(dims=(74, 32, 64), kind="dragonfly", options=(
        ("switches", 32), ("global_links", 4), ("global_ports", 10),
        ("bandwidth", (("node", 25.0), ("local", 25.0), ("global", 25.0))), ("routing", "minimal")))
    # Perlmutter: 12 groups, 13 links per pair: ceil(12 x 13 / 32) = 5 ports per switch
    p = get_provider("cxi:preset=perlmutter,nodes_per_switch=16,bw=50,routing=valiant")
    assert p.network() == dragonfly_network(DragonflyMachine(12, 32, 16, [0], global_links=13, bandwidth=50.0,
                                                             routing="valiant"))
    assert dict(p.network().options)["global_ports"] == 5
    assert get_provider(SMALL).network().dims == (3, 3, 4)


@pytest.mark.parametrize("spec, message", [
    ("cxi:preset=aries", "provider 'cxi:preset=aries': preset must be one of ['frontier', 'perlmutter']; got 'aries'"),
    ("cxi:source=sysfs", "provider 'cxi:source=sysfs': source must be one of ['auto', 'topology', 'address']; got "
                         "'sysfs'"),
    ("cxi:switches=6x16", "provider 'cxi:switches=6x16': switches must be an integer; got '6x16'"),
    ("cxi:n_groups=1", "provider 'cxi:n_groups=1': n_groups must be >= 2; got 1"),
    ("cxi:bw=-1", "provider 'cxi:bw=-1': bw must be positive; got -1"),
    ("cxi:global_links=40,global_ports=10", "provider 'cxi:global_links=40,global_ports=10': global_ports: 32 "
                                            "switches x 10 ports hold 320 of the 74 x 40 = 2960 global port numbers a "
                                            "group needs (module notes); got 10"),
    ("cxi:n_groups=2,routing=valiant", "provider 'cxi:n_groups=2,routing=valiant': routing: 'valiant' needs an "
                                       "intermediate group, i.e. n_groups >= 3; got 2"),
    ("cxi:group=3", "provider 'cxi:group=3': unknown key 'group'; valid keys: ['bw', 'global_links', 'global_ports', "
                    "'lib', 'n_groups', 'nic', 'nodes_per_switch', 'preset', 'routing', 'source', 'switches']"),
])
def test_spec_errors(spec, message):
    with pytest.raises(InvalidInputError) as exc:
        get_provider(spec)
    assert str(exc.value) == message


def test_machine_from_every_ranks_nic(fabric, monkeypatch):
    """Five ranks: two on one NIC, a host's second NIC, another switch, another group."""
    p = get_provider(SMALL)
    ranks = [("a", f"cxi0={addr(0, 0, 0)}", None), ("a", f"cxi0={addr(0, 0, 0)}", None),
             ("a", f"cxi0={addr(0, 0, 0)},cxi1={addr(0, 0, 1)}", "cxi1"), ("b", f"cxi0={addr(0, 1, 3)}", None),
             ("c", f"cxi0={addr(2, 2, 0)}", None)]
    locs = []
    for r, (host, nics, nic) in enumerate(ranks):
        on_host(monkeypatch, host, nics)
        if nic:
            monkeypatch.setenv("MPITASKMAP_CXI_NIC", nic)
        else:
            monkeypatch.delenv("MPITASKMAP_CXI_NIC", raising=False)
        locs.append(p.locate(r, len(ranks)))
    assert [loc.node for loc in locs] == ["a/cxi0", "a/cxi0", "a/cxi1", "b/cxi0", "c/cxi0"]
    m = assemble_machine(locs, p.network(), name="job")
    # node numbers (g S + s) n + k with S = 3, n = 4: 0, 0, 1, (0 + 1) 4 + 3 = 7, (6 + 2) 4 + 0 = 32
    assert m.node_ids.tolist() == [0, 0, 1, 7, 32]
    ref = DragonflyMachine(3, 3, 4, [0, 0, 1, 7, 32], global_links=2, bandwidth=25.0)
    src, dst = np.divmod(np.arange(25), 5)
    assert m.hops(src, dst).tolist() == ref.hops(src, dst).tolist()
    # one NIC 0; a host's two NICs on one switch 2; another switch of the group 3; g0 s0 -> g2 s2: p = ceil(3 x 2 / 3)
    # = 2, link j leaves switch (3 j + 2) // 2 = 1, 2 of g0 and arrives at (3 j + 0) // 2 = 0, 1 of g2: a local hop on
    # both sides either way, 2 + 1 + 2 = 5
    assert m.hops([0, 0, 0, 0], [1, 2, 3, 4]).tolist() == [0, 2, 3, 5]
    with pytest.raises(ProviderError, match="only knows the calling process"):
        machine_from_provider(p, 5)
    # two hosts claiming one port: caught when the machine is assembled
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine([locs[0], Location((0, 0, 0), "d/cxi0")], p.network(), name="job")
    assert str(exc.value) == ("locations: ranks 0 and 1 are on nodes 'a/cxi0' and 'd/cxi0' but report the same "
                              "(group, switch, slot) (0, 0, 0)")


def test_auto_takes_cxi_after_the_torus_vendors_and_before_xname(fabric, monkeypatch, tmp_path):
    on_host(monkeypatch, "h", "cxi0=0x2a1c5")
    monkeypatch.setenv("FAKE_CXI_TOPOLOGY", "1,2,3")
    p = get_provider()
    assert isinstance(p, CxiProvider) and p.spec == "cxi"
    assert [name for name, _ in p.probes] == list(AUTO_ORDER[:AUTO_ORDER.index("cxi") + 1])
    assert p.probes[-1] == ("cxi", "selected") and p.locate(0, 1).coords == (1, 2, 3)
    # a NIC outside the default shape is a reason to move on, recorded
    monkeypatch.delenv("FAKE_CXI_TOPOLOGY")
    p = get_provider()
    assert p.name == "hostname" and dict(p.probes)["cxi"].startswith("cxi: NIC cxi0, NIC address 0x2a1c5 is on group "
                                                                     "84 (from the topology call), outside the 74")
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "cxi:n_groups=100")
    assert get_provider().locate(0, 1).coords == (84, 7, 5)


# -- under mpiexec: every rank its own NIC ------------------------------------------------------------------------------
def place_of(rank: int) -> tuple[int, int, int]:
    """Two ranks per node (one NIC); node k on group k // 3, switch k % 3, port 1."""
    k = rank // 2
    return k // 3, k % 3, 1


def hand_hops(a: int, b: int) -> int | None:
    """Hops inside a group of SMALL (0 on one node, 3 across a local link); None between groups (the machine's routing
    decides which of the 2 global links: compared with a DragonflyMachine built directly)."""
    (ga, _, _), (gb, _, _) = place_of(a), place_of(b)
    if a // 2 == b // 2:
        return 0
    return 3 if ga == gb else None


def be_rank(monkeypatch, rank: int) -> None:
    on_host(monkeypatch, f"host{rank // 2}", f"cxi0={addr(*place_of(rank))}")


@pytest.mark.mpi(min_size=2)
def test_mpi_every_rank_builds_the_same_machine_and_remaps(fabric, monkeypatch):
    from mpitaskmap import remap

    comm = world()
    n = comm.size
    if n > 18:
        pytest.skip("SMALL holds 9 nodes of 2 ranks")
    be_rank(monkeypatch, comm.rank)
    m = gathered_machine(comm, get_provider(SMALL))
    a, b = np.divmod(np.arange(n * n), n)
    assert isinstance(m, DragonflyMachine) and m.n_groups == 3
    # node (g 3 + s) 4 + 1 of every rank
    assert m.node_ids.tolist() == [(g * 3 + s) * 4 + p for g, s, p in map(place_of, range(n))]
    ref = DragonflyMachine(3, 3, 4, m.node_ids, global_links=2, bandwidth=25.0)
    hops, ref_hops = m.hops(a, b).tolist(), ref.hops(a, b).tolist()
    hand = [hand_hops(int(x), int(y)) for x, y in zip(a, b)]
    assert [h if e is None else e for h, e in zip(hops, hand)] == hops == ref_hops
    assert all_same(comm, (m.node_ids.tolist(), m.name))
    new, rep = remap(comm, (float(comm.rank % 2), float(comm.rank // 2)), provider=SMALL, report=True)
    try:
        assert all_same(comm, (rep.status, rep.provider, rep.machine, rep.new_rank_of, rep.winner))
        assert rep.error == "" and rep.machine == f"{SMALL} ({n} ranks)" and sorted(rep.new_rank_of) == list(range(n))
        assert new.rank == rep.new_rank_of[comm.rank]
    finally:
        new.Free()
    assert live_objects(fabric) == 0


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_a_rank_without_a_nic_ends_like_every_other(fabric, monkeypatch, on_error):
    comm = world()
    if comm.size > 18:
        pytest.skip("SMALL holds 9 nodes of 2 ranks")
    be_rank(monkeypatch, comm.rank)
    if comm.rank == 1:
        monkeypatch.setenv("FAKE_CXI_NICS", "")
    outcome = run_remap(comm, SMALL, on_error)
    assert all_same(comm, outcome)
    head, tail = "provider: rank 1: ProviderError: cxi: libfabric (", ") lists no CXI NIC (providers: tcp, shm): not " \
                                                                      "an HPE Slingshot node"
    if on_error == "raise":
        assert outcome[0] == "raised"
        message = outcome[1]
    else:  # every rank keeps its rank
        assert outcome[:2] == ("returned", "identity") and outcome[3] is True
        message = outcome[2]
    assert message.startswith(head) and message.endswith(tail)
    # auto: rank 1 skips cxi and lands on the host name, the others take cxi: the network check says so
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "auto")
    monkeypatch.setenv("FAKE_CXI_TOPOLOGY", "0,0,1" if comm.rank != 1 else "fail")
    outcome = run_remap(comm, None, on_error)
    assert all_same(comm, outcome)
    message = outcome[1] if on_error == "raise" else outcome[2]
    assert message.startswith("provider: rank 1 reports provider 'hostname' (flat network) but rank 0 reports provider "
                              "'cxi' (dragonfly network 74x32x64 switches=32 global_links=4 global_ports=10 ")
