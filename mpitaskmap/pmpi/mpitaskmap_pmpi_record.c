/* The traffic recorder of libmpitaskmap_pmpi_core: with MPITASKMAP_RECORD=PATH, the messages and bytes
 * every rank sends to every other, in MPI_COMM_WORLD numbering, written at MPI_Finalize as one Matrix
 * Market file (bytes), a second one (message counts) and a JSON sidecar.
 *
 * The preloaded shim (mpitaskmap_pmpi_shim.c) calls mpitaskmap_record_start after MPI_Init /
 * MPI_Init_thread succeeded when MPITASKMAP_RECORD is set and the core can run in the process; from
 * then on its MPI_Send ... entry points call the mpitaskmap_rec_* and mpitaskmap_record_* functions below, which call MPI's
 * own PMPI_ function and return exactly its return code, and count only when it returned MPI_SUCCESS
 * (an erroneous call is MPI's to report, and its handler runs as without this library: no MPI call is
 * made before it).  Recorded (point-to-point, on any communicator, intercommunicators included):
 *
 *   MPI_Send, MPI_Bsend, MPI_Ssend, MPI_Rsend, MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend,
 *   MPI_Sendrecv, MPI_Sendrecv_replace (their send part), and the persistent MPI_Send_init,
 *   MPI_Bsend_init, MPI_Ssend_init, MPI_Rsend_init, counted at each MPI_Start / MPI_Startall;
 *   with an MPI of version 4 or later also MPI_Isendrecv, MPI_Isendrecv_replace and the
 *   large-count (_c) form of each of these (mpi4py 4 calls MPI_Send_c ... where they exist);
 *   partitioned sends: MPI_Psend_init (MPI 4, Open MPI 5), one message of the whole buffer
 *   (partitions x count x type) at each MPI_Start / MPI_Startall;
 *   one-sided: MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 *   MPI_Compare_and_swap, MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate (and _c), as data
 *   flow (mpitaskmap_pmpi_record.h says which way each goes), the target translated through the
 *   window's group (kept as a window attribute with a delete callback, like communicators');
 *   neighbourhood collectives: MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v, w), their I- forms,
 *   their persistent _init forms (MPI 4, Open MPI 5; counted at each start) and _c forms: each
 *   out-neighbour of the communicator's topology (Cartesian, graph, distributed graph, in MPI's
 *   order, kept as a communicator attribute) gets its block, MPI_PROC_NULL neighbours nothing;
 *   collectives (MPI_Barrier ... MPI_Exscan and their I- forms, _c forms under the same names; the
 *   persistent MPI_Barrier_init ... MPI_Exscan_init of MPI 4 / Open MPI 5, one call of the _init name
 *   at each MPI_Start / MPI_Startall of the request, as persistent sends are), not as pairs: per
 *   communicator, calls and bytes contributed (mpitaskmap_pmpi_record.h's rules), merged at
 *   MPI_Finalize into PATH.json ("collectives", "collectives_total").
 *
 * The Fortran entry points (mpitaskmap_pmpi_record_fortran.c) call MPI's own Fortran binding and
 * then the notes of mpitaskmap_pmpi_record.h, which count as the C entry points below do.
 *
 * Data structures.  Each rank holds its own row only: sent[P] (messages and bytes side by side, so
 * that a count writes one cache line; P = the size of MPI_COMM_WORLD), so no rank holds P^2 entries.
 * Data a one-sided call of this rank moved from a target to it (MPI_Get ...) belongs to the target's
 * row: the origin keeps it in pulled[P] (indexed by the target) and, at MPI_Finalize before the merge, sends each nonzero
 * entry to its target (MPI_Reduce_scatter_block of 0/1 flags tells each rank how many to receive),
 * which adds it to its own row: the merge then sees one row per rank, each pair once, rows in order.
 * Collective totals: at most COLL_SLOTS (64) communicators per rank, identified by their members
 * (size, lowest world rank, FNV-1a hash of the sorted world ranks: communicators of the same
 * members, a dup of MPI_COMM_WORLD and the world itself, are one entry), then one "other" entry; a
 * call is counted by the communicator's lowest member only, the bytes by every member.  A communicator's ranks are translated to world
 * ranks once (MPI_Group_translate_ranks of its group, the remote group of an intercommunicator),
 * kept as an attribute of the communicator (a keyval whose delete callback frees it when the
 * application frees the communicator, so a reused handle never sees a stale table);
 * MPI_COMM_WORLD needs none.  A persistent send request is kept in a small hash table from the
 * request handle to (world destination, bytes), entered at MPI_*send_init, looked up at MPI_Start,
 * removed at MPI_Request_free.  MPI_Pcontrol(0) pauses counting and MPI_Pcontrol(1) resumes it
 * (as mpiP reads them); other levels (IPM's region marks -1 and 1 with a name ...) change nothing
 * but are passed to MPI's own MPI_Pcontrol like every level; rank 0's windows are written to the
 * sidecar.  The messages
 * Python sends while it computes an MPI_Cart_create / MPI_Dist_graph_create_adjacent order
 * (mpitaskmap_in_hook, set by mpitaskmap_pmpi.c) are not counted.  Under
 * MPI_THREAD_MULTIPLE the counters are added atomically and the tables are locked.
 *
 * The merge at MPI_Finalize (when every rank recorded: agreed first, see mpitaskmap_record_finalize), on a communicator of MPI_COMM_WORLD's group made with MPI_Comm_create
 * (not MPI_Comm_dup, which would run the copy callbacks of the application's attributes on
 * MPI_COMM_WORLD) and given MPI_ERRORS_RETURN (the application's communicators and handlers are
 * not touched): rank 0 opens the files and broadcasts
 * whether it could; one-sided target -> origin entries are handed to their rows (above); the totals
 * (nonzeros, messages, bytes, duration, nodes) are reduced to rank 0,
 * which writes the headers (Matrix Market needs the nonzero count first) and its own row.  Then it
 * pulls the other rows in rank order: it grants up to WINDOW ranks ahead (one int message each); a
 * granted rank sends its nonzero count and its number of collective entries, then its nonzeros in
 * chunks of at most CHUNK (column, messages, bytes) triples, then its collective entries in one
 * message (at most 65); rank 0 writes each chunk as it arrives and sums the collective entries into
 * a table of at most COLL_MERGED (4096) communicators, the rest in "other".  So rank 0 holds at most
 * WINDOW chunks in flight besides its own row, and ranks not yet granted send nothing (no
 * unexpected-message pile-up at rank 0).  A file that cannot be opened or written gives one line on
 * stderr from rank 0 and nothing else (the Matrix Market files it made are removed: no half
 * recording is left); every rank still finishes the protocol, so nothing hangs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitaskmap_pmpi_record.h"

#define CORE_API __attribute__((visibility("default")))
#define CHUNK 4096 /* nonzeros per message of the merge (MPITASKMAP_RECORD_CHUNK, read on rank 0, may lower it) */
#define WINDOW 4   /* ranks granted ahead by rank 0 */
#define MAX_WINDOWS 64

/* MPI 4's calls other than the _c forms: Open MPI 5 has them (MPI_Isendrecv, the persistent
 * neighbourhood collectives, partitioned sends) but says MPI 3.1. */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define MPI4_CALLS 1
#else
#define MPI4_CALLS 0
#endif

/* Distinct communicators a rank keeps collective totals for, then one "other" entry; and rank 0 in the
 * merge.  MPITASKMAP_RECORD_COMMS=N (below 64) lowers both to N (each rank reads its own). */
#define COLL_SLOTS 64
#define COLL_MERGED 4096

/* A communicator's collective totals on this rank; identity: its members' world ranks (size, lowest, hash). */
typedef struct {
  uint64_t hash;
  int size, first; /* size -1: the "other" entry */
  uint64_t bytes, calls[RECORD_NCOLL];
} coll_totals;

/* Messages and bytes to (or, pulled, from) one world rank. */
typedef struct {
  uint64_t msgs, bytes;
} tally;

/* The fields a send's count reads come first, in one cache line (the struct is aligned to one): with
 * the destination's tally, a count touches two lines.  Measured on the benchmark's 2-rank halo at
 * 1 KiB (benchmarks/recorder_overhead.py), the six lines the same count touched spread over the data
 * section cost several times the count's own instructions: an MPI's message copies evict them. */
static struct {
  int on;            /* recording started (mpitaskmap_record_start) */
  int paused;        /* MPI_Pcontrol(0) */
  int atomic;        /* MPI_THREAD_MULTIPLE */
  int hooks_running; /* threads inside a mapping hook (mpitaskmap_record_hook_running) */
  int size;
  MPI_Datatype last_type; /* the predefined type counted last, and its size (not under MPI_THREAD_MULTIPLE, */
  MPI_Count last_size;    /* where the two could tear: MPI_DATATYPE_NULL then) */
  tally* sent;            /* [t]: to world rank t */
  int rank;
  tally* pulled; /* [t]: data from world rank t to this one that this rank's calls moved */
  int any_pulled;
  double t0;
  int keyval, win_keyval, nb_keyval, coll_keyval;
  coll_totals coll[COLL_SLOTS + 1]; /* [COLL_SLOTS]: "other" */
  int ncoll;
  int coll_slots, coll_merged; /* COLL_SLOTS and COLL_MERGED, or lower (MPITASKMAP_RECORD_COMMS) */
  MPI_Group world;
  double windows[MAX_WINDOWS][2], window_start;
  int nwindows, pcontrol_calls, windows_cut;
  char path[4096];
} rec __attribute__((aligned(64)));

/* Recursive: a table made under it (a communicator's neighbours) may need another (its translation). */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* Set by mpitaskmap_pmpi.c while Python computes a reordering: its messages are not the application's.
 * rec.hooks_running: how many threads are in such a hook; read first (in_hook()), so that a count
 * pays for the thread-local flag, a call to __tls_get_addr in this dlopen'ed library, only while some
 * thread computes a reordering.  Hidden like its definition: no lookup through the GOT. */
extern __thread int mpitaskmap_in_hook RECORD_INTERNAL;

RECORD_INTERNAL void mpitaskmap_record_hook_running(int delta)
{
  __atomic_fetch_add(&rec.hooks_running, delta, __ATOMIC_RELAXED);
}

static inline int in_hook(void)
{
  return __atomic_load_n(&rec.hooks_running, __ATOMIC_RELAXED) && mpitaskmap_in_hook;
}

/* -- counting ------------------------------------------------------------------------------- */

static inline void add(int world_dest, uint64_t bytes)
{
  if (world_dest < 0 || world_dest >= rec.size)
    return;
  tally* t = &rec.sent[world_dest];
  if (rec.atomic) {
    __atomic_fetch_add(&t->msgs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&t->bytes, bytes, __ATOMIC_RELAXED);
  } else {
    t->msgs++;
    t->bytes += bytes;
  }
}

