"""The Rubik partition tree: boxes, their partitioning, ``map`` and output.

See :mod:`mpitaskmap.mappers.rubik` for the concepts and the compatibility notes; the
permutation kernels live in :mod:`mpitaskmap.mappers.rubik.permute`.
"""

from __future__ import annotations

import sys
from typing import Iterator, Sequence

import numpy as np

from . import permute as _permute
from ...errors import InvalidInputError
from ...machines import Machine, require_router_grid
from ..._textio import write_coordinate_lines
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph

__all__ = ["box", "Box", "div", "mod"]


# -- slicers (Rubik's module-level ``div`` and ``mod``, passed to ``cut``) ------------------
def div(length: int, chunk: int, n_chunks: int) -> slice:
    """Return chunk ``chunk`` of ``n_chunks`` contiguous chunks of an axis (last takes the rest).

    Pass the function itself to :meth:`Box.cut` (``cut([2, 2], [div, mod])``).

    Parameters
    ----------
    length : int
        Extent of the axis.
    chunk : int
        Chunk index, ``0 <= chunk < n_chunks``.
    n_chunks : int
        Number of chunks.

    Returns
    -------
    slice
        ``[chunk * s, chunk * s + s)`` with ``s = length // n_chunks``; the last chunk runs
        to the end of the axis.

    Examples
    --------
    >>> [div(7, c, 3) for c in range(3)]
    [slice(0, 2, None), slice(2, 4, None), slice(4, 7, None)]
    """
    size = length // n_chunks
    start = chunk * size
    return slice(start, length if chunk == n_chunks - 1 else start + size)


def mod(length: int, chunk: int, n_chunks: int) -> slice:
    """Return the strided set ``x % n_chunks == chunk`` of an axis (an interleaved cut).

    Pass the function itself to :meth:`Box.cut`.

    Parameters
    ----------
    length : int
        Extent of the axis (unused; kept for the slicer signature).
    chunk : int
        Residue, ``0 <= chunk < n_chunks``.
    n_chunks : int
        Modulus.

    Returns
    -------
    slice
        ``slice(chunk, None, n_chunks)``: local coordinate ``x // n_chunks``.

    Examples
    --------
    >>> list(range(5))[mod(5, 1, 2)]
    [1, 3]
    """
    return slice(chunk, None, n_chunks)


_SLICERS = {"div": div, "mod": mod}


def _int_list(values, name: str) -> list[int]:
    if isinstance(values, (int, np.integer)):
        values = [values]
    try:
        arr = np.asarray(list(values))
    except TypeError:
        raise InvalidInputError(f"{name}: expected a sequence of integers; got {values!r}") from None
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidInputError(f"{name}: expected a sequence of integers; got {values!r}")
    return [int(v) for v in arr]


