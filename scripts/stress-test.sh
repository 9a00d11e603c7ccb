#!/bin/sh
# stress-test.sh: run one ctest test many times, several at once, to catch
# what fails or hangs only now and then (a race between processes).
#
#   scripts/stress-test.sh [-n RUNS] [-j PARALLEL] BUILD_DIR TEST_NAME
#
# e.g. scripts/stress-test.sh -n 400 -j 2 build/openmpi nbhcoll_np8
#
# Each of the PARALLEL loops runs `ctest -R ^TEST_NAME$` RUNS/PARALLEL
# times (a hang ends at the test's own TIMEOUT, as in make check; the test
# carries its MPI environment).  Prints one line per run that did not
# pass, then the counts; the output of each such run is kept in
# BUILD_DIR/stress/TEST_NAME-LOOP-RUN.log.  Exit status: 0 when every run
# passed, 1 otherwise, 2 on a usage error.
set -u
runs=100 par=2
while [ $# -gt 0 ]; do
    case "$1" in
    -n) runs=$2; shift 2 ;;
    -j) par=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "stress-test.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# -ne 2 ]; then
    sed -n '2,14p' "$0" >&2
    exit 2
fi
build=$1 name=$2
if ! ctest --test-dir "$build" -N -R "^$name\$" | grep -q "Total Tests: 1"; then
    echo "stress-test.sh: $build has no test named $name" >&2
    exit 2
fi
mkdir -p "$build/stress"
each=$(( (runs + par - 1) / par ))
start=$(date +%s)
loop() {
    k=1
    while [ "$k" -le "$each" ]; do
        log="$build/stress/$name-$1-$k.log"
        ctest --test-dir "$build" -R "^$name\$" --output-on-failure > "$log" 2>&1
        if grep -q "100% tests passed" "$log"; then
            echo pass
            rm -f "$log"
        elif grep -q "Timeout" "$log"; then
            echo "timeout $log"
        else
            echo "fail $log"
        fi
        k=$((k + 1))
    done
}
results=$(
    l=1
    while [ "$l" -le "$par" ]; do
        loop "$l" &
        l=$((l + 1))
    done
    wait
)
echo "$results" | grep -v '^pass$' | sed 's/^/  /'
npass=$(echo "$results" | grep -c '^pass$')
nto=$(echo "$results" | grep -c '^timeout')
nfail=$(echo "$results" | grep -c '^fail')
total=$((npass + nto + nfail))
echo "$name: $npass of $total runs passed, $nto timed out, $nfail failed; $par at a time, $(( $(date +%s) - start )) s"
[ "$npass" -eq "$total" ]
