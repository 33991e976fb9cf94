/* Ping-pong between ranks 0 and 1 for the recorder-overhead benchmark (benchmarks/recorder_overhead.py).
 *
 *     pingpong ITERS REPS SIZE [SIZE ...]
 *
 * For each message size (bytes), after ITERS / 10 untimed round trips (connections made, buffers
 * touched), REPS times: a barrier, then ITERS round trips timed with MPI_Wtime on
 * rank 0 (MPI_Send of SIZE bytes to rank 1, MPI_Recv of its reply); rank 0 prints one line per
 * repetition
 *
 *     pingpong size=SIZE iters=ITERS seconds=T
 *
 * with T the loop's time divided by ITERS (seconds per round trip).  Sizes above 1 KiB run fewer round
 * trips (ITERS * 1024 / SIZE, at least ITERS / 64 and 1) so that each size takes about as long.  Ranks other
 * than 0 and 1 only take part in the barriers.  Time inside the program, not the process: start-up, the
 * recorder's merge at MPI_Finalize and the launcher stay out of the figure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: pingpong ITERS REPS SIZE [SIZE ...] (at least 2 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long iters = atol(argv[1]);
  int reps = atoi(argv[2]);
  long largest = 0;
  for (int a = 3; a < argc; a++)
    largest = atol(argv[a]) > largest ? atol(argv[a]) : largest;
  char *buf = NULL; /* page-aligned: the variants' different heaps must not move the buffer's alignment */
  if (posix_memalign((void **)&buf, 4096, (size_t)largest + 1))
    MPI_Abort(MPI_COMM_WORLD, 3);
  memset(buf, rank, (size_t)largest + 1);
  for (int a = 3; a < argc; a++) {
    long bytes = atol(argv[a]);
    long n = bytes > 1024 ? iters * 1024 / bytes : iters;
    if (n < iters / 64)
      n = iters / 64;
    if (n < 1)
      n = 1;
    for (int r = -1; r < reps; r++) { /* r = -1: the warm-up, n / 10 round trips, not printed */
      long loops = r < 0 ? n / 10 + 1 : n;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (long i = 0; i < loops; i++) {
        if (rank == 0) {
          MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      }
      double t = (MPI_Wtime() - t0) / (double)n;
      if (rank == 0 && r >= 0)
        printf("pingpong size=%ld iters=%ld seconds=%.9e\n", bytes, n, t);
    }
  }
  fflush(stdout);
  free(buf);
  MPI_Finalize();
  return 0;
}
