/* [ortho] Detection of Cartesian graphs: Cart_dist_graph_create_adjacent and
 * Cart_dist_graph_create (cartcoll.h, "Detection of Cartesian graphs").
 *
 * Definition (written here from the API, not from the library): a graph is
 * Cartesian on a grid (row- or column-major, periodic or not per dimension)
 * when there is one multiset S of offsets such that every process u lists
 * as destinations exactly the N of S with u+N on the grid, with
 * multiplicity, and as sources exactly the u-N on the grid; MPI_PROC_NULL
 * entries may stand anywhere (their blocks are never sent or written).
 * Offsets are reduced modulo the size on periodic dimensions, plain
 * differences on the others.  S is then the multiset of the offsets with
 * the largest multiplicity any process lists (a process where N stays on the
 * grid lists all its copies).  On a torus every process lists all of S.
 * The grid is comm_old's naming when it has one (Cart_name row- or
 * column-major, MPI_Cart_create), and the graph's ranks must then be
 * comm_old's: with reorder = 1 on a named comm_old the library declines
 * MPI's reordering (checked: the ranks are kept).  For an unnamed comm_old
 * the grids are the row-major MPI_Dims_create(p, d) grids, d = 1..8, all
 * periodic or all not, in the graph's own ranks.  Whether the graph is
 * Cartesian is decided here by that definition over every process's lists
 * as the new communicator reports them; the library must say the same
 * (--no-expect-detect: Cartesian graphs need not be detected).
 *
 * Detected or not, the six [core] collectives must keep the MPI standard's
 * neighbourhood meaning of the graph: send block i goes to D[i], receive
 * block j comes from S[j], in the caller's own (shuffled) orders, the k-th
 * edge u->v in u's destinations meets the k-th occurrence of u in v's
 * sources (repeated vectors; -1 and +1 on periodic dimensions of size 1 and
 * 2 reach the same process), and blocks of MPI_PROC_NULL neighbours stay
 * untouched.  Oracle, from first principles (never MPI_Neighbor_*,
 * graphcheck.c): every process knows the whole graph; receive block j at v
 * (from u = S[j], its k-th occurrence) must hold u's send block at the index
 * of u's k-th edge to v.  Buffers are compared int by int (receive blocks,
 * gaps and sentinels, the send buffer unchanged).
 *
 * Whether the library detected it: Cart_schedule_stats(graph, CART_ALLTOALL,
 * CART_ALGORITHM_DIRECT) returns MPI_SUCCESS on a detected graph and
 * MPI_ERR_TOPOLOGY (MPI_ERRORS_RETURN on the graph) on one that is not,
 * checked before and after the collectives and equal on every process.
 *
 * Cases (the list depends only on the number of processes):
 *   tori: comm_old a dup of MPI_COMM_WORLD named by Cart_name row-major or
 *     column-major, or an MPI_Cart_create communicator, every dimension
 *     periodic; d = 1, 2, 3 with dims from MPI_Dims_create and shapes with
 *     size-1 dimensions ({1,p}, {p,1}, {1,a,b}, {a,1,b}; size-2 ones where p
 *     is even); stencils Moore radius 1 and von Neumann radius 1 (with and
 *     without the zero vector = self-edge, Cart_stencil), von Neumann with
 *     the zero vector and +e_0 repeated, an arbitrary list ((2,-1), (0,3),
 *     ...); neighbour ranks from Cart_allranks_relative (+offset for
 *     destinations, -offset for sources, cross-checked against the sources
 *     derived from every process's destinations); destinations and sources
 *     shuffled independently per process; made by
 *     Cart_dist_graph_create_adjacent or by Cart_dist_graph_create with the
 *     edges given by a process other than their source; the creation's info
 *     cycles cartcoll_algorithm / cartcoll_executor; comm_old is freed right
 *     after the creation; an MPI_Comm_dup of the graph is used too.
 *   meshes: non-periodic and partly periodic grids, the same stencils and
 *     +e_k alone (t = 1: processes at the border have no neighbour), Moore
 *     radius 2; off-grid neighbours omitted, listed as MPI_PROC_NULL (as
 *     codes that pass MPI_Cart_shift results do), or each omitted or
 *     MPI_PROC_NULL at random (MPI_PROC_NULL only with
 *     Cart_dist_graph_create_adjacent: in MPI_Dist_graph_create MPICH 4.0.2
 *     aborts on it and Open MPI 4.1.4 builds another graph); reorder = 1 on
 *     a named comm_old.
 *   unnamed comm_old, ranks laid out by hand: row-major MPI_Dims_create
 *     grids, d = 1, 2, 3, periodic and not, some with MPI_PROC_NULL, some
 *     with reorder = 1; also shapes MPI_Dims_create does not give, and a
 *     column-major layout (whichever the definition says).
 *   tori with extra MPI_PROC_NULL entries on one process (still Cartesian).
 *   negative: one process with another stencil; one process of a mesh
 *     omitting an on-grid neighbour; a random multigraph; the graph of a
 *     column-major naming on a row-major comm_old.
 * Forms: blocking, Cart_iX + Cart_wait (or a Cart_test loop), Cart_X_init
 * (info cycling algorithm/executor) + 3 Cart_start with new contents +
 * Cart_request_free; regular, v and w variants (v/w block sizes per edge,
 * equal on both ends); MPI_INT and strided vectors (send and receive types
 * differing with equal signatures); 0, 1 or 5 elements per block.
 *
 * With CARTCOLL_VERBOSE=1 in the environment, the library's line about
 * the creation (stderr, captured into a file around the call) is checked
 * too: exactly one, on the graph's rank 0, "Cartesian (...): <grid>" when
 * detected, else "not Cartesian...: <reason>".
 *
 * Options: --seed S, --first C, --cases N (a slice of the case list),
 * --verbose, --positive-only (for the CARTCOLL_ALGORITHM runs),
 * --no-expect-detect (Cartesian graphs need not be detected),
 * --break-oracle (match the LAST occurrence of a repeated edge instead of
 * the k-th: the run passes only if the test then finds mismatches). */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno */
