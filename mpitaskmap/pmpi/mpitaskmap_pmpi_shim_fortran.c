/* The traffic recorder's Fortran entry points in the preloaded shim: mpif.h and `use mpi` (gfortran's
 * spellings mpi_send_, mpi_send__, mpi_send, MPI_SEND) and Open MPI's `use mpi_f08` (mpi_send_f08_).
 *
 * Why.  Open MPI's Fortran bindings call PMPI_Send ... themselves (its mpif.h / `use mpi` bindings in
 * libmpi_mpifh import PMPI_Init, PMPI_Send, PMPI_Start ...; its `use mpi_f08` ones call those through
 * ompi_send_f ...), so the C MPI_Send of mpitaskmap_pmpi_shim.c never sees a Fortran send, and its
 * Fortran MPI_INIT calls PMPI_Init: without these entry points a Fortran program would never even
 * start the recorder.
 *
 * How.  Each entry point calls the process's own Fortran binding of the same name (the next
 * definition after this library, found once as the shim's other calls are: next()), unchanged, so
 * MPI converts the handles, MPI_BOTTOM, the statuses and reports errors exactly as without this
 * library; then, when recording and the binding's ierror is 0 (MPI_SUCCESS), it hands the call's
 * Fortran arguments to the core (mpitaskmap_record_f_*, mpitaskmap_pmpi_record_fortran.c), which
 * converts the handles (MPI_Comm_f2c ...) and calls the recorder's note functions.  `use mpi_f08`'s
 * ierror is OPTIONAL (a null address when absent): then the binding is given a local ierror, which
 * changes nothing the caller can see (the binding only stores it).  Exceptions, where the binding
 * itself would do no more than the C call:
 *   MPI_INIT, MPI_INIT_THREAD: the binding, then the recorder starts as after C's MPI_Init;
 *   MPI_FINALIZE: the core's finalize (merge, then PMPI_Finalize) where the core runs, as the C
 *     MPI_Finalize does (the binding would only call PMPI_Finalize, past the merge);
 *   MPI_PCONTROL while recording: the core's pcontrol (PMPI_Pcontrol and the window), as in C.
 *   MPI_REQUEST_FREE: the request's C handle is taken before the binding frees it.
 *
 * Cost.  Nothing for a process that calls none of them (a C program, mpiexec): no constructor, no
 * state.  Not recording, a call costs one test of `recording` and a call through a pointer.
 *
 * This file uses the shim's state (recording, core, core_ready, decided, decide, next, speaks,
 * start_recording):
 * it is compiled in the same translation unit, after mpitaskmap_pmpi_shim.c (mpitaskmap.runtime.pmpi
 * builds one unit that includes both).  It depends on no MPI header either: every argument is an
 * address (handles, counts and ranks are Fortran INTEGERs, MPI_Fint, int in every MPI this runs on;
 * f08 handles are derived types whose one component MPI_VAL sits at the address passed).
 *
 * An MPI whose Fortran bindings call the C MPI_Send (MPICH's mpif.h and `use mpi` ones) reaches the C
 * entry points as well, which count the call: each entry point finds out on its first successful call
 * while recording whether its binding went there (F_BINDING) and then leaves the count to them, so that
 * every call is counted once.  MPICH's `use mpi_f08` calls with a buffer have other names (mpi_send_f08ts_)
 * and call the C MPI_Send ... (counted there); its calls without one (mpi_start_f08_, mpi_barrier_init_f08_)
 * call PMPI_Start ... and are counted here.  Tested with Debian's Open MPI 4.1 and MPICH 4.0. */

/* The core's Fortran entry points (mpitaskmap_pmpi_record_fortran.c), arguments as the binding got them. */
typedef void* fptr;
static struct {
  void (*send)(fptr comm, fptr dest, fptr count, fptr type);
  void (*send_init)(fptr comm, fptr dest, fptr count, fptr type, fptr request);
  void (*start)(fptr count, fptr requests); /* count NULL: one request (MPI_START) */
  int64_t (*request_c)(fptr request);
  void (*request_freed)(int64_t c_request);
  void (*put)(fptr win, fptr target, fptr count, fptr type);
  void (*get)(fptr win, fptr target, fptr count, fptr type);
  void (*get_accumulate)(fptr win, fptr target, fptr ocount, fptr otype, fptr rcount, fptr rtype, fptr op);
  void (*fetch_and_op)(fptr win, fptr target, fptr type, fptr op);
  void (*compare_and_swap)(fptr win, fptr target, fptr type);
  void (*neighbor)(int kind, fptr comm, fptr count, fptr type, fptr counts, fptr types, fptr request);
  int (*collective_id)(const char* name);
  void (*collective)(int which, fptr comm, fptr request, fptr root, fptr sbuf, fptr rbuf, fptr scount, fptr stype,
                     fptr scounts, fptr stypes, fptr rcount, fptr rtype, fptr rcounts, fptr rtypes);
} fcore;
static int fcore_ready;
static pthread_once_t f_decided = PTHREAD_ONCE_INIT;

