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
# --cart (first argument): each round also runs cartbench (BUILD_DIR/bench/
# cartbench --comm graph) on the same case -- the neighbourhood moore:d,n,f,
# grid, op, form and m that neighbor_bench ran, read from its CSV -- so the
# drop-in's speed-up (neighbor_bench without / with) stands beside the
# speed-up of the same collective called through the Cart_ API on the same
# kind of communicator (cartbench's MPI baseline / its cartcoll variant:
# mpi / cart, mpi-i / cart-i, mpi-p / cart-p; Cart_dist_graph_create_adjacent
# with the baseline's edges, which is what the drop-in makes of
# MPI_Dist_graph_create_adjacent).  Launch order per round: without, with,
# cartbench.  Speed-ups are per round (the drop-in's from two adjacent
# launches, cartbench's from one); printed: their median over the rounds
# with the smallest and largest, the ratio drop-in / Cart_ of the medians
# (the bar: >= 0.9), and with / cart = the drop-in's median time over the
# Cart_ variant's (the drop-in's own cost; the MPI baselines of the two
# programs vary from launch to launch).  alltoallw: neighbor_bench gets
# --wtype int (m MPI_INTs per block, as cartbench) unless --wtype is given.
#
# Examples (from the repository root, or from the build tree with BUILD_DIR .):
#   scripts/preload_bench.sh build/openmpi 4 -d 4 -n 5 -m 1 --ops alltoall
#   PRELOAD_BENCH_ROUNDS=5 scripts/preload_bench.sh build/openmpi 4 -d 3 -n 3 -m 1,100
#   cd build/mpich && ../../scripts/preload_bench.sh . 2 -d 2 -n 3
#   PRELOAD_BENCH_ROUNDS=5 scripts/preload_bench.sh --cart build/openmpi 4 -d 4 -n 5 -m 1 \
#       --ops alltoall,ialltoall,allgather,iallgather,alltoallw,ialltoallw
set -eu
cart=0
[ "${1:-}" = --cart ] && cart=1 && shift
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
cartbench=$build/bench/cartbench
[ "$cart" -eq 0 ] || [ -x "$cartbench" ] || die "no $cartbench (build the cartbench target)"
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

# --cart: neighbor_bench's --reps/--warmup go to cartbench too, and
# alltoallw blocks are m MPI_INTs on both sides unless --wtype is given.
cb_opts=""
if [ "$cart" -eq 1 ]; then
    wtype=0
    prev=""
    for a in "$@"; do
        case $prev in --reps | --warmup) cb_opts="$cb_opts $prev $a" ;; esac
        [ "$a" = --wtype ] && wtype=1
        prev=$a
    done
    [ "$wtype" -eq 1 ] || set -- "$@" --wtype int
fi

# cartbench on the case neighbor_bench ran (its first CSV): the
# neighbourhood, the collectives, the block sizes and the variants of the
# forms it ran.
cartbench_run() {
    csv1=$1 out=$2
    nbh=$(awk -F, 'NR == 2 { printf "moore:%s,%s,%s", $1, $2, $3 }' "$csv1")
    ms=$(awk -F, 'NR > 1 && !($8 in s) { s[$8] = 1; l = l (l == "" ? "" : ",") $8 } END { print l }' "$csv1")
    colls=$(awk -F, 'NR > 1 { c = $7; sub(/^[ip]/, "", c); if (c == "lltoall") c = "alltoall"
                               if (c == "lltoallw") c = "alltoallw"; if (c == "llgather") c = "allgather"
                               if (!(c in s)) { s[c] = 1; l = l (l == "" ? "" : ",") c } } END { print l }' "$csv1")
    vars=$(awk -F, 'NR > 1 { f = substr($7, 1, 1); v = f == "i" ? "mpi-i,cart-i" : f == "p" ? "mpi-p,cart-p" : "mpi,cart"
                              if (!(v in s)) { s[v] = 1; l = l (l == "" ? "" : ",") v } } END { print l }' "$csv1")
    [ -n "$nbh" ] && [ -n "$ms" ] || return 1
    # shellcheck disable=SC2086
    $launcher -n "$np" ${PRELOAD_BENCH_MPIEXEC_FLAGS:-} "$cartbench" --comm graph --no-progress --tolerate-mpi \
        --ops "$colls" --variants "$vars" -m "$ms" $cb_opts --csv "$out.csv" "$nbh" >"$out.log" 2>&1
}

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
    if [ "$cart" -eq 1 ]; then
        echo "preload_bench.sh: round $r/$rounds, cartbench (Cart_ API)" >&2
        first=$(ls "$tmp"/without.*.csv "$tmp"/with.*.csv 2>/dev/null | head -1)
        if [ -z "$first" ] || ! cartbench_run "$first" "$tmp/cart.$r"; then
            echo "preload_bench.sh: round $r: cartbench failed:" >&2
            grep -E 'FAIL|rror|abort' "$tmp/cart.$r.log" 2>/dev/null | head -20 >&2
            status=1
        fi
        [ -z "${PRELOAD_BENCH_CSV:-}" ] || [ ! -f "$tmp/cart.$r.csv" ] || cp "$tmp/cart.$r.csv" "$PRELOAD_BENCH_CSV/"
    fi
    r=$((r + 1))
