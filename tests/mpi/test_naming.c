/* Cartesian naming (cartcoll.h, "[ortho] Naming"): Cart_name, Cart_test_name,
 * Cart_get, Cart_rank, Cart_coordinates, Cart_allranks[_relative],
 * Cart_neighbors[_count], Cart_create_sub, Cart_comm_base, and the [core]
 * relative helpers on named communicators.
 *
 * Oracles: MPI itself (MPI_Cart_coords, MPI_Cart_rank, MPI_Cart_sub of an
 * MPI_Cart_create communicator) for row-major grids; first-principles
 * stride formulas written here for both layouts, grids larger and smaller
 * than the communicator; a brute-force walk of the cube for neighbours.
 * Every shape of d <= 3 whose product is the number of processes, every
 * choice of periodic dimensions (size-1 and size-2 dimensions included). */
#include "mpitest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 3
static int p, me;

/* ---- the oracle ----------------------------------------------------------- */

/* The stride of dimension k: product of the faster dimensions' sizes. */
static long long stride(int d, const int dims[], int k, int colmajor)
{
    long long s = 1;
    for (int j = 0; j < d; j++)
        if (colmajor ? j < k : j > k) s *= dims[j];
    return s;
}

static void ref_coords(int rank, int d, const int dims[], int colmajor, int out[])
{
    for (int k = 0; k < d; k++) out[k] = (int)((rank / stride(d, dims, k, colmajor)) % dims[k]);
}

/* Rank at x (any values): wrap periodic dimensions, MPI_PROC_NULL off a
 * mesh or at a position >= nprocs. */
static int ref_rank(int d, const int dims[], const int periods[], int colmajor, int nprocs, const long long x[])
{
    long long r = 0;
    for (int k = 0; k < d; k++) {
        long long v = x[k];
        if (periods[k]) v = ((v % dims[k]) + dims[k]) % dims[k];
        else if (v < 0 || v >= dims[k]) return MPI_PROC_NULL;
        r += v * stride(d, dims, k, colmajor);
    }
    return r < nprocs ? (int)r : MPI_PROC_NULL;
}

typedef struct naming {
    int d, dims[MAXD], periods[MAXD], colmajor, size;
} naming;

static int n_rank(const naming *n, const int c[], const int off[], int sign)
{
    long long x[MAXD];
    for (int k = 0; k < n->d; k++) x[k] = (long long)c[k] + (off ? (long long)sign * off[k] : 0);
    return ref_rank(n->d, n->dims, n->periods, n->colmajor, p, x);
}

static int n_placed(const naming *n, int r) { return r >= 0 && r < n->size && r < p; }

/* ---- error checks ---------------------------------------------------------- */

/* A failed call: its class, the handler invoked once on `comm` (NULL: SELF
 * or WORLD) with the returned code, a sentence naming the function. */
static void expect_err(int line, int rc, int cls, MPI_Comm comm, const char *fn, const char *what)
{
    int got = mt_error_class(rc);
    MT_CHECK(rc != MPI_SUCCESS && got == cls, "line %d: %s (%s): class %d, expected %d", line, fn, what, got, cls);
    MT_CHECK(mt_err.calls == 1 && mt_err.code == rc, "line %d: %s (%s): handler called %d times", line, fn, what,
             mt_err.calls);
    if (mt_err.calls)
        MT_CHECK(comm == MPI_COMM_NULL ? (mt_err.comm == MPI_COMM_SELF || mt_err.comm == MPI_COMM_WORLD)
                                       : mt_err.comm == comm,
                 "line %d: %s (%s): handler invoked on the wrong communicator", line, fn, what);
    if (rc != MPI_SUCCESS && mt_error_strings_work()) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, s, &len);
        MT_CHECK(strstr(s, fn) != NULL, "line %d: %s: message \"%s\" does not name it", line, fn, s);
    }
    mt_err_reset();
}
#define ERR(rc, cls, comm, fn, what) expect_err(__LINE__, (rc), (cls), (comm), (fn), (what))
#define OK(rc, what) MT_CHECK((rc) == MPI_SUCCESS && mt_err.calls == 0, "%s failed (%d)", (what), (rc))

/* ---- one named communicator against the oracle ------------------------------ */

