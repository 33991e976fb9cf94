"""Coordinate providers (serial: providers take rank and size, so no mpiexec is needed).

The vendor providers are exercised against fake shared libraries compiled at test time
from tests/fakes/*.c, which export the real symbol names and signatures (sources in the
C files): a fake Cray librca (16 x 8 x 24 Gemini torus, nids 0, 1, 12, 13, 4095) and a
fake libmpi with MPIX_Torus_ndims / MPIX_Rank2torus (BG/Q block 2x2x4x2x2, 4 ranks per
node, ABCDET order).
"""

from pathlib import Path

import numpy as np
import pytest

import mpitaskmap.machines as machine_module
from mpitaskmap import InvalidInputError, ProviderError, TorusMachine
from mpitaskmap.providers import (
    AUTO_ORDER,
    BgqProvider,
    FileProvider,
    HostnameProvider,
    Location,
    NetworkInfo,
    RcaProvider,
    SimProvider,
    SlurmProvider,
    XnameProvider,
    assemble_machine,
    available_providers,
    get_provider,
    machine_from_provider,
)
from mpitaskmap.providers import bgq as bgq_module
from mpitaskmap.providers import file as file_module
from mpitaskmap.providers import hostname as hostname_module
from mpitaskmap.machines.torus.presets import bgq_machine, titan_machine, torus_machine

ENV_VARS = (
    "MPITASKMAP_PROVIDER",
    "MPITASKMAP_COORDS_FILE",
    "MPITASKMAP_RCA_LIB",
    "MPITASKMAP_CRAY_NID_FILE",
    "MPITASKMAP_BGQ_LIB",
    "MPITASKMAP_BGQ_SHAPE",
    "MPITASKMAP_BGQ_WRAP",
    "FAKE_RCA_MAXDIM_FAIL",
    "FAKE_RCA_MACHINE",
    "MPITASKMAP_CRAY_CNAME_FILE",
    "SLURM_TOPOLOGY_ADDR",
    "SLURM_TOPOLOGY_ADDR_PATTERN",
)


# -- fixtures ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No provider variable leaks in from the caller's shell; no fake libmpi in the maps."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    empty_maps = tmp_path / "empty_maps"
    empty_maps.write_text("")
    monkeypatch.setattr(bgq_module, "_PROC_MAPS", str(empty_maps))
    file_module.clear_file_cache()
    yield
    file_module.clear_file_cache()


@pytest.fixture
def fake_rca(build):
    return build("fake_rca.c", "librca.so.0")


@pytest.fixture
def fake_mpix(build):
    return build("fake_mpix.c", "libmpi_fakebgq.so.1")


@pytest.fixture
def nid_file(tmp_path, monkeypatch):
    path = tmp_path / "nid"

    def _set(text: str) -> str:
        path.write_text(text)
        return str(path)

    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", str(path))
    return _set


# -- NetworkInfo, Location -----------------------------------------------------------------


def test_network_info_normalises_and_is_hashable():
    net = NetworkInfo(dims=[4, 2], wrap=[1, 0], bandwidth=[2.0, [1.0, 3.0]], dim_names=["P", "Q"])
    assert net.dims == (4, 2)
    assert net.wrap == (True, False)
    assert net.bandwidth == (2.0, (1.0, 3.0))
    assert net.dim_names == ("P", "Q")
    assert hash(net) == hash(NetworkInfo(dims=(4, 2), wrap=(True, False), bandwidth=(2.0, (1.0, 3.0)), dim_names=("P", "Q")))
    assert NetworkInfo(dims=(3, 3, 3), wrap=True).wrap == (True, True, True)
    assert NetworkInfo(dims=(2,), bandwidth=[[5.0, 5.0]]).bandwidth == 5.0
    assert NetworkInfo(dims=(2, 2), bandwidth=[3.0, [5.0, 5.0]]).bandwidth == (3.0, 5.0)
    assert NetworkInfo(dims=(2, 2)).wrap == (True, True)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(dims=(4, 4), wrap=(True,)), "wrap: expected 2 flags; got 1"),
        (dict(dims=(4, 0)), "dims: lengths must be positive; got [4, 0]"),
        (dict(dims=()), "a torus network needs at least one dimension"),
        (dict(dims=(4,), kind="flat"), "a flat network has no dimensions; got [4]"),
        (dict(dims=(4,), kind="slimfly"), "kind: expected one of ['flat', 'torus', 'percs', 'fattree', 'dragonfly']; "
                                          "got 'slimfly'"),
        (dict(dims=(4, 4), dim_names=("X",)), "dim_names: expected 2 names"),
        (dict(dims=(4, 4), bandwidth=[1.0]), "bandwidth: expected one entry per dimension (2); got 1"),
    ],
)
def test_network_info_rejects(kwargs, message):
    with pytest.raises(InvalidInputError) as exc:
        NetworkInfo(**kwargs)
    assert message in str(exc.value)


def test_location_validation():
    assert Location([1, 2], "n").coords == (1, 2)
    with pytest.raises(InvalidInputError, match="node: expected a non-empty string; got ''"):
        Location((1,), "")
    with pytest.raises(InvalidInputError, match=r"coords: expected an integer; got 1\.5"):
        Location((1.5,), "n")


# -- assemble_machine ------------------------------------------------------------------------


def test_assemble_numbers_nodes_by_first_appearance():
    locs = [
        Location((2, 1), "b"),
        Location((0, 0), "a"),
        Location((2, 1), "b"),
        Location((3, 3), "c"),
        Location((0, 0), "a"),
    ]
    net = NetworkInfo(dims=(4, 4), wrap=(True, False), dim_names=("U", "V"))
    m = assemble_machine(locs, net, name="five")
    assert isinstance(m, TorusMachine)
    assert m.name == "five"
    assert m.node_ids.tolist() == [0, 1, 0, 2, 1]
    assert m.router_coords.tolist() == [[2, 1], [0, 0], [2, 1], [3, 3], [0, 0]]
    assert m.dims.tolist() == [4, 4] and m.wrap.tolist() == [1, 0] and m.dim_names == ["U", "V"]
    # (2,1)-(0,0): X wraps 2, Y mesh 1 -> 3; (0,0)-(3,3): X wraps 1, Y mesh 3 -> 4; same node -> 0
    assert m.hops([0, 1, 0], [1, 3, 2]).tolist() == [3, 4, 0]


