# distutils: language = c++
# Graph mapping kernels: greedy growth (UG), weighted-hop refinement (UWH) and
# congestion refinement (UMC / UMMC).  ALGORITHMS.md section 3 (Deveci, Kaya, Ucar,
# Catalyurek, "Fast and high quality topology-aware task mapping").
#
# Arrays     : undirected task graph tptr (n_tasks+1,), tadj (m,), tw (m,) float64 with both
#              directions stored and W(t,u) = w(t,u) + w(u,t); capacity (n_nodes,) free cores per
#              node; task_node (n_tasks,) int64 node of every task (-1 = unmapped).
# Network    : distances in three modes.  Torus: ncoords (n_nodes, d) router coordinate of every
#              node (any integer type, kept as int64; torus_tree takes int16, int32 or int64),
#              dims, wrap, router_ptr/router_nodes (nodes behind every router, CSR over all
#              routers); distances come from _topology.pxd; "BFS in the network" is a real BFS
#              over routers with early exit.  Metric: labels (n_nodes, width) int64 and the
#              formula of a fat tree, dragonfly, PERCS system or flat allocation
#              (_network_hops.pxd), O(n_nodes) memory.  Matrix: ndist (n_nodes, n_nodes) int32
#              hop matrix of any other machine.  Off the torus a BFS level is the set of nodes at
#              one distance from the source set.
# Routes     : (congestion only) in two modes, whichever the distances.  Torus: the
#              dimension-order route computed on the fly (_topology.pxd _route), every link
#              carrying the whole message.  Table: the machine's routes between every ordered
#              pair of nodes as CSR over the n_nodes**2 pairs (pair a * n_nodes + b; indptr,
#              links, fractions), a message of w words adding w * fraction to Data(e) and 1 to
#              Congestion(e) per entry.  Both serve the one refinement loop through
#              _Net.route; on a torus with the table of its own routes they give the same
#              loads and the same mapping (a fraction of 1.0 multiplies exactly).
# Congestion : Data(e)/Congestion(e) of every directed link kept incrementally by _LinkLoads
#              (relocating tasks re-routes only their messages); a candidate swap or move is
#              tried by move, look, undo (_LinkLoads.trial) and applied by _LinkLoads.relocate.
#              The same tracker serves both granularities: tasks on nodes (UMC / UMMC) and
#              whole nodes' task groups on nodes (node swaps).
#              With fractions that are not binary (1/3) the incremental sums may differ from a
#              recount in the last bits; integer weights and fractions k/2^j keep them exact.
# Node swaps : refine_node_swaps exchanges whole nodes' task groups (contents) while the link
#              objectives, as a multiset, fall lexicographically; only the links a swap
#              re-routes can change, so a trial compares their sorted values before and after
#              (_LinkLoads.swap_if_lower) and an undo restores the saved values exactly.
# Tie-breaks : by lower task / node index everywhere (deterministic).
# Complexity : UG O(m log n + sum of BFS work), BFS stops at the first level with capacity;
#              UWH O(passes * n * delta * cap * deg); congestion O(iterations * (m * hops +
#              n_links + candidates * delta * cap * deg * hops)), hops = route entries in table
#              mode.

cimport cython
from libc.stdlib cimport free, malloc
from libcpp.algorithm cimport partial_sort, sort
from libcpp.pair cimport pair
from libcpp.queue cimport priority_queue
from libcpp.vector cimport vector

from _network_hops cimport METRIC_PARAMS, _label_hops, _label_route, _label_route_capacity, _route_params_ok
from _topology cimport _hops, _route, coord_t

import numpy as np

ctypedef pair[double, long long] keyed


cdef enum:
    _NO_ROUTES = 0      # distances only (greedy, UWH, bisection)
    _TORUS_ROUTES = 1   # dimension-order routes computed from the router coordinates
    _TABLE_ROUTES = 2   # the machine's routes between every pair of nodes, CSR with fractions
    _METRIC_ROUTES = 3  # routes computed from the node labels: a fat tree's, a minimal dragonfly's (_network_hops.pxd)


