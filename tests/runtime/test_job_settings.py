"""Job-level settings that differ between ranks (issue 39, item 6): detected on every rank, every
rank ends alike, the error names the ranks and values.

Serial tests word the error from hand-made settings; the MPI tests (``-m mpi`` under
``mpiexec -n 4`` and ``-n 16``) give every rank its own environment, as a launcher does, and run
each entry point that reads it: ``remap``, ``create_cart``, ``create_dist_graph_adjacent``,
``cart_order``, ``dist_graph_order`` and the PMPI library's hooks.  Two tests launch
``mpiexec`` themselves with MPMD blocks of ranks, each block with its own ``-env`` (the way a
real launch gives ranks different environments): a Python application calling ``remap``, and
an unchanged C program with the PMPI library preloaded.
"""

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap import MappingError
from mpitaskmap.runtime.job_settings import (JOB_VARIABLES, PROVIDER_ARGUMENT, RANK_VARIABLES, describe_differences,
                                             local_settings)
from mpi_helpers import all_same, world

TITAN = "sim:titan:ppn=1"
TORUS = "sim:torus:dims=4x4"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """No mpitaskmap variable from the caller's shell."""
    for var in JOB_VARIABLES + RANK_VARIABLES:
        monkeypatch.delenv(var, raising=False)


def ranks_with(settings_per_rank):
    """Settings of every rank from ``{name: value}`` dicts (unnamed job variables unset)."""
    names = (PROVIDER_ARGUMENT,) + JOB_VARIABLES
    return [tuple((n, values.get(n)) for n in names) for values in settings_per_rank]


# -- the wording (serial) ------------------------------------------------------------------------


def test_one_rank_with_another_provider_is_named_with_every_value():
    mine = {"MPITASKMAP_PROVIDER": TITAN}
    text = describe_differences(ranks_with([mine, {"MPITASKMAP_PROVIDER": "sim:bogus"}, mine, mine]))
    assert text == "MPITASKMAP_PROVIDER differs between ranks: ranks 0,2-3 'sim:titan:ppn=1', rank 1 'sim:bogus'"


def test_unset_and_not_given_and_two_settings_in_one_line():
    settings = ranks_with([{PROVIDER_ARGUMENT: TORUS, "MPITASKMAP_COORDS_FILE": "/a.txt"}] * 3
                          + [{"MPITASKMAP_COORDS_FILE": "/a.txt"}, {PROVIDER_ARGUMENT: TORUS}])
    assert describe_differences(settings) == (
        "the provider argument differs between ranks: ranks 0-2,4 'sim:torus:dims=4x4', rank 3 not given; "
        "MPITASKMAP_COORDS_FILE differs between ranks: ranks 0-3 '/a.txt', rank 4 unset")


def test_many_values_and_scattered_ranks_are_cut_short():
    # 16 ranks, every one its own file: four named, twelve counted
    files = ranks_with([{"MPITASKMAP_COORDS_FILE": f"/n{r}.txt"} for r in range(16)])
    assert describe_differences(files) == (
        "MPITASKMAP_COORDS_FILE differs between ranks: rank 0 '/n0.txt', rank 1 '/n1.txt', rank 2 '/n2.txt', "
        "rank 3 '/n3.txt', and 12 other values")
    # even ranks disabled, odd not: 8 runs are named in full, 10 are cut after 8
    assert describe_differences(ranks_with([{"MPITASKMAP_DISABLE": "1"} if r % 2 == 0 else {} for r in range(16)])) == (
        "MPITASKMAP_DISABLE differs between ranks: ranks 0,2,4,6,8,10,12,14 '1', ranks 1,3,5,7,9,11,13,15 unset")
    assert describe_differences(ranks_with([{"MPITASKMAP_DISABLE": "1"} if r % 2 == 0 else {} for r in range(20)])) == (
        "MPITASKMAP_DISABLE differs between ranks: ranks 0,2,4,6,8,10,12,14,... (10 ranks) '1', "
        "ranks 1,3,5,7,9,11,13,15,... (10 ranks) unset")


def test_equal_settings_and_an_empty_job_are_no_error():
    same = ranks_with([{"MPITASKMAP_PROVIDER": TITAN, PROVIDER_ARGUMENT: "hostname"}] * 3)
    assert describe_differences(same) == "" and describe_differences([]) == ""


