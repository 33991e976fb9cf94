#!/usr/bin/env bash
# Run the MiniGhost-style demo on a laptop or workstation, on a SIMULATED machine.
#
# No network coordinates exist on a laptop, so the `sim` provider places rank r on
# processor r of a simulated allocation (default: a sparse Titan-like Cray XK7 with one
# rank per node).  Oversubscription is fine (-n 16 on 2 cores works with the mpich wheel).
#
# Usage:   launch_scripts/local.sh [extra minighost.py options]
# Edit/override with environment variables:
#   NP=16                               number of MPI ranks
#   PROVIDER=sim:titan:ppn=1,seed=1     any provider spec, e.g.
#                                         sim:titan:ppn=4,seed=2      (4 ranks per node)
#                                         sim:bgq:shape=2x2x2x2x2,ppn=1
#                                         sim:torus:dims=4x4x4,ppn=1
#                                         sim:fattree:leaves=8,nodes_per_leaf=4,taper=4,nodes=8,ppn=2,seed=1
#                                         sim:frontier:nodes=8,ppn=2,seed=1   (a Slingshot dragonfly)
#                                         file:examples/dragonfly_alloc.txt   (a machine file; NP=32)
#   GRID=4x2x2                          task grid PXxPYxPZ, PX*PY*PZ = NP (default: chosen by MPI)
#   MAPPING=default,group,geometric     placements to compare
#   STEPS=10                            time steps
#   MPIEXEC, PYTHON                     default: the repo venv's (.venv/bin/...)
#   TIMEOUT=600                         seconds before the run is killed (never hang a laptop)
set -euo pipefail
cd "$(dirname "$0")/.."

NP=${NP:-16}
PROVIDER=${PROVIDER:-sim:titan:ppn=1,seed=1}
MAPPING=${MAPPING:-default,group,geometric}
STEPS=${STEPS:-10}
GRID=${GRID:-}
MPIEXEC=${MPIEXEC:-.venv/bin/mpiexec}
PYTHON=${PYTHON:-.venv/bin/python}
TIMEOUT=${TIMEOUT:-600}

# Optional: log the remap report (rank 0 only).
export MPITASKMAP_LOG=${MPITASKMAP_LOG:-}

# `python -m mpi4py` turns an exception on any rank into MPI_Abort: no hung job.
exec timeout "$TIMEOUT" "$MPIEXEC" -n "$NP" "$PYTHON" -m mpi4py examples/minighost.py \
    --provider "$PROVIDER" --mapping "$MAPPING" --steps "$STEPS" ${GRID:+--grid "$GRID"} "$@"
