"""The ``fjmpi`` provider (Fujitsu Tofu through FJMPI_Topology_get_coords) against a fake MPI extension.

tests/fakes/fake_fjmpi.c, compiled at test time with MPI_Comm as the MPI library under mpi4py
has it (an int or a pointer), exports FJMPI_Topology_get_coords and refuses any communicator
but MPI_COMM_WORLD's handle (FAKE_FJMPI_WORLD).  Its Tofu: two ranks a node, node k at
a, b, c = k % 12 // 6, k % 12 // 2 % 3, k % 2 within unit w = k // 12 at x = 1 + w % 2, y = 2,
z = w // 2.  The MPI tests (``-m mpi`` under ``mpiexec -n 4`` and ``-n 16``) check every rank
builds the same torus and ends ``remap()`` the same way when one rank's library fails.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, ProviderError, TorusMachine
from mpitaskmap.providers import (AUTO_ORDER, FjmpiProvider, Location, NetworkInfo, get_provider,
                                  machine_from_provider)
from mpitaskmap.providers import bgq as bgq_module
from mpitaskmap.providers.fjmpi import FJMPI_TOFU_SYS, TOFU_DIM_NAMES
from mpi_helpers import all_same, gathered_machine, run_remap, world

ENV_VARS = ("MPITASKMAP_PROVIDER", "MPITASKMAP_COORDS_FILE", "MPITASKMAP_RCA_LIB", "MPITASKMAP_BGQ_LIB",
            "MPITASKMAP_FJMPI_LIB", "MPITASKMAP_FJMPI_SHAPE", "SLURM_TOPOLOGY_ADDR", "SLURM_TOPOLOGY_ADDR_PATTERN",
            "FAKE_FJMPI_FAIL", "FAKE_FJMPI_PPN", "MPITASKMAP_DISABLE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No provider variable from the caller's shell; no Cray nid file, xname, libfabric or mapped libmpi."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", str(tmp_path / "no_nid"))
    monkeypatch.setenv("MPITASKMAP_XNAME_FILE", str(tmp_path / "no_xname"))
    monkeypatch.setenv("MPITASKMAP_CXI_LIB", str(tmp_path / "no_libfabric.so"))
    empty_maps = tmp_path / "empty_maps"
    empty_maps.write_text("")
    monkeypatch.setattr(bgq_module, "_PROC_MAPS", str(empty_maps))


def comm_type() -> str:
    from mpi4py import MPI

    return "int" if MPI._sizeof(MPI.Comm) == 4 else "void *"


@pytest.fixture
def fake_fjmpi(build, monkeypatch):
    """The fake extension as MPITASKMAP_FJMPI_LIB, told MPI_COMM_WORLD's handle; returns its path."""
    from mpi4py import MPI

    # not named libmpi*: once loaded, it stays mapped in this process, where another test's auto-detection would find
    # it among the mapped MPI libraries (test_auto_finds_the_extension_in_the_mapped_libmpi names it so, by a link)
    path = build("fake_fjmpi.c", "libfakefjmpi.so", f"FAKE_COMM_T={comm_type()}")
    monkeypatch.setenv("MPITASKMAP_FJMPI_LIB", path)
    monkeypatch.setenv("FAKE_FJMPI_WORLD", str(MPI._handleof(MPI.COMM_WORLD)))
    return path


def tofu(rank: int, ppn: int = 2) -> tuple[int, ...]:
    """(x, y, z, a, b, c) of the fake's rank (module notes)."""
    k = rank // ppn
    u, w = k % 12, k // 12
    return 1 + w % 2, 2, w // 2, u // 6, u // 2 % 3, u % 2


# -- one process ------------------------------------------------------------------------------------------------------
def test_locations_bounding_box_and_machine(fake_fjmpi):
    p = get_provider("fjmpi")
    assert isinstance(p, FjmpiProvider) and p.rank_addressable and p.spec == "fjmpi"
    assert [p.locate(r, 96) for r in (0, 1, 2, 7, 23, 24)] == [
        Location((1, 2, 0, 0, 0, 0), "tofu-1.2.0.0.0.0"), Location((1, 2, 0, 0, 0, 0), "tofu-1.2.0.0.0.0"),
        Location((1, 2, 0, 0, 0, 1), "tofu-1.2.0.0.0.1"), Location((1, 2, 0, 0, 1, 1), "tofu-1.2.0.0.1.1"),
        Location((1, 2, 0, 1, 2, 1), "tofu-1.2.0.1.2.1"), Location((2, 2, 0, 0, 0, 0), "tofu-2.2.0.0.0.0")]
    assert [p.coords(r) for r in range(0, 96, 7)] == [tofu(r) for r in range(0, 96, 7)]
    # the whole fake (48 nodes): x in 1..2, y = 2, z in 0..1: X, Y, Z = 3, 3, 2, a mesh; a, b, c = 2, 3, 2, b wraps
    assert p.network(size=96) == NetworkInfo(dims=(3, 3, 2, 2, 3, 2), wrap=(False, False, False, False, True, False),
                                             bandwidth=6.8, dim_names=TOFU_DIM_NAMES)
    assert p.network().dims == (3, 3, 2, 2, 3, 2)  # the size of the last locate
    assert p.network(size=8).dims == (2, 3, 1, 2, 3, 2)
    m = machine_from_provider(p, 24)  # one Tofu unit, 12 nodes
    assert isinstance(m, TorusMachine) and m.n_nodes == 12 and m.dim_names == list(TOFU_DIM_NAMES)
    # one node 0; c 1; b 0 -> 2 around the ring of 3: 1; a 1; a, b (0 -> 2), c all differ: 3
    assert m.hops([0, 0, 0, 0, 0], [1, 2, 8, 12, 22]).tolist() == [0, 1, 1, 1, 3]
    assert np.unique(m.link_bandwidth[4]).tolist() == [6.8]


