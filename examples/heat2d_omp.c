/* heat2d_omp: hybrid MPI + OpenMP Jacobi heat diffusion whose halo
 * exchange is a partitioned neighbourhood alltoall [Holmes et al. 2021]: OpenMP
 * threads each own a stripe of rows of the local tile and hand the border
 * cells of their stripe to the exchange (Cart_pready) as soon as they have
 * computed them -- no join before the exchange starts.
 *
 * The plate is split into n x n tiles on a non-periodic process mesh
 * (MPI_Dims_create); each tile is stored with a halo of depth 1 in an
 * (n+2) x (n+2) row-major matrix whose ring on the plate's border holds the
 * fixed boundary temperature (1 along the top edge, 0 elsewhere).  The
 * stencil is the 5-point one: 4 neighbours, offsets up, down, left, right.
 * The exchange's blocks are packed rows and columns of n doubles, each cut
 * into T partitions of n/T cells (T threads, n a multiple of T), so that
 * partition h of the left and right columns is exactly the border of
 * thread h's stripe:
 *
 *   send block   to          cells                 partitions marked by
 *   0            up          row 1 of the tile     thread 0 (all T)
 *   1            down        row n                 thread T-1 (all T)
 *   2            left        column 1              thread h: partition h
 *   3            right       column n              thread h: partition h
 *
 * Receive block i comes from R - N[i]: block 0 (the lower neighbour's top
 * row) fills the bottom halo row, block 1 the top halo row, block 2 the
 * right halo column, block 3 the left one; every thread unpacks the halo
 * cells its own stripe reads.  Off the mesh the source is MPI_PROC_NULL and
 * the boundary ring stays as it is.
 *
 * One iteration: the main thread starts the persistent partitioned request
 * (Cart_palltoall_init, planned once), then in one parallel region each
 * thread sweeps its stripe into the new matrix, packs its border cells and
 * marks their partitions; the main thread completes the exchange with
 * Cart_wait (under MPI_THREAD_FUNNELED the other threads' marks make no MPI
 * call: the main thread's Cart_wait sends them; under MPI_THREAD_MULTIPLE
 * they leave from the marking thread at once); after a barrier each thread
 * unpacks its halo cells.  The largest change is reduced (OpenMP, then
 * MPI_Allreduce) and the iteration stops below the tolerance.
 *
 * --datatypes exchanges straight from and into the matrices, no packing:
 * Cart_palltoallw_init with a row of doubles for the up and down blocks and
 * a column (one double resized to a row's extent, n of them) for the left
 * and right ones, so partition h of a column block is again thread h's
 * border; two requests, one per matrix of the Jacobi pair.
 *
 * --join runs the same iteration with a persistent Cart_alltoall_init
 * started after the threads have joined (the usual fork-join halo
 * exchange), to compare the answers and the times.
 *
 * Check: every process runs the same Jacobi iteration serially on the whole
 * plate and compares its own tile (bit for bit) and the iteration count;
 * one MPI_Allreduce gives the verdict.  A wrong value prints FAIL and the
 * program exits with status 1.
 *
 *   mpirun -n 4 heat2d_omp [-t threads] [-n tile] [-i max_iterations]
 *                          [-e tolerance] [--multiple] [--join] [--datatypes]
 *                          [--no-check] [--inject-fault]
 *
 *   -t              OpenMP threads (default: omp_get_max_threads()); the
 *                   tile size n must be a multiple of it
 *   --multiple      MPI_Init_thread with MPI_THREAD_MULTIPLE (default
 *                   MPI_THREAD_FUNNELED)
 *   --datatypes     Cart_palltoallw_init on the matrices (no packing)
 *   --inject-fault  test switch: swap the up and down offsets of the
 *                   neighbourhood given to Cart_neighborhood_create; the
 *                   check must fail
 */
#include <cartcoll.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T = 4 }; /* neighbours of the 5-point stencil */