@cython.final
cdef class _Net:
    """Distances and BFS over the network between nodes (torus, metric or matrix mode) and
    routes between them (none, torus or table mode; see the module header)."""

    cdef const long long[:, ::1] ncoords
    cdef const long long[::1] dims
    cdef const unsigned char[::1] wrap
    cdef const long long[::1] router_ptr
    cdef const long long[::1] router_nodes
    cdef const long long[::1] node_router
    cdef const int[:, ::1] ndist
    cdef const long long[:, ::1] labels
    cdef long long mparams[METRIC_PARAMS]
    cdef int metric
    cdef const long long[:, ::1] near
    cdef bint matrix
    cdef Py_ssize_t n_nodes, n_routers, d
    cdef long long[::1] stamp
    cdef long long cur_stamp
    cdef long long[::1] mind
    cdef long long* strides
    cdef int routing
    cdef long long n_links
    cdef const long long[::1] route_ptr
    cdef const long long* route_links
    cdef const double* route_fractions
    cdef object route_arrays
    cdef const long long[::1] rparams
    cdef Py_ssize_t route_cap

    def __cinit__(self, ncoords, dims, wrap, router_ptr, router_nodes, node_router, ndist, route_ptr=None,
                  route_links=None, route_fractions=None, int metric=0, metric_params=None, metric_labels=None,
                  near=None, route_params=None, long long n_links=0):
        cdef Py_ssize_t k
        self.metric = metric
        if metric:
            params = np.ascontiguousarray(metric_params, dtype=np.int64)
            if params.shape != (METRIC_PARAMS,):
                raise ValueError(f"metric_params: expected {METRIC_PARAMS} values; got shape {params.shape}")
            for k in range(METRIC_PARAMS):
                self.mparams[k] = params[k]
            self.labels = np.ascontiguousarray(metric_labels, dtype=np.int64)
            if self.labels.shape[0] < 1 or self.labels.shape[1] < 1:
                raise ValueError("metric_labels: expected (n_nodes >= 1, width >= 1) labels")
        # one row per node, kept as int64 (a memoryview attribute cannot be fused): a node-sized
        # copy when the router coordinates come narrower (int16 or int32)
        self.ncoords = np.ascontiguousarray(ncoords, dtype=np.int64)
        self.dims = dims
        self.wrap = wrap
        self.router_ptr = router_ptr
        self.router_nodes = router_nodes
        self.node_router = node_router
        self.ndist = ndist
        self.matrix = ndist.shape[0] > 0 or metric != 0
        self.n_nodes = self.labels.shape[0] if metric else ndist.shape[0] if self.matrix else ncoords.shape[0]
        self.d = ncoords.shape[1]
        self.n_routers = router_ptr.shape[0] - 1 if not self.matrix else self.n_nodes
        self.stamp = np.zeros(max(self.n_routers, 1), dtype=np.int64)
        self.cur_stamp = 0
        self.mind = np.zeros(max(self.n_nodes, 1), dtype=np.int64)
        if self.matrix:
            if near is None:
                raise ValueError("near: off the torus the nearest nodes of every node are needed "
                                 "(Machine.nearest_nodes)")
            self.near = near
            if self.near.shape[0] != self.n_nodes or self.near.shape[1] < 1:
                raise ValueError(f"near: expected ({self.n_nodes}, width >= 1); got {self.near.shape}")
        else:
            self.near = np.zeros((0, 0), dtype=np.int64)
        self.strides = <long long*> malloc((self.d + 1) * sizeof(long long))
        if self.strides == NULL:
            raise MemoryError()
        self.strides[0] = 1
        for k in range(1, self.d + 1):
            self.strides[k] = self.strides[k - 1] * self.dims[k - 1]
        self.route_links = NULL
        self.route_fractions = NULL
        self.route_cap = 1 + sum(int(x) for x in self.dims)
        if route_ptr is not None or route_links is not None or route_fractions is not None:
            self._set_table(route_ptr, route_links, route_fractions)
        elif metric and route_params is not None:
            self.rparams = np.ascontiguousarray(route_params, dtype=np.int64)
            if not _route_params_ok(metric, self.rparams, self.labels.shape[1]):
                raise ValueError(f"route_params: {self.rparams.shape[0]} values are no route parameters of metric "
                                 f"{metric} over {self.labels.shape[1]} labels")
            if n_links < 1:
                raise ValueError(f"n_links: routes by formula need the machine's link count; got {n_links}")
            self.routing = _METRIC_ROUTES
            self.n_links = n_links
            self.route_cap = max(self.route_cap, _label_route_capacity(metric, &self.rparams[0]))
        elif self.matrix:
            self.routing = _NO_ROUTES
            self.n_links = 0
        else:
            # link ids router * 2 d + 2 k + direction (_topology.pxd) over every router of the torus
            self.routing = _TORUS_ROUTES
            self.n_links = self.strides[self.d] * 2 * self.d

    cdef object _set_table(self, route_ptr, route_links, route_fractions):
        """Check and keep the route table (CSR over the n_nodes**2 ordered node pairs)."""
        cdef const long long[::1] lv
        cdef const double[::1] fv
        if route_ptr is None or route_links is None or route_fractions is None:
            raise ValueError("route table: route_ptr, route_links and route_fractions go together")
        ptr = np.ascontiguousarray(route_ptr, dtype=np.int64)
        links = np.ascontiguousarray(route_links, dtype=np.int64)
        fractions = np.ascontiguousarray(route_fractions, dtype=np.float64)
        pairs = self.n_nodes * self.n_nodes
        if ptr.ndim != 1 or ptr.shape[0] != pairs + 1:
            raise ValueError(f"route_ptr: expected {pairs + 1} entries ({self.n_nodes} nodes squared + 1); "
                             f"got shape {ptr.shape}")
        if ptr[0] != 0 or (ptr.shape[0] > 1 and np.min(np.diff(ptr)) < 0) or ptr[pairs] != links.shape[0]:
            raise ValueError(f"route_ptr: must rise from 0 to the {links.shape[0]} route links")
        if links.ndim != 1 or fractions.shape != links.shape:
            raise ValueError(f"route_fractions: expected shape {links.shape} like route_links; got {fractions.shape}")
        if links.shape[0] and np.min(links) < 0:
            raise ValueError(f"route_links: link ids must be >= 0; got {int(np.min(links))}")
        if links.shape[0] and not (np.min(fractions) > 0 and np.max(fractions) <= 1):
            raise ValueError("route_fractions: every share must lie in (0, 1]")
        lv = links
        fv = fractions
        self.route_arrays = (ptr, links, fractions)  # the raw pointers below point into these
        self.route_ptr = ptr
        if links.shape[0]:
            self.route_links = &lv[0]
            self.route_fractions = &fv[0]
        self.routing = _TABLE_ROUTES
        self.n_links = int(np.max(links)) + 1 if links.shape[0] else 0

    def __dealloc__(self):
        if self.strides != NULL:
            free(self.strides)

    cdef inline long long dist(self, long long a, long long b) noexcept nogil:
        if a == b:
            return 0
        if self.metric:
            return _label_hops(self.metric, self.mparams, &self.labels[a, 0], &self.labels[b, 0])
        if self.matrix:
            return self.ndist[a, b]
        return _hops(self.ncoords, a, b, self.dims, self.wrap)

    cdef inline Py_ssize_t route(self, long long a, long long b, long long* buf, const long long** links,
                                 const double** fractions) noexcept nogil:
        """The route node a -> node b: its link ids in ``links[0]``, their traffic shares in
        ``fractions[0]`` (NULL: the whole message on every link); returns the number of links.

        Torus mode writes the dimension-order route into ``buf`` (:meth:`alloc_route_buffer`), a
        fat tree's formula its links there and their shares after them; table mode points into
        the table.  The one route lookup of the congestion kernels.
        """
        cdef long long j
        cdef double* shares
        if self.routing == _METRIC_ROUTES:
            shares = <double*> (buf + self.route_cap)
            links[0] = buf
            fractions[0] = shares
            return _label_route(self.metric, &self.rparams[0], &self.labels[a, 0], &self.labels[b, 0], buf, shares)
        if self.routing == _TABLE_ROUTES:
            j = a * self.n_nodes + b
            links[0] = self.route_links + self.route_ptr[j]
            fractions[0] = self.route_fractions + self.route_ptr[j]
            return self.route_ptr[j + 1] - self.route_ptr[j]
        fractions[0] = NULL
        links[0] = buf
        return _route(self.ncoords, self.dims, self.wrap, self.strides, a, b, buf)

    cdef long long* alloc_route_buffer(self) except NULL:
        """A buffer for :meth:`route`: any route's links, then as many shares (8 bytes each); caller frees.

        Raises MemoryError when the allocation fails (call it holding the GIL).
        """
        cdef long long* buf = NULL
        if self.route_cap <= (<Py_ssize_t> 1 << 59):  # 2 x route_cap x 8 bytes must not wrap around
            buf = <long long*> malloc(2 * self.route_cap * sizeof(long long))
        if buf == NULL:
            raise MemoryError(f"cannot allocate a route buffer of {self.route_cap} links")
        return buf

    cdef object check_loads(self, Py_ssize_t n_data, Py_ssize_t n_msgs, Py_ssize_t n_bw=-1):
        """Raise ValueError unless the net has routes and the load arrays (``bw`` when n_bw >= 0)
        cover every link they name."""
        if self.routing == _NO_ROUTES:
            raise ValueError("net: built without routes (hop matrix only); congestion needs torus routes "
                             "or a route table (make_net's route_ptr, route_links, route_fractions)")
        for name, size in (("data", n_data), ("msgs", n_msgs), ("bw", n_bw)):
            if 0 <= size < self.n_links:
                raise ValueError(f"{name}: the routes name links up to {self.n_links - 1}; got {size} entries")

    cdef void level_nodes(self, vector[long long]& sources, const long long[::1] free_cap,
                          bint free_only, long long exclude, Py_ssize_t want,
                          vector[long long]& out) noexcept nogil:
        """Nodes of the nearest BFS levels from the source nodes.

        free_only: stop at the first level holding a node with free capacity and return
        those nodes.  Otherwise: return the first ``want`` nodes in BFS order (level, then
        node id), skipping ``exclude``.
        """
        out.clear()
        if self.matrix:
            self._level_nodes_matrix(sources, free_cap, free_only, exclude, want, out)
        else:
            self._level_nodes_torus(sources, free_cap, free_only, exclude, want, out)

    cdef void _level_nodes_matrix(self, vector[long long]& sources, const long long[::1] free_cap,
                                  bint free_only, long long exclude, Py_ssize_t want,
                                  vector[long long]& out) noexcept nogil:
        cdef Py_ssize_t v, i, j
        cdef long long best = -1, dv, w
        cdef vector[keyed] order
        if not free_only and want + 1 <= self.near.shape[1]:
            # Only the first want + 1 nearest of each source can be among the first want of all
            # (a node v* of the answer, nearest to source s, has at most want - 1 other answer
            # nodes and ``exclude`` before it in s's own order), so they alone are ranked.
            self.cur_stamp += 1
            for i in range(<Py_ssize_t> sources.size()):
                for j in range(want + 1):
                    w = self.near[sources[i], j]
                    if w != exclude and self.stamp[w] != self.cur_stamp:
                        self.stamp[w] = self.cur_stamp
                        dv = 1 << 40
                        for v in range(<Py_ssize_t> sources.size()):
                            dv = min(dv, self.dist(sources[v], w))
                        order.push_back(keyed(<double> dv, w))
            sort(order.begin(), order.end())
            for i in range(min(want, <Py_ssize_t> order.size())):
                out.push_back(order[i].second)
            return
        if free_only:
            if self._nearest_free_level(sources, free_cap, out):
                return
            for v in range(self.n_nodes):
                if free_cap[v] > 0:
                    dv = 1 << 40
                    for i in range(<Py_ssize_t> sources.size()):
                        dv = min(dv, self.dist(sources[i], v))
                    self.mind[v] = dv
                    if best < 0 or dv < best:
                        best = dv
            for v in range(self.n_nodes):
                if free_cap[v] > 0 and self.mind[v] == best:
                    out.push_back(v)
            return
        for v in range(self.n_nodes):
            dv = 1 << 40
            for i in range(<Py_ssize_t> sources.size()):
                dv = min(dv, self.dist(sources[i], v))
            self.mind[v] = dv
        for v in range(self.n_nodes):
            if v != exclude:
                order.push_back(keyed(<double> self.mind[v], v))
        sort(order.begin(), order.end())
        for i in range(min(want, <Py_ssize_t> order.size())):
            out.push_back(order[i].second)

    cdef bint _nearest_free_level(self, vector[long long]& sources, const long long[::1] free_cap,
                                  vector[long long]& out) noexcept nogil:
        """The free nodes at the least distance from the sources, from their near lists alone; False
        (``out`` untouched) when a list may miss a node at that distance.

        Each list is in order of (distance, node), so a source's first free entry is its nearest
        free node, and the list holds every node nearer than its last entry's distance.  When
        that distance exceeds the least one found for every source, no node outside the lists
        can be at the least distance: the answer is the free entries at it.  Off the torus the
        growth mostly finds a free node on or beside its sources' switch, so the full scan over
        every node (O(n_nodes x sources) a placement) is the exception.
        """
        cdef Py_ssize_t i, j, width = self.near.shape[1]
        cdef long long s, w, d, best = -1
        for i in range(<Py_ssize_t> sources.size()):
            s = sources[i]
            for j in range(width):
                w = self.near[s, j]
                if free_cap[w] > 0:
                    d = self.dist(s, w)
                    if best < 0 or d < best:
                        best = d
                    break
        if best < 0:
            return False
        if width < self.n_nodes:
            for i in range(<Py_ssize_t> sources.size()):
                s = sources[i]
                if self.dist(s, self.near[s, width - 1]) <= best:
                    return False
        self.cur_stamp += 1
        for i in range(<Py_ssize_t> sources.size()):
            s = sources[i]
            for j in range(width):
                w = self.near[s, j]
                d = self.dist(s, w)
                if d > best:
                    break
                if d == best and free_cap[w] > 0 and self.stamp[w] != self.cur_stamp:
                    self.stamp[w] = self.cur_stamp
                    out.push_back(w)
        sort(out.begin(), out.end())
        return True

    cdef void _level_nodes_torus(self, vector[long long]& sources, const long long[::1] free_cap,
                                 bint free_only, long long exclude, Py_ssize_t want,
                                 vector[long long]& out) noexcept nogil:
        cdef vector[long long] frontier, nxt
        cdef Py_ssize_t i, j, k
        cdef long long r, nb, c, node, rem
        cdef bint found
        self.cur_stamp += 1
        for i in range(<Py_ssize_t> sources.size()):
            r = self.node_router[sources[i]]
            if self.stamp[r] != self.cur_stamp:
                self.stamp[r] = self.cur_stamp
                frontier.push_back(r)
        while frontier.size() > 0:
            sort(frontier.begin(), frontier.end())
            found = False
            for i in range(<Py_ssize_t> frontier.size()):
                r = frontier[i]
                for j in range(self.router_ptr[r], self.router_ptr[r + 1]):
                    node = self.router_nodes[j]
                    if free_only:
                        if free_cap[node] > 0:
                            out.push_back(node)
                            found = True
                    elif node != exclude:
                        out.push_back(node)
                        if <Py_ssize_t> out.size() >= want:
                            return
            if free_only and found:
                sort(out.begin(), out.end())
                return
            nxt.clear()
            for i in range(<Py_ssize_t> frontier.size()):
                r = frontier[i]
                rem = r
                for k in range(self.d):
                    c = rem % self.dims[k]
                    rem = rem // self.dims[k]
                    if c + 1 < self.dims[k]:
                        nb = r + self.strides[k]
                    elif self.wrap[k] and self.dims[k] > 1:
                        nb = r - c * self.strides[k]
                    else:
                        nb = -1
                    if nb >= 0 and self.stamp[nb] != self.cur_stamp:
                        self.stamp[nb] = self.cur_stamp
                        nxt.push_back(nb)
                    if c > 0:
                        nb = r - self.strides[k]
                    elif self.wrap[k] and self.dims[k] > 1:
                        nb = r + (self.dims[k] - 1) * self.strides[k]
                    else:
                        nb = -1
                    if nb >= 0 and self.stamp[nb] != self.cur_stamp:
                        self.stamp[nb] = self.cur_stamp
                        nxt.push_back(nb)
            frontier.swap(nxt)

    cdef long long farthest_free(self, const unsigned char[::1] used, const long long[::1] free_cap) noexcept nogil:
        """The free node farthest from all used nodes (ties: lowest id); -1 if none is free."""
        cdef Py_ssize_t v, u
        cdef long long best = -1, best_d = -1, dv
        cdef vector[long long] src
        for u in range(self.n_nodes):
            if used[u]:
                src.push_back(u)
        for v in range(self.n_nodes):
            if free_cap[v] <= 0:
                continue
            if src.size() == 0:
                return v
            dv = 1 << 40
            for u in range(<Py_ssize_t> src.size()):
                dv = min(dv, self.dist(src[u], v))
            if dv > best_d:
                best_d = dv
                best = v
        return best


