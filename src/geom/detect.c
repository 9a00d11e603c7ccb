#include "geom/detect.h"

#include <string.h>

int cc_detect_offsets(const cc_grid *g, const int me[], int n, const int ranks[], int sign, int *out)
{
    int c[64];
    if (g->d > 64) return -1;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size) return -1;
        cc_grid_coords(g, ranks[i], c);
        int *o = out + (long long)i * g->d;
        if (sign > 0) cc_grid_relative(g, me, c, o);
        else cc_grid_relative(g, c, me, o);
    }
    return 0;
}

static int compare(int d, const int *x, const int *y)
{
    for (int k = 0; k < d; k++)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

static int less(int d, const int *offs, int a, int b)
{
    int c = compare(d, offs + (long long)a * d, offs + (long long)b * d);
    return c < 0 || (c == 0 && a < b);
}

/* Sort the n indices of order by offset, equal offsets by index. */
static void sort_indices(int d, int n, const int *offs, int *order, int *tmp)
{
    /* bottom-up merge sort: stable, O(n log n), no recursion */
    for (int w = 1; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = less(d, offs, order[j], order[i]) ? order[j++] : order[i++];
            while (i < mid) tmp[k++] = order[i++];
            while (j < hi) tmp[k++] = order[j++];
        }
        memcpy(order, tmp, sizeof(int) * (size_t)n);
    }
}

void cc_detect_order(int d, int n, const int *offs, int *order, int *tmp)
{
    for (int i = 0; i < n; i++) order[i] = i;
    sort_indices(d, n, offs, order, tmp);
}

int cc_detect_side(const cc_grid *g, const int me[], int n, const int ranks[], int sign, int *offs, int *order,
                   int *tmp)
{
    int c[64], d = g->d, nv = 0;
    if (d > 64) return -1;
    for (int i = 0; i < n; i++) {
        int *o = offs + (long long)i * d;
        if (ranks[i] == CC_NONE) {
            memset(o, 0, sizeof(int) * (size_t)d);
            continue;
        }
        if (ranks[i] < 0 || ranks[i] >= g->size) return -1;
        cc_grid_coords(g, ranks[i], c);
        if (sign > 0) cc_grid_relative(g, me, c, o);
        else cc_grid_relative(g, c, me, o);
        order[nv++] = i;
    }
    for (int i = 0, k = nv; i < n; i++)
        if (ranks[i] == CC_NONE) order[k++] = i;
    sort_indices(d, nv, offs, order, tmp);
    return nv;
}

void cc_detect_gather(int d, const int *offs, const int *order, int nv, int *sorted)
{
    for (int j = 0; j < nv; j++)
        memcpy(sorted + (long long)j * d, offs + (long long)order[j] * d, sizeof(int) * (size_t)d);
}

int cc_detect_match(const cc_grid *g, const int me[], int t, const int *S, int sign, int n, const int *offs,
                    const int *order, int nv, int *perm)
{
    int d = g->d, j = 0, k = nv;
    for (int i = 0; i < t; i++) {
        const int *N = S + (long long)i * d;
        if (cc_grid_inside(g, me, N, sign)) {
            if (j >= nv || compare(d, offs + (long long)order[j] * d, N) != 0) return -1;
            perm[i] = order[j++];
        } else {
            perm[i] = k < n ? order[k++] : -1;
        }
    }
    return j == nv ? 0 : -1;
}

void cc_detect_bounds(int d, const int *offs, const int *order, int nv, int lo[], int hi[])
{
    for (int k = 0; k < d; k++) {
        lo[k] = 0;
        hi[k] = -1;
    }
    for (int j = 0; j < nv; j++) {
        const int *o = offs + (long long)order[j] * d;
        for (int k = 0; k < d; k++) {
            if (j == 0 || o[k] < lo[k]) lo[k] = o[k];
            if (j == 0 || o[k] > hi[k]) hi[k] = o[k];
        }
    }
}

long long cc_box_cells(int d, const int lo[], const int hi[], long long limit)
{
    long long cells = 1;
    for (int k = 0; k < d; k++)
        if (hi[k] < lo[k]) return 0;
    for (int k = 0; k < d; k++) {
        long long w = (long long)hi[k] - lo[k] + 1;
        if (w > limit || cells > limit / w) return -1;
        cells *= w;
    }
    return cells;
}

long long cc_box_index(int d, const int lo[], const int hi[], const int off[])
{
    long long idx = 0;
    for (int k = 0; k < d; k++) {
        if (off[k] < lo[k] || off[k] > hi[k]) return -1;
        idx = idx * ((long long)hi[k] - lo[k] + 1) + ((long long)off[k] - lo[k]);
    }
    return idx;
}

int cc_detect_count(int d, const int lo[], const int hi[], const int *offs, const int *order, int nv, int *hist)
{
    for (int j = 0; j < nv; j++) {
        long long c = cc_box_index(d, lo, hi, offs + (long long)order[j] * d);
        if (c < 0) return -1;
        hist[c]++;
    }
    return 0;
}

long long cc_detect_stencil(int d, const int lo[], const int hi[], long long cells, const int *hist,
                            long long limit, int *out)
{
    int cur[64];
    long long t = 0;
    if (d > 64) return -1;
    for (int k = 0; k < d; k++) cur[k] = lo[k];
    for (long long c = 0; c < cells; c++) {
        if (hist[c] < 0 || hist[c] > limit - t) return -1;
        for (int m = 0; out && m < hist[c]; m++) memcpy(out + (t + m) * d, cur, sizeof(int) * (size_t)d);
        t += hist[c];
        /* the next cell: an odometer, the last coordinate fastest */
        for (int k = d - 1; k >= 0; k--) {
            if (cur[k] < hi[k]) {
                cur[k]++;
                break;
            }
            cur[k] = lo[k];
        }
    }
    return t;
}

long long cc_hash_ints(const int *v, long long n, unsigned long long h)
{
    /* A word at a time (set-up hashes t*d ints: 84030 for d = 5 radius 3);
     * the shift folds the high bits of the product back in. */
    for (long long i = 0; i < n; i++) {
        h ^= (unsigned int)v[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return (long long)(h >> 2);
}
