#!/bin/sh
# scripts/smpi/p2p_bound.py against loads counted by hand on a ring of 4
# nodes, one process each, 1000 bytes per message:
#  * moore:1,3 (offsets -1, +1): each link direction carries one message
#    and 5% of the opposite one's (crosstraffic): 1050 bytes;
#  * moore:1,5 adds -2 and +2, both 2 hops away, which SimGrid routes the
#    positive way (a tie): link i -> i+1 carries i's +1, +2 and -2, and the
#    second hop of i-1's +2 and -2: 5000 bytes, and 250 of crosstraffic
#    (the reverse routes of i+1's -1, of i+2's two and of i+1's two);
#  * a grid that does not multiply to --np, and an even n, are refused.
set -u
b=$1/scripts/smpi/p2p_bound.py
r="--np 4 --dims 4 --torus 4 --per-node 1 --bytes 1000"
fail() { echo "$*" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 "$b" $r --nbh moore:1,3 | grep -q 'most loaded link 1050 bytes' || fail "moore:1,3: not 1050 bytes"
python3 "$b" $r --nbh moore:1,5 | grep -q 'most loaded link 5250 bytes' || fail "moore:1,5: not 5250 bytes"
python3 "$b" $r --nbh moore:1,5 --cross 0 | grep -q 'most loaded link 5000 bytes' || fail "moore:1,5 without crosstraffic: not 5000"
python3 "$b" --np 16384 --nbh moore:3,3 --bytes 400 | grep -q 'dims=32x32x16' || fail "16384 processes: not the 32x32x16 grid"
# the committed bounds are the script's (moore:3,3 only: the four take 30 s)
python3 "$b" --np 16384 --nbh moore:3,3 --bytes 400 --csv | tail -n +2 | while read -r row; do
    grep -qxF "$row" "$1/docs/scale-titan-16384-bound.csv" || { echo "not in docs/scale-titan-16384-bound.csv: $row" >&2; exit 1; }
done || fail "docs/scale-titan-16384-bound.csv is not what p2p_bound.py --csv prints"
python3 "$b" --np 8 --dims 4 --nbh moore:1,3 --bytes 1 2>/dev/null && fail "dims 4 for 8 processes accepted"
python3 "$b" --np 4 --nbh moore:1,4 --bytes 1 2>/dev/null && fail "an even n accepted"
# --csv: a row of cartbench's CSV per neighbourhood and collective, the
# header the committed CSVs have (scale.sh --table reads them together)
python3 "$b" $r --nbh moore:1,3 --nbh moore:1,5 --csv > "$out" || fail "--csv failed"
[ "$(head -1 "$out")" = "$(head -1 "$1/docs/scale-titan-16384.csv")" ] || fail "--csv: not cartbench's header"
grep -q '^"p2p_bound.py",4,"moore:1,3",1,2,4,1,alltoall,p2p-bound,.*,0\.175,0\.175,0\.175,' "$out" || fail "--csv: no moore:1,3 alltoall row of 0.175 us"
[ "$(grep -c ',p2p-bound,' "$out")" = 4 ] || fail "--csv: not 2 neighbourhoods x 2 collectives"
grep -q '"moore:1,5",1,4,4,1,allgather,p2p-bound,.*,0\.875,' "$out" || fail "--csv: moore:1,5 not 5250 bytes = 0.875 us"
echo "p2p_bound: hand-counted loads on a ring of 4"
