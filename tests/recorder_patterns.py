"""What the recorder must record of the test programs' patterns, and a recording read back: shared by
``tests/runtime/test_pmpi_recorder.py`` (``tests/pmpi_programs/traffic.c``) and
``tests/runtime/test_pmpi_recorder_fortran.py`` (``traffic.F90``, the same patterns).

Each pattern's matrices are computed here from the programs' common description, never by the
recorder's logic: ``{(sender, receiver): value}`` in world ranks from 0, messages and bytes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

Pairs = Counter  # (sender, receiver) -> value, world ranks from 0

#: Face sizes in doubles of traffic.c's halo, by dimension.
FACE = (6, 10, 15)
#: traffic.c's halo grids by job size (PX, PY, PZ): at 4 a dimension of 1 (self-sends) and of 2
#: (both neighbours the same rank).
HALO_DIMS = {4: (2, 2, 1), 16: (4, 2, 2)}
HALO_STEPS = 3


def ring(p: int) -> tuple[Pairs, Pairs]:
    """r sends (r + 1) ints to r + 1 four times."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 4
        nbytes[r, (r + 1) % p] += 4 * 4 * (r + 1)
    return msgs, nbytes


def halo(p: int) -> tuple[Pairs, Pairs]:
    """Each step a face of FACE[d] doubles to both neighbours in each dimension of the periodic grid."""
    dims = HALO_DIMS[p]
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        coords = np.unravel_index(r, dims)  # MPI's Cartesian ranks: row-major, the last dimension fastest
        for d in range(3):
            for step in (-1, 1):
                c = list(coords)
                c[d] = (c[d] + step) % dims[d]
                q = int(np.ravel_multi_index(c, dims))
                msgs[r, q] += HALO_STEPS
                nbytes[r, q] += HALO_STEPS * FACE[d] * 8
    return msgs, nbytes


def transpose(p: int) -> tuple[Pairs, Pairs]:
    """r sends (1 + r + 2 j) ints to every j != r."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        for j in range(p):
            if j != r:
                msgs[r, j] += 1
                nbytes[r, j] += 4 * (1 + r + 2 * j)
    return msgs, nbytes


def persistent(p: int) -> tuple[Pairs, Pairs]:
    """A persistent send of (r + 1) doubles to r + 1 started 5 times; the one to r + 2 never started."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 5
        nbytes[r, (r + 1) % p] += 5 * 8 * (r + 1)
    return msgs, nbytes


def pcontrol(p: int) -> tuple[Pairs, Pairs]:
    """Only the 3 sends of (r + 1) ints to r - 1, between MPI_Pcontrol(1) and MPI_Pcontrol(0)."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r - 1) % p] += 3
        nbytes[r, (r - 1) % p] += 3 * 4 * (r + 1)
    return msgs, nbytes


def split(p: int) -> tuple[Pairs, Pairs]:
    """The parity halves ranked by descending world rank, an intercommunicator between them, a dup of the world."""
    msgs, nbytes = Pairs(), Pairs()
    halves = [sorted(range(c, p, 2), reverse=True) for c in (0, 1)]  # MPI_Comm_split(color r % 2, key -r)
    for r in range(p):
        mine, other = halves[r % 2], halves[1 - r % 2]
        s = mine.index(r)
        for q, size in ((mine[(s + 1) % len(mine)], 4 * (r + 1)),  # on the half
                        (other[0], r + 100),  # to remote rank 0 of the intercommunicator
                        ((r + 1) % p, 4)):  # on MPI_Comm_dup(MPI_COMM_WORLD)
            msgs[r, q] += 1
            nbytes[r, q] += size
    return msgs, nbytes


def threads(p: int) -> tuple[Pairs, Pairs]:
    """4 threads of each rank send 500 messages of (r + 1) ints to r + 1 at once (MPI_THREAD_MULTIPLE)."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 4 * 500
        nbytes[r, (r + 1) % p] += 4 * 500 * 4 * (r + 1)
    return msgs, nbytes


