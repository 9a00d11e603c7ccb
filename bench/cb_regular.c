/* cartbench: the family of the regular, v and w neighbourhood allgather
 * and alltoall (cb_regular.h): per case (neighbourhood, collective, block
 * size) the buffers of cartcoll and of the MPI baseline, the values every
 * receive buffer must hold, and the checks against them. */
#define _POSIX_C_SOURCE 200809L
#include "cb_regular.h"

#include "cb_state.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value of element k of send block b of process r (b = 0 for allgather):
 * never SENTINEL or GAP, and different for nearby (r, b, k). */
static int send_value(int r, int b, int k)
{
    uint64_t x = (uint64_t)(unsigned)r * 0x9E3779B97F4A7C15ull + (uint64_t)(unsigned)b * 0xC2B2AE3D27D4EB4Full +
                 (uint64_t)(unsigned)k * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    return (int)(x % 2000000000u) + 1;
}

/* Whether the buffers would exceed --max-mib (or int offsets); sizes in
 * doubles so that a huge case is skipped without overflow. */
static int case_too_large(const nbhctx *c, const options *o, int op, int m)
{
    double total = 0;
    for (int i = 0; i < c->t; i++) {
        double b = m;
        if (irregular_blocks(o, op)) {
            int z = cb_nbh_nonzeros(&c->nbh, i);
            b = z ? pow(m, c->d - z) : 0;
        }
        total += b + 1;
    }
    return total * sizeof(int) > o->max_mib * 1048576.0 || total > INT_MAX / 2;
}

/* Block sizes and the payload received per process. */
static void set_counts(kase *k, const nbhctx *c, const options *o)
{
    k->cnt = xmalloc(sizeof(int) * (size_t)k->t);
    k->bytes = 0;
    for (int i = 0; i < k->t; i++) {
        if (irregular_blocks(o, k->op)) {
            int z = cb_nbh_nonzeros(&c->nbh, i);
            k->cnt[i] = z ? (int)llround(pow(k->m, c->d - z)) : 0;
        } else {
            k->cnt[i] = k->m;
        }
        if (c->exp_src[i] != MPI_PROC_NULL) k->bytes += (long long)k->cnt[i] * (long long)sizeof(int);
    }
}

/* Regular: blocks back to back.  v/w: send blocks forward, receive blocks
 * in reverse order, each followed by a one-int gap that must stay
 * untouched (so a library that ignores displacements fails the check). */
static void lay_out(kase *k)
{
    int t = k->t;
    k->sd = xmalloc(sizeof(int) * (size_t)t);
    k->rd = xmalloc(sizeof(int) * (size_t)t);
    size_t s = 0, r = 0;
    if (op_is_regular(k->op)) {
        for (int i = 0; i < t; i++) {
            k->sd[i] = (int)s;
            k->rd[i] = (int)r;
            s += (size_t)k->cnt[i];
            r += (size_t)k->cnt[i];
        }
    } else {
        for (int i = 0; i < t; i++) {
            k->sd[i] = (int)s;
            s += (size_t)k->cnt[i] + 1;
        }
        for (int i = t - 1; i >= 0; i--) {
            k->rd[i] = (int)r;
            r += (size_t)k->cnt[i] + 1;
        }
    }
    k->slen = op_is_alltoall(k->op) ? s : (size_t)k->m;
    k->rlen = r;
}

/* cartcoll's buffers, the send buffer filled with process me's values, and
 * the w variants' byte displacements and types. */
static void make_buffers(kase *k, int me)
{
    int t = k->t;
    k->sbuf = xmalloc(sizeof(int) * k->slen);
    k->rbuf = xmalloc(sizeof(int) * k->rlen);
    fill_ints(k->sbuf, k->slen, GAP);
    if (op_is_alltoall(k->op)) {
        for (int i = 0; i < t; i++)
            for (int e = 0; e < k->cnt[i]; e++) k->sbuf[k->sd[i] + e] = send_value(me, i, e);
    } else {
        for (int e = 0; e < k->m; e++) k->sbuf[e] = send_value(me, 0, e);
    }
    k->sdb = xmalloc(sizeof(MPI_Aint) * (size_t)t);
    k->rdb = xmalloc(sizeof(MPI_Aint) * (size_t)t);
    k->types = xmalloc(sizeof(MPI_Datatype) * (size_t)t);
    for (int i = 0; i < t; i++) {
        k->sdb[i] = (MPI_Aint)k->sd[i] * (MPI_Aint)sizeof(int);
        k->rdb[i] = (MPI_Aint)k->rd[i] * (MPI_Aint)sizeof(int);
        k->types[i] = MPI_INT;
    }
}

