#!/bin/sh
# Issue 28's measurements on the lent 16-core machine (no MPI there): run
# from the repository root with the kit of scripts/device/kit.sh, e.g. with
# the device tool: carry device-kit, command
#   scripts/device/run16.sh device-kit "$OUT"
# Writes into OUT: info.txt (the machine), cb_NBH.csv/.log per
# neighbourhood (every cartbench variant of the issue's table: MPI, the
# floor, blocking auto and forced, persistent auto and forced; auto's
# decisions in the log, CARTCOLL_VERBOSE=1), setup1.log / setup16.log
# (create + *_init, d = 5 radius 3), part16x1.log (partbench, 16 x 1: one
# thread per process producing 4 partitions in turn, alltoall and the
# pipelined allreduce).
# Every step has its own time limit, so one slow cell cannot take the
# lease; the whole script stays under about 8 minutes.
# Usage: scripts/device/run16.sh [KIT] [OUT] [NP]   (NP default 16; a quick
# trial here: NP=2 with MPICH installed)
set -u
kit=${1:-device-kit}
out=${2:-${OUT:-device-out}}
np=${3:-16}
mkdir -p "$out"
PATH="$(cd "$kit" && pwd)/bin:$PATH"
LD_LIBRARY_PATH="$(cd "$kit" && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
UCX_MODULE_DIR="$(cd "$kit" && pwd)/lib/ucx"
export PATH LD_LIBRARY_PATH UCX_MODULE_DIR
{
    echo "nproc: $(nproc)"
    lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)|Thread|Socket|NUMA node0'
    echo "kernel: $(uname -r)"
    for b in cartbench partbench mpiexec.hydra; do
        echo "libs of $b: $(ldd "$kit/bin/$b" | grep -c 'not found') not found"
    done
} > "$out/info.txt" 2>&1

launch() { # N SECONDS PROGRAM ARGS...
    n=$1 limit=$2
    shift 2
    timeout "$limit" mpiexec.hydra -launcher fork -bind-to core -n "$n" "$@"
}

variants=mpi,floor,cart,cart-direct,cart-combining,cart-p,cart-p-direct,cart-p-combining
for nbh in moore:2,3 moore:3,3 moore:4,3 moore:3,5 moore:5,3 moore:4,5; do
    name=cb_$(echo "$nbh" | tr ':,' '__')
    CARTCOLL_VERBOSE=1 launch "$np" 75 cartbench --reps 60 --warmup 5 --tolerate-mpi --variants "$variants" \
        --ops alltoall,allgather -m 1,10,100,1000 --csv "$out/$name.csv" "$nbh" > "$out/$name.log" 2>&1
    echo "run16: $nbh exit $?" | tee -a "$out/steps.txt"
done
launch 1 60 cartbench --setup chebyshev:5,3 > "$out/setup1.log" 2>&1
echo "run16: setup at 1 exit $?" | tee -a "$out/steps.txt"
launch "$np" 90 cartbench --setup chebyshev:5,3 > "$out/setup16.log" 2>&1
echo "run16: setup at $np exit $?" | tee -a "$out/steps.txt"
{
    OMP_NUM_THREADS=1 launch "$np" 40 partbench -t 1 -p 4
    OMP_NUM_THREADS=1 launch "$np" 40 partbench -t 1 -p 4 --op allreduce
} > "$out/part16x1.log" 2>&1
echo "run16: partbench ${np}x1 exit $?" | tee -a "$out/steps.txt"
