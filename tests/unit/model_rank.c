/* model_rank: the cost model's ranking against a recorded cartbench run
 * (issue 28; docs/performance.md, "The cost model against 16 cores").
 * For every cell of a summary (cartbench's condensed rows
 *   cb,np,d,n,t,op,m,mpi,floor,cart,cart-d,cart-c,...
 * medians in us) it prices DIRECT and COMBINING with the executors a
 * blocking call with a cached plan uses, says which the model takes, and
 * divides that variant's measured time by the better of the two forced
 * ones.  The machine parameters are the calibrated ones the run's log
 * printed for that neighbourhood (cartcoll: Cart_neighborhood_create: ...
 * alpha=...), else the median of those printed; without a log
 * CARTCOLL_ALPHA/BETA/OVERHEAD, else the library's defaults.  OTHER-RUN: the same
 * cells from another run (run1-summary-rows.txt's rows), its ratio beside.  No MPI, no timing: the
 * model with fixed parameters is deterministic.
 * Usage: model_rank [-f] SUMMARY [LOG [OTHER-RUN]]   (scripts/model_rank.sh runs it;
 * -f: the figures the model reads and the measured median, as CSV) */
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
        l->p.phase_wait = CC_COST_PHASE_WAIT, l->p.cpu = CC_COST_CPU; /* a real machine's, as the library's defaults */
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
    if (!nlogged) { /* as the library: CARTCOLL_ALPHA/BETA/OVERHEAD/PHASE_WAIT/CPU, else its defaults */
        const char *a_ = getenv("CARTCOLL_ALPHA"), *b_ = getenv("CARTCOLL_BETA"), *o_ = getenv("CARTCOLL_OVERHEAD");
        const char *w_ = getenv("CARTCOLL_PHASE_WAIT"), *c_ = getenv("CARTCOLL_CPU");
        double alpha = a_ ? atof(a_) : 1e-6;
        return (cc_cost_params){ alpha, b_ ? atof(b_) : 1e-10, o_ ? atof(o_) : alpha / 4,
                                 w_ && *w_ ? atof(w_) : CC_COST_PHASE_WAIT, c_ && *c_ ? atof(c_) : CC_COST_CPU };
    }
    return (cc_cost_params){ median(a, nlogged), median(b, nlogged), median(o, nlogged), CC_COST_PHASE_WAIT,
                             CC_COST_CPU };
}

/* The other run (run1-summary-rows.txt: "np moore:d,n t op variant m
 * median check" per line): its forced DIRECT and COMBINING medians. */
#define MAXOTHER 256

typedef struct other {
    int np, d, n, m;
    char op[16];
    double us[2]; /* DIRECT, COMBINING; 0: not recorded */
} other;

static int nothers;
static other others[MAXOTHER];

static other *find_other(int np, int d, int n, const char *op, int m, int add)
{
    for (int i = 0; i < nothers; i++) {
        other *o = &others[i];
        if (o->np == np && o->d == d && o->n == n && o->m == m && strcmp(o->op, op) == 0) return o;
    }
    if (!add || nothers == MAXOTHER) return NULL;
    other *o = &others[nothers++];
    *o = (other){ np, d, n, m, "", { 0, 0 } };
    snprintf(o->op, sizeof o->op, "%s", op);
    return o;
}

static void read_other(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512], op[16], variant[32];
    int np, d, n, t, m;
    double us;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%d moore:%d,%d %d %15s %31s %d %lf", &np, &d, &n, &t, op, variant, &m, &us) != 8) continue;
        int k = strcmp(variant, "cart-direct") == 0 ? 0 : strcmp(variant, "cart-combining") == 0 ? 1 : -1;
        other *o = k < 0 ? NULL : find_other(np, d, n, op, m, 1);
        if (o) o->us[k] = us;
    }
    if (f) fclose(f);
}

