/* Messages without copies: several blocks described as one struct
 * datatype over their addresses (the datatype executor, and the pack
 * executor's messages over 2 GiB). */
#include "exec/plan.h"

int cc_msg_struct(cc_plan *p, const int *slots, int n, cc_msg *m, int *lens, MPI_Aint *disps,
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

