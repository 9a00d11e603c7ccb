#!/bin/sh
# The demo (`make demo`): two checked applications and a short benchmark.
#   1. halo9: a 2-D 9-point halo exchange (examples/halo9), 4 processes;
#   2. heat2d: 9-point Jacobi heat diffusion checked against a serial solver;
#      heat2d_omp (when built with OpenMP): OpenMP threads hand the borders
#      of their stripes to a partitioned Cart_palltoall_init, checked the
#      same way, and the fork-join exchange for comparison;
#   3. cartbench: Cart_alltoall/Cart_allgather (automatic choice and DIRECT)
#      against MPI_Neighbor_alltoall/allgather, and the neighbourhood
#      Cart_allreduce (sum) against MPI_Neighbor_allgather + local sum, the
#      rooted Cart_bcast/gather/scatter/reduce (root 0) against one message
#      per neighbour, on Moore neighbourhoods (d = 3, 4, 5; n = 3, 5;
#      m = 1, 10, 100 ints or doubles), every result checked;
#   4. heat3d.f90: the 27-point Jacobi of examples/heat3d.c in Fortran
#      (use cartcoll_f08), checked against a serial run -- when the build
#      has the Fortran module (a Fortran compiler of the MPI was found);
#   5. the PMPI drop-in: bench/neighbor_bench (a plain MPI program: a
#      hand-built dist graph and MPI_Neighbor_alltoall / MPI_Ineighbor_alltoall,
#      d = 4, n = 5, m = 1) without and with LD_PRELOAD=libcartcoll_preload.so,
#      beside the same case through the Cart_ API (scripts/preload_bench.sh
#      --cart, 3 rounds), every result checked.
# Usage: scripts/demo.sh [build dir]   (default build/openmpi)
# Writes <build dir>/../demo/results.csv and speedup.png (build/demo/).
set -eu
build=${1:-build/openmpi}
out="$(dirname "$build")/demo"
mkdir -p "$out"
if [ ! -x "$build/bench/cartbench" ] || [ ! -x "$build/examples/heat2d" ]; then
    echo "demo: $build has no cartbench/examples: build it first (make build, or cmake --build $build)" >&2
    exit 1
fi
launcher=$(grep '^CARTCOLL_MPIEXEC:' "$build/CMakeCache.txt" | cut -d= -f2)
if [ -z "$launcher" ]; then
    echo "demo: no MPI launcher (CARTCOLL_MPIEXEC) in $build/CMakeCache.txt" >&2
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
np=4

echo "== 1. halo9: 9-point halo exchange by persistent Cart_alltoallw, $np processes"
"$launcher" -n $np "$build/examples/halo9"
echo
echo "== 2. heat2d: Jacobi heat diffusion, 9-point stencil, checked against a serial run"
"$launcher" -n $np "$build/examples/heat2d" -n 32 -i 300
"$launcher" -n $np "$build/examples/heat2d" -n 32 -i 300 --mpi
if [ -x "$build/examples/heat2d_omp" ]; then
    echo "   heat2d_omp: 2 OpenMP threads per process, partitioned halo exchange [Holmes et al. 2021], then fork-join"
    OMP_NUM_THREADS=2 "$launcher" -n $np "$build/examples/heat2d_omp" -t 2 -n 32 -i 300
    OMP_NUM_THREADS=2 "$launcher" -n $np "$build/examples/heat2d_omp" -t 2 -n 32 -i 300 --join
else
    echo "   heat2d_omp: skipped, this build has no OpenMP"
fi
echo
echo "== 3. cartbench: cartcoll vs MPI neighbourhood collectives, $np processes"
echo "   (median of 50 calls after 5 checked ones; speed-up = MPI time / time)"
"$launcher" -n $np "$build/bench/cartbench" --reps 50 --warmup 5 --summary \
    --ops alltoall,allgather,allreduce,bcast,gather,scatter,reduce --variants mpi,cart,cart-direct -m 1,10,100 \
    moore:3,3 moore:3,5 moore:4,3 moore:4,5 moore:5,3 moore:5,5 \
    --csv "$out/results.csv" --plot "$out/speedup.png"
echo
if [ -x "$build/examples/heat3d_f90" ]; then
    echo "== 4. heat3d.f90: the 27-point Jacobi in Fortran (use cartcoll_f08), checked against a serial run"
    "$launcher" -n $np "$build/examples/heat3d_f90" -n 12 -i 100
else
    echo "== 4. heat3d.f90: skipped, this build has no Fortran module (no Fortran compiler of its MPI;"
    echo "   scripts/install-deps.sh installs gfortran)"
fi
echo
if [ -x "$build/bench/neighbor_bench" ] && [ -f "$build/libcartcoll_preload.so" ]; then
    echo "== 5. PMPI drop-in: an unmodified MPI_Neighbor_alltoall program without and with"
    echo "   LD_PRELOAD=libcartcoll_preload.so, beside the Cart_ API on the same case"
    PRELOAD_BENCH_ROUNDS=3 "$(dirname "$0")/preload_bench.sh" --cart "$build" $np -d 4 -n 5 -m 1 \
        --ops alltoall,ialltoall 2>/dev/null
else
    echo "== 5. PMPI drop-in: skipped, $build has no neighbor_bench or libcartcoll_preload.so"
fi
echo
echo "Results: $out/results.csv; plot: $out/speedup.png"
