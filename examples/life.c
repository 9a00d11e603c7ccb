/* life: Conway's Game of Life on a periodic 2-D grid with a deep halo,
 * written the way [Traff et al. 2021] proposes (Figure 1b, Listing 7): a Cartesian
 * naming, a neighbourhood from the naming, a distributed graph that the
 * library recognises as a stencil, and one interface set -- the same
 * Cart_allreduce is a neighbourhood reduction on the graph and a global one
 * on its base communicator.
 *
 * Set-up: Cart_name puts a periodic MPI_Dims_create grid on a duplicate of
 * MPI_COMM_WORLD (no new communicator, no reordering); Cart_neighbors
 * (Chebyshev distance, shadow 1, depth 1) lists the 8 offsets N[i];
 * Cart_allranks_relative turns them into the ranks of R - N[i] (sources)
 * and R + N[i] (destinations) for Cart_dist_graph_create_adjacent, which
 * detects that every process lists the same offsets and gives the graph
 * Cartesian schedules (CARTCOLL_VERBOSE=1 says "Cartesian").  The graph keeps
 * the ranks (reorder 0: cartcoll does not yet detect graphs whose ranks MPI
 * reordered), so the tile of rank r sits at Cart_coordinates(r).  A first
 * Cart_allreduce on the graph, each process contributing 1, must count the
 * 8 in-edges; Cart_comm_base(graph) is the plain communicator for the
 * global reductions.
 *
 * The game: each process owns an n x n tile stored with a halo of width h in
 * an (n+2h) x (n+2h) row-major matrix of bytes.  One exchange (a persistent
 * Cart_alltoallw on the graph, h-deep row, column and corner blocks as
 * datatypes, block i to the i-th destination and from the i-th source)
 * fills the whole halo; then h generations are computed locally, each on a
 * region one cell smaller all round (generation s is valid on rows and
 * columns s .. n+2h-1-s), so after h generations exactly the tile is valid
 * and the next exchange is due.  Deeper halos trade redundant computation
 * for h times fewer exchanges.  With h <= n the neighbourhood stays the 8
 * neighbours of the 9-point stencil, with h-wide blocks.
 *
 * Check: every process plays the same game serially on the whole grid from
 * the same initial pattern (a hash of the global coordinates) and compares
 * its own tile; Cart_allreduce on Cart_comm_base(graph) -- global meaning --
 * gives the verdict and the number of live cells, which is compared too.
 * --sparse-check adds Listing 7's neighbourhood reduction: after every
 * exchange block each process sums, with one Cart_allreduce(MPI_SUM) on the
 * graph (neighbourhood meaning: the send buffers of its 8 in-neighbours,
 * one per edge), the live cells of its neighbours' tiles and compares the
 * sum with the serial game's.  A wrong cell or sum makes the program print
 * FAIL and exit with status 1.
 *
 *   mpirun -n 4 life [-n tile] [-w halo_width] [-g generations]
 *                    [--mpi] [--no-check] [--sparse-check] [--inject-fault]
 *
 * --mpi runs the exchange with MPI_Neighbor_alltoallw (persistent with MPI 4)
 * on the same graph; --no-check skips the serial game (and so cannot be
 * combined with --sparse-check); --inject-fault swaps the neighbours at
 * offsets (0,1) and (-1,0) in the graph's source and destination lists
 * while the blocks stay where they were, so the halos arrive in the wrong
 * places and the check must fail.
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

/* ---- The serial game: the oracle ---------------------------------------- */

/* The GR x GC torus with a one-cell halo ring, (GR+2) x (GC+2). */
typedef struct {
    int GR, GC, w;
    unsigned char *a, *b;
} serial_game;

static int serial_init(serial_game *s, int GR, int GC)
{
    s->GR = GR;
    s->GC = GC;
    s->w = GC + 2;
    size_t cells = (size_t)(GR + 2) * (size_t)s->w;
    s->a = calloc(cells, 1);
    s->b = calloc(cells, 1);
    if (!s->a || !s->b) return -1;
    for (int i = 0; i < GR; i++)
        for (int j = 0; j < GC; j++) s->a[(size_t)(i + 1) * s->w + j + 1] = initial(i, j);
    return 0;
}

