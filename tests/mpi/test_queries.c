/* Queries, stencils, schedule statistics, communicator duplication, info keys
 * and environment variables.
 *
 *  - Cart_neighbor_count/get and Cart_neighborhood_get (weighted and not,
 *    MPI_UNWEIGHTED outputs) against row-major rank arithmetic.
 *  - Cart_relative_rank/shift/coordinates for every pair of ranks on
 *    neighbourhood communicators and plain MPI_Cart_create communicators
 *    (periodic, mesh, mixed; shortest periodic offset, ties positive).
 *  - Cart_stencil_count/Cart_stencil against brute-force enumeration (both
 *    metrics, shadows, d = 1..5).
 *  - Cart_schedule_stats reproducing Table 1 of seed 002 (Moore-type
 *    neighbourhoods d = 2..5, n = 3..5, f = -1, zero vector excluded) and the
 *    torus figures of seed 001 (Moore radius r: 2rd rounds), on MPI_COMM_SELF,
 *    where every offset is congruent to 0: the figures are the neighbourhood's.
 *  - MPI_Comm_dup of a neighbourhood communicator works; MPI_Comm_free of
 *    the original leaves the duplicate working.
 *  - The algorithm really used (messages counted through PMPI) follows the
 *    create info, the *_init info and CARTCOLL_ALGORITHM with the documented
 *    precedence; bad values of the keys and variables are refused.
 *
 *   test_queries [--env-alg NAME | --env-bad]
 * --env-alg: CARTCOLL_ALGORITHM is set to NAME by the test registration.
 * --env-bad: CARTCOLL_ALGORITHM, CARTCOLL_EXECUTOR, CARTCOLL_PHASE_WAIT or
 *            CARTCOLL_CPU holds an unknown or invalid value.
 */
#include "interpose.h"
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- neighbour queries and relative helpers ---------------------------- */

static void relative_checks(MPI_Comm c, int d, const int dims[], const int periods[], const char *what, mt_rng *r)
{
    int size, rc;
    MPI_Comm_size(c, &size);
    for (int a = 0; a < size; a++) {
        for (int b = 0; b < size; b++) {
            int rel[8] = { 0 }, ca[8], cb[8];
            rc = Cart_relative_coordinates(c, a, b, rel);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_relative_coordinates(%d,%d) failed", what, a, b);
            mt_coords(a, d, dims, ca);
            mt_coords(b, d, dims, cb);
            for (int k = 0; k < d; k++) {
                int diff = cb[k] - ca[k];
                if (periods[k]) {
                    int n = dims[k];
                    diff = ((diff % n) + n) % n;     /* 0..n-1 */
                    if (2 * diff > n) diff -= n;     /* shortest; a tie (2*diff == n) stays positive */
                }
                MT_CHECK(rel[k] == diff, "%s: Cart_relative_coordinates(%d,%d)[%d] = %d, expected %d", what, a, b, k,
                         rel[k], diff);
            }
        }
        for (int j = 0; j < 6; j++) {
            int v[8], dest = -7, in = -7, out = -7;
            for (int k = 0; k < d; k++) v[k] = mt_uniform(r, -5, 5);
            rc = Cart_relative_rank(c, a, v, &dest);
            MT_CHECK(rc == MPI_SUCCESS && dest == mt_shift(a, d, dims, periods, v, 1),
                     "%s: Cart_relative_rank(%d, (%d,...)) = %d, expected %d", what, a, v[0], dest,
                     mt_shift(a, d, dims, periods, v, 1));
            rc = Cart_relative_shift(c, a, v, &in, &out);
            MT_CHECK(rc == MPI_SUCCESS && in == mt_shift(a, d, dims, periods, v, -1) &&
                         out == mt_shift(a, d, dims, periods, v, 1),
                     "%s: Cart_relative_shift(%d, (%d,...)) = %d/%d, expected %d/%d", what, a, v[0], in, out,
                     mt_shift(a, d, dims, periods, v, -1), mt_shift(a, d, dims, periods, v, 1));
        }
    }
}

