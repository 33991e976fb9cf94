# Torus / mesh distance and dimension-order routing kernels.
#
# Algorithm  : hop distance on an n-D torus or mesh (per dimension min(|a-b|, L-|a-b|) when the
#              dimension wraps, |a-b| otherwise; 0 within a router) and static dimension-order
#              routing (dimensions 0, 1, ... in order; on a wrapping dimension the shorter way
#              round, the positive direction when both ways are equally long).
# Arrays     : coords (n_procs, n_dims) router coordinate of every processor, int16, int32 or
#              int64 (coord_t: one specialisation per type, values read into long long);
#              dims (n_dims,) int64 lengths; wrap (n_dims,) uint8 flags;
#              CSR task graph indptr (n_tasks+1,) intp, indices (n_edges,) intp,
#              weights (n_edges,) float64; task_to_proc (n_tasks,) intp.
# Links      : directed link id = router_id * 2 * n_dims + 2 * dim + (0 for +, 1 for -), where
#              router_id = sum_k coord_k * stride_k with stride_0 = 1 (dimension 0 fastest).
#              The + link of router r in dim d joins coordinate c to c+1 (mod L); the - link
#              joins c to c-1.  Mesh boundary links exist in the numbering but never carry data.
# Invariants : coordinates lie in [0, dims[k]); callers validate (Machine does).
# Complexity : hops O(n_edges * n_dims); link loads O(n_edges * n_dims + total hops).
# Source     : ALGORITHMS.md section 1 (metrics, routing convention).

from libc.stdlib cimport malloc, free

from _topology cimport _hops, _route, coord_t

def hops_pairs(const coord_t[:, ::1] coords, const long long[::1] dims,
               const unsigned char[::1] wrap, const Py_ssize_t[::1] src,
               const Py_ssize_t[::1] dst, long long[::1] out):
    """Write the hop distance between processors src[i] and dst[i] into out[i]."""
    cdef Py_ssize_t i, n = src.shape[0]
    with nogil:
        for i in range(n):
            out[i] = _hops(coords, src[i], dst[i], dims, wrap)


def csr_hop_sums(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] indices,
                 const double[::1] weights, const Py_ssize_t[::1] task_to_proc,
                 const coord_t[:, ::1] coords, const long long[::1] dims,
                 const unsigned char[::1] wrap):
    """Return (total_hops, weighted_hops, max_hops) over the directed edges of a CSR graph."""
    cdef Py_ssize_t t, e, n_tasks = indptr.shape[0] - 1
    cdef Py_ssize_t p
    cdef long long h, total = 0, hmax = 0
    cdef double weighted = 0.0
    if n_tasks <= 0 or indices.shape[0] == 0:
        return total, weighted, hmax
    # raw pointers: with the coord_t specialisations GCC spilled two of the memoryviews'
    # pointers in the edge loop (4-5% slower on the 1M stencil); these keep them in registers
    cdef const Py_ssize_t* ptr = &indptr[0]
    cdef const Py_ssize_t* idx = &indices[0]
    cdef const double* w = &weights[0]
    cdef const Py_ssize_t* t2p = &task_to_proc[0]
    with nogil:
        for t in range(n_tasks):
            p = t2p[t]
            for e in range(ptr[t], ptr[t + 1]):
                h = _hops(coords, p, t2p[idx[e]], dims, wrap)
                total += h
                weighted += w[e] * h
                if h > hmax:
                    hmax = h
    return total, weighted, hmax


def csr_edge_hops(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] indices,
                  const Py_ssize_t[::1] task_to_proc, const coord_t[:, ::1] coords,
                  const long long[::1] dims, const unsigned char[::1] wrap, long long[::1] out):
    """Write the hop count of every directed edge of a CSR graph into out (CSR order)."""
    cdef Py_ssize_t t, e, p, n_tasks = indptr.shape[0] - 1
    with nogil:
        for t in range(n_tasks):
            p = task_to_proc[t]
            for e in range(indptr[t], indptr[t + 1]):
                out[e] = _hops(coords, p, task_to_proc[indices[e]], dims, wrap)


cdef long long* _alloc_strides(const long long[::1] dims) except NULL:
    cdef Py_ssize_t k, n_dims = dims.shape[0]
    cdef long long* strides = <long long*> malloc((n_dims + 1) * sizeof(long long))
    if strides == NULL:
        raise MemoryError("cannot allocate router strides")
    strides[0] = 1
    for k in range(1, n_dims + 1):
        strides[k] = strides[k - 1] * dims[k - 1]
    return strides


