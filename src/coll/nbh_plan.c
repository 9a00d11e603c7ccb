/* The neighbourhood pipeline's planning (coll/nbh.h), called by its run
 * (nbh_run.c): a call's way (its descriptor's family decides), its blocks
 * described once for checks, model and plans, and its plans -- a loop over
 * the candidates of its family (coll/family.h: Cartesian schedules, the
 * allreduce on the way or gathered, rooted trees, per edge).  Also what
 * the families share: the checks of a call's blocks and planning errors. */
#include "cartcoll.h"

#include "coll/coll.h"
#include "coll/nbh.h"
#include "base/errors.h"
#include "bind/binding.h"
#include "choose/choose.h"
#include "exec/plan.h"
#include "exec/plancache.h"
#include "topo/comm.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- checks of the blocks ---------------------------------------------- */

/* Buffers and block sizes of a call's blocks (counts and types valid). */
/* (coll/family.h) */
int cc_nbh_check_blocks(const char *who, const cc_call *a, const cc_nbh *n, const cc_blocks *b)
{
    /* A NULL buffer is MPI_BOTTOM: fine with derived types of absolute
     * addresses, and with any type where the w variants give absolute
     * byte displacements (MPI_Get_address); never with a predefined type
     * at a displacement counted in extents. */
    int send_abs = a->variant == CC_W && a->collective == CC_ALLTOALL, recv_abs = a->variant == CC_W;
    int core = cc_coll_core(a->collective); /* the six [core] collectives (else per-edge, unpermuted) */
    for (int i = 0; i < b->nsend; i++)
        if (!a->sendbuf && b->send[i].bytes > 0 && b->send[i].named && !send_abs)
            return cc_error_code(MPI_ERR_BUFFER, "%s: sendbuf is NULL but block %d has %lld bytes", who,
                                 core && n->sperm && b->nsend > 1 ? n->sperm[i] : i, (long long)b->send[i].bytes);
    if (b->result && !a->recvbuf && b->result->bytes > 0 && b->result->named)
        return cc_error_code(MPI_ERR_BUFFER, "%s: recvbuf is NULL but the result has %lld bytes", who,
                             (long long)b->result->bytes);
    for (int i = 0; i < b->t && !b->result; i++) {
        const cc_blk *sb = &b->send[b->nsend > 1 ? i : 0], *rb = &b->recv[i];
        int ri = core && n->rperm ? n->rperm[i] : i; /* the caller's index of receive block i */
        if (!a->recvbuf && rb->bytes > 0 && rb->named && !recv_abs && ri >= 0) /* (ri < 0: a block it does not have) */
            return cc_error_code(MPI_ERR_BUFFER, "%s: recvbuf is NULL but block %d has %lld bytes", who, ri,
                                 (long long)rb->bytes);
        /* Block i has one type signature everywhere: locally, the send block
         * and the receive block agree in size (graphs, detected or not, and
         * MPI_Cart_create communicators: different edges, whose sizes may
         * differ). */
        if (core && !n->graph && !n->ragged && !n->unreachable[i] && sb->bytes != rb->bytes)
            return cc_error_code(MPI_ERR_ARG,
                                 "%s: send block %d has %lld bytes but receive block %d has %lld; block i must have "
                                 "the same type signature on the sending and the receiving side",
                                 who, b->nsend > 1 ? i : 0, (long long)sb->bytes, ri, (long long)rb->bytes);
    }
    return MPI_SUCCESS;
}

/* ---- what the families share ------------------------------------------- */

/* (coll/family.h) */
int cc_nbh_status(const char *who, int status)
{
    if (status == CC_ENOMEM) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory while planning", who);
    return cc_error_code(MPI_ERR_COUNT, "%s: the schedule is too large for this neighbourhood", who);
}

/* (coll/family.h) */
int cc_nbh_one(cc_choice want, int alg, int ex, cc_candidates *out)
{
    out->n = 1;
    out->c[0] = want;
    out->c[0].algorithm = alg;
    out->c[0].executor = want.executor != CC_EXEC_AUTO ? want.executor : ex;
    return MPI_SUCCESS;
}

/* The operands of a gathered reduction: receive block i (offset i) in the
 * caller's order of in-neighbours, those that exist here (not off a mesh).
 * Returns a malloc'ed list and its length in *len, or NULL. */
