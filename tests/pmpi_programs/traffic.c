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
 *
 * Rank 0 prints "done MODE" at the end. */
#include <mpi.h>
#include <pthread.h>
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