static void check_query(MPI_Comm c, const naming *n)
{
    int flag = -1, d = -1, size = -1, order = -1, dims[MAXD + 1], per[MAXD + 1];
    OK(Cart_test_name(c, &flag, &d, &size), "Cart_test_name");
    MT_CHECK(flag == 1 && d == n->d && size == n->size, "Cart_test_name: %d %d %d", flag, d, size);
    dims[n->d] = per[n->d] = -7;
    OK(Cart_get(c, &order, MAXD + 1, dims, per), "Cart_get");
    MT_EQ(order, n->colmajor ? CART_COL_MAJOR : CART_ROW_MAJOR, "Cart_get dimorder");
    for (int k = 0; k < n->d; k++) {
        MT_EQ(dims[k], n->dims[k], "Cart_get order");
        MT_EQ(per[k] != 0, n->periods[k] != 0, "Cart_get periods");
    }
    MT_CHECK(dims[n->d] == -7 && per[n->d] == -7, "Cart_get wrote past d");
    for (int r = -1; r <= p + 1; r++) {
        int co[MAXD] = { -7, -7, -7 }, want[MAXD];
        int rc = Cart_coordinates(c, r, co);
        if (!n_placed(n, r)) {
            ERR(rc, MPI_ERR_RANK, c, "Cart_coordinates", "rank without a position");
            MT_CHECK(co[0] == -7, "Cart_coordinates wrote output on error");
            continue;
        }
        OK(rc, "Cart_coordinates");
        ref_coords(r, n->d, n->dims, n->colmajor, want);
        for (int k = 0; k < n->d; k++) MT_EQ(co[k], want[k], "Cart_coordinates");
    }
}

/* Cart_rank, Cart_allranks[_relative] and the relative helpers at
 * random and extreme coordinates. */
static void check_ranks(MPI_Comm c, const naming *n, mt_rng *g)
{
    enum { N = 64 };
    static const int extreme[] = { INT_MIN, INT_MAX, -1000000007, INT_MIN + 1, 1000000009 };
    int v[N * MAXD], ranks[N], rel[N], want[N], src = mt_uniform(g, 0, p - 1);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < n->d; k++) {
            int w = 3 * n->dims[k] + 2;
            v[i * n->d + k] = i < 5 ? extreme[(i + k) % 5] : mt_uniform(g, -w, w);
        }
    for (int i = 0; i < N; i++) {
        int r = -7;
        OK(Cart_rank(c, v + i * n->d, &r), "Cart_rank");
        MT_EQ(r, want[i] = n_rank(n, v + i * n->d, NULL, 1), "Cart_rank");
    }
    OK(Cart_allranks(c, N, v, ranks), "Cart_allranks");
    for (int i = 0; i < N; i++) MT_EQ(ranks[i], want[i], "Cart_allranks");
    int rc = Cart_allranks_relative(c, src, N, v, rel);
    if (!n_placed(n, src)) {
        ERR(rc, MPI_ERR_RANK, c, "Cart_allranks_relative", "source without a position");
        return;
    }
    OK(rc, "Cart_allranks_relative");
    int sc[MAXD];
    ref_coords(src, n->d, n->dims, n->colmajor, sc);
    for (int i = 0; i < N; i++) {
        int in = -7, out = -7, dest = -7;
        MT_EQ(rel[i], n_rank(n, sc, v + i * n->d, 1), "Cart_allranks_relative");
        OK(Cart_relative_rank(c, src, v + i * n->d, &dest), "Cart_relative_rank");
        MT_EQ(dest, rel[i], "Cart_relative_rank");
        OK(Cart_relative_shift(c, src, v + i * n->d, &in, &out), "Cart_relative_shift");
        MT_EQ(out, rel[i], "Cart_relative_shift out");
        MT_EQ(in, n_rank(n, sc, v + i * n->d, -1), "Cart_relative_shift in");
    }
    for (int dst = 0; dst < p && dst < n->size; dst++) {
        int got[MAXD], dc[MAXD];
        OK(Cart_relative_coordinates(c, src, dst, got), "Cart_relative_coordinates");
        ref_coords(dst, n->d, n->dims, n->colmajor, dc);
        for (int k = 0; k < n->d; k++) {
            int x = dc[k] - sc[k], q = n->dims[k];
            if (n->periods[k]) x = ((x % q) + q) % q > q / 2 ? ((x % q) + q) % q - q : ((x % q) + q) % q;
            MT_EQ(got[k], x, "Cart_relative_coordinates");
        }
    }
}

/* Cart_neighbors[_count] of this process against the cube [-depth,depth]^d
 * walked in row-major order, kept where the norm lies in [shadow, depth]
 * and the offset stays on every non-periodic dimension. */