static void queries(void)
{
    mt_rng r;
    mt_seed(&r, 4242, 0);
    for (int g = 0; g < 12; g++) {
        int d = mt_uniform(&r, 1, 4), dims[4], periods[4], prod = 1;
        for (int k = 0; k < d; k++) {
            int s = mt_uniform(&r, 1, 4);
            while (prod * s > mt_size) s--;
            dims[k] = s;
            prod *= s;
            periods[k] = mt_uniform(&r, 0, 1);
        }
        int t = mt_uniform(&r, 1, 12), targets[12 * 4], weights[12], weighted = g % 2;
        for (int i = 0; i < t * d; i++) targets[i] = mt_uniform(&r, -3, 3);
        for (int i = 0; i < t; i++) weights[i] = mt_uniform(&r, 0, 100);
        char what[64];
        snprintf(what, sizeof what, "grid %d (d=%d)", g, d);

        MPI_Comm cart, plain;
        int rc = Cart_neighborhood_create(MPI_COMM_WORLD, d, dims, periods, t, targets,
                                          weighted ? weights : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart);
        MT_CHECK(rc == MPI_SUCCESS, "%s: create failed", what);
        MPI_Cart_create(MPI_COMM_WORLD, d, dims, periods, 0, &plain);
        if (cart != MPI_COMM_NULL) {
            int me, cnt = -1, src[12], dst[12], sw[12], dw[12], rel[48], w[12];
            MPI_Comm_rank(cart, &me);
            MT_CHECK(Cart_neighbor_count(cart, &cnt) == MPI_SUCCESS && cnt == t, "%s: count %d", what, cnt);
            rc = Cart_neighbor_get(cart, t, src, sw, t, dst, dw);
            for (int i = 0; i < t; i++) {
                int wi = weighted ? weights[i] : 1;
                MT_CHECK(rc == MPI_SUCCESS && src[i] == mt_shift(me, d, dims, periods, targets + i * d, -1) &&
                             dst[i] == mt_shift(me, d, dims, periods, targets + i * d, 1) && sw[i] == wi &&
                             dw[i] == wi,
                         "%s: Cart_neighbor_get entry %d", what, i);
            }
            for (int i = 0; i < 12; i++) src[i] = dst[i] = -9;
            rc = Cart_neighbor_get(cart, 12, src, MPI_UNWEIGHTED, 12, dst, MPI_UNWEIGHTED);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_neighbor_get with MPI_UNWEIGHTED outputs failed", what);
            for (int i = 0; i < t; i++)
                MT_CHECK(src[i] == mt_shift(me, d, dims, periods, targets + i * d, -1), "%s: unweighted get %d", what,
                         i);
            MT_CHECK(t == 12 || src[t] == -9, "%s: Cart_neighbor_get wrote beyond t", what);
            rc = Cart_neighborhood_get(cart, t, rel, w);
            MT_CHECK(rc == MPI_SUCCESS && !memcmp(rel, targets, sizeof(int) * (size_t)(t * d)),
                     "%s: Cart_neighborhood_get vectors", what);
            for (int i = 0; i < t; i++)
                MT_CHECK(w[i] == (weighted ? weights[i] : 1), "%s: Cart_neighborhood_get weight %d = %d", what, i,
                         w[i]);
            rc = Cart_neighborhood_get(cart, t, rel, MPI_UNWEIGHTED);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_neighborhood_get with MPI_UNWEIGHTED failed", what);
            char w2[96];
            snprintf(w2, sizeof w2, "%s, neighbourhood communicator", what);
            mt_rng r2 = r;
            relative_checks(cart, d, dims, periods, w2, &r2);
            MPI_Comm_free(&cart);
        }
        if (plain != MPI_COMM_NULL) {
            char w2[96];
            snprintf(w2, sizeof w2, "%s, MPI_Cart_create communicator", what);
            mt_rng r2 = r;
            relative_checks(plain, d, dims, periods, w2, &r2);
            MPI_Comm_free(&plain);
        }
    }
}

/* ---- stencils --------------------------------------------------------------- */

static void stencils(void)
{
    static int got[7 * 7 * 7 * 7 * 7 * 5], want[7 * 7 * 7 * 7 * 7 * 5];
    for (int d = 1; d <= 5; d++)
        for (int metric = CART_MANHATTAN; metric <= CART_CHEBYSHEV; metric++)
            for (int depth = 0; depth <= 3; depth++)
                for (int shadow = 0; shadow <= depth; shadow++) {
                    /* brute force: all vectors in [-depth, depth]^d, row-major */
                    int n = 0, side = 2 * depth + 1, total = 1, v[5];
                    for (int k = 0; k < d; k++) total *= side;
                    for (int j = 0; j < total; j++) {
                        int x = j, dist = 0;
                        for (int k = d - 1; k >= 0; k--) {
                            v[k] = x % side - depth;
                            x /= side;
                        }
                        for (int k = 0; k < d; k++) {
                            int a = abs(v[k]);
                            dist = metric == CART_MANHATTAN ? dist + a : (a > dist ? a : dist);
                        }
                        if (dist < shadow || dist > depth) continue;
                        memcpy(want + n * d, v, sizeof(int) * (size_t)d);
                        n++;
                    }
                    int cnt = -1;
                    int rc = Cart_stencil_count(d, metric, shadow, depth, &cnt);
                    MT_CHECK(rc == MPI_SUCCESS && cnt == n, "Cart_stencil_count(d=%d, %s, %d, %d) = %d, expected %d",
                             d, metric == CART_MANHATTAN ? "Manhattan" : "Chebyshev", shadow, depth, cnt, n);
                    for (int i = 0; i < n * d + 1; i++) got[i] = 777;
                    rc = Cart_stencil(d, metric, shadow, depth, n, got);
                    MT_CHECK(rc == MPI_SUCCESS && !memcmp(got, want, sizeof(int) * (size_t)(n * d)) &&
                                 got[n * d] == 777,
                             "Cart_stencil(d=%d, %s, %d, %d) differs from the row-major enumeration", d,
                             metric == CART_MANHATTAN ? "Manhattan" : "Chebyshev", shadow, depth);
                }
    int m[16];
    int rc = Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 8, m);
    MT_CHECK(rc == MPI_SUCCESS && m[0] == -1 && m[1] == -1 && m[14] == 1 && m[15] == 1,
             "Cart_stencil(2, CART_CHEBYSHEV, 1, 1): first (%d,%d), last (%d,%d)", m[0], m[1], m[14], m[15]);
}

