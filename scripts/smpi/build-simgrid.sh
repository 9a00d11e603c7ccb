#!/bin/sh
# build-simgrid.sh: build a SimGrid source tree into a local prefix, for the
# scale lab only (docs/scale.md, "A newer SimGrid"; issue 29).
#
#   scripts/smpi/build-simgrid.sh SRC PREFIX
#
# SRC is a SimGrid source tree: the public repository simgrid/simgrid at a
# release tag (for example v4.1), checked out or exported outside this
# repository (no third-party code is kept here).  PREFIX receives bin/smpicc,
# bin/smpirun, lib/libsimgrid.so; then
#
#   make build-smpi SIMGRID_PREFIX=PREFIX
#   scripts/scale.sh --simgrid PREFIX ...     (or SIMGRID_PREFIX=PREFIX)
#
# Debian's toolchain and Boost: cmake, g++ and libboost-dev (headers; the
# only Boost SimGrid needs), libboost-context-dev (optional, one more
# context factory); installed with apt-get when run as root and missing.
# A small build: release, SMPI on, no model checker, no sthread, no Java, no
# Python bindings, no Fortran, no documentation, no ns-3, no Eigen (BMF
# model), no LTO (slow on few cores); the tests and examples are separate
# targets SimGrid does not build by default.
# The patches in scripts/smpi/patches/ are applied to SRC first (they edit
# it in place): one, sharing groups across MPI_Comm_dup (memory at 16384).
# Variables: JOBS (default 2), BUILD_DIR (default SRC/_build_cartcoll).
set -eu

[ $# -eq 2 ] || { sed -n '2,/^set -eu/p' "$0" | sed -n '/^#/s/^# \{0,1\}//p'; exit 2; }
src=$(cd "$1" && pwd)
prefix=$2
jobs=${JOBS:-2}
bdir=${BUILD_DIR:-$src/_build_cartcoll}
[ -f "$src/CMakeLists.txt" ] && grep -qi 'project(simgrid' "$src/CMakeLists.txt" ||
  { echo "build-simgrid.sh: $src is not a SimGrid source tree" >&2; exit 2; }
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac

# Build dependencies (Debian package names).
need=""
command -v cmake >/dev/null || need="$need cmake"
command -v g++ >/dev/null || need="$need g++"
[ -f /usr/include/boost/version.hpp ] || need="$need libboost-dev"
[ -d /usr/include/boost/context ] || need="$need libboost-context-dev"
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "build-simgrid.sh: apt-get install$need"
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need
  else
    echo "build-simgrid.sh: missing$need (as root: apt-get install$need)" >&2
    exit 2
  fi
fi

# Our patches (scripts/smpi/patches/*.patch, each saying what it changes
# and why): applied once; one already applied is left; one that does not
# apply (another release) is skipped with a warning.
for p in "$(dirname "$0")"/patches/*.patch; do
  [ -f "$p" ] || continue
  if patch -d "$src" -p1 -N -s --dry-run < "$p" >/dev/null 2>&1; then
    echo "build-simgrid.sh: applying $(basename "$p")"
    patch -d "$src" -p1 -N -s < "$p"
  elif patch -d "$src" -p1 -R -s --dry-run < "$p" >/dev/null 2>&1; then
    echo "build-simgrid.sh: $(basename "$p") already applied"
  else
    echo "build-simgrid.sh: warning: $(basename "$p") does not apply to $src (not v4.1?); building without it" >&2
  fi
done

echo "build-simgrid.sh: $src -> $prefix (build tree $bdir, -j$jobs)"
# From the build tree: SimGrid's configure leaves a test_stackgrowth
# program in the current directory.
mkdir -p "$bdir"
cd "$bdir"
cmake -S "$src" -B "$bdir" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -Denable_smpi=ON \
  -Denable_model-checking=OFF \
  -Denable_sthread=OFF \
  -Denable_java=OFF \
  -Denable_python=OFF \
  -Denable_fortran=OFF \
  -Denable_documentation=OFF \
  -Denable_ns3=OFF \
  -Denable_lto=OFF \
  -Denable_compile_warnings=OFF \
  -Denable_testsuite_smpi_MPICH3=OFF \
  -Denable_testsuite_smpi_MBI=OFF \
  -Denable_testsuite_McMini=OFF \
  -DEIGEN3_HINT=OFF
cmake --build "$bdir" -j "$jobs"
cmake --install "$bdir"

for t in smpicc smpirun; do
  [ -x "$prefix/bin/$t" ] || { echo "build-simgrid.sh: no $prefix/bin/$t after install" >&2; exit 1; }
done
echo "build-simgrid.sh: installed $("$prefix/bin/smpirun" -version 2>/dev/null | head -n 1 || echo SimGrid)"
echo "  smpicc:  $prefix/bin/smpicc"
echo "  smpirun: $prefix/bin/smpirun"
echo "  use:     make build-smpi SIMGRID_PREFIX=$prefix   (build tree build/smpi-$(basename "$prefix"))"
echo "           SIMGRID_PREFIX=$prefix scripts/scale.sh --quick"
