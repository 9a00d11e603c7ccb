#!/bin/sh
# The PMPI drop-in on an unmodified MPI program (neighbor_prog, neighbor_nb,
# neighbor_f): run without it (MPI alone: said, not required -- see below),
# with it (CARTCOLL_PRELOAD=on: the program must PASS against its oracle and
# the report line must be exactly the one the program says it must be), in
# passthrough mode (other graphs to MPI: the report counts only Cartesian
# calls) and off (no report).  Every launch is bounded by `timeout`.
#
# Usage: run.sh PROGRAM PRELOAD_LIBRARY LAUNCHER NP [PROGRAM ARGS...]
# PRELOAD_TEST_EXTRA: more runs with the drop-in on, ';'-separated, each a
# list of VAR=value for the processes (e.g. "CARTCOLL_ALGORITHM=torus;
# CARTCOLL_ASYNC_PROGRESS=1"), checked like the first.
set -u
prog=$1 lib=$2 launcher=$3 np=$4
shift 4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
name=$(basename "$prog")
case $($launcher --version 2>&1 | head -1) in
*"Open MPI"*|*OpenRTE*) env1() { echo "-x $1=$2"; } ;;
*) env1() { echo "-genv $1 $2"; } ;;
esac
fail() { echo "run.sh: $name: $*"; cat "$out"; exit 1; }
# A drop-in built with AddressSanitizer (scripts/sanitize.sh) needs the ASan
# runtime first among the preloaded libraries.
asan=$(ldd "$lib" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*libasan[^ ]*\).*/\1/p' | head -n 1)
[ -n "$asan" ] && lib="$asan:$lib"

# launch TIMEOUT MODE [VAR=value...]: the program with the drop-in in MODE
# ("none": without it); sets rc (124: timed out).
launch() {
    limit=$1 mode=$2
    shift 2
    flags=""
    if [ "$mode" != none ]; then
        flags="$(env1 LD_PRELOAD "$lib") $(env1 CARTCOLL_PRELOAD_REPORT 1) $(env1 CARTCOLL_PRELOAD "$mode")"
        for kv in "$@"; do flags="$flags $(env1 "${kv%%=*}" "${kv#*=}")"; done
    fi
    # shellcheck disable=SC2086
    timeout "$limit" $launcher -n "$np" $flags "$prog" $args >"$out" 2>&1
    rc=$?
}
args="$*"
# (the programs print "PROGRAM: PASS" and "PROGRAM: expect LINE")
passed() { [ "$rc" -eq 0 ] && grep -q "^neighbor_[a-z]*: PASS" "$out"; }
# the report line the program says the drop-in must print (mode on)
expected() { sed -n "s/^neighbor_[a-z]*: expect //p" "$out" | head -1; }

# Without the drop-in the program runs on MPI alone, which is not always
# right (MPICH 4.0 matches repeated edges in reverse, both MPIs misplace
# blocks on periodic dimensions of size 1 and 2, Open MPI 4.1's Fortran
# MPI_Neighbor_alltoallw fails on MPI_Cart_create communicators, MPICH
# 4.0's persistent collectives misbehave under MPI_Testany): said, not
# required; where it is wrong, passthrough (which leaves other graphs to
# MPI) and off are only checked for their reports, and may time out.
launch 60 none
if passed; then
    mpi_right=1
    echo "run.sh: $name: MPI alone: right"
else
    mpi_right=0
    [ "$rc" -eq 124 ] && echo "run.sh: $name: MPI alone: timed out" || echo "run.sh: $name: MPI alone: wrong (a known MPI defect?):"
    grep "^preload test\|^neighbor_" "$out" | head -3
fi

# on: required; the program's requests must behave as the drop-in documents
on() {
    launch 120 on "$@"
    what="on${1:+ ($*)}"
    [ "$rc" -ne 124 ] || fail "$what: timed out"
    passed || fail "$what: the program failed"
    want=$(expected)
    [ -n "$want" ] || fail "$what: the program printed no expected report"
    grep -qx "$want" "$out" || fail "$what: expected the report line '$want'"
    # the drop-in adds no output but its report, printed once: every other
    # line is the program's
    [ "$(grep -cx "$want" "$out")" -eq 1 ] || fail "$what: the report line is not printed exactly once"
    extra=$(grep -v "^neighbor_[a-z]*: " "$out" | grep -vx "$want" | head -3)
    [ -z "$extra" ] || fail "$what: output besides the program's and the report: $extra"
    ! grep -q "MPI_Cancel of a collective request: accepted\|MPI_Cancel of a collective request: another\|MPI_Request_free of an active collective request: refused" "$out" ||
        fail "$what: MPI_Cancel / MPI_Request_free of a collective request did not behave as documented"
    echo "run.sh: $name: $what: ok"
}
on
# passthrough: only Cartesian calls counted
launch 60 passthrough
if [ "$rc" -eq 124 ]; then
    [ "$mpi_right" -eq 0 ] || fail "passthrough: timed out"
    echo "run.sh: $name: passthrough: did not finish (MPI alone is wrong here)"
else
    [ "$mpi_right" -eq 0 ] || passed || fail "passthrough: the program failed"
    want=$(expected | sed 's/calls [0-9]*, \([0-9]*\) accelerated/calls \1, \1 accelerated/')
    [ -z "$want" ] || grep -qx "$want" "$out" || fail "passthrough: expected the report line '$want'"
    echo "run.sh: $name: passthrough: ok${want:+ ($want)}"
fi
# off: MPI alone, no report
launch 60 off
[ "$rc" -ne 124 ] || [ "$mpi_right" -eq 0 ] || fail "off: timed out"
! grep -v "^neighbor_[a-z]*: " "$out" | grep -qi cartcoll || fail "off: a report or message although the drop-in is off"
[ "$mpi_right" -eq 0 ] || passed || fail "off: the program failed (it passed on MPI alone)"
echo "run.sh: $name: off: ok"
# more runs with the drop-in on
if [ -n "${PRELOAD_TEST_EXTRA:-}" ]; then
    echo "$PRELOAD_TEST_EXTRA" | tr ';' '\n' | while read -r extra; do
        [ -n "$extra" ] || continue
        # shellcheck disable=SC2086
        on $extra
    done || exit 1
fi
