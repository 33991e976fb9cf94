"""MPI's own front door: ``Cart_create`` and ``Dist_graph_create_adjacent`` that really reorder.

``cart = mpitaskmap.create_cart(comm, dims, periods)`` answers what
``comm.Create_cart(dims, periods, reorder=True)`` asks and MPI libraries leave undone:
the process that gets rank ``r`` of the new communicator plays vertex ``r`` of the
Cartesian grid (coordinate ``Get_coords(r)``, row-major as ``MPI_Cart_create`` numbers),
and the processes are chosen so that grid neighbours sit close in the network.
:func:`create_dist_graph_adjacent` does the same for ``Create_dist_graph_adjacent``:
the process with new rank ``r`` plays vertex ``r`` (the vertex old rank ``r`` described)
and gets vertex ``r``'s adjacency, so ``Get_dist_neighbors`` and the neighbourhood
collectives of the returned communicator describe the declared graph in new ranks.

Both map with :func:`~mpitaskmap.runtime.remapping.remap_task`, the path of
:func:`mpitaskmap.remap`: the same providers, candidate search, report, ``on_error``,
``MPITASKMAP_DISABLE`` and never-hang agreement.  The task graph is the grid's
neighbours (:func:`cart_task_graph`) or the declared adjacency
(:func:`dist_graph_task_graph`); the communicator is then made by MPI's own call with
``reorder=False`` on ``comm.Split(0, new_rank)``.

Collectives beyond ``remap``'s: ``create_cart`` one ``bcast`` (rank 0's dims and periods,
which every rank compares with its own), then ``Split`` and ``Create_cart``;
``create_dist_graph_adjacent`` one ``Alltoall`` and one ``Alltoallv`` (every rank learns
the edges declared into it, to compare with its sources), then ``Split``, one ``sendrecv``
(each vertex's adjacency to the process now playing it) and ``Create_dist_graph_adjacent``.
Without reordering (the identity order) no ``Split`` and no ``sendrecv``.

Arguments MPI would reject, or that disagree between ranks (dims, periods, an edge
declared at one end only or with two weights), raise the same
:class:`~mpitaskmap.errors.MappingError` on every rank, naming the first failing rank,
whatever ``on_error``: there is no unchanged communicator of such arguments to fall back
to.  Other failures (a provider, a mapper) honour ``on_error="identity"``.

The order hooks :func:`cart_order` and :func:`dist_graph_order` compute the same order
without making a communicator: the entry points of the PMPI interposition library.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, NamedTuple, Sequence

import numpy as np

from ..graphs.taskgraph import TaskGraph
from .rank_task import rank_task
from .remapping import remap_task
from .report import RemapReport

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["create_cart", "create_dist_graph_adjacent", "cart_order", "dist_graph_order", "cart_task_graph",
           "cart_neighbors", "dist_graph_task_graph", "Adjacency", "move_adjacency", "DIST_GRAPH_FAMILIES"]

#: ``remap`` options the front doors take as their own arguments instead.
_NOT_OPTIONS = ("coords", "neighbors", "weights", "task", "call", "split", "fallback_on_task_error")
#: Families a distributed graph is searched with unless ``families=`` says otherwise: its
#: vertices have no coordinates but their numbers (or ``coords=``), so the graph mappers
#: (greedy growth, bisection, the default order refined) join the geometric ones.
DIST_GRAPH_FAMILIES = ("geometric", "graph")
#: Largest MPI edge weight (a C ``int``).
_MPI_INT_MAX = 2**31 - 1


class Adjacency(NamedTuple):
    """One vertex's adjacency, as ``Create_dist_graph_adjacent`` takes it.

    ``comm.Create_dist_graph_adjacent(*adj)``; ``sourceweights`` and ``destweights`` are
    both None for an unweighted graph.
    """

    sources: list
    destinations: list
    sourceweights: list | None
    destweights: list | None


# -- Cartesian grids ----------------------------------------------------------------------


def _cart_shape(dims, periods, size: int | None = None) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """``(dims, periods)`` checked as ``MPI_Cart_create`` takes them; a ValueError says what is wrong.

    Examples
    --------
    >>> _cart_shape([4, 2], None, 8)
    ((4, 2), (False, False))
    >>> _cart_shape((2, 3), [1, 0])
    ((2, 3), (True, False))
    >>> _cart_shape([4, 4], None, 8)
    Traceback (most recent call last):
    ...
    ValueError: dims: the 4x4 grid has 16 processes but comm has 8 (MPI_Cart_create needs prod(dims) <= size)
    """
    if isinstance(dims, (str, bytes)) or not hasattr(dims, "__len__"):
        raise ValueError(f"dims: expected a sequence of positive integers, one per dimension; got {dims!r}")
    shape = list(dims)
    if not shape:
        raise ValueError("dims: no dimensions (a 0-dimensional grid has nothing to map; call comm.Create_cart([]))")
    for i, v in enumerate(shape):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"dims: entry {i} must be a positive integer; got {v!r}")
    shape_t = tuple(int(v) for v in shape)
    n = math.prod(shape_t)
    if size is not None and n > size:
        grid = "x".join(map(str, shape_t))
        raise ValueError(f"dims: the {grid} grid has {n} processes but comm has {size} "
                         f"(MPI_Cart_create needs prod(dims) <= size)")
    if periods is None:
        return shape_t, (False,) * len(shape_t)
    if isinstance(periods, (str, bytes)) or not hasattr(periods, "__len__"):
        raise ValueError(f"periods: expected a sequence of booleans, one per dimension; got {periods!r}")
    per = list(periods)
    if len(per) != len(shape_t):
        raise ValueError(f"periods: {len(per)} entries for {len(shape_t)} dimensions")
    for i, v in enumerate(per):  # C's logical: an int, nonzero is true
        if not isinstance(v, (bool, np.bool_, int, np.integer)):
            raise ValueError(f"periods: entry {i} must be a boolean (or a C logical int); got {v!r}")
    return shape_t, tuple(bool(v) for v in per)


def _dim_weights(weights, n_dims: int) -> tuple[float, ...]:
    """One message volume per dimension: ``weights`` given once or per dimension."""
    try:
        w = None if isinstance(weights, (str, bytes)) else np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        w = None
    if w is None or w.ndim > 1 or (w.ndim == 1 and w.size != n_dims):
        raise ValueError(f"weights: expected one number or one per dimension ({n_dims}); got {weights!r}")
    w = np.broadcast_to(w, (n_dims,))
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        raise ValueError(f"weights: the volume of dimension {int(bad[0])} must be finite and >= 0; "
                         f"got {float(w[bad[0]])!r}")
    return tuple(float(v) for v in w)


def _grid_coords(vertex: int, dims: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major coordinates of ``vertex`` (the last dimension fastest, as MPI numbers);
    a vertex past the grid continues dimension 0 (the rows after the last)."""
    inner = math.prod(dims[1:])
    rest = np.unravel_index(vertex % inner, dims[1:]) if len(dims) > 1 else ()
    return (vertex // inner,) + tuple(int(c) for c in rest)


def cart_neighbors(rank: int, dims: Sequence[int], periods: Sequence[bool] | None = None) -> list[int]:
    """Return the ranks ``MPI_Cart_shift`` gives ``rank`` of a ``dims`` grid, in ``Shift`` order.

    For every dimension ``k``, the neighbour at displacement -1, then +1 (the source and
    destination of ``Shift(k, 1)``), leaving out ``MPI_PROC_NULL`` (the edge of a
    non-periodic dimension) and the rank itself (a periodic dimension of length 1).  On
    a periodic dimension of length 2 both displacements name the same rank, listed twice
    (two messages).

    Parameters
    ----------
    rank : int
        A rank of the grid, in ``[0, prod(dims))``; ranks are row-major (the last
        dimension fastest), as ``MPI_Cart_create`` numbers them.
    dims : sequence of int
        Grid lengths.
    periods : sequence of bool, optional
        Whether each dimension wraps around (default: none).

    Returns
    -------
    list of int

    Examples
    --------
    >>> cart_neighbors(0, [3, 4])  # coordinate (0, 0): below (1, 0), right (0, 1)
    [4, 1]
    >>> cart_neighbors(0, [3, 4], [True, False])  # and (2, 0) above, across the wrap
    [8, 4, 1]
    >>> cart_neighbors(1, [2, 2], [True, True])  # (0, 1): each neighbour twice
    [3, 3, 0, 0]
    """
    shape, per = _cart_shape(dims, periods)
    if not 0 <= rank < math.prod(shape):
        raise ValueError(f"rank: {rank} is outside the {'x'.join(map(str, shape))} grid")
    return _neighbors_and_volumes(rank, shape, per, (1.0,) * len(shape))[0]


def _neighbors_and_volumes(rank: int, dims: tuple[int, ...], periods: tuple[bool, ...],
                           volumes: tuple[float, ...]) -> tuple[list[int], list[float]]:
    c = _grid_coords(rank, dims)
    step = [math.prod(dims[k + 1:]) for k in range(len(dims))]
    out: list[int] = []
    vol: list[float] = []
    if rank >= math.prod(dims):  # past the grid: no neighbours (MPI gives it COMM_NULL)
        return out, vol
    for k, n in enumerate(dims):
        for disp in (-1, 1):
            x = c[k] + disp
            if not 0 <= x < n:
                if not periods[k]:
                    continue
                x %= n
            if x != c[k]:
                out.append(rank + (x - c[k]) * step[k])
                vol.append(volumes[k])
    return out, vol


def cart_task_graph(dims: Sequence[int], periods: Sequence[bool] | None = None, *, weights=None,
                    size: int | None = None) -> TaskGraph:
    """Return the task graph :func:`create_cart` maps: every grid rank sends to its :func:`cart_neighbors`.

    Parameters
    ----------
    dims, periods
        As for :func:`create_cart`.
    weights : float or sequence of float, optional
        Volume of one message to a neighbour: one number, or one per dimension (e.g. the
        face areas of an anisotropic subdomain).  Default: 1.0, and the graph is not
        :attr:`~mpitaskmap.graphs.taskgraph.TaskGraph.sized`.
    size : int, optional
        Number of tasks (the communicator's size, default ``prod(dims)``): tasks past the
        grid have no edges (MPI gives their processes ``MPI_COMM_NULL``).

    Returns
    -------
    TaskGraph
        Task ``r`` is grid rank ``r`` with its row-major coordinate attached; tasks past
        the grid continue dimension 0.  Symmetric; a rank listed twice (a periodic
        dimension of length 2) carries both volumes.

    Examples
    --------
    >>> g = cart_task_graph([2, 3])
    >>> g.n_edges, g.indices[g.indptr[4]:g.indptr[5]].tolist()  # (1, 1): (0, 1), (1, 0), (1, 2)
    (14, [1, 3, 5])
    >>> cart_task_graph([2, 2], [True, False], weights=[4.0, 1.0]).weights[:2].tolist()  # rank 0: 1 once, 2 twice
    [1.0, 8.0]
    """
    shape, per = _cart_shape(dims, periods, size)
    n = math.prod(shape) if size is None else int(size)
    volumes = _dim_weights(1.0 if weights is None else weights, len(shape))
    rows = [_neighbors_and_volumes(r, shape, per, volumes) for r in range(n)]
    return TaskGraph.from_neighbor_lists([r[0] for r in rows], None if weights is None else [r[1] for r in rows],
                                         coords=[_grid_coords(r, shape) for r in range(n)])


def _cart_task(comm, dims, periods, weights, shape_out: list):
    """This rank's task of a Cartesian grid (``task`` of :func:`~.remapping.remap_task`): one bcast."""
    rank = comm.Get_rank()
    error, shape = None, None
    try:
        shape = _cart_shape(dims, periods, comm.Get_size())
        volumes = _dim_weights(1.0 if weights is None else weights, len(shape[0]))
    except Exception as exc:  # raised after the bcast, so every rank calls it
        error = exc
    first = comm.bcast(shape if rank == 0 else None, root=0)
    if error is not None:
        raise error
    assert shape is not None  # set whenever error is None
    if first is not None and first != shape:
        raise ValueError(f"dims, periods: this rank gives {_shape_text(shape)} but rank 0 gives {_shape_text(first)}; "
                         f"MPI_Cart_create needs the same on every rank")
    shape_out.append(shape)
    neighbors, volumes_of = _neighbors_and_volumes(rank, shape[0], shape[1], volumes)
    return rank_task(comm, _grid_coords(rank, shape[0]), neighbors, None if weights is None else volumes_of)


def _shape_text(shape) -> str:
    dims, periods = shape
    return f"dims {'x'.join(map(str, dims))} periods {''.join('1' if p else '0' for p in periods)}"


def _order(comm, task, call: str, remap_options: dict) -> tuple[list, RemapReport]:
    """``remap_task`` with no communicator made and no fallback after invalid arguments."""
    bad = sorted(set(remap_options) & set(_NOT_OPTIONS))
    if bad:
        raise TypeError(f"{call}: {bad[0]!r} is not an option here (the task graph comes from the arguments)")
    _, rep = remap_task(comm, task, call=call, split=False, fallback_on_task_error=False, **remap_options)
    return rep.new_rank_of, rep


def cart_order(comm: MPI.Intracomm, dims: Sequence[int], periods: Sequence[bool] | None = None, *, weights=None,
               report: bool = False, **remap_options) -> list[int] | tuple[list[int], RemapReport]:
    """Return the order :func:`create_cart` gives: ``new_rank_of[old_rank]`` (the hook of the PMPI library).

    Collective over ``comm``; computes what :func:`create_cart` does and makes no
    communicator.  The caller then builds the Cartesian communicator itself, as the
    PMPI interposition library of ``MPI_Cart_create`` does::

        PMPI_Comm_split(comm, 0, new_rank_of[rank], &tmp);
        PMPI_Cart_create(tmp, ndims, dims, periods, 0, &cart);  /* reorder = 0 */
        PMPI_Comm_free(&tmp);

    Parameters
    ----------
    comm, dims, periods, weights, **remap_options
        As for :func:`create_cart` (``periods`` may hold C logicals, ints).
    report : bool, optional
        Also return the :class:`~mpitaskmap.runtime.report.RemapReport`.

    Returns
    -------
    list of int or (list of int, RemapReport)
        ``new_rank_of``, the same on every rank (the identity when ``MPITASKMAP_DISABLE``
        is set, or after a failure with ``on_error="identity"``).

    Raises
    ------
    MappingError
        As :func:`create_cart`.

    Examples
    --------
    >>> from mpi4py import MPI
    >>> cart_order(MPI.COMM_SELF, [1, 1], provider="sim:torus:dims=2x2")
    [0]
    """
    order, rep = _order(comm, functools.partial(_cart_task, comm, dims, periods, weights, []), "cart_order",
                        remap_options)
    return (order, rep) if report else order


def create_cart(comm: MPI.Intracomm, dims: Sequence[int], periods: Sequence[bool] | None = None, *, weights=None,
                report: bool = False, **remap_options) -> MPI.Cartcomm | tuple[MPI.Cartcomm, RemapReport]:
    """Return ``comm.Create_cart(dims, periods, reorder=True)`` with the reordering done.

    Collective over ``comm``.  The process that gets rank ``r`` of the returned
    communicator plays grid rank ``r`` (``Get_coords(r)``, row-major as
    ``MPI_Cart_create`` numbers); the processes are chosen by :func:`mpitaskmap.remap`'s
    search so that grid neighbours (:func:`cart_task_graph`) sit close on the machine.
    ``Get_coords``, ``Shift``, ``Get_topo`` and the neighbourhood collectives are MPI's
    own: the communicator is made by ``Create_cart(dims, periods, reorder=False)`` on
    ``comm`` split in the new order.  After the call the application uses its new rank
    (or its coordinates) to pick its subdomain.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The processes (left untouched).
    dims : sequence of int
        Grid lengths, positive, the same on every rank, with ``prod(dims) <= comm.size``.
    periods : sequence of bool, optional
        Whether each dimension wraps around (default: none); the same on every rank.
    weights : float or sequence of float, optional
        Volume of one message to a grid neighbour, one number or one per dimension
        (bytes when the objective is the predicted time).  Default: none given, 1.0 each
        with a representative message size assumed
        (:data:`~mpitaskmap.metrics.UNSIZED_BYTES_PER_WEIGHT`).
    report : bool, optional
        Also return a :class:`~mpitaskmap.runtime.report.RemapReport` (``call``
        ``"create_cart"``; ``new_rank_of[old_rank]`` is the rank in the returned
        communicator, for old ranks whose new rank is below ``prod(dims)``).
    **remap_options
        Keywords of :func:`mpitaskmap.remap`: ``provider``, ``metric``, ``families``,
        ``refine``, ``judge``, ``shared_memory``, ``on_error``, ...

    Returns
    -------
    mpi4py.MPI.Cartcomm or (mpi4py.MPI.Cartcomm, RemapReport)
        Owned by the caller (``Free()``), named ``"mpitaskmap:<provider>"``;
        ``MPI.COMM_NULL`` on the processes whose new rank is ``prod(dims)`` or more (as MPI
        gives them): those the mapping gave the edgeless tasks past the grid.  With
        ``MPITASKMAP_DISABLE=1`` (or after a failure with ``on_error="identity"``) the
        unreordered ``Create_cart(dims, periods, reorder=False)``.

    Raises
    ------
    MappingError
        On every rank alike: dims or periods invalid or different on some rank (whatever
        ``on_error``), or any other failure with ``on_error="raise"``.
    TypeError, ValueError
        For invalid options, before any communication (as :func:`mpitaskmap.remap`).

    Examples
    --------
    >>> from mpi4py import MPI
    >>> cart, rep = create_cart(MPI.COMM_SELF, [1, 1], [True, False], provider="sim:torus:dims=2x2", report=True)
    >>> cart.Get_topo(), rep.call, rep.new_rank_of
    (([1, 1], [1, 0], [0, 0]), 'create_cart', [0])
    >>> cart.Free()
    """
    shape_out: list = []
    order, rep = _order(comm, functools.partial(_cart_task, comm, dims, periods, weights, shape_out),
                        "create_cart", remap_options)
    if rep.status == "disabled":  # MPI's own call, as if mpitaskmap were not there
        cart = comm.Create_cart(dims, periods, reorder=False)
    else:
        cart = _in_order(comm, order, lambda c: c.Create_cart(*shape_out[0], reorder=False))
    _name(cart, rep)
    return (cart, rep) if report else cart


def _in_order(comm, order: list, make):
    """``make(c)`` on ``c`` = ``comm`` in the new order (``comm`` itself for the identity)."""
    if order == list(range(comm.Get_size())):
        return make(comm)
    tmp = comm.Split(0, order[comm.Get_rank()])
    try:
        return make(tmp)
    finally:
        tmp.Free()


def _name(new, rep: RemapReport) -> None:
    from mpi4py import MPI

    if new != MPI.COMM_NULL:
        new.Set_name(f"mpitaskmap:{rep.provider or 'none'}")


# -- distributed graphs --------------------------------------------------------------------


def _ranks(values, name: str, size: int) -> list[int]:
    """Ranks of ``comm`` (``sources``, ``destinations``) as ints in ``[0, size)``."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise ValueError(f"{name}: expected a sequence of ranks; got {values!r}")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{name}: entry {i} is not a rank (an integer); got {v!r}")
        if not 0 <= v < size:
            raise ValueError(f"{name}: entry {i} names rank {int(v)}, outside [0, {size})")
        out.append(int(v))
    return out


def _mpi_weights(values, name: str, n: int) -> list[int]:
    """MPI edge weights: ``n`` non-negative integers that fit a C int (an integral float is taken)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise ValueError(f"{name}: expected a sequence of non-negative integers; got {values!r}")
    if len(values) != n:
        raise ValueError(f"{name}: {len(values)} weights for {n} edges")
    out = []
    for i, v in enumerate(values):
        ok = not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, np.integer, float, np.floating))
        if not ok or not math.isfinite(v) or v != int(v) or not 0 <= v <= _MPI_INT_MAX:
            raise ValueError(f"{name}: entry {i} must be an integer in [0, {_MPI_INT_MAX}] (MPI weights are C ints); "
                             f"got {v!r}")
        out.append(int(v))
    return out


