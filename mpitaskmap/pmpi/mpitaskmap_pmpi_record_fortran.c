/* The traffic recorder's Fortran side in libmpitaskmap_pmpi_core: what the shim's Fortran entry points
 * (mpitaskmap_pmpi_shim_fortran.c) call after MPI's own Fortran binding returned ierror = MPI_SUCCESS
 * while recording.  Each takes the binding's arguments as they were given (addresses of Fortran
 * INTEGERs: handles, counts, ranks; `use mpi_f08` handles are derived types whose MPI_VAL sits at the
 * address), converts the handles with MPI_Comm_f2c / MPI_Type_f2c / MPI_Request_f2c / MPI_Win_f2c /
 * MPI_Op_f2c and calls the recorder's note (mpitaskmap_pmpi_record.h), which counts exactly as for
 * the C calls: the same counters, the same rules.  rc is MPI_SUCCESS: the shim calls none of these
 * after a failed call.
 *
 * Fortran's MPI_IN_PLACE is not C's: it is the address of a variable of MPI's Fortran library (Open
 * MPI: mpi_fortran_in_place_ for mpif.h, `use mpi` and `use mpi_f08`; MPICH: the address held by
 * MPIR_F_MPI_IN_PLACE), found by name once; a collective's send buffer (a scatter's receive buffer)
 * at that address is in place. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpitaskmap_pmpi_record.h"

#define CORE_API __attribute__((visibility("default")))

/* Fortran INTEGER arrays (counts) are passed to the notes as C int arrays. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not int: Fortran counts would need converting");

/* -- point-to-point ------------------------------------------------------------------------------ */

CORE_API void mpitaskmap_record_f_send(const MPI_Fint* comm, const MPI_Fint* dest, const MPI_Fint* count,
                                       const MPI_Fint* type)
{
  mpitaskmap_record_note_send(MPI_SUCCESS, MPI_Comm_f2c(*comm), *dest, *count, MPI_Type_f2c(*type));
}

CORE_API void mpitaskmap_record_f_send_init(const MPI_Fint* comm, const MPI_Fint* dest, const MPI_Fint* count,
                                            const MPI_Fint* type, const MPI_Fint* request)
{
  mpitaskmap_record_note_persistent(MPI_SUCCESS, MPI_Request_f2c(*request), MPI_Comm_f2c(*comm), *dest, *count,
                                    MPI_Type_f2c(*type));
}

/* MPI_START (count NULL: one request) and MPI_STARTALL: a start leaves the handles as they were. */
CORE_API void mpitaskmap_record_f_start(const MPI_Fint* count, const MPI_Fint* requests)
{
  int n = count ? *count : 1;
  for (int i = 0; i < n; i++)
    mpitaskmap_record_note_start(MPI_SUCCESS, MPI_Request_f2c(requests[i]));
}

/* MPI_REQUEST_FREE: the C handle, taken before MPI's binding frees the request, as 64 bits (a pointer
 * in Open MPI, an int in MPICH); handed back by request_freed after the binding succeeded. */
_Static_assert(sizeof(MPI_Request) <= sizeof(int64_t), "MPI_Request wider than 64 bits");

CORE_API int64_t mpitaskmap_record_f_request_c(const MPI_Fint* request)
{
  MPI_Request c = MPI_Request_f2c(*request);
  int64_t v = 0;
  memcpy(&v, &c, sizeof c);
  return v;
}

CORE_API void mpitaskmap_record_f_request_freed(int64_t before)
{
  MPI_Request c;
  memcpy(&c, &before, sizeof c);
  mpitaskmap_record_note_request_free(MPI_SUCCESS, c);
}

/* -- one-sided ----------------------------------------------------------------------------------- */

/* MPI_PUT, MPI_RPUT, MPI_ACCUMULATE, MPI_RACCUMULATE: the origin buffer, origin -> target. */
CORE_API void mpitaskmap_record_f_put(const MPI_Fint* win, const MPI_Fint* target, const MPI_Fint* count,
                                      const MPI_Fint* type)
{
  mpitaskmap_record_note_put(MPI_SUCCESS, MPI_Win_f2c(*win), *target, *count, MPI_Type_f2c(*type));
}

/* MPI_GET, MPI_RGET: the origin buffer, target -> origin. */
CORE_API void mpitaskmap_record_f_get(const MPI_Fint* win, const MPI_Fint* target, const MPI_Fint* count,
                                      const MPI_Fint* type)
{
  mpitaskmap_record_note_get(MPI_SUCCESS, MPI_Win_f2c(*win), *target, *count, MPI_Type_f2c(*type));
}