def _py_level_nodes(_Net net not None, sources, long long exclude, Py_ssize_t want, free_cap=None):
    """The kernels' candidate nodes (``level_nodes``) from Python, for tests: the first ``want``
    nodes nearest ``sources`` (ties: node id) skipping ``exclude``, or with ``free_cap`` the
    nearest level holding free capacity."""
    cdef vector[long long] src, out
    for v in sources:
        src.push_back(<long long> v)
    cap = np.zeros(max(net.n_nodes, 1), dtype=np.int64) if free_cap is None else np.ascontiguousarray(free_cap,
                                                                                                        dtype=np.int64)
    cdef const long long[::1] cap_view = cap
    net.level_nodes(src, cap_view, free_cap is not None, exclude, want, out)
    return [int(v) for v in out]


def make_net(ncoords, dims, wrap, router_ptr, router_nodes, node_router, ndist, route_ptr=None, route_links=None,
             route_fractions=None, int metric=0, metric_params=None, metric_labels=None, near=None, route_params=None,
             long long n_links=0):
    """Build the network object the kernels use (see the module header for the modes).

    Distances: the formula ``metric`` (a kind code of _network_hops.pxd, nonzero) over
    ``metric_labels`` (one row per node) with ``metric_params``, else the hop matrix ``ndist``
    when it has rows, else the torus (ncoords, dims, wrap, router CSR).  Off the torus ``near``
    (n_nodes, width) int64 holds every node's nearest nodes in order of (hops, node index)
    (:meth:`~mpitaskmap.machines.Machine.nearest_nodes`), which bounds the candidate scans.
    Routes of a fat tree by formula: ``route_params`` over the metric's labels (links below
    ``n_links``), no table.  Routes: the table ``route_ptr``/``route_links``/``route_fractions``
    when given (CSR over the ordered node pairs, pair ``a * n_nodes + b``; checked here,
    O(n_nodes**2 + entries)), else torus routes in torus mode, else none (the congestion
    kernels then raise ValueError).
    """
    return _Net(ncoords, dims, wrap, router_ptr, router_nodes, node_router, ndist, route_ptr, route_links,
                route_fractions, metric, metric_params, metric_labels, near, route_params, n_links)


cdef double _added_wh(const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
                      const long long[::1] task_node, _Net net, long long t, long long v) noexcept nogil:
    cdef Py_ssize_t e
    cdef double s = 0.0
    for e in range(tptr[t], tptr[t + 1]):
        if task_node[tadj[e]] >= 0:
            s += tw[e] * net.dist(v, task_node[tadj[e]])
    return s


def greedy_map(const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
               const long long[::1] capacity, _Net net not None, int n_bfs, long long start_node,
               long long[::1] task_node):
    """Greedy growth mapping (UG) into task_node; returns the number of tasks placed."""
    cdef Py_ssize_t n = tptr.shape[0] - 1, n_nodes = capacity.shape[0]
    cdef Py_ssize_t e, i, k, placed = 0
    cdef long long t, u, v, best_v, node
    cdef double best_add, add, c
    free_arr = np.array(capacity, dtype=np.int64)
    cdef long long[::1] free_cap = free_arr
    used_arr = np.zeros(n_nodes, dtype=np.uint8)
    cdef unsigned char[::1] used = used_arr
    conn_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] conn = conn_arr
    vol_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] vol = vol_arr
    level_arr = np.full(n, -1, dtype=np.int64)
    cdef long long[::1] level = level_arr
    cdef priority_queue[keyed] heap
    cdef vector[long long] sources, cands, queue
    cdef Py_ssize_t head
    with nogil:
        for t in range(n):
            task_node[t] = -1
            for e in range(tptr[t], tptr[t + 1]):
                vol[t] += tw[e]
        while placed < n:
            t = -1
            if placed > 0 and placed <= n_bfs:
                # a seed: the unmapped task farthest (BFS in the task graph) from the mapped
                # ones; unreachable tasks first (the heaviest of them), then larger volume
                queue.clear()
                for u in range(n):
                    level[u] = -1
                    if task_node[u] >= 0:
                        level[u] = 0
                        queue.push_back(u)
                head = 0
                while head < <Py_ssize_t> queue.size():
                    u = queue[head]
                    head += 1
                    for e in range(tptr[u], tptr[u + 1]):
                        if level[tadj[e]] < 0:
                            level[tadj[e]] = level[u] + 1
                            queue.push_back(tadj[e])
                for u in range(n):
                    if task_node[u] >= 0:
                        continue
                    if t < 0:
                        t = u
                    elif (level[u] < 0) != (level[t] < 0):
                        if level[u] < 0:
                            t = u
                    elif level[u] > level[t] or (level[u] == level[t] and vol[u] > vol[t]):
                        t = u
                node = net.farthest_free(used, free_cap)
            else:
                while not heap.empty():
                    c = heap.top().first
                    u = -heap.top().second
                    heap.pop()
                    if task_node[u] < 0 and c == conn[u]:
                        t = u
                        break
                if t < 0:
                    # nothing connected to the mapped tasks: the heaviest unmapped task
                    for u in range(n):
                        if task_node[u] < 0 and (t < 0 or vol[u] > vol[t]):
                            t = u
                    node = start_node if placed == 0 else net.farthest_free(used, free_cap)
                else:
                    sources.clear()
                    for e in range(tptr[t], tptr[t + 1]):
                        if task_node[tadj[e]] >= 0:
                            sources.push_back(task_node[tadj[e]])
                    net.level_nodes(sources, free_cap, True, -1, 0, cands)
                    best_v = -1
                    best_add = 0.0
                    for i in range(<Py_ssize_t> cands.size()):
                        v = cands[i]
                        add = _added_wh(tptr, tadj, tw, task_node, net, t, v)
                        if best_v < 0 or add < best_add or (add == best_add and v < best_v):
                            best_v = v
                            best_add = add
                    node = best_v
            if node < 0:
                break
            task_node[t] = node
            free_cap[node] -= 1
            used[node] = 1
            placed += 1
            for e in range(tptr[t], tptr[t + 1]):
                u = tadj[e]
                if task_node[u] < 0:
                    conn[u] += tw[e]
                    heap.push(keyed(conn[u], -u))
    return placed


cdef double _task_wh(const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
                     const long long[::1] task_node, _Net net, long long t, long long at,
                     long long skip) noexcept nogil:
    """WH of task t's edges if t sat on node ``at`` (edges to ``skip`` left out)."""
    cdef Py_ssize_t e
    cdef double s = 0.0
    for e in range(tptr[t], tptr[t + 1]):
        if tadj[e] != skip:
            s += tw[e] * net.dist(at, task_node[tadj[e]])
    return s


cdef class _Slots:
    """Tasks held by every node (fixed slots) for swap candidates."""

    cdef long long[::1] slots
    cdef long long[::1] count
    cdef long long[::1] pos
    cdef Py_ssize_t width

    def __cinit__(self, long long[::1] task_node, const long long[::1] capacity):
        cdef Py_ssize_t t, v
        self.width = max(1, int(np.max(capacity)) if capacity.shape[0] else 1)
        self.slots = np.full(capacity.shape[0] * self.width, -1, dtype=np.int64)
        self.count = np.zeros(capacity.shape[0], dtype=np.int64)
        self.pos = np.zeros(task_node.shape[0], dtype=np.int64)
        for t in range(task_node.shape[0]):
            v = task_node[t]
            self.slots[v * self.width + self.count[v]] = t
            self.pos[t] = self.count[v]
            self.count[v] += 1

    cdef void _sort_node(self, long long v) noexcept nogil:
        """Restore the invariant: node v's tasks in ascending id (what a fresh build gives)."""
        cdef Py_ssize_t i, j, base = v * self.width
        cdef long long x
        for i in range(1, self.count[v]):
            x = self.slots[base + i]
            j = i - 1
            while j >= 0 and self.slots[base + j] > x:
                self.slots[base + j + 1] = self.slots[base + j]
                j -= 1
            self.slots[base + j + 1] = x
        for i in range(self.count[v]):
            self.pos[self.slots[base + i]] = i

    cdef void swap(self, long long t, long long a, long long s, long long b) noexcept nogil:
        """Exchange task t (on node a) with task s (on node b)."""
        cdef long long pt = self.pos[t], ps = self.pos[s]
        self.slots[a * self.width + pt] = s
        self.slots[b * self.width + ps] = t
        self._sort_node(a)
        self._sort_node(b)

    cdef void move(self, long long t, long long a, long long b) noexcept nogil:
        """Move task t from node a to node b, which must have a free slot."""
        cdef long long p = self.pos[t], last
        self.count[a] -= 1
        last = self.slots[a * self.width + self.count[a]]
        self.slots[a * self.width + p] = last
        self.pos[last] = p
        self.slots[a * self.width + self.count[a]] = -1
        self.slots[b * self.width + self.count[b]] = t
        self.pos[t] = self.count[b]
        self.count[b] += 1
        self._sort_node(a)
        self._sort_node(b)


