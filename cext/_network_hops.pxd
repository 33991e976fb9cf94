# Hop distance between two nodes of a fat tree, a dragonfly, a PERCS system or a flat
# allocation, from a few labels per node and a few parameters per network: the one
# implementation in C, inlined into the machines' own hop calls (cext/_hops.pyx, behind
# FatTreeMachine.hops, DragonflyMachine.hops, PercsMachine.hops, FlatMachine.hops) and into the
# graph kernels (cext/_graphmap.pyx), so no node-by-node matrix is ever needed off the torus.
#
# Labels     : one row of ``width`` int64 per node; label 0 is the node's number in its network
#              (equal label 0 = one node = 0 hops).  Fat tree: 1 + L labels, the node's group at
#              switch levels 1..L.  Dragonfly, PERCS, flat: the node number alone.
# Parameters : (see the kind) int64, at most METRIC_PARAMS.
# Kinds      : METRIC_TREE      2 x the lowest switch level whose group holds both nodes
#                               (params: L).
#              METRIC_DRAGONFLY node links (2) + local hops in the group (differing column, row)
#                               or + 1 global link + local legs to and from the global link's
#                               switches; "minimal" keeps link (u + v) mod h, otherwise the
#                               shortest over the h links of the group pair (params:
#                               nodes_per_switch n, switches S, columns, groups G, global links
#                               h, global ports, minimal flag).  Global link j of groups a -> b
#                               sits on switch (j G + b) div ports of a.
#              METRIC_PERCS     1 within a supernode; between supernodes 1, 2 or 3 by whether the
#                               nodes are the ends of a direct D link (params: nodes per
#                               supernode, bucket width W).
#              METRIC_FLAT      a constant between distinct nodes (params: hops).
# Complexity : O(L) tree, O(1) PERCS and flat, O(1) minimal dragonfly, O(h) otherwise.

cdef enum:
    METRIC_TREE = 1
    METRIC_DRAGONFLY = 2
    METRIC_PERCS = 3
    METRIC_FLAT = 4
    METRIC_PARAMS = 8


