/* [ortho] Detection of Cartesian graphs: Cart_dist_graph_create_adjacent and
 * Cart_dist_graph_create (cartcoll.h, "Detection of Cartesian graphs").
 *
 * A distributed graph made by these functions is Cartesian with respect to
 * the naming of comm_old (Cart_name row- or column-major, or MPI_Cart_create)
 * when every process has the same multiset of offset vectors to its
 * destinations (offsets reduced modulo the size on periodic dimensions), the
 * sources mirror them, no neighbour is MPI_PROC_NULL and the graph's ranks
 * are comm_old's.  Detected or not, the six [core] collectives must keep
 * the MPI standard's neighbourhood meaning of the graph: send block i goes
 * to D[i], receive block j comes from S[j], in the caller's own (shuffled)
 * orders, and the k-th edge u->v in u's destinations meets the k-th
 * occurrence of u in v's sources (repeated vectors; -1 and +1 on periodic
 * dimensions of size 1 and 2 reach the same process).
 *
 * Oracle, from first principles (never MPI_Neighbor_*): every process knows
 * the whole graph; after creation every process's neighbour lists are
 * gathered as the new communicator reports them (MPI_Dist_graph_neighbors)
 * and checked against the graph generated; receive block j at v (from u =
 * S[j], its k-th occurrence) must hold u's send block at the index of u's
 * k-th edge to v.  Buffers are compared int by int (receive blocks, gaps and
 * sentinels, the send buffer unchanged).  Whether the graph is Cartesian is
 * decided here from the naming's own coordinate formulas (row-/column-major),
 * not from the library.
 *
 * Whether the library detected it: Cart_schedule_stats(graph, CART_ALLTOALL,
 * CART_ALGORITHM_DIRECT) returns MPI_SUCCESS on a detected graph and
 * MPI_ERR_TOPOLOGY (MPI_ERRORS_RETURN on the graph) on one that is not,
 * checked before and after the collectives and equal on every process.
 * Positive cases must be detected (--no-expect-detect turns that assertion
 * off), negative ones must not; where the oracle says Cartesian on a mesh,
 * or with reorder = 1, either answer is accepted.
 *
 * Cases (the list depends only on the number of processes):
 *   positive: comm_old a dup of MPI_COMM_WORLD named by Cart_name row-major
 *     or column-major, or an MPI_Cart_create communicator, every dimension
 *     periodic; d = 1, 2, 3 with dims from MPI_Dims_create and shapes with
 *     size-1 dimensions ({1,p}, {p,1}, {1,a,b}, {a,1,b}; size-2 ones where p
 *     is even); stencils Moore radius 1 and von Neumann radius 1 (with and
 *     without the zero vector = self-edge, Cart_stencil), von Neumann with
 *     the zero vector and +e_0 repeated, and an arbitrary list ((2,-1),
 *     (0,3), ...); neighbour ranks from Cart_allranks_relative (+offset for
 *     destinations, -offset for sources, cross-checked against the sources
 *     derived from every process's destinations); destinations and sources
 *     shuffled independently per process; made by
 *     Cart_dist_graph_create_adjacent or by Cart_dist_graph_create with the
 *     edges given by a process other than their source; the creation's info
 *     cycles cartcoll_algorithm / cartcoll_executor; comm_old is freed right
 *     after the creation; an MPI_Comm_dup of the graph is used too.
 *   negative: one process with another stencil; a non-periodic grid whose
 *     border processes omit off-grid neighbours; a random multigraph;
 *     reorder = 1 (correctness only); an unnamed comm_old; the graph of a
 *     column-major naming on a row-major comm_old.
 * Forms: blocking, Cart_iX + Cart_wait (or a Cart_test loop), Cart_X_init
 * (info cycling algorithm/executor) + 3 Cart_start with new contents +
 * Cart_request_free; regular, v and w variants (v/w block sizes per edge,
 * equal on both ends); MPI_INT and strided vectors (send and receive types
 * differing with equal signatures); 0, 1 or 5 elements per block.
 *
 * Options: --seed S, --first C, --cases N (a slice of the case list),
 * --verbose, --positive-only (for the CARTCOLL_ALGORITHM runs),
 * --no-expect-detect (positive cases need not be detected), --break-oracle
 * (match the LAST occurrence of a repeated edge instead of the k-th: the run
 * passes only if the test then finds mismatches). */