def csr_link_loads(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] indices,
                   const double[::1] weights, const Py_ssize_t[::1] task_to_proc,
                   const coord_t[:, ::1] coords, const long long[::1] dims,
                   const unsigned char[::1] wrap, double[::1] data, long long[::1] messages):
    """Accumulate Data(e) and Congestion(e) of every directed link over all CSR edges."""
    cdef Py_ssize_t t, e, p, q, i, n, k, n_tasks = indptr.shape[0] - 1
    cdef long long max_route = 1
    cdef double w
    for k in range(dims.shape[0]):
        max_route += dims[k]
    cdef long long* strides = _alloc_strides(dims)
    cdef long long* links = <long long*> malloc(max_route * sizeof(long long))
    if links == NULL:
        free(strides)
        raise MemoryError("csr_link_loads: cannot allocate the route buffer")
    with nogil:
        for t in range(n_tasks):
            p = task_to_proc[t]
            for e in range(indptr[t], indptr[t + 1]):
                q = task_to_proc[indices[e]]
                if p == q:
                    continue
                w = weights[e]
                n = _route(coords, dims, wrap, strides, p, q, links)
                for i in range(n):
                    data[links[i]] += w
                    messages[links[i]] += 1
    free(links)
    free(strides)


def route_links(const coord_t[:, ::1] coords, const long long[::1] dims,
                const unsigned char[::1] wrap, Py_ssize_t p, Py_ssize_t q):
    """Return the directed link ids (int64 array) of the dimension-order route p -> q."""
    import numpy as np
    cdef long long max_route = 1
    cdef Py_ssize_t k, n
    for k in range(dims.shape[0]):
        max_route += dims[k]
    out = np.empty(max_route, dtype=np.int64)
    cdef long long[::1] out_view = out
    cdef long long* strides = _alloc_strides(dims)
    n = _route(coords, dims, wrap, strides, p, q, &out_view[0])
    free(strides)
    return out[:n].copy()



def routes_csr(const coord_t[:, ::1] coords, const long long[::1] dims,
               const unsigned char[::1] wrap, const Py_ssize_t[::1] src,
               const Py_ssize_t[::1] dst):
    """Return (indptr (n+1,) int64, links int64) of the dimension-order routes src[i] -> dst[i]."""
    import numpy as np
    cdef Py_ssize_t i, n = src.shape[0]
    if dst.shape[0] != n:
        raise ValueError(f"routes_csr: src has {n} entries, dst {dst.shape[0]}")
    indptr = np.empty(n + 1, dtype=np.int64)
    cdef long long[::1] ptr = indptr
    ptr[0] = 0
    with nogil:
        for i in range(n):
            ptr[i + 1] = ptr[i] + _hops(coords, src[i], dst[i], dims, wrap)
    links = np.empty(ptr[n], dtype=np.int64)
    if ptr[n] == 0:
        return indptr, links
    cdef long long[::1] out = links
    cdef long long* strides = _alloc_strides(dims)
    with nogil:
        for i in range(n):
            _route(coords, dims, wrap, strides, src[i], dst[i], &out[ptr[i]])
    free(strides)
    return indptr, links

cdef struct LinkSlot:
    # one directed link's state in one 16-byte slot (a touch is one cache line)
    double data          # weight crossing the link
    float hops           # largest route latency of a message crossing it, in hop latencies
    unsigned int epoch   # the call that wrote the slot


cdef inline double _add_load(LinkSlot* slot, double w, float hops, unsigned int epoch) noexcept nogil:
    """Add a message of weight w and route latency ``hops`` (in hop latencies) to a link of this call;
    return the link's largest route latency (in hop latencies)."""
    if slot.epoch != epoch:  # first touch in this call: whatever is there is stale
        slot.epoch = epoch
        slot.data = w
        slot.hops = hops
    elif slot.hops < hops:
        slot.data += w
        slot.hops = hops
    else:
        slot.data += w
    return slot.hops


