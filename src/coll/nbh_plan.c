/* The neighbourhood pipeline's planning (coll/nbh.h), called by its run
 * (nbh_run.c): the checks of a call's blocks (its arguments are checked
 * before, coll/check.c), its blocks described once for checks, model and
 * plans, and its plans -- the
 * candidates of the Cartesian schedules (the six [core] collectives), the
 * allreduce that reduces on the way or gathers and reduces, the rooted
 * trees (rooted.c) and the per-edge plans of the other seed-000
 * collectives. */
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

/* ---- checks of the blocks ---------------------------------------------- */

/* Buffers and block sizes of a call's blocks (counts and types valid). */
static int check_blocks(const char *who, const cc_call *a, const cc_nbh *n, const cc_blocks *b)
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

/* ---- planning ------------------------------------------------------------ */

static int status_code(const char *who, int status)
{
    if (status == CC_ENOMEM) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory while planning", who);
    return cc_error_code(MPI_ERR_COUNT, "%s: the schedule is too large for this neighbourhood", who);
}

void cc_nbh_plan_release(cc_comm *cs, cc_plan *p)
{
    if (p->cached) cc_plancache_release(cs, p);
    else cc_plan_free(p);
}

static int gathered(const cc_call *a, const cc_nbh *n, int special);

/* (coll/nbh.h) */
int cc_nbh_describe(const char *who, const cc_call *a, const cc_nbh *n, int special, cc_blocks **blocks)
{
    int rc;
    if (gathered(a, n, special)) {
        rc = cc_blocks_new_gathered(a, n->t, blocks);
    } else if (!cc_coll_core(a->collective)) {
        /* Per-edge plans: the caller's blocks in its own order; which sides
         * are significant depends on the root. */
        int here = a->root == n->rank, nsend = 1, nrecv = 1;
        if (a->collective == CC_BCAST || a->collective == CC_SCATTER) nsend = here ? cc_call_nsend(a, cc_nbh_nsendblocks(n)) : 0;
        if (a->collective == CC_GATHER && here && a->in_place) nsend = 0;
        if (a->collective == CC_BCAST) nrecv = !here;
        if (a->collective == CC_GATHER || a->collective == CC_REDUCE) nrecv = here ? cc_call_nrecv(a, cc_nbh_nrecvblocks(n)) : 0;
        if (a->collective == CC_SCATTER && here && a->in_place) nrecv = 0;
        rc = cc_blocks_new(a, nsend, nrecv, NULL, NULL, blocks);
    } else {
        rc = cc_blocks_new(a, cc_call_nsend(a, n->graph ? n->outdeg : n->t), n->t, n->sperm, n->rperm, blocks);
    }
    if (rc != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    if ((rc = check_blocks(who, a, n, *blocks)) == MPI_SUCCESS && special && a->collective != CC_ALLREDUCE) {
        /* A rooted call along a tree: checked as one message per edge (its
         * errors do not depend on the algorithm), then its tree's blocks. */
        cc_blocks_release(*blocks);
        *blocks = NULL;
        if ((rc = cc_rooted_blocks(a, n, blocks)) != MPI_SUCCESS) return cc_error_mpi_code(rc, who);
    }
    if (rc != MPI_SUCCESS) {
        cc_blocks_release(*blocks);
        *blocks = NULL;
    }
    return rc;
}

/* The per-edge plan of a seed-000 collective (its schedule and local plan
 * depend on the root, so the plan owns them). */
static int plan_edges(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int mode, int tag,
                      cc_blocks *blocks, cc_plan **plan)
{
    cc_edges e;
    cc_schedule *s = NULL;
    cc_local *l = NULL;
    int st = cc_nbh_edges(n, &e);
    if (st == CC_OK) st = cc_schedule_edges(a->collective, &e, a->root, a->in_place, &s, &l);
    if (st != CC_OK) return status_code(who, st);
    int rc = cc_plan_create(plan, s, l, blocks, CC_DIRECT, CC_EXEC_DATATYPE, mode == CC_MODE_PERSISTENT, priv, tag);
    if (rc != MPI_SUCCESS) {
        cc_schedule_free(s);
        cc_local_free(l);
        return cc_error_mpi_code(rc, who);
    }
    (*plan)->own_sched = s;
    (*plan)->own_local = l;
    return MPI_SUCCESS;
}

/* An allreduce on a Cartesian neighbourhood reduces on the way where it
 * can (`special`: its algorithm, see cc_choose_allreduce); otherwise it runs
 * the allgather's schedules (every algorithm, chosen like the allgather's)
 * into temporaries and reduces them in neighbour order after the last
 * phase. */
static int gathered(const cc_call *a, const cc_nbh *n, int special)
{
    return a->collective == CC_ALLREDUCE && !n->graph && !special;
}

/* (coll/nbh.h) */
int cc_nbh_special(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, int *special)
{
    int size = 0, st = CC_OK;
    *special = 0;
    if (a->collective != CC_ALLREDUCE) return cc_rooted_tree(who, a, n, want, special);
    if (n->graph) return MPI_SUCCESS;
    if (MPI_Type_size(a->recvtype, &size) == MPI_SUCCESS)
        st = cc_choose_allreduce(n, a->op, (double)size * a->recvcount, want, special);
    return st == CC_OK ? MPI_SUCCESS : status_code(who, st);
}

/* The plan of an allreduce that reduces on the way: one candidate; its
 * messages are single blocks, which the datatype executor sends as they
 * are. */
static int plan_onway(const char *who, cc_nbh *n, MPI_Comm priv, int mode, int alg, cc_choice want, int tag,
                      cc_blocks *blocks, cc_plan **plan)
{
    const cc_schedule *s;
    const cc_local *l;
    int st = cc_nbh_schedule(n, CC_ALLREDUCE, alg, &s);
    if (st == CC_OK) st = cc_nbh_local(n, CC_ALLREDUCE, alg, &l);
    if (st != CC_OK) return status_code(who, st);
    int ex = want.executor != CC_EXEC_AUTO ? want.executor : CC_EXEC_DATATYPE;
    int rc = cc_plan_create(plan, s, l, blocks, alg, ex, mode == CC_MODE_PERSISTENT, priv, tag);
    return rc == MPI_SUCCESS ? rc : cc_error_mpi_code(rc, who);
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

/* CARTCOLL_VERBOSE: the candidate plans of a call (rank 0). */
static void report_plans(const char *who, cc_plan *const *plans, int nplans)
{
    fprintf(stderr, "cartcoll: %s:", who);
    for (int i = 0; i < nplans; i++)
        fprintf(stderr, "%s %s/%s (%d rounds)", i ? "," : (nplans > 1 ? " timing" : ""),
                cc_algorithm_name(plans[i]->algorithm), cc_executor_name(plans[i]->executor), plans[i]->sched->nrounds);
    fprintf(stderr, "\n");
}

/* (coll/nbh.h) */
int cc_nbh_plan_call(const char *who, const cc_call *a, cc_comm *cs, MPI_Comm priv, int mode, int cacheable,
                     cc_choice want, int special, int tag, cc_blocks *blocks, cc_plan **plans, int *nplans)
{
    cc_nbh *n = cs->nbh;
    int rc = MPI_SUCCESS;
    cc_candidates cand;
    *nplans = 0;
    int coll = gathered(a, n, special) ? CC_ALLGATHER : a->collective;
    if (special && a->collective == CC_ALLREDUCE) {
        rc = plan_onway(who, n, priv, mode, special, want, tag, blocks, &plans[0]);
        *nplans = rc == MPI_SUCCESS;
        if (rc == MPI_SUCCESS && cacheable) cc_plancache_put(cs, a, plans[0]);
        return rc;
    }
    if (special) {
        rc = cc_rooted_plan(who, a, n, priv, mode == CC_MODE_PERSISTENT, special, want, tag, blocks, &plans[0]);
        *nplans = rc == MPI_SUCCESS;
        if (rc == MPI_SUCCESS && a->collective == CC_REDUCE && a->root == n->rank) {
            /* the root reduces what it gathered, in neighbour order */
            int len = 0, *ops = gathered_operands(n, &len);
            if (!ops || cc_plan_set_reduce(plans[0], ops, len) != MPI_SUCCESS) {
                cc_nbh_plan_release(cs, plans[0]);
                *nplans = 0;
                rc = cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory while planning", who);
            }
        }
        if (rc == MPI_SUCCESS && cacheable) cc_plancache_put(cs, a, plans[0]);
        return rc;
    }
    if (!cc_coll_core(coll)) {
        rc = plan_edges(who, a, n, priv, mode, tag, blocks, &plans[0]);
        *nplans = rc == MPI_SUCCESS;
        if (rc == MPI_SUCCESS && cacheable) cc_plancache_put(cs, a, plans[0]);
        return rc;
    }
    /* Detected graphs and MPI_Cart_create communicators have MPI's meaning,
     * where block sizes agree per edge only: the v and w variants go
     * straight (DIRECT keeps every block on its own edge). */
    if (n->ragged && a->variant != CC_REGULAR) want.algorithm = CC_DIRECT;
    if ((rc = cc_choose(n, coll, blocks->recv, want, mode == CC_MODE_PERSISTENT,
                        mode == CC_MODE_PERSISTENT || cacheable, &cand)) != CC_OK)
        return status_code(who, rc);
    for (int i = 0; i < cand.n; i++) {
        const cc_schedule *s;
        const cc_local *l;
        int st = cc_nbh_schedule(n, coll, cand.c[i].algorithm, &s);
        if (st == CC_OK) st = cc_nbh_local(n, coll, cand.c[i].algorithm, &l);
        if (st != CC_OK) {
            rc = status_code(who, st);
            break;
        }
        /* Candidates of one algorithm share their temporaries (one runs at
         * a time; set-up time and memory). */
        const cc_plan *like = NULL;
        for (int j = 0; j < *nplans && !like; j++)
            if (plans[j]->sched == s && plans[j]->local == l) like = plans[j];
        rc = cc_plan_create_like(&plans[*nplans], s, l, blocks, cand.c[i].algorithm, cand.c[i].executor,
                                 mode == CC_MODE_PERSISTENT, priv, tag, like);
        if (rc != MPI_SUCCESS) {
            rc = cc_error_mpi_code(rc, who);
            break;
        }
        (*nplans)++;
        int len = 0, *ops = coll != a->collective ? gathered_operands(n, &len) : NULL;
        if (coll != a->collective && (!ops || cc_plan_set_reduce(plans[*nplans - 1], ops, len) != MPI_SUCCESS)) {
            rc = cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory while planning", who);
            break;
        }
    }
    if (rc != MPI_SUCCESS) {
        for (int i = 0; i < *nplans; i++) cc_nbh_plan_release(cs, plans[i]);
        *nplans = 0;
        return rc;
    }
    if (cacheable) cc_plancache_put(cs, a, plans[0]);
    if (cc_verbose() && n->rank == 0) report_plans(who, plans, *nplans);
    return MPI_SUCCESS;
}
