/* life: Conway's Game of Life on a periodic 2-D grid with a deep halo.
 *
 * Each process owns an n x n tile stored with a halo of width h in an
 * (n+2h) x (n+2h) row-major matrix of bytes.  One exchange (a persistent
 * Cart_alltoallw with h-deep row, column and corner blocks as datatypes)
 * fills the whole halo; then h generations are computed locally, each on a
 * region one cell smaller all round (generation s is valid on rows and
 * columns s .. n+2h-1-s), so after h generations exactly the tile is valid
 * and the next exchange is due.  Deeper halos trade redundant computation for
 * h times fewer exchanges.  With h <= n the neighbourhood stays the 8
 * neighbours of the 9-point stencil, with h-wide blocks.
 *
 * Check: every process plays the same game serially on the whole grid from
 * the same initial pattern (a hash of the global coordinates) and compares
 * its own tile; one MPI_Allreduce gives the verdict, and the number of live
 * cells is compared too.  A wrong cell makes the program print FAIL and exit
 * with status 1.
 *
 *   mpirun -n 4 life [-n tile] [-w halo_width] [-g generations]
 *                    [--mpi] [--no-check] [--inject-fault]
 *
 * --mpi, --no-check and --inject-fault as for heat2d (the fault swaps the
 * offsets (0,1) and (-1,0) in the neighbourhood given to
 * Cart_neighborhood_create).
 */
#include <cartcoll.h>

#include "exchange.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Initial state of global cell (gi, gj): alive with probability ~ 3/8. */
static unsigned char initial(int gi, int gj)
{
    uint32_t x = (uint32_t)gi * 0x9E3779B1u ^ (uint32_t)gj * 0x85EBCA77u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return (x & 7u) < 3u;
}

/* The next state of the cell at a (rows w apart). */
static unsigned char rule(const unsigned char *a, int w)
{
    int c = a[-w - 1] + a[-w] + a[-w + 1] + a[-1] + a[1] + a[w - 1] + a[w] + a[w + 1];
    return c == 3 || (c == 2 && *a);
}

/* One generation of rows/columns lo..hi of a into b (w wide). */
static void step(const unsigned char *a, unsigned char *b, int w, int lo, int hi)
{
    for (int i = lo; i <= hi; i++)
        for (int j = lo; j <= hi; j++) b[(size_t)i * w + j] = rule(a + (size_t)i * w + j, w);
}