def test_assemble_two_nodes_on_one_router_keep_distinct_node_ids():
    locs = [Location((3, 5, 7), "nid00012"), Location((3, 5, 7), "nid00013")]
    m = assemble_machine(locs, NetworkInfo(dims=(16, 8, 24), wrap=True, bandwidth="gemini"), name="g")
    assert m.node_ids.tolist() == [0, 1]
    assert m.hops([0], [1]).tolist() == [0]
    assert m.link_bandwidth[1].tolist()[:3] == [75.0, 37.5, 75.0]


@pytest.mark.parametrize(
    "locs, message",
    [
        ([Location((0, 0), "a"), Location((1, 1), "b"), Location((4, 0), "c")],
         "locations: rank 2 has coordinate 4 in dimension 0, outside [0, 4); got (4, 0) on node 'c'"),
        ([Location((0, 0), "a"), Location((1,), "b")],
         "locations: rank 1 has 1 coordinates, the network has 2; got (1,)"),
        ([Location((0, 0), "a"), Location((1, 1), "b"), Location((1, 2), "a")],
         "locations: ranks 0 and 2 are on node 'a' but report different routers (0, 0) and (1, 2)"),
        ([], "locations: a machine needs at least one rank; got 0"),
        ([Location((0, 0), "a"), (1, 1)], "locations: rank 1 is not a Location; got tuple"),
    ],
)
def test_assemble_rejects_naming_the_rank(locs, message):
    with pytest.raises(InvalidInputError) as exc:
        assemble_machine(locs, NetworkInfo(dims=(4, 4)), name="x")
    assert str(exc.value) == message


def test_assemble_flat_network_builds_a_flat_machine():
    locs = [Location((), "h1"), Location((), "h1"), Location((), "h2"), Location((), "h1")]
    m = assemble_machine(locs, HostnameProvider().network(), name="flat")
    assert isinstance(m, machine_module.FlatMachine) and m.name == "flat"
    assert m.node_ids.tolist() == [0, 0, 1, 0]  # numbered by first appearance
    assert m.hops([0, 0], [3, 2]).tolist() == [0, 1]


# -- sim provider ----------------------------------------------------------------------------


def test_sim_titan_locations():
    p = get_provider("sim:titan:ppn=1,seed=1")
    assert isinstance(p, SimProvider) and p.kind == "titan" and p.spec == "sim:titan:ppn=1,seed=1"
    assert [p.locate(r, 4) for r in range(4)] == [
        Location((0, 0, 0), "nid00000"),
        Location((0, 0, 0), "nid00001"),
        Location((0, 1, 0), "nid00050"),
        Location((0, 1, 0), "nid00051"),
    ]
    assert p.network() == NetworkInfo(dims=(25, 16, 24), wrap=True, bandwidth="gemini", dim_names=("X", "Y", "Z"))


def test_sim_titan_nodes_derived_from_size_and_ppn():
    p = get_provider("sim:titan:ppn=4,seed=1")
    assert p.machine(10).n_procs == 12  # ceil(10 / 4) = 3 nodes of 4
    assert [p.locate(r, 10).node for r in (0, 3, 4, 9)] == ["nid00000", "nid00000", "nid00001", "nid00050"]
    assert p.locate(9, 10).coords == (0, 1, 0)
    assert get_provider("sim").spec == "sim:titan"
    assert get_provider("sim").machine(20).n_procs == 32  # default ppn 16 -> 2 nodes


def test_sim_titan_rank_order_equals_simulated_machine():
    p = get_provider("sim:titan:nodes=64,ppn=2,seed=3")
    m = machine_from_provider(p, 128)
    ref = titan_machine(64, cores_per_node=2, seed=3)
    np.testing.assert_array_equal(m.router_coords, ref.router_coords)
    # same partition into nodes (ids renumbered by first appearance)
    assert (m.node_ids[:, None] == m.node_ids[None, :]).tolist() == (ref.node_ids[:, None] == ref.node_ids[None, :]).tolist()
    assert m.n_nodes == 64
    pairs = np.arange(128)
    np.testing.assert_array_equal(m.hops(pairs, pairs[::-1]), ref.hops(pairs, pairs[::-1]))
    for k in range(3):
        np.testing.assert_array_equal(m.link_bandwidth[k], ref.link_bandwidth[k])


def test_sim_bgq_locations_and_machine():
    p = get_provider("sim:bgq:shape=2x2x4x2x2,ppn=4,order=ABCDET")
    assert [p.locate(r, 256) for r in (0, 5, 100, 255)] == [
        Location((0, 0, 0, 0, 0), "bgq-0.0.0.0.0"),
        Location((0, 0, 0, 0, 1), "bgq-0.0.0.0.1"),
        Location((0, 1, 2, 0, 1), "bgq-0.1.2.0.1"),
        Location((1, 1, 3, 1, 1), "bgq-1.1.3.1.1"),
    ]
    p2 = get_provider("sim:bgq:shape=2x2x4x2x2,ppn=4,order=TABCDE,wrap=1x1x1x1x0")
    assert [p2.locate(r, 256).coords for r in (0, 1, 2, 64)] == [
        (0, 0, 0, 0, 0), (0, 0, 0, 0, 1), (0, 0, 0, 1, 0), (0, 0, 0, 0, 0)]
    assert p2.network() == NetworkInfo(dims=(2, 2, 4, 2, 2), wrap=(True, True, True, True, False), dim_names="ABCDE")
    m = machine_from_provider(p2, 256)
    ref = bgq_machine((2, 2, 4, 2, 2), ranks_per_node=4, order="TABCDE", wrap=[1, 1, 1, 1, 0])
    np.testing.assert_array_equal(m.router_coords, ref.router_coords)
    assert m.n_nodes == 64 and m.dim_names == ["A", "B", "C", "D", "E"]
    assert m.wrap.tolist() == [1, 1, 1, 1, 0]


