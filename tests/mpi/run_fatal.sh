#!/bin/sh
# run_fatal.sh LAUNCHER EXE WHAT REGEX: run `LAUNCHER -n 1 EXE WHAT`, which
# must abort through MPI_ERRORS_ARE_FATAL with a message matching REGEX.
# Open MPI 4.1 sometimes loses the abort message on its way to mpirun
# ("ORTE_ERROR_LOG: ... show_help.c"), so a run without any message is
# retried (up to 10 runs, a second apart: under heavy load CI once lost it
# 5 times in a row); a run that does not abort fails at once.
launcher=$1 exe=$2 what=$3 regex=$4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for attempt in 1 2 3 4 5 6 7 8 9 10; do
    "$launcher" -n 1 "$exe" "$what" >"$out" 2>&1
    status=$?
    cat "$out"
    if grep -q "NOT ABORTED" "$out"; then
        echo "run_fatal: $what: the bad call did not abort"
        exit 1
    fi
    if [ "$status" -eq 0 ]; then
        echo "run_fatal: $what: exit status 0 after the bad call"
        exit 1
    fi
    if grep -Eq "$regex" "$out"; then
        echo "run_fatal: $what: aborted with the expected message (run $attempt)"
        exit 0
    fi
    echo "run_fatal: $what: run $attempt aborted without the message /$regex/"
    sleep 1
done
exit 1