def _adjacency(sources, destinations, sourceweights, destweights, size: int) -> Adjacency:
    """One rank's arguments, checked (a ValueError names the argument and entry at fault)."""
    src = _ranks(sources, "sources", size)
    dst = _ranks(destinations, "destinations", size)
    if (sourceweights is None) != (destweights is None):
        given = "sourceweights" if sourceweights is not None else "destweights"
        raise ValueError(f"{given}: given without the other; MPI needs both weight lists or neither (MPI_UNWEIGHTED)")
    if sourceweights is None:
        return Adjacency(src, dst, None, None)
    return Adjacency(src, dst, _mpi_weights(sourceweights, "sourceweights", len(src)),
                     _mpi_weights(destweights, "destweights", len(dst)))


def _sources_mismatch(rank: int, adj: Adjacency, senders: np.ndarray, sent: np.ndarray) -> str:
    """Why the sources ``rank`` declares differ from the edges the ranks declare into it ("" if they agree).

    ``senders[e]`` declared an edge to ``rank`` with weight ``sent[e]`` (1 unweighted).

    Examples
    --------
    >>> adj = Adjacency([0, 2], [], [5, 1], [])
    >>> _sources_mismatch(1, adj, np.array([0, 2]), np.array([5, 1]))
    ''
    >>> _sources_mismatch(1, adj, np.array([0, 2]), np.array([5, 3]))
    'sources: rank 1 lists rank 2 as a source once (weights [1]) but rank 2 lists rank 1 as a destination once (weights [3]); MPI needs every edge declared at both ends with the same weight'
    """
    weighted = adj.sourceweights is not None
    mine = np.asarray(adj.sources, dtype=np.int64)
    mine_w = np.asarray(adj.sourceweights if weighted else np.ones(mine.size), dtype=np.int64)
    a = np.lexsort((mine_w, mine))
    b = np.lexsort((sent, senders))
    if np.array_equal(mine[a], senders[b]) and np.array_equal(mine_w[a], sent[b]):
        return ""
    for i in np.unique(np.concatenate([mine, senders])):  # the first source at fault
        listed, declared = np.sort(mine_w[mine == i]), np.sort(sent[senders == i])
        if not np.array_equal(listed, declared):
            return (f"sources: rank {rank} lists rank {i} as a source {_times(listed, weighted)} but rank {i} lists "
                    f"rank {rank} as a destination {_times(declared, weighted)}; MPI needs every edge declared at "
                    f"both ends with the same weight")
    return ""  # not reached: equal multisets per source are equal multisets