/* The core's Fortran entry points, from the core the shim loaded (found by one of its functions). */
static void f_decide(void)
{
  pthread_once(&decided, decide);
  Dl_info where;
  if (!core_ready || !dladdr(*(void**)&core.finalize, &where) || !where.dli_fname)
    return;
  void* h = dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return;
  static const char* const names[] = {
      "mpitaskmap_record_f_send", "mpitaskmap_record_f_send_init", "mpitaskmap_record_f_start",
      "mpitaskmap_record_f_request_c", "mpitaskmap_record_f_request_freed", "mpitaskmap_record_f_put",
      "mpitaskmap_record_f_get", "mpitaskmap_record_f_get_accumulate", "mpitaskmap_record_f_fetch_and_op",
      "mpitaskmap_record_f_compare_and_swap", "mpitaskmap_record_f_neighbor", "mpitaskmap_record_f_collective_id",
      "mpitaskmap_record_f_collective"};
  void** slots = (void**)&fcore;
  int all = 1;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    all &= (slots[i] = dlsym(h, names[i])) != NULL;
  dlclose(h); /* only the reference NOLOAD took */
  fcore_ready = all;
  if (!all && speaks()) {
    fprintf(stderr, "mpitaskmap: %s lacks its Fortran entry points (a stale build? rebuild: mpitaskmap --pmpi-lib): "
            "Fortran calls are not recorded\n", where.dli_fname);
    fflush(stderr);
  }
}

/* Whether a Fortran call that succeeded is to be handed to the core. */
static inline int f_recording(const int* ierror)
{
  if (!recording || *ierror != 0)
    return 0;
  pthread_once(&f_decided, f_decide);
  return fcore_ready;
}

/* Calls MPI's own binding (CALL, which sets *err) and, on the entry point's first successful call while recording,
 * notes whether the binding went through this library's C entry points (mpitaskmap_pmpi_shim.c, C_ENTRY_REACHED:
 * MPICH's mpif.h and `use mpi` bindings call MPI_Send ..., which count there) or not (Open MPI's call PMPI_Send
 * ..., and so do MPICH's `use mpi_f08` ones for calls without a buffer).  via_c, one per entry point: -1 not
 * known yet, 1 the C side counts the call, 0 this entry point does (F_COUNTS). */
#define F_BINDING(CALL)                                                                                               \
  static int via_c = -1;                                                                                              \
  int probe_ = recording && __atomic_load_n(&via_c, __ATOMIC_RELAXED) < 0;                                            \
  if (probe_) {                                                                                                       \
    f_probe_state = 1;                                                                                                \
    __atomic_fetch_add(&f_probing, 1, __ATOMIC_RELAXED);                                                              \
  }                                                                                                                   \
  CALL;                                                                                                               \
  if (probe_) {                                                                                                       \
    __atomic_fetch_sub(&f_probing, 1, __ATOMIC_RELAXED);                                                              \
    if (*err == 0)                                                                                                    \
      __atomic_store_n(&via_c, f_probe_state == 2, __ATOMIC_RELAXED);                                                 \
    f_probe_state = 0;                                                                                                \
  }

/* Whether the call F_BINDING just made is this entry point's to count: it succeeded, the recorder runs, and the
 * binding did not count it through the C entry points. */
#define F_COUNTS() (__atomic_load_n(&via_c, __ATOMIC_RELAXED) == 0 && f_recording(err))

/* The binding's ierror: the caller's, or a local one where `use mpi_f08`'s OPTIONAL ierror is absent. */
#define IERROR(arg) int local_ierror_ = 0, *err = (arg) ? (int*)(arg) : &local_ierror_

/* The process's own Fortran binding `name`, with `nargs` pointer arguments, found once. */
#define OWN_F(name, ...)                                                                                              \
  static void (*own)(__VA_ARGS__);                                                                                    \
  if (!own)                                                                                                           \
  *(void**)&own = next(name)

/* Every spelling of one Fortran entry point: DEF(symbol) for mpif.h / `use mpi` (gfortran's one and
 * two underscores, none, upper case) and `use mpi_f08` (Open MPI's mpi_..._f08_). */
#define SPELLINGS(DEF, lower, UPPER) DEF(lower##_) DEF(lower##__) DEF(lower) DEF(UPPER) DEF(lower##_f08_)

/* -- MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE, MPI_PCONTROL ------------------------------------------- */

#define F_INIT(name)                                                                                                  \
  void name(fptr ierror)                                                                                              \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr);                                                                                               \
    own(err);                                                                                                         \
    if (*err == 0)                                                                                                    \
      start_recording();                                                                                              \
  }
SPELLINGS(F_INIT, mpi_init, MPI_INIT)

#define F_INIT_THREAD(name)                                                                                           \
  void name(fptr required, fptr provided, fptr ierror)                                                                \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr);                                                                                   \
    own(required, provided, err);                                                                                     \
    if (*err == 0)                                                                                                    \
      start_recording();                                                                                              \
  }
SPELLINGS(F_INIT_THREAD, mpi_init_thread, MPI_INIT_THREAD)

/* As the C MPI_Finalize: every process whose core runs goes through the core's (the ranks agree
 * there that all recorded, then merge); Fortran's binding would call PMPI_Finalize, nothing more. */