cdef inline long long _local_hops(long long s, long long t, long long columns) noexcept nogil:
    """Local links between switches s and t of one dragonfly group: differing column, differing row."""
    return (s % columns != t % columns) + (s // columns != t // columns)


cdef inline long long _dragonfly_hops(const long long* p, long long u, long long v) noexcept nogil:
    cdef long long n = p[0], S = p[1], columns = p[2], G = p[3], h = p[4], ports = p[5]
    cdef long long sw_u = u // n, sw_v = v // n
    cdef long long ga = sw_u // S, s = sw_u % S, gb = sw_v // S, t = sw_v % S
    cdef long long j, first, last, legs, best = -1
    if ga == gb:
        return 2 + _local_hops(s, t, columns)
    if p[6]:
        first = (u + v) % h
        last = first + 1
    else:
        first = 0
        last = h
    for j in range(first, last):
        legs = _local_hops(s, (j * G + gb) // ports, columns) + _local_hops((j * G + ga) // ports, t, columns)
        if best < 0 or legs < best:
            best = legs
    return 3 + best


cdef inline long long _percs_hops(const long long* p, long long gp, long long gq) noexcept nogil:
    cdef long long per = p[0], w = p[1]
    cdef long long a = gp // per, u = gp % per, b = gq // per, v = gq % per
    cdef bint src_gw, dst_gw
    if a == b:
        return 1
    src_gw = u % w == b % w   # u is the end in a of a D link to b
    dst_gw = v % w == a % w   # v is the end in b of a D link from a
    if src_gw and dst_gw and u // w == v // w:
        return 1
    if src_gw or dst_gw:
        return 2
    return 3


cdef inline long long _label_hops(int kind, const long long* params, const long long* la,
                                  const long long* lb) noexcept nogil:
    """Hops between the nodes of label rows la and lb (module header)."""
    cdef long long l
    if la[0] == lb[0]:
        return 0
    if kind == METRIC_TREE:
        for l in range(1, params[0] + 1):
            if la[l] == lb[l]:
                return 2 * l
        return 2 * params[0]
    if kind == METRIC_DRAGONFLY:
        return _dragonfly_hops(params, la[0], lb[0])
    if kind == METRIC_PERCS:
        return _percs_hops(params, la[0], lb[0])
    return params[0]


# Routes off the torus, from the same labels (fat trees; ALGORITHMS.md section 1, FatTreeMachine's
# module notes).  Parameters: rp[0] = levels L, rp[1] = 1 for ECMP, 0 for d-mod-k on the node's number
# (label 0), 2 for d-mod-k on a host number given as label L + 1 (a subnet manager's numbering), then per level
# l = 0 .. L-1 at rp[2 + 5 l]: up links w, copies W_l, copies W_{l+1}, link offset of the level,
# links of one direction of the level.  A pair climbs to the lowest level whose group holds both
# nodes (``top``), up links l = 0 .. top-1 then down links top-1 .. 0.  d-mod-k: one link a level,
# chosen by the destination (copy b mod W_l, port (b div W_l) mod w); ECMP: the W_{l+1} links of
# the level, a 1 / W_{l+1} share each.  Writes the link ids into links and their shares into
# fractions (room for _tree_route_capacity entries); returns the number written.

cdef inline Py_ssize_t _tree_route_capacity(const long long* rp) noexcept nogil:
    cdef Py_ssize_t l, total = 0
    for l in range(rp[0]):
        total += rp[2 + 5 * l + 2] if rp[1] == 1 else 1
    return 2 * total


cdef inline Py_ssize_t _tree_route(const long long* rp, const long long* la, const long long* lb,
                                   long long* links, double* fractions) noexcept nogil:
    cdef long long L = rp[0], top = rp[0], l, k, half = 0, b = lb[rp[0] + 1] if rp[1] == 2 else lb[0]
    cdef long long w, w_lo, w_hi, off, block, copy_lo, port
    cdef Py_ssize_t up = 0, down
    cdef const long long* q
    if la[0] == lb[0]:
        return 0
    for l in range(1, L + 1):
        if la[l] == lb[l]:
            top = l
            break
    for l in range(top):
        half += rp[2 + 5 * l + 2] if rp[1] == 1 else 1
    down = 2 * half
    for l in range(top):
        q = rp + 2 + 5 * l
        w, w_lo, w_hi, off, block = q[0], q[1], q[2], q[3], q[4]
        if rp[1] == 1:
            down -= w_hi
            for k in range(w_hi):
                links[up + k] = off + la[l] * w_hi + k
                links[down + k] = off + block + lb[l] * w_hi + k
                fractions[up + k] = 1.0 / w_hi
                fractions[down + k] = 1.0 / w_hi
            up += w_hi
        else:
            down -= 1
            copy_lo = b % w_lo
            port = (b // w_lo) % w
            links[up] = off + (la[l] * w_lo + copy_lo) * w + port
            links[down] = off + block + (lb[l] * w_lo + copy_lo) * w + port
            fractions[up] = 1.0
            fractions[down] = 1.0
            up += 1
    return 2 * half


# Dragonfly routes under "minimal" (DragonflyMachine's module notes): the pair's one static path.
# Parameters: rp = nodes per switch n, switches S, rows R, columns C, groups G, global links h,
# global ports, network nodes N, then the link offsets of the local (green) links, the black
# links and the global links.  Node up link u; in the source group green along the row then
# black along the column to the switch of global link j = (u + v) mod h; that link; the same in
# the destination group from the link's arrival switch; node down link N + v.  At most 7 links,
# a share of 1 each.

cdef inline Py_ssize_t _dragonfly_local_links(const long long* rp, long long g, long long s, long long t,
                                              long long* links) noexcept nogil:
    cdef long long S = rp[1], R = rp[2], C = rp[3]
    cdef long long r1 = s // C, c1 = s % C, r2 = t // C, c2 = t % C
    cdef Py_ssize_t k = 0
    if c1 != c2:
        links[k] = rp[8] + (g * S + s) * (C - 1) + c2 - (c2 > c1)
        k += 1
    if r1 != r2:
        links[k] = rp[9] + (g * S + r1 * C + c2) * (R - 1) + r2 - (r2 > r1)
        k += 1
    return k


cdef inline Py_ssize_t _dragonfly_route(const long long* rp, long long u, long long v, long long* links,
                                        double* fractions) noexcept nogil:
    cdef long long n = rp[0], S = rp[1], G = rp[4], h = rp[5], ports = rp[6]
    cdef long long ga = (u // n) // S, s = (u // n) % S, gb = (v // n) // S, t = (v // n) % S, j
    cdef Py_ssize_t k = 0, i
    if u == v:
        return 0
    links[k] = u
    k += 1
    if ga == gb:
        k += _dragonfly_local_links(rp, ga, s, t, links + k)
    else:
        j = (u + v) % h
        k += _dragonfly_local_links(rp, ga, s, (j * G + gb) // ports, links + k)
        links[k] = rp[10] + (ga * (G - 1) + gb - (gb > ga)) * h + j
        k += 1
        k += _dragonfly_local_links(rp, gb, (j * G + ga) // ports, t, links + k)
    links[k] = rp[7] + v
    k += 1
    for i in range(k):
        fractions[i] = 1.0
    return k


cdef inline bint _route_params_ok(int kind, const long long[::1] rp, Py_ssize_t width) noexcept nogil:
    """Whether ``rp`` are route parameters of ``kind`` over labels of ``width`` columns."""
    if kind == METRIC_TREE:
        return (rp.shape[0] >= 2 and rp.shape[0] == 2 + 5 * rp[0] and 0 <= rp[1] <= 2
                and width >= rp[0] + 1 + (rp[1] == 2))
    if kind == METRIC_DRAGONFLY:
        return rp.shape[0] == 11
    return False


cdef inline Py_ssize_t _label_route_capacity(int kind, const long long* rp) noexcept nogil:
    if kind == METRIC_TREE:
        return _tree_route_capacity(rp)
    return 7


cdef inline Py_ssize_t _label_route(int kind, const long long* rp, const long long* la, const long long* lb,
                                    long long* links, double* fractions) noexcept nogil:
    """The route between the nodes of label rows la and lb (a fat tree's, or a minimal dragonfly's)."""
    if kind == METRIC_TREE:
        return _tree_route(rp, la, lb, links, fractions)
    return _dragonfly_route(rp, la[0], lb[0], links, fractions)