#include "graphcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int opt_first = 0, opt_cases = -1; /* opt_seed, opt_verbose, opt_break: graphcheck.c */
static int opt_positive_only = 0, opt_expect_detect = 1;

/* ---- the cases ------------------------------------------------------------------ */

enum { K_ROW, K_COL, K_MPICART, NKINDS }; /* how comm_old is named */
static const char *const kind_name[NKINDS] = { "dup of MPI_COMM_WORLD named CART_ROW_MAJOR",
                                               "dup of MPI_COMM_WORLD named CART_COL_MAJOR", "MPI_Cart_create" };
enum { ST_MOORE, ST_MOORE0, ST_VN, ST_VN0, ST_REPEAT, ST_LIST, NSTENCILS };
static const char *const stencil_name[NSTENCILS] = {
    "Moore radius 1",        "Moore radius 1 with the zero vector",
    "von Neumann radius 1",  "von Neumann radius 1 with the zero vector",
    "von Neumann radius 1, zero vector x3, +e_0 x2", "arbitrary offsets"
};
enum { NEG_NONE, NEG_ODD, NEG_MESH, NEG_RANDOM, NEG_REORDER, NEG_UNNAMED, NEG_WRONGNAME, NNEG };
static const char *const neg_name[NNEG] = { "positive",
                                            "negative: one process with another stencil",
                                            "negative: non-periodic grid, off-grid neighbours omitted",
                                            "negative: random multigraph",
                                            "negative: reorder = 1",
                                            "negative: unnamed comm_old",
                                            "negative: graph of a column-major naming on a row-major comm_old" };
enum { M_ADJACENT, M_CREATE };
static const char *const method_name[2] = { "Cart_dist_graph_create_adjacent", "Cart_dist_graph_create" };

typedef struct {
    int d, dims[3], kind, stencil, neg, method;
} spec_t;

static spec_t case_list[128];
static int ncases;

static void add_case(int d, const int dims[], int kind, int stencil, int neg, int method)
{
    spec_t *s = &case_list[ncases++];
    memset(s, 0, sizeof *s);
    s->d = d;
    for (int k = 0; k < d; k++) s->dims[k] = dims[k];
    s->kind = kind;
    s->stencil = stencil;
    s->neg = neg;
    s->method = method;
}

/* Shapes: d = 1; MPI_Dims_create for d = 2, 3; size-1 dimensions in every
 * position ({1,p}, {p,1}, {1,a,b}, {a,1,b}). */
static void build_case_list(int p)
{
    int shapes[7][4], ns = 0, dc2[2] = { 0, 0 }, dc3[3] = { 0, 0, 0 };
    MPI_Dims_create(p, 2, dc2);
    MPI_Dims_create(p, 3, dc3);
    int sh[7][4] = { { 1, p, 0, 0 },          { 2, dc2[0], dc2[1], 0 }, { 2, 1, p, 0 },         { 2, p, 1, 0 },
                     { 3, dc3[0], dc3[1], dc3[2] }, { 3, 1, dc2[0], dc2[1] }, { 3, dc2[0], 1, dc2[1] } };
    memcpy(shapes, sh, sizeof sh);
    ns = 7;
    for (int s = 0; s < ns; s++)
        for (int st = 0; st < NSTENCILS; st++)
            add_case(shapes[s][0], shapes[s] + 1, (st + s) % NKINDS, st, NEG_NONE, (st + s + s / 3) % 2);
    const int negshape[3] = { 0, 1, 4 };
    const int negstencil[NNEG] = { 0, ST_MOORE, ST_MOORE, ST_MOORE, ST_REPEAT, ST_VN0, ST_LIST };
    for (int x = 0; x < 3; x++) {
        int s = negshape[x];
        for (int neg = 1; neg < NNEG; neg++)
            add_case(shapes[s][0], shapes[s] + 1, neg == NEG_WRONGNAME ? K_ROW : (neg + x) % NKINDS, negstencil[neg],
                     neg, (neg + x) % 2);
    }
}