def test_shape_and_wrap(fake_fjmpi, monkeypatch):
    p = get_provider("fjmpi:shape=24x23x24")
    assert p.network() == NetworkInfo(dims=(24, 23, 24, 2, 3, 2), wrap=(True, True, True, False, True, False),
                                      bandwidth=6.8, dim_names=TOFU_DIM_NAMES)
    assert get_provider("fjmpi:shape=24x23x24,wrap=1x0x1").network().wrap == (True, False, True, False, True, False)
    assert get_provider("fjmpi:wrap=1").network(size=4).wrap == (True, True, True, False, True, False)
    monkeypatch.setenv("MPITASKMAP_FJMPI_SHAPE", "4x4x4")
    assert FjmpiProvider().network().dims == (4, 4, 4, 2, 3, 2)
    monkeypatch.setenv("MPITASKMAP_FJMPI_SHAPE", "4x4")
    with pytest.raises(InvalidInputError, match=r"^provider fjmpi \(MPITASKMAP_FJMPI_SHAPE\): shape needs 3 lengths"):
        FjmpiProvider()
    with pytest.raises(ProviderError) as exc:
        get_provider("fjmpi:shape=1x3x3").locate(0, 2)
    assert str(exc.value) == "fjmpi: rank 0 is at x=1, outside shape 1x3x3"


def test_the_call_failing_or_answering_wrong(fake_fjmpi, build, monkeypatch, tmp_path):
    def message(spec="fjmpi", rank=0):
        with pytest.raises(ProviderError) as exc:
            get_provider(spec).locate(rank, 100)
        return str(exc.value)

    call = "fjmpi: FJMPI_Topology_get_coords(MPI_COMM_WORLD, {}, view={}, 6)"
    assumed = f"library {fake_fjmpi}; view {FJMPI_TOFU_SYS} is the assumed FJMPI_TOFU_SYS, view= sets another"
    assert message(rank=96) == f"{call.format(96, 1)} returned 5 ({assumed})"
    assert message("fjmpi:view=7") == f"{call.format(0, 7)} returned 3 (library {fake_fjmpi}; view 7 as given for " \
                                      "FJMPI_TOFU_SYS)"
    # the logical view writes one entry
    assert message("fjmpi:view=0") == (f"{call.format(0, 0)} wrote entries [0]; expected exactly 0..5 (x, y, z, a, b, "
                                       f"c): is view 0 FJMPI_TOFU_SYS? (library {fake_fjmpi})")
    assert get_provider("fjmpi:view=2").coords(24) == (1, 0, 0, 0, 0, 0)  # FJMPI_TOFU_REL: relative to the job
    monkeypatch.setenv("FAKE_FJMPI_FAIL", "1")
    assert message() == f"{call.format(0, 1)} returned 1 ({assumed})"
    monkeypatch.delenv("FAKE_FJMPI_FAIL")
    world_handle = os.environ["FAKE_FJMPI_WORLD"]
    monkeypatch.setenv("FAKE_FJMPI_WORLD", "12345")  # not the handle passed: the fake refuses the communicator
    assert message() == f"{call.format(0, 1)} returned 2 ({assumed})"
    monkeypatch.setenv("FAKE_FJMPI_WORLD", world_handle)
    bad = build("fake_fjmpi.c", "libfakefjmpi_bad.so", f"FAKE_COMM_T={comm_type()}", "FAKE_BAD_UNIT")
    monkeypatch.setenv("MPITASKMAP_FJMPI_LIB", bad)
    assert message() == (f"{call.format(0, 1)} gave (1, 2, 0, 0, 3, 0): b=3 is not a Tofu coordinate (a, b, c lie in "
                         "2 x 3 x 2, x, y, z are >= 0)")
    monkeypatch.setenv("MPITASKMAP_FJMPI_LIB", str(tmp_path / "libmpi_missing.so"))
    assert message().startswith(f"fjmpi (FJMPI_Topology_get_coords): no usable library; tried: {tmp_path}/")
    with pytest.raises(ProviderError) as exc:
        FjmpiProvider(lib=fake_fjmpi).network()
    assert str(exc.value) == ("fjmpi: torus lengths unknown: pass shape=XxYxZ (Fugaku: 24x23x24), set "
                              "MPITASKMAP_FJMPI_SHAPE, or pass size= so the job's bounding box can be computed")