def refine_wh(const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
              const long long[::1] capacity, _Net net not None, int delta, int max_passes,
              long long[::1] task_node, int max_sources=0, int max_partners=2):
    """Swap/move refinement of weighted hops (UWH) in place; returns (moves, passes, gain).

    The candidate nodes of a task are the first ``delta`` nodes of a network BFS from the
    nodes of its neighbours; with ``max_sources > 0`` only the nodes of its
    ``max_sources`` heaviest neighbours (ties: lower task) seed that BFS, which bounds the
    work per task on dense graphs (a task of degree <= max_sources is unaffected); such a
    dense task also tries as swap partners only the ``max_partners`` tasks of each
    candidate node with the largest WH (ties: lower task).
    """
    cdef Py_ssize_t n = tptr.shape[0] - 1
    cdef Py_ssize_t e, i, k, passes = 0, moves = 0
    cdef long long t, s, a, b, v, u
    cdef double gain, pass_gain, total_gain = 0.0, eps = 1e-9, wh_tb, w_ts, d_ab
    slots_obj = _Slots(task_node, capacity)
    cdef _Slots slots = slots_obj
    whs_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] whs = whs_arr
    popped_arr = np.zeros(n, dtype=np.uint8)
    cdef unsigned char[::1] popped = popped_arr
    w_to_t_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] w_to_t = w_to_t_arr
    cdef priority_queue[keyed] heap
    cdef vector[long long] sources, cands, touched
    cdef vector[keyed] heaviest, partners
    cdef bint done, dense
    with nogil:
        for t in range(n):
            whs[t] = _task_wh(tptr, tadj, tw, task_node, net, t, task_node[t], -1)
        while passes < max_passes:
            passes += 1
            pass_gain = 0.0
            for t in range(n):
                popped[t] = 0
                if whs[t] > 0:
                    heap.push(keyed(whs[t], -t))
            while not heap.empty():
                t = -heap.top().second
                if heap.top().first != whs[t] or popped[t]:
                    heap.pop()
                    continue
                heap.pop()
                popped[t] = 1
                a = task_node[t]
                sources.clear()
                if max_sources > 0 and tptr[t + 1] - tptr[t] > max_sources:
                    heaviest.clear()
                    for e in range(tptr[t], tptr[t + 1]):
                        heaviest.push_back(keyed(-tw[e], tadj[e]))
                    partial_sort(heaviest.begin(), heaviest.begin() + max_sources, heaviest.end())
                    for i in range(max_sources):
                        sources.push_back(task_node[heaviest[i].second])
                else:
                    for e in range(tptr[t], tptr[t + 1]):
                        sources.push_back(task_node[tadj[e]])
                if sources.size() == 0:
                    continue
                net.level_nodes(sources, capacity, False, a, delta, cands)
                dense = max_sources > 0 and tptr[t + 1] - tptr[t] > max_sources
                for e in range(tptr[t], tptr[t + 1]):
                    w_to_t[tadj[e]] += tw[e]
                done = False
                for i in range(<Py_ssize_t> cands.size()):
                    b = cands[i]
                    wh_tb = _task_wh(tptr, tadj, tw, task_node, net, t, b, -1)
                    if slots.count[b] < capacity[b]:
                        gain = whs[t] - wh_tb
                        if gain > eps:
                            task_node[t] = b
                            slots.move(t, a, b)
                            s = -1
                            done = True
                            break
                    d_ab = net.dist(a, b)
                    partners.clear()
                    for k in range(slots.count[b]):
                        partners.push_back(keyed(-whs[slots.slots[b * slots.width + k]],
                                                 slots.slots[b * slots.width + k]))
                    if dense and <Py_ssize_t> partners.size() > max_partners:
                        # a dense task tries only the partners that lose the most where they are
                        partial_sort(partners.begin(), partners.begin() + max_partners, partners.end())
                        partners.resize(max_partners)
                        for k in range(max_partners):  # then in task order, as for a sparse task
                            partners[k] = keyed(<double> partners[k].second, partners[k].second)
                        sort(partners.begin(), partners.end())
                    for k in range(<Py_ssize_t> partners.size()):
                        s = partners[k].second
                        # swap t (a -> b) with s (b -> a); the t-s edge keeps its length d(a, b):
                        # gain = whs[t] - wh_t(b) + whs[s] - wh_s(a) - 2 W(t,s) d(a,b)
                        if whs[t] - wh_tb + whs[s] <= eps:
                            continue
                        w_ts = w_to_t[s]
                        gain = (whs[t] - wh_tb + whs[s] - _task_wh(tptr, tadj, tw, task_node, net, s, a, -1)
                                - 2.0 * w_ts * d_ab)
                        if gain > eps:
                            task_node[t] = b
                            task_node[s] = a
                            slots.swap(t, a, s, b)
                            done = True
                            break
                    if done:
                        break
                for e in range(tptr[t], tptr[t + 1]):
                    w_to_t[tadj[e]] = 0.0
                if not done:
                    continue
                moves += 1
                pass_gain += gain
                touched.clear()
                touched.push_back(t)
                if s >= 0:
                    touched.push_back(s)
                if dense:
                    # O(deg) update: a neighbour's WH changes only on its edges to t and s
                    for e in range(tptr[t], tptr[t + 1]):
                        u = tadj[e]
                        if u != s:
                            whs[u] += tw[e] * <double> (net.dist(task_node[u], b) - net.dist(task_node[u], a))
                            touched.push_back(u)
                    if s >= 0:
                        for e in range(tptr[s], tptr[s + 1]):
                            u = tadj[e]
                            if u != t:
                                whs[u] += tw[e] * <double> (net.dist(task_node[u], a) - net.dist(task_node[u], b))
                                touched.push_back(u)
                    whs[t] = _task_wh(tptr, tadj, tw, task_node, net, t, b, -1)
                    if s >= 0:
                        whs[s] = _task_wh(tptr, tadj, tw, task_node, net, s, a, -1)
                else:
                    for i in range(<Py_ssize_t> touched.size()):
                        u = touched[i]
                        for e in range(tptr[u], tptr[u + 1]):
                            touched.push_back(tadj[e])
                    for i in range(<Py_ssize_t> touched.size()):
                        u = touched[i]
                        whs[u] = _task_wh(tptr, tadj, tw, task_node, net, u, task_node[u], -1)
                for i in range(<Py_ssize_t> touched.size()):
                    u = touched[i]
                    if not popped[u] and whs[u] > 0:
                        heap.push(keyed(whs[u], -u))
            total_gain += pass_gain
            if pass_gain <= eps:
                break
    return moves, passes, total_gain


@cython.final
cdef class _LinkLoads:
    """Link loads of routed messages between items placed on nodes, updated as items move.

    One tracker at two granularities: the items are tasks (UMC / UMMC, refine_congestion:
    ``where`` is task_node, the message graph the tasks' own, Data(e) and Congestion(e)
    kept) or the task groups of whole nodes (node-swap polish, refine_node_swaps:
    ``where`` is pos, the message graph the words between groups, Data(e) only).  Data(e)
    (words) and Congestion(e) (messages, when ``msgs`` is given) of every directed link stay
    equal to a recount over all messages: relocating items removes the routes of every
    message they send or receive, changes ``where`` and adds the new routes.

    Two ways to try a relocation: ``trial`` (move, look at the hot link and the new routes'
    peak, move back: refine_congestion's) and ``swap_if_lower`` (move, compare the touched
    links' sorted objectives, keep or restore the saved first values exactly: the polish's).
    Holds the message graph (out-CSR mptr/madj/mw, in-CSR iptr/iadj/iw), ``where``, the
    network, the link bandwidths, the objective (0: Data(e)/bw(e), 1: messages), one route
    buffer, the links and shares of the last route looked up (_Net.route), the route entries
    visited (``work``) and, while ``saving``, the first value of every link touched
    (touched/saved, stamped so a link is saved once).  A cdef class, not a struct: a struct
    can hold neither memoryviews nor the _Net.
    """

    cdef const long long[::1] mptr
    cdef const long long[::1] madj
    cdef const double[::1] mw
    cdef const long long[::1] iptr
    cdef const long long[::1] iadj
    cdef const double[::1] iw
    cdef long long[::1] where
    cdef _Net net
    cdef double[::1] data
    cdef long long[::1] msgs
    cdef bint count_msgs
    cdef const double[::1] bw
    cdef int objective
    cdef long long* buf
    cdef const long long* links
    cdef const double* fractions
    cdef long long work
    cdef bint saving
    cdef long long[::1] stamp
    cdef long long cur
    cdef vector[long long] touched
    cdef vector[double] saved

    def __cinit__(self, const long long[::1] mptr, const long long[::1] madj, const double[::1] mw,
                  const long long[::1] iptr, const long long[::1] iadj, const double[::1] iw,
                  long long[::1] where, _Net net not None, double[::1] data, msgs,
                  const double[::1] bw, int objective):
        self.buf = NULL
        self.mptr = mptr
        self.madj = madj
        self.mw = mw
        self.iptr = iptr
        self.iadj = iadj
        self.iw = iw
        self.where = where
        self.net = net
        self.data = data
        self.count_msgs = msgs is not None
        self.msgs = msgs if self.count_msgs else np.zeros(0, dtype=np.int64)
        self.bw = bw
        self.objective = objective
        self.work = 0
        self.saving = False
        self.stamp = np.zeros(max(data.shape[0], 1), dtype=np.int64)
        self.cur = 0
        self.buf = net.alloc_route_buffer()
        net.check_loads(data.shape[0], self.msgs.shape[0] if self.count_msgs else -1, bw.shape[0])

    def __dealloc__(self):
        free(self.buf)

    cdef inline double obj(self, long long link) noexcept nogil:
        """The objective of one link."""
        if self.objective == 0:
            return self.data[link] / self.bw[link]
        return <double> self.msgs[link]

    cdef inline Py_ssize_t route(self, long long a, long long b) noexcept nogil:
        """Look up the route node a -> node b into ``links``/``fractions``; returns its length."""
        return self.net.route(a, b, self.buf, &self.links, &self.fractions)

    cdef inline double _load_route(self, long long a, long long b, double w, double sign,
                                   double peak) noexcept nogil:
        """Add (sign=+1) or remove (-1) one message of w words routed a -> b.

        While ``saving`` (data only), a link's value before its first change is kept.
        Returns max(peak, objective of every link of the route) when adding with ``msgs``,
        else peak.
        """
        cdef const long long* links
        cdef const double* fractions
        cdef Py_ssize_t k, h = self.net.route(a, b, self.buf, &links, &fractions)
        cdef long long link, cur = self.cur
        self.work += h
        # the granularity's branch outside the loops over the route; in both, w alone on a
        # single path: the torus mode's sums stay bit for bit what they were
        if self.saving:
            for k in range(h):
                link = links[k]
                if self.stamp[link] != cur:
                    self.stamp[link] = cur
                    self.touched.push_back(link)
                    self.saved.push_back(self.data[link])
                self.data[link] += sign * (w if fractions == NULL else w * fractions[k])
            return peak
        for k in range(h):
            link = links[k]
            self.data[link] += sign * (w if fractions == NULL else w * fractions[k])
            if self.count_msgs:
                self.msgs[link] += <long long> sign
                if sign > 0:
                    peak = max(peak, self.obj(link))
        return peak

    cdef double _load_messages(self, long long t, long long s, double sign) noexcept nogil:
        """Add (+1) or remove (-1) every message sent or received by t or s (s = -1: t only).

        A t-s message is counted once; returns the highest objective of an added link (0
        when removing, or without ``msgs``).
        """
        cdef Py_ssize_t e, j
        cdef long long x, other
        cdef long long who[2]
        cdef double peak = 0.0
        who[0] = t
        who[1] = s
        for j in range(2):
            x = who[j]
            if x < 0:
                continue
            for e in range(self.mptr[x], self.mptr[x + 1]):
                other = self.madj[e]
                if j == 1 and other == t:
                    continue
                peak = self._load_route(self.where[x], self.where[other], self.mw[e], sign, peak)
            for e in range(self.iptr[x], self.iptr[x + 1]):
                other = self.iadj[e]
                if (j == 1 and other == t) or other == x:
                    continue
                peak = self._load_route(self.where[other], self.where[x], self.iw[e], sign, peak)
        return peak

    cdef double relocate(self, long long t, long long to_t, long long s, long long to_s) noexcept nogil:
        """Move item t to node to_t and, when s >= 0, item s to node to_s; update the loads.

        Returns the highest objective on a link of the new routes (with ``msgs``).
        """
        self._load_messages(t, s, -1.0)
        self.where[t] = to_t
        if s >= 0:
            self.where[s] = to_s
        return self._load_messages(t, s, 1.0)

    cdef bint trial(self, long long t, long long s, long long b, long long hot, double m_old) noexcept nogil:
        """Would moving t to node b (and s >= 0 from b to t's node) be accepted?

        Accepted: link ``hot`` gets a lower objective and no link of the new routes reaches
        ``m_old`` (both by more than 1e-12).  Move, look, undo: the loads and the mapping
        are left as they were.
        """
        cdef long long a = self.where[t]
        cdef double hot_before = self.obj(hot)
        cdef double peak = self.relocate(t, b, s, a)
        cdef bint accepted = self.obj(hot) < hot_before - 1e-12 and peak < m_old - 1e-12
        self.relocate(t, a, s, b)
        return accepted

    cdef int swap_if_lower(self, long long x, long long y, double eps) noexcept nogil:
        """Exchange the nodes of items x and y; keep it if the touched links' loads fall.

        For a tracker of Data(e) alone (no ``msgs``: the node granularity).  Returns 1 and
        keeps the swap when the touched links' objectives Data(e)/bw(e), sorted high to low,
        are lexicographically lower than before (by more than eps at the first difference);
        else undoes it exactly (saved values restored) and returns 0.
        """
        cdef Py_ssize_t k, n
        cdef long long px = self.where[x], py = self.where[y]
        cdef vector[double] before, after
        self.cur += 1
        self.touched.clear()
        self.saved.clear()
        self.saving = True
        self.relocate(x, py, y, px)
        self.saving = False
        n = <Py_ssize_t> self.touched.size()
        for k in range(n):
            before.push_back(self.saved[k] / self.bw[self.touched[k]])
            after.push_back(self.data[self.touched[k]] / self.bw[self.touched[k]])
        sort(before.begin(), before.end())
        sort(after.begin(), after.end())
        for k in range(n - 1, -1, -1):  # highest first
            if after[k] < before[k] - eps:
                return 1
            if after[k] > before[k] + eps:
                break
        for k in range(n):
            self.data[self.touched[k]] = self.saved[k]
        self.where[x] = px
        self.where[y] = py
        return 0