def csr_link_time(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] indices,
                  const double[::1] weights, const Py_ssize_t[::1] task_to_proc,
                  const coord_t[:, ::1] coords, const long long[::1] dims,
                  const unsigned char[::1] wrap, const double[:, ::1] inv_bandwidth,
                  double seconds_per_weight, double hop_latency, double overlap_weight,
                  double[:, ::1] slots, unsigned int epoch):
    """Return (seconds, link) of the slowest link: max over directed links e of
    Data(e) * seconds_per_weight * inv_bandwidth(e) + R(e).

    R(e) is the largest route latency of a message crossing e; a message of weight w and h
    hops has route latency hop_latency * h * min(1, overlap_weight / w) (overlap_weight may
    be inf: every message pays its full hop latency), kept per link in hop latencies in single
    precision (exact for whole hop counts below 2**24).  inv_bandwidth[k, c] is 1 / bw
    of the + link leaving coordinate c in dimension k (the - link leaving c is the cable of
    the + link leaving c - 1).  link is -1 when no message crosses a link; ties go to the
    lowest link id.  One pass over the edges, the route walk fused with the accumulation
    (one-hop routes, most routes of a good mapping, take a path without a walk).  Loads only
    grow, so the maximum is kept as they are added: no pass over the links.

    slots (n_links, 2) float64 is scratch a caller keeps between calls, read as one 16-byte
    LinkSlot a link (data; route latency in hops, float32; the epoch of the call that wrote it):
    epoch >= 1 is new per call, so stale slots of earlier calls are overwritten on first touch
    and nothing is cleared (the caller zeroes the slots when it restarts the epochs).
    """
    cdef Py_ssize_t t, e, p, q, k, kk, n_tasks = indptr.shape[0] - 1, n_dims = dims.shape[0]
    cdef long long n_routers = 1, n_links, router, base, c, length, fwd, bwd, s, h, stride, l, delta
    cdef long long two_d = 2 * n_dims, source_router
    cdef double w, value, inv, best = 0.0
    cdef float hops
    cdef long long best_link = -1
    for k in range(n_dims):
        n_routers *= dims[k]
    n_links = n_routers * two_d
    if slots.shape[0] != n_links or slots.shape[1] != 2:
        raise ValueError(f"csr_link_time: slots must have shape ({n_links}, 2); got ({slots.shape[0]}, {slots.shape[1]})")
    if epoch < 1:
        raise ValueError(f"csr_link_time: epoch must be >= 1; got {epoch}")
    if not overlap_weight > 0:
        raise ValueError(f"csr_link_time: overlap_weight must be > 0; got {overlap_weight}")
    if n_links == 0:
        return best, best_link
    cdef LinkSlot* link = <LinkSlot*> &slots[0, 0]
    cdef long long* strides = _alloc_strides(dims)
    cdef long long* deltas = <long long*> malloc(n_dims * sizeof(long long))
    cdef long long* source = <long long*> malloc(n_dims * sizeof(long long))
    if deltas == NULL or source == NULL:
        free(strides)
        free(deltas)
        free(source)
        raise MemoryError("csr_link_time: cannot allocate the route state")
    with nogil:
        for t in range(n_tasks):
            p = task_to_proc[t]
            source_router = 0
            for k in range(n_dims):
                source[k] = coords[p, k]
                source_router += source[k] * strides[k]
            for e in range(indptr[t], indptr[t + 1]):
                q = task_to_proc[indices[e]]
                if p == q:
                    continue
                # signed steps per dimension: the shorter way round, + on ties
                h = 0
                kk = 0
                for k in range(n_dims):
                    delta = coords[q, k] - source[k]
                    if wrap[k]:
                        length = dims[k]
                        fwd = delta + length if delta < 0 else delta
                        bwd = length - fwd
                        delta = fwd if fwd <= bwd else -bwd
                    deltas[k] = delta
                    kk = k if delta != 0 else kk
                    h += delta if delta >= 0 else -delta
                if h == 0:
                    continue
                w = weights[e]
                # beyond overlap_weight a message's hop latency overlaps with its data, in proportion
                hops = <float> h if w <= overlap_weight else <float> (h * (overlap_weight / w))
                if h == 1:  # one link, in dimension kk
                    if deltas[kk] > 0:
                        l = source_router * two_d + 2 * kk
                        c = source[kk]
                    else:
                        l = source_router * two_d + 2 * kk + 1
                        c = source[kk] - 1 if source[kk] > 0 else dims[kk] - 1
                    value = hop_latency * _add_load(&link[l], w, hops, epoch)
                    value += link[l].data * seconds_per_weight * inv_bandwidth[kk, c]
                    if value > best or (value == best and l < best_link):
                        best = value
                        best_link = l
                    continue
                router = source_router
                for k in range(n_dims):
                    delta = deltas[k]
                    if delta == 0:
                        continue
                    c = source[k]
                    length = dims[k]
                    stride = strides[k]
                    base = router - c * stride
                    for s in range(delta if delta > 0 else -delta):
                        if delta > 0:
                            l = (base + c * stride) * two_d + 2 * k
                            value = inv_bandwidth[k, c]
                        else:
                            l = (base + c * stride) * two_d + 2 * k + 1
                            value = inv_bandwidth[k, c - 1 if c > 0 else length - 1]
                        inv = value
                        value = hop_latency * _add_load(&link[l], w, hops, epoch)
                        value += link[l].data * seconds_per_weight * inv
                        if value > best or (value == best and l < best_link):
                            best = value
                            best_link = l
                        if delta > 0:
                            c = c + 1 if c + 1 < length else 0
                        else:
                            c = c - 1 if c > 0 else length - 1
                    router = base + c * stride
    free(strides)
    free(deltas)
    free(source)
    return best, best_link
