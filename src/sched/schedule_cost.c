/* The cost model's arithmetic (sched/schedule_cost.h).  The terms beyond
 * alpha, beta and overhead are read off the recorded 16-core run (MPICH
 * 4.0.2, 16 processes; docs/model-rank.md has the check, the derivations
 * below and in schedule_cost.h): ping-pong calibration sees none of them.
 * A phase waits for its slowest neighbour (phase_wait); the CPU terms
 * below are scaled by the machine's cpu. */
#include "sched/schedule_cost.h"

#include "sched/schedule.h"

/* A message of several blocks that the datatype executor describes as a
 * derived datatype: the datatype engine's set-up per message. */
#define CC_TYPE_MESSAGE 5e-7

/* Per block an allgather (or anything else but an alltoall) handles. */
#define CC_BLOCK_COST 1e-8

/* An alltoall's blocks beyond one per message cost this per block and per
 * message of the call: DIRECT/pack 13 -> 47 -> 189 us for 80 -> 609 ->
 * 3045 blocks on 15 messages (moore:4,3, 4,5, 5,5, m = 1), COMBINING/datatype
 * 11.9 -> 26.8 -> 120 us for 216 -> 1515 -> 7579 blocks on 4: 3-4 ns per
 * block and message; at 4 processes (3 messages) DIRECT/pack's 525 blocks
 * took 5.8 us in all.  Why it grows with the messages is for the executors'
 * profile (issue 28, item 3); the model charges what was measured. */
#define CC_A2A_BLOCK_MESSAGE 3e-9

/* Below this fraction of DIRECT's cost a candidate is clearly cheaper: the
 * model's terms are within about 10% of the recorded cells. */
#define CC_COST_MARGIN 0.9

/* DIRECT messages of up to this many bytes (on average) that carry several
 * blocks go through the pack executor: a few memcpy of the blocks' runs
 * and a contiguous message beat a derived datatype at this size (4
 * processes, d = 4 Moore n = 3, m = 1, 10: 0.2-0.5 us of ~4-7 us; cartbench
 * cart-p-direct-pack vs -datatype), larger ones go zero-copy. */
#define CC_DIRECT_PACK_BYTES 2048

double cc_cost(const cc_cost_params *p, const cc_cost_figs *f, int collective, int pack)
{
    double t = f->phases * p->alpha * (1 + p->phase_wait) + f->rounds * p->overhead + f->moved * p->beta;
    double cpu = 0;
    int combined = f->blocks > f->rounds;
    if (combined && !pack) cpu += f->rounds * CC_TYPE_MESSAGE;
    if (collective == CC_ALLTOALL)
        cpu += combined ? (f->blocks - f->rounds) * f->rounds * CC_A2A_BLOCK_MESSAGE : 0;
    else
        cpu += f->blocks * CC_BLOCK_COST;
    return t + p->cpu * cpu;
}

int cc_cost_clearly_cheaper(double other, double direct) { return other < CC_COST_MARGIN * direct; }

int cc_cost_direct_packs(double entries, double rounds, double sent)
{
    return rounds > 0 && entries > rounds && sent / rounds <= CC_DIRECT_PACK_BYTES;
}
