/* The traffic recorder's internal interface (mpitaskmap_pmpi_record.c), for the other source files of
 * libmpitaskmap_pmpi_core: the Fortran entry points (mpitaskmap_pmpi_record_fortran.c) call MPI's own
 * binding, convert the handles with MPI_*_f2c, and then one of the notes below, which counts exactly as
 * the C entry points do.  Hidden symbols: not part of the core's exported interface, which the shim
 * reaches through dlsym.  The names and arguments below are kept stable.
 *
 * Every note is called after MPI's own call returned rc and counts nothing unless rc == MPI_SUCCESS,
 * recording is on (MPITASKMAP_RECORD, after MPI_Init), not paused (MPI_Pcontrol(0)) and the calling
 * thread is not inside mpitaskmap's own reordering hook (mpitaskmap_in_hook).  Ranks are ranks of the
 * communicator (of the remote group for an intercommunicator) or of the window's group; MPI_PROC_NULL
 * counts nothing.  Bytes are count x MPI_Type_size.
 *
 * The matrix is the data flow, row = the rank the data leaves, column = the rank it reaches, in
 * MPI_COMM_WORLD numbering:
 *   point-to-point, persistent and partitioned sends: sender -> destination;
 *   MPI_Put, MPI_Rput, MPI_Accumulate, MPI_Raccumulate: origin -> target (the origin buffer);
 *   MPI_Get, MPI_Rget: target -> origin (the origin buffer's size, which the target's data fills);
 *   MPI_Get_accumulate, MPI_Rget_accumulate, MPI_Fetch_and_op: origin -> target (the origin buffer;
 *     nothing when op is MPI_NO_OP, where MPI ignores it) and target -> origin (the result buffer);
 *   MPI_Compare_and_swap: origin -> target (the origin and compare values: 2 elements) and target ->
 *     origin (the result, 1 element);
 *   neighbourhood collectives: this rank -> each out-neighbour (its block for it).
 * One call is one message in each direction it moves data.  A target -> origin entry is held by the
 * origin (it issued the call) and handed to the target's row before the merge (see the .c file).
 *
 * Collectives are not pairs: per communicator, the calls (counted once per collective call: by the
 * communicator's member of lowest world rank) and the bytes every member contributes, i.e. its send
 * buffer as the standard reads it (root / non-root rules; with MPI_IN_PLACE the same block read from
 * the receive arguments, so that MPI_IN_PLACE does not change the figure).  See mpitaskmap_record_note_collective. */
#ifndef MPITASKMAP_PMPI_RECORD_H
#define MPITASKMAP_PMPI_RECORD_H

#include <mpi.h>
#include <stdint.h>

#define RECORD_INTERNAL __attribute__((visibility("hidden")))

#if MPI_VERSION < 3
#error "the recorder needs an MPI of version 3 or later"
#endif

/* MPI_Count exists from MPI 3.0 on. */
typedef MPI_Count mpitaskmap_count;

/* -- point-to-point ---------------------------------------------------------------------------- */

/* A send of count x type to rank dest of comm (MPI_Send ... MPI_Sendrecv's send part). */
RECORD_INTERNAL void mpitaskmap_record_note_send(int rc, MPI_Comm comm, int dest, MPI_Count count,
                                                            MPI_Datatype type);
/* MPI_*send_init made req: counted at each start of req (mpitaskmap_record_note_start). */
RECORD_INTERNAL void mpitaskmap_record_note_persistent(int rc, MPI_Request req, MPI_Comm comm, int dest,
                                                                  MPI_Count count, MPI_Datatype type);
/* MPI_Psend_init (MPI 4) made req: one message of partitions x count x type at each start. */
RECORD_INTERNAL void mpitaskmap_record_note_partitioned(int rc, MPI_Request req, MPI_Comm comm, int dest,
                                                                   int partitions, MPI_Count count,
                                                                   MPI_Datatype type);
/* MPI_Start / each request of MPI_Startall returned rc; req is the handle (a start leaves it as it was). */
RECORD_INTERNAL void mpitaskmap_record_note_start(int rc, MPI_Request req);
/* MPI_Request_free returned rc; req is the handle as it was BEFORE the call (MPI sets it to MPI_REQUEST_NULL). */
RECORD_INTERNAL void mpitaskmap_record_note_request_free(int rc, MPI_Request req);

/* -- one-sided (target: a rank of the window's group) -------------------------------------------- */

/* MPI_Put, MPI_Rput, MPI_Accumulate, MPI_Raccumulate (and _c): origin count x type, origin -> target. */
RECORD_INTERNAL void mpitaskmap_record_note_put(int rc, MPI_Win win, int target, MPI_Count count,
                                                           MPI_Datatype type);
/* MPI_Get, MPI_Rget (and _c): origin count x type, target -> origin. */
RECORD_INTERNAL void mpitaskmap_record_note_get(int rc, MPI_Win win, int target, MPI_Count count,
                                                           MPI_Datatype type);
/* MPI_Get_accumulate, MPI_Rget_accumulate (and _c): origin buffer -> target unless op is MPI_NO_OP,
 * result buffer -> origin. */
