#!/usr/bin/env python3
"""p2p_bound.py: a lower bound for one message per neighbour on a SimGrid torus.

   scripts/smpi/p2p_bound.py --np 16384 --nbh moore:3,3 --bytes 400
       [--dims 32x32x16] [--torus 8,8,16] [--per-node 16] [--bw 6e9] [--cross 0.05]

Every process of a periodic Cartesian grid (row-major ranks, --dims or the
balanced factorisation MPI_Dims_create gives) sends --bytes to each of its
Moore neighbours at once; ranks are placed by node (--per-node consecutive
ranks per host, hosts in order).  Each message crosses the torus the way
SimGrid 4.1's TorusZone routes it (dimension by dimension, x fastest, the
shorter way round, ties the positive way) on SPLITDUPLEX links (each
direction its own capacity); with crosstraffic (SimGrid's default) a flow
also loads its reverse route by --cross of its size.  Messages within a
node use the loopback and are not counted.

Prints the most loaded link direction's bytes and bytes / --bw in us: no
schedule finishes before that link has carried them, so it bounds p2p (and
DIRECT) from below.  docs/scale.md compares it with the simulated p2p
(Titan model, m = 100) where SimGrid could run that: the simulated time is
the bound plus the posting and completion overheads of the t messages.
The defaults are scripts/platforms/titan.xml's.  Pure Python, no SimGrid.

   scripts/smpi/p2p_bound.py --np 16384 --nbh moore:3,3 --nbh moore:4,3 --bytes 400 --csv

--nbh may be given more than once; --csv prints the bounds as rows of
cartbench's CSV instead (variant p2p-bound, one row per neighbourhood and
--ops collective, m = bytes / 4 ints), for `scripts/scale.sh --table CSV
BOUNDS` and `--plot`, which show a cell run without p2p against it.
"""
import argparse
import itertools
import math
import sys
from collections import defaultdict


def dims_create(p, d):
    """Balanced factorisation, largest first (MPI_Dims_create's result
    for the grids docs/scale.md uses)."""
    dims = [1] * d
    primes, n, q = [], p, 2
    while n > 1:
        while n % q == 0:
            primes.append(q)
            n //= q
        q += 1
    for x in sorted(primes, reverse=True):
        i = dims.index(min(dims))
        dims[i] *= x
    return sorted(dims, reverse=True)


