/* Unit test of cartbench's helpers: neighbourhood generators against counts
 * from first principles, statistics against hand-computed values. */
#define _POSIX_C_SOURCE 200809L
#include "cb_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                                      \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static int vec_is(const cb_nbh *n, int i, const int *x)
{
    return !memcmp(n->v + (size_t)i * n->d, x, sizeof(int) * (size_t)n->d);
}

static int row_major_less(const int *a, const int *b, int d)
{
    for (int k = 0; k < d; k++)
        if (a[k] != b[k]) return a[k] < b[k];
    return 0;
}

/* spec gives t distinct vectors in d dimensions, in row-major order. */
static void check_nbh(const char *spec, int d, int t)
{
    cb_nbh n;
    char err[256];
    int rc = cb_nbh_parse(spec, &n, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", spec, err);
    CHECK(rc == 0);
    if (rc) return;
    CHECK(n.d == d);
    CHECK(n.t == t);
    if (n.t != t) fprintf(stderr, "%s: t = %d, expected %d\n", spec, n.t, t);
    for (int i = 0; i + 1 < n.t; i++) /* strictly increasing in row-major order: distinct */
        CHECK(row_major_less(n.v + (size_t)i * d, n.v + (size_t)(i + 1) * d, d));
    cb_nbh_free(&n);
}

static void check_bad(const char *spec)
{
    cb_nbh n;
    char err[256] = "";
    CHECK(cb_nbh_parse(spec, &n, err, sizeof err) == -1);
    CHECK(err[0] != 0);
}

int main(void)
{
    /* Counts: moore n^d - 1 (seed 002 Table 1), von Neumann and Chebyshev
     * balls, shells, the positive octant (r+1)^d - 1. */
    check_nbh("moore:2,3", 2, 8);
    check_nbh("moore:2,4", 2, 15);
    check_nbh("moore:3,5", 3, 124);
    check_nbh("moore:5,5", 5, 3124);
    check_nbh("moore:2,3,0", 2, 8);     /* 0..2: zero vector excluded */
    check_nbh("moore:2,2,1", 2, 4);     /* 1..2: no zero vector in the box */
    check_nbh("vonneumann:2,1", 2, 4);
    check_nbh("vonneumann:3,2", 3, 24); /* 6 + 18 */
    check_nbh("chebyshev:2,2", 2, 24);
    check_nbh("shells:2,2,2", 2, 16);
    check_nbh("shells:3,3,7", 3, 15 * 15 * 15 - 5 * 5 * 5);
    check_nbh("shells:2,0,1", 2, 9);    /* r1 = 0 includes the zero vector */
    check_nbh("octant:3,3", 3, 63);

    cb_nbh n;
    char err[256];
    CHECK(cb_nbh_parse("moore:2,4", &n, err, sizeof err) == 0);
    int first[2] = { -1, -1 }, last[2] = { 2, 2 }, z = 0;
    CHECK(vec_is(&n, 0, first));
    CHECK(vec_is(&n, n.t - 1, last));
    for (int i = 0; i < n.t; i++) z += cb_nbh_nonzeros(&n, i) == 1;
    CHECK(z == 6); /* (0,-1) (0,1) (0,2) (-1,0) (1,0) (2,0) */
    cb_nbh_free(&n);
    CHECK(cb_nbh_parse("octant:2,1", &n, err, sizeof err) == 0);
    int o[3][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 } };
    CHECK(n.t == 3 && vec_is(&n, 0, o[0]) && vec_is(&n, 1, o[1]) && vec_is(&n, 2, o[2]));
    cb_nbh_free(&n);

    /* file: comments, commas, blank lines, the zero vector and repeats kept. */
    char path[] = "/tmp/cb_util_testXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# a neighbourhood\n1 0 0\n\n 0,-1, 0  # comment\n0 0 0\n1 0 0\n", f);
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof spec, "file:%s", path);
    CHECK(cb_nbh_parse(spec, &n, err, sizeof err) == 0);
    int f1[3] = { 0, -1, 0 };
    CHECK(n.d == 3 && n.t == 4 && vec_is(&n, 1, f1) && cb_nbh_nonzeros(&n, 2) == 0);
    cb_nbh_free(&n);
    f = fopen(path, "w");
    fputs("1 0\n1 0 0\n", f);
    fclose(f);
    check_bad(spec); /* ragged */
    unlink(path);
    check_bad("file:/nonexistent/cartbench");

    check_bad("moore:2");
    check_bad("moore:2,3,1,1");
    check_bad("moore:0,3");
    check_bad("moore:2,x");
    check_bad("moore:2,3,");
    check_bad("torus:2,3");
    check_bad("shells:2,3,1");
    check_bad("octant:2,0");
    check_bad("chebyshev:3");
    check_bad("moore");

    /* Statistics. */
    double q[5] = { 1, 2, 3, 4, 5 };
    CHECK(cb_quantile(q, 5, 0.25) == 2 && cb_quantile(q, 5, 0.5) == 3 && cb_quantile(q, 5, 1.0) == 5);
    CHECK(fabs(cb_quantile(q, 4, 0.5) - 2.5) < 1e-12);
    CHECK(fabs(cb_binom_half_cdf(10, 1) - 11.0 / 1024) < 1e-12);
    CHECK(cb_binom_half_cdf(10, 10) == 1.0 && cb_binom_half_cdf(10, -1) == 0.0);
    CHECK(fabs(cb_binom_half_cdf(3000, 1500) - 0.5 - 0.5 * exp(lgamma(3001.0) - 2 * lgamma(1501.0) - 3000 * log(2.0))) < 1e-9);

    /* 20 values 1..20 and one far outlier: Q1 = 6, Q3 = 16 (type 7 on 21
     * values), fences [-24, 46]: 1000 goes, the rest stays. */
    double x[21];
    for (int i = 0; i < 20; i++) x[i] = 20 - i;
    x[20] = 1000;
    cb_summary s;
    cb_summarize(x, 21, 0.95, &s);
    CHECK(s.n == 21 && s.kept == 20 && s.median == 10.5 && s.max == 20 && s.min == 1);
    /* n = 20: P(B <= 5) = 0.0207 <= 0.025 < P(B <= 6) = 0.0577, so j = 6:
     * [x_(6), x_(15)], coverage 1 - 2*0.0207 = 0.9586. */
    CHECK(s.lo == 6 && s.hi == 15);
    CHECK(fabs(s.coverage - 0.9586) < 1e-4);

    /* n = 100: the textbook interval [x_(40), x_(61)], coverage 0.9648. */
    double y[100];
    for (int i = 0; i < 100; i++) y[i] = (i * 37) % 100 + 1; /* a permutation of 1..100 */
    cb_summarize(y, 100, 0.95, &s);
    CHECK(s.kept == 100 && s.median == 50.5 && s.lo == 40 && s.hi == 61);
    CHECK(fabs(s.coverage - 0.9648) < 1e-4);

    /* Too few for 95%: the range, with its coverage 1 - 2^(1-k). */
    double w[3] = { 3, 1, 2 };
    cb_summarize(w, 3, 0.95, &s);
    CHECK(s.median == 2 && s.lo == 1 && s.hi == 3 && fabs(s.coverage - 0.75) < 1e-12);
    double one = 7;
    cb_summarize(&one, 1, 0.95, &s);
    CHECK(s.kept == 1 && s.median == 7 && s.lo == 7 && s.hi == 7);

    if (failures) {
        fprintf(stderr, "test_cb_util: %d checks failed\n", failures);
        return 1;
    }
    printf("test_cb_util: all checks passed\n");
    return 0;
}