def mpi4(p: int) -> tuple[Pairs, Pairs]:
    """(r + 1) ints to r + 1 by 6 calls of MPI 4 (the large-count forms, MPI_Isendrecv ...), 5 ints by 2 more."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 8
        nbytes[r, (r + 1) % p] += 6 * 4 * (r + 1) + 2 * 4 * 5
    return msgs, nbytes


def onesided(p: int) -> tuple[Pairs, Pairs]:
    """Every rank r targets world rank L = r - 1 (rank (s + 1) % P of a window on the reversed world).

    Data flow: Put / Accumulate / Rput / Raccumulate origin -> target; Get / Rget target -> origin;
    Get_accumulate, Fetch_and_op, Rget_accumulate both ways (nothing to the target for MPI_NO_OP);
    Compare_and_swap 2 elements to the target (new value and compared one), 1 back.  The Put to
    MPI_PROC_NULL and the one inside MPI_Pcontrol(0) count nothing."""
    msgs, nbytes = Pairs(), Pairs()

    def flow(a: int, b: int, size: int) -> None:
        msgs[a, b] += 1
        nbytes[a, b] += size

    for r in range(p):
        left = (r - 1) % p
        flow(r, left, 8 * (r + 1))  # MPI_Put of r + 1 doubles
        flow(left, r, 3 * 4)  # MPI_Get of 3 ints
        flow(r, left, 2 * 8)  # MPI_Accumulate of 2 doubles
        flow(r, left, 4 * 4), flow(left, r, 4 * 4)  # MPI_Get_accumulate, 4 ints each way
        flow(left, r, 5 * 4)  # MPI_Get_accumulate(MPI_NO_OP): its result of 5 ints only
        flow(r, left, 8), flow(left, r, 8)  # MPI_Fetch_and_op of an int64
        flow(r, left, 2 * 4), flow(left, r, 4)  # MPI_Compare_and_swap of an int
        flow(r, left, 8)  # MPI_Rput of a double
        flow(left, r, 2 * 8)  # MPI_Rget of 2 doubles
        flow(r, left, 4)  # MPI_Raccumulate of an int
        flow(r, left, 4), flow(left, r, 4)  # MPI_Rget_accumulate of an int
    return msgs, nbytes


#: traffic.c neighbor's Cartesian grid: (P/2, 2, 1), periodic in dimensions 0 and 2.
NEIGHBOR_PERIODS = (True, False, True)


def cart_out_neighbours(r: int, dims: tuple, periods: tuple) -> list:
    """MPI's order of a Cartesian rank's neighbours: per dimension, the source then the destination of a
    shift by +1 (row-major ranks); None where a non-periodic grid ends (MPI_PROC_NULL)."""
    coords = np.unravel_index(r, dims)
    out = []
    for d in range(len(dims)):
        for step in (-1, 1):
            c = list(coords)
            c[d] += step
            if not 0 <= c[d] < dims[d]:
                if not periods[d]:
                    out.append(None)
                    continue
                c[d] %= dims[d]
            out.append(int(np.ravel_multi_index(c, dims)))
    return out


def neighbor(p: int, persistent: bool = True) -> tuple[Pairs, Pairs]:
    """traffic.c neighbor: block i to out-neighbour i; MPI_PROC_NULL neighbours get nothing; the
    MPI_Ineighbor_allgather inside MPI_Pcontrol(0) is not counted; ``persistent``: the MPI has
    MPI_Neighbor_alltoall_init (2 starts of an int a block)."""
    msgs, nbytes = Pairs(), Pairs()
    dims = (p // 2, 2, 1)
    for r in range(p):
        for i, q in enumerate(cart_out_neighbours(r, dims, NEIGHBOR_PERIODS)):
            if q is None:
                continue
            sizes = [4 * (r + 1),  # MPI_Neighbor_allgather of r + 1 ints
                     2 * 8,  # MPI_Neighbor_alltoall, 2 doubles a block
                     4 * (i + 1),  # MPI_Ineighbor_alltoallv, block i of i + 1 ints
                     8 if i // 2 % 2 else 4,  # MPI_Neighbor_alltoallw: an int or a double by dimension
                     3]  # MPI_Neighbor_allgatherv of 3 chars
            sizes += [4, 4] if persistent else []
            msgs[r, q] += len(sizes)
            nbytes[r, q] += sum(sizes)
        for q, size in (((r + 1) % p, 5 * 4), ((r + 3) % p, 7 * 4)):  # the distributed graph
            msgs[r, q] += 2
            nbytes[r, q] += size + 8
        for q in ((r - 1) % p, (r + 1) % p):  # the graph: a ring
            msgs[r, q] += 1
            nbytes[r, q] += 2 * 4
    return msgs, nbytes


def partitioned(p: int) -> tuple[Pairs, Pairs]:
    """MPI_Psend_init of 4 partitions of r + 1 ints to r + 1, started 3 times: one message of the whole buffer a start."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        msgs[r, (r + 1) % p] += 3
        nbytes[r, (r + 1) % p] += 3 * 4 * 4 * (r + 1)
    return msgs, nbytes


def large(p: int) -> tuple[Pairs, Pairs]:
    """traffic.c large (the _c forms): r -> r + 1 a Put_c of r + 1 doubles, the origin int of a
    Get_accumulate_c and the neighbourhood block of 2 ints; r + 1 -> r the Get_c of 2 ints and the
    result int; r -> r - 1 the neighbourhood block of an int."""
    msgs, nbytes = Pairs(), Pairs()
    for r in range(p):
        right, left = (r + 1) % p, (r - 1) % p
        for a, b, sizes in ((r, right, [8 * (r + 1), 4, 2 * 4]), (right, r, [2 * 4, 4]), (r, left, [4])):
            msgs[a, b] += len(sizes)
            nbytes[a, b] += sum(sizes)
    return msgs, nbytes


