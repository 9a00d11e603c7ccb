/* Schedule builders and statistics without a grid: the seeds' numbers
 * (seed 002 Table 1 and Figure 2, seed 001 D = 2rd), hand-checked small
 * schedules, the exact allgather order against brute force, stats equal to
 * the built schedules, the memory bound, huge offsets and degenerate
 * inputs.  Usage: test_schedule [seed]. */
#include "check.h"
#include "sched/schedule.h"
#include "sched/schedule_trie.h"
#include "geom/stencil_core.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (unsigned)((rng_state >> 33) % n) : 0;
}

static cc_schedule *build(const cc_nset *ns, int coll, int alg)
{
    cc_schedule *s = NULL;
    CHECK_EQ(cc_schedule_build(ns, coll, alg, &s), CC_OK);
    CHECK(s != NULL);
    return s;
}

/* Built counts equal the statistics, and the model's counts
 * (cc_schedule_counts: DIRECT and COMBINING, copies included). */
static void check_stats(const cc_nset *ns, int coll, int alg)
{
    long long p, r, v;
    CHECK_EQ(cc_schedule_stats(ns, coll, alg, &p, &r, &v), CC_OK);
    cc_schedule *s = build(ns, coll, alg);
    CHECK_EQ(p, s->nphases);
    CHECK_EQ(r, s->nrounds);
    CHECK_EQ(v, s->nentries);
    cc_sched_counts c;
    if (alg == CC_DIRECT || alg == CC_COMBINING) {
        CHECK_EQ(cc_schedule_counts(ns, coll, alg, &c), CC_OK);
        CHECK_EQ(c.phases, s->nphases);
        CHECK_EQ(c.rounds, s->nrounds);
        CHECK_EQ(c.entries, s->nentries);
        CHECK_EQ(c.copies, s->ncopies);
    } else {
        CHECK_EQ(cc_schedule_counts(ns, coll, alg, &c), CC_ETOOBIG);
    }
    cc_schedule_free(s);
}

static int skipped(const cc_nset *ns, int i) { return ns->skip && ns->skip[i]; }

/* Edges of the allgather trie along `order`, by brute force: distinct
 * projections onto order[0..m] whose last coordinate is non-zero. */
static long long brute_edges(const cc_nset *ns, const int *order)
{
    long long e = 0;
    int d = ns->d;
    for (int m = 0; m < d; m++)
        for (int i = 0; i < ns->t; i++) {
            if (skipped(ns, i) || ns->offs[i * d + order[m]] == 0) continue;
            int dup = 0;
            for (int j = 0; j < i && !dup; j++) {
                if (skipped(ns, j)) continue;
                int same = 1;
                for (int x = 0; x <= m && same; x++) same = ns->offs[j * d + order[x]] == ns->offs[i * d + order[x]];
                dup = same;
            }
            e += !dup;
        }
    return e;
}

/* C_k: distinct non-zero values of coordinate k among non-skipped vectors. */
static int distinct_nonzero(const cc_nset *ns, int k)
{
    int c = 0, d = ns->d;
    for (int i = 0; i < ns->t; i++) {
        int x = ns->offs[i * d + k], dup = x == 0 || skipped(ns, i);
        for (int j = 0; j < i && !dup; j++) dup = !skipped(ns, j) && ns->offs[j * d + k] == x;
        c += !dup;
    }
    return c;
}

/* Smallest brute_edges over all orders (Heap's algorithm would do; d <= 5
 * so a plain recursive permutation is fine). */
static long long best_edges(const cc_nset *ns, int *perm, int m)
{
    if (m == ns->d) return brute_edges(ns, perm);
    long long best = LLONG_MAX;
    for (int j = m; j < ns->d; j++) {
        int x = perm[m];
        perm[m] = perm[j];
        perm[j] = x;
        long long e = best_edges(ns, perm, m + 1);
        if (e < best) best = e;
        perm[j] = perm[m];
        perm[m] = x;
    }
    return best;
}

