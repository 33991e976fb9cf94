"""The job-data gather of remap(): headers, narrow router coordinates, and the node leader's
build into shared windows (serial pieces here; collective ones marked ``mpi``).

MPI tests run under ``mpiexec -n 4`` and ``-n 16`` on ``COMM_WORLD``, cut into pseudo-nodes
(``NodeShare(comm, node_color=...)``) so that several node leaders must agree.
"""

import dataclasses
import pickle

import numpy as np
import pytest

from mpitaskmap import TaskGraph
from mpitaskmap.runtime.gather import (HEADER, LocalRank, _agreed_error, _header, input_error,
                                   location_dtype, pack_shared, unpack_shared, window_layout)
from mpitaskmap.errors import InvalidInputError

pytestmark = pytest.mark.timeout(240)


# -- serial: the pieces -------------------------------------------------------------------


def test_location_dtype_is_the_narrowest_exact_type():
    assert [location_dtype(m).name for m in (0, 127)] == ["int8", "int8"]
    assert [location_dtype(m).name for m in (128, 32767)] == ["int16", "int16"]
    assert [location_dtype(m).name for m in (32768, 2**31 - 2)] == ["int32", "int32"]
    # the header's 2**31 - 1 means "at least that": only int64 is exact then
    assert location_dtype(2**31 - 1).name == "int64"
    for m in (127, 32767, 2**31 - 2):  # both signs of the magnitude round-trip
        v = np.array([-m, m], dtype=np.int64)
        assert np.array_equal(v.astype(location_dtype(m)), v)


def test_header_is_int32_with_the_digest_in_two_exact_halves():
    digest = -(2**62) + 12345  # a 63-bit signed digest
    local = LocalRank(coords=np.zeros(3), neighbors=np.arange(6), weights=np.ones(6),
                      location=np.array([3, -40000, 7]), node=b"nid00012", digest=digest)
    head = _header(local)
    assert head.dtype == np.int32 and head.size == len(HEADER)
    row = dict(zip(HEADER, head.tolist()))
    assert (row["flags"], row["task_dims"], row["loc_dims"], row["n_neighbors"], row["name_len"],
            row["error_len"]) == (0, 3, 3, 6, 8, 0)
    assert row["loc_magnitude"] == 40000  # the most negative coordinate counts by its size
    assert int(head[[7, 8]].view(np.int64)[0]) == digest
    # beyond int32 the magnitude saturates at 2**31 - 1, which picks int64 (never clipped values)
    far = _header(LocalRank(coords=np.zeros(1), location=np.array([2**40]), digest=1))
    assert far[6] == 2**31 - 1 and location_dtype(int(far[6])) == np.int64
    # a local error sets its flag and the text length
    bad = _header(LocalRank(task_error="ValueError: x", node=b"n0"))
    assert bad[0] == 1 and bad[1] == -1 and bad[5] == len("ValueError: x")
    # neighbours without weights (no message sizes): their own bit, beside an error's
    assert _header(dataclasses.replace(local, sized=False))[0] == 4
    assert _header(LocalRank(task_error="ValueError: x", sized=False))[0] == 5


def test_agreed_error_compares_both_digest_halves():
    rows = [_header(LocalRank(coords=np.zeros(2), location=np.zeros(2, dtype=np.int64), digest=d))
            for d in (5, 5, 5 + 2**32, 5)]  # rank 2 differs in the high half only
    head = np.array(rows).astype(np.int64)
    assert _agreed_error(head, np.zeros(0, np.uint8)) == (
        "provider: rank 2 reports a different provider or network than rank 0", 2)
    rows[2] = rows[0]
    assert _agreed_error(np.array(rows).astype(np.int64), np.zeros(0, np.uint8)) == ("", -1)


def test_input_error_wording():
    assert input_error(InvalidInputError("locations: rank 3")) == "inputs: InvalidInputError: locations: rank 3"


def test_window_layout_aligns_every_array():
    assert window_layout([]) == ([], 0)
    assert window_layout([8, 100, 0, 1]) == ([0, 64, 192, 192], 193)
    assert window_layout([64, 64]) == ([0, 64], 128)