/* ---- schedule statistics -------------------------------------------------- */

static long binom(int n, int k)
{
    long r = 1;
    for (int i = 1; i <= k; i++) r = r * (n - k + i) / i;
    return r;
}

/* Edges of the allgather tree built in dimension order `ord`: the number of
 * distinct non-empty prefixes whose last coordinate is non-zero. */
static long tree_edges(const int *v, int t, int d, const int *ord)
{
    long edges = 0;
    for (int len = 1; len <= d; len++)
        for (int i = 0; i < t; i++) {
            if (v[i * d + ord[len - 1]] == 0) continue;
            int first = 1;
            for (int j = 0; j < i && first; j++) {
                int same = 1;
                for (int l = 0; l < len && same; l++) same = v[j * d + ord[l]] == v[i * d + ord[l]];
                first = !same;
            }
            edges += first;
        }
    return edges;
}

typedef struct {
    int phases, rounds, volume;
} stats_t;

static stats_t get_stats(MPI_Comm c, int coll, int alg, const char *what)
{
    stats_t s = { -1, -1, -1 };
    int rc = Cart_schedule_stats(c, coll, alg, &s.phases, &s.rounds, &s.volume);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_schedule_stats(%d, %d) failed (%d)", what, coll, alg, rc);
    return s;
}

/* The offsets are, each once, the points of a box containing the zero
 * vector, with or without it (brute force). */
static int is_box(const int *v, int t, int d)
{
    long cells = 1;
    int zero = 0;
    for (int k = 0; k < d; k++) {
        int lo = 0, hi = 0;
        for (int i = 0; i < t; i++) {
            if (v[i * d + k] < lo) lo = v[i * d + k];
            if (v[i * d + k] > hi) hi = v[i * d + k];
        }
        cells *= hi - lo + 1;
    }
    for (int i = 0; i < t; i++) {
        int nz = 0;
        for (int k = 0; k < d; k++) nz |= v[i * d + k];
        zero |= !nz;
        for (int j = 0; j < i; j++)
            if (!memcmp(v + j * d, v + i * d, sizeof(int) * (size_t)d)) return 0;
    }
    return t > 0 && (t == cells || (t == cells - 1 && !zero));
}

