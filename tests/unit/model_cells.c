/* Cells of a recorded run through the cost model (model_cells.h). */
#include "model_cells.h"

#include "geom/geometry.h"
#include "sched/schedule.h"

#include <stdlib.h>

/* MPI_Dims_create's balanced factorisation, largest first (4x4 for 16
 * processes in 2 dimensions, 4x2x2 in 3, 2x2x2x2x1 in 5: the grids the
 * recorded run printed). */
static void dims_create(int np, int d, int dims[])
{
    for (int k = 0; k < d; k++) dims[k] = 1;
    int primes[32], np_ = 0, x = np;
    for (int q = 2; x > 1 && np_ < 32; q++)
        while (x % q == 0 && np_ < 32) primes[np_++] = q, x /= q;
    for (int i = np_ - 1; i >= 0; i--) { /* largest prime to the smallest dimension */
        int k = 0;
        for (int j = 1; j < d; j++)
            if (dims[j] < dims[k]) k = j;
        dims[k] *= primes[i];
    }
    for (int i = 0; i < d; i++) /* non-increasing, as MPI */
        for (int j = i + 1; j < d; j++)
            if (dims[j] > dims[i]) { int s = dims[i]; dims[i] = dims[j]; dims[j] = s; }
}

/* moore:d,n without the zero vector, in lexicographic order. */
static int *moore(int d, int n, int *t)
{
    int total = 1;
    for (int k = 0; k < d; k++) total *= n;
    int *off = malloc(sizeof(int) * (size_t)total * (size_t)d), c = 0;
    for (int i = 0; off && i < total; i++) {
        int x = i, zero = 1;
        for (int k = d - 1; k >= 0; k--) off[c * d + k] = x % n - 1, zero &= x % n == 1, x /= n;
        if (!zero) c++;
    }
    *t = c;
    return off;
}

static int figures(const cc_nset *ns, int coll, int alg, double bytes, mc_cand *out)
{
    cc_sched_counts k;
    if (cc_schedule_counts(ns, coll, alg, &k) != CC_OK) return -1;
    double blocks = (double)(k.entries + k.copies);
    out->f = (cc_cost_figs){ (double)k.phases, (double)k.rounds, blocks, blocks * bytes };
    /* the executors of a cached plan (choose.c): DIRECT alltoall by the size
     * of its messages, everything else the datatype executor */
    out->pack = alg == CC_DIRECT && coll == CC_ALLTOALL &&
                cc_cost_direct_packs((double)k.entries, (double)k.rounds, (double)k.entries * bytes);
    return 0;
}

int mc_evaluate(mc_cell *c, const cc_cost_params *p)
{
    if (c->d < 1 || c->d > MC_MAXD) return -1;
    int t, periods[MC_MAXD], *off = moore(c->d, c->n, &t), rc = -1;
    dims_create(c->np, c->d, c->dims);
    for (int k = 0; k < c->d; k++) periods[k] = 1;
    int *red = malloc(sizeof(int) * (size_t)t * (size_t)c->d + 1);
    unsigned char *dead = malloc((size_t)t + 1);
    if (off && red && dead) {
        cc_grid g = { c->d, c->np, c->dims, periods, 0 };
        cc_grid_reduce_all(&g, t, off, red, dead);
        cc_nset ns = { c->d, t, red, dead, periods };
        if (figures(&ns, c->collective, CC_DIRECT, c->bytes, &c->direct) == 0 &&
            figures(&ns, c->collective, CC_COMBINING, c->bytes, &c->combining) == 0) {
            c->direct.cost = cc_cost(p, &c->direct.f, c->collective, c->direct.pack);
            c->combining.cost = cc_cost(p, &c->combining.f, c->collective, c->combining.pack);
            /* choose.c: COMBINING only where DIRECT does not dominate it
             * and it is clearly cheaper */
            const cc_cost_figs *x = &c->direct.f, *y = &c->combining.f;
            int dominated = x->phases <= y->phases && x->rounds <= y->rounds && x->blocks <= y->blocks &&
                            x->moved <= y->moved;
            c->choice = !dominated && cc_cost_clearly_cheaper(c->combining.cost, c->direct.cost) ? CC_COMBINING
                                                                                                  : CC_DIRECT;
            rc = 0;
        }
    }
    free(off);
    free(red);
    free(dead);
    return rc;
}
