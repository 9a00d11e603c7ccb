/* Halo exchange with one matrix as send and receive buffer.
 *
 * Each process owns an n0 x n1 (x n2) tile of a global grid, stored with a
 * halo of width 1.  Cart_alltoallw (blocking, non-blocking, persistent with
 * two starts) moves the tile's border layers straight into the neighbours'
 * halos: in 2-D with row (contiguous), column (vector) and corner (double)
 * datatypes at byte displacements, in 3-D with subarray datatypes.  Every
 * algorithm x executor, on periodic, mesh and mixed grids, Moore and von
 * Neumann neighbourhoods (listed in a scrambled order), some with processes
 * outside the grid.
 *
 * Checked for every cell: an interior cell is unchanged; a halo cell on the
 * side -N of an offset N in the neighbourhood holds the global value of the
 * cell it mirrors (wrapping on periodic dimensions) or, where that lies off
 * the mesh, keeps its sentinel; every other halo cell keeps its sentinel.
 */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENT (-1.0)

typedef struct {
    const char *name;
    int d, periods[3], tile[3], moore, outside;
} config_t;

static const config_t configs[] = {
    { "2-D Moore periodic", 2, { 1, 1 }, { 5, 3 }, 1, 0 },
    { "2-D Moore mesh", 2, { 0, 0 }, { 4, 6 }, 1, 0 },
    { "2-D Moore mixed, one process outside", 2, { 1, 0 }, { 3, 4 }, 1, 1 },
    { "2-D von Neumann mesh", 2, { 0, 0 }, { 3, 3 }, 0, 0 },
    { "3-D Moore periodic", 3, { 1, 1, 1 }, { 3, 4, 2 }, 1, 0 },
    { "3-D Moore mesh", 3, { 0, 0, 0 }, { 2, 3, 3 }, 1, 0 },
    { "3-D Moore mixed", 3, { 0, 1, 1 }, { 3, 2, 4 }, 1, 1 },
    { "3-D von Neumann periodic", 3, { 1, 1, 1 }, { 2, 2, 3 }, 0, 0 },
};

typedef struct {
    const config_t *cf;
    int d, dims[3], t, targets[26 * 3];
    int ext[3]; /* tile + 2 */
    size_t cells;
    MPI_Comm cart;
    int me, coords[3];
    int counts[26];
    MPI_Aint sdisp[26], rdisp[26];
    MPI_Datatype stype[26], rtype[26];
    int ntypes;
    MPI_Datatype owned[64];
} halo_t;

static long n_exchanges, n_cells;

/* Offsets in {-1,0,1}^d without the zero vector (Moore) or with exactly one
 * non-zero coordinate (von Neumann), in a scrambled but fixed order. */
static int make_neighbourhood(int d, int moore, int out[])
{
    int t = 0, n = 1;
    for (int k = 0; k < d; k++) n *= 3;
    for (int j = 0; j < n; j++) {
        int x = (j * 7 + 3) % n, v[3], nz = 0; /* 7 is coprime with 9 and 27 */
        for (int k = d - 1; k >= 0; k--) {
            v[k] = x % 3 - 1;
            x /= 3;
            nz += v[k] != 0;
        }
        if (nz == 0 || (!moore && nz != 1)) continue;
        for (int k = 0; k < d; k++) out[t * d + k] = v[k];
        t++;
    }
    return t;
}

static double global_value(const halo_t *h, const int g[], int iter)
{
    double v = 0;
    for (int k = 0; k < h->d; k++) v = v * (h->dims[k] * h->cf->tile[k]) + g[k];
    return 1.0 + v + 1.0e6 * iter;
}

/* Region of the tile for direction component a: send (the border layer
 * facing a) or receive (the halo layer on the side a comes from). */
static void region(int a, int n, int send, int *start, int *size)
{
    if (a == 0) {
        *start = 1;
        *size = n;
    } else {
        *start = send ? (a > 0 ? n : 1) : (a > 0 ? 0 : n + 1);
        *size = 1;
    }
}

static MPI_Datatype keep(halo_t *h, MPI_Datatype t)
{
    MPI_Type_commit(&t);
    h->owned[h->ntypes++] = t;
    return t;
}

