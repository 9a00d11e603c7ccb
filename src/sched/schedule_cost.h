/* The cost model's arithmetic, pure: what a schedule's figures cost under
 * given machine parameters.  choose/choose.c applies it to a
 * neighbourhood's schedules; tests/unit/model_rank.c to the cells of a
 * recorded run (docs/performance.md), which is why it needs no MPI. */
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

/* Modelled time [s] of a schedule with figures f run by the pack executor
 * (pack != 0) or the datatype executor. */
double cc_cost(const cc_cost_params *p, const cc_cost_figs *f, int pack);

/* Whether a DIRECT alltoall that sends `entries` blocks of `sent` bytes in
 * all in `rounds` messages goes through the pack executor when its plan is
 * reused: messages that combine several blocks, of at most
 * CC_DIRECT_PACK_BYTES on average. */
int cc_cost_direct_packs(double entries, double rounds, double sent);

#endif
