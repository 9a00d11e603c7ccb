/* heat2d: steady-state heat on a 2-D plate by Jacobi iteration with the
 * 9-point stencil, halo exchange by a persistent Cart_alltoallw with row,
 * column and corner datatypes (seed 002, Listing 3).
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = 32, maxit = 500, use_mpi = 0, check = 1, fault = 0;
    double tol = 1e-4;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-n") && a + 1 < argc)
            n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-i") && a + 1 < argc)
            maxit = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-e") && a + 1 < argc)
            tol = atof(argv[++a]);
        else if (!strcmp(argv[a], "--mpi"))
            use_mpi = 1;
        else if (!strcmp(argv[a], "--no-check"))
            check = 0;
        else if (!strcmp(argv[a], "--inject-fault"))
            fault = 1;
        else
            n = -1;
    }
    if (n < 1 || maxit < 1 || !(tol > 0)) {
        int rc = usage(rank);
        MPI_Finalize();
        return rc;
    }

    /* The 8 neighbours in the order of Listing 3: right, left, up, down,
     * then the corners.  (row, column) offsets. */
    int dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, t = 8;
    int target[16] = { 0, 1, 0, -1, -1, 0, 1, 0, -1, 1, 1, 1, 1, -1, -1, -1 };
    int given[16]; /* the neighbourhood the library is told */
    memcpy(given, target, sizeof given);
    if (fault) { /* swap right (0,1) and up (-1,0): blocks travel the wrong way */
        given[0] = target[4], given[1] = target[5];
        given[4] = target[0], given[5] = target[1];
    }
    int weight[8]; /* cells exchanged with each neighbour */
    for (int i = 0; i < t; i++) weight[i] = target[2 * i] && target[2 * i + 1] ? 1 : n;
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, t, given, weight, MPI_INFO_NULL, 0, &cart);
    int me, coords[2];
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 2, coords);
    int GR = n * dims[0], GC = n * dims[1], w = n + 2;

    /* Row, column and corner of the matrix as datatypes. */
    MPI_Datatype row, col, cor = MPI_DOUBLE;
    MPI_Type_contiguous(n, MPI_DOUBLE, &row);
    MPI_Type_vector(n, 1, w, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    /* Block i goes to R + N[i]: the border of the tile facing that way; it
     * comes from R - N[i] into the halo on the opposite side.  Byte offsets
     * into whichever matrix the exchange is bound to. */
    int count[8];
    MPI_Aint sdisp[8], rdisp[8];
    MPI_Datatype type[8];
    for (int i = 0; i < t; i++) {
        int dr = target[2 * i], dc = target[2 * i + 1];
        int srow = dr > 0 ? n : 1, scol = dc > 0 ? n : 1;
        int rrow = dr > 0 ? 0 : dr < 0 ? n + 1 : 1, rcol = dc > 0 ? 0 : dc < 0 ? n + 1 : 1;
        count[i] = 1;
        type[i] = dr && dc ? cor : dr ? row : col;
        sdisp[i] = (MPI_Aint)(srow * w + scol) * (MPI_Aint)sizeof(double);
        rdisp[i] = (MPI_Aint)(rrow * w + rcol) * (MPI_Aint)sizeof(double);
    }

    /* Two matrices (old, new), boundary and initial temperature 0 inside. */
    size_t cells = (size_t)w * (size_t)w;
    double *u[2] = { calloc(cells, sizeof(double)), calloc(cells, sizeof(double)) };
    for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
            int gi = coords[0] * n + i - 1, gj = coords[1] * n + j - 1;
            if (gi < 0 || gj < 0 || gi >= GR || gj >= GC) u[0][(size_t)i * w + j] = u[1][(size_t)i * w + j] = boundary(gi, gj);
        }

    /* The exchange, planned once per matrix. */
    exchange halo;
    if (exchange_init(&halo, cart, t, u[0], u[1], count, sdisp, rdisp, type, weight, use_mpi) != MPI_SUCCESS) {
        fprintf(stderr, "heat2d: rank %d: cannot plan the halo exchange\n", me);
        MPI_Abort(cart, 1);
    }

    /* Jacobi iterations; the halo of u[0] is filled first. */
    double t_exch = 0.0, t0 = MPI_Wtime(), diff = 0.0;
    int it = 0, cur = 0;
    for (int first = 1;; first = 0) {
        double te = MPI_Wtime();
        exchange_run(&halo, cur);
        t_exch += MPI_Wtime() - te;
        if (!first) {
            MPI_Allreduce(MPI_IN_PLACE, &diff, 1, MPI_DOUBLE, MPI_MAX, cart);
            if (diff < tol || it == maxit) break;
        }
        diff = sweep(u[cur], u[1 - cur], w, 1, n, 1, n);
        cur = 1 - cur;
        it++;
    }
    double elapsed = MPI_Wtime() - t0, times[2] = { elapsed, t_exch };
    MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, cart);

    /* Check against the serial solver. */
    double maxerr = 0.0;
    int bad = 0, siters = 0;
    if (check) {
        double *s = serial(GR, GC, maxit, tol, &siters);
        if (!s) {
            fprintf(stderr, "heat2d: rank %d: no memory for the serial check (use --no-check)\n", me);
            bad = 1;
        } else {
            for (int i = 1; i <= n; i++)
                for (int j = 1; j <= n; j++) {
                    double x = u[cur][(size_t)i * w + j];
                    double y = s[(size_t)(coords[0] * n + i) * (GC + 2) + (size_t)(coords[1] * n + j)];
                    double e = fabs(x - y);
                    if (!(e <= 1e-12) && bad++ < 3)
                        fprintf(stderr, "heat2d: rank %d: cell (%d,%d) is %.17g, the serial solver gives %.17g\n", me,
                                coords[0] * n + i - 1, coords[1] * n + j - 1, x, y);
                    if (isnan(e))
                        maxerr = INFINITY;
                    else if (e > maxerr)
                        maxerr = e;
                }
            if (siters != it) {
                if (!bad) fprintf(stderr, "heat2d: rank %d: %d iterations, the serial solver needs %d\n", me, it, siters);
                bad++;
            }
            free(s);
        }
    }
    int anybad = bad != 0;
    MPI_Allreduce(MPI_IN_PLACE, &anybad, 1, MPI_INT, MPI_MAX, cart);
    MPI_Allreduce(MPI_IN_PLACE, &maxerr, 1, MPI_DOUBLE, MPI_MAX, cart);

    /* Rounds (messages per process) of one exchange: the library's
     * automatic choice, or one message per neighbour for MPI. */
    int rounds = t;
    if (!use_mpi) Cart_schedule_stats(cart, CART_ALLTOALL, CART_ALGORITHM_AUTO, NULL, &rounds, NULL);
    if (me == 0) {
        const char *how = exchange_name(&halo);
        printf("heat2d: %s - %d processes (%dx%d mesh), %dx%d tiles of a %dx%d plate, 9-point Jacobi, halo by %s "
               "(%d neighbours, %d rounds)%s: %d iterations, last change %.3g; ",
               !check ? "UNCHECKED" : anybad ? "FAIL" : "PASS", size, dims[0], dims[1], n, n, GR, GC, how, t, rounds,
               fault ? ", FAULT INJECTED" : "", it, diff);
        if (check) printf("%s the serial solver (max difference %.3g); ", anybad ? "DIFFERS FROM" : "matches", maxerr);
        printf("%.2f us per iteration, of which exchange %.2f us\n", 1e6 * times[0] / it, 1e6 * times[1] / it);
    }

    exchange_free(&halo);
    MPI_Type_free(&row);
    MPI_Type_free(&col);
    free(u[0]);
    free(u[1]);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
