/* partbench: the early-bird gain of partitioned neighbourhood collectives
 * (seed 004).  Each process has T OpenMP threads and every block of a
 * neighbourhood alltoall (t blocks of B bytes of doubles) P partitions
 * (-p, default T); thread h owns partitions h, h + T, h + 2T, ... of every
 * block and "computes" them one after the other, each for a random time
 * (uniform in [c/2, c]; -L: the last partition, P-1, takes L times
 * longer).  With -t 1 -p P one thread per process produces the partitions
 * in turn, as a single-threaded stencil code computes its halo strips.
 * Then the exchange runs:
 *   part   Cart_palltoall_init once; per iteration Cart_start, each thread
 *          calls Cart_pready for each of its partitions as soon as it has
 *          written it,
 *          Cart_wait after the join;
 *   join   Cart_alltoall_init once; per iteration the threads compute,
 *          join, then Cart_start + Cart_wait (start after join).
 * The two run interleaved (same random times for both), the median time
 * per iteration of each and the ratio join/part are reported; every
 * result is checked against the values each sender wrote.  "threads done"
 * is the median time at which the slowest process's threads had all
 * finished (the partitioned operation cannot complete before: the
 * laggard's partitions are written then), so join / (join's threads done)
 * is the ceiling of the ratio for these parameters on this machine: what
 * a partitioned operation whose last partitions arrived in no time would
 * reach.  Computing is
 * simulated by sleeping (so that threads do not compete for cores on a
 * small machine: the gain measured is the overlap of communication with
 * other threads' work); --compute spin makes the threads busy-wait
 * instead (on oversubscribed cores the scheduler then decides much of
 * the time: expect noise).
 *
 * --op allreduce times the neighbourhood allreduce instead (one buffer of
 * P partitions of B/P bytes, summed over the in-neighbours): partitioned
 * Cart_pallreduce_init against start-after-join Cart_allreduce_init.
 *
 * Usage: partbench [-t THREADS] [-p PARTITIONS] [-b BYTES per block] [-c USEC] [-L FACTOR]
 *                  [--reps R] [--warmup W] [--radius R] [-d D] [--csv FILE]
 *                  [--op alltoall|allreduce] [--compute sleep|spin]
 * Needs MPI_THREAD_MULTIPLE for the marks to leave at once (with
 * MPI_THREAD_FUNNELED only the main thread's partitions leave early). */
#define _POSIX_C_SOURCE 200809L
#include <cartcoll.h>

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int spin; /* --compute spin: busy threads instead of sleeping ones */

static void work(double usec)
{
    if (spin) {
        double end = omp_get_wtime() + usec * 1e-6;
        while (omp_get_wtime() < end)
            ;
        return;
    }
    struct timespec ts = { (time_t)(usec / 1e6), (long)((usec - 1e6 * (double)(time_t)(usec / 1e6)) * 1e3) };
    nanosleep(&ts, NULL);
}

static double value(int rank, int block, size_t e, int it) { return rank * 1e6 + block * 1e3 + (double)(e % 997) + it; }

/* The command line. */
typedef struct opts {
    int T, P, reps, warm, d, radius, allreduce;
    long bytes;
    double c, L;
    const char *csv;
} opts;