#define F_FINALIZE(name)                                                                                              \
  void name(fptr ierror)                                                                                              \
  {                                                                                                                   \
    pthread_once(&decided, decide);                                                                                   \
    if (core_ready) {                                                                                                 \
      int rc = core.finalize();                                                                                       \
      if (ierror)                                                                                                     \
        *(int*)ierror = rc;                                                                                           \
      return;                                                                                                         \
    }                                                                                                                 \
    OWN_F(#name, fptr);                                                                                               \
    own(ierror);                                                                                                      \
  }
SPELLINGS(F_FINALIZE, mpi_finalize, MPI_FINALIZE)

/* MPI_PCONTROL(level) has no ierror; the core's pcontrol calls PMPI_Pcontrol(level) as the binding does. */
#define F_PCONTROL(name)                                                                                              \
  void name(fptr level)                                                                                               \
  {                                                                                                                   \
    if (recording) {                                                                                                  \
      core.pcontrol(*(int*)level);                                                                                    \
      return;                                                                                                         \
    }                                                                                                                 \
    OWN_F(#name, fptr);                                                                                               \
    own(level);                                                                                                       \
  }
SPELLINGS(F_PCONTROL, mpi_pcontrol, MPI_PCONTROL)

/* -- point-to-point -------------------------------------------------------------------------------- */

#define F_SEND(name)                                                                                                  \
  void name(fptr buf, fptr count, fptr type, fptr dest, fptr tag, fptr comm, fptr ierror)                             \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr);                                                           \
    F_BINDING(own(buf, count, type, dest, tag, comm, err));                                                           \
    if (F_COUNTS())                                                                                                   \
      fcore.send(comm, dest, count, type);                                                                            \
  }
SPELLINGS(F_SEND, mpi_send, MPI_SEND)
SPELLINGS(F_SEND, mpi_bsend, MPI_BSEND)
SPELLINGS(F_SEND, mpi_ssend, MPI_SSEND)
SPELLINGS(F_SEND, mpi_rsend, MPI_RSEND)

#define F_ISEND(name)                                                                                                 \
  void name(fptr buf, fptr count, fptr type, fptr dest, fptr tag, fptr comm, fptr request, fptr ierror)               \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr);                                                     \
    F_BINDING(own(buf, count, type, dest, tag, comm, request, err));                                                  \
    if (F_COUNTS())                                                                                                   \
      fcore.send(comm, dest, count, type);                                                                            \
  }
SPELLINGS(F_ISEND, mpi_isend, MPI_ISEND)
SPELLINGS(F_ISEND, mpi_ibsend, MPI_IBSEND)
SPELLINGS(F_ISEND, mpi_issend, MPI_ISSEND)
SPELLINGS(F_ISEND, mpi_irsend, MPI_IRSEND)

#define F_SEND_INIT(name)                                                                                             \
  void name(fptr buf, fptr count, fptr type, fptr dest, fptr tag, fptr comm, fptr request, fptr ierror)               \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr);                                                     \
    F_BINDING(own(buf, count, type, dest, tag, comm, request, err));                                                  \
    if (F_COUNTS())                                                                                                   \
      fcore.send_init(comm, dest, count, type, request);                                                              \
  }
SPELLINGS(F_SEND_INIT, mpi_send_init, MPI_SEND_INIT)
SPELLINGS(F_SEND_INIT, mpi_bsend_init, MPI_BSEND_INIT)
SPELLINGS(F_SEND_INIT, mpi_ssend_init, MPI_SSEND_INIT)
SPELLINGS(F_SEND_INIT, mpi_rsend_init, MPI_RSEND_INIT)

#define F_SENDRECV(name)                                                                                              \
  void name(fptr sbuf, fptr scount, fptr stype, fptr dest, fptr stag, fptr rbuf, fptr rcount, fptr rtype,             \
            fptr source, fptr rtag, fptr comm, fptr status, fptr ierror)                                              \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr);                       \
    F_BINDING(own(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, err));            \
    if (F_COUNTS())                                                                                                   \
      fcore.send(comm, dest, scount, stype);                                                                          \
  }
SPELLINGS(F_SENDRECV, mpi_sendrecv, MPI_SENDRECV)

#define F_SENDRECV_REPLACE(name)                                                                                      \
  void name(fptr buf, fptr count, fptr type, fptr dest, fptr stag, fptr source, fptr rtag, fptr comm, fptr status,    \
            fptr ierror)                                                                                              \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr);                                         \
    F_BINDING(own(buf, count, type, dest, stag, source, rtag, comm, status, err));                                    \
    if (F_COUNTS())                                                                                                   \
      fcore.send(comm, dest, count, type);                                                                            \
  }
SPELLINGS(F_SENDRECV_REPLACE, mpi_sendrecv_replace, MPI_SENDRECV_REPLACE)

/* A start leaves the request's handle as it was: the core converts it after the binding. */
#define F_START(name)                                                                                                 \
  void name(fptr request, fptr ierror)                                                                                \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr);                                                                                         \
    F_BINDING(own(request, err));                                                                                     \
    if (F_COUNTS())                                                                                                   \
      fcore.start(NULL, request);                                                                                     \
  }
SPELLINGS(F_START, mpi_start, MPI_START)

#define F_STARTALL(name)                                                                                              \
  void name(fptr count, fptr requests, fptr ierror)                                                                   \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr);                                                                                   \
    F_BINDING(own(count, requests, err));                                                                             \
    if (F_COUNTS())                                                                                                   \
      fcore.start(count, requests);                                                                                   \
  }
SPELLINGS(F_STARTALL, mpi_startall, MPI_STARTALL)

/* The binding sets the request to MPI_REQUEST_NULL and MPI may reuse its Fortran index: the C
 * handle the recorder knows it by is taken before. */
