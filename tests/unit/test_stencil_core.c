/* stencil_core.c: counts against an independent enumeration, the order of
 * the list, known neighbourhoods and the cap. */
#include "check.h"
#include "stencil_core.h"

#include <stdlib.h>

/* Distance of v from the origin under the metric. */
static int dist(const int *v, int d, int metric)
{
    int r = 0;
    for (int k = 0; k < d; k++) {
        int a = v[k] < 0 ? -v[k] : v[k];
        r = metric == CC_METRIC_MANHATTAN ? r + a : (a > r ? a : r);
    }
    return r;
}

/* Walk the cube [-depth, depth]^d in row-major order (odometer, last
 * dimension fastest) and compare with the library's list. */
static void check_list(int d, int metric, int shadow, int depth)
{
    long long n = cc_stencil_count(d, metric, shadow, depth, 1LL << 40);
    CHECK(n >= 0);
    int *out = malloc(sizeof(int) * (size_t)(n ? n : 1) * (size_t)d);
    CHECK(out);
    CHECK_EQ(cc_stencil_list(d, metric, shadow, depth, out), n);
    int v[8];
    for (int k = 0; k < d; k++) v[k] = -depth;
    long long j = 0;
    for (;;) {
        int r = dist(v, d, metric);
        if (r >= shadow && r <= depth) {
            CHECK(j < n);
            for (int k = 0; k < d; k++) CHECK_EQ(out[j * d + k], v[k]);
            j++;
        }
        int k = d - 1;
        while (k >= 0 && v[k] == depth) v[k--] = -depth;
        if (k < 0) break;
        v[k]++;
    }
    CHECK_EQ(j, n);
    free(out);
}

int main(void)
{
    for (int d = 1; d <= 5; d++)
        for (int metric = CC_METRIC_MANHATTAN; metric <= CC_METRIC_CHEBYSHEV; metric++)
            for (int depth = 0; depth <= (d <= 3 ? 4 : 2); depth++)
                for (int shadow = 0; shadow <= depth; shadow++) check_list(d, metric, shadow, depth);

    int v[16];
    /* Moore d=2, radius 1, without the centre. */
    CHECK_EQ(cc_stencil_count(2, CC_METRIC_CHEBYSHEV, 1, 1, 100), 8);
    CHECK_EQ(cc_stencil_list(2, CC_METRIC_CHEBYSHEV, 1, 1, v), 8);
    CHECK(v[0] == -1 && v[1] == -1 && v[14] == 1 && v[15] == 1);
    /* von Neumann d=3, radius 1. */
    CHECK_EQ(cc_stencil_count(3, CC_METRIC_MANHATTAN, 1, 1, 100), 6);
    /* Closed forms: (2r+1)^d for Chebyshev; Manhattan d=2: 2r(r+1)+1. */
    CHECK_EQ(cc_stencil_count(5, CC_METRIC_CHEBYSHEV, 1, 3, 1 << 20), 16806);
    CHECK_EQ(cc_stencil_count(2, CC_METRIC_MANHATTAN, 0, 10, 1 << 20), 221);
    /* Caps: exactly at the limit fits, one more does not; no overflow. */
    CHECK_EQ(cc_stencil_count(5, CC_METRIC_CHEBYSHEV, 0, 3, 16807), 16807);
    CHECK_EQ(cc_stencil_count(5, CC_METRIC_CHEBYSHEV, 0, 3, 16806), -1);
    CHECK_EQ(cc_stencil_count(4, CC_METRIC_MANHATTAN, 0, 3, 1000), 129);
    CHECK_EQ(cc_stencil_count(4, CC_METRIC_MANHATTAN, 0, 3, 128), -1);
    CHECK_EQ(cc_stencil_count(64, CC_METRIC_CHEBYSHEV, 0, 1000, 1LL << 31), -1);
    CHECK_EQ(cc_stencil_count(64, CC_METRIC_MANHATTAN, 0, 100, 1LL << 31), -1);
    CHECK_EQ(cc_stencil_count(30, CC_METRIC_CHEBYSHEV, 30, 1000000000, 1LL << 31), -1);
    /* Depth 0: only the origin, unless it is shadowed. */
    CHECK_EQ(cc_stencil_count(3, CC_METRIC_MANHATTAN, 0, 0, 10), 1);
    CHECK_EQ(cc_stencil_count(3, CC_METRIC_CHEBYSHEV, 0, 0, 10), 1);
    printf("test_stencil_core: ok\n");
    return 0;
}
