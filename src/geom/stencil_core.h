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

/* The same vectors one at a time, optionally only those inside a box
 * lo[k] <= v[k] <= hi[k] (each lo[k] <= 0 <= hi[k]; NULL: no bound on that
 * side), in the same order: Cart_neighbors on a mesh.  Time O(d) per vector,
 * also with a box (values that cannot complete a vector are never taken);
 * memory O(d).  init returns 0, or -1 out of memory; next returns the
 * current vector (d ints, valid until the next call) or NULL at the end. */
typedef struct cc_stencil_walk {
    int d, metric, shadow, depth;
    const int *lo, *hi;
    long long *reach; /* d+1, with a box: what dimensions k.. can add */
    int *cur;         /* d */
    int p;            /* summary of the prefix (stencil_core.c) */
    int state;        /* 0 not started, 1 walking, 2 done */
} cc_stencil_walk;
int cc_stencil_walk_init(cc_stencil_walk *w, int d, int metric, int shadow, int depth, const int lo[],
                         const int hi[]);
const int *cc_stencil_walk_next(cc_stencil_walk *w);
void cc_stencil_walk_free(cc_stencil_walk *w);

#endif
