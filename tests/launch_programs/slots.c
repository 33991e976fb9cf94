/* Where the launcher put each rank: every rank writes one line
 *
 *     rank R host=HOST local=L/N cpus=C[,C...]
 *
 * HOST: the host the launcher started the rank for.  On one machine standing in for several
 * nodes every rank's gethostname() is the same, so the name comes from what the launcher gave:
 * LAUNCH_TEST_HOST (set by the tests' fake ssh, which each Open MPI daemon inherits and passes to
 * its ranks), else Hydra's PMI_HOSTNAME (the hostfile's name of the rank's proxy), else
 * MPI_Get_processor_name.  L/N: the rank's index among the N ranks the launcher started on its
 * host (Hydra's MPI_LOCALRANKID / MPI_LOCALNRANKS, Open MPI's OMPI_COMM_WORLD_LOCAL_RANK /
 * OMPI_COMM_WORLD_LOCAL_SIZE; -1 when not set): one launcher daemon per host gives 0..N-1.
 * C: the CPUs the rank may run on (sched_getaffinity), what an Open MPI rankfile's slot binds.
 *
 * No message passes between ranks: on one machine posing as several nodes, Open MPI's shared-memory
 * transport mixes up ranks of the same local rank on different "nodes" and its TCP transport stalls
 * in this sandbox, while what is tested is where the launcher started each rank.  Each line is one
 * write(2) (shorter than PIPE_BUF), so lines of different ranks never interleave.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_or(const char *name, const char *fallback) {
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

int main(int argc, char **argv) {
    int rank, len;
    char name[MPI_MAX_PROCESSOR_NAME], line[512], cpus[256] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(name, &len);
    const char *host = env_or("LAUNCH_TEST_HOST", env_or("PMI_HOSTNAME", name));
    const char *local = env_or("MPI_LOCALRANKID", env_or("OMPI_COMM_WORLD_LOCAL_RANK", "-1"));
    const char *nlocal = env_or("MPI_LOCALNRANKS", env_or("OMPI_COMM_WORLD_LOCAL_SIZE", "-1"));
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE && strlen(cpus) + 8 < sizeof cpus; c++)
            if (CPU_ISSET(c, &set))
                snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), "%s%d", *cpus ? "," : "", c);
    }
    int n = snprintf(line, sizeof line, "rank %d host=%s local=%s/%s cpus=%s\n", rank, host, local, nlocal, cpus);
    if (n > 0 && write(STDOUT_FILENO, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0)
        return 1;
    MPI_Finalize();
    return 0;
}
