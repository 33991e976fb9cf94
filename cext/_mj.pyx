# distutils: language = c++
# cython: language_level=3
#
# ===================================================================================
# Sequential Multi-Jagged (MJ) partitioner: exact-count recursive bisection /
# multisection with space-filling part numbering (Z, Gray, FZ, MFZ).
# Paper: Deveci et al., "Exploiting Geometric Partitioning in Task Mapping for Parallel
# Computers" (IPDPS 2014) — ALGORITHMS.md section 2.2; Zoltan2 AlgMJ
# sequential_task_partitioning (reference/zoltan2.md section 5), with the cut search
# replaced by selection (zoltan2.md section 11, fact 2).
#
# Algorithm (one frame = one node of the partition tree, recursion depth = tree depth):
#   node(lo, hi, np, base, level) owns the points buf[lo:hi] and must become parts
#   base .. base+np-1.
#   * np == 1: out[point] = base for every point of the node.
#   * k slabs: k = part_counts[level] (multisection) or 2 (bisection).  Part counts
#     of the slabs: np/k each (multisection); bisection: np_left = floor(np/2), or with
#     prime_split and q = largest prime factor of np > 2: np_left = np/q * ceil(q/2).
#   * cut dimension c (a logical dimension, column dim_order[c]): longest extent
#     (max - min over the node's points; ties -> lowest c), or c = level mod d.
#   * slab boundaries: slab j receives the points between cumulative counts
#     share(n, np, C_j) where C_j = parts in slabs 0..j-1 and
#         share(n, np, C) = round_half_up(n * C / np)
#                         = (n // np) * C + (2 * (n % np) * C + np) // (2 * np)
#     (exact integer arithmetic; no overflow for np < 2**31).  With n >= np every part
#     ends with floor(n/np) or ceil(n/np) points (proof in mpitaskmap/partition.py).
#   * keys: key(i) = sign[c] * coords[i, dim_order[c]]; slabs hold consecutive ranges
#     of the points sorted by (key, original index) — found by std::nth_element
#     (introselect) at each boundary, never by a full sort.
#   * flips (orderings): before recursing into slab j the child's sign frame is the
#     parent's, with
#         Z    : nothing;
#         GRAY : all signs negated for odd j;
#         FZ   : sign[c] negated for odd j   (serpentine for k > 2);
#         MFZ  : sign[c] negated for even j  (the lower side is flipped).
#     Coordinates are never copied or modified: each frame has its own sign row.
#
# Arrays (n points, d dims, L = max_depth):
#   coords    (n, d)        float64, C-contiguous, finite          (input, const)
#   dim_order (d,)          intp, a permutation of 0..d-1          (input, const)
#   part_counts (levels,)   intp, product == n_parts, or empty     (input, const)
#   out       (n,)          intp, part id of each point            (output)
#   buf       (n,)          128-bit items: order-preserving bits of the key (high 64)
#                           and the original row index (low 64), so (key, index)
#                           order is one unsigned compare; each node's points are a
#                           contiguous range                      (work, 16 B/point)
#   signs     (L + 1, d)    float64 +-1 sign frame per recursion level  (work)
#   bounds    (L + 1, kmax + 1) slab boundaries per recursion level     (work)
#   preds     (L + 1, kmax + 1) predicted cut dimension of each slab     (work)
#   ext       (2, d)        min / max scratch for the extents            (work)
#
# Speed notes: the passes over a node gather coords[idx] at random, so the loops
# prefetch the row 16 items ahead; while scanning the extents the keys along a
# predicted cut dimension (from the parent's extents) are written too, saving the
# key pass when the prediction is right (a hint only: it never changes the result);
# nodes whose slabs are single parts write them out without recursing.
#
# Three-dimensional bisection (d == 3, no part_counts: the geometric mapper's case) runs
# _node3 on 28-byte records {x[3], idx} instead of 16-byte items: the records carry their
# coordinates, so no pass gathers coords[idx] at random, and the selection is bucketed
# (mj_select3: a counting pass over key buckets, a partition pass, and introselect only on
# the bucket holding the boundary; nothing more when the boundary is a bucket boundary, as
# on grids; nodes below MJ_BUCKET_MIN = 64 records use introselect directly).  Same
# (key, index) order, same parts; at 2**20 points about 2x less CPU time than the item
# kernel on a grid, 1.8x on random points (issue 13).  Work memory 28 bytes per point.
#
# Integer records (d == 3 bisection whose coordinates are all whole numbers in
# [-2**30, 2**30]: grids, tori, torus-shifted router coordinates): _node3i on 16-byte
# records {int32 x[3], idx}, keys s * x exact in int32, so the same (key, index) order
# and the same parts as the double records.  Per node one split pass (mj_split3i) that
# also computes both children's extents, so no node scans its records for its extents;
# before it, a grid box (n / (range + 1) records per key value) guesses the boundary value
# and keeps the split if exactly t records went left (checked, never assumed), otherwise
# a counting pass over key buckets (four interleaved histograms, one bucket per value when
# the range is small) finds the boundary bucket and introselect runs only inside it when
# the boundary is not a bucket boundary.  Two-point nodes compare their two records; a
# node whose records all sit at one point (cores sharing a router) sorts them by index
# once and cuts runs (every key ties, so index order decides every cut below it).  On
# the 2**20-task stencil and torus (issue 13, part 4) about 2x less CPU time per
# partition than the double records; 1.3-1.8x on random integer points.  Work memory 16
# bytes per point.
#
# Invariants: every buf range of a node at level l holds exactly the points of that
# node; sign rows 0..l are the flips on the path from the root; part ids of a node are
# contiguous and the lower slab has the lower ids.
#
# Tie-break rule: points are ordered by (key, original row index); -0.0 == 0.0.  The
# set of points sent to each slab is therefore uniquely defined, so the result does
# not depend on the selection algorithm, the platform or the input memory layout.
#
# Complexity: O(n * (d + 1)) expected per tree level (extents + introselect),
# O(n d log np) time in total (O(n log np) without longest_dim); O(n) extra memory
# (16 bytes per point; 28 for three-dimensional bisection of non-integer coordinates)
# plus O(depth * (d + kmax)).
# ===================================================================================

cimport cython
from libc.stdint cimport int64_t
from _topology cimport coord_t

import numpy as np

