/* The cost model's arithmetic (sched/schedule_cost.h). */
#include "sched/schedule_cost.h"

/* Per-block handling (packing, datatype engine) that the alpha-beta model
 * leaves out; keeps huge block counts from looking free. */
#define CC_BLOCK_COST 5e-9

/* DIRECT messages of up to this many bytes (on average) that carry several
 * blocks go through the pack executor: a few memcpy of the blocks' runs
 * and a contiguous message beat a derived datatype at this size (4
 * processes, d = 4 Moore n = 3, m = 1, 10: 0.2-0.5 us of ~4-7 us; cartbench
 * cart-p-direct-pack vs -datatype), larger ones go zero-copy. */
#define CC_DIRECT_PACK_BYTES 2048

double cc_cost(const cc_cost_params *p, const cc_cost_figs *f, int pack)
{
    (void)pack;
    return f->phases * p->alpha + f->rounds * p->overhead + f->moved * p->beta + f->blocks * CC_BLOCK_COST;
}

int cc_cost_direct_packs(double entries, double rounds, double sent)
{
    return rounds > 0 && entries > rounds && sent / rounds <= CC_DIRECT_PACK_BYTES;
}