/* One generation: copy the wrapped ring, then the rule on the interior. */
static void serial_step(serial_game *s)
{
    int GR = s->GR, GC = s->GC, w = s->w;
    for (int i = 0; i < GR + 2; i++)
        for (int j = 0; j < w; j++) {
            int si = (i - 1 + GR) % GR + 1, sj = (j - 1 + GC) % GC + 1;
            s->a[(size_t)i * w + j] = s->a[(size_t)si * w + sj];
        }
    for (int i = 1; i <= GR; i++)
        for (int j = 1; j <= GC; j++) s->b[(size_t)i * w + j] = rule(s->a + (size_t)i * w + j, w);
    unsigned char *t = s->a;
    s->a = s->b;
    s->b = t;
}

static unsigned char serial_cell(const serial_game *s, int gi, int gj)
{
    return s->a[(size_t)(gi + 1) * s->w + gj + 1];
}

/* Live cells of the n x n tile at tile coordinates (ti, tj), wrapped. */
static long serial_tile_live(const serial_game *s, int n, const int tiles[2], int ti, int tj)
{
    ti = ((ti % tiles[0]) + tiles[0]) % tiles[0];
    tj = ((tj % tiles[1]) + tiles[1]) % tiles[1];
    long live = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) live += serial_cell(s, ti * n + i, tj * n + j);
    return live;
}

static void serial_free(serial_game *s)
{
    free(s->a);
    free(s->b);
}

/* Live cells of this process's tile in matrix m (w wide, halo h). */
static long tile_live(const unsigned char *m, int n, int h, int w)
{
    long live = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) live += m[(size_t)(i + h) * w + j + h];
    return live;
}

/* ---- The program ---------------------------------------------------------- */

enum { T = 8 }; /* neighbours of the 9-point stencil */

/* What the steps of main share: the options, the naming and the graph,
 * the blocks of the exchange, the game and its outcome. */
typedef struct life {
    int n, h, gens, use_mpi, check, sparse, fault; /* the options */
    int size, me, dims[2], coords[2];  /* this process's tile on the torus */
    int GR, GC, w;                     /* the grid; the matrix row length */
    MPI_Comm comm, graph, base;        /* named duplicate, detected graph, its base */
    int N[2 * T], weight[T];           /* the neighbourhood (as it truly is) */
    int count[T];                      /* block i of the exchange */
    MPI_Aint sdisp[T], rdisp[T];
    MPI_Datatype rows, cols, corner, type[T];
    exchange halo;
    unsigned char *g[2];               /* the matrices */
    int cur, exchanges;                /* current matrix, exchanges done */
    serial_game ser;                   /* the oracle (check) */
    int ser_gen;                       /* its generation */
    int bad, sparse_bad, sparse_checks;
    double times[3];                   /* game, exchanges, sparse reductions */
} life;

/* The command line into L; 1 when it is valid. */
static int options(life *L, int argc, char **argv)
{
    L->n = 32, L->h = 2, L->gens = 60, L->use_mpi = 0, L->check = 1, L->sparse = 0, L->fault = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-n") && a + 1 < argc)
            L->n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-w") && a + 1 < argc)
            L->h = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-g") && a + 1 < argc)
            L->gens = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--mpi"))
            L->use_mpi = 1;
        else if (!strcmp(argv[a], "--no-check"))
            L->check = 0;
        else if (!strcmp(argv[a], "--sparse-check"))
            L->sparse = 1;
        else if (!strcmp(argv[a], "--inject-fault"))
            L->fault = 1;
        else
            return 0;
    }
    return L->n >= 1 && L->h >= 1 && L->h <= L->n && L->gens >= 0 && !(L->sparse && !L->check);
}

/* Naming: a periodic MPI_Dims_create grid on a duplicate of MPI_COMM_WORLD
 * [Traff et al. 2021, Listing 7], this process's place in it, and the neighbourhood
 * from the naming: the 8 Moore offsets, (-1,-1) ... (1,1). */