static void check_stats(const int *v, int t, int d, const char *what, long table_a2a_volume)
{
    int dims[5] = { 1, 1, 1, 1, 1 }, periods[5] = { 1, 1, 1, 1, 1 };
    MPI_Comm c;
    int rc = Cart_neighborhood_create(MPI_COMM_SELF, d, dims, periods, t, v, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    MT_CHECK(rc == MPI_SUCCESS, "%s: create on MPI_COMM_SELF failed (%d)", what, rc);
    if (rc != MPI_SUCCESS) return;
    /* first principles */
    long tnz = 0, tdistinct = 0, used = 0, sum_z = 0, sum_l1 = 0, C = 0, D = 0;
    for (int i = 0; i < t; i++) {
        int z = 0, l1 = 0;
        for (int k = 0; k < d; k++) {
            z += v[i * d + k] != 0;
            l1 += abs(v[i * d + k]);
        }
        tnz += z > 0;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = !memcmp(v + j * d, v + i * d, sizeof(int) * (size_t)d);
        tdistinct += z > 0 && !seen;
        sum_z += z;
        sum_l1 += l1;
    }
    for (int k = 0; k < d; k++) {
        int maxp = 0, maxn = 0;
        for (int i = 0; i < t; i++) {
            int x = v[i * d + k], seen = 0;
            if (x > maxp) maxp = x;
            if (-x > maxn) maxn = -x;
            for (int j = 0; j < i && !seen; j++) seen = v[j * d + k] == x;
            C += !seen && x != 0;
        }
        D += maxp + maxn;
        used += maxp + maxn > 0;
    }
    int best_ord_min = 1 << 30, best_ord_max = 0, perm[5];
    /* all dimension orders (d <= 5): the tree's edge count depends on it */
    int np = 1;
    for (int k = 2; k <= d; k++) np *= k;
    for (int p = 0; p < np; p++) {
        int x = p, taken[5] = { 0 };
        for (int k = 0; k < d; k++) {
            int f = 1;
            for (int j = 2; j <= d - 1 - k; j++) f *= j;
            int idx = x / f;
            x %= f;
            for (int j = 0; j < d; j++)
                if (!taken[j] && idx-- == 0) {
                    perm[k] = j;
                    taken[j] = 1;
                    break;
                }
        }
        long e = tree_edges(v, t, d, perm);
        if (e < best_ord_min) best_ord_min = (int)e;
        if (e > best_ord_max) best_ord_max = (int)e;
    }

    stats_t s;
    for (int coll = CART_ALLGATHER; coll <= CART_ALLTOALL; coll++) {
        const char *cn = coll == CART_ALLGATHER ? "allgather" : "alltoall";
        s = get_stats(c, coll, CART_ALGORITHM_DIRECT, what);
        /* cartcoll.h: 1 phase, one round per distinct non-zero vector, volume
         * the non-zero blocks (alltoall) or the rounds (allgather) */
        MT_CHECK(s.phases == 1 && s.rounds == tdistinct && s.volume == (coll == CART_ALLTOALL ? tnz : tdistinct),
                 "%s: DIRECT %s phases %d rounds %d volume %d, expected 1, %ld, %ld", what, cn, s.phases, s.rounds,
                 s.volume, tdistinct, coll == CART_ALLTOALL ? tnz : tdistinct);
        s = get_stats(c, coll, CART_ALGORITHM_COMBINING, what);
        MT_CHECK(s.rounds == C, "%s: COMBINING %s rounds %d, expected sum C_k = %ld", what, cn, s.rounds, C);
        if (coll == CART_ALLTOALL) {
            MT_CHECK(s.volume == sum_z, "%s: COMBINING alltoall volume %d, expected sum z_i = %ld", what, s.volume,
                     sum_z);
            if (table_a2a_volume)
                MT_CHECK(s.volume == table_a2a_volume, "%s: COMBINING alltoall volume %d, Table 1 says %ld", what,
                         s.volume, table_a2a_volume);
        } else {
            /* the tree's dimension order is chosen to minimise its edges */
            MT_CHECK(s.volume == best_ord_min,
                     "%s: COMBINING allgather volume %d, expected the smallest tree's %d edges (largest: %d)", what,
                     s.volume, best_ord_min, best_ord_max);
        }
        MT_CHECK(s.phases == used, "%s: COMBINING %s phases %d, expected %ld dimensions used", what, cn, s.phases,
                 used);
        s = get_stats(c, coll, CART_ALGORITHM_TORUS, what);
        MT_CHECK(s.rounds == D, "%s: TORUS %s rounds %d, expected D = %ld", what, cn, s.rounds, D);
        MT_CHECK(s.phases == used, "%s: TORUS %s phases %d, expected %ld dimensions used", what, cn, s.phases, used);
        if (coll == CART_ALLTOALL)
            MT_CHECK(s.volume == sum_l1, "%s: TORUS alltoall volume %d, expected sum |N_i|_1 = %ld", what, s.volume,
                     sum_l1);
        stats_t a = get_stats(c, coll, CART_ALGORITHM_AUTO, what), x[2];
        int match = 0;
        /* cartcoll.h: auto chooses between DIRECT and COMBINING */
        for (int alg = 1; alg <= 2; alg++) {
            x[alg - 1] = get_stats(c, coll, alg, what);
            match |= !memcmp(&x[alg - 1], &a, sizeof a);
        }
        MT_CHECK(match, "%s: AUTO %s stats (%d, %d, %d) are neither DIRECT's nor COMBINING's", what, cn, a.phases,
                 a.rounds, a.volume);
        int nullrc = Cart_schedule_stats(c, coll, CART_ALGORITHM_TORUS, NULL, &s.rounds, NULL);
        MT_CHECK(nullrc == MPI_SUCCESS, "%s: Cart_schedule_stats with NULL outputs failed", what);
    }
    /* cartcoll.h: a neighbourhood allreduce reduces on the way over
     * box-shaped neighbourhoods: one block per round, TORUS D rounds hop by
     * hop, COMBINING no more, two per dimension at width 3; elsewhere, and
     * with DIRECT, it runs the allgather's schedules (the same figures) */
    int boxed = is_box(v, t, d), narrow = 1;
    for (int k = 0; k < d; k++) {
        int lo = 0, hi = 0;
        for (int i = 0; i < t; i++) {
            if (v[i * d + k] < lo) lo = v[i * d + k];
            if (v[i * d + k] > hi) hi = v[i * d + k];
        }
        narrow &= hi - lo <= 2;
    }
    stats_t red[4];
    for (int alg = 1; alg <= 3; alg++) {
        stats_t g = get_stats(c, CART_ALLGATHER, alg, what), r = get_stats(c, CART_ALLREDUCE, alg, what);
        red[alg] = r;
        if (!boxed || alg == CART_ALGORITHM_DIRECT) {
            MT_CHECK(!memcmp(&g, &r, sizeof g),
                     "%s: CART_ALLREDUCE algorithm %d: (%d, %d, %d), allgather's (%d, %d, %d)", what, alg, r.phases,
                     r.rounds, r.volume, g.phases, g.rounds, g.volume);
            continue;
        }
        MT_CHECK(r.volume == r.rounds && r.rounds <= D && r.volume <= g.volume && r.rounds <= g.rounds,
                 "%s: CART_ALLREDUCE algorithm %d on a box: (%d, %d, %d), D = %ld, allgather's (%d, %d, %d)", what,
                 alg, r.phases, r.rounds, r.volume, D, g.phases, g.rounds, g.volume);
        if (alg == CART_ALGORITHM_TORUS)
            MT_CHECK(r.rounds == D && r.phases == used, "%s: TORUS allreduce (%d, %d), expected (%ld, %ld)", what,
                     r.phases, r.rounds, used, D);
        if (narrow)
            MT_CHECK(r.rounds == 2 * used, "%s: allreduce algorithm %d: %d rounds on a width-3 box, expected %ld", what,
                     alg, r.rounds, 2 * used);
    }
    /* cartcoll.h: the rooted collectives report the root's figures.  The
     * root sends (bcast, scatter) or receives (gather, reduce) every block
     * once: the distinct non-zero vectors' blocks, for scatter every
     * non-zero vector's; a bcast root sends its one block once per round.
     * DIRECT: one round per distinct vector; the trees need no more rounds
     * than the allgather's (alltoall's for scatter). */
    for (int coll = CART_BCAST; coll <= CART_REDUCE; coll++) {
        static const char *const names[] = { "bcast", "gather", "scatter", "reduce" };
        const char *cn = names[coll - CART_BCAST];
        long blocks = coll == CART_SCATTER ? tnz : tdistinct;
        int under = coll == CART_SCATTER ? CART_ALLTOALL : CART_ALLGATHER;
        for (int alg = 1; alg <= 3; alg++) {
            stats_t r = get_stats(c, coll, alg, what), u = get_stats(c, under, alg, what);
            long want_v = coll == CART_BCAST ? r.rounds : blocks;
            MT_CHECK(r.volume == want_v && r.rounds <= u.rounds && r.rounds <= blocks && r.phases <= u.phases &&
                         (r.rounds > 0) == (blocks > 0),
                     "%s: %s algorithm %d: root's (%d, %d, %d), expected volume %ld, at most (%d, %d, %ld) rounds", what,
                     cn, alg, r.phases, r.rounds, r.volume, want_v, u.phases, u.rounds, blocks);
            if (alg == CART_ALGORITHM_DIRECT)
                MT_CHECK(r.rounds == tdistinct, "%s: DIRECT %s: root's rounds %d, expected %ld", what, cn, r.rounds,
                         tdistinct);
        }
    }
    stats_t ar = get_stats(c, CART_ALLREDUCE, CART_ALGORITHM_AUTO, what);
    MT_CHECK(!memcmp(&ar, &red[1], sizeof ar) || !memcmp(&ar, &red[2], sizeof ar),
             "%s: AUTO allreduce stats (%d, %d, %d) are neither DIRECT's nor COMBINING's", what, ar.phases, ar.rounds,
             ar.volume);
    MPI_Comm_free(&c);
}

/* Box {f, ..., f+n-1}^d without the zero vector. */
static int box(int d, int n, int f, int *out)
{
    int total = 1, t = 0;
    for (int k = 0; k < d; k++) total *= n;
    for (int j = 0; j < total; j++) {
        int x = j, nz = 0, v[5];
        for (int k = d - 1; k >= 0; k--) {
            v[k] = x % n + f;
            x /= n;
            nz |= v[k];
        }
        if (!nz) continue;
        memcpy(out + t * d, v, sizeof(int) * (size_t)d);
        t++;
    }
    return t;
}

static void table1(void)
{
    /* Seed 002, Table 1: alltoall volume for d = 2..5, n = 3..5 */
    static const long vol[4][3] = { { 12, 24, 40 }, { 54, 144, 300 }, { 216, 768, 2000 }, { 810, 3840, 12500 } };
    static int v[3124 * 5];
    for (int d = 2; d <= 5; d++)
        for (int n = 3; n <= 5; n++) {
            int t = box(d, n, -1, v);
            char what[64];
            snprintf(what, sizeof what, "Table 1, d=%d n=%d", d, n);
            long tt = 1, V = 0;
            for (int k = 0; k < d; k++) tt *= n;
            MT_EQ(t, tt - 1, what);
            for (int j = 1; j <= d; j++) {
                long pw = 1;
                for (int i = 0; i < j; i++) pw *= n - 1;
                V += j * pw * binom(d, j);
            }
            MT_EQ(V, vol[d - 2][n - 3], "test's own formula against Table 1");
            check_stats(v, t, d, what, vol[d - 2][n - 3]);
            /* Table 1 rows directly: C = d(n-1), allgather volume = t (combining and torus) */
            int dims[5] = { 1, 1, 1, 1, 1 }, per[5] = { 1, 1, 1, 1, 1 };
            MPI_Comm c;
            if (Cart_neighborhood_create(MPI_COMM_SELF, d, dims, per, t, v, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c) ==
                MPI_SUCCESS) {
                stats_t s = get_stats(c, CART_ALLGATHER, CART_ALGORITHM_COMBINING, what);
                MT_CHECK(s.rounds == d * (n - 1) && s.volume == t,
                         "%s: COMBINING allgather rounds %d volume %d, Table 1: %d and %d", what, s.rounds, s.volume,
                         d * (n - 1), t);
                s = get_stats(c, CART_ALLTOALL, CART_ALGORITHM_COMBINING, what);
                MT_CHECK(s.rounds == d * (n - 1), "%s: COMBINING alltoall rounds %d, Table 1: %d", what, s.rounds,
                         d * (n - 1));
                s = get_stats(c, CART_ALLGATHER, CART_ALGORITHM_TORUS, what);
                MT_CHECK(s.volume == t, "%s: TORUS allgather volume %d, expected one block per box point = %d", what,
                         s.volume, t);
                MPI_Comm_free(&c);
            }
        }
    /* Seed 001: Moore radius r, D = 2rd rounds for TORUS */
    for (int r = 1; r <= 2; r++)
        for (int d = 2; d <= 4; d++) {
            int t = box(d, 2 * r + 1, -r, v);
            char what[64];
            snprintf(what, sizeof what, "Moore d=%d r=%d", d, r);
            check_stats(v, t, d, what, 0);
            int dims[5] = { 1, 1, 1, 1, 1 }, per[5] = { 1, 1, 1, 1, 1 };
            MPI_Comm c;
            if (Cart_neighborhood_create(MPI_COMM_SELF, d, dims, per, t, v, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c) ==
                MPI_SUCCESS) {
                stats_t s = get_stats(c, CART_ALLTOALL, CART_ALGORITHM_TORUS, what);
                MT_CHECK(s.rounds == 2 * r * d, "%s: TORUS rounds %d, expected 2rd = %d", what, s.rounds, 2 * r * d);
                MPI_Comm_free(&c);
            }
        }
    /* Seed 002, Figure 2: the allgather tree's volume depends on the dimension order (12 or 7) */
    int fig2[12] = { -2, 1, 1, -1, 1, 1, 1, 1, 1, 2, 1, 1 };
    check_stats(fig2, 4, 3, "Figure 2 neighbourhood", 0);
    int dims[3] = { 1, 1, 1 }, per[3] = { 1, 1, 1 };
    MPI_Comm c;
    if (Cart_neighborhood_create(MPI_COMM_SELF, 3, dims, per, 4, fig2, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c) ==
        MPI_SUCCESS) {
        stats_t s = get_stats(c, CART_ALLGATHER, CART_ALGORITHM_COMBINING, "Figure 2");
        if (!mt_rank)
            printf("test_queries: Figure 2 neighbourhood, COMBINING allgather volume %d (edges of the trees in "
                   "increasing/decreasing order: 12/6)\n",
                   s.volume);
        MPI_Comm_free(&c);
    }
    /* A dimension no vector moves in: one phase fewer */
    int flat[9] = { 1, 0, 2, -1, 0, 1, 0, 0, -1 };
    check_stats(flat, 3, 3, "dimension 1 unused", 0);
    /* Repeats and the zero vector: DIRECT counts non-zero vectors only */
    int rep[10] = { 1, 0, 1, 0, 0, 0, 0, 1, -1, 1 };
    check_stats(rep, 5, 2, "repeats and zero vector", 0);
}

/* ---- MPI_Comm_dup ------------------------------------------------------------ */

static int alltoall_ok(MPI_Comm c, const char *what)
{
    int me, t, dims[2], periods[2], coords[2];
    MPI_Comm_rank(c, &me);
    Cart_neighbor_count(c, &t);
    MPI_Cart_get(c, 2, dims, periods, coords);
    int rel[16], sb[8], rb[8], ok = 1;
    Cart_neighborhood_get(c, 8, rel, MPI_UNWEIGHTED);
    for (int i = 0; i < t; i++) {
        sb[i] = 100 * me + i;
        rb[i] = -1;
    }
    int rc = Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_alltoall failed (%d)", what, rc);
    for (int i = 0; i < t; i++) {
        int s = mt_shift(me, 2, dims, periods, rel + 2 * i, -1);
        int want = s == MPI_PROC_NULL ? -1 : 100 * s + i;
        if (rb[i] != want) ok = 0;
        MT_CHECK(rb[i] == want, "%s: block %d = %d, expected %d", what, i, rb[i], want);
    }
    return ok;
}

static void dup_test(void)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, tg[8] = { 1, 0, -1, 0, 0, 1, 1, -1 };
    MPI_Dims_create(mt_size, 2, dims);
    MPI_Comm c, d1, d2;
    Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, 4, tg, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    MPI_Comm_dup(c, &d1);
    int t = -1;
    MT_CHECK(Cart_neighbor_count(d1, &t) == MPI_SUCCESS && t == 4, "duplicate: Cart_neighbor_count %d", t);
    alltoall_ok(d1, "duplicate");
    alltoall_ok(c, "original while a duplicate exists");
    MPI_Comm_free(&c);
    alltoall_ok(d1, "duplicate after freeing the original");
    MPI_Comm_dup(d1, &d2);
    MPI_Comm_free(&d1);
    alltoall_ok(d2, "duplicate of a duplicate");
    /* persistent on the duplicate */
    int sb[4], rb[4];
    Cart_request r;
    int rc = Cart_allgather_init(sb, 1, MPI_INT, rb, 1, MPI_INT, d2, MPI_INFO_NULL, &r);
    MT_CHECK(rc == MPI_SUCCESS, "Cart_allgather_init on a duplicate failed");
    if (rc == MPI_SUCCESS) {
        Cart_start(&r);
        Cart_wait(&r);
        Cart_request_free(&r);
    }
    MPI_Comm_free(&d2);
}