CORE_API void mpitaskmap_record_f_get_accumulate(const MPI_Fint* win, const MPI_Fint* target,
                                                 const MPI_Fint* ocount, const MPI_Fint* otype,
                                                 const MPI_Fint* rcount, const MPI_Fint* rtype, const MPI_Fint* op)
{
  mpitaskmap_record_note_get_accumulate(MPI_SUCCESS, MPI_Win_f2c(*win), *target, *ocount, MPI_Type_f2c(*otype),
                                        *rcount, MPI_Type_f2c(*rtype), MPI_Op_f2c(*op));
}

CORE_API void mpitaskmap_record_f_fetch_and_op(const MPI_Fint* win, const MPI_Fint* target, const MPI_Fint* type,
                                               const MPI_Fint* op)
{
  mpitaskmap_record_note_fetch_and_op(MPI_SUCCESS, MPI_Win_f2c(*win), *target, MPI_Type_f2c(*type),
                                      MPI_Op_f2c(*op));
}

CORE_API void mpitaskmap_record_f_compare_and_swap(const MPI_Fint* win, const MPI_Fint* target, const MPI_Fint* type)
{
  mpitaskmap_record_note_compare_and_swap(MPI_SUCCESS, MPI_Win_f2c(*win), *target, MPI_Type_f2c(*type));
}

/* -- neighbourhood collectives ------------------------------------------------------------------- */

/* The number of out-neighbours of comm's topology (the length of an alltoallw's type array). */
static int out_degree(MPI_Comm comm)
{
  int kind = MPI_UNDEFINED, n = 0, rank = 0, in = 0, weighted = 0;
  PMPI_Topo_test(comm, &kind);
  if (kind == MPI_CART) {
    PMPI_Cartdim_get(comm, &n);
    return 2 * n;
  }
  if (kind == MPI_GRAPH) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &n);
    return n;
  }
  if (kind == MPI_DIST_GRAPH) {
    PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
    return n;
  }
  return 0;
}

/* Fortran datatype handles as C ones (NULL for none; free the result). */
static MPI_Datatype* c_types(const MPI_Fint* types, int n)
{
  if (!types || n <= 0)
    return NULL;
  MPI_Datatype* out = malloc(sizeof(MPI_Datatype) * (size_t)n);
  for (int i = 0; out && i < n; i++)
    out[i] = MPI_Type_f2c(types[i]);
  return out;
}

/* kind 0: MPI_NEIGHBOR_ALLGATHER(V) (count, type); 1: MPI_NEIGHBOR_ALLTOALL (count, type);
 * 2: MPI_NEIGHBOR_ALLTOALLV (counts, type); 3: MPI_NEIGHBOR_ALLTOALLW (counts, types); I- forms alike;
 * request: the request a persistent MPI_NEIGHBOR_*_INIT made (counted at each start), NULL for the others. */
CORE_API void mpitaskmap_record_f_neighbor(int kind, const MPI_Fint* comm, const MPI_Fint* count,
                                           const MPI_Fint* type, const MPI_Fint* counts, const MPI_Fint* types,
                                           const MPI_Fint* request)
{
  MPI_Comm c = MPI_Comm_f2c(*comm);
  MPI_Request made = request ? MPI_Request_f2c(*request) : MPI_REQUEST_NULL;
  const MPI_Request* init = request ? &made : NULL;
  if (kind == 0)
    mpitaskmap_record_note_neighbor_allgather(MPI_SUCCESS, c, *count, MPI_Type_f2c(*type), init);
  else if (kind == 1)
    mpitaskmap_record_note_neighbor_alltoall(MPI_SUCCESS, c, *count, MPI_Type_f2c(*type), init);
  else if (kind == 2)
    mpitaskmap_record_note_neighbor_alltoallv(MPI_SUCCESS, c, counts, NULL, MPI_Type_f2c(*type), NULL, init);
  else if (kind == 3) {
    MPI_Datatype* t = c_types(types, out_degree(c));
    if (t || out_degree(c) == 0)
      mpitaskmap_record_note_neighbor_alltoallv(MPI_SUCCESS, c, counts, NULL, MPI_DATATYPE_NULL, t, init);
    free(t);
  }
}

/* -- collectives --------------------------------------------------------------------------------- */