static void parse(int argc, char **argv, int me, opts *o)
{
    *o = (opts){ .T = 4, .reps = 30, .warm = 3, .d = 2, .radius = 1, .bytes = 1 << 20, .c = 2000, .L = 4 };
    for (int a = 1; a + 1 < argc; a += 2) {
        const char *k = argv[a], *v = argv[a + 1];
        if (!strcmp(k, "-t")) o->T = atoi(v);
        else if (!strcmp(k, "-p")) o->P = atoi(v);
        else if (!strcmp(k, "-b")) o->bytes = atol(v);
        else if (!strcmp(k, "-c")) o->c = atof(v);
        else if (!strcmp(k, "-L")) o->L = atof(v);
        else if (!strcmp(k, "--reps")) o->reps = atoi(v);
        else if (!strcmp(k, "--warmup")) o->warm = atoi(v);
        else if (!strcmp(k, "-d")) o->d = atoi(v);
        else if (!strcmp(k, "--radius")) o->radius = atoi(v);
        else if (!strcmp(k, "--csv")) o->csv = v;
        else if (!strcmp(k, "--compute") && (!strcmp(v, "sleep") || !strcmp(v, "spin"))) spin = !strcmp(v, "spin");
        else if (!strcmp(k, "--op") && (!strcmp(v, "alltoall") || !strcmp(v, "allreduce")))
            o->allreduce = !strcmp(v, "allreduce");
        else {
            if (!me) fprintf(stderr, "partbench: unknown option %s (see the comment at the top of partbench.c)\n", k);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (o->P == 0) o->P = o->T;
    if (o->T < 1 || o->P < 1 || o->d < 1 || o->d > 8 || o->radius < 1 || o->reps < 1 || o->bytes < 8 * o->P) {
        if (!me) fprintf(stderr, "partbench: bad arguments\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* One run's neighbourhood, buffers, the two requests and the times. */
typedef struct bench {
    int me, p, t, m, nb, *src;
    size_t blk, n;
    double *sb, *rb, *tp, *tj, *cp, *cj, *cost;
    MPI_Comm cart;
    Cart_request part, join;
} bench;

static void setup(const opts *o, bench *b)
{
    int dims[8] = { 0 }, periods[8], t = 0;
    for (int k = 0; k < o->d; k++) periods[k] = 1;
    MPI_Dims_create(b->p, o->d, dims);
    Cart_stencil_count(o->d, CART_CHEBYSHEV, 1, o->radius, &t);
    int *st = malloc(sizeof(int) * (size_t)t * (size_t)o->d), *dst = malloc(sizeof(int) * (size_t)t);
    int *wts = malloc(sizeof(int) * 2 * (size_t)t);
    b->src = malloc(sizeof(int) * (size_t)t);
    b->t = t;
    Cart_stencil(o->d, CART_CHEBYSHEV, 1, o->radius, t, st);
    Cart_neighborhood_create(MPI_COMM_WORLD, o->d, dims, periods, t, st, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &b->cart);
    Cart_neighbor_get(b->cart, t, b->src, wts, t, dst, wts + t);
    free(st), free(dst), free(wts);
    /* a block: P partitions of m doubles */
    b->m = (int)(o->bytes / 8 / o->P);
    b->blk = (size_t)b->m * (size_t)o->P;
    b->n = o->allreduce ? b->blk : b->blk * (size_t)t;
    b->nb = o->allreduce ? 1 : t; /* blocks of the send and receive buffers */
    b->sb = malloc(sizeof(double) * b->n);
    b->rb = malloc(sizeof(double) * b->n);
    if (o->allreduce) {
        Cart_pallreduce_init(b->sb, b->rb, o->P, b->m, MPI_DOUBLE, MPI_SUM, b->cart, MPI_INFO_NULL, &b->part);
        Cart_allreduce_init(b->sb, b->rb, (int)b->blk, MPI_DOUBLE, MPI_SUM, b->cart, MPI_INFO_NULL, &b->join);
    } else {
        Cart_palltoall_init(b->sb, o->P, b->m, MPI_DOUBLE, b->rb, o->P, b->m, MPI_DOUBLE, b->cart, MPI_INFO_NULL,
                            &b->part);
        Cart_alltoall_init(b->sb, (int)b->blk, MPI_DOUBLE, b->rb, (int)b->blk, MPI_DOUBLE, b->cart, MPI_INFO_NULL,
                           &b->join);
    }
    size_t r = (size_t)o->reps;
    b->tp = malloc(sizeof(double) * r), b->tj = malloc(sizeof(double) * r);
    b->cp = malloc(sizeof(double) * r), b->cj = malloc(sizeof(double) * r);
    b->cost = malloc(sizeof(double) * (size_t)o->P);
}

/* Whether iteration it's result is what the senders wrote: 0 or 1 (bad). */
static long check(const opts *o, const bench *b, int it)
{
    if (o->allreduce) { /* the sum over the in-neighbours (integers: exact) */
        for (size_t e = 0; e < b->blk; e++) {
            double want = 0;
            for (int i = 0; i < b->t; i++) want += value(b->src[i], 0, e, it);
            if (b->rb[e] != want) return 1;
        }
        return 0;
    }
    long bad = 0;
    for (int i = 0; i < b->t; i++)
        for (size_t e = 0; e < b->blk; e++)
            if (b->rb[(size_t)i * b->blk + e] != value(b->src[i], i, e, it)) {
                bad++;
                break;
            }
    return bad;
}

/* One timed exchange: partitioned (threads mark each partition as they
 * finish it) or start after join.  Returns the number of wrong blocks. */
static long exchange(const opts *o, bench *b, int it, int use_part)
{
    int m = b->m;
    for (size_t e = 0; e < b->n; e++) b->rb[e] = -1;
    MPI_Barrier(b->cart);
    double t0 = MPI_Wtime();
    if (use_part) Cart_start(&b->part);
#pragma omp parallel
    {
        for (int h = omp_get_thread_num(); h < o->P; h += o->T) {
            work(b->cost[h]);
            for (int i = 0; i < b->nb; i++) /* partition h of every block, written, then ready */
                for (int e = 0; e < m; e++)
                    b->sb[(size_t)i * b->blk + (size_t)h * (size_t)m + (size_t)e] =
                        value(b->me, i, (size_t)h * (size_t)m + (size_t)e, it);
            if (use_part)
                for (int i = 0; i < b->nb; i++) Cart_pready(i * o->P + h, b->part);
        }
    }
    double tc = MPI_Wtime() - t0; /* every thread done computing */
    if (use_part) {
        Cart_wait(&b->part);
    } else {
        Cart_start(&b->join);
        Cart_wait(&b->join);
    }
    double dt[2] = { MPI_Wtime() - t0, tc }, mx[2];
    MPI_Allreduce(dt, mx, 2, MPI_DOUBLE, MPI_MAX, b->cart);
    if (it >= o->warm) {
        (use_part ? b->tp : b->tj)[it - o->warm] = mx[0];
        (use_part ? b->cp : b->cj)[it - o->warm] = mx[1];
    }
    return check(o, b, it);
}

static void report(const opts *o, bench *b, int provided, long allbad)
{
    int reps = o->reps;
    qsort(b->tp, (size_t)reps, sizeof(double), cmp);
    qsort(b->tj, (size_t)reps, sizeof(double), cmp);
    qsort(b->cp, (size_t)reps, sizeof(double), cmp);
    qsort(b->cj, (size_t)reps, sizeof(double), cmp);
    double mp = b->tp[reps / 2], mj = b->tj[reps / 2], cp = b->cp[reps / 2], cj = b->cj[reps / 2];
    if (b->me) return;
    printf("# partbench %s: %d processes, %d threads (%s), %d partitions per block, Moore d=%d radius %d (t=%d), %ld bytes per block, "
           "compute %.0f us (laggard x%.1f), %d reps after %d\n",
           o->allreduce ? "allreduce" : "alltoall", b->p, o->T,
           provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "below MULTIPLE", o->P, o->d, o->radius, b->t,
           (long)(b->blk * 8), o->c, o->L, reps, o->warm);
    printf("variant  median[us]  threads done[us]\npart     %10.1f  %10.1f\njoin     %10.1f  %10.1f\n"
           "ratio join/part: %.2f%s\nceiling join/(threads done): %.2f\n",
           mp * 1e6, cp * 1e6, mj * 1e6, cj * 1e6, mj / mp, allbad ? "  (RESULTS WRONG)" : "", mj / cj);
    FILE *f = o->csv ? fopen(o->csv, "w") : NULL;
    if (f) {
        fprintf(f, "procs,threads,partitions,d,radius,bytes,compute_us,laggard,part_us,join_us,ratio,part_done_us,"
                   "join_done_us\n");
        fprintf(f, "%d,%d,%d,%d,%d,%ld,%.0f,%.1f,%.1f,%.1f,%.3f,%.1f,%.1f\n", b->p, o->T, o->P, o->d, o->radius,
                (long)(b->blk * 8), o->c, o->L, mp * 1e6, mj * 1e6, mj / mp, cp * 1e6, cj * 1e6);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    int provided;
    opts o;
    bench b = { 0 };
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.me);
    MPI_Comm_size(MPI_COMM_WORLD, &b.p);
    parse(argc, argv, b.me, &o);
    omp_set_num_threads(o.T);
    setup(&o, &b);
    unsigned seed = 12345u + (unsigned)b.me;
    long bad = 0, allbad = 0;
    for (int it = 0; it < o.warm + o.reps; it++) {
        for (int h = 0; h < o.P; h++) {
            seed = seed * 1103515245u + 12345u;
            b.cost[h] = o.c * (0.5 + 0.5 * (double)(seed >> 8 & 0xffff) / 65535.0) * (h == o.P - 1 ? o.L : 1.0);
        }
        for (int v = 0; v < 2; v++) bad += exchange(&o, &b, it, (it + v) % 2 == 0); /* alternate which goes first */
    }
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, b.cart);
    report(&o, &b, provided, allbad);
    Cart_request_free(&b.part);
    Cart_request_free(&b.join);
    MPI_Comm_free(&b.cart);
    free(b.src), free(b.sb), free(b.rb), free(b.tp), free(b.tj), free(b.cp), free(b.cj), free(b.cost);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
