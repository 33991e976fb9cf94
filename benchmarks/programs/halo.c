/* A 3-D halo exchange for the recorder-overhead benchmark (benchmarks/recorder_overhead.py).
 *
 *     halo ITERS REPS SIZE [SIZE ...]
 *
 * The ranks form a periodic PX x PY x PZ grid (MPI_Dims_create, rank = (x * PY + y) * PZ + z, computed
 * here: no MPI_Cart_create, which the preloaded library would hand to its mapping hook).  For each message
 * size (bytes), after ITERS / 10 untimed steps, REPS times: a barrier, then ITERS steps timed with
 * MPI_Wtime, each step an MPI_Irecv
 * from and an MPI_Isend of SIZE bytes to both neighbours in every dimension (6 of each), then
 * MPI_Waitall.  Rank 0 prints one line per repetition,
 *
 *     halo size=SIZE iters=ITERS seconds=T
 *
 * with T the slowest rank's loop time (MPI_Reduce of the maximum) divided by ITERS: seconds per step.
 * Sizes above 1 KiB run fewer steps (ITERS * 1024 / SIZE, at least ITERS / 64 and 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  int rank, size, dims[3] = {0, 0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0)
      fprintf(stderr, "usage: halo ITERS REPS SIZE [SIZE ...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long iters = atol(argv[1]);
  int reps = atoi(argv[2]);
  MPI_Dims_create(size, 3, dims);
  int c[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
  int peer[6];
  for (int d = 0; d < 3; d++)
    for (int s = 0; s < 2; s++) {
      int q[3] = {c[0], c[1], c[2]};
      q[d] = (q[d] + (s ? 1 : dims[d] - 1)) % dims[d];
      peer[2 * d + s] = (q[0] * dims[1] + q[1]) * dims[2] + q[2];
    }
  long largest = 0;
  for (int a = 3; a < argc; a++)
    largest = atol(argv[a]) > largest ? atol(argv[a]) : largest;
  char *out = NULL, *in = NULL; /* page-aligned: the variants' different heaps must not move them */
  if (posix_memalign((void **)&out, 4096, 6 * ((size_t)largest + 1)) ||
      posix_memalign((void **)&in, 4096, 6 * ((size_t)largest + 1)))
    MPI_Abort(MPI_COMM_WORLD, 3);
  memset(out, rank, 6 * ((size_t)largest + 1));
  for (int a = 3; a < argc; a++) {
    long bytes = atol(argv[a]);
    long n = bytes > 1024 ? iters * 1024 / bytes : iters;
    if (n < iters / 64)
      n = iters / 64;
    if (n < 1)
      n = 1;
    for (int r = -1; r < reps; r++) { /* r = -1: the warm-up, n / 10 steps, not printed */
      MPI_Request req[12];
      long loops = r < 0 ? n / 10 + 1 : n;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (long i = 0; i < loops; i++) {
        for (int k = 0; k < 6; k++) /* the message from the -1 neighbour was sent to its +1 side */
          MPI_Irecv(in + k * bytes, (int)bytes, MPI_BYTE, peer[k], k ^ 1, MPI_COMM_WORLD, &req[k]);
        for (int k = 0; k < 6; k++)
          MPI_Isend(out + k * bytes, (int)bytes, MPI_BYTE, peer[k], k, MPI_COMM_WORLD, &req[6 + k]);
        MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
      }
      double t = MPI_Wtime() - t0, slowest = 0;
      MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0 && r >= 0)
        printf("halo size=%ld iters=%ld seconds=%.9e\n", bytes, n, slowest / (double)n);
    }
  }
  fflush(stdout);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
