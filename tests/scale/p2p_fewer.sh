#!/bin/sh
# scale.sh --table and --plot with a second CSV whose p2p rows stand in
# for cells run without p2p: the committed 16384 rows at m = 100 take
# moore:3,3's p2p from the Titan model on 1024 processes (75.102 us),
# shown as "@1024" (the plot: "(1024)"); without the second CSV their p2p
# stays empty.  A third CSV of computed lower bounds (p2p_bound.py --csv,
# docs/scale-titan-16384-bound.csv) fills the cells with no p2p at all,
# shown as ">=" (the plot: "(bound)"), and never replaces a simulated p2p.
# Needs gnuplot (scripts/install-deps.sh).
set -eu
src=$1 dir=$2
mkdir -p "$dir"
cp "$src/docs/scale-titan-16384.csv" "$dir/f16384.csv"
few=$src/docs/scale-titan-1024.csv
sh "$src/scripts/scale.sh" --table "$dir/f16384.csv" "$few" > "$dir/table.txt"
grep -Eq '^moore:3,3 +alltoall +100 +75\.102@1024 ' "$dir/table.txt" || { echo "table: no p2p from 1024 for moore:3,3 alltoall m = 100" >&2; exit 1; }
grep -Eq '^moore:3,3 +alltoall +1 +15\.605 ' "$dir/table.txt" || { echo "table: the simulated p2p at m = 1 was replaced" >&2; exit 1; }
sh "$src/scripts/scale.sh" --table "$dir/f16384.csv" > "$dir/table0.txt"
if grep -q '@' "$dir/table0.txt"; then echo "table without a second CSV shows a p2p from it" >&2; exit 1; fi
sh "$src/scripts/scale.sh" --plot "$dir/f16384.csv" "$few" >/dev/null
grep -q '^"moore:3,3 (1024)" .* 75\.102$' "$dir/f16384.dat" || { echo "plot: moore:3,3 m = 100 not against p2p on 1024" >&2; exit 1; }
grep -q '^"moore:4,3\*" .* 48\.015$' "$dir/f16384.dat" || { echo "plot: the m = 1 closed form is gone" >&2; exit 1; }
grep -q '(N): p2p simulated on N processes' "$dir/f16384.gp" || { echo "plot: no title note for the (N) cells" >&2; exit 1; }
lb=$src/docs/scale-titan-16384-bound.csv
sh "$src/scripts/scale.sh" --table "$dir/f16384.csv" "$few" "$lb" > "$dir/table2.txt"
grep -Eq '^moore:4,3 +alltoall +100 +>=201\.600 ' "$dir/table2.txt" || { echo "table: no bound for moore:4,3 alltoall m = 100" >&2; exit 1; }
grep -Eq '^moore:3,3 +alltoall +100 +75\.102@1024 ' "$dir/table2.txt" || { echo "table: the bound replaced the p2p from 1024" >&2; exit 1; }
grep -Eq '^moore:3,3 +alltoall +1 +15\.605 ' "$dir/table2.txt" || { echo "table: the bound replaced the simulated p2p at m = 1" >&2; exit 1; }
# a bound for another size is not this CSV's
sed 's/^"p2p_bound.py",16384,/"p2p_bound.py",4096,/' "$lb" > "$dir/lb4096.csv"
sh "$src/scripts/scale.sh" --table "$dir/f16384.csv" "$dir/lb4096.csv" > "$dir/table3.txt"
if grep -q '>=' "$dir/table3.txt"; then echo "table: a bound for 4096 processes shown at 16384" >&2; exit 1; fi
sh "$src/scripts/scale.sh" --plot "$dir/f16384.csv" "$few" "$lb" >/dev/null
grep -q '^"moore:5,3 (bound)" .* 211\.680$' "$dir/f16384.dat" || { echo "plot: moore:5,3 m = 100 not against its bound" >&2; exit 1; }
grep -q '^"moore:3,3 (1024)" .* 75\.102$' "$dir/f16384.dat" || { echo "plot: the bound replaced the p2p from 1024" >&2; exit 1; }
grep -q '(bound): p2p not simulated' "$dir/f16384.gp" || { echo "plot: no title note for the (bound) cells" >&2; exit 1; }
echo "p2p from fewer processes: in the table (@1024) and the plot ((1024)); bounds where there is none (>=, (bound))"