/* Seed 002 Table 1: n offsets -1 .. n-2 per dimension, zero excluded. */
static void test_table1(void)
{
    static const long long a2a[4][3] = { { 12, 24, 40 }, { 54, 144, 300 }, { 216, 768, 2000 }, { 810, 3840, 12500 } };
    for (int d = 2; d <= 5; d++)
        for (int n = 3; n <= 5; n++) {
            int t = 1;
            for (int k = 0; k < d; k++) t *= n;
            int *offs = malloc(sizeof(int) * (size_t)t * (size_t)d), m = 0;
            CHECK(offs);
            for (int x = 0; x < t; x++) {
                int rest = x, *v = offs + (size_t)m * d, zero = 1;
                for (int k = d - 1; k >= 0; k--) {
                    v[k] = rest % n - 1;
                    rest /= n;
                    zero &= v[k] == 0;
                }
                m += !zero;
            }
            CHECK_EQ(m, t - 1);
            cc_nset ns = { d, m, offs, NULL, NULL };
            long long p, r, v;
            CHECK_EQ(cc_schedule_stats(&ns, CC_ALLGATHER, CC_COMBINING, &p, &r, &v), CC_OK);
            CHECK_EQ(p, d);
            CHECK_EQ(r, d * (n - 1));
            CHECK_EQ(v, t - 1);
            CHECK_EQ(cc_schedule_stats(&ns, CC_ALLTOALL, CC_COMBINING, &p, &r, &v), CC_OK);
            CHECK_EQ(p, d);
            CHECK_EQ(r, d * (n - 1));
            CHECK_EQ(v, a2a[d - 2][n - 3]);
            CHECK_EQ(cc_schedule_stats(&ns, CC_ALLTOALL, CC_DIRECT, &p, &r, &v), CC_OK);
            CHECK(p == 1 && r == t - 1 && v == t - 1);
            for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++)
                for (int alg = CC_DIRECT; alg <= CC_TORUS; alg++) check_stats(&ns, coll, alg);
            free(offs);
        }
}

/* Seed 002 Figure 2.  The tree in decreasing dimension order has 1+1+4 = 6
 * non-zero edges (7 nodes counting the root: the paper's "V = 7"); the
 * increasing order has 4+4+4 = 12. */
static void test_figure2(void)
{
    static const int offs[] = { -2, 1, 1, -1, 1, 1, 1, 1, 1, 2, 1, 1 };
    cc_nset ns = { 3, 4, offs, NULL, NULL };
    int order[3], inc[3] = { 0, 1, 2 }, dec[3] = { 2, 1, 0 };
    CHECK_EQ(brute_edges(&ns, inc), 12);
    CHECK_EQ(brute_edges(&ns, dec), 6);
    CHECK_EQ(cc_allgather_order(&ns, order), 6);
    CHECK_EQ(order[2], 0); /* the wide dimension last, as in the right tree */
    CHECK_EQ(brute_edges(&ns, order), 6);
    cc_schedule *s = build(&ns, CC_ALLGATHER, CC_COMBINING);
    CHECK_EQ(s->nentries, 6);
    CHECK_EQ(s->nrounds, 6);
    CHECK_EQ(s->nphases, 3);
    cc_schedule_free(s);
}

/* Seed 001: TORUS on the radius-r Moore neighbourhood takes D = 2rd rounds. */
static void test_torus_moore(void)
{
    for (int d = 1; d <= 4; d++)
        for (int r = 1; r <= 3; r++) {
            long long t = cc_stencil_count(d, CC_METRIC_CHEBYSHEV, 1, r, 1 << 20);
            int *offs = malloc(sizeof(int) * (size_t)t * (size_t)d);
            CHECK(offs);
            CHECK_EQ(cc_stencil_list(d, CC_METRIC_CHEBYSHEV, 1, r, offs), t);
            cc_nset ns = { d, (int)t, offs, NULL, NULL };
            long long l1 = 0;
            for (long long x = 0; x < t * d; x++) l1 += offs[x] < 0 ? -offs[x] : offs[x];
            for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++) {
                long long p, rr, v;
                CHECK_EQ(cc_schedule_stats(&ns, coll, CC_TORUS, &p, &rr, &v), CC_OK);
                CHECK_EQ(rr, 2LL * r * d);
                CHECK_EQ(p, (long long)r * d);
                if (coll == CC_ALLTOALL) CHECK_EQ(v, l1);
                check_stats(&ns, coll, CC_TORUS);
            }
            /* Allgather trie of a full cube: at level k there are (2r+1)^k
             * nodes, each travelling r hops each way. */
            long long p, rr, v, want = 0, nodes = 1;
            for (int k = 0; k < d; k++) {
                want += nodes * 2 * r;
                nodes *= 2 * r + 1;
            }
            CHECK_EQ(cc_schedule_stats(&ns, CC_ALLGATHER, CC_TORUS, &p, &rr, &v), CC_OK);
            CHECK_EQ(v, want);
            free(offs);
        }
}

static void expect_entry(const cc_schedule *s, int e, int src, int dst, int lo, int hi, int moved)
{
    CHECK(e < s->nentries);
    const cc_entry *x = &s->entries[e];
    CHECK_EQ(x->src, src);
    CHECK_EQ(x->dst, dst);
    CHECK_EQ(x->lo, lo);
    CHECK_EQ(x->hi, hi);
    CHECK_EQ(x->moved, moved);
}

