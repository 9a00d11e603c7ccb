/* geom/detect.c: the offsets of a process's neighbour lists, the match
 * against a stencil restricted to the grid, the box and histogram that
 * agree on the stencil.  Random stencil graphs on random grids (d <= 3,
 * sizes 1..4, periodic or not per dimension, row- and column-major,
 * repeated offsets, the zero vector, offsets beyond the grid), every
 * process's lists generated from a reference written here (coordinates by
 * strides, offsets reduced by hand), with off-grid neighbours omitted or
 * "no process" (CC_NONE) and shuffled: the stencil must come back from the
 * histogram, every process must match it, the permutations must name the
 * right entries, and a perturbed list must not match.  [seed [cases]] */
#include "check.h"
#include "geom/detect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;
static int rnd(int lo, int hi) /* inclusive */
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (int)((rng >> 33) % (uint64_t)(hi - lo + 1));
}

typedef struct {
    int d, dims[3], periods[3], colmajor, size;
} ref_grid;

static void ref_coords(const ref_grid *g, int r, int c[])
{
    for (int i = g->d - 1; i >= 0; i--) {
        int k = g->colmajor ? g->d - 1 - i : i;
        c[k] = r % g->dims[k];
        r /= g->dims[k];
    }
}

static int ref_rank(const ref_grid *g, const int c[])
{
    int r = 0;
    for (int i = 0; i < g->d; i++) {
        int k = g->colmajor ? g->d - 1 - i : i;
        r = r * g->dims[k] + c[k];
    }
    return r;
}

/* Rank at coords(r) + s*o, or CC_NONE off a non-periodic dimension. */
static int ref_shift(const ref_grid *g, int r, const int o[], int s)
{
    int c[3];
    ref_coords(g, r, c);
    for (int k = 0; k < g->d; k++) {
        int x = c[k] + s * o[k], p = g->dims[k];
        if (g->periods[k]) x = ((x % p) + p) % p;
        else if (x < 0 || x >= p) return CC_NONE;
        c[k] = x;
    }
    return ref_rank(g, c);
}

/* An offset as the process sees it: shortest representative in
 * (-p/2, p/2] on periodic dimensions; 1 when it never reaches a process. */
static int ref_reduce(const ref_grid *g, const int o[], int out[])
{
    int dead = 0;
    for (int k = 0; k < g->d; k++) {
        int p = g->dims[k], x = o[k];
        if (g->periods[k]) {
            x = ((x % p) + p) % p;
            if (2 * x > p) x -= p;
        } else if (x <= -p || x >= p) {
            dead = 1;
        }
        out[k] = x;
    }
    return dead;
}

