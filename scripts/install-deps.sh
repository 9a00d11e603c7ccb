#!/bin/sh
# Install what building and testing cartcoll needs, from Debian's packages,
# when it is missing: both MPIs (side by side), CMake, a C compiler, make,
# pkg-config, gnuplot (for cartbench plots), python3 (the test of
# scripts/smpi/p2p_bound.py), valgrind (a memory-checked test) and
# gfortran (for the Fortran module cartcoll_f08, built with the MPIs'
# mpif90 wrappers).  As root it installs; as another user it uses
# sudo if that needs no password, and otherwise prints the one command to
# run and fails.
set -eu

missing=""
need() { # need <command> <packages...>
    cmd=$1; shift
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing $*"
}
# an MPI's compiler wrapper that cannot find mpi.h (its -dev package was
# removed while the wrapper stayed) counts as missing
need_mpi() { # need_mpi <wrapper> <package>
    printf '#include <mpi.h>\n' | "$1" -E -x c - >/dev/null 2>&1 || missing="$missing $2"
}
need_mpi mpicc.openmpi libopenmpi-dev
need mpirun.openmpi openmpi-bin
need_mpi mpicc.mpich libmpich-dev
need mpiexec.mpich mpich
need cmake cmake
need cc gcc
need gfortran gfortran
need make make
need pkg-config pkg-config
need gnuplot gnuplot-nox
need python3 python3
need valgrind valgrind

[ -z "$missing" ] && exit 0
# shellcheck disable=SC2086
set -- $(printf '%s\n' $missing | sort -u)
if [ "$(id -u)" -eq 0 ]; then
    echo "cartcoll: installing missing packages: $*"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "cartcoll: installing missing packages (sudo): $*"
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
else
    echo "cartcoll: these packages are missing; install them with:" >&2
    echo "  sudo apt-get install -y $*" >&2
    exit 1
fi
