/* libmpitaskmap_pmpi.so, the file given to LD_PRELOAD: MPI_Cart_create and
 * MPI_Dist_graph_create_adjacent (and their Fortran entry points) that hand the call to the core
 * library (mpitaskmap_pmpi.c, libmpitaskmap_pmpi_core.so beside this file) when the process runs
 * the MPI the core was built for, and to that process's own MPI otherwise.
 *
 * Why two libraries.  The core is linked against its MPI's libmpi (DT_NEEDED); preloaded into a
 * process of another MPI it would load that libmpi too, and its dependencies with it (under
 * SimGrid's smpirun, whose library path comes first, the mpich wheel's libmpi then bound the
 * system's libfabric and every process died: "version 'FABRIC_1.9' not found").  This file
 * depends on no MPI: it includes no mpi.h, is linked without libmpi, and holds no state until an
 * MPI call reaches it, so the processes that never call MPI (the shell, mpiexec itself: LD_PRELOAD
 * reaches them too) load it without effect.
 *
 * At the first call it checks that the core can run here: the process has a symbol only its MPI
 * family defines (CFG_MARKER: ompi_mpi_comm_world for Open MPI, MPIR_Err_create_code for MPICH and
 * its derivatives) and has already loaded every library the core needs (CFG_CORE_NEEDED, found with
 * dlopen(RTLD_NOLOAD)), so that loading the core adds no library and binds nothing new.  Then it
 * dlopens the core and every call goes there.  Otherwise every call goes to the process's own MPI
 * (the next definition of the same name: dlsym(RTLD_NEXT), else any loaded object's, as for an MPI
 * that a Python application's mpi4py loaded in a local scope), unchanged, and one line on stderr
 * says so, once per process and only where the launcher's rank variable is 0 or absent.
 *
 * The traffic recorder (mpitaskmap_pmpi_record.c, in the core): this file also defines MPI_Init,
 * MPI_Init_thread, MPI_Finalize, MPI_Pcontrol, MPI_Start(all) and MPI_Request_free, going to the
 * core's mpitaskmap_record_*, and (the WRAP list at the end) the point-to-point sends (MPI_Send ...
 * their _c forms), the one-sided calls, MPI_Psend_init, the neighbourhood collectives and the
 * collectives, each going to the core's mpitaskmap_rec_<name>, which has the same parameters (so a
 * send jumps there: this file adds no frame to it).  After MPI's own MPI_Init(_thread) succeeded
 * with MPITASKMAP_RECORD set, and the core can run here, they go to the core;
 * otherwise each goes straight to the process's own MPI (its address found once), and
 * MPITASKMAP_RECORD in a process where the core cannot run gives the one line above.
 * MPI_Finalize goes to the core wherever the core runs (the ranks agree there that all recorded).
 *
 * Handles: MPI_Comm, MPI_Datatype and MPI_Request are int in MPICH and pointers in Open MPI.  They
 * are taken here as intptr_t (a request, a status: by address) and passed on unchanged; an int
 * argument travels in the same register (or stack slot) as a pointer-sized one on the ABIs this
 * runs on (x86-64, AArch64, POWER), and the callee reads only its own width.  MPI_Count is 64
 * bits in every MPI this runs on (int64_t here).  Fortran entry points take addresses only.
 *
 * Configuration (mpitaskmap_pmpi_shim_config.h, written by mpitaskmap.runtime.pmpi):
 *   CFG_BUILT_FOR     the MPI the core was built with, for the message ("MPICH 4.3.0")
 *   CFG_MARKER        the family's marker symbol ("" for an MPI of no known family: no check)
 *   CFG_CORE_NEEDED   the core's DT_NEEDED libraries beyond the C library's, ':'-separated
 *   CFG_CORE_NAME     the core's file name, looked for in this file's directory
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitaskmap_pmpi_shim_config.h"

typedef intptr_t handle; /* MPI_Comm, MPI_Info: see above */

typedef int (*cart_fn)(handle, int, const int*, const int*, int, handle*);
typedef int (*dist_fn)(handle, int, const int*, const int*, int, const int*, const int*, handle, int, handle*);
typedef void (*f_cart_fn)(void*, void*, void*, void*, void*, void*, void*);
typedef void (*f_dist_fn)(void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*);
typedef int (*f_dist_core_fn)(void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*);

/* The recorder's entry points (mpitaskmap_pmpi_record.c) other than the WRAP list's (below). */
typedef int (*rec_start_fn)(const char*);
typedef int (*rec_level_fn)(int);
typedef int (*rec_void_fn)(void);
typedef int (*rec_req_fn)(void*);
typedef int (*rec_startall_fn)(int, void*);
/* The large-count forms' MPI_Count: 64 bits wide in every MPI this runs on. */
typedef int64_t count_t;