#define F_REQUEST_FREE(name)                                                                                          \
  void name(fptr request, fptr ierror)                                                                                \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr);                                                                                         \
    int ok = 0;                                                                                                       \
    int64_t before = f_recording(&ok) ? fcore.request_c(request) : 0;                                                 \
    F_BINDING(own(request, err));                                                                                     \
    if (F_COUNTS())                                                                                                   \
      fcore.request_freed(before);                                                                                    \
  }
SPELLINGS(F_REQUEST_FREE, mpi_request_free, MPI_REQUEST_FREE)

/* -- one-sided (target_disp is an INTEGER(KIND=MPI_ADDRESS_KIND), by address like the rest) ---------
 * The request-based forms (MPI_RPUT ...) take one more argument, the request, before ierror: with
 * R = I, R_DECL(R) / R_TYPE(R) / R_PASS(R) add it to the parameters, the binding's type and the call;
 * with R = B they add nothing (pasted, so that the choice travels through macro arguments unexpanded).
 * The persistent collectives (MPI_*_INIT, MPI 4) take two, info and the request: R = P; R_INIT(R) is
 * the request such a call made (NULL for B and I: counted now, not at each start). */
#define R_DECL_B
#define R_DECL_I , fptr request
#define R_TYPE_B
#define R_TYPE_I , fptr
#define R_PASS_B
#define R_PASS_I , request
#define R_DECL_P , fptr info, fptr request
#define R_TYPE_P , fptr, fptr
#define R_PASS_P , info, request
#define R_INIT_B NULL
#define R_INIT_I NULL
#define R_INIT_P request
#define R_DECL(R) R_DECL_##R
#define R_TYPE(R) R_TYPE_##R
#define R_PASS(R) R_PASS_##R
#define R_INIT(R) R_INIT_##R

#define F_PUT(name, entry, R)                                                                                         \
  void name(fptr obuf, fptr ocount, fptr otype, fptr target, fptr disp, fptr tcount, fptr ttype, fptr win R_DECL(R),  \
            fptr ierror)                                                                                              \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr R_TYPE(R), fptr);                                     \
    F_BINDING(own(obuf, ocount, otype, target, disp, tcount, ttype, win R_PASS(R), err));                             \
    if (F_COUNTS())                                                                                                   \
      fcore.entry(win, target, ocount, otype);                                                                        \
  }
#define F_PUT_(name) F_PUT(name, put, B)
#define F_RPUT_(name) F_PUT(name, put, I)
#define F_GET_(name) F_PUT(name, get, B)
#define F_RGET_(name) F_PUT(name, get, I)
SPELLINGS(F_PUT_, mpi_put, MPI_PUT)
SPELLINGS(F_RPUT_, mpi_rput, MPI_RPUT)
SPELLINGS(F_GET_, mpi_get, MPI_GET)
SPELLINGS(F_RGET_, mpi_rget, MPI_RGET)

#define F_ACCUMULATE(name, R)                                                                                         \
  void name(fptr obuf, fptr ocount, fptr otype, fptr target, fptr disp, fptr tcount, fptr ttype, fptr op,             \
            fptr win R_DECL(R), fptr ierror)                                                                          \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr R_TYPE(R), fptr);                               \
    F_BINDING(own(obuf, ocount, otype, target, disp, tcount, ttype, op, win R_PASS(R), err));                         \
    if (F_COUNTS())                                                                                                   \
      fcore.put(win, target, ocount, otype);                                                                          \
  }
#define F_ACCUMULATE_(name) F_ACCUMULATE(name, B)
#define F_RACCUMULATE_(name) F_ACCUMULATE(name, I)
SPELLINGS(F_ACCUMULATE_, mpi_accumulate, MPI_ACCUMULATE)
SPELLINGS(F_RACCUMULATE_, mpi_raccumulate, MPI_RACCUMULATE)

#define F_GET_ACCUMULATE(name, R)                                                                                     \
  void name(fptr obuf, fptr ocount, fptr otype, fptr rbuf, fptr rcount, fptr rtype, fptr target, fptr disp,           \
            fptr tcount, fptr ttype, fptr op, fptr win R_DECL(R), fptr ierror)                                        \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr R_TYPE(R), fptr);             \
    F_BINDING(own(obuf, ocount, otype, rbuf, rcount, rtype, target, disp, tcount, ttype, op, win R_PASS(R), err));    \
    if (F_COUNTS())                                                                                                   \
      fcore.get_accumulate(win, target, ocount, otype, rcount, rtype, op);                                            \
  }
#define F_GET_ACCUMULATE_(name) F_GET_ACCUMULATE(name, B)
#define F_RGET_ACCUMULATE_(name) F_GET_ACCUMULATE(name, I)
SPELLINGS(F_GET_ACCUMULATE_, mpi_get_accumulate, MPI_GET_ACCUMULATE)
SPELLINGS(F_RGET_ACCUMULATE_, mpi_rget_accumulate, MPI_RGET_ACCUMULATE)

#define F_FETCH_AND_OP(name)                                                                                          \
  void name(fptr obuf, fptr rbuf, fptr type, fptr target, fptr disp, fptr op, fptr win, fptr ierror)                  \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr);                                                     \
    F_BINDING(own(obuf, rbuf, type, target, disp, op, win, err));                                                     \
    if (F_COUNTS())                                                                                                   \
      fcore.fetch_and_op(win, target, type, op);                                                                      \
  }
SPELLINGS(F_FETCH_AND_OP, mpi_fetch_and_op, MPI_FETCH_AND_OP)