#include "graphcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int opt_first = 0, opt_cases = -1; /* opt_seed, opt_verbose, opt_break: graphcheck.c */
static int opt_positive_only = 0, opt_expect_detect = 1;
static int check_verbose = 0; /* CARTCOLL_VERBOSE=1: the creation's line */

/* ---- the library's verbose line (stderr captured around the creation) ---- */

typedef struct {
    int saved;
    FILE *file;
} capture_t;

static void capture_start(capture_t *c)
{
    c->saved = -1;
    c->file = NULL;
    if (!check_verbose) return;
    fflush(stderr);
    c->file = tmpfile();
    c->saved = c->file ? dup(2) : -1;
    if (c->saved < 0 || dup2(fileno(c->file), 2) < 0) MT_CHECK(0, "could not capture stderr");
}

/* The lines about the creation that the library wrote (at most 2 kept). */
static int capture_end(capture_t *c, char lines[2][512])
{
    int n = 0;
    char buf[512];
    if (!c->file) return 0;
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    rewind(c->file);
    while (fgets(buf, sizeof buf, c->file)) {
        if (strncmp(buf, "cartcoll: Cart_dist_graph_create", 32) != 0) {
            fputs(buf, stderr); /* not ours: pass it on */
            continue;
        }
        if (n < 2) snprintf(lines[n], 512, "%s", buf);
        n++;
    }
    fclose(c->file);
    return n;
}


/* ---- the cases ------------------------------------------------------------------ */

enum { K_ROW, K_COL, K_MPICART, K_UNNAMED, NKINDS }; /* how comm_old is named */
static const char *const kind_name[NKINDS] = { "dup of MPI_COMM_WORLD named CART_ROW_MAJOR",
                                               "dup of MPI_COMM_WORLD named CART_COL_MAJOR", "MPI_Cart_create",
                                               "unnamed dup of MPI_COMM_WORLD" };
enum { ST_MOORE, ST_MOORE0, ST_VN, ST_VN0, ST_REPEAT, ST_LIST, ST_ONE, ST_MOORE2, NSTENCILS };
static const char *const stencil_name[NSTENCILS] = {
    "Moore radius 1",        "Moore radius 1 with the zero vector",
    "von Neumann radius 1",  "von Neumann radius 1 with the zero vector",
    "von Neumann radius 1, zero vector x3, +e_0 x2", "arbitrary offsets",
    "+e_k alone (the largest dimension)", "Moore radius 2"
};
enum { NEG_NONE, NEG_ODD, NEG_HOLE, NEG_RANDOM, NEG_WRONGNAME, NEG_EXTRANULL, NNEG };
static const char *const neg_name[NNEG] = { "positive",
                                            "negative: one process with another stencil",
                                            "negative: one process of a mesh omits an on-grid neighbour",
                                            "negative: random multigraph",
                                            "graph of a column-major layout on a row-major comm_old",
                                            "positive: one process lists extra MPI_PROC_NULL neighbours" };
