"""Process-topology analyser: decide whether a communication matrix is a regular grid.

ALGORITHMS.md section 4 (Bhatele, Gupta, Kalé and Chung, "Automated Mapping of Regular
Communication Graphs on Mesh Interconnects").  From an ``n x n`` matrix of bytes between
rank pairs, :func:`analyse_grid` decides whether the ranks form a regular 1-D to 4-D
near-neighbour grid and returns its lengths, stencil (5/9-point in 2-D, 7/27-point in 3-D,
in general ``2d + 1`` or ``3**d``) and wrap-around per dimension; otherwise it says why not.

Procedure
---------
1. Symmetrise (``a[i, j] + a[j, i]`` is the volume of pair ``{i, j}``), drop the diagonal.
2. Set aside the pairs of the collective root (rank 0 by default): a root that gathers or
   broadcasts talks to everyone and would hide the pattern.
3. Drop pairs lighter than ``threshold`` (default 0.2) times the mean volume of the
   remaining pairs.
4. Partner distances ``|i - j|`` give the candidate strides: a grid with lengths
   ``(L0, L1, ...)`` numbered dimension 0 fastest has strides ``1, L0, L0*L1, ...``, all of
   which occur as distances.  For each dimension count ``d = 1 .. max_dims`` and each chain
   of strides from the observed distances that divide ``n``, every pair must differ by at
   most one in every coordinate (or by ``L - 1`` across a wrap-around); pairs differing in
   one coordinate only make a face stencil (``2d + 1`` points), else the full ``3**d``.
   The fit must cover at least ``min_coverage`` of the stencil's pairs (ranks on a
   non-periodic boundary simply have fewer partners; a few missing pairs are tolerated).
   The lowest ``d`` with a fit wins; among fits, the best coverage, then the shortest
   lengths in order.
5. The root's pairs are then split into grid pairs and collective traffic (reported).

Rank orders: any numbering with one dimension fastest ("row-major" or "column-major")
is recognised; :attr:`GridPattern.dims` lists the lengths fastest first, so rank ``r``
has coordinate ``(r % L0, (r // L0) % L1, ...)``.

File format
-----------
:func:`read_comm_matrix` reads plain text (e.g. converted profiler output)::

    # mpitaskmap communication matrix      <- '#' starts a comment, to the end of the line
    ranks 16                               <- optional: matrix size (else 1 + largest rank)
    0 1 4096                               <- src dst bytes, 0-based ranks
    1,0,4096                               <- commas work too; repeated pairs are summed

Blank lines are ignored.  :func:`write_comm_matrix` writes this format.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ...errors import InvalidInputError
from ...graphs.taskgraph import TaskGraph
from ...machines.views import strides

__all__ = ["GridPattern", "analyse_grid", "read_comm_matrix", "write_comm_matrix", "STENCIL_NAMES"]

#: Stencil names by (dimensions, points).
STENCIL_NAMES = {(1, 3): "3-point", (2, 5): "5-point", (2, 9): "9-point", (3, 7): "7-point",
                 (3, 27): "27-point", (4, 9): "9-point", (4, 81): "81-point"}

_MAX_DISTANCES = 256


@dataclass(frozen=True)
class GridPattern:
    """What :func:`analyse_grid` found.

    Attributes
    ----------
    regular : bool
        True when the matrix is a regular near-neighbour grid.
    n_ranks : int
        Matrix size.
    dims : tuple of int
        Grid lengths, fastest-varying dimension first (empty when irregular).
    points : int
        Stencil size including the centre (``2d + 1`` or ``3**d``; 0 when irregular).
    periodic : tuple of bool
        Wrap-around per dimension (a length-2 dimension is reported non-periodic: both
        neighbours are the same rank).
    reason : str
        Why the matrix is irregular ("" when regular).
    coverage : float
        Share of the stencil's rank pairs (root excluded) present in the matrix.
    threshold : float
        Absolute volume below which pairs were ignored.
    n_pairs : int
        Rank pairs kept (root excluded).
    n_light : int
        Pairs dropped as lighter than the threshold.
    n_collective : int
        Pairs of the root that are not grid neighbours (ignored as collective traffic).
    """

    regular: bool
    n_ranks: int
    dims: tuple = ()
    points: int = 0
    periodic: tuple = ()
    reason: str = ""
    coverage: float = 0.0
    threshold: float = 0.0
    n_pairs: int = 0
    n_light: int = 0
    n_collective: int = 0

    @property
    def n_dims(self) -> int:
        """Number of grid dimensions (0 when irregular)."""
        return len(self.dims)

    @property
    def stencil(self) -> str:
        """Stencil name, e.g. ``"5-point"`` ("" when irregular)."""
        if not self.regular:
            return ""
        return STENCIL_NAMES.get((self.n_dims, self.points), f"{self.points}-point")

    def coords(self) -> np.ndarray:
        """Return the (n_ranks, n_dims) int64 grid coordinate of every rank.

        Raises
        ------
        InvalidInputError
            When the pattern is irregular.
        """
        if not self.regular:
            raise InvalidInputError(f"pattern: irregular, no grid coordinates ({self.reason})")
        r = np.arange(self.n_ranks, dtype=np.int64)
        return np.stack([(r // s) % length for s, length in zip(strides(self.dims), self.dims)], axis=1)

    def summary(self) -> str:
        """Return a one-line description."""
        if not self.regular:
            return f"irregular ({self.n_ranks} ranks): {self.reason}"
        wraps = ",".join("T" if p else "F" for p in self.periodic)
        extra = f"; {self.n_collective} collective pairs of the root ignored" if self.n_collective else ""
        return (f"regular {self.n_dims}-D grid {'x'.join(map(str, self.dims))} (fastest first), "
                f"{self.stencil} stencil, periodic ({wraps}), coverage {self.coverage:.3f}, "
                f"{self.n_light} light pairs dropped{extra}")


def _to_coo(matrix) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Rows, columns and volumes of any supported matrix form (validated)."""
    if isinstance(matrix, TaskGraph):
        return matrix.n_tasks, matrix.sources().astype(np.int64), matrix.indices.astype(np.int64), matrix.weights
    if hasattr(matrix, "tocoo"):
        coo = matrix.tocoo()
        n0, n1 = coo.shape
        rows, cols, vals = np.asarray(coo.row), np.asarray(coo.col), np.asarray(coo.data, dtype=np.float64)
    elif all(hasattr(matrix, a) for a in ("indptr", "indices", "data", "shape")):
        n0, n1 = (int(v) for v in matrix.shape)
        indptr = np.asarray(matrix.indptr, dtype=np.int64)
        if indptr.shape != (n0 + 1,):
            raise InvalidInputError(f"matrix: CSR indptr must have {n0 + 1} entries; got {indptr.shape}")
        rows = np.repeat(np.arange(n0, dtype=np.int64), np.diff(indptr))
        cols = np.asarray(matrix.indices, dtype=np.int64)
        vals = np.asarray(matrix.data, dtype=np.float64)
    else:
        m = np.asarray(matrix, dtype=np.float64)
        if m.ndim != 2:
            raise InvalidInputError(f"matrix: expected a square 2-D matrix; got shape {m.shape}")
        n0, n1 = m.shape
        rows, cols = np.nonzero(m)
        vals = m[rows, cols]
    if n0 != n1 or n0 < 1:
        raise InvalidInputError(f"matrix: expected a non-empty square matrix; got shape ({n0}, {n1})")
    bad = ~np.isfinite(vals) | (vals < 0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"matrix: entry ({int(rows[k])}, {int(cols[k])}) must be finite and >= 0; got {float(vals[k])!r}"
        )
    if rows.size and (min(rows.min(), cols.min()) < 0 or max(rows.max(), cols.max()) >= n0):
        raise InvalidInputError(f"matrix: a rank index lies outside [0, {n0})")
    return n0, rows.astype(np.int64), cols.astype(np.int64), vals


