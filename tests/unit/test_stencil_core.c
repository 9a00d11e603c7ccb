/* stencil_core.c: counts against an independent enumeration and independent
 * recurrences, caps exactly at the limit, huge depths and dimensions, the
 * order of the list, and shells whose inside is never walked. */
#include "check.h"
#include "geom/stencil_core.h"

#include <limits.h>
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

/* The cap is exact: the count itself fits, one less does not. */
static void check_cap(int d, int metric, int shadow, int depth, long long n)
{
    CHECK_EQ(cc_stencil_count(d, metric, shadow, depth, LLONG_MAX), n);
    CHECK_EQ(cc_stencil_count(d, metric, shadow, depth, n), n);
    CHECK_EQ(cc_stencil_count(d, metric, shadow, depth, n - 1), -1);
}

/* Walk the cube [-depth, depth]^d in row-major order (odometer, last
 * dimension fastest) and compare with the library's count and list. */
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
    if (n > 0) check_cap(d, metric, shadow, depth, n);
    free(out);
}

/* Saturating arithmetic for the reference values: -1 = does not fit. */
static long long sat_add(long long a, long long b)
{
    return a < 0 || b < 0 || a > LLONG_MAX - b ? -1 : a + b;
}

static long long sat_mul(long long a, long long b)
{
    return a < 0 || b < 0 || (b != 0 && a > LLONG_MAX / b) ? -1 : a * b;
}

/* Up to d, r = 32 against independent recurrences: the L1 ball is the
 * Delannoy number D(d,r) = D(d-1,r) + D(d,r-1) + D(d-1,r-1), the cube
 * (2r+1)^d; shells are differences wherever the outer value fits. */
#define NREF 33
static void check_reference(void)
{
    static long long del[NREF][NREF], cube[NREF][NREF];
    for (int d = 0; d < NREF; d++)
        for (int r = 0; r < NREF; r++) {
            del[d][r] = d == 0 || r == 0 ? 1 : sat_add(sat_add(del[d - 1][r], del[d][r - 1]), del[d - 1][r - 1]);
            cube[d][r] = d == 0 ? 1 : sat_mul(cube[d - 1][r], 2LL * r + 1);
        }
    int fitted = 0;
    for (int d = 1; d < NREF; d++)
        for (int r = 0; r < NREF; r++)
            for (int s = 0; s <= r; s++) {
                if (del[d][r] >= 0) {
                    check_cap(d, CC_METRIC_MANHATTAN, s, r, del[d][r] - (s ? del[d][s - 1] : 0));
                    fitted++;
                }
                if (cube[d][r] >= 0) check_cap(d, CC_METRIC_CHEBYSHEV, s, r, cube[d][r] - (s ? cube[d][s - 1] : 0));
            }
    CHECK(fitted > 1000); /* the table reaches values near LLONG_MAX */
}

/* A long list: vectors of norm exactly `depth`, strictly ascending in
 * row-major (lexicographic) order, as many as counted; with the count from
 * an independent formula this is the brute-force list. */
static int *check_shell(int d, int metric, int depth, long long expect)
{
    CHECK_EQ(cc_stencil_count(d, metric, depth, depth, INT_MAX / d), expect);
    int *out = malloc(sizeof(int) * (size_t)expect * (size_t)d);
    CHECK(out);
    CHECK_EQ(cc_stencil_list(d, metric, depth, depth, out), expect);
    for (long long j = 0; j < expect; j++) {
        CHECK_EQ(dist(out + j * d, d, metric), depth);
        if (j == 0) continue;
        int k = 0;
        while (k < d && out[(j - 1) * d + k] == out[j * d + k]) k++;
        CHECK(k < d && out[(j - 1) * d + k] < out[j * d + k]);
    }
    return out;
}