def test_local_settings_read_the_variables_as_the_code_does(monkeypatch):
    from mpitaskmap.providers import get_provider

    monkeypatch.setenv("MPITASKMAP_PROVIDER", "  sim:titan:ppn=1 ")  # stripped, as the providers read it
    monkeypatch.setenv("MPITASKMAP_COORDS_FILE", "")  # empty is unset
    monkeypatch.setenv("MPITASKMAP_CXI_NIC", "cxi1")  # per rank: not compared
    assert dict(local_settings(None)) == {PROVIDER_ARGUMENT: None, "MPITASKMAP_DISABLE": None,
                                          "MPITASKMAP_PROVIDER": TITAN, "MPITASKMAP_COORDS_FILE": None,
                                          "MPITASKMAP_BGQ_SHAPE": None, "MPITASKMAP_BGQ_WRAP": None,
                                          "MPITASKMAP_FJMPI_SHAPE": None}
    assert local_settings(get_provider(TORUS))[0] == (PROVIDER_ARGUMENT, TORUS)  # a Provider stands for its spec


def test_every_variable_of_the_code_has_a_rule():
    # a new MPITASKMAP_ variable must be sorted: job-level (compared) or per rank (not)
    import re

    package = Path(__file__).resolve().parents[2] / "mpitaskmap"
    build_time = {"MPITASKMAP_OPENMP", "MPITASKMAP_CYTHON_DEBUG"}
    found = {m for p in package.rglob("*") if p.suffix in (".py", ".c")
             for m in re.findall(r"MPITASKMAP_[A-Z_]+[A-Z]", p.read_text(encoding="utf-8"))}
    assert not set(JOB_VARIABLES) & set(RANK_VARIABLES)
    assert found - build_time == set(JOB_VARIABLES) | set(RANK_VARIABLES)


# -- under mpiexec: every rank its own environment -----------------------------------------------


def others(n: int, odd: int) -> str:
    """The ranks of 0..n-1 but ``odd``, as the error writes them (``ranks 0,2-15`` for odd 1 of 16)."""
    parts = []
    if odd >= 1:
        parts.append("0" if odd == 1 else f"0-{odd - 1}")
    if odd <= n - 2:
        parts.append(str(n - 1) if odd == n - 2 else f"{odd + 1}-{n - 1}")
    return ("rank " if n == 2 else "ranks ") + ",".join(parts)


def ends(call):
    """``("raised", message)`` or ``("returned", value)``: how this rank ended."""
    try:
        return ("returned", call())
    except MappingError as exc:
        return ("raised", str(exc))


