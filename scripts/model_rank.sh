#!/bin/sh
# The cost model's ranking against a recorded cartbench run (issue 28,
# docs/performance.md): builds tests/unit/model_rank from the pure sources
# with the host's C compiler (no MPI, no CMake) and runs it on the run's
# summary, decision log and the first run's rows (its ratios beside).
# MODEL_RANK_FLAGS=-f: the figures the model reads, as CSV.
#   scripts/model_rank.sh [DIR]   DIR: default ../shared/measurements/16cores-mpich
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/../shared/measurements/16cores-mpich}
out=${TMPDIR:-/tmp}/cartcoll-model_rank.$$
trap 'rm -f "$out"' EXIT
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -I"$root/src" -o "$out" \
    "$root/tests/unit/model_rank.c" "$root/tests/unit/model_cells.c" \
    "$root"/src/geom/*.c "$root"/src/sched/*.c
"$out" ${MODEL_RANK_FLAGS:-} "$dir/summary.txt" "$dir/decisions16.log" "$dir/run1-summary-rows.txt"
