# Fluid (flow-level) replay of one exchange step: weighted max-min bandwidth sharing.
#
# Algorithm  : every message is a flow that starts at its start time (its route's latency),
#              then progresses at factor[f] * x[f] bytes/s until its bytes are sent.  While
#              the set of active flows is unchanged the rates x are the weighted max-min fair
#              allocation of SimGrid's LMM solver: a flow of sharing penalty pen[f] consumes
#              cons * x[f] of each constraint (link) it crosses, and progressive filling
#              raises level lambda with x[f] = lambda / pen[f] until a link is full; the flows
#              of the full link are fixed, the rest go on.  The rates are recomputed at every
#              event (a flow starts, a flow ends), for the flows connected to the ones that
#              changed; flows that end within a relative 1e-9 of one instant end together.
# Arrays     : flows in CSR: fptr (n_flows+1,) int64, flink (nnz,) int64 link ids, fcons (nnz,)
#              float64 consumption; the transpose lptr (n_links+1,) int64, lflow (nnz,) int64
#              flow ids (the consumption is looked up through the flow side); cap (n_links,)
#              bytes/s; pen, start (s), size (bytes), factor (n_flows,) float64;
#              order (n_flows,) int64 the flows by start time; finish (n_flows,) float64 out.
# Invariants : every flow crosses at least one link of positive capacity with a positive
#              consumption; pen > 0, factor > 0, size > 0 (the caller validates).
# Complexity : per event O(active flows), plus O(nnz x log nnz) over the flows whose rates are
#              recomputed: only those connected to a link whose flows changed (a max-min
#              allocation splits over connected components), through a binary heap of the
#              links keyed by remaining capacity / usage, updated lazily (keys only rise).  At most twice as many events
#              as flows; far fewer when flows share start times and rates.
# Source     : ALGORITHMS.md section 10 (the judge's fluid replay); SimGrid's lmm maxmin solver (the semantics,
#              not the code).

from libc.stdlib cimport malloc, free
from libc.math cimport INFINITY

cdef struct HeapEntry:
    double key
    long long link


cdef inline void _heap_push(HeapEntry* heap, long long* n, double key, long long link) noexcept nogil:
    cdef long long i = n[0], parent
    n[0] += 1
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent].key <= key:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i].key = key
    heap[i].link = link


cdef inline HeapEntry _heap_pop(HeapEntry* heap, long long* n) noexcept nogil:
    cdef HeapEntry top = heap[0], last
    cdef long long i = 0, child, size
    n[0] -= 1
    size = n[0]
    if size == 0:
        return top
    last = heap[size]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1].key < heap[child].key:
            child += 1
        if heap[child].key >= last.key:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = last
    return top


cdef inline double _level(double remaining, double usage) noexcept nogil:
    if remaining <= 0.0:
        return 0.0
    return remaining / usage


cdef inline long long _push_links(long long f, const long long[::1] fptr, const long long[::1] flink,
                                  long long* mark, long long* out, long long n_out,
                                  long long stamp) noexcept nogil:
    """Append the links of flow f not yet marked with stamp to out (and mark them); return the count."""
    cdef long long e, l
    for e in range(fptr[f], fptr[f + 1]):
        l = flink[e]
        if mark[l] != stamp:
            mark[l] = stamp
            out[n_out] = l
            n_out += 1
    return n_out


cdef inline void _try_start(long long f, double t, const long long[::1] src, const long long[::1] dst,
                            const double[::1] delay, long long* fstep, long long* rstep, char* state,
                            HeapEntry* starts, long long* n_starts, long long n_steps) noexcept nogil:
    """Queue flow f's next instance when both its ranks have posted that step (MPI's matching)."""
    cdef long long k = fstep[f]
    if state[f] == 0 and k < n_steps and rstep[src[f]] >= k and rstep[dst[f]] >= k:
        state[f] = 3
        _heap_push(starts, n_starts, t + delay[f], f)


cdef inline void _post_step(long long r, double t, const long long[::1] src, const long long[::1] dst,
                            const double[::1] delay, long long* fstep, long long* rstep, char* state,
                            HeapEntry* starts, long long* n_starts, long long n_steps, long long* pend,
                            const long long* need, const long long* rptr, const long long* rflow) noexcept nogil:
    """Rank r has ended its step at t: it posts the next one, whose messages start once matched."""
    cdef long long e
    rstep[r] += 1
    if rstep[r] >= n_steps:
        return
    pend[r] = need[r]
    for e in range(rptr[r], rptr[r + 1]):
        _try_start(rflow[e], t, src, dst, delay, fstep, rstep, state, starts, n_starts, n_steps)