def _times(w: np.ndarray, weighted: bool) -> str:
    n = {0: "nowhere", 1: "once", 2: "twice"}.get(w.size, f"{w.size} times")
    return n + (f" (weights {w.tolist()})" if weighted and w.size else "")


def dist_graph_task_graph(sources: Sequence[Sequence[int]], destinations: Sequence[Sequence[int]],
                          sourceweights: Sequence[Sequence[int]] | None = None,
                          destweights: Sequence[Sequence[int]] | None = None, *, coords=None) -> TaskGraph:
    """Return the task graph :func:`create_dist_graph_adjacent` maps, from every vertex's arguments.

    What the ranks of ``create_dist_graph_adjacent`` declare, one list per vertex, checked
    as the collective call checks them: each edge ``i -> j`` is a destination of ``i``
    and a source of ``j`` with the same weight.

    Parameters
    ----------
    sources, destinations : sequence of sequence of int
        ``sources[r]``, ``destinations[r]``: the arguments of rank ``r``.
    sourceweights, destweights : sequence of sequence of int, optional
        Their weights (both or neither; unweighted edges weigh 1 and the graph is not
        :attr:`~mpitaskmap.graphs.taskgraph.TaskGraph.sized`).
    coords : (n, d) array_like, optional
        Task coordinates (default: the vertex number, ``[[0], [1], ...]``).

    Returns
    -------
    TaskGraph
        Edge ``i -> j`` with volume the destination weight; an edge declared twice
        carries both weights.

    Raises
    ------
    ValueError
        For the first vertex at fault, worded as the collective call's agreed error.

    Examples
    --------
    >>> g = dist_graph_task_graph([[1], [0], [1]], [[1], [0, 2], []], [[3], [2], [4]], [[2], [3, 4], []])
    >>> g.indptr.tolist(), g.indices.tolist(), g.weights.tolist()
    ([0, 1, 3, 3], [1, 0, 2], [2.0, 3.0, 4.0])
    >>> dist_graph_task_graph([[], [0]], [[], []])
    Traceback (most recent call last):
    ...
    ValueError: vertex 1: sources: rank 1 lists rank 0 as a source once but rank 0 lists rank 1 as a destination nowhere; MPI needs every edge declared at both ends with the same weight
    """
    n = len(destinations)
    if len(sources) != n:
        raise ValueError(f"sources: {len(sources)} lists for {n} vertices")
    for name, w in (("sourceweights", sourceweights), ("destweights", destweights)):
        if w is not None and len(w) != n:
            raise ValueError(f"{name}: {len(w)} lists for {n} vertices")
    adj = []
    for r in range(n):
        try:
            adj.append(_adjacency(sources[r], destinations[r], None if sourceweights is None else sourceweights[r],
                                  None if destweights is None else destweights[r], n))
        except ValueError as exc:
            raise ValueError(f"vertex {r}: {exc}") from None
    src = np.repeat(np.arange(n, dtype=np.int64), [len(a.destinations) for a in adj])
    dst = np.array([v for a in adj for v in a.destinations], dtype=np.int64)
    wts = np.array([v for a in adj for v in (a.destweights or [1] * len(a.destinations))], dtype=np.int64)
    for r in range(n):
        why = _sources_mismatch(r, adj[r], src[dst == r], wts[dst == r])
        if why:
            raise ValueError(f"vertex {r}: {why}")
    g = TaskGraph.from_neighbor_arrays(np.bincount(src, minlength=n), dst, wts.astype(np.float64),
                                       coords=np.arange(n, dtype=np.float64)[:, None] if coords is None else coords)
    g.sized = destweights is not None  # MPI_UNWEIGHTED: no message sizes
    return g


