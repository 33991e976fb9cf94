# UGAL on a dragonfly: which flows of one exchange leave their minimal path.
#
# Algorithm  : the flows are an exchange's inter-group node pairs, each with its groups a != b,
#              the global link j (of the h between a and b) its minimal path takes, and its
#              volume w.  A flow either takes its minimal path (w on global link (a -> b, j)) or
#              the Valiant spread of mpitaskmap/machines/two_level.py (w / ((G - 2) h) on every
#              global link (a -> c, j') and (c -> b, j'), every intermediate c != a, b).  The
#              load rule is UGAL-L's (Kim et al., ISCA 2008; SST/macro's dragonfly_ugal router):
#              detour when  q_min * min_hops > q_val * valiant_hops,  where q_min is the load the
#              *other* flows put on the flow's minimal global link and q_val the mean load the
#              other flows put on the global links of its Valiant spread (the queue a packet
#              would find behind a random intermediate group).  Flows decide one after another
#              in the caller's order (Gauss-Seidel), the loads updated at once; sweeps repeat
#              until one changes nothing (a fixed point) or max_sweeps is reached.  The state
#              is rebuilt from the choices at the start of every sweep, so rounding does not
#              accumulate across sweeps.
#              The spread's mean is O(1): with pair[a, b] = the load of the h links a -> b,
#              out[a] = sum_c pair[a, c] and inn[b] = sum_c pair[c, b], the spread's global
#              links of (a, b) carry out[a] + inn[b] - 2 pair[a, b] over 2 (G - 2) h links.
# Arrays     : a, b, link (n,) int64 source group, destination group, minimal global link;
#              volume (n,) float64; order (n,) int64 the deciding order (a permutation);
#              detour (n,) uint8, in: the starting choice, out: the fixed point's.
#              Scratch: load (G G h,) float64, link (a -> b, j) at (a G + b) h + j; pair (G G,);
#              out, inn (G,).
# Complexity : O(sweeps x (n + detoured flows x G h)) time, O(G^2 h) memory.
# Conventions: the caller validates (groups in range and a != b, link < h, volume >= 0,
#              order a permutation, G >= 3); nothing here allocates or raises.
# cython: language_level=3

import numpy as np
from libc.stdint cimport int64_t, uint8_t


cdef inline void _place(double[::1] load, double[::1] pair, double[::1] out, double[::1] inn, int64_t G,
                        int64_t h, int64_t a, int64_t b, int64_t j, double w, bint valiant) noexcept nogil:
    """Add (w > 0) or remove (w < 0) one flow's volume on its minimal path or its Valiant spread."""
    cdef int64_t c, k
    cdef double leg, share
    if not valiant:
        load[(a * G + b) * h + j] += w
        pair[a * G + b] += w
    else:
        leg = w / (G - 2)
        share = leg / h
        for c in range(G):
            if c == a or c == b:
                continue
            for k in range(h):
                load[(a * G + c) * h + k] += share
                load[(c * G + b) * h + k] += share
            pair[a * G + c] += leg
            pair[c * G + b] += leg
            inn[c] += leg
            out[c] += leg
    out[a] += w
    inn[b] += w


def ugal_detours(const int64_t[::1] a, const int64_t[::1] b, const int64_t[::1] link, const double[::1] volume,
                 const int64_t[::1] order, int64_t n_groups, int64_t global_links, double min_hops,
                 double valiant_hops, int64_t max_sweeps, uint8_t[::1] detour):
    """Run the UGAL-L fixed point in place on ``detour``; return (sweeps run, whether the last changed nothing)."""
    cdef int64_t G = n_groups, h = global_links, n = a.shape[0]
    cdef double[::1] load = np.zeros(G * G * h)
    cdef double[::1] pair = np.zeros(G * G)
    cdef double[::1] out = np.zeros(G)
    cdef double[::1] inn = np.zeros(G)
    cdef int64_t sweep = 0, i, f, changed = 1
    cdef double q_min, q_val
    cdef uint8_t choice
    with nogil:
        while changed and sweep < max_sweeps:
            load[:] = 0.0
            pair[:] = 0.0
            out[:] = 0.0
            inn[:] = 0.0
            for f in range(n):
                _place(load, pair, out, inn, G, h, a[f], b[f], link[f], volume[f], detour[f])
            changed = 0
            for i in range(n):
                f = order[i]
                _place(load, pair, out, inn, G, h, a[f], b[f], link[f], -volume[f], detour[f])
                q_min = load[(a[f] * G + b[f]) * h + link[f]]
                q_val = (out[a[f]] + inn[b[f]] - 2.0 * pair[a[f] * G + b[f]]) / (2.0 * (G - 2) * h)
                choice = q_min * min_hops > q_val * valiant_hops
                if choice != detour[f]:
                    detour[f] = choice
                    changed += 1
                _place(load, pair, out, inn, G, h, a[f], b[f], link[f], volume[f], choice)
            sweep += 1
    return sweep, changed == 0
