#!/bin/sh
# What cartbench decides, without what it measures: runs a fixed set of
# cartbench cases (every collective, variant, layout and communicator kind)
# and keeps the CSV columns that do not depend on timing (cartbench has no
# randomness; times, outlier counts, speed-ups and ratios are dropped).  Two
# trees that behave alike give identical files:
#   scripts/cartbench_fingerprint.sh build/openmpi /tmp/before
#   ... change bench/ ..., rebuild
#   scripts/cartbench_fingerprint.sh build/openmpi /tmp/after
#   diff -r /tmp/before /tmp/after
# usage: cartbench_fingerprint.sh BUILD_DIR OUT_DIR [NP]   (NP default 4)
set -eu
build=$1 out=$2 np=${3:-4}
src=$(cd "$(dirname "$0")/.." && pwd)
bench="$build/bench/cartbench"
launcher=$(sed -n 's/^CARTCOLL_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$out"
quick="--reps 2 --warmup 1 --no-progress -m 0,3"
tol=""
case $launcher in *mpich*|*hydra*) tol=--tolerate-mpi ;; esac
rep="file:$src/bench/repeats.nbh" mpicart="file:$src/bench/mpicart2.nbh"

run() { # NAME ARGS...: one cartbench run, its CSV's deterministic columns
    name=$1
    shift
    "$launcher" -n "$np" "$bench" $quick $tol --csv "$out/$name.full.csv" "$@" > "$out/$name.log" 2>&1 ||
        echo "cartbench_fingerprint: $name exited $? (see $out/$name.log)" >&2
    python3 - "$out/$name.full.csv" > "$out/$name.csv" <<'EOF'
import csv, sys
keep = ["np", "nbh", "d", "t", "dims", "periodic", "collective", "variant", "form", "algorithm", "executor",
        "m", "irregular", "bytes", "rounds", "reps", "check", "comm"]
rows = list(csv.DictReader(open(sys.argv[1])))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(keep)
for r in rows:
    w.writerow([r[k] for k in keep])
EOF
    rm -f "$out/$name.full.csv"
}

run all --ops all --variants all moore:2,3 moore:3,4 vonneumann:3,2 chebyshev:2,2 shells:2,2,3 octant:3,2 "$rep"
run mesh --mesh --irregular --ops all --variants all moore:2,4 octant:2,2
run p2p --baseline p2p --ops all --variants p2p-p,floor,cart,cart-p,cart-p-direct moore:2,3 "$rep"
run floor --baseline floor --irregular --ops alltoall,allgather,alltoallv --variants mpi,p2p,cart-p moore:3,3
run comm --comm nbh,graph,mpicart --ops all --variants all "$mpicart"
run graph --comm graph --ops all --variants mpi,cart,cart-i,cart-p moore:2,3 "$rep"
run global --global-allreduce --variants all -m 0,1,1000
ls "$out"/*.csv | wc -l | sed 's/$/ CSV files/'
