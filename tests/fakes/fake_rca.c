/* Fake Cray RCA library for tests/test_providers.py (built at test time into librca.so.0).
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
 */
#include <stdint.h>
#include <stdlib.h>

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

int rca_get_meshcoord(uint16_t nid, rca_mesh_coord_t *xyz)
{
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
    if (fail && fail[0] == '1')
        return -1;
    dims->mesh_x = 15;
    dims->mesh_y = 7;
    dims->mesh_z = 23;
    return 0;
}