#define F_COMPARE_AND_SWAP(name)                                                                                      \
  void name(fptr obuf, fptr cbuf, fptr rbuf, fptr type, fptr target, fptr disp, fptr win, fptr ierror)                \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr);                                                     \
    F_BINDING(own(obuf, cbuf, rbuf, type, target, disp, win, err));                                                   \
    if (F_COUNTS())                                                                                                   \
      fcore.compare_and_swap(win, target, type);                                                                      \
  }
SPELLINGS(F_COMPARE_AND_SWAP, mpi_compare_and_swap, MPI_COMPARE_AND_SWAP)

/* -- neighbourhood collectives (blocking and I- forms); kind: 0 allgather(v), 1 alltoall, 2 alltoallv,
 * 3 alltoallw, as mpitaskmap_record_f_neighbor reads it -------------------------------------------- */

/* MPI_NEIGHBOR_ALLGATHER / ALLTOALL (sbuf, scount, stype, rbuf, rcount, rtype, comm [, request], ierror) */
#define F_NEIGHBOR(name, kind, R)                                                                                     \
  void name(fptr sbuf, fptr scount, fptr stype, fptr rbuf, fptr rcount, fptr rtype, fptr comm R_DECL(R), fptr ierror) \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr R_TYPE(R), fptr);                                           \
    F_BINDING(own(sbuf, scount, stype, rbuf, rcount, rtype, comm R_PASS(R), err));                                    \
    if (F_COUNTS())                                                                                                   \
      fcore.neighbor(kind, comm, scount, stype, NULL, NULL, R_INIT(R));                                               \
  }
/* MPI_NEIGHBOR_ALLGATHERV (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm [, request], ierror) */
#define F_NEIGHBOR_V(name, R)                                                                                         \
  void name(fptr sbuf, fptr scount, fptr stype, fptr rbuf, fptr rcounts, fptr displs, fptr rtype,                     \
            fptr comm R_DECL(R), fptr ierror)                                                                         \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr R_TYPE(R), fptr);                                     \
    F_BINDING(own(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm R_PASS(R), err));                           \
    if (F_COUNTS())                                                                                                   \
      fcore.neighbor(0, comm, scount, stype, NULL, NULL, R_INIT(R));                                                  \
  }
/* MPI_NEIGHBOR_ALLTOALLV / W (sbuf, scounts, sdispls, stype(s), rbuf, rcounts, rdispls, rtype(s), comm
 * [, request], ierror) */
#define F_NEIGHBOR_VW(name, kind, R)                                                                                  \
  void name(fptr sbuf, fptr scounts, fptr sdispls, fptr stype, fptr rbuf, fptr rcounts, fptr rdispls, fptr rtype,     \
            fptr comm R_DECL(R), fptr ierror)                                                                         \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr R_TYPE(R), fptr);                               \
    F_BINDING(own(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm R_PASS(R), err));                \
    if (F_COUNTS())                                                                                                   \
      fcore.neighbor(kind, comm, NULL, kind == 2 ? stype : NULL, scounts, kind == 3 ? stype : NULL,                   \
                     R_INIT(R));                                                                                      \
  }
/* Each collective (neighbourhood ones too) three times: blocking (B), nonblocking (I, one more argument: the request) and persistent
 * (P, MPI 4's MPI_*_INIT: two more, info and the request; counted at each start of the request). */
