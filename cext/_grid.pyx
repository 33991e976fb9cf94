# Kernels of the regular-grid heuristic suite (ALGORITHMS.md section 4, Bhatele et al.).
#
# 1. place_nearest: "findNearest" conflict resolution on a 2-D processor mesh.
#    Algorithm  : objects are placed one after another (in the order given); object k
#                 takes its target cell (ti[k], tj[k]) if it is free, otherwise the free
#                 cell nearest to the target in Manhattan distance on the mesh.
#    Arrays     : ti, tj (n,) int64 targets, 0 <= ti < nx, 0 <= tj < ny (input);
#                 oi, oj (n,) int64 chosen cells (output);
#                 right (ny * (nx + 1),) intp, left (ny * (nx + 1),) intp, up (ny + 1,) intp,
#                 down (ny + 1,) intp, free_in_row (ny,) intp: work arrays (allocated and
#                 initialised by the Python wrapper, see mpitaskmap/mappers/_grids.py).
#    Structure  : per row, two union-find "next free cell" arrays with path halving:
#                 right[r*(nx+1) + i] leads to (base of row r) + the nearest free column
#                 >= i (column nx = none), left[r*(nx+1) + i + 1] leads to (base) + 1 + the
#                 nearest free column <= i (base + 0 = none); roots point to themselves; per mesh, the same over rows (up: nearest non-full row >= j,
#                 ny = none; down: 1 + nearest non-full row <= j, 0 = none).  A query scans
#                 non-full rows outward from the target row (full rows are skipped in
#                 O(alpha)) and stops as soon as the row distance reaches the best
#                 distance found: no quadratic scan of the mesh.
#    Tie-break  : smallest Manhattan distance; then rows in the order j, j-1, j+1, j-2, ...;
#                 within a row the left candidate before the right one.
#    Complexity : O(alpha(n)) per object whose target is free; otherwise O(number of
#                 non-full rows within the found distance); near-linear in practice.
#    expand_nearest is the same search with targets computed on the fly (EXCO, COCE):
#                 the object's target is the rounded mean of the cells its already placed
#                 grid neighbours predict (neighbour's cell minus the grid offset), clipped
#                 to the mesh; an object without placed neighbours targets its front's
#                 corner.  Objects in order[]; front[k] is the corner of order[k].
#
# 2. pairs_refine: PAIRS pairwise-exchange refinement of weighted hops (hop-bytes).
#    Algorithm  : for proposal k take task a = tasks[k] on processor pa and a processor q:
#                 uni[k] when >= 0, else a network neighbour (pn_indices[pn_indptr[pu] +
#                 r2[k] mod deg]) of the processor pu of a's graph neighbour u = indices[
#                 indptr[a] + r1[k] mod deg(a)].  The exchange of a with the task b on q (or
#                 the move of a when q is idle) is applied iff it lowers the weighted hops
#                 by more than tol.  Hop distance: _hops of cext/_topology.pxd.
#    Arrays     : CSR of the *symmetrised* task graph indptr (n_tasks+1,) intp, indices
#                 (n_edges,) intp, weights (n_edges,) float64 (w(a,u) + w(u,a)); router
#                 coords (n_procs, n_dims) int16, int32 or int64 (coord_t), dims (n_dims,)
#                 int64, wrap (n_dims,) uint8;
#                 task_to_proc (n_tasks,) intp and proc_to_task (n_procs,) intp (-1 idle),
#                 both updated in place; processor neighbour CSR pn_indptr, pn_indices;
#                 proposals tasks, uni (m,) intp and r1, r2 (m,) int64 >= 0, drawn by the
#                 caller from a seeded generator (no randomness here).
#    Invariant  : the weighted hops never increase; task_to_proc and proc_to_task stay
#                 inverse to each other.
#    Complexity : O(deg(a) + deg(b)) per proposal.

from _topology cimport _hops, coord_t


cdef struct _Mesh:
    Py_ssize_t nx
    Py_ssize_t ny
    Py_ssize_t* right
    Py_ssize_t* left
    Py_ssize_t* up
    Py_ssize_t* down
    Py_ssize_t* free_in_row


cdef inline Py_ssize_t _root(Py_ssize_t* parent, Py_ssize_t x) noexcept nogil:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


