#!/bin/sh
# Packs what a machine without MPI needs to run cartcoll's benchmarks: a
# Release build against MPICH, the benchmarks, MPICH's launcher
# (mpiexec.hydra, hydra_pmi_proxy) and every shared library they load
# except the C library's own, into one folder that `git` ignores
# (device-kit/), for the lent 16-core machine (issue 28).  Then, there:
#   scripts/device/run16.sh device-kit "$OUT"
# Usage: scripts/device/kit.sh [BUILD_DIR] [KIT_DIR]
#   default build/mpich-release device-kit
set -eu
build=${1:-build/mpich-release}
kit=${2:-device-kit}
cmake -S . -B "$build" -DCMAKE_C_COMPILER=mpicc.mpich -DCMAKE_BUILD_TYPE=Release -DCARTCOLL_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j 2 --target cartbench partbench hotpath neighbor_bench cartcoll_preload >/dev/null
rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/lib"
for exe in bench/cartbench bench/partbench bench/hotpath bench/neighbor_bench; do
    [ -x "$build/$exe" ] && cp "$build/$exe" "$kit/bin/"
done
cp "$build"/libcartcoll_preload.so "$kit/lib/"
cp "$(command -v mpiexec.hydra)" "$(command -v hydra_pmi_proxy)" "$kit/bin/"
# The libraries: what ldd finds for each program, but the C library and
# the loader (the machine has its own, newer glibc).
for f in "$kit"/bin/* "$kit"/lib/*.so; do
    ldd "$f" 2>/dev/null | awk '/=> \// { print $3 }'
done | sort -u | while read -r lib; do
    case $(basename "$lib") in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    *) cp -L "$lib" "$kit/lib/" ;;
    esac
done
# UCX loads its transports as modules from a folder next to libucp.
ucx=$(ldd "$kit/bin/cartbench" | awk '/libucp/ { print $3 }')
if [ -n "$ucx" ] && [ -d "$(dirname "$ucx")/ucx" ]; then
    cp -rL "$(dirname "$ucx")/ucx" "$kit/lib/"
fi
echo "kit.sh: $kit ($(du -sh "$kit" | cut -f1)): $(ls "$kit/bin" | tr '\n' ' ')"
