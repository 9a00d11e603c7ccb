/* heat2d: steady-state heat on a 2-D plate by Jacobi iteration with the
 * 9-point stencil, halo exchange by a persistent Cart_alltoallw with row,
 * column and corner datatypes [Traff & Hunold 2019, Listing 3].
 *
 * The global grid is split into n x n tiles on a non-periodic process grid
 * (MPI_Dims_create).  Each tile is stored with a halo of depth 1 in an
 * (n+2) x (n+2) row-major matrix; halo cells on the border of the plate hold
 * the fixed boundary temperature (1 along the top edge, 0 elsewhere) and are
 * never written: their neighbours are off the mesh (MPI_PROC_NULL), so the
 * exchange leaves them alone.  Each iteration computes the new interior from
 * the old matrix, exchanges the new matrix's halo (one persistent request per
 * matrix, send and receive buffer the same matrix), and agrees on the largest
 * change with MPI_Allreduce; it stops below the tolerance.
 *
 * Check: every process runs the same Jacobi iteration serially on the whole
 * plate (cheap at example sizes, and needing no communication) and compares
 * its own tile and the iteration count; one MPI_Allreduce gives the verdict.
 * A wrong value makes the program print FAIL and exit with status 1.
 *
 *   mpirun -n 4 heat2d [-n tile] [-i max_iterations] [-e tolerance]
 *                      [--mpi] [--no-check] [--inject-fault]
 *
 *   --mpi           exchange with MPI_Neighbor_alltoallw (persistent where
 *                   MPI >= 4) on the same neighbourhood as a distributed
 *                   graph (built from Cart_neighbor_get), to compare times
 *   --no-check      skip the serial solution (for large grids)
 *   --inject-fault  test switch: swap two offset vectors of the neighbourhood
 *                   given to Cart_neighborhood_create; the check must fail
 */
#include <cartcoll.h>

#include "exchange.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 9-point Jacobi update of the cell at a (rows w apart): edge
 * neighbours weigh 4, corners 1 (the compact 9-point Laplacian). */
static double update9(const double *a, int w)
{
    return (4.0 * (a[-1] + a[1] + a[-w] + a[w]) + (a[-w - 1] + a[-w + 1] + a[w - 1] + a[w + 1])) / 20.0;
}

/* Boundary temperature at global cell (gi, gj) outside the plate. */
static double boundary(int gi, int gj)
{
    (void)gj;
    return gi < 0 ? 1.0 : 0.0;
}

/* One sweep over rows r0..r1 and columns c0..c1 of a (w wide) into b;
 * returns the largest change. */
static double sweep(const double *a, double *b, int w, int r0, int r1, int c0, int c1)
{
    double diff = 0.0;
    for (int i = r0; i <= r1; i++)
        for (int j = c0; j <= c1; j++) {
            double x = update9(a + (size_t)i * w + j, w);
            double dx = fabs(x - a[(size_t)i * w + j]);
            b[(size_t)i * w + j] = x;
            if (dx > diff) diff = dx;
        }
    return diff;
}

