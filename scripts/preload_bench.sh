#!/bin/sh
# neighbor_bench without and with the PMPI drop-in, interleaved.
#
#   scripts/preload_bench.sh [BUILD_DIR] [NP] [neighbor_bench options...]
#
# Runs BUILD_DIR/bench/neighbor_bench (a plain MPI program that knows
# nothing of cartcoll) on NP processes, alternately without and with
# LD_PRELOAD=BUILD_DIR/libcartcoll_preload.so, PRELOAD_BENCH_ROUNDS rounds
# (default 3) interleaved at launch granularity: without, with, without,
# with, ...  So drift in the machine's load hits both sides alike.  Prints per
# (op, m) the median over the rounds of each side's median per-call time
# and the speed-up (without / with); the check column is OK only if every
# run of that side agreed with neighbor_bench's point-to-point oracle.
# Exit status 1 if any run failed or any check failed (the failing lines of
# neighbor_bench's stderr are shown).
#
# BUILD_DIR: a configured and built cartcoll build tree (default: the
# current directory if it is one, else build); the launcher is the one CMake
# chose for it (CARTCOLL_MPIEXEC in CMakeCache.txt, or PRELOAD_BENCH_MPIEXEC).
# NP: default 4 (Open MPI; keep MPICH, which busy-polls, at 2 on a 2-core
# machine).  Open MPI gets the run-as-root and oversubscription variables.
# The environment reaches the processes as in tests/preload/run.sh:
# `-x VAR=value` for Open MPI, `-genv VAR value` for MPICH.
# PRELOAD_BENCH_MPIEXEC_FLAGS: more launcher flags for both sides, e.g.
# "--bind-to core:overload-allowed --map-by core" (Open MPI, more processes
# than cores: fixed placement; without it, where the scheduler puts the
# processes changes a launch's times by up to 2x for small cases, which only
# more rounds average out).  PRELOAD_BENCH_CSV=DIR keeps every run's CSV
# there (without.R.csv, with.R.csv).
#
# Examples (from the repository root, or from the build tree with BUILD_DIR .):
#   scripts/preload_bench.sh build/openmpi 4 -d 4 -n 5 -m 1 --ops alltoall
#   PRELOAD_BENCH_ROUNDS=5 scripts/preload_bench.sh build/openmpi 4 -d 3 -n 3 -m 1,100
#   cd build/mpich && ../../scripts/preload_bench.sh . 2 -d 2 -n 3
set -eu
# BUILD_DIR and NP may be left out (then the options start with '-').
build=build
[ -f CMakeCache.txt ] && build=.
case ${1:-} in '' | -*) ;; *) build=$1; shift ;; esac
np=4
case ${1:-} in '' | -*) ;; *) np=$1; shift ;; esac
rounds=${PRELOAD_BENCH_ROUNDS:-3}
bench=$build/bench/neighbor_bench
lib=$(cd "$build" && pwd)/libcartcoll_preload.so
die() { echo "preload_bench.sh: $*" >&2; exit 2; }
[ -x "$bench" ] || die "no $bench (build the neighbor_bench target)"
[ -f "$lib" ] || die "no $lib (build the cartcoll_preload target)"
case $np in '' | *[!0-9]*) die "NP must be a number, not '$np'" ;; esac
case $rounds in '' | *[!0-9]* | 0) die "PRELOAD_BENCH_ROUNDS must be a positive number" ;; esac
launcher=${PRELOAD_BENCH_MPIEXEC:-$(sed -n 's/^CARTCOLL_MPIEXEC:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)}
[ -n "$launcher" ] || launcher=mpiexec
case $($launcher --version 2>&1 | head -1) in
*"Open MPI"* | *OpenRTE*)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    pre="-x LD_PRELOAD=$lib" ;;
*) pre="-genv LD_PRELOAD $lib" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -z "${PRELOAD_BENCH_CSV:-}" ] || mkdir -p "$PRELOAD_BENCH_CSV"
status=0

# The runs (at the top level, where "$@" is neighbor_bench's options).
r=1
while [ "$r" -le "$rounds" ]; do
    for side in without with; do
        flags=${PRELOAD_BENCH_MPIEXEC_FLAGS:-}
        [ "$side" = with ] && flags="$flags $pre"
        base="$tmp/$side.$r"
        echo "preload_bench.sh: round $r/$rounds, $side the drop-in" >&2
        # shellcheck disable=SC2086
        if ! $launcher -n "$np" $flags "$bench" "$@" --csv "$base.csv" >"$base.log" 2>&1; then
            echo "preload_bench.sh: round $r, $side the drop-in: neighbor_bench failed:" >&2
            grep -E 'FAIL|rror|abort' "$base.log" | head -20 >&2
            status=1
        fi
        [ -z "${PRELOAD_BENCH_CSV:-}" ] || [ ! -f "$base.csv" ] || cp "$base.csv" "$PRELOAD_BENCH_CSV/"
    done
    r=$((r + 1))
done

# The table: per (op, m) in neighbor_bench's order, the median over the
# rounds of each side's median, and without / with.
grep -m2 '^# neighbor_bench:\|^# MPI:' "$tmp/without.1.log" || true
flagnote=${PRELOAD_BENCH_MPIEXEC_FLAGS:+; launcher flags $PRELOAD_BENCH_MPIEXEC_FLAGS}
echo "# $rounds rounds, interleaved (without, with, ...); $np processes$flagnote"
echo "# per side: median over the rounds of each run's median per-call time [us]; speed-up = without / with"
cat "$tmp"/without.*.csv /dev/null | sed 's/^/without,/' >"$tmp/all"
cat "$tmp"/with.*.csv /dev/null | sed 's/^/with,/' >>"$tmp/all"
awk -F, -v rounds="$rounds" '
function median(list,   n, a, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) {   # insertion sort: a handful of rounds
        x = a[i]
        for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]
        a[j + 1] = x
    }
    if (n == 0) return -1
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$2 == "d" { next }
{
    key = $8 SUBSEP $9
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key; op[key] = $8; m[key] = $9 }
    times[$1, key] = times[$1, key] " " $13
    runs[$1, key]++
    if ($16 != "OK") bad[$1, key] = 1
}
END {
    printf "%-11s %7s %14s %14s %9s  %s\n", "op", "m", "without_us", "with_us", "speed-up", "check (without/with)"
    for (i = 1; i <= nk; i++) {
        k = order[i]; wo = median(times["without", k]); wi = median(times["with", k])
        cw = runs["without", k] < rounds ? "MISSING" : bad["without", k] ? "FAIL" : "OK"
        ci = runs["with", k] < rounds ? "MISSING" : bad["with", k] ? "FAIL" : "OK"
        su = (wi > 0 && wo > 0) ? sprintf("%.2f", wo / wi) : "-"
        printf "%-11s %7d %14.2f %14.2f %9s  %s/%s\n", op[k], m[k], wo, wi, su, cw, ci
    }
}' "$tmp/all"
if grep -q ',FAIL$' "$tmp/all"; then
    echo "preload_bench.sh: some received blocks differ from the oracle:" >&2
    grep -h 'neighbor_bench: FAIL rank' "$tmp"/*.log | sort | uniq | head -20 >&2
    status=1
fi
exit $status