def test_pack_refers_to_the_first_window_and_copies_the_rest():
    n = 1000
    first = np.zeros(2 * n * 8, dtype=np.uint8)  # a "window" holding one array at offset 64, half of it
    inside = np.frombuffer(first, dtype=np.int64, count=n, offset=64)
    inside[:] = np.arange(n)
    private = np.arange(n, dtype=np.float64) * 0.5
    small = np.arange(3, dtype=np.int64)
    strided = np.arange(8.0)[::2]  # not contiguous: in the pickle
    obj = dict(inside=inside, private=private, small=small, strided=strided, name="x")
    payload, places, second_nbytes, copies = pack_shared(obj, memoryview(first))
    assert len(payload) < 1000  # the arrays are out of band
    assert places == [(0, 64, n * 8), (1, 0, n * 8), (1, n * 8, 24)]
    assert second_nbytes == n * 8 + 24 and [off for off, _ in copies] == [0, n * 8]
    second = np.zeros(second_nbytes, dtype=np.uint8)
    for off, raw in copies:
        second[off: off + raw.nbytes] = np.frombuffer(raw, dtype=np.uint8)
    out = unpack_shared(payload, places, [first, second])
    assert out["name"] == "x" and out["small"].tolist() == [0, 1, 2] and out["strided"].tolist() == [0, 2, 4, 6]
    np.testing.assert_array_equal(out["inside"], inside)
    np.testing.assert_array_equal(out["private"], private)
    # zero copy: the arrays are read-only views of the windows
    assert np.shares_memory(out["inside"], first) and np.shares_memory(out["private"], second)
    assert not out["inside"].flags.writeable and not out["private"].flags.writeable
    assert np.shares_memory(out["small"], second) and not np.shares_memory(out["strided"], second)
    # without a first window everything is copied to the second; so too when what lies in
    # the first would use less than half of it (it is not kept then)
    copied = [(1, 0, n * 8), (1, 64 * -(-n * 8 // 64), n * 8), (1, 2 * 64 * -(-n * 8 // 64), 24)]
    assert pack_shared(obj)[1] == copied
    larger = np.zeros(2 * n * 8 + 8, dtype=np.uint8)  # the same array is 8 bytes short of half of it
    obj["inside"] = np.frombuffer(larger, dtype=np.int64, count=n, offset=64)
    assert pack_shared(obj, memoryview(larger))[1] == copied


def test_pack_a_task_graph_round_trips_as_views():
    g = TaskGraph.stencil([16, 16, 8])
    payload, places, second_nbytes, copies = pack_shared(g)
    second = np.zeros(second_nbytes, dtype=np.uint8)
    for off, raw in copies:
        second[off: off + raw.nbytes] = np.frombuffer(raw, dtype=np.uint8)
    h = unpack_shared(payload, places, [None, second])
    for name in ("indptr", "indices", "weights", "coords"):
        np.testing.assert_array_equal(getattr(h, name), getattr(g, name))
        assert np.shares_memory(getattr(h, name), second)
    assert h.indices.dtype == np.intp and h.weights.dtype == np.float64
    assert pickle.loads(pickle.dumps(h)).n_edges == g.n_edges
    assert h.sized is g.sized is False  # a stencil without weight=: the flag travels with the graph


# -- MPI: the node leaders build into shared windows ----------------------------------------


def _local(r, size, *, sorted_neighbors=True):
    """Rank r of a ring of `size` tasks on a 1-D torus of 8 routers, 2 ranks per node."""
    nbrs = sorted({(r - 1) % size, (r + 1) % size} - {r})
    if not sorted_neighbors:
        nbrs = nbrs[::-1]
    return LocalRank(coords=np.array([float(r), -float(r)]), neighbors=np.array(nbrs, dtype=np.int64),
                     weights=np.full(len(nbrs), 1.0 + r % 3), location=np.array([(r // 2) % 8]),
                     node=f"n{r // 2}".encode(), digest=7)


def _build(job):
    from mpitaskmap.providers import NetworkInfo, assemble_machine_arrays

    graph = TaskGraph.from_neighbor_arrays(job.counts, job.neighbors, job.weights, coords=job.coords)
    return graph, assemble_machine_arrays(job.locations, job.nodes, NetworkInfo(dims=(8,)), name="ring")


def _window_bytes(share):
    return [np.frombuffer(win.Shared_query(0)[0], dtype=np.uint8) for win in share.windows]


@pytest.mark.mpi
@pytest.mark.parametrize("nodes", [1, 2, 3])
def test_every_rank_views_the_graph_and_machine_the_leader_built(nodes):
    """Pseudo-nodes whose ranks interleave (rank r on node r % nodes): the leaders' blocks
    arrive node by node and must land in rank order; the graph and machine equal the plain
    gather's, and on every rank their arrays are read-only views of the node's windows."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare, gather_job

    comm = MPI.COMM_WORLD
    r = comm.rank
    local = _local(r, comm.size)
    plain = _build(gather_job(comm, local))
    share = NodeShare(comm, node_color=r % nodes)
    try:
        job = share.gather_and_build(local, _build)
        assert job.error == "" and job.coords is None and job.neighbors is None  # the raw arrays are not kept
        graph, machine = job.built
        for a, b in ((graph.indptr, plain[0].indptr), (graph.indices, plain[0].indices),
                     (graph.weights, plain[0].weights), (graph.coords, plain[0].coords),
                     (machine.router_coords, plain[1].router_coords), (machine.node_ids, plain[1].node_ids)):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype and not a.flags.writeable
            assert any(np.shares_memory(a, w) for w in _window_bytes(share)), "a private copy"
        assert graph.coords[:, 0].tolist() == list(range(comm.size))
        # the neighbours, weights and coordinates were received in the first window, the
        # rest (row pointers, router coordinates, node ids) laid out in the second
        first, second = _window_bytes(share)
        assert np.shares_memory(graph.indices, first) and np.shares_memory(graph.coords, first)
        assert np.shares_memory(graph.indptr, second) and np.shares_memory(machine.node_ids, second)
        # router coordinates in the narrowest exact type the kernels take (int16), kept so by
        # the machine: a read-only view of the second window, no private int64 copy
        assert machine.router_coords.dtype == np.int16 and np.shares_memory(machine.router_coords, second)
        assert not machine.router_coords.flags.writeable
        assert machine.hops([0], [comm.size - 1]).tolist() == plain[1].hops([0], [comm.size - 1]).tolist()
        # only the leader allocates; every rank of the node reads the same bytes
        sizes = [win.Get_attr(MPI.WIN_SIZE) for win in share.windows]
        assert sizes == ([len(first), len(second)] if share.node.rank == 0 else [0, 0])
        assert job.shared_bytes == len(first) + len(second)
        assert len(set(comm.allgather(job.shared_bytes))) == 1
        everyone = share.node.allgather(first.tobytes() + second.tobytes())
        assert all(b == everyone[0] for b in everyone)
    finally:
        share.free()
    assert share.windows == [] and share.node == MPI.COMM_NULL


@pytest.mark.mpi
@pytest.mark.parametrize("unsized_rank", [None, 0, -1])
def test_every_rank_learns_whether_all_ranks_gave_message_sizes(unsized_rank):
    """One rank without weights (neighbours given, weights 1.0 each) makes the job's graph
    unsized on every rank, in the plain gather and in the node leaders' build alike."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare, gather_job

    comm = MPI.COMM_WORLD
    r = comm.rank
    local = _local(r, comm.size)
    if unsized_rank is not None and r == unsized_rank % comm.size:
        local = dataclasses.replace(local, weights=np.ones(local.neighbors.size), sized=False)
    want = unsized_rank is None
    job = gather_job(comm, local)
    assert job.error == "" and job.sized is want
    share = NodeShare(comm, node_color=r % 2)
    try:
        shared = share.gather_and_build(local, _build)
        assert shared.error == "" and shared.sized is want
    finally:
        share.free()
    assert comm.allgather(job.sized) == [want] * comm.size


@pytest.mark.mpi
def test_first_window_freed_when_the_graph_is_rebuilt():
    """Neighbours not in increasing order: the leader's graph is re-sorted into new arrays,
    only the coordinates would stay in the first window: they are copied to the second and
    the first is freed at once; the graph is still the plain gather's."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare, gather_job

    comm = MPI.COMM_WORLD
    if comm.size < 3:
        pytest.skip("a ring of 3 or more tasks has two neighbours to reverse")
    local = _local(comm.rank, comm.size, sorted_neighbors=False)
    plain = _build(gather_job(comm, local))
    share = NodeShare(comm, node_color=comm.rank % 2)
    try:
        job = share.gather_and_build(local, _build)
        graph, _ = job.built
        np.testing.assert_array_equal(graph.indices, plain[0].indices)
        assert share.n_windows == 1
        assert np.shares_memory(graph.indices, _window_bytes(share)[0])
        assert np.shares_memory(graph.coords, _window_bytes(share)[0])
        assert comm.allgather(job.shared_bytes) == [max(comm.allgather(share.windows[0].Get_attr(MPI.WIN_SIZE)))] * comm.size
    finally:
        share.free()


@pytest.mark.mpi
def test_router_coordinates_travel_narrow_and_exact():
    """Router coordinates are gathered in the narrowest exact type: int8 here, int64 when
    one rank reports 2**40 (never clipped: the build sees the exact value)."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare

    comm = MPI.COMM_WORLD
    seen = {}
    for far in (False, True):
        local = _local(comm.rank, comm.size)
        if far and comm.rank == comm.size - 1:
            local.location = np.array([2**40])

        def build(job, far=far):
            seen[far] = (job.locations.dtype, int(job.locations.max()))
            return _build(job)

        share = NodeShare(comm, node_color=comm.rank % 2)
        try:
            job = share.gather_and_build(local, build)
        finally:
            share.free()
        if share.leader:
            assert seen[far] == ((np.dtype(np.int64), 2**40) if far else (np.dtype(np.int8), max(0, min(comm.size // 2 - 1, 7))))
        if far:
            assert job.error == ("inputs: InvalidInputError: locations: rank %d has coordinate 1099511627776 in "
                                 "dimension 0, outside [0, 8); got (1099511627776,) on node 'n%d'"
                                 % (comm.size - 1, (comm.size - 1) // 2))


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("failing", ["one", "two"])
def test_a_build_failure_on_one_leader_ends_alike_on_every_rank(failing):
    """The build fails on one node leader only (or on two, with different messages): every
    rank of the job gets the first failing leader's error, nothing built, and the windows
    of the call are freed on every node."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare

    comm = MPI.COMM_WORLD
    nodes = min(comm.size, 3)
    share = NodeShare(comm, node_color=comm.rank % nodes)  # leaders: comm ranks 0, 1 (, 2)
    bad = {1: "out of memory on node 1"} if failing == "one" else {1: "first", nodes - 1: "second"}
    if nodes == 2 and failing == "two":
        bad = {0: "first", 1: "second"}

    def build(job):
        if comm.rank in bad:
            raise MemoryError(bad[comm.rank])
        return _build(job)

    try:
        job = share.gather_and_build(_local(comm.rank, comm.size), build)
        everyone = comm.allgather((job.error, job.built is None, share.n_windows))
    finally:
        share.free()
    expected = f"inputs: MemoryError: {bad[min(bad)]}"
    assert everyone == [(expected, True, 0)] * comm.size


@pytest.mark.mpi
def test_a_local_error_is_agreed_before_any_window():
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare

    comm = MPI.COMM_WORLD
    local = _local(comm.rank, comm.size)
    if comm.rank == comm.size - 1:
        local = LocalRank(task_error="ValueError: coords: bad", node=local.node, location=local.location, digest=7)
    share = NodeShare(comm, node_color=comm.rank % 2)
    calls = []
    try:
        job = share.gather_and_build(local, lambda job: calls.append(1))
        assert (job.error, job.built, share.n_windows, calls) == (
            f"task: rank {comm.size - 1}: ValueError: coords: bad", None, 0, [])
    finally:
        share.free()


@pytest.mark.mpi(min_size=4)
@pytest.mark.parametrize("which", ["first", "second"])
def test_a_window_failure_on_one_follower_ends_alike_on_every_rank(which):
    """A window cannot be set up on one rank that is not a leader (the last rank): its node
    leader still builds, learns of it in the node's agreement, and every rank of the job
    ends with that error, its windows freed."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare

    comm = MPI.COMM_WORLD
    if comm.size < 4:
        pytest.skip("needs a node of two or more ranks besides another node")
    share = NodeShare(comm, node_color=comm.rank % 2)
    if comm.rank == comm.size - 1:
        real, calls = share._allocate, []

        def allocate(nbytes):
            calls.append(nbytes)
            win, buf, err = real(nbytes)
            failing = (which == "first") == (len(calls) == 1)
            return win, buf, (input_error(MemoryError("no shared memory left")) if failing else err)

        share._allocate = allocate
    try:
        job = share.gather_and_build(_local(comm.rank, comm.size), _build)
        everyone = comm.allgather((job.error, job.built is None, share.n_windows))
    finally:
        share.free()
    assert everyone == [("inputs: MemoryError: no shared memory left", True, 0)] * comm.size


@pytest.mark.mpi
@pytest.mark.parametrize("value, dtype", [(32767, np.int16), (40000, np.int32), (-1, None)])
def test_window_router_coordinates_take_the_narrowest_exact_type(value, dtype):
    """One rank on router 32767 of a 65536-router ring keeps int16; on router 40000 (beyond
    int16) the window holds int32, exactly; a negative coordinate is refused on every rank
    with the rank and value named (the validation is unchanged)."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare
    from mpitaskmap.providers import NetworkInfo, assemble_machine_arrays

    comm = MPI.COMM_WORLD
    last = comm.size - 1
    local = _local(comm.rank, comm.size)
    local.node = f"n{comm.rank}".encode()  # one rank a node: any router is allowed
    if comm.rank == last:
        local.location = np.array([value])

    def build(job):
        graph = TaskGraph.from_neighbor_arrays(job.counts, job.neighbors, job.weights, coords=job.coords)
        return graph, assemble_machine_arrays(job.locations, job.nodes, NetworkInfo(dims=(65536,)), name="ring")

    share = NodeShare(comm, node_color=comm.rank % 2)
    try:
        job = share.gather_and_build(local, build)
        if dtype is None:
            assert job.error == ("inputs: InvalidInputError: locations: rank %d has coordinate -1 in dimension 0, "
                                 "outside [0, 65536); got (-1,) on node 'n%d'" % (last, last))
            return
        _, machine = job.built
        rc = machine.router_coords
        assert rc.dtype == dtype and rc[last, 0] == value
        assert rc[:last, 0].tolist() == [(r // 2) % 8 for r in range(last)]
        assert any(np.shares_memory(rc, w) for w in _window_bytes(share))
        assert machine.hops([last], [0]).tolist() == [min(value, 65536 - value)]
    finally:
        share.free()


@pytest.mark.mpi
def test_any_integer_and_float_types_gather_alike():
    """Neighbours given as int32, weights as float32, coordinates as ints: sent as the typed
    collectives expect (int64, float64), so the plain and shared gathers build the same."""
    from mpi4py import MPI

    from mpitaskmap.runtime.gather import NodeShare, gather_job

    comm = MPI.COMM_WORLD
    ref = _local(comm.rank, comm.size)
    odd = LocalRank(coords=ref.coords.astype(np.int16), neighbors=ref.neighbors.astype(np.int32),
                    weights=ref.weights.astype(np.float32), location=ref.location.astype(np.uint8), node=ref.node,
                    digest=7)
    expected = _build(gather_job(comm, ref))
    plain = _build(gather_job(comm, odd))
    share = NodeShare(comm, node_color=comm.rank % 2)
    try:
        shared = share.gather_and_build(odd, _build).built
        for got in (plain, shared):
            np.testing.assert_array_equal(got[0].indices, expected[0].indices)
            np.testing.assert_array_equal(got[0].weights, expected[0].weights)
            np.testing.assert_array_equal(got[0].coords, expected[0].coords)
            np.testing.assert_array_equal(got[1].router_coords, expected[1].router_coords)
    finally:
        share.free()