cdef inline bint _nearest(_Mesh* m, Py_ssize_t i, Py_ssize_t j, Py_ssize_t* bi, Py_ssize_t* bj) noexcept nogil:
    """Find the free cell nearest (i, j); False when the mesh is full."""
    cdef Py_ssize_t nx = m.nx, ny = m.ny, base = j * (nx + 1), best, r, c, dist, dy, r_dn, r_up
    cdef bint go_dn
    if m.right[base + i] == base + i:
        bi[0] = i
        bj[0] = j
        return True
    best = nx + ny + 1
    bi[0] = -1
    r_dn = _root(m.down, j + 1) - 1   # nearest non-full row <= j (-1: none)
    r_up = _root(m.up, j + 1)         # nearest non-full row > j (ny: none)
    while r_dn >= 0 or r_up < ny:
        if r_dn >= 0 and (r_up >= ny or j - r_dn <= r_up - j):   # ties: the lower row
            r = r_dn
            go_dn = True
        else:
            r = r_up
            go_dn = False
        dy = j - r if r <= j else r - j
        if dy >= best:
            break
        base = r * (nx + 1)
        c = _root(m.left, base + i + 1) - base - 1   # nearest free column <= i
        if c >= 0 and dy + i - c < best:
            best = dy + i - c
            bi[0] = c
            bj[0] = r
        c = _root(m.right, base + i) - base          # nearest free column >= i
        if c < nx and dy + c - i < best:
            best = dy + c - i
            bi[0] = c
            bj[0] = r
        if go_dn:
            r_dn = _root(m.down, r) - 1
        else:
            r_up = _root(m.up, r + 1)
    return bi[0] >= 0