def _dist_graph_task(comm, sources, destinations, sourceweights, destweights, coords, adj_out: list):
    """This rank's task of a distributed graph (``task`` of :func:`~.remapping.remap_task`).

    One ``Alltoall`` (how many edges each rank declares to each, and whether it gives
    weights: -1 after a local error) and one ``Alltoallv`` (their weights), called by every
    rank whatever its arguments; raises after them.
    """
    rank, size = comm.Get_rank(), comm.Get_size()
    error, adj = None, None
    try:
        adj = _adjacency(sources, destinations, sourceweights, destweights, size)
    except Exception as exc:
        error = exc
    dst = np.asarray(adj.destinations if adj else [], dtype=np.int64)
    dw = adj.destweights if adj is not None else None
    weighted = dw is not None
    wts = np.asarray(dw if dw is not None else np.ones(dst.size), dtype=np.int64)
    head = np.empty((size, 2), dtype=np.int64)
    head[:, 0] = np.bincount(dst, minlength=size)
    head[:, 1] = -1 if adj is None else int(weighted)
    got = np.empty_like(head)
    comm.Alltoall(head, got)
    sent = np.empty(int(got[:, 0].sum()), dtype=np.int64)
    comm.Alltoallv([wts[np.argsort(dst, kind="stable")], (head[:, 0], _starts(head[:, 0]))],
                   [sent, (got[:, 0], _starts(got[:, 0]))])
    if error is not None:
        raise error
    assert adj is not None  # set whenever error is None
    flags = got[:, 1]
    if (flags >= 0).all():  # a rank that failed reports its own error; nothing to compare with it
        if flags[0] != int(weighted):
            raise ValueError(f"sourceweights, destweights: this rank gives {_weighted_text(weighted)} but rank 0 gives "
                             f"{_weighted_text(bool(flags[0]))}; MPI needs weights on every rank or on none")
        why = _sources_mismatch(rank, adj, np.repeat(np.arange(size, dtype=np.int64), got[:, 0]), sent)
        if why:
            raise ValueError(why)
    adj_out.append(adj)
    return rank_task(comm, (float(rank),) if coords is None else coords, dst, wts.astype(np.float64) if weighted else None)