/* The 5-point Jacobi update of the cell at a (rows w apart). */
static double update5(const double *a, int w) { return 0.25 * (a[-1] + a[1] + a[-w] + a[w]); }

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
            double x = update5(a + (size_t)i * w + j, w);
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
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    for (int i = 0; i < GR + 2; i++)
        for (int j = 0; j < w; j++)
            if (i == 0 || j == 0 || i == GR + 1 || j == GC + 1)
                a[(size_t)i * w + j] = b[(size_t)i * w + j] = boundary(i - 1, j - 1);
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

/* What the steps of main share. */
typedef struct heat {
    int n, nt, maxit, multiple, join, check, fault, dtypes; /* the options */
    double tol;
    int size, me, dims[2], coords[2]; /* this process's tile on the mesh */
    int GR, GC, w;                    /* the plate; the matrix row length */
    MPI_Comm cart;
    int src[T], dst[T];       /* neighbour ranks (MPI_PROC_NULL off the mesh) */
    double *sbuf, *rbuf;      /* T packed blocks of n cells each */
    Cart_request req;         /* the partitioned (or, --join, persistent) exchange */
    Cart_request wreq[2];     /* --datatypes: the exchange on matrix 0, 1 */
    MPI_Datatype col;         /* --datatypes: one cell of a column (a row's extent) */
    double *u[2], diff, time; /* the matrices, last change, seconds */
    int it, cur;              /* iterations done, current matrix */
} heat;

static int options(heat *h, int argc, char **argv)
{
    h->n = 48, h->nt = omp_get_max_threads(), h->maxit = 500, h->tol = 1e-4;
    h->multiple = h->join = h->fault = h->dtypes = 0, h->check = 1;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-n") && a + 1 < argc) h->n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-t") && a + 1 < argc) h->nt = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-i") && a + 1 < argc) h->maxit = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-e") && a + 1 < argc) h->tol = atof(argv[++a]);
        else if (!strcmp(argv[a], "--multiple")) h->multiple = 1;
        else if (!strcmp(argv[a], "--join")) h->join = 1;
        else if (!strcmp(argv[a], "--datatypes")) h->dtypes = 1;
        else if (!strcmp(argv[a], "--no-check")) h->check = 0;
        else if (!strcmp(argv[a], "--inject-fault")) h->fault = 1;
        else return 0;
    }
    return h->n >= 1 && h->nt >= 1 && h->n % h->nt == 0 && h->maxit >= 1 && h->tol > 0 && !(h->join && h->dtypes);
}

/* The 5-point neighbourhood on a non-periodic mesh of all processes. */
static int create_mesh(heat *h)
{
    static const int five[2 * T] = { -1, 0, 1, 0, 0, -1, 0, 1 }; /* up, down, left, right */
    int given[2 * T], periods[2] = { 0, 0 }, weights[T];
    memcpy(given, five, sizeof given);
    if (h->fault) /* up and down swapped: rows travel the wrong way */
        given[0] = 1, given[2] = -1;
    for (int i = 0; i < T; i++) weights[i] = h->n;
    h->dims[0] = h->dims[1] = 0;
    MPI_Dims_create(h->size, 2, h->dims);
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, 2, h->dims, periods, T, given, weights, MPI_INFO_NULL, 0,
                                      &h->cart);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Comm_rank(h->cart, &h->me);
    MPI_Cart_coords(h->cart, h->me, 2, h->coords);
    h->GR = h->n * h->dims[0], h->GC = h->n * h->dims[1], h->w = h->n + 2;
    int sw[T], dw[T];
    return Cart_neighbor_get(h->cart, T, h->src, sw, T, h->dst, dw);
}