/* The baseline's send side: alltoall needs a compact buffer (only the
 * neighbours present on the graph); the others address the cartcoll
 * layout (allgatherw: every block at 0). */
static void make_baseline_send(kase *k, const nbhctx *c)
{
    int out = c->outdeg, m = k->m;
    k->mscnt = xmalloc(sizeof(int) * (size_t)out);
    k->msd = xmalloc(sizeof(int) * (size_t)out);
    k->msdb = xmalloc(sizeof(MPI_Aint) * (size_t)out);
    if (k->op == OP_ALLTOALL) {
        k->mslen = (size_t)out * (size_t)m;
        k->msbuf = xmalloc(sizeof(int) * k->mslen);
        for (int j = 0; j < out; j++)
            memcpy(k->msbuf + (size_t)j * m, k->sbuf + k->sd[c->dst_idx[j]], sizeof(int) * (size_t)m);
    } else {
        k->mslen = k->slen;
        k->msbuf = xmalloc(sizeof(int) * k->mslen);
        memcpy(k->msbuf, k->sbuf, sizeof(int) * k->slen);
    }
    for (int j = 0; j < out; j++) {
        int i = c->dst_idx[j];
        k->mscnt[j] = k->cnt[i];
        k->msd[j] = k->op == OP_ALLGATHERW ? 0 : k->sd[i];
        k->msdb[j] = (MPI_Aint)k->msd[j] * (MPI_Aint)sizeof(int);
    }
}

/* The baseline's receive side: compact for the regular collectives, the
 * cartcoll layout for v/w. */
static void make_baseline_recv(kase *k, const nbhctx *c)
{
    int in = c->indeg, out = c->outdeg, m = k->m;
    k->mrcnt = xmalloc(sizeof(int) * (size_t)in);
    k->mrd = xmalloc(sizeof(int) * (size_t)in);
    k->mrdb = xmalloc(sizeof(MPI_Aint) * (size_t)in);
    k->mpos = xmalloc(sizeof(int) * (size_t)in);
    k->mtypes = xmalloc(sizeof(MPI_Datatype) * (size_t)(in > out ? in : out));
    for (int j = 0; j < (in > out ? in : out); j++) k->mtypes[j] = MPI_INT;
    k->mrlen = op_is_regular(k->op) ? (size_t)in * (size_t)m : k->rlen;
    k->mrbuf = xmalloc(sizeof(int) * k->mrlen);
    for (int j = 0; j < in; j++) {
        int i = c->src_idx[j];
        k->mrcnt[j] = k->cnt[i];
        k->mpos[j] = op_is_regular(k->op) ? j * m : k->rd[i];
        k->mrd[j] = k->mpos[j];
        k->mrdb[j] = (MPI_Aint)k->mrd[j] * (MPI_Aint)sizeof(int);
    }
}

/* On MPI_Cart_create communicators receive block i comes from R + N[i] =
 * R - N[i^1] (MPI's meaning; comm_fits made N = -e_0, +e_0, ...), so it
 * holds cartbench's block i^1; blocks i and i^1 have equal counts. */
static void update_cart_ref(kase *k)
{
    if (k->cref == k->ref) return;
    memcpy(k->cref, k->ref, sizeof(int) * k->rlen); /* gaps */
    for (int i = 0; i < k->t; i++) memcpy(k->cref + k->rd[i], k->ref + k->rd[i ^ 1], sizeof(int) * (size_t)k->cnt[i]);
}

/* What every receive buffer must hold: block i from R - N[i]. */
static void make_expectation(kase *k, const nbhctx *c)
{
    k->expect = xmalloc(sizeof(int) * k->rlen);
    k->ref = xmalloc(sizeof(int) * k->rlen);
    fill_ints(k->expect, k->rlen, SENTINEL);
    for (int i = 0; i < k->t; i++)
        if (c->exp_src[i] != MPI_PROC_NULL)
            for (int e = 0; e < k->cnt[i]; e++)
                k->expect[k->rd[i] + e] = send_value(c->exp_src[i], op_is_alltoall(k->op) ? i : 0, e);
    memcpy(k->ref, k->expect, sizeof(int) * k->rlen); /* until the baseline has run */
    k->cref = k->ref;
    if (c->alt[COMM_MPICART] != MPI_COMM_NULL) {
        k->cref = xmalloc(sizeof(int) * k->rlen);
        update_cart_ref(k);
    }
}

