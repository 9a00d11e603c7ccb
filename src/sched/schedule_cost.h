/* The cost model's arithmetic, pure: what a schedule's figures cost under
 * given machine parameters, and when a multi-phase schedule is clearly
 * cheaper than one message per neighbour.  choose/choose.c applies it to a
 * neighbourhood's schedules; tests/unit/model_rank.c to the cells of a
 * recorded run (docs/model-rank.md), which is why it needs no MPI. */
#ifndef CC_SCHEDULE_COST_H
#define CC_SCHEDULE_COST_H

/* Machine parameters: alpha the latency of a phase [s], overhead each
 * further message of a phase [s], beta per byte [s]; phase_wait what a
 * phase waits beyond alpha for its slowest neighbour, in multiples of
 * alpha; cpu the scale of the library's own per-block and per-datatype
 * CPU costs (1: those of the recorded 16-core run; 0: a machine that
 * charges none, such as a simulator without simulated computation). */
typedef struct cc_cost_params {
    double alpha, beta, overhead, phase_wait, cpu;
} cc_cost_params;

/* The defaults of phase_wait and cpu: what the recorded 16-core run
 * (MPICH 4.0.2, 16 processes) showed; ping-pong calibration sees neither.
 * moore:2,3 on 4 x 4, m = 1: DIRECT (1 phase, 8 messages) 6.6 us,
 * COMBINING (2 phases, 4) 8.3 us, with alpha 0.67 us and overhead 0.50 us;
 * a least-squares fit over the 16-process cells gives about 2 us a phase,
 * 3 alpha. */
#define CC_COST_PHASE_WAIT 2.0
#define CC_COST_CPU 1.0

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
