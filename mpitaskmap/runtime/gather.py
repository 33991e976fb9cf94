"""What ``remap()`` gathers, as NumPy buffers: one fixed-size header per rank, then arrays.

Every rank contributes its task (coordinate, neighbours, weights), its location (router
coordinate, node name) and its local errors.  Instead of a pickled Python tuple per rank,
the job's data travels in at most four collectives over typed buffers
(:func:`gather_job`):

1. ``Allgather`` of a fixed header per rank (:data:`HEADER`, int32: status flags, counts,
   the size of the router coordinates, a 63-bit digest of the provider's network);
2. ``Allgatherv`` of bytes: each rank's node name and, after a failure, its error text;
3. ``Allgather`` of the fixed-size numbers: task coordinate and router coordinate;
4. ``Allgatherv`` of every rank's neighbours, and one of their weights (only when
   neighbours are given), used as the task graph's arrays without a copy.

Collectives 3 and 4 run only when the headers agree (no error, equal dimension counts,
neighbours given by all or none); every rank decides that from the same headers, so all
call the same collectives and nothing hangs.  The agreed error names the first failing
rank, exactly as before.  Nothing here raises between collectives.

With a :class:`NodeShare` (:meth:`NodeShare.gather_and_build`) the same data go to the
node leaders only (a gather on the node, an exchange among leaders): the router
coordinates in the narrowest exact integer type; the task coordinates, neighbours and
weights straight into a shared-memory window.  The leader builds the task graph and the
machine from them and lays their arrays out in the windows; every rank of the node then
holds the graph and the machine as read-only views of the windows (no per-rank copy).
What is only needed to build (headers, node names, raw router coordinates) never enters a
window and is freed after the build.

The gathered arrays are what :class:`~mpitaskmap.graphs.taskgraph.TaskGraph` and
:func:`~mpitaskmap.providers.assemble_machine_arrays` take: no Python object per rank.
Memory per rank of the plain gather: about ``8 * (d + k + 2 * degree) + 4 * len(HEADER)
+ name`` bytes per rank of the job (e.g. ~190 bytes for a 3-D task with 6 neighbours on a
3-D torus).  Memory per node with a :class:`NodeShare`: the windows, ``8 * (n + 1) + 16 *
E + 8 * n * (d + 1) + 2 * n * k`` bytes for a torus machine (CSR, task coordinates, node ids
of n ranks with E neighbours in all, router coordinates in int16, which the machine and the
kernels take as they are: ~142 bytes per rank for the same job), plus a few KB per rank.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .._validate import as_narrowest_coords, narrowest_int_dtype

__all__ = ["LocalRank", "GatheredJob", "gather_job", "network_digest", "describe_network", "network_mismatch",
           "HEADER", "NodeShare", "location_dtype",
           "input_error", "pack_shared", "unpack_shared", "window_layout"]

#: Header fields, one int32 each (the 63-bit digest in two halves, low first).
HEADER = ("flags", "task_dims", "loc_dims", "n_neighbors", "name_len", "error_len", "loc_magnitude", "digest_low",
          "digest_high")
#: Bits of the header's flags: a task error, a provider error, neighbours given without weights.
_TASK_ERR, _LOC_ERR, _UNSIZED = 1, 2, 4
_INT32_MAX = int(np.iinfo(np.int32).max)
#: Byte alignment of every array laid out in a window.
WINDOW_ALIGN = 64


def network_digest(provider_spec: str, network) -> int:
    """A signed 63-bit digest of (provider spec, network), equal on ranks that agree."""
    raw = hashlib.blake2b(pickle.dumps((provider_spec, network), protocol=4), digest_size=8).digest()
    return int.from_bytes(raw, "little", signed=True) >> 1


def describe_network(provider_spec: str, network: object | None) -> str:
    """One line naming a rank's provider and network, for the error when ranks disagree.

    Examples
    --------
    >>> from mpitaskmap.providers import NetworkInfo
    >>> describe_network("sim:torus:dims=4x2,wrap=0", NetworkInfo(dims=(4, 2), wrap=False))
    "provider 'sim:torus:dims=4x2,wrap=0' (torus network 4x2, wrap 00)"
    """
    if network is None:
        return f"provider {provider_spec!r} (no network)"
    words = [f"{network.kind} network"]
    if network.dims:
        words.append("x".join(str(int(d)) for d in network.dims))
    if network.dims and not all(network.wrap):
        words[-1] += ", wrap " + "".join("1" if w else "0" for w in network.wrap)
    words += [f"{k}={v}" for k, v in network.options]
    return f"provider {provider_spec!r} ({' '.join(words)})"


def network_mismatch(rank: int, mine: str, first: str) -> str:
    """The agreed error when ``rank`` reports another provider or network than rank 0.

    ``mine`` and ``first`` are the two ranks' :func:`describe_network`; when they read
    the same, the networks differ in what the line leaves out.

    Examples
    --------
    >>> network_mismatch(3, "provider 'a' (flat network)", "provider 'b' (flat network)")
    "provider: rank 3 reports provider 'a' (flat network) but rank 0 reports provider 'b' (flat network)"
    """
    text = f"provider: rank {rank} reports {mine} but rank 0 reports {first}"
    if mine == first:
        text += " (they differ in link bandwidths, dimension names or router coordinate count)"
    return text


def location_dtype(magnitude: int) -> np.dtype:
    """The narrowest signed integer type holding every value of magnitude <= ``magnitude`` exactly.

    Parameters
    ----------
    magnitude : int
        Largest ``|value|`` to hold (the header's ``loc_magnitude``: ``2**31 - 1`` stands
        for "at least that", which needs int64).

    Returns
    -------
    numpy.dtype
        int8, int16, int32 or int64.  Conservative: magnitude 128 takes int16 although -128
        would fit int8.

    Examples
    --------
    >>> [location_dtype(m).name for m in (0, 127, 128, 32767, 2**31 - 2, 2**31 - 1)]
    ['int8', 'int8', 'int16', 'int16', 'int32', 'int64']
    """
    at_least = magnitude if magnitude < _INT32_MAX else _INT32_MAX + 1  # 2**31 - 1 stands for "or more"
    return narrowest_int_dtype(at_least, (np.int8, np.int16, np.int32))


def input_error(exc: BaseException) -> str:
    """How a failure to build the task graph or machine from the gathered data is worded."""
    return f"inputs: {type(exc).__name__}: {exc}"


@dataclass
class LocalRank:
    """One rank's contribution (any field may be missing after a local error)."""

    coords: np.ndarray | None = None
    neighbors: np.ndarray | None = None
    weights: np.ndarray | None = None
    sized: bool = True  # False: neighbours given without weights (``weights`` then 1.0 each)
    location: np.ndarray | None = None
    node: bytes = b""
    task_error: str = ""
    location_error: str = ""
    digest: int = 0