static void expect_round(const cc_schedule *s, int r, const int *vec, int count)
{
    CHECK(r < s->nrounds);
    for (int k = 0; k < s->d; k++) CHECK_EQ(s->vecs[s->rounds[r].vec * s->d + k], vec[k]);
    CHECK_EQ(s->rounds[r].count, count);
}

#define SEND(i) CC_SLOT(CC_SLOT_SEND, i)
#define RECV(i) CC_SLOT(CC_SLOT_RECV, i)
#define TEMP(i) CC_SLOT(CC_SLOT_TEMP, i)

static void test_hand_combining_alltoall(void)
{
    static const int offs[] = { 1, 1, 1, 0, 0, -1, 0, 0, 5, 5 };
    static const unsigned char skip[] = { 0, 0, 0, 0, 1 };
    cc_nset ns = { 2, 5, offs, skip, NULL };
    cc_schedule *s = build(&ns, CC_ALLTOALL, CC_COMBINING);
    CHECK(s->nphases == 2 && s->nrounds == 3 && s->nentries == 4 && s->ntemp == 1 && s->ncopies == 1);
    CHECK_EQ(s->temp_like[0], 0);
    expect_round(s, 0, (int[]){ 1, 0 }, 2);
    expect_entry(s, 0, SEND(0), TEMP(0), 0, 1, 0); /* first of two hops */
    expect_entry(s, 1, SEND(1), RECV(1), 1, 2, 0);
    expect_round(s, 1, (int[]){ 0, -1 }, 1); /* ascending value */
    expect_entry(s, 2, SEND(2), RECV(2), 2, 3, 0);
    expect_round(s, 2, (int[]){ 0, 1 }, 1);
    expect_entry(s, 3, TEMP(0), RECV(0), 0, 1, 0);
    CHECK(s->copies[0].src == SEND(3) && s->copies[0].dst == RECV(3) && s->copies[0].leaf == 3);
    cc_schedule_free(s);
}

static void test_hand_combining_allgather(void)
{
    static const int offs[] = { 1, 0, 1, 1, 0, 1, 1, 1 };
    cc_nset ns = { 2, 4, offs, NULL, NULL };
    cc_schedule *s = build(&ns, CC_ALLGATHER, CC_COMBINING);
    CHECK(s->order[0] == 0 && s->order[1] == 1);
    CHECK(s->perm[0] == 2 && s->perm[1] == 0 && s->perm[2] == 1 && s->perm[3] == 3);
    CHECK(s->nphases == 2 && s->nrounds == 2 && s->nentries == 3 && s->ntemp == 0 && s->ncopies == 1);
    expect_round(s, 0, (int[]){ 1, 0 }, 1);
    expect_entry(s, 0, SEND(0), RECV(0), 1, 4, 0);
    expect_round(s, 1, (int[]){ 0, 1 }, 2);
    expect_entry(s, 1, SEND(0), RECV(2), 0, 1, 0);
    expect_entry(s, 2, RECV(0), RECV(1), 2, 4, 0);
    CHECK(s->copies[0].src == RECV(1) && s->copies[0].dst == RECV(3) && s->copies[0].leaf == 3);
    cc_schedule_free(s);

    /* A chain head without an equal leaf gets a TEMP; zero vectors are
     * copied from the send buffer. */
    static const int offs2[] = { 2, 1, 0, 0, 2, -1, 0, 0 };
    cc_nset ns2 = { 2, 4, offs2, NULL, NULL };
    s = build(&ns2, CC_ALLGATHER, CC_COMBINING);
    CHECK(s->order[0] == 0 && s->order[1] == 1);
    CHECK_EQ(s->ntemp, 1);
    CHECK_EQ(s->nentries, 3);
    expect_entry(s, 0, SEND(0), TEMP(0), 2, 4, 0);
    CHECK_EQ(s->temp_like[0], s->perm[2]);
    CHECK_EQ(s->ncopies, 2);
    CHECK(s->copies[0].src == SEND(0) && s->copies[0].leaf == 1);
    CHECK(s->copies[1].src == SEND(0) && s->copies[1].leaf == 3);
    cc_schedule_free(s);
}