/* ---- namings from first principles (for the oracle of detection) -------------- */

typedef struct {
    int d, dims[3], periods[3], colmajor;
} naming_t;

static void nm_coords(const naming_t *n, int r, int c[])
{
    if (n->colmajor)
        for (int k = 0; k < n->d; k++) {
            c[k] = r % n->dims[k];
            r /= n->dims[k];
        }
    else
        for (int k = n->d - 1; k >= 0; k--) {
            c[k] = r % n->dims[k];
            r /= n->dims[k];
        }
}

/* Rank at coords(r) + off: wraps on periodic dimensions, MPI_PROC_NULL off
 * a non-periodic one. */
static int nm_shift(const naming_t *n, int r, const int off[])
{
    int c[3], rank = 0;
    nm_coords(n, r, c);
    for (int k = 0; k < n->d; k++) {
        long x = (long)c[k] + off[k];
        if (n->periods[k]) x = ((x % n->dims[k]) + n->dims[k]) % n->dims[k];
        else if (x < 0 || x >= n->dims[k]) return MPI_PROC_NULL;
        c[k] = (int)x;
    }
    if (n->colmajor)
        for (int k = n->d - 1; k >= 0; k--) rank = rank * n->dims[k] + c[k];
    else
        for (int k = 0; k < n->d; k++) rank = rank * n->dims[k] + c[k];
    return rank;
}

/* The offset from u to v as one key: reduced modulo the size on periodic
 * dimensions, the plain difference on the others. */