def torus_route(src, dst, torus):
    """Link directions (node, dimension, +1/-1) SimGrid's TorusZone uses
    from node src to node dst (src/kernel/routing/TorusZone.cpp)."""
    def coords(node):
        out, dp = [], 1
        for k in torus:
            out.append((node // dp) % k)
            dp *= k
        return out
    sc, tc = coords(src), coords(dst)
    cur, dp, links = src, 1, []
    for j, k in enumerate(torus):
        if sc[j] != tc[j]:
            pos = (sc[j] < tc[j] <= sc[j] + k // 2) or (sc[j] > k // 2 and (sc[j] + k // 2) % k >= tc[j])
            c = sc[j]
            while c != tc[j]:
                if pos:
                    links.append((cur, j, +1))   # the link of the current node, upwards
                    cur = cur + dp if (cur // dp) % k != k - 1 else cur + dp - dp * k
                    c = (c + 1) % k
                else:
                    nxt = cur - dp if (cur // dp) % k != 0 else cur - dp + dp * k
                    links.append((nxt, j, -1))   # the link of the next node, downwards
                    cur = nxt
                    c = (c - 1) % k
        dp *= k
    return links


def bound(np_, dims, n, nbytes, torus, per_node, cross):
    d = len(dims)
    if n % 2 != 1 or n < 3:
        raise ValueError("moore:d,n needs an odd n >= 3")
    if math.prod(dims) != np_:
        raise ValueError("dims %s do not multiply to %d" % ("x".join(map(str, dims)), np_))
    nodes = math.prod(torus)
    if (np_ + per_node - 1) // per_node > nodes:
        raise ValueError("%d processes need more than the torus's %d nodes" % (np_, nodes))
    r = n // 2
    offsets = [o for o in itertools.product(range(-r, r + 1), repeat=d) if any(o)]
    strides = [1] * d
    for i in range(d - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    load = defaultdict(float)
    routes = {}

    def add(s, t, amount):
        if (s, t) not in routes:
            routes[(s, t)] = torus_route(s, t, torus)
        for link in routes[(s, t)]:
            load[link] += amount

    for rank in range(np_):
        c = [(rank // strides[i]) % dims[i] for i in range(d)]
        src = rank // per_node
        for o in offsets:
            dst = sum(((c[i] + o[i]) % dims[i]) * strides[i] for i in range(d)) // per_node
            if dst == src:
                continue
            add(src, dst, nbytes)
            if cross:
                add(dst, src, cross * nbytes)
    return max(load.values()) if load else 0.0, len(offsets)


CSV_HEADER = ("mpi,np,nbh,d,t,dims,periodic,collective,variant,form,algorithm,executor,m,irregular,bytes,"
              "rounds,reps,kept,median_us,ci_lo_us,ci_hi_us,ci_coverage,min_us,speedup,check,comm,comm_ratio")


def csv_row(np_, nbh, d, t, dims, op, nbytes, us):
    """One bound as a row of cartbench's CSV (CSV_HEADER's columns): a
    computed figure, so no repetitions and no confidence interval."""
    m = nbytes / 4
    return ('"p2p_bound.py",%d,"%s",%d,%d,%s,1,%s,p2p-bound,bound,p2p,-,%s,0,%d,%d,0,0,%.3f,%.3f,%.3f,0.0000,%.3f,,OK,bound,'
            % (np_, nbh, d, t, "x".join(map(str, dims)), op, ("%d" % m) if m == int(m) else "%g" % m,
               int(t * nbytes), t, us, us, us, us))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--nbh", required=True, action="append", help="moore:d,n (repeatable)")
    ap.add_argument("--bytes", type=float, required=True, help="bytes per message (m ints: 4 m)")
    ap.add_argument("--dims", help="grid, e.g. 32x32x16 (default: balanced)")
    ap.add_argument("--torus", default="8,8,16")
    ap.add_argument("--per-node", type=int, default=16)
    ap.add_argument("--bw", type=float, default=6e9, help="bytes/s per link direction")
    ap.add_argument("--cross", type=float, default=0.05, help="crosstraffic share (0: off)")
    ap.add_argument("--csv", action="store_true", help="rows of cartbench's CSV (variant p2p-bound)")
    ap.add_argument("--ops", default="alltoall,allgather", help="--csv: the collectives of the rows")
    a = ap.parse_args()
    if a.csv:
        print(CSV_HEADER)
    for nbh in a.nbh:
        one(a, nbh)


def one(a, nbh):
    try:
        kind, rest = nbh.split(":")
        d, n = (int(x) for x in rest.split(","))
        if kind != "moore" or d < 1:
            raise ValueError
    except ValueError:
        sys.exit("p2p_bound.py: --nbh moore:d,n expected, got " + nbh)
    dims = [int(x) for x in a.dims.split("x")] if a.dims else dims_create(a.np, d)
    if len(dims) != d:
        sys.exit("p2p_bound.py: --dims has %d dimensions, moore:%d,%d needs %d" % (len(dims), d, n, d))
    try:
        most, t = bound(a.np, dims, n, a.bytes, [int(x) for x in a.torus.split(",")], a.per_node, a.cross)
    except ValueError as e:
        sys.exit("p2p_bound.py: %s" % e)
    if a.csv:
        for op in a.ops.split(","):
            print(csv_row(a.np, nbh, d, t, dims, op, a.bytes, most / a.bw * 1e6))
        return
    print("np=%d nbh=%s t=%d dims=%s bytes=%g: most loaded link %.0f bytes, %.3f us at %g B/s"
          % (a.np, nbh, t, "x".join(map(str, dims)), a.bytes, most, most / a.bw * 1e6, a.bw))


if __name__ == "__main__":
    main()