/* The baseline's receive buffer in the cartcoll layout. */
static void expand_mpi(const kase *k, const nbhctx *c, int *full)
{
    fill_ints(full, k->rlen, SENTINEL);
    for (int j = 0; j < c->indeg; j++) {
        int i = c->src_idx[j];
        memcpy(full + k->rd[i], k->mrbuf + k->mpos[j], sizeof(int) * (size_t)k->cnt[i]);
    }
}

/* cb_family.setup: the case's layout, buffers, the baseline's arrays and
 * the expectation. */
static int regular_setup(kase *k, const nbhctx *c, const options *o, int op, int m)
{
    int me;
    MPI_Comm_rank(c->comm[0][0], &me);
    k->op = op;
    k->m = m;
    k->t = c->t;
    if (case_too_large(c, o, op, m)) return 1;
    set_counts(k, c, o);
    lay_out(k);
    make_buffers(k, me);
    make_baseline_send(k, c);
    make_baseline_recv(k, c);
    make_expectation(k, c);
    return 0;
}

/* ---- Checks ------------------------------------------------------------ */

/* Compare got with want; report the first difference of a variant once
 * (s->bad is set by the caller, so later calls stay quiet). */
static int differs(const int *got, const int *want, const kase *k, const nbhctx *c, vstate *s, const char *against)
{
    if (!memcmp(got, want, sizeof(int) * k->rlen)) return 0;
    if (!s->bad) {
        size_t e = 0;
        while (got[e] == want[e]) e++;
        int blk = -1;
        for (int i = 0; i < k->t; i++)
            if ((size_t)k->rd[i] <= e && e < (size_t)k->rd[i] + (size_t)k->cnt[i]) blk = i;
        fprintf(stderr, "cartbench: rank %d: %s %s m=%d %s%s%s: receive buffer differs from %s at int %zu (block %d): "
                        "%d, expected %d%s\n",
                world_rank, c->nbh.name, op_name[k->op], k->m, s->v->name, s->v->mpi ? "" : " on ",
                s->v->mpi ? "" : comm_name[s->comm], against, e, blk, got[e], want[e],
                want[e] == SENTINEL ? " (untouched)" : "");
    }
    return 1;
}

/* The baseline's result: blocking MPI against the grid (then it becomes
 * the reference), the other MPI forms against the reference. */
static void check_mpi_result(vstate *s, kase *k, const nbhctx *c)
{
    int *full = xmalloc(sizeof(int) * k->rlen);
    expand_mpi(k, c, full);
    if (s->v->form == F_BLOCKING) {
        if (differs(full, k->expect, k, c, s, "the grid's expectation"))
            s->bad = 1; /* the reference stays the expectation */
        else
            memcpy(k->ref, full, sizeof(int) * k->rlen);
        update_cart_ref(k);
    } else if (differs(full, k->ref, k, c, s, "the reference")) {
        s->bad = 1;
    }
    free(full);
}

/* cb_family.clear: SENTINEL everywhere a correct call writes (the
 * baseline's compact buffer for MPI, floor's packed one too). */
static void regular_clear(vstate *s, const kase *k, const nbhctx *c)
{
    (void)c;
    int mpi = s->v->kind == VK_MPI;
    fill_ints(mpi ? k->mrbuf : k->rbuf, mpi ? k->mrlen : k->rlen, SENTINEL);
    if (s->p2p) s->p2p_ops->clear(s->p2p);
}

/* cb_family.verify: the baseline with the grid's expectation (and keep its
 * result as the reference), p2p and floor with the expectation, cartcoll
 * with the reference. */
static void regular_verify(vstate *s, kase *k, const nbhctx *c, int inject_fault)
{
    if (s->v->kind == VK_MPI) {
        check_mpi_result(s, k, c);
    } else if (s->v->mpi) {
        /* p2p, floor: against the grid's expectation (first principles);
         * floor's bytes are placed in the blocks only now */
        if (s->v->kind == VK_FLOOR) s->p2p_ops->unpack(s->p2p, k);
        if (inject_fault && world_rank == 0 && k->rlen) k->rbuf[0] ^= 1; /* the checker's own test */
        if (differs(k->rbuf, k->expect, k, c, s, "the grid's expectation")) s->bad = 1;
    } else {
        if (inject_fault && world_rank == 0 && k->rlen) k->rbuf[0] ^= 1; /* the checker's own test */
        int mpicart = s->comm == COMM_MPICART;
        if (differs(k->rbuf, mpicart ? k->cref : k->ref, k, c, s,
                    mpicart ? "the reference (MPI's block order)" : "the reference"))
            s->bad = 1;
    }
}

const cb_family cb_regular_family = {
    .setup = regular_setup, .clear = regular_clear, .verify = regular_verify, .names_comm = 1
};