enum { N_OMIT, N_PROCNULL, N_MIXED, NNULLS };
static const char *const nulls_name[NNULLS] = { "off-grid neighbours omitted", "off-grid neighbours MPI_PROC_NULL",
                                                "off-grid neighbours omitted or MPI_PROC_NULL at random" };
enum { M_ADJACENT, M_CREATE };
static const char *const method_name[2] = { "Cart_dist_graph_create_adjacent", "Cart_dist_graph_create" };

typedef struct {
    int d, dims[3], periods[3], kind, colgraph, stencil, neg, method, nulls, reorder;
} spec_t;

static spec_t case_list[256];
static int ncases;

static spec_t *add_case(int d, const int dims[], int kind, int stencil, int neg, int method)
{
    spec_t *s = &case_list[ncases++];
    memset(s, 0, sizeof *s);
    s->d = d;
    for (int k = 0; k < d; k++) {
        s->dims[k] = dims[k];
        s->periods[k] = 1;
    }
    s->kind = kind;
    s->stencil = stencil;
    s->neg = neg;
    s->method = method;
    return s;
}

static void set_periods(spec_t *s, int pattern) /* 0: none, 1: all, 2: dimension 0 only */
{
    for (int k = 0; k < s->d; k++) s->periods[k] = pattern == 1 || (pattern == 2 && k == 0);
}

/* Shapes: d = 1; MPI_Dims_create for d = 2, 3; size-1 dimensions in every
 * position ({1,p}, {p,1}, {1,a,b}, {a,1,b}). */
static void build_case_list(int p)
{
    int dc2[2] = { 0, 0 }, dc3[3] = { 0, 0, 0 };
    MPI_Dims_create(p, 2, dc2);
    MPI_Dims_create(p, 3, dc3);
    const int shapes[7][4] = { { 1, p, 0, 0 },          { 2, dc2[0], dc2[1], 0 }, { 2, 1, p, 0 },
                               { 2, p, 1, 0 },          { 3, dc3[0], dc3[1], dc3[2] }, { 3, 1, dc2[0], dc2[1] },
                               { 3, dc2[0], 1, dc2[1] } };
    /* tori, every stencil of the first six on every shape */
    for (int s = 0; s < 7; s++)
        for (int st = 0; st <= ST_LIST; st++)
            add_case(shapes[s][0], shapes[s] + 1, (st + s) % 3, st, NEG_NONE, (st + s + s / 3) % 2);
    /* meshes on named comm_old: non-periodic, or periodic in dimension 0 */
    const int meshshape[4] = { 0, 1, 4, 5 };
    const int meshst[6] = { ST_MOORE, ST_VN0, ST_REPEAT, ST_LIST, ST_ONE, ST_MOORE2 };
    for (int x = 0; x < 4; x++)
        for (int y = 0; y < 6; y++) {
            int s = meshshape[x], st = meshst[y];
            if (st == ST_MOORE2 && shapes[s][0] == 3) continue; /* 124 neighbours: enough in 2-D */
            spec_t *c = add_case(shapes[s][0], shapes[s] + 1, (x + y) % 3, st, NEG_NONE, (x + y + x / 2) % 2);
            set_periods(c, shapes[s][0] > 1 && (x + y) % 3 == 2 ? 2 : 0);
            c->nulls = (x + 2 * y) % NNULLS;
            c->reorder = (x + y) % 5 == 4;
        }
    /* unnamed comm_old, ranks laid out by hand on row-major MPI_Dims_create grids */
    const int unst[4] = { ST_MOORE, ST_VN0, ST_LIST, ST_REPEAT };
    for (int d = 1; d <= 3; d++)
        for (int per = 1; per >= 0; per--)
            for (int y = 0; y < 2; y++) {
                const int *sh = d == 1 ? shapes[0] : d == 2 ? shapes[1] : shapes[4];
                int st = unst[(d + per + 2 * y) % 4];
                spec_t *c = add_case(d, sh + 1, K_UNNAMED, st, NEG_NONE, (d + y) % 2);
                set_periods(c, per);
                c->nulls = per ? N_OMIT : (d + y) % NNULLS;
                c->reorder = y == 1;
            }
    /* unnamed comm_old, other layouts: shapes with size-1 dimensions, column-major */
    for (int x = 0; x < 3; x++) {
        const int sh[3] = { 2, 5, 6 };
        spec_t *c =
            add_case(shapes[sh[x]][0], shapes[sh[x]] + 1, K_UNNAMED, x == 1 ? ST_VN0 : ST_MOORE, NEG_NONE, x % 2);
        set_periods(c, x != 2);
        c = add_case(shapes[x ? 4 : 1][0], shapes[x ? 4 : 1] + 1, K_UNNAMED, ST_MOORE, NEG_WRONGNAME, x % 2);
        c->colgraph = 1;
        set_periods(c, x % 2);
    }
    /* named comm_old, reorder = 1 on a torus */
    for (int x = 0; x < 2; x++) {
        spec_t *c = add_case(shapes[x ? 4 : 1][0], shapes[x ? 4 : 1] + 1, x ? K_MPICART : K_ROW, ST_MOORE, NEG_NONE, x);
        c->reorder = 1;
    }
    /* the others */
    const int negshape[3] = { 0, 1, 4 };
    const int negstencil[NNEG] = { 0, ST_MOORE, ST_VN0, ST_MOORE, ST_LIST, ST_VN };
    for (int x = 0; x < 3; x++) {
        int s = negshape[x];
        for (int neg = 1; neg < NNEG; neg++) {
            spec_t *c = add_case(shapes[s][0], shapes[s] + 1, neg == NEG_WRONGNAME ? K_ROW : (neg + x) % 3,
                                 negstencil[neg], neg, (neg + x) % 2);
            if (neg == NEG_HOLE) set_periods(c, 0);
            if (neg == NEG_WRONGNAME) c->colgraph = 1;
            if (neg == NEG_EXTRANULL) c->method = M_ADJACENT;
        }
    }
}