/* Matrices (boundary ring set, interior 0) and the exchange's buffers. */
static int init_matrices(heat *h)
{
    int n = h->n, w = h->w;
    size_t cells = (size_t)w * (size_t)w;
    h->u[0] = calloc(cells, sizeof(double));
    h->u[1] = calloc(cells, sizeof(double));
    h->sbuf = calloc((size_t)T * (size_t)n, sizeof(double));
    h->rbuf = calloc((size_t)T * (size_t)n, sizeof(double));
    if (!h->u[0] || !h->u[1] || !h->sbuf || !h->rbuf) return 0;
    for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
            int gi = h->coords[0] * n + i - 1, gj = h->coords[1] * n + j - 1;
            if (gi < 0 || gj < 0 || gi >= h->GR || gj >= h->GC)
                h->u[0][(size_t)i * w + j] = h->u[1][(size_t)i * w + j] = boundary(gi, gj);
        }
    return 1;
}

/* Thread th's stripe: tile rows r0..r1 (1-based matrix rows). */
static void stripe(const heat *h, int th, int *r0, int *r1)
{
    int rows = h->n / h->nt;
    *r0 = 1 + th * rows, *r1 = *r0 + rows - 1;
}

/* Pack the border cells of thread th's stripe of matrix b into the send
 * blocks; with a request, mark their partitions ready at once. */
static void pack(heat *h, const double *b, int th, Cart_request req)
{
    int n = h->n, w = h->w, nt = h->nt, r0, r1;
    stripe(h, th, &r0, &r1);
    for (int i = r0; i <= r1 && !h->dtypes; i++) { /* (--datatypes: the matrix is the buffer) */
        h->sbuf[2 * n + (i - 1)] = b[(size_t)i * w + 1]; /* left column */
        h->sbuf[3 * n + (i - 1)] = b[(size_t)i * w + n]; /* right column */
    }
    if (th == 0 && !h->dtypes) memcpy(h->sbuf, b + (size_t)w + 1, sizeof(double) * (size_t)n); /* top row */
    if (th == nt - 1 && !h->dtypes)
        memcpy(h->sbuf + n, b + (size_t)n * w + 1, sizeof(double) * (size_t)n); /* bottom row */
    if (req == CART_REQUEST_NULL) return;
    /* partition k of block i is number i * nt + k */
    Cart_pready(2 * nt + th, req);
    Cart_pready(3 * nt + th, req);
    if (th == 0) Cart_pready_range(0, nt - 1, req);
    if (th == nt - 1) Cart_pready_range(nt, 2 * nt - 1, req);
}

/* Unpack the halo cells thread th's stripe of matrix b reads. */
static void unpack(heat *h, double *b, int th)
{
    int n = h->n, w = h->w, r0, r1;
    stripe(h, th, &r0, &r1);
    for (int i = r0; i <= r1; i++) {
        if (h->src[3] != MPI_PROC_NULL) b[(size_t)i * w] = h->rbuf[3 * n + (i - 1)];
        if (h->src[2] != MPI_PROC_NULL) b[(size_t)i * w + n + 1] = h->rbuf[2 * n + (i - 1)];
    }
    if (th == 0 && h->src[1] != MPI_PROC_NULL) memcpy(b + 1, h->rbuf + n, sizeof(double) * (size_t)n);
    if (th == h->nt - 1 && h->src[0] != MPI_PROC_NULL)
        memcpy(b + (size_t)(n + 1) * w + 1, h->rbuf, sizeof(double) * (size_t)n);
}

/* --datatypes: the exchange on each matrix, from its border rows and
 * columns into its halo (byte displacements from the matrix): blocks up,
 * down, left, right send row 1, row n, column 1, column n and receive into
 * the halo row below, the halo row above, the right and the left halo
 * column; nt partitions per block (partition h of a column: thread h's
 * rows). */
