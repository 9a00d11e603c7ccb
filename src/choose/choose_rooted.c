/* The tree choice of rooted collectives with neighbourhood meaning (bcast,
 * gather, scatter, reduce): they ride on the dimension-wise trees of the
 * allgather's (bcast, gather, reduce) or alltoall's (scatter) schedules,
 * chosen here by the same model as those collectives; the blocks and the
 * plan along the chosen tree are coll/rooted.c's. */
#include "choose/choose.h"

#include "base/errors.h"
#include "util/alloc.h"

#include <stdlib.h>

int cc_rooted_base(int collective) { return collective == CC_SCATTER ? CC_ALLTOALL : CC_ALLGATHER; }

/* Bytes of one block, from the side that is significant here: the root's
 * receive side of a gather and send side of a scatter (the other may be
 * MPI_IN_PLACE), everybody else's other side; equal signatures make it the
 * same number everywhere. */
static int block_bytes(const cc_call *a, int here, double *bytes)
{
    int size = 0, recv_side = a->collective == CC_SCATTER ? !here : a->collective == CC_GATHER && here;
    int rc = MPI_Type_size(recv_side ? a->recvtype : a->sendtype, &size);
    *bytes = (double)size * (recv_side ? a->recvcount : a->sendcount);
    return rc;
}

int cc_rooted_tree(const char *who, const cc_call *a, cc_nbh *n, cc_choice want, int *tree)
{
    *tree = 0;
    /* Trees need one layout of blocks along the way (regular calls on
     * neighbourhoods without permuted block orders); the rest, and
     * DIRECT, go one message per edge.  Every input here is the same on
     * every process. */
    if (!cc_coll_rooted(a->collective) || n->graph || n->detected || n->ragged || n->sperm || n->rperm || n->t == 0 ||
        a->variant != CC_REGULAR || want.algorithm == CC_DIRECT)
        return MPI_SUCCESS;
    if (want.algorithm != CC_AUTO) {
        *tree = want.algorithm;
        return MPI_SUCCESS;
    }
    double bytes = 0;
    cc_blk *recv = cc_alloc_zarray((size_t)n->t, sizeof *recv);
    if (!recv) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory while planning", who);
    if (block_bytes(a, a->root == n->rank, &bytes) != MPI_SUCCESS) bytes = 0;
    for (int i = 0; i < n->t; i++) recv[i].bytes = (MPI_Aint)bytes;
    cc_candidates cand;
    int st = cc_choose(n, cc_rooted_base(a->collective), recv, (cc_choice){ CC_AUTO, CC_EXEC_AUTO, 0 }, 0, 0, &cand);
    free(recv);
    if (st != CC_OK) return cc_error_code(MPI_ERR_NO_MEM, "%s: out of memory while planning", who);
    if (cand.c[0].algorithm != CC_DIRECT) *tree = cand.c[0].algorithm;
    return MPI_SUCCESS;
}
