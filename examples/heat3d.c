/* heat3d: steady-state heat in a 3-D block by Jacobi iteration with the
 * 27-point stencil, halo exchange by a persistent Cart_alltoallw whose 26
 * blocks are faces, edges and corners of the tile described by datatypes.
 *
 * As heat2d, one dimension up: n x n x n tiles on a non-periodic process
 * grid, stored with a halo of depth 1 in (n+2)^3 row-major arrays.  Halo
 * cells on the surface of the block hold the boundary temperature (1 on the
 * face x = 0, i.e. global first index -1, and 0 elsewhere) and are never
 * written.  The neighbourhood is the 26 offsets of Cart_stencil(3,
 * CART_CHEBYSHEV, 1, 1); offset (a, b, c) exchanges a face (one non-zero
 * coordinate), an edge (two) or a corner (three).  Each shape is one
 * MPI_Type_create_subarray (the corner: MPI_DOUBLE) placed by byte
 * displacements.
 *
 * Check: every process runs the same Jacobi iteration serially on the whole
 * block and compares its own tile and the iteration count (no extra
 * communication; one MPI_Allreduce gives the verdict).  A wrong value makes
 * the program print FAIL and exit with status 1.
 *
 *   mpirun -n 4 heat3d [-n tile] [-i max_iterations] [-e tolerance]
 *                      [--mpi] [--no-check] [--inject-fault]
 *
 * --mpi, --no-check and --inject-fault as for heat2d (the fault swaps the
 * offsets (0,0,1) and (1,0,0) in the neighbourhood given to
 * Cart_neighborhood_create).
 */
#include <cartcoll.h>

#include "exchange.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 27-point Jacobi update of the cell at a (planes p apart, rows w):
 * faces weigh 14, edges 3, corners 1 (sum 128). */
static double update27(const double *a, int w, int p)
{
    double f = a[-1] + a[1] + a[-w] + a[w] + a[-p] + a[p];
    double e = a[-w - 1] + a[-w + 1] + a[w - 1] + a[w + 1] + a[-p - 1] + a[-p + 1] + a[p - 1] + a[p + 1] + a[-p - w] +
               a[-p + w] + a[p - w] + a[p + w];
    double c = a[-p - w - 1] + a[-p - w + 1] + a[-p + w - 1] + a[-p + w + 1] + a[p - w - 1] + a[p - w + 1] +
               a[p + w - 1] + a[p + w + 1];
    return (14.0 * f + 3.0 * e + c) / 128.0;
}

static double boundary(int gi, int gj, int gk)
{
    (void)gj;
    (void)gk;
    return gi < 0 ? 1.0 : 0.0;
}

/* One sweep over the interior 1..n0 x 1..n1 x 1..n2 of a ((n1+2) rows of
 * (n2+2)) into b; returns the largest change. */
static double sweep(const double *a, double *b, int n0, int n1, int n2)
{
    int w = n2 + 2, p = (n1 + 2) * w;
    double diff = 0.0;
    for (int i = 1; i <= n0; i++)
        for (int j = 1; j <= n1; j++)
            for (int k = 1; k <= n2; k++) {
                size_t x = (size_t)i * p + (size_t)j * w + k;
                double y = update27(a + x, w, p), d = fabs(y - a[x]);
                b[x] = y;
                if (d > diff) diff = d;
            }
    return diff;
}

/* Array of (G0+2) x (G1+2) x (G2+2) with the boundary set; interior 0. */
static double *block(int G0, int G1, int G2, int o0, int o1, int o2, int E0, int E1, int E2)
{
    size_t cells = (size_t)(G0 + 2) * (size_t)(G1 + 2) * (size_t)(G2 + 2);
    double *a = calloc(cells, sizeof(double));
    if (!a) return NULL;
    for (int i = 0; i < G0 + 2; i++)
        for (int j = 0; j < G1 + 2; j++)
            for (int k = 0; k < G2 + 2; k++) {
                /* global coordinates of this cell; (E0, E1, E2) the global size */
                int gi = o0 + i - 1, gj = o1 + j - 1, gk = o2 + k - 1;
                if (gi < 0 || gj < 0 || gk < 0 || gi >= E0 || gj >= E1 || gk >= E2)
                    a[((size_t)i * (G1 + 2) + j) * (G2 + 2) + k] = boundary(gi, gj, gk);
            }
    return a;
}

