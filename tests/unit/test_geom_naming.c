/* naming.c and the layouts of geometry.c: ranks and coordinates in row-
 * and column-major order against stride formulas, namings whose grid is
 * larger or smaller than the communicator, wrapping of any int, periodic
 * dimensions of size 1 and 2, the neighbour filter against a brute-force
 * enumeration of the cube, the box walk of stencil_core.c, and the split
 * of Cart_create_sub. */
#include "check.h"
#include "geom/naming.h"
#include "geom/stencil_core.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Independent reference: rank = sum_k c_k * stride_k, stride_k the
 * product of the sizes of the faster dimensions. */
static long long ref_rank(int d, const int dims[], const long long c[], int colmajor)
{
    long long r = 0;
    for (int k = 0; k < d; k++) {
        long long stride = 1;
        for (int j = 0; j < d; j++)
            if (colmajor ? j < k : j > k) stride *= dims[j];
        r += c[k] * stride;
    }
    return r;
}

/* Reference of a naming's rank at x = coords + s*off: wrap or CC_NONE. */
static int ref_at(const cc_naming *n, const int coords[], const int off[], int s)
{
    long long x[8];
    const cc_grid *g = &n->grid;
    for (int k = 0; k < g->d; k++) {
        long long v = (long long)coords[k] + (off ? s * (long long)off[k] : 0), p = g->dims[k];
        if (g->periods[k]) v = ((v % p) + p) % p;
        else if (v < 0 || v >= p) return CC_NONE;
        x[k] = v;
    }
    long long r = ref_rank(g->d, g->dims, x, g->colmajor);
    return r >= n->nprocs ? CC_NONE : (int)r;
}

static void test_layouts(void)
{
    int dims[4] = { 3, 1, 4, 2 }, periods[4] = { 1, 0, 1, 0 }, co[4];
    for (int cm = 0; cm <= 1; cm++) {
        cc_grid g = { .d = 4, .size = 24, .dims = dims, .periods = periods, .colmajor = cm };
        int seen[24] = { 0 };
        for (int r = 0; r < g.size; r++) {
            cc_grid_coords(&g, r, co);
            long long c[4];
            for (int k = 0; k < 4; k++) {
                CHECK(co[k] >= 0 && co[k] < dims[k]);
                c[k] = co[k];
            }
            CHECK_EQ(ref_rank(4, dims, c, cm), r);
            CHECK_EQ(cc_grid_rank(&g, co), r);
            seen[r]++;
        }
        for (int r = 0; r < 24; r++) CHECK_EQ(seen[r], 1);
    }
    /* Column-major: the first dimension runs fastest. */
    cc_grid g = { .d = 4, .size = 24, .dims = dims, .periods = periods, .colmajor = 1 };
    int c1[4] = { 1, 0, 0, 0 }, c2[4] = { 0, 0, 0, 1 }, c3[4] = { 0, 0, 1, 0 };
    CHECK_EQ(cc_grid_rank(&g, c1), 1);
    CHECK_EQ(cc_grid_rank(&g, c2), 12);
    CHECK_EQ(cc_grid_rank(&g, c3), 3);
    cc_grid_coords(&g, 13, co);
    CHECK(co[0] == 1 && co[1] == 0 && co[2] == 0 && co[3] == 1);
    /* A zero-initialised grid is row-major (MPI_Cart_create's layout). */
    cc_grid z;
    memset(&z, 0, sizeof z);
    z.d = 4, z.size = 24, z.dims = dims, z.periods = periods;
    CHECK_EQ(cc_grid_rank(&z, c2), 1);
}

/* Every coordinate from a list of awkward ints, every offset, both signs,
 * both layouts, grids larger and smaller than the communicator. */