static void test_hand_torus(void)
{
    static const int offs[] = { 2, -1 };
    cc_nset ns = { 2, 1, offs, NULL, NULL };
    cc_schedule *s = build(&ns, CC_ALLTOALL, CC_TORUS);
    CHECK(s->nphases == 3 && s->nrounds == 3 && s->nentries == 3 && s->ntemp == 1);
    expect_round(s, 0, (int[]){ 1, 0 }, 1);
    expect_entry(s, 0, SEND(0), RECV(0), 0, 1, 0); /* 3 hops: RECV, TEMP, RECV */
    expect_entry(s, 1, RECV(0), TEMP(0), 0, 1, 1);
    expect_round(s, 2, (int[]){ 0, -1 }, 1);
    expect_entry(s, 2, TEMP(0), RECV(0), 0, 1, 0);
    cc_schedule_free(s);

    static const int offs1[] = { 3, 1, -2 };
    cc_nset ns1 = { 1, 3, offs1, NULL, NULL };
    s = build(&ns1, CC_ALLGATHER, CC_TORUS);
    CHECK(s->perm[0] == 2 && s->perm[1] == 1 && s->perm[2] == 0);
    CHECK(s->nphases == 3 && s->nrounds == 5 && s->nentries == 5 && s->ntemp == 2 && s->ncopies == 0);
    expect_round(s, 0, (int[]){ 1 }, 1);
    expect_entry(s, 0, SEND(0), RECV(1), 1, 3, 0);
    expect_round(s, 1, (int[]){ -1 }, 1);
    expect_entry(s, 1, SEND(0), TEMP(0), 0, 1, 0);
    expect_entry(s, 2, RECV(1), TEMP(1), 2, 3, 1);
    expect_entry(s, 3, TEMP(0), RECV(2), 0, 1, -1);
    expect_entry(s, 4, TEMP(1), RECV(0), 2, 3, 2);
    cc_schedule_free(s);
}

/* Stats of raw offsets far beyond any grid: closed forms, no hop loops. */
static void test_huge(void)
{
    static const int offs[] = { 1000000000, -1000000000, INT_MIN, INT_MAX, 0, 0, 7, -3 };
    cc_nset ns = { 2, 4, offs, NULL, NULL };
    long long p, r, v;
    CHECK_EQ(cc_schedule_stats(&ns, CC_ALLTOALL, CC_TORUS, &p, &r, &v), CC_OK);
    long long P0 = 1000000000, M0 = 2147483648LL, P1 = INT_MAX, M1 = 1000000000;
    CHECK_EQ(r, P0 + M0 + P1 + M1);
    CHECK_EQ(p, M0 + P1);
    CHECK_EQ(v, 2000000000LL + 2147483648LL + INT_MAX + 10);
    CHECK_EQ(cc_schedule_stats(&ns, CC_ALLGATHER, CC_TORUS, &p, &r, &v), CC_OK);
    CHECK_EQ(r, P0 + M0 + P1 + M1);
    /* Order by increasing C_k ties by index: (0, 1); root travels both ways
     * along 0 (1e9 and 2^31), the three non-zero level-1 nodes each along 1. */
    CHECK_EQ(v, P0 + M0 + 1000000000LL + INT_MAX + 3);
    CHECK_EQ(cc_schedule_stats(&ns, CC_ALLTOALL, CC_COMBINING, &p, &r, &v), CC_OK);
    CHECK(p == 2 && r == 6 && v == 6);
    CHECK_EQ(cc_schedule_stats(&ns, CC_ALLGATHER, CC_COMBINING, &p, &r, &v), CC_OK);
    CHECK(p == 2 && r == 6 && v == 6);
    CHECK_EQ(cc_schedule_stats(&ns, CC_ALLGATHER, CC_DIRECT, &p, &r, &v), CC_OK);
    CHECK(p == 1 && r == 3 && v == 3);
    /* COMBINING builds fine with such offsets (one round per value); TORUS
     * would need billions of entries and is refused before allocating. */
    check_stats(&ns, CC_ALLTOALL, CC_COMBINING);
    check_stats(&ns, CC_ALLGATHER, CC_COMBINING);
    cc_schedule dummy, *s = &dummy; /* must be reset to NULL */
    CHECK_EQ(cc_schedule_build(&ns, CC_ALLTOALL, CC_TORUS, &s), CC_ETOOBIG);
    CHECK(s == NULL);
    CHECK_EQ(cc_schedule_build(&ns, CC_ALLGATHER, CC_TORUS, &s), CC_ETOOBIG);
    CHECK(s == NULL);
}