static long offset_key(const naming_t *n, int u, int v)
{
    int cu[3], cv[3];
    long key = 0;
    nm_coords(n, u, cu);
    nm_coords(n, v, cv);
    for (int k = 0; k < n->d; k++) {
        int o = cv[k] - cu[k];
        if (n->periods[k]) o = ((o % n->dims[k]) + n->dims[k]) % n->dims[k];
        key = key * (2L * n->dims[k] + 1) + (o + n->dims[k]);
    }
    return key;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Cartesian with respect to naming n (NULL: comm_old unnamed): the graph's
 * ranks are comm_old's and every process has the same multiset of offsets
 * to its destinations (the sources then mirror them: MPI checked that the
 * lists agree). */
static int is_cartesian(const view_t *w, const naming_t *n)
{
    if (!n) return 0;
    for (int u = 0; u < w->p; u++)
        if (w->old[u] != u) return 0;
    long *ref = malloc(sizeof(long) * (size_t)(w->nout[0] + 1)), *mine = NULL;
    int yes = 1;
    for (int i = 0; i < w->nout[0]; i++) ref[i] = offset_key(n, 0, w->D[0][i]);
    qsort(ref, (size_t)w->nout[0], sizeof(long), cmp_long);
    for (int u = 1; u < w->p && yes; u++) {
        if (w->nout[u] != w->nout[0]) {
            yes = 0;
            break;
        }
        mine = realloc(mine, sizeof(long) * (size_t)(w->nout[u] + 1));
        for (int i = 0; i < w->nout[u]; i++) mine[i] = offset_key(n, u, w->D[u][i]);
        qsort(mine, (size_t)w->nout[u], sizeof(long), cmp_long);
        yes = !memcmp(mine, ref, sizeof(long) * (size_t)w->nout[u]);
    }
    free(ref);
    free(mine);
    return yes;
}

/* ---- offsets ------------------------------------------------------------------- */

/* The offsets of stencil st in d dimensions (at most 32 vectors). */
static int stencil_offsets(int st, int d, int off[])
{
    int t = 0, rc = MPI_SUCCESS;
    switch (st) {
    case ST_MOORE: rc = Cart_stencil(d, CART_CHEBYSHEV, 1, 1, 32, off); break;
    case ST_MOORE0: rc = Cart_stencil(d, CART_CHEBYSHEV, 0, 1, 32, off); break;
    case ST_VN: rc = Cart_stencil(d, CART_MANHATTAN, 1, 1, 32, off); break;
    case ST_VN0:
    case ST_REPEAT: rc = Cart_stencil(d, CART_MANHATTAN, 0, 1, 32, off); break;
    default: break;
    }
    MT_EQ(rc, MPI_SUCCESS, "Cart_stencil");
    int cnt = 0, metric = st == ST_MOORE || st == ST_MOORE0 ? CART_CHEBYSHEV : CART_MANHATTAN;
    int shadow = st == ST_MOORE || st == ST_VN ? 1 : 0;
    if (st != ST_LIST) {
        MT_EQ(Cart_stencil_count(d, metric, shadow, 1, &cnt), MPI_SUCCESS, "Cart_stencil_count");
        t = cnt;
    }
    if (st == ST_REPEAT) { /* the zero vector twice more, +e_0 once more */
        for (int r = 0; r < 2; r++, t++)
            for (int k = 0; k < d; k++) off[t * d + k] = 0;
        for (int k = 0; k < d; k++) off[t * d + k] = k == 0;
        t++;
    } else if (st == ST_LIST) {
        static const int l1[] = { 2, -3, 0, 1, 5 };
        static const int l2[] = { 2, -1, 0, 3, -1, -1, 4, 0, 0, -2 };
        static const int l3[] = { 2, -1, 0, 0, 3, 1, -1, 0, -2, 1, 1, 1, 0, 0, -3 };
        const int *l = d == 1 ? l1 : d == 2 ? l2 : l3;
        t = 5;
        memcpy(off, l, sizeof(int) * (size_t)(t * d));
    }
    return t;
}

/* ---- one case ---------------------------------------------------------------------- */

enum { EXP_NO, EXP_YES, EXP_ANY };
static const char *const exp_name[3] = { "not detected", "detected", "either" };
static long tally_exp[3], tally_det[3]; /* [0] not Cartesian, [1] Cartesian, [2] either */

/* 1 detected, 0 not, -1 an unexpected answer (reported). */
static int detected(MPI_Comm g, const char *when)
{
    int ph = -77, ro = -77, vo = -77, cls = -1;
    int rc = Cart_schedule_stats(g, CART_ALLTOALL, CART_ALGORITHM_DIRECT, &ph, &ro, &vo);
    mt_checks++;
    if (rc == MPI_SUCCESS) {
        if (ph < 0 || ph > 1 || ro < 0 || vo < ro) {
            failure("Cart_schedule_stats(CART_ALLTOALL, DIRECT) %s: phases %d, rounds %d, volume %d (DIRECT has at "
                    "most one phase, volume >= rounds >= 0)",
                    when, ph, ro, vo);
        }
        return 1;
    }
    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_TOPOLOGY && ph == -77 && ro == -77 && vo == -77) return 0;
    failure("Cart_schedule_stats(CART_ALLTOALL, DIRECT) %s returned %d (class %d; expected MPI_SUCCESS or "
            "MPI_ERR_TOPOLOGY = %d), outputs %d %d %d",
            when, rc, cls, MPI_ERR_TOPOLOGY, ph, ro, vo);
    return -1;
}

static int same_multiset(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (occurrences(a, n, a[i]) != occurrences(b, n, a[i])) return 0;
    return 1;
}

/* The graph made: MPI's lists against the generated graph, detection, then
 * every form x every collective. */