cdef extern from * nogil:
    """
    #include <algorithm>
    #include <cstdint>
    #include <cstring>
    /* One point in the work buffer: the order-preserving bit pattern of its key in the
       high 64 bits and its original row index in the low 64 bits, so that the (key,
       index) order is one unsigned 128-bit comparison. */
    typedef unsigned __int128 mj_item;
    static inline uint64_t mj_key_bits(double x) {
        x = x + 0.0;                     /* -0.0 -> +0.0: the two zeros tie */
        uint64_t u;
        std::memcpy(&u, &x, 8);
        return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
    }
    static inline double mj_key(mj_item it) {
        uint64_t u = (uint64_t)(it >> 64);
        u = (u >> 63) ? (u & 0x7FFFFFFFFFFFFFFFULL) : ~u;
        double x;
        std::memcpy(&x, &u, 8);
        return x;
    }
    static inline int64_t mj_idx(mj_item it) { return (int64_t)(uint64_t)it; }
    static inline mj_item mj_make(double key, int64_t idx) {
        return ((mj_item)mj_key_bits(key) << 64) | (mj_item)(uint64_t)idx;
    }
    static inline void mj_set_key(mj_item* it, double key) {
        *it = ((mj_item)mj_key_bits(key) << 64) | (mj_item)(uint64_t)(*it);
    }
    /* Prefetch the coordinate row of the point PF_DIST items ahead: the gathers
       coords[idx] are random accesses and dominate the passes over a node. */
    #define MJ_PF_DIST 16
    static inline void mj_prefetch_row(const double* coords, const mj_item* buf,
                                       Py_ssize_t i, Py_ssize_t hi, Py_ssize_t d) {
        Py_ssize_t j = i + MJ_PF_DIST < hi ? i + MJ_PF_DIST : hi - 1;
        __builtin_prefetch(coords + mj_idx(buf[j]) * d, 0, 0);
    }
    /* 16-byte aligned view of a work buffer of at least 2 * n + 2 int64. */
    static inline mj_item* mj_align(int64_t* p) {
        return (mj_item*)(((uintptr_t)p + 15) & ~(uintptr_t)15);
    }
    /* Introselect (std::nth_element): afterwards *nth is the (nth - first)-th smallest
       of [first, last) in (key, index) order, smaller ones before it, larger after. */
    static inline void mj_nth_element(mj_item* first, mj_item* nth, mj_item* last) {
        if (nth < last) std::nth_element(first, nth, last);
    }
    /* Three-dimensional bisection fast path: each point is a 28-byte record carrying its
       coordinates (in column order) and its row index, so no pass gathers coords[idx] at
       random (those gathers were most of the kernel's time at 10^6 points). */
    struct __attribute__((packed)) mj_p3 { double x[3]; int32_t idx; };
    struct mj_cmp3 {
        int col; double s;
        bool operator()(const mj_p3& a, const mj_p3& b) const {
            double ka = s * a.x[col] + 0.0, kb = s * b.x[col] + 0.0;
            return ka < kb || (ka == kb && a.idx < b.idx);
        }
    };
    /* Selection on records in (s * x[col], idx) order (the same order as mj_item's):
       afterwards [first, nth) holds the (nth - first) smallest records, [nth, last) the
       others (*nth is not necessarily the smallest of those).  Large ranges first bucket the keys: bucket(k) = floor((k - kmin) * scale)
       clamped to [0, MJ_NB) is non-decreasing in k, so every record of a lower bucket
       precedes every record of a higher one.  One counting pass finds the bucket of the
       nth record, two partition passes put the lower buckets in front and that bucket
       after them, and introselect runs on that bucket alone (on a grid: the points of one
       coordinate value).  kmin > kmax means "unknown": one more pass computes them. */
    #define MJ_NB 4096
    #define MJ_BUCKET_MIN 64
    static inline int mj_bucket3(const mj_p3& r, int col, double s, double kmin, double scale,
                                 int nb) {
        double v = (s * r.x[col] + 0.0 - kmin) * scale;
        return v > 0.0 ? (v < (double)(nb - 1) ? (int)v : nb - 1) : 0;
    }
    static void mj_select3(mj_p3* first, mj_p3* nth, mj_p3* last, int col, double s,
                           double kmin, double kmax) {
        if (nth >= last) return;
        ptrdiff_t n = last - first;
        if (n < MJ_BUCKET_MIN) {
            std::nth_element(first, nth, last, mj_cmp3{col, s});
            return;
        }
        if (kmin > kmax) {
            kmin = kmax = s * first[0].x[col] + 0.0;
            for (ptrdiff_t i = 1; i < n; ++i) {
                double k = s * first[i].x[col] + 0.0;
                kmin = k < kmin ? k : kmin;
                kmax = k > kmax ? k : kmax;
            }
        }
        int nb = n / 8 < MJ_NB ? (int)(n / 8) : MJ_NB;   /* ~8 records per bucket */
        double scale = (double)(nb - 1) / (kmax - kmin);
        if (!(kmax > kmin) || !(scale < 1e300)) {
            std::nth_element(first, nth, last, mj_cmp3{col, s});
            return;
        }
        ptrdiff_t cnt[MJ_NB];
        std::memset(cnt, 0, nb * sizeof(ptrdiff_t));
        for (ptrdiff_t i = 0; i < n; ++i) cnt[mj_bucket3(first[i], col, s, kmin, scale, nb)]++;
        ptrdiff_t t = nth - first, cum = 0;
        int bt = 0;
        while (cum + cnt[bt] <= t) cum += cnt[bt++];
        mj_p3* m1 = std::partition(first, last, [&](const mj_p3& r) {
            return mj_bucket3(r, col, s, kmin, scale, nb) < bt; });
        if (cum == t) return;   /* the boundary is a bucket boundary: split done */
        mj_p3* m2 = std::partition(m1, last, [&](const mj_p3& r) {
            return mj_bucket3(r, col, s, kmin, scale, nb) == bt; });
        std::nth_element(m1, nth, m2, mj_cmp3{col, s});
    }
    /* Integer fast path of the three-dimensional bisection: when every coordinate is a
       whole number in [-2**30, 2**30] (grids, tori, torus-shifted router coordinates) the
       records are 16-byte {int32 x[3], int32 idx} and the keys s * x are exact int32, so
       the order (key, idx) is the one of the double path.  Each node knows the extents
       of its records (computed by its parent's split pass, or by the record build at the
       root): no extents pass. */
    #ifndef MJ_IBUCKET_MIN
    #define MJ_IBUCKET_MIN 4
    #endif
    #ifndef MJ_HIST4_MIN
    #define MJ_HIST4_MIN 256
    #endif
    struct mj_i3 { int32_t x[3]; int32_t idx; };
    struct mj_ext3 { int32_t mn[3]; int32_t mx[3]; };
    static inline void mj_ext_empty(mj_ext3* e) {
        for (int k = 0; k < 3; ++k) { e->mn[k] = INT32_MAX; e->mx[k] = INT32_MIN; }
    }
    /* Running extents kept in locals (registers) inside the split loops. */
    struct mj_acc3 {
        int32_t a0, a1, a2, z0, z1, z2;
        explicit mj_acc3(const mj_ext3* e)
            : a0(e->mn[0]), a1(e->mn[1]), a2(e->mn[2]), z0(e->mx[0]), z1(e->mx[1]), z2(e->mx[2]) {}
        inline void add(const mj_i3& r) {
            a0 = r.x[0] < a0 ? r.x[0] : a0;  z0 = r.x[0] > z0 ? r.x[0] : z0;
            a1 = r.x[1] < a1 ? r.x[1] : a1;  z1 = r.x[1] > z1 ? r.x[1] : z1;
            a2 = r.x[2] < a2 ? r.x[2] : a2;  z2 = r.x[2] > z2 ? r.x[2] : z2;
        }
        inline void store(mj_ext3* e) const {
            e->mn[0] = a0; e->mn[1] = a1; e->mn[2] = a2; e->mx[0] = z0; e->mx[1] = z1; e->mx[2] = z2;
        }
    };
    /* In-place two-way partition (Hoare scheme, like std::partition): records with
       left(r) first; returns the boundary.  Adds every record whose side it settles to
       the extents of that side (AL: the left side, AR: the right side). */
    template <bool AL, bool AR, class P>
    static mj_i3* mj_partition_ext3(mj_i3* first, mj_i3* last, P left, mj_ext3* L, mj_ext3* R) {
        mj_acc3 l(L), r(R);
        for (;;) {
            while (first != last && left(*first)) { if (AL) l.add(*first); ++first; }
            if (first == last) break;
            --last;   /* *first belongs to the right side */
            while (first != last && !left(*last)) { if (AR) r.add(*last); --last; }
            if (first == last) { if (AR) r.add(*first); break; }
            std::swap(*first, *last);
            if (AL) l.add(*first);
            if (AR) r.add(*last);
            ++first;
        }
        l.store(L);
        r.store(R);
        return first;
    }
    /* Integer records of the (n, 3) float64 rows and their extents; false (rec partly
       written) as soon as a block holds a value that is not a whole number in
       [-2**30, 2**30] (NaN included).  Branch-free inside a block of rows. */
    static bool mj_build_i3(const double* coords, ptrdiff_t n, mj_i3* rec, mj_ext3* ext) {
        const double lim = 1073741824.0;
        mj_ext_empty(ext);
        mj_acc3 a(ext);
        for (ptrdiff_t start = 0; start < n; start += 4096) {
            ptrdiff_t end = start + 4096 < n ? start + 4096 : n;
            bool ok = true;
            for (ptrdiff_t i = start; i < end; ++i) {
                const double* row = coords + 3 * i;
                mj_i3 r;
                for (int k = 0; k < 3; ++k) {
                    double v = row[k];
                    double c = v > -lim ? v : -lim;   /* NaN -> -lim, then fails the test */
                    c = c < lim ? c : lim;
                    r.x[k] = (int32_t)c;
                    ok &= ((double)r.x[k] == v);
                }
                r.idx = (int32_t)i;
                rec[i] = r;
                a.add(r);
            }
            if (!ok) return false;
        }
        a.store(ext);
        return true;
    }
    static inline void mj_ext_scan3(const mj_i3* first, const mj_i3* last, mj_ext3* e) {
        mj_acc3 a(e);
        for (; first != last; ++first) a.add(*first);
        a.store(e);
    }
    /* Split records [first, last) at nth (first < nth < last) in (S * x[COL], idx) order,
       and write the extents of [first, nth) into L and of [nth, last) into R.  kmin, kmax:
       the key range of the node.  Large ranges count the keys in buckets
       ((key - kmin) >> sh, at most min(n / 2, MJ_NB) buckets: one bucket per value on
       grids), then one partition pass puts the lower buckets in front; only if the
       boundary falls inside a bucket, a second pass isolates that bucket and introselect
       orders it.  cnt: 4 * MJ_NB counters of scratch. */
    template <int COL, int S>
    static void mj_split3i_t(mj_i3* first, mj_i3* nth, mj_i3* last, int64_t kmin, int64_t kmax,
                             mj_ext3* L, mj_ext3* R, int32_t* cnt) {
        auto key = [](const mj_i3& r) -> int64_t { return (int64_t)S * r.x[COL]; };
        auto less = [&](const mj_i3& a, const mj_i3& b) {
            int64_t ka = key(a), kb = key(b);
            return ka < kb || (ka == kb && a.idx < b.idx);
        };
        ptrdiff_t n = last - first, t = nth - first;
        mj_ext_empty(L);
        mj_ext_empty(R);
        if (n < MJ_IBUCKET_MIN) {
            std::nth_element(first, nth, last, less);
            mj_ext_scan3(first, nth, L);
            mj_ext_scan3(nth, last, R);
            return;
        }
        int64_t range = kmax - kmin, cap = n / 2 < MJ_NB ? n / 2 : MJ_NB;
        /* A grid box has n / (range + 1) records per key value, and then the boundary is
           the value kmin + t / (records per value).  Guess it when the counts allow it:
           one partition pass, and the split is exactly right iff t records went left
           (every record with a smaller key is left of the boundary, the rest right).  A
           wrong guess costs that pass and the general path below runs. */
        if (n % (range + 1) == 0 && t % (n / (range + 1)) == 0) {
            int64_t guess = kmin + t / (n / (range + 1));
            mj_i3* mid = mj_partition_ext3<true, true>(first, last,
                [&](const mj_i3& r) { return key(r) < guess; }, L, R);
            if (mid - first == t) return;
            mj_ext_empty(L);
            mj_ext_empty(R);
        }
        int sh = 0;
        while ((range >> sh) >= cap) ++sh;
        int nb = (int)(range >> sh) + 1;
        /* on grids runs of equal keys are common: four interleaved histograms keep the
           increments of consecutive records independent (no store-to-load chain) */
        ptrdiff_t i = 0;
        if (n >= MJ_HIST4_MIN) {
            std::memset(cnt, 0, 4 * nb * sizeof(int32_t));
            int32_t *c1 = cnt + nb, *c2 = cnt + 2 * nb, *c3 = cnt + 3 * nb;
            for (; i + 4 <= n; i += 4) {
                cnt[(key(first[i]) - kmin) >> sh]++;
                c1[(key(first[i + 1]) - kmin) >> sh]++;
                c2[(key(first[i + 2]) - kmin) >> sh]++;
                c3[(key(first[i + 3]) - kmin) >> sh]++;
            }
            for (int b = 0; b < nb; ++b) cnt[b] += c1[b] + c2[b] + c3[b];
        } else {
            std::memset(cnt, 0, nb * sizeof(int32_t));
        }
        for (; i < n; ++i) cnt[(key(first[i]) - kmin) >> sh]++;
        ptrdiff_t cum = 0;
        int bt = 0;
        while (cum + cnt[bt] <= t) cum += cnt[bt++];
        int64_t lo_key = kmin + ((int64_t)bt << sh);   /* bucket bt holds keys [lo_key, hi_key) */
        if (cum == t) {   /* the boundary is a bucket boundary: one pass splits */
            mj_partition_ext3<true, true>(first, last, [&](const mj_i3& r) { return key(r) < lo_key; }, L, R);
            return;
        }
        int64_t hi_key = kmin + ((int64_t)(bt + 1) << sh);
        mj_i3* m1 = mj_partition_ext3<true, false>(first, last,
            [&](const mj_i3& r) { return key(r) < lo_key; }, L, R);
        mj_i3* m2 = mj_partition_ext3<false, true>(m1, last,
            [&](const mj_i3& r) { return key(r) < hi_key; }, L, R);
        std::nth_element(m1, nth, m2, less);
        mj_ext_scan3(m1, nth, L);
        mj_ext_scan3(nth, m2, R);
    }
    /* Records in index order (a node whose records all have the same coordinates: every
       key ties, in every dimension and with either sign). */
    static inline void mj_sort_idx3i(mj_i3* first, mj_i3* last) {
        std::sort(first, last, [](const mj_i3& a, const mj_i3& b) { return a.idx < b.idx; });
    }
    static void mj_split3i(mj_i3* first, mj_i3* nth, mj_i3* last, int col, int s,
                           int64_t kmin, int64_t kmax, mj_ext3* L, mj_ext3* R, int32_t* cnt) {
        if (s > 0) {
            if (col == 0) mj_split3i_t<0, 1>(first, nth, last, kmin, kmax, L, R, cnt);
            else if (col == 1) mj_split3i_t<1, 1>(first, nth, last, kmin, kmax, L, R, cnt);
            else mj_split3i_t<2, 1>(first, nth, last, kmin, kmax, L, R, cnt);
        } else {
            if (col == 0) mj_split3i_t<0, -1>(first, nth, last, kmin, kmax, L, R, cnt);
            else if (col == 1) mj_split3i_t<1, -1>(first, nth, last, kmin, kmax, L, R, cnt);
            else mj_split3i_t<2, -1>(first, nth, last, kmin, kmax, L, R, cnt);
        }
    }
    """
    ctypedef long long mj_item   # opaque for Cython: never used arithmetically here
    double mj_key(mj_item it)
    int64_t mj_idx(mj_item it)
    mj_item mj_make(double key, int64_t idx)
    void mj_set_key(mj_item* it, double key)
    mj_item* mj_align(int64_t* p)
    void mj_prefetch_row(const double* coords, const mj_item* buf, Py_ssize_t i,
                         Py_ssize_t hi, Py_ssize_t d)
    void mj_nth_element(mj_item* first, mj_item* nth, mj_item* last)
    ctypedef struct mj_p3:
        double x[3]
        int idx
    void mj_select3(mj_p3* first, mj_p3* nth, mj_p3* last, int col, double s,
                    double kmin, double kmax)
    ctypedef struct mj_i3:
        int x[3]
        int idx
    ctypedef struct mj_ext3:
        int mn[3]
        int mx[3]
    void mj_split3i(mj_i3* first, mj_i3* nth, mj_i3* last, int col, int s,
                    int64_t kmin, int64_t kmax, mj_ext3* L, mj_ext3* R, int* cnt)
    bint mj_build_i3(const double* coords, Py_ssize_t n, mj_i3* rec, mj_ext3* ext)
    enum: MJ_NB
    void mj_sort_idx3i(mj_i3* first, mj_i3* last)