def test_sim_torus_locations():
    p = get_provider("sim:torus:dims=4x4x4,ppn=2,npr=2,wrap=1x1x0")
    assert [p.locate(r, 16) for r in (0, 1, 2, 3, 4)] == [
        Location((0, 0, 0), "node0"),
        Location((0, 0, 0), "node0"),
        Location((0, 0, 0), "node1"),
        Location((0, 0, 0), "node1"),
        Location((1, 0, 0), "node2"),
    ]
    assert p.network() == NetworkInfo(dims=(4, 4, 4), wrap=(True, True, False))
    m = machine_from_provider(p, 256)
    ref = torus_machine([4, 4, 4], wrap=[1, 1, 0], cores_per_node=2, nodes_per_router=2)
    np.testing.assert_array_equal(m.router_coords, ref.router_coords)
    np.testing.assert_array_equal(m.node_ids, ref.node_ids)


def test_sim_is_deterministic():
    a = [get_provider("sim:titan:ppn=2,seed=7").locate(r, 40) for r in range(40)]
    b = [get_provider("sim:titan:ppn=2,seed=7").locate(r, 40) for r in range(40)]
    c = [get_provider("sim:titan:ppn=2,seed=8").locate(r, 40) for r in range(40)]
    assert a == b
    assert a != c


@pytest.mark.parametrize(
    "spec, message",
    [
        ("sim:slimfly", "unknown simulated machine 'slimfly' in 'sim:slimfly'; valid: ['aries', 'bgq', 'dragonfly', "
                        "'fattree', 'frontera', 'frontier', 'percs', 'perlmutter', 'supermuc-ng', 'titan', 'torus']"),
        ("sim:titan:cores=4", "provider 'sim:titan:cores=4': unknown key 'cores'; valid keys: ['busy', 'dims', 'nodes', 'ppn', 'seed']"),
        ("sim:torus:dims=4x4,rpn=2", "valid keys: ['dims', 'npr', 'ppn', 'wrap']"),
        ("sim:titan:ppn=0", "provider 'sim:titan:ppn=0': ppn must be >= 1; got 0"),
        ("sim:titan:ppn=four", "provider 'sim:titan:ppn=four': ppn must be an integer; got 'four'"),
        ("sim:titan:busy=1.5", "busy must lie in [0, 1)"),
        ("sim:titan:ppn", "provider 'sim:titan:ppn': expected key=value; got 'ppn'"),
        ("sim:titan:ppn=1,ppn=2", "key 'ppn' given twice"),
        ("sim:torus", "sim:torus needs dims="),
        ("sim:torus:dims=4x0", "dims needs lengths >= 1 like 4x4x4; got '4x0'"),
        ("sim:torus:dims=4x4,wrap=1x0x1", "wrap needs 1 or 2 flags"),
        ("sim:torus:dims=4x4,wrap=yes-ish", "wrap flags are 0 or 1"),
        ("sim:bgq:shape=4x4x4", "shape needs 5 lengths"),
        ("sim:bgq:order=ABCDEX", "order must be a permutation of ABCDET"),
    ],
)
def test_sim_spec_errors(spec, message):
    with pytest.raises(InvalidInputError) as exc:
        get_provider(spec)
    assert message in str(exc.value)


def test_sim_job_larger_than_machine():
    with pytest.raises(ProviderError, match=r"'sim:torus:dims=2x2' has 4 processors but the job has 5 ranks"):
        get_provider("sim:torus:dims=2x2").locate(0, 5)
    with pytest.raises(ProviderError, match=r"has 2 processors but the job has 3 ranks"):
        get_provider("sim:titan:nodes=2,ppn=1").locate(0, 3)
    with pytest.raises(ProviderError, match=r"cannot hold a job of 8 ranks: n_nodes: only"):
        get_provider("sim:titan:dims=2x2x2,ppn=1,busy=0.9,seed=0").locate(0, 8)
    with pytest.raises(InvalidInputError, match=r"rank: must lie in \[0, 4\); got 4"):
        get_provider("sim:torus:dims=2x2").locate(4, 4)


# -- file provider ---------------------------------------------------------------------------

MACHINE_FILE = """\
# two nodes on one router, then a single rank elsewhere
dims 4 4 2
wrap 1 1 0
host nid00012 2 1 2 0
host nid00013 2 1 2 0
3 0 1 node=7
"""


def test_file_provider_rows_and_network(tmp_path):
    path = tmp_path / "alloc.txt"
    path.write_text(MACHINE_FILE)
    p = get_provider(f"file:{path}")
    assert isinstance(p, FileProvider) and p.spec == f"file:{path}" and p.rank_addressable
    assert [p.locate(r, 5) for r in range(5)] == [
        Location((1, 2, 0), "node0"),
        Location((1, 2, 0), "node0"),
        Location((1, 2, 0), "node1"),
        Location((1, 2, 0), "node1"),
        Location((3, 0, 1), "node7"),
    ]
    assert p.network() == NetworkInfo(dims=(4, 4, 2), wrap=(True, True, False), bandwidth=1.0, dim_names="XYZ")
    m = machine_from_provider(p, 5)
    assert m.node_ids.tolist() == [0, 0, 1, 1, 2]
    assert m.hops([0], [4]).tolist() == [5]  # X 1-3 wraps: 2, Y 2-0 wraps: 2, Z mesh: 1