static double *serial(int G0, int G1, int G2, int maxit, double tol, int *iters)
{
    double *a = block(G0, G1, G2, 0, 0, 0, G0, G1, G2), *b = block(G0, G1, G2, 0, 0, 0, G0, G1, G2);
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    int it = 0;
    while (it < maxit) {
        double diff = sweep(a, b, G0, G1, G2);
        double *t = a;
        a = b;
        b = t;
        it++;
        if (diff < tol) break;
    }
    free(b);
    *iters = it;
    return a;
}

static int usage(int rank)
{
    if (!rank)
        fprintf(stderr, "usage: heat3d [-n tile >= 1] [-i max_iterations >= 1] [-e tolerance > 0] [--mpi] "
                        "[--no-check] [--inject-fault]\n");
    return 2;
}

/* What the steps of main share: the options, the process grid, the blocks
 * of the exchange and the iteration's arrays and outcome. */
typedef struct heat {
    int n, maxit, use_mpi, check, fault; /* the options */
    double tol;
    int size, me, dims[3], coords[3]; /* this process's tile on the mesh */
    int G0, G1, G2, w;                /* the block; the array row length */
    MPI_Comm cart;
    int t, *target, *weight; /* the neighbourhood (as it truly is) */
    int *count;              /* block i of the exchange */
    MPI_Aint *sdisp, *rdisp;
    MPI_Datatype shape[8], *type;
    exchange halo;
    double *u[2], diff, times[2]; /* the arrays, last change, times */
    int it, cur;                  /* iterations done, current array */
} heat;

/* The command line into h; 1 when it is valid. */
static int options(heat *h, int argc, char **argv)
{
    h->n = 12, h->maxit = 200, h->use_mpi = 0, h->check = 1, h->fault = 0;
    h->tol = 1e-4;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-n") && a + 1 < argc)
            h->n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-i") && a + 1 < argc)
            h->maxit = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-e") && a + 1 < argc)
            h->tol = atof(argv[++a]);
        else if (!strcmp(argv[a], "--mpi"))
            h->use_mpi = 1;
        else if (!strcmp(argv[a], "--no-check"))
            h->check = 0;
        else if (!strcmp(argv[a], "--inject-fault"))
            h->fault = 1;
        else
            h->n = -1;
    }
    return h->n >= 1 && h->maxit >= 1 && h->tol > 0;
}

/* --inject-fault: swap (0,0,1) and (1,0,0) of the t offsets in given. */
static void swap_faces(int t, const int *target, int *given)
{
    int a = -1, b = -1;
    for (int i = 0; i < t; i++) {
        const int *v = target + 3 * i;
        if (!v[0] && !v[1] && v[2] == 1) a = i;
        if (v[0] == 1 && !v[1] && !v[2]) b = i;
    }
    memcpy(given + 3 * a, target + 3 * b, 3 * sizeof(int));
    memcpy(given + 3 * b, target + 3 * a, 3 * sizeof(int));
}

/* The neighbourhood on a non-periodic mesh of all processes, and this
 * process's tile of the block. */
static void create_mesh(heat *h)
{
    /* The 26 neighbours of the 27-point stencil. */
    int t, periods[3] = { 0, 0, 0 };
    Cart_stencil_count(3, CART_CHEBYSHEV, 1, 1, &t);
    h->t = t;
    h->target = malloc(sizeof(int) * 3 * (size_t)t);
    int *given = malloc(sizeof(int) * 3 * (size_t)t); /* what the library is told */
    h->weight = malloc(sizeof(int) * (size_t)t);
    Cart_stencil(3, CART_CHEBYSHEV, 1, 1, t, h->target);
    memcpy(given, h->target, sizeof(int) * 3 * (size_t)t);
    if (h->fault) swap_faces(t, h->target, given);
    for (int i = 0; i < t; i++) { /* cells exchanged */
        int z = !!h->target[3 * i] + !!h->target[3 * i + 1] + !!h->target[3 * i + 2];
        h->weight[i] = z == 1 ? h->n * h->n : z == 2 ? h->n : 1;
    }
    h->dims[0] = h->dims[1] = h->dims[2] = 0;
    MPI_Dims_create(h->size, 3, h->dims);
    Cart_neighborhood_create(MPI_COMM_WORLD, 3, h->dims, periods, t, given, h->weight, MPI_INFO_NULL, 0, &h->cart);
    free(given);
    MPI_Comm_rank(h->cart, &h->me);
    MPI_Cart_coords(h->cart, h->me, 3, h->coords);
    h->G0 = h->n * h->dims[0], h->G1 = h->n * h->dims[1], h->G2 = h->n * h->dims[2], h->w = h->n + 2;
}

