/* The traffic recorder of libmpitaskmap_pmpi_core: with MPITASKMAP_RECORD=PATH, the messages and bytes
 * every rank sends to every other, in MPI_COMM_WORLD numbering, written at MPI_Finalize as one Matrix
 * Market file (bytes), a second one (message counts) and a JSON sidecar.
 *
 * The preloaded shim (mpitaskmap_pmpi_shim.c) calls mpitaskmap_record_start after MPI_Init /
 * MPI_Init_thread succeeded when MPITASKMAP_RECORD is set and the core can run in the process; from
 * then on its MPI_Send ... entry points call the mpitaskmap_record_* functions below, which call MPI's
 * own PMPI_ function and return exactly its return code, and count only when it returned MPI_SUCCESS
 * (an erroneous call is MPI's to report, and its handler runs as without this library: no MPI call is
 * made before it).  Recorded (point-to-point, on any communicator, intercommunicators included):
 *
 *   MPI_Send, MPI_Bsend, MPI_Ssend, MPI_Rsend, MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend,
 *   MPI_Sendrecv, MPI_Sendrecv_replace (their send part), and the persistent MPI_Send_init,
 *   MPI_Bsend_init, MPI_Ssend_init, MPI_Rsend_init, counted at each MPI_Start / MPI_Startall;
 *   with an MPI of version 4 or later also MPI_Isendrecv, MPI_Isendrecv_replace and the
 *   large-count (_c) form of each of these (mpi4py 4 calls MPI_Send_c ... where they exist).
 *
 * Data structures.  Each rank holds its own row only: msgs[P] and bytes[P] (uint64, P = the size of
 * MPI_COMM_WORLD), so no rank holds P^2 entries.  A communicator's ranks are translated to world
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
 * whether it could; the totals (nonzeros, messages, bytes, duration, nodes) are reduced to rank 0,
 * which writes the headers (Matrix Market needs the nonzero count first) and its own row.  Then it
 * pulls the other rows in rank order: it grants up to WINDOW ranks ahead (one int message each); a
 * granted rank sends its nonzero count, then its nonzeros in chunks of at most CHUNK (column,
 * messages, bytes) triples; rank 0 writes each chunk as it arrives.  So rank 0 holds at most
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

enum { K_SEND, K_BSEND, K_SSEND, K_RSEND };

static struct {
  int on;     /* recording started (mpitaskmap_record_start) */
  int paused; /* MPI_Pcontrol(0) */
  int atomic; /* MPI_THREAD_MULTIPLE */
  int size, rank;
  uint64_t *msgs, *bytes;
  double t0;
  int keyval;
  MPI_Group world;
  double windows[MAX_WINDOWS][2], window_start;
  int nwindows, pcontrol_calls, windows_cut;
  char path[4096];
} rec;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Set by mpitaskmap_pmpi.c while Python computes a reordering: its messages are not the application's. */
extern __thread int mpitaskmap_in_hook;

/* -- counting ------------------------------------------------------------------------------- */

static void add(int world_dest, uint64_t bytes)
{
  if (world_dest < 0 || world_dest >= rec.size)
    return;
  if (rec.atomic) {
    __atomic_fetch_add(&rec.msgs[world_dest], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rec.bytes[world_dest], bytes, __ATOMIC_RELAXED);
  } else {
    rec.msgs[world_dest]++;
    rec.bytes[world_dest] += bytes;
  }
}

typedef struct {
  int n;
  int world[]; /* world rank of each rank of the (remote) group; MPI_UNDEFINED outside the world */
} translation;

static int drop_translation(MPI_Comm comm, int keyval, void* value, void* extra)
{
  (void)comm, (void)keyval, (void)extra;
  free(value);
  return MPI_SUCCESS;
}

/* The world rank of rank `rank` of comm (of its remote group for an intercommunicator), or -1.
 * Called after a successful call on comm only: comm and rank are valid. */