static int plan_datatypes(heat *h)
{
    int n = h->n, w = h->w, nt = h->nt, parts[T];
    MPI_Type_create_resized(MPI_DOUBLE, 0, (MPI_Aint)w * (MPI_Aint)sizeof(double), &h->col);
    MPI_Type_commit(&h->col);
    MPI_Count cnt[T];
    MPI_Aint sd[T], rd[T];
    MPI_Datatype ty[T] = { MPI_DOUBLE, MPI_DOUBLE, h->col, h->col };
    const size_t cell[2][T] = { { (size_t)w + 1, (size_t)n * w + 1, (size_t)w + 1, (size_t)w + n },
                                { (size_t)(n + 1) * w + 1, 1, (size_t)w + n + 1, (size_t)w } };
    for (int i = 0; i < T; i++) {
        parts[i] = nt, cnt[i] = n / nt;
        sd[i] = (MPI_Aint)(cell[0][i] * sizeof(double)), rd[i] = (MPI_Aint)(cell[1][i] * sizeof(double));
    }
    int rc = MPI_SUCCESS;
    for (int m = 0; m < 2 && rc == MPI_SUCCESS; m++)
        rc = Cart_palltoallw_init(h->u[m], parts, cnt, sd, ty, h->u[m], parts, cnt, rd, ty, h->cart, MPI_INFO_NULL,
                                  &h->wreq[m]);
    return rc;
}

/* Jacobi iterations until the largest change falls below the tolerance. */
static void iterate(heat *h)
{
    h->it = 0, h->cur = 0;
    double t0 = MPI_Wtime();
    for (;;) {
        double *a = h->u[h->cur], *b = h->u[1 - h->cur], diff = 0.0;
        if (h->dtypes) h->req = h->wreq[1 - h->cur]; /* the exchange on b */
        if (!h->join) Cart_start(&h->req);
#pragma omp parallel num_threads(h->nt) reduction(max : diff)
        {
            int th = omp_get_thread_num(), r0, r1;
            stripe(h, th, &r0, &r1);
            diff = sweep(a, b, h->w, r0, r1, 1, h->n);
            /* the stripe's border leaves now, whatever the other threads do */
            pack(h, b, th, h->join ? CART_REQUEST_NULL : h->req);
            if (!h->join) {
#pragma omp master
                Cart_wait(&h->req); /* the main thread drives the exchange */
#pragma omp barrier
                if (!h->dtypes) unpack(h, b, th); /* (--datatypes: the halo arrived in place) */
            }
        }
        if (h->join) { /* fork-join: the exchange after the threads have joined */
            Cart_start(&h->req);
            Cart_wait(&h->req);
#pragma omp parallel num_threads(h->nt)
            unpack(h, b, omp_get_thread_num());
        }
        h->cur = 1 - h->cur;
        h->it++;
        MPI_Allreduce(&diff, &h->diff, 1, MPI_DOUBLE, MPI_MAX, h->cart);
        if (h->diff < h->tol || h->it == h->maxit) break;
    }
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(&dt, &h->time, 1, MPI_DOUBLE, MPI_MAX, h->cart);
}

/* This process's tile against the serial solution: wrong cells (the first
 * 3 are reported) and the iteration count. */
static int check(const heat *h, double *maxerr)
{
    int bad = 0, siters = 0, n = h->n, w = h->w;
    *maxerr = 0.0;
    double *s = serial(h->GR, h->GC, h->maxit, h->tol, &siters);
    if (!s) {
        fprintf(stderr, "heat2d_omp: rank %d: no memory for the serial check (use --no-check)\n", h->me);
        return 1;
    }
    const double *u = h->u[h->cur];
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double x = u[(size_t)i * w + j];
            double y = s[(size_t)(h->coords[0] * n + i) * (size_t)(h->GC + 2) + (size_t)(h->coords[1] * n + j)];
            double e = fabs(x - y);
            if (!(e == 0.0) && bad++ < 3)
                fprintf(stderr, "heat2d_omp: rank %d: cell (%d,%d) is %.17g, the serial solver gives %.17g\n", h->me,
                        h->coords[0] * n + i - 1, h->coords[1] * n + j - 1, x, y);
            if (isnan(e)) *maxerr = INFINITY;
            else if (e > *maxerr) *maxerr = e;
        }
    if (siters != h->it) {
        if (!bad)
            fprintf(stderr, "heat2d_omp: rank %d: %d iterations, the serial solver needs %d\n", h->me, h->it, siters);
        bad++;
    }
    free(s);
    return bad;
}