/* Data this rank's call moved from world rank src to this one (MPI_Get ...): handed to src's row at the merge. */
static void add_pulled(int world_src, uint64_t bytes)
{
  if (world_src < 0 || world_src >= rec.size)
    return;
  tally* t = &rec.pulled[world_src];
  if (rec.atomic) {
    __atomic_fetch_add(&t->msgs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&t->bytes, bytes, __ATOMIC_RELAXED);
  } else {
    t->msgs++;
    t->bytes += bytes;
  }
  rec.any_pulled = 1;
}

typedef struct {
  int n;
  int world[]; /* world rank of each rank of the (remote) group; MPI_UNDEFINED outside the world */
} translation;

/* Bumped whenever a communicator's table is freed: the per-thread cache of world_rank holds a table
 * only as long as this has not changed since (a freed communicator's handle may come back for another). */
static unsigned comm_generation = 1;

static int drop_translation(MPI_Comm comm, int keyval, void* value, void* extra)
{
  (void)comm, (void)keyval, (void)extra;
  __atomic_fetch_add(&comm_generation, 1, __ATOMIC_RELEASE);
  free(value);
  return MPI_SUCCESS;
}

static int drop_win_translation(MPI_Win win, int keyval, void* value, void* extra)
{
  (void)win, (void)keyval, (void)extra;
  free(value);
  return MPI_SUCCESS;
}

/* The world ranks of a group's ranks (the group is freed). */
static translation* translate_group(MPI_Group group)
{
  int n = 0;
  PMPI_Group_size(group, &n);
  translation* t = malloc(sizeof(translation) + sizeof(int) * (size_t)(n > 0 ? n : 1));
  int* ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  t->n = n;
  for (int i = 0; i < n; i++)
    ranks[i] = i;
  PMPI_Group_translate_ranks(group, n, ranks, rec.world, t->world);
  free(ranks);
  PMPI_Group_free(&group);
  return t;
}

static void* make_comm_translation(MPI_Comm comm)
{
  int inter = 0;
  MPI_Group group;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    PMPI_Comm_remote_group(comm, &group);
  else
    PMPI_Comm_group(comm, &group);
  return translate_group(group);
}

/* A table kept as an attribute of comm (made once by make, under the lock when threads may race). */
static void* comm_cached(MPI_Comm comm, int keyval, void* (*make)(MPI_Comm))
{
  void* t = NULL;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval, &t, &found);
  if (found)
    return t;
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  PMPI_Comm_get_attr(comm, keyval, &t, &found); /* another thread may have made it */
  if (!found) {
    t = make(comm);
    PMPI_Comm_set_attr(comm, keyval, t);
  }
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
  return t;
}

static int in_world(const translation* t, int rank)
{
  if (rank < 0 || rank >= t->n || t->world[rank] == MPI_UNDEFINED)
    return -1;
  return t->world[rank];
}

/* The world rank of rank `rank` of comm (of its remote group for an intercommunicator), or -1.
 * Called after a successful call on comm only: comm and rank are valid. */
static int other_world_rank(MPI_Comm comm, int rank);

static inline int world_rank(MPI_Comm comm, int rank)
{
  if (rank == MPI_PROC_NULL || rank < 0)
    return -1;
  return comm == MPI_COMM_WORLD ? rank : other_world_rank(comm, rank);
}

/* world_rank on another communicator than MPI_COMM_WORLD. */
static int other_world_rank(MPI_Comm comm, int rank)
{
  /* The last communicator this thread translated for, and its table: a program sends on the same
   * communicator over and over, and MPI_Comm_get_attr costs more than the rest of a count. */
  static __thread struct {
    MPI_Comm comm;
    const translation* t;
    unsigned generation; /* comm_generation when t was found: 0 never matches */
  } last;
  unsigned generation = __atomic_load_n(&comm_generation, __ATOMIC_ACQUIRE);
  if (last.generation != generation || last.comm != comm) {
    last.t = comm_cached(comm, rec.keyval, make_comm_translation);
    last.comm = comm, last.generation = generation;
  }
  return in_world(last.t, rank);
}

/* The world rank of rank `rank` of win's group, or -1 (the translation kept as an attribute of the window). */
static int win_world_rank(MPI_Win win, int rank)
{
  if (rank == MPI_PROC_NULL || rank < 0)
    return -1;
  translation* t = NULL;
  int found = 0;
  PMPI_Win_get_attr(win, rec.win_keyval, &t, &found);
  if (!found) {
    if (rec.atomic)
      pthread_mutex_lock(&lock);
    PMPI_Win_get_attr(win, rec.win_keyval, &t, &found);
    if (!found) {
      MPI_Group group;
      PMPI_Win_get_group(win, &group);
      t = translate_group(group);
      PMPI_Win_set_attr(win, rec.win_keyval, t);
    }
    if (rec.atomic)
      pthread_mutex_unlock(&lock);
  }
  return in_world(t, rank);
}

/* The sizes of MPI's predefined datatypes, so that a count does not call MPI_Type_size_x for them: a
 * hash table of their handles, made at mpitaskmap_record_start without calling MPI (a handle of a
 * type this MPI lacks may be MPI_DATATYPE_NULL, which MPI_Type_size_x would report as an error), each
 * size filled in at the first successful call that sends the type (the size MPI_Type_size_x gives
 * then; -1 before).  Only predefined handles: they never change their meaning, while a derived
 * type's handle may be freed and come back for another type. */
#define TYPE_SLOTS 256 /* a power of 2, well above the types listed in predefined_types() */
static struct {
  MPI_Datatype handle;
  int used;
  MPI_Count size;
} type_sizes[TYPE_SLOTS]; /* a slot's fields side by side: a lookup reads one cache line */

static unsigned type_hash(MPI_Datatype type)
{
  uint64_t h = 0; /* an int (MPICH) or a pointer (Open MPI) */
  memcpy(&h, &type, sizeof type < sizeof h ? sizeof type : sizeof h);
  return (unsigned)((h * 0x9E3779B97F4A7C15ull) >> 40) & (TYPE_SLOTS - 1);
}

/* The slot of a predefined type, or -1. */
static inline int type_slot(MPI_Datatype type)
{
  for (unsigned i = type_hash(type);; i = (i + 1) & (TYPE_SLOTS - 1)) {
    if (!type_sizes[i].used)
      return -1;
    if (type_sizes[i].handle == type)
      return (int)i;
  }
}

static void predefined_types(void)
{
  const MPI_Datatype known[] = {
    MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG_INT, MPI_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
    MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE,
    MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
    MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_COUNT, MPI_OFFSET, MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX,
    MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_BYTE, MPI_PACKED, MPI_INTEGER, MPI_REAL,
    MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_LOGICAL, MPI_CHARACTER, MPI_DOUBLE_COMPLEX, MPI_FLOAT_INT,
    MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION,
    MPI_2INTEGER,
#ifdef MPI_INTEGER4
    MPI_INTEGER4,
#endif
#ifdef MPI_INTEGER8
    MPI_INTEGER8,
#endif
#ifdef MPI_REAL4
    MPI_REAL4,
#endif
#ifdef MPI_REAL8
    MPI_REAL8,
#endif
  };
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
    if (known[k] == MPI_DATATYPE_NULL || type_slot(known[k]) >= 0)
      continue; /* absent from this MPI, or another name of a type already in */
    unsigned i = type_hash(known[k]);
    while (type_sizes[i].used)
      i = (i + 1) & (TYPE_SLOTS - 1);
    type_sizes[i].handle = known[k], type_sizes[i].size = -1, type_sizes[i].used = 1;
  }
}

/* count x the size of type (called after a successful call with them: type is valid). */
static inline uint64_t size_of(MPI_Count count, MPI_Datatype type)
{
  if (count <= 0)
    return 0;
  if (type == rec.last_type) /* never MPI_DATATYPE_NULL here: a call with it does not succeed */
    return (uint64_t)count * (uint64_t)rec.last_size;
  int slot = type_slot(type);
  MPI_Count size = slot >= 0 ? __atomic_load_n(&type_sizes[slot].size, __ATOMIC_RELAXED) : -1;
  if (size < 0) {
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0)
      return 0;
    if (slot >= 0) /* threads that race store the same value */
      __atomic_store_n(&type_sizes[slot].size, size, __ATOMIC_RELAXED);
  }
  if (slot >= 0 && !rec.atomic) /* predefined: its handle always means this type */
    rec.last_type = type, rec.last_size = size;
  return (uint64_t)count * (uint64_t)size;
}

/* Whether a call that returned rc is counted: recording, not paused, not inside mpitaskmap's own hook. */
static inline int counting(int rc)
{
  return rc == MPI_SUCCESS && rec.on && !rec.paused && !in_hook();
}

/* A send's count, every case: any communicator, type and thread level. */
static __attribute__((cold, noinline)) void count_any(int rc, int dest, MPI_Count n, MPI_Datatype type, MPI_Comm comm)
{
  if (!counting(rc) || dest == MPI_PROC_NULL)
    return;
  add(world_rank(comm, dest), size_of(n, type));
}

/* A send's count, inlined into each entry point below (the hot path of the recorder: a program's
 * sends pay for it).  The common case, a send on MPI_COMM_WORLD of the type counted last by a
 * single-threaded program, is a few instructions in line; every other case calls count_any, kept
 * out of line (cold) so that the hot path stays within a cache line or two of code: on the
 * benchmark's 2-rank halo at 1 KiB the recorder's cost was several times its instruction count,
 * the code and data an MPI's progress loop had evicted. */
static inline __attribute__((always_inline)) void count(int rc, int dest, MPI_Count n, MPI_Datatype type,
                                                        MPI_Comm comm)
{
  if (__builtin_expect(rc == MPI_SUCCESS && comm == MPI_COMM_WORLD && type == rec.last_type && n > 0 &&
                           (unsigned)dest < (unsigned)rec.size && rec.on && !rec.paused && !rec.atomic &&
                           !rec.hooks_running, 1)) {
    rec.sent[dest].msgs++; /* last_type is set only when !atomic: one thread counts */
    rec.sent[dest].bytes += (uint64_t)n * (uint64_t)rec.last_size;
    return;
  }
  count_any(rc, dest, n, type, comm);
}

void mpitaskmap_record_note_send(int rc, MPI_Comm comm, int dest, MPI_Count count_, MPI_Datatype type)
{
  count(rc, dest, count_, type, comm);
}

/* -- persistent requests: request handle -> (world destination, bytes) per message of a start -------- */

typedef struct entry {
  uint64_t key;
  int n;           /* messages a start sends: 1 (a send, a partitioned send), or a neighbourhood collective's */
  int* dests;      /* [n] world ranks, -1 for none */
  uint64_t* bytes; /* [n] */
  int coll_which;  /* a persistent collective's RECORD_COLL_*_INIT (-1: none), counted at each start as one */
  int coll_slot, coll_lowest; /* call of its communicator's entry rec.coll[coll_slot] (by the lowest member) */
  uint64_t coll_bytes;        /* with the bytes this rank contributes */
  struct entry* next;
} entry;