def link_loads_nodes(const long long[::1] mptr, const long long[::1] madj, const double[::1] mw,
                     const long long[::1] task_node, _Net net not None, double[::1] data, long long[::1] msgs):
    """Accumulate the loads of all directed messages (node-level routes) from scratch.

    A message of w words adds w times its share to Data(e) and 1 to Congestion(e) of every
    link of its route (_Net.route; shares are 1.0 in torus mode).
    """
    cdef Py_ssize_t t, e, h, k
    cdef const long long* links
    cdef const double* fractions
    cdef long long* buf = net.alloc_route_buffer()
    try:
        net.check_loads(data.shape[0], msgs.shape[0])
        with nogil:
            for t in range(mptr.shape[0] - 1):
                for e in range(mptr[t], mptr[t + 1]):
                    h = net.route(task_node[t], task_node[madj[e]], buf, &links, &fractions)
                    for k in range(h):
                        data[links[k]] += mw[e] if fractions == NULL else mw[e] * fractions[k]
                        msgs[links[k]] += 1
    finally:
        free(buf)


cdef object _check_rows(const long long[:, ::1] rows):
    """Rows (t, s) or (t, s, b) of the test hooks; a move (s = -1) needs b."""
    if rows.shape[0] > 0 and not 2 <= rows.shape[1] <= 3:
        raise ValueError(f"rows: expected (t, s) or (t, s, b); got {rows.shape[1]} columns")
    if rows.shape[0] > 0 and rows.shape[1] == 2 and np.min(np.asarray(rows)[:, 1]) < 0:
        raise ValueError("rows: a move (s = -1) needs the target node in a third column")


def apply_swaps_incrementally(const long long[::1] mptr, const long long[::1] madj, const double[::1] mw,
                              const long long[::1] iptr, const long long[::1] iadj, const double[::1] iw,
                              long long[::1] task_node, _Net net not None, const long long[:, ::1] swaps,
                              double[::1] data, long long[::1] msgs, const double[::1] bw):
    """Test hook: relocate tasks with the incremental link-load updates of refine_congestion.

    Row i of ``swaps`` is (t, s) or (t, s, b): s >= 0 swaps tasks t and s (b is ignored);
    s = -1 moves t to node b.  Every row is first tried and undone (the refinement's trial),
    then applied.  Indices and node capacities are not checked.
    """
    cdef Py_ssize_t i
    cdef long long t, s, a, b
    _check_rows(swaps)
    cdef _LinkLoads loads = _LinkLoads(mptr, madj, mw, iptr, iadj, iw, task_node, net, data, msgs, bw, 0)
    with nogil:
        for i in range(swaps.shape[0]):
            t = swaps[i, 0]
            s = swaps[i, 1]
            a = task_node[t]
            b = task_node[s] if s >= 0 else swaps[i, 2]
            loads.trial(t, s, b, 0, 1e300)
            loads.relocate(t, b, s, a)


def trial_relocations(const long long[::1] mptr, const long long[::1] madj, const double[::1] mw,
                      const long long[::1] iptr, const long long[::1] iadj, const double[::1] iw,
                      long long[::1] task_node, _Net net not None, const long long[:, ::1] rows,
                      double[::1] data, long long[::1] msgs, const double[::1] bw, int objective,
                      long long hot, double m_old):
    """Test hook: refine_congestion's trial of every row, nothing applied; returns accepted (uint8).

    Rows as in :func:`apply_swaps_incrementally`.  Row i is accepted when the relocation
    lowers link ``hot`` and no link of the relocated tasks' new routes reaches ``m_old``.
    """
    cdef Py_ssize_t i
    cdef long long t, s
    _check_rows(rows)
    accepted_arr = np.zeros(rows.shape[0], dtype=np.uint8)
    cdef unsigned char[::1] accepted = accepted_arr
    cdef _LinkLoads loads = _LinkLoads(mptr, madj, mw, iptr, iadj, iw, task_node, net, data, msgs, bw, objective)
    with nogil:
        for i in range(rows.shape[0]):
            t = rows[i, 0]
            s = rows[i, 1]
            accepted[i] = loads.trial(t, s, task_node[s] if s >= 0 else rows[i, 2], hot, m_old)
    return accepted_arr


def refine_congestion(const long long[::1] mptr, const long long[::1] madj, const double[::1] mw,
                      const long long[::1] iptr, const long long[::1] iadj, const double[::1] iw,
                      const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
                      const long long[::1] capacity, _Net net not None, const double[::1] bw, int objective,
                      int delta, int max_candidates, int max_iter, long long[::1] task_node,
                      double[::1] data, long long[::1] msgs):
    """Lower the max link objective (0: Latency(M), 1: MMC) by swaps; returns (iterations, swaps).

    A swap is accepted when the hottest link's objective drops and no link it touches
    reaches the old maximum; among accepted swaps of a candidate task the smallest WH
    increase wins.  (max, number of links at max) decreases strictly, so it terminates.
    """
    cdef Py_ssize_t n = tptr.shape[0] - 1, n_links = data.shape[0]
    cdef Py_ssize_t it = 0, n_swaps = 0, e, h, k, i, c, q
    cdef long long hot, t, s, a, b, best_s, best_b
    cdef double m_old, val, d_wh, best_dwh
    cdef bint any_swap
    cdef _LinkLoads loads = _LinkLoads(mptr, madj, mw, iptr, iadj, iw, task_node, net, data, msgs, bw, objective)
    cvol_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] cvol = cvol_arr
    slots_obj = _Slots(task_node, capacity)
    cdef _Slots slots = slots_obj
    cdef vector[long long] cand_tasks, sources, near
    cdef vector[keyed] ranked
    with nogil:
        while it < max_iter:
            it += 1
            hot = 0
            m_old = loads.obj(0)
            for e in range(1, n_links):
                val = loads.obj(e)
                if val > m_old:
                    m_old = val
                    hot = e
            if m_old <= 0:
                break
            # tasks whose messages cross the hottest link, heaviest first
            cand_tasks.clear()
            for t in range(n):
                for e in range(mptr[t], mptr[t + 1]):
                    h = loads.route(task_node[t], task_node[madj[e]])
                    for k in range(h):
                        if loads.links[k] == hot:
                            if cvol[t] == 0:
                                cand_tasks.push_back(t)
                            cvol[t] += mw[e]
                            if cvol[madj[e]] == 0:
                                cand_tasks.push_back(madj[e])
                            cvol[madj[e]] += mw[e]
                            break
            ranked.clear()
            for i in range(<Py_ssize_t> cand_tasks.size()):
                ranked.push_back(keyed(-cvol[cand_tasks[i]], cand_tasks[i]))
                cvol[cand_tasks[i]] = 0
            sort(ranked.begin(), ranked.end())
            any_swap = False
            for c in range(min(<Py_ssize_t> ranked.size(), <Py_ssize_t> max_candidates)):
                t = ranked[c].second
                a = task_node[t]
                sources.clear()
                for e in range(tptr[t], tptr[t + 1]):
                    sources.push_back(task_node[tadj[e]])
                sources.push_back(a)
                net.level_nodes(sources, capacity, False, a, delta, near)
                best_s = -2
                best_b = -1
                best_dwh = 0.0
                for i in range(<Py_ssize_t> near.size()):
                    b = near[i]
                    for q in range(slots.count[b] + (1 if slots.count[b] < capacity[b] else 0)):
                        s = slots.slots[b * slots.width + q] if q < slots.count[b] else -1
                        if s >= 0:
                            d_wh = (_task_wh(tptr, tadj, tw, task_node, net, t, b, s)
                                    - _task_wh(tptr, tadj, tw, task_node, net, t, a, s)
                                    + _task_wh(tptr, tadj, tw, task_node, net, s, a, t)
                                    - _task_wh(tptr, tadj, tw, task_node, net, s, b, t))
                        else:
                            d_wh = (_task_wh(tptr, tadj, tw, task_node, net, t, b, -1)
                                    - _task_wh(tptr, tadj, tw, task_node, net, t, a, -1))
                        if best_s != -2 and d_wh >= best_dwh:
                            continue
                        if loads.trial(t, s, b, hot, m_old):
                            best_s = s
                            best_b = b
                            best_dwh = d_wh
                if best_s != -2:
                    s = best_s
                    b = best_b
                    loads.relocate(t, b, s, a)
                    if s >= 0:
                        slots.swap(t, a, s, b)
                    else:
                        slots.move(t, a, b)
                    n_swaps += 1
                    any_swap = True
                    break
            if not any_swap:
                break
    return it, n_swaps


