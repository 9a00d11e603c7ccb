/* The family of trees (coll/family.h): rooted collectives (bcast, gather,
 * scatter, reduce with neighbourhood meaning) along the dimension-wise trees of the allgather (bcast, gather,
 * reduce) and alltoall (scatter) schedules: the root's message count drops
 * from one per neighbour to about one per distinct coordinate and
 * dimension, with other processes helping on the way (seed 000 allows
 * helpers outside the root's neighbourhood).  The schedules are the
 * neighbourhood's cached ones; what depends on the root is the local plan
 * (sched/localize.h, cc_localize_rooted), made per call and owned by the
 * plan.  Which tree (or none: per edge, plan_edges.c) a call takes is
 * chosen in choose/choose_rooted.c. */
#include "coll/family.h"

#include "base/errors.h"
#include "choose/choose.h"
#include "exec/plancache.h"
#include "util/alloc.h"

#include <stdlib.h>

/* Receive blocks that only describe the layout of scratch on the way:
 * t times the signature of the send side (same as the receive side's). */
static int scratch_like_send(const cc_call *a, int nsend, int t, cc_blocks **out)
{
    int *zeros = cc_alloc_zarray((size_t)t, sizeof(int));
    if (!zeros) return MPI_ERR_NO_MEM;
    cc_call b = *a;
    b.recvbuf = (void *)a->sendbuf;
    b.recvcount = a->sendcount;
    b.recvtype = a->sendtype;
    int rc = cc_blocks_new(&b, nsend, t, NULL, zeros, out);
    free(zeros);
    return rc;
}

static int tree_blocks_of(const cc_call *a, const cc_nbh *n, cc_blocks **out)
{
    int t = n->t, here = a->root == n->rank, rc;
    switch (a->collective) {
    case CC_BCAST: /* the buffer at every process (RECV 0 where delivered) */
        return scratch_like_send(a, 1, t, out);
    case CC_SCATTER:
        if (here && a->in_place) return scratch_like_send(a, t, t, out); /* no receive buffer */
        if (here) {
            /* t send blocks, the receive buffer t times (block 0) */
            int *zeros = cc_alloc_zarray((size_t)t, sizeof(int));
            if (!zeros) return MPI_ERR_NO_MEM;
            rc = cc_blocks_new(a, t, t, NULL, zeros, out);
            free(zeros);
            return rc;
        } else {
            cc_call b = *a; /* scratch like the receive buffer, nothing to send */
            b.sendbuf = a->recvbuf;
            b.sendcount = a->recvcount;
            b.sendtype = a->recvtype;
            return scratch_like_send(&b, 0, t, out);
        }
    case CC_GATHER:
        if (here) return cc_blocks_new(a, a->in_place ? 0 : 1, t, NULL, NULL, out);
        return scratch_like_send(a, 1, t, out);
    default: /* CC_REDUCE: the root gathers into temporaries and reduces */
        if (here) return cc_blocks_new_gathered(a, t, out);
        return scratch_like_send(a, 1, t, out);
    }
}

static int tree_plan(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int mode, int tag, int tree,
                     cc_choice c, cc_blocks *blocks, cc_plan *const *made, int nmade, cc_plan **plan)
{
    (void)made, (void)nmade;
    const cc_schedule *s;
    cc_local *l = NULL;
    int base = cc_rooted_base(a->collective), here = a->root == n->rank;
    int *root = cc_alloc_array((size_t)n->d, sizeof(int));
    int st = root ? cc_nbh_schedule(n, base, tree, &s) : CC_ENOMEM;
    if (st == CC_OK) {
        cc_grid_coords(&n->grid, a->root, root);
        int from = a->collective == CC_BCAST || a->collective == CC_SCATTER;
        cc_rooted rt = { from ? CC_ROOT_FROM : CC_ROOT_TO, root, a->collective == CC_SCATTER,
                         !(here && (a->collective == CC_BCAST || a->in_place)), here && a->in_place };
        st = cc_localize_rooted(s, &n->grid, n->coords, &rt, &l);
    }
    free(root);
    if (st != CC_OK)
        return cc_error_code(st == CC_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_COUNT, "%s: %s", who,
                             st == CC_ENOMEM ? "out of memory while planning" : "the schedule is too large");
    int rc = cc_plan_create(plan, s, l, blocks, tree, c.executor, mode == CC_MODE_PERSISTENT, priv, tag);
    if (rc != MPI_SUCCESS) {
        cc_local_free(l);
        return cc_error_mpi_code(rc, who);
    }
    (*plan)->own_local = l;
    /* the root of a reduce reduces what it gathered, in neighbour order */
    if (a->collective == CC_REDUCE && here && (rc = cc_nbh_reduce_gathered(who, n, *plan)) != MPI_SUCCESS)
        cc_plan_free(*plan);
    return rc;
}

/* A rooted call goes along the tree chosen by the model
 * (choose/choose_rooted.c), or per edge where there is none. */
static int tree_decide(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, cc_way *way)
{
    int tree = 0, rc = cc_rooted_tree(who, a, n, want, &tree);
    *way = tree ? (cc_way){ &cc_family_tree, tree } : (cc_way){ &cc_family_edges, 0 };
    return rc;
}

static int tree_cacheable(const cc_call *a, const cc_nbh *n)
{
    return cc_plancache_eligible_rooted(a, a->root == n->rank);
}

/* Checked as one message per edge (its errors do not depend on the
 * algorithm), then its tree's blocks. */
static int tree_blocks(const char *who, const cc_call *a, const cc_nbh *n, int tree, cc_blocks **out)
{
    int rc = cc_nbh_edge_blocks(who, a, n, tree, out);
    cc_blocks_release(*out);
    *out = NULL;
    if (rc == MPI_SUCCESS && (rc = tree_blocks_of(a, n, out)) != MPI_SUCCESS) rc = cc_error_mpi_code(rc, who);
    return rc;
}

/* One candidate: the tree; a call made once packs. */
static int tree_candidates(const char *who, const cc_call *a, cc_nbh *n, const cc_blocks *b, cc_choice want,
                           int mode, int cacheable, int tree, cc_candidates *out)
{
    (void)who, (void)a, (void)n, (void)b, (void)cacheable;
    return cc_nbh_one(want, tree, mode == CC_MODE_PERSISTENT ? CC_EXEC_DATATYPE : CC_EXEC_PACK, out);
}

const cc_family cc_family_tree = { "tree", tree_decide, tree_cacheable, tree_blocks, tree_candidates, tree_plan, 0 };