def _pairs(n, rows, cols, vals):
    """Unique unordered pairs (i < j) with summed volumes."""
    keep = (rows != cols) & (vals > 0)
    i = np.minimum(rows[keep], cols[keep])
    j = np.maximum(rows[keep], cols[keep])
    key = i * n + j
    uniq, inv = np.unique(key, return_inverse=True)
    vol = np.bincount(inv, weights=vals[keep], minlength=uniq.size)
    return uniq // n, uniq % n, vol


def _stride_chains(dist: np.ndarray, n: int, d: int) -> list:
    """All increasing chains 1 < s1 < ... < s_{d-1} < n of observed distances, each dividing the next and n."""
    cands = [int(s) for s in dist if 2 <= s <= n // 2 and n % s == 0]
    chains = [[]]
    for _ in range(d - 1):
        nxt = []
        for ch in chains:
            last = ch[-1] if ch else 1
            for s in cands:
                if s >= 2 * last and s % last == 0 and n % s == 0 and n // s >= 2:
                    nxt.append(ch + [s])
        chains = nxt
    return [tuple(ch) for ch in chains]


def _fit(n, i, j, dims):
    """Check pairs against a grid; return (ok, periodic, full_stencil)."""
    d = len(dims)
    periodic = [False] * d
    nonzero = np.zeros(i.size, dtype=np.int64)
    for k, (length, stride) in enumerate(zip(dims, strides(dims))):
        a = (i // stride) % length
        b = (j // stride) % length
        diff = np.abs(a - b)
        near = diff <= 1
        wrap = (diff == length - 1) & (length > 2)
        if not (near | wrap).all():
            return False, None, None
        periodic[k] = bool(wrap.any())
        nonzero += diff > 0
    return True, tuple(periodic), bool((nonzero > 1).any())


def _expected_pairs(n, dims, periodic, full, root):
    """Number of stencil pairs, and how many of them involve the root."""
    d = len(dims)
    c1 = [length - 1 + (1 if p else 0) for length, p in zip(dims, periodic)]
    if full:
        directed = int(np.prod([length + 2 * c for length, c in zip(dims, c1)])) - n
    else:
        directed = sum(2 * (n // length) * c for length, c in zip(dims, c1))
    total = directed // 2
    if root is None:
        return total, 0
    rc = [(root // s) % length for s, length in zip(strides(dims).tolist(), dims)]
    per_dim = []
    for c, length, p in zip(rc, dims, periodic):
        opts = {0: 1}
        opts[-1] = 1 if (c > 0 or p) else 0
        opts[1] = 1 if (c < length - 1 or p) else 0
        per_dim.append(opts)
    if full:
        deg = int(np.prod([sum(o.values()) for o in per_dim])) - 1
    else:
        deg = sum(o[-1] + o[1] for o in per_dim)
    return total, deg


def analyse_grid(
    matrix,
    *,
    threshold: float = 0.2,
    root: int | None = 0,
    max_dims: int = 4,
    min_coverage: float = 0.95,
) -> GridPattern:
    """Decide whether a communication matrix is a regular near-neighbour grid.

    Parameters
    ----------
    matrix : (n, n) array_like, scipy.sparse matrix, CSR-like object or TaskGraph
        ``matrix[i, j]`` = bytes rank ``i`` sent to rank ``j``.  CSR-like: any object with
        ``indptr``, ``indices``, ``data`` and ``shape``.
    threshold : float, optional
        Pairs lighter than ``threshold`` times the mean pair volume are ignored (default
        0.2).
    root : int or None, optional
        Rank whose traffic may be collective (default 0); None treats every rank alike.
    max_dims : int, optional
        Largest grid dimension count tried (default 4).
    min_coverage : float, optional
        Least share of the stencil's pairs that must be present (default 0.95).

    Returns
    -------
    GridPattern
        ``regular`` with ``dims`` (fastest first), ``points``, ``periodic``; or
        ``regular=False`` with the ``reason``.

    Raises
    ------
    InvalidInputError
        On a non-square matrix, negative or non-finite entries, or bad options.

    Notes
    -----
    O(E log E) for E non-zero entries, plus O(E) per candidate grid (candidates come from
    the distinct partner distances that divide n; a few for a true grid).  The procedure
    is in the module docstring.

    References
    ----------
    Bhatele, Gupta, Kalé, Chung, "Automated Mapping of Regular Communication Graphs on
    Mesh Interconnects", HiPC 2010 (ALGORITHMS.md section 4).

    Examples
    --------
    >>> g = TaskGraph.stencil([6, 4], periodic=[True, False])
    >>> p = analyse_grid(g)
    >>> p.regular, p.dims, p.stencil, p.periodic
    (True, (6, 4), '5-point', (True, False))
    >>> analyse_grid(np.ones((5, 5))).reason
    'rank 1 has 3 partners: no grid with lengths > 1 whose dimensions divide 5 fits (partner distances 1, 2, 3)'
    """
    if not 0.0 <= float(threshold):
        raise InvalidInputError(f"threshold: must be >= 0; got {threshold!r}")
    if int(max_dims) < 1:
        raise InvalidInputError(f"max_dims: must be >= 1; got {max_dims!r}")
    if not 0.0 < float(min_coverage) <= 1.0:
        raise InvalidInputError(f"min_coverage: must lie in (0, 1]; got {min_coverage!r}")
    n, rows, cols, vals = _to_coo(matrix)
    if root is not None and not 0 <= int(root) < n:
        raise InvalidInputError(f"root: must be a rank in [0, {n}) or None; got {root!r}")
    i, j, vol = _pairs(n, rows, cols, vals)

    def irregular(reason, **kw):
        return GridPattern(regular=False, n_ranks=n, reason=reason, **kw)

    is_root = (i == root) | (j == root) if root is not None else np.zeros(i.size, dtype=bool)
    ri, rj, rvol = i[is_root], j[is_root], vol[is_root]
    i, j, vol = i[~is_root], j[~is_root], vol[~is_root]
    if n == 1:
        return GridPattern(regular=True, n_ranks=1, dims=(1,), points=3, periodic=(False,), coverage=1.0)
    if vol.size == 0:
        return irregular("no communication between ranks" + (f" other than root {root}" if root is not None else ""))
    cut = float(threshold) * float(vol.mean())
    light = vol < cut
    n_light = int(light.sum()) + int((rvol < cut).sum())
    i, j = i[~light], j[~light]
    ri, rj = ri[rvol >= cut], rj[rvol >= cut]
    deg = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    max_partners = 3 ** int(max_dims) - 1
    if deg.max() > max_partners:
        r = int(np.argmax(deg))
        return irregular(f"rank {r} has {int(deg[r])} partners, more than any stencil of up to {max_dims} "
                         f"dimensions ({max_partners})", threshold=cut, n_light=n_light)
    dist = np.unique(j - i)
    if dist.size > _MAX_DISTANCES:
        return irregular(f"partners lie at {dist.size} different rank distances (a grid has a few)",
                         threshold=cut, n_light=n_light)
    best = None
    best_ok_cov = None
    for d in range(1, int(max_dims) + 1):
        for chain in _stride_chains(dist, n, d):
            bounds = (1,) + chain + (n,)
            dims = tuple(bounds[k + 1] // bounds[k] for k in range(d))
            ok, periodic, full = _fit(n, i[:256], j[:256], dims)
            if ok:
                ok, periodic, full = _fit(n, i, j, dims)
            if not ok:
                continue
            total, root_deg = _expected_pairs(n, dims, periodic, full, root)
            cov = i.size / max(total - root_deg, 1)
            key = (-cov, dims)
            if cov >= float(min_coverage) - 1e-12 and (best is None or key < best[0]):
                best = (key, dims, periodic, full, cov)
            if best_ok_cov is None or cov > best_ok_cov[0]:
                best_ok_cov = (cov, dims, full)
        if best is not None:
            break
    if best is None:
        if best_ok_cov is not None:
            cov, dims, full = best_ok_cov
            return irregular(
                f"the closest grid {'x'.join(map(str, dims))} ({'full' if full else 'face'} stencil) has only "
                f"{100 * cov:.1f}% of its pairs (need {100 * float(min_coverage):.0f}%)",
                threshold=cut, n_light=n_light, coverage=cov,
            )
        shown = ", ".join(str(int(v)) for v in dist[:8]) + (", ..." if dist.size > 8 else "")
        r = int(np.argmax(deg))
        return irregular(
            f"rank {r} has {int(deg[r])} partners: no grid with lengths > 1 whose dimensions divide {n} "
            f"fits (partner distances {shown})",
            threshold=cut, n_light=n_light,
        )
    _, dims, periodic, full, cov = best
    points = 3 ** len(dims) if full else 2 * len(dims) + 1
    if ri.size and any(n // length == 1 and length > 2 and not p for length, p in zip(dims, periodic)):
        # a dimension whose only line runs through the root (1-D): its wrap pair is the root's
        periodic = list(periodic)
        for k, (length, stride) in enumerate(zip(dims, strides(dims))):
            if n // length == 1 and length > 2:
                diff = np.abs((ri // stride) % length - (rj // stride) % length)
                periodic[k] = periodic[k] or bool((diff == length - 1).any())
        periodic = tuple(periodic)
    n_coll = 0
    if ri.size:
        ok = np.ones(ri.size, dtype=bool)
        nonzero = np.zeros(ri.size, dtype=np.int64)
        for length, p, stride in zip(dims, periodic, strides(dims)):
            diff = np.abs((ri // stride) % length - (rj // stride) % length)
            ok &= (diff <= 1) | (p & (diff == length - 1))
            nonzero += diff > 0
        if not full:
            ok &= nonzero <= 1
        n_coll = int((~ok).sum())
    return GridPattern(
        regular=True, n_ranks=n, dims=dims, points=points, periodic=periodic, coverage=float(cov),
        threshold=cut, n_pairs=int(i.size), n_light=n_light, n_collective=n_coll,
    )


def read_comm_matrix(path: str | os.PathLike) -> TaskGraph:
    """Read a communication matrix in the text format of this module.

    Parameters
    ----------
    path : str or path-like
        File with ``src dst bytes`` lines (see the module docstring).

    Returns
    -------
    TaskGraph
        Edge ``src -> dst`` with the summed bytes; one task per rank.

    Raises
    ------
    InvalidInputError
        On a malformed line (naming the file and line), a negative or non-finite volume,
        a rank outside the declared size, or a file without ranks.
    """
    n_declared = None
    src, dst, vol = [], [], []
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].replace(",", " ").strip()
            if not line:
                continue
            parts = line.split()
            where = f"{os.fspath(path)}:{lineno}"
            if parts[0].lower() == "ranks":
                if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) < 1 or n_declared is not None:
                    raise InvalidInputError(f"{where}: expected one 'ranks N' line with N >= 1; got {raw.strip()!r}")
                n_declared = int(parts[1])
                continue
            try:
                if len(parts) != 3:
                    raise ValueError
                s, d, v = int(parts[0]), int(parts[1]), float(parts[2])
            except ValueError:
                raise InvalidInputError(f"{where}: expected 'src dst bytes'; got {raw.strip()!r}") from None
            if s < 0 or d < 0 or not np.isfinite(v) or v < 0:
                raise InvalidInputError(f"{where}: ranks must be >= 0 and bytes finite and >= 0; got {raw.strip()!r}")
            src.append(s)
            dst.append(d)
            vol.append(v)
    top = max(max(src, default=-1), max(dst, default=-1)) + 1
    n = n_declared if n_declared is not None else top
    if n < 1:
        raise InvalidInputError(f"path: {os.fspath(path)} names no ranks; got an empty matrix")
    if top > n:
        raise InvalidInputError(f"path: {os.fspath(path)} names rank {top - 1}, outside 'ranks {n}'")
    return TaskGraph.from_edges(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
                                np.asarray(vol, dtype=np.float64), n_tasks=n)


def write_comm_matrix(path: str | os.PathLike, matrix, *, comment: str = "") -> None:
    """Write a communication matrix in the text format read by :func:`read_comm_matrix`.

    Parameters
    ----------
    path : str or path-like
        Output file.
    matrix : array_like, scipy.sparse matrix, CSR-like object or TaskGraph
        As for :func:`analyse_grid`.
    comment : str, optional
        Text written as ``#`` comment lines at the top.
    """
    n, rows, cols, vals = _to_coo(matrix)
    order = np.lexsort((cols, rows))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("# mpitaskmap communication matrix: src dst bytes (0-based ranks)\n")
        for line in comment.splitlines():
            fh.write(f"# {line}\n")
        fh.write(f"ranks {n}\n")
        for k in order:
            if vals[k] > 0:
                fh.write(f"{int(rows[k])} {int(cols[k])} {float(vals[k])!r}\n")