def members_hash(members: list) -> str:
    """The recorder's identity of a communicator: FNV-1a (64 bits) over its sorted world ranks' int32 bytes."""
    h = 1469598103934665603
    for m in sorted(members):
        for byte in int(m).to_bytes(4, "little", signed=True):
            h = ((h ^ byte) * 1099511628211) % 2 ** 64
    return f"{h:016x}"


def collectives(p: int, intercomm: bool = False) -> list[dict]:
    """traffic.c collectives' entries, by hand from the MPI standard's send-buffer rules.

    ``intercomm``: with the MPI_Bcast on the intercommunicator between the halves (traffic.c's;
    tests/pmpi_programs/traffic.F90, which tests/runtime/test_pmpi_recorder_fortran.py checks
    against this function, makes none).

    Bytes are what every member contributes: a root's MPI_Bcast buffer, everyone's reduction
    vector, a Gather's block (the root's own in place: the same block), a Scatter root's P blocks,
    an Alltoall's P blocks ...  MPI_Comm_dup(MPI_COMM_WORLD) has the world's members, and so has the
    intercommunicator between the parity halves (both groups together): the same entry."""
    tri = p * (p + 1) // 2
    world_bytes = (10 * 4  # MPI_Bcast: the root's 10 ints
                   + 2 * p * 3 * 8  # MPI_Allreduce of 3 doubles, then in place: the same
                   + p * 2 * 4  # MPI_Reduce
                   + p * 4  # MPI_Gather: 1 int each, the root's in place
                   + p * 2 * 4  # MPI_Scatter: the root's P blocks of 2 ints
                   + p * 8  # MPI_Allgather
                   + p * p * 4  # MPI_Alltoall: P blocks of an int each
                   + p * tri * 4  # MPI_Alltoallv: i + 1 ints to i, from each
                   + p * p * 4  # MPI_Alltoallw
                   + p * p * 4  # MPI_Reduce_scatter_block: P blocks of an int
                   + p * p * 4  # MPI_Reduce_scatter: recvcounts all 1
                   + 2 * p * 4  # MPI_Scan, MPI_Exscan
                   + p * 5 * 4  # MPI_Iallreduce
                   + 3 * 8  # MPI_Ibcast: the root's 3 doubles
                   + tri * 4  # MPI_Gatherv: r + 1 ints from r
                   + tri * 4  # MPI_Scatterv: the root's i + 1 ints to i
                   + p * 4  # MPI_Allgatherv
                   + p * 4  # MPI_Allreduce on the dup
                   + (6 * 4 if intercomm else 0))  # the intercommunicator's MPI_Bcast: MPI_ROOT's 6 ints
    names = ["Barrier", "Bcast", "Reduce", "Gather", "Scatter", "Allgather", "Alltoall", "Alltoallv", "Alltoallw",
             "Reduce_scatter_block", "Reduce_scatter", "Scan", "Exscan", "Iallreduce", "Ibcast", "Gatherv",
             "Scatterv", "Allgatherv"]
    world_calls = {f"MPI_{n}": 1 for n in names} | {"MPI_Allreduce": 3, "MPI_Bcast": 1 + intercomm}
    out = [{"size": p, "first_world_rank": 0, "members_hash": members_hash(range(p)), "calls": world_calls,
            "bytes": world_bytes}]
    for c in (0, 1):  # the parity halves: MPI_Allreduce of 2 ints, the root's MPI_Bcast of one
        half = list(range(c, p, 2))
        out.append({"size": p // 2, "first_world_rank": c, "members_hash": members_hash(half),
                    "calls": {"MPI_Allreduce": 1, "MPI_Bcast": 1}, "bytes": len(half) * 2 * 4 + 4})
    for r in range(p):  # MPI_COMM_SELF of each rank
        out.append({"size": 1, "first_world_rank": r, "members_hash": members_hash([r]),
                    "calls": {"MPI_Allreduce": 1}, "bytes": 4})
    return out


def read_matrix(path: Path, field: str, n: int) -> Pairs:
    """A recording's Matrix Market file as {(sender, receiver): value} from 0, its form checked."""
    lines = path.read_text().splitlines()
    assert lines[0] == f"%%MatrixMarket matrix coordinate {field} general", lines[0]
    body = [ln for ln in lines[1:] if not ln.startswith("%")]
    rows, cols, nnz = (int(v) for v in body[0].split())
    assert (rows, cols) == (n, n) and nnz == len(body) - 1, body[0]
    out = Pairs()
    entries = [tuple(int(v) for v in ln.split()) for ln in body[1:]]
    assert [e[:2] for e in entries] == sorted(e[:2] for e in entries), "rows and columns in order"
    for i, j, v in entries:
        assert 1 <= i <= n and 1 <= j <= n and v > 0, (i, j, v)
        out[i - 1, j - 1] = v
    assert len(out) == nnz, "no pair twice"
    return out
