#!/bin/sh
# Instructions of one set-up, Cart_neighborhood_create + Cart_alltoall_init
# (bench/hotpath: d-dimensional Moore neighbourhood of n points per
# dimension, m ints per block, the algorithm as create's info), counted by
# valgrind --tool=callgrind on rank 0 only (the other NP-1 processes run
# natively, so a 16-process grid can be counted on a small machine).
# Repeatable, unlike set-up times on a loaded machine.
# Usage: scripts/callgrind_setup.sh [build dir] [d n m algorithm...]
#   default: build/openmpi 5 7 1 auto direct combining torus; NP=16 in the
#   environment: 16 processes (default 1).  CARTCOLL_ALPHA/CARTCOLL_BETA
#   default to 1e-6/1e-10 (no calibration, a fixed choice); set them empty
#   to calibrate at create as a program does.
# Prints per algorithm: all instructions inside the two calls (MPI and its
# polling included: varies with how long the other processes take) and the
# self cost of the functions in libcartcoll (repeatable).
set -eu
build=${1:-build/openmpi}
[ $# -gt 0 ] && shift
d=${1:-5} n=${2:-7} m=${3:-1}
[ $# -gt 3 ] && shift 3 || set -- auto direct combining torus
np=${NP:-1}
exe=$build/bench/hotpath
[ -x "$exe" ] || { echo "callgrind_setup.sh: no $exe (build the target hotpath first)" >&2; exit 1; }
launcher=$(grep '^CARTCOLL_MPIEXEC:' "$build/CMakeCache.txt" | cut -d= -f2)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CARTCOLL_ALPHA="${CARTCOLL_ALPHA-1e-6}" CARTCOLL_BETA="${CARTCOLL_BETA-1e-10}"
[ -n "$CARTCOLL_ALPHA" ] || unset CARTCOLL_ALPHA
[ -n "$CARTCOLL_BETA" ] || unset CARTCOLL_BETA
library() {
    awk '
        /^ob=/ { mine = index($0, "libcartcoll") > 0; next }
        /^calls=/ { skip = 1; next }
        /^[0-9]/ { if (skip) { skip = 0; next } if (mine) s += $2; next }
        END { print s + 0 }' "$1"
}
echo "callgrind: create + alltoall_init, d=$d n=$n m=$m, $np processes (rank 0 counted)"
for alg in "$@"; do
    f=$out/cg.$alg
    others=""
    [ "$np" -gt 1 ] && others=": -n $((np - 1)) $exe $d $n $m 0 $alg"
    # shellcheck disable=SC2086
    "$launcher" -n 1 valgrind -q --tool=callgrind --callgrind-out-file="$f" \
        --toggle-collect=Cart_neighborhood_create --toggle-collect=Cart_alltoall_init \
        --compress-strings=no --compress-pos=no "$exe" "$d" "$n" "$m" 0 "$alg" $others >/dev/null
    printf '%-10s %12s instructions in all, %12s in libcartcoll\n' "$alg" \
        "$(awk '/^summary:/ { print $2 }' "$f")" "$(library "$f")"
    [ -z "${KEEP:-}" ] || cp "$f" "$KEEP.$alg"
done
