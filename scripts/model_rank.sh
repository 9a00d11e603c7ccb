#!/bin/sh
# The cost model's ranking against recorded cartbench runs (issue 28,
# docs/model-rank.md): builds tests/unit/model_rank from the pure sources
# with the host's C compiler (no MPI, no CMake) and runs it.
#   scripts/model_rank.sh [DIR]       a recorded run: DIR/summary.txt, the
#       calibration in DIR/decisions16.log, the first run's rows beside
#       (default ../shared/measurements/16cores-mpich)
#   scripts/model_rank.sh --csv FILE  a cartbench CSV (docs/perf-*.csv,
#       docs/scale-*.csv): its moore cells with forced DIRECT and COMBINING
#       (blocking, else persistent with the faster executor), priced with
#       CARTCOLL_ALPHA/BETA/OVERHEAD or the library's defaults (no
#       calibration recorded; needs python3)
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
    if r['nbh'].startswith('moore:') and r.get('irregular', '0') == '0':
        d, n = r['nbh'][6:].split(',')[:2]
        v = cells.setdefault((r['np'], d, n, r['t'], r['collective'], r['m']), {})
        x, name = float(r['median_us']), r['variant']
        for alg in ('direct', 'combining'):  # blocking, else persistent with its faster executor
            if name == 'cart-' + alg:
                v[alg] = x
            elif name.startswith('cart-p-' + alg + '-'):
                v['p' + alg] = min(x, v.get('p' + alg, x))
        if name in ('cart', 'cart-p'): v.setdefault(name, x)
for key, v in cells.items():
    dd, cc = v.get('direct', v.get('pdirect')), v.get('combining', v.get('pcombining'))
    if dd is not None and cc is not None:
        print('cb,%s,0,0,%s,%s,%s' % (','.join(key), v.get('cart', v.get('cart-p', 0)), dd, cc))
PY
    "$tmp" ${MODEL_RANK_FLAGS:-} "$tmp.rows"
    exit
fi
dir=${1:-$root/../shared/measurements/16cores-mpich}
"$tmp" ${MODEL_RANK_FLAGS:-} "$dir/summary.txt" "$dir/decisions16.log" "$dir/run1-summary-rows.txt"
