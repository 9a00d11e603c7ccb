/* cartbench's op table (cb_ops.h): the family each collective belongs to.
 * Adding a collective: its OP_* (cb_variants.h), its calls (cb_calls.c),
 * and a family here, new or existing. */
#include "cb_ops.h"

#include "cb_global.h"
#include "cb_nreduce.h"
#include "cb_regular.h"
#include "cb_rooted.h"

const cb_family *cb_family_of(int op)
{
    static const cb_family *const family[NOPS_ALL] = {
        [OP_ALLGATHER] = &cb_regular_family, [OP_ALLGATHERV] = &cb_regular_family,
        [OP_ALLGATHERW] = &cb_regular_family, [OP_ALLTOALL] = &cb_regular_family,
        [OP_ALLTOALLV] = &cb_regular_family,  [OP_ALLTOALLW] = &cb_regular_family,
        [OP_NALLREDUCE] = &cb_nreduce_family, [OP_NBCAST] = &cb_rooted_family,
        [OP_NGATHER] = &cb_rooted_family,     [OP_NSCATTER] = &cb_rooted_family,
        [OP_NREDUCE] = &cb_rooted_family,     [OP_ALLREDUCE] = &cb_global_family,
    };
    return family[op];
}