@pytest.mark.parametrize("spec, message", [
    ("fjmpi:shape=4x4", "provider 'fjmpi:shape=4x4': shape needs 3 lengths like 4x4x4; got '4x4'"),
    ("fjmpi:wrap=1x0", "provider 'fjmpi:wrap=1x0': wrap needs 1 or 3 flags"),
    ("fjmpi:view=sys", "provider 'fjmpi:view=sys': view must be an integer; got 'sys'"),
    ("fjmpi:dims=4x4x4", "provider 'fjmpi:dims=4x4x4': unknown key 'dims'; valid keys: ['lib', 'shape', 'view', "
                         "'wrap']"),
])
def test_spec_errors(spec, message):
    with pytest.raises(InvalidInputError) as exc:
        get_provider(spec)
    assert message in str(exc.value)


def test_auto_finds_the_extension_in_the_mapped_libmpi(fake_fjmpi, monkeypatch, tmp_path):
    p = get_provider()
    assert isinstance(p, FjmpiProvider) and p.probes[-1] == ("fjmpi", "selected")
    assert [name for name, _ in p.probes] == list(AUTO_ORDER[:AUTO_ORDER.index("fjmpi") + 1])
    # without the variable: found among the libmpi* mapped into the process, as bgq finds its library
    monkeypatch.delenv("MPITASKMAP_FJMPI_LIB")
    libmpi = tmp_path / "libmpi_fujitsu.so.40"
    libmpi.symlink_to(fake_fjmpi)
    maps = tmp_path / "maps"
    maps.write_text(f"7f0000002000-7f0000003000 r-xp 00000000 08:01 3 {libmpi}\n")
    monkeypatch.setattr(bgq_module, "_PROC_MAPS", str(maps))
    assert FjmpiProvider().library_candidates()[0] == str(libmpi)
    p = get_provider()
    assert isinstance(p, FjmpiProvider) and p.locate(5, 8).coords == tofu(5)
    assert dict(p.probes)["bgq"].startswith(f"bgq (MPIX_Torus_ndims, MPIX_Rank2torus): no usable library; tried: "
                                            f"{libmpi} (loaded, but lacks MPIX_Torus_ndims, MPIX_Rank2torus)")


# -- under mpiexec ----------------------------------------------------------------------------------------------------
def hand_hops(a: int, b: int) -> int:
    """Mesh in x, y, z, a, c; b a ring of 3."""
    if a // 2 == b // 2:
        return 0
    d = [abs(u - v) for u, v in zip(tofu(a), tofu(b))]
    return d[0] + d[1] + d[2] + d[3] + min(d[4], 3 - d[4]) + d[5]


@pytest.mark.mpi(min_size=2)
def test_mpi_every_rank_builds_the_same_torus_and_remaps(fake_fjmpi):
    from mpitaskmap import remap

    comm = world()
    n = comm.size
    m = gathered_machine(comm, get_provider("fjmpi"))
    a, b = np.divmod(np.arange(n * n), n)
    assert isinstance(m, TorusMachine) and m.dims.tolist()[3:] == [2, 3, 2]
    assert m.hops(a, b).tolist() == [hand_hops(int(x), int(y)) for x, y in zip(a, b)]
    new, rep = remap(comm, (float(comm.rank % 2), float(comm.rank // 2)), provider="fjmpi", report=True)
    try:
        assert all_same(comm, (rep.status, rep.machine, rep.new_rank_of, rep.winner)) and rep.error == ""
        assert sorted(rep.new_rank_of) == list(range(n)) and new.rank == rep.new_rank_of[comm.rank]
    finally:
        new.Free()


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_a_rank_whose_library_fails_ends_like_every_other(fake_fjmpi, monkeypatch, on_error):
    comm = world()
    if comm.rank == 1:
        monkeypatch.setenv("FAKE_FJMPI_FAIL", "1")
    outcome = run_remap(comm, "fjmpi", on_error)
    assert all_same(comm, outcome)
    lib = comm.bcast(fake_fjmpi, root=1)
    bad = (f"provider: rank 1: ProviderError: fjmpi: FJMPI_Topology_get_coords(MPI_COMM_WORLD, 1, view=1, 6) returned "
           f"1 (library {lib}; view 1 is the assumed FJMPI_TOFU_SYS, view= sets another)")
    assert outcome == (("raised", bad) if on_error == "raise" else ("returned", "identity", bad, True))
