# PERCS (Power 775) routing kernels: the routes of node pairs with their fractions, and
# Congestion(e) under split routing.
#
# Algorithm  : a message between different nodes is split over many paths (striping inside a
#              supernode; between supernodes the group-level paths of the shared two-level
#              routing, mpitaskmap/machines/two_level.py group_paths, which the caller passes in
#              as a table: n_d direct paths under direct routing, n_s*n_d intermediate paths
#              under indirect routing; the rules are the module notes of
#              mpitaskmap/machines/percs_routing.py).  The kernel owns the wiring only: it
#              expands a group path (via c, first bucket j1, second bucket j2 or -1, share) of a
#              message from node u of supernode a to node v of supernode b into the L hop
#              u -> j1 W + (c mod W) in a, the D link (a -> c, j1), then on a direct path
#              (j2 == -1, c == b) the L hop j1 W + (a mod W) -> v in b, else the L hop
#              j1 W + (a mod W) -> j2 W + (b mod W) in c, the D link (c -> b, j2) and the L hop
#              j2 W + (c mod W) -> v in b; a D link from a supernode to itself is a free
#              self-loop (skipped), the L hops stay.  Both kernels walk those paths link by
#              link through one visitor (_visit) that de-duplicates the links of one node pair
#              with a stamp array (stamp[link] == pair id means "already seen for this pair"):
#              * pair_routes adds the path's share to the link's fraction in the pair's route
#                (a link appears once per route, its fractions summed; links in the order the
#                paths first reach them);
#              * pair_messages counts the pair's multiplicity once on every link it reaches
#                (Congestion(e)).  With by_residue (the closed form of PERCS's indirect rule,
#                every c and one bucket j on both legs) it walks only the segments inside the
#                source and destination supernodes, over the distinct residues c mod W of the
#                intermediates (the links they reach depend on the residue only): the D links
#                and the middle segments in the other supernodes are counted per residue class
#                by class_messages (and the caller), which keeps it O(pairs * n_d * W).
#              A striped L segment src->dst in supernode s carries share/8 on src->x and x->dst
#              for every node x of src's drawer (self-loops skipped: they cost nothing).
#              Argument mode (the L model): 0 "paper" = intra-supernode messages striped, the
#              L hops of inter-supernode routes the single link src->dst; 1 "striped" = every
#              L hop striped too; 2 "uniform" = every segment and hop spread over all 32
#              nodes x of the supernode (share/32 on src->x and x->dst).
# Arrays     : pair arrays su, u, sv, v (n_pairs,) int64: source supernode, node (0..31),
#              destination supernode, node; mult (n_pairs,) int64 their multiplicity.
#              Group-path table: grp (n_pairs,) int64, the row of gptr of the pair's supernode
#              pair; gptr (n_groups+1,) int64, its paths are rows gptr[g] .. gptr[g+1] of via,
#              first, second (int64) and share (float64) (group_paths' columns, in its order).
#              Link slots in the full numbering: L link s*1024 + y*32 + z, D link
#              n_s*1024 + (a*n_d + j)*n_s + b (self-loop slots exist and are never reached).
#              stamp, pos, msg (n_full,) int64 scratch/output over the full numbering.
#              indptr (n_pairs+1,) int64, links (n_entries,) int64 (full slots), fractions
#              (n_entries,) float64: the routes, CSR.
#              nc (n_s, W, W) int64: per supernode c, the number of inter-supernode messages
#              of residue class (a mod W, b mod W) with a != c and b != c.
# Invariants : 0 <= u, v < 32, 0 <= su, sv < n_s; group paths with 0 <= via < n_s,
#              0 <= first < n_d, -1 <= second < n_d, via == sv on a direct path (checked by the
#              caller); stamps start below first_id (> 0) and every pair gets a fresh id.
# Tie-break  : none (fractions are sums of the group paths' shares in their order: powers of
#              two of 1/n_d, 1/(n_s n_d); counts are exact integers).
# Complexity : routes: intra O(32) (O(128) mode 2), O(17) per group path (x 4 in mode 2):
#              direct O(n_d * 17), indirect O(n_s * n_d * 35) visits per pair, twice (count,
#              fill); messages: intra/direct as routes, by_residue O(n_d * W * 16) per pair plus
#              O(n_s * W^2 * 16 * n_d) for the classes.
# Source     : ALGORITHMS.md section 5 (routing) and section 1 (Congestion(e)).

cdef struct Visitor:
    long long* stamp      # last pair id that reached each slot
    long long sid         # id of the current pair
    long long* msg        # Congestion(e) to add the multiplicity to (NULL: routes)
    long long mult        # multiplicity of the current pair
    long long* pos        # routes: entry of each slot in the current route (valid where stamp == sid)
    long long* links      # routes: output slots (NULL: count the entries only)
    double* fractions     # routes: output fractions
    long long n           # routes: entries written so far (all pairs)