static int world_rank(MPI_Comm comm, int rank)
{
  if (rank == MPI_PROC_NULL || rank < 0)
    return -1;
  if (comm == MPI_COMM_WORLD)
    return rank;
  translation* t = NULL;
  int found = 0;
  PMPI_Comm_get_attr(comm, rec.keyval, &t, &found);
  if (!found) {
    if (rec.atomic)
      pthread_mutex_lock(&lock);
    PMPI_Comm_get_attr(comm, rec.keyval, &t, &found); /* another thread may have made it */
    if (!found) {
      int inter = 0, n = 0;
      MPI_Group group;
      PMPI_Comm_test_inter(comm, &inter);
      if (inter)
        PMPI_Comm_remote_group(comm, &group);
      else
        PMPI_Comm_group(comm, &group);
      PMPI_Group_size(group, &n);
      t = malloc(sizeof(translation) + sizeof(int) * (size_t)(n > 0 ? n : 1));
      int* ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
      t->n = n;
      for (int i = 0; i < n; i++)
        ranks[i] = i;
      PMPI_Group_translate_ranks(group, n, ranks, rec.world, t->world);
      free(ranks);
      PMPI_Group_free(&group);
      PMPI_Comm_set_attr(comm, rec.keyval, t);
    }
    if (rec.atomic)
      pthread_mutex_unlock(&lock);
  }
  if (rank >= t->n || t->world[rank] == MPI_UNDEFINED)
    return -1;
  return t->world[rank];
}

static uint64_t size_of(MPI_Count count, MPI_Datatype type)
{
  MPI_Count size = 0;
  if (count <= 0 || PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0)
    return 0;
  return (uint64_t)count * (uint64_t)size;
}

/* Whether a call that returned rc is counted: recording, not paused, not inside mpitaskmap's own hook. */
static int counting(int rc)
{
  return rc == MPI_SUCCESS && rec.on && !rec.paused && !mpitaskmap_in_hook;
}

void mpitaskmap_record_note_send(int rc, MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype type)
{
  if (!counting(rc) || dest == MPI_PROC_NULL)
    return;
  add(world_rank(comm, dest), size_of(count, type));
}

static void count(int rc, int dest, MPI_Count n, MPI_Datatype type, MPI_Comm comm)
{
  mpitaskmap_record_note_send(rc, comm, dest, n, type);
}

/* -- persistent requests: request handle -> (world destination, bytes) ------------------------- */

typedef struct entry {
  uint64_t key;
  int dest;
  uint64_t bytes;
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

static void remember(MPI_Request r, int dest, uint64_t bytes)
{
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  entry** e = slot(key_of(r));
  if (!*e) {
    *e = calloc(1, sizeof(entry));
    (*e)->key = key_of(r);
  }
  (*e)->dest = dest;
  (*e)->bytes = bytes;
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
}

static void forget(uint64_t key)
{
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  entry** e = slot(key);
  if (*e) {
    entry* gone = *e;
    *e = gone->next;
    free(gone);
  }
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
}

static void started(uint64_t key)
{
  if (rec.paused || !rec.on || mpitaskmap_in_hook)
    return;
  int dest = -1;
  uint64_t bytes = 0;
  if (rec.atomic)
    pthread_mutex_lock(&lock);
  entry* e = *slot(key);
  if (e)
    dest = e->dest, bytes = e->bytes;
  if (rec.atomic)
    pthread_mutex_unlock(&lock);
  if (e)
    add(dest, bytes);
}

/* Persistent sends are remembered even while paused (they are counted, or not, when started). */
void mpitaskmap_record_note_persistent(int rc, MPI_Request req, MPI_Comm comm, int dest, MPI_Count count,
                                       MPI_Datatype type)
{
  if (rc == MPI_SUCCESS && rec.on && dest != MPI_PROC_NULL && !mpitaskmap_in_hook)
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
  rec.msgs = calloc((size_t)rec.size, sizeof(uint64_t));
  rec.bytes = calloc((size_t)rec.size, sizeof(uint64_t));
  if (!rec.msgs || !rec.bytes)
    return 0;
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_translation, &rec.keyval, NULL) != MPI_SUCCESS)
    return 0;
  PMPI_Comm_group(MPI_COMM_WORLD, &rec.world);
  snprintf(rec.path, sizeof rec.path, "%s", path);
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