/* ---- namings from first principles (for the definition of Cartesian) ------------ */

enum { DMAX = 8 };
typedef struct {
    int d, dims[DMAX], periods[DMAX], colmajor;
} naming_t;

static void nm_coords(const naming_t *n, int r, int c[])
{
    for (int i = n->d - 1; i >= 0; i--) {
        int k = n->colmajor ? n->d - 1 - i : i;
        c[k] = r % n->dims[k];
        r /= n->dims[k];
    }
}

static int nm_rank(const naming_t *n, const int c[])
{
    int rank = 0;
    for (int i = 0; i < n->d; i++) {
        int k = n->colmajor ? n->d - 1 - i : i;
        rank = rank * n->dims[k] + c[k];
    }
    return rank;
}

/* Rank at coords(r) + off: wraps on periodic dimensions, MPI_PROC_NULL off
 * a non-periodic one. */
static int nm_shift(const naming_t *n, int r, const int off[])
{
    int c[DMAX];
    nm_coords(n, r, c);
    for (int k = 0; k < n->d; k++) {
        long x = (long)c[k] + off[k];
        if (n->periods[k]) x = ((x % n->dims[k]) + n->dims[k]) % n->dims[k];
        else if (x < 0 || x >= n->dims[k]) return MPI_PROC_NULL;
        c[k] = (int)x;
    }
    return nm_rank(n, c);
}

/* The offset from u to v: in [0, size) on periodic dimensions, the plain
 * difference on the others. */
static void nm_offset(const naming_t *n, int u, int v, int o[])
{
    int cu[DMAX], cv[DMAX];
    nm_coords(n, u, cu);
    nm_coords(n, v, cv);
    for (int k = 0; k < n->d; k++) {
        o[k] = cv[k] - cu[k];
        if (n->periods[k]) o[k] = ((o[k] % n->dims[k]) + n->dims[k]) % n->dims[k];
    }
}

/* Whether coords(u) + s*o lies on the grid. */
static int nm_inside(const naming_t *n, int u, const int o[], int s)
{
    int c[DMAX];
    nm_coords(n, u, c);
    for (int k = 0; k < n->d; k++)
        if (!n->periods[k] && (c[k] + s * o[k] < 0 || c[k] + s * o[k] >= n->dims[k])) return 0;
    return 1;
}

static int is_rank(const view_t *w, int r) { return r >= 0 && r < w->p; }

/* The definition (see the top): Cartesian on naming n, in the graph's own
 * ranks. */