def refine_node_swaps(const long long[::1] cptr, const long long[::1] cadj, const double[::1] cw,
                      const long long[::1] rptr, const long long[::1] radj, const double[::1] rw,
                      const long long[::1] load, const long long[::1] capacity, _Net net not None,
                      const double[::1] bw, long long[::1] pos, double[::1] data, long long max_passes,
                      long long max_work):
    """Swap whole nodes' tasks while the link loads fall lexicographically (node-swap polish).

    Contents are the start's nodes (0 .. n_nodes-1) with their tasks; content c sits on node
    pos[c] (a permutation, updated in place) and carries load[c] tasks; the content graph
    holds the words between different contents (out-CSR cptr/cadj/cw, in-CSR rptr/radj/rw).
    data is Data(e) of every link for pos, kept up to date.  A pass takes the nodes hottest
    first (the highest Data(e)/bw(e) on a route of their content; ties: lower node) and, for
    each, tries every other node in index order: the swap is kept when the multiset of link
    objectives falls lexicographically (_LinkLoads.swap_if_lower: only the touched links can differ)
    and both contents fit their new nodes.  Passes stop when one keeps no swap, after
    max_passes, or once max_work route entries have been visited (a deterministic budget).
    Returns (passes, swaps, work).  O(passes * n_nodes**2 * (deg * hops + touched log touched)).
    """
    cdef Py_ssize_t n = pos.shape[0], i, e, k, h
    cdef long long a, b, x, y, passes = 0, swaps = 0, kept
    cdef double top, eps, heat
    cdef _LinkLoads loads
    cdef long long[::1] at = np.empty(n, dtype=np.int64)
    cdef vector[keyed] order
    cdef bint stop = False
    if capacity.shape[0] != n or load.shape[0] != n or cptr.shape[0] != n + 1 or rptr.shape[0] != n + 1:
        raise ValueError(f"refine_node_swaps: pos, load and capacity need one entry a node and the CSRs n + 1 ({n})")
    loads = _LinkLoads(cptr, cadj, cw, rptr, radj, rw, pos, net, data, None, bw, 0)
    for i in range(n):
        at[pos[i]] = i
    with nogil:
        while passes < max_passes and not stop:
            passes += 1
            kept = 0
            top = 0.0
            for e in range(data.shape[0]):
                top = max(top, data[e] / bw[e])
            eps = 1e-9 * top
            order.clear()
            for x in range(n):
                heat = 0.0
                for e in range(cptr[x], cptr[x + 1]):
                    h = loads.route(pos[x], pos[cadj[e]])
                    for k in range(h):
                        heat = max(heat, data[loads.links[k]] / bw[loads.links[k]])
                for e in range(rptr[x], rptr[x + 1]):
                    h = loads.route(pos[radj[e]], pos[x])
                    for k in range(h):
                        heat = max(heat, data[loads.links[k]] / bw[loads.links[k]])
                order.push_back(keyed(-heat, pos[x]))
            sort(order.begin(), order.end())
            for i in range(n):
                a = order[i].second
                for b in range(n):
                    if b == a:
                        continue
                    x = at[a]
                    y = at[b]
                    if load[x] > capacity[b] or load[y] > capacity[a]:
                        continue
                    if cptr[x] == cptr[x + 1] and rptr[x] == rptr[x + 1] and cptr[y] == cptr[y + 1] \
                            and rptr[y] == rptr[y + 1]:
                        continue
                    if loads.swap_if_lower(x, y, eps):
                        at[a] = y
                        at[b] = x
                        kept += 1
                    if loads.work >= max_work:
                        stop = True
                        break
                if stop:
                    break
            swaps += kept
            if kept == 0:
                break
    return passes, swaps, loads.work


def node_assignment_wh(const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
                       _Net net not None, const long long[::1] task_node):
    """Weighted hops of a node assignment on the undirected graph (each edge counted once)."""
    cdef Py_ssize_t t, e
    cdef double s = 0.0
    with nogil:
        for t in range(tptr.shape[0] - 1):
            for e in range(tptr[t], tptr[t + 1]):
                if tadj[e] > t:
                    s += tw[e] * net.dist(task_node[t], task_node[tadj[e]])
    return s


def grow_parts(const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
               const long long[::1] sizes, long long[::1] parts):
    """Greedy graph growing into parts of exactly ``sizes`` tasks (deterministic).

    Part p is grown from the unassigned task most connected to the previous part (else
    the lowest unassigned task) by repeatedly adding the unassigned task with the most
    volume to part p (ties: lowest task).
    """
    cdef Py_ssize_t n = tptr.shape[0] - 1, k = sizes.shape[0]
    cdef Py_ssize_t p, e, i, count, scan = 0
    cdef long long t, u, seed
    cdef double c
    conn_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] conn = conn_arr
    cdef priority_queue[keyed] heap, prev
    cdef vector[long long] touched
    with nogil:
        for t in range(n):
            parts[t] = -1
        for p in range(k):
            if sizes[p] == 0:
                continue
            seed = -1
            while not prev.empty():
                u = -prev.top().second
                prev.pop()
                if parts[u] < 0:
                    seed = u
                    break
            while not heap.empty():
                heap.pop()
            for i in range(<Py_ssize_t> touched.size()):
                conn[touched[i]] = 0
            touched.clear()
            count = 0
            while count < sizes[p]:
                t = -1
                while not heap.empty():
                    c = heap.top().first
                    u = -heap.top().second
                    heap.pop()
                    if parts[u] < 0 and c == conn[u]:
                        t = u
                        break
                if t < 0:
                    if seed >= 0 and parts[seed] < 0:
                        t = seed
                    else:
                        while scan < n and parts[scan] >= 0:
                            scan += 1
                        t = scan
                parts[t] = p
                count += 1
                for e in range(tptr[t], tptr[t + 1]):
                    u = tadj[e]
                    if parts[u] < 0:
                        if conn[u] == 0:
                            touched.push_back(u)
                        conn[u] += tw[e]
                        heap.push(keyed(conn[u], -u))
            # the frontier of this part seeds the next one
            while not prev.empty():
                prev.pop()
            while not heap.empty():
                prev.push(heap.top())
                heap.pop()


# ------------------------------------------------------------------ recursive bisection
# One job of the dual recursive bisection (mappers/bisection.py): split the tasks of one
# processor domain between its two sub-domains (representative nodes rep0, rep1) so that
#     cost = d(rep0, rep1) * W(cut) + sum_t ext_side(t)(t)
# is small, where ext_s(t) = sum over t's neighbours u outside the job of
# W(t,u) * d(rep_s, dom_rep[task_dom[u]]) (the pull of the already placed neighbours).
# Greedy graph growing (one run per seed) then Fiduccia-Mattheyses passes with a balance
# window; the best of the tries wins (ties: the earlier try).


cdef inline void _leave_side(int s, double w, double* c_to0, double* c_to1) noexcept nogil:
    """A neighbour of weight ``w`` left side ``s``: its pull towards ``s`` drops, towards the other rises."""
    if s == 0:
        c_to0[0] -= w
        c_to1[0] += w
    else:
        c_to1[0] -= w
        c_to0[0] += w


cdef inline double _fm_gain(int s, double e0, double e1, double c0, double c1, double d01) noexcept nogil:
    """Cost decrease of moving a task from side s to the other side."""
    if s == 0:
        return e0 - e1 + d01 * (c1 - c0)
    return e1 - e0 + d01 * (c0 - c1)


cdef long long _fill_side(Py_ssize_t k, const long long* lptr, const long long* ladj, const double* lw,
                          const long long* vw, const double* ext0, const double* ext1, double d01, int src,
                          long long count, long long seed, unsigned char* side, double* c0, double* c1,
                          double* cost) noexcept nogil:
    """Move tasks of total weight ``count`` (or just over) from side ``src`` to the other, each
    time the one of largest gain (ties: lower task), the seed first when given; returns the
    weight moved (vw NULL: unit weights)."""
    cdef Py_ssize_t i, e, j
    cdef long long u, done = 0
    cdef double g
    cdef priority_queue[keyed] heap
    if count <= 0:
        return 0
    for i in range(k):
        if side[i] == src:
            heap.push(keyed(_fm_gain(src, ext0[i], ext1[i], c0[i], c1[i], d01), -i))
    while done < count:
        i = -1
        if done == 0 and seed >= 0 and side[seed] == src:
            i = seed
        else:
            while not heap.empty():
                j = -heap.top().second
                g = heap.top().first
                heap.pop()
                if side[j] == src and g == _fm_gain(src, ext0[j], ext1[j], c0[j], c1[j], d01):
                    i = j
                    break
        if i < 0:
            break
        cost[0] -= _fm_gain(src, ext0[i], ext1[i], c0[i], c1[i], d01)
        side[i] = 1 - src
        done += 1 if vw == NULL else vw[i]
        for e in range(lptr[i], lptr[i + 1]):
            u = ladj[e]
            _leave_side(src, lw[e], &c0[u], &c1[u])
            if side[u] == src:
                heap.push(keyed(_fm_gain(src, ext0[u], ext1[u], c0[u], c1[u], d01), -u))
    return done