/* One datatype per shape: bit k of the index says offset k is non-zero
 * (that extent is 1, otherwise n).  Subarrays start at 0: the
 * displacement places them. */
static void create_shapes(heat *h)
{
    int n = h->n, full[3] = { h->w, h->w, h->w };
    for (int s = 1; s < 8; s++) {
        int sub[3] = { s & 1 ? 1 : n, s & 2 ? 1 : n, s & 4 ? 1 : n }, start[3] = { 0, 0, 0 };
        if (s == 7) {
            h->shape[s] = MPI_DOUBLE;
            continue;
        }
        MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_DOUBLE, &h->shape[s]);
        MPI_Type_commit(&h->shape[s]);
    }
}

/* The t blocks of the exchange: faces, edges and corners of an array. */
static void describe_blocks(heat *h)
{
    int n = h->n, w = h->w, t = h->t;
    h->count = malloc(sizeof(int) * (size_t)t);
    h->sdisp = malloc(sizeof(MPI_Aint) * (size_t)t);
    h->rdisp = malloc(sizeof(MPI_Aint) * (size_t)t);
    h->type = malloc(sizeof(MPI_Datatype) * (size_t)t);
    for (int i = 0; i < t; i++) {
        int s = 0, so[3], ro[3];
        for (int k = 0; k < 3; k++) {
            int o = h->target[3 * i + k];
            s |= (o != 0) << k;
            so[k] = o > 0 ? n : 1;                 /* our border facing R + N[i] */
            ro[k] = o > 0 ? 0 : o < 0 ? n + 1 : 1; /* the halo facing R - N[i] */
        }
        h->count[i] = 1;
        h->type[i] = h->shape[s];
        h->sdisp[i] = (MPI_Aint)(((size_t)so[0] * w + so[1]) * w + so[2]) * (MPI_Aint)sizeof(double);
        h->rdisp[i] = (MPI_Aint)(((size_t)ro[0] * w + ro[1]) * w + ro[2]) * (MPI_Aint)sizeof(double);
    }
}

/* Jacobi iterations; the halo of u[0] is filled first.  Times (the
 * slowest process's): all, of which exchange. */
static void iterate(heat *h)
{
    double t_exch = 0.0, t0 = MPI_Wtime();
    h->diff = 0.0, h->it = 0, h->cur = 0;
    for (int first = 1;; first = 0) {
        double te = MPI_Wtime();
        exchange_run(&h->halo, h->cur);
        t_exch += MPI_Wtime() - te;
        if (!first) {
            MPI_Allreduce(MPI_IN_PLACE, &h->diff, 1, MPI_DOUBLE, MPI_MAX, h->cart);
            if (h->diff < h->tol || h->it == h->maxit) break;
        }
        h->diff = sweep(h->u[h->cur], h->u[1 - h->cur], h->n, h->n, h->n);
        h->cur = 1 - h->cur;
        h->it++;
    }
    h->times[0] = MPI_Wtime() - t0, h->times[1] = t_exch;
    MPI_Allreduce(MPI_IN_PLACE, h->times, 2, MPI_DOUBLE, MPI_MAX, h->cart);
}

/* This process's tile against the serial solution s: the number of wrong
 * cells (the first 3 are reported), the largest difference into *maxerr. */
static int compare_tile(const heat *h, const double *s, double *maxerr)
{
    int n = h->n, w = h->w, bad = 0;
    const double *u = h->u[h->cur];
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            for (int k = 1; k <= n; k++) {
                double x = u[((size_t)i * w + j) * w + k];
                size_t gi = (size_t)h->coords[0] * n + i, gj = (size_t)h->coords[1] * n + j,
                       gk = (size_t)h->coords[2] * n + k;
                double y = s[(gi * (size_t)(h->G1 + 2) + gj) * (size_t)(h->G2 + 2) + gk];
                double e = fabs(x - y);
                if (!(e <= 1e-12) && bad++ < 3)
                    fprintf(stderr, "heat3d: rank %d: cell (%zu,%zu,%zu) is %.17g, the serial solver gives %.17g\n",
                            h->me, gi - 1, gj - 1, gk - 1, x, y);
                if (isnan(e))
                    *maxerr = INFINITY;
                else if (e > *maxerr)
                    *maxerr = e;
            }
    return bad;
}