/* The serial game on the GR x GC torus (one halo ring copied each time). */
static unsigned char *serial(int GR, int GC, int gens)
{
    int w = GC + 2;
    size_t cells = (size_t)(GR + 2) * (size_t)w;
    unsigned char *a = calloc(cells, 1), *b = calloc(cells, 1);
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    for (int i = 0; i < GR; i++)
        for (int j = 0; j < GC; j++) a[(size_t)(i + 1) * w + j + 1] = initial(i, j);
    for (int g = 0; g < gens; g++) {
        for (int i = 0; i < GR + 2; i++)
            for (int j = 0; j < w; j++) {
                int si = (i - 1 + GR) % GR + 1, sj = (j - 1 + GC) % GC + 1;
                a[(size_t)i * w + j] = a[(size_t)si * w + sj];
            }
        for (int i = 1; i <= GR; i++)
            for (int j = 1; j <= GC; j++) b[(size_t)i * w + j] = rule(a + (size_t)i * w + j, w);
        unsigned char *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = 32, h = 2, gens = 60, use_mpi = 0, check = 1, fault = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-n") && a + 1 < argc)
            n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-w") && a + 1 < argc)
            h = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-g") && a + 1 < argc)
            gens = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--mpi"))
            use_mpi = 1;
        else if (!strcmp(argv[a], "--no-check"))
            check = 0;
        else if (!strcmp(argv[a], "--inject-fault"))
            fault = 1;
        else
            n = -1;
    }
    if (n < 1 || h < 1 || h > n || gens < 0) {
        if (!rank)
            fprintf(stderr, "usage: life [-n tile >= 1] [-w halo_width 1..tile] [-g generations >= 0] [--mpi] "
                            "[--no-check] [--inject-fault]\n");
        MPI_Finalize();
        return 2;
    }

    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, t = 8;
    int target[16] = { 0, 1, 0, -1, -1, 0, 1, 0, -1, 1, 1, 1, 1, -1, -1, -1 }, given[16], weight[8];
    memcpy(given, target, sizeof given);
    if (fault) { /* swap right (0,1) and up (-1,0) */
        given[0] = target[4], given[1] = target[5];
        given[4] = target[0], given[5] = target[1];
    }
    for (int i = 0; i < t; i++) weight[i] = target[2 * i] && target[2 * i + 1] ? h * h : h * n;
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, t, given, weight, MPI_INFO_NULL, 0, &cart);
    int me, coords[2];
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 2, coords);
    int GR = n * dims[0], GC = n * dims[1], w = n + 2 * h;

    /* h rows of the tile, h columns, an h x h corner. */
    MPI_Datatype rows, cols, corner;
    MPI_Type_vector(h, n, w, MPI_UNSIGNED_CHAR, &rows);
    MPI_Type_vector(n, h, w, MPI_UNSIGNED_CHAR, &cols);
    MPI_Type_vector(h, h, w, MPI_UNSIGNED_CHAR, &corner);
    MPI_Type_commit(&rows);
    MPI_Type_commit(&cols);
    MPI_Type_commit(&corner);
    int count[8];
    MPI_Aint sdisp[8], rdisp[8];
    MPI_Datatype type[8];
    for (int i = 0; i < t; i++) {
        int dr = target[2 * i], dc = target[2 * i + 1];
        /* The tile's border facing R + N[i]; the halo facing R - N[i]. */
        int sr = dr > 0 ? n : h, sc = dc > 0 ? n : h;
        int rr = dr > 0 ? 0 : dr < 0 ? n + h : h, rc = dc > 0 ? 0 : dc < 0 ? n + h : h;
        count[i] = 1;
        type[i] = dr && dc ? corner : dr ? rows : cols;
        sdisp[i] = (MPI_Aint)sr * w + sc;
        rdisp[i] = (MPI_Aint)rr * w + rc;
    }

    size_t cells = (size_t)w * (size_t)w;
    unsigned char *g[2] = { calloc(cells, 1), calloc(cells, 1) };
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) g[0][(size_t)(i + h) * w + j + h] = initial(coords[0] * n + i, coords[1] * n + j);

    exchange halo;
    if (exchange_init(&halo, cart, t, g[0], g[1], count, sdisp, rdisp, type, weight, use_mpi) != MPI_SUCCESS) {
        fprintf(stderr, "life: rank %d: cannot plan the halo exchange\n", me);
        MPI_Abort(cart, 1);
    }

    /* Exchange, then up to h generations on shrinking regions. */
    double t_exch = 0.0, t0 = MPI_Wtime();
    int cur = 0, exchanges = 0;
    for (int done = 0; done < gens;) {
        double te = MPI_Wtime();
        exchange_run(&halo, cur);
        t_exch += MPI_Wtime() - te;
        exchanges++;
        for (int s = 1; s <= h && done < gens; s++, done++) {
            step(g[cur], g[1 - cur], w, s, w - 1 - s);
            cur = 1 - cur;
        }
    }
    double times[2] = { MPI_Wtime() - t0, t_exch };
    MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, cart);

    long live[2] = { 0, 0 }; /* parallel, serial */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) live[0] += g[cur][(size_t)(i + h) * w + j + h];
    int bad = 0;
    if (check) {
        unsigned char *s = serial(GR, GC, gens);
        if (!s) {
            fprintf(stderr, "life: rank %d: no memory for the serial check (use --no-check)\n", me);
            bad = 1;
        } else {
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    int gi = coords[0] * n + i, gj = coords[1] * n + j;
                    unsigned char x = g[cur][(size_t)(i + h) * w + j + h], y = s[(size_t)(gi + 1) * (GC + 2) + gj + 1];
                    live[1] += y;
                    if (x != y && bad++ < 3)
                        fprintf(stderr, "life: rank %d: cell (%d,%d) is %s after %d generations, the serial game says %s\n",
                                me, gi, gj, x ? "alive" : "dead", gens, y ? "alive" : "dead");
                }
            free(s);
        }
    }
    int anybad = bad != 0;
    MPI_Allreduce(MPI_IN_PLACE, &anybad, 1, MPI_INT, MPI_MAX, cart);
    MPI_Allreduce(MPI_IN_PLACE, live, 2, MPI_LONG, MPI_SUM, cart);
    if (check && live[0] != live[1]) anybad = 1;

    int rounds = t;
    if (!use_mpi) Cart_schedule_stats(cart, CART_ALLTOALL, CART_ALGORITHM_AUTO, NULL, &rounds, NULL);
    if (me == 0) {
        const char *how = exchange_name(&halo);
        printf("life: %s - %d processes (%dx%d torus), %dx%d tiles of a %dx%d grid, halo width %d by %s (%d neighbours, "
               "%d rounds)%s: %d generations, %d exchanges, %ld live cells; ",
               !check ? "UNCHECKED" : anybad ? "FAIL" : "PASS", size, dims[0], dims[1], n, n, GR, GC, h, how, t, rounds,
               fault ? ", FAULT INJECTED" : "", gens, exchanges, live[0]);
        if (check) printf("%s the serial game (%ld live); ", anybad ? "DIFFERS FROM" : "matches", live[1]);
        printf("%.2f us per generation, of which exchange %.2f us\n", gens ? 1e6 * times[0] / gens : 0.0,
               gens ? 1e6 * times[1] / gens : 0.0);
    }

    exchange_free(&halo);
    MPI_Type_free(&rows);
    MPI_Type_free(&cols);
    MPI_Type_free(&corner);
    free(g[0]);
    free(g[1]);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