/* Each entry point twice: with int counts, and (MPI 4 and later) with MPI_Count counts calling the
 * _c functions.  COUNT_T is the count's type, C the suffix of MPI's function ("" or _c). */
#define ENTRY_POINTS(SUFFIX, COUNT_T, C)                                                                             \
  CORE_API int mpitaskmap_record_send##SUFFIX(int kind, const void* buf, COUNT_T n, MPI_Datatype type, int dest,      \
                                              int tag, MPI_Comm comm)                                                 \
  {                                                                                                                   \
    int rc = kind == K_BSEND   ? PMPI_Bsend##C(buf, n, type, dest, tag, comm)                                         \
             : kind == K_SSEND ? PMPI_Ssend##C(buf, n, type, dest, tag, comm)                                         \
             : kind == K_RSEND ? PMPI_Rsend##C(buf, n, type, dest, tag, comm)                                         \
                               : PMPI_Send##C(buf, n, type, dest, tag, comm);                                         \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }                                                                                                                   \
                                                                                                                      \
  CORE_API int mpitaskmap_record_isend##SUFFIX(int kind, const void* buf, COUNT_T n, MPI_Datatype type, int dest,     \
                                               int tag, MPI_Comm comm, MPI_Request* req)                              \
  {                                                                                                                   \
    int rc = kind == K_BSEND   ? PMPI_Ibsend##C(buf, n, type, dest, tag, comm, req)                                   \
             : kind == K_SSEND ? PMPI_Issend##C(buf, n, type, dest, tag, comm, req)                                   \
             : kind == K_RSEND ? PMPI_Irsend##C(buf, n, type, dest, tag, comm, req)                                   \
                               : PMPI_Isend##C(buf, n, type, dest, tag, comm, req);                                   \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }                                                                                                                   \
                                                                                                                      \
  CORE_API int mpitaskmap_record_send_init##SUFFIX(int kind, const void* buf, COUNT_T n, MPI_Datatype type, int dest, \
                                                   int tag, MPI_Comm comm, MPI_Request* req)                          \
  {                                                                                                                   \
    int rc = kind == K_BSEND   ? PMPI_Bsend_init##C(buf, n, type, dest, tag, comm, req)                               \
             : kind == K_SSEND ? PMPI_Ssend_init##C(buf, n, type, dest, tag, comm, req)                               \
             : kind == K_RSEND ? PMPI_Rsend_init##C(buf, n, type, dest, tag, comm, req)                               \
                               : PMPI_Send_init##C(buf, n, type, dest, tag, comm, req);                               \
    mpitaskmap_record_note_persistent(rc, *req, comm, dest, n, type);                                                 \
    return rc;                                                                                                        \
  }                                                                                                                   \
                                                                                                                      \
  CORE_API int mpitaskmap_record_sendrecv##SUFFIX(const void* sbuf, COUNT_T sn, MPI_Datatype stype, int dest,         \
                                                  int stag, void* rbuf, COUNT_T rn, MPI_Datatype rtype, int source,   \
                                                  int rtag, MPI_Comm comm, MPI_Status* status)                        \
  {                                                                                                                   \
    int rc = PMPI_Sendrecv##C(sbuf, sn, stype, dest, stag, rbuf, rn, rtype, source, rtag, comm, status);              \
    count(rc, dest, sn, stype, comm);                                                                                 \
    return rc;                                                                                                        \
  }                                                                                                                   \
                                                                                                                      \
  CORE_API int mpitaskmap_record_sendrecv_replace##SUFFIX(void* buf, COUNT_T n, MPI_Datatype type, int dest,          \
                                                          int stag, int source, int rtag, MPI_Comm comm,              \
                                                          MPI_Status* status)                                         \
  {                                                                                                                   \
    int rc = PMPI_Sendrecv_replace##C(buf, n, type, dest, stag, source, rtag, comm, status);                          \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }

ENTRY_POINTS(, int, )

#if MPI_VERSION >= 4
ENTRY_POINTS(_c, MPI_Count, _c)

/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4), int and MPI_Count counts. */
#define ISENDRECV(SUFFIX, COUNT_T, C)                                                                                 \
  CORE_API int mpitaskmap_record_isendrecv##SUFFIX(const void* sbuf, COUNT_T sn, MPI_Datatype stype, int dest,        \
                                                   int stag, void* rbuf, COUNT_T rn, MPI_Datatype rtype, int source,  \
                                                   int rtag, MPI_Comm comm, MPI_Request* req)                         \
  {                                                                                                                   \
    int rc = PMPI_Isendrecv##C(sbuf, sn, stype, dest, stag, rbuf, rn, rtype, source, rtag, comm, req);                \
    count(rc, dest, sn, stype, comm);                                                                                 \
    return rc;                                                                                                        \
  }                                                                                                                   \
                                                                                                                      \
  CORE_API int mpitaskmap_record_isendrecv_replace##SUFFIX(void* buf, COUNT_T n, MPI_Datatype type, int dest,         \
                                                           int stag, int source, int rtag, MPI_Comm comm,             \
                                                           MPI_Request* req)                                          \
  {                                                                                                                   \
    int rc = PMPI_Isendrecv_replace##C(buf, n, type, dest, stag, source, rtag, comm, req);                            \
    count(rc, dest, n, type, comm);                                                                                   \
    return rc;                                                                                                        \
  }
