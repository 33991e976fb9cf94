/* Fake IBM Blue Gene/Q MPIX extensions for tests/providers/test_providers.py (built into a fake
 * libmpi at test time).
 *
 * Real prototypes (mpix.h of the MPICH pamid device, IBM; public MPICH history):
 *   int MPIX_Torus_ndims(int *numdim);
 *       "This does NOT include the core+thread ID" (one pamid version returns the PAMI
 *       info->dims instead; -DFAKE_NDIMS=6 imitates a count that includes T).
 *   int MPIX_Rank2torus(int rank, int *coords);
 *       "An array of size hw.torus_dimensions+1. The last element of the returned array
 *       is the core+thread ID".
 *   int MPIX_Torus2rank(int *coords, int *rank);
 * MPIX_Hardware(MPIX_Hardware_t *) is deliberately absent: mpitaskmap does not use it.
 *
 * Machine: block A x B x C x D x E = 2 x 2 x 4 x 2 x 2 (64 nodes), T = 4 ranks per
 * node, ranks in ABCDET order (T fastest), i.e. rank = ((((a*2+b)*4+c)*2+d)*2+e)*4+t.
 * Ranks outside [0, 256) fail with 1.  -DFAKE_WRITE_EXTRA writes one int too many.
 */

#ifndef FAKE_NDIMS
#define FAKE_NDIMS 5
#endif

static const int shape[6] = {2, 2, 4, 2, 2, 4};

int MPIX_Torus_ndims(int *numdim)
{
    *numdim = FAKE_NDIMS;
    return 0;
}

int MPIX_Rank2torus(int rank, int *coords)
{
    if (rank < 0 || rank >= 256)
        return 1;
    for (int i = 5; i >= 0; i--) {
        coords[i] = rank % shape[i];
        rank /= shape[i];
    }
#ifdef FAKE_WRITE_EXTRA
    coords[6] = 0;
#endif
    return 0;
}

int MPIX_Torus2rank(int *coords, int *rank)
{
    int r = 0;
    for (int i = 0; i < 6; i++) {
        if (coords[i] < 0 || coords[i] >= shape[i])
            return 1;
        r = r * shape[i] + coords[i];
    }
    *rank = r;
    return 0;
}