def test_file_provider_from_env_and_cached(tmp_path, monkeypatch):
    path = tmp_path / "alloc.txt"
    path.write_text(MACHINE_FILE)
    monkeypatch.setenv("MPITASKMAP_COORDS_FILE", str(path))
    calls = []
    real = file_module.read_machine_file
    monkeypatch.setattr(file_module, "read_machine_file", lambda pth: calls.append(pth) or real(pth))
    p = get_provider("file")
    assert [p.locate(r, 5).coords for r in (0, 4)] == [(1, 2, 0), (3, 0, 1)]
    assert FileProvider().locate(3, 5) == Location((1, 2, 0), "node1")
    p.network()
    assert calls == [str(path)]


def test_file_provider_rank_count_mismatch(tmp_path):
    path = tmp_path / "alloc.txt"
    path.write_text(MACHINE_FILE)
    with pytest.raises(ProviderError) as exc:
        FileProvider(path).locate(0, 4)
    assert str(exc.value) == f"file: {path} describes 5 ranks but the job has 4; the file needs one row per rank"


def test_file_provider_parse_error_keeps_line_number(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("dims 4 4 2\n0 0 0\n1 1 1\n\n2 2\n")
    with pytest.raises(InvalidInputError) as exc:
        FileProvider(path).locate(0, 3)
    assert str(exc.value) == f"{path}:5: expected 3 coordinates like the lines before; got '2 2'"


def test_file_provider_missing_file_or_variable(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(ProviderError, match=f"file: {missing}: cannot read the machine file"):
        FileProvider(missing).locate(0, 1)
    with pytest.raises(ProviderError, match="no machine file: pass path= or set MPITASKMAP_COORDS_FILE"):
        get_provider("file").locate(0, 1)


# -- rca provider ----------------------------------------------------------------------------


def test_rca_locations_and_network(fake_rca, nid_file, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    p = get_provider("rca")
    assert isinstance(p, RcaProvider) and not p.rank_addressable
    expected = {"12\n": Location((3, 5, 7), "nid00012"), "13": Location((3, 5, 7), "nid00013"),
                " 4095 \n": Location((15, 7, 23), "nid04095"), "0\n": Location((0, 0, 0), "nid00000")}
    locs = []
    for text, loc in expected.items():
        nid_file(text)
        locs.append(p.locate(len(locs), 4))
        assert locs[-1] == loc
    net = p.network()
    assert net == NetworkInfo(dims=(16, 8, 24), wrap=(True, True, True), bandwidth="gemini", dim_names="XYZ")
    m = assemble_machine(locs, net, name=p.spec)
    assert m.node_ids.tolist() == [0, 1, 2, 3]
    # (3,5,7)-(15,7,23): X min(12,4)=4, Y min(2,6)=2, Z min(16,8)=8
    assert m.hops([0, 0, 1], [1, 2, 3]).tolist() == [0, 14, 3 + 3 + 7]


@pytest.mark.parametrize("provider, spec", [
    (lambda: RcaProvider(network="aries", global_links=2), "rca:network=aries,global_links=2"),
    (lambda: BgqProvider(shape=(4, 4, 4, 4, 2), wrap=[True, False, True, True, True]),
     "bgq:shape=4x4x4x4x2,wrap=1x0x1x1x1"),
    (lambda: BgqProvider(lib="", wrap=False), "bgq:wrap=0"),
    (lambda: get_provider("slurm:taper=4.0,dims=4x4x2"), "slurm:taper=4.0,dims=4x4x2"),
    (lambda: SlurmProvider(taper=4.0, dims=(4, 4, 2)), "slurm:taper=4,dims=4x4x2"),
    (lambda: XnameProvider(n_groups=4, bw=None), "xname:n_groups=4"),
    (lambda: HostnameProvider(), "hostname"),
])
def test_one_helper_writes_every_providers_spec_from_its_name_and_options(provider, spec):
    """The options given, in their order, None left out: lengths and flags joined by x, floats %g, text as given."""
    p = provider()
    assert p.spec == spec and get_provider(spec).spec == spec


def test_rca_explicit_spec_options(fake_rca, tmp_path):
    nid = tmp_path / "mynid"
    nid.write_text("1\n")
    p = get_provider(f"rca:lib={fake_rca},nid_file={nid}")
    assert p.spec == f"rca:lib={fake_rca},nid_file={nid}"
    assert p.locate(0, 1) == Location((0, 0, 0), "nid00001")
    p.check()


def test_rca_meshcoord_failure(fake_rca, nid_file, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    nid_file("5\n")
    with pytest.raises(ProviderError) as exc:
        RcaProvider().locate(0, 1)
    assert str(exc.value) == f"rca: rca_get_meshcoord(5) returned -1 (library {fake_rca})"


def test_rca_max_dimension_failure(fake_rca, nid_file, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    monkeypatch.setenv("FAKE_RCA_MAXDIM_FAIL", "1")
    nid_file("12")
    with pytest.raises(ProviderError, match=r"rca: rca_get_max_dimension\(\) returned -1"):
        RcaProvider().network()


def test_rca_library_missing_names_what_was_tried(nid_file, monkeypatch, tmp_path):
    nid_file("12")
    with pytest.raises(ProviderError) as exc:
        RcaProvider().locate(0, 1)
    msg = str(exc.value)
    assert msg.startswith("rca: no usable library; tried: librca.so.0 (")
    assert "; librca.so (" in msg
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", str(tmp_path / "librca_missing.so"))
    with pytest.raises(ProviderError, match=f"tried: {tmp_path}/librca_missing.so \\("):
        RcaProvider().locate(0, 1)


def test_rca_library_without_symbols(fake_mpix, nid_file, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_mpix)
    nid_file("12")
    with pytest.raises(ProviderError) as exc:
        RcaProvider().locate(0, 1)
    assert str(exc.value) == (
        f"rca: no usable library; tried: {fake_mpix} (loaded, but lacks rca_get_meshcoord, rca_get_max_dimension)"
    )


@pytest.mark.parametrize(
    "text, message",
    [
        (None, "cannot read the Cray node id (No such file or directory)"),
        ("c0-0c1s3n2\n", "expected an integer node id; got 'c0-0c1s3n2'"),
        ("", "expected an integer node id; got ''"),
        ("70000", "node id must fit uint16_t [0, 65535]; got 70000"),
    ],
)
def test_rca_nid_file_problems_name_the_path(fake_rca, tmp_path, monkeypatch, text, message):
    path = tmp_path / "cray_nid"
    if text is not None:
        path.write_text(text)
    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", str(path))
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    with pytest.raises(ProviderError) as exc:
        RcaProvider().locate(0, 1)
    assert str(exc.value) == f"rca: {path}: {message}"


def test_rca_detects_wider_struct_than_assumed(build, nid_file, monkeypatch):
    wide = build("fake_rca.c", "librca_wide.so", "FAKE_RCA_FIELD=uint32_t")
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", wide)
    nid_file("12")
    with pytest.raises(ProviderError) as exc:
        RcaProvider().locate(0, 1)
    assert str(exc.value).startswith(
        "rca: rca_get_meshcoord wrote byte 11 of its output, past the assumed 6-byte rca_mesh_coord_t (3 x uint16_t)"
    )
    assert "change RCA_COORD_FIELD in mpitaskmap/providers/rca.py" in str(exc.value)


# -- rca provider on a Cray XC: RCA's (group, row, column) of an Aries dragonfly ----------------------------------


@pytest.fixture
def cname_file(tmp_path, monkeypatch):
    """Write this node's cname file (MPITASKMAP_CRAY_CNAME_FILE)."""
    path = tmp_path / "cname"
    monkeypatch.setenv("MPITASKMAP_CRAY_CNAME_FILE", str(path))

    def _set(text: str) -> str:
        path.write_text(text)
        return str(path)

    return _set


def xc_node(nid_file, cname_file, nid: int, cname: str) -> None:
    nid_file(f"{nid}\n")
    cname_file(f"{cname}\n")


def test_aries_shaped_rule():
    from mpitaskmap.providers.rca import aries_shaped

    # a Cray XC: 16 blade columns, up to 6 chassis rows; a Gemini torus: Z = 24
    assert [aries_shaped(e) for e in ((4, 6, 16), (2, 3, 16), (1, 6, 16), (16, 8, 24), (25, 16, 24), (4, 7, 16),
                                      (4, 6, 8))] == [True, True, True, False, False, False, False]


def test_rca_xc_coordinates_build_the_aries_dragonfly(fake_rca, nid_file, cname_file, monkeypatch):
    from mpitaskmap.machines import DragonflyMachine
    from mpitaskmap.machines.dragonfly.presets import DRAGONFLY_PRESETS
    from mpitaskmap.machines.dragonfly import dragonfly_network

    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    monkeypatch.setenv("FAKE_RCA_MACHINE", "xc")
    p = get_provider("rca")
    # the fake XC: 4 groups of 6 x 16 routers; nid 4b + i is node i of blade b
    nodes = [(0, "c0-0c0s0n0"), (1, "c0-0c0s0n1"), (4, "c0-0c0s1n0"), (16, "c0-0c1s0n0"), (22, "c0-0c1s1n2"),
             (384, "c2-0c0s0n0"), (1535, "c7-0c2s15n3")]
    locs = []
    for r, (nid, cname) in enumerate(nodes):
        xc_node(nid_file, cname_file, nid, cname)
        locs.append(p.locate(r, len(nodes)))
    # (group, row x 16 + column, node on the blade)
    assert [loc.coords for loc in locs] == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 16, 0), (0, 17, 2), (1, 0, 0),
                                            (3, 95, 3)]
    assert [loc.node for loc in locs] == ["nid00000", "nid00001", "nid00004", "nid00016", "nid00022", "nid00384",
                                          "nid01535"]
    # global links per pair: every connection of a group (96 routers x 5) over the 4 groups = 120
    aries = DRAGONFLY_PRESETS["aries"]
    ref_shape = DragonflyMachine(4, (6, 16), 4, [0], global_links=120, global_ports=5, bandwidth=aries["bandwidth"])
    assert p.is_aries() and p.network() == dragonfly_network(ref_shape)
    m = assemble_machine(locs, p.network(), name=p.spec)
    assert isinstance(m, DragonflyMachine) and (m.rows, m.columns, m.nodes_per_switch) == (6, 16, 4)
    # node numbers (g 96 + s) 4 + k
    assert m.node_ids.tolist() == [0, 1, 4, 64, 70, 384, 3 * 384 + 95 * 4 + 3]
    # one router 2; along the row (green) 3; along the column (black) 3; both 4 (between groups: the machine's routing
    # over the 120 global links, as a DragonflyMachine built directly has it)
    assert m.hops([0] * 4, [1, 2, 3, 4]).tolist() == [2, 3, 3, 4]
    ref = DragonflyMachine(4, (6, 16), 4, m.node_ids, global_links=120, global_ports=5, bandwidth=aries["bandwidth"])
    src, dst = np.divmod(np.arange(49), 7)
    assert m.hops(src, dst).tolist() == ref.hops(src, dst).tolist()
    assert get_provider("rca:routing=valiant").network().options[-1] == ("routing", "valiant")


def test_rca_forced_readings_and_a_partial_xc(fake_rca, nid_file, cname_file, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    monkeypatch.setenv("FAKE_RCA_MACHINE", "xc")
    xc_node(nid_file, cname_file, 22, "c0-0c1s1n2")
    # network=gemini reads the XC's coordinates as a torus (what rca did before it told them apart)
    gemini = get_provider("rca:network=gemini")
    assert gemini.spec == "rca:network=gemini" and not gemini.is_aries()
    assert gemini.locate(0, 1) == Location((0, 1, 1), "nid00022")
    assert gemini.network() == NetworkInfo(dims=(4, 6, 16), wrap=True, bandwidth="gemini", dim_names="XYZ")
    # two groups of 3 rows (one cabinet each): 48 routers x 5 / 2 groups = 120 links per pair
    monkeypatch.setenv("FAKE_RCA_MACHINE", "xc_partial")
    p = get_provider("rca:global_links=7")
    assert p.locate(0, 1).coords == (0, 17, 2)
    assert p.network().dims == (2, 48, 4) and dict(p.network().options)["global_links"] == 7
    assert dict(get_provider("rca").network().options)["global_links"] == 120
    with pytest.raises(ProviderError) as exc:
        get_provider("rca:global_links=121").network()
    assert str(exc.value) == ("rca: the Aries dragonfly of RCA extents (2, 3, 16): global_ports: 48 switches x 5 ports "
                              "hold 240 of the 2 x 121 = 242 global port numbers a group needs (module notes); got 5")
    with pytest.raises(ProviderError, match=r"routing: 'valiant' needs an intermediate group, i\.e\. n_groups >= 3"):
        get_provider("rca:routing=valiant").network()
    # network=aries reads a Gemini machine's coordinates as a dragonfly of 16 groups of 8 x 24 routers
    monkeypatch.delenv("FAKE_RCA_MACHINE")
    xc_node(nid_file, cname_file, 12, "c1-0c0s3n1")
    forced = get_provider("rca:network=aries")
    assert forced.locate(0, 1) == Location((3, 5 * 24 + 7, 1), "nid00012")
    assert forced.network().dims == (16, 192, 4)
    with pytest.raises(InvalidInputError, match="network must be one of \\['auto', 'gemini', 'aries'\\]; got 'xe'"):
        get_provider("rca:network=xe")


@pytest.mark.parametrize("text, message", [
    (None, "cannot read the Cray cname, whose node field places an Aries node on its blade (No such file or directory)"),
    ("c0-0c1s3", "expected a node cname like c0-0c1s3n2; got 'c0-0c1s3'"),
    ("x1000c1s3b0n2", "expected a node cname like c0-0c1s3n2; got 'x1000c1s3b0n2'"),
    ("c0-0c1s3n4", "node 4 of 'c0-0c1s3n4' lies outside the 4 nodes of an Aries router"),
])
def test_rca_xc_cname_problems_name_the_path(fake_rca, nid_file, tmp_path, monkeypatch, text, message):
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    monkeypatch.setenv("FAKE_RCA_MACHINE", "xc")
    nid_file("4")
    path = tmp_path / "cname_bad"
    if text is not None:
        path.write_text(text)
    p = get_provider(f"rca:cname_file={path}")
    for call in (p.check, lambda: p.locate(0, 1)):
        with pytest.raises(ProviderError) as exc:
            call()
        assert str(exc.value) == f"rca: {path}: {message}"
    # a Gemini machine never reads it
    monkeypatch.delenv("FAKE_RCA_MACHINE")
    nid_file("12")
    p = get_provider(f"rca:cname_file={path}")
    p.check()
    assert p.locate(0, 1) == Location((3, 5, 7), "nid00012")


def test_auto_rca_on_an_xc(fake_rca, nid_file, cname_file, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    monkeypatch.setenv("FAKE_RCA_MACHINE", "xc")
    nid_file("22")
    path = cname_file("c0-0c1s1n2")
    p = get_provider()
    assert isinstance(p, RcaProvider) and p.probes[-1] == ("rca", "selected")
    assert p.network().kind == "dragonfly" and p.locate(0, 1).coords == (0, 17, 2)
    # the cname is part of an XC's check: without it, rca is skipped, saying why
    Path(path).unlink()
    p = get_provider()
    assert not isinstance(p, RcaProvider)
    assert dict(p.probes)["rca"] == (f"rca: {path}: cannot read the Cray cname, whose node field places an Aries node "
                                     "on its blade (No such file or directory)")


# -- rca on a Cray XC under mpiexec: every rank its own nid and cname ----------------------------------------------------


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_rca_xc_every_rank_builds_the_same_dragonfly(fake_rca, nid_file, cname_file, monkeypatch, on_error):
    from mpi_helpers import all_same, gathered_machine, run_remap, world

    comm = world()
    n = comm.size
    if n > 16:
        pytest.skip("the fake XC's blades 0 and 1 hold 8 nodes of 2 ranks")
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    monkeypatch.setenv("FAKE_RCA_MACHINE", "xc")
    k = comm.rank // 2  # two ranks a node: nid k, node k % 4 of blade k // 4 (blade 0 at (0, 0, 0), 1 at (0, 0, 1))
    xc_node(nid_file, cname_file, k, f"c0-0c0s{k // 4}n{k % 4}")
    m = gathered_machine(comm, get_provider("rca"))
    a, b = np.divmod(np.arange(n * n), n)
    # one node 0, one blade (router) 2, the two blades of row 0 (a green link) 3
    expected = [0 if x // 2 == y // 2 else 2 if x // 8 == y // 8 else 3 for x, y in zip(a.tolist(), b.tolist())]
    assert m.hops(a, b).tolist() == expected and m.n_groups == 4
    outcome = run_remap(comm, "rca", on_error)
    # how it ended, the same on every rank (whether a rank kept its rank is its own: a remap moves some)
    assert all_same(comm, outcome[:3]) and outcome[0] == "returned" and outcome[1] in ("identity", "remapped")
    # a rank without its cname: every rank ends the same way
    path = comm.bcast(cname_file("") if comm.rank == 1 else None, root=1)
    if comm.rank == 1:
        Path(path).unlink()
    outcome = run_remap(comm, "rca", on_error)
    assert all_same(comm, outcome)
    bad = (f"provider: rank 1: ProviderError: rca: {path}: cannot read the Cray cname, whose node field places an "
           "Aries node on its blade (No such file or directory)")
    assert outcome == (("raised", bad) if on_error == "raise" else ("returned", "identity", bad, True))


# -- bgq provider ----------------------------------------------------------------------------


def test_bgq_locations_match_block_order(fake_mpix, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", fake_mpix)
    p = get_provider("bgq")
    assert isinstance(p, BgqProvider) and p.rank_addressable
    assert [p.locate(r, 256) for r in (0, 5, 100, 255)] == [
        Location((0, 0, 0, 0, 0), "bgq-0.0.0.0.0"),
        Location((0, 0, 0, 0, 1), "bgq-0.0.0.0.1"),
        Location((0, 1, 2, 0, 1), "bgq-0.1.2.0.1"),
        Location((1, 1, 3, 1, 1), "bgq-1.1.3.1.1"),
    ]
    assert p.rank_to_torus(103) == ((0, 1, 2, 0, 1), 3)
    assert p.network(size=256) == NetworkInfo(dims=(2, 2, 4, 2, 2), wrap=True, dim_names="ABCDE")
    m = machine_from_provider(p, 256)
    ref = bgq_machine((2, 2, 4, 2, 2), ranks_per_node=4, order="ABCDET")
    np.testing.assert_array_equal(m.router_coords, ref.router_coords)
    assert m.n_nodes == 64 and m.node_ids[:9].tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2]


def test_bgq_bounding_box_of_a_partial_job(fake_mpix, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", fake_mpix)
    p = BgqProvider()
    p.locate(0, 40)  # remembers the job size
    # ranks 0..39 = nodes 0..9: e in 0..1, d in 0..1, c in 0..2, b = a = 0
    assert p.network().dims == (1, 1, 3, 2, 2)
    assert p.network(size=256).dims == (2, 2, 4, 2, 2)


def test_bgq_shape_and_wrap_from_env_and_spec(fake_mpix, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", fake_mpix)
    monkeypatch.setenv("MPITASKMAP_BGQ_SHAPE", "2x2x4x4x2")
    monkeypatch.setenv("MPITASKMAP_BGQ_WRAP", "1x1x1x0x1")
    assert BgqProvider().network() == NetworkInfo(
        dims=(2, 2, 4, 4, 2), wrap=(True, True, True, False, True), dim_names="ABCDE")
    p = get_provider(f"bgq:lib={fake_mpix},shape=4x4x4x4x2,wrap=0")
    assert p.network() == NetworkInfo(dims=(4, 4, 4, 4, 2), wrap=False, dim_names="ABCDE")
    assert p.spec == f"bgq:lib={fake_mpix},shape=4x4x4x4x2,wrap=0"
    monkeypatch.setenv("MPITASKMAP_BGQ_SHAPE", "4x4x4")
    with pytest.raises(InvalidInputError, match=r"provider bgq \(MPITASKMAP_BGQ_SHAPE\): shape needs 5 lengths like 4x4x4x4x4"):
        BgqProvider().network()


def test_bgq_shape_unknown_without_size(fake_mpix, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", fake_mpix)
    with pytest.raises(ProviderError, match="torus lengths unknown: set MPITASKMAP_BGQ_SHAPE"):
        BgqProvider().network()


def test_bgq_rank2torus_failure(fake_mpix, monkeypatch):
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", fake_mpix)
    with pytest.raises(ProviderError) as exc:
        BgqProvider().locate(256, 300)
    assert str(exc.value) == f"bgq: MPIX_Rank2torus(256) returned 1 (library {fake_mpix})"


def test_bgq_ndims_counting_t_is_accepted(build, monkeypatch):
    lib = build("fake_mpix.c", "libmpi_fakebgq6.so", "FAKE_NDIMS=6")
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", lib)
    assert BgqProvider().locate(255, 256) == Location((1, 1, 3, 1, 1), "bgq-1.1.3.1.1")


def test_bgq_rejects_other_dimension_counts_and_overwrites(build, monkeypatch):
    lib3 = build("fake_mpix.c", "libmpi_fakebgp.so", "FAKE_NDIMS=3")
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", lib3)
    with pytest.raises(ProviderError, match="MPIX_Torus_ndims reports 3 dimensions; a BG/Q torus has 5"):
        BgqProvider().locate(0, 1)
    extra = build("fake_mpix.c", "libmpi_fakeextra.so", "FAKE_WRITE_EXTRA")
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", extra)
    with pytest.raises(ProviderError, match=r"MPIX_Rank2torus\(0\) wrote entries \[0, 1, 2, 3, 4, 5, 6\]; expected exactly 0..5"):
        BgqProvider().locate(0, 1)


def test_bgq_finds_mapped_libmpi(fake_mpix, monkeypatch, tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(
        "7f0000000000-7f0000001000 r--p 00000000 08:01 1 /usr/lib/libc.so.6\n"
        "7f0000001000-7f0000002000 r-xp 00000000 08:01 2 /nonexistent/libmpi.so.12\n"
        f"7f0000002000-7f0000003000 r-xp 00000000 08:01 3 {fake_mpix}\n"
        f"7f0000003000-7f0000004000 r--p 00001000 08:01 3 {fake_mpix}\n"
        "7f0000004000-7f0000005000 rw-p 00000000 00:00 0 \n"
    )
    monkeypatch.setattr(bgq_module, "_PROC_MAPS", str(maps))
    assert bgq_module.mapped_mpi_libraries() == ["/nonexistent/libmpi.so.12", fake_mpix]
    p = BgqProvider()
    assert p.locate(7, 8) == Location((0, 0, 0, 0, 1), "bgq-0.0.0.0.1")


def test_bgq_library_missing_names_what_was_tried(monkeypatch, tmp_path):
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", str(tmp_path / "libmpi_missing.so"))
    with pytest.raises(ProviderError) as exc:
        BgqProvider().locate(0, 1)
    assert str(exc.value).startswith(
        f"bgq (MPIX_Torus_ndims, MPIX_Rank2torus): no usable library; tried: {tmp_path}/libmpi_missing.so (")
    monkeypatch.delenv("MPITASKMAP_BGQ_LIB")
    with pytest.raises(ProviderError) as exc:
        BgqProvider().locate(0, 1)
    # nothing mapped (empty maps file): the main program is the last candidate
    assert str(exc.value).endswith("<main program> (loaded, but lacks MPIX_Torus_ndims, MPIX_Rank2torus)")


# -- hostname provider -----------------------------------------------------------------------


def test_hostname_provider(monkeypatch):
    monkeypatch.setattr(hostname_module.socket, "gethostname", lambda: "node-a17")
    p = get_provider("hostname")
    assert p.locate(3, 8) == Location((), "node-a17")
    assert p.network() == NetworkInfo(dims=(), wrap=(), kind="flat")
    assert not p.rank_addressable
    with pytest.raises(ProviderError, match="only knows the calling process"):
        machine_from_provider(p, 2)
    monkeypatch.setattr(hostname_module.socket, "gethostname", lambda: "")
    with pytest.raises(ProviderError, match="empty name"):
        p.locate(0, 1)
    with pytest.raises(InvalidInputError, match="unknown key 'x'"):
        get_provider("hostname:x=1")


# -- get_provider, auto detection ------------------------------------------------------------


def test_available_providers_and_unknown_name():
    assert available_providers() == ["auto", "bgq", "cxi", "file", "fjmpi", "hostname", "rca", "sim", "slurm", "xname"]
    with pytest.raises(InvalidInputError) as exc:
        get_provider("cray")
    assert str(exc.value) == (
        "provider: unknown provider 'cray' in 'cray'; valid: ['auto', 'bgq', 'cxi', 'file', 'fjmpi', 'hostname', 'rca', "
        "'sim', 'slurm', 'xname']")
    with pytest.raises(InvalidInputError, match="expected a non-empty spec string"):
        get_provider("  ")
    p = SimProvider("torus", dims="2x2")
    assert get_provider(p) is p


def test_auto_env_override_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "sim:torus:dims=2x2")
    monkeypatch.setenv("MPITASKMAP_COORDS_FILE", str(tmp_path / "ignored.txt"))
    for p in (get_provider(), get_provider("auto"), get_provider(None)):
        assert isinstance(p, SimProvider) and p.spec == "sim:torus:dims=2x2"
    assert get_provider("auto").probes == (("env", "selected: MPITASKMAP_PROVIDER=sim:torus:dims=2x2"),)
    assert isinstance(get_provider("hostname"), HostnameProvider)  # an explicit spec is not overridden


def test_auto_bad_env_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "sim:titan:bogus=1")
    with pytest.raises(InvalidInputError, match=r"^MPITASKMAP_PROVIDER: provider 'sim:titan:bogus=1': unknown key 'bogus'"):
        get_provider()


def test_auto_file_when_coords_file_set(monkeypatch, tmp_path):
    path = tmp_path / "alloc.txt"
    path.write_text(MACHINE_FILE)
    monkeypatch.setenv("MPITASKMAP_COORDS_FILE", str(path))
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "auto")
    p = get_provider()
    assert isinstance(p, FileProvider)
    assert p.probes == (("env", "MPITASKMAP_PROVIDER=auto"), ("file", f"selected: MPITASKMAP_COORDS_FILE={path}"))
    assert p.locate(4, 5) == Location((3, 0, 1), "node7")


def test_auto_rca_when_nid_file_and_library(fake_rca, nid_file, monkeypatch):
    nid_file("13\n")
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", fake_rca)
    p = get_provider()
    assert isinstance(p, RcaProvider)
    assert [name for name, _ in p.probes] == ["env", "file", "rca"]
    assert p.probes[-1] == ("rca", "selected")
    assert p.locate(0, 1) == Location((3, 5, 7), "nid00013")


def test_auto_skips_rca_without_library_then_finds_bgq(fake_mpix, nid_file, monkeypatch, tmp_path):
    nid_file("12")
    monkeypatch.setenv("MPITASKMAP_RCA_LIB", str(tmp_path / "librca_missing.so"))
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", fake_mpix)
    p = get_provider("auto")
    assert isinstance(p, BgqProvider)
    names = [name for name, _ in p.probes]
    assert names == ["env", "file", "rca", "bgq"]
    assert p.probes[2][1].startswith(f"rca: no usable library; tried: {tmp_path}/librca_missing.so (")
    assert p.probes[3] == ("bgq", "selected")


def test_auto_falls_back_to_hostname(monkeypatch, tmp_path):
    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", str(tmp_path / "no_nid"))
    p = get_provider()
    assert isinstance(p, HostnameProvider)
    assert tuple(name for name, _ in p.probes) == AUTO_ORDER
    assert p.probes[0] == ("env", "MPITASKMAP_PROVIDER not set")
    assert p.probes[1] == ("file", "MPITASKMAP_COORDS_FILE not set")
    assert p.probes[2] == ("rca", f"{tmp_path}/no_nid not found (not a Cray XE/XK compute node)")
    assert p.probes[3][1].startswith("bgq (MPIX_Torus_ndims, MPIX_Rank2torus): no usable library; tried: ")
    assert p.probes[-2] == ("slurm", "slurm: SLURM_TOPOLOGY_ADDR is not set (not a task of a Slurm step, or Slurm older "
                                     "than its topology variables)")
    assert p.probes[-1] == ("hostname", "selected")


def test_a_c_library_declares_its_signatures_and_a_failed_check_leaves_it_unopened():
    import ctypes
    import ctypes.util
    from mpitaskmap.providers._util import CLibrary
    checks = []

    def ready(lib, label):
        checks.append(label)
        if len(checks) == 1:
            raise ProviderError("not yet")

    clib = CLibrary("demo", {"abs": (ctypes.c_long, [ctypes.c_long]), "labs": None},
                    lambda: [ctypes.util.find_library("c")], ready)
    with pytest.raises(ProviderError, match="not yet"):
        clib.get()
    assert clib.label is None
    lib = clib.get()  # tried again, and checked again
    assert checks == [clib.label, clib.label] and clib.get() is lib and len(checks) == 2
    assert lib.abs.restype is ctypes.c_long and lib.abs.argtypes == [ctypes.c_long] and lib.abs(-7) == 7
    missing = CLibrary("demo", {"no_such_function_here": None}, lambda: [ctypes.util.find_library("c")])
    with pytest.raises(ProviderError, match="demo: no usable library; tried: .*lacks no_such_function_here"):
        missing.get()