#define BUCKETS 1024
static entry* table[BUCKETS];

static uint64_t key_of(MPI_Request r)
{
  uint64_t k = 0;
  memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
  return k;
}

static entry** slot(uint64_t key)
{
  entry** e = &table[(key ^ (key >> 17) ^ (key >> 31)) % BUCKETS];
  while (*e && (*e)->key != key)
    e = &(*e)->next;
  return e;
}

/* Request r sends n messages at each start (dests and bytes: malloc'ed arrays, kept). */
static void remember_all(MPI_Request r, int n, int* dests, uint64_t* bytes)
{
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  entry** e = slot(key_of(r));
  if (!*e) {
    *e = calloc(1, sizeof(entry));
    (*e)->key = key_of(r);
  } else {
    free((*e)->dests), free((*e)->bytes);
  }
  (*e)->n = n;
  (*e)->dests = dests;
  (*e)->bytes = bytes;
  (*e)->coll_which = -1;
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
}

/* Request r is a persistent collective: each start is one call of it (which) on communicator entry
 * rec.coll[coll_slot], counted if lowest (the communicator's lowest member counts the call), and bytes. */
static void remember_collective(MPI_Request r, int which, int coll_slot, int lowest, uint64_t bytes)
{
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  remember_all(r, 0, NULL, NULL); /* the recursive lock: taken again inside */
  entry* e = *slot(key_of(r));
  e->coll_which = which, e->coll_slot = coll_slot, e->coll_lowest = lowest, e->coll_bytes = bytes;
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
}

static void remember(MPI_Request r, int dest, uint64_t bytes)
{
  int* d = malloc(sizeof(int));
  uint64_t* b = malloc(sizeof(uint64_t));
  *d = dest, *b = bytes;
  remember_all(r, 1, d, b);
}

static void forget(uint64_t key)
{
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  entry** e = slot(key);
  if (*e) {
    entry* gone = *e;
    *e = gone->next;
    free(gone->dests), free(gone->bytes);
    free(gone);
  }
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
}

/* One collective call (RECORD_COLL_*) on communicator entry rec.coll[slot]: the call counted by the
 * communicator's lowest member only, the bytes this rank contributes by every member. */
static void add_collective(int slot, int which, int lowest, uint64_t bytes)
{
  coll_totals* c = &rec.coll[slot];
  if (rec.atomic) {
    __atomic_fetch_add(&c->bytes, bytes, __ATOMIC_RELAXED);
    if (lowest)
      __atomic_fetch_add(&c->calls[which], 1, __ATOMIC_RELAXED);
  } else {
    c->bytes += bytes;
    c->calls[which] += lowest;
  }
}

static void started(uint64_t key)
{
  if (rec.paused || !rec.on || in_hook())
    return;
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  entry* e = *slot(key);
  for (int i = 0; e && i < e->n; i++)
    add(e->dests[i], e->bytes[i]);
  if (e && e->coll_which >= 0)
    add_collective(e->coll_slot, e->coll_which, e->coll_lowest, e->coll_bytes);
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
}

/* Persistent sends are remembered even while paused (they are counted, or not, when started). */
void mpitaskmap_record_note_persistent(int rc, MPI_Request req, MPI_Comm comm, int dest, MPI_Count count,
                                       MPI_Datatype type)
{
  if (rc == MPI_SUCCESS && rec.on && dest != MPI_PROC_NULL && !in_hook())
    remember(req, world_rank(comm, dest), size_of(count, type));
}

void mpitaskmap_record_note_start(int rc, MPI_Request req)
{
  if (rc == MPI_SUCCESS)
    started(key_of(req));
}

void mpitaskmap_record_note_request_free(int rc, MPI_Request req)
{
  if (rc == MPI_SUCCESS)
    forget(key_of(req));
}

/* -- the entry points the shim calls ----------------------------------------------------------- */

static void window_open(void)
{
  rec.window_start = PMPI_Wtime() - rec.t0;
}

static void window_close(void)
{
  if (rec.nwindows < MAX_WINDOWS) {
    rec.windows[rec.nwindows][0] = rec.window_start;
    rec.windows[rec.nwindows][1] = PMPI_Wtime() - rec.t0;
    rec.nwindows++;
  } else {
    rec.windows_cut = 1;
  }
}

/* After MPI_Init succeeded, path = MPITASKMAP_RECORD: 1 when recording. */
CORE_API int mpitaskmap_record_start(const char* path)
{
  int provided = MPI_THREAD_SINGLE;
  if (rec.on || !path || !*path)
    return rec.on;
  PMPI_Query_thread(&provided);
  rec.atomic = provided == MPI_THREAD_MULTIPLE;
  PMPI_Comm_size(MPI_COMM_WORLD, &rec.size);
  PMPI_Comm_rank(MPI_COMM_WORLD, &rec.rank);
  rec.last_type = MPI_DATATYPE_NULL;
  rec.sent = calloc((size_t)rec.size, sizeof(tally));
  rec.pulled = calloc((size_t)rec.size, sizeof(tally));
  if (!rec.sent || !rec.pulled)
    return 0;
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_translation, &rec.keyval, NULL) != MPI_SUCCESS ||
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_translation, &rec.nb_keyval, NULL) != MPI_SUCCESS ||
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_translation, &rec.coll_keyval, NULL) != MPI_SUCCESS ||
      PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, drop_win_translation, &rec.win_keyval, NULL) != MPI_SUCCESS)
    return 0;
  rec.coll[COLL_SLOTS].size = rec.coll[COLL_SLOTS].first = -1; /* "other" */
  PMPI_Comm_group(MPI_COMM_WORLD, &rec.world);
  predefined_types();
  snprintf(rec.path, sizeof rec.path, "%s", path);
  rec.coll_slots = COLL_SLOTS, rec.coll_merged = COLL_MERGED;
  const char* comms = getenv("MPITASKMAP_RECORD_COMMS"); /* lowers both bounds (to test them) */
  if (comms && atoi(comms) > 0 && atoi(comms) < COLL_SLOTS)
    rec.coll_slots = rec.coll_merged = atoi(comms);
  rec.t0 = PMPI_Wtime();
  window_open();
  rec.on = 1;
  return 1;
}

CORE_API int mpitaskmap_record_pcontrol(int level)
{
  int rc = PMPI_Pcontrol(level);
  rec.pcontrol_calls++;
  if (level == 0 && !rec.paused) {
    window_close();
    rec.paused = 1;
  } else if (level == 1 && rec.paused) {
    window_open();
    rec.paused = 0;
  }
  return rc;
}

/* The sends' entry points: mpitaskmap_rec_<MPI's name>, with that function's own parameters, so that
 * the shim's MPI_Send ... jumps straight here (a tail call: the shim adds no frame to a send).  Each
 * with int counts, and (MPI 4 and later) with MPI_Count counts calling the _c functions: COUNT_T is the
 * count's type, C the suffix of MPI's functions ("" or _c). */
#define SEND_ENTRY(NAME, C, COUNT_T)                                                                                  \
  CORE_API int mpitaskmap_rec_##NAME##C(const void* buf, COUNT_T n, MPI_Datatype type, int dest, int tag,            \
                                        MPI_Comm comm)                                                                \
  {                                                                                                                   \
    int rc = P##NAME##C(buf, n, type, dest, tag, comm);                                                               \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }
#define ISEND_ENTRY(NAME, C, COUNT_T)                                                                                 \
  CORE_API int mpitaskmap_rec_##NAME##C(const void* buf, COUNT_T n, MPI_Datatype type, int dest, int tag,            \
                                        MPI_Comm comm, MPI_Request* req)                                              \
  {                                                                                                                   \
    int rc = P##NAME##C(buf, n, type, dest, tag, comm, req);                                                          \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }
#define SEND_INIT_ENTRY(NAME, C, COUNT_T)                                                                             \
  CORE_API int mpitaskmap_rec_##NAME##C(const void* buf, COUNT_T n, MPI_Datatype type, int dest, int tag,            \
                                        MPI_Comm comm, MPI_Request* req)                                              \
  {                                                                                                                   \
    int rc = P##NAME##C(buf, n, type, dest, tag, comm, req);                                                          \
    mpitaskmap_record_note_persistent(rc, *req, comm, dest, n, type);                                                 \
    return rc;                                                                                                        \
  }
