#include "geom/naming.h"

#include "geom/stencil_core.h"

#include <limits.h>
#include <stdlib.h>

int cc_naming_placed(const cc_naming *n, int rank)
{
    return rank >= 0 && rank < n->grid.size && rank < n->nprocs;
}

int cc_naming_shift(const cc_naming *n, const int coords[], const int off[], int sign)
{
    int r = cc_grid_shift(&n->grid, coords, off, sign);
    return r >= n->nprocs ? CC_NONE : r;
}

/* Whether some non-periodic dimension is closer to the edge than depth:
 * only then does the box cut vectors off the stencil. */
static int box_cuts(const cc_grid *g, const int coords[], int depth)
{
    for (int k = 0; k < g->d; k++)
        if (!g->periods[k] && (coords[k] < depth || (long long)g->dims[k] - 1 - coords[k] < depth)) return 1;
    return 0;
}

long long cc_naming_neighbors(const cc_naming *n, const int coords[], int metric, int shadow, int depth,
                              int *out)
{
    const cc_grid *g = &n->grid;
    int d = g->d;
    if (!out && !box_cuts(g, coords, depth)) return cc_stencil_count(d, metric, shadow, depth, LLONG_MAX);
    /* Periodic dimensions: the whole stencil; the walk clamps to depth. */
    int *lo = malloc(sizeof(int) * (2 * (size_t)d + 1)), *hi = lo ? lo + d : NULL;
    if (!lo) return -1;
    for (int k = 0; k < d; k++) {
        lo[k] = g->periods[k] ? -depth : -coords[k];
        hi[k] = g->periods[k] ? depth : g->dims[k] - 1 - coords[k];
    }
    cc_stencil_walk w;
    if (cc_stencil_walk_init(&w, d, metric, shadow, depth, lo, hi) < 0) {
        free(lo);
        return -1;
    }
    long long count = 0;
    for (const int *v; (v = cc_stencil_walk_next(&w)) != NULL; count++)
        if (out)
            for (int k = 0; k < d; k++) out[count * d + k] = v[k];
    cc_stencil_walk_free(&w);
    free(lo);
    return count;
}

int cc_naming_split(const cc_naming *n, const int coords[], const int remain[], int *color, int *key)
{
    /* Positions within the kept (removed) dimensions are ranks in the grid
     * with the other dimensions collapsed to size 1: geometry's layout
     * arithmetic, not a second copy of it. */
    int d = n->grid.d;
    int *dims = malloc(sizeof(int) * (2 * (size_t)d + 1)), *c = dims ? dims + d : NULL;
    if (!dims) return -1;
    cc_grid sub = n->grid;
    sub.dims = dims;
    for (int part = 0; part < 2; part++) {
        for (int k = 0; k < d; k++) {
            int in = (remain[k] != 0) == (part == 1);
            dims[k] = in ? n->grid.dims[k] : 1;
            c[k] = in ? coords[k] : 0;
        }
        *(part ? key : color) = cc_grid_rank(&sub, c);
    }
    free(dims);
    return 0;
}