static struct {
  cart_fn cart;
  dist_fn dist;
  f_cart_fn f_cart;
  f_dist_core_fn f_dist;
  rec_start_fn record_start;
  rec_level_fn pcontrol;
  rec_void_fn finalize;
  rec_req_fn start, request_free;
  rec_startall_fn startall;
} core;
static int recording; /* set once, after MPI_Init succeeded and the core's recorder started */
static void* core_handle;           /* the core, once decide() loaded it */
static int core_ready;              /* set once by decide() */
static char core_why[2048];         /* why not, when not */
static pthread_once_t decided = PTHREAD_ONCE_INIT;

/* A symbol of this process other than this library's own: the next definition after this library
 * (dlsym RTLD_NEXT), else one in any loaded object.  The second way finds an MPI that was loaded in
 * a local scope, out of RTLD_NEXT's reach: by a Python application's mpi4py, dlopen'ed by Python. */
struct lookup {
  const char* name;
  void* found;
};

static int lookup_in(struct dl_phdr_info* info, size_t size, void* data)
{
  (void)size;
  struct lookup* l = data;
  Dl_info self;
  if (!info->dlpi_name || !*info->dlpi_name || !dladdr((void*)&lookup_in, &self))
    return 0;
  if (self.dli_fbase == (void*)info->dlpi_addr || (self.dli_fname && !strcmp(self.dli_fname, info->dlpi_name)))
    return 0; /* this library */
  void* h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (!h)
    return 0;
  void* f = dlsym(h, l->name);
  Dl_info where;
  if (f && !(dladdr(f, &where) && where.dli_fbase == self.dli_fbase))
    l->found = f;
  dlclose(h); /* only the reference NOLOAD took */
  return l->found != NULL;
}

static void* find_symbol(const char* name, void* first_try)
{
  void* f = dlsym(first_try, name);
  if (f)
    return f;
  struct lookup l = {name, NULL};
  dl_iterate_phdr(lookup_in, &l);
  return l.found;
}

/* The first line of MPI_Get_library_version of the MPI this process runs. */
static void found_mpi(char* out, size_t len)
{
  int (*version)(char*, int*) = (int (*)(char*, int*))find_symbol("MPI_Get_library_version", RTLD_NEXT);
  snprintf(out, len, "an MPI without MPI_Get_library_version");
  if (!version)
    return;
  static char buf[16384]; /* more than any MPI_MAX_LIBRARY_VERSION_STRING */
  int n = 0;
  memset(buf, 0, sizeof buf);
  if (version(buf, &n) != 0)
    return;
  buf[sizeof buf - 1] = '\0';
  char* end = strpbrk(buf, "\r\n");
  if (end)
    *end = '\0';
  char* w = buf; /* runs of blanks as one (MPICH aligns "Version:", Open MPI pads the end) */
  for (char* r = buf; *r; r++)
    if (!(*r == ' ' || *r == '\t') || (w > buf && w[-1] != ' '))
      *w++ = *r == '\t' ? ' ' : *r;
  while (w > buf && w[-1] == ' ')
    w--;
  *w = '\0';
  snprintf(out, len, "%s", *buf ? buf : "an MPI with an empty MPI_Get_library_version");
}

/* Rank 0 of the launcher, or no launcher's rank variable at all: the process that speaks. */
static int speaks(void)
{
  static const char* const vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
                                     "SLURM_PROCID", "ALPS_APP_PE", NULL};
  for (int i = 0; vars[i]; i++) {
    const char* v = getenv(vars[i]);
    if (v && *v)
      return strcmp(v, "0") == 0;
  }
  return 1;
}

static void decide(void)
{
  char why[2048] = "", mpi[1024];
  Dl_info self;
  if (CFG_MARKER[0] && !find_symbol(CFG_MARKER, RTLD_DEFAULT)) {
    found_mpi(mpi, sizeof mpi);
    snprintf(why, sizeof why, "this process runs %s", mpi);
  }
  char needed[] = CFG_CORE_NEEDED;
  for (char *save = NULL, *lib = strtok_r(needed, ":", &save); !*why && lib; lib = strtok_r(NULL, ":", &save)) {
    void* h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (h) {
      dlclose(h); /* only the reference NOLOAD took */
    } else {
      found_mpi(mpi, sizeof mpi);
      snprintf(why, sizeof why, "this process runs %s, without %s", mpi, lib);
    }
  }
  if (!*why) {
    char path[4096];
    if (!dladdr((void*)&decide, &self) || !self.dli_fname) {
      snprintf(why, sizeof why, "cannot tell where this library is, to find %s", CFG_CORE_NAME);
    } else {
      snprintf(path, sizeof path, "%s", self.dli_fname);
      char* slash = strrchr(path, '/');
      size_t dir = slash ? (size_t)(slash - path + 1) : 0;
      snprintf(path + dir, sizeof path - dir, "%s", CFG_CORE_NAME);
      void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        snprintf(why, sizeof why, "cannot load %s", dlerror());
      } else {
        core_handle = h;
        *(void**)&core.cart = dlsym(h, "mpitaskmap_cart_create");
        *(void**)&core.dist = dlsym(h, "mpitaskmap_dist_graph_create_adjacent");
        *(void**)&core.f_cart = dlsym(h, "mpitaskmap_f_cart_create");
        *(void**)&core.f_dist = dlsym(h, "mpitaskmap_f_dist_graph_create_adjacent");
        *(void**)&core.record_start = dlsym(h, "mpitaskmap_record_start");
        *(void**)&core.pcontrol = dlsym(h, "mpitaskmap_record_pcontrol");
        *(void**)&core.finalize = dlsym(h, "mpitaskmap_record_finalize");
        *(void**)&core.start = dlsym(h, "mpitaskmap_record_start_request");
        *(void**)&core.request_free = dlsym(h, "mpitaskmap_record_request_free");
        *(void**)&core.startall = dlsym(h, "mpitaskmap_record_startall");
        if (!core.cart || !core.dist || !core.f_cart || !core.f_dist || !core.record_start || !core.pcontrol ||
            !core.finalize || !core.start || !core.request_free || !core.startall)
          snprintf(why, sizeof why, "%s lacks its entry points (a stale build? rebuild: mpitaskmap --pmpi-lib)", path);
        else
          core_ready = 1;
      }
    }
  }
  memcpy(core_why, why, sizeof core_why);
}

