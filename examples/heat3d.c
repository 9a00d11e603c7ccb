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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = 12, maxit = 200, use_mpi = 0, check = 1, fault = 0;
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
        if (!rank)
            fprintf(stderr, "usage: heat3d [-n tile >= 1] [-i max_iterations >= 1] [-e tolerance > 0] [--mpi] "
                            "[--no-check] [--inject-fault]\n");
        MPI_Finalize();
        return 2;
    }

    /* The 26 neighbours of the 27-point stencil. */
    int t, dims[3] = { 0, 0, 0 }, periods[3] = { 0, 0, 0 };
    Cart_stencil_count(3, CART_CHEBYSHEV, 1, 1, &t);
    int *target = malloc(sizeof(int) * 3 * (size_t)t), *given = malloc(sizeof(int) * 3 * (size_t)t);
    int *weight = malloc(sizeof(int) * (size_t)t);
    Cart_stencil(3, CART_CHEBYSHEV, 1, 1, t, target);
    memcpy(given, target, sizeof(int) * 3 * (size_t)t);
    if (fault) { /* swap (0,0,1) and (1,0,0) in what the library is told */
        int a = -1, b = -1;
        for (int i = 0; i < t; i++) {
            const int *v = target + 3 * i;
            if (!v[0] && !v[1] && v[2] == 1) a = i;
            if (v[0] == 1 && !v[1] && !v[2]) b = i;
        }
        memcpy(given + 3 * a, target + 3 * b, 3 * sizeof(int));
        memcpy(given + 3 * b, target + 3 * a, 3 * sizeof(int));
    }
    for (int i = 0; i < t; i++) { /* cells exchanged */
        int z = !!target[3 * i] + !!target[3 * i + 1] + !!target[3 * i + 2];
        weight[i] = z == 1 ? n * n : z == 2 ? n : 1;
    }
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    Cart_neighborhood_create(MPI_COMM_WORLD, 3, dims, periods, t, given, weight, MPI_INFO_NULL, 0, &cart);
    int me, coords[3];
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 3, coords);
    int G0 = n * dims[0], G1 = n * dims[1], G2 = n * dims[2], w = n + 2;

    /* One datatype per shape: bit k of the index says offset k is non-zero
     * (that extent is 1, otherwise n).  Subarrays start at 0: the
     * displacement places them. */
    MPI_Datatype shape[8];
    int full[3] = { w, w, w };
    for (int s = 1; s < 8; s++) {
        int sub[3] = { s & 1 ? 1 : n, s & 2 ? 1 : n, s & 4 ? 1 : n }, start[3] = { 0, 0, 0 };
        if (s == 7) {
            shape[s] = MPI_DOUBLE;
            continue;
        }
        MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_DOUBLE, &shape[s]);
        MPI_Type_commit(&shape[s]);
    }
    int *count = malloc(sizeof(int) * (size_t)t);
    MPI_Aint *sdisp = malloc(sizeof(MPI_Aint) * (size_t)t), *rdisp = malloc(sizeof(MPI_Aint) * (size_t)t);
    MPI_Datatype *type = malloc(sizeof(MPI_Datatype) * (size_t)t);
    for (int i = 0; i < t; i++) {
        int s = 0, so[3], ro[3];
        for (int k = 0; k < 3; k++) {
            int o = target[3 * i + k];
            s |= (o != 0) << k;
            so[k] = o > 0 ? n : 1;                 /* our border facing R + N[i] */
            ro[k] = o > 0 ? 0 : o < 0 ? n + 1 : 1; /* the halo facing R - N[i] */
        }
        count[i] = 1;
        type[i] = shape[s];
        sdisp[i] = (MPI_Aint)(((size_t)so[0] * w + so[1]) * w + so[2]) * (MPI_Aint)sizeof(double);
        rdisp[i] = (MPI_Aint)(((size_t)ro[0] * w + ro[1]) * w + ro[2]) * (MPI_Aint)sizeof(double);
    }

    double *u[2] = { block(n, n, n, coords[0] * n, coords[1] * n, coords[2] * n, G0, G1, G2),
                     block(n, n, n, coords[0] * n, coords[1] * n, coords[2] * n, G0, G1, G2) };

    exchange halo;
    if (exchange_init(&halo, cart, t, u[0], u[1], count, sdisp, rdisp, type, weight, use_mpi) != MPI_SUCCESS) {
        fprintf(stderr, "heat3d: rank %d: cannot plan the halo exchange\n", me);
        MPI_Abort(cart, 1);
    }

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
        diff = sweep(u[cur], u[1 - cur], n, n, n);
        cur = 1 - cur;
        it++;
    }
    double times[2] = { MPI_Wtime() - t0, t_exch };
    MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, cart);

    double maxerr = 0.0;
    int bad = 0, siters = 0;
    if (check) {
        double *s = serial(G0, G1, G2, maxit, tol, &siters);
        if (!s) {
            fprintf(stderr, "heat3d: rank %d: no memory for the serial check (use --no-check)\n", me);
            bad = 1;
        } else {
            for (int i = 1; i <= n; i++)
                for (int j = 1; j <= n; j++)
                    for (int k = 1; k <= n; k++) {
                        double x = u[cur][((size_t)i * w + j) * w + k];
                        size_t gi = (size_t)coords[0] * n + i, gj = (size_t)coords[1] * n + j,
                               gk = (size_t)coords[2] * n + k;
                        double y = s[(gi * (size_t)(G1 + 2) + gj) * (size_t)(G2 + 2) + gk];
                        double e = fabs(x - y);
                        if (!(e <= 1e-12) && bad++ < 3)
                            fprintf(stderr, "heat3d: rank %d: cell (%zu,%zu,%zu) is %.17g, the serial solver gives %.17g\n",
                                    me, gi - 1, gj - 1, gk - 1, x, y);
                        if (isnan(e))
                            maxerr = INFINITY;
                        else if (e > maxerr)
                            maxerr = e;
                    }
            if (siters != it) {
                if (!bad) fprintf(stderr, "heat3d: rank %d: %d iterations, the serial solver needs %d\n", me, it, siters);
                bad++;
            }
            free(s);
        }
    }
    int anybad = bad != 0;
    MPI_Allreduce(MPI_IN_PLACE, &anybad, 1, MPI_INT, MPI_MAX, cart);
    MPI_Allreduce(MPI_IN_PLACE, &maxerr, 1, MPI_DOUBLE, MPI_MAX, cart);

    int rounds = t;
    if (!use_mpi) Cart_schedule_stats(cart, CART_ALLTOALL, CART_ALGORITHM_AUTO, NULL, &rounds, NULL);
    if (me == 0) {
        const char *how = exchange_name(&halo);
        printf("heat3d: %s - %d processes (%dx%dx%d mesh), %d^3 tiles of a %dx%dx%d block, 27-point Jacobi, halo by %s "
               "(%d neighbours, %d rounds)%s: %d iterations, last change %.3g; ",
               !check ? "UNCHECKED" : anybad ? "FAIL" : "PASS", size, dims[0], dims[1], dims[2], n, G0, G1, G2, how, t,
               rounds, fault ? ", FAULT INJECTED" : "", it, diff);
        if (check) printf("%s the serial solver (max difference %.3g); ", anybad ? "DIFFERS FROM" : "matches", maxerr);
        printf("%.2f us per iteration, of which exchange %.2f us\n", 1e6 * times[0] / it, 1e6 * times[1] / it);
    }

    exchange_free(&halo);
    for (int s = 1; s < 7; s++) MPI_Type_free(&shape[s]);
    free(u[0]);
    free(u[1]);
    free(target);
    free(given);
    free(weight);
    free(count);
    free(sdisp);
    free(rdisp);
    free(type);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