cdef inline void _occupy(_Mesh* m, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef Py_ssize_t base = j * (m.nx + 1)
    m.right[base + i] = base + i + 1
    m.left[base + i + 1] = base + i
    m.free_in_row[j] -= 1
    if m.free_in_row[j] == 0:
        m.up[j] = j + 1
        m.down[j + 1] = j


cdef inline void _mesh_init(_Mesh* m, Py_ssize_t nx, Py_ssize_t ny, Py_ssize_t[::1] right,
                            Py_ssize_t[::1] left, Py_ssize_t[::1] up, Py_ssize_t[::1] down,
                            Py_ssize_t[::1] free_in_row) noexcept nogil:
    m.nx = nx
    m.ny = ny
    m.right = &right[0]
    m.left = &left[0]
    m.up = &up[0]
    m.down = &down[0]
    m.free_in_row = &free_in_row[0]


cdef int _place(const long long[::1] ti, const long long[::1] tj, long long[::1] oi,
                long long[::1] oj, _Mesh* m) noexcept nogil:
    cdef Py_ssize_t k, bi = 0, bj = 0
    for k in range(ti.shape[0]):
        if not _nearest(m, ti[k], tj[k], &bi, &bj):
            return -1
        oi[k] = bi
        oj[k] = bj
        _occupy(m, bi, bj)
    return 0


cdef inline long long _clip(long long v, long long hi) noexcept nogil:
    return 0 if v < 0 else (hi if v > hi else v)


cdef int _expand(const Py_ssize_t[::1] order, const Py_ssize_t[::1] front,
                 const long long[::1] corner_i, const long long[::1] corner_j,
                 Py_ssize_t ox, Py_ssize_t oy, long long[::1] oi, long long[::1] oj,
                 unsigned char[::1] placed, _Mesh* m) noexcept nogil:
    cdef Py_ssize_t k, o, x, y, nb, d, cnt, bi = 0, bj = 0
    cdef long long si, sj, ti, tj
    cdef int dx[4]
    cdef int dy[4]
    dx[0] = 1; dx[1] = -1; dx[2] = 0; dx[3] = 0
    dy[0] = 0; dy[1] = 0; dy[2] = 1; dy[3] = -1
    for k in range(order.shape[0]):
        o = order[k]
        x = o % ox
        y = o // ox
        si = 0
        sj = 0
        cnt = 0
        for d in range(4):
            if x + dx[d] < 0 or x + dx[d] >= ox or y + dy[d] < 0 or y + dy[d] >= oy:
                continue
            nb = o + dx[d] + ox * dy[d]
            if placed[nb]:
                si += oi[nb] - dx[d]
                sj += oj[nb] - dy[d]
                cnt += 1
        if cnt:
            # mean of the predicted cells (each >= -1), rounded half up; shifted by +2 so
            # that the C division of non-negative numbers is a floor
            ti = (2 * (si + 2 * cnt) + cnt) // (2 * cnt) - 2
            tj = (2 * (sj + 2 * cnt) + cnt) // (2 * cnt) - 2
            ti = _clip(ti, m.nx - 1)
            tj = _clip(tj, m.ny - 1)
        else:
            ti = corner_i[front[k]]
            tj = corner_j[front[k]]
        if not _nearest(m, ti, tj, &bi, &bj):
            return -1
        oi[o] = bi
        oj[o] = bj
        placed[o] = 1
        _occupy(m, bi, bj)
    return 0


def expand_nearest(const Py_ssize_t[::1] order, const Py_ssize_t[::1] front,
                   const long long[::1] corner_i, const long long[::1] corner_j,
                   Py_ssize_t ox, Py_ssize_t oy, long long[::1] oi, long long[::1] oj,
                   unsigned char[::1] placed, Py_ssize_t nx, Py_ssize_t ny, Py_ssize_t[::1] right,
                   Py_ssize_t[::1] left, Py_ssize_t[::1] up, Py_ssize_t[::1] down,
                   Py_ssize_t[::1] free_in_row):
    """Place objects in order on the free cell nearest the one their placed neighbours predict."""
    cdef int status
    cdef _Mesh m
    with nogil:
        _mesh_init(&m, nx, ny, right, left, up, down, free_in_row)
        status = _expand(order, front, corner_i, corner_j, ox, oy, oi, oj, placed, &m)
    return status


def place_nearest(const long long[::1] ti, const long long[::1] tj, long long[::1] oi,
                  long long[::1] oj, Py_ssize_t nx, Py_ssize_t ny, Py_ssize_t[::1] right,
                  Py_ssize_t[::1] left, Py_ssize_t[::1] up, Py_ssize_t[::1] down,
                  Py_ssize_t[::1] free_in_row):
    """Place objects on their target cell or the nearest free one; return 0 or -1 (mesh full)."""
    cdef int status
    cdef _Mesh m
    with nogil:
        _mesh_init(&m, nx, ny, right, left, up, down, free_in_row)
        status = _place(ti, tj, oi, oj, &m)
    return status


cdef long long _pairs(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] indices,
                      const double[::1] weights, const coord_t[:, ::1] coords,
                      const long long[::1] dims, const unsigned char[::1] wrap,
                      Py_ssize_t[::1] t2p, Py_ssize_t[::1] p2t,
                      const Py_ssize_t[::1] pn_indptr, const Py_ssize_t[::1] pn_indices,
                      const Py_ssize_t[::1] tasks, const Py_ssize_t[::1] uni,
                      const long long[::1] r1, const long long[::1] r2, double tol,
                      double* gain) noexcept nogil:
    cdef Py_ssize_t k, m = tasks.shape[0], a, b, u, pa, pu, q, e, deg
    cdef long long accepted = 0
    cdef double delta
    for k in range(m):
        a = tasks[k]
        pa = t2p[a]
        if uni[k] >= 0:
            q = uni[k]
        else:
            deg = indptr[a + 1] - indptr[a]
            if deg == 0:
                continue
            u = indices[indptr[a] + r1[k] % deg]
            pu = t2p[u]
            deg = pn_indptr[pu + 1] - pn_indptr[pu]
            if deg == 0:
                continue
            q = pn_indices[pn_indptr[pu] + r2[k] % deg]
        if q == pa:
            continue
        b = p2t[q]
        delta = 0.0
        for e in range(indptr[a], indptr[a + 1]):
            u = indices[e]
            if u == b:
                continue
            pu = t2p[u]
            delta += weights[e] * (_hops(coords, q, pu, dims, wrap) - _hops(coords, pa, pu, dims, wrap))
        if b >= 0:
            for e in range(indptr[b], indptr[b + 1]):
                u = indices[e]
                if u == a:
                    continue
                pu = t2p[u]
                delta += weights[e] * (_hops(coords, pa, pu, dims, wrap) - _hops(coords, q, pu, dims, wrap))
        if delta < -tol:
            t2p[a] = q
            p2t[q] = a
            p2t[pa] = b
            if b >= 0:
                t2p[b] = pa
            accepted += 1
            gain[0] -= delta
    return accepted


def pairs_refine(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] indices,
                 const double[::1] weights, const coord_t[:, ::1] coords,
                 const long long[::1] dims, const unsigned char[::1] wrap,
                 Py_ssize_t[::1] task_to_proc, Py_ssize_t[::1] proc_to_task,
                 const Py_ssize_t[::1] pn_indptr, const Py_ssize_t[::1] pn_indices,
                 const Py_ssize_t[::1] tasks, const Py_ssize_t[::1] uni,
                 const long long[::1] r1, const long long[::1] r2, double tol):
    """Apply the improving exchanges among the proposals; return (accepted, weighted-hops gain)."""
    cdef long long accepted
    cdef double gain = 0.0
    with nogil:
        accepted = _pairs(indptr, indices, weights, coords, dims, wrap, task_to_proc, proc_to_task,
                          pn_indptr, pn_indices, tasks, uni, r1, r2, tol, &gain)
    return int(accepted), float(gain)