/* ---- info keys, environment, and the algorithm really run ------------------- */

/* Messages sent per process by one blocking alltoall with one block. */
static long sends_of(MPI_Comm c)
{
    int sb[4] = { 1, 2, 3, 4 }, rb[4];
    ip_reset();
    ip_window = 1;
    Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
    ip_window = 0;
    return ip_sends;
}

static long sends_of_persistent(MPI_Comm c, MPI_Info info)
{
    int sb[4] = { 1, 2, 3, 4 }, rb[4];
    Cart_request r;
    if (Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, c, info, &r) != MPI_SUCCESS) return -1;
    ip_reset();
    ip_window = 1;
    Cart_start(&r);
    Cart_wait(&r);
    ip_window = 0;
    long s = ip_sends;
    Cart_request_free(&r);
    return s;
}

/* Two probes on 4 processes: ring of 4 with offset +2 (DIRECT and COMBINING
 * one message, TORUS two hops) and 2x2 torus with offset (1,1) (DIRECT one
 * message, COMBINING and TORUS one per dimension).  Their pair identifies
 * the algorithm: direct (1,1), combining (1,2), torus (2,2). */
static MPI_Comm probe(int which, MPI_Info info)
{
    int d1[1] = { 4 }, d2[2] = { 2, 2 }, per[2] = { 1, 1 }, t1[1] = { 2 }, t2[2] = { 1, 1 };
    MPI_Comm c = MPI_COMM_NULL;
    int rc = which ? Cart_neighborhood_create(MPI_COMM_WORLD, 2, d2, per, 1, t2, MPI_UNWEIGHTED, info, 0, &c)
                   : Cart_neighborhood_create(MPI_COMM_WORLD, 1, d1, per, 1, t1, MPI_UNWEIGHTED, info, 0, &c);
    MT_CHECK(rc == MPI_SUCCESS, "probe create failed (%d)", rc);
    return c;
}

