"""What ``remap()`` gathers, as NumPy buffers: one fixed-size header per rank, then arrays.

Every rank contributes its task (coordinate, neighbours, weights), its location (router
coordinate, node name) and its local errors.  Instead of a pickled Python tuple per rank,
the job's data travels in at most four collectives over typed buffers:

1. ``Allgather`` of a fixed header per rank (:data:`HEADER`: status flags, counts, a
   digest of the provider's network);
2. ``Allgatherv`` of bytes: each rank's node name and, after a failure, its error text;
3. ``Allgather`` of the fixed-size numbers: task coordinate and router coordinate;
4. ``Allgatherv`` of every rank's neighbours, and one of their weights (only when
   neighbours are given), used as the task graph's arrays without a copy.

With a :class:`NodeShare`, each of these becomes a gather to the node leader, an
exchange among leaders and one shared-memory window per node.

Collectives 3 and 4 run only when the headers agree (no error, equal dimension counts,
neighbours given by all or none); every rank decides that from the same headers, so all
call the same collectives and nothing hangs.  The agreed error names the first failing
rank, exactly as before.  Nothing here raises between collectives.

The gathered arrays are what :class:`~mpitaskmap.taskgraph.TaskGraph` and
:func:`~mpitaskmap.providers.assemble_machine_arrays` take: no Python object per rank.
Memory per rank: about ``8 * (d + k + 2 * degree + HEADER) + name`` bytes per rank of the
job (e.g. ~150 bytes for a 3-D task with 6 neighbours on a 3-D torus).
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass

import numpy as np

__all__ = ["LocalRank", "GatheredJob", "gather_job", "network_digest", "HEADER", "NodeShare"]

#: Header fields, one int64 each.
HEADER = ("flags", "task_dims", "loc_dims", "n_neighbors", "name_len", "error_len", "digest")
_TASK_ERR, _LOC_ERR = 1, 2


def network_digest(provider_spec: str, network) -> int:
    """A signed 63-bit digest of (provider spec, network), equal on ranks that agree."""
    raw = hashlib.blake2b(pickle.dumps((provider_spec, network), protocol=4), digest_size=8).digest()
    return int.from_bytes(raw, "little", signed=True) >> 1


@dataclass
class LocalRank:
    """One rank's contribution (any field may be missing after a local error)."""

    coords: np.ndarray | None = None
    neighbors: np.ndarray | None = None
    weights: np.ndarray | None = None
    location: np.ndarray | None = None
    node: bytes = b""
    task_error: str = ""
    location_error: str = ""
    digest: int = 0


@dataclass
class GatheredJob:
    """The job's data, identical on every rank (or the agreed error)."""

    error: str = ""
    coords: np.ndarray | None = None
    locations: np.ndarray | None = None
    nodes: np.ndarray | None = None
    counts: np.ndarray | None = None
    neighbors: np.ndarray | None = None
    weights: np.ndarray | None = None
    bytes_moved: int = 0
    shared_bytes: int = 0


