/* halo3d: a MiniGhost-like 3-D 7-point halo exchange (C, MPI only).
 *
 * The ranks form a PX x PY x PZ task grid numbered as mpitaskmap's TaskGraph.stencil
 * numbers tasks: rank r is task (x, y, z) with x = r % PX, y = (r / PX) % PY,
 * z = r / (PX * PY), x fastest.  Every rank owns NX x NY x NZ cells of NVARS variables
 * (doubles).  A step sends every face (one message per face and step, all variables
 * packed: NVARS * face cells doubles) to the neighbour across it (no wrap-around, as
 * MiniGhost's default boundary), receives the neighbours' faces into the ghost layers,
 * checks them, and applies a 7-point average to the interior.  The time spent in the
 * exchange (post, wait) is summed over the steps; the program prints the largest sum
 * over the ranks.
 *
 * build:  smpicc -O2 examples/halo3d.c -o halo3d     (or mpicc for a real machine; the source is
 *         also C++, as SST/macro's sst++ compiles it: benchmarks/harness/sstmacro.py)
 * run:    smpirun -np 64 -platform P.xml -hostfile H --cfg=smpi/simulate-computation:no \
 *             ./halo3d 4 4 4 8 8 8 5 10
 *         (PX PY PZ NX NY NZ NVARS STEPS; PX*PY*PZ must equal the number of ranks)
 * prints: "halo3d ranks 64 grid 4x4x4 cells 8x8x8 vars 5 steps 10"
 *         "halo check ok"
 *         "max_comm_time 1.234567e-04"   (seconds, the largest over the ranks)
 *
 * Cartesian mode: halo3d --cart PX PY PZ NX NY NZ NVARS STEPS
 *   builds the grid with MPI_Cart_create(MPI_COMM_WORLD, 3, {PZ, PY, PX}, {0, 0, 0},
 *   reorder = 1) (row-major, so the last dimension, x, is the fastest: with MPI's own
 *   identity order every rank plays the same task as without --cart), takes its task
 *   (x, y, z) from MPI_Cart_coords of its new rank and its face neighbours from
 *   MPI_Cart_shift, and exchanges on the Cartesian communicator.  Under mpitaskmap's PMPI
 *   library (LD_PRELOAD=$(mpitaskmap --pmpi-lib)) the reordering is mpitaskmap.create_cart's.
 *   Rank 0 also prints, before the lines above, the order it got: the new rank of every
 *   MPI_COMM_WORLD rank, "cart_order 0 1 2 ..." (the identity when nothing reordered).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDX(i, j, k) (((size_t)(k) * (ny + 2) + (size_t)(j)) * (nx + 2) + (size_t)(i))

static long parse(const char* s, const char* what, int rank)
{
  char* end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < 1) {
    if (rank == 0)
      fprintf(stderr, "halo3d: %s must be a positive integer; got '%s'\n", what, s);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return v;
}

/* Value a rank writes into cell (i, j, k) of variable v of its block: the ghost check
 * recomputes it from the neighbour's rank and the global cell position. */
