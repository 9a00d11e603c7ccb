#!/bin/sh
# What the PMPI drop-in adds per call, in instructions: neighbor_bench on
# one process (no waiting: only the calls' own work) with
# LD_PRELOAD=libcartcoll_preload.so under valgrind --tool=callgrind; per
# call, the inclusive cost of the intercepted MPI calls (MPI_Neighbor_X, or
# MPI_Ineighbor_X + MPI_Wait) against that of the Cart_ calls inside them
# (Cart_X, or Cart_iX + Cart_wait).  The difference is the drop-in's own
# cost: classification, requests, conversions.
# Usage: scripts/callgrind_preload.sh [build dir] [op] [d n m reps]
#   op: alltoall, ialltoall, allgather, iallgather, alltoallw, ialltoallw
#   default: build/openmpi ialltoall 3 3 1 10000 (alltoallw: m MPI_INTs)
set -eu
build=${1:-build/openmpi}
op=${2:-ialltoall} d=${3:-3} n=${4:-3} m=${5:-1} reps=${6:-10000}
exe=$build/bench/neighbor_bench
lib=$(cd "$build" && pwd)/libcartcoll_preload.so
[ -x "$exe" ] && [ -f "$lib" ] || { echo "callgrind_preload.sh: build $build first (neighbor_bench, cartcoll_preload)" >&2; exit 1; }
launcher=$(grep '^CARTCOLL_MPIEXEC:' "$build/CMakeCache.txt" | cut -d= -f2)
case $($launcher --version 2>&1 | head -1) in
*"Open MPI"* | *OpenRTE*) pre="-x LD_PRELOAD=$lib" ;;
*) pre="-genv LD_PRELOAD $lib" ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086
"$launcher" -n 1 $pre valgrind -q --tool=callgrind --callgrind-out-file="$out/cg" \
    "$exe" -d "$d" -n "$n" -m "$m" --ops "$op" --reps "$reps" --warmup 0 --wtype int >/dev/null
base=${op#i}
case $op in
i*) mpi="MPI_Ineighbor_$base MPI_Wait" cart="Cart_i$base Cart_wait" ;;
*) mpi="MPI_Neighbor_$base" cart="Cart_$base" ;;
esac
# inclusive cost of the named functions (file:function lines)
cost() {
    callgrind_annotate --inclusive=yes "$out/cg" 2>/dev/null | awk -v names="$1" '
        BEGIN { n = split(names, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1 }
        /^ *[0-9,]+ .*:[A-Za-z_]+ \[/ {
            fn = $0; sub(/ \[.*/, "", fn); sub(/.*:/, "", fn)
            if ((fn in want) && !(fn in seen)) { seen[fn] = 1; x = $1; gsub(/,/, "", x); s += x }
        }
        END { print s + 0 }'
}
calls=$((reps + 2)) # the timed calls and the two checked ones
a=$(cost "$mpi") b=$(cost "$cart")
echo "callgrind_preload: $op moore:$d,$n m=$m, 1 process, per call: $((a / calls)) instructions in $mpi" \
    "(the drop-in), $((b / calls)) in $cart inside them: the drop-in adds $(((a - b) / calls))"
