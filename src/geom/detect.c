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

static int less(int d, const int *offs, int a, int b)
{
    int c = 0;
    for (int k = 0; k < d && c == 0; k++) {
        int x = offs[(long long)a * d + k], y = offs[(long long)b * d + k];
        c = (x > y) - (x < y);
    }
    return c < 0 || (c == 0 && a < b);
}

void cc_detect_order(int d, int n, const int *offs, int *order, int *tmp)
{
    for (int i = 0; i < n; i++) order[i] = i;
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

long long cc_hash_ints(const int *v, long long n, unsigned long long h)
{
    for (long long i = 0; i < n; i++) {
        unsigned int x = (unsigned int)v[i];
        for (int b = 0; b < 4; b++) {
            h ^= (x >> (8 * b)) & 0xffu;
            h *= 1099511628211ULL;
        }
    }
    return (long long)(h >> 2);
}
