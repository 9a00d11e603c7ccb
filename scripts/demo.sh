#!/bin/sh
# The demo: a 2-D 9-point halo exchange (examples/halo9) on 4 processes.
set -eu
build=${1:-build/openmpi}
launcher=$(grep '^CARTCOLL_MPIEXEC:' "$build/CMakeCache.txt" | cut -d= -f2)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$launcher" -n 4 "$build/examples/halo9"