static int lexcmp(int d, const int *a, const int *b)
{
    for (int k = 0; k < d; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(0, i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

enum { TMAX = 24, LMAX = 2 * TMAX };

/* One process's list of one side: ranks (CC_NONE for "no process"). */
typedef struct {
    int n, ranks[LMAX];
} side_list;

/* Build process r's side (sign +1 destinations, -1 sources) of the stencil
 * graph: the on-grid neighbours, plus CC_NONE for some off-grid ones (mode
 * 0: none, 1: all, 2: at random) and sometimes extra CC_NONE entries. */
static void make_side(const ref_grid *g, int t, const int *off, int r, int sign, int mode, side_list *l)
{
    l->n = 0;
    for (int i = 0; i < t; i++) {
        int x = ref_shift(g, r, off + 3 * i, sign);
        if (x != CC_NONE || mode == 1 || (mode == 2 && rnd(0, 1))) l->ranks[l->n++] = x;
    }
    if (mode == 2 && rnd(0, 3) == 0) l->ranks[l->n++] = CC_NONE;
    shuffle(l->ranks, l->n);
}

static void one_case(void)
{
    ref_grid rg;
    rg.d = rnd(1, 3);
    rg.colmajor = rnd(0, 1);
    rg.size = 1;
    for (int k = 0; k < rg.d; k++) {
        rg.dims[k] = rnd(1, 4);
        rg.periods[k] = rnd(0, 1);
        rg.size *= rg.dims[k];
    }
    cc_grid g = { rg.d, rg.size, rg.dims, rg.periods, rg.colmajor };
    int d = rg.d, t = rnd(0, TMAX), off[3 * TMAX], mode = rnd(0, 2);
    for (int i = 0; i < t; i++)
        for (int k = 0; k < 3; k++) off[3 * i + k] = k < d ? rnd(-4, 4) : 0;
    if (t > 2) memcpy(off + 3 * (t - 1), off, sizeof(int) * 3); /* a repeat */

    /* The stencil the processes must agree on: the reduced offsets that
     * reach some process, sorted, with multiplicity. */
    int S[3 * TMAX], ns = 0;
    for (int i = 0; i < t; i++) {
        int red[3];
        if (ref_reduce(&rg, off + 3 * i, red)) continue;
        int j = ns++;
        while (j > 0 && lexcmp(d, S + (j - 1) * d, red) > 0) {
            memcpy(S + j * d, S + (j - 1) * d, sizeof(int) * (size_t)d);
            j--;
        }
        memcpy(S + j * d, red, sizeof(int) * (size_t)d);
    }

    /* Every process's lists; the bounds and histogram of its destinations. */
    side_list *out = malloc(sizeof(side_list) * (size_t)rg.size), *in = malloc(sizeof(side_list) * (size_t)rg.size);
    int offs[3 * LMAX], order[LMAX], tmp[LMAX], me[3], lo[3], hi[3], glo[3], ghi[3], any = 0;
    for (int r = 0; r < rg.size; r++) {
        make_side(&rg, t, off, r, 1, mode, &out[r]);
        make_side(&rg, t, off, r, -1, mode, &in[r]);
        ref_coords(&rg, r, me);
        int nv = cc_detect_side(&g, me, out[r].n, out[r].ranks, 1, offs, order, tmp), nonone = 0;
        for (int i = 0; i < out[r].n; i++) nonone += out[r].ranks[i] != CC_NONE;
        CHECK_EQ(nv, nonone);
        /* sorted, stable, CC_NONE entries last in list order */
        for (int j = 0; j < out[r].n; j++) {
            int i = order[j];
            CHECK((j < nv) == (out[r].ranks[i] != CC_NONE));
            if (j < nv) CHECK_EQ(ref_shift(&rg, r, offs + i * d, 1), out[r].ranks[i]);
            if (j > 0 && j < nv) {
                int c = lexcmp(d, offs + order[j - 1] * d, offs + i * d);
                CHECK(c < 0 || (c == 0 && order[j - 1] < i));
            }
            if (j > nv) CHECK(order[j - 1] < i);
        }
        cc_detect_bounds(d, offs, order, nv, lo, hi);
        for (int k = 0; k < d && nv > 0; k++) {
            glo[k] = any && glo[k] < lo[k] ? glo[k] : lo[k];
            ghi[k] = any && ghi[k] > hi[k] ? ghi[k] : hi[k];
        }
        any |= nv > 0;
    }
    int *hist = NULL, *mine = NULL;
    long long cells = 0;
    if (any) {
        cells = cc_box_cells(d, glo, ghi, 4096);
        CHECK(cells > 0 && cells <= 9 * 9 * 9);
        hist = calloc((size_t)cells, sizeof(int));
        mine = malloc(sizeof(int) * (size_t)cells);
        for (int r = 0; r < rg.size; r++) {
            ref_coords(&rg, r, me);
            int nv = cc_detect_side(&g, me, out[r].n, out[r].ranks, 1, offs, order, tmp);
            memset(mine, 0, sizeof(int) * (size_t)cells);
            CHECK_EQ(cc_detect_count(d, glo, ghi, offs, order, nv, mine), 0);
            for (long long c = 0; c < cells; c++)
                if (mine[c] > hist[c]) hist[c] = mine[c];
        }
    }
    int got[3 * TMAX + 3];
    long long tg = any ? cc_detect_stencil(d, glo, ghi, cells, hist, 1 << 20, NULL) : 0;
    CHECK_EQ(tg, ns);
    if (any) CHECK_EQ(cc_detect_stencil(d, glo, ghi, cells, hist, 1 << 20, got), ns);
    CHECK(ns == 0 || memcmp(got, S, sizeof(int) * (size_t)(ns * d)) == 0);

    /* Every process matches S on both sides; the permutations name entries
     * with the right offset, each entry with a process exactly once, CC_NONE
     * entries only for offsets that leave the grid. */
    for (int r = 0; r < rg.size; r++)
        for (int sign = 1; sign >= -1; sign -= 2) {
            side_list *l = sign > 0 ? &out[r] : &in[r];
            int perm[TMAX + 1], used[LMAX] = { 0 };
            ref_coords(&rg, r, me);
            int nv = cc_detect_side(&g, me, l->n, l->ranks, sign, offs, order, tmp);
            CHECK_EQ(cc_detect_match(&g, me, ns, S, sign, l->n, offs, order, nv, perm), 0);
            for (int i = 0; i < ns; i++) {
                int x = ref_shift(&rg, r, S + i * d, sign);
                if (perm[i] < 0) {
                    CHECK_EQ(x, CC_NONE);
                    continue;
                }
                CHECK(perm[i] < l->n);
                CHECK_EQ(used[perm[i]]++, 0);
                CHECK_EQ(l->ranks[perm[i]], x);
            }
            for (int i = 0; i < l->n; i++) CHECK(used[i] == 1 || l->ranks[i] == CC_NONE);
            /* perturbed: an entry with a process dropped, one added, one moved */
            if (nv > 0) {
                side_list p = *l;
                int victim = order[rnd(0, nv - 1)], how = rnd(0, 2);
                if (how == 0) {
                    p.ranks[victim] = CC_NONE;
                } else if (how == 1) {
                    p.ranks[p.n++] = p.ranks[victim];
                } else {
                    int o[3];
                    memcpy(o, offs + victim * d, sizeof(int) * (size_t)d);
                    int k = rnd(0, d - 1);
                    o[k] += 1;
                    int x = ref_shift(&rg, r, o, sign);
                    if (x == CC_NONE || x == p.ranks[victim]) continue; /* (no other process) */
                    p.ranks[victim] = x;
                }
                nv = cc_detect_side(&g, me, p.n, p.ranks, sign, offs, order, tmp);
                CHECK_EQ(cc_detect_match(&g, me, ns, S, sign, p.n, offs, order, nv, perm), -1);
            }
        }
    free(hist);
    free(mine);
    free(out);
    free(in);
}

static void test_fixed(void)
{
    /* 1-D mesh of 4, stencil {-1, +1}: the ends list one neighbour */
    int dims[1] = { 4 }, periods[1] = { 0 }, me[1] = { 0 };
    cc_grid g = { 1, 4, dims, periods, 0 };
    int S[2] = { -1, 1 }, offs[4], order[4], tmp[4], perm[2];
    int l0[2] = { CC_NONE, 1 }; /* rank 0: MPI_PROC_NULL for -1, then rank 1 */
    int nv = cc_detect_side(&g, me, 2, l0, 1, offs, order, tmp);
    CHECK_EQ(nv, 1);
    CHECK_EQ(order[0], 1);
    CHECK_EQ(order[1], 0);
    CHECK_EQ(cc_detect_match(&g, me, 2, S, 1, 2, offs, order, nv, perm), 0);
    CHECK_EQ(perm[0], 0); /* -1 leaves the grid: the CC_NONE entry */
    CHECK_EQ(perm[1], 1);
    int l1[1] = { 1 }; /* omitted instead */
    nv = cc_detect_side(&g, me, 1, l1, 1, offs, order, tmp);
    CHECK_EQ(cc_detect_match(&g, me, 2, S, 1, 1, offs, order, nv, perm), 0);
    CHECK_EQ(perm[0], -1);
    CHECK_EQ(perm[1], 0);
    int l2[2] = { 1, 2 }; /* +2 is no offset of S */
    nv = cc_detect_side(&g, me, 2, l2, 1, offs, order, tmp);
    CHECK_EQ(cc_detect_match(&g, me, 2, S, 1, 2, offs, order, nv, perm), -1);
    int l3[1] = { CC_NONE }; /* +1 stays on the grid: it must be listed */
    nv = cc_detect_side(&g, me, 1, l3, 1, offs, order, tmp);
    CHECK_EQ(cc_detect_match(&g, me, 2, S, 1, 1, offs, order, nv, perm), -1);
    int l4[1] = { 4 }; /* beyond the grid */
    CHECK_EQ(cc_detect_side(&g, me, 1, l4, 1, offs, order, tmp), -1);
    CHECK_EQ(cc_detect_offsets(&g, me, 1, l0, 1, offs), -1); /* CC_NONE: no position */
    /* sources: -1 as a source offset comes from +1 */
    int c2[1] = { 2 }, src[2] = { 3, 1 };
    nv = cc_detect_side(&g, c2, 2, src, -1, offs, order, tmp);
    CHECK_EQ(nv, 2);
    CHECK_EQ(offs[0], -1);
    CHECK_EQ(offs[1], 1);
    CHECK_EQ(cc_detect_match(&g, c2, 2, S, -1, 2, offs, order, nv, perm), 0);
    CHECK_EQ(perm[0], 0);
    CHECK_EQ(perm[1], 1);

    /* the box: cells, index (last coordinate fastest), limits */
    int lo[2] = { -1, -2 }, hi[2] = { 1, 2 }, o[2] = { 1, -2 };
    CHECK_EQ(cc_box_cells(2, lo, hi, 4096), 15);
    CHECK_EQ(cc_box_cells(2, lo, hi, 14), -1);
    CHECK_EQ(cc_box_index(2, lo, hi, o), 10);
    int out[2] = { 2, 0 };
    CHECK_EQ(cc_box_index(2, lo, hi, out), -1);
    int elo[1] = { 0 }, ehi[1] = { -1 };
    CHECK_EQ(cc_box_cells(1, elo, ehi, 10), 0);
    int wlo[3] = { -1000000, -1000000, -1000000 }, whi[3] = { 1000000, 1000000, 1000000 };
    CHECK_EQ(cc_box_cells(3, wlo, whi, 4096), -1); /* no overflow */
    int h[15] = { 0 };
    h[0] = 2;
    h[14] = 1;
    int st[6];
    CHECK_EQ(cc_detect_stencil(2, lo, hi, 15, h, 100, st), 3);
    CHECK(st[0] == -1 && st[1] == -2 && st[2] == -1 && st[3] == -2 && st[4] == 1 && st[5] == 2);
    CHECK_EQ(cc_detect_stencil(2, lo, hi, 15, h, 2, NULL), -1);
    h[3] = -1;
    CHECK_EQ(cc_detect_stencil(2, lo, hi, 15, h, 100, NULL), -1);
    int b1[2], b2[2];
    cc_detect_bounds(2, offs, order, 0, b1, b2);
    CHECK(b1[0] == 0 && b2[0] == -1);
}

int main(int argc, char **argv)
{
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 12345;
    int cases = argc > 2 ? atoi(argv[2]) : 3000;
    test_fixed();
    for (int c = 0; c < cases; c++) {
        rng = seed * 0x9e3779b97f4a7c15ULL + (unsigned long long)c;
        one_case();
    }
    return 0;
}