static void check_neighbors(MPI_Comm c, const naming *n)
{
    static const int sd[][2] = { { 0, 0 }, { 0, 1 }, { 1, 1 }, { 1, 2 }, { 2, 2 }, { 0, 3 }, { 3, 3 } };
    int co[MAXD];
    if (!n_placed(n, me)) return;
    ref_coords(me, n->d, n->dims, n->colmajor, co);
    for (int metric = CART_MANHATTAN; metric <= CART_CHEBYSHEV; metric++)
        for (size_t s = 0; s < sizeof sd / sizeof sd[0]; s++) {
            int shadow = sd[s][0], depth = sd[s][1], count = -1, v[MAXD], j = 0;
            int *got = malloc(sizeof(int) * 400 * MAXD);
            OK(Cart_neighbors_count(c, me, metric, shadow, depth, &count), "Cart_neighbors_count");
            OK(Cart_neighbors(c, me, metric, shadow, depth, 400, got), "Cart_neighbors");
            for (int k = 0; k < n->d; k++) v[k] = -depth;
            for (;;) {
                int r = 0, inside = 1;
                for (int k = 0; k < n->d; k++) {
                    int a = abs(v[k]), x = co[k] + v[k];
                    r = metric == CART_MANHATTAN ? r + a : (a > r ? a : r);
                    if (!n->periods[k] && (x < 0 || x >= n->dims[k])) inside = 0;
                }
                if (r >= shadow && r <= depth && inside) {
                    for (int k = 0; k < n->d && j < count; k++) MT_EQ(got[j * n->d + k], v[k], "Cart_neighbors");
                    j++;
                }
                int k = n->d - 1;
                while (k >= 0 && v[k] == depth) v[k--] = -depth;
                if (k < 0) break;
                v[k]++;
            }
            MT_EQ(count, j, "Cart_neighbors_count");
            if (count > 0) {
                int small = -7;
                got[0] = -7;
                ERR(Cart_neighbors(c, me, metric, shadow, depth, count - 1, got), MPI_ERR_ARG, c, "Cart_neighbors",
                    "maxcount = count - 1");
                MT_CHECK(got[0] == -7, "Cart_neighbors wrote output on error");
                ERR(Cart_neighbors_count(c, me, metric, depth + 1, depth, &small), MPI_ERR_ARG, c,
                    "Cart_neighbors_count", "shadow > depth");
                MT_CHECK(small == -7, "Cart_neighbors_count wrote count on error");
            }
            free(got);
        }
}

/* MPI_Group_compare of the (local) groups of a and b. */
static int group_cmp(MPI_Comm a, MPI_Comm b)
{
    MPI_Group ga, gb;
    int cmp = -1;
    MPI_Comm_group(a, &ga);
    MPI_Comm_group(b, &gb);
    MPI_Group_compare(ga, gb, &cmp);
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
    return cmp;
}

/* Cart_create_sub: members are the processes with a position whose removed
 * coordinates equal this one's, in rank order; the rest get MPI_COMM_NULL;
 * the result is unnamed and has no topology. */
static void check_sub(MPI_Comm c, const naming *n, MPI_Comm cart)
{
    for (int mask = 0; mask < (1 << n->d); mask++) {
        int remain[MAXD], mine[MAXD], other[MAXD], members[64], nm = 0;
        for (int k = 0; k < n->d; k++) remain[k] = (mask >> k) & 1;
        MPI_Comm sub = MPI_COMM_SELF;
        OK(Cart_create_sub(c, remain, &sub), "Cart_create_sub");
        if (!n_placed(n, me)) {
            MT_CHECK(sub == MPI_COMM_NULL, "Cart_create_sub: a process without a position got a communicator");
            continue;
        }
        ref_coords(me, n->d, n->dims, n->colmajor, mine);
        for (int q = 0; q < p; q++) {
            if (!n_placed(n, q)) continue;
            ref_coords(q, n->d, n->dims, n->colmajor, other);
            int same = 1;
            for (int k = 0; k < n->d; k++) same &= remain[k] || other[k] == mine[k];
            if (same) members[nm++] = q;
        }
        int sz = -1, flag = -1, topo = -1, got[64];
        MT_CHECK(sub != MPI_COMM_NULL, "Cart_create_sub: no communicator");
        if (sub == MPI_COMM_NULL) continue;
        MPI_Comm_size(sub, &sz);
        MT_EQ(sz, nm, "Cart_create_sub size");
        if (sz == nm) {
            MPI_Allgather(&me, 1, MPI_INT, got, 1, MPI_INT, sub);
            for (int i = 0; i < nm; i++) MT_EQ(got[i], members[i], "Cart_create_sub member order");
        }
        Cart_test_name(sub, &flag, NULL, NULL);
        MPI_Topo_test(sub, &topo);
        MT_CHECK(flag == 0 && topo == MPI_UNDEFINED, "Cart_create_sub: result named (%d) or topology %d", flag, topo);
        /* Row-major: MPI_Cart_sub is the oracle, except where no dimension
         * remains (MPICH 4.0.2 then gives MPI_COMM_NULL to all but rank 0). */
        if (cart != MPI_COMM_NULL && mask != 0) {
            MPI_Comm ms;
            MPI_Cart_sub(cart, remain, &ms);
            MT_EQ(group_cmp(sub, ms), MPI_IDENT, "Cart_create_sub vs MPI_Cart_sub");
            MPI_Comm_free(&ms);
        }
        MPI_Comm_free(&sub);
    }
}

