/* Known point-to-point patterns for the traffic recorder (MPITASKMAP_RECORD, tests/runtime/
 * test_pmpi_recorder.py computes the matrix each must give).  P = the size of MPI_COMM_WORLD, r = the rank.
 *
 *   traffic ring          r sends (r + 1) ints to (r + 1) % P four times: MPI_Isend, MPI_Send,
 *                         MPI_Ssend, MPI_Sendrecv (P even)
 *   traffic halo PX PY PZ STEPS [reorder]
 *                         a periodic PX x PY x PZ MPI_Cart_create grid (reorder = 0, row-major ranks);
 *                         each step, each rank sends to its two neighbours in dimension d a face of
 *                         F_d doubles (F_0 = 6, F_1 = 10, F_2 = 15), MPI_Isend / MPI_Irecv on the grid.
 *                         "reorder": MPI_Cart_create with reorder = 1, and rank 0 prints
 *                         "order C_0 ... C_{P-1}", the grid rank of each world rank
 *   traffic transpose     r sends (1 + r + 2 j) ints to every j != r (MPI_Isend, MPI_Waitall)
 *   traffic persistent    MPI_Send_init of (r + 1) doubles to (r + 1) % P, started 2 times with
 *                         MPI_Start and 3 times with MPI_Startall; a second MPI_Ssend_init to
 *                         (r + 2) % P never started; both freed (P even, >= 4)
 *   traffic pcontrol      MPI_Pcontrol(0); 5 sends to (r + 1) % P; MPI_Pcontrol(-1) and (2) (levels
 *                         that neither pause nor resume); MPI_Pcontrol(1); 3 sends of (r + 1) ints to
 *                         (r - 1) % P; MPI_Pcontrol(0); 2 sends to (r + 1) % P: only the 3 are
 *                         recorded.  MPI_COMM_WORLD carries an attribute whose copy callback
 *                         prints "copied" (the recorder must not duplicate MPI_COMM_WORLD)
 *   traffic split         MPI_Comm_split(color r % 2, key -r): rank s of each half sends (r + 1)
 *                         ints to rank (s + 1) % size of its half; an intercommunicator between the
 *                         halves: every rank sends r + 100 chars to remote rank 0; the halves freed,
 *                         MPI_Comm_dup(MPI_COMM_WORLD): r sends 1 int to (r + 1) % P on it
 *   traffic mpi4          MPI 4 only: r sends (r + 1) ints to (r + 1) % P once with each of
 *                         MPI_Send_c, MPI_Isend_c, MPI_Ssend_c, MPI_Send_init_c (+ MPI_Start),
 *                         MPI_Sendrecv_c, MPI_Isendrecv, and 5 ints with each of MPI_Sendrecv_replace_c
 *                         and MPI_Isendrecv_replace_c (whose count is the receive's too): 8 messages
 *   traffic threads       MPI_Init_thread(MPI_THREAD_MULTIPLE); 4 threads each send 500 messages of
 *                         (r + 1) ints to (r + 1) % P (MPI_Send, their own tag) and receive as many
 *                         from (r - 1) % P, all at once (built with -pthread; aborts where the MPI
 *                         does not provide MPI_THREAD_MULTIPLE)
 *   traffic onesided      a window of 1 KiB per rank (disp_unit 1) on MPI_Comm_split(MPI_COMM_WORLD, 0, -r),
 *                         whose rank s is world rank P - 1 - s; every rank targets rank (s + 1) % P of it,
 *                         world rank L = (r - 1) % P.  Between fences: MPI_Put of (r + 1) doubles,
 *                         MPI_Get of 3 ints, MPI_Accumulate of 2 doubles, MPI_Get_accumulate of 4 ints
 *                         (result 4 ints), MPI_Get_accumulate of MPI_NO_OP (result 5 ints),
 *                         MPI_Fetch_and_op of an int64, MPI_Compare_and_swap of an int, and a MPI_Put to
 *                         MPI_PROC_NULL; then MPI_Pcontrol(0), a MPI_Put of 9 doubles, MPI_Pcontrol(1);
 *                         then under MPI_Win_lock_all: MPI_Rput of a double, MPI_Rget of 2 doubles,
 *                         MPI_Raccumulate of an int, MPI_Rget_accumulate of an int (result an int)
 *   traffic neighbor      a 3-D Cartesian grid (P/2, 2, 1), periods (1, 0, 1), reorder = 0: with r + 1
 *                         ints MPI_Neighbor_allgather, 2 doubles a block MPI_Neighbor_alltoall, block i
 *                         of i + 1 ints MPI_Ineighbor_alltoallv, block i one int (dimension i / 2 even) or
 *                         one double (odd) MPI_Neighbor_alltoallw, 3 chars MPI_Neighbor_allgatherv; an
 *                         MPI_Ineighbor_allgather of 50 ints between MPI_Pcontrol(0) and (1); where the
 *                         MPI has them (MPI 4, Open MPI 5) MPI_Neighbor_alltoall_init of an int a block,
 *                         started twice.  A distributed graph (r -> r + 1, r + 3; reorder 0):
 *                         MPI_Neighbor_alltoallv of 5 and 7 ints, MPI_Ineighbor_allgather of a double.
 *                         A graph (MPI_Graph_create, ring: r's neighbours r - 1, r + 1): MPI_Neighbor_allgather
 *                         of 2 ints
 *   traffic collectives   on MPI_COMM_WORLD: MPI_Barrier, MPI_Bcast (root 0, 10 ints), MPI_Allreduce
 *                         (3 doubles, then 3 in place), MPI_Reduce (root 1, 2 ints), MPI_Gather (root 0
 *                         in place, 1 int), MPI_Scatter (root 0, 2 ints each), MPI_Allgather (a double),
 *                         MPI_Alltoall (an int each), MPI_Alltoallv (i + 1 ints to i), MPI_Alltoallw (an
 *                         int each), MPI_Reduce_scatter_block (an int each), MPI_Reduce_scatter (an int
 *                         each), MPI_Scan and MPI_Exscan (an int), MPI_Iallreduce (5 ints), MPI_Ibcast
 *                         (root P - 1, 3 doubles), MPI_Gatherv (root 0, r + 1 ints), MPI_Scatterv (root
 *                         0, i + 1 ints to i), MPI_Allgatherv (an int); between MPI_Pcontrol(0) and (1)
 *                         MPI_Barrier and MPI_Allreduce; on MPI_Comm_dup(MPI_COMM_WORLD): MPI_Allreduce
 *                         (an int); on MPI_Comm_split(color r % 2, key r): MPI_Allreduce (2 ints),
 *                         MPI_Bcast (root 0, an int); on an intercommunicator between the halves:
 *                         MPI_Bcast of 6 ints from world rank 0 (MPI_ROOT) to the odd half; on
 *                         MPI_COMM_SELF: MPI_Allreduce (an int)
 *   traffic pcollectives  persistent collectives on MPI_COMM_WORLD, where the MPI has them (MPI 4, Open
 *                         MPI 5): MPI_Allreduce_init of 4 ints started twice by MPI_Start, then with
 *                         MPI_Bcast_init (root 0, 2 doubles) twice by MPI_Startall, then once by MPI_Start
 *                         between MPI_Pcontrol(0) and (1); both freed
 *   traffic partitioned   MPI_Psend_init of 4 partitions of (r + 1) ints to (r + 1) % P (MPI_Precv_init
 *                         from (r - 1) % P), started 3 times, each partition MPI_Pready; where the MPI
 *                         has it (MPI 4, Open MPI 5)
 *   traffic large         MPI 4 only: the large-count (_c) forms of the other families: on a window of
 *                         MPI_COMM_WORLD (fences), to rank (r + 1) % P: MPI_Put_c of (r + 1) doubles,
 *                         MPI_Get_c of 2 ints, MPI_Get_accumulate_c of an int (result an int); on a 1-D
 *                         periodic grid of P (MPI_Cart_create, reorder 0): MPI_Neighbor_alltoallv_c of 1
 *                         int to (r - 1) % P and 2 to (r + 1) % P; on MPI_COMM_WORLD: MPI_Allreduce_c of
 *                         2 ints, MPI_Alltoallv_c of an int to each rank
 *   traffic errors return|fatal
 *                         "return": MPI_ERRORS_RETURN on MPI_COMM_WORLD; rank 0 makes erroneous calls
 *                         (MPI_Send to rank P, MPI_Put to rank P of a window, MPI_Bcast with root P,
 *                         MPI_Neighbor_allgather on MPI_COMM_WORLD, which has no topology) and prints
 *                         "NAME: error class CLASS" for each.  "fatal": every rank calls MPI_Bcast with
 *                         root P under MPI_ERRORS_ARE_FATAL (MPI aborts the job)
 *
 * Rank 0 prints "done MODE" at the end. */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int P, r;