def box(shape: Sequence[int]) -> "Box":
    """Return a new root box of ``shape`` filled with ranks 0..N-1 in scan-line order.

    Parameters
    ----------
    shape : sequence of int
        Extent of every dimension (any number of dimensions); the last varies fastest.

    Returns
    -------
    Box
        Rank ``r`` sits at ``np.unravel_index(r, shape)``.

    Raises
    ------
    InvalidInputError
        If ``shape`` is empty or has a non-positive extent.

    Examples
    --------
    >>> box([2, 3]).ranks.tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    dims = _int_list(shape, "shape")
    if not dims or min(dims) < 1:
        raise InvalidInputError(f"shape: expected one or more positive extents; got {list(shape)!r}")
    cells = np.arange(int(np.prod(dims, dtype=np.int64)), dtype=np.intp).reshape(dims)
    return Box(cells)


class Box:
    """A node of a Rubik partition tree: a window of cells of the root box.

    Create roots with :func:`box`; children come from :meth:`div`, :meth:`tile`,
    :meth:`mod` and :meth:`cut`.  Every node's cells are a NumPy view of the root's array
    (a strided view for ``mod`` children), so permutations of a node move ranks inside
    the root and the node's windows stay fixed.

    Attributes
    ----------
    parent : Box or None
        The parent node (None for a root).
    children : ndarray of object
        Children in a grid whose shape is the divisor list (size 0 for a leaf).
    index : tuple of int
        This node's index in the parent's children grid.
    flat_index : int
        Its C-order position in that grid.
    level : int
        Depth below the root (0 for the root).

    Examples
    --------
    >>> b = box([4, 4, 4])
    >>> b.div([2, 1, 4])
    >>> b.children.shape, b[1, 0, 3].shape, b.children[1, 0, 3].ranks.ravel().tolist()
    ((2, 1, 4), (2, 4, 1), [35, 39, 43, 47, 51, 55, 59, 63])
    """

    def __init__(self, cells: np.ndarray, parent: "Box | None" = None, index: tuple = (), flat_index: int = 0) -> None:
        self._cells = cells
        self.parent = parent
        self.index = index if parent is not None else (0,) * cells.ndim
        self.flat_index = int(flat_index)
        self.level = 0 if parent is None else parent.level + 1
        self.children = np.array([], dtype=object)
        self.cutargs: tuple | None = None

    # -- basic properties -------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        """Extent of every dimension of this node."""
        return self._cells.shape

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return self._cells.ndim

    @property
    def size(self) -> int:
        """Number of cells."""
        return int(self._cells.size)

    @property
    def ranks(self) -> np.ndarray:
        """Return a copy of the ranks held by every cell (shape ``self.shape``)."""
        return self._cells.copy()

    @property
    def root(self) -> "Box":
        """The root of this node's tree."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    @property
    def ancestors(self) -> list:
        """Nodes from the root down to this one (inclusive)."""
        chain = []
        node: Box | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        return chain[::-1]

    def __iter__(self) -> Iterator["Box"]:
        return iter(self.children.flat)

    def __getitem__(self, index):
        return self.children[index]

    def __repr__(self) -> str:
        grid = self.children.shape if self.children.size else None
        return f"Box(shape={self.shape}, level={self.level}, children={grid})"

    def is_leaf(self) -> bool:
        """Return True when this node has no children."""
        return self.children.size == 0

    def leaves(self) -> Iterator["Box"]:
        """Yield the leaves below this node, depth-first pre-order, children in C order.

        This is the order :meth:`map` pairs leaves in (Rubik's order; its documentation
        says breadth-first, its code and this method are depth-first).
        """
        if self.children.size:
            for child in self.children.flat:
                yield from child.leaves()
        else:
            yield self

    def depth(self) -> int:
        """Return the number of levels of the subtree rooted here (1 for a leaf)."""
        return 1 + max([c.depth() for c in self.children.flat] + [0])

    # -- partitioning -------------------------------------------------------------------
    def cut(self, divisors: Sequence[int], kinds=div, *, exact: bool = False) -> None:
        """Split this node into a grid of children, ``div`` or ``mod`` per axis.

        Parameters
        ----------
        divisors : sequence of int
            Number of children along each of the first ``len(divisors)`` axes; the
            remaining axes are not cut and the children grid has ``len(divisors)``
            dimensions.  1 leaves an axis whole.
        kinds : slicer or sequence of slicers, optional
            :func:`div` (contiguous chunks, the last taking the remainder) or :func:`mod`
            (interleaved), or the strings ``"div"``/``"mod"``; one for all axes or one per
            divisor.  Default :func:`div`.
        exact : bool, optional
            Also reject divisors that do not divide their extent (default False, as Rubik).

        Raises
        ------
        InvalidInputError
            On more divisors than dimensions, a divisor below 1 or above its extent (Rubik
            would create empty children or none), an unknown kind, or with ``exact`` a
            divisor that does not divide its extent.

        Notes
        -----
        Cutting a node again replaces its subtree.  Ranks do not move.

        Examples
        --------
        >>> b = box([4, 4, 4])
        >>> b.cut([2, 2, 2], [div, div, mod])
        >>> b[1, 0, 1].ranks.ravel().tolist()
        [33, 35, 37, 39, 49, 51, 53, 55]
        """
        divs = _int_list(divisors, "divisors")
        if not divs or len(divs) > self.ndim:
            raise InvalidInputError(f"divisors: expected 1 to {self.ndim} entries for a {self.ndim}-D box; got {divs}")
        if callable(kinds) or isinstance(kinds, str):
            kinds = [kinds] * len(divs)
        kinds = list(kinds)
        if len(kinds) != len(divs):
            raise InvalidInputError(f"kinds: expected one slicer per divisor ({len(divs)}); got {len(kinds)}")
        slicers = []
        for k in kinds:
            fn = _SLICERS.get(k) if isinstance(k, str) else k
            if fn not in (div, mod):
                raise InvalidInputError(f"kinds: expected div or mod (or 'div'/'mod'); got {k!r}")
            slicers.append(fn)
        for axis, (d, extent) in enumerate(zip(divs, self.shape)):
            if not 1 <= d <= extent:
                raise InvalidInputError(
                    f"divisors: axis {axis} of extent {extent} needs 1 <= divisor <= {extent} "
                    f"(more would leave empty children); got {d}"
                )
            if exact and extent % d:
                raise InvalidInputError(f"divisors: {d} does not divide axis {axis} of extent {extent}; got {divs}")
        grid = np.empty(divs, dtype=object)
        for flat, idx in enumerate(np.ndindex(*divs)):
            sl = tuple(fn(self.shape[a], c, divs[a]) for a, (fn, c) in enumerate(zip(slicers, idx)))
            grid[idx] = Box(self._cells[sl], self, idx, flat)
        self.children = grid
        self.cutargs = (divs, slicers)

    def div(self, divisors: Sequence[int], *, exact: bool = False) -> None:
        """Split into contiguous chunks: child index ``x_i // (D_i // d_i)`` (last takes the rest).

        Parameters
        ----------
        divisors : sequence of int
            Chunks per axis (the first ``len(divisors)`` axes).
        exact : bool, optional
            Reject divisors that do not divide their extent (default False, as Rubik).

        Raises
        ------
        InvalidInputError
            As for :meth:`cut`.

        Examples
        --------
        >>> b = box([7])
        >>> b.div([3])
        >>> [c.size for c in b]
        [2, 2, 3]
        """
        self.cut(divisors, div, exact=exact)

    def mod(self, divisors: Sequence[int], *, exact: bool = False) -> None:
        """Split into interleaved sets: child index ``x_i mod d_i``, local coordinate ``x_i // d_i``.

        Parameters
        ----------
        divisors : sequence of int
            Moduli per axis (the first ``len(divisors)`` axes).
        exact : bool, optional
            Reject moduli that do not divide their extent (default False, as Rubik).

        Raises
        ------
        InvalidInputError
            As for :meth:`cut`.

        Examples
        --------
        >>> b = box([4, 4])
        >>> b.mod([2, 2])
        >>> b[1, 0].ranks.tolist()
        [[4, 6], [12, 14]]
        """
        self.cut(divisors, mod, exact=exact)

    def tile(self, sizes: Sequence[int], *, exact: bool = False) -> None:
        """Split into tiles of ``sizes``: ``div([D_i // t_i])``, trailing sizes padded with 1.

        Parameters
        ----------
        sizes : sequence of int
            Tile extent per axis; missing trailing entries mean 1 (as in Rubik).  When a
            size does not divide its extent the last tile on that axis is larger.
        exact : bool, optional
            Reject sizes that do not divide their extent (default False, as Rubik).

        Raises
        ------
        InvalidInputError
            On more sizes than dimensions, a size below 1 or larger than its extent (Rubik
            would silently make no children), or with ``exact`` a size that does not
            divide its extent.

        Examples
        --------
        >>> b = box([4, 4, 4])
        >>> b.tile([2, 4, 1])
        >>> b.children.shape, b[0, 0, 0].shape
        ((2, 1, 4), (2, 4, 1))
        """
        tiles = _int_list(sizes, "sizes")
        if len(tiles) > self.ndim:
            raise InvalidInputError(f"sizes: expected at most {self.ndim} tile sizes; got {tiles}")
        tiles = tiles + [1] * (self.ndim - len(tiles))
        for axis, (t, extent) in enumerate(zip(tiles, self.shape)):
            if not 1 <= t <= extent:
                raise InvalidInputError(f"sizes: tile size on axis {axis} must lie in [1, {extent}]; got {t}")
            if exact and extent % t:
                raise InvalidInputError(f"sizes: {t} does not divide axis {axis} of extent {extent}; got {tiles}")
        self.cut([extent // t for t, extent in zip(tiles, self.shape)], div)

    # -- permutations (kernels in mpitaskmap.mappers.rubik.permute) ------------------------------
    def tilt(self, axis: int, direction: int, slope: int = 1) -> None:
        """Tilt hyperplanes: the element at ``x`` moves to ``x[axis] + slope * x[direction]`` along ``axis``.

        See :func:`mpitaskmap.mappers.rubik.permute.tilt`.  ``tilt(Z, X, 1)`` tilts the Z planes
        along X.  Raises InvalidInputError on an axis out of range or ``axis == direction``.

        Examples
        --------
        >>> b = box([3, 3])
        >>> b.tilt(1, 0, 1)
        >>> b.ranks.tolist()
        [[0, 1, 2], [5, 3, 4], [7, 8, 6]]
        """
        _permute.tilt(self._cells, axis, direction, slope)

    def shear(self, axis: int, direction: int, slope: int = 1) -> None:
        """Shear hyperplanes normal to ``axis`` along ``direction``: ``tilt(direction, axis, slope)``.

        Examples
        --------
        >>> b = box([3, 3])
        >>> b.shear(1, 0, 2)
        >>> b.ranks.tolist()
        [[0, 4, 8], [3, 7, 2], [6, 1, 5]]
        """
        _permute.shear(self._cells, axis, direction, slope)

    def zigzag(self, axis: int, direction: int, depth: int, stride: int = 1) -> None:
        """Shift hyperplanes ``x[direction] = i`` along ``axis`` by Rubik's zigzag ramp.

        See :func:`mpitaskmap.mappers.rubik.permute.zigzag_shifts` for the ramp; with ``stride=1``
        odd hyperplanes move by ``depth``.  Rubik requires all four arguments; the user
        guide's three-argument form works here.

        Examples
        --------
        >>> b = box([4, 3])
        >>> b.zigzag(1, 0, 1)
        >>> b.ranks.tolist()
        [[0, 1, 2], [5, 3, 4], [6, 7, 8], [11, 9, 10]]
        """
        _permute.zigzag(self._cells, axis, direction, depth, stride)

    def zorder(self) -> None:
        """Reorder the ranks of this node along the Z (Morton) curve, dimension 0 in the lowest bit.

        See :func:`mpitaskmap.mappers.rubik.permute.zorder`.

        Examples
        --------
        >>> b = box([2, 2])
        >>> b.zorder()
        >>> b.ranks.tolist()
        [[0, 2], [1, 3]]
        """
        _permute.zorder(self._cells)

    def transpose(self, axes: Sequence[int]) -> None:
        """Refill this node, in scan order, with the scan of its transpose (the shape is kept).

        Examples
        --------
        >>> b = box([2, 2])
        >>> b.transpose([1, 0])
        >>> b.ranks.tolist()
        [[0, 2], [1, 3]]
        """
        _permute.transpose(self._cells, axes)

    # -- mapping --------------------------------------------------------------------------
    def compatible(self, other: "Box") -> bool:
        """Return True when ``self.map(other)`` is allowed: same number and sizes of leaves."""
        mine, theirs = list(self.leaves()), list(other.leaves())
        return len(mine) == len(theirs) and all(m.size == o.size for m, o in zip(mine, theirs))

    def map(self, app: "Box") -> None:
        """Place the ranks of ``app`` into this network tree, leaf by leaf.

        Leaves of both trees are paired in depth-first pre-order; the k-th rank of an app
        leaf (in its scan order) goes to the k-th cell of the paired network leaf.  The two
        trees may differ in dimension count, depth and leaf shapes.  Permutations applied
        to this tree before are overwritten; apply them after mapping.

        Parameters
        ----------
        app : Box
            Root of the application tree.

        Raises
        ------
        InvalidInputError
            If either tree is not a root, the leaf counts or total sizes differ (as Rubik),
            or any paired leaves differ in size (Rubik then silently loses ranks).

        Examples
        --------
        >>> app = box([9, 3, 8]); app.tile([9, 3, 1])
        >>> net = box([6, 6, 6]); net.tile([3, 3, 3])
        >>> net.map(app)
        >>> net.rank_coords()[[0, 1, 8, 215]].tolist()
        [[0, 0, 0], [0, 0, 3], [0, 0, 1], [5, 5, 5]]
        """
        if not isinstance(app, Box):
            raise InvalidInputError(f"app: expected a Box; got {type(app).__name__}")
        if self.parent is not None:
            raise InvalidInputError(f"map: call it on the root of the network tree; got a level-{self.level} node")
        if app.parent is not None:
            raise InvalidInputError(f"app: must be the root of the application tree; got a level-{app.level} node")
        mine, theirs = list(self.leaves()), list(app.leaves())
        if len(mine) != len(theirs):
            raise InvalidInputError(
                f"app: cannot map a {len(theirs)}-leaf partition onto a {len(mine)}-leaf partition; "
                f"got {len(theirs)} leaves"
            )
        if self.size != app.size:
            raise InvalidInputError(f"app: cannot map size {app.size} onto size {self.size}; got {app.size}")
        for k, (m, o) in enumerate(zip(mine, theirs)):
            if m.size != o.size:
                raise InvalidInputError(
                    f"app: leaf {k} (depth-first) has {o.size} ranks but network leaf {k} has {m.size} cells; "
                    f"got app leaf sizes {[leaf.size for leaf in theirs[:8]]}, network "
                    f"{[leaf.size for leaf in mine[:8]]}{' ...' if len(mine) > 8 else ''}"
                )
        values = [o._cells.ravel().copy() for o in theirs]
        for m, v in zip(mine, values):
            m._cells[...] = v.reshape(m.shape)

    # -- output ---------------------------------------------------------------------------
    def rank_coords(self) -> np.ndarray:
        """Return the coordinate of every rank held here, in ascending rank order.

        Returns
        -------
        (size, ndim) ndarray of intp
            For the root, row ``r`` is the coordinate of rank ``r``.  For a child, the rows
            follow the ranks it holds in ascending order, with coordinates local to it.

        Examples
        --------
        >>> b = box([2, 2]); b.tilt(0, 1, 1)
        >>> b.rank_coords().tolist()
        [[0, 0], [1, 1], [1, 0], [0, 1]]
        """
        flat = self._cells.ravel()
        order = np.argsort(flat, kind="stable")
        return np.stack(np.unravel_index(order, self.shape), axis=1).astype(np.intp)

    def write_map_file(self, stream=None) -> None:
        """Write the map file: line ``r`` holds the coordinates of rank ``r``.

        Parameters
        ----------
        stream : str, path-like or text stream, optional
            Where to write (default ``sys.stdout``, as Rubik).

        Notes
        -----
        Same bytes as Rubik's ``write_map_file``: coordinates in box axis order separated
        by single spaces, no header.  Build the network box with the machine's axis order
        and the core slot last (BG/P ``[X, Y, Z, T]``, BG/Q ``[A, B, C, D, E, T]``).  On a
        child node, the lines list its ranks in rank order with local coordinates.

        Examples
        --------
        >>> b = box([2, 2]); b.tilt(0, 1, 1)
        >>> b.write_map_file()
        0 0
        1 1
        1 0
        0 1
        """
        write_coordinate_lines(self.rank_coords(), sys.stdout if stream is None else stream)

    def to_mapping(self, machine: Machine, graph: TaskGraph | None = None) -> Mapping:
        """Return this root box's placement as a :class:`~mpitaskmap.mapping.Mapping` on ``machine``.

        A cell ``(c_0, ..., c_{d-1}, t)`` of a box with one more dimension than the machine
        is slot ``t`` (see :meth:`mpitaskmap.machines.TorusMachine.router_slots`) of router
        ``(c_0, ..., c_{d-1})``; a box with as many dimensions as the machine uses slot 0.

        Parameters
        ----------
        machine : TorusMachine
            The network; box coordinates are its router coordinates.
        graph : TaskGraph, optional
            The application's task graph (task ``r`` = rank ``r``), for metrics.

        Returns
        -------
        Mapping
            ``task_to_proc[r]`` is the processor at rank ``r``'s cell.

        Raises
        ------
        InvalidInputError
            If this is not a root, the dimension counts do not fit, or a cell has no
            processor on the machine (naming the cell).

        Examples
        --------
        >>> from mpitaskmap.machines.torus.presets import torus_machine
        >>> b = box([2, 2]); b.tilt(0, 1, 1)
        >>> b.to_mapping(torus_machine([2], cores_per_node=2)).task_to_proc.tolist()
        [0, 3, 2, 1]
        """
        if self.parent is not None:
            raise InvalidInputError(f"to_mapping: call it on the root box; got a level-{self.level} node")
        require_router_grid(machine, "a Rubik machine box", InvalidInputError)
        coords = self.rank_coords().astype(np.int64)
        if coords.shape[1] not in (machine.n_dims, machine.n_dims + 1):
            raise InvalidInputError(
                f"machine: a {self.ndim}-D box needs a {self.ndim}-D or {self.ndim - 1}-D machine; "
                f"got {machine.n_dims}-D"
            )
        procs, found = machine.procs_at(coords)
        if not found.all():
            r = int(np.flatnonzero(~found)[0])
            raise InvalidInputError(
                f"box: rank {r} sits at cell {coords[r].tolist()}, which is no (router coordinates, slot) "
                f"of the machine; got machine dims {machine.dims.tolist()}"
            )
        return Mapping(procs, machine, graph, method="rubik")