/* subs: also Cart_create_sub (collective and the slow part; it does not
 * depend on periodicity, so not repeated for every choice of it). */
static void check_named(MPI_Comm c, const naming *n, MPI_Comm cart, mt_rng *g, int subs)
{
    check_query(c, n);
    check_ranks(c, n, g);
    check_neighbors(c, n);
    if (subs) check_sub(c, n, cart);
}

static int name(MPI_Comm c, const naming *n)
{
    int size = -1, rc = Cart_name(c, n->d, n->colmajor ? CART_COL_MAJOR : CART_ROW_MAJOR, n->dims, n->periods, &size);
    OK(rc, "Cart_name");
    MT_EQ(size, n->size, "Cart_name size");
    return rc;
}

/* ---- shapes ------------------------------------------------------------------- */

/* Row-major against MPI: coordinates and ranks of the MPI_Cart_create
 * communicator equal those of a Cart_name'd duplicate of MPI_COMM_WORLD,
 * which is also checked against the oracle, as is the MPI one. */
static void check_shape(naming *n, mt_rng *g, int subs)
{
    MPI_Comm cart, plain, col;
    MPI_Cart_create(MPI_COMM_WORLD, n->d, n->dims, n->periods, 0, &cart);
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    n->colmajor = 0;
    name(plain, n);
    for (int r = 0; r < p; r++) {
        int a[MAXD], b[MAXD], x[MAXD], mr = -1, cr = -1;
        MPI_Cart_coords(cart, r, n->d, a);
        OK(Cart_coordinates(plain, r, b), "Cart_coordinates");
        for (int k = 0; k < n->d; k++) MT_EQ(b[k], a[k], "Cart_coordinates vs MPI_Cart_coords");
        for (int k = 0; k < n->d; k++) x[k] = a[k] + (n->periods[k] ? mt_uniform(g, -2, 2) * n->dims[k] : 0);
        MPI_Cart_rank(cart, x, &mr);
        OK(Cart_rank(plain, x, &cr), "Cart_rank");
        MT_EQ(cr, mr, "Cart_rank vs MPI_Cart_rank");
        MT_EQ(mr, r, "MPI_Cart_rank round trip");
    }
    check_named(plain, n, cart, g, subs);
    check_named(cart, n, cart, g, subs); /* an MPI_Cart_create communicator is named */
    MPI_Comm_dup(MPI_COMM_WORLD, &col);
    n->colmajor = 1;
    name(col, n);
    check_named(col, n, MPI_COMM_NULL, g, subs);
    /* Cart_name on an MPI_Cart_create communicator takes over from MPI's. */
    name(cart, n);
    check_query(cart, n);
    MPI_Comm_free(&col);
    MPI_Comm_free(&plain);
    MPI_Comm_free(&cart);
}

static void all_shapes(mt_rng *g)
{
    int shapes = 0;
    for (int d = 1; d <= MAXD; d++)
        for (int code = 0; code < p * p * p; code++) {
            naming n = { .d = d, .size = 1 };
            for (int k = 0, c = code; k < d; k++, c /= p) n.size *= (n.dims[k] = c % p + 1);
            if (n.size != p || code >= (d == 1 ? p : d == 2 ? p * p : p * p * p)) continue;
            for (int per = 0; per < (1 << d); per++) {
                for (int k = 0; k < d; k++) n.periods[k] = (per >> k) & 1;
                check_shape(&n, g, per == 0 || per == (1 << d) - 1);
                shapes++;
            }
        }
    MT_CHECK(shapes >= 2, "only %d shapes", shapes);
}

