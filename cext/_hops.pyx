# distutils: language = c++
# Hop distance between node pairs of a fat tree, dragonfly, PERCS system or flat allocation,
# for the machines' own hop calls (mpitaskmap/machines/network_hops.py).  The formulas live in
# cext/_network_hops.pxd, shared with the graph kernels (cext/_graphmap.pyx).
#
# Arrays     : params (METRIC_PARAMS,) int64; la, lb (n, width) int64 label rows of the two ends
#              of every pair (label 0: the node number); out (n,) int64.
# Complexity : O(n) pairs x the kind's cost (cext/_network_hops.pxd).

from libcpp.pair cimport pair
from libcpp.queue cimport priority_queue

from libc.stdlib cimport free, malloc

from _network_hops cimport METRIC_PARAMS, _label_hops, _label_route, _label_route_capacity, _route_params_ok

import numpy as np

ctypedef pair[long long, long long] hop_node


def label_hops(int kind, const long long[::1] params, const long long[:, ::1] la, const long long[:, ::1] lb,
               long long[::1] out):
    """Write the hops between the nodes of label rows la[i] and lb[i] into out[i]."""
    cdef Py_ssize_t i, n = la.shape[0]
    if params.shape[0] != METRIC_PARAMS:
        raise ValueError(f"params: expected {METRIC_PARAMS} entries; got {params.shape[0]}")
    if lb.shape[0] != n or out.shape[0] != n or lb.shape[1] != la.shape[1] or la.shape[1] < 1:
        raise ValueError(f"label rows: la {la.shape[0]}x{la.shape[1]}, lb {lb.shape[0]}x{lb.shape[1]}, out {out.shape[0]}")
    if n == 0:
        return
    with nogil:
        for i in range(n):
            out[i] = _label_hops(kind, &params[0], &la[i, 0], &lb[i, 0])


def total_label_hops(int kind, const long long[::1] params, const long long[:, ::1] labels):
    """Return the hops summed over every ordered pair of the label rows (O(n**2) time, O(1) memory)."""
    cdef Py_ssize_t a, b, n = labels.shape[0]
    cdef long long total = 0
    if params.shape[0] != METRIC_PARAMS:
        raise ValueError(f"params: expected {METRIC_PARAMS} entries; got {params.shape[0]}")
    if n == 0:
        return 0
    with nogil:
        for a in range(n):
            for b in range(n):
                total += _label_hops(kind, &params[0], &labels[a, 0], &labels[b, 0])
    return total


def nearest_nodes(int kind, const long long[::1] params, const long long[:, ::1] labels, const int[:, ::1] ndist,
                  Py_ssize_t width):
    """The first min(n, width) nodes of every node in order of (hops, node index), (n, width) int64.

    Hops by the formula ``kind`` over the label rows, or with ``kind`` 0 from the matrix
    ``ndist``.  A bounded max-heap per node over all nodes: O(n**2 log width) time,
    O(n width) memory.
    """
    cdef bint matrix = kind == 0
    cdef Py_ssize_t n = ndist.shape[0] if matrix else labels.shape[0], a, v, j
    cdef priority_queue[hop_node] heap
    cdef hop_node key
    cdef long long d
    if params.shape[0] != METRIC_PARAMS:
        raise ValueError(f"params: expected {METRIC_PARAMS} entries; got {params.shape[0]}")
    if matrix and ndist.shape[1] != n:
        raise ValueError(f"ndist: expected a square matrix; got {ndist.shape[0]}x{ndist.shape[1]}")
    if width < 1:
        raise ValueError(f"width: expected >= 1; got {width}")
    width = min(n, width)
    out = np.empty((n, width), dtype=np.int64)
    cdef long long[:, ::1] o = out
    with nogil:
        for a in range(n):
            for v in range(n):
                if v == a:
                    d = 0
                elif matrix:
                    d = ndist[a, v]
                else:
                    d = _label_hops(kind, &params[0], &labels[a, 0], &labels[v, 0])
                key = hop_node(d, v)
                if <Py_ssize_t> heap.size() < width:
                    heap.push(key)
                elif key < heap.top():
                    heap.pop()
                    heap.push(key)
            for j in range(width - 1, -1, -1):
                o[a, j] = heap.top().second
                heap.pop()
    return out


def label_routes(int kind, const long long[::1] rparams, const long long[:, ::1] la, const long long[:, ::1] lb):
    """Return the routes between the nodes of label rows la[i] and lb[i]: (indptr, links, fractions).

    A fat tree's routes (``kind`` METRIC_TREE) or a minimal dragonfly's (METRIC_DRAGONFLY), by
    the formulas of cext/_network_hops.pxd.
    """
    cdef Py_ssize_t i, n = la.shape[0], cap
    if not _route_params_ok(kind, rparams, la.shape[1]):
        raise ValueError(f"rparams: {rparams.shape[0]} values are no route parameters of kind {kind} over "
                         f"{la.shape[1]} labels")
    if lb.shape[0] != n or lb.shape[1] != la.shape[1]:
        raise ValueError(f"label rows: la {la.shape[0]}x{la.shape[1]}, lb {lb.shape[0]}x{lb.shape[1]}")
    cap = _label_route_capacity(kind, &rparams[0])
    indptr = np.zeros(n + 1, dtype=np.int64)
    cdef long long[::1] ptr = indptr
    cdef long long* scratch = <long long*> malloc(max(cap, 1) * sizeof(long long))
    cdef double* fscratch = <double*> malloc(max(cap, 1) * sizeof(double))
    if scratch == NULL or fscratch == NULL:
        free(scratch)
        free(fscratch)
        raise MemoryError()
    try:
        with nogil:
            for i in range(n):
                ptr[i + 1] = ptr[i] + _label_route(kind, &rparams[0], &la[i, 0], &lb[i, 0], scratch, fscratch)
    finally:
        free(scratch)
        free(fscratch)
    links = np.empty(ptr[n], dtype=np.int64)
    fractions = np.empty(ptr[n], dtype=np.float64)
    cdef long long[::1] lv = links
    cdef double[::1] fv = fractions
    if ptr[n] > 0:
        with nogil:
            for i in range(n):
                if ptr[i + 1] > ptr[i]:
                    _label_route(kind, &rparams[0], &la[i, 0], &lb[i, 0], &lv[ptr[i]], &fv[ptr[i]])
    return indptr, links, fractions