def remap_outcome(comm, on_error, **kwargs):
    from mpitaskmap import remap

    def call():
        new, rep = remap(comm, (float(comm.rank % 4), float(comm.rank // 4)), on_error=on_error, report=True,
                         **kwargs)
        try:
            return (rep.status, rep.error, rep.new_rank_of, new.rank == rep.new_rank_of[comm.rank], new.size)
        finally:
            new.Free()
    return ends(call)


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_one_ranks_provider_variable_ends_every_rank_alike(monkeypatch, caplog, on_error):
    comm = world()
    n = comm.size
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "sim:bogus" if comm.rank == 1 else TITAN)
    expected = f"MPITASKMAP_PROVIDER differs between ranks: {others(n, 1)} 'sim:titan:ppn=1', rank 1 'sim:bogus'"
    with caplog.at_level(logging.WARNING, logger="mpitaskmap"):
        outcome = remap_outcome(comm, on_error)
    assert all_same(comm, outcome)
    if on_error == "raise":
        assert outcome == ("raised", expected)
    else:
        assert outcome == ("returned", ("identity", expected, list(range(n)), True, n))
        logged = [r.getMessage() for r in caplog.records if r.name == "mpitaskmap"]
        assert logged == ([f"remap returns the unchanged order: {expected}"] if comm.rank == 0 else [])


@pytest.mark.mpi(min_size=2)
def test_mpi_the_provider_argument_differing_is_diagnosed_alike():
    comm = world()
    n, odd = comm.size, comm.size - 1
    spec = TORUS if comm.rank == odd else TITAN
    expected = (f"the provider argument differs between ranks: {others(n, odd)} 'sim:titan:ppn=1', "
                f"rank {odd} 'sim:torus:dims=4x4'")
    outcome = remap_outcome(comm, "raise", provider=spec)
    assert all_same(comm, outcome) and outcome == ("raised", expected)


@pytest.mark.mpi(min_size=2)
def test_mpi_equal_settings_and_per_rank_variables_map_as_before(monkeypatch):
    # MPITASKMAP_LOG and MPITASKMAP_CXI_NIC may differ: the job still maps (the same as without them)
    comm = world()
    monkeypatch.setenv("MPITASKMAP_PROVIDER", TITAN)
    plain = remap_outcome(comm, "raise")
    monkeypatch.setenv("MPITASKMAP_CXI_NIC", f"cxi{comm.rank % 4}")
    if comm.rank == 1:
        monkeypatch.setenv("MPITASKMAP_LOG", "error")
    outcome = remap_outcome(comm, "raise")
    assert all_same(comm, outcome) and outcome == plain
    assert outcome[0] == "returned" and outcome[1][1] == "" and sorted(outcome[1][2]) == list(range(comm.size))


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_create_cart_with_the_switch_on_rank_0_alone(monkeypatch, on_error):
    # before: rank 0's MPITASKMAP_DISABLE silently switched the whole job off
    from mpitaskmap import create_cart

    comm = world()
    n = comm.size
    monkeypatch.setenv("MPITASKMAP_PROVIDER", TITAN)
    if comm.rank == 0:
        monkeypatch.setenv("MPITASKMAP_DISABLE", "1")
    expected = f"MPITASKMAP_DISABLE differs between ranks: rank 0 '1', ranks 1-{n - 1} unset" if n > 2 else \
        "MPITASKMAP_DISABLE differs between ranks: rank 0 '1', rank 1 unset"

    def call():
        cart, rep = create_cart(comm, [n], [False], on_error=on_error, report=True)
        try:
            return (rep.status, rep.error, cart.rank == comm.rank, cart.Get_topo()[0])
        finally:
            cart.Free()
    outcome = ends(call)
    assert all_same(comm, outcome)
    assert outcome == (("raised", expected) if on_error == "raise" else ("returned", ("identity", expected, True, [n])))


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("on_error", ["raise", "identity"])
def test_mpi_create_dist_graph_with_one_ranks_machine_file(monkeypatch, tmp_path, on_error):
    from mpitaskmap import create_dist_graph_adjacent

    comm = world()
    n = comm.size
    odd = n // 2
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "file")
    monkeypatch.setenv("MPITASKMAP_COORDS_FILE", "/nodes/alloc.txt" if comm.rank != odd else "/tmp/alloc.txt")
    expected = (f"MPITASKMAP_COORDS_FILE differs between ranks: {others(n, odd)} '/nodes/alloc.txt', "
                f"rank {odd} '/tmp/alloc.txt'")
    ring = [(comm.rank - 1) % n, (comm.rank + 1) % n]

    def call():
        g, rep = create_dist_graph_adjacent(comm, ring, ring, on_error=on_error, report=True)
        try:
            return (rep.status, rep.error, g.rank == comm.rank, g.Get_dist_neighbors()[:2])
        finally:
            g.Free()
    outcome = ends(call)
    assert all_same(comm, outcome if outcome[0] == "raised" else outcome[1][:3])  # the neighbours are the rank's own
    assert outcome == (("raised", expected) if on_error == "raise" else
                       ("returned", ("identity", expected, True, (ring, ring))))


@pytest.mark.mpi(min_size=2)
def test_mpi_the_order_hooks_and_the_pmpi_hooks_raise_alike(monkeypatch):
    from mpitaskmap.runtime import pmpi
    from mpitaskmap.runtime.topology_comms import cart_order, dist_graph_order

    comm = world()
    n = comm.size
    monkeypatch.setenv("MPITASKMAP_PROVIDER", "sim:bogus" if comm.rank == 1 else TITAN)
    expected = f"MPITASKMAP_PROVIDER differs between ranks: {others(n, 1)} 'sim:titan:ppn=1', rank 1 'sim:bogus'"
    ring = [(comm.rank - 1) % n, (comm.rank + 1) % n]
    ints = lambda v: np.asarray(v, dtype=np.intc).tobytes()  # noqa: E731
    calls = {"cart_order": lambda: cart_order(comm, [n], [True]),
             "dist_graph_order": lambda: dist_graph_order(comm, ring, ring),
             "cart_order_hook": lambda: pmpi.cart_order_hook(comm.py2f(), ints([n]), ints([1])),
             "dist_graph_order_hook": lambda: pmpi.dist_graph_order_hook(comm.py2f(), ints(ring), ints(ring), b"", b"",
                                                                         0)}
    for name, call in calls.items():
        outcome = ends(call)
        assert all_same(comm, outcome), name
        assert outcome == ("raised", expected), name
    # agreeing again: the same hooks map
    monkeypatch.setenv("MPITASKMAP_PROVIDER", TITAN)
    assert sorted(cart_order(comm, [n], [True])) == list(range(n))