def fluid_replay(const long long[::1] fptr, const long long[::1] flink, const double[::1] fcons,
                 const long long[::1] lptr, const long long[::1] lflow, const double[::1] cap,
                 const double[::1] pen, const double[::1] delay, const double[::1] size,
                 const double[::1] factor, const long long[::1] src, const long long[::1] dst,
                 const unsigned char[::1] sender_waits, long long n_ranks, long long n_steps,
                 double[::1] finish, long long max_work=0, double quantum=0.0):
    """Replay ``n_steps`` exchange steps; write every flow's last end time into ``finish``.

    Flow ``f`` is the message of rank ``src[f]`` to rank ``dst[f]`` in every step.  Every rank
    posts step 0 at time 0; the message of step k starts ``delay[f]`` seconds after both of
    its ranks have posted step k; a rank ends its step when every message of the step it
    receives has arrived, and every one it sends whose ``sender_waits[f]`` is nonzero (a
    synchronous send), and posts the next at once.  With ``n_steps`` = 1 every message
    starts at ``delay[f]``.

    With ``quantum`` > 0 (seconds) the rates are recomputed at most once a quantum: after a
    recomputation at t the next is at t + max(quantum, time to the next end or start).  A
    message that ends in between ends at its own instant (its rank posts the next step then)
    but the bandwidth it frees waits for the next recomputation, and a message due to start
    in between starts at it: each start and each reallocation at most one quantum late, and
    at most makespan / quantum + 1 recomputations whatever the messages' drift.

    Returns ``(makespan, n_events, work)``: the last end time (s), the number of events
    (rate recomputations) and the work, the route entries of the flows whose rates they
    recomputed, summed.  With ``max_work`` > 0 the replay stops once the work passes it and
    returns a makespan of -1.
    """
    cdef long long n_flows = pen.shape[0], n_links = cap.shape[0], nnz = flink.shape[0]
    cdef long long f, g, e, e2, l, l2, k, r, n_active = 0, n_done = 0, n_events = 0, heap_n, n_starts = 0
    cdef long long n_comp, n_seeds = 0, n_queue, head, work = 0, total
    cdef double t = 0.0, dt, tf, level, a, xf, horizon, tnow, tend, tlast = 0.0
    cdef bint stuck = False, over = False
    cdef HeapEntry top
    if fptr.shape[0] != n_flows + 1 or lptr.shape[0] != n_links + 1 or fcons.shape[0] != nnz \
            or lflow.shape[0] != nnz or delay.shape[0] != n_flows or size.shape[0] != n_flows \
            or factor.shape[0] != n_flows or src.shape[0] != n_flows or dst.shape[0] != n_flows \
            or sender_waits.shape[0] != n_flows or finish.shape[0] != n_flows:
        raise ValueError("fluid_replay: inconsistent array shapes")
    if not quantum >= 0.0 or quantum == INFINITY:
        raise ValueError("fluid_replay: quantum must be finite and >= 0")
    if n_steps < 1 or n_ranks < 0:
        raise ValueError("fluid_replay: n_steps must be >= 1 and n_ranks >= 0")
    for f in range(n_flows):
        if src[f] < 0 or src[f] >= n_ranks or dst[f] < 0 or dst[f] >= n_ranks:
            raise ValueError("fluid_replay: a rank id of src or dst is out of range")
    if n_flows == 0:
        return 0.0, 0, 0
    total = n_flows * n_steps
    cdef double* x = <double*> malloc(n_flows * sizeof(double))
    cdef double* rem = <double*> malloc(n_flows * sizeof(double))
    cdef char* state = <char*> malloc(n_flows * sizeof(char))  # 0 idle, 3 queued, 1 active
    cdef char* fixed = <char*> malloc(n_flows * sizeof(char))
    cdef long long* active = <long long*> malloc(n_flows * sizeof(long long))
    cdef long long* comp = <long long*> malloc(n_flows * sizeof(long long))
    cdef long long* fmark = <long long*> malloc(n_flows * sizeof(long long))
    cdef long long* fstep = <long long*> malloc(n_flows * sizeof(long long))
    cdef HeapEntry* starts = <HeapEntry*> malloc((n_flows + 1) * sizeof(HeapEntry))
    cdef long long* rstep = <long long*> malloc((n_ranks + 1) * sizeof(long long))
    cdef long long* pend = <long long*> malloc((n_ranks + 1) * sizeof(long long))
    cdef double* rlast = <double*> malloc((n_ranks + 1) * sizeof(double))
    cdef long long* need = <long long*> malloc((n_ranks + 1) * sizeof(long long))
    cdef long long* rptr = <long long*> malloc((n_ranks + 2) * sizeof(long long))
    cdef long long* rflow = <long long*> malloc((2 * n_flows + 1) * sizeof(long long))
    cdef double* usage = <double*> malloc(n_links * sizeof(double))
    cdef double* remaining = <double*> malloc(n_links * sizeof(double))
    cdef long long* n_free = <long long*> malloc(n_links * sizeof(long long))
    cdef long long* touched = <long long*> malloc(n_links * sizeof(long long))
    cdef long long* queue = <long long*> malloc(n_links * sizeof(long long))
    cdef long long* lmark = <long long*> malloc(n_links * sizeof(long long))
    cdef long long* seeds = <long long*> malloc(n_links * sizeof(long long))
    cdef long long* lseed = <long long*> malloc(n_links * sizeof(long long))
    cdef HeapEntry* heap = <HeapEntry*> malloc((n_links + 1) * sizeof(HeapEntry))
    cdef long long n_touched
    if (x == NULL or rem == NULL or state == NULL or fixed == NULL or active == NULL or comp == NULL
            or fmark == NULL or fstep == NULL or starts == NULL or rstep == NULL or pend == NULL or rlast == NULL
            or need == NULL or rptr == NULL or rflow == NULL or usage == NULL or remaining == NULL
            or n_free == NULL or touched == NULL or queue == NULL or lmark == NULL or seeds == NULL
            or lseed == NULL or heap == NULL):
        free(x); free(rem); free(state); free(fixed); free(active); free(comp); free(fmark); free(fstep)
        free(starts); free(rstep); free(pend); free(rlast); free(need); free(rptr); free(rflow); free(usage)
        free(remaining); free(n_free); free(touched); free(queue); free(lmark); free(seeds)
        free(lseed); free(heap)
        raise MemoryError("fluid_replay: cannot allocate the solver state")
    with nogil:
        for f in range(n_flows):
            rem[f] = size[f]
            state[f] = 0
            x[f] = 0.0
            fmark[f] = -1
            fstep[f] = 0
        for l in range(n_links):
            n_free[l] = 0
            lmark[l] = -1
            lseed[l] = -1
        # the flows of every rank (CSR) and how many a step waits for
        for r in range(n_ranks + 2):
            rptr[r] = 0
        for r in range(n_ranks):
            need[r] = 0
            rlast[r] = 0.0
        for f in range(n_flows):
            rptr[src[f] + 2] += 1
            need[dst[f]] += 1
            if sender_waits[f]:
                need[src[f]] += 1
            if dst[f] != src[f]:
                rptr[dst[f] + 2] += 1
        for r in range(n_ranks):
            rptr[r + 2] += rptr[r + 1]
        for f in range(n_flows):
            rflow[rptr[src[f] + 1]] = f
            rptr[src[f] + 1] += 1
            if dst[f] != src[f]:
                rflow[rptr[dst[f] + 1]] = f
                rptr[dst[f] + 1] += 1
        for r in range(n_ranks):  # a rank that waits for nothing is never behind
            pend[r] = need[r]
            rstep[r] = 0 if need[r] > 0 else n_steps
        for f in range(n_flows):
            _try_start(f, 0.0, src, dst, delay, fstep, rstep, state, starts, &n_starts, n_steps)
        while n_done < total:
            # flows whose latency has elapsed join; their links' sharing changes
            while n_starts > 0 and starts[0].key <= t:
                top = _heap_pop(starts, &n_starts)
                f = top.link
                state[f] = 1
                rem[f] = size[f]
                active[n_active] = f
                n_active += 1
                n_seeds = _push_links(f, fptr, flink, lseed, seeds, n_seeds, n_events)
            if n_active == 0:
                if n_starts == 0:
                    stuck = True
                    break
                t = starts[0].key
                continue
            # the flows whose rates can change: those connected to a changed link through
            # links they share (a max-min allocation splits over connected components)
            n_comp = 0
            n_queue = 0
            for k in range(n_seeds):
                l = seeds[k]
                lmark[l] = n_events
                queue[n_queue] = l
                n_queue += 1
            n_seeds = 0
            head = 0
            while head < n_queue:
                l = queue[head]
                head += 1
                for e in range(lptr[l], lptr[l + 1]):
                    f = lflow[e]
                    if state[f] != 1 or fmark[f] == n_events:
                        continue
                    fmark[f] = n_events
                    comp[n_comp] = f
                    n_comp += 1
                    n_queue = _push_links(f, fptr, flink, lmark, queue, n_queue, n_events)
            n_events += 1
            for k in range(n_comp):
                work += fptr[comp[k] + 1] - fptr[comp[k]]
            if max_work > 0 and work > max_work:
                over = True
                break
            # weighted max-min rates of the component (progressive filling)
            n_touched = 0
            for k in range(n_comp):
                f = comp[k]
                fixed[f] = 0
                for e in range(fptr[f], fptr[f + 1]):
                    l = flink[e]
                    if n_free[l] == 0:
                        touched[n_touched] = l
                        n_touched += 1
                        usage[l] = 0.0
                        remaining[l] = cap[l]
                    n_free[l] += 1
                    usage[l] += fcons[e] / pen[f]
            # a link's level (remaining / usage) only rises as flows elsewhere are fixed, so
            # a stored key is a lower bound: a popped link whose level rose past the next key
            # goes back with its new level, else it is the fullest and its flows are fixed
            heap_n = 0
            for k in range(n_touched):
                l = touched[k]
                _heap_push(heap, &heap_n, _level(remaining[l], usage[l]), l)
            while heap_n > 0:
                top = _heap_pop(heap, &heap_n)
                l = top.link
                if n_free[l] == 0:
                    continue
                level = _level(remaining[l], usage[l])
                if heap_n > 0 and level > heap[0].key:
                    _heap_push(heap, &heap_n, level, l)
                    continue
                for e in range(lptr[l], lptr[l + 1]):
                    f = lflow[e]
                    if state[f] != 1 or fixed[f]:
                        continue
                    fixed[f] = 1
                    xf = level / pen[f]
                    x[f] = xf
                    for e2 in range(fptr[f], fptr[f + 1]):
                        l2 = flink[e2]
                        a = fcons[e2]
                        remaining[l2] -= a * xf
                        usage[l2] -= a / pen[f]
                        n_free[l2] -= 1
            # the next event: a flow ends or a queued flow starts
            dt = INFINITY
            for k in range(n_active):
                f = active[k]
                if x[f] > 0.0:
                    tf = rem[f] / (factor[f] * x[f])
                    if tf < dt:
                        dt = tf
            if n_starts > 0 and starts[0].key - t < dt:
                dt = starts[0].key - t
            if dt == INFINITY:
                stuck = True
                break
            if quantum > dt:  # the next recomputation waits a quantum; ends until then keep their own instant
                dt = quantum
                horizon = dt
            else:
                horizon = dt * (1.0 + 1e-9)
            tnow = t + dt
            g = 0
            for k in range(n_active):
                f = active[k]
                if x[f] > 0.0 and rem[f] / (factor[f] * x[f]) <= horizon:
                    tend = tnow if quantum == 0.0 else t + rem[f] / (factor[f] * x[f])
                    state[f] = 0
                    rem[f] = 0.0
                    finish[f] = tend
                    if tend > tlast:
                        tlast = tend
                    fstep[f] += 1
                    n_done += 1
                    n_seeds = _push_links(f, fptr, flink, lseed, seeds, n_seeds, n_events)
                    # the message has arrived: its receiver (and a synchronous sender) may
                    # end the step, at its last arrival, and post the next, whose messages
                    # then queue
                    r = dst[f]
                    pend[r] -= 1
                    if tend > rlast[r]:
                        rlast[r] = tend
                    if pend[r] == 0:
                        _post_step(r, rlast[r], src, dst, delay, fstep, rstep, state, starts, &n_starts, n_steps,
                                   pend, need, rptr, rflow)
                    if sender_waits[f]:
                        r = src[f]
                        pend[r] -= 1
                        if tend > rlast[r]:
                            rlast[r] = tend
                        if pend[r] == 0:
                            _post_step(r, rlast[r], src, dst, delay, fstep, rstep, state, starts, &n_starts,
                                       n_steps, pend, need, rptr, rflow)
                else:
                    rem[f] -= factor[f] * x[f] * dt
                    active[g] = f
                    g += 1
            n_active = g
            t = tnow
    free(x); free(rem); free(state); free(fixed); free(active); free(comp); free(fmark); free(fstep)
    free(starts); free(rstep); free(pend); free(rlast); free(need); free(rptr); free(rflow); free(usage)
    free(remaining); free(n_free); free(touched); free(queue); free(lmark); free(seeds)
    free(lseed); free(heap)
    if stuck:
        raise RuntimeError("fluid_replay: no active flow can progress (a zero rate); check capacities")
    if over:
        return -1.0, n_events, work
    return tlast, n_events, work
