/* Stencil offset lists (seed 000 sec. 3): vectors whose distance from the
 * origin lies in [shadow, depth].  Pure C, no MPI. */
#ifndef CC_STENCIL_CORE_H
#define CC_STENCIL_CORE_H

#define CC_METRIC_MANHATTAN 1
#define CC_METRIC_CHEBYSHEV 2

/* Number of such vectors, or -1 if it exceeds `limit` (exact: -1 only then,
 * also where the whole ball of radius depth would exceed it but the shell
 * does not).  Closed forms, no allocation, a bounded number of steps for any
 * d and depth.  d < 1, depth < 0 or shadow > depth: empty; shadow < 0
 * counts as 0. */
long long cc_stencil_count(int d, int metric, int shadow, int depth, long long limit);

/* Writes them (count*d ints) in row-major order of the vectors with
 * coordinates from -depth to depth; returns the count, or -1 out of memory.
 * Time O(d) per vector written: vectors inside the shadow are never visited. */
long long cc_stencil_list(int d, int metric, int shadow, int depth, int *out);

#endif