static int *gathered_operands(cc_nbh *n, int *len)
{
    cc_edges e;
    int *inv = cc_alloc_array((size_t)n->t + (size_t)cc_nbh_nrecvblocks(n), sizeof(int)), *ops = inv;
    if (!inv || cc_nbh_edges(n, &e) != CC_OK) {
        free(inv);
        return NULL;
    }
    int *where = inv + n->t; /* where[j]: the offset whose receive block is the caller's block j */
    for (int j = 0; j < e.indeg; j++) where[j] = -1;
    for (int i = 0; i < n->t; i++) {
        int j = n->rperm ? n->rperm[i] : i;
        if (j >= 0 && j < e.indeg) where[j] = i;
    }
    *len = 0;
    for (int j = 0; j < e.indeg; j++)
        if (where[j] >= 0 && e.src[j] != CC_NONE) ops[(*len)++] = CC_SLOT(CC_SLOT_RECV, where[j]);
    return ops;
}

/* (coll/family.h) */
int cc_nbh_reduce_gathered(const char *who, cc_nbh *n, cc_plan *p)
{
    int len = 0, *ops = gathered_operands(n, &len);
    if (!ops || cc_plan_set_reduce(p, ops, len) != MPI_SUCCESS)
        return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory while planning", who);
    return MPI_SUCCESS;
}

/* ---- the pipeline's planning ---------------------------------------------- */

void cc_nbh_plan_release(cc_comm *cs, cc_plan *p)
{
    if (p->cached) cc_plancache_release(cs, p);
    else cc_plan_free(p);
}

/* (coll/nbh.h) */
int cc_nbh_decide(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, cc_way *way)
{
    return a->coll->plan->decide(who, a, n, want, way);
}

/* (coll/nbh.h) */
int cc_nbh_cacheable(const cc_call *a, const cc_nbh *n)
{
    const cc_family *f = a->coll->plan;
    return f->cacheable && !n->graph &&
           /* (the cache reads t entries of the caller's arrays) */
           cc_nbh_nsendblocks(n) == n->t && cc_nbh_nrecvblocks(n) == n->t && f->cacheable(a, n);
}

/* (coll/nbh.h) */
int cc_nbh_describe(const char *who, const cc_call *a, const cc_nbh *n, cc_way way, cc_blocks **blocks)
{
    *blocks = NULL;
    int rc = way.f->blocks(who, a, n, way.how, blocks);
    if (rc != MPI_SUCCESS) {
        cc_blocks_release(*blocks);
        *blocks = NULL;
    }
    return rc;
}

/* CARTCOLL_VERBOSE: the candidate plans of a call (rank 0). */
static void report_plans(const char *who, cc_plan *const *plans, int nplans)
{
    fprintf(stderr, "cartcoll: %s:", who);
    for (int i = 0; i < nplans; i++) {
        const cc_plan *q = plans[i];
        fprintf(stderr, "%s %s/%s (%d rounds", i ? "," : (nplans > 1 ? " timing" : ""), cc_algorithm_name(q->algorithm),
                cc_executor_name(q->executor), q->sched->nrounds);
        /* what the derived datatypes cost to build: their entries */
        if (q->type_entries) fprintf(stderr, "; %ld datatype entries for %ld blocks", q->type_entries, q->type_blocks);
        fprintf(stderr, ")");
    }
    fprintf(stderr, "\n");
}

/* (coll/nbh.h) */
int cc_nbh_plan_call(const char *who, const cc_call *a, cc_comm *cs, MPI_Comm priv, int mode, int cacheable,
                     cc_choice want, cc_way way, int tag, cc_blocks *blocks, cc_plan **plans, int *nplans)
{
    cc_nbh *n = cs->nbh;
    cc_candidates cand;
    *nplans = 0;
    int rc = way.f->candidates(who, a, n, blocks, want, mode, cacheable, way.how, &cand);
    for (int i = 0; i < cand.n && rc == MPI_SUCCESS; i++) {
        rc = way.f->plan(who, a, n, priv, mode, tag, way.how, cand.c[i], blocks, plans, *nplans, &plans[*nplans]);
        if (rc == MPI_SUCCESS) (*nplans)++;
    }
    if (rc != MPI_SUCCESS) {
        for (int i = 0; i < *nplans; i++) cc_nbh_plan_release(cs, plans[i]);
        *nplans = 0;
        return rc;
    }
    if (cacheable) cc_plancache_put(cs, a, plans[0]);
    if (way.f->report && cc_verbose() && n->rank == 0) report_plans(who, plans, *nplans);
    return MPI_SUCCESS;
}
