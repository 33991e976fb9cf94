# Shared torus/mesh distance and dimension-order routing, inlined into
# every kernel that needs them (cext/_torus.pyx, cext/_graphmap.pyx, cext/_grid.pyx): the
# one implementation in C.
#
# Hop distance: per dimension min(|a-b|, L-|a-b|) when it wraps, |a-b| otherwise.
# Routing: dimensions in order 0, 1, ...; on a wrapping dimension the shorter way round,
# the + direction on ties.  Directed link id = router * 2 * n_dims + 2 * dim + (0 for +,
# 1 for -), router id = sum_k coord_k * stride_k with stride_0 = 1.


# Router coordinates come in the narrowest exact signed type (int16 covers every real
# network; a node's shared window holds them so, mpitaskmap/_allgather.py): every kernel
# that takes coordinates is specialised for the three and reads them into long long.
ctypedef fused coord_t:
    short
    int
    long long

cdef inline long long _dim_hops(long long a, long long b, long long length, bint wraps) noexcept nogil:
    cdef long long d = a - b
    if d < 0:
        d = -d
    if wraps and length - d < d:
        d = length - d
    return d


cdef inline long long _hops(const coord_t[:, ::1] coords, Py_ssize_t p, Py_ssize_t q,
                            const long long[::1] dims, const unsigned char[::1] wrap) noexcept nogil:
    cdef Py_ssize_t k
    cdef long long total = 0
    if p == q:
        return 0
    for k in range(coords.shape[1]):
        total += _dim_hops(coords[p, k], coords[q, k], dims[k], wrap[k])
    return total


cdef inline Py_ssize_t _route(const coord_t[:, ::1] coords, const long long[::1] dims,
                       const unsigned char[::1] wrap, const long long* strides,
                       Py_ssize_t p, Py_ssize_t q, long long* links) noexcept nogil:
    """Write the directed link ids of the dimension-order route p -> q into links.

    Returns the number of links (= hops).  ``links`` must hold sum(dims) entries
    (_graphmap's _Net.alloc_route_buffer).
    """
    cdef Py_ssize_t k, n_dims = coords.shape[1], n = 0
    cdef long long router = 0, fwd, bwd, steps, s, length, c, target
    cdef int direction
    for k in range(n_dims):
        router += coords[p, k] * strides[k]
    for k in range(n_dims):
        c = coords[p, k]
        target = coords[q, k]
        if c == target:
            continue
        length = dims[k]
        if wrap[k]:
            fwd = target - c
            if fwd < 0:
                fwd += length
            bwd = length - fwd
            if fwd <= bwd:
                direction = 0
                steps = fwd
            else:
                direction = 1
                steps = bwd
        elif target > c:
            direction = 0
            steps = target - c
        else:
            direction = 1
            steps = c - target
        for s in range(steps):
            links[n] = router * 2 * n_dims + 2 * k + direction
            n += 1
            if direction == 0:
                if c == length - 1:
                    c = 0
                    router -= (length - 1) * strides[k]
                else:
                    c += 1
                    router += strides[k]
            else:
                if c == 0:
                    c = length - 1
                    router += (length - 1) * strides[k]
                else:
                    c -= 1
                    router -= strides[k]
    return n
