/* Stencil offset lists (seed 000 sec. 3): vectors whose distance from the
 * origin lies in [shadow, depth].  Pure C, no MPI. */
#ifndef CC_STENCIL_CORE_H
#define CC_STENCIL_CORE_H

#define CC_METRIC_MANHATTAN 1
#define CC_METRIC_CHEBYSHEV 2

/* Number of such vectors, or -1 if it exceeds `limit`. */
long long cc_stencil_count(int d, int metric, int shadow, int depth, long long limit);

/* Writes them (count*d ints) in row-major order of the vectors with
 * coordinates from -depth to depth; returns the count. */
long long cc_stencil_list(int d, int metric, int shadow, int depth, int *out);

#endif