/* The serial solver on the whole GR x GC plate (with its boundary ring). */
static double *serial(int GR, int GC, int maxit, double tol, int *iters)
{
    int w = GC + 2;
    size_t cells = (size_t)(GR + 2) * (size_t)w;
    double *a = calloc(cells, sizeof(double)), *b = calloc(cells, sizeof(double));
    if (!a || !b) return NULL;
    for (int i = 0; i < GR + 2; i++)
        for (int j = 0; j < w; j++)
            if (i == 0 || j == 0 || i == GR + 1 || j == GC + 1) a[(size_t)i * w + j] = b[(size_t)i * w + j] = boundary(i - 1, j - 1);
    int it = 0;
    while (it < maxit) {
        double diff = sweep(a, b, w, 1, GR, 1, GC);
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
        fprintf(stderr, "usage: heat2d [-n tile >= 1] [-i max_iterations >= 1] [-e tolerance > 0] [--mpi] [--no-check] "
                        "[--inject-fault]\n");
    return 2;
}

enum { T = 8 }; /* neighbours of the 9-point stencil */

/* What the steps of main share: the options, the process grid, the blocks
 * of the exchange and the iteration's matrices and outcome. */
typedef struct heat {
    int n, maxit, use_mpi, check, fault; /* the options */
    double tol;
    int size, me, dims[2], coords[2]; /* this process's tile on the mesh */
    int GR, GC, w;                    /* the plate; the matrix row length */
    MPI_Comm cart;
    int target[2 * T], weight[T]; /* the neighbourhood (as it truly is) */
    int count[T];                 /* block i of the exchange */
    MPI_Aint sdisp[T], rdisp[T];
    MPI_Datatype row, col, type[T];
    exchange halo;
    double *u[2], diff, times[2]; /* the matrices, last change, times */
    int it, cur;                  /* iterations done, current matrix */
} heat;

/* The command line into h; 1 when it is valid. */
static int options(heat *h, int argc, char **argv)
{
    h->n = 32, h->maxit = 500, h->use_mpi = 0, h->check = 1, h->fault = 0;
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

/* The neighbourhood on a non-periodic mesh of all processes, and this
 * process's tile of the plate. */
static void create_mesh(heat *h)
{
    /* The 8 neighbours in the order of Listing 3: right, left, up, down,
     * then the corners.  (row, column) offsets. */
    static const int nine[2 * T] = { 0, 1, 0, -1, -1, 0, 1, 0, -1, 1, 1, 1, 1, -1, -1, -1 };
    int periods[2] = { 0, 0 };
    int given[2 * T]; /* the neighbourhood the library is told */
    memcpy(h->target, nine, sizeof nine);
    memcpy(given, nine, sizeof given);
    if (h->fault) { /* swap right (0,1) and up (-1,0): blocks travel the wrong way */
        given[0] = nine[4], given[1] = nine[5];
        given[4] = nine[0], given[5] = nine[1];
    }
    /* cells exchanged with each neighbour */
    for (int i = 0; i < T; i++) h->weight[i] = nine[2 * i] && nine[2 * i + 1] ? 1 : h->n;
    h->dims[0] = h->dims[1] = 0;
    MPI_Dims_create(h->size, 2, h->dims);
    Cart_neighborhood_create(MPI_COMM_WORLD, 2, h->dims, periods, T, given, h->weight, MPI_INFO_NULL, 0, &h->cart);
    MPI_Comm_rank(h->cart, &h->me);
    MPI_Cart_coords(h->cart, h->me, 2, h->coords);
    h->GR = h->n * h->dims[0], h->GC = h->n * h->dims[1], h->w = h->n + 2;
}

/* The blocks of the exchange: rows, columns and corners of a matrix. */
static void describe_blocks(heat *h)
{
    int n = h->n, w = h->w;
    /* Row, column and corner of the matrix as datatypes. */
    MPI_Datatype cor = MPI_DOUBLE;
    MPI_Type_contiguous(n, MPI_DOUBLE, &h->row);
    MPI_Type_vector(n, 1, w, MPI_DOUBLE, &h->col);
    MPI_Type_commit(&h->row);
    MPI_Type_commit(&h->col);
    /* Block i goes to R + N[i]: the border of the tile facing that way; it
     * comes from R - N[i] into the halo on the opposite side.  Byte offsets
     * into whichever matrix the exchange is bound to. */
    for (int i = 0; i < T; i++) {
        int dr = h->target[2 * i], dc = h->target[2 * i + 1];
        int srow = dr > 0 ? n : 1, scol = dc > 0 ? n : 1;
        int rrow = dr > 0 ? 0 : dr < 0 ? n + 1 : 1, rcol = dc > 0 ? 0 : dc < 0 ? n + 1 : 1;
        h->count[i] = 1;
        h->type[i] = dr && dc ? cor : dr ? h->row : h->col;
        h->sdisp[i] = (MPI_Aint)(srow * w + scol) * (MPI_Aint)sizeof(double);
        h->rdisp[i] = (MPI_Aint)(rrow * w + rcol) * (MPI_Aint)sizeof(double);
    }
}

/* Two matrices (old, new), boundary and initial temperature 0 inside. */
static void init_matrices(heat *h)
{
    int n = h->n, w = h->w;
    size_t cells = (size_t)w * (size_t)w;
    h->u[0] = calloc(cells, sizeof(double));
    h->u[1] = calloc(cells, sizeof(double));
    for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
            int gi = h->coords[0] * n + i - 1, gj = h->coords[1] * n + j - 1;
            if (gi < 0 || gj < 0 || gi >= h->GR || gj >= h->GC)
                h->u[0][(size_t)i * w + j] = h->u[1][(size_t)i * w + j] = boundary(gi, gj);
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
        h->diff = sweep(h->u[h->cur], h->u[1 - h->cur], h->w, 1, h->n, 1, h->n);
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
        for (int j = 1; j <= n; j++) {
            double x = u[(size_t)i * w + j];
            double y = s[(size_t)(h->coords[0] * n + i) * (h->GC + 2) + (size_t)(h->coords[1] * n + j)];
            double e = fabs(x - y);
            if (!(e <= 1e-12) && bad++ < 3)
                fprintf(stderr, "heat2d: rank %d: cell (%d,%d) is %.17g, the serial solver gives %.17g\n", h->me,
                        h->coords[0] * n + i - 1, h->coords[1] * n + j - 1, x, y);
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
        double *s = serial(h->GR, h->GC, h->maxit, h->tol, &siters);
        if (!s) {
            fprintf(stderr, "heat2d: rank %d: no memory for the serial check (use --no-check)\n", h->me);
            bad = 1;
        } else {
            bad = compare_tile(h, s, maxerr);
            if (siters != h->it) {
                if (!bad)
                    fprintf(stderr, "heat2d: rank %d: %d iterations, the serial solver needs %d\n", h->me, h->it,
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
    int rounds = T;
    if (!h->use_mpi) Cart_schedule_stats(h->cart, CART_ALLTOALL, CART_ALGORITHM_AUTO, NULL, &rounds, NULL);
    if (h->me != 0) return;
    const char *how = exchange_name(&h->halo);
    printf("heat2d: %s - %d processes (%dx%d mesh), %dx%d tiles of a %dx%d plate, 9-point Jacobi, halo by %s "
           "(%d neighbours, %d rounds)%s: %d iterations, last change %.3g; ",
           !h->check ? "UNCHECKED" : anybad ? "FAIL" : "PASS", h->size, h->dims[0], h->dims[1], h->n, h->n, h->GR,
           h->GC, how, T, rounds, h->fault ? ", FAULT INJECTED" : "", h->it, h->diff);
    if (h->check) printf("%s the serial solver (max difference %.3g); ", anybad ? "DIFFERS FROM" : "matches", maxerr);
    printf("%.2f us per iteration, of which exchange %.2f us\n", 1e6 * h->times[0] / h->it,
           1e6 * h->times[1] / h->it);
}

static void destroy(heat *h)
{
    exchange_free(&h->halo);
    MPI_Type_free(&h->row);
    MPI_Type_free(&h->col);
    free(h->u[0]);
    free(h->u[1]);
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
    describe_blocks(&h);
    init_matrices(&h);
    /* The exchange, planned once per matrix. */
    if (exchange_init(&h.halo, h.cart, T, h.u[0], h.u[1], h.count, h.sdisp, h.rdisp, h.type, h.weight, h.use_mpi) !=
        MPI_SUCCESS) {
        fprintf(stderr, "heat2d: rank %d: cannot plan the halo exchange\n", h.me);
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
