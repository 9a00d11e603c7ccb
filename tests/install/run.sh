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
# outside any cartcoll tree): it finds libcartcoll next to itself
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
