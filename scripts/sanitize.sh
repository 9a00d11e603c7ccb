#!/bin/sh
# AddressSanitizer + UndefinedBehaviorSanitizer run of the library's riskiest
# surfaces (issue 26): the partitioned, global-meaning, bad-input, request,
# thread and drop-in tests, with the library and the tests built with
# -fsanitize=address,undefined into build/asan-<mpi>.  Any report fails the
# test that triggered it (ASan aborts; UBSan halts on the first error).
# Leak checking is off: MPI itself keeps memory to its end.
#
# Usage: scripts/sanitize.sh [openmpi|mpich] [ctest label regex]
# (make check runs it for Open MPI; MPICH runs above 2 processes are slow.)
set -eu
mpi=${1:-openmpi}
labels=${2:-partitioned|global|errors|requests|threads|preload}
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build/asan-$mpi
jobs=${JOBS:-2}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$here" -B "$build" -DCMAKE_C_COMPILER="mpicc.$mpi" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCARTCOLL_SANITIZE=address,undefined -DCARTCOLL_WERROR=ON >/dev/null
fi
cmake --build "$build" -j "$jobs" >/dev/null
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd "$build"
ctest -L "$labels" -j "$jobs" --output-on-failure