static double cell_value(long gx, long gy, long gz, int v)
{
  return (double)((gx * 7 + gy * 13 + gz * 29) % 1000) + 1000.0 * v;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int cart = argc > 1 && strcmp(argv[1], "--cart") == 0;
  if (cart) { /* the arguments after the flag, as without it */
    argv++;
    argc--;
  }
  if (argc != 9) {
    if (rank == 0)
      fprintf(stderr, "usage: halo3d [--cart] PX PY PZ NX NY NZ NVARS STEPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long px = parse(argv[1], "PX", rank), py = parse(argv[2], "PY", rank), pz = parse(argv[3], "PZ", rank);
  const long nx = parse(argv[4], "NX", rank), ny = parse(argv[5], "NY", rank), nz = parse(argv[6], "NZ", rank);
  const int nvars = (int)parse(argv[7], "NVARS", rank);
  const long steps = parse(argv[8], "STEPS", rank);
  if (px * py * pz != size) {
    if (rank == 0)
      fprintf(stderr, "halo3d: the task grid %ldx%ldx%ld has %ld tasks; got %d ranks\n", px, py, pz, px * py * pz, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long x = rank % px, y = (rank / px) % py, z = rank / (px * py);
  MPI_Comm comm = MPI_COMM_WORLD; /* the communicator of the exchange: the Cartesian one with --cart */
  if (cart) {
    int dims[3] = {(int)pz, (int)py, (int)px}, periods[3] = {0, 0, 0}, c[3], cart_rank;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &comm);
    MPI_Comm_rank(comm, &cart_rank);
    MPI_Cart_coords(comm, cart_rank, 3, c);
    z = c[0], y = c[1], x = c[2];
    int* order = rank == 0 ? (int*)malloc(sizeof(int) * (size_t)size) : NULL;
    MPI_Gather(&cart_rank, 1, MPI_INT, order, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("cart_order");
      for (int r = 0; r < size; r++)
        printf(" %d", order[r]);
      printf("\n");
      free(order);
    }
  }
  const size_t block = (size_t)(nx + 2) * (ny + 2) * (nz + 2);
  double* grid = (double*)calloc(block * nvars, sizeof(double));
  double* next = (double*)calloc(block * nvars, sizeof(double));

  /* Faces: 0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+. */
  const long face_cells[6] = {ny * nz, ny * nz, nx * nz, nx * nz, nx * ny, nx * ny};
  const int dx[6] = {-1, 1, 0, 0, 0, 0}, dy[6] = {0, 0, -1, 1, 0, 0}, dz[6] = {0, 0, 0, 0, -1, 1};
  int neighbour[6];
  double *sendbuf[6], *recvbuf[6];
  for (int f = 0; f < 6; f++) {
    long qx = x + dx[f], qy = y + dy[f], qz = z + dz[f];
    int inside = qx >= 0 && qx < px && qy >= 0 && qy < py && qz >= 0 && qz < pz;
    neighbour[f] = inside ? (int)(qx + px * (qy + py * qz)) : MPI_PROC_NULL;
    if (cart) { /* faces 2k, 2k + 1: the -1, +1 neighbours along x (Cartesian dimension 2), y (1), z (0) */
      int source, dest;
      MPI_Cart_shift(comm, 2 - f / 2, 1, &source, &dest);
      neighbour[f] = f % 2 ? dest : source;
    }
    sendbuf[f] = (double*)malloc(sizeof(double) * face_cells[f] * nvars);
    recvbuf[f] = (double*)malloc(sizeof(double) * face_cells[f] * nvars);
  }
  for (int v = 0; v < nvars; v++)
    for (long k = 1; k <= nz; k++)
      for (long j = 1; j <= ny; j++)
        for (long i = 1; i <= nx; i++)
          grid[v * block + IDX(i, j, k)] = cell_value(x * nx + i - 1, y * ny + j - 1, z * nz + k - 1, v);

  double comm_time = 0.0;
  int bad = 0;
  for (long s = 0; s < steps; s++) {
    /* Pack the six faces (the first and last interior layers). */
    for (int f = 0; f < 6; f++) {
      size_t n = 0;
      for (int v = 0; v < nvars; v++) {
        const double* g = grid + v * block;
        if (f < 2) {
          long i = f == 0 ? 1 : nx;
          for (long k = 1; k <= nz; k++)
            for (long j = 1; j <= ny; j++)
              sendbuf[f][n++] = g[IDX(i, j, k)];
        } else if (f < 4) {
          long j = f == 2 ? 1 : ny;
          for (long k = 1; k <= nz; k++)
            for (long i = 1; i <= nx; i++)
              sendbuf[f][n++] = g[IDX(i, j, k)];
        } else {
          long k = f == 4 ? 1 : nz;
          for (long j = 1; j <= ny; j++)
            for (long i = 1; i <= nx; i++)
              sendbuf[f][n++] = g[IDX(i, j, k)];
        }
      }
    }
    MPI_Request req[12];
    double t0 = MPI_Wtime();
    for (int f = 0; f < 6; f++) /* my face f is the neighbour's face f ^ 1 */
      MPI_Irecv(recvbuf[f], (int)(face_cells[f] * nvars), MPI_DOUBLE, neighbour[f], f ^ 1, comm, &req[f]);
    for (int f = 0; f < 6; f++)
      MPI_Isend(sendbuf[f], (int)(face_cells[f] * nvars), MPI_DOUBLE, neighbour[f], f, comm, &req[6 + f]);
    MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
    comm_time += MPI_Wtime() - t0;

    /* Unpack into the ghost layers; on the first step check them against the sender's values. */
    for (int f = 0; f < 6; f++) {
      if (neighbour[f] == MPI_PROC_NULL)
        continue;
      size_t n = 0;
      for (int v = 0; v < nvars; v++) {
        double* g = grid + v * block;
        if (f < 2) {
          long i = f == 0 ? 0 : nx + 1;
          for (long k = 1; k <= nz; k++)
            for (long j = 1; j <= ny; j++) {
              g[IDX(i, j, k)] = recvbuf[f][n++];
              if (s == 0 && g[IDX(i, j, k)] != cell_value(x * nx + i - 1, y * ny + j - 1, z * nz + k - 1, v))
                bad++;
            }
        } else if (f < 4) {
          long j = f == 2 ? 0 : ny + 1;
          for (long k = 1; k <= nz; k++)
            for (long i = 1; i <= nx; i++) {
              g[IDX(i, j, k)] = recvbuf[f][n++];
              if (s == 0 && g[IDX(i, j, k)] != cell_value(x * nx + i - 1, y * ny + j - 1, z * nz + k - 1, v))
                bad++;
            }
        } else {
          long k = f == 4 ? 0 : nz + 1;
          for (long j = 1; j <= ny; j++)
            for (long i = 1; i <= nx; i++) {
              g[IDX(i, j, k)] = recvbuf[f][n++];
              if (s == 0 && g[IDX(i, j, k)] != cell_value(x * nx + i - 1, y * ny + j - 1, z * nz + k - 1, v))
                bad++;
            }
        }
      }
    }
    /* 7-point average of the interior (ghosts outside the domain stay as they are). */
    for (int v = 0; v < nvars; v++) {
      const double* g = grid + v * block;
      double* o = next + v * block;
      memcpy(o, g, sizeof(double) * block);
      for (long k = 1; k <= nz; k++)
        for (long j = 1; j <= ny; j++)
          for (long i = 1; i <= nx; i++)
            o[IDX(i, j, k)] = (g[IDX(i, j, k)] + g[IDX(i - 1, j, k)] + g[IDX(i + 1, j, k)] + g[IDX(i, j - 1, k)] +
                               g[IDX(i, j + 1, k)] + g[IDX(i, j, k - 1)] + g[IDX(i, j, k + 1)]) / 7.0;
    }
    double* tmp = grid;
    grid = next;
    next = tmp;
  }

  double max_comm = 0.0;
  int total_bad = 0;
  MPI_Reduce(&comm_time, &max_comm, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("halo3d ranks %d grid %ldx%ldx%ld cells %ldx%ldx%ld vars %d steps %ld\n", size, px, py, pz, nx, ny, nz,
           nvars, steps);
    if (total_bad)
      printf("halo check FAILED: %d ghost values differ from their owner's\n", total_bad);
    else
      printf("halo check ok\n");
    printf("max_comm_time %.9e\n", max_comm);
  }
  for (int f = 0; f < 6; f++) {
    free(sendbuf[f]);
    free(recvbuf[f]);
  }
  free(grid);
  free(next);
  if (cart)
    MPI_Comm_free(&comm);
  MPI_Finalize();
  return total_bad ? 1 : 0;
}