#define ENTRY_POINTS(C, COUNT_T)                                                                                      \
  SEND_ENTRY(MPI_Send, C, COUNT_T)                                                                                    \
  SEND_ENTRY(MPI_Bsend, C, COUNT_T)                                                                                   \
  SEND_ENTRY(MPI_Ssend, C, COUNT_T)                                                                                   \
  SEND_ENTRY(MPI_Rsend, C, COUNT_T)                                                                                   \
  ISEND_ENTRY(MPI_Isend, C, COUNT_T)                                                                                  \
  ISEND_ENTRY(MPI_Ibsend, C, COUNT_T)                                                                                 \
  ISEND_ENTRY(MPI_Issend, C, COUNT_T)                                                                                 \
  ISEND_ENTRY(MPI_Irsend, C, COUNT_T)                                                                                 \
  SEND_INIT_ENTRY(MPI_Send_init, C, COUNT_T)                                                                          \
  SEND_INIT_ENTRY(MPI_Bsend_init, C, COUNT_T)                                                                         \
  SEND_INIT_ENTRY(MPI_Ssend_init, C, COUNT_T)                                                                         \
  SEND_INIT_ENTRY(MPI_Rsend_init, C, COUNT_T)                                                                         \
                                                                                                                      \
  CORE_API int mpitaskmap_rec_MPI_Sendrecv##C(const void* sbuf, COUNT_T sn, MPI_Datatype stype, int dest, int stag,  \
                                              void* rbuf, COUNT_T rn, MPI_Datatype rtype, int source, int rtag,       \
                                              MPI_Comm comm, MPI_Status* status)                                      \
  {                                                                                                                   \
    int rc = PMPI_Sendrecv##C(sbuf, sn, stype, dest, stag, rbuf, rn, rtype, source, rtag, comm, status);              \
    count(rc, dest, sn, stype, comm);                                                                                 \
    return rc;                                                                                                        \
  }                                                                                                                   \
                                                                                                                      \
  CORE_API int mpitaskmap_rec_MPI_Sendrecv_replace##C(void* buf, COUNT_T n, MPI_Datatype type, int dest, int stag,    \
                                                      int source, int rtag, MPI_Comm comm, MPI_Status* status)        \
  {                                                                                                                   \
    int rc = PMPI_Sendrecv_replace##C(buf, n, type, dest, stag, source, rtag, comm, status);                          \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }

ENTRY_POINTS(, int)

#if MPI_VERSION >= 4
ENTRY_POINTS(_c, MPI_Count)
#endif

#if MPI4_CALLS

/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4), int and MPI_Count counts. */
#define ISENDRECV(C, COUNT_T)                                                                                         \
  CORE_API int mpitaskmap_rec_MPI_Isendrecv##C(const void* sbuf, COUNT_T sn, MPI_Datatype stype, int dest, int stag, \
                                               void* rbuf, COUNT_T rn, MPI_Datatype rtype, int source, int rtag,      \
                                               MPI_Comm comm, MPI_Request* req)                                       \
  {                                                                                                                   \
    int rc = PMPI_Isendrecv##C(sbuf, sn, stype, dest, stag, rbuf, rn, rtype, source, rtag, comm, req);                \
    count(rc, dest, sn, stype, comm);                                                                                 \
    return rc;                                                                                                        \
  }                                                                                                                   \
                                                                                                                      \
  CORE_API int mpitaskmap_rec_MPI_Isendrecv_replace##C(void* buf, COUNT_T n, MPI_Datatype type, int dest, int stag,   \
                                                       int source, int rtag, MPI_Comm comm, MPI_Request* req)         \
  {                                                                                                                   \
    int rc = PMPI_Isendrecv_replace##C(buf, n, type, dest, stag, source, rtag, comm, req);                            \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }
ISENDRECV(, int)
#endif
#if MPI_VERSION >= 4
ISENDRECV(_c, MPI_Count)
#endif

CORE_API int mpitaskmap_record_start_request(MPI_Request* req)
{
  MPI_Request before = *req;
  int rc = PMPI_Start(req);
  mpitaskmap_record_note_start(rc, before);
  return rc;
}

CORE_API int mpitaskmap_record_startall(int n, MPI_Request reqs[])
{
  int rc = PMPI_Startall(n, reqs);
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
    mpitaskmap_record_note_start(rc, reqs[i]);
  return rc;
}

CORE_API int mpitaskmap_record_request_free(MPI_Request* req)
{
  MPI_Request before = *req;
  int rc = PMPI_Request_free(req);
  mpitaskmap_record_note_request_free(rc, before);
  return rc;
}

/* -- partitioned sends (MPI 4) --------------------------------------------------------------------- */

void mpitaskmap_record_note_partitioned(int rc, MPI_Request req, MPI_Comm comm, int dest, int partitions,
                                        MPI_Count count, MPI_Datatype type)
{
  if (rc == MPI_SUCCESS && rec.on && dest != MPI_PROC_NULL && !in_hook() && partitions > 0)
    remember(req, world_rank(comm, dest), (uint64_t)partitions * size_of(count, type));
}

/* -- one-sided: origin -> target in this rank's row, target -> origin in its pulled entries --------- */

void mpitaskmap_record_note_put(int rc, MPI_Win win, int target, MPI_Count count, MPI_Datatype type)
{
  if (!counting(rc) || target == MPI_PROC_NULL)
    return;
  add(win_world_rank(win, target), size_of(count, type));
}

void mpitaskmap_record_note_get(int rc, MPI_Win win, int target, MPI_Count count, MPI_Datatype type)
{
  if (!counting(rc) || target == MPI_PROC_NULL)
    return;
  add_pulled(win_world_rank(win, target), size_of(count, type));
}

void mpitaskmap_record_note_get_accumulate(int rc, MPI_Win win, int target, MPI_Count origin_count,
                                           MPI_Datatype origin_type, MPI_Count result_count, MPI_Datatype result_type,
                                           MPI_Op op)
{
  if (!counting(rc) || target == MPI_PROC_NULL)
    return;
  int t = win_world_rank(win, target);
  if (op != MPI_NO_OP)
    add(t, size_of(origin_count, origin_type));
  add_pulled(t, size_of(result_count, result_type));
}

void mpitaskmap_record_note_fetch_and_op(int rc, MPI_Win win, int target, MPI_Datatype type, MPI_Op op)
{
  mpitaskmap_record_note_get_accumulate(rc, win, target, 1, type, 1, type, op);
}

void mpitaskmap_record_note_compare_and_swap(int rc, MPI_Win win, int target, MPI_Datatype type)
{
  if (!counting(rc) || target == MPI_PROC_NULL)
    return;
  int t = win_world_rank(win, target);
  add(t, size_of(2, type)); /* the new value and the one compared with both travel to the target */
  add_pulled(t, size_of(1, type));
}

/* -- neighbourhood collectives ----------------------------------------------------------------------- */

/* A communicator's out-neighbours in MPI's order, world ranks (-1: MPI_PROC_NULL or outside the world). */
static void* make_neighbours(MPI_Comm comm)
{
  int status = MPI_UNDEFINED, n = 0, me = 0;
  int* ranks = NULL;
  PMPI_Topo_test(comm, &status);
  PMPI_Comm_rank(comm, &me);
  if (status == MPI_CART) {
    int nd = 0;
    PMPI_Cartdim_get(comm, &nd);
    n = 2 * nd;
    ranks = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int d = 0; d < nd; d++) /* MPI 3.1 sec. 7.6: for each dimension, the source then the destination of a shift by 1 */
      PMPI_Cart_shift(comm, d, 1, &ranks[2 * d], &ranks[2 * d + 1]);
  } else if (status == MPI_GRAPH) {
    PMPI_Graph_neighbors_count(comm, me, &n);
    ranks = malloc(sizeof(int) * (size_t)(n ? n : 1));
    PMPI_Graph_neighbors(comm, me, n, ranks);
  } else if (status == MPI_DIST_GRAPH) {
    int in = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
    int* sources = malloc(sizeof(int) * (size_t)(in ? in : 1));
    int* sw = malloc(sizeof(int) * (size_t)(in ? in : 1));
    int* dw = malloc(sizeof(int) * (size_t)(n ? n : 1));
    ranks = malloc(sizeof(int) * (size_t)(n ? n : 1));
    PMPI_Dist_graph_neighbors(comm, in, sources, sw, n, ranks, dw);
    free(sources), free(sw), free(dw);
  }
  translation* t = malloc(sizeof(translation) + sizeof(int) * (size_t)(n ? n : 1));
  t->n = n;
  for (int i = 0; i < n; i++)
    t->world[i] = world_rank(comm, ranks[i]);
  free(ranks);
  return t;
}

/* Each out-neighbour i gets the bytes of block i: counted now, or (init) at each start of the request. */
static void neighbours_get(int rc, MPI_Comm comm, const MPI_Request* init, MPI_Count count, MPI_Datatype type,
                           const int* counts, const MPI_Count* counts_c, const MPI_Datatype* types)
{
  if (init ? !(rc == MPI_SUCCESS && rec.on && !in_hook()) : !counting(rc))
    return;
  const translation* t = comm_cached(comm, rec.nb_keyval, make_neighbours);
  int* dests = init ? malloc(sizeof(int) * (size_t)(t->n ? t->n : 1)) : NULL;
  uint64_t* bytes = init ? malloc(sizeof(uint64_t) * (size_t)(t->n ? t->n : 1)) : NULL;
  int k = 0;
  for (int i = 0; i < t->n; i++) {
    MPI_Count c = counts ? counts[i] : counts_c ? counts_c[i] : count;
    uint64_t b = size_of(c, types ? types[i] : type);
    if (t->world[i] < 0)
      continue; /* MPI_PROC_NULL: its block goes nowhere */
    if (init)
      dests[k] = t->world[i], bytes[k] = b, k++;
    else
      add(t->world[i], b);
  }
  if (init)
    remember_all(*init, k, dests, bytes);
}

void mpitaskmap_record_note_neighbor_allgather(int rc, MPI_Comm comm, MPI_Count count, MPI_Datatype type,
                                               const MPI_Request* init)
{
  neighbours_get(rc, comm, init, count, type, NULL, NULL, NULL);
}

void mpitaskmap_record_note_neighbor_alltoall(int rc, MPI_Comm comm, MPI_Count count, MPI_Datatype type,
                                              const MPI_Request* init)
{
  neighbours_get(rc, comm, init, count, type, NULL, NULL, NULL); /* a block of count x type to each */
}

void mpitaskmap_record_note_neighbor_alltoallv(int rc, MPI_Comm comm, const int* counts, const MPI_Count* counts_c,
                                               MPI_Datatype type, const MPI_Datatype* types, const MPI_Request* init)
{
  neighbours_get(rc, comm, init, 0, type, counts, counts_c, types);
}

/* -- collectives: totals per communicator ------------------------------------------------------------ */

static const char* const COLL_NAMES[] = {
#define RECORD_COLL_NAME(ID, NAME) NAME,
    RECORD_COLLECTIVES(RECORD_COLL_NAME)
#undef RECORD_COLL_NAME
};

/* A communicator's entry in rec.coll: its slot, and whether this rank is its lowest member (counts its calls). */
typedef struct {
  int slot, lowest;
} coll_ref;

