#!/bin/sh
# Instructions of one persistent Cart_start + Cart_wait (Cart_alltoall_init,
# d-dimensional Moore neighbourhood of n points per dimension (n odd), m
# ints per block, 2 processes or $NP), counted by valgrind --tool=callgrind on
# every process and averaged over the iterations: a repeatable measure of
# the library's overhead (timings here are noisy).
# Usage: scripts/callgrind.sh [build dir] [d n m iterations algorithm form executor]
#   default: build/openmpi 4 3 1 2000 auto p auto (form b: blocking
#   Cart_alltoall instead of the persistent request; form f: the floor for
#   the same data, one contiguous persistent message per distinct peer and
#   one memcpy to myself, no cartcoll call: compare its "in all" with the
#   collective's); NP=4 in the environment: 4 processes
set -eu
build=${1:-build/openmpi}
[ $# -gt 0 ] && shift
d=${1:-4} n=${2:-3} m=${3:-1} iters=${4:-2000} alg=${5:-auto} form=${6:-p} exe=${7:-auto} np=${NP:-2}
prog=$build/bench/hotpath
[ -x "$prog" ] || { echo "callgrind.sh: no $exe (build first: make build)" >&2; exit 1; }
launcher=$(grep '^CARTCOLL_MPIEXEC:' "$build/CMakeCache.txt" | cut -d= -f2)
out=$(mktemp -d)
# CG_KEEP=DIR keeps the callgrind files (cg.1.PID, cg.2.PID: the run of
# 2x iterations) there, for callgrind_annotate.
trap '[ -n "${CG_KEEP:-}" ] && mkdir -p "$CG_KEEP" && cp "$out"/cg.* "$CG_KEEP"/; rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 CARTCOLL_ALPHA=1e-6 CARTCOLL_BETA=1e-10
# Two runs whose iteration counts differ: the difference is the loop alone
# (set-up, tuning starts and MPI_Finalize cancel out).
for k in 1 2; do
    "$launcher" -n "$np" valgrind -q --tool=callgrind --callgrind-out-file="$out/cg.$k.%p" \
        --toggle-collect=Cart_start --toggle-collect=Cart_wait --toggle-collect=Cart_alltoall --toggle-collect=hotpath_floor_run --compress-strings=no --compress-pos=no \
        "$prog" "$d" "$n" "$m" $((k * iters)) "$alg" "$form" "$exe" >/dev/null
done
# all: every instruction inside the calls (MPI's polling included, which
# varies with how long the other process takes); library: the self cost of
# functions in libcartcoll only (repeatable).
total() { cat "$out"/cg."$1".* | awk '/^summary:/ { s += $2 } END { print s }'; }
library() {
    cat "$out"/cg."$1".* | awk '
        /^ob=/ { mine = index($0, "libcartcoll") > 0; next }
        /^calls=/ { skip = 1; next }
        /^[0-9]/ { if (skip) { skip = 0; next } if (mine) s += $2; next }
        END { print s + 0 }'
}
per() { echo $(( ($2 - $1) / (np * iters) )); }
echo "callgrind: d=$d n=$n m=$m $alg $exe form $form, $np processes, per Cart_start+Cart_wait (b: Cart_alltoall) per process:" \
    "$(per "$(library 1)" "$(library 2)") instructions in libcartcoll," \
    "$(per "$(total 1)" "$(total 2)") in all (MPI included)"
