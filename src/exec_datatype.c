/* Datatype executor (zero-copy, seed 001 sec. 3.3): every combined message
 * is one derived datatype over the addresses of its blocks, relative to the
 * first block (not MPI_BOTTOM, which is not address 0 on every MPI), so
 * blocks move between send, receive and temporary buffers without any copy
 * by the library.  A message of one block uses the block's own count and
 * datatype. */
#include "plan.h"

#include <stdlib.h>

/* Describe the blocks slots[0..n) as one message. */
static int describe(cc_plan *p, const int *slots, int n, cc_msg *m, int *lens, MPI_Aint *disps,
                    MPI_Datatype *types)
{
    if (n == 1) {
        const cc_blk *b = cc_binding_slot(&p->bind, slots[0]);
        *m = (cc_msg){ b->addr, b->count, b->type, NULL };
        return MPI_SUCCESS;
    }
    char *base = cc_binding_slot(&p->bind, slots[0])->addr;
    MPI_Aint at0;
    int rc = MPI_Get_address(base, &at0);
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        const cc_blk *b = cc_binding_slot(&p->bind, slots[j]);
        lens[j] = b->count;
        types[j] = b->type;
        rc = MPI_Get_address(b->addr, &disps[j]);
        disps[j] = MPI_Aint_diff(disps[j], at0);
    }
    if (rc != MPI_SUCCESS) return rc;
    MPI_Datatype t;
    rc = MPI_Type_create_struct(n, lens, disps, types, &t);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = MPI_Type_commit(&t)) != MPI_SUCCESS || (rc = cc_plan_own_type(p, t)) != MPI_SUCCESS) {
        MPI_Type_free(&t);
        return rc;
    }
    *m = (cc_msg){ base, 1, t, NULL };
    return MPI_SUCCESS;
}

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
        if (lr->send_rank >= 0) rc = describe(p, l->slots + lr->sfirst, lr->scount, &p->smsg[r], lens, disps, types);
        if (rc == MPI_SUCCESS && lr->recv_rank >= 0)
            rc = describe(p, l->slots + lr->rfirst, lr->rcount, &p->rmsg[r], lens, disps, types);
    }
    free(lens);
    free(disps);
    free(types);
    return rc;
}

const cc_exec cc_exec_datatype = { "datatype", prepare, NULL, NULL, NULL };
