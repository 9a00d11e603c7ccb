#!/bin/sh
# The cost model's ranking against recorded cartbench runs (issue 28,
# docs/model-rank.md): builds tests/unit/model_rank from the pure sources
# with the host's C compiler (no MPI, no CMake) and runs it.
#   scripts/model_rank.sh [DIR]       a recorded run: DIR/summary.txt, the
#       calibration in DIR/decisions16.log, the first run's rows beside
#       (default ../shared/measurements/16cores-mpich)
#   scripts/model_rank.sh --csv FILE  a cartbench CSV (docs/perf-*.csv): its
#       moore cells with forced DIRECT and COMBINING, the library's default
#       parameters (no calibration recorded; needs python3)
# MODEL_RANK_FLAGS=-f: the figures the model reads, as CSV, instead.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}/cartcoll-model_rank.$$
trap 'rm -f "$tmp" "$tmp.rows"' EXIT
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -I"$root/src" -o "$tmp" \
    "$root/tests/unit/model_rank.c" "$root/tests/unit/model_cells.c" \
    "$root"/src/geom/*.c "$root"/src/sched/*.c
if [ "${1:-}" = "--csv" ]; then
    # cartbench's columns (docs/guide.md) -> summary rows cb,np,d,n,t,op,m,mpi,floor,cart,cart-d,cart-c
    python3 - "$2" >"$tmp.rows" <<'PY'
import csv, sys
cells = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r['nbh'].startswith('moore:') and r['irregular'] == '0':
        d, n = r['nbh'][6:].split(',')[:2]
        key = (r['np'], d, n, r['t'], r['collective'], r['m'])
        cells.setdefault(key, {})[r['variant']] = r['median_us']
for key, v in cells.items():
    if 'cart-direct' in v and 'cart-combining' in v:
        print('cb,%s,%s,0,%s,%s,%s' % (','.join(key), v.get('mpi', '0'), v.get('cart', '0'),
                                        v['cart-direct'], v['cart-combining']))
PY
    "$tmp" ${MODEL_RANK_FLAGS:-} "$tmp.rows"
    exit
fi
dir=${1:-$root/../shared/measurements/16cores-mpich}
"$tmp" ${MODEL_RANK_FLAGS:-} "$dir/summary.txt" "$dir/decisions16.log" "$dir/run1-summary-rows.txt"
