#!/bin/sh
# scale.sh --plot on the committed 16384 rows: moore:3,3 (simulated p2p)
# is drawn against its own p2p; moore:4,3, which ran without p2p, against
# the closed form (moore:3,3's p2p scaled by t = 80: 15.605 * 80 / 26),
# marked "*" with the title's note.  Needs gnuplot (scripts/install-deps.sh).
set -eu
src=$1 dir=$2
mkdir -p "$dir"
cp "$src/docs/scale-titan-16384.csv" "$dir/plot16384.csv"
sh "$src/scripts/scale.sh" --plot "$dir/plot16384.csv" >/dev/null
dat=$dir/plot16384.dat
grep -q '^"moore:3,3" .* 15\.605$' "$dat" || { echo "moore:3,3 not against its simulated p2p" >&2; exit 1; }
grep -q '^"moore:4,3\*" .* 48\.015$' "$dat" || { echo "moore:4,3 not against the closed form (48.015), marked *" >&2; exit 1; }
grep -q 'p2p not simulated' "$dir/plot16384.gp" || { echo "no title note for the * cells" >&2; exit 1; }
[ -s "$dir/plot16384.png" ] || { echo "no PNG" >&2; exit 1; }
echo "plot: closed-form cells marked and scaled"