/* Grids larger and smaller than the communicator, both layouts. */
static void other_sizes(mt_rng *g)
{
    naming big[] = { { 1, { p + 3 }, { 0 }, 0, p + 3 },           { 1, { p + 3 }, { 1 }, 1, p + 3 },
                     { 2, { 2, p }, { 1, 0 }, 0, 2 * p },        { 2, { 2, p }, { 0, 1 }, 1, 2 * p },
                     { 3, { 2, 1, p + 1 }, { 1, 1, 0 }, 1, 2 * p + 2 } };
    naming small[] = { { 1, { p - 1 }, { 1 }, 0, p - 1 }, { 2, { 1, p - 1 }, { 0, 1 }, 1, p - 1 },
                       { 2, { 2, (p - 1) / 2 }, { 0, 0 }, 1, (p - 1) / 2 * 2 } };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        name(c, &big[i]);
        check_named(c, &big[i], MPI_COMM_NULL, g, 1);
        /* Positions past the last process have no rank. */
        int last[MAXD], r = -7;
        for (int k = 0; k < big[i].d; k++) last[k] = big[i].dims[k] - 1;
        OK(Cart_rank(c, last, &r), "Cart_rank");
        MT_EQ(r, MPI_PROC_NULL, "Cart_rank of the last position of a larger grid");
        MPI_Comm_free(&c);
    }
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        if (small[i].size < 1) continue;
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        name(c, &small[i]);
        check_named(c, &small[i], MPI_COMM_NULL, g, 1);
        int co[MAXD] = { -7, -7, -7 };
        ERR(Cart_coordinates(c, small[i].size, co), MPI_ERR_RANK, c, "Cart_coordinates", "rank beyond the grid");
        ERR(Cart_relative_rank(c, small[i].size, co, co), MPI_ERR_RANK, c, "Cart_relative_rank", "beyond the grid");
        MT_CHECK(co[0] == -7, "output written on error");
        MPI_Comm_free(&c);
    }
}

/* ---- inheritance, replacement, the kinds of communicators ------------------ */

static void expect_unnamed(MPI_Comm c, const char *what)
{
    int flag = -7, d = -7, size = -7, r = -7, co[MAXD] = { 0 };
    OK(Cart_test_name(c, &flag, &d, &size), what);
    MT_CHECK(flag == 0 && d == -1 && size == -1, "%s: named (%d, %d, %d)", what, flag, d, size);
    int inter = 0;
    MPI_Comm_test_inter(c, &inter);
    ERR(Cart_rank(c, co, &r), inter ? MPI_ERR_COMM : MPI_ERR_TOPOLOGY, c, "Cart_rank", what);
    MT_CHECK(r == -7, "Cart_rank wrote rank on error");
}

/* An inter-communicator between the even and the odd ranks (p >= 2). */
static MPI_Comm make_inter(void)
{
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 17, &inter);
    MPI_Comm_free(&half);
    MPI_Comm_set_errhandler(inter, mt_errhandler);
    return inter;
}

static MPI_Comm make_graph(void)
{
    int src = (me + p - 1) % p, dst = (me + 1) % p, w = 1;
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0, &g);
    return g;
}

static void check_inheritance(void)
{
    naming a = { 1, { p }, { 1 }, 0, p }, b = { 2, { 1, p }, { 0, 0 }, 1, p };
    MPI_Comm c, dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    expect_unnamed(c, "a fresh duplicate");
    name(c, &a);
    MPI_Comm_dup(c, &dup);
    expect_unnamed(dup, "MPI_Comm_dup of a named communicator");
    MPI_Comm_split(c, 0, p - me, &split);
    expect_unnamed(split, "MPI_Comm_split of a named communicator");
    name(c, &b); /* replaces */
    check_query(c, &b);
    /* A failed Cart_name leaves the naming as it was. */
    int bad[2] = { 0, 1 }, size = -7;
    ERR(Cart_name(c, 2, CART_ROW_MAJOR, bad, bad, &size), MPI_ERR_ARG, c, "Cart_name", "order[0] = 0");
    MT_CHECK(size == -7, "Cart_name wrote size on error");
    check_query(c, &b);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&c);

    /* Cart_neighborhood_create and MPI_Cart_create communicators are named,
     * graphs and inter-communicators are not. */
    int dims[1] = { p }, periods[1] = { 1 }, targets[2] = { -1, 1 };
    MPI_Comm nbh, graph = make_graph();
    OK(Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, periods, 2, targets, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nbh),
       "Cart_neighborhood_create");
    check_query(nbh, &a);
    name(nbh, &b); /* Cart_name takes over from the neighbourhood's grid */
    check_query(nbh, &b);
    MPI_Comm_set_errhandler(graph, mt_errhandler);
    expect_unnamed(graph, "a distributed graph");
    expect_unnamed(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    if (p >= 2) {
        MPI_Comm inter = make_inter();
        expect_unnamed(inter, "an inter-communicator");
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&graph);
    MPI_Comm_free(&nbh);
}

/* Cart_comm_base: the same group in the same order (the local group of an
 * inter-communicator), an intra-communicator without topology or naming. */
