/* The cells of a recorded cartbench run as the cost model sees them (test
 * code, no MPI): a Moore neighbourhood moore:d,n (offsets -1..n-2 in each
 * dimension, the zero vector left out, as cartbench's) on the periodic grid
 * MPI_Dims_create gives np processes, its DIRECT and COMBINING schedules'
 * figures for blocks of `bytes`, and which of the two a blocking call with
 * a cached plan takes (the executors and the rule of choose/choose.c,
 * through sched/schedule_cost.h). */
#ifndef CC_TEST_MODEL_CELLS_H
#define CC_TEST_MODEL_CELLS_H

#include "sched/schedule_cost.h"

#define MC_MAXD 8

typedef struct mc_cand {
    cc_cost_figs f;
    int pack;          /* the executor a cached blocking plan uses */
    double cost;       /* cc_cost [s] */
} mc_cand;

typedef struct mc_cell {
    int np, d, n, collective; /* CC_ALLGATHER or CC_ALLTOALL */
    double bytes;             /* per block */
    int dims[MC_MAXD];
    mc_cand direct, combining;
    int choice;               /* CC_DIRECT or CC_COMBINING */
} mc_cell;

/* Fills c's dims, candidates and choice from np, d, n, collective, bytes
 * under parameters p.  Returns 0, or -1 when a schedule cannot be counted. */
int mc_evaluate(mc_cell *c, const cc_cost_params *p);

#endif
