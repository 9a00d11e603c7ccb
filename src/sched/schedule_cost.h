/* The cost model's arithmetic, pure: what a schedule's figures cost under
 * given machine parameters, and when a multi-phase schedule is clearly
 * cheaper than one message per neighbour.  choose/choose.c applies it to a
 * neighbourhood's schedules; tests/unit/model_rank.c to the cells of a
 * recorded run (docs/model-rank.md), which is why it needs no MPI. */
#ifndef CC_SCHEDULE_COST_H
#define CC_SCHEDULE_COST_H

/* Machine parameters [s]: alpha the latency of a phase, overhead each
 * further message of a phase, beta per byte. */
typedef struct cc_cost_params {
    double alpha, beta, overhead;
} cc_cost_params;

/* What the model reads of a schedule: phases, rounds (messages), blocks
 * handled (entries and copies) and bytes moved. */
typedef struct cc_cost_figs {
    double phases, rounds, blocks, moved;
} cc_cost_figs;

/* Modelled time [s] of a schedule of `collective` (CC_ALLTOALL: distinct
 * blocks; anything else is priced as an allgather) with figures f, run by
 * the pack executor (pack != 0) or the datatype executor. */
double cc_cost(const cc_cost_params *p, const cc_cost_figs *f, int collective, int pack);

/* Whether a candidate of modelled cost `other` is clearly cheaper than one
 * message per neighbour (DIRECT, modelled `direct`): by more than the
 * model's uncertainty.  Otherwise DIRECT, whose worst case is lower (one
 * phase: no forwarding through neighbours that may each be late; what
 * MPI_Neighbor_* does), is taken. */
int cc_cost_clearly_cheaper(double other, double direct);

/* Whether a DIRECT alltoall that sends `entries` blocks of `sent` bytes in
 * all in `rounds` messages goes through the pack executor when its plan is
 * reused: messages that combine several blocks, of at most
 * CC_DIRECT_PACK_BYTES on average. */
int cc_cost_direct_packs(double entries, double rounds, double sent);

#endif