ISENDRECV(, int, )
ISENDRECV(_c, MPI_Count, _c)
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

/* -- families being added (issue 41): declared in mpitaskmap_pmpi_record.h, not counted yet ---------- */

void mpitaskmap_record_note_partitioned(int rc, MPI_Request req, MPI_Comm comm, int dest, int partitions,
                                        MPI_Count count, MPI_Datatype type)
{
  (void)rc, (void)req, (void)comm, (void)dest, (void)partitions, (void)count, (void)type;
}

void mpitaskmap_record_note_put(int rc, MPI_Win win, int target, MPI_Count count, MPI_Datatype type)
{
  (void)rc, (void)win, (void)target, (void)count, (void)type;
}

void mpitaskmap_record_note_get(int rc, MPI_Win win, int target, MPI_Count count, MPI_Datatype type)
{
  (void)rc, (void)win, (void)target, (void)count, (void)type;
}

void mpitaskmap_record_note_get_accumulate(int rc, MPI_Win win, int target, MPI_Count origin_count,
                                           MPI_Datatype origin_type, MPI_Count result_count, MPI_Datatype result_type,
                                           MPI_Op op)
{
  (void)rc, (void)win, (void)target, (void)origin_count, (void)origin_type, (void)result_count, (void)result_type,
      (void)op;
}

void mpitaskmap_record_note_fetch_and_op(int rc, MPI_Win win, int target, MPI_Datatype type, MPI_Op op)
{
  (void)rc, (void)win, (void)target, (void)type, (void)op;
}

void mpitaskmap_record_note_compare_and_swap(int rc, MPI_Win win, int target, MPI_Datatype type)
{
  (void)rc, (void)win, (void)target, (void)type;
}

void mpitaskmap_record_note_neighbor_allgather(int rc, MPI_Comm comm, MPI_Count count, MPI_Datatype type,
                                               const MPI_Request* init)
{
  (void)rc, (void)comm, (void)count, (void)type, (void)init;
}

void mpitaskmap_record_note_neighbor_alltoall(int rc, MPI_Comm comm, MPI_Count count, MPI_Datatype type,
                                              const MPI_Request* init)
{
  (void)rc, (void)comm, (void)count, (void)type, (void)init;
}

void mpitaskmap_record_note_neighbor_alltoallv(int rc, MPI_Comm comm, const int* counts, const MPI_Count* counts_c,
                                               MPI_Datatype type, const MPI_Datatype* types, const MPI_Request* init)
{
  (void)rc, (void)comm, (void)counts, (void)counts_c, (void)type, (void)types, (void)init;
}

