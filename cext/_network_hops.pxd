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