static int cartesian_on(const view_t *w, const naming_t *n)
{
    int d = n->d, cap = 0;
    for (int u = 0; u < w->p; u++) cap += w->nout[u];
    int *so = malloc(sizeof(int) * (size_t)(cap * d + 1)), *mult = calloc((size_t)cap + 1, sizeof(int));
    int *cnt = calloc((size_t)cap + 1, sizeof(int)), ns = 0, o[DMAX], yes = 1;
    /* S: every offset with the largest multiplicity of any process */
    for (int u = 0; u < w->p; u++) {
        memset(cnt, 0, sizeof(int) * (size_t)(cap + 1));
        for (int i = 0; i < w->nout[u]; i++) {
            if (!is_rank(w, w->D[u][i])) continue;
            nm_offset(n, u, w->D[u][i], o);
            int j = 0;
            while (j < ns && memcmp(so + j * d, o, sizeof(int) * (size_t)d)) j++;
            if (j == ns) memcpy(so + ns++ * d, o, sizeof(int) * (size_t)d);
            if (++cnt[j] > mult[j]) mult[j] = cnt[j];
        }
    }
    /* every process's lists: S restricted to the grid */
    for (int u = 0; u < w->p && yes; u++)
        for (int side = 0; side < 2 && yes; side++) {
            int len = side ? w->nin[u] : w->nout[u], *list = side ? w->S[u] : w->D[u];
            memset(cnt, 0, sizeof(int) * (size_t)(cap + 1));
            for (int i = 0; i < len && yes; i++) {
                if (!is_rank(w, list[i])) continue;
                if (side) nm_offset(n, list[i], u, o);
                else nm_offset(n, u, list[i], o);
                int j = 0;
                while (j < ns && memcmp(so + j * d, o, sizeof(int) * (size_t)d)) j++;
                if (j == ns) yes = 0;
                else cnt[j]++;
            }
            for (int j = 0; j < ns && yes; j++)
                yes = cnt[j] == (nm_inside(n, u, so + j * d, side ? -1 : 1) ? mult[j] : 0);
        }
    free(so);
    free(mult);
    free(cnt);
    return yes;
}

/* Named comm_old: on its naming, and the graph keeps comm_old's ranks.
 * Unnamed: on some row-major MPI_Dims_create(p, d) grid, d = 1..8, all
 * periodic or all not. */
static int is_cartesian(const view_t *w, const naming_t *n)
{
    if (n) {
        for (int u = 0; u < w->p; u++)
            if (w->old[u] != u) return 0;
        return cartesian_on(w, n);
    }
    for (int d = 1; d <= DMAX; d++)
        for (int per = 1; per >= 0; per--) {
            naming_t g = { d, { 0 }, { 0 }, 0 };
            MPI_Dims_create(w->p, d, g.dims);
            for (int k = 0; k < d; k++) g.periods[k] = per;
            if (cartesian_on(w, &g)) return 1;
        }
    return 0;
}

/* ---- offsets ------------------------------------------------------------------- */

/* The offsets of stencil st in d dimensions (at most 32 vectors; 24 for
 * Moore radius 2 in 2-D). */
static int stencil_offsets(int st, int d, const int dims[], int off[])
{
    int t = 0, rc = MPI_SUCCESS;
    switch (st) {
    case ST_MOORE: rc = Cart_stencil(d, CART_CHEBYSHEV, 1, 1, 32, off); break;
    case ST_MOORE0: rc = Cart_stencil(d, CART_CHEBYSHEV, 0, 1, 32, off); break;
    case ST_VN: rc = Cart_stencil(d, CART_MANHATTAN, 1, 1, 32, off); break;
    case ST_VN0:
    case ST_REPEAT: rc = Cart_stencil(d, CART_MANHATTAN, 0, 1, 32, off); break;
    case ST_MOORE2: rc = Cart_stencil(d, CART_CHEBYSHEV, 1, 2, 32, off); break;
    default: break;
    }
    MT_EQ(rc, MPI_SUCCESS, "Cart_stencil");
    int cnt = 0, metric = st == ST_MOORE || st == ST_MOORE0 || st == ST_MOORE2 ? CART_CHEBYSHEV : CART_MANHATTAN;
    int shadow = st == ST_MOORE || st == ST_VN || st == ST_MOORE2 ? 1 : 0;
    if (st != ST_LIST && st != ST_ONE) {
        MT_EQ(Cart_stencil_count(d, metric, shadow, st == ST_MOORE2 ? 2 : 1, &cnt), MPI_SUCCESS,
              "Cart_stencil_count");
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
    } else if (st == ST_ONE) {
        int big = 0;
        for (int k = 1; k < d; k++)
            if (dims[k] > dims[big]) big = k;
        for (int k = 0; k < d; k++) off[k] = k == big;
        t = 1;
    }
    return t;
}

/* ---- one case ---------------------------------------------------------------------- */