typedef struct tally {
    int np, cells, within, pairs, both; /* pairs: cells the other run has too */
} tally;

static const char *name(const mc_cand *c, int alg)
{
    if (alg == CC_DIRECT) return c->pack ? "D/pack" : "D/dt";
    return "C/dt";
}

static int csv; /* -f: the figures the model reads, as CSV, instead of the table */

static void print_figures(const mc_cell *c, const cc_cost_params *p, const char *op, int m, double d_us, double c_us)
{
    const mc_cand *k[2] = { &c->direct, &c->combining };
    for (int i = 0; i < 2; i++)
        printf("%d,%d,%d,%s,%d,%s,%d,%.0f,%.0f,%.0f,%.0f,%.3g,%.3g,%.3g,%.4g,%.4g\n", c->np, c->d, c->n, op, m,
               i ? "C" : "D", k[i]->pack, k[i]->f.phases, k[i]->f.rounds, k[i]->f.blocks, k[i]->f.moved, p->alpha,
               p->overhead, p->beta, k[i]->cost * 1e6, i ? c_us : d_us);
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
    if (csv) {
        print_figures(&c, &p, op, m, d_us, c_us);
        return 0;
    }
    char grid[64] = "", *g = grid, run1[16] = "-";
    for (int k = 0; k < c.d; k++) g += sprintf(g, k ? "x%d" : "%d", c.dims[k]);
    const other *o = find_other(c.np, c.d, c.n, op, m, 0);
    double r1 = 0; /* the other run's chosen / best */
    if (o && o->us[0] > 0 && o->us[1] > 0) {
        r1 = o->us[c.choice == CC_COMBINING] / (o->us[0] < o->us[1] ? o->us[0] : o->us[1]);
        snprintf(run1, sizeof run1, "%5.2f", r1);
    }
    printf("| %2d | moore:%d,%d | %-9s | %-9s | %4d | %8.2f %-6s | %8.2f %-4s | %-6s | %7.3g | %7.3g | %5.2f | %5s "
           "| %5.2f |\n",
           c.np, c.d, c.n, grid, op, m, c.direct.cost * 1e6, name(&c.direct, CC_DIRECT), c.combining.cost * 1e6,
           name(&c.combining, CC_COMBINING), c.choice == CC_DIRECT ? "DIRECT" : "COMB", d_us, c_us, chosen / best,
           run1, auto_us / best);
    tally *x = &tl[c.np == 16];
    x->np = c.np;
    x->cells++;
    x->within += chosen <= 1.10 * best;
    x->pairs += r1 > 0;
    x->both += r1 > 0 && chosen <= 1.10 * best && r1 <= 1.10;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "-f") == 0) csv = 1, argc--, argv++;
    if (argc < 2) {
        fprintf(stderr, "usage: model_rank [-f] SUMMARY [LOG [OTHER-RUN]]\n");
        return 2;
    }
    if (argc > 2) read_log(argv[2]);
    if (argc > 3) read_other(argv[3]);
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    if (csv) printf("np,d,n,op,m,alg,pack,phases,rounds,blocks,moved,alpha,overhead,beta,model_us,measured_us\n");
    else printf("| np | nbh | grid | op | m | model DIRECT [us] | model COMB [us] | model takes | meas. DIRECT [us] | "
           "meas. COMB [us] | taken / best | the same, run 1 | auto then / best |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    char line[4096];
    tally tl[2] = { { 0 } };
    while (fgets(line, sizeof line, f)) row(line, tl);
    fclose(f);
    for (int i = 1; i >= 0; i--) {
        if (!tl[i].cells || csv) continue;
        printf("\n%d processes: the model's choice within 10%% of the better forced variant in %d of %d cells", tl[i].np,
               tl[i].within, tl[i].cells);
        if (tl[i].pairs) printf("; in both runs in %d of the %d cells both runs have", tl[i].both, tl[i].pairs);
        printf("\n");
    }
    return 0;
}
