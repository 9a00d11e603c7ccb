/* cartbench --ops bcast,gather,scatter,reduce: the rooted collectives with
 * neighbourhood meaning (root: rank 0) against one message per neighbour by
 * point-to-point, what a library without trees does (mpi-ortholib does
 * so).  MPI has no neighbourhood bcast/gather/scatter/reduce, so the
 * baseline is blocking only (mpi-i, mpi-p are skipped).  bcast, gather and
 * scatter move m ints per block, reduce sums m doubles.  This file makes the
 * buffers and the expected values (from MPI_Cart_coords/rank: exp_src,
 * exp_dst), runs the baseline and checks a result. */
#define _POSIX_C_SOURCE 200809L
#include "cb_rooted.h"

#include "cb_nreduce.h"
#include "cb_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROOT = 0, TAG = 4242 };

/* Element e of block b sent by process r (ints). */
static int rooted_value(int r, int b, int e) { return (r + 1) * 100000 + b * 37 + e % 29; }

/* Whether the root is one of my in-neighbours R - N[i] (I receive its
 * bcast / scatter block); *last: the last such i. */
static int from_root(const nbhctx *c, int *last)
{
    int hit = 0;
    for (int i = 0; i < c->t; i++)
        if (c->exp_src[i] == ROOT) hit = 1, *last = i;
    return hit;
}

/* cb_family.setup: buffers and the values expected from first principles
 * (the root's in/out-neighbours). */
static int rooted_setup(kase *k, const nbhctx *c, const options *o, int op, int m)
{
    k->op = op;
    k->m = m;
    k->t = c->t;
    size_t t = (size_t)(c->t > 0 ? c->t : 1), n = (size_t)m;
    if (sizeof(double) * (double)m * (4.0 * (double)t + 4.0) > o->max_mib * 1048576.0) return 1;
    int last = -1, rooted = from_root(c, &last);
    if (op == OP_NREDUCE) {
        int sources = nreduce_buffers(k, c, t);
        if (world_rank != ROOT) /* significant at the root only; elsewhere untouched (-1) */
            for (int e = 0; e < m; e++) k->dexpect[e] = -1.0;
        k->bytes = world_rank == ROOT ? (long long)m * (long long)sizeof(double) * sources : 0;
        return 0;
    }
    /* send: scatter's root t blocks, gather's everyone one; receive:
     * gather's root t blocks, bcast's and scatter's one (bcast in place) */
    k->slen = op == OP_NSCATTER ? t * n : n;
    k->rlen = k->mrlen = op == OP_NGATHER ? t * n : n;
    k->sbuf = xmalloc(sizeof(int) * k->slen);
    k->rbuf = xmalloc(sizeof(int) * k->rlen);
    k->mrbuf = xmalloc(sizeof(int) * k->rlen);
    k->expect = xmalloc(sizeof(int) * k->rlen);
    for (size_t e = 0; e < k->slen; e++) k->sbuf[e] = rooted_value(world_rank, (int)(e / n), (int)(e % n));
    fill_ints(k->expect, k->rlen, SENTINEL);
    k->bytes = 0;
    if (op == OP_NBCAST && (world_rank == ROOT || rooted)) {
        for (int e = 0; e < m; e++) k->expect[e] = rooted_value(ROOT, 0, e);
        k->bytes = world_rank == ROOT ? 0 : (long long)sizeof(int) * m;
    } else if (op == OP_NSCATTER && rooted) {
        /* one block per process: the root's last edge to it */
        for (int e = 0; e < m; e++) k->expect[e] = rooted_value(ROOT, last, e);
        k->bytes = (long long)sizeof(int) * m;
    } else if (op == OP_NGATHER && world_rank == ROOT) {
        for (int i = 0; i < c->t; i++)
            if (c->exp_src[i] != MPI_PROC_NULL) {
                for (int e = 0; e < m; e++) k->expect[(size_t)i * n + (size_t)e] = rooted_value(c->exp_src[i], 0, e);
                k->bytes += (long long)sizeof(int) * m;
            }
        /* on MPI_Cart_create (MPI's block order) block i comes from R + N[i]
         * = R - N[i^1]: cartbench's block i^1 (comm_fits made N = -e_0,
         * +e_0, ...) */
        if (c->alt[COMM_MPICART] != MPI_COMM_NULL) {
            k->cref = xmalloc(sizeof(int) * k->rlen);
            for (int i = 0; i < c->t; i++)
                memcpy(k->cref + (size_t)i * n, k->expect + (size_t)(i ^ 1) * n, sizeof(int) * n);
        }
    }
    return 0;
}

/* MPI_Waitall without MPI_STATUSES_IGNORE, which gcc mistakes for an
 * array of size 0 (-Wstringop-overflow). */
static int wait_all(int n, MPI_Request *rq)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int r = MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = r;
    }
    return rc;
}

/* Gather by point-to-point: block i of the root from R - N[i], one message
 * per edge (tag TAG + i matches edges between the same two processes). */
static int p2p_gather(const void *sb, void *rb, int m, MPI_Datatype ty, size_t esz, const nbhctx *c, MPI_Comm g,
                      MPI_Request *rq)
{
    int n = 0, rc = MPI_SUCCESS;
    size_t blk = esz * (size_t)m;
    for (int i = 0; i < c->t && rc == MPI_SUCCESS; i++) {
        int q = c->exp_src[i];
        if (world_rank != ROOT || q == MPI_PROC_NULL) continue;
        if (q == ROOT) memcpy((char *)rb + (size_t)i * blk, sb, blk);
        else rc = MPI_Irecv((char *)rb + (size_t)i * blk, m, ty, q, TAG + i, g, &rq[n++]);
    }
    for (int i = 0; i < c->t && rc == MPI_SUCCESS; i++)
        if (world_rank != ROOT && c->exp_dst[i] == ROOT) rc = MPI_Isend(sb, m, ty, ROOT, TAG + i, g, &rq[n++]);
    int wrc = wait_all(n, rq);
    return rc != MPI_SUCCESS ? rc : wrc;
}