static void test_shift(void)
{
    static const int vals[] = { 0, 1, -1, 2, -2, 3, 5, -7, 11, -1000000007, INT_MAX, INT_MIN, INT_MAX - 1,
                                INT_MIN + 1 };
    int nv = (int)(sizeof vals / sizeof vals[0]);
    /* dims: a size-1 and a size-2 periodic dimension, and a mesh one. */
    int dims[3] = { 1, 2, 3 };
    for (int per = 0; per < 8; per++) {
        int periods[3] = { per & 1, (per >> 1) & 1, (per >> 2) & 1 };
        for (int cm = 0; cm <= 1; cm++)
            for (int np = 1; np <= 9; np += 2) { /* smaller (1..5), equal-ish, larger (7, 9) than 6 */
                cc_naming n = { { .d = 3, .size = 6, .dims = dims, .periods = periods, .colmajor = cm }, np };
                for (int i = 0; i < nv; i++)
                    for (int j = 0; j < nv; j++) {
                        int co[3] = { vals[i], vals[j], vals[(i + j) % nv] };
                        int off[3] = { vals[j], vals[(i * 7 + 3) % nv], vals[i] };
                        CHECK_EQ(cc_naming_shift(&n, co, NULL, +1), ref_at(&n, co, NULL, +1));
                        CHECK_EQ(cc_naming_shift(&n, co, off, +1), ref_at(&n, co, off, +1));
                        CHECK_EQ(cc_naming_shift(&n, co, off, -1), ref_at(&n, co, off, -1));
                    }
                for (int r = -2; r < 12; r++) CHECK_EQ(cc_naming_placed(&n, r), r >= 0 && r < 6 && r < np);
            }
    }
    /* Wrapping of large negative offsets on a periodic dimension of 7. */
    int d1[1] = { 7 }, p1[1] = { 1 };
    cc_naming r = { { .d = 1, .size = 7, .dims = d1, .periods = p1 }, 7 };
    int c0[1] = { 3 }, big[1] = { INT_MIN };
    CHECK_EQ(cc_naming_shift(&r, c0, big, +1), (int)((((3LL + INT_MIN) % 7) + 7) % 7));
    CHECK_EQ(cc_naming_shift(&r, c0, big, -1), (int)((3LL - INT_MIN) % 7));
    int far[1] = { -7 * 1000 - 2 };
    CHECK_EQ(cc_naming_shift(&r, c0, far, +1), 1);
    /* A grid larger than the communicator: positions past it have no rank. */
    cc_naming l = { { .d = 1, .size = 7, .dims = d1, .periods = p1 }, 4 };
    int c4[1] = { 4 }, cm1[1] = { -1 }, c3[1] = { 3 };
    CHECK_EQ(cc_naming_shift(&l, c4, NULL, +1), CC_NONE);
    CHECK_EQ(cc_naming_shift(&l, cm1, NULL, +1), CC_NONE); /* wraps to 6 */
    CHECK_EQ(cc_naming_shift(&l, c3, NULL, +1), 3);
}

/* Brute force: every vector of the cube [-depth, depth]^d in row-major
 * order, kept when its norm lies in [shadow, depth] and it stays on the
 * grid from coords.  Compared with the library's list and count. */
static void check_neighbors(const cc_naming *n, const int coords[], int metric, int shadow, int depth)
{
    int d = n->grid.d;
    long long full = cc_stencil_count(d, metric, shadow, depth, 1LL << 40);
    int *out = malloc(sizeof(int) * (size_t)(full + 1) * (size_t)d);
    CHECK(out);
    long long cnt = cc_naming_neighbors(n, coords, metric, shadow, depth, out);
    CHECK_EQ(cc_naming_neighbors(n, coords, metric, shadow, depth, NULL), cnt);
    int v[6];
    for (int k = 0; k < d; k++) v[k] = -depth;
    long long j = 0;
    for (;;) {
        int r = 0, inside = 1;
        for (int k = 0; k < d; k++) {
            int a = v[k] < 0 ? -v[k] : v[k];
            r = metric == CC_METRIC_MANHATTAN ? r + a : (a > r ? a : r);
            long long x = (long long)coords[k] + v[k];
            if (!n->grid.periods[k] && (x < 0 || x >= n->grid.dims[k])) inside = 0;
        }
        if (r >= shadow && r <= depth && inside) {
            CHECK(j < cnt);
            for (int k = 0; k < d; k++) CHECK_EQ(out[j * d + k], v[k]);
            j++;
        }
        int k = d - 1;
        while (k >= 0 && v[k] == depth) v[k--] = -depth;
        if (k < 0) break;
        v[k]++;
    }
    CHECK_EQ(j, cnt);
    free(out);
}

