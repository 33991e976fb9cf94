# PERCS (Power 775) message-count kernel: Congestion(e) under split routing.
#
# Algorithm  : a message (one task-graph edge between different nodes) is split over many
#              paths (striping inside a supernode, n_d D links under direct routing, n_s*n_d
#              intermediate routes under indirect routing).  Congestion(e) counts the message
#              once on every link any of its paths crosses.  Messages with the same
#              (source node, destination node) cross the same links, so the caller passes
#              distinct node pairs with their multiplicity; the kernel enumerates each pair's
#              link set and de-duplicates it with a stamp array (stamp[link] == pair id means
#              "already counted for this pair").  A striped L segment src->dst in supernode s
#              crosses src->x and x->dst for every node x of src's drawer (self-loops skipped).
#              Argument mode (the L model): 0 "paper" = intra-supernode messages striped, the
#              L hops of inter-supernode routes the single link src->dst; 1 "striped" = every
#              L hop striped too; 2 "uniform" = every segment and hop spread over all 32
#              nodes x of the supernode (src->x, x->dst).
# Arrays     : pair arrays su, u, sv, v, mult (n_pairs,) int64: source supernode, node
#              (0..31), destination supernode, node, multiplicity.  msg (n_full,) int64 and
#              stamp (n_full,) int64 in the full numbering: L link s*1024 + y*32 + z, D link
#              n_s*1024 + (a*n_d + j)*n_s + b (self-loop slots exist and stay 0).
#              nc (n_s, W, W) int64: per supernode c, the number of inter-supernode messages
#              of residue class (a mod W, b mod W) with a != c and b != c (indirect routing:
#              their middle segments in c depend on the class only).
# Invariants : 0 <= u, v < 32, 0 <= su, sv < n_s; stamps start at 0 and ids are > 0.
# Tie-break  : none (counts are exact integers).
# Complexity : intra/direct O(n_pairs * 17 * n_d); indirect O(n_pairs * 16 * 32 + n_s * W^2 * 16 * n_d);
#              four times more marks per segment under mode 2.
# Source     : ALGORITHMS.md section 5 (routing) and section 1 (Congestion(e)).

cdef inline void _mark(Py_ssize_t link, long long m, long long sid,
                       long long[::1] msg, long long[::1] stamp) noexcept nogil:
    if stamp[link] != sid:
        stamp[link] = sid
        msg[link] += m


cdef inline void _segment(Py_ssize_t s, Py_ssize_t src, Py_ssize_t dst, long long m, long long sid,
                          long long[::1] msg, long long[::1] stamp) noexcept nogil:
    cdef Py_ssize_t x, base = s * 1024, d0
    if src == dst:
        return
    d0 = (src // 8) * 8
    for x in range(d0, d0 + 8):
        if x != src:
            _mark(base + src * 32 + x, m, sid, msg, stamp)
        if x != dst:
            _mark(base + x * 32 + dst, m, sid, msg, stamp)


cdef inline void _spread(Py_ssize_t s, Py_ssize_t src, Py_ssize_t dst, long long m, long long sid,
                         long long[::1] msg, long long[::1] stamp) noexcept nogil:
    # a segment spread over the 32 two-hop paths src -> x -> dst of its supernode
    cdef Py_ssize_t x, base = s * 1024
    if src == dst:
        return
    for x in range(32):
        if x != src:
            _mark(base + src * 32 + x, m, sid, msg, stamp)
        if x != dst:
            _mark(base + x * 32 + dst, m, sid, msg, stamp)


cdef inline void _intra(Py_ssize_t s, Py_ssize_t src, Py_ssize_t dst, long long m, long long sid,
                        int mode, long long[::1] msg, long long[::1] stamp) noexcept nogil:
    # an intra-supernode message
    if mode == 2:
        _spread(s, src, dst, m, sid, msg, stamp)
    else:
        _segment(s, src, dst, m, sid, msg, stamp)


cdef inline void _hop(Py_ssize_t s, Py_ssize_t src, Py_ssize_t dst, long long m, long long sid,
                      int mode, long long[::1] msg, long long[::1] stamp) noexcept nogil:
    # one L hop of an inter-supernode route: the single link, a striped or a spread segment
    if mode == 1:
        _segment(s, src, dst, m, sid, msg, stamp)
    elif mode == 2:
        _spread(s, src, dst, m, sid, msg, stamp)
    elif src != dst:
        _mark(s * 1024 + src * 32 + dst, m, sid, msg, stamp)


def pair_messages(const long long[::1] su, const long long[::1] u, const long long[::1] sv,
                  const long long[::1] v, const long long[::1] mult, Py_ssize_t n_s, Py_ssize_t n_d,
                  bint indirect, int mode, long long[::1] msg, long long[::1] stamp,
                  long long first_id):
    """Add the Congestion(e) of distinct node pairs to msg; return the next free stamp id.

    Under indirect routing the D links and the middle segments in supernodes other than
    the source and destination are left to the caller (see ``class_messages``).
    """
    cdef Py_ssize_t i, j, r, n = su.shape[0]
    cdef Py_ssize_t W = 32 // n_d, n_res = W if W < n_s else n_s
    cdef Py_ssize_t a, b, ra, rb, dbase = n_s * 1024
    cdef long long sid = first_id, m
    with nogil:
        for i in range(n):
            a = su[i]
            b = sv[i]
            m = mult[i]
            if a == b:
                _intra(a, u[i], v[i], m, sid, mode, msg, stamp)
            elif not indirect:
                for j in range(n_d):
                    _hop(a, u[i], j * W + b % W, m, sid, mode, msg, stamp)
                    _mark(dbase + (a * n_d + j) * n_s + b, m, sid, msg, stamp)
                    _hop(b, j * W + a % W, v[i], m, sid, mode, msg, stamp)
            else:
                ra = a % W
                rb = b % W
                for j in range(n_d):
                    for r in range(n_res):
                        _hop(a, u[i], j * W + r, m, sid, mode, msg, stamp)
                    _hop(a, j * W + ra, j * W + rb, m, sid, mode, msg, stamp)
                sid += 1
                for j in range(n_d):
                    _hop(b, j * W + ra, j * W + rb, m, sid, mode, msg, stamp)
                    for r in range(n_res):
                        _hop(b, j * W + r, v[i], m, sid, mode, msg, stamp)
            sid += 1
    return sid


def class_messages(const long long[:, :, ::1] nc, Py_ssize_t n_d, int mode, long long[::1] msg,
                   long long[::1] stamp, long long first_id):
    """Add the middle-segment Congestion(e) of every supernode from class counts; return the next id."""
    cdef Py_ssize_t c, ra, rb, j, n_s = nc.shape[0], W = nc.shape[1]
    cdef long long sid = first_id, m
    with nogil:
        for c in range(n_s):
            for ra in range(W):
                for rb in range(W):
                    m = nc[c, ra, rb]
                    if m == 0 or ra == rb:
                        continue
                    for j in range(n_d):
                        _hop(c, j * W + ra, j * W + rb, m, sid, mode, msg, stamp)
                    sid += 1
    return sid