/* Whether the core runs here; if not, rank 0 says so once per `what` (a flag of the caller's). */
static int core_for(int* said, const char* what)
{
  pthread_once(&decided, decide);
  if (!core_ready && !__atomic_exchange_n(said, 1, __ATOMIC_RELAXED) && speaks()) {
    fprintf(stderr, "mpitaskmap: the PMPI library was built for %s but %s: %s (build it with this MPI's mpicc: "
            "MPICC=... mpitaskmap --pmpi-lib)\n", CFG_BUILT_FOR, core_why, what);
    fflush(stderr);
  }
  return core_ready;
}

static int use_core(void)
{
  static int said;
  return core_for(&said, "it leaves MPI_Cart_create and MPI_Dist_graph_create_adjacent to this MPI, not reordered");
}

/* The process's own definition of name (the next after this library), or a message and abort:
 * a program that calls a function its MPI does not define could not have run without this library. */
static void* next(const char* name)
{
  void* f = find_symbol(name, RTLD_NEXT);
  if (!f) {
    fprintf(stderr, "mpitaskmap: %s: this process's MPI does not define it\n", name);
    abort();
  }
  return f;
}

/* -- C ------------------------------------------------------------------------------------------ */

int MPI_Cart_create(handle comm, int ndims, const int dims[], const int periods[], int reorder, handle* cart)
{
  if (use_core())
    return core.cart(comm, ndims, dims, periods, reorder, cart);
  static cart_fn own;
  if (!own)
    *(void**)&own = next("MPI_Cart_create");
  return own(comm, ndims, dims, periods, reorder, cart);
}

int MPI_Dist_graph_create_adjacent(handle comm, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], handle info,
                                   int reorder, handle* graph)
{
  if (use_core())
    return core.dist(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder,
                     graph);
  static dist_fn own;
  if (!own)
    *(void**)&own = next("MPI_Dist_graph_create_adjacent");
  return own(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, graph);
}

/* -- Fortran ------------------------------------------------------------------------------------
 * gfortran's spellings of the mpif.h / `use mpi` entry points, and Open MPI's `use mpi_f08` one
 * (whose bindings call PMPI_Cart_create themselves, past a C interposer). */