static int int_order(const void* a, const void* b)
{
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

/* The members' world ranks, sorted (both groups of an intercommunicator: one set of processes). */
static void* make_coll_ref(MPI_Comm comm)
{
  int inter = 0, n = 0, m = 0;
  MPI_Group local, remote;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_group(comm, &local);
  PMPI_Group_size(local, &n);
  translation* a = translate_group(local);
  translation* b = NULL;
  if (inter) {
    PMPI_Comm_remote_group(comm, &remote);
    PMPI_Group_size(remote, &m);
    b = translate_group(remote);
  }
  int* all = malloc(sizeof(int) * (size_t)(n + m + 1));
  memcpy(all, a->world, sizeof(int) * (size_t)n);
  if (b)
    memcpy(all + n, b->world, sizeof(int) * (size_t)m);
  free(a), free(b);
  qsort(all, (size_t)(n + m), sizeof(int), int_order);
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the sorted member list */
  for (int i = 0; i < n + m; i++)
    for (int k = 0; k < 4; k++)
      h = (h ^ (((unsigned)all[i] >> (8 * k)) & 0xff)) * 1099511628211ull;
  coll_ref* ref = malloc(sizeof(coll_ref));
  ref->lowest = n + m > 0 && all[0] == rec.rank;
  int first = n + m > 0 ? all[0] : -1;
  free(all);
  /* called under the lock when threads may race (comm_cached) */
  ref->slot = COLL_SLOTS;
  for (int i = 0; i < rec.ncoll; i++)
    if (rec.coll[i].hash == h && rec.coll[i].size == n + m && rec.coll[i].first == first)
      ref->slot = i;
  if (ref->slot == COLL_SLOTS && rec.ncoll < rec.coll_slots) {
    ref->slot = rec.ncoll;
    rec.coll[rec.ncoll].hash = h, rec.coll[rec.ncoll].size = n + m, rec.coll[rec.ncoll].first = first;
    rec.ncoll++;
  }
  return ref;
}

static MPI_Count at(const int* a, const MPI_Count* c, int i)
{
  return a ? a[i] : c ? c[i] : 0;
}

static uint64_t sum_of(const int* a, const MPI_Count* c, int n, MPI_Datatype type, const MPI_Datatype* types)
{
  uint64_t b = 0;
  for (int i = 0; i < n; i++)
    b += size_of(at(a, c, i), types ? types[i] : type);
  return b;
}

/* mpitaskmap_record_note_collective, and (init: the request a persistent collective's MPI_*_init made)
 * the same figures remembered for each start of the request (remembered even while paused, like a
 * persistent send's: counted, or not, when started). */
static void collective(const MPI_Request* init, int rc, MPI_Comm comm, int which, int root, int in_place,
                       MPI_Count scount, MPI_Datatype stype, const int* scounts, const MPI_Count* scounts_c,
                       const MPI_Datatype* stypes, MPI_Count rcount, MPI_Datatype rtype, const int* rcounts,
                       const MPI_Count* rcounts_c, const MPI_Datatype* rtypes)
{
  if ((init ? !(rc == MPI_SUCCESS && rec.on && !in_hook()) : !counting(rc)) || which < 0 || which >= RECORD_NCOLL)
    return;
  int inter = 0, n = 0, me = 0;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_rank(comm, &me);
  if (inter)
    PMPI_Comm_remote_size(comm, &n);
  else
    PMPI_Comm_size(comm, &n);
  int is_root = inter ? root == MPI_ROOT : root == me;
  int root_group = inter && (root == MPI_ROOT || root == MPI_PROC_NULL); /* an intercommunicator's root side */
  int base = mpitaskmap_record_coll_base(which);
  uint64_t b = 0;
  switch (base) {
  case RECORD_COLL_BARRIER:
    break;
  case RECORD_COLL_BCAST:
    b = is_root ? size_of(scount, stype) : 0;
    break;
  case RECORD_COLL_REDUCE:
    b = root_group ? 0 : size_of(scount, stype);
    break;
  case RECORD_COLL_ALLREDUCE:
  case RECORD_COLL_SCAN:
  case RECORD_COLL_EXSCAN:
    b = size_of(scount, stype);
    break;
  case RECORD_COLL_REDUCE_SCATTER: {
    int local = 0;
    PMPI_Comm_size(comm, &local); /* recvcounts: one per rank of the (local) group */
    b = sum_of(rcounts, rcounts_c, local, stype, NULL);
    break;
  }
  case RECORD_COLL_REDUCE_SCATTER_BLOCK:
    b = (uint64_t)n * size_of(rcount, stype);
    break;
  case RECORD_COLL_GATHER:
    b = root_group ? 0 : in_place && is_root ? size_of(rcount, rtype) : size_of(scount, stype);
    break;
  case RECORD_COLL_GATHERV:
    b = root_group ? 0 : in_place && is_root ? size_of(at(rcounts, rcounts_c, me), rtype) : size_of(scount, stype);
    break;
  case RECORD_COLL_SCATTER:
    b = is_root ? (uint64_t)n * size_of(scount, stype) : 0;
    break;
  case RECORD_COLL_SCATTERV:
    b = is_root ? sum_of(scounts, scounts_c, n, stype, NULL) : 0;
    break;
  case RECORD_COLL_ALLGATHER:
    b = in_place ? size_of(rcount, rtype) : size_of(scount, stype);
    break;
  case RECORD_COLL_ALLGATHERV:
    b = in_place ? size_of(at(rcounts, rcounts_c, me), rtype) : size_of(scount, stype);
    break;
  case RECORD_COLL_ALLTOALL:
    b = (uint64_t)n * (in_place ? size_of(rcount, rtype) : size_of(scount, stype));
    break;
  case RECORD_COLL_ALLTOALLV:
  case RECORD_COLL_ALLTOALLW:
    b = in_place ? sum_of(rcounts, rcounts_c, n, rtype, rtypes) : sum_of(scounts, scounts_c, n, stype, stypes);
    break;
  }
  const coll_ref* ref = comm_cached(comm, rec.coll_keyval, make_coll_ref);
  if (init)
    remember_collective(*init, which, ref->slot, ref->lowest, b);
  else
    add_collective(ref->slot, which, ref->lowest, b);
}

void mpitaskmap_record_note_collective_init(int rc, MPI_Request req, MPI_Comm comm, int which, int root, int in_place,
                                            MPI_Count scount, MPI_Datatype stype, const int* scounts,
                                            const MPI_Count* scounts_c, const MPI_Datatype* stypes, MPI_Count rcount,
                                            MPI_Datatype rtype, const int* rcounts, const MPI_Count* rcounts_c,
                                            const MPI_Datatype* rtypes)
{
  collective(&req, rc, comm, which, root, in_place, scount, stype, scounts, scounts_c, stypes, rcount, rtype, rcounts,
             rcounts_c, rtypes);
}

void mpitaskmap_record_note_collective(int rc, MPI_Comm comm, int which, int root, int in_place, MPI_Count scount,
                                       MPI_Datatype stype, const int* scounts, const MPI_Count* scounts_c,
                                       const MPI_Datatype* stypes, MPI_Count rcount, MPI_Datatype rtype,
                                       const int* rcounts, const MPI_Count* rcounts_c, const MPI_Datatype* rtypes)
{
  collective(NULL, rc, comm, which, root, in_place, scount, stype, scounts, scounts_c, stypes, rcount, rtype, rcounts,
             rcounts_c, rtypes);
}

/* -- the entry points of the other families: MPI's own call, then its note (the shim's names with
 * mpitaskmap_rec_ before them: the shim looks each up when first called) -------------------------------- */

#define REC(NAME, PARAMS, ARGS, NOTE)                                                                                 \
  CORE_API int mpitaskmap_rec_##NAME PARAMS                                                                           \
  {                                                                                                                   \
    int rc = P##NAME ARGS;                                                                                            \
    NOTE;                                                                                                             \
    return rc;                                                                                                        \
  }

REC(MPI_Put, (const void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#if MPI_VERSION >= 4
REC(MPI_Put_c, (const void* obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#endif
REC(MPI_Get, (void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win), mpitaskmap_record_note_get(rc, win, target, ocount, otype))
#if MPI_VERSION >= 4
REC(MPI_Get_c, (void* obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win), (obuf, ocount, otype, target, tdisp, tcount, ttype, win), mpitaskmap_record_note_get(rc, win, target, ocount, otype))
#endif
REC(MPI_Accumulate, (const void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#if MPI_VERSION >= 4
REC(MPI_Accumulate_c, (const void* obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#endif
REC(MPI_Get_accumulate, (const void* obuf, int ocount, MPI_Datatype otype, void* resbuf, int rescount, MPI_Datatype restype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win), mpitaskmap_record_note_get_accumulate(rc, win, target, ocount, otype, rescount, restype, op))
#if MPI_VERSION >= 4
REC(MPI_Get_accumulate_c, (const void* obuf, MPI_Count ocount, MPI_Datatype otype, void* resbuf, MPI_Count rescount, MPI_Datatype restype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win), mpitaskmap_record_note_get_accumulate(rc, win, target, ocount, otype, rescount, restype, op))
#endif
REC(MPI_Fetch_and_op, (const void* obuf, void* resbuf, MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Op op, MPI_Win win), (obuf, resbuf, type, target, tdisp, op, win), mpitaskmap_record_note_fetch_and_op(rc, win, target, type, op))
REC(MPI_Compare_and_swap, (const void* obuf, const void* cbuf, void* resbuf, MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Win win), (obuf, cbuf, resbuf, type, target, tdisp, win), mpitaskmap_record_note_compare_and_swap(rc, win, target, type))
REC(MPI_Rput, (const void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#if MPI_VERSION >= 4
REC(MPI_Rput_c, (const void* obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#endif
REC(MPI_Rget, (void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req), mpitaskmap_record_note_get(rc, win, target, ocount, otype))
#if MPI_VERSION >= 4
REC(MPI_Rget_c, (void* obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, win, req), mpitaskmap_record_note_get(rc, win, target, ocount, otype))
#endif
REC(MPI_Raccumulate, (const void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win, req), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#if MPI_VERSION >= 4
REC(MPI_Raccumulate_c, (const void* obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win, req), mpitaskmap_record_note_put(rc, win, target, ocount, otype))
#endif
REC(MPI_Rget_accumulate, (const void* obuf, int ocount, MPI_Datatype otype, void* resbuf, int rescount, MPI_Datatype restype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win, req), mpitaskmap_record_note_get_accumulate(rc, win, target, ocount, otype, rescount, restype, op))
#if MPI_VERSION >= 4
REC(MPI_Rget_accumulate_c, (const void* obuf, MPI_Count ocount, MPI_Datatype otype, void* resbuf, MPI_Count rescount, MPI_Datatype restype, int target, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* req), (obuf, ocount, otype, resbuf, rescount, restype, target, tdisp, tcount, ttype, op, win, req), mpitaskmap_record_note_get_accumulate(rc, win, target, ocount, otype, rescount, restype, op))
#endif
#if MPI4_CALLS
REC(MPI_Psend_init, (const void* buf, int partitions, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request* req), (buf, partitions, count, type, dest, tag, comm, info, req), mpitaskmap_record_note_partitioned(rc, *req, comm, dest, partitions, count, type))
#endif
REC(MPI_Neighbor_allgather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#if MPI_VERSION >= 4
REC(MPI_Neighbor_allgather_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#endif
REC(MPI_Neighbor_allgatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#if MPI_VERSION >= 4
REC(MPI_Neighbor_allgatherv_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#endif
REC(MPI_Neighbor_alltoall, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_neighbor_alltoall(rc, comm, scount, stype, NULL))
#if MPI_VERSION >= 4
REC(MPI_Neighbor_alltoall_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_neighbor_alltoall(rc, comm, scount, stype, NULL))
#endif
REC(MPI_Neighbor_alltoallv, (const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, scounts, NULL, stype, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Neighbor_alltoallv_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, NULL, scounts, stype, NULL, NULL))
#endif
REC(MPI_Neighbor_alltoallw, (const void* sbuf, const int scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, scounts, NULL, MPI_DATATYPE_NULL, stypes, NULL))
#if MPI_VERSION >= 4
REC(MPI_Neighbor_alltoallw_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, NULL, scounts, MPI_DATATYPE_NULL, stypes, NULL))
#endif
REC(MPI_Ineighbor_allgather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ineighbor_allgather_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#endif
REC(MPI_Ineighbor_allgatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ineighbor_allgatherv_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, NULL))
#endif
REC(MPI_Ineighbor_alltoall, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_neighbor_alltoall(rc, comm, scount, stype, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ineighbor_alltoall_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_neighbor_alltoall(rc, comm, scount, stype, NULL))
#endif
REC(MPI_Ineighbor_alltoallv, (const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, scounts, NULL, stype, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ineighbor_alltoallv_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, NULL, scounts, stype, NULL, NULL))
#endif
REC(MPI_Ineighbor_alltoallw, (const void* sbuf, const int scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, scounts, NULL, MPI_DATATYPE_NULL, stypes, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ineighbor_alltoallw_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, NULL, scounts, MPI_DATATYPE_NULL, stypes, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Neighbor_allgather_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, req))
#endif
#if MPI_VERSION >= 4
REC(MPI_Neighbor_allgather_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, req))
#endif
#if MPI4_CALLS
REC(MPI_Neighbor_allgatherv_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, req))
#endif
#if MPI_VERSION >= 4
REC(MPI_Neighbor_allgatherv_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req), mpitaskmap_record_note_neighbor_allgather(rc, comm, scount, stype, req))
#endif
#if MPI4_CALLS
REC(MPI_Neighbor_alltoall_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), mpitaskmap_record_note_neighbor_alltoall(rc, comm, scount, stype, req))
#endif
#if MPI_VERSION >= 4
REC(MPI_Neighbor_alltoall_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), mpitaskmap_record_note_neighbor_alltoall(rc, comm, scount, stype, req))
#endif
#if MPI4_CALLS
REC(MPI_Neighbor_alltoallv_init, (const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, scounts, NULL, stype, NULL, req))
#endif
#if MPI_VERSION >= 4
REC(MPI_Neighbor_alltoallv_init_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, NULL, scounts, stype, NULL, req))
#endif
#if MPI4_CALLS
REC(MPI_Neighbor_alltoallw_init, (const void* sbuf, const int scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, scounts, NULL, MPI_DATATYPE_NULL, stypes, req))
#endif
#if MPI_VERSION >= 4
REC(MPI_Neighbor_alltoallw_init_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req), mpitaskmap_record_note_neighbor_alltoallv(rc, comm, NULL, scounts, MPI_DATATYPE_NULL, stypes, req))
#endif
REC(MPI_Barrier, (MPI_Comm comm), (comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_BARRIER, 0, 0, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
REC(MPI_Ibarrier, (MPI_Comm comm, MPI_Request* req), (comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IBARRIER, 0, 0, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
REC(MPI_Bcast, (void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm), (buf, count, type, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_BCAST, root, 0, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Bcast_c, (void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm), (buf, count, type, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_BCAST, root, 0, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Ibcast, (void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req), (buf, count, type, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IBCAST, root, 0, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ibcast_c, (void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req), (buf, count, type, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IBCAST, root, 0, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Reduce, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm), (sbuf, rbuf, count, type, op, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_REDUCE, root, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Reduce_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm), (sbuf, rbuf, count, type, op, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_REDUCE, root, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Ireduce, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IREDUCE, root, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ireduce_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IREDUCE, root, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Allreduce, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLREDUCE, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Allreduce_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLREDUCE, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Iallreduce, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLREDUCE, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Iallreduce_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLREDUCE, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Scan, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_SCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Scan_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_SCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Iscan, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ISCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Iscan_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ISCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Exscan, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_EXSCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Exscan_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, count, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_EXSCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Iexscan, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IEXSCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Iexscan_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IEXSCAN, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Gather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_GATHER, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Gather_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_GATHER, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Igather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IGATHER, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Igather_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IGATHER, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Gatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_GATHERV, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Gatherv_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_GATHERV, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
REC(MPI_Igatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IGATHERV, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Igatherv_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IGATHERV, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
REC(MPI_Scatter, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_SCATTER, root, rbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Scatter_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_SCATTER, root, rbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Iscatter, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ISCATTER, root, rbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Iscatter_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ISCATTER, root, rbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Scatterv, (const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_SCATTERV, root, rbuf == MPI_IN_PLACE, 0, stype, scounts, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Scatterv_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint displs[], MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_SCATTERV, root, rbuf == MPI_IN_PLACE, 0, stype, NULL, scounts, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Iscatterv, (const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ISCATTERV, root, rbuf == MPI_IN_PLACE, 0, stype, scounts, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Iscatterv_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint displs[], MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ISCATTERV, root, rbuf == MPI_IN_PLACE, 0, stype, NULL, scounts, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Allgather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLGATHER, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Allgather_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLGATHER, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Iallgather, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLGATHER, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Iallgather_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLGATHER, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Allgatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLGATHERV, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Allgatherv_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLGATHERV, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
REC(MPI_Iallgatherv, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLGATHERV, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Iallgatherv_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLGATHERV, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
REC(MPI_Alltoall, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLTOALL, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Alltoall_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm), (sbuf, scount, stype, rbuf, rcount, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLTOALL, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Ialltoall, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLTOALL, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ialltoall_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLTOALL, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
REC(MPI_Alltoallv, (const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLTOALLV, 0, sbuf == MPI_IN_PLACE, 0, stype, scounts, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Alltoallv_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLTOALLV, 0, sbuf == MPI_IN_PLACE, 0, stype, NULL, scounts, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
REC(MPI_Ialltoallv, (const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLTOALLV, 0, sbuf == MPI_IN_PLACE, 0, stype, scounts, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ialltoallv_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLTOALLV, 0, sbuf == MPI_IN_PLACE, 0, stype, NULL, scounts, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
REC(MPI_Alltoallw, (const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLTOALLW, 0, sbuf == MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, scounts, NULL, stypes, 0, MPI_DATATYPE_NULL, rcounts, NULL, rtypes))
#if MPI_VERSION >= 4
REC(MPI_Alltoallw_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_ALLTOALLW, 0, sbuf == MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, NULL, scounts, stypes, 0, MPI_DATATYPE_NULL, NULL, rcounts, rtypes))
#endif
REC(MPI_Ialltoallw, (const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLTOALLW, 0, sbuf == MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, scounts, NULL, stypes, 0, MPI_DATATYPE_NULL, rcounts, NULL, rtypes))
#if MPI_VERSION >= 4
REC(MPI_Ialltoallw_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IALLTOALLW, 0, sbuf == MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, NULL, scounts, stypes, 0, MPI_DATATYPE_NULL, NULL, rcounts, rtypes))
#endif
REC(MPI_Reduce_scatter, (const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcounts, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_REDUCE_SCATTER, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Reduce_scatter_c, (const void* sbuf, void* rbuf, const MPI_Count rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcounts, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_REDUCE_SCATTER, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, rcounts, NULL))
#endif
REC(MPI_Ireduce_scatter, (const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, rcounts, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IREDUCE_SCATTER, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, rcounts, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ireduce_scatter_c, (const void* sbuf, void* rbuf, const MPI_Count rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, rcounts, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IREDUCE_SCATTER, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, rcounts, NULL))
#endif
REC(MPI_Reduce_scatter_block, (const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcount, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_REDUCE_SCATTER_BLOCK, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, rcount, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Reduce_scatter_block_c, (const void* sbuf, void* rbuf, MPI_Count rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcount, type, op, comm), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_REDUCE_SCATTER_BLOCK, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, rcount, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
REC(MPI_Ireduce_scatter_block, (const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, rcount, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IREDUCE_SCATTER_BLOCK, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, rcount, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#if MPI_VERSION >= 4
REC(MPI_Ireduce_scatter_block_c, (const void* sbuf, void* rbuf, MPI_Count rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req), (sbuf, rbuf, rcount, type, op, comm, req), mpitaskmap_record_note_collective(rc, comm, RECORD_COLL_IREDUCE_SCATTER_BLOCK, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, rcount, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif

/* The persistent collectives (MPI 4): their calls and bytes counted at each start of the request. */
#if MPI4_CALLS
REC(MPI_Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request* req), (comm, info, req), collective(req, rc, comm, RECORD_COLL_BARRIER_INIT, 0, 0, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Bcast_init, (void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (buf, count, type, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_BCAST_INIT, root, 0, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Bcast_init_c, (void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (buf, count, type, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_BCAST_INIT, root, 0, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Reduce_init, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_REDUCE_INIT, root, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Reduce_init_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_REDUCE_INIT, root, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Allreduce_init, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLREDUCE_INIT, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Allreduce_init_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLREDUCE_INIT, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Scan_init, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_SCAN_INIT, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Scan_init_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_SCAN_INIT, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Exscan_init, (const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_EXSCAN_INIT, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Exscan_init_c, (const void* sbuf, void* rbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, count, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_EXSCAN_INIT, 0, sbuf == MPI_IN_PLACE, count, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Gather_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_GATHER_INIT, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Gather_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_GATHER_INIT, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Gatherv_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_GATHERV_INIT, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Gatherv_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_GATHERV_INIT, root, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Scatter_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_SCATTER_INIT, root, rbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Scatter_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_SCATTER_INIT, root, rbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Scatterv_init, (const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_SCATTERV_INIT, root, rbuf == MPI_IN_PLACE, 0, stype, scounts, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Scatterv_init_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint displs[], MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, info, req), collective(req, rc, comm, RECORD_COLL_SCATTERV_INIT, root, rbuf == MPI_IN_PLACE, 0, stype, NULL, scounts, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Allgather_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLGATHER_INIT, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Allgather_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLGATHER_INIT, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Allgatherv_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLGATHERV_INIT, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Allgatherv_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLGATHERV_INIT, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Alltoall_init, (const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLTOALL_INIT, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Alltoall_init_c, (const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scount, stype, rbuf, rcount, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLTOALL_INIT, 0, sbuf == MPI_IN_PLACE, scount, stype, NULL, NULL, NULL, rcount, rtype, NULL, NULL, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Alltoallv_init, (const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLTOALLV_INIT, 0, sbuf == MPI_IN_PLACE, 0, stype, scounts, NULL, NULL, 0, rtype, rcounts, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Alltoallv_init_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLTOALLV_INIT, 0, sbuf == MPI_IN_PLACE, 0, stype, NULL, scounts, NULL, 0, rtype, NULL, rcounts, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Alltoallw_init, (const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLTOALLW_INIT, 0, sbuf == MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, scounts, NULL, stypes, 0, MPI_DATATYPE_NULL, rcounts, NULL, rtypes))
#endif
#if MPI_VERSION >= 4
REC(MPI_Alltoallw_init_c, (const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info, req), collective(req, rc, comm, RECORD_COLL_ALLTOALLW_INIT, 0, sbuf == MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, NULL, scounts, stypes, 0, MPI_DATATYPE_NULL, NULL, rcounts, rtypes))
#endif
#if MPI4_CALLS
REC(MPI_Reduce_scatter_init, (const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, rcounts, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_REDUCE_SCATTER_INIT, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, rcounts, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Reduce_scatter_init_c, (const void* sbuf, void* rbuf, const MPI_Count rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, rcounts, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_REDUCE_SCATTER_INIT, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, 0, MPI_DATATYPE_NULL, NULL, rcounts, NULL))
#endif
#if MPI4_CALLS
REC(MPI_Reduce_scatter_block_init, (const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, rcount, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_REDUCE_SCATTER_BLOCK_INIT, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, rcount, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif
#if MPI_VERSION >= 4
REC(MPI_Reduce_scatter_block_init_c, (const void* sbuf, void* rbuf, MPI_Count rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req), (sbuf, rbuf, rcount, type, op, comm, info, req), collective(req, rc, comm, RECORD_COLL_REDUCE_SCATTER_BLOCK_INIT, 0, sbuf == MPI_IN_PLACE, 0, type, NULL, NULL, NULL, rcount, MPI_DATATYPE_NULL, NULL, NULL, NULL))
#endif


/* -- the merge at MPI_Finalize ------------------------------------------------------------------- */

static void json_string(FILE* f, const char* s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static const char* base_name(const char* path)
{
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The first line of MPI_Get_library_version, runs of blanks as one. */
static void library_version(char* out, size_t len)
{
  char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
  int n = 0;
  PMPI_Get_library_version(buf, &n);
  buf[MPI_MAX_LIBRARY_VERSION_STRING] = '\0';
  char* end = strpbrk(buf, "\r\n");
  if (end)
    *end = '\0';
  size_t w = 0;
  for (char* r = buf; *r && w + 1 < len; r++) {
    char c = *r == '\t' ? ' ' : *r;
    if (c != ' ' || (w > 0 && out[w - 1] != ' '))
      out[w++] = c;
  }
  while (w > 0 && out[w - 1] == ' ')
    w--;
  out[w] = '\0';
}

typedef struct {
  FILE *bytes, *msgs;
  int failed; /* errno of the first failed write */
} outputs;

static void write_entries(outputs* o, int row, const uint64_t* triples, int n)
{
  for (int i = 0; i < n && !o->failed; i++) {
    const uint64_t* t = triples + 3 * (size_t)i;
    if (fprintf(o->bytes, "%d %llu %llu\n", row + 1, (unsigned long long)t[0] + 1, (unsigned long long)t[2]) < 0 ||
        fprintf(o->msgs, "%d %llu %llu\n", row + 1, (unsigned long long)t[0] + 1, (unsigned long long)t[1]) < 0)
      o->failed = errno ? errno : EIO;
  }
}

static const char RECORDED[] = "point-to-point: MPI_Send, MPI_Bsend, MPI_Ssend, MPI_Rsend, MPI_Isend, MPI_Ibsend, "
                               "MPI_Issend, MPI_Irsend, MPI_Sendrecv, MPI_Sendrecv_replace, "
#if MPI4_CALLS
                               "MPI_Isendrecv, MPI_Isendrecv_replace, "
#endif
                               "MPI_Start(all) of MPI_*send_init"
#if MPI4_CALLS
                               " and of MPI_Psend_init (the whole buffer a start)"
#endif
                               "; one-sided as data flow: MPI_Put, MPI_Accumulate, MPI_Rput, MPI_Raccumulate origin to "
                               "target, MPI_Get, MPI_Rget target to origin, MPI_Get_accumulate, MPI_Rget_accumulate, "
                               "MPI_Fetch_and_op, MPI_Compare_and_swap both ways; neighbourhood collectives "
                               "MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v, w), their I- forms"
#if MPI4_CALLS
                               " and persistent (_init) forms at each start"
#endif
#if MPI_VERSION >= 4
                               "; and the large-count (_c) forms of all these"
#endif
                               "; collectives as totals per communicator in the JSON sidecar"
#if MPI4_CALLS
                               " (persistent MPI_*_init ones at each start)"
#endif
    ;

static void write_headers(outputs* o, uint64_t nnz)
{
  const char* name = base_name(rec.path);
  fprintf(o->bytes,
          "%%%%MatrixMarket matrix coordinate real general\n"
          "%% mpitaskmap traffic recording: bytes sent by the row's rank to the column's rank, MPI_COMM_WORLD ranks "
          "numbered from 1\n%% %s\n%% message counts: %s.counts.mtx; job: %s.json\n%d %d %llu\n",
          RECORDED, name, name, rec.size, rec.size, (unsigned long long)nnz);
  fprintf(o->msgs,
          "%%%%MatrixMarket matrix coordinate integer general\n"
          "%% mpitaskmap traffic recording: messages sent by the row's rank to the column's rank, MPI_COMM_WORLD "
          "ranks numbered from 1\n%% %s\n%% bytes: %s; job: %s.json\n%d %d %llu\n",
          RECORDED, name, name, rec.size, rec.size, (unsigned long long)nnz);
}

/* This rank's nonzeros as (column, messages, bytes) triples; their number in *n. */
static uint64_t* own_triples(int* n)
{
  int k = 0;
  for (int j = 0; j < rec.size; j++)
    k += rec.sent[j].msgs != 0;
  uint64_t* t = malloc(sizeof(uint64_t) * 3 * (size_t)(k ? k : 1));
  k = 0;
  for (int j = 0; j < rec.size; j++)
    if (rec.sent[j].msgs) {
      t[3 * k] = (uint64_t)j, t[3 * k + 1] = rec.sent[j].msgs, t[3 * k + 2] = rec.sent[j].bytes;
      k++;
    }
  *n = k;
  return t;
}

static int open_all(outputs* o, char* why, size_t len)
{
  char name[sizeof rec.path + 16];
  snprintf(name, sizeof name, "%s.counts.mtx", rec.path);
  o->bytes = fopen(rec.path, "w");
  if (!o->bytes) {
    snprintf(why, len, "%s: %s", rec.path, strerror(errno));
    return 0;
  }
  o->msgs = fopen(name, "w");
  if (!o->msgs) {
    snprintf(why, len, "%s: %s", name, strerror(errno));
    fclose(o->bytes);
    o->bytes = NULL;
    remove(rec.path); /* made here: no half recording is left */
    return 0;
  }
  return 1;
}

/* -- collectives in the merge ------------------------------------------------------------------------ */

#define COLL_WIDTH (4 + RECORD_NCOLL) /* hash, size, first (+1; 0: "other"), bytes, calls */

/* Rank 0's merged totals: an open-addressed table of at most COLL_MERGED communicators, then "other". */
typedef struct {
  coll_totals* table; /* [2 * COLL_MERGED], size 0: free */
  int used;
  coll_totals other;
} merged_colls;

static void own_colls(uint64_t* out, int* n)
{
  int k = 0;
  for (int i = 0; i <= COLL_SLOTS; i++) {
    const coll_totals* c = &rec.coll[i];
    int any = c->bytes != 0;
    for (int j = 0; j < RECORD_NCOLL; j++)
      any |= c->calls[j] != 0;
    if (i == COLL_SLOTS ? !any : i >= rec.ncoll)
      continue;
    uint64_t* e = out + (size_t)COLL_WIDTH * (size_t)k++;
    e[0] = c->hash, e[1] = (uint64_t)(int64_t)c->size, e[2] = i == COLL_SLOTS ? 0 : (uint64_t)c->first + 1;
    e[3] = c->bytes;
    memcpy(e + 4, c->calls, sizeof c->calls);
  }
  *n = k;
}

static void add_totals(coll_totals* into, const uint64_t* e)
{
  into->bytes += e[3];
  for (int j = 0; j < RECORD_NCOLL; j++)
    into->calls[j] += e[4 + j];
}

static void merge_colls(merged_colls* m, const uint64_t* entries, int n)
{
  const size_t cap = 2 * COLL_MERGED;
  if (!m->table)
    m->table = calloc(cap, sizeof(coll_totals));
  for (int i = 0; i < n; i++) {
    const uint64_t* e = entries + (size_t)COLL_WIDTH * (size_t)i;
    if (e[2] == 0 || !m->table) { /* a rank's "other" */
      add_totals(&m->other, e);
      continue;
    }
    int size = (int)(int64_t)e[1], first = (int)e[2] - 1;
    size_t h = (size_t)(e[0] ^ ((uint64_t)first << 20) ^ (uint64_t)size) % cap;
    while (m->table[h].size && !(m->table[h].hash == e[0] && m->table[h].size == size && m->table[h].first == first))
      h = (h + 1) % cap;
    if (!m->table[h].size) {
      if (m->used >= rec.coll_merged) {
        add_totals(&m->other, e);
        continue;
      }
      m->table[h].hash = e[0], m->table[h].size = size, m->table[h].first = first;
      m->used++;
    }
    add_totals(&m->table[h], e);
  }
}

static int coll_order(const void* a, const void* b)
{
  const coll_totals *x = a, *y = b;
  if (x->first != y->first)
    return (x->first > y->first) - (x->first < y->first);
  if (x->size != y->size)
    return (x->size > y->size) - (x->size < y->size);
  return (x->hash > y->hash) - (x->hash < y->hash);
}

static void write_calls(FILE* f, const uint64_t* calls)
{
  fprintf(f, "{");
  for (int j = 0, first = 1; j < RECORD_NCOLL; j++)
    if (calls[j]) {
      fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", COLL_NAMES[j], (unsigned long long)calls[j]);
      first = 0;
    }
  fprintf(f, "}");
}

static void write_colls_json(FILE* f, merged_colls* m)
{
  coll_totals total = {0, 0, 0, 0, {0}};
  int n = 0;
  coll_totals* list = malloc(sizeof(coll_totals) * (size_t)(m->used + 1));
  for (size_t i = 0; m->table && i < 2 * COLL_MERGED; i++)
    if (m->table[i].size)
      list[n++] = m->table[i];
  qsort(list, (size_t)n, sizeof(coll_totals), coll_order);
  int other = m->other.bytes != 0;
  for (int j = 0; j < RECORD_NCOLL; j++)
    other |= m->other.calls[j] != 0;
  if (other)
    list[n++] = m->other;
  fprintf(f, "  \"collectives\": [");
  for (int i = 0; i < n; i++) {
    const coll_totals* c = &list[i];
    if (other && i == n - 1)
      fprintf(f, "%s\n    {\"other\": true, \"size\": null, \"first_world_rank\": null, \"calls\": ", i ? "," : "");
    else
      fprintf(f, "%s\n    {\"size\": %d, \"first_world_rank\": %d, \"members_hash\": \"%016llx\", \"calls\": ",
              i ? "," : "", c->size, c->first, (unsigned long long)c->hash);
    write_calls(f, c->calls);
    fprintf(f, ", \"bytes\": %llu}", (unsigned long long)c->bytes);
    total.bytes += c->bytes;
    for (int j = 0; j < RECORD_NCOLL; j++)
      total.calls[j] += c->calls[j];
  }
  fprintf(f, "%s],\n  \"collectives_total\": {\"calls\": ", n ? "\n  " : "");
  write_calls(f, total.calls);
  fprintf(f, ", \"bytes\": %llu},\n  \"collectives_limits\": {\"per_rank\": %d, \"merged\": %d},\n"
          "  \"collectives_note\": ", (unsigned long long)total.bytes, rec.coll_slots, rec.coll_merged);
  json_string(f, "per communicator, identified by its members (size, lowest world rank, FNV-1a hash of the sorted "
                 "world ranks; an intercommunicator's two groups together): communicators of the same members are one "
                 "entry. calls: collective calls, each counted once (by the lowest member); bytes: what every member "
                 "contributed (its send buffer as the standard reads it). A rank keeps collectives_limits.per_rank "
                 "communicators (those it used first) and rank 0 collectives_limits.merged in the merge: the rest are "
                 "summed in the entry with \"other\": true (a communicator may then be partly in its own entry, "
                 "partly there)");
  fprintf(f, "\n");
  free(list);
}

/* Target -> origin entries (one-sided reads) to the target's row: each rank sends its entry for t to t
 * (two uint64: messages, bytes), which adds it to its own row; MPI_Reduce_scatter_block tells each rank
 * how many to expect.  O(P) per rank, no rank holds more than its row. */
static void hand_pulled(MPI_Comm comm)
{
  enum { PULLED = 4 };
  int* flags = calloc((size_t)rec.size, sizeof(int));
  int k = 0, incoming = 0;
  for (int t = 0; t < rec.size; t++)
    k += flags[t] = rec.pulled[t].msgs != 0;
  PMPI_Reduce_scatter_block(flags, &incoming, 1, MPI_INT, MPI_SUM, comm);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)(k ? k : 1));
  uint64_t* out = malloc(sizeof(uint64_t) * 2 * (size_t)(k ? k : 1));
  int j = 0;
  for (int t = 0; t < rec.size; t++)
    if (flags[t]) {
      out[2 * j] = rec.pulled[t].msgs, out[2 * j + 1] = rec.pulled[t].bytes;
      PMPI_Isend(out + 2 * j, 2, MPI_UINT64_T, t, PULLED, comm, &reqs[j]);
      j++;
    }
  for (int i = 0; i < incoming; i++) {
    uint64_t in[2];
    MPI_Status st;
    PMPI_Recv(in, 2, MPI_UINT64_T, MPI_ANY_SOURCE, PULLED, comm, &st);
    rec.sent[st.MPI_SOURCE].msgs += in[0];
    rec.sent[st.MPI_SOURCE].bytes += in[1];
  }
  PMPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
  free(reqs), free(out), free(flags);
}

static int write_json(const char* name, uint64_t nnz, uint64_t msgs, uint64_t bytes, double duration, int nodes,
                      int per_node, int uniform, merged_colls* colls)
{
  FILE* f = fopen(name, "w");
  if (!f)
    return errno ? errno : EIO;
  char version[1024];
  library_version(version, sizeof version);
  fprintf(f, "{\n  \"format\": \"mpitaskmap traffic recording\",\n  \"version\": 1,\n  \"matrix\": ");
  json_string(f, base_name(rec.path));
  fprintf(f, ",\n  \"weight\": \"bytes\",\n  \"counts\": ");
  char counts[sizeof rec.path + 16];
  snprintf(counts, sizeof counts, "%s.counts.mtx", base_name(rec.path));
  json_string(f, counts);
  fprintf(f, ",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"ranks_per_node\": ", rec.size, nodes);
  if (uniform)
    fprintf(f, "%d", per_node);
  else
    fprintf(f, "null");
  fprintf(f, ",\n  \"mpi_library\": ");
  json_string(f, version);
  fprintf(f, ",\n  \"recorded\": ");
  json_string(f, RECORDED);
  fprintf(f, ",\n  \"duration_s\": %.6f,\n  \"nonzeros\": %llu,\n  \"messages\": %llu,\n  \"bytes\": %llu,\n",
          duration, (unsigned long long)nnz, (unsigned long long)msgs, (unsigned long long)bytes);
  fprintf(f, "  \"window\": {\"pcontrol_calls\": %d, \"rank\": 0, \"intervals_s\": [", rec.pcontrol_calls);
  for (int i = 0; i < rec.nwindows; i++)
    fprintf(f, "%s[%.6f, %.6f]", i ? ", " : "", rec.windows[i][0], rec.windows[i][1]);
  fprintf(f, "], \"intervals_cut\": %s},\n", rec.windows_cut ? "true" : "false");
  write_colls_json(f, colls);
  fprintf(f, "}\n");
  int err = ferror(f) ? (errno ? errno : EIO) : 0;
  if (fclose(f) != 0 && !err)
    err = errno ? errno : EIO;
  return err;
}

/* Called by the shim's MPI_Finalize on every rank where the core runs, recording or not: merge and
 * write, then PMPI_Finalize.  The ranks first agree (one PMPI_Allreduce on MPI_COMM_WORLD) on whether
 * every rank recorded (MPITASKMAP_RECORD set, its recorder started): on none, MPI's own MPI_Finalize
 * at once; on some only, rank 0 says so in one line and nothing is written, so that a variable set on
 * some ranks only cannot leave the others waiting in the merge. */
CORE_API int mpitaskmap_record_finalize(void)
{
  /* max of on, minus the min of on, and whether any rank holds target -> origin (one-sided) entries */
  int on[3] = {rec.on, -rec.on, rec.on && rec.any_pulled}, all[3] = {0, 0, 0};
  PMPI_Allreduce(on, all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all[0] && !all[1]) { /* some ranks recorded, some not (the min of on is 0) */
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      fprintf(stderr, "mpitaskmap: MPITASKMAP_RECORD: the traffic recording was not written: it was recorded on "
              "some ranks only (MPITASKMAP_RECORD must be set on every rank)\n");
      fflush(stderr);
    }
    rec.on = 0;
  }
  if (!rec.on)
    return PMPI_Finalize();
  if (!rec.paused)
    window_close();
  rec.on = 0;
  double duration = PMPI_Wtime() - rec.t0;
  MPI_Comm comm;
  PMPI_Comm_create(MPI_COMM_WORLD, rec.world, &comm); /* copies no attribute, unlike MPI_Comm_dup */
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int chunk = CHUNK; /* rank 0's, for every rank */
  const char* asked = getenv("MPITASKMAP_RECORD_CHUNK");
  if (rec.rank == 0 && asked && atoi(asked) > 0 && atoi(asked) < CHUNK)
    chunk = atoi(asked);
  PMPI_Bcast(&chunk, 1, MPI_INT, 0, comm);
  char why[5000] = "";
  outputs o = {NULL, NULL, 0};
  merged_colls merged = {NULL, 0, {0, -1, -1, 0, {0}}};
  int opened = rec.rank == 0 ? open_all(&o, why, sizeof why) : 0;
  PMPI_Bcast(&opened, 1, MPI_INT, 0, comm);
  if (all[2])
    hand_pulled(comm);

  int n = 0;
  uint64_t* mine = own_triples(&n);
  uint64_t local[3] = {(uint64_t)n, 0, 0}, total[3] = {0, 0, 0};
  for (int j = 0; j < rec.size; j++)
    local[1] += rec.sent[j].msgs, local[2] += rec.sent[j].bytes;
  PMPI_Reduce(local, total, 3, MPI_UINT64_T, MPI_SUM, 0, comm);
  double longest = 0;
  PMPI_Reduce(&duration, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Comm node;
  int node_rank = 0, node_size = 1;
  PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  PMPI_Comm_rank(node, &node_rank);
  PMPI_Comm_size(node, &node_size);
  PMPI_Comm_free(&node);
  int leader[3] = {node_rank == 0, node_size, -node_size}, nodes[3] = {0, 0, 0};
  PMPI_Reduce(leader, nodes, 1, MPI_INT, MPI_SUM, 0, comm);
  PMPI_Reduce(leader + 1, nodes + 1, 2, MPI_INT, MPI_MAX, 0, comm);

  if (opened) {
    enum { GRANT = 1, COUNT = 2, DATA = 3, COLL = 5 };
    int ncolls = 0;
    uint64_t colls[COLL_WIDTH * (COLL_SLOTS + 1)];
    own_colls(colls, &ncolls);
    if (rec.rank == 0) {
      merge_colls(&merged, colls, ncolls);
      write_headers(&o, total[0]);
      write_entries(&o, 0, mine, n);
      uint64_t* part = malloc(sizeof(uint64_t) * 3 * (size_t)chunk);
      int granted = 0;
      for (int r = 1; r < rec.size; r++) {
        while (granted < rec.size - 1 && granted < r - 1 + WINDOW) {
          granted++;
          PMPI_Send(&granted, 1, MPI_INT, granted, GRANT, comm);
        }
        int k[2] = {0, 0};
        PMPI_Recv(k, 2, MPI_INT, r, COUNT, comm, MPI_STATUS_IGNORE);
        for (int done = 0; done < k[0]; done += chunk) {
          int m = k[0] - done < chunk ? k[0] - done : chunk;
          PMPI_Recv(part, 3 * m, MPI_UINT64_T, r, DATA, comm, MPI_STATUS_IGNORE);
          write_entries(&o, r, part, m);
        }
        if (k[1] > 0) {
          PMPI_Recv(colls, COLL_WIDTH * k[1], MPI_UINT64_T, r, COLL, comm, MPI_STATUS_IGNORE);
          merge_colls(&merged, colls, k[1]);
        }
      }
      free(part);
    } else {
      int token, k[2] = {n, ncolls};
      PMPI_Recv(&token, 1, MPI_INT, 0, GRANT, comm, MPI_STATUS_IGNORE);
      PMPI_Send(k, 2, MPI_INT, 0, COUNT, comm);
      for (int done = 0; done < n; done += chunk) {
        int m = n - done < chunk ? n - done : chunk;
        PMPI_Send(mine + 3 * (size_t)done, 3 * m, MPI_UINT64_T, 0, DATA, comm);
      }
      if (ncolls > 0)
        PMPI_Send(colls, COLL_WIDTH * ncolls, MPI_UINT64_T, 0, COLL, comm);
    }
  }
  free(mine);
  PMPI_Comm_free(&comm);

  if (rec.rank == 0) {
    if (opened) {
      if ((ferror(o.bytes) || ferror(o.msgs)) && !o.failed)
        o.failed = EIO;
      if (fclose(o.bytes) != 0 && !o.failed)
        o.failed = errno ? errno : EIO;
      if (fclose(o.msgs) != 0 && !o.failed)
        o.failed = errno ? errno : EIO;
      char json[sizeof rec.path + 8];
      snprintf(json, sizeof json, "%s.json", rec.path);
      if (o.failed) {
        snprintf(why, sizeof why, "writing %s: %s", rec.path, strerror(o.failed));
        char counts[sizeof rec.path + 16];
        snprintf(counts, sizeof counts, "%s.counts.mtx", rec.path);
        remove(rec.path); /* no half recording is left */
        remove(counts);
      } else {
        int err = write_json(json, total[0], total[1], total[2], longest, nodes[0], nodes[1], nodes[1] == -nodes[2],
                             &merged);
        if (err)
          snprintf(why, sizeof why, "%s: %s", json, strerror(err));
      }
    }
    if (*why) {
      fprintf(stderr, "mpitaskmap: MPITASKMAP_RECORD: the traffic recording was not written: %s\n", why);
      fflush(stderr);
    }
  }
  free(merged.table);
  free(rec.sent), free(rec.pulled);
  rec.sent = rec.pulled = NULL;
  PMPI_Group_free(&rec.world);
  return PMPI_Finalize();
}