static void check_base(MPI_Comm c, const char *what)
{
    MPI_Comm base = MPI_COMM_NULL;
    int topo = -1, inter = -1, flag = -1, one = 1, sum = 0, gs = 0;
    OK(Cart_comm_base(c, &base), what);
    if (base == MPI_COMM_NULL) return;
    MT_EQ(group_cmp(c, base), MPI_IDENT, what);
    MPI_Comm_size(c, &gs); /* the local group's size */
    MPI_Topo_test(base, &topo);
    MPI_Comm_test_inter(base, &inter);
    Cart_test_name(base, &flag, NULL, NULL);
    MT_CHECK(topo == MPI_UNDEFINED && inter == 0 && flag == 0, "%s: topology %d, inter %d, named %d", what, topo,
             inter, flag);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, base);
    MT_EQ(sum, gs, what);
    MPI_Comm_free(&base);
}

static void all_bases(void)
{
    int dims[2] = { 1, p }, periods[2] = { 0, 1 };
    MPI_Comm cart, graph = make_graph(), named;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_dup(MPI_COMM_WORLD, &named);
    naming n = { 2, { 1, p }, { 0, 1 }, 1, p };
    name(named, &n);
    check_base(MPI_COMM_WORLD, "Cart_comm_base(MPI_COMM_WORLD)");
    check_base(cart, "Cart_comm_base(MPI_Cart_create)");
    check_base(graph, "Cart_comm_base(dist graph)");
    check_base(named, "Cart_comm_base(Cart_name)");
    if (p >= 2) {
        MPI_Comm inter = make_inter();
        check_base(inter, "Cart_comm_base(inter-communicator)");
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&named);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&cart);
}

/* ---- bad input --------------------------------------------------------------- */

