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
#              until one changes nothing (a fixed point) or max_sweeps is reached.  A flow
#              detours only when its side passes the other by more than 1e-12 of the exchange's
#              volume (TIE_SHARE): an exact tie stays minimal whatever the rounding.  The state
#              is rebuilt from the choices at the start of every sweep, so rounding does not
#              accumulate across sweeps.
#              The spread's mean is O(1): with pair[a, b] = the load of the h links a -> b,
#              out[a] = sum_c pair[a, c] and inn[b] = sum_c pair[c, b], the spread's global
#              links of (a, b) carry out[a] + inn[b] - 2 pair[a, b] over 2 (G - 2) h links.
#              Placing a flow is O(1) too: a Valiant flow a -> b adds leg = w / (G - 2) to
#              pair[a, c] and pair[c, b] for every c != a, b, spread evenly over each pair's h
#              links, and to out[c] and inn[c]; these are kept as whole-row (row[a]), whole-
#              column (col[b]) and whole-vector (every) offsets with the excluded entries
#              corrected (valiant[a, b] -= 2 leg; out, inn of a and b -= leg), so a pair's
#              Valiant volume is valiant[p, q] + row[p] + col[q] and a link's load its minimal
#              flows' load plus that volume / h.
# Arrays     : a, b, link (n,) int64 source group, destination group, minimal global link;
#              volume (n,) float64; order (n,) int64 the deciding order (a permutation);
#              detour (n,) uint8, in: the starting choice, out: the fixed point's.
#              Scratch: minimal (G G h,) float64, the minimal flows' load of link (a -> b, j)
#              at (a G + b) h + j; pair_min, valiant (G G,); row, col, out, inn (G,).
# Complexity : O(sweeps x n) time, O(G^2 h) memory.
# Conventions: the caller validates (groups in range and a != b, link < h, volume >= 0,
#              order a permutation, G >= 3); nothing here allocates or raises.
# cython: language_level=3

import numpy as np
from libc.stdint cimport int64_t, uint8_t


#: A difference of the two sides below this share of the exchange's volume is a tie (the flow stays minimal):
#: the loads are sums in an order of their own, so the rule would otherwise flip on rounding.
cdef double TIE_SHARE = 1e-12


cdef struct _State:
    double *minimal    # (G G h) the minimal flows' load of every global link
    double *pair_min   # (G G) the minimal flows' load of every group pair's h links
    double *valiant    # (G G) the Valiant volume of every group pair, less the row and column offsets
    double *row        # (G) Valiant volume on every pair leaving the group
    double *col        # (G) Valiant volume on every pair entering the group
    double *out        # (G) load leaving the group, less every
    double *inn        # (G) load entering the group, less every
    double every       # Valiant volume through every group
    int64_t G
    int64_t h


cdef inline void _place(_State *st, int64_t a, int64_t b, int64_t j, double w, bint valiant) noexcept nogil:
    """Add (w > 0) or remove (w < 0) one flow's volume on its minimal path or its Valiant spread (O(1))."""
    cdef int64_t G = st.G
    cdef double leg
    if not valiant:
        st.minimal[(a * G + b) * st.h + j] += w
        st.pair_min[a * G + b] += w
    else:
        leg = w / (G - 2)
        st.row[a] += leg  # pair (a, c) for every c ...
        st.col[b] += leg  # ... and (c, b): not (a, b) itself (c = a, b excluded)
        st.valiant[a * G + b] -= 2.0 * leg
        st.every += leg  # out[c] and inn[c] for every c but a and b
        st.out[a] -= leg
        st.out[b] -= leg
        st.inn[a] -= leg
        st.inn[b] -= leg
    st.out[a] += w
    st.inn[b] += w


cdef inline double _valiant_volume(_State *st, int64_t p, int64_t q) noexcept nogil:
    return st.valiant[p * st.G + q] + st.row[p] + st.col[q]


def ugal_detours(const int64_t[::1] a, const int64_t[::1] b, const int64_t[::1] link, const double[::1] volume,
                 const int64_t[::1] order, int64_t n_groups, int64_t global_links, double min_hops,
                 double valiant_hops, int64_t max_sweeps, uint8_t[::1] detour):
    """Run the UGAL-L fixed point in place on ``detour``; return (sweeps run, whether the last changed nothing)."""
    cdef int64_t G = n_groups, h = global_links, n = a.shape[0]
    cdef double[::1] minimal = np.zeros(G * G * h)
    cdef double[::1] pair_min = np.zeros(G * G)
    cdef double[::1] valiant = np.zeros(G * G)
    cdef double[::1] row = np.zeros(G)
    cdef double[::1] col = np.zeros(G)
    cdef double[::1] out = np.zeros(G)
    cdef double[::1] inn = np.zeros(G)
    cdef _State st
    cdef int64_t sweep = 0, i, f, changed = 1
    cdef double q_min, q_val, spread, pair, tie = 0.0
    cdef uint8_t choice
    st.minimal, st.pair_min, st.valiant = &minimal[0], &pair_min[0], &valiant[0]
    st.row, st.col, st.out, st.inn = &row[0], &col[0], &out[0], &inn[0]
    st.G, st.h = G, h
    with nogil:
        for f in range(n):
            tie += volume[f]
        tie *= TIE_SHARE
        while changed and sweep < max_sweeps:
            minimal[:] = 0.0
            pair_min[:] = 0.0
            valiant[:] = 0.0
            row[:] = 0.0
            col[:] = 0.0
            out[:] = 0.0
            inn[:] = 0.0
            st.every = 0.0
            for f in range(n):
                _place(&st, a[f], b[f], link[f], volume[f], detour[f])
            changed = 0
            for i in range(n):
                f = order[i]
                _place(&st, a[f], b[f], link[f], -volume[f], detour[f])
                spread = _valiant_volume(&st, a[f], b[f])
                q_min = minimal[(a[f] * G + b[f]) * h + link[f]] + spread / h
                pair = pair_min[a[f] * G + b[f]] + spread
                q_val = (out[a[f]] + inn[b[f]] + 2.0 * st.every - 2.0 * pair) / (2.0 * (G - 2) * h)
                choice = q_min * min_hops > q_val * valiant_hops + tie
                if choice != detour[f]:
                    detour[f] = choice
                    changed += 1
                _place(&st, a[f], b[f], link[f], volume[f], choice)
            sweep += 1
    return sweep, changed == 0
