"""Slow, obviously correct pure-Python MJ partitioner (test oracle for mj_partition).

Written straight from ALGORITHMS.md section 2.2, with none of the kernel's tricks: every
node copies its points, literally negates coordinates for the flips, and fully sorts by
(coordinate, original index) with Python's ``sorted``.  Rounding uses exact rational
arithmetic (:class:`fractions.Fraction`).  Also a scalar Skilling Hilbert transform for
the ``"hilbert"`` ordering and for checking :mod:`mpitaskmap.curves`.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = [
    "reference_mj",
    "reference_part_sizes",
    "reference_hilbert_key",
    "reference_morton_key",
    "round_half_up",
    "left_parts",
]


def round_half_up(x: Fraction) -> int:
    """Nearest integer, halves rounded up."""
    return math.floor(x + Fraction(1, 2))


def largest_prime_factor(m: int) -> int:
    best, f = 1, 2
    while f * f <= m:
        while m % f == 0:
            best, m = f, m // f
        f += 1
    return max(best, m) if m > 1 else best


def left_parts(np_: int, prime_split: bool) -> int:
    if prime_split:
        q = largest_prime_factor(np_)
        if q > 2:
            return np_ * math.ceil(q / 2) // q
    return np_ // 2


def _slab_parts(np_: int, level: int, part_counts, prime_split: bool) -> list[int]:
    if part_counts is not None:
        k = part_counts[level]
        return [np_ // k] * k
    npl = left_parts(np_, prime_split)
    return [npl, np_ - npl]


def _slab_sizes(n: int, parts: list[int]) -> list[int]:
    """Point counts of the slabs: cumulative round_half_up(n * C_j / np)."""
    np_ = sum(parts)
    cum, bounds = 0, [0]
    for p in parts:
        cum += p
        bounds.append(round_half_up(Fraction(n * cum, np_)))
    return [b - a for a, b in zip(bounds, bounds[1:])]


def reference_part_sizes(n, n_parts, part_counts=None, prime_split=False) -> list[int]:
    """Part sizes of the tree, by plain recursion."""

    def rec(n, np_, level):
        if np_ == 1:
            return [n]
        parts = _slab_parts(np_, level, part_counts, prime_split)
        out = []
        for p, m in zip(parts, _slab_sizes(n, parts)):
            out += rec(m, p, level + 1)
        return out

    return rec(n, n_parts, 0)


def reference_mj(coords, n_parts, ordering="fz", longest_dim=True, dim_order=None,
                 part_counts=None, prime_split=False) -> list[int]:
    """Part id per point, by the rules of ALGORITHMS.md 2.2 (see module docstring)."""
    rows = [[float(v) for v in row] for row in coords]
    d = len(rows[0])
    if dim_order is not None:
        rows = [[row[k] for k in dim_order] for row in rows]
    if ordering == "hilbert":
        return _reference_hilbert(rows, n_parts, part_counts, prime_split)
    result = [None] * len(rows)

    def rec(points, np_, base, level):
        # points: list of (original index, list of current coordinates)
        if np_ == 1:
            for i, _ in points:
                result[i] = base
            return
        parts = _slab_parts(np_, level, part_counts, prime_split)
        if len(parts) == 1:  # a multisection level with one slab: no cut, no flip
            rec(points, np_, base, level + 1)
            return
        if longest_dim:
            ext = [max(p[1][c] for p in points) - min(p[1][c] for p in points) for c in range(d)]
            cut = ext.index(max(ext))  # first maximum = lowest index
        else:
            cut = level % d
        ordered = sorted(points, key=lambda p: (p[1][cut], p[0]))
        start = 0
        for j, (p, m) in enumerate(zip(parts, _slab_sizes(len(points), parts))):
            slab = [(i, list(x)) for i, x in ordered[start:start + m]]
            start += m
            flip_cut = (ordering == "fz" and j % 2 == 1) or (ordering == "mfz" and j % 2 == 0)
            for _, x in slab:
                if ordering == "gray" and j % 2 == 1:
                    x[:] = [-v for v in x]
                elif flip_cut:
                    x[cut] = -x[cut]
            rec(slab, p, base + sum(parts[:j]), level + 1)

    rec(list(enumerate(rows)), n_parts, 0, 0)
    return result


def _reference_hilbert(rows, n_parts, part_counts, prime_split):
    n, d = len(rows), len(rows[0])
    n_bits = min(64 // d, 32)
    lo = [min(r[c] for r in rows) for c in range(d)]
    shifted = [[r[c] - lo[c] for c in range(d)] for r in rows]
    top = max(max(r) for r in shifted)
    if top < 2**n_bits and all(v == math.floor(v) for r in shifted for v in r):
        grid = [[int(v) for v in r] for r in shifted]
    else:
        scale = (2**n_bits - 1) / top
        grid = [[min(max(int(math.floor(v * scale)), 0), 2**n_bits - 1) for v in r] for r in shifted]
    keys = [reference_hilbert_key(g, n_bits) for g in grid]
    order = sorted(range(n), key=lambda i: (keys[i], i))
    sizes = reference_part_sizes(n, n_parts, part_counts, prime_split)
    result = [None] * n
    pos = 0
    for part, m in enumerate(sizes):
        for i in order[pos:pos + m]:
            result[i] = part
        pos += m
    return result


def reference_hilbert_key(point, n_bits: int) -> int:
    """Skilling's AxestoTranspose on one point, then bit interleaving (dim 0 first)."""
    x = [int(v) for v in point]
    n = len(x)
    m = 1 << (n_bits - 1)
    q = m
    while q > 1:
        p = q - 1
        for i in range(n):
            if x[i] & q:
                x[0] ^= p
            else:
                t = (x[0] ^ x[i]) & p
                x[0] ^= t
                x[i] ^= t
        q >>= 1
    for i in range(1, n):
        x[i] ^= x[i - 1]
    t = 0
    q = m
    while q > 1:
        if x[n - 1] & q:
            t ^= q - 1
        q >>= 1
    for i in range(n):
        x[i] ^= t
    key = 0
    for b in range(n_bits - 1, -1, -1):
        for i in range(n):
            key = (key << 1) | ((x[i] >> b) & 1)
    return key


def reference_morton_key(point, n_bits: int) -> int:
    """Bit j of coordinate i goes to key bit j * d + i."""
    d = len(point)
    return sum(((int(v) >> j) & 1) << (j * d + i) for j in range(n_bits) for i, v in enumerate(point))