cdef double _bisect_try(Py_ssize_t k, const long long* lptr, const long long* ladj, const double* lw,
                        const long long* vw, const double* ext0, const double* ext1, double d01, long long seed,
                        const unsigned char* start, long long lo, long long hi, long long target,
                        int max_passes, unsigned char* side, double* c0, double* c1, unsigned char* locked,
                        long long* moved) noexcept nogil:
    """One start + FM run; leaves the sides in ``side``, returns the cost.

    The start is greedy growth of side 0 from ``seed`` up to ``target`` tasks when ``start``
    is NULL; otherwise the given sides, brought into [lo, hi] by greedy moves.  Sizes are
    total vertex weights (vw NULL: one per task).
    """
    cdef Py_ssize_t i, e, j, n_moves, best_moves, since
    cdef long long size0 = 0, u, lo_w, hi_w, slack, total = 0, wmax = 1, wi
    cdef double cost = 0.0, g, best_cost, pass_start, ga, gb
    cdef int s, pas
    cdef priority_queue[keyed] h0, h1
    cdef bint ok0, ok1
    for i in range(k):
        wi = 1 if vw == NULL else vw[i]
        total += wi
        wmax = max(wmax, wi)
        side[i] = 1 if start == NULL else start[i]
        if side[i] == 0:
            size0 += wi
    for i in range(k):
        c0[i] = 0.0
        c1[i] = 0.0
        for e in range(lptr[i], lptr[i + 1]):
            if side[ladj[e]] == 0:
                c0[i] += lw[e]
            else:
                c1[i] += lw[e]
        if side[i] == 0:
            cost += ext0[i] + 0.5 * d01 * c1[i]
        else:
            cost += ext1[i] + 0.5 * d01 * c0[i]
    if start == NULL:
        size0 += _fill_side(k, lptr, ladj, lw, vw, ext0, ext1, d01, 1, target - size0, seed, side, c0, c1, &cost)
    elif size0 > hi:
        size0 -= _fill_side(k, lptr, ladj, lw, vw, ext0, ext1, d01, 0, size0 - hi, -1, side, c0, c1, &cost)
    elif size0 < lo:
        size0 += _fill_side(k, lptr, ladj, lw, vw, ext0, ext1, d01, 1, lo - size0, -1, side, c0, c1, &cost)
    # FM passes
    slack = max(wmax, total // 64)
    lo_w = max(0, min(lo, target) - slack)
    hi_w = min(total, max(hi, target) + slack)
    for pas in range(max_passes):
        pass_start = cost
        best_cost = cost
        best_moves = 0
        n_moves = 0
        since = 0
        while not h0.empty():
            h0.pop()
        while not h1.empty():
            h1.pop()
        for i in range(k):
            locked[i] = 0
            g = _fm_gain(side[i], ext0[i], ext1[i], c0[i], c1[i], d01)
            if side[i] == 0:
                h0.push(keyed(g, -i))
            else:
                h1.push(keyed(g, -i))
        while since < max(32, k // 16):
            # clean stale tops
            while not h0.empty():
                j = -h0.top().second
                if locked[j] or side[j] != 0 or h0.top().first != _fm_gain(0, ext0[j], ext1[j], c0[j], c1[j], d01):
                    h0.pop()
                else:
                    break
            while not h1.empty():
                j = -h1.top().second
                if locked[j] or side[j] != 1 or h1.top().first != _fm_gain(1, ext0[j], ext1[j], c0[j], c1[j], d01):
                    h1.pop()
                else:
                    break
            ok0 = not h0.empty() and size0 - (1 if vw == NULL else vw[-h0.top().second]) >= lo_w
            ok1 = not h1.empty() and size0 + (1 if vw == NULL else vw[-h1.top().second]) <= hi_w
            if not ok0 and not ok1:
                break
            if ok0 and ok1:
                ga = h0.top().first
                gb = h1.top().first
                if ga > gb or (ga == gb and size0 > target) or (ga == gb and size0 == target
                                                                and -h0.top().second < -h1.top().second):
                    s = 0
                else:
                    s = 1
            else:
                s = 0 if ok0 else 1
            if s == 0:
                i = -h0.top().second
                g = h0.top().first
                h0.pop()
            else:
                i = -h1.top().second
                g = h1.top().first
                h1.pop()
            locked[i] = 1
            side[i] = 1 - s
            size0 += (1 if vw == NULL else vw[i]) * (1 if s == 1 else -1)
            cost -= g
            moved[n_moves] = i
            n_moves += 1
            for e in range(lptr[i], lptr[i + 1]):
                u = ladj[e]
                _leave_side(s, lw[e], &c0[u], &c1[u])
                if not locked[u]:
                    if side[u] == 0:
                        h0.push(keyed(_fm_gain(0, ext0[u], ext1[u], c0[u], c1[u], d01), -u))
                    else:
                        h1.push(keyed(_fm_gain(1, ext0[u], ext1[u], c0[u], c1[u], d01), -u))
            if lo <= size0 <= hi and cost < best_cost - 1e-9 * (1.0 + best_cost):
                best_cost = cost
                best_moves = n_moves
                since = 0
            else:
                since += 1
        # roll back to the best prefix
        while n_moves > best_moves:
            n_moves -= 1
            i = moved[n_moves]
            s = side[i]
            side[i] = 1 - s
            size0 += (1 if vw == NULL else vw[i]) * (1 if s == 1 else -1)
            for e in range(lptr[i], lptr[i + 1]):
                u = ladj[e]
                _leave_side(s, lw[e], &c0[u], &c1[u])
        cost = best_cost
        if pass_start - cost <= 1e-9 * (1.0 + pass_start):
            break
    return cost


cdef long long _bfs_far(Py_ssize_t n, const long long* ptr, const long long* adj, long long a,
                        long long* level, vector[long long]& queue) noexcept nogil:
    """The vertex farthest (BFS) from ``a`` in its component, ties: lowest index."""
    cdef Py_ssize_t i, head = 0, e
    cdef long long u, best = a
    for i in range(n):
        level[i] = -1
    queue.clear()
    queue.push_back(a)
    level[a] = 0
    while head < <Py_ssize_t> queue.size():
        u = queue[head]
        head += 1
        for e in range(ptr[u], ptr[u + 1]):
            if level[adj[e]] < 0:
                level[adj[e]] = level[u] + 1
                queue.push_back(adj[e])
    for i in range(n):
        if level[i] > level[best] or (level[i] == level[best] and i < best):
            best = i
    return best


cdef void _multilevel_start(Py_ssize_t k, const long long* lptr, const long long* ladj, const double* lw,
                            const double* ext0, const double* ext1, double d01, long long lo, long long hi,
                            long long target, int max_passes, unsigned char* out) noexcept nogil:
    """Multilevel bisection: heavy-edge matching down to <= 64 vertices, two greedy growths on
    the coarsest graph, then projection with FM at every level; the sides go to ``out``."""
    cdef vector[vector[long long]] ptrs, adjs, vws, cmaps
    cdef vector[vector[double]] ws, e0s, e1s
    cdef vector[long long] cmap, first, second, marker, cptr, cadj, cvw, queue, lev, moved
    cdef vector[double] cw, ce0, ce1, c0, c1
    cdef vector[unsigned char] side, best_side, locked, proj
    cdef Py_ssize_t n = k, v, e, c, m, L, i
    cdef long long u, best, nc, st, cu, seed, wmax, total, lo_c, hi_c
    cdef double bw, cost, best_cost = 0.0
    cdef int r
    # level 0 = the job's graph, unit vertex weights
    cptr.clear()
    for v in range(k + 1):
        cptr.push_back(lptr[v])
    ptrs.push_back(cptr)
    cadj.clear()
    cw.clear()
    for e in range(lptr[k]):
        cadj.push_back(ladj[e])
        cw.push_back(lw[e])
    adjs.push_back(cadj)
    ws.push_back(cw)
    cvw.assign(k, 1)
    vws.push_back(cvw)
    ce0.clear()
    ce1.clear()
    for v in range(k):
        ce0.push_back(ext0[v])
        ce1.push_back(ext1[v])
    e0s.push_back(ce0)
    e1s.push_back(ce1)
    while n > 64:
        L = ptrs.size() - 1
        cmap.assign(n, -1)
        first.clear()
        second.clear()
        nc = 0
        for v in range(n):
            if cmap[v] >= 0:
                continue
            best = -1
            bw = -1.0
            for e in range(ptrs[L][v], ptrs[L][v + 1]):
                u = adjs[L][e]
                if u != v and cmap[u] < 0 and (ws[L][e] > bw or (ws[L][e] == bw and u < best)):
                    best = u
                    bw = ws[L][e]
            cmap[v] = nc
            if best >= 0:
                cmap[best] = nc
            first.push_back(v)
            second.push_back(best)
            nc += 1
        if nc * 10 > n * 9:
            break
        cptr.assign(1, 0)
        cadj.clear()
        cw.clear()
        cvw.assign(nc, 0)
        ce0.assign(nc, 0.0)
        ce1.assign(nc, 0.0)
        marker.assign(nc, -1)
        for c in range(nc):
            st = cadj.size()
            for m in range(2):
                v = first[c] if m == 0 else second[c]
                if v < 0:
                    continue
                cvw[c] += vws[L][v]
                ce0[c] += e0s[L][v]
                ce1[c] += e1s[L][v]
                for e in range(ptrs[L][v], ptrs[L][v + 1]):
                    cu = cmap[adjs[L][e]]
                    if cu == c:
                        continue
                    if marker[cu] < st:
                        marker[cu] = cadj.size()
                        cadj.push_back(cu)
                        cw.push_back(ws[L][e])
                    else:
                        cw[marker[cu]] += ws[L][e]
            cptr.push_back(cadj.size())
        cmaps.push_back(cmap)
        ptrs.push_back(cptr)
        adjs.push_back(cadj)
        ws.push_back(cw)
        vws.push_back(cvw)
        e0s.push_back(ce0)
        e1s.push_back(ce1)
        n = nc
    # the coarsest graph: growth from the hardest pull to side 0 and from a BFS end
    L = ptrs.size() - 1
    n = vws[L].size()
    c0.assign(k, 0.0)
    c1.assign(k, 0.0)
    side.assign(k, 0)
    best_side.assign(k, 0)
    locked.assign(k, 0)
    moved.assign(k + 1, 0)
    lev.assign(k, 0)
    wmax = 1
    total = 0
    for v in range(n):
        wmax = max(wmax, vws[L][v])
        total += vws[L][v]
    lo_c = max(0, lo - wmax) if L > 0 else lo
    hi_c = min(total, hi + wmax) if L > 0 else hi
    seed = 0
    for v in range(1, n):
        if e1s[L][v] - e0s[L][v] > e1s[L][seed] - e0s[L][seed]:
            seed = v
    for r in range(2):
        if r == 1:
            seed = _bfs_far(n, ptrs[L].data(), adjs[L].data(), 0, lev.data(), queue)
        cost = _bisect_try(n, ptrs[L].data(), adjs[L].data(), ws[L].data(), vws[L].data(), e0s[L].data(),
                           e1s[L].data(), d01, seed, NULL, lo_c, hi_c, target, max_passes, side.data(),
                           c0.data(), c1.data(), locked.data(), moved.data())
        if r == 0 or cost < best_cost - 1e-9 * (1.0 + best_cost):
            best_cost = cost
            for v in range(n):
                best_side[v] = side[v]
    # project and refine level by level
    while L > 0:
        L -= 1
        n = vws[L].size()
        proj.assign(n, 0)
        for v in range(n):
            proj[v] = best_side[cmaps[L][v]]
        wmax = 1
        total = 0
        for v in range(n):
            wmax = max(wmax, vws[L][v])
            total += vws[L][v]
        lo_c = max(0, lo - wmax) if L > 0 else lo
        hi_c = min(total, hi + wmax) if L > 0 else hi
        _bisect_try(n, ptrs[L].data(), adjs[L].data(), ws[L].data(), vws[L].data(), e0s[L].data(),
                    e1s[L].data(), d01, -1, proj.data(), lo_c, hi_c, target, max_passes, side.data(),
                    c0.data(), c1.data(), locked.data(), moved.data())
        for v in range(n):
            best_side[v] = side[v]
    for v in range(k):
        out[v] = best_side[v]


def bisect_tasks(const long long[::1] tptr, const long long[::1] tadj, const double[::1] tw,
                 _Net net not None, const long long[::1] tasks, const long long[::1] task_dom,
                 const long long[::1] dom_rep, long long rep0, long long rep1, long long lo, long long hi,
                 long long target, int n_tries, int max_passes, long long[::1] loc,
                 unsigned char[::1] side_out, const unsigned char[::1] start=None, bint multilevel=False):
    """Split ``tasks`` into side 0 (rep0) and side 1 (rep1) with lo <= |side 0| <= hi; returns the cost.

    ``loc`` is scratch of n_tasks entries, all -1 on entry (and again on return).  Tries:
    growth from the task pulled hardest towards side 0, then from the two ends of a BFS
    diameter sweep of the job's subgraph (from its first task); ``n_tries`` of them.  With
    ``start`` (one side per task, e.g. a METIS bisection), one more try starts from it; with
    ``multilevel``, one more from a multilevel bisection (heavy-edge matching coarsening).
    """
    cdef Py_ssize_t k = tasks.shape[0], i, e, m = 0, head, r
    cdef long long t, u, a, seed
    cdef double d01, cost, best = 0.0, pull, best_pull
    if k == 0:
        return 0.0
    if not (0 <= lo <= target <= hi <= k):
        raise ValueError(f"bisect_tasks: need 0 <= lo <= target <= hi <= {k}; got {lo}, {target}, {hi}")
    lptr_v = np.zeros(k + 1, dtype=np.int64)
    cdef long long[::1] lptr = lptr_v
    ext_v = np.zeros((2, k), dtype=np.float64)
    cdef double[:, ::1] ext = ext_v
    work_v = np.zeros((2, k), dtype=np.float64)
    cdef double[:, ::1] work = work_v
    flags_v = np.zeros((3, k), dtype=np.uint8)
    cdef unsigned char[:, ::1] flags = flags_v
    moved_v = np.zeros(k + 1, dtype=np.int64)
    cdef long long[::1] moved = moved_v
    level_v = np.full(k, -1, dtype=np.int64)
    cdef long long[::1] level = level_v
    cdef vector[long long] ladj, queue, seeds
    cdef vector[double] lw
    cdef const unsigned char* start_ptr = NULL
    ml_v = np.zeros(k if multilevel else 0, dtype=np.uint8)
    cdef unsigned char[::1] ml_side = ml_v
    if start is not None:
        if start.shape[0] != k:
            raise ValueError(f"bisect_tasks: start has {start.shape[0]} entries for {k} tasks")
        start_ptr = &start[0]
    with nogil:
        for i in range(k):
            loc[tasks[i]] = i
        d01 = <double> net.dist(rep0, rep1)
        if d01 < 1.0:
            d01 = 1.0
        for i in range(k):
            t = tasks[i]
            for e in range(tptr[t], tptr[t + 1]):
                u = tadj[e]
                if loc[u] >= 0:
                    ladj.push_back(loc[u])
                    lw.push_back(tw[e])
                else:
                    a = dom_rep[task_dom[u]]
                    ext[0, i] += tw[e] * net.dist(rep0, a)
                    ext[1, i] += tw[e] * net.dist(rep1, a)
            lptr[i + 1] = <long long> ladj.size()
        # seeds: the hardest pull towards side 0, then a BFS diameter sweep
        seed = 0
        best_pull = ext[1, 0] - ext[0, 0]
        for i in range(1, k):
            pull = ext[1, i] - ext[0, i]
            if pull > best_pull:
                best_pull = pull
                seed = i
        seeds.push_back(seed)
        a = 0
        for r in range(2):
            a = _bfs_far(k, &lptr[0], ladj.data(), a, &level[0], queue)
            seeds.push_back(a)
        for r in range(min(<Py_ssize_t> n_tries, <Py_ssize_t> seeds.size()) + (1 if start_ptr != NULL else 0)):
            if r < n_tries and r < <Py_ssize_t> seeds.size():
                cost = _bisect_try(k, &lptr[0], ladj.data(), lw.data(), NULL, &ext[0, 0], &ext[1, 0], d01, seeds[r],
                                   NULL, lo, hi, target, max_passes, &flags[0, 0], &work[0, 0], &work[1, 0],
                                   &flags[1, 0], &moved[0])
            else:
                cost = _bisect_try(k, &lptr[0], ladj.data(), lw.data(), NULL, &ext[0, 0], &ext[1, 0], d01, -1,
                                   start_ptr, lo, hi, target, max_passes, &flags[0, 0], &work[0, 0],
                                   &work[1, 0], &flags[1, 0], &moved[0])
            if r == 0 or cost < best - 1e-9 * (1.0 + best):
                best = cost
                for i in range(k):
                    flags[2, i] = flags[0, i]
        if multilevel:
            _multilevel_start(k, &lptr[0], ladj.data(), lw.data(), &ext[0, 0], &ext[1, 0], d01, lo, hi, target,
                              max_passes, &ml_side[0])
            cost = _bisect_try(k, &lptr[0], ladj.data(), lw.data(), NULL, &ext[0, 0], &ext[1, 0], d01, -1,
                               &ml_side[0], lo, hi, target, max_passes, &flags[0, 0], &work[0, 0],
                               &work[1, 0], &flags[1, 0], &moved[0])
            if cost < best - 1e-9 * (1.0 + best):
                best = cost
                for i in range(k):
                    flags[2, i] = flags[0, i]
        for i in range(k):
            side_out[i] = flags[2, i]
            loc[tasks[i]] = -1
    return best


def torus_tree(const coord_t[:, ::1] coords, const long long[::1] dims, const unsigned char[::1] wrap,
               const long long[::1] cap, long long[:, ::1] children, long long[::1] node,
               long long[::1] capacity, long long[::1] rep):
    """Recursive geometric bisection of the nodes of a torus (mappers/bisection.processor_tree).

    Node v sits at router ``coords[v]`` with ``cap[v]`` processors.  Domain 0 holds every node;
    domains are numbered breadth first.  A domain of one node is a leaf (``node`` = it).
    Otherwise: per dimension the extent of its routers (on a wrapping dimension the span that
    leaves out the largest gap between occupied coordinates, the first such gap on ties), the
    nodes ordered along the longest extent (ties: lowest dimension) by (position along it,
    then the other dimensions' positions in dimension order, then node index), cut after the
    prefix whose capacity is closest to half (ties: the shorter prefix).  ``rep`` = the node
    nearest the span's centre (ties: lowest node index).  Outputs have 2 n - 1 rows.
    """
    cdef Py_ssize_t n = coords.shape[0], d = coords.shape[1]
    cdef Py_ssize_t dom, next_id = 1, i, j, k, kbest, s, e, size, m, cut
    cdef long long total, acc, best_diff, diff, key, v, length, gap, best_gap, c
    cdef double dist, best_dist, x
    perm_arr = np.arange(n, dtype=np.int64)
    cdef long long[::1] perm = perm_arr
    lo_arr = np.zeros(2 * n, dtype=np.int64)
    cdef long long[::1] dom_lo = lo_arr
    hi_arr = np.zeros(2 * n, dtype=np.int64)
    cdef long long[::1] dom_hi = hi_arr
    ext_arr = np.zeros(d, dtype=np.int64)
    cdef long long[::1] ext = ext_arr
    start_arr = np.zeros(d, dtype=np.int64)
    cdef long long[::1] start = start_arr
    centre_arr = np.zeros(d, dtype=np.float64)
    cdef double[::1] centre = centre_arr
    cdef vector[long long] vals, keys
    if n == 0:
        return
    dom_lo[0] = 0
    dom_hi[0] = n
    with nogil:
        dom = 0
        while dom < next_id:
            s = dom_lo[dom]
            e = dom_hi[dom]
            size = e - s
            total = 0
            for i in range(s, e):
                total += cap[perm[i]]
            capacity[dom] = total
            children[dom, 0] = -1
            children[dom, 1] = -1
            if size == 1:
                node[dom] = perm[s]
                rep[dom] = perm[s]
                dom += 1
                continue
            node[dom] = -1
            for k in range(d):
                length = dims[k]
                vals.clear()
                for i in range(s, e):
                    vals.push_back(coords[perm[i], k])
                sort(vals.begin(), vals.end())
                m = 0
                for i in range(<Py_ssize_t> vals.size()):  # unique, in place
                    if i == 0 or vals[i] != vals[m - 1]:
                        vals[m] = vals[i]
                        m += 1
                if not wrap[k] or m == 1:
                    ext[k] = vals[m - 1] - vals[0]
                    start[k] = vals[0]
                else:
                    best_gap = -1
                    j = 0
                    for i in range(m):
                        gap = (vals[i + 1] if i + 1 < m else vals[0] + length) - vals[i]
                        if gap > best_gap:
                            best_gap = gap
                            j = i
                    ext[k] = length - best_gap
                    start[k] = vals[(j + 1) % m]
                centre[k] = start[k] + ext[k] / 2.0
                if wrap[k] and centre[k] >= length:
                    centre[k] -= length
            kbest = 0
            for k in range(1, d):
                if ext[k] > ext[kbest]:
                    kbest = k
            # representative: nearest the centre (members are in ascending node order)
            best_dist = -1.0
            for i in range(s, e):
                v = perm[i]
                dist = 0.0
                for k in range(d):
                    x = coords[v, k] - centre[k]
                    if x < 0:
                        x = -x
                    if wrap[k] and dims[k] - x < x:
                        x = dims[k] - x
                    dist += x
                if best_dist < 0 or dist < best_dist:
                    best_dist = dist
                    rep[dom] = v
            # order along the longest extent
            keys.clear()
            for i in range(s, e):
                v = perm[i]
                key = (coords[v, kbest] - start[kbest]) % dims[kbest]
                if key < 0:
                    key += dims[kbest]
                for k in range(d):
                    if k != kbest:
                        c = (coords[v, k] - start[k]) % dims[k]
                        if c < 0:
                            c += dims[k]
                        key = key * dims[k] + c
                keys.push_back(key * n + v)
            sort(keys.begin(), keys.end())
            acc = 0
            cut = 1
            best_diff = -1
            for i in range(size - 1):
                acc += cap[keys[i] % n]
                diff = 2 * acc - total
                if diff < 0:
                    diff = -diff
                if best_diff < 0 or diff < best_diff:
                    best_diff = diff
                    cut = i + 1
            for i in range(size):
                perm[s + i] = keys[i] % n
            sort(&perm[s], &perm[s] + cut)
            sort(&perm[s] + cut, &perm[s] + size)
            children[dom, 0] = next_id
            dom_lo[next_id] = s
            dom_hi[next_id] = s + cut
            children[dom, 1] = next_id + 1
            dom_lo[next_id + 1] = s + cut
            dom_hi[next_id + 1] = e
            next_id += 2
            dom += 1
