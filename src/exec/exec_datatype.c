/* Datatype executor (zero-copy, seed 001 sec. 3.3): every combined message
 * is one derived datatype over the addresses of its blocks, relative to the
 * first block (not MPI_BOTTOM, which is not address 0 on every MPI), so
 * blocks move between send, receive and temporary buffers without any copy
 * by the library.  A message of one block uses the block's own count and
 * datatype. */
#include "exec/plan.h"

#include <stdlib.h>

static int prepare(cc_plan *p)
{
    const cc_local *l = p->local;
    int maxn = 1;
    for (int r = 0; r < l->nrounds; r++) {
        if (l->rounds[r].scount > maxn) maxn = l->rounds[r].scount;
        if (l->rounds[r].rcount > maxn) maxn = l->rounds[r].rcount;
    }
    int *lens = malloc(sizeof(int) * (size_t)maxn);
    MPI_Aint *disps = malloc(sizeof(MPI_Aint) * (size_t)maxn);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)maxn);
    int rc = (!lens || !disps || !types) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    for (int r = 0; rc == MPI_SUCCESS && r < l->nrounds; r++) {
        const cc_lround *lr = &l->rounds[r];
        if (lr->send_rank >= 0) rc = cc_msg_struct(p, l->slots + lr->sfirst, lr->scount, &p->smsg[r], lens, disps, types);
        if (rc == MPI_SUCCESS && lr->recv_rank >= 0)
            rc = cc_msg_struct(p, l->slots + lr->rfirst, lr->rcount, &p->rmsg[r], lens, disps, types);
    }
    free(lens);
    free(disps);
    free(types);
    return rc;
}

const cc_exec cc_exec_datatype = { prepare, NULL, NULL };