ctypedef Py_ssize_t intp

ORDERING_Z = 0
ORDERING_GRAY = 1
ORDERING_FZ = 2
ORDERING_MFZ = 3

cdef enum:
    _Z = 0
    _GRAY = 1
    _FZ = 2
    _MFZ = 3

cdef enum:
    MJ_OK = 0
    MJ_DEPTH_EXCEEDED = -1
    MJ_BAD_SPLIT = -2
    MJ_NEED_RECORD_WORK = -3   # not integer: the 28-byte records need a larger work buffer


cdef struct MJState:
    const double* coords
    intp d
    const intp* dims
    int ordering
    bint longest
    const intp* pcounts
    intp n_levels
    bint prime
    mj_item* buf
    double* signs
    intp* bounds
    intp kmax
    double* ext
    intp* preds
    intp* out
    intp max_depth
    int* hist          # 4 * MJ_NB counters (integer records)


cdef inline intp _largest_prime_factor(intp m) noexcept nogil:
    """Largest prime factor of m >= 1 (1 for m == 1), by trial division."""
    cdef intp q = 1
    cdef intp f = 2
    while m % 2 == 0:
        m //= 2
        q = 2
    f = 3
    while f * f <= m:
        while m % f == 0:
            m //= f
            q = f
        f += 2
    if m > 1:
        q = m
    return q


