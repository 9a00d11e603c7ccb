/* partbench: the early-bird gain of partitioned neighbourhood collectives
 * (seed 004).  Each process has T OpenMP threads; thread h owns partition
 * h of every block of a neighbourhood alltoall (t blocks of B bytes of
 * doubles, T partitions each).  Per iteration every thread "computes" its
 * partition for a random time (uniform in [c/2, c]; --laggard: thread T-1
 * takes L times longer), then the exchange runs:
 *   part   Cart_palltoall_init once; per iteration Cart_start, each thread
 *          calls Cart_pready for its partitions as soon as it is done,
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
 * T partitions of B bytes, summed over the in-neighbours): partitioned
 * Cart_pallreduce_init against start-after-join Cart_allreduce_init.
 *
 * Usage: partbench [-t THREADS] [-b BYTES per block] [-c USEC] [-L FACTOR]
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

int main(int argc, char **argv)
{
    int T = 4, reps = 30, warm = 3, d = 2, radius = 1, provided;
    long bytes = 1 << 20;
    double c = 2000, L = 4;
    const char *csv = NULL;
    int allreduce = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int a = 1; a + 1 < argc; a += 2) {
        const char *k = argv[a], *v = argv[a + 1];
        if (!strcmp(k, "-t")) T = atoi(v);
        else if (!strcmp(k, "-b")) bytes = atol(v);
        else if (!strcmp(k, "-c")) c = atof(v);
        else if (!strcmp(k, "-L")) L = atof(v);
        else if (!strcmp(k, "--reps")) reps = atoi(v);
        else if (!strcmp(k, "--warmup")) warm = atoi(v);
        else if (!strcmp(k, "-d")) d = atoi(v);
        else if (!strcmp(k, "--radius")) radius = atoi(v);
        else if (!strcmp(k, "--csv")) csv = v;
        else if (!strcmp(k, "--compute") && (!strcmp(v, "sleep") || !strcmp(v, "spin"))) spin = !strcmp(v, "spin");
        else if (!strcmp(k, "--op") && (!strcmp(v, "alltoall") || !strcmp(v, "allreduce")))
            allreduce = !strcmp(v, "allreduce");
        else {
            if (!me) fprintf(stderr, "partbench: unknown option %s (see the comment at the top of partbench.c)\n", k);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (T < 1 || d < 1 || d > 8 || radius < 1 || reps < 1 || bytes < 8 * T) {
        if (!me) fprintf(stderr, "partbench: bad arguments\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    omp_set_num_threads(T);
    int dims[8] = { 0 }, periods[8], t = 0;
    for (int k = 0; k < d; k++) periods[k] = 1;
    MPI_Dims_create(p, d, dims);
    Cart_stencil_count(d, CART_CHEBYSHEV, 1, radius, &t);
    int *st = malloc(sizeof(int) * (size_t)t * (size_t)d), *src = malloc(sizeof(int) * (size_t)t);
    int *dst = malloc(sizeof(int) * (size_t)t), *wts = malloc(sizeof(int) * 2 * (size_t)t);
    Cart_stencil(d, CART_CHEBYSHEV, 1, radius, t, st);
    MPI_Comm cart;
    Cart_neighborhood_create(MPI_COMM_WORLD, d, dims, periods, t, st, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart);
    Cart_neighbor_get(cart, t, src, wts, t, dst, wts + t);
    /* a block: T partitions of m doubles */
    int m = (int)(bytes / 8 / T);
    size_t blk = (size_t)m * (size_t)T, n = blk * (size_t)t;
    int nb = allreduce ? 1 : t; /* blocks of the send and receive buffers */
    if (allreduce) n = blk;
    double *sb = malloc(sizeof(double) * n), *rb = malloc(sizeof(double) * n);
    Cart_request part, join;
    if (allreduce) {
        Cart_pallreduce_init(sb, rb, T, m, MPI_DOUBLE, MPI_SUM, cart, MPI_INFO_NULL, &part);
        Cart_allreduce_init(sb, rb, (int)blk, MPI_DOUBLE, MPI_SUM, cart, MPI_INFO_NULL, &join);
    } else {
        Cart_palltoall_init(sb, T, m, MPI_DOUBLE, rb, T, m, MPI_DOUBLE, cart, MPI_INFO_NULL, &part);
        Cart_alltoall_init(sb, (int)blk, MPI_DOUBLE, rb, (int)blk, MPI_DOUBLE, cart, MPI_INFO_NULL, &join);
    }
    double *tp = malloc(sizeof(double) * (size_t)reps), *tj = malloc(sizeof(double) * (size_t)reps);
    double *cp = malloc(sizeof(double) * (size_t)reps), *cj = malloc(sizeof(double) * (size_t)reps);
    double *cost = malloc(sizeof(double) * (size_t)T);
    unsigned seed = 12345u + (unsigned)me;
    long bad = 0;
    for (int it = 0; it < warm + reps; it++) {
        for (int h = 0; h < T; h++) {
            seed = seed * 1103515245u + 12345u;
            cost[h] = c * (0.5 + 0.5 * (double)(seed >> 8 & 0xffff) / 65535.0) * (h == T - 1 ? L : 1.0);
        }
        for (int v = 0; v < 2; v++) {
            int use_part = (it + v) % 2 == 0; /* alternate which goes first */
            for (size_t e = 0; e < n; e++) rb[e] = -1;
            MPI_Barrier(cart);
            double t0 = MPI_Wtime();
            if (use_part) Cart_start(&part);
#pragma omp parallel
            {
                int h = omp_get_thread_num();
                work(cost[h]);
                for (int i = 0; i < nb; i++) /* my partition of every block, written, then ready */
                    for (int e = 0; e < m; e++)
                        sb[(size_t)i * blk + (size_t)h * (size_t)m + (size_t)e] =
                            value(me, i, (size_t)h * (size_t)m + (size_t)e, it);
                if (use_part)
                    for (int i = 0; i < nb; i++) Cart_pready(i * T + h, part);
            }
            double tc = MPI_Wtime() - t0; /* every thread done computing */
            if (use_part) {
                Cart_wait(&part);
            } else {
                Cart_start(&join);
                Cart_wait(&join);
            }
            double dt[2] = { MPI_Wtime() - t0, tc }, mx[2];
            MPI_Allreduce(dt, mx, 2, MPI_DOUBLE, MPI_MAX, cart);
            if (it >= warm) (use_part ? tp : tj)[it - warm] = mx[0];
            if (it >= warm) (use_part ? cp : cj)[it - warm] = mx[1];
            if (allreduce) { /* the sum over the in-neighbours (integers: exact) */
                for (size_t e = 0; e < blk; e++) {
                    double want = 0;
                    for (int i = 0; i < t; i++) want += value(src[i], 0, e, it);
                    if (rb[e] != want) {
                        bad++;
                        break;
                    }
                }
            } else {
                for (int i = 0; i < t; i++)
                    for (size_t e = 0; e < blk; e++)
                        if (rb[(size_t)i * blk + e] != value(src[i], i, e, it)) {
                            bad++;
                            break;
                        }
            }
        }
    }
    long allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, cart);
    qsort(tp, (size_t)reps, sizeof(double), cmp);
    qsort(tj, (size_t)reps, sizeof(double), cmp);
    qsort(cp, (size_t)reps, sizeof(double), cmp);
    qsort(cj, (size_t)reps, sizeof(double), cmp);
    double mp = tp[reps / 2], mj = tj[reps / 2];
    if (!me) {
        printf("# partbench %s: %d processes, %d threads (%s), Moore d=%d radius %d (t=%d), %ld bytes per block, "
               "compute %.0f us (laggard x%.1f), %d reps after %d\n",
               allreduce ? "allreduce" : "alltoall", p, T,
               provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "below MULTIPLE", d, radius, t,
               (long)(blk * 8), c, L, reps, warm);
        printf("variant  median[us]  threads done[us]\npart     %10.1f  %10.1f\njoin     %10.1f  %10.1f\n"
               "ratio join/part: %.2f%s\nceiling join/(threads done): %.2f\n",
               mp * 1e6, cp[reps / 2] * 1e6, mj * 1e6, cj[reps / 2] * 1e6, mj / mp, allbad ? "  (RESULTS WRONG)" : "",
               mj / cj[reps / 2]);
        if (csv) {
            FILE *f = fopen(csv, "w");
            if (f) {
                fprintf(f, "procs,threads,d,radius,bytes,compute_us,laggard,part_us,join_us,ratio,part_done_us,"
                           "join_done_us\n");
                fprintf(f, "%d,%d,%d,%d,%ld,%.0f,%.1f,%.1f,%.1f,%.3f,%.1f,%.1f\n", p, T, d, radius, (long)(blk * 8), c,
                        L, mp * 1e6, mj * 1e6, mj / mp, cp[reps / 2] * 1e6, cj[reps / 2] * 1e6);
                fclose(f);
            }
        }
    }
    Cart_request_free(&part);
    Cart_request_free(&join);
    MPI_Comm_free(&cart);
    free(st), free(src), free(dst), free(wts), free(sb), free(rb), free(tp), free(tj), free(cp), free(cj), free(cost);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