int main(void)
{
    for (int d = 1; d <= 5; d++)
        for (int metric = CC_METRIC_MANHATTAN; metric <= CC_METRIC_CHEBYSHEV; metric++)
            for (int depth = 0; depth <= (d <= 4 ? 8 : 3); depth++)
                for (int shadow = 0; shadow <= depth; shadow++) check_list(d, metric, shadow, depth);
    check_reference();

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

    /* Huge depths, with the limit Cart_stencil_count passes (INT_MAX/d);
     * a walk over norms or radii would not finish. */
    CHECK_EQ(cc_stencil_count(1, CC_METRIC_MANHATTAN, 0, 1000000, INT_MAX), 2000001);
    CHECK_EQ(cc_stencil_count(1, CC_METRIC_CHEBYSHEV, 0, 1000000, INT_MAX), 2000001);
    CHECK_EQ(cc_stencil_count(1, CC_METRIC_MANHATTAN, 0, INT_MAX, INT_MAX), -1);
    check_cap(1, CC_METRIC_MANHATTAN, INT_MAX, INT_MAX, 2);
    check_cap(1, CC_METRIC_MANHATTAN, 1, INT_MAX, 2LL * INT_MAX);
    check_cap(2, CC_METRIC_MANHATTAN, 0, 30000, 1800060001); /* 2r^2+2r+1 */
    CHECK_EQ(cc_stencil_count(2, CC_METRIC_MANHATTAN, 0, 30000, INT_MAX / 2), -1);
    CHECK_EQ(cc_stencil_count(2, CC_METRIC_MANHATTAN, 0, 23169, INT_MAX / 2), 1073651461); /* just below */
    CHECK_EQ(cc_stencil_count(2, CC_METRIC_MANHATTAN, 0, 23170, INT_MAX / 2), -1);         /* 1073744141 */
    /* Thin shells fit where the ball of radius depth does not: no -1. */
    CHECK_EQ(cc_stencil_count(2, CC_METRIC_CHEBYSHEV, 30000, 30000, INT_MAX / 2), 240000);
    CHECK_EQ(cc_stencil_count(2, CC_METRIC_MANHATTAN, 100000000, 100000000, INT_MAX / 2), 400000000);
    check_cap(2, CC_METRIC_MANHATTAN, INT_MAX, INT_MAX, 4LL * INT_MAX);
    check_cap(2, CC_METRIC_CHEBYSHEV, INT_MAX, INT_MAX, 8LL * INT_MAX);
    check_cap(2, CC_METRIC_MANHATTAN, 1000000000, 1000000000, 4000000000LL);
    check_cap(3, CC_METRIC_MANHATTAN, 1000000000, 1000000000, 4000000000000000002LL); /* 4r^2+2 */
    check_cap(3, CC_METRIC_CHEBYSHEV, 500000000, 500000000, 6000000000000000002LL);   /* 24r^2+2 */
    check_cap(2, CC_METRIC_MANHATTAN, 1000, 1000000, 2LL * 1000000 * 1000001 - 2LL * 999 * 1000);
    /* Huge d: bounded work, and exact where the count fits. */
    CHECK_EQ(cc_stencil_count(INT_MAX, CC_METRIC_MANHATTAN, 0, 0, 1), 1);
    CHECK_EQ(cc_stencil_count(INT_MAX, CC_METRIC_CHEBYSHEV, 0, 0, 1), 1);
    CHECK_EQ(cc_stencil_count(INT_MAX, CC_METRIC_CHEBYSHEV, 0, 0, 0), -1);
    check_cap(INT_MAX, CC_METRIC_MANHATTAN, 0, 1, 2LL * INT_MAX + 1);
    check_cap(1 << 20, CC_METRIC_MANHATTAN, 1, 2, (1LL << 41) + (1LL << 21)); /* 2d^2+2d */
    CHECK_EQ(cc_stencil_count(INT_MAX, CC_METRIC_MANHATTAN, INT_MAX, INT_MAX, LLONG_MAX), -1);
    CHECK_EQ(cc_stencil_count(INT_MAX, CC_METRIC_CHEBYSHEV, 1, 1, LLONG_MAX), -1);
    CHECK_EQ(cc_stencil_count(INT_MAX, CC_METRIC_CHEBYSHEV, INT_MAX, INT_MAX, LLONG_MAX), -1);

    /* Large shells are listed without walking their inside. */
    int *out = check_shell(2, CC_METRIC_CHEBYSHEV, 2000, 16000);
    CHECK(out[0] == -2000 && out[1] == -2000 && out[2] == -2000 && out[3] == -1999);
    CHECK(out[2 * 4001] == -1999 && out[2 * 4001 + 1] == -2000); /* next row: both ends only */
    CHECK(out[2 * 4002] == -1999 && out[2 * 4002 + 1] == 2000);
    CHECK(out[2 * 15999] == 2000 && out[2 * 15999 + 1] == 2000);
    free(out);
    out = check_shell(3, CC_METRIC_MANHATTAN, 300, 4 * 300 * 300 + 2);
    CHECK(out[0] == -300 && out[1] == 0 && out[2] == 0);
    CHECK(out[3] == -299 && out[4] == -1 && out[5] == 0);
    CHECK(out[3 * 360001] == 300 && out[3 * 360001 + 1] == 0 && out[3 * 360001 + 2] == 0);
    free(out);
    /* Many dimensions: the unit vectors, -e_0 first ... +e_0 last. */
    out = check_shell(1000, CC_METRIC_MANHATTAN, 1, 2000);
    for (int j = 0; j < 2000; j++) CHECK_EQ(out[j * 1000 + (j < 1000 ? j : 1999 - j)], j < 1000 ? -1 : 1);
    free(out);
    /* The walk does not recurse per dimension: 4M dimensions, the origin. */
    int dbig = 1 << 22;
    out = malloc(sizeof(int) * (size_t)dbig);
    CHECK(out);
    out[dbig - 1] = 7;
    CHECK_EQ(cc_stencil_list(dbig, CC_METRIC_CHEBYSHEV, 0, 0, out), 1);
    CHECK(out[0] == 0 && out[dbig - 1] == 0);
    free(out);
    printf("test_stencil_core: ok\n");
    return 0;
}