cdef inline Visitor _counter(long long[::1] msg, long long[::1] stamp, long long first_id) noexcept:
    # a visitor that adds each pair's multiplicity to Congestion(e), once per link
    cdef Visitor k
    k.stamp = &stamp[0]
    k.sid = first_id
    k.msg = &msg[0]
    k.mult = 0
    k.pos = NULL
    k.links = NULL
    k.fractions = NULL
    k.n = 0
    return k


cdef inline void _visit(Visitor* k, Py_ssize_t link, double share) noexcept nogil:
    if k.stamp[link] != k.sid:
        k.stamp[link] = k.sid
        if k.msg != NULL:
            k.msg[link] += k.mult
        if k.links != NULL:
            k.pos[link] = k.n
            k.links[k.n] = link
            k.fractions[k.n] = share
        k.n += 1
    elif k.links != NULL:
        k.fractions[k.pos[link]] += share


cdef inline void _two_hop(Visitor* k, Py_ssize_t s, Py_ssize_t src, Py_ssize_t dst, Py_ssize_t x0,
                          Py_ssize_t width, double share) noexcept nogil:
    # a segment src -> dst split evenly over the paths src -> x -> dst, x in [x0, x0 + width)
    cdef Py_ssize_t x, base = s * 1024
    cdef double part = share / width
    if src == dst:
        return
    for x in range(x0, x0 + width):
        if x != src:
            _visit(k, base + src * 32 + x, part)
        if x != dst:
            _visit(k, base + x * 32 + dst, part)