RECORD_INTERNAL void mpitaskmap_record_note_get_accumulate(int rc, MPI_Win win, int target,
                                                                      MPI_Count origin_count, MPI_Datatype origin_type,
                                                                      MPI_Count result_count, MPI_Datatype result_type,
                                                                      MPI_Op op);
/* MPI_Fetch_and_op: 1 element of type to the target unless op is MPI_NO_OP, 1 back. */
RECORD_INTERNAL void mpitaskmap_record_note_fetch_and_op(int rc, MPI_Win win, int target,
                                                                    MPI_Datatype type, MPI_Op op);
/* MPI_Compare_and_swap: 2 elements of type to the target (origin and compare), 1 back. */
RECORD_INTERNAL void mpitaskmap_record_note_compare_and_swap(int rc, MPI_Win win, int target,
                                                                        MPI_Datatype type);

/* -- neighbourhood collectives -------------------------------------------------------------------
 * The out-neighbours of comm's topology, in MPI's order (Cartesian: for each dimension, the source
 * then the destination of MPI_Cart_shift(d, 1); graph: MPI_Graph_neighbors; distributed graph: the
 * destinations of MPI_Dist_graph_neighbors); MPI_PROC_NULL neighbours get nothing.  init: NULL for
 * MPI_Neighbor_* and MPI_Ineighbor_* (counted now); for the persistent MPI_Neighbor_*_init (MPI 4)
 * the request made, counted at each start.  Counts: the int array (counts) or the MPI_Count one
 * (counts_c, the _c forms); the other NULL. */

/* MPI_Neighbor_allgather(v): count x type to every out-neighbour. */
RECORD_INTERNAL void mpitaskmap_record_note_neighbor_allgather(int rc, MPI_Comm comm, MPI_Count count,
                                                                          MPI_Datatype type, const MPI_Request* init);
/* MPI_Neighbor_alltoall: count x type to each out-neighbour (block i to neighbour i). */
RECORD_INTERNAL void mpitaskmap_record_note_neighbor_alltoall(int rc, MPI_Comm comm, MPI_Count count,
                                                                         MPI_Datatype type, const MPI_Request* init);
/* MPI_Neighbor_alltoallv: counts[i] x type to out-neighbour i; MPI_Neighbor_alltoallw: counts[i] x
 * types[i] (types non-NULL, type ignored). */
RECORD_INTERNAL void mpitaskmap_record_note_neighbor_alltoallv(int rc, MPI_Comm comm, const int* counts,
                                                                          const MPI_Count* counts_c, MPI_Datatype type,
                                                                          const MPI_Datatype* types,
                                                                          const MPI_Request* init);

/* -- collectives --------------------------------------------------------------------------------- */

/* The collectives counted, by name: each X(ID, NAME).  The persistent ones (X_INIT, MPI 4) are counted
 * at each start of their request, with the bytes their MPI_*_init arguments give. */