static long tally_exp[2], tally_det[2]; /* [0] not Cartesian, [1] Cartesian */

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
                      int cap, const int *src, int nin, const int *mydst, const naming_t *oldn, int nlines,
                      char lines[2][512])
{
    int p = mt_size, me = mt_rank, named = sp->kind != K_UNNAMED;
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
    /* a named comm_old keeps its ranks (the library passes reorder = 0) */
    for (int u = 0; good && named && u < p; u++) {
        mt_checks++;
        if (w->old[u] != u) {
            failure("comm_old is named, yet graph rank %d is comm_old's rank %d (reorder = %d)", u, w->old[u],
                    sp->reorder);
            good = 0;
        }
    }
    if (good && sp->method == M_ADJACENT && (!sp->reorder || named) &&
        (w->nin[me] != nin || w->nout[me] != nout[me] || memcmp(w->S[me], src, sizeof(int) * (size_t)nin) ||
         memcmp(w->D[me], mydst, sizeof(int) * (size_t)nout[me]))) {
        failure("with the ranks kept, MPI_Dist_graph_neighbors does not return the lists given");
        good = 0;
    }
    MPI_Allreduce(&good, &ngood, 1, MPI_INT, MPI_MIN, g);
    if (!ngood) return;

    /* detection: the definition against what Cart_schedule_stats says */
    int cart = is_cartesian(w, named ? oldn : NULL);
    if (sp->neg == NEG_NONE || sp->neg == NEG_EXTRANULL)
        MT_CHECK(cart, "test defect: %s: the positive case's graph is not Cartesian", case_desc);
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    int det = detected(g, "after create"), dmin = 0, dmax = 0;
    MPI_Allreduce(&det, &dmin, 1, MPI_INT, MPI_MIN, g);
    MPI_Allreduce(&det, &dmax, 1, MPI_INT, MPI_MAX, g);
    mt_checks++;
    if (dmin != dmax) failure("processes disagree on detection: this one says %d (1 detected, 0 not)", det);
    mt_checks++;
    if (det >= 0 && det != cart && (!cart || opt_expect_detect))
        failure("detection: the graph is %sCartesian (%s), but Cart_schedule_stats says %s", cart ? "" : "not ",
                named ? "on comm_old's naming" : "on a row-major MPI_Dims_create grid",
                det ? "detected" : "not detected");
    if (me == 0) {
        tally_exp[cart]++;
        tally_det[cart] += det == 1;
    }
    if (check_verbose) { /* one line, on the graph's rank 0, saying the same */
        mt_checks++;
        if (nlines != (w->me == 0))
            failure("CARTCOLL_VERBOSE=1: graph rank %d printed %d lines about the creation%s%s", w->me, nlines,
                    nlines ? ", the first: " : "", nlines ? lines[0] : "");
        const char *tail = nlines == 1 ? strstr(lines[0], det ? ": Cartesian (" : ": not Cartesian") : NULL;
        const char *why = tail ? strrchr(tail + 2, ':') : NULL;
        mt_checks++;
        if (nlines == 1 && (!tail || !why || strlen(why) < 6))
            failure("CARTCOLL_VERBOSE=1: the line does not say %s with a reason or grid: %s",
                    det ? "Cartesian" : "not Cartesian", lines[0]);
        if (opt_verbose && nlines == 1) printf("  %s", lines[0]);
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

/* Whether an off-grid neighbour is listed as MPI_PROC_NULL (else omitted). */
static int keep_null(const spec_t *sp, uint64_t a, int b, int c)
{
    return sp->nulls == N_PROCNULL || (sp->nulls == N_MIXED && hsh(opt_seed ^ a, b, c, 5) % 2);
}

static void run_case(int cs)
{
    spec_t spec = case_list[cs];
    spec_t *sp = &spec;
    int p = mt_size, me = mt_rank, d = sp->d;
    mt_rng gr, lr;
    mt_seed(&gr, opt_seed, (uint64_t)cs);
    mt_seed(&lr, opt_seed, 1000000 + (uint64_t)cs * 64 + (uint64_t)me);
    int size = -1;
    /* MPI_PROC_NULL only in Cart_dist_graph_create_adjacent: MPICH 4.0.2
     * aborts on it in MPI_Dist_graph_create, Open MPI 4.1.4 accepts it but
     * builds another graph (edges to other ranks, sources lost) */
    if (sp->nulls != N_OMIT) sp->method = M_ADJACENT;
    cur_case = cs;
    cur_view = NULL;
    callno = 0;
    {
        char dl[40], pl[40];
        fmt_list(dl, sizeof dl, sp->dims, d);
        fmt_list(pl, sizeof pl, sp->periods, d);
        snprintf(case_desc, sizeof case_desc, "case %d (%s; %s by %s, create info %s/%s; comm_old %s, dims {%s}, "
                 "periods {%s}%s%s; %s; reorder %d)", cs, neg_name[sp->neg], stencil_name[sp->stencil],
                 method_name[sp->method], info_alg[cs % 5] ? info_alg[cs % 5] : "-",
                 info_exec[(cs / 5) % 4] ? info_exec[(cs / 5) % 4] : "-", kind_name[sp->kind], dl, pl,
                 sp->kind == K_UNNAMED ? ", ranks laid out " : "",
                 sp->kind == K_UNNAMED ? (sp->colgraph ? "column-major" : "row-major") : "", nulls_name[sp->nulls],
                 sp->reorder);
    }
    if (opt_verbose && me == 0) printf("%s\n", case_desc);

    /* comm_old, and nmc: the communicator whose naming makes the graph */
    MPI_Comm old = MPI_COMM_NULL, nmc = MPI_COMM_NULL;
    naming_t oldn = { d, { 1, 1, 1 }, { 0, 0, 0 }, sp->kind == K_COL }, gn;
    for (int k = 0; k < d; k++) {
        oldn.dims[k] = sp->dims[k];
        oldn.periods[k] = sp->periods[k];
    }
    int order = sp->kind == K_COL ? CART_COL_MAJOR : CART_ROW_MAJOR;
    if (sp->kind == K_MPICART) {
        MPI_Cart_create(MPI_COMM_WORLD, d, sp->dims, sp->periods, 0, &old);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, &old);
        if (sp->kind != K_UNNAMED) {
            MT_EQ(Cart_name(old, d, order, sp->dims, sp->periods, &size), MPI_SUCCESS, "Cart_name of comm_old");
            MT_EQ(size, p, "Cart_name's size");
        }
    }
    gn = oldn;
    if (sp->kind == K_UNNAMED || sp->colgraph) {
        order = sp->colgraph ? CART_COL_MAJOR : CART_ROW_MAJOR;
        gn.colmajor = sp->colgraph;
        MPI_Comm_dup(MPI_COMM_WORLD, &nmc);
        MT_EQ(Cart_name(nmc, d, order, sp->dims, sp->periods, &size), MPI_SUCCESS, "Cart_name of the helper");
    }
    MPI_Comm gcomm_naming = nmc != MPI_COMM_NULL ? nmc : old;

    /* every process's destinations (in comm_old's ranks, in stencil order) */
    int off[64 * 3], offodd[64 * 3], neg_off[64 * 3];
    int t = stencil_offsets(sp->stencil, d, sp->dims, off), todd = 0;
    int oddr = (int)(hsh(opt_seed, cs, 3, 3) % (uint64_t)p);
    if (sp->neg == NEG_ODD) todd = stencil_offsets(sp->stencil == ST_VN0 ? ST_MOORE : ST_VN0, d, sp->dims, offodd);
    int cap = 4 * p + 80;
    int *nout = calloc((size_t)p, sizeof(int)), *dst = calloc((size_t)(p * cap), sizeof(int));
    int *ranks = malloc(sizeof(int) * (size_t)cap);
    for (int u = 0; u < p; u++) {
        if (sp->neg == NEG_RANDOM) {
            nout[u] = mt_uniform(&gr, 0, 2 * p + 1);
            for (int i = 0; i < nout[u]; i++) dst[u * cap + i] = mt_uniform(&gr, 0, p - 1);
            continue;
        }
        const int *o = sp->neg == NEG_ODD && u == oddr ? offodd : off;
        int tu = sp->neg == NEG_ODD && u == oddr ? todd : t, dropped = 0;
        int rc = Cart_allranks_relative(gcomm_naming, u, tu, o, ranks);
        MT_EQ(rc, MPI_SUCCESS, "Cart_allranks_relative (destinations)");
        for (int i = 0; i < tu; i++) {
            int want = nm_shift(&gn, u, o + i * d);
            mt_checks++;
            if (rc == MPI_SUCCESS && ranks[i] != want)
                failure("Cart_allranks_relative(rank %d, offset #%d) = %d; the naming's formula gives %d", u, i,
                        ranks[i], want);
            if (sp->neg == NEG_HOLE && u == oddr && want != MPI_PROC_NULL && !dropped) {
                dropped = 1; /* the hole: this on-grid neighbour left out */
                continue;
            }
            if (want != MPI_PROC_NULL || keep_null(sp, 11, u, i)) dst[u * cap + nout[u]++] = want;
        }
        if (sp->neg == NEG_EXTRANULL && u == oddr) { /* two MPI_PROC_NULL more */
            dst[u * cap + nout[u]++] = MPI_PROC_NULL;
            dst[u * cap + nout[u]++] = MPI_PROC_NULL;
        }
    }
    /* my sources: derived from every process's destinations ... */
    int nin = 0, *src = malloc(sizeof(int) * (size_t)(p * cap + 1));
    for (int u = 0; u < p; u++)
        for (int i = 0; i < nout[u]; i++)
            if (dst[u * cap + i] == me) src[nin++] = u;
    /* ... and, for a stencil on every process, the mirror image (-offset),
     * with MPI_PROC_NULL for off-grid sources as the case says (only
     * Cart_dist_graph_create_adjacent takes sources) */
    if (sp->neg != NEG_RANDOM && sp->neg != NEG_ODD && sp->neg != NEG_HOLE) {
        for (int i = 0; i < t * d; i++) neg_off[i] = -off[i];
        int rc = Cart_allranks_relative(gcomm_naming, me, t, neg_off, ranks), n = 0, nnull = 0;
        MT_EQ(rc, MPI_SUCCESS, "Cart_allranks_relative (sources)");
        int *mirror = malloc(sizeof(int) * (size_t)(t + 1));
        for (int i = 0; i < t; i++) {
            if (ranks[i] != MPI_PROC_NULL) mirror[n++] = ranks[i];
            else nnull += sp->method == M_ADJACENT && keep_null(sp, 12 + (uint64_t)me, me, i);
        }
        mt_checks++;
        if (n != nin || !same_multiset(mirror, src, n)) {
            failure("the sources from -offset (%d of them) differ from those derived from every process's "
                    "destinations (%d)",
                    n, nin);
        } else {
            memcpy(src, mirror, sizeof(int) * (size_t)n); /* the -offset order, shuffled below */
            for (int i = 0; i < nnull; i++) src[nin++] = MPI_PROC_NULL;
        }
        free(mirror);
    }
    if (sp->neg == NEG_EXTRANULL && me == (oddr + 1) % p && sp->method == M_ADJACENT) src[nin++] = MPI_PROC_NULL;
    /* my own orders: destinations and sources shuffled independently */
    int *mydst = malloc(sizeof(int) * (size_t)(nout[me] + 1));
    memcpy(mydst, dst + me * cap, sizeof(int) * (size_t)nout[me]);
    shuffle(&lr, mydst, nout[me]);
    shuffle(&lr, src, nin);

    /* the graph; the creation's info sets algorithm / executor for a detected one */
    MPI_Info cinfo = mt_info(info_alg[cs % 5], info_exec[(cs / 5) % 4]);
    MPI_Comm g = MPI_COMM_NULL;
    int rc, nlines = 0;
    char lines[2][512];
    capture_t capt;
    capture_start(&capt);
    if (sp->method == M_ADJACENT) {
        rc = Cart_dist_graph_create_adjacent(old, nin, src, MPI_UNWEIGHTED, nout[me], mydst, MPI_UNWEIGHTED, cinfo,
                                             sp->reorder, &g);
    } else {
        /* every edge given by a process other than their source (p >= 2), in
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
                int spec_rank = p > 1 ? (u + 1 + (int)(hsh(0x5EC, cs, u, i) % (uint64_t)(p - 1))) % p : 0;
                if (spec_rank != me) continue;
                if (n == 0 || sources[n - 1] != u || mt_chance(&lr, 30)) {
                    sources[n] = u;
                    degrees[n++] = 0;
                }
                degrees[n - 1]++;
                dests[nd++] = dst[u * cap + i];
            }
        }
        rc = Cart_dist_graph_create(old, n, sources, degrees, dests, MPI_UNWEIGHTED, cinfo, sp->reorder, &g);
        free(sources);
        free(degrees);
        free(dests);
        free(uord);
    }
    nlines = capture_end(&capt, lines);
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
    if (allok) run_graph(sp, cs, g, &w, dst, nout, cap, src, nin, mydst, &oldn, nlines, lines);

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
    const char *v = getenv("CARTCOLL_VERBOSE");
    check_verbose = v && !strcmp(v, "1");
    make_types();
    build_case_list(mt_size);
    int last = opt_cases < 0 ? ncases : opt_first + opt_cases;
    if (last > ncases) last = ncases;
    double t0 = MPI_Wtime();
    int ran = 0;
    for (int cs = opt_first; cs < last; cs++) {
        if (opt_positive_only && case_list[cs].neg != NEG_NONE && case_list[cs].neg != NEG_EXTRANULL) continue;
        run_case(cs);
        ran++;
    }
    if (mt_rank == 0)
        printf("test_detect: %d cases in %.2f s; detected: %ld of %ld Cartesian graphs%s, %ld of %ld not Cartesian\n",
               ran, MPI_Wtime() - t0, tally_det[1], tally_exp[1],
               opt_expect_detect ? "" : " (--no-expect-detect: not required)", tally_det[0], tally_exp[0]);
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
