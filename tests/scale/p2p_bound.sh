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
python3 "$b" $r --nbh moore:1,3 | grep -q 'most loaded link 1050 bytes' || fail "moore:1,3: not 1050 bytes"
python3 "$b" $r --nbh moore:1,5 | grep -q 'most loaded link 5250 bytes' || fail "moore:1,5: not 5250 bytes"
python3 "$b" $r --nbh moore:1,5 --cross 0 | grep -q 'most loaded link 5000 bytes' || fail "moore:1,5 without crosstraffic: not 5000"
python3 "$b" --np 16384 --nbh moore:3,3 --bytes 400 | grep -q 'dims=32x32x16' || fail "16384 processes: not the 32x32x16 grid"
python3 "$b" --np 8 --dims 4 --nbh moore:1,3 --bytes 1 2>/dev/null && fail "dims 4 for 8 processes accepted"
python3 "$b" --np 4 --nbh moore:1,4 --bytes 1 2>/dev/null && fail "an even n accepted"
echo "p2p_bound: hand-counted loads on a ring of 4"
