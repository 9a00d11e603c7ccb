#!/bin/sh
# MPICH's own test suite for the neighbourhood collectives, run with the
# PMPI drop-in: test/mpi/coll/neighb_*.c, ring_neighbor_alltoall.c and
# (MPI-4) p_neighb_*.c of the MPICH source, each without and with
# LD_PRELOAD=libcartcoll_preload.so.  Their sources are not part of
# cartcoll: the script fetches them.
#
#   scripts/mpich_neighb_tests.sh [BUILD_DIR] [MAX_NP]
#
# BUILD_DIR: a configured and built cartcoll build tree (default build/mpich);
# its C compiler (mpicc.mpich, mpicc.openmpi, ...) builds the tests and its
# launcher (CARTCOLL_MPIEXEC) runs them.  MAX_NP (default 4): each test runs
# on the number of processes MPICH's testlist gives, at most MAX_NP (keep
# MPICH, which busy-polls, small on small machines).
#
# The sources: $MPICH_TESTS if set -- an MPICH source tree or release
# tarball (mpich-X.Y.Z.tar.gz / .orig.tar.xz) --, else the Debian source
# package of the installed MPICH version (`apt-get source --download-only`
# with a private deb-src list for the release in /etc/os-release; nothing of
# the system's apt configuration changes), kept in $MPICH_TESTS_CACHE
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/cartcoll/mpich-tests).
#
# Prints one line per test: MPI alone (said, not required: MPI's own
# defects are not the drop-in's) and with the drop-in (required: " No
# Errors", MPICH's success line), with the drop-in's report.  Exit status 1
# if any test fails with the drop-in, 2 if the tests cannot be had or built.
set -eu
build=build/mpich
case ${1:-} in '' | -*) ;; *) build=$1; shift ;; esac
maxnp=${1:-4}
die() { echo "mpich_neighb_tests.sh: $*" >&2; exit 2; }
[ -f "$build/CMakeCache.txt" ] || die "$build is not a configured build tree"
build=$(cd "$build" && pwd)
lib=$build/libcartcoll_preload.so
[ -f "$lib" ] || die "no $lib (build the cartcoll_preload target)"
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
launcher=$(sed -n 's/^CARTCOLL_MPIEXEC:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ -z "$cc" ] || [ -z "$launcher" ]; then die "no C compiler or launcher in $build/CMakeCache.txt"; fi
cache=${MPICH_TESTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cartcoll/mpich-tests}
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- the sources --------------------------------------------------------------
# Fetch the Debian source package of the installed MPICH (its orig tarball
# is MPICH's release tarball, test suite included).
fetch() {
    ver=$(dpkg-query -W -f '${Version}' libmpich-dev 2>/dev/null || true)
    [ -n "$ver" ] || die "set MPICH_TESTS: no Debian package libmpich-dev to take the MPICH version from"
    up=${ver#*:}
    up=${up%%-*}
    set -- "$cache"/mpich_"$up".orig.tar.*
    if [ ! -f "$1" ]; then
        # shellcheck disable=SC1091
        suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
        [ -n "$suite" ] || die "set MPICH_TESTS: no VERSION_CODENAME in /etc/os-release"
        apt=$cache/apt
        mkdir -p "$apt/lists/partial"
        echo "deb-src http://deb.debian.org/debian $suite main" >"$apt/sources.list"
        opts="-o Dir::Etc::sourcelist=$apt/sources.list -o Dir::Etc::sourceparts=/dev/null"
        opts="$opts -o Dir::State::Lists=$apt/lists"
        # shellcheck disable=SC2086
        apt-get -qq $opts update >&2 || die "apt-get update (deb-src $suite) failed; set MPICH_TESTS"
        # shellcheck disable=SC2086
        (cd "$cache" && apt-get -qq $opts source --download-only "mpich=${ver%%+*}" >&2 ||
            apt-get -qq $opts source --download-only mpich >&2) || die "apt-get source mpich failed; set MPICH_TESTS"
        set -- "$cache"/mpich_"$up".orig.tar.*
        [ -f "$1" ] || set -- "$cache"/mpich_*.orig.tar.*
        [ -f "$1" ] || die "no orig tarball after apt-get source; set MPICH_TESTS"
    fi
    echo "$1"
}
src=${MPICH_TESTS:-$(fetch)}
if [ -d "$src" ]; then
    t=$src/test/mpi
else
    tar -xf "$src" -C "$work" --wildcards '*/test/mpi/coll/*neighb*.c' '*/test/mpi/coll/testlist.in' \
        '*/test/mpi/util/mtest.c' '*/test/mpi/util/mtest_common.c' '*/test/mpi/util/mtest_single.c' \
        '*/test/mpi/include/*.h' || die "cannot extract the tests from $src"
    t=$(echo "$work"/*/test/mpi)
fi
[ -f "$t/coll/testlist.in" ] || die "no test/mpi/coll/testlist.in in $src"
echo "mpich_neighb_tests.sh: tests from $src"

# ---- building ---------------------------------------------------------------------
# mpitestconf.h is what MPICH's configure would write for a Linux system;
# mtest_single.c: the tests run single-threaded.
cat >"$work/mpitestconf.h" <<'EOF'
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STDARG_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
EOF
for f in mtest mtest_common mtest_single; do
    "$cc" -w -c -I"$work" -I"$t/include" "$t/util/$f.c" -o "$work/$f.o" || die "cannot build $f.c with $cc"
done
case $($launcher --version 2>&1 | head -1) in
*"Open MPI"* | *OpenRTE*)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    pre="-x LD_PRELOAD=$lib -x CARTCOLL_PRELOAD_REPORT=1" ;;
*) pre="-genv LD_PRELOAD $lib -genv CARTCOLL_PRELOAD_REPORT 1" ;;
esac

# ---- running -------------------------------------------------------------------
status=0
# testlist lines: "name np [options]"; a test may be listed with several np
grep -E '^(p_)?neighb_|^ring_neighbor' "$t/coll/testlist.in" | while read -r name np _; do
    [ "$np" -le "$maxnp" ] || np=$maxnp
    exe=$work/$name
    # (the tests call the neighbourhood collectives only where TEST_NEIGHB_COLL
    # is defined, which they do for MPICH alone)
    if [ ! -x "$exe" ] && ! "$cc" -w -DTEST_NEIGHB_COLL=1 -I"$work" -I"$t/include" "$t/coll/$name.c" \
        "$work/mtest.o" "$work/mtest_common.o" "$work/mtest_single.o" -o "$exe" 2>"$work/cc.log"; then
        # the persistent ones need MPI-4 (MPI_Neighbor_*_init)
        why=$(grep -m1 -o 'MPI_[A-Za-z_]*init' "$work/cc.log" || echo "see the compiler")
        printf '%-24s not built with %s (%s)\n' "$name" "$(basename "$cc")" "$why"
        continue
    fi
    alone=$(timeout 120 "$launcher" -n "$np" "$exe" </dev/null 2>&1 | grep -c '^ No Errors$' || true)
    # shellcheck disable=SC2086
    timeout 120 "$launcher" -n "$np" $pre "$exe" </dev/null >"$work/out" 2>&1 || true
    with=$(grep -c '^ No Errors$' "$work/out" || true)
    report=$(grep -m1 '^cartcoll_preload:' "$work/out" | sed 's/^cartcoll_preload: //' || true)
    printf '%-24s np %d  MPI alone: %-9s drop-in: %-9s %s\n' "$name" "$np" \
        "$([ "$alone" -ge 1 ] && echo 'No Errors' || echo FAILED)" \
        "$([ "$with" -ge 1 ] && echo 'No Errors' || echo FAILED)" "$report"
    if [ "$with" -lt 1 ]; then
        sed 's/^/    /' "$work/out" | head -20
        echo fail >>"$work/failed"
    fi
    echo run >>"$work/ran"
done
ran=$(wc -l <"$work/ran" 2>/dev/null || echo 0)
[ "$ran" -gt 0 ] || die "no test ran"
if [ -f "$work/failed" ]; then
    echo "mpich_neighb_tests.sh: $(wc -l <"$work/failed") of $ran runs failed with the drop-in"
    status=1
else
    echo "mpich_neighb_tests.sh: all $ran runs passed with the drop-in"
fi
exit $status
