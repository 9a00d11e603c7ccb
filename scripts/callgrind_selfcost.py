#!/usr/bin/env python3
"""Per-function self cost of one persistent start+wait, from the files that
`CG_KEEP=DIR scripts/callgrind.sh ...` keeps: (run of 2x iterations - run of
1x) / (iterations x processes), so set-up and MPI_Finalize cancel out.

Usage: scripts/callgrind_selfcost.py DIR ITERATIONS NP [POLL ...]

POLL: substrings of function names that are MPI's progress polling (their
count grows with how long a process waits for the other, on a shared
machine anything); the last line gives the total without them, the work
that moving the data costs.  For Debian 12's MPICH 4.0.2 (ch4:ucx, no
symbols): 0x0000000000018430 ucp_worker_progress 0x00000000002d9430
0x0000000000293470 (the four top functions of an empty wait).  Caveat:
valgrind counts a `rep movsb` memcpy far below its cost, so instructions
understate copies (compare copies by time, or by bytes)."""
import collections
import glob
import sys


def load(files):
    c = collections.Counter()
    for f in files:
        ob = fn = None
        skip = False
        for line in open(f):
            if line.startswith('ob='):
                ob = line[3:].strip().split('/')[-1]
            elif line.startswith('fn='):
                fn = line[3:].strip()
            elif line.startswith('calls='):
                skip = True
            elif line[:1].isdigit() or line[:1] in '+-*':
                if skip:
                    skip = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    c[(ob, fn)] += int(parts[1])
    return c


def main():
    d, iters, nproc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    poll = sys.argv[4:]
    a, b = load(glob.glob(d + '/cg.1.*')), load(glob.glob(d + '/cg.2.*'))
    diff = {k: (b[k] - a.get(k, 0)) / (iters * nproc) for k in b}
    work = 0
    for k, v in sorted(diff.items(), key=lambda x: -x[1]):
        polling = any(p in k[1] for p in poll)
        if not polling:
            work += v
        if abs(v) >= 50:
            print(f"{v:10.0f} {'POLL ' if polling else ''}{k[0]}:{k[1]}")
    print(f"per start+wait per process: {sum(diff.values()):.0f} instructions in all, {work:.0f} without polling")


if __name__ == '__main__':
    main()
