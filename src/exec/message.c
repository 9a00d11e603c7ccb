/* Messages without copies: several blocks described as one derived
 * datatype over their addresses (the datatype executor, and the pack
 * executor's messages over 2 GiB). */
#include "exec/plan.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* The types a plan creates live here, beside the messages that create
 * them (plan.c frees them with the plan). */
int cc_plan_own_type(cc_plan *p, MPI_Datatype t)
{
    if (p->ntypes == p->captypes) {
        int cap = p->captypes ? 2 * p->captypes : 16;
        MPI_Datatype *n = realloc(p->types, sizeof(MPI_Datatype) * (size_t)cap);
        if (!n) return MPI_ERR_NO_MEM;
        p->types = n;
        p->captypes = cap;
    }
    p->types[p->ntypes++] = t;
    return MPI_SUCCESS;
}

/* The type of k entries (lens[j] elements of types[j] at disps[j]): where
 * every entry has one type, hindexed (hindexed_block where the lengths are
 * equal too): the struct's type map, but far cheaper for MPICH to create
 * (scripts/callgrind_setup.sh, NP=16: docs/performance.md); otherwise the
 * struct. */
static int entries_type(int k, const int *lens, const MPI_Aint *disps, const MPI_Datatype *types, MPI_Datatype *t)
{
    int one_type = 1, one_len = 1;
    for (int j = 1; j < k && one_type; j++) {
        one_type = types[j] == types[0];
        one_len &= lens[j] == lens[0];
    }
    if (!one_type) return MPI_Type_create_struct(k, lens, disps, types, t);
    if (one_len) return MPI_Type_create_hindexed_block(k, lens[0], disps, types[0], t);
    return MPI_Type_create_hindexed(k, lens, disps, types[0], t);
}

int cc_msg_struct(cc_plan *p, const int *slots, int n, cc_msg *m, int *lens, MPI_Aint *disps,
                    MPI_Datatype *types)
{
    if (n == 1) {
        const cc_blk *b = cc_binding_slot(&p->bind, slots[0]);
        *m = (cc_msg){ b->addr, b->count, b->type, NULL };
        return MPI_SUCCESS;
    }
    char *base = cc_binding_slot(&p->bind, slots[0])->addr;
    int rc = MPI_SUCCESS, k = 0;
    const cc_blk *prev = NULL;
    for (int j = 0; j < n; j++) {
        const cc_blk *b = cc_binding_slot(&p->bind, slots[j]);
        /* a block of the same predefined type right after the previous one
         * (an alltoall's consecutive blocks to one peer): one entry */
        if (prev && b->named && b->type == prev->type && b->data && prev->data &&
            b->addr == prev->addr + prev->bytes && (MPI_Aint)lens[k - 1] + b->count <= INT_MAX) {
            lens[k - 1] += b->count;
            prev = b;
            continue;
        }
        lens[k] = b->count;
        types[k] = b->type;
        /* byte distance from the first block: integer arithmetic, as the
         * blocks' addresses were made (bind/args.c), without two MPI calls
         * per block (thousands per message at set-up) */
        disps[k] = (MPI_Aint)((uintptr_t)b->addr - (uintptr_t)base);
        k++;
        prev = b;
    }
    if (k == 1 && cc_binding_slot(&p->bind, slots[0])->named) { /* all one run: no derived type */
        *m = (cc_msg){ base, lens[0], types[0], NULL };
        return MPI_SUCCESS;
    }
    MPI_Datatype t;
    if ((rc = entries_type(k, lens, disps, types, &t)) != MPI_SUCCESS) return rc;
    if ((rc = MPI_Type_commit(&t)) != MPI_SUCCESS || (rc = cc_plan_own_type(p, t)) != MPI_SUCCESS) {
        MPI_Type_free(&t);
        return rc;
    }
    p->type_entries += k;
    p->type_blocks += n;
    *m = (cc_msg){ base, 1, t, NULL };
    return MPI_SUCCESS;
}