/* Check against the serial solver (tile and iteration count); the verdict
 * of all processes (1: some value is wrong) and their largest difference. */
static int verdict(const heat *h, double *maxerr)
{
    int bad = 0, siters = 0;
    *maxerr = 0.0;
    if (h->check) {
        double *s = serial(h->G0, h->G1, h->G2, h->maxit, h->tol, &siters);
        if (!s) {
            fprintf(stderr, "heat3d: rank %d: no memory for the serial check (use --no-check)\n", h->me);
            bad = 1;
        } else {
            bad = compare_tile(h, s, maxerr);
            if (siters != h->it) {
                if (!bad)
                    fprintf(stderr, "heat3d: rank %d: %d iterations, the serial solver needs %d\n", h->me, h->it,
                            siters);
                bad++;
            }
            free(s);
        }
    }
    int anybad = bad != 0;
    MPI_Allreduce(MPI_IN_PLACE, &anybad, 1, MPI_INT, MPI_MAX, h->cart);
    MPI_Allreduce(MPI_IN_PLACE, maxerr, 1, MPI_DOUBLE, MPI_MAX, h->cart);
    return anybad;
}

/* The result line (process 0). */
static void report(const heat *h, int anybad, double maxerr)
{
    /* Rounds (messages per process) of one exchange: the library's
     * automatic choice, or one message per neighbour for MPI. */
    int rounds = h->t;
    if (!h->use_mpi) Cart_schedule_stats(h->cart, CART_ALLTOALL, CART_ALGORITHM_AUTO, NULL, &rounds, NULL);
    if (h->me != 0) return;
    const char *how = exchange_name(&h->halo);
    printf("heat3d: %s - %d processes (%dx%dx%d mesh), %d^3 tiles of a %dx%dx%d block, 27-point Jacobi, halo by %s "
           "(%d neighbours, %d rounds)%s: %d iterations, last change %.3g; ",
           !h->check ? "UNCHECKED" : anybad ? "FAIL" : "PASS", h->size, h->dims[0], h->dims[1], h->dims[2], h->n,
           h->G0, h->G1, h->G2, how, h->t, rounds, h->fault ? ", FAULT INJECTED" : "", h->it, h->diff);
    if (h->check) printf("%s the serial solver (max difference %.3g); ", anybad ? "DIFFERS FROM" : "matches", maxerr);
    printf("%.2f us per iteration, of which exchange %.2f us\n", 1e6 * h->times[0] / h->it,
           1e6 * h->times[1] / h->it);
}

static void destroy(heat *h)
{
    exchange_free(&h->halo);
    for (int s = 1; s < 7; s++) MPI_Type_free(&h->shape[s]);
    free(h->u[0]);
    free(h->u[1]);
    free(h->target);
    free(h->weight);
    free(h->count);
    free(h->sdisp);
    free(h->rdisp);
    free(h->type);
    MPI_Comm_free(&h->cart);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    heat h;
    int rank;
    MPI_Comm_size(MPI_COMM_WORLD, &h.size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!options(&h, argc, argv)) {
        int rc = usage(rank);
        MPI_Finalize();
        return rc;
    }
    create_mesh(&h);
    create_shapes(&h);
    describe_blocks(&h);
    for (int k = 0; k < 2; k++)
        h.u[k] = block(h.n, h.n, h.n, h.coords[0] * h.n, h.coords[1] * h.n, h.coords[2] * h.n, h.G0, h.G1, h.G2);
    if (exchange_init(&h.halo, h.cart, h.t, h.u[0], h.u[1], h.count, h.sdisp, h.rdisp, h.type, h.weight,
                      h.use_mpi) != MPI_SUCCESS) {
        fprintf(stderr, "heat3d: rank %d: cannot plan the halo exchange\n", h.me);
        MPI_Abort(h.cart, 1);
    }
    iterate(&h);
    double maxerr;
    int anybad = verdict(&h, &maxerr);
    report(&h, anybad, maxerr);
    destroy(&h);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
