#include "stencil_core.h"

#include <stdlib.h>

/* a*b capped: -1 once the product exceeds limit. */
static long long mul_cap(long long a, long long b, long long limit)
{
    if (a < 0 || b < 0) return -1;
    if (b != 0 && a > limit / b) return -1;
    return a * b;
}

/* Vectors of d ints with all |c| <= r: (2r+1)^d, capped. */
static long long cube(int d, long long r, long long limit)
{
    long long n = 1;
    for (int k = 0; k < d && n >= 0; k++) n = mul_cap(n, 2 * r + 1, limit);
    return n;
}

/* Vectors of d ints with sum |c| <= r, by dynamic programming over
 * dimensions: ways[s] = number of vectors so far with L1 norm exactly s. */
static long long ball(int d, int r, long long limit)
{
    if (r < 0) return 0;
    long long *w = calloc((size_t)r + 1, sizeof *w), *nw = calloc((size_t)r + 1, sizeof *nw);
    long long total = -1;
    if (!w || !nw) goto out;
    w[0] = 1;
    for (int k = 0; k < d; k++) {
        for (int s = 0; s <= r; s++) {
            long long v = w[s];                      /* coordinate 0 */
            for (int c = 1; c <= s; c++) {           /* coordinates +-c */
                if (w[s - c] < 0) { v = -1; break; }
                v += 2 * w[s - c];
                if (v > limit) { v = -1; break; }
            }
            nw[s] = (w[s] < 0) ? -1 : v;
        }
        long long *tmp = w; w = nw; nw = tmp;
    }
    total = 0;
    for (int s = 0; s <= r; s++) {
        if (w[s] < 0) { total = -1; break; }
        total += w[s];
        if (total > limit) { total = -1; break; }
    }
out:
    free(w);
    free(nw);
    return total;
}

long long cc_stencil_count(int d, int metric, int shadow, int depth, long long limit)
{
    long long outer, inner;
    if (metric == CC_METRIC_CHEBYSHEV) {
        outer = cube(d, depth, limit);
        inner = shadow > 0 ? cube(d, (long long)shadow - 1, limit) : 0;
    } else {
        outer = ball(d, depth, limit);
        inner = shadow > 0 ? ball(d, shadow - 1, limit) : 0;
    }
    if (outer < 0) return -1;
    return outer - inner; /* inner <= outer, so inner was not capped */
}

typedef struct walk {
    int d, metric, shadow, depth;
    int *cur, *out;
    long long n;
} walk;

/* Depth-first over coordinates, dimension 0 outermost and values ascending:
 * row-major order.  `used` is the distance so far. */
static void visit(walk *w, int k, int used)
{
    if (k == w->d) {
        if (used < w->shadow) return;
        for (int j = 0; j < w->d; j++) w->out[w->n * w->d + j] = w->cur[j];
        w->n++;
        return;
    }
    int room = w->metric == CC_METRIC_MANHATTAN ? w->depth - used : w->depth;
    for (int c = -room; c <= room; c++) {
        int a = c < 0 ? -c : c;
        w->cur[k] = c;
        visit(w, k + 1, w->metric == CC_METRIC_MANHATTAN ? used + a : (a > used ? a : used));
    }
}

long long cc_stencil_list(int d, int metric, int shadow, int depth, int *out)
{
    walk w = { d, metric, shadow, depth, malloc(sizeof(int) * (size_t)d), out, 0 };
    if (!w.cur) return -1;
    visit(&w, 0, 0);
    free(w.cur);
    return w.n;
}