/* Bcast (one buffer) or scatter (block i) from the root to each distinct
 * out-neighbour R + N[i] once: for scatter the root's last edge to it. */
static int p2p_spread(const kase *k, const nbhctx *c, MPI_Comm g, MPI_Request *rq)
{
    int n = 0, rc = MPI_SUCCESS, m = k->m, scatter = k->op == OP_NSCATTER, last = -1;
    int *buf = k->mrbuf;
    if (world_rank == ROOT) {
        for (int i = 0; i < c->t && rc == MPI_SUCCESS; i++) {
            int q = c->exp_dst[i], later = 0;
            for (int j = i + 1; j < c->t && !later; j++) later = c->exp_dst[j] == q;
            if (q == MPI_PROC_NULL || later) continue;
            const int *blk = scatter ? k->sbuf + (size_t)i * (size_t)m : buf;
            if (q == ROOT) {
                if (scatter) memcpy(buf, blk, sizeof(int) * (size_t)m);
            } else {
                rc = MPI_Isend(blk, m, MPI_INT, q, TAG, g, &rq[n++]);
            }
        }
    } else if (from_root(c, &last)) {
        rc = MPI_Recv(buf, m, MPI_INT, ROOT, TAG, g, MPI_STATUS_IGNORE);
    }
    int wrc = wait_all(n, rq);
    return rc != MPI_SUCCESS ? rc : wrc;
}

/* cb_family.baseline: blocking, one message per neighbour on c->plain,
 * reduce summing at the root. */
static int rooted_baseline(const kase *k, const nbhctx *c)
{
    MPI_Comm g = c->plain; /* ranks as the grid's: no reordering anywhere */
    MPI_Request *rq = xmalloc(sizeof(MPI_Request) * (size_t)(c->t + 1));
    int rc;
    if (k->op == OP_NGATHER) {
        rc = p2p_gather(k->sbuf, k->mrbuf, k->m, MPI_INT, sizeof(int), c, g, rq);
    } else if (k->op == OP_NREDUCE) {
        rc = p2p_gather(k->dsbuf, k->dmgbuf, k->m, MPI_DOUBLE, sizeof(double), c, g, rq);
        /* then the root sums its in-neighbours' blocks */
        int first = 1;
        for (int i = 0; rc == MPI_SUCCESS && world_rank == ROOT && i < c->t; i++) {
            if (c->exp_src[i] == MPI_PROC_NULL) continue;
            const double *b = k->dmgbuf + (size_t)i * (size_t)k->m;
            for (int e = 0; e < k->m; e++) k->dmrbuf[e] = first ? b[e] : k->dmrbuf[e] + b[e];
            first = 0;
        }
    } else {
        rc = p2p_spread(k, c, g, rq);
    }
    free(rq);
    return rc;
}

/* cb_family.clear: -1 / SENTINEL where a correct call writes, the root's
 * bcast input in place. */
static void rooted_clear(vstate *s, const kase *k, const nbhctx *c)
{
    (void)c;
    int mpi = s->v->mpi;
    if (k->op == OP_NREDUCE) {
        double *rb = mpi ? k->dmrbuf : k->drbuf;
        for (int e = 0; e < k->m; e++) rb[e] = -1.0;
    } else {
        int *rb = mpi ? k->mrbuf : k->rbuf;
        fill_ints(rb, k->rlen, SENTINEL);
        if (k->op == OP_NBCAST && world_rank == ROOT)
            for (int e = 0; e < k->m; e++) rb[e] = rooted_value(ROOT, 0, e);
    }
}

/* cb_family.verify: every process's buffer against first principles
 * (untouched where not significant). */
static void rooted_verify(vstate *s, kase *k, const nbhctx *c, int inject_fault)
{
    int mpi = s->v->mpi;
    size_t bad = (size_t)-1;
    double got = 0, want = 0;
    if (k->op == OP_NREDUCE) {
        double *rb = mpi ? k->dmrbuf : k->drbuf;
        if (inject_fault && !mpi && world_rank == ROOT && k->m) rb[0] += 1.0; /* the checker's own test */
        for (int e = 0; e < k->m && bad == (size_t)-1; e++)
            if (rb[e] != k->dexpect[e]) bad = (size_t)e, got = rb[e], want = k->dexpect[e];
    } else {
        int *rb = mpi ? k->mrbuf : k->rbuf;
        const int *x = !mpi && s->comm == COMM_MPICART && k->cref ? k->cref : k->expect;
        if (inject_fault && !mpi && world_rank == ROOT && k->rlen) rb[0] ^= 1;
        for (size_t e = 0; e < k->rlen && bad == (size_t)-1; e++)
            if (rb[e] != x[e]) bad = e, got = rb[e], want = x[e];
    }
    if (bad == (size_t)-1) return;
    if (!s->bad)
        fprintf(stderr, "cartbench: rank %d: %s %s m=%d %s: element %zu is %.17g, expected %.17g%s\n", world_rank,
                c->nbh.name, op_name[k->op], k->m, s->v->name, bad, got, want,
                want == SENTINEL ? " (untouched)" : "");
    s->bad = 1;
}

const cb_family cb_rooted_family = {
    .setup = rooted_setup, .clear = rooted_clear, .verify = rooted_verify, .baseline = rooted_baseline
};