static const char *identify(long a, long b)
{
    return a == 1 && b == 1 ? "direct" : a == 1 && b == 2 ? "combining" : a == 2 && b == 2 ? "torus" : "unknown";
}

/* Algorithm the blocking calls run with this create info (or persistent with init info). */
static const char *algorithm_run(const char *create_alg, const char *init_alg, int persistent)
{
    MPI_Info ci = mt_info(create_alg, NULL), ii = mt_info(init_alg, NULL);
    long s[2];
    for (int w = 0; w < 2; w++) {
        MPI_Comm c = probe(w, ci);
        s[w] = c == MPI_COMM_NULL ? -1 : persistent ? sends_of_persistent(c, ii) : sends_of(c);
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    }
    mt_info_free(&ci);
    mt_info_free(&ii);
    return identify(s[0], s[1]);
}

static void info_and_env(const char *env_alg)
{
    if (mt_size != 4) {
        if (!mt_rank) printf("test_queries: algorithm probes need 4 processes, skipped\n");
        return;
    }
    const char *dflt = env_alg; /* what a communicator without info runs, if forced */
    const char *got;
    for (int a = 1; a <= 3; a++) {
        const char *name = mt_alg_name[a], *other = mt_alg_name[a % 3 + 1];
        got = algorithm_run(name, NULL, 0);
        MT_CHECK(!strcmp(got, name), "create info %s%s: blocking alltoall ran %s", name,
                 dflt ? " (overriding CARTCOLL_ALGORITHM)" : "", got);
        got = algorithm_run(name, NULL, 1);
        MT_CHECK(!strcmp(got, name), "create info %s%s: persistent alltoall ran %s", name,
                 dflt ? " (overriding CARTCOLL_ALGORITHM)" : "", got);
        /* *_init info overrides the communicator's */
        got = algorithm_run(other, name, 1);
        MT_CHECK(!strcmp(got, name), "create info %s, init info %s: persistent alltoall ran %s", other, name, got);
    }
    if (dflt) {
        got = algorithm_run(NULL, NULL, 0);
        MT_CHECK(!strcmp(got, dflt), "CARTCOLL_ALGORITHM=%s: blocking alltoall ran %s", dflt, got);
        got = algorithm_run(NULL, NULL, 1);
        MT_CHECK(!strcmp(got, dflt), "CARTCOLL_ALGORITHM=%s: persistent alltoall ran %s", dflt, got);
        const char *other = strcmp(dflt, "direct") ? "direct" : "torus";
        got = algorithm_run(NULL, other, 1);
        MT_CHECK(!strcmp(got, other), "CARTCOLL_ALGORITHM=%s, init info %s: persistent alltoall ran %s", dflt, other,
                 got);
    }
    /* Executors: every valid value accepted on create and on *_init. */
    for (int e = 0; e < 3; e++) {
        MPI_Info info = mt_info(NULL, mt_exec_name[e]);
        MPI_Comm c = probe(1, info);
        if (c != MPI_COMM_NULL) {
            MT_EQ(sends_of(c) >= 1, 1, "executor accepted");
            MT_CHECK(sends_of_persistent(c, info) >= 1, "cartcoll_executor=%s on *_init refused", mt_exec_name[e]);
            MPI_Comm_free(&c);
        }
        mt_info_free(&info);
    }
}

