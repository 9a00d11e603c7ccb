/* Rooted collectives (bcast, gather, scatter, reduce with neighbourhood
 * meaning) along the dimension-wise trees of the allgather (bcast, gather,
 * reduce) and alltoall (scatter) schedules: the root's message count drops
 * from one per neighbour to about one per distinct coordinate and
 * dimension, with other processes helping on the way (seed 000 allows
 * helpers outside the root's neighbourhood).  The schedules are the
 * neighbourhood's cached ones; what depends on the root is the local plan
 * (sched/localize.h, cc_localize_rooted), made per call and owned by the
 * plan.  Which tree (or none) a call takes is chosen in
 * choose/choose_rooted.c. */
#include "coll/coll.h"

#include "base/errors.h"
#include "choose/choose.h"
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

int cc_rooted_blocks(const cc_call *a, const cc_nbh *n, cc_blocks **out)
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

int cc_rooted_plan(const char *who, const cc_call *a, cc_nbh *n, MPI_Comm priv, int persistent, int tree,
                   cc_choice want, int tag, cc_blocks *blocks, cc_plan **plan)
{
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
    int ex = want.executor != CC_EXEC_AUTO ? want.executor : persistent ? CC_EXEC_DATATYPE : CC_EXEC_PACK;
    int rc = cc_plan_create(plan, s, l, blocks, tree, ex, persistent, priv, tag);
    if (rc != MPI_SUCCESS) {
        cc_local_free(l);
        return cc_error_mpi_code(rc, who);
    }
    (*plan)->own_local = l;
    return MPI_SUCCESS;
}
