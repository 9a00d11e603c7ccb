/* halo9: a 2-D 9-point halo exchange with Cart_alltoallw (seed 002,
 * Listing 3).  Each process owns an n x n tile of a periodic global grid,
 * stored with a halo of depth 1 in an (n+2) x (n+2) row-major matrix.  One
 * persistent Cart_alltoallw moves rows, columns and corners, described by
 * datatypes, straight between the tiles of the eight neighbours; send and
 * receive buffer are the same matrix.  Every halo cell is checked against the
 * global value it must hold, and one line gives the verdict.
 *
 *   mpirun -n 4 halo9 [n] [iterations]
 */
#include <cartcoll.h>

#include <stdio.h>
#include <stdlib.h>

/* Global value of cell (gi, gj) at iteration it: unique per cell. */
static double value(int gi, int gj, int it, int G) { return (double)gi * G + gj + 0.25 * it; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 64, iters = argc > 2 ? atoi(argv[2]) : 10;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (n < 1 || iters < 1) {
        if (!rank) fprintf(stderr, "usage: halo9 [n >= 1] [iterations >= 1]\n");
        MPI_Finalize();
        return 2;
    }

    /* The 8 neighbours of the 9-point stencil, (row, column) offsets. */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, t = 8;
    int target[16] = { 0, 1, 0, -1, -1, 0, 1, 0, -1, 1, 1, 1, 1, -1, -1, -1 };
    /* Weights: cells exchanged with each neighbour (a hint for reordering). */
    int weight[8];
    for (int i = 0; i < t; i++) weight[i] = target[2 * i] && target[2 * i + 1] ? 1 : n;
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, t, target, weight, MPI_INFO_NULL, 0, &cart);
    int me, coords[2];
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 2, coords);

    /* Row, column and corner of the matrix as datatypes. */
    int w = n + 2, G = n * dims[1] > n * dims[0] ? n * dims[1] : n * dims[0];
    MPI_Datatype row, col, cor = MPI_DOUBLE;
    MPI_Type_contiguous(n, MPI_DOUBLE, &row);
    MPI_Type_vector(n, 1, w, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);

    /* Block i goes to R + N[i]: the border of the tile facing that way; it
     * comes from R - N[i] into the halo on the opposite side. */
    int scount[8], rcount[8];
    MPI_Aint sdisp[8], rdisp[8];
    MPI_Datatype stype[8], rtype[8];
    for (int i = 0; i < t; i++) {
        int dr = target[2 * i], dc = target[2 * i + 1];
        int srow = dr < 0 ? 1 : dr > 0 ? n : 1, scol = dc < 0 ? 1 : dc > 0 ? n : 1;
        int rrow = dr > 0 ? 0 : dr < 0 ? n + 1 : 1, rcol = dc > 0 ? 0 : dc < 0 ? n + 1 : 1;
        MPI_Datatype type = dr && dc ? cor : dr ? row : col;
        scount[i] = rcount[i] = 1;
        stype[i] = rtype[i] = type;
        sdisp[i] = (MPI_Aint)(srow * w + scol) * (MPI_Aint)sizeof(double);
        rdisp[i] = (MPI_Aint)(rrow * w + rcol) * (MPI_Aint)sizeof(double);
    }
    double *m = malloc(sizeof(double) * (size_t)w * (size_t)w);
    Cart_request req;
    Cart_alltoallw_init(m, scount, sdisp, stype, m, rcount, rdisp, rtype, cart, MPI_INFO_NULL, &req);

    long bad = 0, checked = 0;
    int gr = n * dims[0], gc = n * dims[1];
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < w * w; i++) m[i] = -1.0;
        for (int i = 1; i <= n; i++)
            for (int j = 1; j <= n; j++) m[i * w + j] = value(coords[0] * n + i - 1, coords[1] * n + j - 1, it, G);
        Cart_start(&req);
        Cart_wait(&req);
        for (int i = 0; i < w; i++)
            for (int j = 0; j < w; j++) {
                if (i > 0 && i <= n && j > 0 && j <= n) continue; /* interior */
                int gi = (coords[0] * n + i - 1 + gr) % gr, gj = (coords[1] * n + j - 1 + gc) % gc;
                checked++;
                if (m[i * w + j] != value(gi, gj, it, G)) {
                    if (bad++ < 5)
                        fprintf(stderr, "halo9: rank %d iteration %d: halo cell (%d,%d) is %g, expected %g\n", me, it,
                                i, j, m[i * w + j], value(gi, gj, it, G));
                }
            }
    }

    long totals[2] = { bad, checked }, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_LONG, MPI_SUM, 0, cart);
    int rounds, phases, volume;
    Cart_schedule_stats(cart, CART_ALLTOALL, CART_ALGORITHM_AUTO, &phases, &rounds, &volume);
    if (me == 0)
        printf("halo9: %s - %d processes (%dx%d), %dx%d tiles, 9-point halo by persistent Cart_alltoallw, "
               "%d iterations: %ld of %ld halo cells correct (%d neighbours, %d rounds per exchange)\n",
               sums[0] ? "FAIL" : "PASS", size, dims[0], dims[1], n, n, iters, sums[1] - sums[0], sums[1], t, rounds);
    Cart_request_free(&req);
    MPI_Type_free(&row);
    MPI_Type_free(&col);
    free(m);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return bad ? 1 : 0;
}
