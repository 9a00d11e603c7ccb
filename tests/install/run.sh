#!/bin/sh
# Install cartcoll from a build tree into a scratch prefix and build a user
# program against it, as a new user would: with pkg-config and with
# find_package(cartcoll) (shared and static), then run each on 2 processes;
# then the installed cartbench and the installed PMPI drop-in.
# Usage: run.sh <build dir> <source dir> <mpicc> <launcher>
set -eu
build=$1 src=$2 cc=$3 launcher=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cartcoll-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/cartcoll.h lib/pkgconfig/cartcoll.pc lib/cmake/cartcoll/cartcollConfig.cmake; do
    [ -f "$prefix/$f" ] || { echo "install: $f missing" >&2; exit 1; }
done
ls "$prefix"/lib/libcartcoll.so* "$prefix/lib/libcartcoll.a" >/dev/null

# pkg-config
cp "$src/tests/install/consumer.c" "$work/"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
"$cc" "$work/consumer.c" $(pkg-config --cflags --libs cartcoll) -Wl,-rpath,"$prefix/lib" -o "$work/consumer_pc"

# find_package
cp "$src/tests/install/CMakeLists.txt.in" "$work/CMakeLists.txt"
cmake -S "$work" -B "$work/b" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/b" >/dev/null

for exe in "$work/consumer_pc" "$work/b/consumer_cmake" "$work/b/consumer_static"; do
    "$launcher" -n 2 "$exe"
done
# the installed cartbench runs from the prefix alone (its RPATH), checked
if [ -x "$prefix/bin/cartbench" ]; then
    env -u LD_LIBRARY_PATH "$launcher" -n 2 "$prefix/bin/cartbench" --no-progress --reps 2 --warmup 1 -m 1 \
        --ops alltoall --variants mpi,cart --tolerate-mpi moore:2,3 >"$work/cartbench.out"
    grep -q "all cartcoll checks OK" "$work/cartbench.out" || { cat "$work/cartbench.out" >&2; exit 1; }
fi
# the installed drop-in on an unmodified program (built with plain mpicc,
# outside any cartcoll tree): it carries its own copy of the library
ls "$prefix/lib/libcartcoll_preload.so" >/dev/null
"$cc" "$src/tests/preload/neighbor_prog.c" "$src/tests/preload/graphs.c" -pthread -o "$work/neighbor_prog"
case $("$launcher" --version 2>&1 | head -1) in
*"Open MPI"*|*OpenRTE*) pre="-x LD_PRELOAD=$prefix/lib/libcartcoll_preload.so -x CARTCOLL_PRELOAD_REPORT=1" ;;
*) pre="-genv LD_PRELOAD $prefix/lib/libcartcoll_preload.so -genv CARTCOLL_PRELOAD_REPORT 1" ;;
esac
# shellcheck disable=SC2086
env -u LD_LIBRARY_PATH "$launcher" -n 2 $pre "$work/neighbor_prog" >"$work/preload.out" 2>&1 || true
# the program prints the report line the drop-in must print
want=$(sed -n 's/^neighbor_prog: expect //p' "$work/preload.out")
grep -q "neighbor_prog: PASS" "$work/preload.out" && [ -n "$want" ] && grep -qx "$want" "$work/preload.out" ||
    { cat "$work/preload.out" >&2; exit 1; }
echo "install: pkg-config, find_package (shared and static), installed cartbench, installed drop-in: all ok"

# The Fortran module, when cartcoll was built with it: a Fortran program
# with pkg-config (cartcoll_f08.pc) and as a Fortran-only CMake project
# (find_package(cartcoll) -> cartcoll::cartcoll_f08), compiled by the MPI's
# Fortran wrapper cartcoll was configured with, run on 2 processes.
if [ -f "$prefix/lib/pkgconfig/cartcoll_f08.pc" ]; then
    fc=$(sed -n 's/^CMAKE_Fortran_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
    [ -f "$prefix/include/cartcoll_f08.mod" ] || { echo "install: cartcoll_f08.mod missing" >&2; exit 1; }
    mkdir -p "$work/f08"
    cp "$src/tests/install/consumer.f90" "$work/f08/"
    cp "$src/tests/install/CMakeLists_f08.txt.in" "$work/f08/CMakeLists.txt"
    # shellcheck disable=SC2046
    (cd "$work" && "$fc" f08/consumer.f90 $(pkg-config --cflags --libs cartcoll_f08) -Wl,-rpath,"$prefix/lib" \
        -o consumer_f08_pc)
    cmake -S "$work/f08" -B "$work/f08/b" -DCMAKE_Fortran_COMPILER="$fc" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$work/f08/b" >/dev/null
    for exe in "$work/consumer_f08_pc" "$work/f08/b/consumer_f08_cmake"; do
        "$launcher" -n 2 "$exe"
    done
    echo "install: Fortran module cartcoll_f08 with pkg-config and find_package(cartcoll): ok"
fi

# A moved prefix still works: installed binaries find the library through
# an RPATH relative to themselves ($ORIGIN/../lib), not the install path.
mv "$prefix" "$work/moved"
if [ -x "$work/moved/bin/cartbench" ]; then
    env -u LD_LIBRARY_PATH "$work/moved/bin/cartbench" --help >"$work/moved_help.out" 2>&1 ||
        { cat "$work/moved_help.out" >&2; echo "install: cartbench --help fails after moving the prefix" >&2; exit 1; }
    env -u LD_LIBRARY_PATH "$launcher" -n 2 "$work/moved/bin/cartbench" --no-progress --reps 2 --warmup 1 -m 1 \
        --ops alltoall --variants cart --tolerate-mpi moore:2,3 >"$work/moved.out" 2>&1
    grep -q "all cartcoll checks OK" "$work/moved.out" || { cat "$work/moved.out" >&2; exit 1; }
fi
for ex in "$work"/moved/bin/*; do
    [ -x "$ex" ] || continue
    ldd "$ex" 2>/dev/null | grep -q "libcartcoll.*not found" &&
        { echo "install: $ex does not find libcartcoll after moving the prefix" >&2; exit 1; }
done
echo "install: moved prefix: installed binaries still find libcartcoll: ok"