cdef inline void _intra(Visitor* k, Py_ssize_t s, Py_ssize_t src, Py_ssize_t dst, double share,
                        int mode) noexcept nogil:
    # an intra-supernode message: striped over the source drawer, or spread (mode 2)
    if mode == 2:
        _two_hop(k, s, src, dst, 0, 32, share)
    else:
        _two_hop(k, s, src, dst, (src // 8) * 8, 8, share)


cdef inline void _hop(Visitor* k, Py_ssize_t s, Py_ssize_t src, Py_ssize_t dst, double share,
                      int mode) noexcept nogil:
    # one L hop of an inter-supernode route: the single link, a striped or a spread segment
    if mode == 1:
        _two_hop(k, s, src, dst, (src // 8) * 8, 8, share)
    elif mode == 2:
        _two_hop(k, s, src, dst, 0, 32, share)
    elif src != dst:
        _visit(k, s * 1024 + src * 32 + dst, share)


cdef struct GroupTable:
    # the group-level paths of the supernode pairs (group_paths' columns; NULL when empty)
    const long long* grp      # row of gptr of each node pair's supernode pair
    const long long* gptr     # paths of supernode pair g: rows gptr[g] .. gptr[g + 1]
    const long long* via
    const long long* first
    const long long* second
    const double* share


cdef inline GroupTable _table(const long long[::1] grp, const long long[::1] gptr, const long long[::1] via,
                              const long long[::1] first, const long long[::1] second,
                              const double[::1] share) noexcept:
    cdef GroupTable t
    t.grp = &grp[0] if grp.shape[0] > 0 else NULL
    t.gptr = &gptr[0] if gptr.shape[0] > 0 else NULL
    t.via = &via[0] if via.shape[0] > 0 else NULL
    t.first = &first[0] if first.shape[0] > 0 else NULL
    t.second = &second[0] if second.shape[0] > 0 else NULL
    t.share = &share[0] if share.shape[0] > 0 else NULL
    return t


cdef inline void _route(Visitor* k, GroupTable* t, Py_ssize_t i, Py_ssize_t a, Py_ssize_t u, Py_ssize_t b,
                        Py_ssize_t v, Py_ssize_t n_s, Py_ssize_t n_d, int mode) noexcept nogil:
    # every path of message i from node u of supernode a to node v of supernode b: striped inside a
    # supernode, else the expansion of the group paths of (a, b) into links (module notes)
    cdef Py_ssize_t p, g, c, j1, j2, W = 32 // n_d, dbase = n_s * 1024, ra = a % W, rb = b % W
    cdef double share
    if a == b:
        _intra(k, a, u, v, 1.0, mode)
        return
    g = t.grp[i]
    for p in range(t.gptr[g], t.gptr[g + 1]):
        c = t.via[p]
        j1 = t.first[p]
        j2 = t.second[p]
        share = t.share[p]
        _hop(k, a, u, j1 * W + c % W, share, mode)
        if c != a:
            _visit(k, dbase + (a * n_d + j1) * n_s + c, share)
        if j2 < 0:
            _hop(k, b, j1 * W + ra, v, share, mode)
        else:
            _hop(k, c, j1 * W + ra, j2 * W + rb, share, mode)
            if c != b:
                _visit(k, dbase + (c * n_d + j2) * n_s + b, share)
            _hop(k, b, j2 * W + c % W, v, share, mode)


def pair_routes(const long long[::1] su, const long long[::1] u, const long long[::1] sv,
                const long long[::1] v, const long long[::1] grp, const long long[::1] gptr,
                const long long[::1] via, const long long[::1] first, const long long[::1] second,
                const double[::1] share, Py_ssize_t n_s, Py_ssize_t n_d, int mode,
                long long[::1] stamp, long long[::1] pos, long long first_id, long long[::1] indptr,
                long long[::1] links, double[::1] fractions):
    """Write the routes of node pairs along their group paths; return the next free stamp id.

    With empty ``links`` and ``fractions`` only counts: ``indptr[i + 1] = indptr[i]`` + the
    number of links of pair ``i`` (call it first to size the output); otherwise fills
    ``links`` (full slots) and ``fractions`` at the offsets of ``indptr``.
    """
    cdef Py_ssize_t i, n = su.shape[0]
    cdef GroupTable t = _table(grp, gptr, via, first, second, share)
    cdef Visitor k
    k.stamp = &stamp[0]
    k.sid = first_id
    k.msg = NULL
    k.mult = 0
    k.pos = &pos[0]
    k.links = &links[0] if links.shape[0] > 0 else NULL
    k.fractions = &fractions[0] if fractions.shape[0] > 0 else NULL
    k.n = 0
    with nogil:
        indptr[0] = 0
        for i in range(n):
            _route(&k, &t, i, su[i], u[i], sv[i], v[i], n_s, n_d, mode)
            indptr[i + 1] = k.n
            k.sid += 1
    return k.sid


def pair_messages(const long long[::1] su, const long long[::1] u, const long long[::1] sv,
                  const long long[::1] v, const long long[::1] mult, const long long[::1] grp,
                  const long long[::1] gptr, const long long[::1] via, const long long[::1] first,
                  const long long[::1] second, const double[::1] share, Py_ssize_t n_s, Py_ssize_t n_d,
                  bint by_residue, int mode, long long[::1] msg, long long[::1] stamp, long long first_id):
    """Add the Congestion(e) of distinct node pairs to msg; return the next free stamp id.

    Pairs inside a supernode are striped; pairs between supernodes follow their group paths
    (as ``pair_routes``), or, with ``by_residue`` (PERCS's indirect rule; the group-path
    table may then be empty), only their segments in the source and destination supernodes
    are counted: the D links and the middle segments in the other supernodes are left to
    the caller (see ``class_messages``).
    """
    cdef Py_ssize_t i, j, r, n = su.shape[0]
    cdef Py_ssize_t W = 32 // n_d, n_res = W if W < n_s else n_s
    cdef Py_ssize_t a, b, ra, rb
    cdef GroupTable t = _table(grp, gptr, via, first, second, share)
    cdef Visitor k = _counter(msg, stamp, first_id)
    with nogil:
        for i in range(n):
            a = su[i]
            b = sv[i]
            k.mult = mult[i]
            if a == b or not by_residue:
                _route(&k, &t, i, a, u[i], b, v[i], n_s, n_d, mode)
            else:
                # the segments in a and b; intermediates c enter through their residue c mod W
                ra = a % W
                rb = b % W
                for j in range(n_d):
                    for r in range(n_res):
                        _hop(&k, a, u[i], j * W + r, 0.0, mode)
                        _hop(&k, b, j * W + r, v[i], 0.0, mode)
                    _hop(&k, a, j * W + ra, j * W + rb, 0.0, mode)
                    _hop(&k, b, j * W + ra, j * W + rb, 0.0, mode)
            k.sid += 1
    return k.sid


def class_messages(const long long[:, :, ::1] nc, Py_ssize_t n_d, int mode, long long[::1] msg,
                   long long[::1] stamp, long long first_id):
    """Add the middle-segment Congestion(e) of every supernode from class counts; return the next id."""
    cdef Py_ssize_t c, ra, rb, j, n_s = nc.shape[0], W = nc.shape[1]
    cdef Visitor k = _counter(msg, stamp, first_id)
    with nogil:
        for c in range(n_s):
            for ra in range(W):
                for rb in range(W):
                    k.mult = nc[c, ra, rb]
                    if k.mult == 0 or ra == rb:
                        continue
                    for j in range(n_d):
                        _hop(&k, c, j * W + ra, j * W + rb, 0.0, mode)
                    k.sid += 1
    return k.sid