static void make_types(halo_t *h)
{
    h->ntypes = 0;
    if (h->d == 2) {
        int n0 = h->cf->tile[0], n1 = h->cf->tile[1], w = h->ext[1];
        MPI_Datatype row, col;
        MPI_Type_contiguous(n1, MPI_DOUBLE, &row);
        MPI_Type_vector(n0, 1, w, MPI_DOUBLE, &col);
        row = keep(h, row);
        col = keep(h, col);
        for (int i = 0; i < h->t; i++) {
            int a = h->targets[2 * i], b = h->targets[2 * i + 1], s0, s1, r0, r1, z;
            region(a, n0, 1, &s0, &z);
            region(b, n1, 1, &s1, &z);
            region(a, n0, 0, &r0, &z);
            region(b, n1, 0, &r1, &z);
            h->stype[i] = h->rtype[i] = a && b ? MPI_DOUBLE : a ? row : col;
            h->counts[i] = 1;
            h->sdisp[i] = (MPI_Aint)((size_t)s0 * (size_t)w + (size_t)s1) * (MPI_Aint)sizeof(double);
            h->rdisp[i] = (MPI_Aint)((size_t)r0 * (size_t)w + (size_t)r1) * (MPI_Aint)sizeof(double);
        }
    } else {
        for (int i = 0; i < h->t; i++) {
            int ss[3], sz[3], rs[3], rz[3];
            for (int k = 0; k < 3; k++) {
                region(h->targets[3 * i + k], h->cf->tile[k], 1, &ss[k], &sz[k]);
                region(h->targets[3 * i + k], h->cf->tile[k], 0, &rs[k], &rz[k]);
            }
            MPI_Datatype st, rt;
            MPI_Type_create_subarray(3, h->ext, sz, ss, MPI_ORDER_C, MPI_DOUBLE, &st);
            MPI_Type_create_subarray(3, h->ext, rz, rs, MPI_ORDER_C, MPI_DOUBLE, &rt);
            h->stype[i] = keep(h, st);
            h->rtype[i] = keep(h, rt);
            h->counts[i] = 1;
            h->sdisp[i] = h->rdisp[i] = 0;
        }
    }
}

static void fill(const halo_t *h, double *m, int iter)
{
    int c[3] = { 0, 0, 0 };
    for (size_t i = 0; i < h->cells; i++) {
        size_t x = i; /* row-major index -> cell coordinates */
        int interior = 1, g[3];
        for (int k = h->d - 1; k >= 0; k--) {
            c[k] = (int)(x % (size_t)h->ext[k]);
            x /= (size_t)h->ext[k];
            interior &= c[k] >= 1 && c[k] <= h->cf->tile[k];
            g[k] = h->coords[k] * h->cf->tile[k] + c[k] - 1;
        }
        m[i] = interior ? global_value(h, g, iter) : SENT;
    }
}

static int in_neighbourhood(const halo_t *h, const int v[])
{
    for (int i = 0; i < h->t; i++) {
        int same = 1;
        for (int k = 0; k < h->d; k++) same &= h->targets[i * h->d + k] == v[k];
        if (same) return 1;
    }
    return 0;
}

static void check(const halo_t *h, const double *m, int iter, const char *what)
{
    long bad = 0;
    for (size_t i = 0; i < h->cells; i++) {
        size_t x = i;
        int c[3], side[3], g[3], interior = 1, offmesh = 0, neg[3];
        for (int k = h->d - 1; k >= 0; k--) {
            c[k] = (int)(x % (size_t)h->ext[k]);
            x /= (size_t)h->ext[k];
            side[k] = c[k] == 0 ? -1 : c[k] == h->cf->tile[k] + 1 ? 1 : 0;
            interior &= side[k] == 0;
            int G = h->dims[k] * h->cf->tile[k];
            g[k] = h->coords[k] * h->cf->tile[k] + c[k] - 1;
            if (g[k] < 0 || g[k] >= G) {
                if (h->cf->periods[k]) g[k] = (g[k] + G) % G;
                else offmesh = 1;
            }
            neg[k] = -side[k];
        }
        double want;
        if (interior) want = global_value(h, g, iter);
        /* The halo on side s is filled by the block with offset N = -s. */
        else if (!in_neighbourhood(h, neg) || offmesh) want = SENT;
        else want = global_value(h, g, iter);
        n_cells++;
        if (m[i] != want && bad++ < 3)
            mt_fail(__FILE__, __LINE__, "%s, %s: cell (%d,%d,%d) of process %d at (%d,%d,%d) is %.1f, expected %.1f",
                    h->cf->name, what, c[0], c[1], h->d > 2 ? c[2] : 0, h->me, h->coords[0], h->coords[1],
                    h->d > 2 ? h->coords[2] : 0, m[i], want);
    }
    mt_checks++;
    if (bad) mt_failures += bad > 3 ? bad - 3 : 0;
}