int main(int argc, char **argv)
{
    heat h;
    int parsed = options(&h, argc, argv), provided, rank;
    MPI_Init_thread(&argc, &argv, h.multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &h.size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!parsed) {
        if (!rank)
            fprintf(stderr, "usage: heat2d_omp [-t threads] [-n tile, a multiple of threads] [-i max_iterations] "
                            "[-e tolerance > 0] [--multiple] [--join | --datatypes] [--no-check] [--inject-fault]\n");
        MPI_Finalize();
        return 2;
    }
    if (provided < (h.multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED)) {
        if (!rank) fprintf(stderr, "heat2d_omp: the MPI library does not provide the thread level asked for\n");
        MPI_Finalize();
        return 2;
    }
    if (create_mesh(&h) != MPI_SUCCESS || !init_matrices(&h)) {
        fprintf(stderr, "heat2d_omp: rank %d: cannot set up\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The exchange, planned once: T blocks of n doubles; partitioned, nt
     * partitions of n/nt cells per block on both sides. */
    int n = h.n, rc;
    if (h.join)
        rc = Cart_alltoall_init(h.sbuf, n, MPI_DOUBLE, h.rbuf, n, MPI_DOUBLE, h.cart, MPI_INFO_NULL, &h.req);
    else if (h.dtypes)
        rc = plan_datatypes(&h);
    else
        rc = Cart_palltoall_init(h.sbuf, h.nt, n / h.nt, MPI_DOUBLE, h.rbuf, h.nt, n / h.nt, MPI_DOUBLE, h.cart,
                                 MPI_INFO_NULL, &h.req);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "heat2d_omp: rank %d: cannot plan the halo exchange\n", h.me);
        MPI_Abort(h.cart, 1);
    }
    iterate(&h);
    double maxerr = 0.0;
    int bad = h.check ? check(&h, &maxerr) != 0 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, h.cart);
    MPI_Allreduce(MPI_IN_PLACE, &maxerr, 1, MPI_DOUBLE, MPI_MAX, h.cart);
    if (h.me == 0) {
        printf("heat2d_omp: %s - %d processes (%dx%d mesh) x %d threads (%s), %dx%d tiles of a %dx%d plate, "
               "5-point Jacobi, halo by %s%s: %d iterations, last change %.3g; ",
               !h.check ? "UNCHECKED" : bad ? "FAIL" : "PASS", h.size, h.dims[0], h.dims[1], h.nt,
               provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_FUNNELED", h.n, h.n, h.GR, h.GC,
               h.join     ? "Cart_alltoall_init after the join"
               : h.dtypes ? "Cart_palltoallw_init on the matrices, threads marking their stripes"
                          : "Cart_palltoall_init, threads marking their stripes",
               h.fault ? ", FAULT INJECTED" : "", h.it, h.diff);
        if (h.check) printf("%s the serial solver (max difference %.3g); ", bad ? "DIFFERS FROM" : "matches", maxerr);
        printf("%.2f us per iteration\n", 1e6 * h.time / h.it);
    }
    if (h.dtypes) {
        Cart_request_free(&h.wreq[0]);
        Cart_request_free(&h.wreq[1]);
        MPI_Type_free(&h.col);
    } else {
        Cart_request_free(&h.req);
    }
    MPI_Comm_free(&h.cart);
    free(h.u[0]), free(h.u[1]), free(h.sbuf), free(h.rbuf);
    MPI_Finalize();
    return bad ? 1 : 0;
}