def _weighted_text(weighted: bool) -> str:
    return "weights" if weighted else "none (MPI_UNWEIGHTED)"


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)


def move_adjacency(new: MPI.Intracomm, new_rank_of: Sequence[int], old_rank: int, adjacency: Adjacency) -> Adjacency:
    """Give each process the adjacency of the vertex it now plays; return this process's.

    Collective over ``new`` (one ``sendrecv``): the process of old rank ``q`` now has new
    rank ``n = new_rank_of[q]`` and plays vertex ``n``, whose adjacency old rank ``n``
    declared.  It sends its own (vertex ``q``'s) to new rank ``q`` and receives vertex
    ``n``'s from new rank ``new_rank_of[n]``.  Vertex numbers are new ranks, so the lists
    need no translation.  The PMPI library does the same in C after :func:`dist_graph_order`.

    Parameters
    ----------
    new : mpi4py.MPI.Intracomm
        ``comm.Split(0, new_rank_of[old_rank])``, private to this exchange.
    new_rank_of : sequence of int
        The order, the same on every rank.
    old_rank : int
        This process's rank in ``comm``.
    adjacency : Adjacency
        What this process declared.

    Returns
    -------
    Adjacency
        Vertex ``new_rank_of[old_rank]``'s, to pass to ``Create_dist_graph_adjacent``.
    """
    n = int(new_rank_of[old_rank])
    return Adjacency(*new.sendrecv(tuple(adjacency), dest=old_rank, source=int(new_rank_of[n])))