class NodeShare:
    """One copy per node: the gathered arrays live in MPI shared-memory windows.

    The ranks of one node (``comm.Split_type(COMM_TYPE_SHARED)``) gather to their node
    leader (node rank 0); the leaders exchange the blocks among themselves and write them,
    in ``comm`` rank order, into a window that only the leader allocates
    (``Win.Allocate_shared``); after a node barrier every rank of the node reads that
    window.  Memory per node is one copy of the job's arrays (plus the leader's receive
    buffer while it copies), whatever the number of ranks per node.  :meth:`free` frees
    the windows and the two communicators; ``remap`` calls it when the returned
    communicator is freed.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The job's communicator.  Collective.
    node_color : int, optional
        Group the ranks into nodes by this colour instead of by shared memory (tests use
        it to make several "nodes" of one machine, whose ranks interleave).
    """

    def __init__(self, comm, node_color: int | None = None) -> None:
        from mpi4py import MPI  # the runtime's import; this module stays importable without MPI

        self.MPI = MPI
        self.comm = comm
        if node_color is None:
            self.node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.Get_rank())
        else:
            self.node = comm.Split(int(node_color), comm.Get_rank())
        self.leader = self.node.Get_rank() == 0
        self.leaders = comm.Split(0 if self.leader else MPI.UNDEFINED, comm.Get_rank())
        self.windows: list = []
        # which comm ranks each node holds, in the order the leaders' blocks concatenate
        size = comm.Get_size()
        mine = np.array([comm.Get_rank()], dtype=np.int64)
        local = np.empty(self.node.Get_size(), dtype=np.int64)
        self.node.Gather(mine, local, root=0)
        if self.leader:
            ranks_per_node = np.empty(self.leaders.Get_size(), dtype=np.int64)
            self.leaders.Allgather(np.array([local.size], dtype=np.int64), ranks_per_node)
            order = np.empty(size, dtype=np.int64)
            self.leaders.Allgatherv(local, [order, (ranks_per_node, _displacements(ranks_per_node))])
            self.order = order  # order[i]: comm rank of the i-th row the leaders exchange
            self.node_starts = _displacements(ranks_per_node)  # first row of every node

    @property
    def n_windows(self) -> int:
        """Windows allocated so far (freed by :meth:`free`)."""
        return len(self.windows)

    def allgather(self, mine: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Every rank's ``mine`` (``counts[r]`` items on comm rank ``r``), in comm rank order, shared.

        Collective over the job.  Returns a read-only NumPy view of the node's window.
        """
        MPI = self.MPI
        dtype, total = mine.dtype, int(counts.sum())
        win = MPI.Win.Allocate_shared(total * dtype.itemsize if self.leader else 0, dtype.itemsize, comm=self.node)
        self.windows.append(win)
        node_counts = np.empty(self.node.Get_size(), dtype=np.int64)
        self.node.Gather(np.array([mine.size], dtype=np.int64), node_counts, root=0)
        if self.leader:
            block = np.empty(int(node_counts.sum()), dtype=dtype)
            self.node.Gatherv(mine, [block, (node_counts, _displacements(node_counts))], root=0)
            rows = counts[self.order]  # items per row in the leaders' (node-major) order
            per_node = np.add.reduceat(rows, self.node_starts)  # every node has >= 1 row
            node_major = np.empty(total, dtype=dtype)
            self.leaders.Allgatherv(block, [node_major, (per_node, _displacements(per_node))])
            buf, _ = win.Shared_query(0)
            out = np.ndarray(total, dtype=dtype, buffer=buf)
            # row i of the node-major blocks is comm rank order[i]: place it there
            dest = _displacements(counts)[self.order]
            at = np.repeat(dest - _displacements(rows), rows) + np.arange(total, dtype=np.int64)
            out[at] = node_major
        else:
            self.node.Gatherv(mine, None, root=0)
        self.node.Barrier()
        buf, _ = win.Shared_query(0)
        view = np.ndarray(total, dtype=dtype, buffer=buf)
        view.flags.writeable = False
        return view

    def free(self) -> None:
        """Free the windows and the node and leader communicators (collective over the node)."""
        for win in self.windows:
            win.Free()
        self.windows = []
        if self.leaders != self.MPI.COMM_NULL:
            self.leaders.Free()
        self.node.Free()


def _header(local: LocalRank) -> np.ndarray:
    flags = (_TASK_ERR if local.task_error else 0) | (_LOC_ERR if local.location_error else 0)
    err = (local.task_error or local.location_error).encode("utf-8", "replace")
    return np.array([
        flags,
        -1 if local.coords is None else local.coords.size,
        -1 if local.location is None else local.location.size,
        -1 if local.neighbors is None else local.neighbors.size,
        len(local.node),
        len(err),
        local.digest,
    ], dtype=np.int64)


def _displacements(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)


def _agreed_error(head: np.ndarray, text: np.ndarray) -> str:
    """The first failure in rank order, worded as remap always worded it; "" when none."""
    flags, d, k, n, name_len, err_len, digest = head.T
    starts = _displacements(name_len + err_len)
    for bit, what in ((_TASK_ERR, "task"), (_LOC_ERR, "provider")):
        bad = np.flatnonzero(flags & bit)
        if bad.size:
            r = int(bad[0])
            a = int(starts[r] + name_len[r])
            return f"{what}: rank {r}: " + text[a: a + int(err_len[r])].tobytes().decode("utf-8", "replace")
    odd = np.flatnonzero(d != d[0])
    if odd.size:
        r = int(odd[0])
        return f"coords: rank {r} gave {int(d[r])} dimensions but rank 0 gave {int(d[0])}"
    odd = np.flatnonzero((n >= 0) != (n[0] >= 0))
    if odd.size:
        return f"neighbors: rank {int(odd[0])} disagrees with rank 0 on whether neighbors were given"
    odd = np.flatnonzero((digest != digest[0]) | (k != k[0]))
    if odd.size:
        return f"provider: rank {int(odd[0])} reports a different provider or network than rank 0"
    return ""


def gather_job(comm, local: LocalRank, share: NodeShare | None = None) -> GatheredJob:
    """Gather every rank's :class:`LocalRank` (collective over ``comm``; never raises).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks of the job.
    local : LocalRank
        This rank's part.
    share : NodeShare, optional
        Keep one copy of the arrays per node in shared windows (same results).

    Returns
    -------
    GatheredJob
        The same on every rank: the arrays, or ``error`` (the first failure).

    Notes
    -----
    Two collectives on the error path, three or four otherwise, whatever the job size;
    O(P) bytes per rank for P ranks, no per-rank Python objects.
    """
    size = comm.Get_size()
    width = len(HEADER)
    if share is None:
        head = np.empty((size, width), dtype=np.int64)
        comm.Allgather(_header(local), head)
    else:
        head = share.allgather(_header(local), np.full(size, width, dtype=np.int64)).reshape(size, width)
    err_text = (local.task_error or local.location_error).encode("utf-8", "replace")
    mine = np.frombuffer(local.node + err_text, dtype=np.uint8)
    sizes = head[:, 4] + head[:, 5]
    if share is None:
        text = np.empty(int(sizes.sum()), dtype=np.uint8)
        comm.Allgatherv(mine, [text, (sizes, _displacements(sizes))])
    else:
        text = share.allgather(mine, sizes)
    job = GatheredJob(bytes_moved=head.nbytes + text.nbytes)
    job.error = _agreed_error(head, text)
    if job.error:
        return job
    d, k = int(head[0, 1]), int(head[0, 2])
    numbers = np.concatenate([local.coords, local.location.astype(np.float64)])
    if share is None:
        fixed = np.empty((size, d + k), dtype=np.float64)
        comm.Allgather(numbers, fixed)
    else:
        fixed = share.allgather(numbers, np.full(size, d + k, dtype=np.int64)).reshape(size, d + k)
    job.coords = fixed[:, :d]
    job.locations = fixed[:, d:].astype(np.int64)
    job.nodes = _node_keys(text, head[:, 4], sizes)
    job.bytes_moved += fixed.nbytes
    if head[0, 3] >= 0:
        counts = np.ascontiguousarray(head[:, 3])
        if share is None:
            nbrs = np.empty(int(counts.sum()), dtype=np.int64)
            comm.Allgatherv(local.neighbors, [nbrs, (counts, _displacements(counts))])
            wts = np.empty(int(counts.sum()), dtype=np.float64)
            comm.Allgatherv(local.weights, [wts, (counts, _displacements(counts))])
        else:
            nbrs = share.allgather(local.neighbors, counts)
            wts = share.allgather(local.weights, counts)
        job.counts, job.neighbors, job.weights = counts, nbrs, wts
        job.bytes_moved += nbrs.nbytes + wts.nbytes
    if share is not None:
        job.shared_bytes = job.bytes_moved
    return job


def _node_keys(text: np.ndarray, name_len: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Fixed-width byte strings of every rank's node name (vectorised, O(total bytes))."""
    width = max(1, int(name_len.max()))
    keys = np.zeros((name_len.size, width), dtype=np.uint8)
    rows = np.repeat(np.arange(name_len.size), name_len)
    cols = np.arange(rows.size) - np.repeat(_displacements(name_len), name_len)
    keys[rows, cols] = text[np.repeat(_displacements(sizes), name_len) + cols]
    return keys.view(f"S{width}").ravel()