static void name_grid(life *L)
{
    int periods[2] = { 1, 1 }, gridsize, t = -1;
    MPI_Comm_dup(MPI_COMM_WORLD, &L->comm);
    L->dims[0] = L->dims[1] = 0;
    MPI_Dims_create(L->size, 2, L->dims);
    Cart_name(L->comm, 2, CART_ROW_MAJOR, L->dims, periods, &gridsize);
    MPI_Comm_rank(L->comm, &L->me);
    Cart_coordinates(L->comm, L->me, L->coords);
    Cart_neighbors_count(L->comm, L->me, CART_CHEBYSHEV, 1, 1, &t);
    if (t != T) { /* every offset stays on a torus */
        fprintf(stderr, "life: rank %d: Cart_neighbors_count gives %d neighbours, not %d\n", L->me, t, T);
        MPI_Abort(L->comm, 1);
    }
    Cart_neighbors(L->comm, L->me, CART_CHEBYSHEV, 1, 1, T, L->N);
    /* Weights: cells exchanged with each neighbour (a hint for mapping). */
    for (int i = 0; i < T; i++) L->weight[i] = L->N[2 * i] && L->N[2 * i + 1] ? L->h * L->h : L->h * L->n;
    L->GR = L->n * L->dims[0], L->GC = L->n * L->dims[1], L->w = L->n + 2 * L->h;
}

/* The graph: sources R - N[i], destinations R + N[i] (--inject-fault: the
 * neighbours at (0,1) and (-1,0) swapped in both lists), which cartcoll
 * detects as Cartesian; then its base communicator. */
static void create_graph(life *L)
{
    int given[2 * T], minus[2 * T], src[T], dst[T], a = -1, b = -1;
    memcpy(given, L->N, sizeof given);
    for (int i = 0; i < T; i++) {
        if (L->N[2 * i] == 0 && L->N[2 * i + 1] == 1) a = i;
        if (L->N[2 * i] == -1 && L->N[2 * i + 1] == 0) b = i;
    }
    if (L->fault && a >= 0 && b >= 0) {
        given[2 * a] = L->N[2 * b], given[2 * a + 1] = L->N[2 * b + 1];
        given[2 * b] = L->N[2 * a], given[2 * b + 1] = L->N[2 * a + 1];
    }
    for (int i = 0; i < 2 * T; i++) minus[i] = -given[i];
    Cart_allranks_relative(L->comm, L->me, T, minus, src); /* R - N[i] */
    Cart_allranks_relative(L->comm, L->me, T, given, dst); /* R + N[i] */
    /* reorder 0: cartcoll does not yet detect graphs whose ranks MPI reordered */
    Cart_dist_graph_create_adjacent(L->comm, T, src, L->weight, T, dst, L->weight, MPI_INFO_NULL, 0, &L->graph);
    /* Listing 7's sparse reduction at its simplest: every in-neighbour
     * contributes 1, so each process must count its 8 in-edges. */
    int one = 1, indeg = -1;
    Cart_allreduce(&one, &indeg, 1, MPI_INT, MPI_SUM, L->graph);
    if (indeg != T) {
        fprintf(stderr, "life: rank %d: Cart_allreduce on the graph counts %d in-neighbours, not %d\n", L->me, indeg, T);
        MPI_Abort(L->comm, 1);
    }
    Cart_comm_base(L->graph, &L->base); /* the same processes, no topology: global meaning */
}

/* h rows of the tile, h columns, an h x h corner; block i is the tile's
 * border facing R + N[i] (send) and the halo facing R - N[i] (receive). */
static void describe_blocks(life *L)
{
    int n = L->n, h = L->h, w = L->w;
    MPI_Type_vector(h, n, w, MPI_UNSIGNED_CHAR, &L->rows);
    MPI_Type_vector(n, h, w, MPI_UNSIGNED_CHAR, &L->cols);
    MPI_Type_vector(h, h, w, MPI_UNSIGNED_CHAR, &L->corner);
    MPI_Type_commit(&L->rows);
    MPI_Type_commit(&L->cols);
    MPI_Type_commit(&L->corner);
    for (int i = 0; i < T; i++) {
        int dr = L->N[2 * i], dc = L->N[2 * i + 1];
        int sr = dr > 0 ? n : h, sc = dc > 0 ? n : h;
        int rr = dr > 0 ? 0 : dr < 0 ? n + h : h, rc = dc > 0 ? 0 : dc < 0 ? n + h : h;
        L->count[i] = 1;
        L->type[i] = dr && dc ? L->corner : dr ? L->rows : L->cols;
        L->sdisp[i] = (MPI_Aint)sr * w + sc;
        L->rdisp[i] = (MPI_Aint)rr * w + rc;
    }
}

