/* cartbench --global-allreduce: Cart_allreduce on a communicator without
 * topology (MPI's global meaning) against MPI_Allreduce, sum of m doubles.
 * The case runs through run_case like a neighbourhood's (interleaved,
 * the same statistics); this file makes its communicators and buffers and
 * checks its results against the exact sum (the neighbourhood allreduce's
 * too, cb_nreduce.c). */
#define _POSIX_C_SOURCE 200809L
#include "cb_global.h"

#include "cb_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int setup_global(nbhctx *c, MPI_Comm world)
{
    memset(c, 0, sizeof *c);
    snprintf(c->nbh.name, sizeof c->nbh.name, "global");
    c->kind = COMM_PLAIN;
    c->t = world_size; /* contributions per result */
    c->nbh_ok = 1;
    for (int a = 0; a < NALG; a++)
        for (int e = 0; e < NEX; e++) c->comm[a][e] = MPI_COMM_NULL;
    c->graph = c->plain = MPI_COMM_NULL;
    for (int k = 0; k < NCOMM; k++) c->alt[k] = MPI_COMM_NULL;
    /* Separate duplicates, so that neither implementation's state (cartcoll
     * caches its classification on the communicator) touches the other's. */
    int rc = MPI_Comm_dup(world, &c->graph);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(world, &c->alt[COMM_PLAIN]);
    if (rc != MPI_SUCCESS) {
        report_error("MPI_Comm_dup", rc);
        return -1;
    }
    MPI_Comm_set_errhandler(c->graph, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(c->alt[COMM_PLAIN], MPI_ERRORS_RETURN);
    return 0;
}

double allreduce_value(int r, int e)
{
    return (double)(r + 1) + 4096.0 * (double)(e % 997);
}

static void fill_doubles(double *p, int n, double x)
{
    for (int i = 0; i < n; i++) p[i] = x;
}

/* cb_family.setup: buffers of m doubles and the expected sum. */
static int global_setup(kase *k, const nbhctx *c, const options *o, int op, int m)
{
    (void)c;
    k->op = op;
    k->m = m;
    k->t = world_size;
    if (4.0 * sizeof(double) * m > o->max_mib * 1048576.0) return 1;
    size_t n = (size_t)m;
    k->dsbuf = xmalloc(sizeof(double) * n);
    k->drbuf = xmalloc(sizeof(double) * n);
    k->dmrbuf = xmalloc(sizeof(double) * n);
    k->dexpect = xmalloc(sizeof(double) * n);
    double p = world_size;
    for (int e = 0; e < m; e++) {
        k->dsbuf[e] = allreduce_value(world_rank, e);
        k->dexpect[e] = p * (p + 1) / 2 + p * 4096.0 * (double)(e % 997); /* sum over r of allreduce_value(r, e) */
    }
    k->bytes = (long long)m * (long long)sizeof(double);
    return 0;
}

void allreduce_clear(vstate *s, const kase *k, const nbhctx *c)
{
    (void)c;
    fill_doubles(s->v->mpi ? k->dmrbuf : k->drbuf, k->m, -1.0); /* never a sum of positive values */
}

void allreduce_verify(vstate *s, kase *k, const nbhctx *c, int inject_fault)
{
    double *rb = s->v->mpi ? k->dmrbuf : k->drbuf;
    if (inject_fault && !s->v->mpi && world_rank == 0 && k->m) rb[0] += 1.0; /* the checker's own test */
    for (int e = 0; e < k->m; e++)
        if (rb[e] != k->dexpect[e]) {
            if (!s->bad)
                fprintf(stderr, "cartbench: rank %d: %s allreduce m=%d %s: element %d is %.17g, expected %.17g\n",
                        world_rank, c->nbh.name, k->m, s->v->name, e, rb[e], k->dexpect[e]);
            s->bad = 1;
            return;
        }
}

const cb_family cb_global_family = { .setup = global_setup, .clear = allreduce_clear, .verify = allreduce_verify };
