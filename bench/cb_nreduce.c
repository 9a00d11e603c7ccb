/* cartbench --ops allreduce: Cart_allreduce with neighbourhood meaning (sum
 * of m doubles over the in-neighbours R - N[i]) against what users write
 * today, MPI_Neighbor_allgather and a local sum (also what mpi-ortholib
 * does).  This file makes the case's buffers and expected sums and does the
 * baseline's sum; the calls are in cb_calls.c, the check in cb_global.c. */
#define _POSIX_C_SOURCE 200809L
#include "cb_nreduce.h"

#include "cb_global.h"
#include "cb_state.h"

#include <stdlib.h>
#include <string.h>

/* cb_family.setup: m doubles, the baseline's indeg*m gathered ones. */
static int nreduce_setup(kase *k, const nbhctx *c, const options *o, int op, int m)
{
    k->op = op;
    k->m = m;
    k->t = c->t;
    double need = sizeof(double) * (double)m * (4.0 + (double)(c->indeg > 0 ? c->indeg : 1));
    if (need > o->max_mib * 1048576.0) return 1;
    int sources = nreduce_buffers(k, c, (size_t)(c->indeg > 0 ? c->indeg : 1));
    k->bytes = (long long)m * (long long)sizeof(double) * sources;
    return 0;
}

int nreduce_buffers(kase *k, const nbhctx *c, size_t gathered)
{
    size_t n = (size_t)k->m;
    k->dsbuf = xmalloc(sizeof(double) * n);
    k->drbuf = xmalloc(sizeof(double) * n);
    k->dmrbuf = xmalloc(sizeof(double) * n);
    k->dexpect = xmalloc(sizeof(double) * n);
    k->dmgbuf = xmalloc(sizeof(double) * n * gathered);
    int sources = 0;
    for (int i = 0; i < c->t; i++) sources += c->exp_src[i] != MPI_PROC_NULL;
    for (int e = 0; e < k->m; e++) {
        k->dsbuf[e] = allreduce_value(world_rank, e);
        double sum = 0;
        for (int i = 0; i < c->t; i++)
            if (c->exp_src[i] != MPI_PROC_NULL) sum += allreduce_value(c->exp_src[i], e);
        k->dexpect[e] = sources ? sum : -1.0; /* no source: untouched (the checks fill -1) */
    }
    return sources;
}

/* cb_family.baseline_done: the baseline's local sum after its
 * MPI_Neighbor_allgather completed. */
static void nreduce_baseline_sum(const kase *k, const nbhctx *c)
{
    size_t m = (size_t)k->m;
    if (c->indeg == 0) return;
    memcpy(k->dmrbuf, k->dmgbuf, sizeof(double) * m);
    for (int j = 1; j < c->indeg; j++) {
        const double *b = k->dmgbuf + (size_t)j * m;
        for (size_t e = 0; e < m; e++) k->dmrbuf[e] += b[e];
    }
}

const cb_family cb_nreduce_family = {
    .setup = nreduce_setup, .clear = allreduce_clear, .verify = allreduce_verify, .baseline_done = nreduce_baseline_sum
};