#define FORMS(DEF, lower, UPPER, ilower, IUPPER)                                                                      \
  SPELLINGS(DEF##_B, lower, UPPER)                                                                                    \
  SPELLINGS(DEF##_I, ilower, IUPPER)                                                                                  \
  SPELLINGS(DEF##_P, lower##_init, UPPER##_INIT)

#define F_NB_ALLGATHER_B(name) F_NEIGHBOR(name, 0, B)
#define F_NB_ALLGATHER_I(name) F_NEIGHBOR(name, 0, I)
#define F_NB_ALLGATHER_P(name) F_NEIGHBOR(name, 0, P)
#define F_NB_ALLTOALL_B(name) F_NEIGHBOR(name, 1, B)
#define F_NB_ALLTOALL_I(name) F_NEIGHBOR(name, 1, I)
#define F_NB_ALLTOALL_P(name) F_NEIGHBOR(name, 1, P)
#define F_NB_ALLGATHERV_B(name) F_NEIGHBOR_V(name, B)
#define F_NB_ALLGATHERV_I(name) F_NEIGHBOR_V(name, I)
#define F_NB_ALLGATHERV_P(name) F_NEIGHBOR_V(name, P)
#define F_NB_ALLTOALLV_B(name) F_NEIGHBOR_VW(name, 2, B)
#define F_NB_ALLTOALLV_I(name) F_NEIGHBOR_VW(name, 2, I)
#define F_NB_ALLTOALLV_P(name) F_NEIGHBOR_VW(name, 2, P)
#define F_NB_ALLTOALLW_B(name) F_NEIGHBOR_VW(name, 3, B)
#define F_NB_ALLTOALLW_I(name) F_NEIGHBOR_VW(name, 3, I)
#define F_NB_ALLTOALLW_P(name) F_NEIGHBOR_VW(name, 3, P)
FORMS(F_NB_ALLGATHER, mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, mpi_ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER)
FORMS(F_NB_ALLGATHERV, mpi_neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, mpi_ineighbor_allgatherv,
      MPI_INEIGHBOR_ALLGATHERV)
FORMS(F_NB_ALLTOALL, mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, mpi_ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL)
FORMS(F_NB_ALLTOALLV, mpi_neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, mpi_ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV)
FORMS(F_NB_ALLTOALLW, mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, mpi_ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW)

/* -- collectives ------------------------------------------------------------------------------------
 * Each entry point hands the core the call's arguments by role (mpitaskmap_record_f_collective),
 * NULL where the call has none, and the collective's id, asked of the core once by its C name (the
 * list of ids is the core's: mpitaskmap_pmpi_record.h). */

#define COLL_ID(cname)                                                                                                \
  static int id = -1;                                                                                                 \
  if (id < 0)                                                                                                         \
  id = fcore.collective_id(cname)

/* (role, ..., comm [, request], ierror): ARGS the parameters before comm, TYPES their binding types,
 * PASS the names, NOTE the roles handed to the core (which, comm, root, sbuf, rbuf, scount, stype,
 * scounts, stypes, rcount, rtype, rcounts, rtypes). */
#define F_COLL(name, cname, ARGS, TYPES, PASS, R, ...)                                                                \
  void name(ARGS, fptr comm R_DECL(R), fptr ierror)                                                                   \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, TYPES, fptr R_TYPE(R), fptr);                                                                        \
    F_BINDING(own(PASS, comm R_PASS(R), err));                                                                        \
    if (F_COUNTS()) {                                                                                                 \
      COLL_ID(cname);                                                                                                 \
      fcore.collective(id, comm, R_INIT(R), __VA_ARGS__);                                                             \
    }                                                                                                                 \
  }
#define P(...) __VA_ARGS__
#define T2 fptr, fptr
#define T3 fptr, fptr, fptr
#define T4 fptr, fptr, fptr, fptr
#define T5 fptr, fptr, fptr, fptr, fptr
#define T6 fptr, fptr, fptr, fptr, fptr, fptr
#define T7 fptr, fptr, fptr, fptr, fptr, fptr, fptr
#define T8 fptr, fptr, fptr, fptr, fptr, fptr, fptr, fptr

/* MPI_BARRIER(comm, ierror) */
#define F_BARRIER(name, cname, R)                                                                                     \
  void name(fptr comm R_DECL(R), fptr ierror)                                                                         \
  {                                                                                                                   \
    IERROR(ierror);                                                                                                   \
    OWN_F(#name, fptr R_TYPE(R), fptr);                                                                               \
    F_BINDING(own(comm R_PASS(R), err));                                                                              \
    if (F_COUNTS()) {                                                                                                 \
      COLL_ID(cname);                                                                                                 \
      fcore.collective(id, comm, R_INIT(R), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);        \
    }                                                                                                                 \
  }
#define F_BARRIER_B(name) F_BARRIER(name, "MPI_Barrier", B)
#define F_BARRIER_I(name) F_BARRIER(name, "MPI_Ibarrier", I)
#define F_BARRIER_P(name) F_BARRIER(name, "MPI_Barrier_init", P)
FORMS(F_BARRIER, mpi_barrier, MPI_BARRIER, mpi_ibarrier, MPI_IBARRIER)

/* MPI_BCAST(buffer, count, type, root, comm, ierror) */
#define F_BCAST(name, cname, R)                                                                                       \
  F_COLL(name, cname, P(fptr buf, fptr count, fptr type, fptr root), T4, P(buf, count, type, root), R, root, NULL,    \
         NULL, count, type, NULL, NULL, NULL, NULL, NULL, NULL)
#define F_BCAST_B(name) F_BCAST(name, "MPI_Bcast", B)
#define F_BCAST_I(name) F_BCAST(name, "MPI_Ibcast", I)
#define F_BCAST_P(name) F_BCAST(name, "MPI_Bcast_init", P)
FORMS(F_BCAST, mpi_bcast, MPI_BCAST, mpi_ibcast, MPI_IBCAST)

/* MPI_REDUCE(sbuf, rbuf, count, type, op, root, comm, ierror) */
#define F_REDUCE(name, cname, R)                                                                                      \
  F_COLL(name, cname, P(fptr sbuf, fptr rbuf, fptr count, fptr type, fptr op, fptr root), T6,                         \
         P(sbuf, rbuf, count, type, op, root), R, root, sbuf, rbuf, count, type, NULL, NULL, NULL, NULL, NULL, NULL)
#define F_REDUCE_B(name) F_REDUCE(name, "MPI_Reduce", B)
#define F_REDUCE_I(name) F_REDUCE(name, "MPI_Ireduce", I)
#define F_REDUCE_P(name) F_REDUCE(name, "MPI_Reduce_init", P)
FORMS(F_REDUCE, mpi_reduce, MPI_REDUCE, mpi_ireduce, MPI_IREDUCE)

/* MPI_ALLREDUCE, MPI_SCAN, MPI_EXSCAN(sbuf, rbuf, count, type, op, comm, ierror) */
#define F_ALLREDUCE(name, cname, R)                                                                                   \
  F_COLL(name, cname, P(fptr sbuf, fptr rbuf, fptr count, fptr type, fptr op), T5, P(sbuf, rbuf, count, type, op), R, \
         NULL, sbuf, rbuf, count, type, NULL, NULL, NULL, NULL, NULL, NULL)
#define F_ALLREDUCE_B(name) F_ALLREDUCE(name, "MPI_Allreduce", B)
#define F_ALLREDUCE_I(name) F_ALLREDUCE(name, "MPI_Iallreduce", I)
#define F_ALLREDUCE_P(name) F_ALLREDUCE(name, "MPI_Allreduce_init", P)
#define F_SCAN_B(name) F_ALLREDUCE(name, "MPI_Scan", B)
#define F_SCAN_I(name) F_ALLREDUCE(name, "MPI_Iscan", I)
#define F_SCAN_P(name) F_ALLREDUCE(name, "MPI_Scan_init", P)
#define F_EXSCAN_B(name) F_ALLREDUCE(name, "MPI_Exscan", B)
#define F_EXSCAN_I(name) F_ALLREDUCE(name, "MPI_Iexscan", I)
#define F_EXSCAN_P(name) F_ALLREDUCE(name, "MPI_Exscan_init", P)
FORMS(F_ALLREDUCE, mpi_allreduce, MPI_ALLREDUCE, mpi_iallreduce, MPI_IALLREDUCE)
FORMS(F_SCAN, mpi_scan, MPI_SCAN, mpi_iscan, MPI_ISCAN)
FORMS(F_EXSCAN, mpi_exscan, MPI_EXSCAN, mpi_iexscan, MPI_IEXSCAN)

/* MPI_REDUCE_SCATTER(sbuf, rbuf, rcounts, type, op, comm, ierror); _BLOCK with rcount */
#define F_REDUCE_SCATTER(name, cname, R)                                                                              \
  F_COLL(name, cname, P(fptr sbuf, fptr rbuf, fptr rcounts, fptr type, fptr op), T5,                                  \
         P(sbuf, rbuf, rcounts, type, op), R, NULL, sbuf, rbuf, NULL, type, NULL, NULL, NULL, NULL, rcounts, NULL)
#define F_REDUCE_SCATTER_B(name) F_REDUCE_SCATTER(name, "MPI_Reduce_scatter", B)
#define F_REDUCE_SCATTER_I(name) F_REDUCE_SCATTER(name, "MPI_Ireduce_scatter", I)
#define F_REDUCE_SCATTER_P(name) F_REDUCE_SCATTER(name, "MPI_Reduce_scatter_init", P)
FORMS(F_REDUCE_SCATTER, mpi_reduce_scatter, MPI_REDUCE_SCATTER, mpi_ireduce_scatter, MPI_IREDUCE_SCATTER)
#define F_REDUCE_SCATTER_BLOCK(name, cname, R)                                                                        \
  F_COLL(name, cname, P(fptr sbuf, fptr rbuf, fptr rcount, fptr type, fptr op), T5,                                   \
         P(sbuf, rbuf, rcount, type, op), R, NULL, sbuf, rbuf, NULL, type, NULL, NULL, rcount, NULL, NULL, NULL)
#define F_REDUCE_SCATTER_BLOCK_B(name) F_REDUCE_SCATTER_BLOCK(name, "MPI_Reduce_scatter_block", B)
#define F_REDUCE_SCATTER_BLOCK_I(name) F_REDUCE_SCATTER_BLOCK(name, "MPI_Ireduce_scatter_block", I)
#define F_REDUCE_SCATTER_BLOCK_P(name) F_REDUCE_SCATTER_BLOCK(name, "MPI_Reduce_scatter_block_init", P)
FORMS(F_REDUCE_SCATTER_BLOCK, mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, mpi_ireduce_scatter_block,
     MPI_IREDUCE_SCATTER_BLOCK)

/* MPI_GATHER, MPI_SCATTER(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierror) */
#define F_GATHER(name, cname, R)                                                                                      \
  F_COLL(name, cname, P(fptr sbuf, fptr scount, fptr stype, fptr rbuf, fptr rcount, fptr rtype, fptr root), T7,       \
         P(sbuf, scount, stype, rbuf, rcount, rtype, root), R, root, sbuf, rbuf, scount, stype, NULL, NULL, rcount,   \
         rtype, NULL, NULL)
#define F_GATHER_B(name) F_GATHER(name, "MPI_Gather", B)
#define F_GATHER_I(name) F_GATHER(name, "MPI_Igather", I)
#define F_GATHER_P(name) F_GATHER(name, "MPI_Gather_init", P)
#define F_SCATTER_B(name) F_GATHER(name, "MPI_Scatter", B)
#define F_SCATTER_I(name) F_GATHER(name, "MPI_Iscatter", I)
#define F_SCATTER_P(name) F_GATHER(name, "MPI_Scatter_init", P)
FORMS(F_GATHER, mpi_gather, MPI_GATHER, mpi_igather, MPI_IGATHER)
FORMS(F_SCATTER, mpi_scatter, MPI_SCATTER, mpi_iscatter, MPI_ISCATTER)

/* MPI_GATHERV(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierror) */
#define F_GATHERV(name, cname, R)                                                                                     \
  F_COLL(name, cname, P(fptr sbuf, fptr scount, fptr stype, fptr rbuf, fptr rcounts, fptr displs, fptr rtype,         \
                        fptr root), T8, P(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root), R, root, sbuf,    \
         rbuf, scount, stype, NULL, NULL, NULL, rtype, rcounts, NULL)
#define F_GATHERV_B(name) F_GATHERV(name, "MPI_Gatherv", B)
#define F_GATHERV_I(name) F_GATHERV(name, "MPI_Igatherv", I)
#define F_GATHERV_P(name) F_GATHERV(name, "MPI_Gatherv_init", P)
FORMS(F_GATHERV, mpi_gatherv, MPI_GATHERV, mpi_igatherv, MPI_IGATHERV)

/* MPI_SCATTERV(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierror) */
#define F_SCATTERV(name, cname, R)                                                                                    \
  F_COLL(name, cname, P(fptr sbuf, fptr scounts, fptr displs, fptr stype, fptr rbuf, fptr rcount, fptr rtype,         \
                        fptr root), T8, P(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root), R, root, sbuf,    \
         rbuf, NULL, stype, scounts, NULL, rcount, rtype, NULL, NULL)
#define F_SCATTERV_B(name) F_SCATTERV(name, "MPI_Scatterv", B)
#define F_SCATTERV_I(name) F_SCATTERV(name, "MPI_Iscatterv", I)
#define F_SCATTERV_P(name) F_SCATTERV(name, "MPI_Scatterv_init", P)
FORMS(F_SCATTERV, mpi_scatterv, MPI_SCATTERV, mpi_iscatterv, MPI_ISCATTERV)

/* MPI_ALLGATHER, MPI_ALLTOALL(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierror) */
#define F_ALLGATHER(name, cname, R)                                                                                   \
  F_COLL(name, cname, P(fptr sbuf, fptr scount, fptr stype, fptr rbuf, fptr rcount, fptr rtype), T6,                  \
         P(sbuf, scount, stype, rbuf, rcount, rtype), R, NULL, sbuf, rbuf, scount, stype, NULL, NULL, rcount, rtype,  \
         NULL, NULL)
#define F_ALLGATHER_B(name) F_ALLGATHER(name, "MPI_Allgather", B)
#define F_ALLGATHER_I(name) F_ALLGATHER(name, "MPI_Iallgather", I)
#define F_ALLGATHER_P(name) F_ALLGATHER(name, "MPI_Allgather_init", P)
#define F_ALLTOALL_B(name) F_ALLGATHER(name, "MPI_Alltoall", B)
#define F_ALLTOALL_I(name) F_ALLGATHER(name, "MPI_Ialltoall", I)
#define F_ALLTOALL_P(name) F_ALLGATHER(name, "MPI_Alltoall_init", P)
FORMS(F_ALLGATHER, mpi_allgather, MPI_ALLGATHER, mpi_iallgather, MPI_IALLGATHER)
FORMS(F_ALLTOALL, mpi_alltoall, MPI_ALLTOALL, mpi_ialltoall, MPI_IALLTOALL)

/* MPI_ALLGATHERV(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierror) */
#define F_ALLGATHERV(name, cname, R)                                                                                  \
  F_COLL(name, cname, P(fptr sbuf, fptr scount, fptr stype, fptr rbuf, fptr rcounts, fptr displs, fptr rtype), T7,    \
         P(sbuf, scount, stype, rbuf, rcounts, displs, rtype), R, NULL, sbuf, rbuf, scount, stype, NULL, NULL, NULL,  \
         rtype, rcounts, NULL)
#define F_ALLGATHERV_B(name) F_ALLGATHERV(name, "MPI_Allgatherv", B)
#define F_ALLGATHERV_I(name) F_ALLGATHERV(name, "MPI_Iallgatherv", I)
#define F_ALLGATHERV_P(name) F_ALLGATHERV(name, "MPI_Allgatherv_init", P)
FORMS(F_ALLGATHERV, mpi_allgatherv, MPI_ALLGATHERV, mpi_iallgatherv, MPI_IALLGATHERV)

/* MPI_ALLTOALLV(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierror); ALLTOALLW
 * the same with type arrays */
#define F_ALLTOALLV(name, cname, R)                                                                                   \
  F_COLL(name, cname, P(fptr sbuf, fptr scounts, fptr sdispls, fptr stype, fptr rbuf, fptr rcounts, fptr rdispls,     \
                        fptr rtype), T8, P(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype), R, NULL,    \
         sbuf, rbuf, NULL, stype, scounts, NULL, NULL, rtype, rcounts, NULL)
#define F_ALLTOALLV_B(name) F_ALLTOALLV(name, "MPI_Alltoallv", B)
#define F_ALLTOALLV_I(name) F_ALLTOALLV(name, "MPI_Ialltoallv", I)
#define F_ALLTOALLV_P(name) F_ALLTOALLV(name, "MPI_Alltoallv_init", P)
FORMS(F_ALLTOALLV, mpi_alltoallv, MPI_ALLTOALLV, mpi_ialltoallv, MPI_IALLTOALLV)
#define F_ALLTOALLW(name, cname, R)                                                                                   \
  F_COLL(name, cname, P(fptr sbuf, fptr scounts, fptr sdispls, fptr stypes, fptr rbuf, fptr rcounts, fptr rdispls,    \
                        fptr rtypes), T8, P(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes), R, NULL, \
         sbuf, rbuf, NULL, NULL, scounts, stypes, NULL, NULL, rcounts, rtypes)
#define F_ALLTOALLW_B(name) F_ALLTOALLW(name, "MPI_Alltoallw", B)
#define F_ALLTOALLW_I(name) F_ALLTOALLW(name, "MPI_Ialltoallw", I)
#define F_ALLTOALLW_P(name) F_ALLTOALLW(name, "MPI_Alltoallw_init", P)
FORMS(F_ALLTOALLW, mpi_alltoallw, MPI_ALLTOALLW, mpi_ialltoallw, MPI_IALLTOALLW)