def dist_graph_order(comm: MPI.Intracomm, sources: Sequence[int], destinations: Sequence[int],
                     sourceweights: Sequence[int] | None = None, destweights: Sequence[int] | None = None, *,
                     coords=None, report: bool = False,
                     **remap_options) -> list[int] | tuple[list[int], RemapReport]:
    """Return the order :func:`create_dist_graph_adjacent` gives: ``new_rank_of[old_rank]`` (the PMPI hook).

    Collective over ``comm``; computes what :func:`create_dist_graph_adjacent` does and
    makes no communicator.  The caller then builds it as the PMPI library of
    ``MPI_Dist_graph_create_adjacent`` does: ``PMPI_Comm_split(comm, 0,
    new_rank_of[rank], &tmp)``, then (unless the order is the identity) the exchange of
    :func:`move_adjacency` on ``tmp``, then ``PMPI_Dist_graph_create_adjacent(tmp, ...,
    reorder = 0, &graph)`` with the adjacency received.

    Parameters
    ----------
    comm, sources, destinations, sourceweights, destweights, coords, **remap_options
        As for :func:`create_dist_graph_adjacent`.
    report : bool, optional
        Also return the :class:`~mpitaskmap.runtime.report.RemapReport`.

    Returns
    -------
    list of int or (list of int, RemapReport)
        ``new_rank_of``, the same on every rank.

    Raises
    ------
    MappingError
        As :func:`create_dist_graph_adjacent`.

    Examples
    --------
    >>> from mpi4py import MPI
    >>> dist_graph_order(MPI.COMM_SELF, [0], [0], provider="sim:torus:dims=2x2")
    [0]
    """
    task = functools.partial(_dist_graph_task, comm, sources, destinations, sourceweights, destweights, coords, [])
    order, rep = _order(comm, task, "dist_graph_order", _graph_options(remap_options))
    return (order, rep) if report else order


