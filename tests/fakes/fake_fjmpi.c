/* Fake Fujitsu MPI rank inquiry for tests/providers/test_fjmpi.py (built at test time).
 *
 * Real prototype (mpi-ext.h of Fujitsu MPI; the Fugaku user guide, "Rank inquiry functions"):
 *   int FJMPI_Topology_get_coords(MPI_Comm comm, int rank, int view, int maxdims, int *coords);
 * view FJMPI_LOGICAL (the 1-3 dimensional logical shape), FJMPI_TOFU_SYS (the 6-D Tofu
 * coordinate x, y, z, a, b, c of the rank's node) or FJMPI_TOFU_REL (the same relative to the
 * job's origin).  Their values are not public; as mpitaskmap/providers/fjmpi.py assumes,
 * this fake takes 0, 1, 2.  Returns 0 (FJMPI_SUCCESS) or an error code.
 *
 * MPI_Comm is FAKE_COMM_T (build with -DFAKE_COMM_T=int for MPICH's int handles, or
 * -D'FAKE_COMM_T=void *' for pointer handles); when FAKE_FJMPI_WORLD (environment) holds
 * MPI_COMM_WORLD's handle, any other comm fails with 2 (an invalid communicator).
 *
 * Machine: FAKE_FJMPI_PPN ranks per node (environment, default 2), node k = rank / ppn,
 * ranks 0 .. 48 * ppn - 1.  Within a Tofu unit, u = k % 12: c = u % 2, b = u / 2 % 3,
 * a = u / 6; unit w = k / 12: x = 1 + w % 2, y = 2, z = w / 2.  FAKE_FJMPI_FAIL=1 makes every
 * call fail with 1 (a process whose library cannot answer); an unknown view fails with 3;
 * the Tofu views with maxdims other than 6 fail with 4; a rank out of range fails with 5.
 * Build with -DFAKE_BAD_UNIT to answer b = 3, outside the Tofu unit.
 */
#include <stdint.h>
#include <stdlib.h>

#ifndef FAKE_COMM_T
#define FAKE_COMM_T int
#endif

enum { FAKE_LOGICAL = 0, FAKE_TOFU_SYS = 1, FAKE_TOFU_REL = 2 };

int FJMPI_Topology_get_coords(FAKE_COMM_T comm, int rank, int view, int maxdims, int *coords)
{
    const char *fail = getenv("FAKE_FJMPI_FAIL");
    const char *world = getenv("FAKE_FJMPI_WORLD");
    const char *ppn_text = getenv("FAKE_FJMPI_PPN");
    int ppn = (ppn_text && ppn_text[0]) ? atoi(ppn_text) : 2;
    if (fail && fail[0] == '1')
        return 1;
    if (world && world[0] && (uintptr_t)comm != (uintptr_t)strtoull(world, NULL, 0))
        return 2;
    if (ppn < 1 || rank < 0 || rank >= 48 * ppn)
        return 5;
    if (view == FAKE_LOGICAL) {
        if (maxdims < 1)
            return 4;
        coords[0] = rank;
        return 0;
    }
    if (view != FAKE_TOFU_SYS && view != FAKE_TOFU_REL)
        return 3;
    if (maxdims != 6)
        return 4;
    int k = rank / ppn, u = k % 12, w = k / 12;
    coords[0] = 1 + w % 2 - (view == FAKE_TOFU_REL ? 1 : 0);
    coords[1] = view == FAKE_TOFU_REL ? 0 : 2;
    coords[2] = w / 2;
    coords[3] = u / 6;
    coords[4] = u / 2 % 3;
    coords[5] = u % 2;
#ifdef FAKE_BAD_UNIT
    coords[4] = 3; /* a b outside the Tofu unit's ring of 3 */
#endif
    return 0;
}
