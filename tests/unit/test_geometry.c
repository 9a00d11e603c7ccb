/* geometry.c: ranks and coordinates, shifts (wrap, mesh, extreme offsets),
 * reduction and shortest relative offsets. */
#include "check.h"
#include "geom/geometry.h"

#include <limits.h>

/* Independent reference: coordinate c + s*o on a dimension, -1 if off a mesh. */
static long long ref_move(long long c, long long o, int s, int p, int periodic)
{
    long long x = c + s * o;
    if (periodic) return ((x % p) + p) % p;
    return (x < 0 || x >= p) ? -1 : x;
}

static void test_rank_coords(void)
{
    int dims[4] = { 3, 1, 4, 2 }, periods[4] = { 1, 0, 1, 0 }, co[4];
    cc_grid g = { 4, 24, dims, periods, 0 };
    for (int r = 0; r < g.size; r++) {
        cc_grid_coords(&g, r, co);
        for (int k = 0; k < 4; k++) CHECK(co[k] >= 0 && co[k] < dims[k]);
        CHECK_EQ(cc_grid_rank(&g, co), r);
    }
    /* Row-major: the last dimension runs fastest (as MPI_Cart_create). */
    int c1[4] = { 0, 0, 0, 1 }, c2[4] = { 1, 0, 0, 0 };
    CHECK_EQ(cc_grid_rank(&g, c1), 1);
    CHECK_EQ(cc_grid_rank(&g, c2), 8);
    cc_grid g0 = { 0, 1, dims, periods, 0 };
    CHECK_EQ(cc_grid_rank(&g0, co), 0);
}

static void test_shift(void)
{
    static const int offs[] = { 0, 1, -1, 2, -2, 3, 5, -7, 11, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1 };
    int n = (int)(sizeof offs / sizeof offs[0]);
    for (int p = 1; p <= 5; p++)
        for (int per = 0; per <= 1; per++) {
            int dims[2] = { p, 3 }, periods[2] = { per, 1 };
            cc_grid g = { 2, 3 * p, dims, periods, 0 };
            for (int c = 0; c < p; c++)
                for (int j = 0; j < n; j++)
                    for (int s = -1; s <= 1; s += 2) {
                        int co[2] = { c, 2 }, off[2] = { offs[j], offs[(j + 3) % n] };
                        long long x = ref_move(c, off[0], s, p, per), y = ref_move(2, off[1], s, 3, 1);
                        int want = x < 0 ? CC_NONE : (int)(x * 3 + y);
                        CHECK_EQ(cc_grid_shift(&g, co, off, s), want);
                        CHECK_EQ(cc_grid_inside(&g, co, off, s), x >= 0);
                    }
        }
}

static void test_reduce(void)
{
    static const int offs[] = { 0, 1, -1, 2, -2, 3, -3, 4, 7, -7, 100, INT_MAX, INT_MIN, INT_MIN + 1 };
    int n = (int)(sizeof offs / sizeof offs[0]);
    for (int p = 1; p <= 6; p++)
        for (int j = 0; j < n; j++) {
            int dims[1] = { p }, per[1] = { 1 }, mesh[1] = { 0 }, out = 12345;
            cc_grid g = { 1, p, dims, per, 0 }, gm = { 1, p, dims, mesh, 0 };
            /* periodic: the representative in (-p/2, p/2] of the same class */
            CHECK_EQ(cc_grid_reduce(&g, &offs[j], &out), 0);
            CHECK(2LL * out > -p && 2LL * out <= p);
            CHECK_EQ((((long long)offs[j] - out) % p + p) % p, 0);
            if (p == 1) CHECK_EQ(out, 0);
            if (p == 2) CHECK_EQ(out, offs[j] % 2 != 0);
            /* mesh: unchanged, dead once |c| >= p */
            long long a = offs[j] < 0 ? -(long long)offs[j] : offs[j];
            CHECK_EQ(cc_grid_reduce(&gm, &offs[j], &out), a >= p);
            CHECK_EQ(out, offs[j]);
        }
    int dims[3] = { 4, 4, 5 }, periods[3] = { 1, 0, 1 }, off[3] = { 2, -3, -2 }, out[3];
    cc_grid g = { 3, 80, dims, periods, 0 };
    CHECK_EQ(cc_grid_reduce(&g, off, out), 0);
    CHECK(out[0] == 2 && out[1] == -3 && out[2] == -2); /* tie p=4 gives +2 */
    off[0] = -2;
    off[1] = 4;
    CHECK_EQ(cc_grid_reduce(&g, off, out), 1);
    CHECK_EQ(out[0], 2);
}

/* cc_grid_reduce_all (tables of small values) equals cc_grid_reduce vector
 * by vector: values in and beyond the table, both kinds of dimension. */
static void test_reduce_all(void)
{
    enum { D = 4, T = 200 };
    static const int dims[D] = { 1, 2, 5, 130 };
    int offs[T * D], out[T * D], want[D], per[D];
    unsigned char dead[T];
    unsigned x = 12345;
    for (int m = 0; m < 16; m++) {
        for (int k = 0; k < D; k++) per[k] = (m >> k) & 1;
        cc_grid g = { D, 1300, dims, per, 0 };
        for (int i = 0; i < T * D; i++) {
            x = x * 1103515245u + 12345u;
            int r = (int)(x >> 8);
            offs[i] = i % 7 == 0 ? (r % 2 ? INT_MIN + r % 5 : INT_MAX - r % 5) : r % (i % 3 ? 70 : 400) - (i % 3 ? 35 : 200);
        }
        cc_grid_reduce_all(&g, T, offs, out, dead);
        for (int i = 0; i < T; i++) {
            CHECK_EQ(dead[i], cc_grid_reduce(&g, offs + i * D, want));
            for (int k = 0; k < D; k++) CHECK_EQ(out[i * D + k], want[k]);
        }
    }
}

static void test_relative(void)
{
    for (int p = 1; p <= 6; p++)
        for (int per = 0; per <= 1; per++) {
            int dims[1] = { p }, periods[1] = { per };
            cc_grid g = { 1, p, dims, periods, 0 };
            for (int a = 0; a < p; a++)
                for (int b = 0; b < p; b++) {
                    int rel;
                    cc_grid_relative(&g, &a, &b, &rel);
                    if (!per) {
                        CHECK_EQ(rel, b - a);
                        continue;
                    }
                    CHECK_EQ(((a + rel - b) % p + p) % p, 0);
                    CHECK(2 * rel > -p && 2 * rel <= p); /* shortest, ties +p/2 */
                    if (p == 1) CHECK_EQ(rel, 0);
                    if (p == 2) CHECK_EQ(rel, a != b);
                }
        }
}

int main(void)
{
    test_rank_coords();
    test_shift();
    test_reduce();
    test_reduce_all();
    test_relative();
    printf("test_geometry: ok\n");
    return 0;
}