/* The id of the collective named `name` (C's name, "MPI_Bcast"), -1 for none. */
CORE_API int mpitaskmap_record_f_collective_id(const char* name)
{
#define RECORD_COLL_NAME(ID, NAME) NAME,
  static const char* const names[] = {RECORD_COLLECTIVES(RECORD_COLL_NAME)};
#undef RECORD_COLL_NAME
  for (int i = 0; i < RECORD_NCOLL; i++)
    if (!strcmp(names[i], name))
      return i;
  return -1;
}

static const void* f_in_place;
static pthread_once_t in_place_found = PTHREAD_ONCE_INIT;

static void find_in_place(void)
{
  static const char* const names[] = {"mpi_fortran_in_place_", "mpi_fortran_in_place", "mpi_fortran_in_place__",
                                      "MPI_FORTRAN_IN_PLACE", NULL};
  for (int i = 0; names[i] && !f_in_place; i++)
    f_in_place = dlsym(RTLD_DEFAULT, names[i]);
  void** held = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE"); /* MPICH: a variable holding the address */
  if (!f_in_place && held)
    f_in_place = *held;
}

/* (Of any form: blocking, I- or persistent.) */
static int is_scatter(int which)
{
  int base = mpitaskmap_record_coll_base(which);
  return base == RECORD_COLL_SCATTER || base == RECORD_COLL_SCATTERV;
}

/* Whether the collective (of any form) has send arguments of its own (a reduction's count and type serve both
 * sides). */
static int own_send_arguments(int which)
{
  switch (mpitaskmap_record_coll_base(which)) {
  case RECORD_COLL_GATHER: case RECORD_COLL_GATHERV: case RECORD_COLL_ALLGATHER:
  case RECORD_COLL_ALLGATHERV: case RECORD_COLL_ALLTOALL: case RECORD_COLL_ALLTOALLV:
  case RECORD_COLL_ALLTOALLW:
    return 1;
  default:
    return 0;
  }
}

/* One collective call: its arguments by role, NULL where the call has none (see the shim's entry
 * points and mpitaskmap_record_note_collective); request: the request a persistent MPI_*_INIT made
 * (counted at each start), NULL for the blocking and I- forms. */
CORE_API void mpitaskmap_record_f_collective(int which, const MPI_Fint* comm, const MPI_Fint* request,
                                             const MPI_Fint* root, const void* sbuf,
                                             const void* rbuf, const MPI_Fint* scount, const MPI_Fint* stype,
                                             const MPI_Fint* scounts, const MPI_Fint* stypes,
                                             const MPI_Fint* rcount, const MPI_Fint* rtype, const MPI_Fint* rcounts,
                                             const MPI_Fint* rtypes)
{
  if (which < 0 || which >= RECORD_NCOLL)
    return;
  pthread_once(&in_place_found, find_in_place);
  MPI_Comm c = MPI_Comm_f2c(*comm);
  const void* buf = is_scatter(which) ? rbuf : sbuf;
  int in_place = f_in_place && buf == f_in_place;
  int n = 0, inter = 0;
  if (in_place && is_scatter(which)) /* MPI ignores the in-place side's own arguments: they need not be handles */
    rcount = rtype = rcounts = rtypes = NULL;
  else if (in_place && own_send_arguments(which)) /* (a reduction's count and type serve both sides) */
    scount = stype = scounts = stypes = NULL;
  MPI_Datatype *st = NULL, *rt = NULL;
  if (stypes || rtypes) { /* MPI_ALLTOALLW: one type per rank of the (remote) group */
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
      PMPI_Comm_remote_size(c, &n);
    else
      PMPI_Comm_size(c, &n);
    st = c_types(stypes, n);
    rt = c_types(rtypes, n);
  }
  MPI_Datatype s_type = stype ? MPI_Type_f2c(*stype) : MPI_DATATYPE_NULL;
  MPI_Datatype r_type = rtype ? MPI_Type_f2c(*rtype) : MPI_DATATYPE_NULL;
  if (request)
    mpitaskmap_record_note_collective_init(MPI_SUCCESS, MPI_Request_f2c(*request), c, which, root ? *root : 0,
                                           in_place, scount ? *scount : 0, s_type, scounts, NULL, st,
                                           rcount ? *rcount : 0, r_type, rcounts, NULL, rt);
  else
    mpitaskmap_record_note_collective(MPI_SUCCESS, c, which, root ? *root : 0, in_place, scount ? *scount : 0,
                                      s_type, scounts, NULL, st, rcount ? *rcount : 0, r_type, rcounts, NULL, rt);
  free(st);
  free(rt);
}