/* CARTCOLL_ALGORITHM / CARTCOLL_EXECUTOR hold an unknown value, or the
 * model's CARTCOLL_PHASE_WAIT / CARTCOLL_CPU no non-negative number: an
 * MPI_ERR_ARG error, at create or at the first collective that uses it. */
static void env_bad(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int dims[1] = { mt_size }, per[1] = { 1 }, tg[1] = { 1 }, sb[1] = { 1 }, rb[1];
    MPI_Comm c = MPI_COMM_NULL;
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, per, 1, tg, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        rc = Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
        MPI_Comm_free(&c);
    }
    const char *names[] = { "CARTCOLL_ALGORITHM", "CARTCOLL_EXECUTOR", "CARTCOLL_PHASE_WAIT", "CARTCOLL_CPU" };
    char set[256] = "";
    for (int i = 0; i < 4; i++)
        if (getenv(names[i]))
            snprintf(set + strlen(set), sizeof set - strlen(set), " %s=%s", names[i], getenv(names[i]));
    MT_CHECK(mt_error_class(rc) == MPI_ERR_ARG, "invalid environment (%s): got %d", set, rc);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_queries");
    const char *env_alg = NULL;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--env-alg") && i + 1 < argc) env_alg = argv[++i];
        else if (!strcmp(argv[i], "--env-bad")) bad = 1;
    }
    if (env_alg) {
        const char *e = getenv("CARTCOLL_ALGORITHM");
        MT_CHECK(e && !strcmp(e, env_alg), "registration error: CARTCOLL_ALGORITHM is %s", e ? e : "unset");
        info_and_env(env_alg);
        return mt_finish();
    }
    if (bad) {
        env_bad();
        return mt_finish();
    }
    double t0 = mt_now();
    queries();
    stencils();
    table1();
    dup_test();
    info_and_env(NULL);
    if (!mt_rank)
        printf("test_queries: done in %.1f s (%s)\n", mt_now() - t0,
               getenv("CARTCOLL_ALPHA") ? "CARTCOLL_ALPHA/BETA set" : "alpha/beta calibrated at create");
    return mt_finish();
}