done

grep -m2 '^# neighbor_bench:\|^# MPI:' "$tmp/without.1.log" || true

# --cart: per (op, m), per round the drop-in's speed-up (without / with)
# and the Cart_ API's (cartbench's mpi / cart variant of the same form).
if [ "$cart" -eq 1 ]; then
    flagnote=${PRELOAD_BENCH_MPIEXEC_FLAGS:+; launcher flags $PRELOAD_BENCH_MPIEXEC_FLAGS}
    echo "# $rounds rounds (neighbor_bench without, with the drop-in, cartbench --comm graph); $np processes$flagnote"
    echo "# times [us]: median over the rounds of each run's median; speed-ups: median over the rounds [min-max]"
    echo "# drop/Cart = drop-in speed-up / Cart_ API speed-up (bar: >= 0.90); with/cart = drop-in time / Cart_ time"
    : >"$tmp/long"
    r=1
    while [ "$r" -le "$rounds" ]; do
        for side in without with; do
            [ ! -f "$tmp/$side.$r.csv" ] ||
                awk -F, -v s="$side" -v r="$r" 'NR > 1 { print s, r, $7, $8, $12, $15 }' "$tmp/$side.$r.csv" >>"$tmp/long"
        done
        # cartbench's CSV quotes fields with commas (the MPI, the neighbourhood)
        [ ! -f "$tmp/cart.$r.csv" ] || sed 's/"[^"]*"/X/g' "$tmp/cart.$r.csv" | awk -F, -v r="$r" '
            NR > 1 { v = $9; p = v ~ /-i$/ ? "i" : v ~ /-p$/ ? "p" : ""
                     print (v ~ /^mpi/ ? "mpi" : "cart"), r, p $8, $13, $19, $25 }' >>"$tmp/long"
        r=$((r + 1))
    done
    awk -v rounds="$rounds" '
function median(list,   n, a, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) {
        x = a[i]
        for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]
        a[j + 1] = x
    }
    if (n == 0) return -1
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function lo(list,   n, a, i, x) { n = split(list, a, " "); x = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < x + 0) x = a[i]; return x }
function hi(list,   n, a, i, x) { n = split(list, a, " "); x = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 > x + 0) x = a[i]; return x }
{
    key = $3 SUBSEP $4
    if (($1 == "without" || $1 == "with") && !(key in seen)) { seen[key] = 1; order[++nk] = key; op[key] = $3; m[key] = $4 }
    t[$1, key, $2] = $5
    times[$1, key] = times[$1, key] " " $5
    if ($6 != "OK") bad[$1, key] = 1
}
END {
    printf "%-10s %5s %9s %8s %18s %9s %8s %18s %9s %9s  %s\n", "op", "m", "without", "with", "drop-in speed-up",
           "mpi", "cart", "Cart_ speed-up", "drop/Cart", "with/cart", "check"
    for (i = 1; i <= nk; i++) {
        k = order[i]; sd = ""; sc = ""
        for (r = 1; r <= rounds; r++) {
            if (t["without", k, r] > 0 && t["with", k, r] > 0) sd = sd " " t["without", k, r] / t["with", k, r]
            if (t["mpi", k, r] > 0 && t["cart", k, r] > 0) sc = sc " " t["mpi", k, r] / t["cart", k, r]
        }
        md = sd == "" ? 0 : median(sd); mc = sc == "" ? 0 : median(sc)
        wi = median(times["with", k]); ca = median(times["cart", k])
        chk = "OK"
        if (bad["with", k] || bad["cart", k]) chk = "FAIL"
        else if (bad["without", k] || bad["mpi", k]) chk = "OK (MPI alone: FAIL)"
        printf "%-10s %5d %9.2f %8.2f %6.2f [%4.1f-%4.1f] %9.2f %8.2f %6.2f [%4.1f-%4.1f] %9s %9s  %s\n", op[k], m[k],
               median(times["without", k]), wi, md, sd == "" ? 0 : lo(sd), sd == "" ? 0 : hi(sd),
               median(times["mpi", k]), ca, mc, sc == "" ? 0 : lo(sc), sc == "" ? 0 : hi(sc),
               (md > 0 && mc > 0) ? sprintf("%.2f", md / mc) : "-", (wi > 0 && ca > 0) ? sprintf("%.2f", wi / ca) : "-", chk
    }
}' "$tmp/long"
    if grep -q ',FAIL$' "$tmp"/with.*.csv /dev/null || grep -q ',FAIL,' "$tmp"/cart.*.csv /dev/null; then
        echo "preload_bench.sh: some received blocks differ from the oracle" >&2
        status=1
    fi
    exit $status
fi

# The table: per (op, m) in neighbor_bench's order, the median over the
# rounds of each side's median, and without / with.
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