#define RECORD_COLLECTIVES(X)                                                                                    \
  X(BARRIER, "MPI_Barrier") X(BCAST, "MPI_Bcast") X(REDUCE, "MPI_Reduce") X(ALLREDUCE, "MPI_Allreduce")              \
  X(GATHER, "MPI_Gather") X(GATHERV, "MPI_Gatherv") X(SCATTER, "MPI_Scatter") X(SCATTERV, "MPI_Scatterv")            \
  X(ALLGATHER, "MPI_Allgather") X(ALLGATHERV, "MPI_Allgatherv") X(ALLTOALL, "MPI_Alltoall")                          \
  X(ALLTOALLV, "MPI_Alltoallv") X(ALLTOALLW, "MPI_Alltoallw") X(REDUCE_SCATTER, "MPI_Reduce_scatter")                \
  X(REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block") X(SCAN, "MPI_Scan") X(EXSCAN, "MPI_Exscan")                    \
  X(IBARRIER, "MPI_Ibarrier") X(IBCAST, "MPI_Ibcast") X(IREDUCE, "MPI_Ireduce") X(IALLREDUCE, "MPI_Iallreduce")      \
  X(IGATHER, "MPI_Igather") X(IGATHERV, "MPI_Igatherv") X(ISCATTER, "MPI_Iscatter") X(ISCATTERV, "MPI_Iscatterv")    \
  X(IALLGATHER, "MPI_Iallgather") X(IALLGATHERV, "MPI_Iallgatherv") X(IALLTOALL, "MPI_Ialltoall")                    \
  X(IALLTOALLV, "MPI_Ialltoallv") X(IALLTOALLW, "MPI_Ialltoallw") X(IREDUCE_SCATTER, "MPI_Ireduce_scatter")          \
  X(IREDUCE_SCATTER_BLOCK, "MPI_Ireduce_scatter_block") X(ISCAN, "MPI_Iscan") X(IEXSCAN, "MPI_Iexscan")    \
  X(BARRIER_INIT, "MPI_Barrier_init") X(BCAST_INIT, "MPI_Bcast_init") X(REDUCE_INIT, "MPI_Reduce_init")              \
  X(ALLREDUCE_INIT, "MPI_Allreduce_init") X(GATHER_INIT, "MPI_Gather_init") X(GATHERV_INIT, "MPI_Gatherv_init")      \
  X(SCATTER_INIT, "MPI_Scatter_init") X(SCATTERV_INIT, "MPI_Scatterv_init")                                          \
  X(ALLGATHER_INIT, "MPI_Allgather_init") X(ALLGATHERV_INIT, "MPI_Allgatherv_init")                                  \
  X(ALLTOALL_INIT, "MPI_Alltoall_init") X(ALLTOALLV_INIT, "MPI_Alltoallv_init")                                      \
  X(ALLTOALLW_INIT, "MPI_Alltoallw_init") X(REDUCE_SCATTER_INIT, "MPI_Reduce_scatter_init")                          \
  X(REDUCE_SCATTER_BLOCK_INIT, "MPI_Reduce_scatter_block_init") X(SCAN_INIT, "MPI_Scan_init")                        \
  X(EXSCAN_INIT, "MPI_Exscan_init")

#define RECORD_COLL_ID(ID, NAME) RECORD_COLL_##ID,
enum { RECORD_COLLECTIVES(RECORD_COLL_ID) RECORD_NCOLL };
#undef RECORD_COLL_ID

/* The blocking collective an id is a form of (MPI_Ibcast's and MPI_Bcast_init's is MPI_Bcast's): the three
 * forms are listed in the same order. */
static inline int mpitaskmap_record_coll_base(int which)
{
  return which >= RECORD_COLL_BARRIER_INIT ? which - RECORD_COLL_BARRIER_INIT
         : which >= RECORD_COLL_IBARRIER   ? which - RECORD_COLL_IBARRIER
                                           : which;
}

/* One collective call on comm returned rc (the _c forms count under the same name).  which: an
 * RECORD_COLL_* id.  root: the root argument (rooted collectives; MPI_ROOT / MPI_PROC_NULL on an
 * intercommunicator), else ignored.  in_place: the send buffer (the receive buffer for MPI_Scatter(v))
 * was MPI_IN_PLACE (the Fortran caller compares with its own MPI_IN_PLACE).  The rest are the call's
 * arguments by role, NULL / 0 / MPI_DATATYPE_NULL where the call has none; for each array the int form
 * or the MPI_Count one (_c calls):
 *   Bcast, Reduce, Allreduce, Scan, Exscan (and their I- forms): scount = count, stype = datatype;
 *   Gather, Scatter, Allgather, Alltoall: scount, stype, rcount, rtype;
 *   Gatherv: scount, stype, rcounts, rtype; Allgatherv: the same;
 *   Scatterv: scounts, stype, rcount, rtype;   Alltoallv: scounts, stype, rcounts, rtype;
 *   Alltoallw: scounts, stypes, rcounts, rtypes;
 *   Reduce_scatter: rcounts, stype = datatype;   Reduce_scatter_block: rcount, stype = datatype.
 * The bytes this rank contributes (n = the group's size, the remote group's for an intercommunicator):
 *   Barrier 0;  Bcast: the root count x type, others 0;  Reduce, Allreduce, Scan, Exscan: count x type
 *   (on an intercommunicator the root group's ranks contribute 0);  Reduce_scatter: sum(rcounts) x type;
 *   Reduce_scatter_block: n x rcount x type;  Gather(v), Allgather(v): scount x stype (in place: the
 *   rank's own block of the receive arguments; a Gather's root group on an intercommunicator: 0);
 *   Scatter: the root n x scount x stype, others 0;  Scatterv: the root sum(scounts) x stype;
 *   Alltoall: n x scount x stype;  Alltoallv: sum(scounts) x stype;  Alltoallw: sum(scounts[i] x
 *   stypes[i]) (in place: the receive arguments). */
RECORD_INTERNAL void mpitaskmap_record_note_collective(int rc, MPI_Comm comm, int which, int root,
                                                                  int in_place, MPI_Count scount, MPI_Datatype stype,
                                                                  const int* scounts, const MPI_Count* scounts_c,
                                                                  const MPI_Datatype* stypes, MPI_Count rcount,
                                                                  MPI_Datatype rtype, const int* rcounts,
                                                                  const MPI_Count* rcounts_c,
                                                                  const MPI_Datatype* rtypes);

/* A persistent collective's MPI_*_init made req (which: an RECORD_COLL_*_INIT id, the rest as above): the same
 * figures, counted at each start of req. */
RECORD_INTERNAL void mpitaskmap_record_note_collective_init(int rc, MPI_Request req, MPI_Comm comm, int which,
                                                            int root, int in_place, MPI_Count scount,
                                                            MPI_Datatype stype, const int* scounts,
                                                            const MPI_Count* scounts_c, const MPI_Datatype* stypes,
                                                            MPI_Count rcount, MPI_Datatype rtype, const int* rcounts,
                                                            const MPI_Count* rcounts_c, const MPI_Datatype* rtypes);

#endif
