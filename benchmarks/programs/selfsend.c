/* The recorder's cost per send, without a partner (benchmarks/recorder_overhead.py).
 *
 *     selfsend ITERS REPS SIZE [SIZE ...]
 *
 * Every rank (the benchmark runs one) sends SIZE bytes to itself: MPI_Isend, MPI_Recv, MPI_Wait, ITERS
 * times a loop, timed with MPI_Wtime; after ITERS / 10 untimed iterations, REPS loops per size, and rank
 * 0 prints one line per loop,
 *
 *     selfsend size=SIZE iters=ITERS seconds=T
 *
 * with T the loop's time divided by ITERS.  One process on one core: no partner to wait for, so the
 * difference between the variants is the library's own time per send (a ping-pong's round trip also
 * waits for the other rank, which a loaded machine schedules late).  Sizes above 1 KiB run fewer
 * iterations (ITERS * 1024 / SIZE, at least ITERS / 64 and 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 4) {
    if (rank == 0)
      fprintf(stderr, "usage: selfsend ITERS REPS SIZE [SIZE ...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long iters = atol(argv[1]);
  int reps = atoi(argv[2]);
  long largest = 0;
  for (int a = 3; a < argc; a++)
    largest = atol(argv[a]) > largest ? atol(argv[a]) : largest;
  char *out = NULL, *in = NULL; /* page-aligned: the variants' different heaps must not move them */
  if (posix_memalign((void **)&out, 4096, (size_t)largest + 1) || posix_memalign((void **)&in, 4096, (size_t)largest + 1))
    MPI_Abort(MPI_COMM_WORLD, 3);
  memset(out, rank, (size_t)largest + 1);
  for (int a = 3; a < argc; a++) {
    long bytes = atol(argv[a]);
    long n = bytes > 1024 ? iters * 1024 / bytes : iters;
    if (n < iters / 64)
      n = iters / 64;
    if (n < 1)
      n = 1;
    for (int r = -1; r < reps; r++) { /* r = -1: the warm-up, n / 10 iterations, not printed */
      long loops = r < 0 ? n / 10 + 1 : n;
      double t0 = MPI_Wtime();
      for (long i = 0; i < loops; i++) {
        MPI_Request req;
        MPI_Isend(out, (int)bytes, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &req);
        MPI_Recv(in, (int)bytes, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      double t = (MPI_Wtime() - t0) / (double)n;
      if (rank == 0 && r >= 0)
        printf("selfsend size=%ld iters=%ld seconds=%.9e\n", bytes, n, t);
    }
  }
  fflush(stdout);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
