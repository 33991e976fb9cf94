/* Fake Cray RCA library for tests/providers/test_providers.py (built at test time into librca.so.0).
 *
 * Exports the real symbol names with the signatures public callers use (no public
 * rca_lib.h was found):
 *   int rca_get_meshcoord(uint16_t nid, rca_mesh_coord_t *xyz);   returns -1 on failure
 *   int rca_get_max_dimension(rca_mesh_coord_t *dims);            extents = fields + 1
 * Sources: Trilinos Zoltan2 Zoltan2_MachineTorusRCA.hpp (rca_get_meshcoord((uint16_t)nid,
 * &node_coord), "if (returnval == -1)", extents mesh_x + 1), Charm++ src/util/CrayNid.c
 * (getMeshCoord, rca_get_max_dimension, dimsize.mesh_x + 1), MPICH topology test code.
 * rca_mesh_coord_t has fields mesh_x, mesh_y, mesh_z; their width is assumed uint16_t
 * (mpitaskmap/providers/rca.py, RCA_COORD_FIELD).  Build with -DFAKE_RCA_FIELD=uint32_t
 * to imitate a library whose struct is wider than assumed.
 *
 * Machine: max dimension (15, 7, 23) -> a 16 x 8 x 24 torus.  Nids 12 and 13 share the
 * router (3, 5, 7) as two nodes share one Gemini.  Any other nid fails with -1.
 * Setting FAKE_RCA_MAXDIM_FAIL=1 in the environment makes rca_get_max_dimension fail.
 *
 * FAKE_RCA_MACHINE=xc (environment, read at every call) makes it a Cray XC's RCA instead:
 * coordinates (group, chassis row, blade column) as Zoltan2's MachineDragonflyRCA reads
 * them, max dimension (3, 5, 15) -> 4 groups of 6 rows x 16 columns of Aries routers.
 * Nids 4b .. 4b + 3 are the four nodes of blade b; blades: 0 -> (0, 0, 0), 1 -> (0, 0, 1)
 * (same row), 4 -> (0, 1, 0) (same column), 5 -> (0, 1, 1), 96 -> (1, 0, 0), 97 -> (1, 0, 5),
 * 200 -> (2, 1, 3), 383 -> (3, 5, 15); any other nid fails with -1.
 * FAKE_RCA_MACHINE=xc_partial: the same with max dimension (1, 2, 15), an XC of 2 groups of
 * 3 rows (one cabinet each).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_RCA_FIELD
#define FAKE_RCA_FIELD uint16_t
#endif

typedef struct {
    FAKE_RCA_FIELD mesh_x;
    FAKE_RCA_FIELD mesh_y;
    FAKE_RCA_FIELD mesh_z;
} rca_mesh_coord_t;

static const struct { uint16_t nid, x, y, z; } table[] = {
    {0, 0, 0, 0}, {1, 0, 0, 0}, {12, 3, 5, 7}, {13, 3, 5, 7}, {4095, 15, 7, 23},
};

static const struct { uint16_t blade, group, row, column; } xc_blades[] = {
    {0, 0, 0, 0}, {1, 0, 0, 1}, {4, 0, 1, 0}, {5, 0, 1, 1}, {96, 1, 0, 0}, {97, 1, 0, 5}, {200, 2, 1, 3},
    {383, 3, 5, 15},
};

static int xc(void)
{
    const char *machine = getenv("FAKE_RCA_MACHINE");
    return machine && (!strcmp(machine, "xc") || !strcmp(machine, "xc_partial"));
}

int rca_get_meshcoord(uint16_t nid, rca_mesh_coord_t *xyz)
{
    if (xc()) {
        for (size_t i = 0; i < sizeof(xc_blades) / sizeof(xc_blades[0]); i++) {
            if (xc_blades[i].blade == nid / 4) {
                xyz->mesh_x = xc_blades[i].group;
                xyz->mesh_y = xc_blades[i].row;
                xyz->mesh_z = xc_blades[i].column;
                return 0;
            }
        }
        return -1;
    }
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].nid == nid) {
            xyz->mesh_x = table[i].x;
            xyz->mesh_y = table[i].y;
            xyz->mesh_z = table[i].z;
            return 0;
        }
    }
    return -1;
}

int rca_get_max_dimension(rca_mesh_coord_t *dims)
{
    const char *fail = getenv("FAKE_RCA_MAXDIM_FAIL");
    const char *machine = getenv("FAKE_RCA_MACHINE");
    if (fail && fail[0] == '1')
        return -1;
    if (xc()) {
        int partial = !strcmp(machine, "xc_partial");
        dims->mesh_x = partial ? 1 : 3;
        dims->mesh_y = partial ? 2 : 5;
        dims->mesh_z = 15;
        return 0;
    }
    dims->mesh_x = 15;
    dims->mesh_y = 7;
    dims->mesh_z = 23;
    return 0;
}