/* The tiles from the initial pattern, the exchange planned once per matrix
 * (Cart_alltoallw_init on the graph, or --mpi's MPI_Neighbor_alltoallw on
 * it), the serial game when checking. */
static void init_game(life *L)
{
    int n = L->n, h = L->h, w = L->w;
    size_t cells = (size_t)w * (size_t)w;
    L->g[0] = calloc(cells, 1);
    L->g[1] = calloc(cells, 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            L->g[0][(size_t)(i + h) * w + j + h] = initial(L->coords[0] * n + i, L->coords[1] * n + j);
    L->cur = L->exchanges = L->ser_gen = 0;
    L->bad = L->sparse_bad = L->sparse_checks = 0;
    if (exchange_init_graph(&L->halo, L->graph, T, L->g[0], L->g[1], L->count, L->sdisp, L->rdisp, L->type,
                            L->use_mpi) != MPI_SUCCESS) {
        fprintf(stderr, "life: rank %d: cannot plan the halo exchange\n", L->me);
        MPI_Abort(L->comm, 1);
    }
    L->ser = (serial_game){ 0, 0, 0, NULL, NULL };
    if (L->check && serial_init(&L->ser, L->GR, L->GC)) {
        fprintf(stderr, "life: rank %d: no memory for the serial check (use --no-check)\n", L->me);
        L->check = L->sparse = 0;
        L->bad = 1;
    }
}

/* --sparse-check after a block, at generation gen: each process's tile
 * count, summed over its in-neighbours by Cart_allreduce on the graph
 * (timed), against the serial game's sum over R - N[i] (untimed). */
static void sparse_check(life *L, int gen)
{
    long mine = tile_live(L->g[L->cur], L->n, L->h, L->w), got = -1, want = 0;
    double ts = MPI_Wtime();
    Cart_allreduce(&mine, &got, 1, MPI_LONG, MPI_SUM, L->graph); /* over the 8 in-neighbours */
    L->times[2] += MPI_Wtime() - ts;
    for (; L->ser_gen < gen; L->ser_gen++) serial_step(&L->ser);
    for (int i = 0; i < T; i++)
        want += serial_tile_live(&L->ser, L->n, L->dims, L->coords[0] - L->N[2 * i], L->coords[1] - L->N[2 * i + 1]);
    L->sparse_checks++;
    if (got == want) return;
    fprintf(stderr, "life: rank %d: generation %d: Cart_allreduce over the %d neighbours gives %ld live cells, the "
                    "serial game %ld\n", L->me, gen, T, got, want);
    L->sparse_bad = 1;
}

/* Exchange, then up to h generations on shrinking regions; the tile is
 * valid again after each block (where --sparse-check checks).  times[0]:
 * the game without the checks' serial work; then the slowest process's. */
static void play(life *L)
{
    int h = L->h, w = L->w;
    L->times[0] = L->times[1] = L->times[2] = 0.0;
    double t0 = MPI_Wtime(), t_oracle = 0.0;
    for (int done = 0; done < L->gens;) {
        double te = MPI_Wtime();
        exchange_run(&L->halo, L->cur);
        L->times[1] += MPI_Wtime() - te;
        L->exchanges++;
        for (int s = 1; s <= h && done < L->gens; s++, done++) {
            step(L->g[L->cur], L->g[1 - L->cur], w, s, w - 1 - s);
            L->cur = 1 - L->cur;
        }
        if (L->sparse) {
            double tx = MPI_Wtime(), before = L->times[2];
            sparse_check(L, done);
            t_oracle += MPI_Wtime() - tx - (L->times[2] - before);
        }
    }
    L->times[0] = MPI_Wtime() - t0 - t_oracle;
    Cart_allreduce(MPI_IN_PLACE, L->times, 3, MPI_DOUBLE, MPI_MAX, L->base);
}

/* The check against the serial game, agreed by Cart_allreduce on the base
 * communicator (global meaning): live[0] parallel, live[1] serial; fail[0]
 * a cell or count differs, fail[1] a neighbourhood sum differed. */
static void verdict(life *L, long live[2], int fail[2])
{
    int n = L->n, h = L->h, w = L->w;
    live[0] = tile_live(L->g[L->cur], n, h, w);
    live[1] = 0;
    if (L->check) {
        for (; L->ser_gen < L->gens; L->ser_gen++) serial_step(&L->ser);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int gi = L->coords[0] * n + i, gj = L->coords[1] * n + j;
                unsigned char x = L->g[L->cur][(size_t)(i + h) * w + j + h], y = serial_cell(&L->ser, gi, gj);
                live[1] += y;
                if (x != y && L->bad++ < 3)
                    fprintf(stderr, "life: rank %d: cell (%d,%d) is %s after %d generations, the serial game says %s\n",
                            L->me, gi, gj, x ? "alive" : "dead", L->gens, y ? "alive" : "dead");
            }
    }
    fail[0] = L->bad != 0;
    fail[1] = L->sparse_bad;
    Cart_allreduce(MPI_IN_PLACE, fail, 2, MPI_INT, MPI_MAX, L->base);
    Cart_allreduce(MPI_IN_PLACE, live, 2, MPI_LONG, MPI_SUM, L->base);
    if (L->check && live[0] != live[1]) fail[0] = 1;
}