# -- a real launch: MPMD blocks of ranks, each with its own environment -----------------------------

LAUNCHED = """
import sys
from mpi4py import MPI
from mpitaskmap import MappingError, remap
comm = MPI.COMM_WORLD
try:
    remap(comm, (float(comm.rank),)).Free()
    outcome = "mapped"
except MappingError as exc:
    outcome = f"MappingError: {exc}"
with open(f"{sys.argv[1]}/rank{comm.rank}.txt", "w") as fh:  # one file per rank: stdout would interleave
    fh.write(outcome)
"""


def test_ranks_launched_with_different_environments_fail_alike(tmp_path):
    bin_dir = Path(sys.executable).parent
    mpiexec = bin_dir / "mpiexec"
    if not (mpiexec.exists() and (bin_dir / "mpichversion").exists()):
        pytest.skip("no MPICH mpiexec next to this Python (pip install mpich): its MPMD blocks take -env")
    script = tmp_path / "app.py"
    script.write_text(LAUNCHED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    blocks = [(1, TITAN), (1, "sim:bogus"), (2, TITAN)]  # ranks 0, 1, 2-3
    cmd = [str(mpiexec)]
    for count, spec in blocks:
        cmd += ["-n", str(count), "-env", "MPITASKMAP_PROVIDER", spec, sys.executable, str(script), str(tmp_path), ":"]
    res = subprocess.run(cmd[:-1], capture_output=True, text=True, timeout=240, env=env)
    assert res.returncode == 0, res.stderr
    expected = "MappingError: MPITASKMAP_PROVIDER differs between ranks: ranks 0,2-3 'sim:titan:ppn=1', rank 1 'sim:bogus'"
    assert [(tmp_path / f"rank{r}.txt").read_text() for r in range(4)] == [expected] * 4, res.stdout + res.stderr


def test_the_pmpi_library_on_ranks_with_different_providers_takes_mpis_own_call(tmp_path):
    # an unchanged C program, the library preloaded; rank 1's launch block has another provider: the hook
    # raises the agreed error on every rank, the library turns every rank to MPI's own call and rank 0 says why
    bin_dir = Path(sys.executable).parent
    if not all((bin_dir / name).exists() for name in ("mpiexec", "mpicc", "mpichversion")):
        pytest.skip("no MPICH mpiexec/mpicc next to this Python (pip install mpich)")
    from mpitaskmap.runtime import pmpi

    lib = pmpi.pmpi_library()
    halo3d = tmp_path / "halo3d"
    root = Path(__file__).resolve().parents[2]
    subprocess.run([str(bin_dir / "mpicc"), "-O2", "-o", str(halo3d), str(root / "examples" / "halo3d.c")],
                   check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_") and k != "LD_PRELOAD"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["MPITASKMAP_PROVIDER"] = TORUS
    cmd = [str(bin_dir / "mpiexec")]
    for count, extra in ((1, []), (1, ["-env", "MPITASKMAP_PROVIDER", "sim:bogus"]), (14, [])):
        cmd += ["-n", str(count), *extra, "-env", "LD_PRELOAD", str(lib), str(halo3d), "--cart",
                "4", "2", "2", "8", "8", "8", "5", "3", ":"]
    res = subprocess.run(cmd[:-1], capture_output=True, text=True, timeout=240, env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == "cart_order " + " ".join(map(str, range(16)))  # MPI's own order
    assert "halo check ok" in res.stdout
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("mpitaskmap:")]
    assert len(lines) == 1 and lines[0].endswith(
        ": rank 0: mpitaskmap.cart_order: MappingError: MPITASKMAP_PROVIDER differs between ranks: ranks 0,2-15 "
        "'sim:torus:dims=4x4', rank 1 'sim:bogus'"), res.stderr