static void test_degenerate(void)
{
    static const int zeros[] = { 0, 0, 0, 0, 0, 0 };
    static const unsigned char all[] = { 1, 1, 1 };
    cc_nset cases[] = {
        { 2, 0, zeros, NULL, NULL },   /* no neighbours */
        { 0, 3, zeros, NULL, NULL },   /* zero-dimensional grid */
        { 2, 3, zeros, NULL, NULL },   /* only zero vectors */
        { 2, 3, zeros, all, NULL },    /* everything skipped */
    };
    for (int c = 0; c < 4; c++)
        for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++)
            for (int alg = CC_DIRECT; alg <= CC_TORUS; alg++) {
                check_stats(&cases[c], coll, alg);
                cc_schedule *s = build(&cases[c], coll, alg);
                CHECK_EQ(s->nrounds, 0);
                CHECK_EQ(s->ncopies, (c == 1 || c == 2) ? 3 : 0);
                cc_schedule_free(s);
            }
}

/* Random neighbourhoods: stats == built, memory bound, exact order. */
static void test_random(int ncases)
{
    int offs[40 * 5], order[5], perm[5];
    unsigned char skip[40];
    static const int ranges[] = { 1, 2, 3, 7, 40 };
    for (int c = 0; c < ncases; c++) {
        int d = (int)rnd(6), t = (int)rnd(41), R = ranges[rnd(5)], dense = rnd(3) == 0;
        for (int i = 0; i < t; i++) {
            if (i > 0 && rnd(5) == 0) {
                memcpy(offs + i * d, offs + (int)rnd((unsigned)i) * d, sizeof(int) * (size_t)d);
            } else {
                for (int k = 0; k < d; k++)
                    offs[i * d + k] = (dense || rnd(2)) ? (int)rnd(2u * R + 1) - R : 0;
            }
            skip[i] = rnd(6) == 0;
        }
        cc_nset ns = { d, t, offs, rnd(2) ? skip : NULL, NULL };
        for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++)
            for (int alg = CC_DIRECT; alg <= CC_TORUS; alg++) check_stats(&ns, coll, alg);
        int n = 0;
        for (int i = 0; i < t; i++) n += !skipped(&ns, i);
        for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++) {
            cc_schedule *s = build(&ns, coll, CC_COMBINING);
            CHECK(s->nentries <= (long long)n * d);
            CHECK(s->ntemp <= (coll == CC_ALLTOALL ? n : (long long)n * d));
            cc_schedule_free(s);
        }
        long long e = cc_allgather_order(&ns, order);
        CHECK(e >= 0);
        for (int k = 0; k < d; k++) perm[k] = k;
        CHECK_EQ(e, brute_edges(&ns, order));
        CHECK_EQ(e, best_edges(&ns, perm, 0));

        /* The heuristic: increasing C_k, ties by index, its edge count. */
        long long keep = cc_order_exact_limit;
        cc_order_exact_limit = -1;
        e = cc_allgather_order(&ns, order);
        CHECK_EQ(e, brute_edges(&ns, order));
        for (int k = 1; k < d; k++) {
            int a = distinct_nonzero(&ns, order[k - 1]), b = distinct_nonzero(&ns, order[k]);
            CHECK(a < b || (a == b && order[k - 1] < order[k]));
        }
        for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++)
            for (int alg = CC_COMBINING; alg <= CC_TORUS; alg++) check_stats(&ns, coll, alg);
        cc_order_exact_limit = keep;
    }
}

/* Beyond the exact limit without the test hook: 20 active dimensions. */
static void test_wide(void)
{
    enum { D = 20, T = 70 };
    static int offs[T * D];
    for (int i = 0; i < T; i++)
        for (int k = 0; k < D; k++) offs[i * D + k] = (int)rnd(1 + (unsigned)k % 4) - (int)(k % 2);
    for (int k = 0; k < D; k++) offs[k] = 1; /* every dimension active */
    cc_nset ns = { D, T, offs, NULL, NULL };
    int order[D];
    long long e = cc_allgather_order(&ns, order);
    CHECK_EQ(e, brute_edges(&ns, order));
    for (int k = 1; k < D; k++) {
        int a = distinct_nonzero(&ns, order[k - 1]), b = distinct_nonzero(&ns, order[k]);
        CHECK(a < b || (a == b && order[k - 1] < order[k]));
    }
    for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++)
        for (int alg = CC_DIRECT; alg <= CC_TORUS; alg++) check_stats(&ns, coll, alg);
}

int main(int argc, char **argv)
{
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 12345;
    printf("test_schedule: seed %llu\n", seed);
    rng_state = seed;
    test_hand_combining_alltoall();
    test_hand_combining_allgather();
    test_hand_torus();
    test_figure2();
    test_table1();
    test_torus_moore();
    test_huge();
    test_degenerate();
    test_random(3000);
    test_wide();
    printf("test_schedule: ok\n");
    return 0;
}