/* The result line (rank 0).  Whether the library took the graph for a
 * stencil: only then has it Cartesian schedule statistics (a graph that is
 * not raises MPI_ERR_TOPOLOGY, returned here instead of aborting). */
static void report(const life *L, const long live[2], const int fail[2])
{
    int rounds = -1;
    MPI_Comm_set_errhandler(L->graph, MPI_ERRORS_RETURN);
    int cartesian = Cart_schedule_stats(L->graph, CART_ALLTOALL, CART_ALGORITHM_AUTO, NULL, &rounds, NULL) == MPI_SUCCESS;
    MPI_Comm_set_errhandler(L->graph, MPI_ERRORS_ARE_FATAL);
    if (L->me) return;
    printf("life: %s - %d processes (%dx%d torus), %dx%d tiles of a %dx%d grid, halo width %d by %s on a "
           "Cart_dist_graph_create_adjacent graph (%d neighbours, %s)%s: %d generations, %d exchanges, %ld live "
           "cells; ",
           !L->check ? "UNCHECKED" : fail[0] || fail[1] ? "FAIL" : "PASS", L->size, L->dims[0], L->dims[1], L->n, L->n,
           L->GR, L->GC, L->h, exchange_name(&L->halo), T, cartesian ? "detected as Cartesian" : "not detected as Cartesian",
           L->fault ? ", FAULT INJECTED" : "", L->gens, L->exchanges, live[0]);
    if (L->check) printf("%s the serial game (%ld live); ", fail[0] ? "DIFFERS FROM" : "matches", live[1]);
    if (L->sparse)
        printf("%d neighbourhood sums by Cart_allreduce on the graph %s (%.2f us each); ", L->sparse_checks,
               fail[1] ? "DIFFER FROM the serial game's" : "match the serial game's",
               L->sparse_checks ? 1e6 * L->times[2] / L->sparse_checks : 0.0);
    printf("%.2f us per generation, of which exchange %.2f us\n", L->gens ? 1e6 * L->times[0] / L->gens : 0.0,
           L->gens ? 1e6 * L->times[1] / L->gens : 0.0);
}

static void destroy(life *L)
{
    exchange_free(&L->halo);
    serial_free(&L->ser);
    MPI_Type_free(&L->rows);
    MPI_Type_free(&L->cols);
    MPI_Type_free(&L->corner);
    free(L->g[0]);
    free(L->g[1]);
    MPI_Comm_free(&L->base);
    MPI_Comm_free(&L->graph);
    MPI_Comm_free(&L->comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    life L;
    int rank;
    MPI_Comm_size(MPI_COMM_WORLD, &L.size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!options(&L, argc, argv)) {
        if (!rank)
            fprintf(stderr, "usage: life [-n tile >= 1] [-w halo_width 1..tile] [-g generations >= 0] [--mpi] "
                            "[--no-check | --sparse-check] [--inject-fault]\n");
        MPI_Finalize();
        return 2;
    }
    name_grid(&L);
    create_graph(&L);
    describe_blocks(&L);
    init_game(&L);
    play(&L);
    long live[2];
    int fail[2];
    verdict(&L, live, fail);
    report(&L, live, fail);
    destroy(&L);
    MPI_Finalize();
    return fail[0] || fail[1] ? 1 : 0;
}
