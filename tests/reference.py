"""Slow, obviously correct pure-Python references for the compiled kernels (tests only)."""

from __future__ import annotations

import numpy as np


def ref_hops(a, b, dims, wrap) -> int:
    total = 0
    for x, y, length, w in zip(a, b, dims, wrap):
        d = abs(int(x) - int(y))
        if w:
            d = min(d, int(length) - d)
        total += d
    return total


def ref_route(a, b, dims, wrap) -> list[tuple[tuple[int, ...], int, int]]:
    """Dimension-order route as a list of (router coordinate, dim, direction 0=+ 1=-)."""
    cur = [int(v) for v in a]
    out = []
    for k, (length, w) in enumerate(zip(dims, wrap)):
        target = int(b[k])
        while cur[k] != target:
            if w:
                fwd = (target - cur[k]) % length
                direction = 0 if fwd <= length - fwd else 1
            else:
                direction = 0 if target > cur[k] else 1
            out.append((tuple(cur), k, direction))
            cur[k] = (cur[k] + (1 if direction == 0 else -1)) % length
    return out


def ref_link_id(coord, k, direction, dims) -> int:
    router, stride = 0, 1
    for c, length in zip(coord, dims):
        router += c * stride
        stride *= length
    return router * 2 * len(dims) + 2 * k + direction


def ref_metrics(src, dst, w, task_to_proc, router_coords, dims, wrap, link_bw):
    """Return (TH, WH, max_hops, data dict, messages dict) over an explicit edge list."""
    th, wh, mh = 0, 0.0, 0
    data, msgs = {}, {}
    for s, d, wt in zip(src, dst, w):
        p, q = task_to_proc[s], task_to_proc[d]
        h = ref_hops(router_coords[p], router_coords[q], dims, wrap)
        th += h
        wh += wt * h
        mh = max(mh, h)
        for coord, k, direction in ref_route(router_coords[p], router_coords[q], dims, wrap):
            lid = ref_link_id(coord, k, direction, dims)
            data[lid] = data.get(lid, 0.0) + wt
            msgs[lid] = msgs.get(lid, 0) + 1
    return th, wh, mh, data, msgs


def ref_link_bw(lid, dims, link_bw) -> float:
    n_dims = len(dims)
    router, rest = divmod(lid, 2 * n_dims)
    k, direction = divmod(rest, 2)
    c = router
    for j in range(k):
        c //= dims[j]
    c %= dims[k]
    pos = c if direction == 0 else (c - 1) % dims[k]
    return float(link_bw[k][pos])