void mpitaskmap_record_note_collective(int rc, MPI_Comm comm, int which, int root, int in_place, MPI_Count scount,
                                       MPI_Datatype stype, const int* scounts, const MPI_Count* scounts_c,
                                       const MPI_Datatype* stypes, MPI_Count rcount, MPI_Datatype rtype,
                                       const int* rcounts, const MPI_Count* rcounts_c, const MPI_Datatype* rtypes)
{
  (void)rc, (void)comm, (void)which, (void)root, (void)in_place, (void)scount, (void)stype, (void)scounts,
      (void)scounts_c, (void)stypes, (void)rcount, (void)rtype, (void)rcounts, (void)rcounts_c, (void)rtypes;
}

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
#if MPI_VERSION >= 4
                               "MPI_Isendrecv, MPI_Isendrecv_replace, "
#endif
                               "MPI_Start(all) of MPI_*send_init"
#if MPI_VERSION >= 4
                               ", and their large-count (_c) forms"
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
    k += rec.msgs[j] != 0;
  uint64_t* t = malloc(sizeof(uint64_t) * 3 * (size_t)(k ? k : 1));
  k = 0;
  for (int j = 0; j < rec.size; j++)
    if (rec.msgs[j]) {
      t[3 * k] = (uint64_t)j, t[3 * k + 1] = rec.msgs[j], t[3 * k + 2] = rec.bytes[j];
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

static int write_json(const char* name, uint64_t nnz, uint64_t msgs, uint64_t bytes, double duration, int nodes,
                      int per_node, int uniform)
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
  fprintf(f, "], \"intervals_cut\": %s}\n}\n", rec.windows_cut ? "true" : "false");
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
  int on[2] = {rec.on, -rec.on}, all[2] = {0, 0}; /* max of on, and minus the min */
  PMPI_Allreduce(on, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
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
  int opened = rec.rank == 0 ? open_all(&o, why, sizeof why) : 0;
  PMPI_Bcast(&opened, 1, MPI_INT, 0, comm);

  int n = 0;
  uint64_t* mine = own_triples(&n);
  uint64_t local[3] = {(uint64_t)n, 0, 0}, total[3] = {0, 0, 0};
  for (int j = 0; j < rec.size; j++)
    local[1] += rec.msgs[j], local[2] += rec.bytes[j];
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
    enum { GRANT = 1, COUNT = 2, DATA = 3 };
    if (rec.rank == 0) {
      write_headers(&o, total[0]);
      write_entries(&o, 0, mine, n);
      uint64_t* part = malloc(sizeof(uint64_t) * 3 * (size_t)chunk);
      int granted = 0;
      for (int r = 1; r < rec.size; r++) {
        while (granted < rec.size - 1 && granted < r - 1 + WINDOW) {
          granted++;
          PMPI_Send(&granted, 1, MPI_INT, granted, GRANT, comm);
        }
        int k = 0;
        PMPI_Recv(&k, 1, MPI_INT, r, COUNT, comm, MPI_STATUS_IGNORE);
        for (int done = 0; done < k; done += chunk) {
          int m = k - done < chunk ? k - done : chunk;
          PMPI_Recv(part, 3 * m, MPI_UINT64_T, r, DATA, comm, MPI_STATUS_IGNORE);
          write_entries(&o, r, part, m);
        }
      }
      free(part);
    } else {
      int token;
      PMPI_Recv(&token, 1, MPI_INT, 0, GRANT, comm, MPI_STATUS_IGNORE);
      PMPI_Send(&n, 1, MPI_INT, 0, COUNT, comm);
      for (int done = 0; done < n; done += chunk) {
        int m = n - done < chunk ? n - done : chunk;
        PMPI_Send(mine + 3 * (size_t)done, 3 * m, MPI_UINT64_T, 0, DATA, comm);
      }
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
        int err = write_json(json, total[0], total[1], total[2], longest, nodes[0], nodes[1], nodes[1] == -nodes[2]);
        if (err)
          snprintf(why, sizeof why, "%s: %s", json, strerror(err));
      }
    }
    if (*why) {
      fprintf(stderr, "mpitaskmap: MPITASKMAP_RECORD: the traffic recording was not written: %s\n", why);
      fflush(stderr);
    }
  }
  free(rec.msgs), free(rec.bytes);
  rec.msgs = rec.bytes = NULL;
  PMPI_Group_free(&rec.world);
  return PMPI_Finalize();
}
