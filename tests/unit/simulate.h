/* In-memory simulator of the pure layers (test code, no MPI): build a
 * schedule, localize it for every process of a virtual grid, run all the
 * local plans together with tokens instead of data, and compare the
 * receive buffers with an independent oracle. */
#ifndef CC_TEST_SIMULATE_H
#define CC_TEST_SIMULATE_H

#include <stddef.h>

typedef struct sim_case {
    int d;
    const int *dims, *periods;   /* d each */
    int t;
    const int *offs;             /* t*d raw offsets (not reduced) */
    int collective, algorithm;   /* CC_ALLGATHER/CC_ALLTOALL, CC_DIRECT/...; or the rooted
                                  * CC_BCAST, CC_GATHER (allgather trees), CC_SCATTER (alltoall) */
    int root;                    /* rooted collectives: the root's rank */
} sim_case;

typedef struct sim_result {
    long long nphases, nrounds, nentries; /* of the built schedule */
    long long ncopies, ntemp;
    long long messages, blocks;           /* simulated sends, blocks moved */
    int volume_checked;                   /* per-process volume == nentries was checked */
} sim_result;

/* 0 on success; otherwise non-zero and a one-line reason in err. */
int sim_run(const sim_case *c, sim_result *res, char *err, size_t errlen);

/* Prints a case so that it can be pasted into a test. */
void sim_print_case(const sim_case *c);

#endif