cdef inline intp _left_parts(intp np_, bint prime) noexcept nogil:
    """Parts of the left child of a bisection of np_ >= 2 parts."""
    cdef intp q
    if prime:
        q = _largest_prime_factor(np_)
        if q > 2:
            return (np_ // q) * ((q + 1) // 2)
    return np_ // 2


cdef inline intp _share(intp n, intp np_, intp c) noexcept nogil:
    """round_half_up(n * c / np_) for 0 <= c <= np_, exact and overflow-free."""
    cdef intp q = n // np_
    cdef intp r = n % np_
    return q * c + (2 * r * c + np_) // (2 * np_)


cdef void _multiselect(mj_item* buf, intp lo, intp hi, const intp* b, intp a, intp e) noexcept nogil:
    """Place the order statistics b[a..e) (sorted, in [lo, hi]) of buf[lo:hi]."""
    cdef intp m
    while a < e:
        m = a + (e - a) // 2
        if b[m] < hi:
            mj_nth_element(buf + lo, buf + b[m], buf + hi)
        # left half recursively, right half iteratively
        _multiselect(buf, lo, b[m], b, a, m)
        lo = b[m] + 1
        a = m + 1


cdef void _extents3(MJState* st, intp lo, intp hi, intp pcol, double ps,
                    double* mn, double* mx) noexcept nogil:
    """Extents of buf[lo:hi] for d == 3 (register accumulators); writes key = ps * x[pcol]."""
    cdef const double* coords = st.coords
    cdef mj_item* buf = st.buf
    cdef intp c0 = st.dims[0], c1 = st.dims[1], c2 = st.dims[2], i
    cdef const double* row
    cdef double a0 = mn[0], a1 = mn[1], a2 = mn[2], b0 = mx[0], b1 = mx[1], b2 = mx[2]
    cdef double v0, v1, v2
    for i in range(lo, hi):
        mj_prefetch_row(coords, buf, i, hi, 3)
        row = coords + mj_idx(buf[i]) * 3
        v0 = row[c0]
        v1 = row[c1]
        v2 = row[c2]
        mj_set_key(&buf[i], ps * row[pcol])
        a0 = v0 if v0 < a0 else a0
        b0 = v0 if v0 > b0 else b0
        a1 = v1 if v1 < a1 else a1
        b1 = v1 if v1 > b1 else b1
        a2 = v2 if v2 < a2 else a2
        b2 = v2 if v2 > b2 else b2
    mn[0] = a0
    mn[1] = a1
    mn[2] = a2
    mx[0] = b0
    mx[1] = b1
    mx[2] = b2


cdef int _node(MJState* st, intp lo, intp hi, intp np_, intp base, intp level,
                intp pred) noexcept nogil:
    """Partition buf[lo:hi] into parts base .. base+np_-1 (one tree node, see header).

    pred is the predicted cut dimension (or -1): while scanning the extents the keys
    along pred are written as well, which saves one gather pass when it is right.
    """
    cdef intp i, c, j, k, col, sub, cum, npl, pcol
    cdef intp d = st.d
    cdef intp n = hi - lo
    cdef const double* row
    cdef const double* coords = st.coords
    cdef const intp* dims = st.dims
    cdef double v, s, ps, best, e, kmin, kmax_, lo_key, hi_key
    cdef double* mn
    cdef double* mx
    cdef double* frame
    cdef double* child
    cdef intp* b
    cdef intp* preds
    cdef mj_item* buf = st.buf
    cdef bint filled = False
    cdef int status

    if np_ == 1:
        for i in range(lo, hi):
            st.out[mj_idx(buf[i])] = base
        return MJ_OK
    if level >= st.max_depth:
        return MJ_DEPTH_EXCEEDED
    frame = st.signs + level * d

    # ---- slab count and part counts of the slabs
    if st.n_levels > 0:
        k = st.pcounts[level]
        if k < 1 or np_ % k != 0:
            return MJ_BAD_SPLIT
        sub = np_ // k
        npl = 0
    else:
        k = 2
        sub = 0
        npl = _left_parts(np_, st.prime)
    if k == 1:
        child = st.signs + (level + 1) * d
        for i in range(d):
            child[i] = frame[i]
        return _node(st, lo, hi, np_, base, level + 1, pred)

    # ---- cut dimension
    mn = st.ext
    mx = st.ext + d
    if st.longest and d > 1:
        row = coords + mj_idx(buf[lo]) * d
        for c in range(d):
            v = row[dims[c]]
            mn[c] = v
            mx[c] = v
        pcol = dims[pred] if pred >= 0 else dims[0]
        ps = frame[pred] if pred >= 0 else 0.0
        if d == 3:
            _extents3(st, lo, hi, pcol, ps, mn, mx)
        else:
            for i in range(lo, hi):
                mj_prefetch_row(coords, buf, i, hi, d)
                row = coords + mj_idx(buf[i]) * d
                mj_set_key(&buf[i], ps * row[pcol])
                for c in range(d):
                    v = row[dims[c]]
                    if v < mn[c]:
                        mn[c] = v
                    if v > mx[c]:
                        mx[c] = v
        j = 0
        best = mx[0] - mn[0]
        for c in range(1, d):
            e = mx[c] - mn[c]
            if e > best:
                best = e
                j = c
        c = j
        filled = (pred == c)
    else:
        c = level % d

    # ---- keys along the cut dimension (sign of this frame)
    col = dims[c]
    s = frame[c]
    if not filled:
        for i in range(lo, hi):
            mj_prefetch_row(coords, buf, i, hi, d)
            mj_set_key(&buf[i], s * coords[mj_idx(buf[i]) * d + col])

    # ---- slab boundaries and selection
    b = st.bounds + level * (st.kmax + 1)
    b[0] = lo
    for j in range(1, k):
        cum = j * sub if sub else npl
        b[j] = lo + _share(n, np_, cum)
    b[k] = hi
    _multiselect(buf, lo, hi, b, 1, k)

    # ---- all slabs are single parts: write them out (saves a call per leaf)
    if sub == 1 or (sub == 0 and np_ == 2):
        for j in range(k):
            for i in range(b[j], b[j + 1]):
                st.out[mj_idx(buf[i])] = base + j
        return MJ_OK

    # ---- predicted cut dimension of each slab: the parent's extents, with the extent
    #      along c replaced by the slab's key range (an upper bound).  Only a hint.
    preds = st.preds + level * (st.kmax + 1)
    for j in range(k):
        preds[j] = -1
    if st.longest and d > 1:
        if s > 0:
            kmin = mn[c]
            kmax_ = mx[c]
        else:
            kmin = -mx[c]
            kmax_ = -mn[c]
        for j in range(k):
            lo_key = mj_key(buf[b[j]]) if j > 0 else kmin
            hi_key = mj_key(buf[b[j + 1]]) if j + 1 < k else kmax_
            best = hi_key - lo_key
            preds[j] = c
            for i in range(d):
                if i != c and (mx[i] - mn[i] > best or (mx[i] - mn[i] == best and i < preds[j])):
                    best = mx[i] - mn[i]
                    preds[j] = i

    # ---- recurse, lower slab first, with the flipped sign frame
    child = st.signs + (level + 1) * d
    cum = 0
    for j in range(k):
        for i in range(d):
            child[i] = frame[i]
        if st.ordering == _GRAY:
            if j & 1:
                for i in range(d):
                    child[i] = -frame[i]
        elif st.ordering == _FZ:
            if j & 1:
                child[c] = -frame[c]
        elif st.ordering == _MFZ:
            if not (j & 1):
                child[c] = -frame[c]
        if sub:
            status = _node(st, b[j], b[j + 1], sub, base + cum, level + 1, preds[j])
            cum += sub
        else:
            status = _node(st, b[j], b[j + 1], npl if j == 0 else np_ - npl, base + cum,
                           level + 1, preds[j])
            cum += npl
        if status != MJ_OK:
            return status
    return MJ_OK


cdef int _node3(MJState* st, mj_p3* buf, intp lo, intp hi, intp np_, intp base, intp level,
                 double s0, double s1, double s2) noexcept nogil:
    """_node for d == 3 bisection on records (same tree, same result; see header).

    s0, s1, s2 are the signs of logical dimensions 0, 1, 2 in this frame.
    """
    cdef intp i, c, npl, b1
    cdef intp n = hi - lo
    cdef const intp* dims = st.dims
    cdef intp c0 = dims[0], c1 = dims[1], c2 = dims[2], col
    cdef double a0, a1, a2, z0, z1, z2, v0, v1, v2, e0, e1, e2, sc, lo_c, hi_c
    cdef int status
    if np_ == 1:
        for i in range(lo, hi):
            st.out[buf[i].idx] = base
        return MJ_OK
    if level >= st.max_depth:
        return MJ_DEPTH_EXCEEDED
    npl = _left_parts(np_, st.prime)
    if st.longest:
        a0 = z0 = buf[lo].x[c0]
        a1 = z1 = buf[lo].x[c1]
        a2 = z2 = buf[lo].x[c2]
        for i in range(lo + 1, hi):
            v0 = buf[i].x[c0]
            v1 = buf[i].x[c1]
            v2 = buf[i].x[c2]
            a0 = v0 if v0 < a0 else a0
            z0 = v0 if v0 > z0 else z0
            a1 = v1 if v1 < a1 else a1
            z1 = v1 if v1 > z1 else z1
            a2 = v2 if v2 < a2 else a2
            z2 = v2 if v2 > z2 else z2
        e0 = z0 - a0
        e1 = z1 - a1
        e2 = z2 - a2
        c = 0
        lo_c = a0
        hi_c = z0
        if e1 > e0:
            c = 1
            e0 = e1
            lo_c = a1
            hi_c = z1
        if e2 > e0:
            c = 2
            lo_c = a2
            hi_c = z2
    else:
        c = level % 3
        lo_c = 1.0  # unknown range: mj_select3 computes it
        hi_c = 0.0
    col = dims[c]
    sc = s0 if c == 0 else (s1 if c == 1 else s2)
    if sc < 0 and lo_c <= hi_c:
        v0 = lo_c
        lo_c = -hi_c
        hi_c = -v0
    b1 = lo + _share(n, np_, npl)
    mj_select3(buf + lo, buf + b1, buf + hi, <int>col, sc, lo_c + 0.0, hi_c + 0.0)
    if np_ == 2:
        for i in range(lo, b1):
            st.out[buf[i].idx] = base
        for i in range(b1, hi):
            st.out[buf[i].idx] = base + 1
        return MJ_OK
    # lower child
    if st.ordering == _MFZ:
        status = _node3(st, buf, lo, b1, npl, base, level + 1,
                        -s0 if c == 0 else s0, -s1 if c == 1 else s1, -s2 if c == 2 else s2)
    else:
        status = _node3(st, buf, lo, b1, npl, base, level + 1, s0, s1, s2)
    if status != MJ_OK:
        return status
    # upper child
    if st.ordering == _GRAY:
        return _node3(st, buf, b1, hi, np_ - npl, base + npl, level + 1, -s0, -s1, -s2)
    if st.ordering == _FZ:
        return _node3(st, buf, b1, hi, np_ - npl, base + npl, level + 1,
                      -s0 if c == 0 else s0, -s1 if c == 1 else s1, -s2 if c == 2 else s2)
    return _node3(st, buf, b1, hi, np_ - npl, base + npl, level + 1, s0, s1, s2)


cdef void _runs_by_index(MJState* st, const mj_i3* buf, intp lo, intp hi, intp np_,
                         intp base) noexcept nogil:
    """Parts of a node whose records (in index order) all have the same coordinates.

    Every key ties, so each cut sends the first share(n, np_, npl) records in index order
    to the lower parts, whatever the cut dimension and the flips: the parts are runs.
    """
    cdef intp i, npl, b1
    while np_ > 1:
        npl = _left_parts(np_, st.prime)
        b1 = lo + _share(hi - lo, np_, npl)
        _runs_by_index(st, buf, lo, b1, npl, base)
        lo = b1
        base += npl
        np_ -= npl
    for i in range(lo, hi):
        st.out[buf[i].idx] = base


cdef int _node3i(MJState* st, mj_i3* buf, intp lo, intp hi, intp np_, intp base, intp level,
                 int s0, int s1, int s2, const mj_ext3* ext) noexcept nogil:
    """_node3 on integer records (same tree, same result; see header).

    ext holds the per-column minimum and maximum of buf[lo:hi].
    """
    cdef intp i, c, npl, b1
    cdef intp n = hi - lo
    cdef const intp* dims = st.dims
    cdef int col, sc
    cdef int64_t e, best, kmin, kmax, ka, kb
    cdef mj_ext3 lower, upper
    cdef int status
    if np_ == 1:
        for i in range(lo, hi):
            st.out[buf[i].idx] = base
        return MJ_OK
    if level >= st.max_depth:
        return MJ_DEPTH_EXCEEDED
    npl = _left_parts(np_, st.prime)
    if st.longest:
        c = 0
        best = <int64_t>ext.mx[dims[0]] - ext.mn[dims[0]]
        for i in range(1, 3):
            e = <int64_t>ext.mx[dims[i]] - ext.mn[dims[i]]
            if e > best:
                best = e
                c = i
    else:
        c = level % 3
    col = <int>dims[c]
    sc = s0 if c == 0 else (s1 if c == 1 else s2)
    if sc > 0:
        kmin = ext.mn[col]
        kmax = ext.mx[col]
    else:
        kmin = -<int64_t>ext.mx[col]
        kmax = -<int64_t>ext.mn[col]
    if ext.mn[0] == ext.mx[0] and ext.mn[1] == ext.mx[1] and ext.mn[2] == ext.mx[2]:
        # all records at one point (cores sharing a router): index order decides
        mj_sort_idx3i(buf + lo, buf + hi)
        _runs_by_index(st, buf, lo, hi, np_, base)
        return MJ_OK
    if n == 2 and np_ == 2:   # one point per part: compare the two (key, index) pairs
        ka = sc * buf[lo].x[col]
        kb = sc * buf[lo + 1].x[col]
        i = 1 if ka < kb or (ka == kb and buf[lo].idx < buf[lo + 1].idx) else 0
        st.out[buf[lo].idx] = base + 1 - i
        st.out[buf[lo + 1].idx] = base + i
        return MJ_OK
    b1 = lo + _share(n, np_, npl)
    mj_split3i(buf + lo, buf + b1, buf + hi, col, sc, kmin, kmax, &lower, &upper, st.hist)
    if np_ == 2:
        for i in range(lo, b1):
            st.out[buf[i].idx] = base
        for i in range(b1, hi):
            st.out[buf[i].idx] = base + 1
        return MJ_OK
    # lower child
    if st.ordering == _MFZ:
        status = _node3i(st, buf, lo, b1, npl, base, level + 1,
                         -s0 if c == 0 else s0, -s1 if c == 1 else s1, -s2 if c == 2 else s2, &lower)
    else:
        status = _node3i(st, buf, lo, b1, npl, base, level + 1, s0, s1, s2, &lower)
    if status != MJ_OK:
        return status
    # upper child
    if st.ordering == _GRAY:
        return _node3i(st, buf, b1, hi, np_ - npl, base + npl, level + 1, -s0, -s1, -s2, &upper)
    if st.ordering == _FZ:
        return _node3i(st, buf, b1, hi, np_ - npl, base + npl, level + 1,
                       -s0 if c == 0 else s0, -s1 if c == 1 else s1, -s2 if c == 2 else s2, &upper)
    return _node3i(st, buf, b1, hi, np_ - npl, base + npl, level + 1, s0, s1, s2, &upper)


cdef int mj_kernel(const double[:, ::1] coords, const intp[::1] dim_order, intp n_parts,
                   int ordering, bint longest_dim, const intp[::1] part_counts,
                   bint prime_split, intp max_depth, intp kmax,
                   int64_t[::1] work, double[::1] signs, intp[::1] bounds,
                   double[::1] ext, intp[::1] preds, intp[::1] out) noexcept nogil:
    """Partition coords into n_parts parts; write the part of each point into out.

    Returns 0, or a negative status (depth exceeded / bad part_counts) that the
    Python wrapper turns into an exception.
    """
    cdef MJState st
    cdef intp i
    cdef intp n = coords.shape[0]
    cdef intp d = coords.shape[1]
    st.coords = &coords[0, 0]
    st.d = d
    st.dims = &dim_order[0]
    st.ordering = ordering
    st.longest = longest_dim
    st.n_levels = part_counts.shape[0]
    st.pcounts = &part_counts[0] if st.n_levels > 0 else NULL
    st.prime = prime_split
    st.buf = mj_align(&work[0])
    st.signs = &signs[0]
    st.bounds = &bounds[0]
    st.kmax = kmax
    st.ext = &ext[0]
    st.preds = &preds[0]
    st.out = &out[0]
    st.max_depth = max_depth
    cdef mj_p3* rec
    cdef const double* row
    cdef mj_ext3 root_ext
    if d == 3 and st.n_levels == 0 and n < 2147483647:
        # integer records (16 n bytes in the first 2 n int64 of the work buffer), then
        # the 4 * MJ_NB int32 bucket counters
        if work.shape[0] >= 2 * n + 2 * MJ_NB and mj_build_i3(st.coords, n, <mj_i3*> &work[0], &root_ext):
            st.hist = <int*> &work[2 * n]
            return _node3i(&st, <mj_i3*> &work[0], 0, n, n_parts, 0, 0, 1, 1, 1, &root_ext)
        # 28-byte double records: the wrapper retries with a larger buffer
        if work.shape[0] * 8 < 28 * n:
            return MJ_NEED_RECORD_WORK
        rec = <mj_p3*> &work[0]
        for i in range(n):
            row = st.coords + i * 3
            rec[i].x[0] = row[0]
            rec[i].x[1] = row[1]
            rec[i].x[2] = row[2]
            rec[i].idx = <int> i
        return _node3(&st, rec, 0, n, n_parts, 0, 0, 1.0, 1.0, 1.0)
    for i in range(n):
        st.buf[i] = mj_make(0.0, i)
    for i in range(d):
        st.signs[i] = 1.0
    return _node(&st, 0, n, n_parts, 0, 0, -1)


def mj_partition_kernel(const double[:, ::1] coords, const intp[::1] dim_order,
                        intp n_parts, int ordering, bint longest_dim,
                        const intp[::1] part_counts, bint prime_split, intp max_depth,
                        intp[::1] out):
    """Run the MJ kernel (no validation: call ``mpitaskmap.partition.mj_partition``).

    Parameters
    ----------
    coords : (n, d) float64, C-contiguous, finite; n >= n_parts >= 1, d >= 1.
    dim_order : (d,) intp permutation of 0..d-1 (logical dimension -> column).
    n_parts : int
    ordering : int, one of ORDERING_Z, ORDERING_GRAY, ORDERING_FZ, ORDERING_MFZ.
    longest_dim : bool
    part_counts : (levels,) intp, product == n_parts; empty for bisection.
    prime_split : bool
    max_depth : int, upper bound on the tree depth.
    out : (n,) intp, written with the part id of every point.

    Raises
    ------
    RuntimeError
        If the kernel reports an internal error (a bug, not bad input).
    """
    cdef intp n = coords.shape[0]
    cdef intp d = coords.shape[1]
    cdef intp kmax = 2
    cdef intp i
    cdef int status
    for i in range(part_counts.shape[0]):
        if part_counts[i] > kmax:
            kmax = part_counts[i]
    if n < 1 or d < 1 or out.shape[0] != n or dim_order.shape[0] != d:
        raise ValueError("mj_partition_kernel: inconsistent array shapes")
    # 16-byte items (2 n + 2 int64 with the alignment slack) or 16-byte integer records
    # and their bucket counters; 28-byte double records (d == 3, coordinates not all
    # integers) on a second try
    work = np.empty(2 * n + 2 * MJ_NB, dtype=np.int64)
    signs = np.empty((max_depth + 2) * d, dtype=np.float64)
    bounds = np.empty((max_depth + 2) * (kmax + 1), dtype=np.intp)
    ext = np.empty(2 * d, dtype=np.float64)
    preds = np.empty((max_depth + 2) * (kmax + 1), dtype=np.intp)
    cdef int64_t[::1] work_v = work
    cdef double[::1] signs_v = signs
    cdef intp[::1] bounds_v = bounds
    cdef double[::1] ext_v = ext
    cdef intp[::1] preds_v = preds
    with nogil:
        status = mj_kernel(coords, dim_order, n_parts, ordering, longest_dim, part_counts,
                           prime_split, max_depth, kmax, work_v, signs_v, bounds_v, ext_v, preds_v, out)
    if status == MJ_NEED_RECORD_WORK:
        work = np.empty((28 * n + 7) // 8, dtype=np.int64)
        work_v = work
        with nogil:
            status = mj_kernel(coords, dim_order, n_parts, ordering, longest_dim, part_counts,
                               prime_split, max_depth, kmax, work_v, signs_v, bounds_v, ext_v, preds_v, out)
    if status != MJ_OK:
        raise RuntimeError(f"mj_partition_kernel: internal error, status {status}")


@cython.boundscheck(False)
@cython.wraparound(False)
def column_histograms(const coord_t[:, ::1] coords, const int64_t[::1] lengths):
    """Per-column histograms of small non-negative integer coordinates, in one pass.

    Parameters
    ----------
    coords : (n, d) int16, int32 or int64 (router coordinates in their own type), C-contiguous
    lengths : (d,) int64, ``coords[:, k]`` must lie in ``[0, lengths[k])``

    Returns
    -------
    list of d int64 arrays, ``hist[k][v]`` = number of rows with ``coords[:, k] == v``

    Raises
    ------
    ValueError
        Naming the first row and column outside its range.
    """
    cdef intp n = coords.shape[0]
    cdef intp d = coords.shape[1]
    cdef intp i, k, bad_i = -1, bad_k = -1
    cdef int64_t v
    if lengths.shape[0] != d:
        raise ValueError("column_histograms: one length per column")
    offsets = np.zeros(d + 1, dtype=np.int64)
    for k in range(d):
        offsets[k + 1] = offsets[k] + max(lengths[k], 0)
    flat = np.zeros(int(offsets[d]), dtype=np.int64)
    cdef int64_t[::1] h = flat
    cdef int64_t[::1] off = offsets
    with nogil:
        for i in range(n):
            for k in range(d):
                v = coords[i, k]
                if v < 0 or v >= lengths[k]:
                    bad_i = i
                    bad_k = k
                    break
                h[off[k] + v] += 1
            if bad_i >= 0:
                break
    if bad_i >= 0:
        raise ValueError(f"row {bad_i} column {bad_k}: value {coords[bad_i, bad_k]} "
                         f"outside [0, {lengths[bad_k]})")
    return [flat[offsets[k]:offsets[k + 1]] for k in range(d)]


@cython.boundscheck(False)
@cython.wraparound(False)
def column_ranges(const double[:, ::1] coords):
    """Per-column minimum and maximum of a C-contiguous (n, d) float64 array in one pass.

    If any value is NaN every entry of the result is NaN; an infinity shows up as the
    minimum or maximum of its column, so non-finite input always shows in the result.  O(n d), no temporaries; about 10x faster than ``np.ptp(c, axis=0)`` for
    small d, where NumPy's reduction along axis 0 is slow.

    Returns
    -------
    (lo, hi) : two (d,) float64 arrays
    """
    cdef intp n = coords.shape[0]
    cdef intp d = coords.shape[1]
    cdef intp i, k
    cdef double v, a, b
    cdef bint nan = False
    if n < 1 or d < 1:
        raise ValueError("column_ranges: needs at least one row and one column")
    lo = np.array(coords[0], dtype=np.float64)
    hi = np.array(coords[0], dtype=np.float64)
    cdef double[::1] lo_v = lo
    cdef double[::1] hi_v = hi
    cdef double v1, v2, a1, b1, a2, b2
    if d == 3:  # the common case: one row-major pass, six register accumulators
        with nogil:
            a = b = coords[0, 0]
            a1 = b1 = coords[0, 1]
            a2 = b2 = coords[0, 2]
            for i in range(n):
                v = coords[i, 0]
                v1 = coords[i, 1]
                v2 = coords[i, 2]
                a = v if v < a else a
                b = v if v > b else b
                a1 = v1 if v1 < a1 else a1
                b1 = v1 if v1 > b1 else b1
                a2 = v2 if v2 < a2 else a2
                b2 = v2 if v2 > b2 else b2
                nan = nan | (v != v) | (v1 != v1) | (v2 != v2)
            lo_v[0] = a
            hi_v[0] = b
            lo_v[1] = a1
            hi_v[1] = b1
            lo_v[2] = a2
            hi_v[2] = b2
        if nan:
            lo[:] = np.nan
            hi[:] = np.nan
        return lo, hi
    with nogil:
        for k in range(d):  # column by column: branch-free min/max (minsd/maxsd)
            a = coords[0, k]
            b = a
            for i in range(1, n):
                v = coords[i, k]
                a = v if v < a else a
                b = v if v > b else b
                nan = nan | (v != v)
            lo_v[k] = a
            hi_v[k] = b
            nan = nan | (a != a)
    if nan:
        lo[:] = np.nan
        hi[:] = np.nan
    return lo, hi


def _py_largest_prime_factor(intp m):
    """Python wrapper used for testing: largest prime factor of m >= 1."""
    return _largest_prime_factor(m)


def _py_left_parts(intp np_, bint prime_split):
    """Python wrapper used for testing: parts of the left child of np_ >= 2 parts."""
    return _left_parts(np_, prime_split)


def _py_share(intp n, intp np_, intp c):
    """Python wrapper used for testing: round_half_up(n * c / np_)."""
    return _share(n, np_, c)
