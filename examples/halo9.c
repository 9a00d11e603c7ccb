/* halo9: a 2-D 9-point halo exchange with Cart_alltoallw
 * [Traff & Hunold 2019, Listing 3].  Each process owns an n x n tile of a
 * periodic global grid, stored with a halo of depth 1 in an (n+2) x (n+2)
 * row-major matrix.  One
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

/* The 8 neighbours of the 9-point stencil, (row, column) offsets. */
enum { T = 8 };
static const int target[2 * T] = { 0, 1, 0, -1, -1, 0, 1, 0, -1, 1, 1, 1, 1, -1, -1, -1 };

/* What the steps of main share: the tile on the process grid, the blocks
 * of the exchange, and the halo cells checked and found wrong. */
typedef struct halo {
    int n, iters, size, me, dims[2], coords[2];
    int w, G; /* matrix row length; the longer side of the global grid */
    MPI_Comm cart;
    MPI_Datatype row, col;
    int scount[T], rcount[T]; /* block i of the exchange */
    MPI_Aint sdisp[T], rdisp[T];
    MPI_Datatype stype[T], rtype[T];
    double *m;
    long bad, checked;
} halo;

/* The neighbourhood on a periodic grid of all processes; this process's
 * place on it. */
static void create_grid(halo *h)
{
    int periods[2] = { 1, 1 };
    /* Weights: cells exchanged with each neighbour (a hint for reordering). */
    int weight[T];
    for (int i = 0; i < T; i++) weight[i] = target[2 * i] && target[2 * i + 1] ? 1 : h->n;
    h->dims[0] = h->dims[1] = 0;
    MPI_Dims_create(h->size, 2, h->dims);
    Cart_neighborhood_create(MPI_COMM_WORLD, 2, h->dims, periods, T, target, weight, MPI_INFO_NULL, 0, &h->cart);
    MPI_Comm_rank(h->cart, &h->me);
    MPI_Cart_coords(h->cart, h->me, 2, h->coords);
}

/* The blocks of the exchange: rows, columns and corners of the matrix. */
static void describe_blocks(halo *h)
{
    /* Row, column and corner of the matrix as datatypes. */
    int n = h->n, w = h->w = n + 2;
    h->G = n * h->dims[1] > n * h->dims[0] ? n * h->dims[1] : n * h->dims[0];
    MPI_Datatype cor = MPI_DOUBLE;
    MPI_Type_contiguous(n, MPI_DOUBLE, &h->row);
    MPI_Type_vector(n, 1, w, MPI_DOUBLE, &h->col);
    MPI_Type_commit(&h->row);
    MPI_Type_commit(&h->col);

    /* Block i goes to R + N[i]: the border of the tile facing that way; it
     * comes from R - N[i] into the halo on the opposite side. */
    for (int i = 0; i < T; i++) {
        int dr = target[2 * i], dc = target[2 * i + 1];
        int srow = dr < 0 ? 1 : dr > 0 ? n : 1, scol = dc < 0 ? 1 : dc > 0 ? n : 1;
        int rrow = dr > 0 ? 0 : dr < 0 ? n + 1 : 1, rcol = dc > 0 ? 0 : dc < 0 ? n + 1 : 1;
        MPI_Datatype type = dr && dc ? cor : dr ? h->row : h->col;
        h->scount[i] = h->rcount[i] = 1;
        h->stype[i] = h->rtype[i] = type;
        h->sdisp[i] = (MPI_Aint)(srow * w + scol) * (MPI_Aint)sizeof(double);
        h->rdisp[i] = (MPI_Aint)(rrow * w + rcol) * (MPI_Aint)sizeof(double);
    }
}

/* The matrix before exchange it: the tile's values, -1 in the halo. */
static void fill(halo *h, int it)
{
    int n = h->n, w = h->w;
    for (int i = 0; i < w * w; i++) h->m[i] = -1.0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            h->m[i * w + j] = value(h->coords[0] * n + i - 1, h->coords[1] * n + j - 1, it, h->G);
}

/* Every halo cell after exchange it against the global value it must hold
 * (the first 5 wrong cells are reported). */
static void check_halo(halo *h, int it)
{
    int n = h->n, w = h->w, gr = n * h->dims[0], gc = n * h->dims[1];
    for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
            if (i > 0 && i <= n && j > 0 && j <= n) continue; /* interior */
            int gi = (h->coords[0] * n + i - 1 + gr) % gr, gj = (h->coords[1] * n + j - 1 + gc) % gc;
            h->checked++;
            if (h->m[i * w + j] != value(gi, gj, it, h->G)) {
                if (h->bad++ < 5)
                    fprintf(stderr, "halo9: rank %d iteration %d: halo cell (%d,%d) is %g, expected %g\n", h->me, it, i,
                            j, h->m[i * w + j], value(gi, gj, it, h->G));
            }
        }
}

/* The verdict line (process 0) from the counts of all processes. */
static void report(const halo *h)
{
    long totals[2] = { h->bad, h->checked }, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_LONG, MPI_SUM, 0, h->cart);
    int rounds, phases, volume;
    Cart_schedule_stats(h->cart, CART_ALLTOALL, CART_ALGORITHM_AUTO, &phases, &rounds, &volume);
    if (h->me == 0)
        printf("halo9: %s - %d processes (%dx%d), %dx%d tiles, 9-point halo by persistent Cart_alltoallw, "
               "%d iterations: %ld of %ld halo cells correct (%d neighbours, %d rounds per exchange)\n",
               sums[0] ? "FAIL" : "PASS", h->size, h->dims[0], h->dims[1], h->n, h->n, h->iters, sums[1] - sums[0],
               sums[1], T, rounds);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    halo h = { .n = argc > 1 ? atoi(argv[1]) : 64, .iters = argc > 2 ? atoi(argv[2]) : 10 };
    int rank;
    MPI_Comm_size(MPI_COMM_WORLD, &h.size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (h.n < 1 || h.iters < 1) {
        if (!rank) fprintf(stderr, "usage: halo9 [n >= 1] [iterations >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    create_grid(&h);
    describe_blocks(&h);

    /* Plan once; send and receive buffer are the same matrix. */
    h.m = malloc(sizeof(double) * (size_t)h.w * (size_t)h.w);
    Cart_request req;
    Cart_alltoallw_init(h.m, h.scount, h.sdisp, h.stype, h.m, h.rcount, h.rdisp, h.rtype, h.cart, MPI_INFO_NULL, &req);
    for (int it = 0; it < h.iters; it++) {
        fill(&h, it);
        Cart_start(&req);
        Cart_wait(&req);
        check_halo(&h, it);
    }
    report(&h);

    Cart_request_free(&req);
    MPI_Type_free(&h.row);
    MPI_Type_free(&h.col);
    free(h.m);
    MPI_Comm_free(&h.cart);
    MPI_Finalize();
    return h.bad ? 1 : 0;
}