static void run_graph(const spec_t *sp, int cs, MPI_Comm g, const view_t *w, const int *dst, const int *nout,
                      int cap, const int *src, int nin, const int *mydst, const naming_t *oldn, int periodic,
                      int reorder)
{
    int p = mt_size, me = mt_rank;
    /* what MPI reports against the graph generated (in comm_old's ranks) */
    int good = 1, ngood = 0;
    mt_checks++;
    if (w->topo != MPI_DIST_GRAPH || w->p != p) {
        failure("MPI_Topo_test %d (MPI_DIST_GRAPH = %d), %d processes", w->topo, MPI_DIST_GRAPH, w->p);
        good = 0;
    }
    for (int u = 0; good && u < p; u++)
        for (int v = 0; good && v < p; v++) {
            int ou = w->old[u], ov = w->old[v];
            int mg = occurrences(dst + ou * cap, nout[ou], ov);
            int mo = occurrences(w->D[u], w->nout[u], v), mi = occurrences(w->S[v], w->nin[v], u);
            if (mg != mo || mg != mi) {
                failure("MPI reports %d edges %d->%d among %d's destinations and %d among %d's sources; %d were "
                        "created (comm_old ranks %d->%d)",
                        mo, u, v, u, mi, v, mg, ou, ov);
                good = 0;
            }
        }
    if (good && sp->method == M_ADJACENT && !reorder &&
        (w->nin[me] != nin || w->nout[me] != nout[me] || memcmp(w->S[me], src, sizeof(int) * (size_t)nin) ||
         memcmp(w->D[me], mydst, sizeof(int) * (size_t)nout[me]))) {
        failure("with reorder = 0, MPI_Dist_graph_neighbors does not return the lists given");
        good = 0;
    }
    MPI_Allreduce(&good, &ngood, 1, MPI_INT, MPI_MIN, g);
    if (!ngood) return;

    /* detection: expected from first principles, seen through Cart_schedule_stats */
    int named = sp->neg != NEG_UNNAMED;
    int cart = is_cartesian(w, named ? oldn : NULL), expect;
    if (sp->neg == NEG_NONE && !cart) failure("test defect: the positive case's graph is not Cartesian");
    if (reorder) expect = EXP_ANY;
    else if (cart && !periodic) expect = EXP_ANY; /* a mesh where no process loses a neighbour */
    else if (cart) expect = opt_expect_detect ? EXP_YES : EXP_ANY;
    else expect = EXP_NO;
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    int det = detected(g, "after create"), dmin = 0, dmax = 0;
    MPI_Allreduce(&det, &dmin, 1, MPI_INT, MPI_MIN, g);
    MPI_Allreduce(&det, &dmax, 1, MPI_INT, MPI_MAX, g);
    mt_checks++;
    if (dmin != dmax) failure("processes disagree on detection: this one says %d (1 detected, 0 not)", det);
    mt_checks++;
    if (det >= 0 && expect != EXP_ANY && det != (expect == EXP_YES))
        failure("detection: the graph is %sCartesian with respect to comm_old's naming, expected %s, but "
                "Cart_schedule_stats says %s",
                cart ? "" : "not ", exp_name[expect], det ? "detected" : "not detected");
    if (me == 0) { /* by what the graph is: not Cartesian, Cartesian, either way */
        int cat = reorder || (cart && !periodic) ? 2 : cart;
        tally_exp[cat]++;
        tally_det[cat] += det == 1;
    }

    /* the collectives: every form x every collective */
    uint64_t csalt = hsh(opt_seed, cs, 7, 7);
    for (int x = 0; x < 3; x++) {
        int form = (cs + x) % 3;
        for (int coll = 0; coll < NCOLL; coll++)
            run_form(g, w, (coll + cs) % NCOLL, form, hsh(csalt, form, coll, callno));
    }
    int det2 = detected(g, "after the collectives");
    MT_CHECK(det2 == det, "%s: detection changed from %d to %d after the collectives", case_desc, det, det2);
    /* MPI_Comm_dup of the graph keeps its meaning (whether the duplicate
     * runs Cartesian schedules is not asserted) */
    MPI_Comm g2;
    MPI_Comm_dup(g, &g2);
    run_form(g2, w, C_ALLTOALLV, F_BLOCKING, hsh(csalt, 11, 0, callno));
    run_form(g2, w, C_ALLGATHERW, F_PERSISTENT, hsh(csalt, 12, 0, callno));
    run_form(g2, w, C_ALLTOALLW, F_NONBLOCKING, hsh(csalt, 13, 0, callno));
    MPI_Comm_free(&g2);
}