static void test_neighbors(void)
{
    /* Every position of small grids, periodic or not per dimension,
     * including size-1 and size-2 dimensions. */
    int dims3[3] = { 1, 2, 4 };
    for (int per = 0; per < 8; per++) {
        int periods[3] = { per & 1, (per >> 1) & 1, (per >> 2) & 1 };
        cc_naming n = { { .d = 3, .size = 8, .dims = dims3, .periods = periods }, 8 };
        for (int r = 0; r < 8; r++) {
            int co[3];
            cc_grid_coords(&n.grid, r, co);
            for (int metric = CC_METRIC_MANHATTAN; metric <= CC_METRIC_CHEBYSHEV; metric++)
                for (int depth = 0; depth <= 4; depth++)
                    for (int shadow = 0; shadow <= depth; shadow++) check_neighbors(&n, co, metric, shadow, depth);
        }
    }
    int dims2[2] = { 5, 3 }, per2[2] = { 0, 0 };
    cc_naming m = { { .d = 2, .size = 15, .dims = dims2, .periods = per2, .colmajor = 1 }, 15 };
    for (int r = 0; r < 15; r++) {
        int co[2];
        cc_grid_coords(&m.grid, r, co);
        for (int depth = 0; depth <= 6; depth++)
            for (int shadow = 0; shadow <= depth; shadow++) {
                check_neighbors(&m, co, CC_METRIC_MANHATTAN, shadow, depth);
                check_neighbors(&m, co, CC_METRIC_CHEBYSHEV, shadow, depth);
            }
    }
    /* A corner of a 2x2 mesh, Moore radius 1: only (0,1), (1,0), (1,1). */
    int d22[2] = { 2, 2 }, p22[2] = { 0, 0 }, corner[2] = { 0, 0 }, out[16];
    cc_naming c = { { .d = 2, .size = 4, .dims = d22, .periods = p22 }, 4 };
    CHECK_EQ(cc_naming_neighbors(&c, corner, CC_METRIC_CHEBYSHEV, 1, 1, out), 3);
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == 1 && out[3] == 0 && out[4] == 1 && out[5] == 1);
    /* A thin shell against a narrow mesh: few vectors kept out of many,
     * found without walking the shell (a 2-d shell of radius 10^8 has
     * 4*10^8 vectors; the box leaves those with |v_1| <= 1). */
    int dn[2] = { 1000, 3 }, pn[2] = { 1, 0 }, mid[2] = { 0, 1 };
    cc_naming nar = { { .d = 2, .size = 3000, .dims = dn, .periods = pn }, 3000 };
    CHECK_EQ(cc_naming_neighbors(&nar, mid, CC_METRIC_MANHATTAN, 100000000, 100000000, out), 6);
    CHECK(out[0] == -100000000 && out[1] == 0 && out[2] == -99999999 && out[3] == -1);
    CHECK_EQ(cc_naming_neighbors(&nar, mid, CC_METRIC_CHEBYSHEV, 100000000, 100000000, NULL), 6);
    /* Periodic everywhere: the whole stencil, counted in closed form. */
    int pp[2] = { 1, 1 };
    cc_naming t = { { .d = 2, .size = 3000, .dims = dn, .periods = pp }, 3000 };
    CHECK_EQ(cc_naming_neighbors(&t, mid, CC_METRIC_MANHATTAN, 0, 30000, NULL), 1800060001LL);
}

/* The box walk alone: a box that holds no vector of the shell. */
static void test_walk_empty(void)
{
    int lo[2] = { 0, -1 }, hi[2] = { 1, 0 };
    cc_stencil_walk w;
    CHECK_EQ(cc_stencil_walk_init(&w, 2, CC_METRIC_CHEBYSHEV, 2, 3, lo, hi), 0);
    CHECK(cc_stencil_walk_next(&w) == NULL);
    CHECK(cc_stencil_walk_next(&w) == NULL);
    cc_stencil_walk_free(&w);
    CHECK_EQ(cc_stencil_walk_init(&w, 2, CC_METRIC_MANHATTAN, 3, 5, lo, hi), 0);
    CHECK(cc_stencil_walk_next(&w) == NULL);
    cc_stencil_walk_free(&w);
    CHECK_EQ(cc_stencil_walk_init(&w, 2, CC_METRIC_MANHATTAN, 2, 5, lo, hi), 0);
    const int *v = cc_stencil_walk_next(&w);
    CHECK(v && v[0] == 1 && v[1] == -1);
    CHECK(cc_stencil_walk_next(&w) == NULL);
    cc_stencil_walk_free(&w);
}

/* Cart_create_sub's colors and keys: one part per position in the removed
 * dimensions, ranked in each part by the kept ones, in the relative order
 * of the ranks (both layouts, every subset of dimensions). */
static void test_split(void)
{
    int dims[3] = { 2, 3, 4 }, periods[3] = { 0, 1, 0 };
    for (int cm = 0; cm <= 1; cm++)
        for (int mask = 0; mask < 8; mask++) {
            int remain[3] = { mask & 1, (mask >> 1) & 1, (mask >> 2) & 1 }, kept = 1;
            for (int k = 0; k < 3; k++)
                if (remain[k]) kept *= dims[k];
            cc_naming n = { { .d = 3, .size = 24, .dims = dims, .periods = periods, .colmajor = cm }, 24 };
            int color[24], key[24];
            for (int r = 0; r < 24; r++) {
                int co[3];
                long long kc[3], cc[3];
                int kd[3], cd[3];
                cc_grid_coords(&n.grid, r, co);
                CHECK_EQ(cc_naming_split(&n, co, remain, &color[r], &key[r]), 0);
                for (int k = 0; k < 3; k++) {
                    kd[k] = remain[k] ? dims[k] : 1;
                    kc[k] = remain[k] ? co[k] : 0;
                    cd[k] = remain[k] ? 1 : dims[k];
                    cc[k] = remain[k] ? 0 : co[k];
                }
                CHECK_EQ(key[r], ref_rank(3, kd, kc, cm));
                CHECK_EQ(color[r], ref_rank(3, cd, cc, cm));
                CHECK(key[r] >= 0 && key[r] < kept && color[r] >= 0 && color[r] < 24 / kept);
            }
            /* Within a part, keys rise with the rank: relative order kept. */
            for (int a = 0; a < 24; a++)
                for (int b = a + 1; b < 24; b++)
                    if (color[a] == color[b]) CHECK(key[a] < key[b]);
        }
}

int main(void)
{
    test_layouts();
    test_shift();
    test_neighbors();
    test_walk_empty();
    test_split();
    printf("test_geom_naming: ok\n");
    return 0;
}