static void run_config(const config_t *cf)
{
    halo_t h;
    memset(&h, 0, sizeof h);
    h.cf = cf;
    h.d = cf->d;
    int p = mt_size - (cf->outside && mt_size > 2 ? 1 : 0);
    for (int k = 0; k < 3; k++) h.dims[k] = 0;
    MPI_Dims_create(p, h.d, h.dims);
    h.t = make_neighbourhood(h.d, cf->moore, h.targets);
    h.cells = 1;
    for (int k = 0; k < h.d; k++) {
        h.ext[k] = cf->tile[k] + 2;
        h.cells *= (size_t)h.ext[k];
    }
    double *m = malloc(sizeof(double) * h.cells);

    for (int combo = 0; combo < 12; combo++) {
        int alg = combo / 3, exec = combo % 3;
        MPI_Info info = mt_info(mt_alg_name[alg], mt_exec_name[exec]);
        int rc = Cart_neighborhood_create(MPI_COMM_WORLD, h.d, h.dims, cf->periods, h.t, h.targets, MPI_UNWEIGHTED,
                                          info, 0, &h.cart);
        mt_info_free(&info);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_neighborhood_create failed (%d)", cf->name, rc);
        if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
        if (h.cart == MPI_COMM_NULL) continue;
        MPI_Comm_rank(h.cart, &h.me);
        mt_coords(h.me, h.d, h.dims, h.coords);
        make_types(&h);
        char what[160];

        /* blocking, communicator default algorithm/executor */
        fill(&h, m, 0);
        rc = Cart_alltoallw(m, h.counts, h.sdisp, h.stype, m, h.counts, h.rdisp, h.rtype, h.cart);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_alltoallw failed (%d)", cf->name, rc);
        snprintf(what, sizeof what, "blocking, create info %s/%s", mt_alg_name[alg], mt_exec_name[exec]);
        check(&h, m, 0, what);
        n_exchanges++;

        /* non-blocking */
        Cart_request req = CART_REQUEST_NULL;
        fill(&h, m, 1);
        rc = Cart_ialltoallw(m, h.counts, h.sdisp, h.stype, m, h.counts, h.rdisp, h.rtype, h.cart, &req);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_ialltoallw failed (%d)", cf->name, rc);
        rc = Cart_wait(&req);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_wait failed (%d)", cf->name, rc);
        snprintf(what, sizeof what, "non-blocking, create info %s/%s", mt_alg_name[alg], mt_exec_name[exec]);
        check(&h, m, 1, what);
        n_exchanges++;

        /* persistent, another combination forced on the *_init call */
        int pc = (combo + 5) % 12, palg = pc / 3, pexec = pc % 3;
        info = mt_info(mt_alg_name[palg], mt_exec_name[pexec]);
        rc = Cart_alltoallw_init(m, h.counts, h.sdisp, h.stype, m, h.counts, h.rdisp, h.rtype, h.cart, info, &req);
        mt_info_free(&info);
        MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_alltoallw_init failed (%d)", cf->name, rc);
        for (int it = 2; it < 4; it++) {
            fill(&h, m, it);
            rc = Cart_start(&req);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_start failed (%d)", cf->name, rc);
            rc = Cart_wait(&req);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_wait failed (%d)", cf->name, rc);
            snprintf(what, sizeof what, "persistent start %d, init info %s/%s", it - 1, mt_alg_name[palg],
                     mt_exec_name[pexec]);
            check(&h, m, it, what);
            n_exchanges++;
        }
        Cart_request_free(&req);
        for (int i = 0; i < h.ntypes; i++) MPI_Type_free(&h.owned[i]);
        MPI_Comm_free(&h.cart);
    }
    free(m);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_halo");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int only = argc > 1 ? atoi(argv[1]) : -1; /* run one configuration */
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        if (only < 0 || (size_t)only == i) run_config(&configs[i]);
    long mine[2] = { n_exchanges, n_cells }, mx[2];
    MPI_Reduce(mine, mx, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!mt_rank) printf("test_halo: %ld exchanges, %ld cells checked on the busiest process\n", mx[0], mx[1]);
    return mt_finish();
}