#define F_CART(name)                                                                                                  \
  void name(void* comm, void* ndims, void* dims, void* periods, void* reorder, void* comm_cart, void* ierror)        \
  {                                                                                                                   \
    if (use_core()) {                                                                                                 \
      core.f_cart(comm, ndims, dims, periods, reorder, comm_cart, ierror);                                           \
      return;                                                                                                         \
    }                                                                                                                 \
    ((f_cart_fn)next(#name))(comm, ndims, dims, periods, reorder, comm_cart, ierror);                                 \
  }
F_CART(mpi_cart_create_)
F_CART(mpi_cart_create__)
F_CART(mpi_cart_create)
F_CART(MPI_CART_CREATE)
F_CART(mpi_cart_create_f08_)

/* The core returns 0 where it cannot read the Fortran weight sentinels (MPICH names them
 * otherwise): then MPI's own Fortran binding takes the call, unchanged. */
#define F_DIST(name)                                                                                                  \
  void name(void* comm, void* indegree, void* sources, void* sourceweights, void* outdegree, void* destinations,     \
            void* destweights, void* info, void* reorder, void* graph, void* ierror)                                  \
  {                                                                                                                   \
    if (use_core() && core.f_dist(comm, indegree, sources, sourceweights, outdegree, destinations, destweights,      \
                                  info, reorder, graph, ierror))                                                      \
      return;                                                                                                         \
    ((f_dist_fn)next(#name))(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info,      \
                             reorder, graph, ierror);                                                                 \
  }
F_DIST(mpi_dist_graph_create_adjacent_)
F_DIST(mpi_dist_graph_create_adjacent__)
F_DIST(mpi_dist_graph_create_adjacent)
F_DIST(MPI_DIST_GRAPH_CREATE_ADJACENT)


/* -- the traffic recorder (mpitaskmap_pmpi_record.c) ------------------------------------------------
 * With MPITASKMAP_RECORD=PATH set, the core's recorder starts after MPI_Init / MPI_Init_thread
 * succeeded and every call below goes to it (it calls MPI's own PMPI_ function and returns its
 * code); otherwise each goes straight to the process's own MPI, found once. */

#define OWN(type, name)                                                                                               \
  static __typeof__(type) own;                                                                                        \
  if (!own)                                                                                                           \
  *(void**)&own = next(name)

/* -- whether a Fortran binding reaches the C entry points ----------------------------------------------
 * MPICH's mpif.h / `use mpi` bindings call the C MPI_Send ... (this library's C entry points count the call),
 * Open MPI's call PMPI_Send ... (only the Fortran entry point sees it): a Fortran entry point finds out which,
 * once, on its first successful call while recording (mpitaskmap_pmpi_shim_fortran.c, F_BINDING), and counts
 * only where the C side did not.  f_probing is nonzero while some thread probes: a C entry point that sees it
 * tells the probing thread (f_probe_state, this thread's: 1 probing, 2 a C entry point was reached).  A load
 * of f_probing is all a C call pays. */
static int f_probing;
static __thread int f_probe_state __attribute__((tls_model("initial-exec")));

static __attribute__((cold, noinline)) void c_entry_seen(void)
{
  if (f_probe_state == 1)
    f_probe_state = 2;
}

#define C_ENTRY_REACHED()                                                                                             \
  do {                                                                                                                \
    if (__builtin_expect(__atomic_load_n(&f_probing, __ATOMIC_RELAXED) != 0, 0))                                      \
      c_entry_seen();                                                                                                 \
  } while (0)

static void start_recording(void)
{
  if (recording) /* MPICH's Fortran MPI_INIT calls the C MPI_Init: the Fortran entry point comes second */
    return;
  const char* path = getenv("MPITASKMAP_RECORD");
  static int said;
  if (path && *path && core_for(&said, "MPITASKMAP_RECORD is ignored: no traffic is recorded"))
    recording = core.record_start(path);
}

int MPI_Init(int* argc, char*** argv)
{
  OWN(int (*)(int*, char***), "MPI_Init");
  int rc = own(argc, argv);
  if (rc == 0)
    start_recording();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided)
{
  OWN(int (*)(int*, char***, int, int*), "MPI_Init_thread");
  int rc = own(argc, argv, required, provided);
  if (rc == 0)
    start_recording();
  return rc;
}

/* Every process whose core runs goes through the core's MPI_Finalize, recording or not: there the
 * ranks agree that all of them recorded before they merge (one PMPI_Allreduce), so that
 * MPITASKMAP_RECORD set on some ranks only cannot hang the job. */
int MPI_Finalize(void)
{
  pthread_once(&decided, decide);
  if (core_ready)
    return core.finalize();
  OWN(int (*)(void), "MPI_Finalize");
  return own();
}

int MPI_Pcontrol(const int level, ...)
{
  if (recording)
    return core.pcontrol(level);
  OWN(int (*)(int, ...), "MPI_Pcontrol");
  return own(level);
}

int MPI_Start(void* request)
{
  if (recording) {
    C_ENTRY_REACHED();
    return core.start(request);
  }
  OWN(int (*)(void*), "MPI_Start");
  return own(request);
}

int MPI_Startall(int count, void* requests)
{
  if (recording) {
    C_ENTRY_REACHED();
    return core.startall(count, requests);
  }
  OWN(int (*)(int, void*), "MPI_Startall");
  return own(count, requests);
}

int MPI_Request_free(void* request)
{
  if (recording) {
    C_ENTRY_REACHED();
    return core.request_free(request);
  }
  OWN(int (*)(void*), "MPI_Request_free");
  return own(request);
}

/* -- MPI 4's functions -------------------------------------------------------------------------------
 * The _c forms, MPI_Isendrecv(_replace), MPI_Psend_init and the persistent neighbourhood collectives
 * may be missing from the process's MPI (Open MPI 4.1 and 5 have no _c form), and a program may look
 * for them: mpi4py refers to each weakly and takes its own fallback (the int-count call) where the
 * symbol has no address.  Defined plainly here, they would give it an address that leads nowhere.  So
 * each is a GNU indirect function whose resolver, when the symbol is bound, gives this library's entry
 * point where the process's MPI defines the function, and no address (absent, as without this
 * library) where it does not. */

static int own_defines(const char* name)
{
  return find_symbol(name, RTLD_NEXT) != NULL;
}

#define OPTIONAL(NAME)                                                                                                \
  static __typeof__(impl_##NAME)* resolve_##NAME(void)                                                                \
  {                                                                                                                   \
    return own_defines(#NAME) ? impl_##NAME : NULL;                                                                   \
  }                                                                                                                   \
  __typeof__(impl_##NAME) NAME __attribute__((ifunc("resolve_" #NAME)));


/* -- the recorder's families: sends, one-sided, partitioned, neighbourhood collectives, collectives ------
 * Each goes to the core's mpitaskmap_rec_<its name> when recording (looked up at its first call; absent
 * where the core's MPI lacks the function, e.g. the _c forms before MPI 4: then to MPI, unrecorded), else
 * to the process's own MPI.  MPI_Aint is pointer-sized in every MPI this runs on (intptr_t here). */

typedef intptr_t aint;

#define WRAP_DEF(LINKAGE, FNAME, NAME, PARAMS, ARGS)                                                                 \
  LINKAGE int FNAME PARAMS                                                                                            \
  {                                                                                                                   \
    typedef int(*fn_t) PARAMS;                                                                                        \
    if (recording) {                                                                                                  \
      C_ENTRY_REACHED();                                                                                              \
      static fn_t rec_fn;                                                                                             \
      static int looked;                                                                                              \
      if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {                                                              \
        fn_t f;                                                                                                       \
        *(void**)&f = dlsym(core_handle, "mpitaskmap_rec_" #NAME);                                                    \
        __atomic_store_n(&rec_fn, f, __ATOMIC_RELAXED);                                                               \
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);                                                               \
      }                                                                                                               \
      fn_t f = __atomic_load_n(&rec_fn, __ATOMIC_RELAXED);                                                            \
      if (f)                                                                                                          \
        return f ARGS;                                                                                                \
    }                                                                                                                 \
    OWN(fn_t, #NAME);                                                                                                 \
    return own ARGS;                                                                                                  \
  }
#define WRAP(NAME, PARAMS, ARGS) WRAP_DEF(, NAME, NAME, PARAMS, ARGS)
/* A function of MPI 4 (see OPTIONAL above). */
#define WRAP4(NAME, PARAMS, ARGS) WRAP_DEF(static, impl_##NAME, NAME, PARAMS, ARGS) OPTIONAL(NAME)

WRAP(MPI_Send, (const void* buf, int count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP(MPI_Bsend, (const void* buf, int count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP(MPI_Ssend, (const void* buf, int count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP(MPI_Rsend, (const void* buf, int count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP(MPI_Isend, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Ibsend, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Issend, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Irsend, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Send_init, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Bsend_init, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Ssend_init, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Rsend_init, (const void* buf, int count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP(MPI_Sendrecv, (const void* sbuf, int scount, handle stype, int dest, int stag, void* rbuf, int rcount, handle rtype, int source, int rtag, handle comm, void* status), (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status))
WRAP(MPI_Sendrecv_replace, (void* buf, int count, handle type, int dest, int stag, int source, int rtag, handle comm, void* status), (buf, count, type, dest, stag, source, rtag, comm, status))
WRAP4(MPI_Isendrecv, (const void* sbuf, int scount, handle stype, int dest, int stag, void* rbuf, int rcount, handle rtype, int source, int rtag, handle comm, void* req), (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, req))
WRAP4(MPI_Isendrecv_replace, (void* buf, int count, handle type, int dest, int stag, int source, int rtag, handle comm, void* req), (buf, count, type, dest, stag, source, rtag, comm, req))
WRAP4(MPI_Send_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP4(MPI_Bsend_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP4(MPI_Ssend_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP4(MPI_Rsend_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm), (buf, count, type, dest, tag, comm))
WRAP4(MPI_Isend_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Ibsend_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Issend_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Irsend_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Send_init_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Bsend_init_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Ssend_init_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Rsend_init_c, (const void* buf, count_t count, handle type, int dest, int tag, handle comm, void* req), (buf, count, type, dest, tag, comm, req))
WRAP4(MPI_Sendrecv_c, (const void* sbuf, count_t scount, handle stype, int dest, int stag, void* rbuf, count_t rcount, handle rtype, int source, int rtag, handle comm, void* status), (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status))
WRAP4(MPI_Sendrecv_replace_c, (void* buf, count_t count, handle type, int dest, int stag, int source, int rtag, handle comm, void* status), (buf, count, type, dest, stag, source, rtag, comm, status))
WRAP4(MPI_Isendrecv_c, (const void* sbuf, count_t scount, handle stype, int dest, int stag, void* rbuf, count_t rcount, handle rtype, int source, int rtag, handle comm, void* req), (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, req))
WRAP4(MPI_Isendrecv_replace_c, (void* buf, count_t count, handle type, int dest, int stag, int source, int rtag, handle comm, void* req), (buf, count, type, dest, stag, source, rtag, comm, req))
WRAP(MPI_Put, (const void* obuf, int ocount, handle otype, int target, aint tdisp, int tcount, handle ttype, handle win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win))
WRAP4(MPI_Put_c, (const void* obuf, count_t ocount, handle otype, int target, aint tdisp, count_t tcount, handle ttype, handle win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win))
WRAP(MPI_Get, (void* obuf, int ocount, handle otype, int target, aint tdisp, int tcount, handle ttype, handle win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win))
WRAP4(MPI_Get_c, (void* obuf, count_t ocount, handle otype, int target, aint tdisp, count_t tcount, handle ttype, handle win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win))
WRAP(MPI_Accumulate, (const void* obuf, int ocount, handle otype, int target, aint tdisp, int tcount, handle ttype, handle op, handle win), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win))
WRAP4(MPI_Accumulate_c, (const void* obuf, count_t ocount, handle otype, int target, aint tdisp, count_t tcount, handle ttype, handle op, handle win), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win))
WRAP(MPI_Get_accumulate, (const void* obuf, int ocount, handle otype, void* resbuf, int rescount, handle restype, int target, aint tdisp, int tcount, handle ttype, handle op, handle win), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win))
WRAP4(MPI_Get_accumulate_c, (const void* obuf, count_t ocount, handle otype, void* resbuf, count_t rescount, handle restype, int target, aint tdisp, count_t tcount, handle ttype, handle op, handle win), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win))
WRAP(MPI_Fetch_and_op, (const void* obuf, void* resbuf, handle type, int target, aint tdisp, handle op, handle win), (obuf, resbuf, type, target, tdisp, op, win))
WRAP(MPI_Compare_and_swap, (const void* obuf, const void* cbuf, void* resbuf, handle type, int target, aint tdisp, handle win), (obuf, cbuf, resbuf, type, target, tdisp, win))
WRAP(MPI_Rput, (const void* obuf, int ocount, handle otype, int target, aint tdisp, int tcount, handle ttype, handle win, void* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req))
WRAP4(MPI_Rput_c, (const void* obuf, count_t ocount, handle otype, int target, aint tdisp, count_t tcount, handle ttype, handle win, void* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req))
WRAP(MPI_Rget, (void* obuf, int ocount, handle otype, int target, aint tdisp, int tcount, handle ttype, handle win, void* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req))
WRAP4(MPI_Rget_c, (void* obuf, count_t ocount, handle otype, int target, aint tdisp, count_t tcount, handle ttype, handle win, void* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req))
WRAP(MPI_Raccumulate, (const void* obuf, int ocount, handle otype, int target, aint tdisp, int tcount, handle ttype, handle op, handle win, void* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win, req))
WRAP4(MPI_Raccumulate_c, (const void* obuf, count_t ocount, handle otype, int target, aint tdisp, count_t tcount, handle ttype, handle op, handle win, void* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win, req))
WRAP(MPI_Rget_accumulate, (const void* obuf, int ocount, handle otype, void* resbuf, int rescount, handle restype, int target, aint tdisp, int tcount, handle ttype, handle op, handle win, void* req), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win, req))
WRAP4(MPI_Rget_accumulate_c, (const void* obuf, count_t ocount, handle otype, void* resbuf, count_t rescount, handle restype, int target, aint tdisp, count_t tcount, handle ttype, handle op, handle win, void* req), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win, req))
WRAP4(MPI_Psend_init, (const void* buf, int partitions, count_t count, handle type, int dest, int tag, handle comm, handle info, void* req), (buf, partitions, count, type, dest, tag, comm, info, req))
WRAP(MPI_Neighbor_allgather, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP4(MPI_Neighbor_allgather_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP(MPI_Neighbor_allgatherv, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
WRAP4(MPI_Neighbor_allgatherv_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
WRAP(MPI_Neighbor_alltoall, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP4(MPI_Neighbor_alltoall_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP(MPI_Neighbor_alltoallv, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
WRAP4(MPI_Neighbor_alltoallv_c, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
WRAP(MPI_Neighbor_alltoallw, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm))
WRAP4(MPI_Neighbor_alltoallw_c, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm))
WRAP(MPI_Ineighbor_allgather, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP4(MPI_Ineighbor_allgather_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP(MPI_Ineighbor_allgatherv, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req))
WRAP4(MPI_Ineighbor_allgatherv_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req))
WRAP(MPI_Ineighbor_alltoall, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP4(MPI_Ineighbor_alltoall_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP(MPI_Ineighbor_alltoallv, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req))
WRAP4(MPI_Ineighbor_alltoallv_c, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req))
WRAP(MPI_Ineighbor_alltoallw, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req))
WRAP4(MPI_Ineighbor_alltoallw_c, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req))
WRAP4(MPI_Neighbor_allgather_init, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Neighbor_allgather_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Neighbor_allgatherv_init, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req))
WRAP4(MPI_Neighbor_allgatherv_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req))
WRAP4(MPI_Neighbor_alltoall_init, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Neighbor_alltoall_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Neighbor_alltoallv_init, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req))
WRAP4(MPI_Neighbor_alltoallv_init_c, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req))
WRAP4(MPI_Neighbor_alltoallw_init, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req))
WRAP4(MPI_Neighbor_alltoallw_init_c, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req))
WRAP(MPI_Barrier, (handle comm), (comm))
WRAP(MPI_Ibarrier, (handle comm, void* req), (comm, req))
WRAP(MPI_Bcast, (void* buf, int count, handle type, int root, handle comm), (buf, count, type, root, comm))
WRAP4(MPI_Bcast_c, (void* buf, count_t count, handle type, int root, handle comm), (buf, count, type, root, comm))
WRAP(MPI_Ibcast, (void* buf, int count, handle type, int root, handle comm, void* req), (buf, count, type, root, comm, req))
WRAP4(MPI_Ibcast_c, (void* buf, count_t count, handle type, int root, handle comm, void* req), (buf, count, type, root, comm, req))
WRAP(MPI_Reduce, (const void* sbuf, void* rbuf, int count, handle type, handle op, int root, handle comm), (sbuf, rbuf, count, type, op, root, comm))
WRAP4(MPI_Reduce_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, int root, handle comm), (sbuf, rbuf, count, type, op, root, comm))
WRAP(MPI_Ireduce, (const void* sbuf, void* rbuf, int count, handle type, handle op, int root, handle comm, void* req), (sbuf, rbuf, count, type, op, root, comm, req))
WRAP4(MPI_Ireduce_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, int root, handle comm, void* req), (sbuf, rbuf, count, type, op, root, comm, req))
WRAP(MPI_Allreduce, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm), (sbuf, rbuf, count, type, op, comm))
WRAP4(MPI_Allreduce_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm), (sbuf, rbuf, count, type, op, comm))
WRAP(MPI_Iallreduce, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm, void* req), (sbuf, rbuf, count, type, op, comm, req))
WRAP4(MPI_Iallreduce_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm, void* req), (sbuf, rbuf, count, type, op, comm, req))
WRAP(MPI_Scan, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm), (sbuf, rbuf, count, type, op, comm))
WRAP4(MPI_Scan_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm), (sbuf, rbuf, count, type, op, comm))
WRAP(MPI_Iscan, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm, void* req), (sbuf, rbuf, count, type, op, comm, req))
WRAP4(MPI_Iscan_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm, void* req), (sbuf, rbuf, count, type, op, comm, req))
WRAP(MPI_Exscan, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm), (sbuf, rbuf, count, type, op, comm))
WRAP4(MPI_Exscan_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm), (sbuf, rbuf, count, type, op, comm))
WRAP(MPI_Iexscan, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm, void* req), (sbuf, rbuf, count, type, op, comm, req))
WRAP4(MPI_Iexscan_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm, void* req), (sbuf, rbuf, count, type, op, comm, req))
WRAP(MPI_Gather, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
WRAP4(MPI_Gather_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
WRAP(MPI_Igather, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req))
WRAP4(MPI_Igather_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req))
WRAP(MPI_Gatherv, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, int root, handle comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm))
WRAP4(MPI_Gatherv_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, int root, handle comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm))
WRAP(MPI_Igatherv, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, int root, handle comm, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req))
WRAP4(MPI_Igatherv_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, int root, handle comm, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req))
WRAP(MPI_Scatter, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
WRAP4(MPI_Scatter_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
WRAP(MPI_Iscatter, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req))
WRAP4(MPI_Iscatter_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req))
WRAP(MPI_Scatterv, (const void* sbuf, const void* scounts, const void* displs, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm))
WRAP4(MPI_Scatterv_c, (const void* sbuf, const void* scounts, const void* displs, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm))
WRAP(MPI_Iscatterv, (const void* sbuf, const void* scounts, const void* displs, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm, void* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req))
WRAP4(MPI_Iscatterv_c, (const void* sbuf, const void* scounts, const void* displs, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm, void* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req))
WRAP(MPI_Allgather, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP4(MPI_Allgather_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP(MPI_Iallgather, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP4(MPI_Iallgather_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP(MPI_Allgatherv, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
WRAP4(MPI_Allgatherv_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
WRAP(MPI_Iallgatherv, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req))
WRAP4(MPI_Iallgatherv_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req))
WRAP(MPI_Alltoall, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP4(MPI_Alltoall_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm))
WRAP(MPI_Ialltoall, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP4(MPI_Ialltoall_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
WRAP(MPI_Alltoallv, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
WRAP4(MPI_Alltoallv_c, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
WRAP(MPI_Ialltoallv, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req))
WRAP4(MPI_Ialltoallv_c, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req))
WRAP(MPI_Alltoallw, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm))
WRAP4(MPI_Alltoallw_c, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm))
WRAP(MPI_Ialltoallw, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req))
WRAP4(MPI_Ialltoallw_c, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req))
WRAP(MPI_Reduce_scatter, (const void* sbuf, void* rbuf, const void* rcounts, handle type, handle op, handle comm), (sbuf, rbuf, rcounts, type, op, comm))
WRAP4(MPI_Reduce_scatter_c, (const void* sbuf, void* rbuf, const void* rcounts, handle type, handle op, handle comm), (sbuf, rbuf, rcounts, type, op, comm))
WRAP(MPI_Ireduce_scatter, (const void* sbuf, void* rbuf, const void* rcounts, handle type, handle op, handle comm, void* req), (sbuf, rbuf, rcounts, type, op, comm, req))
WRAP4(MPI_Ireduce_scatter_c, (const void* sbuf, void* rbuf, const void* rcounts, handle type, handle op, handle comm, void* req), (sbuf, rbuf, rcounts, type, op, comm, req))
WRAP(MPI_Reduce_scatter_block, (const void* sbuf, void* rbuf, int rcount, handle type, handle op, handle comm), (sbuf, rbuf, rcount, type, op, comm))
WRAP4(MPI_Reduce_scatter_block_c, (const void* sbuf, void* rbuf, count_t rcount, handle type, handle op, handle comm), (sbuf, rbuf, rcount, type, op, comm))
WRAP(MPI_Ireduce_scatter_block, (const void* sbuf, void* rbuf, int rcount, handle type, handle op, handle comm, void* req), (sbuf, rbuf, rcount, type, op, comm, req))
WRAP4(MPI_Ireduce_scatter_block_c, (const void* sbuf, void* rbuf, count_t rcount, handle type, handle op, handle comm, void* req), (sbuf, rbuf, rcount, type, op, comm, req))
WRAP4(MPI_Barrier_init, (handle comm, handle info, void* req), (comm, info, req))
WRAP4(MPI_Bcast_init, (void* buf, int count, handle type, int root, handle comm, handle info, void* req), (buf, count, type, root, comm, info, req))
WRAP4(MPI_Bcast_init_c, (void* buf, count_t count, handle type, int root, handle comm, handle info, void* req), (buf, count, type, root, comm, info, req))
WRAP4(MPI_Reduce_init, (const void* sbuf, void* rbuf, int count, handle type, handle op, int root, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, root, comm, info, req))
WRAP4(MPI_Reduce_init_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, int root, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, root, comm, info, req))
WRAP4(MPI_Allreduce_init, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, comm, info, req))
WRAP4(MPI_Allreduce_init_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, comm, info, req))
WRAP4(MPI_Scan_init, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, comm, info, req))
WRAP4(MPI_Scan_init_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, comm, info, req))
WRAP4(MPI_Exscan_init, (const void* sbuf, void* rbuf, int count, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, comm, info, req))
WRAP4(MPI_Exscan_init_c, (const void* sbuf, void* rbuf, count_t count, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, count, type, op, comm, info, req))
WRAP4(MPI_Gather_init, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req))
WRAP4(MPI_Gather_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req))
WRAP4(MPI_Gatherv_init, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, info, req))
WRAP4(MPI_Gatherv_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, info, req))
WRAP4(MPI_Scatter_init, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req))
WRAP4(MPI_Scatter_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req))
WRAP4(MPI_Scatterv_init, (const void* sbuf, const void* scounts, const void* displs, handle stype, void* rbuf, int rcount, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, info, req))
WRAP4(MPI_Scatterv_init_c, (const void* sbuf, const void* scounts, const void* displs, handle stype, void* rbuf, count_t rcount, handle rtype, int root, handle comm, handle info, void* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, info, req))
WRAP4(MPI_Allgather_init, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Allgather_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Allgatherv_init, (const void* sbuf, int scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req))
WRAP4(MPI_Allgatherv_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, const void* rcounts, const void* displs, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req))
WRAP4(MPI_Alltoall_init, (const void* sbuf, int scount, handle stype, void* rbuf, int rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Alltoall_init_c, (const void* sbuf, count_t scount, handle stype, void* rbuf, count_t rcount, handle rtype, handle comm, handle info, void* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req))
WRAP4(MPI_Alltoallv_init, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req))
WRAP4(MPI_Alltoallv_init_c, (const void* sbuf, const void* scounts, const void* sdispls, handle stype, void* rbuf, const void* rcounts, const void* rdispls, handle rtype, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req))
WRAP4(MPI_Alltoallw_init, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req))
WRAP4(MPI_Alltoallw_init_c, (const void* sbuf, const void* scounts, const void* sdispls, const void* stypes, void* rbuf, const void* rcounts, const void* rdispls, const void* rtypes, handle comm, handle info, void* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req))
WRAP4(MPI_Reduce_scatter_init, (const void* sbuf, void* rbuf, const void* rcounts, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, rcounts, type, op, comm, info, req))
WRAP4(MPI_Reduce_scatter_init_c, (const void* sbuf, void* rbuf, const void* rcounts, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, rcounts, type, op, comm, info, req))
WRAP4(MPI_Reduce_scatter_block_init, (const void* sbuf, void* rbuf, int rcount, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, rcount, type, op, comm, info, req))
WRAP4(MPI_Reduce_scatter_block_init_c, (const void* sbuf, void* rbuf, count_t rcount, handle type, handle op, handle comm, handle info, void* req), (sbuf, rbuf, rcount, type, op, comm, info, req))
