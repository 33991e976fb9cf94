"""What ``remap()`` gathers, as NumPy buffers: one fixed-size header per rank, then arrays.

Every rank contributes its task (coordinate, neighbours, weights), its location (router
coordinate, node name) and its local errors.  Instead of a pickled Python tuple per rank,
the job's data travels in at most four collectives over typed buffers:

1. ``Allgather`` of a fixed header per rank (:data:`HEADER`: status flags, counts, a
   digest of the provider's network);
2. ``Allgatherv`` of bytes: each rank's node name and, after a failure, its error text;
3. ``Allgather`` of the fixed-size numbers: task coordinate and router coordinate;
4. ``Allgatherv`` of every rank's neighbours and weights (only when neighbours are given).

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

__all__ = ["LocalRank", "GatheredJob", "gather_job", "network_digest", "HEADER"]

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


def gather_job(comm, local: LocalRank) -> GatheredJob:
    """Gather every rank's :class:`LocalRank` (collective over ``comm``; never raises).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks of the job.
    local : LocalRank
        This rank's part.

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
    head = np.empty((size, len(HEADER)), dtype=np.int64)
    comm.Allgather(_header(local), head)
    err_text = (local.task_error or local.location_error).encode("utf-8", "replace")
    mine = np.frombuffer(local.node + err_text, dtype=np.uint8)
    sizes = head[:, 4] + head[:, 5]
    text = np.empty(int(sizes.sum()), dtype=np.uint8)
    comm.Allgatherv(mine, [text, (sizes, _displacements(sizes))])
    job = GatheredJob(bytes_moved=head.nbytes + text.nbytes)
    job.error = _agreed_error(head, text)
    if job.error:
        return job
    d, k = int(head[0, 1]), int(head[0, 2])
    fixed = np.empty((size, d + k), dtype=np.float64)
    comm.Allgather(np.concatenate([local.coords, local.location.astype(np.float64)]), fixed)
    job.coords = np.ascontiguousarray(fixed[:, :d])
    job.locations = fixed[:, d:].astype(np.int64)
    job.nodes = _node_keys(text, head[:, 4], sizes)
    job.bytes_moved += fixed.nbytes
    if head[0, 3] >= 0:
        counts = head[:, 3]
        var = np.empty(int(2 * counts.sum()), dtype=np.float64)
        comm.Allgatherv(np.concatenate([local.neighbors.astype(np.float64), local.weights]),
                        [var, (2 * counts, _displacements(2 * counts))])
        ptr = _displacements(2 * counts)
        j = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(_displacements(counts), counts)
        at = np.repeat(ptr, counts) + j
        job.counts = counts
        job.neighbors = var[at].astype(np.int64)
        job.weights = var[at + np.repeat(counts, counts)]
        job.bytes_moved += var.nbytes
    return job


def _node_keys(text: np.ndarray, name_len: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Fixed-width byte strings of every rank's node name (vectorised, O(total bytes))."""
    width = max(1, int(name_len.max()))
    keys = np.zeros((name_len.size, width), dtype=np.uint8)
    rows = np.repeat(np.arange(name_len.size), name_len)
    cols = np.arange(rows.size) - np.repeat(_displacements(name_len), name_len)
    keys[rows, cols] = text[np.repeat(_displacements(sizes), name_len) + cols]
    return keys.view(f"S{width}").ravel()