static void bad_name(MPI_Comm c)
{
    int o2[2] = { 2, 1 }, per[2] = { 0, 0 }, z[2] = { 1, 0 }, neg[2] = { -1, 2 }, huge[2] = { 65536, 65536 };
    int size = -7;
    struct {
        MPI_Comm c;
        int d, order;
        const int *o, *per;
        int *size, cls;
        const char *what;
    } t[] = {
        { MPI_COMM_NULL, 2, CART_ROW_MAJOR, o2, per, &size, MPI_ERR_COMM, "MPI_COMM_NULL" },
        { c, 0, CART_ROW_MAJOR, o2, per, &size, MPI_ERR_DIMS, "d = 0" },
        { c, -1, CART_COL_MAJOR, o2, per, &size, MPI_ERR_DIMS, "d = -1" },
        { c, 2, 0, o2, per, &size, MPI_ERR_ARG, "dimorder = 0" },
        { c, 2, 3, o2, per, &size, MPI_ERR_ARG, "dimorder = 3" },
        { c, 2, CART_ROW_MAJOR, NULL, per, &size, MPI_ERR_ARG, "order = NULL" },
        { c, 2, CART_ROW_MAJOR, o2, NULL, &size, MPI_ERR_ARG, "periods = NULL" },
        { c, 2, CART_ROW_MAJOR, o2, per, NULL, MPI_ERR_ARG, "size = NULL" },
        { c, 2, CART_ROW_MAJOR, z, per, &size, MPI_ERR_ARG, "order[1] = 0" },
        { c, 2, CART_COL_MAJOR, neg, per, &size, MPI_ERR_ARG, "order[0] = -1" },
        { c, 2, CART_ROW_MAJOR, huge, per, &size, MPI_ERR_ARG, "product beyond INT_MAX" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ERR(Cart_name(t[i].c, t[i].d, t[i].order, t[i].o, t[i].per, t[i].size), t[i].cls, t[i].c, "Cart_name",
            t[i].what);
        MT_CHECK(size == -7, "Cart_name wrote size on error (%s)", t[i].what);
    }
    expect_unnamed(c, "after failed Cart_name calls");
    int flag = -7;
    ERR(Cart_test_name(MPI_COMM_NULL, &flag, NULL, NULL), MPI_ERR_COMM, MPI_COMM_NULL, "Cart_test_name", "NULL");
    MT_CHECK(flag == -7, "Cart_test_name wrote flag on error");
    if (p >= 2) {
        MPI_Comm inter = make_inter();
        int one[1] = { 1 }, co[1] = { 0 }, r = -7;
        ERR(Cart_name(inter, 1, CART_ROW_MAJOR, one, one, &size), MPI_ERR_COMM, inter, "Cart_name", "inter");
        ERR(Cart_rank(inter, co, &r), MPI_ERR_COMM, inter, "Cart_rank", "inter-communicator");
        MPI_Comm sub = MPI_COMM_SELF;
        ERR(Cart_create_sub(inter, one, &sub), MPI_ERR_COMM, inter, "Cart_create_sub", "inter-communicator");
        MT_CHECK(sub == MPI_COMM_SELF, "Cart_create_sub wrote subcomm on error");
        MPI_Comm_free(&inter);
    }
}

static void bad_queries(MPI_Comm c, const naming *n)
{
    int o[MAXD] = { -7, -7, -7 }, pe[MAXD] = { -7, -7, -7 }, dm = -7, r = -7, cnt = -7, rk[2] = { -7, -7 };
    int co[2 * MAXD] = { 0 }, rel[4 * MAXD] = { -7 };
    ERR(Cart_get(c, &dm, -1, o, pe), MPI_ERR_ARG, c, "Cart_get", "maxd = -1");
    ERR(Cart_get(c, NULL, 1, o, pe), MPI_ERR_ARG, c, "Cart_get", "dimorder = NULL");
    ERR(Cart_get(c, &dm, 1, NULL, pe), MPI_ERR_ARG, c, "Cart_get", "order = NULL");
    ERR(Cart_get(MPI_COMM_NULL, &dm, 1, o, pe), MPI_ERR_COMM, MPI_COMM_NULL, "Cart_get", "MPI_COMM_NULL");
    MT_CHECK(dm == -7 && o[0] == -7 && pe[0] == -7, "Cart_get wrote output on error");
    OK(Cart_get(c, &dm, 0, NULL, NULL), "Cart_get with maxd = 0");
    ERR(Cart_rank(c, NULL, &r), MPI_ERR_ARG, c, "Cart_rank", "coordinates = NULL");
    ERR(Cart_rank(c, co, NULL), MPI_ERR_ARG, c, "Cart_rank", "rank = NULL");
    ERR(Cart_coordinates(c, -1, o), MPI_ERR_RANK, c, "Cart_coordinates", "rank = -1");
    ERR(Cart_coordinates(c, p, o), MPI_ERR_RANK, c, "Cart_coordinates", "rank = p");
    ERR(Cart_coordinates(c, 0, NULL), MPI_ERR_ARG, c, "Cart_coordinates", "coordinates = NULL");
    ERR(Cart_allranks(c, -1, co, rk), MPI_ERR_ARG, c, "Cart_allranks", "n = -1");
    ERR(Cart_allranks(c, 2, NULL, rk), MPI_ERR_ARG, c, "Cart_allranks", "coordinates = NULL");
    ERR(Cart_allranks(c, 2, co, NULL), MPI_ERR_ARG, c, "Cart_allranks", "ranks = NULL");
    ERR(Cart_allranks_relative(c, p, 2, co, rk), MPI_ERR_RANK, c, "Cart_allranks_relative", "source = p");
    ERR(Cart_allranks_relative(c, 0, -2, co, rk), MPI_ERR_ARG, c, "Cart_allranks_relative", "n = -2");
    ERR(Cart_allranks_relative(c, 0, 2, NULL, rk), MPI_ERR_ARG, c, "Cart_allranks_relative", "relatives = NULL");
    MT_CHECK(r == -7 && o[0] == -7 && rk[0] == -7 && rk[1] == -7, "output written on error");
    OK(Cart_allranks(c, 0, NULL, NULL), "Cart_allranks with n = 0");
    static const int nb[][4] = { { 0, 0, 1, MPI_ERR_ARG },  { 3, 0, 1, MPI_ERR_ARG }, { 1, -1, 1, MPI_ERR_ARG },
                                 { 1, 2, 1, MPI_ERR_ARG },  { 2, 0, -1, MPI_ERR_ARG },
                                 { 2, 0, 100000, MPI_ERR_ARG } }; /* metric, shadow, depth */
    for (size_t i = 0; i < sizeof nb / sizeof nb[0]; i++) {
        if (nb[i][2] == 100000 && n->d < 2) continue; /* a huge stencil needs d >= 2 */
        ERR(Cart_neighbors_count(c, 0, nb[i][0], nb[i][1], nb[i][2], &cnt), nb[i][3], c, "Cart_neighbors_count",
            "bad stencil");
        ERR(Cart_neighbors(c, 0, nb[i][0], nb[i][1], nb[i][2], 4, rel), nb[i][3], c, "Cart_neighbors", "bad stencil");
    }
    ERR(Cart_neighbors_count(c, p, CART_MANHATTAN, 0, 1, &cnt), MPI_ERR_RANK, c, "Cart_neighbors_count", "rank p");
    ERR(Cart_neighbors(c, -1, CART_MANHATTAN, 0, 1, 4, rel), MPI_ERR_RANK, c, "Cart_neighbors", "rank -1");
    ERR(Cart_neighbors_count(c, 0, CART_MANHATTAN, 0, 1, NULL), MPI_ERR_ARG, c, "Cart_neighbors_count", "NULL");
    ERR(Cart_neighbors(c, 0, CART_MANHATTAN, 0, 1, 100, NULL), MPI_ERR_ARG, c, "Cart_neighbors", "relatives NULL");
    MT_CHECK(cnt == -7 && rel[0] == -7, "output written on error");
    MPI_Comm sub = MPI_COMM_SELF;
    int keep[MAXD] = { 1, 1, 1 };
    ERR(Cart_create_sub(c, NULL, &sub), MPI_ERR_ARG, c, "Cart_create_sub", "remain_dims = NULL");
    ERR(Cart_create_sub(c, keep, NULL), MPI_ERR_ARG, c, "Cart_create_sub", "subcomm = NULL");
    ERR(Cart_comm_base(c, NULL), MPI_ERR_ARG, c, "Cart_comm_base", "basecomm = NULL");
    ERR(Cart_comm_base(MPI_COMM_NULL, &sub), MPI_ERR_COMM, MPI_COMM_NULL, "Cart_comm_base", "MPI_COMM_NULL");
    MT_CHECK(sub == MPI_COMM_SELF, "subcomm written on error");
}

/* Every query on an unnamed communicator is MPI_ERR_TOPOLOGY; with
 * MPI_ERRORS_RETURN the code comes back the same way. */
static void bad_unnamed(void)
{
    MPI_Comm c, sub = MPI_COMM_SELF;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int co[MAXD] = { 0 }, r = -7, dm = -7, keep[1] = { 1 };
    ERR(Cart_get(c, &dm, 0, NULL, NULL), MPI_ERR_TOPOLOGY, c, "Cart_get", "unnamed");
    ERR(Cart_coordinates(c, 0, co), MPI_ERR_TOPOLOGY, c, "Cart_coordinates", "unnamed");
    ERR(Cart_allranks(c, 1, co, &r), MPI_ERR_TOPOLOGY, c, "Cart_allranks", "unnamed");
    ERR(Cart_allranks_relative(c, 0, 1, co, &r), MPI_ERR_TOPOLOGY, c, "Cart_allranks_relative", "unnamed");
    ERR(Cart_neighbors_count(c, 0, CART_MANHATTAN, 0, 1, &r), MPI_ERR_TOPOLOGY, c, "Cart_neighbors_count", "unnamed");
    ERR(Cart_neighbors(c, 0, CART_MANHATTAN, 0, 1, 9, co), MPI_ERR_TOPOLOGY, c, "Cart_neighbors", "unnamed");
    ERR(Cart_create_sub(c, keep, &sub), MPI_ERR_TOPOLOGY, c, "Cart_create_sub", "unnamed");
    ERR(Cart_relative_rank(c, 0, co, &r), MPI_ERR_TOPOLOGY, c, "Cart_relative_rank", "unnamed");
    MT_CHECK(r == -7 && dm == -7 && sub == MPI_COMM_SELF, "output written on error");
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MT_EQ(mt_error_class(Cart_rank(c, co, &r)), MPI_ERR_TOPOLOGY, "Cart_rank with MPI_ERRORS_RETURN");
    MT_EQ(mt_error_class(Cart_coordinates(c, 0, co)), MPI_ERR_TOPOLOGY, "Cart_coordinates, MPI_ERRORS_RETURN");
    MT_CHECK(r == -7 && mt_err.calls == 0, "MPI_ERRORS_RETURN: output written or handler called");
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_naming");
    mt_install_errhandler();
    p = mt_size;
    me = mt_rank;
    mt_rng g;
    mt_seed(&g, 4242, 0); /* the same draws everywhere: collective calls stay matched */
    all_shapes(&g);
    other_sizes(&g);
    check_inheritance();
    all_bases();
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    bad_name(c);
    naming n = { 2, { p, 1 }, { 0, 1 }, 1, p };
    name(c, &n);
    bad_queries(c, &n);
    MPI_Comm_free(&c);
    bad_unnamed();
    /* Namings left on MPI_COMM_WORLD and MPI_COMM_SELF are freed by
     * MPI_Finalize, with the attribute keys. */
    naming w = { 1, { p }, { 0 }, 0, p }, s = { 1, { 1 }, { 1 }, 1, 1 };
    name(MPI_COMM_WORLD, &w);
    check_query(MPI_COMM_WORLD, &w);
    p = 1; /* the oracle's communicator is now MPI_COMM_SELF */
    name(MPI_COMM_SELF, &s);
    check_query(MPI_COMM_SELF, &s);
    return mt_finish();
}
