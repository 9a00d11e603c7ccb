/* model_rank: the cost model's ranking against a recorded cartbench run
 * (issue 28; docs/performance.md, "The cost model against 16 cores").
 * For every cell of a summary (cartbench's condensed rows
 *   cb,np,d,n,t,op,m,mpi,floor,cart,cart-d,cart-c,...
 * medians in us) it prices DIRECT and COMBINING with the executors a
 * blocking call with a cached plan uses, says which the model takes, and
 * divides that variant's measured time by the better of the two forced
 * ones.  The machine parameters are the calibrated ones the run's log
 * printed for that neighbourhood (cartcoll: Cart_neighborhood_create: ...
 * alpha=...), else the median of those printed.  No MPI, no timing: the
 * model with fixed parameters is deterministic.
 * Usage: model_rank SUMMARY [LOG]   (scripts/model_rank.sh runs it) */
#include "model_cells.h"

#include "sched/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLOG 64

typedef struct logged {
    int d, n;
    cc_cost_params p;
} logged;

static int nlogged;
static logged logs[MAXLOG];

static void read_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f) && nlogged < MAXLOG) {
        const char *a = strstr(line, "alpha=");
        const char *o = strstr(line, "overhead="), *b = strstr(line, "beta=");
        logged *l = &logs[nlogged];
        if (a && o && b && strstr(line, "Cart_neighborhood_create") &&
            sscanf(line, "moore:%d,%d", &l->d, &l->n) == 2 && sscanf(a, "alpha=%lf", &l->p.alpha) == 1 &&
            sscanf(o, "overhead=%lf", &l->p.overhead) == 1 && sscanf(b, "beta=%lf", &l->p.beta) == 1)
            nlogged++;
    }
    if (f) fclose(f);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmp);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* Without a logged calibration: the median of each logged parameter (the
 * four logged neighbourhoods of the 16-core run agree within 1.4x). */
static cc_cost_params params_for(int d, int n)
{
    double a[MAXLOG], b[MAXLOG], o[MAXLOG];
    for (int i = 0; i < nlogged; i++) {
        if (logs[i].d == d && logs[i].n == n) return logs[i].p;
        a[i] = logs[i].p.alpha, b[i] = logs[i].p.beta, o[i] = logs[i].p.overhead;
    }
    if (!nlogged) return (cc_cost_params){ 1e-6, 1e-10, 2.5e-7 }; /* the library's defaults */
    return (cc_cost_params){ median(a, nlogged), median(b, nlogged), median(o, nlogged) };
}

typedef struct tally {
    int np, cells, within;
} tally;

static const char *name(const mc_cand *c, int alg)
{
    if (alg == CC_DIRECT) return c->pack ? "D/pack" : "D/dt";
    return "C/dt";
}

/* One summary row; returns 0 if it is a cell, printing it. */
static int row(const char *line, tally tl[2])
{
    mc_cell c = { 0 };
    char op[32];
    int t, m;
    double v[8];
    if (sscanf(line, "cb,%d,%d,%d,%d,%31[a-z],%d,%lf,%lf,%lf,%lf,%lf", &c.np, &c.d, &c.n, &t, op, &m, &v[0], &v[1],
               &v[2], &v[3], &v[4]) != 11)
        return -1;
    c.collective = strcmp(op, "alltoall") == 0 ? CC_ALLTOALL : strcmp(op, "allgather") == 0 ? CC_ALLGATHER : 0;
    if (!c.collective) return -1;
    c.bytes = 4.0 * m; /* cartbench's blocks are m ints */
    cc_cost_params p = params_for(c.d, c.n);
    if (mc_evaluate(&c, &p) != 0) return -1;
    double auto_us = v[2], d_us = v[3], c_us = v[4], best = d_us < c_us ? d_us : c_us;
    double chosen = c.choice == CC_DIRECT ? d_us : c_us;
    char grid[64] = "", *g = grid;
    for (int k = 0; k < c.d; k++) g += sprintf(g, k ? "x%d" : "%d", c.dims[k]);
    printf("| %2d | moore:%d,%d | %-9s | %-9s | %4d | %8.2f %-6s | %8.2f %-4s | %-6s | %7.3g | %7.3g | %5.2f | %5.2f |\n",
           c.np, c.d, c.n, grid, op, m, c.direct.cost * 1e6, name(&c.direct, CC_DIRECT), c.combining.cost * 1e6,
           name(&c.combining, CC_COMBINING), c.choice == CC_DIRECT ? "DIRECT" : "COMB", d_us, c_us, chosen / best,
           auto_us / best);
    tally *x = &tl[c.np == 16];
    x->np = c.np;
    x->cells++;
    x->within += chosen <= 1.10 * best;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: model_rank SUMMARY [LOG]\n");
        return 2;
    }
    if (argc > 2) read_log(argv[2]);
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    printf("| np | nbh | grid | op | m | model DIRECT [us] | model COMB [us] | model takes | meas. DIRECT [us] | "
           "meas. COMB [us] | taken / best | auto then / best |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    char line[4096];
    tally tl[2] = { { 0 } };
    while (fgets(line, sizeof line, f)) row(line, tl);
    fclose(f);
    for (int i = 1; i >= 0; i--)
        if (tl[i].cells)
            printf("\n%d processes: the model's choice within 10%% of the better forced variant in %d of %d cells\n",
                   tl[i].np, tl[i].within, tl[i].cells);
    return 0;
}