@dataclass
class GatheredJob:
    """The job's data, identical on every rank (or the agreed error).

    After :meth:`NodeShare.gather_and_build` the arrays are not kept (None): ``built``
    holds what the node leader built from them, as views of the node's windows, and
    ``shared_bytes`` the size of those windows.  ``odd_rank`` is the first rank whose
    provider or network differs from rank 0's (-1 when they agree); ``error`` then says
    so, and the caller, which knows the providers, may word it better
    (:func:`network_mismatch`).
    """

    error: str = ""
    odd_rank: int = -1
    coords: np.ndarray | None = None
    locations: np.ndarray | None = None
    nodes: np.ndarray | None = None
    counts: np.ndarray | None = None
    neighbors: np.ndarray | None = None
    weights: np.ndarray | None = None
    sized: bool = True  # every rank gave its weights (TaskGraph.sized of the graph built)
    bytes_moved: int = 0
    shared_bytes: int = 0
    built: object = None


def window_layout(nbytes: list) -> tuple[list, int]:
    """Offsets of arrays of ``nbytes`` bytes laid end to end, each aligned to :data:`WINDOW_ALIGN`.

    Returns
    -------
    offsets : list of int
    total : int
        Bytes of the window holding them.

    Examples
    --------
    >>> window_layout([8, 100, 0, 1])
    ([0, 64, 192, 192], 193)
    """
    offsets, at = [], 0
    for n in nbytes:
        at = -(-at // WINDOW_ALIGN) * WINDOW_ALIGN
        offsets.append(at)
        at += int(n)
    return offsets, at


def _address(buf) -> int:
    return int(np.frombuffer(buf, dtype=np.uint8).__array_interface__["data"][0]) if len(buf) else 0


def pack_shared(obj, inside: memoryview | None = None) -> tuple[bytes, list, int, list]:
    """Describe ``obj`` by a small pickle whose arrays stay out of it, to share them in windows.

    Not collective: the node leader calls it on what it built; :func:`unpack_shared`
    rebuilds the object on every rank of the node as views of the windows.

    Parameters
    ----------
    obj : object
        What to share (e.g. ``(TaskGraph, Machine)``); its contiguous NumPy arrays go out
        of band (pickle protocol 5), the rest (small objects) in the pickle.
    inside : memoryview, optional
        The first window: arrays whose bytes already lie in it are referred to by offset,
        not copied, when they use at least half of it; otherwise (e.g. a task graph
        re-sorted into new arrays) every array is copied to the second window and the
        first is not used.

    Returns
    -------
    payload : bytes
        The pickle without the large arrays.
    places : list of (window, offset, nbytes)
        Where each out-of-band array lies: window 0 is ``inside``, window 1 the second
        window, whose bytes are still to be written.
    second_nbytes : int
        Size of the second window.
    copies : list of (offset, memoryview)
        What to copy into the second window, at which offset.

    Notes
    -----
    O(number of arrays); the arrays' bytes are neither read nor copied here.
    """
    buffers: list = []

    def out_of_band(buf: pickle.PickleBuffer) -> bool:
        buffers.append(buf.raw())
        return False

    payload = pickle.dumps(obj, protocol=5, buffer_callback=out_of_band)
    base = _address(inside) if inside is not None else 0
    end = base + (inside.nbytes if inside is not None else 0)
    places = [(0, _address(raw) - base, raw.nbytes) if inside is not None and base <= _address(raw)
              and _address(raw) + raw.nbytes <= end else None for raw in buffers]
    if inside is not None and 2 * sum(p[2] for p in places if p is not None) < inside.nbytes:
        places = [None] * len(buffers)  # most of the first window unused: do not keep it
    private = [raw for p, raw in zip(places, buffers) if p is None]
    offsets, second_nbytes = window_layout([raw.nbytes for raw in private])
    copies = list(zip(offsets, private))
    it = iter(offsets)
    places = [p if p is not None else (1, next(it), raw.nbytes) for p, raw in zip(places, buffers)]
    return payload, places, second_nbytes, copies


def unpack_shared(payload: bytes, places: list, windows: list):
    """Rebuild what :func:`pack_shared` described, its large arrays read-only views of ``windows``.

    Parameters
    ----------
    payload, places
        From :func:`pack_shared`.
    windows : list of buffer
        The windows' bytes, in the order ``places`` numbers them.

    Returns
    -------
    object
        Equal to the packed object; no array of the windows is copied (a rank's private
        memory is the small objects only).
    """
    views = [None if w is None else memoryview(w).cast("B") for w in windows]
    return pickle.loads(payload, buffers=[views[w][off: off + n].toreadonly() for w, off, n in places])


class NodeShare:
    """One copy per node: the task graph and machine live in MPI shared-memory windows.

    The ranks of one node (``comm.Split_type(COMM_TYPE_SHARED)``) gather to their node
    leader (node rank 0); the leaders exchange the blocks among themselves, in ``comm``
    rank order.  :meth:`gather_and_build` has the leader build the task graph and machine
    into windows that only the leader allocates (``Win.Allocate_shared``); every rank of
    the node then views them.  Memory per node is one copy of the arrays the search needs,
    whatever the number of ranks per node (plus the leader's transient build memory).
    :meth:`free` frees the windows and the two communicators; ``remap`` calls it when the
    returned communicator is freed.

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
            self.local_ranks = local  # comm ranks of this node, in node rank order
            self.order = order  # order[i]: comm rank of the i-th row the leaders exchange
            self.node_starts = _displacements(ranks_per_node)  # first row of every node
            self.in_rank_order = bool(np.array_equal(order, np.arange(size)))

    @property
    def n_windows(self) -> int:
        """Windows allocated so far (freed by :meth:`free`)."""
        return len(self.windows)

    def _gather_rows(self, mine: np.ndarray, counts: np.ndarray | None, out: np.ndarray | None = None):
        """Every rank's ``mine`` (``counts[r]`` items on comm rank ``r``) in comm rank order, on the leader.

        Collective over the job (a ``Gatherv`` on the node, an ``Allgatherv`` among the
        leaders).  The leader passes ``counts`` and gets the array (written into ``out``
        when given); the other ranks send and get None.
        """
        if not self.leader:
            self.node.Gatherv(mine, None, root=0)
            return None
        dtype, total = mine.dtype, int(counts.sum())
        node_counts = counts[self.local_ranks]
        block = np.empty(int(node_counts.sum()), dtype=dtype)
        self.node.Gatherv(mine, [block, (node_counts, _displacements(node_counts))], root=0)
        out = np.empty(total, dtype=dtype) if out is None else out
        rows = counts[self.order]  # items per row in the leaders' (node-major) order
        per_node = np.add.reduceat(rows, self.node_starts)  # every node has >= 1 row
        if self.in_rank_order:  # node-major is rank order: receive in place
            self.leaders.Allgatherv(block, [out, (per_node, _displacements(per_node))])
            return out
        node_major = np.empty(total, dtype=dtype)
        self.leaders.Allgatherv(block, [node_major, (per_node, _displacements(per_node))])
        # row i of the node-major blocks is comm rank order[i]: place it there
        dest = _displacements(counts)[self.order]
        at = np.repeat(dest - _displacements(rows), rows) + np.arange(total, dtype=np.int64)
        out[at] = node_major
        return out

    def _allocate(self, nbytes: int) -> tuple:
        """A window of ``nbytes`` on the leader (0 elsewhere), its bytes seen by every rank of the node.

        Collective over the node; never raises.  Returns ``(window, bytes, error)``: on a
        failure, no window, private scratch bytes (so the leader can still take part in the
        gathers) and the error text, to be agreed on.
        """
        try:
            win = self.MPI.Win.Allocate_shared(int(nbytes) if self.leader else 0, 1, comm=self.node)
        except Exception as exc:
            return None, memoryview(np.empty(int(nbytes) if self.leader else 0, dtype=np.uint8)), input_error(exc)
        self.windows.append(win)
        buf, _ = win.Shared_query(0)
        return win, memoryview(buf), ""

    def _free_window(self, win) -> None:
        self.windows.remove(win)
        win.Free()

    def gather_and_build(self, local: LocalRank, build: Callable[[GatheredJob], object]) -> GatheredJob:
        """Gather every rank's :class:`LocalRank` to the node leaders, build there, share the result.

        Collective over ``comm``; never raises.

        Parameters
        ----------
        local : LocalRank
            This rank's part.
        build : callable
            ``build(job) -> object``, called on each node leader with the gathered arrays
            (``coords``, ``neighbors`` and ``weights`` already in the node's first window;
            ``locations`` in the narrowest exact integer type, see
            :func:`location_dtype`); may raise.  Deterministic: every leader builds the
            same from the same data.

        Returns
        -------
        GatheredJob
            The same on every rank: ``built``, what ``build`` returned, its large arrays
            read-only views of the node's windows (:func:`unpack_shared`); or ``error``,
            the first failure of the job (a rank's local error, disagreeing headers, or a
            failure while building or sharing on any node, :func:`input_error` wording).

        Notes
        -----
        The job's communicator sees no collective; the node and leader communicators a
        constant number.  A failure on one node is agreed on by every leader
        (``allgather``) and broadcast on each node, so every rank ends alike.  The windows
        of a failed build are freed at once; the first window too when less than half of
        it is used by what was built (e.g. neighbours not in increasing order: the graph
        is re-sorted into new arrays), after what it uses is copied to the second.
        """
        size = self.comm.Get_size()
        width = len(HEADER)
        local = _typed(local)
        head = self._gather_rows(_header(local), np.full(size, width, dtype=np.int64))
        err_text = (local.task_error or local.location_error).encode("utf-8", "replace")
        mine = np.frombuffer(local.node + err_text, dtype=np.uint8)
        plan = None
        if self.leader:
            head = head.reshape(size, width)
            sizes = head[:, 4].astype(np.int64) + head[:, 5]
            text = self._gather_rows(mine, sizes)
            error, odd_rank = _agreed_error(head, text)
            plan = dict(error=error, odd_rank=odd_rank, bytes=4 * head.size + text.nbytes)
            if not error:
                plan.update(d=int(head[0, 1]), k=int(head[0, 2]), edges=int(head[:, 3].sum()) if head[0, 3] >= 0
                            else -1, loc_dtype=location_dtype(int(head[:, 6].max())),
                            sized=not (head[:, 0] & _UNSIZED).any())
        else:
            self._gather_rows(mine, None)
        plan = self.node.bcast(plan, root=0)
        job = GatheredJob(error=plan["error"], odd_rank=plan["odd_rank"], bytes_moved=plan["bytes"])
        if job.error:
            return job
        job.sized = plan["sized"]
        d, k, edges = plan["d"], plan["k"], plan["edges"]
        n_edges = max(edges, 0)
        job.bytes_moved += size * (d * 8 + k * plan["loc_dtype"].itemsize) + n_edges * 16
        offsets, nbytes = window_layout([size * d * 8, n_edges * 8, n_edges * 8])
        win1, bytes1, err = self._allocate(nbytes)
        if self.leader:
            coords = np.frombuffer(bytes1, dtype=np.float64, count=size * d, offset=offsets[0])
            job.coords = self._gather_rows(local.coords, np.full(size, d, dtype=np.int64), out=coords).reshape(size, d)
            job.locations = self._gather_rows(local.location.astype(plan["loc_dtype"]),
                                              np.full(size, k, dtype=np.int64)).reshape(size, k)
            job.nodes = _node_keys(text, head[:, 4], sizes)
        else:
            self._gather_rows(local.coords, None)
            self._gather_rows(local.location.astype(plan["loc_dtype"]), None)
        if edges >= 0:
            if self.leader:
                job.counts = head[:, 3].astype(np.int64)
                job.neighbors = self._gather_rows(local.neighbors, job.counts, out=np.frombuffer(
                    bytes1, dtype=np.int64, count=n_edges, offset=offsets[1]))
                job.weights = self._gather_rows(local.weights, job.counts, out=np.frombuffer(
                    bytes1, dtype=np.float64, count=n_edges, offset=offsets[2]))
            else:
                self._gather_rows(local.neighbors, None)
                self._gather_rows(local.weights, None)
        if self.leader:
            del head, text, sizes
        return self._build_and_share(job, build, win1, bytes1, nbytes, err)

    def _build_and_share(self, job: GatheredJob, build, win1, bytes1: memoryview, first_nbytes: int,
                         err: str) -> GatheredJob:
        """The leader builds and lays the result out in a second window; every rank views it; all agree.

        ``err``: this rank's failure so far ("" when none).
        """
        described = None
        if self.leader and not err:
            try:
                built = build(job)
                described = pack_shared(built, bytes1)
                del built
            except Exception as exc:  # agreed below with every other node
                err = input_error(exc)
        for name in ("coords", "locations", "nodes", "counts", "neighbors", "weights"):
            setattr(job, name, None)  # the gathered arrays are not kept: the windows hold what was built
        payload, places, second, copies = described if described is not None else (b"", [], 0, [])
        plan = self.node.bcast((bool(err), payload, places, second) if self.leader else None, root=0)
        leader_failed, payload, places, second = plan
        win2, bytes2 = None, None
        if not leader_failed:  # every rank of the node allocates the second window
            win2, bytes2, alloc_err = self._allocate(second)
            err = err or alloc_err
            if self.leader and not err:
                for offset, raw in copies:
                    bytes2[offset: offset + raw.nbytes] = raw
        del copies, described
        self.node.Barrier()  # the second window is written
        if not err and not leader_failed:
            try:
                job.built = unpack_shared(payload, places, [bytes1, bytes2])
            except Exception as exc:
                err = input_error(exc)
        # agree: the first failure on the node, then the first of the job
        errors = self.node.gather(err, root=0)
        if self.leader:
            node_err = next((e for e in errors if e), "")
            job_errors = self.leaders.allgather(node_err)
            err = next((e for e in job_errors if e), "")
        err = self.node.bcast(err if self.leader else None, root=0)
        if err:  # nothing built is used: free this call's windows now
            job.error, job.built = err, None
            for win in (win1, win2):
                if win is not None:
                    self._free_window(win)
            return job
        job.shared_bytes = second
        if any(w == 0 for w, _, _ in places):
            job.shared_bytes += first_nbytes
        else:  # nothing built refers to the first window (e.g. the graph was re-sorted)
            self._free_window(win1)
        return job

    def free(self) -> None:
        """Free the windows and the node and leader communicators (collective over the node)."""
        for win in self.windows:
            win.Free()
        self.windows = []
        if self.leaders != self.MPI.COMM_NULL:
            self.leaders.Free()
        self.node.Free()


def _header(local: LocalRank) -> np.ndarray:
    """This rank's :data:`HEADER` row (int32; every field fits exactly, the digest in two halves)."""
    flags = ((_TASK_ERR if local.task_error else 0) | (_LOC_ERR if local.location_error else 0)
             | (0 if local.sized else _UNSIZED))
    err = (local.task_error or local.location_error).encode("utf-8", "replace")
    loc = local.location
    # the largest |coordinate|, only to choose the gather's integer type; 2**31 - 1 = "that or more"
    magnitude = 0 if loc is None or loc.size == 0 else min(max(-int(loc.min()), int(loc.max())), _INT32_MAX)
    digest_low, digest_high = np.array([local.digest], dtype=np.int64).view(np.int32).tolist()
    return np.array([
        flags,
        -1 if local.coords is None else local.coords.size,
        -1 if loc is None else loc.size,
        -1 if local.neighbors is None else local.neighbors.size,
        len(local.node),
        len(err),
        magnitude,
        digest_low,
        digest_high,
    ], dtype=np.int32)


def _typed(local: LocalRank) -> LocalRank:
    """``local`` with the dtypes every rank sends (float64 coordinates and weights, int64
    neighbours and router coordinates), so that the typed collectives match."""
    def cast(a, dtype):
        return None if a is None else np.ascontiguousarray(a, dtype=dtype).ravel()

    return dataclasses.replace(local, coords=cast(local.coords, np.float64), neighbors=cast(local.neighbors, np.int64),
                               weights=cast(local.weights, np.float64), location=cast(local.location, np.int64))


def _displacements(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)


def _agreed_error(head: np.ndarray, text: np.ndarray) -> tuple[str, int]:
    """The first failure in rank order, worded as remap always worded it ("" when none), and the
    first rank whose provider or network differs from rank 0's when that is the failure (else -1)."""
    flags, d, k, n, name_len, err_len, _, digest_low, digest_high = head.T
    starts = _displacements(name_len.astype(np.int64) + err_len)
    for bit, what in ((_TASK_ERR, "task"), (_LOC_ERR, "provider")):
        bad = np.flatnonzero(flags & bit)
        if bad.size:
            r = int(bad[0])
            a = int(starts[r] + name_len[r])
            return f"{what}: rank {r}: " + text[a: a + int(err_len[r])].tobytes().decode("utf-8", "replace"), -1
    odd = np.flatnonzero(d != d[0])
    if odd.size:
        r = int(odd[0])
        return f"coords: rank {r} gave {int(d[r])} dimensions but rank 0 gave {int(d[0])}", -1
    odd = np.flatnonzero((n >= 0) != (n[0] >= 0))
    if odd.size:
        return f"neighbors: rank {int(odd[0])} disagrees with rank 0 on whether neighbors were given", -1
    odd = np.flatnonzero((digest_low != digest_low[0]) | (digest_high != digest_high[0]) | (k != k[0]))
    if odd.size:
        return f"provider: rank {int(odd[0])} reports a different provider or network than rank 0", int(odd[0])
    return "", -1


def gather_job(comm, local: LocalRank) -> GatheredJob:
    """Gather every rank's :class:`LocalRank` to every rank (collective over ``comm``; never raises).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks of the job.
    local : LocalRank
        This rank's part.

    Returns
    -------
    GatheredJob
        The same on every rank: the arrays (``locations`` in the narrowest exact of int16,
        int32, int64: :func:`~mpitaskmap._validate.as_narrowest_coords`), or ``error`` (the
        first failure).

    Notes
    -----
    Two collectives on the error path, three or four otherwise, whatever the job size;
    O(P) bytes per rank for P ranks, no per-rank Python objects.  One copy per node
    instead: :meth:`NodeShare.gather_and_build`.
    """
    size = comm.Get_size()
    local = _typed(local)
    head = np.empty((size, len(HEADER)), dtype=np.int32)
    comm.Allgather(_header(local), head)
    err_text = (local.task_error or local.location_error).encode("utf-8", "replace")
    mine = np.frombuffer(local.node + err_text, dtype=np.uint8)
    sizes = head[:, 4].astype(np.int64) + head[:, 5]
    text = np.empty(int(sizes.sum()), dtype=np.uint8)
    comm.Allgatherv(mine, [text, (sizes, _displacements(sizes))])
    job = GatheredJob(bytes_moved=head.nbytes + text.nbytes)
    job.error, job.odd_rank = _agreed_error(head, text)
    if job.error:
        return job
    d, k = int(head[0, 1]), int(head[0, 2])
    numbers = np.concatenate([local.coords, local.location.astype(np.float64)])
    fixed = np.empty((size, d + k), dtype=np.float64)
    comm.Allgather(numbers, fixed)
    job.coords = fixed[:, :d]
    job.locations = as_narrowest_coords(fixed[:, d:])  # int16 on every real network
    job.nodes = _node_keys(text, head[:, 4], sizes)
    job.bytes_moved += fixed.nbytes
    if head[0, 3] >= 0:
        counts = head[:, 3].astype(np.int64)
        nbrs = np.empty(int(counts.sum()), dtype=np.int64)
        comm.Allgatherv(local.neighbors, [nbrs, (counts, _displacements(counts))])
        wts = np.empty(int(counts.sum()), dtype=np.float64)
        comm.Allgatherv(local.weights, [wts, (counts, _displacements(counts))])
        job.counts, job.neighbors, job.weights = counts, nbrs, wts
        job.sized = not (head[:, 0] & _UNSIZED).any()
        job.bytes_moved += nbrs.nbytes + wts.nbytes
    return job


def _node_keys(text: np.ndarray, name_len: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Fixed-width byte strings of every rank's node name (vectorised, O(total bytes))."""
    width = max(1, int(name_len.max()))
    keys = np.zeros((name_len.size, width), dtype=np.uint8)
    rows = np.repeat(np.arange(name_len.size), name_len)
    cols = np.arange(rows.size) - np.repeat(_displacements(name_len), name_len)
    keys[rows, cols] = text[np.repeat(_displacements(sizes), name_len) + cols]
    return keys.view(f"S{width}").ravel()