static int buf_out[1 << 16], buf_in[1 << 16];

static void ring(void)
{
  int right = (r + 1) % P, left = (r + P - 1) % P, n = r + 1, m = left + 1;
  MPI_Request req;
  MPI_Isend(buf_out, n, MPI_INT, right, 0, MPI_COMM_WORLD, &req);
  MPI_Recv(buf_in, m, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int k = 0; k < 2; k++) {
    int (*send)(const void*, int, MPI_Datatype, int, int, MPI_Comm) = k ? MPI_Ssend : MPI_Send;
    if (r % 2 == 0) {
      send(buf_out, n, MPI_INT, right, 1, MPI_COMM_WORLD);
      MPI_Recv(buf_in, m, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf_in, m, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      send(buf_out, n, MPI_INT, right, 1, MPI_COMM_WORLD);
    }
  }
  MPI_Sendrecv(buf_out, n, MPI_INT, right, 2, buf_in, m, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void halo(int px, int py, int pz, int steps, int reorder)
{
  int dims[3] = {px, py, pz}, periods[3] = {1, 1, 1}, face[3] = {6, 10, 15};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, reorder, &cart);
  if (reorder) {
    int c, *order = malloc(sizeof(int) * (size_t)P);
    MPI_Comm_rank(cart, &c);
    MPI_Gather(&c, 1, MPI_INT, order, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (r == 0) {
      printf("order");
      for (int i = 0; i < P; i++)
        printf(" %d", order[i]);
      printf("\n");
    }
    free(order);
  }
  static double out[6][16], in[6][16];
  for (int s = 0; s < steps; s++) {
    MPI_Request req[12];
    int k = 0;
    for (int d = 0; d < 3; d++) {
      int lo, hi;
      MPI_Cart_shift(cart, d, 1, &lo, &hi);
      MPI_Irecv(in[2 * d], face[d], MPI_DOUBLE, lo, d, cart, &req[k++]);
      MPI_Irecv(in[2 * d + 1], face[d], MPI_DOUBLE, hi, 10 + d, cart, &req[k++]);
      MPI_Isend(out[2 * d], face[d], MPI_DOUBLE, hi, d, cart, &req[k++]);
      MPI_Isend(out[2 * d + 1], face[d], MPI_DOUBLE, lo, 10 + d, cart, &req[k++]);
    }
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
  }
  MPI_Comm_free(&cart);
}

static void transpose(void)
{
  MPI_Request* req = malloc(sizeof(MPI_Request) * 2 * (size_t)P);
  int* in = malloc(sizeof(int) * (size_t)P * (size_t)(3 * P + 1));
  int k = 0;
  for (int j = 0; j < P; j++)
    if (j != r) {
      MPI_Irecv(in + (size_t)j * (3 * P + 1), 1 + j + 2 * r, MPI_INT, j, 0, MPI_COMM_WORLD, &req[k++]);
      MPI_Isend(buf_out, 1 + r + 2 * j, MPI_INT, j, 0, MPI_COMM_WORLD, &req[k++]);
    }
  MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
  free(in);
  free(req);
}

static void persistent(void)
{
  static double out[64], in[64], far_out[64], far_in[64];
  int right = (r + 1) % P, left = (r + P - 1) % P;
  MPI_Request req[2], unused[2];
  MPI_Send_init(out, r + 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(in, left + 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[1]);
  MPI_Ssend_init(far_out, 4, MPI_DOUBLE, (r + 2) % P, 1, MPI_COMM_WORLD, &unused[0]);
  MPI_Recv_init(far_in, 4, MPI_DOUBLE, (r + P - 2) % P, 1, MPI_COMM_WORLD, &unused[1]);
  for (int k = 0; k < 2; k++) {
    MPI_Start(&req[1]);
    MPI_Start(&req[0]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  }
  for (int k = 0; k < 3; k++) {
    MPI_Startall(2, req);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  }
  for (int k = 0; k < 2; k++) {
    MPI_Request_free(&req[k]);
    MPI_Request_free(&unused[k]);
  }
}

static int copy_said(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag)
{
  (void)comm, (void)keyval, (void)extra;
  printf("copied\n");
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void pcontrol(void)
{
  static int value = 1, keyval;
  MPI_Comm_create_keyval(copy_said, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  MPI_Request req;
  MPI_Pcontrol(0);
  for (int k = 0; k < 5; k++) {
    MPI_Isend(buf_out, 7, MPI_INT, right, 0, MPI_COMM_WORLD, &req);
    MPI_Recv(buf_in, 7, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  MPI_Pcontrol(-1);
  MPI_Pcontrol(2);
  MPI_Pcontrol(1);
  for (int k = 0; k < 3; k++) {
    MPI_Isend(buf_out, r + 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req);
    MPI_Recv(buf_in, right + 1, MPI_INT, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  MPI_Pcontrol(0);
  for (int k = 0; k < 2; k++) {
    MPI_Isend(buf_out, 9, MPI_INT, right, 2, MPI_COMM_WORLD, &req);
    MPI_Recv(buf_in, 9, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
}

static void split(void)
{
  MPI_Comm half, inter, dup;
  MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
  int s, n;
  MPI_Comm_rank(half, &s);
  MPI_Comm_size(half, &n);
  MPI_Request req;
  MPI_Isend(buf_out, r + 1, MPI_INT, (s + 1) % n, 0, half, &req);
  MPI_Recv(buf_in, sizeof buf_in / sizeof buf_in[0], MPI_INT, (s + n - 1) % n, 0, half, MPI_STATUS_IGNORE);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  /* the halves' rank 0 are world ranks P - 2 (even) and P - 1 (odd) */
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r % 2 ? P - 2 : P - 1, 5, &inter);
  MPI_Isend(buf_out, r + 100, MPI_CHAR, 0, 1, inter, &req);
  if (s == 0)
    for (int k = 0; k < n; k++)
      MPI_Recv(buf_in, sizeof buf_in, MPI_CHAR, MPI_ANY_SOURCE, 1, inter, MPI_STATUS_IGNORE);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Sendrecv(buf_out, 1, MPI_INT, (r + 1) % P, 2, buf_in, 1, MPI_INT, (r + P - 1) % P, 2, dup, MPI_STATUS_IGNORE);
  MPI_Comm_free(&dup);
}

static void mpi4(void)
{
#if MPI_VERSION >= 4
  int right = (r + 1) % P, left = (r + P - 1) % P, n = r + 1, m = left + 1;
  MPI_Request req[2];
  MPI_Irecv(buf_in, m, MPI_INT, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Send_c(buf_out, n, MPI_INT, right, 0, MPI_COMM_WORLD);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Irecv(buf_in, m, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
  MPI_Isend_c(buf_out, n, MPI_INT, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Irecv(buf_in, m, MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]);
  MPI_Ssend_c(buf_out, n, MPI_INT, right, 2, MPI_COMM_WORLD);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Irecv(buf_in, m, MPI_INT, left, 3, MPI_COMM_WORLD, &req[0]);
  MPI_Send_init_c(buf_out, n, MPI_INT, right, 3, MPI_COMM_WORLD, &req[1]);
  MPI_Start(&req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Request_free(&req[1]);
  MPI_Sendrecv_c(buf_out, n, MPI_INT, right, 4, buf_in, m, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int both[5] = {0};
  MPI_Sendrecv_replace_c(both, 5, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Isendrecv(buf_out, n, MPI_INT, right, 6, buf_in, m, MPI_INT, left, 6, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Isendrecv_replace_c(both, 5, MPI_INT, right, 7, left, 7, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
#else
  if (r == 0)
    fprintf(stderr, "traffic: mpi4 needs an MPI of version 4 or later\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
#endif
}

static void onesided(void)
{
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -r, &rev);
  int s;
  MPI_Comm_rank(rev, &s);
  int t = (s + 1) % P;
  static char base[1024];
  MPI_Win win;
  MPI_Win_create(base, sizeof base, 1, MPI_INFO_NULL, rev, &win);
  static double d[32];
  static int i[8], res[8];
  int64_t one = 1, old = 0;
  int cmp = 0, swap = 1, got = 0;
  MPI_Win_fence(0, win);
  MPI_Put(d, r + 1, MPI_DOUBLE, t, 0, r + 1, MPI_DOUBLE, win);
  MPI_Get(i, 3, MPI_INT, t, 128, 3, MPI_INT, win);
  MPI_Accumulate(d, 2, MPI_DOUBLE, t, 256, 2, MPI_DOUBLE, MPI_SUM, win);
  MPI_Get_accumulate(i + 4, 4, MPI_INT, res, 4, MPI_INT, t, 320, 4, MPI_INT, MPI_SUM, win);
  MPI_Get_accumulate(NULL, 0, MPI_INT, res, 5, MPI_INT, t, 384, 5, MPI_INT, MPI_NO_OP, win);
  MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, 448, MPI_SUM, win);
  MPI_Compare_and_swap(&swap, &cmp, &got, MPI_INT, t, 464, win);
  MPI_Put(d, 4, MPI_DOUBLE, MPI_PROC_NULL, 0, 4, MPI_DOUBLE, win);
  MPI_Win_fence(0, win);
  MPI_Pcontrol(0);
  MPI_Put(d, 9, MPI_DOUBLE, t, 0, 9, MPI_DOUBLE, win);
  MPI_Win_fence(0, win);
  MPI_Pcontrol(1);
  MPI_Win_fence(0, win);
  MPI_Request req[4];
  MPI_Win_lock_all(0, win);
  MPI_Rput(d, 1, MPI_DOUBLE, t, 512, 1, MPI_DOUBLE, win, &req[0]);
  MPI_Rget(d + 8, 2, MPI_DOUBLE, t, 520, 2, MPI_DOUBLE, win, &req[1]);
  MPI_Raccumulate(i, 1, MPI_INT, t, 544, 1, MPI_INT, MPI_SUM, win, &req[2]);
  MPI_Rget_accumulate(i + 1, 1, MPI_INT, res, 1, MPI_INT, t, 560, 1, MPI_INT, MPI_SUM, win, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Comm_free(&rev);
}

static void neighbor(void)
{
  int dims[3] = {P / 2, 2, 1}, periods[3] = {1, 0, 1};
  MPI_Comm cart, dist, graph;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  static int in[4096];
  static double dout[64];
  int counts[6], displs[6], rcounts[6], rdispls[6], wcounts[6];
  MPI_Aint wdispls[6], wrdispls[6];
  MPI_Datatype types[6];
  for (int k = 0; k < 6; k++) {
    counts[k] = k + 1, displs[k] = 8 * k, rcounts[k] = 6, rdispls[k] = 8 * k;
    wcounts[k] = 1, wdispls[k] = 8 * k, wrdispls[k] = 64 * k, types[k] = k / 2 % 2 ? MPI_DOUBLE : MPI_INT;
  }
  MPI_Neighbor_allgather(buf_out, r + 1, MPI_INT, in, 64, MPI_INT, cart);
  MPI_Neighbor_alltoall(dout, 2, MPI_DOUBLE, in, 2, MPI_DOUBLE, cart);
  MPI_Request req;
  MPI_Ineighbor_alltoallv(buf_out, counts, displs, MPI_INT, in, rcounts, rdispls, MPI_INT, cart, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Neighbor_alltoallw(dout, wcounts, wdispls, types, in, wcounts, wrdispls, types, cart);
  int gcounts[6] = {3, 3, 3, 3, 3, 3}, gdispls[6] = {0, 4, 8, 12, 16, 20};
  MPI_Neighbor_allgatherv(buf_out, 3, MPI_CHAR, in, gcounts, gdispls, MPI_CHAR, cart);
  MPI_Pcontrol(0);
  MPI_Ineighbor_allgather(buf_out, 50, MPI_INT, in, 50, MPI_INT, cart, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Pcontrol(1);
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
  MPI_Neighbor_alltoall_init(buf_out, 1, MPI_INT, in, 1, MPI_INT, cart, MPI_INFO_NULL, &req);
  for (int k = 0; k < 2; k++) {
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&req);
#endif
  MPI_Comm_free(&cart);

  int dst[2] = {(r + 1) % P, (r + 3) % P}, src[2] = {(r + P - 1) % P, (r + P - 3) % P};
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &dist);
  int dcounts[2] = {5, 7}, ddispls[2] = {0, 8}, drcounts[2] = {8, 8};
  MPI_Neighbor_alltoallv(buf_out, dcounts, ddispls, MPI_INT, in, drcounts, ddispls, MPI_INT, dist);
  MPI_Ineighbor_allgather(dout, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, dist, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Comm_free(&dist);

  int* index = malloc(sizeof(int) * (size_t)P);
  int* edges = malloc(sizeof(int) * 2 * (size_t)P);
  for (int k = 0; k < P; k++) {
    index[k] = 2 * (k + 1);
    edges[2 * k] = (k + P - 1) % P, edges[2 * k + 1] = (k + 1) % P;
  }
  MPI_Graph_create(MPI_COMM_WORLD, P, index, edges, 0, &graph);
  MPI_Neighbor_allgather(buf_out, 2, MPI_INT, in, 2, MPI_INT, graph);
  MPI_Comm_free(&graph);
  free(index), free(edges);
}

static void collectives(void)
{
  static int ibuf[4096], ibuf2[4096];
  static double dbuf[64], dbuf2[64];
  int* counts = malloc(sizeof(int) * (size_t)P);
  int* displs = malloc(sizeof(int) * (size_t)P);
  int* ones = malloc(sizeof(int) * (size_t)P);
  int* rdispls = malloc(sizeof(int) * (size_t)P);
  int* bdispls = malloc(sizeof(int) * (size_t)P);
  int* mine = malloc(sizeof(int) * (size_t)P);
  int* mdispls = malloc(sizeof(int) * (size_t)P);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)P);
  for (int k = 0, at = 0; k < P; k++) {
    counts[k] = k + 1, displs[k] = at, at += k + 1;
    mine[k] = r + 1, mdispls[k] = k * (r + 1);
    ones[k] = 1, rdispls[k] = k, bdispls[k] = 4 * k, types[k] = MPI_INT;
  }
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Barrier(w);
  MPI_Bcast(ibuf, 10, MPI_INT, 0, w);
  MPI_Allreduce(dbuf, dbuf2, 3, MPI_DOUBLE, MPI_SUM, w);
  MPI_Allreduce(MPI_IN_PLACE, dbuf, 3, MPI_DOUBLE, MPI_SUM, w);
  MPI_Reduce(ibuf, ibuf2, 2, MPI_INT, MPI_SUM, 1, w);
  MPI_Gather(r == 0 ? MPI_IN_PLACE : ibuf, 1, MPI_INT, ibuf2, 1, MPI_INT, 0, w);
  MPI_Scatter(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, 0, w);
  MPI_Allgather(dbuf, 1, MPI_DOUBLE, dbuf2, 1, MPI_DOUBLE, w);
  MPI_Alltoall(ibuf, 1, MPI_INT, ibuf2, 1, MPI_INT, w);
  MPI_Alltoallv(ibuf, counts, displs, MPI_INT, ibuf2, mine, mdispls, MPI_INT, w); /* r gets r + 1 from each */
  MPI_Alltoallw(ibuf, ones, bdispls, types, ibuf2, ones, bdispls, types, w);
  MPI_Reduce_scatter_block(ibuf, ibuf2, 1, MPI_INT, MPI_SUM, w);
  MPI_Reduce_scatter(ibuf, ibuf2, ones, MPI_INT, MPI_SUM, w);
  MPI_Scan(ibuf, ibuf2, 1, MPI_INT, MPI_SUM, w);
  MPI_Exscan(ibuf, ibuf2, 1, MPI_INT, MPI_SUM, w);
  MPI_Request req[2];
  MPI_Iallreduce(ibuf, ibuf2, 5, MPI_INT, MPI_SUM, w, &req[0]);
  MPI_Ibcast(dbuf, 3, MPI_DOUBLE, P - 1, w, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Gatherv(ibuf, r + 1, MPI_INT, ibuf2, counts, displs, MPI_INT, 0, w);
  MPI_Scatterv(ibuf, counts, displs, MPI_INT, ibuf2, r + 1, MPI_INT, 0, w);
  MPI_Allgatherv(ibuf, 1, MPI_INT, ibuf2, ones, rdispls, MPI_INT, w);
  MPI_Pcontrol(0);
  MPI_Barrier(w);
  MPI_Allreduce(ibuf, ibuf2, 7, MPI_INT, MPI_SUM, w);
  MPI_Pcontrol(1);
  MPI_Comm dup, half;
  MPI_Comm_dup(w, &dup);
  MPI_Allreduce(ibuf, ibuf2, 1, MPI_INT, MPI_SUM, dup);
  MPI_Comm_free(&dup);
  MPI_Comm_split(w, r % 2, r, &half);
  MPI_Allreduce(ibuf, ibuf2, 2, MPI_INT, MPI_SUM, half);
  MPI_Bcast(ibuf, 1, MPI_INT, 0, half);
  MPI_Comm inter; /* the halves' leaders: world ranks 0 and 1 */
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r % 2 ? 0 : 1, 7, &inter);
  MPI_Bcast(ibuf, 6, MPI_INT, r % 2 ? 0 : r == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Allreduce(ibuf, ibuf2, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
  free(counts), free(displs), free(ones), free(rdispls), free(bdispls), free(types), free(mine), free(mdispls);
}

static void partitioned(void)
{
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
  int right = (r + 1) % P, left = (r + P - 1) % P;
  MPI_Request req[2];
  MPI_Psend_init(buf_out, 4, r + 1, MPI_INT, right, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
  MPI_Precv_init(buf_in, 4, left + 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
  for (int k = 0; k < 3; k++) {
    MPI_Startall(2, req);
    for (int part = 0; part < 4; part++)
      MPI_Pready(part, req[0]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  }
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);
#else
  if (r == 0)
    fprintf(stderr, "traffic: partitioned needs MPI_Psend_init (MPI 4)\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
#endif
}

static void pcollectives(void)
{
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
  static int in[4], out[4];
  static double d[2];
  MPI_Request req[2];
  MPI_Allreduce_init(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
  MPI_Bcast_init(d, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
  for (int k = 0; k < 2; k++) {
    MPI_Start(&req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  }
  for (int k = 0; k < 2; k++) {
    MPI_Startall(2, req);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  }
  MPI_Pcontrol(0);
  MPI_Start(&req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Pcontrol(1);
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);
#else
  if (r == 0)
    fprintf(stderr, "traffic: pcollectives needs MPI_Allreduce_init (MPI 4)\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
#endif
}

static void large(void)
{
#if MPI_VERSION >= 4
  static double d[32];
  static int i[8], res[8], out[4096], in[4096];
  MPI_Win win;
  MPI_Win_create(in, 1024, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  int t = (r + 1) % P;
  MPI_Put_c(d, r + 1, MPI_DOUBLE, t, 0, r + 1, MPI_DOUBLE, win);
  MPI_Get_c(i, 2, MPI_INT, t, 256, 2, MPI_INT, win);
  MPI_Get_accumulate_c(i + 4, 1, MPI_INT, res, 1, MPI_INT, t, 512, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  int dims[1] = {P}, periods[1] = {1};
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Count counts[2] = {1, 2}, rcounts[2] = {2, 1};
  MPI_Aint displs[2] = {0, 8};
  MPI_Neighbor_alltoallv_c(out, counts, displs, MPI_INT, in, rcounts, displs, MPI_INT, ring);
  MPI_Comm_free(&ring);
  MPI_Allreduce_c(out, in, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Count* ones = malloc(sizeof(MPI_Count) * (size_t)P);
  MPI_Aint* at = malloc(sizeof(MPI_Aint) * (size_t)P);
  for (int k = 0; k < P; k++)
    ones[k] = 1, at[k] = k;
  MPI_Alltoallv_c(out, ones, at, MPI_INT, in, ones, at, MPI_INT, MPI_COMM_WORLD);
  free(ones), free(at);
#else
  if (r == 0)
    fprintf(stderr, "traffic: large needs an MPI of version 4 or later\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
#endif
}

static const char* class_of(int code)
{
  int cls;
  MPI_Error_class(code, &cls);
  static char other[32];
  snprintf(other, sizeof other, "%d", cls);
  return cls == MPI_SUCCESS ? "MPI_SUCCESS" : cls == MPI_ERR_RANK ? "MPI_ERR_RANK" : cls == MPI_ERR_ROOT ? "MPI_ERR_ROOT"
         : cls == MPI_ERR_TOPOLOGY ? "MPI_ERR_TOPOLOGY" : cls == MPI_ERR_COMM ? "MPI_ERR_COMM"
         : cls == MPI_ERR_ARG ? "MPI_ERR_ARG" : other;
}

static void errors(int fatal)
{
  int x[4] = {0};
  if (fatal) {
    MPI_Bcast(x, 1, MPI_INT, P, MPI_COMM_WORLD);
    return;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Win win;
  MPI_Win_create(x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_fence(0, win);
  if (r == 0) {
    printf("MPI_Send: error class %s\n", class_of(MPI_Send(x, 1, MPI_INT, P, 0, MPI_COMM_WORLD)));
    printf("MPI_Put: error class %s\n", class_of(MPI_Put(x, 1, MPI_INT, P, 0, 1, MPI_INT, win)));
    printf("MPI_Bcast: error class %s\n", class_of(MPI_Bcast(x, 1, MPI_INT, P, MPI_COMM_WORLD)));
    printf("MPI_Neighbor_allgather: error class %s\n",
           class_of(MPI_Neighbor_allgather(x, 1, MPI_INT, x + 1, 1, MPI_INT, MPI_COMM_WORLD)));
    fflush(stdout);
  }
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
}

#define THREADS 4
#define PER_THREAD 500

static void* one_thread(void* arg)
{
  int t = (int)(long)arg, right = (r + 1) % P, left = (r + P - 1) % P, in[64];
  for (int k = 0; k < PER_THREAD; k++) {
    MPI_Request req;
    MPI_Irecv(in, 64, MPI_INT, left, t, MPI_COMM_WORLD, &req);
    MPI_Send(buf_out, r + 1, MPI_INT, right, t, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  return NULL;
}

static void threads(void)
{
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; t++)
    pthread_create(&th[t], NULL, one_thread, (void*)t);
  for (int t = 0; t < THREADS; t++)
    pthread_join(th[t], NULL);
}

int main(int argc, char** argv)
{
  int provided = MPI_THREAD_SINGLE;
  if (argc > 1 && !strcmp(argv[1], "threads")) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "traffic: this MPI does not provide MPI_THREAD_MULTIPLE\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "ring"))
    ring();
  else if (!strcmp(mode, "halo") && (argc == 6 || (argc == 7 && !strcmp(argv[6], "reorder"))))
    halo(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), argc == 7);
  else if (!strcmp(mode, "transpose"))
    transpose();
  else if (!strcmp(mode, "persistent"))
    persistent();
  else if (!strcmp(mode, "pcontrol"))
    pcontrol();
  else if (!strcmp(mode, "split"))
    split();
  else if (!strcmp(mode, "mpi4"))
    mpi4();
  else if (!strcmp(mode, "threads"))
    threads();
  else if (!strcmp(mode, "onesided"))
    onesided();
  else if (!strcmp(mode, "neighbor"))
    neighbor();
  else if (!strcmp(mode, "collectives"))
    collectives();
  else if (!strcmp(mode, "partitioned"))
    partitioned();
  else if (!strcmp(mode, "pcollectives"))
    pcollectives();
  else if (!strcmp(mode, "large"))
    large();
  else if (!strcmp(mode, "errors") && argc == 3 && (!strcmp(argv[2], "return") || !strcmp(argv[2], "fatal")))
    errors(!strcmp(argv[2], "fatal"));
  else {
    if (r == 0)
      fprintf(stderr, "traffic: unknown mode or arguments: %s\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (r == 0)
    printf("done %s\n", mode);
  MPI_Finalize();
  return 0;
}