def _graph_options(remap_options: dict) -> dict:
    """A declared graph's default families: the geometric mapper's and the graph mapper's."""
    return {"families": DIST_GRAPH_FAMILIES, **remap_options}


def create_dist_graph_adjacent(comm: MPI.Intracomm, sources: Sequence[int], destinations: Sequence[int],
                               sourceweights: Sequence[int] | None = None, destweights: Sequence[int] | None = None,
                               *, coords=None, report: bool = False,
                               **remap_options) -> MPI.Distgraphcomm | tuple[MPI.Distgraphcomm, RemapReport]:
    """Return ``comm.Create_dist_graph_adjacent(..., reorder=True)`` with the reordering done.

    Collective over ``comm``.  Every rank declares its vertex's edges as MPI takes them
    (ranks of ``comm``); the process that gets rank ``r`` of the returned communicator
    plays vertex ``r``, the one old rank ``r`` declared, and gets its adjacency: its
    ``Get_dist_neighbors()`` are vertex ``r``'s sources, destinations and weights, in the
    order declared, and the neighbourhood collectives move data along the declared edges
    between the processes playing their ends.  The processes are chosen by
    :func:`mpitaskmap.remap`'s search on the declared graph (:func:`dist_graph_task_graph`:
    edge ``i -> j`` weighs its destination weight, 1 unweighted).  After the call the
    application uses its new rank to pick its vertex's data.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The processes (left untouched).
    sources, destinations : sequence of int
        This rank's in- and out-neighbours, as ``MPI_Dist_graph_create_adjacent``; every
        edge ``i -> j`` is a destination of ``i`` and a source of ``j``.
    sourceweights, destweights : sequence of int, optional
        Their weights, non-negative integers (both or neither; on every rank or on none).
    coords : sequence of float, optional
        This vertex's coordinate for the geometric mapper (e.g. the centre of its
        subdomain); default its number ``(rank,)``.
    report : bool, optional
        Also return a :class:`~mpitaskmap.runtime.report.RemapReport` (``call``
        ``"create_dist_graph_adjacent"``).
    **remap_options
        Keywords of :func:`mpitaskmap.remap`; ``families`` defaults to
        :data:`DIST_GRAPH_FAMILIES`.

    Returns
    -------
    mpi4py.MPI.Distgraphcomm or (mpi4py.MPI.Distgraphcomm, RemapReport)
        Owned by the caller, named ``"mpitaskmap:<provider>"``.  With
        ``MPITASKMAP_DISABLE=1`` (or after a failure with ``on_error="identity"``) the
        unreordered ``Create_dist_graph_adjacent(..., reorder=False)``.

    Raises
    ------
    MappingError
        On every rank alike: an argument invalid on some rank, an edge declared at one end
        only or with different weights, weights on some ranks only (whatever
        ``on_error``), or any other failure with ``on_error="raise"``.
    TypeError, ValueError
        For invalid options, before any communication.

    Examples
    --------
    >>> from mpi4py import MPI
    >>> g = create_dist_graph_adjacent(MPI.COMM_SELF, [0], [0], [7], [7], provider="sim:torus:dims=2x2")
    >>> g.Get_dist_neighbors()
    ([0], [0], ([7], [7]))
    >>> g.Free()
    """
    adj_out: list = []
    task = functools.partial(_dist_graph_task, comm, sources, destinations, sourceweights, destweights, coords,
                             adj_out)
    order, rep = _order(comm, task, "create_dist_graph_adjacent", _graph_options(remap_options))
    if rep.status == "disabled":  # MPI's own call, as if mpitaskmap were not there
        graph = comm.Create_dist_graph_adjacent(sources, destinations, sourceweights, destweights, reorder=False)
    else:
        rank = comm.Get_rank()

        def make(c):
            adj = adj_out[0] if c is comm else move_adjacency(c, order, rank, adj_out[0])
            return c.Create_dist_graph_adjacent(*adj, reorder=False)

        graph = _in_order(comm, order, make)
    _name(graph, rep)
    return (graph, rep) if report else graph