static void run_case(int cs)
{
    const spec_t *sp = &case_list[cs];
    int p = mt_size, me = mt_rank, d = sp->d;
    mt_rng gr, lr;
    mt_seed(&gr, opt_seed, (uint64_t)cs);
    mt_seed(&lr, opt_seed, 1000000 + (uint64_t)cs * 64 + (uint64_t)me);
    int periods[3] = { 1, 1, 1 }, size = -1, reorder = sp->neg == NEG_REORDER;
    if (sp->neg == NEG_MESH) periods[0] = periods[1] = periods[2] = 0;
    cur_case = cs;
    cur_view = NULL;
    callno = 0;
    {
        char dl[40];
        fmt_list(dl, sizeof dl, sp->dims, d);
        snprintf(case_desc, sizeof case_desc, "case %d (%s; %s by %s, create info %s/%s; comm_old %s%s, dims {%s}, "
                 "%s; %s)", cs, neg_name[sp->neg], stencil_name[sp->stencil], method_name[sp->method],
                 info_alg[cs % 5] ? info_alg[cs % 5] : "-", info_exec[(cs / 5) % 4] ? info_exec[(cs / 5) % 4] : "-",
                 sp->neg == NEG_UNNAMED ? "an unnamed dup of MPI_COMM_WORLD, ranks from a " : "", kind_name[sp->kind],
                 dl, periods[0] ? "periodic" : "non-periodic", reorder ? "reorder 1" : "reorder 0");
    }
    if (opt_verbose && me == 0) printf("%s\n", case_desc);

    /* comm_old, and nmc: the communicator whose naming makes the graph */
    MPI_Comm old = MPI_COMM_NULL, nmc = MPI_COMM_NULL;
    naming_t oldn = { d, { 1, 1, 1 }, { 0, 0, 0 }, sp->kind == K_COL }, gn;
    for (int k = 0; k < d; k++) {
        oldn.dims[k] = sp->dims[k];
        oldn.periods[k] = periods[k];
    }
    int order = sp->kind == K_COL ? CART_COL_MAJOR : CART_ROW_MAJOR;
    if (sp->kind == K_MPICART && sp->neg != NEG_UNNAMED) {
        MPI_Cart_create(MPI_COMM_WORLD, d, sp->dims, periods, 0, &old);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, &old);
        if (sp->neg != NEG_UNNAMED) {
            MT_EQ(Cart_name(old, d, order, sp->dims, periods, &size), MPI_SUCCESS, "Cart_name of comm_old");
            MT_EQ(size, p, "Cart_name's size");
        }
    }
    gn = oldn;
    if (sp->neg == NEG_UNNAMED || sp->neg == NEG_WRONGNAME) {
        if (sp->neg == NEG_WRONGNAME) {
            order = CART_COL_MAJOR;
            gn.colmajor = 1;
        }
        MPI_Comm_dup(MPI_COMM_WORLD, &nmc);
        MT_EQ(Cart_name(nmc, d, order, sp->dims, periods, &size), MPI_SUCCESS, "Cart_name of the helper");
    }
    MPI_Comm gcomm_naming = nmc != MPI_COMM_NULL ? nmc : old;

    /* every process's destinations (in comm_old's ranks, in stencil order) */
    int off[64 * 3], offodd[64 * 3], neg_off[64 * 3];
    int t = stencil_offsets(sp->stencil, d, off), todd = 0, oddr = -1;
    if (sp->neg == NEG_ODD) {
        todd = stencil_offsets(sp->stencil == ST_VN0 ? ST_MOORE : ST_VN0, d, offodd);
        oddr = (int)(hsh(opt_seed, cs, 3, 3) % (uint64_t)p);
    }
    int cap = 4 * p + 40;
    int *nout = calloc((size_t)p, sizeof(int)), *dst = calloc((size_t)(p * cap), sizeof(int));
    int *ranks = malloc(sizeof(int) * (size_t)cap);
    for (int u = 0; u < p; u++) {
        if (sp->neg == NEG_RANDOM) {
            nout[u] = mt_uniform(&gr, 0, 2 * p + 1);
            for (int i = 0; i < nout[u]; i++) dst[u * cap + i] = mt_uniform(&gr, 0, p - 1);
            continue;
        }
        const int *o = u == oddr ? offodd : off;
        int tu = u == oddr ? todd : t;
        int rc = Cart_allranks_relative(gcomm_naming, u, tu, o, ranks);
        MT_EQ(rc, MPI_SUCCESS, "Cart_allranks_relative (destinations)");
        for (int i = 0; i < tu; i++) {
            int want = nm_shift(&gn, u, o + i * d);
            mt_checks++;
            if (rc == MPI_SUCCESS && ranks[i] != want)
                failure("Cart_allranks_relative(rank %d, offset #%d) = %d; the naming's formula gives %d", u, i,
                        ranks[i], want);
            if (want != MPI_PROC_NULL) dst[u * cap + nout[u]++] = want;
        }
    }
    /* my sources: derived from every process's destinations ... */
    int nin = 0, *src = malloc(sizeof(int) * (size_t)(p * cap + 1));
    for (int u = 0; u < p; u++)
        for (int i = 0; i < nout[u]; i++)
            if (dst[u * cap + i] == me) src[nin++] = u;
    /* ... and, for a stencil on every process, the mirror image (-offset) */
    if (sp->neg != NEG_RANDOM && sp->neg != NEG_ODD) {
        for (int i = 0; i < t * d; i++) neg_off[i] = -off[i];
        int rc = Cart_allranks_relative(gcomm_naming, me, t, neg_off, ranks), n = 0;
        MT_EQ(rc, MPI_SUCCESS, "Cart_allranks_relative (sources)");
        int *mirror = malloc(sizeof(int) * (size_t)(t + 1));
        for (int i = 0; i < t; i++)
            if (ranks[i] != MPI_PROC_NULL) mirror[n++] = ranks[i];
        mt_checks++;
        if (n != nin || !same_multiset(mirror, src, n)) {
            failure("the sources from -offset (%d of them) differ from those derived from every process's "
                    "destinations (%d)",
                    n, nin);
        } else {
            memcpy(src, mirror, sizeof(int) * (size_t)n); /* the -offset order, shuffled below */
        }
        free(mirror);
    }
    /* my own orders: destinations and sources shuffled independently */
    int *mydst = malloc(sizeof(int) * (size_t)(nout[me] + 1));
    memcpy(mydst, dst + me * cap, sizeof(int) * (size_t)nout[me]);
    shuffle(&lr, mydst, nout[me]);
    shuffle(&lr, src, nin);

    /* the graph; the creation's info sets algorithm / executor for a detected one */
    MPI_Info cinfo = mt_info(info_alg[cs % 5], info_exec[(cs / 5) % 4]);
    MPI_Comm g = MPI_COMM_NULL;
    int rc;
    if (sp->method == M_ADJACENT) {
        rc = Cart_dist_graph_create_adjacent(old, nin, src, MPI_UNWEIGHTED, nout[me], mydst, MPI_UNWEIGHTED, cinfo,
                                             reorder, &g);
    } else {
        /* every edge given by a process other than its source (p >= 2), in
         * runs: a source may appear several times */
        int total = 0, n = 0, nd = 0;
        for (int u = 0; u < p; u++) total += nout[u];
        int *sources = malloc(sizeof(int) * (size_t)(total + 1)), *degrees = malloc(sizeof(int) * (size_t)(total + 1));
        int *dests = malloc(sizeof(int) * (size_t)(total + 1)), *uord = malloc(sizeof(int) * (size_t)p);
        for (int u = 0; u < p; u++) uord[u] = u;
        shuffle(&lr, uord, p);
        for (int x = 0; x < p; x++) {
            int u = uord[x];
            for (int i = 0; i < nout[u]; i++) {
                int spec = p > 1 ? (u + 1 + (int)(hsh(0x5EC, cs, u, i) % (uint64_t)(p - 1))) % p : 0;
                if (spec != me) continue;
                if (n == 0 || sources[n - 1] != u || mt_chance(&lr, 30)) {
                    sources[n] = u;
                    degrees[n++] = 0;
                }
                degrees[n - 1]++;
                dests[nd++] = dst[u * cap + i];
            }
        }
        rc = Cart_dist_graph_create(old, n, sources, degrees, dests, MPI_UNWEIGHTED, cinfo, reorder, &g);
        free(sources);
        free(degrees);
        free(dests);
        free(uord);
    }
    mt_info_free(&cinfo);
    int ok = check_rc(rc, method_name[sp->method]) && g != MPI_COMM_NULL, allok = 0;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    view_t w;
    memset(&w, 0, sizeof w);
    if (allok) {
        view_build(g, old, &w);
        cur_view = &w;
    }
    /* comm_old and the helper go before any collective: the graph must not
     * depend on them */
    MPI_Comm_free(&old);
    if (nmc != MPI_COMM_NULL) MPI_Comm_free(&nmc);
    if (allok) run_graph(sp, cs, g, &w, dst, nout, cap, src, nin, mydst, &oldn, periods[0], reorder);

    if (g != MPI_COMM_NULL) MPI_Comm_free(&g);
    if (allok) view_free(&w);
    cur_view = NULL;
    free(nout);
    free(dst);
    free(ranks);
    free(src);
    free(mydst);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_detect");
    counts_set[2] = 5; /* elements of the unit: 0, 1 or 5 */
    replay_prog = "test_detect";
    replay_note = " (same environment)";
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--seed") && a + 1 < argc) opt_seed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--first") && a + 1 < argc) opt_first = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cases") && a + 1 < argc) opt_cases = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--verbose")) opt_verbose = 1;
        else if (!strcmp(argv[a], "--break-oracle")) opt_break = 1;
        else if (!strcmp(argv[a], "--positive-only")) opt_positive_only = 1;
        else if (!strcmp(argv[a], "--no-expect-detect")) opt_expect_detect = 0;
        else {
            if (mt_rank == 0) fprintf(stderr, "test_detect: unknown option %s\n", argv[a]);
            MPI_Finalize();
            return 2;
        }
    }
    if (mt_size > 64) { /* content() and the degree bounds */
        if (mt_rank == 0) fprintf(stderr, "test_detect: at most 64 processes\n");
        MPI_Finalize();
        return 2;
    }
    make_types();
    build_case_list(mt_size);
    int last = opt_cases < 0 ? ncases : opt_first + opt_cases;
    if (last > ncases) last = ncases;
    double t0 = MPI_Wtime();
    int ran = 0;
    for (int cs = opt_first; cs < last; cs++) {
        if (opt_positive_only && case_list[cs].neg != NEG_NONE) continue;
        run_case(cs);
        ran++;
    }
    if (mt_rank == 0)
        printf("test_detect: %d cases in %.2f s; detected: %ld of %ld Cartesian graphs%s, %ld of %ld not Cartesian, "
               "%ld of %ld either way (reorder = 1, Cartesian meshes)\n",
               ran, MPI_Wtime() - t0, tally_det[1], tally_exp[1],
               opt_expect_detect ? "" : " (--no-expect-detect: not required)", tally_det[0], tally_exp[0],
               tally_det[2], tally_exp[2]);
    MPI_Type_free(&ty[TY_VEC2]);
    MPI_Type_free(&ty[TY_VEC4]);
    if (!opt_break) return mt_finish();
    /* The broken oracle must be caught. */
    long f = mt_failures, sum = 0;
    MPI_Allreduce(&f, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    mt_failures = 0;
    int rc = mt_finish();
    if (mt_rank == 0)
        printf("test_detect --break-oracle: %ld mismatches found: %s\n", sum,
               sum > 0 ? "the test detects a wrong matching of repeated edges" : "NOT DETECTED");
    return rc || sum == 0 ? 1 : 0;
}
